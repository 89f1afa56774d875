//! The loader leaves the nested values of `olm.csv.metadata` properties unbuilt (they are most
//! of a catalog's bytes and no rule reads them). These cases pin that every finding about
//! them is still made, at the same place: a mistyped top-level field, a repeated key deep
//! inside, a syntax error inside, and a `csv.metadata` outside an `olm.bundle`. The same for
//! a bundle's CRDs, whose schemas the loader leaves unbuilt too.

use crate::common::lint_file as lint;
use serde_json::Value;

const YAML: &str = r#"---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
  - name: foo.v1.1.0
    replaces: foo.v1.0.0
---
image: quay.io/foo/foo:v1.0.0
name: foo.v1.0.0
package: foo
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
  - type: olm.csv.metadata
    value:
      description:
        - not
        - a string
      displayName: Foo
      installModes:
        - {supported: true, type: OwnNamespace}
schema: olm.bundle
---
image: quay.io/foo/foo:v1.1.0
name: foo.v1.1.0
package: foo
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.1.0}
  - type: olm.csv.metadata
    value:
      crdDescriptions:
        owned:
          - kind: Foo
            name: foos.foo.io
            version: v1
            kind: Bar
      displayName: Foo
schema: olm.bundle
"#;

/// (rule, bundle, line, column, end line, end column, message) of each finding of `rule`.
fn of(diags: &[Value], rule: &str) -> Vec<(String, u64, u64, u64, u64, String)> {
    diags
        .iter()
        .filter(|d| d["rule"] == rule)
        .map(|d| {
            (
                d["bundle"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["end_line"].as_u64().unwrap(),
                d["end_column"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_mistyped_csv_metadata_field_is_reported_on_its_whole_value() {
    let d = lint("catalog.yaml", YAML);
    let bad = of(&d, "OLM108");
    assert_eq!(bad.len(), 1, "{bad:?}");
    let (bundle, line, col, end_line, end_col, message) = &bad[0];
    assert_eq!(bundle, "foo.v1.0.0");
    // The block list under `description:` runs to where the next key starts.
    assert_eq!((*line, *col, *end_line, *end_col), (23, 9, 25, 7));
    assert!(
        message.ends_with(
            "json: cannot unmarshal array into Go struct field CSVMetadata.description of type string"
        ),
        "{message}"
    );
}

#[test]
fn a_repeated_key_deep_in_csv_metadata_is_reported() {
    let d = lint("catalog.yaml", YAML);
    let dup = of(&d, "OLM004");
    assert_eq!(dup.len(), 1, "{dup:?}");
    let (_, line, col, _, _, message) = &dup[0];
    assert_eq!((*line, *col), (43, 13));
    assert_eq!(message, "duplicate key \"kind\": the last occurrence wins");
}

#[test]
fn json_catalogs_get_the_same_findings() {
    let json = r#"{"schema":"olm.package","name":"foo"}
{"image":"quay.io/foo/foo:v1.0.0","name":"foo.v1.0.0","package":"foo","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},{"type":"olm.csv.metadata","value":{"description":["not","a string"],"installModes":[{"supported":true,"type":"OwnNamespace"}]}}],"schema":"olm.bundle"}
{"image":"quay.io/foo/foo:v1.1.0","name":"foo.v1.1.0","package":"foo","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.1.0"}},{"type":"olm.csv.metadata","value":{"crdDescriptions":{"owned":[{"kind":"Foo","kind":"Bar"}]}}}],"schema":"olm.bundle"}
"#;
    let d = lint("catalog.json", json);
    let bad = of(&d, "OLM108");
    assert_eq!(bad.len(), 1, "{bad:?}");
    // `["not","a string"]` is columns 206 to 224 of line 2; the second "kind" is at 234.
    assert_eq!((bad[0].1, bad[0].2, bad[0].3, bad[0].4), (2, 206, 2, 224));
    let dup = of(&d, "OLM004");
    assert_eq!(dup.len(), 1, "{dup:?}");
    assert_eq!((dup[0].1, dup[0].2), (3, 234));
}

#[test]
fn a_syntax_error_inside_csv_metadata_is_reported_where_it_is() {
    let broken = YAML.replace("owned:\n", "owned: [\n");
    let d = lint("catalog.yaml", &broken);
    let syntax = of(&d, "OLM001");
    assert_eq!(syntax.len(), 1, "{syntax:?}");
    // saphyr's error where the unclosed flow list meets the block entry.
    assert_eq!((syntax[0].1, syntax[0].2), (40, 11), "{syntax:?}");
    assert!(syntax[0].5.starts_with("YAML syntax error"), "{syntax:?}");
}

#[test]
fn csv_metadata_outside_a_bundle_is_read_whole() {
    // No `schema`: OLM003 prints the start of the document's JSON, nested values included.
    let text = "properties:\n  - type: olm.csv.metadata\n    value:\n      annotations: {a: b}\n";
    let d = lint("catalog.yaml", text);
    let missing = of(&d, "OLM003");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0].5.contains(r#"{"annotations":{"a":"b"}}"#),
        "{}",
        missing[0].5
    );
}

/// A CustomResourceDefinition with a large schema (`properties` fields, each with a folded
/// description and nested values) and `preserveUnknownFields: true` after its versions.
fn heavy_crd(properties: usize) -> String {
    let mut fields = String::new();
    for i in 0..properties {
        fields.push_str(&format!(
            "                field{i}:\n                  description: >-\n                    \
             Field {i}, described\n                    over two lines.\n                  type: object\n                  \
             properties:\n                    name: {{type: string}}\n                    values:\n                      \
             type: array\n                      items: {{type: integer, minimum: {i}}}\n"
        ));
    }
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n\
         spec:\n  group: example.com\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  \
         versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        \
         type: object\n        properties:\n          spec:\n            type: object\n            properties:\n\
         {fields}  preserveUnknownFields: true\n"
    )
}

/// A bundle directory (`bundle/`) whose CSV owns `widgets.example.com` behind a conversion
/// webhook, with `crd` as `manifests/widgets.yaml`.
fn crd_bundle(crd: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let csv = serde_json::json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "foo.v1.0.0"},
        "spec": {
            "version": "1.0.0",
            "installModes": [{"type": "AllNamespaces", "supported": true}],
            "install": {"strategy": "deployment", "spec": {"deployments": [{"name": "foo-controller",
                "spec": {"selector": {"matchLabels": {"app": "foo"}},
                         "template": {"metadata": {"labels": {"app": "foo"}},
                                      "spec": {"containers": [{"name": "c", "image": "quay.io/foo/c:1"}]}}}}]}},
            "customresourcedefinitions": {"owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget"}]},
            "webhookdefinitions": [{"type": "ConversionWebhook", "generateName": "cwidgets.example.com",
                "deploymentName": "foo-controller", "admissionReviewVersions": ["v1"],
                "conversionCRDs": ["widgets.example.com"]}],
        },
    });
    crate::common::write_files(
        dir.path(),
        &[
            ("bundle/metadata/annotations.yaml", "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
            ("bundle/manifests/foo.clusterserviceversion.yaml", &serde_json::to_string_pretty(&csv).unwrap()),
            ("bundle/manifests/widgets.yaml", crd),
        ],
    );
    dir
}

