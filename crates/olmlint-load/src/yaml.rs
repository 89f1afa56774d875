//! YAML streams as `opm` reads them: documents split on `---` lines the way the Kubernetes
//! `YAMLReader` splits them, each document resolved with YAML 1.1 rules (go-yaml v2), which is
//! what `sigs.k8s.io/yaml` does before OLM ever sees JSON.

use super::elide::{Elide, VALUE_DEPTH};
use super::text::FileText;
use super::tree::{has_repeated_key, Entry, Node, Span, Style, Text, Value};
use super::{Expansion, RUN_ALIAS_FACTOR};
use super::{Limits, LoadProblem, RawDoc};
use saphyr_parser::{Event, Parser, ScalarStyle};
use std::borrow::Cow;

/// Split a YAML stream into document chunks exactly like k8s.io/apimachinery `YAMLReader.Read`:
/// a line starting with `---` ends the current chunk if it is non-empty; otherwise the
/// separator line itself becomes part of the next chunk. Only spaces or a comment may follow.
pub fn split_documents(text: &str, problems: &mut Vec<LoadProblem>) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut chunks = Vec::new();
    // Start of the current buffer; it holds content exactly when it starts before the next
    // separator line, since only separator lines end a buffer.
    let mut start = 0usize;
    let separators = memchr::memmem::find_iter(bytes, b"---")
        .filter(|&p| p == 0 || bytes.get(p - 1) == Some(&b'\n'));
    for pos in separators {
        let line_end = memchr::memchr(b'\n', bytes.get(pos..).unwrap_or_default())
            .map_or(text.len(), |i| pos + i + 1);
        let line = text.get(pos..line_end).unwrap_or("");
        let trimmed = line.get(3..).unwrap_or("").trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            problems.push(LoadProblem::syntax(
                Span::new(pos, pos + line.trim_end().len()),
                format!("invalid Yaml document separator: {trimmed}"),
                "A document separator line may only hold `---`, spaces and a comment; put the \
                 content on the next line.",
            ));
            return chunks;
        }
        if start < pos {
            chunks.push((start, pos));
            start = line_end;
        } else if line_end >= text.len() && !line.ends_with('\n') {
            // `---` at EOF with nothing buffered: end of stream.
            return chunks;
        }
        // Otherwise nothing is buffered and the separator line starts the next chunk.
    }
    if start < text.len() {
        chunks.push((start, text.len()));
    }
    chunks
}

/// One parsed chunk. `root` is `None` with no problem when the chunk holds no content (blank
/// lines or comments), which `opm` turns into a `null` document.
pub struct Chunk {
    pub root: Option<Node>,
    /// Some mapping repeats a key.
    pub repeated_keys: bool,
}

impl Chunk {
    fn failed() -> Self {
        Chunk {
            root: None,
            repeated_keys: false,
        }
    }
}

/// Parse one chunk into a node tree; what `elide` names stays unbuilt where that cannot
/// change a verdict (see [`super::elide`]).
pub(crate) fn parse_chunk(
    text: &str,
    offset: usize,
    file: Option<&FileText>,
    limits: &Limits,
    expanded: &Expansion,
    elide: Elide,
    problems: &mut Vec<LoadProblem>,
) -> Chunk {
    let subset = match screen(text) {
        Ok(subset) => subset,
        Err(at) => {
            problems.push(LoadProblem::syntax(
                Span::new(offset + at, offset + at + 1),
                "YAML syntax error: control characters are not allowed".to_string(),
                "libyaml (and so opm) accepts only printable characters in YAML: tab, line \
                 breaks and Unicode outside the C0/C1 control ranges, U+FFFE and U+FFFF. Remove the \
                 character, or write it as an escape (`\\x07`) inside a double-quoted string.",
            ));
            return Chunk::failed();
        }
    };
    let ctx = (file, limits, expanded);
    if elide != Elide::Nothing {
        if let Some(chunk) = parse_once(text, offset, ctx, elide, subset, problems) {
            return chunk;
        }
    }
    parse_once(text, offset, ctx, Elide::Nothing, subset, problems).unwrap_or_else(Chunk::failed)
}

/// One pass over every byte of a chunk for what must be known before it is scanned:
/// `Err` with the first byte of a character libyaml's reader rejects (yaml_parser_update_buffer:
/// C0 controls other than tab and line breaks, DEL, C1 controls other than NEL, U+FFFE,
/// U+FFFF), else `Ok` with whether the block-subset scanner may take the chunk (no carriage
/// return, NUL or byte order mark; see [`super::yaml_subset::scan`]).
///
/// Every byte of every YAML file passes here, so blocks of 64 bytes that are all printable
/// ASCII or line feeds (nearly all of a catalog: one block in five hundred is not) are let
/// through by a test that compiles to a few vector instructions; only the other blocks are
/// looked at byte by byte. A byte at a time, this check alone was a third of
/// community-v4.18's instructions (issue #44).
fn screen(text: &str) -> Result<bool, usize> {
    let b = text.as_bytes();
    let mut subset = true;
    let mut look = |from: usize, to: usize| -> Result<(), usize> {
        for i in from..to {
            if rejected_at(b, i) {
                return Err(i);
            }
            subset &= !leaves_subset_at(b, i);
        }
        Ok(())
    };
    let (blocks, _) = b.as_chunks::<64>();
    let mut at = 0;
    for block in blocks {
        if needs_a_look(block) {
            look(at, at + 64)?;
        }
        at += 64;
    }
    look(at, b.len())?;
    Ok(subset)
}

