//! `olmlint resolve --target olmv1` through the binary: operator-controller's own resolver
//! tests (`resolve/catalog_test.go`, `catalogmetadata/filter/successors_test.go`) ported as
//! fixture catalogs under `fixtures/olmv1-resolve/` with upstream's expected bundle or
//! message, then cases of our own (prereleases outside the default channel, build-metadata
//! ties, deprecation, priority, successors across channels, SelfCertified, an installed
//! bundle no longer in the catalog), usage errors and the output contracts.

use serde_json::Value;
use std::process::{Command, Output};

const DIR: &str = "fixtures/olmv1-resolve";

fn olmlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .arg("resolve")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// `resolve PACKAGE --target olmv1 ARGS -f json`, where `@name` stands for
/// `--catalog fixtures/olmv1-resolve/name`.
fn v1(package: &str, args: &[&str]) -> (Value, i32) {
    let mut a: Vec<String> = vec![package.into(), "--target".into(), "olmv1".into()];
    for x in args {
        match x.strip_prefix('@') {
            Some(c) => a.extend(["--catalog".to_string(), format!("{DIR}/{c}")]),
            None => a.push((*x).to_string()),
        }
    }
    a.extend(["-f".to_string(), "json".to_string()]);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = olmlint(&refs);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap())
}

/// The chosen bundle, or the explanation when there is none.
fn pick(package: &str, args: &[&str]) -> Result<String, String> {
    let (v, code) = v1(package, args);
    match v["bundle"].as_str() {
        Some(b) => {
            assert_eq!(code, 0, "{v:#}");
            assert_eq!(v["explanation"], Value::Null);
            Ok(b.to_string())
        }
        None => {
            assert_eq!(code, 1, "{v:#}");
            Err(v["explanation"].as_str().unwrap().to_string())
        }
    }
}

/// The bundles that passed every filter (chosen or lost only in the ranking).
fn survivors(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            !matches!(
                c["outcome"].as_str(),
                Some("not-in-channels" | "out-of-range" | "not-a-successor")
            )
        })
        .map(|c| c["bundle"].as_str().unwrap().to_string())
        .collect();
    s.sort();
    s
}

fn candidate<'v>(v: &'v Value, bundle: &str) -> &'v Value {
    v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["bundle"] == bundle)
        .unwrap_or_else(|| panic!("no candidate {bundle}: {v:#}"))
}

// --- operator-controller resolve/catalog_test.go -----------------------------------------

const GEN: [&str; 3] = ["@empty", "@empty", "@gen"];

