//! Differential test against libyaml (#26): opm reads YAML with go-yaml v2, a port of libyaml,
//! so every stream libyaml accepts olmlint must accept and decode to the same value, and every
//! stream it rejects olmlint must reject. libyaml here is PyYAML's `CParser` (the test installs
//! PyYAML with pip when it is missing, and fails when it cannot).
//!
//! Corpus: (a) every YAML file of ../shared/corpus, (b) real repository files that olmlint
//! used to reject (tests/data/libyaml/real, origin in its README), (c) generated documents:
//! quoted and plain multi-line scalars at every indentation, flow collections across lines,
//! comments, tabs, CRLF, document markers, anchors, tags, a BOM.
//!
//! Known, documented divergences are not generated (docs/yaml.md): opm's own document splitting
//! (content on a `---` line, `%YAML` directives, a leading `{` read as JSON), and the libyaml
//! checks saphyr lacks (control characters, U+2028 as a line break, anchor name characters).

use olmlint::load::tree::Value as Tree;
use olmlint::load::yaml::{parse_stream, resolve_plain};
use olmlint::load::Limits;
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// PyYAML with libyaml, installed with pip when missing.
fn ensure_pyyaml() {
    let probe = || {
        Command::new(python())
            .args([
                "-c",
                "import yaml, sys; sys.exit(0 if yaml.__with_libyaml__ else 3)",
            ])
            .status()
            .is_ok_and(|s| s.success())
    };
    if probe() {
        return;
    }
    let install = Command::new(python())
        .args(["-m", "pip", "install", "--quiet", "--user", "pyyaml"])
        .status();
    assert!(
        install.is_ok_and(|s| s.success()) && probe(),
        "tests/it/libyaml.rs needs python3 with PyYAML built on libyaml (`python3 -m pip install pyyaml`); installing it failed"
    );
}

/// libyaml's verdict on each file (see tests/libyaml/load.py).
fn libyaml(files: &[PathBuf]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/libyaml/load.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "load.py failed");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), files.len());
    lines
}

/// olmlint's reading: the non-null documents, or the first problem.
fn olmlint(path: &Path) -> Result<Vec<Value>, String> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    let (base, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (3, rest),
        None => (0, text.as_str()),
    };
    let mut problems = Vec::new();
    let docs = parse_stream(body, base, None, &Limits::default(), false, &mut problems);
    if let Some(p) = problems.first() {
        return Err(p.message.clone());
    }
    Ok(docs
        .iter()
        .filter_map(|d| d.root.as_ref())
        .filter_map(|r| r.to_json())
        .filter(|v| !v.is_null())
        .collect())
}

