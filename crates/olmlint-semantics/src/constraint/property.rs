//! OLM's verdict on one dependency property (`olm.constraint` and the legacy `olm.*.required`
//! types): the predicate it builds, or the exact error text that aborts resolution (§1.6, §2.1).

use super::decode;
use super::predicate::{convert, Pred};
use crate::range;
use olmlint_base::tree::{Node, Value};

#[derive(Debug)]
pub struct Verdict {
    /// The predicate when OLM accepts the property.
    pub pred: Option<Pred>,
    /// `constraints.Parse` error (olm.constraint) or unmarshal error (legacy types).
    pub parse_error: Option<String>,
    /// Conversion error (empty constraint, range, CEL).
    pub convert_error: Option<String>,
    /// Bytes OLM measures for the size limit.
    pub value_bytes: usize,
    /// OLM's `pred.String()` when accepted.
    pub label: String,
}

impl Verdict {
    /// The error as OLM reports it (wrapped for olm.constraint, bare for legacy types).
    pub fn olm_error(&self, ty: &str) -> Option<String> {
        let wrap = ty == "olm.constraint";
        match (&self.parse_error, &self.convert_error) {
            (Some(p), _) if wrap => Some(format!("parse olm.constraint: {p}")),
            (None, Some(c)) if wrap => {
                Some(format!("convert olm.constraint to resolver predicate: {c}"))
            }
            (Some(e), _) | (None, Some(e)) => Some(e.clone()),
            (None, None) => None,
        }
    }
}

/// Property types the resolver turns into dependencies.
pub fn is_dependency(ty: &str) -> bool {
    matches!(
        ty,
        "olm.constraint" | "olm.package.required" | "olm.gvk.required" | "olm.label.required"
    )
}

/// Evaluate a dependency property. `cel` compiles a rule to an index or cel-go's error text.
pub fn verdict(
    ty: &str,
    value: &Node,
    cel: &mut dyn FnMut(&str) -> Result<usize, String>,
) -> Verdict {
    let decoded = (ty == "olm.constraint").then(|| decode(value));
    let value_bytes = decoded
        .as_ref()
        .map_or_else(|| value.canonical_len(), |d| d.size);
    let mut v = Verdict {
        pred: None,
        parse_error: None,
        convert_error: None,
        value_bytes,
        label: String::new(),
    };
    match (ty, decoded) {
        ("olm.constraint", Some(d)) => {
            if let Some(e) = d.parse_error() {
                v.parse_error = Some(e.message.clone());
                return v;
            }
            let Some(root) = d.root.as_ref() else {
                return v;
            };
            match convert(root, cel) {
                Ok(p) => {
                    v.label = root.olm_string();
                    v.pred = Some(p);
                }
                Err(e) => v.convert_error = Some(e.message),
            }
        }
        ("olm.gvk.required" | "olm.package.required" | "olm.label.required", _) => {
            legacy(ty, value, &mut v)
        }
        _ => {}
    }
    v
}

/// Plain `json.Unmarshal` into an anonymous struct: case-insensitive keys, unknown ignored.
fn legacy(ty: &str, value: &Node, v: &mut Verdict) {
    let fields: &[&str] = match ty {
        "olm.gvk.required" => &["group", "version", "kind"],
        "olm.package.required" => &["packageName", "versionRange"],
        _ => &["label"],
    };
    if !matches!(value.value, Value::Map(_) | Value::Null) {
        v.parse_error = Some(format!(
            "json: cannot unmarshal {} into Go value of type struct {{…}}",
            value.go_kind()
        ));
        return;
    }
    let mut got = Vec::new();
    for f in fields {
        match value.get_folded(f).map(|e| &e.value) {
            Some(n) if !matches!(n.value, Value::String(_) | Value::Null) => {
                v.parse_error = Some(format!(
                    "json: cannot unmarshal {} into Go struct field .{f} of type string",
                    n.go_kind()
                ));
                return;
            }
            n => got.push(n.and_then(Node::as_str).unwrap_or("").to_string()),
        }
    }
    let field = |i: usize| got.get(i).cloned().unwrap_or_default();
    match ty {
        "olm.gvk.required" => {
            let (group, version, kind) = (field(0), field(1), field(2));
            v.label =
                format!("providing an API with group: {group}, version: {version}, kind: {kind}");
            v.pred = Some(Pred::Gvk {
                group,
                version,
                kind,
            });
        }
        "olm.package.required" => match range::parse(&field(1)) {
            Ok(r) => {
                v.label = format!(
                    "with package: {} and with version in range: {}",
                    field(0),
                    field(1)
                );
                v.pred = Some(Pred::Package {
                    name: field(0),
                    range: r,
                });
            }
            Err(e) => v.convert_error = Some(e.message),
        },
        _ => {
            v.label = format!("with label: {}", field(0));
            v.pred = Some(Pred::Label(field(0)));
        }
    }
}
