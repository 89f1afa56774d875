//! Version ranges and versions as OLM reads them (blang/semver): OLM109 skiprange-invalid,
//! OLM301 range-invalid, OLM302 range-empty, OLM303 range-quirk, OLM304 range-exact-pin,
//! OLM305 version-invalid, OLM306 range-upper-bound.

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::{Node, Span, Value};
use olmlint_load::scalar::file_offset;
use olmlint_semantics::range::{self, Quirk, Range};
use olmlint_semantics::version;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A channel entry's `skipRange`.
    SkipRange,
    /// A dependency (`olm.package.required`, a `package` constraint).
    Dependency,
}

/// Where a range sits, for messages.
pub struct Site<'a> {
    pub file: usize,
    pub node: &'a Node,
    pub pointer: String,
    pub package: Option<&'a str>,
    pub bundle: Option<&'a str>,
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.catalog.channels {
        let pkg = c.package.map(|p| p.value);
        // A bundle directory's skipRange is checked once, with its bundle (below).
        for e in c.entries.iter().filter(|e| !e.from_directory) {
            let Some(sr) = e.skip_range.filter(|s| !s.value.is_empty()) else {
                continue;
            };
            let site = Site {
                file: e.file,
                node: sr.node,
                pointer: e.pointer("skipRange"),
                package: pkg,
                bundle: e.name.map(|n| n.value),
            };
            check_range(ctx, &site, sr.value, Use::SkipRange, out);
        }
    }
    for b in &ctx.catalog.bundles {
        let (pkg, name) = (Some(b.package()), Some(b.name()));
        for p in b.properties_of("olm.package.required") {
            let Some(v) = p.value.as_deref() else {
                continue;
            };
            let Some(e) = v.get_folded("versionRange") else {
                continue;
            };
            if let Some(text) = e.value.as_str() {
                let site = Site {
                    file: p.file,
                    node: &e.value,
                    pointer: format!("{}/{}", p.value_pointer(), e.key),
                    package: pkg,
                    bundle: name,
                };
                check_range(ctx, &site, text, Use::Dependency, out);
            }
        }
        versions(ctx, b, out);
        if b.from_directory {
            csv_skip_range(ctx, b, out);
        }
    }
}

/// The CSV's `olm.skipRange` annotation of a bundle directory: it becomes the channel
/// entry's `skipRange` when the bundle is added to an index or rendered, where an invalid
/// range is OLM109 (opm validate rejects the catalog; OLM ignores the upgrade edges it meant).
fn csv_skip_range(ctx: &Ctx<'_>, b: &olmlint_model::Bundle<'_>, out: &mut Vec<Diagnostic>) {
    let csv = b.doc.node;
    if csv.get("kind").and_then(Node::as_str) != Some("ClusterServiceVersion") {
        return;
    }
    let Some(node) = csv
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get("olm.skipRange"))
    else {
        return;
    };
    let Some(text) = node.as_str().filter(|t| !t.is_empty()) else {
        return;
    };
    let site = Site {
        file: b.doc.file,
        node,
        pointer: "/metadata/annotations/olm.skipRange".into(),
        package: Some(b.package()),
        bundle: Some(b.name()),
    };
    let first = out.len();
    check_range(ctx, &site, text, Use::SkipRange, out);
    // Bundles added to an index from directories keep the text as it is, and OLM's resolver
    // silently drops a skipRange it cannot parse: working operators have shipped such ranges
    // for years. The upgrade edges they mean are missing: a warning, and an error once the
    // bundle goes into a file-based catalog (opm validate).
    for d in out.iter_mut().skip(first).filter(|d| d.rule == "OLM109") {
        d.severity = Severity::Warning;
        d.message.push_str(
            "; OLM cannot parse it and silently ignores it, so the upgrades it means (skipping \
             the versions in the range) do not exist on clusters",
        );
        if let Some(h) = d.help.as_mut() {
            *h = h.replace(
                "opm validate rejects the catalog.",
                "opm validate rejects it in a file-based catalog rendered from this bundle.",
            );
        }
        // The rewrite creates upgrade edges OLM does not follow today (and a released bundle
        // is usually not edited in place): never applied without --unsafe-fixes.
        if let Some(f) = d.fix.as_mut() {
            f.safe = false;
        }
    }
}

