//! OLM v1's upgrade edges, drawn beside the channels (`--target olmv1`): one more graph per
//! package, `OLM v1 (no channel)`, with every bundle of the package and, from each bundle,
//! the edge to where OLM v1 moves its installs when the ClusterExtension names no channel
//! (`legacySuccessor` across all channels, the best-ranked successor; olmv1 spec §3.2). Its
//! head is the bundle a ClusterExtension naming only the package installs.

use super::{ChannelGraph, Edge, EdgeKind, Node, PackageGraph};
use olmlint_model::index::Index;
use olmlint_model::olmv1::{PackageView, SuccessorIndex};
use olmlint_model::Catalog;
use std::collections::HashSet;

/// The name of the OLM v1 graph among a package's channel graphs.
pub const NAME: &str = "OLM v1 (no channel)";

/// Add the OLM v1 graph to each of `graphs` (those of `cat`, by package name).
pub fn add(
    graphs: &mut [PackageGraph],
    cat: &Catalog<'_>,
    index: &Index<'_>,
    bundle_release_support: bool,
) {
    // One view per package, the catalog's blobs grouped once (a single graph: just its own).
    let views: Vec<PackageView<'_, '_>> = if graphs.len() == 1 {
        graphs
            .iter()
            .map(|g| PackageView::new(cat, index, &g.name, bundle_release_support))
            .collect()
    } else {
        PackageView::all(cat, index, bundle_release_support)
    };
    let by_name: std::collections::HashMap<&str, &PackageView<'_, '_>> =
        views.iter().map(|v| (v.name.as_str(), v)).collect();
    for g in graphs.iter_mut() {
        if g.channels.iter().any(|c| c.name == NAME) {
            continue;
        }
        let Some(view) = by_name.get(g.name.as_str()).copied() else {
            continue;
        };
        if view.bundles.is_empty() {
            continue;
        }
        // A view of some of the package's bundles (one OpenShift release's index of a
        // bundle-directory operator) is what OLM v1 sees from that index: its own picks.
        let shown: HashSet<&str> = g
            .channels
            .iter()
            .flat_map(|c| &c.nodes)
            .filter(|n| n.exists)
            .map(|n| n.name.as_str())
            .collect();
        let members: Vec<bool> = view
            .bundles
            .iter()
            .map(|b| shown.contains(b.name))
            .collect();
        let subset = members.iter().any(|m| !m);
        if subset && members.len() > MAX_SUBSET {
            continue;
        }
        g.channels
            .push(graph(view, subset.then_some(members.as_slice())));
    }
}

/// Bundles of a package above which a per-release view gets no OLM v1 graph (its edges are
/// found bundle by bundle there, not in one pass).
const MAX_SUBSET: usize = 2_000;

/// `(from, to)` view positions of OLM v1's upgrade edges, and the default pick, among the
/// bundles `members` marks (all when `None`).
fn edges_and_pick(
    view: &PackageView<'_, '_>,
    members: Option<&[bool]>,
) -> (Vec<(usize, usize)>, Option<usize>) {
    let index = SuccessorIndex::new(view);
    let Some(members) = members else {
        let targets = index.upgrade_targets();
        let edges = targets
            .targets
            .iter()
            .filter(|t| t.via.is_some())
            .filter_map(|t| Some((t.from, t.to?)))
            .collect();
        return (edges, view.default_pick());
    };
    let member = |p: usize| members.get(p).copied().unwrap_or(false);
    let pick = view.ranked.order.iter().copied().find(|&p| member(p));
    let mut edges = Vec::new();
    for (from, b) in view.bundles.iter().enumerate() {
        if !member(from) || b.version.is_err() {
            continue;
        }
        let best = index
            .successors(Some(b.name), b.semver.as_ref(), None)
            .into_iter()
            .map(|e| e.bundle)
            .filter(|&to| to != from && member(to))
            .min_by_key(|&to| view.rank(to));
        if let Some(to) = best.filter(|&to| view.rank(to) < view.rank(from)) {
            edges.push((from, to));
        }
    }
    (edges, pick)
}

fn graph(view: &PackageView<'_, '_>, members: Option<&[bool]>) -> ChannelGraph {
    let (moves, pick) = edges_and_pick(view, members);
    let nodes = view
        .ranked
        .order
        .iter()
        .filter(|&&p| members.is_none_or(|m| m.get(p).copied().unwrap_or(false)))
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
    let edges = moves
        .iter()
        .filter_map(|&(installed, target)| {
            let from = view.bundles.get(target)?;
            let to = view.bundles.get(installed)?;
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
