//! Stage 1: find files the way `opm` walks a catalog, read them, and parse every document into
//! a spanned tree. Parsing runs in parallel; results come back sorted by path.
// Long functions are split into named stages; clippy.toml sets the threshold (unit tests exempt).
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod discover;
pub mod findings;
pub mod fix;
pub mod git;
pub mod indexignore;
pub mod io;
pub use olmlint_base::{source, text, tree};

mod elide;
pub mod json;
mod lenient;
pub mod names;
pub mod overlay;
pub mod scalar;
pub mod walk;
pub mod yaml;
pub mod yaml_subset;

#[cfg(test)]
mod tree_tests;

use rayon::prelude::*;
use source::SourceFile;
use std::path::{Path, PathBuf};
use tree::{Node, Span};

/// Input limits. Every one of them is configurable in `.olmlint.yaml` under `limits:`.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Nested containers per document (Go's JSON decoder stops at 10000).
    pub max_depth: usize,
    /// Nodes that YAML aliases may expand to, per file (all its documents together); the
    /// whole run may expand to [`RUN_ALIAS_FACTOR`] times as many.
    pub max_alias_nodes: u64,
    /// Bytes of keys and strings that YAML aliases may copy, per file; the run, again
    /// [`RUN_ALIAS_FACTOR`] times as many.
    pub max_alias_bytes: u64,
    /// Largest file read, in bytes.
    pub max_file_size: u64,
    /// Tree nodes one file (JSON) or one document (YAML) may build: bounds memory, since a
    /// node costs ~50–75 bytes however few bytes of input it takes (`[1],` is 4).
    pub max_nodes: u64,
    /// What aliases have expanded to in this run, over all files: shared by the clones of
    /// one run's limits.
    pub run_expansion: std::sync::Arc<Expansion>,
    /// An editor's unsaved buffers, read in place of the files at their paths.
    pub overlay: Option<std::sync::Arc<overlay::Overlay>>,
}

/// The run-wide alias budgets are this many times the per-file ones: many files each just
/// under their own limit must not add up to an alias bomb.
pub const RUN_ALIAS_FACTOR: u64 = 4;

/// What YAML aliases expanded to: tree nodes and bytes of keys and strings copied.
#[derive(Debug, Default)]
pub struct Expansion {
    nodes: std::sync::atomic::AtomicU64,
    bytes: std::sync::atomic::AtomicU64,
}

impl Expansion {
    /// Adds an expansion; the totals after it.
    pub fn add(&self, nodes: u64, bytes: u64) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.nodes.fetch_add(nodes, Relaxed).saturating_add(nodes),
            self.bytes.fetch_add(bytes, Relaxed).saturating_add(bytes),
        )
    }

    /// Gives back an expansion that was dropped.
    pub fn sub(&self, nodes: u64, bytes: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.nodes.fetch_sub(nodes, Relaxed);
        self.bytes.fetch_sub(bytes, Relaxed);
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 10_000,
            max_alias_nodes: 1_000_000,
            max_alias_bytes: 16 << 20,
            max_file_size: 64 << 20,
            max_nodes: 8_000_000,
            run_expansion: Default::default(),
            overlay: None,
        }
    }
}

/// A problem found while reading or parsing; becomes a diagnostic of `rule`.
#[derive(Clone, Debug)]
pub struct LoadProblem {
    pub rule: &'static str,
    pub span: Span,
    pub message: String,
    pub help: String,
}

impl LoadProblem {
    pub fn syntax(span: Span, message: String, help: &str) -> Self {
        LoadProblem {
            rule: "OLM001",
            span,
            message,
            help: help.to_string(),
        }
    }
    pub fn limit(span: Span, message: String, help: &str) -> Self {
        LoadProblem {
            rule: "OLM001",
            span,
            message,
            help: help.to_string(),
        }
    }
}

