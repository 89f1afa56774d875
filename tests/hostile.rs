//! #28 (first part): a pull request controls every file name and symlink of the catalog.
//! Links that leave the catalog are not read (their content must never reach a report), and
//! files are read with the size limit enforced while reading.
//!
//! A test binary of its own (not a module of `tests/it`): `peak_rss` reads the `ru_maxrss`
//! of the olmlint processes started here, which Linux reports including what this process
//! held when it started them; this process stays small.

#![cfg(unix)]

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The diagnostics of `olmlint lint --no-config -f json` on `dir`, and the whole of stdout.
fn lint(dir: &Path) -> (Vec<Value>, String) {
    let out = common::olmlint(
        None,
        ["lint", "--no-config", "-f", "json", dir.to_str().unwrap()],
    );
    (
        common::diagnostics(&out),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const CATALOG: &str = "schema: olm.package\nname: foo\ndefaultChannel: stable\n";

/// `catalog/` under `tmp`, holding package.yaml (`CATALOG`).
fn catalog(tmp: &Path) -> PathBuf {
    let cat = tmp.join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("package.yaml"), CATALOG).unwrap();
    cat
}

#[test]
fn symlinks_out_of_the_catalog_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.yaml");
    std::fs::write(&secret, "token: s3cr3t-value-that-must-not-leak\n").unwrap();
    let cat = catalog(tmp.path());
    std::os::unix::fs::symlink(&secret, cat.join("x.yaml")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", cat.join("passwd.yaml")).unwrap();
    let (d, text) = lint(&cat);
    assert!(!text.contains("s3cr3t"), "{text}");
    assert!(!text.contains("root:"), "{text}");
    let links: Vec<&Value> = d
        .iter()
        .filter(|x| {
            common::message(x).contains("symbolic link to a target outside the catalog; not read")
        })
        .collect();
    assert_eq!(links.len(), 2, "{d:#?}");
}

#[test]
fn symlinks_inside_the_catalog_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(cat.join("real")).unwrap();
    std::fs::write(cat.join("real/package.yaml"), "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n").unwrap();
    std::os::unix::fs::symlink("real/package.yaml", cat.join("link.yaml")).unwrap();
    let (d, _) = lint(&cat);
    // Read twice (as opm does): duplicate package.
    assert!(d.iter().any(|x| x["rule"] == "OLM101"), "{d:#?}");
}

#[test]
fn special_files_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path());
    // A link to a device inside... /dev is outside the catalog; a FIFO inside is not a file.
    std::os::unix::fs::symlink("/dev/zero", cat.join("zero.yaml")).unwrap();
    common::mkfifo(&cat.join("fifo.yaml"));
    let (d, _) = lint(&cat);
    assert!(d.iter().all(|x| x["rule"] != "OLM003"), "{d:#?}");
}

#[test]
fn timeouts_that_are_not_numbers_of_seconds_are_usage_errors() {
    for t in ["nan", "inf", "1e300", "x"] {
        let out = common::olmlint(None, ["lint", "--no-config", "-q", "--timeout", t, "."]);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--timeout"),
            "{t}"
        );
    }
}

#[test]
fn a_temporary_left_by_a_killed_fix_is_not_catalog_content() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path());
    // What a fix killed at the rename leaves: a full copy of a catalog file.
    std::fs::write(cat.join(".olmlint-x1Y2z3.tmp"), CATALOG).unwrap();
    let (d, _) = lint(&cat);
    assert!(d.iter().all(|x| x["rule"] != "OLM101"), "{d:#?}");
}

#[test]
fn changed_since_never_writes_outside_its_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let private_tmp = tmp.path().join("tmp");
    std::fs::create_dir_all(repo.join("catalog")).unwrap();
    std::fs::create_dir_all(&private_tmp).unwrap();
    common::git(&repo, &["init", "-q"], None);
    // A crafted commit: catalog/../../escaped.yaml, which `git mktree` accepts.
    let blob = common::git(
        &repo,
        &["hash-object", "-w", "--stdin"],
        Some("pwned: true\n"),
    );
    let pkg = common::git(&repo, &["hash-object", "-w", "--stdin"], Some(CATALOG));
    let inner = common::git(
        &repo,
        &["mktree"],
        Some(&format!("100644 blob {blob}\tescaped.yaml\n")),
    );
    let up = common::git(
        &repo,
        &["mktree"],
        Some(&format!("040000 tree {inner}\t..\n")),
    );
    let cat = common::git(
        &repo,
        &["mktree"],
        Some(&format!(
            "040000 tree {up}\t..\n100644 blob {pkg}\tpackage.yaml\n"
        )),
    );
    let root = common::git(
        &repo,
        &["mktree"],
        Some(&format!("040000 tree {cat}\tcatalog\n")),
    );
    let commit = common::git(&repo, &["commit-tree", &root, "-m", "evil"], None);
    std::fs::write(
        repo.join("catalog/package.yaml"),
        CATALOG.replace("stable", "fast"),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args([
            "lint",
            "--no-config",
            "--changed-since",
            &commit,
            "catalog/package.yaml",
        ])
        .current_dir(&repo)
        .env("TMPDIR", &private_tmp)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !private_tmp.join("escaped.yaml").exists() && !tmp.path().join("escaped.yaml").exists(),
        "{stderr}"
    );
    assert!(stderr.contains("will not write"), "{stderr}");
    // The snapshot directory is gone.
    assert_eq!(std::fs::read_dir(&private_tmp).unwrap().count(), 0);
}

#[test]
fn indexignore_files_that_are_not_plain_files_are_reported_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path());
    std::fs::create_dir_all(cat.join("a")).unwrap();
    std::fs::create_dir_all(cat.join("b")).unwrap();
    // A FIFO would block a reader forever; /dev/zero would fill memory.
    common::mkfifo(&cat.join("a/.indexignore"));
    std::os::unix::fs::symlink("/dev/zero", cat.join("b/.indexignore")).unwrap();
    // A plain one still applies.
    std::fs::create_dir_all(cat.join("c")).unwrap();
    std::fs::write(cat.join("c/.indexignore"), "junk.yaml\n").unwrap();
    std::fs::write(cat.join("c/junk.yaml"), "not: a catalog\n").unwrap();
    let (d, text) = lint(&cat);
    let notes: Vec<&Value> = d
        .iter()
        .filter(|x| {
            x["message"]
                .as_str()
                .is_some_and(|m| m.contains("its patterns are not applied"))
        })
        .collect();
    assert_eq!(notes.len(), 2, "{d:#?}\n{text}");
    assert!(d.iter().all(|x| x["rule"] != "OLM003"), "{d:#?}");
}

