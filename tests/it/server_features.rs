//! `olmlint server`'s requests, driven over stdio as an editor drives them: hover (a finding's
//! rule, a bundle named by a channel entry, a version range, a dependency's package), code
//! actions (the fixes `olmlint lint --fix` applies, unsafe ones apart, "suppress here",
//! "explain rule") and go to definition. The command line is the oracle where it has an
//! answer: `olmlint explain`'s text, the files `--fix` writes.

use crate::common::write_files;
use crate::server::{change, of_rule, open, rpc, snapshot, uri};
use serde_json::{json, Value};
use std::path::Path;

const CHANNELS: &str = r#"---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
  - name: foo.v1.1.0
    replaces: foo.v1.0.0
  - name: foo.v2.0.0
    replaces: foo.v1.1.0
    skips: [foo.v1.0.0]
    skipRange: ">=1.0.0 <2.0.0"
---
schema: olm.channel
package: foo
name: fast
entries:
  - name: foo.v2.0.0
"#;

/// foo.v1.0.0 needs a bar no bundle provides (OLM503: not installable); foo.v1.1.0 has an
/// unquoted `1.10` (OLM005, an unsafe fix) and a constraint written with `name` for
/// `packageName` (OLM201, a safe fix); foo.v2.0.0 is fine.
const BUNDLES: &str = r#"---
schema: olm.bundle
package: foo
name: foo.v1.0.0
image: quay.io/example/foo-bundle:v1.0.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
  - type: olm.package.required
    value: {packageName: bar, versionRange: ">=5.0.0"}
---
schema: olm.bundle
package: foo
name: foo.v1.1.0
image: quay.io/example/foo-bundle:v1.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 1.1.0}
  - type: olm.gvk
    value: {group: example.com, kind: Foo, version: 1.10}
  - type: olm.constraint
    value: {package: {name: bar, versionRange: ">=1.0.0"}}
---
schema: olm.bundle
package: foo
name: foo.v2.0.0
image: quay.io/example/foo-bundle:v2.0.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 2.0.0}
  - type: olm.package.required
    value: {packageName: bar, versionRange: ">=1.0.0 <2.0.0"}
"#;

/// The same constraint mistake in a JSON file (no comments there: no suppression).
const BAZ: &str = r#"{"schema": "olm.package", "name": "baz", "defaultChannel": "stable"}
{"schema": "olm.channel", "package": "baz", "name": "stable", "entries": [{"name": "baz.v1.0.0"}]}
{"schema": "olm.bundle", "package": "baz", "name": "baz.v1.0.0", "image": "quay.io/example/baz-bundle:v1.0.0",
 "properties": [{"type": "olm.package", "value": {"packageName": "baz", "version": "1.0.0"}},
  {"type": "olm.constraint", "value": {"package": {"name": "bar", "versionRange": ">=1.0.0"}}}]}
"#;

/// Package bar, versions 0.9.0, 1.2.0 and 3.0.0.
fn bar() -> String {
    let mut text = String::from(
        "---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - name: bar.v0.9.0\n  - name: bar.v1.2.0\n    replaces: bar.v0.9.0\n  - name: bar.v3.0.0\n    replaces: bar.v1.2.0\n",
    );
    for v in ["0.9.0", "1.2.0", "3.0.0"] {
        text.push_str(&format!("---\nschema: olm.bundle\npackage: bar\nname: bar.v{v}\nimage: quay.io/example/bar-bundle:v{v}\nproperties:\n  - type: olm.package\n    value: {{packageName: bar, version: {v}}}\n"));
    }
    text
}

fn catalog(dir: &Path) {
    write_files(
        dir,
        &[
            (".olmlint.yaml", "rules: {}\n"),
            ("channels.yaml", CHANNELS),
            ("bundles.yaml", BUNDLES),
            ("bar.yaml", &bar()),
            ("baz.json", BAZ),
        ],
    );
}

/// The position (0-based line, character) of byte `offset` into the `nth` (0-based)
/// occurrence of `needle` in an ASCII `text`.
fn at(text: &str, needle: &str, nth: usize, offset: usize) -> Value {
    let (byte, _) = text.match_indices(needle).nth(nth).unwrap();
    let byte = byte + offset;
    let line = text[..byte].matches('\n').count();
    let character = byte - text[..byte].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": character})
}

