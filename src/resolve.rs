//! `olmlint resolve`: what OLM would install for a subscription, and why — or why not.
//! Load → model → resolution (the same as `lint`) → the SAT engine's preference search.

use crate::load::{self, Limits};
use crate::model::index::Index;
use crate::model::resolution::{self, Provided, Source};
use crate::semantics::sat::{self, Budget, DepOwner, EntryId, Subscription, Verdict};
use serde::Serialize;
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
    /// Bundles already on the cluster (installed CSVs without a subscription).
    pub installed: Vec<String>,
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
    pub tree: Vec<Step>,
}

pub fn run(req: &Request) -> Result<Answer, String> {
    if req.catalogs.is_empty() {
        return Err("no catalog given (--catalog PATH)".into());
    }
    for (p, _) in &req.catalogs {
        if !p.exists() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    let paths: Vec<PathBuf> = req.catalogs.iter().map(|(p, _)| p.clone()).collect();
    let loaded = load::load(&paths, &Limits::default());
    let files = loaded.files;
    let catalogs: Vec<crate::model::Catalog<'_>> = (0..paths.len())
        .map(|scope| crate::model::build(&files, scope, &mut Vec::new()))
        .collect();
    let indexes: Vec<Index<'_>> = catalogs.iter().map(Index::new).collect();
    // An unknown package still resolves, to OLM's "no operators found" failure (§3.4).
    let known = indexes
        .iter()
        .position(|ix| ix.packages.contains_key(req.package.as_str()));
    let home = known.unwrap_or(0);
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
                priority: req.catalogs.get(i)?.1,
            })
        })
        .collect();
    let r = resolution::build(&sources, 1_000_000, &Provided::default());
    let problem = &r.problem;
    // §3.4: the package's entries in the subscription's catalog, default channel first, then
    // by channel name, each channel in replaces-chain order; only `startingCSV` if given.
    let mut candidates: Vec<(bool, String, usize, EntryId)> = Vec::new();
    for id in 0..problem.len() as EntryId {
        let (Some(e), Some(&(src, default, pos))) =
            (problem.entry(id), r.placement.get(id as usize))
        else {
            continue;
        };
        let wanted = src == 0
            && e.package == req.package
            && req.channel.as_ref().is_none_or(|c| *c == e.channel)
            && req.bundle.as_ref().is_none_or(|b| *b == e.bundle);
        match pos {
            Some(p) if wanted => candidates.push((!default, e.channel.clone(), p, id)),
            // A starting CSV off the chain is still what the subscription names.
            None if wanted && req.bundle.is_some() => {
                candidates.push((!default, e.channel.clone(), usize::MAX, id))
            }
            _ => {}
        }
    }
    candidates.sort();
    if candidates.is_empty() {
        // OLM turns this into a Prohibited subscription and reports it as unsatisfiable.
        let sub = match &req.channel {
            Some(c) => format!("{}-{c}", req.package),
            None => req.package.clone(),
        };
        let p = &req.package;
        let what = match (&req.bundle, &req.channel) {
            _ if known.is_none() => format!("no operators found in package {p}"),
            (Some(b), Some(c)) => {
                format!("no operators found with name {b} in channel {c} of package {p}")
            }
            (Some(b), None) => format!("no operators found with name {b} in package {p}"),
            (None, Some(c)) => format!("no operators found in channel {c} of package {p}"),
            (None, None) => format!("no operators found in package {p}"),
        };
        return Ok(Answer {
            package: req.package.clone(),
            bundle: req.bundle.clone(),
            installable: false,
            installed: Vec::new(),
            explanation: Some(format!(
                "constraints not satisfiable: {what} in the catalog referenced by subscription {sub}, subscription {sub} exists"
            )),
            tree: Vec::new(),
        });
    }
    let mut installed_ids = Vec::new();
    for name in &req.installed {
        let id = (0..problem.len() as EntryId)
            .find(|&i| problem.entry(i).is_some_and(|e| e.bundle == *name))
            .ok_or_else(|| format!("--installed {name}: no such bundle in the catalogs"))?;
        installed_ids.push(id);
    }
    let sub = Subscription {
        name: format!("subscription:{}", req.package),
        candidates: candidates.iter().map(|c| c.3).collect(),
    };
    let res = sat::resolve_subscriptions(
        problem,
        std::slice::from_ref(&sub),
        &installed_ids,
        Budget::default(),
    );
    let name_of = |id: EntryId| {
        problem
            .entry(id)
            .map_or(String::new(), |e| e.bundle.clone())
    };
    match &res.verdict {
        Verdict::Installable { chosen } => {
            let mut installed: Vec<String> = chosen.iter().map(|&c| name_of(c)).collect();
            installed.sort();
            installed.dedup();
            let bundle = chosen
                .iter()
                .find(|c| sub.candidates.contains(c))
                .map(|&c| name_of(c));
            let tree = res
                .choices
                .iter()
                .map(|c| {
                    let entry = problem.entry(c.chosen);
                    let (parent, reason, preferred) = match c.owner {
                        DepOwner::Anchor(0) => {
                            (None, "the subscription".to_string(), sub.candidates.clone())
                        }
                        DepOwner::Anchor(_) => (None, "already installed".to_string(), vec![]),
                        DepOwner::Dependency { entry, index } => {
                            let dep = problem.entry(entry).and_then(|e| e.dependencies.get(index));
                            (
                                Some(name_of(entry)),
                                dep.map_or(String::new(), |d| d.label.clone()),
                                dep.map_or(vec![], |d| d.candidates.clone()),
                            )
                        }
                    };
                    let passed_over = preferred
                        .iter()
                        .take_while(|&&p| p != c.chosen)
                        .map(|&p| name_of(p))
                        .collect();
                    Step {
                        bundle: name_of(c.chosen),
                        catalog: entry.map_or(String::new(), |e| e.catalog.clone()),
                        channel: entry.map_or(String::new(), |e| e.channel.clone()),
                        parent,
                        reason,
                        passed_over,
                    }
                })
                .collect();
            Ok(Answer {
                package: req.package.clone(),
                bundle,
                installable: true,
                installed,
                explanation: None,
                tree,
            })
        }
        other => Ok(Answer {
            package: req.package.clone(),
            bundle: None,
            installable: false,
            installed: vec![],
            explanation: Some(match other {
                Verdict::BudgetExceeded => {
                    "the solver budget ran out before a decision".to_string()
                }
                v => sat::explain(problem, v),
            }),
            tree: vec![],
        }),
    }
}

/// The answer for humans: the install tree, or the explanation.
pub fn render(a: &Answer) -> String {
    let mut out = String::new();
    if !a.installable {
        out.push_str(&format!(
            "{} cannot be installed: {}\n",
            a.package,
            a.explanation.as_deref().unwrap_or("")
        ));
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
