//! Packages and channels of bundle-directory operators (`operators/<name>/<version>/`), built
//! the way the production index is built from them: `opm index add --mode <updateGraph>`
//! (operator-registry's sqlite loader, `pkg/registry/populator.go`, `pkg/sqlite/load.go`,
//! `pkg/registry/bundlegraphloader.go`). The book's "Bundle-directory repositories"
//! (docs/src/bundle-directories.md) says what is reproduced and why.
//!
//! - **replaces-mode.** Each channel's head is the highest version (build metadata counts)
//!   among the bundles whose `channels.v1` lists the channel. The channel holds the head and
//!   every bundle reached from it through `spec.replaces`, plus the bundles its members'
//!   `spec.skips` name (one hop). A bundle listed in a channel but not reached is dropped from
//!   it (`add prunes bundle`); a `replaces` naming a bundle that does not exist fails the build
//!   (`replaces nonexistent bundle`), as does a cycle. `olm.skipRange` adds no membership.
//! - **semver-mode.** A channel holds every bundle listing it, ordered by version (build
//!   metadata ignored); each replaces the next lower one; `spec.replaces`, `spec.skips` and
//!   `olm.skipRange` play no part in the graph. Two bundles of one version fail the build.
//! - **The default channel** is `channel.default.v1` of the highest version that sets one;
//!   without any, the only channel (replaces-mode) or the oldest bundle's alphabetically first
//!   channel (semver-mode).
//!
//! Operators with `fbc.enabled: true` in `ci.yaml` are released from catalog templates, not
//! through `opm index add`: their bundles get no channels here (the FBC catalog has them).
//!
//! **OpenShift versions.** The pipelines build one index per OpenShift release from the
//! bundles whose `com.redhat.openshift.versions` selects it. The catalog model here is the
//! union over the indexes built today ([`openshift::INDEXED`]): bundles only older releases
//! hold are left out. What differs between releases (a `replaces` target missing from one,
//! a bundle pruned from one) is checked per release by `check::operators`.

use super::{Channel, ChannelEntry, DocRef, Package, Str};
use olmlint_base::tree::Node;
use olmlint_load::{LoadedFile, Role};
use olmlint_semantics::openshift::{self, Release, Selection};
use olmlint_semantics::version;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub const PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";
pub const CHANNELS: &str = "operators.operatorframework.io.bundle.channels.v1";
pub const DEFAULT_CHANNEL: &str = "operators.operatorframework.io.bundle.channel.default.v1";
pub const OPENSHIFT_VERSIONS: &str = "com.redhat.openshift.versions";
pub const SKIP_RANGE: &str = "olm.skipRange";

/// Channels of one bundle directory that are modelled (the rest of its `channels.v1` is left
/// out, with an OLM001 finding). Every membership becomes a channel entry, a resolver entry
/// and a place in every per-channel check (~600 bytes each), while it costs a few bytes of
/// input: 5 000 channels on each of 1 000 bundles took 3.2 GB. Real bundles list a handful.
pub const MAX_CHANNELS_PER_BUNDLE: usize = 64;

/// `updateGraph` of `ci.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateGraph {
    Replaces,
    Semver,
}

/// An operator directory: `ci.yaml` next to version directories.
#[derive(Debug)]
pub struct OperatorDir<'a> {
    pub root: PathBuf,
    /// The `ci.yaml` document, when the directory has one that parsed.
    pub config: Option<DocRef<'a>>,
    /// `updateGraph` as written (absent: replaces-mode, as the pipelines default).
    pub update_graph: Option<Str<'a>>,
    /// `fbc.enabled: true`: released from catalog templates, not `opm index add`.
    pub fbc: bool,
}

impl OperatorDir<'_> {
    /// The mode `opm index add` runs in; `None` for a value the pipelines reject.
    pub fn mode(&self) -> Option<UpdateGraph> {
        match self.update_graph.map(|m| m.value) {
            None | Some("replaces-mode") => Some(UpdateGraph::Replaces),
            Some("semver-mode") => Some(UpdateGraph::Semver),
            Some(_) => None,
        }
    }
}

