//! The pre-commit integration, run for real: pre-commit from PyPI in a virtualenv cached under
//! target/, a throwaway git repository with a catalog, hooks that run the olmlint under test.
//! The `language: rust` hook would compile the whole crate inside the test, so its fields are
//! checked statically; the `language: system` hooks run. The `language: python` hook
//! (`olmlint-pypi`) needs the wheel, so it runs in tests/wheel.rs, which builds it.

use crate::common::precommit::*;
use serde_json::Value as Json;
use std::path::Path;

/// A `repo: local` hook running the olmlint under test with `--only-files` on `catalog/`.
fn local_hook_config() -> String {
    // pre-commit splits `entry` like a shell: quote the path; a JSON string is valid YAML.
    let entry = format!("'{}' lint --only-files", env!("CARGO_BIN_EXE_olmlint"));
    format!(
        "repos:\n  - repo: local\n    hooks:\n      - id: olmlint\n        name: olmlint\n        \
         entry: {}\n        language: system\n        files: ^catalog/\n        \
         types_or: [yaml, json]\n        require_serial: true\n",
        serde_json::to_string(&entry).unwrap()
    )
}

#[test]
fn local_system_hook_blocks_a_broken_commit() {
    let Some(pc) = pre_commit() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (repo, home) = (tmp.path().join("repo"), tmp.path().join("home"));
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    consumer_repo(&repo, &home, &local_hook_config());
    let out = cmd(pc, &repo, &home).arg("install").output().unwrap();
    assert!(out.status.success(), "pre-commit install: {}", text(&out));

    // The initial, valid catalog goes in.
    let out = commit(&repo, &home, "catalog");
    eprintln!("{}", text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("olmlint"), "the hook ran");
    assert_eq!(commit_count(&repo, &home), 1);

    // A release with a `v`-prefixed version is refused (opm: OLM104) at its position.
    std::fs::write(repo.join(CATALOG), release("v2.1.0")).unwrap();
    let out = commit(&repo, &home, "release 2.1.0");
    let log = text(&out);
    eprintln!("{log}");
    assert!(!out.status.success(), "the hook must block the commit");
    assert!(log.contains("Failed"), "{log}");
    assert!(log.contains("OLM104"), "{log}");
    assert!(log.contains(&format!("{CATALOG}:")), "{log}");
    assert_eq!(commit_count(&repo, &home), 1);

    // Fixed, it passes.
    std::fs::write(repo.join(CATALOG), release("2.1.0")).unwrap();
    let out = commit(&repo, &home, "release 2.1.0");
    eprintln!("{}", text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Passed"));
    assert_eq!(commit_count(&repo, &home), 2);
}

/// The reproduction of issue #29: a split-layout catalog (package, channels and bundles in
/// files of their own) in a package directory named unlike its package. Committing one bundle
/// file runs the hook on that file alone; olmlint must lint the whole catalog it belongs to
/// and find nothing (it used to report the channel's entries as missing bundles, OLM104).
#[test]
fn hook_on_a_split_layout_catalog_has_no_false_findings() {
    let Some(pc) = pre_commit() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (repo, home) = (tmp.path().join("repo"), tmp.path().join("home"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &home, &["init", "-q"]);
    std::fs::write(repo.join(".pre-commit-config.yaml"), local_hook_config()).unwrap();
    let files = [
        (
            "catalog/operator-x/package.yaml",
            "schema: olm.package\nname: foo\ndefaultChannel: stable\n".to_string(),
        ),
        (
            "catalog/operator-x/channels/stable.yaml",
            "schema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n"
                .to_string(),
        ),
        (
            "catalog/operator-x/bundles/foo.v1.0.0.yaml",
            "schema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n".to_string(),
        ),
    ];
    for (name, text) in &files {
        let path = repo.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out = cmd(pc, &repo, &home).arg("install").output().unwrap();
    assert!(out.status.success(), "pre-commit install: {}", text(&out));
    let out = commit(&repo, &home, "catalog");
    assert!(out.status.success(), "{}", text(&out));
    // Only the bundle file changes: the hook gets that one file.
    let bundle = repo.join("catalog/operator-x/bundles/foo.v1.0.0.yaml");
    let edited = files[2]
        .1
        .replace("quay.io/x/foo:v1", "quay.io/x/foo:v1.0.0");
    std::fs::write(&bundle, edited).unwrap();
    let out = commit(&repo, &home, "new image tag");
    let log = text(&out);
    eprintln!("{log}");
    assert!(out.status.success(), "{log}");
    assert!(log.contains("Passed"), "{log}");
    assert!(!log.contains("OLM"), "{log}");
    assert_eq!(commit_count(&repo, &home), 2);
}

#[test]
fn published_system_hook_runs_from_the_hooks_manifest() {
    let Some(pc) = pre_commit() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (hooks, repo, home) = (
        tmp.path().join("hooks"),
        tmp.path().join("repo"),
        tmp.path().join("home"),
    );
    for d in [&hooks, &repo, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    // pre-commit itself validates the manifest.
    let out = cmd(pc, &root(), &home)
        .args(["validate-manifest", ".pre-commit-hooks.yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "validate-manifest: {}", text(&out));

    // A hook repository holding this repository's .pre-commit-hooks.yaml, referenced by rev.
    let rev = hook_repo(&hooks, &home, &[".pre-commit-hooks.yaml"]);
    // No `files:` here: the manifest's own filters must keep .github/ and the config out.
    let config = hook_config(&hooks, &rev, "olmlint-system");
    consumer_repo(&repo, &home, &config);
    git(&repo, &home, &["add", "-A"]);
    let out = cmd(pc, &repo, &home)
        .args(["validate-config", ".pre-commit-config.yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "validate-config: {}", text(&out));

    // `olmlint` on PATH, as the system hook expects.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_olmlint")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let run = |args: &[&str]| {
        let out = cmd(pc, &repo, &home)
            .args(["run", "--all-files"])
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap();
        eprintln!("{}", text(&out));
        out
    };
    let out = run(&[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("olmlint"));
    assert!(text(&out).contains("Passed"));

    std::fs::write(repo.join(CATALOG), release("v2.1.0")).unwrap();
    git(&repo, &home, &["add", "-A"]);
    let out = run(&[]);
    let log = text(&out);
    assert!(!out.status.success());
    assert!(log.contains("OLM104"), "{log}");
    assert!(
        !log.contains("OLM003"),
        "non-catalog YAML was passed: {log}"
    );

    std::fs::write(repo.join(CATALOG), release("2.1.0")).unwrap();
    git(&repo, &home, &["add", "-A"]);
    let out = run(&[]);
    assert!(out.status.success(), "{}", text(&out));
}

/// The manifest read with olmlint's own YAML loader.
fn manifest() -> Vec<Json> {
    let path = root().join(".pre-commit-hooks.yaml");
    let file = olmlint::load::parse_bytes(
        ".pre-commit-hooks.yaml".into(),
        path.clone(),
        olmlint::load::Role::Fbc,
        std::fs::read(&path).unwrap(),
        &olmlint::load::Limits::default(),
    );
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    assert_eq!(file.docs.len(), 1);
    let json = file.docs[0].root.as_ref().unwrap().to_json().unwrap();
    json.as_array().expect("a list of hooks").clone()
}

#[test]
fn hooks_manifest_fields() {
    let hooks = manifest();
    let find = |id: &str| {
        hooks
            .iter()
            .find(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("hook `{id}`"))
            .as_object()
            .unwrap()
            .clone()
    };
    let (rust, system, pypi) = (
        find("olmlint"),
        find("olmlint-system"),
        find("olmlint-pypi"),
    );
    assert_eq!(hooks.len(), 3);
    assert_eq!(rust["language"], "rust");
    assert_eq!(system["language"], "system");
    assert_eq!(pypi["language"], "python");
    for h in [&rust, &system, &pypi] {
        for key in ["id", "name", "entry", "language"] {
            assert!(h[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
        }
        assert_eq!(h["entry"], "olmlint lint --only-files");
        assert_eq!(h["require_serial"], true);
        assert_eq!(h["pass_filenames"], true);
        assert_eq!(h["types_or"], serde_json::json!(["yaml", "json"]));
        // types_or needs pre-commit 2.9.0.
        assert_eq!(h["minimum_pre_commit_version"], "2.9.0");
    }
    // Same behaviour whichever way olmlint is installed.
    for other in [&system, &pypi] {
        for (k, v) in &rust {
            if !["id", "language", "description"].contains(&k.as_str()) {
                assert_eq!(other.get(k), Some(v), "`{k}` differs between the hooks");
            }
        }
        assert_eq!(rust.len(), other.len());
    }

    // `language: python` runs `pip install .` in this repository: the root pyproject.toml must
    // be the shim depending on the wheel of this very version (never a maturin build, which
    // would compile), and the wheel's own project lives in pypi/.
    let version = env!("CARGO_PKG_VERSION");
    let shim = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    assert!(
        shim.contains("build-backend = \"setuptools.build_meta\""),
        "{shim}"
    );
    assert!(
        !shim.contains("build-backend = \"maturin\""),
        "pip install . must not compile: {shim}"
    );
    assert!(shim.contains(&format!("version = \"{version}\"")), "{shim}");
    assert!(shim.contains(&format!("\"olmlint=={version}\"")), "{shim}");
    let wheel = std::fs::read_to_string(root().join("pypi/pyproject.toml")).unwrap();
    assert!(wheel.contains("build-backend = \"maturin\""), "{wheel}");
    assert!(wheel.contains("bindings = \"bin\""), "{wheel}");
    assert!(
        wheel.contains("manifest-path = \"../Cargo.toml\""),
        "{wheel}"
    );

    // `language: rust` runs `cargo install --bins --path <repo>`: the repository root must be
    // a crate with an `olmlint` binary, which the entry names.
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("[package]\nname = \"olmlint\""));
    assert!(root().join("src/main.rs").exists());
    assert!(root().join("Cargo.lock").exists());

    // The exclude pattern keeps top-level dot paths out and catalogs in.
    let exclude = regex::Regex::new(rust["exclude"].as_str().unwrap()).unwrap();
    for p in [
        ".pre-commit-config.yaml",
        ".github/workflows/ci.yaml",
        ".olmlint.yaml",
    ] {
        assert!(exclude.is_match(p), "{p} excluded");
    }
    for p in ["catalog/foo/catalog.yaml", "catalogs/v4.18/foo/index.json"] {
        assert!(!exclude.is_match(p), "{p} linted");
    }
}
