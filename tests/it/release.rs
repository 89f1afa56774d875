//! Release engineering: shell completions and man pages generated from the CLI, the version
//! check and the archive packer the release workflow runs, the crate's published contents and
//! metadata, the workflows, scripts and Dockerfile linted with actionlint, shellcheck and hadolint
//! (scripts/check-workflows.sh), and the README's install section.

use crate::common::precommit::{root, text};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn olmlint(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bash(script: &str) -> (i32, String) {
    let out = Command::new("bash")
        .args(["-c", script])
        .current_dir(root())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), text(&out))
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, out, err) = olmlint(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["lint", "resolve", "explain", "fail-on", "changed-since"] {
            assert!(out.contains(word), "{shell} completion lacks `{word}`");
        }
    }
    let (code, _, err) = olmlint(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");

    // bash loads it and completes subcommands and option values.
    let bin = env!("CARGO_BIN_EXE_olmlint");
    let (code, out) = bash(&format!(
        "source <('{bin}' completions bash) && complete -p olmlint && \
         COMP_WORDS=(olmlint li) COMP_CWORD=1 && _olmlint olmlint li olmlint && \
         printf 'words:%s\\n' \"${{COMPREPLY[@]}}\" && \
         COMP_WORDS=(olmlint lint --fail-on '') COMP_CWORD=3 && _olmlint olmlint '' --fail-on && \
         printf 'values:%s\\n' \"${{COMPREPLY[@]}}\""
    ));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("-F _olmlint olmlint"), "{out}");
    assert!(out.contains("words:lint"), "{out}");
    for v in ["error", "warning", "info", "never"] {
        assert!(out.contains(&format!("values:{v}")), "{out}");
    }
}

