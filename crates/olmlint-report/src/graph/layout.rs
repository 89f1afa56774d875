//! A layered (Sugiyama-style) layout for one channel's upgrade graph, free of I/O: ranks by
//! longest path from the heads (cycles broken at their back edges), order inside a rank by
//! barycentre sweeps, rows packed and centred. Upgrade graphs are nearly chains, so this small
//! algorithm draws them as well as a general one; everything is O((V + E) log V) per sweep.

/// Horizontal gap between nodes of a rank, vertical gap between ranks.
pub const GAP_X: f64 = 24.0;
pub const GAP_Y: f64 = 44.0;

#[derive(Debug, Clone)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// Each node's top-left corner.
    pub pos: Vec<(f64, f64)>,
    pub rank: Vec<usize>,
    /// Per edge: a back edge of a cycle (drawn, but not used for ranking).
    pub back: Vec<bool>,
}

/// Lays out `sizes.len()` nodes of the given (width, height); `edges` go from a newer node
/// (drawn above) to an older one.
// Every vector is sized by the node count and edge ends are checked against it (`a < n && b <
// n`) before use; rank rows are indexed by ranks below their count.
#[allow(clippy::indexing_slicing)]
pub fn layered(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> Layout {
    let n = sizes.len();
    let mut out_adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(a, b)) in edges.iter().enumerate() {
        if a < n && b < n {
            out_adj[a].push((b, i));
        }
    }
    let back = back_edges(n, &out_adj, edges.len());
    // Longest path from the sources, in topological order (Kahn) over the forward edges.
    let mut indegree = vec![0usize; n];
    for (i, &(a, b)) in edges.iter().enumerate() {
        if a < n && b < n && !back[i] && a != b {
            indegree[b] += 1;
        }
    }
    let mut rank = vec![0usize; n];
    let mut queue: std::collections::VecDeque<usize> =
        (0..n).filter(|&v| indegree[v] == 0).collect();
    while let Some(v) = queue.pop_front() {
        for &(w, i) in &out_adj[v] {
            if back[i] || w == v {
                continue;
            }
            rank[w] = rank[w].max(rank[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    let ranks = rank.iter().copied().max().map_or(0, |m| m + 1);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    for v in 0..n {
        rows[rank[v]].push(v);
    }
    // Neighbours in both directions, for the barycentre sweeps.
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            down[a].push(b);
            up[b].push(a);
        }
    }
    let mut place = vec![0.0f64; n];
    let normalise = |rows: &[Vec<usize>], place: &mut Vec<f64>| {
        for row in rows {
            let len = row.len().max(1) as f64;
            for (i, &v) in row.iter().enumerate() {
                place[v] = (i as f64 + 0.5) / len;
            }
        }
    };
    normalise(&rows, &mut place);
    for sweep in 0..4 {
        let order: Vec<usize> = if sweep % 2 == 0 {
            (1..ranks).collect()
        } else {
            (0..ranks.saturating_sub(1)).rev().collect()
        };
        for r in order {
            let neighbours = if sweep % 2 == 0 { &up } else { &down };
            let mut keyed: Vec<(f64, usize, usize)> = rows[r]
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let ns = &neighbours[v];
                    let centre = if ns.is_empty() {
                        place[v]
                    } else {
                        ns.iter().map(|&w| place[w]).sum::<f64>() / ns.len() as f64
                    };
                    (centre, i, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            rows[r] = keyed.into_iter().map(|(_, _, v)| v).collect();
            let len = rows[r].len().max(1) as f64;
            for (i, &v) in rows[r].iter().enumerate() {
                place[v] = (i as f64 + 0.5) / len;
            }
        }
    }
    // Coordinates: rows packed left to right and centred on the widest.
    let row_width = |row: &[usize]| -> f64 {
        row.iter().map(|&v| sizes[v].0).sum::<f64>() + GAP_X * row.len().saturating_sub(1) as f64
    };
    let width = rows.iter().map(|r| row_width(r)).fold(0.0, f64::max);
    let mut pos = vec![(0.0, 0.0); n];
    let mut y = 0.0;
    for row in &rows {
        let height = row.iter().map(|&v| sizes[v].1).fold(0.0, f64::max);
        let mut x = (width - row_width(row)) / 2.0;
        for &v in row {
            pos[v] = (x, y + (height - sizes[v].1) / 2.0);
            x += sizes[v].0 + GAP_X;
        }
        y += height + GAP_Y;
    }
    Layout {
        width,
        height: (y - GAP_Y).max(0.0),
        pos,
        rank,
        back,
    }
}

/// The back edges of a depth-first search (iterative): removing them leaves a DAG.
// `out_adj` has n entries holding (vertex < n, edge < edges) pairs.
#[allow(clippy::indexing_slicing)]
fn back_edges(n: usize, out_adj: &[Vec<(usize, usize)>], edges: usize) -> Vec<bool> {
    let mut back = vec![false; edges];
    // 0 unseen, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&(w, i)) = out_adj[v].get(*next) {
                *next += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => back[i] = true,
                    _ => {}
                }
                continue;
            }
            state[v] = 2;
            stack.pop();
        }
    }
    back
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_one_column_and_a_cycle_is_broken() {
        let sizes = vec![(100.0, 20.0); 3];
        let l = layered(&sizes, &[(0, 1), (1, 2)]);
        assert_eq!(l.rank, vec![0, 1, 2]);
        assert!(l.pos.iter().all(|p| p.0 == 0.0));
        assert_eq!(l.width, 100.0);
        assert_eq!(l.height, 3.0 * 20.0 + 2.0 * GAP_Y);
        let l = layered(&sizes, &[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(l.back, vec![false, false, true]);
        assert_eq!(l.rank, vec![0, 1, 2]);
    }

    #[test]
    fn skipped_bundles_share_a_row_under_the_head() {
        // 0 replaces 1 and skips 2 and 3: 1, 2, 3 are one rank below 0.
        let sizes = vec![(50.0, 20.0); 4];
        let l = layered(&sizes, &[(0, 1), (0, 2), (0, 3)]);
        assert_eq!(l.rank, vec![0, 1, 1, 1]);
        assert_eq!(l.width, 3.0 * 50.0 + 2.0 * GAP_X);
        let xs: std::collections::BTreeSet<i64> = l.pos[1..].iter().map(|p| p.0 as i64).collect();
        assert_eq!(xs.len(), 3);
    }
}
