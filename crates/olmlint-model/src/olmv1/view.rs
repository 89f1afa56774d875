//! One package as operator-controller's catalog cache hands it to the resolver (olmv1 spec
//! §4.3): `catalogmetadata/cache/cache.go` `writeFS` files every meta of the served catalog
//! under `<package>/<schema>/<name, or the schema when unnamed>.json`, so metas with the same
//! (package, schema, name) overwrite each other and the last one written stays; `GetPackage`
//! then reads that directory with `declcfg.LoadFS`, which walks the files in lexical order.
//!
//! What the resolver uses, and so what this view keeps: bundle `name` and `properties`
//! (`olm.package` version and release; `olm.package.required`, `olm.gvk.required` and
//! `olm.constraint` are refused after selection); channel `name` and `entries` (`name`,
//! `replaces`, `skips`, `skipRange`); the `olm.bundle` entries of `Deprecations[0]`. Not used:
//! `defaultChannel`, icons, descriptions, `olm.gvk`, `olm.csv.metadata`, `olm.bundle.object`,
//! related images, `olm.maxOpenShiftVersion`.
//!
//! Order. `LoadFS` parses the files with `runtime.NumCPU()` goroutines, so the order of the
//! bundles it returns is the lexical order of their file names only roughly; this view uses
//! that lexical order (`<name>.json`, byte-wise) and [`Ranked::tie_with_previous`] says where
//! the order decides. The order in which catalogd wrote duplicate metas is likewise file
//! order within one file but not across files (catalogd also parses files concurrently); the
//! view keeps the last in document order.

use crate::index::Index;
use crate::{Bundle, Catalog, Channel, Deprecations, Package};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use olmlint_base::tree::Node;
use olmlint_semantics::olmv1::version::{self as v1version, VersionRelease};
use olmlint_semantics::version::go_quote;
use std::cmp::Ordering;

/// A bundle of the package as the resolver sees it.
#[derive(Debug)]
pub struct ViewBundle<'c, 'a> {
    pub bundle: &'c Bundle<'a>,
    /// Index in [`Catalog::bundles`].
    pub index: usize,
    /// Its name (`""` when it has none).
    pub name: &'a str,
    /// `bundleutil.GetVersionAndRelease`: from the first `olm.package` property, or
    /// upstream's error (such a bundle ranks last and never matches a version range).
    pub version: Result<VersionRelease, String>,
    /// The version as blang reads the legacy form (for skipRanges and display).
    pub semver: Option<semver::Version>,
    /// Named by an `olm.bundle` entry of the deprecation blob the resolver reads.
    pub deprecated: bool,
}

impl ViewBundle<'_, '_> {
    /// The version as OLM v1 records it (`status.install.bundle.version`, legacy form such as
    /// `1.0.0+2`), or `None` when it does not parse.
    pub fn version_text(&self) -> Option<String> {
        self.version.as_ref().ok().map(ToString::to_string)
    }
}

/// A channel of the package (the last blob of each name).
#[derive(Debug)]
pub struct ViewChannel<'c, 'a> {
    pub channel: &'c Channel<'a>,
    /// Index in [`Catalog::channels`].
    pub index: usize,
    pub name: &'a str,
}

/// A meta the cache overwrote: a later one has the same (package, schema, name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overwritten {
    /// `olm.package`, `olm.channel`, `olm.bundle` or `olm.deprecations`.
    pub schema: &'static str,
    /// The file name under the package's schema directory, without `.json`.
    pub name: String,
    /// Index of the lost and of the kept meta in the catalog's list for that schema.
    pub lost: usize,
    pub kept: usize,
}

/// The package as `GetPackage` returns it to `CatalogResolver.Resolve`.
#[derive(Debug)]
pub struct PackageView<'c, 'a> {
    pub name: String,
    /// The `olm.package` blob (the last of that name). The resolver reads nothing from it.
    pub package: Option<&'c Package<'a>>,
    /// Bundles in `LoadFS` order (by file name).
    pub bundles: Vec<ViewBundle<'c, 'a>>,
    /// Channels in `LoadFS` order (by name).
    pub channels: Vec<ViewChannel<'c, 'a>>,
    /// `Deprecations[0]`: the deprecation blob the resolver reads.
    pub deprecation: Option<&'c Deprecations<'a>>,
    /// Metas lost to a later one with the same (package, schema, name).
    pub overwritten: Vec<Overwritten>,
    /// The resolver's ranking of all bundles, best first.
    pub ranked: Ranked,
    by_name: HashMap<&'a str, usize>,
}

