//! Discovery, the stage before loading: which catalogs a path given to `olmlint lint` stands
//! for, and why. A catalog is what a repository's build puts into an image, so discovery
//! reads the builds first:
//!
//! 1. a file is itself;
//! 2. an operator repository's root (community-operators-prod, certified-operators) is its
//!    `operators/` and its per-OpenShift-version `catalogs/`;
//! 3. a directory of `vX.Y` catalogs is one catalog per version;
//! 4. the catalog images the repository builds: every Dockerfile/Containerfile that `ADD`s or
//!    `COPY`s into the configs directory ([`dockerfile`]), with the Dockerfile, context and
//!    build arguments of the Konflux pipelines that build it ([`konflux`]); each copied
//!    directory is a catalog (the ones under the given path, or the one holding it);
//! 5. without images, per-OpenShift-release directories under any naming (`v4.16`,
//!    `catalog-4-16`, `product-v4.16`, each a catalog; `v4.16/catalog` when the release
//!    directory holds the catalog beside its template);
//! 6. otherwise the path is one catalog, as `opm validate PATH` reads it.
//!
//! Beside the catalogs (4, 5), the templates and registry+v1 bundle directories under the
//! path are linted too, each on its own. Nothing else of the repository (its README,
//! Makefile, `.github/`, `.tekton/`, scripts) is read as catalog content.

pub mod changed;
pub mod dockerfile;
pub mod konflux;
pub mod siblings;
mod sniff;

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Dockerfiles read, at most, and their largest size.
const MAX_DOCKERFILES: usize = 2_000;
const MAX_DOCKERFILE_SIZE: u64 = 1 << 20;
/// How deep below the repository the walk looks for Dockerfiles, and how many entries it
/// visits at most (a repository with vendored sources has many).
const MAX_DEPTH: usize = 6;
const MAX_ENTRIES: usize = 200_000;
/// Catalogs one unresolved build argument may stand for (`COPY ${INPUT_DIR} /configs`).
const MAX_GLOB_MATCHES: usize = 200;

/// A catalog to lint and why it is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub path: PathBuf,
    pub why: Why,
}

/// Why a path is linted as a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Named on the command line; read as `opm validate` reads it.
    Given,
    /// A part of an operator repository's root (`operators/`, `catalogs/`).
    OperatorRepository,
    /// One of the `vX.Y` catalogs of a directory of per-OpenShift-version catalogs.
    Version,
    /// Copied into a catalog image's configs directory by these builds.
    Image(Vec<Build>),
    /// A per-OpenShift-release catalog (no Dockerfile copies it).
    Release,
    /// A catalog template (linted on its own, paired with the catalogs rendered from it).
    Template,
    /// A registry+v1 bundle directory.
    Bundle,
    /// The catalog holding the path that was given (a part of a catalog is linted whole).
    Holding(PathBuf),
    /// A change-scoped run's catalog: it holds a file the change touches.
    Changed,
    /// Listed under `catalogs:` in `.olmlint.yaml`.
    Configured,
    /// A directory holding a package's documents, in a repository that names no catalog
    /// (no image copies one, no per-release layout).
    Found,
}

/// One image build that copies a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The Dockerfile, and the line of its `ADD`/`COPY`.
    pub dockerfile: PathBuf,
    pub line: usize,
    /// Where the catalog lands in the image (the configs directory or below it).
    pub dest: String,
    /// The Konflux pipeline that builds it, when one does.
    pub pipeline: Option<PathBuf>,
}

/// What discovery decided for one given path.
#[derive(Debug, Default)]
pub struct Discovery {
    pub catalogs: Vec<Planned>,
    /// What the user should know (printed with the summary).
    pub notes: Vec<String>,
}

impl Planned {
    /// One line of the plan: the path and why, paths as displayed (relative to the working
    /// directory).
    pub fn describe(&self) -> String {
        format!("{} ({})", shown(&self.path), self.reason())
    }

