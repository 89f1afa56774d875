//! The difference between a catalog's upgrade graphs and their baseline: what a pull request
//! changes. Bundles and edges are added or removed; an entry whose `replaces` names another
//! bundle is re-pointed. Only the channels that changed are kept.

use super::{Change, ChannelGraph, Edge, EdgeKind, PackageGraph};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The channels of `new` that differ from `old` (both graphs of one catalog), with every
/// node and edge marked: added, removed (taken from `old`), re-pointed, or unchanged. A
/// channel only in `old` comes back whole, marked removed. Findings stay those of `new`.
pub fn diff(old: Vec<PackageGraph>, new: Vec<PackageGraph>) -> Vec<PackageGraph> {
    let mut old: BTreeMap<String, PackageGraph> =
        old.into_iter().map(|p| (p.name.clone(), p)).collect();
    let mut out = Vec::new();
    for mut p in new {
        let mut before: BTreeMap<String, ChannelGraph> = old
            .remove(&p.name)
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
    let mut changed = false;
    let now: HashSet<&str> = new.nodes.iter().map(|n| n.name.as_str()).collect();
    let was: HashSet<&str> = old.nodes.iter().map(|n| n.name.as_str()).collect();
    let added: HashSet<String> = now
        .difference(&was)
        .map(|n| n.to_string())
        .collect::<HashSet<_>>();
    let removed: Vec<super::Node> = old
        .nodes
        .iter()
        .filter(|n| !now.contains(n.name.as_str()))
        .cloned()
        .collect();
    let old_edges: HashSet<(&str, &str, EdgeKind)> = old
        .edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str(), e.kind))
        .collect();
    let new_edges: HashSet<(String, String, EdgeKind)> = new
        .edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone(), e.kind))
        .collect();
    let old_replaces: HashMap<&str, &str> = old
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Replaces)
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    for n in &mut new.nodes {
        if added.contains(&n.name) {
            n.change = Some(Change::Added);
            changed = true;
        }
    }
    for e in &mut new.edges {
        if old_edges.contains(&(e.from.as_str(), e.to.as_str(), e.kind)) {
            continue;
        }
        changed = true;
        let repointed = e.kind == EdgeKind::Replaces
            && old_replaces
                .get(e.from.as_str())
                .is_some_and(|t| *t != e.to);
        e.change = Some(if repointed {
            Change::Repointed
        } else {
            Change::Added
        });
    }
    let gone: Vec<Edge> = old
        .edges
        .iter()
        .filter(|e| !new_edges.contains(&(e.from.clone(), e.to.clone(), e.kind)))
        .cloned()
        .map(|mut e| {
            e.change = Some(Change::Removed);
            e
        })
        .collect();
    changed |= !gone.is_empty() || !removed.is_empty();
    changed |= old.default != new.default || old.deprecated != new.deprecated;
    if !changed {
        return None;
    }
    // A removed edge may end at a node the channel no longer lists and no new edge names.
    let mut present: HashSet<String> = new.nodes.iter().map(|n| n.name.clone()).collect();
    for mut n in removed {
        n.change = Some(Change::Removed);
        n.head = false;
        n.findings.clear();
        present.insert(n.name.clone());
        new.nodes.push(n);
    }
    let old_nodes: HashMap<&str, &super::Node> =
        old.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    for e in &gone {
        for end in [&e.from, &e.to] {
            if present.insert(end.clone()) {
                if let Some(n) = old_nodes.get(end.as_str()) {
                    let mut n = (*n).clone();
                    n.change = Some(Change::Removed);
                    new.nodes.push(n);
                }
            }
        }
    }
    new.edges.extend(gone);
    Some(new)
}
