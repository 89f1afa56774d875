//! Bundle-directory operators (`operators/<name>/<version>/`, OLM8xx): what the production
//! index build (`opm index add`, see `model::operators`) and operator-pipelines' static tests
//! reject, located in the CSV or annotation that causes it.
//! OLM801 ci-config-invalid, OLM802 replaces-unavailable, OLM803 bundle-pruned,
//! OLM804 version-directory, OLM805 operator-name, OLM806 openshift-versions,
//! OLM807 min-kube-version; OLM102 for the default channel of such a package.

mod kube;

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Location, Severity};
use olmlint_base::tree::{Node, Value};
use olmlint_load::Role;
use olmlint_model::operators::{
    DirBundle, Index, IndexError, OperatorDir, UpdateGraph, CHANNELS, DEFAULT_CHANNEL,
    OPENSHIFT_VERSIONS,
};
use olmlint_model::repository::Suite;
use olmlint_semantics::openshift::{self, Release, Selection};
use std::collections::{BTreeMap, HashMap};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ci_configs(ctx, out);
    let cat = ctx.catalog;
    let operator = |b: &DirBundle<'_>| b.operator.and_then(|o| cat.operators.get(o));
    let packages = packages(cat);
    let newest_of = newest_of(&packages);
    for b in &cat.dir_bundles {
        let selection = openshift_versions(ctx, b, out);
        let is_newest = newest_of.contains(&std::ptr::from_ref(b).cast::<()>());
        let judged = kube::Judged {
            operator: operator(b),
            selection,
            added: ctx
                .suite()
                .and_then(|s| Some((s, ctx.as_added(b.root, is_newest)?))),
            new: ctx.as_added(b.root, is_newest).is_some(),
            suite: ctx.suite(),
        };
        kube::min_kube_version(b, &judged, out);
        if let (Some((Suite::Isv, severity)), false) =
            (judged.added, judged.operator.is_some_and(|o| o.fbc))
        {
            annotation_required(b, severity, out);
        }
    }
    for bundles in packages.values() {
        let Some(first) = bundles.first() else {
            continue;
        };
        let op = operator(first);
        // The pipelines judge naming when a bundle is added; older bundles were accepted by
        // the rules of their day and stay as they are in the indexes. Only the newest bundle
        // (what a pull request adds) is judged.
        if let Some(newest) = newest(bundles) {
            // In a pipeline repository check_operator_name fails the pull request that adds
            // a first bundle whose names mismatch; later ones warn.
            let fails = ctx
                .suite()
                .and_then(|_| ctx.as_added(newest.root, true))
                .unwrap_or(Severity::Warning);
            let first = if bundles.len() == 1 {
                fails
            } else {
                Severity::Warning
            };
            if let Some(op) = operator(newest) {
                directory_name(op, newest, first, out);
                version_directory(ctx, newest, op, out);
            }
            csv_names(bundles, newest, fails, out);
        }
        // Released from catalog templates: no `opm index add`, no replaces checks.
        if op.is_some_and(|o| o.fbc) {
            continue;
        }
        let Some(mode) = op.map_or(Some(UpdateGraph::Replaces), OperatorDir::mode) else {
            continue;
        };
        // A bundle directory on its own replaces bundles of the production index, in a mode
        // nobody wrote down: only an operator directory holds the whole package.
        if op.is_some() {
            // The community pipeline judges dangling bundles in replaces-mode when ci.yaml
            // names no mode (check_dangling_bundles), and fails the pull request.
            let community = ctx.suite() == Some(Suite::Community);
            let pruned = if community {
                Some(
                    op.and_then(|o| ctx.as_added(&o.root, false))
                        .unwrap_or(Severity::Warning),
                )
            } else {
                op.is_some_and(|o| o.update_graph.is_some())
                    .then_some(Severity::Warning)
            };
            per_release(bundles, mode, pruned, out);
            replaces(bundles, mode, out);
        }
    }
}