#[test]
fn config_paths_cannot_leave_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path());
    std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
    std::fs::write(
        tmp.path().join(".olmlint.yaml"),
        "context: [/proc]\ncluster-properties: /dev/zero\n",
    )
    .unwrap();
    let d = common::diagnostics(&common::olmlint(
        None,
        ["lint", "-f", "json", cat.to_str().unwrap()],
    ));
    let msgs: Vec<&str> = d
        .iter()
        .filter(|x| x["rule"] == "OLM011")
        .filter_map(|x| x["message"].as_str())
        .collect();
    assert_eq!(msgs.len(), 2, "{d:#?}");
    assert!(
        msgs.iter().all(|m| m.contains("outside the repository")),
        "{msgs:?}"
    );
}

#[test]
fn a_huge_or_special_config_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path());
    // Sparse: 4 GB on paper, nothing on disk.
    let f = std::fs::File::create(tmp.path().join(".olmlint.yaml")).unwrap();
    f.set_len(4 << 30).unwrap();
    let run = |config: &Path| {
        common::olmlint(
            None,
            [
                "lint",
                "--config",
                config.to_str().unwrap(),
                cat.to_str().unwrap(),
            ],
        )
    };
    let out = run(&tmp.path().join(".olmlint.yaml"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("limit"));
    let out = run(Path::new("/dev/zero"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
}

#[test]
fn a_named_file_that_links_out_of_its_directory_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("secret.yaml"), "token: s3cr3t-x\n").unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::os::unix::fs::symlink("../secret.yaml", cat.join("link.yaml")).unwrap();
    let link = cat.join("link.yaml");
    let out = common::olmlint(
        None,
        [
            "lint",
            "--no-config",
            "--fix",
            "-f",
            "json",
            link.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("s3cr3t"), "{text}");
    assert!(text.contains("outside its directory"), "{text}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("secret.yaml")).unwrap(),
        "token: s3cr3t-x\n"
    );
}

#[test]
fn catalog_text_cannot_inject_terminal_or_workflow_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(
        cat.join("package.yaml"),
        "schema: olm.package\nname: \"foo\\e]0;pwn\\a\"\ndefaultChannel: \"\\n::add-mask::x\"\n",
    )
    .unwrap();
    for format in ["human", "github"] {
        let out = common::olmlint(
            None,
            [
                "lint",
                "--no-config",
                "--color",
                "never",
                "-f",
                format,
                cat.to_str().unwrap(),
            ],
        );
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.contains('\x1b') && !text.contains('\x07'),
                "{format}: {text}"
            );
            assert!(
                text.lines()
                    .all(|l| !l.trim_start().starts_with("::add-mask")),
                "{format}: {text}"
            );
        }
    }
}

/// In colour, catalog text is made inert before miette colours the report: an SGR sequence
/// from a catalog (`ESC[8m` hides what follows) or an OSC title never reaches the terminal,
/// in messages, names or snippets; olmlint's own colours do.
#[test]
fn colour_output_keeps_no_escape_sequence_from_the_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(
        cat.join("c.yaml"),
        "schema: olm.package\nname: \"p\\e[8mhidden\\e]0;title\\a\"\ndefaultChannel: s\n---\nfoo: \"x\\e[31mred\"\n",
    )
    .unwrap();
    let out = common::olmlint(
        None,
        [
            "lint",
            "--no-config",
            "--color",
            "always",
            cat.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\u{1b}[31m"),
        "olmlint's own colour is kept: {text}"
    );
    for bad in ["\u{1b}[8m", "\u{1b}]0;", "\u{7}"] {
        assert!(!text.contains(bad), "{bad:?} reached the terminal: {text}");
    }
    assert!(text.contains("\\u{1b}[8m"), "{text}");
}

/// At most `limits.max-findings-per-rule-per-file` findings of one rule in one file are
/// listed; the last says how many more, the summary counts all of them.
#[test]
fn findings_per_rule_and_file_are_capped_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("c.yaml"), "---\n{}\n".repeat(5)).unwrap();
    std::fs::write(
        tmp.path().join(".olmlint.yaml"),
        "limits:\n  max-findings-per-rule-per-file: 2\n",
    )
    .unwrap();
    let out = common::olmlint(
        None,
        [
            "lint",
            "-f",
            "json",
            "-c",
            tmp.path().join(".olmlint.yaml").to_str().unwrap(),
            cat.to_str().unwrap(),
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = report["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 2, "{report:#}");
    assert_eq!(report["summary"]["errors"], 5, "{report:#}");
    assert_eq!(report["summary"]["not_shown"], 3, "{report:#}");
    let note = d[1]["related"].to_string();
    assert!(
        note.contains("3 more OLM003 finding(s) in this file"),
        "{note}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3 finding(s) not shown"), "{stderr}");
    // Statistics count every finding, listed or not.
    let out = common::olmlint(
        None,
        [
            "lint",
            "--statistics",
            "-c",
            tmp.path().join(".olmlint.yaml").to_str().unwrap(),
            cat.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("     5  OLM003"), "{text}");
}

/// The job summary stays under GitHub's 1 MiB however many long findings there are.
#[test]
fn job_summary_stays_under_one_mebibyte() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    // Package names of 3 000 characters: each finding about them quotes one.
    let long = "x".repeat(3000);
    let mut text = String::new();
    for i in 0..600 {
        text.push_str(&format!("---\nschema: olm.package\nname: {long}{i}\n"));
    }
    std::fs::write(cat.join("c.yaml"), text).unwrap();
    let summary = tmp.path().join("summary.md");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-f", "github", cat.to_str().unwrap()])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.len() < 1_000_000, "{}", md.len());
    assert!(
        md.contains("more finding(s) are not listed"),
        "{}",
        &md[md.len() - 300..]
    );
}

/// #43: a checkout (`repo/`, a git work tree) beside `outside/`, which holds `canary` under
/// `name`: what a committed link may point at on a runner. Returns (repo, outside).
fn checkout_beside_canary(tmp: &Path, name: &str, canary: &str) -> (PathBuf, PathBuf) {
    let repo = tmp.join("repo");
    let outside = tmp.join("outside");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let file = outside.join(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, canary).unwrap();
    catalog(&repo);
    (repo, outside)
}

/// Neither stream of `out` holds `canary` or the runner's path `outside`.
fn assert_nothing_leaks(out: &std::process::Output, canary: &str, outside: &Path) {
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(canary), "{text}");
        assert!(!text.contains(outside.to_str().unwrap()), "{text}");
    }
}

