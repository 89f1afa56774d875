//! OLM753 olmv1-apply-time: what the API server will refuse when OLM v1 applies the rendered
//! bundle (its server-side dry-run, spec §1.5, §1.6, §8), predicted without a cluster:
//! manifests at API versions Kubernetes no longer serves, the webhook configurations and
//! Services OLM v1 generates, the Deployments it creates from the CSV, and the status it
//! writes after installing.

use super::bundle::Rv1;
use super::csv::{str_of, strings_of, Csv, CONVERSION, MUTATING, VALIDATING};
use super::dns::{dns1035_label, dns1123_subdomain};
use super::layout::Who;
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Node, Span, Value};

/// API versions of the kinds a bundle may ship that Kubernetes no longer serves: (apiVersion,
/// kind, removed in, the version to use). Every cluster OLM v1 runs on is newer.
const REMOVED: [(&str, &str, &str, &str); 10] = [
    (
        "apiextensions.k8s.io/v1beta1",
        "CustomResourceDefinition",
        "1.22",
        "apiextensions.k8s.io/v1 (with a structural schema for each version)",
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        "ClusterRole",
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        "ClusterRoleBinding",
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        "Role",
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        "RoleBinding",
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "scheduling.k8s.io/v1beta1",
        "PriorityClass",
        "1.22",
        "scheduling.k8s.io/v1",
    ),
    (
        "scheduling.k8s.io/v1alpha1",
        "PriorityClass",
        "1.22",
        "scheduling.k8s.io/v1",
    ),
    ("policy/v1beta1", "PodDisruptionBudget", "1.25", "policy/v1"),
    (
        "extensions/v1beta1",
        "NetworkPolicy",
        "1.16",
        "networking.k8s.io/v1",
    ),
    (
        "monitoring.coreos.com/v1alpha1",
        "ServiceMonitor",
        "(never served)",
        "monitoring.coreos.com/v1",
    ),
];

pub fn check(rv1: &Rv1<'_>, bundle_name: bool, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    removed_api_versions(rv1, who, out);
    let Some(csv) = rv1.csv() else { return };
    webhooks(&csv, rv1, who, out);
    services(&csv, who, out);
    deployments(&csv, who, out);
    if bundle_name {
        status_bundle_name(&csv, who, out);
    }
}

fn finding(message: String, file: usize, span: Span, who: Who<'_>, help: String) -> Diagnostic {
    Diagnostic::new("OLM753", message)
        .at(file, span)
        .package(who.0)
        .bundle(who.1)
        .help(help)
}

fn removed_api_versions(rv1: &Rv1<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    for o in rv1.crds.iter().chain(&rv1.others) {
        let Some(api) = o.api_version() else { continue };
        let version = api.as_str().unwrap_or("");
        let Some(&(_, kind, removed, instead)) = REMOVED
            .iter()
            .find(|(v, k, _, _)| *v == version && *k == o.kind())
        else {
            continue;
        };
        out.push(finding(
            format!("{kind} {:?} is {version}, which Kubernetes no longer serves (removed in {removed}): OLM v1's server-side dry-run fails with no matches for kind {kind:?} in version {version:?}", o.name()),
            o.file,
            api.span,
            who,
            format!("OLM v1 applies every manifest at the apiVersion it is written in (a v1beta1 CRD is even read into the v1 type, dropping its v1beta1-only fields, and still sent as v1beta1); every cluster OLM v1 runs on is newer than {removed}. Write the manifest as {instead}."),
        ));
    }
}

