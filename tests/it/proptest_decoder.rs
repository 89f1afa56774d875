//! Property tests for the `olm.constraint` decoder over trees from olmlint's own JSON parser,
//! for canonical JSON, and round trips of the range algebra that tests/it/proptest_range.rs does
//! not cover (rendering normal forms back to blang ranges, rewrite fixed points, display
//! injectivity, De Morgan/distributivity, version successors).

use olmlint::load::tree::{Node, Value};
use olmlint::load::{json, Limits};
use olmlint::semantics::constraint::{decode, CompoundKind, Constraint, IssueKind, Kind};
use olmlint::semantics::range::{self, IntervalSet};
use olmlint::semantics::version;
use proptest::prelude::*;
use semver::Version;
use std::cmp::Ordering;
use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------
// JSON-ish trees.

#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    /// Written as an integer.
    Int(i32),
    /// Written as `n / 4` with a fraction (exact in binary, printed alike by Go and serde).
    Quarter(i32),
    Str(String),
    Arr(Vec<J>),
    /// Duplicate keys allowed.
    Obj(Vec<(String, J)>),
}

/// Field names of every constraint struct, in random ASCII case, plus unknown keys.
fn key() -> impl Strategy<Value = String> {
    let known = prop::sample::select(vec![
        "failureMessage",
        "gvk",
        "package",
        "cel",
        "all",
        "any",
        "not",
        "group",
        "version",
        "kind",
        "packageName",
        "versionRange",
        "rule",
        "constraints",
    ]);
    prop_oneof![
        6 => known.clone().prop_map(str::to_string),
        2 => (known, any::<u32>()).prop_map(|(k, flips)| flip_case(k, flips)),
        1 => prop::sample::select(vec!["message", "name", "extra", "", "~", "a/b", "zzz"])
            .prop_map(str::to_string),
    ]
}

fn flip_case(s: &str, flips: u32) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if flips & (1 << (i % 32)) != 0 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Strings: range- and CEL-like values, and arbitrary text without U+2028/U+2029, `\b` and
/// `\f` (which Go and serde_json escape differently).
fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            ">=1.0.0", "<2.0.0 || >3.0.0", "^1.2", "1.x", "", "g", "v1", "Kind",
            "true", "properties.exists(p, p.type == \"olm.gvk\")", "1 +", "\"x\" == 'x'",
        ])
        .prop_map(str::to_string),
        2 => "[a-zA-Z0-9 ./<>=|&\"\\\\~^*-]{0,12}",
        1 => "\\PC{0,8}",
        1 => prop::collection::vec(prop::sample::select(vec!['\n', '\r', '\t', '\u{1}', '\u{1f}', '\u{7f}', 'é', '😀']), 0..4)
            .prop_map(|cs| cs.into_iter().collect()),
    ]
    .prop_filter("U+2028/2029", |s: &String| !s.contains(['\u{2028}', '\u{2029}']))
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        1 => (-1000i32..1000).prop_map(J::Int),
        1 => (-1000i32..1000).prop_filter("fraction", |q| q % 4 != 0).prop_map(J::Quarter),
        3 => string().prop_map(J::Str),
    ]
}

fn tree() -> impl Strategy<Value = J> {
    leaf().prop_recursive(7, 96, 5, |inner| {
        prop_oneof![
            1 => prop::collection::vec(inner.clone(), 0..4).prop_map(J::Arr),
            3 => prop::collection::vec((key(), inner), 0..5).prop_map(J::Obj),
        ]
    })
}

