//! The whole pipeline for one `olmlint lint` run: load → model → checks → filters.

use olmlint_base::diag::Diagnostic;
use olmlint_check::config::Config;
use olmlint_check::{self as check, Ctx};
use olmlint_load::{self as load, LoadedFile};
use olmlint_report::Summary;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(Debug, Default, Clone)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub config: Option<PathBuf>,
    pub no_config: bool,
    /// Rules switched on (`--enable`) or off (`--disable`) on the command line.
    pub enable: Vec<String>,
    pub disable: Vec<String>,
    /// PR-scoped linting: load the whole catalogs holding these files, but report only
    /// findings located in them or about bundles they define.
    pub only_files: Vec<PathBuf>,
    /// Files deleted since `--changed-since REF`: the catalogs that held them are linted
    /// whole, since what a deletion breaks (a channel entry, a dependency) can be anywhere in
    /// them; the caller keeps of those findings the ones that are new since REF.
    pub deleted: Vec<PathBuf>,
    /// Catalogs dependencies may be satisfied from (`--context`): loaded and used as
    /// candidates, never linted. Earlier ones are preferred (higher priority).
    pub context: Vec<PathBuf>,
    /// Wall-clock budget in seconds for the run (`--timeout`), over `limits.timeout`.
    pub timeout: Option<f64>,
    /// The previous version of the (single) linted catalog (`--baseline`): enables the
    /// upgrade-safety rules OLM701–704. Loaded like a context catalog, never linted.
    pub baseline: Option<PathBuf>,
    /// The target cluster's properties and constraints (`--cluster-properties`): OLM720.
    pub cluster_properties: Option<PathBuf>,
    /// `--closed-world`: dependencies found in no loaded catalog are errors (OLM503).
    pub closed_world: bool,
    /// `--target`, over the configuration's `targets:`.
    pub targets: Option<olmlint_semantics::olmv1::Targets>,
    /// `--olmv1-feature-gates NAME=BOOL,…`, over the profile's gates.
    pub olmv1_feature_gates: Option<String>,
    /// The process exits right after this run: leave the per-catalog model to the OS instead
    /// of freeing it node by node.
    pub exiting: bool,
    /// Also draw the upgrade graphs of these channels (`olmlint graph`) from the models the
    /// checks use, into [`Outcome::graphs`].
    pub graph: Option<olmlint_report::graph::Filter>,
    /// The paths are already the catalogs (the snapshot of a change-scoped run's catalogs at
    /// the base ref): no discovery, one catalog per path.
    pub planned: bool,
    /// A change-scoped run's catalogs, once decided ([`change_roots`]): those holding a
    /// changed or deleted file, and those holding a deleted file. Discovery of a given
    /// directory (its Dockerfiles, its pipelines) runs once per run, not once per stage.
    pub change_catalogs: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
    /// An editor's unsaved buffers (`olmlint server`), read in place of the disk's files.
    pub overlay: Option<std::sync::Arc<load::overlay::Overlay>>,
    /// Set when the run is no longer wanted: the checks stop early ([`Config::expired`]).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// A quick run (`olmlint server`, while a large catalog is edited): no resolution, and
    /// none of the rule families that read it ([`olmlint_check::Found::deferred`]).
    pub quick: bool,
}

pub struct Outcome {
    pub files: Vec<LoadedFile>,
    pub diags: Vec<Diagnostic>,
    pub summary: Summary,
    /// What the run decided that the user should know (printed with the summary).
    pub notes: Vec<String>,
    /// The catalogs linted and why each is one (the plan; change-scoped runs: the catalogs
    /// holding the changed files).
    pub catalogs: Vec<load::discover::Planned>,
    /// The catalogs linted (not context or baseline): where `--fix` may write.
    pub roots: Vec<PathBuf>,
    /// `limits.max-findings-per-rule-per-file`, for [`Outcome::cap_for_report`].
    pub max_findings_per_rule_per_file: usize,
    /// The configuration file the run used (given or discovered).
    pub config_path: Option<PathBuf>,
    /// `limits.max-file-size`: also bounds the files the report stage reads.
    pub max_file_size: u64,
    /// With [`Options::graph`]: the linted catalogs' upgrade graphs, findings not overlaid.
    pub graphs: Vec<olmlint_report::graph::PackageGraph>,
}

impl Outcome {
    /// The report's bound on findings: applied to what is shown, never to what `--fix`
    /// plans from (a capped list would fix a file in several passes).
    pub fn cap_for_report(&mut self) {
        let (diags, not_shown) = cap_findings(
            std::mem::take(&mut self.diags),
            self.max_findings_per_rule_per_file,
        );
        self.diags = diags;
        self.summary.not_shown = not_shown;
    }
}

/// The discovery stage: what each given path stands for ([`load::discover::plan`]): the
/// catalogs a repository's builds produce, an operator repository's parts, per-release
/// catalogs, the templates and bundle directories beside them, or the path itself. A catalog
/// named twice (two given paths leading to it) is linted once.
fn plan_paths(paths: Vec<PathBuf>, notes: &mut Vec<String>) -> Vec<load::discover::Planned> {
    let mut planned: Vec<load::discover::Planned> = Vec::new();
    for p in paths {
        let found = load::discover::plan(&p);
        notes.extend(found.notes);
        for c in found.catalogs {
            if !planned.iter().any(|q| q.path == c.path) {
                planned.push(c);
            }
        }
    }
    planned
}

/// A file that fails to load as catalog content inside a catalog an image copies (a README, a
/// script beside the catalog files): opm in the image reads it too. The help says which build
/// copies it and how to leave it out.
fn inside_images(
    mut diags: Vec<Diagnostic>,
    files: &[LoadedFile],
    catalogs: &[load::discover::Planned],
) -> Vec<Diagnostic> {
    for d in &mut diags {
        if !matches!(d.rule, "OLM001" | "OLM002" | "OLM003") {
            continue;
        }
        let Some(file) = d.location.as_ref().and_then(|l| files.get(l.file)) else {
            continue;
        };
        let Some(load::discover::Why::Image(builds)) = catalogs.get(file.scope).map(|c| &c.why)
        else {
            continue;
        };
        let Some(build) = builds.first() else {
            continue;
        };
        let also = format!(
            "This file is inside the catalog that {}:{} copies into {}: opm in the image reads it too, and `opm serve` fails on it. If it is not catalog content, list it in the catalog's `.indexignore` (or move it out of the catalog directory).",
            load::display_path(&build.dockerfile),
            build.line,
            build.dest
        );
        d.help = Some(match d.help.take() {
            Some(h) => format!("{h} {also}"),
            None => also,
        });
    }
    diags
}