fn span_in(ctx: &Ctx<'_>, site: &Site<'_>, s: Option<&std::ops::Range<usize>>) -> Span {
    let Some(s) = s else { return site.node.span };
    let Some(f) = ctx.files.get(site.file) else {
        return site.node.span;
    };
    if site.node.as_str().is_none() {
        return site.node.span;
    }
    let a = file_offset(&f.source.text, site.node, s.start);
    let b = file_offset(&f.source.text, site.node, s.end);
    Span::new(a, b.max(a + 1))
}

/// Check one range string; returns the parsed range when it parses.
pub fn check_range(
    ctx: &Ctx<'_>,
    site: &Site<'_>,
    text: &str,
    use_: Use,
    out: &mut Vec<Diagnostic>,
) -> Option<Range> {
    let d = |rule: &'static str, msg: String, span: Span| {
        Diagnostic::new(rule, msg)
            .at(site.file, span)
            .pointer(site.pointer.clone())
            .package(site.package)
            .bundle(site.bundle)
    };
    let parsed = match range::parse(text) {
        Ok(r) => r,
        Err(e) => {
            let (rule, msg) = match use_ {
                Use::SkipRange => (
                    "OLM109",
                    format!("invalid skipRange {text:?}: {}", e.message),
                ),
                Use::Dependency => (
                    "OLM301",
                    format!("invalid version range {text:?}: {}", e.message),
                ),
            };
            let why = match use_ {
                Use::SkipRange => "opm validate rejects the catalog.",
                Use::Dependency => {
                    "OLM fails the whole namespace's resolution when it reaches this bundle."
                }
            };
            let help = match range::suggest_rewrite(text) {
                Some(s) => format!("OLM parses ranges with Go's blang/semver, not npm or Cargo syntax; {why} Write `{s}` instead (same meaning)."),
                None => format!("OLM parses ranges with Go's blang/semver: comparators `>=1.2.0`, `<2.0.0`, `!=1.3.0` separated by spaces (AND) or ` || ` (OR), full MAJOR.MINOR.PATCH versions. {why}"),
            };
            let mut diag = d(rule, msg, span_in(ctx, site, e.span.as_ref())).help(help);
            if let Some(s) = range::suggest_rewrite(text) {
                diag = diag.fix(olmlint_base::diag::Fix {
                    description: format!("rewrite range as `{s}`"),
                    safe: true,
                    edits: vec![olmlint_base::diag::Edit::raw(
                        site.file,
                        ctx.files.get(site.file).map_or(site.node.span, |f| {
                            Span::new(
                                olmlint_load::fix::content_start(&f.source.text, site.node),
                                olmlint_load::fix::content_end(&f.source.text, site.node),
                            )
                        }),
                        olmlint_load::fix::json_string(&s),
                    )],
                });
            }
            out.push(diag);
            return None;
        }
    };
    for q in parsed.quirks() {
        let span = span_in(ctx, site, Some(q.span()));
        let (msg, help, sev) = match q {
            Quirk::DroppedToken { text: t, .. } if t == "|" => (
                format!("the trailing {t:?} in {text:?} is ignored"),
                "blang drops one-character tokens; remove it.".to_string(),
                Severity::Warning,
            ),
            Quirk::DroppedToken { text: t, .. } => (
                format!("the token {t:?} in {text:?} is silently dropped, so the range means `{}`", parsed.intervals()),
                match range::suggest_rewrite(text) {
                    Some(s) => format!("blang ignores one-character tokens (`! 1.0.0` means `=1.0.0`, `1.0.0 - 2.0.0` means both versions at once). Write `{s}`."),
                    None => "blang ignores one-character tokens (`! 1.0.0` means `=1.0.0`, `1.0.0 - 2.0.0` means both at once).".to_string(),
                },
                Severity::Warning,
            ),
            Quirk::PatchWildcardOfMajor { .. } => (
                format!("{text:?} means {} in OLM, not [1.0.0, 2.0.0)", parsed.intervals()),
                "blang expands `1.x.x` as a patch wildcard of 1.0; write `1.x` or `>=1.0.0 <2.0.0`.".to_string(),
                Severity::Warning,
            ),
            Quirk::OperatorDroppedOnWildcard { .. } => (
                format!("the operator is dropped from the wildcard in {text:?}: it matches exactly {}", parsed.intervals()),
                "blang drops `~`, `^` and `~>` before an x-wildcard. Write the bounds explicitly, e.g. `>=1.0.0 <2.0.0`.".to_string(),
                Severity::Warning,
            ),
            Quirk::NotEqualWildcard { .. } => (
                format!("`!=` with a wildcard in {text:?} never matches anything (a blang bug)"),
                "Write the excluded interval as two alternatives: `<1.0.0 || >=2.0.0`.".to_string(),
                Severity::Warning,
            ),
            Quirk::NilGroup { .. } => (
                format!("{text:?} has an empty alternative between `||`s; OLM panics evaluating it for versions the earlier alternatives reject"),
                "Remove the doubled `||`.".to_string(),
                Severity::Error,
            ),
        };
        out.push(d("OLM303", msg, span).severity(sev).help(help));
    }
    let empty = parsed.is_empty();
    if empty && !parsed.has_nil_group() {
        let msg = format!("version range {text:?} matches no version at all");
        let mut diag = d("OLM302", msg, site.node.span).help(
            "Tokens separated by spaces are ANDed: `1.0.0 2.0.0` needs both at once, `>2.0.0 <1.0.0` contradicts itself. Use ` || ` for alternatives.",
        );
        if use_ == Use::SkipRange {
            diag = diag.severity(Severity::Warning);
        }
        out.push(diag);
    }
    if use_ == Use::Dependency {
        if parsed.is_exact_pin() && parsed.quirks().is_empty() {
            out.push(
                d("OLM304", format!("{text:?} is an exact pin: only version {} satisfies it", text.trim()), site.node.span)
                    .help(format!("A bare version means `={0}` in OLM, so any newer release of the dependency breaks installation. Most authors mean `>={0}`.", text.trim())),
            );
        }
        if !empty && parsed.has_upper_bound() {
            out.push(
                d("OLM306", format!("{text:?} sets a maximum version ({})", parsed.intervals()), site.node.span)
                    .help("The OLM docs advise against upper bounds on dependencies: they block upgrades of the dependency for every cluster that installs this bundle."),
            );
        }
    }
    Some(parsed)
}

