//! Code actions on the findings under the cursor: the fix `olmlint lint --fix` would apply
//! (`quickfix`; one that changes what OLM does only under [`UNSAFE`], as `--unsafe-fixes`
//! keeps it apart), "suppress here" (the inline suppression comment, YAML files only), and
//! "explain rule" (the [`EXPLAIN`] command). Edits are offered only for the document version
//! the findings were computed on, and carry that version, so a client applies none to a newer
//! text.

use crate::convert::{self, Encoding};
use crate::facts::{FileFacts, Finding};
use lsp_types as lsp;
use serde_json::{json, Value};

/// The kind of a fix that changes what OLM does with the catalog (`--unsafe-fixes`).
pub const UNSAFE: &str = "quickfix.olmlint.unsafe";
/// The command that shows a rule's page in the book; its argument is the rule's ID.
pub const EXPLAIN: &str = "olmlint.explain";

/// The marker olmlint's suppression comments start with (olmlint-check's `suppress`).
const MARKER: &str = "olmlint:";

/// A `textDocument/codeAction` request on a document at the version its findings are for.
pub struct Asked<'a> {
    pub uri: &'a str,
    pub version: i32,
    pub text: &'a str,
    pub range: lsp::Range,
    /// The kinds the client asks for (`context.only`).
    pub only: Option<Vec<String>>,
    pub encoding: Encoding,
}

/// Whether `a` and `b` share a position (touching counts: an empty range at a finding's
/// end is on it).
fn meet(a: &lsp::Range, b: &lsp::Range) -> bool {
    let key = |p: &lsp::Position| (p.line, p.character);
    key(&a.start) <= key(&b.end) && key(&b.start) <= key(&a.end)
}

/// The code actions for the findings that meet the requested range.
pub fn code_actions(file: &FileFacts, asked: &Asked<'_>) -> Vec<Value> {
    let wanted = |kind: Option<&str>| match (&asked.only, kind) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(only), Some(k)) => only.iter().any(|o| {
            k == o
                || k.strip_prefix(o.as_str())
                    .is_some_and(|r| r.starts_with('.'))
        }),
    };
    let here: Vec<&Finding> = file
        .findings
        .iter()
        .filter(|f| meet(&f.diagnostic.range, &asked.range))
        .collect();
    let mut actions = Vec::new();
    let mut suppressed: Vec<(u32, &str)> = Vec::new();
    let mut explained: Vec<&str> = Vec::new();
    for f in &here {
        if let Some(fix) = &f.fix {
            let kind = if fix.safe { "quickfix" } else { UNSAFE };
            if wanted(Some(kind)) {
                let title = if fix.safe {
                    format!("{} ({})", capitalized(&fix.description), f.rule)
                } else {
                    format!(
                        "{} ({}; unsafe: changes what OLM does with the catalog)",
                        capitalized(&fix.description),
                        f.rule
                    )
                };
                actions.push(json!({
                    "title": title,
                    "kind": kind,
                    "diagnostics": [f.diagnostic],
                    "isPreferred": fix.safe,
                    "edit": edit(asked, &fix.edits),
                }));
            }
        }
        let line = f.diagnostic.range.start.line;
        if file.yaml && wanted(Some("quickfix")) && !suppressed.contains(&(line, f.rule)) {
            suppressed.push((line, f.rule));
            if let Some(e) = suppression(asked.text, line, f.rule, asked.encoding) {
                actions.push(json!({
                    "title": format!("Suppress {} here (then write the reason after the comment)", f.rule),
                    "kind": "quickfix",
                    "diagnostics": [f.diagnostic],
                    "edit": edit(asked, &[e]),
                }));
            }
        }
    }
    for f in &here {
        if wanted(None) && !explained.contains(&f.rule) {
            explained.push(f.rule);
            actions.push(json!({
                "title": format!("Explain {} (open the rule's page)", f.rule),
                "command": {"title": format!("Explain {}", f.rule), "command": EXPLAIN, "arguments": [f.rule]},
            }));
        }
    }
    actions
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Edits of the document at the version they were computed for.
fn edit(asked: &Asked<'_>, edits: &[lsp::TextEdit]) -> Value {
    json!({"documentChanges": [{
        "textDocument": {"uri": asked.uri, "version": asked.version},
        "edits": edits,
    }]})
}

/// Byte offsets of line `line` (0-based) of `text`: its start, and its end before the line
/// break.
fn line_bounds(text: &str, line: u32) -> Option<(usize, usize)> {
    let start = convert::offset(text, lsp::Position::new(line, 0), Encoding::Utf8);
    if start >= text.len() && line > 0 {
        return None;
    }
    let rest = text.get(start..)?;
    let end = start + rest.find('\n').unwrap_or(rest.len());
    let end = if text.get(..end)?.ends_with('\r') {
        end - 1
    } else {
        end
    };
    Some((start, end))
}

/// An `olmlint: ignore[…]` comment in `line`, found as olmlint's suppression parser finds it
/// (olmlint-check `suppress::in_file`): the byte of its `]` in the line, whether it is alone
/// on its line, and the rules it lists.
fn comment_in(line: &str) -> Option<(usize, bool, Vec<String>)> {
    for (at, _) in line.match_indices(MARKER) {
        let before = line.get(..at)?;
        let Some(hash) = olmlint_base::text::comment_hash_before(before) else {
            continue;
        };
        let after = line.get(at + MARKER.len()..)?;
        let lead = after.len() - after.trim_start().len();
        let Some(rest) = after.trim_start().strip_prefix("ignore[") else {
            continue;
        };
        let Some(close) = rest.find(']') else {
            continue;
        };
        let rules = rest
            .get(..close)?
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect();
        let own_line = before.get(..hash).is_some_and(|s| s.trim().is_empty());
        return Some((
            at + MARKER.len() + lead + "ignore[".len() + close,
            own_line,
            rules,
        ));
    }
    None
}