/// The catalogs the run lints: the given paths (default `.`) through discovery; the catalogs
/// holding the changed files (change-scoped); the paths as they are (`planned`).
fn catalogs_to_lint(opts: &Options, notes: &mut Vec<String>) -> Vec<load::discover::Planned> {
    let paths = if change_scoped(opts) {
        change_roots(opts)
    } else if opts.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        opts.paths.clone()
    };
    let as_they_are = |why: load::discover::Why| {
        move |path: PathBuf| load::discover::Planned {
            path,
            why: why.clone(),
        }
    };
    if opts.planned {
        paths
            .into_iter()
            .map(as_they_are(load::discover::Why::Given))
            .collect()
    } else if change_scoped(opts) {
        paths
            .into_iter()
            .map(as_they_are(load::discover::Why::Changed))
            .collect()
    } else {
        plan_paths(paths, notes)
    }
}

/// `catalogs:` in the configuration replaces what discovery found, when no path was given.
fn configured_catalogs(
    opts: &Options,
    config: &Config,
    paths: Vec<PathBuf>,
    catalogs: Vec<load::discover::Planned>,
    notes: &mut Vec<String>,
) -> (Vec<PathBuf>, Vec<load::discover::Planned>) {
    match &config.catalogs {
        Some(listed) if opts.paths.is_empty() && !change_scoped(opts) => {
            notes.push(format!(
                "linting the {} catalog(s) listed under `catalogs:` in the configuration",
                listed.len()
            ));
            let planned = listed
                .iter()
                .map(|p| load::discover::Planned {
                    path: p.clone(),
                    why: load::discover::Why::Configured,
                })
                .collect();
            (listed.clone(), planned)
        }
        _ => (paths, catalogs),
    }
}

/// OLM013: the run found no catalog file, with what it searched and why nothing matched;
/// never a silent green run.
fn nothing_found(opts: &Options, plan: &Plan) -> Diagnostic {
    let given: Vec<String> = if opts.paths.is_empty() {
        vec![".".into()]
    } else {
        opts.paths.iter().map(|p| load::display_path(p)).collect()
    };
    let searched: Vec<String> = plan
        .catalogs
        .iter()
        .map(load::discover::Planned::describe)
        .collect();
    let why = if plan.catalogs.is_empty() {
        "no catalog, template or bundle directory was found there".to_string()
    } else {
        format!(
            "searched {}: every file there is empty of catalog content or excluded by `.indexignore`",
            searched.join(", ")
        )
    };
    let mut message = format!("no catalog file was found in {}: {why}", given.join(", "));
    if let Some(note) = plan
        .notes
        .iter()
        .find(|n| n.contains("not in the repository"))
    {
        message.push_str(&format!(" ({note})"));
    }
    Diagnostic::new("OLM013", olmlint_base::diag::bounded(message, olmlint_base::diag::MAX_MESSAGE))
        .help("Name the catalog directory (`olmlint lint catalog/`), commit the catalog the Dockerfile copies into `/configs`, or lint the templates it is rendered from. A run that reads nothing proves nothing, so it is not reported as clean.")
}

/// Whether the run is change-scoped: `--only-files`, or `--changed-since` (which may have
/// only deleted files).
fn change_scoped(opts: &Options) -> bool {
    !opts.only_files.is_empty() || !opts.deleted.is_empty()
}

/// The catalogs a change-scoped run lints: those holding a changed or deleted file (a
/// catalog deleted whole is not among them), an operator's whole directory for a file of it,
/// and the rendered catalogs a changed template is paired with ([`load::discover::changed`]).
pub fn change_roots(opts: &Options) -> Vec<PathBuf> {
    if let Some((roots, _)) = &opts.change_catalogs {
        return roots.clone();
    }
    let files: Vec<PathBuf> = opts
        .only_files
        .iter()
        .chain(&opts.deleted)
        .cloned()
        .collect();
    let (mut roots, companions) =
        load::discover::changed::roots_and_companions(&files, &opts.paths);
    roots.retain(|r| r.exists());
    // A changed template is judged with the rendered catalogs of its build, and the other
    // way round, as the whole build judges them.
    roots.extend(companions);
    roots
}

/// The catalogs that held a deleted file (see [`change_roots`]).
pub fn deletion_roots(opts: &Options) -> Vec<PathBuf> {
    match &opts.change_catalogs {
        Some((_, deleted)) => deleted.clone(),
        None => load::discover::changed::roots(&opts.deleted, &opts.paths),
    }
}

/// The changed files whose real path leaves the repository (a link a pull request
/// committed): one OLM001 each, naming the link, never reading its target.
fn links_out_of_the_repository(only_files: &[PathBuf]) -> Vec<Diagnostic> {
    only_files
        .iter()
        .filter(|f| olmlint_load::io::leaves_repository(f))
        .map(|f| {
            Diagnostic::new(
                "OLM001",
                format!(
                    "{}: symbolic link (or a directory on its path) to a target outside the repository; not read",
                    load::display_path(f)
                ),
            )
            .help("A changed file is linted where it is: commit the file instead of a link to it. olmlint never reads outside the repository what a pull request's links point to.")
        })
        .collect()
}

/// One `olmlint lint` run: the stages below, once; again with the operators of the linted
/// catalogs' repository that may provide what no loaded catalog has, when there are such
/// (see [`crate::repository_context`]).
pub fn run(opts: &Options) -> Result<Outcome, String> {
    let outcome = run_stages(opts)?;
    let providers =
        crate::repository_context::providers(&outcome.roots, &opts.context, &outcome.diags);
    if providers.is_empty() {
        return Ok(outcome);
    }
    let names: Vec<String> = providers.iter().map(|p| load::display_path(p)).collect();
    // A server's cache keeps the first run's parses for the second.
    if let Some(overlay) = &opts.overlay {
        overlay.give_back(outcome.files);
    }
    let mut wider = opts.clone();
    wider.context.extend(providers);
    let mut outcome = run_stages(&wider)?;
    outcome.notes.push(format!(
        "dependencies on operators of this repository resolved with {} as context",
        names.join(", ")
    ));
    Ok(outcome)
}