/// Whether olmlint's value `ol` is libyaml's `py` (plain scalars arrive as strings from
/// libyaml: olmlint's YAML 1.1 resolution of that string must give `ol`).
fn same(py: &Value, ol: &Value) -> bool {
    match (py, ol) {
        (Value::String(s), Value::String(o)) => s == o,
        (Value::String(s), other) => match (resolve_plain(s), other) {
            (Some(Tree::Null), Value::Null) => true,
            (Some(Tree::Bool(a)), Value::Bool(b)) => a == *b,
            (Some(Tree::Number { value, .. }), Value::Number(n)) => n
                .as_f64()
                .is_some_and(|x| x == value || (x.is_nan() && value.is_nan())),
            // JSON has no infinities or NaN: the tree's to_json writes null.
            (Some(Tree::Number { value, .. }), Value::Null) => !value.is_finite(),
            _ => false,
        },
        (Value::Object(m), _) if m.contains_key("$tagged") => !ol.is_array() && !ol.is_object(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(k, v)| {
                    b.get(k)
                        .or_else(|| b.get(&resolved_key(k)))
                        .is_some_and(|w| same(v, w))
                })
        }
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// A plain key as go-yaml resolves it and sigs.k8s.io/yaml turns it back into a string
/// (`n:` is the key "false" in YAML 1.1).
fn resolved_key(k: &str) -> String {
    match resolve_plain(k) {
        Some(Tree::Bool(b)) => b.to_string(),
        Some(Tree::Null) => "null".into(),
        Some(Tree::Number { value, .. }) if value.fract() == 0.0 && value.abs() < 1e15 => {
            format!("{}", value as i64)
        }
        Some(Tree::Number { value, .. }) => value.to_string(),
        _ => k.to_string(),
    }
}

/// Generated documents: libyaml's leniencies and rejections around indentation, quoting,
/// flow collections, comments, tabs, line breaks, markers, anchors and tags.
fn generated() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |name: String, text: String| out.push((name, text));
    for (qi, (open, close)) in [("'", "'"), ("\"", "\"")].into_iter().enumerate() {
        for key in [0usize, 2, 4] {
            for cont in 0..=key + 4 {
                for (bi, between) in ["\n", "\n\n", "\n \n", "\n\t"].into_iter().enumerate() {
                    let pad = " ".repeat(key);
                    let c = " ".repeat(cont);
                    add(
                        format!("quoted-{qi}-{key}-{cont}-{bi}"),
                        format!("top:\n{pad}  k: {open}x y{between}{c}z w{close}\n{pad}  n: 1\n"),
                    );
                    add(
                        format!("quoted-seq-{qi}-{key}-{cont}-{bi}"),
                        format!("top:\n{pad}- k: {open}x{between}{c}z{close}\n{pad}  n: 1\n"),
                    );
                    add(
                        format!("plain-{key}-{cont}-{bi}"),
                        format!("top:\n{pad}  k: x y{between}{c}z w\n{pad}  n: 1\n"),
                    );
                    add(
                        format!("flow-{key}-{cont}-{bi}"),
                        format!("top:\n{pad}  k: [a,{between}{c}b, {{c: d,{between}{c}e: f}}]\n{pad}  n: 1\n"),
                    );
                }
                // Escaped line breaks, a closing quote alone on a line, a quoted key.
                let pad = " ".repeat(key);
                let c = " ".repeat(cont);
                add(
                    format!("escaped-{key}-{cont}"),
                    format!("top:\n{pad}  k: \"x\\\n{c}y\"\n"),
                );
                add(
                    format!("close-{qi}-{key}-{cont}"),
                    format!("top:\n{pad}  k: {open}x\n{c}{close}\n"),
                );
                add(
                    format!("key-{qi}-{key}-{cont}"),
                    format!("top:\n{pad}  {open}a\n{c}b{close}: 1\n"),
                );
            }
        }
    }
    let fixed = [
        ("comment-after-quoted", "a: 'b'#c\nd: \"e\"#f\n"),
        ("comment-after-flow", "a: [b]#c\nd: {e: f}#g\n"),
        ("comment-after-header", "a: |#c\n  x\nb: >-#d\n  y\n"),
        ("comment-plain-hash", "a: b#c\nd: e #f\n"),
        ("comment-lines", "# a\na: b # c\n# d\n  # e\nf: g\n"),
        ("tab-after-colon", "a:\tb\nc:\t'd'\n- \n"),
        ("tab-after-colon-ok", "a:\tb\nc:\t'd'\n"),
        ("tab-indent", "a:\n\tb: c\n"),
        ("tab-in-value", "a: b\tc\nd: 'e\tf'\n"),
        ("markers", "---\na: b\n...\n---\nc: d\n"),
        ("marker-in-quoted", "a: 'x\n--- y'\n"),
        ("end-marker-in-quoted", "a: 'x\n... y'\n"),
        ("dots-in-quoted", "a: 'x\n...y'\n"),
        ("anchors", "a: &x {b: c}\nd: *x\ne: &y [1, 2]\nf: *y\n"),
        ("merge", "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n"),
        ("tags", "a: !!str 1\nb: !!int \"2\"\nc: !custom d\n"),
        ("bom", "\u{feff}a: b\n"),
        (
            "crlf",
            "a:\r\n  b: 'x\r\n  y'\r\n  c: |\r\n    l1\r\n    l2\r\n",
        ),
        (
            "block-scalars",
            "a: |\n  x\n\n  y\nb: >\n  x\n  y\n\n  z\nc: |2-\n    x\n   y\n",
        ),
        ("unterminated", "a: 'x\n"),
        ("bad-indent", "a:\n  b: 1\n c: 2\n"),
        ("mapping-in-plain", "a: b: c\n"),
        ("duplicate-keys", "a: 1\na: 2\n"),
        ("empty-values", "a:\nb: ~\nc: ''\n- \n"),
        ("empty-values-ok", "a:\nb: ~\nc: ''\n"),
        (
            "yaml11-scalars",
            "a: yes\nb: 1.10\nc: 010\nd: 0x1F\ne: .inf\nf: -.5\ng: 1_000\n",
        ),
        ("long-key", &"k".repeat(1100)),
        // Flow collections whose lines sit at or below the block indentation, or are
        // indented with tabs, where saphyr's block checks fire; plain scalars holding
        // quotes and brackets before them; block scalars holding brackets.
        ("flow-close-col0", "a:\n  b: [\n    1\n]\n"),
        ("flow-top-col0", "a: [\n1\n]\n"),
        (
            "flow-tabs",
            "a:\n  b: [1,\n\t2, {c: d,\n\t  e: f}]\n  g: 1\n",
        ),
        (
            "flow-after-apostrophe",
            "x: &a 1\ntop:\n  k: it's [x\n  m: [c,\nd]\n",
        ),
        (
            "flow-after-block-scalar",
            "x: &a 1\ntop:\n- |\n  a [ b\n- [c,\nd]\n",
        ),
        ("flow-anchored", "a:\n  b: &x [1,\n2]\n  c: *x\n"),
        ("flow-comment", "a:\n  b: [1, # ]\n2]\n"),
        (
            "flow-quoted-inside",
            "a:\n  b: {c: 'it''s [',\nd: \"]\\\"\"}\n",
        ),
        ("flow-then-bad-block", "a:\n  b: [1,\n2]\n c: 3\n"),
        // Quoted continuations indented with a tab and spaces, in documents that take
        // the saphyr path (anchors).
        (
            "quoted-tab-space-anchor",
            "x: &a 1\ntop:\n  k: \"x\n\t  y\"\n",
        ),
        // Characters libyaml's reader rejects anywhere in the text.
        ("control-bel", "a: b\u{7}c\n"),
        ("control-in-quoted", "a: \"b\u{1}\"\n"),
        ("control-del", "a: b\u{7f}\n"),
        ("control-c1", "a: b\u{80}c\n"),
        ("noncharacter", "a: b\u{ffff}\n"),
        ("printable-unicode", "a: b\u{a0}c\u{e000}\u{1f600}\n"),
        (
            "quoted-space-tab-anchor",
            "x: &a 1\ntop:\n  k: 'x\n  \ty'\n",
        ),
    ];
    for (name, text) in fixed {
        add(name.to_string(), text.to_string());
        add(
            format!("{name}-crlf"),
            text.replace("\r\n", "\n").replace('\n', "\r\n"),
        );
    }
    out
}

