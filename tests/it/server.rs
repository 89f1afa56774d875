//! `olmlint server`, driven over stdio as an editor drives it: initialize, open, edit (with
//! incremental changes), close, shutdown and exit; the diagnostics it publishes compared
//! with what `olmlint lint` reports on the same content saved.

use crate::common::write_files;
use serde_json::{json, Value};
use std::path::Path;

/// A language client: Content-Length framing over the server's stdin and stdout, messages
/// read on a thread of their own and waited for with a deadline.
pub(crate) mod rpc {
    use serde_json::{json, Value};
    use std::collections::VecDeque;
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// How long a test waits for one message: the machine may be busy with other builds.
    const PATIENCE: Duration = Duration::from_secs(60);

    pub struct Client {
        child: Child,
        stdin: Option<ChildStdin>,
        inbox: mpsc::Receiver<Value>,
        /// Received, not yet asked for.
        pending: VecDeque<Value>,
        next_id: i64,
    }

    fn read_message(out: &mut impl BufRead) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        let mut body = vec![0; length?];
        out.read_exact(&mut body).ok()?;
        Some(serde_json::from_slice(&body).expect("the server writes JSON"))
    }

    impl Client {
        pub fn start(cwd: &std::path::Path) -> Self {
            Self::start_with(cwd, &[])
        }

        /// `olmlint server ARGS…` in `cwd`.
        pub fn start_with(cwd: &std::path::Path, args: &[&str]) -> Self {
            let mut child = Command::new(env!("CARGO_BIN_EXE_olmlint"))
                .arg("server")
                .args(args)
                .current_dir(cwd)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap();
            let stdin = child.stdin.take();
            let mut stdout = BufReader::new(child.stdout.take().unwrap());
            let (tx, inbox) = mpsc::channel();
            std::thread::spawn(move || {
                while let Some(m) = read_message(&mut stdout) {
                    if tx.send(m).is_err() {
                        return;
                    }
                }
            });
            Client {
                child,
                stdin,
                inbox,
                pending: VecDeque::new(),
                next_id: 1,
            }
        }

        fn send(&mut self, message: Value) {
            let body = serde_json::to_vec(&message).unwrap();
            let stdin = self.stdin.as_mut().unwrap();
            write!(stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
            stdin.write_all(&body).unwrap();
            stdin.flush().unwrap();
        }

        pub fn notify(&mut self, method: &str, params: Value) {
            self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
        }

        /// Sends a request and waits for its response (the whole response object).
        pub fn request(&mut self, method: &str, params: Value) -> Value {
            let id = self.next_id;
            self.next_id += 1;
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            self.wait(&format!("the response to {method}"), |m| {
                m["id"] == id && m.get("method").is_none()
            })
        }

        /// The first message (already received or coming) that `wanted` accepts.
        pub fn wait(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
            if let Some(i) = self.pending.iter().position(&wanted) {
                return self.pending.remove(i).unwrap();
            }
            let deadline = Instant::now() + PATIENCE;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                let m = self.inbox.recv_timeout(left).unwrap_or_else(|_| {
                    panic!(
                        "no {what} within {PATIENCE:?}; received meanwhile: {:#?}",
                        self.pending
                    )
                });
                if wanted(&m) {
                    return m;
                }
                self.pending.push_back(m);
            }
        }

        /// The next diagnostics published for `uri`: the notification's parameters.
        pub fn diagnostics(&mut self, uri: &str) -> Value {
            let m = self.wait(&format!("publishDiagnostics for {uri}"), |m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
            });
            m["params"].clone()
        }

        /// The diagnostics published for `uri` at `version` (earlier ones skipped: a run
        /// started before the document was opened publishes the file as saved).
        pub fn diagnostics_at(&mut self, uri: &str, version: i32) -> Value {
            let m = self.wait(&format!("publishDiagnostics for {uri} v{version}"), |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
            });
            m["params"].clone()
        }

        /// Every message received and not asked for.
        pub fn unread(&mut self) -> Vec<Value> {
            while let Ok(m) = self.inbox.try_recv() {
                self.pending.push_back(m);
            }
            self.pending.iter().cloned().collect()
        }

        /// `exit` (after `shutdown` when `shutdown`): the server's exit code.
        pub fn exit(mut self, shutdown: bool) -> i32 {
            if shutdown {
                let r = self.request("shutdown", Value::Null);
                assert_eq!(r["result"], Value::Null, "{r}");
            }
            self.notify("exit", Value::Null);
            drop(self.stdin.take());
            let deadline = Instant::now() + PATIENCE;
            loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    return status.code().unwrap();
                }
                assert!(Instant::now() < deadline, "the server did not exit");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    impl Drop for Client {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

fn initialize(client: &mut rpc::Client, folder: Option<&Path>, encodings: &[&str]) -> Value {
    let folders = folder.map_or(Value::Null, |f| json!([{"uri": uri(f), "name": "repo"}]));
    let r = client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {"general": {"positionEncodings": encodings}},
            "workspaceFolders": folders,
        }),
    );
    client.notify("initialized", json!({}));
    r["result"].clone()
}

