//! OLM808 release-config: a bundle directory's `release-config.yaml` (the pipelines' FBC
//! release automation) as operator-pipelines judge it, and what the release would do with it.
//!
//! - The schema (`operatorcert/schemas/release-config-schema.json`,
//!   check_validate_schema_bundle_release_config).
//! - check_bundle_release_config: the operator has `fbc.enabled` in ci.yaml, every template
//!   named is a `template_name` of ci.yaml's `fbc.catalog_mapping`, and a semver template's
//!   channels are among `Fast`, `Candidate`, `Stable`.
//! - The release itself (`add_bundle_to_fbc.py`, run as a dry run on the pull request): for a
//!   basic template, the entry `{name: <CSV name>, replaces, skips, skipRange}` is appended to
//!   each listed channel, the catalogs are rendered and `opm validate` runs. An entry that
//!   neither replaces nor skips the channel's head leaves the channel with two heads, and the
//!   dry run fails (a `replaces` naming no entry: amd-gpu-operator 1.5.1, whose `replaces`
//!   lacked the CSV name's `v`).
//!
//! The pipelines judge the file of the bundle a pull request adds; the files of bundles
//! released before were accepted by the rules (and the ci.yaml) of their day
//! ([`crate::Ctx::as_added`]).

use super::Ctx;
use olmlint_base::diag::{Diagnostic, Location};
use olmlint_base::tree::Node;
use olmlint_load::{LoadedFile, Role};
use olmlint_model::operators::{DirBundle, OperatorDir};

const SEMVER_CHANNELS: [&str; 3] = ["Fast", "Candidate", "Stable"];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // The bundle directories by root and each package's newest, found once (when a file
    // needs them).
    let mut bundles: Option<Bundles<'_, '_>> = None;
    for (fi, f) in ctx.files.iter().enumerate() {
        if f.scope != ctx.scope || f.role != Role::ReleaseConfig || !f.problems.is_empty() {
            continue;
        }
        let Some(root) = f.docs.first().and_then(|d| d.root.as_ref()) else {
            continue;
        };
        // An empty file is not read by the pipelines.
        if root.is_null() {
            continue;
        }
        let Some(bundle_dir) = f.source.path.parent() else {
            continue;
        };
        let known = bundles.get_or_insert_with(|| Bundles::of(ctx));
        let bundle = known.by_root.get(bundle_dir).copied();
        let is_newest =
            bundle.is_some_and(|b| known.newest.contains(&std::ptr::from_ref(b).cast::<()>()));
        let Some(severity) = ctx.as_added(bundle_dir, is_newest) else {
            continue;
        };
        let mut found = Vec::new();
        if schema(fi, root, &mut found) {
            out.extend(found.into_iter().map(|d| d.severity(severity)));
            continue;
        }
        let op = bundle
            .and_then(|b| b.operator)
            .and_then(|o| ctx.catalog.operators.get(o));
        let Some(op) = op else { continue };
        let release = Release {
            ctx,
            file: fi,
            op,
            bundle,
        };
        release.check(root, &mut found);
        out.extend(found.into_iter().map(|d| d.severity(severity)));
    }
}

/// The catalog's bundle directories by root, and each package's newest.
struct Bundles<'c, 'a> {
    by_root: std::collections::HashMap<&'a std::path::Path, &'c DirBundle<'a>>,
    newest: std::collections::HashSet<*const ()>,
}

impl<'c, 'a> Bundles<'c, 'a> {
    fn of(ctx: &'c Ctx<'a>) -> Self {
        Bundles {
            by_root: ctx
                .catalog
                .dir_bundles
                .iter()
                .map(|b| (b.root, b))
                .collect(),
            newest: crate::operators::newest_of(&crate::operators::packages(ctx.catalog)),
        }
    }
}

/// The schema; `true` when the file does not match it (nothing else is judged then).
fn schema(fi: usize, root: &Node, out: &mut Vec<Diagnostic>) -> bool {
    let found = crate::operators::schema_findings(
        ("release-config", "OLM808", "release-config.yaml"),
        fi,
        root,
        "The pipelines validate release-config.yaml against this schema (check_validate_schema_bundle_release_config) and fail the pull request. `olmlint schema release-config` prints it.",
    );
    let invalid = !found.is_empty();
    out.extend(found);
    invalid
}

