//! A spanned JSON stream parser (concatenated values, as `opm` accepts them). Iterative, so
//! nesting depth is bounded by `Limits::max_depth`, not by the call stack.

use super::elide::{KeyHashes, VALUE_DEPTH};
use super::text::FileText;
use super::tree::{has_repeated_key, Entry, Node, Span, Style, Text, Value};
use super::{Limits, LoadProblem, RawDoc};

pub fn parse_stream(text: &str, limits: &Limits, problems: &mut Vec<LoadProblem>) -> Vec<RawDoc> {
    parse(text, None, limits, false, problems)
}

/// [`parse_stream`] of a whole loaded file: long strings stay ranges of its text. With
/// `elide`, nested `olm.csv.metadata` values stay unbuilt where that cannot change a verdict
/// (see `load/elide.rs`).
pub fn parse_file(
    file: &FileText,
    limits: &Limits,
    elide: bool,
    problems: &mut Vec<LoadProblem>,
) -> Vec<RawDoc> {
    parse(file, Some(file), limits, elide, problems)
}

fn parse(
    text: &str,
    file: Option<&FileText>,
    limits: &Limits,
    elide: bool,
    problems: &mut Vec<LoadProblem>,
) -> Vec<RawDoc> {
    let mut p = JsonParser {
        b: text.as_bytes(),
        text,
        file,
        pos: 0,
        limits,
        nodes: 0,
        repeated_keys: false,
        elide,
        in_elided_value: false,
        elided: false,
        needs_full: false,
        skipped_keys: Default::default(),
    };
    let mut docs = Vec::new();
    loop {
        p.skip_ws();
        if p.pos >= p.b.len() {
            break;
        }
        let (start, nodes) = (p.pos, p.nodes);
        p.repeated_keys = false;
        p.elided = false;
        p.needs_full = false;
        p.in_elided_value = false;
        let mut parsed = p.value();
        if p.needs_full
            || p.elided
                && matches!(&parsed, Ok(n) if !super::elide::keep(super::elide::Elide::CsvMetadata, Some(n), p.repeated_keys))
        {
            // Parse the document again in full.
            (p.pos, p.nodes, p.repeated_keys, p.elide) = (start, nodes, false, false);
            p.in_elided_value = false;
            parsed = p.value();
            p.elide = elide;
        }
        match parsed {
            Ok(node) => docs.push(RawDoc {
                index: docs.len(),
                span: Span::new(start, p.pos),
                root: Some(node),
                failed: false,
                repeated_keys: p.repeated_keys,
            }),
            Err(problem) => {
                problems.push(problem);
                docs.push(RawDoc {
                    index: docs.len(),
                    span: Span::new(start, p.pos),
                    root: None,
                    failed: true,
                    repeated_keys: false,
                });
                break;
            }
        }
    }
    docs
}

/// The key being read in the innermost open object.
fn top_key(stack: &[Frame]) -> Option<&str> {
    match stack.last() {
        Some(Frame::Obj {
            key: Some((k, _)), ..
        }) => Some(k.as_str()),
        _ => None,
    }
}

/// Whether the object about to open (with [`VALUE_DEPTH`] open) is an `olm.csv.metadata` value.
fn opens_elided_value(stack: &[Frame], entries: &[Entry]) -> bool {
    fn key(f: Option<&Frame>) -> Option<&str> {
        match f {
            Some(Frame::Obj {
                key: Some((k, _)), ..
            }) => Some(k.as_str()),
            _ => None,
        }
    }
    let item = match stack.get(2) {
        Some(Frame::Obj { base, .. }) => entries.get(*base..).unwrap_or_default(),
        _ => return false,
    };
    matches!(stack.get(1), Some(Frame::Arr { .. }))
        && super::elide::is_elided_value(key(stack.first()), key(stack.get(2)), item)
}

