//! registry+v1 bundle directories (`manifests/`, `metadata/`), converted into model bundles the
//! way `opm render` converts them (spec §2.2, §2.4). Files are recognised by content, not name.

use super::operators::str_at;
use super::{Bundle, Catalog, DocRef, Property, Str};
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Entry, Node, Span, Style, Value};
use olmlint_load::{Embedded, Limits, LoadedFile};
use std::borrow::Cow;

use super::operators::PACKAGE as PACKAGE_ANNOTATION;

pub fn load_all<'a>(
    files: &'a [LoadedFile],
    scope: usize,
    cat: &mut Catalog<'a>,
    diags: &mut Vec<Diagnostic>,
) {
    // The files of each bundle directory of this catalog, found in one pass over the files.
    // Only this scope's: with one scope per path (`olmlint lint operators/*`), grouping every
    // file of the run for each scope was O(scopes × files), 42 % of a 50-operator run.
    let by_root = olmlint_load::bundle_directories(files, scope);
    for (&root, members) in &by_root {
        load_one(files, root, members, cat, diags);
    }
}

fn docs_in<'a>(files: &'a [LoadedFile], members: &[usize]) -> Vec<DocRef<'a>> {
    let mut out = Vec::new();
    for &fi in members {
        let Some(f) = files.get(fi) else { continue };
        for d in &f.docs {
            if let Some(node) = d.root.as_ref() {
                out.push(DocRef {
                    file: fi,
                    doc: d.index,
                    node,
                });
            }
        }
    }
    out
}

fn in_metadata(files: &[LoadedFile], d: &DocRef<'_>) -> bool {
    files
        .get(d.file)
        .and_then(|f| f.source.path.parent())
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "metadata")
}

fn owned_map(span: Span, pairs: Vec<(&str, Node)>) -> Node {
    let entries = pairs
        .into_iter()
        .map(|(k, value)| Entry {
            key: k.into(),
            key_span: span,
            value,
        })
        .collect();
    Node::new(span, Style::None, Value::Map(entries))
}

fn owned_str(span: Span, s: &str) -> Node {
    Node::new(span, Style::None, Value::String(s.into()))
}

/// JSON pointer of the CSV's `olm.properties` annotation.
pub const ANNOTATION_POINTER: &str = "/metadata/annotations/olm.properties";

/// The `olm.properties` annotation node of a CSV document.
pub fn properties_annotation(csv: &Node) -> Option<&Node> {
    csv.get("metadata")?
        .get("annotations")?
        .get("olm.properties")
}

/// The annotation decoded as opm decodes it (`json.Unmarshal` into `[]property.Property`):
/// the list of `{type, value}` items, or why opm drops all of them. Parsed once per file.
pub fn parse_properties_annotation<'a>(
    file: &'a LoadedFile,
    node: &Node,
) -> &'a Result<Node, String> {
    &file
        .embedded
        .get_or_init(|| {
            let text = node.as_str().unwrap_or_default().to_string();
            let original = decode_annotation(node);
            let root = original.clone().map(|mut root| {
                respan(&mut root, node.span);
                root
            });
            Embedded {
                span: node.span,
                root,
                text,
                original: original.ok(),
            }
        })
        .root
}

