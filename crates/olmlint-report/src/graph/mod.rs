//! `olmlint graph`: the upgrade graph of each channel as the checks see it (the same model and
//! edges: `replaces`, `skips`, and the entries a `skipRange` covers), with the run's findings
//! overlaid on the bundles and channels they concern.
//!
//! The graphs are plain data ([`PackageGraph`]); the stages after [`build`] and [`overlay`]
//! are pure: [`diff`] marks what changed since a baseline, [`collapse`] folds long linear
//! chains so that channels of hundreds of bundles stay readable, and the renderers
//! ([`mermaid`], [`dot`], [`svg`], [`markdown`]) draw them.

mod collapse;
mod diff;
mod dot;
mod layout;
mod markdown;
mod mermaid;
pub mod olmv1;
mod releases;
mod svg;

pub use collapse::collapse;
pub use diff::diff;
pub use dot::dot;
pub use markdown::{markdown, mermaid_too_large};
pub use mermaid::mermaid;
pub use svg::{escape_markup, page_defs, shorten, svg, svg_channel};

use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_model::Catalog;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    Replaces,
    Skips,
    SkipRange,
    /// Where OLM v1 moves installs of `to` when no channel is named ([`olmv1`]).
    Olmv1,
}

/// What a graph element is in a difference ([`diff`]); `None` outside one or when unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    Added,
    Removed,
    /// An entry whose `replaces` now names another bundle (the new edge; the old one is
    /// `Removed`).
    Repointed,
}

#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// The newer bundle (the entry declaring the edge).
    pub from: String,
    /// The bundle it upgrades from.
    pub to: String,
    pub kind: EdgeKind,
    /// The edge lies on a cycle of the channel's graph (replaces/skips).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cycle: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// How many edges this one stands for after [`collapse`] (1 otherwise).
    #[serde(skip_serializing_if = "is_one")]
    pub count: usize,
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: String,
    pub severity: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub name: String,
    pub version: Option<String>,
    /// False when the channel lists (or an edge names) a bundle the catalog does not have.
    pub exists: bool,
    /// Not replaced or skipped by another entry of the channel (opm's rule).
    pub head: bool,
    /// Deprecated by the package's `olm.deprecations` (the bundle itself) or by the legacy
    /// `olm.deprecated` property.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// An entry of the channel that the resolver's `sortChannel` drops: named in a `skips`,
    /// or not on the replaces chain from the unique head. OLM never picks it to satisfy a
    /// dependency (spec §3.3). Only set when the channel has one head and no cycle.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub off_chain: bool,
    pub findings: Vec<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// The bundles this node stands for after [`collapse`], newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChannelGraph {
    /// The channel document, for placing findings about the channel ([`overlay`]).
    #[serde(skip)]
    pub at: Option<olmlint_base::diag::Location>,
    pub name: String,
    pub default: bool,
    /// Deprecated by the package's `olm.deprecations`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Findings about the channel as a whole (no bundle named).
    pub findings: Vec<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// The channel's skipRange edges passed [`MAX_RANGE_EDGES`]: the later ranges are not
    /// drawn.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ranges_cut: bool,
}

/// The skipRange edges drawn per channel (a range covers up to every other entry).
pub const MAX_RANGE_EDGES: usize = 20_000;

#[derive(Debug, Clone, Serialize)]
pub struct PackageGraph {
    /// The catalog as the run names it (a path; one per OpenShift version in a repository of
    /// version catalogs).
    pub catalog: String,
    /// The catalog's scope in the run, for placing findings ([`overlay`]).
    #[serde(skip)]
    pub scope: usize,
    pub name: String,
    pub default_channel: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    pub channels: Vec<ChannelGraph>,
}

/// Which packages and channels to draw.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub package: Option<String>,
    pub channel: Option<String>,
}

