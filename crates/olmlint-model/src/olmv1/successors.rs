//! OLM v1's upgrade edges: `catalogmetadata/filter/successors.go` `legacySuccessor` (olmv1
//! spec §3.2). A bundle is a successor of the installed one when any of its channel entries,
//! in the channels under consideration, has `replaces` equal to the installed name, the
//! installed name among `skips`, or a `skipRange` that blang's `ParseRange` accepts and that
//! contains the installed version (a skipRange that does not parse is silently ignored). v1
//! has no replaces chain: every such entry is a direct edge, and the resolver's ranking then
//! picks the highest.
//!
//! [`SuccessorIndex`] indexes a package's entries once: `replaces`/`skips` by the name they
//! point at, and every parseable skipRange's intervals in a stabbing tree (a segment tree over
//! the intervals' bounds). The edges from one installed bundle cost O(log n + edges), and its
//! best edge O(log n), so [`SuccessorIndex::upgrade_targets`] answers every bundle of a
//! channel of thousands of entries in O(n log n), never O(n²).

use super::view::PackageView;
use foldhash::{HashMap, HashMapExt};
use olmlint_semantics::range::{intervals_of, IntervalSet};
use olmlint_semantics::version as blang;
use semver::Version;
use std::cmp::Ordering;

/// Why an entry is an edge from the installed bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    Replaces,
    Skips,
    SkipRange,
}

/// One upgrade edge: the channel entry of `bundle` that makes it a successor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Position in [`PackageView::bundles`].
    pub bundle: usize,
    /// Position in [`PackageView::channels`].
    pub channel: usize,
    /// Index in that channel's `entries`.
    pub entry: usize,
    pub kind: EdgeKind,
}

/// Where OLM v1 moves from one bundle when it is installed and the ClusterExtension names
/// neither channels nor a version (policy CatalogProvided): the best-ranked of its successors
/// and the bundles of its own version and release (`SuccessorsOf` OR `ExactVersionRelease`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpgradeTarget {
    /// The installed bundle (position in [`PackageView::bundles`]).
    pub from: usize,
    /// The bundle resolution picks; `None` when `from` has no usable version (such a bundle
    /// cannot have been installed by OLM v1).
    pub to: Option<usize>,
    /// The edge that makes `to` a successor; `None` when `to` is `from` itself or another
    /// bundle of the same version and release reached without an edge.
    pub via: Option<Edge>,
    /// Edges from `from` to other bundles (any rank): 0 means nothing upgrades from it.
    pub edges_out: usize,
}

/// The targets of every bundle, and the work done (index operations), for scaling tests.
#[derive(Debug, Clone, Default)]
pub struct UpgradeTargets {
    /// Per bundle, in [`PackageView::bundles`] order.
    pub targets: Vec<UpgradeTarget>,
    pub work: u64,
}

#[derive(Debug, Clone, Copy)]
struct EntryRec {
    bundle: usize,
    channel: usize,
    entry: usize,
}

/// A package's upgrade edges, indexed once (see the module documentation).
#[derive(Debug)]
pub struct SuccessorIndex<'v, 'c, 'a> {
    view: &'v PackageView<'c, 'a>,
    entries: Vec<EntryRec>,
    /// Name → entries that replace (or skip) it.
    by_ref: HashMap<&'a str, Vec<(u32, EdgeKind)>>,
    /// Entries by the bundle they name.
    own: Vec<Vec<u32>>,
    tree: StabTree,
}

