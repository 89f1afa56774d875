//! The file names olmlint gives a meaning of its own: the walk never reads them as catalog
//! content (the configuration and the findings baseline define them by these names).

/// `.olmlint.yaml`, looked for in the linted directory and its ancestors.
pub const CONFIG_FILES: [&str; 2] = [".olmlint.yaml", ".olmlint.yml"];
/// The findings baseline `--write-baseline` writes and `--findings-baseline` reads.
pub const FINDINGS_BASELINE: &str = ".olmlint-baseline.json";
