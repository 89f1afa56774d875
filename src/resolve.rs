//! `olmlint resolve`: what OLM would install for a subscription, and why — or why not.
//! Load → model → resolution (the same as `lint`) → the SAT engine's preference search.

use olmlint_load::{self as load, Limits};
use olmlint_model::index::Index;
use olmlint_model::resolution::{self, Provided, Source};
use olmlint_semantics::sat::{
    self, Budget, ChosenDependency, DepOwner, EntryId, Subscription, Verdict,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Default)]
pub struct Request {
    pub package: String,
    /// `startingCSV`: only this bundle is a subscription candidate.
    pub bundle: Option<String>,
    /// Empty: every channel of the package, default channel first (§3.4).
    pub channel: Option<String>,
    /// Catalogs with their priorities; the subscription's catalog is the first holding the
    /// package.
    pub catalogs: Vec<(PathBuf, i64)>,
    /// Bundles already on the cluster. One of a subscribed package is that subscription's
    /// installed CSV: OLM then offers only its upgrades (§3.4 step 4) and keeps it otherwise;
    /// the others are installed CSVs without a subscription, which must stay (Mandatory).
    pub installed: Vec<String>,
    /// Further subscriptions in the same namespace (package names, every channel).
    pub also_subscribe: Vec<String>,
}

/// One subscription of the namespace.
struct Sub<'q> {
    package: &'q str,
    channel: Option<&'q str>,
    starting: Option<&'q str>,
    /// Its installed CSV (from `--installed`): name and entry.
    current: Option<(&'q str, EntryId)>,
}

/// One step of the install tree: `bundle` was installed to satisfy `reason` of `parent`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Step {
    pub bundle: String,
    pub catalog: String,
    pub channel: String,
    /// `null` for the subscription itself and for installed bundles.
    pub parent: Option<String>,
    pub reason: String,
    /// Candidates OLM preferred but could not use, in order.
    pub passed_over: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Answer {
    pub package: String,
    pub bundle: Option<String>,
    pub installable: bool,
    pub installed: Vec<String>,
    pub explanation: Option<String>,
    /// The explanation's facts, one per item (for people: [`render`] lists them).
    #[serde(skip)]
    pub reasons: Vec<String>,
    /// OLM's own messages for the failure, sorted (empty when installable).
    #[serde(skip)]
    pub olm_reasons: Vec<String>,
    pub tree: Vec<Step>,
}

pub fn run(req: &Request) -> Result<Answer, String> {
    run_all(std::slice::from_ref(req))
        .pop()
        .unwrap_or_else(|| Err("no request".into()))
}

/// Answer several requests over the same catalogs (those of the first request), loading,
/// modelling and resolving them once.
pub fn run_all(reqs: &[Request]) -> Vec<Result<Answer, String>> {
    let Some(first) = reqs.first() else {
        return Vec::new();
    };
    let fail = |e: String| reqs.iter().map(|_| Err(e.clone())).collect();
    if first.catalogs.is_empty() {
        return fail("no catalog given (--catalog PATH)".into());
    }
    for (p, _) in &first.catalogs {
        if !p.exists() {
            return fail(format!("{}: no such file or directory", p.display()));
        }
    }
    let paths: Vec<PathBuf> = first.catalogs.iter().map(|(p, _)| p.clone()).collect();
    let loaded = load::load(&paths, &Limits::default());
    let files = loaded.files;
    let catalogs: Vec<olmlint_model::Catalog<'_>> = (0..paths.len())
        .map(|scope| olmlint_model::build(&files, scope, &mut Vec::new()))
        .collect();
    let indexes: Vec<Index<'_>> = catalogs.iter().map(Index::new).collect();
    let mut resolutions: HashMap<usize, resolution::Resolution> = HashMap::new();
    reqs.iter()
        .map(|req| {
            // An unknown package still resolves, to OLM's "no operators found" failure (§3.4).
            let home = indexes
                .iter()
                .position(|ix| ix.packages.contains_key(req.package.as_str()))
                .unwrap_or(0);
            let r = resolutions.entry(home).or_insert_with(|| {
                // The subscription's catalog first: its bundles' dependencies prefer it.
                let mut order: Vec<usize> = vec![home];
                order.extend((0..catalogs.len()).filter(|&i| i != home));
                let sources: Vec<Source<'_, '_>> = order
                    .iter()
                    .filter_map(|&i| {
                        Some(Source {
                            name: paths.get(i)?.display().to_string(),
                            catalog: catalogs.get(i)?,
                            index: indexes.get(i)?,
                            priority: first.catalogs.get(i)?.1,
                            shadowed_by_own: false,
                        })
                    })
                    .collect();
                resolution::build(&sources, 1_000_000.into(), &Provided::default())
            });
            answer(req, r, catalogs.get(home))
        })
        .collect()
}