/// Every finding of `olmlint lint --target olmv1` on the bundle with `crd`: (rule, file name,
/// line, column, end line, end column, message).
fn crd_findings(crd: &str) -> Vec<(String, String, u64, u64, u64, u64, String)> {
    let dir = crd_bundle(crd);
    let (diags, stderr) =
        crate::common::lint_json(None, &["--target", "olmv1", dir.path().to_str().unwrap()]);
    assert!(!diags.is_empty(), "{stderr}");
    let mut found: Vec<_> = diags
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            (
                d["rule"].as_str().unwrap().to_string(),
                file.rsplit('/').next().unwrap().to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
                d["end_line"].as_u64().unwrap_or(0),
                d["end_column"].as_u64().unwrap_or(0),
                crate::common::message(d).to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

/// The same CRD read whole: a manifest that names olmlint is never summarised, so nothing of
/// it is elided (a comment after the last line changes no other line).
fn read_whole(crd: &str) -> String {
    format!("{crd}# read whole, as it names olmlint\n")
}

#[test]
fn a_crd_heavy_bundle_gets_the_findings_of_its_crd_read_whole() {
    let crd = heavy_crd(400);
    assert!(crd.len() > 100_000);
    let found = crd_findings(&crd);
    assert_eq!(found, crd_findings(&read_whole(&crd)));
    // OLM v1 refuses the converted CRD that preserves unknown fields, on that line, after
    // the unbuilt schema.
    let line = crd
        .lines()
        .position(|l| l.contains("preserveUnknownFields"))
        .unwrap() as u64
        + 1;
    let refused: Vec<_> = found.iter().filter(|f| f.0 == "OLM751").collect();
    assert_eq!(refused.len(), 1, "{found:?}");
    assert_eq!(
        (refused[0].1.as_str(), refused[0].2),
        ("widgets.yaml", line),
        "{found:?}"
    );
    assert!(refused[0].6.contains("preserveUnknownFields"), "{found:?}");
}

#[test]
fn errors_inside_an_elided_crd_schema_are_reported_where_they_are() {
    let crd = heavy_crd(50);
    let at = crd.find("                field30:").unwrap();
    let line = crd[..at].lines().count() as u64 + 1;
    // A syntax error deep inside the schema (line `line`): OLM001 where it is.
    let broken = format!(
        "{}                field30: [unclosed\n{}",
        &crd[..at],
        &crd[at..]
    );
    let found = crd_findings(&broken);
    assert_eq!(found, crd_findings(&read_whole(&broken)));
    let syntax: Vec<_> = found.iter().filter(|f| f.0 == "OLM001").collect();
    assert_eq!(syntax.len(), 1, "{found:?}");
    assert_eq!(syntax[0].1, "widgets.yaml", "{found:?}");
    // saphyr's error where the unclosed flow list meets the next key, on the next line.
    assert_eq!((syntax[0].2, syntax[0].3), (line + 1, 24), "{found:?}");
    // A repeated key there: the manifest is read whole, with the same findings.
    let repeated = format!(
        "{}                field29:\n                  type: object\n{}",
        &crd[..at],
        &crd[at..]
    );
    let found = crd_findings(&repeated);
    assert_eq!(found, crd_findings(&read_whole(&repeated)));
    assert!(found.iter().any(|f| f.0 == "OLM751"), "{found:?}");
}
