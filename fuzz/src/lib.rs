//! olmlint's fuzz targets (see `targets`); the binaries in `fuzz_targets/` wrap them for
//! libFuzzer.

pub mod targets;