/// What a registry+v1 bundle directory says about its place in the index.
#[derive(Debug)]
pub struct DirBundle<'a> {
    /// Index in [`super::Catalog::bundles`].
    pub bundle: usize,
    pub root: &'a Path,
    pub annotations: DocRef<'a>,
    pub csv: DocRef<'a>,
    pub package: Option<Str<'a>>,
    pub name: Option<Str<'a>>,
    pub version: Option<Str<'a>>,
    /// `channels.v1`, split on `,` (trimmed; [`DirBundle::untrimmed_channels`] says when
    /// opm, which does not trim, sees other names).
    pub channels: Vec<Str<'a>>,
    /// How many channels `channels.v1` lists beyond [`MAX_CHANNELS_PER_BUNDLE`] (not in
    /// `channels`).
    pub channels_left_out: usize,
    pub channels_node: Option<&'a Node>,
    pub default_channel: Option<Str<'a>>,
    pub openshift: Option<Str<'a>>,
    pub replaces: Option<Str<'a>>,
    pub skips: Vec<Str<'a>>,
    pub skip_range: Option<Str<'a>>,
    pub min_kube_version: Option<Str<'a>>,
    /// The OpenShift releases `com.redhat.openshift.versions` selects (`None`: not set or
    /// not readable, every index).
    pub selection: Option<Selection>,
    /// Index in [`super::Catalog::operators`].
    pub operator: Option<usize>,
}

impl<'a> DirBundle<'a> {
    pub fn name(&self) -> &'a str {
        self.name.map_or("", |n| n.value)
    }
    /// Whether the pipelines add the bundle to the index of OpenShift `release`.
    pub fn in_release(&self, release: Release) -> bool {
        self.selection.is_none_or(|s| s.contains(release))
    }
    /// Whether the bundle is in any index built today ([`openshift::INDEXED`]).
    pub fn indexed(&self) -> bool {
        self.selection.is_none_or(|s| !s.indexed().is_empty())
    }
    pub fn package(&self) -> &'a str {
        self.package.map_or("", |n| n.value)
    }
    /// The CSV version as opm orders bundles (`semver.Parse`; build metadata kept).
    pub fn parsed_version(&self) -> Option<semver::Version> {
        version::parse_strict(self.version?.value).ok()
    }
    /// Whether `channels.v1` has white space around a name (opm keeps it: `"a, b"` makes a
    /// channel named `" b"`).
    pub fn untrimmed_channels(&self) -> bool {
        self.channels_node
            .and_then(Node::as_str)
            .is_some_and(|s| s.split(',').any(|c| c != c.trim()))
    }
}

pub(super) fn str_at<'a>(n: &'a Node, path: &[&str]) -> Option<Str<'a>> {
    let mut cur = n;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(Str {
        value: cur.as_str()?,
        node: cur,
    })
}

/// The index-relevant fields of one bundle directory.
pub(super) fn describe<'a>(
    bundle: usize,
    root: &'a Path,
    annotations: DocRef<'a>,
    csv: DocRef<'a>,
) -> DirBundle<'a> {
    let ann = |k: &str| str_at(annotations.node, &["annotations", k]);
    let channels_node = annotations
        .node
        .get("annotations")
        .and_then(|a| a.get(CHANNELS));
    let mut channels: Vec<Str<'a>> = Vec::new();
    let mut channels_left_out = 0;
    if let Some((node, s)) = channels_node.and_then(|n| Some((n, n.as_str()?))) {
        for value in s.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if channels.len() < MAX_CHANNELS_PER_BUNDLE {
                channels.push(Str { value, node });
            } else {
                channels_left_out += 1;
            }
        }
    }
    let skips = csv
        .node
        .get("spec")
        .and_then(|s| s.get("skips"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|n| {
            Some(Str {
                value: n.as_str()?,
                node: n,
            })
        })
        .collect();
    DirBundle {
        bundle,
        root,
        annotations,
        csv,
        package: ann(PACKAGE),
        name: str_at(csv.node, &["metadata", "name"]),
        version: str_at(csv.node, &["spec", "version"]),
        channels,
        channels_left_out,
        channels_node,
        default_channel: ann(DEFAULT_CHANNEL).filter(|d| !d.value.trim().is_empty()),
        openshift: ann(OPENSHIFT_VERSIONS),
        replaces: str_at(csv.node, &["spec", "replaces"]).filter(|r| !r.value.is_empty()),
        skips,
        skip_range: str_at(csv.node, &["metadata", "annotations", SKIP_RANGE]),
        min_kube_version: str_at(csv.node, &["spec", "minKubeVersion"]),
        selection: ann(OPENSHIFT_VERSIONS)
            .and_then(|o| openshift::parse(o.value).ok())
            .map(|(s, _)| s),
        operator: None,
    }
}

