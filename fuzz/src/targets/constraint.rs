//! bytes → JSON tree (olmlint's spanned parser) → `olm.constraint` decode → conversion to a
//! resolver predicate, as `property::verdict` does, plus everything printed about it.

use olmlint::load::{json, Limits};
use olmlint::semantics::cel;
use olmlint::semantics::constraint::predicate::{convert, Facts, Pred};
use olmlint::semantics::constraint::{decode, property, theory};

fn atoms(p: &Pred) -> usize {
    match p {
        Pred::All(ps) | Pred::Any(ps) | Pred::Not(ps) => ps.iter().map(atoms).sum(),
        _ => 1,
    }
}

/// One input (the libFuzzer target `constraint` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut problems = Vec::new();
    let docs = json::parse_stream(&text, &Limits::default(), &mut problems);
    for doc in docs {
        let Some(value) = doc.root.as_ref() else {
            continue;
        };
        let d = decode(value);
        assert_eq!(d.size, value.canonical_json().len());
        // The first error is deterministic.
        let again = decode(value);
        assert_eq!(
            d.parse_error().map(|i| (&i.message, &i.pointer)),
            again.parse_error().map(|i| (&i.message, &i.pointer))
        );
        if let Some(root) = d.root.as_ref() {
            let _ = root.olm_string();
            assert!(root.max_depth() >= 1);
            let mut rules: Vec<String> = Vec::new();
            let mut compile = |r: &str| -> Result<usize, String> {
                match cel::compile(r) {
                    Ok(_) => {
                        rules.push(r.to_string());
                        Ok(rules.len() - 1)
                    }
                    Err(e) => Err(cel::render_cel_go(r, &e)),
                }
            };
            if d.parse_error().is_none() {
                if let Ok(pred) = convert(root, &mut compile) {
                    let _ = pred.describe();
                    let _ = pred.required_packages();
                    let _ = pred.required_gvks();
                    let _ = pred.matches(&Facts::default(), &|_| true);
                    // theory::satisfiable enumerates names × versions × 2^free atoms; keep
                    // it to small predicates (see fixtures/adversarial/README.md).
                    if atoms(&pred) <= 6 {
                        let _ = theory::satisfiable(&pred);
                        let _ = theory::minimal_conflict(&pred);
                    }
                }
            }
        }
        let mut compile2 = |r: &str| cel::compile(r).map(|_| 0).map_err(|e| e.len().to_string());
        let v = property::verdict("olm.constraint", value, &mut compile2);
        let _ = v.olm_error("olm.constraint");
        for ty in [
            "olm.package.required",
            "olm.gvk.required",
            "olm.label.required",
        ] {
            let v = property::verdict(ty, value, &mut compile2);
            let _ = v.olm_error(ty);
        }
    }
}
