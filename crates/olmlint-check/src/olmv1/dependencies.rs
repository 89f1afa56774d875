//! OLM711 olm-v1-incompatible: OLM v1 refuses a bundle with a dependency property
//! (`resolve/validation.go` `NoDependencyValidation`, run on the chosen bundle only). An
//! error where OLM v1 picks the bundle by default (there is no fallback to another
//! candidate: every unpinned ClusterExtension of the package fails), a warning elsewhere
//! (only a ClusterExtension pinning that version meets it).

use super::picks::Packages;
use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};

use olmlint_model::olmv1::REFUSED_DEPENDENCIES as REFUSED;

pub fn check(ctx: &Ctx<'_>, packages: &Packages<'_, '_>, out: &mut Vec<Diagnostic>) {
    for (i, b) in ctx.catalog.bundles.iter().enumerate() {
        let Some(p) = olmlint_model::olmv1::refused_dependency(b) else {
            continue;
        };
        let others = b
            .properties
            .iter()
            .filter(|q| REFUSED.contains(&q.ty()))
            .count()
            - 1;
        let more = match others {
            0 => String::new(),
            n => format!(
                " (and {n} more dependency propert{})",
                if n == 1 { "y" } else { "ies" }
            ),
        };
        let facts = packages.get(b.package());
        let pick = facts.and_then(|f| Some((f, f.pick_of(i, b.name())?)));
        let (severity, when) = match pick {
            Some((f, why)) => (
                Severity::Error,
                format!("; OLM v1 picks this bundle by default: {}", f.explain(why)),
            ),
            None => (
                Severity::Warning,
                "; OLM v1 meets this only when a ClusterExtension pins this version".to_string(),
            ),
        };
        out.push(
            Diagnostic::new(
                "OLM711",
                format!(
                    "OLM v1 refuses this bundle: bundle {:?} has a dependency declared via property {:?} which is currently not supported{more}{when}",
                    b.name(),
                    p.ty()
                ),
            )
            .severity(severity)
            .at(p.file, p.span())
            .pointer(p.pointer.clone())
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help("OLM v1 (operator-controller) resolves no dependencies and refuses the bundle it selected when it declares one, without trying another; OLM v0 installs it. A CSV's required CRDs and API services count (`opm render` makes them olm.gvk.required). To support OLM v1, drop the dependency and document that the required operator must be installed first."),
        );
    }
}
