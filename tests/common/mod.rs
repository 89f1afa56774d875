//! Helpers shared by integration tests.
// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A registry+v1 bundle directory `bundle/` under `root` for package `example` (annotations
/// and a minimal CSV), with `metadata_files` (name, contents) in `metadata/`.
pub fn bundle_dir(root: &Path, metadata_files: &[(&str, String)]) -> PathBuf {
    let b = root.join("bundle");
    std::fs::create_dir_all(b.join("metadata")).unwrap();
    std::fs::create_dir_all(b.join("manifests")).unwrap();
    std::fs::write(b.join("metadata/annotations.yaml"), "annotations:\n  operators.operatorframework.io.bundle.package.v1: example\n  operators.operatorframework.io.bundle.channels.v1: stable\n").unwrap();
    std::fs::write(b.join("manifests/example.clusterserviceversion.yaml"), "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: example.v1.0.0\nspec:\n  version: 1.0.0\n").unwrap();
    for (name, text) in metadata_files {
        std::fs::write(b.join("metadata").join(name), text).unwrap();
    }
    b
}

/// The diagnostics of `olmlint lint -f json` on a directory holding one file `name`.
pub fn lint_file(name: &str, text: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-q", "-f", "json"])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}

/// The diagnostics of `olmlint lint --no-config -f json` on a path.
pub fn lint_path(path: &Path) -> Vec<serde_json::Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-q", "-f", "json"])
        .arg(path)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}
