//! Vectors from olm-semantics.md §4.2–§4.7, §9.1 (C30–C33) and §9.4 (X1–X16), plus
//! spans, hostile inputs (on 2 MB stacks), the step budget and a compile benchmark.

use super::*;
use serde_json::json;
use std::time::{Duration, Instant};

fn prop(ty: &str, value: serde_json::Value) -> Property {
    Property {
        ty: ty.to_string(),
        value,
    }
}

/// §9.4 sample data, plus `n: 3` for X11.
fn sample() -> Vec<Property> {
    vec![
        prop(
            "olm.package",
            json!({"packageName": "foo", "version": "1.2.3"}),
        ),
        prop(
            "olm.gvk",
            json!({"group": "example.com", "version": "v1", "kind": "Foo"}),
        ),
        prop("certified", json!(true)),
        prop("olm.maxOpenShiftVersion", json!(4.9)),
        prop("olm.label", json!({"label": "stable"})),
        prop("nullval", json!(null)),
        prop("listval", json!([1, "a"])),
        prop("n", json!(3)),
    ]
}

/// §9.1 sample bundle `bar` (bar 1.5.0, provides g2, olm.label stable, certified).
fn bar() -> Vec<Property> {
    vec![
        prop(
            "olm.package",
            json!({"packageName": "bar", "version": "1.5.0"}),
        ),
        prop(
            "olm.gvk",
            json!({"group": "g2", "version": "v1", "kind": "k2"}),
        ),
        prop("olm.label", json!({"label": "stable"})),
        prop("certified", json!(true)),
    ]
}

fn foo(version: &str) -> Vec<Property> {
    vec![
        prop(
            "olm.package",
            json!({"packageName": "foo", "version": version}),
        ),
        prop(
            "olm.gvk",
            json!({"group": "g1", "version": "v1", "kind": "k1"}),
        ),
    ]
}

