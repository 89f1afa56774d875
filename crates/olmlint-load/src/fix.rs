//! `--fix` and `--diff`: apply the edits attached to diagnostics, without disturbing anything
//! they do not touch (comments, formatting, key order), and write files atomically.

use crate::LoadedFile;
use olmlint_base::diag::{Diagnostic, Edit, Replacement};
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

/// The fixes of one file: each distinct edit set with the findings (indexes into `diags`)
/// that carry it, sorted by where the set starts.
type FileFixes<'d> = Vec<(&'d [Edit], Vec<usize>)>;

/// Every applicable fix of `mode`, grouped by file, identical fixes merged (hashing: 40 000
/// fixes are not compared pairwise). Fixes whose spans are stale or that span several files
/// (no rule produces one) are left out.
fn fixes_by_file<'d>(
    diags: &'d [Diagnostic],
    files: &[LoadedFile],
    mode: Mode,
) -> BTreeMap<usize, FileFixes<'d>> {
    let mut by_file: BTreeMap<usize, FileFixes<'d>> = BTreeMap::new();
    let mut index: std::collections::HashMap<&'d [Edit], usize> = Default::default();
    for (di, d) in diags.iter().enumerate() {
        let Some(fix) = &d.fix else { continue };
        if !fix.safe && mode == Mode::Safe {
            continue;
        }
        let Some(file) = fix.edits.first().map(|e| e.file) else {
            continue;
        };
        let Some(text) = files.get(file).map(|f| f.source.text.as_str()) else {
            continue;
        };
        let valid = fix.edits.iter().all(|e| {
            let (s, t) = (e.span.start as usize, e.span.end as usize);
            e.file == file
                && s <= t
                && t <= text.len()
                && text.is_char_boundary(s)
                && text.is_char_boundary(t)
        });
        if !valid {
            continue;
        }
        let sets = by_file.entry(file).or_default();
        match index.get(fix.edits.as_slice()) {
            Some(&i) => {
                if let Some(set) = sets.get_mut(i) {
                    set.1.push(di);
                }
            }
            None => {
                index.insert(&fix.edits, sets.len());
                sets.push((&fix.edits, vec![di]));
            }
        }
    }
    for sets in by_file.values_mut() {
        sets.sort_by_key(|(edits, _)| edits.iter().map(|e| e.span.start).min());
    }
    by_file
}

/// Edits already taken in one file, by start: whether a new edit overlaps one of them is a
/// lookup of its neighbours, not a scan of all.
#[derive(Default)]
struct Taken(BTreeMap<u32, Vec<Edit>>);

impl Taken {
    fn overlaps(&self, e: &Edit) -> bool {
        // Taken edits never overlap one another, so of those starting at or before `e`,
        // only the last can reach into it; of those starting inside it, the first tells.
        let before = self.0.range(..=e.span.start).next_back();
        let after = self
            .0
            .range(e.span.start..e.span.end.max(e.span.start + 1))
            .next();
        before
            .into_iter()
            .chain(after)
            .flat_map(|(_, v)| v)
            .any(|t| overlap(t, e))
    }

    fn take(&mut self, edits: &[Edit]) {
        for e in edits {
            self.0.entry(e.span.start).or_default().push(e.clone());
        }
    }
}

