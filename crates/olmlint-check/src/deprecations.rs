//! OLM107 deprecations-invalid: `olm.deprecations` blobs opm rejects.

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Location};
use std::collections::{HashMap, HashSet};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut per_package: HashMap<&str, Location> = HashMap::new();
    for (i, dep) in ctx.catalog.deprecations.iter().enumerate() {
        let file = dep.doc.file;
        let pkg = dep.package.map_or("", |p| p.value);
        let d = |msg: String| {
            Diagnostic::new("OLM107", msg).package(Some(pkg).filter(|p| !p.is_empty()))
        };
        if pkg.is_empty() {
            out.push(
                d(format!("package name must be set for deprecation item {i}"))
                    .at(file, dep.doc.node.span)
                    .pointer("/package")
                    .help("Add `package:` naming the deprecated package."),
            );
            continue;
        }
        if !ctx.index.packages.contains_key(pkg) {
            out.push(
                d(format!(
                    "cannot apply deprecations to an unknown package {pkg:?}"
                ))
                .at(file, dep.package.map_or(dep.doc.node.span, |p| p.node.span))
                .pointer("/package")
                .help("The package must be declared in the same catalog."),
            );
        }
        let here = Location {
            file,
            span: dep.package.map_or(dep.doc.node.span, |p| p.node.span),
        };
        if let Some(prev) = per_package.get(pkg) {
            out.push(
                d(format!(
                    "expected a maximum of one deprecation per package: {pkg:?}"
                ))
                .at(file, here.span)
                .pointer("/package")
                .related("first deprecation blob", Some(*prev))
                .help("Merge the entries into one `olm.deprecations` document."),
            );
        } else {
            per_package.insert(pkg, here);
        }
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        for e in &dep.entries {
            let p = format!("/entries/{}", e.index);
            let schema = e.schema.map_or("", |s| s.value);
            let name = e.name.map_or("", |s| s.value);
            let at = |s: Option<olmlint_model::Str<'_>>| s.map_or(e.node.span, |s| s.node.span);
            if schema.is_empty() {
                out.push(
                    d(format!(
                        "schema must be set for deprecation entry [{}] for package {pkg:?}",
                        e.index
                    ))
                    .at(file, e.node.span)
                    .pointer(format!("{p}/reference"))
                    .help("Set `reference.schema` to olm.package, olm.channel or olm.bundle."),
                );
                continue;
            }
            if !seen.insert((schema, name)) {
                out.push(d(format!("duplicate deprecation entry declcfg.PackageScopedReference{{Schema:{schema:?}, Name:{name:?}}} for package {pkg:?}")).at(file, at(e.name.or(e.schema))).pointer(format!("{p}/reference")).help("Remove the repeated entry."));
            }
            match schema {
                "olm.bundle" => {
                    // A template's bundle that is an image reference no rendered catalog
                    // resolves has no name here: the entry may well name it.
                    if ctx.bundles_known(pkg) && !ctx.index.bundle.contains_key(&(pkg, name)) {
                        out.push(d(format!("cannot deprecate bundle {name:?} for package {pkg:?}: bundle not found")).at(file, at(e.name)).pointer(format!("{p}/reference/name")).help("Name an existing bundle of the package."));
                    }
                }
                "olm.channel" => {
                    let exists = ctx.index.channels_by_package.get(pkg).is_some_and(|v| v.iter().any(|&i| ctx.catalog.channels.get(i).and_then(|c| c.name).is_some_and(|n| n.value == name)));
                    if !exists {
                        out.push(d(format!("cannot deprecate channel {name:?} for package {pkg:?}: channel not found")).at(file, at(e.name)).pointer(format!("{p}/reference/name")).help("Name an existing channel of the package."));
                    }
                }
                "olm.package" => {
                    if !name.is_empty() {
                        out.push(d(format!("package name must be empty for deprecated package {pkg:?} (specified {name:?})")).at(file, at(e.name)).pointer(format!("{p}/reference/name")).help("An `olm.package` reference is the blob's own package; drop `name`."));
                    }
                }
                other => out.push(d(format!("cannot deprecate object declcfg.PackageScopedReference{{Schema:{other:?}, Name:{name:?}}} referenced by entry {} for package {pkg:?}: object schema unknown", e.index)).at(file, at(e.schema)).pointer(format!("{p}/reference/schema")).help("Only olm.package, olm.channel and olm.bundle can be deprecated.")),
            }
            if e.message.is_none_or(|m| m.value.is_empty()) {
                out.push(d("invalid deprecation: message must be set".into()).at(file, at(e.message)).pointer(format!("{p}/message")).help("Write the message users see, e.g. which channel or version to move to."));
            }
        }
    }
}
