//! `--target olmv1` on file-based catalogs: the targets (`--target`, `targets:` in
//! `.olmlint.yaml`, `--olmv1-feature-gates`) and the catalog rules of the OLM v1 family,
//! through the binary.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/olmv1")
        .join(name)
}

fn run(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "-q", "-f", "json"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap()
}

fn rules(out: &Output) -> Vec<String> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn targets_choose_the_rule_families() {
    let dir = fixture("dependency");
    // OLM v0 alone (the default): the missing dependency is assumed to be in another catalog.
    let v0 = rules(&run(&["--no-config"], &dir));
    assert_eq!(v0, ["OLM507"]);
    // OLM v1 alone: no dependency resolution at all, so OLM507 is moot; OLM v1 refuses it.
    let v1 = rules(&run(&["--no-config", "--target", "olmv1"], &dir));
    assert_eq!(v1, ["OLM711"]);
    // Both, comma-separated or repeated.
    for args in [
        &["--no-config", "--target", "v0,olmv1"][..],
        &[
            "--no-config",
            "--target",
            "v0",
            "--target",
            "olmv1=ocp-4.21",
        ],
    ] {
        let mut both = rules(&run(args, &dir));
        both.sort();
        assert_eq!(both, ["OLM507", "OLM711"], "{args:?}");
    }
}

#[test]
fn targets_from_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("dependency/catalog.yaml"),
        tmp.path().join("catalog.yaml"),
    )
    .unwrap();
    let cfg = tmp.path().join(".olmlint.yaml");
    std::fs::write(&cfg, "targets: [olmv1=ocp-4.20]\n").unwrap();
    assert_eq!(rules(&run(&[], tmp.path())), ["OLM711"]);
    std::fs::write(&cfg, "targets: v0,olmv1\n").unwrap();
    let mut both = rules(&run(&[], tmp.path()));
    both.sort();
    assert_eq!(both, ["OLM507", "OLM711"]);
    // --target wins over the configuration.
    assert_eq!(rules(&run(&["--target", "v0"], tmp.path())), ["OLM507"]);
    // Mistakes are OLM011 (exit 2): an unknown target or profile, gates without olmv1.
    for (text, says) in [
        ("targets: [olmv2]\n", "unknown target \\\"olmv2\\\""),
        ("targets: [olmv1=ocp-4.10]\n", "unknown OLM v1 profile"),
        (
            "olmv1-feature-gates: {SingleOwnNamespaceInstallSupport: true}\n",
            "does not name olmv1",
        ),
        (
            "targets: [olmv1]\nolmv1-feature-gates: {Nope: true}\n",
            "unknown configuration key `Nope`",
        ),
    ] {
        std::fs::write(&cfg, text).unwrap();
        let out = run(&[], tmp.path());
        assert_eq!(out.status.code(), Some(2), "{text}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("OLM011") && stdout.contains(says),
            "{text}: {stdout}"
        );
    }
}

