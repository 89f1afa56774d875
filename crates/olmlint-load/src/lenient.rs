//! Where saphyr-parser is stricter than libyaml (go-yaml v2 is a port of it, and that is what
//! `opm` reads YAML with), the text saphyr sees is adjusted, at the position saphyr stopped,
//! into an equivalent one it accepts: same tokens, same decoded values. Spans are mapped
//! back to the original text, so findings point at the bytes the user wrote.
//!
//! The leniencies, each measured against libyaml 0.2.5 (PyYAML's `CSafeLoader`):
//! - continuation lines of a multi-line single- or double-quoted scalar may sit at any
//!   column, even below the key (libyaml checks no indentation inside quoted scalars; their
//!   leading blanks, tabs included, are dropped when folding). saphyr applies YAML 1.2's
//!   "deeper than the parent" rule: `invalid indentation in quoted scalar`. The repair indents
//!   those lines past the opening quote. A `---`/`...` marker at column 0 stays an error;
//! - a tab right after a mapping value's `:` separates like a space;
//! - a comment may follow a quoted scalar or a closing bracket without a blank before `#`;
//! - lines inside a flow collection (`[…]`, `{…}`) may sit at any column: the line saphyr
//!   stops at is indented past the start of the nearest line above that holds text.

/// A text saphyr may accept where libyaml does, and the map back to the original.
pub(super) struct Lenient {
    pub text: String,
    /// Insertions, in original order: (original offset, count of inserted bytes).
    inserts: Vec<(usize, usize)>,
    /// For each insertion, where it starts in the adjusted text and the bytes inserted up to
    /// and including it: `to_original` is a binary search (it runs twice per event).
    index: Vec<(usize, usize)>,
}

/// Repairs of one chunk at most: each costs a parse of the chunk, so a hostile file with a
/// huge number of sites cannot make loading quadratic without bound.
pub(super) const MAX_REPAIRS: usize = 256;

impl Lenient {
    pub(super) fn new(text: &str) -> Self {
        Lenient {
            text: text.to_string(),
            inserts: Vec::new(),
            index: Vec::new(),
        }
    }

    /// The original offset of byte `p` of the adjusted text (an inserted byte maps to the
    /// position it was inserted at).
    pub(super) fn to_original(&self, p: usize) -> usize {
        let i = self.index.partition_point(|&(start, _)| start <= p);
        let Some(j) = i.checked_sub(1) else {
            return p;
        };
        match (self.inserts.get(j), self.index.get(j)) {
            (Some(&(at, n)), Some(&(start, total))) => {
                if p < start + n {
                    at
                } else {
                    p - total
                }
            }
            _ => p,
        }
    }

    /// Adjust the text where saphyr failed with `info` at byte `at` of the adjusted text.
    /// `false` when the failure is not one of libyaml's leniencies (the error stands).
    pub(super) fn repair(&mut self, info: &str, at: usize) -> bool {
        match info {
            "invalid indentation in quoted scalar" => self.quoted(at),
            "':' must be followed by a valid YAML whitespace" => self.tab_after_colon(at),
            "comments must be separated from other tokens by whitespace" => self.comment(at),
            "invalid indentation in flow construct" => self.flow_line(at),
            // saphyr's block-indentation checks also fire on lines inside a flow collection
            // (where libyaml checks no indentation) and inside quoted scalars.
            "invalid indentation"
            | "tab cannot be used as indentation"
            | "tabs disallowed within this context (block indentation)" => {
                match context_at(
                    &self.text,
                    super::source::line_start_of(self.text.as_bytes(), at),
                ) {
                    Context::Flow => self.untab_line(at) | self.flow_line(at),
                    Context::Quoted(q) => self.quoted(q),
                    Context::Block => false,
                }
            }
            _ => false,
        }
    }

    /// Insert `n` spaces at byte `p` of the adjusted text; whether anything changed.
    fn insert(&mut self, p: usize, n: usize) -> bool {
        self.insert_many(&[(p, n)])
    }