/// Constraint-shaped trees: mostly the right structure, with the occasional wrong type,
/// unknown key, repeated kind or missing list.
fn constraint_tree() -> impl Strategy<Value = J> {
    let obj = |pairs: Vec<(&str, J)>| {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let gvk = (string(), string(), string()).prop_map(move |(g, v, k)| {
        J::Obj(vec![(
            "gvk".into(),
            J::Obj(vec![
                ("group".into(), J::Str(g)),
                ("version".into(), J::Str(v)),
                ("kind".into(), J::Str(k)),
            ]),
        )])
    });
    let package = (string(), string()).prop_map(move |(n, r)| {
        J::Obj(vec![(
            "package".into(),
            J::Obj(vec![
                ("packageName".into(), J::Str(n)),
                ("versionRange".into(), J::Str(r)),
            ]),
        )])
    });
    let cel = string().prop_map(move |r| {
        J::Obj(vec![(
            "cel".into(),
            J::Obj(vec![("rule".into(), J::Str(r))]),
        )])
    });
    let atom = prop_oneof![gvk, package, cel, leaf(), tree()];
    atom.prop_recursive(6, 64, 4, move |inner| {
        (
            prop::sample::select(vec!["all", "any", "not", "ALL", "Any"]),
            prop::collection::vec(inner.clone(), 0..4),
            prop::option::of(string()),
            prop::option::of((key(), inner)),
        )
            .prop_map(move |(op, children, message, extra)| {
                let mut pairs = vec![(op, obj(vec![("constraints", J::Arr(children))]))];
                if let Some(m) = message {
                    pairs.push(("failureMessage", J::Str(m)));
                }
                let mut o = obj(pairs);
                if let (J::Obj(entries), Some((k, v))) = (&mut o, extra) {
                    entries.push((k, v));
                }
                o
            })
    })
}

fn render(j: &J, ws: bool, out: &mut String) {
    let sp = if ws { " " } else { "" };
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => write!(out, "{i}").unwrap(),
        J::Quarter(q) => write!(out, "{}", f64::from(*q) / 4.0).unwrap(),
        J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
        J::Arr(items) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    out.push_str(sp);
                }
                render(it, ws, out);
            }
            out.push(']');
        }
        J::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    out.push_str(sp);
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                out.push_str(sp);
                render(v, ws, out);
            }
            out.push('}');
        }
    }
}

fn text_of(j: &J, ws: bool) -> String {
    let mut s = String::new();
    render(j, ws, &mut s);
    s
}

/// The single value of `text`, parsed by olmlint's spanned JSON parser.
fn parse(text: &str) -> Node {
    let mut problems = Vec::new();
    let mut docs = json::parse_stream(text, &Limits::default(), &mut problems);
    assert!(problems.is_empty(), "{text}: {problems:?}");
    assert_eq!(docs.len(), 1, "{text}");
    docs.remove(0).root.expect("a value")
}

/// (message, pointer) of the error OLM would return.
fn first_error(v: &Node) -> Option<(String, String)> {
    decode(v)
        .parse_error()
        .map(|i| (i.message.clone(), i.pointer.clone()))
}

