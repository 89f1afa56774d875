//! Stage 3: checks. One module per rule family; each reads the model and pushes diagnostics.
// Long functions are split into named stages; clippy.toml sets the threshold (unit tests exempt).
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod config;
pub mod suppress;

pub mod bundle;
pub mod bundle_dir;
pub mod bundle_registries;
pub mod cel;
pub mod channel;
pub mod constraints;
pub mod deprecations;
pub mod ecosystem;
pub mod graph;
pub mod installability;
pub mod load;
pub mod olmv1;
pub mod operators;
pub mod package;
pub mod properties;
pub mod ranges;
pub mod release_config;
pub mod template;
mod template_pairing;
pub mod upgrade;
pub mod waivers;

use crate::config::Config;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_load::LoadedFile;
use olmlint_model::index::Index;
use olmlint_model::resolution::{Provided, Resolution};
use olmlint_model::Catalog;

pub struct Ctx<'a> {
    pub files: &'a [LoadedFile],
    pub catalog: &'a Catalog<'a>,
    pub config: &'a Config,
    pub index: &'a Index<'a>,
    /// The catalog as OLM's resolver sees it.
    pub resolution: &'a Resolution,
    /// Every catalog the resolution draws on: `catalog` first, then the `--context` ones.
    pub catalogs: &'a [&'a Catalog<'a>],
    /// The catalog (command-line path) being checked.
    pub scope: usize,
    /// See [`Ctx::complete_for`]; computed once (checks ask per channel and per bundle).
    pub complete: std::sync::OnceLock<Incomplete>,
    /// The previous version of the catalog (`--baseline`), for the upgrade-safety rules.
    pub baseline: Option<&'a Baseline<'a>>,
    /// What other catalogs provide (`provided:` in the configuration).
    pub provided: &'a Provided,
    /// The target cluster (`--cluster-properties`), for OLM720.
    pub cluster: Option<&'a olmlint_model::cluster::ClusterPolicy>,
    /// The operator repository's `config.yaml` the catalog is in: the pipeline suite whose
    /// failures are errors, the allowed bundle registries.
    pub repository: Option<&'a olmlint_model::repository::RepositoryConfig>,
    /// A change-scoped run's changed files (absolute, real paths): what a pull request adds.
    pub changed: Option<&'a [std::path::PathBuf]>,
}

impl Ctx<'_> {
    /// The static-test suite the repository's pipeline runs besides the common one.
    pub fn suite(&self) -> Option<olmlint_model::repository::Suite> {
        self.repository
            .and_then(olmlint_model::repository::RepositoryConfig::suite)
    }

    /// How the pipelines' verdict on what a pull request adds applies to the directory
    /// `dir` (a bundle directory, an operator directory), `newest` saying whether it holds
    /// the package's newest bundle: in a change-scoped run, an error where the change touches
    /// it (the pull request fails) and nothing elsewhere; in a whole run, a warning for the
    /// newest bundle (what a pull request would add; the others were accepted by the rules
    /// of their day), nothing for the rest.
    pub fn as_added(&self, dir: &std::path::Path, newest: bool) -> Option<Severity> {
        match self.changed {
            Some(files) => {
                let dir = olmlint_load::io::absolute(dir);
                files
                    .iter()
                    .any(|f| f.starts_with(&dir))
                    .then_some(Severity::Error)
            }
            None => newest.then_some(Severity::Warning),
        }
    }
}

/// Where a finding about a bundle as a whole goes: its `name`.
pub fn name_location(b: &olmlint_model::Bundle<'_>) -> olmlint_base::diag::Location {
    olmlint_base::diag::Location {
        file: b.doc.file,
        span: b.name.map_or(b.doc.node.span, |n| n.node.span),
    }
}

/// The previous version of the linted catalog, modelled and resolved like it (with the same
/// context catalogs), never linted.
pub struct Baseline<'a> {
    pub catalog: &'a Catalog<'a>,
    pub index: &'a Index<'a>,
    pub resolution: &'a Resolution,
    /// `catalog` first, then the context catalogs, as in [`Ctx::catalogs`].
    pub catalogs: &'a [&'a Catalog<'a>],
}

impl<'a> Baseline<'a> {
    /// A bundle by its baseline resolution index.
    pub fn bundle(&self, bi: usize) -> Option<&'a olmlint_model::Bundle<'a>> {
        self.resolution.bundle_in(self.catalogs, bi)
    }
}

impl<'a> Ctx<'a> {
    /// A bundle by its resolution index (which may be in a context catalog).
    pub fn bundle(&self, bi: usize) -> Option<&'a olmlint_model::Bundle<'a>> {
        self.resolution.bundle_in(self.catalogs, bi)
    }

