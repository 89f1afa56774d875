//! `.indexignore` exactly as opm applies it: every file asked about one by one, directories
//! never pruned, the last matching pattern of every `.indexignore` above it deciding, in
//! go-git's gitignore semantics (not git's). Differential vectors from the real matcher
//! (tests/data/indexignore-vectors.json, written by scripts/indexignore-vectors.sh), and the
//! layouts of issue #45 end to end with the binary.

use crate::common;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes one vector's tree: its files, and its `.indexignore` files by directory.
fn materialize(dir: &Path, case: &Value) -> Vec<String> {
    let files: Vec<String> = case["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    for f in &files {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}\n").unwrap();
    }
    for (d, content) in case["ignore"].as_object().unwrap() {
        std::fs::write(dir.join(d).join(".indexignore"), content.as_str().unwrap()).unwrap();
    }
    files
}

/// The files olmlint's walk reads under `dir`, as slash-separated paths relative to it.
fn olmlint_reads(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    olmlint::load::walk::collect(dir, 0, &mut found, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    found
        .iter()
        .map(|f| {
            let rel = f.path.strip_prefix(dir).unwrap();
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            parts.join("/")
        })
        .collect()
}

/// A directory for thousands of small files: on tmpfs when the system has one (on this
/// project's disk-backed /tmp, creating them took 20 s of system time).
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    shm.is_dir()
        .then(|| tempfile::tempdir_in(shm).ok())
        .flatten()
        .unwrap_or_else(|| tempfile::tempdir().unwrap())
}

#[test]
fn every_vector_of_the_go_matcher_gets_the_same_verdicts() {
    let text = std::fs::read_to_string(root().join("tests/data/indexignore-vectors.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 3000, "{}", cases.len());
    // Case i in directory i/: its `.indexignore` files are all below i/, so the one walk
    // judges each case as opm's walk of i/ alone does (a pattern is matched below its own
    // directory, and the order of a case's files is the same under a common prefix).
    let tmp = scratch();
    let names: Vec<Vec<String>> = cases
        .iter()
        .enumerate()
        .map(|(i, case)| materialize(&tmp.path().join(i.to_string()), case))
        .collect();
    let mut reads = vec![BTreeSet::new(); cases.len()];
    for path in olmlint_reads(tmp.path()) {
        let (case, file) = path.split_once('/').unwrap();
        reads[case.parse::<usize>().unwrap()].insert(file.to_string());
    }
    let (mut files, mut file_disagreements) = (0, 0);
    let mut disagreements = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let verdicts = case["ignored"].as_str().unwrap();
        assert_eq!(verdicts.len(), names[i].len(), "case {i}");
        let wrong: Vec<String> = names[i]
            .iter()
            .zip(verdicts.chars())
            .filter(|(name, v)| (*v == '1') == reads[i].contains(*name))
            .map(|(name, v)| {
                let opm = if v == '1' { "skips" } else { "reads" };
                format!("{name} (opm {opm} it)")
            })
            .collect();
        files += names[i].len();
        file_disagreements += wrong.len();
        if !wrong.is_empty() {
            disagreements.push(format!("case {i} {}: {wrong:?}", case["ignore"]));
        }
    }
    eprintln!(
        "indexignore vectors: {} cases, {} disagree; {files} files, {file_disagreements} disagree",
        cases.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree with opm:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}

/// A valid catalog as one JSON stream.
const CATALOG_JSON: &str = r#"{"schema":"olm.package","name":"foo","defaultChannel":"stable"}
{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v1.0.0"}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v1.0.0","image":"quay.io/x/foo:v1","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}}]}
"#;

/// `olmlint lint --no-config -f json .` in `dir`: the diagnostics and the summary.
fn lint(dir: &Path) -> (Vec<Value>, Value) {
    let out = common::olmlint(Some(dir), ["lint", "--no-config", "-q", "-f", "json", "."]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        report["diagnostics"].as_array().unwrap().clone(),
        report["summary"].clone(),
    )
}

/// Where the diagnostics are, as `file:rule`.
fn places(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            format!(
                "{}:{}",
                d["file"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_negation_reads_json_files_below_a_pattern_that_excludes_everything() {
    // The layout of issue #45: opm reads `op/catalog.json` (and rejects the catalog when a
    // JSON file there is broken); olmlint, which pruned the directory `op/`, reported 0 files.
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path();
    common::write_files(
        cat,
        &[
            (".indexignore", "**/*\n!*.json\n"),
            ("README.md", "The catalog.\n"),
            ("op/README.md", "# The foo operator\n"),
            ("op/catalog.json", CATALOG_JSON),
        ],
    );
    let (d, summary) = lint(cat);
    assert!(d.is_empty(), "{d:#?}");
    assert_eq!(summary["files"], 1, "{summary}");
    assert_eq!(summary["bundles"], 1, "{summary}");
    // opm validate: "unexpected EOF".
    std::fs::write(
        cat.join("op/broken.json"),
        "{\"schema\": \"olm.package\", \"name\": \n",
    )
    .unwrap();
    let (d, summary) = lint(cat);
    assert_eq!(places(&d), ["op/broken.json:OLM001"], "{d:#?}");
    assert_eq!(summary["files"], 2, "{summary}");
}

#[test]
fn a_pattern_naming_a_directory_excludes_the_files_below_it_at_any_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path();
    common::write_files(
        cat,
        &[
            (".indexignore", "docs/\n"),
            ("catalog.json", CATALOG_JSON),
            ("docs/notes.md", "Not a catalog.\n"),
            ("op/docs/deep/example.yaml", "kind: CatalogSource\n"),
            // A file named `docs` is no directory: opm reads it, and rejects it.
            ("op/docs.d/docs", "x: [\n"),
        ],
    );
    // A directory named `.indexignore` is skipped, as opm skips it.
    std::fs::create_dir_all(cat.join("op/.indexignore")).unwrap();
    let (d, summary) = lint(cat);
    assert_eq!(places(&d), ["op/docs.d/docs:OLM001"], "{d:#?}");
    assert_eq!(summary["files"], 2, "{summary}");
}

#[test]
fn a_line_opm_cannot_read_is_reported() {
    // bufio.Scanner stops at a line of 64 KiB: opm fails on the `.indexignore` itself.
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path();
    let long = format!("README.md\n{}\n", "x".repeat(64 * 1024));
    common::write_files(
        cat,
        &[(".indexignore", &long), ("catalog.json", CATALOG_JSON)],
    );
    let (d, _) = lint(cat);
    let messages: Vec<&str> = d.iter().map(common::message).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("line 2 is 64 KiB or longer") && m.contains("token too long")),
        "{d:#?}"
    );
}
