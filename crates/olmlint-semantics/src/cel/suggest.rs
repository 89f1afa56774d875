//! Did-you-mean hints for errors (not part of cel-go's output).

use super::stdlib::callable_names;
use super::{CelError, CelErrorKind, Env};

const STRING_EXT: &[&str] = &[
    "lowerAscii",
    "upperAscii",
    "split",
    "replace",
    "format",
    "join",
    "trim",
    "charAt",
    "indexOf",
    "lastIndexOf",
    "substring",
    "reverse",
    "quote",
    "strings",
    "toLower",
    "toUpper",
    "lower",
    "upper",
];
const MATH_EXT: &[&str] = &[
    "math",
    "greatest",
    "least",
    "abs",
    "ceil",
    "floor",
    "round",
    "trunc",
    "sign",
    "isNaN",
    "isInf",
    "isFinite",
    "bitAnd",
    "bitOr",
    "bitXor",
    "bitNot",
    "bitShiftLeft",
    "bitShiftRight",
    "sqrt",
    "max",
    "min",
];
const SETS_EXT: &[&str] = &["sets", "intersects", "equivalent"];
const LISTS_EXT: &[&str] = &[
    "sum", "flatten", "sort", "sortBy", "slice", "distinct", "range", "first", "last", "lists",
    "unique", "count",
];
const ENCODERS_EXT: &[&str] = &["base64", "encode", "decode"];
const BIND: &[&str] = &["cel", "bind", "block"];
const OPTIONALS: &[&str] = &[
    "optional",
    "of",
    "none",
    "ofNonZeroValue",
    "orValue",
    "hasValue",
    "value",
    "or",
    "optMap",
    "optFlatMap",
    "unwrap",
];
const TWO_VAR: &[&str] = &[
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "transformList",
    "transformMap",
    "transformMapEntry",
];
const OLM_HELPERS: &[&str] = &["provides", "gvk", "package", "requires"];

/// The closest candidate by edit distance (the project's shared "did you mean").
fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    olmlint_base::suggest::closest(name, candidates.iter().copied().filter(|c| *c != name))
}

fn for_undeclared(name: &str, is_call: bool, env: Env) -> Option<String> {
    let name = name.trim_start_matches('.');
    if name == "existsOne" {
        return Some("use exists_one: OLM's CEL only has the standard macro name".into());
    }
    if STRING_EXT.contains(&name) {
        return Some(
            "OLM's CEL has no string extensions; compare exact strings or use \
             matches('(?i)...')"
                .into(),
        );
    }
    if MATH_EXT.contains(&name) {
        return Some(
            "OLM's CEL has no math extension; use comparisons and the ternary operator".into(),
        );
    }
    if SETS_EXT.contains(&name) {
        return Some(
            "OLM's CEL has no sets extension; use the macros, e.g. a.all(x, x in b)".into(),
        );
    }
    if LISTS_EXT.contains(&name) {
        return Some(
            "OLM's CEL has no lists extension; use the map/filter/exists macros and size()".into(),
        );
    }
    if ENCODERS_EXT.contains(&name) {
        return Some("OLM's CEL has no encoders (base64) extension".into());
    }
    if BIND.contains(&name) {
        return Some("cel.bind is not available in OLM's CEL; repeat the subexpression".into());
    }
    if OPTIONALS.contains(&name) {
        return Some(
            "optional values are not available in OLM's CEL; use has(x.f) and the ternary \
             operator"
                .into(),
        );
    }
    if TWO_VAR.contains(&name) {
        return Some(
            "two-variable comprehensions are not available in OLM's CEL; use the \
             one-variable form, e.g. properties.exists(p, ...)"
                .into(),
        );
    }
    if OLM_HELPERS.contains(&name) {
        return Some(
            "OLM's CEL has no GVK/package helpers; compare the property fields, e.g. \
             p.type == \"olm.gvk\" && p.value.group == \"example.com\" && p.value.kind == \"Foo\""
                .into(),
        );
    }
    if is_call {
        let names = callable_names();
        if let Some(c) = closest(name, &names) {
            return Some(format!("did you mean '{c}'?"));
        }
        return None;
    }
    if name == "cluster" {
        return Some(
            "`cluster` exists only in the cluster constraints given with --cluster-properties \
             (OLM720); OLM's own CEL environment has only 'properties'"
                .into(),
        );
    }
    let idents = [
        "properties",
        "cluster",
        "bool",
        "bytes",
        "double",
        "int",
        "list",
        "map",
        "null_type",
        "string",
        "type",
        "uint",
    ];
    let visible = |c: &&str| env == Env::Cluster || *c != "cluster";
    let idents: Vec<&str> = idents.iter().copied().filter(visible).collect();
    if let Some(c) = closest(name, &idents) {
        return Some(format!("did you mean '{c}'?"));
    }
    Some(match env {
        Env::Olm => "the only variable in OLM's CEL environment is 'properties'".into(),
        Env::Cluster => {
            "the variables of a cluster constraint are 'properties' (the bundle's) and \
             'cluster' (the cluster's)"
                .into()
        }
    })
}

