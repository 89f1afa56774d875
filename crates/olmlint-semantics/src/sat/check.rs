//! Per-bundle installability checks and core minimisation.

use super::batch::known_uninstallable;
use super::encode::{Cons, Local, Root, RootKind};
use super::greedy::Greedy;
use super::solver::{Outcome, Sat};
use super::{Budget, CoreItem, EntryId, GroupKind, Problem, Subscription, Verdict, DEPRECATED};
use batsat::Lit;

/// Upper bound on solver calls spent minimising one core.
const MAX_MINIMIZE_CALLS: usize = 10_000;
/// Solver calls × constraints one core minimisation may spend: each call propagates over the
/// whole closure, so a chain of 1 000 uninstallable packages made every check cost 10⁶ and
/// the run 10⁹ (cubic). Beyond it the core stays valid, only not minimal.
const MINIMIZE_WORK: usize = 200_000;
/// Solver calls a minimisation may always make, however large its closure.
const MIN_MINIMIZE_CALLS: usize = 32;

/// Size and effort of the last check (for benchmarks and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Reached entries.
    pub closure: usize,
    /// Solver variables (entries, selectors, counter auxiliaries).
    pub vars: u32,
    /// Clauses added.
    pub clauses: usize,
    /// Solver calls, including core minimisation.
    pub solver_calls: usize,
    /// Conflicts over all calls.
    pub conflicts: u64,
}

/// Reusable checker: scratch buffers plus one batsat solver. `Send`, not
/// shared; create one per worker thread with [`Problem::checker`].
pub struct Checker<'p> {
    problem: &'p Problem,
    local: Local,
    greedy: Greedy,
    sat: Sat,
    roots: Vec<Root>,
    assumptions: Vec<Lit>,
    stats: CheckStats,
    /// Length of the last uninstallable verdict's explanation (0: not uninstallable).
    weight: u32,
}

impl<'p> Checker<'p> {
    pub(super) fn new(problem: &'p Problem) -> Self {
        Checker {
            problem,
            local: Local::default(),
            greedy: Greedy::default(),
            sat: Sat::new(),
            roots: Vec::new(),
            assumptions: Vec::new(),
            stats: CheckStats::default(),
            weight: 0,
        }
    }

    /// Installable iff SAT for at least one start (the bundle's entries in its
    /// channels). Otherwise: `BudgetExceeded` if any start ran out of budget,
    /// else the verdict of the first start.
    pub fn check(&mut self, starts: &[EntryId], budget: Budget) -> Verdict {
        let mut first: Option<Verdict> = None;
        let mut exceeded = false;
        for &start in starts {
            match self.check_start(start, budget) {
                v @ Verdict::Installable { .. } => return v,
                Verdict::BudgetExceeded => exceeded = true,
                v => {
                    if first.is_none() {
                        first = Some(v);
                    }
                }
            }
        }
        if exceeded {
            return Verdict::BudgetExceeded;
        }
        first.unwrap_or(Verdict::Unsatisfiable { core: Vec::new() })
    }

    /// Checks a single start entry.
    pub fn check_start(&mut self, start: EntryId, budget: Budget) -> Verdict {
        self.check_start_after(start, budget, &[])
    }

