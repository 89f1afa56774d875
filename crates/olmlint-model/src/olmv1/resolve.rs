//! `resolve/catalog.go` `CatalogResolver.Resolve` (olmv1 spec §2, §3): which bundle a
//! ClusterExtension with these catalog fields installs, from which catalog, and — for every
//! bundle of the package in every catalog — why it lost.
//!
//! Per catalog (in the order given, each holding the package): filter by channels (the
//! bundle is an entry of a named channel; no channel named means no filter, and
//! `defaultChannel` is never read), by the Masterminds version range (on the version without
//! the release; a prerelease matches only a range with a prerelease comparator in its AND
//! group), and, with a bundle installed under policy CatalogProvided, by `SuccessorsOf`
//! (an upgrade edge in the channels under consideration, or the installed version and release
//! exactly); then rank (non-deprecated first, version and release descending, ties in file
//! order) and keep the first. Across catalogs: non-deprecated picks drop deprecated ones, the
//! highest `spec.priority` wins if it is alone at the top, and otherwise resolution fails
//! naming every remaining catalog. The chosen bundle must then have a version and no
//! dependency property (`NoDependencyValidation`); there is no fallback to another candidate.

use super::successors::{Edge, EdgeKind, SuccessorIndex};
use super::view::{PackageView, ViewBundle};
use crate::index::Index;
use crate::Catalog;
use olmlint_semantics::mmsemver::Constraints;
use olmlint_semantics::olmv1::version::{self as v1version, VersionRelease};
use olmlint_semantics::version::{self as blang, go_quote};
use std::cmp::Ordering;

/// `spec.source.catalog.upgradeConstraintPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// Only successors of the installed bundle (or its own version) are candidates.
    #[default]
    CatalogProvided,
    /// No successor filter: any bundle matching channels and version, downgrades included.
    SelfCertified,
}

/// The installed bundle as OLM v1 records it (`status.install.bundle`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `None` when only the version is known: then no `replaces` or `skips` can name it
    /// (upstream compares entry names with the recorded name), only skipRanges match.
    pub name: Option<String>,
    /// The recorded version, legacy form (`1.0.0+2`: the release in the build metadata).
    pub version: String,
}

/// A ClusterExtension's `spec.source.catalog` (the selector aside: every given catalog is
/// selected) and the feature gate that changes how versions are read.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub package: String,
    /// `channels`; empty: no channel filter.
    pub channels: Vec<String>,
    /// `version`; empty: no version filter.
    pub version: String,
    pub installed: Option<Installed>,
    pub policy: Policy,
    /// The `BundleReleaseSupport` gate.
    pub bundle_release_support: bool,
}

/// A ClusterCatalog serving `catalog`.
#[derive(Debug, Clone, Copy)]
pub struct Source<'c, 'a> {
    pub name: &'c str,
    pub priority: i32,
    pub catalog: &'c Catalog<'a>,
    pub index: &'c Index<'a>,
}

/// What became of a bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Chosen,
    /// Not an entry of any named channel.
    NotInChannels,
    /// No version, or a version outside the range.
    OutOfRange,
    /// Not an upgrade edge from the installed bundle, nor its version.
    NotASuccessor,
    /// A better bundle of the same catalog won.
    Outranked,
    /// Deprecated while a non-deprecated bundle (in its catalog, or another catalog's pick)
    /// was available.
    Deprecated,
    /// Its catalog's pick, in a catalog of lower priority than the winner's.
    LowerPriority,
    /// Its catalog's pick, among several catalogs tied at the top priority: no choice.
    Ambiguous,
    /// Chosen, then refused (no version, or a dependency property): nothing is installed.
    Refused,
}

impl Outcome {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Chosen => "chosen",
            Outcome::NotInChannels => "not-in-channels",
            Outcome::OutOfRange => "out-of-range",
            Outcome::NotASuccessor => "not-a-successor",
            Outcome::Outranked => "outranked",
            Outcome::Deprecated => "deprecated",
            Outcome::LowerPriority => "lower-priority",
            Outcome::Ambiguous => "ambiguous",
            Outcome::Refused => "refused",
        }
    }
}