impl<'v, 'c, 'a> SuccessorIndex<'v, 'c, 'a> {
    /// Index every entry of `view`'s channels that names one of its bundles (entries naming
    /// no bundle cannot be candidates).
    pub fn new(view: &'v PackageView<'c, 'a>) -> Self {
        let mut entries = Vec::new();
        let mut by_ref: HashMap<&'a str, Vec<(u32, EdgeKind)>> = HashMap::new();
        let mut own = vec![Vec::new(); view.bundles.len()];
        let mut ranged: Vec<(u32, std::sync::Arc<IntervalSet>)> = Vec::new();
        for (ci, ch) in view.channels.iter().enumerate() {
            for (ei, e) in ch.channel.entries.iter().enumerate() {
                let Some(bundle) = view.bundle(e.name()) else {
                    continue;
                };
                let id = entries.len() as u32;
                entries.push(EntryRec {
                    bundle,
                    channel: ci,
                    entry: ei,
                });
                if let Some(o) = own.get_mut(bundle) {
                    o.push(id);
                }
                if let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) {
                    by_ref
                        .entry(r.value)
                        .or_default()
                        .push((id, EdgeKind::Replaces));
                }
                for s in e.skips.iter().filter(|s| !s.value.is_empty()) {
                    by_ref
                        .entry(s.value)
                        .or_default()
                        .push((id, EdgeKind::Skips));
                }
                if let Some(set) = e.skip_range.and_then(|r| intervals_of(r.value)) {
                    ranged.push((id, set));
                }
            }
        }
        SuccessorIndex {
            view,
            entries,
            by_ref,
            own,
            tree: StabTree::build(&ranged),
        }
    }

    /// `legacySuccessor`: the edges from a bundle installed as `name` at `version` (blang's
    /// reading of the recorded version), in the channels at `channels` positions (`None`:
    /// every channel, as when the ClusterExtension names none). An unknown `name` (`None`)
    /// matches no `replaces`/`skips`, only skipRanges. Edges are in entry order.
    pub fn successors(
        &self,
        name: Option<&str>,
        version: Option<&Version>,
        channels: Option<&[usize]>,
    ) -> Vec<Edge> {
        let in_channels = |c: usize| channels.is_none_or(|cs| cs.contains(&c));
        let mut ids: Vec<(u32, EdgeKind)> = name
            .filter(|n| !n.is_empty())
            .and_then(|n| self.by_ref.get(n))
            .cloned()
            .unwrap_or_default();
        if let Some(v) = version {
            self.tree
                .stab(v, &mut |id| ids.push((id, EdgeKind::SkipRange)), &mut 0);
        }
        ids.sort_unstable();
        ids.dedup_by_key(|(id, _)| *id);
        ids.into_iter()
            .filter_map(|(id, kind)| {
                let e = self.entries.get(id as usize)?;
                in_channels(e.channel).then_some(Edge {
                    bundle: e.bundle,
                    channel: e.channel,
                    entry: e.entry,
                    kind,
                })
            })
            .collect()
    }

    /// Every bundle's [`UpgradeTarget`], in O(n log n) over the package's entries.
    pub fn upgrade_targets(&self) -> UpgradeTargets {
        let view = self.view;
        let mut work = 0u64;
        let rank_of = |id: u32| {
            self.entries
                .get(id as usize)
                .map_or(usize::MAX, |e| view.rank(e.bundle))
        };
        // The best entry naming each referenced name, by the rank of its bundle.
        let best_by_ref: HashMap<&str, (usize, u32, EdgeKind)> = self
            .by_ref
            .iter()
            .filter_map(|(n, ids)| {
                work += ids.len() as u64;
                let best = ids.iter().map(|&(id, k)| (rank_of(id), id, k)).min()?;
                Some((*n, best))
            })
            .collect();
        let tree_best = self.tree.best_per_node(&rank_of, &mut work);
        let exact = exact_groups(view, &mut work);
        let targets = (0..view.bundles.len())
            .map(|p| self.target(p, &best_by_ref, &tree_best, &exact, &mut work))
            .collect();
        UpgradeTargets { targets, work }
    }

    fn target(
        &self,
        p: usize,
        best_by_ref: &HashMap<&str, (usize, u32, EdgeKind)>,
        tree_best: &[Option<(usize, u32)>],
        exact: &[usize],
        work: &mut u64,
    ) -> UpgradeTarget {
        let view = self.view;
        let none = UpgradeTarget {
            from: p,
            to: None,
            via: None,
            edges_out: 0,
        };
        let Some(b) = view.bundles.get(p) else {
            return none;
        };
        let Some(v) = b.semver.as_ref().filter(|_| b.version.is_ok()) else {
            return none;
        };
        *work += 1;
        let by_ref = (!b.name.is_empty())
            .then(|| best_by_ref.get(b.name))
            .flatten()
            .copied();
        let ranged = self
            .tree
            .best_at(v, tree_best, work)
            .map(|(r, id)| (r, id, EdgeKind::SkipRange));
        let edge = by_ref.into_iter().chain(ranged).min();
        let stay = exact.get(p).copied().unwrap_or(p);
        let (to, via) = match edge {
            Some((r, id, kind)) if r < view.rank(stay) => {
                let e = self.entries.get(id as usize);
                (
                    e.map_or(stay, |e| e.bundle),
                    e.map(|e| Edge {
                        bundle: e.bundle,
                        channel: e.channel,
                        entry: e.entry,
                        kind,
                    }),
                )
            }
            _ => (stay, None),
        };
        UpgradeTarget {
            from: p,
            to: Some(to),
            via,
            edges_out: self.edges_out(p, v, work),
        }
    }

    /// Edges from bundle `p` (at `v`) into other bundles: the edges the index counts (an
    /// entry once per way it points at `p`), less those of `p`'s own entries (a skipRange
    /// covering its own version, a `replaces` or `skips` of itself).
    fn edges_out(&self, p: usize, v: &Version, work: &mut u64) -> usize {
        let Some(b) = self.view.bundles.get(p) else {
            return 0;
        };
        let named = self.by_ref.get(b.name).map_or(0, Vec::len);
        let total = named + self.tree.count_at(v, work);
        let own: usize = self
            .own
            .get(p)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|&id| self.entry(id))
            .map(|e| {
                *work += 1 + e.skips.len() as u64;
                let replaces = e.replaces.is_some_and(|r| r.value == b.name);
                let skips = e.skips.iter().filter(|s| s.value == b.name).count();
                let ranged = e
                    .skip_range
                    .and_then(|r| intervals_of(r.value))
                    .is_some_and(|s| s.contains(v));
                usize::from(replaces && !b.name.is_empty()) + skips + usize::from(ranged)
            })
            .sum();
        total.saturating_sub(own)
    }

    /// The channel entry an index id stands for.
    fn entry(&self, id: u32) -> Option<&'c crate::ChannelEntry<'a>> {
        let e = self.entries.get(id as usize)?;
        self.view
            .channels
            .get(e.channel)?
            .channel
            .entries
            .get(e.entry)
    }
}

