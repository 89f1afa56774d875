//! What the parsers may leave unbuilt. About 85 % of a typical catalog's bytes are
//! `olm.csv.metadata` values (descriptions, CRD descriptors, install modes…), of which no rule
//! reads more than the top-level scalars. Inside such a value the parsers still scan every
//! byte (syntax, node and depth limits, repeated keys) but keep each nested collection as
//! [`Value::Elided`]: no nodes, no text.
//!
//! Eliding must never change a verdict, so a document is parsed again in full when an elided
//! part could matter: the document is not an `olm.bundle` (OLM003 prints the root), some
//! mapping repeats a key (OLM004 walks the tree), or an elided part holds what only the full
//! builder handles (anchors, aliases, merge keys, a collection as a key, a syntax error).

use super::tree::{Entry, Node};

/// What a parse may leave unbuilt.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Elide {
    /// Nothing: every value is built.
    Nothing,
    /// The nested values of an `olm.bundle`'s `olm.csv.metadata` properties (a catalog file).
    CsvMetadata,
    /// What `manifest_summary` (lib.rs) does not keep of a bundle manifest that is not a CSV
    /// (see [`manifest_skips`]).
    Manifest,
}

impl Elide {
    pub(crate) fn csv_metadata(on: bool) -> Elide {
        if on {
            Elide::CsvMetadata
        } else {
            Elide::Nothing
        }
    }
}

/// Kinds whose manifests are never elided: a CSV is read whole.
const CSV_KIND: &str = "ClusterServiceVersion";

/// Keys of a bundle manifest's root whose values are built: what `manifest_summary` keeps.
const MANIFEST_KEYS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Keys of a CustomResourceDefinition's `spec` whose values are built (the APIs a bundle
/// provides, and `preserveUnknownFields`); of each `spec.versions[]` item only `name` is.
const CRD_SPEC_KEYS: [&str; 5] = [
    "group",
    "names",
    "version",
    "versions",
    "preserveUnknownFields",
];

/// One open collection on the way from a manifest's root to a collection about to open.
#[derive(Clone, Copy)]
pub(super) enum Step<'a> {
    /// A mapping, at the value of this key.
    Key(&'a str),
    /// A sequence.
    Item,
    /// A mapping whose next scalar is a key (a collection opening there is a key).
    KeyPosition,
}

/// Where a bundle manifest's collection opens: what [`manifest_skips`] decides on.
pub(super) struct ManifestPlace<'a> {
    /// The root mapping's `kind` as read so far (a string), if any.
    pub kind: Option<&'a str>,
    /// The open collections from the root down.
    pub path: &'a [Step<'a>],
}

/// Whether the collection opening at `place` of a bundle manifest (a file of a bundle's
/// `manifests/`) is left unbuilt. Only once the root's `kind` is known to be a non-empty
/// string other than `ClusterServiceVersion` (it comes first in nearly every manifest; a
/// document whose `kind` comes later is built whole): the root's values other than
/// `apiVersion`, `kind`, `metadata` and a CRD's `spec`; in a CRD's `spec`, the values other
/// than those of [`CRD_SPEC_KEYS`]; in a `spec.versions[]` item, everything but `name`.
/// That is all `manifest_summary` reads, and the loader keeps only it of such a manifest
/// (`slim_manifest`); a file it keeps whole is parsed again in full.
pub(super) fn manifest_skips(place: &ManifestPlace) -> bool {
    let Some(kind) = place.kind.filter(|k| !k.is_empty() && *k != CSV_KIND) else {
        return false;
    };
    let crd = kind == "CustomResourceDefinition";
    use Step::{Item, Key};
    match place.path {
        [Key(k)] => !(MANIFEST_KEYS.contains(k) || (crd && *k == "spec")),
        [Key("spec"), Key(k)] => crd && !CRD_SPEC_KEYS.contains(k),
        [Key("spec"), Key("versions"), Item, Key(k)] => crd && *k != "name",
        _ => false,
    }
}

/// Whether a manifest tree with elided parts may be kept: a mapping without repeated keys
/// whose `kind` is a non-empty string other than `ClusterServiceVersion`, without `items`
/// (what `slim_manifest` summarises; anything else is read whole).
fn keep_manifest(root: Option<&Node>, repeated_keys: bool) -> bool {
    let kind = root.and_then(|r| r.get("kind")).and_then(Node::as_str);
    !repeated_keys
        && kind.is_some_and(|k| !k.is_empty() && k != CSV_KIND)
        && root.and_then(|r| r.get("items")).is_none()
}

