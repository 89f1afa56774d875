//! `olmlint lint --fix` / `--diff` / `--unsafe-fixes` through the real binary: every fix shows
//! its before and after, keeps everything it does not touch, and is idempotent.

use std::path::Path;
use std::process::{Command, Output};

/// A catalog where `foo.v1.0.0` carries `props` (YAML list items indented by two spaces) and
/// `bar` provides `example.com/v1 Widget`.
fn yaml_catalog(props: &str) -> String {
    format!(
        "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\n# keep this comment\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/example/foo-bundle:v1.0.0\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: 1.0.0}}\n{props}---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - name: bar.v1.2.0\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.2.0\nimage: quay.io/example/bar-bundle:v1.2.0\nproperties:\n  - type: olm.package\n    value: {{packageName: bar, version: 1.2.0}}\n  - type: olm.gvk\n    value: {{group: example.com, kind: Widget, version: v1}}\n"
    )
}

fn olmlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "--color", "never"])
        .args(args)
        .arg(".")
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("OLMLINT_FORMAT")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `before` as catalog.<ext>, runs `--fix` (plus `extra`), checks the result is `after`,
/// that no temporary file is left, and that a second run changes nothing.
fn fixes_to(ext: &str, before: &str, after: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("catalog.{ext}"));
    std::fs::write(&path, before).unwrap();
    let mut args = vec!["--fix"];
    args.extend_from_slice(extra);
    let first = olmlint(dir.path(), &args);
    let got = std::fs::read_to_string(&path).unwrap();
    assert_eq!(got, after, "after --fix; stderr:\n{}", stderr(&first));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "leftover files: {names:?}");
    let second = olmlint(dir.path(), &args);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
    assert!(
        !stderr(&second).contains("fixed"),
        "second run fixed again: {}",
        stderr(&second)
    );
    first
}

#[test]
fn key_case_is_renamed_keeping_quotes() {
    let before = yaml_catalog(
        "  - type: olm.constraint\n    value: {\"GVK\": {Group: example.com, 'Version': v1, kind: Widget}}\n",
    );
    let after = yaml_catalog(
        "  - type: olm.constraint\n    value: {\"gvk\": {group: example.com, 'version': v1, kind: Widget}}\n",
    );
    let out = fixes_to("yaml", &before, &after, &[]);
    let err = stderr(&out);
    assert!(err.contains("OLM212 rename key to `gvk`"), "{err}");
    assert!(err.contains("fixed 3 findings in 1 file"), "{err}");
    assert!(out.status.success(), "{err}");
}

#[test]
fn package_name_and_message_renames() {
    let before = yaml_catalog(
        "  - type: olm.constraint\n    value:\n      message: needs bar\n      package:\n        name: bar\n        version: '>=1.0.0'\n",
    );
    let after = yaml_catalog(
        "  - type: olm.constraint\n    value:\n      failureMessage: needs bar\n      package:\n        packageName: bar\n        versionRange: '>=1.0.0'\n",
    );
    let out = fixes_to("yaml", &before, &after, &[]);
    assert!(stderr(&out).contains("OLM201 rename `name` to `packageName`"));
    // Renaming onto an existing key would write a duplicate: no fix offered.
    let clash = yaml_catalog(
        "  - type: olm.constraint\n    value: {package: {packageName: bar, name: bar, versionRange: '>=1.0.0'}}\n",
    );
    fixes_to("yaml", &clash, &clash, &[]);
}

#[test]
fn legacy_version_key_then_cargo_range_in_a_second_pass() {
    // Renaming `version` uncovers a Cargo-style range, fixed by the next pass.
    let before = yaml_catalog(
        "  - type: olm.package.required\n    value: {packageName: bar, version: ^1.2}\n",
    );
    let after = yaml_catalog(
        "  - type: olm.package.required\n    value: {packageName: bar, versionRange: \">=1.2.0 <2.0.0\"}\n",
    );
    let out = fixes_to("yaml", &before, &after, &[]);
    let err = stderr(&out);
    assert!(
        err.contains("OLM209 rename `version` to `versionRange`"),
        "{err}"
    );
    assert!(
        err.contains("OLM301 rewrite range as `>=1.2.0 <2.0.0`"),
        "{err}"
    );
    assert!(out.status.success(), "{err}");
}

#[test]
fn provisional_cel_block_becomes_modern_form() {
    let before = yaml_catalog(
        "  - type: olm.constraint\n    value:\n      # proposal shape\n      evaluator:\n        id: cel\n      rule: 'properties.exists(p, p.type == \"olm.gvk\")'\n      message: needs a provider\n      action:\n        id: require\n    # trailing comment stays\n",
    );
    let after = yaml_catalog(
        "  - type: olm.constraint\n    value:\n      # proposal shape\n      cel:\n        rule: 'properties.exists(p, p.type == \"olm.gvk\")'\n      failureMessage: 'needs a provider'\n    # trailing comment stays\n",
    );
    let out = fixes_to("yaml", &before, &after, &[]);
    assert!(stderr(&out).contains("OLM208 rewrite as `{cel: {rule}, failureMessage}`"));
    // Another evaluator is not CEL: nothing to rewrite to.
    let lucky =
        yaml_catalog("  - type: olm.constraint\n    value: {evaluator: {id: lucky}, rule: x}\n");
    fixes_to("yaml", &lucky, &lucky, &[]);
}

