//! SAT engine for OLM installability (olm-semantics §3.5–§3.9).
//!
//! The caller turns a catalog into an abstract [`Problem`]: one [`Entry`] per
//! (catalog, channel, bundle), each with ordered dependency candidate lists. This
//! module answers three questions on it:
//!
//! * [`check_installable`] / [`Checker::check`]: could OLM install bundle B (one
//!   subscription with `startingCSV` = B, §3.9)? Unsatisfiable verdicts carry a
//!   minimal unsatisfiable core over named constraints ([`CoreItem`]).
//! * [`resolve`] / [`resolve_subscriptions`]: which set would OLM actually pick
//!   (preference search plus extras minimisation, §3.6)?
//! * [`explain`] / [`olm_message`]: render a verdict in words, or in OLM's own
//!   `constraints not satisfiable: …` text (§3.8).
//!
//! Design (see `encode.rs` for the clauses):
//!
//! * [`Problem::new`] interns the at-most-one groups (per GVK, per package) and
//!   flattens the dependency graph once. A [`Problem`] is immutable and `Sync`;
//!   share it between threads.
//! * Each check explores the closure reached from its start entry and encodes
//!   only that closure into a small CNF (one variable per reached entry, linear
//!   sequential-counter at-most-one). At-most-one groups therefore range over the
//!   reached closure only, exactly like OLM, and verdicts do not depend on the
//!   order in which checks run. A check first solves hard clauses; only an
//!   UNSAT answer is re-encoded with one selector literal per dependency,
//!   prohibition, root and group, solved under all selectors as assumptions, and
//!   its core shrunk by deletion to a minimal unsatisfiable subset.
//! * Why not one solver over the whole catalog, answering checks by
//!   assumptions? A SAT answer from a CDCL solver assigns every variable, so each
//!   check would cost time proportional to the catalog: measured 16 ms per check
//!   on 100,000 entries against ~60 µs for the per-closure encoding.
//! * A [`Checker`] owns the scratch buffers (closure marks sized to the
//!   catalog, clause buffers) and one batsat solver, reset per check; it is
//!   `Send`. Create one per worker thread ([`Problem::checker`]), e.g. with
//!   rayon's `map_init(|| problem.checker(), |c, b| c.check(&b.starts, budget))`.
//! * A start that can reach no hard error is first decided on a pruned closure
//!   (`encode::Local::explore`): entries that are false in every model (sharing the
//!   start's package or APIs, deprecated) and what only tautological dependencies reach are
//!   left out, and a greedy witness is tried before anything is explored. Cores are named
//!   over the full closure.
//! * [`check_bundles`] checks a whole catalog dependencies-first, so that long chains of
//!   uninstallable bundles are decided by reference to their dependency's verdict
//!   ([`CoreItem::Uninstallable`]) instead of re-solving the chain per bundle.
//! * Budgets are conflict counts, enforced through batsat's `Callbacks::stop`.

mod batch;
mod check;
mod encode;
mod explain;
mod greedy;
mod search;
mod solver;

#[cfg(test)]
mod tests;

use compact_str::CompactString;
use std::collections::HashMap;
use std::sync::Arc;

pub use batch::check_bundles;
pub use check::{CheckStats, Checker};
pub use explain::{
    explain, explain_parts, olm_message, olm_message_with, olm_reasons, OlmStyle, PredicateText,
};
pub use search::{resolve, resolve_subscriptions};

/// Dense index of an entry in [`Problem::entries`].
pub type EntryId = u32;

/// One solver unit: a bundle in one channel of one catalog (§3.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// Bundle name, e.g. `foo.v1.0.0`.
    pub bundle: CompactString,
    /// Package of the entry.
    pub package: CompactString,
    pub channel: CompactString,
    pub catalog: CompactString,
    /// `olm.deprecated`: the entry is Prohibited.
    pub deprecated: bool,
    /// Prohibited for another reason, said as a predicate of the bundle (e.g. `fails cluster
    /// constraint 1 of cluster.yaml`); explanations use it instead of "is deprecated".
    pub prohibited: Option<String>,
    /// `group/version/Kind` of every `olm.gvk` property (deduplicated here again); shared by
    /// the entries of one bundle (one per channel it is in).
    pub provides_gvks: Arc<[CompactString]>,
    /// `packageName` of every `olm.package` property (one-bundle-per-package invariant);
    /// shared like `provides_gvks`.
    pub package_props: Arc<[CompactString]>,
    /// Dependencies in property order.
    pub dependencies: Vec<Dependency>,
    /// The entry's own constraints fail to decode/compile: OLM aborts any
    /// resolution that reaches it (§3.7).
    pub hard_error: Option<String>,
}

