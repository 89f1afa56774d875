//! OLM751 olmv1-invalid-bundle: the 13 checks of OLM v1's `BundleValidator`
//! (`rukpak/render/registryv1/validators/validator.go`, in `registryv1.go`'s order, each
//! sorting its errors as upstream does) and the error the resource generators can still
//! raise after them (`generators.go` `BundleCRDGenerator`). Spec §1.3, §1.4.

use super::bundle::Rv1;
use super::csv::{go_list, modes, supported_types, Csv, CONVERSION};
use super::dns::subdomain_errors_joined;
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Span, Value};
use std::collections::{BTreeMap, HashSet};

/// One violation: upstream's message, where it points, and what to do.
struct Violation {
    message: String,
    file: usize,
    span: Span,
    help: &'static str,
    /// Raised while rendering, after the validator (not joined with its errors).
    generator: bool,
}

/// The kinds operator-registry v1.73 supports in a registry+v1 bundle besides the CSV and
/// CRDs (`pkg/lib/bundle/supported_resources.go`), matched by kind only.
const SUPPORTED_KINDS: [&str; 20] = [
    "Secret",
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ServiceAccount",
    "Service",
    "Role",
    "RoleBinding",
    "PrometheusRule",
    "ServiceMonitor",
    "PodDisruptionBudget",
    "PriorityClass",
    "VerticalPodAutoscaler",
    "ConsoleYAMLSample",
    "ConsoleQuickStart",
    "ConsoleCLIDownload",
    "ConsoleLink",
    "ConsolePlugin",
    "NetworkPolicy",
    "PodMonitor",
];

/// Kinds besides the CSV and CRDs that OLM v1 installs (`IsSupported`).
pub fn supported_kind(kind: &str) -> bool {
    SUPPORTED_KINDS.contains(&kind)
}

const ALL_TOGETHER: &str = " OLM v1 runs its bundle validator once the gating checks (OLM750) pass, and reports every violation at once, one per line, in one error.";

/// What the checks may conclude about a bundle: a catalog's `olm.bundle.object` properties
/// have no annotations (no package name to check), and may hold the CSV alone.
pub struct Scope {
    pub package_name: bool,
    pub objects: bool,
}

pub fn check(
    rv1: &Rv1<'_>,
    scope: &Scope,
    who: (Option<&str>, Option<&str>),
    out: &mut Vec<Diagnostic>,
) {
    let Some(csv) = rv1.csv() else { return };
    let mut v = Vec::new();
    deployment_uniqueness(&csv, &mut v);
    deployment_names(&csv, &mut v);
    if scope.objects {
        crd_uniqueness(rv1, &mut v);
        owned_crd_existence(rv1, &csv, &mut v);
    }
    if scope.package_name {
        package_name(rv1, &mut v);
    }
    conversion_webhook_support(&csv, &mut v);
    webhook_deployments(&csv, &mut v);
    webhook_name_uniqueness(&csv, &mut v);
    webhook_names(&csv, &mut v);
    conversion_crd_uniqueness(&csv, &mut v);
    conversion_crds_owned(&csv, &mut v);
    webhook_rules(&csv, &mut v);
    if scope.objects {
        object_support(rv1, &mut v);
        preserve_unknown_fields(rv1, &csv, v.is_empty(), &mut v);
    }
    // The output is sorted by place; the first violation says how OLM v1 reports them all.
    let joined: Vec<&str> = v
        .iter()
        .filter(|x| !x.generator)
        .map(|x| x.message.as_str())
        .collect();
    let together = (joined.len() > 1).then(|| {
        format!(
            "OLM v1 reports these {} violations as one error, in this order:\n{}",
            joined.len(),
            joined.join("\n")
        )
    });
    for (i, x) in v.into_iter().enumerate() {
        let mut d = Diagnostic::new("OLM751", x.message);
        if let (0, Some(t)) = (i, &together) {
            d = d.related(t.clone(), None);
        }
        out.push(
            d.at(x.file, x.span)
                .package(who.0)
                .bundle(who.1)
                .help(if x.generator {
                    x.help.to_string()
                } else {
                    format!("{}{ALL_TOGETHER}", x.help)
                }),
        );
    }
}

/// V1 `CheckDeploymentSpecUniqueness`.
fn deployment_uniqueness(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut seen = HashSet::new();
    let mut dups: BTreeMap<&str, Span> = BTreeMap::new();
    for d in csv.deployments() {
        if !seen.insert(d.name) {
            dups.entry(d.name).or_insert(d.name_span());
        }
    }
    for (name, span) in dups {
        v.push(Violation {
            message: format!("cluster service version contains duplicate strategy deployment spec '{name}'"),
            file: csv.file,
            span,
            help: "Two spec.install.spec.deployments entries have this name, and OLM v1 creates one Deployment per name. Rename one, or merge them.",
            generator: false,
        });
    }
}