/// The range of the `nth` occurrence of `needle`.
fn range_of(text: &str, needle: &str, nth: usize) -> Value {
    json!({"start": at(text, needle, nth, 0), "end": at(text, needle, nth, needle.len())})
}

/// A client that opens what `window/showDocument` asks.
fn start(dir: &Path) -> rpc::Client {
    let mut client = rpc::Client::start(dir);
    let r = client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {"window": {"showDocument": {"support": true}}},
        }),
    );
    let caps = &r["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], true, "{r}");
    assert_eq!(caps["definitionProvider"], true, "{r}");
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "quickfix.olmlint.unsafe"]),
        "{r}"
    );
    assert_eq!(
        caps["executeCommandProvider"]["commands"],
        json!(["olmlint.explain"])
    );
    client.notify("initialized", json!({}));
    client
}

fn markdown(r: &Value) -> &str {
    assert_eq!(r["result"]["contents"]["kind"], "markdown", "{r}");
    r["result"]["contents"]["value"].as_str().unwrap()
}

fn hover(client: &mut rpc::Client, file: &Path, pos: Value) -> Value {
    client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(file)}, "position": pos}),
    )
}

/// Hover shows `olmlint explain`'s text on a finding; on a channel entry's bundle, its
/// version, channels and installability; on a range, the versions it matches and the
/// nearest it does not; on a dependency's package, its versions; nothing elsewhere.
#[test]
fn hover_explains_findings_bundles_ranges_and_packages() {
    let dir = tempfile::tempdir().unwrap();
    let catalog_dir = dir.path().join("catalog");
    catalog(&catalog_dir);
    let (bundles, channels) = (
        catalog_dir.join("bundles.yaml"),
        catalog_dir.join("channels.yaml"),
    );
    let mut client = start(dir.path());
    open(&mut client, &bundles, 1);
    let published = client.diagnostics_at(&uri(&bundles), 1);
    open(&mut client, &channels, 1);
    client.diagnostics_at(&uri(&channels), 1);

    let found = of_rule(&published, "OLM201");
    assert_eq!(found.len(), 1, "{published}");
    let r = hover(&mut client, &bundles, at(BUNDLES, "name: bar", 0, 2));
    let explain = crate::common::olmlint(None, ["explain", "OLM201"]);
    assert_eq!(
        markdown(&r),
        String::from_utf8(explain.stdout).unwrap().trim_end()
    );
    assert!(markdown(&r).contains("https://olmlint.github.io/olmlint/rules/OLM201.html"));
    assert_eq!(r["result"]["range"], found[0]["range"], "{r}");

    let r = hover(
        &mut client,
        &channels,
        at(CHANNELS, "replaces: foo.v1.0.0", 0, 12),
    );
    let text = markdown(&r);
    assert!(
        text.contains("**Bundle `foo.v1.0.0`** (package `foo`)"),
        "{text}"
    );
    assert!(text.contains("- Version: `1.0.0`"), "{text}");
    assert!(text.contains("- Channels: `stable`\n"), "{text}");
    assert!(text.contains("- Installable: no\n  - OLM503: no bundle in the catalog satisfies this dependency on package bar"), "{text}");
    assert_eq!(
        r["result"]["range"],
        range_of(CHANNELS, "foo.v1.0.0", 1),
        "the name's range"
    );
    let r = hover(&mut client, &channels, at(CHANNELS, "foo.v2.0.0", 1, 3));
    let text = markdown(&r);
    assert!(text.contains("- Channels: `fast`, `stable`"), "{text}");
    assert!(text.contains("- Installable: yes"), "{text}");

    let r = hover(&mut client, &channels, at(CHANNELS, ">=1.0.0 <2.0.0", 0, 1));
    let text = markdown(&r);
    assert!(
        text.contains("**Range `>=1.0.0 <2.0.0`** over package `foo`"),
        "{text}"
    );
    assert!(text.contains("- In: 2 of 3: `1.0.0`, `1.1.0`"), "{text}");
    assert!(text.contains("- Nearest out: `2.0.0` (above)"), "{text}");
    let r = hover(&mut client, &bundles, at(BUNDLES, ">=1.0.0 <2.0.0", 0, 4));
    let text = markdown(&r);
    assert!(text.contains("over package `bar`"), "{text}");
    assert!(text.contains("- In: 1 of 3: `1.2.0`"), "{text}");
    assert!(
        text.contains("- Nearest out: `0.9.0` (below), `3.0.0` (above)"),
        "{text}"
    );
    let r = hover(&mut client, &bundles, at(BUNDLES, ">=5.0.0", 0, 0));
    let text = markdown(&r);
    assert!(text.contains("- In: none of the 3 versions"), "{text}");
    assert!(text.contains("- Nearest out: `3.0.0` (below)"), "{text}");
    // The OLM503 finding is on the same range: its rule follows.
    assert!(text.contains("---\n\n# OLM503 no-candidates"), "{text}");

    let r = hover(
        &mut client,
        &bundles,
        at(BUNDLES, "packageName: bar", 1, 13),
    );
    let text = markdown(&r);
    assert_eq!(
        text,
        "**Package `bar`**: 3 versions: `0.9.0`, `1.2.0`, `3.0.0` in this catalog"
    );
    let r = hover(&mut client, &bundles, at(BUNDLES, "schema", 0, 1));
    assert_eq!(r["result"], Value::Null, "{r}");
    assert_eq!(client.exit(true), 0);
}

