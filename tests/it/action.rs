//! The GitHub Action: `action.yml` checked as action metadata, and `scripts/action.sh` run for
//! real with bash the way the composite step runs it (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
//! INPUT_* variables), with OLMLINT_BIN pointing at the binary under test.

use crate::common;

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
        .env("OLMLINT_BIN", env!("CARGO_BIN_EXE_olmlint"))
        // Never the network: a test that downloads names its local server; any other download
        // is refused at once by a closed port on loopback.
        .env("OLMLINT_RELEASES_URL", "http://127.0.0.1:9/releases");
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
    // The runner's temporary directory is outside the checkout, as on GitHub (reports
    // written there are not changed files of the repository).
    let runner = tempfile::tempdir().unwrap();
    // In the new repository, not in this one (whose working tree may hold changes).
    let run = action_in(
        tmp.path(),
        None,
        &[
            ("INPUT_PATHS", "."),
            ("INPUT_ARGS", "--changed-since HEAD"),
            ("INPUT_SARIF_FILE", sarif.to_str().unwrap()),
        ],
        runner.path(),
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
    // The upgrade graph the change drew, after the findings: foo.v2.0.0 added above v1.0.0.
    let graphs = run
        .summary
        .find("## Upgrade graphs changed since HEAD")
        .unwrap_or_else(|| panic!("{}", run.summary));
    let diagram = &run.summary[graphs..];
    assert!(diagram.contains("### `foo` in `catalog`"), "{diagram}");
    assert!(diagram.contains("```mermaid\nflowchart LR\n"), "{diagram}");
    assert!(
        diagram.contains("[\"foo.v2.0.0<br/>added · OLM109\"]"),
        "{diagram}"
    );
    // Opting out: every finding in the changed file; no graphs.
    let mut env = env.to_vec();
    env.push(("INPUT_NEW_FINDINGS_ONLY", "false"));
    env.push(("INPUT_GRAPH_SUMMARY", "false"));
    let run = action_in(&repo, None, &env, tmp.path());
    assert_eq!(run.outputs["errors"], "2");
    assert!(!run.summary.contains("Upgrade graphs"), "{}", run.summary);
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

/// `targets:` passes `--target` for each word: the OLM v1 family runs only when asked.
#[test]
fn targets_input_turns_on_olm_v1() {
    let tmp = tempfile::tempdir().unwrap();
    let v0 = action(None, &[("INPUT_PATHS", "fixtures/olmv1/names")], tmp.path());
    assert_eq!(v0.code, 0, "{}", v0.stdout);
    assert!(!v0.stdout.contains("OLM755"), "{}", v0.stdout);
    let tmp = tempfile::tempdir().unwrap();
    let v1 = action(
        None,
        &[
            ("INPUT_PATHS", "fixtures/olmv1/names"),
            ("INPUT_TARGETS", "v0, olmv1=ocp-4.21"),
        ],
        tmp.path(),
    );
    assert_eq!(v1.code, 1, "{}", v1.stdout);
    assert!(v1.stdout.contains("OLM755"), "{}", v1.stdout);
}

/// A static file server for fake releases on 127.0.0.1 (an ephemeral port): GET and HEAD of the
/// files under its directory, 404 for anything else. It records every request path and stops
/// when dropped. Each connection is closed after one response.
struct Server {
    url: String,
    requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (dir, log, halt) = (dir.to_path_buf(), requests.clone(), stop.clone());
        let handle = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let mut words = head.split_whitespace();
                let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                log.lock().unwrap().push(format!("{method} {path}"));
                let file = dir.join(path.trim_start_matches('/'));
                let body = if path.split('/').any(|c| c == "..") {
                    None
                } else {
                    std::fs::read(&file).ok()
                };
                let response = match &body {
                    Some(b) => format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                        b.len()
                    ),
                    None => "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nNot Found".to_string(),
                };
                let _ = stream.write_all(response.as_bytes());
                if let (Some(b), "GET") = (&body, method) {
                    let _ = stream.write_all(b);
                }
            }
        });
        Server {
            url,
            requests,
            stop,
            handle: Some(handle),
        }
    }

    fn releases(&self) -> String {
        format!("{}/releases", self.url)
    }

    /// The requests so far, forgotten.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.requests.lock().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

