//! `--format json`: the stable machine contract (version 1). Absent fields are `null`.

use super::{resolve, Report};
use serde_json::{json, Value};

pub fn render(r: &Report<'_>) -> String {
    let diagnostics: Vec<Value> = r
        .diags
        .iter()
        .map(|d| {
            let loc = resolve(r.files, d.location);
            let related: Vec<Value> = d
                .related
                .iter()
                .map(|rel| {
                    let l = resolve(r.files, rel.location);
                    json!({
                        "message": rel.message,
                        "file": l.as_ref().map(|l| l.file.clone()),
                        "line": l.as_ref().map(|l| l.line),
                        "column": l.as_ref().map(|l| l.column),
                    })
                })
                .collect();
            let fix = d.fix.as_ref().map(|f| {
                let edits: Vec<Value> = f
                    .edits
                    .iter()
                    .map(|e| {
                        let l = resolve(
                            r.files,
                            Some(crate::diag::Location {
                                file: e.file,
                                span: e.span,
                            }),
                        );
                        json!({
                            "file": l.as_ref().map(|l| l.file.clone()),
                            "line": l.as_ref().map(|l| l.line),
                            "column": l.as_ref().map(|l| l.column),
                            "end_line": l.as_ref().map(|l| l.end_line),
                            "end_column": l.as_ref().map(|l| l.end_column),
                            "replacement": crate::fix::edit_text(r.files, e),
                        })
                    })
                    .collect();
                json!({"description": f.description, "safe": f.safe, "edits": edits})
            });
            json!({
                "rule": d.rule,
                "name": d.rule_name(),
                "severity": d.severity.as_str(),
                "message": d.message,
                "help": d.help,
                "file": loc.as_ref().map(|l| l.file.clone()),
                "line": loc.as_ref().map(|l| l.line),
                "column": loc.as_ref().map(|l| l.column),
                "end_line": loc.as_ref().map(|l| l.end_line),
                "end_column": loc.as_ref().map(|l| l.end_column),
                "pointer": d.pointer,
                "package": d.package,
                "bundle": d.bundle,
                "related": related,
                "fix": fix,
            })
        })
        .collect();
    let doc = json!({
        "version": 1,
        "tool": {"name": "olmlint", "version": env!("CARGO_PKG_VERSION")},
        "summary": r.summary,
        "diagnostics": diagnostics,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
