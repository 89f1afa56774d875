//! Upgrade safety across catalog versions (OLM70x, with `--baseline`): OLM701
//! api-removed-with-dependents, OLM702 version-deadlock, OLM704 removed-bundle. OLM703
//! installable-regression refines OLM501 and lives with it in `installability`.
//!
//! Identity across the two versions: a bundle is (package, name), a channel (package, name).
//! Findings are placed in the linted catalog; related locations may point into the baseline.

use super::{name_location, Baseline, Ctx};
use compact_str::CompactString;
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_model::resolution::{runtime_of, BundleDep, Resolution};
use olmlint_model::{Bundle, Channel};
use olmlint_semantics::cel;
use olmlint_semantics::constraint::predicate::{Facts, Pred};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A GVK as (group, version, kind).
type Gvk = (CompactString, CompactString, CompactString);

/// A channel present in both versions whose head changed.
struct Moved {
    package: String,
    channel: String,
    /// Head in the baseline (baseline resolution index).
    old: usize,
    /// Head now (resolution index).
    new: usize,
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(base) = ctx.baseline else { return };
    let new_heads = heads(ctx.resolution);
    let old_heads = heads(base.resolution);
    let moved: Vec<Moved> = old_heads
        .iter()
        .filter_map(|((package, channel), &old)| {
            let &new = new_heads.get(&(package.clone(), channel.clone()))?;
            let (o, n) = (base.bundle(old)?, ctx.bundle(new)?);
            (o.name() != n.name()).then(|| Moved {
                package: package.clone(),
                channel: channel.clone(),
                old,
                new,
            })
        })
        .collect();
    api_removed(ctx, base, &new_heads, &moved, out);
    deadlocks(ctx, base, &moved, out);
    removed_bundles(ctx, base, &old_heads, &new_heads, out);
}

/// Channel heads of the catalog a resolution was built for (its source 0):
/// (package, channel) → bundle index. Channels without a unique head have none.
fn heads(r: &Resolution) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for (e, &(source, _, pos)) in r.placement.iter().enumerate() {
        if source != 0 || pos != Some(0) {
            continue;
        }
        let (Some(entry), Some(&bi)) = (r.problem.entries.get(e), r.entry_bundle.get(e)) else {
            continue;
        };
        out.insert((entry.package.to_string(), entry.channel.to_string()), bi);
    }
    out
}

/// Whether `pred` (a predicate of resolution `owner`) matches bundle `b` with facts `f`,
/// which may belong to the other version of the catalog. CEL leaves are evaluated on `b`.
fn matches(owner: &Resolution, pred: &Pred, f: &Facts, b: &Bundle<'_>) -> bool {
    let props = std::cell::OnceCell::new();
    let cel_leaf = |rule: usize| {
        let Some((_, Ok(compiled))) = owner.cel.rules.get(rule) else {
            return false;
        };
        let props = props.get_or_init(|| runtime_of(b, None));
        cel::eval(compiled, props, owner.cel.budget).unwrap_or(false)
    };
    pred.matches(f, &cel_leaf)
}

/// GVK leaves a matching bundle provides (those not under a `not`).
fn positive_gvks(pred: &Pred, out: &mut Vec<Gvk>) {
    match pred {
        Pred::Gvk {
            group,
            version,
            kind,
        } => out.push((group.into(), version.into(), kind.into())),
        Pred::All(ps) | Pred::Any(ps) => ps.iter().for_each(|p| positive_gvks(p, out)),
        _ => {}
    }
}

fn property_loc(b: &Bundle<'_>, property: usize) -> Option<Location> {
    let p = b.properties.get(property)?;
    Some(Location {
        file: p.file,
        span: p.span(),
    })
}

/// Whether bundle `bi` is among a dependency's eligible candidates.
fn has_candidate(r: &Resolution, d: &BundleDep, bi: usize) -> bool {
    d.candidates
        .iter()
        .any(|&e| r.entry_bundle.get(e as usize) == Some(&bi))
}

/// Packages of a dependency's eligible candidates.
fn candidate_packages<'r>(r: &'r Resolution, d: &'r BundleDep) -> impl Iterator<Item = &'r str> {
    d.candidates
        .iter()
        .filter_map(|&e| r.problem.entry(e).map(|x| x.package.as_str()))
}

