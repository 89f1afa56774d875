//! The model's own tests: the cache's overwrite and order rules, the ranking, the per-bundle
//! upgrade targets against the resolver itself, and the successor index's scaling.

use super::*;
use crate::index::Index;
use olmlint_load::{parse_bytes, Limits, LoadedFile, Role};
use std::fmt::Write as _;

fn load(text: &str) -> Vec<LoadedFile> {
    vec![parse_bytes(
        "catalog.yaml".into(),
        "catalog.yaml".into(),
        Role::Fbc,
        text.as_bytes().to_vec(),
        &Limits::default(),
    )]
}

fn bundle(name: &str, version: &str) -> String {
    format!(
        "---\nschema: olm.bundle\npackage: foo\nname: {name}\nimage: example.com/b:{version}\nproperties:\n- type: olm.package\n  value: {{packageName: foo, version: \"{version}\"}}\n"
    )
}

#[test]
fn the_cache_keeps_the_last_meta_and_reads_files_in_name_order() {
    let mut text = String::from("schema: olm.package\nname: foo\n");
    text.push_str(&bundle("foo.v2", "2.0.0"));
    text.push_str(&bundle("foo.v1", "1.0.0"));
    text.push_str(&bundle("foo.v2", "0.5.0"));
    text.push_str(
        "---\nschema: olm.channel\npackage: foo\nname: stable\nentries: [{name: foo.v1}]\n",
    );
    text.push_str("---\nschema: olm.channel\npackage: foo\nname: stable\nentries: [{name: foo.v1}, {name: foo.v2, replaces: foo.v1}]\n");
    text.push_str("---\nschema: olm.deprecations\npackage: foo\nentries: [{reference: {schema: olm.bundle, name: foo.v1}, message: gone}]\n");
    text.push_str("---\nschema: olm.deprecations\npackage: foo\nentries: []\n");
    let files = load(&text);
    let cat = crate::build(&files, 0, &mut Vec::new());
    let ix = Index::new(&cat);
    let view = PackageView::new(&cat, &ix, "foo", false);
    let names: Vec<&str> = view.bundles.iter().map(|b| b.name).collect();
    assert_eq!(names, ["foo.v1", "foo.v2"]);
    // The later foo.v2 (0.5.0) overwrote the earlier (2.0.0).
    assert_eq!(view.bundles[1].version_text().as_deref(), Some("0.5.0"));
    assert_eq!(view.channels.len(), 1);
    assert_eq!(view.channels[0].channel.entries.len(), 2);
    // The last deprecation blob is the one left: nothing is deprecated.
    assert!(view.bundles.iter().all(|b| !b.deprecated));
    let lost: Vec<(&str, &str)> = view
        .overwritten
        .iter()
        .map(|o| (o.schema, o.name.as_str()))
        .collect();
    assert_eq!(
        lost,
        [
            ("olm.channel", "stable"),
            ("olm.deprecations", "olm.deprecations"),
            ("olm.bundle", "foo.v2"),
        ]
    );
    assert_eq!(
        view.default_pick().map(|p| view.bundles[p].name),
        Some("foo.v1")
    );
    assert_eq!(view.channel_picks(), [Some(0)]);
}

/// A deterministic pseudo-random source for generated catalogs.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// A package of `n` bundles over two channels with random replaces, skips and skipRanges,
/// some deprecations and duplicate versions.
fn random_package(seed: u64, n: usize) -> String {
    let mut r = Lcg(seed);
    let version = |i: usize| format!("{}.{}.0", i / 3, i % 3);
    let mut text = String::from("schema: olm.package\nname: foo\n");
    for i in 0..n {
        let v = if r.next(6) == 0 && i > 0 {
            version(i - 1)
        } else {
            version(i)
        };
        text.push_str(&bundle(&format!("foo.b{i}"), &v));
    }
    for ch in ["stable", "fast"] {
        let _ = writeln!(
            text,
            "---\nschema: olm.channel\npackage: foo\nname: {ch}\nentries:"
        );
        for i in 0..n {
            if r.next(3) == 0 {
                continue;
            }
            let _ = writeln!(text, "- name: foo.b{i}");
            if i > 0 && r.next(2) == 0 {
                let _ = writeln!(text, "  replaces: foo.b{}", r.next(i as u64));
            }
            if i > 0 && r.next(3) == 0 {
                let _ = writeln!(text, "  skips: [foo.b{}]", r.next(i as u64));
            }
            if r.next(3) == 0 {
                let lo = version(r.next(i as u64 + 1) as usize);
                let _ = writeln!(text, "  skipRange: '>={lo} <{}'", version(i));
            }
        }
    }
    let _ = writeln!(
        text,
        "---\nschema: olm.deprecations\npackage: foo\nentries:"
    );
    for i in 0..n {
        if r.next(7) == 0 {
            let _ = writeln!(
                text,
                "- reference: {{schema: olm.bundle, name: foo.b{i}}}\n  message: old"
            );
        }
    }
    text
}

