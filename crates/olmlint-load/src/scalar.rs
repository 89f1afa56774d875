//! Map an offset inside a decoded string value back to the byte in the file, through YAML
//! quoting, escapes, line folding and block-scalar indentation, or JSON escapes.

use super::tree::{Node, Style};

/// Absolute file offset of byte `value_offset` of the string `node` holds. Falls back to the
/// start of the node when the raw text cannot be aligned.
pub fn file_offset(text: &str, node: &Node, value_offset: usize) -> usize {
    let start = node.span.start();
    let Some(raw) = text.get(start..node.span.end()) else {
        return start;
    };
    let Some(value) = node.as_str() else {
        return start;
    };
    if matches!(node.style, Style::Literal | Style::Folded) {
        return block_offset(text, start, value, node.style, value_offset).unwrap_or(start);
    }
    align(raw, value, node.style, value_offset).map_or(start, |o| start + o)
}

/// Lines of `text` from byte `from` on: (start, end without the line break and a CR).
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let nl = memchr::memchr(b'\n', bytes.get(start..)?).map_or(bytes.len(), |i| start + i);
        pos = nl + 1;
        let end = if nl > start && bytes.get(nl - 1) == Some(&b'\r') {
            nl - 1
        } else {
            nl
        };
        Some((start, end))
    })
}

/// A block scalar header's indicator at `at`: `|` or `>`, then chomping and indentation
/// indicators, then only blanks or a comment to the end of the line.
fn is_header(text: &str, at: usize) -> bool {
    let Some(rest) = text.get(at..) else {
        return false;
    };
    let line = rest.split('\n').next().unwrap_or("").trim_end_matches('\r');
    let mut chars = line.chars();
    if !matches!(chars.next(), Some('|' | '>')) {
        return false;
    }
    let tail = chars.as_str();
    let ind = tail.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    let after = ind.trim_start_matches([' ', '\t']);
    after.is_empty() || (after.starts_with('#') && after.len() < ind.len())
}

/// The `|`/`>` indicator of the block scalar whose node starts at `start`: there, when the
/// front end's span starts at the indicator; otherwise on the nearest line above that is not
/// blank (the first indicator on it that follows a blank, `:` or `-`, so a `>` in a trailing
/// comment is not taken for it).
pub(crate) fn block_indicator(text: &str, start: usize) -> Option<usize> {
    if is_header(text, start) {
        return Some(start);
    }
    let bytes = text.as_bytes();
    let line_start = |i: usize| super::source::line_start_of(bytes, i);
    let mut l = line_start(start);
    let header = loop {
        if l == 0 {
            return None;
        }
        let prev = line_start(l - 1);
        let blank = text
            .get(prev..l)?
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
        l = prev;
        if !blank {
            break l;
        }
    };
    let line = text.get(header..)?.split('\n').next()?;
    line.char_indices().find_map(|(i, c)| {
        let after_separator =
            i == 0 || matches!(line.as_bytes().get(i - 1), Some(b' ' | b'\t' | b':' | b'-'));
        (matches!(c, '|' | '>') && after_separator && is_header(text, header + i))
            .then_some(header + i)
    })
}

