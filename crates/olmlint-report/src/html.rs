//! `--format html`: one self-contained page (no network: styles, script and drawings inline)
//! with the findings table, filters by severity, rule and package, each finding's snippet, and
//! the upgrade graphs of the linted packages with the findings overlaid. A CI run can keep it
//! as an artifact.
//!
//! Catalog text is untrusted: everything quoted is escaped, and the page's Content Security
//! Policy allows no script but the one below (by its hash) and no network at all.

use super::Report;
use olmlint_base::diag::{Diagnostic, Severity};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Lines shown around a finding, and the longest line shown whole.
const CONTEXT_LINES: u32 = 2;
const MAX_LINE: usize = 240;
/// Graphs beyond these sizes are drawn only for the packages with findings.
const MAX_GRAPH_NODES: usize = 4000;

/// The filter script. Its SHA-256 is in [`SCRIPT_HASH`] (the page's CSP allows only it; a unit
/// test recomputes the hash, and the browser test fails if they disagree).
pub const SCRIPT: &str = r##"(function () {
  var ids = ["severity", "rule", "package"];
  var sel = {};
  ids.forEach(function (k) { sel[k] = document.getElementById("f-" + k); });
  var text = document.getElementById("f-text");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#findings tbody tr"));
  var graphs = Array.prototype.slice.call(document.querySelectorAll("#graphs .package"));
  var shown = document.getElementById("shown");
  function apply(write) {
    var want = {};
    ids.forEach(function (k) { want[k] = sel[k].value; });
    var q = text.value.toLowerCase();
    var n = 0;
    rows.forEach(function (r) {
      var ok = ids.every(function (k) { return !want[k] || r.dataset[k] === want[k]; }) &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    graphs.forEach(function (g) {
      g.hidden = !!want["package"] && g.dataset["package"] !== want["package"];
    });
    shown.textContent = n + " of " + rows.length + " findings shown";
    if (write) {
      var parts = [];
      ids.forEach(function (k) { if (want[k]) { parts.push(k + "=" + encodeURIComponent(want[k])); } });
      if (q) { parts.push("text=" + encodeURIComponent(text.value)); }
      history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname);
    }
  }
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i < 0) { return; }
    var k = kv.slice(0, i), v;
    // A malformed escape (a link anyone can craft) drops that filter, not the script.
    try { v = decodeURIComponent(kv.slice(i + 1)); } catch (e) { return; }
    if (sel[k]) { sel[k].value = v; }
    if (k === "text") { text.value = v; }
  });
  ids.forEach(function (k) { sel[k].addEventListener("change", function () { apply(true); }); });
  text.addEventListener("input", function () { apply(true); });
  apply(false);
  document.body.dataset.ready = "true";
})();"##;

/// `sha256-` of [`SCRIPT`], base64 (recompute after any edit of the script: the unit test
/// `script_hash_matches` prints the right value).
pub const SCRIPT_HASH: &str = "sha256-8ttT0z4jYchFVxRPfCDmNtfW+NA2gvbW7yrTlDBbsho=";

