//! The command line: a thin layer over [`crate::lint`] and [`olmlint_report`].

use clap::{Parser, Subcommand, ValueEnum};
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_report::{github, human, Format, Report};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "olmlint",
    version,
    about = "Lint Operator Lifecycle Manager catalogs: structure, constraints, version ranges, CEL and installability"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lint file-based catalogs and bundle directories (default: the current directory).
    Lint(LintArgs),
    /// List every rule with its default severity.
    Rules {
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// What OLM would install for a subscription to PACKAGE (at BUNDLE), and why — or why not.
    Resolve(ResolveArgs),
    /// Print a JSON Schema for editors (olm.constraint, olm.package.required, olm.gvk.required,
    /// olm.label.required, dependencies, properties, olmlint-config); no name lists them.
    Schema {
        /// Schema name.
        name: Option<String>,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule ID (OLM201) or name (constraint-decode).
        rule: String,
    },
    /// Draw the upgrade graph of each channel (replaces, skips, skipRange), with the findings
    /// of a lint run overlaid on the bundles they concern.
    Graph(GraphArgs),
    /// Print a shell completion script: `olmlint completions bash > /etc/bash_completion.d/olmlint`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff: `olmlint man | man -l -`), or with --dir write one page per
    /// command (olmlint.1, olmlint-lint.1, ...) into a directory.
    Man {
        /// Write the pages into this directory (created if missing) instead of printing olmlint.1.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// Catalogs (default: the current directory), as for `lint`.
    pub paths: Vec<PathBuf>,
    /// Only this package.
    #[arg(long)]
    pub package: Option<String>,
    /// Only this channel.
    #[arg(long)]
    pub channel: Option<String>,
    /// Output format: Mermaid (GitHub renders it), Graphviz DOT, SVG (drawn by olmlint), the
    /// graph as JSON, or Markdown for a pull request's job summary.
    #[arg(long, short = 'f', value_enum, default_value = "mermaid")]
    pub format: GraphFormat,
    /// Draw what changed since this previous version of the catalog: added, removed and
    /// re-pointed bundles and edges, and bundles left without an upgrade (OLM704).
    #[arg(long, value_name = "OLD", conflicts_with = "changed_since")]
    pub baseline: Option<PathBuf>,
    /// Draw what changed since a git ref, for each catalog holding a changed file.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// Fold runs of at least N consecutive plain bundles of a replaces chain into one node
    /// (0: never; default 4, and 0 for JSON).
    #[arg(long, value_name = "N")]
    pub collapse: Option<usize>,
    /// Write the graph to this file instead of standard output.
    #[arg(long = "output-file", short = 'o', value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Configuration file (default: .olmlint.yaml found upward from the first path).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore any configuration file.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
}

pub use crate::graph_command::GraphFormat;

#[derive(clap::Args, Debug)]
pub struct ResolveArgs {
    /// PACKAGE or PACKAGE@BUNDLE (a startingCSV).
    pub target: String,
    /// Subscription channel (default: every channel, the default one first).
    #[arg(long)]
    pub channel: Option<String>,
    /// A catalog (repeatable; default `.`). The first holding PACKAGE is the subscription's.
    #[arg(long, value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
    /// Priority of the --catalog at the same position (default 0; higher is preferred).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub priority: Vec<i64>,
    /// A bundle already installed on the cluster (repeatable). One of PACKAGE is the
    /// subscription's installed CSV: OLM then offers only its upgrades (and with
    /// PACKAGE@BUNDLE, olmlint checks that exact upgrade); others must stay installed.
    #[arg(long, value_name = "BUNDLE")]
    pub installed: Vec<String>,
    /// Another subscription in the same namespace, resolved together (repeatable).
    #[arg(long, value_name = "PACKAGE")]
    pub also_subscribe: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "human")]
    pub format: ResolveFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResolveFormat {
    Human,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    /// The lowest severity that fails the run, if any.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct LintArgs {
    /// Catalog roots, sub-directories, single files or bundle directories.
    pub paths: Vec<PathBuf>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, short = 'f', value_enum, env = "OLMLINT_FORMAT")]
    pub format: Option<Format>,
    /// Write the report to this file instead of stdout; a summary still goes to stderr.
    #[arg(long, short = 'o')]
    pub output_file: Option<PathBuf>,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value = "error", env = "OLMLINT_FAIL_ON")]
    pub fail_on: FailOn,
    /// Configuration file (default: .olmlint.yaml found upward from the first path).
    #[arg(long, short = 'c', env = "OLMLINT_CONFIG")]
    pub config: Option<PathBuf>,
    /// Ignore any .olmlint.yaml.
    #[arg(long)]
    pub no_config: bool,
    /// Turn a rule on at its default severity (repeatable).
    #[arg(long, value_name = "RULE")]
    pub enable: Vec<String>,
    /// Turn a rule off (repeatable).
    #[arg(long, value_name = "RULE")]
    pub disable: Vec<String>,
    /// Also check what a target OLM needs (repeatable): `olmv1` turns on OLM711.
    #[arg(long, value_enum, value_name = "TARGET")]
    pub target: Vec<Target>,
    /// When to use colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Print counts of findings per rule and per package instead of the findings (human
    /// and concise formats).
    #[arg(long)]
    pub statistics: bool,
    /// Treat PATHs as changed files: lint the whole catalogs holding them, but report only
    /// findings in those files or about bundles they define (what pre-commit passes).
    #[arg(long)]
    pub only_files: bool,
    /// Lint the catalogs touched since a git ref, reporting only findings in changed files
    /// (e.g. `--changed-since origin/main` in a pull request).
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// With --changed-since: report only the findings the change introduced. A finding that
    /// also occurs in the catalog at REF (same rule, file, package, bundle, JSON pointer and
    /// text of its line; line numbers do not matter) is left out and counted in the summary.
    #[arg(long, requires = "changed_since")]
    pub only_new: bool,
    /// Do not report the findings listed in this findings baseline file (written by
    /// --write-baseline); its entries that no longer match a finding are reported (OLM010).
    #[arg(long, value_name = "FILE")]
    pub findings_baseline: Option<PathBuf>,
    /// Write every current finding to FILE as a findings baseline and exit 0: adopt olmlint on
    /// a catalog with history, then lint with --findings-baseline FILE.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff", "only_files", "changed_since", "findings_baseline"])]
    pub write_baseline: Option<PathBuf>,
    /// The previous version of the catalog: also check that upgrading from it is safe
    /// (OLM701–704). With --changed-since, the version at REF is the baseline by default.
    #[arg(long, value_name = "OLD_CATALOG")]
    pub baseline: Option<PathBuf>,
    /// The target cluster's properties and admin constraints (YAML/JSON, see rules/OLM720.md):
    /// turns on OLM720, which reports bundles that cannot run there. Not an upstream OLM feature.
    #[arg(long, value_name = "FILE")]
    pub cluster_properties: Option<PathBuf>,
    /// The loaded catalogs (with --context and `provided:`) are the only ones on the
    /// clusters: a dependency found in none of them is an error (OLM503), not a warning
    /// that another catalog provides it (OLM507). Also `closed-world: true` in .olmlint.yaml.
    #[arg(long)]
    pub closed_world: bool,
    /// A catalog dependencies may be satisfied from (repeatable): used as candidates for the
    /// installability checks, never linted. Earlier ones are preferred, after a bundle's own.
    #[arg(long, value_name = "PATH")]
    pub context: Vec<PathBuf>,
    /// Stop the checks after SECONDS and report what was not finished (OLM012); a run that
    /// has not ended 10 s after that exits with code 2.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Apply safe fixes in place (atomic writes), then report what remains.
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Print the fixes as a unified diff instead of writing them; exit 1 if there are any.
    #[arg(long)]
    pub diff: bool,
    /// With --fix or --diff, also apply fixes that change what OLM does (for example quoting a
    /// YAML 1.1 number: `4.20` was the number 4.2).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print no summary line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// What the main thread needs to report a run that did not end 10 s after `--timeout`.
