//! OLM v1 bundle acceptance (OLM750–OLM754, `--target olmv1`), through the binary on real
//! bundle directories and catalogs: operator-controller's own test tables
//! (`rukpak/render/registryv1/validators/validator_test.go`, `applier/provider_test.go`)
//! ported case by case with their expected messages, then every check, profile and feature
//! gate of olmlint's own.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// `olmlint lint --no-config -q -f json ARGS DIR`: the diagnostics.
fn lint(dir: &Path, args: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-q", "-f", "json"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["diagnostics"].as_array().unwrap().clone()
}

fn v1(dir: &Path) -> Vec<Value> {
    lint(dir, &["--target", "olmv1"])
}

fn of<'a>(diags: &'a [Value], rule: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["rule"] == rule).collect()
}

fn messages(diags: &[Value], rule: &str) -> Vec<String> {
    of(diags, rule)
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

/// A ClusterServiceVersion `foo.v1.0.0` with `spec` merged over version 1.0.0 and
/// AllNamespaces support.
fn csv(spec: Value) -> Value {
    let mut s = json!({
        "version": "1.0.0",
        "installModes": [{"type": "AllNamespaces", "supported": true}],
    });
    for (k, v) in spec.as_object().unwrap() {
        s[k] = v.clone();
    }
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "foo.v1.0.0"},
        "spec": s,
    })
}

fn install_modes(supported: &[&str]) -> Value {
    json!(supported
        .iter()
        .map(|t| json!({"type": t, "supported": true}))
        .collect::<Vec<_>>())
}

const ANNOTATIONS: &str = "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n";

/// A bundle directory `bundle/` with the package annotation, `csv` (written as JSON, which is
/// YAML) and `files` (path under the bundle, text).
fn bundle(csv: &Value, files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("bundle");
    let mut all: Vec<(String, String)> = vec![
        ("metadata/annotations.yaml".into(), ANNOTATIONS.into()),
        (
            "manifests/foo.clusterserviceversion.yaml".into(),
            serde_json::to_string_pretty(csv).unwrap(),
        ),
    ];
    for (p, t) in files {
        all.retain(|(q, _)| q != p);
        all.push(((*p).to_string(), t.clone()));
    }
    for (p, t) in all {
        let path = b.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    dir
}

/// A CustomResourceDefinition manifest named `name` (apiextensions.k8s.io/v1).
fn crd(name: &str) -> String {
    let (plural, group) = name.split_once('.').unwrap();
    serde_json::to_string_pretty(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {
            "group": group,
            "names": {"kind": "Thing", "plural": plural},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    }))
    .unwrap()
}

fn object(api_version: &str, kind: &str, name: &str) -> String {
    serde_json::to_string(
        &json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}),
    )
    .unwrap()
}

