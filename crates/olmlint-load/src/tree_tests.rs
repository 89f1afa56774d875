//! Tests of the base crate's tree ([`olmlint_base::tree`]) that need a parser to build their
//! input: they live with the parser.

use crate::tree::{has_repeated_key, Node};

fn yaml(text: &str) -> Node {
    let limits = crate::Limits::default();
    let mut problems = Vec::new();
    let docs = crate::yaml::parse_stream(text, 0, None, &limits, false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    docs.into_iter().next().and_then(|d| d.root).unwrap()
}

#[test]
fn repeated_keys_are_found_in_small_large_and_sorted_mappings() {
    let entries = |n: &Node| n.as_map().unwrap().to_vec();
    assert!(!has_repeated_key(&entries(&yaml("{a: 1, b: 2, c: 3}"))));
    assert!(!has_repeated_key(&entries(&yaml("{c: 1, a: 2, b: 3}"))));
    assert!(has_repeated_key(&entries(&yaml("{b: 1, a: 2, b: 3}"))));
    assert!(!has_repeated_key(&entries(&yaml("{a: 1, A: 2}"))));
    let many: Vec<String> = (0..40).map(|i| format!("k{}: {i}", 39 - i)).collect();
    assert!(!has_repeated_key(&entries(&yaml(&format!(
        "{{{}}}",
        many.join(", ")
    )))));
    let dup = format!("{{{}, k7: x}}", many.join(", "));
    assert!(has_repeated_key(&entries(&yaml(&dup))));
}

#[test]
fn same_as_written_ignores_only_positions() {
    let a = yaml("{gvk: {group: a, kind: K}, n: 1}");
    assert!(a.same_as_written(&yaml("{ gvk:  {group: a,  kind: K},   n: 1 }")));
    // Key order, duplicates, key case, scalar style and number spelling all count.
    for other in [
        "{n: 1, gvk: {group: a, kind: K}}",
        "{gvk: {group: a, kind: K}, gvk: {group: a, kind: K}, n: 1}",
        "{GVK: {group: a, kind: K}, n: 1}",
        "{gvk: {group: 'a', kind: K}, n: 1}",
        "{gvk: {group: a, kind: K}, n: 1.0}",
    ] {
        assert!(!a.same_as_written(&yaml(other)), "{other}");
    }
}
