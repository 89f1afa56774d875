//! Satisfiability (OLM5xx): for every bundle, would OLM's resolver install it from this
//! catalog alone (subscribed with `startingCSV` = the bundle, in some channel holding it)?
//! OLM501 bundle-uninstallable, OLM503 no-candidates, OLM504 conflicting-dependencies,
//! OLM505 broken-candidate, OLM506 sat-budget, OLM507 dependency-elsewhere.

use super::{name_location, Ctx};
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_model::resolution::{BundleDep, Resolution};
use olmlint_model::Bundle;
use olmlint_semantics::constraint::predicate::Pred;
use olmlint_semantics::constraint::theory;
use olmlint_semantics::sat::{explain, olm_message, Budget, CoreItem, EntryId, Verdict};
use std::collections::HashMap;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let r = ctx.resolution;
    let budget = Budget::conflicts(ctx.config.sat_conflicts);
    let bundles = &r.bundle_entries;
    let expired = || ctx.config.expired();
    let verdicts = olmlint_semantics::sat::check_bundles(
        &r.problem,
        bundles,
        budget,
        &expired,
        &|s: olmlint_semantics::sat::CheckStats| {
            olmlint_base::timings::sat_check(
                s.closure as u64,
                u64::from(s.vars),
                s.clauses as u64,
                s.solver_calls as u64,
            );
        },
    );
    let unchecked = verdicts
        .iter()
        .zip(bundles)
        .filter(|(v, starts)| v.is_none() && !starts.is_empty())
        .count();
    let verdicts: Vec<(usize, Verdict)> = verdicts
        .into_iter()
        .enumerate()
        .filter_map(|(bi, v)| Some((bi, v?)))
        .collect();
    olmlint_base::timings::sat_report();
    dependencies_elsewhere(ctx, out);
    if unchecked > 0 {
        out.push(super::timeout_finding(
            ctx,
            format!(
                "the installability of {unchecked} of {} bundles was not checked",
                ctx.catalog.bundles.len()
            ),
        ));
    }
    let mut misses: Vec<Diagnostic> = Vec::new();
    let lookups = Lookups::default();
    for (bi, verdict) in verdicts {
        let Some(b) = ctx.catalog.bundles.get(bi) else {
            continue;
        };
        let deps = r.deps.get(bi).map(Vec::as_slice).unwrap_or(&[]);
        for d in deps {
            // A proven self-conflict (OLM502) already explains the missing candidates.
            if !self_conflict(b, d, out) {
                no_candidates(ctx, &lookups, b, d, &mut misses);
            }
        }
        if verdict.is_installable() {
            continue;
        }
        let first = out.len();
        uninstallable(ctx, r, bi, b, &verdict, out);
        if let Some(base) = ctx.baseline {
            for d in out.iter_mut().skip(first).filter(|d| d.rule == "OLM501") {
                regression(ctx, base, b, budget, d);
            }
        }
    }
    out.extend(group_same_dependency(misses));
}

/// One OLM503 per package and dependency: bundles of a package usually carry the same
/// dependency release after release, and its missing candidates are one root cause. The
/// first bundle's finding stays, naming how many bundles share it; the others become related
/// locations.
fn group_same_dependency(misses: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut by_key: std::collections::HashMap<(Option<String>, String), usize> =
        std::collections::HashMap::new();
    let mut bundles: Vec<Vec<String>> = Vec::new();
    for d in misses {
        let key = (d.package.clone(), d.message.clone());
        match by_key.get(&key) {
            Some(&i) => {
                if let (Some(first), Some(list)) = (out.get_mut(i), bundles.get_mut(i)) {
                    let name = d.bundle.clone().unwrap_or_default();
                    first.related.push(olmlint_base::diag::Related {
                        message: format!("{name} declares the same dependency"),
                        location: d.location,
                        folded: None,
                    });
                    list.push(name);
                }
            }
            None => {
                by_key.insert(key, out.len());
                bundles.push(vec![d.bundle.clone().unwrap_or_default()]);
                out.push(d);
            }
        }
    }
    for (d, list) in out.iter_mut().zip(&bundles) {
        if list.len() > 1 {
            d.message = olmlint_base::diag::bounded(
                format!(
                    "{} (the same for {} bundles of package {}: {})",
                    d.message,
                    list.len(),
                    d.package.as_deref().unwrap_or(""),
                    list.join(", ")
                ),
                olmlint_base::diag::MAX_MESSAGE,
            );
        }
    }
    out
}