    /// Insert spaces at several places at once, `(byte of the adjusted text, count)` in
    /// ascending order: one pass over the text, however many lines a repair indents.
    fn insert_many(&mut self, sites: &[(usize, usize)]) -> bool {
        let sites: Vec<(usize, usize)> = sites
            .iter()
            .copied()
            .filter(|&(p, n)| n > 0 && self.text.is_char_boundary(p))
            .collect();
        if sites.is_empty() {
            return false;
        }
        let mut text =
            String::with_capacity(self.text.len() + sites.iter().map(|s| s.1).sum::<usize>());
        let mut last = 0;
        let mut added = Vec::with_capacity(sites.len());
        for &(p, n) in &sites {
            text.push_str(self.text.get(last..p).unwrap_or(""));
            text.extend(std::iter::repeat_n(' ', n));
            last = p;
            added.push((self.to_original(p), n));
        }
        text.push_str(self.text.get(last..).unwrap_or(""));
        self.text = text;
        // Merge (both sorted by original offset); an insertion at an offset that already
        // has one goes after it, as the text shows.
        let old = std::mem::take(&mut self.inserts);
        let mut merged = Vec::with_capacity(old.len() + added.len());
        let (mut a, mut b) = (old.into_iter().peekable(), added.into_iter().peekable());
        loop {
            let take_old = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0 <= y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            merged.extend(if take_old { a.next() } else { b.next() });
        }
        self.inserts = merged;
        let mut total = 0;
        self.index = self
            .inserts
            .iter()
            .map(|&(at, n)| {
                let start = at + total;
                total += n;
                (start, total)
            })
            .collect();
        true
    }

    /// The quoted scalar opening at `q`: every continuation line holding text is indented
    /// past the opening quote (leading tabs become spaces: both are dropped when folding).
    fn quoted(&mut self, q: usize) -> bool {
        let bytes = self.text.as_bytes();
        let Some(&quote) = bytes.get(q).filter(|&&c| c == b'\'' || c == b'"') else {
            return false;
        };
        let line_start = |i: usize| super::source::line_start_of(bytes, i);
        let col = self
            .text
            .get(line_start(q)..q)
            .map_or(0, |s| s.chars().count());
        // The closing quote, and where each continuation line starts.
        let mut i = q + 1;
        let mut lines = Vec::new();
        loop {
            match bytes.get(i) {
                None => return false,
                Some(b'\\') if quote == b'"' => {
                    // An escaped line break still starts a continuation line.
                    let skip = match bytes.get(i + 1..i + 3) {
                        Some(b"\r\n") => 3,
                        _ => 2,
                    };
                    i += skip;
                    if bytes.get(i - 1) == Some(&b'\n') {
                        lines.push(i);
                    }
                }
                Some(b'\'') if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
                Some(&c) if c == quote => break,
                Some(b'\n') => {
                    i += 1;
                    lines.push(i);
                }
                Some(_) => i += 1,
            }
        }
        let mut plan = Vec::new();
        for &ls in &lines {
            let rest = bytes.get(ls..).unwrap_or_default();
            let blanks = rest
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            let holds_text = !matches!(rest.get(blanks), Some(b'\n' | b'\r') | None);
            if !holds_text {
                continue;
            }
            // libyaml rejects a document marker at column 0 inside a quoted scalar.
            if blanks == 0
                && (rest.starts_with(b"---") || rest.starts_with(b"..."))
                && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
            {
                return false;
            }
            plan.push((ls, blanks));
        }
        if plan.is_empty() {
            return false;
        }
        // Tabs to spaces in place (one byte each, so no offset moves), then insertions from
        // the end backwards.
        let mut untabbed = false;
        for &(ls, blanks) in &plan {
            untabbed |= self.tabs_to_spaces(ls, ls + blanks);
        }
        let sites: Vec<(usize, usize)> = plan
            .iter()
            .map(|&(ls, blanks)| (ls, (col + 1).saturating_sub(blanks)))
            .collect();
        // Nothing to adjust: the failure is not this leniency (and parsing the same text
        // again would fail the same way).
        self.insert_many(&sites) | untabbed
    }

