//! Parity with upstream (#25): verdicts where OLM's and opm's code decide differently from a
//! naive reading. The resolver cases (`olmlint resolve`, per channel and installed set) live
//! in fixtures/resolve (a*, d*); these tests check what `olmlint lint` reports for them.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn lint_dir(path: &Path) -> Vec<Value> {
    common::lint_path(path)
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/resolve")
        .join(name)
}

/// The findings that carry verdict (rule, bundle): their own, or folded into them.
fn of<'a>(diags: &'a [Value], rule: &str, bundle: &str) -> Vec<&'a Value> {
    diags
        .iter()
        .filter(|d| {
            common::verdicts(std::slice::from_ref(*d))
                .iter()
                .any(|(r, b)| r == rule && b == bundle)
        })
        .collect()
}

fn rules(diags: &[Value]) -> Vec<String> {
    let mut r: Vec<String> = diags
        .iter()
        .map(|d| format!("{} {}", d["rule"].as_str().unwrap(), d["bundle"]))
        .collect();
    r.sort();
    r
}

// ---- A. a bundle skipped in its own channel cannot satisfy its own dependency ----

#[test]
fn skipped_bundle_cannot_satisfy_its_own_dependency() {
    let d = lint_dir(&fixture("a1-own-skipped"));
    assert_eq!(of(&d, "OLM501", "orca.v0.3.0").len(), 1, "{:#?}", rules(&d));
    let miss = of(&d, "OLM503", "orca.v0.3.0");
    assert_eq!(miss.len(), 1, "{:#?}", rules(&d));
    let msg = common::message(miss[0]);
    assert!(
        msg.contains("orca.v0.3.0 (this bundle itself) matches but is skipped in channel main (by orca.v0.4.0)"),
        "{msg}"
    );
    // orca.v0.4.0 is fine.
    assert!(of(&d, "OLM501", "orca.v0.4.0").is_empty());
}

#[test]
fn skipped_bundle_providing_the_gvk_itself_is_uninstallable() {
    let d = lint_dir(&fixture("a2-gvk-self-skipped"));
    let u = of(&d, "OLM501", "heron.v2.0.0");
    assert_eq!(u.len(), 1, "{:#?}", rules(&d));
    // The conflicts OLM names: heron.v2.1.0 by package, finch by GVK.
    let related = serde_json::to_string(&u[0]["related"]).unwrap();
    assert!(related.contains("heron.v2.1.0"), "{related}");
    assert!(related.contains("finch.v1.0.0"), "{related}");
}

#[test]
fn skipped_bundle_unskipped_in_another_channel_is_installable() {
    for case in ["a3-unskipped-elsewhere", "a7-skipped-in-other-channel-only"] {
        let d = lint_dir(&fixture(case));
        assert!(
            of(&d, "OLM501", "orca.v0.3.0").is_empty(),
            "{case}: {:#?}",
            rules(&d)
        );
        assert!(
            of(&d, "OLM503", "orca.v0.3.0").is_empty(),
            "{case}: {:#?}",
            rules(&d)
        );
    }
}

#[test]
fn installable_cases_stay_installable() {
    for (case, bundle) in [
        ("a4-installed-set", "wren.v1.0.0"),
        ("a5-head-self", "orca.v0.4.0"),
        ("a6-on-chain-not-head", "orca.v0.3.0"),
        ("d1-walk-through-skipped", "bar.v1.0.0"),
    ] {
        let d = lint_dir(&fixture(case));
        assert!(
            of(&d, "OLM501", bundle).is_empty(),
            "{case}: {:#?}",
            rules(&d)
        );
        assert!(
            of(&d, "OLM503", bundle).is_empty(),
            "{case}: {:#?}",
            rules(&d)
        );
    }
}

// ---- B. a bundle version that is not strict semver fails `opm validate` ----

fn bundle_with_version(version_line: &str) -> String {
    format!(
        "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/example/foo-bundle:v1.0.0\nproperties:\n  - type: olm.package\n    value:\n      packageName: foo\n{version_line}"
    )
}