    /// Why the path is linted, in words.
    pub fn reason(&self) -> String {
        match &self.why {
            Why::Given => "named on the command line".to_string(),
            Why::OperatorRepository => "part of an operator repository".to_string(),
            Why::Version => "a per-OpenShift-version catalog".to_string(),
            Why::Image(builds) => image_reason(builds),
            Why::Release => "a per-OpenShift-release catalog (no Dockerfile copies it)".into(),
            Why::Template => "catalog template".to_string(),
            Why::Bundle => "registry+v1 bundle directory".to_string(),
            Why::Changed => "holds a changed file".to_string(),
            Why::Configured => "listed under `catalogs:` in .olmlint.yaml".to_string(),
            Why::Found => {
                "holds a package's catalog documents; no Dockerfile names a catalog".into()
            }
            Why::Holding(given) => format!(
                "the catalog holding {}, linted whole",
                crate::display_path(given)
            ),
        }
    }
}

/// "copied to /configs by v4.16/catalog.Dockerfile:10", with the pipeline, and "and N more".
fn image_reason(builds: &[Build]) -> String {
    let Some(first) = builds.first() else {
        return "copied into a catalog image".into();
    };
    let mut s = format!(
        "copied to {} by {}:{}",
        first.dest,
        clean(&first.dockerfile),
        first.line
    );
    if let Some(p) = &first.pipeline {
        s.push_str(&format!(", built by {}", clean(p)));
    }
    if builds.len() > 1 {
        s.push_str(&format!(" and {} more build(s)", builds.len() - 1));
    }
    s
}

