//! Bundle-directory repositories (`operators/<name>/<version>/`): the package model built the
//! way `opm index add` builds it, the pipeline checks (OLM801–807), and bundle directories as
//! `--context` candidates. Fixtures: `fixtures/operators/` (README there).

use olmlint::lint::{run, Options};
use std::path::PathBuf;

fn fixture(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/operators")
        .join(p)
}

/// (rule, severity, file relative to `root`, line) of each finding, sorted.
fn lint(
    root: &str,
    context: &[&str],
    closed_world: bool,
) -> (Vec<String>, olmlint::report::Summary) {
    let base = fixture(root);
    let out = run(&Options {
        paths: vec![base.clone()],
        no_config: true,
        context: context.iter().map(|c| fixture(c)).collect(),
        closed_world,
        ..Default::default()
    })
    .unwrap();
    let mut found: Vec<String> = out
        .diags
        .iter()
        .map(|d| {
            let loc = d.location.and_then(|l| {
                let f = out.files.get(l.file)?;
                let rel = f
                    .source
                    .path
                    .strip_prefix(&base)
                    .ok()?
                    .to_string_lossy()
                    .to_string();
                Some(format!(
                    "{rel}:{}",
                    f.source.position(l.span.start as usize).line
                ))
            });
            format!("{} {:?} {}", d.rule, d.severity, loc.unwrap_or_default())
        })
        .collect();
    found.sort();
    (found, out.summary)
}

#[test]
fn correct_operators_pass_in_both_update_graph_modes() {
    for op in ["good-operator", "semver-operator"] {
        let (found, summary) = lint(&format!("repository/{op}"), &[], false);
        // semver-operator requires good-operator's API, which is not loaded here.
        let expected: &[&str] = if op == "semver-operator" {
            &["OLM507 Warning 0.1.0/metadata/dependencies.yaml:4"]
        } else {
            &[]
        };
        assert_eq!(found, expected, "{op}");
        assert_eq!(summary.packages, 1, "{op}");
        assert_eq!(summary.bundles, 3, "{op}");
    }
}

#[test]
fn each_pipeline_check_fails_with_its_position() {
    let (found, _) = lint("repository", &[], false);
    let want = [
        // The newest bundle replaces a bundle that does not exist.
        "OLM802 Error broken-operator/1.4.0/manifests/broken-operator.clusterserviceversion.yaml:8",
        // minKubeVersion 1.29 on OpenShift 4.14 (Kubernetes 1.27).
        "OLM807 Error broken-operator/1.1.0/manifests/broken-operator.clusterserviceversion.yaml:9",
        // olm.skipRange '^0.9' (blang has no caret).
        "OLM109 Warning broken-operator/1.2.0/manifests/broken-operator.clusterserviceversion.yaml:6",
        // `v4.16+` is no OpenShift version selector.
        "OLM806 Error broken-operator/1.3.0/metadata/annotations.yaml:8",
        // channel.default.v1: stabel, in both groups of OpenShift indexes.
        "OLM102 Error broken-operator/1.3.0/metadata/annotations.yaml:7",
        "OLM102 Error broken-operator/1.4.0/metadata/annotations.yaml:7",
        // Nothing in `stable` replaces, skips or skipRanges 0.9.0: pruned from the channel.
        "OLM803 Warning broken-operator/0.9.0/metadata/annotations.yaml:6",
        // In the 4.14 index the head (1.3.0, whose annotation does not parse and so counts for
        // every index) replaces 1.2.1, which 4.14 does not hold: 1.1.0 is cut off there.
        "OLM803 Warning broken-operator/1.1.0/metadata/annotations.yaml:6",
        // A replaces loop: no head.
        "OLM105 Error loop-operator/1.1.0/metadata/annotations.yaml:6",
        // ci.yaml: a misspelled mode, no reviewers, an unknown fbc key.
        "OLM801 Error typo-operator/ci.yaml:1",
        "OLM801 Error typo-operator/ci.yaml:2",
        "OLM801 Error typo-operator/ci.yaml:4",
    ];
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(found, want);
}