/// One request against a resolution whose first source is the subscription's catalog.
fn answer(
    req: &Request,
    r: &resolution::Resolution,
    home_catalog: Option<&olmlint_model::Catalog<'_>>,
) -> Result<Answer, String> {
    let problem = &r.problem;
    let (subs, installed_ids) = namespace(req, problem)?;
    let subscriptions = subs
        .iter()
        .map(|sub| {
            Ok(Subscription {
                candidates: subscription_candidates(r, home_catalog, sub)?,
                name: sub.name(),
            })
        })
        .collect::<Result<Vec<_>, String>>();
    let subscriptions = match subscriptions {
        Ok(s) => s,
        Err(why) => return Ok(no_candidates(req, why)),
    };
    let res =
        sat::resolve_subscriptions(problem, &subscriptions, &installed_ids, Budget::default());
    Ok(match &res.verdict {
        Verdict::Installable { chosen } => {
            let tree = Tree {
                problem,
                subs: &subs,
                subscriptions: &subscriptions,
            };
            tree.installable(req, chosen, &res.choices)
        }
        other => not_installable(req, problem, other),
    })
}

/// The namespace's subscriptions, the requested one first, each with its installed CSV
/// among `--installed`; and the installed bundles no subscription holds (they must stay).
fn namespace<'q>(
    req: &'q Request,
    problem: &sat::Problem,
) -> Result<(Vec<Sub<'q>>, Vec<EntryId>), String> {
    let mut installed_ids = Vec::new();
    let mut current: Vec<(&str, EntryId)> = Vec::new();
    for name in &req.installed {
        let id = (0..problem.len() as EntryId)
            .find(|&i| problem.entry(i).is_some_and(|e| e.bundle == *name))
            .ok_or_else(|| format!("--installed {name}: no such bundle in the catalogs"))?;
        current.push((name.as_str(), id));
    }
    let package_of = |id: EntryId| problem.entry(id).map_or("", |e| e.package.as_str());
    let mut subs = vec![Sub {
        package: &req.package,
        channel: req.channel.as_deref(),
        starting: req.bundle.as_deref(),
        current: None,
    }];
    subs.extend(req.also_subscribe.iter().map(|p| Sub {
        package: p,
        channel: None,
        starting: None,
        current: None,
    }));
    for &(name, id) in &current {
        match subs.iter_mut().find(|s| s.package == package_of(id)) {
            Some(sub) if sub.current.is_none() => sub.current = Some((name, id)),
            _ => installed_ids.push(id),
        }
    }
    Ok((subs, installed_ids))
}

/// The answer when a subscription has no candidate: `why`, OLM's reason.
fn no_candidates(req: &Request, why: String) -> Answer {
    Answer {
        package: req.package.clone(),
        bundle: req.bundle.clone(),
        installable: false,
        installed: Vec::new(),
        explanation: Some(why),
        reasons: Vec::new(),
        olm_reasons: Vec::new(),
        tree: Vec::new(),
    }
}

