//! Values that repeat across bundles. `check::constraints` checks a constraint value once when
//! an equal one was already found clean, so these cases pin what "equal" must mean: a value with
//! findings is reported at every occurrence, and a value that differs from a clean one only in
//! a key's case or a repeated key is not taken for it. Also base64 as Go decodes `[]byte`:
//! line breaks are skipped, padding is required.

use crate::common;

use serde_json::Value;

const CATALOG: &str = r#"---
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
  - name: foo.v1.2.0
    replaces: foo.v1.1.0
---
schema: olm.bundle
package: foo
name: foo.v1.0.0
image: quay.io/foo/foo:v1.0.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
  - type: olm.constraint
    value:
      gvk: {group: a.io, kind: Widget, version: v1}
  - type: olm.bundle.object
    value:
      data: |
        aGVs
        bG8=
---
schema: olm.bundle
package: foo
name: foo.v1.1.0
image: quay.io/foo/foo:v1.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.1.0}
  - type: olm.constraint
    value:
      gvk: {group: a.io, kind: Widget, version: v1}
  - type: olm.constraint
    value:
      failureMessage: needs widgets
      gvk: {group: a.io, kind: Widget, version: v1}
  - type: olm.bundle.object
    value:
      data: aGVsbG8
---
schema: olm.bundle
package: foo
name: foo.v1.2.0
image: quay.io/foo/foo:v1.2.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.2.0}
  - type: olm.constraint
    value:
      GVK: {group: a.io, kind: Widget, version: v1}
      gvk: {group: a.io, kind: Widget, version: v1}
  - type: olm.constraint
    value:
      failureMessage: needs widgets
      gvk: {group: a.io, kind: Widget, version: v1}
"#;

fn findings() -> Vec<Value> {
    common::lint_file("catalog.yaml", CATALOG)
}

/// (bundle, line, message) of each finding of `rule`.
fn of(diags: &[Value], rule: &str) -> Vec<(String, u64, String)> {
    diags
        .iter()
        .filter(|d| d["rule"] == rule)
        .map(|d| {
            (
                d["bundle"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_repeated_value_with_findings_is_reported_at_every_occurrence() {
    let d = findings();
    let fm: Vec<(String, u64)> = of(&d, "OLM211")
        .into_iter()
        .map(|(b, l, _)| (b, l))
        .collect();
    assert_eq!(
        fm,
        [
            ("foo.v1.1.0".to_string(), 44),
            ("foo.v1.2.0".to_string(), 63)
        ]
    );
}

#[test]
fn a_value_differing_from_a_clean_one_only_in_key_case_or_repeats_is_checked() {
    let d = findings();
    let case: Vec<(String, u64)> = of(&d, "OLM212")
        .into_iter()
        .map(|(b, l, _)| (b, l))
        .collect();
    assert_eq!(
        case,
        [
            ("foo.v1.2.0".to_string(), 59),
            ("foo.v1.2.0".to_string(), 60)
        ]
    );
    // The clean value itself, in all three bundles, has no constraint finding.
    for rule in ["OLM201", "OLM202", "OLM203", "OLM205", "OLM210"] {
        assert!(of(&d, rule).is_empty(), "{rule}");
    }
}

#[test]
fn base64_reads_like_go_std_encoding() {
    let d = findings();
    let bad = of(&d, "OLM108");
    assert_eq!(bad.len(), 1, "{bad:?}");
    let (bundle, line, message) = &bad[0];
    // `aGVsbG8` lacks its padding: Go's CorruptInputError points at the incomplete quantum.
    assert_eq!((bundle.as_str(), *line), ("foo.v1.1.0", 48));
    assert!(
        message.ends_with("illegal base64 data at input byte 4"),
        "{message}"
    );
    // foo.v1.0.0's data is wrapped over two lines, which Go's decoder skips: no finding.
}
