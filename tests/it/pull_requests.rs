//! Pull requests judged as the operator pipelines judge them (#46): a run of the Action's
//! default (`olmlint lint --changed-since BASE --only-new .` at the repository root) on small
//! operator repositories shaped like the real cases, one commit for the base and the pull
//! request's files in the work tree.

use crate::common::{diagnostics, git, olmlint, write_files};
use serde_json::Value;
use std::path::Path;

/// A registry+v1 bundle directory of operator `op` (package `op`), its CSV named `csv`.
fn bundle(op: &str, version: &str, csv: &str, replaces: Option<&str>) -> Vec<(String, String)> {
    let replaces = replaces.map_or(String::new(), |r| format!("  replaces: {r}\n"));
    vec![
        (
            format!("operators/{op}/{version}/manifests/{op}.clusterserviceversion.yaml"),
            format!(
                "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {csv}\nspec:\n  displayName: {op}\n  version: {version}\n{replaces}  installModes:\n  - type: AllNamespaces\n    supported: true\n"
            ),
        ),
        (
            format!("operators/{op}/{version}/metadata/annotations.yaml"),
            format!(
                "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: {op}\n  operators.operatorframework.io.bundle.channels.v1: stable\n  operators.operatorframework.io.bundle.channel.default.v1: stable\n  com.redhat.openshift.versions: v4.16\n"
            ),
        ),
    ]
}

fn write(dir: &Path, files: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(dir, &refs);
}

/// A repository (committed) holding operator `aims`, whose CSVs are named
/// `operator-aims-mobile.vX` (not after the package), with two released bundles.
fn aims_repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"], None);
    let mut files = vec![(
        "operators/aims/ci.yaml".to_string(),
        "updateGraph: replaces-mode\nreviewers:\n  - alice\n".to_string(),
    )];
    files.extend(bundle(
        "aims",
        "0.0.22",
        "operator-aims-mobile.v0.0.22",
        None,
    ));
    files.extend(bundle(
        "aims",
        "0.0.23",
        "operator-aims-mobile.v0.0.23",
        Some("operator-aims-mobile.v0.0.22"),
    ));
    // Another operator, so that the root is an operator repository of several operators.
    files.push((
        "operators/other/ci.yaml".to_string(),
        "updateGraph: replaces-mode\n".to_string(),
    ));
    files.extend(bundle("other", "1.0.0", "other.v1.0.0", None));
    write(dir, &files);
    std::fs::write(dir.join("README.md"), "# operators\n").unwrap();
    git(dir, &["add", "-A"], None);
    git(dir, &["commit", "-qm", "base"], None);
    tmp
}

/// (rule, severity, `field`) of each finding.
fn rule_severity_and<'d>(diags: &'d [Value], field: &str) -> Vec<(&'d str, &'d str, &'d str)> {
    diags
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["severity"].as_str().unwrap(),
                d[field].as_str().unwrap(),
            )
        })
        .collect()
}

/// The Action's run: `lint --changed-since HEAD --only-new -f json .`.
fn action_run(dir: &Path) -> (Option<i32>, Vec<Value>, Value) {
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            "--changed-since",
            "HEAD",
            "--only-new",
            ".",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), diagnostics(&out), report)
}

