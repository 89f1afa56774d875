//! The GitHub Action: `action.yml` checked as action metadata, and `scripts/action.sh` run for
//! real with bash the way the composite step runs it (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
//! INPUT_* variables), with OLMLINT_BIN pointing at the binary under test.

mod common;

use olmlint::load::tree::{Node, Value};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parse a one-document YAML file with olmlint's own loader, failing on syntax problems and on
/// duplicate keys (GitHub rejects those in action metadata).
fn yaml(path: &Path) -> Json {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = olmlint::load::parse_bytes(
        path.display().to_string(),
        path.to_path_buf(),
        olmlint::load::Role::Fbc,
        bytes,
        &olmlint::load::Limits::default(),
    );
    assert!(
        file.problems.is_empty(),
        "{}: {:?}",
        path.display(),
        file.problems
    );
    assert_eq!(file.docs.len(), 1, "{}: one document", path.display());
    let node: &Node = file.docs[0].root.as_ref().expect("a document");
    node.walk(|n| {
        if let Value::Map(entries) = &n.value {
            let mut seen = BTreeSet::new();
            for e in entries {
                assert!(
                    seen.insert(&*e.key),
                    "{}: duplicate key `{}`",
                    path.display(),
                    e.key
                );
            }
        }
    });
    node.to_json().expect("JSON")
}

fn bash_available() -> bool {
    let ok = Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: bash is not installed; scripts/action.sh cannot be run");
    }
    ok
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    outputs: BTreeMap<String, String>,
    summary: String,
}

/// Run `bash scripts/action.sh [cmd]` as the composite step does, in the repo root.
fn action(cmd: Option<&str>, env: &[(&str, &str)], tmp: &Path) -> Run {
    action_in(&root(), cmd, env, tmp)
}

/// `action` with `cwd` as the working directory (the checked-out repository of a job).
fn action_in(cwd: &Path, cmd: Option<&str>, env: &[(&str, &str)], tmp: &Path) -> Run {
    let output = tmp.join("github_output");
    let summary = tmp.join("step_summary");
    std::fs::write(&output, "").unwrap();
    std::fs::write(&summary, "").unwrap();
    let mut c = Command::new("bash");
    c.arg(root().join("scripts/action.sh"));
    if let Some(cmd) = cmd {
        c.arg(cmd);
    }
    // Nothing from the environment the tests run in (which may itself be a GitHub job).
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if ["GITHUB_", "INPUT_", "OLMLINT_", "RUNNER_"]
            .iter()
            .any(|p| k.starts_with(p))
        {
            c.env_remove(&*k);
        }
    }
    c.current_dir(cwd)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_ACTION_PATH", root())
        .env("RUNNER_TEMP", tmp)
        .env("OLMLINT_BIN", env!("CARGO_BIN_EXE_olmlint"));
    for (k, v) in env {
        if v.is_empty() && k.starts_with("OLMLINT_") {
            c.env_remove(k);
        } else {
            c.env(k, v);
        }
    }
    let out = c.output().expect("run bash");
    let outputs = std::fs::read_to_string(&output)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        outputs,
        summary: std::fs::read_to_string(&summary).unwrap(),
    };
    eprintln!(
        "--- action.sh {cmd:?} {env:?}: exit {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    );
    run
}

/// What olmlint itself reports, as the expectation (not hard-coded counts).
fn json_report(paths: &[&str], extra: &[&str]) -> Json {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .arg("lint")
        .args(paths)
        .args(["-f", "json", "-q"])
        .args(extra)
        .current_dir(root())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("OLMLINT_FORMAT")
        .env_remove("OLMLINT_CONFIG")
        .env_remove("OLMLINT_FAIL_ON")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn count(report: &Json, key: &str) -> u64 {
    report["summary"][key].as_u64().unwrap()
}

fn rules_of(report: &Json, severity: &str) -> BTreeSet<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == severity)
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

/// The `title=` of an annotation line, e.g. `OLM301 range-invalid`.
fn title(line: &str) -> &str {
    let props = line.split("::").nth(1).unwrap_or("");
    props
        .split(',')
        .find_map(|p| p.strip_prefix("title="))
        .unwrap_or("")
}

