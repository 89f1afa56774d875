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
        paths: vec![dir],
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
    // OLM's resolver finds exactly 13 of the 727 bundles not installable from this catalog
    // alone (their dependencies, cert-manager and Tekton, live in other catalogs).
    let mut uninstallable: Vec<&str> = out
        .diags
        .iter()
        .filter(|d| d.rule == "OLM501")
        .filter_map(|d| d.bundle.as_deref())
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
