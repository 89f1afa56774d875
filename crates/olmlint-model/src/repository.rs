//! An operator repository's own configuration: `config.yaml` at the root of
//! community-operators-prod, certified-operators and redhat-marketplace-operators, as
//! operator-pipelines read it (`operatorcert/operator_repo/core.py` `Repo.config`,
//! `entrypoints/apply_test_waivers.py`, `static_tests/common/operator_catalogs.py`).
//!
//! - `organization` names the pipeline that judges the repository's pull requests, and so
//!   the static-test suites that run: `community-operators` → community + common,
//!   `certified-operators` and `redhat-marketplace` → isv + common (the pipelines route each
//!   repository to its trigger; the organization names it one to one).
//! - `tests[].ignore_operators` waives the named check for operators whose **directory** name
//!   matches a regular expression the way Python's `re.match` does (anchored at the start, not
//!   at the end: `^postgresql` waives `postgresql-operator`).
//! - `allowed_bundle_registries` lists the prefixes a catalog's `olm.bundle` images must start
//!   with (`check_bundle_images_in_fbc`: a plain string prefix).

use olmlint_base::tree::{Node, Span};

/// The static-test suite a repository's pull requests run besides the common one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// `operatorcert.static_tests.community` (community-operators-prod).
    Community,
    /// `operatorcert.static_tests.isv` (certified-operators, redhat-marketplace-operators).
    Isv,
}

impl Suite {
    pub fn name(self) -> &'static str {
        match self {
            Suite::Community => "community",
            Suite::Isv => "isv",
        }
    }
}

/// One `tests[].ignore_operators` pattern.
#[derive(Debug, Clone)]
pub struct Waiver {
    /// The check it waives (`check_operator_name`).
    pub check: String,
    /// The pattern as written.
    pub written: String,
    /// Anchored at the start, as `re.match` matches.
    pattern: regex::Regex,
    pub span: Span,
}

/// The parsed `config.yaml`.
#[derive(Debug, Clone, Default)]
pub struct RepositoryConfig {
    /// The file's index among the run's files (findings and related locations point into it).
    pub file: usize,
    pub organization: Option<(String, Span)>,
    pub waivers: Vec<Waiver>,
    pub allowed_bundle_registries: Vec<(String, Span)>,
}

/// Patterns read at most: a real file has a dozen.
const MAX_WAIVERS: usize = 1_000;
/// A pattern's compiled size at most (a hostile one cannot make matching slow).
const MAX_PATTERN_SIZE: usize = 1 << 16;

impl RepositoryConfig {
    /// Reads the document `root` of `config.yaml` (file `file`). What the pipelines would not
    /// read (another shape, a pattern that is no regular expression) is left out.
    pub fn read(file: usize, root: Option<&Node>) -> Self {
        let mut config = RepositoryConfig {
            file,
            ..Default::default()
        };
        let Some(root) = root else { return config };
        config.organization = root
            .get("organization")
            .and_then(|n| Some((n.as_str()?.to_string(), n.span)));
        for test in root.get("tests").and_then(Node::as_seq).unwrap_or_default() {
            let Some(check) = test.get("name").and_then(Node::as_str) else {
                continue;
            };
            let patterns = test
                .get("ignore_operators")
                .and_then(Node::as_seq)
                .unwrap_or_default();
            for p in patterns {
                if config.waivers.len() >= MAX_WAIVERS {
                    break;
                }
                let Some(written) = p.as_str() else { continue };
                let Ok(pattern) = regex::RegexBuilder::new(&format!("^(?:{written})"))
                    .size_limit(MAX_PATTERN_SIZE)
                    .build()
                else {
                    continue;
                };
                config.waivers.push(Waiver {
                    check: check.to_string(),
                    written: written.to_string(),
                    pattern,
                    span: p.span,
                });
            }
        }
        config.allowed_bundle_registries = root
            .get("allowed_bundle_registries")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|n| Some((n.as_str()?.to_string(), n.span)))
            .collect();
        config
    }

    /// The suite the repository's pipeline runs besides the common one.
    pub fn suite(&self) -> Option<Suite> {
        match self.organization.as_ref().map(|(o, _)| o.as_str()) {
            Some("community-operators") => Some(Suite::Community),
            Some("certified-operators" | "redhat-marketplace") => Some(Suite::Isv),
            _ => None,
        }
    }

    /// The pattern that waives `check` for the operator in directory `operator`.
    pub fn waiver(&self, check: &str, operator: &str) -> Option<&Waiver> {
        self.waivers
            .iter()
            .find(|w| w.check == check && w.pattern.is_match(operator))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> RepositoryConfig {
        let file = olmlint_load::parse_bytes(
            "config.yaml".into(),
            "config.yaml".into(),
            olmlint_load::Role::Config,
            text.as_bytes().to_vec(),
            &olmlint_load::Limits::default(),
        );
        RepositoryConfig::read(0, file.docs.first().and_then(|d| d.root.as_ref()))
    }

    #[test]
    fn organization_names_the_suite_and_waivers_match_as_re_match_does() {
        let c = read("organization: community-operators\ntests:\n  - name: check_operator_name\n    ignore_operators:\n      - ^postgresql\n      - ibm-block\n      - '(unclosed'\nallowed_bundle_registries:\n  - quay.io/community-operator-pipeline-prod/\n");
        assert_eq!(c.suite(), Some(Suite::Community));
        // Anchored at the start only.
        assert!(c
            .waiver("check_operator_name", "postgresql-operator")
            .is_some());
        assert!(c.waiver("check_operator_name", "ibm-block-csi").is_some());
        assert!(c.waiver("check_operator_name", "my-postgresql").is_none());
        assert!(c.waiver("check_dangling_bundles", "postgresql").is_none());
        // A pattern that is no regular expression waives nothing.
        assert_eq!(c.waivers.len(), 2);
        assert_eq!(c.allowed_bundle_registries.len(), 1);
        assert_eq!(
            read("organization: redhat-marketplace\n").suite(),
            Some(Suite::Isv)
        );
        assert_eq!(read("organization: someone\n").suite(), None);
        assert_eq!(read("- a\n").suite(), None);
    }
}
