//! The requests an editor asks of an open document: hover and go to definition. Each is
//! answered from the facts of the last
//! run published for the document's catalog ([`crate::facts`]), and only when that run read
//! the document at its current version: positions computed on another text would be wrong
//! (after the next run, the answer is there).

use crate::facts::{Facts, Target};
use crate::worker::Shared;
use lsp_server::{ErrorCode, Request, Response};
use lsp_types as lsp;
use serde_json::{json, Value};
use std::sync::Arc;

/// The methods answered here.
pub const METHODS: [&str; 2] = ["textDocument/hover", "textDocument/definition"];

/// The response to `req` (one of [`METHODS`]).
pub fn answer(req: &Request, shared: &Shared) -> Response {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        "textDocument/hover" => hover(&req.params, shared),
        "textDocument/definition" => definition(&req.params, shared),
        _ => Err(format!("olmlint does not provide {}", req.method)),
    };
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err(message) => Response::new_err(id, ErrorCode::InvalidParams as i32, message),
    }
}

fn field<T: serde::de::DeserializeOwned>(params: &Value, pointer: &str) -> Result<T, String> {
    let v = params
        .pointer(pointer)
        .ok_or_else(|| format!("malformed parameters: no {pointer}"))?;
    serde_json::from_value(v.clone()).map_err(|e| format!("malformed parameters: {pointer}: {e}"))
}

/// The facts of the document a request is about, when its catalog's last run read it at
/// its current version.
fn current(shared: &Shared, uri: &str) -> Option<Arc<Facts>> {
    let version = shared
        .documents()
        .iter()
        .find(|(u, _)| *u == uri)
        .map(|(_, d)| d.version)?;
    let facts = shared.facts_of(uri)?;
    let seen = facts.file(uri)?.version;
    (seen == Some(version)).then_some(facts)
}

fn hover(params: &Value, shared: &Shared) -> Result<Value, String> {
    let uri: String = field(params, "/textDocument/uri")?;
    let pos: lsp::Position = field(params, "/position")?;
    let Some(facts) = current(shared, &uri) else {
        return Ok(Value::Null);
    };
    let Some(file) = facts.file(&uri) else {
        return Ok(Value::Null);
    };
    Ok(match crate::hover::hover(&facts, file, pos) {
        Some((markdown, range)) => json!({
            "contents": {"kind": "markdown", "value": markdown},
            "range": range,
        }),
        None => Value::Null,
    })
}

fn definition(params: &Value, shared: &Shared) -> Result<Value, String> {
    let uri: String = field(params, "/textDocument/uri")?;
    let pos: lsp::Position = field(params, "/position")?;
    let Some(facts) = current(shared, &uri) else {
        return Ok(Value::Null);
    };
    let target = facts
        .file(&uri)
        .and_then(|f| f.ref_at(pos))
        .and_then(|r| match &r.target {
            Target::Bundle { package, name } => facts
                .bundles
                .get(&(package.clone(), name.clone()))
                .map(|b| &b.location),
            Target::Package(name) => facts.packages.get(name),
            Target::Range { .. } => None,
        });
    Ok(target.map_or(Value::Null, |l| json!(l)))
}
