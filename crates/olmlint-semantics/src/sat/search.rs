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
    let remaining = |sat: &Sat| budget.conflicts.saturating_sub(sat.conflicts());

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

    let n = local.closure.len();
    let mut model: Vec<bool> = local.lits.iter().map(|&l| sat.value(l)).collect();
    let mut guessed = vec![false; n];
    let mut assumptions: Vec<Lit> = base.clone();
    let mut choices: Vec<ChosenDependency> = Vec::new();
    let mut queue: VecDeque<Choice> = roots
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
        .collect();

    while let Some(choice) = queue.pop_front() {
        let is_guessed = |c: &u32| guessed.get(*c as usize).copied().unwrap_or(false);
        if let Some(&c) = choice.candidates.iter().find(|c| is_guessed(c)) {
            if let Some(entry) = local.entry(c) {
                choices.push(ChosenDependency {
                    owner: choice.owner,
                    chosen: entry,
                    guessed: false,
                });
            }
            continue;
        }
        let mut picked = None;
        for &c in &choice.candidates {
            if model.get(c as usize).copied().unwrap_or(false) {
                picked = Some(c);
                break;
            }
            let Some(lit) = local.lit(c) else {
                continue;
            };
            assumptions.push(lit);
            let outcome = sat.solve(&assumptions, remaining(&sat));
            assumptions.pop();
            match outcome {
                Outcome::Sat => {
                    for (m, &l) in model.iter_mut().zip(&local.lits) {
                        *m = sat.value(l);
                    }
                    picked = Some(c);
                    break;
                }
                Outcome::Unsat => {}
                Outcome::Unknown => return failed(Verdict::BudgetExceeded),
            }
        }
        // An exhausted choice cannot happen (guesses so far are satisfiable);
        // OLM would move on without a guess, and so do we.
        let (Some(c), Some(entry)) = (picked, picked.and_then(|c| local.entry(c))) else {
            continue;
        };
        if let (Some(g), Some(lit)) = (guessed.get_mut(c as usize), local.lit(c)) {
            *g = true;
            assumptions.push(lit);
        }
        choices.push(ChosenDependency {
            owner: choice.owner,
            chosen: entry,
            guessed: true,
        });
        for (index, flat) in problem.deps_of(entry).enumerate() {
            let candidates: Vec<u32> = problem
                .dep(flat)
                .0
                .iter()
                .filter_map(|&c| local.local(c))
                .collect();
            if !candidates.is_empty() {
                queue.push_back(Choice {
                    owner: DepOwner::Dependency { entry, index },
                    candidates,
                });
            }
        }
    }

    // Extras minimisation: false stays false, then at most w extras, w = 0, 1, ….
    let mut fixed = assumptions;
    let mut extras: Vec<Lit> = Vec::new();
    for ((&l, &m), &g) in local.lits.iter().zip(&model).zip(&guessed) {
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
    match sat.solve(&fixed, remaining(&sat)) {
        Outcome::Sat => {}
        Outcome::Unknown => return failed(Verdict::BudgetExceeded),
        Outcome::Unsat => {
            fixed.truncate(fixed_len);
            match minimize_extras(&mut sat, &fixed, &extras, budget) {
                Some(true) => {}
                Some(false) => {
                    // Unreachable in theory: fall back to the search model.
                    if sat.solve(&fixed, remaining(&sat)) != Outcome::Sat {
                        return failed(Verdict::BudgetExceeded);
                    }
                }
                None => return failed(Verdict::BudgetExceeded),
            }
        }
    }
    finish(&local, &sat, choices)
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
