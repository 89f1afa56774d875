//! The integration tests, one test binary (each file a module): one link of the olmlint
//! library instead of one per file, which was most of the test command's time. Three others:
//! `tests/limits` (adversarial inputs) and `tests/hostile.rs` measure the peak memory of the
//! olmlint processes they run, which Linux reports including what the test process held
//! when it started them (so those processes must stay small, without the corpora the tests
//! here load); `wheel.rs` rebuilds the olmlint binary that the tests here run; and
//! `fuzz_smoke.rs` runs the fuzz targets in its own process, since the `pr` target changes
//! the process's current directory while an input runs.
//!
//! Run one file's tests with `cargo test --profile test-opt --test hostile` (a filter
//! is a path prefix).

#[path = "../common/mod.rs"]
mod common;

mod action;
mod architecture;
mod book;
mod browser;
mod catalog_roots;
mod check_stages;
mod cli;
mod cluster_constraint;
mod corpus;
mod discover;
mod ecosystem;
mod editors;
mod elided_values;
mod fix;
mod fix_safety;
mod graph;
mod human_output;
mod image_references;
mod indexignore;
mod known_findings;
mod libyaml;
mod olmv1_acceptance;
mod olmv1_catalog;
mod olmv1_resolve;
mod open_world;
mod operators;
mod opm_errors;
mod parity;
mod precommit;
mod proptest_decoder;
mod proptest_range;
mod pull_requests;
mod real_world;
mod release;
mod repeated_values;
mod resolve;
mod resolve_cases;
mod root_causes;
mod rule_docs;
mod schema;
mod server;
mod server_features;
mod server_quick;
mod templates;
mod upgrade;
mod upstream;
mod yaml_acceptance;