/// The operator directory of a bundle directory: its parent (`<op>/<version>/`), or its
/// grandparent for `<op>/<version>/bundle/`, whichever holds the `ci.yaml` read.
fn operator_of(root: &Path, configs: &HashMap<&Path, usize>) -> Option<usize> {
    root.ancestors()
        .skip(1)
        .take(2)
        .find_map(|a| configs.get(a).copied())
}

/// Operator directories of this catalog (from the `ci.yaml` files loaded) and, for each
/// package released through `opm index add`, its package, channels and entries.
pub(super) fn build<'a>(files: &'a [LoadedFile], scope: usize, cat: &mut super::Catalog<'a>) {
    let mut configs: HashMap<&Path, usize> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        if f.scope != scope || f.role != Role::OperatorConfig {
            continue;
        }
        let Some(dir) = f.source.path.parent() else {
            continue;
        };
        let doc = f.docs.iter().find_map(|d| {
            Some(DocRef {
                file: fi,
                doc: d.index,
                node: d.root.as_ref().filter(|r| r.as_map().is_some())?,
            })
        });
        let fbc = doc
            .and_then(|d| d.node.get("fbc"))
            .and_then(|f| f.get("enabled"))
            .is_some_and(|e| matches!(e.value, olmlint_base::tree::Value::Bool(true)));
        configs.insert(dir, cat.operators.len());
        cat.operators.push(OperatorDir {
            root: dir.to_path_buf(),
            config: doc,
            update_graph: doc.and_then(|d| str_at(d.node, &["updateGraph"])),
            fbc,
        });
    }
    for b in &mut cat.dir_bundles {
        b.operator = operator_of(b.root, &configs);
    }
    // Packages by name; bundles of a package in directory order.
    let mut packages: BTreeMap<&'a str, Vec<usize>> = BTreeMap::new();
    // Only bundles some index built today holds: one for OpenShift 4.6–4.8 alone is history.
    for (i, b) in cat.dir_bundles.iter().enumerate() {
        if b.package().is_empty() || !b.indexed() {
            continue;
        }
        let fbc = b
            .operator
            .and_then(|o| cat.operators.get(o))
            .is_some_and(|o| o.fbc);
        if !fbc {
            packages.entry(b.package()).or_default().push(i);
        }
    }
    // The bundles are read while the catalog gains packages and channels.
    let dir_bundles = std::mem::take(&mut cat.dir_bundles);
    for members in packages.values() {
        let mode = members
            .first()
            .and_then(|&i| dir_bundles.get(i))
            .and_then(|b| b.operator)
            .and_then(|o| cat.operators.get(o))
            .and_then(OperatorDir::mode)
            // A value the pipelines reject (OLM801) is modelled as their default.
            .unwrap_or(UpdateGraph::Replaces);
        let bundles: Vec<&DirBundle<'a>> =
            members.iter().filter_map(|&i| dir_bundles.get(i)).collect();
        let index = Index::build(&bundles, mode);
        index.into_catalog(&bundles, cat);
    }
    cat.dir_bundles = dir_bundles;
}

/// The OpenShift releases indexed today, grouped by the bundles (indices into `bundles`) their
/// index holds: releases holding the same bundles share one group (one `opm index add` build).
/// Releases holding none are left out.
pub fn release_groups(bundles: &[&DirBundle<'_>]) -> Vec<(Vec<usize>, Vec<Release>)> {
    let mut groups: Vec<(Vec<usize>, Vec<Release>)> = Vec::new();
    for r in openshift::indexed_releases() {
        let members: Vec<usize> = (0..bundles.len())
            .filter(|&i| bundles.get(i).is_some_and(|b| b.in_release(r)))
            .collect();
        if members.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(m, _)| *m == members) {
            Some((_, rs)) => rs.push(r),
            None => groups.push((members, vec![r])),
        }
    }
    groups
}

