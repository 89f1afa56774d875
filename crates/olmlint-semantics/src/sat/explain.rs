//! Rendering verdicts: plain-language explanations and OLM's own message text.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use super::{CoreItem, Dependency, EntryId, Problem, Verdict};

/// Longest list of bundles spelled out in an explanation.
const MAX_LISTED: usize = 8;

/// OLM's `pred.String()` for dependency `index` of `entry`.
pub type PredicateText<'a> = &'a dyn Fn(EntryId, usize, &Dependency) -> String;

/// How [`olm_message_with`] spells OLM identifiers.
///
/// An entry's id is `<catalog>/<namespace>/<channel>/<bundle>` (§3.1). OLM
/// needs a namespace and a subscription name that a catalog does not have; the
/// defaults (`ns`, `sub`) are those of the upstream test harness
/// (`shared/upstream-cases`), so messages compare byte for byte with it.
pub struct OlmStyle<'a> {
    /// Catalog namespace in entry ids.
    pub namespace: &'a str,
    /// Subscription name used for [`CoreItem::Mandatory`] roots.
    pub subscription: &'a str,
    /// OLM's `pred.String()` for a dependency (entry, index, dependency). By
    /// default the label with a leading `requires ` removed.
    pub predicate: Option<PredicateText<'a>>,
}

impl Default for OlmStyle<'_> {
    fn default() -> Self {
        OlmStyle {
            namespace: "ns",
            subscription: "sub",
            predicate: None,
        }
    }
}

/// OLM's error text for a verdict, with [`OlmStyle::default`]:
/// `constraints not satisfiable: ` + the core's messages (§3.8) sorted and
/// joined with `", "`; a hard error's own message; gini's
/// `cancelled before a solution could be found` for an exhausted budget; the
/// empty string for an installable verdict.
pub fn olm_message(problem: &Problem, verdict: &Verdict) -> String {
    olm_message_with(problem, verdict, &OlmStyle::default())
}

/// [`olm_message`] with explicit naming.
pub fn olm_message_with(problem: &Problem, verdict: &Verdict, style: &OlmStyle<'_>) -> String {
    match verdict {
        Verdict::Installable { .. } => String::new(),
        Verdict::HardError { message, .. } => message.clone(),
        Verdict::BudgetExceeded => "cancelled before a solution could be found".to_string(),
        Verdict::Unsatisfiable { .. } => {
            let msgs = olm_reasons(problem, verdict, style);
            if msgs.is_empty() {
                "constraints not satisfiable".to_string()
            } else {
                format!("constraints not satisfiable: {}", msgs.join(", "))
            }
        }
    }
}

/// The messages OLM joins after `constraints not satisfiable: `, sorted (empty unless the
/// verdict is unsatisfiable).
pub fn olm_reasons(problem: &Problem, verdict: &Verdict, style: &OlmStyle<'_>) -> Vec<String> {
    let mut msgs: Vec<String> = Vec::new();
    if let Verdict::Unsatisfiable { core } = verdict {
        for item in core {
            olm_item(problem, item, style, &mut msgs);
        }
    }
    msgs.sort();
    msgs
}

fn olm_id(problem: &Problem, e: EntryId, ns: &str) -> String {
    match problem.entry(e) {
        Some(x) => format!("{}/{}/{}/{}", x.catalog, ns, x.channel, x.bundle),
        None => format!("#{e}"),
    }
}

fn bundle_name(problem: &Problem, e: EntryId) -> String {
    problem
        .entry(e)
        .map_or_else(|| format!("#{e}"), |x| x.bundle.to_string())
}

/// `a`, `a and b`, `a, b and c` (OLM's invariant style).
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {}", init.join(", "), last),
    }
}

/// Splits `group/version/Kind`; the group may be empty.
fn split_gvk(gvk: &str) -> (&str, &str, &str) {
    let mut parts = gvk.rsplitn(3, '/');
    let kind = parts.next().unwrap_or("");
    let version = parts.next().unwrap_or("");
    let group = parts.next().unwrap_or("");
    (group, version, kind)
}

