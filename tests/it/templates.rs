//! Catalog templates (OLM901–906): fixtures/templates/repository holds one operator per
//! template kind and mistake, with its rendered catalog; fixtures/templates/real a sample of
//! community-operators-prod (see its README).

use olmlint::lint::{run, Options};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Finding {
    rule: String,
    severity: String,
    file: String,
    line: usize,
    message: String,
    pointer: String,
    help: String,
    related: Vec<String>,
}

fn lint(path: &Path) -> Vec<Finding> {
    let out = run(&Options {
        paths: vec![path.to_path_buf()],
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    out.diags
        .iter()
        .map(|d| {
            let (file, line) = d.location.map_or((String::new(), 0), |l| {
                let f = &out.files[l.file];
                let rel = f
                    .source
                    .path
                    .strip_prefix(path)
                    .unwrap_or(&f.source.path)
                    .display()
                    .to_string();
                (rel, f.source.position(l.span.start()).line as usize)
            });
            Finding {
                rule: d.rule.to_string(),
                severity: d.severity.as_str().to_string(),
                file,
                line,
                message: d.message.clone(),
                pointer: d.pointer.clone().unwrap_or_default(),
                help: d.help.clone().unwrap_or_default(),
                related: d.related.iter().map(|r| r.message.clone()).collect(),
            }
        })
        .collect()
}

fn verdicts(found: &[Finding]) -> BTreeSet<(String, String, usize)> {
    found
        .iter()
        .map(|f| (f.rule.clone(), f.file.clone(), f.line))
        .collect()
}

fn v(rule: &str, file: &str, line: usize) -> (String, String, usize) {
    (rule.to_string(), file.to_string(), line)
}

#[test]
fn every_template_mistake_at_its_line() {
    let found = lint(&root().join("fixtures/templates/repository"));
    let want: BTreeSet<_> = [
        // broken: the mistakes of the issue, at template lines.
        v("OLM102", "operators/broken/catalog-templates/basic.yaml", 5),
        v(
            "OLM105",
            "operators/broken/catalog-templates/basic.yaml",
            11,
        ),
        v(
            "OLM901",
            "operators/broken/catalog-templates/basic.yaml",
            12,
        ),
        v(
            "OLM903",
            "operators/broken/catalog-templates/basic.yaml",
            16,
        ),
        v(
            "OLM901",
            "operators/broken/catalog-templates/basic.yaml",
            18,
        ),
        v(
            "OLM904",
            "operators/broken/catalog-templates/basic.yaml",
            19,
        ),
        v("OLM906", "catalogs/v4.18/broken/catalog.yaml", 1),
        // deps: a dependency no catalog has, at the template line of the bundle (and in the
        // rendered catalog's own run); the one on `shared` resolves in catalogs/v4.18.
        v("OLM507", "operators/deps/catalog-templates/basic.yaml", 12),
        v("OLM507", "catalogs/v4.18/deps/catalog.yaml", 21),
        // mapping: ci.yaml mistakes and an unmapped template (itself a broken catalog).
        v("OLM905", "operators/mapping/ci.yaml", 5),
        v("OLM905", "operators/mapping/ci.yaml", 6),
        // A mapped template not there yet (the FBC onboarding's first PR): a warning; its
        // catalog v4.18 is also mapped to basic.yaml (line 9).
        v("OLM905", "operators/mapping/ci.yaml", 7),
        v("OLM905", "operators/mapping/ci.yaml", 9),
        v("OLM905", "operators/mapping/catalog-templates/old.yaml", 1),
        v("OLM103", "operators/mapping/catalog-templates/old.yaml", 4),
        v("OLM102", "operators/mapping/catalog-templates/old.yaml", 5),
        // semver-broken: what opm's strict decoder refuses.
        v(
            "OLM902",
            "operators/semver-broken/catalog-templates/semver.yaml",
            2,
        ),
        v(
            "OLM902",
            "operators/semver-broken/catalog-templates/semver.yaml",
            3,
        ),
        v(
            "OLM902",
            "operators/semver-broken/catalog-templates/semver.yaml",
            4,
        ),
        v(
            "OLM903",
            "operators/semver-broken/catalog-templates/semver.yaml",
            10,
        ),
        // stale: a release added to the template, `make catalogs` not run.
        v("OLM904", "operators/stale/catalog-templates/basic.yaml", 16),
        v("OLM906", "catalogs/v4.18/stale/catalog.yaml", 1),
    ]
    .into_iter()
    .collect();
    let got = verdicts(&found);
    assert_eq!(
        got,
        want,
        "unexpected: {:#?}\nmissing: {:#?}",
        got.difference(&want).collect::<Vec<_>>(),
        want.difference(&got).collect::<Vec<_>>()
    );
    // good and shared (a semver template whose hand-rendered catalog matches opm's algorithm)
    // have nothing.
    assert!(found
        .iter()
        .all(|f| !f.file.contains("/good/") && !f.file.contains("/shared/")));

    let one = |rule: &str, file: &str, line: usize| {
        found
            .iter()
            .find(|f| f.rule == rule && f.file.ends_with(file) && f.line == line)
            .unwrap_or_else(|| panic!("{rule} {file}:{line}"))
    };
    // Pointers are from the template's root; messages say what opm does.
    let d = one("OLM102", "broken/catalog-templates/basic.yaml", 5);
    assert_eq!(d.pointer, "/entries/0/defaultChannel");
    let d = one("OLM105", "broken/catalog-templates/basic.yaml", 11);
    assert!(
        d.pointer.starts_with("/entries/1/entries/"),
        "{}",
        d.pointer
    );
    let d = one("OLM901", "broken/catalog-templates/basic.yaml", 12);
    assert_eq!(d.severity, "warning");
    assert!(
        d.message.contains("did you mean `replaces`"),
        "{}",
        d.message
    );
    assert_eq!(d.pointer, "/entries/1/entries/1/replace");
    let d = one("OLM901", "broken/catalog-templates/basic.yaml", 18);
    assert_eq!(d.severity, "error");
    assert!(d
        .message
        .contains("unexpected fields present in basic template bundle"));
    let d = one("OLM903", "broken/catalog-templates/basic.yaml", 16);
    assert_eq!(d.pointer, "/entries/3/image");
    assert_eq!(d.related, ["first listed here"]);
    let d = one("OLM904", "broken/catalog-templates/basic.yaml", 19);
    assert!(d.message.starts_with("1 of 3 bundles"), "{}", d.message);
    let d = one("OLM507", "deps/catalog-templates/basic.yaml", 12);
    assert!(d.message.contains("absent-operator"), "{}", d.message);
    assert_eq!(d.pointer, "/entries/2/image");
    assert!(
        d.related
            .iter()
            .any(|r| r.starts_with("in the rendered catalog")),
        "{:?}",
        d.related
    );
    let d = one("OLM902", "semver-broken/catalog-templates/semver.yaml", 2);
    assert!(d.message.contains("unknown field \"GenerateMajorChannel\""));
    assert!(d.message.contains("did you mean `GenerateMajorChannels`"));
    let d = one("OLM905", "mapping/ci.yaml", 6);
    assert_eq!(d.severity, "error");
    assert!(
        d.message.contains("4.18 is not a catalog name"),
        "{}",
        d.message
    );
    let d = one("OLM905", "mapping/catalog-templates/old.yaml", 1);
    assert_eq!(d.severity, "warning");
    let d = one("OLM905", "mapping/ci.yaml", 7);
    assert_eq!(d.severity, "warning");
    assert_eq!(
        d.message,
        "ci.yaml maps template \"missing.yaml\", which is not in the operator's catalog-templates/ (yet)"
    );
    assert!(d.help.contains("catalog update"), "{}", d.help);
    let d = one("OLM906", "catalogs/v4.18/stale/catalog.yaml", 1);
    assert!(
        d.message
            .contains("channel stable: entry stale.v1.1.0 is missing"),
        "{}",
        d.message
    );
    assert!(d.help.contains("make catalogs"));
}

#[test]
fn a_template_linted_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let template = tmp.path().join("basic.yaml");
    std::fs::copy(
        root().join("fixtures/templates/repository/operators/broken/catalog-templates/basic.yaml"),
        &template,
    )
    .unwrap();
    let found = lint(&template);
    let rules: BTreeSet<&str> = found.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(
        rules,
        BTreeSet::from(["OLM102", "OLM105", "OLM901", "OLM903", "OLM904"])
    );
    // Without a rendered catalog every bundle is unresolved; the note says what was skipped.
    let note = found.iter().find(|f| f.rule == "OLM904").unwrap();
    assert!(
        note.message.starts_with("3 of 3 bundles"),
        "{}",
        note.message
    );
    // Not in the pipelines layout: no ci.yaml to map it in; the rendered catalog linted
    // with it resolves the images.
    assert!(
        note.help
            .contains("pairs a template with the linted catalogs holding its images"),
        "{}",
        note.help
    );
}

/// A template's deprecations may name its bundles that are image references: linted without
/// the catalog rendered from it (a pre-commit run on the template alone), their names are
/// unknown, so "bundle not found" is not said (securesign/fbc's graph.yaml: 3 false OLM107
/// errors); a channel the template does not have is still not found.
#[test]
fn deprecations_of_unresolved_template_bundles_are_not_called_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let template = tmp.path().join("graph.yaml");
    let digest = "a".repeat(64);
    std::fs::write(
        &template,
        format!(
            "schema: olm.template.basic
entries:
  - schema: olm.package
    name: foo
    defaultChannel: stable
  - schema: olm.channel
    package: foo
    name: stable
    entries:
      - name: foo.v1.0.0
  - schema: olm.bundle
    image: quay.io/example/foo-bundle@sha256:{digest}
  - schema: olm.deprecations
    package: foo
    entries:
      - reference: {{schema: olm.bundle, name: foo.v1.0.0}}
        message: foo.v1.0.0 is deprecated
      - reference: {{schema: olm.channel, name: gone}}
        message: gone is deprecated
"
        ),
    )
    .unwrap();
    let found = lint(&template);
    let olm107: Vec<&str> = found
        .iter()
        .filter(|f| f.rule == "OLM107")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        olm107,
        ["cannot deprecate channel \"gone\" for package \"foo\": channel not found"],
        "{olm107:#?}"
    );
}

