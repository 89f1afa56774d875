//! OLM720 cluster-constraint (opt-in, `--cluster-properties`): bundles that fail a constraint of
//! the target cluster, and bundles whose dependencies only such bundles can meet. Upstream OLM
//! has no cluster constraints, so this is a policy check; OLM501 never uses the cluster file.

use crate::{name_location, Ctx};
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_model::cluster::{ClusterConstraint, ClusterPolicy};
use olmlint_model::resolution::runtime_of;
use olmlint_model::Bundle;
use olmlint_semantics::cel;
use olmlint_semantics::constraint::predicate::Pred;
use olmlint_semantics::sat::{explain, Budget, CoreItem, Problem, Verdict};
use rayon::prelude::*;

/// One constraint a bundle fails, with the CEL evaluation error behind it, if any.
struct Failure<'p> {
    constraint: &'p ClusterConstraint,
    eval_error: Option<String>,
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(policy) = ctx.cluster else { return };
    if !ctx.config.is_enabled("OLM720") || policy.constraints.is_empty() {
        return;
    }
    let cluster = policy.cel_input();
    // Every bundle the resolver may pick, context catalogs included: the constraints bind
    // whatever gets installed.
    let failures: Vec<Vec<Failure<'_>>> = (0..ctx.resolution.home.len())
        .into_par_iter()
        .map(|bi| failures_of(ctx, policy, &cluster, bi))
        .collect();
    for (bi, b) in ctx.catalog.bundles.iter().enumerate() {
        if let Some(f) = failures.get(bi).filter(|f| !f.is_empty()) {
            out.push(failing(policy, b, f));
        }
    }
    if failures.iter().any(|f| !f.is_empty()) {
        stranded(ctx, policy, &failures, out);
    }
}

fn failures_of<'p>(
    ctx: &Ctx<'_>,
    policy: &'p ClusterPolicy,
    cluster: &cel::Input,
    bi: usize,
) -> Vec<Failure<'p>> {
    let (Some(b), Some(facts)) = (ctx.bundle(bi), ctx.resolution.facts.get(bi)) else {
        return Vec::new();
    };
    let results: Vec<Result<bool, cel::EvalError>> = if policy.rules.is_empty() {
        Vec::new()
    } else {
        let input = cel::Input::new(&runtime_of(b, None));
        let budget = ctx.config.cel_budget();
        policy
            .rules
            .iter()
            .map(|rule| cel::eval_in(rule, &input, Some(cluster), budget))
            .collect()
    };
    let truth = |i: usize| matches!(results.get(i), Some(Ok(true)));
    policy
        .constraints
        .iter()
        .filter(|c| !c.pred.matches(facts, &truth))
        .map(|c| {
            let mut rules = Vec::new();
            cel_rules(&c.pred, &mut rules);
            let eval_error = rules
                .iter()
                .find_map(|&i| results.get(i)?.as_ref().err().map(|e| e.message.clone()));
            Failure {
                constraint: c,
                eval_error,
            }
        })
        .collect()
}

fn cel_rules(p: &Pred, out: &mut Vec<usize>) {
    match p {
        Pred::Cel { rule } => out.push(*rule),
        Pred::All(ps) | Pred::Any(ps) | Pred::Not(ps) => ps.iter().for_each(|c| cel_rules(c, out)),
        _ => {}
    }
}