/// Length of the string content at the start of `b` up to its first quote, backslash or
/// control character (all of `b` if none): memchr finds the first two, and one vectorized
/// minimum over the run before it rules out the third.
fn string_run(b: &[u8]) -> usize {
    let end = memchr::memchr2(b'"', b'\\', b).unwrap_or(b.len());
    let run = b.get(..end).unwrap_or_default();
    if run.iter().min().is_some_and(|&m| m < 0x20) {
        run.iter().position(|&c| c < 0x20).unwrap_or(end)
    } else {
        end
    }
}

/// The node budget ran out: memory, not syntax.
pub(crate) fn too_many_nodes(at: usize, limit: u64) -> LoadProblem {
    LoadProblem::limit(
        Span::new(at, at + 1),
        format!("the document has more than {limit} values; it was not loaded"),
        "Every value costs olmlint (and opm) tens of bytes of memory. Real catalogs stay far \
         below this; raise `limits.max-nodes` in .olmlint.yaml if this file is genuine.",
    )
}

struct JsonParser<'a> {
    b: &'a [u8],
    text: &'a str,
    file: Option<&'a FileText>,
    pos: usize,
    limits: &'a Limits,
    /// Nodes built so far in this file.
    nodes: u64,
    /// Some object of the current document repeats a key.
    repeated_keys: bool,
    /// Elide nested `olm.csv.metadata` values.
    elide: bool,
    /// The `value` object on top of the stack (`VALUE_DEPTH + 1` open collections) is an
    /// `olm.csv.metadata` value: collections opened in it are skipped.
    in_elided_value: bool,
    /// Something in the current document was elided.
    elided: bool,
    /// An elided part needs the full parser: the document is parsed again.
    needs_full: bool,
    skipped_keys: KeyHashes,
}

/// The collections open while one value is parsed: their frames, innermost last, and
/// the children they hold so far.
#[derive(Default)]
struct Open {
    stack: Vec<Frame>,
    items: Vec<Node>,
    entries: Vec<Entry>,
}

/// An open array or object. Its children so far sit on shared `items` / `entries` stacks
/// from `base` on, so each finished collection is one exact-size allocation (as in YAML).
enum Frame {
    Arr {
        start: usize,
        base: usize,
    },
    Obj {
        start: usize,
        base: usize,
        key: Option<(olmlint_base::tree::Text, Span)>,
    },
}

