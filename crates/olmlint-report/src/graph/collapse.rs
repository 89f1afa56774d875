//! Folding long linear runs of a channel's replaces chain into one node, so that a channel of
//! hundreds of bundles stays readable: only the bundles that matter (heads, findings, changes,
//! deprecations, branches) keep a node of their own.

use super::{ChannelGraph, EdgeKind, Node, PackageGraph};
use std::collections::HashMap;

/// Folds, in every channel, each run of at least `min_run` consecutive "plain" bundles of a
/// replaces chain into one node that lists them. A bundle is plain when it is in the catalog,
/// not a head, not deprecated or off the chain, has no finding and no change, is replaced by
/// exactly one entry, replaces exactly one, and takes part in no `skips` edge (skipRange edges
/// follow the fold and are counted). `min_run` 0 or 1 folds nothing.
pub fn collapse(graphs: &mut [PackageGraph], min_run: usize) {
    if min_run < 2 {
        return;
    }
    for p in graphs {
        for c in &mut p.channels {
            collapse_channel(c, min_run);
        }
    }
}

// Indices below come from enumerating vectors of the same length (n nodes, m edges), or
// from a name index built over those nodes: they are always in bounds.
#[allow(clippy::indexing_slicing)]
fn collapse_channel(c: &mut ChannelGraph, min_run: usize) {
    let node_names: Vec<String> = c.nodes.iter().map(|x| x.name.clone()).collect();
    let index: HashMap<&str, usize> = node_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let n = c.nodes.len();
    let (mut replaced_by, mut replaces) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    let mut plain: Vec<bool> = c
        .nodes
        .iter()
        .map(|x| {
            x.exists
                && !x.head
                && !x.deprecated
                && !x.off_chain
                && x.findings.is_empty()
                && x.change.is_none()
                && x.folded.is_empty()
        })
        .collect();
    for e in &c.edges {
        let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) else {
            continue;
        };
        match e.kind {
            EdgeKind::Replaces if a != b && e.change.is_none() && !e.cycle => {
                replaces[a].push(b);
                replaced_by[b].push(a);
            }
            EdgeKind::SkipRange if e.change.is_none() => {}
            _ => {
                plain[a] = false;
                plain[b] = false;
            }
        }
    }
    let linear = |v: usize| plain[v] && replaces[v].len() == 1 && replaced_by[v].len() == 1;
    // Runs start at a linear bundle whose replacer is not linear; they follow replaces.
    let mut group: Vec<Option<usize>> = vec![None; n];
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut visited = vec![false; n];
    for start in 0..n {
        if !linear(start) || linear(replaced_by[start][0]) {
            continue;
        }
        let mut run = vec![start];
        visited[start] = true;
        let mut at = replaces[start][0];
        while linear(at) && !visited[at] {
            visited[at] = true;
            run.push(at);
            at = replaces[at][0];
        }
        if run.len() >= min_run {
            for &v in &run {
                group[v] = Some(runs.len());
            }
            runs.push(run);
        }
    }
    if runs.is_empty() {
        return;
    }
    let names: Vec<String> = runs
        .iter()
        .map(|run| {
            format!(
                "{} bundles: {} … {}",
                run.len(),
                node_names[run[0]],
                node_names[run[run.len() - 1]]
            )
        })
        .collect();
    let target = |name: &str| -> String {
        match index.get(name).and_then(|&i| group[i]) {
            Some(g) => names[g].clone(),
            None => name.to_string(),
        }
    };
    // Edges follow their ends into the groups; the edges inside a group go; parallel edges of
    // one kind become one, counted.
    let mut edges: Vec<super::Edge> = Vec::with_capacity(c.edges.len());
    let mut seen: HashMap<(String, String, EdgeKind), usize> = HashMap::new();
    for mut e in std::mem::take(&mut c.edges) {
        let (from, to) = (target(&e.from), target(&e.to));
        if from == to && (from != e.from || to != e.to) {
            continue;
        }
        let key = (from.clone(), to.clone(), e.kind);
        if let Some(&i) = seen.get(&key) {
            edges[i].count += e.count;
            continue;
        }
        e.from = from;
        e.to = to;
        seen.insert(key, edges.len());
        edges.push(e);
    }
    c.edges = edges;
    let mut nodes: Vec<Node> = Vec::with_capacity(n);
    let mut placed = vec![false; runs.len()];
    for (i, node) in std::mem::take(&mut c.nodes).into_iter().enumerate() {
        match group[i] {
            None => nodes.push(node),
            Some(g) if !placed[g] => {
                placed[g] = true;
                nodes.push(Node {
                    name: names[g].clone(),
                    version: None,
                    exists: true,
                    head: false,
                    deprecated: false,
                    off_chain: false,
                    findings: Vec::new(),
                    change: None,
                    folded: runs[g].iter().map(|&v| node_names[v].clone()).collect(),
                });
            }
            Some(_) => {}
        }
    }
    c.nodes = nodes;
}