fn finding(d: &Diagnostic) -> Finding {
    Finding {
        rule: d.rule.to_string(),
        severity: d.severity.as_str().to_string(),
        message: d.message.clone(),
    }
}

/// What a package's `olm.deprecations` deprecate: the package, channels, bundles.
#[derive(Default)]
struct Deprecated<'a> {
    package: bool,
    channels: BTreeSet<&'a str>,
    bundles: BTreeSet<&'a str>,
}

/// The graphs of a catalog's channels, from the model the checks use; [`overlay`] adds the
/// run's findings. `label` names the catalog, `scope` is its scope in the run.
pub fn build(cat: &Catalog<'_>, filter: &Filter, label: &str, scope: usize) -> Vec<PackageGraph> {
    let mut versions: HashMap<(&str, &str), &str> = HashMap::new();
    let mut bundles: BTreeSet<(&str, &str)> = BTreeSet::new();
    // Bundles deprecated by the legacy `olm.deprecated` property (never installed either).
    let mut legacy_deprecated: BTreeSet<(&str, &str)> = BTreeSet::new();
    for b in &cat.bundles {
        bundles.insert((b.package(), b.name()));
        if b.properties_of("olm.deprecated").next().is_some() {
            legacy_deprecated.insert((b.package(), b.name()));
        }
        if let Some(v) = b.version() {
            versions.insert((b.package(), b.name()), v.value);
        }
    }
    let mut defaults: BTreeMap<&str, &str> = BTreeMap::new();
    for p in &cat.packages {
        if let (Some(n), Some(d)) = (p.name, p.default_channel) {
            defaults.entry(n.value).or_insert(d.value);
        }
    }
    let mut deprecated: BTreeMap<&str, Deprecated<'_>> = BTreeMap::new();
    for d in &cat.deprecations {
        let Some(pkg) = d.package else { continue };
        let set = deprecated.entry(pkg.value).or_default();
        for e in &d.entries {
            match (e.schema.map(|s| s.value), e.name.map(|n| n.value)) {
                (Some("olm.package"), _) => set.package = true,
                (Some("olm.channel"), Some(n)) => {
                    set.channels.insert(n);
                }
                (Some("olm.bundle"), Some(n)) => {
                    set.bundles.insert(n);
                }
                _ => {}
            }
        }
    }
    let none = Deprecated::default();
    // Bundle-directory packages whose OpenShift indexes differ are drawn once per group of
    // releases instead of once from the union the model holds.
    let (per_release, replaced) = releases::per_release(cat, filter, label, scope);
    let mut out: BTreeMap<String, PackageGraph> = BTreeMap::new();
    for c in &cat.channels {
        let pkg = c.package.map_or("", |p| p.value);
        let name = c.name.map_or("", |n| n.value);
        if replaced.contains(pkg) {
            continue;
        }
        if filter.package.as_deref().is_some_and(|p| p != pkg)
            || filter.channel.as_deref().is_some_and(|x| x != name)
        {
            continue;
        }
        let dep = deprecated.get(pkg).unwrap_or(&none);
        // A template's package whose bundles are image references (not rendered here): whether
        // a bundle exists is unknown, so none is drawn as missing.
        let opaque = cat.opaque_packages.contains(pkg);
        let default_channel = defaults.get(pkg).map(|d| d.to_string());
        let entry = out.entry(pkg.to_string()).or_insert_with(|| PackageGraph {
            catalog: label.to_string(),
            scope,
            name: pkg.to_string(),
            default_channel: default_channel.clone(),
            deprecated: dep.package,
            channels: Vec::new(),
        });
        let entries: Vec<EntryView<'_>> = c
            .entries
            .iter()
            .map(|e| EntryView {
                name: e.name(),
                replaces: e.replaces.map(|r| r.value),
                skips: e.skips.iter().map(|s| s.value).collect(),
                skip_range: e.skip_range.map(|r| r.value),
            })
            .collect();
        let facts = Facts {
            version: &|b| versions.get(&(pkg, b)).map(|v| v.to_string()),
            exists: &|b| opaque || bundles.contains(&(pkg, b)),
            deprecated: &|b| dep.bundles.contains(b) || legacy_deprecated.contains(&(pkg, b)),
        };
        let at = olmlint_base::diag::Location {
            file: c.doc.file,
            span: c.doc.node.span,
        };
        entry.channels.push(channel(
            name,
            default_channel.as_deref() == Some(name),
            dep.channels.contains(name),
            Some(at),
            &entries,
            &facts,
        ));
    }
    let mut graphs: Vec<PackageGraph> = out.into_values().collect();
    graphs.extend(per_release);
    graphs
}