const VERSION: &str = env!("CARGO_PKG_VERSION");
const LINUX_X64: &str = "x86_64-unknown-linux-musl";

/// A fake release `dir` (download/v<version>/ and latest/download/ under `root`) holding the
/// archives of `targets`, each packed by scripts/package-release.sh from the binary under test,
/// and the sha256sums.txt of them — with the checksum of the first target replaced by `forged`.
fn fake_release(root: &Path, version: &str, targets: &[&str], forged: Option<&str>) {
    for dir in [format!("download/v{version}"), "latest/download".into()] {
        let dir = root.join("releases").join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut sums = String::new();
        for (i, target) in targets.iter().enumerate() {
            let packaged = packaged(target);
            for name in [
                format!("olmlint-{target}.tar.gz"),
                format!("olmlint-{target}.tar.gz.sha256"),
            ] {
                std::fs::copy(packaged.join(&name), dir.join(&name)).unwrap();
            }
            let line = std::fs::read_to_string(dir.join(format!("olmlint-{target}.tar.gz.sha256")))
                .unwrap();
            match (i, forged) {
                (0, Some(sum)) => {
                    sums.push_str(&format!("{sum}  olmlint-{target}.tar.gz\n"));
                }
                _ => sums.push_str(&line),
            }
        }
        std::fs::write(dir.join("sha256sums.txt"), sums).unwrap();
    }
}

/// The release archive of the binary under test for `target`, made by
/// `scripts/package-release.sh` once per test run (compressing the binary took about a
/// second, four times for each test that served a release): the directory holding it.
fn packaged(target: &str) -> PathBuf {
    static DIRS: std::sync::OnceLock<(tempfile::TempDir, std::sync::Mutex<()>)> =
        std::sync::OnceLock::new();
    let (tmp, lock) = DIRS.get_or_init(|| {
        let tmp = tempfile::Builder::new()
            .prefix("packaged")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        (tmp, std::sync::Mutex::new(()))
    });
    let _one_at_a_time = lock
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tmp.path().join(target);
    if !dir
        .join(format!("olmlint-{target}.tar.gz.sha256"))
        .is_file()
    {
        let out = Command::new("bash")
            .arg(root_path("scripts/package-release.sh"))
            .args([target, env!("CARGO_BIN_EXE_olmlint")])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    dir
}

fn root_path(p: &str) -> PathBuf {
    root().join(p)
}

/// A `cargo` stand-in first on PATH: records its arguments in `<dir>/cargo.log` and "builds"
/// by copying the binary under test to `<--root>/bin/olmlint`.
fn fake_cargo(dir: &Path) -> String {
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" >>'{log}'\nroot=\nwhile [ $# -gt 0 ]; do\n  \
         if [ \"$1\" = --root ]; then root=$2; fi\n  shift\ndone\nmkdir -p \"$root/bin\"\n\
         cp '{olmlint}' \"$root/bin/olmlint\"\n",
        log = dir.join("cargo.log").display(),
        olmlint = env!("CARGO_BIN_EXE_olmlint"),
    );
    let path = bin.join("cargo");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn cargo_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("cargo.log")).unwrap_or_default()
}

/// `prepare` then `install` as action.yml chains them (prepare's outputs become install's
/// environment); returns both runs.
fn prepare_install(env: &[(&str, &str)], tmp: &Path) -> (Run, Run) {
    let p = action(Some("prepare"), env, tmp);
    if p.code != 0 {
        return (p, Run::empty());
    }
    let mut e: Vec<(&str, &str)> = env.to_vec();
    e.push(("OLMLINT_INSTALL_ROOT", &p.outputs["install-root"]));
    e.push(("OLMLINT_INSTALL_MODE", &p.outputs["mode"]));
    e.push(("OLMLINT_INSTALL_VERSION", &p.outputs["version"]));
    e.push(("OLMLINT_INSTALL_TARGET", &p.outputs["target"]));
    let i = action(Some("install"), &e, tmp);
    (p, i)
}