    /// False when package `pkg` may have lost objects to a catalog file that failed to
    /// parse: findings that something is *missing* (unknown package, bundle in no channel,
    /// a missing replaces target, default channel not found) would then be noise, so they
    /// are held back for that package until the syntax error is fixed. See [`Incomplete`].
    pub fn complete_for(&self, pkg: &str) -> bool {
        let inc = self.complete.get_or_init(|| Incomplete::of(self));
        !inc.all && !inc.packages.contains(pkg)
    }

    /// False when some bundles of package `pkg` may be unknown: [`Ctx::complete_for`], or a
    /// catalog template's bundles that are image references (`Catalog::opaque_packages`).
    /// Findings that a bundle is *missing* hold back then.
    pub fn bundles_known(&self, pkg: &str) -> bool {
        self.complete_for(pkg) && !self.catalog.opaque_packages.contains(pkg)
    }

    /// False when any package is incomplete (see [`Ctx::complete_for`]).
    pub fn complete(&self) -> bool {
        let inc = self.complete.get_or_init(|| Incomplete::of(self));
        !inc.all && inc.packages.is_empty()
    }
}

/// Which packages a file that failed to parse may have taken objects from. A file that does
/// not parse hides what it would have declared; in the usual layouts that is the package of
/// its directory (`<root>/<package>/…`), so the packages declared by files in the same
/// directory (and by the documents of the file that did parse) are incomplete. When that
/// directory declares nothing else, the whole catalog is. A broken bundle directory does not
/// count: that bundle is left out whole (see `model::bundle_dir`).
#[derive(Debug, Default)]
pub struct Incomplete {
    pub all: bool,
    pub packages: std::collections::BTreeSet<String>,
}

impl Incomplete {
    pub(crate) fn of(ctx: &Ctx<'_>) -> Self {
        let mut inc = Incomplete::default();
        let failed: Vec<usize> = ctx
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.scope == ctx.scope)
            .filter(|(_, f)| f.role == olmlint_load::Role::Fbc)
            .filter(|(_, f)| {
                f.docs.iter().any(|d| d.failed) || (f.docs.is_empty() && !f.problems.is_empty())
            })
            .map(|(i, _)| i)
            .collect();
        if failed.is_empty() {
            return inc;
        }
        let dir = |fi: usize| ctx.files.get(fi).and_then(|f| f.source.path.parent());
        let dirs: Vec<&std::path::Path> = failed.iter().filter_map(|&fi| dir(fi)).collect();
        let mut objects: Vec<(usize, &str)> = Vec::new();
        for p in &ctx.catalog.packages {
            objects.push((p.doc.file, p.name.map_or("", |n| n.value)));
        }
        for c in &ctx.catalog.channels {
            objects.push((c.doc.file, c.package.map_or("", |p| p.value)));
        }
        for b in ctx.catalog.bundles.iter().filter(|b| !b.from_directory) {
            objects.push((b.doc.file, b.package()));
        }
        for d in &dirs {
            let mut found = false;
            for &(fi, pkg) in &objects {
                if dir(fi) == Some(*d) && !pkg.is_empty() {
                    inc.packages.insert(pkg.to_string());
                    found = true;
                }
            }
            inc.all |= !found;
        }
        inc
    }
}

/// OLM012: the run's `--timeout` passed before `what` was done.
pub fn timeout_finding(ctx: &Ctx<'_>, what: String) -> Diagnostic {
    let secs = ctx.config.timeout.unwrap_or(0.0);
    let at = ctx.files.iter().position(|f| f.scope == ctx.scope);
    let mut d = Diagnostic::new(
        "OLM012",
        format!("lint did not finish within the {secs} s timeout: {what}"),
    )
    .help("Findings for the unfinished work are missing, so this run proves nothing about it. Raise `--timeout` (or `limits.timeout`), or lint fewer catalogs per run.");
    if let Some(file) = at {
        d = d.at(file, olmlint_base::tree::Span::new(0, 0));
    }
    d
}

