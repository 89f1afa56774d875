//! What a catalog cannot show OLM750: under a profile with no certificate provider (OpenShift
//! 4.20 and earlier), OLM v1 refuses every bundle with webhooks (`unsupported bundle:
//! webhookDefinitions are not supported`), but `olm.csv.metadata` (what catalogs for OpenShift
//! 4.17 and later carry instead of `olm.bundle.object`) holds no webhook definitions. One
//! note per catalog says how many bundles went unchecked, so "no finding" is not read as
//! "accepted".

use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_semantics::olmv1::Profile;

pub fn check(ctx: &Ctx<'_>, profile: &Profile, out: &mut Vec<Diagnostic>) {
    if profile.gates.certificate_provider().is_some() || !ctx.config.is_enabled("OLM750") {
        return;
    }
    let mut unseen = ctx.catalog.bundles.iter().filter(|b| {
        !b.from_directory
            && b.properties_of("olm.bundle.object").next().is_none()
            && b.properties_of("olm.csv.metadata").next().is_some()
    });
    let Some(first) = unseen.next() else { return };
    let n = 1 + unseen.count();
    let Some(p) = first.properties_of("olm.csv.metadata").next() else {
        return;
    };
    out.push(
        Diagnostic::new(
            "OLM750",
            format!(
                "OLM v1 ({profile}) refuses bundles with webhooks (\"unsupported bundle: webhookDefinitions are not supported\"), but {n} bundle{} of this catalog carr{} only olm.csv.metadata, which holds no webhook definitions: {} not checked for webhooks",
                if n == 1 { "" } else { "s" },
                if n == 1 { "ies" } else { "y" },
                if n == 1 { "it is" } else { "they are" },
            ),
        )
        .severity(Severity::Info)
        .at(p.file, p.span())
        .pointer(p.pointer.clone())
        .package(Some(first.package()))
        .bundle(Some(first.name()))
        .help("Lint the bundles' directories (or their images' manifests) with the same --target to see their webhooks; OpenShift 4.21 and later sign webhook certificates with the service CA, so there OLM v1 accepts them."),
    );
}
