//! A registry+v1 bundle as OLM v1 reads it (`rukpak/bundle/source/source.go`
//! `fsBundleSource.GetBundle`): the package name from `metadata/annotations.yaml`, and the
//! objects of the files directly in `manifests/` (in file-name order, documents in order,
//! lists flattened), split by kind only: ClusterServiceVersions, CustomResourceDefinitions and
//! the others. Read from a bundle directory, or from the `olm.bundle.object` properties of a
//! catalog's bundle.

use super::csv::Csv;
use olmlint_base::tree::{Node, Span, Value};
use olmlint_load::LoadedFile;
use olmlint_model::Bundle;
use std::path::Path;

/// The package annotation OLM v1 reads (and no other).
pub const PACKAGE_ANNOTATION: &str = "operators.operatorframework.io.bundle.package.v1";

/// One object: a document, or an item of a flattened list.
#[derive(Clone, Copy)]
pub struct Obj<'a> {
    pub file: usize,
    pub node: &'a Node,
    /// The kind, for a list item that has none, from its list (`FooList` → `Foo`).
    pub inherited_kind: Option<&'a str>,
}

impl<'a> Obj<'a> {
    pub fn kind(&self) -> &'a str {
        self.node
            .get("kind")
            .and_then(Node::as_str)
            .filter(|k| !k.is_empty())
            .or(self.inherited_kind)
            .unwrap_or("")
    }

    pub fn name(&self) -> &'a str {
        self.name_node().and_then(Node::as_str).unwrap_or("")
    }

    pub fn name_node(&self) -> Option<&'a Node> {
        self.node.get("metadata")?.get("name")
    }

    pub fn api_version(&self) -> Option<&'a Node> {
        self.node.get("apiVersion")
    }

    /// Where a finding about the object's kind points.
    pub fn kind_span(&self) -> Span {
        self.node.get("kind").unwrap_or(self.node).span
    }

    /// Where a finding about the object's name points.
    pub fn name_span(&self) -> Span {
        self.name_node()
            .map_or_else(|| self.kind_span(), |n| n.span)
    }
}

#[derive(Default)]
pub struct Rv1<'a> {
    /// The package annotation: `Some("")` when annotations.yaml has none, `None` when there is
    /// no annotations.yaml to read (a bundle directory without one, a catalog's bundle).
    pub package: Option<&'a str>,
    /// Where the package annotation is (or the annotations document, without one).
    pub package_at: Option<(usize, Span)>,
    pub csvs: Vec<Obj<'a>>,
    pub crds: Vec<Obj<'a>>,
    pub others: Vec<Obj<'a>>,
}

impl<'a> Rv1<'a> {
    /// The CSV OLM v1 uses: the last one read (each replaces the one before).
    pub fn csv(&self) -> Option<Csv<'a>> {
        self.csvs.last().map(|o| Csv {
            file: o.file,
            node: o.node,
        })
    }

    /// Adds the objects of one document in the order OLM v1's resource builder visits them.
    pub fn push_document(&mut self, file: usize, root: &'a Node) {
        match root.get("items") {
            Some(items) if root.as_map().is_some() => {
                let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
                let inherited = kind.strip_suffix("List").filter(|k| !k.is_empty());
                for item in items.as_seq().unwrap_or_default() {
                    if item.as_map().is_some() {
                        self.push(Obj {
                            file,
                            node: item,
                            inherited_kind: inherited,
                        });
                    }
                }
            }
            _ if root.as_map().is_some() => self.push(Obj {
                file,
                node: root,
                inherited_kind: None,
            }),
            _ => {}
        }
    }

    /// An object without a kind fails OLM v1's decoder (OLM752) and is left out.
    fn push(&mut self, o: Obj<'a>) {
        match o.kind() {
            "" => {}
            "ClusterServiceVersion" => self.csvs.push(o),
            "CustomResourceDefinition" => self.crds.push(o),
            _ => self.others.push(o),
        }
    }

    /// The package annotation of `metadata/annotations.yaml` (`file`), read as
    /// `sigs.k8s.io/yaml` unmarshals it into operator-registry's `AnnotationsFile`: field
    /// names match case-insensitively, a missing value is `""`, a value of another type makes
    /// the file unreadable (`None`).
    pub fn read_package(&mut self, fi: usize, file: &'a LoadedFile) {
        let Some(root) = file.docs.first().and_then(|d| d.root.as_ref()) else {
            self.package = Some("");
            self.package_at = Some((fi, Span::new(0, 0)));
            return;
        };
        let annotations = root.get_folded("annotations").map(|e| &e.value);
        let value = annotations.and_then(|a| a.get_folded(PACKAGE_ANNOTATION));
        let at = value
            .map(|e| e.value.span)
            .or(annotations.map(|a| a.span))
            .unwrap_or(root.span);
        self.package_at = Some((fi, at));
        self.package = match value.map(|e| &e.value.value) {
            None | Some(Value::Null) => Some(""),
            Some(Value::String(s)) => Some(s),
            Some(_) => None,
        };
    }
}

/// The files of bundle directory `root` that OLM v1 reads, sorted by path: those directly in
/// `manifests/`, `metadata/annotations.yaml` and `metadata/properties.yaml`.
pub struct DirFiles<'a> {
    pub root: &'a Path,
    /// Every file of the directory the walk found (sorted by path).
    pub all: Vec<usize>,
    pub manifests: Vec<usize>,
    /// Files below a subdirectory of `manifests/`.
    pub nested: Vec<usize>,
    pub annotations: Option<usize>,
    pub properties: Option<usize>,
}

