//! Stage 2: the catalog model. Documents become packages, channels, bundles and deprecations,
//! decoded the way `opm` decodes them (Go `json.Unmarshal`: case-insensitive keys, unknown
//! fields ignored, last duplicate wins) while keeping a reference to every source node.
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

pub mod bundle_dir;
pub mod cluster;
mod decode;
pub mod formats;
pub mod index;
pub mod olmv1;
pub mod operators;
pub mod repository;
pub mod resolution;
pub mod schema;
pub mod template;

use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Node, Span};
use olmlint_load::{LoadedFile, Role};
use std::borrow::Cow;

pub use decode::coercion as decode_coercion;
pub use decode::Str;

/// A document of a file.
#[derive(Clone, Copy, Debug)]
pub struct DocRef<'a> {
    pub file: usize,
    pub doc: usize,
    pub node: &'a Node,
}

#[derive(Debug)]
pub struct Package<'a> {
    pub doc: DocRef<'a>,
    pub name: Option<Str<'a>>,
    pub default_channel: Option<Str<'a>>,
    pub icon: Option<&'a Node>,
    /// Built from bundle directories (`model::operators`), not an `olm.package` blob.
    pub from_directory: bool,
}

#[derive(Debug)]
pub struct ChannelEntry<'a> {
    pub node: &'a Node,
    /// The file holding the entry: the channel's, or a bundle directory's CSV.
    pub file: usize,
    pub index: usize,
    pub name: Option<Str<'a>>,
    pub replaces: Option<Str<'a>>,
    pub skips: Vec<Str<'a>>,
    pub skip_range: Option<Str<'a>>,
    /// Made up from a bundle directory's CSV (`model::operators`): `node` is the CSV.
    pub from_directory: bool,
}

impl<'a> ChannelEntry<'a> {
    pub fn name(&self) -> &'a str {
        self.name.map_or("", |n| n.value)
    }

    /// JSON pointer of a field of this entry (`""`, `replaces`, `skips`, `skipRange`): in
    /// the channel blob, or in the CSV the entry was made from.
    pub fn pointer(&self, field: &str) -> String {
        if self.from_directory {
            return match field {
                "replaces" => "/spec/replaces".into(),
                "skips" => "/spec/skips".into(),
                "skipRange" => "/metadata/annotations/olm.skipRange".into(),
                _ => "/metadata/name".into(),
            };
        }
        if field.is_empty() {
            format!("/entries/{}", self.index)
        } else {
            format!("/entries/{}/{field}", self.index)
        }
    }

    /// Whether OLM offers this entry to a cluster running `installed` (at `version`): its
    /// `replaces` or `skips` name it, or its `skipRange` contains the version (§3.4 step 4).
    pub fn offers_upgrade_from(&self, installed: &str, version: Option<&semver::Version>) -> bool {
        self.replaces.is_some_and(|r| r.value == installed)
            || self.skips.iter().any(|s| s.value == installed)
            || self
                .skip_range
                .and_then(|r| olmlint_semantics::range::intervals_of(r.value))
                .zip(version)
                .is_some_and(|(r, v)| r.contains(v))
    }
}

#[derive(Debug)]
pub struct Channel<'a> {
    pub doc: DocRef<'a>,
    pub package: Option<Str<'a>>,
    pub name: Option<Str<'a>>,
    pub entries: Vec<ChannelEntry<'a>>,
}

/// A bundle property. `value` is `None` when the `value` key is missing; properties made up
/// from bundle-directory metadata own their value.
#[derive(Debug)]
pub struct Property<'a> {
    pub index: usize,
    pub file: usize,
    /// The `{type, value}` item, when it exists in a file.
    pub item: Option<&'a Node>,
    pub ty: Option<Str<'a>>,
    pub value: Option<Cow<'a, Node>>,
    /// JSON pointer of the item in its document.
    pub pointer: String,
}

impl Property<'_> {
    pub fn ty(&self) -> &str {
        self.ty.as_ref().map_or("", |t| t.value)
    }
    pub fn span(&self) -> Span {
        self.value
            .as_deref()
            .map(|v| v.span)
            .or(self.item.map(|i| i.span))
            .unwrap_or_default()
    }
    pub fn value_pointer(&self) -> String {
        let mut p = String::with_capacity(self.pointer.len() + 6);
        p.push_str(&self.pointer);
        p.push_str("/value");
        p
    }
}

