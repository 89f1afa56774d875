//! Looks at names and at the first bytes of files, never parses them: enough to tell catalog
//! content, templates and bundle directories apart while discovery decides what to load.

use std::path::{Path, PathBuf};

/// Bytes of a file looked at, and at most when those show no schema key.
const PEEK: u64 = 16 * 1024;
const MAX_SCAN: u64 = 4 << 20;
/// Files looked at per question, at most, and how deep.
const MAX_FILES: usize = 400;
const MAX_DEPTH: usize = 5;
/// Largest template file considered.
const MAX_TEMPLATE_SIZE: u64 = 16 << 20;

/// The schemas of catalog content (opm's `olm.*` documents).
const CATALOG_SCHEMAS: [&str; 4] = [
    "olm.package",
    "olm.channel",
    "olm.bundle",
    "olm.deprecations",
];
/// The schemas of catalog templates (opm's render-template reads the first document).
const TEMPLATE_SCHEMAS: [&str; 2] = ["olm.template.basic", "olm.semver"];

/// The values of the `schema` keys in `text` (`Schema` too, as opm's docs write templates),
/// in order: JSON (`"schema": "olm.package"`) or YAML (`schema: olm.package`).
fn schemas(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = find_key(b.get(at..)?) {
            let start = at + found;
            at = start + 6;
            // A key: at a line's start (after indentation or `- `), or after `{`/`,`/`"`.
            let before = b.get(..start).unwrap_or(&[]);
            let key_start = before
                .iter()
                .rev()
                .find(|c| !matches!(c, b' ' | b'\t' | b'"'))
                .is_none_or(|c| matches!(c, b'\n' | b'{' | b',' | b'-'));
            if !key_start {
                continue;
            }
            let rest = b.get(at..).unwrap_or(&[]);
            let rest = skip(rest, b"\" \t");
            let Some(rest) = rest.strip_prefix(b":") else {
                continue;
            };
            let rest = skip(rest, b" \t\"'");
            let len = rest
                .iter()
                .position(|c| matches!(c, b'"' | b'\'' | b'\n' | b'\r' | b' ' | b',' | b'}' | b'#'))
                .unwrap_or(rest.len());
            let value = std::str::from_utf8(rest.get(..len).unwrap_or(&[])).ok()?;
            return Some(value);
        }
        None
    })
}

fn find_key(b: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(b, b"chema")
        .find(|&i| i > 0 && matches!(b.get(i - 1), Some(b's' | b'S')))
        .map(|i| i - 1)
}

fn skip<'a>(b: &'a [u8], set: &[u8]) -> &'a [u8] {
    let n = b.iter().take_while(|c| set.contains(c)).count();
    b.get(n..).unwrap_or(&[])
}

/// The first bytes of a regular file (no link, no FIFO): [`PEEK`] bytes, or up to
/// [`MAX_SCAN`] when no schema key shows in those (opm writes a package's `icon`, often
/// hundreds of KB of base64, before its `schema`).
fn peek(path: &Path) -> Option<String> {
    use std::io::Read as _;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let (mut file, _) = crate::io::open_regular(path).ok()?;
    let mut buf = Vec::new();
    (&mut file).take(PEEK).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    if schemas(&text).next().is_some() || (buf.len() as u64) < PEEK {
        return Some(text);
    }
    file.take(MAX_SCAN - PEEK).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

fn is_data_file(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| matches!(x, "yaml" | "yml" | "json"))
}

/// The first YAML document of `text` (up to a `---` line after some content); a JSON
/// stream's first object is not split off, which only matters for templates, whose schema
/// key a JSON template then shows anywhere in its object.
fn first_document(text: &str) -> &str {
    let mut offset = 0;
    let mut content = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("---") && content {
            return text.get(..offset).unwrap_or(text);
        }
        content |= !line.trim().is_empty()
            && !line.trim_start().starts_with('#')
            && !line.starts_with("---");
        offset += line.len();
    }
    text
}

