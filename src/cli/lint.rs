//! `olmlint lint`: the command, read top to bottom: options, the change
//! plan, the run (or the fixes), what was already known, the report and the exit code.

use olmlint_base::diag::Diagnostic;
use olmlint_report::{github, human, Format, Report};
use std::io::{IsTerminal, Write};

use super::change::{known_findings, plan_change};
use super::fix::{fix_command, fix_in_place, show_diff};
pub use super::lint_args::LintArgs;
use super::{append_step_summary, exiting, release, report_format, say, Color};

/// `olmlint lint`: the run's stages, top to bottom. Each returns `Err(code)` when the run
/// ends there (its message or report already written).
pub(super) fn lint(args: LintArgs) -> i32 {
    let started = std::time::Instant::now();
    match lint_stages(&args, started) {
        Ok(code) | Err(code) => code,
    }
}

fn lint_stages(args: &LintArgs, started: std::time::Instant) -> Result<i32, i32> {
    paths_exist(args)?;
    let mut opts = options(args)?;
    let mut at_refs = plan_change(args, &mut opts, started)?;
    // The HTML report draws the upgrade graphs from the models the checks build.
    if report_format(args.format) == Format::Html {
        opts.graph = Some(olmlint_report::graph::Filter::default());
    }
    let opts = opts;
    let mut outcome = run_or_fix(args, &opts)?;
    let config_mistakes = keep_only_config_mistakes(&mut outcome);
    if config_mistakes == 0 {
        add_what_the_change_knew(args, &opts, &mut at_refs, &mut outcome)?;
    }
    outcome.cap_for_report();
    withdraw_refused_fixes(&mut outcome);
    let failed = write_report(args, &mut outcome, started)?;
    release(outcome);
    olmlint_base::timings::mark("report written");
    if config_mistakes > 0 {
        say(&format!(
            "the configuration has {config_mistakes} mistake(s); fix {} and run again (other findings are not reported: under a configuration that may not mean what it says they could be wrong)",
            if config_mistakes == 1 { "it" } else { "them" }
        ));
        return Ok(2);
    }
    Ok(i32::from(failed))
}

/// The pipeline's options from the arguments.
fn options(args: &LintArgs) -> Result<crate::lint::Options, i32> {
    let targets = super::targets(&args.target)?;
    Ok(crate::lint::Options {
        paths: args.paths.clone(),
        config: args.config.clone(),
        no_config: args.no_config,
        enable: args.enable.clone(),
        targets,
        olmv1_feature_gates: args.olmv1_feature_gates.clone(),
        disable: args.disable.clone(),
        only_files: if args.only_files {
            args.paths.clone()
        } else {
            Vec::new()
        },
        deleted: Vec::new(),
        context: args.context.clone(),
        timeout: args.timeout,
        baseline: args.baseline.clone(),
        cluster_properties: args.cluster_properties.clone(),
        closed_world: args.closed_world,
        exiting: false,
        graph: None,
        planned: false,
        change_catalogs: None,
        overlay: None,
        cancel: None,
        quick: false,
    })
}

/// A path that does not exist is a usage error (exit 2), like `--context /nope`, not a
/// finding that `--fail-on never` would hide; `--only-files` takes files only.
fn paths_exist(args: &LintArgs) -> Result<(), i32> {
    for p in &args.paths {
        let problem = match std::fs::symlink_metadata(p) {
            // Not an existence test of where a planted link points: the walk reports it.
            Err(_) if olmlint_load::io::leaves_repository(p) => None,
            Err(e) => Some(e.to_string()),
            Ok(m) if args.only_files && m.is_dir() => {
                Some("is a directory; --only-files takes the changed files".to_string())
            }
            Ok(_) => None,
        };
        if let Some(problem) = problem {
            say(&format!("{}: {problem}", p.display()));
            return Err(2);
        }
    }
    Ok(())
}

/// The lint run, or the fix passes (`--fix`); `--diff` prints the fixes and ends the run.
fn run_or_fix(args: &LintArgs, opts: &crate::lint::Options) -> Result<crate::lint::Outcome, i32> {
    if args.unsafe_fixes && !args.fix && !args.diff {
        eprintln!("olmlint: --unsafe-fixes only applies with --fix or --diff");
        return Err(2);
    }
    let mode = if args.unsafe_fixes {
        olmlint_load::fix::Mode::Unsafe
    } else {
        olmlint_load::fix::Mode::Safe
    };
    if args.diff {
        return Err(show_diff(
            opts,
            mode,
            args.quiet,
            &fix_command(&args.paths, args.unsafe_fixes),
        ));
    }
    if args.fix {
        return fix_in_place(opts, mode, args.quiet);
    }
    crate::lint::run(&crate::lint::Options {
        exiting: exiting(),
        ..opts.clone()
    })
    .map_err(|e| {
        say(&e);
        2
    })
}

/// A mistake in `.olmlint.yaml` or the cluster properties (OLM011) stops the run with exit
/// 2 whatever `--fail-on` says (a misspelt key must not silently switch checks off): the
/// report, in the requested format, holds only those mistakes. Returns how many there are.
pub(super) fn keep_only_config_mistakes(outcome: &mut crate::lint::Outcome) -> usize {
    let config_mistakes = outcome.diags.iter().filter(|d| d.rule == "OLM011").count();
    if config_mistakes > 0 {
        outcome.diags.retain(|d| d.rule == "OLM011");
        outcome.summary.errors = config_mistakes;
        outcome.summary.warnings = 0;
        outcome.summary.infos = 0;
    }
    config_mistakes
}