#[derive(Debug)]
pub struct Bundle<'a> {
    pub doc: DocRef<'a>,
    pub package: Option<Str<'a>>,
    pub name: Option<Str<'a>>,
    pub image: Option<Str<'a>>,
    pub properties: Vec<Property<'a>>,
    pub related_images: Vec<(Option<Str<'a>>, Option<Str<'a>>)>,
    /// Set for bundles read from a registry+v1 directory.
    pub from_directory: bool,
}

impl<'a> Bundle<'a> {
    pub fn name(&self) -> &str {
        self.name.as_ref().map_or("", |n| n.value)
    }
    pub fn package(&self) -> &str {
        self.package.as_ref().map_or("", |n| n.value)
    }
    pub fn properties_of<'s>(&'s self, ty: &'s str) -> impl Iterator<Item = &'s Property<'a>> + 's {
        self.properties.iter().filter(move |p| p.ty() == ty)
    }
    /// The `version` of the first `olm.package` property, as written.
    pub fn version(&self) -> Option<Str<'_>> {
        self.properties_of("olm.package").find_map(|p| {
            let v = p.value.as_deref()?.get_folded("version")?;
            Some(Str {
                value: v.value.as_str()?,
                node: &v.value,
            })
        })
    }
}

#[derive(Debug)]
pub struct DeprecationEntry<'a> {
    pub node: &'a Node,
    pub index: usize,
    pub schema: Option<Str<'a>>,
    pub name: Option<Str<'a>>,
    pub message: Option<Str<'a>>,
}

#[derive(Debug)]
pub struct Deprecations<'a> {
    pub doc: DocRef<'a>,
    pub package: Option<Str<'a>>,
    pub entries: Vec<DeprecationEntry<'a>>,
}

#[derive(Debug, Default)]
pub struct Catalog<'a> {
    pub packages: Vec<Package<'a>>,
    pub channels: Vec<Channel<'a>>,
    pub bundles: Vec<Bundle<'a>>,
    pub deprecations: Vec<Deprecations<'a>>,
    pub others: Vec<DocRef<'a>>,
    pub documents: usize,
    /// Operator directories (`ci.yaml` next to version directories).
    pub operators: Vec<operators::OperatorDir<'a>>,
    /// What each bundle directory says about its place in the index.
    pub dir_bundles: Vec<operators::DirBundle<'a>>,
    /// Packages whose bundles are not all known: a catalog template's bundles that are image
    /// references opm renders from the image (see `model::template`). Checks that something
    /// is *missing* hold back for them, as for a package that lost objects to a syntax error.
    pub opaque_packages: std::collections::BTreeSet<String>,
}

impl<'a> Catalog<'a> {
    /// The objects of `other` after this catalog's, as if its documents came after these
    /// (bundle and operator indices of its bundle directories shifted to match).
    pub fn append(&mut self, other: Catalog<'a>) {
        let (bundles, operators) = (self.bundles.len(), self.operators.len());
        self.packages.extend(other.packages);
        self.channels.extend(other.channels);
        self.bundles.extend(other.bundles);
        self.deprecations.extend(other.deprecations);
        self.others.extend(other.others);
        self.documents += other.documents;
        self.operators.extend(other.operators);
        self.dir_bundles
            .extend(other.dir_bundles.into_iter().map(|mut d| {
                d.bundle += bundles;
                d.operator = d.operator.map(|o| o + operators);
                d
            }));
        self.opaque_packages.extend(other.opaque_packages);
    }

    pub fn package(&self, name: &str) -> Option<&Package<'a>> {
        self.packages
            .iter()
            .find(|p| p.name.as_ref().is_some_and(|n| n.value == name))
    }
}

/// Documents decoded per parallel task, at most (large enough that merging costs nothing).
const DOCS_PER_TASK: usize = 512;

/// Documents per parallel task for `docs` documents: [`DOCS_PER_TASK`], or fewer for a small
/// catalog, so that every thread gets several tasks (community-v4.18's 840 documents were two
/// tasks of 512 and 328: one core decoded 61 % of them; issue #44).
fn docs_per_task(docs: usize) -> usize {
    (docs / (rayon::current_num_threads() * 8)).clamp(16, DOCS_PER_TASK)
}

/// Build the model from loaded files; decoding problems come back as diagnostics. Documents
/// are decoded in parallel, in chunks, and the parts appended in file and document order, so
/// the result is the same as a sequential pass.
/// Findings of one rule in one file the model keeps (the rest are counted): bounds memory
/// for files of millions of broken documents, above the report's configurable cap.
const MAX_DOCUMENT_FINDINGS: usize = 10_000;

