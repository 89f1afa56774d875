//! Runs the `olmlint` binary over `fixtures/` and checks every output format.
//! Golden files: `UPDATE_GOLDEN=1 cargo test --test cli` rewrites fixtures/expected/.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn olmlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(args)
        .current_dir(root())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("OLMLINT_FORMAT")
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = olmlint(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn golden_json_per_fixture() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut names: Vec<_> = std::fs::read_dir(root().join("fixtures/catalogs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 6);
    for name in names {
        let path = format!("fixtures/catalogs/{name}");
        let out = olmlint(&["lint", &path, "-f", "json", "-q", "--no-config"]);
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let golden = root().join(format!("fixtures/expected/{name}.json"));
        if update {
            std::fs::write(&golden, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&golden).unwrap()).unwrap();
        assert_eq!(
            got, want,
            "{name}: run with UPDATE_GOLDEN=1 after an intended change"
        );
        let errors = got["summary"]["errors"].as_u64().unwrap();
        assert_eq!(
            out.status.code(),
            Some(if errors > 0 { 1 } else { 0 }),
            "{name} exit code"
        );
    }
}

#[test]
fn json_contract_has_every_field() {
    let v = json(&["lint", "fixtures/catalogs/broken-graph", "-f", "json", "-q"]);
    assert_eq!(v["version"], 1);
    assert_eq!(v["tool"]["name"], "olmlint");
    for k in [
        "files",
        "documents",
        "packages",
        "bundles",
        "errors",
        "warnings",
        "infos",
    ] {
        assert!(v["summary"][k].is_u64(), "summary.{k}");
    }
    let keys = [
        "rule",
        "name",
        "severity",
        "message",
        "help",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "pointer",
        "package",
        "bundle",
        "related",
    ];
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(!diags.is_empty());
    for d in diags {
        for k in keys {
            assert!(d.get(k).is_some(), "missing {k} in {d}");
        }
        assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1);
    }
    // Deterministic order: file, then position.
    let pos: Vec<(String, u64, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = pos.clone();
    sorted.sort();
    assert_eq!(pos, sorted);
}

#[test]
fn sarif_validates_against_the_official_schema() {
    // The official schema's `run.language` pattern has a stray `]` that the regex engine
    // rejects; it does not constrain anything olmlint emits, so repair it before compiling.
    let text = std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap();
    let text = text.replace(
        r#"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"#,
        r#"^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"#,
    );
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for fixture in ["broken-graph", "valid", "json-stream", "syntax"] {
        let out = olmlint(&[
            "lint",
            &format!("fixtures/catalogs/{fixture}"),
            "-f",
            "sarif",
            "-q",
        ]);
        let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&sarif)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{fixture}: {errors:#?}");
        let run = &sarif["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert!(rules
            .iter()
            .all(|r| r["shortDescription"]["text"].is_string()
                && r["fullDescription"]["text"].is_string()
                && r["help"]["text"].as_str().unwrap().contains("https://")));
        for r in run["results"].as_array().unwrap() {
            let loc = &r["locations"][0]["physicalLocation"];
            assert!(
                !loc["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .starts_with('/'),
                "repo-relative URI"
            );
            assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
            assert!(r["partialFingerprints"]["primaryLocationLineHash"].is_string());
            let idx = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[idx]["id"], r["ruleId"]);
        }
    }
}

#[test]
fn github_annotations_are_capped_escaped_and_summarised() {
    let dir = tempfile::tempdir().unwrap();
    // 25 bundles with an invalid image each: 25 errors, more than GitHub shows.
    let mut cat = String::from("---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n");
    for i in 0..25 {
        cat.push_str(&format!("  - name: foo.v1.0.{i}\n"));
        if i > 0 {
            cat.push_str(&format!("    replaces: foo.v1.0.{}\n", i - 1));
        }
    }
    for i in 0..25 {
        cat.push_str(&format!("---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.{i}\nimage: quay.io/Bad,Name:x\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: 1.0.{i}}}\n"));
    }
    std::fs::write(dir.path().join("catalog.yaml"), cat).unwrap();
    let summary = dir.path().join("summary.md");
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", dir.path().to_str().unwrap(), "--no-config"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 10, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("::notice ") && l.contains("15 more finding")),
        "{text}"
    );
    // Property values escape ':' and ','; messages escape newlines.
    let first = errors[0];
    assert!(
        first.contains(",line=") && first.contains("title=OLM104 bundle-invalid"),
        "{first}"
    );
    let (props, msg) = first.split_once("::").unwrap().1.split_once("::").unwrap();
    assert!(!props.contains("Bad,Name"));
    assert!(msg.contains("%0A") && !msg.contains('\n'));
    let md = std::fs::read_to_string(summary).unwrap();
    assert!(
        md.contains("| error |") && md.matches("OLM104").count() >= 25,
        "{md}"
    );
}

#[test]
fn github_escaping() {
    use olmlint::report::github::{escape_data, escape_property};
    assert_eq!(escape_data("a%b\r\nc"), "a%25b%0D%0Ac");
    assert_eq!(escape_property("x:y,z"), "x%3Ay%2Cz");
}

#[test]
fn junit_lists_every_finding() {
    let out = olmlint(&[
        "lint",
        "fixtures/catalogs/broken-graph",
        "-f",
        "junit",
        "-q",
    ]);
    let xml = String::from_utf8(out.stdout).unwrap();
    let v = json(&["lint", "fixtures/catalogs/broken-graph", "-f", "json", "-q"]);
    let n = v["diagnostics"].as_array().unwrap().len();
    assert!(xml.starts_with("<?xml"));
    assert_eq!(xml.matches("<failure ").count(), n);
    assert_eq!(
        xml.matches("<testsuite ").count(),
        xml.matches("</testsuite>").count()
    );
    assert!(!xml.contains("\"fast\"") || xml.contains("&quot;fast&quot;"));
}

#[test]
fn output_file_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("report.sarif");
    let out = olmlint(&[
        "lint",
        "fixtures/catalogs/broken-graph",
        "-f",
        "sarif",
        "-o",
        f.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    // The report is in the file; stderr gets the summary line only, not the findings (#45:
    // the whole human report, 43 kB on community-v4.18, followed it).
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("✖ ") && err.contains(" error(s), "),
        "{err}"
    );
    assert!(!err.contains("error[OLM"), "{err}");
    assert!(err.lines().count() <= 3, "{err}");
    assert!(std::fs::read_to_string(&f).unwrap().contains("\"2.1.0\""));
    assert_eq!(
        olmlint(&["lint", "fixtures/catalogs/valid", "-q"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        olmlint(&[
            "lint",
            "fixtures/catalogs/broken-graph",
            "-q",
            "--fail-on",
            "never"
        ])
        .status
        .code(),
        Some(0)
    );
    assert_eq!(
        olmlint(&[
            "lint",
            "fixtures/catalogs/suppressed",
            "-q",
            "--fail-on",
            "warning"
        ])
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        olmlint(&["lint", "fixtures/catalogs/suppressed", "-q"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(olmlint(&["lint", "--bogus"]).status.code(), Some(2));
    // A missing path is a usage error, not a finding `--fail-on never` could hide.
    assert_eq!(
        olmlint(&["lint", "no/such/path", "-q"]).status.code(),
        Some(2)
    );
    assert_eq!(olmlint(&["explain", "OLM999"]).status.code(), Some(2));
}

/// `-o` writes regular files atomically, refuses a symbolic link to a regular file (it stays
/// a link, its target untouched) and writes straight into a FIFO or device: `-o /dev/null`
/// once renamed a regular file over /dev/null.
#[cfg(unix)]
#[test]
fn output_file_that_is_a_link_or_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, "old").unwrap();
    let link = dir.path().join("latest.json");
    std::os::unix::fs::symlink(&report, &link).unwrap();
    let lint_to = |target: &Path| {
        olmlint(&[
            "lint",
            "fixtures/catalogs/broken-graph",
            "-q",
            "-f",
            "json",
            "-o",
            target.to_str().unwrap(),
        ])
    };
    // Not written through (#43): a committed link could point anywhere on the runner.
    let out = lint_to(&link);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a symbolic link; not written through")
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "old");

    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    assert_eq!(lint_to(&fifo).status.code(), Some(1));
    // Before joining: a reader on a replaced FIFO would wait forever.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(reader.join().unwrap().contains("OLM105"));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 3, "no temporary files left: {leftovers:?}");
}

#[test]
fn rules_and_explain() {
    let out = olmlint(&["rules", "--json"]);
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rules
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == "OLM105" && r["name"] == "channel-graph"));
    let out = olmlint(&["explain", "channel-graph"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("OLM105") && text.contains("Failing example"));
}

#[test]
fn config_levels_ignores_and_its_own_mistakes() {
    let dir = tempfile::tempdir().unwrap();
    let cat = std::fs::read_to_string(root().join("fixtures/catalogs/broken-graph/catalog.yaml"))
        .unwrap();
    std::fs::create_dir_all(dir.path().join("catalog/legacy")).unwrap();
    std::fs::write(dir.path().join("catalog/catalog.yaml"), &cat).unwrap();
    std::fs::write(
        dir.path().join("catalog/legacy/catalog.yaml"),
        cat.replace("name: foo\n", "name: old\n")
            .replace("package: foo", "package: old")
            .replace("packageName: foo", "packageName: old"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "rules:\n  OLM105: warning\n  OLM109: off\n  OLM304: info\nignore:\n  - catalog/legacy/**\npackages:\n  foo:\n    ignore: [OLM102]\n",
    )
    .unwrap();
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["lint", "catalog", "-f", "json", "-q"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            out.status.code(),
            v["diagnostics"].as_array().unwrap().clone(),
        )
    };
    let (_, diags) = run();
    let rules: Vec<&str> = diags.iter().map(|d| d["rule"].as_str().unwrap()).collect();
    assert!(!rules.contains(&"OLM109"), "off");
    assert!(!rules.contains(&"OLM102"), "package ignore");
    assert!(
        diags
            .iter()
            .all(|d| !d["file"].as_str().unwrap_or("").contains("legacy")),
        "path ignore"
    );
    assert!(
        diags
            .iter()
            .any(|d| d["rule"] == "OLM105" && d["severity"] == "warning"),
        "level override"
    );
    // Its own mistakes: the run stops (exit 2) and reports only them.
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "rules:\n  OLM105: warning\n  OLM109: off\n  OLM304: info\n  OLM99: error\nignore:\n  - catalog/legacy/**\npackages:\n  foo:\n    ignore: [OLM102]\nlimits:\n  max-depth: nope\n",
    )
    .unwrap();
    let (code, diags) = run();
    assert_eq!(code, Some(2));
    assert!(diags.iter().all(|d| d["rule"] == "OLM011"), "{diags:#?}");
    let config_errors: Vec<&serde_json::Value> =
        diags.iter().filter(|d| d["rule"] == "OLM011").collect();
    assert!(
        config_errors
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("OLM99")),
        "{config_errors:#?}"
    );
    assert!(config_errors
        .iter()
        .any(|d| d["pointer"] == "/limits/max-depth"
            && d["file"].as_str().unwrap().ends_with(".olmlint.yaml")
            && d["line"] == 12));
}