impl JsonParser<'_> {
    fn skip_ws(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
            // Indentation of pretty-printed JSON: eight spaces at a time.
            while self.b.get(self.pos..self.pos + 8) == Some(b"        ") {
                self.pos += 8;
            }
        }
    }

    fn err(&self, msg: impl Into<String>) -> LoadProblem {
        LoadProblem::syntax(
            Span::new(self.pos, self.pos + 1),
            format!("JSON syntax error: {}", msg.into()),
            "Fix the JSON at this position; `opm` rejects the whole catalog on it.",
        )
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn value(&mut self) -> Result<Node, LoadProblem> {
        let mut open = Open::default();
        loop {
            self.skip_ws();
            if self.object_key(&mut open)? {
                continue;
            }
            self.array_separator(&open)?;
            let start = self.pos;
            self.nodes += 1;
            if self.nodes > self.limits.max_nodes {
                return Err(too_many_nodes(start, self.limits.max_nodes));
            }
            let node = match self.peek() {
                Some(b'{') | Some(b'[') => match self.open_collection(&mut open, start)? {
                    Some(elided) => elided,
                    None => continue,
                },
                Some(b'}') | Some(b']') => self.close_collection(&mut open)?,
                Some(b'"') => {
                    let s = self.string()?;
                    Node::new(Span::new(start, self.pos), Style::Json, Value::String(s))
                }
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(c) if c == b'-' || c.is_ascii_digit() => self.number()?,
                Some(_) => return Err(self.err("invalid character looking for beginning of value")),
                None => return Err(self.err("unexpected end of JSON input")),
            };
            if let Some(root) = self.attach(&mut open, node)? {
                return Ok(root);
            }
        }
    }

    /// Inside an object waiting for a key: the separator before it and the key with its
    /// `:`. `true` when a key was read; `false` when no key is due (not in an object, the
    /// object has its key, or `}` closes it).
    fn object_key(&mut self, open: &mut Open) -> Result<bool, LoadProblem> {
        let Some(Frame::Obj {
            base,
            key: key @ None,
            ..
        }) = open.stack.last_mut()
        else {
            return Ok(false);
        };
        let empty = open.entries.len() == *base;
        if self.peek() == Some(b'}') && empty {
            return Ok(false);
        }
        if !empty {
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.err("expected a string object key after ','"));
                    }
                }
                Some(b'}') => {}
                _ => return Err(self.err("expected ',' or '}' after object value")),
            }
        }
        if self.peek() == Some(b'}') {
            return Ok(false);
        }
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string object key"));
        }
        let ks = self.pos;
        let k = self.string()?;
        let kspan = Span::new(ks, self.pos);
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.err("expected ':' after object key"));
        }
        self.pos += 1;
        *key = Some((k, kspan));
        Ok(true)
    }

    /// Inside an array after an element: the `,` before the next one, or its `]`.
    fn array_separator(&mut self, open: &Open) -> Result<(), LoadProblem> {
        let Some(Frame::Arr { base, .. }) = open.stack.last() else {
            return Ok(());
        };
        if open.items.len() > *base {
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        return Err(self.err("expected a value after ','"));
                    }
                }
                Some(b']') => {}
                _ => return Err(self.err("expected ',' or ']' after array element")),
            }
        }
        Ok(())
    }

    /// At `{` or `[` (`start`): opens the collection (`None`), or, inside an elided
    /// `olm.csv.metadata` value, skips it whole and returns its elided node.
    fn open_collection(
        &mut self,
        open: &mut Open,
        start: usize,
    ) -> Result<Option<Node>, LoadProblem> {
        let depth = open.stack.len();
        if depth >= self.limits.max_depth {
            return Err(LoadProblem::limit(
                Span::new(start, start + 1),
                format!(
                    "exceeded max depth: the document nests deeper than {} levels",
                    self.limits.max_depth
                ),
                "Go's JSON decoder, which opm uses, stops at 10000 nested containers. \
                 The limit is `limits.max-depth` in .olmlint.yaml.",
            ));
        }
        let is_object = self.peek() == Some(b'{');
        if self.elide
            && self.in_elided_value
            && depth == VALUE_DEPTH + 1
            && !super::elide::built(top_key(&open.stack))
        {
            let Some(()) = self.skip_collection(depth) else {
                self.needs_full = true;
                return Err(self.err("parse again in full"));
            };
            self.elided = true;
            return Ok(Some(Node::new(
                Span::new(start, self.pos),
                Style::None,
                Value::Elided { map: is_object },
            )));
        }
        if is_object && self.elide && depth == VALUE_DEPTH {
            self.in_elided_value = opens_elided_value(&open.stack, &open.entries);
        }
        self.pos += 1;
        open.stack.push(if is_object {
            Frame::Obj {
                start,
                base: open.entries.len(),
                key: None,
            }
        } else {
            Frame::Arr {
                start,
                base: open.items.len(),
            }
        });
        Ok(None)
    }

    /// At `}` or `]`: closes the innermost collection into its node (one exact-size
    /// allocation of its children).
    fn close_collection(&mut self, open: &mut Open) -> Result<Node, LoadProblem> {
        let close = self.peek();
        let frame_ok = matches!(
            (open.stack.last(), close),
            (Some(Frame::Obj { key: None, .. }), Some(b'}'))
                | (Some(Frame::Arr { .. }), Some(b']'))
        );
        if !frame_ok {
            return Err(self.err("unexpected closing bracket"));
        }
        self.pos += 1;
        let popped = open.stack.pop();
        if open.stack.len() == VALUE_DEPTH {
            self.in_elided_value = false;
        }
        match popped {
            Some(Frame::Obj { start, base, .. }) => {
                let entries: Vec<Entry> = open.entries.drain(base..).collect();
                self.repeated_keys |= has_repeated_key(&entries);
                Ok(Node::new(
                    Span::new(start, self.pos),
                    Style::None,
                    Value::Map(entries),
                ))
            }
            Some(Frame::Arr { start, base }) => Ok(Node::new(
                Span::new(start, self.pos),
                Style::None,
                Value::Seq(open.items.drain(base..).collect()),
            )),
            None => Err(self.err("unexpected closing bracket")),
        }
    }

    /// Puts a finished value into the collection it belongs to; `Some` with the document's
    /// root once no collection is open.
    fn attach(&mut self, open: &mut Open, node: Node) -> Result<Option<Node>, LoadProblem> {
        match open.stack.last_mut() {
            None => return Ok(Some(node)),
            Some(Frame::Arr { .. }) => open.items.push(node),
            Some(Frame::Obj { key, .. }) => match key.take() {
                Some((k, key_span)) => open.entries.push(Entry {
                    key: k,
                    key_span,
                    value: node,
                }),
                None => return Err(self.err("expected a string object key")),
            },
        }
        Ok(None)
    }

    /// Scans the array or object at `pos` inside an elided value, `depth` collections deep:
    /// validated, counted and checked for repeated keys as the full parser would, nothing
    /// built. `None` on anything only the full parser reports (errors, limits, repeats).
    fn skip_collection(&mut self, depth: usize) -> Option<()> {
        // Open collections: (object?, base of its key hashes).
        let mut open: Vec<(bool, usize)> = Vec::new();
        let mut keys = std::mem::take(&mut self.skipped_keys);
        let done = self.skip_values(depth, &mut open, &mut keys);
        keys.close(0);
        self.skipped_keys = keys;
        done
    }

    fn skip_values(
        &mut self,
        depth: usize,
        open: &mut Vec<(bool, usize)>,
        keys: &mut KeyHashes,
    ) -> Option<()> {
        'value: loop {
            // At a value (the first, the collection itself, is counted already).
            self.skip_ws();
            if !open.is_empty() {
                self.count()?;
            }
            match self.peek()? {
                c @ (b'{' | b'[') => {
                    if depth + open.len() >= self.limits.max_depth {
                        return None;
                    }
                    self.pos += 1;
                    open.push((c == b'{', keys.base()));
                    self.skip_ws();
                    match (c, self.peek()?) {
                        (b'{', b'}') | (b'[', b']') => {}
                        (b'{', _) => {
                            self.skip_key(keys)?;
                            continue 'value;
                        }
                        _ => continue 'value,
                    }
                }
                b'"' => self.skip_string()?,
                b't' => drop(self.literal("true", Value::Null).ok()?),
                b'f' => drop(self.literal("false", Value::Null).ok()?),
                b'n' => drop(self.literal("null", Value::Null).ok()?),
                b'-' | b'0'..=b'9' => drop(self.number().ok()?),
                _ => return None,
            }
            // After a value: separators and closing brackets.
            loop {
                self.skip_ws();
                let &(object, base) = open.last()?;
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        self.skip_ws();
                        if object {
                            self.skip_key(keys)?;
                        }
                        continue 'value;
                    }
                    b'}' if object => {
                        if keys.close(base) {
                            self.repeated_keys = true;
                            return None;
                        }
                    }
                    b']' if !object => {}
                    _ => return None,
                }
                // The full parser counts closing brackets too.
                self.count()?;
                self.pos += 1;
                open.pop();
                if open.is_empty() {
                    return Some(());
                }
            }
        }
    }

    fn count(&mut self) -> Option<()> {
        self.nodes += 1;
        (self.nodes <= self.limits.max_nodes).then_some(())
    }

    fn skip_key(&mut self, keys: &mut KeyHashes) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        keys.push(&self.string().ok()?);
        self.skip_ws();
        (self.peek()? == b':').then(|| self.pos += 1)
    }

    /// A string value validated as [`Self::string`] does, not decoded.
    fn skip_string(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            let run = self.b.get(self.pos..)?;
            self.pos += string_run(run);
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            self.pos += 1;
                            self.hex4().ok()?;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Node, LoadProblem> {
        let start = self.pos;
        if self.b.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(Node::new(Span::new(start, self.pos), Style::Json, v))
        } else {
            Err(self.err(format!("invalid literal, expected {word}")))
        }
    }

    fn number(&mut self) -> Result<Node, LoadProblem> {
        let start = self.pos;
        let mut int = true;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(c) if c.is_ascii_digit() => {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.err("invalid number")),
        }
        if self.peek() == Some(b'.') {
            int = false;
            self.pos += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err("invalid number: digit expected after '.'"));
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            int = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err("invalid number: digit expected in exponent"));
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        let text = self.text.get(start..self.pos).unwrap_or("0");
        let value = text.parse::<f64>().unwrap_or(0.0);
        Ok(Node::new(
            Span::new(start, self.pos),
            Style::Json,
            Value::Number { value, int },
        ))
    }

    fn string(&mut self) -> Result<Text, LoadProblem> {
        self.pos += 1; // opening quote
        let first = self.pos;
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            let run = self.b.get(run_start..).unwrap_or_default();
            self.pos += string_run(run);
            let run = self.text.get(run_start..self.pos).unwrap_or("");
            match self.peek() {
                // No escapes: the string is its source text.
                Some(b'"') if run_start == first => {
                    self.pos += 1;
                    return Ok(Text::from_cow(self.file, run.into()));
                }
                Some(b'"') => {
                    out.push_str(run);
                    self.pos += 1;
                    return Ok(out.into());
                }
                Some(b'\\') => {
                    out.push_str(run);
                    self.pos += 1;
                    let esc = self
                        .peek()
                        .ok_or_else(|| self.err("unexpected end of JSON input"))?;
                    self.pos += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi)
                                && self.b.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                } else {
                                    self.pos = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("invalid escape in string")),
                    }
                }
                Some(_) => return Err(self.err("invalid control character in string")),
                None => return Err(self.err("unexpected end of JSON input in string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, LoadProblem> {
        let h = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err("invalid \\u escape"))?;
        let v = u32::from_str_radix(h, 16).map_err(|_| self.err("invalid \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_and_spans() {
        let t = r#"{"a": [1, 2.5, "x\u00e9"]}{"b":null}"#;
        let mut p = Vec::new();
        let docs = parse_stream(t, &Limits::default(), &mut p);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(docs.len(), 2);
        let a = docs[0].root.as_ref().unwrap().get("a").unwrap();
        assert_eq!(&t[a.span.start()..a.span.end()], r#"[1, 2.5, "x\u00e9"]"#);
        assert_eq!(a.as_seq().unwrap()[2].as_str(), Some("xé"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let t = "[".repeat(100_000) + &"]".repeat(100_000);
        let mut p = Vec::new();
        parse_stream(&t, &Limits::default(), &mut p);
        assert!(p[0].message.contains("exceeded max depth"));
    }

    #[test]
    fn string_runs_stop_at_quotes_backslashes_and_control_characters() {
        for (text, len) in [
            ("abc\"x", 3),
            ("ab\\\"", 2),
            ("a\nb\"", 1),
            ("a\u{1f}\"", 1),
            ("\tb", 0),
            ("é😀\"", 6),
            ("no end", 6),
            ("", 0),
        ] {
            assert_eq!(string_run(text.as_bytes()), len, "{text:?}");
        }
    }

    #[test]
    fn pretty_printed_indentation_is_skipped() {
        let text = "{\n        \"a\":\n                 [\n\t 1 ]\r\n}  \n   {}";
        let mut problems = Vec::new();
        let docs = parse_stream(text, &Limits::default(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(docs.len(), 2);
        let a = docs[0].root.as_ref().and_then(|r| r.get("a")).unwrap();
        assert_eq!(&text[a.span.start()..a.span.end()], "[\n\t 1 ]");
    }

    #[test]
    fn errors() {
        for bad in [
            r#"{"a":}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            "[1 2]",
            r#"{"a":tru}"#,
        ] {
            let mut p = Vec::new();
            parse_stream(bad, &Limits::default(), &mut p);
            assert_eq!(p.len(), 1, "{bad}");
        }
    }
}
