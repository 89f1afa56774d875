//! The rule registry, parsed from the embedded `rules/<ID>.md` documents.

use serde::Serialize;
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));

/// How much a finding matters: each rule has a default, `.olmlint.yaml` may change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "info" | "note" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

pub const DOCS_BASE: &str = "https://github.com/olmlint/olmlint/blob/main/rules";

/// The olmlint book (docs/, built by scripts/book.sh and published by
/// .github/workflows/book.yml), where each rule has a page generated from rules/ID.md.
pub const BOOK_URL: &str = "https://olmlint.github.io/olmlint";

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: &'static str,
    pub name: String,
    pub severity: Severity,
    /// Off unless enabled in the configuration.
    pub enabled: bool,
    pub summary: String,
    /// Rules the failing example necessarily triggers too (e.g. an uninstallable bundle, OLM501).
    pub also: Vec<String>,
    /// What its findings point at, for editors (`tags:` in the front matter): `unnecessary`
    /// (text that changes nothing, shown faded) or `deprecated` (an obsolete form, struck
    /// through); the language server's diagnostic tags.
    pub tags: Vec<String>,
    /// The Markdown body (after the front matter).
    pub body: &'static str,
}

impl Rule {
    pub fn url(&self) -> String {
        format!("{DOCS_BASE}/{}.md", self.id)
    }

    /// The rule's page in the book.
    pub fn book_url(&self) -> String {
        format!("{BOOK_URL}/rules/{}.html", self.id)
    }

    /// The rule's documentation as `olmlint explain` prints it (Markdown): ID and name,
    /// default severity, summary, the page's body and the book page's address. The language
    /// server's hover on a finding shows the same text.
    pub fn explain_text(&self) -> String {
        format!(
            "# {} {}\n\nDefault severity: {}{}\n\n{}\n\n{}\n\nDocs: {}",
            self.id,
            self.name,
            self.severity.as_str(),
            if self.enabled {
                ""
            } else {
                " (off by default)"
            },
            self.summary,
            self.body.trim(),
            self.book_url()
        )
    }

    /// Text of a `## <title>` section of the body.
    pub fn section(&self, title: &str) -> Option<&'static str> {
        let start = self.body.find(&format!("## {title}"))?;
        let rest = self.body.get(start..)?;
        let body_start = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let rest = rest.get(body_start..)?;
        let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
        rest.get(..end).map(str::trim)
    }
}

pub fn all() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        RULE_DOCS
            .iter()
            .filter_map(|(id, doc)| parse(id, doc))
            .collect()
    })
}

/// A rule by ID (any case) or name. Called per finding and per enabled-check, so looked up
/// in a map rather than by scanning every rule.
pub fn get(id: &str) -> Option<&'static Rule> {
    static BY_KEY: OnceLock<std::collections::HashMap<&'static str, usize>> = OnceLock::new();
    let by_key = BY_KEY.get_or_init(|| {
        let mut m = std::collections::HashMap::new();
        for (i, r) in all().iter().enumerate() {
            m.insert(r.id, i);
            m.entry(r.name.as_str()).or_insert(i);
        }
        m
    });
    let i = match by_key.get(id) {
        Some(&i) => i,
        None => *by_key.get(id.to_ascii_uppercase().as_str())?,
    };
    all().get(i)
}

/// A comma-separated front-matter value.
fn list(value: Option<String>) -> Vec<String> {
    value
        .map(|v| {
            v.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn parse(id: &'static str, doc: &'static str) -> Option<Rule> {
    let rest = doc.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    let (front, body) = (rest.get(..end)?, rest.get(end + 5..)?);
    let field = |k: &str| {
        front.lines().find_map(|l| {
            l.strip_prefix(k)
                .and_then(|v| v.strip_prefix(':'))
                .map(|v| v.trim().to_string())
        })
    };
    Some(Rule {
        id,
        name: field("name")?,
        severity: field("severity")
            .and_then(|s| Severity::parse(&s))
            .unwrap_or(Severity::Error),
        enabled: field("enabled").is_none_or(|v| v != "false"),
        summary: field("summary").unwrap_or_default(),
        also: list(field("also")),
        tags: list(field("tags")),
        body,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn tags_are_ones_editors_know() {
        for r in super::all() {
            for t in &r.tags {
                assert!(
                    ["unnecessary", "deprecated"].contains(&t.as_str()),
                    "{}: {t}",
                    r.id
                );
            }
        }
        assert_eq!(
            super::get("OLM010").map(|r| r.tags.clone()),
            Some(vec!["unnecessary".to_string()])
        );
    }

    #[test]
    fn every_doc_parses_and_ids_match() {
        assert_eq!(super::all().len(), super::RULE_DOCS.len());
        for r in super::all() {
            assert!(!r.summary.is_empty(), "{} has no summary", r.id);
            assert!(
                r.section("Why OLM cares").is_some(),
                "{} lacks 'Why OLM cares'",
                r.id
            );
        }
    }
}