/// Whether a block holds a byte other than printable ASCII (0x20 to 0x7e: what is left of a
/// byte after subtracting 0x20, wrapping, is at most 0x5e) and line feed. Branch-free over a
/// fixed-size array, so that it vectorizes.
#[inline(always)]
fn needs_a_look(block: &[u8; 64]) -> bool {
    block.iter().fold(false, |odd, &c| {
        odd | ((c.wrapping_sub(0x20) > 0x5e) & (c != b'\n'))
    })
}

/// Whether the character at `b[i]` keeps the chunk from the block-subset scanner: a carriage
/// return, a NUL or a byte order mark (U+FEFF: EF BB BF).
fn leaves_subset_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(b'\r' | 0) => true,
        Some(0xef) => b.get(i + 1..i + 3) == Some(&[0xbb, 0xbf][..]),
        _ => false,
    }
}

/// Whether libyaml's reader rejects the character that starts at `b[i]` (see [`screen`]).
fn rejected_at(b: &[u8], i: usize) -> bool {
    let Some(&c) = b.get(i) else {
        return false;
    };
    match c {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => b
            .get(i + 1)
            .is_some_and(|&n| (0x80..=0x9f).contains(&n) && n != 0x85),
        0xef => b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)),
        _ => false,
    }
}

/// `None`: the elided tree may not be kept; parse again in full.
fn parse_once(
    text: &str,
    offset: usize,
    (file, limits, expanded): (Option<&FileText>, &Limits, &Expansion),
    elide: Elide,
    subset: bool,
    problems: &mut Vec<LoadProblem>,
) -> Option<Chunk> {
    // Most catalogs are plain block YAML: a scanner for that subset builds the same tree
    // several times faster, and hands anything else (including every error) to saphyr.
    // `subset`: the chunk holds no carriage return, NUL or byte order mark ([`screen`]).
    if subset {
        let mut builder = Builder::new(limits, expanded, file, elide);
        let fast = super::yaml_subset::scan_screened(text, offset, |event, span| {
            matches!(builder.event(event, span), Ok(true))
        });
        if fast.is_ok() || builder.needs_full {
            return builder.finish();
        }
        builder.abandon();
    }
    match saphyr_lenient(
        text,
        offset,
        || Builder::new(limits, expanded, file, elide),
        |b, event, span| b.event(event, span),
        Builder::abandon,
    ) {
        Ok(builder) => builder.finish(),
        Err(p) => {
            problems.push(p);
            Some(Chunk::failed())
        }
    }
}

/// saphyr over `text` (a chunk at file offset `offset`), made as lenient as libyaml where it
/// is stricter (see [`super::lenient`]): on a failure that is one of libyaml's leniencies the
/// text is adjusted there and parsed again, from a fresh state (`start`). `event` receives
/// every event with its span in the original file and returns whether to go on; the state
/// of an attempt that failed goes to `abandon` (which gives back what it counted). The state
/// of the attempt that got through, or the problem that stopped it.
pub(super) fn saphyr_lenient<S>(
    text: &str,
    offset: usize,
    mut start: impl FnMut() -> S,
    mut event: impl FnMut(&mut S, Event<'_>, Span) -> Result<bool, LoadProblem>,
    mut abandon: impl FnMut(S),
) -> Result<S, LoadProblem> {
    let mut lenient: Option<super::lenient::Lenient> = None;
    for _ in 0..=super::lenient::MAX_REPAIRS {
        let (info, at, file_at) = {
            let source = lenient.as_ref().map_or(text, |l| l.text.as_str());
            let to_file = |b: usize| offset + lenient.as_ref().map_or(b, |l| l.to_original(b));
            let mut index = CharIndex::new(source, 0);
            let mut state = start();
            let mut parser = Parser::new_from_str(source);
            let failure = loop {
                match parser.next_event() {
                    None => break None,
                    Some(Err(e)) => break Some(e),
                    Some(Ok((ev, span))) => {
                        let a = index.byte(span.start.index());
                        let b = index.byte(span.end.index());
                        if !event(&mut state, ev, Span::new(to_file(a), to_file(b)))? {
                            break None;
                        }
                    }
                }
            };
            let Some(e) = failure else {
                return Ok(state);
            };
            abandon(state);
            let at = index.byte(e.marker().index());
            (e.info().to_string(), at, to_file(at))
        };
        let l = lenient.get_or_insert_with(|| super::lenient::Lenient::new(text));
        if !l.repair(&info, at) {
            return Err(scan_problem(&info, file_at));
        }
    }
    Err(LoadProblem::syntax(
        Span::new(offset, offset + 1),
        format!(
            "YAML document needs more than {} adjustments to be read like libyaml reads it",
            super::lenient::MAX_REPAIRS
        ),
        "olmlint reads quoted scalars whose continuation lines are not indented (and a few other \
         constructs libyaml accepts) by adjusting the text for its parser, a bounded number of \
         times per document. Indent the continuation lines of multi-line quoted strings deeper \
         than their key.",
    ))
}

fn scan_problem(info: &str, at: usize) -> LoadProblem {
    let help = if info.contains("tab") {
        "YAML forbids tabs in indentation; indent with spaces.".to_string()
    } else if info.contains("mapping values are not allowed") {
        "A plain scalar cannot contain `: `; quote the value.".to_string()
    } else {
        "Fix the YAML syntax at this position; `opm` rejects the whole catalog on it.".to_string()
    };
    LoadProblem::syntax(
        Span::new(at, at + 1),
        format!("YAML syntax error: {info}"),
        &help,
    )
}

/// Maps saphyr's character indices to byte offsets in the file. Events arrive in document
/// order, so a cursor that walks the text from the previous answer costs O(1) amortized per
/// lookup and no memory (a table of every char's offset cost 4 bytes per char).
pub(super) struct CharIndex<'t> {
    text: &'t str,
    offset: usize,
    ascii: bool,
    /// The cursor: a char index and its byte offset (always on a char boundary).
    chars: usize,
    bytes: usize,
}

