//! Declarations of OLM's environment: cel-go's standard library (v0.29/v0.30, with
//! cross-type numeric comparisons) plus `semver_compare`, and the declared identifiers.

use super::types::{Ty, PARAM_A, PARAM_B};
use std::collections::HashMap;
use std::sync::OnceLock;

pub(super) struct Overload {
    pub member: bool,
    pub params: Vec<Ty>,
    pub result: Ty,
    /// Whether the overload mentions the type parameters `A`/`B`.
    pub generic: bool,
}

pub(super) struct FnDecl {
    pub overloads: Vec<Overload>,
}

fn contains_param(t: &Ty) -> bool {
    match t {
        Ty::Var(_) => true,
        Ty::List(e) => contains_param(e),
        Ty::Map(k, v) => contains_param(k) || contains_param(v),
        Ty::Type(Some(p)) => contains_param(p),
        _ => false,
    }
}

#[derive(Default)]
struct Builder {
    fns: HashMap<&'static str, FnDecl>,
}

impl Builder {
    fn add(&mut self, name: &'static str, member: bool, params: Vec<Ty>, result: Ty) {
        let generic = params.iter().any(contains_param) || contains_param(&result);
        self.fns
            .entry(name)
            .or_insert_with(|| FnDecl {
                overloads: Vec::new(),
            })
            .overloads
            .push(Overload {
                member,
                params,
                result,
                generic,
            });
    }
    fn global(&mut self, name: &'static str, params: Vec<Ty>, result: Ty) {
        self.add(name, false, params, result);
    }
    fn member(&mut self, name: &'static str, params: Vec<Ty>, result: Ty) {
        self.add(name, true, params, result);
    }
}

/// All declared functions, keyed by name.
pub(super) fn functions() -> &'static HashMap<&'static str, FnDecl> {
    static FNS: OnceLock<HashMap<&'static str, FnDecl>> = OnceLock::new();
    FNS.get_or_init(build)
}

fn build() -> HashMap<&'static str, FnDecl> {
    use Ty::*;
    let a = || Var(PARAM_A);
    let b = || Var(PARAM_B);
    let list_a = || Ty::list(a());
    let map_ab = || Ty::map(a(), b());
    let mut f = Builder::default();

    f.global("_?_:_", vec![Bool, a(), a()], a());
    f.global("!_", vec![Bool], Bool);
    f.global("_==_", vec![a(), a()], Bool);
    f.global("_!=_", vec![a(), a()], Bool);

    for (t, r) in [
        (Bytes, Bytes),
        (Double, Double),
        (Duration, Duration),
        (Int, Int),
        (String, String),
        (Uint, Uint),
    ] {
        f.global("_+_", vec![t.clone(), t], r);
    }
    f.global("_+_", vec![Duration, Timestamp], Timestamp);
    f.global("_+_", vec![Timestamp, Duration], Timestamp);
    f.global("_+_", vec![list_a(), list_a()], list_a());
    for t in [Double, Int, Uint] {
        f.global("_/_", vec![t.clone(), t.clone()], t.clone());
        f.global("_*_", vec![t.clone(), t.clone()], t);
    }
    for t in [Int, Uint] {
        f.global("_%_", vec![t.clone(), t.clone()], t);
    }
    f.global("-_", vec![Double], Double);
    f.global("-_", vec![Int], Int);
    for (l, r, res) in [
        (Double, Double, Double),
        (Duration, Duration, Duration),
        (Int, Int, Int),
        (Timestamp, Duration, Timestamp),
        (Timestamp, Timestamp, Duration),
        (Uint, Uint, Uint),
    ] {
        f.global("_-_", vec![l, r], res);
    }
    let numeric = [Int, Uint, Double];
    for op in ["_<_", "_<=_", "_>_", "_>=_"] {
        f.global(op, vec![Bool, Bool], Bool);
        for l in &numeric {
            for r in &numeric {
                f.global(op, vec![l.clone(), r.clone()], Bool);
            }
        }
        for t in [String, Bytes, Timestamp, Duration] {
            f.global(op, vec![t.clone(), t], Bool);
        }
    }
    f.global("_[_]", vec![list_a(), Int], a());
    f.global("_[_]", vec![map_ab(), a()], b());
    f.global("@in", vec![a(), list_a()], Bool);
    f.global("@in", vec![a(), map_ab()], Bool);
    for t in [Bytes, list_a(), map_ab(), String] {
        f.global("size", vec![t.clone()], Int);
        f.member("size", vec![t], Int);
    }
    f.global("type", vec![a()], Ty::type_of(a()));
    f.global("bool", vec![Bool], Bool);
    f.global("bool", vec![String], Bool);
    f.global("bytes", vec![Bytes], Bytes);
    f.global("bytes", vec![String], Bytes);
    for t in [Double, Int, String, Uint] {
        f.global("double", vec![t], Double);
    }
    for t in [Duration, Int, String] {
        f.global("duration", vec![t], Duration);
    }
    f.global("dyn", vec![a()], Dyn);
    for t in [Int, Double, Duration, String, Timestamp, Uint] {
        f.global("int", vec![t], Int);
    }
    for t in [String, Bool, Bytes, Double, Duration, Int, Timestamp, Uint] {
        f.global("string", vec![t], String);
    }
    for t in [Timestamp, Int, String] {
        f.global("timestamp", vec![t], Timestamp);
    }
    for t in [Uint, Double, Int, String] {
        f.global("uint", vec![t], Uint);
    }
    for name in ["contains", "endsWith", "startsWith"] {
        f.member(name, vec![String, String], Bool);
    }
    f.global("matches", vec![String, String], Bool);
    f.member("matches", vec![String, String], Bool);
    for name in [
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
    ] {
        f.member(name, vec![Timestamp], Int);
        f.member(name, vec![Timestamp, String], Int);
    }
    for name in ["getHours", "getMinutes", "getSeconds", "getMilliseconds"] {
        f.member(name, vec![Timestamp], Int);
        f.member(name, vec![Timestamp, String], Int);
        f.member(name, vec![Duration], Int);
    }
    // OLM's custom function: `semver_compare(any, any) -> int`, global only.
    f.global("semver_compare", vec![Any, Any], Int);
    f.fns
}

/// Global identifiers: the environment's variables and cel-go's standard type identifiers.
pub(super) fn lookup_global(name: &str, env: super::Env) -> Option<Ty> {
    use Ty::*;
    Some(match name {
        "properties" => Ty::list(Ty::map(String, Any)),
        "cluster" if env == super::Env::Cluster => Ty::list(Ty::map(String, Any)),
        "bool" => Ty::type_of(Bool),
        "bytes" => Ty::type_of(Bytes),
        "double" => Ty::type_of(Double),
        "google.protobuf.Duration" => Ty::type_of(Duration),
        "int" => Ty::type_of(Int),
        "list" => Ty::type_of(Ty::list(Var(PARAM_A))),
        "map" => Ty::type_of(Ty::map(Var(PARAM_A), Var(PARAM_B))),
        "null_type" => Ty::type_of(Null),
        "string" => Ty::type_of(String),
        "google.protobuf.Timestamp" => Ty::type_of(Timestamp),
        "type" => Ty::type_of(Type(None)),
        "uint" => Ty::type_of(Uint),
        _ => return None,
    })
}

/// Names a user may call (for did-you-mean suggestions), including the macros.
pub(super) fn callable_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = functions()
        .keys()
        .copied()
        .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .filter(|n| !n.starts_with('_'))
        .collect();
    names.extend(["has", "all", "exists", "exists_one", "map", "filter"]);
    names.sort_unstable();
    names
}