/// The bundle directories of each package (named by its annotation), in catalog order.
pub(crate) fn packages<'c, 'a>(
    cat: &'c olmlint_model::Catalog<'a>,
) -> BTreeMap<&'a str, Vec<&'c DirBundle<'a>>> {
    let mut packages: BTreeMap<&str, Vec<&DirBundle<'_>>> = BTreeMap::new();
    for b in &cat.dir_bundles {
        if !b.package().is_empty() {
            packages.entry(b.package()).or_default().push(b);
        }
    }
    packages
}

/// Each package's newest bundle, by address (one look-up per bundle, not one scan).
pub(crate) fn newest_of(
    packages: &BTreeMap<&str, Vec<&DirBundle<'_>>>,
) -> std::collections::HashSet<*const ()> {
    packages
        .values()
        .filter_map(|bs| newest(bs))
        .map(|b| std::ptr::from_ref(b).cast::<()>())
        .collect()
}

/// OLM801: `ci.yaml` against the pipelines' schema.
fn ci_configs(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (fi, f) in ctx.files.iter().enumerate() {
        if f.scope != ctx.scope || f.role != Role::OperatorConfig || !f.problems.is_empty() {
            continue;
        }
        let Some(root) = f.docs.first().and_then(|d| d.root.as_ref()) else {
            continue;
        };
        if root.is_null() {
            continue;
        }
        out.extend(schema_findings(
            ("ci", "OLM801", "ci.yaml"),
            fi,
            root,
            "The hosted pipeline validates ci.yaml against this schema (check_schema_operator_ci_config) and fails the pull request; `updateGraph` decides how `opm index add` builds the upgrade graph (replaces-mode or semver-mode). `olmlint schema ci` prints the schema.",
        ));
    }
}