type Family = fn(&Ctx<'_>, &mut Vec<Diagnostic>);

/// Every rule family, in report order, and whether it reads the resolution
/// ([`Ctx::resolution`], [`Ctx::bundle`]). Those that do not run while the resolution is built
/// ([`run_early`]); `tests/it/check_stages.rs` checks that they find the same without it.
const FAMILIES: &[(&str, Family, bool)] = &[
    ("check load", load::check, false),
    ("check package", package::check, false),
    ("check channel", channel::check, false),
    ("check graph", graph::check, false),
    ("check bundle", bundle::check, false),
    ("check deprecations", deprecations::check, false),
    ("check properties", properties::check, false),
    ("check ranges", ranges::check, true),
    ("check constraints", constraints::check, true),
    ("check cel", cel::check, true),
    ("check bundle_dir", bundle_dir::check, false),
    ("check operators", operators::check, false),
    ("check release_config", release_config::check, false),
    ("check bundle_registries", bundle_registries::check, false),
    ("check installability", installability::check, true),
    ("check ecosystem", ecosystem::check, true),
    ("check olmv1", olmv1::check, false),
    ("check upgrade", upgrade::check, true),
];

/// What some of the families found, family by family (nothing for the others), and how many
/// of them the deadline skipped: see [`run_early`], [`run_late`], [`finish`].
pub struct Found {
    by_family: Vec<Vec<Diagnostic>>,
    skipped: usize,
}

/// Run every rule family. Families are independent, so they run in parallel.
pub fn run(ctx: &Ctx<'_>) -> Vec<Diagnostic> {
    let (early, late) = rayon::join(|| run_early(ctx), || run_late(ctx));
    finish(ctx, early, late)
}

/// The rule families that do not read the resolution: `ctx.resolution` may be a placeholder
/// (`Resolution::default()`) while the catalog's is built. They were a third of the time
/// after loading on community-v4.18, with one core idle while the resolution was built
/// (issue #44).
pub fn run_early(ctx: &Ctx<'_>) -> Found {
    run_families(ctx, false)
}

/// The rule families that read the resolution (`ctx.resolution` is the catalog's). Their
/// findings are [`Diagnostic::deferred`]: a quick run leaves them out ([`Found::deferred`]).
pub fn run_late(ctx: &Ctx<'_>) -> Found {
    let mut found = run_families(ctx, true);
    for d in found.by_family.iter_mut().flatten() {
        d.deferred = true;
    }
    found
}

impl Found {
    /// What a quick run puts in place of [`run_late`]: nothing, without building the
    /// resolution. The families that read it are the expensive ones (SAT, installability)
    /// and run in full runs only (the language server's, on save and when edits pause).
    pub fn deferred() -> Self {
        Found {
            by_family: vec![Vec::new(); FAMILIES.len()],
            skipped: 0,
        }
    }
}

/// The findings of [`run_early`] and [`run_late`] in family order, repeats dropped and
/// symptoms folded into their causes.
pub fn finish(ctx: &Ctx<'_>, early: Found, late: Found) -> Vec<Diagnostic> {
    let skipped = early.skipped + late.skipped;
    let mut out: Vec<Diagnostic> = early
        .by_family
        .into_iter()
        .zip(late.by_family)
        .flat_map(|(a, b)| a.into_iter().chain(b))
        .collect();
    drop_repeats(&mut out);
    fold_symptoms(&mut out, |rule| ctx.config.is_enabled(rule));
    if skipped > 0 {
        out.push(timeout_finding(
            ctx,
            format!("{skipped} of {} rule families were not run", FAMILIES.len()),
        ));
    }
    out
}

/// The families that read the resolution (`resolution`) or those that do not, in parallel.
fn run_families(ctx: &Ctx<'_>, resolution: bool) -> Found {
    use rayon::prelude::*;
    let skipped = std::sync::atomic::AtomicUsize::new(0);
    // Each family a task of its own: their costs differ by two orders of magnitude.
    let found = FAMILIES
        .par_iter()
        .with_max_len(1)
        .map(|&(label, f, reads)| {
            let mut out = Vec::new();
            if reads != resolution {
                return out;
            }
            if ctx.config.expired() {
                skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return out;
            }
            // A panic (a bug) costs one family's findings, not the run.
            let ran = olmlint_base::timings::phase(label, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(ctx, &mut out)))
            });
            if ran.is_err() {
                out.clear();
                out.push(Diagnostic::new(
                    "OLM001",
                    "internal error in one rule family: its findings for this catalog are missing (an olmlint bug; please report it)",
                ));
            }
            out
        })
        .collect();
    Found {
        by_family: found,
        skipped: skipped.into_inner(),
    }
}

/// The same finding twice (same rule, place and message) is one: a bundle directory's entry
/// appears in each channel it is in, and per-channel checks would repeat its findings.
fn drop_repeats(out: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| {
        seen.insert((
            d.rule,
            d.location.map(|l| (l.file, l.span.start, l.span.end)),
            d.message.clone(),
        ))
    });
}

