//! The protocol: initialize, the document notifications, the requests, shutdown and exit.
//! Runs on one thread, which owns the connection's receiving end; the lints run on the
//! worker. Requests are answered here, from the last published run (each quickly: a lookup,
//! or a parse of one file to check a suppression comment), each under `catch_unwind`: a
//! panic answers that request with an error and the server goes on.

use crate::convert::Encoding;
use crate::schedule::ResolutionChecks;
use crate::worker::{Shared, Work};
use crate::Engine;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types as lsp;
use std::path::PathBuf;
use std::sync::Arc;

/// What the client said in `initialize` that the server uses.
struct Init {
    encoding: Encoding,
    /// The workspace folders (else the root), as directories: a file under one belongs to the
    /// catalog discovery plans there, as for `olmlint lint --only-files`.
    folders: Vec<PathBuf>,
    client: crate::requests::Client,
    /// `initializationOptions.resolutionChecks`.
    checks: ResolutionChecks,
    /// What the client got wrong in `initialize`, for its log.
    mistakes: Vec<String>,
}

impl Init {
    /// Read leniently from the raw parameters: a client's unusual capability must not stop
    /// the server from starting.
    fn read(params: &serde_json::Value) -> Self {
        let offered: Vec<String> = params
            .pointer("/capabilities/general/positionEncodings")
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|e| e.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut folders: Vec<PathBuf> = params
            .get("workspaceFolders")
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.get("uri")?.as_str().and_then(crate::uri::to_path))
                    .collect()
            })
            .unwrap_or_default();
        if folders.is_empty() {
            let root = params
                .get("rootUri")
                .and_then(serde_json::Value::as_str)
                .and_then(crate::uri::to_path)
                .or_else(|| {
                    params
                        .get("rootPath")
                        .and_then(serde_json::Value::as_str)
                        .map(PathBuf::from)
                });
            folders.extend(root);
        }
        let show_document = params
            .pointer("/capabilities/window/showDocument/support")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let mut mistakes = Vec::new();
        let checks = params
            .pointer("/initializationOptions/resolutionChecks")
            .map_or(Ok(ResolutionChecks::Auto), ResolutionChecks::parse)
            .unwrap_or_else(|e| {
                mistakes.push(e);
                ResolutionChecks::Auto
            });
        Init {
            encoding: Encoding::negotiate(&offered),
            folders,
            client: crate::requests::Client { show_document },
            checks,
            mistakes,
        }
    }

    fn result(&self) -> lsp::InitializeResult {
        let sync = lsp::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lsp::TextDocumentSyncKind::Incremental),
            will_save: None,
            will_save_wait_until: None,
            save: Some(lsp::Save::SaveOptions(lsp::SaveOptions {
                include_text: Some(false),
            })),
        };
        lsp::InitializeResult {
            capabilities: lsp::ServerCapabilities {
                position_encoding: Some(self.encoding.kind()),
                text_document_sync: Some(lsp::TextDocumentSync::Options(sync)),
                hover_provider: Some(lsp::HoverProvider::Bool(true)),
                definition_provider: Some(lsp::DefinitionProvider::Bool(true)),
                code_action_provider: Some(lsp::CodeActionProvider::CodeActionOptions(
                    lsp::CodeActionOptions {
                        code_action_kinds: Some(vec![
                            lsp::CodeActionKind::QuickFix,
                            lsp::CodeActionKind::from(crate::actions::UNSAFE),
                        ]),
                        ..Default::default()
                    },
                )),
                execute_command_provider: Some(lsp::ExecuteCommandOptions {
                    commands: vec![crate::actions::EXPLAIN.to_string()],
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Some(lsp::ServerInfo {
                name: "olmlint".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
        }
    }
}

/// The session: initialize, then messages until `exit`. Returns the exit code.
pub fn serve(connection: &Connection, engine: Arc<dyn Engine>) -> i32 {
    let Ok((id, params)) = connection.initialize_start() else {
        return 1;
    };
    let init = Init::read(&params);
    let Ok(result) = serde_json::to_value(init.result()) else {
        return 1;
    };
    if connection.initialize_finish(id, result).is_err() {
        return 1;
    }
    for mistake in &init.mistakes {
        log(connection, lsp::MessageType::Warning, mistake.clone());
    }
    let shared = Arc::new(Shared::new(init.encoding));
    let (work, inbox) = crossbeam_channel::unbounded();
    let worker = crate::worker::spawn(
        Arc::clone(&shared),
        inbox,
        connection.sender.clone(),
        engine,
        init.folders,
        init.checks,
    );
    let code = dispatch(connection, &shared, &work, &init.client);
    let _ = work.send(Work::Stop);
    shared.cancel_all();
    if let Ok(w) = worker {
        let _ = w.join();
    }
    code
}

/// Every message after initialization, until `exit` (or the client goes away).
fn dispatch(
    connection: &Connection,
    shared: &Shared,
    work: &crossbeam_channel::Sender<Work>,
    client: &crate::requests::Client,
) -> i32 {
    let mut shut_down = false;
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                let (response, before) = request(&req, &mut shut_down, shared, client);
                for m in before {
                    let _ = connection.sender.send(m);
                }
                if shut_down {
                    let _ = work.send(Work::Stop);
                    shared.cancel_all();
                }
                let _ = connection.sender.send(response.into());
            }
            Message::Notification(n) if n.method == "exit" => return if shut_down { 0 } else { 1 },
            Message::Notification(n) if !shut_down => {
                if let Err(e) = notification(n, shared, work) {
                    log(connection, lsp::MessageType::Warning, e);
                }
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    1
}

/// The answer to a request (and messages to send before it): `shutdown`, the requests of
/// [`crate::requests`], and "not found" for every other method, as the protocol asks of a
/// server that does not provide it.
fn request(
    req: &Request,
    shut_down: &mut bool,
    shared: &Shared,
    client: &crate::requests::Client,
) -> (Response, Vec<Message>) {
    if *shut_down {
        let e = Response::new_err(
            req.id.clone(),
            ErrorCode::InvalidRequest as i32,
            "the server is shutting down".to_string(),
        );
        return (e, Vec::new());
    }
    if req.method == "shutdown" {
        *shut_down = true;
        return (Response::new_ok(req.id.clone(), ()), Vec::new());
    }
    if !crate::requests::METHODS.contains(&req.method.as_str()) {
        let e = Response::new_err(
            req.id.clone(),
            ErrorCode::MethodNotFound as i32,
            format!("olmlint does not provide {}", req.method),
        );
        return (e, Vec::new());
    }
    guarded(req, || crate::requests::answer(req, shared, client))
}

/// `answer()`, or, if it panics, an error response: the server goes on.
fn guarded(
    req: &Request,
    answer: impl FnOnce() -> (Response, Vec<Message>),
) -> (Response, Vec<Message>) {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(answer)).unwrap_or_else(|_| {
        let e = Response::new_err(
            req.id.clone(),
            ErrorCode::InternalError as i32,
            format!("internal error while answering {} (an olmlint bug; please report it at https://github.com/olmlint/olmlint/issues with the file); the server goes on", req.method),
        );
        (e, Vec::new())
    })
}

/// A document notification: the documents updated here, the lint asked of the worker.
fn notification(
    n: Notification,
    shared: &Shared,
    work: &crossbeam_channel::Sender<Work>,
) -> Result<(), String> {
    fn params<T: serde::de::DeserializeOwned>(n: Notification) -> Result<T, String> {
        let method = n.method.clone();
        serde_json::from_value(n.params).map_err(|e| format!("{method}: malformed parameters: {e}"))
    }
    let changed = match n.method.as_str() {
        "textDocument/didOpen" => {
            let p: lsp::DidOpenTextDocumentParams = params(n)?;
            let doc = p.text_document;
            let path = shared
                .documents()
                .open(doc.uri.0.clone(), doc.version, doc.text);
            path.map(|path| (doc.uri.0, path, false))
        }
        "textDocument/didChange" => {
            let p: lsp::DidChangeTextDocumentParams = params(n)?;
            let uri = p.text_document.text_document_identifier.uri.0;
            let path = shared
                .documents()
                .change(
                    &uri,
                    p.text_document.version,
                    p.content_changes,
                    shared.encoding,
                )
                .ok_or_else(|| format!("didChange of a document that is not open: {uri}"))?;
            path.map(|path| (uri, path, true))
        }
        "textDocument/didSave" => {
            let p: lsp::DidSaveTextDocumentParams = params(n)?;
            let uri = p.text_document.uri.0;
            crate::uri::to_path(&uri)
                .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
                .map(|path| (uri, path, false))
        }
        "textDocument/didClose" => {
            let p: lsp::DidCloseTextDocumentParams = params(n)?;
            let uri = p.text_document.uri.0;
            if let Some(path) = shared.documents().close(&uri).and_then(|d| d.path) {
                shared.cancel_stale(&path);
                let _ = work.send(Work::Closed { uri, path });
            }
            return Ok(());
        }
        _ => return Ok(()),
    };
    if let Some((uri, path, debounce)) = changed {
        shared.cancel_stale(&path);
        let _ = work.send(Work::Changed {
            uri,
            path,
            debounce,
        });
    }
    Ok(())
}

/// A line in the client's log (`window/logMessage`).
fn log(connection: &Connection, kind: lsp::MessageType, message: String) {
    let _ = connection
        .sender
        .send(crate::worker::log_message(kind, message));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_a_request_is_an_error_response() {
        let req = Request::new(7.into(), "textDocument/hover".into(), serde_json::json!({}));
        let (response, before) = guarded(&req, || panic!("a bug"));
        assert!(before.is_empty());
        assert_eq!(response.id, req.id);
        let e = response.response_result.unwrap_err();
        assert_eq!(e.code, ErrorCode::InternalError as i32);
        assert!(e.message.contains("textDocument/hover"), "{}", e.message);
    }
}