/// OLM703: with a baseline, an OLM501 finding for a bundle that was installable there becomes
/// a regression, with the set the baseline installed it with.
fn regression(
    ctx: &Ctx<'_>,
    base: &super::Baseline<'_>,
    b: &Bundle<'_>,
    budget: Budget,
    d: &mut Diagnostic,
) {
    if !ctx.config.is_enabled("OLM703") {
        return;
    }
    let Some(&old) = base.index.bundle.get(&(b.package(), b.name())) else {
        return;
    };
    let r = base.resolution;
    let starts = r.bundle_entries.get(old).map(Vec::as_slice).unwrap_or(&[]);
    if starts.is_empty() {
        return;
    }
    let Verdict::Installable { chosen } = r.problem.checker().check(starts, budget) else {
        return;
    };
    d.rule = "OLM703";
    // A regression stays visible next to its cause.
    d.explained_by.clear();
    d.severity = olmlint_base::rules::get("OLM703").map_or(d.severity, |x| x.severity);
    d.message = olmlint_base::diag::bounded(
        format!(
            "{} was installable from the baseline catalog and is not any more: {}",
            b.name(),
            d.message
        ),
        olmlint_base::diag::MAX_MESSAGE,
    );
    if let Some(help) = d.help.as_mut() {
        help.push_str(
            " Compare with the baseline: the bundles it was installed with there are listed below.",
        );
    }
    let mut with: Vec<&Bundle<'_>> = chosen
        .iter()
        .filter_map(|&e| r.entry_bundle.get(e as usize))
        .filter(|&&x| x != old)
        .filter_map(|&x| base.bundle(x))
        .collect();
    with.sort_by_key(|x| x.name());
    with.dedup_by_key(|x| x.name());
    if with.is_empty() {
        d.related.push(olmlint_base::diag::Related {
            message: "in the baseline OLM installed it alone".into(),
            location: Some(name_location(base.catalog.bundles.get(old).unwrap_or(b))),
            folded: None,
        });
    }
    for x in with {
        d.related.push(olmlint_base::diag::Related {
            message: format!("in the baseline OLM installed it with {}", x.name()),
            location: Some(name_location(x)),
            folded: None,
        });
    }
}

fn property_loc(ctx: &Ctx<'_>, bi: usize, property: usize) -> Option<(Location, String)> {
    let b = ctx.catalog.bundles.get(bi)?;
    let p = b.properties.get(property)?;
    Some((
        Location {
            file: p.file,
            span: p.span(),
        },
        p.value_pointer(),
    ))
}

fn entry_bundle<'a>(
    ctx: &'a Ctx<'a>,
    r: &Resolution,
    e: EntryId,
) -> Option<(usize, &'a Bundle<'a>)> {
    let bi = *r.entry_bundle.get(e as usize)?;
    Some((bi, ctx.bundle(bi)?))
}

/// `d` with a related location at the name of each entry's bundle, saying `what(name)`.
fn at_bundles(
    ctx: &Ctx<'_>,
    r: &Resolution,
    mut d: Diagnostic,
    entries: &[EntryId],
    what: impl Fn(&str) -> String,
) -> Diagnostic {
    for e in entries {
        if let Some((_, x)) = entry_bundle(ctx, r, *e) {
            d = d.related(what(x.name()), Some(name_location(x)));
        }
    }
    d
}