/// `slices.SortStableFunc` with `ByDeprecationFunc` then `ByVersionAndRelease`: the order
/// `Resolve` puts candidates in (non-deprecated first, then version and release descending,
/// bundles without a version last, ties in `LoadFS` order). Any filtered subset keeps this
/// relative order, so one global ranking serves every request.
#[derive(Debug, Default)]
pub struct Ranked {
    /// Bundle positions (in [`PackageView::bundles`]), best first.
    pub order: Vec<usize>,
    /// Position → rank (0 = best).
    pub rank: Vec<usize>,
    /// Per rank: whether it compares equal to the one before it (same deprecation and
    /// version-and-release, or both without a version): their order is `LoadFS`'s, which is
    /// not deterministic.
    pub tie_with_previous: Vec<bool>,
}

impl<'c, 'a> PackageView<'c, 'a> {
    /// The view of `package` in `cat`. `bundle_release_support` is the `BundleReleaseSupport`
    /// gate (explicit `release` field of `olm.package`).
    pub fn new(
        cat: &'c Catalog<'a>,
        ix: &Index<'a>,
        package: &str,
        bundle_release_support: bool,
    ) -> Self {
        let blobs = Blobs::of(cat, Some(package));
        Self::with_blobs(cat, ix, package, bundle_release_support, &blobs)
    }

    /// [`PackageView::new`] with the package's `olm.package` and `olm.deprecations` blobs
    /// looked up in `blobs` (grouped once for every package of the catalog).
    fn with_blobs(
        cat: &'c Catalog<'a>,
        ix: &Index<'a>,
        package: &str,
        bundle_release_support: bool,
        blobs: &Blobs<'_>,
    ) -> Self {
        let mut overwritten = Vec::new();
        let pkg_blobs: Vec<usize> = blobs.packages.get(package).cloned().unwrap_or_default();
        let package_blob = last_wins(&pkg_blobs, "olm.package", |_| package, &mut overwritten);
        let channel_ids = ix
            .channels_by_package
            .get(package)
            .cloned()
            .unwrap_or_default();
        let mut channels: Vec<ViewChannel<'c, 'a>> = last_wins_all(
            &channel_ids,
            "olm.channel",
            |i| {
                cat.channels
                    .get(i)
                    .and_then(|c| c.name)
                    .map_or("", |n| n.value)
            },
            &mut overwritten,
        )
        .into_iter()
        .filter_map(|index| {
            let channel = cat.channels.get(index)?;
            Some(ViewChannel {
                channel,
                index,
                name: channel.name.map_or("", |n| n.value),
            })
        })
        .collect();
        channels.sort_by(|a, b| file_order(a.name, b.name, "olm.channel"));
        let deprecation = first_deprecation(
            cat,
            blobs
                .deprecations
                .get(package)
                .map_or(&[][..], Vec::as_slice),
            &mut overwritten,
        );
        let deprecated: HashSet<&str> = deprecation.map_or_else(HashSet::new, |d| {
            d.entries
                .iter()
                .filter(|e| e.schema.is_some_and(|s| s.value == "olm.bundle"))
                .filter_map(|e| e.name.map(|n| n.value))
                .collect()
        });
        let bundle_ids = ix
            .bundles_by_package
            .get(package)
            .cloned()
            .unwrap_or_default();
        let mut bundles: Vec<ViewBundle<'c, 'a>> = last_wins_all(
            &bundle_ids,
            "olm.bundle",
            |i| {
                cat.bundles
                    .get(i)
                    .and_then(|b| b.name)
                    .map_or("", |n| n.value)
            },
            &mut overwritten,
        )
        .into_iter()
        .filter_map(|index| {
            let bundle = cat.bundles.get(index)?;
            let name = bundle.name.map_or("", |n| n.value);
            let version = version_and_release(bundle, name, bundle_release_support);
            let semver = version
                .as_ref()
                .ok()
                .and_then(|v| olmlint_semantics::version::parse_strict(&v.to_string()).ok());
            Some(ViewBundle {
                bundle,
                index,
                name,
                version,
                semver,
                deprecated: deprecated.contains(name),
            })
        })
        .collect();
        bundles.sort_by(|a, b| file_order(a.name, b.name, "olm.bundle"));
        let by_name = bundles
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name, i))
            .collect();
        let ranked = Ranked::of(&bundles);
        PackageView {
            name: package.to_string(),
            package: package_blob.and_then(|i| cat.packages.get(i)),
            bundles,
            channels,
            deprecation,
            overwritten,
            ranked,
            by_name,
        }
    }

    /// Every package of the catalog (any bundle, channel or `olm.package` blob), by name.
    pub fn all(cat: &'c Catalog<'a>, ix: &Index<'a>, bundle_release_support: bool) -> Vec<Self> {
        let mut names: Vec<&str> = ix
            .packages
            .keys()
            .chain(ix.bundles_by_package.keys())
            .chain(ix.channels_by_package.keys())
            .copied()
            .filter(|n| !n.is_empty())
            .collect();
        names.sort_unstable();
        names.dedup();
        let blobs = Blobs::of(cat, None);
        names
            .into_iter()
            .map(|n| PackageView::with_blobs(cat, ix, n, bundle_release_support, &blobs))
            .collect()
    }

    /// `isFBCEmpty` negated: the catalog has some meta of the package.
    pub fn found(&self) -> bool {
        self.package.is_some()
            || !self.bundles.is_empty()
            || !self.channels.is_empty()
            || self.deprecation.is_some()
    }

    /// The position of the bundle named `name`.
    pub fn bundle(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The position of the channel named `name`.
    pub fn channel(&self, name: &str) -> Option<usize> {
        self.channels.iter().position(|c| c.name == name)
    }

    /// The bundle a ClusterExtension naming only the package installs (no channel, no
    /// version; §2.3: `defaultChannel` is never consulted): the best-ranked bundle.
    pub fn default_pick(&self) -> Option<usize> {
        self.ranked.order.first().copied()
    }

    /// Per channel (in [`PackageView::channels`] order), the bundle a ClusterExtension naming
    /// only that channel installs: the best-ranked bundle among its entries.
    pub fn channel_picks(&self) -> Vec<Option<usize>> {
        self.channels
            .iter()
            .map(|c| {
                c.channel
                    .entries
                    .iter()
                    .filter_map(|e| self.bundle(e.name()))
                    .min_by_key(|&p| self.rank(p))
            })
            .collect()
    }

    /// The rank of the bundle at `pos` (0 = best).
    pub fn rank(&self, pos: usize) -> usize {
        self.ranked.rank.get(pos).copied().unwrap_or(usize::MAX)
    }

    /// Upstream's comparison of two bundles (`Less` = ranks before), without the `LoadFS`
    /// order that breaks ties.
    pub fn compare(&self, a: usize, b: usize) -> Ordering {
        match (self.bundles.get(a), self.bundles.get(b)) {
            (Some(x), Some(y)) => compare_bundles(x, y),
            _ => Ordering::Equal,
        }
    }
}