#[test]
fn man_pages_from_the_cli() {
    let (code, page, err) = olmlint(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH olmlint 1"), "{page}");
    assert!(page.contains(&format!("olmlint {VERSION}")), "{page}");
    assert!(
        page.contains("olmlint\\-lint(1)"),
        "the page lists the commands"
    );

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man1");
    let (code, _, err) = olmlint(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in [
        "olmlint.1",
        "olmlint-lint.1",
        "olmlint-resolve.1",
        "olmlint-completions.1",
    ] {
        assert!(names.contains(name), "{names:?}");
    }
    let lint = std::fs::read_to_string(dir.join("olmlint-lint.1")).unwrap();
    assert!(
        lint.contains(&format!(".TH olmlint-lint 1  \"olmlint {VERSION}\"")),
        "{lint}"
    );
    assert!(lint.contains("\\-\\-fail\\-on"), "{lint}");
    assert_eq!(
        std::fs::read_to_string(dir.join("olmlint.1")).unwrap(),
        page,
        "the printed page is olmlint.1"
    );
    // Rendered by man(1) where it is installed.
    if Command::new("man").arg("--version").output().is_ok() {
        let out = Command::new("man")
            .arg("-l")
            .arg(dir.join("olmlint-lint.1"))
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", text(&out));
        assert!(shown.contains("--fail-on"), "{shown}");
    }
}

#[test]
fn release_check_compares_tag_and_versions() {
    let (code, out) = bash("bash scripts/release-check.sh");
    assert_eq!((code, out.trim()), (0, VERSION));
    for tag in [format!("v{VERSION}"), format!("refs/tags/v{VERSION}")] {
        let (code, out) = bash(&format!("bash scripts/release-check.sh {tag}"));
        assert_eq!(code, 0, "{tag}: {out}");
    }
    for tag in ["v99.0.0", VERSION, "main"] {
        let (code, out) = bash(&format!("bash scripts/release-check.sh {tag}"));
        assert_eq!(code, 1, "{tag}: {out}");
        assert!(
            out.contains(&format!("expected v{VERSION}")),
            "{tag}: {out}"
        );
    }
    // A copy of the repository whose shim pins another version is refused.
    let tmp = tempfile::tempdir().unwrap();
    for f in ["Cargo.toml", "Cargo.lock", "pyproject.toml"] {
        std::fs::copy(root().join(f), tmp.path().join(f)).unwrap();
    }
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        let name = e.unwrap().file_name();
        let dir = tmp.path().join("crates").join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = root().join("crates").join(&name).join("Cargo.toml");
        std::fs::copy(manifest, dir.join("Cargo.toml")).unwrap();
    }
    std::fs::create_dir(tmp.path().join("scripts")).unwrap();
    std::fs::copy(
        root().join("scripts/release-check.sh"),
        tmp.path().join("scripts/release-check.sh"),
    )
    .unwrap();
    let shim = std::fs::read_to_string(tmp.path().join("pyproject.toml")).unwrap();
    std::fs::write(
        tmp.path().join("pyproject.toml"),
        shim.replace(&format!("olmlint=={VERSION}"), "olmlint==0.0.1"),
    )
    .unwrap();
    let out = Command::new("bash")
        .arg(tmp.path().join("scripts/release-check.sh"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("pins olmlint==0.0.1"), "{}", text(&out));
}

#[test]
fn release_archives_hold_the_binary_and_a_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_olmlint");
    let out = tmp.path().join("dist");
    for target in ["x86_64-unknown-linux-musl", "x86_64-pc-windows-msvc"] {
        let (code, log) = bash(&format!(
            "bash scripts/package-release.sh {target} '{bin}' '{}'",
            out.display()
        ));
        assert_eq!(code, 0, "{log}");
    }
    let (code, list) = bash(&format!(
        "cd '{}' && sha256sum -c ./*.sha256 && tar -tzf olmlint-x86_64-unknown-linux-musl.tar.gz && \
         python3 -m zipfile -l olmlint-x86_64-pc-windows-msvc.zip",
        out.display()
    ));
    assert_eq!(code, 0, "{list}");
    for f in [
        "olmlint-x86_64-unknown-linux-musl/olmlint",
        "olmlint-x86_64-unknown-linux-musl/LICENSE",
        "olmlint-x86_64-unknown-linux-musl/README.md",
        "olmlint-x86_64-pc-windows-msvc/olmlint.exe",
        "olmlint-x86_64-pc-windows-msvc/LICENSE",
    ] {
        assert!(list.contains(f), "{f}: {list}");
    }
    let sum = std::fs::read_to_string(out.join("olmlint-x86_64-unknown-linux-musl.tar.gz.sha256"))
        .unwrap();
    assert!(
        sum.ends_with("  olmlint-x86_64-unknown-linux-musl.tar.gz\n"),
        "{sum}"
    );
    let (code, _) = bash("bash scripts/package-release.sh '../x' /bin/sh /tmp");
    assert_eq!(code, 2, "a target is a name, not a path");
}

/// The targets the release workflow builds binaries for.
fn workflow_targets() -> BTreeSet<String> {
    let path = root().join(".github/workflows/release.yml");
    let file = olmlint::load::parse_bytes(
        "release.yml".into(),
        path.clone(),
        olmlint::load::Role::Fbc,
        std::fs::read(&path).unwrap(),
        &olmlint::load::Limits::default(),
    );
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    let wf: Json = file.docs[0].root.as_ref().unwrap().to_json().unwrap();
    // `on` is the boolean true in YAML 1.1, which olmlint reads as opm does; GitHub reads a key.
    let on = wf.get("on").or_else(|| wf.get("true")).expect("on:");
    assert!(on["push"]["tags"].is_array(), "runs on version tags");
    wf["jobs"]["binaries"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["target"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_action_downloads_what_the_release_builds() {
    // action.sh's runner → target table (release_target) names exactly the built targets.
    let script = std::fs::read_to_string(root().join("scripts/action.sh")).unwrap();
    let table = script
        .split("release_target() {")
        .nth(1)
        .unwrap()
        .split("\n}\n")
        .next()
        .unwrap();
    let mapped: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.split("printf '").nth(1))
        .map(|l| l.split('\'').next().unwrap().to_string())
        .collect();
    assert_eq!(mapped, workflow_targets());
    assert_eq!(mapped.len(), 5);

    // The image is built from the release's Linux binaries where the Dockerfile expects them.
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let docker = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    assert!(workflow.contains("mkdir -p \"dist/image/linux-$arch\""));
    assert!(docker.contains("COPY dist/image/linux-${TARGETARCH}/olmlint /usr/local/bin/olmlint"));
    assert!(workflow.contains("target: prebuilt"));
    assert!(docker.contains("FROM scratch AS prebuilt"));
    assert!(docker.contains("ENTRYPOINT [\"/usr/local/bin/olmlint\"]"));
    // The CI workflow runs exactly .ci/run, which runs the README's test command.
    let ci = std::fs::read_to_string(root().join(".github/workflows/ci.yml")).unwrap();
    assert!(ci.contains("run: bash .ci/run"));
    let run = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let command = run.lines().last().unwrap().trim();
    assert_eq!(command, "cargo test --profile test-opt --locked");
    assert!(readme.contains(&format!("\n{command}\n")));
}

#[test]
fn workflows_scripts_and_dockerfile_pass_their_linters() {
    let (code, out) = bash("bash scripts/check-workflows.sh");
    eprintln!("{out}");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no problems"), "{out}");
}

#[test]
fn crate_metadata_and_published_files() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for key in [
        "license = \"Apache-2.0\"",
        "repository = ",
        "readme = \"README.md\"",
        "keywords = ",
        "categories = ",
        "rust-version = ",
    ] {
        assert!(manifest.contains(key), "Cargo.toml lacks {key}");
    }
    let license = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(license.trim_start().starts_with("Apache License"));
    assert!(license.contains("Version 2.0, January 2004"));

    // Each crate of the workspace ships its sources and what they embed; nothing else.
    let wants: [(&str, &[&str]); 8] = [
        (
            "olmlint",
            &[
                "Cargo.toml",
                "Cargo.lock",
                "LICENSE",
                "README.md",
                "src/main.rs",
                "src/generate.rs",
            ],
        ),
        (
            "olmlint-base",
            &["build.rs", "rules/OLM301.md", "src/diag.rs"],
        ),
        ("olmlint-semantics", &["src/range.rs", "src/sat/mod.rs"]),
        ("olmlint-load", &["src/walk.rs", "src/yaml.rs"]),
        (
            "olmlint-model",
            &["schemas/olm.constraint.schema.json", "src/lib.rs"],
        ),
        (
            "olmlint-check",
            &["schemas/olmlint-config.schema.json", "src/config.rs"],
        ),
        ("olmlint-report", &["src/sarif.rs", "src/graph/mod.rs"]),
        ("olmlint-server", &["src/lib.rs", "src/worker.rs"]),
    ];
    for (package, wanted) in wants {
        let out = Command::new(env!("CARGO"))
            .args([
                "package",
                "-p",
                package,
                "--list",
                "--locked",
                "--allow-dirty",
            ])
            .current_dir(root())
            .output()
            .unwrap();
        assert!(out.status.success(), "{package}: {}", text(&out));
        let files: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        for f in wanted.iter().chain(&["Cargo.toml", "LICENSE", "README.md"]) {
            assert!(files.contains(*f), "{package} lacks {f}");
        }
        for f in &files {
            assert!(
                ![
                    "tests/",
                    "fixtures/",
                    "fuzz/",
                    "bench/",
                    "pypi/",
                    ".github/",
                    "crates/"
                ]
                .iter()
                .any(|p| f.starts_with(p)),
                "{package}: {f} is not for crates.io"
            );
        }
    }

    // rust-version is at least what every dependency in Cargo.lock declares.
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let meta: Json = serde_json::from_slice(&out.stdout).unwrap();
    let ours = version_tuple(env!("CARGO_PKG_RUST_VERSION"));
    let resolved: BTreeSet<&str> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    let mut checked = 0;
    for p in meta["packages"].as_array().unwrap() {
        if !resolved.contains(p["id"].as_str().unwrap()) {
            continue;
        }
        if let Some(rv) = p["rust_version"].as_str() {
            checked += 1;
            assert!(
                version_tuple(rv) <= ours,
                "{} {} needs Rust {rv}, Cargo.toml says {}",
                p["name"],
                p["version"],
                env!("CARGO_PKG_RUST_VERSION")
            );
        }
    }
    assert!(checked > 20, "{checked}");
}

fn version_tuple(v: &str) -> (u32, u32, u32) {
    let mut it = v.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    (
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
    )
}

#[test]
fn readme_starts_with_the_install_section() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first = readme
        .lines()
        .find(|l| l.starts_with("## "))
        .unwrap_or_default();
    assert_eq!(first, "## Install");
    let install = readme.split("## Install").nth(1).unwrap();
    let install = install.split("\n## ").next().unwrap();
    for needle in [
        "pip install olmlint",
        "pipx",
        "uvx olmlint",
        "sha256sum -c",
        "releases/latest/download",
        "docker run",
        "cargo install olmlint --locked",
        "olmlint completions",
        "olmlint man",
    ] {
        assert!(
            install.contains(needle),
            "the install section lacks `{needle}`"
        );
    }
    // pre-commit pinned to a release tag, with the wheel hook.
    assert!(readme.contains(&format!("rev: v{VERSION}")));
    assert!(readme.contains("id: olmlint-pypi"));
    assert!(!readme.contains("rev: main"));
    assert!(Path::new(&root().join("LICENSE")).exists());
}
