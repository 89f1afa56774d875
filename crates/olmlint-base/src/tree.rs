//! The spanned value tree every later stage reads: one node per YAML/JSON value, with its byte
//! range in the file and enough about its source form to explain YAML 1.1 surprises.

/// Byte range `[start, end)` in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Span {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }
    pub fn start(self) -> usize {
        self.start as usize
    }
    pub fn end(self) -> usize {
        self.end as usize
    }
}

/// How a scalar was written. Everything but `Plain` is always a string in YAML 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Style {
    #[default]
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// A value from a JSON document.
    Json,
    /// A node without a scalar form (collections, implicit nulls).
    None,
}

pub use super::text::Text;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// All numbers end up as float64 in OLM (the registry re-encodes through Go `any`);
    /// `int` records that the source spelled an integer.
    Number {
        value: f64,
        int: bool,
    },
    String(Text),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
    /// A collection no rule reads, kept as its kind and span only: the nested values of an
    /// `olm.csv.metadata` property (85 % of a typical catalog's bytes). The loader elides
    /// them only in well-formed `olm.bundle` documents (see `load/elide.rs`).
    Elided {
        map: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub style: Style,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Text,
    pub key_span: Span,
    pub value: Node,
}

impl Node {
    pub fn new(span: Span, style: Style, value: Value) -> Self {
        Node { span, style, value }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// Exact-case lookup; the last duplicate wins, as in Go.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rev()
            .find(|e| &*e.key == key)
            .map(|e| &e.value)
    }

    /// Go `encoding/json` struct-field lookup: every key that folds to the field name is
    /// decoded into it in document order, so the last one wins.
    pub fn get_folded(&self, key: &str) -> Option<&Entry> {
        self.as_map()?
            .iter()
            .rev()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }

    /// True when a plain YAML scalar was resolved to something other than a string by the
    /// YAML 1.1 rules (`1.10`, `yes`, `on`, `017`), i.e. the author probably meant a string.
    pub fn is_coerced_scalar(&self) -> bool {
        self.style == Style::Plain && matches!(self.value, Value::Bool(_) | Value::Number { .. })
    }

