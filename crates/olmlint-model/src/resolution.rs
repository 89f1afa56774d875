//! The catalog as OLM's resolver sees it (spec §2.5, §3.1–§3.5): one entry per (channel,
//! bundle), channels ordered by `sortChannel`, each dependency property turned into a
//! predicate and its candidate list in OLM's preference order. Output is the abstract
//! [`Problem`] the SAT engine checks, plus the maps back to the source.

use super::index::Index;
use super::{Bundle, Catalog, Channel};
use compact_str::CompactString;
use olmlint_base::tree::Node;
use olmlint_semantics::cel::{self, CompiledRule};
use olmlint_semantics::constraint::predicate::{Facts, Pred};
use olmlint_semantics::constraint::property::{is_dependency, verdict};
use olmlint_semantics::sat::{Dependency, Entry, EntryId, Problem};
use olmlint_semantics::version;
use rayon::prelude::*;
// foldhash: these maps are keyed by names and hashes over every bundle; SipHash showed in profiles.
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};
use std::sync::{Arc, OnceLock};

/// Where a dependency comes from: bundle index and property index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub bundle: usize,
    pub property: usize,
}

/// A dependency property of a bundle, as OLM converts it. Bundles with equal property values
/// share one [`Dependency`] (read through `Deref`).
#[derive(Debug, Clone)]
pub struct BundleDep {
    pub property: usize,
    shared: std::sync::Arc<DepInfo>,
}

impl std::ops::Deref for BundleDep {
    type Target = DepInfo;
    fn deref(&self) -> &DepInfo {
        &self.shared
    }
}

/// What a dependency property means to OLM (shared by equal property values).
#[derive(Debug, Clone)]
pub struct DepInfo {
    pub pred: Option<Pred>,
    /// OLM's error for the property, when it fails to parse or convert.
    pub error: Option<String>,
    pub label: String,
    /// `requires an operator <label>`, as every entry's SAT dependency labels it.
    pub sat_label: Arc<str>,
    pub failure_message: Option<Arc<str>>,
    /// Eligible candidates in preference order (entries of other bundles or of this one).
    pub candidates: Arc<[EntryId]>,
    /// Matching entries that are not candidates: skipped or off the replaces chain.
    pub ineligible: Vec<EntryId>,
    /// `sortChannel` error of a channel holding a matching entry (aborts resolution).
    pub channel_error: Option<String>,
    /// The package or API it needs appears in none of the loaded catalogs, and no loaded
    /// name is close enough to be a typo of it: it lives in another catalog (open world).
    pub absent: bool,
}

/// Each distinct CEL rule compiled once; its outcome on every bundle computed on first use.
#[derive(Default)]
pub struct CelTable {
    pub rules: Vec<(String, Result<CompiledRule, String>)>,
    by_rule: HashMap<String, usize>,
    outcomes: Vec<OnceLock<Outcomes>>,
    pub budget: cel::EvalBudget,
    /// Number of bundles rules are evaluated on.
    bundles: usize,
    /// Every bundle's properties as CEL values, built when a rule first needs them whole.
    inputs: OnceLock<Vec<cel::Input>>,
    /// Per property type: the distinct lists of such properties over all bundles.
    projections: std::sync::Mutex<HashMap<String, std::sync::Arc<Projection>>>,
}

/// Bundles grouped by their properties of one type (see [`cel::projection`]).
struct Projection {
    /// Per bundle: index into `lists`.
    slots: Vec<usize>,
    /// Distinct lists of the type's properties.
    lists: Vec<Vec<cel::Property>>,
}

/// OLM's runtime properties of bundle `bi` (all of them, or those of one type; see
/// [`runtime_of`]), built on demand: holding them for every bundle costs ~10 KB per bundle.
pub type Runtime<'a> = dyn Fn(usize, Option<&str>) -> Vec<cel::Property> + Sync + 'a;

/// A rule's evaluation on every bundle.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// Per bundle: the rule is true (errors count as false, as in OLM).
    pub truth: Vec<bool>,
    /// Bundles whose evaluation failed at runtime, with the first message.
    pub runtime_errors: usize,
    pub first_runtime_error: Option<(usize, String)>,
    /// Bundles whose evaluation exceeded the cost budget.
    pub over_budget: usize,
    /// Bundles whose evaluation the run's deadline stopped.
    pub timed_out: usize,
}

impl CelTable {
    fn intern(&mut self, rule: &str) -> Result<usize, String> {
        if let Some(&i) = self.by_rule.get(rule) {
            return match self.rules.get(i) {
                Some((_, Ok(_))) => Ok(i),
                Some((_, Err(e))) => Err(e.clone()),
                None => Err(String::new()),
            };
        }
        let compiled = cel::compile(rule).map_err(|e| cel::render_cel_go(rule, &e));
        let i = self.rules.len();
        let out = compiled.as_ref().map(|_| i).map_err(Clone::clone);
        self.rules.push((rule.to_string(), compiled));
        self.outcomes.push(OnceLock::new());
        self.by_rule.insert(rule.to_string(), i);
        out
    }

    /// The index of a rule that compiled.
    pub fn index_of(&self, rule: &str) -> Option<usize> {
        self.by_rule
            .get(rule)
            .copied()
            .filter(|&i| matches!(self.rules.get(i), Some((_, Ok(_)))))
    }

    /// The rule evaluated on every bundle, in parallel, once.
    pub fn outcomes(&self, rule: usize, runtime: &Runtime<'_>) -> Option<&Outcomes> {
        let cell = self.outcomes.get(rule)?;
        Some(cell.get_or_init(|| {
            let Some((_, Ok(compiled))) = self.rules.get(rule) else {
                return Outcomes {
                    truth: vec![false; self.bundles],
                    ..Outcomes::default()
                };
            };
            let results = match cel::projection(compiled) {
                Some(ty) => self.eval_projected(compiled, ty, runtime),
                None => self
                    .inputs
                    .get_or_init(|| {
                        (0..self.bundles)
                            .into_par_iter()
                            .map(|bi| cel::Input::new(&runtime(bi, None)))
                            .collect()
                    })
                    .par_iter()
                    .map(|input| cel::eval_input(compiled, input, self.budget))
                    .collect(),
            };
            let mut o = Outcomes {
                truth: Vec::with_capacity(results.len()),
                ..Outcomes::default()
            };
            for (bi, r) in results.into_iter().enumerate() {
                o.truth.push(matches!(r, Ok(true)));
                if let Err(e) = r {
                    if e.kind == cel::EvalErrorKind::Budget {
                        o.over_budget += 1;
                    } else if e.kind == cel::EvalErrorKind::Deadline {
                        o.timed_out += 1;
                    } else {
                        o.runtime_errors += 1;
                        if o.first_runtime_error.is_none() {
                            o.first_runtime_error = Some((bi, e.message));
                        }
                    }
                }
            }
            o
        }))
    }

