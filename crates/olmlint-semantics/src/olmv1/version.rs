//! A bundle's version and release as OLM v1 reads and orders them (olmv1 spec §2.4, §3.2).
//!
//! - `bundleutil.GetVersionAndRelease` (operator-controller v1.11): the first `olm.package`
//!   property's `version`, parsed with blang. With the `BundleReleaseSupport` gate off (the
//!   default), build metadata that is a valid release (`1.0.0+2`, `1.0.0+git.abc`) becomes the
//!   release and is dropped from the version (`ParseLegacyVersionRelease`); with the gate on, an
//!   explicit `release` field is used instead (`ParseExplicitRelease`, build metadata kept).
//! - `declcfg.NewRelease` and `Release.Compare` (operator-registry v1.73
//!   `alpha/model/versionrelease.go`): dot-separated prerelease identifiers, at most 20
//!   characters; no release sorts below any release.
//! - `compare.ByVersionAndRelease`: version precedence (build ignored), then release; highest
//!   first, bundles without a usable version last.
//! - `filter.InSemverRange`: the range is checked against the version without the release.

use crate::mmsemver;
use crate::version::{check_prerelease_id, cmp, go_quote, parse_strict};
use semver::{BuildMetadata, Prerelease, Version};
use serde_json::Value;
use std::cmp::Ordering;
use std::fmt;

/// `versionReleaseMaxLength`, the CSV CRD's limit on a release.
const RELEASE_MAX_LENGTH: usize = 20;

/// A release: dot-separated prerelease identifiers (`2`, `git.abc`), possibly empty (an
/// explicit `release: ""` with `BundleReleaseSupport` on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release(Prerelease);

impl Release {
    /// `NewRelease`: `""` is no release (`Ok(None)`).
    ///
    /// # Errors
    /// operator-registry's texts, e.g. `invalid release "001": segment 0: Numeric PreRelease
    /// version must not contain leading zeroes "001"` (one `segment N: …` line per bad
    /// identifier) or `invalid release "…": exceeds maximum length of 20 characters`.
    pub fn parse(s: &str) -> Result<Option<Release>, String> {
        if s.is_empty() {
            return Ok(None);
        }
        if s.len() > RELEASE_MAX_LENGTH {
            return Err(format!(
                "invalid release {}: exceeds maximum length of {RELEASE_MAX_LENGTH} characters",
                go_quote(s)
            ));
        }
        let errors: Vec<String> = s
            .split('.')
            .enumerate()
            .filter_map(|(i, id)| {
                check_prerelease_id(id)
                    .err()
                    .map(|e| format!("segment {i}: {e}"))
            })
            .collect();
        if !errors.is_empty() {
            return Err(format!(
                "invalid release {}: {}",
                go_quote(s),
                errors.join("\n")
            ));
        }
        Prerelease::new(s)
            .map(|p| Some(Release(p)))
            .map_err(|e| format!("invalid release {}: {e}", go_quote(s)))
    }