/// Per bundle position, the best-ranked bundle of the same version and release
/// (`ExactVersionRelease`); a bundle without a version maps to itself.
fn exact_groups(view: &PackageView<'_, '_>, work: &mut u64) -> Vec<usize> {
    let mut out: Vec<usize> = (0..view.bundles.len()).collect();
    let mut versioned: Vec<usize> = (0..view.bundles.len())
        .filter(|&p| view.bundles.get(p).is_some_and(|b| b.version.is_ok()))
        .collect();
    let cmp = |a: usize, b: usize| -> Ordering {
        match (view.bundles.get(a), view.bundles.get(b)) {
            (Some(x), Some(y)) => match (&x.version, &y.version) {
                (Ok(x), Ok(y)) => x.compare(y),
                _ => Ordering::Equal,
            },
            _ => Ordering::Equal,
        }
    };
    versioned.sort_by(|&a, &b| cmp(a, b));
    *work += versioned.len() as u64;
    for group in versioned.chunk_by(|&a, &b| cmp(a, b) == Ordering::Equal) {
        let best = group.iter().copied().min_by_key(|&p| view.rank(p));
        for &p in group {
            if let (Some(slot), Some(best)) = (out.get_mut(p), best) {
                *slot = best;
            }
        }
    }
    out
}