/// One document of a stream. `root` is `None` when the document has no content or failed.
#[derive(Debug)]
pub struct RawDoc {
    pub index: usize,
    pub span: Span,
    pub root: Option<Node>,
    pub failed: bool,
    /// Some mapping of the document repeats a key; the model then finds and reports them.
    pub repeated_keys: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

/// What role a file plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A file of a file-based catalog.
    Fbc,
    /// A file inside a registry+v1 bundle directory rooted at the given path.
    Bundle(PathBuf),
    /// The `.olmlint.yaml` configuration file (loaded so its mistakes have positions).
    Config,
    /// A file of an operator directory's `catalog-templates/`: the input of `opm alpha
    /// render-template` and data it includes (icons). Parsed, so syntax errors are reported;
    /// not catalog content (the catalog is what the templates render to).
    Template,
    /// An operator directory's `ci.yaml` (`updateGraph`, `fbc`, reviewers): read as the
    /// operator's configuration, schema-checked, not catalog content.
    OperatorConfig,
    /// A bundle directory's `release-config.yaml` in an operator directory: the FBC release
    /// automation's input (which catalog templates the bundle is added to), not catalog
    /// content.
    ReleaseConfig,
}

#[derive(Debug)]
pub struct LoadedFile {
    pub source: SourceFile,
    /// Which catalog (command-line path) the file belongs to.
    pub scope: usize,
    pub format: Format,
    pub role: Role,
    pub docs: Vec<RawDoc>,
    pub problems: Vec<LoadProblem>,
    /// A JSON document embedded in a string of this file (a CSV's `olm.properties`
    /// annotation), parsed by the model on first use.
    pub embedded: std::sync::OnceLock<Embedded>,
}

/// A JSON document held in a string scalar of a file.
#[derive(Debug)]
pub struct Embedded {
    /// The string scalar in the file.
    pub span: Span,
    /// The decoded document, every node's span pointing at the string (so findings land on
    /// it), or why it does not decode.
    pub root: Result<Node, String>,
    /// The string's text, and the same document with spans into that text.
    pub text: String,
    pub original: Option<Node>,
}

impl Embedded {
    /// How `node` (a node of `root`) is written in the string.
    pub fn source_of(&self, node: &Node) -> Option<&str> {
        let mut stack = vec![(self.root.as_ref().ok()?, self.original.as_ref()?)];
        while let Some((a, b)) = stack.pop() {
            if std::ptr::eq(a, node) {
                return self.text.get(b.span.start()..b.span.end());
            }
            match (&a.value, &b.value) {
                (tree::Value::Seq(x), tree::Value::Seq(y)) => stack.extend(x.iter().zip(y)),
                (tree::Value::Map(x), tree::Value::Map(y)) => {
                    stack.extend(x.iter().zip(y).map(|(e, f)| (&e.value, &f.value)));
                }
                _ => {}
            }
        }
        None
    }
}

/// An I/O problem for a path that could not be read at all.
#[derive(Clone, Debug)]
pub struct IoProblem {
    pub display: String,
    pub message: String,
    /// What the user can do about it (the finding's help).
    pub help: &'static str,
}

impl IoProblem {
    /// A file or directory that could not be read.
    pub fn unreadable(display: String, message: String) -> Self {
        IoProblem {
            display,
            message,
            help: "The file could not be read; fix its permissions or remove it from the catalog.",
        }
    }

    /// A symbolic link whose target leaves what olmlint may read: never followed.
    pub fn link(display: String, message: String) -> Self {
        IoProblem {
            display,
            message,
            help: "A pull request controls the repository's links, so olmlint never follows one \
                   out of the catalog or repository. Commit the file itself in place of the link, \
                   or point the link at a file inside.",
        }
    }
}

pub struct Loaded {
    pub files: Vec<LoadedFile>,
    pub io_problems: Vec<IoProblem>,
}

/// What the loader builds of catalog files.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Build {
    /// What the rules read: collections nested in `olm.csv.metadata` values stay
    /// [`Value::Elided`](tree::Value::Elided) (see `elide.rs`). What `olmlint lint` uses.
    ForRules,
    /// Every value, for tools that convert or print whole documents.
    Everything,
}

/// Walk `paths`, read and parse every file in parallel, building what the rules read.
pub fn load(paths: &[PathBuf], limits: &Limits) -> Loaded {
    load_building(paths, limits, Build::ForRules)
}