/// The edits of a code action, applied to `text` (one document, at `version`).
fn apply(text: &str, action: &Value, file: &Path, version: i32) -> String {
    let changes = action["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{action}");
    let doc = &changes[0]["textDocument"];
    assert_eq!(doc["uri"], uri(file).as_str(), "{action}");
    assert_eq!(doc["version"], version, "{action}");
    let mut edits: Vec<(usize, usize, String)> = changes[0]["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let offset = |p: &Value| {
                let (line, character) = (
                    p["line"].as_u64().unwrap(),
                    p["character"].as_u64().unwrap(),
                );
                let start: usize = text
                    .split_inclusive('\n')
                    .take(line as usize)
                    .map(str::len)
                    .sum();
                start + character as usize
            };
            let r = &e["range"];
            (
                offset(&r["start"]),
                offset(&r["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort();
    let mut out = text.to_string();
    for (s, t, new) in edits.into_iter().rev() {
        out.replace_range(s..t, &new);
    }
    out
}

fn code_actions(
    client: &mut rpc::Client,
    file: &Path,
    range: Value,
    only: Option<&[&str]>,
) -> Vec<Value> {
    let mut context = json!({"diagnostics": []});
    if let Some(only) = only {
        context["only"] = json!(only);
    }
    let r = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(file)}, "range": range, "context": context}),
    );
    r["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .clone()
}

fn titled<'a>(actions: &'a [Value], start: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(start))
        .unwrap_or_else(|| panic!("no action {start:?} in {actions:#?}"))
}

/// The safe fix is a preferred quick fix whose edit writes what `olmlint lint --fix` writes;
/// the unsafe one has its own kind and writes what `--unsafe-fixes` adds.
#[test]
fn code_actions_are_the_fixes_the_command_line_applies() {
    let dir = tempfile::tempdir().unwrap();
    let catalog_dir = dir.path().join("catalog");
    catalog(&catalog_dir);
    let before = snapshot(dir.path());
    let bundles = catalog_dir.join("bundles.yaml");
    let mut client = start(dir.path());
    open(&mut client, &bundles, 1);
    let published = client.diagnostics_at(&uri(&bundles), 1);
    let typo = of_rule(&published, "OLM201")[0]["range"].clone();
    let actions = code_actions(&mut client, &bundles, typo.clone(), None);
    let fix = titled(&actions, "Rename `name` to `packageName` (OLM201)");
    assert_eq!(fix["kind"], "quickfix", "{fix}");
    assert_eq!(fix["isPreferred"], true, "{fix}");
    assert_eq!(fix["diagnostics"][0]["code"], "OLM201", "{fix}");
    let fixed = apply(BUNDLES, fix, &bundles, 1);

    let unsafe_at = of_rule(&published, "OLM005")[0]["range"].clone();
    let actions = code_actions(&mut client, &bundles, unsafe_at.clone(), None);
    let quote = titled(&actions, "Quote the scalar");
    assert_eq!(quote["kind"], "quickfix.olmlint.unsafe", "{quote}");
    assert_eq!(quote["isPreferred"], false, "{quote}");
    assert!(
        quote["title"].as_str().unwrap().contains("unsafe"),
        "{quote}"
    );
    let only_unsafe = code_actions(
        &mut client,
        &bundles,
        unsafe_at,
        Some(&["quickfix.olmlint.unsafe"]),
    );
    assert_eq!(only_unsafe.len(), 1, "{only_unsafe:#?}");
    let only_safe = code_actions(&mut client, &bundles, typo, Some(&["source"]));
    assert!(only_safe.is_empty(), "{only_safe:#?}");

    // The oracle: `--fix`, then `--fix --unsafe-fixes`, on a copy.
    let copy = tempfile::tempdir().unwrap();
    catalog(copy.path());
    crate::common::olmlint(Some(copy.path()), ["lint", "--fix", "."]);
    let cli_fixed = std::fs::read_to_string(copy.path().join("bundles.yaml")).unwrap();
    assert_eq!(fixed, cli_fixed);
    crate::common::olmlint(Some(copy.path()), ["lint", "--fix", "--unsafe-fixes", "."]);
    let cli_unsafe = std::fs::read_to_string(copy.path().join("bundles.yaml")).unwrap();
    assert_eq!(apply(&fixed, quote, &bundles, 1), cli_unsafe);

    // In a JSON file: the fix, no suppression.
    let baz = catalog_dir.join("baz.json");
    open(&mut client, &baz, 1);
    let published = client.diagnostics_at(&uri(&baz), 1);
    let typo = of_rule(&published, "OLM201")[0]["range"].clone();
    let actions = code_actions(&mut client, &baz, typo, None);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Rename `name` to `packageName` (OLM201)",
            "Explain OLM201 (open the rule's page)"
        ]
    );
    assert_eq!(client.exit(true), 0);
    assert!(
        snapshot(dir.path()) == before,
        "the server wrote to the disk"
    );
}

