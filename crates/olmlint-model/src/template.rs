//! Catalog templates, the files maintainers edit in FBC repositories (`operators/<op>/
//! catalog-templates/`): `olm.template.basic` and `olm.semver`, read the way `opm alpha
//! render-template` (v1.71, what the pipelines pin) reads them; docs/research/templates.md.
//!
//! - basic: YAML → JSON → plain `json.Unmarshal` of the first document: keys case-insensitive,
//!   unknown keys dropped silently. `entries` are FBC blobs passed through as written, except
//!   `olm.bundle`, which must be `{schema, image}` only and is rendered from the image.
//! - semver: `UnmarshalStrict`: keys case-insensitive, an unknown key is an error.
//!
//! This module reads templates into plain data and reports what opm itself would refuse or
//! silently drop (OLM901, OLM902, OLM903); `check::template` judges them against catalogs.

use super::{ptr, DocRef, Str};
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::{Entry, Node, Value};
use olmlint_load::{LoadedFile, Role};
use olmlint_semantics::semver_template::Archetype;

pub const BASIC: &str = "olm.template.basic";
pub const SEMVER: &str = "olm.semver";

/// A bundle of a template: an image reference, rendered by opm from the image.
#[derive(Debug, Clone)]
pub struct ImageRef<'a> {
    pub image: Str<'a>,
    /// The bundle's mapping (basic: the `entries` item; semver: the `Bundles` item).
    pub node: &'a Node,
    /// JSON pointer of the image value.
    pub pointer: String,
}

#[derive(Debug)]
pub struct Basic<'a> {
    /// `entries` items that are not bundles, with their index (FBC blobs passed through).
    pub blobs: Vec<(usize, &'a Node)>,
    pub bundles: Vec<ImageRef<'a>>,
    /// `olm.bundle` items, including those without a usable image.
    pub bundle_entries: usize,
    /// Span of each `entries` item, for pointers of findings inside it.
    pub entry_spans: Vec<olmlint_base::tree::Span>,
}

#[derive(Debug)]
pub struct Semver<'a> {
    pub generate_major: bool,
    pub generate_minor: bool,
    /// `defaultChannelTypePreference` as written (`""`, `minor`, `major`).
    pub preference: Option<Str<'a>>,
    pub bundles: Vec<(Archetype, ImageRef<'a>)>,
}

#[derive(Debug)]
pub enum Body<'a> {
    Basic(Basic<'a>),
    Semver(Semver<'a>),
}

#[derive(Debug)]
pub struct Template<'a> {
    pub doc: DocRef<'a>,
    pub body: Body<'a>,
}

impl<'a> Template<'a> {
    /// A basic template's contents.
    pub fn basic(&self) -> Option<&Basic<'a>> {
        match &self.body {
            Body::Basic(b) => Some(b),
            Body::Semver(_) => None,
        }
    }
}

/// The template schema of a file's first document, if it is one (`schema` matched as opm's
/// decoders match it: case-insensitively; the value exactly).
pub fn schema_of(f: &LoadedFile) -> Option<&'static str> {
    let root = f.docs.iter().find(|d| !d.failed)?.root.as_ref()?;
    match root.get_folded("schema")?.value.as_str()? {
        BASIC => Some(BASIC),
        SEMVER => Some(SEMVER),
        _ => None,
    }
}

/// Files that are templates: in a `catalog-templates/` directory of an operator, or any file
/// of a linted catalog whose first document is a template (`olmlint lint template.yaml`).
pub fn is_template_file(f: &LoadedFile) -> bool {
    matches!(f.role, Role::Template | Role::Fbc) && schema_of(f).is_some()
}

fn err(file: usize, span: olmlint_base::tree::Span, rule: &'static str, msg: String) -> Diagnostic {
    Diagnostic::new(rule, msg).at(file, span)
}

