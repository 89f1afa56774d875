//! The real catalogs under ../shared/corpus load completely and pass every check that
//! `opm validate` applies (all of them pass opm validate v1.73).

use olmlint::lint::{run, Options};
use std::path::PathBuf;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/catalogs")
}

/// Rules that mirror `opm validate`: none may report an error on a catalog opm accepts.
fn is_opm_rule(rule: &str) -> bool {
    rule.starts_with("OLM0") || rule.starts_with("OLM1") || rule == "OLM305"
}

#[test]
fn community_v4_18_loads_every_file_and_bundle() {
    let dir = corpus().join("community-v4.18");
    if !dir.exists() {
        eprintln!("skipped: {} not present", dir.display());
        return;
    }
    let out = run(&Options {
        paths: vec![dir.clone()],
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(out.summary.files, 35);
    assert_eq!(out.summary.bundles, 727);
    assert_eq!(out.summary.packages, 35);
    let load: Vec<_> = out
        .diags
        .iter()
        .filter(|d| matches!(d.rule, "OLM001" | "OLM002" | "OLM003" | "OLM004" | "OLM005"))
        .collect();
    assert!(load.is_empty(), "{load:#?}");
    let opm: Vec<_> = out
        .diags
        .iter()
        .filter(|d| is_opm_rule(d.rule) && d.severity == olmlint::diag::Severity::Error)
        .map(|d| (d.rule, d.message.clone()))
        .collect();
    assert!(opm.is_empty(), "{opm:#?}");
    // Open world (the default): the dependencies of alloydb and shipwright (cert-manager and
    // Tekton) live in other catalogs of the cluster, so no bundle is uninstallable, and each
    // absent dependency is one OLM507 warning per package.
    assert!(out
        .diags
        .iter()
        .all(|d| d.rule != "OLM501" && d.rule != "OLM503"));
    let elsewhere: Vec<String> = out
        .diags
        .iter()
        .filter(|d| d.rule == "OLM507")
        .map(|d| format!("{} {}", d.package.as_deref().unwrap_or(""), d.message))
        .collect();
    assert_eq!(elsewhere.len(), 6, "{elsewhere:#?}");
    assert!(elsewhere.iter().any(|m| m.starts_with("alloydb-omni-operator 11 bundles") && m.contains("Certificate")), "{elsewhere:#?}");
    // Closed world: OLM's resolver finds exactly 13 of the 727 bundles not installable from
    // this catalog alone.
    let out = run(&Options {
        paths: vec![dir],
        no_config: true,
        closed_world: true,
        ..Default::default()
    })
    .unwrap();
    // Each bundle once, whether its verdict stands alone or is folded into its cause.
    let mut uninstallable: Vec<&str> = out
        .diags
        .iter()
        .flat_map(|d| d.verdicts())
        .filter(|v| v.0 == "OLM501")
        .filter_map(|v| v.2)
        .collect();
    uninstallable.sort_unstable();
    assert_eq!(uninstallable.len(), 13, "{uninstallable:#?}");
    assert!(
        uninstallable
            .iter()
            .all(|b| b.starts_with("alloydb-omni-operator.")
                || b.starts_with("shipwright-operator.")),
        "{uninstallable:#?}"
    );
}

#[test]
fn every_openshift_catalog_in_the_tarball_passes_the_opm_rules() {
    let tarball = corpus().join("community-operators-prod-catalogs.tar.xz");
    if !tarball.exists() {
        eprintln!("skipped: {} not present", tarball.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("tar")
        .arg("-xJf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir.path())
        .status();
    let Ok(status) = status else {
        eprintln!("skipped: tar is not available");
        return;
    };
    assert!(status.success());
    // Each OpenShift version directory is its own catalog (as `opm validate catalogs/v4.x`).
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.path().join("catalogs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "{paths:?}");
    let out = run(&Options {
        paths,
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    assert!(out.summary.files > 200, "{:?}", out.summary);
    assert!(out.summary.bundles > 5000, "{:?}", out.summary);
    let opm: Vec<_> = out
        .diags
        .iter()
        .filter(|d| is_opm_rule(d.rule) && d.severity == olmlint::diag::Severity::Error)
        .map(|d| (d.rule, d.message.clone()))
        .take(20)
        .collect();
    assert!(opm.is_empty(), "{opm:#?}");
}

/// `olmlint resolve PACKAGE@BUNDLE` for every bundle of community-v4.18 in a channel: an install
/// set (holding the bundle) exactly for the bundles OLM501 does not report, and an explanation
/// for the others.
#[test]
fn resolve_agrees_with_olm501_on_community_v4_18() {
    use olmlint::resolve::{run_all, Request};
    use std::collections::BTreeSet;
    let dir = corpus().join("community-v4.18");
    if !dir.exists() {
        eprintln!("skipped: {} not present", dir.display());
        return;
    }
    // `resolve` uses exactly the catalogs it is given: compare with the closed world.
    let out = run(&Options {
        paths: vec![dir.clone()],
        no_config: true,
        closed_world: true,
        ..Default::default()
    })
    .unwrap();
    let uninstallable: BTreeSet<(String, String)> = out
        .diags
        .iter()
        .flat_map(|d| d.verdicts())
        .filter(|v| v.0 == "OLM501")
        .map(|v| (v.1.unwrap().to_string(), v.2.unwrap().to_string()))
        .collect();
    assert_eq!(uninstallable.len(), 13);
    // Every bundle listed in some channel (the ones OLM501 checks).
    let loaded = olmlint::load::load(
        std::slice::from_ref(&dir),
        &olmlint::load::Limits::default(),
    );
    let catalog = olmlint::model::build(&loaded.files, 0, &mut Vec::new());
    let listed: BTreeSet<(String, String)> = catalog
        .channels
        .iter()
        .flat_map(|c| {
            let package = c.package.map_or("", |p| p.value);
            c.entries
                .iter()
                .map(move |e| (package.to_string(), e.name().to_string()))
        })
        .collect();
    assert!(listed.len() > 700, "{} bundles listed", listed.len());
    let requests: Vec<Request> = listed
        .iter()
        .map(|(p, b)| Request {
            package: p.clone(),
            bundle: Some(b.clone()),
            catalogs: vec![(dir.clone(), 0)],
            ..Default::default()
        })
        .collect();
    let answers = run_all(&requests);
    let mut disagreements = Vec::new();
    for ((p, b), answer) in listed.iter().zip(answers) {
        let a = answer.unwrap();
        let expected = !uninstallable.contains(&(p.clone(), b.clone()));
        let holds_it = a.installed.contains(b) && a.bundle.as_deref() == Some(b.as_str());
        let explained = a.explanation.as_ref().is_some_and(|e| !e.is_empty());
        if a.installable != expected
            || (a.installable && !holds_it)
            || (!a.installable && !explained)
        {
            disagreements.push(format!(
                "{b}: resolve says installable={} ({:?}), OLM501 says {}",
                a.installable, a.explanation, expected
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