/// Property type whose nested values no rule reads.
const ELIDED_TYPE: &str = "olm.csv.metadata";

/// Keys of an `olm.csv.metadata` value whose collections are built all the same: OLM v1's
/// acceptance (`--target olmv1`) reads the install modes and the owned API services, and
/// both are a few lines.
const BUILT_KEYS: [&str; 2] = ["installModes", "apiServiceDefinitions"];

/// Whether the collection under `key` of an `olm.csv.metadata` value is built (see
/// [`BUILT_KEYS`]).
pub(super) fn built(key: Option<&str>) -> bool {
    key.is_some_and(|k| BUILT_KEYS.contains(&k))
}

/// Collections open when a property's `value` mapping opens: the root mapping, the
/// `properties` list and the property mapping.
pub(super) const VALUE_DEPTH: usize = 3;

/// Whether a mapping opening with [`VALUE_DEPTH`] collections open is an `olm.csv.metadata` value: `root_key` is
/// the root key being read (`properties`), `item_key` the property key (`value`), `item` the
/// property's entries so far (its `type` comes first in rendered catalogs; when it comes
/// after the value, nothing is elided).
pub(super) fn is_elided_value(
    root_key: Option<&str>,
    item_key: Option<&str>,
    item: &[Entry],
) -> bool {
    root_key == Some("properties")
        && item_key == Some("value")
        && item
            .iter()
            .any(|e| &*e.key == "type" && e.value.as_str() == Some(ELIDED_TYPE))
}

/// Whether a tree with elided parts may be kept: with [`Elide::CsvMetadata`], an
/// `olm.bundle` document without repeated keys; with [`Elide::Manifest`], see
/// [`keep_manifest`].
pub(super) fn keep(elide: Elide, root: Option<&Node>, repeated_keys: bool) -> bool {
    match elide {
        Elide::Manifest => keep_manifest(root, repeated_keys),
        _ => {
            !repeated_keys
                && root.and_then(|r| r.get("schema")).and_then(Node::as_str) == Some("olm.bundle")
        }
    }
}

/// Hashes of the keys of the elided mappings still open, each mapping's from its base on.
/// Equal keys give equal hashes; a collision only costs a full parse.
#[derive(Default)]
pub(super) struct KeyHashes(Vec<u64>);

impl KeyHashes {
    pub(super) fn base(&self) -> usize {
        self.0.len()
    }

    pub(super) fn push(&mut self, key: &str) {
        use std::hash::{BuildHasher, Hasher};
        let mut h = foldhash::fast::FixedState::with_seed(0).build_hasher();
        h.write(key.as_bytes());
        self.0.push(h.finish());
    }