struct HardStop {
    timeout: f64,
    format: Option<Format>,
    output_file: Option<PathBuf>,
    /// `--diff`: stdout is the diff, not a report; only stderr says what happened.
    diff: bool,
}

impl HardStop {
    /// The report of a run stopped from outside: one OLM012 finding naming the phase it was
    /// in, in the requested format, where the report would have gone. Nothing the run found
    /// is in it (its findings are not complete until the end).
    fn report(&self) {
        let phase = olmlint_base::timings::current_phase();
        let finding = Diagnostic::new(
            "OLM012",
            format!(
                "lint did not finish within the {} s timeout and was stopped 10 s later, during {phase}: no finding of this run is reported",
                self.timeout
            ),
        )
        .help("Something in these catalogs takes longer than olmlint's own bounds foresee (please report it with the catalog). Raise `--timeout`, or lint fewer catalogs per run.");
        let diags = [finding];
        let report = Report {
            diags: &diags,
            files: &[],
            summary: olmlint_report::Summary {
                errors: 1,
                ..Default::default()
            },
            fail_on: Some(Severity::Error),
            graphs: &[],
        };
        let format = report_format(self.format);
        let text = report.render(format, false);
        match &self.output_file {
            _ if self.diff => {}
            Some(path) => {
                if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
                    eprintln!("olmlint: cannot write {}: {e}", path.display());
                }
            }
            None => {
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
            }
        }
        eprintln!(
            "olmlint: timed out: the run did not end within 10 s of --timeout (during {phase}); the report holds only that"
        );
    }
}

