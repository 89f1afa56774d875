//! What the requests (hover, code actions, go to definition) answer from: a catalog's last
//! published run, reduced to plain data when it is published. The run's files go back to the
//! parse cache and the model borrows them, so neither is kept; instead, per file, the
//! findings (with their fixes as text edits) and the names written there that point elsewhere,
//! and per catalog where each bundle and package is defined, each bundle's version, channels
//! and installability findings, and each package's versions.
//!
//! Requests are made on open documents only, so the facts are those of the open documents
//! and of the packages they define or name: what building them costs follows what is open,
//! not the catalog's size (on a 100 000-bundle catalog, 1.1 s less per run for one open file).

use crate::convert::{self, Encoding};
use crate::Snapshot;
use lsp_types as lsp;
use olmlint_base::diag::Diagnostic;
use olmlint_base::source::SourceFile;
use olmlint_base::tree::{Node, Span, Value};
use olmlint_load::LoadedFile;
use olmlint_model::{Bundle, Catalog};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The rules whose findings on a bundle say that OLM cannot install it (or could not be
/// shown to install it): bundle-uninstallable and the causes it is folded into.
const INSTALLABILITY: [&str; 6] = ["OLM501", "OLM502", "OLM503", "OLM504", "OLM505", "OLM506"];

/// One catalog's last published run.
#[derive(Default)]
pub struct Facts {
    /// By URI, as the run's findings were published.
    pub files: HashMap<String, FileFacts>,
    /// Package → bundle name → the bundle (the linted catalog's first, else a context
    /// catalog's).
    pub bundles: HashMap<String, HashMap<String, BundleFacts>>,
    /// Package name → where its `olm.package` document names it.
    pub packages: HashMap<String, lsp::Location>,
    /// Package name → its bundles' versions (that parse), in precedence order, each once.
    pub versions: HashMap<String, Vec<semver::Version>>,
    /// A quick run's facts: installability was not checked (see [`crate::schedule`]).
    pub quick: bool,
}

impl Facts {
    pub fn file(&self, uri: &str) -> Option<&FileFacts> {
        self.files.get(uri)
    }

    pub fn bundle(&self, package: &str, name: &str) -> Option<&BundleFacts> {
        self.bundles.get(package)?.get(name)
    }

    fn bundle_mut(&mut self, package: &str, name: &str) -> Option<&mut BundleFacts> {
        self.bundles.get_mut(package)?.get_mut(name)
    }
}

/// What the run saw of one file.
#[derive(Default)]
pub struct FileFacts {
    /// The document version the run read; `None`: the file as saved.
    pub version: Option<i32>,
    /// A YAML file, read as text: inline suppression comments apply.
    pub yaml: bool,
    pub findings: Vec<Finding>,
    /// Names and ranges written in this file, by start.
    pub refs: Vec<Ref>,
}

pub struct Finding {
    pub rule: &'static str,
    /// As published.
    pub diagnostic: lsp::Diagnostic,
    pub fix: Option<Fix>,
}

/// A fix `olmlint lint --fix` would apply (`--unsafe-fixes` when not `safe`), as edits of
/// the finding's file.
pub struct Fix {
    pub description: String,
    pub safe: bool,
    pub edits: Vec<lsp::TextEdit>,
}

/// A name or range written in a file, and what it refers to.
pub struct Ref {
    pub range: lsp::Range,
    pub target: Target,
}

pub enum Target {
    /// A bundle named by a channel entry (`name`, `replaces`, `skips`).
    Bundle { package: String, name: String },
    /// A package named by a dependency (`olm.package.required`, an `olm.constraint`'s
    /// `package`).
    Package(String),
    /// A version range over a package's versions (a `skipRange`, a dependency's
    /// `versionRange`).
    Range { package: String, text: String },
}

pub struct BundleFacts {
    pub location: lsp::Location,
    /// Its `olm.package` property's version, as written.
    pub version: Option<String>,
    /// The channels whose entries name it.
    pub channels: BTreeSet<String>,
    /// The run's installability findings about it (rule, message): folded ones too.
    pub verdicts: Vec<(String, String)>,
}

/// How the run's files are named for the client.
pub struct Naming<'n> {
    /// A file's URI (as published).
    pub uri: &'n dyn Fn(&Path) -> String,
    /// The version of the open document at a URI the run read.
    pub version: &'n dyn Fn(&str) -> Option<i32>,
    pub encoding: Encoding,
}