    /// A rule that depends only on the properties of type `ty` ([`cel::projection`]):
    /// evaluated once per distinct list of such property values, on that list alone.
    fn eval_projected(
        &self,
        compiled: &CompiledRule,
        ty: &str,
        runtime: &Runtime<'_>,
    ) -> Vec<Result<bool, cel::EvalError>> {
        let projection = self.projection(ty, runtime);
        let results: Vec<Result<bool, cel::EvalError>> = projection
            .lists
            .par_iter()
            .map(|list| cel::eval(compiled, list, self.budget))
            .collect();
        projection
            .slots
            .iter()
            .map(|&i| results.get(i).cloned().unwrap_or(Ok(false)))
            .collect()
    }

    /// The bundles grouped by their properties of type `ty`, computed once per type.
    fn projection(&self, ty: &str, runtime: &Runtime<'_>) -> std::sync::Arc<Projection> {
        let cached = self
            .projections
            .lock()
            .ok()
            .and_then(|m| m.get(ty).cloned());
        if let Some(p) = cached {
            return p;
        }
        let lists: Vec<Vec<cel::Property>> = (0..self.bundles)
            .into_par_iter()
            .map(|bi| runtime(bi, Some(ty)))
            .collect();
        let keys: Vec<String> = lists
            .par_iter()
            .map(|props| {
                let mut key = String::new();
                for p in props {
                    key.push_str(&p.value.to_string());
                    key.push('\n');
                }
                key
            })
            .collect();
        let mut distinct: HashMap<&str, usize> = HashMap::new();
        let mut representatives: Vec<usize> = Vec::new();
        let slots: Vec<usize> = keys
            .iter()
            .enumerate()
            .map(|(bi, k)| {
                *distinct.entry(k.as_str()).or_insert_with(|| {
                    representatives.push(bi);
                    representatives.len() - 1
                })
            })
            .collect();
        drop(distinct);
        let mut lists = lists;
        let distinct_lists: Vec<Vec<cel::Property>> = representatives
            .iter()
            .map(|&bi| lists.get_mut(bi).map(std::mem::take).unwrap_or_default())
            .collect();
        let p = std::sync::Arc::new(Projection {
            slots,
            lists: distinct_lists,
        });
        if let Ok(mut m) = self.projections.lock() {
            m.insert(ty.to_string(), p.clone());
        }
        p
    }

    fn truth(&self, rule: usize, runtime: &Runtime<'_>, bundle: usize) -> bool {
        self.outcomes(rule, runtime)
            .and_then(|o| o.truth.get(bundle).copied())
            .unwrap_or(false)
    }
}

/// `Default`: the resolution of no catalog (a placeholder while a catalog's is built).
#[derive(Default)]
pub struct Resolution {
    pub problem: Problem,
    /// Bundle index → (source catalog, bundle index in that catalog). Bundle indexes are global
    /// over all sources, the linted catalog's first (so its indexes are its own).
    pub home: Vec<(usize, usize)>,
    /// Entry → (source catalog, is in its package's default channel, position on its
    /// channel's replaces chain from the head; `None` when off the chain or skipped).
    pub placement: Vec<(usize, bool, Option<usize>)>,
    /// Entry → bundle index.
    pub entry_bundle: Vec<usize>,
    /// Entry → the entry of its channel whose `skips` names it (`sortChannel` drops it).
    pub skipped_by: Vec<Option<CompactString>>,
    /// Bundle index → its entries (one per channel listing it).
    pub bundle_entries: Vec<Vec<EntryId>>,
    /// Bundle index → its dependency properties.
    pub deps: Vec<Vec<BundleDep>>,
    /// Dependency origin ids used in the problem.
    pub origins: Vec<Origin>,
    pub cel: CelTable,
    pub facts: Vec<Facts>,
}

impl Resolution {
    /// A bundle by its resolution index, in `catalogs` (the resolution's sources, in order).
    pub fn bundle_in<'c, 'a>(
        &self,
        catalogs: &[&'c Catalog<'a>],
        bi: usize,
    ) -> Option<&'c Bundle<'a>> {
        let &(source, local) = self.home.get(bi)?;
        catalogs.get(source)?.bundles.get(local)
    }
}

/// OLM's `sortChannel` (resolver.go), ported step for step: every entry's `replaces` and
/// `skips` that name an entry of the channel mark it as replaced; the heads are the entries
/// nothing replaces (in channel order); from each head the walk follows `replaces` *through*
/// skipped entries, keeping only the entries no `skips` names. One head gives the channel's
/// order; more than one, or none, or a cycle on a walk, is OLM's error.
fn sort_channel(
    entries: &[(&str, Option<&str>, Vec<&str>)],
    pkg: &str,
    ch: &str,
) -> Result<Vec<usize>, String> {
    let by_name: HashMap<&str, usize> = entries.iter().enumerate().map(|(i, e)| (e.0, i)).collect();
    /// Per entry: named by another entry's `replaces` or `skips`; named by a `skips`; the
    /// entry its `replaces` names; the last walk (head number) that visited it.
    #[derive(Clone, Copy)]
    struct Node {
        replaced: bool,
        skipped: bool,
        replaces: Option<usize>,
        visited: usize,
    }
    let mut nodes = vec![
        Node {
            replaced: false,
            skipped: false,
            replaces: None,
            visited: usize::MAX,
        };
        entries.len()
    ];
    for (i, (_, r, skips)) in entries.iter().enumerate() {
        if let Some(&t) = r.and_then(|r| by_name.get(r)) {
            if let Some(n) = nodes.get_mut(t) {
                n.replaced = true;
            }
            if let Some(n) = nodes.get_mut(i) {
                n.replaces = Some(t);
            }
        }
        for &t in skips.iter().filter_map(|s| by_name.get(s)) {
            if let Some(n) = nodes.get_mut(t) {
                n.replaced = true;
                n.skipped = true;
            }
        }
    }
    let name = |i: usize| entries.get(i).map_or("", |e| e.0);
    let heads: Vec<usize> = (0..entries.len())
        .filter(|&i| nodes.get(i).is_some_and(|n| !n.replaced))
        .collect();
    if heads.is_empty() {
        return Err(format!("no channel heads (entries not replaced by another entry) found in channel {ch:?} of package {pkg:?}"));
    }
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(heads.len());
    for (h, &head) in heads.iter().enumerate() {
        let mut chain = Vec::new();
        let mut cur = head;
        while let Some(n) = nodes.get_mut(cur) {
            n.visited = h;
            if !n.skipped {
                chain.push(cur);
            }
            let Some(next) = n.replaces else { break };
            if nodes.get(next).is_some_and(|x| x.visited == h) {
                return Err(format!("a cycle exists in the chain of replacement beginning with {:?} in channel {ch:?} of package {pkg:?}", name(head)));
            }
            cur = next;
        }
        chains.push(chain);
    }
    match chains.len() {
        1 => Ok(chains.pop().unwrap_or_default()),
        n => {
            let shown: Vec<String> = chains
                .iter()
                .map(|c| match c.as_slice() {
                    [] => "[]".to_string(),
                    [one] => name(*one).to_string(),
                    [first, .., last] => format!("{}...{}", name(*first), name(*last)),
                })
                .collect();
            Err(format!(
                "a unique replacement chain within a channel is required to determine the relative order between channel entries, but {n} replacement chains were found in channel {ch:?} of package {pkg:?}: {}",
                shown.join(", ")
            ))
        }
    }
}

