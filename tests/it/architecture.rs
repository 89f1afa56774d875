//! The layering the code promises (load → model → checks → report, I/O-free semantics
//! underneath) is the workspace's crate graph, so the compiler forbids cycles between layers;
//! inside each crate, the top-level modules import one another without cycles too. Imports
//! are read as text (`crate::NAME`, or `super::NAME` from a file right under `src/`, outside
//! comments and unit tests), which is how they are written in this code base.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate of the workspace (name, `src/` directory).
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = vec![("olmlint".to_string(), root().join("src"))];
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = e.unwrap().path();
        if dir.join("Cargo.toml").is_file() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, dir.join("src")));
        }
    }
    out.sort();
    out
}

fn rust_files(src: &Path) -> Vec<PathBuf> {
    let mut stack = vec![src.to_path_buf()];
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
    files
}

/// Every top-level module of the crate whose sources are `src` and the top-level modules it
/// names (the crate root, `lib.rs`/`main.rs`, is the parent of them all and not counted).
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let absolute = regex::Regex::new(r"\bcrate::([a-z_]+)").unwrap();
    let relative = regex::Regex::new(r"(?:^|[^:a-z_])super::([a-z_]+)").unwrap();
    for f in rust_files(src) {
        let rel = f.strip_prefix(src).unwrap();
        let depth = rel.components().count();
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
        // Unit tests may use whatever builds their inputs; the architecture is the rest.
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let names = graph.entry(module.clone()).or_default();
        let mut named: Vec<String> = absolute
            .captures_iter(&code)
            .map(|c| c[1].to_string())
            .collect();
        if depth == 1 {
            named.extend(relative.captures_iter(&code).map(|c| c[1].to_string()));
        }
        names.extend(named.into_iter().filter(|n| *n != module));
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

/// The crate graph is the architecture: each layer depends on the layers under it only.
#[test]
fn the_crates_are_the_layers() {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null() && d["name"].as_str().unwrap().starts_with("olmlint"))
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect();
        layers.insert(p["name"].as_str().unwrap().to_string(), deps);
    }
    let expected: BTreeMap<String, BTreeSet<String>> = [
        ("olmlint-base", &[][..]),
        ("olmlint-semantics", &["olmlint-base"][..]),
        ("olmlint-load", &["olmlint-base"][..]),
        (
            "olmlint-model",
            &["olmlint-base", "olmlint-load", "olmlint-semantics"][..],
        ),
        (
            "olmlint-check",
            &[
                "olmlint-base",
                "olmlint-load",
                "olmlint-model",
                "olmlint-semantics",
            ][..],
        ),
        (
            "olmlint-report",
            &[
                "olmlint-base",
                "olmlint-load",
                "olmlint-model",
                "olmlint-semantics",
            ][..],
        ),
        (
            "olmlint-server",
            &[
                "olmlint-base",
                "olmlint-load",
                "olmlint-model",
                "olmlint-semantics",
            ][..],
        ),
        (
            "olmlint",
            &[
                "olmlint-base",
                "olmlint-check",
                "olmlint-load",
                "olmlint-model",
                "olmlint-report",
                "olmlint-semantics",
                "olmlint-server",
            ][..],
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(layers, expected);
    let on_disk: BTreeSet<String> = crates().into_iter().map(|(n, _)| n).collect();
    assert_eq!(on_disk, expected.keys().cloned().collect::<BTreeSet<_>>());
}

#[test]
fn modules_of_each_crate_import_one_another_without_cycles() {
    let mut seen = 0;
    for (name, src) in crates() {
        let graph = imports(&src);
        seen += graph.len();
        let cycles: Vec<String> = graph
            .keys()
            .filter_map(|m| cycle_from(&graph, m))
            .map(|c| format!("{name}: {} → {}", c.join(" → "), c[0]))
            .collect();
        assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
    }
    assert!(seen > 50, "{seen} modules");
}

/// The semantic cores read no files and run no processes: they are given what they judge.
#[test]
fn semantics_does_no_io() {
    let src = root().join("crates/olmlint-semantics/src");
    for p in rust_files(&src) {
        let text = std::fs::read_to_string(&p).unwrap();
        // Unit tests may build their inputs however they like.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for io in ["std::fs", "std::process", "std::net", "std::env"] {
            assert!(!code.contains(io), "{} uses {io}", p.display());
        }
    }
}

/// The features of every dependency, as `cargo tree` resolves them for `args`: package id →
/// features.
fn resolved_features(args: &[&str]) -> BTreeMap<String, String> {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args(["tree", "--locked", "--prefix", "none", "-f", "{p}|{f}"])
        .args(args)
        .current_dir(root())
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim_end_matches(" (*)").split_once('|'))
        .map(|(p, f)| (p.to_string(), f.to_string()))
        .collect()
}

/// The binary alone (`cargo build --bin olmlint`, what maturin and `cargo install` build) and
/// the test build (every member with its dev-dependencies) turn on the same features in every
/// dependency they share. When they differ, the wheel test compiles every layer crate a second
/// time (70 s on a fresh clone: proptest turned on getrandom's `std` under tempfile); the fix is
/// a direct dependency with those features, as the workspace Cargo.toml's `getrandom` is.
#[test]
fn the_binary_and_the_tests_resolve_the_same_features() {
    let binary = resolved_features(&["-p", "olmlint", "-e", "normal,build"]);
    let tests = resolved_features(&["--workspace", "-e", "normal,build,dev"]);
    let differing: Vec<String> = binary
        .iter()
        .filter_map(|(p, f)| {
            let t = tests.get(p)?;
            (t != f).then(|| format!("{p}: [{f}] for the binary, [{t}] for the tests"))
        })
        .collect();
    assert!(differing.is_empty(), "{differing:#?}");
}
