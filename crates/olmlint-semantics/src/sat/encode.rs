//! Closure exploration and the per-check CNF.
//!
//! Encoding of the closure `R` reached from the roots (local variable per entry);
//! "selector" constraints are gated by `¬s` only in named mode (cores), and are
//! hard clauses otherwise:
//!
//! | constraint | clause(s) | selector |
//! |---|---|---|
//! | root (mandatory entry / subscription / installed) | `¬s ∨ c1 ∨ … ∨ cn` | yes |
//! | dependency `k` of `e` (owner not among candidates) | `¬s ∨ ¬e ∨ c1 ∨ … ∨ cn` | yes |
//! | deprecated `e` | `¬s ∨ ¬e` | yes |
//! | at most one of group `g` (≥ 2 members in `R`) | sequential counter, `3n−4` clauses, `n−1` aux vars, each clause gated by `¬s` | yes |
//!
//! Selectors occur only negatively, so an unassumed selector switches its
//! constraint off. Selectors and counter auxiliaries are not decision
//! variables: selectors are pure, and the counter is propagation-complete, so
//! every conflict-free assignment of the entry variables extends to a model.
//! Dependencies that list their owner are tautologies and get no clause.

use super::solver::Sat;
use super::{EntryId, Problem, DEPRECATED, HARD_ERROR};
use batsat::Lit;

/// What a root of the closure stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RootKind {
    /// A mandatory entry (check start or `resolve` anchor).
    Mandatory(EntryId),
    /// The i-th subscription.
    Subscription(usize),
    /// An installed entry without subscription.
    Installed(EntryId),
}

/// A root: must install one of `candidates`.
#[derive(Debug, Clone)]
pub(super) struct Root {
    pub kind: RootKind,
    pub candidates: Vec<EntryId>,
}

/// A selector-guarded constraint of the local CNF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cons {
    /// Index into the roots.
    Root(u32),
    /// Dependency `index` of local entry `local`.
    Dep { local: u32, index: u32 },
    /// Local entry is deprecated.
    Prohibited(u32),
    /// Index into [`Local::groups`].
    Group(u32),
}

/// A group with at least two reached members.
#[derive(Debug, Clone, Copy)]
pub(super) struct ActiveGroup {
    pub group: u32,
    start: u32,
    end: u32,
}