#[test]
fn version_directory_and_csv_name_are_judged_on_the_newest_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let op = dir.path().join("operators/foo");
    for (d, v, name, replaces) in [
        ("1.0.0", "1.0.0", "foo.v1.0.0", ""),
        ("1.1.0", "1.1.1", "foo.v1.1.0", "foo.v1.0.0"),
    ] {
        std::fs::create_dir_all(op.join(d).join("metadata")).unwrap();
        std::fs::create_dir_all(op.join(d).join("manifests")).unwrap();
        std::fs::write(
            op.join(d).join("metadata/annotations.yaml"),
            "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n",
        )
        .unwrap();
        let replaces = if replaces.is_empty() {
            String::new()
        } else {
            format!("  replaces: {replaces}\n")
        };
        std::fs::write(
            op.join(d).join("manifests/foo.clusterserviceversion.yaml"),
            format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {name}\nspec:\n  version: {v}\n{replaces}"),
        )
        .unwrap();
    }
    std::fs::write(op.join("ci.yaml"), "updateGraph: replaces-mode\n").unwrap();
    let out = run(&Options {
        paths: vec![op.clone()],
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    let mut rules: Vec<&str> = out.diags.iter().map(|d| d.rule).collect();
    rules.sort_unstable();
    assert_eq!(rules, ["OLM804", "OLM805"], "{:#?}", out.diags);
    assert!(out
        .diags
        .iter()
        .all(|d| d.bundle.as_deref() == Some("foo.v1.1.0")));
}

#[test]
fn bundle_directories_are_context_candidates() {
    // Closed world: without the repository the dependency has no candidate.
    let (found, _) = lint("context", &[], true);
    assert!(
        found.iter().any(|f| f.starts_with("OLM503 Error")),
        "{found:#?}"
    );
    // With the repository's operator directories as context, good-operator's channels (built
    // as the index build builds them) supply the candidate, as on a cluster.
    let (found, _) = lint("context", &["repository"], true);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn real_operator_directories() {
    let (found, summary) = lint("real", &[], false);
    assert_eq!(
        found,
        [
            "OLM507 Warning operators/shipwright-operator/0.13.0/manifests/shipwright-operator.clusterserviceversion.yaml:39",
            "OLM507 Warning operators/shipwright-operator/0.13.0/manifests/shipwright-operator.clusterserviceversion.yaml:42",
            "OLM802 Warning operators/hedvig-operator/1.0.2/manifests/hedvig-operator.v1.0.2.clusterserviceversion.yaml:127",
            // FBC: the newest bundle (what a pull request adds) judged against the catalogs
            // ci.yaml maps (v4.13–v4.18), not its annotation; released ones are judged in the
            // rendered catalogs that hold them.
            "OLM807 Warning operators/shipwright-operator/0.15.2/manifests/shipwright-operator.clusterserviceversion.yaml:784",
            // Its basic template, whose rendered catalogs are not in the sample.
            "OLM904 Info operators/shipwright-operator/catalog-templates/basic.yaml:16",
        ]
    );
    // shipwright-operator is released from catalog templates: no package here.
    assert_eq!(summary.packages, 3);
}

/// `operators/<op>/` with a ci.yaml and one bundle directory per (directory, CSV name,
/// spec.version), all of package `pkg`; the OLM805 messages of a lint of it.
fn csv_name_findings(op: &str, pkg: &str, bundles: &[(&str, &str, &str)]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("operators").join(op);
    let mut files = vec![(
        "ci.yaml".to_string(),
        "updateGraph: semver-mode\n".to_string(),
    )];
    for (d, name, v) in bundles {
        files.push((
            format!("{d}/metadata/annotations.yaml"),
            format!("annotations:\n  operators.operatorframework.io.bundle.package.v1: {pkg}\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
        ));
        files.push((
            format!("{d}/manifests/{pkg}.clusterserviceversion.yaml"),
            format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {name}\nspec:\n  version: {v}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    crate::common::write_files(&dir, &files);
    let (d, _) = crate::common::lint_json(None, &[dir.to_str().unwrap()]);
    d.iter()
        .filter(|x| x["rule"] == "OLM805")
        .map(|x| crate::common::message(x).to_string())
        .collect()
}

/// OLM805 says what the pipelines read from the name (#45: "does not start with the package
/// name" for a name that does, and a suggested `v` the package's bundles do not use).
#[test]
fn csv_name_findings_say_what_the_pipelines_read() {
    // The version follows a `-`: the pipelines read the operator name up to the first `.`.
    assert_eq!(
        csv_name_findings("foo-operator", "foo-operator", &[("1.2.3", "foo-operator-v1.2.3", "1.2.3")]),
        ["CSV name \"foo-operator-v1.2.3\" starts with the package name \"foo-operator\" but continues with \"-v1\" before its first \".\", so the pipelines read the operator name as \"foo-operator-v1\" (the convention is \"foo-operator.v1.2.3\")"]
    );
    // A different operator name.
    assert_eq!(
        csv_name_findings("foo", "foo", &[("1.0.0", "bar.v1.0.0", "1.0.0")]),
        ["CSV name \"bar.v1.0.0\" names operator \"bar\" (the text before its first \".\", as the pipelines read it), not the package name \"foo\" (the convention is \"foo.v1.0.0\")"]
    );
    // No `.` at all.
    assert_eq!(
        csv_name_findings("foo", "foo", &[("1.0.0", "foo-v1-0-0", "1.0.0")]),
        ["CSV name \"foo-v1-0-0\" has no \".\": the pipelines read the operator name and the version from either side of the first \".\" (the operator name must be the package name \"foo\") (the convention is \"foo.v1.0.0\")"]
    );
    // The package's bundles are named without `v`: so is the suggestion.
    assert_eq!(
        csv_name_findings(
            "foo",
            "foo",
            &[("1.0.0", "foo.1.0.0", "1.0.0"), ("1.1.0", "foo.1.1.0", "1.1.0"), ("1.2.0", "foo.1.2.0", "1.2.0"), ("1.3.0", "foo.1.2.0", "1.3.0")]
        ),
        ["CSV name \"foo.1.2.0\" names version \"1.2.0\" but spec.version is \"1.3.0\", and bundle directory 1.2.0 has the same name: an index holds one bundle per name (the convention is \"foo.1.3.0\")"]
    );
    // Named as the package's other bundles are, with or without `v`: nothing to say.
    assert!(csv_name_findings(
        "foo",
        "foo",
        &[
            ("1.0.0", "foo.1.0.0", "1.0.0"),
            ("1.1.0", "foo.1.1.0", "1.1.0")
        ]
    )
    .is_empty());
}
