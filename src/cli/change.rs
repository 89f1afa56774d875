//! Change-scoped runs (`--only-files`, `--changed-since`, `--only-new`): what changed, the
//! catalogs as they were at the ref, and which findings the change introduced.

use olmlint_base::diag::Diagnostic;
use olmlint_report::{github, Format, Report};
use std::io::Write;
use std::path::PathBuf;

use super::lint_args::LintArgs;
use super::{append_step_summary, report_format, say};

/// Change-scoped runs (`--only-files`, `--changed-since`), before the checks: the changed
/// and deleted files (into `opts`), and the catalogs as they were at REF that the run needs
/// (the upgrade checks' baseline of a single catalog, `--only-new`, the catalogs where files
/// were deleted). `Err(code)`: the run ends here, its report written.
pub(super) fn plan_change(
    args: &LintArgs,
    opts: &mut crate::lint::Options,
    started: std::time::Instant,
) -> Result<AtRefs, i32> {
    let Some(git_ref) = &args.changed_since else {
        if args.only_files {
            opts.only_files
                .retain(|f| f.is_file() || olmlint_load::io::leaves_repository(f));
            if opts.only_files.is_empty() {
                return Err(nothing_changed(args, ""));
            }
        }
        return Ok(AtRefs::default());
    };
    // git has the run's deadline: a git that hangs (or a huge history) ends in an OLM012
    // report like any phase that runs out of time.
    let deadline = args
        .timeout
        .map(|t| started + std::time::Duration::from_secs_f64(t.clamp(0.0, 1e9)));
    let since =
        olmlint_load::git::Since::open(git_ref, deadline).map_err(|e| git_failed(args, e))?;
    let (changed, deleted) = since.changes().map_err(|e| git_failed(args, e))?;
    olmlint_base::timings::mark("changes listed (git)");
    opts.only_files = olmlint_load::git::catalog_files_under(changed, &args.paths);
    // `--fix` and `--diff` edit the changed files only.
    if !args.fix && !args.diff {
        opts.deleted = olmlint_load::git::catalog_files_under(deleted, &args.paths);
    }
    if opts.only_files.is_empty() && opts.deleted.is_empty() {
        return Err(nothing_changed(args, &format!(" since {git_ref}")));
    }
    let roots = crate::lint::change_roots(opts);
    olmlint_base::timings::mark("the changes' catalogs found");
    let links_out = opts
        .only_files
        .iter()
        .any(|f| olmlint_load::io::leaves_repository(f));
    if roots.is_empty() && !links_out {
        // Changed files no catalog of the build holds (a workflow, the repository's
        // config.yaml): not catalog content. (A link out of the repository is reported.)
        return Err(nothing_changed(args, &format!(" since {git_ref}")));
    }
    let deletion_roots = crate::lint::deletion_roots(opts);
    opts.change_catalogs = Some((roots.clone(), deletion_roots.clone()));
    // The catalog at REF is the baseline of the upgrade checks (OLM701–704) of a single
    // catalog, except an operator directory's (its bundles are not removed, and its one
    // package depends on no other of the run); `--only-new` reads the others after the run,
    // only those holding a finding.
    let baseline = match (&opts.baseline, roots.as_slice()) {
        (None, [root]) if !olmlint_load::walk::is_operator_dir(root) => Some(root.clone()),
        _ => None,
    };
    let mut at_refs = AtRefs {
        since: Some(since),
        max_file_size: configured_file_limit(opts, &roots),
        taken: Vec::new(),
    };
    // Where files were deleted, the catalog at REF shows what the deletion broke; with
    // `--only-new` that is read after the run, if a finding needs it.
    let now: Vec<PathBuf> = roots
        .iter()
        .filter(|r| (!args.only_new && deletion_roots.contains(r)) || baseline.as_ref() == Some(*r))
        .cloned()
        .collect();
    at_refs.take(&now).map_err(|e| git_failed(args, e))?;
    olmlint_base::timings::mark("catalogs at the base ref read (git)");
    if let Some(root) = &baseline {
        match at_refs.taken.iter().find(|(r, _)| r == root).map(|(_, s)| s) {
            Some(Ok(snap)) => opts.baseline = snap.as_ref().map(|s| s.root.clone()),
            Some(Err(e)) => say(&format!("--changed-since {git_ref}: cannot read the catalog at {git_ref}, so the upgrade checks (OLM701–704) are skipped: {e}")),
            None => {}
        }
    }
    Ok(at_refs)
}

