//! Catalog text in olmlint's outputs: one helper per context it lands in.
//!
//! A pull request controls every name, file name and value of a catalog, and findings quote
//! them. Whatever format a report is written in, that text must display as text and never act:
//!
//! - display text (terminal, CI log, HTML, SVG, Mermaid, DOT, Markdown, JUnit, SARIF messages):
//!   control characters other than tab and line feed, the line and paragraph separators, the
//!   bidirectional formatting controls (Trojan Source: text that displays in another order
//!   than it reads) and the non-characters U+FFFE/U+FFFF (not XML 1.0 characters) are shown
//!   as visible `\u{202e}`-style escapes ([`is_hidden`], [`push_visible`]);
//! - the GitHub runner's workflow commands: a line starting with `::` (handled by
//!   `olmlint_report::terminal_safe`) and the legacy `##[command]` syntax, which the runner
//!   accepts anywhere in a line, are broken by a character that does not change what a
//!   reader sees ([`break_legacy_commands`]);
//! - Markdown: [`md_text`] for running text (a table cell included), [`md_code`] for names
//!   shown as code (headings, lists, the location column);
//! - JSON (`-f json`, `-f sarif`, `graph -f json`) is data and stays faithful: [`json_text`]
//!   writes the same characters as `\uXXXX` escapes, so the bytes hold no bidi control, no
//!   C1 control and no `##[`, and a JSON reader gets back exactly the catalog's text.

use std::fmt::Write as _;

/// The bidirectional formatting controls: embeddings and overrides (U+202A–U+202E), isolates
/// (U+2066–U+2069) and the implicit marks (U+200E, U+200F, U+061C).
pub fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}

/// Characters displayed as escapes: control characters but tab and line feed (terminal
/// escape sequences, NUL, C1), U+2028/U+2029 (line breaks to some readers), bidi controls and
/// U+FFFE/U+FFFF.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || is_bidi(c)
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}')
}

/// Appends `c` as a visible escape: `\u{202e}`.
pub fn push_visible(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// `s` with every [`is_hidden`] character shown as an escape.
pub fn visible(s: &str) -> String {
    if !s.chars().any(is_hidden) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_hidden(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// The GitHub runner's legacy command prefix, honoured anywhere in a line of a step's output
/// (`##[set-output name=x;]v`, `##[error]…`, `##[group]…`).
pub const LEGACY_COMMAND: &str = "##[";

/// `s` with the `[` of every `##[` written as `bracket` (a zero-width space before it in
/// plain text, `&#91;` in markup): the runner no longer sees a command, a reader sees the same.
pub fn break_legacy_commands(s: String, bracket: &str) -> String {
    if s.contains(LEGACY_COMMAND) {
        s.replace(LEGACY_COMMAND, &format!("##{bracket}"))
    } else {
        s
    }
}

/// For plain text: a zero-width space between `##` and `[`.
pub const ZWSP_BRACKET: &str = "\u{200b}[";

/// ASCII characters that Markdown, GFM or GitHub read as markup somewhere in a line: escapes,
/// code, emphasis, strikethrough, links and images, HTML and entities, table cells, headings
/// and issue references, math, Mermaid directives (`%%{`), autolinks (`https:`) and mentions.
const MD_MARKUP: &str = "\\`*_~[]!<>&|#$%:@";

/// Markdown running text (a sentence, a table cell): every [`MD_MARKUP`] character as a
/// numeric character reference (`&#91;`), which Markdown decodes into text and never reads
/// as markup (a `|` so written does not split a table cell either); line breaks become
/// spaces and [`is_hidden`] characters escapes.
pub fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if MD_MARKUP.contains(c) => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            // The visible escape, its backslash written as a reference too: `&#92;u{202e}`.
            c if is_hidden(c) => {
                let _ = write!(out, "&#92;u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Characters that end a code span or mean something where one stands (a table cell), or
/// that a reader of the raw summary could take for markup.
const CODE_UNSAFE: &str = "`|[]<>!%#&\\";

/// Catalog text shown as code, in any Markdown context (a heading, a sentence, a table cell):
/// a code span `` `name` `` when the text holds nothing that could end one or act in a table
/// (the common case: `catalog/foo.yaml:3:5`), else `<code>` around [`md_text`] (GitHub keeps
/// `<code>`; inside it the text is escaped like any other).
pub fn md_code(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && s.chars()
            .all(|c| !CODE_UNSAFE.contains(c) && !is_hidden(c) && c != '\n' && c != '\r');
    if plain {
        format!("`{s}`")
    } else {
        format!("<code>{}</code>", md_text(s))
    }
}

/// A JSON text safe to print: bidi controls, U+2028/U+2029, DEL and C1 controls,
/// U+FFFE/U+FFFF and the `[` of `##[` written as `\uXXXX` escapes. These characters occur
/// only inside strings of a JSON text (the structure is ASCII; `#` is in no escape), so the
/// document is the same data.
pub fn json_text(s: String) -> String {
    let needs = |c: char| {
        is_bidi(c)
            || matches!(
                c,
                '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}'
            )
    };
    let s = break_legacy_commands(s, "\\u005b");
    if !s.chars().any(needs) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_separators_are_shown() {
        assert_eq!(visible("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(visible("tab\tline\n"), "tab\tline\n");
        assert_eq!(visible("\u{fffe}\u{200f}"), "\\u{fffe}\\u{200f}");
    }

    #[test]
    fn markdown_text_is_inert() {
        assert_eq!(
            md_text("![x](https://e/b.png) <img> a|b *c*\nnext"),
            "&#33;&#91;x&#93;(https&#58;//e/b.png) &#60;img&#62; a&#124;b &#42;c&#42; next"
        );
        assert_eq!(md_text("##[error]"), "&#35;&#35;&#91;error&#93;");
        assert_eq!(md_text("a\u{202e}"), "a&#92;u{202e}");
    }

    #[test]
    fn code_is_a_span_or_escaped_html() {
        assert_eq!(
            md_code("catalog/foo_bar.yaml:3:5"),
            "`catalog/foo_bar.yaml:3:5`"
        );
        assert_eq!(md_code("a``b"), "<code>a&#96;&#96;b</code>");
        assert_eq!(
            md_code("p|![b](x)"),
            "<code>p&#124;&#33;&#91;b&#93;(x)</code>"
        );
        assert_eq!(md_code(" x"), "<code> x</code>");
        assert_eq!(md_code(""), "<code></code>");
        assert_eq!(md_code("a\nb"), "<code>a b</code>");
    }

    #[test]
    fn json_stays_the_same_data() {
        let v = serde_json::json!({"m": "a\u{202e}b\u{2028}##[set-output name=x;]\u{9b}"});
        let text = json_text(serde_json::to_string(&v).unwrap());
        assert!(
            !text.contains('\u{202e}') && !text.contains("##["),
            "{text}"
        );
        assert!(text.is_ascii(), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
}