/// The findings of a bundle OLM cannot install: OLM506 when the search gave up; otherwise
/// OLM501 (with OLM505 for a broken reached bundle, OLM504 for a conflict among its own
/// dependencies), pointing at the constraints and bundles the proof involves.
fn uninstallable(
    ctx: &Ctx<'_>,
    r: &Resolution,
    bi: usize,
    b: &Bundle<'_>,
    verdict: &Verdict,
    out: &mut Vec<Diagnostic>,
) {
    let f = Failure {
        ctx,
        r,
        bi,
        b,
        starts: r.bundle_entries.get(bi).map(Vec::as_slice).unwrap_or(&[]),
        loc: name_location(b),
    };
    let d = match verdict {
        Verdict::BudgetExceeded => {
            out.push(f.budget_exceeded());
            return;
        }
        Verdict::HardError { entry, message } => f.hard_error(*entry, message, verdict, out),
        Verdict::Unsatisfiable { core } => {
            conflicting_dependencies(ctx, r, bi, b, f.starts, core, out);
            Diagnostic::new("OLM501", explain(&r.problem, verdict))
        }
        Verdict::Installable { .. } => return,
    };
    let mut d = f.on_name(d);
    if let Verdict::Unsatisfiable { core } = verdict {
        d = f.core_locations(d, core);
    }
    out.push(d.help(f.help(verdict)));
}

/// A bundle OLM cannot install, and where its findings go.
struct Failure<'c, 'a> {
    ctx: &'c Ctx<'a>,
    r: &'c Resolution,
    bi: usize,
    b: &'c Bundle<'c>,
    /// The entries a subscription to the bundle starts from.
    starts: &'c [EntryId],
    /// The bundle's name.
    loc: Location,
}

impl Failure<'_, '_> {
    /// `d` at the bundle's name, naming the bundle and its package.
    fn on_name(&self, d: Diagnostic) -> Diagnostic {
        d.at(self.loc.file, self.loc.span)
            .pointer("/name")
            .package(Some(self.b.package()))
            .bundle(Some(self.b.name()))
    }

    /// OLM506: the conflict budget ran out before a decision.
    fn budget_exceeded(&self) -> Diagnostic {
        self.on_name(Diagnostic::new("OLM506", format!("could not decide whether {} is installable within {} conflicts", self.b.name(), self.ctx.config.sat_conflicts)))
            .help("The dependency problem is unusually hard (OLM has no limit and may take very long). Raise `limits.sat-conflicts` in .olmlint.yaml to keep searching.")
    }

    /// OLM501 for a resolution OLM aborts at an undecodable constraint: explained by the
    /// bundle's own broken constraints, or by an OLM505 (pushed here) when the broken bundle is
    /// one it reaches.
    fn hard_error(
        &self,
        entry: EntryId,
        message: &str,
        verdict: &Verdict,
        out: &mut Vec<Diagnostic>,
    ) -> Diagnostic {
        let (ctx, r, b) = (self.ctx, self.r, self.b);
        let own = self.starts.contains(&entry);
        let reached = entry_bundle(ctx, r, entry);
        let who = reached.map_or("a reached bundle", |(_, x)| x.name());
        if !own {
            let mut d505 = self.on_name(Diagnostic::new("OLM505", format!("installing {} reaches {who}, whose dependencies OLM cannot evaluate: {message}", b.name())))
                .help(format!("OLM aborts the whole resolution (for every subscription in the namespace) as soon as it reaches {who}. Fix that bundle's constraint, or move it off the channels other bundles depend on."));
            if let Some((rb, _)) = reached {
                if let Some(dep) = r.deps.get(rb).and_then(|ds| {
                    ds.iter()
                        .find(|d| d.error.is_some() || d.channel_error.is_some())
                }) {
                    if let Some((l, _)) = property_loc(ctx, rb, dep.property) {
                        d505 = d505.related(format!("the broken dependency of {who}"), Some(l));
                    }
                }
            }
            out.push(d505);
        }
        let mut d501 = Diagnostic::new("OLM501", explain(&r.problem, verdict));
        if !own {
            d501 = d501.explained_by(self.loc);
        }
        // The bundle's own broken constraint is the cause, reported where it is written.
        if own {
            for dep in r.deps.get(self.bi).into_iter().flatten() {
                if dep.error.is_some() {
                    if let Some((l, _)) = property_loc(ctx, self.bi, dep.property) {
                        d501 = d501.explained_by(l);
                    }
                }
            }
        }
        d501
    }