/// The catalogs as they were at the `--changed-since` ref: read before the run where it
/// needs them (the upgrade checks' baseline, the catalogs where files were deleted), after it
/// for `--only-new` (only those holding a finding: a clean pull request reads nothing twice).
#[derive(Default)]
pub(super) struct AtRefs {
    since: Option<olmlint_load::git::Since>,
    max_file_size: u64,
    pub(super) taken: Vec<AtRef>,
}

impl AtRefs {
    /// Reads the catalogs of `roots` not read yet; a timeout ends the run.
    pub(super) fn take(&mut self, roots: &[PathBuf]) -> Result<(), olmlint_load::git::Error> {
        let Some(since) = &self.since else {
            return Ok(());
        };
        for root in roots {
            if self.taken.iter().any(|(r, _)| r == root) {
                continue;
            }
            match since.snapshot(root, self.max_file_size) {
                Err(e @ olmlint_load::git::Error::TimedOut(_)) => return Err(e),
                snap => self
                    .taken
                    .push((root.clone(), snap.map_err(|e| e.to_string()))),
            }
        }
        Ok(())
    }
}

/// `limits.max-file-size` of the configuration the run will use: what the catalogs at REF
/// are read with too.
pub(super) fn configured_file_limit(opts: &crate::lint::Options, roots: &[PathBuf]) -> u64 {
    let path = match (&opts.config, opts.no_config) {
        (_, true) => None,
        (Some(p), _) => Some(p.clone()),
        // A configuration that cannot be used fails the lint run itself with its reason.
        (None, _) => roots
            .first()
            .and_then(|p| olmlint_check::config::Config::discover(p).ok().flatten()),
    };
    path.and_then(|p| olmlint_check::config::Config::load(&p).ok())
        .map_or(
            olmlint_load::Limits::default().max_file_size,
            |(c, _, _)| c.limits.max_file_size,
        )
}

/// git could not answer: a usage or I/O error (exit 2), or, when `--timeout` passed, an
/// OLM012 report like any phase that runs out of time.
pub(super) fn git_failed(args: &LintArgs, e: olmlint_load::git::Error) -> i32 {
    let git_ref = args.changed_since.as_deref().unwrap_or("");
    match e {
        olmlint_load::git::Error::TimedOut(what) => {
            let secs = args.timeout.unwrap_or(0.0);
            let finding = Diagnostic::new(
                "OLM012",
                format!("lint did not finish within the {secs} s timeout: it passed while {what} (git), before any check ran"),
            )
            .help("Nothing was checked, so this run proves nothing about the change. Raise `--timeout`; a repository whose history git cannot read quickly (a huge or partial clone) may need `git fetch` of the ref first.");
            say(&format!(
                "--changed-since {git_ref}: the timeout passed while {what}"
            ));
            early_report(args, vec![finding], None)
        }
        olmlint_load::git::Error::Failed(m) => {
            say(&format!("--changed-since {git_ref}: {m}"));
            2
        }
    }
}

/// No catalog file changed: an empty report in the requested format (a JSON or SARIF
/// consumer always gets one), exit 0.
pub(super) fn nothing_changed(args: &LintArgs, since: &str) -> i32 {
    if !args.quiet {
        eprintln!(
            "olmlint: no catalog files changed{}",
            olmlint_report::terminal_safe(since, false)
        );
    }
    early_report(
        args,
        Vec::new(),
        Some(
            "## olmlint\n\nNothing to lint: no catalog file among the given paths changed.\n"
                .into(),
        ),
    )
}

