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

/// Per dependency property: OLM's parse error, conversion error, full error and measured size.
#[test]
fn constraint_verdicts_match() {
    use olmlint::load::{parse_bytes, Limits, Role};
    use olmlint::semantics::cel;
    use olmlint::semantics::constraint::property::{is_dependency, verdict};
    let mut compared = 0;
    for (name, catalog, up) in cases() {
        let bytes = std::fs::read(&catalog).unwrap();
        let file = parse_bytes(
            catalog.display().to_string(),
            catalog.clone(),
            Role::Fbc,
            bytes,
            &Limits::default(),
        );
        for want in up["constraints"].as_array().unwrap() {
            let bundle = want["bundle"].as_str().unwrap();
            let index = want["index"].as_u64().unwrap() as usize;
            let doc = file
                .docs
                .iter()
                .filter_map(|d| d.root.as_ref())
                .find(|d| {
                    d.get("schema").and_then(|s| s.as_str()) == Some("olm.bundle")
                        && d.get("name").and_then(|s| s.as_str()) == Some(bundle)
                })
                .unwrap_or_else(|| panic!("{name}: bundle {bundle}"));
            let prop = &doc.get("properties").unwrap().as_seq().unwrap()[index];
            let ty = prop.get("type").unwrap().as_str().unwrap();
            assert!(is_dependency(ty));
            let value = prop.get("value").unwrap();
            let v = verdict(ty, value, &mut |rule| {
                cel::compile(rule)
                    .map(|_| 0)
                    .map_err(|e| cel::render_cel_go(rule, &e))
            });
            let ctx = format!("{name} {bundle}[{index}] {ty}");
            assert_eq!(
                v.value_bytes as u64,
                want["value_bytes"].as_u64().unwrap(),
                "{ctx} size"
            );
            let (got_parse, got_convert) = (v.parse_error.clone(), v.convert_error.clone());
            let up_parse = want["parse_error"].as_str().map(str::to_string);
            let up_convert = want["convert_error"].as_str().map(str::to_string);
            // Go names anonymous legacy structs differently across versions; compare the head.
            let norm = |s: Option<String>| {
                s.map(|s| s.replace("GVKRequired", "").replace("property.", ""))
            };
            assert_eq!(norm(got_parse), norm(up_parse), "{ctx} parse");
            assert_eq!(got_convert, up_convert, "{ctx} convert");
            assert_eq!(
                v.olm_error(ty),
                want["olm_error"].as_str().map(str::to_string),
                "{ctx} olm_error"
            );
            if let Some(p) = want["predicate"]
                .as_str()
                .filter(|p| !p.contains("...[truncated"))
            {
                assert_eq!(v.label, p, "{ctx} predicate");
            }
            compared += 1;
        }
    }
    if compared > 0 {
        assert!(compared >= 40, "{compared}");
    }
}

/// Per bundle: installable from the case's catalog alone, as OLM's resolver decided.
#[test]
fn installability_verdicts_match() {
    let mut compared = 0;
    for (name, catalog, up) in cases() {
        let Some(expect) = up["installable_any_channel"].as_object() else {
            continue;
        };
        if expect.is_empty() {
            continue;
        }
        let out = run(&Options {
            paths: vec![catalog],
            no_config: true,
            ..Default::default()
        })
        .unwrap();
        for (bundle, installable) in expect {
            let flagged = out
                .diags
                .iter()
                .flat_map(|d| d.verdicts())
                .filter(|v| v.0 == "OLM501" && v.2 == Some(bundle.as_str()))
                .count();
            let installable = installable.as_bool().unwrap();
            assert_eq!(
                flagged,
                usize::from(!installable),
                "{name}: {bundle} upstream installable={installable}; olmlint: {:#?}",
                out.diags
                    .iter()
                    .filter(|d| d.bundle.as_deref() == Some(bundle.as_str()))
                    .map(|d| (d.rule, &d.message))
                    .collect::<Vec<_>>()
            );
            compared += 1;
        }
    }
    assert!(compared == 0 || compared >= 40, "{compared}");
}