/// OLM701: a new channel head dropped a GVK that another package's head still requires and
/// no other package provides.
fn api_removed(
    ctx: &Ctx<'_>,
    base: &Baseline<'_>,
    new_heads: &BTreeMap<(String, String), usize>,
    moved: &[Moved],
    out: &mut Vec<Diagnostic>,
) {
    let r = ctx.resolution;
    // Dependencies of current heads, by each GVK they can be met with.
    let head_bundles: BTreeSet<usize> = new_heads.values().copied().collect();
    let mut by_gvk: HashMap<Gvk, Vec<(usize, &BundleDep)>> = HashMap::new();
    for &bi in &head_bundles {
        for d in r.deps.get(bi).into_iter().flatten() {
            let mut gvks = Vec::new();
            if let Some(pred) = &d.pred {
                positive_gvks(pred, &mut gvks);
            }
            gvks.sort();
            gvks.dedup();
            for g in gvks {
                by_gvk.entry(g).or_default().push((bi, d));
            }
        }
    }
    let mut reported: BTreeSet<(usize, Gvk)> = BTreeSet::new();
    for m in moved {
        let (Some(old_b), Some(new_b)) = (base.bundle(m.old), ctx.bundle(m.new)) else {
            continue;
        };
        let (Some(old_f), Some(new_f)) = (base.resolution.facts.get(m.old), r.facts.get(m.new))
        else {
            continue;
        };
        for g in old_f.gvks.iter().filter(|g| !new_f.gvks.contains(g)) {
            if reported.contains(&(m.new, g.clone())) {
                continue;
            }
            let mut dependents: Vec<(&Bundle<'_>, usize)> = Vec::new();
            for &(bi, d) in by_gvk.get(g).into_iter().flatten() {
                let Some(q) = ctx.bundle(bi) else { continue };
                let Some(pred) = &d.pred else { continue };
                if q.package() == m.package
                    || !matches(r, pred, old_f, old_b)
                    || matches(r, pred, new_f, new_b)
                    || ctx.provided.covers(pred)
                    || candidate_packages(r, d).any(|p| p != m.package)
                {
                    continue;
                }
                dependents.push((q, d.property));
            }
            if dependents.is_empty() {
                continue;
            }
            reported.insert((m.new, g.clone()));
            let (group, version, kind) = g;
            let names: Vec<&str> = dependents.iter().map(|(q, _)| q.name()).collect();
            let mut packages: Vec<&str> = dependents.iter().map(|(q, _)| q.package()).collect();
            packages.dedup();
            let loc = name_location(new_b);
            let mut d = Diagnostic::new(
                "OLM701",
                format!(
                    "{}, the new head of channel {}, no longer provides {kind} ({group}/{version}) that {} provided; {} still require{} it and no other bundle provides it",
                    new_b.name(),
                    m.channel,
                    old_b.name(),
                    names.join(", "),
                    if names.len() == 1 { "s" } else { "" }
                ),
            )
            .at(loc.file, loc.span)
            .pointer("/name")
            .package(Some(new_b.package()))
            .bundle(Some(new_b.name()))
            .help(format!(
                "OLM never leaves an installed operator without an API it requires (the \"deprecating dependent APIs\" case of its dependency-resolution docs): on clusters running {}, the subscription to {} stays on {} and never upgrades. Keep serving {kind} {group}/{version} in {} (for example both CRD versions), or first release {} with a requirement on the new API.",
                names.join(" or "),
                m.package,
                old_b.name(),
                new_b.name(),
                packages.join(" and ")
            ));
            for (q, property) in &dependents {
                d = d.related(
                    format!("{} requires {kind} ({group}/{version})", q.name()),
                    property_loc(q, *property),
                );
            }
            let provider = old_b.properties_of("olm.gvk").find(|p| {
                p.value.as_deref().is_some_and(|v| {
                    let field = |k: &str| v.get(k).and_then(|x| x.as_str());
                    field("group") == Some(group.as_str())
                        && field("version") == Some(version.as_str())
                        && field("kind") == Some(kind.as_str())
                })
            });
            let at = provider.map_or(name_location(old_b), |p| Location {
                file: p.file,
                span: p.span(),
            });
            d = d.related(
                format!("{} provided it in the baseline", old_b.name()),
                Some(at),
            );
            out.push(d);
        }
    }
}

/// OLM702: two packages whose new heads need each other's new APIs while their old heads
/// ran together, so neither can be upgraded alone.
fn deadlocks(ctx: &Ctx<'_>, base: &Baseline<'_>, moved: &[Moved], out: &mut Vec<Diagnostic>) {
    let r = ctx.resolution;
    let by_new: HashMap<usize, &Moved> = moved.iter().map(|m| (m.new, m)).collect();
    let mut seen: BTreeSet<(usize, usize)> = BTreeSet::new();
    for p in moved {
        for d in r.deps.get(p.new).into_iter().flatten() {
            for &e in d.candidates.iter() {
                let Some(&q_new) = r.entry_bundle.get(e as usize) else {
                    continue;
                };
                let Some(q) = by_new.get(&q_new) else {
                    continue;
                };
                if q.package == p.package {
                    continue;
                }
                let pair = (p.new.min(q.new), p.new.max(q.new));
                if !seen.insert(pair) {
                    continue;
                }
                if let Some(f) = deadlock(ctx, base, p, q) {
                    out.push(f);
                }
            }
        }
    }
}

/// A dependency of `of` (now) that only `by`'s new head meets: not `of` itself, not `by`'s
/// old head, no third package, nothing `provided:`. Returns its description.
fn only_met_by_new(ctx: &Ctx<'_>, base: &Baseline<'_>, of: &Moved, by: &Moved) -> Option<String> {
    let r = ctx.resolution;
    let (of_b, of_f) = (ctx.bundle(of.new)?, r.facts.get(of.new)?);
    let (by_old_b, by_old_f) = (base.bundle(by.old)?, base.resolution.facts.get(by.old)?);
    r.deps.get(of.new)?.iter().find_map(|d| {
        let pred = d.pred.as_ref()?;
        let only = has_candidate(r, d, by.new)
            && !matches(r, pred, of_f, of_b)
            && !matches(r, pred, by_old_f, by_old_b)
            && !ctx.provided.covers(pred)
            && candidate_packages(r, d).all(|p| p == by.package);
        only.then(|| pred.describe())
    })
}

fn deadlock(ctx: &Ctx<'_>, base: &Baseline<'_>, p: &Moved, q: &Moved) -> Option<Diagnostic> {
    let r = ctx.resolution;
    // 1. Each new head has a dependency only the other's new head meets.
    let p_needs = only_met_by_new(ctx, base, p, q)?;
    let q_needs = only_met_by_new(ctx, base, q, p)?;
    // 2. The old heads ran together: one of them had the other as a candidate.
    let br = base.resolution;
    let depends = |a: usize, b: usize| {
        br.deps
            .get(a)
            .into_iter()
            .flatten()
            .any(|d| has_candidate(br, d, b))
    };
    if !depends(p.old, q.old) && !depends(q.old, p.old) {
        return None;
    }
    // 3. Together the new heads meet all of each other's dependencies (else it is breakage,
    //    which OLM501/OLM503 report).
    let pair = [p.new, q.new];
    for &bi in &pair {
        for d in r.deps.get(bi).into_iter().flatten() {
            let pred = d.pred.as_ref()?;
            let met = pair.iter().any(|&x| {
                ctx.bundle(x)
                    .zip(r.facts.get(x))
                    .is_some_and(|(b, f)| matches(r, pred, f, b))
            }) || ctx.provided.covers(pred)
                || !d.candidates.is_empty();
            if !met {
                return None;
            }
        }
    }
    // Reported once, on the package that sorts first.
    let (first, second, first_needs, second_needs) = if p.package <= q.package {
        (p, q, p_needs, q_needs)
    } else {
        (q, p, q_needs, p_needs)
    };
    let (a_new, b_new) = (ctx.bundle(first.new)?, ctx.bundle(second.new)?);
    let (a_old, b_old) = (base.bundle(first.old)?, base.bundle(second.old)?);
    let loc = name_location(a_new);
    Some(
        Diagnostic::new(
            "OLM702",
            format!(
                "{a} and {b} can only be upgraded together: {a} requires {first_needs}, which only {b} is, and {b} requires {second_needs}, which only {a} is, while the old heads {ao} and {bo} were installed together",
                a = a_new.name(),
                b = b_new.name(),
                ao = a_old.name(),
                bo = b_old.name(),
            ),
        )
        .at(loc.file, loc.span)
        .pointer("/name")
        .package(Some(a_new.package()))
        .bundle(Some(a_new.name()))
        .help("OLM will not upgrade one of them alone (the \"version deadlock\" case of its dependency-resolution docs), so a cluster where either update is held back (manual approval, a pinned version, a catalog that ships one update later) is stuck on both. Let one new bundle keep providing or accepting the old API for one release.")
        .related(format!("{} needs {}", b_new.name(), a_new.name()), Some(name_location(b_new))),
    )
}

/// OLM704: an entry removed from a channel that no remaining entry offers an upgrade from.
fn removed_bundles(
    ctx: &Ctx<'_>,
    base: &Baseline<'_>,
    old_heads: &BTreeMap<(String, String), usize>,
    new_heads: &BTreeMap<(String, String), usize>,
    out: &mut Vec<Diagnostic>,
) {
    let now: HashMap<(&str, &str), &Channel<'_>> = ctx
        .catalog
        .channels
        .iter()
        .filter_map(|c| Some(((c.package?.value, c.name?.value), c)))
        .collect();
    for old in &base.catalog.channels {
        let (Some(pkg), Some(name)) = (old.package, old.name) else {
            continue;
        };
        let Some(new) = now.get(&(pkg.value, name.value)) else {
            continue;
        };
        let kept: BTreeSet<&str> = new.entries.iter().map(|e| e.name()).collect();
        // Entries whose `replaces` names a bundle the channel no longer holds: when that is
        // an error there (a bundle directory's `replaces` that fails the index build, OLM802),
        // the removals are its consequence and fold into it.
        let dangling: Vec<Location> = new
            .entries
            .iter()
            .filter_map(|e| {
                e.replaces
                    .filter(|r| !kept.contains(r.value))
                    .map(|r| (e, r))
            })
            .take(8)
            .map(|(e, r)| Location {
                file: e.file,
                span: r.node.span,
            })
            .collect();
        let old_head = old_heads
            .get(&(pkg.value.to_string(), name.value.to_string()))
            .and_then(|&bi| base.bundle(bi))
            .map(Bundle::name);
        for x in old.entries.iter().filter(|e| !kept.contains(e.name())) {
            let version = base
                .index
                .bundle
                .get(&(pkg.value, x.name()))
                .and_then(|&bi| base.resolution.facts.get(bi))
                .and_then(|f| f.version.clone());
            let offers = |c: &Channel<'_>| {
                c.entries
                    .iter()
                    .any(|e| e.offers_upgrade_from(x.name(), version.as_ref()))
            };
            let was_head = old_head == Some(x.name());
            // Entries that were stranded already are OLM111's business in the baseline.
            if !was_head && !offers(old) || offers(new) {
                continue;
            }
            let new_head_bi = new_heads
                .get(&(pkg.value.to_string(), name.value.to_string()))
                .copied();
            let new_head = new_head_bi.and_then(|bi| ctx.bundle(bi)).map(Bundle::name);
            // Below the removed head (a rollback), or above it without an edge from it.
            let ahead = match (
                version.as_ref(),
                new_head_bi
                    .and_then(|bi| ctx.resolution.facts.get(bi))
                    .and_then(|f| f.version.as_ref()),
            ) {
                (Some(old), Some(new)) => old > new,
                _ => true,
            };
            let message = if was_head && ahead {
                format!(
                    "{}, the head of channel {} in the baseline, was removed: clusters running it are ahead of the new head{} and will never be offered an upgrade",
                    x.name(),
                    name.value,
                    new_head.map_or(String::new(), |h| format!(" {h}"))
                )
            } else if was_head {
                format!(
                    "{}, the head of channel {} in the baseline, was removed and the new head{} neither replaces nor skips it, nor has a skipRange containing it: clusters running it will never be offered an upgrade",
                    x.name(),
                    name.value,
                    new_head.map_or(String::new(), |h| format!(" {h}"))
                )
            } else {
                format!(
                    "{} was removed from channel {} and no entry left in it replaces, skips or has a skipRange containing it: clusters running {} will never be offered an upgrade",
                    x.name(),
                    name.value,
                    x.name()
                )
            };
            let at = new
                .doc
                .node
                .as_map()
                .and_then(|m| m.iter().find(|e| &*e.key == "entries"))
                .map_or(new.doc.node.span, |e| e.key_span);
            let version_hint = version
                .as_ref()
                .map_or(String::new(), |v| format!(" or a skipRange containing {v}"));
            let mut d = Diagnostic::new("OLM704", message);
            d.explained_by.clone_from(&dangling);
            out.push(
                d
                    .at(new.doc.file, at)
                    .pointer("/entries")
                    .package(Some(pkg.value))
                    .bundle(Some(x.name()))
                    .help(format!(
                        "OLM offers an installed bundle only the entries whose replaces or skips name it or whose skipRange contains its version. Add skips: [{}]{version_hint} to the entry that takes its place.",
                        x.name()
                    ))
                    .related(
                        format!("{} in channel {} of the baseline", x.name(), name.value),
                        Some(Location {
                            file: old.doc.file,
                            span: x.node.span,
                        }),
                    ),
            );
        }
    }
}
