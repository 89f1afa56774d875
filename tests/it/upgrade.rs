//! The upgrade-safety rules (OLM701–704) beyond their rule-doc examples: what they must not
//! flag, how OLM703 gives way to OLM501, the `--baseline` usage errors, and the baseline that
//! `--changed-since` reads from git.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn olmlint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

fn findings(out: &std::process::Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["diagnostics"].as_array().unwrap().clone()
}

fn rules(diags: &[Value]) -> Vec<String> {
    let mut r: Vec<String> = diags
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    r.sort();
    r
}

/// An FBC package `foo` with channel `stable` listing `entries` (YAML flow mappings) and one
/// bundle per version in `versions`.
fn foo(entries: &[&str], versions: &[&str]) -> String {
    let mut s = String::from("---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n");
    for e in entries {
        s.push_str(&format!("  - {e}\n"));
    }
    for v in versions {
        s.push_str(&format!("---\nschema: olm.bundle\npackage: foo\nname: foo.v{v}\nimage: quay.io/x/foo:{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: {v}}}\n"));
    }
    s
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn lint_pair(old: &str, new: &str, extra: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old/catalog.yaml", old);
    write(dir.path(), "new/catalog.yaml", new);
    let mut args = vec![
        "lint",
        "new",
        "--baseline",
        "old",
        "--no-config",
        "-f",
        "json",
        "-q",
    ];
    args.extend(extra);
    findings(&olmlint(dir.path(), &args))
}

const V3: [&str; 3] = ["1.0.0", "1.1.0", "1.2.0"];

#[test]
fn removed_head_is_reported() {
    let old = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
            "{name: foo.v1.2.0, replaces: foo.v1.1.0}",
        ],
        &V3,
    );
    // The head is gone: clusters on 1.2.0 are ahead of the new head.
    let new = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
        ],
        &V3[..2],
    );
    let d = lint_pair(&old, &new, &[]);
    assert_eq!(rules(&d), ["OLM704"], "{d:#?}");
    assert_eq!(
        d[0]["message"],
        "foo.v1.2.0, the head of channel stable in the baseline, was removed: clusters running it are ahead of the new head foo.v1.1.0 and will never be offered an upgrade"
    );
    assert_eq!(d[0]["pointer"], "/entries");
    assert!(d[0]["related"][0]["file"].as_str().unwrap().contains("old"));
}

/// A head replaced by a higher version that has no edge from it (a new bundle without
/// `replaces`): clusters on it are behind the new head, not ahead, and get no upgrade.
#[test]
fn a_head_left_without_an_edge_to_the_new_head_is_reported_as_such() {
    let old = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
        ],
        &V3[..2],
    );
    let new = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.2.0, replaces: foo.v1.0.0}",
        ],
        &["1.0.0", "1.2.0"],
    );
    let d = lint_pair(&old, &new, &[]);
    assert_eq!(rules(&d), ["OLM704"], "{d:#?}");
    assert_eq!(
        d[0]["message"],
        "foo.v1.1.0, the head of channel stable in the baseline, was removed and the new head foo.v1.2.0 neither replaces nor skips it, nor has a skipRange containing it: clusters running it will never be offered an upgrade"
    );
}

