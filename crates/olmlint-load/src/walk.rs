//! File discovery like `opm`'s `WalkFS`: every regular file counts whatever its extension,
//! `.indexignore` files apply go-git's gitignore patterns to each file as opm does
//! ([`crate::indexignore`]), hidden files are not skipped. Directories holding
//! `metadata/annotations.yaml` are registry+v1 bundles.

use super::{display_path, indexignore, IoProblem, Role};
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
        collect_given_file(root, meta.len(), scope, out, problems);
        return;
    }
    let canonical_root = std::fs::canonicalize(root).ok();
    let ignores = std::sync::Arc::new(IndexIgnores {
        root: root.to_path_buf(),
        canonical_root: canonical_root.clone(),
        cache: Default::default(),
        problems: Default::default(),
    });
    let mut walk = Walk {
        scope,
        canonical_root,
        layout: Layout::default(),
        repositories: Repositories::default(),
        out,
        problems,
    };
    for entry in walker(root, &ignores) {
        match entry {
            Ok(entry) => walk.visit(&entry),
            Err(e) => walk.problems.push(IoProblem::unreadable(
                display_path(root),
                format!("walk error: {e}"),
            )),
        }
    }
    problems.extend(ignores.take_problems());
}

/// A file named on the command line (or by --only-files / --changed-since, which take names
/// from a pull request): its role from the directories above it.
fn collect_given_file(
    file: &Path,
    size: u64,
    scope: usize,
    out: &mut Vec<Found>,
    problems: &mut Vec<IoProblem>,
) {
    // One that is a link out of its own directory is not read.
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink())
        && !link_stays_in_directory(file)
    {
        problems.push(IoProblem::link(
            display_path(file),
            "symbolic link to a target outside its directory; not read".into(),
        ));
        return;
    }
    let role = file
        .ancestors()
        .skip(1)
        .take(3)
        .find(|a| is_bundle_dir(a))
        .map_or(Role::Fbc, |b| Role::Bundle(b.to_path_buf()));
    let role =
        if role == Role::Fbc && is_ci_config(file) && file.parent().is_some_and(is_operator_dir) {
            Role::OperatorConfig
        } else {
            role
        };
    out.push(Found {
        path: file.to_path_buf(),
        display: display_path(file),
        role,
        size,
        scope,
    });
}

/// The walk of a directory: depth-first in path order, links not followed, version-control
/// metadata left out, and the files that `.indexignore` files exclude. Directories are never
/// pruned by `.indexignore`: opm asks about each file, and a later pattern can re-include a
/// file below a directory an earlier one names.
fn walker(root: &Path, ignores: &std::sync::Arc<IndexIgnores>) -> ignore::Walk {
    let filter = std::sync::Arc::clone(ignores);
    ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .parents(false)
        .follow_links(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            if e.file_type().is_some_and(|t| t.is_dir()) {
                // Version-control metadata (pack files, hooks) is never catalog content.
                !matches!(e.file_name().to_str(), Some(".git" | ".hg" | ".svn"))
            } else {
                !filter.ignored(e.path())
            }
        })
        .build()
}

/// The directories the walk has passed that decide what the files below them are.
#[derive(Default)]
struct Layout {
    /// Registry+v1 bundle directories, in walk order (they do not nest).
    bundle_roots: Vec<PathBuf>,
    /// Operator directories (`ci.yaml` next to bundle directories).
    operator_roots: std::collections::HashSet<PathBuf>,
    /// Version directories of operator directories that hold a bundle.
    version_dirs: std::collections::HashSet<PathBuf>,
}

impl Layout {
    /// Records what a directory the walk enters is.
    fn enter_dir(&mut self, path: &Path) {
        // A bundle directory inside another one (a stray `bundle/` copy next to
        // `manifests/`) is not content: opm reads `manifests/` and `metadata/` only.
        let nested = self
            .bundle_roots
            .last()
            .is_some_and(|b| path.starts_with(b));
        if is_bundle_dir(path) && !nested {
            self.bundle_roots.push(path.to_path_buf());
        } else if !nested && is_operator_dir(path) {
            self.operator_roots.insert(path.to_path_buf());
        }
        let in_operator = path
            .parent()
            .is_some_and(|p| self.operator_roots.contains(p));
        if in_operator && holds_bundle(path) {
            self.version_dirs.insert(path.to_path_buf());
        }
    }

    /// The bundle directory holding `path`. The walk is depth-first in path order and
    /// bundle directories do not nest, so only the last one found can hold it.
    fn bundle_of(&self, path: &Path) -> Option<&PathBuf> {
        self.bundle_roots.last().filter(|b| path.starts_with(b))
    }