fn kind_name(c: &Constraint<'_>) -> &'static str {
    match &c.kind {
        Kind::Gvk { .. } => "gvk",
        Kind::Package { .. } => "package",
        Kind::Cel { .. } => "cel",
        Kind::Compound { op, .. } => op.key(),
        Kind::Empty => "empty",
    }
}

/// The decoded constraint tree as comparable text (no spans).
fn shape(c: &Constraint<'_>) -> String {
    let fm = c.failure_message.and_then(Node::as_str).unwrap_or("");
    match &c.kind {
        Kind::Gvk {
            group,
            version,
            kind,
        } => format!("gvk({group:?},{version:?},{kind:?};{fm:?})"),
        Kind::Package { name, range, .. } => format!("package({name:?},{range:?};{fm:?})"),
        Kind::Cel { rule, .. } => format!("cel({rule:?};{fm:?})"),
        Kind::Compound { op, children, .. } => format!(
            "{}[{}];{fm:?};ignored={:?}",
            op.key(),
            children.iter().map(shape).collect::<Vec<_>>().join(","),
            c.ignored
        ),
        Kind::Empty => format!("empty({fm:?})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    /// Arbitrary text: the parser and the decoder never panic, whatever they get.
    #[test]
    fn arbitrary_text_never_panics(s in prop_oneof![
        any::<String>(),
        "[\\[\\]{}:,\" a-z0-9.\\\\-]{0,64}",
        tree().prop_map(|j| text_of(&j, false)).prop_flat_map(|t| {
            let n = t.len();
            (Just(t), 0..=n, "[\\[\\]{}:,\"\\\\]{0,2}")
        }).prop_map(|(t, at, junk)| {
            let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
            format!("{}{junk}{}", &t[..at], &t[at..])
        }),
    ]) {
        let mut problems = Vec::new();
        for doc in json::parse_stream(&s, &Limits::default(), &mut problems) {
            if let Some(v) = &doc.root {
                let d = decode(v);
                if let Some(root) = &d.root {
                    let _ = root.olm_string();
                    let _ = root.max_depth();
                }
            }
        }
    }

    /// Decoding is deterministic, measures exactly `Node::canonical_json`, and sees what
    /// OLM sees: the canonical re-encoding (keys sorted, last duplicate kept) decodes to the
    /// same first error and the same constraint tree.
    #[test]
    fn decode_agrees_with_its_canonical_form(j in prop_oneof![tree(), constraint_tree()], ws in any::<bool>()) {
        let text = text_of(&j, ws);
        let v = parse(&text);
        let d = decode(&v);
        let canonical = v.canonical_json();
        prop_assert_eq!(d.size, canonical.len());
        prop_assert_eq!(first_error(&v), first_error(&v));
        let c = parse(&canonical);
        prop_assert_eq!(&c.canonical_json(), &canonical, "canonical JSON is a fixed point");
        let dc = decode(&c);
        prop_assert_eq!(first_error(&v), first_error(&c), "{}", text);
        prop_assert_eq!(d.root.as_ref().map(shape), dc.root.as_ref().map(shape), "{}", text);
        // Issues other than duplicates survive canonicalisation.
        let non_dup = |d: &olmlint::semantics::constraint::Decoded<'_>| {
            d.issues
                .iter()
                .filter(|i| !matches!(i.kind, IssueKind::DuplicateField { .. }))
                .map(|i| (i.kind.clone(), i.pointer.clone(), i.message.clone()))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(non_dup(&d), non_dup(&dc), "{}", text);
    }

    /// Every issue points into the document: its JSON pointer resolves, and errors on a
    /// value carry that value's span.
    #[test]
    fn issues_point_at_their_nodes(j in prop_oneof![tree(), constraint_tree()]) {
        let text = text_of(&j, true);
        let v = parse(&text);
        let d = decode(&v);
        for issue in &d.issues {
            prop_assert!(issue.span.end() <= text.len());
            let target = v.at_pointer(&issue.pointer);
            prop_assert!(target.is_some(), "{:?} in {}", issue, text);
            if matches!(issue.kind, IssueKind::TypeMismatch | IssueKind::MultipleKinds { .. }) {
                prop_assert_eq!(target.map(|n| n.span), Some(issue.span), "{:?}", issue);
            }
        }
        if let Some(root) = &d.root {
            let mut ok = true;
            root.walk(&mut |c| {
                ok &= v.at_pointer(&c.pointer).is_some_and(|n| std::ptr::eq(n, c.node));
            });
            prop_assert!(ok, "a constraint's pointer does not designate its node: {}", text);
        }
    }

    /// `Node::canonical_json` is Go's `json.Marshal` of the decoded `any`: here checked
    /// against serde_json (sorted `Map`, last duplicate wins) on values both print alike.
    #[test]
    fn canonical_json_matches_serde_json(j in tree(), ws in any::<bool>()) {
        let text = text_of(&j, ws);
        let ours = parse(&text).canonical_json();
        let theirs = serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
        prop_assert_eq!(ours, theirs);
    }

    /// The resolution groups dependency values by `canonical_hash` + `canonical_eq` instead
    /// of rendering canonical JSON: both must agree with equality of the rendered strings,
    /// for a value and its canonical re-encoding (keys reordered, duplicates dropped) and for
    /// unrelated values; `canonical_len` is the rendered length.
    #[test]
    fn structural_equality_and_hash_agree_with_canonical_json(j in tree(), k in tree(), ws in any::<bool>()) {
        let hash = |n: &Node| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            n.canonical_hash(&mut h);
            std::hash::Hasher::finish(&h)
        };
        let v = parse(&text_of(&j, ws));
        let c = parse(&v.canonical_json());
        let w = parse(&text_of(&k, !ws));
        prop_assert!(v.canonical_eq(&c) && c.canonical_eq(&v));
        prop_assert_eq!(hash(&v), hash(&c));
        let same = v.canonical_json() == w.canonical_json();
        prop_assert_eq!(v.canonical_eq(&w), same);
        prop_assert_eq!(w.canonical_eq(&v), same);
        if same {
            prop_assert_eq!(hash(&v), hash(&w));
        }
        prop_assert_eq!(v.canonical_len(), v.canonical_json().len());
    }
}

// Go's decoder records errors in document order (keys sorted, as the registry re-encodes
// values): `saveError` keeps the first type error or unknown field it meets, depth-first.
// olmlint's decoder finds an object's unknown keys before descending, then sorts its issues
// into that order (src/semantics/constraint/decode.rs `document_order`). Regression of a bug
// these property tests found.
#[test]
fn first_error_follows_document_order() {
    let v = parse(r#"{"all":{"constraints":[false]},"~~~":1}"#);
    assert_eq!(
        first_error(&v).map(|e| e.0).as_deref(),
        Some("json: cannot unmarshal bool into Go struct field Constraint.all.constraints of type constraints.Constraint")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    /// The first error only depends on what comes before it in OLM's (sorted) order: a
    /// later unknown key at the root does not change it.
    #[test]
    fn first_error_is_stable_under_later_keys(j in constraint_tree()) {
        let J::Obj(mut entries) = j else { return Ok(()) };
        let before = text_of(&J::Obj(entries.clone()), false);
        let v = parse(&before);
        let Some(err) = first_error(&v) else { return Ok(()) };
        if decode(&v).issues.iter().any(|i| matches!(i.kind, IssueKind::TooLarge | IssueKind::MaxDepth)) {
            return Ok(());
        }
        entries.push(("~~~".into(), J::Int(1)));
        let after = parse(&text_of(&J::Obj(entries), false));
        prop_assert_eq!(first_error(&after), Some(err));
    }

}

// ---------------------------------------------------------------------------------------
// Well-formed constraints round-trip through JSON and the decoder.

#[derive(Clone, Debug, PartialEq)]
enum Ast {
    Gvk(String, String, String),
    Package(String, String),
    Cel(String),
    Compound(CompoundKind, Vec<Ast>),
}

fn ast() -> impl Strategy<Value = Ast> {
    let s = || "[a-z0-9.<>= |-]{0,8}";
    let atom = prop_oneof![
        (s(), s(), s()).prop_map(|(g, v, k)| Ast::Gvk(g, v, k)),
        (s(), s()).prop_map(|(n, r)| Ast::Package(n, r)),
        s().prop_map(Ast::Cel),
    ];
    atom.prop_recursive(5, 48, 4, |inner| {
        (
            prop::sample::select(vec![
                CompoundKind::All,
                CompoundKind::Any,
                CompoundKind::Not,
            ]),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(op, children)| Ast::Compound(op, children))
    })
}

/// JSON for an AST, every key in a case chosen by `flips`, keys in a rotated order.
fn ast_json(a: &Ast, flips: u32, rotate: usize) -> J {
    let k = |name: &str| flip_case(name, flips.rotate_left(name.len() as u32));
    let mut pairs: Vec<(String, J)> = match a {
        Ast::Gvk(g, v, kind) => vec![(
            k("gvk"),
            J::Obj(vec![
                (k("group"), J::Str(g.clone())),
                (k("version"), J::Str(v.clone())),
                (k("kind"), J::Str(kind.clone())),
            ]),
        )],
        Ast::Package(n, r) => vec![(
            k("package"),
            J::Obj(vec![
                (k("packageName"), J::Str(n.clone())),
                (k("versionRange"), J::Str(r.clone())),
            ]),
        )],
        Ast::Cel(r) => vec![(k("cel"), J::Obj(vec![(k("rule"), J::Str(r.clone()))]))],
        Ast::Compound(op, children) => vec![(
            k(op.key()),
            J::Obj(vec![(
                k("constraints"),
                J::Arr(
                    children
                        .iter()
                        .map(|c| ast_json(c, flips.rotate_left(3), rotate + 1))
                        .collect(),
                ),
            )]),
        )],
    };
    pairs.push((k("failureMessage"), J::Str(format!("m{rotate}"))));
    let n = pairs.len();
    pairs.rotate_left(rotate % n);
    J::Obj(pairs)
}

fn to_ast(c: &Constraint<'_>) -> Option<Ast> {
    Some(match &c.kind {
        Kind::Gvk {
            group,
            version,
            kind,
        } => Ast::Gvk(group.clone(), version.clone(), kind.clone()),
        Kind::Package { name, range, .. } => Ast::Package(name.clone(), range.clone()),
        Kind::Cel { rule, .. } => Ast::Cel(rule.clone()),
        Kind::Compound { op, children, .. } => {
            Ast::Compound(*op, children.iter().map(to_ast).collect::<Option<_>>()?)
        }
        Kind::Empty => return None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn well_formed_constraints_round_trip(a in ast(), flips in any::<u32>(), rotate in 0usize..3) {
        let text = text_of(&ast_json(&a, flips, rotate), true);
        let v = parse(&text);
        let d = decode(&v);
        prop_assert!(d.parse_error().is_none(), "{:?}: {}", d.parse_error(), text);
        prop_assert!(d.issues.iter().all(|i| matches!(i.kind, IssueKind::KeyCase { .. })), "{:?}", d.issues);
        let root = d.root.as_ref().unwrap();
        prop_assert_eq!(to_ast(root), Some(a), "{}", text);
        // Depths count from 1 and grow by one per compound level.
        let mut ok = true;
        root.walk(&mut |c| {
            if let Kind::Compound { children, .. } = &c.kind {
                ok &= children.iter().all(|ch| ch.depth == c.depth + 1);
            }
        });
        prop_assert!(ok && root.depth == 1);
        prop_assert_eq!(kind_name(root), match &to_ast(root).unwrap() {
            Ast::Gvk(..) => "gvk",
            Ast::Package(..) => "package",
            Ast::Cel(..) => "cel",
            Ast::Compound(op, _) => op.key(),
        });
    }
}

// BUG: Go's encoding/json matches struct fields with Unicode simple case folding
// (`foldName`: U+212A KELVIN SIGN folds with `k`, U+017F LATIN SMALL LETTER LONG S with
// `s`), so OLM accepts `"pacKage"` (Kelvin sign) as `package`; olmlint compares with
// `eq_ignore_ascii_case` (src/semantics/constraint/decode.rs `Decoder::fields`, also
// src/load/tree.rs `Node::get_folded`) and reports an unknown field OLM does not reject.
#[test]
#[ignore = "BUG: Go folds U+212A/U+017F in field names; olmlint does not"]
fn go_unicode_case_folding_of_field_names() {
    let v = parse(
        "{\"pac\u{212A}age\":{\"pac\u{212A}ageName\":\"foo\",\"ver\u{17F}ionRange\":\">=1.0.0\"}}",
    );
    let d = decode(&v);
    assert_eq!(first_error(&v), None, "{:?}", d.issues);
    assert!(matches!(
        d.root.as_ref().map(|c| &c.kind),
        Some(Kind::Package { name, range, .. }) if name == "foo" && range == ">=1.0.0"
    ));
}

/// Deep but legal constraints decode on an ordinary test-thread stack... within limits: the
/// decoder recurses per constraint level (olmlint runs it on 64 MiB worker threads).
#[test]
fn deepest_legal_constraint_decodes_on_a_big_stack() {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut s = r#"{"gvk":{"group":"g","version":"v","kind":"k"}}"#.to_string();
            for _ in 0..3332 {
                s = format!(r#"{{"all":{{"constraints":[{s}]}}}}"#);
            }
            let mut problems = Vec::new();
            let limits = Limits {
                max_depth: 20_000,
                ..Limits::default()
            };
            let docs = json::parse_stream(&s, &limits, &mut problems);
            let v = docs[0].root.as_ref().unwrap();
            let d = decode(v);
            assert!(d.parse_error().is_none());
            assert_eq!(d.root.as_ref().unwrap().max_depth(), 3333);
            assert!(!d.root.as_ref().unwrap().olm_string().is_empty());
        })
        .unwrap()
        .join()
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// Range algebra round trips.

fn number() -> impl Strategy<Value = u64> {
    prop_oneof![6 => 0u64..3, 1 => Just(u64::MAX), 1 => Just(u64::MAX - 1)]
}

fn version_text() -> impl Strategy<Value = String> {
    (
        number(),
        number(),
        number(),
        prop::collection::vec(
            prop::sample::select(vec!["0", "1", "10", "a", "rc", "0a", "-", "z"]),
            0..3,
        ),
        prop::option::of(prop::sample::select(vec!["b", "build.1", "01"])),
    )
        .prop_map(|(a, b, c, pre, build)| {
            let mut s = format!("{a}.{b}.{c}");
            if !pre.is_empty() {
                s = format!("{s}-{}", pre.join("."));
            }
            if let Some(b) = build {
                s = format!("{s}+{b}");
            }
            s
        })
}

fn version() -> impl Strategy<Value = Version> {
    version_text().prop_map(|s| version::parse_strict(&s).unwrap_or_else(|e| panic!("{s}: {e}")))
}

fn range_text() -> impl Strategy<Value = String> {
    let op = prop::sample::select(vec!["", "=", "!=", ">", ">=", "<", "<=", "~", "^", "!"]);
    let token = prop_oneof![
        6 => (op.clone(), version_text()).prop_map(|(o, v)| format!("{o}{v}")),
        2 => (op, prop::sample::select(vec!["1.x", "0.x", "1.2.x", "1.x.x"])).prop_map(|(o, w)| format!("{o}{w}")),
        1 => prop::sample::select(vec!["|", "-", "x"]).prop_map(str::to_string),
    ];
    prop::collection::vec(prop::collection::vec(token, 0..4), 1..4).prop_map(|groups| {
        groups
            .iter()
            .map(|g| g.join(" "))
            .collect::<Vec<_>>()
            .join(" || ")
    })
}

fn interval_set() -> impl Strategy<Value = IntervalSet> {
    range_text().prop_map(|r| range::parse(&r).map(|r| r.intervals()).unwrap_or_default())
}

/// The blang range whose normal form is `s`: `>=lo <hi` per interval, OR-ed.
fn render_set(s: &IntervalSet) -> String {
    if s.is_empty() {
        return "<0.0.0-0".into();
    }
    s.intervals()
        .iter()
        .map(|i| match i.upper() {
            Some(h) => format!(">={} <{h}", i.lower()),
            None => format!(">={}", i.lower()),
        })
        .collect::<Vec<_>>()
        .join(" || ")
}

fn probes(s: &IntervalSet) -> Vec<Version> {
    let mut out = Vec::new();
    for i in s.intervals() {
        out.push(i.lower().clone());
        out.extend(version::successor(i.lower()));
        if let Some(h) = i.upper() {
            out.push(h.clone());
            out.extend(version::successor(h));
            out.extend(version::natural_predecessor(h));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Normal form → blang text → parse gives the same set (the form is expressible).
    #[test]
    fn normal_form_renders_back(a in interval_set()) {
        let text = render_set(&a);
        let back = range::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        prop_assert_eq!(back.intervals(), a, "{}", text);
        prop_assert!(back.quirks().is_empty(), "{}", text);
    }

    /// Rebuilding a range from its expanded comparators keeps its meaning.
    #[test]
    fn comparators_render_back(r in range_text(), vs in prop::collection::vec(version(), 1..8)) {
        let Ok(parsed) = range::parse(&r) else { return Ok(()) };
        if parsed.has_nil_group() {
            return Ok(());
        }
        let text = parsed
            .groups()
            .iter()
            .map(|g| g.iter().map(|c| format!("{}{}", c.op.as_str(), c.version)).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" || ");
        let back = range::parse(&text).unwrap_or_else(|e| panic!("{r} -> {text}: {e}"));
        prop_assert_eq!(back.intervals(), parsed.intervals(), "{} -> {}", r, text);
        for v in vs.iter().chain(&probes(&parsed.intervals())) {
            prop_assert_eq!(back.contains(v), parsed.contains(v), "{} -> {} at {}", r, text, v);
        }
    }

    /// A suggested rewrite is final: olmlint has nothing more to suggest about it.
    #[test]
    fn rewrites_are_fixed_points(s in prop_oneof![
        range_text(),
        "[ 0-9xX*.|<>=!~^v,&+-]{0,24}",
    ]) {
        if let Some(out) = range::suggest_rewrite(&s) {
            prop_assert_eq!(range::suggest_rewrite(&out), None, "{:?} -> {:?}", s, out);
        }
    }

    /// Display is a faithful name for a set: equal texts iff equal sets.
    #[test]
    fn display_is_injective(a in interval_set(), b in interval_set()) {
        prop_assert_eq!(a.to_string() == b.to_string(), a == b, "{} / {}", a, b);
    }

    #[test]
    fn de_morgan_and_distributivity(a in interval_set(), b in interval_set(), c in interval_set()) {
        prop_assert_eq!(a.union(&b).complement(), a.complement().intersection(&b.complement()));
        prop_assert_eq!(a.intersection(&b).complement(), a.complement().union(&b.complement()));
        prop_assert_eq!(a.intersection(&b.union(&c)), a.intersection(&b).union(&a.intersection(&c)));
        prop_assert_eq!(a.union(&b.intersection(&c)), a.union(&b).intersection(&a.union(&c)));
        prop_assert_eq!(a.union(&b).union(&c), a.union(&b.union(&c)));
        prop_assert_eq!(a.intersection(&a), a.clone());
        prop_assert!(IntervalSet::empty().is_subset_of(&a) && a.is_subset_of(&IntervalSet::full()));
    }

    /// `successor` is the immediate successor (nothing lies strictly between), and
    /// `natural_predecessor` inverts it; printed versions parse back to themselves.
    #[test]
    fn successor_is_immediate(v in version(), ws in prop::collection::vec(version(), 1..16)) {
        prop_assert_eq!(version::parse_strict(&v.to_string()), Ok(v.clone()));
        let Some(next) = version::successor(&v) else {
            prop_assert_eq!((v.major, v.minor, v.patch), (u64::MAX, u64::MAX, u64::MAX));
            return Ok(());
        };
        prop_assert_eq!(version::cmp(&v, &next), Ordering::Less);
        let near = version::successor(&next).into_iter();
        for w in ws.iter().cloned().chain(near).chain([version::without_build(&v)]) {
            let between = version::cmp(&v, &w) == Ordering::Less && version::cmp(&w, &next) == Ordering::Less;
            prop_assert!(!between, "{} < {} < {}", v, w, next);
        }
        if let Some(p) = version::natural_predecessor(&next) {
            prop_assert_eq!(version::cmp(&p, &v), Ordering::Equal, "{} -> {} -> {}", v, next, p);
        }
        // The point set {v} is exactly [v, successor(v)).
        let point = IntervalSet::from_comparator(range::Op::Eq, &v);
        prop_assert!(point.contains(&v) && !point.contains(&next));
    }
}

#[test]
fn json_values_of_every_kind_decode_to_type_errors() {
    for (text, kind) in [
        ("\"x\"", "string"),
        ("1", "number"),
        ("true", "bool"),
        ("[]", "array"),
    ] {
        let v = parse(text);
        assert!(matches!(
            v.value,
            Value::String(_) | Value::Number { .. } | Value::Bool(_) | Value::Seq(_)
        ));
        assert_eq!(
            first_error(&v).map(|e| e.0),
            Some(format!(
                "json: cannot unmarshal {kind} into Go value of type constraints.Constraint"
            ))
        );
    }
}