/// V2 `CheckDeploymentNameIsDNS1123SubDomain`.
fn deployment_names(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut bad: BTreeMap<&str, (String, Span)> = BTreeMap::new();
    for d in csv.deployments() {
        if let Some(errs) = subdomain_errors_joined(d.name, ", ") {
            bad.entry(d.name).or_insert((errs, d.name_span()));
        }
    }
    for (name, (errs, span)) in bad {
        v.push(Violation {
            message: format!(
                "invalid cluster service version strategy deployment name '{name}': {errs}"
            ),
            file: csv.file,
            span,
            help: "OLM v1 creates a Deployment of this name, which Kubernetes requires to be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters.",
            generator: false,
        });
    }
}

/// V3 `CheckCRDResourceUniqueness`.
fn crd_uniqueness(rv1: &Rv1<'_>, v: &mut Vec<Violation>) {
    let mut seen = HashSet::new();
    let mut dups: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
    for c in &rv1.crds {
        if !seen.insert(c.name()) {
            dups.entry(c.name()).or_insert((c.file, c.name_span()));
        }
    }
    for (name, (file, span)) in dups {
        v.push(Violation {
            message: format!("bundle contains duplicate custom resource definition '{name}'"),
            file,
            span,
            help: "Two CustomResourceDefinition manifests in manifests/ have this metadata.name. Keep one.",
            generator: false,
        });
    }
}

/// V4 `CheckOwnedCRDExistence`.
fn owned_crd_existence(rv1: &Rv1<'_>, csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let names: HashSet<&str> = rv1.crds.iter().map(|c| c.name()).collect();
    let mut missing: BTreeMap<&str, Span> = BTreeMap::new();
    for (name, node) in csv.owned_crds() {
        if !names.contains(name) {
            missing
                .entry(name)
                .or_insert(node.get("name").unwrap_or(node).span);
        }
    }
    for (name, span) in missing {
        v.push(Violation {
            message: format!("cluster service definition references owned custom resource definition '{name}' not found in bundle"),
            file: csv.file,
            span,
            help: "spec.customresourcedefinitions.owned names a CRD that no manifest in manifests/ defines (matched by metadata.name). Add the CRD's manifest, or remove the entry.",
            generator: false,
        });
    }
}

/// V5 `CheckPackageNameNotEmpty`.
fn package_name(rv1: &Rv1<'_>, v: &mut Vec<Violation>) {
    if let (Some(""), Some((file, span))) = (rv1.package, rv1.package_at) {
        v.push(Violation {
            message: "package name is empty".into(),
            file,
            span,
            help: "metadata/annotations.yaml sets no operators.operatorframework.io.bundle.package.v1, the one annotation OLM v1 reads. Set it to the package name.",
            generator: false,
        });
    }
}

/// V6 `CheckConversionWebhookSupport`.
fn conversion_webhook_support(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let conversion: Vec<_> = csv
        .webhooks()
        .into_iter()
        .filter(|w| w.ty == CONVERSION)
        .collect();
    if conversion.is_empty() {
        return;
    }
    let supported = supported_types(&modes(csv.install_modes()));
    if supported == ["AllNamespaces"] {
        return;
    }
    for w in conversion {
        v.push(Violation {
            message: format!("bundle contains conversion webhook {} and supports install modes {} - conversion webhooks are only supported for bundles that only support AllNamespaces install mode", olmlint_semantics::version::go_quote(w.name), go_list(&supported)),
            file: csv.file,
            span: w.name_span(),
            help: "A conversion webhook serves every namespace (the CRD is cluster-wide), so OLM v1, like OLM v0, accepts one only from a bundle that supports AllNamespaces and no other install mode (only `supported: true` entries count). Set the other modes to `supported: false`, or drop the conversion webhook.",
            generator: false,
        });
    }
}

/// V7 `CheckWebhookDeploymentReferentialIntegrity`.
fn webhook_deployments(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let deployments: HashSet<&str> = csv.deployments().iter().map(|d| d.name).collect();
    let mut missing = csv.webhooks();
    missing.retain(|w| !deployments.contains(w.deployment));
    missing.sort_by(|a, b| (a.deployment, a.ty, a.name).cmp(&(b.deployment, b.ty, b.name)));
    for w in missing {
        v.push(Violation {
            message: format!(
                "webhook of type '{}' with name '{}' references non-existent deployment '{}'",
                w.ty, w.name, w.deployment
            ),
            file: csv.file,
            span: w.node.get("deploymentName").unwrap_or(w.node).span,
            help: "A webhook's deploymentName must name an entry of spec.install.spec.deployments: OLM v1 serves the webhook from that Deployment (through a Service it creates for it).",
            generator: false,
        });
    }
}

