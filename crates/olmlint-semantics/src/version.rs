//! Version parsing and ordering with the semantics of Go's blang/semver v4.0.0.
//!
//! Versions are `semver::Version` values, but they are parsed here (not with
//! `Version::parse`) so that acceptance and error texts match blang, and they are
//! ordered with [`cmp`] (precedence, build metadata ignored), never with `Ord`.

use semver::{BuildMetadata, Prerelease, Version};
use std::cmp::Ordering;

/// blang `semver.Parse`: strict `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, numbers up to u64.
///
/// # Errors
/// blang's error text, e.g. `Invalid character(s) found in major number "v2"`.
pub fn parse_strict(s: &str) -> Result<Version, String> {
    if s.is_empty() {
        return Err("Version string empty".to_string());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts.as_slice() else {
        return Err("No Major.Minor.Patch elements found".to_string());
    };
    let major = parse_number(major, "major", "Major")?;
    let minor = parse_number(minor, "minor", "Minor")?;
    // Build is split off at the first '+', then the pre-release at the first '-'.
    let (rest, build) = match rest.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (*rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    let patch = parse_number(patch, "patch", "Patch")?;
    if let Some(pre) = pre {
        pre.split('.').try_for_each(check_prerelease_id)?;
    }
    if let Some(build) = build {
        for id in build.split('.') {
            if id.is_empty() {
                return Err("Build meta data is empty".to_string());
            }
            if !is_alphanum(id) {
                return Err(format!(
                    "Invalid character(s) found in build meta data {}",
                    go_quote(id)
                ));
            }
        }
    }
    Ok(Version {
        major,
        minor,
        patch,
        pre: Prerelease::new(pre.unwrap_or("")).map_err(|e| e.to_string())?,
        build: BuildMetadata::new(build.unwrap_or("")).map_err(|e| e.to_string())?,
    })
}

/// blang `semver.ParseTolerant`: trims white space and one leading lowercase `v`,
/// strips leading zeros of the dot parts, pads a missing minor/patch, then [`parse_strict`].
///
/// # Errors
/// `Short version cannot contain PreRelease/Build meta data`, or [`parse_strict`]'s.
pub fn parse_tolerant(s: &str) -> Result<Version, String> {
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_string();
            }
            let t = p.trim_start_matches('0');
            if t.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                t.to_string()
            } else {
                format!("0{t}")
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("Short version cannot contain PreRelease/Build meta data".to_string());
        }
        parts.resize(3, "0".to_string());
    }
    parse_strict(&parts.join("."))
}

/// blang `Version.Compare`: precedence order, build metadata ignored.
pub fn cmp(a: &Version, b: &Version) -> Ordering {
    a.cmp_precedence(b)
}

/// The least version, `0.0.0-0`.
pub fn min_version() -> Version {
    Version {
        pre: Prerelease::new("0").unwrap_or(Prerelease::EMPTY),
        ..Version::new(0, 0, 0)
    }
}

/// `v` without its build metadata (same precedence, canonical representative).
pub fn without_build(v: &Version) -> Version {
    Version {
        build: BuildMetadata::EMPTY,
        ..v.clone()
    }
}

/// The immediate successor of `v` in precedence order (build dropped), or `None` for the
/// greatest version `MAX.MAX.MAX`.
///
/// - `x.y.z-p` → `x.y.z-p.0` (a numeric 0 is the least identifier; longer lists sort higher);
/// - `x.y.z` → `x.y.(z+1)-0`, carrying into minor/major on u64 overflow.
pub fn successor(v: &Version) -> Option<Version> {
    if !v.pre.is_empty() {
        let pre = Prerelease::new(&format!("{}.0", v.pre)).ok()?;
        return Some(Version {
            pre,
            ..without_build(v)
        });
    }
    let (major, minor, patch) = if let Some(p) = v.patch.checked_add(1) {
        (v.major, v.minor, p)
    } else if let Some(m) = v.minor.checked_add(1) {
        (v.major, m, 0)
    } else {
        (v.major.checked_add(1)?, 0, 0)
    };
    Some(Version {
        pre: Prerelease::new("0").ok()?,
        ..Version::new(major, minor, patch)
    })
}

/// For display only: `p` with `successor(p) == v` when `p` reads naturally, i.e. `v` is
/// `x.y.(z+1)-0` (gives `x.y.z`) or `x.y.z-p.0` (gives `x.y.z-p`).
pub fn natural_predecessor(v: &Version) -> Option<Version> {
    let pre = v.pre.as_str();
    if pre == "0" && v.patch > 0 {
        return Some(Version::new(v.major, v.minor, v.patch - 1));
    }
    let stem = pre.strip_suffix(".0")?;
    Some(Version {
        pre: Prerelease::new(stem).ok()?,
        ..without_build(v)
    })
}

