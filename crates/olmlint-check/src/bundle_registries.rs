//! OLM809 bundle-registry: in an operator repository whose `config.yaml` lists
//! `allowed_bundle_registries`, every `olm.bundle` image of its rendered catalogs
//! (`catalogs/vX.Y/…`) starts with one of them (operator-pipelines'
//! check_bundle_images_in_fbc: a plain string prefix, as written). The pipelines release
//! bundles to those registries; an image elsewhere (a personal quay.io repository, a
//! staging registry) is one the production catalog must not point to. The pipelines check the
//! catalogs a pull request changes: an error in a change-scoped run, a warning in a whole one
//! (merged catalogs were accepted when they changed).

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Location, Severity};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(repo) = ctx.repository else { return };
    if repo.allowed_bundle_registries.is_empty() {
        return;
    }
    let Some(catalogs) = ctx
        .files
        .get(repo.file)
        .and_then(|f| f.source.path.parent())
        .map(|r| olmlint_load::io::absolute(&r.join("catalogs")))
    else {
        return;
    };
    let allowed: Vec<&str> = repo
        .allowed_bundle_registries
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    // Whether a file is a rendered catalog of the repository, once per file.
    let mut rendered: std::collections::HashMap<usize, bool> = std::collections::HashMap::new();
    for b in &ctx.catalog.bundles {
        if b.from_directory {
            continue;
        }
        let Some(image) = b.image.filter(|i| !i.value.is_empty()) else {
            continue;
        };
        if allowed.iter().any(|a| image.value.starts_with(a)) {
            continue;
        }
        let in_catalogs = *rendered.entry(b.doc.file).or_insert_with(|| {
            ctx.files
                .get(b.doc.file)
                .is_some_and(|f| olmlint_load::io::absolute(&f.source.path).starts_with(&catalogs))
        });
        if !in_catalogs {
            continue;
        }
        out.push(
            Diagnostic::new(
                "OLM809",
                format!(
                    "bundle image {} is not in a registry config.yaml allows ({}): the pipelines fail the pull request (check_bundle_images_in_fbc)",
                    image.value,
                    allowed.join(", ")
                ),
            )
            .at(b.doc.file, image.node.span)
            .pointer("/image")
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .related(
                "allowed_bundle_registries in config.yaml",
                repo.allowed_bundle_registries
                    .first()
                    .map(|(_, span)| Location { file: repo.file, span: *span }),
            )
            .severity(if ctx.changed.is_some() { Severity::Error } else { Severity::Warning })
            .help("The pipelines release each bundle image to the repository's registry and render catalogs from it: use the pull spec the bundle pull request's release comment gives (`make catalogs` with the released image), not a build or staging image."),
        );
    }
}