/// V8 `CheckWebhookNameUniqueness`.
fn webhook_name_uniqueness(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut seen = HashSet::new();
    let mut dups: BTreeMap<(&str, &str), Span> = BTreeMap::new();
    for w in csv.webhooks() {
        if !seen.insert((w.ty, w.name)) {
            dups.entry((w.ty, w.name)).or_insert(w.name_span());
        }
    }
    for ((ty, name), span) in dups {
        v.push(Violation {
            message: format!("duplicate webhook '{name}' of type '{ty}'"),
            file: csv.file,
            span,
            help: "Two webhook definitions of one type have this generateName, and OLM v1 names the webhook configuration after it. Give each its own name (webhooks of different types may share one).",
            generator: false,
        });
    }
}

/// V9 `CheckWebhookNameIsDNS1123SubDomain`.
fn webhook_names(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut bad: BTreeMap<(&str, &str), (String, Span)> = BTreeMap::new();
    for w in csv.webhooks() {
        if let Some(errs) = subdomain_errors_joined(w.name, ",") {
            bad.entry((w.ty, w.name)).or_insert((errs, w.name_span()));
        }
    }
    for ((ty, name), (errs, span)) in bad {
        v.push(Violation {
            message: format!("webhook of type '{ty}' has invalid name '{name}': {errs}"),
            file: csv.file,
            span,
            help: "OLM v1 names the webhook configuration after generateName, so it must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit. Unlike OLM v0 it refuses a trailing '-' here (it would trim it only later).",
            generator: false,
        });
    }
}

/// V10 `CheckConversionWebhookCRDReferenceUniqueness`.
fn conversion_crd_uniqueness(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut by_crd: BTreeMap<&str, (Vec<&str>, Option<Span>)> = BTreeMap::new();
    for w in csv.webhooks().iter().filter(|w| w.ty == CONVERSION) {
        for (crd, node) in w.conversion_crds() {
            let e = by_crd.entry(crd).or_default();
            e.0.push(w.name);
            if e.0.len() == 2 {
                e.1 = Some(node.span);
            }
        }
    }
    for (crd, (mut names, span)) in by_crd {
        let Some(span) = span else { continue };
        names.sort_unstable();
        v.push(Violation {
            message: format!(
                "conversion webhooks [{}] reference same custom resource definition '{crd}'",
                names.join(",")
            ),
            file: csv.file,
            span,
            help: "A CRD has one conversion webhook: list it in the conversionCRDs of one webhook definition only.",
            generator: false,
        });
    }
}

/// V11 `CheckConversionWebhooksReferenceOwnedCRDs`.
fn conversion_crds_owned(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    let mut conversion: Vec<_> = csv
        .webhooks()
        .into_iter()
        .filter(|w| w.ty == CONVERSION)
        .collect();
    if conversion.is_empty() {
        return;
    }
    let owned: HashSet<&str> = csv.owned_crds().into_iter().map(|(n, _)| n).collect();
    conversion.sort_by(|a, b| a.name.cmp(b.name));
    for w in conversion {
        let mut crds = w.conversion_crds();
        crds.sort_by(|a, b| a.0.cmp(b.0));
        for (crd, node) in crds.into_iter().filter(|(c, _)| !owned.contains(c)) {
            v.push(Violation {
                message: format!("conversion webhook '{}' references custom resource definition '{crd}' not owned bundle", w.name),
                file: csv.file,
                span: node.span,
                help: "A conversion webhook may convert only CRDs the CSV owns (listed in spec.customresourcedefinitions.owned).",
                generator: false,
            });
        }
    }
}

/// The API groups and, for `admissionregistration.k8s.io`, the resources no webhook rule may
/// name in OLM v1 (`forbiddenWebhookRuleAPIGroups`, `forbiddenAdmissionRegistrationResources`).
const FORBIDDEN_GROUPS: [&str; 2] = ["olm.operatorframework.io", "*"];
const FORBIDDEN_RESOURCES: [&str; 5] = [
    "*",
    "mutatingwebhookconfiguration",
    "mutatingwebhookconfigurations",
    "validatingwebhookconfiguration",
    "validatingwebhookconfigurations",
];

