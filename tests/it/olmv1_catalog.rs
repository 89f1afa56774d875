//! `--target olmv1` on file-based catalogs: the targets (`--target`, `targets:` in
//! `.olmlint.yaml`, `--olmv1-feature-gates`) and the catalog rules of the OLM v1 family,
//! through the binary.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/olmv1")
        .join(name)
}

fn run(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "-q", "-f", "json"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap()
}

fn rules(out: &Output) -> Vec<String> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn targets_choose_the_rule_families() {
    let dir = fixture("dependency");
    // OLM v0 alone (the default): the missing dependency is assumed to be in another catalog.
    let v0 = rules(&run(&["--no-config"], &dir));
    assert_eq!(v0, ["OLM507"]);
    // OLM v1 alone: no dependency resolution at all, so OLM507 is moot; OLM v1 refuses it.
    let v1 = rules(&run(&["--no-config", "--target", "olmv1"], &dir));
    assert_eq!(v1, ["OLM711"]);
    // Both, comma-separated or repeated.
    for args in [
        &["--no-config", "--target", "v0,olmv1"][..],
        &[
            "--no-config",
            "--target",
            "v0",
            "--target",
            "olmv1=ocp-4.21",
        ],
    ] {
        let mut both = rules(&run(args, &dir));
        both.sort();
        assert_eq!(both, ["OLM507", "OLM711"], "{args:?}");
    }
}

#[test]
fn targets_from_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("dependency/catalog.yaml"),
        tmp.path().join("catalog.yaml"),
    )
    .unwrap();
    let cfg = tmp.path().join(".olmlint.yaml");
    std::fs::write(&cfg, "targets: [olmv1=ocp-4.20]\n").unwrap();
    assert_eq!(rules(&run(&[], tmp.path())), ["OLM711"]);
    std::fs::write(&cfg, "targets: v0,olmv1\n").unwrap();
    let mut both = rules(&run(&[], tmp.path()));
    both.sort();
    assert_eq!(both, ["OLM507", "OLM711"]);
    // --target wins over the configuration.
    assert_eq!(rules(&run(&["--target", "v0"], tmp.path())), ["OLM507"]);
    // Mistakes are OLM011 (exit 2): an unknown target or profile, gates without olmv1.
    for (text, says) in [
        ("targets: [olmv2]\n", "unknown target \\\"olmv2\\\""),
        ("targets: [olmv1=ocp-4.10]\n", "unknown OLM v1 profile"),
        (
            "olmv1-feature-gates: {SingleOwnNamespaceInstallSupport: true}\n",
            "does not name olmv1",
        ),
        (
            "targets: [olmv1]\nolmv1-feature-gates: {Nope: true}\n",
            "unknown configuration key `Nope`",
        ),
    ] {
        std::fs::write(&cfg, text).unwrap();
        let out = run(&[], tmp.path());
        assert_eq!(out.status.code(), Some(2), "{text}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("OLM011") && stdout.contains(says),
            "{text}: {stdout}"
        );
    }
}

#[test]
fn target_usage_errors() {
    let dir = fixture("dependency");
    for (args, says) in [
        (
            &["--target", "olmv1=nope"][..],
            "unknown OLM v1 profile \"nope\"",
        ),
        (&["--target", "v2"], "unknown target \"v2\""),
        (
            &[
                "--olmv1-feature-gates",
                "SingleOwnNamespaceInstallSupport=true",
            ],
            "--olmv1-feature-gates needs --target olmv1",
        ),
        (
            &["--target", "olmv1", "--olmv1-feature-gates", "Single=true"],
            "unrecognized feature gate: Single",
        ),
    ] {
        let out = run(&[&["--no-config"], args].concat(), &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn invalid_names() {
    let out = run(&["--no-config", "--target", "olmv1"], &fixture("names"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM755");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["bundle"], "Foo_Operator.v1.0.0");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("status.install.bundle.name"));
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("names/catalog.yaml"))
        .unwrap()
        .replace("Foo_Operator.v1.0.0", "foo.v1.0.0")
        .replace("name: stable", "name: stable_v1")
        .replace("defaultChannel: stable", "defaultChannel: stable_v1");
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let out = run(&["--no-config", "--target", "olmv1"], tmp.path());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM755");
    assert_eq!(d["severity"], "warning");
    assert!(d["message"].as_str().unwrap().contains("\"stable_v1\""));
}

/// A CSV's required APIService definitions become olm.gvk.required when opm renders the
/// bundle (`Bundle.RequiredAPIs`), like its required CRDs: a dependency for OLM v0's
/// resolver, and a bundle OLM v1 refuses.
#[test]
fn required_api_services_are_dependencies() {
    let dir = fixture("required-apiservice/bundle");
    let v0 = rules(&run(&["--no-config"], &dir));
    assert_eq!(v0, ["OLM507"]);
    let out = run(&["--no-config", "--target", "olmv1"], &dir);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM711");
    assert_eq!(d["pointer"], "/spec/apiservicedefinitions/required/0");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("via property \"olm.gvk.required\""));
}
