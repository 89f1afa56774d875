//! #27: findings a maintainer trusts. Dependencies that live in other catalogs (open world,
//! OLM507) versus in-catalog problems (OLM503/OLM501), `--closed-world`, `--context`, likely
//! typos, one finding per root cause, and per-version catalogs.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn lint(args: &[&str]) -> (Vec<Value>, String) {
    common::lint_json(None, args)
}

fn rules(d: &[Value]) -> Vec<String> {
    d.iter()
        .map(|x| x["rule"].as_str().unwrap().to_string())
        .collect()
}

const HEAD: &str = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n";

fn foo_bundle(v: &str, dep: &str) -> String {
    format!("---\nschema: olm.bundle\npackage: foo\nname: foo.v{v}\nimage: quay.io/x/foo:v{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: {v}}}\n{dep}")
}

/// A catalog whose three foo bundles all declare `dep`, plus `extra` documents.
fn catalog(dir: &Path, dep: &str, extra: &str) {
    let mut text = HEAD.to_string();
    for v in ["1.0.0", "1.1.0", "1.2.0"] {
        text.push_str(&foo_bundle(v, dep));
    }
    text.push_str(extra);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("catalog.yaml"), text).unwrap();
}

/// `catalog/` (see `catalog`) in a new temporary directory, returned with it: keep the
/// `TempDir` alive while the catalog is used.
fn temp_catalog(dep: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    catalog(&cat, dep, extra);
    (tmp, cat)
}

/// An `olm.package.required` property: `package` in `range`.
fn requires(package: &str, range: &str) -> String {
    format!("  - type: olm.package.required\n    value: {{packageName: {package}, versionRange: '{range}'}}\n")
}

const CERT_MANAGER: &str = "  - type: olm.package.required\n    value: {packageName: cert-manager, versionRange: '>=1.12.0'}\n";

const BAR: &str = "---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - name: bar.v1.0.0\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.0.0\nimage: quay.io/x/bar:v1\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 1.0.0}\n";

#[test]
fn a_dependency_absent_everywhere_is_one_warning_per_package() {
    let (_tmp, cat) = temp_catalog(CERT_MANAGER, "");
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    assert_eq!(rules(&d), vec!["OLM507"], "{d:#?}");
    let f = &d[0];
    assert_eq!(f["severity"], "warning");
    let msg = common::message(f);
    assert!(
        msg.starts_with("3 bundles of package foo require an operator with package: cert-manager"),
        "{msg}"
    );
    assert!(msg.contains("foo.v1.0.0, foo.v1.1.0, foo.v1.2.0"), "{msg}");
    assert_eq!(f["related"].as_array().unwrap().len(), 2);
    let help = f["help"].as_str().unwrap();
    assert!(
        help.contains("`provided: {packages: [cert-manager]}`") && help.contains("--context"),
        "{help}"
    );
    // Closed world: strict verdicts, per bundle.
    let (d, _) = lint(&[cat.to_str().unwrap(), "--closed-world"]);
    let r = rules(&d);
    // One OLM503 for the three bundles' shared dependency, which is also why each of them
    // cannot be installed (OLM501 folded into it: one root cause, one finding).
    assert!(!r.contains(&"OLM501".to_string()), "{r:?}");
    assert_eq!(r.iter().filter(|x| *x == "OLM503").count(), 1, "{r:?}");
    let m = d.iter().find(|x| x["rule"] == "OLM503").unwrap();
    assert!(
        common::message(m).ends_with(
            "(the same for 3 bundles of package foo: foo.v1.0.0, foo.v1.1.0, foo.v1.2.0)"
        ),
        "{m:#?}"
    );
    assert_eq!(cannot_install(m), 3, "{m:#?}");
    assert_eq!(m["related"].as_array().unwrap().len(), 2 + 3);
    assert!(!r.contains(&"OLM507".to_string()));
    // The same from the configuration.
    std::fs::write(cat.join(".olmlint.yaml"), "closed-world: true\n").unwrap();
    let out = common::olmlint(None, ["lint", "-f", "json", "-q", cat.to_str().unwrap()]);
    assert!(rules(&common::diagnostics(&out)).contains(&"OLM503".to_string()));
}

