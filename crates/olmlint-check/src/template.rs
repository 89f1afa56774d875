//! Catalog templates (OLM901–OLM906): the files maintainers edit in FBC repositories, checked
//! before `opm alpha render-template` runs.
//!
//! - Each template is read as opm reads it (`model::template`: OLM901 basic, OLM902 semver).
//! - A basic template's entries are a catalog of their own and go through every catalog check,
//!   with findings at template lines. Its bundles are image references: when the ci.yaml
//!   `fbc.catalog_mapping` names catalogs whose rendered `catalog.yaml` is loaded, their bundle
//!   documents stand in for the images; otherwise the checks that need bundle contents are
//!   skipped for the package, and OLM904 says so.
//! - A semver template's channels and edges are generated (`semantics::semver_template`) when
//!   the rendered catalog gives every bundle's version.
//! - `ci.yaml` ↔ templates ↔ catalogs (OLM905), and rendered catalogs that differ from what
//!   their template renders today (OLM906, "forgot to run `make catalogs`").

use olmlint_base::diag::{Diagnostic, Location, Severity};
use olmlint_base::tree::{Node, Span};
use olmlint_load::{LoadedFile, Role};
use olmlint_model::template::{self, Basic, Body, RenderedBundle, Semver, Template};
use olmlint_model::Catalog;
use olmlint_semantics::semver_template::{self as gen, Archetype, Stream};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Checks one catalog (the lint stage's per-catalog checks), for a template's entries: the
/// catalog, its scope, its name, and the linted catalogs (scopes) its bundles are rendered into
/// (the first context of its dependencies).
pub type CheckCatalog<'a> =
    dyn Fn(Catalog<'a>, usize, String, &[usize]) -> Vec<Diagnostic> + Sync + 'a;

/// What a semver template renders to, when every bundle's version is known: the channels opm
/// generates (`olmlint graph` draws them).
#[derive(Debug)]
pub struct SemverChannels {
    /// The template file.
    pub file: usize,
    pub package: String,
    pub generated: gen::Generated,
    /// Bundle name → version.
    pub versions: HashMap<String, String>,
}

/// Scopes no file has: a template's catalog is checked under one of these.
const TEMPLATE_SCOPES: usize = usize::MAX / 2;

/// A `fbc.catalog_mapping` item of an operator's ci.yaml.
struct MapItem<'a> {
    template: &'a str,
    template_node: &'a Node,
    ty: Option<&'a Node>,
    catalogs: Vec<(&'a str, &'a Node)>,
}

struct Operator<'a> {
    /// `operators/<op>`.
    dir: PathBuf,
    ci: usize,
    items: Vec<MapItem<'a>>,
    /// Template name → the catalogs its items map it to, each once, in the order first
    /// mapped, with the place of its last mapping (the last one mapped is where the
    /// template's dependencies resolve). Duplicate items (OLM905) made the template stage
    /// do its work once per copy.
    by_template: HashMap<&'a str, Vec<(&'a str, usize)>>,
}

fn display(files: &[LoadedFile], fi: usize) -> String {
    files
        .get(fi)
        .map_or_else(String::new, |f| f.source.display.clone())
}

/// A path without `.` components, for comparing paths the walk produced.
fn norm(p: &Path) -> PathBuf {
    olmlint_load::io::lexical(Path::new(""), p)
}

fn operators<'a>(files: &'a [LoadedFile], linted: usize) -> Vec<Operator<'a>> {
    let mut out = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        if f.role != Role::OperatorConfig || f.scope >= linted {
            continue;
        }
        let Some(dir) = f.source.path.parent() else {
            continue;
        };
        let root = f
            .docs
            .iter()
            .find(|d| !d.failed)
            .and_then(|d| d.root.as_ref());
        let mut items = Vec::new();
        let mapping = root
            .and_then(|r| r.get("fbc"))
            .and_then(|f| f.get("catalog_mapping"))
            .and_then(Node::as_seq)
            .unwrap_or(&[]);
        for item in mapping {
            let Some(name) = item.get("template_name") else {
                continue;
            };
            let Some(template) = name.as_str() else {
                continue;
            };
            let catalogs = item
                .get("catalog_names")
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .filter_map(|n| n.as_str().map(|s| (s, n)))
                .collect();
            items.push(MapItem {
                template,
                template_node: name,
                ty: item.get("type"),
                catalogs,
            });
        }
        let mut by_template: HashMap<&str, Vec<(&str, usize)>> = HashMap::new();
        let mut at: HashMap<(&str, &str), usize> = HashMap::new();
        let mappings = items
            .iter()
            .flat_map(|i| i.catalogs.iter().map(move |(c, _)| (i.template, *c)));
        for (place, (template, cat)) in mappings.enumerate() {
            let cats = by_template.entry(template).or_default();
            match at.get(&(template, cat)).and_then(|&k| cats.get_mut(k)) {
                Some(slot) => slot.1 = place,
                None => {
                    at.insert((template, cat), cats.len());
                    cats.push((cat, place));
                }
            }
        }
        out.push(Operator {
            dir: norm(dir),
            ci: fi,
            items,
            by_template,
        });
    }
    out
}

/// Every check of this family. `catalogs`: the linted catalogs' models by scope (rendered
/// catalogs are read from them); `check` runs the catalog checks on a basic template's catalog.
/// Also returns the packages and bundle entries of the templates that no linted catalog
/// counts already, for the summary.
pub fn check_all<'a>(
    files: &'a [LoadedFile],
    linted: usize,
    catalogs: &HashMap<usize, &Catalog<'a>>,
    check: &CheckCatalog<'a>,
) -> (Vec<Diagnostic>, Vec<SemverChannels>, [usize; 2]) {
    let layout = Layout::new(files, linted);
    // The packages the linted catalogs count already (declared, or of a bundle).
    let counted: HashSet<&str> = catalogs
        .values()
        .flat_map(|c| {
            c.packages
                .iter()
                .filter_map(|p| p.name.map(|n| n.value))
                .chain(c.bundles.iter().map(|b| b.package()))
        })
        .collect();
    let prepared: Vec<Prepared<'a>> = layout
        .templates
        .par_iter()
        .map(|&fi| layout.prepare(catalogs, &counted, fi))
        .collect();
    let mut out = Vec::new();
    let mut pending = Vec::new();
    let mut generated = Vec::new();
    let mut counts = [0usize; 2];
    for (diags, p, g, c) in prepared {
        out.extend(diags);
        pending.extend(p);
        generated.extend(g);
        counts[0] += c[0];
        counts[1] += c[1];
    }
    out.extend(check_basic_catalogs(files, pending, check));
    layout.mappings(&mut out);
    (out, generated, counts)
}