/// A path as displayed, without the `./` a walk from `.` puts in front.
fn clean(path: &Path) -> String {
    let shown = crate::display_path(path);
    let mut s = shown.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// The catalogs `path` stands for.
pub fn plan(path: &Path) -> Discovery {
    let mut found = Discovery::default();
    if !path.is_dir() || crate::io::leaves_repository(path) {
        found.catalogs.push(given(path));
        return found;
    }
    if let Some(parts) = crate::walk::repository_parts(path) {
        found.notes.push(format!(
            "{} is an operator repository: linting {}",
            shown(path),
            parts
                .iter()
                .map(|p| crate::display_path(p))
                .collect::<Vec<_>>()
                .join(" and ")
        ));
        for part in parts {
            match crate::walk::version_catalogs(&part) {
                Some(versions) => {
                    found.notes.push(version_note(&part, &versions));
                    found.catalogs.extend(versions.into_iter().map(|v| Planned {
                        path: v,
                        why: Why::Version,
                    }));
                }
                None => found.catalogs.push(Planned {
                    path: part,
                    why: Why::OperatorRepository,
                }),
            }
        }
        return found;
    }
    if let Some(versions) = crate::walk::version_catalogs(path)
        .filter(|vs| !vs.iter().any(|v| sniff::holds_dockerfile(v)))
    {
        found.notes.push(version_note(path, &versions));
        found.catalogs = versions
            .into_iter()
            .map(|v| Planned {
                path: v,
                why: Why::Version,
            })
            .collect();
        return found;
    }
    if is_catalog_itself(path) {
        found.catalogs.push(given(path));
        return found;
    }
    let top = repository(path);
    let images = images(&top);
    let copies_nothing_here = images.missing.clone();
    // A repository that builds catalog images: its builds name the catalogs, nothing else
    // does (release directories are only guessed at where no Dockerfile copies a catalog).
    let builds_images = !images.catalogs.is_empty() || !copies_nothing_here.is_empty();
    let catalogs = images_for(path, images.catalogs);
    if catalogs.is_none()
        && !builds_images
        && !sniff::holds_repository_files(path)
        && sniff::holds_catalog_files(path)
    {
        // Catalog files at the top: the path is one catalog, as opm reads it.
        found.catalogs.push(given(path));
        return found;
    }
    let catalogs = catalogs
        .or_else(|| (!builds_images).then(|| releases(path)).flatten())
        .unwrap_or_default();
    let extra = beside(path, &catalogs);
    found.notes.extend(late_template_notes(path, &catalogs));
    let catalogs = if catalogs.is_empty() {
        if let Some((dockerfile, sources)) = copies_nothing_here.first() {
            found.notes.push(format!(
                "{} copies into a catalog image what is not in the repository ({sources}): built or rendered by the build, it cannot be linted here; lint the build's output, or its templates (linted below when any)",
                crate::display_path(dockerfile),
            ));
        }
        if copies_nothing_here.is_empty() {
            complete_catalogs(path, &extra)
        } else {
            Vec::new()
        }
    } else {
        catalogs
    };
    found.catalogs = catalogs;
    found.catalogs.extend(extra);
    if found.catalogs.is_empty() && copies_nothing_here.is_empty() {
        // Nothing a build or a layout names: the path, as `opm validate` would read it.
        found.catalogs.push(given(path));
    }
    found
}

/// Directories below `path` (two levels at most) that hold a package's documents
/// (`olm.package`), when no build or release layout names the catalogs: each is linted as a
/// catalog; fragments without a package (bare `olm.channel` files a script assembles) are not.
fn complete_catalogs(path: &Path, beside: &[Planned]) -> Vec<Planned> {
    let taken: Vec<PathBuf> = beside.iter().map(|b| b.path.clone()).collect();
    let mut out: Vec<Planned> = Vec::new();
    for dir in subdirectories(path) {
        if taken
            .iter()
            .any(|t| t.starts_with(&dir) || dir.starts_with(t))
        {
            continue;
        }
        if sniff::holds_package(&dir) {
            out.push(Planned {
                path: dir,
                why: Why::Found,
            });
        }
    }
    out
}

fn given(path: &Path) -> Planned {
    Planned {
        path: path.to_path_buf(),
        why: Why::Given,
    }
}

fn shown(path: &Path) -> String {
    let s = crate::display_path(path);
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

fn version_note(path: &Path, versions: &[PathBuf]) -> String {
    format!(
        "{} holds {} OpenShift version catalogs; each is linted as a catalog of its own",
        shown(path),
        versions.len()
    )
}

/// A directory that is a catalog as it stands, needing no discovery: a bundle directory, an
/// operator directory, a directory of operator directories, or one whose files are catalog
/// content only (FBC documents, `.indexignore`, olmlint's configuration) with no Dockerfile,
/// template or bundle below it.
fn is_catalog_itself(path: &Path) -> bool {
    crate::walk::is_bundle_dir(path)
        || crate::walk::is_operator_dir(path)
        || crate::walk::holds_operator_dirs(path)
        || sniff::only_catalog_content(path)
}

/// The repository holding `path`: the top of its git work tree, else `path` itself.
fn repository(path: &Path) -> PathBuf {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let top = crate::io::work_tree_top(&abs).map(Path::to_path_buf);
    match top {
        // The path as given, when the top is the path itself (keeps displayed paths short).
        Some(t) if t == abs => path.to_path_buf(),
        Some(t) => t,
        None => path.to_path_buf(),
    }
}

/// The catalog images a repository builds.
#[derive(Default)]
struct Images {
    /// Every catalog they copy, by path (canonical), with the builds.
    catalogs: BTreeMap<PathBuf, Vec<Build>>,
    /// Dockerfiles whose copies into the configs directory name nothing in the repository
    /// (a catalog rendered by the build, or ignored by git): the file and what it copies.
    missing: Vec<(PathBuf, String)>,
}

/// The catalog images the repository at `top` builds.
fn images(top: &Path) -> Images {
    let Some(canonical_top) = std::fs::canonicalize(top).ok() else {
        return Images::default();
    };
    let pipelines = konflux::pipelines(top);
    let mut out: BTreeMap<PathBuf, Vec<Build>> = BTreeMap::new();
    let mut missing: Vec<(PathBuf, String)> = Vec::new();
    let mut built: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    // The pipelines' builds: Dockerfile, context and arguments as Konflux runs them.
    for p in &pipelines {
        let context = crate::io::lexical(Path::new(""), &top.join(&p.context));
        let Some(file) = [context.join(&p.dockerfile), top.join(&p.dockerfile)]
            .map(|f| crate::io::lexical(Path::new(""), &f))
            .into_iter()
            .find(|f| f.is_file() && crate::io::confined(&canonical_top, f))
        else {
            continue;
        };
        built.insert(std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone()));
        let Some(text) = read_small(top, &file, MAX_DOCKERFILE_SIZE) else {
            continue;
        };
        let (text, prepended) = with_args(&text, &p.args);
        let (found, absent) = copied(&canonical_top, &[context], &file, &text, prepended);
        missing.extend(absent);
        for (catalog, build) in found {
            out.entry(catalog).or_default().push(Build {
                pipeline: Some(p.file.clone()),
                ..build
            });
        }
    }
    // Dockerfiles no pipeline builds: the context is the first directory, from the
    // Dockerfile's own up to the repository, in which what it copies exists.
    for file in dockerfiles(top) {
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if built.contains(&canonical) {
            continue;
        }
        let Some(text) = read_small(top, &file, MAX_DOCKERFILE_SIZE) else {
            continue;
        };
        let contexts: Vec<PathBuf> = file
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(top))
            .map(Path::to_path_buf)
            .collect();
        let (found, absent) = copied(&canonical_top, &contexts, &file, &text, 0);
        missing.extend(absent);
        for (catalog, build) in found {
            out.entry(catalog).or_default().push(build);
        }
    }
    Images {
        catalogs: out,
        missing,
    }
}