    /// The explicit empty release.
    pub fn empty() -> Release {
        Release(Prerelease::EMPTY)
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Release.Compare`: none (or empty) is below any release; otherwise identifier by
    /// identifier as semver prereleases (numbers below words, a longer list higher).
    pub fn compare(a: Option<&Release>, b: Option<&Release>) -> Ordering {
        let a = a.filter(|r| !r.is_empty());
        let b = b.filter(|r| !r.is_empty());
        match (a, b) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => a.0.cmp(&b.0),
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `declcfg.VersionRelease`: a bundle's version (blang-parsed) and release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRelease {
    pub version: Version,
    pub release: Option<Release>,
}

/// OLM v1's version and release of a bundle from its `olm.package` `version` and `release`
/// fields (`release`: `None` when the field is absent or null), as `GetVersionAndRelease` reads
/// them under the `BundleReleaseSupport` gate.
///
/// # Errors
/// Upstream's texts: blang's for a bad version in legacy mode (`No Major.Minor.Patch elements
/// found`); with an explicit release, `error parsing version "…": …` or `error parsing release
/// "…": invalid release "…": …`.
pub fn from_bundle(
    version: &str,
    release: Option<&str>,
    bundle_release_support: bool,
) -> Result<VersionRelease, String> {
    match release {
        Some(release) if bundle_release_support => parse_explicit(version, release),
        _ => parse_legacy(version),
    }
}

/// `ParseLegacyVersionRelease`: build metadata that is a valid release becomes the release.
///
/// # Errors
/// blang's text for an unparseable version.
pub fn parse_legacy(version: &str) -> Result<VersionRelease, String> {
    let mut v = parse_strict(version)?;
    let release = match Release::parse(v.build.as_str()) {
        Ok(Some(r)) => {
            v.build = BuildMetadata::EMPTY;
            Some(r)
        }
        _ => None,
    };
    Ok(VersionRelease {
        version: v,
        release,
    })
}

/// `ParseExplicitRelease`: the version as written (build metadata kept) and the release field
/// (`""` is an explicit empty release).
///
/// # Errors
/// `error parsing version "…": …` or `error parsing release "…": …`.
pub fn parse_explicit(version: &str, release: &str) -> Result<VersionRelease, String> {
    let v = parse_strict(version)
        .map_err(|e| format!("error parsing version {}: {e}", go_quote(version)))?;
    let release = if release.is_empty() {
        Release::empty()
    } else {
        Release::parse(release)
            .map_err(|e| format!("error parsing release {}: {e}", go_quote(release)))?
            .unwrap_or_else(Release::empty)
    };
    Ok(VersionRelease {
        version: v,
        release: Some(release),
    })
}

/// `parseInstalledBundleVersionRelease`: the installed bundle's identity from a
/// ClusterExtension's status (`version`, and `release` when the status has one).
///
/// # Errors
/// `failed to get version and release of installed bundle: …` or `failed to parse installed
/// bundle version and release: …`.
pub fn from_installed(version: &str, release: Option<&str>) -> Result<VersionRelease, String> {
    match release {
        None => parse_legacy(version)
            .map_err(|e| format!("failed to get version and release of installed bundle: {e}")),
        Some(r) => parse_explicit(version, r)
            .map_err(|e| format!("failed to parse installed bundle version and release: {e}")),
    }
}

/// `GetVersionAndRelease` on a bundle: `package` is the value of its first `olm.package`
/// property (`None`: it has none). The property is read as Go's `encoding/json` reads it into
/// `property.Package` (field names case-insensitively, a null field left empty, a non-string
/// one an error); when several keys differ only in case, the exactly-spelled one is taken
/// (Go takes the last in the document, whose order a JSON value does not keep).
///
/// # Errors
/// `no package property found in bundle "…"`, `error unmarshalling package property: json:
/// cannot unmarshal …`, or [`from_bundle`]'s.
pub fn get_version_and_release(
    bundle_name: &str,
    package: Option<&Value>,
    bundle_release_support: bool,
) -> Result<VersionRelease, String> {
    let Some(value) = package else {
        return Err(format!(
            "no package property found in bundle {}",
            go_quote(bundle_name)
        ));
    };
    let (version, release) =
        package_fields(value).map_err(|e| format!("error unmarshalling package property: {e}"))?;
    from_bundle(&version, release.as_deref(), bundle_release_support)
}

/// `version` and `release` of an `olm.package` value, or Go's unmarshalling error.
fn package_fields(value: &Value) -> Result<(String, Option<String>), String> {
    let obj = match value {
        Value::Null => return Ok((String::new(), None)),
        Value::Object(obj) => obj,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type property.Package",
                json_kind(other)
            ))
        }
    };
    let field = |name: &str| -> Result<Option<String>, String> {
        let v = obj.get(name).or_else(|| {
            obj.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        });
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "json: cannot unmarshal {} into Go struct field Package.{name} of type string",
                json_kind(other)
            )),
        }
    };
    field("packageName")?;
    let release = field("release")?;
    let version = field("version")?.unwrap_or_default();
    Ok((version, release))
}