#[test]
fn upgrade_targets_agree_with_the_resolver() {
    // How the targets were reached, to be sure every kind of edge was exercised.
    let mut seen = std::collections::BTreeMap::new();
    for seed in 0..40 {
        let text = random_package(seed, 24);
        let files = load(&text);
        let cat = crate::build(&files, 0, &mut Vec::new());
        let ix = Index::new(&cat);
        let view = PackageView::new(&cat, &ix, "foo", false);
        let index = SuccessorIndex::new(&view);
        let targets = index.upgrade_targets();
        let sources = [Source {
            name: "c",
            priority: 0,
            catalog: &cat,
            index: &ix,
        }];
        for t in &targets.targets {
            let b = &view.bundles[t.from];
            let req = Request {
                package: "foo".into(),
                installed: Some(Installed {
                    name: Some(b.name.to_string()),
                    version: b.version_text().unwrap(),
                }),
                ..Request::default()
            };
            let res = resolve(&req, &sources);
            let chosen = res.chosen.as_ref().map(|c| c.bundle.as_str());
            let target = t.to.map(|p| view.bundles[p].name);
            assert_eq!(chosen, target, "seed {seed}, from {}", b.name);
            let how = match t.via {
                Some(e) => format!("{:?}", e.kind),
                None if t.to == Some(t.from) => "stays".into(),
                None => "same version".into(),
            };
            *seen.entry(how).or_insert(0) += 1;
            // Edges out: the same count as the enumeration, less self-edges.
            let v = b.semver.as_ref().unwrap();
            let edges = index.successors(Some(b.name), Some(v), None);
            let others = edges.iter().filter(|e| e.bundle != t.from).count();
            assert_eq!(others > 0, t.edges_out > 0, "seed {seed}, from {}", b.name);
        }
    }
    let kinds: Vec<&str> = seen.keys().map(String::as_str).collect();
    assert_eq!(
        kinds,
        ["Replaces", "SkipRange", "Skips", "same version", "stays"],
        "{seen:?}"
    );
}

/// A channel of `n` entries, each replacing the one before, skipping the one before that,
/// and with a skipRange over every earlier version: the worst case for naive successor
/// searches (every bundle has an edge to every later one).
fn long_channel(n: usize) -> String {
    let version = |i: usize| format!("1.{}.{}", i / 100, i % 100);
    let mut text = String::from("schema: olm.package\nname: foo\n");
    let _ = writeln!(
        text,
        "---\nschema: olm.channel\npackage: foo\nname: stable\nentries:"
    );
    for i in 0..n {
        let _ = writeln!(text, "- name: foo.v{}", version(i));
        if i > 0 {
            let _ = writeln!(text, "  replaces: foo.v{}", version(i - 1));
            let _ = writeln!(text, "  skipRange: '>=1.0.0 <{}'", version(i));
        }
        if i > 1 {
            let _ = writeln!(text, "  skips: [foo.v{}]", version(i - 2));
        }
    }
    for i in 0..n {
        text.push_str(&bundle(&format!("foo.v{}", version(i)), &version(i)));
    }
    text
}

fn targets_work(n: usize) -> u64 {
    let files = load(&long_channel(n));
    let cat = crate::build(&files, 0, &mut Vec::new());
    let ix = Index::new(&cat);
    let view = PackageView::new(&cat, &ix, "foo", false);
    let index = SuccessorIndex::new(&view);
    let t = index.upgrade_targets();
    let head = view.default_pick().unwrap();
    for target in &t.targets {
        assert_eq!(target.to, Some(head));
        assert_eq!(target.edges_out > 0, target.from != head);
    }
    t.work
}

#[test]
fn upgrade_targets_scale_n_log_n() {
    let (small, large) = (targets_work(1000), targets_work(5000));
    let bound = |n: u64| n * 4 * (64 - n.leading_zeros() as u64);
    assert!(large <= bound(5000), "{large} > {}", bound(5000));
    // n log n: 5 × (13/10) = 6.5 times the work for 5 times the entries, far from 25.
    assert!(large * 10 <= small * 70, "{small} -> {large}");
}