    /// The unsatisfiable core's items on `d`: each dependency where it is written (explaining
    /// `d` when it is the bundle's own), the bundles of each invariant.
    fn core_locations(&self, mut d: Diagnostic, core: &[CoreItem]) -> Diagnostic {
        let (ctx, r) = (self.ctx, self.r);
        for item in core {
            match item {
                CoreItem::Dependency { entry, index } => {
                    let origin = r
                        .problem
                        .entry(*entry)
                        .and_then(|e| e.dependencies.get(*index))
                        .and_then(|dep| r.origins.get(dep.origin as usize));
                    if let Some(o) = origin {
                        if let Some((l, _)) = property_loc(ctx, o.bundle, o.property) {
                            if self.starts.contains(entry) {
                                d = d.explained_by(l);
                            }
                            let owner = ctx.bundle(o.bundle).map_or("", |x| x.name());
                            let label = r
                                .problem
                                .entry(*entry)
                                .and_then(|e| e.dependencies.get(*index))
                                .map_or(String::new(), |x| x.label.to_string());
                            d = d.related(format!("{owner} {label}"), Some(l));
                        }
                    }
                }
                CoreItem::AtMostOneGvk { gvk, entries } => {
                    d = at_bundles(ctx, r, d, entries, |x| {
                        format!("{x} provides {gvk}; only one provider may be installed")
                    });
                }
                CoreItem::AtMostOnePackage { package, entries } => {
                    d = at_bundles(ctx, r, d, entries, |x| {
                        format!("{x} is in package {package}; only one bundle per package may be installed")
                    });
                }
                CoreItem::Prohibited(e) => {
                    d = at_bundles(ctx, r, d, std::slice::from_ref(e), |x| {
                        format!("{x} is deprecated (olm.deprecated), so OLM never installs it")
                    });
                }
                CoreItem::Uninstallable { entries } => {
                    d = at_bundles(ctx, r, d, entries, |x| {
                        format!("{x} cannot be installed itself; its finding says why")
                    });
                }
                _ => {}
            }
        }
        d.related = once_per_location(std::mem::take(&mut d.related));
        d
    }

    /// OLM501's help: what a subscription fails with on a cluster, the authors' CEL failure
    /// messages, and where a dependency absent from every loaded catalog may come from.
    fn help(&self, verdict: &Verdict) -> String {
        let (r, b) = (self.r, self.b);
        let cel_messages: Vec<String> = r
            .deps
            .get(self.bi)
            .into_iter()
            .flatten()
            .filter_map(|x| x.failure_message.as_deref().map(str::to_string))
            .collect();
        let authors = if cel_messages.is_empty() {
            String::new()
        } else {
            format!(
                " The authors' failure messages: {}.",
                cel_messages.join("; ")
            )
        };
        // The "other catalogs" hint only where a dependency is absent from every loaded catalog
        // (with --closed-world; in the open world those are assumed met and OLM507 says so).
        let absent = r
            .deps
            .get(self.bi)
            .into_iter()
            .flatten()
            .any(|x| x.absent && x.candidates.is_empty());
        let hint = if absent {
            " (A dependency is in none of the loaded catalogs: if another catalog of the cluster provides it, add that catalog with `--context PATH` or declare it under `provided:` in .olmlint.yaml.)"
        } else {
            ""
        };
        format!(
            "A subscription to {} with startingCSV {} fails on a cluster with: {}.{authors}{hint}",
            b.package(),
            b.name(),
            olm_message(&r.problem, verdict)
        )
    }
}

/// Related locations each listed once, in order: a bundle in several channels is several
/// entries of the core, each naming the same dependency or bundle. What a later item says
/// that the first at its location does not is appended to the first.
fn once_per_location(
    related: Vec<olmlint_base::diag::Related>,
) -> Vec<olmlint_base::diag::Related> {
    let mut at: HashMap<Location, usize> = HashMap::new();
    let mut out: Vec<olmlint_base::diag::Related> = Vec::with_capacity(related.len());
    for r in related {
        let Some(l) = r.location else {
            out.push(r);
            continue;
        };
        match at.get(&l).and_then(|&i| out.get_mut(i)) {
            Some(first) if first.message.contains(r.message.as_str()) => {}
            Some(first) => {
                first.message = olmlint_base::diag::bounded(
                    format!("{}; {}", first.message, r.message),
                    olmlint_base::diag::MAX_RELATED,
                );
            }
            None => {
                at.insert(l, out.len());
                out.push(r);
            }
        }
    }
    out
}

