//! The layering the code promises (load → model → checks → report, I/O-free semantics
//! underneath): the top-level modules of `src/` import one another without cycles, so that
//! each can become a crate of its own. Imports are read as text (`crate::NAME` outside
//! comments), which is how they are written in this code base.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every top-level module and the top-level modules it names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let word = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let names = graph.entry(module.clone()).or_default();
        for c in word.captures_iter(&code) {
            if c[1] != *module {
                names.insert(c[1].to_string());
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for names in graph.values_mut() {
        names.retain(|n| modules.contains(n));
    }
    graph
}

/// A cycle through `start`, if there is one (depth-first search).
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in &graph[at] {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if visit(graph, start, next, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    visit(graph, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn top_level_modules_import_one_another_without_cycles() {
    let graph = imports();
    assert!(graph.len() > 10, "{graph:?}");
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_from(&graph, m))
        .map(|c| format!("{} → {}", c.join(" → "), c[0]))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The semantic cores read no files and run no processes: they are given what they judge.
#[test]
fn semantics_does_no_io() {
    let graph = imports();
    let allowed: BTreeSet<&str> = ["diag", "load", "rules", "suggest", "timings"].into();
    let extra: Vec<&String> = graph["semantics"]
        .iter()
        .filter(|m| !allowed.contains(m.as_str()))
        .collect();
    assert!(extra.is_empty(), "semantics imports {extra:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/semantics");
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // Unit tests may build their inputs however they like.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for io in ["std::fs", "std::process", "std::net", "std::env"] {
                assert!(!code.contains(io), "{} uses {io}", p.display());
            }
        }
    }
}