fn facts_of(b: &Bundle<'_>) -> Facts {
    let mut f = Facts {
        package: b.package().into(),
        ..Facts::default()
    };
    for p in &b.properties {
        let Some(v) = p.value.as_deref() else {
            continue;
        };
        let s = |k: &str| {
            CompactString::from(v.get_folded(k).and_then(|e| e.value.as_str()).unwrap_or(""))
        };
        match p.ty() {
            "olm.package" => {
                let ver = s("version");
                if f.version.is_none() {
                    f.version = version::parse_tolerant(&ver).ok();
                }
                f.olm_packages
                    .push((s("packageName"), version::parse_strict(&ver).ok()));
            }
            "olm.gvk" => f.gvks.push((s("group"), s("version"), s("kind"))),
            "olm.label" => f.labels.push(s("label")),
            _ => {}
        }
    }
    f
}

/// OLM's runtime properties of a bundle (§2.5, §4.4): every property but the hidden ones,
/// then the legacy `.required` dependencies appended again as OLM converts them back.
/// With `only`, just the properties of that type (in the same order).
pub fn runtime_of(b: &Bundle<'_>, only: Option<&str>) -> Vec<cel::Property> {
    let mut out: Vec<cel::Property> = Vec::new();
    let mut again = Vec::new();
    for p in &b.properties {
        let ty = p.ty();
        if is_hidden(ty) || only.is_some_and(|o| o != ty) {
            continue;
        }
        let value = p
            .value
            .as_deref()
            .and_then(Node::to_json)
            .unwrap_or(serde_json::Value::Null);
        if matches!(ty, "olm.gvk.required" | "olm.package.required") {
            again.push(cel::Property {
                ty: ty.to_string(),
                value: value.clone(),
            });
        }
        out.push(cel::Property {
            ty: ty.to_string(),
            value,
        });
    }
    out.extend(again);
    out
}

/// Stands in for a missing property value (never reached: only properties with a value are
/// collected).
static EMPTY_NODE: Node = Node {
    span: olmlint_base::tree::Span { start: 0, end: 0 },
    style: olmlint_base::tree::Style::None,
    value: olmlint_base::tree::Value::Null,
};

/// Property types OLM does not show to CEL.
pub fn is_hidden(ty: &str) -> bool {
    matches!(ty, "olm.bundle.object" | "olm.csv.metadata")
}

fn gvk_key(g: &str, v: &str, k: &str) -> CompactString {
    // By hand: the formatting machinery cost more than the lookups it keys.
    let mut key = CompactString::with_capacity(g.len() + v.len() + k.len() + 2);
    key.push_str(g);
    key.push('/');
    key.push_str(v);
    key.push('/');
    key.push_str(k);
    key
}

/// What a bundle provides, as its resolver entries hold it (shared by them): the APIs
/// (`group/version/Kind`) and the `olm.package` names.
type Provides = (Arc<[CompactString]>, Arc<[CompactString]>);

/// The loaded packages and APIs a missing dependency may be a typo of, indexed on first use
/// (most runs have no dependency missing everywhere): comparing every missing name with every
/// loaded one was quadratic.
struct Nearby<'m, 'a> {
    by_package: &'m HashMap<&'a str, Vec<EntryId>>,
    by_gvk: &'m HashMap<&'a str, Vec<EntryId>>,
    packages: OnceLock<olmlint_base::suggest::Names<'a>>,
    apis: OnceLock<Apis<'a>>,
}

/// ASCII-lower-cased kind → the groups providing it; group → its kinds.
type Apis<'a> = (
    HashMap<String, olmlint_base::suggest::Names<'a>>,
    HashMap<&'a str, olmlint_base::suggest::Names<'a>>,
);

impl<'m, 'a> Nearby<'m, 'a> {
    fn new(
        by_package: &'m HashMap<&'a str, Vec<EntryId>>,
        by_gvk: &'m HashMap<&'a str, Vec<EntryId>>,
    ) -> Self {
        Nearby {
            by_package,
            by_gvk,
            packages: OnceLock::new(),
            apis: OnceLock::new(),
        }
    }

    /// Whether a loaded package name is a likely typo of `name`'s (see [`olmlint_base::suggest`]).
    fn package_close_to(&self, name: &str) -> bool {
        self.packages
            .get_or_init(|| olmlint_base::suggest::Names::new(self.by_package.keys().copied()))
            .closest(name)
            .is_some()
    }

    /// Whether a loaded API has kind `k` (any case) in a group within two edits of `g`, or
    /// group `g` and a kind within two edits of `k`.
    fn api_close_to(&self, g: &str, k: &str) -> bool {
        let (groups_of_kind, kinds_of_group) = self.apis.get_or_init(|| {
            let mut groups: HashMap<String, Vec<&'a str>> = HashMap::new();
            let mut kinds: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
            for &key in self.by_gvk.keys() {
                let mut parts = key.splitn(3, '/');
                let (kg, kk) = (parts.next().unwrap_or(""), parts.nth(1).unwrap_or(""));
                groups.entry(kk.to_ascii_lowercase()).or_default().push(kg);
                kinds.entry(kg).or_default().push(kk);
            }
            (
                groups
                    .into_iter()
                    .map(|(k, v)| (k, olmlint_base::suggest::Names::new(v)))
                    .collect(),
                kinds
                    .into_iter()
                    .map(|(g, v)| (g, olmlint_base::suggest::Names::new(v)))
                    .collect(),
            )
        });
        groups_of_kind
            .get(&k.to_ascii_lowercase())
            .is_some_and(|n| n.any_within(g, 2))
            || kinds_of_group.get(g).is_some_and(|n| n.any_within(k, 2))
    }
}