/// OLM504: the core involves only this bundle's own dependencies plus invariants.
fn conflicting_dependencies(
    ctx: &Ctx<'_>,
    r: &Resolution,
    bi: usize,
    b: &Bundle<'_>,
    starts: &[EntryId],
    core: &[CoreItem],
    out: &mut Vec<Diagnostic>,
) {
    let mut own: Vec<usize> = Vec::new();
    let mut invariant = None;
    for item in core {
        match item {
            CoreItem::Dependency { entry, index } if starts.contains(entry) => {
                let o = r
                    .problem
                    .entry(*entry)
                    .and_then(|e| e.dependencies.get(*index))
                    .and_then(|dep| r.origins.get(dep.origin as usize));
                if let Some(o) = o {
                    own.push(o.property);
                }
            }
            CoreItem::Dependency { .. }
            | CoreItem::Prohibited(_)
            | CoreItem::Uninstallable { .. } => return,
            CoreItem::AtMostOneGvk { gvk, .. } => {
                invariant = Some(format!("at most one provider of {gvk} can be installed"))
            }
            CoreItem::AtMostOnePackage { package, .. } => {
                invariant = Some(format!(
                    "at most one bundle of package {package} can be installed"
                ))
            }
            _ => {}
        }
    }
    let Some(invariant) = invariant else { return };
    own.sort_unstable();
    own.dedup();
    let Some(&first) = own.first() else { return };
    let Some((loc, pointer)) = property_loc(ctx, bi, first) else {
        return;
    };
    let mut d = Diagnostic::new("OLM504", format!("the dependencies of {} cannot hold together: {invariant}", b.name()))
        .at(loc.file, loc.span)
        .pointer(pointer)
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help("Each dependency property must be met by some installed bundle, but OLM installs at most one bundle per package and one provider per GVK. Require versions that overlap, or combine the requirements in one `all` constraint.");
    for p in own.iter().skip(1) {
        if let Some((l, _)) = property_loc(ctx, bi, *p) {
            d = d.related("conflicting dependency", Some(l));
        }
    }
    out.push(d);
}

/// True when some node is already reported as never matching (empty `any`: OLM206; empty
/// range: OLM302).
fn trivially_false(p: &Pred) -> bool {
    match p {
        Pred::Any(ps) if ps.is_empty() => true,
        Pred::Package { range, .. } => range.is_empty(),
        Pred::All(ps) | Pred::Any(ps) | Pred::Not(ps) => ps.iter().any(trivially_false),
        _ => false,
    }
}

/// OLM502: no conceivable bundle satisfies the constraint.
fn self_conflict(b: &Bundle<'_>, d: &BundleDep, out: &mut Vec<Diagnostic>) -> bool {
    let Some(pred) = &d.pred else { return false };
    if !matches!(pred, Pred::All(_) | Pred::Not(_) | Pred::Any(_)) || trivially_false(pred) {
        return false;
    }
    if theory::satisfiable(pred) != Some(false) {
        return false;
    }
    let Some(p) = b.properties.get(d.property) else {
        return false;
    };
    let why = match (theory::minimal_conflict(pred), pred) {
        (Some(keep), Pred::All(children)) => {
            let parts: Vec<String> = keep
                .iter()
                .filter_map(|&i| children.get(i))
                .map(Pred::describe)
                .collect();
            format!(
                "a bundle has one package and one version, so {} cannot all hold at once",
                parts.join(", ")
            )
        }
        _ => format!(
            "{} holds for no bundle (a bundle has exactly one package and one version)",
            pred.describe()
        ),
    };
    out.push(
        Diagnostic::new("OLM502", format!("no bundle can ever satisfy this constraint: {why}"))
            .at(p.file, p.span())
            .pointer(p.value_pointer())
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help("All children of `all` must hold for ONE candidate bundle. If you meant separate requirements that different bundles may meet, write them as separate `olm.constraint` properties; if you meant alternatives, use `any`."),
    );
    true
}

