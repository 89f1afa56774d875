//! olmlint: a linter and validation pipeline for Operator Lifecycle Manager catalogs.
//!
//! The pipeline: [`load`] (walk and parse with spans) → [`model`] (packages, channels,
//! bundles) → [`check`] (rule families) → [`report`] (human, json, sarif, github, junit).
//! [`semantics`] holds the I/O-free cores: version ranges, constraints, CEL and SAT.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod escape;
pub mod findings;
pub mod fix;
pub mod generate;
pub mod git;
pub mod graph;
pub mod graph_command;
pub mod io;
pub mod lint;
pub mod load;
pub mod model;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod semantics;
pub mod suggest;
pub mod suppress;
pub mod timings;
