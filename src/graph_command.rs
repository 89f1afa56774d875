//! `olmlint graph`: plans the runs (the catalogs, and with `--baseline` or `--changed-since`
//! their previous versions), lints each side once with the graphs drawn from the checks'
//! models, takes the difference, overlays the findings, folds long chains and renders.

use crate::lint::{self, Outcome};
use olmlint_report::graph::{self, Filter, PackageGraph};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// Mermaid flowchart (GitHub renders it in Markdown).
    Mermaid,
    /// Graphviz DOT.
    Dot,
    /// SVG drawn by olmlint (no Graphviz needed).
    Svg,
    /// The graphs as JSON (nothing folded).
    Json,
    /// Markdown with a Mermaid block per package and a legend: a pull request's job summary.
    Markdown,
}

#[derive(Debug, Clone, Default)]
pub struct Request {
    pub paths: Vec<PathBuf>,
    pub filter: Filter,
    /// Compare with this previous version of the (single) catalog.
    pub baseline: Option<PathBuf>,
    /// Compare each changed catalog with itself at this git ref.
    pub changed_since: Option<String>,
    /// Fold runs of at least this many plain bundles (0: never).
    pub collapse: usize,
    pub config: Option<PathBuf>,
    pub no_config: bool,
    /// `--target`, over the configuration's `targets:` (olmv1 adds OLM v1's graph).
    pub targets: Option<olmlint_semantics::olmv1::Targets>,
    /// The process exits after this request (the command line): the models are not freed
    /// ([`lint::Options::exiting`]). Never set by a caller that lives on (a fuzz target, a
    /// server).
    pub exiting: bool,
}

/// Runs of this many plain bundles are folded by default in drawings.
pub const COLLAPSE: usize = 4;

/// The graphs a lint run drew ([`lint::Options::graph`]), its findings overlaid and long
/// chains folded by `collapse` (the HTML report).
pub fn finish(outcome: &mut Outcome, collapse: usize) -> Vec<PackageGraph> {
    let graphs = std::mem::take(&mut outcome.graphs);
    let mut graphs = overlaid(graphs, outcome);
    graph::collapse(&mut graphs, collapse);
    graphs
}

/// The drawn graphs, and what they are a difference to (`None`: not a difference).
pub struct Drawn {
    pub graphs: Vec<PackageGraph>,
    pub compared_with: Option<String>,
}

fn options(req: &Request, paths: Vec<PathBuf>) -> lint::Options {
    lint::Options {
        paths,
        config: req.config.clone(),
        no_config: req.no_config,
        graph: Some(req.filter.clone()),
        exiting: req.exiting,
        targets: req.targets.clone(),
        ..Default::default()
    }
}

/// The findings of a run placed on its graphs (each finding on its own catalog's graphs).
fn overlaid(mut graphs: Vec<PackageGraph>, outcome: &Outcome) -> Vec<PackageGraph> {
    let scope_of = |d: &olmlint_base::diag::Diagnostic| {
        d.location
            .and_then(|l| outcome.files.get(l.file))
            .map(|f| f.scope)
    };
    graph::overlay(&mut graphs, &outcome.diags, &scope_of);
    graphs
}

/// The graphs as the request asks: the state, or the difference to a baseline.
pub fn draw(req: &Request) -> Result<Drawn, String> {
    let mut drawn = if let Some(git_ref) = &req.changed_since {
        changed_since(req, git_ref)?
    } else if let Some(old) = &req.baseline {
        let mut opts = options(req, req.paths.clone());
        opts.baseline = Some(old.clone());
        let mut new = lint::run(&opts)?;
        let mut before = lint::run(&options(req, vec![old.clone()]))?;
        let new_graphs = std::mem::take(&mut new.graphs);
        let old_graphs = relabel(std::mem::take(&mut before.graphs), old, &req.paths);
        Drawn {
            graphs: overlaid(graph::diff(old_graphs, new_graphs), &new),
            compared_with: Some(format!("compared with {}", olmlint_load::display_path(old))),
        }
    } else {
        let mut outcome = lint::run(&options(req, req.paths.clone()))?;
        let graphs = std::mem::take(&mut outcome.graphs);
        Drawn {
            graphs: overlaid(graphs, &outcome),
            compared_with: None,
        }
    };
    graph::collapse(&mut drawn.graphs, req.collapse);
    Ok(drawn)
}

