//! OLM752 olmv1-bundle-layout: what OLM v1's bundle reader (`rukpak/bundle/source/source.go`
//! `fsBundleSource.GetBundle`, spec §1.1) refuses or silently changes where opm and OLM v0
//! do not: `metadata/annotations.yaml` at exactly that path, no directory in `manifests/`,
//! every document of every file in `manifests/` an object with a kind and a decodable
//! `metadata`, one CSV (a later one replaces an earlier one), and a `metadata/properties.yaml`
//! and `olm.properties` annotation that decode. A file that does not parse at all is OLM001's
//! (or OLM604's) finding, a bundle without a CSV OLM104's.

use super::bundle::{DirFiles, Rv1};
use crate::Ctx;
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Node, Span, Value};
use olmlint_load::LoadedFile;
use std::path::Path;

/// Who a finding is about: the package and the bundle (CSV) name.
pub type Who<'a> = (Option<&'a str>, Option<&'a str>);

fn finding(rule_msg: String, file: usize, span: Span, who: Who<'_>, help: &str) -> Diagnostic {
    Diagnostic::new("OLM752", rule_msg)
        .at(file, span)
        .package(who.0)
        .bundle(who.1)
        .help(help.to_string())
}

pub fn check(
    ctx: &Ctx<'_>,
    dir: &DirFiles<'_>,
    rv1: &Rv1<'_>,
    who: Who<'_>,
    out: &mut Vec<Diagnostic>,
) {
    annotations_path(ctx.files, dir, who, out);
    subdirectories(dir, ctx.files, who, out);
    for &fi in &dir.manifests {
        if let Some(f) = ctx.files.get(fi).filter(|f| f.problems.is_empty()) {
            if let Some(err) = undecodable(f) {
                let name = manifest_name(&f.source.path);
                out.push(finding(
                    format!("error parsing objects in \"manifests/{name}\": unable to decode \"manifests/{name}\": {}", err.0),
                    fi,
                    err.1,
                    who,
                    "OLM v1 decodes every file in manifests/ as Kubernetes objects and refuses the whole bundle when one does not decode: each document must be a mapping with a `kind`, and its `metadata` must decode as Kubernetes object metadata (names strings; labels and annotations strings to strings). opm and OLM v0 skip such a file with a warning. Fix the document, or move a file that is not a manifest (a README, notes) out of manifests/.",
                ));
            }
        }
    }
    replaced_csvs(ctx.files, rv1, who, out);
    if let Some(fi) = dir.properties {
        properties_yaml(ctx.files, fi, who, out);
    }
    if !ctx.config.is_enabled("OLM713") {
        properties_annotation(ctx.files, rv1, who, out);
    }
}

/// The name of a file directly in `manifests/`.
fn manifest_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// `metadata/annotations.yaml` missing (the directory was found by `annotations.yml`).
fn annotations_path(
    files: &[LoadedFile],
    dir: &DirFiles<'_>,
    who: Who<'_>,
    out: &mut Vec<Diagnostic>,
) {
    if dir.annotations.is_some() {
        return;
    }
    let other = dir.all.iter().copied().find(|&fi| {
        files.get(fi).is_some_and(|f| {
            f.source.path.parent() == Some(dir.root.join("metadata").as_path())
                && f.source
                    .path
                    .file_name()
                    .is_some_and(|n| n == "annotations.yml")
        })
    });
    let Some(fi) = other else { return };
    out.push(finding(
        "open metadata/annotations.yaml: no such file or directory".into(),
        fi,
        Span::new(0, 0),
        who,
        "OLM v1 reads the bundle's annotations from metadata/annotations.yaml, at exactly that path, and refuses a bundle without it; opm and OLM v0 take the annotations from any file in metadata/ (here metadata/annotations.yml). Rename the file to metadata/annotations.yaml.",
    ));
}