fn parse_number(s: &str, lower: &str, upper: &str) -> Result<u64, String> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "Invalid character(s) found in {lower} number {}",
            go_quote(s)
        ));
    }
    if has_leading_zeroes(s) {
        return Err(format!(
            "{upper} number must not contain leading zeroes {}",
            go_quote(s)
        ));
    }
    parse_uint(s)
}

pub(crate) fn check_prerelease_id(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("Prerelease is empty".to_string());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        if has_leading_zeroes(s) {
            return Err(format!(
                "Numeric PreRelease version must not contain leading zeroes {}",
                go_quote(s)
            ));
        }
        return parse_uint(s).map(|_| ());
    }
    if is_alphanum(s) {
        Ok(())
    } else {
        Err(format!(
            "Invalid character(s) found in prerelease {}",
            go_quote(s)
        ))
    }
}

/// Go `strconv.ParseUint(s, 10, 64)` for a string of ASCII digits, with Go's error texts.
pub(crate) fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

fn is_alphanum(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Go's `%q` (`strconv.Quote`). Exact for ASCII; for other characters, Go's
/// `unicode.IsPrint` is approximated (controls, non-ASCII spaces, format and
/// private-use characters are escaped; unassigned code points are not).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_printable(c) => out.push(c),
            c if c < ' ' || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) < 0x10000 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

fn is_go_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    const NOT_PRINT: &[(u32, u32)] = &[
        (0xAD, 0xAD),
        (0x600, 0x605),
        (0x61C, 0x61C),
        (0x6DD, 0x6DD),
        (0x70F, 0x70F),
        (0x890, 0x891),
        (0x8E2, 0x8E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x206F),
        (0xE000, 0xF8FF),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE007F),
        (0xF0000, 0x10FFFF),
    ];
    let u = u32::from(c);
    !(c.is_control()
        || c.is_whitespace()
        || NOT_PRINT.iter().any(|&(lo, hi)| (lo..=hi).contains(&u)))
}