/// A report decided before the checks ran, written where the report goes in the requested
/// format; with `-f github`, `step_summary` (else the report's own) is appended to the job
/// summary. Returns the exit code.
pub(super) fn early_report(
    args: &LintArgs,
    diags: Vec<Diagnostic>,
    step_summary: Option<String>,
) -> i32 {
    let mut summary = olmlint_report::Summary::default();
    summary.count(&diags);
    let report = Report {
        diags: &diags,
        files: &[],
        summary,
        fail_on: args.fail_on.threshold(),
        graphs: &[],
        catalogs: &[],
    };
    let format = report_format(args.format);
    let text = report.render(format, false);
    if let Some(path) = &args.output_file {
        if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
            eprintln!("olmlint: cannot write {}: {e}", path.display());
            return 2;
        }
    } else {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
    if format == Format::Github {
        append_step_summary(|| step_summary.unwrap_or_else(|| github::step_summary(&report)));
    }
    let threshold = args.fail_on.threshold();
    i32::from(threshold.is_some_and(|t| diags.iter().any(|d| d.severity >= t)))
}

/// The filter stage for findings known from elsewhere: `--write-baseline` (writes the file;
/// the run ends with `Some(0)`), `--findings-baseline` and `--only-new`.
/// `--findings-baseline FILE`: leave out the findings the baseline lists, and report its
/// entries that match none (OLM010) among the files the run linted (`only_files` when the
/// run was scoped to them). Shared by `olmlint lint` and `olmlint server`.
pub(super) fn apply_findings_baseline(
    path: &std::path::Path,
    only_files: &[PathBuf],
    outcome: &mut crate::lint::Outcome,
) -> Result<(), String> {
    use olmlint_load::findings::{self, Base};
    let entries = findings::read_baseline(path, outcome.max_file_size)
        .map_err(|e| format!("--findings-baseline {}: {e}", path.display()))?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf);
    let keys = findings::keys(&outcome.diags, &outcome.files, &Base::Dir(&dir));
    let linted = findings::linted_files(&outcome.files, outcome.roots.len(), &dir, only_files);
    let applied = findings::apply_baseline(
        std::mem::take(&mut outcome.diags),
        &keys,
        &entries,
        &linted,
        &olmlint_load::display_path(path),
    );
    outcome.diags = applied.kept;
    // An entry matching nothing is known only once every family ran (see `Diagnostic::deferred`).
    outcome.diags.extend(applied.stale.into_iter().map(|mut d| {
        d.deferred = true;
        d
    }));
    outcome.summary.baselined = applied.suppressed;
    Ok(())
}

pub(super) fn known_findings(
    args: &LintArgs,
    opts: &crate::lint::Options,
    at_refs: &mut AtRefs,
    outcome: &mut crate::lint::Outcome,
) -> Result<Option<i32>, String> {
    use olmlint_load::findings::{self, Base};
    let dir_of = |p: &std::path::Path| {
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)
    };
    if let Some(path) = &args.write_baseline {
        let dir = dir_of(path);
        let keys = findings::keys(&outcome.diags, &outcome.files, &Base::Dir(&dir));
        let text = findings::baseline_text(&outcome.diags, &keys);
        olmlint_load::io::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let n: usize = outcome.diags.iter().map(|d| 1 + d.omitted).sum();
        if !args.quiet {
            eprintln!(
                "olmlint: wrote {n} finding(s) to {}; lint with `--findings-baseline {}` to report only others",
                path.display(),
                path.display()
            );
        }
        return Ok(Some(0));
    }
    if let Some(path) = &args.findings_baseline {
        apply_findings_baseline(path, &opts.only_files, outcome)?;
    }
    let deletions = !opts.deleted.is_empty() && !args.only_new;
    if let (true, Some(git_ref)) = (deletions, &args.changed_since) {
        introduced_by_deletions(git_ref, opts, at_refs, outcome)?;
    }
    if let (true, Some(git_ref)) = (args.only_new, &args.changed_since) {
        let dropped = preexisting(git_ref, opts, at_refs, outcome, &|_| true)?;
        outcome.summary.preexisting = dropped;
    }
    if args.findings_baseline.is_some() || args.only_new || deletions {
        // Stale baseline entries were appended; counts changed.
        olmlint_report::sort(&mut outcome.diags, &outcome.files);
        outcome.summary.recount(&outcome.diags);
    }
    Ok(None)
}