/// Half-open version intervals, each tagged with an entry id, in a segment tree over their
/// sorted distinct bounds: leaf `i` is `[bounds[i], bounds[i+1])` (the last one reaches +∞);
/// every interval is stored at the O(log n) nodes covering its leaves, so a point lies in
/// exactly the intervals stored on its leaf's path to the root.
#[derive(Debug, Default)]
struct StabTree {
    bounds: Vec<Version>,
    size: usize,
    nodes: Vec<Vec<u32>>,
}

impl StabTree {
    fn build(items: &[(u32, std::sync::Arc<IntervalSet>)]) -> StabTree {
        let mut bounds: Vec<Version> = items
            .iter()
            .flat_map(|(_, s)| s.intervals())
            .flat_map(|i| std::iter::once(i.lower().clone()).chain(i.upper().cloned()))
            .collect();
        bounds.sort_by(blang::cmp);
        bounds.dedup_by(|a, b| blang::cmp(a, b) == Ordering::Equal);
        let size = bounds.len().next_power_of_two();
        let mut tree = StabTree {
            nodes: vec![Vec::new(); 2 * size],
            bounds,
            size,
        };
        for (id, set) in items {
            for i in set.intervals() {
                let lo = tree.leaf_of_bound(i.lower());
                let hi = i
                    .upper()
                    .map_or(tree.bounds.len(), |u| tree.leaf_of_bound(u));
                tree.insert(lo, hi, *id);
            }
        }
        tree
    }

    fn leaf_of_bound(&self, v: &Version) -> usize {
        self.bounds
            .partition_point(|b| blang::cmp(b, v) == Ordering::Less)
    }

    /// The leaf holding `v`: the last bound at or below it.
    fn leaf_of(&self, v: &Version) -> Option<usize> {
        self.bounds
            .partition_point(|b| blang::cmp(b, v) != Ordering::Greater)
            .checked_sub(1)
    }

    fn insert(&mut self, lo: usize, hi: usize, id: u32) {
        let (mut l, mut r) = (lo + self.size, hi + self.size);
        while l < r {
            if l & 1 == 1 {
                if let Some(n) = self.nodes.get_mut(l) {
                    n.push(id);
                }
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                if let Some(n) = self.nodes.get_mut(r) {
                    n.push(id);
                }
            }
            l >>= 1;
            r >>= 1;
        }
    }

    /// The nodes on the path from `v`'s leaf to the root.
    fn path(&self, v: &Version) -> impl Iterator<Item = usize> {
        let mut node = self.leaf_of(v).map_or(0, |l| l + self.size);
        std::iter::from_fn(move || {
            let here = node;
            node >>= 1;
            (here > 0).then_some(here)
        })
    }

    /// Every interval containing `v`.
    fn stab(&self, v: &Version, f: &mut impl FnMut(u32), work: &mut u64) {
        for n in self.path(v) {
            *work += 1;
            for &id in self.nodes.get(n).map_or(&[][..], Vec::as_slice) {
                f(id);
            }
        }
    }

    /// How many intervals contain `v`.
    fn count_at(&self, v: &Version, work: &mut u64) -> usize {
        self.path(v)
            .map(|n| {
                *work += 1;
                self.nodes.get(n).map_or(0, Vec::len)
            })
            .sum()
    }

    /// Per node, its best (lowest-rank) interval.
    fn best_per_node(
        &self,
        rank_of: &impl Fn(u32) -> usize,
        work: &mut u64,
    ) -> Vec<Option<(usize, u32)>> {
        self.nodes
            .iter()
            .map(|ids| {
                *work += ids.len() as u64;
                ids.iter().map(|&id| (rank_of(id), id)).min()
            })
            .collect()
    }

    /// The best interval containing `v`.
    fn best_at(
        &self,
        v: &Version,
        best: &[Option<(usize, u32)>],
        work: &mut u64,
    ) -> Option<(usize, u32)> {
        self.path(v)
            .filter_map(|n| {
                *work += 1;
                best.get(n).copied().flatten()
            })
            .min()
    }
}
