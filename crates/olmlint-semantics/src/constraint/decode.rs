//! api `constraints.Parse`: Go `encoding/json` with `DisallowUnknownFields` into the
//! `Constraint` struct, reproduced over the spanned tree. Objects are visited in the order OLM
//! sees them (keys sorted, as the registry re-encodes values); every problem is recorded and
//! Go returns the first error.

use super::{CompoundKind, Constraint, Kind, GO_MAX_DEPTH, MAX_SIZE};
use olmlint_base::diag::pointer_segment;
use olmlint_base::tree::{canonical_entries, Node, Span, Value};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IssueKind {
    /// The value is larger than OLM's 131072-byte limit (canonical JSON).
    TooLarge,
    /// More than 10000 nested containers.
    MaxDepth,
    /// `json: unknown field "<key>"`.
    UnknownField { key: String },
    /// `json: cannot unmarshal …`.
    TypeMismatch,
    /// A key written in another case than OLM's (`GVK`): accepted by Go.
    KeyCase { canonical: &'static str },
    /// Two keys fold to the same field; the last one wins.
    DuplicateField { canonical: &'static str },
    /// Several kinds on one node: OLM uses `used` and ignores the rest.
    MultipleKinds {
        used: &'static str,
        ignored: Vec<&'static str>,
    },
}

impl IssueKind {
    /// True for problems that make OLM reject the constraint.
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            IssueKind::TooLarge
                | IssueKind::MaxDepth
                | IssueKind::UnknownField { .. }
                | IssueKind::TypeMismatch
        )
    }
}

#[derive(Clone, Debug)]
pub struct Issue {
    pub kind: IssueKind,
    pub span: Span,
    pub pointer: String,
    /// Go's error text (for errors) or a description.
    pub message: String,
}

#[derive(Debug)]
pub struct Decoded<'a> {
    /// `None` when OLM's decoder stops before producing a constraint (size, depth, non-object).
    pub root: Option<Constraint<'a>>,
    pub issues: Vec<Issue>,
    /// Bytes of the canonical JSON OLM measures.
    pub size: usize,
}

impl Decoded<'_> {
    /// The error `constraints.Parse` returns, without OLM's `parse olm.constraint: ` prefix.
    pub fn parse_error(&self) -> Option<&Issue> {
        self.issues.iter().find(|i| i.kind.is_error())
    }
}

/// The keys of a constraint object, in OLM's canonical spelling.
pub const FIELDS: [&str; 7] = [
    "failureMessage",
    "gvk",
    "package",
    "cel",
    "all",
    "any",
    "not",
];
/// Conversion precedence: the first kind set wins.
const PRECEDENCE: [&str; 6] = ["gvk", "package", "all", "any", "not", "cel"];

/// Decode a property value. `value` is `None` when the property has no `value` key.
pub fn decode(value: &Node) -> Decoded<'_> {
    let size = value.canonical_len();
    let mut d = Decoder { issues: Vec::new() };
    if size > MAX_SIZE {
        d.issues.push(Issue {
            kind: IssueKind::TooLarge,
            span: value.span,
            pointer: String::new(),
            message: format!(
                "olm.constraint value is greater than max constraint size {MAX_SIZE} bytes"
            ),
        });
        return Decoded {
            root: None,
            issues: d.issues,
            size,
        };
    }
    if let Some(span) = container_depth_exceeds(value, GO_MAX_DEPTH) {
        d.issues.push(Issue {
            kind: IssueKind::MaxDepth,
            span,
            pointer: String::new(),
            message: "exceeded max depth".into(),
        });
        return Decoded {
            root: None,
            issues: d.issues,
            size,
        };
    }
    let root = match &value.value {
        Value::Map(_) | Value::Null => Some(d.constraint(value, String::new(), 1, "")),
        _ => {
            d.issues.push(Issue {
                kind: IssueKind::TypeMismatch,
                span: value.span,
                pointer: String::new(),
                message: format!(
                    "json: cannot unmarshal {} into Go value of type constraints.Constraint",
                    value.go_kind()
                ),
            });
            None
        }
    };
    // Go keeps the first error it meets, walking the re-encoded value (sorted keys) depth
    // first; the decoder reports an object's unknown keys before descending, so reorder.
    let mut issues = d.issues;
    issues.sort_by_cached_key(|i| document_order(&i.pointer));
    Decoded { root, issues, size }
}

/// A segment of a JSON pointer, ordered as Go meets it: array items by index, object keys
/// by bytes (the canonical JSON's key order); a parent before its children.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Segment {
    Index(usize),
    Key(String),
}

