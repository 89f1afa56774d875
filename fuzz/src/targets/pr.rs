//! Pull-request mode over a generated git history: bytes → a repository whose first commit
//! (the merge base) and working tree (the pull request) are made of planted entries (files,
//! links out of the repository at a canary, deletions, catalog and bundle-directory names,
//! `.olmlint.yaml`) → `olmlint lint --changed-since BASE --only-new -f json -o FILE`, as the
//! Action runs it, and `olmlint graph --changed-since BASE -f markdown -o FILE`.
//!
//! Checks: no panic; the JSON report parses; no output quotes the canary; nothing outside
//! the repository is written or changed; git runs no hook or configured command of the
//! repository's (a marker the planted configuration would write never appears).

use super::sandbox::{check_output, Kind, Sandbox};
use std::path::Path;
use std::process::Command;

const NAMES: &[&str] = &[
    "catalogs/v4.18/op/catalog.yaml",
    "catalogs/v4.18/op/catalog.json",
    "catalogs/v4.18/dep/catalog.yaml",
    "catalogs/v4.18/op",
    "operators/op/1.0.0/manifests/op.clusterserviceversion.yaml",
    "operators/op/1.0.0/metadata/annotations.yaml",
    "operators/op/ci.yaml",
    "operators/op/catalog-templates/v4.18.yaml",
    ".olmlint.yaml",
    ".olmlint-baseline.json",
    "catalogs/v4.18/op/.indexignore",
    "catalogs/v4.18/bare/config",
    "catalogs/v4.18/bare/HEAD",
];

/// A planted bare repository's configuration: runs a command if git ever honours it.
const HOSTILE_GIT_CONFIG: &str =
    "[core]\n\tbare = true\n\tfsmonitor = \"touch ../../../../outside/fsmonitor-ran\"\n";

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=fuzz", "-c", "user.email=fuzz@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Entries of one side; an entry whose first byte is 0xfd deletes its name instead.
fn apply(sandbox: &Sandbox, data: &[u8]) {
    for part in data.split(|&b| b == 0xff).take(12) {
        if let (Some(0xfd), Some(&name)) = (part.first(), part.get(1)) {
            let path = sandbox.root.join(NAMES[name as usize % NAMES.len()]);
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_dir_all(&path);
        } else if part
            .get(1)
            .is_some_and(|&n| NAMES[n as usize % NAMES.len()].ends_with("bare/config"))
        {
            let _ = std::fs::create_dir_all(sandbox.root.join("catalogs/v4.18/bare/objects"));
            let _ = std::fs::create_dir_all(sandbox.root.join("catalogs/v4.18/bare/refs"));
            let _ = std::fs::write(
                sandbox.root.join("catalogs/v4.18/bare/HEAD"),
                "ref: refs/heads/main\n",
            );
            let _ = std::fs::write(
                sandbox.root.join("catalogs/v4.18/bare/config"),
                HOSTILE_GIT_CONFIG,
            );
        } else {
            sandbox.entry(NAMES, part);
        }
    }
}

fn olmlint(root: &Path, args: &[&str]) {
    let mut argv = vec!["olmlint"];
    argv.extend_from_slice(args);
    if let Ok(cli) = <olmlint::cli::Cli as clap::Parser>::try_parse_from(&argv) {
        // `--changed-since` asks git about the current directory's repository. The process's
        // directory is put back afterwards: libFuzzer writes its corpus by relative paths,
        // and the sandbox is removed after the input.
        let back = std::env::current_dir().ok();
        let _ = std::env::set_current_dir(root);
        let _ = olmlint::cli::run(cli);
        if let Some(dir) = back {
            let _ = std::env::set_current_dir(dir);
        }
    }
}

/// One input (the libFuzzer target `pr` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Some(sandbox) = Sandbox::new("repository") else {
        return;
    };
    let mut sides = data.splitn(2, |&b| b == 0xfe);
    apply(&sandbox, sides.next().unwrap_or_default());
    let root = &sandbox.root;
    if !(git(root, &["init", "-q", "-b", "main"])
        && git(root, &["add", "-A"])
        && git(root, &["commit", "-q", "--allow-empty", "-m", "base"]))
    {
        return;
    }
    apply(&sandbox, sides.next().unwrap_or_default());
    let report = sandbox.scratch("report.json");
    let summary = sandbox.scratch("summary.md");
    let (report_s, summary_s) = (report.to_string_lossy(), summary.to_string_lossy());
    olmlint(
        root,
        &[
            "lint",
            "--changed-since",
            "HEAD",
            "--only-new",
            "--timeout",
            "5",
            "-f",
            "json",
            "-o",
            &report_s,
            ".",
        ],
    );
    olmlint(
        root,
        &[
            "graph",
            "--changed-since",
            "HEAD",
            "-f",
            "markdown",
            "-o",
            &summary_s,
            ".",
        ],
    );
    for (path, kind) in [(&report, Kind::Json), (&summary, Kind::Markdown)] {
        if let Ok(text) = std::fs::read_to_string(path) {
            check_output(&path.display().to_string(), kind, &text);
        }
    }
    sandbox.assert_outside_untouched();
}