/// In a change-scoped run: the findings the change did not introduce set aside
/// (`--only-new`), and the files of the catalogs at REF that were not read (over the file
/// size limit) reported.
fn add_what_the_change_knew(
    args: &LintArgs,
    opts: &crate::lint::Options,
    at_refs: &mut super::change::AtRefs,
    outcome: &mut crate::lint::Outcome,
) -> Result<(), i32> {
    match known_findings(args, opts, at_refs, outcome) {
        Ok(None) => {}
        Ok(Some(code)) => return Err(code),
        Err(e) => {
            say(&e);
            return Err(2);
        }
    }
    let unread: Vec<Diagnostic> = at_refs
        .taken
        .iter()
        .filter_map(|(_, s)| s.as_ref().ok().and_then(Option::as_ref))
        .flat_map(|s| &s.problems)
        .map(|p| Diagnostic::new("OLM001", p.clone()).help("The catalog as it was at the --changed-since ref is read with the same limits as the catalog itself; raise `limits.max-file-size` if a file is meant to be this large."))
        .collect();
    if !unread.is_empty() {
        outcome.diags.extend(unread);
        olmlint_report::sort(&mut outcome.diags, &outcome.files);
        outcome.summary.recount(&outcome.diags);
    }
    Ok(())
}

/// A fix is advertised (JSON/SARIF `fix`, the "fixable" count) only if `--fix` would apply
/// it: re-parsing shows exactly the intended change.
pub(super) fn withdraw_refused_fixes(outcome: &mut crate::lint::Outcome) {
    if !outcome.diags.iter().any(|d| d.fix.is_some()) {
        return;
    }
    let refused = olmlint_base::timings::phase("fix verification", || {
        olmlint_load::fix::refused(&outcome.diags, &outcome.files)
    });
    for i in refused {
        if let Some(d) = outcome.diags.get_mut(i) {
            d.fix = None;
        }
    }
}

/// Colour on a terminal unless `NO_COLOR` or an output file says otherwise.
fn use_color(args: &LintArgs) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            !no_color
                && std::io::stderr().is_terminal()
                && args.output_file.is_none()
                && std::io::stdout().is_terminal()
        }
    }
}

/// Catalogs the plan lists on a terminal, at most; `-f json` lists them all.
const PLAN_LINES: usize = 20;

/// The plan, on stderr: which catalogs were linted and why, when discovery decided more than
/// "the path given is the catalog" (an operator repository's parts are in the notes).
fn print_plan(catalogs: &[olmlint_load::discover::Planned]) {
    use olmlint_load::discover::Why;
    let discovered = catalogs.iter().any(|c| {
        !matches!(
            c.why,
            Why::Given | Why::OperatorRepository | Why::Version | Why::Changed | Why::Configured
        )
    });
    if !discovered {
        return;
    }
    eprintln!("catalogs ({}):", catalogs.len());
    for c in catalogs.iter().take(PLAN_LINES) {
        eprintln!("  {}", olmlint_report::terminal_safe(&c.describe(), false));
    }
    if catalogs.len() > PLAN_LINES {
        eprintln!(
            "  … and {} more (`-f json` lists them all)",
            catalogs.len() - PLAN_LINES
        );
    }
}

/// The report in the requested format (to stdout or `-o`), the GitHub step summary, the
/// notes and the summary line. Returns whether a finding reaches `--fail-on`.
fn write_report(
    args: &LintArgs,
    outcome: &mut crate::lint::Outcome,
    started: std::time::Instant,
) -> Result<bool, i32> {
    let format = report_format(args.format);
    let graphs = crate::graph_command::finish(outcome, crate::graph_command::COLLAPSE);
    let report = Report {
        diags: &outcome.diags,
        files: &outcome.files,
        summary: outcome.summary,
        fail_on: args.fail_on.threshold(),
        graphs: &graphs,
        catalogs: &outcome.catalogs,
    };
    let color = use_color(args);
    olmlint_base::timings::mark("checks done");
    olmlint_base::timings::work_report();
    let text = if args.statistics && matches!(format, Format::Human | Format::Concise) {
        olmlint_report::terminal_safe(&olmlint_report::human::statistics(&report), false)
    } else {
        report.render(format, color)
    };
    if let Some(path) = &args.output_file {
        // Only the notes and the summary line follow on stderr (as ruff does): the report is
        // in the file, and CI logs stay short.
        if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
            eprintln!("olmlint: cannot write {}: {e}", path.display());
            return Err(2);
        }
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
    }
    if format == Format::Github {
        append_step_summary(|| github::step_summary(&report));
    }
    if !args.quiet {
        print_plan(&outcome.catalogs);
        for n in &outcome.notes {
            eprintln!("note: {}", olmlint_report::terminal_safe(n, false));
        }
        eprint!(
            "{}",
            olmlint_report::terminal_safe(
                &human::summary_line(&report, started.elapsed(), &fix_command(&args.paths, false)),
                false
            )
        );
    }
    let threshold = args.fail_on.threshold();
    Ok(threshold.is_some_and(|t| outcome.diags.iter().any(|d| d.severity >= t)))
}