/// One finding of `rule` per violation of the embedded `schema` in the document `root` of
/// file `fi` (shown as `label`), located at the value.
pub(crate) fn schema_findings(
    (schema, rule, label): (&str, &'static str, &str),
    fi: usize,
    root: &Node,
    help: &str,
) -> Vec<Diagnostic> {
    let violations = olmlint_model::schema::validate(schema, root).unwrap_or_default();
    violations
        .into_iter()
        .map(|v| {
            let at = if v.pointer.is_empty() {
                "/"
            } else {
                &v.pointer
            };
            Diagnostic::new(
                rule,
                format!("{label}: invalid value at `{at}`: {}", v.message),
            )
            .at(fi, v.span)
            .pointer(v.pointer.clone())
            .help(help.to_string())
        })
        .collect()
}

/// OLM804: the version directory is named after the CSV's `spec.version`.
fn version_directory(
    ctx: &Ctx<'_>,
    b: &DirBundle<'_>,
    op: &OperatorDir<'_>,
    out: &mut Vec<Diagnostic>,
) {
    // `<operator>/<version>/` only (not `<operator>/<version>/bundle/`).
    if b.root.parent() != Some(op.root.as_path()) {
        return;
    }
    let (Some(v), Some(dir)) = (b.version, b.root.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    // `v1.2.3/` for 1.2.3 is common in certified-operators and accepted there.
    if v.value == dir || dir.strip_prefix('v') == Some(v.value) {
        return;
    }
    let op_name = op
        .root
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let taken = ctx
        .catalog
        .dir_bundles
        .iter()
        .any(|o| o.operator == b.operator && o.root.file_name().is_some_and(|n| n == v.value));
    out.push(
        Diagnostic::new(
            "OLM804",
            format!(
                "bundle directory `{op_name}/{dir}` holds version {:?} (spec.version): the pipelines require the directory to be named after the version",
                v.value
            ),
        )
        .at(b.csv.file, v.node.span)
        .pointer("/spec/version")
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help(if taken {
            format!("Another directory is already named {:?}: is spec.version a copy-paste from it? Set it to this bundle's version, {dir:?}, if that is what it is.", v.value)
        } else {
            format!("Rename the directory to `{op_name}/{}` (operator-pipelines' check_operator_version_directory_name fails otherwise), or correct spec.version if the directory name is right.", v.value)
        }),
    );
}

/// OLM805 for the newest bundle of a package: its CSV name carries its version, and the
/// operator name most of the package's bundles use (the package name, for the first one).
/// `fails`: how check_operator_name's failures are reported (see [`Ctx::as_added`]): a first
/// bundle whose operator name is not the package, and a bundle whose operator name differs
/// from the one every other bundle uses; other mismatches are warnings.
fn csv_names<'a>(
    bundles: &[&DirBundle<'a>],
    newest: &DirBundle<'a>,
    fails: Severity,
    out: &mut Vec<Diagnostic>,
) {
    fn prefix<'a>(b: &DirBundle<'a>) -> &'a str {
        b.name().split_once('.').map_or(b.name(), |(p, _)| p)
    }
    let mut prefixes: HashMap<&'a str, usize> = HashMap::new();
    let mut names: HashMap<&'a str, Vec<&DirBundle<'a>>> = HashMap::new();
    for b in bundles {
        *prefixes.entry(prefix(b)).or_default() += 1;
        names.entry(b.name()).or_default().push(b);
    }
    // The operator name most bundles use (ties: the package name if among them).
    let common = prefixes
        .iter()
        .max_by_key(|(p, n)| {
            let is_package = Some(**p) == bundles.first().map(|b| b.package());
            (**n, is_package, std::cmp::Reverse(**p))
        })
        .map(|(p, _)| *p);
    let b = newest;
    let expected_prefix = if bundles.len() == 1 {
        Some(b.package())
    } else {
        common
    };
    let twins: Vec<&str> = names
        .get(b.name())
        .into_iter()
        .flatten()
        .filter(|o| !std::ptr::eq(**o, b))
        .filter_map(|o| o.root.file_name().and_then(|n| n.to_str()))
        .collect();
    let others: std::collections::BTreeSet<&str> = bundles
        .iter()
        .filter(|o| !std::ptr::eq(**o, b))
        .map(|o| prefix(o))
        .collect();
    let pipeline_fails = match others.len() {
        0 => prefix(b) != b.package(),
        1 => !others.contains(prefix(b)),
        _ => false,
    };
    let severity = if pipeline_fails {
        fails
    } else {
        Severity::Warning
    };
    csv_name(
        b,
        expected_prefix,
        version_prefix(bundles, b),
        &twins,
        severity,
        out,
    );
}

/// What goes between the operator name's `.` and the version in a suggested CSV name: `v`
/// (the convention), or nothing when most of the package's other bundles are named without
/// it (`foo.1.2.3`; the pipelines accept both).
fn version_prefix(bundles: &[&DirBundle<'_>], b: &DirBundle<'_>) -> &'static str {
    let (mut with, mut without) = (0usize, 0usize);
    for o in bundles.iter().filter(|o| !std::ptr::eq(**o, b)) {
        match o.name().split_once('.').and_then(|(_, r)| r.chars().next()) {
            Some('v') => with += 1,
            Some(c) if c.is_ascii_digit() => without += 1,
            _ => {}
        }
    }
    if without > with {
        ""
    } else {
        "v"
    }
}