#[test]
fn lints_bundle_directories() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("bundle");
    std::fs::create_dir_all(b.join("metadata")).unwrap();
    std::fs::create_dir_all(b.join("manifests")).unwrap();
    std::fs::write(b.join("metadata/annotations.yaml"), "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n").unwrap();
    std::fs::write(b.join("metadata/dependencies.yaml"), "dependencies:\n  - type: olm.package\n    value:\n      packageName: bar\n      version: \"^1.0.0\"\n").unwrap();
    std::fs::write(b.join("manifests/foo.clusterserviceversion.yaml"), "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v1.0.0\nspec:\n  version: 1.0.0\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args([
            "lint",
            b.to_str().unwrap(),
            "-f",
            "json",
            "-q",
            "--no-config",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["bundles"], 1);
    let diags = v["diagnostics"].as_array().unwrap();
    // One finding for the range: OLM301, with the bundle tooling's OLM601 folded into it.
    let d = diags
        .iter()
        .find(|d| d["rule"] == "OLM301")
        .unwrap_or_else(|| panic!("{diags:#?}"));
    assert!(d["file"]
        .as_str()
        .unwrap()
        .ends_with("metadata/dependencies.yaml"));
    assert_eq!(d["line"], 5);
    assert!(!diags.iter().any(|d| d["rule"] == "OLM601"), "{diags:#?}");
    assert!(
        d["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "OLM601" && r["line"] == 5),
        "{d:#?}"
    );
}

