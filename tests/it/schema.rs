//! The JSON Schemas in `schemas/` against olmlint's own verdicts, on every vector of
//! `tests/data/schema-vectors.json` (spec §9.1/§9.2, the rule docs' examples, and more):
//! - the schema accepts exactly the values olmlint accepts (`valid`), except where a vector
//!   records why a schema cannot say it (`schemaValid`: size and depth limits);
//! - olmlint's verdict is measured by linting a real catalog or bundle directory holding the
//!   value, so the vectors cannot drift from the rules.

use crate::common;

use olmlint::load::tree::Node;
use olmlint::load::{json, Limits};
use olmlint::model::schema;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// Rules whose errors mean "this value is rejected" (decode and shape), as opposed to range,
/// CEL or resolution findings about a value that decodes.
const REJECTING: [&str; 11] = [
    "OLM001", "OLM108", "OLM201", "OLM202", "OLM204", "OLM208", "OLM209", "OLM601", "OLM604",
    "OLM005", "OLM808",
];

struct Vector {
    id: String,
    schema: String,
    value: Value,
    valid: bool,
    schema_valid: bool,
}

fn vectors() -> Vec<Vector> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema-vectors.json");
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all.into_iter()
        .map(|v| {
            let value = match v.get("generate") {
                Some(g) => generate(g),
                None => v["value"].clone(),
            };
            let valid = v["valid"].as_bool().unwrap();
            Vector {
                id: v["id"].as_str().unwrap().to_string(),
                schema: v["schema"].as_str().unwrap().to_string(),
                value,
                valid,
                schema_valid: v
                    .get("schemaValid")
                    .and_then(Value::as_bool)
                    .unwrap_or(valid),
            }
        })
        .collect()
}

/// `pad`: `base` with `field` set to x's so that the compact sorted-key JSON has `bytes`
/// bytes; `nest`: `levels` nested `{op: {constraints: [...]}}` around `leaf`.
fn generate(g: &Value) -> Value {
    if let Some(p) = g.get("pad") {
        let mut base = p["base"].clone();
        let field = p["field"].as_str().unwrap();
        let empty = serde_json::to_string(&base).unwrap().len();
        let n = p["bytes"].as_u64().unwrap() as usize - empty;
        base[field] = Value::String("x".repeat(n));
        assert_eq!(
            serde_json::to_string(&base).unwrap().len() as u64,
            p["bytes"]
        );
        return base;
    }
    let n = &g["nest"];
    let op = n["op"].as_str().unwrap();
    let mut v = n["leaf"].clone();
    // Not `json!`, which serializes an interpolated value again: quadratic in the depth
    // (6.6 s for C42 and C43, in each of the two tests that read the vectors).
    let object =
        |key: &str, value: Value| Value::Object([(key.to_string(), value)].into_iter().collect());
    for _ in 0..n["levels"].as_u64().unwrap() {
        v = object(op, object("constraints", Value::Array(vec![v])));
    }
    v
}

/// Compact JSON (serde_json prints any depth; only its parser has a recursion limit).
fn to_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

fn node_of(text: &str) -> Node {
    let mut problems = Vec::new();
    // C43 is deeper than Go's limit on purpose: the schema still gets to see it.
    let limits = Limits {
        max_depth: 20_000,
        ..Limits::default()
    };
    let mut docs = json::parse_stream(&format!("{{\"v\":{text}}}"), &limits, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let root = docs.remove(0).root.unwrap();
    root.get("v").unwrap().clone()
}

#[test]
fn every_schema_compiles() {
    assert!(schema::available());
    for (name, _) in schema::SCHEMAS {
        assert!(schema::text(name).is_some());
    }
}

#[test]
fn schemas_agree_with_the_vectors() {
    // Deep vectors make the validator recurse: give it room.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            let mut failures = Vec::new();
            for v in vectors() {
                let node = node_of(&to_text(&v.value));
                let Some(ok) = schema::is_valid(&v.schema, &node) else {
                    // Only trees deeper than serde_json's limit have no schema verdict.
                    assert!(v.id.starts_with("C4"), "{}: no schema verdict", v.id);
                    continue;
                };
                if ok != v.schema_valid {
                    let why = schema::validate(&v.schema, &node).unwrap_or_default();
                    failures.push(format!(
                        "{}: schema says {ok}, expected {}: {why:?}",
                        v.id, v.schema_valid
                    ));
                }
            }
            assert!(failures.is_empty(), "{failures:#?}");
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn violations_point_into_the_value() {
    let node = node_of(
        r#"{"gvk":{"group":"g1","version":"v1","kind":"k1","plural":"k1s"},"all":{"constraints":{}}}"#,
    );
    let found = schema::validate("olm.constraint", &node).unwrap();
    assert!(
        found.iter().any(|v| v.pointer == "/all/constraints"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|v| v.pointer == "/gvk" || v.pointer == "/gvk/plural"),
        "{found:?}"
    );
    for v in &found {
        let at = node.at_pointer(&v.pointer).unwrap();
        assert_eq!(at.span, v.span);
    }
}

/// The pool `olmlint lint` runs on (its stacks hold the deepest legal documents).
fn lint_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(256 << 20)
            .build()
            .unwrap()
    })
}