    /// [`Checker::check_start`] knowing, per entry, the explanation length of the entries
    /// already found uninstallable (see [`super::batch`]).
    pub(super) fn check_start_after(
        &mut self,
        start: EntryId,
        budget: Budget,
        weights: &[u32],
    ) -> Verdict {
        self.stats = CheckStats::default();
        self.weight = 0;
        if let Some((verdict, weight)) = known_uninstallable(self.problem, start, weights) {
            self.stats.closure = 1;
            self.weight = weight;
            return verdict;
        }
        self.roots.clear();
        self.roots.push(Root {
            kind: RootKind::Mandatory(start),
            candidates: vec![start],
        });
        let p = self.problem;
        // Decide on the pruned closure when no hard error can be reached (the verdict
        // would be the abort): far smaller when the start's package or APIs are popular.
        let pruned = (!p.reaches_hard_error(start)).then_some(start);
        if pruned.is_some() {
            if let Some(chosen) = self.greedy.witness_from(p, start) {
                self.stats.closure = chosen.len();
                return Verdict::Installable { chosen };
            }
        }
        if let Err(entry) = self.local.explore(p, &self.roots, pruned) {
            self.stats.closure = self.local.closure.len();
            return hard_error(p, entry);
        }
        // Fast path: nothing reached but the start, which needs nothing else.
        if self.local.closure.as_slice() == [start]
            && p.flags(start) & DEPRECATED == 0
            && p.deps_of(start).all(|flat| p.dep(flat).1)
        {
            self.stats.closure = 1;
            return Verdict::Installable {
                chosen: vec![start],
            };
        }
        if let Some(chosen) = self.greedy.witness(p, &self.local, &self.roots) {
            self.stats.closure = self.local.closure.len();
            return Verdict::Installable { chosen };
        }
        // Decide on hard clauses first (most checks are SAT); only an UNSAT
        // answer is re-encoded with selectors to extract a named core.
        self.local.encode(p, &mut self.sat, &self.roots, false);
        let outcome = self.sat.solve(&[], budget.conflicts);
        let verdict = match outcome {
            Outcome::Sat => Verdict::Installable {
                chosen: model_entries(&self.local, &self.sat),
            },
            Outcome::Unknown => Verdict::BudgetExceeded,
            Outcome::Unsat => {
                // The core is named over the full closure, as OLM would list it.
                if pruned.is_some() {
                    if let Err(entry) = self.local.explore(p, &self.roots, None) {
                        return hard_error(p, entry);
                    }
                }
                self.named_core(budget)
            }
        };
        self.stats = CheckStats {
            closure: self.local.closure.len(),
            vars: self.sat.num_vars(),
            clauses: self.sat.clauses(),
            solver_calls: self.sat.calls() + self.stats.solver_calls,
            conflicts: self.sat.conflicts() + self.stats.conflicts,
        };
        if matches!(verdict, Verdict::Unsatisfiable { .. }) {
            self.weight = u32::try_from(self.local.closure.len()).unwrap_or(u32::MAX);
        }
        verdict
    }

    fn named_core(&mut self, budget: Budget) -> Verdict {
        let spent = self.sat.conflicts();
        let calls = self.sat.calls();
        self.local
            .encode(self.problem, &mut self.sat, &self.roots, true);
        self.assumptions.clear();
        self.assumptions.extend_from_slice(&self.local.selectors);
        match self.sat.solve(&self.assumptions, budget.conflicts) {
            Outcome::Unsat => {
                let mut core = core_cons(&self.local, &self.sat);
                minimize(
                    &mut self.sat,
                    self.problem,
                    &self.local,
                    &mut core,
                    budget,
                    &[],
                );
                self.stats.conflicts = spent;
                self.stats.solver_calls = calls;
                Verdict::Unsatisfiable {
                    core: core_items(self.problem, &self.local, &self.roots, &[], &core),
                }
            }
            // Same formula as before: cannot differ unless the budget bites.
            Outcome::Sat | Outcome::Unknown => Verdict::BudgetExceeded,
        }
    }

    /// Statistics of the last check.
    pub fn last_stats(&self) -> CheckStats {
        self.stats
    }

    /// Length of the last verdict's explanation when it was uninstallable, else 0.
    pub(super) fn last_weight(&self) -> u32 {
        self.weight
    }
}

pub(super) fn hard_error(problem: &Problem, entry: EntryId) -> Verdict {
    Verdict::HardError {
        entry,
        message: problem
            .entry(entry)
            .and_then(|e| e.hard_error.clone())
            .unwrap_or_default(),
    }
}