pub(crate) fn open(client: &mut rpc::Client, path: &Path, version: i32) {
    let text = std::fs::read_to_string(path).unwrap();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(path), "languageId": "yaml", "version": version, "text": text}}),
    );
}

/// An incremental change replacing `range` ((line, character) to (line, character)).
pub(crate) fn change(
    client: &mut rpc::Client,
    path: &Path,
    version: i32,
    range: [(u32, u32); 2],
    text: &str,
) {
    let [(l1, c1), (l2, c2)] = range;
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri(path), "version": version},
            "contentChanges": [{
                "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
                "text": text,
            }],
        }),
    );
}

pub(crate) fn of_rule<'a>(params: &'a Value, rule: &str) -> Vec<&'a Value> {
    params["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == rule)
        .collect()
}

/// Every file under `dir` with its contents and modification time.
pub(crate) fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
                out.push((p.clone(), std::fs::read(&p).unwrap(), modified));
            }
        }
    }
    out.sort();
    out
}

/// A bundle whose dependency is written with a key OLM's strict decoder rejects (`name`
/// for `packageName`), on a line whose text before the key has characters outside the
/// Basic Multilingual Plane, so UTF-16 and UTF-8 positions differ.
const BROKEN_CONSTRAINT: &str = "---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
---
schema: olm.bundle
package: foo
name: foo.v1.0.0
image: quay.io/example/foo-bundle:v1.0.0
properties: [{type: example.com/note, value: \"bär 😀\"}, {type: olm.constraint, value: {package: {name: bar, versionRange: \">=1.0.0\"}}},
  {type: olm.package, value: {packageName: foo, version: 1.0.0}}]
---
schema: olm.package
name: bar
defaultChannel: stable
---
schema: olm.channel
package: bar
name: stable
entries:
  - name: bar.v1.2.0
---
schema: olm.bundle
package: bar
name: bar.v1.2.0
image: quay.io/example/bar-bundle:v1.2.0
properties:
  - type: olm.package
    value: {packageName: bar, version: 1.2.0}
";

/// A repository whose catalog image copies `catalog/` (so discovery plans it), with a
/// YAML file outside the catalog.
fn repository(dir: &Path) {
    write_files(
        dir,
        &[
            ("catalog.Dockerfile", "FROM x\nADD catalog /configs\n"),
            ("catalog/foo.yaml", BROKEN_CONSTRAINT),
            ("docs/notes.yaml", "notes: [unclosed\n"),
        ],
    );
}

/// The broken constraint published at its range in `encoding`, with the document's
/// version, then withdrawn by an incremental edit that fixes it; a file of the workspace in
/// no catalog gets an empty set; nothing is written; `shutdown` then `exit` is exit code 0.
fn broken_constraint_found_and_fixed(encoding: &str) {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let before = snapshot(dir.path());
    let mut client = rpc::Client::start(dir.path());
    let caps = initialize(&mut client, Some(dir.path()), &[encoding, "utf-16"]);
    assert_eq!(caps["capabilities"]["positionEncoding"], encoding, "{caps}");
    let sync = &caps["capabilities"]["textDocumentSync"];
    assert_eq!(sync["openClose"], true, "{caps}");
    assert_eq!(sync["change"], 2, "incremental: {caps}");
    assert_eq!(caps["serverInfo"]["name"], "olmlint");

    let file = dir.path().join("catalog/foo.yaml");
    open(&mut client, &file, 1);
    let published = client.diagnostics(&uri(&file));
    assert_eq!(published["version"], 1, "{published}");
    let found = of_rule(&published, "OLM201");
    assert_eq!(found.len(), 1, "{published}");
    let d = found[0];
    let line = BROKEN_CONSTRAINT
        .lines()
        .position(|l| l.contains("😀"))
        .unwrap();
    let text = BROKEN_CONSTRAINT.lines().nth(line).unwrap();
    let key = text.find("name: bar").unwrap();
    let character = match encoding {
        "utf-8" => key,
        _ => text[..key].encode_utf16().count(),
    };
    let start = json!({"line": line, "character": character});
    let end = json!({"line": line, "character": character + 4});
    assert_eq!(d["range"], json!({"start": start, "end": end}), "{d}");
    assert_eq!(d["severity"], 1, "{d}");
    assert_eq!(d["source"], "olmlint", "{d}");
    assert_eq!(
        d["codeDescription"]["href"],
        "https://olmlint.github.io/olmlint/rules/OLM201.html"
    );
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("unknown field \"name\""), "{message}");
    assert!(
        message.contains("Did you mean `packageName`?"),
        "the help: {message}"
    );

    // The fix, as an editor sends it: the key's range replaced.
    let (c, l) = (character as u32, line as u32);
    change(&mut client, &file, 2, [(l, c), (l, c + 4)], "packageName");
    let published = client.diagnostics(&uri(&file));
    assert_eq!(published["version"], 2, "{published}");
    assert_eq!(published["diagnostics"], json!([]), "{published}");

    let notes = dir.path().join("docs/notes.yaml");
    open(&mut client, &notes, 7);
    let published = client.diagnostics(&uri(&notes));
    assert_eq!(published["version"], 7, "{published}");
    assert_eq!(
        published["diagnostics"],
        json!([]),
        "in no catalog: {published}"
    );

    assert_eq!(client.exit(true), 0);
    assert!(
        snapshot(dir.path()) == before,
        "the server wrote to the disk"
    );
}

