#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Worked examples of olm-semantics §3.10 / §9.5, upstream-case messages,
//! core minimality, budget, encoding size and a scaling benchmark.
//!
//! Candidate lists are written as OLM computes them (§3.3): the depender's own
//! catalog first, then higher priority, then catalog name; inside a catalog the
//! default channels first, then package name, then channel name; inside a
//! channel the replaces chain from the head; skipped entries dropped.

use std::collections::HashMap;
use std::sync::Arc;

use super::check::core_items;
use super::encode::{at_most_one, Local, Root, RootKind};
use super::solver::{Outcome, Sat};
use super::*;

const G1: &str = "g1/v1/k1";
const G2: &str = "g2/v1/k2";
const G3: &str = "g3/v1/k3";

#[derive(Default)]
struct Cat {
    entries: Vec<Entry>,
}

impl Cat {
    fn add(
        &mut self,
        bundle: &str,
        package: &str,
        channel: &str,
        catalog: &str,
        gvks: &[&str],
    ) -> EntryId {
        self.entries.push(Entry {
            bundle: bundle.into(),
            package: package.into(),
            channel: channel.into(),
            catalog: catalog.into(),
            provides_gvks: gvks.iter().map(|&g| g.into()).collect(),
            package_props: vec![package.into()].into(),
            ..Entry::default()
        });
        (self.entries.len() - 1) as EntryId
    }

    fn c(&mut self, bundle: &str, package: &str, gvks: &[&str]) -> EntryId {
        self.add(bundle, package, "stable", "c", gvks)
    }

    fn req(&mut self, owner: EntryId, candidates: &[EntryId], label: &str) -> usize {
        let deps = &mut self.entries[owner as usize].dependencies;
        deps.push(Dependency {
            candidates: candidates.into(),
            label: label.into(),
            origin: deps.len() as u32,
            cel_message: None,
        });
        deps.len() - 1
    }

    fn cel(&mut self, owner: EntryId, candidates: &[EntryId], label: &str, msg: &str) -> usize {
        let i = self.req(owner, candidates, label);
        self.entries[owner as usize].dependencies[i].cel_message = Some(msg.into());
        i
    }

    fn build(self) -> Problem {
        Problem::new(self.entries)
    }
}

/// Base of §3.10: foo.v1.0.0 (g1) <- foo.v2.0.0 (g1, g2); bar.v1.0.0 with `bar_gvks`.
/// Returns (catalog, bar, foo1, foo2).
fn base(bar_gvks: &[&str]) -> (Cat, EntryId, EntryId, EntryId) {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", bar_gvks);
    let foo1 = c.c("foo.v1.0.0", "foo", &[G1]);
    let foo2 = c.c("foo.v2.0.0", "foo", &[G1, G2]);
    (c, bar, foo1, foo2)
}

fn names(p: &Problem, ids: &[EntryId]) -> Vec<String> {
    let mut v: Vec<String> = ids
        .iter()
        .map(|&i| {
            let e = &p.entries[i as usize];
            format!("{}@{}/{}", e.bundle, e.catalog, e.channel)
        })
        .collect();
    v.sort();
    v
}

fn installed(p: &Problem, anchors: &[EntryId]) -> Vec<String> {
    let r = resolve(p, anchors, &[], Budget::UNLIMITED);
    match &r.verdict {
        Verdict::Installable { chosen } => names(p, chosen),
        other => panic!("expected installable, got {other:?}: {}", explain(p, other)),
    }
}

/// Asserts both the per-bundle check and resolve agree on "installable", and
/// returns OLM's pick.
fn ok(p: &Problem, start: EntryId) -> Vec<String> {
    let v = check_installable(p, &[start], Budget::UNLIMITED);
    assert!(v.is_installable(), "{v:?}: {}", explain(p, &v));
    installed(p, &[start])
}

fn unsat(p: &Problem, start: EntryId) -> Vec<CoreItem> {
    let v = check_installable(p, &[start], Budget::UNLIMITED);
    let r = resolve(p, &[start], &[], Budget::UNLIMITED);
    assert!(
        !r.verdict.is_installable(),
        "resolve disagrees: {:?}",
        r.verdict
    );
    match v {
        Verdict::Unsatisfiable { core } => {
            assert!(is_mus(p, &[start], &core), "core not minimal: {core:?}");
            core
        }
        other => panic!("expected unsat, got {other:?}"),
    }
}

fn set(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Brute-force check that `core` is a minimal unsatisfiable subset of the
/// constraints of the closure of `starts` (as mandatory roots).
fn is_mus(p: &Problem, starts: &[EntryId], core: &[CoreItem]) -> bool {
    let roots: Vec<Root> = starts
        .iter()
        .map(|&s| Root {
            kind: RootKind::Mandatory(s),
            candidates: vec![s],
        })
        .collect();
    let mut local = Local::default();
    let mut sat = Sat::new();
    local.explore(p, &roots, None).unwrap();
    local.encode(p, &mut sat, &roots, true);
    // Map every core item back to its selector.
    let mut sels = Vec::new();
    for item in core {
        let idx = (0..local.cons.len())
            .find(|&c| core_items(p, &local, &roots, &[], &[c]).first() == Some(item))
            .unwrap_or_else(|| panic!("core item {item:?} not in the encoding"));
        sels.push(local.selectors[idx]);
    }
    if sat.solve(&sels, u64::MAX) != Outcome::Unsat {
        return false;
    }
    (0..sels.len()).all(|skip| {
        let sub: Vec<_> = sels
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, &s)| s)
            .collect();
        sat.solve(&sub, u64::MAX) == Outcome::Sat
    })
}

fn style(sub: &'static str) -> OlmStyle<'static> {
    OlmStyle {
        subscription: sub,
        ..OlmStyle::default()
    }
}

// ---------------------------------------------------------------- §3.10 / §9.5

#[test]
fn e1_package_range() {
    let (mut c, bar, _foo1, foo2) = base(&[]);
    c.req(
        bar,
        &[foo2],
        "with package: foo and with version in range: >=2.0.0",
    );
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0@c/stable"])
    );
}

#[test]
fn e2_no_candidate_message() {
    let (mut c, bar, _, _) = base(&[]);
    c.req(
        bar,
        &[],
        "with package: foo and with version in range: >=3.0.0",
    );
    let p = c.build();
    let core = unsat(&p, bar);
    assert_eq!(
        core,
        vec![
            CoreItem::Mandatory(bar),
            CoreItem::Dependency {
                entry: bar,
                index: 0
            }
        ]
    );
    let v = Verdict::Unsatisfiable { core };
    assert_eq!(
        olm_message_with(&p, &v, &style("bar-stable")),
        "constraints not satisfiable: bundle bar.v1.0.0 requires an operator with package: foo and with version in range: >=3.0.0, subscription bar-stable exists, subscription bar-stable requires c/ns/stable/bar.v1.0.0"
    );
}

#[test]
fn e3_two_versions_of_one_package() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[foo2], "requires package foo >=2.0.0");
    c.req(bar, &[foo1], "requires package foo <2.0.0");
    let p = c.build();
    let core = unsat(&p, bar);
    assert_eq!(core.len(), 4, "{core:?}");
    // Minimisation drops the GVK invariant first and keeps the package one.
    assert!(core.contains(&CoreItem::AtMostOnePackage {
        package: "foo".into(),
        entries: vec![foo1, foo2]
    }));
    let text = explain(&p, &Verdict::Unsatisfiable { core });
    assert_eq!(
        text,
        "bar.v1.0.0 cannot be installed: bar.v1.0.0 requires package foo >=2.0.0; its only candidate is foo.v2.0.0; bar.v1.0.0 requires package foo <2.0.0; its only candidate is foo.v1.0.0; at most one bundle of package foo can be installed (foo.v1.0.0 and foo.v2.0.0)"
    );
}

#[test]
fn e4_all_with_not() {
    let (mut c, bar, foo1, _) = base(&[]);
    c.req(bar, &[foo1], "all{pkg foo >=1, not{pkg foo >=2}}");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
}

#[test]
fn e5_top_level_not_self_satisfied() {
    let (mut c, bar, foo1, _) = base(&[]);
    // Matches bar itself and foo.v1; package bar sorts before foo.
    c.req(bar, &[bar, foo1], "not{gvk g2}");
    let p = c.build();
    assert_eq!(ok(&p, bar), set(&["bar.v1.0.0@c/stable"]));
}

#[test]
fn e5b_not_pulls_unrelated_bundle() {
    let (mut c, bar, foo1, _) = base(&[G2]);
    c.req(bar, &[foo1], "not{gvk g2}");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
}

#[test]
fn e6_self_satisfied_gvk() {
    let (mut c, bar, foo1, foo2) = base(&[G1]);
    c.req(bar, &[bar, foo2, foo1], "gvk g1");
    let p = c.build();
    assert_eq!(ok(&p, bar), set(&["bar.v1.0.0@c/stable"]));
}