/// The errors of OLM v1's bundle validator for the bundle, in OLM v1's order: the joined
/// error the first OLM751 finding carries, or the one finding's message.
fn validator_errors(diags: &[Value]) -> Vec<String> {
    let found = of(diags, "OLM751");
    for d in &found {
        for r in d["related"].as_array().unwrap() {
            let m = r["message"].as_str().unwrap();
            if let Some(rest) = m.strip_prefix("OLM v1 reports these ") {
                // A joined error too long for a note is cut in the middle: then the
                // findings, in the order of their places.
                if !m.contains("characters left out]") {
                    return rest.lines().skip(1).map(str::to_string).collect();
                }
            }
        }
    }
    found
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

/// The validator's errors that start with `prefix`, in OLM v1's order.
fn errors_of(dir: &Path, prefix: &str) -> Vec<String> {
    validator_errors(&v1(dir))
        .into_iter()
        .filter(|m| m.starts_with(prefix))
        .collect()
}

fn deployments(names: &[&str]) -> Value {
    json!({"strategy": "deployment", "spec": {"deployments": names
        .iter()
        .map(|n| json!({"name": n, "spec": {"selector": {"matchLabels": {"app": n}}}}))
        .collect::<Vec<_>>()}})
}

const DNS_REGEX: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn long(prefix: &str, suffix: &str) -> String {
    format!("{prefix}-name-is-w{}y-too-long{suffix}", "a".repeat(240))
}

// ---- validator_test.go ------------------------------------------------------------------

#[test]
fn upstream_check_deployment_spec_uniqueness() {
    const P: &str = "cluster service version contains duplicate strategy deployment spec";
    let unique = bundle(
        &csv(json!({"install": deployments(&["test-deployment-one", "test-deployment-two"])})),
        &[],
    );
    assert_eq!(errors_of(unique.path(), P), Vec::<String>::new());
    let dup = bundle(
        &csv(
            json!({"install": deployments(&["test-deployment-one", "test-deployment-two", "test-deployment-one"])}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(dup.path(), P),
        ["cluster service version contains duplicate strategy deployment spec 'test-deployment-one'"]
    );
    let ordered = bundle(
        &csv(
            json!({"install": deployments(&["test-deployment-a", "test-deployment-b", "test-deployment-c", "test-deployment-b", "test-deployment-a"])}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        [
            "cluster service version contains duplicate strategy deployment spec 'test-deployment-a'",
            "cluster service version contains duplicate strategy deployment spec 'test-deployment-b'",
        ]
    );
}

#[test]
fn upstream_check_deployment_name_is_dns1123_subdomain() {
    const P: &str = "invalid cluster service version strategy deployment name";
    let ok = bundle(
        &csv(json!({"install": deployments(&["test-deployment-one", "test-deployment-two"])})),
        &[],
    );
    assert_eq!(errors_of(ok.path(), P), Vec::<String>::new());
    let (b, a) = (long("b", ""), long("a", "-and-bad-"));
    let bad = bundle(
        &csv(json!({"install": deployments(&["-bad-name", &b, &a])})),
        &[],
    );
    assert_eq!(
        errors_of(bad.path(), P),
        [
            format!("invalid cluster service version strategy deployment name '-bad-name': {DNS_REGEX}"),
            format!("invalid cluster service version strategy deployment name '{a}': {DNS_REGEX}, must be no more than 253 characters"),
            format!("invalid cluster service version strategy deployment name '{b}': must be no more than 253 characters"),
        ]
    );
}

#[test]
fn upstream_crd_resource_uniqueness() {
    const P: &str = "bundle contains duplicate custom resource definition";
    let unique = bundle(
        &csv(json!({})),
        &[
            ("manifests/a.yaml", crd("a.crd.something")),
            ("manifests/b.yaml", crd("b.crd.something")),
        ],
    );
    assert_eq!(errors_of(unique.path(), P), Vec::<String>::new());
    let dup = bundle(
        &csv(json!({})),
        &[
            ("manifests/a1.yaml", crd("a.crd.something")),
            ("manifests/a2.yaml", crd("a.crd.something")),
        ],
    );
    assert_eq!(
        errors_of(dup.path(), P),
        ["bundle contains duplicate custom resource definition 'a.crd.something'"]
    );
    let ordered = bundle(
        &csv(json!({})),
        &[
            ("manifests/1.yaml", crd("c.crd.something")),
            ("manifests/2.yaml", crd("c.crd.something")),
            ("manifests/3.yaml", crd("a.crd.something")),
            ("manifests/4.yaml", crd("a.crd.something")),
        ],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        [
            "bundle contains duplicate custom resource definition 'a.crd.something'",
            "bundle contains duplicate custom resource definition 'c.crd.something'",
        ]
    );
}

fn owned(names: &[&str]) -> Value {
    json!({"owned": names.iter().map(|n| json!({"name": n, "kind": "Thing", "version": "v1"})).collect::<Vec<_>>()})
}

#[test]
fn upstream_check_owned_crd_existence() {
    const P: &str = "cluster service definition references owned custom resource definition";
    let ok = bundle(
        &csv(json!({"customresourcedefinitions": owned(&["a.crd.something", "b.crd.something"])})),
        &[
            ("manifests/a.yaml", crd("a.crd.something")),
            ("manifests/b.yaml", crd("b.crd.something")),
        ],
    );
    assert_eq!(errors_of(ok.path(), P), Vec::<String>::new());
    let missing = bundle(
        &csv(json!({"customresourcedefinitions": owned(&["a.crd.something"])})),
        &[],
    );
    assert_eq!(
        errors_of(missing.path(), P),
        ["cluster service definition references owned custom resource definition 'a.crd.something' not found in bundle"]
    );
    let ordered = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["a.crd.something", "c.crd.something", "b.crd.something"])}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        ["a", "b", "c"].map(|x| format!("cluster service definition references owned custom resource definition '{x}.crd.something' not found in bundle"))
    );
}

#[test]
fn upstream_check_package_name_not_empty() {
    let named = bundle(&csv(json!({})), &[]);
    assert_eq!(
        errors_of(named.path(), "package name is empty"),
        Vec::<String>::new()
    );
    let unnamed = bundle(
        &csv(json!({})),
        &[(
            "metadata/annotations.yaml",
            "annotations:\n  operators.operatorframework.io.bundle.channels.v1: stable\n".into(),
        )],
    );
    let d = v1(unnamed.path());
    assert_eq!(validator_errors(&d), ["package name is empty"]);
    assert!(of(&d, "OLM751")[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("metadata/annotations.yaml"));
}

fn webhook(ty: &str, name: &str) -> Value {
    json!({"type": ty, "generateName": name})
}

#[test]
fn upstream_check_webhook_support() {
    const P: &str = "bundle contains conversion webhook";
    let only_all = bundle(
        &csv(json!({"webhookdefinitions": [webhook("ConversionWebhook", "")]})),
        &[],
    );
    assert_eq!(errors_of(only_all.path(), P), Vec::<String>::new());
    for ty in ["ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"] {
        let more = bundle(
            &csv(
                json!({"installModes": install_modes(&["AllNamespaces", "SingleNamespace"]), "webhookdefinitions": [webhook(ty, "")]}),
            ),
            &[],
        );
        assert_eq!(errors_of(more.path(), P), Vec::<String>::new(), "{ty}");
    }
    let conversion = bundle(
        &csv(json!({
            "installModes": install_modes(&["SingleNamespace", "AllNamespaces"]),
            "webhookdefinitions": [webhook("ConversionWebhook", "webhook-b"), webhook("ConversionWebhook", "webhook-a")],
        })),
        &[],
    );
    assert_eq!(
        errors_of(conversion.path(), P),
        [
            "bundle contains conversion webhook \"webhook-b\" and supports install modes [AllNamespaces SingleNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode",
            "bundle contains conversion webhook \"webhook-a\" and supports install modes [AllNamespaces SingleNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode",
        ]
    );
}

fn rule(groups: &[&str], resources: &[&str]) -> Value {
    json!([{"apiGroups": groups, "resources": resources}])
}

#[test]
fn upstream_check_webhook_rules() {
    const P: &str = "webhook \"";
    let none = bundle(
        &csv(
            json!({"webhookdefinitions": [webhook("ValidatingAdmissionWebhook", ""), webhook("MutatingAdmissionWebhook", "")]}),
        ),
        &[],
    );
    assert_eq!(errors_of(none.path(), P), Vec::<String>::new());
    let supported = bundle(
        &csv(json!({"webhookdefinitions": [
            {"type": "ValidatingAdmissionWebhook", "rules": rule(&["appsv1"], &["deployments", "replicasets", "statefulsets"])},
            {"type": "MutatingAdmissionWebhook", "rules": rule(&[""], &["services"])},
        ]})),
        &[],
    );
    assert_eq!(errors_of(supported.path(), P), Vec::<String>::new());
    for group in ["*", "olm.operatorframework.io"] {
        let b = bundle(
            &csv(json!({"webhookdefinitions": [
                {"type": "ValidatingAdmissionWebhook", "generateName": "webhook-z", "rules": rule(&[group], &[])},
                {"type": "MutatingAdmissionWebhook", "generateName": "webhook-a", "rules": rule(&[group], &[])},
            ]})),
            &[],
        );
        assert_eq!(
            errors_of(b.path(), P),
            ["z", "a"].map(|w| format!("webhook \"webhook-{w}\" contains forbidden rule: admission webhook rules cannot reference API group \"{group}\""))
        );
    }
    for resource in [
        "*",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfiguration",
        "mutatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfiguration",
        "validatingwebhookconfigurations",
    ] {
        let b = bundle(
            &csv(json!({"webhookdefinitions": [
                {"type": "ValidatingAdmissionWebhook", "generateName": "webhook-a", "rules": rule(&["admissionregistration.k8s.io"], &[resource])},
            ]})),
            &[],
        );
        assert_eq!(
            errors_of(b.path(), P),
            [format!("webhook \"webhook-a\" contains forbidden rule: admission webhook rules cannot reference resource \"{resource}\" for API group \"admissionregistration.k8s.io\"")]
        );
    }
}

fn hook(ty: &str, name: &str, deployment: &str) -> Value {
    json!({"type": ty, "generateName": name, "deploymentName": deployment})
}

#[test]
fn upstream_check_webhook_deployment_referential_integrity() {
    const P: &str = "webhook of type '";
    const R: &str = "references non-existent deployment";
    let errs = |d: &Path| -> Vec<String> {
        errors_of(d, P)
            .into_iter()
            .filter(|m| m.contains(R))
            .collect()
    };
    let ok = bundle(
        &csv(
            json!({"install": deployments(&["test-deployment-one", "test-deployment-two"]),
                    "webhookdefinitions": [hook("MutatingAdmissionWebhook", "test-webhook", "test-deployment-one")]}),
        ),
        &[],
    );
    assert_eq!(errs(ok.path()), Vec::<String>::new());
    let missing = bundle(
        &csv(json!({"install": deployments(&["test-deployment-one"]),
                    "webhookdefinitions": [hook("ValidatingAdmissionWebhook", "test-webhook", "test-deployment-two")]})),
        &[],
    );
    assert_eq!(
        errs(missing.path()),
        ["webhook of type 'ValidatingAdmissionWebhook' with name 'test-webhook' references non-existent deployment 'test-deployment-two'"]
    );
    let ordered = bundle(
        &csv(
            json!({"install": deployments(&["test-deployment-one"]), "webhookdefinitions": [
                hook("ValidatingAdmissionWebhook", "test-val-webhook-c", "test-deployment-c"),
                hook("MutatingAdmissionWebhook", "test-mute-webhook-a", "test-deployment-a"),
                hook("ConversionWebhook", "test-conv-webhook-b", "test-deployment-b"),
                hook("MutatingAdmissionWebhook", "test-mute-webhook-c", "test-deployment-c"),
                hook("ConversionWebhook", "test-conv-webhook-c-b", "test-deployment-c"),
                hook("ConversionWebhook", "test-conv-webhook-c-a", "test-deployment-c"),
            ]}),
        ),
        &[],
    );
    assert_eq!(
        errs(ordered.path()),
        [
            "webhook of type 'MutatingAdmissionWebhook' with name 'test-mute-webhook-a' references non-existent deployment 'test-deployment-a'",
            "webhook of type 'ConversionWebhook' with name 'test-conv-webhook-b' references non-existent deployment 'test-deployment-b'",
            "webhook of type 'ConversionWebhook' with name 'test-conv-webhook-c-a' references non-existent deployment 'test-deployment-c'",
            "webhook of type 'ConversionWebhook' with name 'test-conv-webhook-c-b' references non-existent deployment 'test-deployment-c'",
            "webhook of type 'MutatingAdmissionWebhook' with name 'test-mute-webhook-c' references non-existent deployment 'test-deployment-c'",
            "webhook of type 'ValidatingAdmissionWebhook' with name 'test-val-webhook-c' references non-existent deployment 'test-deployment-c'",
        ]
    );
}

#[test]
fn upstream_check_webhook_name_uniqueness() {
    const P: &str = "duplicate webhook";
    let hooks = |list: &[(&str, &str)]| -> Value {
        json!(list.iter().map(|(t, n)| webhook(t, n)).collect::<Vec<_>>())
    };
    let (v, m, c) = (
        "ValidatingAdmissionWebhook",
        "MutatingAdmissionWebhook",
        "ConversionWebhook",
    );
    let none = bundle(&csv(json!({})), &[]);
    assert_eq!(errors_of(none.path(), P), Vec::<String>::new());
    let unique = bundle(
        &csv(
            json!({"webhookdefinitions": hooks(&[(m, "test-webhook-one"), (v, "test-webhook-two"), (c, "test-webhook-three"), (m, "test-webhook-four"), (v, "test-webhook-five"), (c, "test-webhook-six")])}),
        ),
        &[],
    );
    assert_eq!(errors_of(unique.path(), P), Vec::<String>::new());
    let across = bundle(
        &csv(
            json!({"webhookdefinitions": hooks(&[(m, "test-webhook"), (v, "test-webhook"), (c, "test-webhook")])}),
        ),
        &[],
    );
    assert_eq!(errors_of(across.path(), P), Vec::<String>::new());
    for ty in [v, m, c] {
        let dup = bundle(
            &csv(
                json!({"webhookdefinitions": hooks(&[(ty, "test-webhook"), (ty, "test-webhook")])}),
            ),
            &[],
        );
        assert_eq!(
            errors_of(dup.path(), P),
            [format!("duplicate webhook 'test-webhook' of type '{ty}'")]
        );
    }
    let ordered = bundle(
        &csv(json!({"webhookdefinitions": hooks(&[
            (v, "test-val-webhook-b"), (v, "test-val-webhook-a"), (v, "test-val-webhook-a"), (v, "test-val-webhook-b"),
            (c, "test-conv-webhook-b"), (c, "test-conv-webhook-a"), (c, "test-conv-webhook-a"), (c, "test-conv-webhook-b"),
            (m, "test-mute-webhook-b"), (m, "test-mute-webhook-a"), (m, "test-mute-webhook-a"), (m, "test-mute-webhook-b"),
        ])})),
        &[],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        [
            "duplicate webhook 'test-conv-webhook-a' of type 'ConversionWebhook'",
            "duplicate webhook 'test-conv-webhook-b' of type 'ConversionWebhook'",
            "duplicate webhook 'test-mute-webhook-a' of type 'MutatingAdmissionWebhook'",
            "duplicate webhook 'test-mute-webhook-b' of type 'MutatingAdmissionWebhook'",
            "duplicate webhook 'test-val-webhook-a' of type 'ValidatingAdmissionWebhook'",
            "duplicate webhook 'test-val-webhook-b' of type 'ValidatingAdmissionWebhook'",
        ]
    );
}

fn conversion(name: &str, crds: &[&str]) -> Value {
    json!({"type": "ConversionWebhook", "generateName": name, "conversionCRDs": crds})
}

#[test]
fn upstream_check_conversion_webhooks_reference_owned_crds() {
    const P: &str = "conversion webhook '";
    let none = bundle(&csv(json!({})), &[]);
    assert_eq!(errors_of(none.path(), P), Vec::<String>::new());
    let admission = bundle(
        &csv(
            json!({"webhookdefinitions": [webhook("ValidatingAdmissionWebhook", "test-val-webhook"), webhook("MutatingAdmissionWebhook", "test-mute-webhook")]}),
        ),
        &[],
    );
    assert_eq!(errors_of(admission.path(), P), Vec::<String>::new());
    let owned_ok = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["some.crd.something", "another.crd.something"]),
                    "webhookdefinitions": [conversion("test-webhook", &["some.crd.something", "another.crd.something"])]}),
        ),
        &[],
    );
    assert_eq!(errors_of(owned_ok.path(), P), Vec::<String>::new());
    let not_owned = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["some.crd.something"]),
                    "webhookdefinitions": [conversion("test-webhook", &["some.crd.something", "another.crd.something"])]}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(not_owned.path(), P),
        ["conversion webhook 'test-webhook' references custom resource definition 'another.crd.something' not owned bundle"]
    );
    let ordered = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["b.crd.something"]), "webhookdefinitions": [
                conversion("test-webhook-b", &["b.crd.something"]),
                conversion("test-webhook-a", &["c.crd.something", "a.crd.something"]),
                conversion("test-webhook-c", &["a.crd.something", "d.crd.something"]),
            ]}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        [("a", "a"), ("a", "c"), ("c", "a"), ("c", "d")].map(|(w, c)| format!("conversion webhook 'test-webhook-{w}' references custom resource definition '{c}.crd.something' not owned bundle"))
    );
}

