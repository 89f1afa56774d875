//! What OLM v1 installs from each package without being told a version: the facts the
//! catalog rules of the family share, computed once per package.
//!
//! A bundle is a *default pick* when a ClusterExtension that pins no version gets it:
//! - the package's best-ranked bundle (no channels named: operator-controller never reads
//!   `defaultChannel`, every bundle of the package competes);
//! - a channel's best-ranked entry (the channel named);
//! - the upgrade target of another bundle (policy CatalogProvided, no channels named).
//!
//! There is no fallback after selection (`resolve/catalog.go`): a default pick that OLM v1
//! then refuses breaks every unpinned ClusterExtension of the package.

use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_model::olmv1::{Edge, EdgeKind, PackageView, SuccessorIndex, UpgradeTargets};
use std::collections::HashMap;
use std::collections::HashSet;

/// Why OLM v1 picks a bundle by default (the first reason found).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The package's best-ranked bundle.
    Package,
    /// The best-ranked entry of the channel at this position of the view.
    Channel(usize),
    /// Where installs of the bundle at this position of the view upgrade to.
    UpgradeFrom(usize),
}

/// One package as OLM v1 sees it, with its default picks and upgrade targets.
pub struct Facts<'c, 'a> {
    pub view: PackageView<'c, 'a>,
    /// Per view position, why it is a default pick.
    pub picks: Vec<Option<Pick>>,
    /// Bundles OLM v1 never moves from although OLM v0 does (OLM758): each with the
    /// `replaces`/`skips` edges of channels holding it, found while the index is built.
    pub held_back: Vec<(usize, Vec<Edge>)>,
}

impl<'c, 'a> Facts<'c, 'a> {
    fn of(view: PackageView<'c, 'a>) -> Self {
        let index = SuccessorIndex::new(&view);
        let targets = index.upgrade_targets();
        let held_back = held_back(&view, &index, &targets);
        let mut picks = vec![None; view.bundles.len()];
        let mut mark = |p: usize, why: Pick| {
            if let Some(slot) = picks.get_mut(p) {
                slot.get_or_insert(why);
            }
        };
        if let Some(p) = view.default_pick() {
            mark(p, Pick::Package);
        }
        for (c, p) in view.channel_picks().into_iter().enumerate() {
            if let Some(p) = p {
                mark(p, Pick::Channel(c));
            }
        }
        for t in &targets.targets {
            if let (Some(to), Some(_)) = (t.to, t.via) {
                mark(to, Pick::UpgradeFrom(t.from));
            }
        }
        Facts {
            view,
            picks,
            held_back,
        }
    }

    /// Why the catalog bundle `name` at `index` (in `Catalog::bundles`) is a default pick
    /// (never for a duplicate the catalog cache overwrote).
    pub fn pick_of(&self, index: usize, name: &str) -> Option<Pick> {
        let p = self.view.bundle(name)?;
        if self.view.bundles.get(p)?.index != index {
            return None;
        }
        self.picks.get(p).copied().flatten()
    }

    /// The name of the bundle at view position `p`.
    pub fn name(&self, p: usize) -> &str {
        self.view.bundles.get(p).map_or("", |b| b.name)
    }

    /// The name of the channel at view position `c`.
    pub fn channel_name(&self, c: usize) -> &str {
        self.view.channels.get(c).map_or("", |c| c.name)
    }

    /// Why the bundle is picked, in words, for messages.
    pub fn explain(&self, why: Pick) -> String {
        match why {
            Pick::Package => "it is the package's highest version, which a ClusterExtension naming only the package installs (OLM v1 never reads defaultChannel)".into(),
            Pick::Channel(c) => format!(
                "it is the highest version of channel {}, which a ClusterExtension naming that channel installs",
                self.channel_name(c)
            ),
            Pick::UpgradeFrom(p) => format!(
                "OLM v1 upgrades installs of {} to it",
                self.name(p)
            ),
        }
    }
}

/// Refusals that matter only when OLM v1 picks the bundle (OLM750, OLM751, OLM752 on a
/// catalog's bundle or a bundle directory): an error on a default pick, a warning elsewhere
/// (only a ClusterExtension pinning that version meets it), as OLM711.
pub fn by_default_pick(packages: &Packages<'_, '_>, mut d: Diagnostic) -> Diagnostic {
    if !matches!(d.rule, "OLM750" | "OLM751" | "OLM752") || d.severity != Severity::Error {
        return d;
    }
    let (Some(package), Some(bundle)) = (d.package.as_deref(), d.bundle.as_deref()) else {
        return d;
    };
    let Some(f) = packages.get(package) else {
        return d;
    };
    let picked = f
        .view
        .bundle(bundle)
        .and_then(|p| f.picks.get(p).copied().flatten());
    if picked.is_none() && f.view.bundle(bundle).is_some() {
        d.severity = Severity::Warning;
        d.message.push_str(" (OLM v1 meets this only when a ClusterExtension pins this version: it picks another bundle of the package by default)");
    }
    d
}

/// The bundles whose OLM v1 upgrade target is themselves while entries replace, skip or
/// skipRange them, with the edges OLM v0 follows for a subscription to a channel holding the
/// bundle: an entry of that channel that replaces or skips it (a skipRange that also covers
/// newer versions is not taken as intent). Channel membership is indexed once.
fn held_back(
    view: &PackageView<'_, '_>,
    index: &SuccessorIndex<'_, '_, '_>,
    targets: &UpgradeTargets,
) -> Vec<(usize, Vec<Edge>)> {
    let stuck: Vec<usize> = targets
        .targets
        .iter()
        .filter(|t| t.via.is_none() && t.edges_out > 0 && t.to.is_some())
        .map(|t| t.from)
        .collect();
    if stuck.is_empty() {
        return Vec::new();
    }
    let members: HashSet<(usize, &str)> = view
        .channels
        .iter()
        .enumerate()
        .flat_map(|(c, ch)| ch.channel.entries.iter().map(move |e| (c, e.name())))
        .collect();
    stuck
        .into_iter()
        .filter_map(|p| {
            let b = view.bundles.get(p)?;
            let edges: Vec<Edge> = index
                .successors(Some(b.name), b.semver.as_ref(), None)
                .into_iter()
                .filter(|e| e.bundle != p && e.kind != EdgeKind::SkipRange)
                .filter(|e| members.contains(&(e.channel, b.name)))
                .collect();
            (!edges.is_empty()).then_some((p, edges))
        })
        .collect()
}

/// Every package of the linted catalog, by name.
pub struct Packages<'c, 'a> {
    pub facts: Vec<Facts<'c, 'a>>,
    by_name: HashMap<String, usize>,
}

impl<'c, 'a> Packages<'c, 'a> {
    pub fn of(ctx: &'c Ctx<'a>, bundle_release_support: bool) -> Self
    where
        'a: 'c,
    {
        let facts: Vec<Facts<'c, 'a>> =
            PackageView::all(ctx.catalog, ctx.index, bundle_release_support)
                .into_iter()
                .map(Facts::of)
                .collect();
        let by_name = facts
            .iter()
            .enumerate()
            .map(|(i, f)| (f.view.name.clone(), i))
            .collect();
        Packages { facts, by_name }
    }

    pub fn get(&self, package: &str) -> Option<&Facts<'c, 'a>> {
        self.facts.get(*self.by_name.get(package)?)
    }
}
