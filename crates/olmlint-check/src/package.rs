//! OLM101 package-invalid, OLM102 default-channel.

use super::Ctx;
use foldhash::{HashMap, HashMapExt as _};
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_model::formats::{
    base64_head, base64_validate, dns1123_label_errors, dns1123_label_ok,
};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (pi, p) in ctx.catalog.packages.iter().enumerate() {
        let file = p.doc.file;
        let Some(name) = p.name.filter(|n| !n.value.is_empty()) else {
            out.push(
                Diagnostic::new("OLM101", "config contains package with no name")
                    .at(file, p.doc.node.span)
                    .pointer("/name")
                    .help("Give the `olm.package` document a `name:`; channels and bundles refer to it."),
            );
            continue;
        };
        let pkg = Some(name.value);
        if let Some(&first) = seen.get(name.value) {
            let prev = ctx
                .catalog
                .packages
                .get(first)
                .map(|q| olmlint_base::diag::Location {
                    file: q.doc.file,
                    span: q.doc.node.span,
                });
            out.push(
                Diagnostic::new("OLM101", format!("duplicate package {:?}", name.value))
                    .at(file, name.node.span)
                    .pointer("/name")
                    .package(pkg)
                    .related("first declared here", prev)
                    .help("Each package is declared by exactly one `olm.package` document; remove one of them."),
            );
        } else {
            seen.insert(name.value, pi);
        }
        if !dns1123_label_ok(name.value) {
            out.push(
                Diagnostic::new("OLM101", format!("invalid package name {:?}: [{}]", name.value, dns1123_label_errors(name.value).join(" ")))
                    .at(file, name.node.span)
                    .pointer("/name")
                    .package(pkg)
                    .help("Package names are RFC 1123 labels: at most 63 lowercase letters, digits and '-'."),
            );
        }
        if let Some(icon) = p.icon {
            check_icon(ctx, file, icon, pkg, out);
        }
        default_channel(ctx, p, name.value, out);
    }
}

fn check_icon(
    _ctx: &Ctx<'_>,
    file: usize,
    icon: &olmlint_base::tree::Node,
    pkg: Option<&str>,
    out: &mut Vec<Diagnostic>,
) {
    let data = icon
        .get_folded("base64data")
        .and_then(|e| e.value.as_str().map(|s| (s, e.value.span)));
    let media = icon
        .get_folded("mediatype")
        .and_then(|e| e.value.as_str())
        .unwrap_or("");
    let Some((data, span)) = data else { return };
    if let Err(at) = base64_validate(data) {
        out.push(
            Diagnostic::new(
                "OLM101",
                format!("icon base64data is not valid base64 (bad byte at offset {at})"),
            )
            .severity(Severity::Warning)
            .at(file, span)
            .pointer("/icon/base64data")
            .package(pkg)
            .help("Catalog UIs cannot show the icon. Re-encode the image with `base64 -w0`."),
        );
        return;
    }
    let sniffed = sniff(&base64_head(data, SNIFF_BYTES));
    let declared = media.trim().to_ascii_lowercase();
    let matches = match sniffed {
        Some(kind) => declared == kind || (kind == "image/jpeg" && declared == "image/jpg"),
        None => true,
    };
    if !matches {
        out.push(
            Diagnostic::new(
                "OLM101",
                format!(
                    "icon data is {} but the declared mediatype is {media:?}",
                    sniffed.unwrap_or("unknown")
                ),
            )
            .severity(Severity::Warning)
            .at(file, span)
            .pointer("/icon/base64data")
            .package(pkg)
            .help(format!(
                "Set `mediatype: {}` or replace the image.",
                sniffed.unwrap_or("")
            )),
        );
    }
}

/// How much of an icon [`sniff`] looks at.
const SNIFF_BYTES: usize = 2048;

fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some("image/gif")
    } else {
        let head = String::from_utf8_lossy(b.get(..b.len().min(SNIFF_BYTES)).unwrap_or(b));
        (head.contains("<svg") || head.trim_start().starts_with("<?xml")).then_some("image/svg+xml")
    }
}

fn default_channel(
    ctx: &Ctx<'_>,
    p: &olmlint_model::Package<'_>,
    name: &str,
    out: &mut Vec<Diagnostic>,
) {
    // A package made from bundle directories gets its default channel the way `opm index
    // add` chooses it; `check::operators` reports what goes wrong there.
    if p.from_directory {
        return;
    }
    let file = p.doc.file;
    let channels: Vec<&str> = ctx
        .index
        .channels_by_package
        .get(name)
        .map(|v| {
            v.iter()
                .filter_map(|&i| ctx.catalog.channels.get(i)?.name.map(|n| n.value))
                .collect()
        })
        .unwrap_or_default();
    match p.default_channel.filter(|d| !d.value.is_empty()) {
        None => out.push(
            Diagnostic::new("OLM102", format!("invalid package {name:?}: default channel must be set"))
                .at(file, p.doc.node.get_folded("defaultChannel").map_or(p.doc.node.span, |e| e.key_span))
                .pointer("/defaultChannel")
                .package(Some(name))
                .help(match channels.first() {
                    Some(c) => format!("Add `defaultChannel: {c}`; OLM subscribes to it when a Subscription names no channel."),
                    None => "Add `defaultChannel:` naming one of the package's channels.".into(),
                }),
        ),
        Some(d) if !channels.contains(&d.value) && ctx.complete_for(name) => {
            let hint = olmlint_base::suggest::closest(d.value, channels.iter().copied())
                .map(|c| format!(" Did you mean `{c}`?"))
                .unwrap_or_default();
            out.push(
                Diagnostic::new(
                    "OLM102",
                    format!(
                        "default channel {:?} not found: opm reports `invalid channel {:?}: channel must contain at least one bundle`",
                        d.value, d.value
                    ),
                )
                .at(file, d.node.span)
                .pointer("/defaultChannel")
                .package(Some(name))
                .help(format!("The package's channels are: {}.{hint}", if channels.is_empty() { "none".into() } else { channels.join(", ") })),
            );
        }
        Some(_) => {}
    }
    if channels.is_empty() && ctx.complete_for(name) {
        out.push(
            Diagnostic::new(
                "OLM103",
                format!("invalid package {name:?}: package must contain at least one channel"),
            )
            .at(file, p.name.map_or(p.doc.node.span, |n| n.node.span))
            .pointer("/name")
            .package(Some(name))
            .help("Add an `olm.channel` document with `package: <name>` listing the bundles."),
        );
    }
}