impl Run {
    fn empty() -> Run {
        Run {
            code: -1,
            stdout: String::new(),
            stderr: String::new(),
            outputs: BTreeMap::new(),
            summary: String::new(),
        }
    }
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

struct Download {
    tmp: tempfile::TempDir,
    server: Server,
    path: String,
    releases: String,
    cache: String,
}

impl Download {
    /// A fake release of `version` with archives for `targets` (the first one's checksum
    /// `forged` when given), a server for it, a tool cache and a fake cargo.
    fn new(version: &str, targets: &[&str], forged: Option<&str>) -> Download {
        let tmp = tempfile::tempdir().unwrap();
        let site = tmp.path().join("site");
        fake_release(&site, version, targets, forged);
        let server = Server::start(&site);
        let path = fake_cargo(tmp.path());
        let releases = server.releases();
        let cache = tmp.path().join("toolcache").to_str().unwrap().to_string();
        Download {
            tmp,
            server,
            path,
            releases,
            cache,
        }
    }

    fn env<'a>(&'a self, version: &'a str, os: &'a str, arch: &'a str) -> Vec<(&'a str, &'a str)> {
        vec![
            ("OLMLINT_BIN", ""),
            ("INPUT_VERSION", version),
            ("RUNNER_TOOL_CACHE", &self.cache),
            ("RUNNER_OS", os),
            ("RUNNER_ARCH", arch),
            ("OLMLINT_RELEASES_URL", &self.releases),
            ("PATH", &self.path),
        ]
    }
}

#[test]
fn download_with_the_right_checksum_is_installed_and_cached() {
    if !bash_available() {
        return;
    }
    let d = Download::new(VERSION, &[LINUX_X64, "aarch64-apple-darwin"], None);
    // The default (empty) version is the action's own: its Cargo.toml's.
    for version in ["", VERSION, &format!("v{VERSION}")] {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("toolcache");
        let mut env = d.env(version, "Linux", "X64");
        let cache = cache.to_str().unwrap();
        env[2] = ("RUNNER_TOOL_CACHE", cache);
        let (p, i) = prepare_install(&env, tmp.path());
        assert_eq!(p.code, 0);
        assert_eq!(p.outputs["mode"], "release");
        assert_eq!(p.outputs["version"], VERSION);
        assert_eq!(p.outputs["target"], LINUX_X64);
        assert_eq!(
            p.outputs["cache-key"],
            format!("olmlint-action-Linux-X64-release-{VERSION}")
        );
        assert_eq!(i.code, 0, "{}", i.all());
        assert_eq!(i.outputs["fresh"], "true");
        assert!(i.stderr.contains("verified"), "{}", i.stderr);
        let requests = d.server.take();
        assert!(
            requests.contains(&format!(
                "GET /releases/download/v{VERSION}/olmlint-{LINUX_X64}.tar.gz"
            )),
            "{requests:?}"
        );
        let bin = Path::new(&p.outputs["install-root"]).join("bin/olmlint");
        let out = Command::new(&bin).arg("--version").output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("olmlint {VERSION}")
        );
        assert_eq!(cargo_log(d.tmp.path()), "", "nothing was built");

        // The lint step runs the downloaded binary.
        let mut e = env.clone();
        e.push(("OLMLINT_INSTALL_ROOT", &p.outputs["install-root"]));
        e.push(("INPUT_PATHS", "fixtures/catalogs/broken-graph"));
        let r = action(Some("lint"), &e, tmp.path());
        assert_eq!(r.code, 1);
        assert!(r
            .stdout
            .contains("::error file=fixtures/catalogs/broken-graph/"));

        // Again on the same runner (or after the cache was restored): nothing is downloaded.
        let (_, again) = prepare_install(&env, tmp.path());
        assert_eq!(again.code, 0);
        assert_eq!(again.outputs["fresh"], "false");
        assert!(again.stderr.contains("(cached)"), "{}", again.stderr);
        let requests = d.server.take();
        assert!(
            requests.iter().all(|r| !r.contains(".tar.gz")),
            "{requests:?}"
        );
    }

    // macOS on Apple silicon gets its own archive.
    let tmp = tempfile::tempdir().unwrap();
    let (p, i) = prepare_install(&d.env(VERSION, "macOS", "ARM64"), tmp.path());
    assert_eq!(p.outputs["target"], "aarch64-apple-darwin");
    assert_eq!(i.code, 0, "{}", i.all());
    assert!(d.server.take().contains(&format!(
        "GET /releases/download/v{VERSION}/olmlint-aarch64-apple-darwin.tar.gz"
    )));

    // `latest`: the newest release's archive, not cached.
    let tmp = tempfile::tempdir().unwrap();
    let (p, i) = prepare_install(&d.env("latest", "Linux", "X64"), tmp.path());
    assert_eq!(p.outputs["mode"], "latest");
    assert_eq!(p.outputs["cache-key"], "");
    assert_eq!(i.code, 0, "{}", i.all());
    assert!(d.server.take().contains(&format!(
        "GET /releases/latest/download/olmlint-{LINUX_X64}.tar.gz"
    )));
}