/// Annotation lines that the runner would process: outside `::stop-commands::` regions.
fn live_commands(stdout: &str) -> Vec<&str> {
    let mut stopped: Option<String> = None;
    let mut live = Vec::new();
    for line in stdout.lines() {
        if let Some(token) = &stopped {
            if line == format!("::{token}::") {
                stopped = None;
            }
            continue;
        }
        if let Some(t) = line.strip_prefix("::stop-commands::") {
            stopped = Some(t.to_string());
            continue;
        }
        if line.starts_with("::") {
            live.push(line);
        }
    }
    assert!(stopped.is_none(), "stop-commands never resumed");
    live
}

#[test]
fn broken_catalog_annotations_outputs_summary_and_sarif() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sarif = tmp.path().join("reports/olmlint.sarif");
    let sarif_s = sarif.to_str().unwrap();
    let paths = "fixtures/catalogs/broken-graph";
    let run = action(
        None,
        &[("INPUT_PATHS", paths), ("INPUT_SARIF_FILE", sarif_s)],
        tmp.path(),
    );
    let want = json_report(&[paths], &[]);
    let errors = count(&want, "errors");
    assert!(errors > 0, "the fixture has errors");
    let error_rules = rules_of(&want, "error");
    for known in ["OLM301", "OLM104"] {
        assert!(error_rules.contains(known), "{known} in {error_rules:?}");
    }

    assert_eq!(run.code, 1, "findings at or above fail-on=error");

    // Annotations: one per error (GitHub shows 10), with file, line and a rule title.
    let live = live_commands(&run.stdout);
    let annotations: Vec<&str> = live
        .iter()
        .copied()
        .filter(|l| l.starts_with("::error file="))
        .collect();
    assert_eq!(annotations.len() as u64, errors.min(10));
    for a in &annotations {
        assert!(
            a.starts_with("::error file=fixtures/catalogs/broken-graph/catalog.yaml,line="),
            "{a}"
        );
        let t = title(a);
        assert!(t.starts_with("OLM") && t.len() > 7, "title `{t}` in {a}");
    }
    let titled: BTreeSet<String> = annotations
        .iter()
        .map(|a| title(a).split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(titled, error_rules);
    assert!(
        !run.stdout.contains("::warning title=olmlint"),
        "no context input, no warning"
    );

    // The full human report is in the log, with workflow commands stopped around it.
    assert!(run.stdout.contains("::group::olmlint report"));
    assert!(run.stdout.contains("error[OLM301]"));
    assert!(!live.iter().any(|l| l.contains("error[OLM")));

    // Step outputs.
    assert_eq!(run.outputs["errors"], errors.to_string());
    assert_eq!(
        run.outputs["warnings"],
        count(&want, "warnings").to_string()
    );
    assert_eq!(run.outputs["sarif-file"], sarif_s);

    // Step summary: headline and one table row per finding, appended once.
    assert_eq!(run.summary.matches("## olmlint").count(), 1);
    assert!(run.summary.contains(&format!("{errors} error(s)")));
    assert!(run
        .summary
        .contains("| Severity | Rule | Location | Message |"));
    let rows = run
        .summary
        .lines()
        .filter(|l| l.starts_with("| error |") || l.starts_with("| warning |"))
        .count();
    assert_eq!(
        rows as u64,
        count(&want, "errors") + count(&want, "warnings")
    );
    for r in &error_rules {
        assert!(run.summary.contains(&format!("[{r}](")), "{r} in summary");
    }

    // SARIF for upload-sarif.
    let log: Json = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif"));
    assert_eq!(log["runs"][0]["tool"]["driver"]["name"], "olmlint");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), want["diagnostics"].as_array().unwrap().len());
    let sarif_rules: BTreeSet<String> = results
        .iter()
        .filter(|r| r["level"] == "error")
        .map(|r| r["ruleId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sarif_rules, error_rules);
}

#[test]
fn valid_catalog_passes() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = action(
        Some("lint"),
        &[("INPUT_PATHS", "fixtures/catalogs/valid")],
        tmp.path(),
    );
    assert_eq!(run.code, 0);
    assert!(!run.stdout.contains("::error"), "{}", run.stdout);
    assert!(!run.stdout.contains("::warning"), "{}", run.stdout);
    assert_eq!(run.outputs["errors"], "0");
    assert_eq!(run.outputs["warnings"], "0");
    assert_eq!(run.outputs["sarif-file"], "");
    assert!(run.summary.contains("## olmlint"));
    assert!(run.summary.contains("0 error(s)"));
    assert!(!tmp.path().join("olmlint.sarif").exists());
}