impl Ranked {
    fn of(bundles: &[ViewBundle<'_, '_>]) -> Ranked {
        let mut order: Vec<usize> = (0..bundles.len()).collect();
        let at = |i: usize| bundles.get(i);
        // A stable sort over the LoadFS order, as upstream's.
        order.sort_by(|&a, &b| match (at(a), at(b)) {
            (Some(x), Some(y)) => compare_bundles(x, y),
            _ => Ordering::Equal,
        });
        let mut rank = vec![0; bundles.len()];
        let mut tie_with_previous = Vec::with_capacity(order.len());
        for (r, &p) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(p) {
                *slot = r;
            }
            let tie = r.checked_sub(1).and_then(|q| order.get(q)).is_some_and(|&q| {
                matches!((at(q), at(p)), (Some(x), Some(y)) if compare_bundles(x, y) == Ordering::Equal)
            });
            tie_with_previous.push(tie);
        }
        Ranked {
            order,
            rank,
            tie_with_previous,
        }
    }
}

/// The indices of the `olm.package` and `olm.deprecations` blobs of each package (of one
/// package when `only` names it), grouped in one pass: a view per package must not scan
/// every blob of the catalog again.
struct Blobs<'n> {
    packages: HashMap<&'n str, Vec<usize>>,
    deprecations: HashMap<&'n str, Vec<usize>>,
}

impl<'n> Blobs<'n> {
    fn of(cat: &Catalog<'n>, only: Option<&str>) -> Self {
        let wanted = |n: &str| only.is_none_or(|o| o == n);
        let mut blobs = Blobs {
            packages: HashMap::new(),
            deprecations: HashMap::new(),
        };
        for (i, p) in cat.packages.iter().enumerate() {
            if let Some(n) = p.name.filter(|n| wanted(n.value)) {
                blobs.packages.entry(n.value).or_default().push(i);
            }
        }
        for (i, d) in cat.deprecations.iter().enumerate() {
            if let Some(n) = d.package.filter(|n| wanted(n.value)) {
                blobs.deprecations.entry(n.value).or_default().push(i);
            }
        }
        blobs
    }
}