/// The answer when the solver finds no installable set (or gives up): its explanation.
fn not_installable(req: &Request, problem: &sat::Problem, verdict: &Verdict) -> Answer {
    Answer {
        package: req.package.clone(),
        bundle: None,
        installable: false,
        installed: vec![],
        reasons: sat::explain_parts(problem, verdict).1,
        olm_reasons: sat::olm_reasons(problem, verdict, &sat::OlmStyle::default()),
        explanation: Some(match verdict {
            Verdict::BudgetExceeded => "the solver budget ran out before a decision".to_string(),
            v @ Verdict::Unsatisfiable { .. } => format!(
                "{}. On the cluster, OLM reports: {}",
                sat::explain(problem, v),
                sat::olm_message(problem, v)
            ),
            v => sat::explain(problem, v),
        }),
        tree: vec![],
    }
}

/// What an installable resolution is made of: the problem and the namespace's subscriptions
/// (`subs` and their candidates, `subscriptions`, in the same order).
struct Tree<'t> {
    problem: &'t sat::Problem,
    subs: &'t [Sub<'t>],
    subscriptions: &'t [Subscription],
}

impl Tree<'_> {
    /// The answer for the installed set `chosen`: the bundle the request gets, every bundle
    /// installed, and the install tree from the solver's `choices`.
    fn installable(
        &self,
        req: &Request,
        chosen: &[EntryId],
        choices: &[ChosenDependency],
    ) -> Answer {
        let requested: &[EntryId] = self.subscriptions.first().map_or(&[], |s| &s.candidates);
        let mut installed: Vec<String> = chosen.iter().map(|&c| self.name_of(c)).collect();
        installed.sort();
        installed.dedup();
        let bundle = chosen
            .iter()
            .find(|c| requested.contains(c))
            .map(|&c| self.name_of(c));
        Answer {
            package: req.package.clone(),
            bundle,
            installable: true,
            installed,
            explanation: None,
            reasons: Vec::new(),
            olm_reasons: Vec::new(),
            tree: choices.iter().map(|c| self.step(c)).collect(),
        }
    }

    fn name_of(&self, id: EntryId) -> String {
        self.problem
            .entry(id)
            .map_or(String::new(), |e| e.bundle.to_string())
    }

    /// One step of the install tree: the chosen bundle, why, and the candidates OLM preferred
    /// to it but could not use.
    fn step(&self, c: &ChosenDependency) -> Step {
        let entry = self.problem.entry(c.chosen);
        let (parent, reason, preferred) = self.owner(c.owner);
        let passed_over = preferred
            .iter()
            .take_while(|&&p| p != c.chosen)
            .map(|&p| self.name_of(p))
            .collect();
        Step {
            bundle: self.name_of(c.chosen),
            catalog: entry.map_or(String::new(), |e| e.catalog.to_string()),
            channel: entry.map_or(String::new(), |e| e.channel.to_string()),
            parent,
            reason,
            passed_over,
        }
    }

    /// Who needed a choice: its parent bundle (none for a subscription or an installed
    /// bundle), the reason, and the candidates in OLM's preference order.
    fn owner(&self, owner: DepOwner) -> (Option<String>, String, &[EntryId]) {
        match owner {
            DepOwner::Anchor(a) if a < self.subscriptions.len() => (
                None,
                match self.subs.get(a) {
                    Some(x) if a > 0 => format!("the subscription to {}", x.package),
                    _ => "the subscription".to_string(),
                },
                self.subscriptions
                    .get(a)
                    .map_or(&[], |x| x.candidates.as_slice()),
            ),
            DepOwner::Anchor(_) => (None, "already installed".to_string(), &[]),
            DepOwner::Dependency { entry, index } => {
                let dep = self
                    .problem
                    .entry(entry)
                    .and_then(|e| e.dependencies.get(index));
                (
                    Some(self.name_of(entry)),
                    dep.map_or(String::new(), |d| d.label.to_string()),
                    dep.map_or(&[], |d| &d.candidates[..]),
                )
            }
        }
    }
}