#[derive(Debug)]
enum Want {
    True,
    False,
    /// Compiles; evaluation fails with this message fragment (OLM: false).
    Runtime(&'static str),
    /// Compile error of this kind whose messages contain the fragment.
    Error(CelErrorKind, &'static str),
}

fn run(rule: &str, props: &[Property]) -> Result<Result<bool, EvalError>, Vec<CelError>> {
    compile(rule).map(|c| eval(&c, props, 1_000_000))
}

fn expect(rule: &str, props: &[Property], want: Want) {
    let got = run(rule, props);
    let ok = match (&want, &got) {
        (Want::True, Ok(Ok(true))) | (Want::False, Ok(Ok(false))) => true,
        (Want::Runtime(frag), Ok(Err(e))) => {
            e.kind == EvalErrorKind::Runtime && e.message.contains(frag)
        }
        (Want::Error(kind, frag), Err(errs)) => errs
            .iter()
            .any(|e| e.kind == *kind && e.message.contains(frag)),
        _ => false,
    };
    assert!(ok, "rule {rule:?}: want {want:?}, got {got:?}");
}

use CelErrorKind::{Limit, NotBool, Syntax, Type};

#[test]
fn semver_compare_4_2() {
    let d = sample();
    expect("semver_compare(1, 2) == -1", &d, Want::True);
    expect(r#"semver_compare(" 1.0 ", "1.0.0") == 0"#, &d, Want::True);
    expect(
        r#"properties.exists(p, p.type == "olm.maxOpenShiftVersion" && semver_compare(p.value, "4.9") == 0)"#,
        &d,
        Want::True,
    );
    expect(
        r#"semver_compare("1.2.3", "1.2.3+build") == 0"#,
        &d,
        Want::True,
    );
    expect(
        r#"semver_compare("V1.0.0", "1.0.0") == 0"#,
        &d,
        Want::Runtime("unable to parse 'V1.0.0' to semver format"),
    );
    expect(
        r#"semver_compare("1.0.0")"#,
        &d,
        Want::Error(
            Type,
            "found no matching overload for 'semver_compare' applied to '(string)'",
        ),
    );
    // Pre-releases sort lower; Go's fmt.Sprint of bools, nulls and doubles.
    expect(
        r#"semver_compare("1.0.0-rc.1", "1.0.0") == -1"#,
        &d,
        Want::True,
    );
    expect("semver_compare(4.10, '4.1') == 0", &d, Want::True);
    expect(
        "semver_compare(true, '1.0.0') == 0",
        &d,
        Want::Runtime("unable to parse 'true'"),
    );
    expect(
        "semver_compare(null, '1.0.0') == 0",
        &d,
        Want::Runtime("unable to parse '<nil>'"),
    );
    expect("semver_compare(1u, 'v1') == 0", &d, Want::True);
    // Global only: the member form is undeclared.
    expect(
        "'1.0.0'.semver_compare('1.0.0') == 0",
        &d,
        Want::Error(Type, "found no matching overload for 'semver_compare'"),
    );
}

#[test]
fn go_sprint_forms() {
    use runtime::{go_float, go_sprint};
    assert_eq!(go_float(4.9), "4.9");
    assert_eq!(go_float(3.0), "3");
    assert_eq!(go_float(100000.0), "100000");
    assert_eq!(go_float(1e6), "1e+06");
    assert_eq!(go_float(1234567.0), "1.234567e+06");
    assert_eq!(go_float(0.0001), "0.0001");
    assert_eq!(go_float(0.00001), "1e-05");
    assert_eq!(go_float(-2.5), "-2.5");
    let v = runtime::json_to_value(
        &json!({"version": "1.2.3", "packageName": "foo", "n": [1, "a", null]}),
    );
    assert_eq!(
        go_sprint(&v),
        "map[n:[1 a <nil>] packageName:foo version:1.2.3]"
    );
}

#[test]
fn result_type_4_3() {
    let d = sample();
    for rule in [
        "properties[0].value",
        "dyn(true)",
        "1",
        r#""true""#,
        r#"semver_compare("1.0.0", "2.0.0")"#,
        "true ? 1 : 0",
        "!!properties[0].value",
    ] {
        expect(
            rule,
            &d,
            Want::Error(NotBool, "cel expressions must have type Bool"),
        );
    }
    expect("properties.exists(p, p.value)", &d, Want::True);
}

#[test]
fn runtime_data_4_4() {
    let d = sample();
    expect(
        r#"properties.exists(p, p.type == "n" && p.value == 3)"#,
        &d,
        Want::True,
    );
    expect(
        r#"properties.exists(p, p.type == "n" && p.value > 2)"#,
        &d,
        Want::True,
    );
    expect(
        r#"properties.exists(p, p.type == "n" && p.value + 1.0 == 4.0)"#,
        &d,
        Want::True,
    );
    expect(
        r#"properties[7].value + 1 == 4"#,
        &d,
        Want::Runtime("no such overload"),
    );
    // Hidden property types are not visible to CEL.
    let mut d2 = d.clone();
    d2.push(prop("olm.bundle.object", json!({"data": "e30="})));
    d2.push(prop("olm.csv.metadata", json!({"name": "x"})));
    expect("size(properties) == 8", &d2, Want::True);
}

#[test]
fn availability_4_5() {
    let d = sample();
    // Macros and standard functions that exist.
    for rule in [
        "has(properties[0].value)",
        "properties.all(p, p.type != '')",
        "properties.exists_one(p, p.type == 'certified')",
        "properties.map(p, p.type).size() == 8",
        "properties.map(p, p.type == 'n', p.value)[0] == 3",
        "properties.filter(p, p.type == 'n').size() == 1",
        "size(properties) == 8 && properties.size() == 8",
        "'abc'.contains('b') && 'abc'.startsWith('a') && 'abc'.endsWith('c')",
        "'abc'.matches('^a') && matches('abc', 'c$')",
        "'b' in ['a', 'b'] && 'a' in {'a': 1}",
        "int('1') == 1 && uint(1) == 1u && double(1) == 1.0 && string(1) == '1'",
        "bytes('a') == b'a' && bool('true') && dyn(1) == 1 && type(1) == int",
        "duration('1s').getSeconds() == 1 && timestamp('2020-01-01T00:00:00Z').getFullYear() == 2020",
        "1 < 2.0 && 2u > 1 && 1.5 >= 1",
        "type(properties) == list",
    ] {
        expect(rule, &d, Want::True);
    }
    // Not available: extensions, existsOne, cel.bind, optionals.
    for (rule, frag) in [
        (
            "'A'.lowerAscii() == 'a'",
            "undeclared reference to 'lowerAscii' (in container '')",
        ),
        (
            "'a,b'.split(',').size() == 2",
            "undeclared reference to 'split'",
        ),
        (
            "'a'.replace('a', 'b') == 'b'",
            "undeclared reference to 'replace'",
        ),
        (
            "'%s'.format(['a']) == 'a'",
            "undeclared reference to 'format'",
        ),
        ("math.greatest(1, 2) == 2", "undeclared reference to 'math'"),
        ("sets.contains([1], [1])", "undeclared reference to 'sets'"),
        ("[1, 2].sum() == 3", "undeclared reference to 'sum'"),
        (
            "[[1]].flatten().size() == 1",
            "undeclared reference to 'flatten'",
        ),
        (
            "base64.encode(b'a') == 'YQ=='",
            "undeclared reference to 'base64'",
        ),
        (
            "strings.quote('a') == 'a'",
            "undeclared reference to 'strings'",
        ),
        ("cel.bind(x, 1, x == 1)", "undeclared reference to 'cel'"),
        (
            "optional.of(1).hasValue()",
            "undeclared reference to 'optional'",
        ),
        (
            "properties.existsOne(p, true)",
            "undeclared reference to 'existsOne'",
        ),
        (
            "properties.all(i, p, true)",
            "undeclared reference to 'all'",
        ),
        (
            "properties.transformList(i, p, p).size() == 1",
            "undeclared reference to 'transformList'",
        ),
        ("type(1) == dyn", "undeclared reference to 'dyn'"),
    ] {
        expect(rule, &d, Want::Error(Type, frag));
    }
    // Stricter than cel-core: cel-go's parameter unification.
    for (rule, frag) in [
        ("1 == 1.0", "applied to '(int, double)'"),
        ("true ? 1 : 'a'", "applied to '(bool, int, string)'"),
        (
            "[1] + ['a'] == []",
            "applied to '(list(int), list(string))'",
        ),
        ("1 && true", "expected type 'bool' but found 'int'"),
        (
            "properties.exists(p, p.value.exists(x, true))",
            "expression of type 'any' cannot be range",
        ),
    ] {
        expect(rule, &d, Want::Error(Type, frag));
    }
    expect(
        "properties.exists(p, dyn(p.value).exists(x, true))",
        &d,
        Want::True,
    );
}

#[test]
fn limits_4_6() {
    let d = sample();
    let long = format!("'{}' == 'a'", "a".repeat(100_000));
    expect(
        &long,
        &d,
        Want::Error(
            Limit,
            "expression code point size exceeds limit: size: 100009, limit 100000",
        ),
    );
    // Exactly 100,000 code points is allowed.
    let at_limit = format!("'{}' == ''", "é".repeat(100_000 - 8));
    assert_eq!(at_limit.chars().count(), 100_000);
    expect(&at_limit, &d, Want::False);
    let deep = format!("{}true{}", "(".repeat(300), ")".repeat(300));
    expect(
        &deep,
        &d,
        Want::Error(Limit, "expression recursion limit exceeded: 250"),
    );
    let ok = format!("{}true{}", "(".repeat(200), ")".repeat(200));
    expect(&ok, &d, Want::True);
    expect(
        &format!("a{} == 1", ".b".repeat(300)),
        &d,
        Want::Error(Limit, "recursion limit"),
    );
}

#[test]
fn compile_vs_fail_4_7() {
    let d = bar();
    expect(
        "properties.exists(p, p.type == \"certified\")",
        &d,
        Want::True,
    );
    expect(
        "properties.exists(p, p.type == \"certified\")",
        &foo("1.0.0"),
        Want::False,
    );
    expect(
        "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'foo' && semver_compare(p.value.version, '1.0.0') >= 0)",
        &foo("2.0.0"),
        Want::True,
    );
    expect(
        "properties.exists(p, p.gvk.provides(\"v1\",\"example.com\",\"Foo\"))",
        &d,
        Want::Error(Type, "undeclared reference to 'provides' (in container '')"),
    );
    expect(
        "properties.exists(p, p.type == \"olm.gvk\" && p.value == {\"group\":\"g2\",\"version\":\"v1\",\"kind\":\"k2\"})",
        &d,
        Want::True,
    );
    expect(
        "properties.filter(p, p.type == \"olm.gvk\").size() == 1",
        &d,
        Want::True,
    );
    expect(
        "properties.map(p, p.type == \"olm.gvk\", p.value.kind)[0] == \"k2\"",
        &d,
        Want::True,
    );
    expect(
        "properties.existsOne(p, true)",
        &d,
        Want::Error(Type, "undeclared reference to 'existsOne'"),
    );
    expect(
        "size(properties) == \"a\"",
        &d,
        Want::Error(
            Type,
            "found no matching overload for '_==_' applied to '(int, string)'",
        ),
    );
    expect("properties.exists(p, p.type == 1)", &d, Want::False);
    expect(
        "properties.exists(p, p.nosuch == \"x\")",
        &d,
        Want::Runtime("no such key: nosuch"),
    );
    expect(
        "properties[5].type == \"x\"",
        &d,
        Want::Runtime("index out of bounds: 5"),
    );
    expect(
        "x.exists(p, true)",
        &d,
        Want::Error(Type, "undeclared reference to 'x'"),
    );
    expect(
        "",
        &d,
        Want::Error(Syntax, "Syntax error: mismatched input '<EOF>' expecting {"),
    );
    expect("true", &d, Want::True);
}

#[test]
fn olm_conv_c30_c33() {
    let rule = "properties.exists(p, p.type == 'certified')";
    expect(rule, &bar(), Want::True);
    expect(rule, &foo("1.0.0"), Want::False);
    expect(rule, &foo("2.0.0"), Want::False);
    let Err(errs) = compile("") else {
        panic!("C31 must fail")
    };
    assert_eq!(
        render_cel_go("", &errs),
        format!(
            "ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting {}\n | \n | ^",
            syntax::EXPR_START
        )
    );
    expect(
        "1",
        &bar(),
        Want::Error(NotBool, "cel expressions must have type Bool"),
    );
    expect(
        "properties.exists(p, p.gvk.provides('v1','example.com','Foo'))",
        &bar(),
        Want::Error(Type, "undeclared reference to 'provides' (in container '')"),
    );
}

#[test]
fn vectors_9_4() {
    let d = sample();
    let cases: Vec<(&str, Want)> = vec![
        ("properties.exists(p, p.type == 'olm.maxOpenShiftVersion' && semver_compare(p.value, '4.9') == 0)", Want::True),
        ("properties.exists(p, p.type == 'olm.maxOpenShiftVersion' && p.value == 4.9)", Want::True),
        ("properties.exists(p, p.type == 'olm.package' && semver_compare(p.value.version, 'v1.2.3') == 0)", Want::True),
        (
            "properties.exists(p, semver_compare(p.value, \"1.0.0\") == 0)",
            Want::Runtime("unable to parse 'map[packageName:foo version:1.2.3]' to semver format"),
        ),
        ("properties.exists(p, p.type == \"certified\") || semver_compare(\"bad\",\"1.0.0\") == 0", Want::True),
        ("properties.exists_one(p, p.type == \"olm.gvk\")", Want::True),
        ("properties.existsOne(p, p.type == \"olm.gvk\")", Want::Error(Type, "undeclared reference to 'existsOne'")),
        ("properties.exists(p, p.type.lowerAscii() == \"olm.gvk\")", Want::Error(Type, "undeclared reference to 'lowerAscii'")),
        (
            "properties.exists(p, p.type == \"olm.package\" && int(p.value.version.split(\".\")[0]) >= 1)",
            Want::Error(Type, "undeclared reference to 'split'"),
        ),
        ("properties.exists(p, p.type == \"nullval\" && p.value == null)", Want::True),
        ("properties.exists(p, p.type == \"n\" && p.value + 1 == 4)", Want::Runtime("no such overload")),
        ("has(properties.x)", Want::Error(Type, "type 'list(map(string, any))' does not support field selection")),
        ("properties.exists(p, p.?type.orValue(\"\") == \"certified\")", Want::Error(Syntax, "unsupported syntax '.?'")),
        ("cel.bind(x, 1, x == 1)", Want::Error(Type, "undeclared reference")),
        ("math.greatest(1,2) == 2", Want::Error(Type, "undeclared reference")),
        ("optional.of(1).hasValue()", Want::Error(Type, "undeclared reference")),
        ("type(properties) == list", Want::True),
        ("properties.exists(p, p.type == \"olm.package\" && p.value.version > \"1.0.0\")", Want::True),
    ];
    for (rule, want) in cases {
        expect(rule, &d, want);
    }
    // X11 is false for OLM: the error makes the predicate false.
    let c = compile("properties.exists(p, p.type == \"n\" && p.value + 1 == 4)")
        .map_err(|e| format!("{e:?}"));
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    assert!(eval(&c, &d, 1000).is_err());
}

#[test]
fn syntax_errors_read_like_cel_go() {
    let d = sample();
    expect(
        "properties.exists(p, p.type ==)",
        &d,
        Want::Error(Syntax, "Syntax error: mismatched input ')' expecting {'['"),
    );
    expect("f(a, b,)", &d, Want::Error(Syntax, "mismatched input ')'"));
    expect(
        "true false",
        &d,
        Want::Error(Syntax, "extraneous input 'false' expecting <EOF>"),
    );
    expect(
        "a | b",
        &d,
        Want::Error(Syntax, "token recognition error at: '|'"),
    );
    expect(
        "as == 1",
        &d,
        Want::Error(Syntax, "reserved identifier: as"),
    );
    expect(
        "has(properties)",
        &d,
        Want::Error(Syntax, "invalid argument to has() macro"),
    );
    expect(
        "properties.all(1, true)",
        &d,
        Want::Error(Syntax, "argument must be a simple name"),
    );
    expect(
        "[?1] == []",
        &d,
        Want::Error(Syntax, "unsupported syntax '?'"),
    );
    expect(
        "{?'a': 1} == {}",
        &d,
        Want::Error(Syntax, "unsupported syntax '?'"),
    );
    expect(
        "[1][?0] == 1",
        &d,
        Want::Error(Syntax, "unsupported syntax '[?'"),
    );
    expect("!-1 == 1", &d, Want::Error(Syntax, "extraneous input '-'"));
    expect(
        "9223372036854775808 > 0",
        &d,
        Want::Error(Syntax, "invalid int literal"),
    );
    expect("-9223372036854775808 < 0", &d, Want::True);
    expect("!!true && --1 == 1 && !!!false", &d, Want::True);
    expect(
        "properties.exists(p, __result__)",
        &d,
        Want::Error(Type, "undeclared reference to '__result__'"),
    );
    expect(
        "Foo{a: 1} == 1",
        &d,
        Want::Error(Type, "undeclared reference to 'Foo'"),
    );
}

#[test]
fn suggestions() {
    let first = |rule: &str| -> Option<String> {
        compile(rule)
            .err()
            .and_then(|e| e.into_iter().find_map(|e| e.suggestion))
    };
    let s = first("properties.exists(p, p.type.lowerAscii() == 'olm.gvk')").unwrap_or_default();
    assert!(
        s.contains("no string extensions") && s.contains("matches('(?i)...')"),
        "{s}"
    );
    let s = first("properties.existsOne(p, true)").unwrap_or_default();
    assert!(s.contains("exists_one"), "{s}");
    let s = first("semver_compre(1, 2) == 0").unwrap_or_default();
    assert_eq!(s, "did you mean 'semver_compare'?");
    let s = first("propertes.exists(p, true)").unwrap_or_default();
    assert_eq!(s, "did you mean 'properties'?");
    let s =
        first("properties.exists(p, p.gvk.provides('v1','example.com','Foo'))").unwrap_or_default();
    assert!(
        s.contains("p.type == \"olm.gvk\"") && s.contains("p.value"),
        "{s}"
    );
    let s = first("math.greatest(1, 2) == 2").unwrap_or_default();
    assert!(s.contains("math"), "{s}");
}

#[test]
fn spans_are_byte_ranges_on_the_right_line() {
    let rule =
        "properties.exists(p,\n  p.type == \"olm.gvk\" &&\n  p.value.kind.lowerAscii() == \"foo\")";
    let errs = compile(rule).err().unwrap_or_default();
    let e = errs
        .first()
        .map(|e| (e.kind, rule.get(e.span.clone()).unwrap_or("")));
    assert_eq!(e, Some((Type, "lowerAscii()")));
    assert!(render_cel_go(rule, &errs)
        .starts_with("ERROR: <input>:3:16: undeclared reference to 'lowerAscii'"));

    let rule = "properties.exists(p,\n  size(properties) == 'a')";
    let errs = compile(rule).err().unwrap_or_default();
    assert_eq!(
        errs.first().and_then(|e| rule.get(e.span.clone())),
        Some("==")
    );
    assert!(
        render_cel_go(rule, &errs).starts_with("ERROR: <input>:2:20: found no matching overload")
    );

    let rule = "properties.exists(p,\n  p.type ==\n)";
    let errs = compile(rule).err().unwrap_or_default();
    assert_eq!(errs.first().map(|e| e.span.clone()), Some(33..34));
    assert!(render_cel_go(rule, &errs)
        .starts_with("ERROR: <input>:3:1: Syntax error: mismatched input ')'"));

    let rule = "has(properties\n  .x)";
    let errs = compile(rule).err().unwrap_or_default();
    assert_eq!(
        errs.first().and_then(|e| rule.get(e.span.clone())),
        Some(".x")
    );

    let rule = "properties.exists(p, p.type == 'a')\n  && p.?x";
    let errs = compile(rule).err().unwrap_or_default();
    assert_eq!(
        errs.first().and_then(|e| rule.get(e.span.clone())),
        Some(".?")
    );

    // Multi-byte characters before the error: spans stay byte offsets.
    let rule = "'é' == 'é' && nope";
    let errs = compile(rule).err().unwrap_or_default();
    assert_eq!(
        errs.first().and_then(|e| rule.get(e.span.clone())),
        Some("nope")
    );
    assert!(render_cel_go(rule, &errs).starts_with("ERROR: <input>:1:15:"));
}

#[test]
fn type_literals() {
    let c = compile(
        "properties.exists(p, p.type == 'olm.gvk' && p.value.kind == 'Foo') && \
         properties.all(q, 'olm.label' != q['type']) && properties.exists(r, r.type in ['a', \"b\"])",
    );
    let c = c
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let lits: Vec<(String, String)> = property_type_literals(&c)
        .into_iter()
        .map(|(s, span)| (s, span.start.to_string()))
        .collect();
    let names: Vec<&str> = lits.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(names, vec!["olm.gvk", "olm.label", "a", "b"]);
    let rule = "properties.exists(p, p.type == 'olm.gvk')";
    let c = compile(rule)
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let spans: Vec<&str> = property_type_literals(&c)
        .iter()
        .filter_map(|(_, sp)| rule.get(sp.clone()))
        .collect();
    assert_eq!(spans, vec!["'olm.gvk'"]);
}

#[test]
fn compiled_rule_is_send_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledRule>();
    assert_send_sync::<CelError>();
    assert_send_sync::<EvalError>();
}

/// Runs `f` on a thread with the default 2 MB stack (like rayon's workers).
fn on_2mb_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let h = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f);
    match h.map(|h| h.join()) {
        Ok(Ok(v)) => v,
        _ => panic!("thread failed"),
    }
}

