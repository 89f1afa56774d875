//! `--format human`: miette's graphical report, in colour on a terminal and without colour
//! elsewhere (CI logs, pipes), grouped by package when findings concern several; and
//! `--format concise`, one line per finding. Sources are read through the per-file line
//! index (miette's own `SourceCode` impls rescan the whole file for every diagnostic).

use super::Report;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use olmlint_base::diag::{Diagnostic as Finding, Severity};
use olmlint_base::source::SourceFile;
use std::fmt;

/// Longest line shown in a snippet; catalog lines can hold megabytes of base64.
const MAX_SNIPPET_LINE: usize = 400;

/// A file's line index, with the text a snippet shows: the file's own, or its copy with
/// control characters made inert ([`inert_copy`]).
struct Indexed<'a>(&'a SourceFile, &'a str);

impl SourceCode for Indexed<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let f = self.0;
        let (start, end) = (span.offset(), span.offset() + span.len());
        if end > f.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let sp = f.position(start);
        let ep = f.position(end);
        let first = sp.line.saturating_sub(before as u32).max(1);
        let last = (ep.line + after as u32)
            .min(f.line_count() as u32)
            .max(first);
        let s = f.line_start(first).unwrap_or(0);
        let e = f.line_start(last + 1).unwrap_or(f.text.len()).max(s);
        let data = self.1.get(s..e).unwrap_or("").as_bytes();
        // The column is the span's own, so that the snippet header names the finding's
        // position (`file:4:17`, as the first line does), not its line's start.
        Ok(Box::new(MietteSpanContents::new_named(
            super::terminal_safe(&f.display, false),
            data,
            SourceSpan::from((s, e - s)),
            (first - 1) as usize,
            sp.column.saturating_sub(1) as usize,
            (last - first + 1) as usize,
        )))
    }
}

struct View<'a> {
    d: &'a Finding,
    source: Option<Indexed<'a>>,
    url: Option<String>,
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}
impl fmt::Display for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.d.message, subject(self.d))
    }
}

/// ` [bundle B]` or ` [package P]`: what a finding is about, after its message.
fn subject(d: &Finding) -> String {
    match (&d.package, &d.bundle) {
        (_, Some(b)) => format!(" [bundle {b}]"),
        (Some(p), None) => format!(" [package {p}]"),
        _ => String::new(),
    }
}
impl std::error::Error for View<'_> {}

impl miette::Diagnostic for View<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("{}({})", self.d.rule, self.d.rule_name())))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.d
            .help
            .as_ref()
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.url
            .as_ref()
            .map(|u| Box::new(u.clone()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let loc = self.d.location?;
        let src = self.source.as_ref()?;
        let clip = |start: usize, end: usize| {
            let line_end = src
                .0
                .text
                .get(start..)
                .and_then(|t| t.find('\n'))
                .map_or(src.0.text.len(), |i| start + i);
            (
                start,
                end.min(line_end.max(start + 1))
                    .min(start + MAX_SNIPPET_LINE)
                    .saturating_sub(start),
            )
        };
        let (s, len) = clip(loc.span.start(), loc.span.end());
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some("here".into()),
            (s, len),
        )];
        for rel in &self.d.related {
            if let Some(rl) = rel
                .location
                .filter(|l| l.file == loc.file && l.span != loc.span)
            {
                let (s, len) = clip(rl.span.start(), rl.span.end());
                labels.push(LabeledSpan::new_with_span(
                    Some(rel.message.clone()),
                    (s, len),
                ));
            }
        }
        Some(Box::new(labels.into_iter()))
    }
}

/// `text` with every control character (C0 other than tab and line breaks, DEL, C1, the
/// Unicode line and paragraph separators) replaced byte for byte by `?`, so that spans still
/// apply; `None` when there is none. Catalog text must be inert before miette colours the
/// report: the colour pass keeps escape sequences, and one from a catalog (`ESC[8m` hides
/// what follows) must not act on the reader's terminal.
fn inert_copy(text: &str) -> Option<String> {
    let bad = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t' | '\r')) || matches!(c, '\u{2028}' | '\u{2029}')
    };
    if !text.contains(bad) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if bad(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A finding with its texts made inert (control characters escaped) before they reach
/// miette; the finding itself when there is nothing to escape.
fn inert_finding(d: &Finding) -> std::borrow::Cow<'_, Finding> {
    let needs = |s: &str| s.contains(|c: char| c.is_control() && c != '\n' && c != '\t');
    let any = needs(&d.message)
        || d.help.as_deref().is_some_and(needs)
        || d.package.as_deref().is_some_and(needs)
        || d.bundle.as_deref().is_some_and(needs)
        || d.related.iter().any(|r| needs(&r.message));
    if !any {
        return std::borrow::Cow::Borrowed(d);
    }
    let safe = |s: &str| super::terminal_safe(s, false);
    let mut d = d.clone();
    d.message = safe(&d.message);
    d.help = d.help.as_deref().map(safe);
    d.package = d.package.as_deref().map(safe);
    d.bundle = d.bundle.as_deref().map(safe);
    for r in &mut d.related {
        r.message = safe(&r.message);
    }
    std::borrow::Cow::Owned(d)
}