/// The report format: the one asked for, else `github` in GitHub Actions, else `human`.
fn report_format(asked: Option<Format>) -> Format {
    let in_actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    asked.unwrap_or(if in_actions {
        Format::Github
    } else {
        Format::Human
    })
}

/// How many times `--fix` re-lints and fixes again (a fix can uncover another).
const MAX_FIX_PASSES: usize = 8;

/// The OLM generation a catalog must work with (`--target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// OLM v0 (the default: every rule that is on anyway).
    Olmv0,
    /// OLM v1 (operator-controller), which refuses bundles with dependencies.
    Olmv1,
}

/// Entry point; returns the process exit code (0 clean, 1 findings, 2 usage or I/O error).
/// Set by [`main`], the process's entry: the process exits after the command, so the models
/// are not freed (freeing hundreds of MB of trees only costs time). [`run`] called as a
/// library (the fuzz targets, a server) frees them.
static EXITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn exiting() -> bool {
    EXITING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Drops `value`, unless the process is about to exit ([`EXITING`]).
fn release<T>(value: T) {
    if exiting() {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

pub fn main() -> i32 {
    EXITING.store(true, std::sync::atomic::Ordering::Relaxed);
    olmlint_base::timings::start();
    restore_sigpipe();
    pad_heap_growth();
    // Deep documents are legal up to 10 000 levels; give the pipeline room.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(64 << 20)
        .build_global();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    // The hard stop: the checks honour --timeout themselves; this catches what they cannot
    // interrupt (a huge load) so that CI never hangs.
    let hard_stop = match &cli.command {
        Command::Lint(a) => a.timeout.map(|t| {
            (
                std::time::Duration::from_secs_f64(t.clamp(0.0, 1e9) + 10.0),
                HardStop {
                    timeout: t,
                    format: a.format,
                    output_file: a.output_file.clone(),
                    diff: a.diff,
                },
            )
        }),
        _ => None,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
            let _ = tx.send(code);
        });
    if handle.is_err() {
        eprintln!("olmlint: internal error: cannot start the worker thread");
        return 2;
    }
    let received = match &hard_stop {
        Some((d, _)) => rx.recv_timeout(*d).map_err(|_| true),
        None => rx.recv().map_err(|_| false),
    };
    match received {
        Ok(Ok(code)) => code,
        Err(true) => {
            if let Some((_, stop)) = &hard_stop {
                stop.report();
            }
            2
        }
        _ => {
            eprintln!("olmlint: internal error");
            2
        }
    }
}

pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Rules { json } => {
            let rules = olmlint_base::rules::all();
            if json {
                let v: Vec<_> = rules
                    .iter()
                    .map(|r| serde_json::json!({"id": r.id, "name": r.name, "severity": r.severity.as_str(), "enabled": r.enabled, "summary": r.summary, "url": r.url()}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                for r in rules {
                    let off = if r.enabled { "" } else { " (off by default)" };
                    println!(
                        "{}  {:<32} {:<8} {}{off}",
                        r.id,
                        r.name,
                        r.severity.as_str(),
                        r.summary
                    );
                }
            }
            0
        }
        Command::Explain { rule } => match olmlint_base::rules::get(&rule) {
            Some(r) => {
                println!(
                    "# {} {}\n\nDefault severity: {}{}\n\n{}\n\n{}\n\nDocs: {}",
                    r.id,
                    r.name,
                    r.severity.as_str(),
                    if r.enabled { "" } else { " (off by default)" },
                    r.summary,
                    r.body.trim(),
                    r.book_url()
                );
                0
            }
            None => {
                eprintln!("olmlint: unknown rule `{rule}`; `olmlint rules` lists them");
                2
            }
        },
        Command::Lint(args) => lint(args),
        Command::Resolve(args) => resolve(&args),
        Command::Graph(args) => graph(&args),
        Command::Completions { shell } => {
            let mut out = std::io::stdout().lock();
            crate::generate::completions(<Cli as clap::CommandFactory>::command(), shell, &mut out);
            0
        }
        Command::Man { dir: None } => {
            let mut out = std::io::stdout().lock();
            match crate::generate::man_page(<Cli as clap::CommandFactory>::command(), &mut out) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("olmlint: cannot write the man page: {e}");
                    2
                }
            }
        }
        Command::Man { dir: Some(dir) } => {
            match crate::generate::man_pages_to(<Cli as clap::CommandFactory>::command(), &dir) {
                Ok(files) => {
                    for f in files {
                        eprintln!("wrote {}", f.display());
                    }
                    0
                }
                Err(e) => {
                    eprintln!(
                        "olmlint: cannot write the man pages into {}: {e}",
                        dir.display()
                    );
                    2
                }
            }
        }
        Command::Schema { name: None } => {
            for (name, _) in olmlint_model::schema::SCHEMAS {
                println!("{name}");
            }
            println!("olmlint-config");
            0
        }
        Command::Schema { name: Some(name) } => match olmlint_model::schema::text(&name) {
            Some(text) => {
                print!("{text}");
                0
            }
            None => {
                eprintln!("olmlint: unknown schema `{name}`; `olmlint schema` lists them");
                2
            }
        },
    }
}

