//! How OLM v1 ranks a package's bundles (`slices.SortStableFunc` with `ByDeprecationFunc`
//! then `ByVersionAndRelease`) where it differs from what a catalog author expects:
//! OLM756 olmv1-version-tie: two bundles OLM v1 ranks equal (same version and release once
//! build metadata that is not a release is ignored): which one it installs depends on the
//! order `declcfg.LoadFS` returns them, which is not deterministic.
//! OLM757 olmv1-default-pick: the bundle a ClusterExtension naming only the package gets
//! is not the head of `defaultChannel`, which OLM v1 never reads.

use super::picks::{Facts, Packages};
use crate::Ctx;
use olmlint_base::diag::Diagnostic;
use std::collections::HashSet;

pub fn check(ctx: &Ctx<'_>, packages: &Packages<'_, '_>, out: &mut Vec<Diagnostic>) {
    for f in &packages.facts {
        if ctx.catalog.opaque_packages.contains(&f.view.name) {
            continue;
        }
        ties(f, out);
        default_pick(f, out);
    }
}

/// OLM756: each bundle that ranks equal to the one before it (only bundles with a version:
/// those without one are opm errors already). Two bundles with the very same version string
/// are OLM106's.
fn ties(f: &Facts<'_, '_>, out: &mut Vec<Diagnostic>) {
    let ranked = &f.view.ranked;
    for (r, &p) in ranked.order.iter().enumerate() {
        if !ranked.tie_with_previous.get(r).copied().unwrap_or(false) {
            continue;
        }
        let Some(q) = r.checked_sub(1).and_then(|q| ranked.order.get(q)) else {
            continue;
        };
        let (Some(a), Some(b)) = (f.view.bundles.get(*q), f.view.bundles.get(p)) else {
            continue;
        };
        let (Ok(va), Ok(vb)) = (&a.version, &b.version) else {
            continue;
        };
        let (ta, tb) = (a.bundle.version(), b.bundle.version());
        if ta.map(|t| t.value) == tb.map(|t| t.value) {
            continue;
        }
        let Some(tb) = tb else { continue };
        let top = ranked.order.first() == Some(q);
        out.push(
            Diagnostic::new(
                "OLM756",
                format!(
                    "OLM v1 ranks {} (version {}) and {} (version {}) equal: both are {} once build metadata that is not a release is ignored, so which of them it installs depends on the order it reads the catalog's files{}",
                    b.name,
                    tb.value,
                    a.name,
                    a.bundle.version().map_or("", |t| t.value),
                    ranked_as(va),
                    if top { ", and they are the package's highest version: a ClusterExtension naming only the package may get either" } else { "" }
                ),
            )
            .at(version_file(b.bundle), tb.node.span)
            .pointer(if b.bundle.from_directory {
                "/spec/version".to_string()
            } else {
                format!("/properties/{}/value/version", version_property(b.bundle))
            })
            .package(Some(&f.view.name))
            .bundle(Some(b.name))
            .related(
                format!("{} ranks as {}", a.name, ranked_as(vb)),
                Some(olmlint_base::diag::Location {
                    file: a.bundle.doc.file,
                    span: a.bundle.doc.node.span,
                }),
            )
            .help("OLM v1 reads build metadata as the bundle's release only when it is dot-separated numbers or identifiers (`1.0.0+2`, `1.0.0+el9.1`); other build metadata (`+001`, leading zeros) is ignored, as semver says, while opm's duplicate-version check counts it. Give the bundles different versions, or a release OLM v1 can read."),
        );
    }
}

/// A version as OLM v1 ranks it: precedence (no build metadata), and the release if any.
fn ranked_as(v: &olmlint_semantics::olmv1::version::VersionRelease) -> String {
    let mut core = v.version.clone();
    core.build = semver::BuildMetadata::EMPTY;
    match &v.release {
        Some(r) if !r.is_empty() => format!("{core} release {r}"),
        _ => core.to_string(),
    }
}

