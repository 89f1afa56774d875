//! The template stage on a generated pipelines-layout repository: bytes → `operators/<op>/`
//! with a `ci.yaml` whose `fbc.catalog_mapping` names templates (some hostile: `..`,
//! absolute, duplicated), `catalog-templates/` holding basic and semver templates built from
//! fuzzed catalogs (or raw bytes, or links out), and `catalogs/vX.Y/<op>/` rendered catalogs
//! → `olmlint::lint::run` on the repository root → every report format.
//!
//! Checks: as for `lint` (locations, report oracles, no canary, nothing written outside).

use super::gen::{catalog, Input};
use super::sandbox::{lint_and_check, Sandbox};
use serde_json::json;

/// Template names ci.yaml may map: plain ones, and names that try to leave
/// `catalog-templates/`.
const TEMPLATE_NAMES: &[&str] = &[
    "v4.18.yaml",
    "semver.yaml",
    "basic.json",
    "../ci.yaml",
    "../../../outside/secret.txt",
    "/etc/hostname",
    "sub/../v4.18.yaml",
    "",
];

const RELEASES: &[&str] = &["v4.17", "v4.18", "v4.19", "4.18", "v4.18/../../outside"];

fn ci_yaml(input: &mut Input<'_>) -> String {
    let mapping: Vec<serde_json::Value> = (0..=input.below(4))
        .map(|_| {
            let kind = match input.below(4) {
                0 => "olm.template.basic".to_string(),
                1 => "olm.semver".to_string(),
                2 => "basic".to_string(),
                _ => input.name(),
            };
            json!({
                "template_name": TEMPLATE_NAMES[input.below(TEMPLATE_NAMES.len())],
                "type": kind,
                "catalog_names": (0..=input.below(3)).map(|_| RELEASES[input.below(RELEASES.len())]).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"fbc": {"enabled": input.below(5) != 0, "catalog_mapping": mapping}}).to_string()
}

fn template(input: &mut Input<'_>) -> Vec<u8> {
    match input.below(3) {
        0 => {
            let entries: Vec<serde_json::Value> = catalog(input)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            json!({"schema": "olm.template.basic", "entries": entries})
                .to_string()
                .into_bytes()
        }
        1 => {
            let bundles: Vec<serde_json::Value> = (0..=input.below(4))
                .map(|_| json!({"image": format!("quay.io/x/{}:v{}", input.name(), input.version())}))
                .collect();
            let channel = ["Stable", "Fast", "Candidate"][input.below(3)];
            json!({"schema": "olm.semver", "generateMajorChannels": input.below(2) == 0, channel: {"bundles": bundles}})
                .to_string()
                .into_bytes()
        }
        _ => (0..input.below(64)).map(|_| input.byte()).collect(),
    }
}

/// One input (the libFuzzer target `templates` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Some(sandbox) = Sandbox::new("repository") else {
        return;
    };
    // The first part generates the repository; the rest are planted entries as in `lint`.
    let mut parts = data.splitn(2, |&b| b == 0xfe);
    let mut input = Input::new(parts.next().unwrap_or_default());
    let op = sandbox.root.join("operators/op");
    let templates = op.join("catalog-templates");
    let _ = std::fs::create_dir_all(&templates);
    let _ = std::fs::write(op.join("ci.yaml"), ci_yaml(&mut input));
    for name in &TEMPLATE_NAMES[..3] {
        let _ = std::fs::write(templates.join(name), template(&mut input));
    }
    for release in &RELEASES[..3] {
        let dir = sandbox.root.join("catalogs").join(release).join("op");
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("catalog.json"), catalog(&mut input));
    }
    const NAMES: &[&str] = &[
        "operators/op/ci.yaml",
        "operators/op/catalog-templates/v4.18.yaml",
        "operators/op/catalog-templates",
        "catalogs/v4.18/op/catalog.json",
        "catalogs/v4.18/op",
        "config.yaml",
        ".olmlint.yaml",
        "operators/op/1.0.0/release-config.yaml",
    ];
    sandbox.entries(NAMES, parts.next().unwrap_or_default(), 8);
    lint_and_check(&sandbox.root, false, 4);
    sandbox.assert_outside_untouched();
}
