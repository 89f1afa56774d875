//! Every rule's documentation runs: the failing example must trigger exactly that rule, the
//! passing example must trigger neither it nor any error.

use olmlint::lint::{run, Options};
use std::collections::BTreeSet;

/// Files of an example section: fences ```yaml or ```json, optionally `file=path`.
fn example_files(section: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        if info.is_empty() {
            continue;
        }
        let ext = if info.starts_with("json") {
            "json"
        } else {
            "yaml"
        };
        let name = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
            .map_or_else(|| format!("catalog.{ext}"), str::to_string);
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        files.push((name, body));
    }
    files
}

/// Lint an example. Files written `file=baseline/...` are the previous version of the
/// catalog (`--baseline`); the others are the catalog linted.
fn lint_example(rule: &str, files: &[(String, String)]) -> (BTreeSet<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let has_baseline = files.iter().any(|(n, _)| n.starts_with("baseline/"));
    let root = if has_baseline {
        dir.path().join("new")
    } else {
        dir.path().to_path_buf()
    };
    for (name, body) in files {
        let p = match name.strip_prefix("baseline/") {
            Some(rest) => dir.path().join("baseline").join(rest),
            None => root.join(name),
        };
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    let cfg = files.iter().any(|(n, _)| n == ".olmlint.yaml");
    // The OLM v1 family runs under `--target v0,olmv1` (its default profile), unless the
    // example's own configuration names the targets.
    let targets = (olmlint::check::olmv1::RULES.contains(&rule) && !cfg)
        .then(|| olmlint::semantics::olmv1::Targets::parse(["v0,olmv1"]).unwrap());
    let out = run(&Options {
        targets,
        paths: vec![root.clone()],
        no_config: !cfg,
        config: cfg.then(|| root.join(".olmlint.yaml")),
        enable: vec![rule.to_string()],
        baseline: has_baseline.then(|| dir.path().join("baseline")),
        ..Default::default()
    })
    .unwrap();
    let rules = out.diags.iter().map(|d| d.rule.to_string()).collect();
    let msgs = out
        .diags
        .iter()
        .map(|d| format!("{} {:?} {}", d.rule, d.severity, d.message))
        .collect();
    (rules, msgs)
}

#[test]
fn rule_doc_examples_run() {
    let mut failures = Vec::new();
    for rule in olmlint::rules::all() {
        let failing = rule
            .section("Failing example")
            .map(example_files)
            .unwrap_or_default();
        let passing = rule
            .section("Passing example")
            .map(example_files)
            .unwrap_or_default();
        if failing.is_empty() || passing.is_empty() {
            failures.push(format!("{}: missing failing or passing example", rule.id));
            continue;
        }
        let (fired, msgs) = lint_example(rule.id, &failing);
        let mut want = BTreeSet::from([rule.id.to_string()]);
        want.extend(rule.also.iter().cloned());
        if fired != want {
            failures.push(format!(
                "{} failing example fired {fired:?}: {msgs:#?}",
                rule.id
            ));
        }
        let (fired, msgs) = lint_example(rule.id, &passing);
        let errors = msgs.iter().any(|m| m.contains(" Error "));
        if fired.contains(rule.id) || errors {
            failures.push(format!(
                "{} passing example fired {fired:?}: {msgs:#?}",
                rule.id
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
