//! Helpers shared by integration tests.
// The test binaries (tests/it, tests/wheel.rs) include this module and use only some of it.
#![allow(dead_code)]

pub mod precommit;
pub mod venv;

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// Writes `files` (path under `root`, contents), creating their directories.
pub fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
}

/// The `olmlint` binary run with `args`, in `cwd` when given.
pub fn olmlint<I, S>(cwd: Option<&Path>, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_olmlint"));
    cmd.args(args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.output().unwrap()
}

/// The diagnostics of a run with `-f json`.
pub fn diagnostics(out: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}

/// `olmlint lint --no-config -f json` with `args`, in `cwd` when given: the diagnostics and
/// stderr.
pub fn lint_json(cwd: Option<&Path>, args: &[&str]) -> (Vec<Value>, String) {
    let out = olmlint(
        cwd,
        ["lint", "--no-config", "-f", "json"].iter().chain(args),
    );
    (
        diagnostics(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The diagnostics of `olmlint lint -f json` on a directory holding one file `name`.
pub fn lint_file(name: &str, text: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    lint_path(dir.path())
}

/// The diagnostics of `olmlint lint --no-config -f json` on a path.
pub fn lint_path(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-q", "-f", "json"])
        .arg(path)
        .output()
        .unwrap();
    diagnostics(&out)
}

/// The message of diagnostic `d`.
pub fn message(d: &Value) -> &str {
    d["message"].as_str().unwrap()
}

/// `git args` in `dir` with a fixed author and committer and `input` on stdin; asserts that
/// it succeeds and returns its stdout, trimmed.
pub fn git(dir: &Path, args: &[&str], input: Option<&str>) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.unwrap_or("").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A FIFO at `path`.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Every (rule, bundle) verdict of a JSON report: each finding's, and those folded into it
/// (related items with a `rule`), e.g. the bundles OLM501 found uninstallable.
pub fn verdicts(diags: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in diags {
        let s = |v: &Value| v.as_str().unwrap_or("").to_string();
        out.push((s(&d["rule"]), s(&d["bundle"])));
        for r in d["related"].as_array().into_iter().flatten() {
            if r.get("rule").is_some() {
                out.push((s(&r["rule"]), s(&r["bundle"])));
            }
        }
    }
    out
}
