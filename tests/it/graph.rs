//! `olmlint graph`: the channels' upgrade graphs with the lint findings overlaid, in every
//! format, and the difference to a baseline (`--baseline`, `--changed-since`).
//!
//! Golden files live in `fixtures/graphs/expected/`; `OLMLINT_UPDATE_GOLDEN=1 cargo test
//! --test graph` rewrites them (review the diff). `fixtures/graphs/after` holds every overlay
//! kind: a deprecated bundle and channel, an entry dropped from the replaces chain, a skipped
//! bundle the catalog lacks (OLM110), two heads and a cycle (OLM105), an unsatisfiable
//! dependency (OLM503) and uninstallable bundles (OLM501); against `fixtures/graphs/before`
//! it adds, removes and re-points bundles and strands one (OLM704).

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn olmlint(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn graph(args: &[&str]) -> (i32, String) {
    let mut all = vec!["graph"];
    all.extend_from_slice(args);
    let (code, out, _) = olmlint(Path::new(env!("CARGO_MANIFEST_DIR")), &all);
    (code, out)
}

/// Compares with (or, with OLMLINT_UPDATE_GOLDEN=1, writes) `fixtures/graphs/expected/NAME`.
fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/graphs/expected")
        .join(name);
    if std::env::var_os("OLMLINT_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (OLMLINT_UPDATE_GOLDEN=1 writes it)",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{name} differs from its golden file (OLMLINT_UPDATE_GOLDEN=1 rewrites it):\n{actual}"
    );
}

const AFTER: &str = "fixtures/graphs/after";
const BEFORE: &str = "fixtures/graphs/before";

#[test]
fn every_format_of_the_state_matches_its_golden_file() {
    for (format, name) in [
        ("mermaid", "state.mmd"),
        ("dot", "state.dot"),
        ("svg", "state.svg"),
        ("json", "state.json"),
    ] {
        let (code, out) = graph(&[AFTER, "-f", format]);
        assert_eq!(code, 0, "{format}: {out}");
        golden(name, &out);
    }
}

#[test]
fn every_format_of_the_difference_matches_its_golden_file() {
    for (format, name) in [
        ("mermaid", "diff.mmd"),
        ("dot", "diff.dot"),
        ("svg", "diff.svg"),
        ("json", "diff.json"),
        ("markdown", "diff.md"),
    ] {
        let (code, out) = graph(&[AFTER, "--baseline", BEFORE, "-f", format]);
        assert_eq!(code, 0, "{format}: {out}");
        golden(name, &out);
    }
}

fn node<'a>(channel: &'a Value, name: &str) -> &'a Value {
    channel["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("no node {name} in {channel}"))
}

fn channel<'a>(graphs: &'a Value, package: &str, name: &str) -> &'a Value {
    graphs
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == package)
        .and_then(|p| {
            p["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == name)
        })
        .unwrap_or_else(|| panic!("no channel {package}/{name}"))
}

