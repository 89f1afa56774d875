//! `--fix` and `--diff`: apply the edits attached to diagnostics, without disturbing anything
//! they do not touch (comments, formatting, key order), and write files atomically.

use crate::diag::{Diagnostic, Edit, Replacement};
use crate::load::LoadedFile;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One fix that was (or would be) applied.
#[derive(Clone, Debug)]
pub struct Applied {
    pub rule: &'static str,
    pub description: String,
    /// 1-based line and column of the fix's first edit, before editing.
    pub line: u32,
    pub column: u32,
}

/// The new contents of one file.
#[derive(Clone, Debug)]
pub struct FileChange {
    pub path: PathBuf,
    pub display: String,
    pub before: String,
    pub after: String,
    pub applied: Vec<Applied>,
}

/// Which fixes to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only fixes that never change what OLM does with the catalog.
    Safe,
    /// Also fixes that change meaning (`--unsafe-fixes`).
    Unsafe,
}

/// Plans the edits of every applicable fix, file by file. A fix is taken whole or not at all:
/// one whose edits overlap an edit already taken waits for the next pass. Identical fixes
/// reported by several findings are applied once and counted for each finding.
pub fn plan(diags: &[Diagnostic], files: &[LoadedFile], mode: Mode) -> Vec<FileChange> {
    let mut by_file: BTreeMap<usize, Vec<(&Diagnostic, &[Edit])>> = BTreeMap::new();
    for d in diags {
        let Some(fix) = &d.fix else { continue };
        if !fix.safe && mode == Mode::Safe {
            continue;
        }
        let Some(file) = fix.edits.first().map(|e| e.file) else {
            continue;
        };
        // Fixes spanning several files are not produced by any rule; skip them defensively.
        if fix.edits.iter().any(|e| e.file != file) || file >= files.len() {
            continue;
        }
        by_file.entry(file).or_default().push((d, &fix.edits));
    }
    let mut changes = Vec::new();
    for (file, mut fixes) in by_file {
        let Some(source) = files.get(file).map(|f| &f.source) else {
            continue;
        };
        let text: &String = &source.text;
        fixes.sort_by_key(|(_, edits)| edits.iter().map(|e| e.span.start).min());
        let mut taken: Vec<&Edit> = Vec::new();
        let mut taken_sets: Vec<&[Edit]> = Vec::new();
        let mut applied = Vec::new();
        for (d, edits) in fixes {
            let valid = edits.iter().all(|e| {
                let (s, t) = (e.span.start as usize, e.span.end as usize);
                s <= t && t <= text.len() && text.is_char_boundary(s) && text.is_char_boundary(t)
            });
            if !valid {
                continue;
            }
            let duplicate = taken_sets.contains(&edits);
            let overlaps = edits.iter().any(|e| taken.iter().any(|t| overlap(t, e)));
            if overlaps && !duplicate {
                continue;
            }
            if !duplicate {
                taken.extend(edits.iter());
                taken_sets.push(edits);
            }
            let first = edits.iter().map(|e| e.span.start).min().unwrap_or(0);
            let pos = source.position(first as usize);
            applied.push(Applied {
                rule: d.rule,
                description: d
                    .fix
                    .as_ref()
                    .map_or(String::new(), |f| f.description.clone()),
                line: pos.line,
                column: pos.column,
            });
        }
        if taken.is_empty() {
            continue;
        }
        taken.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        let mut after = text.clone();
        for e in taken {
            let (s, t) = (e.span.start as usize, e.span.end as usize);
            if let Some(old) = text.get(s..t) {
                after.replace_range(s..t, &replacement_text(old, &e.replacement));
            }
        }
        if after == *text {
            continue;
        }
        changes.push(FileChange {
            path: source.path.clone(),
            display: source.display.clone(),
            before: text.clone(),
            after,
            applied,
        });
    }
    changes
}

fn overlap(a: &Edit, b: &Edit) -> bool {
    // Two insertions at one point conflict too: their order would be arbitrary.
    a.span.start < b.span.end && b.span.start < a.span.end
        || (a.span.start == b.span.start
            && (a.span.start == a.span.end || b.span.start == b.span.end))
}

/// The text an edit writes, given the text it replaces.
fn replacement_text(old: &str, r: &Replacement) -> String {
    match r {
        Replacement::Raw(s) => s.clone(),
        Replacement::Renamed(name) => match old.chars().next() {
            Some('"') => json_string(name),
            Some('\'') => format!("'{}'", name.replace('\'', "''")),
            _ => name.clone(),
        },
        Replacement::Quoted => json_string(old.trim()),
    }
}

/// The text `edit` writes, resolved against the loaded file (`None` if the span is stale).
pub fn edit_text(files: &[LoadedFile], edit: &Edit) -> Option<String> {
    let text = &files.get(edit.file)?.source.text;
    let old = text.get(edit.span.start()..edit.span.end())?;
    Some(replacement_text(old, &edit.replacement))
}

