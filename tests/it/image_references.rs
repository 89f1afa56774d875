//! Image pull specs repeat across a package's bundles; `check bundle` remembers the valid
//! ones, so every occurrence of an invalid one must still be reported at its own place.

use crate::common;

fn bundle(name: &str, version: &str, related: &[&str]) -> String {
    let mut s = format!(
        "---\nschema: olm.bundle\nname: {name}\npackage: foo\nimage: quay.io/foo/bundle:v{version}\nproperties:\n  - type: olm.package\n    value:\n      packageName: foo\n      version: {version}\nrelatedImages:\n"
    );
    for r in related {
        s.push_str(&format!("  - image: {r}\n"));
    }
    s
}

#[test]
fn repeated_references_are_judged_at_every_occurrence() {
    let good = "quay.io/foo/operator@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let bad = "quay.io/foo/Operator:v1";
    let mut text = String::from(
        "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n",
    );
    text.push_str(&bundle("foo.v1.0.0", "1.0.0", &[good, bad]));
    text.push_str(&bundle("foo.v1.1.0", "1.1.0", &[good, bad, good]));
    let diags = common::lint_file("catalog.yaml", &text);
    let images: Vec<(String, u64)> = diags
        .iter()
        .filter(|d| d["rule"] == "OLM104")
        .map(|d| {
            (
                d["message"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(images.len(), 2, "{images:?}");
    assert!(images
        .iter()
        .all(|(m, _)| m.contains("relatedImages[1].image") && m.contains("must be lowercase")));
    assert_ne!(images[0].1, images[1].1, "each occurrence at its own line");
}