/// One bundle of one catalog, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Index in the sources.
    pub catalog: usize,
    pub bundle: String,
    /// Legacy form; `None` when it has no usable version.
    pub version: Option<String>,
    pub outcome: Outcome,
    pub reason: String,
}

/// How the chosen bundle is reached from the installed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuccessorEdge {
    pub channel: String,
    pub kind: EdgeKind,
    /// `replaces foo.v1.0.0`, `skips foo.v1.0.0`, `skipRange ">=1.0.0 <2.0.0"`.
    pub text: String,
}

/// The bundle OLM v1 installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// Index in the sources.
    pub source: usize,
    pub bundle: String,
    /// The version OLM v1 records (`status.install.bundle.version`, legacy form).
    pub version: String,
}

/// The answer.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The bundle OLM v1 installs.
    pub chosen: Option<Chosen>,
    /// `Resolve`'s error when nothing is chosen.
    pub error: Option<String>,
    /// The message the ClusterExtension's conditions carry on failure
    /// (`handleResolutionError`, §3.3), assuming the catalogs exist.
    pub condition: Option<String>,
    /// Every bundle of the package in every catalog, catalog by catalog, best-ranked first.
    pub candidates: Vec<Candidate>,
    /// Sources holding a bundle named as the installed one.
    pub installed_in: Vec<usize>,
    /// With a bundle installed and a different one chosen: the edges making it a successor
    /// (empty when it is chosen for having the installed version, or under SelfCertified).
    pub edges: Vec<SuccessorEdge>,
    /// Whether the chosen bundle is the installed version (nothing moves).
    pub stays: bool,
}

/// The installed bundle, parsed as `SuccessorsOf` parses it.
struct InstalledParsed<'r> {
    name: Option<&'r str>,
    version: VersionRelease,
    semver: semver::Version,
}

/// One catalog's pick, with what `Resolve` checks once it is selected.
#[derive(Debug, Clone)]
struct Pick {
    source: usize,
    /// Index of its candidate in `Resolution::candidates`.
    candidate: usize,
    deprecated: bool,
    priority: i32,
    /// Its recorded version, or `GetVersionAndRelease`'s error.
    version: Result<String, String>,
    /// The first property `NoDependencyValidation` refuses.
    dependency: Option<String>,
    /// How it is reached from the installed bundle.
    edges: Vec<SuccessorEdge>,
    stays: bool,
    /// Another match of its catalog has the same rank: the file order decided.
    tied: bool,
}

/// `CatalogResolver.Resolve` over `sources`, in order.
pub fn resolve(req: &Request, sources: &[Source<'_, '_>]) -> Resolution {
    let mut res = Resolution::default();
    let range = if req.version.is_empty() {
        None
    } else {
        match Constraints::parse(&req.version) {
            Ok(c) => Some(c),
            Err(e) => {
                let e = format!(
                    "desired version range {} is invalid: {e}",
                    go_quote(&req.version)
                );
                return fail(req, res, e);
            }
        }
    };
    let mut picks: Vec<Pick> = Vec::new();
    let mut installed: Option<Result<InstalledParsed<'_>, String>> = None;
    let installed_version = req
        .installed
        .as_ref()
        .and_then(|i| v1version::from_installed(&i.version, None).ok());
    for (si, src) in sources.iter().enumerate() {
        let view = PackageView::new(
            src.catalog,
            src.index,
            &req.package,
            req.bundle_release_support,
        );
        if !view.found() {
            continue;
        }
        if let Some(name) = req.installed.as_ref().and_then(|i| i.name.as_deref()) {
            if view.bundle(name).is_some() {
                res.installed_in.push(si);
            }
        }
        let successors = match (&req.installed, req.policy) {
            (Some(i), Policy::CatalogProvided) => {
                match installed.get_or_insert_with(|| parse_installed(i)) {
                    Ok(p) => Some(&*p),
                    Err(e) => {
                        let e = format!("error walking catalogs: error finding upgrade edges: {e}");
                        return fail(req, res, e);
                    }
                }
            }
            _ => None,
        };
        let filter = Filter {
            req,
            view: &view,
            range: range.as_ref(),
            installed: successors,
            installed_version: installed_version.as_ref(),
        };
        if let Some(mut pick) = filter.run(si, &mut res) {
            pick.priority = src.priority;
            across_catalogs(&mut picks, pick, sources, &mut res);
        }
    }
    decide(req, sources, picks, res)
}