/// Reached entries that are true in the current model, sorted.
pub(super) fn model_entries(local: &Local, sat: &Sat) -> Vec<EntryId> {
    let mut out: Vec<EntryId> = local
        .closure
        .iter()
        .zip(&local.lits)
        .filter(|(_, &l)| sat.value(l))
        .map(|(&e, _)| e)
        .collect();
    out.sort_unstable();
    out
}

/// Constraint indices of the solver's last unsat core.
pub(super) fn core_cons(local: &Local, sat: &Sat) -> Vec<usize> {
    let mut core: Vec<usize> = sat
        .core()
        .iter()
        .filter_map(|&l| local.cons_of(l))
        .collect();
    core.sort_unstable();
    core.dedup();
    core
}

/// Deletion order: try dropping GVK groups first, then prohibitions and
/// dependencies deepest first, then package groups, roots last. What survives
/// early is what the explanation talks about.
fn deletion_key(problem: &Problem, local: &Local, c: usize) -> (u8, i64) {
    let depth = |l: u32| i64::from(local.depth.get(l as usize).copied().unwrap_or(0));
    match local.cons.get(c) {
        Some(Cons::Group(g)) => {
            let kind = local
                .groups
                .get(*g as usize)
                .and_then(|ag| problem.group(ag.group))
                .map(|(k, _)| *k);
            if kind == Some(GroupKind::Gvk) {
                (0, 0)
            } else {
                (3, 0)
            }
        }
        Some(Cons::Prohibited(l)) => (1, -depth(*l)),
        Some(Cons::Dep { local: l, .. }) => (2, -depth(*l)),
        Some(Cons::Root(_)) | None => (4, 0),
    }
}

/// Deletion-based shrinking of `core` (constraint indices) to a minimal
/// unsatisfiable subset, with `fixed` literals always assumed. At most one
/// solver call per core element (and at most [`MAX_MINIMIZE_CALLS`]); stops
/// early, leaving a valid core, once `budget` conflicts have been spent.
pub(super) fn minimize(
    sat: &mut Sat,
    problem: &Problem,
    local: &Local,
    core: &mut Vec<usize>,
    budget: Budget,
    fixed: &[Lit],
) {
    let start = sat.conflicts();
    let mut assumptions: Vec<Lit> = Vec::new();
    let mut calls = 0;
    let max_calls =
        (MINIMIZE_WORK / local.cons.len().max(1)).clamp(MIN_MINIMIZE_CALLS, MAX_MINIMIZE_CALLS);
    let is_gvk = |c: usize| deletion_key(problem, local, c).0 == 0;

    // Prefer explanations without GVK invariants (for two bundles of one
    // package they merely duplicate the package invariant): drop each from the
    // whole constraint set while that stays unsatisfiable.
    let mut avoided: Vec<usize> = Vec::new();
    let mut tried: Vec<usize> = Vec::new();
    while let Some(c) = core
        .iter()
        .copied()
        .find(|&c| is_gvk(c) && !tried.contains(&c))
    {
        tried.push(c);
        let spent = sat.conflicts().saturating_sub(start);
        if calls >= max_calls || spent >= budget.conflicts {
            break;
        }
        calls += 1;
        assumptions.clear();
        assumptions.extend_from_slice(fixed);
        assumptions.extend(
            local
                .selectors
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != c && !avoided.contains(k))
                .map(|(_, &s)| s),
        );
        match sat.solve(&assumptions, budget.conflicts - spent) {
            Outcome::Unsat => {
                let other = core_cons(local, sat);
                if !other.is_empty() {
                    *core = other;
                    avoided.push(c);
                }
            }
            Outcome::Sat => {}
            Outcome::Unknown => return,
        }
    }

    let mut order = core.clone();
    let roots = core
        .iter()
        .filter(|&&c| matches!(local.cons.get(c), Some(Cons::Root(_))))
        .count();
    order.sort_by_key(|&c| (deletion_key(problem, local, c), c));
    // Membership by index: `core.contains` per element was quadratic in the core.
    let mut in_core = vec![false; local.cons.len()];
    for &c in core.iter() {
        if let Some(m) = in_core.get_mut(c) {
            *m = true;
        }
    }
    for c in order {
        if !in_core.get(c).copied().unwrap_or(false) {
            continue;
        }
        // A lone root is always needed: without it all-false is a model.
        if roots <= 1 && matches!(local.cons.get(c), Some(Cons::Root(_))) {
            continue;
        }
        let spent = sat.conflicts().saturating_sub(start);
        if calls >= max_calls || spent >= budget.conflicts {
            break;
        }
        calls += 1;
        assumptions.clear();
        assumptions.extend_from_slice(fixed);
        assumptions.extend(
            core.iter()
                .filter(|&&k| k != c)
                .filter_map(|&k| local.selectors.get(k).copied()),
        );
        match sat.solve(&assumptions, budget.conflicts - spent) {
            Outcome::Unsat => {
                let smaller = core_cons(local, sat);
                if !smaller.is_empty() {
                    in_core.iter_mut().for_each(|m| *m = false);
                    for &k in &smaller {
                        if let Some(m) = in_core.get_mut(k) {
                            *m = true;
                        }
                    }
                    *core = smaller;
                }
            }
            Outcome::Sat => {}
            Outcome::Unknown => break,
        }
    }
}