#[test]
fn fail_on_never_reports_but_passes() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/catalogs/broken-graph"),
            ("INPUT_FAIL_ON", "never"),
        ],
        tmp.path(),
    );
    let want = json_report(&["fixtures/catalogs/broken-graph"], &[]);
    assert_eq!(run.code, 0);
    assert_eq!(run.outputs["errors"], count(&want, "errors").to_string());
    assert!(run
        .stdout
        .contains("::error file=fixtures/catalogs/broken-graph/"));
}

#[test]
fn several_paths_and_extra_args() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Newline- and space-separated paths, a glob, and extra arguments passed through.
    let paths = "fixtures/catalogs/valid\n  fixtures/catalogs/broken-g*  \n";
    let run = action(
        None,
        &[
            ("INPUT_PATHS", paths),
            ("INPUT_ARGS", "--disable OLM501  -q"),
        ],
        tmp.path(),
    );
    let want = json_report(
        &["fixtures/catalogs/valid", "fixtures/catalogs/broken-graph"],
        &["--disable", "OLM501"],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.outputs["errors"], count(&want, "errors").to_string());
    assert!(!rules_of(&want, "error").contains("OLM501"));
    assert!(!run.stdout.contains("title=OLM501"));
    assert!(run.stdout.contains("title=OLM301"));
}

#[test]
fn usage_errors_exit_2() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/catalogs/valid"),
            ("INPUT_FAIL_ON", "sometimes"),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stdout.contains("::error title=olmlint::"),
        "{}",
        run.stdout
    );
    assert!(!run.outputs.contains_key("errors"));

    let run = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/catalogs/valid"),
            ("INPUT_CONFIG", "does-not-exist.yaml"),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 2);

    let run = action(None, &[("OLMLINT_BIN", "/nonexistent/olmlint")], tmp.path());
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("::error title=olmlint::OLMLINT_BIN"));

    let run = action(Some("frobnicate"), &[], tmp.path());
    assert_eq!(run.code, 2);
}

#[test]
fn nothing_to_lint_still_writes_outputs_and_sarif() {
    if !bash_available() {
        return;
    }
    // `--changed-since` with nothing changed: olmlint stops before writing any report.
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["init", "-q"][..],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "base",
        ][..],
    ] {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
    let sarif = tmp.path().join("empty.sarif");
    // In the new repository, not in this one (whose working tree may hold changes).
    let run = action_in(
        tmp.path(),
        None,
        &[
            ("INPUT_PATHS", "."),
            ("INPUT_ARGS", "--changed-since HEAD"),
            ("INPUT_SARIF_FILE", sarif.to_str().unwrap()),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.outputs["errors"], "0");
    assert_eq!(run.outputs["warnings"], "0");
    let log: Json = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    assert!(run.summary.contains("Nothing to lint"));
}

/// A simulated pull request: the base commit has a catalog with an old mistake; the change
/// adds a bundle above it (every old line moves) with a new mistake. By default the action
/// reports and fails on the new one only, and says how many old ones it left out.
#[test]
fn pull_request_reports_only_new_findings() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let old = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n    skipRange: '^0.8'\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n";
    std::fs::create_dir_all(repo.join("catalog/foo")).unwrap();
    std::fs::write(repo.join("catalog/foo/catalog.yaml"), old).unwrap();
    common::git(&repo, &["init", "-q"], None);
    common::git(&repo, &["add", "-A"], None);
    common::git(&repo, &["commit", "-qm", "base"], None);
    let new = old
        .replace(
            "entries:\n",
            "entries:\n  - name: foo.v2.0.0\n    replaces: foo.v1.0.0\n    skipRange: '^0.9'\n",
        )
        .replacen(
            "---\nschema: olm.bundle\n",
            "---\nschema: olm.bundle\npackage: foo\nname: foo.v2.0.0\nimage: quay.io/x/foo:v2\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 2.0.0}\n---\nschema: olm.bundle\n",
            1,
        );
    std::fs::write(repo.join("catalog/foo/catalog.yaml"), new).unwrap();
    let env = [
        ("INPUT_PATHS", "catalog"),
        ("INPUT_ARGS", "--changed-since HEAD --no-config"),
    ];
    let run = action_in(&repo, None, &env, tmp.path());
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.outputs["errors"], "1");
    let annotations: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error file="))
        .collect();
    assert_eq!(annotations.len(), 1, "{annotations:#?}");
    assert!(annotations[0].contains("^0.9"), "{annotations:#?}");
    assert!(
        run.summary
            .contains("not reported: 1 already there before the change"),
        "{}",
        run.summary
    );
    // Opting out: every finding in the changed file.
    let mut env = env.to_vec();
    env.push(("INPUT_NEW_FINDINGS_ONLY", "false"));
    let run = action_in(&repo, None, &env, tmp.path());
    assert_eq!(run.outputs["errors"], "2");
}