    /// A line inside a flow collection at or below the block indentation: indent it one past
    /// the first column of the nearest line above that holds text (flow context ignores
    /// indentation; a multi-line plain scalar drops the leading blanks of its lines).
    fn flow_line(&mut self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let line_start = |i: usize| super::source::line_start_of(bytes, i);
        let ls = line_start(at);
        let lead = bytes
            .get(ls..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ')
            .count();
        if ls == 0 || bytes.get(ls + lead) == Some(&b'\t') {
            return false;
        }
        let mut prev = line_start(ls - 1);
        let need = loop {
            let line = bytes.get(prev..).unwrap_or_default();
            let blanks = line.iter().take_while(|&&c| c == b' ').count();
            if !matches!(line.get(blanks), Some(b'\n' | b'\r' | b'#') | None) {
                break blanks + 1;
            }
            if prev == 0 {
                return false;
            }
            prev = line_start(prev - 1);
        };
        if lead >= need {
            return false;
        }
        self.insert(ls, need - lead)
    }

    /// Tabs in the leading blanks of the line holding `at` become spaces (flow context: the
    /// blanks only separate). One byte each, so no offset moves.
    fn untab_line(&mut self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let ls = super::source::line_start_of(bytes, at);
        let blanks = bytes
            .get(ls..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        self.tabs_to_spaces(ls, ls + blanks)
    }

    /// Tabs in `start..end` of the adjusted text become spaces (one byte each: no offset
    /// moves); whether there were any.
    fn tabs_to_spaces(&mut self, start: usize, end: usize) -> bool {
        let has_tab = self
            .text
            .as_bytes()
            .get(start..end)
            .is_some_and(|r| r.contains(&b'\t'));
        if has_tab {
            let mut owned = std::mem::take(&mut self.text).into_bytes();
            for c in owned.get_mut(start..end).unwrap_or_default() {
                if *c == b'\t' {
                    *c = b' ';
                }
            }
            self.text = String::from_utf8(owned).unwrap_or_default();
        }
        has_tab
    }

    /// `key:<TAB>value`: saphyr stops at the value; the tab after the colon becomes a space.
    fn tab_after_colon(&mut self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let mut i = at;
        while i > 0 && bytes.get(i - 1) == Some(&b'\t') {
            i -= 1;
        }
        if i == at || i == 0 || bytes.get(i - 1) != Some(&b':') {
            return false;
        }
        self.tabs_to_spaces(i, i + 1)
    }

    /// `'x'#c`, `[x]#c`: a blank before the `#` (the comment is dropped either way).
    fn comment(&mut self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let Some(hash) = (at.saturating_sub(1)..=at + 1).find(|&i| bytes.get(i) == Some(&b'#'))
        else {
            return false;
        };
        if hash == 0
            || !matches!(
                bytes.get(hash - 1),
                Some(b'\'' | b'"' | b']' | b'}' | b'|' | b'>' | b'-' | b'+')
            )
        {
            return false;
        }
        self.insert(hash, 1)
    }
}

/// What the text at a line start is inside of.
#[derive(Debug, PartialEq)]
enum Context {
    Block,
    Flow,
    /// A quoted scalar opening at this byte.
    Quoted(usize),
}

/// A light scan of `text` up to byte `end` (a line start): inside a flow collection, a
/// quoted scalar, or neither. Used only where saphyr already failed, to tell whether the
/// failure is in a construct whose indentation libyaml ignores. Quotes and brackets count
/// only where a node starts (`it's`, `a[0]` in plain scalars do not); comments and the
/// bodies of block scalars are skipped.
fn context_at(text: &str, end: usize) -> Context {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0usize;
    // Whether the next non-blank byte starts a node.
    let mut node_start = true;
    // A block scalar's body: lines indented more than this column (or blank) are skipped.
    let mut block_body: Option<usize> = None;
    let mut line_begin = true;
    while i < end {
        let Some(&c) = b.get(i) else { break };
        if line_begin {
            line_begin = false;
            let blanks = b
                .get(i..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&c| c == b' ')
                .count();
            if let Some(parent) = block_body {
                let blank_line = matches!(b.get(i + blanks), None | Some(b'\n' | b'\r'));
                if blank_line || blanks > parent {
                    i = next_line(b, i);
                    line_begin = true;
                    continue;
                }
                block_body = None;
            }
            if depth == 0 {
                node_start = true;
            }
        }
        match c {
            b'\n' => {
                line_begin = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {}
            b'#' if i == 0 || matches!(b.get(i - 1), Some(b' ' | b'\t' | b'\n' | b'\r')) => {
                i = next_line(b, i);
                line_begin = true;
                continue;
            }
            b'\'' | b'"' if node_start => {
                let Some(close) = quoted_end(b, i) else {
                    return Context::Quoted(i);
                };
                if close >= end {
                    return Context::Quoted(i);
                }
                i = close + 1;
                node_start = false;
                continue;
            }
            b'[' | b'{' if node_start || depth > 0 => {
                depth += 1;
                node_start = true;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                node_start = false;
            }
            b',' if depth > 0 => node_start = true,
            b'|' | b'>' if node_start && depth == 0 => {
                let line = super::source::line_start_of(b, i);
                let lead = b
                    .get(line..i)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&c| c == b' ' || c == b'-')
                    .count();
                // `key: |` is indented past the key; `- |` past the dash.
                let rest = b.get(line + lead..i).unwrap_or_default();
                block_body = Some(if rest.is_empty() {
                    lead.saturating_sub(2)
                } else {
                    lead
                });
                i = next_line(b, i);
                line_begin = true;
                continue;
            }
            b':' | b'-' | b'?'
                if matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
                    || (c == b':' && depth > 0) =>
            {
                node_start = true;
            }
            b'&' | b'!' if node_start => {
                // An anchor or tag: the node starts after it.
                while !matches!(b.get(i), None | Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    i += 1;
                }
                continue;
            }
            _ => node_start = false,
        }
        i += 1;
    }
    if depth > 0 {
        Context::Flow
    } else {
        Context::Block
    }
}

fn next_line(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
        .map_or(b.len(), |p| i + p + 1)
}

/// The closing quote of the quoted scalar opening at `q`.
fn quoted_end(b: &[u8], q: usize) -> Option<usize> {
    let quote = *b.get(q)?;
    let mut i = q + 1;
    loop {
        match *b.get(i)? {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_offsets_back_through_insertions() {
        let mut l = Lenient::new("ab\ncd\nef");
        l.insert(3, 2); // before c
        l.insert(8, 1); // before e (original 6)
        assert_eq!(l.text, "ab\n  cd\n ef");
        let back: Vec<usize> = (0..l.text.len()).map(|p| l.to_original(p)).collect();
        assert_eq!(back, vec![0, 1, 2, 3, 3, 3, 4, 5, 6, 6, 7]);
    }

    #[test]
    fn context_at_line_starts() {
        let ctx = |t: &str, line: usize| {
            let start = t.split_inclusive('\n').take(line).map(str::len).sum();
            context_at(t, start)
        };
        assert_eq!(ctx("a: [\n1\n]\n", 1), Context::Flow);
        assert_eq!(ctx("a: [1]\nb: 2\n", 1), Context::Block);
        assert_eq!(ctx("a: it's [x\nb: [c,\nd]\n", 2), Context::Flow);
        assert_eq!(ctx("a: it's [x\nb: 1\n", 1), Context::Block);
        assert_eq!(ctx("a: 'x\n  y'\n", 1), Context::Quoted(3));
        assert_eq!(ctx("a: \"x\\\"\n y\"\n", 1), Context::Quoted(3));
        assert_eq!(ctx("a: |\n  [ x\nb: 1\n", 2), Context::Block);
        assert_eq!(ctx("- |\n  { x\n- [\n", 3), Context::Flow);
        assert_eq!(ctx("a: [ # ]\n  b]\n", 1), Context::Flow);
        assert_eq!(ctx("a: &x [\n1]\n", 1), Context::Flow);
        assert_eq!(ctx("a: !!seq [\n1]\n", 1), Context::Flow);
        assert_eq!(ctx("a: {b: 'it''s',\nc: d}\n", 1), Context::Flow);
    }

    #[test]
    fn quoted_continuations_are_indented_past_the_quote() {
        let mut l = Lenient::new("a:\n  b: 'x\n  y'\n");
        assert!(l.repair("invalid indentation in quoted scalar", 8));
        assert_eq!(l.text, "a:\n  b: 'x\n      y'\n");
        // tabs become spaces, blank lines stay, escaped characters are skipped
        let mut l = Lenient::new("b: \"x\\\"\n\n\ty\"\n");
        assert!(l.repair("invalid indentation in quoted scalar", 3));
        assert_eq!(l.text, "b: \"x\\\"\n\n    y\"\n");
        // an escaped line break starts a continuation line too
        let mut l = Lenient::new("b: \"x \\\ny\"\n");
        assert!(l.repair("invalid indentation in quoted scalar", 3));
        assert_eq!(l.text, "b: \"x \\\n    y\"\n");
        // a document marker at column 0 stays an error
        let mut l = Lenient::new("b: 'x\n--- y'\n");
        assert!(!l.repair("invalid indentation in quoted scalar", 3));
    }
}
