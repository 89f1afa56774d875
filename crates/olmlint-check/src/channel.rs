//! OLM103 channel-invalid: channel blobs opm rejects.

use super::Ctx;
use foldhash::{HashMap, HashMapExt as _};
use olmlint_base::diag::{Diagnostic, Location};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<(&str, &str), Location> = HashMap::new();
    // The package names for "did you mean", indexed on first use, once.
    let known = std::cell::OnceCell::new();
    for c in &ctx.catalog.channels {
        let file = c.doc.file;
        let pkg = c.package.map_or("", |p| p.value);
        let name = c.name.map_or("", |n| n.value);
        let d = |msg: String| {
            Diagnostic::new("OLM103", msg).package(Some(pkg).filter(|p| !p.is_empty()))
        };
        if !ctx.index.packages.contains_key(pkg) && ctx.complete_for(pkg) {
            let hint = known
                .get_or_init(|| {
                    olmlint_base::suggest::Names::new(ctx.index.packages.keys().copied())
                })
                .closest(pkg)
                .map(|k| format!(" Did you mean `{k}`?"))
                .unwrap_or_default();
            out.push(
                d(format!("unknown package {pkg:?} for channel {name:?}"))
                    .at(file, c.package.map_or(c.doc.node.span, |p| p.node.span))
                    .pointer("/package")
                    .help(format!("Every channel must belong to a package declared by an `olm.package` document in the catalog.{hint}")),
            );
        }
        if name.is_empty() {
            out.push(
                d(format!("package {pkg:?} contains channel with no name"))
                    .at(file, c.doc.node.span)
                    .pointer("/name")
                    .help("Add `name:` to the `olm.channel` document."),
            );
            continue;
        }
        let here = Location {
            file,
            span: c.name.map_or(c.doc.node.span, |n| n.node.span),
        };
        if let Some(prev) = seen.get(&(pkg, name)) {
            out.push(
                d(format!("package {pkg:?} has duplicate channel {name:?}"))
                    .at(file, here.span)
                    .pointer("/name")
                    .related("first declared here", Some(*prev))
                    .help("Merge the entries into one `olm.channel` document."),
            );
        } else {
            seen.insert((pkg, name), here);
        }
        if c.entries.is_empty() {
            out.push(
                d(format!(
                    "invalid channel {name:?}: channel must contain at least one bundle"
                ))
                .at(file, here.span)
                .pointer("/entries")
                .help("List at least one bundle under `entries:`, or delete the channel."),
            );
        }
        let mut names: HashMap<&str, usize> = HashMap::new();
        for e in &c.entries {
            let Some(en) = e.name.filter(|n| !n.value.is_empty()) else {
                out.push(
                    d(format!(
                        "invalid channel {name:?}: entry {} has no name",
                        e.index
                    ))
                    .at(file, e.node.span)
                    .pointer(format!("/entries/{}", e.index))
                    .help("Every channel entry needs `name:` naming a bundle of the package."),
                );
                continue;
            };
            if let Some(&first) = names.get(en.value) {
                out.push(
                    d(format!(
                        "invalid package {pkg:?}, channel {name:?}: duplicate entry {:?}",
                        en.value
                    ))
                    .at(file, en.node.span)
                    .pointer(format!("/entries/{}/name", e.index))
                    .related(
                        "first listed here",
                        c.entries.get(first).map(|f| Location {
                            file,
                            span: f.node.span,
                        }),
                    )
                    .help("List each bundle once per channel."),
                );
            } else {
                names.insert(en.value, e.index);
            }
        }
    }
}
