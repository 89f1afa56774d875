//! Hover: on a finding, its rule's documentation (`olmlint explain`'s text); on a bundle
//! named by a channel entry, the bundle's version, channels and installability; on a version
//! range, the package's versions it matches and the nearest it does not; on a dependency's
//! package name, the package's versions.

use crate::facts::{Facts, FileFacts, Target};
use lsp_types as lsp;
use olmlint_semantics::version::cmp;
use semver::Version;
use std::fmt::Write;

/// Versions listed in full, at most; longer lists show their ends.
const LISTED: usize = 8;

/// The hover at `pos` of a file: Markdown and the range it is about; `None` when there is
/// nothing there.
pub fn hover(facts: &Facts, file: &FileFacts, pos: lsp::Position) -> Option<(String, lsp::Range)> {
    let mut sections: Vec<String> = Vec::new();
    let mut range = None;
    if let Some(r) = file.ref_at(pos) {
        range = Some(r.range);
        sections.push(match &r.target {
            Target::Bundle { package, name } => bundle(facts, package, name),
            Target::Range { package, text } => version_range(facts, package, text),
            Target::Package(name) => package(facts, name),
        });
    }
    let mut rules: Vec<&str> = Vec::new();
    for f in file.findings_at(pos) {
        range.get_or_insert(f.diagnostic.range);
        if !rules.contains(&f.rule) {
            rules.push(f.rule);
        }
    }
    sections.extend(
        rules
            .iter()
            .filter_map(|r| olmlint_base::rules::get(r))
            .map(olmlint_base::rules::Rule::explain_text),
    );
    Some((sections.join("\n\n---\n\n"), range?))
}

/// A bundle named in a channel entry.
fn bundle(facts: &Facts, package: &str, name: &str) -> String {
    let Some(b) = facts.bundle(package, name) else {
        return format!(
            "**Bundle `{name}`**: package `{package}` has no bundle of this name in this catalog."
        );
    };
    let mut out = format!("**Bundle `{name}`** (package `{package}`)\n\n");
    let version = b.version.as_deref().map_or_else(
        || "none (no `olm.package` property)".to_string(),
        |v| format!("`{v}`"),
    );
    let _ = writeln!(out, "- Version: {version}");
    let channels = if b.channels.is_empty() {
        "none (no channel entry names it)".to_string()
    } else {
        b.channels
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "- Channels: {channels}");
    if facts.quick {
        out.push_str("- Installable: not checked by this edit's quick run (the resolution's checks run on save and when edits pause)\n");
    } else if b.verdicts.is_empty() {
        out.push_str("- Installable: yes (no OLM501–OLM506 finding about it in this run)\n");
    } else {
        out.push_str("- Installable: no\n");
        for (rule, message) in &b.verdicts {
            let first = message.lines().next().unwrap_or("");
            let _ = writeln!(out, "  - {rule}: {first}");
        }
    }
    out
}

/// A package named by a dependency.
fn package(facts: &Facts, name: &str) -> String {
    if !facts.packages.contains_key(name) {
        return format!(
            "**Package `{name}`**: not in this catalog (no `olm.package` document names it)."
        );
    }
    let versions = facts.versions.get(name).map_or(&[][..], Vec::as_slice);
    format!(
        "**Package `{name}`**: {} in this catalog",
        count_and_list(versions)
    )
}

/// "3 versions: `1.0.0`, `1.1.0`, `2.0.0`" (long lists by their ends).
fn count_and_list(versions: &[Version]) -> String {
    let n = versions.len();
    let noun = if n == 1 { "version" } else { "versions" };
    if n == 0 {
        return "no bundle with a version".to_string();
    }
    format!("{n} {noun}: {}", list(versions))
}