#[test]
fn upgrade_edges_that_remain_are_not_reported() {
    let old = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
            "{name: foo.v1.2.0, replaces: foo.v1.1.0}",
        ],
        &V3,
    );
    for (case, entries) in [
        // tail pruning: the new tail still replaces the removed bundle (opm accepts it)
        (
            "tail pruned",
            vec![
                "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
                "{name: foo.v1.2.0, replaces: foo.v1.1.0}",
            ],
        ),
        // a middle bundle removed, and skipped by its successor
        (
            "skips",
            vec![
                "{name: foo.v1.0.0}",
                "{name: foo.v1.2.0, replaces: foo.v1.0.0, skips: [foo.v1.1.0]}",
            ],
        ),
        // a middle bundle removed, covered by a skipRange
        (
            "skipRange",
            vec![
                "{name: foo.v1.0.0}",
                "{name: foo.v1.2.0, replaces: foo.v1.0.0, skipRange: '>=1.1.0 <1.2.0'}",
            ],
        ),
    ] {
        let versions: Vec<&str> = V3
            .iter()
            .copied()
            .filter(|v| {
                entries
                    .iter()
                    .any(|e| e.contains(&format!("name: foo.v{v}")))
            })
            .collect();
        let d = lint_pair(&old, &foo(&entries, &versions), &[]);
        assert!(!rules(&d).contains(&"OLM704".to_string()), "{case}: {d:#?}");
    }
    // A whole channel gone is not this rule's case.
    let other = "---\nschema: olm.package\nname: foo\ndefaultChannel: fast\n---\nschema: olm.channel\npackage: foo\nname: fast\nentries:\n  - {name: foo.v1.0.0}\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:1.0.0\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n";
    assert!(lint_pair(&old, other, &[]).is_empty());
}

/// foo provides Widget v1 (old) / only v2 (new); bar requires Widget v1.
fn widget_catalogs(third_provider: bool) -> (String, String) {
    let bundle = |name: &str, version: &str, gvk_version: &str| {
        format!("---\nschema: olm.bundle\npackage: foo\nname: {name}\nimage: quay.io/x/foo:{version}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: {version}}}\n  - type: olm.gvk\n    value: {{group: example.com, kind: Widget, version: {gvk_version}}}\n")
    };
    let bar = "---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - {name: bar.v1.0.0}\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.0.0\nimage: quay.io/x/bar:1\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 1.0.0}\n  - type: olm.gvk.required\n    value: {group: example.com, kind: Widget, version: v1}\n";
    let third = if third_provider {
        "---\nschema: olm.package\nname: baz\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: baz\nname: stable\nentries:\n  - {name: baz.v1.0.0}\n---\nschema: olm.bundle\npackage: baz\nname: baz.v1.0.0\nimage: quay.io/x/baz:1\nproperties:\n  - type: olm.package\n    value: {packageName: baz, version: 1.0.0}\n  - type: olm.gvk\n    value: {group: example.com, kind: Widget, version: v1}\n"
    } else {
        ""
    };
    let head = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - {name: foo.v1.0.0}\n";
    let old = format!("{head}{}{bar}{third}", bundle("foo.v1.0.0", "1.0.0", "v1"));
    let new = format!(
        "{head}  - {{name: foo.v2.0.0, replaces: foo.v1.0.0}}\n{}{}{bar}{third}",
        bundle("foo.v1.0.0", "1.0.0", "v1"),
        bundle("foo.v2.0.0", "2.0.0", "v2")
    );
    (old, new)
}