/// `ByDeprecationFunc` then `ByVersionAndRelease` (descending; errors last).
pub(crate) fn compare_bundles(a: &ViewBundle<'_, '_>, b: &ViewBundle<'_, '_>) -> Ordering {
    a.deprecated
        .cmp(&b.deprecated)
        .then_with(|| match (&a.version, &b.version) {
            (Ok(x), Ok(y)) => y.compare(x),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => Ordering::Equal,
        })
}

/// `LoadFS` walks `<schema>/<name>.json` files in lexical order; an unnamed meta is filed
/// under the schema's name.
fn file_order(a: &str, b: &str, schema: &str) -> Ordering {
    let key = |n: &str| {
        if n.is_empty() {
            schema.to_string()
        } else {
            n.to_string()
        }
    };
    let (a, b) = (key(a), key(b));
    a.bytes()
        .chain(".json".bytes())
        .cmp(b.bytes().chain(".json".bytes()))
}

/// Of metas filed under the same name, the last; the others are recorded as overwritten.
fn last_wins_all<'n>(
    ids: &[usize],
    schema: &'static str,
    name_of: impl Fn(usize) -> &'n str,
    overwritten: &mut Vec<Overwritten>,
) -> Vec<usize> {
    let mut kept: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    let mut order: Vec<&str> = Vec::with_capacity(ids.len());
    for &i in ids {
        let n = name_of(i);
        let n = if n.is_empty() { schema } else { n };
        match kept.insert(n, i) {
            Some(lost) => overwritten.push(Overwritten {
                schema,
                name: n.to_string(),
                lost,
                kept: i,
            }),
            None => order.push(n),
        }
    }
    order.iter().filter_map(|n| kept.get(n).copied()).collect()
}

fn last_wins<'n>(
    ids: &[usize],
    schema: &'static str,
    name_of: impl Fn(usize) -> &'n str,
    overwritten: &mut Vec<Overwritten>,
) -> Option<usize> {
    last_wins_all(ids, schema, name_of, overwritten).pop()
}

/// The deprecation blob `Resolve` reads (`Deprecations[0]`). Blobs are unnamed, so all of a
/// package's are filed as `olm.deprecations.json` and the last one written is the only one
/// left; a blob with a `name` gets a file of its own, and `LoadFS` returns them by file name.
fn first_deprecation<'c, 'a>(
    cat: &'c Catalog<'a>,
    ids: &[usize],
    overwritten: &mut Vec<Overwritten>,
) -> Option<&'c Deprecations<'a>> {
    let name_of = |i: usize| -> &'a str {
        cat.deprecations
            .get(i)
            .and_then(|d| d.doc.node.get_folded("name"))
            .and_then(|e| e.value.as_str())
            .unwrap_or("")
    };
    let mut kept = last_wins_all(ids, "olm.deprecations", name_of, overwritten);
    kept.sort_by(|&a, &b| file_order(name_of(a), name_of(b), "olm.deprecations"));
    kept.first().and_then(|&i| cat.deprecations.get(i))
}

/// `bundleutil.GetVersionAndRelease`: the first `olm.package` property, unmarshalled into
/// `property.Package` (a non-string `version` or `release` fails the whole property), then
/// the explicit release (with the gate, when the field is present) or the legacy reading
/// (release in the build metadata).
fn version_and_release(
    b: &Bundle<'_>,
    name: &str,
    bundle_release_support: bool,
) -> Result<VersionRelease, String> {
    let Some(p) = b.properties_of("olm.package").next() else {
        return Err(format!(
            "no package property found in bundle {}",
            go_quote(name)
        ));
    };
    let Some(value) = p.value.as_deref() else {
        return Err("error unmarshalling package property: unexpected end of JSON input".into());
    };
    if !value.is_null() && value.as_map().is_none() {
        return Err(format!(
            "error unmarshalling package property: json: cannot unmarshal {} into Go value of type property.Package",
            value.go_kind()
        ));
    }
    let field = |key: &str, go: &str| -> Result<Option<&str>, String> {
        match value.get_folded(key).map(|e| &e.value) {
            None => Ok(None),
            Some(n) if n.is_null() => Ok(None),
            Some(n) => n.as_str().map(Some).ok_or_else(|| unmarshal_error(n, go)),
        }
    };
    let version = field("version", "version")?.unwrap_or("");
    let release = field("release", "release")?;
    v1version::from_bundle(version, release, bundle_release_support)
}

fn unmarshal_error(n: &Node, field: &str) -> String {
    format!(
        "error unmarshalling package property: json: cannot unmarshal {} into Go struct field Package.{field} of type string",
        n.go_kind()
    )
}