fn fail(req: &Request, mut res: Resolution, e: String) -> Resolution {
    res.condition = Some(condition(req, &e));
    res.error = Some(e);
    res.chosen = None;
    res
}

fn parse_installed(i: &Installed) -> Result<InstalledParsed<'_>, String> {
    let version = v1version::from_installed(&i.version, None)?;
    let semver = blang::parse_strict(&i.version).map_err(|e| {
        format!("getting successorsPredicate: error parsing installed bundle version: {e}")
    })?;
    Ok(InstalledParsed {
        name: i.name.as_deref(),
        version,
        semver,
    })
}

/// The message on the ClusterExtension when resolution fails (`handleResolutionError`,
/// with the catalogs still there).
fn condition(req: &Request, err: &str) -> String {
    match &req.installed {
        None => format!("failed to resolve bundle: {err}"),
        Some(i) if !req.version.is_empty() && req.version != i.version => format!(
            "unable to upgrade to version {}: {err} (currently installed: {})",
            req.version, i.version
        ),
        Some(_) => format!("failed to resolve bundle, retrying: {err}"),
    }
}

/// Go's `%v` of a `[]string`.
fn go_list<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("[{}]", inner.join(" "))
}

fn set_outcome(res: &mut Resolution, candidate: usize, outcome: Outcome, reason: String) {
    if let Some(c) = res.candidates.get_mut(candidate) {
        c.outcome = outcome;
        c.reason = reason;
    }
}

fn candidate_name(res: &Resolution, candidate: usize) -> String {
    res.candidates
        .get(candidate)
        .map_or_else(String::new, |c| c.bundle.clone())
}

/// Deprecation across catalogs: a deprecated pick is dropped when an earlier one is not; a
/// non-deprecated pick drops the deprecated ones before it.
fn across_catalogs(
    picks: &mut Vec<Pick>,
    pick: Pick,
    sources: &[Source<'_, '_>],
    res: &mut Resolution,
) {
    let src = |p: &Pick| sources.get(p.source).map_or("", |s| s.name);
    if let Some(last) = picks.last() {
        if pick.deprecated && !last.deprecated {
            let why = format!(
                "deprecated, and catalog {}'s pick {} is not: OLM v1 drops a deprecated catalog pick when another catalog's is not deprecated",
                src(last),
                candidate_name(res, last.candidate)
            );
            set_outcome(res, pick.candidate, Outcome::Deprecated, why);
            return;
        }
        if !pick.deprecated && last.deprecated {
            for old in picks.drain(..) {
                let why = format!(
                    "deprecated, and catalog {}'s pick {} is not: OLM v1 drops a deprecated catalog pick when another catalog's is not deprecated",
                    src(&pick),
                    candidate_name(res, pick.candidate)
                );
                set_outcome(res, old.candidate, Outcome::Deprecated, why);
            }
        }
    }
    picks.push(pick);
}