#[test]
fn broken_constraint_published_at_its_utf16_range_and_withdrawn_when_fixed() {
    broken_constraint_found_and_fixed("utf-16");
}

#[test]
fn positions_count_bytes_when_the_client_offers_utf8() {
    broken_constraint_found_and_fixed("utf-8");
}

/// Edits faster than runs: a run an edit makes stale is dropped (cancelled, or its result
/// not published), so the versions published only increase, and the last one judges the
/// last text.
#[test]
fn rapid_edits_publish_newer_versions_only_ending_with_the_last() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, Some(dir.path()), &[]);
    let file = dir.path().join("catalog/foo.yaml");
    open(&mut client, &file, 1);
    let published = client.diagnostics_at(&uri(&file), 1);
    assert_eq!(of_rule(&published, "OLM201").len(), 1, "{published}");
    let line = BROKEN_CONSTRAINT
        .lines()
        .position(|l| l.contains("😀"))
        .unwrap();
    let text = BROKEN_CONSTRAINT.lines().nth(line).unwrap();
    let key = text.find("name: bar").unwrap();
    let (l, c) = (line as u32, text[..key].encode_utf16().count() as u32);
    // Fixed at even versions, broken again at odd ones; the last (31) is broken.
    for version in 2..=31 {
        if version % 2 == 0 {
            change(
                &mut client,
                &file,
                version,
                [(l, c), (l, c + 4)],
                "packageName",
            );
        } else {
            change(&mut client, &file, version, [(l, c), (l, c + 11)], "name");
        }
    }
    let last = client.diagnostics_at(&uri(&file), 31);
    assert_eq!(of_rule(&last, "OLM201").len(), 1, "{last}");
    let versions: Vec<i64> = client
        .unread()
        .iter()
        .filter(|m| m["params"]["uri"] == uri(&file).as_str())
        .map(|m| m["params"]["version"].as_i64().unwrap())
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] < w[1]) && versions.iter().all(|&v| v < 31),
        "{versions:?}"
    );
    assert_eq!(client.exit(true), 0);
}

const CHANNEL: &str = "---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
  - name: foo.v2.0.0
    replaces: foo.v1.0.0
";

const BUNDLES: &str = "---
schema: olm.bundle
package: foo
name: foo.v1.0.0
image: quay.io/example/foo-bundle:v1.0.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
---
schema: olm.bundle
package: foo
name: foo.v2.0.0
image: quay.io/example/foo-bundle:v2.0.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 2.0.0}
";