#[test]
fn e8_deprecated_only_provider() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo1 = c.c("foo.v1.0.0", "foo", &[G1]);
    c.entries[foo1 as usize].deprecated = true;
    c.req(
        bar,
        &[foo1],
        "providing an API with group: g1, version: v1, kind: k1",
    );
    let p = c.build();
    let core = unsat(&p, bar);
    assert!(core.contains(&CoreItem::Prohibited(foo1)));
    let v = Verdict::Unsatisfiable { core };
    assert!(olm_message(&p, &v).contains("bundle c/ns/stable/foo.v1.0.0 is deprecated"));
    assert!(explain(&p, &v).contains("foo.v1.0.0 is deprecated (olm.deprecated)"));
}

/// A prohibition with a reason (OLM720's failing bundles) blocks like a deprecation and is
/// explained with its reason.
#[test]
fn prohibited_with_reason() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo1 = c.c("foo.v1.0.0", "foo", &[G1]);
    c.entries[foo1 as usize].prohibited = Some("fails cluster constraint 1".into());
    c.req(
        bar,
        &[foo1],
        "providing an API with group: g1, version: v1, kind: k1",
    );
    let p = c.build();
    let core = unsat(&p, bar);
    assert!(core.contains(&CoreItem::Prohibited(foo1)));
    let v = Verdict::Unsatisfiable { core };
    let text = explain(&p, &v);
    assert!(
        text.contains("foo.v1.0.0 fails cluster constraint 1"),
        "{text}"
    );
    assert!(!text.contains("deprecated"), "{text}");
    assert!(
        olm_message(&p, &v).contains("bundle c/ns/stable/foo.v1.0.0 fails cluster constraint 1")
    );
}

#[test]
fn e9_own_catalog_first() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo = c.add("foo.v1.0.0", "foo", "stable", "c", &[G1]);
    let alt = c.add("fooalt.v1.0.0", "fooalt", "stable", "d", &[G1]);
    c.req(bar, &[foo, alt], "gvk g1");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
}

#[test]
fn e9b_higher_priority_catalog() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo = c.add("foo.v1.0.0", "foo", "stable", "d", &[G1]); // priority 50
    let alt = c.add("fooalt.v1.0.0", "fooalt", "stable", "e", &[G1]); // priority 100
    c.req(bar, &[alt, foo], "gvk g1");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "fooalt.v1.0.0@e/stable"])
    );
}

#[test]
fn e9c_catalog_name_order() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo = c.add("foo.v1.0.0", "foo", "stable", "d", &[G1]);
    let alt = c.add("fooalt.v1.0.0", "fooalt", "stable", "e", &[G1]);
    c.req(bar, &[foo, alt], "gvk g1");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@d/stable"])
    );
}

#[test]
fn e10_default_channel_first() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let f10 = c.add("foo.v1.0.0", "foo", "alpha", "c", &[G1]);
    let f09 = c.add("foo.v0.9.0", "foo", "stable", "c", &[G1]);
    c.req(bar, &[f09, f10], "package foo");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v0.9.0@c/stable"])
    );
}

#[test]
fn e10b_channel_name_order() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let beta = c.add("foo.v1.0.0", "foo", "beta", "c", &[G1]);
    let alpha = c.add("foo.v0.9.0", "foo", "alpha", "c", &[G1]);
    c.req(bar, &[alpha, beta], "package foo");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v0.9.0@c/alpha"])
    );
}

#[test]
fn e11_highest_matching_on_chain() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let v1 = c.c("foo.v1.0.0", "foo", &[G1]);
    let v2 = c.c("foo.v2.0.0", "foo", &[G1]);
    let _v3 = c.c("foo.v3.0.0", "foo", &[G1]);
    // Chain v3 -> v2 -> v1, filtered by <3.0.0.
    c.req(bar, &[v2, v1], "package foo <3.0.0");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0@c/stable"])
    );
}

#[test]
fn e12_two_packages_one_gvk() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    let baz = c.c("baz.v1.0.0", "baz", &[G1]);
    c.req(bar, &[foo2, foo1], "package foo");
    c.req(bar, &[baz], "package baz");
    let p = c.build();
    let core = unsat(&p, bar);
    assert!(core.contains(&CoreItem::AtMostOneGvk {
        gvk: G1.into(),
        entries: vec![foo1, foo2, baz]
    }));
}

#[test]
fn e13_any() {
    let (mut c, bar, _, _) = base(&[]);
    let baz = c.c("baz.v1.0.0", "baz", &[]);
    c.req(bar, &[baz], "any{pkg foo >=5, pkg baz >=0}");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "baz.v1.0.0@c/stable"])
    );
}

#[test]
fn e14_hard_errors() {
    // E14: bar's own constraint is broken.
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.entries[bar as usize].hard_error =
        Some("parse olm.constraint: json: unknown field \"message\"".into());
    c.req(bar, &[foo2, foo1], "gvk g1");
    let p = c.build();
    let v = check_installable(&p, &[bar], Budget::UNLIMITED);
    assert_eq!(
        v,
        Verdict::HardError {
            entry: bar,
            message: "parse olm.constraint: json: unknown field \"message\"".into()
        }
    );
    assert_eq!(
        olm_message(&p, &v),
        "parse olm.constraint: json: unknown field \"message\""
    );

    // E14b: an unreachable broken bundle is ignored. E14c: a reached one aborts.
    let (mut c, bar, foo1, foo2) = base(&[]);
    let zzz = c.c("zzz.v1.0.0", "zzz", &[]);
    c.entries[zzz as usize].hard_error = Some("constraint is empty".into());
    c.req(bar, &[foo2, foo1], "gvk g1");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0@c/stable"])
    );
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let foo = c.c("foo.v1.0.0", "foo", &[G1]);
    c.entries[foo as usize].hard_error =
        Some("convert olm.constraint to resolver predicate: constraint is empty".into());
    c.req(bar, &[foo], "gvk g1");
    let p = c.build();
    assert!(
        matches!(check_installable(&p, &[bar], Budget::UNLIMITED), Verdict::HardError { entry, .. } if entry == foo)
    );
    assert!(
        matches!(resolve(&p, &[bar], &[], Budget::UNLIMITED).verdict, Verdict::HardError { entry, .. } if entry == foo)
    );
}

#[test]
fn upstream_20_poisoned_candidate() {
    let mut c = Cat::default();
    let d1 = c.add("dep.v1.0.0", "dep", "stable", "catalog", &[]);
    let d2 = c.add("dep.v2.0.0", "dep", "stable", "catalog", &[]);
    c.entries[d2 as usize].hard_error = Some(
        "convert olm.constraint to resolver predicate: ERROR: <input>:1:22: Syntax error".into(),
    );
    let app = c.add("app.v1.0.0", "app", "stable", "catalog", &[]);
    let old = c.add("appold.v1.0.0", "appold", "stable", "catalog", &[]);
    c.req(
        app,
        &[d2, d1],
        "with package: dep and with version in range: >=1.0.0",
    );
    c.req(
        old,
        &[d1],
        "with package: dep and with version in range: <2.0.0",
    );
    let p = c.build();
    assert!(
        matches!(check_installable(&p, &[app], Budget::UNLIMITED), Verdict::HardError { entry, .. } if entry == d2)
    );
    assert_eq!(
        ok(&p, old),
        set(&["appold.v1.0.0@catalog/stable", "dep.v1.0.0@catalog/stable"])
    );
    assert!(ok(&p, d1).len() == 1);
    assert!(matches!(
        check_installable(&p, &[d2], Budget::UNLIMITED),
        Verdict::HardError { .. }
    ));
}

#[test]
fn e15_transitive_gvks() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    let baz = c.c("baz.v1.0.0", "baz", &[G3]);
    c.req(bar, &[foo2, foo1], "gvk g1");
    c.req(foo1, &[baz], "gvk g3");
    c.req(foo2, &[baz], "gvk g3");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&[
            "bar.v1.0.0@c/stable",
            "foo.v2.0.0@c/stable",
            "baz.v1.0.0@c/stable"
        ])
    );
    let r = resolve(&p, &[bar], &[], Budget::UNLIMITED);
    assert_eq!(
        r.choices,
        vec![
            ChosenDependency {
                owner: DepOwner::Anchor(0),
                chosen: bar,
                guessed: true
            },
            ChosenDependency {
                owner: DepOwner::Dependency {
                    entry: bar,
                    index: 0
                },
                chosen: foo2,
                guessed: true
            },
            ChosenDependency {
                owner: DepOwner::Dependency {
                    entry: foo2,
                    index: 0
                },
                chosen: baz,
                guessed: true
            },
        ]
    );
}