fn kinds(rule: &str) -> Result<(), Vec<CelErrorKind>> {
    compile(rule)
        .map(|_| ())
        .map_err(|e| e.into_iter().map(|e| e.kind).collect())
}

#[test]
fn hostile_inputs_on_small_stack() {
    on_2mb_stack(|| {
        let t = Instant::now();
        // 100,000 nested parentheses (exactly the size limit).
        assert_eq!(kinds(&"(".repeat(100_000)), Err(vec![Limit]));
        assert_eq!(
            kinds(&format!("{}1{}", "(".repeat(49_999), ")".repeat(49_999))),
            Err(vec![Limit])
        );
        assert_eq!(kinds(&"[".repeat(99_999)), Err(vec![Limit]));
        // A 1 MB string literal and a 150k-character rule.
        assert_eq!(
            kinds(&format!("'{}' == 'x'", "x".repeat(1 << 20))),
            Err(vec![Limit])
        );
        assert_eq!(kinds(&"a && ".repeat(30_000)), Err(vec![Limit]));
        // Long but legal in cel-go: flat chains and unary runs (balanced or cancelled).
        let and_chain = vec!["true"; 16_000].join("&&");
        assert_eq!(kinds(&and_chain), Ok(()));
        let in_macro = format!(
            "properties.exists(p, {})",
            vec!["p.value"; 9_000].join("||")
        );
        assert_eq!(kinds(&in_macro), Ok(()));
        let nots = format!("{}true", "!".repeat(99_990));
        assert_eq!(kinds(&nots), Ok(()));
        assert_eq!(
            kinds(&format!("{}true", "!-".repeat(40_000))),
            Err(vec![Syntax])
        );
        // Deep but within cel-go's limits (runs on a bigger stack internally).
        let deep = format!("{}true{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(kinds(&deep), Err(vec![NotBool]));
        let deep = format!("{}1{} == 1", "[".repeat(200), "][0]".repeat(200));
        assert_eq!(kinds(&deep), Ok(()));
        let nested = format!(
            "{}true{}",
            "properties.exists(p, ".repeat(100),
            ")".repeat(100)
        );
        let c = compile(&nested).map_err(|e| format!("{e:?}"));
        let c = c.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(eval(&c, &sample(), 1_000_000), Ok(true));
        // Error spans of unbalanced input never panic.
        for rule in [
            "(",
            ")",
            "]]",
            "'",
            "\"abc",
            "r'''",
            "`",
            "b'\\",
            "1.e",
            "0x",
            "é",
            "properties.",
            "{:}",
        ] {
            assert!(compile(rule).is_err(), "{rule:?}");
        }
        assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    });
}

#[test]
fn many_inputs_never_panic() {
    // A crude fuzz: every prefix of some rules, on a small stack.
    on_2mb_stack(|| {
        let rules = [
            "properties.exists(p, p.type == 'olm.package' && semver_compare(p.value.version, '1.0.0') >= 0)",
            "has(properties[0].value) ? [1, 2u, 3.0][0] == dyn(1) : {'a': b\"x\"}['a'] != b'y'",
            "properties.map(p, p.type == \"n\", p.value).all(v, v in [1, 2, 3]) || !(1 < 2)",
        ];
        for rule in rules {
            for (i, _) in rule.char_indices() {
                let prefix = rule.get(..i).unwrap_or("");
                if let Ok(c) = compile(prefix) {
                    let _ = eval(&c, &sample(), 10_000);
                }
            }
        }
    });
}

#[test]
fn budget_stops_exponential_comprehensions() {
    let props: Vec<Property> = (0..1000)
        .map(|i| prop(&format!("t{i}"), json!(i)))
        .collect();
    let rule = "properties.all(a, properties.all(b, properties.all(c, a.type != '')))";
    let c = compile(rule)
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = on_2mb_stack(move || eval(&c, &props, 100_000));
    assert_eq!(r.map_err(|e| e.kind), Err(EvalErrorKind::Budget));

    // Errors inside the loops do not stop counting.
    let props: Vec<Property> = (0..1000).map(|i| prop("n", json!(i))).collect();
    let rule = "properties.all(a, properties.all(b, a.value + 1 == 2))";
    let c = compile(rule)
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        eval(&c, &props, 50_000).map_err(|e| e.kind),
        Err(EvalErrorKind::Budget)
    );

    // map/filter accumulators are charged their size.
    let rule = "properties.all(a, properties.map(b, b).size() == 1000)";
    let c = compile(rule)
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        eval(&c, &props, 200_000).map_err(|e| e.kind),
        Err(EvalErrorKind::Budget)
    );

    // A linear rule fits comfortably.
    let c = compile("properties.exists(p, p.value == 999.0)").map_err(|e| format!("{e:?}"));
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(eval(&c, &props, 5_000), Ok(true));
    assert_eq!(
        eval(&c, &props, 10).map_err(|e| e.kind),
        Err(EvalErrorKind::Budget)
    );
}

