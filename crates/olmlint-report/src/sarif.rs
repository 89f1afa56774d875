//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning ingests it: every rule with short and
//! full descriptions and help (docs link inside the help, since GitHub ignores `helpUri`),
//! repo-relative URIs, real regions and `partialFingerprints`.

use super::{resolve, Report, Resolved};
use olmlint_base::diag::{Diagnostic, Severity};
use serde_json::{json, Value};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Percent-encode a relative path for a URI reference.
pub fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An `artifactLocation` for a file as displayed: relative to `%SRCROOT%` (the working
/// directory) when it is under it; otherwise an absolute `file://` URI without a base id
/// (a relative URI climbing out of its base with `../` is not a valid SARIF location).
fn artifact(path: &str) -> Value {
    let p = std::path::Path::new(path);
    let climbs = p
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir));
    if p.is_relative() && !climbs {
        return json!({"uri": uri(path), "uriBaseId": "%SRCROOT%"});
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let text = olmlint_load::io::lexical(&cwd, p)
        .to_string_lossy()
        .replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    json!({"uri": format!("file://{}", uri(&text))})
}

/// Insert into a JSON object (no-op on other values).
fn set(v: &mut Value, key: &str, x: Value) {
    if let Value::Object(m) = v {
        m.insert(key.to_string(), x);
    }
}

pub fn render(r: &Report<'_>) -> String {
    let rules: Vec<&olmlint_base::rules::Rule> = olmlint_base::rules::all().iter().collect();
    let descriptors: Vec<Value> = rules.iter().map(|rule| descriptor(rule)).collect();
    let mut results = Results {
        report: r,
        rules: &rules,
        seen: Default::default(),
    };
    let results: Vec<Value> = r.diags.iter().map(|d| results.result(d)).collect();
    let root_uri = working_directory_uri();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "olmlint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": descriptors,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": true, "workingDirectory": {"uri": root_uri}}],
            "automationDetails": {"id": "olmlint/"},
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A rule's `reportingDescriptor`: descriptions, help with the docs link, default level.
fn descriptor(rule: &olmlint_base::rules::Rule) -> Value {
    let why = rule.section("Why OLM cares").unwrap_or(&rule.summary);
    let full: String = why.chars().take(1000).collect();
    json!({
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {
            "text": format!("{}\n\nDocumentation: {}", rule.summary, rule.url()),
            "markdown": format!("{}\n\n{}\n\n[Rule documentation]({})", rule.summary, why, rule.url()),
        },
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": level(rule.severity), "enabled": rule.enabled},
        "properties": {"tags": ["olm", rule.id.get(..4).unwrap_or("OLM").to_string() + "xx"], "precision": "very-high"},
    })
}

/// The working directory as a `file://` URI ending in `/`: what `%SRCROOT%` stands for.
fn working_directory_uri() -> String {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    format!(
        "file://{}{}/",
        if cwd.starts_with('/') { "" } else { "/" },
        uri(&cwd)
    )
}

/// Turns findings into SARIF `result`s, in order: fingerprints count the findings seen so far
/// with the same file and hash.
struct Results<'r> {
    report: &'r Report<'r>,
    rules: &'r [&'r olmlint_base::rules::Rule],
    seen: std::collections::HashMap<(String, u64), usize>,
}

