//! The JSON Schemas of `schemas/` (dependency values, dependencies.yaml, properties.yaml,
//! an operator directory's ci.yaml, a bundle directory's release-config.yaml),
//! embedded, compiled once and validated against spanned trees. The decoder decides verdicts;
//! the schemas are what editors see, and what olmlint uses to list every problem in a value
//! where OLM's decoder stops at the first (`tests/it/schema.rs` checks that both agree).

use olmlint_base::tree::{Node, Span};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Name (the property type or file it describes) and text of every embedded schema.
pub const SCHEMAS: [(&str, &str); 8] = [
    (
        "olm.constraint",
        include_str!("../schemas/olm.constraint.schema.json"),
    ),
    (
        "olm.package.required",
        include_str!("../schemas/olm.package.required.schema.json"),
    ),
    (
        "olm.gvk.required",
        include_str!("../schemas/olm.gvk.required.schema.json"),
    ),
    (
        "olm.label.required",
        include_str!("../schemas/olm.label.required.schema.json"),
    ),
    (
        "dependencies",
        include_str!("../schemas/dependencies.schema.json"),
    ),
    (
        "properties",
        include_str!("../schemas/properties.schema.json"),
    ),
    ("ci", include_str!("../schemas/ci.schema.json")),
    (
        "release-config",
        include_str!("../schemas/release-config.schema.json"),
    ),
];

/// The text of a schema by name, or of the olmlint configuration schema (`olmlint-config`).
pub fn text(name: &str) -> Option<&'static str> {
    if name == "olmlint-config" {
        return Some(include_str!("../schemas/olmlint-config.schema.json"));
    }
    SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// One schema violation, located in the validated tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer relative to the validated node.
    pub pointer: String,
    /// Span of the node the pointer designates (the validated node's when it has none).
    pub span: Span,
    pub message: String,
}

struct Compiled {
    validators: HashMap<&'static str, jsonschema::Validator>,
}

fn compiled() -> Option<&'static Compiled> {
    static REGISTRY: OnceLock<Option<jsonschema::Registry<'static>>> = OnceLock::new();
    static COMPILED: OnceLock<Option<Compiled>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let values: Vec<(&'static str, serde_json::Value)> = SCHEMAS
                .iter()
                .map(|(n, t)| Some((*n, serde_json::from_str(t).ok()?)))
                .collect::<Option<_>>()?;
            let registry = REGISTRY
                .get_or_init(|| {
                    let resources = values.iter().filter_map(|(_, v)| {
                        let id = v.get("$id")?.as_str()?.to_string();
                        Some((id, v.clone()))
                    });
                    jsonschema::Registry::new()
                        .extend(resources)
                        .ok()?
                        .prepare()
                        .ok()
                })
                .as_ref()?;
            let mut validators = HashMap::new();
            for (name, v) in &values {
                let validator = jsonschema::options()
                    .with_registry(registry)
                    .build(v)
                    .ok()?;
                validators.insert(*name, validator);
            }
            Some(Compiled { validators })
        })
        .as_ref()
}

/// Whether every embedded schema compiles (a test asserts it; at run time a failure only
/// means fewer details).
pub fn available() -> bool {
    compiled().is_some()
}

/// Validates `node` against the schema `name`; `None` when there is no such schema or the
/// tree is too deep to convert. Violations come in the validator's order, deduplicated.
pub fn validate(name: &str, node: &Node) -> Option<Vec<Violation>> {
    let validator = compiled()?.validators.get(name)?;
    let instance = node.to_json()?;
    let mut out: Vec<Violation> = Vec::new();
    for err in validator.iter_errors(&instance) {
        let pointer = err.instance_path().to_string();
        let span = node.at_pointer(&pointer).map_or(node.span, |n| n.span);
        let v = Violation {
            pointer,
            span,
            message: err.to_string(),
        };
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Some(out)
}

/// Whether `node` is valid against the schema `name` (`None`: no verdict).
pub fn is_valid(name: &str, node: &Node) -> Option<bool> {
    let validator = compiled()?.validators.get(name)?;
    Some(validator.is_valid(&node.to_json()?))
}