impl<'t> CharIndex<'t> {
    pub(super) fn new(text: &'t str, offset: usize) -> Self {
        CharIndex {
            text,
            offset,
            ascii: text.is_ascii(),
            chars: 0,
            bytes: 0,
        }
    }

    pub(super) fn byte(&mut self, char_index: usize) -> usize {
        let b = self.text.as_bytes();
        if self.ascii {
            return self.offset + char_index.min(b.len());
        }
        while self.chars < char_index && self.bytes < b.len() {
            self.bytes += utf8_width(b.get(self.bytes).copied().unwrap_or(0));
            self.chars += 1;
        }
        while self.chars > char_index {
            self.bytes -= 1;
            while !self.text.is_char_boundary(self.bytes) {
                self.bytes -= 1;
            }
            self.chars -= 1;
        }
        self.offset + self.bytes.min(b.len())
    }
}

/// Length of the UTF-8 sequence a leading byte starts.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// An open collection. Its children so far sit on the builder's shared `items` / `entries`
/// stacks from `base` on, so each finished collection is one exact-size allocation instead of
/// a vector grown by doubling.
enum Frame {
    Seq {
        start: u32,
        anchor: usize,
        base: usize,
    },
    Map {
        start: u32,
        anchor: usize,
        base: usize,
        key: Option<(olmlint_base::tree::Text, Span)>,
    },
}

/// An open collection inside an elided value: nothing is built, keys are hashed.
struct Skipped {
    start: u32,
    map: bool,
    keys: usize,
    /// In a mapping: the next scalar is a key.
    want_key: bool,
    /// End of the last finished value (the span end rule of the full builder).
    last_end: Option<u32>,
}

struct Builder<'a> {
    limits: &'a Limits,
    stack: Vec<Frame>,
    items: Vec<Node>,
    entries: Vec<Entry>,
    /// Anchored nodes with their expansion cost: (nodes, bytes of keys and strings).
    anchors: std::collections::HashMap<usize, (Node, (u64, u64))>,
    /// Values built in this document.
    nodes: u64,
    /// Alias expansion so far in the whole file (shared by its documents).
    expanded: &'a Expansion,
    /// The file the text is part of: long scalars written verbatim stay ranges of it.
    file: Option<&'a FileText>,
    root: Option<Node>,
    done: bool,
    repeated_keys: bool,
    /// What may stay unbuilt.
    elide: Elide,
    /// The `value` mapping on top of the stack (`VALUE_DEPTH + 1` open collections) is an
    /// `olm.csv.metadata` value: collections opened in it are skipped.
    in_elided_value: bool,
    /// Open collections inside an elided value.
    skipped: Vec<Skipped>,
    skipped_keys: super::elide::KeyHashes,
    /// Something was elided.
    elided: bool,
    /// An elided part needs the full builder: stop and parse again.
    needs_full: bool,
    /// Alias expansion this builder added to the file's and the run's budgets.
    expanded_here: (u64, u64),
    /// The document was kept: its expansion stays counted in the run's budget (a dropped
    /// document's copies are freed, so it gives its share back).
    kept: bool,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        if !self.kept {
            let (n, b) = self.expanded_here;
            self.limits.run_expansion.sub(n, b);
        }
    }
}

impl<'a> Builder<'a> {
    fn new(
        limits: &'a Limits,
        expanded: &'a Expansion,
        file: Option<&'a FileText>,
        elide: Elide,
    ) -> Self {
        Builder {
            elide,
            in_elided_value: false,
            skipped: Vec::new(),
            skipped_keys: Default::default(),
            elided: false,
            needs_full: false,
            expanded_here: (0, 0),
            kept: false,
            file,
            limits,
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            anchors: Default::default(),
            expanded,
            nodes: 0,
            root: None,
            done: false,
            repeated_keys: false,
        }
    }

    /// A parse attempt that is dropped gives back the alias budget it counted (the next
    /// attempt counts the same aliases again).
    fn abandon(self) {
        let (n, b) = self.expanded_here;
        self.expanded.sub(n, b);
    }

    /// `None` when elided parts must be built after all; the alias budget this pass used is
    /// returned, as the full pass counts it again. An alias may have copied an elided part
    /// elsewhere, so a document with both is built in full too.
    fn finish(mut self) -> Option<Chunk> {
        if self.elided
            && (self.needs_full
                || self.expanded_here != (0, 0)
                || !super::elide::keep(self.elide, self.root.as_ref(), self.repeated_keys))
        {
            let (n, b) = self.expanded_here;
            self.expanded.sub(n, b);
            return None;
        }
        self.kept = true;
        Some(Chunk {
            root: self.root.take(),
            repeated_keys: self.repeated_keys,
        })
    }

    /// Returns Ok(false) once the first document is complete. Most events of a catalog are
    /// inside elided values: their short path is inlined into the scanner.
    #[inline(always)]
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<bool, LoadProblem> {
        if !self.skipped.is_empty() {
            return self.skipped_event(event, span);
        }
        self.built_event(event, span)
    }

