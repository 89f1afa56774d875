//! OLM105 channel-graph (opm's head, cycle and stranded checks, with its skip semantics),
//! OLM110 replaces-missing and OLM111 dangling-bundle (upgrade-graph checks opm lacks).

use super::Ctx;
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_model::{Channel, ChannelEntry};
use olmlint_semantics::{range, version};
use std::collections::VecDeque;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let channels = &ctx.catalog.channels;
    for (i, c) in channels.iter().enumerate() {
        // The run's deadline (`--timeout`): the channels left are reported as not checked.
        if ctx.config.expired() {
            out.push(super::timeout_finding(
                ctx,
                format!(
                    "the upgrade graphs of {} of {} channels were not checked",
                    channels.len() - i,
                    channels.len()
                ),
            ));
            return;
        }
        channel(ctx, c, out);
    }
}

fn loc(e: &ChannelEntry<'_>) -> Option<Location> {
    Some(Location {
        file: e.file,
        span: e.name.map_or(e.node.span, |n| n.node.span),
    })
}

/// One channel's upgrade graph: its head, the replaces chain from it, the stranded entries,
/// then OLM110 and OLM111 on the entries.
fn channel(ctx: &Ctx<'_>, c: &Channel<'_>, out: &mut Vec<Diagnostic>) {
    let Some(g) = ChannelGraph::new(c) else {
        return;
    };
    let Some(head) = g.head(out) else {
        return;
    };
    let (chain, remaining) = g.replaces_chain(head, out);
    let reported_stranded = g.stranded(head, remaining, out);
    let tail = chain.last().copied();
    // A bundle directory's `replaces` is OLM802's; its `skips` naming bundles removed
    // from the repository long ago are the norm there, not a typo.
    let from_directory = g.entries.first().is_some_and(|e| e.from_directory);
    if !from_directory && ctx.bundles_known(g.pkg) {
        replaces_missing(ctx, c, &g.entries, &g.by_name, tail, out);
    }
    dangling(ctx, c, &g.entries, head, &reported_stranded, out);
}

/// A channel's named entries and the edges between them, as opm's channel checks see them.
struct ChannelGraph<'c, 'a> {
    c: &'c Channel<'a>,
    pkg: &'a str,
    ch: &'a str,
    /// Named entries, first occurrence of each name (duplicates are OLM103).
    entries: Vec<&'c ChannelEntry<'a>>,
    by_name: HashMap<&'a str, &'c ChannelEntry<'a>>,
    /// Names some entry replaces or skips.
    incoming: HashSet<&'a str>,
    /// Names some entry skips.
    skipped: HashSet<&'a str>,
}

