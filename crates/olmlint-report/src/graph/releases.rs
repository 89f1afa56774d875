//! Bundle-directory operators per OpenShift release: the pipelines add each bundle to the
//! indexes its `com.redhat.openshift.versions` selects, so the upgrade graph a cluster sees
//! depends on its OpenShift release. Releases whose indexes hold the same bundles share one
//! drawing; a package whose releases all agree keeps the one graph of the catalog model.

use super::{channel, EntryView, Facts, Filter, PackageGraph};
use olmlint_model::operators::{release_groups, DirBundle, Index, OperatorDir, UpdateGraph};
use olmlint_model::Catalog;
use olmlint_semantics::openshift::Release;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// "4.12–4.16, 4.18": releases as ranges of consecutive minors.
fn releases_text(releases: &[Release]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run: Option<(Release, Release)> = None;
    for &r in releases {
        run = match run {
            Some((first, last)) if last.0 == r.0 && last.1 + 1 == r.1 => Some((first, r)),
            Some(done) => {
                parts.push(range_text(done));
                Some((r, r))
            }
            None => Some((r, r)),
        };
    }
    parts.extend(run.map(range_text));
    parts.join(", ")
}

fn range_text((first, last): (Release, Release)) -> String {
    if first == last {
        format!("{}.{}", first.0, first.1)
    } else {
        format!("{}.{}–{}.{}", first.0, first.1, last.0, last.1)
    }
}

/// The graphs of the bundle-directory packages whose indexes differ between OpenShift
/// releases, one per group of releases; and the names of those packages (their graph from
/// the catalog model is replaced by these).
pub fn per_release(
    cat: &Catalog<'_>,
    filter: &Filter,
    label: &str,
    scope: usize,
) -> (Vec<PackageGraph>, BTreeSet<String>) {
    let mut packages: BTreeMap<&str, Vec<&DirBundle<'_>>> = BTreeMap::new();
    for b in &cat.dir_bundles {
        if !b.package().is_empty() && filter.package.as_deref().is_none_or(|p| p == b.package()) {
            packages.entry(b.package()).or_default().push(b);
        }
    }
    let mut graphs = Vec::new();
    let mut replaced = BTreeSet::new();
    for (package, bundles) in packages {
        let op = bundles
            .first()
            .and_then(|b| b.operator)
            .and_then(|o| cat.operators.get(o));
        let Some(mode) = op.map_or(Some(UpdateGraph::Replaces), OperatorDir::mode) else {
            continue;
        };
        let groups = release_groups(&bundles);
        if groups.len() < 2 {
            continue;
        }
        replaced.insert(package.to_string());
        let versions: HashMap<&str, String> = bundles
            .iter()
            .filter_map(|b| Some((b.name(), b.version?.value.to_string())))
            .collect();
        let deprecated: BTreeSet<&str> = bundles
            .iter()
            .filter(|b| {
                cat.bundles
                    .get(b.bundle)
                    .is_some_and(|x| x.properties_of("olm.deprecated").next().is_some())
            })
            .map(|b| b.name())
            .collect();
        for (members, releases) in groups {
            let subset: Vec<&DirBundle<'_>> = members
                .iter()
                .filter_map(|&i| bundles.get(i).copied())
                .collect();
            let names: BTreeSet<&str> = subset.iter().map(|b| b.name()).collect();
            let index = Index::build(&subset, mode);
            let facts = Facts {
                version: &|b| versions.get(b).cloned(),
                exists: &|b| names.contains(b),
                deprecated: &|b| deprecated.contains(b),
            };
            let default = index.default_channel.map(|d| d.value.to_string());
            let channels = index
                .channels
                .iter()
                .filter(|(name, _)| filter.channel.as_deref().is_none_or(|c| c == **name))
                .map(|(name, members)| {
                    let views: Vec<EntryView<'_>> = members
                        .iter()
                        .map(|m| EntryView {
                            name: m.bundle.name(),
                            replaces: m.replaces.map(|r| r.value),
                            skips: m.skips.iter().map(|s| s.value).collect(),
                            skip_range: m.bundle.skip_range.map(|r| r.value),
                        })
                        .collect();
                    channel(
                        name,
                        default.as_deref() == Some(*name),
                        false,
                        None,
                        &views,
                        &facts,
                    )
                })
                .collect::<Vec<_>>();
            if channels.is_empty() {
                continue;
            }
            graphs.push(PackageGraph {
                catalog: format!("{label} · OpenShift {}", releases_text(&releases)),
                scope,
                name: package.to_string(),
                default_channel: default,
                deprecated: false,
                channels,
            });
        }
    }
    (graphs, replaced)
}

#[cfg(test)]
mod tests {
    #[test]
    fn releases_are_written_as_ranges() {
        assert_eq!(
            super::releases_text(&[(4, 12), (4, 13), (4, 14), (4, 16), (4, 18), (4, 19)]),
            "4.12–4.14, 4.16, 4.18–4.19"
        );
        assert_eq!(super::releases_text(&[(4, 20)]), "4.20");
    }
}
