//! `olmlint resolve --target olmv1`: the bundle a ClusterExtension with these catalog fields
//! would install (operator-controller's `CatalogResolver.Resolve`), every candidate and why
//! it lost, OLM v1's own message when nothing is chosen, and for `--installed` the successor
//! it moves to. Load → model → [`olmlint_model::olmv1::resolve`].

use olmlint_load::{self as load, Limits};
use olmlint_model::index::Index;
use olmlint_model::olmv1::{self, Installed, PackageView, Policy, Resolution, Source};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct Request {
    pub package: String,
    /// Catalog directories with their `spec.priority`, in the order OLM v1 walks them.
    pub catalogs: Vec<(PathBuf, i32)>,
    pub channels: Vec<String>,
    /// `spec.source.catalog.version`; empty: unset.
    pub version: String,
    /// `--installed`: a bundle name, a version, or `NAME@VERSION`.
    pub installed: Option<String>,
    pub policy: Policy,
    /// The `BundleReleaseSupport` gate (from the profile of `--target olmv1=PROFILE`).
    pub bundle_release_support: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CandidateOut {
    pub bundle: String,
    pub catalog: String,
    pub version: Option<String>,
    pub outcome: &'static str,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct InstalledOut {
    /// `null` when only a version was given.
    pub name: Option<String>,
    pub version: String,
    /// Catalogs holding a bundle of that name.
    pub catalogs: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EdgeOut {
    pub channel: String,
    /// `replaces X`, `skips X`, `skipRange "R"`.
    pub edge: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SuccessorOut {
    pub bundle: String,
    pub version: String,
    pub catalog: String,
    /// `false` when the chosen bundle is the installed version: nothing moves.
    pub moves: bool,
    /// The entries making it a successor (empty when it stays, or under SelfCertified).
    pub via: Vec<EdgeOut>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Answer {
    pub target: &'static str,
    pub package: String,
    pub bundle: Option<String>,
    pub version: Option<String>,
    pub catalog: Option<String>,
    /// Every bundle of the package in every catalog, catalog by catalog, best-ranked first.
    pub candidates: Vec<CandidateOut>,
    /// OLM v1's resolution message when no bundle is chosen.
    pub explanation: Option<String>,
    /// The message the ClusterExtension's conditions then carry.
    pub condition: Option<String>,
    pub installed: Option<InstalledOut>,
    pub successor: Option<SuccessorOut>,
    /// What limits the answer, and what the API server would refuse.
    pub notes: Vec<String>,
}

/// The ClusterCatalog names: each directory's name, made unique with `-2`, `-3`, ….
pub fn catalog_names(paths: &[PathBuf]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(paths.len());
    for p in paths {
        let base = dir_name(p);
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        names.push(name);
    }
    names
}

fn dir_name(p: &Path) -> String {
    let named = |p: &Path| {
        let stem = if p.is_file() {
            p.file_stem()
        } else {
            p.file_name()
        };
        stem.map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty() && s != "." && s != "..")
    };
    named(p)
        .or_else(|| p.canonicalize().ok().and_then(|c| named(&c)))
        .unwrap_or_else(|| "catalog".to_string())
}

/// Resolve; `Err` is a usage error (a missing catalog, an `--installed` that is neither a
/// bundle nor a version).
pub fn run(req: &Request) -> Result<Answer, String> {
    if req.catalogs.is_empty() {
        return Err("no catalog given (--catalog PATH)".into());
    }
    for (p, _) in &req.catalogs {
        if !p.exists() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    let paths: Vec<PathBuf> = req.catalogs.iter().map(|(p, _)| p.clone()).collect();
    let names = catalog_names(&paths);
    // The same directory may serve two ClusterCatalogs: it is loaded once.
    let mut unique: Vec<(PathBuf, PathBuf)> = Vec::new();
    let scope_of: Vec<usize> = paths
        .iter()
        .map(|p| {
            let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
            unique
                .iter()
                .position(|(c, _)| *c == canonical)
                .unwrap_or_else(|| {
                    unique.push((canonical, p.clone()));
                    unique.len() - 1
                })
        })
        .collect();
    let to_load: Vec<PathBuf> = unique.into_iter().map(|(_, p)| p).collect();
    let files = load::load(&to_load, &Limits::default()).files;
    let catalogs: Vec<olmlint_model::Catalog<'_>> = (0..to_load.len())
        .map(|scope| olmlint_model::build(&files, scope, &mut Vec::new()))
        .collect();
    let indexes: Vec<Index<'_>> = catalogs.iter().map(Index::new).collect();
    let sources: Vec<Source<'_, '_>> = scope_of
        .iter()
        .zip(&names)
        .zip(&req.catalogs)
        .filter_map(|((&scope, name), (_, priority))| {
            Some(Source {
                name,
                priority: *priority,
                catalog: catalogs.get(scope)?,
                index: indexes.get(scope)?,
            })
        })
        .collect();
    let mut notes = Vec::new();
    let installed = match &req.installed {
        None => None,
        Some(text) => Some(installed(req, text, &sources, &mut notes)?),
    };
    let model_req = olmv1::Request {
        package: req.package.clone(),
        channels: req.channels.clone(),
        version: req.version.clone(),
        installed,
        policy: req.policy,
        bundle_release_support: req.bundle_release_support,
    };
    notes.splice(0..0, olmv1::resolve::admission_errors(&model_req));
    let res = olmv1::resolve(&model_req, &sources);
    Ok(answer(&model_req, &res, &names, notes))
}

/// `--installed`: a bundle of the package in the catalogs (its recorded version is looked
/// up), `NAME@VERSION`, or a bare version (name unknown).
fn installed(
    req: &Request,
    text: &str,
    sources: &[Source<'_, '_>],
    notes: &mut Vec<String>,
) -> Result<Installed, String> {
    if let Some((name, version)) = text.split_once('@') {
        olmlint_semantics::version::parse_strict(version).map_err(|e| {
            format!("--installed {text}: {version:?} is not a version as OLM v1 records one: {e}")
        })?;
        return Ok(Installed {
            name: Some(name.to_string()),
            version: version.to_string(),
        });
    }
    for src in sources {
        let view = PackageView::new(
            src.catalog,
            src.index,
            &req.package,
            req.bundle_release_support,
        );
        let Some(b) = view.bundle(text).and_then(|p| view.bundles.get(p)) else {
            continue;
        };
        return match &b.version {
            Ok(v) => Ok(Installed {
                name: Some(text.to_string()),
                version: v.to_string(),
            }),
            Err(e) => Err(format!(
                "--installed {text}: its olm.package version cannot be read ({e}), so OLM v1 cannot have installed it"
            )),
        };
    }
    match olmlint_semantics::version::parse_strict(text) {
        Ok(_) => {
            notes.push(format!(
                "--installed {text} is a version, so the installed bundle's name is unknown: OLM v1 matches `replaces` and `skips` against the recorded name, so only skipRanges and bundles of version {text} count as upgrades here (give --installed NAME@{text} to use the name)"
            ));
            Ok(Installed {
                name: None,
                version: text.to_string(),
            })
        }
        Err(e) => Err(format!(
            "--installed {text}: no bundle of {} has this name in the catalogs, and it is not a version ({e}); for a bundle no longer in the catalogs give NAME@VERSION",
            req.package
        )),
    }
}

fn answer(
    req: &olmv1::Request,
    res: &Resolution,
    names: &[String],
    mut notes: Vec<String>,
) -> Answer {
    let name_of = |i: usize| names.get(i).cloned().unwrap_or_default();
    let chosen = res.chosen.as_ref();
    let installed = req.installed.as_ref().map(|i| InstalledOut {
        name: i.name.clone(),
        version: i.version.clone(),
        catalogs: res.installed_in.iter().map(|&s| name_of(s)).collect(),
    });
    if let Some(i) = installed.as_ref().filter(|i| i.catalogs.is_empty()) {
        if let Some(n) = &i.name {
            notes.push(format!(
                "{n} is in none of the catalogs: OLM v1 still upgrades from it through any entry that replaces or skips it or has a skipRange containing {}; without one, resolution fails and the ClusterExtension keeps retrying (Progressing=True, Retrying) while the installed workload runs on without upgrades; only if the catalogs are deleted does OLM v1 go back to maintaining the installed bundle",
                i.version
            ));
        }
    }
    let successor = match (chosen, &req.installed) {
        (Some(c), Some(_)) => Some(SuccessorOut {
            bundle: c.bundle.clone(),
            version: c.version.clone(),
            catalog: name_of(c.source),
            moves: !res.stays,
            via: res
                .edges
                .iter()
                .map(|e| EdgeOut {
                    channel: e.channel.clone(),
                    edge: e.text.clone(),
                })
                .collect(),
        }),
        _ => None,
    };
    Answer {
        target: "olmv1",
        package: req.package.clone(),
        bundle: chosen.map(|c| c.bundle.clone()),
        version: chosen.map(|c| c.version.clone()),
        catalog: chosen.map(|c| name_of(c.source)),
        candidates: res
            .candidates
            .iter()
            .map(|c| CandidateOut {
                bundle: c.bundle.clone(),
                catalog: name_of(c.catalog),
                version: c.version.clone(),
                outcome: c.outcome.as_str(),
                reason: c.reason.clone(),
            })
            .collect(),
        explanation: res.error.clone(),
        condition: res.condition.clone(),
        installed,
        successor,
        notes,
    }
}

/// For people: the choice, the candidates and why each lost, the message when none.
pub fn render(a: &Answer) -> String {
    let wrap = crate::resolve::wrap;
    let mut out = String::new();
    match (&a.bundle, &a.explanation) {
        (Some(b), _) => out.push_str(&wrap(
            &format!(
                "{}: OLM v1 installs {b} (version {}) from catalog {}",
                a.package,
                a.version.as_deref().unwrap_or("?"),
                a.catalog.as_deref().unwrap_or("?")
            ),
            "",
            "  ",
        )),
        (None, e) => {
            out.push_str(&format!("{}: OLM v1 installs nothing\n", a.package));
            out.push_str(&wrap(
                &format!("OLM v1 reports: {}", e.as_deref().unwrap_or("")),
                "  ",
                "    ",
            ));
            if let Some(c) = &a.condition {
                out.push_str(&wrap(
                    &format!("ClusterExtension condition: {c}"),
                    "  ",
                    "    ",
                ));
            }
        }
    }
    if let Some(s) = &a.successor {
        let how = if !s.moves {
            "it stays on the installed version".to_string()
        } else if s.via.is_empty() {
            format!("it moves to {} (no successor filter)", s.bundle)
        } else {
            let via: Vec<String> = s
                .via
                .iter()
                .map(|e| format!("{} in channel {}", e.edge, e.channel))
                .collect();
            format!("it moves to {} ({})", s.bundle, via.join("; "))
        };
        let from = a.installed.as_ref().map_or(String::new(), |i| {
            i.name.clone().unwrap_or_else(|| i.version.clone())
        });
        out.push_str(&wrap(&format!("From {from}: {how}"), "  ", "    "));
    }
    if !a.candidates.is_empty() {
        out.push_str("Candidates (catalog by catalog, best-ranked first):\n");
    }
    out.push_str(&candidate_lines(&a.candidates));
    for n in &a.notes {
        out.push_str(&wrap(&format!("Note: {n}"), "", "  "));
    }
    out
}

/// Candidates shown per catalog and outcome before the rest are counted (JSON lists all).
const SHOWN_PER_OUTCOME: usize = 5;

/// One line per candidate, catalog by catalog; beyond [`SHOWN_PER_OUTCOME`] of one outcome
/// in one catalog, a count.
fn candidate_lines(candidates: &[CandidateOut]) -> String {
    let wrap = crate::resolve::wrap;
    let mut out = String::new();
    let mut i = 0;
    while let Some(first) = candidates.get(i) {
        let same_catalog = candidates
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.catalog == first.catalog)
            .count();
        let group = candidates.get(i..i + same_catalog).unwrap_or_default();
        let mut shown: Vec<(&str, usize)> = Vec::new();
        for c in group {
            let n = match shown.iter_mut().find(|(o, _)| *o == c.outcome) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    shown.push((c.outcome, 1));
                    1
                }
            };
            if n > SHOWN_PER_OUTCOME {
                continue;
            }
            let version = c.version.as_deref().unwrap_or("no version");
            let line = if c.reason.is_empty() {
                format!("{} {} [{}] {}", c.bundle, version, c.catalog, c.outcome)
            } else {
                format!(
                    "{} {} [{}] {}: {}",
                    c.bundle, version, c.catalog, c.outcome, c.reason
                )
            };
            out.push_str(&wrap(&line, "  - ", "    "));
        }
        for (outcome, n) in shown.iter().filter(|(_, n)| *n > SHOWN_PER_OUTCOME) {
            out.push_str(&format!(
                "  - … and {} more {outcome} in [{}] (-f json lists every candidate)\n",
                n - SHOWN_PER_OUTCOME,
                first.catalog
            ));
        }
        i += same_catalog.max(1);
    }
    out
}

/// The outcome of an answer as an exit code: 0 when a bundle is chosen, 1 otherwise.
pub fn exit_code(a: &Answer) -> i32 {
    i32::from(a.bundle.is_none())
}