#[test]
fn e15b_core_lists_dependency_clauses() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[foo2, foo1], "gvk g1");
    c.req(foo1, &[], "gvk g3");
    c.req(foo2, &[], "gvk g3");
    let p = c.build();
    let core = unsat(&p, bar);
    assert_eq!(
        core,
        vec![
            CoreItem::Mandatory(bar),
            CoreItem::Dependency {
                entry: bar,
                index: 0
            },
            CoreItem::Dependency {
                entry: foo2,
                index: 0
            },
            CoreItem::Dependency {
                entry: foo1,
                index: 0
            },
        ]
    );
    assert_eq!(
        explain(&p, &Verdict::Unsatisfiable { core }),
        "bar.v1.0.0 cannot be installed: bar.v1.0.0 requires gvk g1; its candidates are foo.v2.0.0 and foo.v1.0.0; foo.v2.0.0 requires gvk g3, but no bundle in the catalogs satisfies it; foo.v1.0.0 requires gvk g3, but no bundle in the catalogs satisfies it"
    );
}

#[test]
fn e16_e17_empty_compounds() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[bar, foo2, foo1], ""); // all{} matches everything
    let p = c.build();
    assert_eq!(ok(&p, bar), set(&["bar.v1.0.0@c/stable"]));

    let (mut c, bar, _, _) = base(&[]);
    c.req(bar, &[], ""); // any{} matches nothing
    let p = c.build();
    let v = Verdict::Unsatisfiable {
        core: unsat(&p, bar),
    };
    assert_eq!(
        olm_message(&p, &v),
        "constraints not satisfiable: bundle bar.v1.0.0 requires an operator , subscription sub exists, subscription sub requires c/ns/stable/bar.v1.0.0"
    );
}

#[test]
fn e18_p01_self_package_upgrade() {
    let mut c = Cat::default();
    let bar1 = c.c("bar.v1.0.0", "bar", &[]);
    let bar2 = c.c("bar.v2.0.0", "bar", &[]);
    c.req(
        bar1,
        &[bar2],
        "with package: bar and with version in range: >=2.0.0",
    );
    let p = c.build();
    // E18: a subscription without startingCSV tries the head bar.v2 first.
    let subs = [Subscription {
        name: "bar-stable".into(),
        candidates: vec![bar2, bar1],
    }];
    let r = resolve_subscriptions(&p, &subs, &[], Budget::UNLIMITED);
    assert_eq!(r.verdict, Verdict::Installable { chosen: vec![bar2] });
    // P01: startingCSV bar.v1.0.0 is unsatisfiable.
    let core = unsat(&p, bar1);
    assert_eq!(
        core,
        vec![
            CoreItem::Mandatory(bar1),
            CoreItem::Dependency {
                entry: bar1,
                index: 0
            },
            CoreItem::AtMostOnePackage {
                package: "bar".into(),
                entries: vec![bar1, bar2]
            },
        ]
    );
    let msg = olm_message(&p, &Verdict::Unsatisfiable { core });
    assert!(
        msg.contains(
            "c/ns/stable/bar.v1.0.0 and c/ns/stable/bar.v2.0.0 originate from package bar"
        ),
        "{msg}"
    );
    // Subscription forced onto bar.v1 only: the subscription item is named.
    let subs = [Subscription {
        name: "bar-v1".into(),
        candidates: vec![bar1],
    }];
    let r = resolve_subscriptions(&p, &subs, &[], Budget::UNLIMITED);
    let Verdict::Unsatisfiable { core } = &r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert_eq!(
        core[0],
        CoreItem::Subscription {
            name: "bar-v1".into(),
            candidates: vec![bar1]
        }
    );
    assert!(
        olm_message(&p, &r.verdict).contains("subscription bar-v1 requires c/ns/stable/bar.v1.0.0")
    );
}

#[test]
fn e19_unsatisfiable_head_falls_back() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[foo2, foo1], "package foo >=1.0.0");
    c.req(foo2, &[], "gvk nope/v1/Nope");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
    let r = resolve(&p, &[bar], &[], Budget::UNLIMITED);
    assert!(r.choices.contains(&ChosenDependency {
        owner: DepOwner::Dependency {
            entry: bar,
            index: 0
        },
        chosen: foo1,
        guessed: true
    }));
}

#[test]
fn e19_deep_failure_backtracks() {
    // The head's failure is only visible two levels down (not by propagation).
    let (mut c, bar, foo1, foo2) = base(&[]);
    let q1 = c.c("qux.v1.0.0", "qux", &[]);
    let q2 = c.c("qux.v2.0.0", "qux", &[]);
    c.req(bar, &[foo2, foo1], "package foo");
    c.req(bar, &[q1], "package qux <2.0.0");
    c.req(foo2, &[q2], "package qux >=2.0.0");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&[
            "bar.v1.0.0@c/stable",
            "foo.v1.0.0@c/stable",
            "qux.v1.0.0@c/stable"
        ])
    );
}

#[test]
fn e21_e24_e30_no_candidates() {
    for label in [
        "all{pkg foo >=0, not{pkg foo >=0}}",
        "package Foo",
        "package foo <2.0.0 (v1 skipped)",
    ] {
        let (mut c, bar, _, _) = base(&[]);
        c.req(bar, &[], label);
        let p = c.build();
        assert_eq!(unsat(&p, bar).len(), 2);
    }
}

#[test]
fn e22_legacy_properties() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[foo1], "olm.package.required foo <2.0.0");
    c.req(bar, &[foo2, foo1], "olm.gvk.required g1");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
    let r = resolve(&p, &[bar], &[], Budget::UNLIMITED);
    assert!(r.choices.contains(&ChosenDependency {
        owner: DepOwner::Dependency {
            entry: bar,
            index: 1
        },
        chosen: foo1,
        guessed: false
    }));
}

#[test]
fn e23_label() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    c.req(bar, &[foo2, foo1], "olm.label.required x");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0@c/stable"])
    );
}

#[test]
fn e25_two_subscriptions_one_gvk() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[G1]);
    let foo = c.c("foo.v1.0.0", "foo", &[G1]);
    let p = c.build();
    let subs = [
        Subscription {
            name: "bar-stable".into(),
            candidates: vec![bar],
        },
        Subscription {
            name: "foo-stable".into(),
            candidates: vec![foo],
        },
    ];
    let r = resolve_subscriptions(&p, &subs, &[], Budget::UNLIMITED);
    let msg = olm_message(&p, &r.verdict);
    assert_eq!(
        msg,
        "constraints not satisfiable: c/ns/stable/bar.v1.0.0 and c/ns/stable/foo.v1.0.0 provide k1 (g1/v1), subscription bar-stable exists, subscription bar-stable requires c/ns/stable/bar.v1.0.0, subscription foo-stable exists, subscription foo-stable requires c/ns/stable/foo.v1.0.0"
    );
}

#[test]
fn e27_prerelease_candidate() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let rc = c.c("foo.v2.0.0-rc.1", "foo", &[G1]);
    c.req(bar, &[rc], "package foo >=1.0.0 <2.0.0");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0-rc.1@c/stable"])
    );
}

#[test]
fn e28_replaces_order_not_semver() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let f2 = c.c("foo.v2.0.0", "foo", &[G1]);
    let f15 = c.c("foo.v1.5.0", "foo", &[G1]); // head: replaces foo.v2.0.0
    c.req(bar, &[f15, f2], "package foo");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.5.0@c/stable"])
    );
}

#[test]
fn e30b_replaced_entry_is_candidate() {
    let (mut c, bar, foo1, _) = base(&[]);
    c.req(bar, &[foo1], "package foo <2.0.0");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
}

#[test]
fn e31_other_channel() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let f1 = c.add("foo.v1.0.0", "foo", "alpha", "c", &[G1]);
    let _f2 = c.add("foo.v2.0.0", "foo", "stable", "c", &[G1, G2]);
    c.req(bar, &[f1], "package foo <2.0.0");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/alpha"])
    );
}

#[test]
fn e33_mutual_dependency() {
    let gb = "gb/v1/kb";
    let (mut c, bar, foo1, foo2) = base(&[gb]);
    c.req(bar, &[foo2, foo1], "gvk g1");
    c.req(foo1, &[bar], "gvk gb");
    c.req(foo2, &[bar], "gvk gb");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v2.0.0@c/stable"])
    );
    assert_eq!(
        ok(&p, foo1),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
}

#[test]
fn e34_dependency_provides_own_gvk() {
    let (mut c, bar, foo1, foo2) = base(&[G1]);
    c.req(bar, &[foo2, foo1], "package foo");
    let p = c.build();
    let core = unsat(&p, bar);
    assert_eq!(
        core,
        vec![
            CoreItem::Mandatory(bar),
            CoreItem::Dependency {
                entry: bar,
                index: 0
            },
            CoreItem::AtMostOneGvk {
                gvk: G1.into(),
                entries: vec![bar, foo1, foo2]
            },
        ]
    );
    let text = explain(&p, &Verdict::Unsatisfiable { core });
    assert!(text.ends_with("at most one installed bundle may provide the API g1/v1/k1 (bar.v1.0.0, foo.v1.0.0 and foo.v2.0.0)"), "{text}");
}