/// olmlint's verdict on one vector: lint a catalog (FBC for property values, a bundle
/// directory for dependencies.yaml and properties.yaml) and look for rejecting errors.
fn olmlint_accepts(v: &Vector) -> (bool, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let value = to_text(&v.value);
    match v.schema.as_str() {
        "dependencies" | "properties" => {
            common::bundle_dir(root, &[(&format!("{}.yaml", v.schema), value.clone())]);
        }
        "release-config" => {
            // A bundle directory of an FBC operator that maps the templates the vectors name.
            let bundle = common::bundle_dir(&root.join("operators/foo"), &[]);
            std::fs::write(bundle.join("release-config.yaml"), &value).unwrap();
            std::fs::write(
                root.join("operators/foo/ci.yaml"),
                "fbc:\n  enabled: true\n  catalog_mapping:\n    - {template_name: basic.yaml, catalog_names: [v4.18], type: olm.template.basic}\n    - {template_name: v4.18.yaml, catalog_names: [v4.19], type: olm.template.basic}\n",
            )
            .unwrap();
        }
        ty => {
            let catalog = format!(
                "{{\"schema\":\"olm.package\",\"name\":\"foo\",\"defaultChannel\":\"stable\"}}\n{{\"schema\":\"olm.channel\",\"package\":\"foo\",\"name\":\"stable\",\"entries\":[{{\"name\":\"foo.v1.0.0\"}}]}}\n{{\"schema\":\"olm.bundle\",\"package\":\"foo\",\"name\":\"foo.v1.0.0\",\"image\":\"quay.io/example/foo:v1.0.0\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"foo\",\"version\":\"1.0.0\"}}}},{{\"type\":{},\"value\":{value}}}]}}\n",
                json!(ty)
            );
            std::fs::write(root.join("catalog.json"), catalog).unwrap();
        }
    }
    // The wrappers around a value add nesting: let the document be deeper than the value,
    // so the value's own depth limit is what decides (C42/C43).
    std::fs::write(root.join(".olmlint.yaml"), "limits:\n  max-depth: 20000\n").unwrap();
    // `olmlint lint ROOT`, in this process: the 185 vectors paid the binary's start and
    // the schemas' compilation each (16 s of the suite).
    let opts = olmlint::lint::Options {
        paths: vec![root.to_path_buf()],
        ..Default::default()
    };
    let out = lint_pool().install(|| olmlint::lint::run(&opts)).unwrap();
    let rejecting: Vec<String> = out
        .diags
        .iter()
        // A release-config.yaml is judged as what a pull request adds: a warning in a whole
        // run (see rules/OLM808.md).
        .filter(|d| d.severity.as_str() == "error" || d.rule == "OLM808")
        // A rejecting finding may be folded into the finding of its cause.
        .filter(|d| {
            std::iter::once(d.rule)
                .chain(
                    d.related
                        .iter()
                        .filter_map(|r| r.folded.as_ref().map(|f| f.rule)),
                )
                .any(|r| REJECTING.contains(&r))
        })
        .map(|d| format!("{} {}", d.rule, d.message))
        .collect();
    (rejecting.is_empty(), rejecting)
}

#[test]
fn vectors_record_olmlints_verdicts() {
    // Deep vectors are built and printed recursively.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            let mut failures = Vec::new();
            for v in vectors() {
                let (ok, why) = olmlint_accepts(&v);
                if ok != v.valid {
                    failures.push(format!(
                        "{} ({}): olmlint says {ok}, vector says {}: {why:?}",
                        v.id, v.schema, v.valid
                    ));
                }
            }
            assert!(failures.is_empty(), "{failures:#?}");
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn schema_command_prints_every_schema() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(args)
            .output()
            .unwrap()
    };
    let list = run(&["schema"]);
    let names = String::from_utf8(list.stdout).unwrap();
    assert_eq!(names.lines().count(), 9);
    for name in names.lines() {
        let out = run(&["schema", name]);
        assert!(out.status.success());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["$id"].as_str().unwrap().contains("schema.json"), "{name}");
    }
    assert_eq!(run(&["schema", "nope"]).status.code(), Some(2));
}
