//! pre-commit run for real: pre-commit from PyPI in a virtualenv cached under target/, throwaway
//! git repositories isolated from the user's git and pre-commit configuration.

use super::venv;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Pinned so that runs are reproducible; the cached venv is upgraded when this changes.
pub const PRE_COMMIT: &str = "4.7.0";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `pre-commit` from a virtualenv in target/tmp, created once (and reused across runs).
pub fn pre_commit() -> Option<&'static Path> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        if !have("git") {
            eprintln!("SKIPPED: git is not installed; the pre-commit hooks cannot be run");
            return None;
        }
        let venv = venv::venv("precommit-venv", &[&format!("pre-commit=={PRE_COMMIT}")])?;
        let exe = venv::exe(&venv, "pre-commit");
        let out = Command::new(&exe).arg("--version").output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("pre-commit {PRE_COMMIT}")
        );
        Some(exe)
    })
    .as_deref()
}

/// A command isolated from the user's git and pre-commit configuration.
pub fn cmd(program: impl AsRef<std::ffi::OsStr>, dir: &Path, home: &Path) -> Command {
    let mut c = Command::new(program);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("GIT_") || k.starts_with("PRE_COMMIT") || k == "SKIP" {
            c.env_remove(&*k);
        }
    }
    let gitconfig = home.join("gitconfig");
    if !gitconfig.exists() {
        std::fs::write(&gitconfig, "").unwrap();
    }
    c.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", &gitconfig)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("PRE_COMMIT_HOME", home.join("pre-commit-home"))
        .env("PRE_COMMIT_COLOR", "never")
        .env("NO_COLOR", "1");
    c
}

pub fn git(dir: &Path, home: &Path, args: &[&str]) -> Output {
    let out = cmd("git", dir, home).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    out
}

pub fn commit(dir: &Path, home: &Path, message: &str) -> Output {
    git(dir, home, &["add", "-A"]);
    cmd("git", dir, home)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            message,
        ])
        .output()
        .unwrap()
}

pub fn commit_count(dir: &Path, home: &Path) -> usize {
    let out = cmd("git", dir, home)
        .args(["rev-list", "--count", "HEAD"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(0)
}

pub const CATALOG: &str = "catalog/foo/catalog.yaml";

/// The valid fixture plus a new release `foo.v2.1.0` whose olm.package version is `version`.
pub fn release(version: &str) -> String {
    let base = std::fs::read_to_string(root().join("fixtures/catalogs/valid/catalog.yaml"))
        .unwrap()
        .replace(
            "    skipRange: \">=0.9.0 <2.0.0\"\n",
            "    skipRange: \">=0.9.0 <2.0.0\"\n  - name: foo.v2.1.0\n    replaces: foo.v2.0.0\n",
        );
    assert!(base.contains("foo.v2.1.0"), "fixture layout changed");
    format!(
        "{}\n---\nschema: olm.bundle\npackage: foo\nname: foo.v2.1.0\n\
         image: quay.io/example/foo-bundle:v2.1.0\nproperties:\n  - type: olm.package\n    \
         value: {{packageName: foo, version: {version}}}\n  - type: olm.gvk\n    \
         value: {{group: example.com, kind: Gadget, version: v1}}\n",
        base.trim_end()
    )
}

/// A git repository holding catalog/foo/catalog.yaml (the valid fixture) and `config` as
/// .pre-commit-config.yaml, plus a non-catalog workflow file.
pub fn consumer_repo(dir: &Path, home: &Path, config: &str) {
    git(dir, home, &["init", "-q"]);
    let cat = dir.join(CATALOG);
    std::fs::create_dir_all(cat.parent().unwrap()).unwrap();
    std::fs::copy(root().join("fixtures/catalogs/valid/catalog.yaml"), &cat).unwrap();
    std::fs::create_dir_all(dir.join(".github/workflows")).unwrap();
    std::fs::write(
        dir.join(".github/workflows/ci.yaml"),
        "on: push\njobs: {}\n",
    )
    .unwrap();
    std::fs::write(dir.join(".pre-commit-config.yaml"), config).unwrap();
}

/// A hook repository at `dir` holding these files of this repository, committed; its rev.
pub fn hook_repo(dir: &Path, home: &Path, files: &[&str]) -> String {
    git(dir, home, &["init", "-q"]);
    for f in files {
        std::fs::copy(root().join(f), dir.join(f)).unwrap();
    }
    let out = commit(dir, home, "hooks");
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&git(dir, home, &["rev-parse", "HEAD"]).stdout)
        .trim()
        .to_string()
}

/// A `.pre-commit-config.yaml` using hook `id` of the hook repository at `dir`.
pub fn hook_config(dir: &Path, rev: &str, id: &str) -> String {
    format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: {id}\n",
        serde_json::to_string(dir.to_str().unwrap()).unwrap()
    )
}