/// File offset of byte `target` of a literal (`|`) or folded (`>`) block scalar whose node
/// starts at `start` (at the indicator, or at the first content character: the two YAML front
/// ends differ). Content lines follow the header line; the indentation is read off the first
/// non-empty line against the decoded value, so explicit indentation indicators need no
/// knowledge of the parent's indentation.
fn block_offset(
    text: &str,
    start: usize,
    value: &str,
    style: Style,
    target: usize,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let header = super::source::line_start_of(bytes, block_indicator(text, start)?);
    let first_content = header + memchr::memchr(b'\n', bytes.get(header..)?)? + 1;
    let lines: Vec<(usize, usize)> = lines_from(text, first_content).collect();
    // Indentation: leading spaces of the first non-blank line minus the spaces the value has
    // at that point (a more-indented first line under an explicit indicator).
    let leading_breaks = value.bytes().take_while(|&b| b == b'\n').count();
    let value_lead = value
        .get(leading_breaks..)?
        .bytes()
        .take_while(|&b| b == b' ')
        .count();
    let &(fs, fe) = lines.iter().find(|&&(s, e)| {
        text.get(s..e)
            .is_some_and(|l| !l.trim_start_matches(' ').is_empty())
    })?;
    let file_lead = text.get(fs..fe)?.bytes().take_while(|&b| b == b' ').count();
    let indent = file_lead.checked_sub(value_lead)?;
    // Segments: value range [a, a + len) is file text from `f`.
    let mut cursor = 0usize;
    let mut last_end = first_content;
    for &(s, e) in &lines {
        if cursor >= value.len() {
            break;
        }
        let content = text.get((s + indent).min(e)..e).unwrap_or("");
        let a = match style {
            Style::Literal => {
                // One value line per file line.
                let a = cursor;
                cursor += content.len() + 1;
                if value.get(a..).is_none_or(|v| !v.starts_with(content)) {
                    return None;
                }
                a
            }
            _ => {
                if content.is_empty() {
                    continue;
                }
                // Folded: the text follows after separators (a space or line breaks).
                let mut a = cursor;
                loop {
                    if value.get(a..).is_some_and(|v| v.starts_with(content)) {
                        break;
                    }
                    match value.as_bytes().get(a) {
                        Some(b' ' | b'\n') => a += 1,
                        _ => return None,
                    }
                }
                cursor = a + content.len();
                a
            }
        };
        if target < a {
            // A separator before this line: the end of the previous line.
            return Some(last_end);
        }
        if target <= a + content.len() && (target < a + content.len() || style == Style::Literal) {
            return Some(s + indent.min(e - s) + (target - a));
        }
        last_end = e;
    }
    Some(last_end)
}

/// The file span of bytes `range` of the string `node` holds, at least one byte wide (where a
/// CEL error inside a rule scalar is shown).
pub fn file_span(text: &str, node: &Node, range: &std::ops::Range<usize>) -> super::tree::Span {
    let a = file_offset(text, node, range.start);
    let b = file_offset(text, node, range.end.max(range.start + 1));
    super::tree::Span::new(a, b.max(a + 1))
}