/// What is wrong with the operator name of CSV name `name`, read as the pipelines read it
/// (the text before the first `.`, `prefix`), when it is not `operator_name`.
fn operator_name_problem(name: &str, prefix: &str, operator_name: &str, pkg: &str) -> String {
    let whom = if operator_name == pkg {
        format!("the package name {pkg:?}")
    } else {
        format!("{operator_name:?}, the operator name the package's other bundles use")
    };
    let after = name.strip_prefix(operator_name).unwrap_or("");
    if !name.contains('.') {
        format!("has no \".\": the pipelines read the operator name and the version from either side of the first \".\" (the operator name must be {whom})")
    } else if name.starts_with(operator_name)
        && operator_name.contains('.')
        && after.starts_with('.')
    {
        format!("starts with {whom}, but the pipelines read the operator name up to the first \".\" ({prefix:?}): an operator name containing \".\" cannot be read back from a CSV name")
    } else if name.starts_with(operator_name) && !after.is_empty() {
        let before_dot = after.split_once('.').map_or(after, |(a, _)| a);
        format!("starts with {whom} but continues with {before_dot:?} before its first \".\", so the pipelines read the operator name as {prefix:?}")
    } else {
        format!("names operator {prefix:?} (the text before its first \".\", as the pipelines read it), not {whom}")
    }
}

/// OLM805: `metadata.name` is `<operator>.v<version>`: `replaces` of the next bundle names
/// it, and the pipelines read the operator name and version back from it.
fn csv_name(
    b: &DirBundle<'_>,
    expected_prefix: Option<&str>,
    v: &str,
    twins: &[&str],
    prefix_severity: Severity,
    out: &mut Vec<Diagnostic>,
) {
    let (Some(name), Some(pkg), Some(version)) = (b.name, b.package, b.version) else {
        return;
    };
    if pkg.value.is_empty() || version.value.is_empty() {
        return;
    }
    let (prefix, rest) = name.value.split_once('.').unwrap_or((name.value, ""));
    let named_version = rest.strip_prefix('v').unwrap_or(rest);
    let prefix_ok = expected_prefix.is_none_or(|e| e == prefix);
    if prefix_ok && named_version == version.value {
        return;
    }
    let operator_name = expected_prefix.unwrap_or(prefix);
    let expected = format!("{operator_name}.{v}{}", version.value);
    let mut what = if !prefix_ok {
        operator_name_problem(name.value, prefix, operator_name, pkg.value)
    } else {
        format!(
            "names version {named_version:?} but spec.version is {:?}",
            version.value
        )
    };
    if !twins.is_empty() {
        what.push_str(&format!(
            ", and bundle directory {} has the same name: an index holds one bundle per name",
            twins.join(", ")
        ));
    }
    out.push(
        Diagnostic::new(
            "OLM805",
            format!("CSV name {:?} {what} (the convention is {expected:?})", name.value),
        )
        .severity(if prefix_ok { Severity::Warning } else { prefix_severity })
        .at(b.csv.file, name.node.span)
        .pointer("/metadata/name")
        .package(Some(pkg.value))
        .bundle(Some(name.value))
        .help(format!("The next bundle's `spec.replaces` must repeat this name exactly, and operator-pipelines derive the operator name and version from it (check_operator_name, check_replaces_availability). Rename it to {expected:?} unless released bundles already replace it under this name; a released name must stay.")),
    );
}

/// OLM805 for the operator: the package annotation names the operator directory.
/// `severity`: an error where check_operator_name fails the pull request (the package's first
/// bundle, see [`Ctx::as_added`]); it warns once other bundles exist.
fn directory_name(
    op: &OperatorDir<'_>,
    newest: &DirBundle<'_>,
    severity: Severity,
    out: &mut Vec<Diagnostic>,
) {
    let Some(dir) = op.root.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let Some(pkg) = newest.package.filter(|p| p.value != dir) else {
        return;
    };
    out.push(
        Diagnostic::new(
            "OLM805",
            format!("package {:?} (annotations.yaml) differs from the operator directory name {dir:?}", pkg.value),
        )
        .severity(severity)
        .at(newest.annotations.file, pkg.node.span)
        .pointer(format!("/annotations/{}", olmlint_base::diag::pointer_segment(olmlint_model::operators::PACKAGE)))
        .package(Some(pkg.value))
        .bundle(Some(newest.name()))
        .help(format!("operator-pipelines' check_operator_name expects `operators/{}/` (a warning once other bundles exist). Renaming a published package moves every subscriber to a new package, so rename the directory, not the package.", pkg.value)),
    );
}

