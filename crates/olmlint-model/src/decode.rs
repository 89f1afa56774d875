//! Decoding of the four FBC blob schemas with opm's rules and messages.

use super::{
    list_item_pointer, ptr, Bundle, Catalog, Channel, ChannelEntry, DeprecationEntry, Deprecations,
    DocRef, Package, Property,
};
use olmlint_base::diag::{Diagnostic, Edit, Fix, Severity};
use olmlint_base::tree::{Node, Span, Value};
use std::borrow::Cow;

/// A string value with the node it came from.
#[derive(Clone, Copy, Debug)]
pub struct Str<'a> {
    pub value: &'a str,
    pub node: &'a Node,
}

struct Ctx<'d> {
    file: usize,
    diags: &'d mut Vec<Diagnostic>,
    /// Rule for type errors in this blob (OLM101/103/104/107).
    rule: &'static str,
    blob: &'static str,
    package: Option<String>,
    bundle: Option<String>,
}

impl Ctx<'_> {
    fn push(&mut self, d: Diagnostic) {
        let d = d.package(self.package.as_deref());
        let d = if self.bundle.is_some() {
            d.bundle(self.bundle.as_deref())
        } else {
            d
        };
        self.diags.push(d);
    }

    /// A string field (Go `string`): null or missing is `None`, other types are opm errors.
    fn string<'a>(
        &mut self,
        obj: &'a Node,
        key: &str,
        pointer: &str,
        go_field: &str,
    ) -> Option<Str<'a>> {
        let entry = obj.get_folded(key)?;
        let v = &entry.value;
        match &v.value {
            Value::Null => None,
            Value::String(s) => Some(Str { value: s, node: v }),
            _ => {
                self.type_error(v, &ptr(pointer, &entry.key), go_field, "string");
                None
            }
        }
    }

    fn type_error(&mut self, v: &Node, pointer: &str, go_field: &str, go_type: &str) {
        let msg = format!(
            "parse {}: json: cannot unmarshal {} into Go struct field {go_field} of type {go_type}",
            self.blob,
            v.go_kind()
        );
        let mut d = Diagnostic::new(self.rule, msg)
            .at(self.file, v.span)
            .pointer(pointer);
        d = if v.is_coerced_scalar() {
            d.help(format!(
                "YAML 1.1 read the unquoted `{}` as a {}; quote it so it stays a string.",
                source_hint(v),
                v.go_kind()
            ))
        } else {
            d.help(format!(
                "`{}` must be a {go_type}.",
                pointer.rsplit('/').next().unwrap_or("")
            ))
        };
        self.push(d);
        if v.is_coerced_scalar() {
            self.push(coercion(self.file, v, pointer));
        }
    }

    fn list<'a>(
        &mut self,
        obj: &'a Node,
        key: &str,
        pointer: &str,
        go_field: &str,
        go_type: &str,
    ) -> &'a [Node] {
        let Some(entry) = obj.get_folded(key) else {
            return &[];
        };
        match &entry.value.value {
            Value::Seq(items) => items,
            Value::Null => &[],
            _ => {
                let p = ptr(pointer, &entry.key);
                self.type_error(&entry.value, &p, go_field, go_type);
                &[]
            }
        }
    }

    /// Element `i` of a list of objects; reports non-objects.
    fn object<'a>(
        &mut self,
        item: &'a Node,
        pointer: &str,
        go_field: &str,
        go_type: &str,
    ) -> Option<&'a Node> {
        match item.value {
            Value::Map(_) => Some(item),
            Value::Null => None,
            _ => {
                self.type_error(item, pointer, go_field, go_type);
                None
            }
        }
    }
}

fn source_hint(v: &Node) -> String {
    v.display_scalar()
}