#[test]
fn context_input_is_honest() {
    if !bash_available() {
        return;
    }
    let help = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--help"])
        .output()
        .unwrap();
    let supported = String::from_utf8_lossy(&help.stdout).contains("--context");
    assert!(supported, "this olmlint has --context");
    // fixtures/context/app needs bar, which only the context catalogs hold: alone, in the
    // closed world, that is an error.
    let tmp = tempfile::tempdir().unwrap();
    let alone = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/context/app"),
            ("INPUT_ARGS", "--closed-world"),
        ],
        tmp.path(),
    );
    assert_eq!(alone.code, 1, "{}", alone.stdout);
    let tmp = tempfile::tempdir().unwrap();
    let run = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/context/app"),
            (
                "INPUT_CONTEXT",
                "fixtures/context/deps-a\nfixtures/context/deps-b",
            ),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!run.stdout.contains("the context input was not used"));
}

#[test]
fn prepare_and_install() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let tool_cache = tmp.path().join("toolcache");
    let tc = tool_cache.to_str().unwrap();
    let env = |version: &'static str| {
        vec![
            ("OLMLINT_BIN", ""),
            ("INPUT_VERSION", version),
            ("RUNNER_TOOL_CACHE", tc),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
        ]
    };
    // Default: build the checkout; the key names the Cargo.lock hash and is stable.
    let a = action(Some("prepare"), &env(""), tmp.path());
    assert_eq!(a.code, 0);
    let key = a.outputs["cache-key"].clone();
    assert!(key.starts_with("olmlint-action-Linux-X64-lock-"), "{key}");
    assert!(key.contains("-src-"), "{key}");
    let b = action(Some("prepare"), &env(""), tmp.path());
    assert_eq!(b.outputs["cache-key"], key);
    let install_root = a.outputs["install-root"].clone();
    assert!(install_root.starts_with(tc), "{install_root}");

    // A crates.io version: its own key; `latest` is not cached; junk is refused.
    let v = action(Some("prepare"), &env("1.2.3"), tmp.path());
    assert_eq!(
        v.outputs["cache-key"],
        "olmlint-action-Linux-X64-crate-1.2.3"
    );
    let l = action(Some("prepare"), &env("latest"), tmp.path());
    assert_eq!(l.outputs["cache-key"], "");
    let bad = action(Some("prepare"), &env("1.0; echo pwned"), tmp.path());
    assert_eq!(bad.code, 2);

    // OLMLINT_BIN: nothing to cache or build.
    let o = action(Some("prepare"), &[], tmp.path());
    assert_eq!(o.outputs["cache-key"], "");
    let o = action(Some("install"), &[], tmp.path());
    assert_eq!(o.outputs["built"], "false");

    // A restored cache: install finds bin/olmlint and builds nothing; lint uses it.
    let bin = Path::new(&install_root).join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_olmlint"), bin.join("olmlint")).unwrap();
    let mut e = env("");
    e.push(("OLMLINT_INSTALL_ROOT", &install_root));
    let i = action(Some("install"), &e, tmp.path());
    assert_eq!(i.code, 0);
    assert_eq!(i.outputs["built"], "false");
    e.push(("INPUT_PATHS", "fixtures/catalogs/broken-graph"));
    let r = action(Some("lint"), &e, tmp.path());
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("::error file=fixtures/catalogs/broken-graph/"));
}

