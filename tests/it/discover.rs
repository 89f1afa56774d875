//! Discovery (issue #45): `olmlint lint` at a repository's root, or in any directory of it,
//! lints the catalogs the repository's builds produce — what each Dockerfile/Containerfile
//! copies into `/configs`, with the Konflux pipelines' build arguments — the per-release
//! catalogs, the templates and bundle directories beside them, and nothing else: README,
//! Makefile, `.tekton/`, scripts are never read as catalog documents. Each layout class here
//! is one seen in real repositories (tests/data/field/README.md names them).

use crate::common;
use serde_json::Value;
use std::path::Path;

fn catalog(package: &str, version: &str) -> String {
    format!(
        "{{\"schema\":\"olm.package\",\"name\":\"{package}\",\"defaultChannel\":\"stable\"}}\n{{\"schema\":\"olm.channel\",\"package\":\"{package}\",\"name\":\"stable\",\"entries\":[{{\"name\":\"{package}.v{version}\"}}]}}\n{{\"schema\":\"olm.bundle\",\"package\":\"{package}\",\"name\":\"{package}.v{version}\",\"image\":\"quay.io/x/{package}-bundle@sha256:{}\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"{package}\",\"version\":\"{version}\"}}}}]}}\n",
        "a".repeat(64)
    )
}

const GENERATED_DOCKERFILE: &str = "# The base image is expected to contain\n# /bin/opm (with a serve subcommand) and /bin/grpc_health_probe\nFROM quay.io/operator-framework/opm:latest\nENTRYPOINT [\"/bin/opm\"]\nCMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"]\nADD catalog /configs\nRUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n";

const REPOSITORY_FILES: [(&str, &str); 5] = [
    ("README.md", "# my operator\n\nSee docs.\n"),
    ("LICENSE", "Apache License\n"),
    ("Makefile", "catalog:\n\topm render x > catalog/x.json\n"),
    (".github/workflows/ci.yaml", "on: push\njobs: {}\n"),
    (
        "config/samples/sub.yaml",
        "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: x\n",
    ),
];

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
    common::write_files(tmp.path(), &REPOSITORY_FILES);
    common::write_files(tmp.path(), files);
    tmp
}