/// Read the template of file `fi`; what opm would refuse or drop is reported.
pub fn read<'a>(
    files: &'a [LoadedFile],
    fi: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Template<'a>> {
    let f = files.get(fi)?;
    let schema = schema_of(f)?;
    let mut docs = f.docs.iter().filter(|d| !d.failed);
    let first = docs.next()?;
    let root = first.root.as_ref()?;
    let rule = if schema == BASIC { "OLM901" } else { "OLM902" };
    if let Some(extra) = docs.next() {
        diags.push(
            err(fi, extra.span, rule, format!(
                "{schema} template: this document and any after it are ignored (opm reads only the first document of a template)"
            ))
            .severity(Severity::Warning)
            .pointer("")
            .help("Merge the entries into the first document, or move them to a template of their own (and map it in ci.yaml)."),
        );
    }
    let doc = DocRef {
        file: fi,
        doc: first.index,
        node: root,
    };
    let body = if schema == BASIC {
        Body::Basic(basic(fi, root, diags))
    } else {
        Body::Semver(semver(fi, root, diags))
    };
    Some(Template { doc, body })
}

/// ` (did you mean `Key`?)` for an unknown key (`suggest` compares case-insensitively).
fn did_you_mean(key: &str, known: &[&'static str]) -> String {
    olmlint_base::suggest::closest(key, known.iter().copied())
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

fn basic<'a>(fi: usize, root: &'a Node, diags: &mut Vec<Diagnostic>) -> Basic<'a> {
    let mut out = Basic {
        blobs: Vec::new(),
        bundles: Vec::new(),
        bundle_entries: 0,
        entry_spans: Vec::new(),
    };
    let Some(map) = root.as_map() else {
        return out;
    };
    for e in map {
        if !e.key.eq_ignore_ascii_case("schema") && !e.key.eq_ignore_ascii_case("entries") {
            diags.push(
                err(fi, e.key_span, "OLM901", format!(
                    "olm.template.basic: unknown key `{}` is ignored by opm{}",
                    &*e.key,
                    did_you_mean(&e.key, &["schema", "entries"])
                ))
                .severity(Severity::Warning)
                .pointer(ptr("", &*e.key))
                .help("opm decodes the template with Go's json.Unmarshal, which drops keys it does not know without a word; only `schema` and `entries` mean anything."),
            );
        }
    }
    let Some(entries) = root.get_folded("entries") else {
        diags.push(
            err(fi, root.span, "OLM901", "olm.template.basic has no `entries`: opm renders it to an empty catalog".into())
                .pointer("")
                .help("List the package, its channels and its bundles (`{schema: olm.bundle, image: ...}`) under `entries:`."),
        );
        return out;
    };
    let Some(items) = entries.value.as_seq() else {
        if !entries.value.is_null() {
            diags.push(
                err(fi, entries.value.span, "OLM901", format!(
                    "olm.template.basic `entries` is {}, not a list: json: cannot unmarshal {} into Go struct field BasicTemplateData.entries of type []*declcfg.Meta",
                    entries.value.display_scalar(),
                    entries.value.go_kind()
                ))
                .pointer("/entries")
                .help("`entries` is a list of catalog objects."),
            );
        }
        return out;
    };
    let mut named: Vec<(usize, &Entry)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        out.entry_spans.push(item.span);
        let pointer = format!("/entries/{i}");
        let Some(m) = item.as_map() else {
            diags.push(
                err(fi, item.span, "OLM901", format!("entries[{i}] is {}, not a catalog object", item.display_scalar()))
                    .pointer(pointer)
                    .help("Each entry is a mapping with a `schema` (olm.package, olm.channel, olm.bundle, olm.deprecations)."),
            );
            continue;
        };
        let schema = item.get_folded("schema").and_then(|e| e.value.as_str());
        if schema != Some("olm.bundle") {
            unknown_blob_keys(fi, schema, m, &pointer, diags);
            out.blobs.push((i, item));
            continue;
        }
        out.bundle_entries += 1;
        named.extend(bundle_entry(fi, i, item, m, &pointer, &mut out, diags));
    }
    ignored_names(fi, &named, diags);
    out
}