impl Sub<'_> {
    /// The Subscription object's name, as OLM's messages show it.
    fn name(&self) -> String {
        match self.channel {
            Some(c) => format!("{}-{c}", self.package),
            None => self.package.to_string(),
        }
    }
}

/// §3.4: a subscription's candidates in OLM's order, or OLM's reason there are none.
///
/// The package's entries in the subscription's catalog, default channel first, then by channel
/// name, each channel in replaces-chain order. Without an installed CSV, only `startingCSV` if
/// given; with one, only its upgrades (entries whose replaces or skips name it, or whose
/// skipRange contains its version), then the installed CSV itself, which stays when nothing
/// upgrades it. `PACKAGE@BUNDLE` with an installed CSV asks whether that exact upgrade works.
fn subscription_candidates(
    r: &resolution::Resolution,
    home: Option<&olmlint_model::Catalog<'_>>,
    sub: &Sub<'_>,
) -> Result<Vec<EntryId>, String> {
    let problem = &r.problem;
    let p = sub.package;
    let name = sub.name();
    let unsatisfiable = |what: String| {
        format!("constraints not satisfiable: {what} in the catalog referenced by subscription {name}, subscription {name} exists")
    };
    // Upgrade edges of the subscription's catalog: (channel, entry name) → edges.
    let mut edges: HashMap<(&str, &str), &olmlint_model::ChannelEntry<'_>> = HashMap::new();
    for ch in home.map_or(&[][..], |c| c.channels.as_slice()) {
        if ch.package.map(|x| x.value) != Some(p) {
            continue;
        }
        let cname = ch.name.map_or("", |x| x.value);
        for e in &ch.entries {
            edges.insert((cname, e.name()), e);
        }
    }
    let current_version = sub.current.and_then(|(_, id)| {
        let bi = *r.entry_bundle.get(id as usize)?;
        r.facts.get(bi)?.version.clone()
    });
    let upgrades = |channel: &str, bundle: &str| {
        let Some((installed, _)) = sub.current else {
            return true;
        };
        edges
            .get(&(channel, bundle))
            .is_some_and(|e| e.offers_upgrade_from(installed, current_version.as_ref()))
    };
    let package_known = problem
        .entries
        .iter()
        .zip(&r.placement)
        .any(|(e, &(src, _, _))| src == 0 && e.package == p);
    let mut offered: Vec<(bool, String, usize, EntryId)> = Vec::new();
    for id in 0..problem.len() as EntryId {
        let (Some(e), Some(&(src, default, pos))) =
            (problem.entry(id), r.placement.get(id as usize))
        else {
            continue;
        };
        if src != 0 || e.package != p || sub.channel.is_some_and(|c| c != e.channel) {
            continue;
        }
        // Step 1: startingCSV only counts while nothing is installed.
        if sub.current.is_none() && sub.starting.is_some_and(|b| b != e.bundle) {
            continue;
        }
        if !upgrades(&e.channel, &e.bundle) {
            continue;
        }
        match pos {
            Some(pos) => offered.push((!default, e.channel.to_string(), pos, id)),
            // A starting CSV off the chain is still what the subscription names.
            None if sub.starting.is_some() && sub.current.is_none() => {
                offered.push((!default, e.channel.to_string(), usize::MAX, id))
            }
            None => {}
        }
    }
    offered.sort();
    let mut candidates: Vec<EntryId> = offered.iter().map(|c| c.3).collect();
    if let Some((installed, id)) = sub.current {
        if let Some(target) = sub.starting {
            let names: Vec<&str> = candidates
                .iter()
                .filter_map(|&c| problem.entry(c).map(|e| e.bundle.as_str()))
                .collect();
            if !names.contains(&target) {
                let offers = if names.is_empty() {
                    "no entry upgrades it".to_string()
                } else {
                    format!("OLM would offer {}", names.join(", "))
                };
                return Err(format!(
                    "{target} is not an upgrade from the installed {installed}: once a CSV is installed, OLM ignores startingCSV and offers only entries whose replaces or skips name {installed} or whose skipRange contains its version ({offers})"
                ));
            }
            candidates.retain(|&c| problem.entry(c).is_some_and(|e| e.bundle == target));
        } else {
            candidates.push(id);
        }
    }
    if candidates.is_empty() {
        // OLM turns this into a Prohibited subscription and reports it as unsatisfiable.
        return Err(unsatisfiable(match (sub.starting, sub.channel) {
            _ if !package_known => format!("no operators found in package {p}"),
            (Some(b), Some(c)) => {
                format!("no operators found with name {b} in channel {c} of package {p}")
            }
            (Some(b), None) => format!("no operators found with name {b} in package {p}"),
            (None, Some(c)) => format!("no operators found in channel {c} of package {p}"),
            (None, None) => format!("no operators found in package {p}"),
        }));
    }
    Ok(candidates)
}

