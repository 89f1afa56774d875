//! SVG drawn by olmlint itself (no `dot` binary): each channel laid out by [`super::layout`],
//! newest bundles on top, arrows in the upgrade direction (from the bundle a cluster runs to
//! the one it may upgrade to).

use super::layout::{layered, Layout};
use super::{
    node_class, node_lines, title, Change, ChannelGraph, Edge, EdgeKind, Node, PackageGraph,
};
use std::fmt::Write as _;

const FONT: f64 = 12.0;
/// An estimate of a character's advance at [`FONT`] in a sans-serif face.
const CHAR: f64 = 7.0;
const LINE: f64 = 15.0;
const PAD_X: f64 = 10.0;
const PAD_Y: f64 = 6.0;
/// Labels longer than this are cut (the whole text is in the node's tooltip).
const MAX_LABEL: usize = 64;
const MARGIN: f64 = 16.0;
const TITLE: f64 = 28.0;

/// The style sheet every drawing carries (standalone SVG files and the HTML report alike).
pub const STYLE: &str = "\
.olm text{font:12px sans-serif;fill:#222}\
.olm .title{font-weight:bold;font-size:13px}\
.olm rect{fill:#fff;stroke:#555;stroke-width:1}\
.olm .head rect{stroke-width:3}\
.olm .error rect{fill:#fdd;stroke:#c00}\
.olm .warning rect{fill:#ffd;stroke:#b80}\
.olm .info rect{fill:#def;stroke:#36c}\
.olm .missing rect{fill:#eee;stroke-dasharray:4 3}\
.olm .deprecated rect{fill:#eee}.olm .deprecated text{fill:#666}\
.olm .offchain rect{fill:#f6f6f6;stroke:#999}.olm .offchain text{fill:#777}\
.olm .added rect{fill:#dfd;stroke:#080}\
.olm .removed rect{fill:#fee;stroke:#a00;stroke-dasharray:4 3}\
.olm .gone rect{stroke-dasharray:4 3}\
.olm path{fill:none;stroke:#555;stroke-width:1.4}\
.olm path.skips{stroke-dasharray:6 4}\
.olm path.skipRange{stroke:#89a;stroke-dasharray:2 3}\
.olm path.cycle{stroke:#c00;stroke-width:2}\
.olm path.e-added{stroke:#080;stroke-width:2.5}\
.olm path.e-removed{stroke:#a00;stroke-dasharray:5 4}\
.olm path.e-repointed{stroke:#d70;stroke-width:2.5}\
.olm .count{font-size:10px;fill:#556}";

/// Text for XML/HTML content or a quoted attribute: markup characters as entities; control
/// characters, bidi controls and U+FFFE/U+FFFF (not XML 1.0 characters) as visible `\u{..}`
/// escapes ([`olmlint_base::escape::is_hidden`]: catalog text is untrusted); the `[` of the runner's
/// legacy `##[` command prefix as `&#91;` (the page may be printed to a CI log).
pub fn escape_markup(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for ch in t.chars() {
        match ch {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c if olmlint_base::escape::is_hidden(c) => {
                olmlint_base::escape::push_visible(&mut s, c)
            }
            c => s.push(c),
        }
    }
    olmlint_base::escape::break_legacy_commands(s, "&#91;")
}

use escape_markup as esc;

