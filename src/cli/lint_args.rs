//! `olmlint lint`'s arguments (their own module: the command's stages in `lint` and the
//! change-scoped ones in `change` both read them).

use std::path::PathBuf;

use olmlint_report::Format;

use super::{parse_seconds, Color, FailOn};

#[derive(clap::Args, Debug)]
pub struct LintArgs {
    /// Catalog roots, sub-directories, single files or bundle directories.
    pub paths: Vec<PathBuf>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, short = 'f', value_enum, env = "OLMLINT_FORMAT")]
    pub format: Option<Format>,
    /// Write the report to this file instead of stdout; stderr then gets only the notes and
    /// the summary line (none with --quiet), not the findings.
    #[arg(long, short = 'o')]
    pub output_file: Option<PathBuf>,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value = "error", env = "OLMLINT_FAIL_ON")]
    pub fail_on: FailOn,
    /// Configuration file (default: .olmlint.yaml found upward from the first path).
    #[arg(long, short = 'c', env = "OLMLINT_CONFIG")]
    pub config: Option<PathBuf>,
    /// Ignore any .olmlint.yaml.
    #[arg(long)]
    pub no_config: bool,
    /// Turn a rule on at its default severity (repeatable).
    #[arg(long, value_name = "RULE")]
    pub enable: Vec<String>,
    /// Turn a rule off (repeatable).
    #[arg(long, value_name = "RULE")]
    pub disable: Vec<String>,
    /// The OLM generations the catalogs must work with (repeatable or comma-separated):
    /// `v0` (the default), `olmv1[=PROFILE]` (profiles: upstream, upstream-experimental,
    /// ocp-4.20, ocp-4.21, …). `olmv1` alone leaves out the rules about OLM v0's resolver
    /// and upgrade graph; `--target v0,olmv1` checks both. Overrides `targets:`.
    #[arg(long, value_name = "TARGET")]
    pub target: Vec<String>,
    /// OLM v1 feature gates over the profile's: `NAME=BOOL,…` (e.g.
    /// `SingleOwnNamespaceInstallSupport=true`).
    #[arg(long, value_name = "GATES")]
    pub olmv1_feature_gates: Option<String>,
    /// When to use colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Print counts of findings per rule and per package instead of the findings (human
    /// and concise formats).
    #[arg(long)]
    pub statistics: bool,
    /// Treat PATHs as changed files: lint the whole catalogs holding them, but report only
    /// findings in those files or about bundles they define (what pre-commit passes).
    #[arg(long)]
    pub only_files: bool,
    /// Lint the catalogs touched since a git ref, reporting only findings in changed files
    /// (e.g. `--changed-since origin/main` in a pull request).
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// With --changed-since: report only the findings the change introduced. A finding that
    /// also occurs in the catalog at REF (same rule, file, package, bundle, JSON pointer and
    /// text of its line; line numbers do not matter) is left out and counted in the summary.
    #[arg(long, requires = "changed_since")]
    pub only_new: bool,
    /// Do not report the findings listed in this findings baseline file (written by
    /// --write-baseline); its entries that no longer match a finding are reported (OLM010).
    #[arg(long, value_name = "FILE")]
    pub findings_baseline: Option<PathBuf>,
    /// Write every current finding to FILE as a findings baseline and exit 0: adopt olmlint on
    /// a catalog with history, then lint with --findings-baseline FILE.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff", "only_files", "changed_since", "findings_baseline"])]
    pub write_baseline: Option<PathBuf>,
    /// The previous version of the catalog: also check that upgrading from it is safe
    /// (OLM701–704). With --changed-since, the version at REF is the baseline by default.
    #[arg(long, value_name = "OLD_CATALOG")]
    pub baseline: Option<PathBuf>,
    /// The target cluster's properties and admin constraints (YAML/JSON, see rules/OLM720.md):
    /// turns on OLM720, which reports bundles that cannot run there. Not an upstream OLM feature.
    #[arg(long, value_name = "FILE")]
    pub cluster_properties: Option<PathBuf>,
    /// The loaded catalogs (with --context and `provided:`) are the only ones on the
    /// clusters: a dependency found in none of them is an error (OLM503), not a warning
    /// that another catalog provides it (OLM507). Also `closed-world: true` in .olmlint.yaml.
    #[arg(long)]
    pub closed_world: bool,
    /// A catalog dependencies may be satisfied from (repeatable): used as candidates for the
    /// installability checks, never linted. Earlier ones are preferred, after a bundle's own.
    #[arg(long, value_name = "PATH")]
    pub context: Vec<PathBuf>,
    /// Stop the checks after SECONDS and report what was not finished (OLM012); a run that
    /// has not ended 10 s after that exits with code 2.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Apply safe fixes in place (atomic writes), then report what remains.
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Print the fixes as a unified diff instead of writing them; exit 1 if there are any.
    #[arg(long)]
    pub diff: bool,
    /// With --fix or --diff, also apply fixes that change what OLM does (for example quoting a
    /// YAML 1.1 number: `4.20` was the number 4.2).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print no summary line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
