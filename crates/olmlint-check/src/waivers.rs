//! The pipelines' waivers: `tests[].ignore_operators` in an operator repository's
//! `config.yaml` removes the named static check for the operators whose directory name
//! matches (`apply_test_waivers.py`). A finding of the rule that stands for a waived check, in
//! a file of a waived operator, is left out: the pipeline does not run that check there.

use olmlint_base::diag::Diagnostic;
use olmlint_load::LoadedFile;
use olmlint_model::repository::RepositoryConfig;
use std::path::{Component, Path};

/// The operator-pipelines static check a rule reproduces, where one does.
pub fn pipeline_check(rule: &str) -> Option<&'static str> {
    Some(match rule {
        "OLM801" => "check_schema_operator_ci_config",
        "OLM802" => "check_replaces_availability",
        "OLM803" => "check_dangling_bundles",
        "OLM804" => "check_operator_version_directory_name",
        "OLM805" => "check_operator_name",
        "OLM807" => "check_api_version_constraints",
        _ => return None,
    })
}

/// What [`apply`] left out.
#[derive(Debug, Default)]
pub struct Waived {
    /// How many findings, and the (check, operator, pattern) of each waiver used.
    pub count: usize,
    pub used: Vec<(String, String, String)>,
}

/// Drops the findings the repository's waivers cover.
pub fn apply(
    diags: Vec<Diagnostic>,
    files: &[LoadedFile],
    repo: &RepositoryConfig,
) -> (Vec<Diagnostic>, Waived) {
    let mut waived = Waived::default();
    if repo.waivers.is_empty() {
        return (diags, waived);
    }
    let Some(operators) = files
        .get(repo.file)
        .and_then(|f| f.source.path.parent())
        .map(|r| olmlint_load::io::absolute(&r.join("operators")))
    else {
        return (diags, waived);
    };
    let kept = diags
        .into_iter()
        .filter(|d| {
            let Some(check) = pipeline_check(d.rule) else {
                return true;
            };
            let Some(operator) = d
                .location
                .and_then(|l| files.get(l.file))
                .and_then(|f| operator_of(&operators, &f.source.path))
            else {
                return true;
            };
            match repo.waiver(check, &operator) {
                Some(w) => {
                    waived.count += 1;
                    let used = (check.to_string(), operator, w.written.clone());
                    if !waived.used.contains(&used) {
                        waived.used.push(used);
                    }
                    false
                }
                None => true,
            }
        })
        .collect();
    (kept, waived)
}

/// The operator directory (`operators/<name>/…`) a file is in.
fn operator_of(operators: &Path, file: &Path) -> Option<String> {
    let abs = olmlint_load::io::absolute(file);
    match abs.strip_prefix(operators).ok()?.components().next()? {
        Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
        _ => None,
    }
}