fn catalogs(report: &Value) -> Vec<String> {
    report["catalogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

/// A new bundle is judged with its operator's other bundles: named as they are, no OLM805
/// (it was linted alone and expected the package name: 28 false warnings in the replay).
#[test]
fn a_new_bundle_is_linted_with_its_whole_operator() {
    let tmp = aims_repository();
    let dir = tmp.path();
    write(
        dir,
        &bundle(
            "aims",
            "0.0.24",
            "operator-aims-mobile.v0.0.24",
            Some("operator-aims-mobile.v0.0.23"),
        ),
    );
    let (code, diags, report) = action_run(dir);
    assert_eq!(diags, Vec::<Value>::new());
    assert_eq!(code, Some(0));
    // The operator, not the bundle directory nor the repository as one catalog.
    assert_eq!(catalogs(&report), ["operators/aims"]);
}

/// A `replaces` naming a bundle the operator does not have (the real PR's
/// `operator-aims-mobile.0.0.23`, its `v` missing) blocks the index build: found in PR mode.
#[test]
fn a_replaces_naming_no_bundle_of_the_operator_is_found_in_pr_mode() {
    let tmp = aims_repository();
    let dir = tmp.path();
    write(
        dir,
        &bundle(
            "aims",
            "0.0.24",
            "operator-aims-mobile.v0.0.24",
            Some("operator-aims-mobile.0.0.23"),
        ),
    );
    let (code, diags, _) = action_run(dir);
    let found = rule_severity_and(&diags, "file");
    assert_eq!(
        found,
        [(
            "OLM802",
            "error",
            "operators/aims/0.0.24/manifests/aims.clusterserviceversion.yaml"
        )]
    );
    assert_eq!(code, Some(1));
}

/// A changed file that no catalog of the build holds (the repository's README or a
/// workflow) is not catalog content: nothing to lint, never the repository as one catalog.
#[test]
fn a_change_outside_the_catalogs_lints_nothing() {
    let tmp = aims_repository();
    let dir = tmp.path();
    write_files(dir, &[(".github/workflows/x.yaml", "on: push\n")]);
    git(dir, &["add", "-A"], None);
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            "--changed-since",
            "HEAD",
            "--only-new",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(diagnostics(&out), Vec::<Value>::new());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no catalog files changed"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const TEMPLATE: &str = "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: kubernaut\n    defaultChannel: stable\n  - schema: olm.channel\n    package: kubernaut\n    name: stable\n    entries:\n      - name: kubernaut.v1.0.0\n  - schema: olm.bundle\n    image: quay.io/x/kubernaut-bundle:v1.0.0\n";

const RENDERED: &str = "---\nschema: olm.package\nname: kubernaut\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: kubernaut\nname: stable\nentries:\n  - name: kubernaut.v1.0.0\n---\nschema: olm.bundle\npackage: kubernaut\nname: kubernaut.v1.0.0\nimage: quay.io/x/kubernaut-bundle:v1.0.0\nproperties:\n  - type: olm.package\n    value: {packageName: kubernaut, version: 1.0.0}\n";

/// An FBC operator whose ci.yaml maps `basic.yaml` to v4.17 and v4.18, both rendered.
fn fbc_repository(ci: &str, template: bool) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"], None);
    let mut files = vec![("operators/kubernaut/ci.yaml", ci)];
    if template {
        files.push(("operators/kubernaut/catalog-templates/basic.yaml", TEMPLATE));
    }
    for v in ["v4.17", "v4.18"] {
        files.push((
            if v == "v4.17" {
                "catalogs/v4.17/kubernaut/catalog.yaml"
            } else {
                "catalogs/v4.18/kubernaut/catalog.yaml"
            },
            RENDERED,
        ));
    }
    write_files(dir, &files);
    write(dir, &bundle("kubernaut", "1.0.0", "kubernaut.v1.0.0", None));
    git(dir, &["add", "-A"], None);
    git(dir, &["commit", "-qm", "base"], None);
    tmp
}

const FBC_CI: &str = "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: basic.yaml\n      catalog_names: [v4.17, v4.18]\n      type: olm.template.basic\nreviewers:\n  - alice\n";

/// Whether a mapped catalog is rendered is a question of the repository: a PR that touches
/// only v4.18 does not load v4.17, which is there all the same (13 false OLM905 in the replay).
#[test]
fn mapped_catalogs_the_run_did_not_load_are_rendered_when_they_exist() {
    let tmp = fbc_repository(FBC_CI, true);
    let dir = tmp.path();
    std::fs::write(
        dir.join("catalogs/v4.18/kubernaut/catalog.yaml"),
        RENDERED.replace(
            "name: kubernaut.v1.0.0\n---",
            "name: kubernaut.v1.0.0\n# ok\n---",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("operators/kubernaut/ci.yaml"),
        format!("{FBC_CI}  - bob\n"),
    )
    .unwrap();
    let (code, diags, report) = action_run(dir);
    assert!(!diags.iter().any(|d| d["rule"] == "OLM905"), "{diags:#?}");
    assert_eq!(code, Some(0), "{diags:#?}");
    assert_eq!(catalogs(&report), ["catalogs/v4.18", "operators/kubernaut"]);
    // Deleted, v4.17 is not rendered: a warning, at the mapping.
    std::fs::remove_file(dir.join("catalogs/v4.17/kubernaut/catalog.yaml")).unwrap();
    let (_, diags, _) = action_run(dir);
    let d = diags
        .iter()
        .find(|d| d["rule"] == "OLM905")
        .unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(d["severity"], "warning");
    assert!(
        d["message"].as_str().unwrap().contains("catalog v4.17"),
        "{d}"
    );
}

/// The pipelines' documented FBC onboarding: the bundle PR sets `fbc.enabled` and
/// `catalog_mapping`; the templates come in the "catalog update" PR. The first PR gets one
/// warning per missing template that says so, no error, and no path of the machine.
#[test]
fn the_first_pull_request_of_the_fbc_onboarding_passes() {
    let tmp = fbc_repository("updateGraph: replaces-mode\nreviewers:\n  - alice\n", false);
    let dir = tmp.path();
    std::fs::write(dir.join("operators/kubernaut/ci.yaml"), FBC_CI).unwrap();
    let (code, diags, _) = action_run(dir);
    assert_eq!(code, Some(0), "{diags:#?}");
    let found: Vec<&Value> = diags.iter().filter(|d| d["rule"] == "OLM905").collect();
    assert_eq!(found.len(), 1, "{diags:#?}");
    let d = found[0];
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        d["message"],
        "ci.yaml maps template \"basic.yaml\", which is not in the operator's catalog-templates/ (yet)"
    );
    let text = d.to_string();
    let machine = dir.to_string_lossy();
    assert!(!text.contains(machine.as_ref()), "{text}");
    assert!(d["help"].as_str().unwrap().contains("catalog update"));
}

const COMMUNITY_CONFIG: &str = "organization: community-operators\ntests:\n  - name: check_operator_name\n    ignore_operators:\n      - ^postgresql\nallowed_bundle_registries:\n  - quay.io/community-operator-pipeline-prod/\n";

/// A bundle directory whose annotations are `annotations` (YAML lines) and whose CSV spec has
/// `spec` (YAML lines).
fn custom_bundle(
    op: &str,
    version: &str,
    csv: &str,
    annotations: &str,
    spec: &str,
) -> Vec<(String, String)> {
    vec![
        (
            format!("operators/{op}/{version}/manifests/{op}.clusterserviceversion.yaml"),
            format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {csv}\nspec:\n  version: {version}\n{spec}"),
        ),
        (
            format!("operators/{op}/{version}/metadata/annotations.yaml"),
            format!("annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: {op}\n  operators.operatorframework.io.bundle.channels.v1: stable\n  operators.operatorframework.io.bundle.channel.default.v1: stable\n{annotations}"),
        ),
    ]
}

/// A committed repository with `config.yaml` (when given) and `files`.
fn repository(config: Option<&str>, files: &[(String, String)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"], None);
    if let Some(c) = config {
        std::fs::write(dir.join("config.yaml"), c).unwrap();
    }
    write(dir, files);
    git(dir, &["add", "-A"], None);
    git(dir, &["commit", "-qm", "base"], None);
    tmp
}

fn rules(diags: &[Value]) -> Vec<(String, String)> {
    diags
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(rule: &str, severity: &str) -> (String, String) {
    (rule.to_string(), severity.to_string())
}

/// The community suite fails a new bundle that sets minKubeVersion without
/// com.redhat.openshift.versions (20 unmerged PRs were blocked by it; olmlint warned). Where
/// no config.yaml names the suite, the old verdict stands.
#[test]
fn the_community_suite_fails_min_kube_version_without_openshift_versions() {
    let mut files = vec![(
        "operators/kube/ci.yaml".to_string(),
        "updateGraph: replaces-mode\nreviewers:\n  - alice\n".to_string(),
    )];
    files.extend(custom_bundle(
        "kube",
        "1.0.0",
        "kube.v1.0.0",
        "  com.redhat.openshift.versions: v4.12\n",
        "",
    ));
    let new = custom_bundle(
        "kube",
        "1.1.0",
        "kube.v1.1.0",
        "",
        "  replaces: kube.v1.0.0\n  minKubeVersion: 1.20.0\n",
    );
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    write(tmp.path(), &new);
    let (code, diags, _) = action_run(tmp.path());
    assert_eq!(rules(&diags), [pair("OLM807", "error")], "{diags:#?}");
    let message = diags[0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "minKubeVersion is set to 1.20.0 but com.redhat.openshift.versions is not set"
        ),
        "{message}"
    );
    assert_eq!(code, Some(1));
    // Without the repository's config.yaml: 1.20 is below every release's Kubernetes.
    let tmp = repository(None, &files);
    write(tmp.path(), &new);
    let (code, diags, _) = action_run(tmp.path());
    assert_eq!(diags, Vec::<Value>::new());
    assert_eq!(code, Some(0));
}

/// config.yaml's `tests[].ignore_operators` waives check_operator_name for operators whose
/// directory matches (`re.match`); a first bundle named after no package fails elsewhere.
#[test]
fn waivers_and_first_bundles_follow_the_repository_configuration() {
    let files = vec![(
        "operators/postgresql-operator/ci.yaml".to_string(),
        "reviewers:\n  - alice\n".to_string(),
    )];
    let first = |op: &str| {
        custom_bundle(
            op,
            "1.0.0",
            "pg.v1.0.0",
            "  com.redhat.openshift.versions: v4.14\n",
            "",
        )
    };
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    write(tmp.path(), &first("postgresql-operator"));
    let out = olmlint(
        Some(tmp.path()),
        [
            "lint",
            "--no-config",
            "--changed-since",
            "HEAD",
            "--only-new",
            ".",
        ],
    );
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "config.yaml waives check_operator_name for postgresql-operator (\"^postgresql\")"
        ),
        "{text}"
    );
    // Another operator, not waived: its first bundle's CSV names operator "pg", not the
    // package: check_operator_name fails it.
    let files = vec![(
        "operators/mysql/ci.yaml".to_string(),
        "reviewers:\n  - alice\n".to_string(),
    )];
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    write(tmp.path(), &first("mysql"));
    let (code, diags, _) = action_run(tmp.path());
    assert_eq!(rules(&diags), [pair("OLM805", "error")], "{diags:#?}");
    assert_eq!(code, Some(1));
}

/// In semver-mode the index build ignores spec.replaces and the pipelines look the target up
/// by version (stackgres-community's `replaces: stackgres.v1.18.5`: 34 false OLM802).
#[test]
fn semver_mode_replaces_are_looked_up_by_version() {
    let mut files = vec![(
        "operators/stackgres-community/ci.yaml".to_string(),
        "updateGraph: semver-mode\nreviewers:\n  - alice\n".to_string(),
    )];
    let ann = "  com.redhat.openshift.versions: v4.14\n";
    files.extend(custom_bundle(
        "stackgres-community",
        "1.18.5",
        "stackgres.v1.18.5",
        ann,
        "",
    ));
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    write(
        tmp.path(),
        &custom_bundle(
            "stackgres-community",
            "1.18.6",
            "stackgres.v1.18.6",
            ann,
            "  replaces: stackgres-community.v1.18.5\n",
        ),
    );
    let (code, diags, _) = action_run(tmp.path());
    assert_eq!(diags, Vec::<Value>::new());
    assert_eq!(code, Some(0));
    // A version no bundle has is still found.
    write(
        tmp.path(),
        &custom_bundle(
            "stackgres-community",
            "1.18.6",
            "stackgres.v1.18.6",
            ann,
            "  replaces: stackgres.v1.18.4\n",
        ),
    );
    let (_, diags, _) = action_run(tmp.path());
    assert_eq!(rules(&diags), [pair("OLM802", "error")], "{diags:#?}");
}

/// An FBC operator's bundle goes to the catalogs ci.yaml maps, not to what its annotation
/// selects (kubernaut: mapped to 4.18+, minKubeVersion 1.31).
#[test]
fn an_fbc_bundle_is_judged_against_the_catalogs_it_is_mapped_to() {
    let ci = "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: semver.yaml\n      catalog_names: [v4.18, v4.19]\n      type: olm.semver\nreviewers:\n  - alice\n";
    let mut files = vec![
        ("operators/kubernaut/ci.yaml".to_string(), ci.to_string()),
        (
            "operators/kubernaut/catalog-templates/semver.yaml".to_string(),
            "Schema: olm.semver\nGenerateMajorChannels: true\nGenerateMinorChannels: false\nCandidate:\n  Bundles: []\n".to_string(),
        ),
    ];
    files.extend(custom_bundle(
        "kubernaut",
        "1.0.0",
        "kubernaut.v1.0.0",
        "  com.redhat.openshift.versions: v4.12\n",
        "",
    ));
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    write(
        tmp.path(),
        &custom_bundle(
            "kubernaut",
            "1.1.0",
            "kubernaut.v1.1.0",
            "  com.redhat.openshift.versions: v4.12\n",
            "  minKubeVersion: 1.31.0\n",
        ),
    );
    let (code, diags, _) = action_run(tmp.path());
    assert!(!diags.iter().any(|d| d["rule"] == "OLM807"), "{diags:#?}");
    assert_eq!(code, Some(0), "{diags:#?}");
}

/// release-config.yaml: a template ci.yaml does not map (rabbitmq-cluster-operator 2.22.2),
/// and a `replaces` that names no entry of the template's channel (amd-gpu-operator 1.5.1,
/// its `v` missing).
#[test]
fn release_configs_are_checked_as_the_pipelines_release_them() {
    let ci = "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: v4.18.yaml\n      catalog_names: [v4.18]\n      type: olm.template.basic\nreviewers:\n  - alice\n";
    let template = "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: amd\n    defaultChannel: alpha\n  - schema: olm.channel\n    package: amd\n    name: alpha\n    entries:\n      - name: amd.v1.5.0\n  - schema: olm.bundle\n    image: quay.io/community-operator-pipeline-prod/amd@sha256:9d7a0205e1597f21237669d88b373cbd33850a4c9d7a0205e1597f21237669d8\n";
    let mut files = vec![
        ("operators/amd/ci.yaml".to_string(), ci.to_string()),
        (
            "operators/amd/catalog-templates/v4.18.yaml".to_string(),
            template.to_string(),
        ),
    ];
    let ann = "  com.redhat.openshift.versions: v4.18\n";
    files.extend(custom_bundle("amd", "1.5.0", "amd.v1.5.0", ann, ""));
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    let dir = tmp.path();
    let mut new = custom_bundle("amd", "1.5.1", "amd.v1.5.1", ann, "");
    new.push((
        "operators/amd/1.5.1/release-config.yaml".to_string(),
        "catalog_templates:\n  - template_name: v4.18.yaml\n    channels: [alpha]\n    replaces: amd.1.5.0\n  - template_name: v4.21.yaml\n    channels: [alpha]\n".to_string(),
    ));
    write(dir, &new);
    let (code, diags, _) = action_run(dir);
    let found = rule_severity_and(&diags, "pointer");
    assert_eq!(
        found,
        [
            ("OLM808", "error", "/catalog_templates/0/replaces"),
            ("OLM808", "error", "/catalog_templates/1/template_name"),
        ],
        "{diags:#?}"
    );
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"amd.v1.5.0\""),
        "{diags:#?}"
    );
    // opm's own words for what the dry run meets.
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("\"multiple channel heads found in graph: amd.v1.5.0, amd.v1.5.1\""),
        "{diags:#?}"
    );
    assert_eq!(code, Some(1));
    // Fixed as the real PR fixed it: nothing to report.
    std::fs::write(
        dir.join("operators/amd/1.5.1/release-config.yaml"),
        "catalog_templates:\n  - template_name: v4.18.yaml\n    channels: [alpha]\n    replaces: amd.v1.5.0\n",
    )
    .unwrap();
    let (code, diags, _) = action_run(dir);
    assert_eq!(diags, Vec::<Value>::new());
    assert_eq!(code, Some(0));
}

