//! `olmlint server`'s quick runs (`crates/olmlint-server/src/schedule.rs`): a large catalog's
//! keystrokes are checked without OLM's resolution, its full run follows when edits pause.
//! `initializationOptions.resolutionChecks: "deferred"` makes this small catalog behave as a
//! large one does under `auto`.

use super::server::{change, of_rule, open, rpc, uri};
use crate::common::write_files;
use serde_json::{json, Value};

/// foo's dependency on bar is unsatisfiable (OLM503, found with the resolution), but a
/// reasoned suppression waives it; bar's on foo is unsatisfiable too, unwaived.
const FOO: &str = "---
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
properties:
  - type: olm.package.required
    # olmlint: ignore[OLM503] bar 2.0.0 ships in the next release of this catalog
    value: {packageName: bar, versionRange: \">=2.0.0\"}
  - type: olm.package
    value: {packageName: foo, version: 1.0.0}
";

const BAR: &str = "---
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
  - type: olm.package.required
    value: {packageName: foo, versionRange: \">=3.0.0\"}
  - type: olm.package
    value: {packageName: bar, version: 1.2.0}
";

/// A line inserted after bar's `defaultChannel`.
const ICON: &str = "icon: 3\n";

fn initialize(client: &mut rpc::Client, checks: &str) {
    client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "initializationOptions": {"resolutionChecks": checks},
        }),
    );
    client.notify("initialized", json!({}));
}

fn rules(params: &Value) -> Vec<String> {
    let mut rules: Vec<String> = params["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    rules.sort();
    rules
}

/// A keystroke's quick run publishes the edited file's findings without the resolution's
/// (which would sit at stale positions), keeps them on the files it did not change, and does
/// not call a suppression of a resolution finding unused; once edits pause, the full run
/// publishes the edited file whole.
#[test]
fn a_quick_run_defers_the_resolution_findings_of_the_edited_file_until_edits_pause() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("c/foo.yaml", FOO), ("c/bar.yaml", BAR)]);
    let (foo, bar) = (dir.path().join("c/foo.yaml"), dir.path().join("c/bar.yaml"));
    let mut client = rpc::Client::start(dir.path());
    initialize(&mut client, "deferred");
    open(&mut client, &bar, 1);
    let first = client.diagnostics_at(&uri(&bar), 1);
    assert_eq!(rules(&first), ["OLM503"], "the first run is full: {first}");

    // An icon that is not one (OLM005, OLM101: found without the resolution), on a new line
    // that moves the OLM503 finding one line down.
    change(&mut client, &bar, 2, [(4, 0), (4, 0)], ICON);
    let quick = client.diagnostics_at(&uri(&bar), 2);
    assert_eq!(rules(&quick), ["OLM005", "OLM101"], "quick: {quick}");
    let told = client.wait("the quick runs explained", |m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|s| s.contains("without OLM's resolution"))
    });
    assert_eq!(told["params"]["type"], 3, "info: {told}");
    // Hover on the channel entry (line 10 now): this run did not check installability.
    let hover = |client: &mut rpc::Client| {
        let r = client.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&bar)}, "position": {"line": 10, "character": 12}}),
        );
        r["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let during = hover(&mut client);
    assert!(during.contains("Installable: not checked"), "{during}");

    let full = client.diagnostics_at(&uri(&bar), 2);
    assert_eq!(
        rules(&full),
        ["OLM005", "OLM101", "OLM503"],
        "after the pause: {full}"
    );
    let moved = of_rule(&full, "OLM503");
    assert_eq!(
        moved[0]["range"]["start"]["line"], 18,
        "at its new line: {full}"
    );
    let after = hover(&mut client);
    assert!(after.contains("Installable: no"), "{after}");
    // foo.yaml kept its state throughout: its suppression was never called unused.
    let on_foo: Vec<Value> = client
        .unread()
        .into_iter()
        .filter(|m| m["params"]["uri"] == uri(&foo))
        .collect();
    assert!(
        on_foo
            .iter()
            .all(|m| of_rule(&m["params"], "OLM010").is_empty()),
        "{on_foo:#?}"
    );
    assert_eq!(client.exit(true), 0);
}

/// `everyEdit` runs the resolution on every keystroke: the edited file's resolution findings
/// come with the edit's own publication. A value the server does not know is reported in
/// the client's log and `auto` applies.
#[test]
fn every_edit_checks_the_resolution_on_each_keystroke_and_a_wrong_option_is_logged() {
    for (checks, logged) in [("everyEdit", false), ("sometimes", true)] {
        let dir = tempfile::tempdir().unwrap();
        write_files(dir.path(), &[("c/foo.yaml", FOO), ("c/bar.yaml", BAR)]);
        let bar = dir.path().join("c/bar.yaml");
        let mut client = rpc::Client::start(dir.path());
        initialize(&mut client, checks);
        open(&mut client, &bar, 1);
        client.diagnostics_at(&uri(&bar), 1);
        change(&mut client, &bar, 2, [(4, 0), (4, 0)], ICON);
        let published = client.diagnostics_at(&uri(&bar), 2);
        assert_eq!(
            rules(&published),
            ["OLM005", "OLM101", "OLM503"],
            "{checks}: {published}"
        );
        let log = client.unread();
        let warned = log.iter().any(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains("resolutionChecks is \"sometimes\""))
        });
        assert_eq!(warned, logged, "{checks}: {log:#?}");
        assert_eq!(client.exit(true), 0);
    }
}

/// The fixture as `olmlint lint` judges it: bar's dependency is unsatisfiable, foo's is
/// waived by its suppression (which is therefore used: no OLM010).
#[test]
fn the_fixture_leaves_bar_unsatisfiable_and_waives_foo() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("foo.yaml", FOO), ("bar.yaml", BAR)]);
    let out = crate::common::olmlint(Some(dir.path()), ["lint", "-f", "json", "."]);
    let found: Vec<(String, String)> = crate::common::diagnostics(&out)
        .into_iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found, [("bar.yaml".to_string(), "OLM503".to_string())]);
}
