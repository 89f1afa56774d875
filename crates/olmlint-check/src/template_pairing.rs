//! Which linted catalogs a template outside the pipelines layout is rendered into (issue #45):
//! in an operator team's own repository no `ci.yaml` maps templates to catalogs, so a template
//! is paired with the catalogs whose bundles carry its images (same package, same image
//! reference, digest included) — beside it (`v4.20/catalog-template.yaml` and
//! `v4.20/catalog/`), or anywhere in the repository (one template at the root rendered into a
//! catalog per OpenShift release).
//!
//! A single catalog below the template's directory is *its* rendering: compared with what it
//! renders today (OLM906). Several catalogs (one per release) only resolve its images (what
//! each bundle holds), since a per-release catalog may hold a subset of the template's bundles
//! on purpose.

use olmlint_load::{LoadedFile, Role};
use olmlint_model::template::{self, Body, Template};
use olmlint_model::Catalog;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The rendered catalogs of a template: `(display name, file)` of each rendered file.
pub struct Paired {
    /// Below the template's directory: its own rendering (lookup and drift).
    pub own: Vec<(String, usize)>,
    /// Elsewhere: lookup only.
    pub elsewhere: Vec<(String, usize)>,
    /// The file whose catalog the template's dependencies resolve in: the own rendering,
    /// else the catalog of the newest OpenShift release among the others.
    pub newest: Option<usize>,
}

/// The images of a template's bundles.
fn images<'a>(t: &Template<'a>) -> BTreeSet<&'a str> {
    match &t.body {
        Body::Basic(b) => b.bundles.iter().map(|r| r.image.value).collect(),
        Body::Semver(s) => s.bundles.iter().map(|(_, r)| r.image.value).collect(),
    }
}

/// The linted catalog files holding at least one of the template's images, paired as above.
pub fn pair(
    files: &[LoadedFile],
    catalogs: &HashMap<usize, &Catalog<'_>>,
    linted: usize,
    t: &Template<'_>,
    template_path: &Path,
) -> Paired {
    let wanted = images(t);
    let dir = template_path.parent().unwrap_or(Path::new(""));
    // The files holding a bundle with one of its images: one pass over each catalog's
    // bundles (not one per file).
    let mut holding: BTreeSet<usize> = BTreeSet::new();
    if !wanted.is_empty() {
        for cat in catalogs.values() {
            holding.extend(
                cat.bundles
                    .iter()
                    .filter(|b| b.image.is_some_and(|i| wanted.contains(i.value)))
                    .map(|b| b.doc.file),
            );
        }
    }
    let own: Vec<(String, usize, usize, bool)> = holding
        .into_iter()
        .filter_map(|ri| {
            let f = files.get(ri)?;
            if f.role != Role::Fbc || f.scope >= linted || template::is_template_file(f) {
                return None;
            }
            let below = olmlint_load::io::lexical(Path::new(""), &f.source.path).starts_with(dir);
            Some((f.source.display.clone(), ri, f.scope, below))
        })
        .collect();
    // Its own rendering: one catalog, below the template's directory. A template rendered
    // into several catalogs (one per release, each maybe a subset) only resolves images.
    let scopes: BTreeSet<usize> = own.iter().map(|(_, _, s, _)| *s).collect();
    let single = scopes.len() == 1 && own.iter().all(|(_, _, _, below)| *below);
    let (own, elsewhere): (Vec<_>, Vec<_>) = own.into_iter().partition(|_| single);
    let strip = |v: Vec<(String, usize, usize, bool)>| -> Vec<(String, usize)> {
        v.into_iter().map(|(name, ri, _, _)| (name, ri)).collect()
    };
    let (own, elsewhere) = (strip(own), strip(elsewhere));
    let newest = own.last().map(|(_, ri)| *ri).or_else(|| {
        elsewhere
            .iter()
            .max_by_key(|(name, _)| {
                Path::new(name)
                    .components()
                    .filter_map(|c| c.as_os_str().to_str())
                    .find_map(olmlint_load::discover::release_of)
            })
            .map(|(_, ri)| *ri)
    });
    Paired {
        own,
        elsewhere,
        newest,
    }
}