impl<'c, 'a> ChannelGraph<'c, 'a> {
    /// The graph of `c`, or `None` when no entry has a name.
    fn new(c: &'c Channel<'a>) -> Option<Self> {
        let mut seen_names = HashSet::new();
        let entries: Vec<&ChannelEntry<'_>> = c
            .entries
            .iter()
            .filter(|e| !e.name().is_empty() && seen_names.insert(e.name()))
            .collect();
        if entries.is_empty() {
            return None;
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
        Some(ChannelGraph {
            c,
            pkg: c.package.map_or("", |p| p.value),
            ch: c.name.map_or("", |n| n.value),
            entries,
            by_name,
            incoming,
            skipped,
        })
    }

    /// An OLM105 finding about this channel.
    fn d(&self, msg: String) -> Diagnostic {
        let (pkg, ch) = (self.pkg, self.ch);
        Diagnostic::new(
            "OLM105",
            format!("invalid channel {ch:?} of package {pkg:?}: {msg}"),
        )
        .package(Some(pkg))
    }

    /// The one entry nothing replaces or skips; none (a cycle) or several are OLM105.
    fn head(&self, out: &mut Vec<Diagnostic>) -> Option<&'c ChannelEntry<'a>> {
        let (c, file) = (self.c, self.c.doc.file);
        let mut heads: Vec<&ChannelEntry<'_>> = self
            .entries
            .iter()
            .copied()
            .filter(|e| !self.incoming.contains(e.name()))
            .collect();
        heads.sort_by_key(|e| e.name());
        match heads.as_slice() {
            [] => {
                out.push(
                    self.d("no channel head found in graph".into())
                        .at(file, c.name.map_or(c.doc.node.span, |n| n.node.span))
                        .pointer("/name")
                        .help("Every entry is replaced or skipped by another, so the graph is a cycle. The newest bundle must not be named in any `replaces` or `skips`."),
                );
                None
            }
            [h] => Some(*h),
            many => {
                let names: Vec<&str> = many.iter().map(|e| e.name()).collect();
                let mut diag = self.d(format!("multiple channel heads found in graph: {}", names.join(", ")))
                    .at(many.get(1).map_or(file, |e| e.file), many.get(1).and_then(|e| loc(e)).map_or(c.doc.node.span, |l| l.span))
                    .pointer(many.get(1).map_or_else(|| "/entries/0".into(), |e| e.pointer("")))
                    .help("Exactly one entry may be left unreplaced. Make the older heads part of the chain with `replaces:` or `skips:` on a newer entry (`skipRange` alone does not count as an edge).");
                for e in many {
                    diag = diag.related(format!("head {}", e.name()), loc(e));
                }
                out.push(diag);
                None
            }
        }
    }

    /// Walks the replaces chain from the head, as opm's validateReplacesChain does (a cycle is
    /// OLM105): the chain, and the entries it did not reach (none after a cycle).
    fn replaces_chain(
        &self,
        head: &'c ChannelEntry<'a>,
        out: &mut Vec<Diagnostic>,
    ) -> (Vec<&'a str>, HashSet<&'a str>) {
        let mut remaining: HashSet<&str> = self.entries.iter().map(|e| e.name()).collect();
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
            if self.skipped.contains(r.value) {
                break;
            }
            if let Some(&at) = pos.get(r.value) {
                let mut cycle: Vec<&str> = chain.get(at..).unwrap_or(&[]).to_vec();
                cycle.push(r.value);
                out.push(
                    self.d(format!("detected cycle in replaces chain of upgrade graph: {}", cycle.join(" -> ")))
                        .at(e.file, r.node.span)
                        .pointer(e.pointer("replaces"))
                        .help("An entry cannot (indirectly) replace itself; fix this `replaces` so the chain ends at the oldest bundle."),
                );
                remaining.clear();
                break;
            }
            cur = self.by_name.get(r.value).copied();
            if cur.is_none() {
                // The tail may replace a bundle that is gone (pruned catalogs do this).
                break;
            }
        }
        (chain, remaining)
    }

    /// OLM105 for the entries neither on the chain nor skipped by anyone; returns their names
    /// (OLM111 does not report them again).
    fn stranded(
        &self,
        head: &ChannelEntry<'_>,
        mut remaining: HashSet<&'a str>,
        out: &mut Vec<Diagnostic>,
    ) -> HashSet<&'a str> {
        let mut reported_stranded: HashSet<&str> = HashSet::new();
        // Entries skipped by anyone are not stranded.
        remaining.retain(|n| !self.skipped.contains(n));
        if remaining.is_empty() {
            return reported_stranded;
        }
        let (c, file) = (self.c, self.c.doc.file);
        let mut names: Vec<&str> = remaining.iter().copied().collect();
        names.sort_unstable();
        let first = names.first().and_then(|n| self.by_name.get(n));
        out.push(
            self.d(format!("channel contains one or more stranded bundles: {}", names.join(", ")))
                .at(first.map_or(file, |e| e.file), first.and_then(|e| loc(e)).map_or(c.doc.node.span, |l| l.span))
                .pointer(first.map_or_else(|| "/entries/0".into(), |e| e.pointer("")))
                .help(format!(
                    "These entries are neither on the replaces chain from the head {:?} nor skipped by any entry, so no upgrade ever reaches or leaves them. Add them to the chain with `replaces:` or `skips:`, or remove them.",
                    head.name()
                )),
        );
        reported_stranded.extend(names);
        reported_stranded
    }
}