fn decode_annotation(node: &Node) -> Result<Node, String> {
    let Some(text) = node.as_str() else {
        return Err(format!(
            "the annotation is {}, not a string (Kubernetes annotations are strings)",
            node.display_scalar()
        ));
    };
    let mut problems = Vec::new();
    let docs = olmlint_load::json::parse_stream(text, &Limits::default(), &mut problems);
    if let Some(p) = problems.first() {
        return Err(p.message.clone());
    }
    let mut roots = docs.into_iter().filter_map(|d| d.root);
    let Some(root) = roots.next() else {
        return Err("unexpected end of JSON input".into());
    };
    if roots.next().is_some() {
        return Err("invalid character after top-level value".into());
    }
    let unmarshal = |what: &Node, into: &str| {
        format!("json: cannot unmarshal {} into Go {into}", what.go_kind())
    };
    match &root.value {
        Value::Null => {}
        Value::Seq(items) => {
            for item in items {
                match &item.value {
                    Value::Null => {}
                    Value::Map(_) => {
                        if let Some(t) = item
                            .get("type")
                            .filter(|t| t.as_str().is_none() && !t.is_null())
                        {
                            return Err(unmarshal(t, "struct field Property.type of type string"));
                        }
                    }
                    _ => return Err(unmarshal(item, "value of type property.Property")),
                }
            }
        }
        _ => return Err(unmarshal(&root, "value of type []property.Property")),
    }
    Ok(root)
}

/// Point every node of an embedded document at the string that holds it.
pub fn respan(root: &mut Node, span: Span) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        n.span = span;
        match &mut n.value {
            Value::Seq(items) => stack.extend(items.iter_mut()),
            Value::Map(entries) => {
                for e in entries.iter_mut() {
                    e.key_span = span;
                    stack.push(&mut e.value);
                }
            }
            _ => {}
        }
    }
}

fn load_one<'a>(
    files: &'a [LoadedFile],
    root: &'a std::path::Path,
    members: &[usize],
    cat: &mut Catalog<'a>,
    diags: &mut Vec<Diagnostic>,
) {
    // One root cause, one finding: a bundle directory with a file that does not parse is
    // left out of the model (its OLM001 stands alone), instead of a bundle without a name or
    // version that every later check would report again.
    let broken = members
        .iter()
        .any(|&fi| files.get(fi).is_some_and(|f| !f.problems.is_empty()));
    if broken {
        return;
    }
    let docs = docs_in(files, members);
    cat.documents += docs.len();
    let annotations = docs.iter().find(|d| {
        in_metadata(files, d)
            && d.node
                .get("annotations")
                .and_then(|a| a.get(PACKAGE_ANNOTATION))
                .is_some()
    });
    let csv = docs
        .iter()
        .find(|d| d.node.get("kind").and_then(Node::as_str) == Some("ClusterServiceVersion"));
    let Some(ann) = annotations else { return };
    let package = str_at(ann.node, &["annotations", PACKAGE_ANNOTATION]);
    // Without a CSV there is no bundle name, version or API to model: one finding, not a
    // nameless bundle that every later check reports again.
    let Some(csv) = csv else {
        diags.push(no_csv(root, ann, package));
        return;
    };
    let mut properties = Properties::default();
    properties.package(ann, csv, package);
    properties.crd_lists(csv);
    properties.provided_apis(csv, &docs);
    // dependencies.yaml and properties.yaml, found by content; the first of each wins.
    let meta_docs: Vec<&DocRef<'a>> = docs.iter().filter(|d| in_metadata(files, d)).collect();
    properties.dependencies(&meta_docs);
    properties.declared(files, &meta_docs, csv);
    properties.type_synthesised(csv);
    let described = super::operators::describe(cat.bundles.len(), root, *ann, *csv);
    if described.channels_left_out > 0 {
        diags.push(too_many_channels(ann, &described, package));
    }
    cat.dir_bundles.push(described);
    cat.bundles.push(Bundle {
        doc: *csv,
        package,
        name: str_at(csv.node, &["metadata", "name"]),
        image: None,
        properties: properties.list,
        related_images: vec![],
        from_directory: true,
    });
}

/// OLM104: the bundle directory at `root` (its annotations `ann`) has no CSV.
fn no_csv(root: &std::path::Path, ann: &DocRef<'_>, package: Option<Str<'_>>) -> Diagnostic {
    Diagnostic::new(
        "OLM104",
        format!(
            "bundle directory {} has no ClusterServiceVersion in manifests/: opm and the \
             bundle tooling reject a registry+v1 bundle without one",
            olmlint_load::display_path(root)
        ),
    )
    .at(ann.file, ann.node.span)
    .package(package.map(|p| p.value))
    .help(
        "Add the operator's ClusterServiceVersion (`<name>.clusterserviceversion.yaml`, \
         kind: ClusterServiceVersion) to the bundle's manifests/ directory.",
    )
}