/// [`load`], choosing what to build.
pub fn load_building(paths: &[PathBuf], limits: &Limits, build: Build) -> Loaded {
    let mut io_problems = Vec::new();
    let mut found = Vec::new();
    for (scope, p) in paths.iter().enumerate() {
        walk::collect(p, scope, &mut found, &mut io_problems);
    }
    found.sort_by(|a, b| a.display.cmp(&b.display));
    found.dedup_by(|a, b| a.path == b.path);
    // Largest first keeps both cores busy to the end, with every file a task of its own:
    // split only as far as rayon splits by default (a few ranges of files), one core read
    // community-v4.18's eight largest files in a row while the other waited (issue #44).
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(found.get(i).map_or(0, |f| f.size)));
    let mut results: Vec<(usize, Result<LoadedFile, IoProblem>)> = order
        .par_iter()
        .with_max_len(1)
        .filter_map(|&i| {
            found
                .get(i)
                .map(|f| (i, load_file_isolated(f, limits, build)))
        })
        .collect();
    results.sort_by_key(|(i, _)| *i);
    let mut files = Vec::with_capacity(results.len());
    for (_, r) in results {
        match r {
            Ok(f) => files.push(f),
            Err(p) => io_problems.push(p),
        }
    }
    Loaded { files, io_problems }
}

/// [`load_file`], with a panic (a bug) confined to the file: the others are still linted.
fn load_file_isolated(
    f: &walk::Found,
    limits: &Limits,
    build: Build,
) -> Result<LoadedFile, IoProblem> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load_file(f, limits, build))).unwrap_or_else(
        |_| {
            Err(IoProblem {
                display: f.display.clone(),
                message: "internal error while parsing this file (an olmlint bug; please report it with the file); the other files were linted".into(),
                help: "Please report it at https://github.com/olmlint/olmlint/issues with the file (or a reduced copy).",
            })
        },
    )
}

fn load_file(f: &walk::Found, limits: &Limits, build: Build) -> Result<LoadedFile, IoProblem> {
    let cache = limits.overlay.as_ref().and_then(|o| o.cache());
    if let Some(text) = limits.overlay.as_ref().and_then(|o| o.buffer(&f.path)) {
        if let Some(file) = cache.and_then(|c| c.take(f, Some(text), None, limits, build)) {
            return Ok(file);
        }
        return Ok(load_buffer(f, text, limits, build));
    }
    let io = |m: String| IoProblem::unreadable(f.display.clone(), m);
    // One open and one `fstat` decide everything: only a regular file is read, and never
    // more than the limit, whatever its size said (a file can grow between the two).
    let (handle, meta) = crate::io::open_regular(&f.path).map_err(|e| {
        io(if e.kind() == std::io::ErrorKind::InvalidInput {
            e.to_string()
        } else {
            format!("cannot read: {e}")
        })
    })?;
    if let Some(file) =
        cache.and_then(|c| c.take(f, None, Some(overlay::Stamp::of(&meta)), limits, build))
    {
        return Ok(file);
    }
    let too_large = |message: String| too_large(f, message);
    if meta.len() > limits.max_file_size {
        return Ok(too_large(format!(
            "file is {} bytes, larger than the {}-byte limit; it was not linted",
            meta.len(),
            limits.max_file_size
        )));
    }
    let Some(bytes) = crate::io::read_bounded(handle, meta.len(), limits.max_file_size)
        .map_err(|e| io(format!("cannot read: {e}")))?
    else {
        return Ok(too_large(format!(
            "file grew past the {}-byte limit while it was read; it was not linted",
            limits.max_file_size
        )));
    };
    let mut file = if build == Build::ForRules
        && may_slim(
            &f.role,
            &f.path,
            memchr::memmem::find(&bytes, b"olmlint").is_some(),
        ) {
        parse_manifest(f, bytes, limits)
    } else {
        parse_bytes_building(
            f.display.clone(),
            f.path.clone(),
            f.role.clone(),
            bytes,
            limits,
            build,
        )
    };
    file.scope = f.scope;
    if build == Build::ForRules {
        slim_manifest(&mut file);
    }
    Ok(file)
}