/// A Dockerfile's text with `ARG NAME=VALUE` lines for the build arguments first (the
/// reader then resolves `${NAME}` as `--build-arg` would), and how many lines that added.
fn with_args(text: &str, args: &[(String, String)]) -> (String, usize) {
    let mut s = String::new();
    let mut lines = 0;
    for (k, v) in args {
        if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !v.contains('\n') {
            s.push_str(&format!("ARG {k}=\"{v}\"\n"));
            lines += 1;
        }
    }
    s.push_str(text);
    (s, lines)
}

/// A Dockerfile's catalogs, and the sources it copies that are nowhere in the repository.
type Copied = (Vec<(PathBuf, Build)>, Vec<(PathBuf, String)>);

/// The catalogs a Dockerfile copies into its configs directory: each `ADD`/`COPY`'s sources
/// in the first of `contexts` where they exist. Everything one Dockerfile copies there is
/// one catalog (the image's configs directory): the one path copied, or the directory
/// holding them all; except that a source with an unresolved build argument that matches
/// several directories stands for one catalog per match (one per value of the argument).
fn copied(
    canonical_top: &Path,
    contexts: &[PathBuf],
    file: &Path,
    text: &str,
    prepended: usize,
) -> Copied {
    let parsed = dockerfile::parse(text);
    let copies = parsed.catalog_copies();
    let mut missing = Vec::new();
    let mut found: Vec<(Vec<Vec<PathBuf>>, &dockerfile::Copy)> = Vec::new();
    for copy in &copies {
        let matched = contexts.iter().find_map(|context| {
            let matches: Vec<Vec<PathBuf>> = copy
                .sources
                .iter()
                .map(|s| expand(canonical_top, context, s))
                .collect();
            (!matches.iter().all(Vec::is_empty)).then_some(matches)
        });
        match matched {
            // A directory with catalog documents but no bundle (`catalog/parts/` the build
            // renders the rest of the catalog beside) is not the catalog the image holds.
            Some(m)
                if m.iter()
                    .flatten()
                    .all(|p| p.is_dir() && !sniff::holds_complete_catalog(p)) =>
            {
                missing.push((
                    file.to_path_buf(),
                    format!(
                        "{} (no bundle in it: the build completes it)",
                        copy.sources.join(" ")
                    ),
                ));
            }
            Some(m) => found.push((m, copy)),
            None => missing.push((file.to_path_buf(), copy.sources.join(" "))),
        }
    }
    let build = |copy: &dockerfile::Copy, dest: String| Build {
        dockerfile: file.to_path_buf(),
        // The ARG lines [`with_args`] put first are not the Dockerfile's.
        line: copy.line.saturating_sub(prepended).max(1),
        dest,
        pipeline: None,
    };
    let Some((_, first)) = found.first() else {
        return (Vec::new(), missing);
    };
    let per_value = found
        .iter()
        .find(|(m, c)| !c.unresolved.is_empty() && m.iter().any(|v| v.len() > 1));
    let out = match per_value {
        Some((m, copy)) => m
            .iter()
            .flatten()
            .map(|p| (p.clone(), build(copy, copy.dest.clone())))
            .collect(),
        None => {
            let sources: Vec<Vec<PathBuf>> =
                found.iter().flat_map(|(m, _)| m.iter().cloned()).collect();
            let dest = if found.len() == 1 {
                first.dest.clone()
            } else {
                parsed.configs_dir()
            };
            catalogs_of(&sources)
                .into_iter()
                .map(|p| (p, build(first, dest.clone())))
                .collect()
        }
    };
    (out, missing)
}

