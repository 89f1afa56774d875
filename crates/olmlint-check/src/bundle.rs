//! OLM104 bundle-invalid and OLM106 duplicate-version: bundle blobs opm rejects.
//! A version that is not strict semver is OLM104 too, with opm's text (OLM305 covers what opm
//! does not reject: YAML-coerced numbers and bundle directories' tolerant parse).

use super::Ctx;
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_base::tree::Span;
use olmlint_model::formats::image_reference_error;
use olmlint_model::Bundle;
use std::collections::BTreeMap;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // Bundles named by channel entries, per package.
    let mut in_channels: HashSet<(&str, &str)> = HashSet::new();
    for c in &ctx.catalog.channels {
        let pkg = c.package.map_or("", |p| p.value);
        for e in &c.entries {
            if let Some(n) = e.name {
                in_channels.insert((pkg, n.value));
            }
        }
    }
    let mut seen: HashMap<(&str, &str), Location> = HashMap::new();
    let mut images = ValidImages::default();
    for b in ctx.catalog.bundles.iter().filter(|b| !b.from_directory) {
        bundle(ctx, b, &in_channels, &mut seen, &mut images, out);
    }
    empty_skips(ctx, out);
    entries_without_bundles(ctx, out);
    duplicate_versions(ctx, out);
}

/// Image references already found valid: about half of a catalog's references repeat
/// (related images shared by a package's bundles), and a lookup costs far less than the
/// grammar.
#[derive(Default)]
struct ValidImages<'a>(HashSet<&'a str>);

impl<'a> ValidImages<'a> {
    fn error(&mut self, image: &'a str) -> Option<&'static str> {
        if self.0.contains(image) {
            return None;
        }
        let err = image_reference_error(image);
        if err.is_none() {
            self.0.insert(image);
        }
        err
    }
}

/// One bundle's OLM104 checks, read top to bottom: its identity (name, package, duplicates), its
/// `olm.package` property, its images, its channel membership.
fn bundle<'a>(
    ctx: &Ctx<'a>,
    b: &'a Bundle<'a>,
    in_channels: &HashSet<(&str, &str)>,
    seen: &mut HashMap<(&'a str, &'a str), Location>,
    images: &mut ValidImages<'a>,
    out: &mut Vec<Diagnostic>,
) {
    let rules = BundleRules {
        ctx,
        b,
        file: b.doc.file,
        pkg: b.package(),
        name: b.name(),
        at_doc: b.doc.node.span,
    };
    rules.name_and_package(out);
    rules.duplicate_name(seen, out);
    rules.package_property(out);
    rules.images(images, out);
    rules.channel_membership(in_channels, out);
}

/// What every OLM104 check of one bundle reads: the bundle, its names and where it is.
struct BundleRules<'c, 'a> {
    ctx: &'c Ctx<'a>,
    b: &'a Bundle<'a>,
    file: usize,
    pkg: &'a str,
    name: &'a str,
    /// The bundle document: where a finding goes when the field it is about is missing.
    at_doc: Span,
}