/// The catalog of two files, with its configuration (which makes OLM104 a warning).
fn two_file_catalog(dir: &Path, bundles: &str) {
    write_files(
        dir,
        &[
            (".olmlint.yaml", "rules:\n  OLM104: warning\n"),
            ("channel.yaml", CHANNEL),
            ("bundles.yaml", bundles),
        ],
    );
}

/// Deleting a bundle in one file's unsaved buffer breaks the channel of another file: the
/// finding is published on the channel's file (not open), as `olmlint lint` reports it on
/// the same content saved, at the level the catalog's `.olmlint.yaml` gives it (the
/// configuration's unsaved buffer when it is open); closing the buffer withdraws it (the disk
/// was never changed).
#[test]
fn an_unsaved_edit_in_one_file_is_judged_where_it_breaks_another() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    two_file_catalog(&catalog, BUNDLES);
    let before = snapshot(dir.path());
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, None, &[]);
    let bundles = catalog.join("bundles.yaml");
    open(&mut client, &bundles, 1);
    let published = client.diagnostics(&uri(&bundles));
    assert_eq!(published["diagnostics"], json!([]), "{published}");

    // Lines 9 to 16 (0-based 8 to the end) are the second bundle.
    let lines = BUNDLES.lines().count() as u32;
    change(&mut client, &bundles, 2, [(8, 0), (lines, 0)], "");
    let channel = client.diagnostics(&uri(&catalog.join("channel.yaml")));
    assert_eq!(channel["version"], Value::Null, "not open: {channel}");
    let found = of_rule(&channel, "OLM104");
    assert_eq!(found.len(), 1, "{channel}");
    assert_eq!(found[0]["severity"], 2, ".olmlint.yaml makes it a warning");

    // The oracle: the command line on the edited content, saved elsewhere.
    let saved = tempfile::tempdir().unwrap();
    let edited: String = BUNDLES.lines().take(8).map(|l| format!("{l}\n")).collect();
    two_file_catalog(saved.path(), &edited);
    let out = crate::common::olmlint(Some(saved.path()), ["lint", "-f", "json", "."]);
    assert_eq!(
        published_findings(&channel),
        cli_findings(&out, "channel.yaml")
    );

    // The configuration's unsaved buffer is the configuration.
    let config = catalog.join(".olmlint.yaml");
    open(&mut client, &config, 1);
    let published = client.diagnostics_at(&uri(&config), 1);
    assert_eq!(published["diagnostics"], json!([]), "{published}");
    change(&mut client, &config, 2, [(1, 10), (1, 17)], "error");
    let channel = client.diagnostics(&uri(&catalog.join("channel.yaml")));
    let found = of_rule(&channel, "OLM104");
    assert_eq!(found.len(), 1, "{channel}");
    assert_eq!(
        found[0]["severity"], 1,
        "the buffer makes it an error again"
    );

    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&bundles)}}),
    );
    let channel = client.diagnostics(&uri(&catalog.join("channel.yaml")));
    assert_eq!(channel["diagnostics"], json!([]), "{channel}");
    assert_eq!(client.exit(true), 0);
    assert!(
        snapshot(dir.path()) == before,
        "the server wrote to the disk"
    );
}

/// Buffers no catalog should hold are judged under the limits `olmlint lint` applies (here
/// the default nesting depth and the configuration's file size), and the server goes on.
/// What `olmlint lint -f json` (`out`) reports on `file`, as the server publishes it: rule,
/// start, end (0-based) and LSP severity.
fn cli_findings(out: &std::process::Output, file: &str) -> Vec<Value> {
    crate::common::diagnostics(out)
        .into_iter()
        .filter(|d| d["file"] == file)
        .map(|d| {
            let at = |l: &str, c: &str| {
                json!({"line": d[l].as_u64().unwrap() - 1, "character": d[c].as_u64().unwrap() - 1})
            };
            let severity = match d["severity"].as_str().unwrap() {
                "error" => 1,
                "warning" => 2,
                _ => 3,
            };
            json!([d["rule"], at("line", "column"), at("end_line", "end_column"), severity])
        })
        .collect()
}

/// A publication's diagnostics in [`cli_findings`]'s terms.
fn published_findings(published: &Value) -> Vec<Value> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            json!([
                d["code"],
                d["range"]["start"],
                d["range"]["end"],
                d["severity"]
            ])
        })
        .collect()
}