/// OLM305: bundle versions opm does not reject but OLM reads differently: YAML-coerced
/// numbers, and versions of bundle directories (parsed tolerantly by the bundle tooling). In a
/// file-based catalog a string version that is not strict semver fails `opm validate`: OLM104.
fn versions(ctx: &Ctx<'_>, b: &olmlint_model::Bundle<'_>, out: &mut Vec<Diagnostic>) {
    let _ = ctx;
    let Some(p) = b.properties_of("olm.package").next() else {
        return;
    };
    let Some(v) = p.value.as_deref() else { return };
    let Some(e) = v.get_folded("version") else {
        return;
    };
    let pointer = format!("{}/{}", p.value_pointer(), e.key);
    let d = |msg: String| {
        Diagnostic::new("OLM305", msg)
            .at(p.file, e.value.span)
            .pointer(pointer.clone())
            .package(Some(b.package()))
            .bundle(Some(b.name()))
    };
    match &e.value.value {
        Value::String(s) => {
            if !b.from_directory {
                return;
            }
            if let Err(err) = version::parse_tolerant(s) {
                out.push(d(format!("error parsing bundle {:?} version {s:?}: {err}", b.name())).help(
                    "The CSV's spec.version must be a semantic version (MAJOR.MINOR.PATCH); the bundle tooling and opm reject the bundle and OLM cannot order upgrades.",
                ));
            }
        }
        Value::Number { .. } if e.value.is_coerced_scalar() => out.push(
            d(format!("bundle {:?} version is the YAML number {}, not a string", b.name(), e.value.display_scalar()))
                .help("YAML 1.1 reads an unquoted `1.10` as the number 1.1; quote the version (`version: \"1.10.0\"`)."),
        ),
        _ => {}
    }
}
