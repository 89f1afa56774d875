//! OLM105 channel-graph (opm's head, cycle and stranded checks, with its skip semantics),
//! OLM110 replaces-missing and OLM111 dangling-bundle (upgrade-graph checks opm lacks).

use super::Ctx;
use crate::diag::{Diagnostic, Location};
use crate::model::{Channel, ChannelEntry};
use crate::semantics::{range, version};
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};
use std::collections::VecDeque;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.catalog.channels {
        channel(ctx, c, out);
    }
}

fn loc(e: &ChannelEntry<'_>) -> Option<Location> {
    Some(Location {
        file: e.file,
        span: e.name.map_or(e.node.span, |n| n.node.span),
    })
}

fn channel(ctx: &Ctx<'_>, c: &Channel<'_>, out: &mut Vec<Diagnostic>) {
    let file = c.doc.file;
    let pkg = c.package.map_or("", |p| p.value);
    let ch = c.name.map_or("", |n| n.value);
    // Named entries, first occurrence of each name (duplicates are OLM103).
    let mut seen_names = HashSet::new();
    let entries: Vec<&ChannelEntry<'_>> = c
        .entries
        .iter()
        .filter(|e| !e.name().is_empty() && seen_names.insert(e.name()))
        .collect();
    if entries.is_empty() {
        return;
    }
    let by_name: HashMap<&str, &ChannelEntry<'_>> = entries
        .iter()
        .filter_map(|e| Some((e.name?.value, *e)))
        .collect();
    let mut incoming: HashSet<&str> = HashSet::new();
    let mut skipped: HashSet<&str> = HashSet::new();
    for e in &entries {
        if let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) {
            incoming.insert(r.value);
        }
        for s in &e.skips {
            incoming.insert(s.value);
            skipped.insert(s.value);
        }
    }
    let d = |msg: String| {
        Diagnostic::new(
            "OLM105",
            format!("invalid channel {ch:?} of package {pkg:?}: {msg}"),
        )
        .package(Some(pkg))
    };
    let mut heads: Vec<&ChannelEntry<'_>> = entries
        .iter()
        .copied()
        .filter(|e| !incoming.contains(e.name()))
        .collect();
    heads.sort_by_key(|e| e.name());
    let mut reported_stranded: HashSet<&str> = HashSet::new();
    let head = match heads.as_slice() {
        [] => {
            out.push(
                d("no channel head found in graph".into())
                    .at(file, c.name.map_or(c.doc.node.span, |n| n.node.span))
                    .pointer("/name")
                    .help("Every entry is replaced or skipped by another, so the graph is a cycle. The newest bundle must not be named in any `replaces` or `skips`."),
            );
            None
        }
        [h] => Some(*h),
        many => {
            let names: Vec<&str> = many.iter().map(|e| e.name()).collect();
            let mut diag = d(format!("multiple channel heads found in graph: {}", names.join(", ")))
                .at(many.get(1).map_or(file, |e| e.file), many.get(1).and_then(|e| loc(e)).map_or(c.doc.node.span, |l| l.span))
                .pointer(many.get(1).map_or_else(|| "/entries/0".into(), |e| e.pointer("")))
                .help("Exactly one entry may be left unreplaced. Make the older heads part of the chain with `replaces:` or `skips:` on a newer entry (`skipRange` alone does not count as an edge).");
            for e in many {
                diag = diag.related(format!("head {}", e.name()), loc(e));
            }
            out.push(diag);
            None
        }
    };
    if let Some(head) = head {
        // Walk the replaces chain from the head, as opm's validateReplacesChain does.
        let mut remaining: HashSet<&str> = entries.iter().map(|e| e.name()).collect();
        let mut chain: Vec<&str> = Vec::new();
        let mut pos: HashMap<&str, usize> = HashMap::new();
        let mut cur = Some(head);
        while let Some(e) = cur {
            let n = e.name();
            pos.insert(n, chain.len());
            chain.push(n);
            remaining.remove(n);
            let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) else {
                break;
            };
            if skipped.contains(r.value) {
                break;
            }
            if let Some(&at) = pos.get(r.value) {
                let mut cycle: Vec<&str> = chain.get(at..).unwrap_or(&[]).to_vec();
                cycle.push(r.value);
                out.push(
                    d(format!("detected cycle in replaces chain of upgrade graph: {}", cycle.join(" -> ")))
                        .at(e.file, r.node.span)
                        .pointer(e.pointer("replaces"))
                        .help("An entry cannot (indirectly) replace itself; fix this `replaces` so the chain ends at the oldest bundle."),
                );
                remaining.clear();
                break;
            }
            cur = by_name.get(r.value).copied();
            if cur.is_none() {
                // The tail may replace a bundle that is gone (pruned catalogs do this).
                break;
            }
        }
        // Entries skipped by anyone are not stranded.
        remaining.retain(|n| !skipped.contains(n));
        if !remaining.is_empty() {
            let mut names: Vec<&str> = remaining.iter().copied().collect();
            names.sort_unstable();
            let first = names.first().and_then(|n| by_name.get(n));
            out.push(
                d(format!("channel contains one or more stranded bundles: {}", names.join(", ")))
                    .at(first.map_or(file, |e| e.file), first.and_then(|e| loc(e)).map_or(c.doc.node.span, |l| l.span))
                    .pointer(first.map_or_else(|| "/entries/0".into(), |e| e.pointer("")))
                    .help(format!(
                        "These entries are neither on the replaces chain from the head {:?} nor skipped by any entry, so no upgrade ever reaches or leaves them. Add them to the chain with `replaces:` or `skips:`, or remove them.",
                        head.name()
                    )),
            );
            reported_stranded.extend(names);
        }
        let tail = chain.last().copied();
        // A bundle directory's `replaces` is OLM802's; its `skips` naming bundles removed
        // from the repository long ago are the norm there, not a typo.
        let from_directory = entries.first().is_some_and(|e| e.from_directory);
        if !from_directory && ctx.bundles_known(c.package.map_or("", |p| p.value)) {
            replaces_missing(ctx, c, &entries, &by_name, tail, out);
        }
        dangling(ctx, c, &entries, head, &reported_stranded, out);
    }
}