/// The stages of one run: plan, load, check, filter.
fn run_stages(opts: &Options) -> Result<Outcome, String> {
    let mut plan = plan(opts)?;
    let read = read(opts, &mut plan);
    let (per_scope, graphs, sups) = check(opts, &plan.config, &read);
    olmlint_base::timings::mark("catalogs checked");
    Ok(olmlint_base::timings::phase("filter", || {
        filter(opts, plan, read, per_scope, graphs, &sups)
    }))
}

/// What a run reads, decided before anything is loaded: the linted catalogs, the
/// configuration (given or discovered), the cluster file, the context catalogs.
struct Plan {
    /// The linted catalogs, one scope each.
    paths: Vec<PathBuf>,
    /// The same, with why each is one (the discovery stage's decision).
    catalogs: Vec<load::discover::Planned>,
    notes: Vec<String>,
    config_path: Option<PathBuf>,
    config: Config,
    config_file: Option<LoadedFile>,
    config_diags: Vec<Diagnostic>,
    /// `--cluster-properties` (or the configuration's) and its bytes.
    cluster: Option<(PathBuf, Vec<u8>)>,
    context_paths: Vec<PathBuf>,
    /// The operator repository's `config.yaml` the linted catalogs are in, if any.
    repository_config: Option<PathBuf>,
}

/// `--target` and `--olmv1-feature-gates` over the configuration's: which rule families run.
fn targets(opts: &Options, config: &mut Config) -> Result<(), String> {
    if let Some(t) = &opts.targets {
        config.targets = t.clone();
    }
    if let Some(gates) = &opts.olmv1_feature_gates {
        let Some(profile) = config.targets.olmv1.as_mut() else {
            return Err("--olmv1-feature-gates needs --target olmv1 (or `targets: [olmv1]` in .olmlint.yaml)".into());
        };
        profile
            .gates
            .apply(gates)
            .map_err(|e| format!("--olmv1-feature-gates: {e}"))?;
    }
    olmlint_check::olmv1::apply_targets(config);
    Ok(())
}

/// The plan stage: paths, configuration and the files given beside the catalogs; every
/// usage error (an unknown rule, a missing `--context`) is found here.
fn plan(opts: &Options) -> Result<Plan, String> {
    let mut notes = Vec::new();
    let catalogs = catalogs_to_lint(opts, &mut notes);
    let paths: Vec<PathBuf> = catalogs.iter().map(|c| c.path.clone()).collect();
    let config_path = match (&opts.config, opts.no_config) {
        (_, true) => None,
        (Some(p), _) => Some(p.clone()),
        (None, _) => match paths.first() {
            Some(p) => Config::discover(p)?,
            None => None,
        },
    };
    let (mut config, config_file, config_diags) = match &config_path {
        Some(p) => {
            let (c, f, d) = match opts.overlay.as_ref().and_then(|o| o.buffer(p)) {
                Some(text) => Config::from_bytes(p, text.as_bytes().to_vec())?,
                None => Config::load(p)?,
            };
            (c, Some(f), d)
        }
        None => (
            Config::defaults(std::env::current_dir().unwrap_or_default()),
            None,
            vec![],
        ),
    };
    let (paths, catalogs) = configured_catalogs(opts, &config, paths, catalogs, &mut notes);
    targets(opts, &mut config)?;
    for (list, on) in [(&opts.enable, true), (&opts.disable, false)] {
        for id in list {
            let rule = olmlint_base::rules::get(id)
                .ok_or_else(|| format!("unknown rule `{id}` (see `olmlint rules`)"))?;
            config.set_enabled(rule.id, on);
        }
    }
    if let Some(t) = opts.timeout {
        config.timeout = Some(t);
    }
    let cluster_path = opts
        .cluster_properties
        .clone()
        .or_else(|| config.cluster_properties.clone());
    match &cluster_path {
        Some(_) => config.enable_unless_off("OLM720"),
        None if opts
            .enable
            .iter()
            .any(|r| olmlint_base::rules::get(r).is_some_and(|x| x.id == "OLM720")) =>
        {
            return Err("OLM720 needs --cluster-properties FILE (or `cluster-properties:` in .olmlint.yaml): the target cluster's properties and constraints".into());
        }
        None => {}
    }
    let cluster = match cluster_path {
        Some(p) => {
            let bytes = olmlint_load::io::refuse_leaving(&p)
                .and_then(|()| {
                    olmlint_load::io::read_regular(&p, config.limits.max_file_size)
                        .map_err(|e| e.to_string())
                })
                .map_err(|e| format!("--cluster-properties {}: {e}", p.display()))?;
            Some((p, bytes))
        }
        None => None,
    };
    config.cancel = opts.cancel.clone();
    config.quick = opts.quick;
    config.deadline = config
        .timeout
        .map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t.min(1e9)));
    let context_paths: Vec<PathBuf> = opts
        .context
        .iter()
        .chain(&config.context)
        .cloned()
        .collect();
    for c in &context_paths {
        if !c.exists() {
            return Err(format!(
                "--context {}: no such file or directory",
                c.display()
            ));
        }
    }
    if let Some(b) = &opts.baseline {
        if !b.exists() {
            return Err(format!(
                "--baseline {}: no such file or directory",
                b.display()
            ));
        }
        if paths.len() != 1 {
            return Err(format!(
                "--baseline compares one catalog with its previous version, but {} catalogs were given",
                paths.len()
            ));
        }
    }
    let repository_config = paths.iter().find_map(|p| load::walk::repository_config(p));
    Ok(Plan {
        paths,
        catalogs,
        notes,
        config_path,
        config,
        config_file,
        config_diags,
        cluster,
        context_paths,
        repository_config,
    })
}