/// The answer for humans: the install tree, or the explanation.
pub fn render(a: &Answer) -> String {
    let mut out = String::new();
    if !a.installable {
        if a.reasons.is_empty() {
            out.push_str(&wrap(
                &format!(
                    "{} cannot be installed: {}",
                    a.package,
                    a.explanation.as_deref().unwrap_or("")
                ),
                "",
                "  ",
            ));
            return out;
        }
        out.push_str(&format!("{} cannot be installed:\n", a.package));
        for (reason, n) in grouped(&a.reasons) {
            out.push_str(&wrap(&counted(reason, n), "  - ", "    "));
        }
        if !a.olm_reasons.is_empty() {
            out.push_str("On the cluster, OLM reports: constraints not satisfiable:\n");
            for (reason, n) in grouped(&a.olm_reasons) {
                out.push_str(&wrap(&counted(reason, n), "  - ", "    "));
            }
        }
        return out;
    }
    out.push_str(&format!(
        "{} resolves to {} ({} bundle{} installed)\n",
        a.package,
        a.bundle.as_deref().unwrap_or("?"),
        a.installed.len(),
        if a.installed.len() == 1 { "" } else { "s" }
    ));
    for s in &a.tree {
        let via = match &s.parent {
            Some(p) => format!("{p} {}", s.reason),
            None => s.reason.clone(),
        };
        out.push_str(&format!(
            "  {} [{} / {}] ← {via}\n",
            s.bundle, s.catalog, s.channel
        ));
        if !s.passed_over.is_empty() {
            out.push_str(&format!(
                "      passed over: {}\n",
                s.passed_over.join(", ")
            ));
        }
    }
    out
}

/// Identical lines once, in first-seen order, with how often they occurred.
fn grouped(lines: &[String]) -> Vec<(&str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in lines {
        match at.get(l.as_str()) {
            Some(&i) => {
                if let Some(slot) = out.get_mut(i) {
                    slot.1 += 1;
                }
            }
            None => {
                at.insert(l, out.len());
                out.push((l, 1));
            }
        }
    }
    out
}

fn counted(line: &str, n: usize) -> String {
    if n > 1 {
        format!("{line} (×{n})")
    } else {
        line.to_string()
    }
}

/// Width [`render`] wraps at.
const WIDTH: usize = 100;

/// `text` wrapped at spaces to [`WIDTH`] columns: the first line after `first`, the others
/// after `rest`; a word longer than a line stays whole.
pub(crate) fn wrap(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let width = line.chars().count();
        if !empty && width + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrap_and_group() {
        let long = "word ".repeat(60);
        let w = super::wrap(long.trim(), "  - ", "    ");
        assert!(w.lines().all(|l| l.chars().count() <= super::WIDTH), "{w}");
        assert!(w.starts_with("  - word"));
        assert!(w.lines().skip(1).all(|l| l.starts_with("    word")));
        let lines = vec!["a".to_string(), "b".to_string(), "a".to_string()];
        assert_eq!(super::grouped(&lines), [("a", 2), ("b", 1)]);
        assert_eq!(super::counted("a", 2), "a (×2)");
    }
}
