//! Helpers shared by integration tests.

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