/// OLM005: a plain scalar YAML 1.1 turned into a number or boolean where a string was meant.
pub fn coercion(file: usize, v: &Node, pointer: &str) -> Diagnostic {
    Diagnostic::new(
        "OLM005",
        format!(
            "unquoted scalar is read as the {} {} by YAML 1.1, not as a string",
            v.go_kind(),
            v.display_scalar()
        ),
    )
    .at(file, v.span)
    .pointer(pointer)
    .help(
        "opm converts YAML with YAML 1.1 rules: `1.10` becomes 1.1, `yes`/`on` become true, `017` \
         becomes 15. Quote the value (for example \"1.10\").",
    )
    .fix(Fix {
        description: format!(
            "quote the scalar (it stops being the {} {})",
            v.go_kind(),
            v.display_scalar()
        ),
        safe: false,
        edits: vec![Edit::quote(file, v.span)],
    })
}

/// Decode one catalog document. `repeated_keys` is the parser's word that some mapping in it
/// repeats a key, which is then looked for and reported.
pub fn document<'a>(
    cat: &mut Catalog<'a>,
    doc: DocRef<'a>,
    repeated_keys: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let root = doc.node;
    if root.is_null() {
        // Go decodes `null` into the map without error; the schema lookup then fails.
        diags.push(
            Diagnostic::new("OLM003", "object 'null' is missing root schema field")
                .at(doc.file, root.span)
                .pointer("")
                .help("A `null` document is not a catalog object; remove it."),
        );
        return;
    }
    let Some(map) = root.as_map() else {
        diags.push(
            Diagnostic::new(
                "OLM003",
                format!(
                    "document is {}, not a mapping: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    root.display_scalar(),
                    root.go_kind()
                ),
            )
            .at(doc.file, root.span)
            .pointer("")
            .help("Every catalog document must be a mapping with a `schema` key. If this file is not part of the catalog, list it in `.indexignore`."),
        );
        return;
    };
    if repeated_keys {
        duplicate_keys(doc, diags);
    }
    folded_duplicates(doc, map, diags);
    // schema / package / name are looked up case-insensitively at the top level.
    let mut meta: [Option<&'a Node>; 3] = [None; 3];
    for (slot, key) in meta.iter_mut().zip(["schema", "package", "name"]) {
        let matches: Vec<_> = map
            .iter()
            .filter(|e| e.key.eq_ignore_ascii_case(key))
            .collect();
        if let Some(e) = matches.last() {
            if e.value.as_str().is_none() {
                diags.push(
                    Diagnostic::new(
                        "OLM003",
                        format!(
                            "expected value for key {key:?} to be a string, got {}",
                            go_t_and_v(&e.value)
                        ),
                    )
                    .at(
                        doc.file,
                        if e.value.is_null() {
                            e.key_span
                        } else {
                            e.value.span
                        },
                    )
                    .pointer(ptr("", &e.key))
                    .help(format!("`{key}` must be a string.")),
                );
                if e.value.is_coerced_scalar() {
                    diags.push(coercion(doc.file, &e.value, &ptr("", &e.key)));
                }
            } else {
                *slot = Some(&e.value);
            }
        }
    }
    let schema = meta[0].and_then(Node::as_str).unwrap_or("");
    if schema.is_empty() {
        let compact = root.canonical_json();
        let shown: String = compact.chars().take(80).collect();
        let ellipsis = if compact.len() > shown.len() {
            "…"
        } else {
            ""
        };
        diags.push(
            Diagnostic::new("OLM003", format!("object '{shown}{ellipsis}' is missing root schema field"))
                .at(doc.file, map.first().map_or(root.span, |e| e.key_span))
                .pointer("")
                .help("Add `schema: olm.package`, `olm.channel`, `olm.bundle` or `olm.deprecations` (or your own schema name)."),
        );
        return;
    }
    let package = meta[1].and_then(Node::as_str).map(str::to_string);
    let name = meta[2].and_then(Node::as_str).map(str::to_string);
    match schema {
        "olm.package" => package_blob(cat, doc, diags),
        "olm.channel" => channel_blob(cat, doc, diags, package),
        "olm.bundle" => bundle_blob(cat, doc, diags, package, name),
        "olm.deprecations" => deprecations_blob(cat, doc, diags, package),
        _ => cat.others.push(doc),
    }
}

