//! OLM v1's upgrade edges, drawn beside the channels (`--target olmv1`): one more graph per
//! package, `OLM v1 (no channel)`, with every bundle of the package and, from each bundle,
//! the edge to where OLM v1 moves its installs when the ClusterExtension names no channel
//! (`legacySuccessor` across all channels, the best-ranked successor; olmv1 spec §3.2). Its
//! head is the bundle a ClusterExtension naming only the package installs.

use super::{ChannelGraph, Edge, EdgeKind, Node, PackageGraph};
use olmlint_model::index::Index;
use olmlint_model::olmv1::{PackageView, SuccessorIndex};
use olmlint_model::Catalog;

/// The name of the OLM v1 graph among a package's channel graphs.
pub const NAME: &str = "OLM v1 (no channel)";

/// Add the OLM v1 graph to each of `graphs` (those of `cat`, by package name).
pub fn add(
    graphs: &mut [PackageGraph],
    cat: &Catalog<'_>,
    index: &Index<'_>,
    bundle_release_support: bool,
) {
    for g in graphs.iter_mut() {
        if g.channels.iter().any(|c| c.name == NAME) {
            continue;
        }
        let view = PackageView::new(cat, index, &g.name, bundle_release_support);
        if view.bundles.is_empty() {
            continue;
        }
        g.channels.push(graph(&view));
    }
}

fn graph(view: &PackageView<'_, '_>) -> ChannelGraph {
    let targets = SuccessorIndex::new(view).upgrade_targets();
    let pick = view.default_pick();
    let nodes = view
        .ranked
        .order
        .iter()
        .filter_map(|&p| {
            let b = view.bundles.get(p)?;
            Some(Node {
                name: b.name.to_string(),
                version: b.version_text(),
                exists: true,
                head: Some(p) == pick,
                deprecated: b.deprecated,
                off_chain: false,
                findings: Vec::new(),
                change: None,
                folded: Vec::new(),
            })
        })
        .collect();
    let edges = targets
        .targets
        .iter()
        .filter(|t| t.via.is_some())
        .filter_map(|t| {
            let from = view.bundles.get(t.to?)?;
            let to = view.bundles.get(t.from)?;
            Some(Edge {
                from: from.name.to_string(),
                to: to.name.to_string(),
                kind: EdgeKind::Olmv1,
                cycle: false,
                change: None,
                count: 1,
            })
        })
        .collect();
    ChannelGraph {
        at: view.package.map(|p| olmlint_base::diag::Location {
            file: p.doc.file,
            span: p.doc.node.span,
        }),
        name: NAME.to_string(),
        default: false,
        deprecated: false,
        nodes,
        edges,
        findings: Vec::new(),
        change: None,
        ranges_cut: false,
    }
}