/// The API server's `IsFullyQualifiedName`, `sideEffects`, `admissionReviewVersions` and
/// `timeoutSeconds` checks on the webhook configurations OLM v1 generates (one webhook each,
/// `webhooks[0]`, named after `generateName` minus a trailing `-`), and the
/// `conversionReviewVersions` check on the CRDs a conversion webhook is set on.
fn webhooks(csv: &Csv<'_>, rv1: &Rv1<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    for w in csv.webhooks() {
        let name = w.name.strip_suffix('-').unwrap_or(w.name);
        if !dns1123_subdomain(w.name).is_empty() {
            continue; // OLM751 (V9)
        }
        let versions: Vec<&str> = strings_of(w.node, "admissionReviewVersions")
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        if w.ty == CONVERSION {
            let crd = w
                .conversion_crds()
                .into_iter()
                .map(|(c, _)| c)
                .find(|c| rv1.crds.iter().any(|o| o.name() == *c));
            if let (true, Some(crd)) = (versions.is_empty(), crd) {
                out.push(finding(
                    format!("CustomResourceDefinition.apiextensions.k8s.io {crd:?} is invalid: spec.conversion.webhook.conversionReviewVersions: Required value"),
                    csv.file,
                    w.node.get("admissionReviewVersions").unwrap_or(w.node).span,
                    who,
                    "OLM v1 copies a conversion webhook's admissionReviewVersions into the CRD's spec.conversion.webhook.conversionReviewVersions, which the API server requires. List the ConversionReview versions the webhook understands (`admissionReviewVersions: [v1]`).".into(),
                ));
            }
            continue;
        }
        if w.ty != VALIDATING && w.ty != MUTATING {
            continue;
        }
        let object =
            format!(
            "{}WebhookConfiguration.admissionregistration.k8s.io {name:?} is invalid: webhooks[0].",
            if w.ty == VALIDATING { "Validating" } else { "Mutating" }
        );
        for (field, problem, at) in webhook_problems(w.node, name, &versions) {
            out.push(finding(
                format!("{object}{field}: {problem}"),
                csv.file,
                at,
                who,
                format!("OLM v1 creates a {}WebhookConfiguration from this definition; the API server refuses it, so OLM v1's server-side dry-run fails (`failed to get release state using server-side dry-run: …`) and nothing is installed. OLM v0 does not validate these fields ahead either. {}", if w.ty == VALIDATING { "Validating" } else { "Mutating" }, webhook_fix(field)),
            ));
        }
    }
}

fn webhook_fix(field: &str) -> &'static str {
    match field {
        "name" => "Name the webhook like a domain with at least three dot-separated parts (`vwidget.example.com`).",
        "sideEffects" => "Set `sideEffects: None` (or `NoneOnDryRun`): admissionregistration.k8s.io/v1 accepts only these.",
        "admissionReviewVersions" => "List the AdmissionReview versions the webhook understands: `admissionReviewVersions: [v1]`.",
        _ => "Set `timeoutSeconds` between 1 and 30.",
    }
}

/// (field, the API server's message, where) for one admission webhook definition.
fn webhook_problems(wh: &Node, name: &str, versions: &[&str]) -> Vec<(&'static str, String, Span)> {
    let mut found = Vec::new();
    let at = |key: &str| wh.get(key).unwrap_or(wh).span;
    if name.split('.').count() < 3 {
        found.push((
            "name",
            format!("Invalid value: {name:?}: should be a domain with at least three segments separated by dots"),
            at("generateName"),
        ));
    }
    match wh.get("sideEffects").map(|s| &s.value) {
        None | Some(Value::Null) => found.push((
            "sideEffects",
            "Required value: must specify one of None, NoneOnDryRun".into(),
            wh.span,
        )),
        Some(_) => {
            let s = str_of(wh, "sideEffects");
            if s != "None" && s != "NoneOnDryRun" {
                found.push((
                    "sideEffects",
                    format!(
                        "Unsupported value: {s:?}: supported values: \"None\", \"NoneOnDryRun\""
                    ),
                    at("sideEffects"),
                ));
            }
        }
    }
    if versions.is_empty() {
        found.push((
            "admissionReviewVersions",
            "Required value: must specify one of v1, v1beta1".into(),
            at("admissionReviewVersions"),
        ));
    } else if !versions.iter().any(|v| *v == "v1" || *v == "v1beta1") {
        let listed: Vec<String> = versions.iter().map(|v| format!("{v:?}")).collect();
        found.push((
            "admissionReviewVersions",
            format!(
                "Invalid value: []string{{{}}}: must include at least one of v1, v1beta1",
                listed.join(", ")
            ),
            at("admissionReviewVersions"),
        ));
    }
    if let Some(Value::Number { value, .. }) = wh.get("timeoutSeconds").map(|t| &t.value) {
        if !(1.0..=30.0).contains(value) {
            found.push((
                "timeoutSeconds",
                format!(
                    "Invalid value: {value}: the timeout value must be between 1 and 30 seconds"
                ),
                at("timeoutSeconds"),
            ));
        }
    }
    found
}

