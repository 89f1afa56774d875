//! #27: one root cause, one finding. A symptom (OLM501 "cannot be installed", opm's general
//! decode error, the tooling's copy of a range error, "skipped" for a file that does not
//! parse) is folded into the finding of its cause, which lists what it leads to; a cause
//! that is switched off does not hide its symptom; repeated findings of one cause are one.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn lint(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec![dir.to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    common::lint_json(None, &args).0
}

fn rules(d: &[Value]) -> Vec<&str> {
    d.iter().map(|x| x["rule"].as_str().unwrap()).collect()
}

fn related(d: &Value) -> Vec<&str> {
    d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect()
}

fn package(name: &str, entries: &str) -> String {
    format!("---\nschema: olm.package\nname: {name}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: {name}\nname: stable\nentries:\n{entries}")
}

fn bundle(pkg: &str, v: &str, extra: &str) -> String {
    format!("---\nschema: olm.bundle\npackage: {pkg}\nname: {pkg}.v{v}\nimage: quay.io/x/{pkg}:v{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: {pkg}, version: {v}}}\n{extra}")
}

fn catalog(text: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    tmp
}

const NEEDS_BAR_2: &str =
    "  - type: olm.package.required\n    value: {packageName: bar, versionRange: '>=2.0.0'}\n";

#[test]
fn a_missing_candidate_is_the_finding_and_names_the_uninstallable_bundle() {
    let text = package("foo", "  - name: foo.v1.0.0\n")
        + &bundle("foo", "1.0.0", NEEDS_BAR_2)
        + &package("bar", "  - name: bar.v1.0.0\n")
        + &bundle("bar", "1.0.0", "");
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    assert_eq!(rules(&d), vec!["OLM503"], "{d:#?}");
    let notes = related(&d[0]);
    assert!(
        notes
            .iter()
            .any(|m| m.starts_with("so foo.v1.0.0 cannot be installed")),
        "{notes:?}"
    );
    // Switched off, the cause hides nothing: the verdict is reported on its own.
    let d = lint(tmp.path(), &["--disable", "OLM503"]);
    assert_eq!(rules(&d), vec!["OLM501"], "{d:#?}");
}

#[test]
fn a_bundle_uninstallable_through_another_bundle_keeps_its_own_verdict() {
    // foo needs bar, bar needs baz >= 2 which does not exist: bar's OLM503 is the cause of
    // bar's failure; foo's OLM501 says that foo fails because of bar, in another package.
    let text = package("foo", "  - name: foo.v1.0.0\n")
        + &bundle(
            "foo",
            "1.0.0",
            "  - type: olm.package.required\n    value: {packageName: bar, versionRange: '>=1.0.0'}\n",
        )
        + &package("bar", "  - name: bar.v1.0.0\n")
        + &bundle(
            "bar",
            "1.0.0",
            "  - type: olm.package.required\n    value: {packageName: baz, versionRange: '>=2.0.0'}\n",
        )
        + &package("baz", "  - name: baz.v1.0.0\n")
        + &bundle("baz", "1.0.0", "");
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    let r = rules(&d);
    assert_eq!(r.iter().filter(|x| **x == "OLM503").count(), 1, "{r:?}");
    let verdicts: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM501").collect();
    assert_eq!(verdicts.len(), 1, "{d:#?}");
    assert_eq!(verdicts[0]["bundle"], "foo.v1.0.0");
}

#[test]
fn an_empty_range_is_one_finding() {
    let text = package("foo", "  - name: foo.v1.0.0\n")
        + &bundle(
            "foo",
            "1.0.0",
            "  - type: olm.package.required\n    value: {packageName: bar, versionRange: '>2.0.0 <1.0.0'}\n",
        )
        + &package("bar", "  - name: bar.v1.0.0\n")
        + &bundle("bar", "1.0.0", "");
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    assert_eq!(rules(&d), vec!["OLM302"], "{d:#?}");
    assert!(related(&d[0])
        .iter()
        .any(|m| m.starts_with("so foo.v1.0.0 cannot be installed")));
}

