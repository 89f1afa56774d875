//! Stage 3: checks. One module per rule family; each reads the model and pushes diagnostics.

pub mod load;

use crate::config::Config;
use crate::diag::Diagnostic;
use crate::load::LoadedFile;
use crate::model::Catalog;

pub struct Ctx<'a> {
    pub files: &'a [LoadedFile],
    pub catalog: &'a Catalog<'a>,
    pub config: &'a Config,
}

/// Run every rule family. Families are independent, so they run in parallel.
pub fn run(ctx: &Ctx<'_>) -> Vec<Diagnostic> {
    type Family = fn(&Ctx<'_>, &mut Vec<Diagnostic>);
    let families: &[Family] = &[load::check];
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