fn align(raw: &str, value: &str, style: Style, target: usize) -> Option<usize> {
    let rb = raw.as_bytes();
    let mut r = match style {
        Style::SingleQuoted | Style::DoubleQuoted | Style::Json => 1,
        _ => 0,
    };
    let escapes = matches!(style, Style::DoubleQuoted | Style::Json);
    for (vi, vc) in value.char_indices() {
        // Find vc in raw at or after r, skipping layout that decoding removed.
        loop {
            let rc = raw.get(r..)?.chars().next()?;
            if escapes && rc == '\\' {
                // An escape decodes to exactly one char.
                let next = raw.get(r + 1..)?.chars().next()?;
                let len = match next {
                    'x' => 4,
                    'u' => 6,
                    'U' => 10,
                    '\n' => {
                        // escaped line break: skip it and following indentation
                        r += 2;
                        while matches!(rb.get(r), Some(b' ' | b'\t')) {
                            r += 1;
                        }
                        continue;
                    }
                    c => 1 + c.len_utf8(),
                };
                if vi >= target {
                    return Some(r);
                }
                r += len;
                break;
            }
            if rc == vc {
                if style == Style::SingleQuoted && rc == '\'' {
                    r += 1; // '' decodes to '
                }
                if vi >= target {
                    return Some(r);
                }
                r += rc.len_utf8();
                break;
            }
            if rc.is_whitespace() || (style == Style::SingleQuoted && rc == '\'') {
                // Folded line breaks and indentation; a folded break may decode to a space.
                if vc == ' ' && rc == '\n' {
                    if vi >= target {
                        return Some(r);
                    }
                    r += 1;
                    while matches!(rb.get(r), Some(b' ' | b'\t')) {
                        r += 1;
                    }
                    break;
                }
                r += rc.len_utf8();
                continue;
            }
            return None;
        }
    }
    (target >= value.len()).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use olmlint_base::tree::{Span, Value};

    fn node(raw: &str, value: &str, style: Style) -> Node {
        Node::new(Span::new(0, raw.len()), style, Value::String(value.into()))
    }

    #[test]
    fn maps_through_styles() {
        let cases = [
            ("a == b", "a == b", Style::Plain, 5, 5),
            ("'it''s x'", "it's x", Style::SingleQuoted, 5, 7),
            ("\"a\\tb x\"", "a\tb x", Style::DoubleQuoted, 4, 6),
            ("\"\\u00e9 z\"", "é z", Style::Json, 3, 8),
        ];
        for (raw, value, style, vo, expect) in cases {
            let n = node(raw, value, style);
            assert_eq!(file_offset(raw, &n, vo), expect, "{raw:?}");
        }
    }

    /// Block scalars: (file text, block start as the front ends give it, decoded value,
    /// style, value offset, expected (line, column), 1-based).
    #[test]
    fn maps_block_scalars() {
        let pos = |text: &str, off: usize| {
            let before = &text[..off];
            let line = before.matches('\n').count() + 1;
            let col = off - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            (line, col)
        };
        type Case = (
            &'static str,
            &'static str,
            &'static str,
            Style,
            usize,
            (usize, usize),
        );
        let cases: &[Case] = &[
            // literal, clip: first, middle and last line
            (
                "k: |\n  ab\n  cd\n  ef\nn: 1\n",
                "|",
                "ab\ncd\nef\n",
                Style::Literal,
                0,
                (2, 3),
            ),
            (
                "k: |\n  ab\n  cd\n  ef\nn: 1\n",
                "|",
                "ab\ncd\nef\n",
                Style::Literal,
                4,
                (3, 4),
            ),
            (
                "k: |\n  ab\n  cd\n  ef\nn: 1\n",
                "ab",
                "ab\ncd\nef\n",
                Style::Literal,
                7,
                (4, 4),
            ),
            // strip and keep chomping, comment on the header
            (
                "k: |- # c\n    ab\n    cd\n",
                "|",
                "ab\ncd",
                Style::Literal,
                3,
                (3, 5),
            ),
            (
                "k: |+\n  ab\n\n  cd\n\n",
                "ab",
                "ab\n\ncd\n\n",
                Style::Literal,
                4,
                (4, 3),
            ),
            // explicit indentation with a more-indented first line
            (
                "k: |2\n     ab\n    cd\n",
                "|",
                "   ab\n  cd\n",
                Style::Literal,
                7,
                (3, 4),
            ),
            // leading blank lines
            (
                "k: |\n\n  ab\n  cd\n",
                "ab",
                "\nab\ncd\n",
                Style::Literal,
                4,
                (4, 3),
            ),
            // CRLF
            (
                "k: |\r\n  ab\r\n  cd\r\n",
                "|",
                "ab\ncd\n",
                Style::Literal,
                4,
                (3, 4),
            ),
            // folded: lines joined by spaces, a blank line, a more-indented line
            (
                "k: >\n  ab\n  cd\n\n  ef\n    gh\n  ij\n",
                ">",
                "ab cd\nef\n  gh\nij\n",
                Style::Folded,
                4,
                (3, 4),
            ),
            (
                "k: >\n  ab\n  cd\n\n  ef\n    gh\n  ij\n",
                "ab",
                "ab cd\nef\n  gh\nij\n",
                Style::Folded,
                6,
                (5, 3),
            ),
            (
                "k: >\n  ab\n  cd\n\n  ef\n    gh\n  ij\n",
                ">",
                "ab cd\nef\n  gh\nij\n",
                Style::Folded,
                12,
                (6, 6),
            ),
            (
                "k: >-\n  ab\n  cd\n",
                ">",
                "ab cd",
                Style::Folded,
                3,
                (3, 3),
            ),
            // the example of issue #25: header on line 2, content indented 10, CEL column 27
            (
                "a:\n  rule: |\n          x\n          0123456789012345678901234567890\n",
                "|",
                "x\n0123456789012345678901234567890\n",
                Style::Literal,
                2 + 26,
                (4, 37),
            ),
        ];
        for &(text, at, value, style, off, want) in cases {
            let start = text.find(at).unwrap();
            let end = text.len();
            let n = Node::new(Span::new(start, end), style, Value::String(value.into()));
            assert_eq!(
                pos(text, file_offset(text, &n, off)),
                want,
                "{text:?} @{off} from {at:?}"
            );
        }
    }
}