pub fn build<'a>(
    files: &'a [LoadedFile],
    scope: usize,
    diags: &mut Vec<Diagnostic>,
) -> Catalog<'a> {
    use rayon::prelude::*;
    let docs: Vec<(usize, &'a LoadedFile, &'a olmlint_load::RawDoc)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.role == Role::Fbc && f.scope == scope)
        .flat_map(|(fi, f)| f.docs.iter().filter(|d| !d.failed).map(move |d| (fi, f, d)))
        .collect();
    // Parts are merged in document order as they complete (rayon's reduce keeps the order),
    // the findings capped at each merge: a file of millions of broken documents never holds
    // millions of findings at once.
    let (mut cat, found, _) = docs
        .par_chunks(docs_per_task(docs.len()))
        .map(|chunk| {
            let mut cat = Catalog::default();
            let mut diags = Vec::new();
            for &(fi, f, d) in chunk {
                document(&mut cat, fi, f, d, &mut diags);
            }
            (cat, diags, MAX_DOCUMENT_FINDINGS)
        })
        .reduce(
            || (Catalog::default(), Vec::new(), MAX_DOCUMENT_FINDINGS),
            |(mut cat, mut found, cap_at), (part, d, _)| {
                cat.append(part);
                found.extend(d);
                // Capping again only once the list has doubled keeps this linear.
                let mut cap_at = cap_at;
                if found.len() > cap_at {
                    found = olmlint_base::diag::cap_per_rule_and_file(found, MAX_DOCUMENT_FINDINGS);
                    cap_at = cap_at.max(found.len() * 2);
                }
                (cat, found, cap_at)
            },
        );
    diags.extend(found);
    bundle_dir::load_all(files, scope, &mut cat, diags);
    operators::build(files, scope, &mut cat);
    // Templates are not catalog content, but a repeated key in one is lost all the same.
    for (fi, f) in files.iter().enumerate() {
        if f.role != Role::Template || f.scope != scope {
            continue;
        }
        for d in f.docs.iter().filter(|d| d.repeated_keys && !d.failed) {
            if let Some(node) = d.root.as_ref() {
                let doc = DocRef {
                    file: fi,
                    doc: d.index,
                    node,
                };
                decode::duplicate_keys(doc, diags);
            }
        }
    }
    cat
}

fn document<'a>(
    cat: &mut Catalog<'a>,
    fi: usize,
    f: &'a LoadedFile,
    d: &'a olmlint_load::RawDoc,
    diags: &mut Vec<Diagnostic>,
) {
    cat.documents += 1;
    // `--- # comment` alone parses as an implicit (zero-width) null: empty too.
    let implicit_null = |r: &&olmlint_base::tree::Node| r.is_null() && r.span.start == r.span.end;
    let Some(root) = d.root.as_ref().filter(|r| !implicit_null(r)) else {
        diags.push(
            Diagnostic::new("OLM002", "document is empty (only blank lines or comments): object 'null' is missing root schema field")
                .at(fi, trim_span(&f.source.text, d.span))
                .pointer("")
                .help(
                    "opm decodes an empty document as `null` and rejects the catalog. Remove \
                     the stray `---` separator or the comment-only block (a leading comment \
                     before the first `---` counts).",
                ),
        );
        return;
    };
    decode::document(
        cat,
        DocRef {
            file: fi,
            doc: d.index,
            node: root,
        },
        d.repeated_keys,
        diags,
    );
}

fn trim_span(text: &str, span: Span) -> Span {
    let s = text.get(span.start()..span.end()).unwrap_or("");
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead + trail >= s.len() {
        return Span::new(span.start(), span.start());
    }
    Span::new(span.start() + lead, span.end() - trail)
}

/// Compose a pointer from segments.
/// `/{key}/{index}`: the pointer of a top-level list's item, built without `format!` because
/// the decoder makes one for every property and related image.
pub fn list_item_pointer(key: &str, index: usize) -> String {
    let mut p = String::with_capacity(key.len() + 8);
    p.push('/');
    p.push_str(key);
    p.push('/');
    push_decimal(&mut p, index);
    p
}

fn push_decimal(out: &mut String, n: usize) {
    if n >= 10 {
        push_decimal(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

pub use olmlint_base::diag::ptr;