/// `olmlint lint [args]` in `cwd` with JSON output: the findings, the plan, stderr.
fn lint(cwd: &Path, args: &[&str]) -> (Vec<Value>, Vec<Value>, String) {
    let out = common::olmlint(
        Some(cwd),
        ["lint", "--no-config", "-f", "json"].iter().chain(args),
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        doc["diagnostics"].as_array().unwrap().clone(),
        doc["catalogs"].as_array().unwrap().clone(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn plan(catalogs: &[Value]) -> Vec<(String, String)> {
    catalogs
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_directory_a_generated_dockerfile_copies_is_the_catalog() {
    let cat = catalog("foo", "1.0.0");
    let tmp = repo(&[
        ("catalog.Dockerfile", GENERATED_DOCKERFILE),
        ("catalog/foo/catalog.json", &cat),
        ("bundle/metadata/annotations.yaml", "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n"),
    ]);
    let (d, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(
        plan(&cats),
        pairs(&[("catalog", "image"), ("bundle", "bundle")]),
        "{err}"
    );
    assert_eq!(
        cats[0]["reason"],
        "copied to /configs by catalog.Dockerfile:6"
    );
    // Nothing of the repository's own files was read as a catalog document.
    assert!(
        d.iter().all(|x| x["file"]
            .as_str()
            .is_none_or(|f| f.starts_with("catalog/") || f.starts_with("bundle/"))),
        "{d:#?}"
    );
    assert!(err.contains("catalogs (2):"), "{err}");
    assert!(
        err.contains("  catalog (copied to /configs by catalog.Dockerfile:6)"),
        "{err}"
    );
}

#[test]
fn per_release_dockerfiles_with_their_own_context_and_with_the_repository_as_context() {
    for (dockerfile, line) in [
        ("ADD catalog/ /configs", "ADD catalog/"),
        ("ADD {v}/catalog /configs", "ADD v"),
    ] {
        let mut files: Vec<(String, String)> = Vec::new();
        for v in ["v4.16", "v4.17"] {
            files.push((
                format!("{v}/catalog.Dockerfile"),
                format!(
                    "FROM x\n{}\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n",
                    dockerfile.replace("{v}", v)
                ),
            ));
            // The same package in every release: merged, it would be a duplicate.
            files.push((
                format!("{v}/catalog/foo/catalog.json"),
                catalog("foo", "1.0.0"),
            ));
        }
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let tmp = repo(&borrowed);
        let (d, cats, err) = lint(tmp.path(), &[]);
        assert_eq!(
            plan(&cats),
            pairs(&[("v4.16/catalog", "image"), ("v4.17/catalog", "image")]),
            "{line}: {err}"
        );
        assert!(d.iter().all(|x| x["severity"] != "error"), "{line}: {d:#?}");
        // From inside a release directory: its catalog; from inside the catalog: the catalog.
        let (_, cats, err) = lint(&tmp.path().join("v4.17"), &[]);
        assert_eq!(plan(&cats), pairs(&[("catalog", "image")]), "{line}: {err}");
        let (_, cats, _) = lint(&tmp.path().join("v4.17/catalog/foo"), &[]);
        assert_eq!(cats.len(), 1);
        assert_eq!(cats[0]["kind"], "given");
    }
}

#[test]
fn konflux_pipelines_decide_the_build_arguments() {
    let pipeline = |v: &str| {
        format!("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: fbc-{v}\nspec:\n  params:\n  - name: dockerfile\n    value: catalog.Dockerfile\n  - name: build-args\n    value:\n    - INPUT_DIR=catalog-{v}\n")
    };
    let (p16, p17) = (pipeline("4-16"), pipeline("4-17"));
    let (c14, c16, c17) = (
        catalog("foo", "1.0.0"),
        catalog("foo", "1.1.0"),
        catalog("foo", "1.2.0"),
    );
    let tmp = repo(&[
        // Its own first line is a quoted ARG, like the ones the build arguments add before it.
        ("catalog.Dockerfile", "ARG OPM_IMAGE=\"quay.io/operator-framework/opm:v1.65.0\"\nFROM ${OPM_IMAGE} AS builder\nARG INPUT_DIR\nCOPY ./${INPUT_DIR}/ /configs/foo\nRUN opm serve /configs --cache-only\nFROM ${OPM_IMAGE}\nCOPY --from=builder /configs /configs\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n"),
        (".tekton/fbc-4-16-push.yaml", &p16),
        (".tekton/fbc-4-17-push.yaml", &p17),
        // No pipeline builds it any more.
        ("catalog-4-14/catalog.json", &c14),
        ("catalog-4-16/catalog.json", &c16),
        ("catalog-4-17/catalog.json", &c17),
    ]);
    let (d, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(
        plan(&cats),
        pairs(&[("catalog-4-16", "image"), ("catalog-4-17", "image")]),
        "{err}"
    );
    assert_eq!(
        cats[0]["reason"],
        "copied to /configs/foo by catalog.Dockerfile:4, built by .tekton/fbc-4-16-push.yaml"
    );
    assert!(d.iter().all(|x| x["severity"] != "error"), "{d:#?}");
}

#[test]
fn an_unresolved_build_argument_stands_for_each_directory_with_catalog_content() {
    let (a, b) = (catalog("foo", "1.0.0"), catalog("foo", "1.1.0"));
    let tmp = repo(&[
        (
            "catalog.Dockerfile",
            "FROM x\nARG INPUT_DIR\nCOPY ${INPUT_DIR} /configs/foo\n",
        ),
        ("catalog-4-16/catalog.json", &a),
        ("catalog-4-17/catalog.json", &b),
        ("scripts/render.yaml", "steps: []\n"),
    ]);
    let (_, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(
        plan(&cats),
        pairs(&[("catalog-4-16", "image"), ("catalog-4-17", "image")]),
        "{err}"
    );
}

#[test]
fn sibling_release_catalogs_without_a_dockerfile_are_never_merged() {
    let (a, b) = (catalog("foo", "1.0.0"), catalog("foo", "1.0.0"));
    let template = "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: foo\n  defaultChannel: stable\n";
    let tmp = repo(&[
        ("catalog-4-16/foo/catalog.json", &a),
        ("catalog-4-17/foo/catalog.json", &b),
        ("catalog-template.yaml", template),
    ]);
    let (d, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(
        plan(&cats),
        pairs(&[
            ("catalog-4-16", "openshift-release"),
            ("catalog-4-17", "openshift-release"),
            ("catalog-template.yaml", "template")
        ]),
        "{err}"
    );
    assert!(
        !d.iter()
            .any(|x| x["message"].as_str().unwrap_or("").contains("duplicate")),
        "{d:#?}"
    );
}

#[test]
fn a_plain_catalog_directory_is_the_catalog_as_opm_reads_it() {
    let cat = catalog("foo", "1.0.0");
    let tmp = tempfile::tempdir().unwrap();
    common::write_files(
        tmp.path(),
        &[("foo/catalog.json", &cat), ("notes.txt", "hello")],
    );
    // A .txt file is read by opm too (every file is), so it is not left out here.
    let (d, cats, err) = lint(tmp.path(), &["."]);
    assert_eq!(plan(&cats), pairs(&[(".", "given")]), "{err}");
    assert!(!err.contains("catalogs ("), "{err}");
    assert!(d.iter().any(|x| x["file"] == "notes.txt"), "{d:#?}");
}

/// The Dockerfile reader on real files (tests/data/field/README.md): what each copies into
/// the configs directory, as BuildKit would with the build arguments given.
#[test]
fn real_dockerfiles_copy_what_their_builds_copy() {
    use olmlint::load::discover::dockerfile;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/field");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let copies = |text: &str| -> Vec<(Vec<String>, String)> {
        dockerfile::parse(text)
            .catalog_copies()
            .into_iter()
            .map(|c| (c.sources.clone(), c.dest.clone()))
            .collect()
    };
    let one = |s: &str, d: &str| vec![(vec![s.to_string()], d.to_string())];
    assert_eq!(
        copies(&read("mtv-v4.16.catalog.Dockerfile")),
        one("v4.16/catalog", "/configs")
    );
    assert_eq!(
        copies(&read("rhtpa-v4.18.catalog.Dockerfile")),
        one("catalog", "/configs")
    );
    assert_eq!(
        copies(&read("coo.Dockerfile-4.22.catalog")),
        one(
            "catalog/coo-product-v4.22",
            "/configs/cluster-observability-operator"
        )
    );
    assert_eq!(
        copies(&read("netobserv.catalog.Dockerfile")),
        one("catalog", "/configs")
    );
    assert_eq!(
        copies(&read("numaresources.Dockerfile.catalog")),
        one(
            ".konflux/catalog/numaresources-operator/",
            "/configs/numaresources-operator"
        )
    );
    assert_eq!(
        copies(&read("webhook-operator.catalog.Dockerfile")),
        vec![
            (
                vec!["catalog/.indexignore".to_string()],
                "/configs/.indexignore".to_string()
            ),
            (
                vec!["catalog/catalog.json".to_string()],
                "/configs/catalog.json".to_string()
            ),
        ]
    );
    // `ARG INPUT_DIR` without a value: a wildcard, which the pipeline's build argument fills.
    let submariner = read("submariner.catalog.Dockerfile");
    let parsed = dockerfile::parse(&submariner);
    let copy = parsed.catalog_copies()[0].clone();
    assert_eq!(copy.sources, vec!["./*/".to_string()]);
    assert_eq!(copy.unresolved, vec!["INPUT_DIR".to_string()]);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".tekton")).unwrap();
    std::fs::copy(
        dir.join("submariner.tekton-4-16-push.yaml"),
        tmp.path().join(".tekton/x.yaml"),
    )
    .unwrap();
    let pipeline = olmlint::load::discover::konflux::pipelines(tmp.path());
    assert_eq!(pipeline.len(), 1);
    assert_eq!(pipeline[0].dockerfile, "catalog.Dockerfile");
    assert!(pipeline[0]
        .args
        .contains(&("INPUT_DIR".to_string(), "catalog-4-16".to_string())));
}

/// A non-catalog file inside the directory an image copies is read by opm in the image too:
/// reported, with which build copies it and how to leave it out.
#[test]
fn a_readme_inside_the_copied_catalog_is_reported_with_the_build_that_copies_it() {
    let cat = catalog("foo", "1.0.0");
    let tmp = repo(&[
        ("catalog.Dockerfile", GENERATED_DOCKERFILE),
        ("catalog/foo/catalog.json", &cat),
        ("catalog/README.md", "# The catalog\n\nRendered by make.\n"),
    ]);
    let (d, _, _) = lint(tmp.path(), &[]);
    let readme: Vec<&Value> = d
        .iter()
        .filter(|x| x["file"] == "catalog/README.md")
        .collect();
    assert_eq!(readme.len(), 1, "{d:#?}");
    let help = readme[0]["help"].as_str().unwrap();
    assert!(
        help.contains("inside the catalog that catalog.Dockerfile:6 copies into /configs")
            && help.contains("`.indexignore`"),
        "{help}"
    );
    // Listed in .indexignore, as opm honours it: nothing.
    std::fs::write(tmp.path().join("catalog/.indexignore"), "README.md\n").unwrap();
    let (d, _, _) = lint(tmp.path(), &[]);
    assert!(d.iter().all(|x| x["file"] != "catalog/README.md"), "{d:#?}");
}

/// A maintainer who disagrees with discovery lists the catalogs under `catalogs:` in
/// `.olmlint.yaml`; a path on the command line still wins.
#[test]
fn catalogs_listed_in_the_configuration_replace_discovery() {
    let (a, b) = (catalog("foo", "1.0.0"), catalog("bar", "1.0.0"));
    let tmp = repo(&[
        ("catalog.Dockerfile", GENERATED_DOCKERFILE),
        ("catalog/foo/catalog.json", &a),
        ("staging/bar/catalog.json", &b),
        (".olmlint.yaml", "catalogs:\n  - staging\n"),
    ]);
    let run = |args: &[&str]| {
        let out = common::olmlint(
            Some(tmp.path()),
            [&["lint", "-f", "json"][..], args].concat(),
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        plan(doc["catalogs"].as_array().unwrap())
    };
    assert_eq!(run(&[]), pairs(&[("staging", "configured")]));
    assert_eq!(run(&["catalog"]), pairs(&[("catalog", "given")]));
}

/// An operator's source repository with no catalog image (a bundle directory, tool
/// configuration in YAML at the root): the bundle, never the root as a catalog.
#[test]
fn a_source_repository_without_a_catalog_image_lints_its_bundle() {
    let tmp = repo(&[
        (".golangci.yaml", "run:\n  timeout: 5m\n"),
        ("bundle/metadata/annotations.yaml", "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n"),
        ("bundle.Dockerfile", "FROM scratch\nCOPY bundle/manifests /manifests/\nCOPY bundle/metadata /metadata/\n"),
    ]);
    let (d, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(plan(&cats), pairs(&[("bundle", "bundle")]), "{err}");
    assert!(
        d.iter()
            .all(|x| x["file"].as_str().is_none_or(|f| f.starts_with("bundle/"))),
        "{d:#?}"
    );
}

/// A file with bare channel documents followed by a template document (fed to scripts):
/// neither a catalog nor a template for opm ≥ 1.44, which reads a template's first document
/// only; a note says so.
#[test]
fn a_template_after_other_documents_is_not_a_template_and_a_note_says_so() {
    let cat = catalog("foo", "1.0.0");
    let tmp = repo(&[
        ("v4.18/catalog.Dockerfile", "FROM x\nADD catalog /configs\n"),
        ("v4.18/catalog/foo/catalog.json", &cat),
        ("v4.18/graph.yaml", "---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n- name: foo.v1.0.0\n---\nschema: olm.template.basic\nentries: []\n"),
    ]);
    let (d, cats, err) = lint(tmp.path(), &[]);
    assert_eq!(plan(&cats), pairs(&[("v4.18/catalog", "image")]), "{err}");
    assert!(d.iter().all(|x| x["file"] != "v4.18/graph.yaml"), "{d:#?}");
    assert!(
        err.contains("v4.18/graph.yaml holds a template document after other documents"),
        "{err}"
    );
}