/// Converts constraint indices into sorted [`CoreItem`]s: roots, dependencies
/// by depth, prohibitions, groups.
pub(super) fn core_items(
    problem: &Problem,
    local: &Local,
    roots: &[Root],
    subs: &[Subscription],
    core: &[usize],
) -> Vec<CoreItem> {
    let mut keyed: Vec<((u8, u32, u32, u32), CoreItem)> = Vec::new();
    for &c in core {
        let Some(cons) = local.cons.get(c) else {
            continue;
        };
        let depth = |l: u32| local.depth.get(l as usize).copied().unwrap_or(0);
        let item = match *cons {
            Cons::Root(r) => {
                let Some(root) = roots.get(r as usize) else {
                    continue;
                };
                let item = match root.kind {
                    RootKind::Mandatory(e) => CoreItem::Mandatory(e),
                    RootKind::Installed(e) => CoreItem::Installed(e),
                    RootKind::Subscription(i) => CoreItem::Subscription {
                        name: subs.get(i).map(|s| s.name.clone()).unwrap_or_default(),
                        candidates: root.candidates.clone(),
                    },
                };
                ((0, r, 0, 0), item)
            }
            Cons::Dep { local: l, index } => {
                let Some(entry) = local.entry(l) else {
                    continue;
                };
                (
                    (1, depth(l), l, index),
                    CoreItem::Dependency {
                        entry,
                        index: index as usize,
                    },
                )
            }
            Cons::Prohibited(l) => {
                let Some(entry) = local.entry(l) else {
                    continue;
                };
                ((2, depth(l), l, 0), CoreItem::Prohibited(entry))
            }
            Cons::Group(g) => {
                let Some(ag) = local.groups.get(g as usize) else {
                    continue;
                };
                let Some((kind, name)) = problem.group(ag.group) else {
                    continue;
                };
                let mut entries: Vec<EntryId> = local
                    .members(ag)
                    .iter()
                    .filter_map(|&m| local.entry(m))
                    .collect();
                entries.sort_unstable();
                let item = match kind {
                    GroupKind::Gvk => CoreItem::AtMostOneGvk {
                        gvk: name.clone(),
                        entries,
                    },
                    GroupKind::Package => CoreItem::AtMostOnePackage {
                        package: name.clone(),
                        entries,
                    },
                };
                ((3, g, 0, 0), item)
            }
        };
        keyed.push(item);
    }
    keyed.sort_by_key(|a| a.0);
    keyed.into_iter().map(|(_, i)| i).collect()
}