/// Whether `text` (a file's first bytes) is a template's: its first document has a template
/// schema (opm reads only that document; the `olm.package`, `olm.channel` items of its
/// `entries` are not catalog documents).
fn is_template_text(text: &str) -> bool {
    let first = first_document(text);
    schemas(first).any(|s| TEMPLATE_SCHEMAS.contains(&s)) || entries_with_schemas(first)
}

/// A YAML document whose top-level `entries` items carry `schema` keys: a basic template
/// whose `schema` key comes after its entries (keys sorted) beyond the bytes looked at. A
/// channel's entries never have a schema.
fn entries_with_schemas(doc: &str) -> bool {
    let mut in_entries = false;
    for line in doc.lines() {
        let top_level = !line.starts_with([' ', '\t', '-', '#']) && !line.trim().is_empty();
        if top_level {
            in_entries = line.trim_end() == "entries:";
            continue;
        }
        if in_entries {
            let item = line.trim_start().trim_start_matches('-').trim_start();
            if item.starts_with("schema: olm.") || item.starts_with("schema: \"olm.") {
                return true;
            }
        }
    }
    false
}

/// Whether a file holds catalog documents (`olm.package`, `olm.channel`, `olm.bundle`,
/// `olm.deprecations`) and is no template.
fn is_catalog_file(path: &Path) -> bool {
    is_data_file(path)
        && peek(path).is_some_and(|t| {
            !is_template_text(&t) && schemas(&t).any(|s| CATALOG_SCHEMAS.contains(&s))
        })
}

/// Whether a file is a catalog template.
pub fn is_template_file(path: &Path) -> bool {
    is_data_file(path)
        && std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_TEMPLATE_SIZE)
        && peek(path).is_some_and(|t| is_template_text(&t))
}

/// Whether `path` (a file or a directory, looked at to a bounded depth) holds catalog
/// documents.
pub fn holds_catalog_content(path: &Path) -> bool {
    if path.is_file() {
        return is_catalog_file(path);
    }
    walk(path, &[])
        .into_iter()
        .filter(|(_, is_dir)| !is_dir)
        .take(MAX_FILES)
        .any(|(p, _)| is_catalog_file(&p))
}

/// Whether a directory holds YAML or JSON files at its top level (not in subdirectories)
/// that opm would read as catalog documents: neither templates nor olmlint's own files.
pub fn holds_catalog_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            e.file_type().is_ok_and(|t| t.is_file())
                && is_data_file(&e.path())
                && !crate::names::CONFIG_FILES.contains(&&*name)
                && name != crate::names::FINDINGS_BASELINE
                && !is_template_file(&e.path())
        })
    })
}

/// Whether a directory holds a Dockerfile or Containerfile at its top level.
pub fn holds_dockerfile(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.file_type().is_ok_and(|t| t.is_file())
                && super::dockerfile::is_dockerfile_name(&e.file_name().to_string_lossy())
        })
    })
}

/// Whether a directory (looked at to a bounded depth) holds a package's documents
/// (`olm.package`): a catalog, not fragments of one.
pub fn holds_package(dir: &Path) -> bool {
    holds_all(dir, &["olm.package"])
}

/// Whether `path` holds a catalog that names a package and a bundle (not a fragment: a
/// `parts/` file with the package alone is what a build assembles a catalog from).
pub fn holds_complete_catalog(path: &Path) -> bool {
    holds_all(path, &["olm.package", "olm.bundle"])
}