/// "Suppress here" inserts the comment olmlint's parser reads, which applies once a reason
/// is written after it; an edit is offered only for the version it was computed on;
/// "explain" asks the client to show the rule's page.
#[test]
fn suppress_here_and_explain_and_no_edit_for_an_older_version() {
    let dir = tempfile::tempdir().unwrap();
    let catalog_dir = dir.path().join("catalog");
    catalog(&catalog_dir);
    let bundles = catalog_dir.join("bundles.yaml");
    let mut client = start(dir.path());
    open(&mut client, &bundles, 1);
    let published = client.diagnostics_at(&uri(&bundles), 1);
    let typo = of_rule(&published, "OLM201")[0]["range"].clone();
    let actions = code_actions(&mut client, &bundles, typo.clone(), None);
    let suppress = titled(&actions, "Suppress OLM201 here");
    assert_eq!(suppress["kind"], "quickfix", "{suppress}");
    let text = apply(BUNDLES, suppress, &bundles, 1);
    assert!(
        text.contains("  - type: olm.constraint\n    # olmlint: ignore[OLM201]\n    value: {package: {name: bar"),
        "{text}"
    );
    // Applied as the editor applies it: the comment without a reason is OLM010.
    let line = typo["start"]["line"].as_u64().unwrap() as u32;
    change(
        &mut client,
        &bundles,
        2,
        [(line, 0), (line, 0)],
        "    # olmlint: ignore[OLM201]\n",
    );
    let published = client.diagnostics_at(&uri(&bundles), 2);
    assert_eq!(of_rule(&published, "OLM201").len(), 1, "{published}");
    assert_eq!(of_rule(&published, "OLM010").len(), 1, "{published}");
    // With a reason, it applies.
    change(
        &mut client,
        &bundles,
        3,
        [(line, 29), (line, 29)],
        " bar is renamed next release",
    );
    let published = client.diagnostics_at(&uri(&bundles), 3);
    assert!(of_rule(&published, "OLM201").is_empty(), "{published}");
    assert!(of_rule(&published, "OLM010").is_empty(), "{published}");

    // An edit the run has not judged yet: no edit computed on version 3 is offered for
    // version 4 (unless the run of version 4 was published before the answer, then its).
    change(&mut client, &bundles, 4, [(0, 0), (0, 0)], "# a comment\n");
    let range = of_rule(&published, "OLM005")[0]["range"].clone();
    let actions = code_actions(&mut client, &bundles, range.clone(), None);
    let judged = client.unread().iter().any(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri(&bundles).as_str()
            && m["params"]["version"] == 4
    });
    for action in &actions {
        if let Some(changes) = action["edit"]["documentChanges"].as_array() {
            assert!(judged, "an edit before version 4 was judged: {action}");
            assert_eq!(changes[0]["textDocument"]["version"], 4, "{action}");
        }
    }
    client.diagnostics_at(&uri(&bundles), 4);
    let mut moved = range.clone();
    for end in ["start", "end"] {
        let l = moved[end]["line"].as_u64().unwrap();
        moved[end]["line"] = json!(l + 1);
    }
    let actions = code_actions(&mut client, &bundles, moved, None);
    let quote = titled(&actions, "Quote the scalar");
    assert_eq!(
        quote["edit"]["documentChanges"][0]["textDocument"]["version"],
        4
    );

    let explain = titled(&actions, "Explain OLM005");
    let command = &explain["command"];
    assert_eq!(command["command"], "olmlint.explain", "{explain}");
    let r = client.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    let shown = client.wait("window/showDocument", |m| {
        m["method"] == "window/showDocument"
    });
    assert_eq!(
        shown["params"],
        json!({"uri": "https://olmlint.github.io/olmlint/rules/OLM005.html", "external": true})
    );
    let r = client.request(
        "workspace/executeCommand",
        json!({"command": "olmlint.explain", "arguments": ["OLM999"]}),
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown rule"),
        "{r}"
    );
    assert_eq!(client.exit(true), 0);
}

