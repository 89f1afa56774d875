//! OLM713 properties-annotation: a CSV's `olm.properties` annotation, the legacy place for
//! bundle properties (spec §2.2). opm appends its entries (the model does too), or drops all of
//! them with only a logged warning when the string does not decode.

use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_model::bundle_dir::{
    parse_properties_annotation, properties_annotation, ANNOTATION_POINTER,
};
use olmlint_model::Bundle;

const DEPENDENCY_TYPES: [&str; 4] = [
    "olm.gvk.required",
    "olm.package.required",
    "olm.label.required",
    "olm.constraint",
];

/// The one property OpenShift's documentation places in the annotation.
const DOCUMENTED: &str = "olm.maxOpenShiftVersion";

const HELP: &str = "operator-sdk bundle validate warns about this annotation (\"please define these properties in metadata/properties.yaml instead\"), and no bundle validator checks what it holds. Move the entries to metadata/properties.yaml (dependencies may go to metadata/dependencies.yaml) and delete the annotation.";

pub fn check(ctx: &Ctx<'_>, b: &Bundle<'_>, out: &mut Vec<Diagnostic>) {
    if !b.from_directory {
        return;
    }
    let Some(node) = properties_annotation(b.doc.node) else {
        return;
    };
    let Some(file) = ctx.files.get(b.doc.file) else {
        return;
    };
    let finding = |message: String| {
        Diagnostic::new("OLM713", message)
            .at(b.doc.file, node.span)
            .pointer(ANNOTATION_POINTER)
            .package(Some(b.package()))
            .bundle(Some(b.name()))
            .help(HELP)
    };
    let items = match parse_properties_annotation(file, node) {
        Ok(root) => root.as_seq().unwrap_or(&[]),
        Err(e) => {
            out.push(
                finding(format!("the olm.properties annotation is not a JSON array of {{type, value}}: {e}; opm drops all of it (it only logs a warning), so none of its properties reach the catalog"))
                    .severity(Severity::Error),
            );
            return;
        }
    };
    // Red Hat's OpenShift documentation tells operator authors to declare
    // `olm.maxOpenShiftVersion` exactly here; that use is not flagged (OLM710 checks its value).
    let items: Vec<&olmlint_base::tree::Node> = items
        .iter()
        .filter(|i| i.get("type").and_then(|t| t.as_str()) != Some(DOCUMENTED))
        .collect();
    if items.is_empty() {
        return;
    }
    let types: Vec<&str> = items
        .iter()
        .filter_map(|i| i.get("type").and_then(|t| t.as_str()))
        .collect();
    let mut distinct = types.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let deps: Vec<&str> = distinct
        .iter()
        .copied()
        .filter(|t| DEPENDENCY_TYPES.contains(t))
        .collect();
    let n = items.len();
    let mut message = format!(
        "the CSV declares {n} propert{} in its olm.properties annotation{}; declare {} in metadata/properties.yaml",
        if n == 1 { "y" } else { "ies" },
        if distinct.is_empty() { String::new() } else { format!(" ({})", distinct.join(", ")) },
        if n == 1 { "it" } else { "them" },
    );
    if !deps.is_empty() {
        message.push_str(&format!(
            ", including dependencies ({}) that no bundle validator checks there",
            deps.join(", ")
        ));
    }
    out.push(finding(message));
}