#[test]
fn download_with_a_wrong_checksum_fails_and_never_falls_back() {
    if !bash_available() {
        return;
    }
    let forged = "0".repeat(64);
    let d = Download::new(VERSION, &[LINUX_X64], Some(&forged));
    for version in ["", VERSION] {
        let tmp = tempfile::tempdir().unwrap();
        let (p, i) = prepare_install(&d.env(version, "Linux", "X64"), tmp.path());
        assert_eq!(p.outputs["mode"], "release");
        assert_eq!(i.code, 2, "{}", i.all());
        assert!(
            i.stdout
                .contains("::error title=olmlint::checksum mismatch"),
            "{}",
            i.stdout
        );
        assert!(i.stdout.contains(&forged), "{}", i.stdout);
        assert!(!i.outputs.contains_key("fresh"));
        assert!(!Path::new(&p.outputs["install-root"])
            .join("bin/olmlint")
            .exists());
        assert_eq!(
            cargo_log(d.tmp.path()),
            "",
            "a mismatch never builds instead"
        );
    }
}

#[test]
fn missing_release_or_asset_builds_from_source() {
    if !bash_available() {
        return;
    }
    // The release exists, with no archive for Windows on x64.
    let d = Download::new(VERSION, &[LINUX_X64], None);
    let tmp = tempfile::tempdir().unwrap();
    let (p, i) = prepare_install(&d.env(VERSION, "Windows", "X64"), tmp.path());
    assert_eq!(p.outputs["mode"], "release");
    assert_eq!(p.outputs["target"], "x86_64-pc-windows-msvc");
    assert_eq!(i.code, 0, "{}", i.all());
    assert!(
        i.stdout.contains("::warning title=olmlint::"),
        "{}",
        i.stdout
    );
    assert!(
        i.stdout.contains("olmlint-x86_64-pc-windows-msvc.zip"),
        "{}",
        i.stdout
    );
    // An explicit version builds that crate; the build is not cached as the release.
    assert_eq!(
        cargo_log(d.tmp.path()).trim(),
        format!(
            "install olmlint --version {VERSION} --locked --force --root {}",
            p.outputs["install-root"]
        )
    );
    assert_eq!(i.outputs["fresh"], "false");

    // No such release: decided in prepare, so the build is cached under its own key.
    let tmp = tempfile::tempdir().unwrap();
    let d = Download::new(VERSION, &[LINUX_X64], None);
    let (p, i) = prepare_install(&d.env("9.9.9", "Linux", "X64"), tmp.path());
    assert_eq!(p.outputs["mode"], "crate");
    assert_eq!(
        p.outputs["cache-key"],
        "olmlint-action-Linux-X64-crate-9.9.9"
    );
    assert_eq!(i.code, 0, "{}", i.all());
    assert_eq!(i.outputs["fresh"], "true");
    assert!(cargo_log(d.tmp.path()).starts_with("install olmlint --version 9.9.9 --locked"));
    assert_eq!(
        d.server.take(),
        ["HEAD /releases/download/v9.9.9/sha256sums.txt"]
    );

    // The default version with no release yet (an unreleased commit): the action's checkout.
    let empty = tempfile::tempdir().unwrap();
    let server = Server::start(empty.path());
    let tmp = tempfile::tempdir().unwrap();
    let releases = server.releases();
    let mut env = d.env("", "Linux", "X64");
    env[5] = ("OLMLINT_RELEASES_URL", &releases);
    let (p, i) = prepare_install(&env, tmp.path());
    assert_eq!(p.outputs["mode"], "source");
    assert!(p.outputs["cache-key"].contains("-lock-"), "{:?}", p.outputs);
    assert_eq!(i.code, 0, "{}", i.all());
    let log = cargo_log(d.tmp.path());
    assert!(
        log.lines().last().unwrap().starts_with(&format!(
            "install --path {} --locked --force --root",
            root().display()
        )),
        "{log}"
    );
}