fn rules(node: &Value) -> Vec<&str> {
    node["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect()
}

#[test]
fn the_state_carries_every_overlay_kind() {
    let (code, out) = graph(&[AFTER, "-f", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let stable = channel(&v, "app", "stable");
    assert_eq!(stable["default"], true);
    // Deprecated by olm.deprecations; dropped by sortChannel (skipped); not in the catalog.
    assert_eq!(node(stable, "app.v1.0.0")["deprecated"], true);
    assert_eq!(node(stable, "app.v1.2.5")["off_chain"], true);
    assert_eq!(node(stable, "app.v1.2.0").get("off_chain"), None);
    assert_eq!(node(stable, "app.v0.9.0")["exists"], false);
    assert_eq!(rules(node(stable, "app.v1.3.0")), ["OLM110"]);
    assert_eq!(node(stable, "app.v1.3.0")["head"], true);
    // skipRange '>=1.2.0 <1.3.0' covers 1.2.0 and 1.2.5, not 1.0.0.
    let ranges: Vec<&str> = stable["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "skipRange")
        .map(|e| e["to"].as_str().unwrap())
        .collect();
    assert_eq!(ranges, ["app.v1.2.0", "app.v1.2.5"]);
    // Two heads: the channel-level OLM105; the channel is deprecated.
    let fast = channel(&v, "app", "fast");
    assert_eq!(fast["deprecated"], true);
    assert_eq!(fast["findings"][0]["rule"], "OLM105");
    // The cycle's edges are marked, the edge out of it is not.
    let lp = channel(&v, "loop", "stable");
    let cycle: Vec<(bool, &str)> = lp["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["cycle"] == true, e["from"].as_str().unwrap()))
        .collect();
    assert_eq!(
        cycle,
        [
            (true, "loop.v1.0.0"),
            (true, "loop.v1.1.0"),
            (false, "loop.v2.0.0")
        ]
    );
    assert_eq!(lp["findings"][0]["rule"], "OLM105");
    assert_eq!(
        rules(node(channel(&v, "needy", "stable"), "needy.v1.0.0")),
        ["OLM503"]
    );
    let old = node(channel(&v, "old", "stable"), "old.v1.0.0");
    assert_eq!(rules(old), ["OLM501"]);
    assert_eq!(old["deprecated"], true, "olm.deprecated property");
    assert_eq!(
        rules(node(channel(&v, "user", "stable"), "user.v1.0.0")),
        ["OLM501"]
    );
}

#[test]
fn the_difference_marks_added_removed_repointed_and_stranded() {
    let (code, out) = graph(&[AFTER, "--baseline", BEFORE, "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Only app changed: the unchanged packages are not drawn.
    let packages: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(packages, ["app"]);
    let stable = channel(&v, "app", "stable");
    assert_eq!(node(stable, "app.v1.3.0")["change"], "added");
    assert_eq!(node(stable, "app.v1.2.0").get("change"), None);
    let removed = node(stable, "app.v1.1.0");
    assert_eq!(removed["change"], "removed");
    assert_eq!(
        rules(removed),
        ["OLM704"],
        "the stranded bundle is highlighted"
    );
    let edge = |from: &str, to: &str| {
        stable["edges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["from"] == from && e["to"] == to && e["kind"] == "replaces")
            .unwrap_or_else(|| panic!("{from} -> {to}"))
            .clone()
    };
    assert_eq!(edge("app.v1.2.0", "app.v1.0.0")["change"], "repointed");
    assert_eq!(edge("app.v1.2.0", "app.v1.1.0")["change"], "removed");
    assert_eq!(edge("app.v1.1.0", "app.v1.0.0")["change"], "removed");
    assert_eq!(channel(&v, "app", "fast")["change"], "added");
}

/// A chain of 40 bundles: the drawing folds the plain middle into one node that counts them,
/// keeps the head, the tail and the bundle with a finding, and `--collapse 0` folds nothing.
#[test]
fn long_chains_are_folded_into_a_counted_node() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = String::from(
        "---\nschema: olm.package\nname: big\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: big\nname: stable\nentries:\n  - name: big.v1.0.0\n",
    );
    for i in 1..40 {
        s.push_str(&format!(
            "  - name: big.v1.{i}.0\n    replaces: big.v1.{}.0\n",
            i - 1
        ));
    }
    for i in 0..40 {
        // big.v1.20.0 has an invalid version (OLM104): it keeps a node of its own.
        let version = if i == 20 {
            "x1.20.0".to_string()
        } else {
            format!("1.{i}.0")
        };
        s.push_str(&format!(
            "---\nschema: olm.bundle\npackage: big\nname: big.v1.{i}.0\nimage: quay.io/x/big:v1.{i}.0\nproperties:\n  - type: olm.package\n    value: {{packageName: big, version: {version}}}\n"
        ));
    }
    std::fs::write(tmp.path().join("catalog.yaml"), s).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, out) = graph(&[dir, "-f", "mermaid"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("big.v1.38.0 … big.v1.21.0<br/>18 bundles"),
        "{out}"
    );
    assert!(
        out.contains("big.v1.19.0 … big.v1.1.0<br/>19 bundles"),
        "{out}"
    );
    assert!(out.contains("big.v1.20.0<br/>OLM104"), "{out}");
    assert_eq!(out.matches("[\"big.").count(), 5, "{out}");
    let (_, svg) = graph(&[dir, "-f", "svg"]);
    assert!(svg.contains(">18 bundles</text>"), "{svg}");
    let (_, raw) = graph(&[dir, "-f", "mermaid", "--collapse", "0"]);
    assert_eq!(raw.matches("[\"big.").count(), 40);
}

#[test]
fn changed_since_draws_what_a_pull_request_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = |from: &str| {
        std::fs::create_dir_all(repo.join("catalog")).unwrap();
        std::fs::copy(
            root.join(from).join("catalog.yaml"),
            repo.join("catalog/catalog.yaml"),
        )
        .unwrap();
    };
    copy(BEFORE);
    common::git(&repo, &["init", "-q"], None);
    common::git(&repo, &["add", "-A"], None);
    common::git(&repo, &["commit", "-qm", "base"], None);
    // Nothing changed yet.
    let (code, out, err) = olmlint(
        &repo,
        &["graph", "--changed-since", "HEAD", "-f", "markdown"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("No channel's upgrade graph changed."), "{out}");
    copy(AFTER);
    let (code, out, err) = olmlint(
        &repo,
        &[
            "graph",
            "catalog",
            "--changed-since",
            "HEAD",
            "-f",
            "markdown",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("## Upgrade graphs changed since HEAD\n"),
        "{out}"
    );
    assert!(
        out.contains("Arrows point in the upgrade direction"),
        "{out}"
    );
    assert!(out.contains("### `app` in `catalog`"), "{out}");
    assert!(out.contains("```mermaid\nflowchart LR\n"), "{out}");
    assert!(out.contains("app.v1.1.0<br/>removed · OLM704"), "{out}");
    assert!(
        !out.contains("### `loop`"),
        "unchanged packages are left out: {out}"
    );
    assert!(!out.contains("http"), "the legend has no links: {out}");
}

#[test]
fn untrusted_names_cannot_break_out_of_the_drawings() {
    let tmp = tempfile::tempdir().unwrap();
    let evil = "x\\\"]:::error --> y[\\\"<script>alert(1)</script>#quot;";
    let s = format!(
        "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n  - name: \"{evil}\"\n"
    );
    std::fs::write(tmp.path().join("catalog.yaml"), s).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (_, m) = graph(&[dir, "-f", "mermaid"]);
    let node = m.lines().find(|l| l.contains("c0n0[")).unwrap();
    assert_eq!(node.matches('"').count(), 2, "{node}");
    assert!(!node.contains("<script") && !node.contains("-->"), "{node}");
    let (_, svg) = graph(&[dir, "-f", "svg"]);
    assert!(!svg.contains("<script"), "{svg}");
    let (_, d) = graph(&[dir, "-f", "dot"]);
    assert!(d.contains("x\\\"]:::error"), "{d}");
}

#[test]
fn no_match_and_bad_arguments() {
    let (code, _) = graph(&["fixtures/catalogs/valid", "--package", "nope"]);
    assert_eq!(code, 1);
    let (code, _) = graph(&[AFTER, "--baseline", "no/such/dir"]);
    assert_eq!(code, 2);
}

/// community-v4.18 (35 packages, 727 bundles): every channel drawn, in every format.
#[test]
fn a_real_catalog_draws_in_every_format() {
    let corpus =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/catalogs/community-v4.18");
    if !corpus.is_dir() {
        eprintln!("skipped: {} is not here", corpus.display());
        return;
    }
    let dir = corpus.to_str().unwrap();
    let (code, json) = graph(&[dir, "-f", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    let channels: usize = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["channels"].as_array().unwrap().len())
        .sum();
    assert_eq!(channels, 78);
    let (code, svg) = graph(&[dir, "-f", "svg"]);
    assert_eq!(code, 0);
    assert_eq!(svg.matches("<text class=\"title\"").count(), 78);
    assert!(
        svg.contains("78 bundles"),
        "patterns-operator's fast channel is folded"
    );
    // All 35 packages in one Mermaid diagram pass Mermaid's edge limit: said, not hidden.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = olmlint(root, &["graph", dir]);
    assert_eq!(code, 0);
    assert!(
        err.contains("Mermaid (and so GitHub) draws at most"),
        "{err}"
    );
    let (_, _, err) = olmlint(root, &["graph", dir, "--package", "infinispan"]);
    assert!(err.is_empty(), "{err}");
}

/// `lint -f html`: the whole page (findings, filters, snippets, graphs) as a golden file; the
/// browser test (tests/it/browser.rs) renders it.
#[test]
fn the_html_report_matches_its_golden_file() {
    let (code, out, err) = olmlint(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["lint", AFTER, "--no-config", "-f", "html"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    assert!(out.contains("Content-Security-Policy"), "{out}");
    // Nothing is fetched: no external script, style, image or font.
    assert!(!out.contains(" src=") && !out.contains(" href=") && !out.contains("@import"));
    golden("report.html", &out);
}

/// Templates and OpenShift versions: a repository's basic templates are drawn (named by their
/// file, with the findings moved to them) beside each version catalog they render to.
#[test]
fn templates_and_version_catalogs_are_drawn() {
    let (code, out) = graph(&["fixtures/templates/repository", "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let deps: Vec<(&str, Vec<&str>)> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == "deps")
        .map(|p| {
            let node = &p["channels"][0]["nodes"][0];
            (p["catalog"].as_str().unwrap(), rules(node))
        })
        .collect();
    assert_eq!(
        deps,
        [
            (
                "fixtures/templates/repository/catalogs/v4.18",
                vec!["OLM507"]
            ),
            (
                "fixtures/templates/repository/operators/deps/catalog-templates/basic.yaml",
                vec!["OLM507"]
            ),
        ]
    );
}

/// A real sample (community-operators-prod): an unmapped basic template's bundles are image
/// references whose existence is unknown (none is drawn missing); the mapped ecr-secret-operator
/// template lists two bundles no image provides (OLM104), drawn missing.
#[test]
fn template_bundles_are_missing_only_when_known_to_be() {
    let (code, out) = graph(&["fixtures/templates/real", "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let template = |suffix: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|p| p["catalog"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix}"))
            .clone()
    };
    let unmapped = template("clusterpulse/catalog-templates/basic.yaml");
    assert!(unmapped["channels"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["exists"] == true));
    let ecr = template("ecr-secret-operator/catalog-templates/basic.yaml");
    let missing: Vec<(&str, Vec<&str>)> = ecr["channels"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["exists"] == false)
        .map(|n| (n["name"].as_str().unwrap(), rules(n)))
        .collect();
    assert_eq!(
        missing,
        [
            ("ecr-secret-operator.v0.6.0", vec!["OLM104"]),
            ("ecr-secret-operator.v0.5.1", vec!["OLM104"])
        ]
    );
}

/// Hostile input: n entries whose skipRange covers every other are n² edges; the drawing stops
/// at `MAX_RANGE_EDGES` (20 000) per channel and says so in the channel's title.
#[test]
fn skip_range_edges_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 250;
    let mut s = String::from(
        "---\nschema: olm.package\nname: h\ndefaultChannel: s\n---\nschema: olm.channel\npackage: h\nname: s\nentries:\n",
    );
    for i in 0..n {
        s.push_str(&format!("  - name: h.v1.{i}.0\n    skipRange: '>=0.0.0'\n"));
        if i > 0 {
            s.push_str(&format!("    replaces: h.v1.{}.0\n", i - 1));
        }
    }
    for i in 0..n {
        s.push_str(&format!(
            "---\nschema: olm.bundle\npackage: h\nname: h.v1.{i}.0\nimage: q/h:{i}\nproperties:\n  - type: olm.package\n    value: {{packageName: h, version: 1.{i}.0}}\n"
        ));
    }
    std::fs::write(tmp.path().join("catalog.yaml"), s).unwrap();
    let (code, out) = graph(&[tmp.path().to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let c = &v[0]["channels"][0];
    assert_eq!(c["ranges_cut"], true);
    let ranges = c["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "skipRange")
        .count();
    assert!((20_000..20_000 + n).contains(&ranges), "{ranges}");
    let (_, m) = graph(&[tmp.path().to_str().unwrap()]);
    assert!(
        m.contains("skipRange edges after the first 20000 not drawn"),
        "{m}"
    );
}

/// A semver template is drawn with the channels opm generates from it: for konflux (real,
/// community-operators-prod) exactly the rendered catalog's graph; for clusterpulse, whose
/// catalog an older opm rendered (OLM906), the edges differ.
#[test]
fn semver_templates_are_drawn_as_opm_generates_them() {
    let (code, out) = graph(&["fixtures/templates/real", "-f", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let edges = |suffix: &str| {
        let p = v
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["catalog"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix}"));
        let mut all: Vec<String> =
            p["channels"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|c| {
                    c["edges"].as_array().unwrap().iter().map(move |e| {
                        format!("{} {} {} {}", c["name"], e["from"], e["kind"], e["to"])
                    })
                })
                .collect();
        all.sort();
        (p["default_channel"].clone(), all)
    };
    let template = edges("konflux/catalog-templates/semver.yaml");
    assert_eq!(template.1.len(), 89);
    assert_eq!(template, edges("catalogs/v4.20"));
    assert_ne!(
        edges("clusterpulse/catalog-templates/semver.yaml").1,
        edges("catalogs/v4.18").1
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// A bundle-directory operator whose newest bundle goes only to OpenShift 4.14 is drawn once per
/// group of releases whose indexes hold the same bundles.
#[test]
fn bundle_directories_are_drawn_per_openshift_release() {
    let tmp = tempfile::tempdir().unwrap();
    let op = tmp.path().join("operators/good-operator");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/operators/repository/good-operator"),
        &op,
    );
    let annotations = op.join("1.2.0/metadata/annotations.yaml");
    let text = std::fs::read_to_string(&annotations).unwrap();
    std::fs::write(
        &annotations,
        text.replace(
            "com.redhat.openshift.versions: v4.13-v4.22",
            "com.redhat.openshift.versions: '=v4.14'",
        ),
    )
    .unwrap();
    let (code, out, err) = olmlint(tmp.path(), &["graph", "operators", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let stable: Vec<(&str, usize)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let c = p["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == "stable")
                .unwrap();
            (
                p["catalog"].as_str().unwrap(),
                c["nodes"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        stable,
        [
            ("operators · OpenShift 4.12–4.13, 4.15–4.22", 2),
            ("operators · OpenShift 4.14", 3)
        ]
    );
}

/// A pull request that deletes a package's catalog file: the package's channels are drawn as
/// removed.
#[test]
fn changed_since_draws_a_deleted_package_as_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let package = |name: &str| {
        format!(
            "---\nschema: olm.package\nname: {name}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: {name}\nname: stable\nentries:\n  - name: {name}.v1.0.0\n---\nschema: olm.bundle\npackage: {name}\nname: {name}.v1.0.0\nimage: quay.io/x/{name}:v1\nproperties:\n  - type: olm.package\n    value: {{packageName: {name}, version: 1.0.0}}\n"
        )
    };
    for name in ["kept", "gone"] {
        std::fs::create_dir_all(repo.join("catalogs/v4.18").join(name)).unwrap();
        std::fs::write(
            repo.join("catalogs/v4.18").join(name).join("catalog.yaml"),
            package(name),
        )
        .unwrap();
    }
    common::git(&repo, &["init", "-q"], None);
    common::git(&repo, &["add", "-A"], None);
    common::git(&repo, &["commit", "-qm", "base"], None);
    std::fs::remove_dir_all(repo.join("catalogs/v4.18/gone")).unwrap();
    let (code, out, err) = olmlint(&repo, &["graph", "--changed-since", "HEAD", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let drawn: Vec<(&str, &str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["catalog"].as_str().unwrap(),
                p["channels"][0]["change"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(drawn, [("gone", "catalogs/v4.18", "removed")], "{out}");
}

/// The rendered example of the book's Upgrade graphs chapter is what the command prints.
#[test]
fn book_example_is_current() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/graphs.md"))
            .unwrap();
    let at = readme
        .find("This is `olmlint graph fixtures/graphs/after --baseline")
        .expect("the graph example of docs/src/graphs.md");
    let start = readme[at..].find("```mermaid\n").unwrap() + at + "```mermaid\n".len();
    let end = readme[start..].find("```").unwrap() + start;
    let (code, out) = graph(&[
        AFTER,
        "--baseline",
        BEFORE,
        "--package",
        "app",
        "--channel",
        "stable",
    ]);
    assert_eq!(code, 0);
    assert_eq!(&readme[start..end], out);
}

/// The difference of a bundle-directory operator drawn per OpenShift release is taken per
/// release group: a bundle added for 4.13 and later changes that group's graph only.
#[test]
fn bundle_directory_differences_are_per_openshift_release() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/operators/repository/good-operator");
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    copy_dir(&fixture, &old.join("good-operator"));
    copy_dir(&fixture, &new.join("good-operator"));
    let v13 = new.join("good-operator/1.3.0");
    copy_dir(&fixture.join("1.2.0"), &v13);
    let csv = v13.join("manifests/good-operator.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(
        &csv,
        text.replace("good-operator.v1.1.0", "good-operator.v1.2.0")
            .replace("1.2.0", "1.3.0"),
    )
    .unwrap();
    let (code, out, err) = olmlint(
        tmp.path(),
        &["graph", "new", "--baseline", "old", "-f", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let drawn: Vec<(&str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| {
            p["channels"].as_array().unwrap().iter().flat_map(move |c| {
                c["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|n| n["change"] == "added")
                    .map(move |n| (p["catalog"].as_str().unwrap(), n["name"].as_str().unwrap()))
            })
        })
        .collect();
    assert_eq!(
        drawn,
        [
            ("new · OpenShift 4.13–4.22", "good-operator.v1.3.0"),
            ("new · OpenShift 4.13–4.22", "good-operator.v1.3.0")
        ],
        "{out}"
    );
}