/// Whether nothing any loaded catalog has could satisfy `pred` (a package released from
/// catalog templates that are not loaded counts as not loaded), and no loaded name is close
/// enough to be a typo of what it names (a package within a few edits, or an API whose kind
/// is loaded under the same or a similar group, at any version).
fn absent(
    pred: &Pred,
    nearby: &Nearby<'_, '_>,
    elsewhere: &std::collections::HashSet<&str>,
) -> bool {
    // A constraint no bundle can meet (OLM502) is not met elsewhere either.
    if olmlint_semantics::constraint::theory::satisfiable(pred) == Some(false) {
        return false;
    }
    if let Some(pkgs) = pred.required_packages() {
        return pkgs.iter().all(|n| {
            elsewhere.contains(&**n)
                || !n.is_empty()
                    && !nearby.by_package.contains_key(n)
                    && !nearby.package_close_to(n)
        });
    }
    if let Some(gvks) = pred.required_gvks() {
        return gvks.iter().all(|(g, v, k)| {
            // A malformed API (empty version or kind) is OLM601's, not another catalog's.
            !v.is_empty()
                && !k.is_empty()
                && !nearby.by_gvk.contains_key(gvk_key(g, v, k).as_str())
                && !nearby.api_close_to(g, k)
        });
    }
    false
}

/// Packages and GVKs (`group/version/Kind`) that other catalogs provide (`provided:` in the
/// configuration): a dependency on them counts as met even without candidates here.
#[derive(Debug, Default, Clone)]
pub struct Provided {
    pub packages: Vec<String>,
    pub gvks: Vec<String>,
    /// Open world (the default of `lint`): a dependency on a package or API that no loaded
    /// catalog has is assumed to come from another catalog of the cluster.
    pub open_world: bool,
}

impl Provided {
    /// The dependency adds no clause: met by `provided:`, or, in the open world, absent from
    /// every loaded catalog.
    pub fn assumes_met(&self, d: &DepInfo) -> bool {
        d.candidates.is_empty()
            && d.pred
                .as_ref()
                .is_some_and(|p| self.covers(p) || (self.open_world && d.absent))
    }

    pub fn covers(&self, pred: &Pred) -> bool {
        pred.required_packages()
            .is_some_and(|p| p.iter().any(|n| self.packages.iter().any(|x| x == n)))
            || pred.required_gvks().is_some_and(|g| {
                g.iter()
                    .any(|(g, v, k)| self.gvks.iter().any(|x| *x == format!("{g}/{v}/{k}")))
            })
    }
}

/// A catalog the resolver can take candidates from.
pub struct Source<'c, 'a> {
    pub name: String,
    pub catalog: &'c Catalog<'a>,
    pub index: &'c Index<'a>,
    /// `CatalogSource.priority`: higher is preferred after the depender's own catalog.
    pub priority: i64,
    /// The packages the depender's own catalog (`sources[0]`) has are not taken from this one:
    /// it is what the own catalog renders to (a template's rendered catalog), and its copy of
    /// them is the older one.
    pub shadowed_by_own: bool,
}

/// A dependency property's grouping key: depender's catalog, type, hash of the canonical value.
type ValueKey<'a> = (usize, &'a str, u64);

/// An item `(i, k)`: the `k`-th of list `i`.
type Item = (usize, usize);

/// Groups items (`key(&lists[i][k])` is the key of item `(i, k)`) into slots of equal items,
/// `same` deciding equality among items with equal keys (the keys are hashes: equal keys almost
/// always mean equal items). Returns each item's slot and each slot's first item.
/// Keys are grouped sequentially without reading the items; the confirmations, which do read
/// them, run in parallel; the rare items unequal to their key's first one are regrouped last.
fn group_by_key<T, K: std::hash::Hash + Eq>(
    lists: &[Vec<T>],
    key: impl Fn(&T) -> &K,
    same: &(dyn Fn(Item, Item) -> bool + Sync),
) -> (Vec<Vec<usize>>, Vec<Item>) {
    let mut slot_of: HashMap<&K, usize> = HashMap::with_capacity(lists.iter().map(Vec::len).sum());
    let mut firsts: Vec<Item> = Vec::new();
    let mut slots: Vec<Vec<usize>> = lists
        .iter()
        .enumerate()
        .map(|(i, list)| {
            list.iter()
                .map(&key)
                .enumerate()
                .map(|(k, key)| {
                    let new = firsts.len();
                    let slot = *slot_of.entry(key).or_insert(new);
                    if slot == new {
                        firsts.push((i, k));
                    }
                    slot
                })
                .collect()
        })
        .collect();
    drop(slot_of);
    let differing: Vec<(usize, usize)> = slots
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, list)| {
            let firsts = &firsts;
            list.iter().enumerate().filter_map(move |(k, &slot)| {
                let first = firsts.get(slot).copied().unwrap_or_default();
                (first != (i, k) && !same(first, (i, k))).then_some((i, k))
            })
        })
        .collect();
    let key = |(i, k): Item| lists.get(i).and_then(|l| l.get(k)).map(&key);
    let mut split: Vec<usize> = Vec::new();
    for item in differing {
        let found = split.iter().copied().find(|&slot| {
            let first = firsts.get(slot).copied().unwrap_or_default();
            key(first) == key(item) && same(first, item)
        });
        let slot = found.unwrap_or_else(|| {
            firsts.push(item);
            split.push(firsts.len() - 1);
            firsts.len() - 1
        });
        if let Some(s) = slots.get_mut(item.0).and_then(|l| l.get_mut(item.1)) {
            *s = slot;
        }
    }
    (slots, firsts)
}

/// Build the resolver's view of the linted catalog (`sources[0]`) together with the catalogs
/// its dependencies may come from (`--context`).
pub fn build(
    sources: &[Source<'_, '_>],
    cel_budget: cel::EvalBudget,
    provided: &Provided,
) -> Resolution {
    let all = AllBundles::of(sources);
    let mut table = EntryTable::of(sources, &all);
    let runtime = |bi: usize, only: Option<&str>| {
        all.bundles
            .get(bi)
            .map(|b| runtime_of(b, only))
            .unwrap_or_default()
    };
    let values = DistinctValues::of(&all);
    let (decoded, cel_table) = decode_values(&all.bundles, &values.representative, cel_budget);
    // Every rule's outcome on every bundle, before the parallel matching below reads them
    // (evaluating inside it would nest parallel initialisation in a `OnceLock`).
    for i in 0..cel_table.rules.len() {
        cel_table.outcomes(i, &runtime);
    }
    let matcher = Matcher {
        table: &table,
        home: &all.home,
        facts: &all.facts,
        cel: &cel_table,
        runtime: &runtime,
    };
    let shared = matcher.find_candidates(sources, decoded, &values.representative);
    let (deps, origins) = table.wire(&values.slots, &shared, provided);
    let placement = table
        .source
        .iter()
        .zip(&table.order)
        .zip(&table.eligible)
        .map(|((&s, o), &ok)| (s, !o.1, ok.then_some(o.2)))
        .collect();
    Resolution {
        problem: Problem::new(table.entries),
        home: all.home,
        placement,
        entry_bundle: table.bundle,
        skipped_by: table.skipped_by,
        bundle_entries: table.bundle_entries,
        deps,
        origins,
        cel: cel_table,
        facts: all.facts,
    }
}