    /// Closes the mapping whose keys start at `base`: whether one of them repeats.
    pub(super) fn close(&mut self, base: usize) -> bool {
        let keys = self.0.get_mut(base..).unwrap_or_default();
        let repeated = if keys.len() <= 16 {
            keys.iter()
                .enumerate()
                .any(|(i, k)| keys.get(i + 1..).unwrap_or_default().contains(k))
        } else {
            keys.sort_unstable();
            keys.windows(2).any(|w| w.first() == w.last())
        };
        self.0.truncate(base);
        repeated
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::{Node, Value};
    use super::super::{json, yaml, Limits, LoadProblem, RawDoc};
    use super::*;
    use std::sync::Arc;

    fn parse(
        text: &str,
        json: bool,
        limits: &Limits,
        elide: Elide,
    ) -> (Vec<RawDoc>, Vec<LoadProblem>) {
        let file = Arc::new(text.to_string());
        let mut problems = Vec::new();
        let docs = if json {
            json::parse_file(&file, limits, elide == Elide::CsvMetadata, &mut problems)
        } else {
            yaml::parse_stream_eliding(&file, 0, Some(&file), limits, elide, &mut problems)
        };
        (docs, problems)
    }

    /// Parses `text` with and without eliding: the same documents, flags and problems, and
    /// trees equal except where a collection became `Elided` (same kind, same span).
    /// Returns how many collections were elided.
    fn faithful(text: &str, json: bool, limits: &Limits) -> usize {
        faithful_eliding(text, json, limits, Elide::CsvMetadata)
    }

    fn faithful_eliding(text: &str, json: bool, limits: &Limits, elide: Elide) -> usize {
        let (full, full_problems) = parse(text, json, limits, Elide::Nothing);
        let (lean, lean_problems) = parse(text, json, limits, elide);
        let shown = |p: &[LoadProblem]| {
            p.iter()
                .map(|p| format!("{} {:?} {}", p.rule, p.span, p.message))
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(&full_problems), shown(&lean_problems), "{text}");
        assert_eq!(full.len(), lean.len(), "{text}");
        let mut elided = 0;
        for (f, l) in full.iter().zip(&lean) {
            assert_eq!(
                (f.index, f.span, f.failed, f.repeated_keys),
                (l.index, l.span, l.failed, l.repeated_keys),
                "{text}"
            );
            match (&f.root, &l.root) {
                (Some(f), Some(l)) => same_but_elided(f, l, &mut elided, text),
                (f, l) => assert_eq!(f.is_none(), l.is_none(), "{text}"),
            }
        }
        elided
    }

    fn same_but_elided(full: &Node, lean: &Node, elided: &mut usize, text: &str) {
        assert_eq!(full.span, lean.span, "{text}");
        assert_eq!(full.style, lean.style, "{text}");
        match (&full.value, &lean.value) {
            (Value::Map(_), Value::Elided { map: true })
            | (Value::Seq(_), Value::Elided { map: false }) => *elided += 1,
            (Value::Map(a), Value::Map(b)) => {
                assert_eq!(a.len(), b.len(), "{text}");
                for (x, y) in a.iter().zip(b) {
                    assert_eq!((&x.key, x.key_span), (&y.key, y.key_span), "{text}");
                    same_but_elided(&x.value, &y.value, elided, text);
                }
            }
            (Value::Seq(a), Value::Seq(b)) => {
                assert_eq!(a.len(), b.len(), "{text}");
                for (x, y) in a.iter().zip(b) {
                    same_but_elided(x, y, elided, text);
                }
            }
            (a, b) => assert_eq!(a, b, "{text}"),
        }
    }

    /// A bundle whose `olm.csv.metadata` value holds `inner` under `spec:` (YAML).
    fn yaml_bundle(inner: &str) -> String {
        format!(
            "---\nschema: olm.package\nname: p\n---\nimage: quay.io/x/p:1\nname: p.v1\npackage: p\n\
             properties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n\
             - type: olm.csv.metadata\n  value:\n    description: |-\n      A long\n      text\n    \
             displayName: P\n    keywords:\n    - a\n    - b\n    spec:\n{inner}\n\
             relatedImages:\n- image: quay.io/x/p:1\n  name: ''\nschema: olm.bundle\n"
        )
    }

    fn json_bundle(inner: &str) -> String {
        format!(
            "{{\"schema\":\"olm.package\",\"name\":\"p\"}}\n{{\"image\":\"quay.io/x/p:1\",\"name\":\"p.v1\",\
             \"package\":\"p\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"p\",\
             \"version\":\"1.0.0\"}}}},{{\"type\":\"olm.csv.metadata\",\"value\":{{\"description\":\"A \\\"long\\\" text\",\
             \"displayName\":\"P\",\"keywords\":[\"a\",\"b\"],\"spec\":{inner}}}}}],\"schema\":\"olm.bundle\"}}\n"
        )
    }

    const YAML_INNERS: &[&str] = &[
        "      a: 1\n      b:\n        c: [x, {y: z}]\n        d: ~\n      e: \"q\\u00e9\"",
        // Repeated keys, also as YAML 1.1 numbers that print alike.
        "      a: 1\n      b:\n        c: 2\n        c: 3",
        "      1: a\n      1.0: b",
        "      x: !!str 1\n      y: {1: a, \"1\": b}",
        // Anchors, aliases, merge keys.
        "      a: &base\n        k: v\n      b: *base",
        "      a:\n        <<: {k: v}\n        j: w",
        "      a: &s scalar\n      b: *s",
        // A collection as a key; a syntax error.
        "      ? [a, b]\n      : c",
        "      a: [b, c\n      d: e",
        "      a:\n        - b\n       - c",
        // Deep nesting and many values (the limits below are small).
        "      a: [[[[[[[[[[1]]]]]]]]]]",
        "      a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]",
        "      {a: b}",
    ];

    const JSON_INNERS: &[&str] = &[
        r#"{"a":1,"b":{"c":["x",{"y":"z"}],"d":null},"e":"q\u00e9 \"\\\/\b\f\n\r\t","f":[],"g":{},"h":[true,false,-1.5e3]}"#,
        r#"{"a":1,"b":{"c":2,"c":3}}"#,
        r#"{"a":{"k":1,"\u006b":2}}"#,
        r#"{"a":[1,2,]}"#,
        r#"{"a":{"b" 1}}"#,
        r#"{"a":"bad \x escape"}"#,
        r#"{"a":tru}"#,
        r#"{"a":01}"#,
        r#"{"a":[[[[[[[[[[1]]]]]]]]]]}"#,
        r#"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]"#,
        r#"{"a":"control 	char"}"#,
    ];

    fn limits() -> [Limits; 3] {
        let small_depth = Limits {
            max_depth: 9,
            ..Limits::default()
        };
        let few_nodes = Limits {
            max_nodes: 40,
            ..Limits::default()
        };
        [Limits::default(), small_depth, few_nodes]
    }

    #[test]
    fn elided_trees_equal_full_trees_but_for_elided_collections() {
        let yaml: Vec<String> = YAML_INNERS.iter().map(|i| yaml_bundle(i)).collect();
        let json: Vec<String> = JSON_INNERS.iter().map(|i| json_bundle(i)).collect();
        let mut elided = 0;
        for limits in &limits() {
            for text in &yaml {
                elided += faithful(text, false, limits);
            }
            for text in &json {
                elided += faithful(text, true, limits);
            }
        }
        assert!(elided > 20, "{elided}");
        // The plain cases do elide: keywords, spec, and spec's nested values stay unbuilt.
        assert_eq!(faithful(&yaml[0], false, &Limits::default()), 2);
        assert_eq!(faithful(&json[0], true, &Limits::default()), 2);
        // A repeated key anywhere brings the full tree back (OLM004 walks it).
        assert_eq!(faithful(&yaml[1], false, &Limits::default()), 0);
        assert_eq!(faithful(&yaml[2], false, &Limits::default()), 0);
        assert_eq!(faithful(&json[1], true, &Limits::default()), 0);
        assert_eq!(faithful(&json[2], true, &Limits::default()), 0);
    }

    /// Every prefix of every case: unterminated collections, strings and documents at each
    /// byte give the same problems and trees either way.
    #[test]
    fn truncated_inputs_agree() {
        let yaml = YAML_INNERS.iter().take(4).map(|i| (yaml_bundle(i), false));
        let json = JSON_INNERS.iter().take(3).map(|i| (json_bundle(i), true));
        for (text, is_json) in yaml.chain(json) {
            for end in (0..=text.len()).filter(|&e| text.is_char_boundary(e)) {
                for limits in &limits() {
                    faithful(&text[..end], is_json, limits);
                }
            }
        }
    }

    #[test]
    fn install_modes_and_api_services_are_built() {
        let yaml = "image: i\nname: n\npackage: p\nproperties:\n- type: olm.csv.metadata\n  value:\n    \
                    apiServiceDefinitions:\n      owned:\n      - name: a\n    installModes:\n    \
                    - {supported: true, type: AllNamespaces}\n    keywords: [a]\nschema: olm.bundle\n";
        let json = r#"{"image":"i","name":"n","package":"p","properties":[{"type":"olm.csv.metadata","value":{"apiServiceDefinitions":{"owned":[{"name":"a"}]},"installModes":[{"supported":true,"type":"AllNamespaces"}],"keywords":["a"]}}],"schema":"olm.bundle"}"#;
        // Only `keywords` stays unbuilt.
        assert_eq!(faithful(yaml, false, &Limits::default()), 1);
        assert_eq!(faithful(json, true, &Limits::default()), 1);
    }

    #[test]
    fn only_csv_metadata_values_of_bundles_are_elided() {
        let d = Limits::default();
        // Not an olm.bundle (OLM003 prints the root, so it must be whole).
        let package =
            yaml_bundle("      a: [1]").replace("schema: olm.bundle", "schema: olm.other");
        assert_eq!(faithful(&package, false, &d), 0);
        let no_schema = yaml_bundle("      a: [1]").replace("schema: olm.bundle\n", "");
        assert_eq!(faithful(&no_schema, false, &d), 0);
        // Another property type; the value before the type.
        let other = yaml_bundle("      a: [1]").replace("olm.csv.metadata", "olm.bundle.object");
        assert_eq!(faithful(&other, false, &d), 0);
        let late_type = "image: i\nname: n\npackage: p\nproperties:\n- value:\n    a: [1]\n  \
                         type: olm.csv.metadata\nschema: olm.bundle\n";
        assert_eq!(faithful(late_type, false, &d), 0);
        let json = json_bundle(r#"{"a":[1]}"#).replace("olm.csv.metadata", "olm.gvk");
        assert_eq!(faithful(&json, true, &d), 0);
        // The csv.metadata property first: a document parsed again in full after an elided
        // part failed must not start out inside an elided value.
        let first = r#"{"schema":"olm.bundle","properties":[{"type":"olm.csv.metadata","value":{"a":{"k":1,"k":2},"b":[1]}}]}"#;
        assert_eq!(faithful(first, true, &d), 0);
        assert_eq!(faithful(&format!("{first}\n{first}"), true, &d), 0);
        let yaml_first = "schema: olm.bundle\nproperties:\n- type: olm.csv.metadata\n  value:\n    a: {k: 1, k: 2}\n    b: [1]\n";
        assert_eq!(faithful(yaml_first, false, &d), 0);
        // An alias could copy an elided part where rules read it.
        let anchored = yaml_bundle("      a: [1]")
            .replace("properties:\n", "properties: &props\n")
            .replace(
                "relatedImages:\n- image: quay.io/x/p:1\n  name: ''\n",
                "relatedImages: *props\n",
            );
        assert_eq!(faithful(&anchored, false, &d), 0);
        let value_anchor = yaml_bundle("      a: [1]")
            .replace("metadata\n  value:\n", "metadata\n  value: &v\n")
            .replace(
                "relatedImages:\n- image: quay.io/x/p:1\n  name: ''\n",
                "relatedImages:\n- *v\n",
            );
        assert_eq!(faithful(&value_anchor, false, &d), 0);
        // Without aliases, the same documents elide.
        assert_eq!(faithful(&yaml_bundle("      a: [1]"), false, &d), 2);
    }

    /// The real catalogs: identical trees but for the elided collections, and most of
    /// their collections elided.
    #[test]
    fn real_catalog_files_agree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/catalogs/community-v4.18");
        let mut elided = 0;
        for pkg in ["dell-csm-operator", "hive-operator", "project-quay"] {
            let text = std::fs::read_to_string(root.join(pkg).join("catalog.yaml"))
                .expect("corpus catalog");
            elided += faithful(&text, false, &Limits::default());
        }
        assert!(elided > 1000, "{elided}");
    }

    /// Linting elides; converting builds everything, and never converts an elided tree.
    #[test]
    fn whole_documents_for_conversion() {
        use super::super::{parse_bytes_building, Build, Role};
        let text = yaml_bundle("      a: [1]");
        let convert = |build| {
            let file = parse_bytes_building(
                "c.yaml".into(),
                "c.yaml".into(),
                Role::Fbc,
                text.clone().into_bytes(),
                &Limits::default(),
                build,
            );
            let root = file.docs.get(1).and_then(|d| d.root.as_ref()).cloned();
            root.expect("a bundle").to_json()
        };
        assert_eq!(convert(Build::ForRules), None);
        let json = convert(Build::Everything).expect("converts");
        let value = json.pointer("/properties/1/value/spec/a/0");
        assert_eq!(value, Some(&serde_json::json!(1)), "{json}");
    }

    /// A CustomResourceDefinition whose one version's `schema` holds `schema` (YAML at six
    /// spaces), with `tail` appended.
    fn crd(schema: &str, tail: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
             name: widgets.example.com\n  labels: {{a: b}}\nspec:\n  group: example.com\n  names:\n    \
             kind: Widget\n    plural: widgets\n    shortNames: [w]\n  scope: Namespaced\n  versions:\n  \
             - name: v1\n    served: true\n    additionalPrinterColumns:\n    - {{name: Size, type: integer}}\n    \
             schema:\n{schema}\n  - name: v2\n    subresources: {{status: {{}}}}\n{tail}"
        )
    }