/// One template's own findings, its catalog when it is a basic template, the channels it
/// generates when it is a semver template, and the packages and bundles it counts for.
type Prepared<'a> = (
    Vec<Diagnostic>,
    Option<Pending<'a>>,
    Option<SemverChannels>,
    [usize; 2],
);

/// Where the linted repository's templates, operators and rendered catalogs are.
struct Layout<'a> {
    files: &'a [LoadedFile],
    /// Scopes below this are linted catalogs.
    linted: usize,
    /// The linted template files, in file order.
    templates: Vec<usize>,
    /// Operators by directory.
    ops: HashMap<PathBuf, Operator<'a>>,
    /// Rendered catalogs: every linted catalog file, by path.
    by_path: HashMap<PathBuf, usize>,
}

impl<'a> Layout<'a> {
    fn new(files: &'a [LoadedFile], linted: usize) -> Self {
        let templates: Vec<usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.scope < linted && template::is_template_file(f))
            .map(|(i, _)| i)
            .collect();
        let ops: HashMap<PathBuf, Operator<'_>> = operators(files, linted)
            .into_iter()
            .map(|o| (o.dir.clone(), o))
            .collect();
        let by_path: HashMap<PathBuf, usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == Role::Fbc && f.scope < linted)
            .map(|(i, f)| (norm(&f.source.path), i))
            .collect();
        Layout {
            files,
            linted,
            templates,
            ops,
            by_path,
        }
    }

    /// Reads template `fi` and runs its own checks, with the bundles of the rendered catalogs
    /// ci.yaml maps it to.
    fn prepare(
        &self,
        catalogs: &HashMap<usize, &Catalog<'a>>,
        counted: &HashSet<&str>,
        fi: usize,
    ) -> Prepared<'a> {
        let files = self.files;
        let mut diags = Vec::new();
        let Some(t) = template::read(files, fi, &mut diags) else {
            return (diags, None, None, [0; 2]);
        };
        let Some(f) = files.get(fi) else {
            return (diags, None, None, [0; 2]);
        };
        let path = norm(&f.source.path);
        let (mut rendered, mut newest) = self.rendered_catalogs(&path);
        let mut elsewhere = Vec::new();
        let pipelines = self.operator_of(&path).is_some();
        if !pipelines {
            // An operator team's own repository: paired by images (issue #45).
            let paired = crate::template_pairing::pair(files, catalogs, self.linted, &t, &path);
            (rendered, elsewhere, newest) = (paired.own, paired.elsewhere, paired.newest);
        }
        let all: Vec<(String, usize)> = rendered.iter().chain(&elsewhere).cloned().collect();
        let lookup = rendered_lookup(files, catalogs, &all);
        duplicate_images(&t, &mut diags);
        let inputs = Inputs {
            files,
            catalogs,
            t: &t,
            lookup: &lookup,
            rendered: &rendered,
            newest,
            how: how_to_resolve(pipelines, all.is_empty()),
        };
        let (pending, channels, bundles) = match &t.body {
            Body::Basic(b) => (Some(basic(inputs, b, &mut diags)), None, b.bundle_entries),
            Body::Semver(s) => (None, semver(inputs, s, &mut diags), s.bundles.len()),
        };
        let pending = pending.map(|(catalog, resolved, extra)| Pending {
            t,
            catalog,
            resolved,
            extra,
        });
        // What the summary counts: the template's packages and bundle entries, unless a linted
        // catalog (the one it is rendered into, bundle directories of its package) counts
        // them already. A semver template is one package, its bundles'.
        let packages = match &pending {
            Some(p) => p
                .packages()
                .into_iter()
                .filter(|n| !counted.contains(n))
                .count(),
            None => usize::from(bundles > 0 && rendered.is_empty()),
        };
        let counts = if packages > 0 {
            [packages, bundles]
        } else {
            [0; 2]
        };
        (diags, pending, channels, counts)
    }

    /// The operator (pipelines layout) whose `catalog-templates/` holds the template at `path`.
    fn operator_of(&self, path: &Path) -> Option<&Operator<'a>> {
        path.parent()
            .filter(|d| d.file_name().is_some_and(|n| n == "catalog-templates"))
            .and_then(Path::parent)
            .and_then(|d| self.ops.get(d))
    }

    /// The rendered catalogs (name, file) that the operator holding the template at `path` maps
    /// it to, and of those the last one mapped (the newest).
    fn rendered_catalogs(&self, path: &Path) -> (Vec<(String, usize)>, Option<usize>) {
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let op = self.operator_of(path);
        let mut rendered: Vec<(String, usize)> = Vec::new();
        // The rendered catalog of the last mapped catalog that is rendered.
        let mut newest: Option<usize> = None;
        let Some(op) = op else {
            return (rendered, newest);
        };
        let repo = op
            .dir
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        let opdir = op.dir.file_name().unwrap_or_default();
        let path = |cat: &str| {
            self.by_path
                .get(
                    &repo
                        .join("catalogs")
                        .join(cat)
                        .join(opdir)
                        .join("catalog.yaml"),
                )
                .copied()
        };
        let mut newest_place = None;
        for &(cat, place) in op.by_template.get(file_name).into_iter().flatten() {
            if let Some(ri) = path(cat) {
                rendered.push((cat.to_string(), ri));
                if newest_place.is_none_or(|p| p < place) {
                    newest_place = Some(place);
                    newest = Some(ri);
                }
            }
        }
        (rendered, newest)
    }

    /// OLM905 for every operator's ci.yaml mapping.
    fn mappings(&self, out: &mut Vec<Diagnostic>) {
        // The `catalogs/` directories the rendered catalogs are in
        // (`<repo>/catalogs/<version>/<operator>/<file>`).
        let catalog_dirs: HashSet<&Path> = self
            .by_path
            .keys()
            .filter_map(|p| p.ancestors().nth(3))
            .filter(|d| d.file_name().is_some_and(|n| n == "catalogs"))
            .collect();
        // Templates by directory.
        let mut by_dir: HashMap<PathBuf, Vec<(usize, &str)>> = HashMap::new();
        for (i, f) in self.files.iter().enumerate() {
            if f.role != Role::Template {
                continue;
            }
            let path = norm(&f.source.path);
            if let (Some(dir), Some(name)) = (
                path.parent(),
                f.source.path.file_name().and_then(|n| n.to_str()),
            ) {
                by_dir.entry(dir.to_path_buf()).or_default().push((i, name));
            }
        }
        for op in self.ops.values() {
            let in_dir = by_dir
                .get(&op.dir.join("catalog-templates"))
                .map_or(&[][..], Vec::as_slice);
            Mapping::new(self, op, in_dir, &catalog_dirs).check(out);
        }
    }
}