/// Every source's bundles as one list (the linted catalog's first) and what the resolver
/// knows of each.
struct AllBundles<'c, 'a> {
    bundles: Vec<&'c Bundle<'a>>,
    /// Bundle index → (source, bundle index in that source's catalog).
    home: Vec<(usize, usize)>,
    /// Source → index of its first bundle.
    offsets: Vec<usize>,
    /// Source → its rank in catalog preference after the depender's own catalog.
    catalog_rank: Vec<usize>,
    facts: Vec<Facts>,
    deprecated: Vec<bool>,
}

impl<'c, 'a> AllBundles<'c, 'a> {
    fn of(sources: &[Source<'c, 'a>]) -> Self {
        let mut bundles: Vec<&Bundle<'_>> = Vec::new();
        let mut home: Vec<(usize, usize)> = Vec::new();
        let mut offsets: Vec<usize> = Vec::new();
        for (si, s) in sources.iter().enumerate() {
            offsets.push(bundles.len());
            bundles.extend(s.catalog.bundles.iter());
            home.extend((0..s.catalog.bundles.len()).map(|i| (si, i)));
        }
        let facts: Vec<Facts> = bundles.par_iter().map(|b| facts_of(b)).collect();
        let deprecated: Vec<bool> = bundles
            .iter()
            .map(|b| b.properties_of("olm.deprecated").next().is_some())
            .collect();
        AllBundles {
            bundles,
            home,
            offsets,
            catalog_rank: catalog_ranks(sources),
            facts,
            deprecated,
        }
    }
}

/// Catalog preference after the depender's own: priority (higher first), then name. Returns
/// each source's rank.
fn catalog_ranks(sources: &[Source<'_, '_>]) -> Vec<usize> {
    let mut by_priority: Vec<usize> = (0..sources.len()).collect();
    by_priority.sort_by(|&a, &b| {
        let key = |i: usize| {
            sources
                .get(i)
                .map(|s| (std::cmp::Reverse(s.priority), s.name.as_str()))
        };
        key(a).cmp(&key(b))
    });
    let mut catalog_rank = vec![0usize; sources.len()];
    for (rank, &si) in by_priority.iter().enumerate() {
        if let Some(r) = catalog_rank.get_mut(si) {
            *r = rank;
        }
    }
    catalog_rank
}

/// The resolver's entries, one per (channel, bundle listed in it), channel by channel, and
/// per entry what the later stages need.
#[derive(Default)]
struct EntryTable {
    entries: Vec<Entry>,
    /// Entry → bundle index.
    bundle: Vec<usize>,
    /// Entry → it survives `sortChannel` (on the replaces chain, not skipped).
    eligible: Vec<bool>,
    /// Entry → the candidate sort key: catalog rank, not in the default channel, position on
    /// the chain (the package and channel are the entry's own).
    order: Vec<(usize, bool, usize)>,
    /// Entry → source.
    source: Vec<usize>,
    /// Entry → its channel's `sortChannel` error, an index into `channel_errors`.
    channel_error: Vec<Option<usize>>,
    /// Entry → the entry of its channel whose `skips` names it.
    skipped_by: Vec<Option<CompactString>>,
    channel_errors: Vec<String>,
    /// Bundle index → its entries.
    bundle_entries: Vec<Vec<EntryId>>,
    /// What a bundle provides: built for its first entry, shared by the others.
    shared_props: HashMap<usize, Provides>,
}

/// One channel as its entries are added: the entries' common fields and sort key.
struct ChannelPlace<'s> {
    source: usize,
    catalog: &'s str,
    pkg: &'s str,
    ch: &'s str,
    /// The source's catalog rank.
    rank: usize,
    is_default: bool,
    /// The channel's `sortChannel` error, an index into `channel_errors`.
    error: Option<usize>,
}

impl EntryTable {
    /// The entries of every channel of every source. A source the linted catalog shadows
    /// contributes no channel of a package the linted catalog has.
    fn of(sources: &[Source<'_, '_>], all: &AllBundles<'_, '_>) -> Self {
        let mut table = EntryTable {
            bundle_entries: vec![Vec::new(); all.bundles.len()],
            ..EntryTable::default()
        };
        let own = sources.first().map(|s| s.index);
        let own_has = |pkg: &str| {
            own.is_some_and(|ix| {
                ix.packages.contains_key(pkg) || ix.channels_by_package.contains_key(pkg)
            })
        };
        for (si, source) in sources.iter().enumerate() {
            for c in &source.catalog.channels {
                let pkg = c.package.map_or("", |p| p.value);
                if si > 0 && source.shadowed_by_own && own_has(pkg) {
                    continue;
                }
                table.add_channel(all, si, source, c);
            }
        }
        table
    }

    /// The entries of channel `c` of source `si`: its first entry of each name whose bundle
    /// the source has, ranked by `sortChannel`'s order.
    fn add_channel(
        &mut self,
        all: &AllBundles<'_, '_>,
        si: usize,
        source: &Source<'_, '_>,
        c: &Channel<'_>,
    ) {
        let (cat, ix) = (source.catalog, source.index);
        let offset = all.offsets.get(si).copied().unwrap_or(0);
        let pkg = c.package.map_or("", |p| p.value);
        let ch = c.name.map_or("", |n| n.value);
        let is_default = ix
            .packages
            .get(pkg)
            .and_then(|&i| cat.packages.get(i))
            .and_then(|p| p.default_channel)
            .is_some_and(|d| d.value == ch);
        let mut seen = HashSet::new();
        let listed: Vec<(&str, Option<&str>, Vec<&str>)> = c
            .entries
            .iter()
            .filter(|e| !e.name().is_empty() && seen.insert(e.name()))
            .map(|e| {
                (
                    e.name(),
                    e.replaces.map(|r| r.value).filter(|r| !r.is_empty()),
                    e.skips.iter().map(|s| s.value).collect(),
                )
            })
            .collect();
        let sorted = sort_channel(&listed, pkg, ch);
        let mut skipper: HashMap<&str, &str> = HashMap::new();
        for (n, _, skips) in &listed {
            for s in skips {
                skipper.entry(s).or_insert(n);
            }
        }
        let error = sorted.as_ref().err().map(|e| {
            self.channel_errors.push(e.clone());
            self.channel_errors.len() - 1
        });
        let pos: HashMap<usize, usize> = sorted
            .as_ref()
            .map(|chain| chain.iter().enumerate().map(|(p, &i)| (i, p)).collect())
            .unwrap_or_default();
        let place = ChannelPlace {
            source: si,
            catalog: source.name.as_str(),
            pkg,
            ch,
            rank: all.catalog_rank.get(si).copied().unwrap_or(0),
            is_default,
            error,
        };
        for (i, (name, _, _)) in listed.iter().enumerate() {
            let Some(bi) = ix.bundle.get(&(pkg, *name)).map(|&local| offset + local) else {
                continue;
            };
            let skipped_by = skipper.get(name).copied();
            self.add_entry(all, &place, bi, name, skipped_by, pos.get(&i).copied());
        }
    }

