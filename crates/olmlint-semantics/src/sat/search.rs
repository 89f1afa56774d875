//! OLM's preference search and extras minimisation (§3.6) for `olmlint resolve`.
//!
//! gini/OLM (`solver/search.go`, `solve.go`): assume every constraint and the
//! anchors; keep a FIFO of choices, one per anchor; guessing a variable appends
//! one choice per dependency of it (candidates in preference order); a choice
//! with an already guessed candidate is skipped; otherwise the first candidate
//! not yet tried is guessed, checked by unit propagation, and a full solve runs
//! once no choice is left; UNSAT backtracks chronologically to the next
//! candidate of the latest choice. Since that search is complete, it returns the
//! first guess sequence (in this order) that extends to a model. We compute the
//! same sequence greedily: a candidate is taken iff constraints + guesses so far
//! + candidate are satisfiable (one budgeted solve; skipped when the last model
//!   already has the candidate true). Then, as in `solve.go`, every variable that
//!   is true but not guessed is an "extra", variables false in the model stay
//!   false, and the number of extras is minimised under a cardinality bound
//!   w = 0, 1, …; w = 0 always succeeds because the guesses are closed under
//!   dependencies, so OLM installs exactly the guessed entries.

use std::collections::VecDeque;

use super::check::{core_cons, core_items, hard_error, minimize, model_entries};
use super::encode::{Local, Root, RootKind};
use super::solver::{Outcome, Sat};
use super::{
    Budget, ChosenDependency, DepOwner, EntryId, Problem, Resolution, Subscription, Verdict,
};
use batsat::Lit;

/// Largest extras set for which the (never needed in practice) w ≥ 1 counter
/// is built; above it the search model is kept as is.
const MAX_COUNTER_EXTRAS: usize = 2_000;

/// Reproduces OLM's pick with each anchor mandatory (a subscription with
/// `startingCSV`, §3.9) and each `installed` entry an installed CSV without
/// subscription (mandatory). Search order: anchors, then installed entries.
pub fn resolve(
    problem: &Problem,
    anchors: &[EntryId],
    installed: &[EntryId],
    budget: Budget,
) -> Resolution {
    let mut roots: Vec<Root> = anchors
        .iter()
        .map(|&a| Root {
            kind: RootKind::Mandatory(a),
            candidates: vec![a],
        })
        .collect();
    roots.extend(installed_roots(installed));
    run(problem, &roots, &[], budget)
}

/// As [`resolve`], with subscriptions that may offer several candidates (e.g.
/// a channel without `startingCSV`, §3.4).
pub fn resolve_subscriptions(
    problem: &Problem,
    subscriptions: &[Subscription],
    installed: &[EntryId],
    budget: Budget,
) -> Resolution {
    let mut roots: Vec<Root> = subscriptions
        .iter()
        .enumerate()
        .map(|(i, s)| Root {
            kind: RootKind::Subscription(i),
            candidates: s.candidates.clone(),
        })
        .collect();
    roots.extend(installed_roots(installed));
    run(problem, &roots, subscriptions, budget)
}

fn installed_roots(installed: &[EntryId]) -> impl Iterator<Item = Root> + '_ {
    installed.iter().map(|&e| Root {
        kind: RootKind::Installed(e),
        candidates: vec![e],
    })
}

fn failed(verdict: Verdict) -> Resolution {
    Resolution {
        verdict,
        choices: Vec::new(),
    }
}

struct Choice {
    owner: DepOwner,
    candidates: Vec<u32>,
}

fn run(problem: &Problem, roots: &[Root], subs: &[Subscription], budget: Budget) -> Resolution {
    let mut local = Local::default();
    let mut sat = Sat::new();
    if let Err(entry) = local.explore(problem, roots, None) {
        return failed(hard_error(problem, entry));
    }
    local.encode(problem, &mut sat, roots, true);
    let base: Vec<Lit> = local.selectors.clone();
    match sat.solve(&base, budget.conflicts) {
        Outcome::Sat => {}
        Outcome::Unknown => return failed(Verdict::BudgetExceeded),
        Outcome::Unsat => {
            let mut core = core_cons(&local, &sat);
            minimize(&mut sat, problem, &local, &mut core, budget, &[]);
            return failed(Verdict::Unsatisfiable {
                core: core_items(problem, &local, roots, subs, &core),
            });
        }
    }
    let mut search = Search::new(problem, local, sat, base, budget);
    let mut queue = root_choices(roots, &search.local);
    match search
        .guess_all(&mut queue)
        .and_then(|()| search.minimal_extras())
    {
        Ok(()) => finish(&search.local, &search.sat, search.choices),
        Err(verdict) => failed(verdict),
    }
}

