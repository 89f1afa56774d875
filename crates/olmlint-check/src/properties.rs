//! OLM108 property-invalid: property values of the typed kinds `opm` decodes, with its
//! messages, plus OLM005 where YAML 1.1 turned an intended string into a number or boolean.

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::{Node, Value};
use olmlint_model::decode_coercion;
use olmlint_model::formats::base64_validate;
use olmlint_model::{Bundle, Property};

/// (property type, Go struct name, string fields)
const TYPED: &[(&str, &str, &[&str])] = &[
    (
        "olm.package",
        "Package",
        &["packageName", "version", "release"],
    ),
    ("olm.gvk", "GVK", &["group", "kind", "version"]),
    (
        "olm.package.required",
        "PackageRequired",
        &["packageName", "versionRange"],
    ),
    (
        "olm.gvk.required",
        "GVKRequired",
        &["group", "kind", "version"],
    ),
    ("olm.channel", "Channel", &["channelName"]),
    ("olm.bundle.object", "BundleObject", &["data"]),
    (
        "olm.csv.metadata",
        "CSVMetadata",
        &["description", "displayName", "maturity", "minKubeVersion"],
    ),
];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let first = out.len();
    for b in &ctx.catalog.bundles {
        for p in &b.properties {
            property(b, p, out);
        }
    }
    // opm's decode error is the general report: a more precise error inside the same span
    // (OLM305: the version is a YAML number) replaces it (see `check::fold_symptoms`).
    for d in out.iter_mut().skip(first) {
        if d.severity == Severity::Error {
            if let Some(l) = d.location {
                d.explained_by.push(l);
            }
        }
    }
}

fn property(b: &Bundle<'_>, p: &Property<'_>, out: &mut Vec<Diagnostic>) {
    let (name, pkg) = (b.name(), b.package());
    let ty = p.ty();
    // Built only for a finding: formatting it for every property cost more than the checks.
    let prefix = || {
        format!(
            "parse properties for bundle {name:?}: parse property[{}] of type {ty:?}",
            p.index
        )
    };
    let d = |msg: String| {
        Diagnostic::new("OLM108", msg)
            .package(Some(pkg))
            .bundle(Some(name))
    };
    let Some(item) = p.item else { return };
    if p.ty.is_some_and(|t| t.value.is_empty()) || p.ty.is_none() && item.as_map().is_some() {
        out.push(
            d(format!("property[{}] has an empty type", p.index))
                .severity(Severity::Warning)
                .at(p.file, p.ty.map_or(item.span, |t| t.node.span))
                .pointer(format!("{}/type", p.pointer))
                .help("opm accepts it, but OLM ignores a property without a type; set `type:` (e.g. `olm.gvk`) or remove it."),
        );
    }
    let Some(value) = p.value.as_deref() else {
        if item.as_map().is_some() {
            out.push(
                d(format!("{}: unexpected end of JSON input", prefix()))
                    .at(p.file, item.span)
                    .pointer(p.pointer.clone())
                    .help("The property has no `value:`; opm rejects the catalog. Add the value (or `value: {}`) or remove the property."),
            );
        }
        return;
    };
    let label = value.get_folded("label").and_then(|e| e.value.as_str());
    if ty == "olm.label" && label.is_none() {
        // opm does not decode olm.label, but OLM's label predicate reads `{label: string}`.
        out.push(
            d(format!("olm.label value is {}, not `{{label: <string>}}`: no olm.label.required can ever match it", value.display_scalar()))
                .severity(Severity::Warning)
                .at(p.file, value.span)
                .pointer(p.value_pointer())
                .help("OLM compares `olm.label.required` with the `label` field of each `olm.label` value. Write `value: {label: <name>}`."),
        );
    }
    // olm.maxOpenShiftVersion values (`4.20` read as 4.2) are OLM710's.
    let Some((_, go_struct, fields)) = TYPED.iter().find(|(t, _, _)| *t == ty) else {
        return;
    };
    match &value.value {
        Value::Null => {}
        Value::Map(entries) => {
            // Go decodes every spelling of a field in turn and keeps the first type error,
            // so a mistyped `Kind` beside a good `kind` still fails.
            let spellings = fields.iter().flat_map(|f| {
                entries
                    .iter()
                    .filter(|e| e.key.eq_ignore_ascii_case(f))
                    .map(move |e| (f, e))
            });
            for (f, e) in spellings {
                let v = &e.value;
                if !matches!(v.value, Value::String(_) | Value::Null) {
                    let pointer = format!("{}/{}", p.value_pointer(), e.key);
                    let go_type = if *f == "data" { "[]uint8" } else { "string" };
                    out.push(
                        d(format!("{}: json: cannot unmarshal {} into Go struct field {go_struct}.{f} of type {go_type}", prefix(), v.go_kind()))
                            .at(p.file, v.span)
                            .pointer(pointer.clone())
                            .help(if v.is_coerced_scalar() { format!("YAML 1.1 read the unquoted {} as a {}; quote it.", v.display_scalar(), v.go_kind()) } else { format!("`{f}` must be a string.") }),
                    );
                    // A coerced olm.package version is explained by OLM305 instead.
                    if v.is_coerced_scalar() && !(ty == "olm.package" && *f == "version") {
                        out.push(
                            decode_coercion(p.file, v, &pointer)
                                .package(Some(pkg))
                                .bundle(Some(name)),
                        );
                    }
                }
            }
            if ty == "olm.bundle.object" {
                bundle_object(value, p, (pkg, name), &d, out);
            }
        }
        _ => out.push(
            d(format!(
                "{}: json: cannot unmarshal {} into Go value of type property.{go_struct}",
                prefix(),
                value.go_kind()
            ))
            .at(p.file, value.span)
            .pointer(p.value_pointer())
            .help(format!(
                "A `{ty}` value is a mapping with keys {}.",
                fields.join(", ")
            )),
        ),
    }
}

fn bundle_object(
    value: &Node,
    p: &Property<'_>,
    (b_pkg, b_name): (&str, &str),
    d: &dyn Fn(String) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) {
    let Some(e) = value.get_folded("data") else {
        return;
    };
    let Some(data) = e.value.as_str() else { return };
    if let Err(at) = base64_validate(data) {
        out.push(
            // opm reads bundle objects while loading, before the property pass.
            d(format!("read bundle objects: package {:?}, bundle {:?}: parse property at index {} as bundle object: illegal base64 data at input byte {at}", b_pkg, b_name, p.index))
                .at(p.file, e.value.span)
                .pointer(format!("{}/{}", p.value_pointer(), e.key))
                .help("`olm.bundle.object` data is a base64-encoded manifest; re-encode it (opm render does this)."),
        );
    }
}