#[test]
fn walk_honours_indexignore_and_reads_every_extension() {
    let dir = tempfile::tempdir().unwrap();
    let valid =
        std::fs::read_to_string(root().join("fixtures/catalogs/valid/catalog.yaml")).unwrap();
    std::fs::write(dir.path().join("catalog.txt"), &valid).unwrap();
    std::fs::write(
        dir.path().join("README.md"),
        "This directory holds the catalog.\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".hidden")).unwrap();
    std::fs::write(
        dir.path().join(".hidden/x.yaml"),
        "schema: olm.package\nname: Bad_Name\ndefaultChannel: x\n",
    )
    .unwrap();
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                dir.path().to_str().unwrap(),
                "-f",
                "json",
                "-q",
                "--no-config",
            ])
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = run();
    assert_eq!(v["summary"]["bundles"], 2, ".txt files are read");
    let rules: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    assert!(
        rules.contains(&"OLM003".to_string()),
        "README.md fails like in opm: {rules:?}"
    );
    assert!(
        rules.contains(&"OLM101".to_string()),
        "hidden files are not skipped: {rules:?}"
    );
    std::fs::write(
        dir.path().join(".indexignore"),
        "# docs\nREADME.md\n.hidden\n",
    )
    .unwrap();
    let v = run();
    assert_eq!(v["summary"]["errors"], 0, "{v}");
    assert_eq!(Path::new("x").components().count(), 1);
}