    /// The entry of bundle `bi` (`name`) in the channel `place`: `position` on its replaces
    /// chain (`None`: off it or skipped), `skipped_by` the entry whose `skips` names it.
    fn add_entry(
        &mut self,
        all: &AllBundles<'_, '_>,
        place: &ChannelPlace<'_>,
        bi: usize,
        name: &str,
        skipped_by: Option<&str>,
        position: Option<usize>,
    ) {
        let id = self.entries.len() as EntryId;
        let (gvks, package_props) = self.provides(bi, &all.facts);
        self.entries.push(Entry {
            bundle: name.into(),
            package: place.pkg.into(),
            channel: place.ch.into(),
            catalog: place.catalog.into(),
            deprecated: all.deprecated.get(bi).copied().unwrap_or(false),
            prohibited: None,
            provides_gvks: gvks,
            package_props,
            dependencies: Vec::new(),
            hard_error: None,
        });
        self.bundle.push(bi);
        self.skipped_by.push(skipped_by.map(Into::into));
        self.eligible.push(position.is_some());
        self.source.push(place.source);
        self.order.push((
            place.rank,
            !place.is_default,
            position.unwrap_or(usize::MAX),
        ));
        self.channel_error.push(place.error);
        if let Some(v) = self.bundle_entries.get_mut(bi) {
            v.push(id);
        }
    }

    /// What bundle `bi` provides: built for its first entry, shared by the others.
    fn provides(&mut self, bi: usize, facts: &[Facts]) -> Provides {
        if let Some(p) = self.shared_props.get(&bi) {
            return p.clone();
        }
        let f = facts.get(bi);
        let mut gvks: Vec<CompactString> = f
            .map(|f| f.gvks.iter().map(|(g, v, k)| gvk_key(g, v, k)).collect())
            .unwrap_or_default();
        gvks.sort();
        gvks.dedup();
        let props: Arc<[CompactString]> = f
            .map(|f| f.olm_packages.iter().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        let p = (Arc::from(gvks), props);
        self.shared_props.insert(bi, p.clone());
        p
    }

    /// Step 5: wire the dependencies into every entry of every bundle (`slots`: per bundle, its
    /// dependency properties and their value's index in `shared`). Returns each bundle's
    /// dependencies and the origin of every SAT dependency.
    fn wire(
        &mut self,
        slots: &[Vec<(usize, usize)>],
        shared: &[Arc<DepInfo>],
        provided: &Provided,
    ) -> (Vec<Vec<BundleDep>>, Vec<Origin>) {
        let mut deps: Vec<Vec<BundleDep>> = Vec::with_capacity(self.bundle_entries.len());
        let mut origins: Vec<Origin> = Vec::new();
        for (bi, props) in slots.iter().enumerate() {
            let list: Vec<BundleDep> = props
                .iter()
                .filter_map(|&(property, slot)| {
                    Some(BundleDep {
                        property,
                        shared: shared.get(slot)?.clone(),
                    })
                })
                .collect();
            for &eid in self
                .bundle_entries
                .get(bi)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let hard = list
                    .iter()
                    .find_map(|d| d.error.clone().or_else(|| d.channel_error.clone()));
                let sat_deps = sat_dependencies(&list, bi, provided, &mut origins);
                if let Some(e) = self.entries.get_mut(eid as usize) {
                    e.dependencies = sat_deps;
                    e.hard_error = hard;
                }
            }
            deps.push(list);
        }
        (deps, origins)
    }
}

/// The SAT dependencies of an entry of bundle `bi` whose dependency properties are `list`,
/// each with a new origin in `origins`.
fn sat_dependencies(
    list: &[BundleDep],
    bi: usize,
    provided: &Provided,
    origins: &mut Vec<Origin>,
) -> Vec<Dependency> {
    let mut sat_deps = Vec::new();
    for d in list {
        // Dependencies met outside the linted catalogs add no clause.
        if d.pred.is_none() || provided.assumes_met(d) {
            continue;
        }
        // No exception for the depending bundle (resolver.go getBundleVariables):
        // its own entry counts only if it survives `sortChannel`, so a bundle
        // skipped in its channel cannot satisfy its own dependency (spec §3.3).
        let candidates = Arc::clone(&d.candidates);
        sat_deps.push(Dependency {
            candidates,
            label: Arc::clone(&d.sat_label),
            origin: origins.len() as u32,
            cel_message: d.failure_message.clone(),
        });
        origins.push(Origin {
            bundle: bi,
            property: d.property,
        });
    }
    sat_deps
}

/// Packages whose bundle directories are released from catalog templates (`fbc.enabled`
/// in ci.yaml): their channels live in a catalog not loaded here, like another catalog's.
fn released_elsewhere<'s>(sources: &'s [Source<'_, '_>]) -> std::collections::HashSet<&'s str> {
    sources
        .iter()
        .flat_map(|s| {
            s.catalog.dir_bundles.iter().filter(|b| {
                b.operator
                    .and_then(|o| s.catalog.operators.get(o))
                    .is_some_and(|o| o.fbc)
            })
        })
        .map(|b| b.package())
        .collect()
}

/// The dependency properties of every bundle, grouped by value.
struct DistinctValues {
    /// Per distinct value: the first (bundle, property index) holding it.
    representative: Vec<(usize, usize)>,
    /// Per bundle: its dependency properties (property index, index of its value).
    slots: Vec<Vec<(usize, usize)>>,
}