/// The index `opm index add` builds for one package from a set of its bundles.
#[derive(Debug, Default)]
pub struct Index<'b, 'a> {
    /// Channel name → its members, head first, each with its replaces/skips as the index
    /// records them.
    pub channels: BTreeMap<&'a str, Vec<Member<'b, 'a>>>,
    pub default_channel: Option<Str<'a>>,
    pub errors: Vec<IndexError<'b, 'a>>,
}

#[derive(Debug, Clone)]
pub struct Member<'b, 'a> {
    pub bundle: &'b DirBundle<'a>,
    /// What the entry replaces (semver-mode: the next lower version, made up).
    pub replaces: Option<Str<'a>>,
    pub skips: Vec<Str<'a>>,
}

/// Why `opm index add` fails (or silently drops a bundle) for this package.
#[derive(Debug)]
pub enum IndexError<'b, 'a> {
    /// replaces-mode: `Invalid bundle <head>, replaces nonexistent bundle <target>`.
    ReplacesMissing {
        bundle: &'b DirBundle<'a>,
        target: Str<'a>,
        channel: &'a str,
    },
    /// replaces-mode: `Cycle detected, X replaces Y`.
    Cycle {
        bundle: &'b DirBundle<'a>,
        target: Str<'a>,
        channel: &'a str,
        path: Vec<&'a str>,
    },
    /// Two bundles share the highest version of a channel (replaces-mode) or a version
    /// (semver-mode).
    SameVersion {
        channel: &'a str,
        bundles: Vec<&'b DirBundle<'a>>,
    },
    /// Listed in a channel that does not hold it: `add prunes bundle`.
    Pruned {
        bundle: &'b DirBundle<'a>,
        channel: Str<'a>,
        head: &'b DirBundle<'a>,
    },
    /// No default channel can be chosen, or it names a channel without a head.
    DefaultChannel {
        at: Option<&'b DirBundle<'a>>,
        message: String,
    },
}

/// opm's `BuildIdCompare`: semver precedence, then build metadata.
fn build_id_cmp(a: &semver::Version, b: &semver::Version) -> std::cmp::Ordering {
    version::cmp(a, b).then_with(|| a.build.cmp(&b.build))
}

impl<'b, 'a> Index<'b, 'a> {
    pub fn build(bundles: &[&'b DirBundle<'a>], mode: UpdateGraph) -> Self {
        let mut index = Index::default();
        // Bundles listing each channel, in ascending version order.
        let mut listed: BTreeMap<&'a str, Vec<(&'b DirBundle<'a>, Option<semver::Version>)>> =
            BTreeMap::new();
        for &b in bundles {
            let v = b.parsed_version();
            olmlint_base::timings::work(
                olmlint_base::timings::Work::Memberships,
                b.channels.len() as u64,
            );
            for c in &b.channels {
                listed.entry(c.value).or_default().push((b, v.clone()));
            }
        }
        let zero = version::min_version();
        for list in listed.values_mut() {
            list.sort_by(|(_, x), (_, y)| {
                build_id_cmp(x.as_ref().unwrap_or(&zero), y.as_ref().unwrap_or(&zero))
            });
        }
        match mode {
            UpdateGraph::Replaces => index.replaces_mode(bundles, &listed),
            UpdateGraph::Semver => index.semver_mode(&listed),
        }
        index.default_channel(bundles, mode, &listed);
        index
    }

