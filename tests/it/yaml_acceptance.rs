//! #26: files libyaml (and so opm) accepts load without syntax findings, and a file that does
//! not parse gives one finding, not a cascade. The value-level comparison with libyaml is
//! tests/it/libyaml.rs.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn lint(path: &Path) -> Vec<Value> {
    common::lint_path(path)
}

#[test]
fn the_issue_reproduction_has_no_syntax_error() {
    for text in [
        "a:\n  b: 'x\n  y'\n",
        "a:\n  b: \"x\ny\"\n",
        "a:\n  - b: 'x\n    y'\n",
        "a:\n  b: \"x \\\n  y\"\n",
        "a:\n  b: 'x\n\ty'\n",
        "a:\r\n  b: 'x\r\n  y'\r\n",
        "a:\tb\n",
        "a: 'b'#c\n",
        "a:\n  b: [1,\n  2]\n",
    ] {
        let d = common::lint_file("q.yaml", text);
        assert!(d.iter().all(|x| x["rule"] != "OLM001"), "{text:?}: {d:#?}");
    }
    // What libyaml rejects stays an error, with a position.
    for (text, line) in [
        ("a: 'x\n--- y'\n", 1),
        ("a:\n  b: 1\n c: 2\n", 3),
        ("a: 'x\n", 1),
    ] {
        let d = common::lint_file("q.yaml", text);
        let e: Vec<&Value> = d.iter().filter(|x| x["rule"] == "OLM001").collect();
        assert_eq!(e.len(), 1, "{text:?}: {d:#?}");
        assert!(e[0]["line"].as_u64().unwrap() >= line, "{text:?}");
    }
}

/// A bundle directory `dir` of package `pkg` with a CSV (text given) and annotations.
fn bundle(dir: &Path, csv: &str) {
    common::write_files(
        dir,
        &[
            (
                "metadata/annotations.yaml",
                "annotations:\n  operators.operatorframework.io.bundle.package.v1: demo\n  operators.operatorframework.io.bundle.channels.v1: stable\n",
            ),
            ("manifests/demo.clusterserviceversion.yaml", csv),
        ],
    );
}

fn csv(version: &str, description: &str) -> String {
    format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: demo.v{version}\nspec:\n  version: {version}\n  description: {description}\n")
}

#[test]
fn a_broken_csv_gives_one_finding_and_no_cascade() {
    let tmp = tempfile::tempdir().unwrap();
    let op = tmp.path().join("demo");
    // Two bundles whose CSVs do not parse, one that is fine.
    bundle(&op.join("1.0.0"), &csv("1.0.0", "a: b: c"));
    bundle(&op.join("1.1.0"), &csv("1.1.0", "a: b: c"));
    bundle(&op.join("1.2.0"), &csv("1.2.0", "'fine\n  across lines'"));
    let d = lint(&op);
    let rules: Vec<&str> = d.iter().map(|x| x["rule"].as_str().unwrap()).collect();
    assert_eq!(
        rules.iter().filter(|r| **r == "OLM001").count(),
        2,
        "{d:#?}"
    );
    for r in ["OLM305", "OLM106", "OLM104"] {
        assert!(!rules.contains(&r), "{r}: {d:#?}");
    }
    // Every OLM001 is at the real position, in the CSV.
    for x in d.iter().filter(|x| x["rule"] == "OLM001") {
        assert!(x["file"]
            .as_str()
            .unwrap()
            .ends_with("clusterserviceversion.yaml"));
        assert_eq!(x["line"], 7, "{x:#?}");
    }
    // No finding points at 1:1 of a file that is fine.
    assert!(
        d.iter()
            .all(|x| !(x["line"] == 1 && x["file"].as_str().unwrap().ends_with("annotations.yaml"))),
        "{d:#?}"
    );
}