fn list(versions: &[Version]) -> String {
    let quoted = |vs: &[Version]| {
        vs.iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if versions.len() <= LISTED {
        return quoted(versions);
    }
    let (head, tail) = (
        versions.get(..LISTED / 2).unwrap_or_default(),
        versions
            .get(versions.len() - LISTED / 2..)
            .unwrap_or_default(),
    );
    format!("{}, …, {}", quoted(head), quoted(tail))
}

/// What a range matches among the package's versions in the catalog, and the nearest
/// versions it does not match (next to those it does; without any, around its lower bound).
fn version_range(facts: &Facts, package: &str, text: &str) -> String {
    let mut out = format!("**Range `{text}`** over package `{package}`\n\n");
    let range = match olmlint_semantics::range::parse(text) {
        Ok(r) => r,
        Err(e) => {
            let _ = write!(out, "OLM cannot parse this range: {}", e.message);
            return out;
        }
    };
    let versions = facts.versions.get(package).map_or(&[][..], Vec::as_slice);
    if versions.is_empty() {
        let _ = write!(
            out,
            "The catalog has no bundle of `{package}` with a version: the range matches nothing here."
        );
        return out;
    }
    let inside: Vec<bool> = versions.iter().map(|v| range.contains(v)).collect();
    let matched: Vec<Version> = versions
        .iter()
        .zip(&inside)
        .filter(|(_, i)| **i)
        .map(|(v, _)| v.clone())
        .collect();
    let _ = writeln!(
        out,
        "- In: {}",
        if matched.is_empty() {
            format!("none of the {} versions", versions.len())
        } else {
            format!(
                "{} of {}: {}",
                matched.len(),
                versions.len(),
                list(&matched)
            )
        }
    );
    let nearest = nearest_out(versions, &inside, &range);
    if nearest.is_empty() {
        out.push_str("- Out: none (it matches every version)\n");
    } else {
        let _ = writeln!(out, "- Nearest out: {}", nearest.join(", "));
    }
    out
}

/// The versions not matched next to matched ones (below and above each run of matches);
/// with no match, those on either side of the range's lower bound.
fn nearest_out(
    versions: &[Version],
    inside: &[bool],
    range: &olmlint_semantics::range::Range,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: Option<&Version>, side: &str| {
        if let Some(v) = v {
            let s = format!("`{v}` ({side})");
            if !out.contains(&s) {
                out.push(s);
            }
        }
    };
    if inside.iter().any(|i| *i) {
        for i in 0..versions.len() {
            let here = inside.get(i).copied().unwrap_or(false);
            let before = i.checked_sub(1).and_then(|j| inside.get(j)).copied();
            let after = inside.get(i + 1).copied();
            let side = match (here, before == Some(true), after == Some(true)) {
                (true, _, _) | (false, false, false) => continue,
                (false, true, true) => "between matches",
                (false, true, false) => "above",
                (false, false, true) => "below",
            };
            push(versions.get(i), side);
        }
    } else {
        let lower = range
            .intervals()
            .intervals()
            .first()
            .map(|i| i.lower().clone());
        let at = lower.map_or(versions.len(), |l| {
            versions.partition_point(|v| cmp(v, &l).is_lt())
        });
        push(at.checked_sub(1).and_then(|i| versions.get(i)), "below");
        push(versions.get(at), "above");
    }
    out.truncate(LISTED);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(vs: &[&str]) -> Vec<Version> {
        vs.iter().map(|v| Version::parse(v).unwrap()).collect()
    }

    #[test]
    fn nearest_versions_out_of_a_range() {
        let vs = versions(&["0.9.0", "1.0.0", "1.5.0", "2.0.0", "3.0.0"]);
        let near = |text: &str| {
            let r = olmlint_semantics::range::parse(text).unwrap();
            let inside: Vec<bool> = vs.iter().map(|v| r.contains(v)).collect();
            nearest_out(&vs, &inside, &r)
        };
        assert_eq!(
            near(">=1.0.0 <2.0.0"),
            ["`0.9.0` (below)", "`2.0.0` (above)"]
        );
        assert_eq!(near("!=1.5.0"), ["`1.5.0` (between matches)"]);
        assert_eq!(
            near(">=1.6.0 <1.9.0"),
            ["`1.5.0` (below)", "`2.0.0` (above)"]
        );
        assert_eq!(near(">=0.0.0"), Vec::<String>::new());
        assert_eq!(near(">=4.0.0"), ["`3.0.0` (below)"]);
    }

    #[test]
    fn long_lists_show_their_ends() {
        let vs: Vec<Version> = (0..20).map(|i| Version::new(1, i, 0)).collect();
        assert_eq!(
            list(&vs),
            "`1.0.0`, `1.1.0`, `1.2.0`, `1.3.0`, …, `1.16.0`, `1.17.0`, `1.18.0`, `1.19.0`"
        );
    }
}