/// `util.ObjectNameForBaseAndSuffix`.
fn name_for(base: &str, suffix: &str) -> String {
    let mut base = base;
    if base.len() + suffix.len() > 63 {
        base = base.get(..63 - suffix.len() - 1).unwrap_or(base);
    }
    format!("{base}-{suffix}")
}

/// The Service OLM v1 creates for each deployment serving a webhook
/// (`render.CertProvisionerFor`: the deployment name with `.` → `-`, then `-service`) must
/// be a DNS-1035 label.
fn services(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    let webhooks = csv.webhooks();
    for d in csv.deployments() {
        if !webhooks.iter().any(|w| w.deployment == d.name) || !dns1123_subdomain(d.name).is_empty()
        {
            continue;
        }
        let service = name_for(&d.name.replace('.', "-"), "service");
        let Some(problem) = dns1035_label(&service).into_iter().next() else {
            continue;
        };
        out.push(finding(
            format!("Service {service:?} is invalid: metadata.name: Invalid value: {service:?}: {problem}"),
            csv.file,
            d.name_span(),
            who,
            "OLM v1 creates a Service named after each deployment that serves a webhook (dots become dashes, then `-service`), and a Service name must start with a letter. Rename the deployment (and its webhooks' deploymentName) to start with a letter.".into(),
        ));
    }
}

/// A Deployment without `spec.selector` (`apps/v1` requires one).
fn deployments(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    for d in csv.deployments() {
        if !dns1123_subdomain(d.name).is_empty() {
            continue; // OLM751 (V2)
        }
        let selector = d.node.get("spec").and_then(|s| s.get("selector"));
        if selector.is_some_and(|s| !s.is_null()) {
            continue;
        }
        out.push(finding(
            format!("Deployment.apps {:?} is invalid: spec.selector: Required value", d.name),
            csv.file,
            d.name_span(),
            who,
            "OLM v1 creates an apps/v1 Deployment from each spec.install.spec.deployments entry, and apps/v1 requires spec.selector (matching the pod template's labels). Add `selector: {matchLabels: …}` to the deployment's spec.".into(),
        ));
    }
}

/// The ClusterExtension's `status.install.bundle.name` (the bundle name, which `opm render`
/// takes from the CSV) must match a DNS-1123 subdomain (a CEL rule on the status).
fn status_bundle_name(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    let name = csv.name();
    let Some(node) = csv.node.get("metadata").and_then(|m| m.get("name")) else {
        return;
    };
    if name.is_empty() || name.split('.').all(|l| dns1123_subdomain(l).is_empty()) {
        return;
    }
    out.push(finding(
        "status.install.bundle.name: Invalid value: \"string\": packageName must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters".into(),
        csv.file,
        node.span,
        who,
        format!("opm names the catalog's bundle after its CSV ({name:?}). OLM v1 installs it, then cannot record it: the ClusterExtension API requires status.install.bundle.name to be a DNS-1123 subdomain (the message says \"packageName\", upstream's wording), so the status update is refused and the extension never reports the installed bundle. The RBAC objects OLM v1 names after the CSV fail too. Use a lowercase CSV name (`<package>.v<version>`)."),
    ));
}