/// Where an entry names a missing bundle: (entry, field naming it, pointer, span, file).
type Site<'s> = (
    &'s str,
    &'static str,
    String,
    olmlint_base::tree::Span,
    usize,
);

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
    let mut missing: std::collections::BTreeMap<&str, Vec<Site<'_>>> =
        std::collections::BTreeMap::new();
    for e in entries {
        let n = e.name.map_or("", |n| n.value);
        let mut targets: Vec<(&str, &'static str, String, olmlint_base::tree::Span)> = Vec::new();
        if let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) {
            if Some(n) != tail {
                targets.push((r.value, "replaces", e.pointer("replaces"), r.node.span));
            }
        }
        for (j, s) in e.skips.iter().enumerate() {
            if !s.value.is_empty() {
                let p = format!("{}/{j}", e.pointer("skips"));
                targets.push((s.value, "skips", p, s.node.span));
            }
        }
        for (t, field, p, span) in targets {
            if !in_package(t) {
                missing
                    .entry(t)
                    .or_default()
                    .push((n, field, p, span, e.file));
            }
        }
    }
    // One finding per missing name in this channel, listing every entry that names it; the
    // names for "did you mean" indexed once per channel, not compared whole per missing name.
    let known: Option<olmlint_base::suggest::Names<'_>> =
        (!missing.is_empty()).then(|| olmlint_base::suggest::Names::new(by_name.keys().copied()));
    for (t, sites) in missing {
        let Some((first, _, pointer, span, first_file)) = sites.first().cloned() else {
            continue;
        };
        let ch = c.name.map_or("", |x| x.value);
        let who = naming(ch, t, &sites);
        // `t` names no entry of the channel, so it is not among the candidates.
        let hint = known
            .as_ref()
            .and_then(|n| n.closest(t))
            .map(|k| format!(" Did you mean {k:?}?"))
            .unwrap_or_default();
        let mut d = Diagnostic::new("OLM110", format!("{who}, which is not a bundle of package {pkg:?}"))
            .at(first_file, span)
            .pointer(pointer)
            .package(Some(pkg))
            .bundle(Some(first))
            .help(format!("If it is a typo, fix it: the upgrade edge from {t:?} is silently lost.{hint} If {t:?} was pruned from the catalog on purpose, keep the reference: clusters still running it upgrade through this edge (removing it strands them, see OLM704)."));
        for (n, field, _, sp, f) in sites.iter().skip(1) {
            d = d.related(
                format!("{n} {field} it too"),
                Some(olmlint_base::diag::Location {
                    file: *f,
                    span: *sp,
                }),
            );
        }
        out.push(d);
    }
}