#[test]
fn target_usage_errors() {
    let dir = fixture("dependency");
    for (args, says) in [
        (
            &["--target", "olmv1=nope"][..],
            "unknown OLM v1 profile \"nope\"",
        ),
        (&["--target", "v2"], "unknown target \"v2\""),
        (
            &[
                "--olmv1-feature-gates",
                "SingleOwnNamespaceInstallSupport=true",
            ],
            "--olmv1-feature-gates needs --target olmv1",
        ),
        (
            &["--target", "olmv1", "--olmv1-feature-gates", "Single=true"],
            "unrecognized feature gate: Single",
        ),
    ] {
        let out = run(&[&["--no-config"], args].concat(), &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn invalid_names() {
    let out = run(&["--no-config", "--target", "olmv1"], &fixture("names"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM755");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["bundle"], "Foo_Operator.v1.0.0");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("status.install.bundle.name"));
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("names/catalog.yaml"))
        .unwrap()
        .replace("Foo_Operator.v1.0.0", "foo.v1.0.0")
        .replace("name: stable", "name: stable_v1")
        .replace("defaultChannel: stable", "defaultChannel: stable_v1");
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let out = run(&["--no-config", "--target", "olmv1"], tmp.path());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM755");
    assert_eq!(d["severity"], "warning");
    assert!(d["message"].as_str().unwrap().contains("\"stable_v1\""));
}

/// A CSV's required APIService definitions become olm.gvk.required when opm renders the
/// bundle (`Bundle.RequiredAPIs`), like its required CRDs: a dependency for OLM v0's
/// resolver, and a bundle OLM v1 refuses.
#[test]
fn required_api_services_are_dependencies() {
    let dir = fixture("required-apiservice/bundle");
    let v0 = rules(&run(&["--no-config"], &dir));
    assert_eq!(v0, ["OLM507"]);
    let out = run(&["--no-config", "--target", "olmv1"], &dir);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "OLM711");
    assert_eq!(d["pointer"], "/spec/apiservicedefinitions/required/0");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("via property \"olm.gvk.required\""));
}

fn lint_text(args: &[&str], files: &[(&str, &str)]) -> Vec<Value> {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = tmp.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let root = if files.iter().any(|(n, _)| n.starts_with("new/")) {
        tmp.path().join("new")
    } else {
        tmp.path().to_path_buf()
    };
    let out = run(&[&["--no-config"], args].concat(), &root);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}

fn of<'a>(diags: &'a [Value], rule: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["rule"] == rule).collect()
}

/// `foo` with channels `(name, entries YAML)` and bundles `(name, version, extra properties)`.
fn catalog(default: &str, channels: &[(&str, &str)], bundles: &[(&str, &str, &str)]) -> String {
    let mut s = format!("---\nschema: olm.package\nname: foo\ndefaultChannel: {default}\n");
    for (name, entries) in channels {
        s += &format!("---\nschema: olm.channel\npackage: foo\nname: {name}\nentries:\n{entries}");
    }
    for (name, version, extra) in bundles {
        s += &format!(
            "---\nschema: olm.bundle\npackage: foo\nname: {name}\nimage: quay.io/example/foo-bundle@sha256:{}\nproperties:\n  - type: olm.package\n    value: {{packageName: foo, version: {version}}}\n{extra}",
            "0".repeat(64)
        );
    }
    s
}

const REQUIRES_BAR: &str =
    "  - type: olm.package.required\n    value: {packageName: bar, versionRange: '>=1.0.0'}\n";

/// OLM711 is an error on what OLM v1 picks by default (no fallback after selection) and a
/// warning on the others, each message saying why.
#[test]
fn dependencies_are_errors_on_default_picks() {
    let text = catalog(
        "stable",
        &[
            (
                "stable",
                "  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n",
            ),
            ("old", "  - name: foo.v1.0.0\n"),
        ],
        &[
            ("foo.v1.0.0", "1.0.0", REQUIRES_BAR),
            ("foo.v1.1.0", "1.1.0", REQUIRES_BAR),
            ("foo.v1.2.0", "1.2.0", REQUIRES_BAR),
        ],
    );
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
    let by_bundle = |b: &str| {
        of(&d, "OLM711")
            .into_iter()
            .find(|x| x["bundle"] == b)
            .unwrap_or_else(|| panic!("{b}: {d:#?}"))
            .clone()
    };
    let top = by_bundle("foo.v1.2.0");
    assert_eq!(top["severity"], "error");
    assert!(top["message"]
        .as_str()
        .unwrap()
        .contains("the package's highest version"));
    // The highest of channel `old`.
    let old = by_bundle("foo.v1.0.0");
    assert_eq!(old["severity"], "error");
    assert!(old["message"]
        .as_str()
        .unwrap()
        .contains("highest version of channel old"));
    // 1.1.0 is where installs of 1.0.0 upgrade to (the only entry replacing it) ...
    let mid = by_bundle("foo.v1.1.0");
    assert_eq!(mid["severity"], "error");
    assert!(mid["message"]
        .as_str()
        .unwrap()
        .contains("upgrades installs of foo.v1.0.0 to it"));
    // ... unless a skipRange on 1.2.0 takes 1.0.0 straight to the top.
    let text = text.replace(
        "  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n",
        "  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n    skipRange: '>=1.0.0 <1.2.0'\n",
    );
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
    let mid = of(&d, "OLM711")
        .into_iter()
        .find(|x| x["bundle"] == "foo.v1.1.0")
        .unwrap()
        .clone();
    assert_eq!(mid["severity"], "warning", "{mid:#?}");
    assert!(mid["message"]
        .as_str()
        .unwrap()
        .contains("pins this version"));
}