/// An FBC catalog `catalogs/v4.18/app` of a community-operators repository: app.v1.0.0
/// requires `common` (an operator of the repository, not in the catalog) and `elsewhere`
/// (nowhere). `extra` is put at the top of the catalog's first document.
fn repository_context_fixture(dir: &Path, extra: &str) {
    let catalog = format!(
        "---
{extra}schema: olm.package
name: app
defaultChannel: stable
---
schema: olm.channel
package: app
name: stable
entries:
  - name: app.v1.0.0
---
schema: olm.bundle
name: app.v1.0.0
package: app
image: quay.io/example/app-bundle:v1.0.0
properties:
  - type: olm.package
    value: {{packageName: app, version: 1.0.0}}
  - type: olm.package.required
    value: {{packageName: common, versionRange: '>=4.0.0'}}
  - type: olm.package.required
    value: {{packageName: elsewhere, versionRange: '>=1.0.0'}}
"
    );
    write_files(
        dir,
        &[
            ("config.yaml", "organization: community-operators\n"),
            ("operators/common/ci.yaml", "updateGraph: replaces-mode\n"),
            (
                "operators/common/4.0.0/manifests/common.clusterserviceversion.yaml",
                "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: common.v4.0.0\nspec:\n  version: 4.0.0\n",
            ),
            (
                "operators/common/4.0.0/metadata/annotations.yaml",
                "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: common\n  operators.operatorframework.io.bundle.channels.v1: stable\n  operators.operatorframework.io.bundle.channel.default.v1: stable\n",
            ),
            ("catalogs/v4.18/app/catalog.yaml", &catalog),
        ],
    );
}

/// A catalog whose dependency on another operator of the repository is resolved in a second
/// pass with that operator as context (`crate::repository_context`): the server publishes
/// what `olmlint lint` reports, on open and after an edit that moves every finding (the
/// second run reuses the cached parses of the first, between and across passes).
#[test]
fn the_repository_context_pass_publishes_what_the_command_line_reports() {
    let dir = tempfile::tempdir().unwrap();
    repository_context_fixture(dir.path(), "");
    let file = dir.path().join("catalogs/v4.18/app/catalog.yaml");
    let cli = crate::common::olmlint(Some(dir.path()), ["lint", "-f", "json", "catalogs/v4.18"]);
    let expected = cli_findings(&cli, "catalogs/v4.18/app/catalog.yaml");
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert!(
        stderr.contains("resolved with operators/common as context"),
        "{stderr}"
    );
    assert_eq!(
        expected.len(),
        1,
        "only `elsewhere` is missing: {expected:#?}"
    );

    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, Some(dir.path()), &[]);
    open(&mut client, &file, 1);
    let published = client.diagnostics_at(&uri(&file), 1);
    assert_eq!(published_findings(&published), expected, "{published}");

    let comment = "# moved down by a line\n";
    change(&mut client, &file, 2, [(1, 0), (1, 0)], comment);
    let published = client.diagnostics_at(&uri(&file), 2);
    let saved = tempfile::tempdir().unwrap();
    repository_context_fixture(saved.path(), comment);
    let cli = crate::common::olmlint(Some(saved.path()), ["lint", "-f", "json", "catalogs/v4.18"]);
    let expected = cli_findings(&cli, "catalogs/v4.18/app/catalog.yaml");
    assert_eq!(expected.len(), 1, "{expected:#?}");
    assert_eq!(published_findings(&published), expected, "{published}");
    assert_eq!(client.exit(true), 0);
}

/// In a Konflux repository (no workspace folder given), a template opened alone is checked
/// with the rendered catalogs of its build, as `olmlint lint` pairs them: the server publishes
/// the template's findings of the whole build's run (only the image the rendered catalog
/// lacks is unresolved), and on the rendered catalog, which no longer matches the template,
/// OLM906.
#[test]
fn a_template_is_checked_with_the_catalogs_of_its_build() {
    let dir = tempfile::tempdir().unwrap();
    crate::catalog_roots::template_repository(dir.path());
    let cli = crate::common::olmlint(Some(dir.path()), ["lint", "--no-config", "-f", "json", "."]);
    let template = dir.path().join("catalog/catalog-template.yaml");
    let rendered = dir.path().join("catalog/foo-v4.18/catalog.yaml");

    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, None, &[]);
    open(&mut client, &template, 1);
    let published = client.diagnostics_at(&uri(&template), 1);
    assert_eq!(
        published_findings(&published),
        cli_findings(&cli, "catalog/catalog-template.yaml"),
        "{published}"
    );
    // Paired: the one image the rendered catalog lacks is the only one unresolved.
    let unresolved = of_rule(&published, "OLM904");
    assert_eq!(unresolved.len(), 1, "{published}");
    assert!(
        unresolved[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("1 of 2 bundles"),
        "{published}"
    );
    open(&mut client, &rendered, 1);
    let published = client.diagnostics_at(&uri(&rendered), 1);
    let expected = cli_findings(&cli, "catalog/foo-v4.18/catalog.yaml");
    assert!(expected.iter().any(|f| f[0] == "OLM906"), "{expected:#?}");
    assert_eq!(published_findings(&published), expected, "{published}");
    assert_eq!(client.exit(true), 0);
}