/// OLM004 for top-level keys that differ only in case (opm folds every top-level key and
/// rejects the document), e.g. `Image` beside `image`.
fn folded_duplicates(
    doc: DocRef<'_>,
    map: &[olmlint_base::tree::Entry],
    diags: &mut Vec<Diagnostic>,
) {
    // Runs for every document: with ASCII keys (nearly always) and no two folding alike, there
    // is nothing to group, so skip the per-key lowercase copies. Pairwise for the handful of
    // keys a document has; hashed above that (100 000 keys were 5·10⁹ comparisons).
    const PAIRWISE: usize = 16;
    let ascii = map.iter().all(|e| e.key.is_ascii());
    let distinct = if map.len() <= PAIRWISE {
        map.iter().enumerate().all(|(i, a)| {
            map.iter()
                .skip(i + 1)
                .all(|b| !a.key.eq_ignore_ascii_case(&b.key))
        })
    } else {
        let mut seen = std::collections::HashSet::with_capacity(map.len());
        map.iter().all(|e| seen.insert(e.key.to_ascii_lowercase()))
    };
    if ascii && distinct {
        return;
    }
    let mut groups: std::collections::BTreeMap<String, Vec<&olmlint_base::tree::Entry>> =
        Default::default();
    for e in map {
        groups
            .entry(e.key.to_lowercase().to_string())
            .or_default()
            .push(e);
    }
    for (key, entries) in groups {
        let mut names: Vec<&str> = entries.iter().map(|e| &*e.key).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() < 2 {
            continue; // exact repeats: duplicate_keys
        }
        let Some(second) = entries.get(1) else {
            continue;
        };
        let all: Vec<&str> = {
            let mut v: Vec<&str> = entries.iter().map(|e| &*e.key).collect();
            v.sort_unstable();
            v
        };
        diags.push(
            Diagnostic::new("OLM004", format!("duplicate keys for key {key:?}: [{}]", all.join(" ")))
                .severity(Severity::Error)
                .at(doc.file, second.key_span)
                .pointer(ptr("", &second.key))
                .help(format!("opm matches top-level keys case-insensitively and rejects the catalog; keep exactly one `{key}` key.")),
        );
    }
}

/// Go's `%t: %v` of a decoded JSON value, as opm's "to be a string" error prints it.
fn go_t_and_v(v: &Node) -> String {
    match &v.value {
        Value::Bool(b) => format!("{b}: {b}"),
        Value::Null => "%!t(<nil>): <nil>".into(),
        Value::Number { value, .. } => {
            let n = olmlint_base::tree::format_go_float(*value);
            format!("%!t(float64={n}): {n}")
        }
        Value::Seq(_) => format!("%!t([]interface {{}}={0}): {0}", go_v(v)),
        Value::Map(_) => format!("%!t(map[string]interface {{}}={0}): {0}", go_v(v)),
        Value::String(s) => s.to_string(),
        Value::Elided { .. } => go_v(v),
    }
}