fn lint(args: LintArgs) -> i32 {
    let started = std::time::Instant::now();
    let opts = crate::lint::Options {
        paths: args.paths.clone(),
        config: args.config.clone(),
        no_config: args.no_config,
        enable: args
            .enable
            .iter()
            .cloned()
            .chain(
                args.target
                    .iter()
                    .filter(|t| **t == Target::Olmv1)
                    .map(|_| "OLM711".to_string()),
            )
            .collect(),
        disable: args.disable.clone(),
        only_files: Vec::new(),
        deleted: Vec::new(),
        context: args.context.clone(),
        timeout: args.timeout,
        baseline: args.baseline.clone(),
        cluster_properties: args.cluster_properties.clone(),
        closed_world: args.closed_world,
        exiting: false,
        graph: None,
    };
    let mut opts = opts;
    // A path that does not exist is a usage error (exit 2), like `--context /nope`, not a
    // finding that `--fail-on never` would hide; `--only-files` takes files only.
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
            return 2;
        }
    }
    if args.only_files {
        opts.only_files = args.paths.clone();
    }
    let snapshots = match plan_change(&args, &mut opts, started) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // The HTML report draws the upgrade graphs from the models the checks build.
    if report_format(args.format) == Format::Html {
        opts.graph = Some(olmlint_report::graph::Filter::default());
    }
    let opts = opts;
    if args.unsafe_fixes && !args.fix && !args.diff {
        eprintln!("olmlint: --unsafe-fixes only applies with --fix or --diff");
        return 2;
    }
    let mode = if args.unsafe_fixes {
        olmlint_load::fix::Mode::Unsafe
    } else {
        olmlint_load::fix::Mode::Safe
    };
    if args.diff {
        return show_diff(
            &opts,
            mode,
            args.quiet,
            &fix_command(&args.paths, args.unsafe_fixes),
        );
    }
    let outcome = if args.fix {
        match fix_in_place(&opts, mode, args.quiet) {
            Ok(o) => o,
            Err(code) => return code,
        }
    } else {
        match crate::lint::run(&crate::lint::Options {
            exiting: exiting(),
            ..opts.clone()
        }) {
            Ok(o) => o,
            Err(e) => {
                say(&e);
                return 2;
            }
        }
    };
    // A mistake in `.olmlint.yaml` or the cluster properties (OLM011) stops the run with exit
    // 2 whatever `--fail-on` says (a misspelt key must not silently switch checks off): the
    // report, in the requested format, holds only those mistakes.
    let mut outcome = outcome;
    let config_mistakes = outcome.diags.iter().filter(|d| d.rule == "OLM011").count();
    if config_mistakes > 0 {
        outcome.diags.retain(|d| d.rule == "OLM011");
        outcome.summary.errors = config_mistakes;
        outcome.summary.warnings = 0;
        outcome.summary.infos = 0;
    }
    if config_mistakes == 0 {
        match known_findings(&args, &opts, &snapshots, &mut outcome) {
            Ok(None) => {}
            Ok(Some(code)) => return code,
            Err(e) => {
                say(&e);
                return 2;
            }
        }
        // Files of the catalogs at REF that were not read (over the file size limit).
        let unread: Vec<Diagnostic> = snapshots
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
    }
    outcome.cap_for_report();
    // A fix is advertised (JSON/SARIF `fix`, the "fixable" count) only if `--fix` would
    // apply it: re-parsing shows exactly the intended change.
    if outcome.diags.iter().any(|d| d.fix.is_some()) {
        let refused = olmlint_base::timings::phase("fix verification", || {
            olmlint_load::fix::refused(&outcome.diags, &outcome.files)
        });
        for i in refused {
            if let Some(d) = outcome.diags.get_mut(i) {
                d.fix = None;
            }
        }
    }
    let format = report_format(args.format);
    let graphs = crate::graph_command::finish(&mut outcome, crate::graph_command::COLLAPSE);
    let report = Report {
        diags: &outcome.diags,
        files: &outcome.files,
        summary: outcome.summary,
        fail_on: args.fail_on.threshold(),
        graphs: &graphs,
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            !no_color
                && std::io::stderr().is_terminal()
                && args.output_file.is_none()
                && std::io::stdout().is_terminal()
        }
    };
    olmlint_base::timings::mark("checks done");
    olmlint_base::timings::work_report();
    let text = if args.statistics && matches!(format, Format::Human | Format::Concise) {
        olmlint_report::terminal_safe(&olmlint_report::human::statistics(&report), false)
    } else {
        report.render(format, color)
    };
    if let Some(path) = &args.output_file {
        if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
            eprintln!("olmlint: cannot write {}: {e}", path.display());
            return 2;
        }
        if format != Format::Human && !args.quiet {
            // Humans still see what was found.
            eprint!("{}", report.render(Format::Human, color));
        }
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
    }
    if format == Format::Github {
        append_step_summary(|| github::step_summary(&report));
    }
    if !args.quiet {
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
    let failed = threshold.is_some_and(|t| outcome.diags.iter().any(|d| d.severity >= t));
    release(outcome);
    olmlint_base::timings::mark("report written");
    if config_mistakes > 0 {
        say(&format!(
            "the configuration has {config_mistakes} mistake(s); fix {} and run again (other findings are not reported: under a configuration that may not mean what it says they could be wrong)",
            if config_mistakes == 1 { "it" } else { "them" }
        ));
        return 2;
    }
    i32::from(failed)
}