/// OLM110's subject and verb: which entries of channel `ch` name `t`, and in which field
/// (`foo.v2 in channel "beta" replaces "foo.v1"`; several entries: `2 entries in channel
/// "beta" (foo.v2, foo.v3) skip "foo.v1"`, each with its field when the fields differ).
fn naming(ch: &str, t: &str, sites: &[Site<'_>]) -> String {
    let fields: std::collections::BTreeSet<&str> = sites.iter().map(|x| x.1).collect();
    match (sites, fields.len()) {
        ([(one, field, ..)], _) => format!("{one} in channel {ch:?} {field} {t:?}"),
        (_, 1) => {
            let names: Vec<&str> = sites.iter().map(|x| x.0).collect();
            // "replaces"/"skips" as a plural verb: "replace"/"skip".
            let verb = sites.first().map_or("", |x| x.1.trim_end_matches('s'));
            format!(
                "{} entries in channel {ch:?} ({}) {verb} {t:?}",
                names.len(),
                names.join(", ")
            )
        }
        _ => {
            let names: Vec<String> = sites.iter().map(|x| format!("{} {}", x.0, x.1)).collect();
            format!(
                "{} entries in channel {ch:?} ({}) name {t:?}",
                names.len(),
                names.join(", ")
            )
        }
    }
}

/// OLM111: entries from which no sequence of upgrades (replaces, skips, skipRange) reaches the
/// channel head; users who installed them are stuck.
///
/// The walk goes backwards from the head. A `skipRange` is not expanded into one edge per
/// version it covers (20 000 entries with `skipRange: '<version'` made 200 million edges,
/// 35 s and 3.3 GB): the entries are sorted by version once, each interval of a range is a
/// run of that order found by binary search, and the run is read only for entries not
/// reached yet, each of which leaves the order when reached ([`Unreached`]); a range text
/// is expanded once. The work is O((entries + intervals of distinct ranges) · log entries).
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
    let by_name: HashMap<&str, &ChannelEntry<'_>> =
        entries.iter().map(|e| (e.name(), *e)).collect();
    // The entries with a version, in version order, and each one's place in it.
    let mut sorted: Vec<(semver::Version, &str)> = entries
        .iter()
        .filter_map(|e| Some((version_of(e.name())?, e.name())))
        .collect();
    sorted.sort_by(|a, b| version::cmp(&a.0, &b.0));
    let mut walk = Walk {
        place: sorted
            .iter()
            .enumerate()
            .map(|(i, (_, n))| (*n, i))
            .collect(),
        unreached: Unreached::new(sorted.len()),
        reach: HashSet::new(),
        queue: VecDeque::new(),
        searches: 0,
    };
    walk.arrive(head.name());
    let mut expanded: HashSet<&str> = HashSet::new();
    while let Some(y) = walk.queue.pop_front() {
        // The entries a user can upgrade to `y` from: its `skips`, its `replaces`, and the
        // versions its `skipRange` holds.
        let Some(e) = by_name.get(y) else { continue };
        for s in &e.skips {
            walk.arrive(s.value);
        }
        if let Some(r) = e.replaces {
            walk.arrive(r.value);
        }
        // A range text expanded once has reached every entry it holds: the same text on other
        // entries (often one alias on all of them) adds nothing.
        let Some(text) = e
            .skip_range
            .map(|r| r.value)
            .filter(|t| expanded.insert(*t))
        else {
            continue;
        };
        let Some(range) = range::intervals_of(text) else {
            continue;
        };
        for iv in range.intervals() {
            walk.searches += 1;
            let from = sorted.partition_point(|(v, _)| version::cmp(v, iv.lower()).is_lt());
            let to = iv.upper().map_or(sorted.len(), |hi| {
                sorted.partition_point(|(v, _)| version::cmp(v, hi).is_lt())
            });
            let mut i = walk.unreached.first_from(from);
            while i < to {
                if let Some((_, n)) = sorted.get(i) {
                    walk.arrive(n);
                }
                i = walk.unreached.first_from(i + 1);
            }
        }
    }
    olmlint_base::timings::work(
        olmlint_base::timings::Work::UpgradePaths,
        (sorted.len() + walk.reach.len() + walk.searches) as u64,
    );
    let reach = walk.reach;
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

/// The backward walk of [`dangling`]: the names reached, those still to expand, and the
/// versioned entries not reached yet.
struct Walk<'a> {
    /// Name → position in the version order.
    place: HashMap<&'a str, usize>,
    unreached: Unreached,
    reach: HashSet<&'a str>,
    queue: VecDeque<&'a str>,
    /// Range intervals searched in the version order (counted work).
    searches: usize,
}

impl<'a> Walk<'a> {
    fn arrive(&mut self, n: &'a str) {
        if self.reach.insert(n) {
            if let Some(&i) = self.place.get(n) {
                self.unreached.remove(i);
            }
            self.queue.push_back(n);
        }
    }
}

/// The positions `0..n` not removed yet, with the first one at or after a position found in
/// near-constant amortised time (a union-find over "next position still here").
struct Unreached {
    next: Vec<usize>,
}

impl Unreached {
    fn new(n: usize) -> Self {
        Unreached {
            next: (0..=n).collect(),
        }
    }

    fn remove(&mut self, i: usize) {
        if let Some(slot) = self.next.get_mut(i) {
            *slot = i + 1;
        }
    }

    /// The first position at or after `i` still here (`n` when none is).
    fn first_from(&mut self, i: usize) -> usize {
        let last = self.next.len().saturating_sub(1);
        let mut root = i.min(last);
        while let Some(&n) = self.next.get(root).filter(|&&n| n != root) {
            root = n;
        }
        // Path compression: every position passed now points at the answer.
        let mut cur = i.min(last);
        while cur != root {
            let Some(slot) = self.next.get_mut(cur) else {
                break;
            };
            cur = std::mem::replace(slot, root);
        }
        root
    }
}
