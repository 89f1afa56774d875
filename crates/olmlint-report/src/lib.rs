//! Stage 4: reporting. Every format reads the same resolved diagnostics.
// Long functions are split into named stages; clippy.toml sets the threshold (unit tests exempt).
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod graph;

pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;

use olmlint_base::diag::{Diagnostic, Location, Severity};
use olmlint_load::LoadedFile;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    /// One line per finding: `file:line:col: severity[ID] message`.
    Concise,
    Json,
    Sarif,
    Github,
    Junit,
    /// A self-contained HTML page: findings with filters and snippets, and the upgrade graphs.
    Html,
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub packages: usize,
    pub bundles: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings counted above but not listed: beyond `limits.max-findings-per-rule-per-file`.
    pub not_shown: usize,
    /// Findings left out because they already existed at the `--changed-since` ref
    /// (`--only-new`); not counted above.
    #[serde(skip_serializing_if = "is_zero")]
    pub preexisting: usize,
    /// Findings left out because the findings baseline file lists them; not counted above.
    #[serde(skip_serializing_if = "is_zero")]
    pub baselined: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Counts `diags` afresh (after findings were filtered out).
    pub fn recount(&mut self, diags: &[Diagnostic]) {
        self.errors = 0;
        self.warnings = 0;
        self.infos = 0;
        self.count(diags);
    }

    /// "; N pre-existing and M baselined finding(s) not reported", or nothing.
    pub fn left_out(&self) -> String {
        let mut parts = Vec::new();
        if self.preexisting > 0 {
            parts.push(format!(
                "{} already there before the change",
                self.preexisting
            ));
        }
        if self.baselined > 0 {
            parts.push(format!("{} in the findings baseline", self.baselined));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("; not reported: {}", parts.join(", "))
        }
    }

    pub fn count(&mut self, diags: &[Diagnostic]) {
        for d in diags {
            // A finding counts for those it stands for (left out by the per-file cap).
            let n = 1 + d.omitted;
            match d.severity {
                Severity::Error => self.errors += n,
                Severity::Warning => self.warnings += n,
                Severity::Info => self.infos += n,
            }
        }
    }
}

/// A location resolved to file name and 1-based positions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resolved {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

pub fn resolve(files: &[LoadedFile], loc: Option<Location>) -> Option<Resolved> {
    let loc = loc?;
    let f = files.get(loc.file)?;
    let s = f.source.position(loc.span.start());
    let e = f.source.position(loc.span.end());
    Some(Resolved {
        file: f.source.display.clone(),
        line: s.line,
        column: s.column,
        end_line: e.line,
        end_column: e.column,
    })
}

/// Deterministic order: file, position, rule, message.
pub fn sort(diags: &mut [Diagnostic], files: &[LoadedFile]) {
    let key = |d: &Diagnostic| {
        let r = resolve(files, d.location);
        (r.is_some(), r, d.rule, d.message.clone())
    };
    let mut keyed: Vec<_> = diags.iter().map(|d| (key(d), d.clone())).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    for (slot, (_, d)) in diags.iter_mut().zip(keyed) {
        *slot = d;
    }
}

pub struct Report<'a> {
    pub diags: &'a [Diagnostic],
    pub files: &'a [LoadedFile],
    pub summary: Summary,
    /// `--fail-on`: the lowest severity that fails the run (`None`: never). JUnit reports
    /// only those findings as failures.
    pub fail_on: Option<olmlint_base::diag::Severity>,
    /// The upgrade graphs with the findings overlaid (the HTML report draws them).
    pub graphs: &'a [crate::graph::PackageGraph],
    /// The catalogs linted and why (the discovery stage's plan); `-f json` lists them.
    pub catalogs: &'a [olmlint_load::discover::Planned],
}

/// Text for a terminal or a CI log, where catalog text (messages quote it, snippets show
/// it, file names are chosen by a pull request) must not act: control characters other than
/// tab and line feed (ESC sequences, BEL, NUL, C1), bidi controls and U+2028/U+2029 are shown
/// as `\u{1b}`-style escapes ([`olmlint_base::escape::is_hidden`]); a line that would start with `::`
/// (a GitHub workflow command such as `::add-mask::` or `::stop-commands::` when olmlint runs
/// directly in a workflow step) gets a zero-width space between the colons, and so does the
/// runner's legacy `##[command]` prefix, which it accepts anywhere in a line (between `##` and
/// `[`). `keep_ansi` keeps olmlint's own colour sequences (`ESC [ … m`).
pub fn terminal_safe(s: &str, keep_ansi: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && keep_ansi && chars.peek() == Some(&'[') {
            // An SGR sequence: ESC [ digits/semicolons m.
            let mut seq = String::from("\x1b[");
            chars.next();
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || n == ';' {
                    seq.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            if chars.peek() == Some(&'m') {
                chars.next();
                seq.push('m');
                out.push_str(&seq);
            } else {
                out.push_str(&seq.replace('\x1b', "\\u{1b}"));
            }
            continue;
        }
        if olmlint_base::escape::is_hidden(c) {
            olmlint_base::escape::push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    let out = olmlint_base::escape::break_legacy_commands(out, olmlint_base::escape::ZWSP_BRACKET);
    if !out.contains("::") {
        return out;
    }
    let mut safe = String::with_capacity(out.len() + 16);
    for line in out.split_inclusive('\n') {
        let body = line.trim_start();
        if let Some(rest) = body.strip_prefix("::") {
            safe.push_str(line.get(..line.len() - body.len()).unwrap_or(""));
            safe.push_str(":\u{200b}:");
            safe.push_str(rest);
        } else {
            safe.push_str(line);
        }
    }
    safe
}

impl Report<'_> {
    pub fn render(&self, format: Format, color: bool) -> String {
        match format {
            Format::Human => terminal_safe(&human::render(self, color), color),
            Format::Concise => terminal_safe(&human::render_concise(self), false),
            Format::Json => olmlint_base::escape::json_text(json::render(self)),
            Format::Sarif => olmlint_base::escape::json_text(sarif::render(self)),
            Format::Github => github::render(self),
            Format::Junit => junit::render(self),
            Format::Html => html::render(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn catalog_text_cannot_drive_a_terminal_or_a_workflow() {
        assert_eq!(
            terminal_safe("a\x1b]0;x\x07b\0", false),
            "a\\u{1b}]0;x\\u{7}b\\u{0}"
        );
        assert_eq!(
            terminal_safe("\x1b[31mred\x1b[0m", true),
            "\x1b[31mred\x1b[0m"
        );
        assert_eq!(terminal_safe("\x1b[31mred", false), "\\u{1b}[31mred");
        assert_eq!(terminal_safe("\x1b[2J", true), "\\u{1b}[2J");
        assert_eq!(
            terminal_safe("ok\n::add-mask::x\n  ::error::y\nz::w\n", false),
            "ok\n:\u{200b}:add-mask::x\n  :\u{200b}:error::y\nz::w\n"
        );
        assert_eq!(terminal_safe("tab\tand\nline", false), "tab\tand\nline");
        assert_eq!(
            terminal_safe("c1\u{85}\u{2028}", false),
            "c1\\u{85}\\u{2028}"
        );
        assert_eq!(
            terminal_safe("x ##[set-output name=a;]b \u{202e}", false),
            "x ##\u{200b}[set-output name=a;]b \\u{202e}"
        );
    }
}