    /// The JSON type name Go uses in unmarshal errors.
    pub fn go_kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number { .. } => "number",
            Value::String(_) => "string",
            Value::Seq(_) | Value::Elided { map: false } => "array",
            Value::Map(_) | Value::Elided { map: true } => "object",
        }
    }

    /// Compact JSON exactly as Go's `json.Marshal` of `map[string]any` would print it: keys
    /// sorted, last duplicate wins, HTML characters left alone, numbers through float64.
    /// This is the byte string OLM's size limit is measured on.
    pub fn canonical_json(&self) -> String {
        let mut out = String::new();
        write_canonical(self, &mut out);
        out
    }

    /// The length of [`Node::canonical_json`] without building it (OLM's size limit).
    pub fn canonical_len(&self) -> usize {
        let mut len = Len(0);
        write_canonical(self, &mut len);
        len.0
    }

    /// Whether two values have the same canonical JSON, compared structurally (no rendering).
    pub fn canonical_eq(&self, other: &Node) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            match (&a.value, &b.value) {
                (Value::String(x), Value::String(y)) if x == y => {}
                (Value::Bool(x), Value::Bool(y)) if x == y => {}
                (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => {
                    stack.extend(x.iter().zip(y.iter()));
                }
                (Value::Map(x), Value::Map(y)) => {
                    let (x, y) = (canonical_entries(x), canonical_entries(y));
                    if x.len() != y.len() {
                        return false;
                    }
                    for (ea, eb) in x.rev().zip(y.rev()) {
                        if ea.key != eb.key {
                            return false;
                        }
                        stack.push((&ea.value, &eb.value));
                    }
                }
                (x, y) => match (null_or_number(x), null_or_number(y)) {
                    (Some(x), Some(y)) if x == y => {}
                    _ => return false,
                },
            }
        }
        true
    }

    /// Whether two values are written alike: same styles, keys and entries in the same order,
    /// duplicates included; only positions differ. Such values get the same findings.
    pub fn same_as_written(&self, other: &Node) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            if a.style != b.style {
                return false;
            }
            match (&a.value, &b.value) {
                (Value::Null, Value::Null) => {}
                (Value::Bool(x), Value::Bool(y)) if x == y => {}
                (Value::String(x), Value::String(y)) if x == y => {}
                (Value::Number { value: x, int: i }, Value::Number { value: y, int: j })
                    if x.to_bits() == y.to_bits() && i == j => {}
                (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => {
                    stack.extend(x.iter().zip(y.iter()));
                }
                (Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
                    for (ea, eb) in x.iter().zip(y.iter()) {
                        if ea.key != eb.key {
                            return false;
                        }
                        stack.push((&ea.value, &eb.value));
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// [`Node::canonical_hash`] with a fixed seed: a key for grouping equal values, stable
    /// across threads and runs.
    pub fn canonical_key(&self) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = foldhash::quality::FixedState::with_seed(0).build_hasher();
        self.canonical_hash(&mut h);
        h.finish()
    }

    /// A hash of the canonical JSON's structure: equal for [`Node::canonical_eq`] values.
    pub fn canonical_hash(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            match &n.value {
                Value::String(s) => {
                    h.write_u8(1);
                    s.as_str().hash(h);
                }
                Value::Bool(b) => h.write_u8(2 + u8::from(*b)),
                Value::Seq(items) => {
                    h.write_u8(4);
                    h.write_usize(items.len());
                    stack.extend(items.iter().rev());
                }
                Value::Map(entries) => {
                    let entries = canonical_entries(entries);
                    h.write_u8(5);
                    h.write_usize(entries.len());
                    for e in entries.rev() {
                        e.key.as_str().hash(h);
                        stack.push(&e.value);
                    }
                }
                v => {
                    h.write_u8(6);
                    null_or_number(v).hash(h);
                }
            }
        }
    }

    /// The node as a `serde_json::Value` (numbers as floats, like OLM). `None` for trees deeper
    /// than serde_json's recursion limit, and for trees with an elided part (load with
    /// `Build::Everything` to convert whole documents).
    pub fn to_json(&self) -> Option<serde_json::Value> {
        let mut elided = false;
        self.walk(|n| elided |= matches!(n.value, Value::Elided { .. }));
        if elided {
            return None;
        }
        serde_json::from_str(&self.canonical_json()).ok()
    }

    /// The node a JSON pointer designates (RFC 6901; the last duplicate key wins).
    pub fn at_pointer(&self, pointer: &str) -> Option<&Node> {
        let mut cur = self;
        for raw in pointer.split('/').skip(1) {
            let seg = unescape_segment(raw);
            cur = match &cur.value {
                Value::Map(_) => cur.get(&seg)?,
                Value::Seq(items) => items.get(seg.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// A short human rendering of a scalar for messages.
    pub fn display_scalar(&self) -> String {
        match &self.value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number { value, .. } => format_go_float(*value),
            Value::String(s) => format!("{s:?}"),
            Value::Seq(_) | Value::Elided { map: false } => "a list".into(),
            Value::Map(_) | Value::Elided { map: true } => "a mapping".into(),
        }
    }

    /// Visit every node depth-first without recursion (trees can be 10 000 levels deep).
    pub fn walk(&self, mut f: impl FnMut(&Node)) {
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            f(n);
            match &n.value {
                Value::Seq(items) => stack.extend(items.iter().rev()),
                Value::Map(entries) => stack.extend(entries.iter().rev().map(|e| &e.value)),
                _ => {}
            }
        }
    }
}

impl Drop for Node {
    /// Dismantle deep trees iteratively so that dropping a 100 000-level document cannot
    /// overflow the stack.
    fn drop(&mut self) {
        let mut stack: Vec<Node> = Vec::new();
        take_children(&mut self.value, &mut stack);
        while let Some(mut n) = stack.pop() {
            take_children(&mut n.value, &mut stack);
        }
    }
}

fn take_children(v: &mut Value, stack: &mut Vec<Node>) {
    match v {
        Value::Seq(items) if !items.is_empty() => stack.append(items),
        Value::Map(entries) if !entries.is_empty() => {
            stack.extend(std::mem::take(entries).into_iter().map(|mut e| {
                std::mem::replace(
                    &mut e.value,
                    Node::new(Span::default(), Style::None, Value::Null),
                )
            }))
        }
        _ => {}
    }
}

/// Where canonical JSON goes: a string, or only its length.
trait Sink {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char);
}

impl Sink for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

/// Counts the bytes instead of keeping them.
struct Len(usize);

impl Sink for Len {
    fn push_str(&mut self, s: &str) {
        self.0 += s.len();
    }
    fn push(&mut self, c: char) {
        self.0 += c.len_utf8();
    }
}

fn write_canonical(node: &Node, out: &mut impl Sink) {
    // Explicit stack of pending output pieces; trees can be deeper than the call stack allows.
    enum Job<'a> {
        Node(&'a Node),
        Text(&'static str),
        Key(&'a str),
    }
    let mut stack = vec![Job::Node(node)];
    while let Some(job) = stack.pop() {
        match job {
            Job::Text(t) => out.push_str(t),
            Job::Key(k) => {
                write_json_string(k, out);
                out.push(':');
            }
            Job::Node(n) => match &n.value {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number { value, .. } => out.push_str(&format_go_float(*value)),
                Value::String(s) => write_json_string(s, out),
                // Never rendered: the loader elides only values no rule prints or compares.
                Value::Elided { map } => out.push_str(if *map { "{}" } else { "[]" }),
                Value::Seq(items) => {
                    out.push('[');
                    stack.push(Job::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Job::Node(item));
                        if i > 0 {
                            stack.push(Job::Text(","));
                        }
                    }
                }
                Value::Map(entries) => {
                    out.push('{');
                    stack.push(Job::Text("}"));
                    // Keys usually arrive sorted and unique: skip the sorting copy then.
                    let entries = canonical_entries(entries);
                    for (i, e) in entries.rev().enumerate() {
                        stack.push(Job::Node(&e.value));
                        stack.push(Job::Key(&e.key));
                        if i + 1 < entries.len() {
                            stack.push(Job::Text(","));
                        }
                    }
                }
            },
        }
    }
}

/// Keys in increasing order, none repeated (opm renders JSON that way).
fn keys_strictly_sorted(entries: &[Entry]) -> bool {
    entries.windows(2).all(|w| match w {
        [a, b] => a.key < b.key,
        _ => true,
    })
}

/// Whether some key of a mapping repeats an earlier one. The parsers ask once per mapping while
/// its entries are still in cache, so that the model re-walks only documents that have one.
pub fn has_repeated_key(entries: &[Entry]) -> bool {
    const SMALL: usize = 16;
    if entries.len() < 2 || keys_strictly_sorted(entries) {
        return false;
    }
    if entries.len() <= SMALL {
        let mut keys = [""; SMALL];
        for (k, e) in keys.iter_mut().zip(entries) {
            *k = &e.key;
        }
        let keys = keys.get(..entries.len()).unwrap_or_default();
        return keys
            .iter()
            .enumerate()
            .any(|(i, k)| keys.iter().take(i).any(|b| b == k));
    }
    let mut keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| matches!(w, [a, b] if a == b))
}

/// A mapping's entries as Go marshals the map: sorted by key, the last duplicate kept. Keys
/// usually arrive sorted and unique, which skips the sorting copy.
pub fn canonical_entries(entries: &[Entry]) -> CanonicalEntries<'_> {
    if keys_strictly_sorted(entries) {
        CanonicalEntries::AsWritten(entries)
    } else {
        CanonicalEntries::Sorted(dedup_sorted(entries))
    }
}

pub enum CanonicalEntries<'a> {
    AsWritten(&'a [Entry]),
    Sorted(Vec<&'a Entry>),
}

impl<'a> CanonicalEntries<'a> {
    fn len(&self) -> usize {
        match self {
            CanonicalEntries::AsWritten(e) => e.len(),
            CanonicalEntries::Sorted(e) => e.len(),
        }
    }

    fn get(&self, i: usize) -> Option<&'a Entry> {
        match self {
            CanonicalEntries::AsWritten(e) => e.get(i),
            CanonicalEntries::Sorted(e) => e.get(i).copied(),
        }
    }

    /// In reverse, for explicit stacks that pop them in order.
    fn rev(&self) -> impl Iterator<Item = &'a Entry> + '_ {
        (0..self.len()).rev().filter_map(|i| self.get(i))
    }

    /// In order.
    pub fn iter(&self) -> impl Iterator<Item = &'a Entry> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A scalar as canonical JSON prints it, for the scalars that can print alike across kinds:
/// `null` and every non-finite number print `null`; finite numbers print alike exactly when
/// their bits are equal (the shortest round-trip form; `-0` and `0` differ).
#[derive(PartialEq, Eq, Hash)]
enum NullOrNumber {
    Null,
    Bits(u64),
}

fn null_or_number(v: &Value) -> Option<NullOrNumber> {
    match v {
        Value::Null => Some(NullOrNumber::Null),
        Value::Number { value, .. } if !value.is_finite() => Some(NullOrNumber::Null),
        Value::Number { value, .. } => Some(NullOrNumber::Bits(value.to_bits())),
        _ => None,
    }
}

/// Entries sorted by key with the last duplicate kept (Go map semantics).
pub fn dedup_sorted(entries: &[Entry]) -> Vec<&Entry> {
    let mut v: Vec<(usize, &Entry)> = entries.iter().enumerate().collect();
    v.sort_by(|a, b| a.1.key.cmp(&b.1.key).then(b.0.cmp(&a.0)));
    v.dedup_by(|later, earlier| later.1.key == earlier.1.key);
    v.into_iter().map(|(_, e)| e).collect()
}

/// Go `encoding/json` string escaping with `SetEscapeHTML(false)`.
fn write_json_string(s: &str, out: &mut impl Sink) {
    out.push('"');
    // Fast path: nothing to escape (no quote, backslash, control byte, U+2028/U+2029).
    let plain = s
        .bytes()
        .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0xE2);
    if plain || !s.chars().any(needs_escape) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn needs_escape(c: char) -> bool {
    matches!(c, '"' | '\\' | '\u{2028}' | '\u{2029}') || (c as u32) < 0x20
}

/// Go's `strconv.FormatFloat(f, 'f' or 'e', -1, 64)` as `encoding/json` chooses between them.
pub fn format_go_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        let s = format!("{f}");
        if s == "-0" {
            return "-0".into();
        }
        s
    } else {
        // Rust: "1e21" / "1e-7"; Go: "1e+21" / "1e-07".
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((mant, exp)) => {
                let (sign, digits) = match exp.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', exp),
                };
                let pad = if digits.len() < 2 { "0" } else { "" };
                format!("{mant}e{sign}{pad}{digits}")
            }
            None => s,
        }
    }
}