/// The files of every catalog (linted, context, baseline), the findings about what could
/// not be read, and the configuration and cluster files among them.
struct Read {
    files: Vec<LoadedFile>,
    diags: Vec<Diagnostic>,
    /// Every catalog path by scope: the linted ones, the context ones, the baseline.
    all_paths: Vec<PathBuf>,
    linted_scopes: usize,
    context_end: usize,
    lint_file_count: usize,
    config_index: Option<usize>,
    cluster: Option<olmlint_model::cluster::ClusterPolicy>,
    repository: Option<olmlint_model::repository::RepositoryConfig>,
}

/// The load stage: every catalog read in parallel, then the configuration and cluster files
/// appended (findings point into them).
fn read(opts: &Options, plan: &mut Plan) -> Read {
    let limits = load::Limits {
        overlay: opts.overlay.clone(),
        ..plan.config.limits.clone()
    };
    let linted_scopes = plan.paths.len();
    let context_end = linted_scopes + plan.context_paths.len();
    let all_paths: Vec<PathBuf> = plan
        .paths
        .iter()
        .chain(&plan.context_paths)
        .chain(&opts.baseline)
        .cloned()
        .collect();
    let loaded = olmlint_base::timings::phase("load", || load::load(&all_paths, &limits));
    let mut files = loaded.files;
    // The cluster file may live in the catalog tree; it is never catalog content.
    if let Some(cp) = plan
        .cluster
        .as_ref()
        .and_then(|(p, _)| std::fs::canonicalize(p).ok())
    {
        files.retain(|f| {
            f.source.path.file_name() != cp.file_name()
                || std::fs::canonicalize(&f.source.path).ok().as_ref() != Some(&cp)
        });
    }
    let mut diags: Vec<Diagnostic> = loaded
        .io_problems
        .iter()
        .map(|p| Diagnostic::new("OLM001", format!("{}: {}", p.display, p.message)).help(p.help))
        .collect();
    // Context and baseline catalogs are not linted, but a file of theirs that could not be
    // read whole (a syntax error, a limit) changes what the checks compare with: say so.
    for (scope, what) in (linted_scopes..=context_end).map(|s| {
        let what = if s == context_end {
            "--baseline"
        } else {
            "--context"
        };
        (s, what)
    }) {
        let broken: Vec<&LoadedFile> = files
            .iter()
            .filter(|f| f.scope == scope && !f.problems.is_empty())
            .collect();
        if let Some(first) = broken.first() {
            let path = all_paths
                .get(scope)
                .map_or(String::new(), |p| p.display().to_string());
            let message = first.problems.first().map_or("", |p| p.message.as_str());
            plan.notes.push(olmlint_base::diag::bounded(
                format!(
                    "{what} {path}: {} file(s) could not be read completely (e.g. {}: {message}); the checks that use it see only what was read",
                    broken.len(),
                    first.source.display
                ),
                olmlint_base::diag::MAX_MESSAGE,
            ));
        }
    }
    let lint_file_count = files.iter().filter(|f| f.scope < linted_scopes).count();
    // Nothing read and nothing said about why (a refused link, an unreadable path is its
    // own finding).
    if lint_file_count == 0 && diags.is_empty() && !change_scoped(opts) {
        diags.push(nothing_found(opts, plan));
    }
    let config_index = plan.config_file.as_ref().map(|_| files.len());
    if let Some(cf) = plan.config_file.take() {
        let idx = files.len();
        files.push(cf);
        diags.extend(
            std::mem::take(&mut plan.config_diags)
                .into_iter()
                .map(|mut d| {
                    if let Some(l) = d.location.as_mut() {
                        l.file = idx;
                    }
                    d
                }),
        );
    }
    let cluster = plan.cluster.take().map(|(path, bytes)| {
        let mut file = load::parse_bytes(
            load::display_path(&path),
            path,
            load::Role::Config,
            bytes,
            &limits,
        );
        // In no catalog: its syntax errors must not hold back any catalog's findings.
        file.scope = usize::MAX;
        let idx = files.len();
        diags.extend(file.problems.iter().map(|p| {
            Diagnostic::new("OLM011", format!("{}: {}", file.source.display, p.message))
                .at(idx, p.span)
                .help(p.help.clone())
        }));
        let root = file.docs.first().and_then(|d| d.root.as_ref());
        let policy = olmlint_model::cluster::ClusterPolicy::read(
            idx,
            file.source.display.clone(),
            root,
            &file.source.text,
            &mut diags,
        );
        files.push(file);
        policy
    });
    let repository = plan
        .repository_config
        .as_ref()
        .and_then(|p| repository_config(p, &limits, &mut files));
    Read {
        files,
        diags,
        all_paths,
        linted_scopes,
        context_end,
        lint_file_count,
        config_index,
        cluster,
        repository,
    }
}

/// The findings of the pipeline checks the repository's `config.yaml` waives for their
/// operator (`tests[].ignore_operators`), left out with a note naming the waivers.
fn waive(
    diags: Vec<Diagnostic>,
    files: &[LoadedFile],
    repository: Option<&olmlint_model::repository::RepositoryConfig>,
    notes: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let Some(repo) = repository else {
        return diags;
    };
    let (kept, waived) = check::waivers::apply(diags, files, repo);
    if waived.count > 0 {
        let used: Vec<String> = waived
            .used
            .iter()
            .take(5)
            .map(|(check, op, pattern)| format!("{check} for {op} ({pattern:?})"))
            .collect();
        notes.push(format!(
            "{} finding(s) not reported: config.yaml waives {}{}",
            waived.count,
            used.join(", "),
            if waived.used.len() > 5 {
                " and more"
            } else {
                ""
            }
        ));
    }
    kept
}

/// The operator repository's `config.yaml`, read as the pipelines read it (in no catalog:
/// neither linted nor catalog content; findings may point into it). One the pipelines could
/// not read either (unreadable, too large, not YAML) is left out.
fn repository_config(
    path: &std::path::Path,
    limits: &load::Limits,
    files: &mut Vec<LoadedFile>,
) -> Option<olmlint_model::repository::RepositoryConfig> {
    let bytes = olmlint_load::io::read_regular(path, limits.max_file_size).ok()?;
    let mut file = load::parse_bytes(
        load::display_path(path),
        path.to_path_buf(),
        load::Role::Config,
        bytes,
        limits,
    );
    file.scope = usize::MAX;
    let idx = files.len();
    let config = olmlint_model::repository::RepositoryConfig::read(
        idx,
        file.docs.first().and_then(|d| d.root.as_ref()),
    );
    files.push(file);
    Some(config)
}