/// #43: a path named on the command line inside the checkout that is (or passes through) a
/// committed link out of it is not walked: an OLM001 finding names it as given.
#[test]
fn a_given_path_that_links_out_of_the_repository_is_not_walked() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = "s3cr3t-catalog-canary";
    let (repo, outside) = checkout_beside_canary(
        tmp.path(),
        "v4.18/c.yaml",
        &format!("schema: olm.package\nname: {canary}\n---\n{canary}: [\n"),
    );
    std::os::unix::fs::symlink(&outside, repo.join("catalogs")).unwrap();
    std::os::unix::fs::symlink(outside.join("v4.18"), repo.join("v4.18")).unwrap();
    // The link itself, a path through it, and one through it that does not exist there (no
    // existence test of the target either).
    for given in ["v4.18", "catalogs/v4.18", "catalogs/v4.99"] {
        let out = common::olmlint(Some(&repo), ["lint", "--no-config", "-f", "json", given]);
        assert_nothing_leaks(&out, canary, &outside);
        assert_eq!(out.status.code(), Some(1), "{given}");
        let d = common::diagnostics(&out);
        assert_eq!(d.len(), 1, "{given}: {d:#?}");
        assert_eq!(d[0]["rule"], "OLM001");
        assert!(
            common::message(&d[0]).starts_with(&format!(
                "{given}: is, or passes through, a symbolic link that leaves the repository"
            )),
            "{d:#?}"
        );
    }
    // A link that stays inside the checkout is walked as before, and so is a path the user
    // wrote outside it.
    std::os::unix::fs::symlink("catalog", repo.join("same")).unwrap();
    let (d, _) = common::lint_json(Some(&repo), &["same"]);
    assert!(d.iter().all(|x| x["rule"] != "OLM001"), "{d:#?}");
    let (d, _) = common::lint_json(Some(&repo), &[outside.join("v4.18").to_str().unwrap()]);
    assert!(d.iter().any(|x| x["rule"] == "OLM001"), "{d:#?}");
}

/// #43: a discovered (or given) `.olmlint.yaml` committed as a link out of the checkout is
/// not read: its text would be quoted in OLM011 findings and the exit-2 message.
#[test]
fn a_configuration_that_links_out_of_the_repository_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = "s3cr3t-config-canary";
    let (repo, outside) =
        checkout_beside_canary(tmp.path(), "secret.yaml", &format!("{canary}: 1\n"));
    std::os::unix::fs::symlink(outside.join("secret.yaml"), repo.join(".olmlint.yaml")).unwrap();
    for args in [
        &["lint", "-f", "json", "catalog"][..],
        &["lint", "-f", "json", "--config", ".olmlint.yaml", "catalog"],
        &["lint", "-f", "json", "catalog/package.yaml"],
    ] {
        let out = common::olmlint(Some(&repo), args);
        assert_nothing_leaks(&out, canary, &outside);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(".olmlint.yaml") && stderr.contains("symbolic link"),
            "{args:?}: {stderr}"
        );
    }
    // A link to a configuration elsewhere in the checkout is read.
    std::fs::write(repo.join("shared.yaml"), "rules:\n  OLM304: off\n").unwrap();
    std::fs::remove_file(repo.join(".olmlint.yaml")).unwrap();
    std::os::unix::fs::symlink("shared.yaml", repo.join(".olmlint.yaml")).unwrap();
    let out = common::olmlint(Some(&repo), ["lint", "-q", "-f", "json", "catalog"]);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// #43: a findings baseline given inside the checkout that links out of it is not read, and
/// one that is not a baseline is never quoted (serde's messages quote keys and values).
#[test]
fn a_findings_baseline_is_never_read_through_a_link_or_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = "s3cr3t-baseline-canary";
    let text = format!("{{\"{canary}\": \"{canary}\"}}\n");
    let (repo, outside) = checkout_beside_canary(tmp.path(), "secret.json", &text);
    std::os::unix::fs::symlink(
        outside.join("secret.json"),
        repo.join(".olmlint-baseline.json"),
    )
    .unwrap();
    let run = |baseline: &Path| {
        common::olmlint(
            Some(&repo),
            [
                "lint",
                "--no-config",
                "-f",
                "json",
                "--findings-baseline",
                baseline.to_str().unwrap(),
                "catalog",
            ],
        )
    };
    let out = run(Path::new(".olmlint-baseline.json"));
    assert_nothing_leaks(&out, canary, &outside);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".olmlint-baseline.json") && stderr.contains("symbolic link"),
        "{stderr}"
    );
    // Given outside the checkout it is the user's choice and read, but not quoted.
    let value = format!("{{\"olmlint-findings-baseline\": \"{canary}\", \"findings\": []}}");
    std::fs::write(outside.join("typed.json"), value).unwrap();
    for file in ["secret.json", "typed.json"] {
        let out = run(&outside.join(file));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(!stderr.contains(canary), "{stderr}");
        assert!(
            stderr.contains("not an olmlint findings baseline"),
            "{stderr}"
        );
    }
}