fn not_bool(message_type: Option<&str>) -> String {
    match message_type {
        Some("int" | "uint" | "double") => {
            "the rule must be a bool: compare the number, e.g. `semver_compare(a, b) >= 0`".into()
        }
        Some(t) if t.starts_with("list") => {
            "the rule must be a bool: use a macro such as properties.exists(p, ...) or \
             size(...) > 0"
                .into()
        }
        _ => "the rule must be a bool: compare the value explicitly, e.g. `... == true`".into(),
    }
}

/// Attaches a suggestion to `err` when one helps.
pub(super) fn attach(rule: &str, err: &mut CelError, result_type: Option<&str>, env: Env) {
    let msg = err.message.as_str();
    let s = if err.kind == CelErrorKind::NotBool {
        Some(not_bool(result_type))
    } else if let Some(rest) = msg.strip_prefix("undeclared reference to '") {
        let name = rest.split('\'').next().unwrap_or("");
        let text = rule.get(err.span.clone()).unwrap_or("");
        let is_call = text
            .strip_prefix(name.trim_start_matches('.'))
            .is_some_and(|r| r.trim_start().starts_with('('))
            || text.starts_with('.') && text.contains('(');
        for_undeclared(name, is_call, env)
    } else if msg.starts_with("found no matching overload for 'semver_compare'") {
        Some(
            "semver_compare takes two versions and returns -1, 0 or 1, e.g. \
              semver_compare(p.value.version, '1.0.0') >= 0"
                .into(),
        )
    } else if msg.starts_with("unsupported syntax") {
        Some("optional syntax is not available in OLM's CEL; guard with has(x.f) instead".into())
    } else if msg.contains("does not support field selection") && msg.contains("list(") {
        Some(
            "`properties` is a list of {type, value} maps: iterate it, e.g. \
             properties.exists(p, p.type == \"olm.gvk\" && p.value.kind == \"Foo\")"
                .into(),
        )
    } else if msg.starts_with("expression of type 'any' cannot be range") {
        Some("property values are declared as Any: iterate dyn(p.value) instead".into())
    } else if msg.starts_with("reserved identifier") {
        Some("this word is reserved in CEL; choose another variable name".into())
    } else if msg.starts_with("Syntax error: mismatched input '<EOF>'") && rule.trim().is_empty() {
        Some("the rule is empty".into())
    } else {
        None
    };
    err.suggestion = s;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(
            olmlint_base::suggest::distance("semver_compre", "semver_compare"),
            1
        );
        assert_eq!(
            closest("semver_compre", &callable_names()),
            Some("semver_compare")
        );
        assert_eq!(closest("propertes", &["properties"]), Some("properties"));
        assert_eq!(closest("zzz", &["properties"]), None);
    }
}