/// One root cause, one finding: a finding whose cause is reported as an error at or inside
/// one of its `explained_by` locations (say, OLM501 "cannot be installed" for a bundle whose
/// own dependency has no candidate, OLM503, or an empty range, OLM302) is dropped, and the
/// cause gains a related location saying what it leads to. Causes grouped over several
/// bundles (their other sites in `related`) explain each of those bundles. Only findings of
/// rules the configuration keeps can explain (a switched-off cause must not hide its
/// symptom), and a symptom's fix moves to a cause without one.
pub fn fold_symptoms(out: &mut Vec<Diagnostic>, enabled: impl Fn(&str) -> bool) {
    if out.iter().all(|d| d.explained_by.is_empty()) {
        return;
    }
    let mut keep = vec![true; out.len()];
    // Two rounds: first the second reports of one problem at one spot (opm's decode error
    // next to a more precise one, the tooling's copy of a range error), then the verdicts
    // that follow from a problem (OLM501), so that a first-round report that stayed (say,
    // OLM108 with nothing more precise inside it) can explain a verdict.
    let consequence = |d: &Diagnostic| d.rule == "OLM501";
    for round in [false, true] {
        let notes: Vec<(usize, usize)> = {
            let cause_within = causes(out, &keep, &enabled, |d| {
                d.explained_by.is_empty() || (round && !consequence(d))
            });
            out.iter()
                .enumerate()
                .filter(|(_, d)| !d.explained_by.is_empty() && consequence(d) == round)
                .filter_map(|(i, d)| {
                    let c = d.explained_by.iter().find_map(&cause_within)?;
                    (c != i).then_some((c, i))
                })
                .collect()
        };
        for (c, i) in notes {
            let Some(symptom) = out.get(i) else { continue };
            let note = match symptom.rule {
                "OLM501" => format!(
                    "so {} cannot be installed (no subscription starting at it resolves)",
                    symptom.bundle.as_deref().unwrap_or("the bundle")
                ),
                rule => format!("{rule}: {}", symptom.message),
            };
            let (location, fix) = (symptom.location, symptom.fix.clone());
            // What the symptom explains beyond the cause (say, the other providers that an
            // API conflict involves) stays, once per location.
            let extra: Vec<olmlint_base::diag::Related> = symptom.related.clone();
            let folded = olmlint_base::diag::Folded {
                rule: symptom.rule,
                package: symptom.package.clone(),
                bundle: symptom.bundle.clone(),
            };
            let repeated = out
                .get(c)
                .is_some_and(|d| d.message.contains(symptom.message.as_str()));
            if let Some(k) = keep.get_mut(i) {
                *k = false;
            }
            if let Some(d) = out.get_mut(c) {
                if !repeated {
                    d.related.push(olmlint_base::diag::Related {
                        message: note,
                        location,
                        folded: Some(folded),
                    });
                }
                if d.fix.is_none() {
                    d.fix = fix;
                }
                // One pass over what the cause already lists, not one per added item (a
                // cause shared by hundreds of bundles gathers hundreds of notes).
                let mut seen: std::collections::HashSet<olmlint_base::diag::Location> = d
                    .location
                    .into_iter()
                    .chain(d.related.iter().filter_map(|x| x.location))
                    .collect();
                for r in extra {
                    if r.location.is_none_or(|l| seen.insert(l)) {
                        d.related.push(r);
                    }
                }
            }
        }
    }
    let mut flags = keep.into_iter();
    out.retain(|_| flags.next().unwrap_or(true));
}

/// A lookup from a location to an error finding reported at or inside it, among the kept
/// findings `eligible` accepts.
fn causes<'d>(
    out: &'d [Diagnostic],
    keep: &[bool],
    enabled: &impl Fn(&str) -> bool,
    eligible: impl Fn(&Diagnostic) -> bool,
) -> impl Fn(&olmlint_base::diag::Location) -> Option<usize> + 'd {
    use std::collections::HashMap;
    // Per file, the sites of error findings sorted by start: (start, end, finding).
    let mut sites: HashMap<usize, Vec<(u32, u32, usize)>> = HashMap::new();
    for (i, d) in out.iter().enumerate() {
        let kept = keep.get(i).copied().unwrap_or(false);
        if !kept
            || d.severity != olmlint_base::diag::Severity::Error
            || !enabled(d.rule)
            || !eligible(d)
        {
            continue;
        }
        let at = d
            .location
            .into_iter()
            .chain(d.related.iter().filter_map(|r| r.location));
        for l in at {
            sites
                .entry(l.file)
                .or_default()
                .push((l.span.start, l.span.end, i));
        }
    }
    for v in sites.values_mut() {
        v.sort_unstable();
    }
    move |l: &olmlint_base::diag::Location| {
        let v = sites.get(&l.file)?;
        let from = v.partition_point(|s| s.0 < l.span.start);
        v.get(from..)?
            .iter()
            .take_while(|s| s.0 <= l.span.end)
            .find(|s| s.1 <= l.span.end)
            .map(|s| s.2)
    }
}