/// Change-scoped runs (`--only-files`, `--changed-since`), before the checks: the changed
/// and deleted files (into `opts`), and the catalogs as they were at REF that the run needs
/// (the upgrade checks' baseline of a single catalog, `--only-new`, the catalogs where files
/// were deleted). `Err(code)`: the run ends here, its report written.
fn plan_change(
    args: &LintArgs,
    opts: &mut crate::lint::Options,
    started: std::time::Instant,
) -> Result<Vec<AtRef>, i32> {
    let Some(git_ref) = &args.changed_since else {
        if args.only_files {
            opts.only_files
                .retain(|f| f.is_file() || olmlint_load::io::leaves_repository(f));
            if opts.only_files.is_empty() {
                return Err(nothing_changed(args, ""));
            }
        }
        return Ok(Vec::new());
    };
    // git has the run's deadline: a git that hangs (or a huge history) ends in an OLM012
    // report like any phase that runs out of time.
    let deadline = args
        .timeout
        .map(|t| started + std::time::Duration::from_secs_f64(t.clamp(0.0, 1e9)));
    let since =
        olmlint_load::git::Since::open(git_ref, deadline).map_err(|e| git_failed(args, e))?;
    let changed = since.changed_files().map_err(|e| git_failed(args, e))?;
    let deleted = since.deleted_files().map_err(|e| git_failed(args, e))?;
    opts.only_files = olmlint_load::git::catalog_files_under(changed, &args.paths);
    // `--fix` and `--diff` edit the changed files only.
    if !args.fix && !args.diff {
        opts.deleted = olmlint_load::git::catalog_files_under(deleted, &args.paths);
    }
    if opts.only_files.is_empty() && opts.deleted.is_empty() {
        return Err(nothing_changed(args, &format!(" since {git_ref}")));
    }
    let roots = crate::lint::change_roots(opts);
    let deletion_roots = olmlint_load::walk::changed_file_roots(&opts.deleted, &opts.paths);
    let every = args.only_new || (opts.baseline.is_none() && roots.len() == 1);
    let max_file_size = configured_file_limit(opts, &roots);
    let mut snapshots = Vec::new();
    for root in &roots {
        if !every && !deletion_roots.contains(root) {
            continue;
        }
        match since.snapshot(root, max_file_size) {
            Err(e @ olmlint_load::git::Error::TimedOut(_)) => return Err(git_failed(args, e)),
            snap => snapshots.push((root.clone(), snap.map_err(|e| e.to_string()))),
        }
    }
    // The catalog at REF is the baseline of the upgrade checks (OLM701–704) when there is one.
    if let (None, [root]) = (&opts.baseline, roots.as_slice()) {
        match snapshots.iter().find(|(r, _)| r == root).map(|(_, s)| s) {
            Some(Ok(snap)) => opts.baseline = snap.as_ref().map(|s| s.root.clone()),
            Some(Err(e)) => say(&format!("--changed-since {git_ref}: cannot read the catalog at {git_ref}, so the upgrade checks (OLM701–704) are skipped: {e}")),
            None => {}
        }
    }
    Ok(snapshots)
}