impl Results<'_> {
    fn result(&mut self, d: &Diagnostic) -> Value {
        let loc = resolve(self.report.files, d.location);
        let rule_index = self.rules.iter().position(|x| x.id == d.rule);
        let mut text = d.message.clone();
        if let Some(h) = &d.help {
            text.push_str("\nhelp: ");
            text.push_str(h);
        }
        let mut result = json!({
            "ruleId": d.rule,
            "level": level(d.severity),
            // Shown to reviewers by code scanning: display text (bidi controls visible).
            "message": {"text": olmlint_base::escape::visible(&text)},
        });
        if let Some(i) = rule_index {
            set(&mut result, "ruleIndex", json!(i));
        }
        set(&mut result, "locations", json!([location(d, loc.as_ref())]));
        let fingerprint = self.fingerprint(d, loc.as_ref());
        set(
            &mut result,
            "partialFingerprints",
            json!({"primaryLocationLineHash": fingerprint}),
        );
        if let Some(rel) = self.related_locations(d) {
            set(&mut result, "relatedLocations", rel);
        }
        if let Some(fixes) = self.fixes(d, loc.as_ref()) {
            set(&mut result, "fixes", fixes);
        }
        result
    }

    /// Fingerprint on rule, file and the text of the line, not the line number, so alerts
    /// survive unrelated edits above them; `:n` tells apart the n-th finding with the same.
    fn fingerprint(&mut self, d: &Diagnostic, loc: Option<&Resolved>) -> String {
        let r = self.report;
        let line_text = d
            .location
            .and_then(|l| r.files.get(l.file))
            .zip(loc)
            .map_or(String::new(), |(f, l)| {
                f.source.line_text(l.line).trim().to_string()
            });
        let file = loc.map_or(String::new(), |l| l.file.clone());
        let h = olmlint_load::findings::fnv(
            format!(
                "{}\u{0}{file}\u{0}{line_text}\u{0}{}",
                d.rule,
                d.bundle.as_deref().unwrap_or("")
            )
            .bytes(),
        );
        let n = self.seen.entry((file, h)).or_insert(0);
        *n += 1;
        format!("{h:016x}:{n}")
    }

    /// The finding's related locations that resolve (`None` when none does).
    fn related_locations(&self, d: &Diagnostic) -> Option<Value> {
        if d.related.is_empty() {
            return None;
        }
        let rel: Vec<Value> = d
            .related
            .iter()
            .enumerate()
            .filter_map(|(i, rel)| {
                let l = resolve(self.report.files, rel.location)?;
                Some(json!({
                    "id": i,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": artifact(&l.file),
                        "region": {"startLine": l.line, "startColumn": l.column},
                    }
                }))
            })
            .collect();
        (!rel.is_empty()).then(|| json!(rel))
    }

    /// The finding's fix as SARIF `fixes`, when it has one whose every edit resolves and the
    /// finding has a location.
    fn fixes(&self, d: &Diagnostic, loc: Option<&Resolved>) -> Option<Value> {
        let f = d.fix.as_ref()?;
        let files = self.report.files;
        let replacements: Option<Vec<Value>> = f
            .edits
            .iter()
            .map(|e| {
                let l = resolve(files, Some(olmlint_base::diag::Location { file: e.file, span: e.span }))?;
                let text = olmlint_load::fix::edit_text(files, e)?;
                Some(json!({
                    "deletedRegion": {"startLine": l.line, "startColumn": l.column, "endLine": l.end_line, "endColumn": l.end_column.max(1)},
                    "insertedContent": {"text": text},
                }))
            })
            .collect();
        let (replacements, l) = (replacements?, loc?);
        let safety = if f.safe {
            ""
        } else {
            " (unsafe: changes what OLM does)"
        };
        Some(json!([{
            "description": {"text": format!("{}{safety}", f.description)},
            "artifactChanges": [{"artifactLocation": artifact(&l.file), "replacements": replacements}],
        }]))
    }
}

/// The finding's `location`: where it is (the repository root when it has no position), and
/// its package and bundle as a logical location.
fn location(d: &Diagnostic, loc: Option<&Resolved>) -> Value {
    let mut location = match loc {
        Some(l) => json!({
            "physicalLocation": {
                "artifactLocation": artifact(&l.file),
                "region": {"startLine": l.line, "startColumn": l.column, "endLine": l.end_line, "endColumn": l.end_column.max(1)},
            }
        }),
        None => {
            json!({"physicalLocation": {"artifactLocation": {"uri": ".", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}})
        }
    };
    if d.package.is_some() || d.bundle.is_some() {
        let fq = [d.package.as_deref(), d.bundle.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/");
        set(
            &mut location,
            "logicalLocations",
            json!([{"fullyQualifiedName": fq, "kind": "object"}]),
        );
    }
    location
}
