//! `--format junit`: one test suite per file, one test case per finding, one passing case for
//! a clean file, for CI systems that only read JUnit XML. A finding fails its case only when
//! it reaches `--fail-on` (as it fails the run); below, the case passes and shows the finding
//! in `<system-out>`. `errors` (Jenkins' schema requires it) counts cases that could not run:
//! always 0.

use super::{resolve, Report};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// XML text or attribute value: the shared markup escape (XML 1.0's Char production holds:
/// controls, bidi controls and U+FFFE/U+FFFF are shown as `\u{..}` escapes).
fn xml(s: &str) -> String {
    crate::graph::escape_markup(s)
}

pub fn render(r: &Report<'_>) -> String {
    // Per file: (case name, fails, element inside the case).
    let mut by_file: BTreeMap<String, Vec<(String, bool, String)>> = BTreeMap::new();
    for f in r.files {
        by_file.entry(f.source.display.clone()).or_default();
    }
    for d in r.diags {
        let l = resolve(r.files, d.location);
        let file = l
            .as_ref()
            .map_or_else(|| "(no file)".to_string(), |l| l.file.clone());
        let pos = l.as_ref().map_or(String::new(), |l| {
            format!("{}:{}:{}", l.file, l.line, l.column)
        });
        let name = format!(
            "{} {} at {}",
            d.rule,
            d.rule_name(),
            if pos.is_empty() { "-" } else { &pos }
        );
        let mut body = format!("{pos}: {}: {}", d.severity.as_str(), d.message);
        if let Some(h) = &d.help {
            let _ = write!(body, "\nhelp: {h}");
        }
        let fails = r.fail_on.is_some_and(|t| d.severity >= t);
        let body = if fails {
            format!(
                "<failure type=\"{}\" message=\"{}\">{}</failure>",
                d.rule,
                xml(&d.message),
                xml(&body)
            )
        } else {
            format!("<system-out>{}</system-out>", xml(&body))
        };
        by_file.entry(file).or_default().push((name, fails, body));
    }
    let total: usize = by_file.values().map(|v| v.len().max(1)).sum();
    let failures = |cases: &[(String, bool, String)]| cases.iter().filter(|c| c.1).count();
    let all_failures: usize = by_file.values().map(|c| failures(c)).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"olmlint\" tests=\"{total}\" failures=\"{all_failures}\" errors=\"0\">"
    );
    for (file, cases) in by_file {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            xml(&file),
            cases.len().max(1),
            failures(&cases)
        );
        if cases.is_empty() {
            let _ = writeln!(
                out,
                "    <testcase name=\"olmlint\" classname=\"{}\"/>",
                xml(&file)
            );
        }
        for (name, _, body) in cases {
            let _ = writeln!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\">{body}</testcase>",
                xml(&name),
                xml(&file)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