/// Priority, ambiguity, then the checks on the selected bundle.
fn decide(
    req: &Request,
    sources: &[Source<'_, '_>],
    mut picks: Vec<Pick>,
    mut res: Resolution,
) -> Resolution {
    let name = |p: &Pick| sources.get(p.source).map_or("", |s| s.name);
    if picks.len() > 1 {
        picks.sort_by_key(|p| std::cmp::Reverse(p.priority));
        let (first, second) = (
            picks.first().map(|p| p.priority),
            picks.get(1).map(|p| p.priority),
        );
        if first != second {
            let Some(top) = picks.first().cloned() else {
                return res;
            };
            for p in picks.drain(1..) {
                let why = format!(
                    "catalog {} has priority {}, below catalog {}'s {} (OLM v1 never compares versions across catalogs)",
                    name(&p),
                    p.priority,
                    name(&top),
                    top.priority
                );
                set_outcome(&mut res, p.candidate, Outcome::LowerPriority, why);
            }
        }
    }
    let [pick] = picks.as_slice() else {
        let mut names: Vec<&str> = picks.iter().map(name).collect();
        names.sort_unstable();
        for p in &picks {
            let why = format!(
                "catalogs {} each have a pick and the top priorities are equal: OLM v1 does not choose",
                go_list(&names)
            );
            set_outcome(&mut res, p.candidate, Outcome::Ambiguous, why);
        }
        let e = resolution_error(req, picks.len() > 1, &names);
        return fail(req, res, e);
    };
    let bundle = candidate_name(&res, pick.candidate);
    let refused = match (&pick.version, &pick.dependency) {
        (Err(e), _) => Some(format!(
            "error getting resolved bundle version for bundle {}: {e}",
            go_quote(&bundle)
        )),
        (Ok(_), Some(ty)) => Some(format!(
            "validating bundle {q}: bundle {q} has a dependency declared via property {} which is currently not supported",
            go_quote(ty),
            q = go_quote(&bundle)
        )),
        _ => None,
    };
    if let Some(e) = refused {
        set_outcome(
            &mut res,
            pick.candidate,
            Outcome::Refused,
            format!("selected, then refused (no other candidate is tried): {e}"),
        );
        return fail(req, res, e);
    }
    let why = chosen_reason(sources, pick, &res);
    set_outcome(&mut res, pick.candidate, Outcome::Chosen, why);
    res.chosen = Some(Chosen {
        source: pick.source,
        bundle,
        version: pick.version.clone().unwrap_or_default(),
    });
    res.edges = pick.edges.clone();
    res.stays = pick.stays;
    res
}

fn chosen_reason(sources: &[Source<'_, '_>], pick: &Pick, res: &Resolution) -> String {
    let others: Vec<&Candidate> = res
        .candidates
        .iter()
        .filter(|c| c.catalog != pick.source)
        .filter(|c| matches!(c.outcome, Outcome::LowerPriority | Outcome::Deprecated))
        .collect();
    let cat = sources.get(pick.source).map_or("", |s| s.name);
    let mut s = format!("the best-ranked match of catalog {cat}");
    if others.iter().any(|c| c.outcome == Outcome::LowerPriority) {
        s.push_str(&format!(
            ", the catalog of highest priority ({}) with a match",
            pick.priority
        ));
    }
    if pick.deprecated {
        s.push_str(" (deprecated: no catalog offers a non-deprecated match)");
    }
    if pick.tied {
        s.push_str("; another match has the same version and release, and OLM v1's choice between them is not deterministic");
    }
    s
}

/// `resolutionError.Error`.
fn resolution_error(req: &Request, many: bool, catalogs: &[&str]) -> String {
    let mut s = String::new();
    if let Some(i) = &req.installed {
        s.push_str(&format!(
            "error upgrading from currently installed version {}: ",
            go_quote(&i.version)
        ));
    }
    let found = if many {
        "found bundles"
    } else {
        "no bundles found"
    };
    s.push_str(&format!("{found} for package {} ", go_quote(&req.package)));
    if !req.version.is_empty() {
        s.push_str(&format!("matching version {} ", go_quote(&req.version)));
    }
    if !req.channels.is_empty() {
        s.push_str(&format!("in channels {} ", go_list(&req.channels)));
    }
    if catalogs.len() > 1 {
        s.push_str(&format!(
            "in multiple catalogs with the same priority {} ",
            go_list(catalogs)
        ));
    }
    s.trim().to_string()
}

