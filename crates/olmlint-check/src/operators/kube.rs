//! OLM807 min-kube-version: `spec.minKubeVersion` against the OpenShift releases a bundle
//! goes to, and what the pipelines' `check_api_version_constraints` fails
//! (`operatorcert/static_tests/community/bundle.py`).
//!
//! - A bundle of the pipelines' index builds targets the releases its
//!   `com.redhat.openshift.versions` selects (every indexed release without it).
//! - An FBC operator's bundle (`fbc.enabled` in `ci.yaml`) goes only to the catalogs
//!   `fbc.catalog_mapping` maps (`catalogs/v4.18`, …): the annotation plays no part, and the
//!   pipelines skip `check_api_version_constraints` for it. Which bundles each catalog gets is
//!   up to the templates, so a conflict there is a warning.
//! - In the community suite (`organization: community-operators` in the repository's
//!   `config.yaml`) a new bundle that sets `minKubeVersion` without the annotation fails
//!   ("minKubeVersion is set to … but com.redhat.openshift.versions is not set"), whatever its
//!   value, and so does a `minKubeVersion` python-semver cannot parse (`v1.25.0`).

use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::Node;
use olmlint_model::operators::{DirBundle, OperatorDir, OPENSHIFT_VERSIONS};
use olmlint_model::repository::Suite;
use olmlint_semantics::openshift::{self, Release, Selection};

/// What the bundle is judged against.
pub(super) struct Judged<'o, 'a> {
    pub operator: Option<&'o OperatorDir<'a>>,
    /// The parsed annotation (`None`: absent, or unreadable and reported as OLM806).
    pub selection: Option<Selection>,
    /// What a pull request adds, in a repository whose pipeline runs this suite: how its
    /// failures are reported ([`crate::Ctx::as_added`]).
    pub added: Option<(Suite, Severity)>,
    /// What a pull request adds (or would add: the newest bundle, in a whole run).
    pub new: bool,
    /// The suite of the repository's pipeline, if known.
    pub suite: Option<Suite>,
}

/// OLM807 for one bundle.
pub(super) fn min_kube_version(
    b: &DirBundle<'_>,
    judged: &Judged<'_, '_>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(mk) = b.min_kube_version.filter(|m| !m.value.trim().is_empty()) else {
        return;
    };
    let d = |msg: String| {
        Diagnostic::new("OLM807", msg)
            .at(b.csv.file, mk.node.span)
            .pointer("/spec/minKubeVersion")
            .package(Some(b.package()))
            .bundle(Some(b.name()))
    };
    // OLM reads it with blang's ParseTolerant (`v1.25` and `1.25` are 1.25.0).
    let min = match olmlint_semantics::version::parse_tolerant(mk.value) {
        Ok(v) => v,
        Err(e) => {
            out.push(d(format!("spec.minKubeVersion {:?} is not a version: {e}", mk.value)).help("Write the lowest Kubernetes version the operator runs on, such as `1.25.0`: OLM cannot compare this value with the cluster's version and does not install the bundle (\"CSV version parsing error\"), and operator-pipelines fail it."));
            return;
        }
    };
    let fbc = judged.operator.is_some_and(|o| o.fbc);
    if let (Some((Suite::Community, severity)), false) = (judged.added, fbc) {
        if let Some(diag) = community_suite(b, mk.value, &min, &d) {
            out.push(diag.severity(severity));
            return;
        }
    }
    // An FBC operator's released bundles are judged in the rendered catalogs that hold them;
    // the bundle directory of what a pull request adds, against where ci.yaml maps it.
    if fbc && !judged.new {
        return;
    }
    let (targets, how, severity) = if fbc {
        let mapped = judged.operator.map(mapped_releases).unwrap_or_default();
        // Where its templates would release it: the templates decide which bundles each
        // catalog gets, so a warning.
        (
            mapped,
            "the catalogs ci.yaml's fbc.catalog_mapping releases the operator to".to_string(),
            Severity::Warning,
        )
    } else {
        match (judged.selection, b.openshift) {
            // The certified pipeline does not check this (check_api_version_constraints is
            // the community suite's): OLM refuses the install there, the pull request passes.
            (Some(sel), Some(o)) if judged.suite == Some(Suite::Isv) => (sel.indexed(), format!("which {OPENSHIFT_VERSIONS} {:?} targets", o.value), Severity::Warning),
            (Some(sel), Some(o)) => (sel.indexed(), format!("which {OPENSHIFT_VERSIONS} {:?} targets", o.value), Severity::Error),
            // Without the annotation the targeting is implicit (the organisation's indexes):
            // a warning.
            (_, None) => (
                openshift::indexed_releases(),
                format!("whose indexes the bundle is added to ({OPENSHIFT_VERSIONS} is not set: every index)"),
                Severity::Warning,
            ),
            (None, Some(_)) => return,
        }
    };
    let conflicts: Vec<(Release, Release)> = targets
        .into_iter()
        .filter_map(|o| Some((o, openshift::kubernetes_of(o)?)))
        .filter(|(_, k)| (u64::from(k.0), u64::from(k.1)) < (min.major, min.minor))
        .collect();
    let (Some(first), Some(last)) = (conflicts.first(), conflicts.last()) else {
        return;
    };
    let releases: Vec<Release> = conflicts.iter().map(|(o, _)| *o).collect();
    let lowest_ok = openshift::KUBERNETES
        .iter()
        .find(|(_, k)| (u64::from(k.0), u64::from(k.1)) >= (min.major, min.minor))
        .map(|(o, _)| *o);
    let diag = d(format!(
        "spec.minKubeVersion {} is above the Kubernetes of OpenShift {} ({}), {how}: OLM refuses to install the bundle there",
        mk.value,
        openshift::describe(&releases),
        if first.1 == last.1 {
            format!("Kubernetes {}.{}", first.1 .0, first.1 .1)
        } else {
            format!("Kubernetes {}.{}–{}.{}", first.1 .0, first.1 .1, last.1 .0, last.1 .1)
        },
    ))
    .severity(severity);
    let help = match (fbc, lowest_ok) {
        (true, Some(o)) => format!("Map the operator's templates to catalogs from v{}.{} on (Kubernetes {}.{}) in ci.yaml if the operator needs Kubernetes {}.{}; lower minKubeVersion if it really runs on the older releases.", o.0, o.1, min.major, min.minor, min.major, min.minor),
        (false, Some(o)) => format!("Start the annotation at v{}.{} (Kubernetes {}.{}) if the operator needs Kubernetes {}.{}; lower minKubeVersion if it really runs on the older releases. {}", o.0, o.1, min.major, min.minor, min.major, min.minor, if judged.suite == Some(Suite::Isv) { "The certified pipeline does not check this (check_api_version_constraints is the community suite's), so the pull request passes; clusters of those releases cannot install the bundle." } else { "operator-pipelines' check_api_version_constraints fails this too." }),
        (_, None) => "Lower minKubeVersion to a Kubernetes version the targeted OpenShift releases run, or narrow the releases the bundle goes to.".into(),
    };
    out.push(diag.help(help));
}