/// The check stage: the context catalogs and the baseline modelled once, shared by every
/// linted catalog; the catalogs checked ([`check_scopes`]) while the suppression comments are
/// collected.
fn check(
    opts: &Options,
    config: &Config,
    read: &Read,
) -> (
    Vec<ScopeFindings>,
    Vec<olmlint_report::graph::PackageGraph>,
    Vec<olmlint_check::suppress::Suppression>,
) {
    let Read {
        files,
        all_paths,
        linted_scopes,
        context_end,
        cluster,
        repository,
        ..
    } = read;
    let (files, linted_scopes, context_end) = (files.as_slice(), *linted_scopes, *context_end);
    let provided = olmlint_model::resolution::Provided {
        packages: config.provided_packages.clone(),
        gvks: config.provided_gvks.clone(),
        open_world: !(config.closed_world || opts.closed_world),
    };
    // Context catalogs: modelled once, shared by every linted catalog; their findings are
    // not ours to report.
    let context: Vec<(String, olmlint_model::Catalog<'_>)> = (linted_scopes..context_end)
        .into_par_iter()
        .map(|scope| {
            let name = all_paths
                .get(scope)
                .map_or(String::new(), |p| p.display().to_string());
            (name, olmlint_model::build(files, scope, &mut Vec::new()))
        })
        .collect();
    let context_index: Vec<olmlint_model::index::Index<'_>> = context
        .iter()
        .map(|(_, c)| olmlint_model::index::Index::new(c))
        .collect();
    // The baseline: modelled and resolved once, with the same context catalogs.
    let baseline_catalog = opts.baseline.as_ref().map(|_| {
        olmlint_base::timings::phase("baseline model", || {
            olmlint_model::build(files, context_end, &mut Vec::new())
        })
    });
    let baseline_index = baseline_catalog
        .as_ref()
        .map(olmlint_model::index::Index::new);
    let baseline_parts =
        baseline_catalog
            .as_ref()
            .zip(baseline_index.as_ref())
            .map(|(cat, index)| {
                let name = opts
                    .baseline
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string());
                let sources = sources(name, cat, index, &context, &context_index);
                let resolution = olmlint_base::timings::phase("baseline resolution", || {
                    olmlint_model::resolution::build(&sources, config.cel_budget(), &provided)
                });
                let catalogs: Vec<&olmlint_model::Catalog<'_>> =
                    sources.iter().map(|s| s.catalog).collect();
                (cat, index, resolution, catalogs)
            });
    let baseline = baseline_parts
        .as_ref()
        .map(|(catalog, index, resolution, catalogs)| check::Baseline {
            catalog,
            index,
            resolution,
            catalogs,
        });
    // What a change-scoped run's change touches (the pipelines judge what a pull request
    // adds by their own rules).
    let changed: Option<Vec<PathBuf>> = change_scoped(opts).then(|| {
        opts.only_files
            .iter()
            .filter(|f| !olmlint_load::io::leaves_repository(f))
            .map(|f| olmlint_load::io::absolute(f))
            .collect()
    });
    // One catalog per command-line path; catalogs are modelled and checked in parallel.
    let scopes: std::collections::BTreeSet<usize> = files
        .iter()
        .filter(|f| f.role != load::Role::Config && f.scope < linted_scopes)
        .map(|f| f.scope)
        .collect();
    let env = CheckEnv {
        files,
        config,
        context: &context,
        context_index: &context_index,
        provided: &provided,
        baseline: baseline.as_ref(),
        cluster: cluster.as_ref(),
        repository: repository.as_ref(),
        changed: changed.as_deref(),
        exiting: opts.exiting,
    };
    // The suppression comments are found while the catalogs are checked.
    let ((per_scope, graphs), sups) = rayon::join(
        || check_scopes(&env, &scopes, all_paths, linted_scopes, opts),
        || {
            olmlint_base::timings::phase("suppression comments", || {
                olmlint_check::suppress::collect(files)
            })
        },
    );
    (per_scope, graphs, sups)
}