/// One channel entry, whatever it was read from (a catalog's channel, a semver template's
/// generated channel).
pub struct EntryView<'e> {
    pub name: &'e str,
    pub replaces: Option<&'e str>,
    pub skips: Vec<&'e str>,
    pub skip_range: Option<&'e str>,
}

/// What is known of a bundle, by name: its version, whether the catalog has it, whether it is
/// deprecated.
pub struct Facts<'f> {
    pub version: &'f dyn Fn(&str) -> Option<String>,
    pub exists: &'f dyn Fn(&str) -> bool,
    pub deprecated: &'f dyn Fn(&str) -> bool,
}

/// One channel's graph: its edges (skipRange edges bounded by [`MAX_RANGE_EDGES`]), heads,
/// cycles and the entries `sortChannel` drops.
pub fn channel(
    name: &str,
    default: bool,
    deprecated: bool,
    at: Option<olmlint_base::diag::Location>,
    entries: &[EntryView<'_>],
    facts: &Facts<'_>,
) -> ChannelGraph {
    let versions: Vec<Option<String>> = entries.iter().map(|e| (facts.version)(e.name)).collect();
    let edge = |from: &str, to: &str, kind| Edge {
        from: from.to_string(),
        to: to.to_string(),
        kind,
        cycle: false,
        change: None,
        count: 1,
    };
    // skipRange edges: each entry's version parsed once (not once per range), in version order
    // so that the edges come out oldest first.
    let mut by_version: Vec<(semver::Version, &str)> = entries
        .iter()
        .zip(&versions)
        .filter_map(|(e, v)| {
            let v = olmlint_semantics::version::parse_tolerant(v.as_deref()?).ok()?;
            Some((v, e.name))
        })
        .collect();
    by_version.sort_by(|a, b| olmlint_semantics::version::cmp(&a.0, &b.0));
    let (mut range_edges, mut ranges_cut) = (0usize, false);
    let mut edges = Vec::new();
    for e in entries {
        if let Some(r) = e.replaces.filter(|r| !r.is_empty()) {
            edges.push(edge(e.name, r, EdgeKind::Replaces));
        }
        for s in e.skips.iter().filter(|s| !s.is_empty()) {
            edges.push(edge(e.name, s, EdgeKind::Skips));
        }
        let Some(range) = e
            .skip_range
            .and_then(|r| olmlint_semantics::range::parse(r).ok())
        else {
            continue;
        };
        if range_edges >= MAX_RANGE_EDGES {
            // Hostile or not, n ranges over n entries are n² edges: the drawing stops here and
            // says so (the checks are not affected).
            ranges_cut = true;
            continue;
        }
        for (v, other) in &by_version {
            if *other != e.name && range.contains(v) {
                edges.push(edge(e.name, other, EdgeKind::SkipRange));
                range_edges += 1;
            }
        }
    }
    let names: BTreeSet<&str> = entries.iter().map(|e| e.name).collect();
    // The head: no other entry of the channel replaces or skips it (opm's rule).
    let targets: BTreeSet<&str> = edges
        .iter()
        .filter(|e| e.kind != EdgeKind::SkipRange && e.from != e.to)
        .map(|e| e.to.as_str())
        .collect();
    let node = |n: &str, version: Option<String>, head: bool| Node {
        name: n.to_string(),
        version,
        exists: (facts.exists)(n),
        head,
        deprecated: (facts.deprecated)(n),
        off_chain: false,
        findings: Vec::new(),
        change: None,
        folded: Vec::new(),
    };
    let mut nodes: Vec<Node> = entries
        .iter()
        .zip(versions)
        .map(|(e, v)| node(e.name, v, !targets.contains(e.name)))
        .collect();
    // Edges to bundles the channel does not list are drawn to a node of their own.
    for t in edges.iter().map(|e| e.to.as_str()).collect::<BTreeSet<_>>() {
        if !names.contains(t) {
            nodes.push(node(t, (facts.version)(t), false));
        }
    }
    let mut graph = ChannelGraph {
        at,
        name: name.to_string(),
        default,
        deprecated,
        nodes,
        edges,
        findings: Vec::new(),
        change: None,
        ranges_cut,
    };
    mark_cycles(&mut graph);
    mark_off_chain(&mut graph, entries);
    graph
}

/// The channels opm generates from a semver template (`semantics::semver_template`), drawn
/// like a catalog's: every bundle is the template's (none missing), versions as resolved.
pub fn generated(
    generated: &olmlint_semantics::semver_template::Generated,
    package: &str,
    versions: &HashMap<String, String>,
    filter: &Filter,
    label: &str,
    scope: usize,
) -> Option<PackageGraph> {
    if filter.package.as_deref().is_some_and(|p| p != package) {
        return None;
    }
    let facts = Facts {
        version: &|b| versions.get(b).cloned(),
        exists: &|_| true,
        deprecated: &|_| false,
    };
    let channels: Vec<ChannelGraph> = generated
        .channels
        .iter()
        .filter(|(name, _)| filter.channel.as_deref().is_none_or(|c| c == name.as_str()))
        .map(|(name, entries)| {
            let views: Vec<EntryView<'_>> = entries
                .iter()
                .map(|e| EntryView {
                    name: &e.name,
                    replaces: e.replaces.as_deref(),
                    skips: e.skips.iter().map(String::as_str).collect(),
                    skip_range: None,
                })
                .collect();
            channel(
                name,
                *name == generated.default_channel,
                false,
                None,
                &views,
                &facts,
            )
        })
        .collect();
    (!channels.is_empty()).then(|| PackageGraph {
        catalog: label.to_string(),
        scope,
        name: package.to_string(),
        default_channel: Some(generated.default_channel.clone()),
        deprecated: false,
        channels,
    })
}

/// Marks the replaces/skips edges inside a strongly connected component (a cycle; a
/// self-replacing entry included). Tarjan's algorithm, iteratively: channels can be long.
// Indices below come from enumerating vectors of the same length (n nodes, m edges), or
// from a name index built over those nodes: they are always in bounds.
#[allow(clippy::indexing_slicing)]
fn mark_cycles(g: &mut ChannelGraph) {
    let index: HashMap<&str, usize> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let n = g.nodes.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in g.edges.iter().filter(|e| e.kind != EdgeKind::SkipRange) {
        if let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            adj[a].push(b);
        }
    }
    let comp = strongly_connected(&adj);
    let mut size = vec![0usize; n];
    for &c in &comp {
        size[c] += 1;
    }
    for e in g.edges.iter_mut().filter(|e| e.kind != EdgeKind::SkipRange) {
        if let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            e.cycle = a == b || (comp[a] == comp[b] && size[comp[a]] > 1);
        }
    }
}