#[test]
fn a_dependency_present_but_unsatisfiable_stays_an_error() {
    // bar exists, but only at 1.0.0.
    let (_tmp, cat) = temp_catalog(&requires("bar", ">=2.0.0"), BAR);
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    let r = rules(&d);
    assert_eq!(r.iter().filter(|x| *x == "OLM503").count(), 1, "{r:?}");
    assert!(!r.contains(&"OLM501".to_string()), "{r:?}");
    assert!(!r.contains(&"OLM507".to_string()), "{r:?}");
    let f = d.iter().find(|x| x["rule"] == "OLM503").unwrap();
    assert_eq!(f["severity"], "error");
    assert_eq!(cannot_install(f), 3, "{f:#?}");
    let m = common::message(f).to_string();
    assert!(m.contains("bar exists only at 1.0.0"), "{m}");
}

#[test]
fn a_likely_typo_is_not_assumed_to_be_elsewhere() {
    // "bars" is one edit from the catalog's "bar".
    let (_tmp, cat) = temp_catalog(&requires("bars", ">=1.0.0"), BAR);
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    let m: Vec<&str> = d
        .iter()
        .filter(|x| x["rule"] == "OLM503")
        .map(common::message)
        .collect();
    assert_eq!(m.len(), 1, "{d:#?}");
    assert!(m[0].contains("did you mean \"bar\""), "{m:?}");
    // An API whose group is a typo of a provided one.
    let bar_gvk = BAR.to_string()
        + "  - type: olm.gvk\n    value: {group: cert-manager.io, version: v1, kind: Certificate}\n";
    let (_tmp, cat) = temp_catalog(
        "  - type: olm.gvk.required\n    value: {group: cert-manger.io, version: v1, kind: Certificate}\n",
        &bar_gvk,
    );
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    assert!(rules(&d).contains(&"OLM503".to_string()), "{d:#?}");
    assert!(!rules(&d).contains(&"OLM507".to_string()), "{d:#?}");
}

#[test]
fn a_dependency_satisfied_by_context_is_quiet() {
    let (tmp, cat) = temp_catalog(&requires("bar", ">=1.0.0"), "");
    let ctx = tmp.path().join("other");
    std::fs::create_dir_all(&ctx).unwrap();
    std::fs::write(ctx.join("catalog.yaml"), BAR).unwrap();
    let (d, _) = lint(&[cat.to_str().unwrap(), "--context", ctx.to_str().unwrap()]);
    assert!(d.is_empty(), "{d:#?}");
    // In the closed world too.
    let (d, _) = lint(&[
        cat.to_str().unwrap(),
        "--context",
        ctx.to_str().unwrap(),
        "--closed-world",
    ]);
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn a_near_miss_in_a_context_catalog_is_named() {
    // bar exists only in the context catalog, at a version the range excludes: the finding
    // says which versions exist there, not that bar is in no catalog.
    let (tmp, cat) = temp_catalog(&requires("bar", ">=2.0.0"), "");
    let ctx = tmp.path().join("other");
    std::fs::create_dir_all(&ctx).unwrap();
    std::fs::write(ctx.join("catalog.yaml"), BAR).unwrap();
    let (d, _) = lint(&[cat.to_str().unwrap(), "--context", ctx.to_str().unwrap()]);
    let msgs: Vec<&str> = d
        .iter()
        .filter(|x| x["rule"] == "OLM503")
        .map(common::message)
        .collect();
    assert!(!msgs.is_empty(), "{d:#?}");
    for m in msgs {
        assert!(m.contains("bar exists only at 1.0.0"), "{m}");
        assert!(!m.contains("there is no package"), "{m}");
    }
}

#[test]
fn an_in_catalog_reason_stays_an_error_next_to_an_absent_dependency() {
    let (_tmp, cat) = temp_catalog(
        &format!("{CERT_MANAGER}{}", requires("bar", ">=2.0.0")),
        BAR,
    );
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    let r = rules(&d);
    assert!(r.contains(&"OLM507".to_string()), "{r:?}");
    let f = d.iter().find(|x| x["rule"] == "OLM503").unwrap();
    assert_eq!(f["severity"], "error");
    assert_eq!(cannot_install(f), 3, "{f:#?}");
}

/// How many bundles a finding says cannot be installed because of it.
fn cannot_install(d: &Value) -> usize {
    d["related"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["message"]
                .as_str()
                .unwrap()
                .contains("cannot be installed")
        })
        .count()
}

