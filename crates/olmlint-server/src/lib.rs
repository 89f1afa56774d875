//! `olmlint server`: the catalog linter as a language server (LSP 3.17 over stdio).
//!
//! The editor's buffers are overlaid on the disk ([`olmlint_load::overlay::Overlay`]) and the
//! catalog a changed file belongs to is linted whole, as `olmlint lint` lints it: findings
//! are published for every file of the catalog, so an edit in one file shows where it breaks
//! another. Threads: the main loop owns the protocol and the open documents; one worker runs
//! the lints (latest wins: a newer edit cancels the run in flight, whose result is dropped).
//! Hover, code actions and go to definition are answered from what the last published run of
//! the document's catalog found (its findings, fixes and model, kept as plain data).
//!
//! The pipeline lives in the `olmlint` package, which depends on this crate: it is reached
//! through [`Engine`], which that package implements with its lint run.
// Long functions are split into named stages; clippy.toml sets the threshold (unit tests exempt).
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::print_stdout
    )
)]

mod actions;
pub mod convert;
mod documents;
mod facts;
mod hover;
mod main_loop;
mod requests;
pub mod schedule;
pub mod uri;
mod worker;

use olmlint_base::diag::Diagnostic;
use olmlint_load::overlay::Overlay;
use olmlint_load::LoadedFile;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One lint of one catalog, as the server asks for it.
pub struct Run {
    /// The catalog (canonical): a directory, or a template planned on its own.
    pub root: PathBuf,
    /// Linted with it, for its sake only (their own findings are not published): the
    /// rendered catalogs a template is paired with, as `olmlint lint` pairs them in the
    /// whole build ([`olmlint_load::discover::changed::companions`]).
    pub companions: Vec<PathBuf>,
    /// The open buffers, read in place of the files at their paths.
    pub overlay: Arc<Overlay>,
    /// Set when a newer edit makes this run's result useless: stop early.
    pub cancel: Arc<AtomicBool>,
    /// Check without OLM's resolution (the families that read it are left out): a large
    /// catalog's keystroke. See [`schedule`](crate::schedule).
    pub quick: bool,
}

/// What a run found: the files it read (findings point into them by index) and the
/// findings, as `olmlint lint` reports them.
pub struct Snapshot {
    pub files: Vec<LoadedFile>,
    pub diags: Vec<Diagnostic>,
}

/// The lint pipeline, as the server runs it.
pub trait Engine: Send + Sync + 'static {
    /// Lints `run.root` whole with the buffers overlaid; `Err` is a message for the user (a
    /// configuration that cannot be used, say).
    fn lint(&self, run: &Run) -> Result<Snapshot, String>;
}

/// Serves one client on stdin and stdout until it says `exit`; the process's exit code: 0
/// after `shutdown` then `exit`, 1 otherwise (the protocol's rule).
pub fn run(engine: impl Engine) -> i32 {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let code = main_loop::serve(&connection, Arc::new(engine));
    // The writer ends once every sender is gone, after writing what was sent.
    drop(connection);
    match io_threads.join() {
        Ok(()) => code,
        Err(e) => {
            eprintln!("olmlint server: {e}");
            1
        }
    }
}