/// A JSON string literal, which is also a valid YAML double-quoted scalar.
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

/// Writes every change atomically (temporary file in the same directory, then rename). A file
/// that changed on disk since it was read is left alone and reported.
pub fn write(changes: &[FileChange]) -> Vec<String> {
    let mut problems = Vec::new();
    for c in changes {
        match std::fs::read(&c.path) {
            Ok(bytes) if bytes == c.before.as_bytes() => {
                if let Err(e) = crate::io::write_atomic(&c.path, c.after.as_bytes()) {
                    problems.push(format!("{}: cannot write: {e}", c.display));
                }
            }
            Ok(_) => problems.push(format!(
                "{}: changed on disk while olmlint ran; not fixed",
                c.display
            )),
            Err(e) => problems.push(format!("{}: cannot read: {e}", c.display)),
        }
    }
    problems
}

/// A unified diff of one change (`--diff`), with paths as `a/…` and `b/…` like git's.
pub fn unified_diff(c: &FileChange) -> String {
    similar::TextDiff::from_lines(&c.before, &c.after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{}", c.display), &format!("b/{}", c.display))
        .to_string()
}

/// A small value to write in place of a node: strings and mappings are all fixes need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Str(String),
    Map(Vec<(String, Value)>),
}

/// Renders `value` to replace `node_span` of `text`, in the node's own style: JSON for JSON
/// files, a flow mapping where the original was one, otherwise a block mapping indented at
/// the column the node starts on (the first line continues the line the node starts on).
pub fn render_in_place(text: &str, start: usize, json: bool, value: &Value) -> String {
    if json {
        return render_flow(value, true);
    }
    if text.get(start..).is_some_and(|t| t.starts_with('{')) {
        return render_flow(value, false);
    }
    let line_start = text
        .get(..start)
        .map_or(0, |t| t.rfind('\n').map_or(0, |i| i + 1));
    let indent = text.get(line_start..start).map_or(0, |t| t.chars().count());
    let mut out = String::new();
    render_block(value, indent, &mut out);
    out.trim_start().trim_end_matches('\n').to_string()
}

fn render_flow(value: &Value, json: bool) -> String {
    match value {
        Value::Str(s) if json => json_string(s),
        Value::Str(s) => yaml_string(s),
        Value::Map(entries) => {
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    let key = if json { json_string(k) } else { k.clone() };
                    format!("{key}: {}", render_flow(v, json))
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

fn render_block(value: &Value, indent: usize, out: &mut String) {
    if let Value::Map(entries) = value {
        for (k, v) in entries {
            out.push_str(&" ".repeat(indent));
            out.push_str(k);
            out.push(':');
            match v {
                Value::Str(s) => {
                    out.push(' ');
                    out.push_str(&yaml_string(s));
                    out.push('\n');
                }
                Value::Map(_) => {
                    out.push('\n');
                    render_block(v, indent + 2, out);
                }
            }
        }
    }
}

/// A YAML scalar that reads back as exactly the string `s` (YAML 1.1 included): single-quoted
/// when that needs no escapes, double-quoted otherwise.
pub fn yaml_string(s: &str) -> String {
    if s.chars()
        .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
        || s.is_empty()
    {
        json_string(s)
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cel(rule: &str) -> Value {
        Value::Map(vec![
            (
                "cel".into(),
                Value::Map(vec![("rule".into(), Value::Str(rule.into()))]),
            ),
            ("failureMessage".into(), Value::Str("needs it".into())),
        ])
    }

    #[test]
    fn renders_block_at_the_node_column() {
        let text = "  - type: olm.constraint\n    value:\n      rule: x\n";
        let start = text.find("rule").unwrap();
        let r = render_in_place(text, start, false, &cel("a == \"b\""));
        assert_eq!(
            r,
            "cel:\n        rule: 'a == \"b\"'\n      failureMessage: 'needs it'"
        );
    }

    #[test]
    fn renders_flow_and_json() {
        let text = "value: {rule: x}";
        let start = text.find('{').unwrap();
        assert_eq!(
            render_in_place(text, start, false, &cel("it's")),
            "{cel: {rule: 'it''s'}, failureMessage: 'needs it'}"
        );
        assert_eq!(
            render_in_place(text, start, true, &cel("x")),
            "{\"cel\": {\"rule\": \"x\"}, \"failureMessage\": \"needs it\"}"
        );
    }

    #[test]
    fn renames_keep_quoting_and_quotes_escape() {
        let r = |old, new: &str| replacement_text(old, &Replacement::Renamed(new.into()));
        assert_eq!(r("\"PackageName\"", "packageName"), "\"packageName\"");
        assert_eq!(r("'PackageName'", "packageName"), "'packageName'");
        assert_eq!(r("PackageName", "packageName"), "packageName");
        assert_eq!(replacement_text("4.20", &Replacement::Quoted), "\"4.20\"");
        assert_eq!(yaml_string("a\nb"), "\"a\\nb\"");
    }
}