/// `"abcdefghij"` doubled `levels` times through nested one-element `map`s (no comprehension
/// runs more than once, so only the size of the strings built can stop it).
fn doubling_rule(levels: usize) -> String {
    let mut e = String::from("'abcdefghij'");
    for _ in 0..levels {
        e = format!("[{e}].map(y, y + y)[0]");
    }
    format!("size({e}) > 0")
}

#[test]
fn budget_counts_the_size_of_values_built() {
    // 30 doublings would build a 10 GiB string; the budget stops it after a few MB.
    let c = compiled(&doubling_rule(30));
    assert_eq!(
        on_2mb_stack(move || eval(&c, &sample(), 1_000_000)).map_err(|e| e.kind),
        Err(EvalErrorKind::Budget)
    );
    // 10 doublings (10 KiB) are an ordinary rule's work.
    let c = compiled(&doubling_rule(10));
    assert_eq!(eval(&c, &sample(), 1_000_000), Ok(true));
    // Lists doubled the same way.
    let mut e = String::from("[1, 2]");
    for _ in 0..40 {
        e = format!("[{e}].map(y, y + y)[0]");
    }
    let c = compiled(&format!("size({e}) > 0"));
    assert_eq!(
        on_2mb_stack(move || eval(&c, &sample(), 1_000_000)).map_err(|e| e.kind),
        Err(EvalErrorKind::Budget)
    );
}