/// `t` cut to at most `max` characters, the last one an ellipsis when anything was cut.
pub fn shorten(t: &str, max: usize) -> String {
    if t.chars().count() <= max {
        t.to_string()
    } else {
        let mut s: String = t.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// One channel drawn at the origin: its SVG elements, width and height.
fn channel_body(p: &PackageGraph, c: &ChannelGraph) -> (String, f64, f64) {
    let labels = node_labels(c);
    let sizes = node_sizes(&labels);
    let ends = edge_ends(c);
    let pairs: Vec<(usize, usize)> = ends.iter().flatten().copied().collect();
    let Layout {
        width,
        height,
        pos,
        rank,
        back,
    } = layered(&sizes, &pairs);
    let mut back = back.into_iter();
    let heading = title(p, c);
    let width = width.max(heading.chars().count() as f64 * CHAR * 1.1);
    let at = Placement {
        sizes: &sizes,
        pos: &pos,
        rank: &rank,
        ox: 0.0,
        oy: TITLE,
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<text class=\"title\" x=\"0\" y=\"{:.0}\">{}</text>",
        FONT + 4.0,
        esc(&heading)
    );
    // Edges first, nodes on top of them.
    for (e, end) in c.edges.iter().zip(&ends) {
        let Some((from, to)) = *end else { continue };
        let is_back = back.next().unwrap_or(false);
        at.draw_edge(&mut s, e, from, to, is_back);
    }
    for ((i, n), lines) in c.nodes.iter().enumerate().zip(&labels) {
        at.draw_node(&mut s, i, n, lines);
    }
    (s, width, at.oy + height)
}

/// Each node's label lines, cut to [`MAX_LABEL`].
fn node_labels(c: &ChannelGraph) -> Vec<Vec<String>> {
    c.nodes
        .iter()
        .map(|n| {
            node_lines(n)
                .iter()
                .map(|l| shorten(l, MAX_LABEL))
                .collect()
        })
        .collect()
}

/// Each node's box (width, height) around its label lines.
fn node_sizes(labels: &[Vec<String>]) -> Vec<(f64, f64)> {
    labels
        .iter()
        .map(|lines| {
            let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            (
                (chars as f64 * CHAR + 2.0 * PAD_X).max(60.0),
                lines.len() as f64 * LINE + 2.0 * PAD_Y,
            )
        })
        .collect()
}

/// Each edge's ends as node indices (`None` when an end is not a node of the channel).
fn edge_ends(c: &ChannelGraph) -> Vec<Option<(usize, usize)>> {
    let index: std::collections::HashMap<&str, usize> = c
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    c.edges
        .iter()
        .map(|e| Some((*index.get(e.from.as_str())?, *index.get(e.to.as_str())?)))
        .collect()
}

/// Where the layout put each node (one entry per node in `sizes`, `pos` and `rank`), drawn
/// at the offset (`ox`, `oy`).
struct Placement<'l> {
    sizes: &'l [(f64, f64)],
    pos: &'l [(f64, f64)],
    rank: &'l [usize],
    ox: f64,
    oy: f64,
}

// `sizes`, `pos` and `rank` have one entry per node; edge ends are node indices from the
// name index: always in bounds.
#[allow(clippy::indexing_slicing)]
impl Placement<'_> {
    /// The edge `e` from node `from` to node `to` (`is_back`: reversed by the layout to break
    /// a cycle), with its tooltip and, for parallel edges folded into one, their count.
    fn draw_edge(&self, s: &mut String, e: &Edge, from: usize, to: usize, is_back: bool) {
        let (sizes, ox, oy) = (self.sizes, self.ox, self.oy);
        let (fx, fy) = self.pos[from];
        let (tx, ty) = self.pos[to];
        // From the older bundle (to) up to the newer (from): the upgrade direction.
        let (x1, y1) = (ox + tx + sizes[to].0 / 2.0, oy + ty);
        let (x2, y2) = (ox + fx + sizes[from].0 / 2.0, oy + fy + sizes[from].1);
        let span = self.rank[to].abs_diff(self.rank[from]);
        let path = if from == to {
            let (x, y) = (ox + fx + sizes[from].0, oy + fy + sizes[from].1 / 2.0);
            format!("M{x:.1},{:.1} c30,-20 30,20 0,8", y - 4.0)
        } else if span <= 1 && y1 > y2 && !is_back {
            let mid = (y1 + y2) / 2.0;
            format!("M{x1:.1},{y1:.1} C{x1:.1},{mid:.1} {x2:.1},{mid:.1} {x2:.1},{y2:.1}")
        } else {
            // Longer edges (and a cycle's back edge) bow out beside the column, skips to the
            // right and skipRange to the left, so that they do not run through the bundles
            // between.
            let side = if e.kind == EdgeKind::SkipRange {
                -1.0
            } else {
                1.0
            };
            let dx = side * (40.0 + 14.0 * span.min(20) as f64);
            let dy = (y1 - y2).abs() / 3.0;
            format!(
                "M{x1:.1},{y1:.1} C{:.1},{:.1} {:.1},{:.1} {x2:.1},{y2:.1}",
                x1 + dx,
                y1 - dy,
                x2 + dx,
                y2 + dy
            )
        };
        let _ =
            writeln!(
            s,
            "<path class=\"{}\"{} d=\"{path}\" marker-end=\"url(#arrow)\"><title>{}</title></path>",
            edge_classes(e).join(" "),
            if e.kind == EdgeKind::Olmv1 { OLMV1_STYLE } else { "" },
            esc(&edge_tip(e))
        );
        if e.count > 1 {
            let _ = writeln!(
                s,
                "<text class=\"count\" x=\"{:.1}\" y=\"{:.1}\">×{}</text>",
                (x1 + x2) / 2.0 + 4.0,
                (y1 + y2) / 2.0,
                e.count
            );
        }
    }

    /// Node `i` (`n`, whose label is `lines`): its box, tooltip and label.
    fn draw_node(&self, s: &mut String, i: usize, n: &Node, lines: &[String]) {
        let (x, y) = (self.ox + self.pos[i].0, self.oy + self.pos[i].1);
        let (w, h) = self.sizes[i];
        let mut class = node_class(n).to_string();
        if n.head {
            class.push_str(" head");
        }
        if n.change == Some(Change::Removed) {
            class.push_str(" gone");
        }
        let _ = write!(
            s,
            "<g class=\"{class}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"4\"/>",
            esc(&node_tip(n))
        );
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + w / 2.0,
                y + PAD_Y + LINE * (k as f64 + 1.0) - 3.0,
                esc(line)
            );
        }
        s.push_str("</g>\n");
    }
}

