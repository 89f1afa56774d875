//! The PyPI package: the wheel maturin builds from pypi/pyproject.toml, installed into a fresh
//! virtualenv without any index (as `pip install olmlint` installs it from PyPI), runs the
//! README's quickstart; and the `olmlint-pypi` pre-commit hook, which installs that wheel
//! through the repository's shim package, runs for real with no Rust toolchain on PATH.
//!
//! These tests build the wheel with the test profile, which rewrites target/test-opt/olmlint
//! (maturin shares target/ with cargo); they live in their own test binary so that no other
//! test runs that binary meanwhile (`cargo test` runs test binaries one after another).

mod common;

use common::precommit::*;
use common::venv;
use std::path::{Path, PathBuf};
use std::process::Command;

/// setuptools, the shim's build backend, served from the local wheelhouse with the olmlint
/// wheel so that pip needs no index.
const SETUPTOOLS: &str = "setuptools==84.2.1";

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), text(&out))
}

/// A fresh virtualenv with only the wheel installed from its file (no index).
fn installed(tmp: &Path, wheel: &Path) -> PathBuf {
    let env = tmp.join("venv");
    venv::create(&env);
    let started = std::time::Instant::now();
    let (code, log) = run(Command::new(venv::exe(&env, "python"))
        .args([
            "-m",
            "pip",
            "install",
            "--no-index",
            "--disable-pip-version-check",
        ])
        .arg(wheel));
    assert_eq!(code, 0, "pip install: {log}");
    eprintln!(
        "pip install {} into a fresh venv: {:.2}s",
        wheel.file_name().unwrap().to_string_lossy(),
        started.elapsed().as_secs_f64()
    );
    env
}