#[test]
fn hostile_buffers_meet_the_limits_of_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (".olmlint.yaml", "limits:\n  max-file-size: 100000\n"),
            ("deep.yaml", "a: 1\n"),
            ("huge.yaml", "a: 1\n"),
        ],
    );
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, None, &[]);
    let deep = dir.path().join("deep.yaml");
    let text = format!("a: {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&deep), "languageId": "yaml", "version": 1, "text": text}}),
    );
    let published = client.diagnostics_at(&uri(&deep), 1);
    let found = of_rule(&published, "OLM001");
    assert!(
        found
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("10000")),
        "the depth limit: {published}"
    );
    let huge = dir.path().join("huge.yaml");
    let text = format!(
        "---\nschema: olm.package\nname: p\n# {}\n",
        "x".repeat(200_000)
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&huge), "languageId": "yaml", "version": 1, "text": text}}),
    );
    let published = client.diagnostics_at(&uri(&huge), 1);
    let found = of_rule(&published, "OLM001");
    assert_eq!(found.len(), 1, "{published}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("100000-byte limit"), "{message}");
    // Alive: a fixed buffer is judged again.
    change(&mut client, &deep, 2, [(0, 0), (2, 0)], "a: [1]\n");
    let published = client.diagnostics_at(&uri(&deep), 2);
    assert!(of_rule(&published, "OLM001").is_empty(), "{published}");
    assert_eq!(client.exit(true), 0);
}

/// The protocol's exit codes: `exit` without `shutdown` is 1; requests the server does not
/// provide are answered "method not found".
#[test]
fn exit_without_shutdown_is_an_error_and_unknown_requests_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, None, &[]);
    let r = client.request("workspace/symbol", json!({"query": "x"}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert!(client.unread().is_empty(), "{:?}", client.unread());
    assert_eq!(client.exit(false), 1);
}

/// Diagnostic tags from the rules' `tags:`: an unused suppression is unnecessary (faded).
#[test]
fn unused_suppressions_are_tagged_unnecessary() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0 # olmlint: ignore[OLM304] nothing to silence here\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/example/foo-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n";
    write_files(dir.path(), &[("catalog/foo.yaml", catalog)]);
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, Some(dir.path()), &["utf-16"]);
    let file = dir.path().join("catalog/foo.yaml");
    open(&mut client, &file, 1);
    let published = client.diagnostics(&uri(&file));
    let unused = of_rule(&published, "OLM010");
    assert_eq!(unused.len(), 1, "{published}");
    // DiagnosticTag.Unnecessary is 1.
    assert_eq!(unused[0]["tags"], json!([1]), "{published}");
    assert_eq!(client.exit(true), 0);
}

/// `olmlint server --findings-baseline FILE` leaves out what the baseline lists, as
/// `olmlint lint --findings-baseline` does; a finding the baseline does not list is shown.
#[test]
fn the_findings_baseline_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--write-baseline", "baseline.json", "catalog"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut client = rpc::Client::start_with(dir.path(), &["--findings-baseline", "baseline.json"]);
    initialize(&mut client, Some(dir.path()), &["utf-16"]);
    let file = dir.path().join("catalog/foo.yaml");
    open(&mut client, &file, 1);
    let published = client.diagnostics(&uri(&file));
    assert!(
        of_rule(&published, "OLM201").is_empty(),
        "baselined: {published}"
    );
    assert_eq!(client.exit(true), 0);
    // Without it, the finding is there.
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, Some(dir.path()), &["utf-16"]);
    open(&mut client, &file, 1);
    let published = client.diagnostics(&uri(&file));
    assert_eq!(of_rule(&published, "OLM201").len(), 1, "{published}");
    assert_eq!(client.exit(true), 0);
}