#[test]
fn upstream_check_conversion_webhook_crd_reference_uniqueness() {
    const P: &str = "conversion webhooks [";
    let admission = bundle(
        &csv(
            json!({"webhookdefinitions": [webhook("ValidatingAdmissionWebhook", "test-val-webhook"), webhook("MutatingAdmissionWebhook", "test-mute-webhook")]}),
        ),
        &[],
    );
    assert_eq!(errors_of(admission.path(), P), Vec::<String>::new());
    let different = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["some.crd.something", "another.crd.something"]), "webhookdefinitions": [
            conversion("test-webhook", &["some.crd.something"]), conversion("test-webhook-2", &["another.crd.something"])]}),
        ),
        &[],
    );
    assert_eq!(errors_of(different.path(), P), Vec::<String>::new());
    let same = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["some.crd.something"]), "webhookdefinitions": [
            conversion("test-webhook", &["some.crd.something"]), conversion("test-webhook-two", &["some.crd.something"])]}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(same.path(), P),
        ["conversion webhooks [test-webhook,test-webhook-two] reference same custom resource definition 'some.crd.something'"]
    );
    let ordered = bundle(
        &csv(
            json!({"customresourcedefinitions": owned(&["b.crd.something"]), "webhookdefinitions": [
                conversion("test-webhook-b", &["b.crd.something", "a.crd.something"]),
                conversion("test-webhook-a", &["d.crd.something", "a.crd.something", "b.crd.something"]),
                conversion("test-webhook-c", &["b.crd.something", "d.crd.something"]),
            ]}),
        ),
        &[],
    );
    assert_eq!(
        errors_of(ordered.path(), P),
        [
            "conversion webhooks [test-webhook-a,test-webhook-b] reference same custom resource definition 'a.crd.something'",
            "conversion webhooks [test-webhook-a,test-webhook-b,test-webhook-c] reference same custom resource definition 'b.crd.something'",
            "conversion webhooks [test-webhook-a,test-webhook-c] reference same custom resource definition 'd.crd.something'",
        ]
    );
}

#[test]
fn upstream_check_webhook_name_is_dns1123_subdomain() {
    const P: &str = "webhook of type '";
    let errs = |d: &Path| -> Vec<String> {
        errors_of(d, P)
            .into_iter()
            .filter(|m| m.contains("has invalid name"))
            .collect()
    };
    let none = bundle(&csv(json!({})), &[]);
    assert_eq!(errs(none.path()), Vec::<String>::new());
    let (b_bad, a_long) = (long("b", "-and-bad-"), long("a", ""));
    let (v, m, c) = (
        "ValidatingAdmissionWebhook",
        "MutatingAdmissionWebhook",
        "ConversionWebhook",
    );
    let bad = bundle(
        &csv(json!({"webhookdefinitions": [
            webhook(v, &b_bad), webhook(v, &a_long), webhook(v, "-bad-name"), webhook(c, "b-bad-name-"),
            webhook(m, &b_bad), webhook(m, "a-bad-name-"), webhook(c, "a-bad-name-"),
        ]})),
        &[],
    );
    // Too long for the joined error's note: the findings, sorted, are upstream's order
    // here (type, then name).
    let mut got = errs(bad.path());
    got.sort();
    assert_eq!(
        got,
        [
            format!("webhook of type 'ConversionWebhook' has invalid name 'a-bad-name-': {DNS_REGEX}"),
            format!("webhook of type 'ConversionWebhook' has invalid name 'b-bad-name-': {DNS_REGEX}"),
            format!("webhook of type 'MutatingAdmissionWebhook' has invalid name 'a-bad-name-': {DNS_REGEX}"),
            format!("webhook of type 'MutatingAdmissionWebhook' has invalid name '{b_bad}': {DNS_REGEX},must be no more than 253 characters"),
            format!("webhook of type 'ValidatingAdmissionWebhook' has invalid name '-bad-name': {DNS_REGEX}"),
            format!("webhook of type 'ValidatingAdmissionWebhook' has invalid name '{a_long}': must be no more than 253 characters"),
            format!("webhook of type 'ValidatingAdmissionWebhook' has invalid name '{b_bad}': {DNS_REGEX},must be no more than 253 characters"),
        ]
    );
}