/// A catalog pull request whose catalog names a bundle image outside config.yaml's
/// allowed_bundle_registries (check_bundle_images_in_fbc).
#[test]
fn catalog_images_come_from_the_allowed_registries() {
    let files = vec![
        (
            "operators/kubernaut/ci.yaml".to_string(),
            FBC_CI.to_string(),
        ),
        (
            "operators/kubernaut/catalog-templates/basic.yaml".to_string(),
            TEMPLATE.to_string(),
        ),
        (
            "catalogs/v4.17/kubernaut/catalog.yaml".to_string(),
            RENDERED.to_string(),
        ),
        (
            "catalogs/v4.18/kubernaut/catalog.yaml".to_string(),
            RENDERED.to_string(),
        ),
    ];
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    let dir = tmp.path();
    std::fs::write(
        dir.join("catalogs/v4.18/kubernaut/catalog.yaml"),
        RENDERED.replace("quay.io/x/", "quay.io/alice/"),
    )
    .unwrap();
    let (_, diags, _) = action_run(dir);
    let d = diags
        .iter()
        .find(|d| d["rule"] == "OLM809")
        .unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "catalogs/v4.18/kubernaut/catalog.yaml");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("quay.io/alice/kubernaut-bundle:v1.0.0"));
    // The images that were there already are not the change's.
    assert_eq!(
        diags.iter().filter(|d| d["rule"] == "OLM809").count(),
        1,
        "{diags:#?}"
    );
}