/// The style classes of an edge: its kind, a cycle, a change.
fn edge_classes(e: &Edge) -> Vec<&'static str> {
    let mut classes = vec![match e.kind {
        EdgeKind::Replaces => "replaces",
        EdgeKind::Skips => "skips",
        EdgeKind::SkipRange => "skipRange",
        EdgeKind::Olmv1 => "olmv1",
    }];
    if e.cycle {
        classes.push("cycle");
    }
    match e.change {
        Some(Change::Added) => classes.push("e-added"),
        Some(Change::Removed) => classes.push("e-removed"),
        Some(Change::Repointed) => classes.push("e-repointed"),
        None => {}
    }
    classes
}

/// An edge's tooltip: what it says, and how many edges it stands for.
fn edge_tip(e: &Edge) -> String {
    format!(
        "{} {} {}{}",
        e.from,
        match e.kind {
            EdgeKind::Replaces => "replaces",
            EdgeKind::Skips => "skips",
            EdgeKind::SkipRange => "has a skipRange containing",
            EdgeKind::Olmv1 => "is where OLM v1 (no channel named) upgrades",
        },
        e.to,
        if e.count > 1 {
            format!(" ({} edges)", e.count)
        } else {
            String::new()
        }
    )
}

/// A node's tooltip: name and version, the bundles folded into it, its findings.
fn node_tip(n: &Node) -> String {
    let mut tip = n.name.clone();
    if let Some(v) = &n.version {
        let _ = write!(tip, " (version {v})");
    }
    for f in &n.folded {
        let _ = write!(tip, "\n  {f}");
    }
    for f in &n.findings {
        let _ = write!(tip, "\n{} {}: {}", f.rule, f.severity, f.message);
    }
    tip
}

const DEFS: &str = "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" style=\"fill:#555;stroke:none\"/></marker></defs>";

/// One channel as an `<svg>` element for an HTML page, which holds [`page_defs`] once: a
/// marker inside a hidden drawing (a filtered-out package) would not draw in the others.
pub fn svg_channel(p: &PackageGraph, c: &ChannelGraph) -> String {
    let (body, w, h) = channel_body(p, c);
    let (w, h) = (w + 2.0 * MARGIN, h + 2.0 * MARGIN);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"olm\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\"><g transform=\"translate({MARGIN},{MARGIN})\">\n{body}</g></svg>\n"
    )
}

