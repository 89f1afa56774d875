//! `--fix` applies an edit only when re-reading the file shows exactly the intended change:
//! every scalar style of a rewritten range, line endings, and values an edit must not touch.

use olmlint::load::{parse_text_everything, Limits};

const HEAD: &str = "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n";

fn fix(text: &str, unsafe_fixes: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("catalog.yaml");
    std::fs::write(&f, text).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"));
    cmd.args(["lint", "--no-config", "--fix", "-q"]);
    if unsafe_fixes {
        cmd.arg("--unsafe-fixes");
    }
    cmd.arg(&f).output().unwrap();
    std::fs::read_to_string(&f).unwrap()
}

fn tree(text: &str) -> Vec<serde_json::Value> {
    let f = parse_text_everything(text, &Limits::default());
    assert!(f.problems.is_empty(), "{:?}\n{text}", f.problems);
    f.docs
        .iter()
        .map(|d| d.root.as_ref().unwrap().to_json().unwrap())
        .collect()
}

/// The npm-style range `^1.0` in every scalar style, followed by a sibling key and another
/// property: the fix writes `">=1.0.0 <2.0.0"` and nothing else changes.
#[test]
fn range_rewrites_change_only_the_range_in_every_scalar_style() {
    let styles = [
        "^1.0".to_string(),
        "'^1.0'".to_string(),
        "\"^1.0\"".to_string(),
        "|\n        ^1.0".to_string(),
        "|-\n        ^1.0".to_string(),
        ">\n        ^1.0".to_string(),
        ">-\n        ^1.0\n".to_string(),
        "|+\n        ^1.0\n".to_string(),
        ">2\n          ^1.0".to_string(),
    ];
    for style in &styles {
        for crlf in [false, true] {
            for tail in ["", "      note: keep\n"] {
                let mut text = format!(
                    "{HEAD}  - type: olm.package.required\n    value:\n      packageName: bar\n      versionRange: {style}\n{tail}  - type: olm.gvk.required\n    value: {{group: a.io, kind: A, version: v1}}\n"
                );
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                let after = fix(&text, false);
                let mut want = tree(&text);
                want[2]["properties"][1]["value"]["versionRange"] = ">=1.0.0 <2.0.0".into();
                assert_eq!(tree(&after), want, "{style:?} crlf={crlf}\n{after}");
                // Line endings stay as they were.
                assert_eq!(
                    after.matches("\r\n").count() == after.matches('\n').count(),
                    crlf,
                    "{style:?}\n{after:?}"
                );
            }
        }
    }
}

/// The OLM208 rewrite of an anchored or tagged value would drop the anchor (breaking the
/// alias) or write invalid YAML: it is not offered, and the file stays as it was.
#[test]
fn rewrites_that_would_lose_anchors_or_tags_are_not_applied() {
    for value in [
        "&c {rule: 'true', message: hi}",
        "!!map {rule: 'true', message: hi}",
    ] {
        let text = format!(
            "{HEAD}  - type: olm.constraint.cel\n    value: {value}\n  - type: x.copy\n    value: *c\n"
        )
        .replace("value: *c", if value.starts_with('&') { "value: *c" } else { "value: 1" });
        assert_eq!(fix(&text, true), text, "{value}");
    }
    // Without anchors or tags the same rewrite is applied.
    let text =
        format!("{HEAD}  - type: olm.constraint.cel\n    value: {{rule: 'true', message: hi}}\n");
    let after = fix(&text, true);
    let t = tree(&after);
    assert_eq!(t[2]["properties"][1]["type"], "olm.constraint", "{after}");
    assert_eq!(
        t[2]["properties"][1]["value"]["cel"]["rule"], "true",
        "{after}"
    );
}

/// `olmlint lint --fix` with no path lints and fixes the working directory (README).
#[test]
fn fix_without_a_path_writes_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("catalog.yaml");
    let text = format!(
        "{HEAD}  - type: olm.package.required\n    value: {{packageName: bar, versionRange: ^1.0}}\n"
    );
    std::fs::write(&f, &text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "--fix"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let after = std::fs::read_to_string(&f).unwrap();
    assert!(
        after.contains("versionRange: \">=1.0.0 <2.0.0\""),
        "{after}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fix that `--fix` refuses (re-parsing would not show exactly the intended change) is not
/// advertised either: no `fix` in JSON or SARIF, not counted as fixable.
#[test]
fn refused_fixes_are_not_advertised() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("catalog.yaml");
    let anchored = format!(
        "{HEAD}  - type: olm.constraint.cel\n    value: &c {{rule: 'true', message: hi}}\n  - type: x.copy\n    value: *c\n"
    );
    let plain =
        format!("{HEAD}  - type: olm.constraint.cel\n    value: {{rule: 'true', message: hi}}\n");
    for (text, advertised) in [(anchored, false), (plain, true)] {
        std::fs::write(&f, &text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["lint", "--no-config", "-f", "json", f.to_str().unwrap()])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let olm208: Vec<&serde_json::Value> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "OLM208")
            .collect();
        assert!(!olm208.is_empty(), "{report:#}");
        assert_eq!(
            olm208.iter().any(|d| !d["fix"].is_null()),
            advertised,
            "{text}\n{report:#}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.contains("--unsafe-fixes"), advertised, "{stderr}");
    }
}

/// Hints name the paths the user linted, and `--diff --unsafe-fixes` says to apply with
/// `--fix --unsafe-fixes`.
#[test]
fn fix_hints_use_the_paths_given() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("my catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(
        cat.join("catalog.yaml"),
        format!("{HEAD}  - type: olm.constraint.cel\n    value: {{rule: 'true', message: hi}}\n  - type: olm.package.required\n    value: {{packageName: bar, version: '>=1.0.0'}}\n"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["lint", "--no-config"])
            .args(args)
            .arg("my catalog")
            .current_dir(dir.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = run(&[]);
    assert!(
        stderr.contains("fixable with `olmlint lint --fix 'my catalog'`"),
        "{stderr}"
    );
    let stderr = run(&["--diff", "--unsafe-fixes"]);
    assert!(
        stderr.contains("(apply with `olmlint lint --fix --unsafe-fixes 'my catalog'`)"),
        "{stderr}"
    );
}