/// A dependency on another operator of the same repository (cpd-platform-operator on
/// ibm-common-service-operator: 21 OLM507 "another catalog" warnings in the replay) is
/// resolved against that operator, loaded as context by its package name or by the API group
/// in its CRD file names; one the repository does not have stays OLM507.
#[test]
fn dependencies_on_operators_of_the_same_repository_are_resolved_there() {
    let ann = "  com.redhat.openshift.versions: v4.14\n";
    let owned = "  customresourcedefinitions:\n    owned:\n    - name: commonservices.operator.ibm.com\n      version: v3\n      kind: CommonService\n";
    let mut files = vec![
        ("operators/common/ci.yaml".to_string(), "updateGraph: replaces-mode\nreviewers:\n  - alice\n".to_string()),
        ("operators/common/4.0.0/manifests/operator.ibm.com_commonservices.yaml".to_string(), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: commonservices.operator.ibm.com\nspec:\n  group: operator.ibm.com\n  names:\n    kind: CommonService\n    plural: commonservices\n  scope: Namespaced\n  versions:\n  - name: v3\n    served: true\n    storage: true\n".to_string()),
        ("operators/app/ci.yaml".to_string(), "updateGraph: replaces-mode\nreviewers:\n  - alice\n".to_string()),
    ];
    files.extend(custom_bundle(
        "common",
        "4.0.0",
        "common.v4.0.0",
        ann,
        owned,
    ));
    files.extend(custom_bundle("app", "1.0.0", "app.v1.0.0", ann, ""));
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    let dir = tmp.path();
    let mut new = custom_bundle(
        "app",
        "1.1.0",
        "app.v1.1.0",
        ann,
        "  replaces: app.v1.0.0\n  customresourcedefinitions:\n    required:\n    - name: commonservices.operator.ibm.com\n      version: v3\n      kind: CommonService\n",
    );
    new.push((
        "operators/app/1.1.0/metadata/dependencies.yaml".to_string(),
        "dependencies:\n  - type: olm.package\n    value:\n      packageName: common\n      version: '>=4.0.0'\n  - type: olm.package\n    value:\n      packageName: elsewhere\n      version: '>=1.0.0'\n".to_string(),
    ));
    write(dir, &new);
    let out = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            "--changed-since",
            "HEAD",
            "--only-new",
            ".",
        ],
    );
    let diags = diagnostics(&out);
    let found: Vec<String> = diags
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["rule"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("OLM507 app.v1.1.0 requires an operator with package: elsewhere"),
        "{found:#?}"
    );
    let human = olmlint(
        Some(dir),
        [
            "lint",
            "--no-config",
            "--changed-since",
            "HEAD",
            "--only-new",
            ".",
        ],
    );
    let text = String::from_utf8_lossy(&human.stdout).to_string()
        + &String::from_utf8_lossy(&human.stderr);
    assert!(
        text.contains("resolved with operators/common as context"),
        "{text}"
    );
}

