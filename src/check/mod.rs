//! Stage 3: checks. One module per rule family; each reads the model and pushes diagnostics.

pub mod bundle;
pub mod bundle_dir;
pub mod cel;
pub mod channel;
pub mod constraints;
pub mod deprecations;
pub mod graph;
pub mod installability;
pub mod load;
pub mod package;
pub mod properties;
pub mod ranges;

use crate::config::Config;
use crate::diag::Diagnostic;
use crate::load::LoadedFile;
use crate::model::index::Index;
use crate::model::resolution::Resolution;
use crate::model::Catalog;

pub struct Ctx<'a> {
    pub files: &'a [LoadedFile],
    pub catalog: &'a Catalog<'a>,
    pub config: &'a Config,
    pub index: &'a Index<'a>,
    /// The catalog as OLM's resolver sees it.
    pub resolution: &'a Resolution,
    /// Every catalog the resolution draws on: `catalog` first, then the `--context` ones.
    pub catalogs: &'a [&'a Catalog<'a>],
    /// The catalog (command-line path) being checked.
    pub scope: usize,
}

impl<'a> Ctx<'a> {
    /// A bundle by its resolution index (which may be in a context catalog).
    pub fn bundle(&self, bi: usize) -> Option<&'a crate::model::Bundle<'a>> {
        let &(source, local) = self.resolution.home.get(bi)?;
        self.catalogs.get(source)?.bundles.get(local)
    }

    /// False when some document failed to parse: findings that something is *missing*
    /// (unknown package, bundle in no channel) would then be noise, so they are held back
    /// until the syntax error is fixed, as opm stops at it too.
    pub fn complete(&self) -> bool {
        !self
            .files
            .iter()
            .filter(|f| f.scope == self.scope)
            .any(|f| {
                f.docs.iter().any(|d| d.failed) || (f.docs.is_empty() && !f.problems.is_empty())
            })
    }
}

/// Run every rule family. Families are independent, so they run in parallel.
pub fn run(ctx: &Ctx<'_>) -> Vec<Diagnostic> {
    type Family = fn(&Ctx<'_>, &mut Vec<Diagnostic>);
    let families: &[Family] = &[
        load::check,
        package::check,
        channel::check,
        graph::check,
        bundle::check,
        deprecations::check,
        properties::check,
        ranges::check,
        constraints::check,
        cel::check,
        bundle_dir::check,
        installability::check,
    ];
    use rayon::prelude::*;
    families
        .par_iter()
        .flat_map_iter(|f| {
            let mut out = Vec::new();
            f(ctx, &mut out);
            out
        })
        .collect()
}