#[test]
fn upstream_check_object_support() {
    const P: &str = "unsupported resource";
    let none = bundle(&csv(json!({})), &[]);
    assert_eq!(errors_of(none.path(), P), Vec::<String>::new());
    let supported: Vec<(String, String)> = [
        ("v1", "Secret", "my-secret"),
        ("v1", "ConfigMap", "my-configmap"),
        ("v1", "ServiceAccount", "my-sa"),
        ("v1", "Service", "my-service"),
        (
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "my-clusterrole",
        ),
        (
            "rbac.authorization.k8s.io/v1",
            "ClusterRoleBinding",
            "my-clusterrolebinding",
        ),
        ("rbac.authorization.k8s.io/v1", "Role", "my-role"),
        (
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            "my-rolebinding",
        ),
    ]
    .iter()
    .map(|(a, k, n)| (format!("manifests/{n}.yaml"), object(a, k, n)))
    .collect();
    let files: Vec<(&str, String)> = supported
        .iter()
        .map(|(p, t)| (p.as_str(), t.clone()))
        .collect();
    let ok = bundle(&csv(json!({})), &files);
    assert_eq!(errors_of(ok.path(), P), Vec::<String>::new());
    let one = bundle(
        &csv(json!({})),
        &[(
            "manifests/d.yaml",
            object("apps/v1", "Deployment", "my-deployment"),
        )],
    );
    assert_eq!(
        errors_of(one.path(), P),
        [r#"unsupported resource "my-deployment" with kind "Deployment""#]
    );
    let two = bundle(
        &csv(json!({})),
        &[
            (
                "manifests/d.yaml",
                object("apps/v1", "Deployment", "my-deployment"),
            ),
            (
                "manifests/s.yaml",
                object("apps/v1", "StatefulSet", "my-statefulset"),
            ),
        ],
    );
    assert_eq!(
        errors_of(two.path(), P),
        [
            r#"unsupported resource "my-deployment" with kind "Deployment""#,
            r#"unsupported resource "my-statefulset" with kind "StatefulSet""#
        ]
    );
    let mixed = bundle(
        &csv(json!({})),
        &[
            (
                "manifests/1.yaml",
                object("v1", "ConfigMap", "my-configmap"),
            ),
            ("manifests/2.yaml", object("batch/v1", "Job", "my-job")),
            ("manifests/3.yaml", object("v1", "Secret", "my-secret")),
        ],
    );
    assert_eq!(
        errors_of(mixed.path(), P),
        [r#"unsupported resource "my-job" with kind "Job""#]
    );
}

// ---- provider_test.go --------------------------------------------------------------------

#[test]
fn upstream_provider_rejects_api_service_definitions() {
    let b = bundle(
        &csv(
            json!({"apiservicedefinitions": {"owned": [{"name": "test-apiservice", "group": "example.com", "version": "v1", "kind": "Test"}]}}),
        ),
        &[],
    );
    for target in [
        "olmv1",
        "olmv1=upstream-experimental",
        "olmv1=ocp-4.20",
        "olmv1=ocp-4.21",
    ] {
        assert_eq!(
            messages(&lint(b.path(), &["--target", target]), "OLM750"),
            ["unsupported bundle: apiServiceDefintions are not supported"],
            "{target}"
        );
    }
}

#[test]
fn upstream_provider_webhook_support() {
    let b = bundle(&csv(json!({"webhookdefinitions": [{}]})), &[]);
    // Support disabled: no certificate provider.
    for args in [
        &["--target", "olmv1=ocp-4.20"][..],
        &[
            "--target",
            "olmv1",
            "--olmv1-feature-gates",
            "WebhookProviderCertManager=false",
        ][..],
    ] {
        assert_eq!(
            messages(&lint(b.path(), args), "OLM750"),
            ["unsupported bundle: webhookDefinitions are not supported"],
            "{args:?}"
        );
    }
    // Support enabled, a provider defined (cert-manager upstream, the service CA from 4.21).
    for target in ["olmv1", "olmv1=ocp-4.21", "olmv1=upstream-experimental"] {
        assert!(
            of(&lint(b.path(), &["--target", target]), "OLM750").is_empty(),
            "{target}"
        );
    }
}

#[test]
fn upstream_provider_single_own_namespace_support() {
    let only = |modes: &[&str]| bundle(&csv(json!({"installModes": install_modes(modes)})), &[]);
    // Gate off: exactly upstream's message.
    for modes in [&["SingleNamespace"][..], &["OwnNamespace"][..]] {
        let b = only(modes);
        let d = v1(b.path());
        assert_eq!(
            messages(&d, "OLM750"),
            ["unsupported bundle: bundle does not support AllNamespaces install mode"],
            "{modes:?}"
        );
        assert_eq!(of(&d, "OLM750")[0]["severity"], "error");
    }
    // Gate on, no configuration: accepted only with watchNamespace (an info note, G5).
    for modes in [&["SingleNamespace"][..], &["OwnNamespace"][..]] {
        let b = only(modes);
        let d = lint(b.path(), &["--target", "olmv1=upstream-experimental"]);
        let f = of(&d, "OLM750");
        assert_eq!(f.len(), 1, "{d:#?}");
        assert_eq!(f[0]["severity"], "info");
        assert!(f[0]["message"]
            .as_str()
            .unwrap()
            .contains("spec.config.inline.watchNamespace"));
        let help = f[0]["help"].as_str().unwrap();
        assert!(
            help.contains(r#"required field "watchNamespace" is missing"#),
            "{help}"
        );
        let rule = if modes == ["OwnNamespace"] {
            "must be the install namespace"
        } else {
            "must be a namespace other than the install namespace"
        };
        assert!(help.contains(rule), "{help}");
    }
    // Gate on, neither All, Single nor Own.
    let multi = only(&["MultiNamespace"]);
    assert_eq!(
        messages(&lint(multi.path(), &["--target", "olmv1=upstream-experimental"]), "OLM750"),
        ["unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes"]
    );
    // Gate off, the same bundle: the AllNamespaces check comes first.
    assert_eq!(
        messages(&v1(multi.path()), "OLM750"),
        ["unsupported bundle: bundle does not support AllNamespaces install mode"]
    );
}

#[test]
fn upstream_provider_surfaces_bundle_source_errors() {
    // operator-controller reads metadata/annotations.yaml at exactly that path.
    let b = bundle(&csv(json!({})), &[]);
    let meta = b.path().join("bundle/metadata");
    std::fs::rename(meta.join("annotations.yaml"), meta.join("annotations.yml")).unwrap();
    let d = v1(b.path());
    assert_eq!(
        messages(&d, "OLM752"),
        ["open metadata/annotations.yaml: no such file or directory"]
    );
    assert!(of(&d, "OLM752")[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("metadata/annotations.yml"));
}

// ---- gating: profiles and feature gates ---------------------------------------------------

/// A bundle with a validating webhook that supports OwnNamespace and SingleNamespace only.
fn webhook_single_own() -> tempfile::TempDir {
    bundle(
        &csv(json!({
            "installModes": install_modes(&["OwnNamespace", "SingleNamespace"]),
            "install": deployments(&["foo-controller"]),
            "webhookdefinitions": [{"type": "ValidatingAdmissionWebhook", "generateName": "vfoo.example.com",
                "deploymentName": "foo-controller", "sideEffects": "None", "admissionReviewVersions": ["v1"]}],
        })),
        &[],
    )
}

#[test]
fn gating_verdicts_follow_the_profile_first_failure_wins() {
    let b = webhook_single_own();
    let all = "unsupported bundle: bundle does not support AllNamespaces install mode";
    let hooks = "unsupported bundle: webhookDefinitions are not supported";
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--target", "olmv1"], all, "error"),
        (&["--target", "olmv1=upstream"], all, "error"),
        (&["--target", "olmv1=ocp-4.20"], hooks, "error"),
        (&["--target", "olmv1=ocp-4.21"], all, "error"),
        (&["--target", "olmv1=ocp-4.22"], all, "error"),
        (&["--target", "v0,olmv1=ocp-4.20"], hooks, "error"),
        (&["--target", "olmv1=upstream-experimental"], "OLM v1 (upstream-experimental, SingleOwnNamespaceInstallSupport on) installs this bundle only when the ClusterExtension sets spec.config.inline.watchNamespace: the bundle does not support AllNamespaces install mode", "info"),
        (&["--target", "olmv1=ocp-4.21", "--olmv1-feature-gates", "SingleOwnNamespaceInstallSupport=true"], "OLM v1 (ocp-4.21, SingleOwnNamespaceInstallSupport on) installs this bundle only when the ClusterExtension sets spec.config.inline.watchNamespace: the bundle does not support AllNamespaces install mode", "info"),
        (&["--target", "olmv1=ocp-4.20", "--olmv1-feature-gates", "WebhookProviderOpenshiftServiceCA=true"], all, "error"),
        (&["--target", "olmv1", "--olmv1-feature-gates", "WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=true"], all, "error"),
        (&["--target", "olmv1=upstream-experimental", "--olmv1-feature-gates", "WebhookProviderCertManager=false"], hooks, "error"),
    ];
    for (args, message, severity) in cases {
        let d = lint(b.path(), args);
        let f = of(&d, "OLM750");
        assert_eq!(f.len(), 1, "{args:?}: {d:#?}");
        assert_eq!(f[0]["message"], *message, "{args:?}");
        assert_eq!(f[0]["severity"], *severity, "{args:?}");
    }
    // Without `--target olmv1` the family is off.
    assert!(lint(b.path(), &[])
        .iter()
        .all(|d| !d["rule"].as_str().unwrap().starts_with("OLM75")));
}

#[test]
fn gating_help_says_what_other_profiles_do() {
    let b = webhook_single_own();
    let d = lint(b.path(), &["--target", "olmv1=ocp-4.20"]);
    let help = of(&d, "OLM750")[0]["help"].as_str().unwrap().to_string();
    assert!(
        help.contains("ocp-4.20 profile has no certificate provider")
            && help.contains("OpenShift 4.21 and later"),
        "{help}"
    );
    let d = v1(b.path());
    let f = of(&d, "OLM750");
    let help = f[0]["help"].as_str().unwrap();
    assert!(
        help.contains("upstream-experimental")
            && help.contains("SingleOwnNamespaceInstallSupport=true"),
        "{help}"
    );
    assert!(
        help.contains("may be the install namespace or another one"),
        "{help}"
    );
}

#[test]
fn gating_reads_install_modes_as_go_does() {
    // The set lookup is exact: the type's case, and a boolean `supported`.
    for modes in [
        json!([{"type": "AllNamespaces", "supported": "true"}]),
        json!([{"type": "allnamespaces", "supported": true}]),
        json!([{"type": "AllNamespaces"}]),
        json!([]),
    ] {
        let b = bundle(&csv(json!({"installModes": modes})), &[]);
        assert_eq!(
            messages(&v1(b.path()), "OLM750"),
            ["unsupported bundle: bundle does not support AllNamespaces install mode"],
            "{modes}"
        );
    }
    let none = bundle(
        &json!({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion", "metadata": {"name": "foo.v1.0.0"}, "spec": {"version": "1.0.0"}}),
        &[],
    );
    assert_eq!(
        messages(&v1(none.path()), "OLM750"),
        ["unsupported bundle: bundle does not support AllNamespaces install mode"]
    );
}

#[test]
fn gating_points_at_the_install_modes() {
    let text = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v1.0.0\nspec:\n  version: 1.0.0\n  installModes:\n    - type: OwnNamespace\n      supported: true\n    - type: AllNamespaces\n      supported: false\n";
    let b = bundle(
        &csv(json!({})),
        &[("manifests/foo.clusterserviceversion.yaml", text.into())],
    );
    let d = v1(b.path());
    let f = of(&d, "OLM750");
    assert_eq!(
        (f[0]["line"].as_u64(), f[0]["column"].as_u64()),
        (Some(11), Some(18))
    );
    assert_eq!(f[0]["package"], "foo");
    assert_eq!(f[0]["bundle"], "foo.v1.0.0");
}

/// A catalog `catalog.<ext>` with package foo and one bundle carrying `properties`.
fn catalog(properties: Value, json: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut props =
        vec![json!({"type": "olm.package", "value": {"packageName": "foo", "version": "1.0.0"}})];
    props.extend(properties.as_array().unwrap().iter().cloned());
    let docs = [
        json!({"schema": "olm.package", "name": "foo", "defaultChannel": "stable"}),
        json!({"schema": "olm.channel", "package": "foo", "name": "stable", "entries": [{"name": "foo.v1.0.0"}]}),
        json!({"schema": "olm.bundle", "package": "foo", "name": "foo.v1.0.0", "image": "quay.io/example/foo-bundle:v1.0.0", "properties": props}),
    ];
    let text: String = if json {
        docs.iter().map(|d| format!("{d}\n")).collect()
    } else {
        // Block YAML, as opm writes it (the loader elides most of `olm.csv.metadata`).
        docs.iter()
            .map(|d| format!("---\n{}", yaml_of(d, 0)))
            .collect()
    };
    std::fs::write(
        dir.path()
            .join(if json { "catalog.json" } else { "catalog.yaml" }),
        text,
    )
    .unwrap();
    dir
}

/// Block-style YAML for a JSON value (keys as written; strings double-quoted).
fn yaml_of(v: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => m
            .iter()
            .map(|(k, x)| match x {
                Value::Object(o) if !o.is_empty() => {
                    format!("{pad}{k}:\n{}", yaml_of(x, indent + 2))
                }
                Value::Array(a) if !a.is_empty() => format!("{pad}{k}:\n{}", yaml_of(x, indent)),
                _ => format!("{pad}{k}: {x}\n"),
            })
            .collect(),
        Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|x| {
                let inner = yaml_of(x, indent + 2);
                match x {
                    Value::Object(o) if !o.is_empty() => format!("{pad}- {}", inner.trim_start()),
                    _ => format!("{pad}- {x}\n"),
                }
            })
            .collect(),
        _ => format!("{pad}{v}\n"),
    }
}

#[test]
fn catalogs_are_judged_from_csv_metadata() {
    let own_only = json!([{"type": "olm.csv.metadata", "value": {
        "displayName": "Foo", "keywords": ["a"], "description": "x",
        "installModes": [{"type": "OwnNamespace", "supported": true}, {"type": "AllNamespaces", "supported": false}],
        "apiServiceDefinitions": {}, "crdDescriptions": {"owned": [{"name": "widgets.example.com", "kind": "Widget", "version": "v1"}]},
    }}]);
    for json in [false, true] {
        let c = catalog(own_only.clone(), json);
        let d = v1(c.path());
        let f = of(&d, "OLM750");
        assert_eq!(f.len(), 1, "{d:#?}");
        assert_eq!(
            f[0]["message"],
            "unsupported bundle: bundle does not support AllNamespaces install mode"
        );
        assert_eq!(f[0]["bundle"], "foo.v1.0.0");
        let help = f[0]["help"].as_str().unwrap();
        assert!(
            help.contains(
                r#"error for resolved bundle "foo.v1.0.0" with version "1.0.0": unsupported bundle"#
            ),
            "{help}"
        );
    }
    let api = json!([{"type": "olm.csv.metadata", "value": {
        "installModes": [{"type": "AllNamespaces", "supported": true}],
        "apiServiceDefinitions": {"owned": [{"name": "v1.example.com", "group": "example.com", "version": "v1", "kind": "Metric"}]},
    }}]);
    for json in [false, true] {
        let c = catalog(api.clone(), json);
        assert_eq!(
            messages(&v1(c.path()), "OLM750"),
            ["unsupported bundle: apiServiceDefintions are not supported"],
            "json {json}"
        );
    }
    // Webhooks are not in olm.csv.metadata: under a profile without a provider, no refusal,
    // but one note that they went unchecked.
    let all = json!([{"type": "olm.csv.metadata", "value": {"installModes": [{"type": "AllNamespaces", "supported": true}]}}]);
    let c = catalog(all, false);
    let d = lint(c.path(), &["--target", "olmv1=ocp-4.20"]);
    let notes = of(&d, "OLM750");
    assert_eq!(notes.len(), 1, "{d:#?}");
    assert_eq!(notes[0]["severity"], "info");
}

/// An `olm.bundle.object` property holding `object`, as `opm render` writes it.
fn bundle_object(object: &Value) -> Value {
    use std::fmt::Write;
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = object.to_string().into_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.write_char(char::from(A[(n >> (18 - 6 * i) & 63) as usize]))
                    .unwrap();
            } else {
                out.push('=');
            }
        }
    }
    json!({"type": "olm.bundle.object", "value": {"data": out}})
}