#[test]
fn p04_self_dependency() {
    let (mut c, bar, _, _) = base(&[]);
    c.req(bar, &[bar], "package bar >=1.0.0");
    let p = c.build();
    assert_eq!(ok(&p, bar), set(&["bar.v1.0.0@c/stable"]));
}

#[test]
fn p05_one_bundle_in_two_channels() {
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let stable = c.add("foo.v1.0.0", "foo", "stable", "c", &[G1]);
    let alpha = c.add("foo.v1.0.0", "foo", "alpha", "c", &[G1]);
    c.req(bar, &[stable, alpha], "package foo");
    let p = c.build();
    assert_eq!(
        ok(&p, bar),
        set(&["bar.v1.0.0@c/stable", "foo.v1.0.0@c/stable"])
    );
    // Requiring both channel entries at once hits the package invariant, and
    // the explanation disambiguates the two entries by channel.
    let mut c = Cat::default();
    let bar = c.c("bar.v1.0.0", "bar", &[]);
    let stable = c.add("foo.v1.0.0", "foo", "stable", "c", &[]);
    let alpha = c.add("foo.v1.0.0", "foo", "alpha", "c", &[]);
    c.req(bar, &[stable], "foo in stable");
    c.req(bar, &[alpha], "foo in alpha");
    let p = c.build();
    let text = explain(
        &p,
        &Verdict::Unsatisfiable {
            core: unsat(&p, bar),
        },
    );
    assert!(
        text.contains("(foo.v1.0.0 (stable) and foo.v1.0.0 (alpha))"),
        "{text}"
    );
}

#[test]
fn multiple_starts_any_channel() {
    let mut c = Cat::default();
    let a = c.add("x.v1.0.0", "x", "stable", "c", &[]);
    let b = c.add("x.v1.0.0", "x", "beta", "c", &[]);
    c.req(a, &[], "package nope");
    let p = c.build();
    assert!(check_installable(&p, &[a, b], Budget::UNLIMITED).is_installable());
    assert!(!check_installable(&p, &[a], Budget::UNLIMITED).is_installable());
}

#[test]
fn installed_csv_is_mandatory() {
    let (mut c, bar, foo1, foo2) = base(&[]);
    let old = c.add("baz.v0.1.0", "baz", "stable", "@existing", &[G1]);
    c.req(bar, &[foo2, foo1], "gvk g1");
    let p = c.build();
    let r = resolve(&p, &[bar], &[old], Budget::UNLIMITED);
    let Verdict::Unsatisfiable { core } = &r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert!(core.contains(&CoreItem::Installed(old)));
    assert!(olm_message(&p, &r.verdict).contains(
        "clusterserviceversion baz.v0.1.0 exists and is not referenced by a subscription"
    ));
}

// ------------------------------------------------------- upstream-cases messages

#[test]
fn upstream_13_diamond() {
    let mut c = Cat::default();
    let s1 = c.add("shared.v1.0.0", "shared", "stable", "catalog", &[]);
    let s2 = c.add("shared.v2.0.0", "shared", "stable", "catalog", &[]);
    let left = c.add("left.v1.0.0", "left", "stable", "catalog", &[]);
    let right = c.add("right.v1.0.0", "right", "stable", "catalog", &[]);
    let top = c.add("top.v1.0.0", "top", "stable", "catalog", &[]);
    c.req(
        left,
        &[s1],
        "with package: shared and with version in range: 1.0.0",
    );
    c.cel(
        right,
        &[s2],
        "with package: shared and with version in range: >=2.0.0 <3.0.0",
        "right needs shared 2.x",
    );
    c.req(
        top,
        &[left],
        "with package: left and with version in range: >=1.0.0",
    );
    c.req(
        top,
        &[right],
        "with package: right and with version in range: >=1.0.0",
    );
    let p = c.build();
    assert_eq!(
        ok(&p, left),
        set(&["left.v1.0.0@catalog/stable", "shared.v1.0.0@catalog/stable"])
    );
    assert_eq!(
        ok(&p, right),
        set(&[
            "right.v1.0.0@catalog/stable",
            "shared.v2.0.0@catalog/stable"
        ])
    );
    let v = Verdict::Unsatisfiable {
        core: unsat(&p, top),
    };
    assert_eq!(
        olm_message(&p, &v),
        "constraints not satisfiable: bundle left.v1.0.0 requires an operator with package: shared and with version in range: 1.0.0, bundle right.v1.0.0 requires an operator with package: shared and with version in range: >=2.0.0 <3.0.0, bundle top.v1.0.0 requires an operator with package: left and with version in range: >=1.0.0, bundle top.v1.0.0 requires an operator with package: right and with version in range: >=1.0.0, catalog/ns/stable/shared.v1.0.0 and catalog/ns/stable/shared.v2.0.0 originate from package shared, subscription sub exists, subscription sub requires catalog/ns/stable/top.v1.0.0"
    );
    let text = explain(&p, &v);
    assert!(
        text.starts_with("top.v1.0.0 cannot be installed: top.v1.0.0 requires with package: left"),
        "{text}"
    );
    assert!(
        text.contains("(failure message: \"right needs shared 2.x\")"),
        "{text}"
    );
}

#[test]
fn upstream_14_selfy_and_19_both_and_12_cycle() {
    let mut c = Cat::default();
    let s1 = c.add("selfy.v1.0.0", "selfy", "stable", "catalog", &[]);
    let s2 = c.add("selfy.v2.0.0", "selfy", "stable", "catalog", &[]);
    c.req(
        s1,
        &[s2, s1],
        "with package: selfy and with version in range: >=1.0.0",
    );
    c.req(
        s2,
        &[s1],
        "with package: selfy and with version in range: <2.0.0",
    );
    let w = "example.com/v1/Widget";
    let p1 = c.add("p1.v1.0.0", "p1", "stable", "catalog", &[w]);
    let p2 = c.add("p2.v1.0.0", "p2", "stable", "catalog", &[w]);
    let app = c.add("app.v1.0.0", "app", "stable", "catalog", &[]);
    let both = c.add("both.v1.0.0", "both", "stable", "catalog", &[]);
    c.req(
        app,
        &[p1, p2],
        "providing an API with group: example.com, version: v1, kind: Widget",
    );
    c.req(
        both,
        &[p1],
        "with package: p1 and with version in range: >=1.0.0",
    );
    c.req(
        both,
        &[p2],
        "with package: p2 and with version in range: >=1.0.0",
    );
    let a = c.add("a.v1.0.0", "a", "stable", "catalog", &[]);
    let b = c.add("b.v1.0.0", "b", "stable", "catalog", &[]);
    c.req(
        a,
        &[b],
        "with package: b and with version in range: >=0.0.0",
    );
    c.cel(
        b,
        &[a],
        "with package: a and with version in range: >=0.0.0",
        "b needs a",
    );
    let p = c.build();
    assert_eq!(ok(&p, s1), set(&["selfy.v1.0.0@catalog/stable"]));
    assert_eq!(
        olm_message(&p, &Verdict::Unsatisfiable { core: unsat(&p, s2) }),
        "constraints not satisfiable: bundle selfy.v2.0.0 requires an operator with package: selfy and with version in range: <2.0.0, catalog/ns/stable/selfy.v1.0.0 and catalog/ns/stable/selfy.v2.0.0 originate from package selfy, subscription sub exists, subscription sub requires catalog/ns/stable/selfy.v2.0.0"
    );
    assert_eq!(
        ok(&p, app),
        set(&["app.v1.0.0@catalog/stable", "p1.v1.0.0@catalog/stable"])
    );
    assert_eq!(
        olm_message(&p, &Verdict::Unsatisfiable { core: unsat(&p, both) }),
        "constraints not satisfiable: bundle both.v1.0.0 requires an operator with package: p1 and with version in range: >=1.0.0, bundle both.v1.0.0 requires an operator with package: p2 and with version in range: >=1.0.0, catalog/ns/stable/p1.v1.0.0 and catalog/ns/stable/p2.v1.0.0 provide Widget (example.com/v1), subscription sub exists, subscription sub requires catalog/ns/stable/both.v1.0.0"
    );
    assert_eq!(
        ok(&p, a),
        set(&["a.v1.0.0@catalog/stable", "b.v1.0.0@catalog/stable"])
    );
    assert_eq!(
        ok(&p, b),
        set(&["a.v1.0.0@catalog/stable", "b.v1.0.0@catalog/stable"])
    );
}

