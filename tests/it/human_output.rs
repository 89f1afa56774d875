//! Logs people can read (#29, #27): the graphical report without colour when not on a
//! terminal, grouped by package, one position per finding; `--format concise`;
//! `--statistics`; the summary's most frequent rules and packages.

use crate::common;

use std::path::Path;

/// Two packages with problems: foo (a default channel that does not exist, a missing
/// dependency) and bar (an invalid range).
fn catalog(dir: &Path) {
    common::write_files(
        dir,
        &[(
            "catalog.yaml",
            "---\nschema: olm.package\nname: foo\ndefaultChannel: fast\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n---\nschema: olm.package\nname: bar\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: bar\nname: stable\nentries:\n  - name: bar.v1.0.0\n---\nschema: olm.bundle\npackage: bar\nname: bar.v1.0.0\nimage: quay.io/x/bar:1\nproperties:\n  - type: olm.package\n    value: {packageName: bar, version: 1.0.0}\n  - type: olm.package.required\n    value: {packageName: foo, versionRange: '^1.0.0'}\n",
        )],
    );
}

fn run(dir: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec!["lint", "--no-config"];
    all.extend_from_slice(args);
    all.push(".");
    let out = common::olmlint(Some(dir), all);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn human_output_off_a_terminal_is_the_graphical_layout_grouped_by_package() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let (out, _) = run(tmp.path(), &[]);
    // Not miette's screen-reader narration, and no colour.
    assert!(!out.contains("Begin snippet"), "{out}");
    assert!(!out.contains('\x1b'), "{out}");
    // One position: the first line and the snippet header agree.
    assert!(out.contains("catalog.yaml:4:17: error[OLM102]"), "{out}");
    assert!(out.contains("╭─[catalog.yaml:4:17]"), "{out}");
    // Grouped: bar's findings under its header, then foo's.
    let bar = out.find("── package bar: 1 error ──").expect(&out);
    let foo = out.find("── package foo: 1 error ──").expect(&out);
    assert!(bar < foo, "{out}");
    let range = out.find("error[OLM301]").unwrap();
    let channel = out.find("error[OLM102]").unwrap();
    assert!(bar < range && range < foo && foo < channel, "{out}");
}

#[test]
fn concise_is_one_line_per_finding() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let (out, _) = run(tmp.path(), &["-f", "concise"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines.contains(&"catalog.yaml:4:17: error[OLM102] default channel \"fast\" not found: opm reports `invalid channel \"fast\": channel must contain at least one bundle` [package foo]"),
        "{out}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("catalog.yaml:38:46: ")
            && l.contains("error[OLM301]")
            && l.ends_with("[bundle bar.v1.0.0]")),
        "{out}"
    );
}

#[test]
fn statistics_count_per_rule_and_package() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let (out, _) = run(tmp.path(), &["--statistics"]);
    assert!(
        out.contains("     1  OLM102  error    default-channel"),
        "{out}"
    );
    assert!(
        out.contains("     1  OLM301  error    range-invalid"),
        "{out}"
    );
    assert!(
        out.contains("per package:\n     1  bar\n     1  foo\n"),
        "{out}"
    );
    // The summary names the most frequent rules once findings are many.
    let (_, err) = run(tmp.path(), &["-f", "concise"]);
    assert!(!err.contains("most:"), "{err}");
    let many = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..6 {
        text.push_str(&format!(
            "---\nschema: olm.package\nname: p{i}\ndefaultChannel: fast\n"
        ));
    }
    std::fs::write(many.path().join("catalog.yaml"), text).unwrap();
    let (_, err) = run(many.path(), &["-f", "concise"]);
    assert!(
        err.contains(
            "most: OLM102 ×6, OLM103 ×6; packages: p0 ×2, p1 ×2, p2 ×2, 3 more (`--statistics` for all)"
        ),
        "{err}"
    );
}

#[test]
fn a_configuration_mistake_stops_the_run_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    std::fs::write(
        tmp.path().join(".olmlint.yaml"),
        "closed-wrld: true\nlimits:\n  max-dept: 10\n",
    )
    .unwrap();
    for fail_on in ["error", "never"] {
        let out = common::olmlint(
            Some(tmp.path()),
            ["lint", "-f", "json", "-q", "--fail-on", fail_on, "."],
        );
        assert_eq!(out.status.code(), Some(2), "--fail-on {fail_on}");
        // The report holds only the mistakes, one per unknown key, with did-you-mean.
        let d = common::diagnostics(&out);
        let msgs: Vec<&str> = d.iter().map(common::message).collect();
        assert_eq!(
            msgs,
            vec![
                "unknown configuration key `closed-wrld` at `/`",
                "unknown configuration key `max-dept` at `/limits`"
            ],
            "{d:#?}"
        );
        assert!(d[0]["help"]
            .as_str()
            .unwrap()
            .contains("Did you mean `closed-world`?"));
        assert!(d[1]["help"]
            .as_str()
            .unwrap()
            .contains("Did you mean `max-depth`?"));
        assert_eq!(d[0]["line"], 1);
        assert!(String::from_utf8_lossy(&out.stderr).contains("the configuration has 2 mistake(s)"));
    }
}

#[test]
fn a_file_that_is_not_text_has_no_suppressions() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("blob.yaml"),
        b"a: 1 # olmlint: ignore[OLM301] reason\n\0\x01 # olmlint: ignore[OLM105] x\n",
    )
    .unwrap();
    let (out, _) = run(tmp.path(), &["-f", "concise"]);
    // Only the read error: no "unused suppression" (OLM010) for bytes that are not comments.
    assert_eq!(
        out,
        "blob.yaml:2:1: error[OLM001] NUL byte in a YAML file\n"
    );
}