impl DistinctValues {
    fn of(all: &AllBundles<'_, '_>) -> Self {
        let bundles = &all.bundles;
        // 1. Every dependency property with a hash of its canonical value (in parallel).
        let keyed: Vec<Vec<(usize, ValueKey<'_>)>> = bundles
            .par_iter()
            .zip(all.home.par_iter())
            .map(|(b, &(own, _))| {
                b.properties
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| is_dependency(p.ty()) && p.value.is_some())
                    .filter_map(|(pi, p)| {
                        Some((pi, (own, p.ty(), p.value.as_deref()?.canonical_key())))
                    })
                    .collect()
            })
            .collect();
        // 2. Equal values give equal predicates and candidate lists within a catalog (only
        //    self-membership differs, handled when wiring): one slot per distinct canonical
        //    value, keyed by the depender's catalog too, since candidate order puts that
        //    catalog first. Equal hashes are confirmed structurally.
        let value_of = |bi: usize, pi: usize| {
            bundles
                .get(bi)
                .and_then(|b| b.properties.get(pi))
                .and_then(|p| p.value.as_deref())
        };
        let prop = |(bi, k): (usize, usize)| {
            let pi = keyed.get(bi).and_then(|p| p.get(k)).map_or(0, |x| x.0);
            (bi, pi)
        };
        let (slot_lists, firsts) = group_by_key(&keyed, |x| &x.1, &|a, b| {
            let ((ab, ap), (bb, bp)) = (prop(a), prop(b));
            value_of(ab, ap)
                .zip(value_of(bb, bp))
                .is_some_and(|(x, y)| x.canonical_eq(y))
        });
        let representative: Vec<(usize, usize)> = firsts.into_iter().map(prop).collect();
        let slots: Vec<Vec<(usize, usize)>> = keyed
            .iter()
            .zip(slot_lists)
            .map(|(props, slots)| props.iter().map(|x| x.0).zip(slots).collect())
            .collect();
        DistinctValues {
            representative,
            slots,
        }
    }
}

/// Step 3: decode and convert each distinct value once (CEL rules interned under a lock).
fn decode_values(
    bundles: &[&Bundle<'_>],
    representative: &[(usize, usize)],
    cel_budget: cel::EvalBudget,
) -> (Vec<DepInfo>, CelTable) {
    let cel_table = std::sync::Mutex::new(CelTable {
        budget: cel_budget,
        bundles: bundles.len(),
        ..CelTable::default()
    });
    let decoded: Vec<DepInfo> = representative
        .par_iter()
        .map(|&(bi, pi)| {
            let p = bundles.get(bi).and_then(|b| b.properties.get(pi));
            let (ty, value) = match p.and_then(|p| Some((p.ty(), p.value.as_deref()?))) {
                Some(x) => x,
                None => ("", &EMPTY_NODE),
            };
            dep_info(ty, value, &cel_table)
        })
        .collect();
    (decoded, cel_table.into_inner().unwrap_or_default())
}

/// What the dependency property of type `ty` and value `value` means to OLM, before its
/// candidates are known.
fn dep_info(ty: &str, value: &Node, cel_table: &std::sync::Mutex<CelTable>) -> DepInfo {
    let v = verdict(ty, value, &mut |rule| {
        cel_table
            .lock()
            .map_err(|_| String::from("internal error"))?
            .intern(rule)
    });
    DepInfo {
        error: v.olm_error(ty),
        pred: v.pred,
        sat_label: format!("requires an operator {}", v.label).into(),
        label: v.label,
        failure_message: (ty == "olm.constraint")
            .then(|| {
                value
                    .get_folded("failureMessage")
                    .and_then(|e| e.value.as_str().map(Arc::from))
            })
            .flatten(),
        candidates: Arc::new([]),
        ineligible: vec![],
        channel_error: None,
        absent: false,
    }
}

/// What the candidate search reads: the entries, every bundle's source and facts, and the
/// CEL rules' outcomes.
struct Matcher<'m> {
    table: &'m EntryTable,
    home: &'m [(usize, usize)],
    facts: &'m [Facts],
    cel: &'m CelTable,
    runtime: &'m Runtime<'m>,
}

/// Entries by the packages they provide (their own and their `olm.package` names) and by
/// the APIs (`group/version/Kind`) they provide.
struct Lookup<'m> {
    by_package: HashMap<&'m str, Vec<EntryId>>,
    by_gvk: HashMap<&'m str, Vec<EntryId>>,
    /// Every entry, for a dependency that names no package or API.
    all_ids: Vec<EntryId>,
}

impl<'m> Matcher<'m> {
    /// Step 4: the candidates of each distinct value (`decoded`, first held by
    /// `representative`), in OLM's preference order (in parallel).
    fn find_candidates(
        &self,
        sources: &[Source<'_, '_>],
        decoded: Vec<DepInfo>,
        representative: &[(usize, usize)],
    ) -> Vec<Arc<DepInfo>> {
        let elsewhere = released_elsewhere(sources);
        let lookup = self.lookup();
        let nearby = Nearby::new(&lookup.by_package, &lookup.by_gvk);
        decoded
            .into_par_iter()
            .zip(representative.par_iter())
            .map(|(mut dep, &(bi, _))| {
                let own = self.home.get(bi).map_or(0, |h| h.0);
                if let Some(pred) = &dep.pred {
                    let matching = self.matching(pred, &lookup);
                    for &id in &matching {
                        if let Some(Some(ce)) = self.table.channel_error.get(id as usize) {
                            if dep.channel_error.is_none() {
                                dep.channel_error = self.table.channel_errors.get(*ce).cloned();
                            }
                        }
                    }
                    let (good, bad) = self.ranked(matching, own);
                    dep.absent =
                        good.is_empty() && bad.is_empty() && absent(pred, &nearby, &elsewhere);
                    dep.candidates = good.into();
                    dep.ineligible = bad;
                }
                Arc::new(dep)
            })
            .collect()
    }