/// The catalog several copied paths make: the one path, or the directory holding them all.
fn catalogs_of(matches: &[Vec<PathBuf>]) -> Vec<PathBuf> {
    let all: Vec<&PathBuf> = matches.iter().flatten().collect();
    match all.as_slice() {
        [] => Vec::new(),
        [one] => vec![(*one).clone()],
        [first, ..] => {
            let mut common = first.parent().map(Path::to_path_buf).unwrap_or_default();
            while !all.iter().all(|p| p.starts_with(&common)) {
                if !common.pop() {
                    break;
                }
            }
            vec![common]
        }
    }
}

/// A source of `ADD`/`COPY`, in `context`: the paths it names that exist inside the
/// repository (canonical). Unresolved arguments and wildcards match names of the directory
/// they are in; only matches that hold catalog content count.
fn expand(canonical_top: &Path, context: &Path, source: &str) -> Vec<PathBuf> {
    let Some(relative) = relative_source(source) else {
        return Vec::new();
    };
    let mut here = vec![context.to_path_buf()];
    let pattern_parts = relative.split('/').filter(|p| !p.is_empty() && *p != ".");
    let mut wild = false;
    for part in pattern_parts {
        let is_glob = part.contains(['*', '?', '[']);
        wild |= is_glob;
        let mut next = Vec::new();
        for dir in &here {
            if is_glob {
                let Ok(glob) = globset::Glob::new(part) else {
                    continue;
                };
                let matcher = glob.compile_matcher();
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                let mut names: Vec<PathBuf> = entries
                    .flatten()
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter(|e| matcher.is_match(e.file_name()))
                    .map(|e| e.path())
                    .collect();
                names.sort();
                next.extend(names);
            } else {
                next.push(dir.join(part));
            }
            if next.len() > MAX_GLOB_MATCHES {
                break;
            }
        }
        here = next;
    }
    here.into_iter()
        .filter(|p| p.exists() && crate::io::confined(canonical_top, p))
        .filter(|p| !wild || sniff::holds_complete_catalog(p))
        .filter_map(|p| std::fs::canonicalize(&p).ok())
        .take(MAX_GLOB_MATCHES)
        .collect()
}

/// A source as a relative path inside the context; `None` when it climbs out of it.
fn relative_source(source: &str) -> Option<String> {
    let trimmed = source.trim_start_matches('/');
    let path = Path::new(trimmed);
    if path
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return None;
    }
    let s = trimmed.trim_end_matches('/');
    Some(if s.is_empty() {
        ".".into()
    } else {
        s.to_string()
    })
}