/// One release-config.yaml, with its operator and bundle.
struct Release<'c, 'a> {
    ctx: &'c Ctx<'a>,
    file: usize,
    op: &'c OperatorDir<'a>,
    bundle: Option<&'c DirBundle<'a>>,
}

impl Release<'_, '_> {
    fn check(&self, root: &Node, out: &mut Vec<Diagnostic>) {
        let ci = self.op.config.map(|c| c.node);
        if !self.op.fbc {
            out.push(
                Diagnostic::new("OLM808", "release-config.yaml is used but FBC is not enabled for the operator: the pipelines fail the pull request (check_bundle_release_config)".to_string())
                    .at(self.file, root.span)
                    .related("ci.yaml", self.op.config.map(|c| Location { file: c.file, span: c.node.span }))
                    .help("The FBC release automation adds the bundle to the catalog templates it names, which only FBC operators have. Set `fbc.enabled: true` (with `fbc.catalog_mapping`) in ci.yaml, or delete release-config.yaml."),
            );
            return;
        }
        let mapping = ci
            .and_then(|c| c.get("fbc"))
            .and_then(|f| f.get("catalog_mapping"))
            .and_then(Node::as_seq)
            .unwrap_or_default();
        let items = root
            .get("catalog_templates")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for (i, item) in items.iter().enumerate() {
            let Some(name_node) = item.get("template_name") else {
                continue;
            };
            let Some(name) = name_node.as_str() else {
                continue;
            };
            let mapped = mapping
                .iter()
                .find(|m| m.get("template_name").and_then(Node::as_str) == Some(name));
            let Some(mapped) = mapped else {
                self.unmapped(i, name, name_node, mapping, out);
                continue;
            };
            let channels: Vec<(&str, &Node)> = item
                .get("channels")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| Some((c.as_str()?, c)))
                .collect();
            match mapped.get("type").and_then(Node::as_str) {
                Some("olm.semver") => self.semver_channels(i, name, &channels, out),
                Some("olm.template.basic") => self.basic_entry(i, name, item, &channels, out),
                _ => {}
            }
        }
    }

    /// check_bundle_release_config: a template ci.yaml does not map.
    fn unmapped(
        &self,
        i: usize,
        name: &str,
        node: &Node,
        mapping: &[Node],
        out: &mut Vec<Diagnostic>,
    ) {
        let names: Vec<&str> = mapping
            .iter()
            .filter_map(|m| m.get("template_name").and_then(Node::as_str))
            .collect();
        let hint = olmlint_base::suggest::closest(name, names.iter().copied())
            .map(|n| format!(" Did you mean {n:?}?"))
            .unwrap_or_default();
        out.push(
            Diagnostic::new("OLM808", format!("release-config.yaml names catalog template {name:?}, which ci.yaml's fbc.catalog_mapping does not map: the pipelines fail the pull request (check_bundle_release_config)"))
                .at(self.file, node.span)
                .pointer(format!("/catalog_templates/{i}/template_name"))
                .bundle(self.bundle.map(DirBundle::name))
                .help(format!("The release adds the bundle to the templates ci.yaml maps to catalogs ({}).{hint} Name one of them, or map the template in ci.yaml first.", if names.is_empty() { "none yet".to_string() } else { names.join(", ") })),
        );
    }

    /// check_bundle_release_config: a semver template's channels are its archetypes.
    fn semver_channels(
        &self,
        i: usize,
        name: &str,
        channels: &[(&str, &Node)],
        out: &mut Vec<Diagnostic>,
    ) {
        for (j, (c, node)) in channels.iter().enumerate() {
            if SEMVER_CHANNELS.contains(c) {
                continue;
            }
            out.push(
                Diagnostic::new("OLM808", format!("release-config.yaml adds the bundle to channel {c:?} of semver template {name:?}, but a semver template's channels are Fast, Candidate and Stable: the pipelines fail the pull request (check_bundle_release_config)"))
                    .at(self.file, node.span)
                    .pointer(format!("/catalog_templates/{i}/channels/{j}"))
                    .bundle(self.bundle.map(DirBundle::name))
                    .help("An olm.semver template lists bundles under its Fast, Candidate and Stable archetypes (spelled so) and generates the channels from their versions. Name one of those."),
            );
        }
    }

    /// The release's dry run: the entry appended to each listed channel of a basic template
    /// must replace or skip the channel's head, or the channel has two heads.
    fn basic_entry(
        &self,
        i: usize,
        name: &str,
        item: &Node,
        channels: &[(&str, &Node)],
        out: &mut Vec<Diagnostic>,
    ) {
        let Some(template) = self.template(name) else {
            return;
        };
        let Some(csv) = self.bundle.map(DirBundle::name).filter(|n| !n.is_empty()) else {
            return;
        };
        let replaces = item.get("replaces").and_then(Node::as_str);
        let skips: Vec<&str> = item
            .get("skips")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::as_str)
            .collect();
        for (channel, node) in channels {
            let Some(entries) = channel_entries(template, channel) else {
                continue;
            };
            // Already there: the release adds nothing.
            if entries.iter().any(|e| e.name == csv) {
                continue;
            }
            let heads = heads(&entries);
            let stranded: Vec<&str> = heads
                .into_iter()
                .filter(|h| replaces != Some(*h) && !skips.contains(h))
                .collect();
            let Some(head) = stranded.first() else {
                continue;
            };
            let (site, pointer) = match item.get("replaces") {
                Some(r) => (r.span, format!("/catalog_templates/{i}/replaces")),
                None => (node.span, format!("/catalog_templates/{i}/channels")),
            };
            let why = match replaces {
                Some(r) if !entries.iter().any(|e| e.name == r) => {
                    let hint = olmlint_base::suggest::closest(r, entries.iter().map(|e| e.name))
                        .map(|n| format!(" (did you mean {n:?}?)"))
                        .unwrap_or_default();
                    format!("replaces {r:?}, which is no entry of the channel{hint}")
                }
                Some(r) => format!("replaces {r:?}, which is not the channel's head {head:?}"),
                None => "neither replaces nor skips its head".to_string(),
            };
            out.push(
                Diagnostic::new("OLM808", {
                    let mut heads = [*head, csv];
                    heads.sort_unstable();
                    format!("release-config.yaml adds {csv} to channel {channel:?} of template {name:?}, but it {why}: the release's dry run fails in opm validate with \"multiple channel heads found in graph: {}\"", heads.join(", "))
                })
                    .at(self.file, site)
                    .pointer(pointer)
                    .bundle(Some(csv))
                    .help(format!("The release appends `{{name: {csv}, replaces, skips, skipRange}}` to the channel as written. Set `replaces: {head}` (the CSV name exactly, with its `v`), or list it under `skips`.")),
            );
        }
    }

    /// The loaded catalog template `name` of the operator.
    fn template(&self, name: &str) -> Option<&Node> {
        let path = self.op.root.join("catalog-templates").join(name);
        self.ctx
            .files
            .iter()
            .find(|f: &&LoadedFile| f.role == Role::Template && f.source.path == path)
            .and_then(|f| f.docs.first())
            .and_then(|d| d.root.as_ref())
    }
}