/// Directories in `manifests/` (`subdirectories are not allowed`), listed without following
/// links: a link is never entered, and `manifests/` itself must be a directory of the bundle.
fn subdirectories(
    dir: &DirFiles<'_>,
    files: &[LoadedFile],
    who: Who<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let manifests = dir.root.join("manifests");
    let is_real_dir = std::fs::symlink_metadata(&manifests).is_ok_and(|m| m.file_type().is_dir());
    if !is_real_dir {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&manifests) else {
        return;
    };
    let mut subdirs: Vec<std::ffi::OsString> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name())
        .collect();
    subdirs.sort();
    for name in subdirs {
        let sub = manifests.join(&name);
        // The first file below it, else the annotations, else the CSV: where it shows.
        let at = dir
            .nested
            .iter()
            .copied()
            .find(|&fi| {
                files
                    .get(fi)
                    .is_some_and(|f| f.source.path.starts_with(&sub))
            })
            .or(dir.annotations)
            .or(dir.manifests.first().copied());
        let Some(fi) = at else { continue };
        out.push(finding(
            format!("subdirectories are not allowed within the \"manifests\" directory of the bundle image filesystem: found \"manifests/{}\"", name.to_string_lossy()),
            fi,
            Span::new(0, 0),
            who,
            "OLM v1 reads only the files directly in manifests/ and refuses a bundle whose manifests/ holds a directory; opm and OLM v0 skip it. Move the directory out of the bundle (or its manifests up into manifests/ if the bundle needs them).",
        ));
    }
}

/// How OLM v1's decoder refuses the first document of `f` it cannot decode, and where.
fn undecodable(f: &LoadedFile) -> Option<(String, Span)> {
    for d in &f.docs {
        let Some(root) = d.root.as_ref() else {
            continue;
        };
        if let Some(found) = undecodable_doc(root) {
            return Some(found);
        }
    }
    None
}

const ITEMS_DETECTOR: &str = "struct { Items json.RawMessage \"json:\\\"items\\\"\" }";

fn undecodable_doc(root: &Node) -> Option<(String, Span)> {
    match &root.value {
        Value::Null => return None,
        Value::Map(_) => {}
        _ => {
            return Some((
                format!(
                    "json: cannot unmarshal {} into Go value of type {ITEMS_DETECTOR}",
                    root.go_kind()
                ),
                root.span,
            ))
        }
    }
    if root
        .get("kind")
        .and_then(Node::as_str)
        .is_none_or(str::is_empty)
    {
        let mut json = root.canonical_json();
        if json.len() > 120 {
            let mut cut = 100;
            while !json.is_char_boundary(cut) {
                cut -= 1;
            }
            json.truncate(cut);
            json.push('…');
        }
        return Some((format!("Object 'Kind' is missing in '{json}'"), root.span));
    }
    metadata_error(root)
}

/// `metadataValidatingDecoder`: the document must decode into `metav1.TypeMeta` and
/// `metav1.ObjectMeta`; the first type error in key order (JSON objects are sorted).
fn metadata_error(root: &Node) -> Option<(String, Span)> {
    let wrong = |n: &Node, field: &str, ty: &str| {
        Some((
            format!(
                "json: cannot unmarshal {} into Go struct field {field} of type {ty}",
                n.go_kind()
            ),
            n.span,
        ))
    };
    let not_string = |n: &&Node| !matches!(n.value, Value::String(_) | Value::Null);
    if let Some(v) = root.get("apiVersion").filter(not_string) {
        return wrong(v, "metadataOnlyObject.apiVersion", "string");
    }
    let meta = root.get("metadata")?;
    match &meta.value {
        Value::Null => return None,
        Value::Map(_) => {}
        _ => return wrong(meta, "metadataOnlyObject.metadata", "v1.ObjectMeta"),
    }
    for key in ["annotations", "generateName", "labels", "name", "namespace"] {
        let Some(v) = meta.get(key) else { continue };
        let field = format!("ObjectMeta.metadata.{key}");
        if key == "annotations" || key == "labels" {
            match &v.value {
                Value::Null => {}
                Value::Map(entries) => {
                    if let Some(e) = entries.iter().find(|e| not_string(&&e.value)) {
                        return wrong(&e.value, &field, "string");
                    }
                }
                _ => return wrong(v, &field, "map[string]string"),
            }
        } else if not_string(&v) {
            return wrong(v, &field, "string");
        }
    }
    None
}