/// The JSON kind as Go's `UnmarshalTypeError` names it.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl VersionRelease {
    /// `VersionRelease.Compare`, ascending: version precedence (build metadata ignored), then
    /// [`Release::compare`]. OLM v1 ranks bundles by it descending
    /// ([`by_version_and_release`]).
    pub fn compare(&self, other: &VersionRelease) -> Ordering {
        cmp(&self.version, &other.version)
            .then_with(|| Release::compare(self.release.as_ref(), other.release.as_ref()))
    }

    /// The version `filter.InSemverRange` checks a `spec.version` range against: the blang
    /// version (prerelease and any build metadata that did not become the release) as
    /// Masterminds' `New` builds it; the release is not part of it.
    pub fn to_mm(&self) -> mmsemver::Version {
        let v = &self.version;
        mmsemver::Version::new(v.major, v.minor, v.patch, v.pre.as_str(), v.build.as_str())
    }

    /// Whether OLM v1 cannot tell the two apart: `ByVersionAndRelease` (and
    /// `ExactVersionRelease`) compare them equal, i.e. the same precedence and the same release.
    /// Build metadata that did not become a release is ignored, so `1.0.0` and `1.0.0+001` tie
    /// (`001` is no valid release), while `1.0.0` and `1.0.0+2` do not. Which of two tied bundles
    /// wins depends on the order the catalog's files were parsed in.
    pub fn same_modulo_build(&self, other: &VersionRelease) -> bool {
        self.compare(other) == Ordering::Equal
    }

    /// `MetadataFor`: the `version` and `release` OLM v1 records for the installed bundle.
    /// Gate off: the legacy version (release as build metadata, [`fmt::Display`]) and no release;
    /// gate on: the version as parsed and the release when there is one (even empty).
    pub fn bundle_metadata(&self, bundle_release_support: bool) -> (String, Option<String>) {
        if bundle_release_support {
            (
                self.version.to_string(),
                self.release.as_ref().map(ToString::to_string),
            )
        } else {
            (self.to_string(), None)
        }
    }
}

impl fmt::Display for VersionRelease {
    /// `asLegacyRegistryV1Version(vr).String()`: the version with the release, when there is a
    /// non-empty one, in place of its build metadata (`1.0.0+2`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.release.as_ref().filter(|r| !r.is_empty()) {
            Some(r) => {
                let v = &self.version;
                write!(f, "{}.{}.{}", v.major, v.minor, v.patch)?;
                if !v.pre.is_empty() {
                    write!(f, "-{}", v.pre)?;
                }
                write!(f, "+{r}")
            }
            None => write!(f, "{}", self.version),
        }
    }
}