/// Go's `%v` of a decoded JSON value (maps with sorted keys), bounded in length.
fn go_v(v: &Node) -> String {
    enum Item<'a> {
        Node(&'a Node),
        Text(&'a str),
    }
    let mut out = String::new();
    let mut stack: Vec<Item<'_>> = vec![Item::Node(v)];
    while let Some(item) = stack.pop() {
        if out.len() > 200 {
            out.push('…');
            break;
        }
        let node = match item {
            Item::Text(t) => {
                out.push_str(t);
                continue;
            }
            Item::Node(n) => n,
        };
        match &node.value {
            Value::Null => out.push_str("<nil>"),
            Value::Bool(b) => out.push_str(&b.to_string()),
            Value::Number { value, .. } => {
                out.push_str(&olmlint_base::tree::format_go_float(*value))
            }
            Value::String(s) => out.push_str(s),
            Value::Elided { .. } => out.push('…'),
            Value::Seq(items) => {
                out.push('[');
                stack.push(Item::Text("]"));
                for (i, it) in items.iter().enumerate().rev() {
                    stack.push(Item::Node(it));
                    if i > 0 {
                        stack.push(Item::Text(" "));
                    }
                }
            }
            Value::Map(entries) => {
                out.push_str("map[");
                stack.push(Item::Text("]"));
                let sorted = olmlint_base::tree::dedup_sorted(entries);
                for (i, e) in sorted.iter().enumerate().rev() {
                    stack.push(Item::Node(&e.value));
                    stack.push(Item::Text(":"));
                    stack.push(Item::Text(&e.key));
                    if i > 0 {
                        stack.push(Item::Text(" "));
                    }
                }
            }
        }
    }
    out
}

/// OLM004 for repeated keys in any mapping of the document (YAML and JSON keep the last). At
/// most [`MAX_DUPLICATE_FINDINGS`] per document, then one finding that counts the rest, so a
/// hostile file cannot turn into millions of findings.
pub(super) fn duplicate_keys(doc: DocRef<'_>, diags: &mut Vec<Diagnostic>) {
    let help = "opm's YAML/JSON decoding keeps only the last value of a repeated key, silently dropping the earlier ones. Remove or merge the duplicates.";
    let mut reported = 0usize;
    let mut more = 0usize;
    let mut first_unreported: Option<Span> = None;
    doc.node.walk(|n| {
        let Some(entries) = n.as_map() else { return };
        if entries.len() < 2 {
            return;
        }
        for i in repeated_keys(entries) {
            let Some(e) = entries.get(i) else { continue };
            if reported < MAX_DUPLICATE_FINDINGS {
                reported += 1;
                diags.push(
                    Diagnostic::new(
                        "OLM004",
                        format!("duplicate key {:?}: the last occurrence wins", e.key),
                    )
                    .at(doc.file, e.key_span)
                    .help(help),
                );
            } else {
                more += 1;
                first_unreported.get_or_insert(e.key_span);
            }
        }
    });
    if let Some(span) = first_unreported {
        diags.push(
            Diagnostic::new("OLM004", format!("{more} more duplicate keys in this document (only the first {MAX_DUPLICATE_FINDINGS} are reported one by one)"))
                .at(doc.file, span)
                .help(help),
        );
    }
}

const MAX_DUPLICATE_FINDINGS: usize = 100;

/// Indices, in order, of the entries whose key an earlier entry already has. Runs over every
/// mapping of every document, so small mappings are compared pairwise without allocating.
fn repeated_keys(entries: &[olmlint_base::tree::Entry]) -> Vec<usize> {
    if entries.len() <= 16 {
        return (1..entries.len())
            .filter(|&i| {
                let key = entries.get(i).map(|e| &e.key);
                entries.iter().take(i).any(|e| Some(&e.key) == key)
            })
            .collect();
    }
    let mut order: Vec<(&str, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.key.as_str(), i))
        .collect();
    order.sort_unstable();
    let mut repeated: Vec<usize> = order
        .windows(2)
        .filter(|w| matches!(w, [a, b] if a.0 == b.0))
        .filter_map(|w| w.get(1).map(|b| b.1))
        .collect();
    repeated.sort_unstable();
    repeated
}

fn package_blob<'a>(cat: &mut Catalog<'a>, doc: DocRef<'a>, diags: &mut Vec<Diagnostic>) {
    let n = doc.node;
    let mut cx = Ctx {
        file: doc.file,
        diags,
        rule: "OLM101",
        blob: "package",
        package: None,
        bundle: None,
    };
    let name = cx.string(n, "name", "", "Package.name");
    cx.package = name.map(|s| s.value.to_string());
    let default_channel = cx.string(n, "defaultChannel", "", "Package.defaultChannel");
    let icon = n
        .get_folded("icon")
        .map(|e| &e.value)
        .filter(|i| !i.is_null());
    if let Some(i) = icon {
        if i.as_map().is_none() {
            cx.type_error(i, "/icon", "Package.icon", "declcfg.Icon");
        } else {
            cx.string(i, "base64data", "/icon", "Icon.icon.base64data");
            cx.string(i, "mediatype", "/icon", "Icon.icon.mediatype");
        }
    }
    cx.string(n, "description", "", "Package.description");
    cat.packages.push(Package {
        doc,
        name,
        default_channel,
        icon,
        from_directory: false,
    });
}