impl<'a> BundleRules<'_, 'a> {
    /// An OLM104 diagnostic naming this bundle and its package (when they are set).
    fn d(&self, msg: String) -> Diagnostic {
        Diagnostic::new("OLM104", msg)
            .package(Some(self.pkg).filter(|p| !p.is_empty()))
            .bundle(Some(self.name).filter(|n| !n.is_empty()))
    }

    /// `name` and `package` are set, and the package is declared.
    fn name_and_package(&self, out: &mut Vec<Diagnostic>) {
        let (b, file, pkg, name, at_doc) = (self.b, self.file, self.pkg, self.name, self.at_doc);
        if name.is_empty() {
            out.push(
                self.d("invalid bundle: name must be set".into())
                    .at(file, at_doc)
                    .pointer("/name")
                    .help("Add `name:` (conventionally `<package>.v<version>`)."),
            );
        }
        if pkg.is_empty() {
            out.push(
                self.d(format!("package name must be set for bundle {name:?}"))
                    .at(file, at_doc)
                    .pointer("/package")
                    .help("Add `package:` naming the bundle's package."),
            );
        } else if !self.ctx.index.packages.contains_key(pkg) && self.ctx.complete_for(pkg) {
            out.push(
                self.d(format!("unknown package {pkg:?} for bundle {name:?}"))
                    .at(file, b.package.map_or(at_doc, |p| p.node.span))
                    .pointer("/package")
                    .help("Declare the package with an `olm.package` document, or fix the name."),
            );
        }
    }

    /// A bundle name is unique within its package; `seen` holds the first of each.
    fn duplicate_name(
        &self,
        seen: &mut HashMap<(&'a str, &'a str), Location>,
        out: &mut Vec<Diagnostic>,
    ) {
        let (file, pkg, name) = (self.file, self.pkg, self.name);
        if name.is_empty() {
            return;
        }
        let here = Location {
            file,
            span: self.b.name.map_or(self.at_doc, |n| n.node.span),
        };
        if let Some(prev) = seen.get(&(pkg, name)) {
            out.push(
                self.d(format!("package {pkg:?} has duplicate bundle {name:?}"))
                    .at(file, here.span)
                    .pointer("/name")
                    .related("first declared here", Some(*prev))
                    .help("Bundle names are unique within a package; remove or rename one."),
            );
        } else {
            seen.insert((pkg, name), here);
        }
    }

    /// Exactly one `olm.package` property, naming this package, with a strict semver version
    /// and a valid release.
    fn package_property(&self, out: &mut Vec<Diagnostic>) {
        let (b, file, pkg, name) = (self.b, self.file, self.pkg, self.name);
        let d = |msg: String| self.d(msg);
        let pkg_props: Vec<_> = b.properties_of("olm.package").collect();
        if pkg_props.len() != 1 {
            let at = pkg_props.get(1).map_or(
                b.doc
                    .node
                    .get_folded("properties")
                    .map_or(self.at_doc, |e| e.key_span),
                |p| p.span(),
            );
            out.push(
                d(format!("package {pkg:?} bundle {name:?} must have exactly 1 \"olm.package\" property, found {}", pkg_props.len()))
                    .at(file, at)
                    .pointer(pkg_props.get(1).map_or("/properties".to_string(), |p| p.pointer.clone()))
                    .help("Each bundle carries one `olm.package` property `{packageName, version}`; it is what OLM resolves versions against."),
            );
        }
        let Some(p) = pkg_props.first() else { return };
        let named = p
            .value
            .as_deref()
            .and_then(|v| v.get_folded("packageName"))
            .and_then(|e| e.value.as_str().map(|s| (s, e.value.span)));
        let (value, span) = named.unwrap_or(("", p.span()));
        if !pkg.is_empty() && value != pkg {
            out.push(
                d(format!(
                    "package {pkg:?} does not match \"olm.package\" property {value:?}"
                ))
                .at(file, span)
                .pointer(format!("{}/packageName", p.value_pointer()))
                .help(format!(
                    "Set `packageName: {pkg}` in the `olm.package` property."
                )),
            );
        }
        if pkg_props.len() == 1 {
            version_rule(b, p, &d, out);
        }
        release_rules(b, p, &d, out);
    }

    /// The bundle image (required unless the bundle carries `olm.bundle.object` properties) and
    /// the related images are valid pull specs.
    fn images(&self, images: &mut ValidImages<'a>, out: &mut Vec<Diagnostic>) {
        let (b, file, pkg, name) = (self.b, self.file, self.pkg, self.name);
        let has_objects = b.properties_of("olm.bundle.object").next().is_some();
        match b.image.filter(|i| !i.value.is_empty()) {
            None if !has_objects => out.push(
                self.d(format!("invalid bundle {name:?}: bundle image must be set"))
                    .at(file, b.image.map_or(self.at_doc, |i| i.node.span))
                    .pointer("/image")
                    .help("Set `image:` to the bundle image pull spec (only bundles carrying `olm.bundle.object` properties may omit it)."),
            ),
            Some(img) => {
                if let Some(err) = images.error(img.value) {
                    out.push(
                        self.d(format!("package {pkg:?} bundle {name:?} image: invalid image pull spec {:?}: {err}", img.value))
                            .at(file, img.node.span)
                            .pointer("/image")
                            .help("Use a full reference such as `quay.io/org/bundle@sha256:<digest>` or `…:tag`."),
                    );
                }
            }
            None => {}
        }
        for (i, (_, img)) in b.related_images.iter().enumerate() {
            if let Some(img) = img.filter(|i| !i.value.is_empty()) {
                if let Some(err) = images.error(img.value) {
                    out.push(
                        self.d(format!("package {pkg:?} bundle {name:?} relatedImages[{i}].image: invalid image pull spec {:?}: {err}", img.value))
                            .at(file, img.node.span)
                            .pointer(format!("/relatedImages/{i}/image"))
                            .help("Related images must be valid pull specs; mirroring tools copy them."),
                    );
                }
            }
        }
    }

    /// A bundle of a completely declared package is named by some channel's entries.
    fn channel_membership(&self, in_channels: &HashSet<(&str, &str)>, out: &mut Vec<Diagnostic>) {
        let (pkg, name) = (self.pkg, self.name);
        if !name.is_empty()
            && !pkg.is_empty()
            && !in_channels.contains(&(pkg, name))
            && self.ctx.complete_for(pkg)
        {
            out.push(
                self.d(format!(
                    "package {pkg:?}, bundle {name:?} not found in any channel entries"
                ))
                .at(self.file, self.b.name.map_or(self.at_doc, |n| n.node.span))
                .pointer("/name")
                .help("Add the bundle to a channel's `entries:`, or remove the bundle."),
            );
        }
    }
}