/// One dependency clause `¬owner ∨ c1 ∨ … ∨ cn`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependency {
    /// Eligible candidates in OLM's preference order; may contain the owner.
    /// Ids outside the problem are ignored.
    /// Shared: every entry of every bundle with the same dependency value holds the same list.
    pub candidates: Arc<[EntryId]>,
    /// Human text, e.g. `requires package bar >=2.0.0`.
    pub label: Arc<str>,
    /// Opaque id for the caller (source span).
    pub origin: u32,
    /// The author's `failureMessage`.
    pub cel_message: Option<Arc<str>>,
}

/// The abstract resolution problem plus precomputed indices.
///
/// Build it with [`Problem::new`]; do not mutate `entries` afterwards (the
/// indices would go stale; nothing panics, but answers would be wrong).
#[derive(Debug, Clone, Default)]
pub struct Problem {
    pub entries: Vec<Entry>,
    index: Index,
}

/// Kind of an at-most-one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum GroupKind {
    Gvk,
    Package,
}

/// Entry flag: `olm.deprecated`.
pub(crate) const DEPRECATED: u8 = 1;
/// Entry flag: has a hard error.
pub(crate) const HARD_ERROR: u8 = 2;

/// Flat (CSR) copies of what the checks walk, so that exploring and encoding
/// touch a few dense arrays instead of the entry structs.
#[derive(Debug, Clone, Default)]
struct Index {
    /// Interned groups: kind and name.
    groups: Vec<(GroupKind, String)>,
    /// Per entry: range into `group_ids` (its groups, deduplicated).
    group_start: Vec<u32>,
    group_ids: Vec<u32>,
    /// Per entry: range into the flat dependency list.
    dep_start: Vec<u32>,
    /// Per flat dependency: range into `cands`. Entries sharing one candidate list (the
    /// same `Arc`) share one range: 40 000 requirers of a GVK with 40 000 providers were
    /// 6.4 GB of copies.
    cand_range: Vec<(u32, u32)>,
    /// Per flat dependency: its distinct candidate list (index into `lists`).
    list_of: Vec<u32>,
    /// Per distinct candidate list: its range into `cands`.
    lists: Vec<(u32, u32)>,
    /// Per flat dependency: the owner is among its candidates (tautology).
    self_dep: Vec<bool>,
    /// Candidates with out-of-range ids removed.
    cands: Vec<EntryId>,
    /// Per entry: [`DEPRECATED`] | [`HARD_ERROR`].
    flags: Vec<u8>,
    /// Per entry: some entry with a hard error is reachable through dependencies (itself
    /// included). Empty when no entry has a hard error.
    reaches_hard: Vec<bool>,
}

