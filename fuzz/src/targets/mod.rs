//! The fuzz targets' bodies, one module each. The libFuzzer binaries in `fuzz_targets/` call
//! them, and `tests/fuzz_smoke.rs` compiles them into the test suite and runs each over its
//! committed corpus and mutations of it on the stable toolchain, so that a target that stops
//! compiling or an oracle that a change breaks is seen in CI, not at the next campaign.

pub mod cel;
pub mod constraint;
pub mod gen;
pub mod graph;
pub mod lint;
pub mod load;
pub mod pr;
pub mod range;
pub mod sandbox;
pub mod templates;