fn document_order(pointer: &str) -> Vec<Segment> {
    pointer
        .split('/')
        .skip(1)
        .map(|raw| {
            let seg = olmlint_base::tree::unescape_segment(raw);
            match seg.parse::<usize>() {
                Ok(i) if !seg.starts_with('+') => Segment::Index(i),
                _ => Segment::Key(seg),
            }
        })
        .collect()
}

/// The span of the first container nested deeper than `max` (Go counts the value itself as 1).
fn container_depth_exceeds(node: &Node, max: usize) -> Option<Span> {
    let mut stack: Vec<(&Node, usize)> = vec![(node, 1)];
    while let Some((n, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Node>> = match &n.value {
            Value::Seq(items) => Box::new(items.iter()),
            Value::Map(entries) => Box::new(entries.iter().map(|e| &e.value)),
            _ => continue,
        };
        if depth > max {
            return Some(n.span);
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    None
}

struct Decoder {
    issues: Vec<Issue>,
}

impl Decoder {
    fn type_error(&mut self, v: &Node, pointer: &str, go_path: &str, go_type: &str) {
        self.issues.push(Issue {
            kind: IssueKind::TypeMismatch,
            span: v.span,
            pointer: pointer.to_string(),
            message: format!("json: cannot unmarshal {} into Go struct field Constraint.{go_path} of type {go_type}", v.go_kind()),
        });
    }

    /// Match the keys of an object against Go struct fields (case-insensitively). Returns the
    /// last entry for each field, reporting unknown, miscased and repeated keys.
    fn fields<'a>(
        &mut self,
        obj: &'a Node,
        pointer: &str,
        names: &[&'static str],
    ) -> [Option<&'a olmlint_base::tree::Entry>; FIELDS.len()] {
        let mut out = [None; FIELDS.len()];
        // Canonical order: the registry re-encodes values with sorted keys.
        for e in canonical_entries(obj.as_map().unwrap_or(&[])).iter() {
            // Pointers are built only for issues: decoding runs for every constraint.
            let p = || format!("{pointer}/{}", pointer_segment(&e.key));
            match names.iter().position(|n| n.eq_ignore_ascii_case(&e.key)) {
                None => self.issues.push(Issue {
                    kind: IssueKind::UnknownField {
                        key: e.key.to_string(),
                    },
                    span: e.key_span,
                    pointer: p(),
                    message: format!("json: unknown field {:?}", e.key),
                }),
                Some(i) => {
                    let canonical = names.get(i).copied().unwrap_or("");
                    if &*e.key != canonical {
                        self.issues.push(Issue {
                            kind: IssueKind::KeyCase { canonical },
                            span: e.key_span,
                            pointer: p(),
                            message: format!(
                                "key {:?} is matched case-insensitively to {canonical:?}",
                                e.key
                            ),
                        });
                    }
                    if let Some(slot) = out.get_mut(i) {
                        if slot.is_some() {
                            self.issues.push(Issue {
                                kind: IssueKind::DuplicateField { canonical },
                                span: e.key_span,
                                pointer: p(),
                                message: format!(
                                    "{canonical:?} is set more than once; OLM uses the last one"
                                ),
                            });
                        }
                        *slot = Some(e);
                    }
                }
            }
        }
        out
    }

    /// A string field; null is "". Returns the string and its node.
    fn string<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        pointer: &str,
        go_path: &dyn Fn() -> String,
    ) -> (String, Option<&'a Node>) {
        let Some(e) = e else {
            return (String::new(), None);
        };
        match &e.value.value {
            Value::String(s) => (s.to_string(), Some(&e.value)),
            Value::Null => (String::new(), None),
            _ => {
                let p = format!("{pointer}/{}", pointer_segment(&e.key));
                self.type_error(&e.value, &p, &go_path(), "string");
                (String::new(), Some(&e.value))
            }
        }
    }

    /// An object-typed field: `None` when absent or null, reports non-objects.
    fn object<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        pointer: &str,
        go_path: &dyn Fn() -> String,
        go_type: &str,
    ) -> Option<(&'a Node, String)> {
        let e = e?;
        let p = format!("{pointer}/{}", pointer_segment(&e.key));
        match &e.value.value {
            Value::Map(_) => Some((&e.value, p)),
            Value::Null => None,
            _ => {
                self.type_error(&e.value, &p, &go_path(), go_type);
                None
            }
        }
    }

    fn constraint<'a>(
        &mut self,
        node: &'a Node,
        pointer: String,
        depth: usize,
        go_prefix: &str,
    ) -> Constraint<'a> {
        let mut c = Constraint {
            node,
            pointer: pointer.clone(),
            depth,
            failure_message: None,
            kind: Kind::Empty,
            ignored: Vec::new(),
        };
        if node.is_null() {
            return c;
        }
        let f = self.fields(node, &pointer, &FIELDS);
        let get = |i: usize| f.get(i).copied().flatten();
        let (_, fm) = self.string(get(0), &pointer, &|| go_field(go_prefix, "failureMessage"));
        c.failure_message = fm.filter(|n| n.as_str().is_some());
        let mut kinds: Vec<(&'static str, Kind<'a>)> = Vec::new();
        kinds.extend(self.gvk(get(1), &pointer, go_prefix));
        kinds.extend(self.package(get(2), &pointer, go_prefix));
        for (i, op) in [
            (4, CompoundKind::All),
            (5, CompoundKind::Any),
            (6, CompoundKind::Not),
        ] {
            kinds.extend(self.compound(get(i), op, &pointer, go_prefix, depth));
        }
        kinds.extend(self.cel(get(3), &pointer, go_prefix));
        self.choose_kind(&mut c, kinds, pointer);
        c
    }

    /// The `gvk` field: `{group, version, kind}`.
    fn gvk<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        pointer: &str,
        go_prefix: &str,
    ) -> Option<(&'static str, Kind<'a>)> {
        let path = || go_field(go_prefix, "gvk");
        let (g, p) = self.object(e, pointer, &path, "constraints.GVKConstraint")?;
        let gf = self.fields(g, &p, &["group", "version", "kind"]);
        let (group, _) = self.string(gf.first().copied().flatten(), &p, &|| {
            format!("{}.group", path())
        });
        let (version, _) = self.string(gf.get(1).copied().flatten(), &p, &|| {
            format!("{}.version", path())
        });
        let (kind, _) = self.string(gf.get(2).copied().flatten(), &p, &|| {
            format!("{}.kind", path())
        });
        Some((
            "gvk",
            Kind::Gvk {
                group,
                version,
                kind,
            },
        ))
    }

    /// The `package` field: `{packageName, versionRange}`.
    fn package<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        pointer: &str,
        go_prefix: &str,
    ) -> Option<(&'static str, Kind<'a>)> {
        let path = || go_field(go_prefix, "package");
        let (pk, p) = self.object(e, pointer, &path, "constraints.PackageConstraint")?;
        let pf = self.fields(pk, &p, &["packageName", "versionRange"]);
        let (name, name_node) = self.string(pf.first().copied().flatten(), &p, &|| {
            format!("{}.packageName", path())
        });
        let (range, range_node) = self.string(pf.get(1).copied().flatten(), &p, &|| {
            format!("{}.versionRange", path())
        });
        Some((
            "package",
            Kind::Package {
                name,
                range,
                range_node,
                name_node,
            },
        ))
    }

    /// An `all`, `any` or `not` field: `{constraints: [...]}`, each item a constraint one
    /// level deeper than `depth`.
    fn compound<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        op: CompoundKind,
        pointer: &str,
        go_prefix: &str,
        depth: usize,
    ) -> Option<(&'static str, Kind<'a>)> {
        let key = op.key();
        let path = || go_field(go_prefix, key);
        let (obj, p) = self.object(e, pointer, &path, "constraints.CompoundConstraint")?;
        let lf = self.fields(obj, &p, &["constraints"]);
        let mut children = Vec::new();
        let mut list = None;
        if let Some(le) = lf.first().copied().flatten() {
            let lp = format!("{p}/{}", pointer_segment(&le.key));
            let go_list = format!("{}.constraints", path());
            match &le.value.value {
                Value::Seq(items) => {
                    list = Some(&le.value);
                    for (j, item) in items.iter().enumerate() {
                        let ip = format!("{lp}/{j}");
                        match item.value {
                            Value::Map(_) | Value::Null => {
                                children.push(self.constraint(item, ip, depth + 1, &go_list))
                            }
                            _ => self.type_error(item, &ip, &go_list, "constraints.Constraint"),
                        }
                    }
                }
                Value::Null => {}
                _ => self.type_error(&le.value, &lp, &go_list, "[]constraints.Constraint"),
            }
        }
        Some((key, Kind::Compound { op, children, list }))
    }

    /// The `cel` field: `{rule}`.
    fn cel<'a>(
        &mut self,
        e: Option<&'a olmlint_base::tree::Entry>,
        pointer: &str,
        go_prefix: &str,
    ) -> Option<(&'static str, Kind<'a>)> {
        let path = || go_field(go_prefix, "cel");
        let (cel, p) = self.object(e, pointer, &path, "constraints.Cel")?;
        let cf = self.fields(cel, &p, &["rule"]);
        let (rule, rule_node) = self.string(cf.first().copied().flatten(), &p, &|| {
            format!("{}.rule", path())
        });
        Some(("cel", Kind::Cel { rule, rule_node }))
    }

    /// The kind OLM converts the constraint to: the first set in [`PRECEDENCE`]; the others
    /// are ignored, which is reported.
    fn choose_kind<'a>(
        &mut self,
        c: &mut Constraint<'a>,
        mut kinds: Vec<(&'static str, Kind<'a>)>,
        pointer: String,
    ) {
        kinds.sort_by_key(|(k, _)| PRECEDENCE.iter().position(|p| p == k));
        let mut it = kinds.into_iter();
        let Some((used, kind)) = it.next() else {
            return;
        };
        c.kind = kind;
        c.ignored = it.map(|(k, _)| k).collect();
        if !c.ignored.is_empty() {
            self.issues.push(Issue {
                kind: IssueKind::MultipleKinds {
                    used,
                    ignored: c.ignored.clone(),
                },
                span: c.node.span,
                pointer,
                message: format!(
                    "OLM uses `{used}` and silently ignores {}",
                    c.ignored
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
}

/// The Go path of `field` of the struct at `go_prefix` (`all.constraints.gvk`), as Go's
/// decoding errors name it.
fn go_field(go_prefix: &str, field: &str) -> String {
    if go_prefix.is_empty() {
        field.to_string()
    } else {
        format!("{go_prefix}.{field}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use olmlint_load::{json, Limits};

    fn value(json_text: &str) -> Node {
        let mut p = Vec::new();
        let limits = Limits {
            max_depth: 20_000,
            ..Limits::default()
        };
        let docs = json::parse_stream(&format!("{{\"v\":{json_text}}}"), &limits, &mut p);
        assert!(p.is_empty(), "{p:?}");
        docs.into_iter()
            .next()
            .unwrap()
            .root
            .unwrap()
            .get("v")
            .unwrap()
            .clone()
    }

    fn first_error(json_text: &str) -> Option<String> {
        let v = value(json_text);
        decode(&v).parse_error().map(|i| i.message.clone())
    }

    const G1: &str = r#"{"group":"g1","version":"v1","kind":"k1"}"#;

    #[test]
    fn spec_9_1_decode_errors() {
        assert_eq!(
            first_error(r#"{"package":{"name":"foo","versionRange":">=1.0.0"}}"#).as_deref(),
            Some(r#"json: unknown field "name""#)
        ); // C5
        assert_eq!(
            first_error(&format!(r#"{{"message":"x","gvk":{G1}}}"#)).as_deref(),
            Some(r#"json: unknown field "message""#)
        ); // C6
        assert_eq!(
            first_error(r#"{"unknown":{"foo":"bar"}}"#).as_deref(),
            Some(r#"json: unknown field "unknown""#)
        ); // C20
        assert_eq!(
            first_error(r#"{"gvk":{"group":"g1","version":"v1","kind":"k1","plural":"k1s"}}"#)
                .as_deref(),
            Some(r#"json: unknown field "plural""#)
        ); // C21
        assert_eq!(
            first_error(r#"{"all":{"constraints":[],"extra":1}}"#).as_deref(),
            Some(r#"json: unknown field "extra""#)
        ); // C22
        assert_eq!(
            first_error(r#"{"gvk":"g1/v1/k1"}"#).as_deref(),
            Some("json: cannot unmarshal string into Go struct field Constraint.gvk of type constraints.GVKConstraint")
        ); // C23
        assert_eq!(first_error(r#"{"gvk":{"group":1}}"#).as_deref(), Some("json: cannot unmarshal number into Go struct field Constraint.gvk.group of type string")); // C24
        assert_eq!(first_error(&format!(r#"{{"failureMessage":5,"gvk":{G1}}}"#)).as_deref(), Some("json: cannot unmarshal number into Go struct field Constraint.failureMessage of type string")); // C25
        assert_eq!(
            first_error(r#"{"cel":{"rule":"true","extra":1}}"#).as_deref(),
            Some(r#"json: unknown field "extra""#)
        ); // C34
        assert!(first_error(r#"{"cel":"true"}"#)
            .unwrap()
            .contains("Constraint.cel"));
        assert_eq!(
            first_error(r#"{"all":{"constraints":{}}}"#).as_deref(),
            Some("json: cannot unmarshal object into Go struct field Constraint.all.constraints of type []constraints.Constraint")
        ); // C38
        for (v, k) in [
            (r#""just a string""#, "string"),
            ("[]", "array"),
            ("123", "number"),
        ] {
            assert_eq!(
                first_error(v),
                Some(format!(
                    "json: cannot unmarshal {k} into Go value of type constraints.Constraint"
                ))
            ); // C39
        }
    }

    #[test]
    fn accepted_forms_and_kind_selection() {
        let v = value(r#"{"GVK":{"Group":"g1","VERSION":"v1","kind":"k1"}}"#); // C7
        let d = decode(&v);
        assert!(d.parse_error().is_none());
        assert!(
            matches!(d.root.as_ref().unwrap().kind, Kind::Gvk { ref group, .. } if group == "g1")
        );
        assert!(d
            .issues
            .iter()
            .any(|i| i.kind == IssueKind::KeyCase { canonical: "gvk" }));
        let v = value(&format!(
            r#"{{"gvk":{G1},"package":{{"packageName":"bar","versionRange":"garbage"}}}}"#
        )); // C8
        let d = decode(&v);
        let root = d.root.unwrap();
        assert!(matches!(root.kind, Kind::Gvk { .. }));
        assert_eq!(root.ignored, vec!["package"]);
        let v = value(r#"{"not":{"constraints":[]},"cel":{"rule":"true"}}"#); // C10
        assert!(matches!(
            decode(&v).root.unwrap().kind,
            Kind::Compound {
                op: CompoundKind::Not,
                ..
            }
        ));
        let v = value(
            r#"{"gvk":{"group":"a","version":"v","kind":"K"},"gvk":{"group":"g2","version":"v1","kind":"k2"}}"#,
        ); // C26
        assert!(
            matches!(decode(&v).root.unwrap().kind, Kind::Gvk { ref group, .. } if group == "g2")
        );
        for empty in [r#"{"all":null}"#, "{}", "null", r#"{"failureMessage":"m"}"#] {
            let v = value(empty); // C18
            let d = decode(&v);
            assert!(d.parse_error().is_none(), "{empty}");
            assert!(matches!(d.root.unwrap().kind, Kind::Empty), "{empty}");
        }
        let v = value(r#"{"all":{"constraints":[{}]}}"#); // C19
        let root = decode(&v).root.unwrap();
        let Kind::Compound { children, .. } = &root.kind else {
            panic!()
        };
        assert!(matches!(children[0].kind, Kind::Empty));
        assert_eq!(children[0].depth, 2);
        assert_eq!(children[0].pointer, "/all/constraints/0");
    }

    #[test]
    fn olm_strings() {
        let v = value(&format!(
            r#"{{"all":{{"constraints":[{{"gvk":{G1}}},{{"not":{{"constraints":[{{"package":{{"packageName":"foo","versionRange":">=2.0.0"}}}}]}}}}]}}}}"#
        )); // C14
        assert_eq!(
            decode(&v).root.unwrap().olm_string(),
            "providing an API with group: g1, version: v1, kind: k1 and with package: foo and with version in range: >=2.0.0"
        );
    }

    #[test]
    fn size_and_depth_limits() {
        // Decoding recurses per constraint level; olmlint runs it on 64 MiB worker stacks.
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(size_and_depth_limits_body)
            .unwrap()
            .join()
            .unwrap();
    }

    fn size_and_depth_limits_body() {
        // C40/C41: padded with failureMessage to exactly 131072 and 131073 bytes.
        let base = format!(r#"{{"failureMessage":"","gvk":{G1}}}"#);
        let pad = |n: usize| {
            format!(
                r#"{{"failureMessage":"{}","gvk":{G1}}}"#,
                "x".repeat(n - base.len())
            )
        };
        assert!(decode(&value(&pad(131_072))).parse_error().is_none());
        assert_eq!(
            decode(&value(&pad(131_073))).parse_error().unwrap().message,
            "olm.constraint value is greater than max constraint size 131072 bytes"
        );
        // C42/C43: 3332 nested `all` is accepted, 3333 exceeds Go's depth.
        let nest = |n: usize| {
            let mut s = format!(r#"{{"gvk":{G1}}}"#);
            for _ in 0..n {
                s = format!(r#"{{"all":{{"constraints":[{s}]}}}}"#);
            }
            s
        };
        assert!(decode(&value(&nest(3332))).parse_error().is_none());
        assert_eq!(
            decode(&value(&nest(3333))).parse_error().unwrap().message,
            "exceeded max depth"
        );
    }
}