impl<'a> DirFiles<'a> {
    pub fn new(files: &'a [LoadedFile], root: &'a Path, mut members: Vec<usize>) -> Self {
        let path = |fi: usize| files.get(fi).map(|f| f.source.path.as_path());
        members.sort_by(|&a, &b| path(a).cmp(&path(b)));
        let manifests_dir = root.join("manifests");
        let (annotations, properties) = (
            root.join("metadata").join("annotations.yaml"),
            root.join("metadata").join("properties.yaml"),
        );
        let mut d = DirFiles {
            root,
            all: members.clone(),
            manifests: Vec::new(),
            nested: Vec::new(),
            annotations: None,
            properties: None,
        };
        for fi in members {
            let Some(p) = path(fi) else { continue };
            if p.parent() == Some(manifests_dir.as_path()) {
                d.manifests.push(fi);
            } else if p.starts_with(&manifests_dir) {
                d.nested.push(fi);
            } else if p == annotations {
                d.annotations = Some(fi);
            } else if p == properties {
                d.properties = Some(fi);
            }
        }
        d
    }

    /// Whether every file OLM v1 reads parsed: otherwise the parse error (OLM001, OLM604)
    /// is the finding, and what olmlint sees of the bundle is incomplete.
    pub fn readable(&self, files: &[LoadedFile]) -> bool {
        self.manifests
            .iter()
            .chain(&self.annotations)
            .chain(&self.properties)
            .all(|&fi| files.get(fi).is_some_and(|f| f.problems.is_empty()))
    }

    /// The bundle as OLM v1 reads it.
    pub fn rv1(&self, files: &'a [LoadedFile]) -> Rv1<'a> {
        let mut rv1 = Rv1::default();
        if let Some(fi) = self.annotations {
            if let Some(f) = files.get(fi) {
                rv1.read_package(fi, f);
            }
        }
        for &fi in &self.manifests {
            let Some(f) = files.get(fi) else { continue };
            for d in &f.docs {
                if let Some(root) = d.root.as_ref() {
                    rv1.push_document(fi, root);
                }
            }
        }
        rv1
    }
}

/// The manifests a catalog's bundle carries as `olm.bundle.object` properties (base64 JSON,
/// as `opm render` writes them), decoded, each node pointing at the property's `data`: the
/// file and the trees. Properties that do not decode are left out (OLM108 reports them).
pub fn bundle_objects(b: &Bundle<'_>) -> Vec<(usize, Node)> {
    let mut out = Vec::new();
    for p in b.properties_of("olm.bundle.object") {
        let Some(data) = p.value.as_deref().and_then(|v| v.get("data")) else {
            continue;
        };
        let Some(json) = data
            .as_str()
            .and_then(base64_decode)
            .and_then(|b| String::from_utf8(b).ok())
        else {
            continue;
        };
        let mut problems = Vec::new();
        let docs = olmlint_load::json::parse_stream(
            &json,
            &olmlint_load::Limits::default(),
            &mut problems,
        );
        if !problems.is_empty() {
            continue;
        }
        for mut root in docs.into_iter().filter_map(|d| d.root) {
            olmlint_model::bundle_dir::respan(&mut root, data.span);
            out.push((p.file, root));
        }
    }
    out
}

/// Value of each byte in the standard base64 alphabet; `SKIP` for the line breaks Go's
/// decoder ignores, `PAD` for `=`, `BAD` for the rest.
const SKIP: u8 = 64;
const PAD: u8 = 65;
const BAD: u8 = 66;
const fn base64_value(c: u8) -> u8 {
    match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        b'\r' | b'\n' => SKIP,
        b'=' => PAD,
        _ => BAD,
    }
}

/// `[]byte` JSON decoding (`base64.StdEncoding`: padding required, `\r` and `\n` skipped),
/// in one pass: `None` when Go would refuse the string (OLM108 reports it).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut n, mut pad) = (0u32, 0u8, 0u8);
    for &c in s.as_bytes() {
        let v = base64_value(c);
        match v {
            SKIP => continue,
            BAD => return None,
            PAD => pad += 1,
            _ if pad > 0 => return None,
            _ => {}
        }
        acc = (acc << 6) | u32::from(v & 63);
        n += 1;
        if n == 4 {
            let [_, a, b, c] = acc.to_be_bytes();
            match pad {
                0 => {
                    out.push(a);
                    out.push(b);
                    out.push(c);
                }
                1 => {
                    out.push(a);
                    out.push(b);
                }
                2 => out.push(a),
                _ => return None,
            }
            (acc, n) = (0, 0);
            if pad > 0 {
                pad = 3; // nothing may follow the padding
            }
        }
    }
    (n == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::base64_decode;

    #[test]
    fn base64() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            base64_decode("aGVs\r\nbG8=").as_deref(),
            Some(&b"hello"[..])
        );
        assert_eq!(base64_decode("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("aA==").as_deref(), Some(&b"h"[..]));
        assert_eq!(base64_decode("").as_deref(), Some(&b""[..]));
        for bad in [
            "aGVsbG8",
            "aGVsbG8=x",
            "aA==aA==",
            "a===",
            "aGV-bG8=",
            "aGVsbG8===",
        ] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }
}