/// OLM756: equal to OLM v1, distinct to opm (build metadata that is not a release); a release
/// (`+1`) is no tie; the very same version is OLM106's, not a tie.
#[test]
fn version_ties() {
    let channels = [
        ("stable", "  - name: foo.v1.0.0\n"),
        ("fast", "  - name: foo.v1.0.0-b\n"),
    ];
    for (second, tie) in [
        ("1.0.0+001", true),
        ("1.0.0+1", false),
        ("1.0.0+abc.01", true),
    ] {
        let text = catalog(
            "stable",
            &channels,
            &[("foo.v1.0.0", "1.0.0", ""), ("foo.v1.0.0-b", second, "")],
        );
        let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
        let ties = of(&d, "OLM756");
        assert_eq!(ties.len(), usize::from(tie), "{second}: {d:#?}");
        if tie {
            let m = ties[0]["message"].as_str().unwrap();
            assert!(
                m.contains("equal: both are 1.0.0 once build metadata"),
                "{m}"
            );
            assert!(m.contains("package's highest version"), "{m}");
            // Not also OLM757: the pick ties with the head.
            assert!(of(&d, "OLM757").is_empty(), "{d:#?}");
        }
    }
}

/// OLM757: the highest version in another channel, not the default channel's head; not when
/// deprecation ranks it last.
#[test]
fn default_pick_differs_from_the_default_channel() {
    let channels = [
        ("stable", "  - name: foo.v1.0.0\n"),
        (
            "alpha",
            "  - name: foo.v1.0.0\n  - name: foo.v2.0.0-alpha.1\n    replaces: foo.v1.0.0\n",
        ),
    ];
    let bundles = [
        ("foo.v1.0.0", "1.0.0", ""),
        ("foo.v2.0.0-alpha.1", "2.0.0-alpha.1", ""),
    ];
    let text = catalog("stable", &channels, &bundles);
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
    let pick = of(&d, "OLM757");
    assert_eq!(pick.len(), 1, "{d:#?}");
    assert_eq!(pick[0]["pointer"], "/defaultChannel");
    let m = pick[0]["message"].as_str().unwrap();
    assert!(
        m.contains("installs foo.v2.0.0-alpha.1 (2.0.0-alpha.1, in channel alpha)"),
        "{m}"
    );
    assert!(
        m.contains("not foo.v1.0.0 (1.0.0), the head of defaultChannel stable"),
        "{m}"
    );
    let deprecated = text
        + "---\nschema: olm.deprecations\npackage: foo\nentries:\n  - reference: {schema: olm.bundle, name: foo.v2.0.0-alpha.1}\n    message: preview\n";
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &deprecated)]);
    assert!(of(&d, "OLM757").is_empty(), "{d:#?}");
}

