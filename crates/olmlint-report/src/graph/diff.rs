//! The difference between a catalog's upgrade graphs and their baseline: what a pull request
//! changes. Bundles and edges are added or removed; an entry whose `replaces` names another
//! bundle is re-pointed. Only the channels that changed are kept.

use super::{Change, ChannelGraph, Edge, EdgeKind, PackageGraph};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The channels of `new` that differ from `old`, matched by catalog (the same names on both
/// sides: see `graph_command`), package and channel, with every node and edge marked: added,
/// removed (taken from `old`), re-pointed, or unchanged. A channel only in `old` comes back
/// whole, marked removed. Findings stay those of `new`.
pub fn diff(old: Vec<PackageGraph>, new: Vec<PackageGraph>) -> Vec<PackageGraph> {
    let mut old: BTreeMap<(String, String), PackageGraph> = old
        .into_iter()
        .map(|p| ((p.catalog.clone(), p.name.clone()), p))
        .collect();
    let mut out = Vec::new();
    for mut p in new {
        let mut before: BTreeMap<String, ChannelGraph> = old
            .remove(&(p.catalog.clone(), p.name.clone()))
            .map(|o| {
                o.channels
                    .into_iter()
                    .map(|c| (c.name.clone(), c))
                    .collect()
            })
            .unwrap_or_default();
        let mut channels = Vec::new();
        for c in std::mem::take(&mut p.channels) {
            let changed = match before.remove(&c.name) {
                Some(o) => channel(o, c),
                None => Some(mark(c, Change::Added)),
            };
            channels.extend(changed);
        }
        channels.extend(before.into_values().map(|c| mark(c, Change::Removed)));
        if !channels.is_empty() {
            p.channels = channels;
            out.push(p);
        }
    }
    for (_, mut p) in old {
        p.channels = std::mem::take(&mut p.channels)
            .into_iter()
            .map(|c| mark(c, Change::Removed))
            .collect();
        out.push(p);
    }
    out
}

/// A channel that exists on one side only: everything in it added or removed.
fn mark(mut c: ChannelGraph, change: Change) -> ChannelGraph {
    c.change = Some(change);
    for n in &mut c.nodes {
        n.change = Some(change);
        if change == Change::Removed {
            n.head = false;
            n.findings.clear();
        }
    }
    for e in &mut c.edges {
        e.change = Some(change);
    }
    if change == Change::Removed {
        c.findings.clear();
    }
    c
}

/// One channel's difference, or `None` when nothing changed.
fn channel(old: ChannelGraph, mut new: ChannelGraph) -> Option<ChannelGraph> {
    let key = |e: &Edge| (e.from.clone(), e.to.clone(), e.kind);
    let was_nodes: HashSet<&str> = old.nodes.iter().map(|n| n.name.as_str()).collect();
    let was_edges: HashSet<(String, String, EdgeKind)> = old.edges.iter().map(key).collect();
    let was_replacing: HashMap<&str, &str> = old
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Replaces)
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    let mut changed = old.default != new.default || old.deprecated != new.deprecated;
    for n in new.nodes.iter_mut() {
        if !was_nodes.contains(n.name.as_str()) {
            n.change = Some(Change::Added);
            changed = true;
        }
    }
    for e in new.edges.iter_mut() {
        if was_edges.contains(&key(e)) {
            continue;
        }
        changed = true;
        let repointed = e.kind == EdgeKind::Replaces
            && was_replacing
                .get(e.from.as_str())
                .is_some_and(|t| *t != e.to);
        e.change = Some(if repointed {
            Change::Repointed
        } else {
            Change::Added
        });
    }
    // What went: the edges, and the nodes (every edge's ends are nodes of its graph, so the
    // ends of a gone edge are either still drawn or among these).
    let now_edges: HashSet<(String, String, EdgeKind)> = new.edges.iter().map(key).collect();
    let gone: Vec<&Edge> = old
        .edges
        .iter()
        .filter(|e| !now_edges.contains(&key(e)))
        .collect();
    let present: HashSet<&str> = new.nodes.iter().map(|n| n.name.as_str()).collect();
    let removed: Vec<super::Node> = old
        .nodes
        .iter()
        .filter(|n| !present.contains(n.name.as_str()))
        .map(|n| {
            let mut n = n.clone();
            n.change = Some(Change::Removed);
            n.head = false;
            n.findings.clear();
            n
        })
        .collect();
    let gone: Vec<Edge> = gone
        .into_iter()
        .map(|e| Edge {
            change: Some(Change::Removed),
            ..e.clone()
        })
        .collect();
    changed |= !gone.is_empty() || !removed.is_empty();
    if !changed {
        return None;
    }
    new.nodes.extend(removed);
    new.edges.extend(gone);
    Some(new)
}
