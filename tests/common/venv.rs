//! Python tools from PyPI (pre-commit, maturin) in virtual environments cached under
//! target/ (CARGO_TARGET_TMPDIR), and the olmlint wheel built from this checkout. A lock file
//! per environment keeps test processes that run at the same time from building it twice.

use super::precommit::text;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Pinned so that runs are reproducible; the cached environment is rebuilt when this changes.
pub const MATURIN: &str = "maturin==1.16.0";

/// The directory of an environment's executables.
pub fn bin_dir(venv: &Path) -> PathBuf {
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// An executable of the environment.
pub fn exe(venv: &Path, name: &str) -> PathBuf {
    let name = if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_string()
    };
    bin_dir(venv).join(name)
}

/// Holds an exclusive lock on `path` (created if missing) until dropped.
pub fn lock(path: &Path) -> File {
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    f.lock().unwrap();
    f
}

fn python3() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: python3 is not installed; the Python tools cannot be run");
    }
    ok
}

/// A fresh virtual environment at `dir` (anything there is removed first).
pub fn create(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "python3 -m venv: {}", text(&out));
}

/// The environment `name` under target/tmp holding `requirements` (pinned) from PyPI; created,
/// or re-created when the requirements changed. None when python3 is missing.
pub fn venv(name: &str, requirements: &[&str]) -> Option<PathBuf> {
    if !python3() {
        return None;
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(tmp).unwrap();
    let dir = tmp.join(name);
    let _lock = lock(&tmp.join(format!("{name}.lock")));
    let stamp = dir.join(".olmlint-requirements");
    let want = requirements.join("\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(want.as_str()) {
        let started = std::time::Instant::now();
        create(&dir);
        let out = Command::new(exe(&dir, "python"))
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(requirements)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pip install {requirements:?}: {}",
            text(&out)
        );
        std::fs::write(&stamp, &want).unwrap();
        eprintln!(
            "installed {requirements:?} in {} ({:.1}s)",
            dir.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Some(dir)
}

/// The olmlint wheel built from this checkout by maturin (pypi/pyproject.toml), once per test
/// process, into target/tmp/wheelhouse, with the test profile (`test-opt`, as `cargo test`
/// builds): maturin shares target/ with `cargo test`, so only the olmlint crate itself is
/// compiled again. The release workflow builds the published wheels with `--release`. None
/// when python3 is missing.
pub fn wheel() -> Option<&'static Path> {
    static WHEEL: OnceLock<Option<PathBuf>> = OnceLock::new();
    WHEEL
        .get_or_init(|| {
            let venv = venv("maturin-venv", &[MATURIN])?;
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
            let house = tmp.join("wheelhouse");
            let _lock = lock(&tmp.join("wheelhouse.lock"));
            let _ = std::fs::remove_dir_all(&house);
            let started = std::time::Instant::now();
            let out = Command::new(exe(&venv, "maturin"))
                .args(["build", "--profile", "test-opt", "--locked", "--out"])
                .arg(&house)
                .current_dir(root.join("pypi"))
                .output()
                .unwrap();
            assert!(out.status.success(), "maturin build: {}", text(&out));
            let wheels: Vec<PathBuf> = std::fs::read_dir(&house)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "whl"))
                .collect();
            assert_eq!(wheels.len(), 1, "one wheel: {wheels:?}");
            eprintln!(
                "built {} ({:.1}s)",
                wheels[0].display(),
                started.elapsed().as_secs_f64()
            );
            Some(wheels[0].clone())
        })
        .as_deref()
}