    /// [`faithful_eliding`] for a bundle manifest, and the summary `slim_manifest` keeps of
    /// each document is the same either way.
    fn faithful_manifest(text: &str, limits: &Limits) -> usize {
        let elided = faithful_eliding(text, false, limits, Elide::Manifest);
        let (full, _) = parse(text, false, limits, Elide::Nothing);
        let (lean, _) = parse(text, false, limits, Elide::Manifest);
        for (f, l) in full.iter().zip(&lean) {
            if let (Some(f), Some(l)) = (&f.root, &l.root) {
                if f.as_map().is_some() {
                    let (summary, end) = crate::manifest_summary(f);
                    assert_eq!((summary, end), crate::manifest_summary(l), "{text}");
                }
            }
        }
        elided
    }

    const SCHEMA: &str = "      openAPIV3Schema:\n        description: >-\n          folded\n          \
                          text\n        type: object\n        properties:\n          size: {type: integer}\n          \
                          tags:\n            type: array\n            items: {type: string}";

    #[test]
    fn manifests_keep_only_what_their_summary_reads() {
        let d = Limits::default();
        // additionalPrinterColumns, schema, v2's subresources and the root's status.
        let tail = "  preserveUnknownFields: {x: 1}\nstatus:\n  acceptedNames: {kind: Widget}\n";
        assert_eq!(faithful_manifest(&crd(SCHEMA, tail), &d), 4);
        // Another kind: all of spec (and the root's other values) but metadata.
        let service =
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels: {a: b}\nspec:\n  \
                       ports:\n  - port: 1\n  selector: {a: b}\n";
        assert_eq!(faithful_manifest(service, &d), 1);
        let config = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata:\n  k: v\n";
        assert_eq!(faithful_manifest(config, &d), 1);
        // Several documents, one of them empty.
        let stream = format!("---\n{}---\n---\n{service}", crd(SCHEMA, ""));
        assert_eq!(faithful_manifest(&stream, &d), 4);
        for limits in &limits() {
            faithful_manifest(&crd(SCHEMA, tail), limits);
        }
    }

