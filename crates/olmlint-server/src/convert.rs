//! olmlint's byte spans and findings ↔ the protocol's positions and diagnostics.

use lsp_types as lsp;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::source::SourceFile;
use olmlint_base::tree::Span;

/// How a position's `character` counts: UTF-16 code units (the protocol's default, what
/// every client understands) or bytes, when the client offers `utf-8` (negotiated in
/// `initialize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// The encoding to use among those the client lists (`general.positionEncodings`): UTF-8
    /// when offered (no conversion), else UTF-16.
    pub fn negotiate(offered: &[String]) -> Self {
        if offered.iter().any(|e| e == "utf-8") {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        }
    }

    pub fn kind(self) -> lsp::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        }
    }

    /// Code units of `s` in this encoding.
    fn units(self, s: &str) -> usize {
        match self {
            Encoding::Utf8 => s.len(),
            Encoding::Utf16 if s.is_ascii() => s.len(),
            Encoding::Utf16 => s.chars().map(char::len_utf16).sum(),
        }
    }
}

/// The largest character boundary of `text` at or before `byte`.
fn floor_boundary(text: &str, byte: usize) -> usize {
    let mut b = byte.min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    b
}

/// The protocol position of byte `byte` of a loaded file.
pub fn position(source: &SourceFile, byte: usize, enc: Encoding) -> lsp::Position {
    let text: &str = &source.text;
    let byte = floor_boundary(text, byte);
    let line = source.position(byte).line;
    let start = source.line_start(line).unwrap_or(0).min(byte);
    let character = enc.units(text.get(start..byte).unwrap_or(""));
    lsp::Position::new(
        line.saturating_sub(1),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

/// The protocol position of byte `byte` of `text` (a text without a line index: the lines
/// before it are counted).
pub fn position_in(text: &str, byte: usize, enc: Encoding) -> lsp::Position {
    let byte = floor_boundary(text, byte);
    let before = text.get(..byte).unwrap_or("");
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before.as_bytes()).count();
    let character = enc.units(before.get(start..).unwrap_or(""));
    lsp::Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

pub fn range(source: &SourceFile, span: Span, enc: Encoding) -> lsp::Range {
    lsp::Range::new(
        position(source, span.start(), enc),
        position(source, span.end(), enc),
    )
}

/// The byte offset of a protocol position in `text` (an edit's range): past the end of a
/// line is its end, past the last line the end of the text (as the protocol says).
pub fn offset(text: &str, pos: lsp::Position, enc: Encoding) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match memchr::memchr(b'\n', text.as_bytes().get(start..).unwrap_or_default()) {
            Some(nl) => start += nl + 1,
            None => return text.len(),
        }
    }
    let line = text.get(start..).unwrap_or("");
    let line = line.split_inclusive('\n').next().unwrap_or("");
    let content = line.trim_end_matches(['\n', '\r']);
    let want = pos.character as usize;
    match enc {
        Encoding::Utf8 => start + floor_boundary(content, want),
        Encoding::Utf16 => {
            let mut units = 0;
            for (i, c) in content.char_indices() {
                if units >= want {
                    return start + i;
                }
                units += c.len_utf16();
            }
            start + content.len()
        }
    }
}

/// The protocol's diagnostic for a finding located in `source`: the rule as its code, the
/// rule's book page, the help after the message, related places in any file of the run
/// (`related_at` gives a file's URI and source by index) and related notes without a place
/// appended to the message.
pub fn diagnostic<'f>(
    d: &Diagnostic,
    range: lsp::Range,
    related_at: &dyn Fn(usize) -> Option<(String, &'f SourceFile)>,
    enc: Encoding,
) -> lsp::Diagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push('\n');
        message.push_str(help);
    }
    let mut related = Vec::new();
    for r in &d.related {
        match r
            .location
            .and_then(|l| related_at(l.file).map(|(uri, source)| (uri, source, l.span)))
        {
            Some((uri, source, span)) => related.push(lsp::DiagnosticRelatedInformation::new(
                lsp::Location::new(lsp::Uri(uri), self::range(source, span, enc)),
                r.message.clone(),
            )),
            None => {
                message.push('\n');
                message.push_str(&r.message);
            }
        }
    }
    let severity = match d.severity {
        Severity::Error => lsp::DiagnosticSeverity::Error,
        Severity::Warning => lsp::DiagnosticSeverity::Warning,
        Severity::Info => lsp::DiagnosticSeverity::Information,
    };
    lsp::Diagnostic {
        range,
        severity: Some(severity),
        code: Some(lsp::Code::String(d.rule.to_string())),
        code_description: olmlint_base::rules::get(d.rule)
            .map(|r| lsp::CodeDescription::new(lsp::Uri(r.book_url()))),
        source: Some("olmlint".to_string()),
        message: lsp::Message::String(message),
        tags: tags(d.rule),
        related_information: (!related.is_empty()).then_some(related),
        data: None,
    }
}

/// The rule's diagnostic tags (`tags:` of its page): faded when unnecessary, struck through
/// when deprecated.
fn tags(rule: &str) -> Option<Vec<lsp::DiagnosticTag>> {
    let tags: Vec<lsp::DiagnosticTag> = olmlint_base::rules::get(rule)?
        .tags
        .iter()
        .filter_map(|t| match t.as_str() {
            "unnecessary" => Some(lsp::DiagnosticTag::Unnecessary),
            "deprecated" => Some(lsp::DiagnosticTag::Deprecated),
            _ => None,
        })
        .collect();
    (!tags.is_empty()).then_some(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        let text = "a: é😀x\nb: 1\n";
        let f = SourceFile::new("f".into(), "f".into(), text.into());
        let x = text.find('x').unwrap();
        assert_eq!(position(&f, x, Encoding::Utf16), lsp::Position::new(0, 6));
        assert_eq!(position(&f, x, Encoding::Utf8), lsp::Position::new(0, 9));
        let b = text.find('b').unwrap();
        assert_eq!(position(&f, b, Encoding::Utf16), lsp::Position::new(1, 0));
        for enc in [Encoding::Utf16, Encoding::Utf8] {
            for byte in [0, x, b, text.len()] {
                assert_eq!(offset(text, position(&f, byte, enc), enc), byte);
            }
        }
        for enc in [Encoding::Utf16, Encoding::Utf8] {
            for byte in [0, x, b, text.len()] {
                assert_eq!(position_in(text, byte, enc), position(&f, byte, enc));
            }
        }
        // Past the end of a line, and past the last line.
        assert_eq!(
            offset(text, lsp::Position::new(1, 99), Encoding::Utf16),
            text.len() - 1
        );
        assert_eq!(
            offset(text, lsp::Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
    }
}