/// OLM758: a replaces that goes to a lower version is an OLM v0 upgrade OLM v1 never takes;
/// a skipRange covering newer versions is not taken as an edge OLM v0 follows.
#[test]
fn upgrades_olm_v1_does_not_take() {
    let text = catalog(
        "stable",
        &[(
            "stable",
            "  - name: foo.v1.1.0\n  - name: foo.v1.0.5\n    replaces: foo.v1.1.0\n",
        )],
        &[("foo.v1.1.0", "1.1.0", ""), ("foo.v1.0.5", "1.0.5", "")],
    );
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
    let stuck = of(&d, "OLM758");
    assert_eq!(stuck.len(), 1, "{d:#?}");
    assert_eq!(stuck[0]["bundle"], "foo.v1.1.0");
    assert_eq!(stuck[0]["pointer"], "/entries/1/replaces");
    let m = stuck[0]["message"].as_str().unwrap();
    assert!(m.contains("OLM v0 upgrades installs of foo.v1.1.0 (1.1.0) to foo.v1.0.5 (1.0.5, replaces in channel stable)"), "{m}");
    let ranged = catalog(
        "stable",
        &[(
            "stable",
            "  - name: foo.v1.0.0\n  - name: foo.v2.0.0\n    replaces: foo.v1.0.0\n  - name: foo.v1.5.0\n    skipRange: '>1.0.0'\n",
        )],
        &[
            ("foo.v1.0.0", "1.0.0", ""),
            ("foo.v2.0.0", "2.0.0", ""),
            ("foo.v1.5.0", "1.5.0", ""),
        ],
    );
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &ranged)]);
    assert!(of(&d, "OLM758").is_empty(), "{d:#?}");
}

/// OLM759 with --baseline: a removed bundle nothing upgrades any more; a skipRange in any
/// channel keeps it reachable.
#[test]
fn removed_without_successor() {
    let old = catalog(
        "stable",
        &[(
            "stable",
            "  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n",
        )],
        &[("foo.v1.0.0", "1.0.0", ""), ("foo.v1.1.0", "1.1.0", "")],
    );
    let new = |extra: &str| {
        catalog(
            "stable",
            &[
                (
                    "stable",
                    "  - name: foo.v1.1.0\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n",
                ),
                ("fast", extra),
            ],
            &[("foo.v1.1.0", "1.1.0", ""), ("foo.v1.2.0", "1.2.0", "")],
        )
    };
    for (fast, stranded) in [
        ("  - name: foo.v1.2.0\n", true),
        ("  - name: foo.v1.2.0\n    skipRange: '<1.2.0'\n", false),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("old")).unwrap();
        std::fs::create_dir_all(tmp.path().join("new")).unwrap();
        std::fs::write(tmp.path().join("old/catalog.yaml"), &old).unwrap();
        std::fs::write(tmp.path().join("new/catalog.yaml"), new(fast)).unwrap();
        let baseline = tmp.path().join("old");
        let out = run(
            &[
                "--no-config",
                "--target",
                "olmv1",
                "--baseline",
                baseline.to_str().unwrap(),
            ],
            &tmp.path().join("new"),
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = v["diagnostics"].as_array().unwrap();
        let gone = of(d, "OLM759");
        assert_eq!(gone.len(), usize::from(stranded), "{fast}: {d:#?}");
        if stranded {
            assert_eq!(gone[0]["bundle"], "foo.v1.0.0");
            assert!(gone[0]["message"]
                .as_str()
                .unwrap()
                .contains("error upgrading from currently installed version \"1.0.0\""));
        }
    }
}