/// Each linted catalog modelled once and checked, in parallel; then the templates rendered
/// into them, checked with their models; and, for `olmlint graph`, the upgrade graphs drawn
/// from those models.
fn check_scopes<'a>(
    env: &CheckEnv<'_, 'a>,
    scopes: &std::collections::BTreeSet<usize>,
    all_paths: &[PathBuf],
    linted_scopes: usize,
    opts: &Options,
) -> (Vec<ScopeFindings>, Vec<olmlint_report::graph::PackageGraph>) {
    let files = env.files;
    // Basic templates' graphs, drawn where their catalogs are checked (in batches, in parallel).
    let template_graphs_out: std::sync::Mutex<Vec<olmlint_report::graph::PackageGraph>> =
        std::sync::Mutex::new(Vec::new());
    // Each catalog is modelled once; the models are kept for the templates rendered into
    // them (their bundles' dependencies resolve there, their drift is measured there).
    let checked: Vec<(usize, ScopeModel<'_>, Vec<Diagnostic>)> = scopes
        .par_iter()
        .map(|&scope| {
            let mut diags = Vec::new();
            let catalog = olmlint_base::timings::phase("model", || {
                olmlint_model::build(files, scope, &mut diags)
            });
            // The catalog as the user named it (OLM501 explanations quote it).
            let name = all_paths.get(scope).map_or_else(
                || {
                    files
                        .iter()
                        .find(|f| f.scope == scope)
                        .map_or(String::new(), |f| f.source.display.clone())
                },
                |p| olmlint_load::display_path(p),
            );
            let model = ScopeModel::new(name, catalog);
            diags.extend(env.check_catalog(&model, scope, true, &[]));
            (scope, model, diags)
        })
        .collect();
    let models: std::collections::HashMap<usize, &ScopeModel<'_>> =
        checked.iter().map(|(s, m, _)| (*s, m)).collect();
    // Catalog templates: what maintainers edit, checked like the catalogs they render to.
    let templates = olmlint_base::timings::phase("templates", || {
        let catalogs = models.iter().map(|(s, m)| (*s, &m.catalog)).collect();
        check::template::check_all(
            files,
            linted_scopes,
            &catalogs,
            &|catalog, scope, name, extra| {
                let extra: Vec<&ScopeModel<'_>> = extra
                    .iter()
                    .filter_map(|s| models.get(s).copied())
                    .collect();
                let model = ScopeModel::new(name, catalog);
                if let Some(filter) = &opts.graph {
                    let drawn = template_graphs(files, &model.catalog, filter);
                    if let Ok(mut g) = template_graphs_out.lock() {
                        g.extend(drawn);
                    }
                }
                env.check_catalog(&model, scope, false, &extra)
            },
        )
    });
    drop(models);
    // The upgrade graphs (`olmlint graph`, the HTML report), from the models just checked.
    let graphs = opts.graph.as_ref().map_or_else(Vec::new, |filter| {
        let drawn = template_graphs_out
            .lock()
            .map(|mut g| std::mem::take(&mut *g))
            .unwrap_or_default();
        let olmv1 = env
            .config
            .targets
            .olmv1
            .as_ref()
            .map(|p| p.gates.bundle_release_support);
        draw_graphs(files, &checked, drawn, &templates.1, filter, olmv1)
    });
    let mut per_scope = Vec::with_capacity(checked.len() + 1);
    for (_, model, diags) in checked {
        let counts = [
            model.catalog.documents,
            model.catalog.packages.len(),
            model.catalog.bundles.len(),
        ];
        per_scope.push((diags, counts));
        if opts.exiting {
            // Freeing the model piece by piece costs ≈ 0.45 s at 100 000 bundles.
            std::mem::forget(model);
        }
    }
    // Templates whose packages no linted catalog holds count their packages and bundles.
    per_scope.push((templates.0, [0, templates.2[0], templates.2[1]]));
    (per_scope, graphs)
}

/// The filter stage: the configuration's levels and suppressions, inline suppression
/// comments, and (change-scoped runs) only the findings in the changed files; then the
/// outcome, sorted and counted.
fn filter(
    opts: &Options,
    plan: Plan,
    read: Read,
    per_scope: Vec<ScopeFindings>,
    graphs: Vec<olmlint_report::graph::PackageGraph>,
    sups: &[olmlint_check::suppress::Suppression],
) -> Outcome {
    let Plan {
        paths,
        catalogs,
        mut notes,
        config_path,
        config,
        ..
    } = plan;
    let Read {
        files,
        mut diags,
        lint_file_count,
        config_index,
        repository,
        ..
    } = read;
    let only: HashSet<PathBuf> = opts
        .only_files
        .iter()
        .filter(|f| !olmlint_load::io::leaves_repository(f))
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    let mut counts = [0usize; 3];
    for (d, c) in per_scope {
        diags.extend(d);
        for (total, n) in counts.iter_mut().zip(c) {
            *total += n;
        }
    }
    let diags = config.apply(diags, &files);
    let diags = inside_images(diags, &files, &catalogs);
    let diags = drop_embedded_fixes(diags, &files);
    let complete = !config.quick && !config.expired();
    let mut diags = olmlint_check::suppress::apply(diags, &files, sups, complete);
    let diags = config.suppress(std::mem::take(&mut diags), &files, config_index);
    let diags = config.apply(diags, &files);
    let diags = waive(diags, &files, repository.as_ref(), &mut notes);
    let mut summary = Summary {
        files: lint_file_count,
        documents: counts[0],
        packages: counts[1],
        bundles: counts[2],
        ..Default::default()
    };
    let mut diags = if change_scoped(opts) {
        let deleted = deletion_roots(opts);
        let whole: HashSet<usize> = (0..paths.len())
            .filter(|&s| paths.get(s).is_some_and(|p| deleted.contains(p)))
            .collect();
        let mut diags = scope_to_files(diags, &files, &only, &whole);
        diags.extend(links_out_of_the_repository(&opts.only_files));
        diags
    } else {
        diags
    };
    olmlint_report::sort(&mut diags, &files);
    summary.count(&diags);
    Outcome {
        roots: paths,
        catalogs,
        notes,
        files,
        diags,
        summary,
        max_findings_per_rule_per_file: config.max_findings_per_rule_per_file,
        config_path,
        max_file_size: config.limits.max_file_size,
        graphs,
    }
}

/// Related locations (not counting folded findings) one finding lists.
const MAX_RELATED_LOCATIONS: usize = 64;

/// The report's bound on findings (`limits.max-findings-per-rule-per-file`): the last finding
/// kept of a rule in a file says how many more there are. Returns how many were left out.
fn cap_findings(diags: Vec<Diagnostic>, limit: usize) -> (Vec<Diagnostic>, usize) {
    let mut diags = olmlint_base::diag::cap_per_rule_and_file(diags, limit);
    // Related locations too: an explanation through a chain of 1 000 packages named every
    // link in every finding (output quadratic in the chain). Folded findings stay: they
    // are verdicts.
    for d in &mut diags {
        let plain = d.related.iter().filter(|r| r.folded.is_none()).count();
        if plain > MAX_RELATED_LOCATIONS {
            let mut seen = 0;
            d.related.retain(|r| {
                if r.folded.is_some() {
                    return true;
                }
                seen += 1;
                seen <= MAX_RELATED_LOCATIONS
            });
            d.related.push(olmlint_base::diag::Related {
                message: format!(
                    "… and {} more related location(s), not shown",
                    plain - MAX_RELATED_LOCATIONS
                ),
                location: None,
                folded: None,
            });
        }
    }
    let mut left_out = 0;
    for d in diags.iter_mut().filter(|d| d.omitted > 0) {
        left_out += d.omitted;
        let place = if d.location.is_some() {
            "in this file"
        } else {
            "without a file"
        };
        let note = format!(
            "{} more {} finding(s) {place} are not shown (the report lists at most {limit} of one rule in one file: `limits.max-findings-per-rule-per-file`)",
            d.omitted, d.rule
        );
        d.related.push(olmlint_base::diag::Related {
            message: note,
            location: None,
            folded: None,
        });
    }
    (diags, left_out)
}

/// What checking one catalog needs besides the catalog: the loaded files, the configuration,
/// the context catalogs, the baseline and the cluster.
struct CheckEnv<'e, 'a> {
    files: &'a [LoadedFile],
    config: &'e Config,
    context: &'e [(String, olmlint_model::Catalog<'a>)],
    context_index: &'e [olmlint_model::index::Index<'a>],
    provided: &'e olmlint_model::resolution::Provided,
    baseline: Option<&'e check::Baseline<'e>>,
    cluster: Option<&'e olmlint_model::cluster::ClusterPolicy>,
    repository: Option<&'e olmlint_model::repository::RepositoryConfig>,
    changed: Option<&'e [PathBuf]>,
    exiting: bool,
}

