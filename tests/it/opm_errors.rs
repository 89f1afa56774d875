//! One fixture per error text `opm validate` (operator-registry v1.73) prints while loading and
//! converting a file-based catalog (../shared/docs/olm-semantics.md §6.2–§6.3): every row of
//! `fixtures/opm-errors/expected.tsv` must come out of the `olmlint` binary as a finding with that
//! rule, at that line of the fixture's catalog file, whose message contains the upstream text.
//!
//! `expected.tsv` columns: fixture directory, rule, upstream text, 1-based line. In the text, `…`
//! stands for "anything" (the pieces between must appear in this order): it covers what the spec
//! leaves open and what olmlint deliberately prints on one line (`json.Encoder`'s trailing newline
//! inside `object '…'`). A rule written `BUG:OLM104` marks a text olmlint does not produce yet: the
//! row is not asserted, but the test prints what olmlint reported instead.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("fixtures/opm-errors")
}

/// Every distinct upstream text of §6.2–§6.3, `…` for the placeholders. Each must be matched by the
/// text of some row (a `BUG:` row counts: the fixture exists and documents the gap).
const UPSTREAM_TEXTS: &[&str] = &[
    // §6.2 loading
    "invalid Yaml document separator: …",
    "object '' is missing root schema field",
    "json: cannot unmarshal array into Go value of type map[string]interface {}",
    "json: cannot unmarshal string into Go value of type map[string]interface {}",
    "duplicate keys for key \"schema\": [… schema]",
    "expected value for key \"…\" to be a string, got …",
    "object '{…}…' is missing root schema field",
    "parse package: json: cannot unmarshal …",
    "parse channel: json: cannot unmarshal …",
    "parse bundle: json: cannot unmarshal …",
    "parse deprecation: json: cannot unmarshal …",
    "read bundle objects: package \"…\", bundle \"…\": parse property at index … as bundle object: …",
    // §6.3 package blobs
    "config contains package with no name",
    "duplicate package \"…\"",
    "invalid package name \"…\": [a lowercase RFC 1123 label must consist of …]",
    "invalid package name \"…\": [must be no more than 63 characters]",
    // channel blobs
    "unknown package \"…\" for channel \"…\"",
    "package \"…\" contains channel with no name",
    "package \"…\" has duplicate channel \"…\"",
    "invalid package \"…\", channel \"…\": duplicate entry \"…\"",
    // bundle blobs
    "package name must be set for bundle \"…\"",
    "unknown package \"…\" for bundle \"…\"",
    "package \"…\" has duplicate bundle \"…\"",
    "parse properties for bundle \"…\": parse property[…] of type \"…\": json: cannot unmarshal …",
    "parse properties for bundle \"…\": parse property[…] of type \"…\": unexpected end of JSON input",
    "package \"…\" bundle \"…\" must have exactly 1 \"olm.package\" property, found …",
    "package \"…\" does not match \"olm.package\" property \"…\"",
    "package \"…\" does not match \"olm.package\" property \"\"",
    "package \"…\" bundle \"…\" image: invalid image pull spec \"…\": …",
    "package \"…\" bundle \"…\" relatedImages[…].image: invalid image pull spec \"…\": …",
    "error parsing bundle \"…\" version \"…\": …",
    "error parsing bundle \"…\" release version \"…\": …",
    "package \"…\", bundle \"…\" not found in any channel entries",
    // cross-checks
    "no olm.bundle blobs found in package \"…\" for olm.channel entries [… …]",
    "channel must contain at least one bundle",
    "default channel must be set",
    // deprecations
    "package name must be set for deprecation item …",
    "cannot apply deprecations to an unknown package \"…\"",
    "expected a maximum of one deprecation per package: \"…\"",
    "schema must be set for deprecation entry […] for package \"…\"",
    "duplicate deprecation entry … for package \"…\"",
    "cannot deprecate bundle \"…\" for package \"…\": bundle not found",
    "cannot deprecate channel \"…\" for package \"…\": channel not found",
    "package name must be empty for deprecated package \"…\" (specified \"…\")",
    "cannot deprecate object … object schema unknown",
    "invalid deprecation: message must be set",
    // Model.Validate, package level
    "package must contain at least one channel",
    "duplicate versions found in bundles: [{…: […, …]}]",
    // channel level
    "no channel head found in graph",
    "multiple channel heads found in graph: …, …",
    "detected cycle in replaces chain of upgrade graph: … -> … -> …",
    "channel contains one or more stranded bundles: …",
    // bundle level
    "name must be set",
    "name \"…\" does not match normalized name \"…-v…-…\"",
    "skip[…] is empty",
    "invalid skipRange \"…\": …",
    "bundle image must be set",
    "cannot use build metadata in version with a release version",
];