    #[inline(never)]
    fn built_event(&mut self, event: Event<'_>, span: Span) -> Result<bool, LoadProblem> {
        match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => Ok(true),
            Event::DocumentEnd | Event::StreamEnd => Ok(!self.done),
            Event::Scalar(text, style, anchor, tag) => {
                let (style, value) =
                    resolve_scalar(text, style, is_str_tag(tag.as_deref()), self.file);
                self.scalar(style, value, anchor, span)
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _)
                if anchor == 0
                    && ((self.in_elided_value
                        && self.stack.len() == VALUE_DEPTH + 1
                        && !super::elide::built(self.top_key()))
                        || self.manifest_skips()) =>
            {
                let map = matches!(event, Event::MappingStart(..));
                self.skip_open(map, span)
            }
            Event::SequenceStart(anchor, _) => self.open(
                Frame::Seq {
                    start: span.start,
                    anchor,
                    base: self.items.len(),
                },
                span,
            ),
            Event::MappingStart(anchor, _) => {
                if self.elide == Elide::CsvMetadata && self.stack.len() == VALUE_DEPTH {
                    self.in_elided_value = anchor == 0 && self.opens_elided_value();
                }
                self.open(
                    Frame::Map {
                        start: span.start,
                        anchor,
                        base: self.entries.len(),
                        key: None,
                    },
                    span,
                )
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(span),
            Event::Alias(id) => self.alias(id, span),
        }
    }

    /// A resolved scalar: a mapping key keeps only its text; a value becomes a node
    /// (remembered when anchored).
    fn scalar(
        &mut self,
        style: Style,
        mut value: Value,
        anchor: usize,
        span: Span,
    ) -> Result<bool, LoadProblem> {
        if anchor == 0 {
            if let Some(Frame::Map {
                key: key @ None, ..
            }) = self.stack.last_mut()
            {
                // A key keeps only its text: no node to build and drop.
                if let Some(k) = key_text(&mut value) {
                    *key = Some((k, span));
                    return self.count_node(span);
                }
            }
        }
        let node = Node::new(span, style, value);
        self.remember_anchor(anchor, &node);
        self.push_value(node)
    }

