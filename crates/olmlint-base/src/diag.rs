//! The one diagnostics model every check writes and every report format reads.

use crate::tree::Span;

/// Defined with the rule registry, whose rules each have a default severity.
pub use crate::rules::Severity;

/// A place in a loaded file (index into the lint run's file table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: usize,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Related {
    pub message: String,
    pub location: Option<Location>,
    /// Set when this is a finding folded into its cause (see `check::fold_symptoms`), so
    /// that machine-readable output keeps every verdict.
    pub folded: Option<Folded>,
}

/// The identity of a finding folded into the finding of its cause.
#[derive(Clone, Debug)]
pub struct Folded {
    pub rule: &'static str,
    pub package: Option<String>,
    pub bundle: Option<String>,
}

/// A text edit for `--fix`: replace `span` of `file` with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    pub file: usize,
    pub span: Span,
    pub replacement: Replacement,
}

/// What an [`Edit`] puts in place of its span.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Replacement {
    /// Exactly this text.
    Raw(String),
    /// A mapping key or string with this value, quoted the way the original was (plain,
    /// `'single'` or `"double"`).
    Renamed(String),
    /// The original plain scalar, double-quoted (`4.20` → `"4.20"`).
    Quoted,
}

impl Edit {
    pub fn raw(file: usize, span: Span, text: impl Into<String>) -> Self {
        Edit {
            file,
            span,
            replacement: Replacement::Raw(text.into()),
        }
    }
    pub fn rename(file: usize, span: Span, name: impl Into<String>) -> Self {
        Edit {
            file,
            span,
            replacement: Replacement::Renamed(name.into()),
        }
    }
    pub fn quote(file: usize, span: Span) -> Self {
        Edit {
            file,
            span,
            replacement: Replacement::Quoted,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Fix {
    pub description: String,
    /// Safe fixes never change what OLM does with the catalog.
    pub safe: bool,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub location: Option<Location>,
    pub pointer: Option<String>,
    pub package: Option<String>,
    pub bundle: Option<String>,
    pub related: Vec<Related>,
    pub fix: Option<Fix>,
    /// Where this finding's cause would be reported: when an error finding exists at one of
    /// these locations, this one is a symptom of it and is folded into it (one root cause,
    /// one finding; see `check::fold_symptoms`). Not part of any output.
    pub explained_by: Vec<Location>,
    /// Findings of the same rule in the same file that this one stands for: left out by
    /// [`cap_per_rule_and_file`] (counted in the summary, named in a note).
    pub omitted: usize,
    /// Only a full run finds this: a rule family that reads the resolution found it, or it
    /// says that a suppression matched nothing (which takes every family's findings). A quick
    /// run (an editor's keystroke in a large catalog) leaves such findings out, and the
    /// language server shows the last full run's in their place. Not part of any output.
    pub deferred: bool,
}

/// Bound on what findings cost: at most `limit` findings of one rule in one file are kept (in
/// the order given); the last one kept counts the others in `omitted`. A file of two million
/// empty documents is then `limit` OLM003 findings and a count, not two million.
pub fn cap_per_rule_and_file(diags: Vec<Diagnostic>, limit: usize) -> Vec<Diagnostic> {
    type Key = (&'static str, Option<usize>);
    let key = |d: &Diagnostic| -> Key { (d.rule, d.location.map(|l| l.file)) };
    let mut totals: std::collections::HashMap<Key, usize> = Default::default();
    for d in &diags {
        *totals.entry(key(d)).or_default() += 1;
    }
    if totals.values().all(|&n| n <= limit) {
        return diags;
    }
    let mut kept: std::collections::HashMap<Key, (usize, usize)> = Default::default();
    let mut out: Vec<Diagnostic> =
        Vec::with_capacity(diags.len().min(totals.len().saturating_mul(limit)));
    for d in diags {
        let k = key(&d);
        let slot = kept.entry(k).or_insert((0, usize::MAX));
        if slot.0 >= limit {
            if let Some(last) = out.get_mut(slot.1) {
                last.omitted += 1 + d.omitted;
            }
            continue;
        }
        slot.0 += 1;
        slot.1 = out.len();
        out.push(d);
    }
    out
}

/// Longest message, help, related message and package or bundle name a finding carries, in
/// bytes: catalog text quoted in findings (a 1 MB value, a 100 000-character rule) is elided
/// in the middle, so output stays proportional to the number of findings, not to the input.
pub const MAX_MESSAGE: usize = 4096;
pub const MAX_HELP: usize = 8192;
pub const MAX_RELATED: usize = 2048;
pub const MAX_NAME: usize = 512;

/// `s` cut to at most about `max` bytes: its beginning and end, with the number of characters
/// left out in between.
pub fn bounded(s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let floor = |mut i: usize| {
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head = floor(max * 2 / 3);
    let tail = floor(s.len() - max / 4);
    let tail = if tail < head { head } else { tail };
    let left_out = s.get(head..tail).map_or(0, |m| m.chars().count());
    format!(
        "{}…[{left_out} characters left out]…{}",
        s.get(..head).unwrap_or(""),
        s.get(tail..).unwrap_or("")
    )
}

impl Diagnostic {
    /// A diagnostic of `rule` at its default severity.
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        let severity = crate::rules::get(rule).map_or(Severity::Error, |r| r.severity);
        Diagnostic {
            rule,
            severity,
            message: bounded(message.into(), MAX_MESSAGE),
            help: None,
            location: None,
            pointer: None,
            package: None,
            bundle: None,
            related: Vec::new(),
            fix: None,
            explained_by: Vec::new(),
            omitted: 0,
            deferred: false,
        }
    }
    pub fn at(mut self, file: usize, span: Span) -> Self {
        self.location = Some(Location { file, span });
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(bounded(help.into(), MAX_HELP));
        self
    }
    pub fn pointer(mut self, p: impl Into<String>) -> Self {
        self.pointer = Some(p.into());
        self
    }
    pub fn package(mut self, p: Option<&str>) -> Self {
        self.package = p.map(|p| bounded(p.to_string(), MAX_NAME));
        self
    }
    pub fn bundle(mut self, b: Option<&str>) -> Self {
        self.bundle = b.map(|b| bounded(b.to_string(), MAX_NAME));
        self
    }
    pub fn severity(mut self, s: Severity) -> Self {
        self.severity = s;
        self
    }
    pub fn related(mut self, message: impl Into<String>, location: Option<Location>) -> Self {
        self.related.push(Related {
            message: bounded(message.into(), MAX_RELATED),
            location,
            folded: None,
        });
        self
    }
    /// A location whose error finding, if any, is this finding's cause.
    pub fn explained_by(mut self, at: Location) -> Self {
        self.explained_by.push(at);
        self
    }
    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
    /// This finding's (rule, package, bundle), then those of the findings folded into it:
    /// every verdict the run reached, e.g. each bundle OLM501 found uninstallable.
    pub fn verdicts(&self) -> impl Iterator<Item = (&'static str, Option<&str>, Option<&str>)> {
        std::iter::once((self.rule, self.package.as_deref(), self.bundle.as_deref())).chain(
            self.related.iter().filter_map(|r| {
                let f = r.folded.as_ref()?;
                Some((f.rule, f.package.as_deref(), f.bundle.as_deref()))
            }),
        )
    }
    pub fn rule_name(&self) -> &'static str {
        crate::rules::get(self.rule).map_or("unknown", |r| r.name.as_str())
    }
}

/// JSON pointer segment escaping (RFC 6901).
/// `base` with one more segment, escaped.
pub fn ptr(base: &str, seg: impl std::fmt::Display) -> String {
    format!("{base}/{}", pointer_segment(&seg.to_string()))
}

pub fn pointer_segment(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}