#[test]
fn api_removal_needs_dependents_without_another_provider() {
    let (old, new) = widget_catalogs(false);
    let d = lint_pair(&old, &new, &[]);
    assert_eq!(rules(&d), ["OLM701"], "{d:#?}");
    assert_eq!(d[0]["bundle"], "foo.v2.0.0");
    let (old, new) = widget_catalogs(true);
    assert!(lint_pair(&old, &new, &[]).is_empty());
    // `provided:` from another catalog counts as a provider too.
    let (old, new) = widget_catalogs(false);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old/catalog.yaml", &old);
    write(dir.path(), "new/catalog.yaml", &new);
    write(
        dir.path(),
        "new/.olmlint.yaml",
        "provided:\n  gvks: [example.com/v1/Widget]\n",
    );
    let d = findings(&olmlint(
        dir.path(),
        &["lint", "new", "--baseline", "old", "-f", "json", "-q"],
    ));
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn regression_gives_way_to_olm501_when_disabled_and_without_baseline() {
    let foo_needs_bar = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - {name: foo.v1.0.0}\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n  - type: olm.package.required\n    value: {packageName: bar, versionRange: '<2.0.0'}\n";
    let bar = |v: &str| {
        format!("---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - {{name: bar.v{v}}}\n---\nschema: olm.bundle\npackage: bar\nname: bar.v{v}\nimage: quay.io/x/bar:{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: bar, version: {v}}}\n")
    };
    let old = format!("{foo_needs_bar}{}", bar("1.2.0"));
    let new = format!("{foo_needs_bar}{}", bar("2.0.0"));
    let d = lint_pair(&old, &new, &[]);
    let r703: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM703").collect();
    assert_eq!(r703.len(), 1, "{d:#?}");
    assert!(r703[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("foo.v1.0.0 was installable from the baseline catalog and is not any more: "));
    assert_eq!(
        r703[0]["related"].as_array().unwrap().last().unwrap()["message"],
        "in the baseline OLM installed it with bar.v1.2.0"
    );
    assert!(!rules(&d).contains(&"OLM501".to_string()));
    // Disabled, the uninstallable bundle is OLM501's again, folded into its cause (the
    // dependency without candidates, OLM503).
    let olm501 = |d: &[Value]| {
        common::verdicts(d)
            .iter()
            .any(|(r, b)| r == "OLM501" && b == "foo.v1.0.0")
    };
    let d = lint_pair(&old, &new, &["--disable", "OLM703"]);
    assert!(
        olm501(&d) && rules(&d).contains(&"OLM503".to_string()),
        "{d:#?}"
    );
    // Uninstallable in both versions: a pre-existing problem, OLM501.
    let d = lint_pair(&new, &new, &[]);
    assert!(
        olm501(&d) && !rules(&d).contains(&"OLM703".to_string()),
        "{d:#?}"
    );
}

#[test]
fn baseline_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a/catalog.yaml",
        &foo(&["{name: foo.v1.0.0}"], &["1.0.0"]),
    );
    write(
        dir.path(),
        "b/catalog.yaml",
        &foo(&["{name: foo.v1.0.0}"], &["1.0.0"]),
    );
    let out = olmlint(
        dir.path(),
        &["lint", "a", "--baseline", "nope", "--no-config"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--baseline nope: no such file or directory")
    );
    let out = olmlint(
        dir.path(),
        &["lint", "a", "b", "--baseline", "a", "--no-config"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--baseline compares one catalog"));
    // The baseline is never linted: its own problems are not reported.
    write(
        dir.path(),
        "broken/catalog.yaml",
        "---\nschema: olm.package\n",
    );
    let out = olmlint(
        dir.path(),
        &[
            "lint",
            "a",
            "--baseline",
            "broken",
            "--no-config",
            "-f",
            "json",
            "-q",
        ],
    );
    assert!(findings(&out).is_empty());
}

#[test]
fn changed_since_uses_the_catalog_at_the_ref_as_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let gitconfig = home.path().join("gitconfig");
    std::fs::write(&gitconfig, "").unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", &gitconfig)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    let old = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.1.0, replaces: foo.v1.0.0}",
            "{name: foo.v1.2.0, replaces: foo.v1.1.0}",
        ],
        &V3,
    );
    write(dir.path(), "catalog/foo/catalog.yaml", &old);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "v1"]);
    // foo.v1.1.0 removed and the chain rewired past it, without skipping it.
    let new = foo(
        &[
            "{name: foo.v1.0.0}",
            "{name: foo.v1.2.0, replaces: foo.v1.0.0}",
        ],
        &["1.0.0", "1.2.0"],
    );
    write(dir.path(), "catalog/foo/catalog.yaml", &new);
    let lint = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                "--changed-since",
                "HEAD",
                "--no-config",
                "-f",
                "json",
                "-q",
            ])
            .args(extra)
            .arg("catalog")
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", &gitconfig)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        findings(&out)
    };
    let d = lint(&[]);
    assert_eq!(rules(&d), ["OLM704"], "{d:#?}");
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("foo.v1.1.0 was removed from channel stable"));
    // An explicit --baseline wins over the ref's version.
    write(dir.path(), "same/foo/catalog.yaml", &new);
    assert!(lint(&["--baseline", "same"]).is_empty());
}