#[test]
fn only_manifests_and_metadata_are_bundle_content() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("demo/1.0.0");
    bundle(&b, &csv("1.0.0", "fine"));
    std::fs::write(
        b.join("Dockerfile"),
        "FROM scratch\nLABEL a=b\nCOPY manifests /manifests/\n",
    )
    .unwrap();
    std::fs::write(b.join("bundle.Dockerfile"), "FROM scratch\n").unwrap();
    std::fs::write(b.join("README.md"), "# Demo: an operator\n\n- a: b: c\n").unwrap();
    std::fs::write(b.join(".DS_Store"), [0u8, 0, 0, 1, 0x42, 0x75, 0xff, 0xfe]).unwrap();
    std::fs::create_dir_all(b.join("tests/scorecard")).unwrap();
    std::fs::write(
        b.join("tests/scorecard/config.yaml"),
        "kind: Configuration\na: b: c\n",
    )
    .unwrap();
    let d = lint(&b);
    assert!(
        d.iter().all(|x| {
            let f = x["file"].as_str().unwrap_or("");
            f.contains("/manifests/") || f.contains("/metadata/")
        }),
        "{d:#?}"
    );
    assert!(
        d.iter()
            .all(|x| x["rule"] != "OLM001" && x["rule"] != "OLM003"),
        "{d:#?}"
    );
}

#[test]
fn a_broken_file_holds_back_only_its_packages_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalog");
    common::write_files(
        &root,
        &[
            (
                "foo/package.yaml",
                "schema: olm.package\nname: foo\ndefaultChannel: stable\n",
            ),
            // foo's channel file does not parse.
            (
                "foo/channel.yaml",
                "schema: olm.channel\npackage: foo\nname: stable\nentries: [\n",
            ),
            // bar: a bundle in no channel, and a default channel that does not exist.
            (
                "bar/catalog.yaml",
                "schema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: fast\nentries:\n  - name: bar.v1.0.0\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.0.0\nimage: quay.io/x/bar:v1\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 1.0.0}\n---\nschema: olm.bundle\npackage: bar\nname: bar.v2.0.0\nimage: quay.io/x/bar:v2\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 2.0.0}\n",
            ),
        ],
    );
    let d = lint(&root);
    let of = |pkg: &str, rule: &str| {
        d.iter()
            .filter(|x| x["package"] == pkg && x["rule"] == rule)
            .count()
    };
    // bar's missing-object checks still run.
    assert_eq!(of("bar", "OLM102"), 1, "{d:#?}");
    assert_eq!(of("bar", "OLM104"), 1, "{d:#?}");
    // foo's are held back (its channel is in the broken file), and the OLM001 says so.
    assert_eq!(of("foo", "OLM102"), 0, "{d:#?}");
    assert_eq!(of("foo", "OLM103"), 0, "{d:#?}");
    let e = d.iter().find(|x| x["rule"] == "OLM001").unwrap();
    assert!(
        e["help"].as_str().unwrap().contains("for package(s) foo"),
        "{e:#?}"
    );
}

/// Each re-parse of a document adjusted for saphyr counts its aliases again: the attempts
/// that failed give their count back, so a document within the alias budget stays within it.
#[test]
fn re_reading_an_adjusted_document_does_not_spend_the_alias_budget_twice() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "limits:\n  max-alias-nodes: 10\n",
    )
    .unwrap();
    // 6 nodes behind the alias; the quoted continuation below its key needs one adjustment.
    std::fs::write(
        dir.path().join("c.yaml"),
        "schema: x.thing\na: &x [1, 2, 3, 4, 5]\nb: *x\ntop:\n  c: 'x\n  y'\n",
    )
    .unwrap();
    let out = common::olmlint(Some(dir.path()), ["lint", "-f", "json", "c.yaml"]);
    let d = common::diagnostics(&out);
    assert!(d.is_empty(), "{d:#?}");
}

/// A quoted scalar with 100 000 continuation lines below its key, in a document that takes
/// the saphyr path (an anchor): one adjustment indents every line in one pass (this was
/// quadratic: 1 s here, 100 s for a million lines).
#[test]
fn a_huge_adjusted_quoted_scalar_loads() {
    let mut text = String::from("schema: x.y\nx: &a 1\na:\n  b: 'x\n");
    for _ in 0..100_000 {
        text.push_str("y\n");
    }
    text.push_str("'\n");
    let d = common::lint_file("big.yaml", &text);
    assert!(d.is_empty(), "{d:#?}");
}