    /// Keeps a copy of an anchored node, with its expansion cost, for the aliases to it.
    fn remember_anchor(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            let cost = expansion_cost(node);
            self.anchors.insert(anchor, (node.clone(), cost));
        }
    }

    /// The end of the innermost collection: its node, from the children on the shared
    /// stacks (a mapping's merge keys applied), ends at its last child or at `span`.
    fn close(&mut self, span: Span) -> Result<bool, LoadProblem> {
        let Some(frame) = self.stack.pop() else {
            return Ok(true);
        };
        if self.stack.len() == VALUE_DEPTH {
            self.in_elided_value = false;
        }
        let (node, anchor) = match frame {
            Frame::Seq {
                start,
                anchor,
                base,
            } => {
                let items: Vec<Node> = self.items.drain(base..).collect();
                let end = items.last().map_or(span.end, |n| n.span.end.max(span.end));
                (
                    Node::new(Span { start, end }, Style::None, Value::Seq(items)),
                    anchor,
                )
            }
            Frame::Map {
                start,
                anchor,
                base,
                ..
            } => {
                let entries: Vec<Entry> = self.entries.drain(base..).collect();
                let end = entries
                    .last()
                    .map_or(span.end, |e| e.value.span.end.max(span.end));
                let entries = apply_merge_keys(entries);
                self.repeated_keys |= has_repeated_key(&entries);
                (
                    Node::new(Span { start, end }, Style::None, Value::Map(entries)),
                    anchor,
                )
            }
        };
        self.remember_anchor(anchor, &node);
        self.push_value(node)
    }

    /// An alias: a copy of its anchored node at the alias's span, counted against the
    /// file's and the run's alias budgets.
    fn alias(&mut self, id: usize, span: Span) -> Result<bool, LoadProblem> {
        let Some((node, cost)) = self.anchors.get(&id) else {
            return Err(LoadProblem::syntax(
                span,
                "unknown anchor".into(),
                "Define the anchor before using the alias.",
            ));
        };
        let (n, b) = *cost;
        self.expanded_here.0 += n;
        self.expanded_here.1 += b;
        let file = self.expanded.add(n, b);
        let run = self.limits.run_expansion.add(n, b);
        if let Some(message) = self.alias_budget_exceeded(file, run) {
            return Err(LoadProblem::limit(
                span,
                message,
                "Catalogs do not need YAML aliases; write the values out. The limits are \
                 `limits.max-alias-nodes` and `limits.max-alias-bytes` in .olmlint.yaml \
                 (per file; the whole run allows four times as much).",
            ));
        }
        let mut copy = node.clone();
        copy.span = span;
        self.push_value(copy)
    }

    /// What an alias expansion that brings the file's total to `file` and the run's to
    /// `run` (nodes, bytes) exceeds, if anything.
    fn alias_budget_exceeded(&self, file: (u64, u64), run: (u64, u64)) -> Option<String> {
        let (max_n, max_b) = (self.limits.max_alias_nodes, self.limits.max_alias_bytes);
        if file.0 > max_n {
            Some(format!(
                "YAML aliases expand to more than {max_n} nodes in this file (an alias bomb?)"
            ))
        } else if file.1 > max_b {
            Some(format!(
                "YAML aliases copy more than {max_b} bytes of text in this file (an alias bomb?)"
            ))
        } else if run.0 > max_n.saturating_mul(RUN_ALIAS_FACTOR) {
            Some(format!("YAML aliases expand to more than {} nodes in all files of this run together (an alias bomb spread over files?)", max_n.saturating_mul(RUN_ALIAS_FACTOR)))
        } else if run.1 > max_b.saturating_mul(RUN_ALIAS_FACTOR) {
            Some(format!("YAML aliases copy more than {} bytes of text in all files of this run together (an alias bomb spread over files?)", max_b.saturating_mul(RUN_ALIAS_FACTOR)))
        } else {
            None
        }
    }

    fn open(&mut self, frame: Frame, span: Span) -> Result<bool, LoadProblem> {
        self.check_depth(span)?;
        self.stack.push(frame);
        Ok(true)
    }

    fn check_depth(&self, span: Span) -> Result<(), LoadProblem> {
        if self.stack.len() + self.skipped.len() >= self.limits.max_depth {
            return Err(LoadProblem::limit(
                span,
                format!(
                    "document nests deeper than {} levels",
                    self.limits.max_depth
                ),
                "Go's JSON decoder, which opm uses, stops at 10000 nested containers. The limit \
                 is `limits.max-depth` in .olmlint.yaml.",
            ));
        }
        Ok(())
    }

    /// The key being read in the innermost open mapping.
    fn top_key(&self) -> Option<&str> {
        match self.stack.last() {
            Some(Frame::Map {
                key: Some((k, _)), ..
            }) => Some(k.as_str()),
            _ => None,
        }
    }

    /// Whether the mapping about to open is an `olm.csv.metadata` value.
    fn opens_elided_value(&self) -> bool {
        fn key(f: Option<&Frame>) -> Option<&str> {
            match f {
                Some(Frame::Map {
                    key: Some((k, _)), ..
                }) => Some(k.as_str()),
                _ => None,
            }
        }
        let item = match self.stack.get(2) {
            Some(Frame::Map { base, .. }) => self.entries.get(*base..).unwrap_or_default(),
            _ => return false,
        };
        matches!(self.stack.get(1), Some(Frame::Seq { .. }))
            && super::elide::is_elided_value(key(self.stack.first()), key(self.stack.get(2)), item)
    }

    /// Whether the collection about to open is a part of a bundle manifest left unbuilt
    /// ([`super::elide::manifest_skips`]).
    fn manifest_skips(&self) -> bool {
        use super::elide::Step;
        if self.elide != Elide::Manifest || self.stack.len() > 4 {
            return false;
        }
        let Some(Frame::Map { base, .. }) = self.stack.first() else {
            return false;
        };
        // The root's entries: those before the next open mapping's.
        let end = self
            .stack
            .iter()
            .skip(1)
            .find_map(|f| match f {
                Frame::Map { base, .. } => Some(*base),
                Frame::Seq { .. } => None,
            })
            .unwrap_or(self.entries.len());
        let kind = self
            .entries
            .get(*base..end)
            .unwrap_or_default()
            .iter()
            .find(|e| &*e.key == "kind")
            .and_then(|e| e.value.as_str());
        let mut path = [Step::Item; 4];
        for (step, frame) in path.iter_mut().zip(&self.stack) {
            *step = match frame {
                Frame::Map {
                    key: Some((k, _)), ..
                } => Step::Key(k.as_str()),
                Frame::Map { key: None, .. } => Step::KeyPosition,
                Frame::Seq { .. } => Step::Item,
            };
        }
        let path = path.get(..self.stack.len()).unwrap_or_default();
        super::elide::manifest_skips(&super::elide::ManifestPlace { kind, path })
    }

    /// Opens a collection inside an elided value.
    fn skip_open(&mut self, map: bool, span: Span) -> Result<bool, LoadProblem> {
        self.check_depth(span)?;
        self.elided = true;
        self.skipped.push(Skipped {
            start: span.start,
            map,
            keys: self.skipped_keys.base(),
            want_key: map,
            last_end: None,
        });
        Ok(true)
    }

    /// An event inside an elided value: counted and checked like the full builder does,
    /// nothing built. Ok(false) stops the pass when only the full builder can go on.
    #[inline(always)]
    fn skipped_event(&mut self, event: Event<'_>, span: Span) -> Result<bool, LoadProblem> {
        let want_key = self.skipped.last().is_some_and(|s| s.want_key);
        match event {
            Event::Scalar(text, style, 0, tag) => {
                if want_key {
                    if text == "<<" {
                        // A possible merge key: only the full builder merges.
                        return Ok(self.full());
                    }
                    // The key's JSON text, as the full builder's `key_text` makes it.
                    let plain = style == ScalarStyle::Plain;
                    match resolve_untagged(&text, plain, is_str_tag(tag.as_deref())) {
                        Some(mut v) => self
                            .skipped_keys
                            .push(&key_text(&mut v).unwrap_or_default()),
                        None => self.skipped_keys.push(&text),
                    }
                    if let Some(s) = self.skipped.last_mut() {
                        s.want_key = false;
                    }
                    self.count_node(span)
                } else {
                    self.skipped_value_done(span.end);
                    self.count_node(span)
                }
            }
            Event::SequenceStart(0, _) | Event::MappingStart(0, _) if !want_key => {
                let map = matches!(event, Event::MappingStart(..));
                self.skip_open(map, span)
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(s) = self.skipped.pop() else {
                    return Ok(true);
                };
                if s.map {
                    self.repeated_keys |= self.skipped_keys.close(s.keys);
                    if self.repeated_keys {
                        return Ok(self.full());
                    }
                }
                let end = s.last_end.map_or(span.end, |e| e.max(span.end));
                let whole = Span {
                    start: s.start,
                    end,
                };
                if self.skipped.is_empty() {
                    return self.push_value(Node::new(
                        whole,
                        Style::None,
                        Value::Elided { map: s.map },
                    ));
                }
                self.skipped_value_done(end);
                self.count_node(whole)
            }
            // Anchors, aliases, collections as keys, stream events: the full builder's.
            _ => Ok(self.full()),
        }
    }

    /// A value inside an elided collection ended at `end`.
    fn skipped_value_done(&mut self, end: u32) {
        if let Some(s) = self.skipped.last_mut() {
            s.want_key = s.map;
            s.last_end = Some(end);
        }
    }

    fn full(&mut self) -> bool {
        self.needs_full = true;
        false
    }

    #[inline]
    fn count_node(&mut self, span: Span) -> Result<bool, LoadProblem> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(super::json::too_many_nodes(
                span.start(),
                self.limits.max_nodes,
            ));
        }
        Ok(true)
    }

    fn push_value(&mut self, node: Node) -> Result<bool, LoadProblem> {
        self.count_node(node.span)?;
        match self.stack.last_mut() {
            None => {
                self.root = Some(node);
                self.done = true;
                Ok(true)
            }
            Some(Frame::Seq { .. }) => {
                self.items.push(node);
                Ok(true)
            }
            Some(Frame::Map { key, .. }) => {
                match key.take() {
                    None => {
                        let span = node.span;
                        let k = key_string(node).ok_or_else(|| {
                            LoadProblem::syntax(
                                span,
                                "a mapping key must be a scalar".into(),
                                "JSON objects only have string keys; use a plain string key.",
                            )
                        })?;
                        *key = Some((k, span));
                    }
                    Some((k, key_span)) => self.entries.push(Entry {
                        key: k,
                        key_span,
                        value: node,
                    }),
                }
                Ok(true)
            }
        }
    }
}