/// The baseline's graphs named as the catalog is now, for [`graph::diff`] to match them: the
/// baseline's path at the start of a catalog name becomes the linted one's (the rest, such as
/// an OpenShift release group, is kept). Both runs lint one catalog, scope 0.
fn relabel(mut old: Vec<PackageGraph>, was: &Path, now: &[PathBuf]) -> Vec<PackageGraph> {
    let was = olmlint_load::display_path(was);
    let now = now
        .first()
        .map_or_else(|| ".".to_string(), |p| olmlint_load::display_path(p));
    for p in &mut old {
        if let Some(rest) = p.catalog.strip_prefix(&was) {
            p.catalog = format!("{now}{rest}");
        }
        p.scope = 0;
    }
    old
}

/// `--changed-since REF`: each catalog holding a changed file, linted as it is (findings
/// scoped to the changed files, the upgrade rules against its snapshot at REF) and drawn
/// against its snapshot.
fn changed_since(req: &Request, git_ref: &str) -> Result<Drawn, String> {
    let compared_with = Some(format!("changed since {git_ref}"));
    let failed = |e: olmlint_load::git::Error| format!("--changed-since {git_ref}: {e}");
    let since = olmlint_load::git::Since::open(git_ref, None).map_err(failed)?;
    let (changed, deleted) = since.changes().map_err(failed)?;
    let changed = olmlint_load::git::catalog_files_under(changed, &req.paths);
    // A deleted file (a package's catalog removed) changes its catalog's graph too.
    let deleted = olmlint_load::git::catalog_files_under(deleted, &req.paths);
    for link in changed
        .iter()
        .filter(|f| olmlint_load::io::leaves_repository(f))
    {
        eprintln!(
            "olmlint: warning: {}: symbolic link (or a directory on its path) to a target outside the repository; not read",
            olmlint_report::terminal_safe(&olmlint_load::display_path(link), false)
        );
    }
    let all: Vec<PathBuf> = changed.iter().chain(&deleted).cloned().collect();
    let mut roots: Vec<PathBuf> = olmlint_load::discover::changed::roots(&all, &req.paths)
        .into_iter()
        .map(|r| operator_of(&r))
        .collect();
    roots.sort();
    roots.dedup();
    let mut graphs = Vec::new();
    for root in roots {
        if !root.is_dir() {
            // The whole catalog directory was deleted: nothing is left to lint or draw.
            eprintln!(
                "olmlint: {} was deleted since {git_ref}; its graphs are not drawn",
                olmlint_load::display_path(&root)
            );
            continue;
        }
        let snapshot = since
            .snapshot(&root, olmlint_load::Limits::default().max_file_size)
            .map_err(failed)?;
        for problem in snapshot.iter().flat_map(|s| &s.problems) {
            eprintln!(
                "olmlint: warning: {}",
                olmlint_report::terminal_safe(problem, false)
            );
        }
        let mut opts = options(req, vec![root.clone()]);
        // Findings scoped to the changed files (none when the change only deleted files: then
        // the whole catalog's).
        opts.only_files = changed
            .iter()
            .filter(|f| f.starts_with(&root))
            .cloned()
            .collect();
        opts.baseline = snapshot.as_ref().map(|s| s.root.clone());
        let mut new = lint::run(&opts)?;
        let new_graphs = std::mem::take(&mut new.graphs);
        let old_graphs = match &snapshot {
            Some(s) => {
                let mut before = lint::run(&options(req, vec![s.root.clone()]))?;
                relabel(
                    std::mem::take(&mut before.graphs),
                    &s.root,
                    std::slice::from_ref(&root),
                )
            }
            None => Vec::new(),
        };
        graphs.extend(overlaid(graph::diff(old_graphs, new_graphs), &new));
    }
    Ok(Drawn {
        graphs,
        compared_with,
    })
}

/// A bundle directory's operator directory (its channels are the operator's), else itself.
fn operator_of(root: &Path) -> PathBuf {
    match root.parent() {
        Some(parent)
            if olmlint_load::walk::is_bundle_dir(root)
                && olmlint_load::walk::is_operator_dir(parent) =>
        {
            parent.to_path_buf()
        }
        _ => root.to_path_buf(),
    }
}

/// The graphs in a format.
pub fn render(drawn: &Drawn, format: GraphFormat) -> String {
    let graphs = &drawn.graphs;
    match format {
        GraphFormat::Mermaid => graph::mermaid(graphs),
        GraphFormat::Dot => graph::dot(graphs),
        GraphFormat::Svg => graph::svg(graphs),
        GraphFormat::Json => olmlint_base::escape::json_text(
            serde_json::to_string_pretty(graphs).unwrap_or_default() + "\n",
        ),
        GraphFormat::Markdown => graph::markdown(
            graphs,
            drawn.compared_with.as_deref().unwrap_or("of the catalogs"),
            olmlint_report::github::step_summary_room(),
        ),
    }
}
