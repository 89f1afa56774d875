//! Stage 4: reporting. Every format reads the same resolved diagnostics.

pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;

use crate::diag::{Diagnostic, Location, Severity};
use crate::load::LoadedFile;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
    Junit,
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
}

impl Summary {
    pub fn count(&mut self, diags: &[Diagnostic]) {
        for d in diags {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
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
}

impl Report<'_> {
    pub fn render(&self, format: Format, color: bool) -> String {
        match format {
            Format::Human => human::render(self, color),
            Format::Json => json::render(self),
            Format::Sarif => sarif::render(self),
            Format::Github => github::render(self),
            Format::Junit => junit::render(self),
        }
    }
}