/// OLM503 with near misses.
fn no_candidates<'a>(
    ctx: &Ctx<'a>,
    lookups: &Lookups<'a>,
    b: &Bundle<'_>,
    d: &BundleDep,
    out: &mut Vec<Diagnostic>,
) {
    let Some(pred) = &d.pred else { return };
    let r = ctx.resolution;
    // A predicate already reported as never matching (an empty `any`: OLM206; an empty
    // range: OLM302) has no candidate for that reason alone: one root cause, one finding.
    if !d.candidates.is_empty() || trivially_false(pred) || ctx.provided.assumes_met(d) {
        return;
    }
    let Some(p) = b.properties.get(d.property) else {
        return;
    };
    // An invalid dependencies.yaml entry is reported as such (OLM601): one root cause.
    if b.from_directory && p.item.is_some_and(super::bundle_dir::dependency_invalid) {
        return;
    }
    let mut misses: Vec<String> = Vec::new();
    for &e in &d.ineligible {
        if let Some(x) = r.entry_bundle.get(e as usize).and_then(|&i| ctx.bundle(i)) {
            let channel = r.problem.entry(e).map_or("", |e| e.channel.as_str());
            let itself = if std::ptr::eq(x, b) {
                " (this bundle itself)"
            } else {
                ""
            };
            misses.push(match r.skipped_by.get(e as usize).and_then(Option::as_deref) {
                Some(by) => format!(
                    "{}{itself} matches but is skipped in channel {channel} (by {by}), and OLM drops skipped entries from a dependency's candidates",
                    x.name()
                ),
                None => format!(
                    "{}{itself} matches but is not on the replaces chain from the head of channel {channel}, and OLM only considers entries on that chain",
                    x.name()
                ),
            });
        }
    }
    misses.extend(near_misses(ctx, lookups, pred));
    let what = match pred {
        Pred::Cel { .. } => format!(
            "CEL rule {}",
            d.label
                .strip_prefix("with constraint: ")
                .unwrap_or(&d.label)
        ),
        _ => pred.describe(),
    };
    let detail = if misses.is_empty() {
        "nothing in the catalog comes close".to_string()
    } else {
        misses.join("; ")
    };
    out.push(
        Diagnostic::new("OLM503", format!("no bundle in the catalog satisfies this dependency on {what}: {detail}"))
            .at(p.file, p.span())
            .pointer(p.value_pointer())
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help(match &d.failure_message {
                Some(m) => format!("OLM fails with \"constraints not satisfiable\" and the authors' message: {m}. If the dependency comes from another catalog, add it with `context:` or declare it under `provided:` in .olmlint.yaml."),
                None => "OLM fails with \"constraints not satisfiable\". If the dependency comes from another catalog, add it with `context:` or declare it under `provided:` in .olmlint.yaml.".to_string(),
            }),
    );
}

/// What the near-miss explanations of failing dependencies look up, built on first use (most
/// runs have no failing dependency): scanning every catalog, or comparing a name with every
/// package, once per failing dependency was quadratic.
#[derive(Default)]
struct Lookups<'a> {
    /// Every package name of every catalog, for "did you mean".
    packages: std::cell::OnceCell<olmlint_base::suggest::Names<'a>>,
    /// The context catalogs' bundle versions, by package.
    context_versions: std::cell::OnceCell<HashMap<&'a str, Vec<&'a str>>>,
    /// Provided APIs by group, then ASCII-lower-cased kind: (kind, version, bundle).
    gvks: std::cell::OnceCell<GvkIndex<'a>>,
}

type GvkIndex<'a> = HashMap<&'a str, HashMap<String, Vec<(&'a str, &'a str, usize)>>>;

