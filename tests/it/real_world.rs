//! Real-world dependency declarations (`../shared/corpus/real-world/`, origins in ORIGINS.tsv):
//! every file is linted the way it ships (dependencies.yaml and properties.yaml inside a bundle
//! directory, FBC files as catalogs) and the findings per rule are pinned, so a change in what
//! olmlint flags in the wild is a visible diff. The broken examples among them (unknown keys,
//! provisional syntax, bad ranges, misplaced constraints) must keep their rules.

use crate::common::bundle_dir;
use olmlint::lint::{run, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn real_world() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/real-world")
}

/// Documentation snippets (`…#name.snippet.txt`, `.md`, `.adoc`): the first code block, which
/// shows a dependency declaration in one of a few shapes.
fn is_doc_snippet(name: &str) -> bool {
    (name.contains(".snippet.") && !name.ends_with(".fbc-snippet.yaml"))
        || name.ends_with(".adoc")
        || name.ends_with(".md")
}

/// The first fenced (```) or AsciiDoc (----) block of a documentation snippet, or the text
/// without its comment header.
fn code_block(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let fence = lines
        .iter()
        .position(|l| l.trim_start().starts_with("```") || l.trim() == "----");
    match fence {
        Some(i) => {
            let close = if lines[i].trim() == "----" {
                "----"
            } else {
                "```"
            };
            lines[i + 1..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with(close))
                .map(|l| format!("{l}\n"))
                .collect()
        }
        None => lines
            .iter()
            .skip_while(|l| l.starts_with('#') || l.starts_with("<!--"))
            .map(|l| format!("{l}\n"))
            .collect(),
    }
}

/// Stages a documentation snippet the way its shape is used: a property item or list goes
/// into properties.yaml, a `dependencies:`/`properties:` document into that file, anything
/// else (a CSV excerpt) into properties.yaml as written.
fn stage_snippet(text: &str, tmp: &Path) -> PathBuf {
    let code = code_block(text);
    let first = code.trim_start();
    let indent = |t: &str| -> String { t.lines().map(|l| format!("    {l}\n")).collect() };
    if first.starts_with("schema:") {
        // An FBC bundle excerpt: give it a package and a channel so only its properties speak.
        let name = code
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap_or("example.v1.0.0")
            .trim()
            .to_string();
        let with_package = if code.lines().any(|l| l.starts_with("package:")) {
            code.clone()
        } else {
            code.replacen("schema: olm.bundle\n", "schema: olm.bundle\npackage: example\nimage: quay.io/example/example-bundle:v1.0.0\n", 1)
        };
        let catalog = format!("---\nschema: olm.package\nname: example\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: example\nname: stable\nentries:\n  - name: {name}\n---\n{with_package}");
        let path = tmp.join("catalog.yaml");
        std::fs::write(&path, catalog).unwrap();
        return path;
    }
    let (file, body) = if first.starts_with("dependencies:") {
        ("dependencies.yaml", code.clone())
    } else if first.starts_with("properties:") {
        ("properties.yaml", code.clone())
    } else if first.starts_with('-') {
        ("properties.yaml", format!("properties:\n{}", indent(&code)))
    } else {
        // One `{type, value}` item (YAML or JSON), or some other excerpt.
        (
            "properties.yaml",
            format!("properties:\n  -\n{}", indent(&code)),
        )
    };
    bundle_dir(tmp, &[(file, body)])
}

/// Lays `file` out as it is used and returns the path to lint.
fn stage(file: &Path, tmp: &Path) -> PathBuf {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    if is_doc_snippet(&name) {
        return stage_snippet(&std::fs::read_to_string(file).unwrap(), tmp);
    }
    let metadata = ["dependencies", "properties"]
        .into_iter()
        .find(|m| name.ends_with(&format!("{m}.yaml")) || name.contains(&format!("{m}@")));
    match metadata {
        Some(m) => bundle_dir(
            tmp,
            &[(&format!("{m}.yaml"), std::fs::read_to_string(file).unwrap())],
        ),
        None => {
            let dest = tmp.join("catalog.yaml");
            std::fs::copy(file, &dest).unwrap();
            dest
        }
    }
}