/// Keys of package and channel blobs (and channel entries) that Go's json.Unmarshal knows;
/// any other is dropped from the rendered catalog without a word.
fn unknown_blob_keys(
    fi: usize,
    schema: Option<&str>,
    m: &[Entry],
    pointer: &str,
    diags: &mut Vec<Diagnostic>,
) {
    const PACKAGE: [&str; 6] = [
        "schema",
        "name",
        "defaultChannel",
        "icon",
        "description",
        "properties",
    ];
    const CHANNEL: [&str; 5] = ["schema", "package", "name", "entries", "properties"];
    const ENTRY: [&str; 4] = ["name", "replaces", "skips", "skipRange"];
    let known: &[&'static str] = match schema {
        Some("olm.package") => &PACKAGE,
        Some("olm.channel") => &CHANNEL,
        _ => return,
    };
    let mut warn = |e: &Entry, p: String, known: &[&'static str], what: &str| {
        diags.push(
            err(fi, e.key_span, "OLM901", format!(
                "unknown key `{}` in {what} is dropped by opm{}",
                &*e.key,
                did_you_mean(&e.key, known)
            ))
            .severity(Severity::Warning)
            .pointer(p)
            .help(format!(
                "opm copies {what} into the catalog through Go's json.Unmarshal, which keeps only {} (case-insensitively); this key is lost.",
                known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )),
        );
    };
    for e in m {
        if !known.iter().any(|k| k.eq_ignore_ascii_case(&e.key)) {
            warn(e, ptr(pointer, &*e.key), known, schema.unwrap_or(""));
        }
    }
    if schema == Some("olm.channel") {
        let Some(entries) = m
            .iter()
            .rev()
            .find(|e| e.key.eq_ignore_ascii_case("entries"))
        else {
            return;
        };
        for (j, item) in entries.value.as_seq().unwrap_or(&[]).iter().enumerate() {
            for e in item.as_map().unwrap_or(&[]) {
                if !ENTRY.iter().any(|k| k.eq_ignore_ascii_case(&e.key)) {
                    let p = ptr(&format!("{}/{j}", ptr(pointer, &*entries.key)), &*e.key);
                    warn(e, p, &ENTRY, "a channel entry");
                }
            }
        }
    }
}

fn bundle_entry<'a>(
    fi: usize,
    i: usize,
    item: &'a Node,
    m: &'a [Entry],
    pointer: &str,
    out: &mut Basic<'a>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(usize, &'a Entry)> {
    let mut image = None;
    let mut named = None;
    for e in m {
        let k = e.key.to_ascii_lowercase();
        match k.as_str() {
            "schema" => {}
            "image" => image = Some(e),
            "package" | "properties" | "relatedimages" => {
                let empty = e.value.is_null()
                    || e.value.as_seq().is_some_and(<[Node]>::is_empty)
                    || e.value.as_str() == Some("");
                if !empty {
                    diags.push(
                        err(fi, e.key_span, "OLM901", format!(
                            "unexpected fields present in basic template bundle: `{}` (entries[{i}])",
                            &*e.key
                        ))
                        .pointer(ptr(pointer, &*e.key))
                        .help("opm refuses the template: a basic template's bundle is only `{schema: olm.bundle, image: <bundle image>}`; opm renders its name, package, properties and related images from the image. Remove this key."),
                    );
                }
            }
            "name" => named = Some((i, e)),
            _ => diags.push(
                err(fi, e.key_span, "OLM901", format!(
                    "unknown key `{}` in a basic template bundle is ignored by opm{}",
                    &*e.key,
                    did_you_mean(&e.key, &["schema", "image"])
                ))
                .severity(Severity::Warning)
                .pointer(ptr(pointer, &*e.key))
                .help("A basic template's bundle is only `{schema: olm.bundle, image: <bundle image>}`."),
            ),
        }
    }
    match image.and_then(|e| e.value.as_str().map(|s| (e, s))) {
        Some((e, s)) if !s.trim().is_empty() => out.bundles.push(ImageRef {
            image: Str { value: s, node: &e.value },
            node: item,
            pointer: ptr(pointer, &*e.key),
        }),
        _ => diags.push(
            err(fi, image.map_or(item.span, |e| e.value.span), "OLM901", format!(
                "unexpected fields present in basic template bundle: entries[{i}] has no image"
            ))
            .pointer(image.map_or_else(|| pointer.to_string(), |_| format!("{pointer}/image")))
            .help("opm refuses the template: every `olm.bundle` entry of a basic template needs `image: <bundle image pull spec>`."),
        ),
    }
    named
}