/// A change that deleted files: the catalogs that held them were linted whole; of their
/// findings outside the changed files' scope, those that also occur at `git_ref` were not
/// the change's doing and are dropped. What is left is what the deletions broke (a channel
/// entry or a dependency now dangling). A catalog that could not be read at `git_ref` keeps
/// all its findings, with a note.
pub(super) fn introduced_by_deletions(
    git_ref: &str,
    opts: &crate::lint::Options,
    at_refs: &mut AtRefs,
    outcome: &mut crate::lint::Outcome,
) -> Result<(), String> {
    let in_changed =
        crate::lint::in_changed_files(&outcome.diags, &outcome.files, &opts.only_files);
    let (mut kept, mut others) = (Vec::new(), Vec::new());
    for (d, changed) in std::mem::take(&mut outcome.diags)
        .into_iter()
        .zip(in_changed)
    {
        if changed {
            kept.push(d);
        } else {
            others.push(d);
        }
    }
    let mut compared = Vec::new();
    for (root, snap) in &at_refs.taken {
        match snap {
            Ok(_) => compared.push(root.clone()),
            Err(e) => outcome.notes.push(format!(
                "{}: cannot read it as it was at {git_ref} ({e}), so the findings of this catalog where files were deleted are all reported, old ones too",
                olmlint_load::display_path(root)
            )),
        }
    }
    outcome.diags = others;
    preexisting(git_ref, opts, at_refs, outcome, &|r| {
        compared.iter().any(|c| c == r)
    })?;
    kept.append(&mut outcome.diags);
    outcome.diags = kept;
    Ok(())
}

/// A catalog as it was at the `--changed-since` ref (`None`: it did not exist there), or why
/// it could not be read.
pub(super) type AtRef = (PathBuf, Result<Option<olmlint_load::git::Snapshot>, String>);

