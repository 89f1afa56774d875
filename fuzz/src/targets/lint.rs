//! The whole `lint` pipeline on a generated directory: bytes → a small tree of files,
//! directories and symbolic links (some pointing out of the catalog, at a canary file) with
//! fuzzed contents, including `.olmlint.yaml`, `.olmlint-baseline.json` and `.indexignore` →
//! `olmlint::lint::run` (graphs drawn) → every report format.
//!
//! Checks: no panic; every finding's location is inside a loaded file; every report passes
//! its oracle ([`super::sandbox::check_reports`]: JSON and SARIF parse, no canary, markup
//! only olmlint's, logs inert); nothing is written outside the catalog.

use super::sandbox::{lint_and_check, Sandbox};

/// Names an entry may take: catalog files, nested ones, the files olmlint reads specially,
/// bundle-directory parts.
const NAMES: &[&str] = &[
    "catalog.yaml",
    "catalog.json",
    "foo/catalog.yaml",
    "foo/bundles/b.yaml",
    ".indexignore",
    ".olmlint.yaml",
    ".olmlint-baseline.json",
    "bundle/manifests/csv.yaml",
    "bundle/metadata/annotations.yaml",
    "bundle/metadata/dependencies.yaml",
    "v4.16/c.yaml",
    "ci.yaml",
    "x.yml",
    "foo",
];

/// One input (the libFuzzer target `lint` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Some(sandbox) = Sandbox::new("catalog") else {
        return;
    };
    sandbox.entries(NAMES, data, 16);
    lint_and_check(&sandbox.root, false, 4);
    sandbox.assert_outside_untouched();
}