fn idx(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Problem {
    /// Builds the problem and its indices (group interning, flat adjacency).
    /// `O(total properties + candidates)`.
    pub fn new(entries: Vec<Entry>) -> Self {
        let n = entries.len();
        let mut ids: HashMap<(GroupKind, &str), u32> = HashMap::new();
        let mut ix = Index {
            group_start: Vec::with_capacity(n + 1),
            dep_start: Vec::with_capacity(n + 1),
            flags: Vec::with_capacity(n),
            ..Index::default()
        };
        ix.group_start.push(0);
        ix.dep_start.push(0);
        let mut lists: HashMap<*const EntryId, u32> = HashMap::new();
        for (e, entry) in entries.iter().enumerate() {
            let first = ix.group_ids.len();
            let named = entry
                .provides_gvks
                .iter()
                .map(|g| (GroupKind::Gvk, g.as_str()))
                .chain(
                    entry
                        .package_props
                        .iter()
                        .map(|p| (GroupKind::Package, p.as_str())),
                );
            for (kind, name) in named {
                let next = idx(ix.groups.len());
                let groups = &mut ix.groups;
                let id = *ids.entry((kind, name)).or_insert_with(|| {
                    groups.push((kind, name.to_string()));
                    next
                });
                if !ix.group_ids.get(first..).is_some_and(|g| g.contains(&id)) {
                    ix.group_ids.push(id);
                }
            }
            ix.group_start.push(idx(ix.group_ids.len()));
            let own = idx(e);
            for dep in &entry.dependencies {
                ix.self_dep.push(dep.candidates.contains(&own));
                let (cands, distinct) = (&mut ix.cands, &mut ix.lists);
                let list = *lists.entry(dep.candidates.as_ptr()).or_insert_with(|| {
                    let start = idx(cands.len());
                    cands.extend(dep.candidates.iter().filter(|&&c| (c as usize) < n));
                    distinct.push((start, idx(cands.len())));
                    idx(distinct.len() - 1)
                });
                ix.cand_range
                    .push(ix.lists.get(list as usize).copied().unwrap_or((0, 0)));
                ix.list_of.push(list);
            }
            ix.dep_start.push(idx(ix.self_dep.len()));
            let mut flags = 0;
            if entry.deprecated || entry.prohibited.is_some() {
                flags |= DEPRECATED;
            }
            if entry.hard_error.is_some() {
                flags |= HARD_ERROR;
            }
            ix.flags.push(flags);
        }
        ix.reaches_hard = reaching_hard_errors(&ix, n);
        Problem { index: ix, entries }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry with this id.
    pub fn entry(&self, id: EntryId) -> Option<&Entry> {
        self.entries.get(id as usize)
    }

    /// A reusable per-thread checker.
    pub fn checker(&self) -> Checker<'_> {
        Checker::new(self)
    }

    fn range(v: &[u32], i: usize) -> std::ops::Range<usize> {
        match (v.get(i), v.get(i + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    pub(crate) fn groups_of(&self, id: EntryId) -> &[u32] {
        let r = Self::range(&self.index.group_start, id as usize);
        self.index.group_ids.get(r).unwrap_or(&[])
    }

    pub(crate) fn group_count(&self) -> usize {
        self.index.groups.len()
    }

    pub(crate) fn group(&self, group: u32) -> Option<&(GroupKind, String)> {
        self.index.groups.get(group as usize)
    }

    pub(crate) fn flags(&self, id: EntryId) -> u8 {
        self.index.flags.get(id as usize).copied().unwrap_or(0)
    }

    /// Flat dependency ids of an entry, in property order.
    pub(crate) fn deps_of(&self, id: EntryId) -> std::ops::Range<usize> {
        Self::range(&self.index.dep_start, id as usize)
    }

    /// Number of distinct candidate lists.
    pub(crate) fn list_count(&self) -> usize {
        self.index.lists.len()
    }

    /// The distinct candidate list of a flat dependency.
    pub(crate) fn list_of(&self, flat: usize) -> u32 {
        self.index.list_of.get(flat).copied().unwrap_or(u32::MAX)
    }

    /// Candidates of a distinct list.
    pub(crate) fn list(&self, list: u32) -> &[EntryId] {
        let (a, b) = self
            .index
            .lists
            .get(list as usize)
            .copied()
            .unwrap_or((0, 0));
        self.index.cands.get(a as usize..b as usize).unwrap_or(&[])
    }

    /// Whether a resolution starting at `id` could reach an entry with a hard error.
    pub(crate) fn reaches_hard_error(&self, id: EntryId) -> bool {
        self.index
            .reaches_hard
            .get(id as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Valid candidates of a flat dependency, and whether it is a tautology.
    pub(crate) fn dep(&self, flat: usize) -> (&[EntryId], bool) {
        let (a, b) = self.index.cand_range.get(flat).copied().unwrap_or((0, 0));
        (
            self.index.cands.get(a as usize..b as usize).unwrap_or(&[]),
            self.index.self_dep.get(flat).copied().unwrap_or(false),
        )
    }
}

/// Per entry: can a breadth-first exploration from it reach an entry with a hard error?
/// Backwards from the hard errors over "is a candidate of a dependency of", each distinct
/// candidate list once: linear in the problem.
fn reaching_hard_errors(ix: &Index, n: usize) -> Vec<bool> {
    if !ix.flags.iter().any(|f| f & HARD_ERROR != 0) {
        return Vec::new();
    }
    // Lists holding each entry, and owners of each list.
    let mut holding: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (l, &(a, b)) in ix.lists.iter().enumerate() {
        for &c in ix.cands.get(a as usize..b as usize).unwrap_or(&[]) {
            if let Some(h) = holding.get_mut(c as usize) {
                h.push(idx(l));
            }
        }
    }
    let mut owners: Vec<Vec<u32>> = vec![Vec::new(); ix.lists.len()];
    for e in 0..n {
        for flat in Problem::range(&ix.dep_start, e) {
            if let Some(o) = ix
                .list_of
                .get(flat)
                .and_then(|&l| owners.get_mut(l as usize))
            {
                o.push(idx(e));
            }
        }
    }
    let mut reaches = vec![false; n];
    let mut list_done = vec![false; ix.lists.len()];
    let mut queue: Vec<u32> = Vec::new();
    for (e, f) in ix.flags.iter().enumerate() {
        if let (true, Some(r)) = (f & HARD_ERROR != 0, reaches.get_mut(e)) {
            *r = true;
            queue.push(idx(e));
        }
    }
    while let Some(c) = queue.pop() {
        for &l in holding.get(c as usize).map_or(&[][..], Vec::as_slice) {
            match list_done.get_mut(l as usize) {
                Some(done) if !*done => *done = true,
                _ => continue,
            }
            for &e in owners.get(l as usize).map_or(&[][..], Vec::as_slice) {
                if let Some(r) = reaches.get_mut(e as usize) {
                    if !*r {
                        *r = true;
                        queue.push(e);
                    }
                }
            }
        }
    }
    reaches
}

/// Conflict budget for one check or one resolution.
///
/// `conflicts` bounds the conflicts of the decisive solver calls. Core
/// minimisation gets the same allowance again; when it runs out the core is
/// returned unminimised (still a valid core).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub conflicts: u64,
}

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget {
        conflicts: u64::MAX,
    };

    /// At most `n` conflicts.
    pub const fn conflicts(n: u64) -> Budget {
        Budget { conflicts: n }
    }
}

impl Default for Budget {
    /// 100,000 conflicts: far above anything a real catalog needs.
    fn default() -> Self {
        Budget::conflicts(100_000)
    }
}

/// Result of an installability check (or the outcome of a resolution).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Satisfiable. `chosen` is the installed set, sorted by id: a witness for
    /// checks, OLM's own pick for [`resolve`].
    Installable { chosen: Vec<EntryId> },
    /// Unsatisfiable; `core` is a minimal unsatisfiable subset (unless the
    /// minimisation budget ran out), ordered roots, dependencies by depth,
    /// prohibitions, groups.
    Unsatisfiable { core: Vec<CoreItem> },
    /// OLM aborts: a reached entry has an undecodable constraint (§3.7). The
    /// first such entry in breadth-first order from the roots.
    HardError { entry: EntryId, message: String },
    /// The conflict budget ran out before a decision.
    BudgetExceeded,
}

impl Verdict {
    /// True for [`Verdict::Installable`].
    pub fn is_installable(&self) -> bool {
        matches!(self, Verdict::Installable { .. })
    }
}

/// A named constraint of an unsatisfiable core.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CoreItem {
    /// The checked start entry (or a `resolve` anchor) must be installed.
    Mandatory(EntryId),
    /// Subscription `name` must install one of `candidates` ([`resolve_subscriptions`]).
    Subscription {
        name: String,
        candidates: Vec<EntryId>,
    },
    /// An installed entry without subscription must stay installed ([`resolve`]).
    Installed(EntryId),
    /// `entries[entry].dependencies[index]`.
    Dependency { entry: EntryId, index: usize },
    /// A reached deprecated (or otherwise [`Entry::prohibited`]) entry.
    Prohibited(EntryId),
    /// At most one of the reached providers `entries` (sorted) of `gvk`.
    AtMostOneGvk { gvk: String, entries: Vec<EntryId> },
    /// At most one of the reached entries `entries` (sorted) of `package`.
    AtMostOnePackage {
        package: String,
        entries: Vec<EntryId>,
    },
    /// Every one of `entries` (the candidates of the preceding dependency) is itself
    /// uninstallable, for reasons its own verdict gives ([`check_bundles`] refers to them
    /// instead of repeating long explanations).
    Uninstallable { entries: Vec<EntryId> },
}

/// A subscription for [`resolve_subscriptions`]: mandatory, needs one candidate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subscription {
    pub name: String,
    /// Candidates in OLM's subscription order (§3.4).
    pub candidates: Vec<EntryId>,
}

/// Who owns a dependency choice in [`Resolution::choices`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DepOwner {
    /// The i-th anchor / subscription / installed entry, in input order
    /// (anchors or subscriptions first, then `installed`).
    Anchor(usize),
    /// `entries[entry].dependencies[index]`.
    Dependency { entry: EntryId, index: usize },
}

/// How one dependency of an installed entry was satisfied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChosenDependency {
    pub owner: DepOwner,
    /// The candidate that satisfies it.
    pub chosen: EntryId,
    /// True when the search picked `chosen` for this dependency; false when an
    /// earlier pick already satisfied it.
    pub guessed: bool,
}

/// Result of [`resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// `Installable { chosen }` holds the installed set.
    pub verdict: Verdict,
    /// For every dependency (and anchor) of an installed entry, in search order.
    pub choices: Vec<ChosenDependency>,
}

/// Checks whether the bundle whose entries (one per channel) are `starts` is
/// installable: SAT for at least one start. Convenience wrapper around
/// [`Checker::check`]; for many checks reuse a [`Checker`].
pub fn check_installable(problem: &Problem, starts: &[EntryId], budget: Budget) -> Verdict {
    problem.checker().check(starts, budget)
}