/// Every CSV but the last: OLM v1 replaces each with the next one it reads.
fn replaced_csvs(files: &[LoadedFile], rv1: &Rv1<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    let Some((kept, replaced)) = rv1.csvs.split_last() else {
        return;
    };
    let where_ = |fi: usize| {
        files
            .get(fi)
            .map_or_else(String::new, |f| manifest_name(&f.source.path))
    };
    for c in replaced {
        out.push(finding(
            format!(
                "more than one ClusterServiceVersion in manifests/: OLM v1 keeps the last one it reads ({:?}, manifests/{}) and silently drops this one ({:?}), while opm keeps the first",
                kept.name(),
                where_(kept.file),
                c.name()
            ),
            c.file,
            c.kind_span(),
            who,
            "A registry+v1 bundle holds one CSV. OLM v1 reads manifests/ in file-name order and each CSV it reads replaces the one before, without an error, so OLM v1 and OLM v0 install different operators from this bundle. Remove all CSVs but one.",
        ));
    }
}

/// `metadata/properties.yaml` as `sigs.k8s.io/yaml` unmarshals it into `RegistryV1Properties`
/// (`encoding/json`: field names match case-insensitively; `value` may be anything).
fn properties_yaml(files: &[LoadedFile], fi: usize, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    let Some(f) = files.get(fi).filter(|f| f.problems.is_empty()) else {
        return;
    };
    let Some(root) = f.docs.first().and_then(|d| d.root.as_ref()) else {
        return;
    };
    let Some((err, span)) = properties_error(root) else {
        return;
    };
    out.push(finding(
        format!("failed to unmarshal metadata/properties.yaml: error unmarshaling JSON: while decoding JSON: {err}"),
        fi,
        span,
        who,
        "OLM v1 merges metadata/properties.yaml into the CSV's olm.properties annotation and refuses the bundle when the file does not decode as `properties:` with a list of `{type, value}` items (`type` a string); opm silently skips such a file. Fix its shape.",
    ));
}

fn properties_error(root: &Node) -> Option<(String, Span)> {
    let msg = |n: &Node, into: &str| {
        Some((
            format!("json: cannot unmarshal {} into Go {into}", n.go_kind()),
            n.span,
        ))
    };
    match &root.value {
        Value::Null => return None,
        Value::Map(_) => {}
        _ => return msg(root, "value of type source.RegistryV1Properties"),
    }
    let list = &root.get_folded("properties")?.value;
    let items = match &list.value {
        Value::Null => return None,
        Value::Seq(items) => items,
        _ => {
            return msg(
                list,
                "struct field RegistryV1Properties.properties of type []property.Property",
            )
        }
    };
    for item in items {
        match &item.value {
            Value::Null => {}
            Value::Map(_) => {
                if let Some(t) = item
                    .get_folded("type")
                    .map(|e| &e.value)
                    .filter(|t| !matches!(t.value, Value::String(_) | Value::Null))
                {
                    return msg(t, "struct field Property.properties.type of type string");
                }
            }
            _ => {
                return msg(
                    item,
                    "struct field RegistryV1Properties.properties of type property.Property",
                )
            }
        }
    }
    None
}

/// The CSV's `olm.properties` annotation that does not decode: OLM v1 refuses the bundle
/// (OLM713 reports it when on, with what opm does).
fn properties_annotation(
    files: &[LoadedFile],
    rv1: &Rv1<'_>,
    who: Who<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(csv) = rv1.csv() else { return };
    let Some(node) = olmlint_model::bundle_dir::properties_annotation(csv.node) else {
        return;
    };
    let Some(file) = files.get(csv.file) else {
        return;
    };
    if let Err(e) = olmlint_model::bundle_dir::parse_properties_annotation(file, node) {
        out.push(finding(
            format!("failed to unmarshal csv.metadata.annotations['olm.properties']: {e}"),
            csv.file,
            node.span,
            who,
            "OLM v1 decodes the CSV's olm.properties annotation as a JSON list of `{type, value}` properties and refuses the bundle when it does not decode (opm drops the annotation with a warning). Move the properties to metadata/properties.yaml and delete the annotation, or fix its JSON.",
        ));
    }
}