#[test]
fn provided_dependencies_count_as_available() {
    let dir = tempfile::tempdir().unwrap();
    let cat = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/example/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n  - type: olm.gvk.required\n    value: {group: cert-manager.io, version: v1, kind: Certificate}\n  - type: olm.package.required\n    value: {packageName: cert-manager, versionRange: '>=1.12.0'}\n";
    std::fs::write(dir.path().join("catalog.yaml"), cat).unwrap();
    let lint_with = |config: bool, extra: &[&str]| {
        let mut args = vec!["lint", dir.path().to_str().unwrap(), "-f", "json", "-q"];
        if !config {
            args.push("--no-config");
        }
        args.extend_from_slice(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(&args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let lint = |config: bool| lint_with(config, &[]);
    // Open world (the default): both dependencies are in no loaded catalog, so they are
    // assumed to come from another catalog: one warning each, the bundle is installable.
    let without = lint(false);
    assert_eq!(without, vec!["OLM507", "OLM507"], "{without:?}");
    // Closed world: errors.
    let closed = lint_with(false, &["--closed-world"]);
    // (the bundle's OLM501 is folded into them: its own dependencies are the cause).
    assert_eq!(closed, vec!["OLM503", "OLM503"], "{closed:?}");
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "provided:\n  packages: [cert-manager]\n  gvks: [cert-manager.io/v1/Certificate]\n",
    )
    .unwrap();
    assert!(lint(true).is_empty(), "{:?}", lint(true));
}

#[test]
fn context_catalogs_supply_candidates_but_are_not_linted() {
    let rules = |args: &[&str]| -> Vec<(String, String)> {
        let mut a = vec!["lint", "fixtures/context/app", "-f", "json", "-q"];
        a.extend_from_slice(args);
        json(&a)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // Alone, bar does not exist: another catalog is assumed to have it (open world), or,
    // with --closed-world, it is an error.
    let alone = rules(&[]);
    assert!(
        alone
            .iter()
            .any(|(r, m)| r == "OLM507" && m.contains("with package: bar")),
        "{alone:?}"
    );
    let alone = rules(&["--closed-world"]);
    assert!(alone
        .iter()
        .any(|(r, m)| r == "OLM503" && m.contains("no package \"bar\"")));
    // Open world with deps-a: bar's Widget is in no loaded catalog, assumed to be elsewhere.
    assert_eq!(rules(&["--context", "fixtures/context/deps-a"]), vec![]);
    // deps-a has bar, but its bar needs the Widget API nobody there provides. deps-a's own
    // problems (an invalid skipRange, its uninstallable bundle) are not reported.
    let a = rules(&["--context", "fixtures/context/deps-a", "--closed-world"]);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0].0, "OLM501");
    assert!(a[0].1.contains("its only candidate is bar.v1.2.0; bar.v1.2.0 requires an operator providing an API with group: example.com, version: v1, kind: Widget"), "{a:?}");
    // With deps-b too, widgets provides Widget: installable, in either order.
    for order in [["deps-a", "deps-b"], ["deps-b", "deps-a"]] {
        let args: Vec<String> = order
            .iter()
            .flat_map(|c| ["--context".to_string(), format!("fixtures/context/{c}")])
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(rules(&args), vec![], "{order:?}");
    }
    let v = json(&[
        "lint",
        "fixtures/context/app",
        "--context",
        "fixtures/context/deps-b",
        "-f",
        "json",
        "-q",
    ]);
    assert_eq!(v["summary"]["files"], 1, "context files are not counted");
    // A context path that does not exist is a usage error.
    let out = olmlint(&[
        "lint",
        "fixtures/context/app",
        "--context",
        "fixtures/context/nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn timeout_reports_what_was_not_checked() {
    let v = json(&[
        "lint",
        "fixtures/catalogs/valid",
        "--timeout",
        "0",
        "-f",
        "json",
        "-q",
    ]);
    let d = &v["diagnostics"].as_array().unwrap()[0];
    assert_eq!(d["rule"], "OLM012");
    // Every family was skipped: "N of N rule families were not run".
    let msg = d["message"].as_str().unwrap();
    let counts: Vec<&str> = msg
        .split_once("timeout: ")
        .map(|(_, rest)| rest.split(' ').collect())
        .unwrap_or_default();
    assert!(
        msg.contains("rule families were not run") && counts.len() > 2 && counts[0] == counts[2],
        "{msg}"
    );
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1);
    let out = olmlint(&["lint", "fixtures/catalogs/valid", "--timeout", "0", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    // A generous timeout changes nothing.
    let out = olmlint(&["lint", "fixtures/catalogs/valid", "--timeout", "600", "-q"]);
    assert_eq!(out.status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly() {
    // `olmlint explain … | true`: the reader is gone before olmlint writes.
    let script = format!(
        "'{}' explain OLM501 | true; '{}' rules | head -1 >/dev/null",
        env!("CARGO_BIN_EXE_olmlint"),
        env!("CARGO_BIN_EXE_olmlint")
    );
    let out = Command::new("sh").arg("-c").arg(script).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("internal error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn target_olmv1_turns_on_olm711() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                "fixtures/context/app",
                "--no-config",
                "-q",
                "-f",
                "json",
            ])
            .args(extra)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .matches("\"OLM711\"")
            .count()
    };
    assert_eq!(run(&[]), 0);
    assert!(run(&["--target", "olmv1"]) > 0);
}

/// JUnit: a finding fails its test case only when it reaches `--fail-on`, as it fails the run;
/// below, the case passes and carries the finding in `<system-out>`. `errors` is always there
/// (Jenkins' schema requires it).
#[test]
fn junit_failures_follow_fail_on() {
    let path = "fixtures/catalogs/coercion";
    let v = json(&["lint", path, "-f", "json", "-q"]);
    let d = v["diagnostics"].as_array().unwrap();
    let errors = d.iter().filter(|x| x["severity"] == "error").count();
    let warnings = d.iter().filter(|x| x["severity"] == "warning").count();
    assert!(errors > 0 && warnings > 0, "{v:#}");
    let junit = |fail_on: &str| {
        let out = olmlint(&["lint", path, "-f", "junit", "-q", "--fail-on", fail_on]);
        String::from_utf8(out.stdout).unwrap()
    };
    let xml = junit("error");
    assert_eq!(xml.matches("<failure ").count(), errors, "{xml}");
    assert_eq!(xml.matches("<system-out>").count(), warnings, "{xml}");
    assert!(
        xml.contains(&format!("failures=\"{errors}\" errors=\"0\"")),
        "{xml}"
    );
    assert_eq!(
        xml.matches("<testsuite ").count(),
        xml.matches("errors=\"0\" skipped=\"0\"").count()
    );
    let xml = junit("warning");
    assert_eq!(xml.matches("<failure ").count(), errors + warnings, "{xml}");
    let xml = junit("never");
    assert_eq!(xml.matches("<failure ").count(), 0, "{xml}");
}

/// SARIF: columns are code points (`columnKind`), and a file outside the working directory
/// gets an absolute `file://` URI without a base id (a relative URI may not climb out of its
/// base with `../`).
#[test]
fn sarif_locations_outside_the_working_directory_are_absolute() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("c.yaml"), "{}\n").unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-f", "sarif", "-q", "../catalog"])
        .current_dir(&work)
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &sarif["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let loc = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    let uri = loc["uri"].as_str().unwrap();
    assert!(uri.starts_with("file:///"), "{loc}");
    assert!(
        uri.ends_with("/catalog/c.yaml") && !uri.contains(".."),
        "{loc}"
    );
    assert!(loc.get("uriBaseId").is_none(), "{loc}");
    // Inside the working directory: relative to %SRCROOT%.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-f", "sarif", "-q", "catalog"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loc =
        &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "catalog/c.yaml");
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
}