/// OLM001: the annotations (`ann`) list more channels than olmlint models for one bundle.
fn too_many_channels(
    ann: &DocRef<'_>,
    described: &super::operators::DirBundle<'_>,
    package: Option<Str<'_>>,
) -> Diagnostic {
    let max = super::operators::MAX_CHANNELS_PER_BUNDLE;
    Diagnostic::new(
        "OLM001",
        format!(
            "{} lists {} channels, more than olmlint models for one bundle ({max}): the last {} are left out of every check",
            super::operators::CHANNELS,
            max + described.channels_left_out,
            described.channels_left_out
        ),
    )
    .at(ann.file, described.channels_node.map_or(ann.node.span, |n| n.span))
    .pointer(format!("/annotations/{}", super::operators::CHANNELS))
    .package(package.map(|p| p.value))
    .help("An input limit: every channel a bundle is in costs memory in every channel check, so thousands per bundle would exhaust it. A bundle is normally in a handful of channels; list only those it is released to.")
}

/// A `{group, kind, version}` map, every node at `span`.
fn gvk_map(span: Span, group: &str, kind: &str, version: &str) -> Node {
    owned_map(
        span,
        vec![
            ("group", owned_str(span, group)),
            ("kind", owned_str(span, kind)),
            ("version", owned_str(span, version)),
        ],
    )
}

/// A group, version, kind and the pointer of what declares them.
type Api = (String, String, String, String);

/// The properties of a bundle directory's bundle, in the order opm converts them: olm.package,
/// the CSV's CRDs and provided APIs, dependencies.yaml, properties.yaml, the CSV's
/// `olm.properties` annotation.
#[derive(Default)]
struct Properties<'a> {
    list: Vec<Property<'a>>,
}

impl<'a> Properties<'a> {
    fn push(
        &mut self,
        file: usize,
        item: Option<&'a Node>,
        ty: Option<Str<'a>>,
        value: Cow<'a, Node>,
        pointer: String,
    ) {
        let index = self.list.len();
        self.list.push(Property {
            index,
            file,
            item,
            ty,
            value: Some(value),
            pointer,
        });
    }

    /// olm.package, built from the annotations and the CSV version.
    fn package(&mut self, ann: &DocRef<'a>, csv: &DocRef<'a>, package: Option<Str<'a>>) {
        let version = str_at(csv.node, &["spec", "version"]);
        let span = version.map_or(ann.node.span, |v| v.node.span);
        self.push(
            csv.file,
            None,
            None,
            Cow::Owned(owned_map(
                span,
                vec![
                    (
                        "packageName",
                        owned_str(span, package.map_or("", |p| p.value)),
                    ),
                    ("version", owned_str(span, version.map_or("", |v| v.value))),
                ],
            )),
            "/spec/version".into(),
        );
    }