impl<'a> CheckEnv<'_, 'a> {
    /// The check stage of one catalog: resolution and every rule family. `baseline`: whether
    /// the upgrade rules compare with `--baseline` (not for templates). `extra`: linted
    /// catalogs that come first among the context (where a template's bundles are rendered).
    fn check_catalog(
        &self,
        own: &ScopeModel<'a>,
        scope: usize,
        baseline: bool,
        extra: &[&ScopeModel<'a>],
    ) -> Vec<Diagnostic> {
        let sources = sources_with(
            own.name.clone(),
            &own.catalog,
            &own.index,
            extra,
            self.context,
            self.context_index,
        );
        let catalogs: Vec<&olmlint_model::Catalog<'_>> =
            sources.iter().map(|s| s.catalog).collect();
        // The families' context, with one resolution or another (a macro: each borrows its
        // resolution for its own lifetime).
        macro_rules! ctx {
            ($resolution:expr) => {
                Ctx {
                    files: self.files,
                    catalog: &own.catalog,
                    config: self.config,
                    index: &own.index,
                    resolution: $resolution,
                    catalogs: &catalogs,
                    scope,
                    complete: std::sync::OnceLock::new(),
                    baseline: if baseline { self.baseline } else { None },
                    provided: self.provided,
                    cluster: self.cluster,
                    repository: self.repository,
                    changed: self.changed,
                }
            };
        }
        let placeholder = olmlint_model::resolution::Resolution::default();
        if self.config.quick {
            let ctx = ctx!(&placeholder);
            let early = check::run_early(&ctx);
            return check::finish(&ctx, early, check::Found::deferred());
        }
        // The rule families that do not read the resolution run while it is built; the
        // others as soon as it is.
        let ((resolution, late), early) = rayon::join(
            || {
                let resolution = olmlint_base::timings::phase("resolution", || {
                    olmlint_model::resolution::build(
                        &sources,
                        self.config.cel_budget(),
                        self.provided,
                    )
                });
                let late = check::run_late(&ctx!(&resolution));
                (resolution, late)
            },
            || check::run_early(&ctx!(&placeholder)),
        );
        let ctx = ctx!(&resolution);
        let diags = check::finish(&ctx, early, late);
        if self.exiting {
            // Freeing the model piece by piece costs ≈ 0.45 s at 100 000 bundles.
            std::mem::forget(ctx);
            std::mem::forget(catalogs);
            std::mem::forget(sources);
            std::mem::forget(resolution);
        }
        diags
    }
}

/// A catalog as the resolver sees it: itself first (the depender's own catalog), then the
/// `--context` catalogs, earlier ones preferred.
fn sources<'c, 'a>(
    name: String,
    catalog: &'c olmlint_model::Catalog<'a>,
    index: &'c olmlint_model::index::Index<'a>,
    context: &'c [(String, olmlint_model::Catalog<'a>)],
    context_index: &'c [olmlint_model::index::Index<'a>],
) -> Vec<olmlint_model::resolution::Source<'c, 'a>> {
    sources_with(name, catalog, index, &[], context, context_index)
}

/// [`sources`] with `extra` catalogs right after the own one (a template's rendered catalog).
fn sources_with<'c, 'a>(
    name: String,
    catalog: &'c olmlint_model::Catalog<'a>,
    index: &'c olmlint_model::index::Index<'a>,
    extra: &[&'c ScopeModel<'a>],
    context: &'c [(String, olmlint_model::Catalog<'a>)],
    context_index: &'c [olmlint_model::index::Index<'a>],
) -> Vec<olmlint_model::resolution::Source<'c, 'a>> {
    let own = olmlint_model::resolution::Source {
        name,
        catalog,
        index,
        priority: i64::MAX,
        shadowed_by_own: false,
    };
    let extra = extra
        .iter()
        .map(|m| olmlint_model::resolution::Source {
            name: m.name.clone(),
            catalog: &m.catalog,
            index: &m.index,
            priority: i64::MAX - 1,
            shadowed_by_own: true,
        })
        .collect::<Vec<_>>();
    let n = context.len() as i64;
    let rest =
        context
            .iter()
            .zip(context_index)
            .enumerate()
            .map(
                |(i, ((name, catalog), index))| olmlint_model::resolution::Source {
                    name: name.clone(),
                    catalog,
                    index,
                    priority: n - i as i64,
                    shadowed_by_own: false,
                },
            );
    std::iter::once(own).chain(extra).chain(rest).collect()
}

/// One catalog's findings and its document, package and bundle counts.
type ScopeFindings = (Vec<Diagnostic>, [usize; 3]);