pub fn render(r: &Report<'_>, color: bool) -> String {
    let mut out = String::new();
    // In colour, inert copies of the files findings show that hold control characters, made
    // once. Without colour the whole report is escaped afterwards (`terminal_safe`), so
    // this work would be done twice.
    let mut shown: Vec<usize> = r
        .diags
        .iter()
        .filter_map(|d| d.location.map(|l| l.file))
        .collect();
    shown.sort_unstable();
    shown.dedup();
    if !color {
        shown.clear();
    }
    let inert: std::collections::HashMap<usize, String> = shown
        .into_iter()
        .filter_map(|i| Some((i, inert_copy(&r.files.get(i)?.source.text)?)))
        .collect();
    let graphical = GraphicalReportHandler::new_themed(if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    })
    .with_links(false)
    .with_context_lines(1)
    .with_width(120);
    for (package, group) in by_package(r.diags) {
        if let Some(p) = package {
            out.push_str(&group_header(&super::terminal_safe(p, false), &group));
        }
        for d in group {
            let d = if color {
                inert_finding(d)
            } else {
                std::borrow::Cow::Borrowed(d)
            };
            finding(r, &d, &inert, &graphical, &mut out);
        }
    }
    out
}

/// Findings grouped by package (findings of no package first), each group in report order;
/// one group, without a header, when they concern at most one package.
fn by_package(diags: &[Finding]) -> Vec<(Option<&str>, Vec<&Finding>)> {
    let mut groups: std::collections::BTreeMap<Option<&str>, Vec<&Finding>> =
        std::collections::BTreeMap::new();
    for d in diags {
        groups.entry(d.package.as_deref()).or_default().push(d);
    }
    if groups.keys().filter(|k| k.is_some()).count() <= 1 {
        return vec![(None, diags.iter().collect())];
    }
    groups.into_iter().collect()
}

fn group_header(package: &str, group: &[&Finding]) -> String {
    let count = |s: Severity| group.iter().filter(|d| d.severity == s).count();
    let mut parts = Vec::new();
    for (s, label) in [
        (Severity::Error, "error"),
        (Severity::Warning, "warning"),
        (Severity::Info, "info"),
    ] {
        match count(s) {
            0 => {}
            1 => parts.push(format!("1 {label}")),
            n => parts.push(format!("{n} {label}s")),
        }
    }
    format!("── package {package}: {} ──\n\n", parts.join(", "))
}

fn finding(
    r: &Report<'_>,
    d: &Finding,
    inert: &std::collections::HashMap<usize, String>,
    graphical: &GraphicalReportHandler,
    out: &mut String,
) {
    let source = d.location.and_then(|l| {
        let f = r.files.get(l.file)?;
        let text = inert
            .get(&l.file)
            .map_or(f.source.text.as_str(), String::as_str);
        Some(Indexed(&f.source, text))
    });
    // Snippets of megabyte-long lines are useless; fall back to the plain location.
    let long_line = d.location.zip(source.as_ref()).is_some_and(|(l, s)| {
        let p = s.0.position(l.span.start());
        s.0.line_text(p.line).len() > MAX_SNIPPET_LINE
    });
    let view = View {
        d,
        source: if long_line { None } else { source },
        url: olmlint_base::rules::get(d.rule).map(|r| r.url()),
    };
    if let Some(l) = super::resolve(r.files, d.location) {
        let file = super::terminal_safe(&l.file, false);
        out.push_str(&format!("{file}:{}:{}: ", l.line, l.column));
    }
    out.push_str(&format!("{}[{}]\n", d.severity.as_str(), d.rule));
    let _ = graphical.render_report(out, &view);
    for rel in &d.related {
        if let Some(l) = super::resolve(r.files, rel.location) {
            out.push_str(&format!(
                "  = note: {} ({}:{}:{})\n",
                rel.message,
                super::terminal_safe(&l.file, false),
                l.line,
                l.column
            ));
        } else {
            out.push_str(&format!("  = note: {}\n", rel.message));
        }
    }
    out.push('\n');
}

/// `--format concise`: `file:line:col: severity[ID] message [bundle B]`, one line per finding
/// (for grep, editors' problem matchers and compilation modes).
pub fn render_concise(r: &Report<'_>) -> String {
    let mut out = String::new();
    for d in r.diags {
        match super::resolve(r.files, d.location) {
            Some(l) => out.push_str(&format!("{}:{}:{}: ", l.file, l.line, l.column)),
            None => out.push_str("olmlint: "),
        }
        out.push_str(&format!("{}[{}] ", d.severity.as_str(), d.rule));
        out.push_str(&d.message.replace('\n', " "));
        out.push_str(&subject(d));
        out.push('\n');
    }
    out
}

