//! Bundle acceptance (OLM750–OLM754, spec §1, §8): whether operator-controller accepts,
//! renders and applies a registry+v1 bundle, read from a bundle directory, or from what a
//! catalog's bundle holds (`olm.bundle.object` manifests, else the `olm.csv.metadata`
//! install modes and owned API services).
//!
//! - [`gating`]: OLM750, the provider's gating checks, by profile;
//! - [`validator`]: OLM751, the bundle validator and the generators' errors;
//! - [`layout`]: OLM752, what the bundle reader refuses in a bundle directory;
//! - [`apply_time`]: OLM753, what the API server will refuse;
//! - [`coupling`]: OLM754, reliance on OLM v0's APIs.

mod apply_time;
mod bundle;
mod coupling;
mod csv;
pub(super) mod dns;
mod gating;
mod layout;
mod validator;

use crate::Ctx;
use bundle::{DirFiles, Rv1};
use olmlint_base::diag::Diagnostic;
use olmlint_semantics::olmv1::Profile;
use rayon::prelude::*;
use std::path::Path;

/// The rules of this module.
pub const RULES: [&str; 5] = ["OLM750", "OLM751", "OLM752", "OLM753", "OLM754"];

pub fn check(ctx: &Ctx<'_>, profile: &Profile, out: &mut Vec<Diagnostic>) {
    if !RULES.iter().any(|r| ctx.config.is_enabled(r)) {
        return;
    }
    let by_root = olmlint_load::bundle_directories(ctx.files, ctx.scope);
    // Bundles are independent: checked in parallel (a catalog's `olm.bundle.object`
    // manifests are decoded), their findings kept in order.
    let dirs: Vec<(&Path, Vec<usize>)> = by_root.into_iter().collect();
    let found: Vec<Vec<Diagnostic>> = dirs
        .into_par_iter()
        .map(|(root, members)| {
            let mut found = Vec::new();
            bundle_dir(
                ctx,
                profile,
                &DirFiles::new(ctx.files, root, members),
                &mut found,
            );
            found
        })
        .collect();
    out.extend(found.into_iter().flatten());
    let found: Vec<Vec<Diagnostic>> = ctx
        .catalog
        .bundles
        .par_iter()
        .filter(|b| !b.from_directory)
        .map(|b| {
            let mut found = Vec::new();
            catalog_bundle(ctx, profile, b, &mut found);
            found
        })
        .collect();
    out.extend(found.into_iter().flatten());
}

fn bundle_dir(ctx: &Ctx<'_>, profile: &Profile, dir: &DirFiles<'_>, out: &mut Vec<Diagnostic>) {
    let on = |rule: &str| ctx.config.is_enabled(rule);
    let rv1 = dir.rv1(ctx.files);
    let csv = rv1.csv();
    let who = (
        rv1.package.filter(|p| !p.is_empty()),
        csv.map(|c| c.name()).filter(|n| !n.is_empty()),
    );
    if on("OLM752") {
        layout::check(ctx, dir, &rv1, who, out);
    }
    // A file that does not parse (OLM001) hides part of the bundle; no CSV is OLM104.
    let Some(csv) = csv.filter(|_| dir.readable(ctx.files)) else {
        return;
    };
    if on("OLM750") {
        let subject = gating::Subject {
            file: csv.file,
            anchor: csv.anchor(),
            install_modes: csv.install_modes(),
            api_owned: csv.owned_api_services(),
            webhooks: Some(csv.webhook_list()),
            package: who.0,
            bundle: who.1,
            resolved: None,
        };
        gating::check(&subject, profile, out);
    }
    if on("OLM751") {
        let scope = validator::Scope {
            package_name: dir.annotations.is_some(),
            objects: true,
        };
        validator::check(&rv1, &scope, who, out);
    }
    if on("OLM753") {
        apply_time::check(&rv1, true, who, out);
    }
    if on("OLM754") {
        coupling::check(&csv, who, out);
    }
}

/// A catalog's bundle: its `olm.bundle.object` manifests when it has a CSV among them, else
/// its `olm.csv.metadata` (install modes and owned API services only; webhooks are not
/// there, so nothing is said about them).
fn catalog_bundle(
    ctx: &Ctx<'_>,
    profile: &Profile,
    b: &olmlint_model::Bundle<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let on = |rule: &str| ctx.config.is_enabled(rule);
    let who = (Some(b.package()), Some(b.name()));
    let version = b.version().map_or("", |v| v.value);
    let objects = bundle::bundle_objects(b);
    let mut rv1 = Rv1::default();
    for (fi, node) in &objects {
        rv1.push_document(*fi, node);
    }
    if let Some(csv) = rv1.csv() {
        if on("OLM750") {
            let subject = gating::Subject {
                file: csv.file,
                anchor: csv.anchor(),
                install_modes: csv.install_modes(),
                api_owned: csv.owned_api_services(),
                webhooks: Some(csv.webhook_list()),
                package: who.0,
                bundle: who.1,
                resolved: Some((b.name(), version)),
            };
            gating::check(&subject, profile, out);
        }
        if on("OLM751") {
            let scope = validator::Scope {
                package_name: false,
                objects: rv1.crds.len() + rv1.others.len() > 0,
            };
            validator::check(&rv1, &scope, who, out);
        }
        if on("OLM753") {
            apply_time::check(&rv1, false, who, out);
        }
        if on("OLM754") {
            coupling::check(&csv, who, out);
        }
        return;
    }
    let Some(p) = b.properties_of("olm.csv.metadata").next() else {
        return;
    };
    let Some(meta) = p.value.as_deref() else {
        return;
    };
    if on("OLM750") {
        let subject = gating::Subject {
            file: p.file,
            anchor: p.span(),
            install_modes: meta.get("installModes"),
            api_owned: meta
                .get("apiServiceDefinitions")
                .and_then(|a| a.get("owned"))
                .filter(|o| o.as_seq().is_some_and(|s| !s.is_empty())),
            webhooks: None,
            package: who.0,
            bundle: who.1,
            resolved: Some((b.name(), version)),
        };
        gating::check(&subject, profile, out);
    }
}