/// `declcfg.ConvertToModel` parses the `olm.package` version with blang's strict
/// `semver.Parse` and fails the catalog. A missing or null version is the empty string to opm
/// (`Version string empty`). A non-string version fails earlier, at property decoding (OLM108).
fn version_rule(
    b: &Bundle<'_>,
    p: &olmlint_model::Property<'_>,
    d: &dyn Fn(String) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) {
    use olmlint_base::tree::Value;
    let value = p.value.as_deref();
    let entry = value.and_then(|v| v.get_folded("version"));
    let (text, span, pointer) = match entry {
        Some(e) => match &e.value.value {
            Value::String(s) => (
                &**s,
                e.value.span,
                format!("{}/{}", p.value_pointer(), e.key),
            ),
            Value::Null => ("", e.value.span, format!("{}/{}", p.value_pointer(), e.key)),
            _ => return,
        },
        None if value.is_some_and(|v| v.as_map().is_none() && !matches!(v.value, Value::Null)) => {
            return
        }
        None => ("", value.map_or(p.span(), |v| v.span), p.value_pointer()),
    };
    let Err(err) = olmlint_semantics::version::parse_strict(text) else {
        return;
    };
    let hint = match olmlint_semantics::version::parse_tolerant(text) {
        Ok(t) if !text.is_empty() => format!(" Write `{t}`."),
        _ if text.is_empty() => {
            " Add `version: <MAJOR.MINOR.PATCH>` to the `olm.package` value.".to_string()
        }
        _ => String::new(),
    };
    out.push(
        d(format!("error parsing bundle {:?} version {text:?}: {err}", b.name()))
            .at(p.file, span)
            .pointer(pointer)
            .help(format!("`opm validate` rejects the catalog: bundle versions must be strict semver MAJOR.MINOR.PATCH (no `v` prefix, no leading zeros, exactly three numbers), optionally with -prerelease and +build. OLM orders upgrades by this version.{hint}")),
    );
}