/// `${{ <expr> }}` references of the form `<prefix>.<name>` in a string.
fn refs<'a>(s: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(prefix) {
        let after = &rest[i + prefix.len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(after.len());
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

fn strings(v: &Json, out: &mut Vec<String>) {
    match v {
        Json::String(s) => out.push(s.clone()),
        Json::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Json::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn action_metadata_is_complete() {
    let meta = yaml(&root().join("action.yml"));
    for key in ["name", "description"] {
        let s = meta[key].as_str().unwrap_or("");
        assert!(!s.trim().is_empty(), "`{key}` is required");
    }
    assert_eq!(meta["runs"]["using"], "composite");

    let inputs = meta["inputs"].as_object().expect("inputs");
    for (name, input) in inputs {
        let d = input["description"].as_str().unwrap_or("");
        assert!(!d.trim().is_empty(), "input `{name}` needs a description");
        assert!(
            input.get("default").is_none_or(Json::is_string),
            "input `{name}`: defaults are strings"
        );
    }
    for name in [
        "paths",
        "config",
        "context",
        "fail-on",
        "sarif-file",
        "version",
        "args",
    ] {
        assert!(inputs.contains_key(name), "input `{name}`");
    }
    assert_eq!(inputs["paths"]["default"], ".");
    assert_eq!(inputs["fail-on"]["default"], "error");

    let steps = meta["runs"]["steps"].as_array().expect("runs.steps");
    assert!(!steps.is_empty());
    let mut ids: Vec<&str> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let run = step.get("run");
        let uses = step.get("uses");
        assert!(
            run.is_some() != uses.is_some(),
            "step {i}: exactly one of run/uses"
        );
        if let Some(run) = run {
            // Composite run steps must name their shell; bash exists on every hosted runner.
            assert_eq!(step["shell"], "bash", "step {i}: shell");
            let run = run.as_str().unwrap();
            assert!(
                run.contains("\"$GITHUB_ACTION_PATH/scripts/action.sh\""),
                "step {i} calls the script through the quoted env var (Windows paths): {run}"
            );
            assert!(!run.contains("${{"), "step {i}: no expressions in scripts");
        }
        if let Some(uses) = uses {
            let uses = uses.as_str().unwrap();
            assert!(uses.contains('@'), "step {i}: `{uses}` must be pinned");
        }
        // Every steps.<id> reference names an earlier step.
        let mut texts = Vec::new();
        strings(step, &mut texts);
        for t in &texts {
            for r in refs(t, "steps.") {
                assert!(
                    ids.contains(&r),
                    "step {i} refers to unknown or later step `{r}`"
                );
            }
            for r in refs(t, "inputs.") {
                assert!(
                    inputs.contains_key(r),
                    "step {i} refers to unknown input `{r}`"
                );
            }
        }
        if let Some(id) = step["id"].as_str() {
            assert!(!ids.contains(&id), "duplicate step id `{id}`");
            ids.push(id);
        }
    }

    let outputs = meta["outputs"].as_object().expect("outputs");
    for name in ["errors", "warnings", "sarif-file"] {
        let o = &outputs[name];
        assert!(
            !o["description"].as_str().unwrap_or("").is_empty(),
            "{name}"
        );
        let value = o["value"].as_str().unwrap_or("");
        assert_eq!(
            value,
            format!("${{{{ steps.lint.outputs.{name} }}}}"),
            "output `{name}` value"
        );
    }
    assert!(ids.contains(&"lint"));
}

#[test]
fn script_inputs_are_declared_and_wired() {
    let meta = yaml(&root().join("action.yml"));
    let inputs = meta["inputs"].as_object().unwrap();
    let script = std::fs::read_to_string(root().join("scripts/action.sh")).unwrap();
    assert!(
        !script.contains('\r'),
        "scripts/action.sh must have LF line endings"
    );
    // INPUT_FOO_BAR in the script ⇔ input `foo-bar`, mapped in some step's env.
    let used: BTreeSet<&str> = refs(&script, "INPUT_")
        .into_iter()
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    assert!(used.len() >= 7, "{used:?}");
    let mut wired: BTreeMap<String, String> = BTreeMap::new();
    for step in meta["runs"]["steps"].as_array().unwrap() {
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                wired.insert(k.clone(), v.as_str().unwrap_or("").to_string());
            }
        }
    }
    for var in &used {
        let input = var.to_ascii_lowercase().replace('_', "-");
        assert!(
            inputs.contains_key(&input),
            "the script reads {var} but action.yml has no input `{input}`"
        );
        assert_eq!(
            wired.get(&format!("INPUT_{var}")).map(String::as_str),
            Some(format!("${{{{ inputs.{input} }}}}").as_str()),
            "INPUT_{var} must be mapped from inputs.{input}"
        );
    }
    for input in inputs.keys() {
        let var = input.to_ascii_uppercase().replace('-', "_");
        assert!(
            used.contains(var.as_str()),
            "input `{input}` is never read by the script (INPUT_{var})"
        );
    }
}