/// #43: `-o` and `--write-baseline` never write through a committed link (to a file, or
/// dangling), nor into a directory reached through a link out of the checkout; devices and
/// the process's own descriptors still work.
#[test]
fn outputs_are_never_written_through_a_committed_link() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = "keep-this-runner-file";
    let (repo, outside) = checkout_beside_canary(tmp.path(), "victim", canary);
    std::os::unix::fs::symlink(outside.join("victim"), repo.join("report.json")).unwrap();
    std::os::unix::fs::symlink(outside.join("created"), repo.join("dangling.json")).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("out")).unwrap();
    let cases: [&[&str]; 5] = [
        &["-o", "report.json"],
        &["--write-baseline", "report.json"],
        &["-o", "dangling.json"],
        &["-o", "out/new.json"],
        &["--write-baseline", "out/victim"],
    ];
    for extra in cases {
        let mut args = vec!["lint", "--no-config", "-q", "-f", "json", "catalog"];
        args.extend_from_slice(extra);
        let out = common::olmlint(Some(&repo), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(extra[1]), "{extra:?}: {stderr}");
        assert!(!stderr.contains(outside.to_str().unwrap()), "{stderr}");
        assert_eq!(
            std::fs::read_to_string(outside.join("victim")).unwrap(),
            canary
        );
        let names: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert_eq!(names.len(), 1, "{extra:?}: {names:?}");
    }
    assert!(std::fs::symlink_metadata(repo.join("report.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A regular file in the checkout is replaced; /dev/null and /dev/stderr are written.
    std::fs::write(repo.join("plain.json"), "old").unwrap();
    for target in ["plain.json", "/dev/null", "/dev/stderr"] {
        let out = common::olmlint(
            Some(&repo),
            [
                "lint",
                "--no-config",
                "-q",
                "-f",
                "json",
                "catalog",
                "-o",
                target,
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(2), "{target}: {stderr}");
    }
    assert!(std::fs::read_to_string(repo.join("plain.json"))
        .unwrap()
        .contains("\"diagnostics\""));
    // /dev/stderr redirected to a file: written through the process's own descriptor.
    let log = tmp.path().join("stderr.log");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args([
            "lint",
            "--no-config",
            "-q",
            "-f",
            "json",
            "catalog",
            "-o",
            "/dev/stderr",
        ])
        .current_dir(&repo)
        .stderr(std::fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("\"diagnostics\""));
}

/// #43: a `template_name` that is a path is refused before any file-system lookup: whether
/// OLM905 said "not in catalog-templates" told which runner files exist.
#[test]
fn template_names_that_are_paths_are_not_looked_up() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, outside) = checkout_beside_canary(tmp.path(), "exists.yaml", "x: 1\n");
    let op = repo.join("operators/foo");
    std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
    std::fs::write(
        op.join("catalog-templates/basic.yaml"),
        "schema: olm.template.basic\nentries: []\n",
    )
    .unwrap();
    let names = [
        "../../../../outside/exists.yaml".to_string(),
        "../../../../outside/missing.yaml".to_string(),
        outside.join("exists.yaml").to_str().unwrap().to_string(),
        outside.join("missing.yaml").to_str().unwrap().to_string(),
    ];
    let mut ci = String::from("fbc:\n  enabled: true\n  catalog_mapping:\n");
    ci.push_str("    - template_name: basic.yaml\n      type: olm.template.basic\n      catalog_names: [v4.18]\n");
    for (i, n) in names.iter().enumerate() {
        ci.push_str(&format!(
            "    - template_name: \"{n}\"\n      type: olm.template.basic\n      catalog_names: [v4.{}]\n",
            19 + i
        ));
    }
    std::fs::write(op.join("ci.yaml"), ci).unwrap();
    let (d, _) = common::lint_json(Some(&repo), &["operators/foo"]);
    let mapping: Vec<&str> = d
        .iter()
        .filter(|x| x["rule"] == "OLM905")
        .map(common::message)
        .collect();
    // One finding per path, the same whether the file exists or not.
    assert_eq!(mapping.len(), names.len(), "{d:#?}");
    assert!(
        mapping
            .iter()
            .all(|m| m.contains("which is not a file name")),
        "{mapping:#?}"
    );
}

// #43: the pull-request mode (`--changed-since`, `--only-files`) and the git it runs.

/// A git repository at `tmp/repo` holding `files`, committed.
fn committed_repo(tmp: &Path, files: &[(&str, &str)]) -> PathBuf {
    let repo = tmp.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    common::git(&repo, &["init", "-q"], None);
    common::write_files(&repo, files);
    commit(&repo);
    repo
}

/// Commits everything in `repo`.
fn commit(repo: &Path) {
    common::git(repo, &["add", "-A"], None);
    common::git(
        repo,
        &["commit", "-q", "--allow-empty", "-m", "change"],
        None,
    );
}

/// `olmlint lint --no-config -f json` with `args`, run in `repo`.
fn lint_in(repo: &Path, args: &[&str]) -> std::process::Output {
    common::olmlint(
        Some(repo),
        [&["lint", "--no-config", "-f", "json"][..], args].concat(),
    )
}

/// The catalog of package foo with bundles `versions` (each in its own file under
/// `bundles/`) listed in its channel `stable` as a replaces chain.
fn foo_catalog(versions: &[&str]) -> Vec<(String, String)> {
    let mut channel = String::from(
        "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n",
    );
    let mut files = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        channel.push_str(&format!("  - name: foo.v{v}\n"));
        if i > 0 {
            channel.push_str(&format!("    replaces: foo.v{}\n", versions[i - 1]));
        }
        files.push((
            format!("catalog/foo/bundles/{v}.yaml"),
            format!("schema: olm.bundle\npackage: foo\nname: foo.v{v}\nimage: quay.io/x/foo:{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: {v}}}\n"),
        ));
    }
    files.push(("catalog/foo/package.yaml".into(), channel));
    files
}

fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

#[test]
fn changed_files_that_link_out_of_the_repository_are_reported_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("secret.yaml"),
        "schema: olm.package\nname: s3cr3t-token\n",
    )
    .unwrap();
    let repo = committed_repo(tmp.path(), &[("catalog/package.yaml", CATALOG)]);
    // Committed links: a changed file, and a directory on a changed file's path.
    std::os::unix::fs::symlink(outside.join("secret.yaml"), repo.join("catalog/link.yaml"))
        .unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("catalog/dir")).unwrap();
    commit(&repo);
    for args in [
        &["--changed-since", "HEAD~1"][..],
        &["--only-files", "catalog/link.yaml"],
        &["--only-files", "catalog/dir/secret.yaml"],
    ] {
        let out = lint_in(&repo, args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains("s3cr3t"), "{args:?}: {text}");
        assert!(
            !text.contains(outside.to_str().unwrap()),
            "{args:?}: {text}"
        );
        let d = common::diagnostics(&out);
        assert!(
            d.iter().any(|x| x["rule"] == "OLM001"
                && common::message(x).contains("outside the repository; not read")
                && common::message(x).starts_with("catalog/")),
            "{args:?}: {d:#?}"
        );
    }
}

