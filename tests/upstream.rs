//! The hand-made catalogs of ../shared/upstream-cases with the verdicts the upstream Go code
//! gave: olmlint's verdicts must equal them.

use olmlint::diag::Severity;
use olmlint::lint::{run, Options};
use std::path::PathBuf;

pub fn cases() -> Vec<(String, PathBuf, serde_json::Value)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/upstream-cases");
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(&root) else {
        return out;
    };
    for e in rd.flatten() {
        let dir = e.path();
        let Ok(text) = std::fs::read_to_string(dir.join("upstream.json")) else {
            continue;
        };
        let catalog = ["catalog.yaml", "catalog.json"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.exists())
            .unwrap();
        out.push((
            e.file_name().to_string_lossy().into_owned(),
            catalog,
            serde_json::from_str(&text).unwrap(),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn opm_validate_verdicts_match() {
    let cases = cases();
    if cases.is_empty() {
        eprintln!("skipped: ../shared/upstream-cases not present");
        return;
    }
    for (name, catalog, up) in cases {
        let out = run(&Options {
            paths: vec![catalog],
            no_config: true,
            ..Default::default()
        })
        .unwrap();
        let opm_errors: Vec<_> = out
            .diags
            .iter()
            .filter(|d| {
                d.severity == Severity::Error
                    && (d.rule.starts_with("OLM0")
                        || d.rule.starts_with("OLM1")
                        || d.rule == "OLM305")
            })
            .collect();
        let ok = up["validate"]["ok"].as_bool().unwrap();
        assert_eq!(
            ok,
            opm_errors.is_empty(),
            "{name}: opm ok={ok}, olmlint: {opm_errors:#?}"
        );
        if let Some(err) = up["validate"]["error"].as_str() {
            // Every leaf of opm's error tree is reported, with the same text.
            for leaf in err
                .lines()
                .map(|l| l.trim_start_matches(['│', '├', '└', '─', ' ']))
                .filter(|l| !l.starts_with("invalid "))
            {
                assert!(
                    opm_errors.iter().any(|d| d.message.contains(leaf)),
                    "{name}: no finding says {leaf:?}: {opm_errors:#?}"
                );
            }
            if !err.contains('\n') {
                assert!(
                    opm_errors.iter().any(|d| d.message == err),
                    "{name}: {err:?} vs {opm_errors:#?}"
                );
            }
        }
    }
}