/// What the drawings of an HTML page share: the arrow marker (in a drawing that is never
/// hidden) and the style sheet.
pub fn page_defs() -> String {
    format!(
        "<style>{STYLE}</style><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">{DEFS}</svg>\n"
    )
}

/// Every channel, stacked, under a legend: one SVG document.
pub fn svg(graphs: &[PackageGraph]) -> String {
    let mut parts = Vec::new();
    let (mut width, mut y) = (LEGEND_WIDTH, LEGEND_HEIGHT);
    let mut last_catalog: Option<&str> = None;
    let many_catalogs = super::many_catalogs(graphs);
    for p in graphs {
        if many_catalogs && last_catalog != Some(&p.catalog) {
            last_catalog = Some(&p.catalog);
            parts.push(format!(
                "<text class=\"title\" x=\"0\" y=\"{:.0}\">catalog {}</text>\n",
                y + FONT + 4.0,
                esc(&p.catalog)
            ));
            y += TITLE + 8.0;
        }
        for c in &p.channels {
            let (body, w, h) = channel_body(p, c);
            parts.push(format!(
                "<g transform=\"translate(0,{y:.1})\">\n{body}</g>\n"
            ));
            width = width.max(w);
            y += h + 2.0 * MARGIN;
        }
    }
    let (w, h) = (width + 2.0 * MARGIN, y + MARGIN);
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"olm\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\"><style>{STYLE}</style>{DEFS}\n<rect x=\"0\" y=\"0\" width=\"{w:.0}\" height=\"{h:.0}\" style=\"fill:#fff;stroke:none\"/>\n<g transform=\"translate({MARGIN},{MARGIN})\">\n"
    );
    s.push_str(&legend());
    if graphs
        .iter()
        .flat_map(|p| &p.channels)
        .any(|c| c.edges.iter().any(|e| e.kind == EdgeKind::Olmv1))
    {
        s.push_str(&olmv1_legend());
    }
    for part in parts {
        s.push_str(&part);
    }
    s.push_str("</g></svg>\n");
    s
}

/// How OLM v1's edges are drawn (inline: the style sheet of drawings without them stays as
/// it was).
const OLMV1_STYLE: &str = " style=\"stroke:#2a7;stroke-width:2\"";

/// The legend's entry for OLM v1's edges, right of the edge kinds, in drawings that have them.
fn olmv1_legend() -> String {
    format!(
        "<g class=\"legend\"><path class=\"olmv1\"{OLMV1_STYLE} d=\"M520,10 L560,10\" marker-end=\"url(#arrow)\"/><text x=\"566\" y=\"14\">OLM v1 upgrade (no channel)</text></g>"
    )
}

const LEGEND_WIDTH: f64 = 980.0;
const LEGEND_HEIGHT: f64 = 64.0;

/// The key to the drawing: edge kinds and node classes.
pub fn legend() -> String {
    let mut s = String::from("<g class=\"legend\">");
    let edges = [
        ("replaces", "replaces"),
        ("skips", "skips"),
        ("skipRange", "skipRange"),
        ("replaces cycle", "cycle"),
    ];
    for (i, (class, text)) in edges.iter().enumerate() {
        let x = i as f64 * 130.0;
        let _ = write!(
            s,
            "<path class=\"{class}\" d=\"M{x},10 L{:.0},10\" marker-end=\"url(#arrow)\"/><text x=\"{:.0}\" y=\"14\">{text}</text>",
            x + 40.0,
            x + 46.0
        );
    }
    let nodes = [
        ("bundle head", "head"),
        ("error", "error"),
        ("warning", "warning"),
        ("info", "info"),
        ("missing", "not in catalog"),
        ("deprecated", "deprecated"),
        ("offchain", "off chain"),
        ("added", "added"),
        ("removed", "removed"),
    ];
    for (i, (class, text)) in nodes.iter().enumerate() {
        let x = i as f64 * 108.0;
        let _ = write!(
            s,
            "<g class=\"{class}\"><rect x=\"{x}\" y=\"28\" width=\"100\" height=\"20\" rx=\"4\"/><text x=\"{:.0}\" y=\"42\" text-anchor=\"middle\">{text}</text></g>",
            x + 50.0
        );
    }
    s.push_str("</g>\n");
    s
}
