//! OLM755 olmv1-invalid-name: channel and bundle names OLM v1's API cannot hold. A
//! ClusterExtension's `spec.source.catalog.channels` entries and its
//! `status.install.bundle.name` are validated as DNS-1123 subdomains by CEL rules of the CRD
//! (operator-controller `api/v1/clusterextension_types.go`). Package names need no check
//! here: OLM101 already requires a DNS-1123 label, which is stricter.

use super::acceptance::dns::dns1123_subdomain as dns1123_subdomain_errors;
use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for ch in &ctx.catalog.channels {
        let Some(name) = &ch.name else { continue };
        let errs = dns1123_subdomain_errors(name.value);
        if errs.is_empty() {
            continue;
        }
        out.push(
            Diagnostic::new(
                "OLM755",
                format!(
                    "channel name {:?} is not a DNS-1123 subdomain ({}): a ClusterExtension cannot name it in spec.source.catalog.channels (\"channels entries must be valid DNS1123 subdomains\")",
                    name.value,
                    errs.join(", ")
                ),
            )
            .severity(Severity::Warning)
            .at(ch.doc.file, name.node.span)
            .pointer("/name")
            .package(ch.package.as_ref().map(|p| p.value))
            .help("OLM v1 users can still install from this channel without naming it (no channel filter picks the package's highest version from any channel), but cannot pin it. Rename the channel with lowercase letters, digits, '-' and '.' (keep the old one until its users moved, since OLM v0 subscriptions name it)."),
        );
    }
    for b in &ctx.catalog.bundles {
        let Some(name) = &b.name else { continue };
        let errs = dns1123_subdomain_errors(name.value);
        if errs.is_empty() {
            continue;
        }
        out.push(
            Diagnostic::new(
                "OLM755",
                format!(
                    "bundle name {:?} is not a DNS-1123 subdomain ({}): OLM v1 installs it, but the API server then rejects the ClusterExtension's status.install.bundle.name (\"… must be a valid DNS1123 subdomain …\")",
                    name.value,
                    errs.join(", ")
                ),
            )
            .at(b.doc.file, name.node.span)
            .pointer(if b.from_directory { "/metadata/name" } else { "/name" })
            .package(Some(b.package()))
            .bundle(Some(name.value))
            .help("Without a status, the ClusterExtension never reports the bundle as installed and every reconcile fails again. Name bundles `<package>.v<version>` in lowercase (letters, digits, '-' and '.')."),
        );
    }
}
