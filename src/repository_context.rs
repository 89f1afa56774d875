//! The other operators of an operator repository as context (#46): a run that lints part of
//! community-operators-prod or certified-operators (a pull request's operator, one per-release
//! catalog) finds dependencies it cannot resolve in what it loaded (OLM507), and some of them
//! are operators of the same repository. Those few are found by name or API group
//! ([`olmlint_load::discover::siblings`]), and the run is repeated with them as `--context`
//! catalogs, so that the dependency is judged for real. The repository's other operators are
//! never all loaded: a pull request stays fast, and only a run that has such a dependency
//! pays for the second pass.

use olmlint_base::diag::Diagnostic;
use std::path::PathBuf;

/// The operator directories of the linted catalogs' (`roots`) repository that may provide
/// what the run's OLM507 findings (`diags`) say no loaded catalog has, other than the
/// `context` catalogs (none outside an operator repository).
pub(crate) fn providers(
    roots: &[PathBuf],
    context: &[PathBuf],
    diags: &[Diagnostic],
) -> Vec<PathBuf> {
    let wanted = wanted(diags);
    if wanted.packages.is_empty() && wanted.groups.is_empty() {
        return Vec::new();
    }
    let Some(repo) = roots
        .iter()
        .find_map(|r| olmlint_load::walk::operator_repository(r))
    else {
        return Vec::new();
    };
    let mut exclude: Vec<PathBuf> = roots
        .iter()
        .chain(context)
        .map(|p| olmlint_load::io::absolute(p))
        .collect();
    exclude.sort();
    olmlint_load::discover::siblings::providers(&repo, &wanted.packages, &wanted.groups, &exclude)
        .into_iter()
        // Within a linted catalog (the run lints `operators/` whole): nothing to add.
        .filter(|p| !exclude.iter().any(|e| p.starts_with(e)))
        .collect()
}

#[derive(Default, Debug, PartialEq)]
struct Wanted {
    packages: Vec<String>,
    groups: Vec<String>,
}

/// What the OLM507 findings name, read from the `provided:` entry their help suggests
/// (`provided: {packages: [NAME]}`, `provided: {gvks: [GROUP/VERSION/KIND]}`).
fn wanted(diags: &[Diagnostic]) -> Wanted {
    let mut w = Wanted::default();
    for d in diags.iter().filter(|d| d.rule == "OLM507") {
        let Some(help) = &d.help else { continue };
        if let Some(name) = between(help, "`provided: {packages: [", "]}`") {
            if !w.packages.iter().any(|p| p == name) {
                w.packages.push(name.to_string());
            }
        }
        if let Some(gvk) = between(help, "`provided: {gvks: [", "]}`") {
            if let Some((group, _)) = gvk.split_once('/') {
                if !w.groups.iter().any(|g| g == group) {
                    w.groups.push(group.to_string());
                }
            }
        }
    }
    w
}

fn between<'t>(text: &'t str, start: &str, end: &str) -> Option<&'t str> {
    let rest = &text[text.find(start)? + start.len()..];
    Some(&rest[..rest.find(end)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dependency_is_read_from_the_provided_entry_the_help_suggests() {
        let help = |entry: &str| {
            olmlint_base::diag::Diagnostic::new("OLM507", "x").help(format!(
                "… add {entry} to .olmlint.yaml. With `--closed-world` …"
            ))
        };
        let diags = vec![
            help("`provided: {packages: [ibm-common-service-operator]}`"),
            help("`provided: {gvks: [operator.ibm.com/v3/CommonService]}`"),
            help("a `provided:` entry"),
        ];
        assert_eq!(
            wanted(&diags),
            Wanted {
                packages: vec!["ibm-common-service-operator".into()],
                groups: vec!["operator.ibm.com".into()],
            }
        );
    }
}
