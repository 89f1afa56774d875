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
    Plans::new(given).roots(files)
}

/// [`roots`], and the catalogs linted beside them for their sake ([`companions`]), with
/// discovery run once per directory for both.
pub fn roots_and_companions(files: &[PathBuf], given: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut plans = Plans::new(given);
    let roots = plans.roots(files);
    let companions = plans.companions(&roots);
    (roots, companions)
}

/// The catalogs a change-scoped run lints beside `roots` (from [`roots`] for the same
/// `given` directories) so that each is judged as `olmlint lint` judges it in the whole
/// build, where a catalog template planned on its own is paired with the rendered catalogs
/// of its build: a changed template is linted with those catalogs (their images resolve its
/// bundles; the one rendered from it is compared with what it renders, OLM906), and a
/// changed rendered catalog with the templates and the other rendered catalogs of its build
/// (the same comparison, from the other side, with the same pairing). Elsewhere (no template
/// in the build) none.
pub fn companions(roots: &[PathBuf], given: &[PathBuf]) -> Vec<PathBuf> {
    Plans::new(given).companions(roots)
}

/// Discovery's plans, by the directory it ran in (once each), for the `given` directories
/// (canonical) or a changed file's repository.
struct Plans {
    given: Vec<PathBuf>,
    by_base: HashMap<PathBuf, Vec<Catalog>>,
}

impl Plans {
    fn new(given: &[PathBuf]) -> Self {
        Plans {
            given: given
                .iter()
                .filter(|p| p.is_dir())
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .collect(),
            by_base: HashMap::new(),
        }
    }

    /// The deepest given directory holding `abs`.
    fn given_holding(&self, abs: &Path) -> Option<PathBuf> {
        self.given
            .iter()
            .filter(|r| abs.starts_with(r))
            .max_by_key(|r| r.components().count())
            .cloned()
    }

    fn plan(&mut self, base: &Path) -> &[Catalog] {
        self.by_base
            .entry(base.to_path_buf())
            .or_insert_with(|| planned(base))
    }

    fn roots(&mut self, files: &[PathBuf]) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = files
            .iter()
            .filter(|f| !crate::io::leaves_repository(f))
            .filter_map(|f| {
                let abs = crate::io::absolute(f);
                match self.given_holding(&abs) {
                    Some(r) => holding(self.plan(&r), &abs).map(|c| c.holding(&abs)),
                    // No directory given (the pre-commit hooks, a language server without a
                    // workspace folder): see the module's documentation.
                    None => self.undirected(&abs),
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
    fn undirected(&mut self, file: &Path) -> Option<PathBuf> {
        let depth = |p: &Path| p.components().count();
        let base = discovery_base(file);
        let built = base.as_ref().map(|base| {
            let catalogs = self.plan(base);
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

    fn companions(&mut self, roots: &[PathBuf]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for root in roots {
            let abs = crate::io::absolute(root);
            let Some(base) = self.given_holding(&abs).or_else(|| discovery_base(&abs)) else {
                continue;
            };
            let canonical = std::fs::canonicalize(&abs).unwrap_or(abs);
            let catalogs = self.plan(&base);
            let Some(this) = catalogs.iter().find(|c| c.path == canonical) else {
                continue;
            };
            // A template is paired with the rendered catalogs; a rendered catalog is compared
            // with its template as the whole build pairs them, which takes every rendered
            // catalog too (a template rendered into one catalog per release is compared
            // with none of them; into a single one, with it).
            let templates = catalogs.iter().any(|c| c.template);
            let partner = |c: &Catalog| {
                (this.template && c.rendered)
                    || (this.rendered && templates && (c.template || c.rendered))
            };
            out.extend(
                catalogs
                    .iter()
                    .filter(|c| partner(c) && !roots.contains(&c.path))
                    .map(|c| c.path.clone()),
            );
        }
        out.sort();
        out.dedup();
        out
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
    /// A rendered (file-based) catalog a template of the same build may be paired with.
    rendered: bool,
    /// A catalog template planned on its own.
    template: bool,
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
            let rendered = matches!(
                c.why,
                super::Why::Image(_) | super::Why::Release | super::Why::Version
            );
            let template = c.why == super::Why::Template;
            Catalog {
                path,
                of_operators,
                rendered,
                template,
            }
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