    /// `<operator>/<version>/release-config.yaml`: read by the pipelines' FBC release.
    fn is_release_config(&self, path: &Path, bundle: &Path) -> bool {
        path.parent() == Some(bundle)
            && path.file_name().is_some_and(|n| n == "release-config.yaml")
            && self.in_operator_dir(bundle)
    }

    fn in_operator_dir(&self, path: &Path) -> bool {
        path.parent()
            .is_some_and(|p| self.operator_roots.contains(p))
    }

    /// The role of a catalog file, given the bundle holding it.
    fn role(&self, path: &Path, bundle: Option<&PathBuf>, operator_config: bool) -> Role {
        let in_templates = || {
            path.ancestors().skip(1).any(|a| {
                a.file_name().is_some_and(|n| n == "catalog-templates")
                    && a.parent().is_some_and(|o| self.operator_roots.contains(o))
            })
        };
        match bundle {
            _ if operator_config => Role::OperatorConfig,
            Some(b) => Role::Bundle(b.clone()),
            None if !self.operator_roots.is_empty() && in_templates() => Role::Template,
            None => Role::Fbc,
        }
    }
}

/// Directories of operator directories (`operators/`), decided once per directory: their own
/// files (`README.md`) are not catalog content either. A file can come before the operator
/// directories beside it (`README.md` sorts before `aqua/`), so this looks ahead.
#[derive(Default)]
struct Repositories(std::collections::HashMap<PathBuf, bool>);

impl Repositories {
    /// Whether a file outside any bundle is part of how an operator is built and released:
    /// the files of an operator directory and of its version directories outside the bundle
    /// (`ci.yaml`, `Makefile`, `*.mk`, `release-config.yaml`, `README.md`), and those of a
    /// directory of operator directories. They are not catalog content.
    fn holds_build_file(&mut self, layout: &Layout, path: &Path) -> bool {
        path.parent().is_some_and(|p| {
            layout.operator_roots.contains(p)
                || layout.version_dirs.contains(p)
                || match self.0.get(p) {
                    Some(&known) => known,
                    None => {
                        let holds = holds_operator_dirs(p);
                        self.0.insert(p.to_path_buf(), holds);
                        holds
                    }
                }
        })
    }
}

/// A directory walk in progress: what it has learned and where its results go.
struct Walk<'a> {
    scope: usize,
    canonical_root: Option<PathBuf>,
    layout: Layout,
    repositories: Repositories,
    out: &'a mut Vec<Found>,
    problems: &'a mut Vec<IoProblem>,
}

impl Walk<'_> {
    /// One entry of the walk: a directory is recorded, a file of the catalog is found.
    fn visit(&mut self, entry: &ignore::DirEntry) {
        let path = entry.path();
        let Some(ft) = entry.file_type() else {
            return;
        };
        if ft.is_dir() {
            self.layout.enter_dir(path);
            return;
        }
        let bundle = self.layout.bundle_of(path);
        // The operator's `ci.yaml` is read as its configuration (`updateGraph`, `fbc`).
        let operator_config =
            bundle.is_none() && is_ci_config(path) && self.layout.in_operator_dir(path);
        if bundle.is_none()
            && !operator_config
            && self.repositories.holds_build_file(&self.layout, path)
        {
            return;
        }
        if is_olmlint_file(entry.file_name()) {
            return;
        }
        if ft.is_symlink() && self.link_leaves_catalog(path) {
            self.problems.push(IoProblem::link(
                display_path(path),
                "symbolic link to a target outside the catalog; not read".into(),
            ));
            return;
        }
        let Some(size) = regular_file_size(path, self.problems) else {
            return;
        };
        let role = self.layout.role(path, bundle, operator_config);
        let role = match role {
            Role::Bundle(b) if self.layout.is_release_config(path, &b) => Role::ReleaseConfig,
            Role::Bundle(b) if !is_bundle_content(path, &b) => return,
            role => role,
        };
        self.out.push(Found {
            path: path.to_path_buf(),
            display: display_path(path),
            role,
            size,
            scope: self.scope,
        });
    }

    /// Symlinks are read when they point at files inside the catalog (opm's ReadFile follows
    /// them) and never followed into directories, so a link loop cannot trap the walk. A
    /// link whose target is outside the catalog root is not read: a pull request controls
    /// the links, and the content would be quoted into public reports. A dangling or looping
    /// link is not outside: it fails when read, with its own error.
    fn link_leaves_catalog(&self, path: &Path) -> bool {
        self.canonical_root
            .as_ref()
            .zip(std::fs::canonicalize(path).ok())
            .is_some_and(|(root, target)| !target.starts_with(root))
    }
}

/// Files of olmlint's own, never catalog content: a temporary left by a killed `--fix` or
/// `-o`, and olmlint's configuration (list it in .indexignore so opm skips it too when it
/// lives inside the catalog tree).
fn is_olmlint_file(name: &std::ffi::OsStr) -> bool {
    crate::io::is_temporary(&name.to_string_lossy())
        || name == ".indexignore"
        || super::names::CONFIG_FILES
            .iter()
            .chain([&super::names::FINDINGS_BASELINE])
            .any(|n| name == *n)
}