/// Plans the edits of every applicable fix, file by file. A fix is taken whole or not at all:
/// one whose edits overlap an edit already taken waits for the next pass. Identical fixes
/// reported by several findings are applied once and counted for each finding.
pub fn plan(diags: &[Diagnostic], files: &[LoadedFile], mode: Mode) -> Vec<FileChange> {
    let mut changes = Vec::new();
    for (file, fixes) in fixes_by_file(diags, files, mode) {
        let Some(source) = files.get(file).map(|f| &f.source) else {
            continue;
        };
        let text: &String = &source.text;
        let mut taken = Taken::default();
        // Each taken fix with the findings it answers.
        let mut sets: Vec<(&[Edit], Vec<&Diagnostic>)> = Vec::new();
        for (edits, ds) in fixes {
            if edits.iter().any(|e| taken.overlaps(e)) {
                continue;
            }
            taken.take(edits);
            sets.push((edits, ds.iter().filter_map(|&i| diags.get(i)).collect()));
        }
        // All together if the result is exactly what was meant; else the largest set that is,
        // found by halving (each check is a parse, at most VERIFY_BUDGET of them per file;
        // what is left waits for the next pass).
        let original = Original::parse(text);
        let edit_sets: Vec<&[Edit]> = sets.iter().map(|(e, _)| *e).collect();
        let (kept, edits) = original.largest_verified(&edit_sets);
        let after = apply(text, &edits);
        if after == *text {
            continue;
        }
        let mut applied = Vec::new();
        for &i in &kept {
            let Some((edits, diags)) = sets.get(i) else {
                continue;
            };
            let first = edits.iter().map(|e| e.span.start).min().unwrap_or(0);
            let pos = source.position(first as usize);
            for d in diags {
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

/// Where the text of `node` ends: a block collection's span runs to the next token and a
/// block scalar's through its last line break, so an edit replacing the node up to here
/// keeps the line break, indentation and comments after it.
pub fn content_end(text: &str, node: &olmlint_base::tree::Node) -> usize {
    use olmlint_base::tree::Value;
    let mut cur = node;
    loop {
        let flow = text
            .get(cur.span.start()..)
            .is_some_and(|t| t.starts_with(['{', '[']));
        let last = match &cur.value {
            Value::Map(m) if !flow => m.last().map(|e| &e.value),
            Value::Seq(s) if !flow => s.last(),
            _ => None,
        };
        match last {
            Some(child) => cur = child,
            None => {
                let (s, e) = (cur.span.start(), cur.span.end());
                return s + text.get(s..e).map_or(e - s, |t| t.trim_end().len());
            }
        }
    }
}

/// Where the text of `node` starts: a block scalar's span may start at its content, its
/// `|`/`>` header being on the line above; replacing the scalar replaces the header too.
pub fn content_start(text: &str, node: &olmlint_base::tree::Node) -> usize {
    use olmlint_base::tree::Style;
    let start = node.span.start();
    if !matches!(node.style, Style::Literal | Style::Folded) {
        return start;
    }
    crate::scalar::block_indicator(text, start).unwrap_or(start)
}

/// Parses of one file's edited text that checking its fixes may take.
const VERIFY_BUDGET: usize = 64;

/// Which findings carry a fix that `--fix` (with `--unsafe-fixes`) would refuse: re-parsing
/// the file with it does not show exactly the intended change, or it could not be checked
/// within the budget. Reports must not advertise those (JSON/SARIF `fix`, "fixable" counts).
/// Fixes that overlap are checked in separate layers, as `--fix` would apply them in
/// separate passes. Indexes into `diags`.
pub fn refused(diags: &[Diagnostic], files: &[LoadedFile]) -> std::collections::HashSet<usize> {
    let mut refused = std::collections::HashSet::new();
    for (file, fixes) in fixes_by_file(diags, files, Mode::Unsafe) {
        let Some(text) = files.get(file).map(|f| f.source.text.as_str()) else {
            continue;
        };
        // Layers of fixes that do not overlap one another (a fix goes to the first layer it
        // fits in); more than a few layers means fixes stacked on one spot: not checked.
        const LAYERS: usize = 4;
        let mut layers: Vec<(Taken, Vec<usize>)> = Vec::new();
        for (i, (edits, ds)) in fixes.iter().enumerate() {
            let fits = layers
                .iter()
                .position(|(t, _)| !edits.iter().any(|e| t.overlaps(e)));
            let count = layers.len();
            match fits.and_then(|l| layers.get_mut(l)) {
                Some((t, members)) => {
                    t.take(edits);
                    members.push(i);
                }
                None if count < LAYERS => {
                    let mut t = Taken::default();
                    t.take(edits);
                    layers.push((t, vec![i]));
                }
                None => refused.extend(ds.iter().copied()),
            }
        }
        let original = Original::parse(text);
        for (_, members) in &layers {
            let sets: Vec<&[Edit]> = members
                .iter()
                .filter_map(|&i| fixes.get(i).map(|(e, _)| *e))
                .collect();
            let (kept, _) = original.largest_verified(&sets);
            let kept: std::collections::HashSet<usize> = kept.into_iter().collect();
            for (j, &i) in members.iter().enumerate() {
                if !kept.contains(&j) {
                    if let Some((_, ds)) = fixes.get(i) {
                        refused.extend(ds.iter().copied());
                    }
                }
            }
        }
    }
    refused
}

/// `text` with `edits` (not overlapping) applied, in one pass; a file with CRLF line breaks
/// keeps them.
fn apply(text: &str, edits: &[&Edit]) -> String {
    let crlf = text.contains("\r\n");
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut after = String::with_capacity(text.len());
    let mut at = 0usize;
    for e in sorted {
        let (s, t) = (e.span.start as usize, e.span.end as usize);
        let Some(old) = text.get(s..t).filter(|_| s >= at) else {
            continue;
        };
        after.push_str(text.get(at..s).unwrap_or(""));
        let new = replacement_text(old, &e.replacement);
        if crlf {
            after.push_str(&new.replace("\r\n", "\n").replace('\n', "\r\n"));
        } else {
            after.push_str(&new);
        }
        at = t;
    }
    after.push_str(text.get(at..).unwrap_or(""));
    after
}

/// A file as it was before fixing, parsed once in full (the loaded tree of a catalog file
/// leaves parts of CSV metadata unbuilt), to check edits against.
struct Original<'t> {
    text: &'t str,
    parsed: LoadedFile,
    problems: std::collections::HashSet<String>,
}

impl<'t> Original<'t> {
    fn parse(text: &'t str) -> Self {
        let parsed = crate::parse_text_everything(text, &crate::Limits::default());
        let problems = parsed.problems.iter().map(|p| p.message.clone()).collect();
        Original {
            text,
            parsed,
            problems,
        }
    }

    /// The largest run of `sets` (taken in order) whose edits together read back as
    /// intended: all of them when they do, else found by halving the refused group, within
    /// [`VERIFY_BUDGET`] parses. The indexes kept and their edits.
    fn largest_verified<'e>(&self, sets: &[&'e [Edit]]) -> (Vec<usize>, Vec<&'e Edit>) {
        let mut kept = Vec::new();
        let mut edits: Vec<&'e Edit> = Vec::new();
        let mut budget = VERIFY_BUDGET;
        // Ranges still to try, first to last (a stack, so pushed in reverse).
        let mut todo: Vec<std::ops::Range<usize>> = Vec::new();
        todo.push(0..sets.len());
        while let Some(range) = todo.pop() {
            if range.is_empty() || budget == 0 {
                continue;
            }
            budget -= 1;
            let mut trial = edits.clone();
            for set in sets.get(range.clone()).unwrap_or_default() {
                trial.extend(set.iter());
            }
            if self.verify(&apply(self.text, &trial), &trial) {
                edits = trial;
                kept.extend(range);
            } else if range.len() > 1 {
                let mid = range.start + range.len() / 2;
                todo.push(mid..range.end);
                todo.push(range.start..mid);
            }
        }
        (kept, edits)
    }

    /// Whether `after` (this text with `edits` applied) reads as exactly the intended
    /// change: the same documents, every value and key outside the edited nodes equal
    /// (anchors, aliases, tags, block scalars and comments around an edit cannot be
    /// disturbed unnoticed), a renamed key carrying its new name, a quoted scalar its old
    /// text, a rewritten scalar its new value, and no syntax problem the file did not have.
    fn verify(&self, after: &str, edits: &[&Edit]) -> bool {
        let now = crate::parse_text_everything(after, &crate::Limits::default());
        if now
            .problems
            .iter()
            .any(|p| !self.problems.contains(&p.message))
            || self.parsed.docs.len() != now.docs.len()
        {
            return false;
        }
        let mut sorted = edits.to_vec();
        sorted.sort_by_key(|e| e.span.start);
        let edits = Edits(sorted);
        self.parsed
            .docs
            .iter()
            .zip(&now.docs)
            .all(|(b, a)| match (&b.root, &a.root) {
                (Some(b), Some(a)) => same_but_edited(self.text, b, a, &edits),
                (None, None) => true,
                _ => false,
            })
    }
}

/// Edits sorted by where they start.
struct Edits<'e>(Vec<&'e Edit>);