/// A file that [`slim_manifest`] may summarise, parsed leaving unbuilt what the summary
/// does not keep ([`elide::Elide::Manifest`]): most of a CRD's bytes are its schema, which
/// is scanned (syntax, limits, repeated keys) but not built. A file kept whole after all
/// (a load problem, a CSV or a list among its documents) is parsed again in full.
fn parse_manifest(f: &walk::Found, bytes: Vec<u8>, limits: &Limits) -> LoadedFile {
    let (display, path, role) = (f.display.clone(), f.path.clone(), f.role.clone());
    let file = parse_bytes_eliding(display, path, role, bytes, limits, elide::Elide::Manifest);
    let elided = file.docs.iter().any(|d| {
        let mut elided = false;
        if let Some(root) = &d.root {
            root.walk(|n| elided |= matches!(n.value, tree::Value::Elided { .. }));
        }
        elided
    });
    if !elided || slims(&file) {
        return file;
    }
    let bytes = file.source.text.as_str().as_bytes().to_vec();
    let (display, path, role) = (f.display.clone(), f.path.clone(), f.role.clone());
    parse_bytes_eliding(display, path, role, bytes, limits, elide::Elide::Nothing)
}

/// A file over `limits.max-file-size`: not parsed, one finding.
fn too_large(f: &walk::Found, message: String) -> LoadedFile {
    let problem = LoadProblem::limit(
        Span::new(0, 0),
        message,
        "Raise `limits.max-file-size` in .olmlint.yaml if this file is really part of the catalog.",
    );
    LoadedFile {
        source: SourceFile::new(f.display.clone(), f.path.clone(), String::new()),
        scope: f.scope,
        format: Format::Yaml,
        role: f.role.clone(),
        docs: vec![],
        problems: vec![problem],
        embedded: Default::default(),
    }
}

/// A file an editor holds unsaved: its buffer parsed under the same limits as the disk's
/// files, and kept whole (the editor shows all of it, so no manifest is slimmed).
fn load_buffer(f: &walk::Found, text: &str, limits: &Limits, build: Build) -> LoadedFile {
    if text.len() as u64 > limits.max_file_size {
        return too_large(
            f,
            format!(
                "the buffer is {} bytes, larger than the {}-byte limit; it was not linted",
                text.len(),
                limits.max_file_size
            ),
        );
    }
    let mut file = parse_bytes_building(
        f.display.clone(),
        f.path.clone(),
        f.role.clone(),
        text.as_bytes().to_vec(),
        limits,
        build,
    );
    file.scope = f.scope;
    file
}

/// What the rules read of a manifest that is not a CSV: its `apiVersion`, `kind` and
/// `metadata` (OLM v1 groups the objects by kind, names them, and decodes their metadata), as
/// they were written; and of a CustomResourceDefinition also what opm reads of it (the APIs a
/// bundle provides: `registry.Bundle.ProvidedAPIs`: `spec.group`, `spec.names.kind`, every
/// `spec.versions[].name` and a v1beta1 `spec.version`, as owned values with the document's
/// span) and a `spec.preserveUnknownFields` that is not `false` (OLM v1 refuses it on a CRD
/// behind a conversion webhook). Returns the summary and the end of what a finding may point
/// at in it.
fn manifest_summary(root: &Node) -> (Node, usize) {
    use tree::{Entry, Style, Value};
    let span = root.span;
    let entry = |k: &str, value: Node| Entry {
        key: k.into(),
        key_span: span,
        value,
    };
    let map = |entries: Vec<Entry>| Node::new(span, Style::None, Value::Map(entries));
    let mut entries = Vec::new();
    let mut end = 0;
    for key in ["apiVersion", "kind", "metadata"] {
        if let Some(n) = root.get(key) {
            end = end.max(n.span.end());
            entries.push(entry(key, detached(n)));
        }
    }
    if root.get("kind").and_then(Node::as_str) == Some("CustomResourceDefinition") {
        let (spec, pruf_end) = crd_spec_summary(root, span);
        end = end.max(pruf_end);
        entries.push(entry("spec", spec));
    }
    (map(entries), end)
}

/// A copy of `node` whose strings are its own: a long string of a parsed tree is a range of
/// the file's text and would keep all of it alive.
fn detached(node: &Node) -> Node {
    use tree::{Text, Value};
    let mut copy = node.clone();
    let mut stack = vec![&mut copy];
    while let Some(n) = stack.pop() {
        match &mut n.value {
            Value::String(t) => *t = Text::from(t.as_str()),
            Value::Seq(items) => stack.extend(items.iter_mut()),
            Value::Map(entries) => {
                for e in entries.iter_mut() {
                    e.key = Text::from(e.key.as_str());
                    stack.push(&mut e.value);
                }
            }
            _ => {}
        }
    }
    copy
}