    /// The lookup indexes over the entries.
    fn lookup(&self) -> Lookup<'m> {
        let table = self.table;
        let mut by_package: HashMap<&str, Vec<EntryId>> = HashMap::new();
        let mut by_gvk: HashMap<&str, Vec<EntryId>> = HashMap::new();
        for (id, e) in table.entries.iter().enumerate() {
            let f = table.bundle.get(id).and_then(|&b| self.facts.get(b));
            let mut names: Vec<&str> = vec![e.package.as_str()];
            names.extend(
                f.map(|f| {
                    f.olm_packages
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
            );
            names.sort_unstable();
            names.dedup();
            for n in names {
                by_package.entry(n).or_default().push(id as EntryId);
            }
            for g in e.provides_gvks.iter() {
                by_gvk.entry(g.as_str()).or_default().push(id as EntryId);
            }
        }
        Lookup {
            by_package,
            by_gvk,
            all_ids: (0..table.entries.len() as EntryId).collect(),
        }
    }

    /// The entries `pred` matches, by id: among those of the packages or APIs it requires,
    /// else among all.
    fn matching(&self, pred: &Pred, lookup: &Lookup<'_>) -> Vec<EntryId> {
        let seed: Vec<EntryId> = if let Some(pkgs) = pred.required_packages() {
            let mut s: Vec<EntryId> = pkgs
                .iter()
                .flat_map(|p| lookup.by_package.get(*p).into_iter().flatten().copied())
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        } else if let Some(gvks) = pred.required_gvks() {
            let mut s: Vec<EntryId> = gvks
                .iter()
                .flat_map(|(g, v, k)| {
                    lookup
                        .by_gvk
                        .get(gvk_key(g, v, k).as_str())
                        .into_iter()
                        .flatten()
                        .copied()
                })
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        } else {
            lookup.all_ids.clone()
        };
        seed.into_iter()
            .filter(|&id| {
                let Some(&eb) = self.table.bundle.get(id as usize) else {
                    return false;
                };
                let Some(f) = self.facts.get(eb) else {
                    return false;
                };
                pred.matches(f, &|rule| self.cel.truth(rule, self.runtime, eb))
            })
            .collect()
    }

    /// The matching entries split into candidates, in OLM's preference order for a
    /// dependency of a bundle of source `own`, and the ineligible rest.
    fn ranked(&self, matching: Vec<EntryId>, own: usize) -> (Vec<EntryId>, Vec<EntryId>) {
        let table = self.table;
        let (mut good, bad): (Vec<EntryId>, Vec<EntryId>) = matching
            .into_iter()
            .partition(|&id| table.eligible.get(id as usize).copied().unwrap_or(false));
        // Own catalog first, then the order of `order` (catalog rank, default
        // channel, package, channel, position on the replaces chain).
        let key = |e: &EntryId| {
            let foreign = table.source.get(*e as usize).is_some_and(|&s| s != own);
            let place = table.order.get(*e as usize).map(|&(rank, other, pos)| {
                let entry = table.entries.get(*e as usize);
                let named = entry.map(|x| (x.package.as_str(), x.channel.as_str()));
                (rank, other, named, pos)
            });
            (foreign, place)
        };
        good.sort_by(|a, b| key(a).cmp(&key(b)));
        (good, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::{group_by_key, sort_channel};

    #[test]
    fn grouping_by_hash_confirms_equality() {
        // Items are numbers; the "hash" is the number mod 3, so 1, 4 and 7 collide.
        let items = [vec![1, 4, 1], vec![7, 4], vec![2, 7, 5]];
        let keys: Vec<Vec<u32>> = items
            .iter()
            .map(|l| l.iter().map(|n| n % 3).collect())
            .collect();
        let at = |(i, k): (usize, usize)| items[i][k];
        let (slots, firsts) = group_by_key(&keys, |k| k, &|a, b| at(a) == at(b));
        // Every item's slot holds its value, and each value has exactly one slot.
        for (i, list) in slots.iter().enumerate() {
            for (k, &slot) in list.iter().enumerate() {
                assert_eq!(at(firsts[slot]), items[i][k]);
            }
        }
        let mut values: Vec<u32> = firsts.iter().map(|&f| at(f)).collect();
        values.sort_unstable();
        assert_eq!(values, vec![1, 2, 4, 5, 7]);
        // The representative is the first occurrence.
        assert_eq!(firsts[slots[0][1]], (0, 1));
        assert_eq!(firsts[slots[2][1]], (1, 0));
        assert_eq!(slots[0][0], slots[0][2]);
        assert_eq!(slots[0][1], slots[1][1]);
    }

    #[test]
    fn sort_channel_like_olm() {
        let e = |n, r: Option<&'static str>, s: Vec<&'static str>| (n, r, s);
        assert_eq!(
            sort_channel(
                &[e("v1", None, vec![]), e("v2", Some("v1"), vec![])],
                "foo",
                "stable"
            ),
            Ok(vec![1, 0])
        );
        // skipped entries are dropped, the chain continues through replaces
        assert_eq!(
            sort_channel(
                &[e("v1", None, vec![]), e("v2", None, vec!["v1"])],
                "foo",
                "stable"
            ),
            Ok(vec![1])
        );
        assert!(sort_channel(
            &[e("v1", None, vec![]), e("v2", None, vec![])],
            "foo",
            "stable"
        )
        .unwrap_err()
        .contains(
            "2 replacement chains were found in channel \"stable\" of package \"foo\": v1, v2"
        ));
        assert!(sort_channel(
            &[e("v1", Some("v2"), vec![]), e("v2", Some("v1"), vec![])],
            "foo",
            "stable"
        )
        .unwrap_err()
        .starts_with("no channel heads"));
    }

    /// #25 D: upstream counts the edges of skipped entries too and walks through them.
    #[test]
    fn sort_channel_walks_through_skipped_entries() {
        let e = |n, r: Option<&'static str>, s: Vec<&'static str>| (n, r, s);
        // kite.v1.2.0 replaces and skips v1.1.0, which replaces v1.0.0: [v1.2.0, v1.0.0].
        assert_eq!(
            sort_channel(
                &[
                    e("kite.v1.0.0", None, vec![]),
                    e("kite.v1.1.0", Some("kite.v1.0.0"), vec![]),
                    e("kite.v1.2.0", Some("kite.v1.1.0"), vec!["kite.v1.1.0"]),
                ],
                "kite",
                "stable"
            ),
            Ok(vec![2, 0])
        );
        // A skipped entry's own skips still count: v3 skips v2, v2 skips v1; v1 is replaced.
        assert_eq!(
            sort_channel(
                &[
                    e("v1", None, vec![]),
                    e("v2", None, vec!["v1"]),
                    e("v3", Some("v2"), vec!["v2"]),
                ],
                "p",
                "c"
            ),
            Ok(vec![2])
        );
        // Several chains are listed head...tail, in channel order.
        assert_eq!(
            sort_channel(
                &[
                    e("v1", None, vec![]),
                    e("v2", Some("v1"), vec![]),
                    e("v3", None, vec![]),
                ],
                "kite",
                "stable"
            )
            .unwrap_err(),
            "a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel \"stable\" of package \"kite\": v2...v1, v3"
        );
        // A cycle below a head names the head the walk began at.
        assert_eq!(
            sort_channel(
                &[
                    e("v1", Some("v2"), vec![]),
                    e("v2", Some("v1"), vec![]),
                    e("v3", Some("v2"), vec![]),
                ],
                "p",
                "c"
            )
            .unwrap_err(),
            "a cycle exists in the chain of replacement beginning with \"v3\" in channel \"c\" of package \"p\""
        );
        // A replaces naming an entry outside the channel is no edge.
        assert_eq!(
            sort_channel(&[e("v2", Some("gone"), vec!["also-gone"])], "p", "c"),
            Ok(vec![0])
        );
    }
}