#[test]
fn a_change_that_only_deletes_files_reports_what_the_deletion_breaks() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = foo_catalog(&["1.0.0", "2.0.0"]);
    // Another package of the catalog depends on foo 2; a third has an old mistake.
    files.push((
        "catalog/baz/catalog.yaml".into(),
        "schema: olm.package\nname: baz\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: baz\nname: stable\nentries:\n  - name: baz.v1.0.0\n---\nschema: olm.bundle\npackage: baz\nname: baz.v1.0.0\nimage: quay.io/x/baz:v1\nproperties:\n  - type: olm.package\n    value: {packageName: baz, version: 1.0.0}\n  - type: olm.package.required\n    value: {packageName: foo, versionRange: '>=2.0.0'}\n".into(),
    ));
    files.push((
        "catalog/bar/catalog.yaml".into(),
        "schema: olm.package\nname: bar\ndefaultChannel: stable\n".into(),
    ));
    let repo = committed_repo(tmp.path(), &as_refs(&files));
    // Nothing changed: still a JSON report.
    let out = lint_in(&repo, &["--changed-since", "HEAD"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(common::diagnostics(&out).is_empty());
    // Deleted: foo 2.0.0's bundle file, which the channel lists and baz requires.
    std::fs::remove_file(repo.join("catalog/foo/bundles/2.0.0.yaml")).unwrap();
    let out = lint_in(&repo, &["--changed-since", "HEAD"]);
    let d = common::diagnostics(&out);
    let found: Vec<(&str, &str)> = d
        .iter()
        .map(|x| {
            (
                x["rule"].as_str().unwrap(),
                x["file"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        found.contains(&("OLM104", "catalog/foo/package.yaml")),
        "{d:#?}"
    );
    assert!(
        found.iter().any(|(_, f)| *f == "catalog/baz/catalog.yaml"),
        "{d:#?}"
    );
    // bar's mistake was there before: not the change's doing.
    assert!(found.iter().all(|(_, f)| !f.contains("bar")), "{d:#?}");
    assert_eq!(out.status.code(), Some(1));
}

/// Peak RSS (KiB) of the process `cmd` starts, with its output.
#[cfg(target_os = "linux")]
fn peak_rss(cmd: &mut std::process::Command) -> (u64, std::process::Output) {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let out = std::thread::spawn(move || {
        use std::io::Read;
        let mut child = child;
        let (mut o, mut e) = (Vec::new(), Vec::new());
        child.stdout.take().unwrap().read_to_end(&mut o).unwrap();
        child.stderr.take().unwrap().read_to_end(&mut e).unwrap();
        (o, e, child)
    });
    let (stdout, stderr, _child) = out.join().unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let status =
        <std::process::ExitStatus as std::os::unix::process::ExitStatusExt>::from_raw(status);
    (
        usage.ru_maxrss as u64,
        std::process::Output {
            status,
            stdout,
            stderr,
        },
    )
}

#[cfg(target_os = "linux")]
#[test]
fn the_catalog_at_the_ref_is_read_with_the_loaders_limits() {
    let tmp = tempfile::tempdir().unwrap();
    // 100 MB of comments: under 200 KB in git, over the 64 MiB file size limit. Written in
    // pieces: a child's peak RSS starts from this process's peak at fork.
    let tmp_repo = tmp.path().join("repo");
    std::fs::create_dir_all(tmp_repo.join("catalog")).unwrap();
    let line = "# filler line of a file that git compresses well\n";
    let piece = line.repeat(20_000);
    let mut file = std::fs::File::create(tmp_repo.join("catalog/big.yaml")).unwrap();
    for _ in 0..100 {
        std::io::Write::write_all(&mut file, piece.as_bytes()).unwrap();
    }
    drop(file);
    let size = piece.len() * 100;
    let repo = committed_repo(tmp.path(), &[("catalog/package.yaml", CATALOG)]);
    std::fs::remove_file(repo.join("catalog/big.yaml")).unwrap();
    std::fs::write(
        repo.join("catalog/package.yaml"),
        CATALOG.replace("stable", "fast"),
    )
    .unwrap();
    let (rss_kib, out) = peak_rss(
        std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                "--no-config",
                "-f",
                "json",
                "--changed-since",
                "HEAD",
            ])
            .current_dir(&repo),
    );
    let d = common::diagnostics(&out);
    assert!(
        d.iter().any(|x| x["rule"] == "OLM001"
            && common::message(x).starts_with(&format!(
                "catalog/big.yaml at HEAD: {size} bytes, over the 67108864-byte file size limit"
            ))),
        "{d:#?}"
    );
    // Streamed, and the large blob never read: far below its size.
    assert!(rss_kib < 60_000, "peak RSS {rss_kib} KiB");
    // The total is bounded too (here 16 × a 1000-byte limit).
    let cfg = tmp.path().join("limits.yaml");
    std::fs::write(&cfg, "limits:\n  max-file-size: 1000\n").unwrap();
    let many: Vec<(String, String)> = (0..20)
        .map(|i| {
            (
                format!("catalog/f{i}.yaml"),
                format!("# {}\n", "x".repeat(900 + i)),
            )
        })
        .collect();
    common::write_files(&repo, &as_refs(&many));
    commit(&repo);
    std::fs::write(repo.join("catalog/package.yaml"), CATALOG).unwrap();
    let out = common::olmlint(
        Some(&repo),
        [
            "lint",
            "-c",
            cfg.to_str().unwrap(),
            "--changed-since",
            "HEAD",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("over the 16000-byte bound of a snapshot"),
        "{stderr}"
    );
}

#[test]
fn an_option_like_ref_never_reaches_git_as_an_option() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = committed_repo(tmp.path(), &[("catalog/package.yaml", CATALOG)]);
    for args in [
        &["--changed-since=--output=written.txt"][..],
        &["--changed-since=-p"],
    ] {
        let out = lint_in(&repo, args);
        assert!(!repo.join("written.txt").exists(), "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("names no commit"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // `graph` verifies it the same way.
    let out = common::olmlint(
        Some(&repo),
        [
            "graph",
            "--changed-since=--output=written.txt",
            "--no-config",
        ],
    );
    assert!(!repo.join("written.txt").exists());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_bare_repository_committed_in_the_catalog_is_never_used() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("fsmonitor-ran");
    // catalog/v4.18 is a catalog and, to git, a bare repository whose config runs a program.
    let config = format!(
        "[core]\n\tbare = false\n\tfsmonitor = \"touch {}\"\n",
        marker.display()
    );
    let mut files = vec![
        ("catalog/v4.18/HEAD", "ref: refs/heads/main\n"),
        ("catalog/v4.18/config", config.as_str()),
        ("catalog/v4.18/objects/info/.keep", ""),
        ("catalog/v4.18/refs/heads/.keep", ""),
    ];
    let old = foo_catalog(&["1.0.0", "1.1.0", "1.2.0"]);
    let old: Vec<(String, String)> = old
        .into_iter()
        .map(|(p, t)| (p.replace("catalog/", "catalog/v4.18/"), t))
        .collect();
    files.extend(as_refs(&old));
    let repo = committed_repo(tmp.path(), &files);
    // foo.v1.2.0 removed: the upgrade check against the catalog at HEAD reports it.
    std::fs::remove_file(repo.join("catalog/v4.18/foo/bundles/1.2.0.yaml")).unwrap();
    let (_, channel) = &foo_catalog(&["1.0.0", "1.1.0"])[2];
    std::fs::write(repo.join("catalog/v4.18/foo/package.yaml"), channel).unwrap();
    for args in [
        &["--changed-since", "HEAD"][..],
        &["--changed-since", "HEAD", "catalog/v4.18"],
    ] {
        let out = lint_in(&repo, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!marker.exists(), "{args:?}");
        assert!(
            !stderr.contains("cannot read the catalog"),
            "{args:?}: {stderr}"
        );
        let d = common::diagnostics(&out);
        assert!(
            d.iter().any(|x| x["rule"] == "OLM704"),
            "{args:?}: {d:#?}\n{stderr}"
        );
    }
    let out = common::olmlint(
        Some(&repo),
        [
            "graph",
            "--no-config",
            "--changed-since",
            "HEAD",
            "-f",
            "json",
        ],
    );
    assert!(!marker.exists());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The path of the real `git`.
fn real_git() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .unwrap()
}

#[test]
fn the_timeout_holds_while_git_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = committed_repo(tmp.path(), &[("catalog/package.yaml", CATALOG)]);
    std::fs::write(
        repo.join("catalog/package.yaml"),
        CATALOG.replace("stable", "fast"),
    )
    .unwrap();
    // A git that hangs in one phase: listing the changes, or reading the catalog at REF.
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("git");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncase \"$*\" in *\"$SLOW_GIT\"*) exec sleep 60 ;; esac\nexec '{}' \"$@\"\n",
            real_git().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    for (slow, phase) in [
        ("diff", "listing the files changed"),
        ("cat-file", "as it was at HEAD"),
    ] {
        let started = std::time::Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                "--no-config",
                "-f",
                "json",
                "--timeout",
                "1",
                "--changed-since",
                "HEAD",
            ])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("SLOW_GIT", slow)
            .output()
            .unwrap();
        let elapsed = started.elapsed();
        // Before the hard stop (10 s after the timeout), with a report of its own.
        assert!(elapsed.as_secs_f64() < 8.0, "{slow}: {elapsed:?}");
        assert_eq!(out.status.code(), Some(1), "{slow}");
        let d = common::diagnostics(&out);
        assert_eq!(d.len(), 1, "{slow}: {d:#?}");
        assert_eq!(d[0]["rule"], "OLM012");
        assert!(common::message(&d[0]).contains(phase), "{slow}: {d:#?}");
    }
}

// --- #43: what a pull request's names do to reviewer-facing output -------------------------

/// A YAML double-quoted scalar holding `s` exactly (a JSON string is one), characters beyond
/// ASCII as escapes (a YAML file may not hold U+FFFE or U+FFFF as they are).
fn yq(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap()
        .chars()
        .map(|c| match u32::from(c) {
            n @ 0x80..=0xffff => format!("\\u{n:04x}"),
            n @ 0x10000.. => format!("\\U{n:08x}"),
            _ => c.to_string(),
        })
        .collect()
}

/// `dir/file`: package `pkg` whose channel `channel` lists bundle `bundle` (in the catalog) and
/// `missing` replacing it (not in the catalog), so that findings quote the names.
fn named_catalog(dir: &Path, file: &str, pkg: &str, channel: &str, bundle: &str, missing: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let (p, c, b, m) = (yq(pkg), yq(channel), yq(bundle), yq(missing));
    std::fs::write(
        dir.join(file),
        format!(
            "schema: olm.package\nname: {p}\ndefaultChannel: {c}\n---\nschema: olm.channel\npackage: {p}\nname: {c}\nentries:\n  - name: {b}\n  - name: {m}\n    replaces: {b}\n---\nschema: olm.bundle\npackage: {p}\nname: {b}\nimage: quay.io/x/y:v1\nproperties:\n  - type: olm.package\n    value: {{packageName: {p}, version: 1.0.0}}\n"
        ),
    )
    .unwrap();
}

/// `olmlint ARGS` with `GITHUB_STEP_SUMMARY` set to `summary` when given: exit code, stdout,
/// stderr.
fn run(args: &[&str], summary: Option<&Path>) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"));
    cmd.args(args).env_remove("GITHUB_STEP_SUMMARY");
    if let Some(s) = summary {
        cmd.env("GITHUB_STEP_SUMMARY", s);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every report olmlint prints for `dir` (each `lint` format and each `graph` format, to
/// stdout), with the step summary `-f github` writes: (what, stdout + stderr).
fn every_output(dir: &Path) -> Vec<(String, String)> {
    let tmp = tempfile::tempdir().unwrap();
    let summary = tmp.path().join("summary.md");
    let d = dir.to_str().unwrap();
    let mut all = Vec::new();
    for f in [
        "human", "concise", "json", "sarif", "github", "junit", "html",
    ] {
        let (code, out, err) = run(
            &["lint", "--no-config", "--color", "never", "-f", f, d],
            Some(&summary),
        );
        assert_eq!(code, 1, "lint -f {f}: {err}");
        all.push((format!("lint -f {f}"), out + &err));
    }
    for f in ["mermaid", "dot", "svg", "json", "markdown"] {
        let (code, out, err) = run(&["graph", "--no-config", "-f", f, d], None);
        assert_eq!(code, 0, "graph -f {f}: {err}");
        all.push((format!("graph -f {f}"), out + &err));
    }
    all.push((
        "step summary".into(),
        std::fs::read_to_string(&summary).unwrap(),
    ));
    all
}

/// A line with its CommonMark code spans removed (a backtick string opens one, the next
/// backtick string of the same length closes it; an unmatched one is literal).
fn outside_code_spans(line: &str) -> String {
    let b = line.as_bytes();
    let run_at = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let (mut out, mut i) = (String::new(), 0);
    while i < b.len() {
        if b[i] != b'`' {
            let next = line[i..].find('`').map_or(b.len(), |k| i + k);
            out.push_str(&line[i..next]);
            i = next;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            match line[j..].find('`') {
                None => break None,
                Some(k) => {
                    let m = run_at(j + k);
                    if m == n {
                        break Some(j + k + m);
                    }
                    j += k + m;
                }
            }
        };
        match close {
            Some(end) => i = end,
            None => {
                out.push_str(&line[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// `markdown` rendered by cmark-gfm (GitHub's Markdown implementation, Debian's `cmark-gfm`
/// package, installed with apt-get when missing) with GitHub's extensions, raw HTML kept (GitHub
/// keeps what its sanitizer allows, `<code>` included).
fn cmark_gfm(markdown: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let installed = || {
        Command::new("cmark-gfm")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !installed() {
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success())
        };
        let _ = apt(&["install", "-y", "--no-install-recommends", "cmark-gfm"])
            || (apt(&["update"])
                && apt(&["install", "-y", "--no-install-recommends", "cmark-gfm"]));
        assert!(
            installed(),
            "this test renders Markdown with cmark-gfm: run `apt-get install cmark-gfm` (Debian/Ubuntu) as root"
        );
    }
    let mut child = Command::new("cmark-gfm")
        .args([
            "--unsafe",
            "-e",
            "table",
            "-e",
            "autolink",
            "-e",
            "strikethrough",
            "-e",
            "tagfilter",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// What a job summary renders to has no link but the rules' pages, no image and no element
/// from a name.
fn assert_rendered_inert(markdown: &str) {
    let html = cmark_gfm(markdown);
    for (i, _) in html.match_indices("<a ") {
        assert!(
            html[i..]
                .starts_with("<a href=\"https://github.com/olmlint/olmlint/blob/main/rules/OLM"),
            "a link from the catalog: {}",
            &html[i..(i + 120).min(html.len())]
        );
    }
    for bad in ["<img", "<b>", "<strong>", "<em>", "<del>"] {
        assert!(!html.contains(bad), "{bad} rendered:\n{html}");
    }
}

/// Markdown text with its numeric character references (`&#91;`) decoded: what it shows.
fn decode_refs(text: &str) -> String {
    let refs = regex::Regex::new(r"&#(\d+);").unwrap();
    refs.replace_all(text, |c: &regex::Captures<'_>| {
        char::from_u32(c[1].parse().unwrap()).unwrap().to_string()
    })
    .into_owned()
}

/// A GFM table row's cells (split on pipes that are not backslash-escaped).
fn cells(row: &str) -> Vec<String> {
    let (mut cells, mut cur, mut escaped) = (Vec::new(), String::new(), false);
    for c in row.trim().trim_start_matches('|').chars() {
        if c == '|' && !escaped {
            cells.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
        escaped = c == '\\' && !escaped;
    }
    cells
}

/// #43: a bundle, channel or package name holding a Mermaid directive (`%%{init: … themeCSS
/// …}%%` restyles the whole diagram, e.g. hides the error bundles), a `click` callback, an
/// HTML label, a class (`:::`) or an entity code is drawn as text: every label is one quoted
/// string of the diagram with no `%`, quote, markup or backtick left, every id is generated,
/// and the labels decode back to the catalog's names.
#[test]
fn mermaid_labels_are_text_and_ids_are_generated() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    let pkg = "p\";click c0n0 href \"https://e.example\"";
    let channel = "c %%{init: {\"themeCSS\": \".error{display:none}\"}}%%";
    let bundle = "b %%{init: {'theme':'dark','themeCSS':'g.node{display:none}'}}%%\nclick c0n0 call alert(1)\n<img src=x onerror=alert(1)> #lt;i#gt; &lt;i&gt; A:::error \u{fb02}\u{b0}lt\u{b6}\u{df} `x`";
    named_catalog(&cat, "c.yaml", pkg, channel, bundle, "m%%{init:{}}%%");
    let (code, text, err) = run(
        &[
            "graph",
            "--no-config",
            "-f",
            "mermaid",
            cat.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        !text.contains('%'),
        "a directive or comment reached the diagram:\n{text}"
    );
    let label = r#""([^"%<>`&\n]|<br/>)*""#;
    let line = regex::Regex::new(&format!(
        r"^(flowchart LR|  classDef \w+ [^\x22%]*|  subgraph c\d+\[{label}\]|    c\d+n\d+\[{label}\]|    class c\d+n\d+ \w+|    c\d+n\d+ (-->|-\.->|==>)(\|[a-zA-Z]+( ×\d+)?\|)? c\d+n\d+|  end|  linkStyle \d+ [^\x22%]*)$"
    ))
    .unwrap();
    for l in text.lines() {
        assert!(line.is_match(l), "not a line olmlint writes: {l:?}\n{text}");
    }
    // What Mermaid draws: the entity codes decoded.
    let code = regex::Regex::new(r"#(\d+|quot|lt|gt);").unwrap();
    let drawn = code.replace_all(&text, |c: &regex::Captures<'_>| match &c[1] {
        "quot" => "\"".to_string(),
        "lt" => "<".to_string(),
        "gt" => ">".to_string(),
        n => char::from_u32(n.parse().unwrap()).unwrap().to_string(),
    });
    for name in [pkg, channel, &bundle.replace('\n', " ")] {
        assert!(
            drawn.contains(name),
            "{name:?} is not drawn as text:\n{drawn}"
        );
    }
}

/// #43: a double backtick in a package, channel or file name does not end its code span in
/// the job summary's graph section, and the `-f github` step summary table keeps every
/// catalog string in its cell: the location a code span (a backtick or pipe in the file name
/// included), the message text with no raw HTML, link or image.
#[test]
fn markdown_keeps_catalog_text_in_its_code_span_or_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    let beacon = "``![b](https://e.example/b.png)``";
    named_catalog(
        &cat,
        "f`|![f](x.png)|`` x.yaml",
        &format!("p{beacon}"),
        "c``[phish](https://e.example/login)``",
        "b<img src=https://e.example/h.png>",
        "m<b>**bold**</b>|[x](https://e.example)",
    );
    let (code, md, err) = run(
        &[
            "graph",
            "--no-config",
            "-f",
            "markdown",
            cat.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let prose: String = md
        .split("```mermaid")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once("```\n").map_or("", |p| p.1)
            }
        })
        .flat_map(|part| part.lines().map(outside_code_spans))
        .collect::<Vec<_>>()
        .join("\n");
    for bad in ["![", "](", "<img", "https://"] {
        assert!(!prose.contains(bad), "{bad} outside a code span:\n{md}");
    }
    // Not even inside code or the diagram: nothing a reader could take for a link or image.
    for bad in ["![", "](", "<img", "<b>"] {
        assert!(!md.contains(bad), "{bad} in the graph section:\n{md}");
    }
    assert!(
        decode_refs(&md).contains(&format!("p{beacon}")),
        "the name is shown: {md}"
    );
    let summary = tmp.path().join("summary.md");
    let (code, _, err) = run(
        &["lint", "--no-config", "-f", "github", cat.to_str().unwrap()],
        Some(&summary),
    );
    assert_eq!(code, 1, "{err}");
    let table = std::fs::read_to_string(&summary).unwrap();
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| {
            l.starts_with("| error") || l.starts_with("| warning") || l.starts_with("| info")
        })
        .collect();
    assert!(rows.len() >= 2, "{table}");
    let mut quoted = 0;
    for row in rows {
        let c = cells(row);
        assert_eq!(c.len(), 4, "a cell was split or merged: {row}");
        let loc = c[2].trim();
        if !loc.is_empty() {
            let inner = loc
                .strip_prefix("<code>")
                .and_then(|l| l.strip_suffix("</code>"))
                .unwrap_or_else(|| panic!("location: {row}"));
            assert!(!inner.contains(['`', '<', '[', '!']), "location: {row}");
            assert!(
                decode_refs(inner).contains("f`|![f](x.png)|`` x.yaml:"),
                "the file name is shown: {row}"
            );
        }
        for bad in ['<', '>', '[', ']', '!', '`', '*', '_'] {
            assert!(!c[3].contains(bad), "raw {bad:?} in the message: {row}");
        }
        let shown = decode_refs(&c[3]);
        quoted += usize::from(
            shown.contains("b<img src=https://e.example/h.png>")
                || shown.contains("m<b>**bold**</b>|[x]"),
        );
    }
    assert!(quoted > 0, "the names are quoted, escaped: {table}");
    // As GitHub renders them, the table and the graph section after it.
    assert_rendered_inert(&(table + &md));
}

/// #43: the runner's legacy `##[command]` syntax, which it honours anywhere in a line of a
/// step's output (`##[set-output name=x;]v`, `##[error]`, `##[group]`), never appears in
/// anything olmlint prints, whatever the format; the JSON report still holds the names as
/// they are.
#[test]
fn legacy_workflow_commands_never_reach_a_log() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    let pkg = "p##[set-output name=approved;]true";
    named_catalog(
        &cat,
        "c.yaml",
        pkg,
        "##[group]c",
        "b##[error]fake",
        "m##[add-mask]x",
    );
    for (what, text) in every_output(&cat) {
        assert!(!text.contains("##["), "{what}: {text}");
    }
    for f in ["human", "json"] {
        let c = cat.to_str().unwrap();
        let (_, out, err) = run(&["resolve", pkg, "--catalog", c, "-f", f], None);
        assert!(
            !out.contains("##[") && !err.contains("##["),
            "resolve -f {f}: {out}{err}"
        );
        assert!(
            out.contains("set-output"),
            "resolve -f {f} answered: {out}{err}"
        );
    }
    let (_, json, _) = run(
        &["lint", "--no-config", "-f", "json", cat.to_str().unwrap()],
        None,
    );
    let report: Value = serde_json::from_str(&json).unwrap();
    assert!(
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["package"] == pkg),
        "{json}"
    );
}

/// The characters of a text that XML 1.0 does not allow.
fn not_xml(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            !(matches!(c, '\t' | '\n' | '\r')
                || (' '..='\u{d7ff}').contains(&c)
                || ('\u{e000}'..='\u{fffd}').contains(&c)
                || c >= '\u{10000}')
        })
        .collect()
}

/// #43: bidirectional controls (Trojan Source: text displayed in another order than it is
/// read) are shown as `\u{202e}` escapes in every format; JSON keeps them as data (`\u202e`
/// escapes, decoded by any reader); U+FFFE/U+FFFF, not XML characters, never reach the SVG
/// drawings, the HTML report or JUnit.
#[test]
fn bidi_controls_and_non_characters_are_shown_not_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    let pkg = "p\u{202e}lanigiro\u{202c}";
    let bundle = "b\u{2066}x\u{2069}\u{200f}\u{61c}\u{ffff}\u{fffe}";
    named_catalog(&cat, "c.yaml", pkg, "c\u{202d}", bundle, "m\u{2067}");
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}');
    for (what, text) in every_output(&cat) {
        let found: Vec<char> = text.chars().filter(|&c| bidi(c)).collect();
        assert!(found.is_empty(), "{what}: {found:?} in {text}");
        if ["graph -f svg", "lint -f html", "lint -f junit"].contains(&what.as_str()) {
            assert_eq!(not_xml(&text), Vec::<char>::new(), "{what}: {text}");
        }
    }
    assert!(
        run(
            &[
                "lint",
                "--no-config",
                "-f",
                "human",
                "--color",
                "never",
                cat.to_str().unwrap()
            ],
            None
        )
        .1
        .contains("p\\u{202e}lanigiro\\u{202c}"),
        "shown as escapes"
    );
    let (_, json, _) = run(
        &["graph", "--no-config", "-f", "json", cat.to_str().unwrap()],
        None,
    );
    let graphs: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(graphs[0]["name"], pkg);
    assert_eq!(graphs[0]["channels"][0]["nodes"][0]["name"], bundle);
}

/// #43: the findings table (`lint -f github`) and the graph section (`graph -f markdown`, which
/// the Action appends after it) share one budget under GitHub's 1 MiB: the second measures
/// what the summary already holds. Before, each had 900 kB of its own.
#[test]
fn the_job_summary_fits_one_budget_with_the_graphs() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("catalog")).unwrap();
    std::fs::write(repo.join("catalog/base.yaml"), CATALOG).unwrap();
    common::git(&repo, &["init", "-q"], None);
    common::git(&repo, &["add", "-A"], None);
    common::git(&repo, &["commit", "-qm", "base"], None);
    // 150 new packages with long names: findings quoting them take 840 kB of the table, and
    // their diagrams (each drawn: well under Mermaid's limits) 990 kB.
    for i in 0..150 {
        let long = "x".repeat(1500);
        named_catalog(
            &repo.join("catalog"),
            &format!("p{i}.yaml"),
            &format!("p{i}{long}"),
            "stable",
            &format!("b{i}{long}"),
            &format!("m{i}{long}"),
        );
    }
    let summary = tmp.path().join("summary.md");
    let graphs = tmp.path().join("graphs.md");
    let cwd = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(args)
            .current_dir(&repo)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap()
    };
    let out = cwd(&[
        "lint",
        "--no-config",
        "-q",
        "-f",
        "github",
        "--changed-since",
        "HEAD",
        "catalog",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cwd(&[
        "graph",
        "--no-config",
        "-f",
        "markdown",
        "--changed-since",
        "HEAD",
        "-o",
        graphs.to_str().unwrap(),
        "catalog",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = std::fs::read_to_string(&summary).unwrap();
    let section = std::fs::read_to_string(&graphs).unwrap();
    assert!(section.starts_with("## Upgrade graphs"), "{section}");
    assert!(
        section.contains("more package(s) changed"),
        "the section was cut to fit"
    );
    let total = table.len() + section.len();
    assert!(
        total <= 1_000_000,
        "{} + {} bytes",
        table.len(),
        section.len()
    );
}

/// #43 (review): a pull request's `.olmlint.yaml` may lower olmlint's bounds, and raise one at
/// most 16 times its default, never lift it (a gigabyte file, an endless solver run): a value
/// over the ceiling is an OLM011 finding at the key, which stops the run (exit 2) like every
/// configuration mistake. A link leaving the repository is reported with what to do about a
/// link.
#[test]
fn the_configuration_cannot_lift_the_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    catalog(&repo);
    std::fs::write(
        repo.join(".olmlint.yaml"),
        "limits:\n  max-file-size: 1000000000000000\n  sat-conflicts: 50000\n",
    )
    .unwrap();
    let out = common::olmlint(Some(&repo), ["lint", "-f", "json", "catalog"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let d = common::diagnostics(&out);
    let over: Vec<_> = d
        .iter()
        .filter(|x| x["rule"] == "OLM011" && common::message(x).contains("ceiling"))
        .collect();
    assert_eq!(over.len(), 1, "{d:#?}");
    assert!(
        common::message(over[0]).contains("limits.max-file-size")
            && common::message(over[0]).contains("1073741824"),
        "{over:#?}"
    );
    std::fs::write(
        repo.join(".olmlint.yaml"),
        "limits:\n  max-file-size: 1073741824\n",
    )
    .unwrap();
    let out = common::olmlint(Some(&repo), ["lint", "-f", "json", "catalog"]);
    assert_ne!(out.status.code(), Some(2), "at the ceiling: {out:?}");

    std::os::unix::fs::symlink("/etc", repo.join("catalog/etc")).unwrap();
    let out = common::olmlint(Some(&repo), ["lint", "-f", "json", "catalog"]);
    let d = common::diagnostics(&out);
    let link = d
        .iter()
        .find(|x| x["rule"] == "OLM001" && common::message(x).contains("catalog/etc"))
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert!(
        link["help"]
            .as_str()
            .unwrap()
            .contains("Commit the file itself"),
        "{link:#?}"
    );
}