fn olm_item(problem: &Problem, item: &CoreItem, style: &OlmStyle<'_>, out: &mut Vec<String>) {
    let ns = style.namespace;
    match item {
        CoreItem::Mandatory(e) => {
            out.push(format!("subscription {} exists", style.subscription));
            out.push(format!(
                "subscription {} requires {}",
                style.subscription,
                olm_id(problem, *e, ns)
            ));
        }
        CoreItem::Subscription { name, candidates } => {
            out.push(format!("subscription {name} exists"));
            let ids: Vec<String> = candidates.iter().map(|&c| olm_id(problem, c, ns)).collect();
            out.push(match ids.as_slice() {
                [] => format!("no operators found matching the criteria of subscription {name}"),
                [one] => format!("subscription {name} requires {one}"),
                [init @ .., last] => format!(
                    "subscription {name} requires at least one of {} or {last}",
                    init.join(", ")
                ),
            });
        }
        CoreItem::Installed(e) => out.push(format!(
            "clusterserviceversion {} exists and is not referenced by a subscription",
            bundle_name(problem, *e)
        )),
        CoreItem::Dependency { entry, index } => {
            let dep = problem
                .entry(*entry)
                .and_then(|x| x.dependencies.get(*index));
            let pred = match (dep, style.predicate) {
                (Some(d), Some(f)) => f(*entry, *index, d),
                (Some(d), None) => d
                    .label
                    .strip_prefix("requires an operator ")
                    .or_else(|| d.label.strip_prefix("requires "))
                    .unwrap_or(&d.label)
                    .to_string(),
                (None, _) => String::new(),
            };
            out.push(format!(
                "bundle {} requires an operator {}",
                bundle_name(problem, *entry),
                pred
            ));
        }
        CoreItem::Prohibited(e) => {
            let why = problem
                .entry(*e)
                .and_then(|x| x.prohibited.as_deref())
                .unwrap_or("is deprecated");
            out.push(format!("bundle {} {why}", olm_id(problem, *e, ns)));
        }
        CoreItem::AtMostOneGvk { gvk, entries } => {
            let (group, version, kind) = split_gvk(gvk);
            out.push(format!(
                "{} provide {kind} ({group}/{version})",
                and_list(&sorted_ids(problem, entries, ns))
            ));
        }
        CoreItem::AtMostOnePackage { package, entries } => out.push(format!(
            "{} originate from package {package}",
            and_list(&sorted_ids(problem, entries, ns))
        )),
        // OLM spells out the candidates' own constraints here; the message of each candidate
        // has them.
        CoreItem::Uninstallable { entries } => out.push(format!(
            "{} cannot be installed (OLM lists why here too; see the message for that bundle)",
            and_list(&sorted_ids(problem, entries, ns))
        )),
    }
}

fn sorted_ids(problem: &Problem, entries: &[EntryId], ns: &str) -> Vec<String> {
    let mut ids: Vec<String> = entries.iter().map(|&e| olm_id(problem, e, ns)).collect();
    ids.sort();
    ids
}