/// `--only-new`: lints each catalog (of those `compare` accepts) as it was at `git_ref`
/// (read from git now if it was not before, same configuration) and drops the current findings whose fingerprints occur
/// there, catalog by catalog. Returns how many.
pub(super) fn preexisting(
    git_ref: &str,
    opts: &crate::lint::Options,
    at_refs: &mut AtRefs,
    outcome: &mut crate::lint::Outcome,
    compare: &dyn Fn(&std::path::Path) -> bool,
) -> Result<usize, String> {
    use olmlint_load::findings::{self, Base};
    let keys = findings::keys(&outcome.diags, &outcome.files, &Base::Roots(&outcome.roots));
    // Only the catalogs holding a finding need their old findings: a clean pull request
    // lints nothing at REF (a finding without a position may match anywhere).
    let with_findings: Option<std::collections::HashSet<usize>> =
        keys.iter()
            .map(|k| k.scope)
            .collect::<Option<std::collections::HashSet<usize>>>();
    // A finding in a file REF does not have (added by the change) is new whatever REF held
    // (the file is part of its fingerprint): a catalog whose findings are all in such files
    // is not read at REF (a pull request adding a bundle with a warning in it).
    let with_findings = with_findings.map(|_| {
        // Each file asked once (a catalog may hold thousands of findings).
        let mut added: std::collections::HashMap<usize, bool> = std::collections::HashMap::new();
        let mut is_added = |fi: usize, path: &std::path::Path| {
            *added.entry(fi).or_insert_with(|| {
                at_refs
                    .since
                    .as_ref()
                    .is_some_and(|s| std::fs::canonicalize(path).is_ok_and(|p| s.added(&p)))
            })
        };
        outcome
            .diags
            .iter()
            .filter_map(|d| {
                let fi = d.location?.file;
                let f = outcome.files.get(fi)?;
                (!is_added(fi, &f.source.path)).then_some(f.scope)
            })
            .collect::<std::collections::HashSet<usize>>()
    });
    let wanted: Vec<PathBuf> = outcome
        .roots
        .iter()
        .enumerate()
        .filter(|(scope, root)| {
            compare(root) && with_findings.as_ref().is_none_or(|s| s.contains(scope))
        })
        .map(|(_, r)| r.clone())
        .collect();
    match at_refs.take(&wanted) {
        Ok(()) => {}
        // Out of time: every finding is reported, with one saying why.
        Err(olmlint_load::git::Error::TimedOut(what)) => {
            outcome.diags.push(Diagnostic::new(
                "OLM012",
                format!("lint did not finish within the timeout: it passed while {what} (git), so the findings that were already there before the change are reported too"),
            )
            .help("The findings are complete; only the filter of --only-new was not applied. Raise `--timeout`."));
            return Ok(0);
        }
        Err(e) => return Err(format!("--only-new: {e}")),
    }
    let snapshots = &at_refs.taken;
    // Every catalog as it was at REF (one that did not exist there has only new findings),
    // linted in one run so that they are checked in parallel.
    let mut snaps = Vec::new();
    let mut scope_of = Vec::new();
    for (scope, root) in outcome.roots.iter().enumerate() {
        if !compare(root) || with_findings.as_ref().is_some_and(|s| !s.contains(&scope)) {
            continue;
        }
        let snap = match snapshots.iter().find(|(r, _)| r == root) {
            Some((_, Ok(snap))) => snap.as_ref(),
            Some((_, Err(e))) => {
                return Err(format!(
                    "--only-new: cannot read {} at {git_ref}: {e}",
                    olmlint_load::display_path(root)
                ))
            }
            None => {
                return Err(format!(
                    "--only-new: {} was not read at {git_ref}",
                    olmlint_load::display_path(root)
                ))
            }
        };
        if let Some(snap) = snap {
            snaps.push(snap);
            scope_of.push(scope);
        }
    }
    let mut old = Vec::new();
    if !snaps.is_empty() {
        let before = crate::lint::run(&crate::lint::Options {
            paths: snaps.iter().map(|s| s.root.clone()).collect(),
            config: outcome.config_path.clone(),
            no_config: outcome.config_path.is_none(),
            only_files: Vec::new(),
            deleted: Vec::new(),
            baseline: None,
            exiting: false,
            // The catalogs of the run at HEAD, as they were: not planned again (a repository
            // root would be split into its parts, and the counts would not match).
            planned: true,
            change_catalogs: None,
            ..opts.clone()
        })
        .map_err(|e| format!("--only-new: linting the catalogs at {git_ref}: {e}"))?;
        if before.roots.len() != snaps.len() {
            return Err(format!(
                "--only-new: the catalogs at {git_ref} are laid out differently ({} catalogs for {} now)",
                before.roots.len(),
                snaps.len()
            ));
        }
        let keys = findings::keys(&before.diags, &before.files, &Base::Roots(&before.roots));
        old.extend(keys.into_iter().map(|k| findings::Key {
            scope: k.scope.and_then(|s| scope_of.get(s).copied()),
            ..k
        }));
    }
    let (kept, dropped) = findings::subtract(std::mem::take(&mut outcome.diags), &keys, &old);
    outcome.diags = kept;
    Ok(dropped)
}