#[test]
fn upstream_invalid_version_range() {
    assert_eq!(
        pick("foo", &["@gen", "--version", "foobar"]),
        Err(r#"desired version range "foobar" is invalid: improper constraint: "foobar""#.into())
    );
}

#[test]
fn upstream_package_does_not_exist() {
    assert_eq!(
        pick("foo", &["@empty", "@empty", "@empty"]),
        Err(r#"no bundles found for package "foo""#.into())
    );
}

#[test]
fn upstream_package_exists() {
    let (v, code) = v1("foo", &GEN);
    assert_eq!(code, 0);
    assert_eq!(v["bundle"], "foo.v3.0.0");
    assert_eq!(v["version"], "3.0.0");
    assert_eq!(v["catalog"], "gen");
}

#[test]
fn upstream_versions_and_channels() {
    let cases: [(&[&str], Result<&str, &str>); 10] = [
        (
            &["--version", "4.0.0"],
            Err(r#"no bundles found for package "foo" matching version "4.0.0""#),
        ),
        (&["--version", ">=1.0.0 <2.0.0"], Ok("foo.v1.0.2")),
        (
            &["--channel", "stable"],
            Err(r#"no bundles found for package "foo" in channels [stable]"#),
        ),
        (&["--channel", "beta"], Ok("foo.v1.0.2")),
        (
            &["--channel", "beta", "--version", "3.0.0"],
            Err(
                r#"no bundles found for package "foo" matching version "3.0.0" in channels [beta]"#,
            ),
        ),
        (
            &["--channel", "stable", "--version", "1.0.0"],
            Err(
                r#"no bundles found for package "foo" matching version "1.0.0" in channels [stable]"#,
            ),
        ),
        (
            &["--channel", "alpha", "--version", "0.1.0"],
            Ok("foo.v0.1.0"),
        ),
        // TestPreferNonDeprecated: 1.0.0 is deprecated, 0.1.0 is not.
        (&["--version", ">=0.1.0 <=1.0.0"], Ok("foo.v0.1.0")),
        // TestAcceptDeprecated: both matches are deprecated, the higher wins.
        (&["--version", ">=1.0.0 <=1.0.1"], Ok("foo.v1.0.1")),
        // TestMultipleChannels.
        (
            &["--channel", "beta", "--channel", "alpha"],
            Ok("foo.v2.0.0"),
        ),
    ];
    for (args, want) in cases {
        let args = [&GEN[..], args].concat();
        let got = pick("foo", &args);
        assert_eq!(got.as_deref().map_err(String::as_str), want, "{args:?}");
    }
}

#[test]
fn upstream_package_variations_between_catalogs() {
    let cats = [
        "@empty",
        "@variations/b",
        "@variations/c",
        "@variations/d",
        "@variations/e",
        "@variations/f",
    ];
    let run = |range: &str| pick("foo", &[&cats[..], &["--version", range]].concat());
    // Deprecated in all but one catalog: the only non-deprecated pick.
    assert_eq!(run(">=1.0.0 <=1.0.3"), Ok("foo.v1.0.2".into()));
    // Deprecated in several catalogs: no choice.
    assert_eq!(
        run(">=1.0.0 <=1.0.1"),
        Err(r#"found bundles for package "foo" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [b c]"#.into())
    );
    // Not deprecated in several catalogs: no choice either.
    assert_eq!(
        run(">=1.0.0 <=1.0.4"),
        Err(r#"found bundles for package "foo" matching version ">=1.0.0 <=1.0.4" in multiple catalogs with the same priority [d f]"#.into())
    );
    // All candidates from one catalog: the highest.
    assert_eq!(run(">=1.0.4 <=1.0.5"), Ok("foo.v1.0.5".into()));
    let (v, _) = v1(
        "foo",
        &[&cats[..], &["--version", ">=1.0.0 <=1.0.3"]].concat(),
    );
    let e = candidate(&v, "foo.v1.0.3");
    assert_eq!(e["outcome"], "deprecated");
    assert_eq!(e["catalog"], "e");
}

#[test]
fn upstream_upgrades_and_downgrades() {
    // TestUpgradeFoundLegacy: 0.1.0 -> 1.0.2 (not allowed by semver rules; legacy edges).
    let (v, _) = v1("foo", &[&GEN[..], &["--installed", "foo.v0.1.0"]].concat());
    assert_eq!(v["bundle"], "foo.v1.0.2");
    assert_eq!(v["successor"]["moves"], true);
    assert_eq!(
        survivors(&v),
        ["foo.v0.1.0", "foo.v1.0.0", "foo.v1.0.1", "foo.v1.0.2"]
    );
    // TestUpgradeNotFoundLegacy.
    assert_eq!(
        pick("foo", &[&GEN[..], &["--installed", "foo.v0.1.0", "--version", "<1.0.0 >=2.0.0"]].concat()),
        Err(r#"error upgrading from currently installed version "0.1.0": no bundles found for package "foo" matching version "<1.0.0 >=2.0.0""#.into())
    );
    // TestDowngradeFound: SelfCertified allows 1.0.2 -> 0.1.0 (1.0.0 and 1.0.1 deprecated).
    let self_certified = ["--upgrade-constraint-policy", "SelfCertified"];
    assert_eq!(
        pick(
            "foo",
            &[
                &GEN[..],
                &self_certified,
                &["--installed", "foo.v1.0.2", "--version", "<1.0.2"]
            ]
            .concat()
        ),
        Ok("foo.v0.1.0".into())
    );
    // TestDowngradeNotFound.
    assert_eq!(
        pick("foo", &[&GEN[..], &self_certified, &["--installed", "foo.v1.0.2", "--version", ">0.1.0 <1.0.0"]].concat()),
        Err(r#"error upgrading from currently installed version "1.0.2": no bundles found for package "foo" matching version ">0.1.0 <1.0.0""#.into())
    );
}

#[test]
fn upstream_priority() {
    // TestUnequalPriority: the higher priority wins with the older version.
    let (v, _) = v1(
        "foo",
        &[
            "@priority/a",
            "--priority",
            "1",
            "@priority/b",
            "--priority",
            "0",
        ],
    );
    assert_eq!(v["bundle"], "foo.v1.0.0");
    assert_eq!(v["version"], "1.0.0");
    let b = candidate(&v, "foo.v1.1.0");
    assert_eq!(b["outcome"], "lower-priority");
    assert_eq!(
        b["reason"],
        "catalog b has priority 0, below catalog a's 1 (OLM v1 never compares versions across catalogs)"
    );
    // TestMultiplePriority: priorities 1, 0, 1: the top two tie, and every remaining catalog
    // (the one of priority 0 too) is named.
    let args = [
        "@gen",
        "--priority",
        "1",
        "@gen",
        "--priority",
        "0",
        "@gen",
        "--priority",
        "1",
        "--version",
        ">=1.0.0 <=1.0.1",
    ];
    assert_eq!(
        pick("foo", &args),
        Err(r#"found bundles for package "foo" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [gen gen-2 gen-3]"#.into())
    );
}

// --- operator-controller catalogmetadata/filter/successors_test.go ------------------------

#[test]
fn upstream_successors_predicate() {
    let cases: [(&str, &[&str], Option<&str>); 4] = [
        // respect replaces directive from catalog
        (
            "test-package.v2.0.0",
            &["test-package.v2.0.0", "test-package.v2.1.0"],
            Some("replaces test-package.v2.0.0"),
        ),
        // respect skips directive from catalog
        (
            "test-package.v2.2.1",
            &["test-package.v2.2.1", "test-package.v2.3.0"],
            Some("skips test-package.v2.2.1"),
        ),
        // respect skipRange directive from catalog
        (
            "test-package.v2.3.0",
            &["test-package.v2.3.0", "test-package.v2.4.0"],
            Some(r#"skipRange ">=2.3.0 <2.4.0""#),
        ),
        // installed bundle matcher is exact: 2.1.0 replaces 2.0.0, not 2.0.0+1
        (
            "test-package.v2.0.0+1",
            &["test-package.v2.0.0+1", "test-package.v2.2.0"],
            Some("skips test-package.v2.0.0+1"),
        ),
    ];
    for (installed, want, edge) in cases {
        let (v, code) = v1("test-package", &["@successors", "--installed", installed]);
        assert_eq!(code, 0, "{v:#}");
        assert_eq!(survivors(&v), want, "{installed}");
        assert_eq!(v["successor"]["moves"], true);
        assert_eq!(
            v["successor"]["via"][0]["edge"].as_str(),
            edge,
            "{installed}"
        );
        assert_eq!(v["successor"]["via"][0]["channel"], "stable");
    }
    let (v, _) = v1(
        "test-package",
        &["@successors", "--installed", "test-package.v2.0.0+1"],
    );
    assert_eq!(v["installed"]["version"], "2.0.0+1");
    // installed bundle not found
    assert_eq!(
        pick("test-package", &["@successors", "--installed", "test-package.v9.0.0@9.0.0"]),
        Err(r#"error upgrading from currently installed version "9.0.0": no bundles found for package "test-package""#.into())
    );
}

#[test]
fn upstream_legacy_successor_with_the_installed_bundle_gone() {
    // TestLegacySuccessor: 0.0.2 replaces, 0.0.4 skips, 0.0.5 skipRange "<=0.0.1"; 0.0.3 only
    // replaces 0.0.2. The installed package1.v0.0.1 is not in the catalog (spec §3.3).
    let (v, code) = v1(
        "package1",
        &["@legacy", "--installed", "package1.v0.0.1@0.0.1"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        survivors(&v),
        ["package1.v0.0.2", "package1.v0.0.4", "package1.v0.0.5"]
    );
    assert_eq!(
        candidate(&v, "package1.v0.0.3")["outcome"],
        "not-a-successor"
    );
    assert_eq!(v["bundle"], "package1.v0.0.5");
    assert_eq!(v["successor"]["via"][0]["edge"], r#"skipRange "<=0.0.1""#);
    assert_eq!(v["installed"]["catalogs"], serde_json::json!([]));
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("package1.v0.0.1 is in none of the catalogs"),
        "{notes}"
    );
}

#[test]
fn upstream_invalid_installed_version_is_a_usage_error() {
    let out = olmlint(&[
        "test",
        "--target",
        "olmv1",
        "--catalog",
        &format!("{DIR}/legacy"),
        "--installed",
        "test@invalid",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"invalid\" is not a version"), "{err}");
}

// --- our own vectors ---------------------------------------------------------------------

#[test]
fn a_prerelease_outside_the_default_channel_wins() {
    // defaultChannel stable ends at 1.1.0, but OLM v1 never reads it.
    assert_eq!(
        pick("foo", &["@prerelease"]),
        Ok("foo.v1.2.0-alpha.1".into())
    );
    assert_eq!(
        pick("foo", &["@prerelease", "--channel", "stable"]),
        Ok("foo.v1.1.0".into())
    );
    // A range without a prerelease comparator never matches a prerelease.
    let (v, _) = v1("foo", &["@prerelease", "--version", ">=1.0.0"]);
    assert_eq!(v["bundle"], "foo.v1.1.0");
    let alpha = candidate(&v, "foo.v1.2.0-alpha.1");
    assert_eq!(alpha["outcome"], "out-of-range");
    assert_eq!(
        alpha["reason"],
        r#"version 1.2.0-alpha.1 does not match ">=1.0.0": "1.2.0-alpha.1" is a prerelease version and the constraint is only looking for release versions"#
    );
    assert_eq!(
        pick("foo", &["@prerelease", "--version", ">=1.2.0-0"]),
        Ok("foo.v1.2.0-alpha.1".into())
    );
}

#[test]
fn build_metadata_ties_are_decided_by_file_order() {
    // 1.0.0+001 is no release (leading zero): its build metadata is ignored, a tie with 1.0.0.
    let (v, _) = v1("foo", &["@build-tie"]);
    // foo.v1.0.0-build1.json sorts before foo.v1.0.0.json ('-' < '.').
    assert_eq!(v["bundle"], "foo.v1.0.0-build1");
    assert_eq!(v["version"], "1.0.0+001");
    let chosen = candidate(&v, "foo.v1.0.0-build1")["reason"]
        .as_str()
        .unwrap();
    assert!(chosen.contains("not deterministic"), "{chosen}");
    let other = candidate(&v, "foo.v1.0.0");
    assert_eq!(other["outcome"], "outranked");
    assert!(other["reason"]
        .as_str()
        .unwrap()
        .starts_with("same version and release as foo.v1.0.0-build1"));
    // A build metadata that is a release ranks: 1.0.0+2 > 1.0.0+1 > 1.0.0.
    let (v, _) = v1("foo", &["@release"]);
    assert_eq!(v["bundle"], "foo.v1.0.0-r2");
    assert_eq!(v["version"], "1.0.0+2");
    assert_eq!(
        candidate(&v, "foo.v1.0.0-r1")["reason"],
        "lower version than foo.v1.0.0-r2 (1.0.0+1 < 1.0.0+2)"
    );
}

#[test]
fn deprecated_bundles_rank_last() {
    let (v, _) = v1("foo", &["@deprecated"]);
    assert_eq!(v["bundle"], "foo.v1.5.0");
    let head = candidate(&v, "foo.v2.0.0");
    assert_eq!(head["outcome"], "deprecated");
    assert_eq!(
        head["reason"],
        "deprecated, and foo.v1.5.0 is not: OLM v1 ranks deprecated bundles last"
    );
    // From the (deprecated) 1.0.0 both 1.5.0 (replaces) and 2.0.0 (skips) are successors;
    // the non-deprecated one wins although it is lower.
    let (v, _) = v1("foo", &["@deprecated", "--installed", "foo.v1.0.0"]);
    assert_eq!(v["bundle"], "foo.v1.5.0");
    assert_eq!(survivors(&v), ["foo.v1.0.0", "foo.v1.5.0", "foo.v2.0.0"]);
    // Pinned to the deprecated head, it is the only match and is chosen.
    assert_eq!(
        pick("foo", &["@deprecated", "--version", "2.x"]),
        Ok("foo.v2.0.0".into())
    );
}

#[test]
fn priority_and_ambiguity_across_catalogs() {
    assert_eq!(
        pick("foo", &["@gen", "@gen"]),
        Err(r#"found bundles for package "foo" in multiple catalogs with the same priority [gen gen-2]"#.into())
    );
    let (v, _) = v1("foo", &["@gen", "@gen"]);
    assert_eq!(candidate(&v, "foo.v3.0.0")["outcome"], "ambiguous");
    assert_eq!(
        v["condition"],
        r#"failed to resolve bundle: found bundles for package "foo" in multiple catalogs with the same priority [gen gen-2]"#
    );
    // The higher priority wins, whatever the versions.
    let (v, _) = v1(
        "foo",
        &[
            "@priority/a",
            "--priority",
            "0",
            "@priority/b",
            "--priority",
            "5",
        ],
    );
    assert_eq!(
        (v["bundle"].as_str(), v["catalog"].as_str()),
        (Some("foo.v1.1.0"), Some("b"))
    );
    let (v, _) = v1(
        "foo",
        &[
            "@priority/a",
            "--priority",
            "-100",
            "@priority/b",
            "--priority",
            "-400",
        ],
    );
    assert_eq!(v["bundle"], "foo.v1.0.0");
}

#[test]
fn successors_come_from_any_channel_and_the_highest_wins() {
    let (v, _) = v1("foo", &["@cross-channel", "--installed", "foo.v1.0.0"]);
    assert_eq!(v["bundle"], "foo.v2.0.0");
    assert_eq!(
        v["successor"]["via"],
        serde_json::json!([{"channel": "fast", "edge": "skipRange \"<2.0.0\""}])
    );
    assert_eq!(survivors(&v), ["foo.v1.0.0", "foo.v1.1.0", "foo.v2.0.0"]);
    // Naming a channel limits the edges to it.
    let (v, _) = v1(
        "foo",
        &[
            "@cross-channel",
            "--installed",
            "foo.v1.0.0",
            "--channel",
            "stable",
        ],
    );
    assert_eq!(v["bundle"], "foo.v1.1.0");
    assert_eq!(v["successor"]["via"][0]["edge"], "replaces foo.v1.0.0");
    // A bare version: the name is unknown, so only the skipRange (and 1.0.0 itself) count.
    let (v, _) = v1(
        "foo",
        &[
            "@cross-channel",
            "--installed",
            "1.0.0",
            "--channel",
            "stable",
        ],
    );
    assert_eq!(v["bundle"], "foo.v1.0.0");
    assert_eq!(v["successor"]["moves"], false);
    assert_eq!(v["installed"]["name"], Value::Null);
    assert!(v["notes"][0]
        .as_str()
        .unwrap()
        .contains("the installed bundle's name is unknown"));
}

#[test]
fn v1_edges_differ_from_v0() {
    // 3.0.0 skips 2.0.0, 2.0.0 skipRange ">=1.0.0 <2.0.0": from 1.0.0 OLM v1 moves to 2.0.0.
    let (v, _) = v1("foo", &["@v0-differs", "--installed", "foo.v1.0.0"]);
    assert_eq!(v["bundle"], "foo.v2.0.0");
    assert_eq!(candidate(&v, "foo.v3.0.0")["outcome"], "not-a-successor");
    // OLM v0 follows the replaces chain, which 2.0.0 is not on (3.0.0 skips it): it stays.
    let out = olmlint(&[
        "foo",
        "--catalog",
        &format!("{DIR}/v0-differs"),
        "--installed",
        "foo.v1.0.0",
        "-f",
        "json",
    ]);
    let v0: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v0["bundle"], "foo.v1.0.0");
    // A skipRange blang refuses (a comma) is ignored: 1.0.0 stays.
    let (v, _) = v1("foo", &["@comma-range", "--installed", "foo.v1.0.0"]);
    assert_eq!(v["bundle"], "foo.v1.0.0");
    assert_eq!(v["successor"]["moves"], false);
    assert_eq!(candidate(&v, "foo.v2.0.0")["outcome"], "not-a-successor");
}

#[test]
fn self_certified_downgrades_and_catalog_provided_does_not() {
    let args = ["@gen", "--installed", "foo.v2.0.0", "--version", "<2.0.0"];
    let (v, _) = v1(
        "foo",
        &[&args[..], &["--upgrade-constraint-policy", "SelfCertified"]].concat(),
    );
    assert_eq!(v["bundle"], "foo.v1.0.2");
    assert_eq!(v["successor"]["moves"], true);
    assert_eq!(v["successor"]["via"], serde_json::json!([]));
    assert_eq!(
        pick("foo", &args),
        Err(r#"error upgrading from currently installed version "2.0.0": no bundles found for package "foo" matching version "<2.0.0""#.into())
    );
    // Under SelfCertified the highest match may be the installed version itself.
    let (v, _) = v1(
        "foo",
        &[
            "@gen",
            "--installed",
            "foo.v3.0.0",
            "--upgrade-constraint-policy",
            "SelfCertified",
        ],
    );
    assert_eq!(v["bundle"], "foo.v3.0.0");
    assert_eq!(v["successor"]["moves"], false);
}

#[test]
fn an_installed_bundle_without_successor_is_stranded() {
    let (v, code) = v1("foo", &["@v0-differs", "--installed", "foo.v0.9.0@0.9.0"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["explanation"],
        r#"error upgrading from currently installed version "0.9.0": no bundles found for package "foo""#
    );
    assert_eq!(
        v["condition"],
        r#"failed to resolve bundle, retrying: error upgrading from currently installed version "0.9.0": no bundles found for package "foo""#
    );
    let (v, _) = v1(
        "foo",
        &[
            "@v0-differs",
            "--installed",
            "foo.v0.9.0@0.9.0",
            "--version",
            "2.0.0",
        ],
    );
    assert_eq!(
        v["condition"],
        r#"unable to upgrade to version 2.0.0: error upgrading from currently installed version "0.9.0": no bundles found for package "foo" matching version "2.0.0" (currently installed: 0.9.0)"#
    );
}

#[test]
fn a_dependency_refuses_the_chosen_bundle_without_fallback() {
    let (v, code) = v1("foo", &["@dependency"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["explanation"],
        r#"validating bundle "foo.v1.1.0": bundle "foo.v1.1.0" has a dependency declared via property "olm.gvk.required" which is currently not supported"#
    );
    assert_eq!(candidate(&v, "foo.v1.1.0")["outcome"], "refused");
    assert_eq!(candidate(&v, "foo.v1.0.0")["outcome"], "outranked");
}

#[test]
fn what_the_api_server_refuses_is_noted() {
    let (v, _) = v1(
        "foo",
        &[
            "@gen",
            "--channel",
            "Stable_V1",
            "--version",
            "1.0.0 - 1.0.2",
        ],
    );
    // Masterminds reads the hyphen range; the CRD's CEL rule refuses it.
    assert_eq!(v["bundle"], Value::Null);
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        notes,
        [
            r#"the API server refuses such a ClusterExtension: spec.source.catalog.channels[0]: Invalid value: "Stable_V1": channels entries must be valid DNS1123 subdomains"#,
            r#"the API server refuses such a ClusterExtension: spec.source.catalog.version: Invalid value: "1.0.0 - 1.0.2": invalid version expression"#,
        ]
    );
    let (v, _) = v1("foo", &["@gen", "--version", "1.0.0 - 1.0.2"]);
    assert_eq!(v["bundle"], "foo.v1.0.2");
    for ok in [
        ">=1.0.0 <2.0.0",
        "~1.0",
        "1.x",
        "^1.0.1",
        ">= 1.0.0, < 1.0.2 || 3.0.0",
    ] {
        let (v, _) = v1("foo", &["@gen", "--version", ok]);
        assert_eq!(v["notes"], serde_json::json!([]), "{ok}");
    }
}

#[test]
fn usage_errors() {
    let gen = format!("{DIR}/gen");
    for args in [
        vec!["foo", "--target", "olmv2", "--catalog", &gen],
        vec!["foo", "--target", "v0,olmv1", "--catalog", &gen],
        vec!["foo@foo.v1.0.0", "--target", "olmv1", "--catalog", &gen],
        vec![
            "foo",
            "--target",
            "olmv1",
            "--catalog",
            &gen,
            "--installed",
            "a",
            "--installed",
            "b",
        ],
        vec![
            "foo",
            "--target",
            "olmv1",
            "--catalog",
            &gen,
            "--installed",
            "nonsense",
        ],
        vec![
            "foo",
            "--target",
            "olmv1",
            "--catalog",
            &gen,
            "--also-subscribe",
            "bar",
        ],
        vec!["foo", "--catalog", &gen, "--version", "1.0.0"],
        vec!["foo", "--catalog", &gen, "--channel", "a", "--channel", "b"],
        vec![
            "foo",
            "--target",
            "v0",
            "--catalog",
            &gen,
            "--upgrade-constraint-policy",
            "SelfCertified",
        ],
        vec![
            "foo",
            "--target",
            "olmv1",
            "--catalog",
            &gen,
            "--priority",
            "3000000000",
        ],
    ] {
        let out = olmlint(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    // --target v0 is the OLM v0 command, unchanged.
    let out = olmlint(&["foo", "--target", "v0", "--catalog", &gen, "-f", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["installable"], true);
}

#[test]
fn output_contracts() {
    let (v, _) = v1("foo", &["@cross-channel", "--installed", "foo.v1.0.0"]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "bundle",
            "candidates",
            "catalog",
            "condition",
            "explanation",
            "installed",
            "notes",
            "package",
            "successor",
            "target",
            "version"
        ]
    );
    let c = candidate(&v, "foo.v1.1.0");
    let ckeys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(ckeys, ["bundle", "catalog", "outcome", "reason", "version"]);
    assert_eq!(c["outcome"], "outranked");
    assert_eq!(c["reason"], "lower version than foo.v2.0.0 (1.1.0 < 2.0.0)");
    // Human output: the choice, the move, every candidate with its reason, 100 columns.
    let out = olmlint(&[
        "foo",
        "--target",
        "olmv1",
        "--catalog",
        &format!("{DIR}/cross-channel"),
        "--installed",
        "foo.v1.0.0",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "foo: OLM v1 installs foo.v2.0.0 (version 2.0.0) from catalog cross-channel\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  From foo.v1.0.0: it moves to foo.v2.0.0 (skipRange \"<2.0.0\" in channel fast)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  - foo.v1.1.0 1.1.0 [cross-channel] outranked: lower version than foo.v2.0.0"
        ),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert!(!text.contains(env!("CARGO_MANIFEST_DIR")), "{text}");
    // When nothing is chosen: OLM v1's message and the condition.
    let out = olmlint(&[
        "foo",
        "--target",
        "olmv1",
        "--catalog",
        &format!("{DIR}/gen"),
        "--channel",
        "stable",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("foo: OLM v1 installs nothing\n  OLM v1 reports: no bundles found for package \"foo\" in channels [stable]\n"), "{text}");
}