/// Explains a verdict in words, in OLM's terms.
///
/// For an unsatisfiable core: `<start> cannot be installed: ` followed by the
/// core's facts joined with `"; "`, walking dependencies breadth-first from the
/// start (with each candidate list and `failureMessage`), then deprecations and
/// the one-per-package / one-provider-per-API invariants. Bundle names get a
/// `(channel)` or `(catalog/channel)` suffix only when ambiguous.
pub fn explain(problem: &Problem, verdict: &Verdict) -> String {
    match verdict {
        Verdict::Installable { chosen } => {
            let names = Names::new(problem, chosen.iter().copied());
            format!("installable: OLM can install {}", names.list(chosen))
        }
        Verdict::HardError { entry, message } => {
            let names = Names::new(problem, [*entry]);
            // sortChannel's errors (§3.7) come from a candidate's channel, not the constraint.
            let channel = ["no channel heads", "a unique replacement chain", "a cycle exists"]
                .iter()
                .any(|p| message.starts_with(p));
            let why = if channel {
                format!("a bundle matching one of its dependencies is in a channel OLM cannot order ({message})")
            } else {
                format!("OLM cannot decode or compile one of its constraints ({message})")
            };
            format!(
                "resolution aborts before solving: {} is reached and {why}; OLM fails every resolution that reaches it",
                names.name(*entry)
            )
        }
        Verdict::BudgetExceeded => "undecided: the SAT search exceeded its conflict budget, so installability is neither proven nor refuted".to_string(),
        Verdict::Unsatisfiable { core } => {
            let (subject, facts) = explain_core(problem, core);
            if facts.is_empty() {
                subject
            } else {
                format!("{subject}: {}", facts.join("; "))
            }
        }
    }
}

/// [`explain`] of an unsatisfiable verdict in parts: the subject (`foo.v1 cannot be
/// installed`) and the facts that [`explain`] joins with `"; "`. Other verdicts: their
/// explanation and no facts.
pub fn explain_parts(problem: &Problem, verdict: &Verdict) -> (String, Vec<String>) {
    match verdict {
        Verdict::Unsatisfiable { core } => explain_core(problem, core),
        other => (explain(problem, other), Vec::new()),
    }
}

/// Display names, disambiguated only where needed.
struct Names(HashMap<EntryId, String>);

impl Names {
    fn new(problem: &Problem, ids: impl IntoIterator<Item = EntryId>) -> Self {
        let ids: BTreeSet<EntryId> = ids.into_iter().collect();
        let mut by_bundle: HashMap<&str, Vec<EntryId>> = HashMap::new();
        for &e in &ids {
            if let Some(x) = problem.entry(e) {
                by_bundle.entry(x.bundle.as_str()).or_default().push(e);
            }
        }
        let mut names = HashMap::new();
        for &e in &ids {
            let Some(x) = problem.entry(e) else {
                names.insert(e, format!("#{e}"));
                continue;
            };
            let same = by_bundle
                .get(x.bundle.as_str())
                .map_or(&[][..], Vec::as_slice);
            let name = if same.len() <= 1 {
                x.bundle.to_string()
            } else {
                let catalogs: BTreeSet<&str> = same
                    .iter()
                    .filter_map(|&o| problem.entry(o))
                    .map(|o| o.catalog.as_str())
                    .collect();
                if catalogs.len() > 1 {
                    format!("{} ({}/{})", x.bundle, x.catalog, x.channel)
                } else {
                    format!("{} ({})", x.bundle, x.channel)
                }
            };
            names.insert(e, name);
        }
        Names(names)
    }

    fn name(&self, e: EntryId) -> String {
        self.0.get(&e).cloned().unwrap_or_else(|| format!("#{e}"))
    }

    fn list(&self, ids: &[EntryId]) -> String {
        let mut items: Vec<String> = ids.iter().take(MAX_LISTED).map(|&e| self.name(e)).collect();
        if ids.len() > MAX_LISTED {
            items.push(format!("{} more", ids.len() - MAX_LISTED));
        }
        and_list(&items)
    }
}

fn explain_core(problem: &Problem, core: &[CoreItem]) -> (String, Vec<String>) {
    let names = Names::new(problem, mentioned(problem, core));
    let subject = subject(core, &names);
    let mut story = Story {
        problem,
        names: &names,
        prohibited: BTreeSet::new(),
        told_prohibited: BTreeSet::new(),
        sentences: Vec::new(),
    };
    let mut walk = DependencyWalk::default();
    walk.start(core, &mut story);
    walk.run(&mut story);
    // Anything not connected to a root (should not happen in a minimal core).
    walk.queue = walk.deps.keys().copied().collect();
    walk.run(&mut story);
    story.untold_deprecations();
    story.invariants(core);
    (subject, story.sentences)
}