/// `--only-new` lints a catalog as it was at the base only to drop the findings that were
/// there: findings all in files the base does not have (a new bundle's) are new whatever it
/// held, and the catalog is linted once; a finding in a file the base has needs the base.
#[test]
fn a_catalog_whose_findings_are_all_in_added_files_is_not_linted_at_the_base() {
    let mut files = vec![(
        "operators/app/ci.yaml".to_string(),
        "updateGraph: replaces-mode\nreviewers:\n  - alice\n".to_string(),
    )];
    files.extend(bundle("app", "1.0.0", "app.v1.0.0", None));
    let tmp = repository(Some(COMMUNITY_CONFIG), &files);
    let dir = tmp.path();
    let mut new = bundle("app", "1.1.0", "app.v1.1.0", Some("app.v1.0.0"));
    new.push((
        "operators/app/1.1.0/metadata/dependencies.yaml".to_string(),
        "dependencies:\n  - type: olm.package\n    value:\n      packageName: elsewhere\n      version: '>=1.0.0'\n".to_string(),
    ));
    write(dir, &new);
    // How many catalogs the run checked (the timing lines say so, one per lint pass).
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args([
                "lint",
                "--no-config",
                "-f",
                "json",
                "--changed-since",
                "HEAD",
                "--only-new",
                ".",
            ])
            .current_dir(dir)
            .env("OLMLINT_TIMINGS", "1")
            .output()
            .unwrap();
        let passes = String::from_utf8_lossy(&out.stderr)
            .matches("catalogs checked")
            .count();
        let found: Vec<String> = diagnostics(&out)
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d["rule"].as_str().unwrap(),
                    d["file"].as_str().unwrap_or("")
                )
            })
            .collect();
        (passes, found)
    };
    let (passes, found) = run();
    assert_eq!(
        found,
        ["OLM507 operators/app/1.1.0/metadata/dependencies.yaml"],
        "{found:#?}"
    );
    assert_eq!(passes, 1, "the base was linted");
    // The same dependency in the released bundle (a file the base has): the base is needed.
    write(
        dir,
        &[(
            "operators/app/1.0.0/metadata/dependencies.yaml".to_string(),
            "dependencies:\n  - type: olm.package\n    value:\n      packageName: elsewhere\n      version: '>=1.0.0'\n".to_string(),
        )],
    );
    git(
        dir,
        &["add", "operators/app/1.0.0/metadata/dependencies.yaml"],
        None,
    );
    git(
        dir,
        &["commit", "-qm", "released with the dependency"],
        None,
    );
    std::fs::write(
        dir.join("operators/app/1.0.0/metadata/dependencies.yaml"),
        "dependencies:\n  - type: olm.package\n    value:\n      packageName: elsewhere\n      version: '>=1.0.1'\n",
    )
    .unwrap();
    let (passes, found) = run();
    assert_eq!(passes, 2, "{found:#?}");
}

/// The pre-commit hooks (`--only-files` with the changed files, no directory) get the same
/// whole-operator judgement as the Action.
#[test]
fn the_pre_commit_hooks_lint_the_whole_operator_too() {
    let tmp = aims_repository();
    let dir = tmp.path();
    let new = bundle(
        "aims",
        "0.0.24",
        "operator-aims-mobile.v0.0.24",
        Some("operator-aims-mobile.0.0.23"),
    );
    write(dir, &new);
    let mut args: Vec<&str> = vec!["lint", "--no-config", "-f", "json", "--only-files"];
    args.extend(new.iter().map(|(p, _)| p.as_str()));
    let out = olmlint(Some(dir), &args);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(catalogs(&report), ["operators/aims"]);
    let rules: Vec<&str> = diagnostics(&out)
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .map(|r| if r == "OLM802" { "OLM802" } else { "other" })
        .collect();
    assert_eq!(rules, ["OLM802"]);
    assert_eq!(out.status.code(), Some(1));
}