#[test]
fn provisional_cel_in_json() {
    let doc = |props: &str| {
        format!(
            "{{\"schema\":\"olm.package\",\"name\":\"foo\",\"defaultChannel\":\"stable\"}}\n{{\"schema\":\"olm.channel\",\"package\":\"foo\",\"name\":\"stable\",\"entries\":[{{\"name\":\"foo.v1.0.0\"}}]}}\n{{\"schema\":\"olm.bundle\",\"package\":\"foo\",\"name\":\"foo.v1.0.0\",\"image\":\"quay.io/example/foo:v1\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"foo\",\"version\":\"1.0.0\"}}}},{props}]}}\n"
        )
    };
    let before = doc("{\"type\":\"olm.constraint\",\"value\":{\"evaluator\":{\"id\":\"cel\"},\"rule\":\"true\",\"message\":\"m\"}}");
    let after = doc("{\"type\":\"olm.constraint\",\"value\":{\"cel\": {\"rule\": \"true\"}, \"failureMessage\": \"m\"}}");
    fixes_to("json", &before, &after, &[]);
}

#[test]
fn unsafe_fixes_need_the_flag() {
    let before = yaml_catalog(
        "  - type: olm.maxOpenShiftVersion\n    value: 4.20\n  - type: olm.constraint.cel\n    value: {rule: 'true'}\n",
    );
    // Safe mode: nothing to do, and the summary points at --unsafe-fixes.
    let out = fixes_to("yaml", &before, &before, &[]);
    assert!(
        stderr(&out).contains("2 fixable with `--unsafe-fixes`"),
        "{}",
        stderr(&out)
    );
    let after = yaml_catalog(
        "  - type: olm.maxOpenShiftVersion\n    value: \"4.20\"\n  - type: olm.constraint\n    value: {cel: {rule: 'true'}}\n",
    );
    let out = fixes_to("yaml", &before, &after, &["--unsafe-fixes"]);
    let err = stderr(&out);
    assert!(err.contains("OLM710 quote 4.20"), "{err}");
    assert!(
        err.contains("OLM208 rewrite as an `olm.constraint`"),
        "{err}"
    );
}

#[test]
fn diff_shows_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.yaml");
    let before = yaml_catalog("  - type: olm.constraint\n    value: {GVK: {group: example.com, version: v1, kind: Widget}}\n");
    std::fs::write(&path, &before).unwrap();
    let out = olmlint(dir.path(), &["--diff"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.starts_with("--- a/catalog.yaml\n+++ b/catalog.yaml\n"),
        "{diff}"
    );
    assert!(diff.contains("\n-    value: {GVK: {group"), "{diff}");
    assert!(diff.contains("\n+    value: {gvk: {group"), "{diff}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert!(stderr(&out).contains("1 fixable finding in 1 file"));
    // Nothing to fix: empty diff, exit 0.
    std::fs::write(&path, yaml_catalog("")).unwrap();
    let out = olmlint(dir.path(), &["--diff"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    // --unsafe-fixes alone is a usage error.
    assert_eq!(
        olmlint(dir.path(), &["--unsafe-fixes"]).status.code(),
        Some(2)
    );
}

#[test]
fn fixes_are_in_json_and_sarif_reports() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.yaml"),
        yaml_catalog("  - type: olm.constraint\n    value: {GVK: {group: example.com, version: v1, kind: Widget}}\n"),
    )
    .unwrap();
    let out = olmlint(dir.path(), &["-f", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "OLM212")
        .unwrap();
    assert_eq!(d["fix"]["safe"], true);
    assert_eq!(d["fix"]["edits"][0]["replacement"], "gvk");
    assert_eq!(d["fix"]["edits"][0]["line"], 21);
    assert_eq!(d["fix"]["edits"][0]["column"], 13);
    let out = olmlint(dir.path(), &["-f", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "OLM212")
        .unwrap();
    let rep = &r["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(rep["insertedContent"]["text"], "gvk");
    assert_eq!(rep["deletedRegion"]["startColumn"], 13);
}

/// `--fix` killed at random moments leaves each file either untouched or completely fixed:
/// the rename is atomic, so there is never a truncated or half-written catalog.
#[test]
fn killed_mid_write_never_corrupts() {
    let mut props = String::new();
    for i in 0..3000 {
        props.push_str(&format!(
            "  - type: olm.constraint\n    value: {{GVK: {{group: example.com, version: v1, kind: Widget}}, failureMessage: m{i}}}\n"
        ));
    }
    let before = yaml_catalog(&props);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.yaml");
    // The reference result of an uninterrupted run.
    std::fs::write(&path, &before).unwrap();
    let started = std::time::Instant::now();
    let out = olmlint(dir.path(), &["--fix", "-q"]);
    let took = started.elapsed();
    assert!(out.status.code().is_some());
    let after = std::fs::read_to_string(&path).unwrap();
    assert_ne!(after, before);
    let mut seen = [0usize; 2];
    for round in 0..40u64 {
        std::fs::write(&path, &before).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["lint", "--no-config", "--fix", "-q", "."])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread the kills over the run (parse, checks, write, second pass): over how long
        // the uninterrupted run took, and a little after, in a scrambled order.
        std::thread::sleep(took.mul_f64(((round * 17) % 40) as f64 / 36.0));
        let _ = child.kill();
        let _ = child.wait();
        let got = std::fs::read_to_string(&path).unwrap();
        if got == before {
            seen[0] += 1;
        } else {
            assert_eq!(got, after, "round {round}: a partial file");
            seen[1] += 1;
        }
    }
    // Leftover temporary files are allowed after a kill, but never in place of the catalog.
    println!(
        "untouched {} / fixed {} (an uninterrupted run: {took:?})",
        seen[0], seen[1]
    );
}