/// The `release` field of `olm.package` (newer opm): format, name, build-metadata rules.
fn release_rules(
    b: &Bundle<'_>,
    p: &olmlint_model::Property<'_>,
    d: &dyn Fn(String) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) {
    let Some(v) = p.value.as_deref() else { return };
    let Some(rel) = v
        .get_folded("release")
        .and_then(|e| e.value.as_str().map(|s| (s, e.value.span)))
    else {
        return;
    };
    let (release, span) = rel;
    if release.is_empty() {
        return;
    }
    let file = p.file;
    let ident_ok = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !(s.len() > 1 && s.starts_with('0') && s.chars().all(|c| c.is_ascii_digit()))
    };
    let bad = release.len() > 20 || !release.split('.').all(ident_ok);
    let name = b.name();
    if bad {
        out.push(
            d(format!("error parsing bundle {name:?} release version {release:?}: must be dot-separated alphanumeric identifiers without leading zeros, at most 20 characters"))
                .at(file, span)
                .pointer(format!("{}/release", p.value_pointer()))
                .help("Use a release such as `1` or `2.hotfix`."),
        );
    }
    let version = b.version().map_or("", |v| v.value);
    if version.contains('+') {
        out.push(
            d(format!("invalid bundle {name:?}: cannot use build metadata in version with a release version"))
                .at(file, span)
                .pointer(format!("{}/release", p.value_pointer()))
                .help("Drop the `+build` part of `version` or the `release`."),
        );
    }
    let expected = format!("{}-v{version}-{release}", b.package());
    if name != expected {
        out.push(
            d(format!("invalid bundle {name:?}: name {name:?} does not match normalized name {expected:?}"))
                .at(file, b.name.map_or(span, |n| n.node.span))
                .pointer("/name")
                .help(format!("With a `release`, the bundle must be named `{expected}`.")),
        );
    }
}

/// `skips: [""]` (opm: `skip[i] is empty`).
fn empty_skips(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.catalog.channels {
        let pkg = c.package.map_or("", |p| p.value);
        for e in &c.entries {
            let name = e.name.map_or("", |n| n.value);
            for (j, s) in e
                .skips
                .iter()
                .enumerate()
                .filter(|(_, s)| s.value.is_empty())
            {
                out.push(
                    Diagnostic::new(
                        "OLM104",
                        format!("invalid bundle {name:?}: skip[{j}] is empty"),
                    )
                    .at(e.file, s.node.span)
                    .pointer(format!("{}/{j}", e.pointer("skips")))
                    .package(Some(pkg))
                    .bundle(Some(name))
                    .help("Remove the empty `skips` item."),
                );
            }
        }
    }
}

/// Channel entries that name no bundle of their package: opm's error lists them per package;
/// olmlint reports each missing name once, at its first entry, with the other channels that
/// name it as related locations (one root cause, one finding).
fn entries_without_bundles(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    type Site<'s> = (&'s str, Location, String);
    let mut missing: BTreeMap<&str, BTreeMap<&str, Vec<Site<'_>>>> = BTreeMap::new();
    for c in &ctx.catalog.channels {
        let pkg = c.package.map_or("", |p| p.value);
        if !ctx.index.packages.contains_key(pkg) || !ctx.bundles_known(pkg) {
            continue;
        }
        for e in &c.entries {
            let Some(n) = e.name.filter(|n| !n.value.is_empty()) else {
                continue;
            };
            if !ctx.index.bundle.contains_key(&(pkg, n.value)) {
                missing
                    .entry(pkg)
                    .or_default()
                    .entry(n.value)
                    .or_default()
                    .push((
                        c.name.map_or("", |x| x.value),
                        Location {
                            file: e.file,
                            span: n.node.span,
                        },
                        e.pointer("name"),
                    ));
            }
        }
    }
    for (pkg, by_name) in missing {
        let names: Vec<&str> = by_name.keys().copied().collect();
        for (n, sites) in &by_name {
            let Some((channel, loc, pointer)) = sites.first() else {
                continue;
            };
            let channels: Vec<&str> = sites.iter().map(|s| s.0).collect();
            let where_ = match channels.as_slice() {
                [one] => format!("channel {one:?} lists {n}"),
                _ => format!("channels {} list {n}", channels.join(", ")),
            };
            let mut d = Diagnostic::new(
                "OLM104",
                format!(
                    "no olm.bundle blobs found in package {pkg:?} for olm.channel entries [{}] ({where_}, which has no olm.bundle)",
                    names.join(" ")
                ),
            )
            .at(loc.file, loc.span)
            .pointer(pointer.clone())
            .package(Some(pkg))
            .bundle(Some(n))
            .help(format!(
                "opm rejects the whole catalog. Add the `olm.bundle` document for {n}, or remove it from the channel{}.",
                if channels.len() > 1 { "s" } else { "" }
            ));
            for (other, l, _) in sites.iter().skip(1) {
                d = d.related(format!("channel {other:?} lists {n} too"), Some(*l));
            }
            let _ = channel;
            out.push(d);
        }
    }
}