/// V12 `CheckWebhookRules`.
fn webhook_rules(csv: &Csv<'_>, v: &mut Vec<Violation>) {
    const HELP: &str = "OLM v1, like OLM v0, forbids admission webhook rules on every API group, on OLM's own API group and on webhook configurations themselves, so that a faulty webhook cannot lock out the cluster, OLM, or its own removal. Narrow the rule to the API groups and resources the operator handles.";
    for w in csv.webhooks().iter().filter(|w| w.ty != CONVERSION) {
        let name = olmlint_semantics::version::go_quote(w.name);
        for rule in super::csv::seq_of(Some(w.node), "rules") {
            for (group, gnode) in super::csv::strings_of(rule, "apiGroups") {
                if FORBIDDEN_GROUPS.contains(&group) {
                    v.push(Violation {
                        message: format!("webhook {name} contains forbidden rule: admission webhook rules cannot reference API group {}", olmlint_semantics::version::go_quote(group)),
                        file: csv.file,
                        span: gnode.span,
                        help: HELP,
                        generator: false,
                    });
                }
                if group != "admissionregistration.k8s.io" {
                    continue;
                }
                for (resource, rnode) in super::csv::strings_of(rule, "resources") {
                    if FORBIDDEN_RESOURCES.contains(&resource.to_lowercase().as_str()) {
                        v.push(Violation {
                            message: format!("webhook {name} contains forbidden rule: admission webhook rules cannot reference resource {} for API group {}", olmlint_semantics::version::go_quote(resource), olmlint_semantics::version::go_quote(group)),
                            file: csv.file,
                            span: rnode.span,
                            help: HELP,
                            generator: false,
                        });
                    }
                }
            }
        }
    }
}

/// V13 `CheckObjectSupport`.
fn object_support(rv1: &Rv1<'_>, v: &mut Vec<Violation>) {
    for o in rv1.others.iter().filter(|o| !supported_kind(o.kind())) {
        v.push(Violation {
            message: format!(
                "unsupported resource {} with kind {}",
                olmlint_semantics::version::go_quote(o.name()),
                olmlint_semantics::version::go_quote(o.kind())
            ),
            file: o.file,
            span: o.kind_span(),
            help: "Besides the CSV and CRDs, OLM v1 installs only the kinds operator-registry supports in a registry+v1 bundle (matched by kind): Secret, ConfigMap, Service, ServiceAccount, Role, RoleBinding, ClusterRole, ClusterRoleBinding, PrometheusRule, ServiceMonitor, PodMonitor, PodDisruptionBudget, PriorityClass, VerticalPodAutoscaler, NetworkPolicy and the console kinds (ConsoleYAMLSample, ConsoleQuickStart, ConsoleCLIDownload, ConsoleLink, ConsolePlugin). Let the operator create this object, or drop it. (OLM v1 releases before v1.9 fail the same way while rendering: `bundle contains unsupported resource: Name: …, Kind: …`.)",
            generator: false,
        });
    }
}

/// `BundleCRDGenerator`: the first CRD behind a conversion webhook that keeps unknown fields.
/// The generators run only when the validator passed (`validated`): after the violations
/// above are fixed.
fn preserve_unknown_fields(rv1: &Rv1<'_>, csv: &Csv<'_>, validated: bool, v: &mut Vec<Violation>) {
    let converted: HashSet<&str> = csv
        .webhooks()
        .iter()
        .filter(|w| w.ty == CONVERSION)
        .flat_map(|w| w.conversion_crds())
        .map(|(c, _)| c)
        .collect();
    let first = rv1.crds.iter().find_map(|c| {
        let p = c.node.get("spec")?.get("preserveUnknownFields")?;
        (converted.contains(c.name()) && p.value == Value::Bool(true)).then_some((c, p))
    });
    let Some((c, p)) = first else { return };
    v.push(Violation {
        message: format!("custom resource definition '{}' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion", c.name()),
        file: c.file,
        span: p.span,
        help: if validated {
            "OLM v1 points this CRD's conversion at the bundle's conversion webhook, and the API server calls a conversion webhook only for a CRD that prunes unknown fields. Set spec.preserveUnknownFields to false (or remove it). OLM v1 raises this while rendering the bundle and stops at the first such CRD."
        } else {
            "OLM v1 points this CRD's conversion at the bundle's conversion webhook, and the API server calls a conversion webhook only for a CRD that prunes unknown fields. Set spec.preserveUnknownFields to false (or remove it). OLM v1 raises this while rendering the bundle, which it does only once the validator's violations are fixed, and stops at the first such CRD."
        },
        generator: true,
    });
}