#[test]
fn a_numeric_version_is_reported_once_with_its_fix() {
    let text = package("foo", "  - name: foo.v1.0.0\n")
        + "---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0}\n";
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    assert_eq!(rules(&d), vec!["OLM305"], "{d:#?}");
    let notes = related(&d[0]);
    assert!(
        notes
            .iter()
            .any(|m| m.starts_with("OLM108: parse properties")),
        "{notes:?}"
    );
}

#[test]
fn a_channel_entry_without_bundle_is_one_finding_per_name() {
    let text = package("foo", "  - name: foo.v1.0.0\n  - name: foo.v2.0.0\n    replaces: foo.v1.0.0\n")
        + "---\nschema: olm.channel\npackage: foo\nname: beta\nentries:\n  - name: foo.v1.0.0\n  - name: foo.v2.0.0\n    replaces: foo.v1.0.0\n"
        + "---\nschema: olm.channel\npackage: foo\nname: alpha\nentries:\n  - name: foo.v1.0.0\n"
        + &bundle("foo", "2.0.0", "");
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    let missing: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM104").collect();
    assert_eq!(missing.len(), 1, "{d:#?}");
    let m = common::message(missing[0]);
    assert!(
        m.contains("channels stable, beta, alpha list foo.v1.0.0"),
        "{m}"
    );
    assert_eq!(
        related(missing[0]),
        vec![
            "channel \"beta\" lists foo.v1.0.0 too",
            "channel \"alpha\" lists foo.v1.0.0 too"
        ]
    );
}

#[test]
fn bundle_directory_findings_at_one_spot_are_one() {
    let tmp = tempfile::tempdir().unwrap();
    // The tooling's "Invalid semver format" is a note on the range error (OLM301).
    let b = common::bundle_dir(
        tmp.path(),
        &[(
            "dependencies.yaml",
            "dependencies:\n  - type: olm.package\n    value:\n      packageName: bar\n      version: \">=1.0 <<2\"\n".into(),
        )],
    );
    let d = lint(&b, &[]);
    assert_eq!(rules(&d), vec!["OLM301"], "{d:#?}");
    assert!(related(&d[0])
        .iter()
        .any(|m| m.starts_with("OLM601: Invalid semver format version")));
    // A metadata file that does not parse: one finding with the syntax error and what opm
    // does with the file.
    std::fs::write(
        b.join("metadata/dependencies.yaml"),
        "dependencies:\n  - type: olm.package\n    value: {packageName: bar, version: \">=1.0.0\"\n",
    )
    .unwrap();
    let d = lint(&b, &[]);
    assert_eq!(rules(&d), vec!["OLM604"], "{d:#?}");
    let m = common::message(&d[0]);
    assert!(
        m.contains("does not parse (YAML syntax error: while parsing a flow mapping")
            && m.contains("opm silently skips metadata files"),
        "{m}"
    );
    assert!(related(&d[0]).is_empty(), "{d:#?}");
}

#[test]
fn a_re_released_bundle_directory_is_one_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let op = tmp.path().join("op");
    for dir in ["1.0.0", "1.0.0-1", "1.0.0-2"] {
        common::write_files(
            &op.join(dir),
            &[
                ("metadata/annotations.yaml", "annotations:\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
                ("manifests/op.clusterserviceversion.yaml", "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\nspec:\n  version: 1.0.0\n"),
            ],
        );
    }
    let d = lint(&op, &[]);
    let dups: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM106").collect();
    assert_eq!(dups.len(), 1, "{d:#?}");
    assert_eq!(dups[0]["severity"], "warning");
    let m = common::message(dups[0]);
    assert!(
        m.starts_with("bundle op.v1.0.0 (version 1.0.0) is defined 3 times: directory 1.0.0"),
        "{m}"
    );
    assert_eq!(related(dups[0]).len(), 2);
}

#[test]
fn near_misses_are_the_versions_nearest_to_the_range_in_semver_order() {
    let mut text = package("foo", "  - name: foo.v1.0.0\n")
        + &bundle(
            "foo",
            "1.0.0",
            "  - type: olm.package.required\n    value: {packageName: bar, versionRange: '>=10.5.0 <10.6.0'}\n",
        );
    let entries: String = (1..=20)
        .map(|i| format!("  - name: bar.v{i}.0.0\n"))
        .collect();
    text.push_str(&package("bar", &entries));
    for i in 1..=20 {
        text.push_str(&bundle("bar", &format!("{i}.0.0"), ""));
    }
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    let m = d
        .iter()
        .find(|x| x["rule"] == "OLM503")
        .map(common::message)
        .unwrap_or_else(|| panic!("{d:#?}"));
    // 10.x is between 10.0.0 and 11.0.0: four on each side, highest first (not string order).
    assert!(
        m.ends_with(
            "bar exists only at …, 14.0.0, 13.0.0, 12.0.0, 11.0.0, 10.0.0, 9.0.0, 8.0.0, 7.0.0, …"
        ),
        "{m}"
    );
}