    fn replaces_mode(
        &mut self,
        bundles: &[&'b DirBundle<'a>],
        listed: &BTreeMap<&'a str, Vec<(&'b DirBundle<'a>, Option<semver::Version>)>>,
    ) {
        let by_name: HashMap<&str, &'b DirBundle<'a>> =
            bundles.iter().map(|b| (b.name(), *b)).collect();
        for (&channel, list) in listed {
            let Some((head, hv)) = list.last() else {
                continue;
            };
            let tied: Vec<&'b DirBundle<'a>> = list
                .iter()
                .filter(|(_, v)| v.as_ref().zip(hv.as_ref()).is_some_and(|(v, h)| v == h))
                .map(|(b, _)| *b)
                .collect();
            // opm fails the build ("more than one potential channel head"); OLM106 reports the
            // duplicate version. The channel stays in the model with the last as its head.
            if tied.len() > 1 {
                self.errors.push(IndexError::SameVersion {
                    channel,
                    bundles: tied,
                });
            }
            let mut members: Vec<Member<'b, 'a>> = Vec::new();
            let mut on_chain: HashMap<&str, usize> = HashMap::new();
            let mut cur = Some(*head);
            while let Some(b) = cur.take() {
                on_chain.insert(b.name(), members.len());
                members.push(Member {
                    bundle: b,
                    replaces: b.replaces,
                    skips: b.skips.clone(),
                });
                let Some(target) = b.replaces else { break };
                if let Some(&at) = on_chain.get(target.value) {
                    let mut path: Vec<&'a str> = members
                        .get(at..)
                        .unwrap_or_default()
                        .iter()
                        .map(|m| m.bundle.name())
                        .collect();
                    path.push(target.value);
                    self.errors.push(IndexError::Cycle {
                        bundle: b,
                        target,
                        channel,
                        path,
                    });
                    break;
                }
                match by_name.get(target.value) {
                    Some(next) => cur = Some(*next),
                    None => self.errors.push(IndexError::ReplacesMissing {
                        bundle: b,
                        target,
                        channel,
                    }),
                }
            }
            // Bundles named by a member's `skips` are entries too (one hop).
            let mut extra = Vec::new();
            for m in &members {
                for s in &m.skips {
                    if let Some(&sb) = by_name.get(s.value) {
                        if !on_chain.contains_key(sb.name()) {
                            on_chain.insert(sb.name(), usize::MAX);
                            // A skipped entry is a stub: opm records no edges from it.
                            extra.push(Member {
                                bundle: sb,
                                replaces: None,
                                skips: vec![],
                            });
                        }
                    }
                }
            }
            members.extend(extra);
            // Off the chain, and no bundle of the channel names it (`replaces`, `skips`) or
            // covers it (`olm.skipRange`): opm drops it and operator-pipelines'
            // check_dangling_bundles fails too. One that something points at still has an
            // upgrade path on clusters, so it is left to the graph rules (OLM111).
            let ranges: Vec<std::sync::Arc<olmlint_semantics::range::IntervalSet>> = list
                .iter()
                .filter_map(|(x, _)| x.skip_range)
                .filter_map(|r| olmlint_semantics::range::intervals_of(r.value))
                .collect();
            let named: std::collections::HashSet<&str> = list
                .iter()
                .flat_map(|(x, _)| x.replaces.iter().chain(x.skips.iter()).map(|r| r.value))
                .collect();
            for (b, v) in list {
                let covered = named.contains(b.name())
                    || v.as_ref()
                        .is_some_and(|v| ranges.iter().any(|r| r.contains(v)));
                if !on_chain.contains_key(b.name()) && !covered {
                    let Some(c) = b.channels.iter().find(|c| c.value == channel) else {
                        continue;
                    };
                    self.errors.push(IndexError::Pruned {
                        bundle: b,
                        channel: *c,
                        head,
                    });
                }
            }
            self.channels.insert(channel, members);
        }
    }

    fn semver_mode(
        &mut self,
        listed: &BTreeMap<&'a str, Vec<(&'b DirBundle<'a>, Option<semver::Version>)>>,
    ) {
        for (&channel, list) in listed {
            // Ordered without build metadata; equal versions fail the build.
            let mut members: Vec<Member<'b, 'a>> = Vec::new();
            let mut prev: Option<(&'b DirBundle<'a>, &semver::Version)> = None;
            let mut reported = false;
            for (b, v) in list {
                let Some(v) = v else { continue };
                if let Some((p, pv)) = prev {
                    if version::cmp(pv, v).is_eq() {
                        if !reported {
                            self.errors.push(IndexError::SameVersion {
                                channel,
                                bundles: vec![p, b],
                            });
                        }
                        reported = true;
                        continue;
                    }
                }
                members.push(Member {
                    bundle: b,
                    replaces: prev.and_then(|(p, _)| p.name),
                    skips: vec![],
                });
                prev = Some((b, v));
            }
            members.reverse();
            self.channels.insert(channel, members);
        }
    }