impl<'a> Lookups<'a> {
    fn packages(&self, ctx: &Ctx<'a>) -> &olmlint_base::suggest::Names<'a> {
        self.packages.get_or_init(|| {
            olmlint_base::suggest::Names::new(
                ctx.index.packages.keys().copied().chain(
                    ctx.catalogs
                        .iter()
                        .skip(1)
                        .flat_map(|c| c.packages.iter().filter_map(|p| p.name.map(|n| n.value))),
                ),
            )
        })
    }

    fn context_versions(&self, ctx: &Ctx<'a>, package: &str) -> &[&'a str] {
        self.context_versions
            .get_or_init(|| {
                let mut m: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
                for b in ctx.catalogs.iter().skip(1).flat_map(|c| c.bundles.iter()) {
                    if let Some(v) = b.version() {
                        m.entry(b.package()).or_default().push(v.value);
                    }
                }
                m
            })
            .get(package)
            .map_or(&[], Vec::as_slice)
    }

    fn gvks(&self, ctx: &Ctx<'a>, group: &str, kind: &str) -> &[(&'a str, &'a str, usize)] {
        self.gvks
            .get_or_init(|| {
                let mut m: GvkIndex<'a> = HashMap::new();
                for (bi, f) in ctx.resolution.facts.iter().enumerate() {
                    for (g, v, k) in &f.gvks {
                        m.entry(g.as_str())
                            .or_default()
                            .entry(k.as_str().to_ascii_lowercase())
                            .or_default()
                            .push((k.as_str(), v.as_str(), bi));
                    }
                }
                m
            })
            .get(group)
            .and_then(|kinds| kinds.get(&kind.to_ascii_lowercase()))
            .map_or(&[], Vec::as_slice)
    }
}

/// What exists close to a package or GVK requirement.
fn near_misses<'a>(ctx: &Ctx<'a>, lookups: &Lookups<'a>, pred: &Pred) -> Vec<String> {
    let mut out = Vec::new();
    match pred {
        Pred::Package { name, range } => {
            // Every catalog the dependency may come from: the own one through its index, the
            // context ones through a table built on first use.
            let mut versions: Vec<&str> = ctx
                .index
                .bundles_by_package
                .get(name.as_str())
                .into_iter()
                .flatten()
                .filter_map(|&i| ctx.catalog.bundles.get(i))
                .filter_map(|x| x.version().map(|v| v.value))
                .chain(lookups.context_versions(ctx, name).iter().copied())
                .collect();
            // Semver order (blang precedence), unparsable ones first; the highest are shown.
            versions.sort_by(|a, b| {
                let (pa, pb) = (
                    olmlint_semantics::version::parse_tolerant(a),
                    olmlint_semantics::version::parse_tolerant(b),
                );
                match (pa, pb) {
                    (Ok(x), Ok(y)) => olmlint_semantics::version::cmp(&x, &y).then(a.cmp(b)),
                    (Err(_), Ok(_)) => std::cmp::Ordering::Less,
                    (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
                    (Err(_), Err(_)) => a.cmp(b),
                }
            });
            versions.dedup();
            if versions.is_empty() {
                match lookups.packages(ctx).closest(name) {
                    Some(s) => out.push(format!(
                        "there is no package {name:?} (did you mean {s:?}?)"
                    )),
                    None if ctx.catalogs.len() > 1 => out.push(format!(
                        "there is no package {name:?} in any loaded catalog"
                    )),
                    None => out.push(format!("there is no package {name:?} in the catalog")),
                }
            } else {
                // The eight versions nearest to where the range starts, highest first.
                const SHOWN: usize = 8;
                let set = range.intervals();
                let at = set.intervals().first().map_or(versions.len(), |iv| {
                    versions.partition_point(|v| {
                        olmlint_semantics::version::parse_tolerant(v).map_or(true, |x| {
                            olmlint_semantics::version::cmp(&x, iv.lower()).is_lt()
                        })
                    })
                });
                let start = at
                    .saturating_sub(SHOWN / 2)
                    .min(versions.len().saturating_sub(SHOWN));
                let window = versions.get(start..).unwrap_or(&[]);
                let shown: Vec<&str> = window.iter().take(SHOWN).rev().copied().collect();
                let above = versions.len() > start + SHOWN;
                out.push(format!(
                    "{name} exists only at {}{}{}",
                    if above { "…, " } else { "" },
                    shown.join(", "),
                    if start > 0 { ", …" } else { "" }
                ));
            }
        }
        Pred::Gvk {
            group,
            version,
            kind,
        } => {
            let mut similar: Vec<String> = Vec::new();
            for &(k, v, bi) in lookups.gvks(ctx, group, kind) {
                if v != version.as_str() || k != kind.as_str() {
                    if let Some(x) = ctx.bundle(bi) {
                        similar.push(format!("{k} {v} is provided by {}", x.name()));
                    }
                }
            }
            similar.sort();
            similar.dedup();
            if similar.is_empty() {
                out.push(format!("no bundle provides {kind} in group {group}"));
            } else {
                out.push(format!(
                    "{kind} {version} is provided by nobody, but {}",
                    similar.into_iter().take(5).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        _ => {}
    }
    out
}

/// OLM507: dependencies on a package or API that no loaded catalog has (open world): OLM
/// resolves them from the other catalogs of the cluster, so installability was judged as if
/// they are met. One finding per package and dependency, naming every bundle that declares it.
fn dependencies_elsewhere(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    if !ctx.provided.open_world || !ctx.config.is_enabled("OLM507") {
        return;
    }
    let r = ctx.resolution;
    // (package, dependency text) → the predicate, and (bundle, property) in catalog order.
    type Group<'g> = (Option<&'g Pred>, Vec<(&'g Bundle<'g>, usize)>);
    let mut groups: std::collections::BTreeMap<(&str, &str), Group<'_>> =
        std::collections::BTreeMap::new();
    for (bi, b) in ctx.catalog.bundles.iter().enumerate() {
        for d in r.deps.get(bi).into_iter().flatten() {
            // `absent` already means: no candidate, and a constraint some bundle could meet
            // (one no bundle can meet is OLM502's).
            if d.absent && d.pred.as_ref().is_some_and(|p| !ctx.provided.covers(p)) {
                let g = groups
                    .entry((b.package(), d.label.as_str()))
                    .or_insert_with(|| (d.pred.as_ref(), Vec::new()));
                g.1.push((b, d.property));
            }
        }
    }
    for ((pkg, label), (pred, sites)) in groups {
        let Some(&(first, prop)) = sites.first() else {
            continue;
        };
        let Some(p) = first.properties.get(prop) else {
            continue;
        };
        let names: Vec<&str> = sites.iter().map(|(b, _)| b.name()).collect();
        let provided_entry = match pred {
            Some(Pred::Package { name, .. }) => format!("`provided: {{packages: [{name}]}}`"),
            Some(Pred::Gvk {
                group,
                version,
                kind,
            }) => {
                format!("`provided: {{gvks: [{group}/{version}/{kind}]}}`")
            }
            _ => "a `provided:` entry".to_string(),
        };
        let mut d = Diagnostic::new(
            "OLM507",
            match names.as_slice() {
                [one] => format!("{one} requires an operator {label}, which no loaded catalog has"),
                _ => format!(
                    "{} bundles of package {pkg} require an operator {label}, which no loaded catalog has: {}",
                    names.len(),
                    names.join(", ")
                ),
            },
        )
        .at(p.file, p.span())
        .pointer(p.value_pointer())
        .package(Some(pkg))
        .bundle(Some(first.name()))
        .help(format!(
            "OLM resolves dependencies from every catalog of the cluster, so this is fine when another catalog (say, the cluster's redhat-operators or community index) provides it; olmlint judged installability as if it does. To check it for real, lint with that catalog as `--context PATH` (or `context:` in .olmlint.yaml); to record that it comes from elsewhere and silence this, add {provided_entry} to .olmlint.yaml. With `--closed-world` (`closed-world: true`) a dependency no loaded catalog has is an error (OLM503)."
        ));
        for (b, prop) in sites.iter().skip(1) {
            if let Some(q) = b.properties.get(*prop) {
                d = d.related(
                    format!("{} declares the same dependency", b.name()),
                    Some(Location {
                        file: q.file,
                        span: q.span(),
                    }),
                );
            }
        }
        out.push(d);
    }
}