/// Go to definition: from a channel entry's name, `replaces` and `skips` to the bundle's
/// document, from a dependency's package name to the package's; nowhere from elsewhere.
#[test]
fn definition_leads_to_the_bundle_or_package_named() {
    let dir = tempfile::tempdir().unwrap();
    let catalog_dir = dir.path().join("catalog");
    catalog(&catalog_dir);
    let (bundles, channels) = (
        catalog_dir.join("bundles.yaml"),
        catalog_dir.join("channels.yaml"),
    );
    let mut client = start(dir.path());
    open(&mut client, &channels, 1);
    client.diagnostics_at(&uri(&channels), 1);
    let definition = |client: &mut rpc::Client, file: &Path, pos: Value| {
        let r = client.request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri(file)}, "position": pos}),
        );
        r["result"].clone()
    };
    let bundle = |name: &str| json!({"uri": uri(&bundles), "range": range_of(BUNDLES, &format!("name: {name}"), 0)});
    let value_only = |v: Value| {
        let mut v = v;
        let start = v["range"]["start"]["character"].as_u64().unwrap();
        v["range"]["start"]["character"] = json!(start + 6);
        v
    };
    assert_eq!(
        definition(
            &mut client,
            &channels,
            at(CHANNELS, "replaces: foo.v1.0.0", 0, 15)
        ),
        value_only(bundle("foo.v1.0.0"))
    );
    assert_eq!(
        definition(&mut client, &channels, at(CHANNELS, "[foo.v1.0.0]", 0, 1)),
        value_only(bundle("foo.v1.0.0"))
    );
    assert_eq!(
        definition(
            &mut client,
            &channels,
            at(CHANNELS, "- name: foo.v2.0.0", 1, 8)
        ),
        value_only(bundle("foo.v2.0.0"))
    );
    assert_eq!(
        definition(&mut client, &channels, at(CHANNELS, "stable", 0, 0)),
        Value::Null
    );

    open(&mut client, &bundles, 1);
    client.diagnostics_at(&uri(&bundles), 1);
    let bar = catalog_dir.join("bar.yaml");
    assert_eq!(
        definition(
            &mut client,
            &bundles,
            at(BUNDLES, "packageName: bar", 1, 14)
        ),
        json!({"uri": uri(&bar), "range": {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 9}}})
    );
    assert_eq!(client.exit(true), 0);
}

/// A client that cannot open a page is shown the rule's documentation instead.
#[test]
fn explain_without_show_document_shows_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = rpc::Client::start(dir.path());
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    client.notify("initialized", json!({}));
    let r = client.request(
        "workspace/executeCommand",
        json!({"command": "olmlint.explain", "arguments": ["constraint-decode"]}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    let shown = client.wait("window/showMessage", |m| {
        m["method"] == "window/showMessage"
    });
    let explain = crate::common::olmlint(None, ["explain", "OLM201"]);
    assert_eq!(
        shown["params"]["message"],
        String::from_utf8(explain.stdout).unwrap().trim_end()
    );
    assert!(
        !client
            .unread()
            .iter()
            .any(|m| m["method"] == "window/showDocument"),
        "not offered by the client"
    );
    assert_eq!(client.exit(true), 0);
}