    fn default_channel(
        &mut self,
        bundles: &[&'b DirBundle<'a>],
        mode: UpdateGraph,
        listed: &BTreeMap<&'a str, Vec<(&'b DirBundle<'a>, Option<semver::Version>)>>,
    ) {
        let zero = version::min_version();
        let mut by_version: Vec<(&'b DirBundle<'a>, semver::Version)> = bundles
            .iter()
            .map(|b| (*b, b.parsed_version().unwrap_or_else(|| zero.clone())))
            .collect();
        by_version.sort_by(|(_, x), (_, y)| build_id_cmp(x, y));
        if listed.is_empty() {
            self.errors.push(IndexError::DefaultChannel {
                at: by_version.last().map(|(b, _)| *b),
                message: format!(
                    "no bundle of the package lists a channel in `{CHANNELS}`, so the index \
                     has no channel head to take the default from"
                ),
            });
            return;
        }
        let chosen = by_version
            .iter()
            .rev()
            .find_map(|(b, _)| Some((*b, b.default_channel?)));
        match chosen {
            Some((b, d)) => {
                if !listed.contains_key(d.value) {
                    let known: Vec<&str> = listed.keys().copied().collect();
                    self.errors.push(IndexError::DefaultChannel {
                        at: Some(b),
                        message: format!(
                            "the default channel {:?} (from {}, the highest version that sets \
                             one) is a channel no bundle of the package lists ({})",
                            d.value,
                            b.name(),
                            if known.is_empty() {
                                "no channels at all".to_string()
                            } else {
                                format!("channels: {}", known.join(", "))
                            }
                        ),
                    });
                }
                self.default_channel = Some(d);
            }
            None => match mode {
                UpdateGraph::Replaces => {
                    // The index is built one release at a time, oldest first: a package whose
                    // channel heads were a single channel got that channel as its default, and
                    // a later bundle without the annotation keeps it.
                    let mut seen: std::collections::BTreeSet<&str> = Default::default();
                    for (b, _) in &by_version {
                        seen.extend(b.channels.iter().map(|c| c.value));
                        if seen.len() == 1 {
                            self.default_channel =
                                self.default_channel.or_else(|| b.channels.first().copied());
                        }
                    }
                    if self.default_channel.is_none() {
                        let known: Vec<&str> = listed.keys().copied().collect();
                        self.errors.push(IndexError::DefaultChannel {
                            at: by_version.last().map(|(b, _)| *b),
                            message: format!(
                                "no bundle sets `{DEFAULT_CHANNEL}` and the package has \
                                 {} channels ({}): opm index add fails with \"unable to \
                                 determine default channel among channel heads\"",
                                known.len(),
                                known.join(", ")
                            ),
                        });
                    }
                }
                UpdateGraph::Semver => {
                    // A new package gets the alphabetically first channel of its first bundle.
                    self.default_channel = by_version
                        .first()
                        .and_then(|(b, _)| b.channels.iter().min_by_key(|c| c.value).copied());
                }
            },
        }
    }

    /// Add this package's model (package, channels, entries) to the catalog.
    fn into_catalog(self, bundles: &[&'b DirBundle<'a>], cat: &mut super::Catalog<'a>) {
        let zero = version::min_version();
        let Some(newest) = bundles.iter().max_by(|x, y| {
            build_id_cmp(
                &x.parsed_version().unwrap_or_else(|| zero.clone()),
                &y.parsed_version().unwrap_or_else(|| zero.clone()),
            )
        }) else {
            return;
        };
        cat.packages.push(Package {
            doc: newest.annotations,
            name: newest.package,
            default_channel: self.default_channel,
            icon: newest.csv.node.get("spec").and_then(|s| s.get("icon")),
            from_directory: true,
        });
        for (name, members) in self.channels {
            let Some(head) = members.first() else {
                continue;
            };
            let Some(channel_name) = head.bundle.channels.iter().find(|c| c.value == name) else {
                continue;
            };
            let entries = members
                .iter()
                .enumerate()
                .map(|(index, m)| ChannelEntry {
                    node: m.bundle.csv.node,
                    file: m.bundle.csv.file,
                    index,
                    name: m.bundle.name,
                    replaces: m.replaces,
                    skips: m.skips.clone(),
                    skip_range: m.bundle.skip_range,
                    from_directory: true,
                })
                .collect();
            cat.channels.push(Channel {
                doc: head.bundle.annotations,
                package: head.bundle.package,
                name: Some(*channel_name),
                entries,
            });
        }
    }
}
