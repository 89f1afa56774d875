//! A fast path for the block-style YAML that `opm render`, go-yaml and most hand-written
//! catalogs use: block mappings and sequences, plain, single- and double-quoted scalars,
//! literal and folded block scalars, comments, and the empty flow collections `[]` and `{}`.
//!
//! It emits exactly the events saphyr-parser emits for the same text (values, styles and byte
//! spans, including saphyr's choices for empty values and collection ends) and gives up with
//! [`Unsupported`] on everything else: anchors, aliases, tags, flow collections with content,
//! tabs, CR line ends, byte order marks and anything saphyr would reject. The
//! caller then parses the chunk with saphyr, so results never depend on which path ran. The
//! tests compare both event streams on the corpus and on generated and mutated documents.

use super::tree::Span;
use saphyr_parser::{Event, ScalarStyle};
use std::borrow::Cow;

/// The chunk leaves the subset (from byte `at` of the chunk); parse it with saphyr instead.
#[derive(Debug)]
pub struct Unsupported {
    pub at: usize,
}

/// Internal early exit; [`scan`] adds the position.
struct Leave;

type R<T> = Result<T, Leave>;

/// Nesting beyond this goes to saphyr, whose builder reports the configured limit; it also
/// bounds this scanner's recursion.
const MAX_DEPTH: usize = 128;
/// saphyr forgets a simple key after 1024 characters; stay well below.
const MAX_KEY_BYTES: usize = 1000;

/// Scan one document chunk, calling `emit` for each event with its byte span (`offset` added).
/// `emit` returns false to abandon the fast path (the builder hit a limit), which the caller
/// treats like any other [`Unsupported`].
pub fn scan<'t>(
    text: &'t str,
    offset: usize,
    emit: impl FnMut(Event<'t>, Span) -> bool,
) -> Result<(), Unsupported> {
    if has_cr_nul_or_bom(text.as_bytes()) {
        return Err(Unsupported { at: 0 });
    }
    scan_screened(text, offset, emit)
}

/// [`scan`] of a chunk already known to hold no carriage return, NUL or byte order mark (the
/// YAML loader finds that out in the pass that looks for control characters).
pub(super) fn scan_screened<'t>(
    text: &'t str,
    offset: usize,
    emit: impl FnMut(Event<'t>, Span) -> bool,
) -> Result<(), Unsupported> {
    let b = text.as_bytes();
    let mut scanner = Scanner {
        text,
        b,
        offset,
        pos: 0,
        line_start: 0,
        depth: 0,
        emit,
    };
    scanner
        .document()
        .map_err(|Leave| Unsupported { at: scanner.pos })
}

/// Whether `b` holds a CR, a NUL or a byte order mark (U+FEFF: EF BB BF), in one pass.
fn has_cr_nul_or_bom(b: &[u8]) -> bool {
    memchr::memchr3_iter(b'\r', 0, 0xEF, b)
        .any(|i| b.get(i) != Some(&0xEF) || b.get(i + 1..i + 3) == Some(&[0xBB, 0xBF][..]))
}

/// A scanned scalar, not yet emitted (whether it is a key decides what comes first).
struct Scalar<'t> {
    text: Cow<'t, str>,
    style: ScalarStyle,
    start: usize,
    end: usize,
    /// Followed on its line by `:` and a blank: the first key of a mapping.
    key: bool,
}

/// Why a plain scalar's line ended.
#[derive(PartialEq)]
enum Stop {
    /// `: ` (or `:` at the end of the line): the scalar is a key.
    Colon,
    /// ` #`: a comment follows.
    Comment,
    /// A line break or the end of the text.
    Eol,
}

struct Scanner<'t, E> {
    text: &'t str,
    b: &'t [u8],
    offset: usize,
    pos: usize,
    line_start: usize,
    depth: usize,
    emit: E,
}

fn blank_or_end(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | 0)
}

/// The index of the first byte of `bytes` that is below a space (a line feed, a tab or another
/// control byte) or equal to `x` or `y`; `bytes.len()` when there is none. Plain and quoted
/// scalars end at such a byte or leave the subset there.
///
/// Most scalars end within a few words, where a vector search's set-up costs more than the
/// search: the first 32 bytes are looked at a word at a time, inline. Past them (descriptions,
/// base64 data), [`find_stop_far`] takes over.
#[inline(always)]
fn find_stop(bytes: &[u8], x: u8, y: u8) -> usize {
    let near = bytes.get(..32).unwrap_or(bytes);
    let i = find_stop_in_words(near, x, y);
    if i < near.len() || near.len() < 32 {
        return i;
    }
    find_stop_far(bytes, x, y)
}

/// [`find_stop`] past the first 32 bytes: blocks of 32 bytes without a stop are skipped by a
/// test that vectorizes, then the stop is looked for in the first block that holds one.
#[inline(never)]
fn find_stop_far(bytes: &[u8], x: u8, y: u8) -> usize {
    let mut at = 32;
    for block in bytes.get(32..).unwrap_or_default().as_chunks::<32>().0 {
        if block
            .iter()
            .fold(false, |hit, &c| hit | (c < 0x20) | (c == x) | (c == y))
        {
            break;
        }
        at += 32;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    at + find_stop_in_words(rest.get(..32).unwrap_or(rest), x, y)
}

/// [`find_stop`] eight bytes at a time: per byte, a subtraction that borrows exactly when the
/// byte is below the bound (0x20, or 1 after an exclusive or with `x` or `y`) sets its high
/// bit. A borrow only ever runs upwards from a byte that matched, so the lowest flagged byte
/// is the first match.
#[inline(always)]
fn find_stop_in_words(bytes: &[u8], x: u8, y: u8) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = ONES * 0x80;
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    let (xs, ys) = (ONES * u64::from(x), ONES * u64::from(y));
    let (words, tail) = bytes.as_chunks::<8>();
    for (k, word) in words.iter().enumerate() {
        let w = u64::from_le_bytes(*word);
        let hits = below(w, 0x20) | below(w ^ xs, 1) | below(w ^ ys, 1);
        if hits != 0 {
            return k * 8 + (hits.trailing_zeros() / 8) as usize;
        }
    }
    let done = bytes.len() - tail.len();
    done + tail
        .iter()
        .position(|&c| c < 0x20 || c == x || c == y)
        .unwrap_or(tail.len())
}