/// `limits.max-file-size` of the configuration the run will use: what the catalogs at REF
/// are read with too.
fn configured_file_limit(opts: &crate::lint::Options, roots: &[PathBuf]) -> u64 {
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
fn git_failed(args: &LintArgs, e: olmlint_load::git::Error) -> i32 {
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
fn nothing_changed(args: &LintArgs, since: &str) -> i32 {
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
fn early_report(args: &LintArgs, diags: Vec<Diagnostic>, step_summary: Option<String>) -> i32 {
    let mut summary = olmlint_report::Summary::default();
    summary.count(&diags);
    let report = Report {
        diags: &diags,
        files: &[],
        summary,
        fail_on: args.fail_on.threshold(),
        graphs: &[],
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
fn known_findings(
    args: &LintArgs,
    opts: &crate::lint::Options,
    snapshots: &[AtRef],
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
        let entries = findings::read_baseline(path, outcome.max_file_size)
            .map_err(|e| format!("--findings-baseline {}: {e}", path.display()))?;
        let dir = dir_of(path);
        let keys = findings::keys(&outcome.diags, &outcome.files, &Base::Dir(&dir));
        let linted =
            findings::linted_files(&outcome.files, outcome.roots.len(), &dir, &opts.only_files);
        let applied = findings::apply_baseline(
            std::mem::take(&mut outcome.diags),
            &keys,
            &entries,
            &linted,
            &olmlint_load::display_path(path),
        );
        outcome.diags = applied.kept;
        outcome.diags.extend(applied.stale);
        outcome.summary.baselined = applied.suppressed;
    }
    let deletions = !opts.deleted.is_empty() && !args.only_new;
    if let (true, Some(git_ref)) = (deletions, &args.changed_since) {
        introduced_by_deletions(git_ref, opts, snapshots, outcome)?;
    }
    if let (true, Some(git_ref)) = (args.only_new, &args.changed_since) {
        let dropped = preexisting(git_ref, opts, snapshots, outcome, &|_| true)?;
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
fn introduced_by_deletions(
    git_ref: &str,
    opts: &crate::lint::Options,
    snapshots: &[AtRef],
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
    for (root, snap) in snapshots {
        match snap {
            Ok(_) => compared.push(root.clone()),
            Err(e) => outcome.notes.push(format!(
                "{}: cannot read it as it was at {git_ref} ({e}), so the findings of this catalog where files were deleted are all reported, old ones too",
                olmlint_load::display_path(root)
            )),
        }
    }
    outcome.diags = others;
    preexisting(git_ref, opts, snapshots, outcome, &|r| {
        compared.iter().any(|c| c == r)
    })?;
    kept.append(&mut outcome.diags);
    outcome.diags = kept;
    Ok(())
}

/// A catalog as it was at the `--changed-since` ref (`None`: it did not exist there), or why
/// it could not be read.
type AtRef = (PathBuf, Result<Option<olmlint_load::git::Snapshot>, String>);

/// `--only-new`: lints each catalog (of those `compare` accepts) as it was at `git_ref`
/// (`snapshots`, same configuration) and drops the current findings whose fingerprints occur
/// there, catalog by catalog. Returns how many.
fn preexisting(
    git_ref: &str,
    opts: &crate::lint::Options,
    snapshots: &[AtRef],
    outcome: &mut crate::lint::Outcome,
    compare: &dyn Fn(&std::path::Path) -> bool,
) -> Result<usize, String> {
    use olmlint_load::findings::{self, Base};
    let keys = findings::keys(&outcome.diags, &outcome.files, &Base::Roots(&outcome.roots));
    // Every catalog as it was at REF (one that did not exist there has only new findings),
    // linted in one run so that they are checked in parallel.
    let mut snaps = Vec::new();
    let mut scope_of = Vec::new();
    for (scope, root) in outcome.roots.iter().enumerate() {
        if !compare(root) {
            continue;
        }
        let snap = match snapshots.iter().find(|(r, _)| r == root) {
            Some((_, Ok(snap))) => snap.as_ref(),
            Some((_, Err(e))) => {
                return Err(format!(
                    "--only-new: cannot read {} at {git_ref}: {e}",
                    root.display()
                ))
            }
            None => {
                return Err(format!(
                    "--only-new: {} was not read at {git_ref}",
                    root.display()
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

fn graph(args: &GraphArgs) -> i32 {
    let req = crate::graph_command::Request {
        paths: args.paths.clone(),
        filter: olmlint_report::graph::Filter {
            package: args.package.clone(),
            channel: args.channel.clone(),
        },
        baseline: args.baseline.clone(),
        changed_since: args.changed_since.clone(),
        collapse: args.collapse.unwrap_or(match args.format {
            GraphFormat::Json => 0,
            _ => crate::graph_command::COLLAPSE,
        }),
        config: args.config.clone(),
        no_config: args.no_config,
        exiting: exiting(),
    };
    let drawn = match crate::graph_command::draw(&req) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("olmlint: {}", olmlint_report::terminal_safe(&e, false));
            return 2;
        }
    };
    if drawn.graphs.is_empty() && drawn.compared_with.is_none() {
        eprintln!("olmlint: no channel matches (check the paths, --package and --channel)");
        return 1;
    }
    if drawn.graphs.is_empty() {
        if let Some(what) = &drawn.compared_with {
            eprintln!("olmlint: no channel's upgrade graph {what}");
        }
    }
    let text = crate::graph_command::render(&drawn, args.format);
    if args.format == GraphFormat::Mermaid {
        if let Some(why) = olmlint_report::graph::mermaid_too_large(&text, &drawn.graphs) {
            eprintln!("olmlint: warning: {why}");
        }
    }
    match &args.output_file {
        Some(path) => {
            if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
                eprintln!("olmlint: cannot write {}: {e}", path.display());
                return 2;
            }
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    0
}

fn resolve(args: &ResolveArgs) -> i32 {
    let (package, bundle) = match args.target.split_once('@') {
        Some((p, b)) => (p.to_string(), Some(b.to_string())),
        None => (args.target.clone(), None),
    };
    let catalogs: Vec<PathBuf> = if args.catalog.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.catalog.clone()
    };
    let req = crate::resolve::Request {
        package,
        bundle,
        channel: args.channel.clone(),
        catalogs: catalogs
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p, args.priority.get(i).copied().unwrap_or(0)))
            .collect(),
        installed: args.installed.clone(),
        also_subscribe: args.also_subscribe.clone(),
    };
    match crate::resolve::run(&req) {
        Ok(answer) => {
            match args.format {
                ResolveFormat::Json => println!(
                    "{}",
                    olmlint_base::escape::json_text(
                        serde_json::to_string_pretty(&answer).unwrap_or_default()
                    )
                ),
                ResolveFormat::Human => print!(
                    "{}",
                    olmlint_report::terminal_safe(&crate::resolve::render(&answer), false)
                ),
            }
            i32::from(!answer.installable)
        }
        Err(e) => {
            eprintln!(
                "olmlint resolve: {}",
                olmlint_report::terminal_safe(&e, false)
            );
            2
        }
    }
}

/// `--fix`: lint, write the fixes, and lint again until nothing is left to fix; returns the
/// last lint's outcome (what remains). Prints each applied fix on stderr.
fn fix_in_place(
    opts: &crate::lint::Options,
    mode: olmlint_load::fix::Mode,
    quiet: bool,
) -> Result<crate::lint::Outcome, i32> {
    let mut fixed = 0usize;
    let mut touched = std::collections::BTreeSet::new();
    for pass in 0.. {
        let outcome = crate::lint::run(opts).map_err(|e| {
            say(&e);
            2
        })?;
        let changes = olmlint_load::fix::plan(&outcome.diags, &outcome.files, mode);
        if changes.is_empty() || pass == MAX_FIX_PASSES {
            if !quiet && fixed > 0 {
                eprintln!(
                    "olmlint: fixed {fixed} finding{} in {} file{}",
                    plural(fixed),
                    touched.len(),
                    plural(touched.len())
                );
            }
            return Ok(outcome);
        }
        let problems = olmlint_load::fix::write(&changes, &outcome.roots);
        for c in &changes {
            if problems
                .iter()
                .any(|p| p.starts_with(&format!("{}:", c.display)))
            {
                continue;
            }
            touched.insert(c.display.clone());
            for a in &c.applied {
                fixed += 1;
                if !quiet {
                    eprintln!(
                        "{}",
                        olmlint_report::terminal_safe(
                            &format!(
                                "fixed {}:{}:{}: {} {}",
                                c.display, a.line, a.column, a.rule, a.description
                            ),
                            false
                        )
                    );
                }
            }
        }
        for p in &problems {
            say(p);
        }
        if !problems.is_empty() {
            return Err(2);
        }
    }
    Err(2)
}

/// An error line on stderr; it may quote catalog text or names a pull request chose.
/// `-f github`: the job summary (made only when the runner names `$GITHUB_STEP_SUMMARY`)
/// appended to that file.
fn append_step_summary(markdown: impl FnOnce() -> String) {
    let Some(p) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return;
    };
    let res = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&p)
        .and_then(|mut f| f.write_all(markdown().as_bytes()));
    if let Err(e) = res {
        say(&format!("cannot append to GITHUB_STEP_SUMMARY: {e}"));
    }
}

fn say(message: &str) {
    eprintln!("olmlint: {}", olmlint_report::terminal_safe(message, false));
}

/// `--diff`: print what `--fix` would change as a unified diff; exit 1 when it would change
/// something. Shows one pass: fixes uncovered by other fixes appear after `--fix`.
fn show_diff(
    opts: &crate::lint::Options,
    mode: olmlint_load::fix::Mode,
    quiet: bool,
    apply_with: &str,
) -> i32 {
    let outcome = match crate::lint::run(opts) {
        Ok(o) => o,
        Err(e) => {
            say(&e);
            return 2;
        }
    };
    let changes = olmlint_load::fix::plan(&outcome.diags, &outcome.files, mode);
    let mut out = std::io::stdout().lock();
    for c in &changes {
        let _ = out.write_all(olmlint_load::fix::unified_diff(c).as_bytes());
    }
    let n: usize = changes.iter().map(|c| c.applied.len()).sum();
    if !quiet {
        let apply = if n > 0 {
            format!(" (apply with `{apply_with}`)")
        } else {
            String::new()
        };
        eprintln!(
            "olmlint: {n} fixable finding{} in {} file{}{}",
            plural(n),
            changes.len(),
            plural(changes.len()),
            olmlint_report::terminal_safe(&apply, false)
        );
    }
    release(outcome);
    i32::from(!changes.is_empty())
}

/// The command that applies the fixes to what the user linted: `olmlint lint --fix catalog/`
/// (paths as given, quoted for a POSIX shell when they need it).
fn fix_command(paths: &[PathBuf], unsafe_fixes: bool) -> String {
    let mut cmd = String::from("olmlint lint --fix");
    if unsafe_fixes {
        cmd.push_str(" --unsafe-fixes");
    }
    for p in paths {
        let p = p.to_string_lossy();
        let plain = !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./:@+=,".contains(&b));
        cmd.push(' ');
        if plain {
            cmd.push_str(&p);
        } else {
            cmd.push('\'');
            cmd.push_str(&p.replace('\'', "'\\''"));
            cmd.push('\'');
        }
    }
    cmd
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// glibc grows a worker thread's heap by just the bytes a request needs, one `mprotect` call
/// each time: building the trees of community-v4.18 made 7 454 of them (≈ 0.05 s of system
/// time). Growing in 64 MiB steps makes it 15. Only address space is reserved; untouched
/// pages never count toward RSS.
fn pad_heap_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called first thing in main, before any thread allocates; M_TOP_PAD takes a size.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

/// `olmlint … | head` must end quietly when the reader goes away, like other Unix tools, instead
/// of panicking on a write to a closed pipe (Rust ignores SIGPIPE by default).
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `--timeout`: a finite, non-negative number of seconds (a Duration holds at most ~584 years).
fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=1e15).contains(&v) {
        return Err(format!(
            "{s:?} is not a number of seconds between 0 and 10^15"
        ));
    }
    Ok(v)
}
