//! OLM720 cluster-constraint through the binary: bundles failing the target cluster's
//! constraints, bundles stranded by them, the cluster file's own mistakes (OLM011 at their
//! positions), how the rule is switched on, and the `cluster` CEL variable kept out of OLM's
//! own environment.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const KUBE_RULE: &str = r#"properties.all(p, p.type != "olm.kubeversion" || cluster.exists(c, c.type == "olm.kubeversion" && semver_compare(p.value.version, c.value.version) <= 0))"#;

fn olmlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .current_dir(dir)
        .args(["lint", "-q", "-f", "json"])
        .args(args)
        .output()
        .unwrap()
}

/// `lint --no-config EXTRA --cluster-properties FILE catalog` in `dir`.
fn with_cluster(dir: &Path, file: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--no-config"];
    args.extend_from_slice(extra);
    args.extend(["--cluster-properties", file, "catalog"]);
    olmlint(dir, &args)
}

fn diags(out: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["diagnostics"].as_array().unwrap().clone()
}

fn of<'a>(diags: &'a [Value], rule: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["rule"] == rule).collect()
}

fn bundle(pkg: &str, version: &str, extra: &str) -> String {
    format!(
        "---\nschema: olm.bundle\npackage: {pkg}\nname: {pkg}.v{version}\nimage: quay.io/x/{pkg}:{version}\nproperties:\n  - type: olm.package\n    value: {{packageName: {pkg}, version: {version}}}\n{extra}"
    )
}

fn package(pkg: &str, versions: &[&str]) -> String {
    let mut entries = String::new();
    for (i, v) in versions.iter().enumerate() {
        entries.push_str(&format!("  - name: {pkg}.v{v}\n"));
        if i > 0 {
            entries.push_str(&format!("    replaces: {pkg}.v{}\n", versions[i - 1]));
        }
    }
    format!("---\nschema: olm.package\nname: {pkg}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: {pkg}\nname: stable\nentries:\n{entries}")
}

fn kube(version: &str) -> String {
    format!("  - type: olm.kubeversion\n    value: {{version: {version}}}\n")
}

/// foo 1.0.0 (kube 1.27) and 2.0.0 (kube 1.30); addon 1.0.0 needs foo >=2.0.0; bar 1.0.0
/// needs foo at any version.
fn catalog() -> String {
    let mut s = package("foo", &["1.0.0", "2.0.0"]);
    s.push_str(&bundle("foo", "1.0.0", &kube("1.27.0")));
    s.push_str(&bundle("foo", "2.0.0", &kube("1.30.0")));
    s.push_str(&package("addon", &["1.0.0"]));
    s.push_str(&bundle(
        "addon",
        "1.0.0",
        "  - type: olm.package.required\n    value: {packageName: foo, versionRange: '>=2.0.0'}\n",
    ));
    s.push_str(&package("bar", &["1.0.0"]));
    s.push_str(&bundle(
        "bar",
        "1.0.0",
        "  - type: olm.package.required\n    value: {packageName: foo, versionRange: '>=1.0.0'}\n",
    ));
    s
}

fn cluster_yaml() -> String {
    format!(
        "properties:\n  - type: olm.kubeversion\n    value: {{version: 1.29.0}}\nconstraints:\n  - failureMessage: requires a newer Kubernetes than this cluster runs\n    cel:\n      rule: '{KUBE_RULE}'\n"
    )
}

fn setup(cluster: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    std::fs::write(dir.path().join("catalog/catalog.yaml"), catalog()).unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), cluster).unwrap();
    dir
}