/// Reusable per-check state: the closure and its CNF bookkeeping.
#[derive(Debug, Default)]
pub(super) struct Local {
    /// Local index -> entry, in breadth-first order from the roots.
    pub closure: Vec<EntryId>,
    /// Breadth-first depth per local entry.
    pub depth: Vec<u32>,
    /// Local entry -> positive literal.
    pub lits: Vec<Lit>,
    /// Constraints and their selectors (parallel vectors).
    pub cons: Vec<Cons>,
    pub selectors: Vec<Lit>,
    pub groups: Vec<ActiveGroup>,
    members: Vec<u32>,
    /// Solver variable index -> constraint index + 1 (0: not a selector).
    var_cons: Vec<u32>,
    mark: Vec<u32>,
    local_of: Vec<u32>,
    /// Per distinct candidate list: the epoch in which it was walked.
    list_mark: Vec<u32>,
    epoch: u32,
    pairs: Vec<(u32, u32)>,
    clause: Vec<Lit>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Local {
    /// Local index of `entry` if it was reached in the current check.
    pub(super) fn local(&self, entry: EntryId) -> Option<u32> {
        let i = entry as usize;
        if self.mark.get(i) == Some(&self.epoch) {
            self.local_of.get(i).copied()
        } else {
            None
        }
    }

    /// Entry of a local index.
    pub(super) fn entry(&self, local: u32) -> Option<EntryId> {
        self.closure.get(local as usize).copied()
    }

    pub(super) fn lit(&self, local: u32) -> Option<Lit> {
        self.lits.get(local as usize).copied()
    }

    /// Reached members (local indices) of an active group.
    pub(super) fn members(&self, g: &ActiveGroup) -> &[u32] {
        self.members
            .get(g.start as usize..g.end as usize)
            .unwrap_or(&[])
    }

    /// Constraint index guarded by the selector variable of `lit`.
    pub(super) fn cons_of(&self, lit: Lit) -> Option<usize> {
        match self.var_cons.get(lit.var().idx() as usize) {
            Some(&c) if c > 0 => Some(c as usize - 1),
            _ => None,
        }
    }

    fn begin(&mut self, n: usize, lists: usize) {
        if self.mark.len() != n || self.list_mark.len() != lists {
            self.mark = vec![0; n];
            self.local_of = vec![0; n];
            self.list_mark = vec![0; lists];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.list_mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.closure.clear();
        self.depth.clear();
    }

    fn reach(&mut self, entry: EntryId, depth: u32) {
        let i = entry as usize;
        let fresh = to_u32(self.closure.len());
        if let (Some(m), Some(l)) = (self.mark.get_mut(i), self.local_of.get_mut(i)) {
            if *m != self.epoch {
                *m = self.epoch;
                *l = fresh;
                self.closure.push(entry);
                self.depth.push(depth);
            }
        }
    }

    /// Breadth-first closure over dependency candidates from the roots' candidates.
    /// Stops at the first reached entry with a hard error (§3.7). Each distinct candidate
    /// list is walked once: a second walk reaches nothing new (and N providers that all
    /// require their own API made it N² per check).
    ///
    /// With `pruned = Some(start)` (the only root is the mandatory `start`, and no hard
    /// error is reachable from it), entries that are false in every model are left out:
    /// those sharing an at-most-one group with the start (its package, its APIs) and the
    /// prohibited ones. Tautological dependencies are not followed either: they have no
    /// clause, so what only they reach can be left uninstalled. The smaller formula is
    /// equisatisfiable with the full one (a model of one restricts to, or extends with
    /// `false` to, a model of the other); cores are still taken from the full closure.
    pub(super) fn explore(
        &mut self,
        problem: &Problem,
        roots: &[Root],
        pruned: Option<EntryId>,
    ) -> Result<(), EntryId> {
        self.begin(problem.len(), problem.list_count());
        for root in roots {
            for &c in &root.candidates {
                self.reach(c, 0);
            }
        }
        let start_groups = pruned.map_or(&[][..], |s| problem.groups_of(s));
        let excluded = |c: EntryId| {
            pruned.is_some_and(|s| {
                c != s
                    && (problem.flags(c) & DEPRECATED != 0
                        || problem
                            .groups_of(c)
                            .iter()
                            .any(|g| start_groups.contains(g)))
            })
        };
        let mut i = 0;
        while let (Some(&e), Some(&d)) = (self.closure.get(i), self.depth.get(i)) {
            if problem.flags(e) & HARD_ERROR != 0 {
                return Err(e);
            }
            for flat in problem.deps_of(e) {
                if pruned.is_some() && problem.dep(flat).1 {
                    continue;
                }
                let list = problem.list_of(flat);
                match self.list_mark.get_mut(list as usize) {
                    Some(m) if *m != self.epoch => *m = self.epoch,
                    _ => continue,
                }
                for &c in problem.list(list) {
                    if !excluded(c) {
                        self.reach(c, d.saturating_add(1));
                    }
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// A selector for `cons`, or none when encoding without selectors.
    fn selector(&mut self, sat: &mut Sat, cons: Cons, named: bool) -> Option<Lit> {
        if !named {
            return None;
        }
        let s = sat.new_var(false);
        self.cons.push(cons);
        self.selectors.push(s);
        let v = s.var().idx() as usize;
        if self.var_cons.len() <= v {
            self.var_cons.resize(v + 1, 0);
        }
        if let Some(slot) = self.var_cons.get_mut(v) {
            *slot = to_u32(self.cons.len());
        }
        Some(s)
    }

    /// Encodes the explored closure into `sat` (reset first). With `named`,
    /// every constraint gets a selector (for assumptions and cores); without,
    /// all clauses are hard, which is enough to decide satisfiability.
    pub(super) fn encode(&mut self, problem: &Problem, sat: &mut Sat, roots: &[Root], named: bool) {
        sat.reset();
        self.cons.clear();
        self.selectors.clear();
        self.groups.clear();
        self.members.clear();
        self.var_cons.clear();
        self.lits.clear();
        for _ in 0..self.closure.len() {
            let l = sat.new_var(true);
            self.lits.push(l);
        }
        let mut clause = std::mem::take(&mut self.clause);

        for (ri, root) in roots.iter().enumerate() {
            let s = self.selector(sat, Cons::Root(to_u32(ri)), named);
            clause.clear();
            clause.extend(s.map(|s| !s));
            for &c in &root.candidates {
                if let Some(l) = self.local(c).and_then(|c| self.lit(c)) {
                    clause.push(l);
                }
            }
            sat.add_clause(&clause);
        }

        for local in 0..to_u32(self.closure.len()) {
            let (Some(e), Some(x)) = (self.entry(local), self.lit(local)) else {
                continue;
            };
            for (k, flat) in problem.deps_of(e).enumerate() {
                let (candidates, tautology) = problem.dep(flat);
                if tautology {
                    continue;
                }
                let s = self.selector(
                    sat,
                    Cons::Dep {
                        local,
                        index: to_u32(k),
                    },
                    named,
                );
                clause.clear();
                clause.extend(s.map(|s| !s));
                clause.push(!x);
                for &c in candidates {
                    if let Some(l) = self.local(c).and_then(|c| self.lit(c)) {
                        clause.push(l);
                    }
                }
                sat.add_clause(&clause);
            }
            if problem.flags(e) & DEPRECATED != 0 {
                let s = self.selector(sat, Cons::Prohibited(local), named);
                gated(sat, s, &[!x]);
            }
        }

        // Group members: (group, local) pairs sorted, deduplicated.
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        for (local, &e) in self.closure.iter().enumerate() {
            for &g in problem.groups_of(e) {
                pairs.push((g, to_u32(local)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut i = 0;
        while let Some(&(g, _)) = pairs.get(i) {
            let mut j = i;
            while pairs.get(j).is_some_and(|p| p.0 == g) {
                j += 1;
            }
            if j - i >= 2 {
                let start = to_u32(self.members.len());
                self.members
                    .extend(pairs.get(i..j).unwrap_or(&[]).iter().map(|p| p.1));
                let end = to_u32(self.members.len());
                self.groups.push(ActiveGroup {
                    group: g,
                    start,
                    end,
                });
                let gi = to_u32(self.groups.len() - 1);
                let s = self.selector(sat, Cons::Group(gi), named);
                clause.clear();
                for &m in self
                    .members
                    .get(start as usize..end as usize)
                    .unwrap_or(&[])
                {
                    if let Some(l) = self.lit(m) {
                        clause.push(l);
                    }
                }
                at_most_one(sat, s, &clause);
            }
            i = j;
        }
        self.pairs = pairs;
        self.clause = clause;
    }
}

/// Adds `¬gate ∨ lits` (just `lits` without a gate).
fn gated(sat: &mut Sat, gate: Option<Lit>, lits: &[Lit]) {
    match gate {
        Some(g) => {
            let mut c = Vec::with_capacity(lits.len() + 1);
            c.push(!g);
            c.extend_from_slice(lits);
            sat.add_clause(&c);
        }
        None => sat.add_clause(lits),
    }
}

/// Sequential-counter at-most-one over `xs`, every clause gated by `¬gate`.
/// `3n−4` clauses and `n−1` auxiliary variables for `n ≥ 3`.
pub(super) fn at_most_one(sat: &mut Sat, gate: Option<Lit>, xs: &[Lit]) {
    match xs {
        [] | [_] => {}
        [a, b] => gated(sat, gate, &[!*a, !*b]),
        [first, middle @ .., last] => {
            // a_i <=> "some of x_1..x_i is true" (only the => half is needed).
            let mut prev = sat.new_var(false);
            gated(sat, gate, &[!*first, prev]);
            for &x in middle {
                let a = sat.new_var(false);
                gated(sat, gate, &[!x, a]);
                gated(sat, gate, &[!prev, a]);
                gated(sat, gate, &[!x, !prev]);
                prev = a;
            }
            gated(sat, gate, &[!*last, !prev]);
        }
    }
}
