//! OLM750 olmv1-unsupported-bundle: the gating checks of `applier/provider.go`
//! `RegistryV1ManifestProvider.Get` (spec §1.2), in their order, the first failure winning as
//! it does upstream, under the profile's feature gates; and the note for the configuration a
//! bundle then needs (G5).

use super::csv::{go_list, modes, supported_types, Mode};
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::{Node, Span};
use olmlint_semantics::olmv1::Profile;

const ALL: &str = "AllNamespaces";
const SINGLE: &str = "SingleNamespace";
const OWN: &str = "OwnNamespace";

/// What the gating checks read of a bundle, wherever it comes from.
pub struct Subject<'a> {
    pub file: usize,
    /// Where a finding about something absent points.
    pub anchor: Span,
    pub install_modes: Option<&'a Node>,
    /// `apiservicedefinitions.owned` when it lists something.
    pub api_owned: Option<&'a Node>,
    /// The webhook definitions when they list something; `None` when the source cannot show
    /// them (`olm.csv.metadata` has no webhooks).
    pub webhooks: Option<Option<&'a Node>>,
    pub package: Option<&'a str>,
    pub bundle: Option<&'a str>,
    /// For a catalog's bundle: its name and version, as OLM v1 wraps the error.
    pub resolved: Option<(&'a str, &'a str)>,
}

impl Subject<'_> {
    fn finding(&self, message: String, span: Span, help: String) -> Diagnostic {
        let mut help = help;
        if let Some((name, version)) = self.resolved {
            help.push_str(&format!(" On a cluster, once resolution picks this bundle, the ClusterExtension reports `error for resolved bundle {name:?} with version {version:?}: {message}`."));
        }
        Diagnostic::new("OLM750", message)
            .at(self.file, span)
            .package(self.package)
            .bundle(self.bundle)
            .help(help)
    }
}

pub fn check(s: &Subject<'_>, profile: &Profile, out: &mut Vec<Diagnostic>) {
    let gates = &profile.gates;
    if let Some(owned) = s.api_owned {
        out.push(s.finding(
            "unsupported bundle: apiServiceDefintions are not supported".into(),
            owned.span,
            "OLM v1 installs no operator that owns an APIService (spec.apiservicedefinitions.owned), under any profile; OLM v0 does. Serve the API from a CustomResourceDefinition instead (a conversion webhook can translate its versions), or publish a variant of the bundle without the APIService for OLM v1. (\"Defintions\" is operator-controller's spelling.)".into(),
        ));
        return;
    }
    if let Some(Some(webhooks)) = s.webhooks {
        if gates.certificate_provider().is_none() {
            out.push(s.finding(
                "unsupported bundle: webhookDefinitions are not supported".into(),
                webhooks.span,
                format!("The {} profile has no certificate provider for webhooks (WebhookProviderCertManager and WebhookProviderOpenshiftServiceCA are off), so OLM v1 refuses every bundle with spec.webhookdefinitions. Upstream OLM v1 (cert-manager, on by default since v1.6) and OpenShift 4.21 and later (the service CA) accept them; OpenShift 4.20 had them as Technology Preview only. To install under this profile, ship without webhooks (validate in the operator's reconcile loop instead).", profile.name),
            ));
            return;
        }
    }
    let modes = modes(s.install_modes);
    let supports = |ty: &str| modes.iter().any(|m| m.ty == ty && m.supported);
    let any = supports(ALL) || supports(SINGLE) || supports(OWN);
    if !gates.single_own_namespace_install_support && !supports(ALL) {
        let at = modes
            .iter()
            .find(|m| m.ty == ALL)
            .map(|m| m.node.get("supported").unwrap_or(m.node).span)
            .or(s.install_modes.map(|n| n.span))
            .unwrap_or(s.anchor);
        out.push(s.finding(
            "unsupported bundle: bundle does not support AllNamespaces install mode".into(),
            at,
            all_namespaces_help(&modes, any),
        ));
        return;
    }
    if !any {
        out.push(s.finding(
            "unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes".into(),
            s.install_modes.map_or(s.anchor, |n| n.span),
            format!("OLM v1 installs an operator to watch all namespaces, its own namespace or one other namespace; this bundle supports none of them (supported: {}), so no OLM v1 installs it, whatever its feature gates (MultiNamespace is not supported). Declare `{{type: AllNamespaces, supported: true}}` in spec.installModes if the operator works cluster-wide.", go_list(&supported_types(&modes))),
        ));
        return;
    }
    if !supports(ALL) {
        // G5: accepted, but only with a watch namespace in the ClusterExtension.
        let at = s.install_modes.map_or(s.anchor, |n| n.span);
        out.push(
            s.finding(
                format!("OLM v1 ({}, SingleOwnNamespaceInstallSupport on) installs this bundle only when the ClusterExtension sets spec.config.inline.watchNamespace: the bundle does not support AllNamespaces install mode", profile.name),
                at,
                format!("Without it, OLM v1 fails with `invalid ClusterExtension configuration: invalid configuration: required field \"watchNamespace\" is missing` (a terminal error). {} spec.config is an experimental field of the ClusterExtension API. Declaring `{{type: AllNamespaces, supported: true}}` makes the bundle installable with no configuration, under every profile.", watch_namespace_rule(&modes)),
            )
            .severity(Severity::Info),
        );
    }
}

/// What `watchNamespace` must be for a bundle without AllNamespaces support
/// (`bundle.GetConfigSchema`: the `ownNamespaceInstallMode` and `singleNamespaceInstallMode`
/// formats).
fn watch_namespace_rule(modes: &[Mode<'_>]) -> &'static str {
    let supports = |ty: &str| modes.iter().any(|m| m.ty == ty && m.supported);
    match (supports(OWN), supports(SINGLE)) {
        (true, false) => "It supports OwnNamespace only, so watchNamespace must be the install namespace (spec.namespace).",
        (false, true) => "It supports SingleNamespace only, so watchNamespace must be a namespace other than the install namespace.",
        _ => "It supports OwnNamespace and SingleNamespace, so watchNamespace may be the install namespace or another one.",
    }
}

fn all_namespaces_help(modes: &[Mode<'_>], any: bool) -> String {
    let mut help = String::from("With the SingleOwnNamespaceInstallSupport feature gate off (the default upstream since v1.9 and on OpenShift), OLM v1 installs every operator to watch all namespaces, and requires `{type: AllNamespaces, supported: true}` in spec.installModes (that exact pair: `supported` must be the boolean true). If the operator works cluster-wide, declare that mode. ");
    if any {
        help.push_str(&format!("With the gate on (the upstream-experimental profile; Technology Preview on OpenShift; `--olmv1-feature-gates SingleOwnNamespaceInstallSupport=true`), this bundle is accepted, but only when the ClusterExtension sets spec.config.inline.watchNamespace: {} Without it OLM v1 fails with `invalid ClusterExtension configuration: invalid configuration: required field \"watchNamespace\" is missing`.", watch_namespace_rule(modes)));
    } else {
        help.push_str(&format!(
            "It supports none of AllNamespaces, SingleNamespace and OwnNamespace (supported: {}), so even with SingleOwnNamespaceInstallSupport on OLM v1 refuses it (\"bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes\").",
            go_list(&supported_types(modes))
        ));
    }
    help
}