/// OLM110: `replaces`/`skips` naming no bundle of the package (the chain's tail excepted).
fn replaces_missing(
    ctx: &Ctx<'_>,
    c: &Channel<'_>,
    entries: &[&ChannelEntry<'_>],
    by_name: &HashMap<&str, &ChannelEntry<'_>>,
    tail: Option<&str>,
    out: &mut Vec<Diagnostic>,
) {
    let pkg = c.package.map_or("", |p| p.value);
    let in_package = |n: &str| by_name.contains_key(n) || ctx.index.bundle.contains_key(&(pkg, n));
    type Site<'s> = (&'s str, String, crate::load::tree::Span, usize);
    let mut missing: std::collections::BTreeMap<&str, Vec<Site<'_>>> =
        std::collections::BTreeMap::new();
    for e in entries {
        let n = e.name.map_or("", |n| n.value);
        let mut targets: Vec<(&str, String, crate::load::tree::Span)> = Vec::new();
        if let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) {
            if Some(n) != tail {
                targets.push((r.value, e.pointer("replaces"), r.node.span));
            }
        }
        for (j, s) in e.skips.iter().enumerate() {
            if !s.value.is_empty() {
                targets.push((s.value, format!("{}/{j}", e.pointer("skips")), s.node.span));
            }
        }
        for (t, p, span) in targets {
            if !in_package(t) {
                missing.entry(t).or_default().push((n, p, span, e.file));
            }
        }
    }
    // One finding per missing name in this channel, listing every entry that names it.
    for (t, sites) in missing {
        let Some((first, pointer, span, first_file)) = sites.first().cloned() else {
            continue;
        };
        let names: Vec<&str> = sites.iter().map(|x| x.0).collect();
        let who = match names.as_slice() {
            [one] => (*one).to_string(),
            _ => format!("{} entries ({})", names.len(), names.join(", ")),
        };
        let ch = c.name.map_or("", |x| x.value);
        let hint = crate::suggest::closest(t, by_name.keys().copied().filter(|k| *k != t))
            .map(|k| format!(" Did you mean {k:?}?"))
            .unwrap_or_default();
        let mut d = Diagnostic::new("OLM110", format!("{who} of channel {ch:?} name {t:?}, which is not a bundle of package {pkg:?}"))
            .at(first_file, span)
            .pointer(pointer)
            .package(Some(pkg))
            .bundle(Some(first))
            .help(format!("If it is a typo, fix it: the upgrade edge from {t:?} is silently lost.{hint} If {t:?} was pruned from the catalog on purpose, keep the reference: clusters still running it upgrade through this edge (removing it strands them, see OLM704)."));
        for (n, _, sp, f) in sites.iter().skip(1) {
            d = d.related(
                format!("{n} names it too"),
                Some(crate::diag::Location {
                    file: *f,
                    span: *sp,
                }),
            );
        }
        out.push(d);
    }
}

/// OLM111: entries from which no sequence of upgrades (replaces, skips, skipRange) reaches the
/// channel head; users who installed them are stuck.
fn dangling(
    ctx: &Ctx<'_>,
    c: &Channel<'_>,
    entries: &[&ChannelEntry<'_>],
    head: &ChannelEntry<'_>,
    already: &HashSet<&str>,
    out: &mut Vec<Diagnostic>,
) {
    let pkg = c.package.map_or("", |p| p.value);
    let version_of = |n: &str| {
        let b = ctx
            .index
            .bundle
            .get(&(pkg, n))
            .and_then(|&i| ctx.catalog.bundles.get(i))?;
        version::parse_strict(b.version()?.value).ok()
    };
    let versions: HashMap<&str, semver::Version> = entries
        .iter()
        .filter_map(|e| Some((e.name(), version_of(e.name())?)))
        .collect();
    // upgrades_to[x] = entries y that a user on x can upgrade to.
    let mut upgrades_from: HashMap<&str, Vec<&str>> = HashMap::new(); // y -> [x...] (reverse)
    for y in entries {
        let yn = y.name();
        let mut sources: Vec<&str> = y.skips.iter().map(|s| s.value).collect();
        if let Some(r) = y.replaces {
            sources.push(r.value);
        }
        if let Some(range) = y.skip_range.and_then(|r| range::intervals_of(r.value)) {
            for (xn, v) in &versions {
                if *xn != yn && range.contains(v) {
                    sources.push(xn);
                }
            }
        }
        upgrades_from.insert(yn, sources);
    }
    let mut reach: HashSet<&str> = [head.name()].into_iter().collect();
    let mut queue = VecDeque::from([head.name()]);
    while let Some(y) = queue.pop_front() {
        for x in upgrades_from.get(y).map(Vec::as_slice).unwrap_or(&[]) {
            if reach.insert(x) {
                queue.push_back(x);
            }
        }
    }
    for e in entries {
        let n = e.name();
        if !reach.contains(n) && !already.contains(n) {
            out.push(
                Diagnostic::new("OLM111", format!("no upgrade path leads from {n} to the channel head {}", head.name()))
                    .at(e.file, e.name.map_or(e.node.span, |x| x.node.span))
                    .pointer(e.pointer(""))
                    .package(Some(pkg))
                    .bundle(Some(n))
                    .help("Clusters that installed this bundle can never upgrade. Have a newer entry `replaces`, `skips` or `skipRange` over it."),
            );
        }
    }
}