/// Every entry an explanation of `core` may name (its dependencies' candidates too).
fn mentioned(problem: &Problem, core: &[CoreItem]) -> Vec<EntryId> {
    let mut mentioned: Vec<EntryId> = Vec::new();
    for item in core {
        match item {
            CoreItem::Mandatory(e) | CoreItem::Installed(e) | CoreItem::Prohibited(e) => {
                mentioned.push(*e)
            }
            CoreItem::Subscription { candidates, .. } => mentioned.extend(candidates),
            CoreItem::Dependency { entry, index } => {
                mentioned.push(*entry);
                if let Some(d) = problem
                    .entry(*entry)
                    .and_then(|x| x.dependencies.get(*index))
                {
                    mentioned.extend(d.candidates.iter().filter(|&&c| problem.entry(c).is_some()));
                }
            }
            CoreItem::AtMostOneGvk { entries, .. }
            | CoreItem::AtMostOnePackage { entries, .. }
            | CoreItem::Uninstallable { entries } => mentioned.extend(entries),
        }
    }
    mentioned
}

/// What cannot be installed: the one mandatory bundle, when the core has no subscription
/// or installed bundle; otherwise the requirements together.
fn subject(core: &[CoreItem], names: &Names) -> String {
    let mandatory: Vec<EntryId> = core
        .iter()
        .filter_map(|i| match i {
            CoreItem::Mandatory(e) => Some(*e),
            _ => None,
        })
        .collect();
    match mandatory.as_slice() {
        [one]
            if core
                .iter()
                .all(|i| !matches!(i, CoreItem::Subscription { .. } | CoreItem::Installed(_))) =>
        {
            format!("{} cannot be installed", names.name(*one))
        }
        _ => "these requirements cannot be met together".to_string(),
    }
}

/// The sentences of an explanation, as they are told; each deprecation told once.
struct Story<'a> {
    problem: &'a Problem,
    names: &'a Names,
    /// The core's prohibited (deprecated) entries.
    prohibited: BTreeSet<EntryId>,
    /// Those whose deprecation has been told.
    told_prohibited: BTreeSet<EntryId>,
    sentences: Vec<String>,
}

impl Story<'_> {
    /// Tells that `e` is deprecated, if it is and that was not told yet.
    fn deprecated_once(&mut self, e: EntryId) {
        if self.prohibited.contains(&e) && self.told_prohibited.insert(e) {
            self.sentences
                .push(deprecated_sentence(self.problem, self.names, e));
        }
    }

    /// The deprecations no dependency walk reached.
    fn untold_deprecations(&mut self) {
        for &e in &self.prohibited {
            if !self.told_prohibited.contains(&e) {
                self.sentences
                    .push(deprecated_sentence(self.problem, self.names, e));
            }
        }
    }

    /// The one-per-package and one-provider-per-API invariants of the core, and the
    /// candidates that cannot be installed themselves.
    fn invariants(&mut self, core: &[CoreItem]) {
        let names = self.names;
        for item in core {
            match item {
                CoreItem::AtMostOnePackage { package, entries } => self.sentences.push(format!(
                    "at most one bundle of package {package} can be installed ({})",
                    names.list(entries)
                )),
                CoreItem::AtMostOneGvk { gvk, entries } => self.sentences.push(format!(
                    "at most one installed bundle may provide the API {gvk} ({})",
                    names.list(entries)
                )),
                CoreItem::Uninstallable { entries } => {
                    self.sentences.push(match entries.as_slice() {
                        [one] => format!(
                            "{} cannot be installed itself (its own finding says why)",
                            names.name(*one)
                        ),
                        many => format!(
                            "none of {} can be installed itself (their own findings say why)",
                            names.list(many)
                        ),
                    })
                }
                _ => {}
            }
        }
    }
}