/// The file of the bundle's first `olm.package` property (a bundle directory's: the CSV).
fn version_file(b: &olmlint_model::Bundle<'_>) -> usize {
    b.properties_of("olm.package")
        .next()
        .map_or(b.doc.file, |p| p.file)
}

/// Index of the bundle's first `olm.package` property, for the JSON pointer.
fn version_property(b: &olmlint_model::Bundle<'_>) -> usize {
    b.properties
        .iter()
        .position(|p| p.ty() == "olm.package")
        .unwrap_or(0)
}

/// OLM757: the package's default pick against `defaultChannel`'s head (opm's head: the
/// entry no other entry of the channel replaces or skips; only when there is exactly one).
fn default_pick(f: &Facts<'_, '_>, out: &mut Vec<Diagnostic>) {
    let Some(pkg) = f.view.package else { return };
    let Some(dc) = pkg.default_channel else {
        return;
    };
    let Some(channel) = f
        .view
        .channel(dc.value)
        .and_then(|c| f.view.channels.get(c))
    else {
        return;
    };
    let Some(pick) = f.view.default_pick().and_then(|p| f.view.bundles.get(p)) else {
        return;
    };
    let Some(head) = single_head(channel.channel) else {
        return;
    };
    // A pick of the default channel itself that is not its head: an entry there replaces
    // or skips a higher version, which is OLM758's finding. A pick that ranks equal to the
    // head: OLM756's.
    let head_pos = f.view.bundle(head);
    let pick_pos = f.view.default_pick();
    let tied = matches!((pick_pos, head_pos), (Some(p), Some(h)) if f.view.compare(p, h) == std::cmp::Ordering::Equal);
    if pick.name == head
        || pick.version.is_err()
        || tied
        || channel
            .channel
            .entries
            .iter()
            .any(|e| e.name() == pick.name)
    {
        return;
    }
    let in_channels: Vec<&str> = f
        .view
        .channels
        .iter()
        .filter(|c| c.channel.entries.iter().any(|e| e.name() == pick.name))
        .map(|c| c.name)
        .collect();
    let place = match in_channels.as_slice() {
        [] => "in no channel".to_string(),
        [one] => format!("in channel {one}"),
        many => format!("in channels {}", many.join(", ")),
    };
    let head_version = f
        .view
        .bundle(head)
        .and_then(|p| f.view.bundles.get(p))
        .and_then(|b| b.version_text())
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    out.push(
        Diagnostic::new(
            "OLM757",
            format!(
                "OLM v1 installs {} ({}, {place}) for a ClusterExtension that names only the package, not {head}{head_version}, the head of defaultChannel {}: OLM v1 never reads defaultChannel and takes the highest version of any channel{}",
                pick.name,
                pick.version_text().unwrap_or_default(),
                dc.value,
                if pick.deprecated { " (deprecated bundles rank last, so every other bundle is deprecated too)" } else { "" },
            ),
        )
        .at(pkg.doc.file, dc.node.span)
        .pointer("/defaultChannel")
        .package(Some(&f.view.name))
        .bundle(Some(pick.name))
        .help("Users who follow the default channel with OLM v0 get its head; with OLM v1 they get the highest version unless they name a channel (spec.source.catalog.channels) or a version range. If that bundle is a prerelease or from an unsupported channel, tell OLM v1 users to name the channel, or deprecate the bundle (olm.deprecations ranks it last), or move it to a catalog of its own."),
    );
}

/// The one entry of `channel` that no other entry replaces or skips, if there is one.
fn single_head<'a>(channel: &olmlint_model::Channel<'a>) -> Option<&'a str> {
    let replaced: HashSet<&str> = channel
        .entries
        .iter()
        .flat_map(|e| e.replaces.iter().chain(e.skips.iter()).map(|s| s.value))
        .collect();
    let mut heads = channel
        .entries
        .iter()
        .map(olmlint_model::ChannelEntry::name)
        .filter(|n| !replaced.contains(n));
    let head = heads.next()?;
    heads.next().is_none().then_some(head)
}