/// How sigs.k8s.io/yaml turns a non-string key into a JSON key.
fn key_string(mut node: Node) -> Option<olmlint_base::tree::Text> {
    key_text(&mut node.value)
}

fn key_text(value: &mut Value) -> Option<olmlint_base::tree::Text> {
    Some(match value {
        Value::String(s) => std::mem::take(s),
        Value::Null => "null".into(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Number { value, .. } => super::tree::format_go_float(*value).into(),
        Value::Seq(_) | Value::Map(_) | Value::Elided { .. } => return None,
    })
}

/// YAML merge keys (`<<: *base`): merged entries never override explicit ones.
fn apply_merge_keys(entries: Vec<Entry>) -> Vec<Entry> {
    if !entries
        .iter()
        .any(|e| &*e.key == "<<" && e.value.style != Style::SingleQuoted)
    {
        return entries;
    }
    let mut out: Vec<Entry> = Vec::with_capacity(entries.len());
    let mut merged: Vec<Entry> = Vec::new();
    for e in entries {
        if &*e.key == "<<" {
            match e.value.value.clone() {
                Value::Map(m) => merged.extend(m),
                Value::Seq(items) => {
                    for item in items {
                        if let Value::Map(m) = item.value.clone() {
                            merged.extend(m);
                        }
                    }
                }
                _ => out.push(e),
            }
        } else {
            out.push(e);
        }
    }
    // Explicit keys win over merged ones, earlier merged maps over later ones.
    let mut seen: std::collections::HashSet<String> =
        out.iter().map(|e| e.key.to_string()).collect();
    for m in merged {
        if seen.insert(m.key.to_string()) {
            out.push(m);
        }
    }
    out
}

/// go-yaml v2 `resolve` for one scalar.
fn resolve_scalar(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag_is_str: bool,
    file: Option<&FileText>,
) -> (Style, Value) {
    let style = match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    };
    let value = resolve_untagged(&text, style == Style::Plain, tag_is_str)
        .unwrap_or_else(|| Value::String(Text::from_cow(file, text)));
    (style, value)
}

/// The non-string value a plain scalar without `!!str` resolves to (`None`: a string).
fn resolve_untagged(text: &str, plain: bool, tag_is_str: bool) -> Option<Value> {
    (plain && !tag_is_str)
        .then(|| resolve_plain(text))
        .flatten()
}

fn is_str_tag(tag: Option<&saphyr_parser::Tag>) -> bool {
    tag.is_some_and(|t| t.suffix == "str")
}

pub fn resolve_plain(s: &str) -> Option<Value> {
    // Every null, bool and number below starts with one of these bytes; most keys and words
    // of a catalog (`kind`, `value`, `group`, `description`) do not.
    match s.as_bytes().first() {
        Some(b'~' | b'n' | b'N' | b'y' | b'Y' | b't' | b'T' | b'f' | b'F' | b'o' | b'O')
        | Some(b'.' | b'+' | b'-' | b'0'..=b'9')
        | None => resolve_words_and_numbers(s),
        Some(_) => None,
    }
}

/// [`resolve_plain`] without its look at the first byte.
fn resolve_words_and_numbers(s: &str) -> Option<Value> {
    // Every word below is at most five bytes; longer scalars can only be numbers.
    let numeric_start = |c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.');
    if s.len() > 5 && !s.starts_with(numeric_start) {
        return None;
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Some(Value::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Some(Value::Bool(false))
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Value::Number {
                value: f64::INFINITY,
                int: false,
            })
        }
        "-.inf" | "-.Inf" | "-.INF" => {
            return Some(Value::Number {
                value: f64::NEG_INFINITY,
                int: false,
            })
        }
        ".nan" | ".NaN" | ".NAN" => {
            return Some(Value::Number {
                value: f64::NAN,
                int: false,
            })
        }
        _ => {}
    }
    if !s.starts_with(numeric_start) {
        return None;
    }
    let plain: Cow<'_, str> = if s.contains('_') {
        Cow::Owned(s.replace('_', ""))
    } else {
        Cow::Borrowed(s)
    };
    if let Some(v) = go_parse_int(&plain) {
        return Some(Value::Number {
            value: v,
            int: true,
        });
    }
    if is_yaml_float(&plain) {
        return plain
            .parse::<f64>()
            .ok()
            .map(|value| Value::Number { value, int: false });
    }
    None
}

