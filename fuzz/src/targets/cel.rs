//! str → CEL compile in OLM's environment (pre-scan limits, parser, type checker), and
//! evaluation of whatever compiles over a few properties with a small budget.

use olmlint::semantics::cel::{self, Property};
use serde_json::json;

/// One input (the libFuzzer target `cel` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Ok(rule) = std::str::from_utf8(data) else {
        return;
    };
    match cel::compile(rule) {
        Ok(program) => {
            let _ = cel::property_type_literals(&program);
            let props = vec![
                Property {
                    ty: "olm.package".into(),
                    value: json!({"packageName": "foo", "version": "1.2.3"}),
                },
                Property {
                    ty: "olm.gvk".into(),
                    value: json!({"group": "g", "version": "v1", "kind": "K"}),
                },
                Property {
                    ty: "certified".into(),
                    value: json!(true),
                },
                Property {
                    ty: "olm.maxOpenShiftVersion".into(),
                    value: json!(4.12),
                },
            ];
            let _ = cel::eval(&program, &props, 20_000);
            let _ = cel::eval(&program, &[], 20_000);
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                assert!(e.span.start <= e.span.end);
            }
            let _ = cel::render_cel_go(rule, &errors);
        }
    }
}