/// The catalogs of `images` that concern `path`: those below it, else the one holding it.
/// `None` when the repository builds no catalog image, or none of its catalogs is below or
/// around `path`.
fn images_for(path: &Path, images: BTreeMap<PathBuf, Vec<Build>>) -> Option<Vec<Planned>> {
    if images.is_empty() {
        return None;
    }
    let canonical = std::fs::canonicalize(path).ok()?;
    let below: Vec<Planned> = images
        .iter()
        .filter(|(c, _)| c.starts_with(&canonical))
        .map(|(c, builds)| Planned {
            path: shorten(path, &canonical, c),
            why: Why::Image(builds.clone()),
        })
        .collect();
    if !below.is_empty() {
        return Some(below);
    }
    let (holding, _) = images
        .iter()
        .filter(|(c, _)| canonical.starts_with(c))
        .max_by_key(|(c, _)| c.components().count())?;
    Some(vec![Planned {
        path: holding.clone(),
        why: Why::Holding(path.to_path_buf()),
    }])
}

/// `target` (canonical, below `canonical`) written from `path` as the user wrote it, so that
/// reports show `v4.16/catalog`, not an absolute path.
fn shorten(path: &Path, canonical: &Path, target: &Path) -> PathBuf {
    match target.strip_prefix(canonical) {
        Ok(rest) if rest.as_os_str().is_empty() => path.to_path_buf(),
        Ok(rest) if path == Path::new(".") => rest.to_path_buf(),
        Ok(rest) => path.join(rest),
        Err(_) => target.to_path_buf(),
    }
}

/// Per-OpenShift-release catalogs below `path` when no image copies any: directories one or
/// two levels down whose name carries a release (`v4.16`, `catalog-4-16`, `product-v4.16`)
/// and that hold catalog content; a release directory's `catalog/` is the catalog when it
/// has one (the template sits beside it).
fn releases(path: &Path) -> Option<Vec<Planned>> {
    let mut out = Vec::new();
    for dir in subdirectories(path)
        .into_iter()
        .flat_map(|d| std::iter::once(d.clone()).chain(subdirectories(&d)))
    {
        let named = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(release_of)
            .is_some();
        if !named || out.iter().any(|p: &Planned| dir.starts_with(&p.path)) {
            continue;
        }
        let inner = dir.join("catalog");
        let catalog = if inner.is_dir() && sniff::holds_catalog_content(&inner) {
            inner
        } else if sniff::holds_catalog_content(&dir) {
            dir
        } else {
            continue;
        };
        out.push(Planned {
            path: catalog,
            why: Why::Release,
        });
    }
    (!out.is_empty()).then_some(out)
}

/// The directories directly in `dir`, sorted, links and hidden ones left out.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// The OpenShift release a name carries: `4.16`, `4-16` or `4_16` (major 4 or 5), alone or
/// after a `v` or a separator (`v4.16`, `catalog-4-16`, `coo-product-v4.16`, `ocp4.16`).
pub fn release_of(name: &str) -> Option<(u32, u32)> {
    let b = name.as_bytes();
    for i in 0..b.len() {
        let major = *b.get(i)?;
        if !(major == b'4' || major == b'5') {
            continue;
        }
        if i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let Some(&sep) = b.get(i + 1) else { continue };
        if !matches!(sep, b'.' | b'-' | b'_') {
            continue;
        }
        let digits: Vec<u8> = b
            .get(i + 2..)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .copied()
            .collect();
        if digits.is_empty() || digits.len() > 2 {
            continue;
        }
        // Not a longer version (`4.16.1` is a bundle's, not a release's).
        let after = b.get(i + 2 + digits.len());
        if after == Some(&b'.') || after == Some(&sep) && sep != b'-' {
            continue;
        }
        let minor = std::str::from_utf8(&digits).ok()?.parse().ok()?;
        return Some((u32::from(major - b'0'), minor));
    }
    None
}

/// Notes for files holding a template document after other documents (at most three named).
fn late_template_notes(path: &Path, catalogs: &[Planned]) -> Vec<String> {
    let roots: Vec<PathBuf> = catalogs
        .iter()
        .filter_map(|c| std::fs::canonicalize(&c.path).ok())
        .collect();
    let late = sniff::late_templates(path, &roots);
    let Some(first) = late.first() else {
        return Vec::new();
    };
    let more = match late.len() {
        1 => String::new(),
        n => format!(" (and {} more file(s))", n - 1),
    };
    vec![format!(
        "{}{more} holds a template document after other documents: not linted as a template or a catalog. opm 1.44 and later read only a template file's first document, so `opm alpha render-template` does not see this template; put the template first (or in a file of its own) if opm is to render it",
        clean(first)
    )]
}

