//! `olmlint graph`: the channels' upgrade graphs with the lint findings overlaid (a first part
//! of issue #33: JSON, Mermaid and DOT; SVG, HTML and the pull-request diff are not built yet).

use serde_json::Value;
use std::process::Command;

fn graph(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .arg("graph")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn json_has_heads_edges_and_findings() {
    let (code, out) = graph(&["fixtures/catalogs/broken-graph", "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let stable = &v[0]["channels"][0];
    assert_eq!(v[0]["name"], "foo");
    assert_eq!(stable["name"], "stable");
    let node = |name: &str| {
        stable["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    // Two heads (OLM105 on the channel), the replaces edge, findings on the bundles.
    assert_eq!(node("foo.v1.0.0")["head"], true);
    assert_eq!(node("foo.v3.0.0")["head"], true);
    assert_eq!(node("foo.v2.0.0")["head"], false);
    assert_eq!(
        stable["edges"][0],
        serde_json::json!({"from": "foo.v3.0.0", "to": "foo.v2.0.0", "kind": "replaces"})
    );
    let v2 = node("foo.v2.0.0");
    let rules: Vec<&str> = v2["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"OLM104"), "{rules:?}");
    assert!(stable["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "OLM105"));
}

#[test]
fn mermaid_and_dot_draw_the_same_graph() {
    let (code, m) = graph(&["fixtures/catalogs/broken-graph"]);
    assert_eq!(code, 0);
    assert!(m.starts_with("flowchart RL\n"), "{m}");
    assert!(m.contains("subgraph c0[\"foo / stable [OLM105]\"]"), "{m}");
    assert!(m.contains("c0n1[\"foo.v2.0.0<br/>OLM104 OLM301\"]"), "{m}");
    assert!(m.contains("class c0n1 error"), "{m}");
    assert!(m.contains("class c0n0 head"), "{m}");
    assert!(m.contains("c0n2 --> c0n1"), "{m}");
    let (code, d) = graph(&["fixtures/catalogs/broken-graph", "-f", "dot"]);
    assert_eq!(code, 0);
    assert!(d.starts_with("digraph olm {"), "{d}");
    assert!(
        d.contains("\"c0:foo.v3.0.0\" -> \"c0:foo.v2.0.0\" [style=solid];"),
        "{d}"
    );
    assert!(d.contains("label=\"foo.v2.0.0\\nOLM104 OLM301\""), "{d}");
}

#[test]
fn skips_and_skip_ranges_are_edges_of_their_own() {
    let (code, out) = graph(&["fixtures/catalogs/valid", "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let kinds: std::collections::BTreeSet<String> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["channels"].as_array().unwrap().iter())
        .flat_map(|c| c["edges"].as_array().unwrap().iter())
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains("skipRange"), "{out}");
    let (code, _) = graph(&["fixtures/catalogs/valid", "--package", "nope"]);
    assert_eq!(code, 1);
}
