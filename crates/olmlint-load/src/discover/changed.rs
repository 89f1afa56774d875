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
//! - Otherwise (no directory given: the pre-commit hooks, a language server without a
//!   workspace folder), the more specific of two answers: the catalog that discovery at the
//!   top of the git work tree holding the file (or at the working directory, outside one)
//!   finds holding it, as `olmlint lint .` there would, and the catalog the file's
//!   surroundings mark ([`crate::walk::marked_root`]: a bundle or operator directory,
//!   `.olmlint.yaml` or `.indexignore`; a `vMAJOR.MINOR` directory only where discovery
//!   finds no catalog, for `releases/v4.22/` is no catalog). A repository whose Dockerfiles
//!   copy `catalog/coo-product-v4.22` into one image and `catalog/coo-product-v4.21` into
//!   another is two catalogs, not the work tree merged (75 false OLM104/OLM106 errors on
//!   rhobs/konflux-coo-fbc); a file neither holds (a Konflux `Release` object, a devfile, a
//!   kustomization) is no catalog's when discovery finds catalogs, and only where it finds
//!   none does the work tree's top (or the working directory) decide
//!   ([`crate::walk::enclosing_root`]).
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
                // No directory given (the pre-commit hooks, a language server without a
                // workspace folder): see the module's documentation.
                None => undirected(&abs, &mut plans),
            }
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The catalog of a changed file named without a directory: the more specific of the catalog
/// discovery at the file's repository finds holding it and the one its surroundings mark; a
/// marker at the repository's top (`.indexignore` there) says nothing discovery does not.
fn undirected(file: &Path, plans: &mut HashMap<PathBuf, Vec<Catalog>>) -> Option<PathBuf> {
    let depth = |p: &Path| p.components().count();
    let base = discovery_base(file);
    let built = base.as_ref().map(|base| {
        let catalogs = plans.entry(base.clone()).or_insert_with(|| planned(base));
        let held = holding(catalogs, file).map(|c| c.holding(file));
        (held, !catalogs.is_empty())
    });
    let discovered = built.as_ref().is_some_and(|(_, any)| *any);
    let marked = crate::walk::marked_root(file, !discovered)
        .filter(|m| !discovered || base.as_ref().is_none_or(|b| depth(m) > depth(b)));
    match (marked, built) {
        (Some(m), Some((Some(b), _))) => Some(if depth(&b) >= depth(&m) { b } else { m }),
        (Some(m), _) => Some(m),
        (None, Some((Some(b), _))) => Some(b),
        // The build has catalogs, and none holds the file.
        (None, Some((None, true))) => None,
        (None, _) => Some(crate::walk::enclosing_root(file)),
    }
}

/// Where `olmlint lint .` would run for a changed file named without a directory: the top of
/// the git work tree holding it (canonical), else the working directory when it holds the
/// file; none for a file elsewhere.
fn discovery_base(file: &Path) -> Option<PathBuf> {
    let dir = file.parent()?;
    let top = crate::io::work_tree_top(dir)
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok().filter(|c| file.starts_with(c)))?;
    std::fs::canonicalize(top).ok()
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
