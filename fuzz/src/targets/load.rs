//! bytes → `olmlint::load::parse_bytes` (UTF-8 check, JSON/YAML detection, document split,
//! YAML 1.1 resolution, limits), then everything later stages do with a tree: spans,
//! positions, scalar offsets, canonical JSON.

use olmlint::load::tree::{Node, Value};
use olmlint::load::{json, parse_bytes, scalar, Limits, Role};

fn depth(root: &Node) -> usize {
    let mut max = 0;
    let mut stack = vec![(root, 1usize)];
    while let Some((n, d)) = stack.pop() {
        max = max.max(d);
        match &n.value {
            Value::Seq(items) => stack.extend(items.iter().map(|c| (c, d + 1))),
            Value::Map(entries) => stack.extend(entries.iter().map(|e| (&e.value, d + 1))),
            _ => {}
        }
    }
    max
}

/// One input (the libFuzzer target `load` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    // Small alias budget so that alias-heavy inputs stay fast; the rest as in the binary.
    let limits = Limits {
        max_alias_nodes: 50_000,
        ..Limits::default()
    };
    let file = parse_bytes(
        "fuzz.yaml".into(),
        "fuzz.yaml".into(),
        Role::Fbc,
        data.to_vec(),
        &limits,
    );
    let text = file.source.text.as_str();
    let len = text.len();
    for p in &file.problems {
        assert!(p.span.start() <= p.span.end());
        let _ = file.source.position(p.span.start());
        let _ = file.source.position(p.span.end());
    }
    for doc in &file.docs {
        assert!(doc.span.end() <= len, "document span past the end");
        let _ = file.source.position(doc.span.start());
        let Some(root) = &doc.root else { continue };
        root.walk(|n| {
            assert!(n.span.start() <= n.span.end());
            assert!(
                n.span.end() <= len,
                "node span {:?} past the end ({len})",
                n.span
            );
            let _ = file.source.position(n.span.end());
            if let Some(s) = n.as_str() {
                for k in [0, s.len() / 2, s.len()] {
                    let at = scalar::file_offset(text, n, k);
                    assert!(at <= len);
                }
            }
            if let Some(entries) = n.as_map() {
                for e in entries {
                    assert!(e.key_span.end() <= len);
                }
            }
        });
        // Canonical JSON is JSON: serde accepts it (within its recursion limit), and it is a
        // fixed point of olmlint's own JSON parser.
        let canonical = root.canonical_json();
        if depth(root) < 120 {
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&canonical) {
                panic!("canonical JSON rejected by serde_json: {e}: {canonical}");
            }
        }
        let mut problems = Vec::new();
        let again = json::parse_stream(&canonical, &limits, &mut problems);
        if problems.is_empty() && matches!(root.value, Value::Map(_) | Value::Seq(_)) {
            let again = again
                .first()
                .and_then(|d| d.root.as_ref())
                .map(Node::canonical_json);
            assert_eq!(again.as_deref(), Some(canonical.as_str()));
        }
        let _ = root.at_pointer("/properties/0/value");
    }
}