impl<'e> Edits<'e> {
    /// The edits starting at `start`.
    fn at(&self, start: usize) -> impl Iterator<Item = &'e Edit> + '_ {
        let i = self.0.partition_point(|e| e.span.start() < start);
        self.0
            .get(i..)
            .unwrap_or_default()
            .iter()
            .copied()
            .take_while(move |e| e.span.start() == start)
    }

    /// Whether an edit starts in `lo..hi`.
    fn any_in(&self, lo: usize, hi: usize) -> bool {
        let i = self.0.partition_point(|e| e.span.start() < lo);
        self.0.get(i).is_some_and(|e| e.span.start() < hi)
    }
}

fn same_but_edited(
    text: &str,
    b: &olmlint_base::tree::Node,
    a: &olmlint_base::tree::Node,
    edits: &Edits<'_>,
) -> bool {
    use olmlint_base::tree::Value as V;
    let start = content_start(text, b);
    // Most nodes hold no edit: compare them whole.
    if !edits.any_in(start.min(b.span.start()), b.span.end().max(start + 1)) {
        return b.same_as_written(a);
    }
    let first_key = match &b.value {
        V::Map(es) => es.first().map(|e| e.key_span),
        _ => None,
    };
    let target = edits
        .at(b.span.start())
        .chain(edits.at(start).filter(|_| start != b.span.start()))
        .find(|e| Some(e.span) != first_key);
    if let Some(e) = target {
        return match &e.replacement {
            Replacement::Quoted => {
                let old = text.get(b.span.start()..b.span.end()).unwrap_or("").trim();
                a.as_str() == Some(old)
            }
            Replacement::Renamed(name) => a.as_str() == Some(name.as_str()),
            Replacement::Raw(raw) => match serde_json::from_str::<serde_json::Value>(raw) {
                Ok(serde_json::Value::String(s)) => a.as_str() == Some(s.as_str()),
                // A rewritten collection: it must still be one, of the same kind.
                _ => std::mem::discriminant(&b.value) == std::mem::discriminant(&a.value),
            },
        };
    }
    match (&b.value, &a.value) {
        (V::Map(bs), V::Map(as_)) => {
            bs.len() == as_.len()
                && bs.iter().zip(as_).all(|(be, ae)| {
                    let renamed = edits
                        .at(be.key_span.start())
                        .find(|e| e.span == be.key_span);
                    let key_ok = match renamed {
                        Some(e) => match &e.replacement {
                            Replacement::Renamed(name) => ae.key.as_ref() == name.as_str(),
                            _ => false,
                        },
                        None => be.key == ae.key,
                    };
                    key_ok && same_but_edited(text, &be.value, &ae.value, edits)
                })
        }
        (V::Seq(bs), V::Seq(as_)) => {
            bs.len() == as_.len()
                && bs
                    .iter()
                    .zip(as_)
                    .all(|(b, a)| same_but_edited(text, b, a, edits))
        }
        (bv, av) => bv == av,
    }
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
/// Only regular files whose real path is inside one of the linted `roots` are written: a
/// link planted by a pull request cannot make `--fix` write elsewhere.
pub fn write(changes: &[FileChange], roots: &[std::path::PathBuf]) -> Vec<String> {
    // A file root counts as its directory: the file itself may be a link.
    let roots: Vec<std::path::PathBuf> = roots
        .iter()
        .filter_map(|r| {
            let dir = if r.is_dir() {
                r.as_path()
            } else {
                r.parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(std::path::Path::new("."))
            };
            std::fs::canonicalize(dir).ok()
        })
        .collect();
    let mut problems = Vec::new();
    for c in changes {
        // Read and write the path that was checked, so a link swapped in between cannot
        // redirect the write.
        let Some(real) = std::fs::canonicalize(&c.path)
            .ok()
            .filter(|p| roots.iter().any(|r| p.starts_with(r)))
        else {
            problems.push(format!(
                "{}: resolves outside the linted paths; not fixed",
                c.display
            ));
            continue;
        };
        match crate::io::read_regular(&real, u64::MAX) {
            Ok(bytes) if bytes == c.before.as_bytes() => {
                if let Err(e) = crate::io::write_atomic(&real, c.after.as_bytes()) {
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
/// Patience diff with a deadline: Myers' algorithm was quadratic on a file with 40 000 fixes
/// (80 000 changed lines, 40 s); past the deadline the diff is still correct, only less
/// minimal.
pub fn unified_diff(c: &FileChange) -> String {
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(&c.before, &c.after)
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