#[test]
fn real_world_findings_per_rule() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in std::fs::read_dir(real_world()).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                files.push(f.unwrap().path());
            }
        }
    }
    files.sort();
    assert!(files.len() > 250, "{} files", files.len());
    let mut per_rule: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut files_per_rule: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut load_errors = Vec::new();
    let mut snippets: Vec<(String, bool, Vec<String>)> = Vec::new();
    for f in &files {
        let tmp = tempfile::tempdir().unwrap();
        let path = stage(f, tmp.path());
        let out = run(&Options {
            paths: vec![path],
            no_config: true,
            ..Options::default()
        })
        .unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if is_doc_snippet(&name) {
            let rules: Vec<String> = out
                .diags
                .iter()
                .filter(|d| d.severity >= olmlint::diag::Severity::Warning)
                .map(|d| d.rule.to_string())
                .collect();
            let header = std::fs::read_to_string(f).unwrap();
            let claims_mistake = header.lines().take(3).any(|l| {
                ["MISTAKE", "Superseded", "Hypothetical", "not implemented"]
                    .iter()
                    .any(|k| l.contains(k))
            });
            snippets.push((name.clone(), claims_mistake, rules));
        }
        let mut seen = std::collections::BTreeSet::new();
        for d in &out.diags {
            // Verdicts, whether reported alone or folded into the finding of their cause.
            for (rule, _, _) in d.verdicts() {
                *per_rule.entry(rule).or_default() += 1;
                if seen.insert(rule) {
                    *files_per_rule.entry(rule).or_default() += 1;
                }
            }
            // A metadata file that does not parse is also OLM604 (opm skips it): expected.
            let skipped = out.diags.iter().any(|x| x.rule == "OLM604");
            if d.rule == "OLM001" && !is_doc_snippet(&name) && !skipped {
                load_errors.push(format!("{}: {}", f.display(), d.message));
            }
        }
    }
    let table: Vec<String> = per_rule
        .iter()
        .map(|(r, n)| format!("{r} {n} in {} files", files_per_rule[r]))
        .collect();
    println!("{} files\n{}", files.len(), table.join("\n"));
    // Pinned: the dependency rules (OLM2xx–OLM6xx) over the whole corpus.
    let pinned: BTreeMap<&str, usize> = per_rule
        .iter()
        .filter(|(r, _)| matches!(r.as_bytes().get(3), Some(b'2'..=b'6')))
        .map(|(r, n)| (*r, *n))
        .collect();
    let expected: BTreeMap<&str, usize> = EXPECTED.iter().copied().collect();
    for (name, mistake, rules) in &snippets {
        println!(
            "{} {name}: {}",
            if *mistake { "MISTAKE" } else { "ok     " },
            rules.join(" ")
        );
    }
    // Every documentation example that its header says is wrong is flagged.
    let missed: Vec<&String> = snippets
        .iter()
        .filter(|(_, mistake, rules)| *mistake && rules.is_empty())
        .map(|(n, _, _)| n)
        .collect();
    let known: Vec<&str> = NOT_LINTABLE.iter().map(|(n, _)| *n).collect();
    let unexpected: Vec<&&String> = missed
        .iter()
        .filter(|n| !known.iter().any(|k| n.contains(k)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "broken examples not flagged: {unexpected:#?}"
    );
    assert_eq!(missed.len(), known.len(), "{missed:#?}");
    assert!(load_errors.is_empty(), "{load_errors:#?}");
    assert_eq!(
        pinned,
        expected,
        "findings per rule changed:\n{}",
        table.join("\n")
    );
}

/// Documentation examples whose mistake is not in a catalog or bundle file olmlint reads.
const NOT_LINTABLE: &[(&str, &str)] = &[
    (
        "olm-bundle-management.md#dependency-definitions",
        "a CSV excerpt with `spec.dependencies`, a field CSVs do not have",
    ),
    (
        "olm-integration-lifecycle.md#dependency-types",
        "the same CSV `spec.dependencies` excerpt",
    ),
    (
        "olm.label-string-value",
        "the excerpt stops at `- type: olm.label`, before the string value its header describes",
    ),
    (
        "max-size-64KB",
        "prose: the documented 64 KB limit (OLM's is 131 072 bytes; OLM204 warns above 65 536)",
    ),
];

/// Findings per rule on the corpus (see the test's printed table for files per rule).
const EXPECTED: &[(&str, usize)] = &[
    ("OLM201", 13),  // unknown keys: package.name, message, none, propertyEquals, ...
    ("OLM202", 2),   // `all:` beside `value:` (value null)
    ("OLM208", 12),  // evaluator/rule/action, olm.constraint.cel, `- property:` wrappers
    ("OLM209", 2),   // olm.package.required with `name`
    ("OLM211", 8),   // failureMessage on non-cel nodes
    ("OLM301", 6),   // npm/Cargo-style ranges
    ("OLM304", 146), // bare-version pins (info)
    ("OLM402", 2),   // p.gvk.provides(): no such function
    ("OLM404", 4),   // CEL rules that never hold
    // Since #30 a staged bundle directory has a channel like its FBC twin, so it is checked
    // for installability too: 20 -> 31 and 7 -> 10 (CEL and label requirements no bundle of
    // a one-bundle catalog meets; OLM507's open world covers packages and APIs only).
    ("OLM501", 31),  // uninstallable for a reason inside the loaded catalog
    ("OLM503", 10),  // one per package and dependency
    ("OLM507", 434), // dependencies that live in other catalogs (open world, warnings)
    ("OLM601", 10),  // dependencies.yaml entries operator-sdk rejects
    ("OLM603", 5),   // non-CEL olm.constraint in dependencies.yaml
    ("OLM604", 4),   // metadata files opm skips because they do not parse
];