/// How an edge from the bundle installed as `installed` reads.
fn describe_edge(view: &PackageView<'_, '_>, e: &Edge, installed: &str) -> Option<SuccessorEdge> {
    let ch = view.channels.get(e.channel)?;
    let entry = ch.channel.entries.get(e.entry)?;
    let text = match e.kind {
        EdgeKind::Replaces => format!("replaces {}", entry.replaces.map_or("", |r| r.value)),
        EdgeKind::Skips => format!("skips {installed}"),
        EdgeKind::SkipRange => format!(
            "skipRange {}",
            go_quote(entry.skip_range.map_or("", |r| r.value))
        ),
    };
    Some(SuccessorEdge {
        channel: ch.name.to_string(),
        kind: e.kind,
        text,
    })
}

/// The per-catalog filters and ranking.
struct Filter<'f, 'v, 'c, 'a> {
    req: &'f Request,
    view: &'v PackageView<'c, 'a>,
    range: Option<&'f Constraints>,
    installed: Option<&'f InstalledParsed<'f>>,
    /// The installed version and release, under either policy (whether the pick stays).
    installed_version: Option<&'f VersionRelease>,
}

impl Filter<'_, '_, '_, '_> {
    /// Filter and rank this catalog's bundles into `res.candidates` (best-ranked first);
    /// its pick, if any (outcome `Chosen`, settled by [`decide`]).
    fn run(&self, source: usize, res: &mut Resolution) -> Option<Pick> {
        let view = self.view;
        let channels = self.channel_positions();
        let in_channels = channels.as_ref().map(|cs| self.channel_mask(cs));
        let edges: Option<Vec<Edge>> = self.installed.map(|i| {
            SuccessorIndex::new(view).successors(i.name, Some(&i.semver), channels.as_deref())
        });
        let mut survivors = Vec::new();
        for &p in &view.ranked.order {
            let Some(b) = view.bundles.get(p) else {
                continue;
            };
            let dropped = if in_channels
                .as_ref()
                .is_some_and(|m| !m.get(p).copied().unwrap_or(false))
            {
                Some((Outcome::NotInChannels, self.not_in_channels(b)))
            } else if let Some(why) = self.out_of_range(b) {
                Some((Outcome::OutOfRange, why))
            } else {
                self.not_a_successor(p, b, edges.as_deref())
                    .map(|why| (Outcome::NotASuccessor, why))
            };
            let (outcome, reason) = dropped.unwrap_or((Outcome::Chosen, String::new()));
            if outcome == Outcome::Chosen {
                survivors.push((p, res.candidates.len()));
            }
            res.candidates.push(Candidate {
                catalog: source,
                bundle: b.name.to_string(),
                version: b.version_text(),
                outcome,
                reason,
            });
        }
        self.rank(&survivors, res);
        let &(top, candidate) = survivors.first()?;
        let b = view.bundles.get(top)?;
        let stays = self
            .installed_version
            .is_some_and(|i| matches!(&b.version, Ok(v) if v.compare(i) == Ordering::Equal));
        Some(Pick {
            source,
            candidate,
            deprecated: b.deprecated,
            priority: 0,
            version: b
                .version
                .as_ref()
                .map(ToString::to_string)
                .map_err(Clone::clone),
            dependency: super::refused_dependency(b.bundle).map(|p| p.ty().to_string()),
            edges: edges
                .iter()
                .flatten()
                .filter(|e| e.bundle == top)
                .filter_map(|e| {
                    describe_edge(view, e, self.installed.and_then(|i| i.name).unwrap_or(""))
                })
                .collect(),
            stays,
            tied: survivors
                .get(1)
                .is_some_and(|&(p, _)| view.compare(top, p) == Ordering::Equal),
        })
    }

