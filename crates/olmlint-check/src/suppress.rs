//! Inline suppressions: `# olmlint: ignore[OLM201,OLM304] reason` on the offending line or the
//! line above it. A reason is required; a suppression that suppresses nothing is OLM010.

use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::Span;
use olmlint_load::{Format, LoadedFile};

#[derive(Debug)]
pub struct Suppression {
    pub file: usize,
    /// The comment's own line.
    pub line: u32,
    /// Lines it covers: the annotated line and the more-indented lines that follow it.
    pub scope: (u32, u32),
    pub rules: Vec<String>,
    pub reason: String,
    pub span: Span,
}

const MARKER: &str = "olmlint:";

pub fn collect(files: &[LoadedFile]) -> Vec<Suppression> {
    use rayon::prelude::*;
    // A search through every byte of every file: in parallel, in file order.
    files
        .par_iter()
        .enumerate()
        .flat_map_iter(|(fi, f)| in_file(fi, f))
        .collect()
}

fn in_file(fi: usize, f: &LoadedFile) -> Vec<Suppression> {
    // A file that could not be read as text at all (binary, NUL bytes, invalid UTF-8) has no
    // comments: a marker in it is data, not a suppression (it would only be an unused one).
    let undecoded = f.docs.is_empty() && !f.problems.is_empty();
    if f.format != Format::Yaml || undecoded {
        return Vec::new();
    }
    let text = f.source.text.as_str();
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(text.as_bytes(), MARKER) {
        let line_start = text
            .get(..at)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |p| p + 1);
        let before = text.get(line_start..at).unwrap_or("");
        let Some(hash) = olmlint_base::text::comment_hash_before(before) else {
            continue;
        };
        let line_end = text
            .get(at..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |p| at + p);
        let body = text.get(at + MARKER.len()..line_end).unwrap_or("").trim();
        let Some(rest) = body.strip_prefix("ignore[") else {
            continue;
        };
        let Some(close) = rest.find(']') else {
            continue;
        };
        let rules = rest
            .get(..close)
            .unwrap_or("")
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect();
        let reason = rest.get(close + 1..).unwrap_or("").trim().to_string();
        let line = f.source.position(at).line;
        let own_line_is_comment = before.get(..hash).is_none_or(|s| s.trim().is_empty());
        let scope = scope_of(&f.source, if own_line_is_comment { line + 1 } else { line });
        out.push(Suppression {
            file: fi,
            line,
            scope,
            rules,
            reason,
            span: Span::new(line_start + hash, line_end),
        });
    }
    out
}

/// The annotated line (the first non-blank, non-comment line from `from`) and the lines after
/// it that belong to the YAML node it starts: deeper-indented lines, plus `- ` items at the
/// same indent when the line opens a block (`key:`).
fn scope_of(src: &olmlint_base::source::SourceFile, from: u32) -> (u32, u32) {
    let lead = |l: &str| l.len() - l.trim_start().len();
    let skip = |l: &str| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#')
    };
    let total = src.line_count() as u32;
    let mut first = from;
    while first < total && skip(src.line_text(first)) {
        first += 1;
    }
    let head = src.line_text(first);
    let base = lead(head);
    let opens_block = head.trim_end().ends_with(':');
    let mut last = first;
    for l in first + 1..=total {
        let text = src.line_text(l);
        if skip(text) {
            continue;
        }
        let inside = lead(text) > base
            || (opens_block && lead(text) == base && text.trim_start().starts_with("- "));
        if !inside {
            break;
        }
        last = l;
    }
    (first, last)
}

fn matches(rule: &str, d: &Diagnostic) -> bool {
    rule.eq_ignore_ascii_case(d.rule) || rule == d.rule_name()
}

/// Drop suppressed findings; report suppressions without a reason, and those without effect
/// when the run is `complete` (every family ran to its end: not a quick run, no deadline).
pub fn apply(
    diags: Vec<Diagnostic>,
    files: &[LoadedFile],
    sups: &[Suppression],
    complete: bool,
) -> Vec<Diagnostic> {
    if sups.is_empty() {
        return diags;
    }
    let mut used = vec![false; sups.len()];
    let mut kept = Vec::with_capacity(diags.len());
    for d in diags {
        let hit = d.location.and_then(|loc| {
            let line = files.get(loc.file)?.source.position(loc.span.start()).line;
            sups.iter().position(|s| {
                s.file == loc.file
                    && !s.reason.is_empty()
                    && (s.line == line || (s.scope.0..=s.scope.1).contains(&line))
                    && s.rules.iter().any(|r| matches(r, &d))
            })
        });
        match hit {
            Some(i) => {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
            }
            None => kept.push(d),
        }
    }
    for (s, used) in sups.iter().zip(used) {
        let d = if s.reason.is_empty() {
            Diagnostic::new("OLM010", "suppression has no reason, so it is not applied")
                .help("Write why the finding is acceptable after the bracket: `# olmlint: ignore[OLM304] pinned on purpose, see #123`.")
        } else if s.rules.is_empty()
            || s.rules
                .iter()
                .any(|r| olmlint_base::rules::get(r).is_none())
        {
            let bad: Vec<&str> = s
                .rules
                .iter()
                .filter(|r| olmlint_base::rules::get(r).is_none())
                .map(String::as_str)
                .collect();
            Diagnostic::new(
                "OLM010",
                format!("suppression names no known rule ({})", bad.join(", ")),
            )
            .help("List rule IDs like `ignore[OLM201]`; `olmlint rules` shows them all.")
        } else if !used && complete {
            let mut d = Diagnostic::new("OLM010", format!("suppression of {} matches no finding", s.rules.join(", ")))
                .help("Nothing on this line or the next is reported for these rules any more; remove the comment.");
            d.deferred = true;
            d
        } else {
            continue;
        };
        kept.push(d.at(s.file, s.span));
    }
    kept
}