#[test]
fn wheel_installs_the_binary_and_runs_the_quickstart() {
    let Some(wheel) = venv::wheel() else { return };
    let version = env!("CARGO_PKG_VERSION");
    let name = wheel.file_name().unwrap().to_string_lossy().to_string();
    assert!(
        name.starts_with(&format!("olmlint-{version}-py3-none-")),
        "a binary wheel for any Python 3: {name}"
    );

    // Its metadata: name, version and license from Cargo.toml, the PyPI README.
    let (code, meta) = run(Command::new("python3").args([
        "-c",
        "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
         print('\\n'.join(z.namelist())); \
         print(z.read(sys.argv[2]).decode())",
        wheel.to_str().unwrap(),
        &format!("olmlint-{version}.dist-info/METADATA"),
    ]));
    assert_eq!(code, 0, "{meta}");
    assert!(
        meta.contains(&format!("olmlint-{version}.data/scripts/olmlint")),
        "{meta}"
    );
    for line in [
        "Name: olmlint".to_string(),
        format!("Version: {version}"),
        "License: Apache-2.0".into(),
        "Requires-Python: >=3.8".into(),
        "Project-URL: Source Code, https://github.com/olmlint/olmlint".into(),
    ] {
        assert!(
            meta.lines().any(|l| l == line),
            "METADATA lacks `{line}`: {meta}"
        );
    }
    assert!(meta.contains("pip install olmlint"), "the PyPI README");

    let tmp = tempfile::tempdir().unwrap();
    let env = installed(tmp.path(), wheel);
    let olmlint = venv::exe(&env, "olmlint");
    let root = root();
    let cmd = |args: &[&str]| {
        let mut c = Command::new(&olmlint);
        c.args(args).current_dir(&root).env("NO_COLOR", "1");
        run(&mut c)
    };

    let (code, out) = cmd(&["--version"]);
    assert_eq!(
        (code, out.trim()),
        (0, format!("olmlint {version}").as_str())
    );

    // The README's quickstart.
    let (code, out) = cmd(&["lint", "fixtures/catalogs/valid"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 error(s)"), "{out}");
    let (code, out) = cmd(&["lint", "fixtures/catalogs/broken-graph"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[OLM"), "{out}");
    let sarif = tmp.path().join("olmlint.sarif");
    let (code, out) = cmd(&[
        "lint",
        "-f",
        "sarif",
        "-o",
        sarif.to_str().unwrap(),
        "fixtures/catalogs/broken-graph",
    ]);
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(report["version"], "2.1.0");
    let (code, out) = cmd(&["rules"]);
    assert_eq!(code, 0);
    assert!(out.contains("OLM301"), "{out}");
    let (code, out) = cmd(&["explain", "OLM301"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# OLM301"), "{out}");
}

#[test]
fn pre_commit_pypi_hook_installs_the_wheel_without_a_compiler() {
    let Some(wheel) = venv::wheel() else { return };
    let Some(pc) = pre_commit() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (hooks, repo, home, house) = (
        tmp.path().join("hooks"),
        tmp.path().join("repo"),
        tmp.path().join("home"),
        tmp.path().join("wheelhouse"),
    );
    for d in [&hooks, &repo, &home, &house] {
        std::fs::create_dir_all(d).unwrap();
    }
    // The local "index": the olmlint wheel and the shim's build backend. setuptools comes from
    // PyPI once (like pre-commit itself) and is kept under target/.
    std::fs::copy(wheel, house.join(wheel.file_name().unwrap())).unwrap();
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("setuptools-wheel");
    {
        let _lock = venv::lock(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("setuptools.lock"));
        let have_it = std::fs::read_dir(&cache).is_ok_and(|mut d| d.next().is_some());
        if !have_it {
            let (code, log) = run(Command::new("python3")
                .args(["-m", "pip", "download", "-q", "--disable-pip-version-check"])
                .args(["--only-binary=:all:", "--no-deps", SETUPTOOLS, "-d"])
                .arg(&cache));
            assert_eq!(code, 0, "pip download {SETUPTOOLS}: {log}");
        }
    }
    for e in std::fs::read_dir(&cache).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, house.join(p.file_name().unwrap())).unwrap();
    }

    // The hook repository: this repository's manifest and its pip-installable root (the shim).
    let rev = hook_repo(
        &hooks,
        &home,
        &[".pre-commit-hooks.yaml", "pyproject.toml", "LICENSE"],
    );
    let config = hook_config(&hooks, &rev, "olmlint-pypi");
    consumer_repo(&repo, &home, &config);
    git(&repo, &home, &["add", "-A"]);

    // No cargo or rustc anywhere on PATH: only git's and python3's directories and the system's.
    let mut dirs: Vec<PathBuf> = Vec::new();
    for tool in ["git", "python3"] {
        let out = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        dirs.push(p.parent().unwrap().to_path_buf());
    }
    dirs.extend(["/usr/bin", "/bin"].map(PathBuf::from));
    dirs.retain(|d| !d.join("cargo").exists() && !d.join("rustc").exists());
    let path = std::env::join_paths(&dirs).unwrap();
    let run_hooks = || {
        let out = cmd(pc, &repo, &home)
            .args(["run", "--all-files"])
            .env("PATH", &path)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &house)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .output()
            .unwrap();
        let log = text(&out);
        eprintln!("{log}");
        (out.status.success(), log)
    };

    let started = std::time::Instant::now();
    let (ok, log) = run_hooks();
    eprintln!(
        "first run (hook environment installed): {:.1}s",
        started.elapsed().as_secs_f64()
    );
    assert!(ok, "{log}");
    assert!(log.contains("olmlint") && log.contains("Passed"), "{log}");

    // The hook's environment holds the wheel's binary, of this version.
    let envs: Vec<PathBuf> = walk(&home.join("pre-commit-home"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "olmlint") && p.is_file())
        .collect();
    assert!(!envs.is_empty(), "no olmlint in the hook environment");
    let out = Command::new(&envs[0]).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("olmlint {}", env!("CARGO_PKG_VERSION"))
    );

    // A broken release is refused at its position; fixed, it passes.
    std::fs::write(repo.join(CATALOG), release("v2.1.0")).unwrap();
    git(&repo, &home, &["add", "-A"]);
    let (ok, log) = run_hooks();
    assert!(!ok, "{log}");
    assert!(log.contains("OLM104"), "{log}");
    assert!(log.contains(&format!("{CATALOG}:")), "{log}");
    assert!(
        !log.contains("OLM003"),
        "non-catalog YAML was passed: {log}"
    );
    std::fs::write(repo.join(CATALOG), release("2.1.0")).unwrap();
    git(&repo, &home, &["add", "-A"]);
    let (ok, log) = run_hooks();
    assert!(ok, "{log}");
}

/// Every file under `dir` (no symlinks followed).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out
}