    /// The named channels' positions (`slices.DeleteFunc` keeps them); `None` when the
    /// request names none.
    fn channel_positions(&self) -> Option<Vec<usize>> {
        (!self.req.channels.is_empty()).then(|| {
            self.view
                .channels
                .iter()
                .enumerate()
                .filter(|(_, ch)| self.req.channels.iter().any(|n| n == ch.name))
                .map(|(c, _)| c)
                .collect()
        })
    }

    /// `InAnyChannel`, per bundle position.
    fn channel_mask(&self, channels: &[usize]) -> Vec<bool> {
        let view = self.view;
        let mut mask = vec![false; view.bundles.len()];
        for ch in channels.iter().filter_map(|&c| view.channels.get(c)) {
            for e in &ch.channel.entries {
                if let Some(slot) = view.bundle(e.name()).and_then(|p| mask.get_mut(p)) {
                    *slot = true;
                }
            }
        }
        mask
    }

    fn not_in_channels(&self, b: &ViewBundle<'_, '_>) -> String {
        let own: Vec<&str> = self
            .view
            .channels
            .iter()
            .filter(|c| c.channel.entries.iter().any(|e| e.name() == b.name))
            .map(|c| c.name)
            .collect();
        let wanted = go_list(&self.req.channels);
        if own.is_empty() {
            format!("in no channel, so not in channels {wanted}")
        } else {
            format!("not in channels {wanted} (it is in {})", go_list(&own))
        }
    }

    fn out_of_range(&self, b: &ViewBundle<'_, '_>) -> Option<String> {
        let range = self.range?;
        let v = match &b.version {
            Ok(v) => v,
            Err(e) => {
                return Some(format!(
                    "no version OLM v1 can read ({e}): it never matches a version range"
                ))
            }
        };
        let (ok, why) = range.validate(&v.to_mm());
        (!ok).then(|| {
            let mut s = format!("version {v} does not match {}", go_quote(&self.req.version));
            if !why.is_empty() {
                s.push_str(": ");
                s.push_str(&why.join("; "));
            }
            s
        })
    }

    fn not_a_successor(
        &self,
        p: usize,
        b: &ViewBundle<'_, '_>,
        edges: Option<&[Edge]>,
    ) -> Option<String> {
        let (i, edges) = (self.installed?, edges?);
        if edges.iter().any(|e| e.bundle == p) {
            return None;
        }
        if matches!(&b.version, Ok(v) if v.compare(&i.version) == Ordering::Equal) {
            return None;
        }
        let scope = if self.req.channels.is_empty() {
            "in any channel".to_string()
        } else {
            format!("in channels {}", go_list(&self.req.channels))
        };
        let v = self
            .req
            .installed
            .as_ref()
            .map_or("", |i| i.version.as_str());
        Some(match i.name {
            Some(n) => format!(
                "not an upgrade from {n} ({v}): no entry of it {scope} replaces or skips {n} or has a skipRange containing {v}, and it is not version {v}"
            ),
            None => format!(
                "not an upgrade from version {v}: no entry of it {scope} has a skipRange containing {v}, and it is not that version (the installed bundle's name is unknown, so replaces and skips cannot match)"
            ),
        })
    }

