//! Ecosystem foot-guns (OLM71x): OLM710 max-openshift-version (in its own module),
//! OLM712 bundle-object-in-new-catalog, OLM713
//! properties-annotation (in its own module); and OLM720 cluster-constraint, the opt-in
//! policy check against a target cluster (in its own module).

mod cluster_constraint;
mod max_openshift_version;
mod properties_annotation;

use super::Ctx;
use olmlint_base::diag::Diagnostic;
use std::collections::HashMap;
use std::path::Path;

/// First OpenShift minor version whose catalogs use `olm.csv.metadata`.
const CSV_METADATA_FROM: (u32, u32) = (4, 17);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // The OpenShift version of each file, looked up once (it costs a canonicalize).
    let mut versions: HashMap<usize, Option<(u32, u32)>> = HashMap::new();
    for b in &ctx.catalog.bundles {
        bundle_object(ctx, b, &mut versions, out);
        max_openshift_version::check(ctx, b, out);
        properties_annotation::check(ctx, b, out);
    }
    cluster_constraint::check(ctx, out);
}

/// The OpenShift version a catalog file is for: the nearest `vMAJOR.MINOR` directory above it.
pub fn openshift_version(path: &Path) -> Option<(u32, u32)> {
    path.ancestors()
        .skip(1)
        .find_map(|dir| olmlint_load::walk::openshift_dir(dir.file_name()?.to_str()?))
}

/// OLM712: `olm.bundle.object` in a catalog for OpenShift 4.17 or later.
fn bundle_object(
    ctx: &Ctx<'_>,
    b: &olmlint_model::Bundle<'_>,
    versions: &mut HashMap<usize, Option<(u32, u32)>>,
    out: &mut Vec<Diagnostic>,
) {
    let objects: Vec<_> = b.properties_of("olm.bundle.object").collect();
    let Some(first) = objects.first() else {
        return;
    };
    let version = versions.entry(first.file).or_insert_with(|| {
        let path = &ctx.files.get(first.file)?.source.path;
        openshift_version(&std::fs::canonicalize(path).unwrap_or(path.clone()))
    });
    let Some((major, minor)) = *version else {
        return;
    };
    if (major, minor) < CSV_METADATA_FROM {
        return;
    }
    let n = objects.len();
    out.push(
        Diagnostic::new(
            "OLM712",
            format!(
                "{} embeds {n} manifest{} as olm.bundle.object in a catalog for OpenShift {major}.{minor} (directory v{major}.{minor}); catalogs for 4.17 and later use olm.csv.metadata",
                b.name(),
                if n == 1 { "" } else { "s" }
            ),
        )
        .at(first.file, first.span())
        .pointer(first.pointer.clone())
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help("Re-render with --migrate-level=bundle-object-to-csv-metadata (`opm alpha render-template basic TEMPLATE --migrate-level=…` or `opm render BUNDLE_IMAGE --migrate-level=…`). Red Hat's guidance renders v4.17+ catalogs with olm.csv.metadata (much smaller, less memory for `opm serve`); catalogs with olm.bundle.object still work, and OLM itself never reads it."),
    );
}

#[cfg(test)]
mod tests {
    use super::openshift_version;
    use std::path::Path;

    #[test]
    fn version_from_nearest_directory() {
        let v = |p: &str| openshift_version(Path::new(p));
        assert_eq!(v("catalogs/v4.17/foo/catalog.yaml"), Some((4, 17)));
        assert_eq!(v("v4.12/v4.18/foo/catalog.json"), Some((4, 18)));
        assert_eq!(v("catalogs/foo/catalog.yaml"), None);
        assert_eq!(v("v4.x/foo/catalog.yaml"), None);
        assert_eq!(v("v4.17.1/foo/catalog.yaml"), None);
        // the file name itself is not a directory
        assert_eq!(v("catalogs/v4.17"), None);
    }
}