/// Go's `unicode.IsDigit` (ASCII digits, plus category Nd beyond Latin-1, Unicode 15).
pub(crate) fn is_go_digit(c: char) -> bool {
    if c.is_ascii_digit() {
        return true;
    }
    // Start of each run of ten Nd code points above U+00FF.
    const ND_STARTS: &[u32] = &[
        0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6,
        0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
        0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
        0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
        0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60,
        0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0,
        0x1E950, 0x1FBF0,
    ];
    let u = u32::from(c);
    ND_STARTS.iter().any(|&s| (s..s + 10).contains(&u))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        match parse_strict(s) {
            Ok(v) => v.to_string(),
            Err(e) => panic!("{s}: {e}"),
        }
    }
    fn err(s: &str) -> String {
        match parse_strict(s) {
            Ok(v) => panic!("{s} parsed as {v}"),
            Err(e) => e,
        }
    }
    fn tol(s: &str) -> Result<String, String> {
        parse_tolerant(s).map(|v| v.to_string())
    }

    #[test]
    fn strict_accepts() {
        assert_eq!(ok("1.0.0"), "1.0.0");
        assert_eq!(ok("1.0.0-0alpha"), "1.0.0-0alpha");
        assert_eq!(ok("1.0.0-rc.1+build.01"), "1.0.0-rc.1+build.01");
        assert_eq!(ok("1.0.0+a-b"), "1.0.0+a-b");
        assert_eq!(ok("1.0.0--"), "1.0.0--");
        assert_eq!(
            ok("18446744073709551615.0.0-18446744073709551615"),
            "18446744073709551615.0.0-18446744073709551615"
        );
    }

    #[test]
    fn strict_error_texts() {
        assert_eq!(err(""), "Version string empty");
        assert_eq!(err("1.0"), "No Major.Minor.Patch elements found");
        assert_eq!(err("1"), "No Major.Minor.Patch elements found");
        assert_eq!(
            err("v2.0.0"),
            r#"Invalid character(s) found in major number "v2""#
        );
        assert_eq!(
            err("1.0-rc.1.0"),
            r#"Invalid character(s) found in minor number "0-rc""#
        );
        assert_eq!(
            err("1.0.0,"),
            r#"Invalid character(s) found in patch number "0,""#
        );
        assert_eq!(
            err("01.0.0"),
            r#"Major number must not contain leading zeroes "01""#
        );
        assert_eq!(
            err("1.00.0"),
            r#"Minor number must not contain leading zeroes "00""#
        );
        assert_eq!(
            err("1.0.01"),
            r#"Patch number must not contain leading zeroes "01""#
        );
        assert_eq!(
            err("1.0.0-01"),
            r#"Numeric PreRelease version must not contain leading zeroes "01""#
        );
        assert_eq!(err("1.0.0-"), "Prerelease is empty");
        assert_eq!(err("1.0.0-a..b"), "Prerelease is empty");
        assert_eq!(
            err("1.0.0-al_pha"),
            r#"Invalid character(s) found in prerelease "al_pha""#
        );
        assert_eq!(err("1.0.0+"), "Build meta data is empty");
        assert_eq!(
            err("1.0.0+a+b"),
            r#"Invalid character(s) found in build meta data "a+b""#
        );
        assert_eq!(
            err(".0.0"),
            r#"strconv.ParseUint: parsing "": invalid syntax"#
        );
        assert_eq!(
            err("18446744073709551616.0.0"),
            r#"strconv.ParseUint: parsing "18446744073709551616": value out of range"#
        );
        assert_eq!(
            err("1.0.0-18446744073709551616"),
            r#"strconv.ParseUint: parsing "18446744073709551616": value out of range"#
        );
        assert_eq!(
            err("1.0.0\t"),
            r#"Invalid character(s) found in patch number "0\t""#
        );
        assert_eq!(
            err(" 1.0.0"),
            r#"Invalid character(s) found in major number " 1""#
        );
    }

    #[test]
    fn tolerant_table() {
        assert_eq!(tol("v1.0.0").as_deref(), Ok("1.0.0"));
        assert_eq!(tol("1.0").as_deref(), Ok("1.0.0"));
        assert_eq!(tol("1").as_deref(), Ok("1.0.0"));
        assert_eq!(tol(" 1.0.0 ").as_deref(), Ok("1.0.0"));
        assert_eq!(tol("01.0.0").as_deref(), Ok("1.0.0"));
        assert_eq!(tol("4.10").as_deref(), Ok("4.10.0"));
        assert_eq!(tol("1.0.00-rc").as_deref(), Ok("1.0.0-rc"));
        assert_eq!(tol("1.2.3+build").as_deref(), Ok("1.2.3+build"));
        assert_eq!(
            tol("1.0-rc1"),
            Err("Short version cannot contain PreRelease/Build meta data".to_string())
        );
        assert_eq!(
            tol("V1.0.0"),
            Err(r#"Invalid character(s) found in major number "0V1""#.to_string())
        );
        assert_eq!(
            tol("1.0.0-01"),
            Err(r#"Numeric PreRelease version must not contain leading zeroes "01""#.to_string())
        );
        assert!(tol("vv1.0.0").is_err());
        assert!(tol("").is_err());
    }

    #[test]
    fn ordering_ignores_build() {
        let a = parse_strict("1.0.0+a").unwrap_or_else(|e| panic!("{e}"));
        let b = parse_strict("1.0.0+b").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cmp(&a, &b), Ordering::Equal);
        let order = [
            "0.0.0-0",
            "0.0.0-0.0",
            "0.0.0-1",
            "0.0.0-a",
            "0.0.0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
        ];
        for w in order.windows(2) {
            if let [x, y] = w {
                assert_eq!(cmp(&ok_v(x), &ok_v(y)), Ordering::Less, "{x} < {y}");
            }
        }
    }

    fn ok_v(s: &str) -> Version {
        parse_strict(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn successors() {
        let s = |v: &str| successor(&ok_v(v)).map(|v| v.to_string());
        assert_eq!(s("1.0.0").as_deref(), Some("1.0.1-0"));
        assert_eq!(s("1.0.0+b").as_deref(), Some("1.0.1-0"));
        assert_eq!(s("1.0.0-a").as_deref(), Some("1.0.0-a.0"));
        assert_eq!(s("1.0.18446744073709551615").as_deref(), Some("1.1.0-0"));
        assert_eq!(
            s("1.18446744073709551615.18446744073709551615").as_deref(),
            Some("2.0.0-0")
        );
        let max = "18446744073709551615.18446744073709551615.18446744073709551615";
        assert_eq!(s(max), None);
        assert_eq!(min_version().to_string(), "0.0.0-0");
        let p = |v: &str| natural_predecessor(&ok_v(v)).map(|v| v.to_string());
        assert_eq!(p("1.0.1-0").as_deref(), Some("1.0.0"));
        assert_eq!(p("1.0.0-rc.1.0").as_deref(), Some("1.0.0-rc.1"));
        assert_eq!(p("2.0.0-0"), None);
        assert_eq!(p("2.0.0"), None);
    }

    #[test]
    fn go_quoting() {
        assert_eq!(go_quote("a\"b\\"), r#""a\"b\\""#);
        assert_eq!(go_quote("\u{1}\u{7f}"), r#""\x01\x7f""#);
        assert_eq!(go_quote("é\u{a0}"), "\"é\\u00a0\"");
        assert!(is_go_digit('٣') && is_go_digit('７') && !is_go_digit('²') && !is_go_digit('x'));
    }
}
