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

/// Folds the runs of one channel (see [`collapse`]).
fn collapse_channel(c: &mut ChannelGraph, min_run: usize) {
    let node_names: Vec<String> = c.nodes.iter().map(|x| x.name.clone()).collect();
    let index: HashMap<&str, usize> = node_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let links = Links::of(c, &index);
    let runs = links.runs(min_run);
    if runs.runs.is_empty() {
        return;
    }
    let names = runs.names(&node_names);
    runs.fold_edges(c, &index, &names);
    runs.fold_nodes(c, &names, &node_names);
}

/// A channel's replaces chain as node indices, and which nodes could be folded.
struct Links {
    /// The nodes each node replaces (through edges that can be folded).
    replaces: Vec<Vec<usize>>,
    /// The nodes each node is replaced by (the same edges, reversed).
    replaced_by: Vec<Vec<usize>>,
    /// Whether the node itself is unremarkable (see [`collapse`]).
    plain: Vec<bool>,
}

/// The runs to fold: their nodes in chain order, and each node's run.
struct Runs {
    group: Vec<Option<usize>>,
    runs: Vec<Vec<usize>>,
}

// Indices below come from enumerating vectors of the same length (n nodes, m edges), or
// from a name index built over those nodes: they are always in bounds.
#[allow(clippy::indexing_slicing)]
impl Links {
    /// The replaces links of `c`'s edges; a node on any other edge (a skips edge, a changed
    /// or cyclic one) is not plain.
    fn of(c: &ChannelGraph, index: &HashMap<&str, usize>) -> Self {
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
            let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str()))
            else {
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
        Links {
            replaces,
            replaced_by,
            plain,
        }
    }

    /// A plain node replaced by exactly one node and replacing exactly one.
    fn linear(&self, v: usize) -> bool {
        self.plain[v] && self.replaces[v].len() == 1 && self.replaced_by[v].len() == 1
    }

    /// The runs of at least `min_run` linear nodes. Runs start at a linear bundle whose
    /// replacer is not linear; they follow replaces.
    fn runs(&self, min_run: usize) -> Runs {
        let n = self.plain.len();
        let mut group: Vec<Option<usize>> = vec![None; n];
        let mut runs: Vec<Vec<usize>> = Vec::new();
        let mut visited = vec![false; n];
        for start in 0..n {
            if !self.linear(start) || self.linear(self.replaced_by[start][0]) {
                continue;
            }
            let mut run = vec![start];
            visited[start] = true;
            let mut at = self.replaces[start][0];
            while self.linear(at) && !visited[at] {
                visited[at] = true;
                run.push(at);
                at = self.replaces[at][0];
            }
            if run.len() >= min_run {
                for &v in &run {
                    group[v] = Some(runs.len());
                }
                runs.push(run);
            }
        }
        Runs { group, runs }
    }
}

// As above: run members and groups are indices of the channel's nodes.
#[allow(clippy::indexing_slicing)]
impl Runs {
    /// The name of each run's folded node.
    fn names(&self, node_names: &[String]) -> Vec<String> {
        self.runs
            .iter()
            .map(|run| {
                format!(
                    "{} bundles: {} … {}",
                    run.len(),
                    node_names[run[0]],
                    node_names[run[run.len() - 1]]
                )
            })
            .collect()
    }

    /// Edges follow their ends into the groups; the edges inside a group go; parallel edges of
    /// one kind become one, counted.
    fn fold_edges(&self, c: &mut ChannelGraph, index: &HashMap<&str, usize>, names: &[String]) {
        let target = |name: &str| -> String {
            match index.get(name).and_then(|&i| self.group[i]) {
                Some(g) => names[g].clone(),
                None => name.to_string(),
            }
        };
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
    }

    /// Each run's nodes become one node, where the run's first node was.
    fn fold_nodes(&self, c: &mut ChannelGraph, names: &[String], node_names: &[String]) {
        let mut nodes: Vec<Node> = Vec::with_capacity(c.nodes.len());
        let mut placed = vec![false; self.runs.len()];
        for (i, node) in std::mem::take(&mut c.nodes).into_iter().enumerate() {
            match self.group[i] {
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
                        folded: self.runs[g]
                            .iter()
                            .map(|&v| node_names[v].clone())
                            .collect(),
                    });
                }
                Some(_) => {}
            }
        }
        c.nodes = nodes;
    }
}