/// The bundles of the rendered catalogs, by image (the first catalog listing an image wins).
fn rendered_lookup<'a>(
    files: &[LoadedFile],
    catalogs: &HashMap<usize, &Catalog<'a>>,
    rendered: &[(String, usize)],
) -> HashMap<&'a str, RenderedBundle<'a>> {
    let mut lookup: HashMap<&str, RenderedBundle<'_>> = HashMap::new();
    let mut read = rendered.len() as u64 + 1;
    for (_, ri) in rendered {
        let Some(cat) = files.get(*ri).and_then(|f| catalogs.get(&f.scope)) else {
            continue;
        };
        for (k, v) in template::rendered_bundles(cat, *ri) {
            read += 1;
            lookup.entry(k).or_insert(v);
        }
    }
    olmlint_base::timings::work(olmlint_base::timings::Work::Mappings, read);
    lookup
}

/// Basic templates' catalogs, checked in batches: one check per catalog they are rendered
/// into (its resolution is built once, not once per template), each batch holding a package
/// once; templates rendered nowhere are checked alone.
fn check_basic_catalogs<'a>(
    files: &'a [LoadedFile],
    pending: Vec<Pending<'a>>,
    check: &CheckCatalog<'a>,
) -> impl Iterator<Item = Diagnostic> {
    let checked: Vec<Vec<Diagnostic>> = batches(pending)
        .into_par_iter()
        .enumerate()
        .map(|(n, batch)| check_batch(files, batch, TEMPLATE_SCOPES + n, check))
        .collect();
    checked.into_iter().flatten()
}

/// OLM903: the same image twice where opm renders each listing (basic: anywhere; semver: in one
/// archetype, where opm refuses it as a duplicate bundle name).
fn duplicate_images(t: &Template<'_>, out: &mut Vec<Diagnostic>) {
    let groups: Vec<(Option<Archetype>, Vec<&template::ImageRef<'_>>)> = match &t.body {
        Body::Basic(b) => vec![(None, b.bundles.iter().collect())],
        Body::Semver(s) => Archetype::ALL
            .iter()
            .map(|a| {
                (
                    Some(*a),
                    s.bundles
                        .iter()
                        .filter(|(x, _)| x == a)
                        .map(|(_, r)| r)
                        .collect(),
                )
            })
            .collect(),
    };
    for (arch, refs) in groups {
        let mut first: HashMap<&str, &template::ImageRef<'_>> = HashMap::new();
        for r in refs {
            let Some(prev) = first.get(r.image.value) else {
                first.insert(r.image.value, r);
                continue;
            };
            let (msg, why) = match arch {
                None => (
                    format!("bundle image {} is listed twice", r.image.value),
                    "opm renders each listing, so the catalog holds the bundle twice and `opm validate` rejects it (package has duplicate bundle)",
                ),
                Some(a) => (
                    format!("duplicate bundle name: image {} is listed twice in {}", r.image.value, a.name()),
                    "opm refuses the semver template (duplicate bundle name)",
                ),
            };
            out.push(
                Diagnostic::new("OLM903", msg)
                    .at(t.doc.file, r.image.node.span)
                    .pointer(r.pointer.clone())
                    .related(
                        "first listed here",
                        Some(Location {
                            file: t.doc.file,
                            span: prev.image.node.span,
                        }),
                    )
                    .help(format!("{why}. Remove this entry.")),
            );
        }
    }
}

/// OLM2xx–OLM5xx: constraints, ranges, CEL, installability.
fn is_dependency_rule(rule: &str) -> bool {
    matches!(rule.as_bytes(), [b'O', b'L', b'M', b'2'..=b'5', ..])
}

/// The entries item of a basic template holding `span`.
fn entry_of(b: &Basic<'_>, span: Span) -> Option<usize> {
    b.entry_spans
        .iter()
        .position(|s| s.start() <= span.start() && span.end() <= s.end())
}

/// What the checks of one template read: the loaded files, the template, the rendered
/// bundles by image, and the rendered catalogs the template is mapped to (name, file).
#[derive(Clone, Copy)]
struct Inputs<'i, 'a> {
    files: &'a [LoadedFile],
    catalogs: &'i HashMap<usize, &'i Catalog<'a>>,
    t: &'i Template<'a>,
    lookup: &'i HashMap<&'a str, RenderedBundle<'a>>,
    rendered: &'i [(String, usize)],
    /// Of those, the last one mapped (the newest), where its dependencies resolve.
    newest: Option<usize>,
    /// What to do so that the images resolve (OLM904's help).
    how: &'static str,
}

/// OLM904's advice: in the pipelines layout, map the template or render the catalogs; in an
/// operator team's own repository, lint the catalogs rendered from it with it.
fn how_to_resolve(pipelines: bool, nothing_rendered: bool) -> &'static str {
    match (pipelines, nothing_rendered) {
        (true, true) => "Map the template in the operator's ci.yaml (`fbc.catalog_mapping`) and lint the repository root, so that the rendered `catalogs/<version>/<operator>/catalog.yaml` supplies what each image holds",
        (true, false) => "Run `make catalogs` so that the rendered catalogs hold these images; olmlint reads what each image holds from them",
        (false, true) => "Lint the repository root (or the template's directory) with the catalog rendered from it: olmlint pairs a template with the linted catalogs holding its images, and reads what each image holds from them",
        (false, false) => "Render the catalog again (`opm alpha render-template`) so that it holds these images; olmlint reads what each image holds from the catalogs rendered from the template",
    }
}

/// A basic template whose catalog is still to be checked.
struct Pending<'a> {
    t: Template<'a>,
    catalog: Catalog<'a>,
    /// What each of its bundle images resolved to in the rendered catalogs.
    resolved: Vec<Option<RenderedBundle<'a>>>,
    /// The linted catalog its bundles are rendered into (their dependencies resolve there).
    extra: Option<usize>,
}

impl Pending<'_> {
    /// The packages its catalog declares or mentions.
    fn packages(&self) -> BTreeSet<&str> {
        let c = &self.catalog;
        c.packages
            .iter()
            .filter_map(|p| p.name.map(|n| n.value))
            .chain(c.channels.iter().filter_map(|x| x.package.map(|p| p.value)))
            .chain(c.bundles.iter().map(|b| b.package()))
            .collect()
    }
}