    /// The CSV's owned and required CRDs (olm.gvk and olm.gvk.required, typed by
    /// [`Self::type_synthesised`]), group = the CRD name after its first dot.
    fn crd_lists(&mut self, c: &DocRef<'a>) {
        for kind in ["owned", "required"] {
            let crds = c
                .node
                .get("spec")
                .and_then(|s| s.get("customresourcedefinitions"))
                .and_then(|s| s.get(kind));
            for (i, crd) in crds
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                let group = crd
                    .get("name")
                    .and_then(Node::as_str)
                    .and_then(|n| n.split_once('.'))
                    .map_or("", |(_, g)| g);
                let field = |k: &str| crd.get(k).and_then(Node::as_str).unwrap_or("");
                let v = gvk_map(crd.span, group, field("kind"), field("version"));
                self.push(
                    c.file,
                    Some(crd),
                    None,
                    Cow::Owned(v),
                    format!("/spec/customresourcedefinitions/{kind}/{i}"),
                );
            }
        }
        // opm's `Bundle.RequiredAPIs` also counts the required APIService definitions:
        // `opm render` turns them into olm.gvk.required too.
        let services = c
            .node
            .get("spec")
            .and_then(|s| s.get("apiservicedefinitions"))
            .and_then(|s| s.get("required"));
        for (i, api) in services
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let field = |k: &str| api.get(k).and_then(Node::as_str).unwrap_or("");
            let v = gvk_map(api.span, field("group"), field("kind"), field("version"));
            self.push(
                c.file,
                Some(api),
                None,
                Cow::Owned(v),
                format!("/spec/apiservicedefinitions/required/{i}"),
            );
        }
    }

    /// The APIs opm says the bundle provides (`registry.Bundle.ProvidedAPIs`): every version
    /// of every CRD in manifests/ and the CSV's owned APIService definitions, beside the owned
    /// list (kept, so a CRD missing from manifests/ is not a new finding), as olm.gvk.
    fn provided_apis(&mut self, c: &DocRef<'a>, docs: &[DocRef<'a>]) {
        let gvk_type = Some(Str {
            value: "olm.gvk",
            node: c.node,
        });
        let mut seen = owned_crds(c);
        let mut provided = manifest_crds(docs);
        provided.extend(owned_api_services(c));
        for (group, version, kind, pointer) in provided {
            if !seen.insert((group.clone(), version.clone(), kind.clone())) {
                continue;
            }
            let v = gvk_map(c.node.span, &group, &kind, &version);
            self.push(c.file, None, gvk_type, Cow::Owned(v), pointer);
        }
    }

    /// The dependencies of the first metadata document listing any, converted as opm converts
    /// them: olm.gvk to olm.gvk.required, olm.package to olm.package.required (its `version`
    /// renamed `versionRange`); an item without a type is left out.
    fn dependencies(&mut self, meta_docs: &[&DocRef<'a>]) {
        let deps = meta_docs.iter().find(|d| {
            d.node
                .get("dependencies")
                .and_then(Node::as_seq)
                .is_some_and(|s| !s.is_empty())
        });
        let Some(d) = deps else { return };
        for (i, item) in d
            .node
            .get("dependencies")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let p = format!("/dependencies/{i}");
            let ty = str_at(item, &["type"]);
            let Some(value) = item.get("value") else {
                continue;
            };
            if let Some((ty, v)) = required(ty, value) {
                self.push(d.file, Some(item), ty, v, p);
            }
        }
    }

    /// properties.yaml, then the CSV's `olm.properties` annotation: opm appends the entries of
    /// both, or drops all of the annotation's (logging a warning) when it does not decode (§2.2).
    fn declared(&mut self, files: &'a [LoadedFile], meta_docs: &[&DocRef<'a>], csv: &DocRef<'a>) {
        let props = meta_docs.iter().find_map(|d| {
            let items = d.node.get("properties")?.as_seq()?;
            Some((d.file, items, None))
        });
        let annotation = files.get(csv.file).and_then(|file| {
            let root = parse_properties_annotation(file, properties_annotation(csv.node)?);
            Some((
                csv.file,
                root.as_ref().ok()?.as_seq()?,
                Some(ANNOTATION_POINTER),
            ))
        });
        for (file, items, pointer) in [props, annotation].into_iter().flatten() {
            for (i, item) in items.iter().enumerate() {
                if let Some(value) = item.get("value") {
                    self.push(
                        file,
                        Some(item),
                        str_at(item, &["type"]),
                        Cow::Borrowed(value),
                        pointer.map_or_else(|| format!("/properties/{i}"), str::to_string),
                    );
                }
            }
        }
    }

    /// Synthesised properties have no `type` node: point their type at the anchor document.
    fn type_synthesised(&mut self, anchor: &DocRef<'a>) {
        for p in self
            .list
            .iter_mut()
            .filter(|p| p.ty.is_none() && p.item.is_none_or(|_| p.pointer.starts_with("/spec")))
        {
            let ty = if p.pointer == "/spec/version" {
                "olm.package"
            } else if p.pointer.contains("/owned/") {
                "olm.gvk"
            } else {
                "olm.gvk.required"
            };
            p.ty = Some(Str {
                value: ty,
                node: anchor.node,
            });
        }
    }
}