    #[test]
    fn manifests_read_whole_are_not_elided() {
        let d = Limits::default();
        // The kind after the values, no kind, an empty kind, a CSV, a list: nothing elided.
        let late = "apiVersion: v1\nspec:\n  ports: [{port: 1}]\nkind: Service\n";
        assert_eq!(faithful_manifest(late, &d), 0);
        assert_eq!(faithful_manifest("apiVersion: v1\nspec: {a: [1]}\n", &d), 0);
        assert_eq!(faithful_manifest("kind: ''\nspec: {a: [1]}\n", &d), 0);
        let csv = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: c}\n\
                   spec:\n  install: {spec: {deployments: []}}\n";
        assert_eq!(faithful_manifest(csv, &d), 0);
        let list = "apiVersion: v1\nkind: List\nitems:\n- {kind: Service, spec: {a: 1}}\n";
        assert_eq!(faithful_manifest(list, &d), 0);
        // A repeated key, an anchor, an alias, a merge key, a collection as a key inside an
        // elided part: built in full (OLM004 walks the tree, the others need the builder).
        for inner in [
            "        type: object\n        type: string",
            "        a: &x {b: c}\n        d: *x",
            "        a:\n          <<: {b: c}",
            "        ? [a]\n        : b",
        ] {
            let text = crd(&format!("      openAPIV3Schema:\n{inner}"), "");
            assert_eq!(faithful_manifest(&text, &d), 0, "{text}");
        }
        // A syntax error inside: the same problem at the same place.
        for inner in [
            "        a: [b, c\n        d: e",
            "        a:\n          - b\n         - c",
        ] {
            let text = crd(&format!("      openAPIV3Schema:\n{inner}"), "");
            let (_, full) = parse(&text, false, &d, Elide::Nothing);
            assert_eq!(full.len(), 1, "{text}");
            faithful_manifest(&text, &d);
        }
    }

    #[test]
    fn key_hashes_find_repeats_in_small_and_large_mappings() {
        let mut k = KeyHashes::default();
        let outer = k.base();
        k.push("a");
        let inner = k.base();
        for i in 0..40 {
            k.push(&format!("k{i}"));
        }
        assert!(!k.close(inner));
        k.push("b");
        assert!(!k.close(outer));
        let big = k.base();
        for i in 0..40 {
            k.push(&format!("k{}", i % 39));
        }
        assert!(k.close(big));
        let small = k.base();
        for key in ["x", "y", "x"] {
            k.push(key);
        }
        assert!(k.close(small));
        assert_eq!(k.base(), 0);
    }
}