/// The edit that suppresses `rule` on line `line` (0-based) of a YAML text: the rule added
/// to the suppression comment that already covers the line (on it, or alone on the line
/// above), else `# olmlint: ignore[RULE]` inserted above the line at its indentation. No
/// reason is made up: until one is written after the comment, OLM010 says it is missing and
/// the suppression does not apply. `None` when the line is blank or a comment, when the rule
/// is listed already, or when the comment would change what the file says (inside a block
/// scalar, say).
pub fn suppression(text: &str, line: u32, rule: &str, enc: Encoding) -> Option<lsp::TextEdit> {
    let (start, end) = line_bounds(text, line)?;
    let content = text.get(start..end)?;
    if content.trim().is_empty() || content.trim_start().starts_with('#') {
        return None;
    }
    let above = line
        .checked_sub(1)
        .and_then(|l| line_bounds(text, l))
        .and_then(|(s, e)| Some((s, comment_in(text.get(s..e)?)?)))
        .filter(|(_, (_, own_line, _))| *own_line);
    let existing = comment_in(content).map(|c| (start, c)).or(above);
    let (at, new) = match existing {
        Some((line_start, (close, _, rules))) => {
            if rules.iter().any(|r| r.eq_ignore_ascii_case(rule)) {
                return None;
            }
            let sep = if rules.is_empty() { "" } else { ", " };
            (line_start + close, format!("{sep}{rule}"))
        }
        None => {
            let indent = content.get(..content.len() - content.trim_start().len())?;
            let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
            (start, format!("{indent}# {MARKER} ignore[{rule}]{eol}"))
        }
    };
    let mut after = String::with_capacity(text.len() + new.len());
    after.push_str(text.get(..at)?);
    after.push_str(&new);
    after.push_str(text.get(at..)?);
    if !reads_the_same(text, &after) {
        return None;
    }
    let pos = convert::position_in(text, at, enc);
    Some(lsp::TextEdit::new(lsp::Range::new(pos, pos), new))
}

/// Whether `after` has the same documents and values as `before` (only comments differ) and
/// no more syntax problems.
fn reads_the_same(before: &str, after: &str) -> bool {
    let limits = olmlint_load::Limits::default();
    let (b, a) = (
        olmlint_load::parse_text_everything(before, &limits),
        olmlint_load::parse_text_everything(after, &limits),
    );
    a.problems.len() <= b.problems.len()
        && a.docs.len() == b.docs.len()
        && b.docs
            .iter()
            .zip(&a.docs)
            .all(|(b, a)| match (&b.root, &a.root) {
                (Some(b), Some(a)) => b.same_as_written(a),
                (None, None) => true,
                _ => false,
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text with the suppression edit of `rule` on line `line` applied.
    fn suppressed(text: &str, line: u32, rule: &str) -> Option<String> {
        let e = suppression(text, line, rule, Encoding::Utf16)?;
        assert_eq!(e.range.start, e.range.end, "an insertion");
        let at = convert::offset(text, e.range.start, Encoding::Utf16);
        Some(format!("{}{}{}", &text[..at], e.new_text, &text[at..]))
    }

    #[test]
    fn a_comment_is_inserted_above_at_the_line_s_indentation() {
        let text = "entries:\n  - name: é.v1\n    replaces: x\n";
        assert_eq!(
            suppressed(text, 2, "OLM104").unwrap(),
            "entries:\n  - name: é.v1\n    # olmlint: ignore[OLM104]\n    replaces: x\n"
        );
        let crlf = "a: 1\r\nb: 2\r\n";
        assert_eq!(
            suppressed(crlf, 1, "OLM201").unwrap(),
            "a: 1\r\n# olmlint: ignore[OLM201]\r\nb: 2\r\n"
        );
    }

    #[test]
    fn an_existing_suppression_gets_the_rule() {
        let above = "  # olmlint: ignore[OLM201] on purpose\n  b: 2\n";
        assert_eq!(
            suppressed(above, 1, "OLM104").unwrap(),
            "  # olmlint: ignore[OLM201, OLM104] on purpose\n  b: 2\n"
        );
        let trailing = "b: 2  # olmlint: ignore[] why\n";
        assert_eq!(
            suppressed(trailing, 0, "OLM104").unwrap(),
            "b: 2  # olmlint: ignore[OLM104] why\n"
        );
        // Listed already (without a reason, or it would not be reported): nothing to add.
        assert_eq!(suppressed(above, 1, "olm201"), None);
        // A comment above that trails a line covers that line, not this one.
        let trailing_above = "a: 1 # olmlint: ignore[OLM201] x\nb: 2\n";
        assert_eq!(
            suppressed(trailing_above, 1, "OLM104").unwrap(),
            "a: 1 # olmlint: ignore[OLM201] x\n# olmlint: ignore[OLM104]\nb: 2\n"
        );
    }

    #[test]
    fn no_comment_where_it_would_change_the_file_or_cover_nothing() {
        let block = "description: |\n  line one\n  line two\nb: 2\n";
        assert_eq!(
            suppressed(block, 2, "OLM201"),
            None,
            "inside a block scalar"
        );
        let blank = "a: 1\n\n# note\nb: 2\n";
        assert_eq!(suppressed(blank, 1, "OLM201"), None);
        assert_eq!(suppressed(blank, 2, "OLM201"), None);
        assert_eq!(suppressed(blank, 9, "OLM201"), None);
    }
}
