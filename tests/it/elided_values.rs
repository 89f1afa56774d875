//! The loader leaves the nested values of `olm.csv.metadata` properties unbuilt (they are most
//! of a catalog's bytes and no rule reads them). These cases pin that every finding about
//! them is still made, at the same place: a mistyped top-level field, a repeated key deep
//! inside, a syntax error inside, and a `csv.metadata` outside an `olm.bundle`.

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