#[test]
fn failing_and_stranded_bundles() {
    let dir = setup(&cluster_yaml());
    let out = with_cluster(dir.path(), "cluster.yaml", &[]);
    assert_eq!(out.status.code(), Some(0), "warnings only");
    let d = diags(&out);
    assert_eq!(d.len(), 2, "{d:#?}");
    let found = of(&d, "OLM720");
    let (failing, stranded) = (found[0], found[1]);
    assert_eq!(failing["bundle"], "foo.v2.0.0");
    assert_eq!(failing["severity"], "warning");
    assert_eq!(
        failing["message"],
        "foo.v2.0.0 fails cluster constraint 1 of cluster.yaml: requires a newer Kubernetes than this cluster runs"
    );
    assert_eq!(failing["pointer"], "/name");
    assert_eq!(failing["related"][0]["file"], "cluster.yaml");
    assert_eq!(failing["related"][0]["line"], 5);
    assert!(failing["help"]
        .as_str()
        .unwrap()
        .contains("Upstream OLM has no cluster runtime constraints"));
    // addon needs foo >=2.0.0, which only the failing foo.v2.0.0 offers; bar is content with
    // foo.v1.0.0 and is not reported.
    assert_eq!(stranded["bundle"], "addon.v1.0.0");
    assert_eq!(
        stranded["message"],
        "addon.v1.0.0 cannot be installed on this cluster: addon.v1.0.0 requires an operator with package: foo and with version in range: >=2.0.0; its only candidate is foo.v2.0.0; foo.v2.0.0 fails cluster constraint 1 of cluster.yaml"
    );
    let related: Vec<&str> = stranded["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        related,
        [
            "foo.v2.0.0 fails cluster constraint 1",
            "cluster constraint 1"
        ]
    );
    // Plain human output: related locations are notes, never labels in another line's snippet.
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .current_dir(dir.path())
        .args(["lint", "-q", "--color", "never", "--no-config"])
        .args(["--cluster-properties", "cluster.yaml", "catalog"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  = note: foo.v2.0.0 fails cluster constraint 1 (catalog/catalog.yaml:"));
    assert!(
        !text
            .lines()
            .any(|l| l.contains("label at") && !l.ends_with(": here")),
        "{text}"
    );
    // OLM501 never uses the cluster file, and without it nothing is reported.
    assert!(of(&d, "OLM501").is_empty());
    let out = olmlint(dir.path(), &["--no-config", "catalog"]);
    assert!(diags(&out).is_empty());
}

#[test]
fn constraints_bind_context_bundles_but_only_linted_ones_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("ctx")).unwrap();
    std::fs::create_dir_all(root.join("catalog")).unwrap();
    let mut foo = package("foo", &["1.0.0", "2.0.0"]);
    foo.push_str(&bundle("foo", "1.0.0", &kube("1.27.0")));
    foo.push_str(&bundle("foo", "2.0.0", &kube("1.30.0")));
    std::fs::write(root.join("ctx/foo.yaml"), foo).unwrap();
    let mut addon = package("addon", &["1.0.0"]);
    addon.push_str(&bundle(
        "addon",
        "1.0.0",
        "  - type: olm.package.required\n    value: {packageName: foo, versionRange: '>=2.0.0'}\n",
    ));
    std::fs::write(root.join("catalog/addon.yaml"), addon).unwrap();
    std::fs::write(root.join("cluster.yaml"), cluster_yaml()).unwrap();
    let out = olmlint(
        root,
        &[
            "--no-config",
            "--context",
            "ctx",
            "--cluster-properties",
            "cluster.yaml",
            "catalog",
        ],
    );
    let d = diags(&out);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["bundle"], "addon.v1.0.0");
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .ends_with("foo.v2.0.0 fails cluster constraint 1 of cluster.yaml"));
}

