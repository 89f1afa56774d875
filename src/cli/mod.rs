//! The command line: a thin layer over [`crate::lint`] and [`olmlint_report`].

use clap::{Parser, Subcommand, ValueEnum};
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_report::{Format, Report};
use std::io::Write;
use std::path::PathBuf;

mod change;
mod fix;
mod graph;
mod info;
mod lint;
mod lint_args;
mod resolve;
mod server;

pub use graph::GraphArgs;
pub use lint_args::LintArgs;
pub use resolve::{ResolveArgs, ResolveFormat};

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
    /// Run the language server on stdin and stdout (LSP): findings in the editor as you
    /// type, for the catalog each open file belongs to, judged whole.
    Server {
        /// Do not show the findings listed in this findings baseline file (written by
        /// `olmlint lint --write-baseline`); its entries that match no finding are OLM010.
        #[arg(long, value_name = "FILE")]
        findings_baseline: Option<PathBuf>,
    },
    /// Print the man page (roff: `olmlint man | man -l -`), or with --dir write one page per
    /// command (olmlint.1, olmlint-lint.1, ...) into a directory.
    Man {
        /// Write the pages into this directory (created if missing) instead of printing olmlint.1.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
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
            catalogs: &[],
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
    // Deep documents are legal up to 10 000 levels; give the pipeline room (the run itself
    // is a job on the pool, below).
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(256 << 20)
        .build_global();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    if let Command::Server { findings_baseline } = &cli.command {
        // A session of many runs: each frees what it built, and none holds a worker of the
        // pool while the server waits for the editor.
        EXITING.store(false, std::sync::atomic::Ordering::Relaxed);
        return server::server(findings_baseline.clone());
    }
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
    let job = move || {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
        let _ = tx.send(code);
    };
    // The run is a job on the pool: its serial stages run on a worker, which starts each
    // parallel stage itself. From a thread of its own, every parallel stage was handed to the
    // pool and waited for, two wake-ups each, and the run's first instructions waited for
    // that thread to be scheduled (milliseconds on a busy machine; issue #44).
    if pool.is_ok() {
        rayon::spawn(job);
    } else if std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(job)
        .is_err()
    {
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
        Command::Lint(args) => lint::lint(args),
        Command::Resolve(args) => resolve::resolve(&args),
        Command::Graph(args) => graph::graph(&args),
        Command::Rules { json } => info::rules(json),
        Command::Explain { rule } => info::explain(&rule),
        Command::Schema { name } => info::schema(name.as_deref()),
        Command::Completions { shell } => info::completions(shell),
        Command::Man { dir } => info::man(dir.as_deref()),
        Command::Server { findings_baseline } => server::server(findings_baseline),
    }
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

/// `--target` (repeatable, comma-separated): `None` when not given; a mistake is a usage
/// error (exit 2), said on stderr.
fn targets(given: &[String]) -> Result<Option<olmlint_semantics::olmv1::Targets>, i32> {
    if given.is_empty() {
        return Ok(None);
    }
    olmlint_semantics::olmv1::Targets::parse(given.iter().map(String::as_str))
        .map(Some)
        .map_err(|e| {
            say(&format!("--target: {e}"));
            2
        })
}
