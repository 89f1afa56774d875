//! OLM710 (max-openshift-version) and OLM713 (properties-annotation) case by case, through the
//! binary: every case of the rule, its severity, message and fix, in YAML, JSON and bundle
//! directories.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn lint(dir: &Path) -> Vec<Value> {
    lint_with(dir, &[])
}

fn lint_with(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-q", "-f", "json"])
        .args(extra)
        .arg(dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}

fn of<'a>(diags: &'a [Value], rule: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["rule"] == rule).collect()
}

/// An FBC package `foo` with one bundle per `maxOpenShiftVersion` value (written verbatim).
fn catalog(values: &[&str], json: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut docs =
        vec![r#"{"schema": "olm.package", "name": "foo", "defaultChannel": "stable"}"#.to_string()];
    let entries: Vec<String> = (0..values.len())
        .map(|i| match i {
            0 => r#"{"name": "foo.v1.0.0"}"#.to_string(),
            _ => format!(
                r#"{{"name": "foo.v1.{i}.0", "replaces": "foo.v1.{}.0"}}"#,
                i - 1
            ),
        })
        .collect();
    docs.push(format!(
        r#"{{"schema": "olm.channel", "package": "foo", "name": "stable", "entries": [{}]}}"#,
        entries.join(", ")
    ));
    for (i, v) in values.iter().enumerate() {
        docs.push(format!(
            r#"{{"schema": "olm.bundle", "package": "foo", "name": "foo.v1.{i}.0", "image": "quay.io/x/foo:{i}", "properties": [{{"type": "olm.package", "value": {{"packageName": "foo", "version": "1.{i}.0"}}}}, {{"type": "olm.maxOpenShiftVersion", "value": {v}}}]}}"#
        ));
    }
    let (name, text) = if json {
        ("catalog.json", docs.join("\n"))
    } else {
        // Flow-style YAML documents: the same text, so scalars keep their YAML 1.1 reading.
        (
            "catalog.yaml",
            docs.iter().map(|d| format!("---\n{d}\n")).collect(),
        )
    };
    std::fs::write(dir.path().join(name), text).unwrap();
    dir
}

#[test]
fn max_openshift_version_cases() {
    let values = [
        "4.20",
        "4.14",
        "4",
        r#""v4.16""#,
        r#""""#,
        r#""four""#,
        r#"{"version": "4.60"}"#,
        r#""4.16.0""#,
        r#""4.20.1""#,
        "true",
        r#""4.16""#,
    ];
    let diags = lint(catalog(&values, false).path());
    let found = of(&diags, "OLM710");
    let by_bundle = |i: usize| {
        let b = format!("foo.v1.{i}.0");
        found.iter().find(|d| d["bundle"] == b.as_str()).copied()
    };
    let expect = [
        (
            0,
            "error",
            "olm.maxOpenShiftVersion 4.20 is the number 4.2 (YAML 1.1",
        ),
        (
            1,
            "warning",
            "olm.maxOpenShiftVersion 4.14 is a number, not a string",
        ),
        (
            2,
            "error",
            "olm.maxOpenShiftVersion 4 is not a quoted <major>.<minor>: OLM v0 reads it as 4.0",
        ),
        (
            3,
            "error",
            r#"olm.maxOpenShiftVersion "v4.16" is not <major>.<minor>: OLM v0 reads it as 4.16, but OLM v1"#,
        ),
        (
            4,
            "error",
            r#"olm.maxOpenShiftVersion value cannot be "" (an empty string)"#,
        ),
        (5, "error", r#"failed to parse "four" as semver: "#),
        (
            6,
            "error",
            r#"value is a mapping, not a version string: OLM fails to parse {"version":"4.60"} as semver, and OLM marks the cluster not upgradeable while this operator is installed; write value: "4.60""#,
        ),
        (7, "error", r#""4.16.0" is not <major>.<minor>"#),
        (
            8,
            "error",
            "must specify only <major>.<minor> version, got invalid value 4.20.1",
        ),
        (9, "error", "value is a boolean, not a version string"),
    ];
    for (i, severity, text) in expect {
        let d = by_bundle(i).unwrap_or_else(|| panic!("no OLM710 for case {i}: {found:#?}"));
        assert_eq!(d["severity"], severity, "case {i}");
        let msg = d["message"].as_str().unwrap();
        assert!(msg.contains(text), "case {i}: {msg}");
        assert_eq!(d["pointer"], "/properties/1/value");
    }
    assert!(by_bundle(10).is_none(), "a quoted major.minor is fine");
    assert_eq!(found.len(), 10);
    // Fixes: 4.20 gets an unsafe quote (it changes what OLM reads), 4.14 a safe one.
    assert_eq!(by_bundle(0).unwrap()["fix"]["safe"], false);
    assert_eq!(
        by_bundle(0).unwrap()["fix"]["edits"][0]["replacement"],
        "\"4.20\""
    );
    assert_eq!(by_bundle(1).unwrap()["fix"]["safe"], true);
    assert!(by_bundle(2).unwrap()["fix"].is_null());
    // OLM005 no longer reports these scalars: one defect, one finding.
    assert!(
        of(&diags, "OLM005").is_empty(),
        "{:#?}",
        of(&diags, "OLM005")
    );
}

#[test]
fn max_openshift_version_json_numbers_and_duplicates() {
    let diags = lint(catalog(&["4.10"], true).path());
    let found = of(&diags, "OLM710");
    assert_eq!(found.len(), 1);
    let msg = found[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("4.10 is the number 4.1 (opm re-encodes every JSON number through float64)"),
        "{msg}"
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.yaml"),
        "---\nschema: olm.package\nname: foo\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n  - type: olm.maxOpenShiftVersion\n    value: \"4.20\"\n  - type: olm.maxOpenShiftVersion\n    value: \"4.21\"\n",
    )
    .unwrap();
    let diags = lint(dir.path());
    let found = of(&diags, "OLM710");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["line"], 21, "at the second property");
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .contains(r#"(values "4.20" and "4.21")"#));
    assert_eq!(found[0]["related"][0]["line"], 19);
}

#[test]
fn max_openshift_version_in_a_bundle_directory() {
    let dir = tempfile::tempdir().unwrap();
    common::bundle_dir(
        dir.path(),
        &[(
            "properties.yaml",
            "properties:\n  - type: olm.maxOpenShiftVersion\n    value: 4.20\n".to_string(),
        )],
    );
    let diags = lint(dir.path());
    let found = of(&diags, "OLM710");
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("properties.yaml"));
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .contains("is the number 4.2"));
}

/// A bundle directory whose CSV carries `annotation` as its `olm.properties` annotation.
fn annotated_bundle(annotation: &str, extra: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let b = common::bundle_dir(dir.path(), extra);
    std::fs::write(
        b.join("manifests/example.clusterserviceversion.yaml"),
        format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: example.v1.0.0\n  annotations:\n    olm.properties: '{annotation}'\nspec:\n  version: 1.0.0\n"),
    )
    .unwrap();
    dir
}

#[test]
fn properties_annotation_is_flagged_and_read_like_opm() {
    let dir = annotated_bundle(
        r#"[{"type": "olm.maxOpenShiftVersion", "value": 4.20}, {"type": "olm.package.required", "value": {"packageName": "bar", "versionRange": ">=1.0.0"}}]"#,
        &[],
    );
    let diags = lint(dir.path());
    let found = of(&diags, "OLM713");
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert_eq!(found[0]["severity"], "warning");
    assert_eq!(found[0]["line"], 6);
    assert_eq!(found[0]["pointer"], "/metadata/annotations/olm.properties");
    assert_eq!(
        found[0]["message"],
        "the CSV declares 1 property in its olm.properties annotation (olm.package.required); declare it in metadata/properties.yaml, including dependencies (olm.package.required) that no bundle validator checks there"
    );
    // olm.maxOpenShiftVersion alone is the use Red Hat's documentation prescribes: not flagged.
    let only_max = annotated_bundle(
        r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]"#,
        &[],
    );
    let d = lint(only_max.path());
    assert!(of(&d, "OLM713").is_empty(), "{d:#?}");
    // opm appends the entries to the bundle's properties, so the rules about them run:
    // the number as written in the string (4.20, read as 4.2) ...
    let max = of(&diags, "OLM710");
    assert_eq!(max.len(), 1, "{diags:#?}");
    let msg = max[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("4.20 is the number 4.2 (opm re-encodes every JSON number through float64)"),
        "{msg}"
    );
    // ... with no fix: the finding's span is the whole annotation string, not the number.
    assert!(max[0]["fix"].is_null());
    // ... and the dependency, which OLM v1 refuses.
    let v1 = lint_with(dir.path(), &["--target", "olmv1"]);
    let v1 = of(&v1, "OLM711");
    assert_eq!(v1.len(), 1);
    assert!(v1[0]["message"]
        .as_str()
        .unwrap()
        .contains("via property \"olm.package.required\""));
}