#[test]
fn several_constraints_and_evaluation_errors() {
    let cluster = format!(
        "{}  - failureMessage: foo before 2.0 is banned here\n    not: {{constraints: [{{package: {{packageName: foo, versionRange: '<2.0.0'}}}}]}}\n  - cel: {{rule: 'properties.exists(p, p.type == \"olm.package\" && p.value.tier == \"gold\")'}}\n",
        cluster_yaml()
    );
    let dir = setup(&cluster);
    let out = with_cluster(dir.path(), "cluster.yaml", &[]);
    let d = diags(&out);
    let msg = |b: &str| {
        of(&d, "OLM720")
            .into_iter()
            .find(|x| x["bundle"] == b && x["message"].as_str().unwrap().contains(" fails "))
            .map(|x| x["message"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        msg("foo.v1.0.0"),
        "foo.v1.0.0 fails cluster constraints 2 and 3 of cluster.yaml: foo before 2.0 is banned here; the rule \"properties.exists(p, p.type == \\\"olm.package\\\" && p.value.tier == \\\"gold\\\")\" must hold (the rule failed to evaluate: no such key: tier; an error counts as false, as in OLM)"
    );
    assert!(msg("foo.v2.0.0").starts_with("foo.v2.0.0 fails cluster constraints 1 and 3 of"));
    assert!(msg("bar.v1.0.0").starts_with("bar.v1.0.0 fails cluster constraint 3 of"));
}

#[test]
fn cluster_file_mistakes_are_olm011_at_their_position() {
    let cluster = "properties:\n  - type: olm.kubeversion\n  - valu: 3\nconstraint: []\nconstraints:\n  - evaluator: {id: cel}\n    source: 'true'\n  - cel: {rule: 'clustr.exists(c, true)'}\n  - package: {packageName: foo, versionRange: '>>1.0'}\n  - {}\n";
    let dir = setup(cluster);
    // Inside the catalog tree, the cluster file is never read as catalog content.
    std::fs::write(dir.path().join("catalog/cluster.yaml"), cluster).unwrap();
    let out = with_cluster(dir.path(), "catalog/cluster.yaml", &[]);
    // Mistakes in the cluster file stop the run like configuration mistakes: exit 2, and the
    // report holds only them.
    assert_eq!(out.status.code(), Some(2));
    let d = diags(&out);
    assert!(d.iter().all(|x| x["rule"] == "OLM011"), "{d:#?}");
    let got: Vec<(u64, u64, String)> = of(&d, "OLM011")
        .iter()
        .map(|x| {
            assert_eq!(x["file"], "catalog/cluster.yaml");
            let m = x["message"].as_str().unwrap();
            (
                x["line"].as_u64().unwrap(),
                x["column"].as_u64().unwrap(),
                m.trim_start_matches("catalog/cluster.yaml: ").to_string(),
            )
        })
        .collect();
    let want = [
        (2, 5, "property 1 has no `value`"),
        (3, 5, "property 2: unknown key `valu`"),
        (3, 5, "property 2 needs a non-empty string `type`"),
        (4, 1, "unknown key `constraint`"),
        (6, 5, "constraint 1: json: unknown field \"evaluator\""),
        (7, 5, "constraint 1: json: unknown field \"source\""),
        (8, 18, "constraint 2: CEL: undeclared reference to 'clustr' (in container '')"),
        (9, 47, "constraint 3: Could not parse Range \">>1.0\": Could not parse comparator \">>\" in \">>1.0\""),
        (10, 5, "constraint 4: constraint is empty"),
    ];
    let want: Vec<(u64, u64, String)> = want
        .iter()
        .map(|(l, c, m)| (*l, *c, m.to_string()))
        .collect();
    assert_eq!(got, want);
    let help = |m: &str| {
        of(&d, "OLM011")
            .into_iter()
            .find(|x| x["message"].as_str().unwrap().contains(m))
            .map(|x| x["help"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert!(help("`constraint`").starts_with("Did you mean `constraints`?"));
    assert!(help("\"evaluator\"").contains("`action: conflict` into `not"));
    assert!(help("'clustr'").starts_with("did you mean 'cluster'? Cluster constraints"));
    // Broken constraints are left out; nothing else is checked against them.
    assert!(of(&d, "OLM720").is_empty());
}

#[test]
fn json_cluster_file_and_config_key() {
    let dir = setup("");
    let json = serde_json::json!({
        "properties": [{"type": "olm.kubeversion", "value": {"version": "1.29.0"}}],
        "constraints": [{"failureMessage": "too new", "cel": {"rule": KUBE_RULE}}],
    });
    std::fs::write(dir.path().join("cluster.json"), json.to_string()).unwrap();
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "cluster-properties: cluster.json\n",
    )
    .unwrap();
    // Found upward from the catalog; the path is relative to the configuration.
    let out = olmlint(&dir.path().join("catalog"), &["."]);
    let d = diags(&out);
    assert_eq!(of(&d, "OLM720").len(), 2, "{d:#?}");
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .contains("cluster.json: too new"));
    // An explicit `off` wins over the file; so does --disable.
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "cluster-properties: cluster.json\nrules: {OLM720: off}\n",
    )
    .unwrap();
    assert!(diags(&olmlint(&dir.path().join("catalog"), &["."])).is_empty());
    std::fs::write(
        dir.path().join(".olmlint.yaml"),
        "cluster-properties: cluster.json\n",
    )
    .unwrap();
    let out = olmlint(&dir.path().join("catalog"), &["--disable", "OLM720", "."]);
    assert!(diags(&out).is_empty());
}

#[test]
fn usage_errors_exit_2() {
    let dir = setup(&cluster_yaml());
    let out = olmlint(
        dir.path(),
        &["--no-config", "--enable", "OLM720", "catalog"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OLM720 needs --cluster-properties"));
    let out = with_cluster(dir.path(), "missing.yaml", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cluster-properties missing.yaml"));
    // With the file, --enable is fine.
    let out = with_cluster(dir.path(), "cluster.yaml", &["--enable", "OLM720"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bundle_constraints_cannot_use_the_cluster_variable() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = package("foo", &["1.0.0"]);
    s.push_str(&bundle(
        "foo",
        "1.0.0",
        "  - type: olm.constraint\n    value:\n      cel: {rule: 'cluster.exists(c, c.type == \"olm.kubeversion\")'}\n",
    ));
    std::fs::write(dir.path().join("catalog.yaml"), s).unwrap();
    let out = olmlint(dir.path(), &["--no-config", "."]);
    let d = diags(&out);
    let e = of(&d, "OLM402");
    assert_eq!(e.len(), 1, "{d:#?}");
    assert_eq!(
        e[0]["message"],
        "CEL: undeclared reference to 'cluster' (in container '')"
    );
    assert!(e[0]["help"].as_str().unwrap().starts_with(
        "`cluster` exists only in the cluster constraints given with --cluster-properties"
    ));
}