#[test]
fn unsupported_platform_builds_from_source_without_asking_the_server() {
    if !bash_available() {
        return;
    }
    let d = Download::new(VERSION, &[LINUX_X64], None);
    for (os, arch) in [("Linux", "ARM"), ("Windows", "ARM64"), ("FreeBSD", "X64")] {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("toolcache");
        let mut env = d.env("", os, arch);
        env[2] = ("RUNNER_TOOL_CACHE", cache.to_str().unwrap());
        let (p, i) = prepare_install(&env, tmp.path());
        assert_eq!(p.code, 0);
        assert_eq!(p.outputs["mode"], "source", "{os}/{arch}");
        assert_eq!(p.outputs["target"], "");
        assert!(
            p.stderr.contains("no olmlint release archive"),
            "{}",
            p.stderr
        );
        assert_eq!(i.code, 0, "{}", i.all());
        assert_eq!(i.outputs["fresh"], "true");
    }
    assert!(d.server.take().is_empty(), "nothing asked of the server");
    assert_eq!(cargo_log(d.tmp.path()).lines().count(), 3);
    // An explicit version on an unsupported platform: that crate.
    let tmp = tempfile::tempdir().unwrap();
    let (p, i) = prepare_install(&d.env(VERSION, "Linux", "ARM"), tmp.path());
    assert_eq!(p.outputs["mode"], "crate");
    assert_eq!(i.code, 0, "{}", i.all());
    assert!(cargo_log(d.tmp.path())
        .lines()
        .last()
        .unwrap()
        .starts_with(&format!("install olmlint --version {VERSION}")));
}

#[test]
fn prepare_and_install() {
    if !bash_available() {
        return;
    }
    let d = Download::new(VERSION, &[LINUX_X64], None);
    let tmp = tempfile::tempdir().unwrap();
    // `source`: build the checkout; the key names the Cargo.lock hash and is stable.
    let a = action(
        Some("prepare"),
        &d.env("source", "Linux", "X64"),
        tmp.path(),
    );
    assert_eq!(a.code, 0);
    assert_eq!(a.outputs["mode"], "source");
    let key = a.outputs["cache-key"].clone();
    assert!(key.starts_with("olmlint-action-Linux-X64-lock-"), "{key}");
    assert!(key.contains("-src-"), "{key}");
    let b = action(
        Some("prepare"),
        &d.env("source", "Linux", "X64"),
        tmp.path(),
    );
    assert_eq!(b.outputs["cache-key"], key);
    let install_root = a.outputs["install-root"].clone();
    assert!(install_root.starts_with(&d.cache), "{install_root}");
    assert!(d.server.take().is_empty(), "`source` asks no server");

    // Junk is refused before anything runs.
    for bad in ["1.0; echo pwned", "../1.0.0", "main", "1"] {
        let r = action(Some("prepare"), &d.env(bad, "Linux", "X64"), tmp.path());
        assert_eq!(r.code, 2, "{bad}");
    }
    assert!(d.server.take().is_empty());

    // OLMLINT_BIN: nothing to cache or build.
    let o = action(Some("prepare"), &[], tmp.path());
    assert_eq!(o.outputs["cache-key"], "");
    let o = action(Some("install"), &[], tmp.path());
    assert_eq!(o.outputs["fresh"], "false");

    // `source` builds with cargo; a restored cache builds nothing and lint uses it.
    let (_, i) = prepare_install(&d.env("source", "Linux", "X64"), tmp.path());
    assert_eq!(i.code, 0, "{}", i.all());
    assert_eq!(i.outputs["fresh"], "true");
    assert_eq!(cargo_log(d.tmp.path()).lines().count(), 1);
    let (_, i) = prepare_install(&d.env("source", "Linux", "X64"), tmp.path());
    assert_eq!(i.outputs["fresh"], "false");
    assert_eq!(cargo_log(d.tmp.path()).lines().count(), 1, "cached");
    let mut e = d.env("source", "Linux", "X64");
    e.push(("OLMLINT_INSTALL_ROOT", &install_root));
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

/// The README shows the action in a workflow and a fragment, and so do the book's CI chapters:
/// the inputs and outputs they use exist.
#[test]
fn readme_workflow_uses_real_inputs_and_outputs() {
    assert!(
        action_steps_checked("README.md") >= 2,
        "README shows the action in a workflow and a fragment"
    );
    assert!(action_steps_checked("docs/src/ci.md") >= 1);
    assert!(action_steps_checked("docs/src/changed-since.md") >= 1);
}

/// The steps of `doc`'s YAML blocks that use the action, each checked against action.yml's
/// inputs and outputs: how many there are.
fn action_steps_checked(doc: &str) -> usize {
    let readme = std::fs::read_to_string(root().join(doc)).unwrap();
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
                        assert!(inputs.contains_key(k), "{doc} uses unknown input `{k}`");
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
                            assert!(outputs.contains_key(o), "{doc} uses unknown output `{o}`");
                        }
                    }
                }
            }
        }
    }
    checked
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