/// Go `strconv.ParseInt(s, 0, 64)` then `ParseUint`: sign, then 0x / 0o / 0b / leading-0 octal.
fn go_parse_int(s: &str) -> Option<f64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, s.get(1..)?),
        b'+' => (false, s.get(1..)?),
        _ => (false, s),
    };
    let (radix, digits) =
        if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, d)
        } else if let Some(d) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (8, d)
        } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (2, d)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, body.get(1..)?)
        } else {
            (10, body)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        if v > i64::MAX as u64 + 1 {
            return None;
        }
        Some(-(v as f64))
    } else {
        Some(v as f64)
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let st = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - st
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Whether `text` may hold both an anchor and an alias (`&name` and `*name` where a node can
/// start). False positives only cost parallelism.
pub(crate) fn may_use_aliases(text: &str) -> bool {
    let b = text.as_bytes();
    let marker = |sigil: u8| {
        memchr::memchr_iter(sigil, b).any(|i| {
            let pre = i.checked_sub(1).and_then(|p| b.get(p));
            let starts = pre.is_none_or(|p| {
                matches!(p, b' ' | b'\n' | b'\t' | b'[' | b'{' | b',' | b'-' | b':')
            });
            starts
                && (i == 0
                    || b.get(i + 1).is_some_and(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
                    }))
        })
    };
    marker(b'&') && marker(b'*')
}

/// What copying `node` through an alias costs: its nodes, and the bytes of its keys and
/// strings (a long string is one node however large it is).
fn expansion_cost(node: &Node) -> (u64, u64) {
    let (mut nodes, mut bytes) = (0u64, 0u64);
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        nodes += 1;
        match &n.value {
            Value::String(t) => bytes += t.as_str().len() as u64,
            Value::Seq(items) => stack.extend(items.iter()),
            Value::Map(entries) => {
                for e in entries {
                    bytes += e.key.as_str().len() as u64;
                    stack.push(&e.value);
                }
            }
            _ => {}
        }
    }
    (nodes, bytes)
}

/// Parse every document of a YAML file; with `elide`, the nested values of an `olm.bundle`'s
/// `olm.csv.metadata` properties stay unbuilt (see [`super::elide`]).
pub fn parse_stream(
    text: &str,
    base: usize,
    file: Option<&FileText>,
    limits: &Limits,
    elide: bool,
    problems: &mut Vec<LoadProblem>,
) -> Vec<RawDoc> {
    let elide = Elide::csv_metadata(elide);
    parse_stream_eliding(text, base, file, limits, elide, problems)
}

