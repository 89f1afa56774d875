//! Graphviz DOT: one cluster per channel, the conventions of [`super::mermaid`].

use super::{full_title, many_catalogs, node_lines, worst, Change, EdgeKind, PackageGraph};
use std::fmt::Write as _;

/// A DOT string literal (catalog text: controls and bidi controls shown as `\u{..}`, the
/// runner's `##[` broken by a zero-width space, as in a terminal).
fn q(t: &str) -> String {
    let t = olmlint_base::escape::visible(&t.replace('\r', ""));
    let t = olmlint_base::escape::break_legacy_commands(t, olmlint_base::escape::ZWSP_BRACKET);
    format!(
        "\"{}\"",
        t.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

pub fn dot(graphs: &[PackageGraph]) -> String {
    let mut s = String::from(
        "digraph olm {\n  rankdir=LR;\n  node [shape=box, fontname=\"sans-serif\"];\n",
    );
    let mut n = 0usize;
    let many = many_catalogs(graphs);
    for p in graphs {
        for c in &p.channels {
            let _ = writeln!(s, "  subgraph cluster_{n} {{");
            let _ = writeln!(s, "    label={};", q(&full_title(p, c, many)));
            let id = |name: &str| q(&format!("c{n}:{name}"));
            for node in &c.nodes {
                let mut attrs = vec![format!("label={}", q(&node_lines(node).join("\n")))];
                if node.head {
                    attrs.push("penwidth=3".into());
                }
                let mut styles = Vec::new();
                if !node.exists || node.change == Some(Change::Removed) {
                    styles.push("dashed");
                }
                if node.deprecated || node.off_chain {
                    styles.push("filled");
                    attrs.push("fillcolor=\"#eeeeee\", fontcolor=\"#666666\"".into());
                }
                if !styles.is_empty() {
                    attrs.push(format!("style={}", q(&styles.join(","))));
                }
                match (worst(&node.findings), node.change) {
                    (Some("error"), _) => attrs.push("color=red, fontcolor=red".into()),
                    (Some("warning"), _) => attrs.push("color=orange".into()),
                    (Some(_), _) => attrs.push("color=blue".into()),
                    (None, Some(Change::Added)) => attrs.push("color=darkgreen".into()),
                    (None, Some(Change::Removed)) => attrs.push("color=darkred".into()),
                    (None, _) => {}
                }
                let _ = writeln!(s, "    {} [{}];", id(&node.name), attrs.join(", "));
            }
            for e in &c.edges {
                let kind = match e.kind {
                    EdgeKind::Replaces => "",
                    EdgeKind::Skips => "skips",
                    EdgeKind::SkipRange => "skipRange",
                    EdgeKind::Olmv1 => "OLM v1",
                };
                let label = if e.count > 1 {
                    format!("{kind} ×{}", e.count).trim().to_string()
                } else {
                    kind.to_string()
                };
                let mut attrs = vec![format!(
                    "style={}",
                    match (e.change, e.kind) {
                        (Some(Change::Removed), _) | (_, EdgeKind::Skips) => "dashed",
                        (_, EdgeKind::SkipRange) => "dotted",
                        (_, EdgeKind::Olmv1) => "bold",
                        _ => "solid",
                    }
                )];
                if !label.is_empty() {
                    attrs.push(format!("label={}", q(&label)));
                }
                match (e.change, e.cycle) {
                    (Some(Change::Added), _) => attrs.push("color=darkgreen, penwidth=2".into()),
                    (Some(Change::Removed), _) => attrs.push("color=darkred".into()),
                    (Some(Change::Repointed), _) => {
                        attrs.push("color=darkorange, penwidth=2".into())
                    }
                    (None, true) => attrs.push("color=red".into()),
                    _ => {}
                }
                // The upgrade direction: from the bundle a cluster runs to its successor.
                let _ = writeln!(
                    s,
                    "    {} -> {} [{}];",
                    id(&e.to),
                    id(&e.from),
                    attrs.join(", ")
                );
            }
            s.push_str("  }\n");
            n += 1;
        }
    }
    s.push_str("}\n");
    s
}