#[test]
fn catalogs_are_judged_from_bundle_objects() {
    let webhooks = csv(json!({
        "install": deployments(&["foo-controller"]),
        "webhookdefinitions": [{"type": "ValidatingAdmissionWebhook", "generateName": "vfoo.example.com", "deploymentName": "foo-controller",
            "sideEffects": "None", "admissionReviewVersions": ["v1"]}],
        "customresourcedefinitions": owned(&["widgets.example.com", "gadgets.example.com"]),
    }));
    let c = catalog(
        json!([
            bundle_object(&webhooks),
            bundle_object(&serde_json::from_str::<Value>(&crd("widgets.example.com")).unwrap()),
            bundle_object(
                &json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"}})
            ),
        ]),
        true,
    );
    assert!(of(&v1(c.path()), "OLM750").is_empty());
    assert_eq!(
        messages(&lint(c.path(), &["--target", "olmv1=ocp-4.20"]), "OLM750"),
        ["unsupported bundle: webhookDefinitions are not supported"]
    );
    let d = v1(c.path());
    assert_eq!(
        validator_errors(&d),
        [
            "cluster service definition references owned custom resource definition 'gadgets.example.com' not found in bundle",
            r#"unsupported resource "migrate" with kind "Job""#,
        ]
    );
    // A CSV alone: whether its CRDs are there cannot be told.
    let alone = catalog(json!([bundle_object(&webhooks)]), false);
    assert!(of(&v1(alone.path()), "OLM751").is_empty());
}

