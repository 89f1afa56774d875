//! OLM v1's upgrade edges where they strand installs (`catalogmetadata/filter/successors.go`
//! `legacySuccessor`, then the resolver's ranking; olmv1 spec §3):
//! OLM758 olmv1-no-upgrade: entries replace, skip or skipRange a bundle, so OLM v0 upgrades
//! from it, but every one of them ranks below it (a lower version, or deprecated), and OLM v1
//! moves only to a better-ranked bundle: its installs stay where they are.
//! OLM759 olmv1-removed-without-successor: with `--baseline`, a bundle removed from the
//! catalog that no remaining entry replaces, skips or skipRanges: OLM v1 then fails every
//! resolution of the extensions that installed it ("error upgrading from currently
//! installed version …").

use super::picks::{Facts, Packages};
use crate::Ctx;
use olmlint_base::diag::Diagnostic;
use olmlint_model::olmv1::{Edge, EdgeKind, PackageView, SuccessorIndex};

pub fn check(ctx: &Ctx<'_>, packages: &Packages<'_, '_>, out: &mut Vec<Diagnostic>) {
    for f in &packages.facts {
        if ctx.catalog.opaque_packages.contains(&f.view.name) {
            continue;
        }
        no_upgrade(f, out);
    }
    if let Some(baseline) = ctx.baseline {
        removed(baseline.catalog, packages, out);
    }
}

/// OLM758: bundles OLM v0 upgrades from but OLM v1 does not ([`Facts::held_back`]).
fn no_upgrade(f: &Facts<'_, '_>, out: &mut Vec<Diagnostic>) {
    for (p, edges) in &f.held_back {
        let Some(b) = f.view.bundles.get(*p) else {
            continue;
        };
        let Some(first) = edges.first() else { continue };
        let lower: Vec<String> = edges.iter().take(3).map(|e| describe(&f.view, e)).collect();
        let more = edges.len().saturating_sub(3);
        let (file, span, pointer) = entry_location(&f.view, first);
        out.push(
            Diagnostic::new(
                "OLM758",
                format!(
                    "OLM v0 upgrades installs of {} ({}) to {}{}, but OLM v1 never moves them: every bundle that replaces, skips or skipRanges it ranks below it, and OLM v1 moves only to a better-ranked bundle (a higher version; deprecated bundles rank last)",
                    b.name,
                    b.version_text().unwrap_or_default(),
                    lower.join("; "),
                    if more > 0 { format!("; and {more} more") } else { String::new() },
                ),
            )
            .at(file, span)
            .pointer(pointer)
            .package(Some(&f.view.name))
            .bundle(Some(b.name))
            .help("OLM v1 ranks the successors of the installed bundle together with the installed version itself and installs the best: a successor with a lower version than what it replaces (a numbering that went backwards), or a deprecated one, loses to staying put. Give the successor a higher version than what it replaces, or deprecate nothing that is the only way on."),
        );
    }
}

/// `"<bundle> (<version>, <why it ranks lower>) via <channel>'s <field>"`.
fn describe(view: &PackageView<'_, '_>, e: &Edge) -> String {
    let Some(b) = view.bundles.get(e.bundle) else {
        return String::new();
    };
    let channel = view.channels.get(e.channel).map_or("", |c| c.name);
    let field = match e.kind {
        EdgeKind::Replaces => "replaces",
        EdgeKind::Skips => "skips",
        EdgeKind::SkipRange => "skipRange",
    };
    format!(
        "{} ({}{}, {field} in channel {channel})",
        b.name,
        b.version_text()
            .unwrap_or_else(|| "without a version".into()),
        if b.deprecated { ", deprecated" } else { "" },
    )
}

/// Where an edge is declared: its entry's `replaces`, `skips` or `skipRange`.
fn entry_location(
    view: &PackageView<'_, '_>,
    e: &Edge,
) -> (usize, olmlint_base::tree::Span, String) {
    let entry = view
        .channels
        .get(e.channel)
        .and_then(|c| c.channel.entries.get(e.entry));
    match entry {
        Some(entry) => {
            let (node, field) = match e.kind {
                EdgeKind::Replaces => (entry.replaces.map(|s| s.node), "replaces"),
                EdgeKind::Skips => (entry.skips.first().map(|s| s.node), "skips"),
                EdgeKind::SkipRange => (entry.skip_range.map(|s| s.node), "skipRange"),
            };
            (
                entry.file,
                node.map_or(entry.node.span, |n| n.span),
                entry.pointer(field),
            )
        }
        None => (0, olmlint_base::tree::Span::new(0, 0), String::new()),
    }
}

/// OLM759: bundles of the baseline that are gone, with nothing left to upgrade them.
fn removed(
    old: &olmlint_model::Catalog<'_>,
    packages: &Packages<'_, '_>,
    out: &mut Vec<Diagnostic>,
) {
    let mut indexes: std::collections::HashMap<&str, SuccessorIndex<'_, '_, '_>> =
        std::collections::HashMap::new();
    for b in &old.bundles {
        let Some(f) = packages.get(b.package()) else {
            continue;
        };
        if f.view.bundle(b.name()).is_some() || b.name().is_empty() {
            continue;
        }
        let version = b
            .version()
            .and_then(|v| olmlint_semantics::version::parse_strict(v.value).ok());
        let index = indexes
            .entry(b.package())
            .or_insert_with(|| SuccessorIndex::new(&f.view));
        if !index
            .successors(Some(b.name()), version.as_ref(), None)
            .is_empty()
        {
            continue;
        }
        let anchor = f
            .view
            .package
            .map(|p| (p.doc.file, p.doc.node.span))
            .or_else(|| {
                f.view
                    .bundles
                    .first()
                    .map(|b| (b.bundle.doc.file, b.bundle.doc.node.span))
            });
        let mut d = Diagnostic::new(
            "OLM759",
            format!(
                "{} ({}) was removed and no remaining entry replaces, skips or skipRanges it: OLM v1 fails every resolution of the ClusterExtensions that installed it (\"error upgrading from currently installed version {:?}: no bundles found for package {:?}\") and stops reconciling them",
                b.name(),
                b.version().map_or("no version", |v| v.value),
                b.version().map_or("", |v| v.value),
                b.package(),
            ),
        )
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help("Keep an upgrade path for every bundle users may have installed: add `skips: [<removed>]` or a skipRange covering its version to the entry that should take its installs over (the bundle itself may stay removed).");
        if let Some((file, span)) = anchor {
            d = d.at(file, span);
        }
        out.push(d);
    }
}