#[test]
fn upstream_05_any_branch_picks_head() {
    let mut c = Cat::default();
    let gadget = "example.com/v1/Gadget";
    let app = c.add("app.v1.0.0", "app", "stable", "catalog", &[]);
    let f05 = c.add("foo.v0.5.0", "foo", "stable", "catalog", &[gadget]);
    let f1 = c.add("foo.v1.0.0", "foo", "stable", "catalog", &[gadget]);
    let f2 = c.add("foo.v2.0.0", "foo", "stable", "catalog", &[gadget]);
    c.req(app, &[f2, f1, f05], "any{pkg foo >=5, gvk Gadget}");
    let p = c.build();
    assert_eq!(
        ok(&p, app),
        set(&["app.v1.0.0@catalog/stable", "foo.v2.0.0@catalog/stable"])
    );
}

// ------------------------------------------------------------ scoping of groups

#[test]
fn at_most_one_is_scoped_to_the_closure() {
    let (mut c, bar, foo1, _) = base(&[]);
    let zed = c.c("zed.v1.0.0", "zed", &[G1]); // unrelated provider of g1
    c.req(bar, &[foo1], "package foo <2.0.0");
    let p = c.build();
    assert!(check_installable(&p, &[bar], Budget::UNLIMITED).is_installable());
    // Once zed is reached too, the GVK invariant bites.
    let (mut c, bar, foo1, _) = base(&[]);
    let zed2 = c.c("zed.v1.0.0", "zed", &[G1]);
    c.req(bar, &[foo1], "package foo <2.0.0");
    c.req(bar, &[zed2], "package zed");
    let p = c.build();
    let core = unsat(&p, bar);
    assert!(core.contains(&CoreItem::AtMostOneGvk {
        gvk: G1.into(),
        entries: vec![foo1, zed2]
    }));
    let _ = zed;
}

// ------------------------------------------------------------- core minimality

/// Tiny deterministic PRNG (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_problem(rng: &mut Rng, n: usize) -> Problem {
    let mut c = Cat::default();
    for i in 0..n {
        let pkg = format!("p{}", rng.below((n / 2) as u64));
        let gvks: Vec<String> = (0..rng.below(3))
            .map(|_| format!("g/v1/K{}", rng.below(4)))
            .collect();
        let gvk_refs: Vec<&str> = gvks.iter().map(String::as_str).collect();
        let e = c.c(&format!("b{i}"), &pkg, &gvk_refs);
        if rng.below(8) == 0 {
            c.entries[e as usize].deprecated = true;
        }
    }
    for i in 0..n {
        for d in 0..rng.below(3) {
            let k = rng.below(4);
            let cands: Vec<EntryId> = (0..k).map(|_| rng.below(n as u64) as EntryId).collect();
            c.req(i as EntryId, &cands, &format!("dep {d}"));
        }
    }
    c.build()
}

#[test]
fn random_cores_are_minimal_and_verdicts_agree() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut sat_count, mut unsat_count) = (0, 0);
    for round in 0..300 {
        let p = random_problem(&mut rng, 4 + round % 12);
        let mut checker = p.checker();
        for start in 0..p.len() as EntryId {
            let v = checker.check(&[start], Budget::UNLIMITED);
            let r = resolve(&p, &[start], &[], Budget::UNLIMITED);
            match &v {
                Verdict::Installable { chosen } => {
                    sat_count += 1;
                    assert!(chosen.contains(&start));
                    // The greedy witness or the solver's model: either is a model.
                    assert!(is_model(&p, chosen), "not a model: {chosen:?}");
                    let Verdict::Installable { chosen: picked } = &r.verdict else {
                        panic!("resolve disagrees: {:?}", r.verdict)
                    };
                    assert!(is_model(&p, picked), "not a model: {picked:?}");
                }
                Verdict::Unsatisfiable { core } => {
                    unsat_count += 1;
                    assert!(
                        is_mus(&p, &[start], core),
                        "round {round} start {start}: {core:?}"
                    );
                    assert!(matches!(r.verdict, Verdict::Unsatisfiable { .. }));
                    assert!(!explain(&p, &v).is_empty());
                }
                other => panic!("{other:?}"),
            }
        }
    }
    assert!(
        sat_count > 100 && unsat_count > 100,
        "{sat_count} / {unsat_count}"
    );
}

