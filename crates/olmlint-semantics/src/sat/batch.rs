//! Checking every bundle of a problem, dependencies before their dependents.
//!
//! Each check encodes the closure reached from its start, so a chain of N packages whose
//! last dependency cannot be met cost N checks of up to N entries each, every one ending
//! in a core minimisation over the whole chain (cubic: 2 500 packages took 50 s and
//! 1.5 GB). Here entries are checked in order of their height in the dependency graph
//! (strongly connected components first collapsed), so that when a start is checked, the
//! verdicts of its dependencies' candidates in lower components are known. A dependency
//! whose every candidate is itself uninstallable, with an explanation already longer than
//! [`DEEP`] entries, decides the start at once: its core is the start, that dependency
//! and [`CoreItem::Uninstallable`] naming the candidates, whose own findings carry the
//! rest. Shorter chains are explained in full, as OLM lists them.

use super::{Budget, CheckStats, CoreItem, EntryId, Problem, Verdict};
use rayon::prelude::*;

/// Explanations (closures) of at least this many entries are referred to, not repeated.
pub(super) const DEEP: u32 = 32;

const NONE: u32 = u32::MAX;

/// Verdict per bundle (`None`: no start entries, or not checked because `stop` said so),
/// with the same meaning as [`super::Checker::check`] on the bundle's start entries.
/// `on_check` sees every check's statistics.
pub fn check_bundles(
    problem: &Problem,
    bundles: &[Vec<EntryId>],
    budget: Budget,
    stop: &(dyn Fn() -> bool + Sync),
    on_check: &(dyn Fn(CheckStats) + Sync),
) -> Vec<Option<Verdict>> {
    let n = problem.len();
    let mut wanted = vec![false; n];
    for &e in bundles.iter().flatten() {
        if let Some(w) = wanted.get_mut(e as usize) {
            *w = true;
        }
    }
    let height = heights(problem);
    let mut order: Vec<(u32, EntryId)> = (0..n)
        .filter(|&e| wanted.get(e).copied().unwrap_or(false))
        .map(|e| {
            let e = u32::try_from(e).unwrap_or(u32::MAX);
            (height.get(e as usize).copied().unwrap_or(0), e)
        })
        .collect();
    order.sort_unstable();
    // A bundle found installable through one of its entries (channels) needs no verdict for
    // its others (real catalogs: a sixth of the checks).
    let mut owner: Vec<u32> = vec![NONE; n];
    for (bi, starts) in bundles.iter().enumerate() {
        for &e in starts {
            if let Some(o) = owner.get_mut(e as usize) {
                *o = u32::try_from(bi).unwrap_or(NONE);
            }
        }
    }
    let mut installable = vec![false; bundles.len()];
    let decided = |installable: &[bool], e: EntryId| {
        owner
            .get(e as usize)
            .and_then(|&b| installable.get(b as usize))
            .copied()
            .unwrap_or(false)
    };

    // Per entry: its verdict, and the weight of its explanation when uninstallable (0:
    // installable, unknown or not decided).
    let mut verdicts: Vec<Option<Verdict>> = vec![None; n];
    let mut weights: Vec<u32> = vec![0; n];
    let mut i = 0;
    while let Some(&(h, _)) = order.get(i) {
        let mut j = i;
        while order.get(j).is_some_and(|&(g, _)| g == h) {
            j += 1;
        }
        // First one entry per bundle, then the others of bundles still undecided: a bundle
        // in several channels is usually installable through its first.
        let mut first_of: std::collections::HashSet<u32> = Default::default();
        let (firsts, rest): (Vec<EntryId>, Vec<EntryId>) = order
            .get(i..j)
            .unwrap_or(&[])
            .iter()
            .map(|&(_, e)| e)
            .filter(|&e| !decided(&installable, e))
            .partition(|&e| first_of.insert(owner.get(e as usize).copied().unwrap_or(NONE)));
        for pass in [firsts, rest] {
            let pass: Vec<EntryId> = pass
                .into_iter()
                .filter(|&e| !decided(&installable, e))
                .collect();
            let done: Vec<(EntryId, Verdict, u32)> = pass
                .par_iter()
                .map_init(
                    || problem.checker(),
                    |checker, &e| {
                        if stop() {
                            return None;
                        }
                        let verdict = checker.check_start_after(e, budget, &weights);
                        on_check(checker.last_stats());
                        Some((e, verdict, checker.last_weight()))
                    },
                )
                .flatten()
                .collect();
            for (e, verdict, weight) in done {
                if verdict.is_installable() {
                    let b = owner.get(e as usize).copied().unwrap_or(NONE);
                    if let Some(x) = installable.get_mut(b as usize) {
                        *x = true;
                    }
                }
                if let Some(w) = weights.get_mut(e as usize) {
                    *w = weight;
                }
                if let Some(v) = verdicts.get_mut(e as usize) {
                    *v = Some(verdict);
                }
            }
        }
        i = j;
    }
    bundles
        .iter()
        .map(|starts| {
            if starts.is_empty() {
                return None;
            }
            let verdict = |s: EntryId| verdicts.get(s as usize).and_then(Option::as_ref);
            if let Some(v) = starts
                .iter()
                .filter_map(|&s| verdict(s))
                .find(|v| v.is_installable())
            {
                return Some(v.clone());
            }
            let mut first: Option<&Verdict> = None;
            let mut exceeded = false;
            for &s in starts {
                // Not checked (the deadline): no verdict for the bundle.
                match verdict(s)? {
                    v @ Verdict::Installable { .. } => return Some(v.clone()),
                    Verdict::BudgetExceeded => exceeded = true,
                    v => {
                        first.get_or_insert(v);
                    }
                }
            }
            if exceeded {
                return Some(Verdict::BudgetExceeded);
            }
            Some(
                first
                    .cloned()
                    .unwrap_or(Verdict::Unsatisfiable { core: Vec::new() }),
            )
        })
        .collect()
}