/// `olmlint graph --target olmv1` and the HTML report of `lint --target olmv1` draw OLM v1's
/// upgrade edges as a graph of their own beside the channels.
#[test]
fn graphs_show_olm_v1_edges() {
    let text = catalog(
        "stable",
        &[
            (
                "stable",
                "  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n",
            ),
            (
                "alpha",
                "  - name: foo.v1.0.0\n  - name: foo.v2.0.0-alpha.1\n    replaces: foo.v1.0.0\n",
            ),
        ],
        &[
            ("foo.v1.0.0", "1.0.0", ""),
            ("foo.v1.1.0", "1.1.0", ""),
            ("foo.v2.0.0-alpha.1", "2.0.0-alpha.1", ""),
        ],
    );
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let graph = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["graph", "--no-config", "-f", "json"])
            .args(extra)
            .arg(tmp.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v
    };
    let v0 = graph(&[]);
    let names = |v: &Value| -> Vec<String> {
        v[0]["channels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&v0), ["stable", "alpha"], "{v0:#}");
    let v1 = graph(&["--target", "olmv1"]);
    assert_eq!(
        names(&v1),
        ["stable", "alpha", "OLM v1 (no channel)"],
        "{v1:#}"
    );
    let g = &v1[0]["channels"][2];
    // 1.0.0 moves to the highest of its successors, in any channel: the alpha prerelease.
    let edges: Vec<(String, String, String)> = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap().into(),
                e["to"].as_str().unwrap().into(),
                e["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        [(
            "foo.v2.0.0-alpha.1".into(),
            "foo.v1.0.0".into(),
            "olmv1".into()
        )]
    );
    let head: Vec<&str> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["head"] == true)
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(head, ["foo.v2.0.0-alpha.1"]);
    // The HTML report draws it too.
    let html = tmp.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args([
            "lint",
            "--no-config",
            "-q",
            "--target",
            "olmv1",
            "-f",
            "html",
            "-o",
        ])
        .arg(&html)
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("OLM v1 (no channel)"));
    assert!(page.contains("class=\"olmv1\""));
}

/// An acceptance refusal (OLM750) is an error on the bundle OLM v1 picks by default and a
/// warning on an older one, as OLM711.
#[test]
fn refusals_are_errors_on_default_picks() {
    let own_only = "  - type: olm.csv.metadata\n    value:\n      installModes:\n        - {type: OwnNamespace, supported: true}\n        - {type: AllNamespaces, supported: false}\n";
    let text = catalog(
        "stable",
        &[(
            "stable",
            "  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n  - name: foo.v1.2.0\n    replaces: foo.v1.1.0\n",
        )],
        &[
            ("foo.v1.0.0", "1.0.0", own_only),
            ("foo.v1.1.0", "1.1.0", own_only),
            ("foo.v1.2.0", "1.2.0", own_only),
        ],
    );
    let d = lint_text(&["--target", "olmv1"], &[("catalog.yaml", &text)]);
    let sev = |b: &str| {
        of(&d, "OLM750")
            .into_iter()
            .find(|x| x["bundle"] == b)
            .map(|x| x["severity"].as_str().unwrap().to_string())
    };
    // 1.2.0: the package's pick; 1.1.0: where installs of 1.0.0 go; 1.0.0: only when pinned.
    assert_eq!(sev("foo.v1.2.0").as_deref(), Some("error"), "{d:#?}");
    assert_eq!(sev("foo.v1.1.0").as_deref(), Some("error"), "{d:#?}");
    assert_eq!(sev("foo.v1.0.0").as_deref(), Some("warning"), "{d:#?}");
    let m = of(&d, "OLM750")
        .into_iter()
        .find(|x| x["bundle"] == "foo.v1.0.0")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        m.starts_with("unsupported bundle: bundle does not support AllNamespaces install mode"),
        "{m}"
    );
    assert!(
        m.contains("only when a ClusterExtension pins this version"),
        "{m}"
    );
    // With Single/OwnNamespace support on, none is refused (each gets the watchNamespace
    // note).
    let d = lint_text(
        &["--target", "olmv1=upstream-experimental"],
        &[("catalog.yaml", &text)],
    );
    assert!(
        of(&d, "OLM750").iter().all(|x| x["severity"] == "info"),
        "{d:#?}"
    );
}

