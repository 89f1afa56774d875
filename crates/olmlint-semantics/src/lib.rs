//! I/O-free semantic cores: OLM's version ranges and versions, constraints, CEL and SAT.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod cel;
pub mod constraint;
pub mod openshift;
pub mod range;
pub mod sat;
pub mod semver_template;
pub mod version;
