//! str → blang range parse, evaluation, normal form, rewrite suggestion.

use olmlint::semantics::{range, version};

const PROBES: [&str; 8] = [
    "0.0.0-0",
    "0.0.0",
    "1.0.0",
    "1.0.0-alpha",
    "1.2.3",
    "2.0.0",
    "10.0.0-rc.1",
    "18446744073709551615.0.0",
];

/// One input (the libFuzzer target `range` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let _ = version::parse_strict(s);
    let _ = version::parse_tolerant(s);
    if let Ok(r) = range::parse(s) {
        let set = r.intervals();
        let _ = set.to_string();
        for p in PROBES {
            let v = version::parse_strict(p).expect("probe");
            assert_eq!(r.contains(&v), set.contains(&v), "{s:?} on {p}");
            let _ = r.panics_on(&v);
        }
        for g in r.groups() {
            for c in g {
                assert_eq!(c.intervals().contains(&c.version), c.matches(&c.version));
            }
        }
        let _ = (r.is_exact_pin(), r.has_upper_bound(), r.is_empty());
        assert_eq!(set.complement().complement(), set);
    }
    if let Some(out) = range::suggest_rewrite(s) {
        assert!(range::parse(&out).is_ok(), "{s:?} -> {out:?}");
    }
}