pub(crate) fn newest<'b, 'a>(bundles: &[&'b DirBundle<'a>]) -> Option<&'b DirBundle<'a>> {
    let zero = olmlint_semantics::version::min_version();
    bundles.iter().copied().max_by(|x, y| {
        let (a, b) = (x.parsed_version(), y.parsed_version());
        olmlint_semantics::version::cmp(a.as_ref().unwrap_or(&zero), b.as_ref().unwrap_or(&zero))
    })
}

/// OLM806 in a repository of the isv suite (certified-operators, redhat-marketplace): a new
/// bundle of the pipelines' index builds must say which OpenShift releases it goes to; the
/// pipeline asks the catalog API for the organization's indexes from the annotation and fails
/// without it.
fn annotation_required(b: &DirBundle<'_>, severity: Severity, out: &mut Vec<Diagnostic>) {
    if b.openshift.is_some() {
        return;
    }
    out.push(
        Diagnostic::new("OLM806", format!("{OPENSHIFT_VERSIONS} is not set: the certified pipeline fails the pull request ('com.redhat.openshift.versions' annotation not defined)"))
            .severity(severity)
            .at(b.annotations.file, b.annotations.node.get("annotations").map_or(b.annotations.node.span, |a| a.span))
            .pointer("/annotations")
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help(format!("Add `{OPENSHIFT_VERSIONS}: \"v4.16\"` (4.16 and later; `=v4.16` for one release, `v4.16-v4.18` for a range) to metadata/annotations.yaml: outside the community repository the pipeline finds the indexes a bundle goes to only through it.")),
    );
}

