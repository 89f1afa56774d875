//! The pull request's job summary: for each package whose upgrade graph changed, the
//! difference as a Mermaid block (GitHub renders Mermaid in Markdown), under a legend without
//! links, within GitHub's size limits (the step summary's budget is shared with the findings
//! table: [`crate::github::step_summary_room`]). Catalog text is escaped for where it
//! lands: names are code spans ([`olmlint_base::escape::md_code`]), diagram labels Mermaid strings.

use super::{mermaid, Change, PackageGraph};
use olmlint_base::escape::{md_code as code, md_text};
use std::fmt::Write as _;
/// Mermaid's `maxTextSize` on GitHub: a larger diagram shows an error instead of a picture.
const MAX_DIAGRAM_CHARS: usize = 50_000;
/// Mermaid's `maxEdges`: a diagram must have fewer (mermaid-cli 11 refuses "500 edges found,
/// but the limit is 500").
const MAX_DIAGRAM_EDGES: usize = 500;

/// Why GitHub (Mermaid with its default limits) would not draw this diagram, if it would not.
pub fn mermaid_too_large(diagram: &str, graphs: &[PackageGraph]) -> Option<String> {
    let edges: usize = graphs
        .iter()
        .flat_map(|p| &p.channels)
        .map(|c| c.edges.len())
        .sum();
    (diagram.len() > MAX_DIAGRAM_CHARS || edges >= MAX_DIAGRAM_EDGES).then(|| {
        format!(
            "the diagram has {} characters and {edges} edges; Mermaid (and so GitHub) draws at most {MAX_DIAGRAM_CHARS} characters and {} edges: draw fewer packages (--package, --channel) or use --format svg",
            diagram.len(),
            MAX_DIAGRAM_EDGES - 1
        )
    })
}

const LEGEND: &str = "Arrows point in the upgrade direction, from the bundle a cluster runs to \
the one it is offered: solid `replaces`, dotted `skips`, thick `skipRange`. \
Green: added by this change; red and dashed: removed; orange: an entry whose `replaces` now \
names another bundle. A bold border is a channel head; a bundle with findings is coloured by \
the worst of them (red error, yellow warning, blue info) and names their rule IDs \
(`olmlint explain RULE`); grey bundles are deprecated or dropped from the replaces chain; a \
dashed grey bundle is not in the catalog. Long unchanged chains are folded into one node.";

/// Room kept for the closing "N more package(s)" line.
const NOTE_ROOM: usize = 200;

/// `heading`: what the graphs are the difference to (e.g. "since origin/main"). At most
/// `max_bytes` bytes: nothing when not even the heading and legend fit.
pub fn markdown(graphs: &[PackageGraph], heading: &str, max_bytes: usize) -> String {
    let mut s = format!("## Upgrade graphs {}\n\n", md_text(heading));
    if graphs.is_empty() {
        s.push_str("No channel's upgrade graph changed.\n");
        return if s.len() <= max_bytes {
            s
        } else {
            String::new()
        };
    }
    let _ = writeln!(s, "{LEGEND}\n");
    if s.len() + NOTE_ROOM > max_bytes {
        // The summary is nearly full (the findings table before it): say so, if that fits.
        let short = format!(
            "## Upgrade graphs {}\n\n{} package(s) changed; the job summary is full (GitHub limits it to 1 MiB), so they are not drawn here: run `olmlint graph --format svg` on the catalog.\n",
            md_text(heading),
            graphs.len()
        );
        return if short.len() <= max_bytes {
            short
        } else {
            String::new()
        };
    }
    let many_catalogs = super::many_catalogs(graphs);
    let mut left = 0usize;
    for (i, p) in graphs.iter().enumerate() {
        let mut part = format!("### {}", code(&p.name));
        if many_catalogs || !p.catalog.is_empty() {
            let catalog = if p.catalog.is_empty() {
                "."
            } else {
                &p.catalog
            };
            let _ = write!(part, " in {}", code(catalog));
        }
        part.push_str("\n\n");
        let changes = summary_line(p);
        if !changes.is_empty() {
            let _ = writeln!(part, "{changes}\n");
        }
        let diagram = mermaid(std::slice::from_ref(p));
        let edges: usize = p.channels.iter().map(|c| c.edges.len()).sum();
        if mermaid_too_large(&diagram, std::slice::from_ref(p)).is_none() {
            let _ = writeln!(part, "```mermaid\n{diagram}```\n");
        } else {
            let _ = writeln!(
                part,
                "The difference is too large for GitHub to draw ({} characters, {edges} edges; Mermaid draws at most {MAX_DIAGRAM_CHARS} characters and {} edges): run `olmlint graph --format svg` on the catalog.\n",
                diagram.len(),
                MAX_DIAGRAM_EDGES - 1
            );
        }
        if s.len() + part.len() + NOTE_ROOM > max_bytes {
            left = graphs.len() - i;
            break;
        }
        s.push_str(&part);
    }
    if left > 0 {
        let _ = writeln!(
            s,
            "{left} more package(s) changed; GitHub limits a job summary to 1 MiB, so they are not drawn here."
        );
    }
    s
}

/// "2 bundles added, 1 removed, 1 entry re-pointed; 3 findings".
fn summary_line(p: &PackageGraph) -> String {
    let mut added = std::collections::BTreeSet::new();
    let mut removed = std::collections::BTreeSet::new();
    let mut repointed = 0usize;
    let mut findings = 0usize;
    for c in &p.channels {
        for n in &c.nodes {
            match n.change {
                Some(Change::Added) => {
                    added.insert(n.name.as_str());
                }
                Some(Change::Removed) => {
                    removed.insert(n.name.as_str());
                }
                _ => {}
            }
            findings += n.findings.len();
        }
        findings += c.findings.len();
        repointed += c
            .edges
            .iter()
            .filter(|e| e.change == Some(Change::Repointed))
            .count();
    }
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("{} bundle(s) added", added.len()));
    }
    if !removed.is_empty() {
        parts.push(format!("{} removed", removed.len()));
    }
    if repointed > 0 {
        parts.push(format!("{repointed} entry(ies) re-pointed"));
    }
    let channels: Vec<String> = p.channels.iter().map(|c| code(&c.name)).collect();
    let mut line = format!("Channels: {}", channels.join(", "));
    if !parts.is_empty() {
        let _ = write!(line, "; {}", parts.join(", "));
    }
    if findings > 0 {
        let _ = write!(line, "; {findings} finding(s) on the drawn bundles");
    }
    line.push('.');
    line
}