/// `--statistics`: findings per rule and per package, most frequent first.
pub fn statistics(r: &Report<'_>) -> String {
    use std::collections::BTreeMap;
    let mut rules: BTreeMap<&str, (usize, Severity)> = BTreeMap::new();
    let mut packages: BTreeMap<&str, usize> = BTreeMap::new();
    for d in r.diags {
        // A listed finding counts for those of its rule and file left out of the report.
        let n = 1 + d.omitted;
        let e = rules.entry(d.rule).or_insert((0, d.severity));
        e.0 += n;
        e.1 = e.1.max(d.severity);
        *packages
            .entry(d.package.as_deref().unwrap_or("-"))
            .or_default() += n;
    }
    let mut rules: Vec<_> = rules.into_iter().collect();
    rules.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    let mut packages: Vec<_> = packages.into_iter().collect();
    packages.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out = String::new();
    for (rule, (n, sev)) in &rules {
        let name = olmlint_base::rules::get(rule).map_or("", |x| x.name.as_str());
        out.push_str(&format!("{n:>6}  {rule}  {:<7}  {name}\n", sev.as_str()));
    }
    if !packages.is_empty() {
        out.push_str("\nper package:\n");
        for (p, n) in &packages {
            out.push_str(&format!("{n:>6}  {p}\n"));
        }
    }
    out
}

/// The one-line summary printed to stderr after any format.
/// `fix_command` applies the safe fixes to what was linted (`olmlint lint --fix catalog/`).
pub fn summary_line(r: &Report<'_>, elapsed: std::time::Duration, fix_command: &str) -> String {
    let s = &r.summary;
    let mark = if s.errors > 0 {
        "✖"
    } else if s.warnings > 0 {
        "⚠"
    } else {
        "✔"
    };
    // A listed finding stands for those of its rule and file left out of the report
    // (`omitted`): they are alike, so they count as fixable alike.
    let weight = |d: &&Finding| 1 + d.omitted;
    let safe: usize = r
        .diags
        .iter()
        .filter(|d| d.fix.as_ref().is_some_and(|f| f.safe))
        .map(|d| weight(&d))
        .sum();
    let all: usize = r
        .diags
        .iter()
        .filter(|d| d.fix.is_some())
        .map(|d| weight(&d))
        .sum();
    let fixable = match (safe, all - safe) {
        (0, 0) => String::new(),
        (n, 0) => format!("\n  {n} fixable with `{fix_command}`"),
        (0, u) => format!(
            "\n  {u} fixable with `--unsafe-fixes` (review them first: they change what OLM does)"
        ),
        (n, u) => {
            format!("\n  {n} fixable with `{fix_command}`, {u} more with `--unsafe-fixes`")
        }
    };
    let not_shown = if s.not_shown > 0 {
        format!(
            "\n  {} finding(s) not shown: the report lists at most `limits.max-findings-per-rule-per-file` of one rule in one file",
            s.not_shown
        )
    } else {
        String::new()
    };
    let left_out = s.left_out();
    format!(
        "{mark} {} error(s), {} warning(s), {} info(s) — {} file(s), {} document(s), {} package(s), {} bundle(s) in {:.2}s{left_out}{}{fixable}{not_shown}\n",
        s.errors,
        s.warnings,
        s.infos,
        s.files,
        s.documents,
        s.packages,
        s.bundles,
        elapsed.as_secs_f64(),
        most_frequent(r)
    )
}

/// "most: OLM507 ×101, OLM304 ×102 …; packages: …" when findings are many enough for it to
/// matter (more than five).
fn most_frequent(r: &Report<'_>) -> String {
    if r.diags.len() <= 5 {
        return String::new();
    }
    // Weighted by the findings each stands for (those left out of the report).
    let top = |keys: Vec<(&str, usize)>| {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for (k, n) in keys {
            *counts.entry(k).or_default() += n;
        }
        let mut v: Vec<(&str, usize)> = counts.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let more = v.len().saturating_sub(3);
        let mut parts: Vec<String> = v.iter().take(3).map(|(k, n)| format!("{k} ×{n}")).collect();
        if more > 0 {
            parts.push(format!("{more} more"));
        }
        parts.join(", ")
    };
    let rules = top(r.diags.iter().map(|d| (d.rule, 1 + d.omitted)).collect());
    let packages: Vec<(&str, usize)> = r
        .diags
        .iter()
        .filter_map(|d| Some((d.package.as_deref()?, 1 + d.omitted)))
        .collect();
    let packages = if packages.is_empty() {
        String::new()
    } else {
        format!("; packages: {}", top(packages))
    };
    format!("\n  most: {rules}{packages} (`--statistics` for all)")
}
