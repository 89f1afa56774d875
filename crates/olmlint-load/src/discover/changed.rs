//! The catalogs changed files belong to, for change-scoped linting (`--only-files`,
//! `--changed-since`, the pre-commit hooks and the Action): a change is judged in the catalog
//! the build makes of it, whole.
//!
//! - A file under a directory given on the command line belongs to the catalog that
//!   discovery ([`super::plan`]) finds there and that holds it: the Action lints `.`, and a
//!   repository's root is its catalog images' catalogs, its per-release catalogs, its
//!   templates, or an operator repository's parts, never the whole repository as one catalog.
//!   A changed file that no catalog of the build holds (a workflow, a script's YAML, the
//!   repository's `config.yaml`) is not catalog content and belongs to none.
//! - Otherwise (no directory given: the pre-commit hooks), to [`crate::walk::catalog_root`].
//!
//! Either way, a file of an operator directory (`operators/<name>/`: `ci.yaml`, its
//! templates, any of its bundle directories) belongs to the **whole operator**: a new bundle
//! is judged with the operator's other versions, its channels and its `replaces` chain, as the
//! index build judges it. A changed file whose real path leaves its repository
//! ([`crate::io::leaves_repository`]) belongs to no catalog: it is never a root, nor read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The catalogs (directories, or a template file planned on its own) holding `files`, given
/// the directories named on the command line (`given`; files there are ignored).
pub fn roots(files: &[PathBuf], given: &[PathBuf]) -> Vec<PathBuf> {
    let given: Vec<PathBuf> = given
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    // Discovery runs once per given directory, and only for one that holds a changed file.
    let mut plans: HashMap<PathBuf, Vec<Catalog>> = HashMap::new();
    let mut roots: Vec<PathBuf> = files
        .iter()
        .filter(|f| !crate::io::leaves_repository(f))
        .filter_map(|f| {
            let abs = crate::io::absolute(f);
            let under = given
                .iter()
                .filter(|r| abs.starts_with(r))
                .max_by_key(|r| r.components().count());
            match under {
                Some(r) => {
                    let catalogs = plans.entry(r.clone()).or_insert_with(|| planned(r));
                    holding(catalogs, &abs).map(|c| c.holding(&abs))
                }
                None => Some(crate::walk::catalog_root(&abs)),
            }
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// A catalog discovery planned, canonical, and whether it is an operator repository's
/// `operators/` (decided once, not once per changed file).
struct Catalog {
    path: PathBuf,
    of_operators: bool,
}

impl Catalog {
    /// The catalog a file of it belongs to: an operator repository's `operators/` is linted
    /// per operator in a change-scoped run, the operator directory holding the file.
    fn holding(&self, file: &Path) -> PathBuf {
        let Ok(rest) = file.strip_prefix(&self.path) else {
            return self.path.clone();
        };
        match rest.components().next() {
            Some(first) if self.of_operators && rest.components().count() > 1 => {
                self.path.join(first)
            }
            _ => self.path.clone(),
        }
    }
}

/// What discovery plans for a given directory.
fn planned(dir: &Path) -> Vec<Catalog> {
    super::plan(dir)
        .catalogs
        .into_iter()
        .map(|c| {
            let path = std::fs::canonicalize(&c.path).unwrap_or(c.path);
            let of_operators = crate::walk::holds_operator_dirs(&path);
            Catalog { path, of_operators }
        })
        .collect()
}

/// The deepest planned catalog holding `file` (a template planned on its own is its own).
fn holding<'c>(catalogs: &'c [Catalog], file: &Path) -> Option<&'c Catalog> {
    catalogs
        .iter()
        .filter(|c| file.starts_with(&c.path))
        .max_by_key(|c| c.path.components().count())
}
