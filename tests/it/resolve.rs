//! `olmlint resolve` through the binary: OLM's choice, its preference order across catalogs,
//! the explained failure, and the JSON contract.

use serde_json::Value;
use std::process::{Command, Output};

fn olmlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .arg("resolve")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> (Value, Option<i32>) {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    let out = olmlint(&a);
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        out.status.code(),
    )
}

const APP: [&str; 2] = ["--catalog", "fixtures/context/app"];
const A: [&str; 2] = ["--catalog", "fixtures/context/deps-a"];
const B: [&str; 2] = ["--catalog", "fixtures/context/deps-b"];

#[test]
fn installs_the_dependency_chain_across_catalogs() {
    let (v, code) = json(&[&["foo"][..], &APP, &A, &B].concat());
    assert_eq!(code, Some(0));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "bundle",
            "explanation",
            "installable",
            "installed",
            "package",
            "tree"
        ]
    );
    assert_eq!(v["bundle"], "foo.v1.0.0");
    assert_eq!(
        v["installed"],
        serde_json::json!(["bar.v1.2.0", "foo.v1.0.0", "widgets.v1.0.0"])
    );
    let tree = v["tree"].as_array().unwrap();
    assert_eq!(tree[0]["reason"], "the subscription");
    assert_eq!(tree[1]["bundle"], "bar.v1.2.0");
    assert_eq!(tree[1]["parent"], "foo.v1.0.0");
    assert_eq!(tree[2]["bundle"], "widgets.v1.0.0");
    assert_eq!(tree[2]["parent"], "bar.v1.2.0");
}

#[test]
fn catalog_priority_orders_candidates_and_failures_fall_back() {
    // deps-b preferred: its bar.v1.3.0 is tried first, needs an API nobody provides, and
    // OLM falls back to deps-a's bar.v1.2.0.
    let args = [
        &["foo"][..],
        &APP,
        &["--priority", "0"],
        &A,
        &["--priority", "0"],
        &B,
        &["--priority", "10"],
    ]
    .concat();
    let (v, _) = json(&args);
    assert_eq!(v["installable"], true);
    assert_eq!(v["tree"][1]["bundle"], "bar.v1.2.0");
    assert_eq!(
        v["tree"][1]["passed_over"],
        serde_json::json!(["bar.v1.3.0"])
    );
}

#[test]
fn explains_why_not() {
    let (v, code) = json(&[&["foo@foo.v1.0.0"][..], &APP, &A].concat());
    assert_eq!(code, Some(1));
    assert_eq!(v["installable"], false);
    assert_eq!(v["bundle"], Value::Null);
    assert_eq!(v["installed"], serde_json::json!([]));
    let why = v["explanation"].as_str().unwrap();
    assert!(why.contains("its only candidate is bar.v1.2.0"), "{why}");
    assert!(
        why.contains("kind: Widget, but no bundle in the catalogs satisfies it"),
        "{why}"
    );
    // Human output says the same, one reason per item, wrapped at 100 columns, then OLM's
    // own messages.
    let out = olmlint(&[&["foo"][..], &APP, &A].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("foo cannot be installed:\n  - "), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert!(
        text.contains("\nOn the cluster, OLM reports: constraints not satisfiable:\n  - "),
        "{text}"
    );
    assert!(text.contains("\n    candidate is bar.v1.2.0\n"), "{text}");
}

#[test]
fn installed_bundles_stay() {
    let (v, code) = json(
        &[
            &["foo"][..],
            &APP,
            &A,
            &B,
            &["--installed", "widgets.v1.0.0"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0));
    assert!(v["tree"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["bundle"] == "widgets.v1.0.0" && s["reason"] == "already installed"));
}

#[test]
fn usage_errors() {
    // A package or starting CSV that does not exist is OLM's unsatisfiable subscription (§3.4).
    for request in ["nope", "foo@foo.v9.9.9"] {
        let out = olmlint(&[&[request][..], &APP, &["-f", "json"]].concat());
        assert_eq!(out.status.code(), Some(1), "{request}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["installable"], false);
        let why = v["explanation"].as_str().unwrap();
        assert!(why.contains("no operators found"), "{why}");
    }
    assert_eq!(
        olmlint(&[&["foo"][..], &APP, &["--installed", "nope.v1"]].concat())
            .status
            .code(),
        Some(2)
    );
}

const UPGRADE: [&str; 2] = ["--catalog", "fixtures/resolve-upgrade"];

/// `--installed` of the subscribed package is the subscription's installed CSV: OLM offers only
/// its upgrades (§3.4 step 4) and keeps it when none works; other installed bundles must stay.
#[test]
fn installed_csv_of_the_package_is_upgraded_through_the_graph() {
    // One step at a time: foo.v1.1.0 replaces foo.v1.0.0; foo.v2.0.0 does not.
    let (v, code) = json(&[&["foo"][..], &UPGRADE, &["--installed", "foo.v1.0.0"]].concat());
    assert_eq!(code, Some(0));
    assert_eq!(v["bundle"], "foo.v1.1.0");
    assert_eq!(v["installed"], serde_json::json!(["foo.v1.1.0"]));
    // "Can I upgrade foo to v2 without breaking bar?" No: bar needs Widget v1.
    let (v, code) = json(
        &[
            &["foo@foo.v2.0.0"][..],
            &UPGRADE,
            &["--installed", "foo.v1.1.0", "--installed", "bar.v1.0.0"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(1));
    let why = v["explanation"].as_str().unwrap();
    assert!(
        why.contains("bar.v1.0.0 is installed without a subscription and must stay"),
        "{why}"
    );
    assert!(why.contains("bundle bar.v1.0.0 requires an operator providing an API with group: example.com, version: v1, kind: Widget"), "{why}");
    assert!(!why.contains("an operator an operator"), "{why}");
    // Without a target, OLM tries the upgrade, fails, and stays on the installed CSV.
    let (v, code) = json(
        &[
            &["foo"][..],
            &UPGRADE,
            &["--installed", "foo.v1.1.0", "--installed", "bar.v1.0.0"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0));
    assert_eq!(v["bundle"], "foo.v1.1.0");
    assert_eq!(
        v["installed"],
        serde_json::json!(["bar.v1.0.0", "foo.v1.1.0"])
    );
    assert_eq!(
        v["tree"][0]["passed_over"],
        serde_json::json!(["foo.v2.0.0"])
    );
    // A target that is not an upgrade of the installed CSV.
    let (v, code) = json(
        &[
            &["foo@foo.v2.0.0"][..],
            &UPGRADE,
            &["--installed", "foo.v1.0.0"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        v["explanation"],
        "foo.v2.0.0 is not an upgrade from the installed foo.v1.0.0: once a CSV is installed, OLM ignores startingCSV and offers only entries whose replaces or skips name foo.v1.0.0 or whose skipRange contains its version (OLM would offer foo.v1.1.0)"
    );
}

#[test]
fn also_subscribe_resolves_subscriptions_together() {
    // bar alone installs; bar and foo@foo.v2.0.0 together cannot (bar needs Widget v1).
    let (v, code) = json(&[&["bar"][..], &UPGRADE].concat());
    assert_eq!(code, Some(0));
    assert_eq!(
        v["installed"],
        serde_json::json!(["bar.v1.0.0", "foo.v1.1.0"])
    );
    let (v, code) = json(&[&["bar"][..], &UPGRADE, &["--also-subscribe", "foo"]].concat());
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        v["installed"],
        serde_json::json!(["bar.v1.0.0", "foo.v1.1.0"])
    );
    assert!(v["tree"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["reason"] == "the subscription to foo"));
}