/// OLM806: `com.redhat.openshift.versions` parses. Returns the selection.
fn openshift_versions(
    ctx: &Ctx<'_>,
    b: &DirBundle<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Selection> {
    let node = b
        .annotations
        .node
        .get("annotations")
        .and_then(|a| a.get(OPENSHIFT_VERSIONS))?;
    let pointer = format!("/annotations/{OPENSHIFT_VERSIONS}");
    let problem = match (&node.value, node.as_str()) {
        (_, Some(s)) => match openshift::parse(s) {
            Ok((sel, _)) => return Some(sel),
            Err(e) => e,
        },
        (Value::Number { .. }, None) => {
            // As written (`4.10`), not as the number it became (4.1).
            let written = ctx
                .files
                .get(b.annotations.file)
                .and_then(|f| f.source.text.get(node.span.start()..node.span.end()))
                .map_or_else(|| node.display_scalar(), str::to_string);
            format!(
                "the value is a YAML number ({written} reads as {}), not a string; quote it (`\"v{written}\"`)",
                node.display_scalar()
            )
        }
        _ => format!("the value is {}, not a string", node.display_scalar()),
    };
    out.push(
        Diagnostic::new("OLM806", format!("invalid {OPENSHIFT_VERSIONS}: {problem}"))
            .at(b.annotations.file, node.span)
            .pointer(pointer)
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help("This annotation decides which OpenShift indexes the bundle is added to: `v4.12` (4.12 and later), `=v4.14` (only 4.14) or `v4.12-v4.16` (a range). A value the pipeline cannot read keeps the bundle out of the indexes or fails the pull request."),
    );
    None
}

/// The index of each OpenShift release built today, from the bundles it holds; releases
/// holding the same bundles share one build. What goes wrong is reported once, naming the
/// releases.
fn per_release(
    bundles: &[&DirBundle<'_>],
    mode: UpdateGraph,
    pruned: Option<Severity>,
    out: &mut Vec<Diagnostic>,
) {
    let groups = olmlint_model::operators::release_groups(bundles);
    let mut found: Vec<(Diagnostic, Vec<Release>)> = Vec::new();
    for (members, releases) in groups {
        let subset: Vec<&DirBundle<'_>> = members
            .iter()
            .filter_map(|&i| bundles.get(i).copied())
            .collect();
        let index = Index::build(&subset, mode);
        let mut diags = Vec::new();
        index_errors(&index, pruned, newest(bundles), &mut diags);
        for d in diags {
            match found.iter_mut().find(|(f, _)| {
                f.rule == d.rule && f.location == d.location && f.message == d.message
            }) {
                Some((_, rs)) => rs.extend(&releases),
                None => found.push((d, releases.clone())),
            }
        }
    }
    let all = openshift::indexed_releases();
    for (mut d, mut releases) in found {
        releases.sort_unstable();
        releases.dedup();
        if releases != all {
            d.message = format!(
                "{} (in the OpenShift {} index{})",
                d.message,
                openshift::describe(&releases),
                if releases.len() > 1 { "es" } else { "" }
            );
        }
        out.push(d);
    }
}

/// OLM102 and OLM803 from one index build.
/// `pruned`: how bundles the build leaves out of a channel are reported, if they are: when
/// `ci.yaml` names the mode (a warning), or in the community pipeline's repository (an error:
/// check_dangling_bundles fails). Without `updateGraph` elsewhere (most certified operators)
/// the mode the index is built in is not written down, so they are not judged.
fn index_errors(
    index: &Index<'_, '_>,
    pruned_severity: Option<Severity>,
    newest: Option<&DirBundle<'_>>,
    out: &mut Vec<Diagnostic>,
) {
    // A channel whose chain loops is reported once, there (OLM105); one whose new head
    // replaces a bundle that does not exist, there (OLM802: the build fails, and the bundles
    // it leaves off the chain are back on it once the head's `replaces` is fixed). Below an
    // older bundle's missing target the bundles really are off the chain, so they are still
    // reported.
    let is_newest = |b: &DirBundle<'_>| newest.is_some_and(|n| std::ptr::eq(n, b));
    let broken: Vec<&str> = index
        .errors
        .iter()
        .filter_map(|e| match e {
            IndexError::Cycle { channel, .. } => Some(*channel),
            IndexError::ReplacesMissing {
                bundle, channel, ..
            } if is_newest(bundle) => Some(*channel),
            _ => None,
        })
        .collect();
    let mut pruned: BTreeMap<&str, (&DirBundle<'_>, Vec<&str>)> = BTreeMap::new();
    for e in &index.errors {
        match e {
            IndexError::Pruned {
                bundle, channel, ..
            } if pruned_severity.is_some() && !broken.contains(&channel.value) => {
                pruned
                    .entry(bundle.name())
                    .or_insert((bundle, Vec::new()))
                    .1
                    .push(channel.value);
            }
            IndexError::DefaultChannel { at, message } => {
                let site = at.and_then(|b| {
                    let ann = b.annotations.node.get("annotations")?;
                    let (key, node) = ann
                        .get(DEFAULT_CHANNEL)
                        .map(|n| (DEFAULT_CHANNEL, n))
                        .or_else(|| ann.get(CHANNELS).map(|n| (CHANNELS, n)))?;
                    Some((b.annotations.file, node.span, key, b))
                });
                let mut d = Diagnostic::new("OLM102", format!("opm index add cannot choose the default channel: {message}"))
                    .help(format!("Set `{DEFAULT_CHANNEL}` in the newest bundle's metadata/annotations.yaml to one of the channels its `channels.v1` lists; the index takes the default channel from the highest version that sets one, and OLM subscribes to it when a Subscription names no channel."));
                if let Some((file, span, key, b)) = site {
                    d = d
                        .at(file, span)
                        .pointer(format!("/annotations/{key}"))
                        .package(Some(b.package()))
                        .bundle(Some(b.name()));
                }
                out.push(d);
            }
            _ => {}
        }
    }
    for (name, (b, channels)) in pruned {
        let list: Vec<String> = channels.iter().map(|c| format!("{c:?}")).collect();
        let node = b
            .annotations
            .node
            .get("annotations")
            .and_then(|a| a.get(CHANNELS));
        out.push(
            Diagnostic::new(
                "OLM803",
                format!(
                    "{name} lists channel {} but no bundle of the channel replaces, skips or skipRanges it: opm index add leaves it out of the channel, so it cannot be installed from there and clusters running it get no upgrade",
                    list.join(", ")
                ),
            )
            .at(b.annotations.file, node.map_or(b.annotations.node.span, |n| n.span))
            .pointer(format!("/annotations/{CHANNELS}"))
            .package(Some(b.package()))
            .bundle(Some(name))
            .related("its CSV", Some(Location { file: b.csv.file, span: b.name.map_or(b.csv.node.span, |n| n.node.span) }))
            .help(format!(
                "Put it on the upgrade graph: a newer bundle of the channel sets `spec.replaces: {name}`, lists it in `spec.skips`, or covers its version with `olm.skipRange`; or take the channel out of its `channels.v1` if it was left behind on purpose. operator-pipelines' check_dangling_bundles fails pull requests to the channel while it dangles."
            ))
            .severity(pruned_severity.unwrap_or(Severity::Warning)),
        );
    }
}

/// The version part of a CSV name as operator-pipelines read it: after `.v` when the name
/// has one, else after the first `.`; a leading `v` dropped.
fn version_in_name(name: &str) -> Option<&str> {
    let (_, v) = name.split_once(".v").or_else(|| name.split_once('.'))?;
    Some(v.strip_prefix('v').unwrap_or(v))
}

/// The bundle of the operator whose CSV name carries the version `replaces` names
/// (`check_replaces_availability`'s lookup).
fn by_version_in_name<'b, 'a>(
    bundles: &[&'b DirBundle<'a>],
    replaces: &str,
) -> Option<&'b DirBundle<'a>> {
    let wanted = version_in_name(replaces)?;
    bundles.iter().copied().find(|b| {
        b.name()
            .split_once('.')
            .map(|(_, v)| v.strip_prefix('v').unwrap_or(v))
            == Some(wanted)
    })
}

/// OLM802: `spec.replaces` names an existing bundle of the operator, not the bundle itself,
/// that is in every OpenShift index the new bundle is added to; `spec.skips` does not name
/// the bundle itself.
fn replaces(bundles: &[&DirBundle<'_>], mode: UpdateGraph, out: &mut Vec<Diagnostic>) {
    let by_name: HashMap<&str, &DirBundle<'_>> = bundles.iter().map(|b| (b.name(), *b)).collect();
    // The index is built incrementally and checks only the bundle being added: an older
    // bundle that would fail today was accepted when it was added and is in the indexes as
    // they are. Only the newest bundle (what a pull request adds) is judged here.
    let newest = newest(bundles).map(DirBundle::name);
    let semver_note = if mode == UpdateGraph::Semver {
        " (in semver-mode the index build ignores spec.replaces, but operator-pipelines' check_replaces_availability still fails)"
    } else {
        ""
    };
    for b in bundles {
        let d = |msg: String, node: &Node, pointer: &str| {
            Diagnostic::new("OLM802", msg)
                .at(b.csv.file, node.span)
                .pointer(pointer.to_string())
                .package(Some(b.package()))
                .bundle(Some(b.name()))
        };
        for (j, s) in b.skips.iter().enumerate() {
            if s.value == b.name() {
                out.push(d(format!("{} skips itself", b.name()), s.node, &format!("/spec/skips/{j}")).help("Remove the bundle's own name from spec.skips: the upgrade graph gets a loop (operator-pipelines' check_upgrade_graph_loop fails)."));
            }
        }
        let Some(r) = b.replaces else { continue };
        let head = newest == Some(b.name());
        if r.value == b.name() {
            let why = if semver_note.is_empty() {
                "opm index add fails with \"Cycle detected\""
            } else {
                "operator-pipelines fail it"
            };
            out.push(d(format!("{} replaces itself{semver_note}", b.name()), r.node, "/spec/replaces").help(format!("Set spec.replaces to the previous release's CSV name (or remove it for the first release): {why}.")));
            continue;
        }
        if !head {
            continue;
        }
        // In semver-mode the index build ignores spec.replaces; the only judge is
        // check_replaces_availability, which looks the target up by the version in its name
        // (the operator name before it, and a `v`, are not read).
        let found = match mode {
            UpdateGraph::Replaces => by_name.get(r.value).copied(),
            UpdateGraph::Semver => by_version_in_name(bundles, r.value),
        };
        let Some(target) = found else {
            let hint = olmlint_base::suggest::closest(
                r.value,
                by_name.keys().copied().filter(|n| *n != b.name()),
            )
            .map(|k| format!(" Did you mean {k:?}?"))
            .unwrap_or_default();
            out.push(d(
                match mode {
                    UpdateGraph::Replaces => format!("{} replaces {:?}, which is no bundle of operator {:?} in this repository: opm index add fails with \"replaces nonexistent bundle\"", b.name(), r.value, b.package()),
                    UpdateGraph::Semver => format!("{} replaces {:?}, but no bundle of operator {:?} in this repository has version {:?} (in semver-mode the index build ignores spec.replaces, but operator-pipelines' check_replaces_availability looks the version up and fails: \"attempts to replace version '{}' which does not exist\")", b.name(), r.value, b.package(), version_in_name(r.value).unwrap_or(r.value), version_in_name(r.value).unwrap_or(r.value)),
                },
                r.node,
                "/spec/replaces",
            ).help(format!("spec.replaces must name the CSV (`metadata.name`) of a bundle directory of this operator.{hint} If it was released from another branch, make sure the fork is rebased so the directory is present.")));
            continue;
        };
        // Every OpenShift index the new bundle goes to must hold the one it replaces.
        let all = Selection {
            min: openshift::INDEXED.0,
            max: None,
        };
        let sel = |x: &DirBundle<'_>| match x.openshift {
            Some(o) => openshift::parse(o.value).ok().map(|(s, _)| s),
            None => Some(all),
        };
        let (Some(new), Some(old)) = (sel(b), sel(target)) else {
            continue;
        };
        let missing: Vec<Release> = new
            .indexed()
            .into_iter()
            .filter(|o| !old.contains(*o))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let shown = |x: &DirBundle<'_>| {
            x.openshift.map_or_else(
                || "(not set: every index)".to_string(),
                |o| format!("{:?}", o.value),
            )
        };
        out.push(
            d(
                format!(
                    "{} replaces {}, which is not in the OpenShift {} index{}: adding it there fails with \"replaces nonexistent bundle\"{semver_note}",
                    b.name(),
                    r.value,
                    openshift::describe(&missing),
                    if missing.len() > 1 { "es" } else { "" },
                ),
                r.node,
                "/spec/replaces",
            )
            .related(format!("{} targets {}", target.name(), shown(target)), target.openshift.map(|o| Location { file: target.annotations.file, span: o.node.span }))
            .related(format!("{} targets {}", b.name(), shown(b)), b.openshift.map(|o| Location { file: b.annotations.file, span: o.node.span }))
            .help("Align com.redhat.openshift.versions in metadata/annotations.yaml with the replaced bundle's (operator-pipelines' check_replaces_availability requires the new bundle's releases to be a subset), or replace a bundle that is in those indexes. A warning, not an error: a bundle already in those indexes stays there, its `replaces` pointing at nothing, and clusters there have no upgrade edge into it from the replaced version.")
            .severity(olmlint_base::diag::Severity::Warning),
        );
    }
}