/// Group pending templates into batches checked as one catalog: those rendered into the same
/// linted catalog, no package twice in a batch (a package's own findings must not depend on
/// another template's). Templates rendered nowhere are batches of their own: together they
/// would see each other's packages, which alone they do not.
fn batches(pending: Vec<Pending<'_>>) -> Vec<Vec<Pending<'_>>> {
    let mut out: Vec<Vec<Pending<'_>>> = Vec::new();
    let mut open: HashMap<usize, Vec<(usize, BTreeSet<String>)>> = HashMap::new();
    for p in pending {
        let Some(extra) = p.extra else {
            out.push(vec![p]);
            continue;
        };
        let pkgs: BTreeSet<String> = p.packages().into_iter().map(str::to_string).collect();
        let slots = open.entry(extra).or_default();
        match slots.iter_mut().find(|(_, taken)| taken.is_disjoint(&pkgs)) {
            Some((i, taken)) => {
                taken.extend(pkgs);
                if let Some(batch) = out.get_mut(*i) {
                    batch.push(p);
                }
            }
            None => {
                slots.push((out.len(), pkgs));
                out.push(vec![p]);
            }
        }
    }
    out
}

/// Check a batch of templates as one catalog and give each template its findings: those in
/// its file (pointers from the template's root) and those on a rendered bundle it lists,
/// moved to the template line of its image. The rest is the rendered catalogs' own business
/// (their run reports it).
fn check_batch<'a>(
    files: &'a [LoadedFile],
    batch: Vec<Pending<'a>>,
    scope: usize,
    check: &CheckCatalog<'a>,
) -> Vec<Diagnostic> {
    let mut catalog = Catalog::default();
    let mut members = Vec::with_capacity(batch.len());
    let mut extra = None;
    for p in batch {
        catalog.append(p.catalog);
        extra = extra.or(p.extra);
        members.push((p.t, p.resolved));
    }
    let name = match members.as_slice() {
        [(t, _)] => display(files, t.doc.file),
        _ => format!("{} catalog templates", members.len()),
    };
    let by_file: HashMap<usize, usize> = members
        .iter()
        .enumerate()
        .map(|(i, (t, _))| (t.doc.file, i))
        .collect();
    // Where each rendered bundle a template lists sits, by rendered file: a finding on it is
    // looked up among the few bundles of its file (not among every bundle of the batch).
    let mut sites: HashMap<usize, Vec<(usize, &template::ImageRef<'a>, &RenderedBundle<'a>)>> =
        HashMap::new();
    for (t, resolved) in &members {
        let Some(b) = t.basic() else { continue };
        for (r, rb) in b.bundles.iter().zip(resolved) {
            if let Some(rb) = rb {
                sites
                    .entry(rb.doc.file)
                    .or_default()
                    .push((t.doc.file, r, rb));
            }
        }
    }
    let mut out = Vec::new();
    for mut d in check(catalog, scope, name, extra.as_slice()) {
        let Some(loc) = d.location else {
            continue;
        };
        if let Some((t, _)) = by_file.get(&loc.file).and_then(|&i| members.get(i)) {
            if let Some(i) = t.basic().and_then(|b| entry_of(b, loc.span)) {
                // The catalog checks point from the entry (a blob of its own).
                let p = d.pointer.take().unwrap_or_default();
                d.pointer = Some(format!("/entries/{i}{p}"));
            }
            out.push(d);
            continue;
        }
        // Only what the template decides moves to it: a bundle's dependencies (constraints,
        // ranges, CEL, installability). What the image holds or how it was rendered (OLM1xx,
        // OLM7xx) is the rendered catalog's.
        if !is_dependency_rule(d.rule) {
            continue;
        }
        let site = sites.get(&loc.file).and_then(|list| {
            list.iter()
                .find(|(_, _, rb)| {
                    rb.doc.node.span.start() <= loc.span.start()
                        && loc.span.end() <= rb.doc.node.span.end()
                })
                .copied()
        });
        let Some((fi, r, rb)) = site else {
            continue;
        };
        d.location = Some(Location {
            file: fi,
            span: r.image.node.span,
        });
        d.pointer = Some(r.pointer.clone());
        d = d.related(
            format!("in the rendered catalog ({})", display(files, rb.doc.file)),
            Some(loc),
        );
        out.push(d);
    }
    out
}

/// A basic template: its catalog (to be checked in a batch), what its images resolved to and
/// where it is rendered; OLM904 and OLM906, which need no check, are reported here.
fn basic<'a>(
    inputs: Inputs<'_, 'a>,
    b: &Basic<'a>,
    out: &mut Vec<Diagnostic>,
) -> (Catalog<'a>, Vec<Option<RenderedBundle<'a>>>, Option<usize>) {
    let Inputs {
        files,
        catalogs,
        t,
        lookup,
        rendered,
        newest,
        how,
    } = inputs;
    let fi = t.doc.file;
    let (catalog, resolved) = template::basic_catalog(t, b, lookup, out);
    let resolved: Vec<Option<RenderedBundle<'a>>> =
        resolved.into_iter().map(|r| r.cloned()).collect();
    let (mut expected, _) = Expected::of(&catalog, None, None);
    expected.images = b
        .bundles
        .iter()
        .map(|r| r.image.value.to_string())
        .collect();
    let unresolved: Vec<&template::ImageRef<'_>> = b
        .bundles
        .iter()
        .zip(&resolved)
        .filter(|(_, r)| r.is_none())
        .map(|(r, _)| r)
        .collect();
    if let Some(first) = unresolved.first() {
        out.push(skipped(fi, first, unresolved.len(), b.bundles.len(), how, "names, versions, properties and dependencies (channel entries naming no bundle, replaces targets, installability, GVKs, version ranges)"));
    }
    for (cat, ri) in rendered {
        drift(files, catalogs, t, &expected, cat, *ri, out);
    }
    // Dependencies resolve where the bundles are rendered: the last (newest) mapped catalog.
    let extra = newest.and_then(|ri| files.get(ri).map(|f| f.scope));
    (catalog, resolved, extra)
}

/// OLM904: what could not be checked because the bundles are image references.
fn skipped(
    fi: usize,
    first: &template::ImageRef<'_>,
    n: usize,
    total: usize,
    how: &str,
    what: &str,
) -> Diagnostic {
    Diagnostic::new(
        "OLM904",
        format!("{n} of {total} bundles are image references no rendered catalog resolves: checks of their {what} were skipped"),
    )
    .at(fi, first.image.node.span)
    .pointer(first.pointer.clone())
    .help(format!("opm pulls each image to render the bundle, which olmlint does not do. {how}."))
}