/// A bundle directory's refused dependency is named as OLM v1 names it once `opm render`
/// sorted the properties by type: `olm.constraint` before `olm.gvk.required`.
#[test]
fn refused_dependency_named_in_opm_render_order() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fixture("required-apiservice/bundle");
    for f in [
        "metadata/annotations.yaml",
        "manifests/foo.clusterserviceversion.yaml",
    ] {
        let to = tmp.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(f), to).unwrap();
    }
    std::fs::write(
        tmp.path().join("metadata/dependencies.yaml"),
        "dependencies:\n  - type: olm.constraint\n    value:\n      failureMessage: needs bar\n      package: {packageName: bar, versionRange: '>=1.0.0'}\n",
    )
    .unwrap();
    let out = run(&["--no-config", "--target", "olmv1"], tmp.path());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = of(v["diagnostics"].as_array().unwrap(), "OLM711")[0].clone();
    let m = d["message"].as_str().unwrap();
    assert!(m.contains("via property \"olm.constraint\""), "{m}");
    assert!(m.contains("(and 1 more dependency property)"), "{m}");
}

/// Under a profile without a certificate provider, bundles known only by olm.csv.metadata
/// are not checked for webhooks, and one note per catalog says so.
#[test]
fn webhooks_unseen_in_csv_metadata_are_noted() {
    let meta = "  - type: olm.csv.metadata\n    value:\n      installModes:\n        - {type: AllNamespaces, supported: true}\n";
    let text = catalog(
        "stable",
        &[(
            "stable",
            "  - name: foo.v1.0.0\n  - name: foo.v1.1.0\n    replaces: foo.v1.0.0\n",
        )],
        &[("foo.v1.0.0", "1.0.0", meta), ("foo.v1.1.0", "1.1.0", meta)],
    );
    let d = lint_text(&["--target", "olmv1=ocp-4.20"], &[("catalog.yaml", &text)]);
    let notes = of(&d, "OLM750");
    assert_eq!(notes.len(), 1, "{d:#?}");
    assert_eq!(notes[0]["severity"], "info");
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("2 bundles of this catalog carry only olm.csv.metadata"));
    for profile in ["olmv1", "olmv1=ocp-4.21"] {
        let d = lint_text(&["--target", profile], &[("catalog.yaml", &text)]);
        assert!(of(&d, "OLM750").is_empty(), "{profile}: {d:#?}");
    }
}

/// `scripts/olmv1-readiness.py` (the README's OLM v1 table) counts a package ready when OLM
/// v1 accepts its default pick, and refused otherwise, with the refusing rule.
#[test]
fn the_readiness_survey_counts_default_picks() {
    let tmp = tempfile::tempdir().unwrap();
    let refused = tmp.path().join("refused");
    let ready = tmp.path().join("ready");
    std::fs::create_dir_all(&refused).unwrap();
    std::fs::create_dir_all(&ready).unwrap();
    let text = std::fs::read_to_string(fixture("names/catalog.yaml")).unwrap();
    std::fs::write(refused.join("catalog.yaml"), &text).unwrap();
    std::fs::write(
        ready.join("catalog.yaml"),
        text.replace("Foo_Operator.v1.0.0", "foo.v1.0.0"),
    )
    .unwrap();
    let json = tmp.path().join("out.json");
    let out = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/olmv1-readiness.py"))
        .args([
            "--olmlint",
            env!("CARGO_BIN_EXE_olmlint"),
            "--profile",
            "upstream",
            "--quiet",
            "--json",
        ])
        .arg(&json)
        .arg(format!("ready={}", ready.display()))
        .arg(format!("refused={}", refused.display()))
        .output()
        .expect("python3 runs the survey script");
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let totals = |name: &str| {
        v["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()["profiles"]["upstream"]["totals"]
            .clone()
    };
    assert_eq!(totals("ready")["package_units_ready"], 1, "{v:#}");
    assert_eq!(totals("refused")["package_units"], 1, "{v:#}");
    assert_eq!(totals("refused")["package_units_ready"], 0, "{v:#}");
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(markdown.contains("OLM755"), "{markdown}");
}
