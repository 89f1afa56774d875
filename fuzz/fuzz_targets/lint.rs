//! The whole `lint` pipeline on a generated directory: bytes → a small tree of files,
//! directories and symbolic links (some pointing out of the catalog, at a canary file) with
//! fuzzed contents, including `.olmlint.yaml` and `.indexignore` → `olmlint::lint::run` →
//! every report format.
//!
//! Checks: no panic; every finding's location is inside a loaded file; the JSON and SARIF
//! reports parse; no report quotes the canary outside the catalog (a planted link must not
//! leak what it points at); nothing is written outside the catalog.
#![no_main]

use libfuzzer_sys::fuzz_target;
use olmlint::report::{Format, Report};
use std::path::Path;

const CANARY: &str = "CANARY-outside-the-catalog-7f3a";

/// Names an entry may take: catalog files, nested ones, the files olmlint reads specially,
/// bundle-directory parts, and names that try to leave the root.
const NAMES: &[&str] = &[
    "catalog.yaml",
    "catalog.json",
    "foo/catalog.yaml",
    "foo/bundles/b.yaml",
    ".indexignore",
    ".olmlint.yaml",
    "bundle/manifests/csv.yaml",
    "bundle/metadata/annotations.yaml",
    "bundle/metadata/dependencies.yaml",
    "v4.16/c.yaml",
    "ci.yaml",
    "x.yml",
];

/// Targets a symbolic link may take.
const TARGETS: &[&str] = &[
    "../outside/secret.txt",
    "catalog.yaml",
    ".",
    "..",
    "foo",
    "/dev/zero",
    "missing",
];

fn entry(root: &Path, data: &[u8]) {
    let (Some(&kind), Some(&name)) = (data.first(), data.get(1)) else {
        return;
    };
    let name = NAMES[name as usize % NAMES.len()];
    let path = root.join(name);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let body = data.get(2..).unwrap_or_default();
    match kind % 4 {
        // Links: out of the catalog (the canary), to itself, to a device, dangling.
        0 => {
            let target = TARGETS[body.first().copied().unwrap_or(0) as usize % TARGETS.len()];
            let _ = std::os::unix::fs::symlink(target, &path);
        }
        _ => {
            let _ = std::fs::write(&path, body);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path().join("catalog");
    let outside = dir.path().join("outside");
    let _ = std::fs::create_dir_all(&root);
    let _ = std::fs::create_dir_all(&outside);
    let _ = std::fs::write(outside.join("secret.txt"), format!("schema: {CANARY}\n"));
    // Entries are separated by the byte 0xff (at most 16 of them).
    for part in data.split(|&b| b == 0xff).take(16) {
        entry(&root, part);
    }
    let opts = olmlint::lint::Options {
        paths: vec![root.clone()],
        timeout: Some(5.0),
        exiting: false,
        ..Default::default()
    };
    let Ok(outcome) = olmlint::lint::run(&opts) else {
        return;
    };
    for d in &outcome.diags {
        if let Some(l) = d.location {
            let file = outcome.files.get(l.file).expect("finding in a loaded file");
            assert!(l.span.start() <= l.span.end());
            assert!(l.span.end() <= file.source.text.len() + 1);
        }
    }
    let report = Report {
        diags: &outcome.diags,
        files: &outcome.files,
        summary: outcome.summary,
        fail_on: Some(olmlint::diag::Severity::Error),
    };
    for format in [
        Format::Json,
        Format::Sarif,
        Format::Human,
        Format::Concise,
        Format::Github,
        Format::Junit,
    ] {
        let text = report.render(format, false);
        assert!(!text.contains(CANARY), "{format:?} report leaks the link target");
        if matches!(format, Format::Json | Format::Sarif) {
            serde_json::from_str::<serde_json::Value>(&text).expect("report parses");
        }
    }
    // Nothing outside the catalog was written.
    let entries: Vec<_> = std::fs::read_dir(&outside)
        .map(|r| r.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(entries.len(), 1, "a file appeared outside the catalog");
});