/// `compare.ByVersionAndRelease` as a sort order: `Less` when `a` ranks before `b`, i.e.
/// higher version and release first, bundles whose version could not be read (`None`) last
/// and tied among themselves.
pub fn by_version_and_release(a: Option<&VersionRelease>, b: Option<&VersionRelease>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => b.compare(a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vr(version: &str, release: Option<&str>) -> VersionRelease {
        VersionRelease {
            version: parse_strict(version).unwrap_or_else(|e| panic!("{version}: {e}")),
            release: release.map(|r| match Release::parse(r) {
                Ok(Some(r)) => r,
                Ok(None) => Release::empty(),
                Err(e) => panic!("{r}: {e}"),
            }),
        }
    }

    fn legacy(v: &str) -> VersionRelease {
        parse_legacy(v).unwrap_or_else(|e| panic!("{v}: {e}"))
    }

    fn get(value: Option<Value>, gate: bool) -> Result<VersionRelease, String> {
        get_version_and_release("test-bundle", value.as_ref(), gate)
    }

    /// bundleutil `TestGetVersionAndRelease` (gate off, the default).
    #[test]
    fn upstream_get_version_and_release() {
        assert_eq!(
            get(Some(json!({"version": "1.0.0-pre+1.alpha.2"})), false),
            Ok(vr("1.0.0-pre", Some("1.alpha.2")))
        );
        assert_eq!(
            get(Some(json!({"version": "abcd"})), false),
            Err("No Major.Minor.Patch elements found".to_string())
        );
        // Invalid release: build metadata with leading zeros stays build metadata.
        assert_eq!(
            get(Some(json!({"version": "1.0.0+001"})), false),
            Ok(vr("1.0.0+001", None))
        );
        // "invalid json" (`abcd` as the value): not JSON, so no serde value; the nearest, a
        // value that is not an object, fails the same way.
        assert_eq!(
            get(Some(json!("abcd")), false),
            Err("error unmarshalling package property: json: cannot unmarshal string into Go value of type property.Package".to_string())
        );
        assert_eq!(
            get(None, false),
            Err(r#"no package property found in bundle "test-bundle""#.to_string())
        );
    }

    /// bundleutil `TestGetVersionAndRelease_WithBundleReleaseSupport`.
    #[test]
    fn upstream_bundle_release_support() {
        // Gate on: the explicit release wins, build metadata is kept.
        assert_eq!(
            get(
                Some(json!({"version": "1.0.0+ignored", "release": "2"})),
                true
            ),
            Ok(vr("1.0.0+ignored", Some("2")))
        );
        assert_eq!(
            get(
                Some(json!({"version": "2.1.0", "release": "1.alpha.3"})),
                true
            ),
            Ok(vr("2.1.0", Some("1.alpha.3")))
        );
        assert_eq!(
            get(Some(json!({"version": "1.0.0", "release": "001"})), true),
            Err(r#"error parsing release "001": invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001""#.to_string())
        );
        let explicit_empty = get(Some(json!({"version": "1.0.0+2", "release": ""})), true);
        assert_eq!(explicit_empty, Ok(vr("1.0.0+2", Some(""))));
        // Gate off: the release field is ignored, build metadata is the release.
        assert_eq!(
            get(Some(json!({"version": "1.0.0+2", "release": "999"})), false),
            Ok(vr("1.0.0", Some("2")))
        );
    }

    /// bundleutil `TestGetVersionAndRelease_Errors`.
    #[test]
    fn upstream_get_version_and_release_errors() {
        // "invalid JSON for release field detection" (`"release": invalid`): not JSON; a
        // release that is not a string is the unmarshalling error it stands for.
        let e = get(Some(json!({"version": "1.0.0", "release": 7})), true).err();
        assert_eq!(
            e.as_deref(),
            Some("error unmarshalling package property: json: cannot unmarshal number into Go struct field Package.release of type string")
        );
        let e = get(
            Some(json!({"version": "not-a-version", "release": "1"})),
            true,
        )
        .err();
        assert_eq!(
            e.as_deref(),
            Some(r#"error parsing version "not-a-version": No Major.Minor.Patch elements found"#)
        );
    }

    /// Go `encoding/json` details of reading `olm.package`.
    #[test]
    fn package_property_as_go_reads_it() {
        // Field names match case-insensitively.
        assert_eq!(
            get(Some(json!({"Version": "1.0.0+2"})), false),
            Ok(vr("1.0.0", Some("2")))
        );
        // A null release is no release (the explicit path is not taken).
        assert_eq!(
            get(Some(json!({"version": "1.0.0+2", "release": null})), true),
            Ok(vr("1.0.0", Some("2")))
        );
        // A missing or null version is the empty string.
        assert_eq!(
            get(Some(json!({"packageName": "p"})), false),
            Err("Version string empty".to_string())
        );
        assert_eq!(
            get(Some(Value::Null), false),
            Err("Version string empty".to_string())
        );
        assert_eq!(
            get(Some(json!({"packageName": 1, "version": "1.0.0"})), false).err().as_deref(),
            Some("error unmarshalling package property: json: cannot unmarshal number into Go struct field Package.packageName of type string")
        );
        assert_eq!(
            get(Some(json!([])), false).err().as_deref(),
            Some("error unmarshalling package property: json: cannot unmarshal array into Go value of type property.Package")
        );
    }

    /// bundleutil `TestMetadataFor`.
    #[test]
    fn upstream_metadata_for() {
        let meta = |v: &VersionRelease, gate| v.bundle_metadata(gate);
        let with = vr("1.0.0", Some("2"));
        let without = vr("1.0.0", None);
        let empty = vr("1.0.0", Some(""));
        assert_eq!(meta(&with, true), ("1.0.0".into(), Some("2".into())));
        assert_eq!(meta(&without, true), ("1.0.0".into(), None));
        assert_eq!(meta(&empty, true), ("1.0.0".into(), Some(String::new())));
        assert_eq!(meta(&with, false), ("1.0.0+2".into(), None));
        assert_eq!(meta(&without, false), ("1.0.0".into(), None));
        assert_eq!(with.to_string(), "1.0.0+2");
        assert_eq!(
            vr("1.0.0-rc.1+b", Some("git.abc")).to_string(),
            "1.0.0-rc.1+git.abc"
        );
        assert_eq!(vr("1.0.0+git", Some("")).to_string(), "1.0.0+git");
        assert_eq!(legacy("1.0.0+001").to_string(), "1.0.0+001");
    }

    /// compare `TestNewVersionRange`: the range applies to the version, build ignored.
    #[test]
    fn upstream_new_version_range() {
        let in_range = |range: &str, v: &str| {
            let c = mmsemver::Constraints::parse(range).unwrap_or_else(|e| panic!("{e}"));
            c.check(&legacy(v).to_mm())
        };
        assert!(in_range("1.0.0+1", "1.0.0"));
        assert!(in_range("1.0.0+1", "1.0.0+2"));
        assert!(in_range("1.0.0+1", "1.0.0+1"));
        assert!(in_range("1.0.0", "1.0.0"));
        assert!(in_range("1.0.0", "1.0.0+1"));
        assert!(mmsemver::Constraints::parse("not-a-valid-version").is_err());
        assert!(!in_range(">=2.0.0", "1.0.0"));
        // filter `TestInSemverRange`: a broken version never matches (it has no VersionRelease).
        assert!(in_range(">=1.0.0", "1.0.0") && !in_range(">=1.0.0", "0.0.1"));
        assert!(parse_legacy("broken").is_err());
        // What the range sees: the build metadata that stayed, not the release.
        assert_eq!(legacy("1.2.3-rc.1+7").to_mm().to_string(), "1.2.3-rc.1");
        assert_eq!(legacy("1.2.3+001").to_mm().to_string(), "1.2.3+001");
        let explicit = parse_explicit("1.2.3+git", "4").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(explicit.to_mm().to_string(), "1.2.3+git");
    }

    /// compare `TestByVersionAndRelease`.
    #[test]
    fn upstream_by_version_and_release() {
        let bundle = |name: &'static str, pkg: Option<Value>| {
            (
                name,
                get_version_and_release(name, pkg.as_ref(), false).ok(),
            )
        };
        let b1 = bundle(
            "package1.v1.0.0",
            Some(json!({"packageName": "package1", "version": "1.0.0"})),
        );
        let b2 = bundle(
            "package1.v0.0.1",
            Some(json!({"packageName": "package1", "version": "0.0.1"})),
        );
        let b3_1 = bundle(
            "package1.v1.0.0-alpha+1",
            Some(json!({"packageName": "package1", "version": "1.0.0-alpha+1"})),
        );
        let b3_2 = bundle(
            "package1.v1.0.0-alpha+2",
            Some(json!({"packageName": "package1", "version": "1.0.0-alpha+2"})),
        );
        let b4 = bundle(
            "package1.no-version",
            Some(json!({"packageName": "package1"})),
        );
        let b5 = bundle("package1.empty", None);
        let sorted = |mut v: Vec<(&'static str, Option<VersionRelease>)>| {
            v.sort_by(|a, b| by_version_and_release(a.1.as_ref(), b.1.as_ref()));
            v.into_iter().map(|(n, _)| n).collect::<Vec<_>>()
        };
        let all = vec![b3_1.clone(), b2.clone(), b3_2.clone(), b1.clone()];
        assert_eq!(sorted(all), [b1.0, b3_2.0, b3_1.0, b2.0]);
        let some = vec![
            b3_1.clone(),
            b4.clone(),
            b2.clone(),
            b3_2.clone(),
            b5.clone(),
            b1.clone(),
        ];
        assert_eq!(sorted(some), [b1.0, b3_2.0, b3_1.0, b2.0, b4.0, b5.0]);
    }

    /// filter `TestSuccessorsPredicate`'s version side: `ExactVersionRelease` of the installed
    /// `2.0.0+1` is `2.0.0+1` only, not `2.0.0`.
    #[test]
    fn upstream_exact_version_release() {
        let installed = from_installed("2.0.0+1", None).unwrap_or_else(|e| panic!("{e}"));
        assert!(installed.same_modulo_build(&legacy("2.0.0+1")));
        assert!(!installed.same_modulo_build(&legacy("2.0.0")));
        let explicit = from_installed("1.0.0+git", Some("")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(explicit, vr("1.0.0+git", Some("")));
        assert!(explicit.same_modulo_build(&legacy("1.0.0")));
        assert_eq!(
            from_installed("1.0.0", Some("2")),
            Ok(vr("1.0.0", Some("2")))
        );
        // `TestParseInstalledBundleVersionRelease_Errors`.
        assert_eq!(
            from_installed("invalid-version", None).err().as_deref(),
            Some("failed to get version and release of installed bundle: No Major.Minor.Patch elements found")
        );
        assert_eq!(
            from_installed("invalid-version", Some("1"))
                .err()
                .as_deref(),
            Some(
                r#"failed to parse installed bundle version and release: error parsing version "invalid-version": No Major.Minor.Patch elements found"#
            )
        );
        assert!(from_installed("1.0.0", Some("001")).err().is_some_and(
            |e| e.starts_with("failed to parse installed bundle version and release: ")
        ));
    }

    /// operator-registry `TestNewRelease`.
    #[test]
    fn upstream_new_release() {
        let ok = |s: &str| Release::parse(s).map(|r| r.map(|r| r.to_string()));
        assert_eq!(ok(""), Ok(None));
        for s in [
            "alpha",
            "1",
            "alpha.1.beta.2",
            "rc-1.beta-2",
            "12345678901234567890",
            "0",
            "0alpha",
        ] {
            assert_eq!(ok(s), Ok(Some(s.to_string())), "{s}");
        }
        let err = |s: &str| Release::parse(s).err().unwrap_or_default();
        assert_eq!(
            err("123456789012345678901"),
            r#"invalid release "123456789012345678901": exceeds maximum length of 20 characters"#
        );
        assert_eq!(
            err("01"),
            r#"invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01""#
        );
        assert_eq!(
            err("001"),
            r#"invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001""#
        );
        assert_eq!(
            err("alpha_beta"),
            r#"invalid release "alpha_beta": segment 0: Invalid character(s) found in prerelease "alpha_beta""#
        );
        // Every bad segment, one per line (errors.Join); a number beyond u64.
        assert_eq!(
            err("01.a..b_"),
            "invalid release \"01.a..b_\": segment 0: Numeric PreRelease version must not contain leading zeroes \"01\"\nsegment 2: Prerelease is empty\nsegment 3: Invalid character(s) found in prerelease \"b_\""
        );
        assert_eq!(
            err("99999999999999999999"),
            r#"invalid release "99999999999999999999": segment 0: strconv.ParseUint: parsing "99999999999999999999": value out of range"#
        );
    }

    /// Release order (operator-registry `Release.Compare`) and the ranking built on it.
    #[test]
    fn release_and_ranking_order() {
        let order = [
            vr("1.0.0-rc.1", Some("9")),
            vr("1.0.0", None),
            vr("1.0.0", Some("0")),
            vr("1.0.0", Some("2")),
            vr("1.0.0", Some("2.0")),
            vr("1.0.0", Some("10")),
            vr("1.0.0", Some("a")),
            vr("1.0.0", Some("git.abc")),
            vr("1.0.1", None),
        ];
        for w in order.windows(2) {
            if let [a, b] = w {
                assert_eq!(a.compare(b), Ordering::Less, "{a} < {b}");
                assert_eq!(b.compare(a), Ordering::Greater, "{b} > {a}");
                assert_eq!(by_version_and_release(Some(b), Some(a)), Ordering::Less);
            }
        }
        // No release and an explicit empty one are equal; build metadata is ignored.
        assert!(vr("1.0.0", Some("")).same_modulo_build(&vr("1.0.0", None)));
        assert!(legacy("1.0.0").same_modulo_build(&legacy("1.0.0+001")));
        assert!(!legacy("1.0.0").same_modulo_build(&legacy("1.0.0+2")));
        assert!(!legacy("1.0.0+a").same_modulo_build(&legacy("1.0.0+b")));
        // Spec examples: `1.0.0+2` gives release 2, `1.0.0+git.abc` release git.abc; a build
        // longer than 20 characters stays build metadata.
        assert_eq!(legacy("1.0.0+git.abc"), vr("1.0.0", Some("git.abc")));
        assert_eq!(
            legacy("1.0.0+aaaaaaaaaaaaaaaaaaaaa"),
            vr("1.0.0+aaaaaaaaaaaaaaaaaaaaa", None)
        );
        assert_eq!(
            from_bundle("1.0.0+2", Some("5"), false),
            Ok(vr("1.0.0", Some("2")))
        );
        assert_eq!(
            from_bundle("1.0.0+2", None, true),
            Ok(vr("1.0.0", Some("2")))
        );
    }
}
