//! Findings known from elsewhere (issue #29): `--only-new` (only what a change introduced,
//! matched by fingerprints that survive line shifts), the findings baseline file
//! (`--write-baseline` / `--findings-baseline`) and `suppress:` entries in .olmlint.yaml (the
//! way to suppress in JSON catalogs).

use crate::common::{diagnostics, git, olmlint, write_files};
use serde_json::Value;
use std::path::Path;

const OLD: &str = "---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
    skipRange: '^0.8'
---
schema: olm.bundle
package: foo
name: foo.v1.0.0
image: quay.io/x/foo:v1
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
";

/// OLD plus foo.v2.0.0, inserted above foo.v1.0.0 (every old line moves down) with a new
/// invalid skipRange.
fn new_version() -> String {
    OLD.replace(
        "entries:\n",
        "entries:\n  - name: foo.v2.0.0\n    replaces: foo.v1.0.0\n    skipRange: '^0.9'\n",
    )
    .replace(
        "---\nschema: olm.bundle\n",
        "---\nschema: olm.bundle\npackage: foo\nname: foo.v2.0.0\nimage: quay.io/x/foo:v2\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 2.0.0}\n---\nschema: olm.bundle\n",
    )
}

/// A repository whose last commit holds `catalog/foo/catalog.yaml` = OLD.
fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    git(tmp.path(), &["init", "-q"], None);
    write_files(tmp.path(), &[("catalog/foo/catalog.yaml", OLD)]);
    git(tmp.path(), &["add", "-A"], None);
    git(tmp.path(), &["commit", "-qm", "base"], None);
    tmp
}

fn summary(out: &std::process::Output) -> Value {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["summary"].clone()
}

fn rules_and_bundles(diags: &[Value]) -> Vec<(String, String)> {
    diags
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["bundle"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn only_new_reports_what_the_change_introduced() {
    let tmp = repo();
    let dir = tmp.path();
    std::fs::write(dir.join("catalog/foo/catalog.yaml"), new_version()).unwrap();
    let args = [
        "lint",
        "--no-config",
        "-f",
        "json",
        "--changed-since",
        "HEAD",
    ];
    // Without --only-new: the old finding too (its file changed).
    let all = olmlint(Some(dir), args.iter().chain(&["catalog"]));
    assert_eq!(
        rules_and_bundles(&diagnostics(&all)),
        [
            ("OLM109".to_string(), "foo.v2.0.0".to_string()),
            ("OLM109".to_string(), "foo.v1.0.0".to_string())
        ]
    );
    // With it: only the new one, although every old line moved; the old one is counted.
    let new = olmlint(Some(dir), args.iter().chain(&["--only-new", "catalog"]));
    assert_eq!(new.status.code(), Some(1));
    assert_eq!(
        rules_and_bundles(&diagnostics(&new)),
        [("OLM109".to_string(), "foo.v2.0.0".to_string())]
    );
    assert_eq!(summary(&new)["preexisting"], 1);
    assert_eq!(summary(&new)["errors"], 1);
    let human = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "--changed-since",
            "HEAD",
            "--only-new",
            "catalog",
        ],
    );
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(
        stderr.contains("not reported: 1 already there before the change"),
        "{stderr}"
    );

    // Fixing the old problem while adding the new one: still just the new one.
    std::fs::write(
        dir.join("catalog/foo/catalog.yaml"),
        new_version().replace("'^0.8'", "'>=0.8.0 <1.0.0'"),
    )
    .unwrap();
    let new = olmlint(Some(dir), args.iter().chain(&["--only-new", "catalog"]));
    assert_eq!(
        rules_and_bundles(&diagnostics(&new)),
        [("OLM109".to_string(), "foo.v2.0.0".to_string())]
    );
    assert!(summary(&new).get("preexisting").is_none());
}

#[test]
fn only_new_counts_repeated_findings_and_new_catalogs() {
    let tmp = repo();
    let dir = tmp.path();
    // A second bundle with the same old mistake on an identical line: one more of a kind is new.
    let twice = OLD.replace(
        "entries:\n",
        "entries:\n  - name: foo.v0.9.0\n    skipRange: '^0.8'\n",
    );
    std::fs::write(dir.join("catalog/foo/catalog.yaml"), &twice).unwrap();
    // A catalog that did not exist at REF: everything in it is new.
    write_files(
        dir,
        &[("catalog/bar/catalog.yaml", &OLD.replace("foo", "bar"))],
    );
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            "--changed-since",
            "HEAD",
            "--only-new",
            "catalog",
        ],
    );
    let diags = diagnostics(&out);
    let got = rules_and_bundles(&diags);
    assert!(
        got.contains(&("OLM109".to_string(), "bar.v1.0.0".to_string())),
        "{got:?}"
    );
    let foo: Vec<_> = got
        .iter()
        .filter(|(r, b)| r == "OLM109" && b.starts_with("foo"))
        .collect();
    // foo.v0.9.0's skipRange line is the same text as the old one, in another document: the
    // bundle tells them apart, so it is new; the old one is not.
    assert_eq!(
        foo,
        [&("OLM109".to_string(), "foo.v0.9.0".to_string())],
        "{got:?}"
    );
}

