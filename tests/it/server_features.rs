//! `olmlint server`'s requests, driven over stdio as an editor drives them: hover (a finding's
//! rule, a bundle named by a channel entry, a version range, a dependency's package) and go
//! to definition. The command line is the oracle where it has an answer: `olmlint explain`'s
//! text.

use crate::common::write_files;
use crate::server::{of_rule, open, rpc, uri};
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

fn start(dir: &Path) -> rpc::Client {
    let mut client = rpc::Client::start(dir);
    let r = client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    let caps = &r["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], true, "{r}");
    assert_eq!(caps["definitionProvider"], true, "{r}");
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