/// Whether the catalog files at or below `path` hold documents of every one of `wanted`.
fn holds_all(path: &Path, wanted: &[&str]) -> bool {
    let files: Vec<PathBuf> = if path.is_file() {
        vec![path.to_path_buf()]
    } else {
        walk(path, &[])
            .into_iter()
            .filter(|(p, is_dir)| !is_dir && is_data_file(p))
            .map(|(p, _)| p)
            .take(MAX_FILES)
            .collect()
    };
    let mut missing: Vec<&str> = wanted.to_vec();
    for f in files.iter().filter(|f| is_catalog_file(f)) {
        // Larger than what is looked at: what it holds beyond is not known; a catalog file
        // that large is taken to hold every kind of document.
        if std::fs::metadata(f).is_ok_and(|m| m.len() > PEEK) {
            return true;
        }
        if let Some(text) = peek(f) {
            let seen: Vec<&str> = schemas(&text).collect();
            missing.retain(|w| !seen.contains(w));
        }
        if missing.is_empty() {
            return true;
        }
    }
    false
}

/// The patterns of a directory's own `.indexignore` (none when it has none or it is
/// unreadable).
fn own_indexignore(dir: &Path) -> crate::indexignore::Chain {
    let chain = crate::indexignore::Chain::default();
    let Some(text) = super::read_small(dir, &dir.join(".indexignore"), 1 << 20) else {
        return chain;
    };
    match crate::indexignore::parse_file(text.as_bytes()) {
        Ok(patterns) => chain.with(std::sync::Arc::new(crate::indexignore::IgnoreFile::new(
            Vec::new(),
            patterns,
        ))),
        Err(_) => chain,
    }
}

/// Whether a directory is a catalog as it stands, by the names at its top level: nothing a
/// repository or a build has (a Dockerfile, a Makefile, a README, a licence, scripts,
/// `.git`, `.github`, `.tekton`, Go or Python sources), no per-release directory and no
/// template file beside the content. (Bundle directories are content: a directory of them is
/// a catalog of registry+v1 bundles.)
pub fn only_catalog_content(dir: &Path) -> bool {
    top_level(dir).is_none_or(|t| !t.repository && !t.releases && !t.templates)
}

/// What the top level of a directory holds, beside catalog content.
struct TopLevel {
    /// Something a repository or a build has: a Dockerfile, a Makefile, a README, a licence,
    /// scripts, `.git`, `.github`, `.tekton`, Go or Python sources.
    repository: bool,
    /// A directory named after an OpenShift release.
    releases: bool,
    /// A template file.
    templates: bool,
}

/// Whether a directory holds what a repository or a build has at its top level (see
/// [`TopLevel::repository`]).
pub fn holds_repository_files(dir: &Path) -> bool {
    top_level(dir).is_some_and(|t| t.repository)
}

fn top_level(dir: &Path) -> Option<TopLevel> {
    let entries = std::fs::read_dir(dir).ok()?;
    let ignore = own_indexignore(dir);
    let mut top = TopLevel {
        repository: false,
        releases: false,
        templates: false,
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        // What the directory's own `.indexignore` leaves out, opm does not read either.
        if is_file && ignore.ignores(&[name.as_bytes()]) {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            top.repository |= matches!(&*lower, ".git" | ".github" | ".tekton" | ".konflux");
            top.releases |= super::release_of(&name).is_some();
            continue;
        }
        top.repository |= super::dockerfile::is_dockerfile_name(&name)
            || lower == "makefile"
            || lower.starts_with("readme")
            || lower.starts_with("license")
            || lower.starts_with("licence")
            || matches!(
                lower.rsplit('.').next(),
                Some("md" | "sh" | "go" | "py" | "mk")
            )
            || matches!(&*lower, "go.mod" | "project" | "owners" | "renovate.json");
        top.templates |= is_template_file(&e.path());
    }
    Some(top)
}

/// Files under `path` outside `roots` that hold a template document after other documents
/// (bare `olm.channel` documents some repositories feed to scripts, then the template): opm
/// ≥ 1.44 reads only a template file's first document, so it does not see a template there.
pub fn late_templates(path: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    walk(path, roots)
        .into_iter()
        .filter(|(p, is_dir)| !is_dir && is_data_file(p))
        .take(MAX_FILES)
        .map(|(p, _)| p)
        .filter(|p| {
            peek(p).is_some_and(|t| {
                !is_template_text(&t) && schemas(&t).any(|s| TEMPLATE_SCHEMAS.contains(&s))
            })
        })
        .collect()
}