/// The draw stage: each checked catalog's graphs, then the templates' (basic ones drawn while
/// their batches were checked, semver ones from the channels opm generates), by file.
fn draw_graphs(
    files: &[LoadedFile],
    checked: &[(usize, ScopeModel<'_>, Vec<Diagnostic>)],
    mut templates: Vec<olmlint_report::graph::PackageGraph>,
    semver: &[check::template::SemverChannels],
    filter: &olmlint_report::graph::Filter,
    olmv1: Option<bool>,
) -> Vec<olmlint_report::graph::PackageGraph> {
    let mut graphs: Vec<olmlint_report::graph::PackageGraph> = checked
        .iter()
        .flat_map(|(scope, m, _)| {
            let mut g = olmlint_report::graph::build(&m.catalog, filter, &m.name, *scope);
            // With `--target olmv1`, OLM v1's upgrade edges beside the channels (unless
            // one channel is asked for).
            if let (Some(brs), None) = (olmv1, &filter.channel) {
                olmlint_report::graph::olmv1::add(&mut g, &m.catalog, &m.index, brs);
            }
            g
        })
        .collect();
    templates.extend(semver.iter().filter_map(|g| {
        let f = files.get(g.file)?;
        olmlint_report::graph::generated(
            &g.generated,
            &g.package,
            &g.versions,
            filter,
            &f.source.display,
            f.scope,
        )
    }));
    templates.sort_by(|a, b| (&a.catalog, &a.name).cmp(&(&b.catalog, &b.name)));
    graphs.extend(templates);
    graphs
}

/// The upgrade graphs of a batch of basic templates' catalog (`check::template`), one per
/// package, each named by its template file and placed in that file's scope (where the
/// findings relocated to the template are).
fn template_graphs(
    files: &[LoadedFile],
    catalog: &olmlint_model::Catalog<'_>,
    filter: &olmlint_report::graph::Filter,
) -> Vec<olmlint_report::graph::PackageGraph> {
    let mut graphs = olmlint_report::graph::build(catalog, filter, "", 0);
    for g in &mut graphs {
        let file = g
            .channels
            .first()
            .and_then(|c| c.at)
            .and_then(|at| files.get(at.file));
        if let Some(f) = file {
            g.catalog = f.source.display.clone();
            g.scope = f.scope;
        }
    }
    graphs
}

/// A catalog, its lookup tables and the name it is quoted by.
struct ScopeModel<'a> {
    name: String,
    catalog: olmlint_model::Catalog<'a>,
    index: olmlint_model::index::Index<'a>,
}

impl<'a> ScopeModel<'a> {
    fn new(name: String, catalog: olmlint_model::Catalog<'a>) -> Self {
        let index =
            olmlint_base::timings::phase("index", || olmlint_model::index::Index::new(&catalog));
        ScopeModel {
            name,
            catalog,
            index,
        }
    }
}

/// Fixes are edits of file text; a finding inside an embedded document (a CSV's
/// `olm.properties` string) has no text of its own to edit, so it keeps no fix.
fn drop_embedded_fixes(
    mut diags: Vec<Diagnostic>,
    files: &[olmlint_load::LoadedFile],
) -> Vec<Diagnostic> {
    let embedded = |file: usize, span: olmlint_base::tree::Span| {
        files
            .get(file)
            .and_then(|f| f.embedded.get())
            .is_some_and(|e| span.start() >= e.span.start() && span.end() <= e.span.end())
    };
    for d in &mut diags {
        if d.fix
            .as_ref()
            .is_some_and(|f| f.edits.iter().any(|e| embedded(e.file, e.span)))
        {
            d.fix = None;
        }
    }
    diags
}

/// For each finding, whether it is in scope of the changed files `only_files` (as
/// [`Options::only_files`] scopes a run).
pub fn in_changed_files(
    diags: &[Diagnostic],
    files: &[LoadedFile],
    only_files: &[PathBuf],
) -> Vec<bool> {
    let only: HashSet<PathBuf> = only_files
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    scope_mask(diags, files, &only, &HashSet::new())
}

/// The findings in scope of the changed files `only` (located in one, or about a bundle one
/// defines; in a catalog holding none of them, linted for a changed one's sake, pointing into
/// one as related information: a rendered catalog that no longer matches the changed
/// template), and every finding of the catalogs (scopes) in `whole`.
fn scope_to_files(
    diags: Vec<Diagnostic>,
    files: &[LoadedFile],
    only: &HashSet<PathBuf>,
    whole: &HashSet<usize>,
) -> Vec<Diagnostic> {
    let keep = scope_mask(&diags, files, only, whole);
    diags
        .into_iter()
        .zip(keep)
        .filter_map(|(d, k)| k.then_some(d))
        .collect()
}

/// [`scope_to_files`]: which findings it keeps.
fn scope_mask(
    diags: &[Diagnostic],
    files: &[LoadedFile],
    only: &HashSet<PathBuf>,
    whole: &HashSet<usize>,
) -> Vec<bool> {
    let in_only = |fi: usize| {
        files
            .get(fi)
            .and_then(|f| std::fs::canonicalize(&f.source.path).ok())
            .is_some_and(|p| only.contains(&p))
    };
    let file_ok: Vec<bool> = (0..files.len()).map(in_only).collect();
    // A catalog linted for a changed one's sake (a template's rendered catalog): it holds no
    // changed file, and only what it says about one is in scope.
    let changed_scopes: HashSet<usize> = files
        .iter()
        .zip(&file_ok)
        .filter(|(_, ok)| **ok)
        .map(|(f, _)| f.scope)
        .collect();
    let in_companion = |fi: usize| {
        files
            .get(fi)
            .is_some_and(|f| !changed_scopes.contains(&f.scope))
    };
    let in_whole = |d: &Diagnostic| {
        d.location
            .and_then(|l| files.get(l.file))
            .is_some_and(|f| whole.contains(&f.scope))
    };
    // Bundles defined in the given files, by (package, name): every finding at a bundle's
    // `name` carries both.
    let bundles: HashSet<(Option<String>, String)> = diags
        .iter()
        .filter(|d| {
            d.location
                .is_some_and(|l| file_ok.get(l.file).copied().unwrap_or(false))
        })
        .filter_map(|d| Some((d.package.clone(), d.bundle.clone()?)))
        .collect();
    diags
        .iter()
        .map(|d| {
            let in_file =
                |l: &olmlint_base::diag::Location| file_ok.get(l.file).copied().unwrap_or(false);
            in_whole(d)
                || d.location.as_ref().is_some_and(in_file)
                || (d.location.is_some_and(|l| in_companion(l.file))
                    && d.related
                        .iter()
                        .any(|r| r.folded.is_none() && r.location.as_ref().is_some_and(in_file)))
                || d.bundle
                    .as_ref()
                    .is_some_and(|b| bundles.contains(&(d.package.clone(), b.clone())))
        })
        .collect()
}
