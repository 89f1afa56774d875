//! registry+v1 bundle directories (OLM6xx): `metadata/dependencies.yaml` and
//! `metadata/properties.yaml` as `opm` and `operator-sdk` treat them (spec §2.2–§2.4).
//! OLM601 dependencies-invalid, OLM602 label-dependency-inverted,
//! OLM603 constraint-in-dependencies, OLM604 unparsable-metadata.

use super::Ctx;
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::Node;
use olmlint_load::{LoadedFile, Role};
use olmlint_semantics::range;

pub(super) fn in_metadata(f: &LoadedFile) -> bool {
    matches!(f.role, Role::Bundle(_))
        && f.source
            .path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "metadata")
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (fi, f) in ctx
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.scope == ctx.scope && in_metadata(f))
    {
        if let Some(p) = f.problems.first() {
            out.push(
                Diagnostic::new("OLM604", format!("{} does not parse ({}), and opm silently skips metadata files it cannot parse", f.source.display, p.message))
                    .at(fi, p.span)
                    .help(format!("Every dependency or property declared in this file vanishes from the rendered catalog without an error. {}", p.help)),
            );
        }
        for d in &f.docs {
            let Some(root) = d.root.as_ref() else {
                continue;
            };
            if let Some(deps) = root.get("dependencies").and_then(Node::as_seq) {
                for (i, item) in deps.iter().enumerate() {
                    dependency(fi, item, i, out);
                }
            }
            if let Some(props) = root.get("properties").and_then(Node::as_seq) {
                for (i, item) in props.iter().enumerate() {
                    if let Some(inner) = item.get("property") {
                        out.push(
                            Diagnostic::new("OLM208", "`- property:` wrapper from a proposal: opm reads `{type, value}` items directly, so this property is ignored")
                                .at(fi, item.span)
                                .pointer(format!("/properties/{i}"))
                                .help(format!("Unwrap it: `- type: {}` with `value:` at the item's top level.", inner.get("type").and_then(Node::as_str).unwrap_or("…"))),
                        );
                    }
                }
            }
        }
    }
}

/// Whether the bundle tooling rejects this dependencies.yaml entry (OLM601).
pub(super) fn dependency_invalid(item: &Node) -> bool {
    let mut found = Vec::new();
    dependency(0, item, 0, &mut found);
    found.iter().any(|d| d.rule == "OLM601")
}

fn dependency(fi: usize, item: &Node, i: usize, out: &mut Vec<Diagnostic>) {
    let p = format!("/dependencies/{i}");
    let ty = item.get("type").and_then(Node::as_str).unwrap_or("");
    let value = item.get("value");
    let invalid = |msg: String, node: &Node, help: &str| {
        Diagnostic::new("OLM601", msg)
            .at(fi, node.span)
            .pointer(format!("{p}/value"))
            .help(help.to_string())
    };
    let Some(v) = value.filter(|v| v.as_map().is_some()) else {
        out.push(invalid(
            format!("couldn't parse dependency of type {ty}"),
            item,
            "Each dependency is `{type, value}` with a mapping value.",
        ));
        return;
    };
    let s = |k: &str| v.get(k).and_then(Node::as_str).unwrap_or("");
    match ty {
        "olm.gvk" => {
            for (k, label) in [("group", "Group"), ("version", "Version"), ("kind", "Kind")] {
                if s(k).is_empty() {
                    out.push(invalid(
                        format!("API {label} is empty"),
                        v,
                        "An olm.gvk dependency needs group, version and kind.",
                    ));
                }
            }
        }
        "olm.package" => {
            if s("packageName").is_empty() {
                out.push(invalid(
                    "Package name is empty".into(),
                    v,
                    "Set `packageName`.",
                ));
            }
            if s("version").is_empty() {
                let help = if v.get("versionRange").is_some() {
                    "In dependencies.yaml the range key is `version` (it becomes `versionRange` when rendered)."
                } else {
                    "Set `version` to a range such as `>=1.0.0`."
                };
                out.push(invalid("Package version is empty".into(), v, help));
            } else if range::parse(s("version")).is_err() {
                let at = v.get("version").unwrap_or(v);
                // The range error itself (OLM301, inside this span) gains this finding as a note.
                let d = invalid(format!("Invalid semver format version {:?}", s("version")), at, "`operator-sdk bundle validate` rejects the bundle; the range error itself is reported as OLM301.");
                out.push(d.explained_by(olmlint_base::diag::Location {
                    file: fi,
                    span: at.span,
                }));
            }
        }
        "olm.label" => {
            if s("label").is_empty() {
                out.push(invalid(
                    "Label information is missing".into(),
                    v,
                    "Set `label`.",
                ));
            }
            out.push(
                Diagnostic::new("OLM602", format!("olm.label dependency {:?} becomes a *provided* label when the bundle is rendered to FBC", s("label")))
                    .at(fi, item.span)
                    .pointer(p.clone())
                    .help("`opm render` copies unknown dependency types verbatim as properties, so in a file-based catalog this bundle *offers* the label instead of requiring it. Declare `olm.label.required` in properties.yaml, or use an olm.constraint."),
            );
        }
        "olm.constraint" => {
            if v.get("cel").is_none() {
                out.push(
                    Diagnostic::new("OLM603", "non-CEL olm.constraint in dependencies.yaml: `operator-sdk bundle validate` rejects it (\"The CEL field is missing\") and `opm migrate` drops it")
                        .at(fi, item.span)
                        .pointer(p.clone())
                        .help("OLM itself supports gvk/package/all/any/not constraints, but the bundle tooling only accepts `cel` here. Move the constraint to metadata/properties.yaml as an `olm.constraint` property."),
                );
            } else if v
                .get("cel")
                .and_then(|c| c.get("rule"))
                .and_then(Node::as_str)
                .is_none_or(str::is_empty)
            {
                out.push(invalid(
                    "The CEL expression is missing".into(),
                    v,
                    "Set `cel.rule`.",
                ));
            }
        }
        other => out.push(invalid(
            format!("couldn't parse dependency of type {other}"),
            item,
            "dependencies.yaml accepts olm.gvk, olm.package, olm.label and olm.constraint.",
        )),
    }
}