/// Lines of a stream that the runner would read as a workflow command outside any
/// `::stop-commands::` region: `::command` at the start of a line, or the legacy `##[command]`
/// anywhere in one.
fn live_lines(text: &str) -> Vec<&str> {
    let mut stopped: Option<String> = None;
    let mut live = Vec::new();
    for line in text.lines() {
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
        if line.trim_start().starts_with("::") || line.contains("##[") {
            live.push(line);
        }
    }
    assert!(stopped.is_none(), "stop-commands never resumed:\n{text}");
    live
}

/// #43: when olmlint fails (exit 2) the Action prints what it said with workflow commands
/// stopped, like the report: a broken configuration quoted in the error cannot set an output,
/// add an annotation or stop commands to silence the Action's own error, even in a line
/// without a final newline. (A stand-in olmlint prints the commands: the real one escapes
/// them, and the Action must not depend on it.)
#[test]
fn olmlint_output_on_failure_cannot_issue_workflow_commands() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("olmlint");
    std::fs::write(
        &fake,
        "#!/bin/sh\ncat >&2 <<'EOF'\nerror: the configuration is broken\n::set-output name=errors::0\n::error title=approved::LGTM\nsee ##[set-output name=warnings;]0 and ##[error]fake\n::stop-commands::silenced\nEOF\nprintf '%s' '::add-mask::no newline at the end' >&2\nexit 2\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let run = action(
        Some("lint"),
        &[
            ("INPUT_PATHS", "fixtures/catalogs/valid"),
            ("OLMLINT_BIN", fake.to_str().unwrap()),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        live_lines(&run.stderr),
        Vec::<&str>::new(),
        "{}",
        run.stderr
    );
    let live = live_lines(&run.stdout);
    assert_eq!(live.len(), 3, "{live:#?}");
    assert_eq!(live[..2], ["::group::olmlint output", "::endgroup::"]);
    assert!(
        live[2].starts_with("::error title=olmlint::olmlint exited with code 2"),
        "{live:#?}"
    );
    // What olmlint said is shown (in the log, inert).
    assert!(
        run.stdout.contains("::set-output name=errors::0"),
        "{}",
        run.stdout
    );
    assert!(!run.outputs.contains_key("errors"));
}

/// #43: the `paths` input is never an olmlint option: a pull request's file named
/// `--write-baseline=x.json`, matched by a `*` path, is linted as a path (before, it made the
/// run write a baseline and pass with 0 errors).
#[test]
fn a_file_named_like_an_option_stays_a_path() {
    if !bash_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("catalog")).unwrap();
    std::fs::copy(
        root().join("fixtures/catalogs/broken-graph/catalog.yaml"),
        repo.join("catalog/catalog.yaml"),
    )
    .unwrap();
    std::fs::write(repo.join("--write-baseline=x.json"), "{}\n").unwrap();
    let run = action_in(
        &repo,
        Some("lint"),
        &[("INPUT_PATHS", "*"), ("INPUT_ARGS", "--no-config")],
        tmp.path(),
    );
    assert!(!repo.join("x.json").exists(), "a baseline was written");
    assert_eq!(run.code, 1, "{}", run.stdout);
    let want = json_report(&["fixtures/catalogs/broken-graph"], &["--no-config"]);
    assert!(
        run.outputs["errors"].parse::<u64>().unwrap() >= count(&want, "errors"),
        "{:?}",
        run.outputs
    );
    assert!(
        run.stdout.contains("file=--write-baseline=x.json"),
        "the file is linted: {}",
        run.stdout
    );
}
