//! File discovery like `opm`'s `WalkFS`: every regular file counts whatever its extension,
//! `.indexignore` files apply gitignore patterns scoped to their directory, hidden files are
//! not skipped. Directories holding `metadata/annotations.yaml` are registry+v1 bundles.

use super::{display_path, IoProblem, Role};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct Found {
    pub path: PathBuf,
    pub display: String,
    pub role: Role,
    pub size: u64,
    /// Index of the command-line path the file was found under: one catalog per path.
    pub scope: usize,
}

pub fn is_bundle_dir(dir: &Path) -> bool {
    dir.join("metadata").join("annotations.yaml").is_file()
        || dir.join("metadata").join("annotations.yml").is_file()
}

pub fn collect(root: &Path, scope: usize, out: &mut Vec<Found>, problems: &mut Vec<IoProblem>) {
    // A path given inside the repository (`catalogs/v4.18`) that is, or passes through, a
    // link out of it is not walked: a pull request controls the links, and what is walked is
    // quoted into public reports. The finding names the path as given, never the target.
    if let Err(message) = crate::io::refuse_leaving(root) {
        problems.push(IoProblem::link(display_path(root), message));
        return;
    }
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            problems.push(IoProblem::unreadable(
                display_path(root),
                format!("cannot read: {e}"),
            ));
            return;
        }
    };
    if meta.is_file() {
        // A file named on the command line (or by --only-files / --changed-since, which take
        // names from a pull request) that is a link out of its own directory is not read.
        if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink())
            && !link_stays_in_directory(root)
        {
            problems.push(IoProblem::link(
                display_path(root),
                "symbolic link to a target outside its directory; not read".into(),
            ));
            return;
        }
        let role = root
            .ancestors()
            .skip(1)
            .take(3)
            .find(|a| is_bundle_dir(a))
            .map_or(Role::Fbc, |b| Role::Bundle(b.to_path_buf()));
        let role = if role == Role::Fbc
            && is_ci_config(root)
            && root.parent().is_some_and(is_operator_dir)
        {
            Role::OperatorConfig
        } else {
            role
        };
        out.push(Found {
            path: root.to_path_buf(),
            display: display_path(root),
            role,
            size: meta.len(),
            scope,
        });
        return;
    }
    let mut bundle_roots: Vec<PathBuf> = Vec::new();
    let mut operator_roots: std::collections::HashSet<PathBuf> = Default::default();
    let mut version_dirs: std::collections::HashSet<PathBuf> = Default::default();
    // Directories of operator directories (`operators/`), decided once per directory: their
    // own files (`README.md`) are not catalog content either. A file can come before the
    // operator directories beside it (`README.md` sorts before `aqua/`), so this looks ahead.
    let mut repositories: std::collections::HashMap<PathBuf, bool> = Default::default();
    let canonical_root = std::fs::canonicalize(root).ok();
    let ignores = std::sync::Arc::new(IndexIgnores {
        root: root.to_path_buf(),
        canonical_root: canonical_root.clone(),
        cache: Default::default(),
        problems: Default::default(),
    });
    let filter = std::sync::Arc::clone(&ignores);
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .parents(false)
        .follow_links(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            // Version-control metadata (pack files, hooks) is never catalog content.
            let vcs = is_dir && matches!(e.file_name().to_str(), Some(".git" | ".hg" | ".svn"));
            !vcs && !filter.ignored(e.path(), is_dir)
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                problems.push(IoProblem::unreadable(
                    display_path(root),
                    format!("walk error: {e}"),
                ));
                continue;
            }
        };
        let path = entry.path();
        let Some(ft) = entry.file_type() else {
            continue;
        };
        if ft.is_dir() {
            // A bundle directory inside another one (a stray `bundle/` copy next to
            // `manifests/`) is not content: opm reads `manifests/` and `metadata/` only.
            let nested = bundle_roots.last().is_some_and(|b| path.starts_with(b));
            if is_bundle_dir(path) && !nested {
                bundle_roots.push(path.to_path_buf());
            } else if !nested && is_operator_dir(path) {
                operator_roots.insert(path.to_path_buf());
            }
            let in_operator = path.parent().is_some_and(|p| operator_roots.contains(p));
            if in_operator && holds_bundle(path) {
                version_dirs.insert(path.to_path_buf());
            }
            continue;
        }
        // The files of an operator directory and of its version directories outside the
        // bundle (`ci.yaml`, `Makefile`, `*.mk`, `release-config.yaml`, `README.md`)
        // describe how the operator is built and released; they are not catalog content.
        // The walk is depth-first in path order and bundle directories do not nest, so only
        // the last one found can hold this path.
        let bundle = bundle_roots.last().filter(|b| path.starts_with(b));
        // The operator's `ci.yaml` is read as its configuration (`updateGraph`, `fbc`).
        let operator_config = bundle.is_none()
            && is_ci_config(path)
            && path.parent().is_some_and(|p| operator_roots.contains(p));
        if bundle.is_none()
            && !operator_config
            && path.parent().is_some_and(|p| {
                operator_roots.contains(p)
                    || version_dirs.contains(p)
                    || match repositories.get(p) {
                        Some(&known) => known,
                        None => {
                            let holds = holds_operator_dirs(p);
                            repositories.insert(p.to_path_buf(), holds);
                            holds
                        }
                    }
            })
        {
            continue;
        }
        // A temporary left by a killed `--fix` or `-o` is not catalog content.
        if crate::io::is_temporary(&entry.file_name().to_string_lossy()) {
            continue;
        }
        // olmlint's own configuration is not catalog content (list it in .indexignore so
        // opm skips it too when it lives inside the catalog tree).
        if entry.file_name() == ".indexignore"
            || super::names::CONFIG_FILES
                .iter()
                .chain([&super::names::FINDINGS_BASELINE])
                .any(|n| entry.file_name() == *n)
        {
            continue;
        }
        // Symlinks are read when they point at files inside the catalog (opm's ReadFile
        // follows them) and never followed into directories, so a link loop cannot trap the
        // walk. A link whose target is outside the catalog root is not read: a pull request
        // controls the links, and the content would be quoted into public reports.
        if ft.is_symlink() {
            // A dangling or looping link fails below with its own error.
            let outside = canonical_root
                .as_ref()
                .zip(std::fs::canonicalize(path).ok())
                .is_some_and(|(root, target)| !target.starts_with(root));
            if outside {
                problems.push(IoProblem::link(
                    display_path(path),
                    "symbolic link to a target outside the catalog; not read".into(),
                ));
                continue;
            }
        }
        let size = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m.len(),
            Ok(_) => continue,
            Err(e) => {
                problems.push(IoProblem::unreadable(
                    display_path(path),
                    format!("cannot read: {e}"),
                ));
                continue;
            }
        };
        let in_templates = || {
            path.ancestors().skip(1).any(|a| {
                a.file_name().is_some_and(|n| n == "catalog-templates")
                    && a.parent().is_some_and(|o| operator_roots.contains(o))
            })
        };
        let role = match bundle {
            _ if operator_config => Role::OperatorConfig,
            Some(b) => Role::Bundle(b.clone()),
            None if !operator_roots.is_empty() && in_templates() => Role::Template,
            None => Role::Fbc,
        };
        // Inside a registry+v1 bundle directory opm reads `manifests/` and `metadata/` only:
        // `bundle.Dockerfile`, `Dockerfile`, `README.md`, `.DS_Store`, `tests/` are not
        // bundle content.
        if let Role::Bundle(b) = &role {
            let first = path
                .strip_prefix(b)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_owned());
            if !first.is_some_and(|c| c == "manifests" || c == "metadata") {
                continue;
            }
        }
        out.push(Found {
            path: path.to_path_buf(),
            display: display_path(path),
            role,
            size,
            scope,
        });
    }
    let found = ignores
        .problems
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default();
    problems.extend(found);
}