/// The size of a regular file; `None` for anything else, and for what cannot be read (a
/// problem then).
fn regular_file_size(path: &Path, problems: &mut Vec<IoProblem>) -> Option<u64> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Some(m.len()),
        Ok(_) => None,
        Err(e) => {
            problems.push(IoProblem::unreadable(
                display_path(path),
                format!("cannot read: {e}"),
            ));
            None
        }
    }
}

/// Inside a registry+v1 bundle directory opm reads `manifests/` and `metadata/` only:
/// `bundle.Dockerfile`, `Dockerfile`, `README.md`, `.DS_Store`, `tests/` are not bundle
/// content.
fn is_bundle_content(path: &Path, bundle: &Path) -> bool {
    let first = path
        .strip_prefix(bundle)
        .ok()
        .and_then(|r| r.components().next())
        .map(|c| c.as_os_str().to_owned());
    first.is_some_and(|c| c == "manifests" || c == "metadata")
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

/// `.indexignore` files as opm applies them ([`crate::indexignore`]): go-git's gitignore
/// patterns, each file scoped to its directory, every file below the walked root asked about
/// with the patterns of the `.indexignore` files above it (none above the walked root, which
/// opm does not read), the last matching pattern in opm's order deciding. Read by olmlint
/// rather than by the walker so that one which is a FIFO, a device, a link out of the catalog
/// or huge is reported and skipped instead of read (a pull request controls them).
struct IndexIgnores {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    /// The `.indexignore` files that decide for the files of each directory met.
    cache: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<indexignore::Chain>>>,
    problems: std::sync::Mutex<Vec<IoProblem>>,
}

impl IndexIgnores {
    /// The problems met reading `.indexignore` files.
    fn take_problems(&self) -> Vec<IoProblem> {
        self.problems
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default()
    }

    /// Whether opm skips the file `path` (a path below the root).
    fn ignored(&self, path: &Path) -> bool {
        let (Some(dir), Ok(below)) = (path.parent(), path.strip_prefix(&self.root)) else {
            return false;
        };
        let chain = self.chain(dir);
        if chain.is_empty() {
            return false;
        }
        chain.ignores(&components(below))
    }

    /// The `.indexignore` files that decide for the files of `dir`: its own and those of the
    /// directories above it up to the root, read once per directory. Built downwards from the
    /// nearest directory already known (the walk's parent directory), without recursion:
    /// directories may nest thousands deep.
    fn chain(&self, dir: &Path) -> std::sync::Arc<indexignore::Chain> {
        let mut unknown = Vec::new();
        let mut chain = std::sync::Arc::default();
        if let Ok(cache) = self.cache.lock() {
            for d in dir.ancestors() {
                if let Some(known) = cache.get(d) {
                    chain = std::sync::Arc::clone(known);
                    break;
                }
                if !d.starts_with(&self.root) {
                    break;
                }
                unknown.push(d);
                if d == self.root {
                    break;
                }
            }
        }
        for d in unknown.into_iter().rev() {
            if let Some(file) = self.read(d) {
                chain = std::sync::Arc::new(chain.with(std::sync::Arc::new(file)));
            }
            if let Ok(mut cache) = self.cache.lock() {
                cache.insert(d.to_path_buf(), std::sync::Arc::clone(&chain));
            }
        }
        chain
    }

    fn read(&self, dir: &Path) -> Option<indexignore::IgnoreFile> {
        let file = dir.join(indexignore::FILE_NAME);
        let meta = std::fs::symlink_metadata(&file).ok()?;
        // opm skips a directory of that name.
        if meta.is_dir() {
            return None;
        }
        let problem = |problem: IoProblem| {
            if let Ok(mut p) = self.problems.lock() {
                p.push(problem);
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
                return problem(IoProblem::link(
                    display_path(&file),
                    "symbolic link to a target outside the catalog; not read (its patterns \
                     are not applied)"
                        .into(),
                ));
            }
        }
        let bytes = match crate::io::read_regular(&file, MAX_INDEXIGNORE_SIZE) {
            Ok(b) => b,
            Err(e) => {
                return problem(IoProblem::unreadable(
                    display_path(&file),
                    format!("{e} (its patterns are not applied)"),
                ))
            }
        };
        match indexignore::parse_file(&bytes) {
            Ok(patterns) => {
                let below = dir.strip_prefix(&self.root).unwrap_or(Path::new(""));
                let dir = components(below).into_iter().map(<[u8]>::to_vec).collect();
                Some(indexignore::IgnoreFile::new(dir, patterns))
            }
            Err(line) => problem(IoProblem {
                display: display_path(&file),
                message: format!(
                    "line {line} is 64 KiB or longer: opm stops on this file (\"bufio.Scanner: \
                     token too long\") and reads no catalog; its patterns are not applied"
                ),
                help: "Shorten the line: a pattern that long names no file.",
            }),
        }
    }
}

/// The components of a relative path, as the bytes opm's matcher compares.
fn components(path: &Path) -> Vec<&[u8]> {
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(name) => Some(name.as_encoded_bytes()),
            _ => None,
        })
        .collect()
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