/// One choice per root, its candidates in preference order.
fn root_choices(roots: &[Root], local: &Local) -> VecDeque<Choice> {
    roots
        .iter()
        .enumerate()
        .map(|(i, r)| Choice {
            owner: DepOwner::Anchor(i),
            candidates: r
                .candidates
                .iter()
                .filter_map(|&c| local.local(c))
                .collect(),
        })
        .collect()
}

/// The preference search once the roots are known satisfiable together.
struct Search<'p> {
    problem: &'p Problem,
    local: Local,
    sat: Sat,
    budget: Budget,
    /// The last model found, by local variable.
    model: Vec<bool>,
    /// The variables guessed so far.
    guessed: Vec<bool>,
    /// The constraints' selectors and the guesses so far.
    assumptions: Vec<Lit>,
    choices: Vec<ChosenDependency>,
}

impl<'p> Search<'p> {
    /// `sat` holds a model of `base` (the constraints' selectors).
    fn new(problem: &'p Problem, local: Local, sat: Sat, base: Vec<Lit>, budget: Budget) -> Self {
        let n = local.closure.len();
        let model: Vec<bool> = local.lits.iter().map(|&l| sat.value(l)).collect();
        Search {
            problem,
            local,
            sat,
            budget,
            model,
            guessed: vec![false; n],
            assumptions: base,
            choices: Vec::new(),
        }
    }

    /// The conflicts the budget has left.
    fn remaining(&self) -> u64 {
        self.budget.conflicts.saturating_sub(self.sat.conflicts())
    }

    /// Takes the choices in FIFO order, each guess queueing the choices of its
    /// dependencies; `Err` when the budget runs out.
    fn guess_all(&mut self, queue: &mut VecDeque<Choice>) -> Result<(), Verdict> {
        while let Some(choice) = queue.pop_front() {
            if self.already_guessed(&choice) {
                continue;
            }
            let picked = self.pick(&choice.candidates)?;
            // An exhausted choice cannot happen (guesses so far are satisfiable);
            // OLM would move on without a guess, and so do we.
            let (Some(c), Some(entry)) = (picked, picked.and_then(|c| self.local.entry(c))) else {
                continue;
            };
            if let (Some(g), Some(lit)) = (self.guessed.get_mut(c as usize), self.local.lit(c)) {
                *g = true;
                self.assumptions.push(lit);
            }
            self.choices.push(ChosenDependency {
                owner: choice.owner,
                chosen: entry,
                guessed: true,
            });
            self.queue_dependencies(entry, queue);
        }
        Ok(())
    }

    /// A choice with an already guessed candidate is skipped (and that candidate recorded
    /// as its pick).
    fn already_guessed(&mut self, choice: &Choice) -> bool {
        let guessed = &self.guessed;
        let is_guessed = |c: &u32| guessed.get(*c as usize).copied().unwrap_or(false);
        let Some(&c) = choice.candidates.iter().find(|c| is_guessed(c)) else {
            return false;
        };
        if let Some(entry) = self.local.entry(c) {
            self.choices.push(ChosenDependency {
                owner: choice.owner,
                chosen: entry,
                guessed: false,
            });
        }
        true
    }

    /// The first candidate that extends the guesses so far to a model: true in the last
    /// model, or proven by a solve (whose model becomes the last one).
    fn pick(&mut self, candidates: &[u32]) -> Result<Option<u32>, Verdict> {
        for &c in candidates {
            if self.model.get(c as usize).copied().unwrap_or(false) {
                return Ok(Some(c));
            }
            let Some(lit) = self.local.lit(c) else {
                continue;
            };
            self.assumptions.push(lit);
            let left = self.remaining();
            let outcome = self.sat.solve(&self.assumptions, left);
            self.assumptions.pop();
            match outcome {
                Outcome::Sat => {
                    for (m, &l) in self.model.iter_mut().zip(&self.local.lits) {
                        *m = self.sat.value(l);
                    }
                    return Ok(Some(c));
                }
                Outcome::Unsat => {}
                Outcome::Unknown => return Err(Verdict::BudgetExceeded),
            }
        }
        Ok(None)
    }