fn channel_blob<'a>(
    cat: &mut Catalog<'a>,
    doc: DocRef<'a>,
    diags: &mut Vec<Diagnostic>,
    package: Option<String>,
) {
    let n = doc.node;
    let mut cx = Ctx {
        file: doc.file,
        diags,
        rule: "OLM103",
        blob: "channel",
        package,
        bundle: None,
    };
    let package = cx.string(n, "package", "", "Channel.package");
    let name = cx.string(n, "name", "", "Channel.name");
    // Channel properties are not used by olmlint, but opm decodes them.
    let props_key = n
        .get_folded("properties")
        .map_or("properties".into(), |e| e.key.to_string());
    for (i, item) in cx
        .list(
            n,
            "properties",
            "",
            "Channel.properties",
            "[]property.Property",
        )
        .iter()
        .enumerate()
    {
        let p = list_item_pointer(&props_key, i);
        if item.as_map().is_some() {
            cx.string(item, "type", &p, "Property.properties.type");
        } else {
            cx.object(item, &p, "Channel.properties", "property.Property");
        }
    }
    let mut entries = Vec::new();
    let list_key = n
        .get_folded("entries")
        .map_or("entries".into(), |e| e.key.to_string());
    for (i, item) in cx
        .list(
            n,
            "entries",
            "",
            "Channel.entries",
            "[]declcfg.ChannelEntry",
        )
        .iter()
        .enumerate()
    {
        let p = list_item_pointer(&list_key, i);
        let Some(obj) = cx.object(item, &p, "Channel.entries", "declcfg.ChannelEntry") else {
            entries.push(ChannelEntry {
                node: item,
                file: doc.file,
                index: i,
                name: None,
                replaces: None,
                skips: vec![],
                skip_range: None,
                from_directory: false,
            });
            continue;
        };
        let name = cx.string(obj, "name", &p, "ChannelEntry.entries.name");
        let replaces = cx.string(obj, "replaces", &p, "ChannelEntry.entries.replaces");
        let skip_range = cx.string(obj, "skipRange", &p, "ChannelEntry.entries.skipRange");
        let skips_key = obj
            .get_folded("skips")
            .map_or("skips".into(), |e| e.key.to_string());
        let mut skips = Vec::new();
        for (j, s) in cx
            .list(obj, "skips", &p, "ChannelEntry.entries.skips", "[]string")
            .iter()
            .enumerate()
        {
            match &s.value {
                Value::String(v) => skips.push(Str { value: v, node: s }),
                Value::Null => skips.push(Str { value: "", node: s }),
                _ => cx.type_error(
                    s,
                    &format!("{p}/{skips_key}/{j}"),
                    "ChannelEntry.entries.skips",
                    "string",
                ),
            }
        }
        entries.push(ChannelEntry {
            node: item,
            file: doc.file,
            index: i,
            name,
            replaces,
            skips,
            skip_range,
            from_directory: false,
        });
    }
    cat.channels.push(Channel {
        doc,
        package,
        name,
        entries,
    });
}