/// An entry of a basic template's channel.
struct Entry<'n> {
    name: &'n str,
    replaces: Option<&'n str>,
    skips: Vec<&'n str>,
}

/// The entries of channel `channel` in a basic template (`None`: no such channel, or an empty
/// one, which the release fills without a head to replace).
fn channel_entries<'n>(template: &'n Node, channel: &str) -> Option<Vec<Entry<'n>>> {
    let docs = template.get("entries").and_then(Node::as_seq)?;
    let ch = docs.iter().find(|d| {
        d.get("schema").and_then(Node::as_str) == Some("olm.channel")
            && d.get("name").and_then(Node::as_str) == Some(channel)
    })?;
    let entries: Vec<Entry<'n>> = ch
        .get("entries")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| {
            Some(Entry {
                name: e.get("name").and_then(Node::as_str)?,
                replaces: e.get("replaces").and_then(Node::as_str),
                skips: e
                    .get("skips")
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Node::as_str)
                    .collect(),
            })
        })
        .collect();
    (!entries.is_empty()).then_some(entries)
}

/// Entries no other entry replaces or skips (opm's channel heads).
fn heads<'n>(entries: &[Entry<'n>]) -> Vec<&'n str> {
    let reached: std::collections::HashSet<&str> = entries
        .iter()
        .flat_map(|e| e.replaces.into_iter().chain(e.skips.iter().copied()))
        .collect();
    entries
        .iter()
        .map(|e| e.name)
        .filter(|n| !reached.contains(n))
        .collect()
}