/// The part of a CRD's `spec` that [`manifest_summary`] keeps, and the end of a kept
/// `preserveUnknownFields` (0 without one).
fn crd_spec_summary(root: &Node, span: Span) -> (Node, usize) {
    use tree::{Entry, Style, Value};
    let string = |s: &str| Node::new(span, Style::None, Value::String(s.into()));
    let entry = |k: &str, value: Node| Entry {
        key: k.into(),
        key_span: span,
        value,
    };
    let map = |entries: Vec<Entry>| Node::new(span, Style::None, Value::Map(entries));
    let spec = root.get("spec");
    let text = |n: Option<&Node>| n.and_then(Node::as_str).map(string);
    let mut spec_entries = Vec::new();
    if let Some(g) = text(spec.and_then(|s| s.get("group"))) {
        spec_entries.push(entry("group", g));
    }
    if let Some(k) = text(
        spec.and_then(|s| s.get("names"))
            .and_then(|n| n.get("kind")),
    ) {
        spec_entries.push(entry("names", map(vec![entry("kind", k)])));
    }
    if let Some(v) = text(spec.and_then(|s| s.get("version"))) {
        spec_entries.push(entry("version", v));
    }
    let versions: Vec<Node> = spec
        .and_then(|s| s.get("versions"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| Some(map(vec![entry("name", text(v.get("name"))?)])))
        .collect();
    spec_entries.push(entry(
        "versions",
        Node::new(span, Style::None, Value::Seq(versions)),
    ));
    let mut end = 0;
    if let Some(p) = spec
        .and_then(|s| s.get("preserveUnknownFields"))
        .filter(|p| p.value != Value::Bool(false))
    {
        end = p.span.end();
        spec_entries.push(entry("preserveUnknownFields", detached(p)));
    }
    (map(spec_entries), end)
}

/// A bundle's manifests other than the CSV (CRDs, mostly: 90 % of a bundle repository's bytes)
/// are read by no rule beyond [`manifest_summary`] once they parsed cleanly: the rest of their
/// trees and their text after the last summarised value are dropped right after parsing, so a
/// repository's memory is its CSVs and metadata, not its CRD schemas (what is kept of the
/// text is the few lines findings about the summary point at). Each document stays (document
/// counts do not change). Kept whole: a file with a load problem or a repeated key (findings
/// point into it), one with a document that is neither empty nor a mapping with a string
/// `kind`, or that is a list (OLM v1 quotes the one, flattens the other), one that names
/// olmlint (an inline suppression must be seen), and any file outside `manifests/`.
fn slim_manifest(file: &mut LoadedFile) {
    if !slims(file) {
        return;
    }
    let mut keep = 0;
    for d in &mut file.docs {
        if let Some(root) = d.root.as_mut().filter(|r| !r.is_null()) {
            let (summary, end) = manifest_summary(root);
            keep = keep.max(end);
            *root = summary;
        }
    }
    let text = file.source.text.as_str();
    // Whole lines: a finding shows the line it points at.
    let keep = text
        .get(keep..)
        .and_then(|rest| memchr::memchr(b'\n', rest.as_bytes()))
        .map_or(text.len(), |nl| keep + nl + 1);
    let kept = text.get(..keep).unwrap_or_default().to_string();
    file.source = SourceFile::new(
        std::mem::take(&mut file.source.display),
        std::mem::take(&mut file.source.path),
        kept,
    );
}

/// Whether [`slim_manifest`] summarises `file` (see there).
fn slims(file: &LoadedFile) -> bool {
    let read_by_rules = |d: &RawDoc| {
        d.failed
            || d.repeated_keys
            || d.root.as_ref().is_some_and(|r| match r.value {
                tree::Value::Null => false,
                tree::Value::Map(_) => {
                    let kind = r.get("kind").and_then(Node::as_str);
                    kind.is_none_or(|k| k.is_empty() || k == "ClusterServiceVersion")
                        || r.get("items").is_some()
                }
                _ => true,
            })
    };
    let names_olmlint = memchr::memmem::find(file.source.text.as_bytes(), b"olmlint").is_some();
    may_slim(&file.role, &file.source.path, names_olmlint)
        && file.problems.is_empty()
        && !file.docs.iter().any(read_by_rules)
}

/// Whether a file's place lets [`slim_manifest`] summarise it: a file of a bundle's
/// `manifests/` that does not name olmlint (`names_olmlint`: an inline suppression must be
/// seen).
fn may_slim(role: &Role, path: &Path, names_olmlint: bool) -> bool {
    let in_manifests = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "manifests");
    matches!(role, Role::Bundle(_)) && in_manifests && !names_olmlint
}