#[test]
fn non_strict_versions_are_structural_errors_with_opms_text() {
    let cases = [
        ("      version: v2.3.0\n", "error parsing bundle \"foo.v1.0.0\" version \"v2.3.0\": Invalid character(s) found in major number \"v2\""),
        ("      version: \"2.3\"\n", "error parsing bundle \"foo.v1.0.0\" version \"2.3\": No Major.Minor.Patch elements found"),
        ("      version: 02.3.0\n", "error parsing bundle \"foo.v1.0.0\" version \"02.3.0\": Major number must not contain leading zeroes \"02\""),
        ("      version: 1.0.0.1\n", "error parsing bundle \"foo.v1.0.0\" version \"1.0.0.1\": Invalid character(s) found in patch number \"0.1\""),
        ("", "error parsing bundle \"foo.v1.0.0\" version \"\": Version string empty"),
        ("      version: null\n", "error parsing bundle \"foo.v1.0.0\" version \"\": Version string empty"),
        ("      version: \"\"\n", "error parsing bundle \"foo.v1.0.0\" version \"\": Version string empty"),
    ];
    for (line, want) in cases {
        let d = common::lint_file("catalog.yaml", &bundle_with_version(line));
        let found: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM104").collect();
        assert_eq!(found.len(), 1, "{line:?}: {d:#?}");
        assert_eq!(found[0]["message"], want, "{line:?}");
        assert_eq!(found[0]["severity"], "error");
        // One root cause, one finding: no OLM305 on the same span.
        assert!(d.iter().all(|x| x["rule"] != "OLM305"), "{line:?}: {d:#?}");
    }
    // A missing version points at the olm.package value.
    let d = common::lint_file("catalog.yaml", &bundle_with_version(""));
    let f = d.iter().find(|x| x["rule"] == "OLM104").unwrap();
    assert_eq!(f["line"], 18);
}

#[test]
fn strict_versions_pass() {
    for v in ["1.0.0", "2.3.0+build.5", "2.3.0-rc.1", "0.0.0"] {
        let d = common::lint_file(
            "catalog.yaml",
            &bundle_with_version(&format!("      version: \"{v}\"\n")),
        );
        assert!(
            d.iter()
                .all(|x| x["rule"] != "OLM104" && x["rule"] != "OLM305"),
            "{v}: {d:#?}"
        );
    }
}

// ---- C. positions inside block scalars ----

fn cel_catalog(rule_block: &str) -> String {
    format!(
        "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/example/foo-bundle:v1.0.0\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: 1.0.0}}\n  - type: olm.constraint\n    value:\n      failureMessage: needs x\n      cel:\n{rule_block}"
    )
}

/// The first CEL finding's (line, column, end column).
fn cel_position(text: &str) -> (u64, u64, u64) {
    let d = common::lint_file("catalog.yaml", text);
    let f = d
        .iter()
        .find(|x| x["rule"].as_str().unwrap().starts_with("OLM4"))
        .unwrap_or_else(|| panic!("{d:#?}"));
    (
        f["line"].as_u64().unwrap(),
        f["column"].as_u64().unwrap(),
        f["end_column"].as_u64().unwrap(),
    )
}

#[test]
fn cel_errors_inside_block_scalars_point_at_their_line() {
    // `rule:` is on line 22; `nosuchvar` is the undeclared name.
    let header_line = 22;
    let cases = [
        // literal, error on the first, middle and last line
        ("        rule: |\n          nosuchvar == 1\n", 1, 11),
        ("        rule: |\n          properties.exists(p,\n            nosuchvar == p.type)\n", 2, 13),
        ("        rule: |-\n          properties.exists(p,\n            p.type == \"x\") &&\n          nosuchvar\n", 3, 11),
        // folded, with chomping indicators and an indentation indicator
        ("        rule: >\n          properties.exists(p,\n            p.type == \"x\") && nosuchvar\n", 2, 31),
        ("        rule: >-\n          true &&\n          nosuchvar\n", 2, 11),
        ("        rule: |+ # keep\n          true &&\n          nosuchvar\n\n", 2, 11),
        ("        rule: |4\n            true &&\n            nosuchvar\n", 2, 13),
        // blank line before the content
        ("        rule: |\n\n          true &&\n          nosuchvar\n", 3, 11),
    ];
    for (block, line, col) in cases {
        let (l, c, e) = cel_position(&cel_catalog(block));
        assert_eq!((l, c), (header_line + line, col), "{block}");
        assert_eq!(e, col + "nosuchvar".len() as u64, "{block}");
        // The same with CRLF line breaks.
        let crlf = cel_catalog(block).replace('\n', "\r\n");
        let (l, c, _) = cel_position(&crlf);
        assert_eq!((l, c), (header_line + line, col), "CRLF {block}");
    }
}
