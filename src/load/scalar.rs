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
    align(raw, value, node.style, value_offset).map_or(start, |o| start + o)
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
        Style::Literal | Style::Folded => raw.find('\n').map_or(raw.len(), |i| i + 1),
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
    use crate::load::tree::{Span, Value};

    fn node(raw: &str, value: &str, style: Style) -> Node {
        Node::new(Span::new(0, raw.len()), style, Value::String(value.into()))
    }

    #[test]
    fn maps_through_styles() {
        let cases = [
            ("a == b", "a == b", Style::Plain, 5, 5),
            ("'it''s x'", "it's x", Style::SingleQuoted, 5, 7),
            ("\"a\\tb x\"", "a\tb x", Style::DoubleQuoted, 4, 6),
            ("|\n  line1\n  x y\n", "line1\nx y\n", Style::Literal, 8, 14),
            (">\n  ab\n  cd\n", "ab cd\n", Style::Folded, 3, 9),
            ("\"\\u00e9 z\"", "é z", Style::Json, 3, 8),
        ];
        for (raw, value, style, vo, expect) in cases {
            let n = node(raw, value, style);
            assert_eq!(file_offset(raw, &n, vo), expect, "{raw:?}");
        }
    }
}