#[test]
fn readme_workflow_uses_real_inputs_and_outputs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let meta = yaml(&root().join("action.yml"));
    let inputs = meta["inputs"].as_object().unwrap();
    let outputs = meta["outputs"].as_object().unwrap();
    let mut checked = 0;
    for block in readme.split("```yaml\n").skip(1) {
        let block = block.split("```").next().unwrap();
        if !block.contains("uses: olmlint/olmlint@") {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("workflow.yml");
        std::fs::write(&path, block).unwrap();
        let wf = yaml(&path);
        // A whole workflow, or a fragment that is a list of steps.
        let step_lists: Vec<&Json> = match wf.as_array() {
            Some(_) => vec![&wf],
            None => wf["jobs"]
                .as_object()
                .expect("jobs")
                .values()
                .map(|j| &j["steps"])
                .collect(),
        };
        for steps in step_lists {
            let mut olmlint_ids = Vec::new();
            for step in steps.as_array().expect("steps") {
                let uses = step["uses"].as_str().unwrap_or("");
                if uses.starts_with("olmlint/olmlint@") {
                    checked += 1;
                    for k in step["with"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, _)| k)
                    {
                        assert!(inputs.contains_key(k), "README uses unknown input `{k}`");
                    }
                    if let Some(id) = step["id"].as_str() {
                        olmlint_ids.push(id.to_string());
                    }
                }
                let mut texts = Vec::new();
                strings(step, &mut texts);
                for t in texts {
                    for id in &olmlint_ids {
                        for o in refs(&t, &format!("steps.{id}.outputs.")) {
                            assert!(outputs.contains_key(o), "README uses unknown output `{o}`");
                        }
                    }
                }
            }
        }
    }
    assert!(
        checked >= 2,
        "README shows the action in a workflow and a fragment"
    );
}

/// Evaluate the `${{ … }}` expressions action.yml uses: `inputs.X` and `steps.ID.outputs.K`.
fn eval_value(
    expr: &str,
    inputs: &BTreeMap<String, String>,
    steps: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let expr = expr.trim();
    if let Some(name) = expr.strip_prefix("inputs.") {
        return inputs.get(name).cloned().unwrap_or_default();
    }
    if let Some(rest) = expr.strip_prefix("steps.") {
        let (id, key) = rest.split_once(".outputs.").expect(expr);
        return steps
            .get(id)
            .and_then(|o| o.get(key))
            .cloned()
            .unwrap_or_default();
    }
    panic!("unsupported expression `{expr}` in action.yml");
}

fn interpolate(
    s: &str,
    inputs: &BTreeMap<String, String>,
    steps: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").expect("closing }}") + i;
        out.push_str(&eval_value(&rest[i + 3..end], inputs, steps));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// `a != ''`, `a == 'true'`, joined with `&&`: the only conditions action.yml may use.