/// A semver template's checks; returns the channels opm generates from it when every bundle's
/// version is known.
fn semver<'a>(
    inputs: Inputs<'_, 'a>,
    s: &Semver<'a>,
    out: &mut Vec<Diagnostic>,
) -> Option<SemverChannels> {
    let fi = inputs.t.doc.file;
    let bundles = SemverBundles::read(fi, s, inputs.lookup, out);
    let plain: Vec<gen::Input> = bundles.known.iter().map(|(i, _)| i.clone()).collect();
    bundles.version_conflicts(fi, &plain, out);
    let package = bundles.package;
    if let Some(first) = bundles.unresolved.first() {
        out.push(skipped(
            fi,
            first,
            bundles.unresolved.len(),
            s.bundles.len(),
            inputs.how,
            "versions, so the channels and edges opm generates",
        ));
        // The images alone still tell whether the rendered catalogs are current.
        let images = Expected {
            channels_known: false,
            package: package.map(str::to_string),
            images: images_of(s),
            ..Default::default()
        };
        drift_all(inputs, &images, out);
        return None;
    }
    let preference = match s.preference.map(|p| p.value) {
        Some("major") => Stream::Major,
        Some("minor") => Stream::Minor,
        _ if s.generate_minor => Stream::Minor,
        _ => Stream::Major,
    };
    let generated = gen::generate(
        &plain,
        gen::Options {
            major: s.generate_major,
            minor: s.generate_minor,
            preference,
        },
    );
    let expected = Expected {
        channels_known: true,
        package: package.map(str::to_string),
        default_channel: Some(generated.default_channel.clone()),
        channels: expected_channels(&generated),
        images: images_of(s),
    };
    drift_all(inputs, &expected, out);
    Some(SemverChannels {
        file: fi,
        package: package.map(str::to_string)?,
        versions: plain
            .iter()
            .map(|i| (i.name.clone(), i.version.to_string()))
            .collect(),
        generated,
    })
}

/// A semver template's bundles, as the rendered catalogs describe them.
struct SemverBundles<'s, 'a> {
    /// Those whose version is strict semver, with their listing.
    known: Vec<(gen::Input, &'s template::ImageRef<'a>)>,
    /// Listings no rendered catalog holds.
    unresolved: Vec<&'s template::ImageRef<'a>>,
    /// The package of the first bundle found.
    package: Option<&'a str>,
}

impl<'s, 'a> SemverBundles<'s, 'a> {
    /// Looks each listing (each image once per archetype) up in the rendered bundles `lookup`;
    /// a bundle of another package or with an invalid version is OLM902.
    fn read(
        fi: usize,
        s: &'s Semver<'a>,
        lookup: &HashMap<&'a str, RenderedBundle<'a>>,
        out: &mut Vec<Diagnostic>,
    ) -> Self {
        let mut known = Vec::new();
        let mut unresolved = Vec::new();
        let mut package: Option<&str> = None;
        let mut seen = std::collections::HashSet::new();
        for (arch, r) in &s.bundles {
            // A second listing in one archetype is OLM903's.
            if !seen.insert((*arch, r.image.value)) {
                continue;
            }
            let Some(rb) = lookup.get(r.image.value) else {
                unresolved.push(r);
                continue;
            };
            match package {
                None => package = Some(rb.package),
                Some(p) if p != rb.package => out.push(
                    Diagnostic::new(
                        "OLM902",
                        format!("olm.semver: bundle {:?} does not belong to this package: {p:?} (it is {}'s)", rb.name, rb.package),
                    )
                    .at(fi, r.image.node.span)
                    .pointer(r.pointer.clone())
                    .help("A semver template renders one package; opm refuses bundles of another. Move this image to that package's template."),
                ),
                _ => {}
            }
            // blang's strict parse, as opm's `semver.Parse`.
            let version = rb
                .version
                .as_deref()
                .map(olmlint_semantics::version::parse_strict);
            match version {
                Some(Ok(version)) => known.push((
                    gen::Input {
                        archetype: *arch,
                        name: rb.name.to_string(),
                        version,
                    },
                    r,
                )),
                _ => out.push(
                    Diagnostic::new(
                        "OLM902",
                        format!("olm.semver: bundle {:?} has invalid version {:?}", rb.name, rb.version.as_deref().unwrap_or("")),
                    )
                    .at(fi, r.image.node.span)
                    .pointer(r.pointer.clone())
                    .help("opm orders a semver template's bundles by their `olm.package` version, which must be strict semver."),
                ),
            }
        }
        SemverBundles {
            known,
            unresolved,
            package,
        }
    }

    /// OLM902: versions of one archetype that differ only by build metadata (`plain`: the
    /// known bundles' inputs).
    fn version_conflicts(&self, fi: usize, plain: &[gen::Input], out: &mut Vec<Diagnostic>) {
        for (arch, first, second) in gen::version_conflicts(plain) {
            let at = self
                .known
                .iter()
                .find(|(i, _)| i.name == second && i.archetype == arch)
                .map(|(_, r)| *r);
            let Some(r) = at else { continue };
            out.push(
                Diagnostic::new(
                    "OLM902",
                    format!("olm.semver: encountered bundle versions which differ only by build metadata, which cannot be ordered: {second:?} and {first:?} in {}", arch.name()),
                )
                .at(fi, r.image.node.span)
                .pointer(r.pointer.clone())
                .help("opm refuses the template: bundles of one archetype must have distinct versions (build metadata and `release` do not count). Drop one of them."),
            );
        }
    }
}

/// Every image a semver template lists.
fn images_of(s: &Semver<'_>) -> BTreeSet<String> {
    s.bundles
        .iter()
        .map(|(_, r)| r.image.value.to_string())
        .collect()
}

/// The channels opm generates, as the edges a rendered catalog holds.
fn expected_channels(generated: &gen::Generated) -> BTreeMap<String, Vec<EntryEdges>> {
    generated
        .channels
        .iter()
        .map(|(name, entries)| {
            (
                name.clone(),
                entries
                    .iter()
                    .map(|e| EntryEdges {
                        name: e.name.clone(),
                        replaces: e.replaces.clone().unwrap_or_default(),
                        skips: e.skips.iter().cloned().collect(),
                        skip_range: String::new(),
                    })
                    .collect(),
            )
        })
        .collect()
}

/// OLM906 against each rendered catalog the template is mapped to.
fn drift_all(inputs: Inputs<'_, '_>, want: &Expected, out: &mut Vec<Diagnostic>) {
    for (cat, ri) in inputs.rendered {
        drift(inputs.files, inputs.catalogs, inputs.t, want, cat, *ri, out);
    }
}

#[derive(Debug, PartialEq, Eq, Clone)]
struct EntryEdges {
    name: String,
    replaces: String,
    skips: BTreeSet<String>,
    skip_range: String,
}