/// Whether the link `path` resolves to a file inside the directory that holds the link.
pub fn link_stays_in_directory(path: &Path) -> bool {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::canonicalize(dir)
        .ok()
        .zip(std::fs::canonicalize(path).ok())
        .is_some_and(|(d, t)| t.starts_with(d))
}

/// The largest `.indexignore` read (they hold a few patterns).
const MAX_INDEXIGNORE_SIZE: u64 = 1 << 20;

/// `.indexignore` files as opm applies them: gitignore patterns, each file scoped to its
/// directory, the deepest match deciding, none above the walked root. Read by olmlint rather
/// than by the walker so that one which is a FIFO, a device, a link out of the catalog or
/// huge is reported and skipped instead of read (a pull request controls them).
struct IndexIgnores {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    cache: std::sync::Mutex<
        std::collections::HashMap<PathBuf, Option<std::sync::Arc<ignore::gitignore::Gitignore>>>,
    >,
    problems: std::sync::Mutex<Vec<IoProblem>>,
}

impl IndexIgnores {
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        if path == self.root {
            return false;
        }
        for dir in path.ancestors().skip(1) {
            if let Some(g) = self.for_dir(dir) {
                match g.matched(path, is_dir) {
                    ignore::Match::Ignore(_) => return true,
                    ignore::Match::Whitelist(_) => return false,
                    ignore::Match::None => {}
                }
            }
            if dir == self.root || !dir.starts_with(&self.root) {
                break;
            }
        }
        false
    }

    fn for_dir(&self, dir: &Path) -> Option<std::sync::Arc<ignore::gitignore::Gitignore>> {
        if let Some(g) = self.cache.lock().ok()?.get(dir) {
            return g.clone();
        }
        let g = self.read(dir).map(std::sync::Arc::new);
        self.cache.lock().ok()?.insert(dir.to_path_buf(), g.clone());
        g
    }

    fn read(&self, dir: &Path) -> Option<ignore::gitignore::Gitignore> {
        let file = dir.join(".indexignore");
        let meta = std::fs::symlink_metadata(&file).ok()?;
        let problem = |make: fn(String, String) -> IoProblem, message: String| {
            if let Ok(mut p) = self.problems.lock() {
                p.push(make(display_path(&file), message));
            }
            None
        };
        if meta.file_type().is_symlink() {
            let inside = self
                .canonical_root
                .as_ref()
                .zip(std::fs::canonicalize(&file).ok())
                .is_some_and(|(root, target)| target.starts_with(root));
            if !inside {
                return problem(
                    IoProblem::link,
                    "symbolic link to a target outside the catalog; not read (its patterns \
                     are not applied)"
                        .into(),
                );
            }
        }
        let bytes = match crate::io::read_regular(&file, MAX_INDEXIGNORE_SIZE) {
            Ok(b) => b,
            Err(e) => {
                return problem(
                    IoProblem::unreadable,
                    format!("{e} (its patterns are not applied)"),
                )
            }
        };
        let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
        for line in String::from_utf8_lossy(&bytes).lines() {
            // A bad pattern is skipped, as the gitignore matcher opm uses skips it.
            let _ = builder.add_line(None, line);
        }
        builder.build().ok()
    }
}

