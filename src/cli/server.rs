//! `olmlint server`: the language server (crates/olmlint-server) over this package's lint run.

use olmlint_server::{Engine, Run, Snapshot};

/// The lint run of `olmlint lint CATALOG`, on the catalog the server names, with the
/// editor's buffers overlaid: the same discovery of the configuration, the same limits and
/// the same filters; findings capped per rule and file as the report caps them, and fixes
/// kept only when `--fix` would apply them.
struct Lint {
    /// `--findings-baseline FILE` (absolute): findings it lists are left out, as in
    /// `olmlint lint --findings-baseline`.
    findings_baseline: Option<std::path::PathBuf>,
}

impl Engine for Lint {
    fn lint(&self, run: &Run) -> Result<Snapshot, String> {
        let opts = crate::lint::Options {
            paths: std::iter::once(&run.root)
                .chain(&run.companions)
                .cloned()
                .collect(),
            // The catalog is decided already (as for `--only-files`): no discovery again.
            planned: true,
            overlay: Some(run.overlay.clone()),
            cancel: Some(run.cancel.clone()),
            quick: run.quick,
            ..Default::default()
        };
        // A job on the pool, as `olmlint lint` runs (see `cli::main`): its serial stages
        // start each parallel one from a worker of the pool instead of waking it from outside.
        let (tx, rx) = std::sync::mpsc::channel();
        rayon::spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(|| crate::lint::run(&opts)));
        });
        let outcome = olmlint_base::timings::phase("server: run", || rx.recv());
        let mut outcome = match outcome {
            Ok(Ok(result)) => result?,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => return Err("the lint run ended without a result".to_string()),
        };
        // The companions' own findings are theirs to publish when one of their files is open.
        if !run.companions.is_empty() {
            let files = &outcome.files;
            outcome.diags.retain(|d| {
                d.location
                    .is_none_or(|l| files.get(l.file).is_some_and(|f| f.scope == 0))
            });
        }
        if super::lint::keep_only_config_mistakes(&mut outcome) == 0 {
            if let Some(path) = &self.findings_baseline {
                super::change::apply_findings_baseline(path, &[], &mut outcome)?;
            }
        }
        if run.quick {
            // What only a full run can tell (an entry of the findings baseline that matches
            // nothing) is the last full run's to show.
            outcome.diags.retain(|d| !d.deferred);
        }
        outcome.cap_for_report();
        // Code actions offer only the fixes `--fix` would apply.
        super::lint::withdraw_refused_fixes(&mut outcome);
        Ok(Snapshot {
            files: outcome.files,
            diags: outcome.diags,
        })
    }
}

/// Serves one editor on stdin and stdout; the exit code the protocol asks for.
pub(super) fn server(findings_baseline: Option<std::path::PathBuf>) -> i32 {
    let findings_baseline =
        findings_baseline.map(|p| std::env::current_dir().map(|cwd| cwd.join(&p)).unwrap_or(p));
    olmlint_server::run(Lint { findings_baseline })
}