/// The strongly connected component of each vertex (iterative Tarjan).
// `adj` holds vertex numbers below `adj.len()` (callers build it so); every vector here has
// that length.
#[allow(clippy::indexing_slicing)]
pub(crate) fn strongly_connected(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    const UNSEEN: usize = usize::MAX;
    let (mut order, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut stack, mut on_stack) = (Vec::new(), vec![false; n]);
    let (mut counter, mut components) = (0, 0);
    for root in 0..n {
        if order[root] != UNSEEN {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if let Some(&w) = adj[v].get(*next) {
                *next += 1;
                if order[w] == UNSEEN {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    comp
}

/// `sortChannel`'s verdict on each entry: with one head and no cycle, the entries named in a
/// `skips` and those off the replaces chain from the head are dropped (never candidates).
fn mark_off_chain(g: &mut ChannelGraph, entries: &[EntryView<'_>]) {
    let node_heads: BTreeSet<&str> = g
        .nodes
        .iter()
        .filter(|x| x.head)
        .map(|x| x.name.as_str())
        .collect();
    let heads: Vec<&str> = entries
        .iter()
        .map(|e| e.name)
        .filter(|n| node_heads.contains(n))
        .collect();
    let ([head], false) = (heads.as_slice(), g.edges.iter().any(|e| e.cycle)) else {
        return;
    };
    let replaces: HashMap<&str, &str> = entries
        .iter()
        .filter_map(|e| Some((e.name, e.replaces?)))
        .collect();
    let skipped: BTreeSet<&str> = entries
        .iter()
        .flat_map(|e| e.skips.iter().copied())
        .collect();
    let mut chain: BTreeSet<&str> = BTreeSet::new();
    let mut at = Some(*head);
    while let Some(n) = at.filter(|n| chain.insert(n)) {
        at = replaces.get(n).copied();
    }
    let listed: BTreeSet<&str> = entries.iter().map(|e| e.name).collect();
    for node in &mut g.nodes {
        let n = node.name.as_str();
        node.off_chain = listed.contains(n) && (skipped.contains(n) || !chain.contains(n));
    }
}

/// Put the run's findings on the graphs: a finding about a bundle on its node in every
/// channel of its package in the same catalog; one about no bundle on the channel whose
/// document holds it. `scope_of` gives a finding's catalog (`None`: any catalog).
pub fn overlay(
    graphs: &mut [PackageGraph],
    diags: &[Diagnostic],
    scope_of: &dyn Fn(&Diagnostic) -> Option<usize>,
) {
    type Keyed<'d> = BTreeMap<(&'d str, &'d str), Vec<(Option<usize>, &'d Diagnostic)>>;
    let mut by_bundle: Keyed<'_> = BTreeMap::new();
    let mut by_package: BTreeMap<&str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        let Some(p) = d.package.as_deref() else {
            continue;
        };
        match d.bundle.as_deref() {
            Some(b) => by_bundle.entry((p, b)).or_default().push((scope_of(d), d)),
            None => by_package.entry(p).or_default().push(d),
        }
    }
    for p in graphs {
        let scope = p.scope;
        for c in &mut p.channels {
            for n in &mut c.nodes {
                let names = std::iter::once(&n.name).chain(&n.folded);
                n.findings = names
                    .filter_map(|name| by_bundle.get(&(p.name.as_str(), name.as_str())))
                    .flatten()
                    .filter(|(s, _)| s.is_none_or(|s| s == scope))
                    .map(|(_, d)| finding(d))
                    .collect();
            }
            let Some(at) = c.at else { continue };
            let inside = |d: &&&Diagnostic| {
                d.location.is_some_and(|l| {
                    l.file == at.file
                        && at.span.start() <= l.span.start()
                        && l.span.end() <= at.span.end()
                })
            };
            c.findings = by_package
                .get(p.name.as_str())
                .map(|ds| ds.iter().filter(inside).map(|d| finding(d)).collect())
                .unwrap_or_default();
        }
    }
}

/// The worst severity among findings.
pub(crate) fn worst(findings: &[Finding]) -> Option<&'static str> {
    let sev = |s: &str| Severity::parse(s).unwrap_or(Severity::Info);
    findings
        .iter()
        .map(|f| sev(&f.severity))
        .max()
        .map(Severity::as_str)
}

/// The findings' rule IDs, each once.
pub(crate) fn rules(findings: &[Finding]) -> String {
    let ids: BTreeSet<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
    ids.into_iter().collect::<Vec<_>>().join(" ")
}

/// A channel's title: package / channel, default, deprecated, channel-level rule IDs.
pub(crate) fn title(p: &PackageGraph, c: &ChannelGraph) -> String {
    let mut t = format!("{} / {}", p.name, c.name);
    if c.default {
        t.push_str(" (default)");
    }
    if c.deprecated || p.deprecated {
        t.push_str(" (deprecated)");
    }
    match c.change {
        Some(Change::Added) => t.push_str(" (added)"),
        Some(Change::Removed) => t.push_str(" (removed)"),
        _ => {}
    }
    if !c.findings.is_empty() {
        t.push_str(&format!(" [{}]", rules(&c.findings)));
    }
    if c.ranges_cut {
        t.push_str(&format!(
            " (skipRange edges after the first {MAX_RANGE_EDGES} not drawn)"
        ));
    }
    t
}

/// Whether graphs come from more than one catalog (then titles name the catalog).
pub fn many_catalogs(graphs: &[PackageGraph]) -> bool {
    graphs
        .windows(2)
        .any(|w| w.first().map(|p| &p.catalog) != w.last().map(|p| &p.catalog))
}

/// [`title`], with the catalog when the drawing holds several.
pub(crate) fn full_title(p: &PackageGraph, c: &ChannelGraph, many: bool) -> String {
    let t = title(p, c);
    if many {
        let catalog = if p.catalog.is_empty() {
            "."
        } else {
            &p.catalog
        };
        format!("{t} · {catalog}")
    } else {
        t
    }
}

/// A node's label lines: its name (or what it folds), then what is special about it.
pub(crate) fn node_lines(n: &Node) -> Vec<String> {
    let mut lines = vec![if n.folded.len() > 1 {
        format!(
            "{} … {}",
            n.folded.first().map_or("", String::as_str),
            n.folded.last().map_or("", String::as_str)
        )
    } else {
        n.name.clone()
    }];
    let mut notes = Vec::new();
    if n.folded.len() > 1 {
        notes.push(format!("{} bundles", n.folded.len()));
    }
    if !n.exists && n.folded.is_empty() {
        notes.push("not in catalog".to_string());
    }
    if n.deprecated {
        notes.push("deprecated".to_string());
    }
    if n.off_chain {
        notes.push("off chain".to_string());
    }
    match n.change {
        Some(Change::Added) => notes.push("added".to_string()),
        Some(Change::Removed) => notes.push("removed".to_string()),
        _ => {}
    }
    if !n.findings.is_empty() {
        notes.push(rules(&n.findings));
    }
    if !notes.is_empty() {
        lines.push(notes.join(" · "));
    }
    lines
}

/// The style class of a node: its worst finding, else what it is.
pub(crate) fn node_class(n: &Node) -> &'static str {
    if let Some(w) = worst(&n.findings) {
        return w;
    }
    match n.change {
        Some(Change::Added) => return "added",
        Some(Change::Removed) => return "removed",
        _ => {}
    }
    if !n.exists && n.folded.is_empty() {
        "missing"
    } else if n.deprecated {
        "deprecated"
    } else if n.off_chain {
        "offchain"
    } else {
        "bundle"
    }
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn components_of_a_cycle_and_a_chain() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 and 4 alone are not.
        let comp = strongly_connected(&[vec![1], vec![2], vec![0], vec![0], vec![]]);
        assert_eq!(comp[0], comp[1]);
        assert_eq!(comp[1], comp[2]);
        assert_ne!(comp[3], comp[0]);
        assert_ne!(comp[4], comp[3]);
    }
}