/// OLM901 (info) once per template for the bundle entries that set `name` (opm ignores it):
/// at the first, counting them all, with a few others as related locations.
fn ignored_names(fi: usize, named: &[(usize, &Entry)], diags: &mut Vec<Diagnostic>) {
    const SHOWN: usize = 3;
    let Some((first, e)) = named.first() else {
        return;
    };
    let which = match named.len() {
        1 => format!("entries[{first}] sets it"),
        n => format!("{n} bundle entries set it, the first entries[{first}]"),
    };
    let mut d = err(fi, e.key_span, "OLM901", format!(
        "`name` of a basic template bundle is ignored: opm names each bundle after its CSV ({which})"
    ))
    .severity(Severity::Info)
    .pointer(ptr(&format!("/entries/{first}"), &*e.key))
    .help("Channel entries must use the CSV's `metadata.name`; a different name here changes nothing. Remove these names to avoid confusion.");
    for (i, e) in named.iter().skip(1).take(SHOWN) {
        d = d.related(
            format!("entries[{i}] sets `name` too"),
            Some(olmlint_base::diag::Location {
                file: fi,
                span: e.key_span,
            }),
        );
    }
    if let Some(rest) = named.len().checked_sub(SHOWN + 1).filter(|n| *n > 0) {
        d = d.related(format!("and {rest} more bundle entries"), None);
    }
    diags.push(d);
}

const SEMVER_KEYS: [&str; 7] = [
    "Schema",
    "GenerateMajorChannels",
    "GenerateMinorChannels",
    "DefaultChannelTypePreference",
    "Candidate",
    "Fast",
    "Stable",
];

fn unknown_field(
    fi: usize,
    e: &Entry,
    pointer: String,
    known: &[&'static str],
    what: &str,
) -> Diagnostic {
    err(fi, e.key_span, "OLM902", format!(
        "olm.semver: json: unknown field \"{}\"{}",
        &*e.key,
        did_you_mean(&e.key, known)
    ))
    .pointer(pointer)
    .help(format!(
        "opm decodes semver templates strictly and refuses the whole template. {what} Keys match case-insensitively (`Stable` = `stable`)."
    ))
}

fn semver<'a>(fi: usize, root: &'a Node, diags: &mut Vec<Diagnostic>) -> Semver<'a> {
    let mut out = Semver {
        generate_major: false,
        generate_minor: false,
        preference: None,
        bundles: Vec::new(),
    };
    let Some(map) = root.as_map() else {
        return out;
    };
    let mut seen: Vec<(String, &Entry)> = Vec::new();
    for e in map {
        let lower = e.key.to_ascii_lowercase();
        let Some(&canonical) = SEMVER_KEYS.iter().find(|k| k.eq_ignore_ascii_case(&lower)) else {
            diags.push(unknown_field(
                fi,
                e,
                ptr("", &*e.key),
                &SEMVER_KEYS,
                "The keys are Schema, GenerateMajorChannels, GenerateMinorChannels, DefaultChannelTypePreference and the channel archetypes Candidate, Fast and Stable (no others).",
            ));
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(l, _)| *l == lower) {
            if first.key != e.key {
                diags.push(
                    err(fi, e.key_span, "OLM902", format!(
                        "olm.semver: `{}` and `{}` (line of the first) are the same field; opm decodes only one of them, and the other's content is lost",
                        &*e.key, &*first.key
                    ))
                    .severity(Severity::Warning)
                    .pointer(ptr("", &*e.key))
                    .help(format!("Merge the two into one `{canonical}:` block.")),
                );
            }
        }
        seen.push((lower.clone(), e));
        let p = ptr("", &*e.key);
        match canonical {
            "Schema" => {}
            "GenerateMajorChannels" | "GenerateMinorChannels" => match e.value.value {
                Value::Bool(b) => {
                    if canonical == "GenerateMajorChannels" {
                        out.generate_major = b;
                    } else {
                        out.generate_minor = b;
                    }
                }
                Value::Null => {}
                _ => diags.push(
                    err(fi, e.value.span, "OLM902", format!(
                        "olm.semver: json: cannot unmarshal {} into Go struct field SemverTemplateData.{} of type bool",
                        e.value.go_kind(),
                        canonical
                    ))
                    .pointer(p)
                    .help(format!("Write `{canonical}: true` or `false` (unquoted).")),
                ),
            },
            "DefaultChannelTypePreference" => match e.value.as_str() {
                Some(s) => {
                    out.preference = Some(Str { value: s, node: &e.value });
                }
                None if e.value.is_null() => {}
                None => diags.push(
                    err(fi, e.value.span, "OLM902", format!(
                        "olm.semver: json: cannot unmarshal {} into Go struct field SemverTemplateData.{canonical} of type semver.streamType",
                        e.value.go_kind()
                    ))
                    .pointer(p)
                    .help("Write `minor` or `major`."),
                ),
            },
            _ => {
                let arch = match canonical {
                    "Candidate" => Archetype::Candidate,
                    "Fast" => Archetype::Fast,
                    _ => Archetype::Stable,
                };
                archetype(fi, arch, &e.value, &p, &mut out, diags);
            }
        }
    }
    // opm: neither generation flag → minor channels.
    if !out.generate_major && !out.generate_minor {
        out.generate_minor = true;
    }
    if let Some(pref) = out.preference {
        let problem = match pref.value {
            "" => None,
            "minor" if !out.generate_minor => Some(
                "schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels".to_string(),
            ),
            "major" if !out.generate_major => Some(
                "schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels".to_string(),
            ),
            "minor" | "major" => None,
            other => Some(format!(
                "unknown DefaultChannelTypePreference: {other:?}; valid values are 'major' or 'minor'{}",
                if other.eq_ignore_ascii_case("major") || other.eq_ignore_ascii_case("minor") {
                    " (the value is case-sensitive)".to_string()
                } else {
                    String::new()
                }
            )),
        };
        if let Some(msg) = problem {
            diags.push(
                err(fi, pref.node.span, "OLM902", format!("olm.semver: {msg}"))
                    .pointer("/DefaultChannelTypePreference")
                    .help("opm refuses the template. Generate the channel kind you prefer (`GenerateMajorChannels: true` / `GenerateMinorChannels: true`) or change the preference."),
            );
        }
    }
    if out.bundles.is_empty() {
        diags.push(
            err(fi, root.span, "OLM902", "olm.semver: render: no bundles specified or no bundles could be rendered".into())
                .pointer("")
                .help("List bundle images under `Stable: {Bundles: [{Image: ...}]}` (or Candidate / Fast)."),
        );
    }
    out
}