#[test]
fn real_templates_and_their_rendered_catalogs() {
    let found = lint(&root().join("fixtures/templates/real"));
    let got = verdicts(&found);
    let want: BTreeSet<_> = [
        v(
            "OLM104",
            "operators/ecr-secret-operator/catalog-templates/basic.yaml",
            10,
        ),
        v(
            "OLM104",
            "operators/ecr-secret-operator/catalog-templates/basic.yaml",
            17,
        ),
        v(
            "OLM906",
            "catalogs/v4.16/ecr-secret-operator/catalog.yaml",
            2,
        ),
        v("OLM906", "catalogs/v4.18/clusterpulse/catalog.yaml", 2),
        v(
            "OLM905",
            "operators/clusterpulse/catalog-templates/basic.yaml",
            1,
        ),
        v(
            "OLM904",
            "operators/clusterpulse/catalog-templates/basic.yaml",
            13,
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
    // konflux: 45 bundles, generated channels and edges identical to opm's render.
    assert!(found.iter().all(|f| !f.file.contains("konflux")));
    let drift = found
        .iter()
        .find(|f| f.rule == "OLM906" && f.file.contains("clusterpulse"))
        .unwrap();
    assert!(drift.help.contains("older than v1.61"), "{}", drift.help);
}

/// A template whose bundles carry `name:` (opm ignores it): one OLM901 info for the template,
/// not one per bundle (#45: 104 infos on one input); and a run on the template alone counts
/// its package and bundle entries in the summary (it counted 0 and 0).
#[test]
fn ignored_bundle_names_once_per_template_and_a_template_run_counts_its_bundles() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: foo\n    defaultChannel: stable\n  - schema: olm.channel\n    package: foo\n    name: stable\n    entries:\n      - name: foo.v1.0.0\n".to_string();
    for i in 1..6 {
        text.push_str(&format!(
            "      - name: foo.v1.{i}.0\n        replaces: foo.v1.{}.0\n",
            i - 1
        ));
    }
    for i in 0..6 {
        text.push_str(&format!("  - schema: olm.bundle\n    name: foo.v1.{i}.0\n    image: quay.io/example/foo-bundle@sha256:{}\n", format!("{i}").repeat(64)));
    }
    std::fs::write(tmp.path().join("catalog-template.yaml"), text).unwrap();
    let out = crate::common::olmlint(
        None,
        [
            "lint",
            "--no-config",
            "-f",
            "json",
            tmp.path().to_str().unwrap(),
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "OLM901")
        .collect();
    assert_eq!(names.len(), 1, "{report:#}");
    let d = names[0];
    assert_eq!(d["severity"], "info");
    assert_eq!(
        d["message"],
        "`name` of a basic template bundle is ignored: opm names each bundle after its CSV (6 bundle entries set it, the first entries[2])"
    );
    assert_eq!(d["pointer"], "/entries/2/name");
    assert_eq!(d["line"], 22);
    let related: Vec<(&str, Option<u64>)> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["message"].as_str().unwrap(), r["line"].as_u64()))
        .collect();
    assert_eq!(
        related,
        [
            ("entries[3] sets `name` too", Some(25)),
            ("entries[4] sets `name` too", Some(28)),
            ("entries[5] sets `name` too", Some(31)),
            ("and 2 more bundle entries", None),
        ]
    );
    // The summary counts the template's package and bundle entries (human and JSON).
    assert_eq!(report["summary"]["packages"], 1, "{:#}", report["summary"]);
    assert_eq!(report["summary"]["bundles"], 6, "{:#}", report["summary"]);
    let human = crate::common::olmlint(None, ["lint", "--no-config", tmp.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&human.stderr);
    assert!(err.contains(" 1 package(s), 6 bundle(s) in "), "{err}");
}
