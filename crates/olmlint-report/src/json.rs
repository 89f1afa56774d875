//! `--format json`: the stable machine contract (version 1). Absent fields are `null`.
//!
//! Records are borrowed views serialized straight into the output buffer, fields declared in
//! byte order (the order the format has always had); building a `serde_json::Value` per
//! finding first cost ≈ 10× the output size in memory at 100 000 bundles.

use super::{resolve, Report, Resolved};
use olmlint_base::diag::{Diagnostic, Location};
use serde::Serialize;

#[derive(Serialize)]
struct Document<'a> {
    /// The plan: every linted catalog, its path and why it is one.
    catalogs: Vec<CatalogOut>,
    diagnostics: Vec<Finding<'a>>,
    summary: serde_json::Value,
    tool: Tool,
    version: u32,
}

#[derive(Serialize)]
struct CatalogOut {
    kind: &'static str,
    path: String,
    reason: String,
}

fn catalog(c: &olmlint_load::discover::Planned) -> CatalogOut {
    use olmlint_load::discover::Why;
    let kind = match c.why {
        Why::Given => "given",
        Why::OperatorRepository => "operator-repository",
        Why::Version => "openshift-version",
        Why::Image(_) => "image",
        Why::Release => "openshift-release",
        Why::Template => "template",
        Why::Bundle => "bundle",
        Why::Holding(_) => "holding",
        Why::Changed => "changed",
        Why::Configured => "configured",
        Why::Found => "found",
    };
    let path = olmlint_load::display_path(&c.path);
    CatalogOut {
        kind,
        path: if path.is_empty() { ".".into() } else { path },
        reason: c.reason(),
    }
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Finding<'a> {
    bundle: Option<&'a str>,
    column: Option<u32>,
    end_column: Option<u32>,
    end_line: Option<u32>,
    file: Option<String>,
    fix: Option<FixOut<'a>>,
    help: Option<&'a str>,
    line: Option<u32>,
    message: &'a str,
    name: &'static str,
    package: Option<&'a str>,
    pointer: Option<&'a str>,
    related: Vec<RelatedOut<'a>>,
    rule: &'static str,
    severity: &'static str,
}

#[derive(Serialize)]
struct RelatedOut<'a> {
    /// The bundle of a finding folded into this one (with `rule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    bundle: Option<&'a str>,
    column: Option<u32>,
    file: Option<String>,
    line: Option<u32>,
    message: &'a str,
    /// The rule of a finding folded into this one: its cause (one root cause, one finding).
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
}

#[derive(Serialize)]
struct FixOut<'a> {
    description: &'a str,
    edits: Vec<EditOut>,
    safe: bool,
}

#[derive(Serialize)]
struct EditOut {
    column: Option<u32>,
    end_column: Option<u32>,
    end_line: Option<u32>,
    file: Option<String>,
    line: Option<u32>,
    replacement: Option<String>,
}

/// The location fields shared by findings, related locations and edits.
struct Place {
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    end_line: Option<u32>,
    end_column: Option<u32>,
}

impl From<Option<Resolved>> for Place {
    fn from(r: Option<Resolved>) -> Self {
        match r {
            Some(r) => Place {
                file: Some(r.file),
                line: Some(r.line),
                column: Some(r.column),
                end_line: Some(r.end_line),
                end_column: Some(r.end_column),
            },
            None => Place {
                file: None,
                line: None,
                column: None,
                end_line: None,
                end_column: None,
            },
        }
    }
}

fn finding<'a>(r: &Report<'a>, d: &'a Diagnostic) -> Finding<'a> {
    let at = Place::from(resolve(r.files, d.location));
    let related = d
        .related
        .iter()
        .map(|rel| {
            let l = Place::from(resolve(r.files, rel.location));
            RelatedOut {
                bundle: rel.folded.as_ref().and_then(|f| f.bundle.as_deref()),
                column: l.column,
                file: l.file,
                line: l.line,
                message: &rel.message,
                rule: rel.folded.as_ref().map(|f| f.rule),
            }
        })
        .collect();
    let fix = d.fix.as_ref().map(|f| FixOut {
        description: &f.description,
        safe: f.safe,
        edits: f
            .edits
            .iter()
            .map(|e| {
                let l = Place::from(resolve(
                    r.files,
                    Some(Location {
                        file: e.file,
                        span: e.span,
                    }),
                ));
                EditOut {
                    column: l.column,
                    end_column: l.end_column,
                    end_line: l.end_line,
                    file: l.file,
                    line: l.line,
                    replacement: olmlint_load::fix::edit_text(r.files, e),
                }
            })
            .collect(),
    });
    Finding {
        bundle: d.bundle.as_deref(),
        column: at.column,
        end_column: at.end_column,
        end_line: at.end_line,
        file: at.file,
        fix,
        help: d.help.as_deref(),
        line: at.line,
        message: &d.message,
        name: d.rule_name(),
        package: d.package.as_deref(),
        pointer: d.pointer.as_deref(),
        related,
        rule: d.rule,
        severity: d.severity.as_str(),
    }
}

pub fn render(r: &Report<'_>) -> String {
    let doc = Document {
        catalogs: r.catalogs.iter().map(catalog).collect(),
        diagnostics: r.diags.iter().map(|d| finding(r, d)).collect(),
        summary: serde_json::to_value(r.summary).unwrap_or_default(),
        tool: Tool {
            name: "olmlint",
            version: env!("CARGO_PKG_VERSION"),
        },
        version: 1,
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