/// What the community suite fails in a new bundle that sets `minKubeVersion`.
fn community_suite(
    b: &DirBundle<'_>,
    written: &str,
    min: &semver::Version,
    d: &dyn Fn(String) -> Diagnostic,
) -> Option<Diagnostic> {
    if written.trim_start().starts_with(['v', 'V']) {
        return Some(d(format!("spec.minKubeVersion {written:?} starts with \"v\": OLM reads it, but the community pipeline's check_api_version_constraints fails the pull request (\"Invalid minKubeVersion: {written} is not valid SemVer string\")")).help(format!("Write it without the \"v\": `minKubeVersion: {}.{}.{}`.", min.major, min.minor, min.patch)));
    }
    if b.openshift.is_some() {
        return None;
    }
    Some(
        d(format!("spec.minKubeVersion is set but {OPENSHIFT_VERSIONS} is not: the community pipeline fails the pull request (check_api_version_constraints: \"minKubeVersion is set to {}.{}.{} but com.redhat.openshift.versions is not set\")", min.major, min.minor, min.patch))
            .help(format!("Set `{OPENSHIFT_VERSIONS}` in metadata/annotations.yaml to the OpenShift releases the bundle supports (`\"v4.16\"`: 4.16 and later; `\"v4.16-v4.18\"`: a range); the pipeline requires it whenever minKubeVersion is set, whatever its value.")),
    )
}

/// The OpenShift releases of the catalogs `fbc.catalog_mapping` maps (`v4.18` → 4.18; other
/// names are no release).
fn mapped_releases(op: &OperatorDir<'_>) -> Vec<Release> {
    let items = op
        .config
        .and_then(|c| c.node.get("fbc"))
        .and_then(|f| f.get("catalog_mapping"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    let mut releases: Vec<Release> = items
        .iter()
        .filter_map(|i| i.get("catalog_names").and_then(Node::as_seq))
        .flatten()
        .filter_map(Node::as_str)
        .filter_map(olmlint_load::walk::openshift_dir)
        .collect();
    releases.sort_unstable();
    releases.dedup();
    releases
}