fn archetype<'a>(
    fi: usize,
    arch: Archetype,
    v: &'a Node,
    pointer: &str,
    out: &mut Semver<'a>,
    diags: &mut Vec<Diagnostic>,
) {
    if v.is_null() {
        return;
    }
    let Some(m) = v.as_map() else {
        diags.push(
            err(fi, v.span, "OLM902", format!(
                "olm.semver: json: cannot unmarshal {} into Go struct field SemverTemplateData.{} of type semver.channelBundles",
                v.go_kind(),
                arch.name()
            ))
            .pointer(pointer.to_string())
            .help("An archetype is a mapping: `Stable: {Bundles: [{Image: ...}]}`."),
        );
        return;
    };
    for e in m {
        if !e.key.eq_ignore_ascii_case("bundles") {
            diags.push(unknown_field(
                fi,
                e,
                ptr(pointer, &*e.key),
                &["Bundles"],
                "An archetype has only `Bundles`.",
            ));
            continue;
        }
        let bp = ptr(pointer, &*e.key);
        let Some(items) = e.value.as_seq() else {
            if !e.value.is_null() {
                diags.push(
                    err(fi, e.value.span, "OLM902", format!(
                        "olm.semver: json: cannot unmarshal {} into Go struct field channelBundles.Bundles of type []semver.bundleEntry",
                        e.value.go_kind()
                    ))
                    .pointer(bp)
                    .help("`Bundles` is a list of `{Image: <bundle image>}`."),
                );
            }
            continue;
        };
        for (j, item) in items.iter().enumerate() {
            let ip = format!("{bp}/{j}");
            let Some(im) = item.as_map() else {
                diags.push(
                    err(fi, item.span, "OLM902", format!(
                        "olm.semver: json: cannot unmarshal {} into Go struct field of type semver.bundleEntry",
                        item.go_kind()
                    ))
                    .pointer(ip)
                    .help("Each bundle is `{Image: <bundle image>}`."),
                );
                continue;
            };
            let mut image = None;
            for ie in im {
                if ie.key.eq_ignore_ascii_case("image") {
                    image = Some(ie);
                } else {
                    diags.push(unknown_field(
                        fi,
                        ie,
                        ptr(&ip, &*ie.key),
                        &["Image"],
                        "A bundle has only `Image`; opm names it after its CSV.",
                    ));
                }
            }
            match image.and_then(|e| e.value.as_str().map(|s| (e, s))) {
                Some((e, s)) if !s.trim().is_empty() => out.bundles.push((
                    arch,
                    ImageRef {
                        image: Str {
                            value: s,
                            node: &e.value,
                        },
                        node: item,
                        pointer: ptr(&ip, &*e.key),
                    },
                )),
                _ => diags.push(
                    err(
                        fi,
                        image.map_or(item.span, |e| e.value.span),
                        "OLM902",
                        format!("olm.semver: a {} bundle has no image", arch.name()),
                    )
                    .pointer(ip)
                    .help("opm cannot render a bundle without `Image: <bundle image pull spec>`."),
                ),
            }
        }
    }
}