/// What a template renders to, in the parts computable offline.
#[derive(Debug, Default)]
struct Expected {
    /// False when the channels are not computable (a semver template whose bundle versions are
    /// not all known): only the images are compared.
    channels_known: bool,
    package: Option<String>,
    default_channel: Option<String>,
    channels: BTreeMap<String, Vec<EntryEdges>>,
    images: BTreeSet<String>,
}

impl Expected {
    /// The package, default channel, channels and bundle images of `cat`, of the objects in
    /// `file` when given, of `package` when given; and where the package is declared.
    fn of(
        cat: &Catalog<'_>,
        file: Option<usize>,
        package: Option<&str>,
    ) -> (Expected, Option<Span>) {
        let in_file = |f: usize| file.is_none_or(|x| x == f);
        let of_package = |p: Option<olmlint_model::Str<'_>>| {
            package.is_none_or(|want| p.is_some_and(|p| p.value == want))
        };
        let pkg = cat
            .packages
            .iter()
            .find(|p| in_file(p.doc.file) && of_package(p.name));
        let mut channels = BTreeMap::new();
        for c in cat
            .channels
            .iter()
            .filter(|c| in_file(c.doc.file) && of_package(c.package))
        {
            let entries = c
                .entries
                .iter()
                .map(|e| EntryEdges {
                    name: e.name().to_string(),
                    replaces: e.replaces.map(|r| r.value.to_string()).unwrap_or_default(),
                    skips: e.skips.iter().map(|s| s.value.to_string()).collect(),
                    skip_range: e
                        .skip_range
                        .map(|r| r.value.to_string())
                        .unwrap_or_default(),
                })
                .collect();
            channels.insert(
                c.name.map_or(String::new(), |n| n.value.to_string()),
                entries,
            );
        }
        let images = cat
            .bundles
            .iter()
            .filter(|b| in_file(b.doc.file) && of_package(b.package))
            .filter_map(|b| b.image.map(|i| i.value.to_string()))
            .collect();
        let expected = Expected {
            channels_known: true,
            package: pkg.and_then(|p| p.name).map(|n| n.value.to_string()),
            default_channel: pkg
                .and_then(|p| p.default_channel)
                .map(|d| d.value.to_string()),
            channels,
            images,
        };
        (expected, pkg.map(|p| p.doc.node.span))
    }
}

/// At most this many differences are named in one OLM906 finding.
const MAX_DIFFERENCES: usize = 6;

/// OLM906: a rendered catalog that is not what its template renders today.
fn drift(
    files: &[LoadedFile],
    catalogs: &HashMap<usize, &Catalog<'_>>,
    t: &Template<'_>,
    want: &Expected,
    cat: &str,
    ri: usize,
    out: &mut Vec<Diagnostic>,
) {
    let Some(model) = files.get(ri).and_then(|f| catalogs.get(&f.scope)) else {
        return;
    };
    let (have, at) = Expected::of(model, Some(ri), want.package.as_deref());
    let mut diffs: Vec<String> = Vec::new();
    if want.package.is_some() && have.package.is_none() {
        diffs.push(format!(
            "package {} is missing",
            want.package.as_deref().unwrap_or("")
        ));
    }
    if want.default_channel.is_some() && have.default_channel != want.default_channel {
        diffs.push(format!(
            "defaultChannel is {:?}, the template gives {:?}",
            have.default_channel.as_deref().unwrap_or(""),
            want.default_channel.as_deref().unwrap_or("")
        ));
    }
    let no_channels = BTreeMap::new();
    let (want_channels, have_channels) = if want.channels_known {
        (&want.channels, &have.channels)
    } else {
        (&no_channels, &no_channels)
    };
    for (name, entries) in want_channels {
        let Some(got) = have_channels.get(name) else {
            diffs.push(format!("channel {name} is missing"));
            continue;
        };
        let got_by: HashMap<&str, &EntryEdges> = got.iter().map(|e| (e.name.as_str(), e)).collect();
        let want_names: BTreeSet<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        for e in entries {
            match got_by.get(e.name.as_str()) {
                None => diffs.push(format!("channel {name}: entry {} is missing", e.name)),
                Some(g) if *g != e => diffs.push(format!(
                    "channel {name}: entry {} has other edges ({})",
                    e.name,
                    edge_diff(g, e)
                )),
                _ => {}
            }
        }
        for g in got.iter().filter(|g| !want_names.contains(g.name.as_str())) {
            diffs.push(format!(
                "channel {name}: entry {} is not in the template",
                g.name
            ));
        }
    }
    for name in have_channels
        .keys()
        .filter(|n| !want_channels.contains_key(*n))
    {
        diffs.push(format!("channel {name} is not in the template"));
    }
    for image in want.images.difference(&have.images) {
        diffs.push(format!("bundle image {image} is missing"));
    }
    for image in have.images.difference(&want.images) {
        diffs.push(format!("bundle image {image} is not in the template"));
    }
    if diffs.is_empty() {
        return;
    }
    let edges_only = diffs.iter().all(|d| d.contains("has other edges"));
    let n = diffs.len();
    let shown: Vec<String> = diffs.into_iter().take(MAX_DIFFERENCES).collect();
    let more = if n > MAX_DIFFERENCES {
        format!("; and {} more", n - MAX_DIFFERENCES)
    } else {
        String::new()
    };
    let tf = &display(files, t.doc.file);
    let operator = Path::new(tf).parent().and_then(Path::parent).map_or_else(
        || "the operator's directory".to_string(),
        |p| p.display().to_string(),
    );
    out.push(
        Diagnostic::new(
            "OLM906",
            format!(
                "catalog {cat} is not what {tf} renders ({n} difference{}): {}{more}",
                if n == 1 { "" } else { "s" },
                shown.join("; ")
            ),
        )
        .at(ri, at.unwrap_or(Span::new(0, 0)))
        .pointer("")
        .package(want.package.as_deref())
        .related("the template", Some(Location { file: t.doc.file, span: t.doc.node.span }))
        .help(format!(
            "The release pipeline renders the templates again, so what clusters get is the template's version, not this file. Run `make catalogs` in {operator} (opm alpha render-template) and commit the result, or fix the template if this file is what you meant.{}",
            if edges_only && matches!(t.body, Body::Semver(_)) {
                " Only edges differ: the catalog was probably rendered by an opm older than v1.61, which generated semver edges differently; the pipelines render with v1.71."
            } else {
                ""
            }
        )),
    );
}

