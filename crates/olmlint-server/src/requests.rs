//! The requests an editor asks of an open document: hover, code actions, go to definition,
//! and the [`crate::actions::EXPLAIN`] command. Each is answered from the facts of the last
//! run published for the document's catalog ([`crate::facts`]), and only when that run read
//! the document at its current version: positions computed on another text would be wrong
//! (after the next run, the answer is there).

use crate::actions::{self, Asked, EXPLAIN};
use crate::facts::{Facts, Target};
use crate::worker::Shared;
use lsp_server::{ErrorCode, Message, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::{json, Value};
use std::sync::Arc;

/// What the client said in `initialize` that the requests use.
pub struct Client {
    /// It opens a URI when asked (`window/showDocument`).
    pub show_document: bool,
}

/// The methods answered here.
pub const METHODS: [&str; 4] = [
    "textDocument/hover",
    "textDocument/codeAction",
    "textDocument/definition",
    "workspace/executeCommand",
];

/// The response to `req` (one of [`METHODS`]), and messages to send the client before it.
pub fn answer(req: &Request, shared: &Shared, client: &Client) -> (Response, Vec<Message>) {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        "textDocument/hover" => hover(&req.params, shared).map(|v| (v, Vec::new())),
        "textDocument/codeAction" => code_actions(&req.params, shared).map(|v| (v, Vec::new())),
        "textDocument/definition" => definition(&req.params, shared).map(|v| (v, Vec::new())),
        "workspace/executeCommand" => execute(&req.params, &id, client),
        _ => Err(format!("olmlint does not provide {}", req.method)),
    };
    match result {
        Ok((value, before)) => (Response::new_ok(id, value), before),
        Err(message) => (
            Response::new_err(id, ErrorCode::InvalidParams as i32, message),
            Vec::new(),
        ),
    }
}

fn field<T: serde::de::DeserializeOwned>(params: &Value, pointer: &str) -> Result<T, String> {
    let v = params
        .pointer(pointer)
        .ok_or_else(|| format!("malformed parameters: no {pointer}"))?;
    serde_json::from_value(v.clone()).map_err(|e| format!("malformed parameters: {pointer}: {e}"))
}

/// The document a request is about, when its catalog's last run read it at its current
/// version: the facts, the version and the text.
fn current(shared: &Shared, uri: &str) -> Option<(Arc<Facts>, i32, Arc<str>)> {
    let (version, text) = shared
        .documents()
        .iter()
        .find(|(u, _)| *u == uri)
        .map(|(_, d)| (d.version, Arc::clone(&d.text)))?;
    let facts = shared.facts_of(uri)?;
    let seen = facts.file(uri)?.version;
    (seen == Some(version)).then_some((facts, version, text))
}

fn hover(params: &Value, shared: &Shared) -> Result<Value, String> {
    let uri: String = field(params, "/textDocument/uri")?;
    let pos: lsp::Position = field(params, "/position")?;
    let Some((facts, _, _)) = current(shared, &uri) else {
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

fn code_actions(params: &Value, shared: &Shared) -> Result<Value, String> {
    let uri: String = field(params, "/textDocument/uri")?;
    let range: lsp::Range = field(params, "/range")?;
    let only: Option<Vec<String>> = field(params, "/context/only").ok();
    let Some((facts, version, text)) = current(shared, &uri) else {
        return Ok(json!([]));
    };
    let Some(file) = facts.file(&uri) else {
        return Ok(json!([]));
    };
    let asked = Asked {
        uri: &uri,
        version,
        text: &text,
        range,
        only,
        encoding: shared.encoding,
    };
    Ok(Value::Array(actions::code_actions(file, &asked)))
}

fn definition(params: &Value, shared: &Shared) -> Result<Value, String> {
    let uri: String = field(params, "/textDocument/uri")?;
    let pos: lsp::Position = field(params, "/position")?;
    let Some((facts, _, _)) = current(shared, &uri) else {
        return Ok(Value::Null);
    };
    let target = facts
        .file(&uri)
        .and_then(|f| f.ref_at(pos))
        .and_then(|r| match &r.target {
            Target::Bundle { package, name } => facts.bundle(package, name).map(|b| &b.location),
            Target::Package(name) => facts.packages.get(name),
            Target::Range { .. } => None,
        });
    Ok(target.map_or(Value::Null, |l| json!(l)))
}

/// `olmlint.explain RULE`: the rule's page in the book opened by the client, or, when it
/// cannot open one, the rule's documentation in a message.
fn execute(
    params: &Value,
    id: &RequestId,
    client: &Client,
) -> Result<(Value, Vec<Message>), String> {
    let command: String = field(params, "/command")?;
    if command != EXPLAIN {
        return Err(format!(
            "olmlint has no command {command:?} (it has {EXPLAIN})"
        ));
    }
    let rule: String = field(params, "/arguments/0")?;
    let rule = olmlint_base::rules::get(&rule)
        .ok_or_else(|| format!("unknown rule `{rule}`; `olmlint rules` lists them"))?;
    let message = if client.show_document {
        // The id of the server's request: distinct from the client's ids by its prefix.
        let request = Request::new(
            RequestId::from(format!("olmlint-show-{id}")),
            "window/showDocument".to_string(),
            json!({"uri": rule.book_url(), "external": true}),
        );
        Message::Request(request)
    } else {
        let params = json!({"type": 3, "message": rule.explain_text()});
        Message::Notification(lsp_server::Notification::new(
            "window/showMessage".to_string(),
            params,
        ))
    };
    Ok((Value::Null, vec![message]))
}