/// The facts of a published run.
pub fn build(snapshot: &Snapshot, naming: &Naming<'_>, quick: bool) -> Facts {
    let files = &snapshot.files;
    let mut facts = Facts {
        quick,
        ..Facts::default()
    };
    let uris: Vec<String> = files.iter().map(|f| (naming.uri)(&f.source.path)).collect();
    let open: Vec<bool> = uris.iter().map(|u| (naming.version)(u).is_some()).collect();
    let mut b = Builder {
        files,
        uris: &uris,
        open: &open,
        wanted: HashSet::new(),
        naming,
        facts: &mut facts,
    };
    b.findings(&snapshot.diags);
    // The linted catalog first (its bundles and packages win), then the context catalogs
    // (a dependency on a sibling operator leads there); configuration files have no model.
    let scopes: BTreeSet<usize> = files
        .iter()
        .map(|f| f.scope)
        .filter(|&s| s != usize::MAX)
        .collect();
    for scope in scopes {
        let catalog = olmlint_model::build(files, scope, &mut Vec::new());
        if scope == 0 {
            b.references(&catalog);
        }
        b.definitions(&catalog);
    }
    b.verdicts(&snapshot.diags);
    for versions in facts.versions.values_mut() {
        versions.sort_by(olmlint_semantics::version::cmp);
        versions.dedup_by(|a, b| olmlint_semantics::version::cmp(a, b).is_eq());
    }
    facts
}

struct Builder<'b> {
    files: &'b [LoadedFile],
    uris: &'b [String],
    /// By file: whether it is an open document (the requests' subject).
    open: &'b [bool],
    /// The packages whose definitions the requests may need: those the open documents
    /// define or name.
    wanted: HashSet<String>,
    naming: &'b Naming<'b>,
    facts: &'b mut Facts,
}

impl<'b> Builder<'b> {
    fn source(&self, file: usize) -> Option<(&'b String, &'b SourceFile)> {
        let (files, uris) = (self.files, self.uris);
        Some((uris.get(file)?, &files.get(file)?.source))
    }

    /// The facts of `file` when it is an open document.
    fn file(&mut self, file: usize) -> Option<&mut FileFacts> {
        if !self.open.get(file).copied().unwrap_or(false) {
            return None;
        }
        let f = self.files.get(file)?;
        let uri = self.uris.get(file)?;
        if self.facts.files.contains_key(uri) {
            return self.facts.files.get_mut(uri);
        }
        let version = (self.naming.version)(uri);
        // Read as text: a file that could not be decoded has no comments.
        let yaml = f.format == olmlint_load::Format::Yaml && !f.docs.is_empty();
        Some(
            self.facts
                .files
                .entry(uri.clone())
                .or_insert_with(|| FileFacts {
                    version,
                    yaml,
                    ..FileFacts::default()
                }),
        )
    }

    fn location(&self, file: usize, span: Span) -> Option<lsp::Location> {
        let (uri, source) = self.source(file)?;
        (span.end() <= source.text.len()).then(|| {
            lsp::Location::new(
                lsp::Uri(uri.clone()),
                convert::range(source, span, self.naming.encoding),
            )
        })
    }

