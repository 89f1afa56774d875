//! Bundle-directory operators (`operators/<name>/<version>/`, OLM8xx): what the production
//! index build (`opm index add`, see `model::operators`) and operator-pipelines' static tests
//! reject, located in the CSV or annotation that causes it.
//! OLM801 ci-config-invalid, OLM802 replaces-unavailable, OLM803 bundle-pruned,
//! OLM804 version-directory, OLM805 operator-name, OLM806 openshift-versions,
//! OLM807 min-kube-version; OLM102 for the default channel of such a package.

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_base::tree::{Node, Value};
use olmlint_load::Role;
use olmlint_model::operators::{
    DirBundle, Index, IndexError, OperatorDir, UpdateGraph, CHANNELS, DEFAULT_CHANNEL,
    OPENSHIFT_VERSIONS,
};
use olmlint_semantics::openshift::{self, Release, Selection};
use std::collections::{BTreeMap, HashMap};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ci_configs(ctx, out);
    let cat = ctx.catalog;
    let operator = |b: &DirBundle<'_>| b.operator.and_then(|o| cat.operators.get(o));
    let mut packages: BTreeMap<&str, Vec<&DirBundle<'_>>> = BTreeMap::new();
    for b in &cat.dir_bundles {
        // No annotation: every index (the pipelines fail minKubeVersion without one, too).
        let selection = openshift_versions(ctx, b, out).or_else(|| {
            b.openshift.is_none().then_some(Selection {
                min: openshift::INDEXED.0,
                max: None,
            })
        });
        min_kube_version(b, selection, out);
        if !b.package().is_empty() {
            packages.entry(b.package()).or_default().push(b);
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
            if let Some(op) = operator(newest) {
                directory_name(op, newest, out);
                version_directory(ctx, newest, op, out);
            }
            csv_names(bundles, newest, out);
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
            let explicit = op.is_some_and(|o| o.update_graph.is_some());
            per_release(bundles, mode, explicit, out);
            replaces(bundles, mode, out);
        }
    }
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
        let Some(violations) = olmlint_model::schema::validate("ci", root) else {
            continue;
        };
        for v in violations {
            let at = if v.pointer.is_empty() {
                "/"
            } else {
                &v.pointer
            };
            out.push(
                Diagnostic::new("OLM801", format!("ci.yaml: invalid value at `{at}`: {}", v.message))
                    .at(fi, v.span)
                    .pointer(v.pointer.clone())
                    .help("The hosted pipeline validates ci.yaml against this schema (check_schema_operator_ci_config) and fails the pull request; `updateGraph` decides how `opm index add` builds the upgrade graph (replaces-mode or semver-mode). `olmlint schema ci` prints the schema."),
            );
        }
    }
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
fn csv_names<'a>(bundles: &[&DirBundle<'a>], newest: &DirBundle<'a>, out: &mut Vec<Diagnostic>) {
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
    csv_name(b, expected_prefix, version_prefix(bundles, b), &twins, out);
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
        .at(b.csv.file, name.node.span)
        .pointer("/metadata/name")
        .package(Some(pkg.value))
        .bundle(Some(name.value))
        .help(format!("The next bundle's `spec.replaces` must repeat this name exactly, and operator-pipelines derive the operator name and version from it (check_operator_name, check_replaces_availability). Rename it to {expected:?} unless released bundles already replace it under this name; a released name must stay.")),
    );
}

/// OLM805 for the operator: the package annotation names the operator directory.
fn directory_name(op: &OperatorDir<'_>, newest: &DirBundle<'_>, out: &mut Vec<Diagnostic>) {
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
        .at(newest.annotations.file, pkg.node.span)
        .pointer(format!("/annotations/{}", olmlint_base::diag::pointer_segment(olmlint_model::operators::PACKAGE)))
        .package(Some(pkg.value))
        .bundle(Some(newest.name()))
        .help(format!("operator-pipelines' check_operator_name expects `operators/{}/` (a warning once other bundles exist). Renaming a published package moves every subscriber to a new package, so rename the directory, not the package.", pkg.value)),
    );
}

fn newest<'b, 'a>(bundles: &[&'b DirBundle<'a>]) -> Option<&'b DirBundle<'a>> {
    let zero = olmlint_semantics::version::min_version();
    bundles.iter().copied().max_by(|x, y| {
        let (a, b) = (x.parsed_version(), y.parsed_version());
        olmlint_semantics::version::cmp(a.as_ref().unwrap_or(&zero), b.as_ref().unwrap_or(&zero))
    })
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

/// OLM807: `spec.minKubeVersion` is not above the Kubernetes of an OpenShift release the
/// bundle targets (OLM refuses to install it there).
fn min_kube_version(b: &DirBundle<'_>, selection: Option<Selection>, out: &mut Vec<Diagnostic>) {
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
    let Some(sel) = selection else { return };
    let conflicts: Vec<(Release, Release)> = sel
        .indexed()
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
    let targets = match b.openshift {
        Some(o) => format!("which {OPENSHIFT_VERSIONS} {:?} targets", o.value),
        None => format!(
            "whose indexes the bundle is added to ({OPENSHIFT_VERSIONS} is not set: every index)"
        ),
    };
    let diag = d(format!(
        "spec.minKubeVersion {} is above the Kubernetes of OpenShift {} ({}), {targets}: OLM refuses to install the bundle there",
        mk.value,
        openshift::describe(&releases),
        if first.1 == last.1 {
            format!("Kubernetes {}.{}", first.1 .0, first.1 .1)
        } else {
            format!("Kubernetes {}.{}–{}.{}", first.1 .0, first.1 .1, last.1 .0, last.1 .1)
        },
    ));
    // Without the annotation the targeting is implicit (the organisation's indexes): a warning.
    let diag = if b.openshift.is_none() {
        diag.severity(olmlint_base::diag::Severity::Warning)
    } else {
        diag
    };
    out.push(
        diag
        .help(match lowest_ok {
            Some(o) => format!("Start the annotation at v{}.{} (Kubernetes {}.{}) if the operator needs Kubernetes {}.{}; lower minKubeVersion if it really runs on the older releases. operator-pipelines' check_api_version_constraints fails this too.", o.0, o.1, min.major, min.minor, min.major, min.minor),
            None => "Lower minKubeVersion to a Kubernetes version the targeted OpenShift releases run, or narrow the annotation.".into(),
        }),
    );
}

/// The index of each OpenShift release built today, from the bundles it holds; releases
/// holding the same bundles share one build. What goes wrong is reported once, naming the
/// releases.
fn per_release(
    bundles: &[&DirBundle<'_>],
    mode: UpdateGraph,
    explicit: bool,
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
        index_errors(&index, explicit, newest(bundles), &mut diags);
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
/// `explicit`: `ci.yaml` names the mode. Without `updateGraph` (most certified operators) the
/// mode the index is built in is not written down, so bundles it would prune are not judged.
fn index_errors(
    index: &Index<'_, '_>,
    explicit: bool,
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
            } if explicit && !broken.contains(&channel.value) => {
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
            )),
        );
    }
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
        let Some(target) = by_name.get(r.value) else {
            let hint = olmlint_base::suggest::closest(
                r.value,
                by_name.keys().copied().filter(|n| *n != b.name()),
            )
            .map(|k| format!(" Did you mean {k:?}?"))
            .unwrap_or_default();
            out.push(d(
                format!("{} replaces {:?}, which is no bundle of operator {:?} in this repository{}", b.name(), r.value, b.package(), if semver_note.is_empty() { ": opm index add fails with \"replaces nonexistent bundle\"" } else { semver_note }),
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