fn eval_if(
    cond: &str,
    inputs: &BTreeMap<String, String>,
    steps: &BTreeMap<String, BTreeMap<String, String>>,
) -> bool {
    cond.split("&&").all(|term| {
        let (lhs, op, rhs) = if let Some((l, r)) = term.split_once("!=") {
            (l, "!=", r)
        } else if let Some((l, r)) = term.split_once("==") {
            (l, "==", r)
        } else {
            panic!("unsupported condition `{term}`")
        };
        let rhs = rhs.trim().trim_matches('\'');
        let lhs = eval_value(lhs, inputs, steps);
        (lhs == rhs) == (op == "==")
    })
}

#[test]
fn composite_steps_run_in_order_like_the_runner() {
    if !bash_available() {
        return;
    }
    let meta = yaml(&root().join("action.yml"));
    let tmp = tempfile::tempdir().unwrap();
    let sarif = tmp.path().join("olmlint.sarif");
    // `with:` of a workflow step, over the declared defaults.
    let mut inputs: BTreeMap<String, String> = meta["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["default"].as_str().unwrap_or("").to_string()))
        .collect();
    inputs.insert("paths".into(), "fixtures/catalogs/broken-graph".into());
    inputs.insert("sarif-file".into(), sarif.to_str().unwrap().into());
    let tool_cache = tmp.path().join("toolcache");
    let mut steps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut ran = Vec::new();
    let mut lint_code = None;
    for step in meta["runs"]["steps"].as_array().unwrap() {
        let id = step["id"].as_str().unwrap_or("").to_string();
        if let Some(cond) = step["if"].as_str() {
            if !eval_if(cond, &inputs, &steps) {
                continue;
            }
        }
        ran.push(id.clone());
        let Some(run) = step["run"].as_str() else {
            // actions/cache: a miss; the "restored" binary is put in place below.
            steps.insert(id, BTreeMap::from([("cache-hit".into(), "false".into())]));
            continue;
        };
        if id == "install" {
            // As if the cache had been restored: the build is skipped.
            let bin = Path::new(&steps["prepare"]["install-root"]).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::copy(env!("CARGO_BIN_EXE_olmlint"), bin.join("olmlint")).unwrap();
        }
        let mut env: Vec<(String, String)> = vec![
            ("OLMLINT_BIN".into(), String::new()),
            (
                "RUNNER_TOOL_CACHE".into(),
                tool_cache.to_str().unwrap().into(),
            ),
            ("RUNNER_OS".into(), "Linux".into()),
            ("RUNNER_ARCH".into(), "X64".into()),
        ];
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            env.push((k.clone(), interpolate(v.as_str().unwrap(), &inputs, &steps)));
        }
        let cmd = interpolate(run, &inputs, &steps);
        let cmd = cmd
            .strip_prefix("bash \"$GITHUB_ACTION_PATH/scripts/action.sh\" ")
            .expect(run);
        let env_ref: Vec<(&str, &str)> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let r = action(Some(cmd), &env_ref, tmp.path());
        if id == "lint" {
            lint_code = Some(r.code);
            assert!(r
                .stdout
                .contains("::error file=fixtures/catalogs/broken-graph/"));
        } else {
            assert_eq!(r.code, 0, "step {id}");
        }
        steps.insert(id, r.outputs);
    }
    // Restored from the cache, so nothing was built and nothing is saved.
    assert_eq!(ran, ["prepare", "restore", "install", "lint"]);
    assert_eq!(lint_code, Some(1));
    let want = json_report(&["fixtures/catalogs/broken-graph"], &[]);
    let outputs = meta["outputs"].as_object().unwrap();
    let out = |name: &str| interpolate(outputs[name]["value"].as_str().unwrap(), &inputs, &steps);
    assert_eq!(out("errors"), count(&want, "errors").to_string());
    assert_eq!(out("warnings"), count(&want, "warnings").to_string());
    assert_eq!(out("sarif-file"), sarif.to_str().unwrap());
    assert!(sarif.exists());
}
