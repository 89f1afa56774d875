//! OLM710 max-openshift-version: `olm.maxOpenShiftVersion` values OpenShift's OLM reads
//! differently from what was meant, or cannot read (olm-semantics §2.6).
//!
//! OLM trims `"` from the raw JSON value, parses it with blang `ParseTolerant` and requires a
//! bare `major.minor`; any error marks the cluster not upgradeable. OLM v1 on OpenShift also
//! rejects a `v` prefix and any dot count other than one.

use crate::Ctx;
use olmlint_base::diag::{Diagnostic, Edit, Fix, Location, Severity};
use olmlint_base::tree::{format_go_float, Node, Value};
use olmlint_load::Format;
use olmlint_model::{Bundle, Property};
use olmlint_semantics::version::parse_tolerant;
use std::borrow::Cow;

const TYPE: &str = "olm.maxOpenShiftVersion";
const BLOCKS: &str = "OLM marks the cluster not upgradeable while this operator is installed";
const HELP: &str = "On OpenShift, this property stops cluster upgrades past the given minor version while the operator is installed, and a value OLM cannot read stops them altogether. Write the value as a quoted \"major.minor\" string (value: \"4.20\"), once per bundle.";

pub fn check(ctx: &Ctx<'_>, b: &Bundle<'_>, out: &mut Vec<Diagnostic>) {
    let mut first: Option<(&Property<'_>, String)> = None;
    for p in b.properties_of(TYPE) {
        let Some(value) = p.value.as_deref() else {
            continue;
        };
        let written = written_number(ctx, p, value);
        let shown = value_text(value, written.as_ref());
        if let Some((earlier, earlier_shown)) = &first {
            out.push(
                finding(b, p, format!("defining more than one {TYPE:?} property is not allowed: {BLOCKS} (values {earlier_shown} and {shown})"))
                    .related(
                        format!("the first {TYPE} of {}", b.name()),
                        Some(Location { file: earlier.file, span: earlier.span() }),
                    ),
            );
            continue;
        }
        if let Some(d) = value_finding(ctx, b, p, value, written, &shown) {
            out.push(d);
        }
        first = Some((p, shown));
    }
}

fn finding(b: &Bundle<'_>, p: &Property<'_>, message: String) -> Diagnostic {
    Diagnostic::new("OLM710", message)
        .at(p.file, p.span())
        .pointer(p.value_pointer())
        .package(Some(b.package()))
        .bundle(Some(b.name()))
        .help(HELP)
}

/// How the value reads: the written text for numbers, JSON text otherwise.
fn value_text(value: &Node, written: Option<&Written<'_>>) -> String {
    match &value.value {
        Value::Number { .. } => {
            written.map_or_else(|| value.display_scalar(), |w| w.text.to_string())
        }
        Value::String(s) => format!("{s:?}"),
        _ => value.canonical_json(),
    }
}

/// A number as written, and whether that text is JSON (YAML 1.1 reads numbers differently).
struct Written<'f> {
    text: &'f str,
    json: bool,
    /// Its own text in the file (not inside a CSV's `olm.properties` string), so a fix can
    /// quote it.
    in_file: bool,
}

/// The number as written in the file, or in the CSV's `olm.properties` string that holds it
/// (`None` for derived values).
fn written_number<'f>(ctx: &'f Ctx<'_>, p: &Property<'_>, value: &Node) -> Option<Written<'f>> {
    let Value::Number { value: n, .. } = value.value else {
        return None;
    };
    if !matches!(p.value, Some(Cow::Borrowed(_))) {
        return None;
    }
    let file = ctx.files.get(p.file)?;
    let written = match file.embedded.get().and_then(|e| e.source_of(value)) {
        Some(inner) => Written {
            text: inner.trim(),
            json: true,
            in_file: false,
        },
        None => Written {
            text: file
                .source
                .text
                .get(value.span.start()..value.span.end())?
                .trim(),
            json: file.format == Format::Json,
            in_file: true,
        },
    };
    (written.text.parse::<f64>().ok() == Some(n)).then_some(written)
}

fn value_finding(
    ctx: &Ctx<'_>,
    b: &Bundle<'_>,
    p: &Property<'_>,
    value: &Node,
    written: Option<Written<'_>>,
    shown: &str,
) -> Option<Diagnostic> {
    match &value.value {
        Value::Number { value: n, .. } => number_finding(ctx, b, p, value, *n, written),
        Value::String(s) => string_finding(b, p, s),
        _ => {
            let kind = match value.value {
                Value::Map(_) => "a mapping",
                Value::Seq(_) => "a list",
                Value::Bool(_) => "a boolean",
                _ => "null",
            };
            let inner = nested_version(value).map_or_else(
                || "a quoted \"major.minor\" string".to_string(),
                |v| format!("value: {v:?}"),
            );
            Some(finding(
                b,
                p,
                format!("olm.maxOpenShiftVersion value is {kind}, not a version string: OLM fails to parse {shown} as semver, and {BLOCKS}; write {inner}"),
            ))
        }
    }
}