/// The short verdict for `start` when one of its dependencies has only candidates known to
/// be uninstallable (weights from [`check_bundles`]) with long explanations; and the
/// weight of the new explanation.
pub(super) fn known_uninstallable(
    problem: &Problem,
    start: EntryId,
    weights: &[u32],
) -> Option<(Verdict, u32)> {
    if weights.is_empty() || problem.reaches_hard_error(start) {
        return None;
    }
    for (index, flat) in problem.deps_of(start).enumerate() {
        let (candidates, tautology) = problem.dep(flat);
        if tautology || candidates.is_empty() {
            continue;
        }
        let mut deepest = 0;
        for &c in candidates {
            let w = weights.get(c as usize).copied().unwrap_or(0);
            if w == 0 {
                deepest = 0;
                break;
            }
            deepest = deepest.max(w);
        }
        if deepest >= DEEP {
            let core = vec![
                CoreItem::Mandatory(start),
                CoreItem::Dependency {
                    entry: start,
                    index,
                },
                CoreItem::Uninstallable {
                    entries: candidates.to_vec(),
                },
            ];
            return Some((Verdict::Unsatisfiable { core }, deepest.saturating_add(1)));
        }
    }
    None
}

/// Per entry: its height in the condensation of the graph "entry → candidates of its
/// non-tautological dependencies" (0 for components with no way out). Iterative Tarjan
/// over entries and distinct candidate lists as nodes, so shared lists are walked once:
/// linear in the problem.
fn heights(problem: &Problem) -> Vec<u32> {
    let n = problem.len();
    let total = n + problem.list_count();
    let mut index = vec![NONE; total];
    let mut low = vec![0u32; total];
    let mut on_stack = vec![false; total];
    let mut comp = vec![NONE; total];
    let mut comp_height: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    let at = |v: &Vec<u32>, i: u32| v.get(i as usize).copied().unwrap_or(NONE);
    for root in 0..total {
        let root = u32::try_from(root).unwrap_or(NONE);
        if at(&index, root) != NONE {
            continue;
        }
        visit(
            root,
            &mut counter,
            &mut index,
            &mut low,
            &mut on_stack,
            &mut stack,
        );
        call.push((root, 0));
        while let Some(&(v, pos)) = call.last() {
            let mut pos = pos;
            let next = successor(problem, n, v, &mut pos);
            if let Some(top) = call.last_mut() {
                top.1 = pos;
            }
            match next {
                Some(w) => {
                    if at(&index, w) == NONE {
                        visit(
                            w,
                            &mut counter,
                            &mut index,
                            &mut low,
                            &mut on_stack,
                            &mut stack,
                        );
                        call.push((w, 0));
                    } else if on_stack.get(w as usize) == Some(&true) {
                        let lw = at(&index, w);
                        if let Some(l) = low.get_mut(v as usize) {
                            *l = (*l).min(lw);
                        }
                    }
                }
                None => {
                    call.pop();
                    let lv = at(&low, v);
                    if let Some(&(parent, _)) = call.last() {
                        if let Some(l) = low.get_mut(parent as usize) {
                            *l = (*l).min(lv);
                        }
                    }
                    if lv != at(&index, v) {
                        continue;
                    }
                    // v roots a component: pop it, then its height from its successors.
                    let id = u32::try_from(comp_height.len()).unwrap_or(NONE);
                    members.clear();
                    while let Some(m) = stack.pop() {
                        if let Some(s) = on_stack.get_mut(m as usize) {
                            *s = false;
                        }
                        if let Some(c) = comp.get_mut(m as usize) {
                            *c = id;
                        }
                        members.push(m);
                        if m == v {
                            break;
                        }
                    }
                    let mut h = 0u32;
                    for &m in &members {
                        let mut p = 0;
                        while let Some(w) = successor(problem, n, m, &mut p) {
                            let cw = at(&comp, w);
                            if cw != id {
                                h = h.max(at(&comp_height, cw).saturating_add(1));
                            }
                        }
                    }
                    comp_height.push(h);
                }
            }
        }
    }
    (0..n)
        .map(|e| {
            let c = comp.get(e).copied().unwrap_or(NONE);
            comp_height.get(c as usize).copied().unwrap_or(0)
        })
        .collect()
}

fn visit(
    v: u32,
    counter: &mut u32,
    index: &mut [u32],
    low: &mut [u32],
    on_stack: &mut [bool],
    stack: &mut Vec<u32>,
) {
    if let (Some(i), Some(l), Some(s)) = (
        index.get_mut(v as usize),
        low.get_mut(v as usize),
        on_stack.get_mut(v as usize),
    ) {
        *i = *counter;
        *l = *counter;
        *s = true;
    }
    *counter = counter.saturating_add(1);
    stack.push(v);
}

/// The successor of node `v` at or after position `*pos`, advancing `*pos` past it.
/// Entries (`v < n`) lead to the lists of their non-tautological dependencies, lists
/// (`n + list`) to their candidates.
fn successor(problem: &Problem, n: usize, v: u32, pos: &mut usize) -> Option<u32> {
    let v = v as usize;
    if v < n {
        let deps = problem.deps_of(u32::try_from(v).unwrap_or(NONE));
        while deps.start + *pos < deps.end {
            let flat = deps.start + *pos;
            *pos += 1;
            if !problem.dep(flat).1 {
                let list = problem.list_of(flat) as usize;
                return u32::try_from(n + list).ok();
            }
        }
        None
    } else {
        let list = problem.list(u32::try_from(v - n).unwrap_or(NONE));
        let c = list.get(*pos).copied();
        *pos += 1;
        c
    }
}