/// `cluster constraint 1` / `cluster constraints 1 and 3`.
fn which(failures: &[Failure<'_>]) -> String {
    let numbers: Vec<String> = failures
        .iter()
        .map(|f| f.constraint.number.to_string())
        .collect();
    match numbers.as_slice() {
        [one] => format!("cluster constraint {one}"),
        [init @ .., last] => format!("cluster constraints {} and {last}", init.join(", ")),
        [] => "no cluster constraint".into(),
    }
}

fn help(policy: &ClusterPolicy) -> String {
    format!(
        "Upstream OLM has no cluster runtime constraints (the enhancement is provisional and the resolver's system-constraint hook is empty in OLM and in OpenShift's copy), so OLM would install this bundle anyway. This finding reflects the policy in {} only.",
        policy.display
    )
}

fn constraint_location(policy: &ClusterPolicy, c: &ClusterConstraint) -> Location {
    Location {
        file: policy.file,
        span: c.span,
    }
}

/// (a) A bundle that fails constraints itself.
fn failing(policy: &ClusterPolicy, b: &Bundle<'_>, failures: &[Failure<'_>]) -> Diagnostic {
    let reasons: Vec<String> = failures
        .iter()
        .map(|f| match &f.eval_error {
            Some(e) => format!(
                "{} (the rule failed to evaluate: {e}; an error counts as false, as in OLM)",
                f.constraint.text
            ),
            None => f.constraint.text.clone(),
        })
        .collect();
    let loc = name_location(b);
    let mut d = Diagnostic::new(
        "OLM720",
        format!(
            "{} fails {} of {}: {}",
            b.name(),
            which(failures),
            policy.display,
            reasons.join("; ")
        ),
    )
    .at(loc.file, loc.span)
    .pointer("/name")
    .package(Some(b.package()))
    .bundle(Some(b.name()))
    .help(help(policy));
    for f in failures {
        d = d.related(
            format!("cluster constraint {}", f.constraint.number),
            Some(constraint_location(policy, f.constraint)),
        );
    }
    d
}

/// (b) Bundles that pass the constraints but whose dependencies only failing bundles meet: the
/// installability check again, with the failing bundles prohibited, for every bundle OLM501
/// finds installable.
fn stranded(
    ctx: &Ctx<'_>,
    policy: &ClusterPolicy,
    failures: &[Vec<Failure<'_>>],
    out: &mut Vec<Diagnostic>,
) {
    let r = ctx.resolution;
    let mut entries = r.problem.entries.clone();
    for (eid, e) in entries.iter_mut().enumerate() {
        let f = r.entry_bundle.get(eid).and_then(|&bi| failures.get(bi));
        if let Some(f) = f.filter(|f| !f.is_empty()) {
            e.prohibited = Some(format!("fails {} of {}", which(f), policy.display));
        }
    }
    let restricted = Problem::new(entries);
    let budget = Budget::conflicts(ctx.config.sat_conflicts);
    let found: Vec<(usize, Verdict)> = (0..ctx.catalog.bundles.len())
        .into_par_iter()
        .filter(|&bi| failures.get(bi).is_some_and(Vec::is_empty))
        .map_init(
            || (restricted.checker(), r.problem.checker()),
            |(on_cluster, upstream), bi| {
                let starts = r.bundle_entries.get(bi).map(Vec::as_slice).unwrap_or(&[]);
                if starts.is_empty() || ctx.config.expired() {
                    return None;
                }
                let v = on_cluster.check(starts, budget);
                let fails = matches!(v, Verdict::Unsatisfiable { .. });
                (fails && upstream.check(starts, budget).is_installable()).then_some((bi, v))
            },
        )
        .flatten()
        .collect();
    for (bi, verdict) in found {
        let Some(b) = ctx.catalog.bundles.get(bi) else {
            continue;
        };
        let text = explain(&restricted, &verdict);
        let why = text
            .split_once(" cannot be installed: ")
            .map_or(text.as_str(), |(_, rest)| rest);
        let loc = name_location(b);
        let mut d = Diagnostic::new(
            "OLM720",
            format!("{} cannot be installed on this cluster: {why}", b.name()),
        )
        .at(loc.file, loc.span)
        .pointer("/name")
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help(format!(
            "{} Without the cluster's constraints OLM installs it (OLM501 is quiet).",
            help(policy)
        ));
        let Verdict::Unsatisfiable { core } = &verdict else {
            continue;
        };
        let mut seen = std::collections::HashSet::new();
        let mut shown = std::collections::HashSet::new();
        for item in core {
            let CoreItem::Prohibited(e) = item else {
                continue;
            };
            let Some(&x) = r.entry_bundle.get(*e as usize).filter(|&&x| seen.insert(x)) else {
                continue;
            };
            let (Some(xb), Some(f)) = (ctx.bundle(x), failures.get(x).filter(|f| !f.is_empty()))
            else {
                continue;
            };
            d = d.related(
                format!("{} fails {}", xb.name(), which(f)),
                Some(name_location(xb)),
            );
            for c in f.iter().filter(|c| shown.insert(c.constraint.number)) {
                d = d.related(
                    format!("cluster constraint {}", c.constraint.number),
                    Some(constraint_location(policy, c.constraint)),
                );
            }
        }
        out.push(d);
    }
}