/// A JSON pointer segment unescaped (RFC 6901: `~1` is `/`, `~0` is `~`).
pub fn unescape_segment(raw: &str) -> String {
    raw.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_float_formatting() {
        assert_eq!(format_go_float(1.0), "1");
        assert_eq!(format_go_float(1.1), "1.1");
        assert_eq!(
            format_go_float(12345678901234567890.0),
            "12345678901234567000"
        );
        assert_eq!(format_go_float(1e21), "1e+21");
        assert_eq!(format_go_float(1e-7), "1e-07");
        assert_eq!(format_go_float(0.000001), "0.000001");
    }

    #[test]
    fn canonical_equality_follows_the_printed_form() {
        let num = |value: f64| {
            Node::new(
                Span::default(),
                Style::Plain,
                Value::Number { value, int: false },
            )
        };
        let null = Node::new(Span::default(), Style::Plain, Value::Null);
        // Non-finite numbers print `null`; `-0` and `0` print differently; 1 and 1.0 alike.
        assert!(num(f64::INFINITY).canonical_eq(&null));
        assert!(num(f64::NAN).canonical_eq(&num(f64::NEG_INFINITY)));
        assert!(!num(-0.0).canonical_eq(&num(0.0)));
        assert!(num(1.0).canonical_eq(&Node::new(
            Span::default(),
            Style::Json,
            Value::Number {
                value: 1.0,
                int: true
            }
        )));
        let string = |s: &str| Node::new(Span::default(), Style::Plain, Value::String(s.into()));
        assert!(!string("null").canonical_eq(&null));
        assert!(!string("1").canonical_eq(&num(1.0)));
        for (a, b) in [(num(f64::INFINITY), null.clone()), (num(1.0), num(1.0))] {
            let h = |n: &Node| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                n.canonical_hash(&mut h);
                std::hash::Hasher::finish(&h)
            };
            assert_eq!(h(&a), h(&b));
            assert_eq!(a.canonical_json(), b.canonical_json());
        }
    }

    #[test]
    fn deep_tree_drops_and_encodes_without_recursion() {
        let mut n = Node::new(Span::default(), Style::Json, Value::Null);
        for _ in 0..200_000 {
            n = Node::new(Span::default(), Style::None, Value::Seq(vec![n]));
        }
        let s = n.canonical_json();
        assert_eq!(s.len(), 200_000 * 2 + 4);
        drop(n);
    }
}