/// A bundle of a rendered catalog (`catalogs/<v>/<op>/catalog.yaml`).
#[derive(Debug, Clone)]
pub struct RenderedBundle<'a> {
    pub doc: DocRef<'a>,
    pub name: &'a str,
    pub package: &'a str,
    /// The `olm.package` property's version.
    pub version: Option<String>,
}

/// The bundles of the rendered catalog file `fi` (modelled in `cat`), by image (the first one
/// wins).
pub fn rendered_bundles<'a>(
    cat: &super::Catalog<'a>,
    fi: usize,
) -> std::collections::HashMap<&'a str, RenderedBundle<'a>> {
    let mut out = std::collections::HashMap::new();
    for b in cat.bundles.iter().filter(|b| b.doc.file == fi) {
        let Some(image) = b.image.map(|i| i.value) else {
            continue;
        };
        out.entry(image).or_insert_with(|| RenderedBundle {
            doc: b.doc,
            name: b.name.map_or("", |n| n.value),
            package: b.package.map_or("", |p| p.value),
            version: b.version().map(|v| v.value.to_string()),
        });
    }
    out
}

/// The catalog a basic template renders to, as far as it is known offline: its package,
/// channel and deprecation entries as written (positions in the template), and the bundles
/// of the rendered catalog whose images the template lists. A package with bundles that no
/// rendered catalog resolves is opaque (checks that something is missing hold back).
/// Returns the catalog and the template bundles resolved (by index) to rendered documents.
pub fn basic_catalog<'r, 'a>(
    t: &Template<'a>,
    b: &Basic<'a>,
    rendered: &'r std::collections::HashMap<&'a str, RenderedBundle<'a>>,
    diags: &mut Vec<Diagnostic>,
) -> (super::Catalog<'a>, Vec<Option<&'r RenderedBundle<'a>>>) {
    let mut cat = super::Catalog::default();
    for (_, node) in &b.blobs {
        super::decode::document(
            &mut cat,
            DocRef {
                file: t.doc.file,
                doc: t.doc.doc,
                node,
            },
            false,
            diags,
        );
    }
    let mut resolved = Vec::with_capacity(b.bundles.len());
    let mut scratch = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in &b.bundles {
        let hit = rendered.get(r.image.value);
        // A second listing of an image is OLM903's; the bundle is modelled once.
        if let Some(rb) = hit.filter(|_| seen.insert(r.image.value)) {
            // Its decoding findings belong to the rendered catalog's own run.
            super::decode::document(&mut cat, rb.doc, false, &mut scratch);
        }
        resolved.push(hit);
    }
    if resolved.iter().flatten().count() < b.bundle_entries {
        let names: Vec<String> = cat
            .packages
            .iter()
            .filter_map(|p| p.name.map(|n| n.value.to_string()))
            .chain(
                cat.channels
                    .iter()
                    .filter_map(|c| c.package.map(|p| p.value.to_string())),
            )
            .collect();
        cat.opaque_packages.extend(names);
    }
    cat.documents = b.blobs.len() + b.bundles.len();
    (cat, resolved)
}