/// What is linted beside the catalogs under `path`: the templates and the registry+v1 bundle
/// directories outside them.
fn beside(path: &Path, catalogs: &[Planned]) -> Vec<Planned> {
    let roots: Vec<PathBuf> = catalogs
        .iter()
        .filter_map(|c| std::fs::canonicalize(&c.path).ok())
        .collect();
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    sniff::templates_and_bundles(path, &roots)
        .into_iter()
        .map(|(p, is_bundle)| Planned {
            path: std::fs::canonicalize(&p)
                .map(|c| shorten(path, &canonical, &c))
                .unwrap_or(p),
            why: if is_bundle {
                Why::Bundle
            } else {
                Why::Template
            },
        })
        .collect()
}

/// The Dockerfiles and Containerfiles of the repository, in path order: a bounded walk that
/// follows no link and skips version control and vendored trees.
fn dockerfiles(top: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let walk = ignore::WalkBuilder::new(top)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH))
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_some_and(|t| t.is_dir())
                && matches!(
                    &*name,
                    ".git" | ".hg" | ".svn" | "node_modules" | "vendor" | "third_party" | "target"
                ))
        })
        .build();
    for (n, entry) in walk.flatten().enumerate() {
        if n >= MAX_ENTRIES || out.len() >= MAX_DOCKERFILES {
            break;
        }
        if entry.file_type().is_some_and(|t| t.is_file())
            && dockerfile::is_dockerfile_name(&entry.file_name().to_string_lossy())
        {
            out.push(entry.into_path());
        }
    }
    out
}

/// The text of a small regular file inside `top` (no link out of it, no FIFO), at most
/// `max` bytes; `None` otherwise.
pub(crate) fn read_small(top: &Path, path: &Path, max: u64) -> Option<String> {
    use std::io::Read as _;
    let canonical_top = std::fs::canonicalize(top).ok()?;
    if !crate::io::confined(&canonical_top, path) {
        return None;
    }
    let (file, meta) = crate::io::open_regular(path).ok()?;
    if meta.len() > max {
        return None;
    }
    let mut text = String::new();
    file.take(max).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_in_names() {
        for (name, want) in [
            ("v4.16", Some((4, 16))),
            ("catalog-4-16", Some((4, 16))),
            ("coo-product-v4.22", Some((4, 22))),
            ("opentelemetry-product-4.17", Some((4, 17))),
            ("v5.0", Some((5, 0))),
            ("ocp4_18", Some((4, 18))),
            ("operator.v4.16.1", None),
            ("catalog", None),
            ("v14.16", None),
            ("4.123", None),
        ] {
            assert_eq!(release_of(name), want, "{name}");
        }
    }

    #[test]
    fn sources_that_climb_out_are_refused() {
        assert_eq!(relative_source("catalog/"), Some("catalog".into()));
        assert_eq!(relative_source("./"), Some(".".into()));
        assert_eq!(relative_source("/catalog"), Some("catalog".into()));
        assert_eq!(relative_source("../other"), None);
        assert_eq!(relative_source("a/../../b"), None);
    }

    #[test]
    fn several_sources_are_one_catalog() {
        let m = vec![
            vec![PathBuf::from("/r/catalog/.indexignore")],
            vec![PathBuf::from("/r/catalog/catalog.json")],
        ];
        assert_eq!(catalogs_of(&m), vec![PathBuf::from("/r/catalog")]);
        let one = vec![vec![PathBuf::from("/r/a/x"), PathBuf::from("/r/b")]];
        assert_eq!(catalogs_of(&one), vec![PathBuf::from("/r")]);
    }
}