    /// Survivors are in rank order: the first is this catalog's pick; each other lost to it.
    fn rank(&self, survivors: &[(usize, usize)], res: &mut Resolution) {
        let view = self.view;
        let Some(&(top, _)) = survivors.first() else {
            return;
        };
        let Some(w) = view.bundles.get(top) else {
            return;
        };
        for &(p, c) in survivors.iter().skip(1) {
            let Some(b) = view.bundles.get(p) else {
                continue;
            };
            let (outcome, why) = if b.deprecated && !w.deprecated {
                (
                    Outcome::Deprecated,
                    format!(
                        "deprecated, and {} is not: OLM v1 ranks deprecated bundles last",
                        w.name
                    ),
                )
            } else if b.version.is_err() {
                (
                    Outcome::Outranked,
                    format!("its version does not parse, so it ranks after {}", w.name),
                )
            } else if view.compare(top, p) == Ordering::Equal {
                (
                    Outcome::Outranked,
                    format!(
                        "same version and release as {0}: OLM v1 leaves such ties in the order it reads the files, which is not deterministic (here {0} came first)",
                        w.name
                    ),
                )
            } else {
                (
                    Outcome::Outranked,
                    format!(
                        "lower version than {} ({} < {})",
                        w.name,
                        b.version_text().unwrap_or_default(),
                        w.version_text().unwrap_or_default()
                    ),
                )
            };
            set_outcome(res, c, outcome, why);
        }
    }
}

/// What the API server refuses in such a ClusterExtension (the CRD's validation of
/// `spec.source.catalog`, `api/v1/clusterextension_types.go`): then nothing is resolved at
/// all. Messages as the API server words them.
pub fn admission_errors(req: &Request) -> Vec<String> {
    const SUBDOMAIN: &str = "must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters";
    let refuse = |field: &str, value: &str, why: &str| {
        format!(
            "the API server refuses such a ClusterExtension: spec.source.catalog.{field}: Invalid value: {}: {why}",
            go_quote(value)
        )
    };
    let mut out = Vec::new();
    if req.package.len() > 253 {
        out.push(refuse(
            "packageName",
            &req.package,
            "may not be more than 253 bytes",
        ));
    } else if !dns1123_subdomain(&req.package) {
        out.push(refuse(
            "packageName",
            &req.package,
            &format!("packageName {SUBDOMAIN}"),
        ));
    }
    if req.channels.len() > 256 {
        out.push(format!("the API server refuses such a ClusterExtension: spec.source.catalog.channels: Too many: {}: must have at most 256 items", req.channels.len()));
    }
    for (i, c) in req.channels.iter().enumerate() {
        let field = format!("channels[{i}]");
        if c.len() > 253 {
            out.push(refuse(&field, c, "may not be more than 253 bytes"));
        } else if !dns1123_subdomain(c) {
            out.push(refuse(
                &field,
                c,
                "channels entries must be valid DNS1123 subdomains",
            ));
        }
    }
    if req.version.len() > 64 {
        out.push(refuse(
            "version",
            &req.version,
            "may not be more than 64 bytes",
        ));
    } else if !req.version.is_empty()
        && !version_expression().is_some_and(|r| r.is_match(&req.version))
    {
        out.push(refuse(
            "version",
            &req.version,
            "invalid version expression",
        ));
    }
    out
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`.
fn dns1123_subdomain(s: &str) -> bool {
    let label = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    s.split('.').all(label)
}

/// The CRD's CEL rule on `version`, as written (its stray `]` after some `\*` included:
/// `1.*` passes only through the patch slot), with RE2's ASCII `\d` and `\s`.
fn version_expression() -> Option<&'static regex::Regex> {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        let one = r"(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|MAJOR)(\.(0|[1-9]\d*|x|X|MINOR))?(\.(0|[1-9]\d*|x|X|PATCH))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*";
        let first = one
            .replace("MAJOR", r"[x|X|\*]")
            .replace("MINOR", r"\*\]")
            .replace("PATCH", r"\*");
        let rest = one
            .replace("MAJOR", r"x|X|\*\]")
            .replace("MINOR", r"\*")
            .replace("PATCH", r"\*\]");
        let re = format!(r"^(\s*{first})((?:\s+|,\s*|\s*\|\|\s*){rest})*$")
            .replace(r"\d", "[0-9]")
            .replace(r"\s", r"[\t\n\f\r ]");
        regex::Regex::new(&re).ok()
    })
    .as_ref()
}