/// `set` satisfies every constraint of its own closure.
fn is_model(p: &Problem, set: &[EntryId]) -> bool {
    let has = |e: EntryId| set.contains(&e);
    for &e in set {
        let entry = &p.entries[e as usize];
        if entry.deprecated {
            return false;
        }
        if !entry
            .dependencies
            .iter()
            .all(|d| d.candidates.iter().any(|&c| has(c)))
        {
            return false;
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for &e in set {
        let entry = &p.entries[e as usize];
        let mut mine: Vec<&str> = entry
            .provides_gvks
            .iter()
            .chain(entry.package_props.iter())
            .map(CompactString::as_str)
            .collect();
        mine.sort_unstable();
        mine.dedup();
        for g in mine {
            *seen.entry(g).or_default() += 1;
        }
    }
    seen.values().all(|&n| n <= 1)
}

// ------------------------------------------------------------------------ budget

/// Pigeonhole: `pigeons` dependencies of the start, each with one candidate per
/// hole; the candidates for hole h all provide GVK h (at most one per hole).
fn pigeonhole(pigeons: usize, holes: usize) -> (Problem, EntryId) {
    let mut c = Cat::default();
    let start = c.c("start.v1.0.0", "start", &[]);
    let mut rows = Vec::new();
    for i in 0..pigeons {
        let row: Vec<EntryId> = (0..holes)
            .map(|h| {
                c.c(
                    &format!("p{i}h{h}"),
                    &format!("p{i}h{h}"),
                    &[&format!("holes/v1/H{h}")],
                )
            })
            .collect();
        rows.push(row);
    }
    for (i, row) in rows.iter().enumerate() {
        c.req(start, row, &format!("pigeon {i}"));
    }
    (c.build(), start)
}

#[test]
fn budget_stops_pigeonhole() {
    let (p, start) = pigeonhole(12, 11);
    let t = std::time::Instant::now();
    let v = check_installable(&p, &[start], Budget::conflicts(2_000));
    assert_eq!(v, Verdict::BudgetExceeded);
    assert_eq!(
        olm_message(&p, &v),
        "cancelled before a solution could be found"
    );
    assert_eq!(
        resolve(&p, &[start], &[], Budget::conflicts(2_000)).verdict,
        Verdict::BudgetExceeded
    );
    assert!(t.elapsed().as_secs() < 20);
    // Small pigeonholes are decided, and 11 pigeons fit in 11 holes.
    let (p, start) = pigeonhole(5, 4);
    assert!(matches!(
        check_installable(&p, &[start], Budget::UNLIMITED),
        Verdict::Unsatisfiable { .. }
    ));
    let (p, start) = pigeonhole(11, 11);
    assert!(check_installable(&p, &[start], Budget::conflicts(10_000)).is_installable());
    let r = resolve(&p, &[start], &[], Budget::conflicts(100_000));
    let Verdict::Installable { chosen } = &r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert_eq!(chosen.len(), 12);
}

// ---------------------------------------------------------- encoding linearity

fn wide(n: usize, second: bool) -> (Problem, EntryId) {
    let mut c = Cat::default();
    let start = c.c("start.v1.0.0", "start", &[]);
    let cands: Vec<EntryId> = (0..n)
        .map(|i| c.c(&format!("w{i}"), &format!("w{i}"), &["big/v1/Wide"]))
        .collect();
    c.req(start, &cands, "any wide");
    if !second {
        // Also the last one: the greedy witness (first free candidate) fails, so the
        // solver runs on the full encoding.
        if let Some(&last) = cands.last() {
            c.req(start, &[last], "the last wide");
        }
    }
    if second {
        // A second, disjoint requirement on the same API: unsatisfiable.
        let more: Vec<EntryId> = (0..n)
            .map(|i| c.c(&format!("x{i}"), &format!("x{i}"), &["big/v1/Wide"]))
            .collect();
        c.req(start, &more, "any x");
    }
    (c.build(), start)
}

#[test]
fn at_most_one_encoding_is_linear() {
    let mut stats = Vec::new();
    for n in [1_000usize, 10_000, 50_000] {
        let (p, start) = wide(n, false);
        let mut ch = p.checker();
        assert!(ch.check(&[start], Budget::UNLIMITED).is_installable());
        let s = ch.last_stats();
        // 1 root + 2 dependencies + (3(n)-4) counter clauses over n members.
        assert_eq!(s.clauses, 3 + 3 * n - 4, "{s:?}");
        assert!(s.vars as usize <= 2 * n + 10, "{s:?}");
        stats.push(s);
    }
    assert!(stats[2].clauses < 6 * stats[1].clauses);
    let (p, start) = wide(5_000, true);
    let mut ch = p.checker();
    let v = ch.check(&[start], Budget::UNLIMITED);
    let Verdict::Unsatisfiable { core } = &v else {
        panic!("{v:?}")
    };
    assert_eq!(core.len(), 4);
    assert!(ch.last_stats().clauses <= 3 + 3 * 10_000);
    // Direct encoding check: at most one true, counted exhaustively for n = 6.
    let mut sat = Sat::new();
    let s = sat.new_var(false);
    let xs: Vec<_> = (0..6).map(|_| sat.new_var(true)).collect();
    at_most_one(&mut sat, Some(s), &xs);
    for mask in 0u32..64 {
        let mut a = vec![s];
        a.extend(
            xs.iter()
                .enumerate()
                .map(|(i, &x)| if mask >> i & 1 == 1 { x } else { !x }),
        );
        let expect = if mask.count_ones() <= 1 {
            Outcome::Sat
        } else {
            Outcome::Unsat
        };
        assert_eq!(sat.solve(&a, u64::MAX), expect, "mask {mask:b}");
    }
}

#[test]
fn engine_types_are_thread_friendly() {
    fn sync<T: Sync + Send>() {}
    fn send<T: Send>() {}
    sync::<Problem>();
    send::<Checker<'static>>();
}

// --------------------------------------------------------------- benchmark

/// Synthetic catalog: `packages` packages of 5 versions in 4 dependency layers;
/// every entry has ~3 dependencies on packages one layer down (1–5 candidates
/// each, head first); GVKs are shared between neighbouring packages, and some
/// version ranges collide, so part of the bundles are uninstallable.
fn synthetic(packages: usize, seed: u64) -> Problem {
    let mut rng = Rng(seed);
    let versions = 5;
    let layers = 4;
    let per_layer = packages / layers;
    let mut entries = Vec::with_capacity(packages * versions);
    for p in 0..packages {
        for v in 0..versions {
            let mut gvks = vec![format!("g{}.example.com/v1/K{}", p / 3, v % 2)];
            if rng.below(4) == 0 {
                gvks.push(format!("shared.example.com/v1/S{}", rng.below(500)));
            }
            entries.push(Entry {
                bundle: format!("p{p}.v{v}.0.0").into(),
                package: format!("p{p}").into(),
                channel: "stable".into(),
                catalog: "synthetic".into(),
                deprecated: rng.below(50) == 0,
                provides_gvks: gvks.into_iter().map(Into::into).collect(),
                package_props: vec![format!("p{p}").into()].into(),
                ..Entry::default()
            });
        }
    }
    for p in 0..packages {
        let layer = p / per_layer.max(1);
        if layer == 0 {
            continue;
        }
        for v in 0..versions {
            let e = p * versions + v;
            let ndeps = 2 + rng.below(3) as usize;
            for d in 0..ndeps {
                let target = (layer - 1) * per_layer + rng.below(per_layer as u64) as usize;
                let lo = rng.below(versions as u64) as usize;
                let hi = (lo + 1 + rng.below(versions as u64) as usize).min(versions);
                // Head (newest) first.
                let cands: Vec<EntryId> = (lo..hi)
                    .rev()
                    .map(|tv| (target * versions + tv) as EntryId)
                    .collect();
                entries[e].dependencies.push(Dependency {
                    candidates: cands.into(),
                    label: format!("requires package p{target} (dep {d})").into(),
                    origin: d as u32,
                    cel_message: None,
                });
            }
        }
    }
    Problem::new(entries)
}

#[test]
#[ignore = "benchmark: cargo test --release -- --ignored --nocapture bench"]
fn bench_scaling_100k() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;
    let t = Instant::now();
    let p = synthetic(20_000, 42);
    let build = t.elapsed();
    let n = p.len();
    let next = AtomicUsize::new(0);
    let counts: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
    let closure = AtomicUsize::new(0);
    let max_closure = AtomicUsize::new(0);
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut ch = p.checker();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let v = ch.check(&[i as EntryId], Budget::default());
                    let k = match v {
                        Verdict::Installable { .. } => 0,
                        Verdict::Unsatisfiable { .. } => 1,
                        Verdict::HardError { .. } => 2,
                        Verdict::BudgetExceeded => 3,
                    };
                    counts[k].fetch_add(1, Ordering::Relaxed);
                    let c = ch.last_stats().closure;
                    closure.fetch_add(c, Ordering::Relaxed);
                    max_closure.fetch_max(c, Ordering::Relaxed);
                }
            });
        }
    });
    let checks = t.elapsed();
    println!(
        "entries {n}: build {:?}; {n} checks on 2 threads {:?} ({:.1} µs/check wall, {:.1} µs/check cpu); installable {} unsat {} budget {}; closure avg {:.0} max {}",
        build,
        checks,
        checks.as_secs_f64() * 1e6 / n as f64,
        2.0 * checks.as_secs_f64() * 1e6 / n as f64,
        counts[0].load(Ordering::Relaxed),
        counts[1].load(Ordering::Relaxed),
        counts[3].load(Ordering::Relaxed),
        closure.load(Ordering::Relaxed) as f64 / n as f64,
        max_closure.load(Ordering::Relaxed),
    );
    // Resolve (OLM search) on a sample of top-layer bundles.
    let t = Instant::now();
    let sample = 2_000;
    let mut ok = 0;
    for i in 0..sample {
        let e = (n - 1 - i * 7) as EntryId;
        if resolve(&p, &[e], &[], Budget::default())
            .verdict
            .is_installable()
        {
            ok += 1;
        }
    }
    println!(
        "resolve: {sample} top-layer bundles in {:?} ({:.1} µs each), {ok} installable",
        t.elapsed(),
        t.elapsed().as_secs_f64() * 1e6 / sample as f64
    );
}

// ------------------------------------------- reference: gini/OLM search, literally

/// Test-only CNF over the closure of `start`, literals `±(local + 1)`.
struct RefCnf {
    closure: Vec<EntryId>,
    local: HashMap<EntryId, usize>,
    clauses: Vec<Vec<i32>>,
}

fn ref_cnf(p: &Problem, start: EntryId) -> RefCnf {
    let mut closure = vec![start];
    let mut local = HashMap::from([(start, 0usize)]);
    let mut i = 0;
    while i < closure.len() {
        for d in &p.entries[closure[i] as usize].dependencies {
            for &c in d.candidates.iter() {
                if let std::collections::hash_map::Entry::Vacant(slot) = local.entry(c) {
                    slot.insert(closure.len());
                    closure.push(c);
                }
            }
        }
        i += 1;
    }
    let lit = |e: EntryId| local[&e] as i32 + 1;
    let mut clauses = vec![vec![lit(start)]];
    let mut groups: HashMap<String, Vec<i32>> = HashMap::new();
    for &e in &closure {
        let entry = &p.entries[e as usize];
        for d in &entry.dependencies {
            let mut cl = vec![-lit(e)];
            cl.extend(d.candidates.iter().map(|&c| lit(c)));
            clauses.push(cl);
        }
        if entry.deprecated {
            clauses.push(vec![-lit(e)]);
        }
        let mut mine: Vec<String> = entry
            .provides_gvks
            .iter()
            .map(|g| format!("gvk {g}"))
            .collect();
        mine.extend(entry.package_props.iter().map(|g| format!("pkg {g}")));
        mine.sort();
        mine.dedup();
        for g in mine {
            groups.entry(g).or_default().push(lit(e));
        }
    }
    for members in groups.values() {
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                clauses.push(vec![-a, -b]);
            }
        }
    }
    RefCnf {
        closure,
        local,
        clauses,
    }
}