#[test]
fn an_invalid_skip_range_in_a_bundle_directory_csv_is_a_warning_with_an_unsafe_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let b = common::bundle_dir(tmp.path(), &[]);
    std::fs::write(
        b.join("manifests/example.clusterserviceversion.yaml"),
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: example.v1.0.0\n  annotations:\n    olm.skipRange: <v1.0.0\nspec:\n  version: 1.0.0\n",
    )
    .unwrap();
    let d = lint(&b, &[]);
    assert_eq!(rules(&d), vec!["OLM109"], "{d:#?}");
    assert_eq!(d[0]["severity"], "warning");
    assert_eq!(d[0]["line"], 6);
    assert!(common::message(&d[0]).contains("OLM cannot parse it and silently ignores it"));
    assert_eq!(d[0]["fix"]["safe"], false);
    assert_eq!(d[0]["fix"]["edits"][0]["replacement"], "\"<1.0.0\"");
    // A valid range is quiet.
    std::fs::write(
        b.join("manifests/example.clusterserviceversion.yaml"),
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: example.v1.0.0\n  annotations:\n    olm.skipRange: <1.0.0\nspec:\n  version: 1.0.0\n",
    )
    .unwrap();
    assert!(lint(&b, &[]).is_empty());
}

/// OLM501's related locations name each location once (#45): bundles in two channels are two
/// entries each of the unsatisfiable core, which listed every dependency and bundle twice.
#[test]
fn an_uninstallable_bundle_lists_each_related_location_once() {
    let fast = |name: &str, entries: &str| {
        format!("---\nschema: olm.channel\npackage: {name}\nname: fast\nentries:\n{entries}")
    };
    let needs = |pkg: &str, range: &str| {
        format!("  - type: olm.package.required\n    value: {{packageName: {pkg}, versionRange: '{range}'}}\n")
    };
    let shared = "  - name: shared.v1.0.0\n  - name: shared.v2.0.0\n    replaces: shared.v1.0.0\n";
    let text = package("shared", shared)
        + &fast("shared", shared)
        + &bundle("shared", "1.0.0", "")
        + &bundle("shared", "2.0.0", "")
        + &package("left", "  - name: left.v1.0.0\n")
        + &fast("left", "  - name: left.v1.0.0\n")
        + &bundle("left", "1.0.0", &needs("shared", "1.0.0"))
        + &package("right", "  - name: right.v1.0.0\n")
        + &fast("right", "  - name: right.v1.0.0\n")
        + &bundle("right", "1.0.0", &needs("shared", ">=2.0.0 <3.0.0"))
        + &package("top", "  - name: top.v1.0.0\n")
        + &bundle(
            "top",
            "1.0.0",
            &(needs("left", ">=1.0.0") + &needs("right", ">=1.0.0")),
        );
    let tmp = catalog(&text);
    let d = lint(tmp.path(), &[]);
    let f = d
        .iter()
        .find(|x| x["rule"] == "OLM501")
        .unwrap_or_else(|| panic!("{d:#?}"));
    let at: Vec<(u64, u64)> = f["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect();
    let mut once = at.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(at.len(), once.len(), "{:#?}", f["related"]);
    // Each of the core's six items is still there: two dependencies of top, one of left,
    // one of right, the two bundles of shared.
    assert_eq!(at.len(), 6, "{:#?}", f["related"]);
    let notes = related(f);
    assert!(
        notes.contains(&"left.v1.0.0 requires an operator with package: shared and with version in range: 1.0.0"),
        "{notes:#?}"
    );
    assert!(
        notes.contains(
            &"shared.v2.0.0 is in package shared; only one bundle per package may be installed"
        ),
        "{notes:#?}"
    );
}