/// A dependency's type and value as opm converts them into a property, or `None` (left out)
/// when it has no type.
fn required<'a>(ty: Option<Str<'a>>, value: &'a Node) -> Option<(Option<Str<'a>>, Cow<'a, Node>)> {
    let (new_ty, v) = match ty.map(|t| t.value) {
        Some("olm.gvk") => ("olm.gvk.required", Cow::Borrowed(value)),
        Some("olm.package") => {
            let mut v = value.clone();
            if let Value::Map(entries) = &mut v.value {
                for e in entries.iter_mut() {
                    if &*e.key == "version" {
                        e.key = "versionRange".into();
                    }
                }
            }
            ("olm.package.required", Cow::Owned(v))
        }
        Some(_) => ("", Cow::Borrowed(value)),
        None => return None,
    };
    let ty = if new_ty.is_empty() {
        ty
    } else {
        ty.map(|t| Str {
            value: new_ty,
            node: t.node,
        })
    };
    Some((ty, v))
}

/// The CSV's owned CRDs as [`Properties::crd_lists`] models them: (group, version, kind).
fn owned_crds(c: &DocRef<'_>) -> std::collections::HashSet<(String, String, String)> {
    c.node
        .get("spec")
        .and_then(|s| s.get("customresourcedefinitions"))
        .and_then(|s| s.get("owned"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(|crd| {
            let f = |k: &str| crd.get(k).and_then(Node::as_str).unwrap_or("");
            let group = f("name").split_once('.').map_or("", |(_, g)| g);
            (
                group.to_string(),
                f("version").to_string(),
                f("kind").to_string(),
            )
        })
        .collect()
}

/// Every version of every CustomResourceDefinition among the bundle's documents.
fn manifest_crds(docs: &[DocRef<'_>]) -> Vec<Api> {
    let mut provided: Vec<Api> = Vec::new();
    for d in docs
        .iter()
        .filter(|d| d.node.get("kind").and_then(Node::as_str) == Some("CustomResourceDefinition"))
    {
        let spec = d.node.get("spec");
        let text = |n: Option<&Node>| n.and_then(Node::as_str).unwrap_or("").to_string();
        let group = text(spec.and_then(|s| s.get("group")));
        let kind = text(
            spec.and_then(|s| s.get("names"))
                .and_then(|n| n.get("kind")),
        );
        let versions = spec
            .and_then(|s| s.get("versions"))
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|v| text(v.get("name")))
            .chain(spec.and_then(|s| s.get("version")).map(|v| text(Some(v))));
        for version in versions.filter(|v| !v.is_empty()) {
            provided.push((
                group.clone(),
                version,
                kind.clone(),
                "/spec/customresourcedefinitions".into(),
            ));
        }
    }
    provided
}

/// The CSV's owned APIService definitions.
fn owned_api_services<'c>(c: &DocRef<'c>) -> impl Iterator<Item = Api> + 'c {
    let apis = c
        .node
        .get("spec")
        .and_then(|s| s.get("apiservicedefinitions"))
        .and_then(|s| s.get("owned"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    apis.iter().enumerate().map(|(i, api)| {
        let f = |k: &str| api.get(k).and_then(Node::as_str).unwrap_or("").to_string();
        (
            f("group"),
            f("version"),
            f("kind"),
            format!("/spec/apiservicedefinitions/owned/{i}"),
        )
    })
}