/// §6.3 texts no file-based catalog can produce: the conversion rejects the catalog with another
/// text first. Listed so the coverage above is complete; no row may claim them.
const UNREACHABLE: &[(&str, &str)] = &[
    (
        "package name must not be empty",
        "`config contains package with no name` comes first",
    ),
    (
        "default channel \"…\" not found in channels list",
        "the conversion adds a missing default channel as an empty channel, which fails as \
         `channel must contain at least one bundle`",
    ),
    (
        "channel name must not be empty",
        "`package \"p\" contains channel with no name` comes first",
    ),
    (
        "must be exactly one property with type \"olm.package\"",
        "`must have exactly 1 \"olm.package\" property, found N` comes first",
    ),
];

/// `pattern` with `…` as a wildcard: its pieces appear in `text` in this order.
fn matches(pattern: &str, text: &str) -> bool {
    let mut rest = text;
    let mut pieces = pattern.split('…').peekable();
    let mut first = true;
    while let Some(piece) = pieces.next() {
        let last = pieces.peek().is_none();
        if first && last {
            return rest.contains(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = rest.get(at + piece.len()..).unwrap_or(""),
            None => return false,
        }
        first = false;
    }
    true
}

struct Row {
    fixture: String,
    rule: String,
    bug: bool,
    text: String,
    line: u64,
}

fn rows() -> Vec<Row> {
    let tsv = std::fs::read_to_string(fixtures().join("expected.tsv")).unwrap();
    tsv.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "expected.tsv line {}: {l:?}", i + 1);
            let (bug, rule) = match cols[1].strip_prefix("BUG:") {
                Some(r) => (true, r),
                None => (false, cols[1]),
            };
            assert!(
                rule.len() == 6 && rule.starts_with("OLM"),
                "expected.tsv line {}: rule {rule:?}",
                i + 1
            );
            Row {
                fixture: cols[0].to_string(),
                rule: rule.to_string(),
                bug,
                text: cols[2].to_string(),
                line: cols[3]
                    .parse()
                    .unwrap_or_else(|e| panic!("expected.tsv line {}: {e}", i + 1)),
            }
        })
        .collect()
}

/// The fixture's catalog file (`catalog.yaml` or `catalog.json`).
fn catalog_file(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = ["catalog.yaml", "catalog.json"]
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{}: one catalog.yaml or catalog.json",
        dir.display()
    );
    found.into_iter().next().unwrap()
}

struct Run {
    code: Option<i32>,
    diags: Vec<serde_json::Value>,
}

fn lint(dir: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args([
            "lint",
            dir.to_str().unwrap(),
            "-f",
            "json",
            "-q",
            "--no-config",
        ])
        .current_dir(root())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("OLMLINT_FORMAT")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Run {
        code: out.status.code(),
        diags: v["diagnostics"].as_array().cloned().unwrap_or_default(),
    }
}

fn found(row: &Row, file: &Path, diags: &[serde_json::Value]) -> bool {
    diags.iter().any(|d| {
        d["rule"] == row.rule.as_str()
            && d["line"].as_u64() == Some(row.line)
            && d["file"]
                .as_str()
                .is_some_and(|f| root().join(f) == file || Path::new(f) == file)
            && d["message"].as_str().is_some_and(|m| matches(&row.text, m))
    })
}