fn edge_diff(have: &EntryEdges, want: &EntryEdges) -> String {
    let mut parts = Vec::new();
    if have.replaces != want.replaces {
        parts.push(format!(
            "replaces {:?} here, {:?} in the template",
            have.replaces, want.replaces
        ));
    }
    if have.skips != want.skips {
        let extra: Vec<&str> = have
            .skips
            .difference(&want.skips)
            .map(String::as_str)
            .collect();
        let missing: Vec<&str> = want
            .skips
            .difference(&have.skips)
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            parts.push(format!("skips lacks {}", missing.join(", ")));
        }
        if !extra.is_empty() {
            parts.push(format!("skips also {}", extra.join(", ")));
        }
    }
    if have.skip_range != want.skip_range {
        parts.push(format!(
            "skipRange {:?} here, {:?} in the template",
            have.skip_range, want.skip_range
        ));
    }
    parts.join(", ")
}

/// `v4.18`: the catalog names the pipelines build indexes from.
/// What `path` (below the repository `repo`) is, when it is there and its real path stays in
/// the repository (no link out of it is followed, nor its target described).
fn in_repository(repo: &Path, path: &Path) -> Option<std::fs::Metadata> {
    let top = std::fs::canonicalize(if repo.as_os_str().is_empty() {
        Path::new(".")
    } else {
        repo
    })
    .ok()?;
    if !olmlint_load::io::confined(&top, path) {
        return None;
    }
    std::fs::symlink_metadata(path).ok()
}

/// A catalog name the pipelines build an index from (`v4.18`), as the walk reads release
/// directories.
fn is_catalog_name(c: &str) -> bool {
    olmlint_load::walk::openshift_dir(c).is_some()
}

/// A bare file name: no directory part, not `.` or `..`, not empty.
fn is_file_name(name: &str) -> bool {
    !matches!(name, "" | "." | "..") && !name.contains(['/', '\\', '\0'])
}

/// OLM905 for one operator: ci.yaml `fbc.catalog_mapping` against the templates and the
/// rendered catalogs.
struct Mapping<'o, 'a> {
    layout: &'o Layout<'a>,
    op: &'o Operator<'a>,
    /// The template files of the operator's `catalog-templates/` (index, file name).
    in_dir: &'o [(usize, &'o str)],
    /// The operator's catalog-templates/ directory.
    tdir: PathBuf,
    /// The repository holding `operators/<op>`.
    repo: &'o Path,
    /// `<op>`.
    opdir: &'o OsStr,
    /// Whether the repository's rendered catalogs are loaded (only then is one missing).
    rendered_known: bool,
    /// Each catalog's template, with the first mapping of it.
    catalog_owner: BTreeMap<&'o str, (&'o str, &'o Node)>,
    /// A catalog mapped again to the same template (a duplicate item): the first repeat and
    /// the number of items mapping it.
    repeated: BTreeMap<&'o str, (&'o Node, usize)>,
}