/// A lone string inside a mapping or list (`{version: "4.60"}`), the likely intended value.
fn nested_version(value: &Node) -> Option<&str> {
    let mut strings = match &value.value {
        Value::Map(entries) => entries.iter().map(|e| &e.value).collect::<Vec<_>>(),
        Value::Seq(items) => items.iter().collect(),
        _ => return None,
    };
    let only = strings.pop()?;
    (strings.is_empty()).then(|| only.as_str())?
}

fn number_finding(
    ctx: &Ctx<'_>,
    b: &Bundle<'_>,
    p: &Property<'_>,
    value: &Node,
    n: f64,
    source: Option<Written<'_>>,
) -> Option<Diagnostic> {
    let read = format_go_float(n);
    let written = source.as_ref().map_or(read.as_str(), |w| w.text);
    let json = source.as_ref().map_or_else(
        || {
            ctx.files
                .get(p.file)
                .is_some_and(|f| f.format == Format::Json)
        },
        |w| w.json,
    );
    let with_fix = |d: Diagnostic, safe: bool| match &source {
        Some(w) if w.in_file => d.fix(Fix {
            description: format!("quote {written}"),
            safe,
            edits: vec![Edit::quote(p.file, value.span)],
        }),
        _ => d,
    };
    if is_major_minor(written) && written != read {
        let how = if json {
            "opm re-encodes every JSON number through float64"
        } else {
            "YAML 1.1 reads an unquoted 4.20 as a float"
        };
        let d = finding(
            b,
            p,
            format!("olm.maxOpenShiftVersion {written} is the number {read} ({how}): OLM blocks cluster upgrades past OpenShift {read} while this operator is installed"),
        );
        return Some(with_fix(d, false));
    }
    if is_major_minor(written) {
        let d = finding(
            b,
            p,
            format!("olm.maxOpenShiftVersion {written} is a number, not a string: OLM reads it as {read} today, but the next value ending in 0 (4.20) silently becomes 4.2"),
        )
        .severity(Severity::Warning);
        return Some(with_fix(d, true));
    }
    // Not `major.minor` as written: OLM v0 parses the float's text, OLM v1 rejects it.
    let v0 = match parse_tolerant(&read) {
        Ok(v) if v.patch == 0 && v.pre.is_empty() && v.build.is_empty() => {
            format!("OLM v0 reads it as {}.{}", v.major, v.minor)
        }
        Ok(_) | Err(_) => format!("OLM cannot use {read} ({BLOCKS})"),
    };
    Some(finding(
        b,
        p,
        format!("olm.maxOpenShiftVersion {written} is not a quoted <major>.<minor>: {v0}, and OLM v1 on OpenShift rejects it (\"invalid version format\") and blocks cluster upgrades"),
    ))
}

fn string_finding(b: &Bundle<'_>, p: &Property<'_>, s: &str) -> Option<Diagnostic> {
    // OLM trims `"` from the raw JSON text, i.e. the quotes of the string literal.
    let v = s.trim_matches('"');
    if v.is_empty() {
        return Some(finding(
            b,
            p,
            format!("olm.maxOpenShiftVersion value cannot be \"\" (an empty string): {BLOCKS}"),
        ));
    }
    let parsed = match parse_tolerant(v) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Some(finding(
                b,
                p,
                format!("failed to parse {v:?} as semver: {e}: {BLOCKS}"),
            ))
        }
    };
    if parsed.patch != 0 || !parsed.pre.is_empty() || !parsed.build.is_empty() {
        return Some(finding(
            b,
            p,
            format!("property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value {v}: {BLOCKS}"),
        ));
    }
    if !is_major_minor(v) {
        return Some(finding(
            b,
            p,
            format!(
                "olm.maxOpenShiftVersion {v:?} is not <major>.<minor>: OLM v0 reads it as {}.{}, but OLM v1 on OpenShift rejects it (\"invalid version format\") and blocks cluster upgrades; write \"{}.{}\"",
                parsed.major, parsed.minor, parsed.major, parsed.minor
            ),
        ));
    }
    None
}

/// `MAJOR.MINOR` in digits, as OLM v1 on OpenShift accepts it (no `v`, exactly one dot).
fn is_major_minor(s: &str) -> bool {
    let Some((major, minor)) = s.split_once('.') else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    digits(major) && digits(minor)
}

#[cfg(test)]
mod tests {
    use super::is_major_minor;

    #[test]
    fn major_minor_shape() {
        assert!(is_major_minor("4.20"));
        assert!(is_major_minor("4.9"));
        for bad in ["4", "4.20.1", "v4.20", "4.", ".4", "4.2a", ""] {
            assert!(!is_major_minor(bad), "{bad}");
        }
    }
}