#[test]
fn budget_counts_the_size_of_values_compared_and_searched() {
    // 200 properties of 100 KB strings: 40 000 comparisons or searches of 100 KB each are
    // only 40 000 iterations, but 4 GB of work.
    let big: Vec<Property> = (0..200)
        .map(|i| prop("s", json!(format!("{i}{}", "x".repeat(100_000)))))
        .collect();
    for rule in [
        "properties.all(a, properties.all(b, a.value != b.value || a == b))",
        "properties.all(a, properties.all(b, a.value.contains(b.value) || true))",
        "properties.all(a, properties.all(b, a.value < b.value || true))",
        "properties.all(a, properties.all(b, a.value.startsWith(b.value) || true))",
    ] {
        let c = compiled(rule);
        assert_eq!(
            eval(&c, &big, 1_000_000).map_err(|e| e.kind),
            Err(EvalErrorKind::Budget),
            "{rule}"
        );
    }
    // One pass over the same data fits.
    let c = compiled("properties.exists(p, p.value.startsWith('199x'))");
    assert_eq!(eval(&c, &big, 1_000_000), Ok(true));
}

#[test]
fn evaluation_stops_at_the_deadline() {
    let props: Vec<Property> = (0..1000).map(|i| prop("n", json!(i))).collect();
    let c = compiled("properties.all(a, properties.all(b, properties.all(c, a.type != '')))");
    let budget = EvalBudget {
        units: u64::MAX,
        deadline: Some(Instant::now() + Duration::from_millis(50)),
    };
    let r = on_2mb_stack(move || eval(&c, &props, budget));
    assert_eq!(r.map_err(|e| e.kind), Err(EvalErrorKind::Deadline));
    // A deadline already passed stops before any work.
    let c = compiled("true");
    let budget = EvalBudget {
        units: 10,
        deadline: Some(Instant::now()),
    };
    assert_eq!(
        eval(&c, &sample(), budget).map_err(|e| e.kind),
        Err(EvalErrorKind::Deadline)
    );
}