// ---- the validator's findings: places, order, the rendering error -------------------------

#[test]
fn validator_findings_point_at_the_node_and_carry_the_joined_error() {
    let text = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v1.0.0\nspec:\n  version: 1.0.0\n  installModes:\n    - type: AllNamespaces\n      supported: true\n  customresourcedefinitions:\n    owned:\n      - name: widgets.example.com\n        kind: Widget\n        version: v1\n";
    let b = bundle(
        &csv(json!({})),
        &[
            ("manifests/foo.clusterserviceversion.yaml", text.into()),
            (
                "manifests/job.yaml",
                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n".into(),
            ),
        ],
    );
    let d = v1(b.path());
    let f = of(&d, "OLM751");
    let at: Vec<(String, u64, u64)> = f
        .iter()
        .map(|x| {
            (
                x["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                x["line"].as_u64().unwrap(),
                x["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        at,
        [
            ("foo.clusterserviceversion.yaml".to_string(), 12, 15),
            ("job.yaml".to_string(), 2, 7)
        ]
    );
    assert_eq!(
        validator_errors(&d),
        [
            "cluster service definition references owned custom resource definition 'widgets.example.com' not found in bundle",
            r#"unsupported resource "migrate" with kind "Job""#,
        ]
    );
    assert_eq!(f[0]["severity"], "error");
    assert!(f[0]["help"].as_str().unwrap().contains("one per line"));
}

#[test]
fn rendering_refuses_a_converted_crd_that_preserves_unknown_fields() {
    let spec = json!({
        "installModes": install_modes(&["AllNamespaces"]),
        "install": deployments(&["foo-controller"]),
        "customresourcedefinitions": owned(&["widgets.example.com"]),
        "webhookdefinitions": [{"type": "ConversionWebhook", "generateName": "cwidgets.example.com", "deploymentName": "foo-controller",
            "admissionReviewVersions": ["v1"], "conversionCRDs": ["widgets.example.com"]}],
    });
    let preserving = crd("widgets.example.com").replacen(
        "\"scope\"",
        "\"preserveUnknownFields\": true,\n    \"scope\"",
        1,
    );
    let b = bundle(
        &csv(spec.clone()),
        &[("manifests/widgets.yaml", preserving.clone())],
    );
    let d = v1(b.path());
    assert_eq!(
        messages(&d, "OLM751"),
        ["custom resource definition 'widgets.example.com' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion"]
    );
    let f = of(&d, "OLM751");
    assert!(f[0]["file"].as_str().unwrap().ends_with("widgets.yaml"));
    assert_eq!(
        f[0]["line"].as_u64(),
        Some(
            preserving
                .lines()
                .position(|l| l.contains("preserveUnknownFields"))
                .map(|i| i as u64 + 1)
                .unwrap()
        )
    );
    // Not behind a conversion webhook, or false: accepted.
    let b = bundle(
        &csv(spec),
        &[("manifests/widgets.yaml", crd("widgets.example.com"))],
    );
    assert!(of(&v1(b.path()), "OLM751").is_empty());
    let b = bundle(&csv(json!({})), &[("manifests/widgets.yaml", preserving)]);
    assert!(of(&v1(b.path()), "OLM751").is_empty());
}

// ---- layout -----------------------------------------------------------------------------

#[test]
fn layout_refuses_subdirectories_of_manifests() {
    let b = bundle(
        &csv(json!({})),
        &[(
            "manifests/samples/widget.yaml",
            object("v1", "ConfigMap", "widget"),
        )],
    );
    std::fs::create_dir_all(b.path().join("bundle/manifests/empty")).unwrap();
    let d = v1(b.path());
    let mut got = messages(&d, "OLM752");
    got.sort();
    assert_eq!(
        got,
        [
            r#"subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/empty""#,
            r#"subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/samples""#,
        ]
    );
    for x in of(&d, "OLM752") {
        let (m, f) = (x["message"].as_str().unwrap(), x["file"].as_str().unwrap());
        // The first file below the directory; for an empty one, the annotations.
        let want = if m.ends_with("\"manifests/empty\"") {
            "metadata/annotations.yaml"
        } else {
            "manifests/samples/widget.yaml"
        };
        assert!(f.ends_with(want), "{m}: {f}");
    }
}

#[cfg(unix)]
#[test]
fn layout_does_not_follow_links() {
    let b = bundle(&csv(json!({})), &[]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("secret")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret"),
        b.path().join("bundle/manifests/linked"),
    )
    .unwrap();
    assert!(of(&v1(b.path()), "OLM752").is_empty());
    // A manifests/ that is itself a link is not listed either.
    let c = bundle(&csv(json!({})), &[]);
    let real = c.path().join("real-manifests");
    std::fs::rename(c.path().join("bundle/manifests"), &real).unwrap();
    std::fs::create_dir_all(real.join("sub")).unwrap();
    std::os::unix::fs::symlink(&real, c.path().join("bundle/manifests")).unwrap();
    assert!(of(&v1(c.path()), "OLM752")
        .iter()
        .all(|d| !d["message"].as_str().unwrap().contains("subdirectories")));
}

#[test]
fn layout_refuses_files_that_do_not_decode_as_objects() {
    let cases: &[(&str, &str, String)] = &[
        ("README.md", "Read me: first\n", r#"error parsing objects in "manifests/README.md": unable to decode "manifests/README.md": Object 'Kind' is missing in '{"Read me":"first"}'"#.into()),
        ("notes.txt", "just some words\n", "error parsing objects in \"manifests/notes.txt\": unable to decode \"manifests/notes.txt\": json: cannot unmarshal string into Go value of type struct { Items json.RawMessage \"json:\\\"items\\\"\" }".into()),
        ("list.yaml", "- a\n- b\n", "error parsing objects in \"manifests/list.yaml\": unable to decode \"manifests/list.yaml\": json: cannot unmarshal array into Go value of type struct { Items json.RawMessage \"json:\\\"items\\\"\" }".into()),
        ("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    enabled: true\n", r#"error parsing objects in "manifests/cm.yaml": unable to decode "manifests/cm.yaml": json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.annotations of type string"#.into()),
        ("cm2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 7\n", r#"error parsing objects in "manifests/cm2.yaml": unable to decode "manifests/cm2.yaml": json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"#.into()),
        ("cm3.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: [a]\n", r#"error parsing objects in "manifests/cm3.yaml": unable to decode "manifests/cm3.yaml": json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"#.into()),
    ];
    for (name, text, want) in cases {
        let b = bundle(
            &csv(json!({})),
            &[(&format!("manifests/{name}"), (*text).into())],
        );
        let d = v1(b.path());
        assert_eq!(messages(&d, "OLM752"), std::slice::from_ref(want), "{name}");
        // What does not decode is not also an object of another rule.
        assert!(of(&d, "OLM751").is_empty(), "{name}: {d:#?}");
    }
    // Empty documents, comments and `null` are skipped, as OLM v1 skips them.
    let b = bundle(
        &csv(json!({})),
        &[("manifests/empty.yaml", "# nothing\n---\n~\n---\n".into())],
    );
    assert!(of(&v1(b.path()), "OLM752").is_empty());
    // A file that is not YAML at all is OLM001's finding, not this rule's.
    let b = bundle(&csv(json!({})), &[("manifests/x.yaml", "a: [b\n".into())]);
    let d = v1(b.path());
    assert!(
        of(&d, "OLM752").is_empty() && !of(&d, "OLM001").is_empty(),
        "{d:#?}"
    );
}

#[test]
fn layout_reports_a_second_csv() {
    let second = csv(json!({}))
        .to_string()
        .replace("foo.v1.0.0", "foo.v2.0.0");
    let b = bundle(
        &csv(json!({})),
        &[("manifests/zz.clusterserviceversion.yaml", second)],
    );
    let d = v1(b.path());
    assert_eq!(
        messages(&d, "OLM752"),
        [
            r#"more than one ClusterServiceVersion in manifests/: OLM v1 keeps the last one it reads ("foo.v2.0.0", manifests/zz.clusterserviceversion.yaml) and silently drops this one ("foo.v1.0.0"), while opm keeps the first"#
        ]
    );
    // OLM v1 judges the last one: its install modes decide.
    let own = csv(json!({"installModes": install_modes(&["OwnNamespace"])}))
        .to_string()
        .replace("foo.v1.0.0", "foo.v2.0.0");
    let b = bundle(
        &csv(json!({})),
        &[("manifests/zz.clusterserviceversion.yaml", own)],
    );
    let d = v1(b.path());
    assert_eq!(of(&d, "OLM750")[0]["bundle"], "foo.v2.0.0");
}

#[test]
fn layout_refuses_properties_that_do_not_decode() {
    let cases = [
        ("properties: {a: b}\n", "json: cannot unmarshal object into Go struct field RegistryV1Properties.properties of type []property.Property"),
        ("properties:\n  - type: 1\n    value: {}\n", "json: cannot unmarshal number into Go struct field Property.properties.type of type string"),
        ("properties:\n  - just a string\n", "json: cannot unmarshal string into Go struct field RegistryV1Properties.properties of type property.Property"),
        ("- a\n", "json: cannot unmarshal array into Go value of type source.RegistryV1Properties"),
    ];
    for (text, err) in cases {
        let b = bundle(
            &csv(json!({})),
            &[("metadata/properties.yaml", text.into())],
        );
        assert_eq!(
            messages(&v1(b.path()), "OLM752"),
            [format!("failed to unmarshal metadata/properties.yaml: error unmarshaling JSON: while decoding JSON: {err}")],
            "{text}"
        );
    }
    let ok = bundle(
        &csv(json!({})),
        &[(
            "metadata/properties.yaml",
            "properties:\n  - type: olm.maxOpenShiftVersion\n    value: \"4.20\"\n".into(),
        )],
    );
    assert!(of(&v1(ok.path()), "OLM752").is_empty());
}

#[test]
fn layout_reports_an_undecodable_properties_annotation_when_olm713_is_off() {
    let mut c = csv(json!({}));
    c["metadata"]["annotations"] =
        json!({"olm.properties": "{\"type\": \"olm.maxOpenShiftVersion\"}"});
    let b = bundle(&c, &[]);
    let d = v1(b.path());
    assert!(of(&d, "OLM752").is_empty(), "{d:#?}");
    assert_eq!(of(&d, "OLM713").len(), 1);
    let d = lint(b.path(), &["--target", "olmv1", "--disable", "OLM713"]);
    assert_eq!(
        messages(&d, "OLM752"),
        ["failed to unmarshal csv.metadata.annotations['olm.properties']: json: cannot unmarshal object into Go value of type []property.Property"]
    );
}

// ---- apply time -------------------------------------------------------------------------

#[test]
fn apply_time_removed_api_versions() {
    let v1beta1 = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  version: v1\n";
    let b = bundle(
        &csv(json!({"customresourcedefinitions": owned(&["widgets.example.com"])})),
        &[
            ("manifests/widgets.yaml", v1beta1.into()),
            (
                "manifests/role.yaml",
                object(
                    "rbac.authorization.k8s.io/v1beta1",
                    "ClusterRole",
                    "foo-reader",
                ),
            ),
            (
                "manifests/pdb.yaml",
                object("policy/v1beta1", "PodDisruptionBudget", "foo"),
            ),
            ("manifests/cm.yaml", object("v1", "ConfigMap", "foo")),
        ],
    );
    let d = v1(b.path());
    let mut got = messages(&d, "OLM753");
    got.sort();
    assert_eq!(
        got,
        [
            r#"ClusterRole "foo-reader" is rbac.authorization.k8s.io/v1beta1, which Kubernetes no longer serves (removed in 1.22): OLM v1's server-side dry-run fails with no matches for kind "ClusterRole" in version "rbac.authorization.k8s.io/v1beta1""#,
            r#"CustomResourceDefinition "widgets.example.com" is apiextensions.k8s.io/v1beta1, which Kubernetes no longer serves (removed in 1.22): OLM v1's server-side dry-run fails with no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1""#,
            r#"PodDisruptionBudget "foo" is policy/v1beta1, which Kubernetes no longer serves (removed in 1.25): OLM v1's server-side dry-run fails with no matches for kind "PodDisruptionBudget" in version "policy/v1beta1""#,
        ]
    );
    // The CRD's finding is on its apiVersion line, though the loader keeps only its head.
    let crd_finding = of(&d, "OLM753")
        .into_iter()
        .find(|x| x["file"].as_str().unwrap().ends_with("widgets.yaml"))
        .unwrap();
    assert_eq!(
        (
            crd_finding["line"].as_u64(),
            crd_finding["severity"].as_str()
        ),
        (Some(1), Some("warning"))
    );
}

#[test]
fn apply_time_webhook_configurations() {
    let hook = |extra: Value| {
        let mut h = json!({"type": "ValidatingAdmissionWebhook", "generateName": "vwidget.example.com", "deploymentName": "foo-controller",
            "sideEffects": "None", "admissionReviewVersions": ["v1"]});
        for (k, v) in extra.as_object().unwrap() {
            if v.is_null() {
                h.as_object_mut().unwrap().remove(k);
            } else {
                h[k] = v.clone();
            }
        }
        h
    };
    let cases = [
        (json!({}), None),
        (
            json!({"generateName": "vwidget-"}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget-" is invalid"#,
            ),
        ),
        (
            json!({"generateName": "vwidget.example"}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example" is invalid: webhooks[0].name: Invalid value: "vwidget.example": should be a domain with at least three segments separated by dots"#,
            ),
        ),
        (
            json!({"type": "MutatingAdmissionWebhook", "generateName": "mwidget"}),
            Some(
                r#"MutatingWebhookConfiguration.admissionregistration.k8s.io "mwidget" is invalid: webhooks[0].name: Invalid value: "mwidget": should be a domain with at least three segments separated by dots"#,
            ),
        ),
        (
            json!({"sideEffects": null}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example.com" is invalid: webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"#,
            ),
        ),
        (
            json!({"sideEffects": "Some"}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example.com" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun""#,
            ),
        ),
        (
            json!({"admissionReviewVersions": null}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example.com" is invalid: webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"#,
            ),
        ),
        (
            json!({"admissionReviewVersions": ["v2"]}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example.com" is invalid: webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1"#,
            ),
        ),
        (
            json!({"timeoutSeconds": 31}),
            Some(
                r#"ValidatingWebhookConfiguration.admissionregistration.k8s.io "vwidget.example.com" is invalid: webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"#,
            ),
        ),
    ];
    for (extra, want) in cases {
        let b = bundle(
            &csv(
                json!({"install": deployments(&["foo-controller"]), "webhookdefinitions": [hook(extra.clone())]}),
            ),
            &[],
        );
        let d = v1(b.path());
        match want {
            // A trailing `-` is the validator's (V9): nothing more here.
            Some(w) if w.ends_with("is invalid") => {
                assert!(
                    of(&d, "OLM753").is_empty() && !of(&d, "OLM751").is_empty(),
                    "{extra}: {d:#?}"
                );
            }
            Some(w) => assert_eq!(messages(&d, "OLM753"), [w], "{extra}"),
            None => assert!(of(&d, "OLM753").is_empty(), "{extra}: {d:#?}"),
        }
    }
    // A conversion webhook's review versions become the CRD's conversionReviewVersions.
    let b = bundle(
        &csv(
            json!({"install": deployments(&["foo-controller"]), "customresourcedefinitions": owned(&["widgets.example.com"]),
            "webhookdefinitions": [{"type": "ConversionWebhook", "generateName": "cwidget.example.com", "deploymentName": "foo-controller", "conversionCRDs": ["widgets.example.com"]}]}),
        ),
        &[("manifests/widgets.yaml", crd("widgets.example.com"))],
    );
    assert_eq!(
        messages(&v1(b.path()), "OLM753"),
        [
            r#"CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.conversion.webhook.conversionReviewVersions: Required value"#
        ]
    );
}

#[test]
fn apply_time_services_deployments_and_the_bundle_name() {
    let hook = json!({"type": "ValidatingAdmissionWebhook", "generateName": "vwidget.example.com", "deploymentName": "1st.controller",
        "sideEffects": "None", "admissionReviewVersions": ["v1"]});
    let b = bundle(
        &csv(json!({"install": deployments(&["1st.controller"]), "webhookdefinitions": [hook]})),
        &[],
    );
    assert_eq!(
        messages(&v1(b.path()), "OLM753"),
        [
            r#"Service "1st-controller-service" is invalid: metadata.name: Invalid value: "1st-controller-service": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#
        ]
    );
    // The same deployment without a webhook gets no Service.
    let b = bundle(
        &csv(json!({"install": deployments(&["1st.controller"])})),
        &[],
    );
    assert!(of(&v1(b.path()), "OLM753").is_empty());
    let b = bundle(
        &csv(
            json!({"install": {"strategy": "deployment", "spec": {"deployments": [{"name": "foo-controller", "spec": {}}]}}}),
        ),
        &[],
    );
    assert_eq!(
        messages(&v1(b.path()), "OLM753"),
        [r#"Deployment.apps "foo-controller" is invalid: spec.selector: Required value"#]
    );
    let mut named = csv(json!({}));
    named["metadata"]["name"] = json!("Foo_Operator.v1.0.0");
    let b = bundle(&named, &[]);
    let d = v1(b.path());
    assert_eq!(
        messages(&d, "OLM753"),
        ["status.install.bundle.name: Invalid value: \"string\": packageName must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters"]
    );
}

// ---- coupling to OLM v0 -------------------------------------------------------------------

#[test]
fn v0_coupling_permissions_and_condition_env() {
    let spec = json!({"install": {"strategy": "deployment", "spec": {
        "permissions": [{"serviceAccountName": "foo", "rules": [{"apiGroups": ["operators.coreos.com"], "resources": ["operatorconditions"], "verbs": ["get"]}]}],
        "clusterPermissions": [{"serviceAccountName": "foo", "rules": [
            {"apiGroups": ["operators.coreos.com"], "resources": ["subscriptions", "clusterserviceversions", "catalogsources"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["subscriptions"], "verbs": ["get"]},
        ]}],
        "deployments": [{"name": "foo-controller", "spec": {"selector": {"matchLabels": {"app": "foo"}}, "template": {"spec": {"containers": [
            {"name": "manager", "env": [{"name": "OPERATOR_CONDITION_NAME", "value": "foo.v1.0.0"}]}]}}}}],
    }}});
    let b = bundle(&csv(spec), &[]);
    let d = v1(b.path());
    let mut got = messages(&d, "OLM754");
    got.sort();
    assert_eq!(
        got,
        [
            "deployment \"foo-controller\" sets OPERATOR_CONDITION_NAME, the variable OLM v0 injects to name the operator's OperatorCondition: OLM v1 creates no OperatorCondition",
            "the CSV's clusterPermissions grant operators.coreos.com clusterserviceversions: OLM v1 creates no ClusterServiceVersion, and the API exists only where OLM v0 is installed",
            "the CSV's clusterPermissions grant operators.coreos.com subscriptions: OLM v1 creates no Subscription, and the API exists only where OLM v0 is installed",
            "the CSV's permissions grant operators.coreos.com operatorconditions: OLM v1 creates no OperatorCondition for the operator to report upgrade readiness through",
        ]
    );
    assert!(of(&d, "OLM754").iter().all(|x| x["severity"] == "warning"));
}

#[test]
fn a_clean_bundle_has_no_olmv1_finding_under_any_profile() {
    let b = bundle(
        &csv(json!({
            "install": deployments(&["foo-controller"]),
            "customresourcedefinitions": owned(&["widgets.example.com"]),
        })),
        &[
            ("manifests/widgets.yaml", crd("widgets.example.com")),
            ("manifests/cm.yaml", object("v1", "ConfigMap", "foo-config")),
        ],
    );
    for target in [
        "v0,olmv1",
        "olmv1=ocp-4.20",
        "olmv1=ocp-4.21",
        "olmv1=upstream-experimental",
    ] {
        let d = lint(b.path(), &["--target", target]);
        assert!(
            d.iter()
                .all(|x| !x["rule"].as_str().unwrap().starts_with("OLM75")),
            "{target}: {d:#?}"
        );
    }
}