    /// Every finding located in a file, as published, with its fix when all of the fix's
    /// edits are in that file.
    fn findings(&mut self, diags: &[Diagnostic]) {
        let enc = self.naming.encoding;
        for d in diags {
            let Some(loc) = d.location else { continue };
            let Some((_, source)) = self.source(loc.file) else {
                continue;
            };
            let range = convert::range(source, loc.span, enc);
            let (files, uris) = (self.files, self.uris);
            let related_at = |i: usize| Some((uris.get(i)?.clone(), &files.get(i)?.source));
            let diagnostic = convert::diagnostic(d, range, &related_at, enc);
            let fix = d.fix.as_ref().and_then(|fix| {
                let edits = fix
                    .edits
                    .iter()
                    .map(|e| {
                        (e.file == loc.file).then_some(())?;
                        let text = olmlint_load::fix::edit_text(files, e)?;
                        // `--fix` keeps a file's CRLF line breaks.
                        let text = if source.text.contains("\r\n") {
                            text.replace("\r\n", "\n").replace('\n', "\r\n")
                        } else {
                            text
                        };
                        Some(lsp::TextEdit::new(
                            convert::range(source, e.span, enc),
                            text,
                        ))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(Fix {
                    description: fix.description.clone(),
                    safe: fix.safe,
                    edits,
                })
            });
            if let Some(f) = self.file(loc.file) {
                f.findings.push(Finding {
                    rule: d.rule,
                    diagnostic,
                    fix,
                });
            }
        }
    }

    /// Where the catalog's bundles and packages are defined, and the packages' versions
    /// (those already known from an earlier catalog kept).
    fn definitions(&mut self, catalog: &Catalog<'_>) {
        for b in &catalog.bundles {
            let (Some(name), Some(package)) = (b.name, b.package) else {
                continue;
            };
            if !self.wanted.contains(package.value)
                || self.facts.bundle(package.value, name.value).is_some()
            {
                continue;
            }
            let Some(location) = self.location(b.doc.file, name.node.span) else {
                continue;
            };
            let version = b.version().map(|v| v.value.to_string());
            if let Some(v) = version
                .as_deref()
                .and_then(|v| olmlint_semantics::version::parse_strict(v).ok())
            {
                if let Some(vs) = self.facts.versions.get_mut(package.value) {
                    vs.push(v);
                } else {
                    self.facts
                        .versions
                        .insert(package.value.to_string(), vec![v]);
                }
            }
            let in_package = match self.facts.bundles.get_mut(package.value) {
                Some(m) => m,
                None => self
                    .facts
                    .bundles
                    .entry(package.value.to_string())
                    .or_default(),
            };
            in_package.insert(
                name.value.to_string(),
                BundleFacts {
                    location,
                    version,
                    channels: BTreeSet::new(),
                    verdicts: Vec::new(),
                },
            );
        }
        for p in &catalog.packages {
            let Some(name) = p.name else { continue };
            if !self.wanted.contains(name.value) || self.facts.packages.contains_key(name.value) {
                continue;
            }
            if let Some(location) = self.location(p.doc.file, name.node.span) {
                self.facts.packages.insert(name.value.to_string(), location);
            }
        }
        for c in &catalog.channels {
            let (package, channel) = (c.package.map_or("", |p| p.value), c.name);
            let Some(channel) = channel else { continue };
            if !self.wanted.contains(package) {
                continue;
            }
            for e in &c.entries {
                if let Some(b) = self.facts.bundle_mut(package, e.name()) {
                    if !b.channels.contains(channel.value) {
                        b.channels.insert(channel.value.to_string());
                    }
                }
            }
        }
    }

    fn is_open(&self, file: usize) -> bool {
        self.open.get(file).copied().unwrap_or(false)
    }

    /// A reference written in an open document; what it names is then wanted.
    fn add_ref(&mut self, file: usize, node: &Node, target: Target) {
        if !self.is_open(file) {
            return;
        }
        let files = self.files;
        let Some(f) = files.get(file) else { return };
        // A value decoded from a string (a CSV's `olm.properties` annotation) spans the whole
        // string: no place of its own to point at.
        let embedded = f.embedded.get().map(|e| e.span);
        if embedded.is_some_and(|e| e.start <= node.span.start && node.span.end <= e.end)
            || node.span.end() > f.source.text.len()
        {
            return;
        }
        let range = convert::range(&f.source, node.span, self.naming.encoding);
        let package = match &target {
            Target::Bundle { package, .. } | Target::Range { package, .. } => package,
            Target::Package(name) => name,
        };
        if !self.wanted.contains(package.as_str()) {
            self.wanted.insert(package.clone());
        }
        if let Some(facts) = self.file(file) {
            facts.refs.push(Ref { range, target });
        }
    }

    /// The names and ranges the linted catalog's channels and bundles write.
    fn references(&mut self, catalog: &Catalog<'_>) {
        for c in &catalog.channels {
            let package = c.package.map_or("", |p| p.value);
            for e in c
                .entries
                .iter()
                .filter(|e| self.open.get(e.file) == Some(&true))
            {
                let bundle = |n: &str| Target::Bundle {
                    package: package.to_string(),
                    name: n.to_string(),
                };
                // A bundle directory's entry is its CSV: its `metadata.name` is the bundle.
                let name = e.name.filter(|_| !e.from_directory);
                for s in name.iter().chain(&e.replaces).chain(&e.skips) {
                    self.add_ref(e.file, s.node, bundle(s.value));
                }
                if let Some(r) = e.skip_range {
                    let target = Target::Range {
                        package: package.to_string(),
                        text: r.value.to_string(),
                    };
                    self.add_ref(e.file, r.node, target);
                }
            }
        }
        for b in &catalog.bundles {
            self.dependencies(b);
        }
        for refs in self.facts.files.values_mut().map(|f| &mut f.refs) {
            refs.sort_by_key(|r| (r.range.start.line, r.range.start.character));
        }
    }

    /// A bundle's dependencies written in its file: `olm.package.required` and the
    /// `package` constraints of `olm.constraint` (at any depth).
    fn dependencies(&mut self, b: &Bundle<'_>) {
        for p in &b.properties {
            let Some(Cow::Borrowed(value)) = &p.value else {
                continue;
            };
            if !self.is_open(p.file) {
                continue;
            }
            let deps = match p.ty() {
                "olm.package.required" => vec![*value],
                "olm.constraint" => package_constraints(value),
                _ => continue,
            };
            for dep in deps {
                let field = |k: &str| dep.get_folded(k).map(|e| &e.value);
                let Some(name_node) = field("packageName") else {
                    continue;
                };
                let name = name_node.as_str().unwrap_or("");
                if name.is_empty() {
                    continue;
                }
                self.add_ref(p.file, name_node, Target::Package(name.to_string()));
                if let Some(r) = field("versionRange") {
                    let target = Target::Range {
                        package: name.to_string(),
                        text: r.as_str().unwrap_or("").to_string(),
                    };
                    self.add_ref(p.file, r, target);
                }
            }
        }
    }

    /// Each bundle's installability findings, and those folded into another finding.
    fn verdicts(&mut self, diags: &[Diagnostic]) {
        let mut add = |rule: &str, package: &Option<String>, bundle: &Option<String>, m: &str| {
            let (Some(package), Some(bundle)) = (package, bundle) else {
                return;
            };
            if let Some(b) = INSTALLABILITY
                .contains(&rule)
                .then(|| self.facts.bundle_mut(package, bundle))
                .flatten()
            {
                b.verdicts.push((rule.to_string(), m.to_string()));
            }
        };
        for d in diags {
            add(d.rule, &d.package, &d.bundle, &d.message);
            for r in &d.related {
                if let Some(f) = &r.folded {
                    add(f.rule, &f.package, &f.bundle, &r.message);
                }
            }
        }
    }
}

/// The `package` constraints of an `olm.constraint` value, at any depth (under `all`, `any`,
/// `not`): the objects holding `packageName` and `versionRange`.
fn package_constraints(value: &Node) -> Vec<&Node> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Map(entries) => {
                for e in entries {
                    if e.key.eq_ignore_ascii_case("package") && e.value.as_map().is_some() {
                        out.push(&e.value);
                    } else {
                        stack.push(&e.value);
                    }
                }
            }
            Value::Seq(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// Whether `pos` is in `range` (its end included: the cursor just after a name is on it).
pub fn contains(range: &lsp::Range, pos: lsp::Position) -> bool {
    let key = |p: &lsp::Position| (p.line, p.character);
    key(&range.start) <= key(&pos) && key(&pos) <= key(&range.end)
}

impl FileFacts {
    /// The innermost name or range at `pos`.
    pub fn ref_at(&self, pos: lsp::Position) -> Option<&Ref> {
        let size = |r: &lsp::Range| {
            (
                r.end.line - r.start.line,
                r.end.character.wrapping_sub(r.start.character),
            )
        };
        self.refs
            .iter()
            .filter(|r| contains(&r.range, pos))
            .min_by_key(|r| size(&r.range))
    }

    /// The findings whose range holds `pos`.
    pub fn findings_at(&self, pos: lsp::Position) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |f| contains(&f.diagnostic.range, pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_constraints_at_any_depth() {
        let text = "all:\n  constraints:\n  - Package: {packageName: a, versionRange: '>=1.0.0'}\n  - not:\n      constraints:\n      - package: {packageName: b}\n  - gvk: {group: g}\n";
        let f = olmlint_load::parse_text_everything(text, &olmlint_load::Limits::default());
        let value = f.docs[0].root.as_ref().unwrap();
        let mut names: Vec<&str> = package_constraints(value)
            .iter()
            .filter_map(|p| p.get_folded("packageName")?.value.as_str())
            .collect();
        names.sort_unstable();
        assert_eq!(names, ["a", "b"]);
    }
}