const STYLE: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}\
header,main{padding:0 24px}\
header{background:#fff;border-bottom:1px solid #ddd;padding-top:8px;padding-bottom:8px}\
h1{font-size:20px;margin:8px 0}h2{font-size:17px;margin:20px 0 8px}h3{font-size:15px;margin:16px 0 4px}\
.counts span{margin-right:14px}.counts .error{color:#b00}.counts .warning{color:#960}.counts .info{color:#247}\
#filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:12px 0}\
#filters select,#filters input{font:inherit;padding:2px 4px}\
table{border-collapse:collapse;width:100%;background:#fff;table-layout:fixed}\
col.sev{width:78px}col.rule{width:76px}col.loc{width:24%}col.who{width:15%}\
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}\
th{background:#f0f0f0}\
tr.error td:first-child{background:#fdd;color:#900;font-weight:bold}\
tr.warning td:first-child{background:#ffd;color:#850;font-weight:bold}\
tr.info td:first-child{background:#def;color:#247;font-weight:bold}\
td.loc{font-family:monospace;overflow-wrap:anywhere}td{overflow-wrap:anywhere}\
pre{background:#f6f6f6;border:1px solid #e4e4e4;padding:6px;overflow:auto;margin:4px 0;font-size:12px}\
pre mark{background:#fc8}\
.help{color:#444}.related{color:#555;font-size:12px}\
.package{background:#fff;border:1px solid #ddd;margin:8px 0;padding:4px 12px;overflow:auto}\
.package svg{vertical-align:top;margin-right:8px}\
.empty{color:#666}";

use crate::graph::escape_markup as esc;

use crate::graph::shorten as cut;

/// The finding's lines with the located part marked.
fn snippet(r: &Report<'_>, d: &Diagnostic) -> Option<String> {
    let l = d.location?;
    let f = r.files.get(l.file)?;
    let src = &f.source;
    let (start, end) = (src.position(l.span.start()), src.position(l.span.end()));
    let first = start.line.saturating_sub(CONTEXT_LINES).max(1);
    let last = end.line.min(start.line + 6) + CONTEXT_LINES;
    let mut out = String::new();
    for line in first..=last {
        let Some(begin) = src.line_start(line) else {
            break;
        };
        let text = src.line_text(line).trim_end_matches(['\n', '\r']);
        let mut shown = String::new();
        // The marked columns of this line (bytes of the span inside it).
        let (from, to) = (
            l.span.start().saturating_sub(begin).min(text.len()),
            l.span.end().saturating_sub(begin).min(text.len()),
        );
        let marked = line >= start.line && line <= end.line && from < to;
        if marked && text.is_char_boundary(from) && text.is_char_boundary(to) {
            let _ = write!(
                shown,
                "{}<mark>{}</mark>{}",
                esc(&cut(&text[..from], MAX_LINE)),
                esc(&cut(&text[from..to], MAX_LINE)),
                esc(&cut(&text[to..], MAX_LINE))
            );
        } else {
            shown = esc(&cut(text, MAX_LINE));
        }
        let _ = writeln!(out, "{line:>5} │ {shown}");
    }
    Some(out)
}

fn options(values: &BTreeSet<&str>) -> String {
    let mut s = String::from("<option value=\"\">all</option>");
    for v in values {
        let _ = write!(s, "<option value=\"{0}\">{0}</option>", esc(v));
    }
    s
}

pub fn render(r: &Report<'_>) -> String {
    let severities: BTreeSet<&str> = r.diags.iter().map(|d| d.severity.as_str()).collect();
    let rules: BTreeSet<&str> = r.diags.iter().map(|d| d.rule).collect();
    let packages: BTreeSet<&str> = r
        .diags
        .iter()
        .filter_map(|d| d.package.as_deref())
        .chain(r.graphs.iter().map(|p| p.name.as_str()))
        .collect();
    let mut s = String::with_capacity(4096 + r.diags.len() * 512);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>olmlint report</title><style>{STYLE}</style></head><body>\n<header><h1>olmlint report</h1><div class=\"counts\">"
    );
    let sum = &r.summary;
    let _ = write!(
        s,
        "<span class=\"error\">{} error(s)</span><span class=\"warning\">{} warning(s)</span><span class=\"info\">{} info(s)</span><span>{} file(s), {} package(s), {} bundle(s)</span>",
        sum.errors, sum.warnings, sum.infos, sum.files, sum.packages, sum.bundles
    );
    if sum.not_shown > 0 {
        let _ = write!(
            s,
            "<span>{} more not listed (limits.max-findings-per-rule-per-file)</span>",
            sum.not_shown
        );
    }
    s.push_str("</div></header>\n<main>\n<h2>Findings</h2>\n<div id=\"filters\">");
    for (id, label, values) in [
        ("severity", "Severity", &severities),
        ("rule", "Rule", &rules),
        ("package", "Package", &packages),
    ] {
        let _ = write!(
            s,
            "<label>{label} <select id=\"f-{id}\">{}</select></label>",
            options(values)
        );
    }
    let _ = writeln!(
        s,
        "<label>Text <input id=\"f-text\" type=\"search\" placeholder=\"message, file, bundle\"></label><span id=\"shown\">{0} of {0} findings shown</span></div>",
        r.diags.len()
    );
    s.push_str("<table id=\"findings\"><colgroup><col class=\"sev\"><col class=\"rule\"><col class=\"loc\"><col class=\"who\"><col></colgroup><thead><tr><th>Severity</th><th>Rule</th><th>Location</th><th>Package / bundle</th><th>Finding</th></tr></thead><tbody>\n");
    for d in r.diags {
        let sev = d.severity.as_str();
        let _ = write!(
            s,
            "<tr class=\"{sev}\" data-severity=\"{sev}\" data-rule=\"{}\" data-package=\"{}\"><td>{sev}</td><td>{}</td>",
            esc(d.rule),
            esc(d.package.as_deref().unwrap_or("")),
            esc(d.rule)
        );
        match super::resolve(r.files, d.location) {
            Some(l) => {
                let _ = write!(
                    s,
                    "<td class=\"loc\">{}:{}:{}</td>",
                    esc(&l.file),
                    l.line,
                    l.column
                );
            }
            None => s.push_str("<td class=\"loc\"></td>"),
        }
        let who = match (&d.package, &d.bundle) {
            (Some(p), Some(b)) => format!("{}<br>{}", esc(p), esc(b)),
            (Some(p), None) => esc(p),
            (None, Some(b)) => esc(b),
            (None, None) => String::new(),
        };
        let _ = write!(s, "<td>{who}</td><td><div>{}</div>", esc(&d.message));
        if let Some(snip) = snippet(r, d) {
            let _ = write!(s, "<pre>{snip}</pre>");
        }
        if let Some(help) = &d.help {
            let _ = write!(s, "<div class=\"help\">help: {}</div>", esc(help));
        }
        for rel in &d.related {
            let at = super::resolve(r.files, rel.location)
                .map(|l| format!(" ({}:{}:{})", l.file, l.line, l.column))
                .unwrap_or_default();
            let _ = write!(
                s,
                "<div class=\"related\">note: {}{}</div>",
                esc(&rel.message),
                esc(&at)
            );
        }
        if d.omitted > 0 {
            let _ = write!(
                s,
                "<div class=\"related\">and {} more of this rule in this file</div>",
                d.omitted
            );
        }
        s.push_str("</td></tr>\n");
    }
    s.push_str("</tbody></table>\n");
    if r.diags.is_empty() {
        s.push_str("<p class=\"empty\">No findings.</p>\n");
    }
    graphs(r, &mut s);
    let _ = write!(s, "</main>\n<script>{SCRIPT}</script>\n</body></html>\n");
    s
}

/// The upgrade graphs, one block per package and catalog; only the packages with findings
/// when all of them would be too large a page.
fn graphs(r: &Report<'_>, s: &mut String) {
    if r.graphs.is_empty() {
        return;
    }
    s.push_str("<h2>Upgrade graphs</h2>\n");
    s.push_str(&crate::graph::page_defs());
    s.push_str("<div id=\"graphs\">\n");
    let nodes: usize = r
        .graphs
        .iter()
        .flat_map(|p| &p.channels)
        .map(|c| c.nodes.len())
        .sum();
    let flagged: BTreeSet<&str> = r
        .diags
        .iter()
        .filter_map(|d| d.package.as_deref())
        .collect();
    let all = nodes <= MAX_GRAPH_NODES;
    if !all {
        let _ = writeln!(
            s,
            "<p class=\"empty\">{nodes} bundles in all: only the packages with findings are drawn (olmlint graph --format svg draws any package).</p>"
        );
    }
    let many_catalogs = crate::graph::many_catalogs(r.graphs);
    for p in r.graphs {
        if !all && !flagged.contains(p.name.as_str()) {
            continue;
        }
        let worst = p
            .channels
            .iter()
            .flat_map(|c| c.nodes.iter().flat_map(|n| &n.findings).chain(&c.findings))
            .filter_map(|f| Severity::parse(&f.severity))
            .max();
        let _ = write!(
            s,
            "<div class=\"package\" data-package=\"{}\"><h3>{}{}{}</h3>",
            esc(&p.name),
            esc(&p.name),
            if many_catalogs {
                format!(" <small>in {}</small>", esc(&p.catalog))
            } else {
                String::new()
            },
            worst.map_or(String::new(), |w| format!(
                " <small>({})</small>",
                w.as_str()
            ))
        );
        for c in &p.channels {
            s.push_str(&crate::graph::svg_channel(p, c));
        }
        s.push_str("</div>\n");
    }
    s.push_str("</div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    fn base64(bytes: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    s.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }

    #[test]
    fn script_hash_matches() {
        let want = format!(
            "sha256-{}",
            base64(&sha2::Sha256::digest(SCRIPT.as_bytes()))
        );
        assert_eq!(SCRIPT_HASH, want, "set SCRIPT_HASH to {want}");
    }

    #[test]
    fn catalog_text_is_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script>&\u{1b}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\\u{1b}"
        );
    }
}