/// `cargo test --release -- --ignored --nocapture bench_compile_10k`
#[test]
#[ignore]
fn bench_compile_10k() {
    let shapes = [
        "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'pkg{i}' && semver_compare(p.value.version, '{i}.0.0') >= 0)",
        "properties.exists(p, p.type == 'olm.gvk' && p.value.group == 'g{i}.example.com' && p.value.kind == 'Kind{i}')",
        "properties.exists(p, p.type == 'olm.label' && p.value.label == 'l{i}') || properties.exists(p, p.type == 'certified')",
        "properties.filter(p, p.type == 'olm.gvk' && p.value.version in ['v{i}', 'v1']).size() >= 1 && !properties.exists(p, p.type == 'x{i}')",
    ];
    let rules: Vec<String> = (0..10_000)
        .map(|i| {
            shapes
                .get(i % shapes.len())
                .map(|s| s.replace("{i}", &i.to_string()))
                .unwrap_or_default()
        })
        .collect();
    let t = Instant::now();
    let compiled: Vec<CompiledRule> = rules.iter().filter_map(|r| compile(r).ok()).collect();
    let compile_time = t.elapsed();
    assert_eq!(compiled.len(), rules.len());
    let props = sample();
    let t = Instant::now();
    let trues = compiled
        .iter()
        .filter(|c| eval(c, &props, 1_000_000) == Ok(true))
        .count();
    let eval_time = t.elapsed();
    println!("compile+check 10k: {compile_time:?}; eval 10k: {eval_time:?} ({trues} true)");
}