/// The OpenShift version a directory name stands for: `vMAJOR.MINOR`, digits only.
pub fn openshift_dir(name: &str) -> Option<(u32, u32)> {
    let (major, minor) = name.strip_prefix('v')?.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A directory of per-OpenShift-version catalogs (`catalogs/` holding `v4.16/`, `v4.17/`, …
/// and no other directory): its version directories in version order, each a catalog of its
/// own, as `opm validate catalogs/v4.x` and the index build treat them. `None` otherwise.
pub fn version_catalogs(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut found: Vec<((u32, u32), PathBuf)> = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        // Not followed: a symlink is neither a version directory nor another directory.
        let Ok(ft) = e.file_type() else { continue };
        if !ft.is_dir() {
            // A catalog file beside the version directories: not that layout (the split
            // would leave the file out).
            let name = e.file_name();
            let name = name.to_string_lossy();
            let catalog_file = [".yaml", ".yml", ".json"].iter().any(|x| name.ends_with(x))
                && !super::names::CONFIG_FILES.contains(&&*name)
                && name != super::names::FINDINGS_BASELINE;
            if catalog_file {
                return None;
            }
            continue;
        }
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        found.push((openshift_dir(&name)?, e.path()));
    }
    if found.is_empty() {
        return None;
    }
    found.sort();
    Some(found.into_iter().map(|(_, p)| p).collect())
}

/// The catalogs changed files belong to, for change-scoped linting (`--only-files`,
/// `--changed-since`, the pre-commit hooks), decided from paths only, never from file text:
/// a file under a directory given on the command line belongs to that directory (or to its
/// `vX.Y` version catalog when it is a directory of per-OpenShift catalogs); otherwise to
/// [`catalog_root`].
/// A changed file whose real path leaves its repository ([`crate::io::leaves_repository`]) belongs to
/// no catalog: it is never a root, nor read.
pub fn changed_file_roots(files: &[PathBuf], given: &[PathBuf]) -> Vec<PathBuf> {
    let given: Vec<PathBuf> = given
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let mut roots: Vec<PathBuf> = files
        .iter()
        .filter(|f| !crate::io::leaves_repository(f))
        .map(|f| {
            let abs = std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf());
            let under = given
                .iter()
                .filter(|r| abs.starts_with(r))
                .max_by_key(|r| r.components().count());
            match under {
                Some(r) => version_catalogs(r)
                    .and_then(|vs| vs.into_iter().find(|v| abs.starts_with(v)))
                    .unwrap_or_else(|| r.clone()),
                None => catalog_root(&abs),
            }
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The catalog a file belongs to when no directory was given, by the first rule that applies
/// (docs/src/changed-since.md, the book's "Linting only what a change touches"):
/// 1. the registry+v1 bundle directory holding it (`metadata/annotations.yaml`);
/// 2. the nearest enclosing `vMAJOR.MINOR` directory (a per-OpenShift-version catalog);
/// 3. the nearest enclosing directory holding `.olmlint.yaml`, `.olmlint.yml` or
///    `.indexignore`;
/// 4. the nearest enclosing operator directory (`ci.yaml` next to bundle directories);
/// 5. the top level of the git work tree holding it;
/// 6. the directory olmlint runs in, when it holds the file; else the file's directory.
pub fn catalog_root(file: &Path) -> std::path::PathBuf {
    let abs = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    if let Some(b) = abs.ancestors().skip(1).take(3).find(|a| is_bundle_dir(a)) {
        return b.to_path_buf();
    }
    let is_version = |d: &Path| {
        d.file_name()
            .and_then(|n| n.to_str())
            .and_then(openshift_dir)
            .is_some()
    };
    // Not above the work tree: a checkout's parent directories are not the user's.
    let top = crate::io::work_tree_top(&dir);
    let within = |d: &&Path| top.is_none_or(|t| d.starts_with(t));
    if let Some(v) = dir.ancestors().take_while(within).find(|d| is_version(d)) {
        return v.to_path_buf();
    }
    let marked = dir.ancestors().take_while(within).find(|d| {
        super::names::CONFIG_FILES
            .iter()
            .chain(std::iter::once(&".indexignore"))
            .any(|n| d.join(n).is_file())
    });
    if let Some(m) = marked {
        return m.to_path_buf();
    }
    if let Some(op) = dir
        .ancestors()
        .take_while(within)
        .find(|d| is_operator_dir(d))
    {
        return op.to_path_buf();
    }
    if let Some(t) = top {
        return t.to_path_buf();
    }
    // The directory olmlint runs in, when it holds the file; else the file's own.
    std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok())
        .filter(|c| abs.starts_with(c))
        .unwrap_or(dir)
}

/// The parts of an operator repository's root: `operators/` when it is a directory of
/// operator directories, and `catalogs/` when it holds per-OpenShift-version catalogs (each
/// then a catalog of its own). `None` when `dir` has no such `operators/`.
pub fn repository_parts(dir: &Path) -> Option<Vec<PathBuf>> {
    let operators = dir.join("operators");
    if !operators.is_dir() || !holds_operator_dirs(&operators) {
        return None;
    }
    let mut parts = vec![operators];
    let catalogs = dir.join("catalogs");
    if version_catalogs(&catalogs).is_some() {
        parts.push(catalogs);
    }
    Some(parts)
}

/// `ci.yaml` (or `ci.yml`): an operator directory's configuration.
fn is_ci_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "ci.yaml" || n == "ci.yml")
}

/// Whether `dir` is a directory of operator directories (a repository's `operators/`).
fn holds_operator_dirs(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_type().is_ok_and(|t| t.is_dir()) && is_operator_dir(&e.path()))
    })
}

/// `ci.yaml` next to version directories that are registry+v1 bundles
/// (`operators/<name>/<version>/{manifests,metadata}`).
/// Also one that holds only `ci.yaml` yet, directly under a directory named `operators`.
pub fn is_operator_dir(dir: &Path) -> bool {
    if !dir.join("ci.yaml").is_file() && !dir.join("ci.yml").is_file() {
        return false;
    }
    let under_operators = dir
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "operators");
    under_operators
        || std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_type().is_ok_and(|t| t.is_dir()) && holds_bundle(&e.path()))
        })
}

/// A version directory: a bundle directory, or one holding a bundle directory (`<version>/bundle/`).
fn holds_bundle(dir: &Path) -> bool {
    is_bundle_dir(dir)
        || std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_type().is_ok_and(|t| t.is_dir()) && is_bundle_dir(&e.path()))
        })
}