/// The catalog a changed file's surroundings mark (for `--only-files` without a directory;
/// [`crate::discover::changed`] weighs it against discovery), by the first rule that applies
/// (docs/src/changed-since.md, the book's "Linting only what a change touches"):
/// 1. the registry+v1 bundle directory holding it (`metadata/annotations.yaml`), or the
///    operator directory holding that (`ci.yaml` beside its version directories): a bundle
///    is judged with its operator's other versions and channels;
/// 2. when `by_version_name`, the nearest enclosing `vMAJOR.MINOR` directory (a
///    per-OpenShift-version catalog, known by its name alone);
/// 3. the nearest enclosing directory holding `.olmlint.yaml`, `.olmlint.yml` or
///    `.indexignore`;
/// 4. the nearest enclosing operator directory (`ci.yaml` next to bundle directories);
/// 5. the operator directory a deleted file was in, when the whole operator is gone.
///
/// None of them looks above the git work tree.
pub fn marked_root(file: &Path, by_version_name: bool) -> Option<std::path::PathBuf> {
    let abs = crate::io::absolute(file);
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    if let Some(b) = abs.ancestors().skip(1).take(3).find(|a| is_bundle_dir(a)) {
        let operator = b.ancestors().skip(1).take(2).find(|d| is_operator_dir(d));
        return Some(operator.unwrap_or(b).to_path_buf());
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
    if let Some(v) = dir
        .ancestors()
        .take_while(within)
        .find(|d| by_version_name && is_version(d))
    {
        return Some(v.to_path_buf());
    }
    let marked = dir.ancestors().take_while(within).find(|d| {
        super::names::CONFIG_FILES
            .iter()
            .chain(std::iter::once(&".indexignore"))
            .any(|n| d.join(n).is_file())
    });
    if let Some(m) = marked {
        return Some(m.to_path_buf());
    }
    if let Some(op) = dir
        .ancestors()
        .take_while(within)
        .find(|d| is_operator_dir(d))
    {
        return Some(op.to_path_buf());
    }
    // An operator deleted whole (`operators/<name>/` is gone): its directory, which is no
    // catalog any more, never the repository.
    dir.ancestors()
        .take_while(within)
        .find(|d| {
            !d.exists()
                && d.parent().is_some_and(|p| {
                    p.file_name().is_some_and(|n| n == "operators") && holds_operator_dirs(p)
                })
        })
        .map(Path::to_path_buf)
}

/// The catalog of a changed file that nothing marks where discovery finds no catalog: the
/// work tree's top level, else the directory olmlint runs in when it holds the file, else the
/// file's directory.
pub fn enclosing_root(file: &Path) -> std::path::PathBuf {
    let abs = crate::io::absolute(file);
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    if let Some(t) = crate::io::work_tree_top(&dir) {
        return t.to_path_buf();
    }
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

/// The operator repository (a directory whose `operators/` holds operator directories) a
/// linted catalog is in or is: the nearest at or above `root`, within its git work tree.
pub fn operator_repository(root: &Path) -> Option<PathBuf> {
    let abs = crate::io::absolute(root);
    let top = crate::io::work_tree_top(&abs).map(Path::to_path_buf);
    abs.ancestors()
        .take_while(|d| top.as_ref().is_none_or(|t| d.starts_with(t)))
        .take(4)
        .find(|d| repository_parts(d).is_some())
        .map(Path::to_path_buf)
}

/// The operator repository's own `config.yaml` (the pipelines' organization, waivers and
/// allowed registries) for a linted catalog inside it: the nearest directory at or above
/// `root`, within its git work tree, that is an operator repository ([`repository_parts`])
/// and holds `config.yaml` as a regular file (a link is not followed), its real path inside
/// the repository.
pub fn repository_config(root: &Path) -> Option<PathBuf> {
    let config = operator_repository(root)?.join("config.yaml");
    std::fs::symlink_metadata(&config)
        .is_ok_and(|m| m.is_file())
        .then_some(config)
}

/// `ci.yaml` (or `ci.yml`): an operator directory's configuration.
fn is_ci_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "ci.yaml" || n == "ci.yml")
}

/// Whether `dir` is a directory of operator directories (a repository's `operators/`).
pub fn holds_operator_dirs(dir: &Path) -> bool {
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