fn show(diags: &[serde_json::Value]) -> String {
    if diags.is_empty() {
        return "      (no findings)".into();
    }
    diags
        .iter()
        .map(|d| {
            format!(
                "      {}:{}:{} {} {}",
                Path::new(d["file"].as_str().unwrap_or(""))
                    .file_name()
                    .map_or(String::new(), |f| f.to_string_lossy().into_owned()),
                d["line"],
                d["column"],
                d["rule"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Straight to stderr, past the test harness's capture, so known gaps show on every run.
fn note(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

#[test]
fn wildcard_matching() {
    assert!(matches("a…c", "xabc"));
    assert!(matches("object '…' is", "object '' is"));
    assert!(matches("object '…' is", "object 'null\n' is"));
    assert!(!matches("a…c", "ca"));
    assert!(matches("version \"01\": …", "version \"01\": anything"));
    assert!(matches("plain", "a plain text"));
}

#[test]
fn every_fixture_has_a_row_and_every_row_a_fixture() {
    let rows = rows();
    let mut dirs: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= UPSTREAM_TEXTS.len(),
        "{} fixtures",
        dirs.len()
    );
    for d in &dirs {
        assert!(
            rows.iter().any(|r| &r.fixture == d),
            "{d} has no row in expected.tsv"
        );
        let file = catalog_file(&fixtures().join(d));
        // The first line quotes the upstream text (JSON has no comments: `.indexignore` holds it).
        let head = if file.extension().is_some_and(|e| e == "json") {
            std::fs::read_to_string(fixtures().join(d).join(".indexignore")).unwrap()
        } else {
            std::fs::read_to_string(&file).unwrap()
        };
        let first = head.lines().next().unwrap_or("");
        assert!(
            first
                .trim_start_matches("--- ")
                .starts_with("# opm validate: "),
            "{d}: the first line must quote the upstream text, got {first:?}"
        );
    }
    for r in &rows {
        assert!(
            dirs.contains(&r.fixture),
            "expected.tsv names a missing fixture {}",
            r.fixture
        );
    }
}

#[test]
fn every_upstream_text_has_a_fixture() {
    let rows = rows();
    let mut missing = Vec::new();
    let mut only_bugs = Vec::new();
    for t in UPSTREAM_TEXTS {
        let covering: Vec<&Row> = rows.iter().filter(|r| matches(t, &r.text)).collect();
        if covering.is_empty() {
            missing.push(*t);
        } else if covering.iter().all(|r| r.bug) {
            only_bugs.push(*t);
        }
    }
    // `object '' …`: the empty-document rows use `object '…'` (the spec's '' or Go's re-encoded
    // `null`), so match that spelling too.
    missing.retain(|t| {
        !(t.contains("object ''")
            && rows
                .iter()
                .any(|r| r.text.contains("object '…' is missing root schema field")))
    });
    assert!(
        missing.is_empty(),
        "upstream texts without a fixture: {missing:#?}"
    );
    if !only_bugs.is_empty() {
        note(&format!(
            "upstream texts covered only by BUG rows: {only_bugs:#?}"
        ));
    }
    for (t, why) in UNREACHABLE {
        assert!(
            !rows.iter().any(|r| matches(t, &r.text)),
            "{t:?} is unreachable ({why}) but a row claims it"
        );
    }
}

#[test]
fn olmlint_reports_every_upstream_text() {
    let rows = rows();
    let mut by_fixture: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in &rows {
        by_fixture.entry(&r.fixture).or_default().push(r);
    }
    let mut failures = Vec::new();
    let mut bugs = Vec::new();
    for (fixture, rows) in by_fixture {
        let dir = fixtures().join(fixture);
        let file = catalog_file(&dir);
        let run = lint(&dir);
        for r in &rows {
            let ok = found(r, &file, &run.diags);
            let want = format!(
                "{fixture}: {} at {}:{} with {:?}",
                r.rule,
                file.file_name().unwrap().to_string_lossy(),
                r.line,
                r.text
            );
            match (r.bug, ok) {
                (false, true) => {}
                (false, false) => failures.push(format!(
                    "{want}\n    olmlint reported:\n{}",
                    show(&run.diags)
                )),
                (true, false) => bugs.push(format!(
                    "BUG {want}\n    olmlint reported:\n{}",
                    show(&run.diags)
                )),
                (true, true) => bugs.push(format!(
                    "BUG row now passes, drop its `BUG:` marker: {want}"
                )),
            }
        }
        // opm rejects every fixture, so olmlint must exit 1 (unless a BUG row explains why not).
        if rows.iter().all(|r| !r.bug) && run.code != Some(1) {
            failures.push(format!("{fixture}: exit code {:?}, want 1", run.code));
        }
    }
    if !bugs.is_empty() {
        note(&format!(
            "{} known gaps (BUG rows, not asserted):\n{}",
            bugs.len(),
            bugs.join("\n")
        ));
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