#[test]
fn olmlint_reads_yaml_like_libyaml() {
    ensure_pyyaml();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<(&str, Vec<PathBuf>)> = Vec::new();
    // (a) the shared corpus
    let mut corpus = Vec::new();
    let mut stack = vec![root.join("../shared/corpus")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                corpus.push(p);
            }
        }
    }
    corpus.sort();
    sources.push(("shared corpus", corpus));
    // (b) real repository files
    let mut real: Vec<PathBuf> = std::fs::read_dir(root.join("tests/data/libyaml/real"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    real.sort();
    assert!(real.len() >= 20, "{} real files", real.len());
    // Their CRLF forms too.
    let tmp = tempfile::tempdir().unwrap();
    let mut crlf = Vec::new();
    for p in &real {
        let text = std::fs::read_to_string(p).unwrap();
        let q = tmp
            .path()
            .join(format!("crlf-{}", p.file_name().unwrap().to_string_lossy()));
        std::fs::write(&q, text.replace('\n', "\r\n")).unwrap();
        crlf.push(q);
    }
    sources.push(("real repository files", real));
    sources.push(("real repository files, CRLF", crlf));
    // (c) generated
    let mut gen = Vec::new();
    for (name, text) in generated() {
        let p = tmp.path().join(format!("{name}.yaml"));
        std::fs::write(&p, text).unwrap();
        gen.push(p);
    }
    sources.push(("generated", gen));

    let mut failures = Vec::new();
    let mut report = Vec::new();
    for (label, files) in &sources {
        let files: Vec<PathBuf> = files
            .iter()
            .filter(|p| {
                // opm reads a file whose first non-blank character is `{` as JSON.
                let t = std::fs::read(p).unwrap_or_default();
                t.iter()
                    .find(|c| !c.is_ascii_whitespace())
                    .is_none_or(|&c| c != b'{')
            })
            .cloned()
            .collect();
        let verdicts = libyaml(&files);
        let (mut accepted, mut rejected) = (0, 0);
        for (path, lib) in files.iter().zip(verdicts) {
            let ours = olmlint(path);
            let lib_ok = lib["ok"].as_bool().unwrap();
            if lib_ok {
                accepted += 1;
            } else {
                rejected += 1;
            }
            match (&ours, lib_ok) {
                (Ok(docs), true) => {
                    if let Some(want) = lib["docs"].as_array() {
                        let good = want.len() == docs.len()
                            && want.iter().zip(docs).all(|(a, b)| same(a, b));
                        if !good {
                            failures.push(format!(
                                "{label}: {}: values differ\n  libyaml: {}\n  olmlint: {}",
                                path.display(),
                                lib["docs"],
                                Value::Array(docs.clone())
                            ));
                        }
                    }
                }
                (Err(e), true) => failures.push(format!(
                    "{label}: {}: libyaml accepts, olmlint rejects: {e}",
                    path.display()
                )),
                (Ok(_), false) => failures.push(format!(
                    "{label}: {}: libyaml rejects ({}), olmlint accepts",
                    path.display(),
                    lib["error"]
                )),
                (Err(_), false) => {}
            }
        }
        report.push(format!(
            "{label}: {} files, libyaml accepts {accepted}, rejects {rejected}",
            files.len()
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