impl RefCnf {
    /// Unit propagation: None on conflict, else values (0 unassigned, ±1).
    fn bcp(&self, assume: &[i32]) -> Option<Vec<i8>> {
        let mut val = vec![0i8; self.closure.len()];
        let set = |val: &mut Vec<i8>, l: i32| -> bool {
            let v = (l.unsigned_abs() - 1) as usize;
            let want = if l > 0 { 1 } else { -1 };
            if val[v] == -want {
                return false;
            }
            val[v] = want;
            true
        };
        for &a in assume {
            if !set(&mut val, a) {
                return None;
            }
        }
        loop {
            let mut changed = false;
            for cl in &self.clauses {
                let mut unassigned = None;
                let mut count = 0;
                let mut satisfied = false;
                for &l in cl {
                    let v = val[(l.unsigned_abs() - 1) as usize];
                    let lv = if l > 0 { v } else { -v };
                    if lv == 1 {
                        satisfied = true;
                        break;
                    }
                    if lv == 0 {
                        count += 1;
                        unassigned = Some(l);
                    }
                }
                if satisfied {
                    continue;
                }
                match count {
                    0 => return None,
                    1 => {
                        set(&mut val, unassigned.unwrap());
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                return Some(val);
            }
        }
    }

    /// All models (as true-sets) under `assume`, by brute force.
    fn models(&self, assume: &[i32]) -> Vec<Vec<usize>> {
        let n = self.closure.len();
        let mut out = Vec::new();
        for mask in 0u32..(1 << n) {
            let t = |l: i32| {
                let b = mask >> (l.unsigned_abs() - 1) & 1 == 1;
                if l > 0 {
                    b
                } else {
                    !b
                }
            };
            if assume.iter().all(|&a| t(a))
                && self.clauses.iter().all(|cl| cl.iter().any(|&l| t(l)))
            {
                out.push((0..n).filter(|&v| mask >> v & 1 == 1).collect());
            }
        }
        out
    }
}

/// OLM's `search.Do` + `solve.go`, transcribed (Test = unit propagation,
/// Solve = brute force). `Ok(None)` = UNSAT, `Err(())` = tie among minimal
/// models (OLM's pick would depend on gini internals).
fn olm_reference(p: &Problem, start: EntryId) -> Result<Option<Vec<EntryId>>, ()> {
    let cnf = ref_cnf(p, start);
    let lit = |e: EntryId| cnf.local[&e] as i32 + 1;
    let base = vec![lit(start)];
    let test = |guesses: &[i32]| -> i32 {
        let mut a = base.clone();
        a.extend_from_slice(guesses);
        match cnf.bcp(&a) {
            None => -1,
            Some(v) if v.iter().all(|&x| x != 0) => 1,
            Some(_) => 0,
        }
    };
    struct Choice {
        index: usize,
        cands: Vec<i32>,
    }
    struct Guess {
        m: Option<i32>,
        index: usize,
        children: usize,
        cands: Vec<i32>,
    }
    let mut result = test(&[]);
    let mut guesses: Vec<Guess> = Vec::new();
    if result == 0 {
        let mut choices: std::collections::VecDeque<Choice> = std::collections::VecDeque::new();
        choices.push_back(Choice {
            index: 0,
            cands: vec![lit(start)],
        });
        let lits = |g: &[Guess]| g.iter().filter_map(|g| g.m).collect::<Vec<i32>>();
        loop {
            if choices.is_empty() && result == 0 {
                let mut a = base.clone();
                a.extend(lits(&guesses));
                result = if cnf.models(&a).is_empty() { -1 } else { 1 };
            }
            if result == -1 {
                let Some(g) = guesses.pop() else { break };
                if g.m.is_some() {
                    result = if cnf.bcp(&[base.clone(), lits(&guesses)].concat()).is_none() {
                        -1
                    } else {
                        0
                    };
                }
                for _ in 0..g.children {
                    choices.pop_back();
                }
                choices.push_front(Choice {
                    index: g.index + usize::from(g.m.is_some()),
                    cands: g.cands,
                });
                continue;
            }
            let Some(c) = choices.pop_front() else { break };
            let assumed = lits(&guesses);
            let mut g = Guess {
                m: c.cands.get(c.index).copied(),
                index: c.index,
                children: 0,
                cands: c.cands,
            };
            if g.cands.iter().any(|m| assumed.contains(m)) {
                g.m = None;
            }
            let Some(m) = g.m else {
                guesses.push(g);
                continue;
            };
            let e = cnf.closure[(m - 1) as usize];
            for d in &p.entries[e as usize].dependencies {
                if !d.candidates.is_empty() {
                    g.children += 1;
                    choices.push_back(Choice {
                        index: 0,
                        cands: d.candidates.iter().map(|&c| lit(c)).collect(),
                    });
                }
            }
            guesses.push(g);
            result = test(&lits(&guesses));
        }
    }
    match result {
        -1 => return Ok(None),
        1 => {}
        _ => panic!("unknown"),
    }
    // solve.go: values after the search are those of the base test scope.
    let aset: Vec<i32> = guesses.iter().filter_map(|g| g.m).collect();
    let base_vals = cnf.bcp(&base).unwrap();
    let mut fixed = aset.clone();
    let mut extras = Vec::new();
    for (v, &val) in base_vals.iter().enumerate() {
        let l = v as i32 + 1;
        if aset.contains(&l) {
            continue;
        }
        if val == 1 {
            extras.push(v);
        } else {
            fixed.push(-l);
        }
    }
    let models = cnf.models(&[base.clone(), fixed].concat());
    let cost = |m: &Vec<usize>| m.iter().filter(|v| extras.contains(v)).count();
    let best = models.iter().map(cost).min().unwrap();
    let mut best_sets: Vec<&Vec<usize>> = models.iter().filter(|m| cost(m) == best).collect();
    best_sets.dedup();
    if best_sets.len() != 1 {
        return Err(());
    }
    let mut out: Vec<EntryId> = best_sets[0].iter().map(|&v| cnf.closure[v]).collect();
    out.sort_unstable();
    Ok(Some(out))
}

#[test]
fn resolve_matches_transcribed_olm_search() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let (mut compared, mut ties, mut sat) = (0, 0, 0);
    for round in 0..3000 {
        let p = random_problem(&mut rng, 3 + round % 10);
        for start in 0..p.len() as EntryId {
            if ref_cnf(&p, start).closure.len() > 12 {
                continue;
            }
            let ours = match resolve(&p, &[start], &[], Budget::UNLIMITED).verdict {
                Verdict::Installable { chosen } => Some(chosen),
                Verdict::Unsatisfiable { .. } => None,
                other => panic!("{other:?}"),
            };
            match olm_reference(&p, start) {
                Ok(reference) => {
                    assert_eq!(
                        ours, reference,
                        "round {round} start {start}: {:?}",
                        p.entries
                    );
                    compared += 1;
                    sat += usize::from(reference.is_some());
                }
                Err(()) => ties += 1,
            }
        }
    }
    println!("{compared} compared, {sat} sat, {ties} ties");
    assert!(
        compared > 1000 && sat > 300,
        "{compared} compared, {sat} sat, {ties} ties"
    );
    assert_eq!(ties, 0);
}

#[test]
#[ignore = "micro benchmark"]
fn bench_micro_phases() {
    let t = std::time::Instant::now();
    let mut sat = Sat::new();
    for _ in 0..100_000 {
        sat.reset();
        let _ = sat.new_var(true);
    }
    println!(
        "reset+1var: {:.2} µs",
        t.elapsed().as_secs_f64() * 1e6 / 100_000.0
    );
    let p = synthetic(20_000, 42);
    let mut local = Local::default();
    let t = std::time::Instant::now();
    let mut total = 0;
    for i in 0..20_000u32 {
        let roots = [Root {
            kind: RootKind::Mandatory(i * 5),
            candidates: vec![i * 5],
        }];
        if local.explore(&p, &roots, None).is_ok() {
            total += local.closure.len();
        }
    }
    println!(
        "explore: {:.2} µs (avg closure {})",
        t.elapsed().as_secs_f64() * 1e6 / 20_000.0,
        total / 20_000
    );
    let t = std::time::Instant::now();
    for i in 0..20_000u32 {
        let roots = [Root {
            kind: RootKind::Mandatory(i * 5),
            candidates: vec![i * 5],
        }];
        if local.explore(&p, &roots, None).is_ok() {
            local.encode(&p, &mut sat, &roots, false);
            total += sat.clauses() * 1_000_000 + sat.num_vars() as usize;
        }
    }
    println!(
        "explore+encode: {:.2} µs; clauses+vars {}",
        t.elapsed().as_secs_f64() * 1e6 / 20_000.0,
        total
    );
    let t = std::time::Instant::now();
    for i in 0..20_000u32 {
        let roots = [Root {
            kind: RootKind::Mandatory(i * 5),
            candidates: vec![i * 5],
        }];
        if local.explore(&p, &roots, None).is_ok() {
            local.encode(&p, &mut sat, &roots, false);
            let _ = sat.solve(&[], u64::MAX);
        }
    }
    println!(
        "explore+encode+solve: {:.2} µs",
        t.elapsed().as_secs_f64() * 1e6 / 20_000.0
    );
}

/// Lower bound for the rejected design "one solver over the whole catalog,
/// checks by assumptions": even without any selector assumptions, a SAT answer
/// must assign every entry variable of the catalog.
#[test]
#[ignore = "benchmark of the rejected global-solver design"]
fn bench_global_alternative() {
    use std::time::Instant;
    let p = synthetic(20_000, 42);
    let mut local = Local::default();
    let mut sat = Sat::new();
    let all: Vec<Root> = (0..p.len() as EntryId)
        .map(|e| Root {
            kind: RootKind::Installed(e),
            candidates: vec![e],
        })
        .collect();
    let t = Instant::now();
    let _ = local.explore(&p, &all, None);
    local.encode(&p, &mut sat, &[], false);
    println!(
        "global encode: {:?}, {} vars, {} clauses",
        t.elapsed(),
        sat.num_vars(),
        sat.clauses()
    );
    let lits = local.lits.clone();
    let t = Instant::now();
    let n = 300;
    let mut sat_count = 0;
    for i in 0..n {
        let start = lits[(i * 331) % lits.len()];
        if sat.solve(&[start], 100_000) == Outcome::Sat {
            sat_count += 1;
        }
    }
    println!(
        "global: {n} checks in {:?} ({:.0} µs/check), {sat_count} sat",
        t.elapsed(),
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

#[test]
#[ignore = "prints sample explanations"]
fn print_samples() {
    let mut c = Cat::default();
    let s1 = c.add("shared.v1.0.0", "shared", "stable", "catalog", &[]);
    let s2 = c.add("shared.v2.0.0", "shared", "stable", "catalog", &[]);
    let left = c.add("left.v1.0.0", "left", "stable", "catalog", &[]);
    let right = c.add("right.v1.0.0", "right", "stable", "catalog", &[]);
    let top = c.add("top.v1.0.0", "top", "stable", "catalog", &[]);
    let dep = c.add("old.v1.0.0", "old", "stable", "catalog", &[]);
    c.entries[dep as usize].deprecated = true;
    c.req(left, &[s1], "requires package shared 1.0.0");
    c.cel(
        right,
        &[s2],
        "requires package shared >=2.0.0 <3.0.0",
        "right needs shared 2.x",
    );
    c.req(top, &[left], "requires package left >=1.0.0");
    c.req(top, &[right], "requires package right >=1.0.0");
    c.req(s2, &[dep], "requires package old");
    let p = c.build();
    for e in [top, right, left] {
        let v = check_installable(&p, &[e], Budget::UNLIMITED);
        println!("{}\n  {}\n", explain(&p, &v), olm_message(&p, &v));
    }
    let r = resolve(&p, &[left], &[], Budget::UNLIMITED);
    println!("{:?}\n{}", r.choices, explain(&p, &r.verdict));
}

/// Random problems with shared candidate lists, long dependency chains, hard errors and
/// deprecations: [`check_bundles`] (pruned decisions, verdicts reused bottom-up) agrees with
/// `resolve` on the full closure for every entry, and its cores stay minimal where they are
/// not referrals to other verdicts.
#[test]
fn check_bundles_agrees_with_full_closures() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut seen = [0usize; 4];
    for round in 0..120 {
        let n = 20 + round % 60;
        let mut c = Cat::default();
        for i in 0..n {
            let pkg = format!("p{}", rng.below((n / 2) as u64));
            let gvks: Vec<String> = (0..rng.below(3))
                .map(|_| format!("g/v1/K{}", rng.below(5)))
                .collect();
            let refs: Vec<&str> = gvks.iter().map(String::as_str).collect();
            let e = c.c(&format!("b{i}"), &pkg, &refs);
            if rng.below(10) == 0 {
                c.entries[e as usize].deprecated = true;
            }
            if rng.below(40) == 0 {
                c.entries[e as usize].hard_error = Some("bad".into());
            }
        }
        // A few shared lists, as the model shares one list per dependency value.
        let shared: Vec<Arc<[EntryId]>> = (0..4)
            .map(|_| {
                (0..rng.below(5))
                    .map(|_| rng.below(n as u64) as EntryId)
                    .collect()
            })
            .collect();
        for i in 0..n {
            // Chains: entry i often requires something further along.
            if round % 3 == 0 {
                // One long chain ending in nothing: referrals past batch::DEEP.
                let next: Vec<EntryId> = (i + 1 < n)
                    .then_some(i as EntryId + 1)
                    .into_iter()
                    .collect();
                c.req(i as EntryId, &next, "chain");
            } else if rng.below(2) == 0 && i + 1 < n {
                let next = (i + 1 + rng.below(3) as usize).min(n - 1) as EntryId;
                c.req(i as EntryId, &[next], "next");
            }
            for _ in 0..rng.below(2) {
                let list = shared[rng.below(4) as usize].clone();
                c.entries[i].dependencies.push(Dependency {
                    candidates: list,
                    label: "shared".into(),
                    origin: 0,
                    cel_message: None,
                });
            }
        }
        let p = c.build();
        let bundles: Vec<Vec<EntryId>> = (0..p.len() as EntryId).map(|e| vec![e]).collect();
        let got = check_bundles(&p, &bundles, Budget::UNLIMITED, &|| false, &|_| {});
        for (e, v) in got.iter().enumerate() {
            let v = v.as_ref().expect("checked");
            let r = resolve(&p, &[e as EntryId], &[], Budget::UNLIMITED).verdict;
            match (v, &r) {
                (Verdict::Installable { chosen }, Verdict::Installable { .. }) => {
                    seen[0] += 1;
                    assert!(is_model(&p, chosen), "round {round} entry {e}: {chosen:?}");
                }
                (Verdict::Unsatisfiable { core }, Verdict::Unsatisfiable { .. }) => {
                    if core
                        .iter()
                        .any(|i| matches!(i, CoreItem::Uninstallable { .. }))
                    {
                        seen[3] += 1;
                    } else {
                        seen[1] += 1;
                        assert!(is_mus(&p, &[e as EntryId], core), "round {round} entry {e}");
                    }
                }
                (Verdict::HardError { entry: a, .. }, Verdict::HardError { entry: b, .. }) => {
                    seen[2] += 1;
                    assert_eq!(a, b, "round {round} entry {e}");
                }
                (a, b) => panic!("round {round} entry {e}: {a:?} vs resolve {b:?}"),
            }
        }
    }
    assert!(seen.iter().all(|&k| k > 20), "{seen:?}");
}

/// A chain of 300 packages whose last dependency has no candidate: every bundle is
/// uninstallable. The last ones are explained in full (as OLM lists them); once the
/// explanation would pass [`batch::DEEP`] entries, a bundle's core is its own dependency
/// and the dependency's uninstallable candidate, whose finding says the rest. Time and core
/// sizes stay linear in the chain.
#[test]
fn long_chains_refer_to_their_dependencies() {
    let mut c = Cat::default();
    let n = 300;
    let ids: Vec<EntryId> = (0..n)
        .map(|i| c.c(&format!("p{i}.v1"), &format!("p{i}"), &[]))
        .collect();
    for (i, w) in ids.windows(2).enumerate() {
        c.req(w[0], &[w[1]], &format!("requires package p{}", i + 1));
    }
    c.req(ids[n - 1], &[], "requires package pend >=2.0.0");
    let p = c.build();
    let bundles: Vec<Vec<EntryId>> = ids.iter().map(|&e| vec![e]).collect();
    let got = check_bundles(&p, &bundles, Budget::UNLIMITED, &|| false, &|_| {});
    let total: usize = got
        .iter()
        .map(|v| match v {
            Some(Verdict::Unsatisfiable { core }) => core.len(),
            other => panic!("{other:?}"),
        })
        .sum();
    assert!(total < 300 * 3 + 40 * 40, "core items {total}");
    // The tail is in full: p299 needs pend; p280 lists the 20 steps down to it.
    let Some(Verdict::Unsatisfiable { core }) = &got[280] else {
        panic!()
    };
    assert_eq!(core.len(), 21, "{core:?}");
    // The head refers to p1.
    let Some(v @ Verdict::Unsatisfiable { core }) = &got[0] else {
        panic!()
    };
    assert_eq!(
        core,
        &vec![
            CoreItem::Mandatory(ids[0]),
            CoreItem::Dependency {
                entry: ids[0],
                index: 0
            },
            CoreItem::Uninstallable {
                entries: vec![ids[1]]
            },
        ]
    );
    assert_eq!(
        explain(&p, v),
        "p0.v1 cannot be installed: p0.v1 requires package p1; its only candidate is p1.v1; \
         p1.v1 cannot be installed itself (its own finding says why)"
    );
    assert!(olm_message(&p, v).contains("c/ns/stable/p1.v1 cannot be installed"));
    // A checker on its own (no verdicts to reuse) still gives the whole chain.
    let Verdict::Unsatisfiable { core } = p.checker().check(&[ids[0]], Budget::UNLIMITED) else {
        panic!()
    };
    assert_eq!(core.len(), 301);
}

/// Providers of an API that all require it (their own candidates) and 2 000 requirers
/// of it: every check decides on the start and its first candidate, without walking the
/// 2 000-entry candidate list per reached entry (that was cubic).
#[test]
fn popular_apis_are_decided_without_the_whole_closure() {
    let mut c = Cat::default();
    let n = 2000;
    let providers: Vec<EntryId> = (0..n)
        .map(|i| c.c(&format!("prov{i}.v1"), &format!("prov{i}"), &["g/v1/K"]))
        .collect();
    let list: Arc<[EntryId]> = providers.clone().into();
    for (i, &provider) in providers.iter().enumerate() {
        let r = c.c(&format!("req{i}.v1"), &format!("req{i}"), &[]);
        for owner in [r, provider] {
            c.entries[owner as usize].dependencies.push(Dependency {
                candidates: list.clone(),
                label: "requires gvk g/v1/K".into(),
                origin: 0,
                cel_message: None,
            });
        }
    }
    let p = c.build();
    let mut checker = p.checker();
    for e in 0..p.len() as EntryId {
        assert!(checker.check(&[e], Budget::UNLIMITED).is_installable());
        assert!(
            checker.last_stats().closure <= 2,
            "{:?}",
            checker.last_stats()
        );
    }
}