#[test]
fn unparsable_properties_annotation_is_an_error() {
    for (annotation, reason) in [
        (
            "[{\"type\": \"olm.maxOpenShiftVersion\", \"value\": \"4.16\"}",
            "",
        ),
        (
            r#"{"type": "olm.maxOpenShiftVersion", "value": "4.16"}"#,
            "json: cannot unmarshal object into Go value of type []property.Property",
        ),
        (
            r#"[{"type": 7, "value": "4.16"}]"#,
            "json: cannot unmarshal number into Go struct field Property.type of type string",
        ),
        (
            r#"["olm.maxOpenShiftVersion"]"#,
            "json: cannot unmarshal string into Go value of type property.Property",
        ),
    ] {
        let diags = lint(annotated_bundle(annotation, &[]).path());
        let found = of(&diags, "OLM713");
        assert_eq!(found.len(), 1, "{annotation}: {diags:#?}");
        assert_eq!(found[0]["severity"], "error");
        let msg = found[0]["message"].as_str().unwrap();
        assert!(
            msg.starts_with("the olm.properties annotation is not a JSON array of {type, value}: "),
            "{msg}"
        );
        assert!(msg.contains(reason), "{msg}");
        assert!(msg.contains("opm drops all of it"), "{msg}");
        // Dropped entries are not the bundle's properties.
        assert!(of(&diags, "OLM710").is_empty(), "{annotation}");
    }
}

#[test]
fn properties_annotation_duplicates_count_against_properties_yaml() {
    let dir = annotated_bundle(
        r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]"#,
        &[(
            "properties.yaml",
            "properties:\n  - type: olm.maxOpenShiftVersion\n    value: \"4.17\"\n".to_string(),
        )],
    );
    let diags = lint(dir.path());
    let max = of(&diags, "OLM710");
    assert_eq!(max.len(), 1, "{diags:#?}");
    assert!(max[0]["message"]
        .as_str()
        .unwrap()
        .contains(r#"(values "4.17" and "4.16")"#));
}