#[test]
fn only_new_needs_changed_since() {
    let tmp = repo();
    let out = olmlint(Some(tmp.path()), ["lint", "--only-new", "catalog"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--changed-since"));
}

fn write_baseline(dir: &Path) {
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "--write-baseline",
            ".olmlint-baseline.json",
            "catalog",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn findings_baseline_adopts_a_catalog_with_history() {
    let tmp = repo();
    let dir = tmp.path();
    std::fs::write(dir.join("catalog/foo/catalog.yaml"), new_version()).unwrap();
    write_baseline(dir);
    let text = std::fs::read_to_string(dir.join(".olmlint-baseline.json")).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["olmlint-findings-baseline"], 1);
    assert_eq!(file["findings"].as_array().unwrap().len(), 2);
    assert_eq!(file["findings"][0]["file"], "catalog/foo/catalog.yaml");
    // Written twice: the same bytes (sorted, no timestamps).
    write_baseline(dir);
    assert_eq!(
        std::fs::read_to_string(dir.join(".olmlint-baseline.json")).unwrap(),
        text
    );

    let lint = |dir: &Path| {
        olmlint(
            Some(dir),
            [
                "lint",
                "--no-config",
                "-f",
                "json",
                "--findings-baseline",
                ".olmlint-baseline.json",
                "catalog",
            ],
        )
    };
    let out = lint(dir);
    assert_eq!(out.status.code(), Some(0));
    assert!(diagnostics(&out).is_empty());
    assert_eq!(summary(&out)["baselined"], 2);

    // Lines move and a new mistake appears: only the new one; the fixed one is a stale entry.
    let edited = new_version()
        .replace("'^0.9'", "'>=0.9.0 <2.0.0'")
        .replace(
            "entries:\n",
            "entries:\n  - name: foo.v3.0.0\n    replaces: foo.v2.0.0\n    skipRange: '^2.0'\n",
        )
        .replacen(
            "---\nschema: olm.bundle\n",
            "---\nschema: olm.bundle\npackage: foo\nname: foo.v3.0.0\nimage: quay.io/x/foo:v3\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 3.0.0}\n---\nschema: olm.bundle\n",
            1,
        );
    std::fs::write(dir.join("catalog/foo/catalog.yaml"), edited).unwrap();
    let out = lint(dir);
    let diags = diagnostics(&out);
    let mut got = rules_and_bundles(&diags);
    got.sort();
    assert_eq!(
        got,
        [
            ("OLM010".to_string(), "foo.v2.0.0".to_string()),
            ("OLM109".to_string(), "foo.v3.0.0".to_string())
        ],
        "{diags:#?}"
    );
    let stale = diags.iter().find(|d| d["rule"] == "OLM010").unwrap();
    assert!(stale["message"].as_str().unwrap().contains(
        "lists OLM109 in catalog/foo/catalog.yaml (foo/foo.v2.0.0), which no longer occurs"
    ));
    assert_eq!(summary(&out)["baselined"], 1);

    // Inside the catalog under its conventional name, the baseline is not catalog content.
    std::fs::copy(
        dir.join(".olmlint-baseline.json"),
        dir.join("catalog/.olmlint-baseline.json"),
    )
    .unwrap();
    let out = olmlint(Some(dir), ["lint", "--no-config", "-f", "json", "catalog"]);
    assert!(diagnostics(&out).iter().all(|d| d["rule"] != "OLM003"));

    // Not a baseline: a usage error, not findings.
    std::fs::write(dir.join("bad.json"), "{\"findings\": 3}").unwrap();
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "--findings-baseline",
            "bad.json",
            "catalog",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an olmlint findings baseline"));
}

const JSON_CATALOG: &str = r#"{"schema": "olm.package", "name": "foo", "defaultChannel": "stable"}
{"schema": "olm.channel", "package": "foo", "name": "stable", "entries": [{"name": "foo.v1.0.0", "skipRange": "^0.8"}]}
{"schema": "olm.bundle", "package": "foo", "name": "foo.v1.0.0", "image": "quay.io/x/foo:v1", "properties": [{"type": "olm.package", "value": {"packageName": "foo", "version": "1.0.0"}}]}
"#;

#[test]
fn json_catalogs_suppress_in_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_files(
        dir,
        &[
            ("catalog/catalog.json", JSON_CATALOG),
            (
                ".olmlint.yaml",
                "suppress:\n  - rule: OLM109\n    file: catalog/*.json\n    pointer: /entries/0/skipRange\n    bundle: foo.v1.0.0\n    reason: kept for clusters on 0.8\n  - rule: replaces-missing\n    file: catalog/other.json\n    reason: no longer needed\n",
            ),
        ],
    );
    let out = olmlint(Some(dir), ["lint", "-f", "json", "catalog"]);
    let diags = diagnostics(&out);
    assert_eq!(out.status.code(), Some(0), "{diags:#?}");
    // The OLM109 is suppressed; the second entry matches nothing and says so, at the entry.
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["rule"], "OLM010");
    assert_eq!(diags[0]["line"], 7);
    assert!(diags[0]["file"]
        .as_str()
        .unwrap()
        .ends_with(".olmlint.yaml"));

    // Another pointer: not suppressed.
    write_files(
        dir,
        &[(
            ".olmlint.yaml",
            "suppress:\n  - rule: OLM109\n    file: catalog/*.json\n    pointer: /entries/1/skipRange\n    reason: wrong pointer\n",
        )],
    );
    let out = olmlint(Some(dir), ["lint", "-f", "json", "catalog"]);
    let mut rules: Vec<_> = diagnostics(&out)
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    rules.sort();
    assert_eq!(rules, ["OLM010", "OLM109"]);

    // An entry without a reason is a configuration mistake (exit 2).
    write_files(
        dir,
        &[(
            ".olmlint.yaml",
            "suppress:\n  - rule: OLM109\n    file: catalog/*.json\n",
        )],
    );
    let out = olmlint(Some(dir), ["lint", "-f", "json", "catalog"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(diagnostics(&out)[0]["message"]
        .as_str()
        .unwrap()
        .contains("\"reason\" is a required property"));
}

/// #46: a change-scoped run whose changed file belongs to the repository's root (a file at
/// the top of a directory of per-release catalogs) re-lints that root at the base ref as it
/// was linted at HEAD, one catalog, not split into its release catalogs (cop #10854 failed
/// with exit 2: "the catalogs at REF are laid out differently").
#[test]
fn only_new_relints_the_same_catalogs_at_the_base_ref() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"], None);
    write_files(
        dir,
        &[
            ("v4.17/foo/catalog.yaml", OLD),
            ("v4.18/foo/catalog.yaml", OLD),
            ("notes.yaml", "schema: my.notes\n"),
        ],
    );
    git(dir, &["add", "-A"], None);
    git(dir, &["commit", "-qm", "base"], None);
    std::fs::write(dir.join("notes.yaml"), "schema: my.notes\nchanged: true\n").unwrap();
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            "--changed-since",
            "HEAD",
            "--only-new",
        ],
    );
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The catalog at REF is read from git only where the change touched it: a file the work
/// tree holds as it was is copied (not inflated from git's objects again). The old finding in
/// the changed file depends on the unchanged one (its dependency's near miss, OLM503; without
/// bar.yaml at REF it would be another finding), and it is known at REF, so not new.
#[test]
fn unchanged_files_of_the_catalog_at_the_ref_are_taken_from_the_work_tree() {
    let bar = "---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - name: bar.v1.0.0\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.0.0\nimage: quay.io/x/bar:v1\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 1.0.0}\n";
    let foo = |image: &str| {
        format!("---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: {image}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: 1.0.0}}\n  - type: olm.package.required\n    value: {{packageName: bar, versionRange: '>=2.0.0'}}\n")
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"], None);
    write_files(
        dir,
        &[
            ("catalog/bar/bar.yaml", bar),
            ("catalog/foo/foo.yaml", &foo("quay.io/x/foo:v1")),
        ],
    );
    git(dir, &["add", "-A"], None);
    git(dir, &["commit", "-qm", "base"], None);
    std::fs::write(dir.join("catalog/foo/foo.yaml"), foo("quay.io/x/foo:v1.0")).unwrap();
    let args = [
        "lint",
        "--no-config",
        "-f",
        "json",
        "--changed-since",
        "HEAD",
    ];
    let all = olmlint(Some(dir), args.iter().chain(&["catalog"]));
    let rules: Vec<Value> = diagnostics(&all)
        .iter()
        .map(|d| d["rule"].clone())
        .collect();
    assert!(rules.contains(&Value::from("OLM503")), "{rules:?}");
    let new = olmlint(Some(dir), args.iter().chain(&["--only-new", "catalog"]));
    assert_eq!(diagnostics(&new), Vec::<Value>::new());
    assert!(summary(&new)["preexisting"].as_u64().unwrap() >= 1);
    assert_eq!(new.status.code(), Some(0));
}