// ------------------------------------------------- projection (evaluation shortcut)

fn compiled(rule: &str) -> CompiledRule {
    compile(rule)
        .map_err(|e| format!("{e:?}"))
        .unwrap_or_else(|e| panic!("{rule}: {e}"))
}

#[test]
fn projection_only_for_guarded_exists_over_properties() {
    let some = [
        (
            "properties.exists(p, p.type == 'tier' && p.value == 'gold')",
            "tier",
        ),
        (
            "properties.exists(p, 'olm.gvk' == p.type && p.value.kind == 'Foo')",
            "olm.gvk",
        ),
        (
            "properties.exists(p, p.value.x > 1.0 && p['type'] == 'n')",
            "n",
        ),
        (
            "properties.exists(q, q.value == 1.0 && (q.type == 't' && q.value != 2.0))",
            "t",
        ),
        ("properties.exists(p, p.type == 'only')", "only"),
    ];
    for (rule, ty) in some {
        assert_eq!(projection(&compiled(rule)), Some(ty), "{rule}");
    }
    let none = [
        // no type guard, or one that can be bypassed
        "properties.exists(p, p.value == 'gold')",
        "properties.exists(p, p.type == 'tier' || p.value == 'gold')",
        "properties.exists(p, !(p.type == 'tier') && p.value == 'gold')",
        "properties.exists(p, p.type != 'tier' && p.value == 'gold')",
        // the condition looks at the whole list
        "properties.exists(p, p.type == 'tier' && properties.size() > 3)",
        // not an exists at the root, or not over properties
        "properties.all(p, p.type == 'tier')",
        "properties.exists(p, p.type == 'tier') && true",
        "!properties.exists(p, p.type == 'tier')",
        "[{'type': 'tier'}].exists(p, p.type == 'tier')",
        "properties.exists_one(p, p.type == 'tier')",
        // the guard is on another variable
        "properties.exists(p, properties[0].type == 'tier' && p.value == 1.0)",
    ];
    for rule in none {
        assert_eq!(projection(&compiled(rule)), None, "{rule}");
    }
}

