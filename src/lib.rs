//! olmlint: a linter and validation pipeline for Operator Lifecycle Manager catalogs.
//!
//! This crate is the command line: one module per command ([`lint`], [`graph_command`],
//! [`resolve`], [`generate`]) and [`cli`], which parses arguments and dispatches. The pipeline
//! is the workspace's layer crates, re-exported here under their stage names: [`load`] (walk
//! and parse with spans) → [`model`] (packages, channels, bundles) → [`check`] (rule
//! families) → [`report`] (formats and graphs), on [`semantics`] (the I/O-free cores:
//! version ranges, constraints, CEL and SAT) and the base crate (trees, diagnostics, rules).
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

pub mod cli;
pub mod generate;
pub mod graph_command;
pub mod lint;
mod repository_context;
pub mod resolve;
pub mod resolve_v1;

pub use olmlint_base::{diag, escape, rules, suggest, timings};
pub use olmlint_check as check;
pub use olmlint_check::{config, suppress};
pub use olmlint_load as load;
pub use olmlint_load::{findings, fix, git, io};
pub use olmlint_model as model;
pub use olmlint_report as report;
pub use olmlint_report::graph;
pub use olmlint_semantics as semantics;
