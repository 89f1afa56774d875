//! Property tests: blang evaluation agrees with the exact normal form, the interval
//! algebra is consistent, and no input makes the parsers panic.

use olmlint::semantics::range::{self, IntervalSet};
use olmlint::semantics::version;
use proptest::prelude::*;
use semver::Version;
use std::cmp::Ordering;

fn number() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 0u64..3, 1 => Just(u64::MAX), 1 => Just(u64::MAX - 1)]
}

fn identifier() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "0", "1", "2", "10", "a", "alpha", "rc", "0a", "-", "z",
    ])
    .prop_map(str::to_string)
}

/// Version text from a small pool, so that ranges and candidates collide often.
fn version_text() -> impl Strategy<Value = String> {
    (
        number(),
        number(),
        number(),
        prop::collection::vec(identifier(), 0..3),
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

/// Candidate versions: pool versions and their immediate successors.
fn version() -> impl Strategy<Value = Version> {
    (version_text(), any::<bool>()).prop_map(|(s, next)| {
        let v = version::parse_strict(&s).unwrap_or_else(|e| panic!("{s}: {e}"));
        match next {
            true => version::successor(&v).unwrap_or(v),
            false => v,
        }
    })
}

/// Versions right around a bound, built without `version::successor`.
fn neighbours(v: &Version) -> Vec<Version> {
    let core = format!("{}.{}.{}", v.major, v.minor, v.patch);
    let mut texts = vec![core.clone()];
    if v.pre.is_empty() {
        texts.extend([
            format!("{core}-0"),
            format!("{core}-z"),
            format!("{core}-0.0"),
        ]);
        let nexts = [
            v.patch
                .checked_add(1)
                .map(|p| format!("{}.{}.{p}", v.major, v.minor)),
            v.minor.checked_add(1).map(|m| format!("{}.{m}.0", v.major)),
            v.major.checked_add(1).map(|m| format!("{m}.0.0")),
        ];
        for next in nexts.into_iter().flatten() {
            texts.extend([format!("{next}-0"), format!("{next}-0.0"), next]);
        }
    } else {
        let pre = format!("{core}-{}", v.pre);
        texts.extend([
            format!("{pre}.0"),
            format!("{pre}.1"),
            format!("{pre}.a"),
            format!("{pre}.0.0"),
            pre,
        ]);
    }
    texts
        .iter()
        .filter_map(|t| version::parse_strict(t).ok())
        .collect()
}

fn token() -> impl Strategy<Value = String> {
    let op = prop::sample::select(vec![
        "", "=", "==", "!", "!=", ">", ">=", "<", "<=", "> ", ">= ", "~", "^",
    ]);
    let wildcard = prop::sample::select(vec!["1.x", "0.x", "1.2.x", "1.x.x", "2.0.x"]);
    prop_oneof![
        6 => (op.clone(), version_text()).prop_map(|(o, v)| format!("{o}{v}")),
        2 => (op, wildcard).prop_map(|(o, w)| format!("{o}{w}")),
        1 => prop::sample::select(vec!["|", "!", "-", "x"]).prop_map(str::to_string),
    ]
}

/// Ranges from the blang grammar, with the occasional empty (nil) group.
fn range_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::collection::vec(token(), 0..4), 1..4).prop_map(|groups| {
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

/// Canonical form: non-empty, sorted, with a non-empty gap between neighbours.
fn assert_canonical(s: &IntervalSet) {
    let items = s.intervals();
    for it in items {
        assert!(s.contains(it.lower()), "{s}");
        if let Some(h) = it.upper() {
            assert_eq!(version::cmp(it.lower(), h), Ordering::Less, "{s}");
            assert!(!s.contains(h), "{s}");
        }
    }
    for w in items.windows(2) {
        if let [a, b] = w {
            let h = a
                .upper()
                .unwrap_or_else(|| panic!("unbounded before {b}: {s}"));
            assert_eq!(version::cmp(h, b.lower()), Ordering::Less, "{s}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn contains_agrees_with_normal_form(r in range_text(), vs in prop::collection::vec(version(), 1..16)) {
        if let Ok(range) = range::parse(&r) {
            let set = range.intervals();
            assert_canonical(&set);
            let near = range.groups().iter().flatten().flat_map(|c| neighbours(&c.version));
            for v in vs.iter().cloned().chain(near) {
                prop_assert_eq!(range.contains(&v), set.contains(&v), "{} / {} / {}", r, v, set);
            }
            prop_assert_eq!(range.is_empty(), set.is_empty());
            let nil_quirk = range.quirks().iter().any(|q| matches!(q, range::Quirk::NilGroup { .. }));
            prop_assert_eq!(range.has_nil_group(), nil_quirk);
        }
    }

    #[test]
    fn algebra(a in interval_set(), b in interval_set(), vs in prop::collection::vec(version(), 1..16)) {
        let i = a.intersection(&b);
        let u = a.union(&b);
        let ca = a.complement();
        for s in [&i, &u, &ca] {
            assert_canonical(s);
        }
        prop_assert!(i.is_subset_of(&a) && i.is_subset_of(&b));
        prop_assert!(a.is_subset_of(&u) && b.is_subset_of(&u));
        prop_assert!(a.intersection(&ca).is_empty());
        prop_assert!(a.union(&ca).is_full());
        prop_assert_eq!(&ca.complement(), &a);
        prop_assert_eq!(a.is_subset_of(&b), i == a);
        prop_assert_eq!(a.intersects(&b), !i.is_empty());
        prop_assert_eq!(&a.intersection(&b), &b.intersection(&a));
        for v in &vs {
            prop_assert_eq!(i.contains(v), a.contains(v) && b.contains(v));
            prop_assert_eq!(u.contains(v), a.contains(v) || b.contains(v));
            prop_assert_eq!(ca.contains(v), !a.contains(v));
            if a.is_subset_of(&b) && a.contains(v) {
                prop_assert!(b.contains(v));
            }
        }
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        let _ = range::parse(&s).map(|r| (r.intervals().to_string(), r.quirks().len(), r.is_exact_pin(), r.has_upper_bound()));
        if let Some(out) = range::suggest_rewrite(&s) {
            prop_assert!(range::parse(&out).is_ok(), "{:?} -> {:?}", s, out);
        }
        let _ = version::parse_tolerant(&s);
        let _ = version::parse_strict(&s);
    }

    #[test]
    fn range_like_strings_never_panic(s in "[ 0-9xX*.|<>=!~^v,&+-]{0,24}") {
        if let Ok(r) = range::parse(&s) {
            let set = r.intervals();
            assert_canonical(&set);
        }
        if let Some(out) = range::suggest_rewrite(&s) {
            prop_assert!(range::parse(&out).is_ok(), "{:?} -> {:?}", s, out);
            prop_assert_ne!(&out, &s);
        }
    }

    #[test]
    fn strict_parse_matches_semver_crate(s in "[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9]{1,2}(-[0-9a-z.-]{0,6})?(\\+[0-9a-z.-]{0,4})?") {
        let ours = version::parse_strict(&s);
        let theirs = Version::parse(&s);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?} {:?}", ours, theirs);
        if let (Ok(a), Ok(b)) = (ours, theirs) {
            prop_assert_eq!(a, b);
        }
    }
}