/// OLM106: two bundles of one package with the same version string (+release).
fn duplicate_versions(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (pkg, idxs) in &ctx.index.bundles_by_package {
        let mut by_version: BTreeMap<String, Vec<&Bundle<'_>>> = BTreeMap::new();
        for b in idxs.iter().filter_map(|&i| ctx.catalog.bundles.get(i)) {
            let Some(v) = b.version() else { continue };
            let release = b
                .properties_of("olm.package")
                .next()
                .and_then(|p| {
                    p.value
                        .as_deref()?
                        .get_folded("release")?
                        .value
                        .as_str()
                        .map(str::to_string)
                })
                .filter(|r| !r.is_empty());
            let key = match release {
                Some(r) => format!("{}-{r}", v.value),
                None => v.value.to_string(),
            };
            by_version.entry(key).or_default().push(b);
        }
        for (v, bundles) in by_version.into_iter().filter(|(_, b)| b.len() > 1) {
            out.push(duplicate_version(ctx, pkg, &v, &bundles));
        }
    }
}

/// One OLM106 per package and version: at the second bundle, the others related. A bundle
/// re-released under the same name (append-only repositories keep each release in its own
/// directory) says so instead of repeating the name.
fn duplicate_version(ctx: &Ctx<'_>, pkg: &str, v: &str, bundles: &[&Bundle<'_>]) -> Diagnostic {
    let at = |b: &Bundle<'_>| Location {
        file: b.doc.file,
        span: b.version().map_or(b.doc.node.span, |x| x.node.span),
    };
    let mut names: Vec<&str> = bundles.iter().map(|b| b.name()).collect();
    names.sort_unstable();
    let second = bundles.get(1).or(bundles.first());
    let same_name = names.windows(2).all(|w| w.first() == w.last());
    let place = |b: &Bundle<'_>| {
        let path = ctx.files.get(b.doc.file).map(|f| f.source.path.as_path());
        match (b.from_directory, path) {
            (true, Some(p)) => p
                .ancestors()
                .nth(2)
                .and_then(|d| d.file_name())
                .map(|n| format!("directory {}", n.to_string_lossy()))
                .unwrap_or_default(),
            (_, Some(p)) => olmlint_load::display_path(p),
            _ => String::new(),
        }
    };
    let message = if same_name {
        let places: Vec<String> = bundles.iter().map(|b| place(b)).collect();
        format!(
            "bundle {} (version {v}) is defined {} times: {}; a catalog holds one bundle per name, so only one of these copies can be published",
            names.first().copied().unwrap_or(""),
            bundles.len(),
            places.join(", "),
        )
    } else {
        format!(
            "duplicate versions found in bundles: [{{{v}: [{}]}}]",
            names.join(", ")
        )
    };
    let help = if same_name {
        "Publish a rebuilt bundle under a new version (a higher patch version, and the CSV name to match) so that clusters can upgrade to it; if the copies are archived re-releases, make sure the catalog references the one you mean."
    } else {
        "Every bundle of a package needs a distinct version; OLM orders upgrades and resolves ranges by it."
    };
    let mut d = Diagnostic::new("OLM106", message)
        .package(Some(pkg))
        .help(help);
    // Re-releases kept as directories of an append-only repository are a known practice
    // there (the rendered catalog references one of them): a warning, not opm's error.
    if same_name && bundles.iter().all(|b| b.from_directory) {
        d = d.severity(olmlint_base::diag::Severity::Warning);
    }
    if let Some(b) = second {
        let l = at(b);
        d = d.at(l.file, l.span).bundle(Some(b.name()));
    }
    for b in bundles {
        if second.is_some_and(|s| std::ptr::eq(*s, *b)) {
            continue;
        }
        let note = if same_name {
            format!("another copy of {}", b.name())
        } else {
            format!("{} has the same version", b.name())
        };
        d = d.related(note, Some(at(b)));
    }
    d
}