    /// One choice per dependency of a guessed entry that has candidates.
    fn queue_dependencies(&self, entry: EntryId, queue: &mut VecDeque<Choice>) {
        for (index, flat) in self.problem.deps_of(entry).enumerate() {
            let candidates: Vec<u32> = self
                .problem
                .dep(flat)
                .0
                .iter()
                .filter_map(|&c| self.local.local(c))
                .collect();
            if !candidates.is_empty() {
                queue.push_back(Choice {
                    owner: DepOwner::Dependency { entry, index },
                    candidates,
                });
            }
        }
    }

    /// Extras minimisation: false stays false, then at most w extras, w = 0, 1, …. The
    /// model is left in `sat`.
    fn minimal_extras(&mut self) -> Result<(), Verdict> {
        let mut fixed = std::mem::take(&mut self.assumptions);
        let mut extras: Vec<Lit> = Vec::new();
        for ((&l, &m), &g) in self.local.lits.iter().zip(&self.model).zip(&self.guessed) {
            if g {
                continue;
            }
            if m {
                extras.push(l);
            } else {
                fixed.push(!l);
            }
        }
        let fixed_len = fixed.len();
        fixed.extend(extras.iter().map(|&l| !l));
        let left = self.remaining();
        match self.sat.solve(&fixed, left) {
            Outcome::Sat => Ok(()),
            Outcome::Unknown => Err(Verdict::BudgetExceeded),
            Outcome::Unsat => {
                fixed.truncate(fixed_len);
                match minimize_extras(&mut self.sat, &fixed, &extras, self.budget) {
                    Some(true) => Ok(()),
                    Some(false) => {
                        // Unreachable in theory: fall back to the search model.
                        let left = self.remaining();
                        if self.sat.solve(&fixed, left) != Outcome::Sat {
                            return Err(Verdict::BudgetExceeded);
                        }
                        Ok(())
                    }
                    None => Err(Verdict::BudgetExceeded),
                }
            }
        }
    }
}

fn finish(local: &Local, sat: &Sat, choices: Vec<ChosenDependency>) -> Resolution {
    let chosen = model_entries(local, sat);
    let choices = choices
        .into_iter()
        .filter(|c| match c.owner {
            DepOwner::Anchor(_) => true,
            DepOwner::Dependency { entry, .. } => chosen.binary_search(&entry).is_ok(),
        })
        .collect();
    Resolution {
        verdict: Verdict::Installable { chosen },
        choices,
    }
}

/// Sequential unary counter over `extras`; assumes "at most w" for w = 1, 2, ….
/// `Some(true)` when a model was found (left in `sat`), `Some(false)` when the
/// set is too large to bother, `None` when the budget ran out.
fn minimize_extras(sat: &mut Sat, fixed: &[Lit], extras: &[Lit], budget: Budget) -> Option<bool> {
    let n = extras.len();
    if n == 0 || n > MAX_COUNTER_EXTRAS {
        return Some(false);
    }
    // r[i][j]: at least j+1 of extras[..=i] are true (upward implications only).
    let mut prev: Vec<Lit> = Vec::new();
    for (i, &x) in extras.iter().enumerate() {
        let width = (i + 1).min(n);
        let mut row: Vec<Lit> = Vec::with_capacity(width);
        for j in 0..width {
            let r = sat.new_var(false);
            if j == 0 {
                sat.add_clause(&[!x, r]);
            } else if let Some(&p) = prev.get(j - 1) {
                sat.add_clause(&[!x, !p, r]);
            }
            if let Some(&p) = prev.get(j) {
                sat.add_clause(&[!p, r]);
            }
            row.push(r);
        }
        prev = row;
    }
    let mut assumptions: Vec<Lit> = fixed.to_vec();
    let base_len = assumptions.len();
    for w in 1..=n {
        assumptions.truncate(base_len);
        if let Some(&over) = prev.get(w) {
            assumptions.push(!over);
        }
        let left = budget.conflicts.saturating_sub(sat.conflicts());
        match sat.solve(&assumptions, left) {
            Outcome::Sat => return Some(true),
            Outcome::Unsat => {}
            Outcome::Unknown => return None,
        }
    }
    Some(false)
}
