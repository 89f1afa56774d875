//! OLM v1 readiness (OLM75x, on with `--target olmv1`): will operator-controller accept,
//! install and upgrade these bundles, under the target's profile (its feature gates)?
//! One module per concern; each reads the model and pushes diagnostics.

mod acceptance;
mod dependencies;
mod names;
mod picks;
mod ranking;
mod unseen;
mod upgrades;

use super::Ctx;
use crate::config::Config;
use olmlint_base::diag::Diagnostic;

/// The rule family `--target olmv1` turns on (with OLM711, the dependency check).
pub const RULES: &[&str] = &[
    "OLM711", "OLM750", "OLM751", "OLM752", "OLM753", "OLM754", "OLM755", "OLM756", "OLM757",
    "OLM758", "OLM759",
];

/// Rules about OLM v0's own resolver, dependency semantics and upgrade graph: left out when
/// the targets do not include v0 (OLM v1 resolves no dependencies, and its upgrade edges
/// are its own, OLM75x).
const V0_ONLY_FAMILIES: &[&str] = &["OLM2", "OLM3", "OLM4", "OLM5", "OLM70"];
const V0_ONLY: &[&str] = &["OLM111", "OLM602", "OLM603", "OLM720"];

/// Whether `rule` is about OLM v0 only (left out under `--target olmv1` without `v0`).
pub fn v0_only(rule: &str) -> bool {
    V0_ONLY.contains(&rule)
        || (V0_ONLY_FAMILIES.iter().any(|f| rule.starts_with(f)) && rule != "OLM305")
}

/// Turn the rule families of the configured targets on and off.
pub fn apply_targets(config: &mut Config) {
    if config.targets.olmv1.is_some() {
        for rule in RULES {
            config.enable_unless_off(rule);
        }
    }
    if !config.targets.v0 {
        for rule in olmlint_base::rules::all() {
            if v0_only(rule.id) {
                config.set_enabled(rule.id, false);
            }
        }
    }
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(profile) = ctx.config.targets.olmv1.as_ref() else {
        return;
    };
    let packages = picks::Packages::of(ctx, profile.gates.bundle_release_support);
    let mut accepted = Vec::new();
    acceptance::check(ctx, profile, &mut accepted);
    out.extend(
        accepted
            .into_iter()
            .map(|d| picks::by_default_pick(&packages, d)),
    );
    unseen::check(ctx, profile, out);
    names::check(ctx, out);
    dependencies::check(ctx, &packages, out);
    ranking::check(ctx, &packages, out);
    upgrades::check(ctx, &packages, out);
}