/// Parse file contents as `olmlint lint` does (also used by tests and fuzzing).
pub fn parse_bytes(
    display: String,
    path: PathBuf,
    role: Role,
    bytes: Vec<u8>,
    limits: &Limits,
) -> LoadedFile {
    parse_bytes_building(display, path, role, bytes, limits, Build::ForRules)
}

/// Parse `text` as a catalog file, building every value (for checking what an edit did).
pub fn parse_text_everything(text: &str, limits: &Limits) -> LoadedFile {
    parse_bytes_building(
        String::new(),
        PathBuf::new(),
        Role::Fbc,
        text.as_bytes().to_vec(),
        limits,
        Build::Everything,
    )
}

fn parse_bytes_building(
    display: String,
    path: PathBuf,
    role: Role,
    bytes: Vec<u8>,
    limits: &Limits,
    build: Build,
) -> LoadedFile {
    // Only catalog files: bundle directories and the configuration are small and read whole
    // (but for the manifests `load_file` summarises, see `parse_manifest`).
    let elide = elide::Elide::csv_metadata(role == Role::Fbc && build == Build::ForRules);
    parse_bytes_eliding(display, path, role, bytes, limits, elide)
}

/// [`parse_bytes_building`], leaving unbuilt what `elide` names.
fn parse_bytes_eliding(
    display: String,
    path: PathBuf,
    role: Role,
    bytes: Vec<u8>,
    limits: &Limits,
    elide: elide::Elide,
) -> LoadedFile {
    let mut problems = Vec::new();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            problems.push(LoadProblem::syntax(
                Span::new(at, at + 1),
                format!("invalid UTF-8 at byte {at}"),
                "Catalog files must be UTF-8 encoded text; opm's YAML and JSON decoders reject other bytes.",
            ));
            let source = SourceFile::new(display, path, text);
            return LoadedFile {
                source,
                scope: 0,
                format: Format::Yaml,
                role,
                docs: vec![],
                problems,
                embedded: Default::default(),
            };
        }
    };
    let source = SourceFile::new(display, path, text);
    let text = source.text.as_str();
    let peek = text.get(..4096.min(text.len())).unwrap_or(text);
    let is_json = peek
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{');
    let (format, docs) = if is_json {
        (
            Format::Json,
            // JSON manifests are rare: only catalog files are elided.
            json::parse_file(
                &source.text,
                limits,
                elide == elide::Elide::CsvMetadata,
                &mut problems,
            ),
        )
    } else {
        let (base, body) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (3, rest),
            None => (0, text),
        };
        if let Some(nul) = memchr::memchr(0, body.as_bytes()) {
            let at = base + nul;
            problems.push(LoadProblem::syntax(
                Span::new(at, at + 1),
                "NUL byte in a YAML file".into(),
                "YAML does not allow NUL characters; remove it (is this a binary file? list it in .indexignore).",
            ));
            (Format::Yaml, vec![])
        } else {
            (
                Format::Yaml,
                yaml::parse_stream_eliding(
                    body,
                    base,
                    Some(&source.text),
                    limits,
                    elide,
                    &mut problems,
                ),
            )
        }
    };
    LoadedFile {
        source,
        scope: 0,
        format,
        role,
        docs,
        problems,
        embedded: Default::default(),
    }
}

pub use crate::io::display_path;

/// The files of each bundle directory of the catalog `scope`, by the directory's root, in one
/// pass over the run's files (the model's bundles and the OLM v1 acceptance checks both
/// need them).
pub fn bundle_directories(
    files: &[LoadedFile],
    scope: usize,
) -> std::collections::BTreeMap<&std::path::Path, Vec<usize>> {
    let mut by_root: std::collections::BTreeMap<&std::path::Path, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (fi, f) in files.iter().enumerate() {
        if let (true, Role::Bundle(root)) = (f.scope == scope, &f.role) {
            by_root.entry(root.as_path()).or_default().push(fi);
        }
    }
    by_root
}