fn bundle_blob<'a>(
    cat: &mut Catalog<'a>,
    doc: DocRef<'a>,
    diags: &mut Vec<Diagnostic>,
    package: Option<String>,
    name: Option<String>,
) {
    let n = doc.node;
    let mut cx = Ctx {
        file: doc.file,
        diags,
        rule: "OLM104",
        blob: "bundle",
        package,
        bundle: name,
    };
    let package = cx.string(n, "package", "", "Bundle.package");
    let name = cx.string(n, "name", "", "Bundle.name");
    let image = cx.string(n, "image", "", "Bundle.image");
    let props_key = n
        .get_folded("properties")
        .map_or("properties".into(), |e| e.key.to_string());
    let mut properties = Vec::new();
    for (i, item) in cx
        .list(
            n,
            "properties",
            "",
            "Bundle.properties",
            "[]property.Property",
        )
        .iter()
        .enumerate()
    {
        let p = list_item_pointer(&props_key, i);
        let ty = match item.as_map() {
            Some(_) => cx.string(item, "type", &p, "Property.properties.type"),
            None => {
                cx.object(item, &p, "Bundle.properties", "property.Property");
                None
            }
        };
        let value = item.get_folded("value").map(|e| Cow::Borrowed(&e.value));
        properties.push(Property {
            index: i,
            file: doc.file,
            item: Some(item),
            ty,
            value,
            pointer: p,
        });
    }
    let mut related_images = Vec::new();
    let ri_key = n
        .get_folded("relatedImages")
        .map_or("relatedImages".into(), |e| e.key.to_string());
    for (i, item) in cx
        .list(
            n,
            "relatedImages",
            "",
            "Bundle.relatedImages",
            "[]declcfg.RelatedImage",
        )
        .iter()
        .enumerate()
    {
        let p = list_item_pointer(&ri_key, i);
        if let Some(obj) = cx.object(item, &p, "Bundle.relatedImages", "declcfg.RelatedImage") {
            let name = cx.string(obj, "name", &p, "RelatedImage.relatedImages.name");
            let image = cx.string(obj, "image", &p, "RelatedImage.relatedImages.image");
            related_images.push((name, image));
        }
    }
    cat.bundles.push(Bundle {
        doc,
        package,
        name,
        image,
        properties,
        related_images,
        from_directory: false,
    });
}

fn deprecations_blob<'a>(
    cat: &mut Catalog<'a>,
    doc: DocRef<'a>,
    diags: &mut Vec<Diagnostic>,
    package: Option<String>,
) {
    let n = doc.node;
    let mut cx = Ctx {
        file: doc.file,
        diags,
        rule: "OLM107",
        blob: "deprecation",
        package,
        bundle: None,
    };
    let package = cx.string(n, "package", "", "Deprecation.package");
    let mut entries = Vec::new();
    let key = n
        .get_folded("entries")
        .map_or("entries".into(), |e| e.key.to_string());
    for (i, item) in cx
        .list(
            n,
            "entries",
            "",
            "Deprecation.entries",
            "[]declcfg.DeprecationEntry",
        )
        .iter()
        .enumerate()
    {
        let p = list_item_pointer(&key, i);
        let Some(obj) = cx.object(item, &p, "Deprecation.entries", "declcfg.DeprecationEntry")
        else {
            continue;
        };
        let (mut schema, mut name) = (None, None);
        if let Some(r) = obj
            .get_folded("reference")
            .map(|e| &e.value)
            .filter(|r| !r.is_null())
        {
            if r.as_map().is_some() {
                schema = cx.string(
                    r,
                    "schema",
                    &format!("{p}/reference"),
                    "PackageScopedReference.entries.reference.schema",
                );
                name = cx.string(
                    r,
                    "name",
                    &format!("{p}/reference"),
                    "PackageScopedReference.entries.reference.name",
                );
            } else {
                cx.type_error(
                    r,
                    &format!("{p}/reference"),
                    "DeprecationEntry.entries.reference",
                    "declcfg.PackageScopedReference",
                );
            }
        }
        let message = cx.string(obj, "message", &p, "DeprecationEntry.entries.message");
        entries.push(DeprecationEntry {
            node: item,
            index: i,
            schema,
            name,
            message,
        });
    }
    cat.deprecations.push(Deprecations {
        doc,
        package,
        entries,
    });
}
