//! Mermaid `flowchart` (GitHub renders it in Markdown).

use super::{full_title, many_catalogs, node_class, node_lines, Change, EdgeKind, PackageGraph};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The class definitions every diagram carries: severities, missing, deprecated, off-chain
/// and the difference's added/removed.
const CLASSES: &str = "  classDef head stroke-width:3px\n  \
classDef error fill:#fdd,stroke:#c00\n  \
classDef warning fill:#ffd,stroke:#b80\n  \
classDef info fill:#def,stroke:#36c\n  \
classDef missing stroke-dasharray: 4 3,fill:#eee\n  \
classDef deprecated fill:#eee,color:#666\n  \
classDef offchain fill:#f6f6f6,color:#888\n  \
classDef added fill:#dfd,stroke:#080\n  \
classDef removed fill:#fee,stroke:#a00,stroke-dasharray: 4 3\n  \
classDef bundle fill:#fff\n  \
classDef gone stroke-dasharray: 4 3\n";

/// Text for a quoted Mermaid label (catalog text is untrusted): Mermaid's entity codes
/// (`#35;`, decoded to HTML entities when drawn) for every character that could end the
/// label, be read as markup or reach Mermaid's text-level preprocessing, which runs before
/// the diagram is parsed and ignores quotes:
/// - `%` (`%%{init: …}%%` directives restyle the whole diagram, `%%` starts a comment);
/// - `"` ends the label, `#` starts an entity code, `&` an HTML entity;
/// - `<`, `>` (HTML labels), `` ` `` (Markdown strings; in a job summary, a fence);
/// - `ﬂ` and `¶`: Mermaid's own placeholders for entity codes (`ﬂ°lt¶ß` would decode to
///   `&lt;`).
///
/// `](` and `![` are written `]#40;` and `#33;[` (no Markdown link or image syntax in a job
/// summary, even inside a diagram). Line breaks become spaces (a label is one line of the
/// diagram: a `click` or `style`
/// statement can only start a line); controls, bidi controls and U+FFFE/U+FFFF are shown as
/// `\u{..}` escapes. Node ids are never catalog text (`c0n1`).
pub(crate) fn label(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for ch in t.chars() {
        match ch {
            '#' => s.push_str("#35;"),
            '"' => s.push_str("#quot;"),
            '<' => s.push_str("#lt;"),
            '>' => s.push_str("#gt;"),
            '`' => s.push_str("#96;"),
            '%' => s.push_str("#37;"),
            '&' => s.push_str("#38;"),
            '\u{fb02}' => s.push_str("#64258;"),
            '\u{b6}' => s.push_str("#182;"),
            '\n' | '\r' => s.push(' '),
            c if olmlint_base::escape::is_hidden(c) => {
                olmlint_base::escape::push_visible(&mut s, c)
            }
            c => s.push(c),
        }
    }
    // Nor Markdown link or image syntax, even inside the job summary's diagram.
    if s.contains("](") || s.contains("![") {
        s = s.replace("](", "]#40;").replace("![", "#33;[");
    }
    s
}

/// One subgraph per channel, arrows in the upgrade direction (older to newer); replaces solid, skips dotted, skipRange thick; heads bold, bundles
/// with findings coloured by their worst severity and labelled with the rule IDs; bundles the
/// catalog lacks dashed; in a difference, added edges green, removed red and dashed, re-pointed
/// orange, edges on a cycle red.
pub fn mermaid(graphs: &[PackageGraph]) -> String {
    let mut s = String::from("flowchart LR\n");
    s.push_str(CLASSES);
    let mut n = 0usize;
    let mut links = 0usize;
    let mut link_styles: Vec<(usize, &str)> = Vec::new();
    let many = many_catalogs(graphs);
    for p in graphs {
        for c in &p.channels {
            let _ = writeln!(s, "  subgraph c{n}[\"{}\"]", label(&full_title(p, c, many)));
            let base = n;
            let ids: HashMap<&str, String> = c
                .nodes
                .iter()
                .enumerate()
                .map(|(i, node)| (node.name.as_str(), format!("c{base}n{i}")))
                .collect();
            for node in &c.nodes {
                let Some(id) = ids.get(node.name.as_str()) else {
                    continue;
                };
                let text = node_lines(node)
                    .iter()
                    .map(|l| label(l))
                    .collect::<Vec<_>>()
                    .join("<br/>");
                let _ = writeln!(s, "    {id}[\"{text}\"]");
                let _ = writeln!(s, "    class {id} {}", node_class(node));
                if node.head {
                    let _ = writeln!(s, "    class {id} head");
                }
                if node.change == Some(Change::Removed) {
                    let _ = writeln!(s, "    class {id} gone");
                }
            }
            for e in &c.edges {
                let (Some(from), Some(to)) = (ids.get(e.from.as_str()), ids.get(e.to.as_str()))
                else {
                    continue;
                };
                let count = if e.count > 1 {
                    format!(" ×{}", e.count)
                } else {
                    String::new()
                };
                let arrow = match e.kind {
                    EdgeKind::Replaces if count.is_empty() => "-->".to_string(),
                    EdgeKind::Replaces => format!("-->|replaces{count}|"),
                    EdgeKind::Skips => format!("-.->|skips{count}|"),
                    EdgeKind::SkipRange => format!("==>|skipRange{count}|"),
                    EdgeKind::Olmv1 => format!("-->|OLM v1{count}|"),
                };
                // Drawn in the upgrade direction: from the bundle a cluster runs to its successor.
                let _ = writeln!(s, "    {to} {arrow} {from}");
                let style = match (e.change, e.cycle) {
                    (Some(Change::Added), _) => Some("stroke:#080,stroke-width:3px"),
                    (Some(Change::Removed), _) => {
                        Some("stroke:#a00,stroke-width:2px,stroke-dasharray: 5 4")
                    }
                    (Some(Change::Repointed), _) => Some("stroke:#d70,stroke-width:3px"),
                    (None, true) => Some("stroke:#c00,stroke-width:2px"),
                    (None, false) => None,
                };
                if let Some(style) = style {
                    link_styles.push((links, style));
                }
                links += 1;
            }
            s.push_str("  end\n");
            n += 1;
        }
    }
    for (i, style) in link_styles {
        let _ = writeln!(s, "  linkStyle {i} {style}");
    }
    s
}