impl<'t, E: FnMut(Event<'t>, Span) -> bool> Scanner<'t, E> {
    /// The byte at `i`, or 0 past the end (NUL itself is rejected up front).
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn col(&self) -> usize {
        self.pos - self.line_start
    }

    /// The number of spaces from `from` on, read a word at a time: indentation in nested
    /// catalogs runs to a dozen spaces and more on every line.
    fn spaces(&self, from: usize) -> usize {
        const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
        let rest = self.b.get(from..).unwrap_or_default();
        let (words, _) = rest.as_chunks::<8>();
        for (k, word) in words.iter().enumerate() {
            let other = u64::from_le_bytes(*word) ^ SPACES;
            if other != 0 {
                return k * 8 + (other.trailing_zeros() / 8) as usize;
            }
        }
        let done = words.len() * 8;
        done + rest
            .get(done..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
    }

    /// Moves `pos` over spaces, but not past column `width`.
    fn indent_to(&mut self, width: usize) {
        let room = width.saturating_sub(self.col());
        if room > 0 && self.at(self.pos) == b' ' {
            self.pos += self.spaces(self.pos).min(room);
        }
    }

    fn slice(&self, start: usize, end: usize) -> R<&'t str> {
        self.text.get(start..end).ok_or(Leave)
    }

    fn emit(&mut self, event: Event<'t>, start: usize, end: usize) -> R<()> {
        let span = Span::new(self.offset + start, self.offset + end);
        if (self.emit)(event, span) {
            Ok(())
        } else {
            Err(Leave)
        }
    }

    fn emit_scalar(&mut self, s: Scalar<'t>) -> R<()> {
        self.emit(Event::Scalar(s.text, s.style, 0, None), s.start, s.end)
    }

    /// The empty plain scalar saphyr reports for a missing value, zero-width at `at`.
    fn emit_empty(&mut self, at: usize) -> R<()> {
        self.emit(
            Event::Scalar("".into(), ScalarStyle::Plain, 0, None),
            at,
            at,
        )
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Leave);
        }
        Ok(())
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line_start = self.pos;
    }

    /// From inside a line: skip spaces and a comment, then the line break. Anything else left
    /// on the line is outside the subset.
    fn rest_of_line(&mut self) -> R<()> {
        self.trailing_blanks()?;
        match self.at(self.pos) {
            b'\n' => {
                self.newline();
                Ok(())
            }
            0 if self.pos >= self.b.len() => Ok(()),
            _ => Err(Leave),
        }
    }

    /// Skip blanks and a comment up to the line break; returns where that leaves `pos`. A
    /// comment starts a line or follows a blank.
    fn trailing_blanks(&mut self) -> R<usize> {
        if self.at(self.pos) == b' ' {
            self.pos += self.spaces(self.pos);
        }
        if self.at(self.pos) == b'#' {
            if self.pos != self.line_start && self.at(self.pos - 1) != b' ' {
                return Err(Leave);
            }
            self.pos = self.line_end(self.pos);
        }
        Ok(self.pos)
    }

    fn line_end(&self, from: usize) -> usize {
        let rest = self.b.get(from..).unwrap_or_default();
        memchr::memchr(b'\n', rest).map_or(self.b.len(), |i| from + i)
    }

    /// Skip blank and comment lines (and the rest of the current line if it holds only spaces
    /// or a comment) up to the next token or the end of the text.
    fn skip_blank_lines(&mut self) -> R<()> {
        loop {
            self.trailing_blanks()?;
            match self.at(self.pos) {
                b'\n' => self.newline(),
                b'\t' => return Err(Leave),
                _ => return Ok(()),
            }
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// `---` or `...` followed by a blank at the start of a line.
    fn document_marker(&self) -> bool {
        self.col() == 0
            && matches!(
                self.b.get(self.pos..self.pos + 3),
                Some(b"---") | Some(b"...")
            )
            && blank_or_end(self.at(self.pos + 3))
    }

    fn is_entry(&self) -> bool {
        self.at(self.pos) == b'-' && blank_or_end(self.at(self.pos + 1))
    }

    fn document(&mut self) -> R<()> {
        self.skip_blank_lines()?;
        let explicit = self.b.starts_with(b"---") && self.pos == 0 && blank_or_end(self.at(3));
        if explicit {
            self.pos = 3;
            self.rest_of_line()?;
            self.skip_blank_lines()?;
        }
        if self.at_end() {
            // `---` and nothing else is a null document; no `---` and nothing is no document.
            if explicit {
                self.emit_empty(self.pos)?;
            }
            return Ok(());
        }
        if self.document_marker() {
            return Err(Leave);
        }
        let col = self.col();
        if self.is_entry() {
            self.sequence(col, false)?;
        } else {
            // A top-level scalar is rare in catalogs; only mappings take the fast path.
            let s = self.scalar(col)?;
            if !s.key {
                return Err(Leave);
            }
            self.mapping(col, s)?;
        }
        if self.at_end() {
            Ok(())
        } else {
            Err(Leave)
        }
    }

    /// A block mapping at column `col`; its first key is already scanned. Leaves `pos` on the
    /// first token after it (or the end of the text).
    fn mapping(&mut self, col: usize, first_key: Scalar<'t>) -> R<()> {
        self.enter()?;
        self.emit(
            Event::MappingStart(0, None),
            first_key.start,
            first_key.start,
        )?;
        let mut key = first_key;
        loop {
            if key.text.len() > MAX_KEY_BYTES {
                return Err(Leave);
            }
            self.emit_scalar(key)?;
            // `pos` is on the `:`.
            let colon = self.pos;
            self.pos += 1;
            self.mapping_value(col, colon)?;
            if self.at_end() || self.col() < col {
                break;
            }
            if self.col() > col || self.is_entry() || self.document_marker() {
                return Err(Leave);
            }
            key = self.scalar(col)?;
            if !key.key {
                return Err(Leave);
            }
        }
        self.emit(Event::MappingEnd, self.pos, self.pos)?;
        self.depth -= 1;
        Ok(())
    }

    /// The value after `key:` in a mapping at column `col`.
    fn mapping_value(&mut self, col: usize, colon: usize) -> R<()> {
        while self.at(self.pos) == b' ' {
            self.pos += 1;
        }
        match self.at(self.pos) {
            b'\n' | b'#' | 0 => {
                self.rest_of_line()?;
                self.skip_blank_lines()?;
                if !self.at_end() && self.col() > col {
                    self.block_node(col)
                } else if !self.at_end() && self.col() == col && self.is_entry() {
                    // go-yaml writes a mapping's sequences at the key's own indentation.
                    self.sequence(col, true)
                } else {
                    self.emit_empty(colon)
                }
            }
            // `key: other: value` is an error in YAML.
            _ => self.inline_node(col, false),
        }
    }

    /// A node that starts its own line at a column deeper than `parent`.
    fn block_node(&mut self, parent: usize) -> R<()> {
        let col = self.col();
        if self.is_entry() {
            return self.sequence(col, false);
        }
        if matches!(self.at(self.pos), b'|' | b'>') {
            return Err(Leave);
        }
        self.inline_node(parent, true)
    }

    /// A node after `key: ` or `- ` on the same line (or a scalar or mapping starting a line),
    /// inside a block collection whose indentation is `indent`. `compact` allows a mapping to
    /// start here.
    fn inline_node(&mut self, indent: usize, compact: bool) -> R<()> {
        match self.at(self.pos) {
            c @ (b'|' | b'>') => {
                let s = self.block_scalar(indent, c == b'>')?;
                self.emit_scalar(s)?;
                return self.skip_blank_lines();
            }
            b'[' | b'{' => return self.empty_flow(),
            b'-' if blank_or_end(self.at(self.pos + 1)) => return Err(Leave),
            _ => {}
        }
        let col = self.col();
        let s = self.scalar(indent)?;
        if s.key {
            if !compact {
                return Err(Leave);
            }
            return self.mapping(col, s);
        }
        self.emit_scalar(s)?;
        self.rest_of_line()?;
        self.skip_blank_lines()
    }

    /// `[]` or `{}`; flow collections with content are outside the subset.
    fn empty_flow(&mut self) -> R<()> {
        let p = self.pos;
        let (open, close) = match (self.at(p), self.at(p + 1)) {
            (b'[', b']') => (Event::SequenceStart(0, None), Event::SequenceEnd),
            (b'{', b'}') => (Event::MappingStart(0, None), Event::MappingEnd),
            _ => return Err(Leave),
        };
        self.emit(open, p, p + 1)?;
        self.pos = p + 2;
        // Like a quoted scalar, the closing bracket's span runs over blanks and a comment.
        let end = self.trailing_blanks()?;
        self.emit(close, p + 1, end)?;
        self.rest_of_line()?;
        self.skip_blank_lines()
    }

    /// A block sequence whose `-` indicators sit at column `col`. An indentless sequence (a
    /// mapping value at the key's column) starts where saphyr's first entry token ends.
    fn sequence(&mut self, col: usize, indentless: bool) -> R<()> {
        self.enter()?;
        if !indentless {
            self.emit(Event::SequenceStart(0, None), self.pos, self.pos)?;
        }
        let mut first = true;
        loop {
            // On a `-` at `col` followed by a blank; saphyr's entry token ends after the
            // blanks and any comment.
            self.pos += 1;
            let entry_end = self.trailing_blanks()?;
            if first && indentless {
                self.emit(Event::SequenceStart(0, None), entry_end, entry_end)?;
            }
            first = false;
            if matches!(self.at(self.pos), b'\n' | 0) {
                self.rest_of_line()?;
                self.skip_blank_lines()?;
                if !self.at_end() && self.col() > col {
                    self.block_node(col)?;
                } else {
                    self.emit_empty(entry_end)?;
                }
            } else {
                self.inline_node(col, true)?;
            }
            if self.at_end() || self.col() < col {
                break;
            }
            if self.col() > col || self.document_marker() {
                return Err(Leave);
            }
            if !self.is_entry() {
                if indentless {
                    break;
                }
                return Err(Leave);
            }
        }
        self.emit(Event::SequenceEnd, self.pos, self.pos)?;
        self.depth -= 1;
        Ok(())
    }

    /// A plain or quoted scalar at `pos`, in a block collection indented at `indent` (its
    /// continuation lines must be deeper). Leaves `pos` just after it.
    fn scalar(&mut self, indent: usize) -> R<Scalar<'t>> {
        if self.document_marker() {
            return Err(Leave);
        }
        match self.at(self.pos) {
            b'"' => self.quoted(false),
            b'\'' => self.quoted(true),
            b'-' | b'?' | b':' if blank_or_end(self.at(self.pos + 1)) => Err(Leave),
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b',' | b'[' | b']' | b'{' | b'}' | b'|'
            | b'>' | b'#' | b' ' | b'\n' | 0 => Err(Leave),
            _ => self.plain(indent),
        }
    }

    /// Scan one line of a plain scalar from `pos`: returns the end of its content (trailing
    /// blanks excluded) and why it stopped; `pos` is left at the stop. Jumps from one `:`,
    /// `#` or line break to the next ([`find_stop`]), leaving the subset at a tab or another
    /// control byte on the way.
    fn plain_line(&mut self) -> R<(usize, Stop)> {
        let start = self.pos;
        let stop = loop {
            let rest = self.b.get(self.pos..).unwrap_or_default();
            self.pos += find_stop(rest, b':', b'#');
            match self.at(self.pos) {
                b':' if blank_or_end(self.at(self.pos + 1)) => break Stop::Colon,
                b'#' if self.at(self.pos.wrapping_sub(1)) == b' ' => break Stop::Comment,
                b':' | b'#' => self.pos += 1,
                b'\n' => break Stop::Eol,
                0 if self.at_end() => break Stop::Eol,
                // A tab or another control byte.
                _ => return Err(Leave),
            }
        };
        let content = self.b.get(start..self.pos).unwrap_or_default();
        let trailing = content.iter().rev().take_while(|&&c| c == b' ').count();
        Ok((self.pos - trailing, stop))
    }

    fn plain(&mut self, indent: usize) -> R<Scalar<'t>> {
        let start = self.pos;
        let (mut end, stop) = self.plain_line()?;
        if end == start {
            return Err(Leave);
        }
        let mut s = Scalar {
            text: Cow::Borrowed(self.slice(start, end)?),
            style: ScalarStyle::Plain,
            start,
            end,
            key: stop == Stop::Colon,
        };
        if stop != Stop::Eol {
            // A key leaves `pos` on its `:`.
            if !s.key {
                self.pos = end;
            }
            return Ok(s);
        }
        // Continuation lines, folded like saphyr: one break becomes a space, each further
        // (empty) line a newline.
        let mut folded: Option<String> = None;
        loop {
            let mut p = self.pos;
            let mut line_start = self.line_start;
            let mut breaks = 0usize;
            while self.at(p) == b'\n' {
                p += 1;
                line_start = p;
                breaks += 1;
                if self.at(p) == b' ' {
                    p += self.spaces(p);
                }
            }
            // A comment, or a line no deeper than the collection (which also rules out the
            // `---` / `...` markers at column 0), ends the scalar.
            let c = self.at(p);
            if breaks == 0 || p >= self.b.len() || c == b'#' || p - line_start <= indent {
                break;
            }
            if c == b'\t' {
                return Err(Leave);
            }
            self.pos = p;
            self.line_start = line_start;
            let from = p;
            let (line_end, stop) = self.plain_line()?;
            if stop == Stop::Colon || line_end == from {
                return Err(Leave);
            }
            let buf = folded.get_or_insert_with(|| s.text.to_string());
            if breaks == 1 {
                buf.push(' ');
            } else {
                buf.extend(std::iter::repeat_n('\n', breaks - 1));
            }
            buf.push_str(self.slice(from, line_end)?);
            end = line_end;
            if stop == Stop::Comment {
                break;
            }
        }
        self.pos = end;
        if let Some(buf) = folded {
            s.text = Cow::Owned(buf);
            s.end = end;
        }
        Ok(s)
    }

    /// A single- or double-quoted scalar, folded and unescaped like saphyr does.
    fn quoted(&mut self, single: bool) -> R<Scalar<'t>> {
        let start = self.pos;
        let start_line = self.line_start;
        let quote = if single { b'\'' } else { b'"' };
        self.pos += 1;
        let text = match self.quoted_simple(quote) {
            Some(end) => {
                let t = Cow::Borrowed(self.slice(start + 1, end)?);
                self.pos = end + 1;
                t
            }
            None => Cow::Owned(self.quoted_general(single)?),
        };
        // What may follow on the line: `:` making it a key, or blanks and a comment, which
        // saphyr counts into the scalar's span.
        let key = match self.at(self.pos) {
            b':' if blank_or_end(self.at(self.pos + 1)) => {
                if self.line_start != start_line {
                    return Err(Leave);
                }
                true
            }
            b' ' | b'\n' | 0 => false,
            _ => return Err(Leave),
        };
        let end = if key {
            self.pos
        } else {
            self.trailing_blanks()?
        };
        Ok(Scalar {
            text,
            style: if single {
                ScalarStyle::SingleQuoted
            } else {
                ScalarStyle::DoubleQuoted
            },
            start,
            end,
            key,
        })
    }

    /// The closing quote's position when the scalar is on one line with nothing to unescape
    /// (no `''` or backslash, no tab or control byte).
    fn quoted_simple(&self, quote: u8) -> Option<usize> {
        let rest = self.b.get(self.pos..)?;
        let end = self.pos + find_stop(rest, quote, b'\\');
        let clean = self.at(end) == quote && !(quote == b'\'' && self.at(end + 1) == b'\'');
        clean.then_some(end)
    }

    fn quoted_general(&mut self, single: bool) -> R<String> {
        let mut out = String::new();
        let mut whitespace = String::new();
        let mut first_line = true;
        loop {
            // At the start of a run of non-blank characters. libyaml (and go-yaml, which opm
            // uses) checks no indentation inside quoted scalars: a continuation line may sit
            // at any column, only a `---` / `...` marker at column 0 ends the document.
            if self.at_end() || (!first_line && self.col() == 0 && self.document_marker()) {
                return Err(Leave);
            }
            let mut escaped_break = false;
            let mut closed = false;
            let mut run = self.pos;
            loop {
                let c = self.at(self.pos);
                match c {
                    b' ' | b'\t' | b'\n' => break,
                    0 if self.at_end() => return Err(Leave),
                    0..=0x1f => return Err(Leave),
                    b'\'' if single => {
                        out.push_str(self.slice(run, self.pos)?);
                        if self.at(self.pos + 1) == b'\'' {
                            out.push('\'');
                            self.pos += 2;
                            run = self.pos;
                            continue;
                        }
                        closed = true;
                        break;
                    }
                    b'"' if !single => {
                        out.push_str(self.slice(run, self.pos)?);
                        closed = true;
                        break;
                    }
                    b'\\' if !single => {
                        out.push_str(self.slice(run, self.pos)?);
                        if self.at(self.pos + 1) == b'\n' {
                            self.pos += 1;
                            self.newline();
                            escaped_break = true;
                            run = self.pos;
                            break;
                        }
                        self.escape(&mut out)?;
                        run = self.pos;
                        continue;
                    }
                    _ => {}
                }
                self.pos += 1;
            }
            if !escaped_break && !closed {
                out.push_str(self.slice(run, self.pos)?);
            }
            if closed {
                self.pos += 1;
                return Ok(out);
            }
            // Blanks and breaks, folded like saphyr.
            let mut leading_blanks = escaped_break;
            let mut leading_break = false;
            let mut trailing_breaks = 0usize;
            whitespace.clear();
            loop {
                match self.at(self.pos) {
                    c @ (b' ' | b'\t') => {
                        if !leading_blanks {
                            whitespace.push(char::from(c));
                        }
                        self.pos += 1;
                    }
                    b'\n' => {
                        if leading_blanks {
                            trailing_breaks += 1;
                        } else {
                            whitespace.clear();
                            leading_break = true;
                            leading_blanks = true;
                        }
                        self.newline();
                        first_line = false;
                    }
                    _ => break,
                }
            }
            if escaped_break {
                first_line = false;
            }
            if leading_blanks {
                if leading_break && trailing_breaks == 0 {
                    out.push(' ');
                } else {
                    out.extend(std::iter::repeat_n('\n', trailing_breaks));
                }
            } else {
                out.push_str(&whitespace);
            }
        }
    }

    /// One escape sequence at `pos` (on the backslash) in a double-quoted scalar.
    fn escape(&mut self, out: &mut String) -> R<()> {
        let simple = match self.at(self.pos + 1) {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0b'),
            b'f' => Some('\x0c'),
            b'r' => Some('\r'),
            b'e' => Some('\x1b'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            self.pos += 2;
            return Ok(());
        }
        let digits = match self.at(self.pos + 1) {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(Leave),
        };
        let hex = self.slice(self.pos + 2, self.pos + 2 + digits)?;
        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(Leave);
        }
        let value = u32::from_str_radix(hex, 16).map_err(|_| Leave)?;
        out.push(char::from_u32(value).ok_or(Leave)?);
        self.pos += 2 + digits;
        Ok(())
    }

    /// A literal (`|`, `|-`, `|+`) or, with `folded`, folded (`>`, `>-`, `>+`) block scalar in
    /// a collection indented at `indent`. Leaves `pos` where saphyr's scan stops: on the first
    /// non-space byte of the line that ends it. Folding is saphyr's (libyaml's): the line
    /// break between two content lines neither of which starts with a blank becomes a space,
    /// or disappears when empty lines follow it (they stay line breaks); every other break
    /// is kept.
    fn block_scalar(&mut self, indent: usize, folded: bool) -> R<Scalar<'t>> {
        #[derive(PartialEq)]
        enum Chomp {
            Strip,
            Clip,
            Keep,
        }
        self.pos += 1;
        // Header: a chomping indicator and an indentation digit, in either order.
        let mut chomp = Chomp::Clip;
        let mut explicit = None;
        for _ in 0..2 {
            match self.at(self.pos) {
                b'-' if chomp == Chomp::Clip => chomp = Chomp::Strip,
                b'+' if chomp == Chomp::Clip => chomp = Chomp::Keep,
                c @ b'1'..=b'9' if explicit.is_none() => explicit = Some(usize::from(c - b'0')),
                _ => break,
            }
            self.pos += 1;
        }
        if !matches!(self.at(self.pos), b' ' | b'\n') {
            return Err(Leave);
        }
        self.rest_of_line()?;
        let mut breaks = 0usize;
        let width = match explicit {
            Some(digit) => {
                // The indentation is given: leading empty lines are content.
                let width = indent + digit;
                loop {
                    self.indent_to(width);
                    if self.at(self.pos) != b'\n' {
                        break;
                    }
                    self.newline();
                    breaks += 1;
                }
                width
            }
            None => {
                // The first non-empty line sets the indentation, but no less than the widest
                // leading empty line (whose breaks are content).
                let mut widest = indent + 1;
                loop {
                    if self.at(self.pos) == b' ' {
                        self.pos += self.spaces(self.pos);
                    }
                    widest = widest.max(self.col());
                    if self.at(self.pos) != b'\n' {
                        break;
                    }
                    self.newline();
                    breaks += 1;
                }
                widest
            }
        };
        if width <= indent
            || self.col() != width
            || (explicit.is_none() && self.at(self.pos) == b'\t')
            || matches!(self.at(self.pos), b'\n' | 0)
        {
            return Err(Leave);
        }
        let start = self.pos;
        let mut out = String::new();
        // Whether the previous content line started with a blank (none before the first).
        let mut blank_before = None;
        loop {
            // At the first content byte of a line.
            let end = self.line_end(self.pos);
            if end >= self.b.len() {
                return Err(Leave);
            }
            let blank = matches!(self.at(self.pos), b' ' | b'\t');
            if folded && blank_before == Some(false) && !blank {
                // `breaks` is the line break ending the previous line and the empty lines.
                match breaks {
                    1 => out.push(' '),
                    n => out.extend(std::iter::repeat_n('\n', n - 1)),
                }
            } else {
                out.extend(std::iter::repeat_n('\n', breaks));
            }
            blank_before = Some(blank);
            out.push_str(self.slice(self.pos, end)?);
            self.pos = end;
            self.newline();
            breaks = 1;
            // Indentation and empty lines up to the next content line.
            loop {
                self.indent_to(width);
                if self.at(self.pos) == b'\n' {
                    self.newline();
                    breaks += 1;
                } else {
                    break;
                }
            }
            if self.col() < width || self.at_end() {
                break;
            }
        }
        // A tab, or spaces left unterminated at the end of the text (saphyr counts those as a
        // line of their own), leave the subset.
        if self.at(self.pos) == b'\t' || (self.at_end() && self.col() > 0) {
            return Err(Leave);
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => out.push('\n'),
            Chomp::Keep => out.extend(std::iter::repeat_n('\n', breaks)),
        }
        Ok(Scalar {
            text: Cow::Owned(out),
            style: if folded {
                ScalarStyle::Folded
            } else {
                ScalarStyle::Literal
            },
            start,
            end: self.pos,
            key: false,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An event as both parsers report it: kind, value and style, byte span.
    pub type Recorded = (String, Span);

    fn describe(event: &Event<'_>) -> Option<String> {
        Some(match event {
            Event::Scalar(text, style, anchor, tag) => {
                format!("scalar {style:?} {text:?} anchor={anchor} tag={tag:?}")
            }
            Event::SequenceStart(anchor, tag) => format!("seq anchor={anchor} tag={tag:?}"),
            Event::MappingStart(anchor, tag) => format!("map anchor={anchor} tag={tag:?}"),
            Event::SequenceEnd => "seq end".into(),
            Event::MappingEnd => "map end".into(),
            Event::Alias(id) => format!("alias {id}"),
            _ => return None,
        })
    }

    /// The fast path's events, or None where it hands the chunk to saphyr.
    pub fn fast_events(text: &str) -> Option<Vec<Recorded>> {
        let mut out = Vec::new();
        scan(text, 0, |e, span| {
            out.extend(describe(&e).map(|d| (d, span)));
            true
        })
        .ok()?;
        Some(out)
    }

    /// saphyr's events for the first document (what the tree builder consumes), or its error;
    /// saphyr as the loader runs it, with libyaml's leniencies (`load::lenient`).
    pub fn saphyr_events(text: &str) -> Result<Vec<Recorded>, String> {
        crate::yaml::saphyr_lenient(
            text,
            0,
            Vec::new,
            |out, event, span| {
                if matches!(event, Event::DocumentEnd | Event::StreamEnd) {
                    return Ok(false);
                }
                out.extend(describe(&event).map(|d| (d, span)));
                Ok(true)
            },
            drop,
        )
        .map_err(|p| p.message.clone())
    }

    /// Whether the fast path accepts `text`; an error if it does but saphyr rejects the text
    /// or reports other events.
    pub fn compare(text: &str) -> Result<bool, String> {
        let Some(fast) = fast_events(text) else {
            return Ok(false);
        };
        match saphyr_events(text) {
            Ok(slow) if slow == fast => Ok(true),
            Ok(slow) => Err(format!("events differ on {text:?}:\n{fast:?}\n{slow:?}")),
            // libyaml skips tabs in the indentation of a quoted scalar's continuation line;
            // saphyr rejects them (with one of several messages, depending on where the
            // scalar sits) before the lenient layer can tell it is inside a quoted scalar, so
            // here the fast path (like libyaml, see tests/it/libyaml.rs) is the reference.
            // The fast path leaves the subset at a tab in any other indentation, so such a
            // tab can only be in a quoted scalar: with those tabs made spaces (same offsets,
            // same folding), saphyr must give the fast path's events.
            Err(_) if saphyr_events(&indentation_tabs_as_spaces(text)).as_ref() == Ok(&fast) => {
                Ok(true)
            }
            Err(e) => Err(format!(
                "fast path accepted what saphyr rejects ({e}): {text:?}"
            )),
        }
    }

    /// `text` with every tab in a line's leading white space replaced by a space.
    fn indentation_tabs_as_spaces(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut leading = true;
        for c in text.chars() {
            match c {
                '\n' => leading = true,
                '\t' if leading => {
                    out.push(' ');
                    continue;
                }
                ' ' => {}
                _ => leading = false,
            }
            out.push(c);
        }
        out
    }

    pub fn agrees(text: &str) -> bool {
        compare(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn carriage_returns_nuls_and_byte_order_marks_are_left_to_saphyr() {
        for text in [
            "a: b\r\n",
            "a: \0",
            "a: \u{feff}b",
            "\u{feff}a: b",
            "a: b\u{feff}",
        ] {
            assert!(has_cr_nul_or_bom(text.as_bytes()), "{text:?}");
        }
        // U+FF0C (EF BC 8C) and U+F8FF (EF A3 BF) share the mark's lead byte only.
        for text in [
            "a: b",
            "a: 中文，說明",
            "a: \u{f8ff}",
            "a: \u{ff00}\u{fefe}",
        ] {
            assert!(!has_cr_nul_or_bom(text.as_bytes()), "{text:?}");
        }
    }

    /// [`find_stop`] a byte at a time, as the scanner searched before it read words.
    fn find_stop_bytewise(bytes: &[u8], x: u8, y: u8) -> usize {
        bytes
            .iter()
            .position(|&c| c < 0x20 || c == x || c == y)
            .unwrap_or(bytes.len())
    }

    #[test]
    fn find_stop_finds_the_first_stop_at_every_place() {
        // Backgrounds with bytes next to the bounds (a space, DEL, UTF-8 and the bytes
        // adjacent to the stops), so that a borrow or a near miss would show.
        let backgrounds: [&[u8]; 4] = [b"k", b" ", b"\x7f\x80\xff", b";9\"$[]&'"];
        let stops = [b'\n', b'\t', 0x01, 0x1f, b':', b'#', b'"', b'\\', b'\''];
        for len in 0..100 {
            for background in backgrounds {
                let base: Vec<u8> = background.iter().copied().cycle().take(len).collect();
                for (x, y) in [(b':', b'#'), (b'"', b'\\'), (b'\'', b'\\')] {
                    assert_eq!(find_stop(&base, x, y), find_stop_bytewise(&base, x, y));
                    for at in 0..len {
                        for stop in stops {
                            let mut text = base.clone();
                            text[at] = stop;
                            if at + 3 < len {
                                text[at + 3] = b'\n';
                            }
                            assert_eq!(
                                find_stop(&text, x, y),
                                find_stop_bytewise(&text, x, y),
                                "{text:?} {x} {y}"
                            );
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn find_stop_equals_the_bytewise_search(
            text in proptest::collection::vec(
                prop_oneof![8 => 0x20u8..0x7f, 1 => any::<u8>()], 0..300),
            pair in prop_oneof![Just((b':', b'#')), Just((b'"', b'\\')), Just((b'\'', b'\\'))],
        ) {
            prop_assert_eq!(
                find_stop(&text, pair.0, pair.1),
                find_stop_bytewise(&text, pair.0, pair.1)
            );
        }
    }

    #[test]
    fn the_subset_matches_saphyr_event_for_event() {
        let accepted = [
            "a: 1\n",
            "---\na: 1\nb: two words  \n",
            "--- # c\n# lead\n\na: 1 # tail\n\n# end\n",
            "a:\nb:   # c\n\nc:\n  - x\n  - f: g\n    h:\n  -\n  -   z: 1\n",
            "d:\n-\n- x\ne:\n-   # c\n  - y\nf:\n- g: 1\n  h: 2\n- |\n  lit\n",
            "k: long\n  plain\n\n  para\nl: x\n",
            "- long\n  plain\n\n\n  para\n- b\n",
            "\"q\": v\n's': |-\n  a  \n   b\n\n",
            "d: \"a\n   b\\\n  c  \n\n  d\"\ne: 'it''s\n  x'\n",
            "e: \"\\t\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\e\\f\\v\\r\\ \\/\\\\\\\"\"\n",
            "f: |+\n  k\n\n# tail\n\n",
            "f: |\n  k\n\n  l\n    m\n  \n",
            "j: []\nk: {}\nl:\n  - []\n  - {}\n",
            "a: -1\nb: --x\nc: ?x\nd: :x\ne: x:y\nf: a#b\ng: é ü\n",
            "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
            "  a: 1\n  b: 2\n",
            "- a\n- b: 1\n  c:\n  - x\n",
            "a: 'x' # c\nb: \"y\"\n",
            "a: x\n\n\n",
            "a: x",
            "a:",
            "",
            "# only a comment\n",
            "---\n# only a comment\n\n",
            "---",
            "a: x\n  y \n  z # c\n",
            "key  : v\n",
            "a: \"one\n\n\n  two\"\n",
            "a: \"x\\\n\n  y\"\n",
            "a: 'x\n  ''y'''\n",
            "a: |\n  x\n  # not a comment\n  y\n",
            "a: |2\n   x\n\n  y\n",
            "a: |\n\n \n  after empty lines\n",
            "a: []   # c\nb: {} #d\n",
            "a: |2-\n\n     x\n  y\n",
            "- |+1\n  \n   x\n",
            "b:\n  c: |4\n\n        indented\n      y\n",
            "url: http://x.y/z?a=b#frag\n",
            "a: 1.10\nb: yes\nc: ~\nd: 0x1F\n",
            // Folded block scalars: breaks between lines that start with no blank fold.
            "a: >\n  folded\n",
            "a: >-\n  one\n  two\n\n  three\n\n\n  four\nb: x\n",
            "a: >+\n  one\n   more indented\n  back\n\n",
            "- >\n  x\n  \ty\n  z\n- >2\n    a\n   b\n  c\n",
            "a: >\n\n\n  after empty lines\n  # not a comment\n",
            "d: >-\n    description: with: colons # and hashes\n    and more\ne: 1\n",
            "f: >\n  a\n\n   b\n\n  c\n  \n  d\n",
            "g: >+1\n  \n   x\n",
            // A tab in a quoted scalar's continuation line, inside a compact mapping: libyaml
            // accepts it, saphyr does not (found by `mutated_documents_never_disagree`).
            "- # note\n \"k\": .\n  'a- # note\n-  \"b\": \"c\n\t    \\\\\n    '\"\n",
        ];
        for text in accepted {
            assert!(agrees(text), "fast path left {text:?}");
        }
    }

    #[test]
    fn everything_else_goes_to_saphyr() {
        let rejected = [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: [1, 2]\n",
            "a: {b: 1}\n",
            "a: |0\n   x\n",
            "a: >\n  unterminated",
            "a: |2\n x\n",
            "a:\tb\n",
            "a: 1\r\n",
            "\u{feff}a: 1\n",
            "a: b: c\n",
            "a: 1\n b: 2\n",
            "- a\nb: 1\n",
            "a: 'unterminated\n",
            "a: \"bad \\q escape\"\n",
            "a: \"\\ud800\"\n",
            "? a\n: b\n",
            "a: 1\n...\nb: 2\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: x # c\n  y\n",
            "plain scalar document\n",
            "a: |\n   \n  too wide a leading line\n",
            "a: - b\n",
            "- - a\n",
            "a: 'x'y\n",
            "a: 1 #c\n  b\n",
            "a:#b\n",
            "a:\n  |x\n",
            "f: |-\n      x\n    y: 1\n",
        ];
        for text in rejected {
            assert!(fast_events(text).is_none(), "fast path took {text:?}");
        }
    }

    /// Every document of the real catalogs: the fast path takes nearly all of them, and
    /// everywhere it does, saphyr reports the same events. `OLMLINT_SUBSET_CORPUS` points the
    /// test at another directory (for example the unpacked OpenShift tarball).
    #[test]
    fn real_catalogs_take_the_fast_path_with_identical_events() {
        let root = std::env::var("OLMLINT_SUBSET_CORPUS").map_or_else(
            |_| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../../shared/corpus/catalogs/community-v4.18")
            },
            std::path::PathBuf::from,
        );
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("corpus directory") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                    files.push(path);
                }
            }
        }
        assert!(!files.is_empty(), "no YAML under {}", root.display());
        let (mut total, mut taken) = (0usize, 0usize);
        for path in &files {
            let text = std::fs::read_to_string(path).expect("utf-8 catalog");
            let mut problems = Vec::new();
            for (s, e) in crate::yaml::split_documents(&text, &mut problems) {
                let chunk = &text[s..e];
                total += chunk.len();
                if agrees(chunk) {
                    taken += chunk.len();
                } else if std::env::var_os("OLMLINT_SUBSET_WHY").is_some() {
                    let at = scan(chunk, 0, |_, _| true).err().map_or(0, |u| u.at);
                    let line = chunk[..at].rfind('\n').map_or(0, |i| i + 1);
                    let end = chunk[at..].find('\n').map_or(chunk.len(), |i| at + i);
                    eprintln!(
                        "left at {}: {:?}",
                        path.display(),
                        &chunk[line.saturating_sub(80)..end.min(line + 200)]
                    );
                }
            }
        }
        eprintln!(
            "fast path: {taken} of {total} bytes in {} files",
            files.len()
        );
        assert!(
            taken * 100 >= total * 99,
            "fast path took {taken} of {total} bytes"
        );
    }

    // Generated documents: random trees written in random block styles.

    #[derive(Clone, Debug)]
    enum Y {
        Word(String),
        Map(Vec<(String, Y)>),
        Seq(Vec<Y>),
    }

    fn tree() -> impl Strategy<Value = Y> {
        let word = "[a-z0-9.:/#'\"\\\\é -]{0,12}".prop_map(Y::Word);
        word.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(("[a-zA-Z][a-zA-Z0-9./-]{0,8}", inner.clone()), 1..5)
                    .prop_map(Y::Map),
                prop::collection::vec(inner, 1..5).prop_map(Y::Seq),
            ]
        })
    }

    /// Writes a tree as block YAML; `choice` picks styles, indentation, comments and folding.
    struct Writer<'c> {
        out: String,
        choice: std::iter::Cycle<std::slice::Iter<'c, u8>>,
    }

    impl Writer<'_> {
        fn pick(&mut self, n: u8) -> u8 {
            self.choice.next().map_or(0, |c| c % n)
        }

        fn pad(&mut self, n: usize) {
            self.out.extend(std::iter::repeat_n(' ', n));
        }

        /// Ends a line, sometimes with a comment and blank or comment lines after it.
        fn eol(&mut self, indent: usize) {
            if self.pick(6) == 0 {
                self.out.push_str(" # note");
            }
            self.out.push('\n');
            match self.pick(8) {
                0 => self.out.push('\n'),
                1 => {
                    self.pad(indent);
                    self.out.push_str("# c\n");
                }
                _ => {}
            }
        }

        /// A scalar after `key:` / `- ` on the same line, in a collection indented at `indent`.
        fn scalar(&mut self, w: &str, indent: usize) {
            let plain_ok = !w.is_empty()
                && !w.starts_with([' ', '#', '\'', '"', '-', ':', '?'])
                && !w.ends_with(' ')
                && !w.contains(": ")
                && !w.contains(" #")
                && !w.ends_with(':');
            match self.pick(5) {
                0 | 1 if plain_ok => {
                    // Plain, sometimes folded at its spaces onto deeper lines.
                    for (i, part) in w.split(' ').enumerate() {
                        if i > 0 {
                            if self.pick(3) == 0 && !part.is_empty() {
                                self.out.push('\n');
                                let extra = usize::from(self.pick(3));
                                self.pad(indent + 1 + extra);
                            } else {
                                self.out.push(' ');
                            }
                        }
                        self.out.push_str(part);
                    }
                }
                2 => {
                    self.out.push('\'');
                    self.out.push_str(&w.replace('\'', "''"));
                    self.out.push('\'');
                }
                3 => {
                    self.out.push('"');
                    for (i, part) in w.split(' ').enumerate() {
                        if i > 0 {
                            match self.pick(4) {
                                0 => {
                                    self.out.push('\n');
                                    self.pad(indent + 1);
                                }
                                1 => self.out.push_str("\\x20"),
                                _ => self.out.push(' '),
                            }
                        }
                        self.out
                            .push_str(&part.replace('\\', "\\\\").replace('"', "\\\""));
                    }
                    self.out.push('"');
                }
                _ => {
                    // Literal or folded, some lines more indented.
                    let chomp = ["", "-", "+"][usize::from(self.pick(3))];
                    let indicator = if self.pick(2) == 0 { '|' } else { '>' };
                    self.out.push(indicator);
                    self.out.push_str(chomp);
                    self.out.push('\n');
                    let width = indent + 1 + usize::from(self.pick(3));
                    let mut started = false;
                    for line in w.split(' ') {
                        if line.is_empty() {
                            self.out.push('\n');
                        } else {
                            // Not the first content line: it sets the indentation.
                            let more = usize::from(started && self.pick(4) == 0);
                            started = true;
                            self.pad(width + more);
                            self.out.push_str(line);
                            self.out.push('\n');
                        }
                    }
                    self.pad(width);
                    self.out.push_str("end");
                }
            }
        }

        /// A node as the value of a key at `indent` (the `:` is written).
        fn value(&mut self, y: &Y, indent: usize) {
            match y {
                Y::Word(w) if w.is_empty() && self.pick(2) == 0 => self.eol(indent),
                Y::Word(w) => {
                    self.out.push(' ');
                    self.scalar(w, indent);
                    self.eol(indent);
                }
                Y::Map(_) | Y::Seq(_) if self.pick(9) == 0 => {
                    let empty = if matches!(y, Y::Map(_)) { " {}" } else { " []" };
                    self.out.push_str(empty);
                    self.eol(indent);
                }
                Y::Seq(items) if self.pick(2) == 0 => {
                    // Indentless, as go-yaml writes it.
                    self.eol(indent);
                    self.seq(items, indent);
                }
                _ => {
                    self.eol(indent);
                    let step = 1 + usize::from(self.pick(4));
                    self.block(y, indent + step);
                }
            }
        }

        fn block(&mut self, y: &Y, indent: usize) {
            match y {
                Y::Map(entries) => self.map(entries, indent, true),
                Y::Seq(items) => self.seq(items, indent),
                Y::Word(w) => {
                    // A scalar on its own line: plain or quoted only.
                    self.pad(indent);
                    if w.is_empty() {
                        self.out.push_str("''");
                    } else {
                        self.out.push('\'');
                        self.out.push_str(&w.replace('\'', "''"));
                        self.out.push('\'');
                    }
                    self.eol(indent);
                }
            }
        }

        fn map(&mut self, entries: &[(String, Y)], indent: usize, pad_first: bool) {
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 || pad_first {
                    self.pad(indent);
                }
                if self.pick(7) == 0 {
                    self.out.push('"');
                    self.out.push_str(k);
                    self.out.push('"');
                } else {
                    self.out.push_str(k);
                }
                self.out.push(':');
                self.value(v, indent);
            }
        }

        fn seq(&mut self, items: &[Y], indent: usize) {
            for item in items {
                self.pad(indent);
                self.out.push('-');
                match item {
                    Y::Word(w) if w.is_empty() => self.eol(indent),
                    Y::Word(w) => {
                        self.out.push(' ');
                        self.scalar(w, indent);
                        self.eol(indent);
                    }
                    Y::Map(entries) if self.pick(2) == 0 => {
                        // Compact: the first key on the dash's line.
                        let gap = 1 + usize::from(self.pick(3));
                        self.pad(gap);
                        self.map(entries, indent + 1 + gap, false);
                    }
                    _ => {
                        self.eol(indent);
                        let step = 1 + usize::from(self.pick(3));
                        self.block(item, indent + step);
                    }
                }
            }
        }
    }

    fn write(y: &Y, choice: &[u8]) -> String {
        let mut w = Writer {
            out: String::new(),
            choice: choice.iter().cycle(),
        };
        if w.pick(3) == 0 {
            w.out.push_str("---\n");
        }
        match y {
            Y::Seq(items) => w.seq(items, 0),
            Y::Map(entries) => w.map(entries, 0, true),
            Y::Word(w2) => w.map(&[("k".to_string(), Y::Word(w2.clone()))], 0, true),
        }
        w.out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Generated block YAML takes the fast path, with saphyr's events.
        #[test]
        fn generated_documents_take_the_fast_path(
            y in tree(),
            choice in prop::collection::vec(any::<u8>(), 1..64),
        ) {
            let text = write(&y, &choice);
            let left_at = scan(&text, 0, |_, _| true).err().map(|u| u.at);
            prop_assert_eq!(compare(&text), Ok(true), "{:?} left at {:?}", text, left_at);
        }

        /// Damaged documents: wherever the fast path still accepts, saphyr agrees exactly.
        #[test]
        fn mutated_documents_never_disagree(
            y in tree(),
            choice in prop::collection::vec(any::<u8>(), 1..64),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), prop::sample::select(&[
                    " ", "\n", ":", "-", "#", "'", "\"", "|", "\t", "a", "[", "]", "{", "}",
                    "&", "*", "\\", ">", "?", "  ", "- ", ": ", "---\n", "...", "|-", "é",
                    "\\n", "''", "", "\n  ", "%",
                ][..])),
                1..4,
            ),
            deletes in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        ) {
            let mut text = write(&y, &choice);
            for (at, insert) in edits {
                let mut i = at.index(text.len() + 1);
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                text.insert_str(i, insert);
            }
            for at in deletes {
                if !text.is_empty() {
                    let mut i = at.index(text.len());
                    while !text.is_char_boundary(i) {
                        i -= 1;
                    }
                    text.remove(i);
                }
            }
            let verdict = compare(&text);
            prop_assert!(verdict.is_ok(), "{}", verdict.unwrap_err());
        }
    }
}
