//! I/O-free semantic cores: OLM's version ranges and versions, constraints, CEL and SAT.
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

pub mod cel;
pub mod constraint;
pub mod mmsemver;
pub mod olmv1;
pub mod openshift;
pub mod range;
pub mod sat;
pub mod semver_template;
pub mod version;
