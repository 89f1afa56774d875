//! Which catalog a changed file belongs to (`--only-files`, `--changed-since`, pre-commit) is
//! decided from paths, never from file text; and the operator-directory layout of
//! community-operators / certified-operators (`operators/<name>/ci.yaml`, version
//! directories) is read as bundles, not as FBC.

use crate::common;
use serde_json::Value;
use std::path::Path;

const PACKAGE: &str = "schema: olm.package\nname: foo\ndefaultChannel: stable\n";
const CHANNEL: &str =
    "schema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n";
const BUNDLE: &str = "schema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n";

/// The split layout of the issue: package, channel and bundle in separate directories.
fn split_catalog(root: &Path, package_dir: &str) {
    common::write_files(
        &root.join("catalog").join(package_dir),
        &[
            ("package.yaml", PACKAGE),
            ("channels/stable.yaml", CHANNEL),
            ("bundles/foo.v1.0.0.yaml", BUNDLE),
        ],
    );
}

fn only_files(cwd: &Path, files: &[&str]) -> (Vec<Value>, String) {
    common::lint_json(Some(cwd), &[&["--only-files"][..], files].concat())
}

#[test]
fn a_changed_file_belongs_to_the_directory_olmlint_runs_in() {
    for package_dir in ["foo", "foo-operator"] {
        let tmp = tempfile::tempdir().unwrap();
        split_catalog(tmp.path(), package_dir);
        let file = format!("catalog/{package_dir}/bundles/foo.v1.0.0.yaml");
        let (d, err) = only_files(tmp.path(), &[&file]);
        assert!(d.is_empty(), "{package_dir}: {d:#?}\n{err}");
        assert!(err.contains("1 package(s), 1 bundle(s)"), "{err}");
    }
}