#[test]
fn a_missing_skips_target_is_one_finding_per_channel_and_name() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    let mut text = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.1.0\n    skips: [foo.v1.0.0]\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n    skips: [foo.v1.0.0]\n".to_string();
    for v in ["1.1.0", "1.2.0"] {
        text.push_str(&foo_bundle(v, ""));
    }
    std::fs::write(cat.join("catalog.yaml"), text).unwrap();
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    let f: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM110").collect();
    assert_eq!(f.len(), 1, "{d:#?}");
    assert!(common::message(f[0]).starts_with(
        "2 entries in channel \"stable\" (foo.v1.1.0, foo.v1.2.0) skip \"foo.v1.0.0\", which is not a bundle"
    ), "{}", common::message(f[0]));
    let help = f[0]["help"].as_str().unwrap();
    assert!(help.contains("keep the reference"), "{help}");
    assert!(!help.contains("drop the reference"), "{help}");
}

/// OLM110 says which field names the missing bundle (#45: the verb was missing, "foo.v0.2.0
/// of channel "beta" name "foo.v0.1.1""): `replaces` or `skips`, per entry when they differ.
#[test]
fn a_missing_target_finding_says_whether_it_is_replaced_or_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    // foo.v1.1.5 is off the replaces chain (head foo.v1.2.0, tail foo.v1.1.0), so its
    // `replaces` is judged; foo.v1.2.0 alone skips foo.v1.0.5.
    let mut text = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.1.0\n    skips: [foo.v1.0.0]\n  - name: foo.v1.1.5\n    replaces: foo.v1.0.0\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n    skips: [foo.v1.0.5, foo.v1.1.5]\n".to_string();
    for v in ["1.1.0", "1.1.5", "1.2.0"] {
        text.push_str(&foo_bundle(v, ""));
    }
    std::fs::write(cat.join("catalog.yaml"), text).unwrap();
    let (d, _) = lint(&[cat.to_str().unwrap()]);
    let mut f: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM110").collect();
    f.sort_by_key(|x| common::message(x).to_string());
    let messages: Vec<&str> = f.iter().map(|x| common::message(x)).collect();
    assert_eq!(
        messages,
        [
            "2 entries in channel \"stable\" (foo.v1.1.0 skips, foo.v1.1.5 replaces) name \"foo.v1.0.0\", which is not a bundle of package \"foo\"",
            "foo.v1.2.0 in channel \"stable\" skips \"foo.v1.0.5\", which is not a bundle of package \"foo\"",
        ],
        "{d:#?}"
    );
    let related = f[0]["related"].as_array().unwrap();
    assert_eq!(related.len(), 1, "{related:#?}");
    assert_eq!(related[0]["message"], "foo.v1.1.5 replaces it too");
}

#[test]
fn a_directory_of_version_catalogs_is_linted_per_version() {
    let tmp = tempfile::tempdir().unwrap();
    let catalogs = tmp.path().join("catalogs");
    for v in ["v4.16", "v4.17", "v4.9"] {
        catalog(&catalogs.join(v).join("foo"), "", "");
    }
    let (d, err) = lint(&[catalogs.to_str().unwrap()]);
    // The same package in three versions is no duplicate.
    assert!(d.is_empty(), "{d:#?}");
    assert!(
        err.contains("holds 3 OpenShift version catalogs; each is linted as a catalog of its own"),
        "{err}"
    );
}