impl<'o, 'a> Mapping<'o, 'a> {
    /// `catalog_dirs`: the `catalogs/` directories the rendered catalogs are in.
    fn new(
        layout: &'o Layout<'a>,
        op: &'o Operator<'a>,
        in_dir: &'o [(usize, &'o str)],
        catalog_dirs: &HashSet<&Path>,
    ) -> Self {
        let repo = op
            .dir
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        Mapping {
            layout,
            op,
            in_dir,
            tdir: op.dir.join("catalog-templates"),
            repo,
            opdir: op.dir.file_name().unwrap_or_default(),
            // Loaded, or (a change-scoped run loads only what the change touches) there.
            rendered_known: catalog_dirs.contains(repo.join("catalogs").as_path())
                || in_repository(repo, &repo.join("catalogs")).is_some_and(|m| m.is_dir()),
            catalog_owner: BTreeMap::new(),
            repeated: BTreeMap::new(),
        }
    }

    /// Each mapping item (its template, its catalogs, the catalogs not rendered), then the
    /// catalogs mapped by duplicate items and the templates nothing renders.
    fn check(mut self, out: &mut Vec<Diagnostic>) {
        // First file of each name (as a scan from the start finds it).
        let mut file_of: HashMap<&str, usize> = HashMap::new();
        for &(fi, name) in self.in_dir {
            file_of.entry(name).or_insert(fi);
        }
        let op = self.op;
        for item in &op.items {
            let template = file_of.get(item.template).copied();
            self.item_template(item, template, out);
            // An item that only repeats earlier ones adds no finding of its own below.
            let repeats_only = !item.catalogs.is_empty()
                && item.catalogs.iter().all(|(cat, _)| {
                    self.catalog_owner
                        .get(cat)
                        .is_some_and(|(t, _)| *t == item.template)
                });
            self.item_catalogs(item, out);
            // A missing template is the root cause of its catalogs' absence.
            let template_there = template.is_some() || self.template_on_disk(item.template);
            if self.rendered_known && !repeats_only && template_there {
                self.unrendered(item, out);
            }
        }
        self.repeated_items(out);
        self.unmapped_templates(out);
    }

    /// The item's template exists (`file`: the loaded template of that name) and is of the
    /// item's `type`.
    fn item_template(&self, item: &MapItem<'_>, file: Option<usize>, out: &mut Vec<Diagnostic>) {
        let ci = self.op.ci;
        // A template the walk did not load (an ignored or unreadable file) may still exist:
        // only a name that is not there at all is missing (no link followed, nor a
        // catalog-templates/ that links out of the operator's directory).
        let on_disk = || self.template_on_disk(item.template);
        match file {
            // Never looked up: `../../../etc/passwd` or `/home/runner/x` would make the
            // existence test below say which files the runner has.
            None if !is_file_name(item.template) => out.push(
                Diagnostic::new("OLM905", format!("ci.yaml maps template {:?}, which is not a file name: a template is named by its file name in catalog-templates/", item.template))
                    .at(ci, item.template_node.span)
                    .help("`template_name` names a file directly in the operator's catalog-templates/ directory (`template_name: basic.yaml`); a path is not looked up, since it could lead outside the repository. Move the template into catalog-templates/ and give its file name."),
            ),
            None if on_disk() => {}
            // The FBC release creates a template a bundle's release-config.yaml names.
            None if self.released_to(item.template) => {}
            None => out.push(
                Diagnostic::new("OLM905", format!("ci.yaml maps template {:?}, which is not in the operator's catalog-templates/ (yet)", item.template))
                    .severity(Severity::Warning)
                    .at(ci, item.template_node.span)
                    .help("Until it is added, `make catalogs` fails to open it and the catalogs it maps are not rendered. This is expected between the two pull requests of the pipelines' FBC onboarding: the bundle PR sets `fbc.enabled` and `catalog_mapping`, and the \"catalog update\" PR adds the templates once the bundle image exists. Otherwise fix `template_name`, or add the template to catalog-templates/."),
            ),
            Some(fi) => {
                let schema = self.layout.files.get(fi).and_then(template::schema_of);
                if let (Some(ty), Some(schema)) = (item.ty.and_then(|t| t.as_str().map(|s| (s, t))), schema) {
                    if ty.0 != schema {
                        out.push(
                            Diagnostic::new("OLM905", format!("ci.yaml renders {:?} as {}, but the template's schema is {schema}", item.template, ty.0))
                                .at(ci, ty.1.span)
                                .related("the template", Some(Location { file: fi, span: Span::new(0, 0) }))
                                .help(format!("opm refuses a template of the other kind. Set `type: {schema}`.")),
                        );
                    }
                }
            }
        }
    }

    /// Records which template each of the item's catalogs is mapped to; a catalog mapped to
    /// two templates is OLM905 here, one mapped twice to the same is counted for
    /// [`Mapping::repeated_items`].
    fn item_catalogs(&mut self, item: &'o MapItem<'a>, out: &mut Vec<Diagnostic>) {
        let mut in_item: HashSet<&str> = HashSet::new();
        for (cat, node) in &item.catalogs {
            // Twice in one item is the schema's (OLM801, uniqueItems).
            if !in_item.insert(cat) {
                continue;
            }
            if let Some((other, _)) = self.catalog_owner.get(cat) {
                if *other == item.template {
                    self.repeated.entry(cat).or_insert((node, 1)).1 += 1;
                } else {
                    out.push(
                        Diagnostic::new("OLM905", format!("catalog {cat} is mapped to two templates, {other:?} and {:?}", item.template))
                            .at(self.op.ci, node.span)
                            .help("The pipelines refuse this (check_catalog_usage_ci_config): each catalog is rendered from one template. Remove one of the mappings."),
                    );
                }
            } else {
                self.catalog_owner.insert(cat, (item.template, node));
            }
        }
    }

    /// Whether a bundle directory's `release-config.yaml` of the operator names template
    /// `name`: the pipelines' release then creates it if it is missing.
    fn released_to(&self, name: &str) -> bool {
        self.layout.files.iter().any(|f| {
            f.role == Role::ReleaseConfig
                && f.source.path.parent().and_then(Path::parent) == Some(self.op.dir.as_path())
                && f.docs
                    .first()
                    .and_then(|d| d.root.as_ref())
                    .and_then(|r| r.get("catalog_templates"))
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .any(|t| t.get("template_name").and_then(Node::as_str) == Some(name))
        })
    }

    /// A template the walk did not load (an ignored or unreadable file) may still exist: only
    /// a name that is not there at all is missing (no link followed, nor a catalog-templates/
    /// that links out of the operator's directory).
    fn template_on_disk(&self, name: &str) -> bool {
        is_file_name(name)
            && std::fs::canonicalize(&self.op.dir)
                .is_ok_and(|d| olmlint_load::io::confined(&d, &self.tdir))
            && std::fs::symlink_metadata(self.tdir.join(name)).is_ok()
    }

    /// Catalogs the item maps that were never rendered: one finding per item. Whether a
    /// catalog is rendered is a question of the repository, not of what the run loaded: a
    /// change-scoped run does not load the catalogs the change leaves alone.
    fn unrendered(&self, item: &MapItem<'_>, out: &mut Vec<Diagnostic>) {
        let missing: Vec<&(&str, &Node)> = item
            .catalogs
            .iter()
            .filter(|(cat, _)| {
                let rendered = self
                    .repo
                    .join("catalogs")
                    .join(cat)
                    .join(self.opdir)
                    .join("catalog.yaml");
                let there = self.layout.by_path.contains_key(&rendered)
                    || (is_catalog_name(cat)
                        && in_repository(self.repo, &rendered).is_some_and(|m| m.is_file()));
                !there
            })
            .collect();
        let Some((_, first)) = missing.first() else {
            return;
        };
        let names: Vec<&str> = missing.iter().map(|(c, _)| *c).collect();
        let bad_name: Vec<&str> = names
            .iter()
            .copied()
            .filter(|c| !is_catalog_name(c))
            .collect();
        let hint = if bad_name.is_empty() {
            String::new()
        } else {
            format!(" ({} is not a catalog name like v4.18: it renders into a directory no index is built from)", bad_name.join(", "))
        };
        out.push(
            Diagnostic::new(
                "OLM905",
                format!(
                    "ci.yaml maps {} to {}, but {} not rendered under catalogs/{}",
                    item.template,
                    if names.len() == 1 { format!("catalog {}", names.first().copied().unwrap_or("")) } else { format!("catalogs {}", names.join(", ")) },
                    if names.len() == 1 { "it is" } else { "they are" },
                    hint
                ),
            )
            .severity(if bad_name.is_empty() { Severity::Warning } else { Severity::Error })
            .at(self.op.ci, first.span)
            .help("Each mapped catalog is rendered to catalogs/<catalog>/<operator>/catalog.yaml. Fix the catalog name, or run `make catalogs` in the operator's directory and commit catalogs/."),
        );
    }

    /// One finding per catalog mapped by duplicate items, however many.
    fn repeated_items(&self, out: &mut Vec<Diagnostic>) {
        for (cat, (node, items)) in &self.repeated {
            let template = self.catalog_owner.get(cat).map_or("", |(t, _)| *t);
            out.push(
                Diagnostic::new("OLM905", format!("catalog {cat} is mapped to template {template:?} by {items} fbc.catalog_mapping items"))
                    .at(self.op.ci, node.span)
                    .help("The pipelines refuse a catalog listed under more than one mapping item (check_catalog_usage_ci_config), even for the same template, and `make catalogs` renders it once per item. Keep one item per template."),
            );
        }
    }

    /// Templates nothing renders.
    fn unmapped_templates(&self, out: &mut Vec<Diagnostic>) {
        let ci = self.op.ci;
        for &(fi, name) in self.in_dir {
            // `templates` is in file order (ascending).
            if self.layout.templates.binary_search(&fi).is_err()
                || self.op.by_template.contains_key(name)
            {
                continue;
            }
            out.push(
                Diagnostic::new("OLM905", format!("template {name} is not in ci.yaml's fbc.catalog_mapping: nothing renders it"))
                    .severity(Severity::Warning)
                    .at(fi, Span::new(0, 0))
                    .related("ci.yaml", Some(Location { file: ci, span: Span::new(0, 0) }))
                    .help("Edits to this file reach no catalog. Map it (`{template_name, type, catalog_names}`) or delete it."),
            );
        }
    }
}