/// A breadth-first walk of the core's dependencies from its roots.
#[derive(Default)]
struct DependencyWalk {
    /// The core's dependencies (indexes), by the entry that has them.
    deps: BTreeMap<EntryId, Vec<usize>>,
    seen: BTreeSet<EntryId>,
    queue: VecDeque<EntryId>,
}

impl DependencyWalk {
    /// Collects the core's dependencies and deprecations, and queues its roots (mandatory,
    /// installed and subscribed bundles), telling the installed and subscribed ones.
    fn start(&mut self, core: &[CoreItem], story: &mut Story<'_>) {
        let names = story.names;
        for item in core {
            match item {
                CoreItem::Dependency { entry, index } => {
                    self.deps.entry(*entry).or_default().push(*index)
                }
                CoreItem::Prohibited(e) => {
                    story.prohibited.insert(*e);
                }
                CoreItem::Mandatory(e) => self.queue.push_back(*e),
                CoreItem::Installed(e) => {
                    story.sentences.push(format!(
                        "{} is installed without a subscription and must stay",
                        names.name(*e)
                    ));
                    self.queue.push_back(*e);
                }
                CoreItem::Subscription { name, candidates } => {
                    story.sentences.push(match candidates.as_slice() {
                        [] => format!("subscription {name} has no candidate bundle"),
                        [one] => format!("subscription {name} must install {}", names.name(*one)),
                        many => format!(
                            "subscription {name} must install one of {}",
                            names.list(many)
                        ),
                    });
                    self.queue.extend(candidates);
                }
                CoreItem::AtMostOneGvk { .. }
                | CoreItem::AtMostOnePackage { .. }
                | CoreItem::Uninstallable { .. } => {}
            }
        }
    }

    /// Tells each queued entry's dependencies (and deprecations), queueing their
    /// candidates, until the queue is empty.
    fn run(&mut self, story: &mut Story<'_>) {
        let problem = story.problem;
        while let Some(e) = self.queue.pop_front() {
            if !self.seen.insert(e) {
                continue;
            }
            story.deprecated_once(e);
            for &index in self.deps.get(&e).map_or(&[][..], Vec::as_slice) {
                let Some(dep) = problem.entry(e).and_then(|x| x.dependencies.get(index)) else {
                    continue;
                };
                story
                    .sentences
                    .push(dep_sentence(problem, story.names, e, dep));
                for &c in dep.candidates.iter() {
                    story.deprecated_once(c);
                    if problem.entry(c).is_some() {
                        self.queue.push_back(c);
                    }
                }
            }
        }
    }
}

fn deprecated_sentence(problem: &Problem, names: &Names, e: EntryId) -> String {
    match problem.entry(e).and_then(|x| x.prohibited.as_deref()) {
        Some(why) => format!("{} {why}", names.name(e)),
        None => format!(
            "{} is deprecated (olm.deprecated), so OLM never installs it",
            names.name(e)
        ),
    }
}

fn dep_sentence(problem: &Problem, names: &Names, owner: EntryId, dep: &Dependency) -> String {
    let label = dep.label.trim();
    let mut s = if label.is_empty() {
        format!("{} has a dependency", names.name(owner))
    } else if label.starts_with("requires ") {
        format!("{} {label}", names.name(owner))
    } else {
        format!("{} requires {label}", names.name(owner))
    };
    if let Some(m) = &dep.cel_message {
        s.push_str(&format!(" (failure message: \"{m}\")"));
    }
    let candidates: Vec<EntryId> = dep
        .candidates
        .iter()
        .copied()
        .filter(|&c| problem.entry(c).is_some())
        .collect();
    match candidates.as_slice() {
        [] => s.push_str(", but no bundle in the catalogs satisfies it"),
        [one] => s.push_str(&format!("; its only candidate is {}", names.name(*one))),
        many => s.push_str(&format!("; its candidates are {}", names.list(many))),
    }
    s
}