#[test]
fn projected_evaluation_equals_full_evaluation() {
    let rules = [
        "properties.exists(p, p.type == 'tier' && p.value == 'gold')",
        "properties.exists(p, p.type == 'n' && p.value.x > 1.0)",
        "properties.exists(p, p.value.x > 1.0 && p.type == 'n')",
        "properties.exists(p, p.type == 'olm.gvk' && p.value.kind == 'Foo')",
        "properties.exists(p, p.type == 'n' && p.value + 1 > 2)",
    ];
    let lists = [
        vec![],
        vec![prop("tier", json!("gold"))],
        vec![prop("tier", json!("silver")), prop("n", json!({"x": 2}))],
        vec![prop("n", json!({"y": 2})), prop("tier", json!("gold"))],
        vec![prop("n", json!({"y": 2})), prop("n", json!({"x": 0.5}))],
        vec![prop("n", json!(3)), prop("x", json!({"x": 9}))],
        sample(),
    ];
    for rule in rules {
        let c = compiled(rule);
        let Some(ty) = projection(&c) else {
            panic!("{rule} has no projection")
        };
        for props in &lists {
            let only: Vec<Property> = props.iter().filter(|p| p.ty == ty).cloned().collect();
            let full = eval(&c, props, 10_000).map_err(|e| e.kind);
            let projected = eval(&c, &only, 10_000).map_err(|e| e.kind);
            assert_eq!(full, projected, "{rule} on {props:?}");
        }
    }
}

/// OLM720's environment: `cluster` is declared there and only there.
#[test]
fn cluster_variable_only_in_cluster_env() {
    let rule = r#"properties.all(p, p.type != "olm.kubeversion" || cluster.exists(c, c.type == "olm.kubeversion" && semver_compare(p.value.version, c.value.version) <= 0))"#;
    let errs = compile(rule).unwrap_err();
    assert_eq!(errs[0].kind, CelErrorKind::Type);
    assert_eq!(
        errs[0].message,
        "undeclared reference to 'cluster' (in container '')"
    );
    assert!(errs[0]
        .suggestion
        .as_deref()
        .is_some_and(|s| s.contains("--cluster-properties")));
    let compiled = compile_in(rule, Env::Cluster).unwrap();
    let cluster = Input::new(&[prop("olm.kubeversion", json!({"version": "1.29.0"}))]);
    let on = |v: &str| {
        let input = Input::new(&[prop("olm.kubeversion", json!({ "version": v }))]);
        eval_in(&compiled, &input, Some(&cluster), 10_000)
    };
    assert_eq!(on("1.27.0"), Ok(true));
    assert_eq!(on("1.29.0"), Ok(true));
    assert_eq!(on("1.30.0"), Ok(false));
    // The same checks as in OLM's environment: `cluster` is a list, the result must be bool.
    let errs = compile_in("cluster.type == 'x'", Env::Cluster).unwrap_err();
    assert!(errs[0].message.contains("does not support field selection"));
    let errs = compile_in("size(cluster)", Env::Cluster).unwrap_err();
    assert_eq!(errs[0].kind, CelErrorKind::NotBool);
    let errs = compile_in("clustr.exists(c, true)", Env::Cluster).unwrap_err();
    assert_eq!(
        errs[0].suggestion.as_deref(),
        Some("did you mean 'cluster'?")
    );
    let errs = compile("clustr.exists(c, true)").unwrap_err();
    assert_ne!(
        errs[0].suggestion.as_deref(),
        Some("did you mean 'cluster'?")
    );
}