/// The templates and the bundle directories under `path`, outside `roots` (canonical
/// catalog roots) and test data (`test/`, `tests/`, `testdata/`, `fixtures/`): `(path,
/// is_bundle)` in path order.
pub fn templates_and_bundles(path: &Path, roots: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let mut bundles: Vec<PathBuf> = Vec::new();
    for (p, is_dir) in walk(path, roots) {
        if bundles.iter().any(|b| p.starts_with(b)) {
            continue;
        }
        // Test data of the repository's own scripts is not what it ships.
        let in_tests = p.strip_prefix(path).unwrap_or(&p).components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("test" | "tests" | "testdata" | "fixtures")
            )
        });
        if in_tests {
            continue;
        }
        if is_dir {
            if crate::walk::is_bundle_dir(&p) {
                bundles.push(p.clone());
                out.push((p, true));
            }
        } else if is_template_file(&p) {
            out.push((p, false));
        }
    }
    out
}

/// Entries below `dir` in path order, `(path, is_dir)`: bounded, no link followed, version
/// control, CI configuration, vendored trees and `skip` (canonical) left out.
fn walk(dir: &Path, skip: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let skip = skip.to_vec();
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH))
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            let name = e.file_name().to_string_lossy();
            !(is_dir
                && (matches!(
                    &*name,
                    ".git" | ".github" | ".tekton" | "node_modules" | "vendor" | "target"
                ) || std::fs::canonicalize(e.path()).is_ok_and(|c| skip.contains(&c))))
        })
        .build()
        .flatten()
        .skip(1)
        .take(MAX_FILES * 25)
        .map(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            (e.into_path(), is_dir)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_values_in_json_and_yaml() {
        let json = "{\"schema\":\"olm.package\",\"name\":\"x\"}\n{ \"schema\" : \"olm.bundle\" }";
        assert_eq!(
            schemas(json).collect::<Vec<_>>(),
            ["olm.package", "olm.bundle"]
        );
        let yaml = "---\nschema: olm.channel\nentries:\n- name: a\n---\nSchema: olm.semver\n";
        assert_eq!(
            schemas(yaml).collect::<Vec<_>>(),
            ["olm.channel", "olm.semver"]
        );
        let not = "description: the schema: olm.package is\nmyschema: olm.bundle\n";
        assert_eq!(schemas(not).count(), 0);
        let list = "entries:\n  - schema: olm.bundle\n";
        assert_eq!(schemas(list).collect::<Vec<_>>(), ["olm.bundle"]);
    }

    #[test]
    fn templates_by_their_first_document() {
        // The schema key after the entries (keys sorted), and capitalised.
        assert!(is_template_text(
            "entries:\n- schema: olm.package\n  name: x\nschema: olm.template.basic\n"
        ));
        assert!(is_template_text(
            "Schema: olm.semver\nGenerateMajorChannels: true\n"
        ));
        assert!(is_template_text(
            "{\"entries\": [{\"schema\": \"olm.package\"}], \"schema\": \"olm.template.basic\"}"
        ));
        // Bare channel documents first: opm reads no template there.
        assert!(!is_template_text(
            "---\nschema: olm.channel\nname: a\n---\nschema: olm.template.basic\n"
        ));
        assert!(!is_template_text("schema: olm.package\nname: x\n"));
        // Its schema key beyond the first bytes: the entries tell.
        assert!(is_template_text(
            "entries:\n- defaultChannel: a\n  icon:\n    base64data: AAAA\n  schema: olm.package\n"
        ));
        assert!(!is_template_text("entries:\n- name: a.v1\n  replaces: a.v0\nname: stable\npackage: a\nschema: olm.channel\n"));
    }
}