#[test]
fn the_git_top_level_a_marker_file_and_a_version_directory_decide_before_it() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    split_catalog(&repo, "foo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    // Run from elsewhere: the work tree's top level is the catalog.
    let file = repo.join("catalog/foo/bundles/foo.v1.0.0.yaml");
    let (d, err) = only_files(tmp.path(), &[file.to_str().unwrap()]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
    // A per-OpenShift-version directory is a catalog of its own: v4.17 is not loaded.
    let cats = repo.join("catalogs");
    for v in ["v4.16", "v4.17"] {
        std::fs::create_dir_all(cats.join(v).join("foo")).unwrap();
        std::fs::write(
            cats.join(v).join("foo/catalog.yaml"),
            format!("{PACKAGE}---\n{CHANNEL}---\n{BUNDLE}"),
        )
        .unwrap();
    }
    let file = cats.join("v4.16/foo/catalog.yaml");
    let (d, err) = only_files(tmp.path(), &[file.to_str().unwrap()]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
    assert!(err.contains("1 package(s), 1 bundle(s)"), "{err}");
    // A directory holding .indexignore (or .olmlint.yaml) is a catalog root.
    let marked = repo.join("other/cat");
    split_catalog(&marked, "foo");
    std::fs::write(marked.join(".indexignore"), "README.md\n").unwrap();
    std::fs::write(marked.join("README.md"), "# not yaml: [\n").unwrap();
    let file = marked.join("catalog/foo/package.yaml");
    let (d, err) = only_files(tmp.path(), &[file.to_str().unwrap()]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
    assert!(err.contains("3 file(s)"), "{err}");
}

/// Per-image catalogs of a Konflux repository (rhobs/konflux-coo-fbc): each Dockerfile copies
/// one directory of `catalog/` into its image. A changed file named without a directory (the
/// pre-commit hooks) is judged in its image's catalog, as `olmlint lint .` judges it, not with
/// the other releases' copies of the same bundles (75 false OLM104/OLM106 errors before); a
/// Konflux `Release` object beside them is no catalog's and is not linted.
#[test]
fn a_changed_file_of_a_per_image_catalog_is_judged_in_that_image() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    for v in ["4.21", "4.22"] {
        common::write_files(
            repo,
            &[
                (
                    &format!("catalog/coo-product-v{v}/catalog.yaml"),
                    &format!("---\n{PACKAGE}---\n{CHANNEL}---\n{BUNDLE}"),
                ),
                (
                    &format!("Dockerfile-{v}.catalog"),
                    &format!("FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v{v}\nCOPY catalog/coo-product-v{v} /configs/foo\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n"),
                ),
            ],
        );
    }
    common::write_files(
        repo,
        &[(
            "releases/v4.22/release.yaml",
            "apiVersion: appstudio.redhat.com/v1alpha1\nkind: Release\nmetadata:\n  name: r\n",
        )],
    );
    let (d, err) = only_files(repo, &["catalog/coo-product-v4.22/catalog.yaml"]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
    assert!(err.contains("1 package(s), 1 bundle(s)"), "{err}");
    let (d, err) = only_files(repo, &["releases/v4.22/release.yaml"]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
}

/// A Konflux repository: `catalog/catalog-template.yaml` rendered into `catalog/foo-v4.18`,
/// which a Dockerfile copies into the catalog image. The rendered catalog lacks the
/// template's newest bundle (`make catalogs` not run).
pub(crate) fn template_repository(root: &Path) {
    let image = |c: char| format!("quay.io/x/foo-bundle@sha256:{}", c.to_string().repeat(64));
    std::fs::create_dir_all(root.join(".git")).unwrap();
    common::write_files(
        root,
        &[
            (
                "Dockerfile-4.18.catalog",
                "FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v4.18\nCOPY catalog/foo-v4.18 /configs/foo\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n",
            ),
            (
                "catalog/foo-v4.18/catalog.yaml",
                &format!(
                    "---\n{PACKAGE}---\n{CHANNEL}---\n{}",
                    BUNDLE.replace("quay.io/x/foo:v1", &image('a'))
                ),
            ),
            (
                "catalog/catalog-template.yaml",
                &format!(
                    "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: foo\n    defaultChannel: stable\n  - schema: olm.channel\n    package: foo\n    name: stable\n    entries:\n      - name: foo.v1.0.0\n      - name: foo.v1.1.0\n        replaces: foo.v1.0.0\n  - schema: olm.bundle\n    image: {}\n  - schema: olm.bundle\n    image: {}\n",
                    image('a'),
                    image('b')
                ),
            ),
        ],
    );
}

/// A changed template (the pre-commit hook on it, a pull request touching only it) is judged
/// with the rendered catalogs of its build, as `olmlint lint .` judges it: its images resolve
/// there, and the catalog rendered from it that no longer matches it is reported (OLM906,
/// at the catalog, pointing to the template) though that catalog did not change; a changed
/// rendered catalog is compared with the template the same way.
#[test]
fn a_changed_template_is_paired_with_the_catalogs_of_its_build() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    template_repository(repo);
    let verdicts = |d: &[Value]| -> Vec<(String, String, u64)> {
        let mut v: Vec<_> = d
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_string(),
                    d["file"].as_str().unwrap_or("").to_string(),
                    d["line"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (whole, err) = common::lint_json(Some(repo), &["."]);
    assert!(
        whole.iter().any(|d| d["rule"] == "OLM906"
            && d["file"] == "catalog/foo-v4.18/catalog.yaml"
            && d["related"][0]["file"] == "catalog/catalog-template.yaml"),
        "{whole:#?}\n{err}"
    );
    let (changed, err) = only_files(repo, &["catalog/catalog-template.yaml"]);
    assert_eq!(verdicts(&changed), verdicts(&whole), "{err}");
    // The rendered catalog alone changed (edited by hand): it is compared with the template
    // all the same; the template's own findings are not the change's.
    let (rendered, err) = only_files(repo, &["catalog/foo-v4.18/catalog.yaml"]);
    let drift: Vec<_> = verdicts(&whole)
        .into_iter()
        .filter(|(_, file, _)| file == "catalog/foo-v4.18/catalog.yaml")
        .collect();
    assert_eq!(verdicts(&rendered), drift, "{err}");
    assert!(!drift.is_empty());
}

/// `operators/<name>/` of the community-operators layout.
fn operator_dir(root: &Path) -> std::path::PathBuf {
    let op = root.join("operators/example");
    common::write_files(
        &op,
        &[
            (
                "ci.yaml",
                "updateGraph: replaces-mode\nreviewers: [someone]\n",
            ),
            ("Makefile", "catalogs:\n\topm alpha render-template basic\n"),
            ("release-config.yaml", "catalog_templates: []\n"),
            // Template input and the data it includes: not catalog content.
            (
                "catalog-templates/v4.16.yaml",
                "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: example\n",
            ),
            ("catalog-templates/icon.yaml", "base64data: PHN2Zz4=\nmediatype: image/svg+xml\n"),
        ],
    );
    // 1.0.0 is the bundle; 1.1.0 holds it in bundle/ next to release-config.yaml.
    let v1 = op.join("1.0.0");
    std::fs::create_dir_all(&v1).unwrap();
    let b = common::bundle_dir(&v1, &[]);
    for p in ["manifests", "metadata"] {
        std::fs::rename(b.join(p), v1.join(p)).unwrap();
    }
    std::fs::remove_dir(&b).unwrap();
    // A stray copy of the bundle inside the bundle directory is not content.
    let _ = common::bundle_dir(&v1, &[]);
    let v2 = op.join("1.1.0");
    std::fs::create_dir_all(&v2).unwrap();
    let b2 = common::bundle_dir(&v2, &[]);
    let csv = b2.join("manifests/example.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(
        &csv,
        text.replace("example.v1.0.0", "example.v1.1.0").replace(
            "version: 1.0.0",
            "version: 1.1.0\n  replaces: example.v1.0.0",
        ),
    )
    .unwrap();
    std::fs::write(v2.join("release-config.yaml"), "catalog_templates: []\n").unwrap();
    op
}

#[test]
fn operator_directories_read_their_bundles_only() {
    let tmp = tempfile::tempdir().unwrap();
    let op = operator_dir(tmp.path());
    let d = common::lint_path(&op);
    let rules: Vec<&str> = d.iter().filter_map(|x| x["rule"].as_str()).collect();
    assert!(
        rules
            .iter()
            .all(|r| !matches!(*r, "OLM002" | "OLM003" | "OLM106")),
        "{d:#?}"
    );
    // The operator directory is where a changed ci.yaml or bundle file belongs.
    let (d, err) = only_files(tmp.path(), &[op.join("ci.yaml").to_str().unwrap()]);
    assert!(d.is_empty(), "{d:#?}\n{err}");
    assert!(err.contains("2 bundle(s)"), "{err}");
    // A repeated key in a template is still reported (the earlier value is lost).
    std::fs::write(
        op.join("catalog-templates/dup.yaml"),
        "schema: olm.template.basic\nentries: []\nschema: olm.template.basic\n",
    )
    .unwrap();
    let d = common::lint_path(&op);
    // (The other template, a stub, is linted too: its own findings are not this test's.)
    let rules: std::collections::BTreeSet<(&str, &str)> = d
        .iter()
        .filter(|x| x["file"].as_str().is_some_and(|f| f.ends_with("dup.yaml")))
        .filter_map(|x| Some((x["rule"].as_str()?, x["severity"].as_str()?)))
        .collect();
    // And, being in no ci.yaml mapping, it renders nowhere (OLM905, a warning).
    assert_eq!(
        rules,
        [("OLM004", "warning"), ("OLM905", "warning")].into(),
        "{d:#?}"
    );
    std::fs::remove_file(op.join("catalog-templates/dup.yaml")).unwrap();
    // A template that does not parse is still a syntax error.
    std::fs::write(op.join("catalog-templates/broken.yaml"), "schema: [\n").unwrap();
    let d: Vec<Value> = common::lint_path(&op)
        .into_iter()
        .filter(|x| {
            x["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("broken.yaml"))
        })
        .collect();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["rule"], "OLM001");
    std::fs::remove_file(op.join("catalog-templates/broken.yaml")).unwrap();
    // The repository's `operators/README.md` (certified-operators has one) is not catalog
    // content either: it was a false OLM003 when linting `operators/`.
    let operators = tmp.path().join("operators");
    std::fs::write(
        operators.join("README.md"),
        "This directory contains Red Hat Certified Operator Bundles.\n",
    )
    .unwrap();
    let d = common::lint_path(&operators);
    assert!(
        d.iter()
            .all(|x| !matches!(x["rule"].as_str(), Some("OLM002" | "OLM003"))),
        "{d:#?}"
    );
}

#[test]
fn a_bundle_directory_without_a_csv_is_one_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let b = common::bundle_dir(tmp.path(), &[]);
    std::fs::remove_dir_all(b.join("manifests")).unwrap();
    let d = common::lint_path(&b);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["rule"], "OLM104");
    assert!(common::message(&d[0]).contains("no ClusterServiceVersion"));
}

#[test]
fn version_control_directories_are_not_walked_and_quoted_names_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    common::git(repo, &["init", "-q"], None);
    split_catalog(repo, "foo");
    common::git(repo, &["add", "."], None);
    common::git(repo, &["commit", "-qm", "base"], None);
    // Linting the repository root does not read .git/.
    let d = common::lint_path(repo);
    assert!(d.iter().all(|x| !x.to_string().contains(".git/")), "{d:#?}");
    // A changed file whose name git would quote (non-ASCII) is still linted.
    std::fs::write(
        repo.join("catalog/foo/bundles/ü.yaml"),
        "schema: olm.bundle\npackage: foo\nname: foo.v2.0.0\n",
    )
    .unwrap();
    let (d, err) = common::lint_json(Some(repo), &["--changed-since", "HEAD"]);
    let files: Vec<&str> = d.iter().filter_map(|x| x["file"].as_str()).collect();
    assert!(files.iter().any(|f| f.ends_with("ü.yaml")), "{d:#?}\n{err}");
    // Run from a subdirectory, an untracked file is still found (git lists untracked
    // files relative to the directory it runs in).
    let (d, err) = common::lint_json(Some(&repo.join("catalog")), &["--changed-since", "HEAD"]);
    let files: Vec<&str> = d.iter().filter_map(|x| x["file"].as_str()).collect();
    assert!(files.iter().any(|f| f.ends_with("ü.yaml")), "{d:#?}\n{err}");
}

#[test]
fn catalog_files_beside_version_directories_are_not_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalogs");
    common::write_files(
        &cat,
        &[
            (
                "v4.16/foo/catalog.yaml",
                &format!("{PACKAGE}---\n{CHANNEL}---\n{BUNDLE}"),
            ),
            ("extra.yaml", "name: no-schema\n"),
        ],
    );
    let d = common::lint_path(&cat);
    assert!(
        d.iter().any(|x| x["rule"] == "OLM003"
            && x["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("extra.yaml"))),
        "{d:#?}"
    );
}

#[test]
fn missing_paths_and_directories_given_as_changed_files_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        common::olmlint(
            Some(tmp.path()),
            [&["lint", "--no-config", "--fail-on", "never"][..], args].concat(),
        )
    };
    for args in [
        &["nope"][..],
        &["--only-files", "nope.yaml"][..],
        &["--only-files", "."][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