/// [`parse_stream`], leaving unbuilt what `elide` names.
pub(crate) fn parse_stream_eliding(
    text: &str,
    base: usize,
    file: Option<&FileText>,
    limits: &Limits,
    elide: Elide,
    problems: &mut Vec<LoadProblem>,
) -> Vec<RawDoc> {
    let chunks = split_documents(text, problems);
    // The alias budget is per file, so that many documents each just under it cannot add up.
    let expanded = Expansion::default();
    // Large files: parse their documents in parallel, then keep opm's semantics (the file
    // stops at its first failing document). Files that may use aliases are parsed in order,
    // so which document exhausts the shared budget does not depend on scheduling.
    let parse = |&(s, e): &(usize, usize)| {
        let mut local = Vec::new();
        let chunk = text.get(s..e).unwrap_or("");
        let parsed = parse_chunk(chunk, base + s, file, limits, &expanded, elide, &mut local);
        (s, e, parsed, local)
    };
    let parsed: Vec<(usize, usize, Chunk, Vec<LoadProblem>)> =
        if text.len() > 1 << 20 && !may_use_aliases(text) {
            use rayon::prelude::*;
            chunks.par_iter().map(parse).collect()
        } else {
            chunks.iter().map(parse).collect()
        };
    let mut docs = Vec::with_capacity(parsed.len());
    for (i, (s, e, chunk, local)) in parsed.into_iter().enumerate() {
        let failed = !local.is_empty();
        problems.extend(local);
        docs.push(RawDoc {
            index: i,
            span: Span::new(base + s, base + e),
            root: chunk.root,
            failed,
            repeated_keys: chunk.repeated_keys,
        });
        if failed {
            // opm stops at the first decode error in a file.
            break;
        }
    }
    docs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`screen`] a byte at a time, as the control-character check was before it skipped
    /// blocks; the subset verdict as the scanner's own precheck states it.
    fn screen_bytewise(text: &str) -> Result<bool, usize> {
        match (0..text.len()).find(|&i| rejected_at(text.as_bytes(), i)) {
            Some(i) => Err(i),
            None => Ok(!(text.contains('\r') || text.contains('\0') || text.contains('\u{feff}'))),
        }
    }

    #[test]
    fn screen_finds_the_first_rejected_character_at_every_alignment() {
        let odd = [
            "\0", "\x01", "\t", "\n", "\r", "\x1f", " ", "~", "\x7f", "\u{80}", "\u{85}", "\u{9f}",
            "\u{a0}", "\u{2028}", "\u{fffd}", "\u{feff}", "\u{fffe}", "\u{ffff}", "é", "😀",
        ];
        // Lengths past two blocks, so that each character lands at every place of a block,
        // on both sides of a block boundary and in the tail after the last whole block.
        for len in 0..140 {
            for at in 0..=len {
                for a in odd {
                    for b in ["", "\x07", "\u{fffe}", "\n", "\r", "\u{feff}", "é"] {
                        let text = format!("{}{a}{}{b}", "k".repeat(at), "v".repeat(len - at));
                        assert_eq!(screen(&text), screen_bytewise(&text), "{text:?}");
                    }
                }
            }
        }
        assert_eq!(screen("abcdefg\u{85}h\x7f"), Err(10));
        assert_eq!(screen("abcdefg\u{9f}"), Err(7));
        assert_eq!(screen("abcdef\u{ffff}"), Err(6));
        assert_eq!(screen("name: a\n  b: \"\t\"\r\n"), Ok(false));
        assert_eq!(screen(&"name: value\n".repeat(9)), Ok(true));
        assert_eq!(screen(&format!("{}\u{feff}", "k".repeat(70))), Ok(false));
        assert_eq!(screen(&format!("{}\u{fefe}", "k".repeat(70))), Ok(true));
        assert_eq!(screen(&format!("{}\x7f", "k".repeat(64))), Err(64));
    }

    proptest::proptest! {
        #[test]
        fn screen_equals_the_bytewise_scan(text in "([ -~]{0,80}[\\x00-\\x{a0}\\x{2028}\\x{fefe}-\\x{feff}\\x{fffd}-\\x{ffff}é😀]?){0,8}") {
            proptest::prop_assert_eq!(screen(&text), screen_bytewise(&text));
        }
    }

    fn split(t: &str) -> Vec<&str> {
        let mut p = Vec::new();
        split_documents(t, &mut p)
            .into_iter()
            .map(|(s, e)| &t[s..e])
            .collect()
    }

    #[test]
    fn splits_like_the_kubernetes_yaml_reader() {
        assert_eq!(split("a: 1\n---\nb: 2\n"), vec!["a: 1\n", "b: 2\n"]);
        assert_eq!(split("---\na: 1\n"), vec!["---\na: 1\n"]);
        assert_eq!(split("---\n---\na: 1\n"), vec!["---\n", "a: 1\n"]);
        assert_eq!(split("a: 1\n---\n"), vec!["a: 1\n"]);
        assert_eq!(split("a: 1\n---"), vec!["a: 1\n"]);
        assert_eq!(split("a: 1\n---\n\n"), vec!["a: 1\n", "\n"]);
        assert_eq!(split("# c\n---\na: 1\n"), vec!["# c\n", "a: 1\n"]);
        assert_eq!(split(""), Vec::<&str>::new());
    }

    proptest::proptest! {
        /// The look at the first byte changes no verdict: words, numbers and near misses
        /// (every YAML 1.1 word with any first character) resolve as without it.
        #[test]
        fn resolve_plain_equals_the_full_resolution(
            s in "[~a-zA-Z0-9._+-]{0,6}|[\\x00-\\x{ff}][uUlLeEsSrRaAnNfFi_.0-9x]{0,5}"
        ) {
            proptest::prop_assert_eq!(
                format!("{:?}", resolve_plain(&s)),
                format!("{:?}", resolve_words_and_numbers(&s))
            );
        }
    }

    #[test]
    fn resolve_plain_looks_past_the_first_byte_only_when_it_may_start_a_value() {
        let words = [
            "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
            "on", "On", "ON", "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off",
            "OFF", ".inf", "+.Inf", "-.INF", ".nan", ".NaN", "0755", "0x1F", "1e3", "-1", "+2",
            "1_000", ".5",
        ];
        for w in words {
            assert!(resolve_plain(w).is_some(), "{w:?}");
            for c in ['k', 'A', 'Z', '_', '"', 'é', ' '] {
                let other: String = std::iter::once(c).chain(w.chars().skip(1)).collect();
                assert_eq!(
                    format!("{:?}", resolve_plain(&other)),
                    format!("{:?}", resolve_words_and_numbers(&other)),
                    "{other:?}"
                );
            }
        }
    }

    #[test]
    fn yaml11_scalars() {
        assert_eq!(resolve_plain("yes"), Some(Value::Bool(true)));
        assert_eq!(resolve_plain("Off"), Some(Value::Bool(false)));
        assert_eq!(
            resolve_plain("0755"),
            Some(Value::Number {
                value: 493.0,
                int: true
            })
        );
        assert_eq!(
            resolve_plain("1.10"),
            Some(Value::Number {
                value: 1.1,
                int: false
            })
        );
        assert_eq!(
            resolve_plain("0x1F"),
            Some(Value::Number {
                value: 31.0,
                int: true
            })
        );
        assert_eq!(
            resolve_plain("1e3"),
            Some(Value::Number {
                value: 1000.0,
                int: false
            })
        );
        assert_eq!(resolve_plain("2020-01-01"), None);
        assert_eq!(resolve_plain("1.0.0"), None);
        assert_eq!(
            resolve_plain("08"),
            Some(Value::Number {
                value: 8.0,
                int: false
            })
        );
        assert_eq!(resolve_plain("~"), Some(Value::Null));
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            y.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n", p = i - 1));
        }
        let mut p = Vec::new();
        let limits = Limits::default();
        assert!(parse_chunk(
            &y,
            0,
            None,
            &limits,
            &Expansion::default(),
            Elide::Nothing,
            &mut p
        )
        .root
        .is_none());
        assert!(p[0].message.contains("alias"));
    }
}
