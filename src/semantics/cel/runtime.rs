//! Evaluation on cel-core's interpreter: OLM's runtime data, `semver_compare`, a step
//! budget enforced through instrumented comprehensions, and cel-go error wording.

use super::version_parse;
use cel_core::{
    BinaryOp, CelType, Env, EvalErrorKind as CoreKind, Expr, FunctionDecl, MapKey, OverloadDecl,
    Spanned, SpannedExpr, Value, ValueMap,
};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

const STEP_FN: &str = "@olm_step";
const CHARGE_FN: &str = "@olm_charge";

#[derive(Clone, Copy, Default)]
struct Budget {
    remaining: u64,
    exhausted: bool,
}

thread_local! {
    static BUDGET: Cell<Budget> = const { Cell::new(Budget { remaining: u64::MAX, exhausted: false }) };
    static REGEX_CACHE: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Runs `f` with a fresh step budget on this thread; returns its result and whether the
/// budget ran out.
pub(super) fn with_budget<T>(budget: u64, f: impl FnOnce() -> T) -> (T, bool) {
    let saved = BUDGET.with(|b| {
        b.replace(Budget {
            remaining: budget,
            exhausted: false,
        })
    });
    let out = f();
    let after = BUDGET.with(|b| b.replace(saved));
    (out, after.exhausted)
}

/// One comprehension iteration: `false` (stop the loop) once the budget is spent.
fn step(_: &[Value]) -> Value {
    BUDGET.with(|b| {
        let mut s = b.get();
        let ok = if s.remaining == 0 {
            s.exhausted = true;
            false
        } else {
            s.remaining -= 1;
            true
        };
        b.set(s);
        Value::Bool(ok)
    })
}

/// Charges the size of a `map`/`filter` accumulator (copied on every step).
fn charge(args: &[Value]) -> Value {
    let Some(v) = args.first() else {
        return Value::Null;
    };
    if let Value::List(l) = v {
        let cost = l.len() as u64;
        BUDGET.with(|b| {
            let mut s = b.get();
            if s.remaining < cost {
                s.remaining = 0;
                s.exhausted = true;
            } else {
                s.remaining -= cost;
            }
            b.set(s);
        });
    }
    v.clone()
}

/// RE2-style `matches` with a per-thread cache of compiled patterns.
fn matches(args: &[Value]) -> Value {
    let (Some(Value::String(s)), Some(Value::String(p))) = (args.first(), args.get(1)) else {
        return Value::error(cel_core::EvalError::no_matching_overload("matches"));
    };
    REGEX_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 512 {
            cache.clear();
        }
        let re = cache
            .entry(p.to_string())
            .or_insert_with(|| regex::Regex::new(p).ok());
        match re {
            Some(re) => Value::Bool(re.is_match(s)),
            None => Value::error(cel_core::EvalError::invalid_argument(format!(
                "invalid regular expression: {p}"
            ))),
        }
    })
}

fn semver_compare(args: &[Value]) -> Value {
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Value::error(cel_core::EvalError::no_matching_overload("semver_compare"));
    };
    let parse = |v: &Value| {
        let s = go_sprint(v);
        version_parse(&s).map_err(|_| {
            Value::error(cel_core::EvalError::invalid_argument(format!(
                "unable to parse '{s}' to semver format"
            )))
        })
    };
    let va = match parse(a) {
        Ok(v) => v,
        Err(e) => return e,
    };
    let vb = match parse(b) {
        Ok(v) => v,
        Err(e) => return e,
    };
    Value::Int(match va.cmp_precedence(&vb) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

/// The environment used only to build programs (checking is done by `check.rs`).
fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let f = |name: &str,
                 id: &str,
                 params: Vec<CelType>,
                 ret: CelType,
                 imp: fn(&[Value]) -> Value| {
            FunctionDecl::new(name)
                .with_overload(OverloadDecl::function(id, params, ret).with_impl(imp))
        };
        let matches_decl = FunctionDecl::new("matches")
            .with_overload(
                OverloadDecl::function(
                    "matches",
                    vec![CelType::String, CelType::String],
                    CelType::Bool,
                )
                .with_impl(matches),
            )
            .with_overload(
                OverloadDecl::method(
                    "matches_string",
                    vec![CelType::String, CelType::String],
                    CelType::Bool,
                )
                .with_impl(matches),
            );
        Env::new()
            .with_function(f(
                "semver_compare",
                "semver_compare",
                vec![CelType::Dyn, CelType::Dyn],
                CelType::Int,
                semver_compare,
            ))
            .with_function(f(STEP_FN, "olm_step", vec![], CelType::Bool, step))
            .with_function(f(
                CHARGE_FN,
                "olm_charge",
                vec![CelType::Dyn],
                CelType::Dyn,
                charge,
            ))
            .with_function(matches_decl)
    })
}

pub(super) fn program(expr: SpannedExpr, source: &str) -> Option<cel_core::Program> {
    let ast = cel_core::Ast::new_unchecked(expr, source);
    env().program(&ast).ok()
}

/// Wraps every comprehension so each iteration calls `@olm_step()` first, and every
/// list-accumulating step (`map`, `filter`) is charged its accumulator size.
pub(super) struct Instrumenter {
    next_id: i64,
}

impl Instrumenter {
    pub(super) fn new() -> Self {
        // Node ids only matter for checked ASTs; keep new ones distinct anyway.
        Instrumenter {
            next_id: i64::MAX / 2,
        }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn call(
        &mut self,
        name: &str,
        args: Vec<SpannedExpr>,
        span: std::ops::Range<usize>,
    ) -> SpannedExpr {
        let callee = Spanned::new(self.id(), Expr::Ident(name.to_string()), span.clone());
        Spanned::new(
            self.id(),
            Expr::Call {
                expr: Box::new(callee),
                args,
            },
            span,
        )
    }

    /// Rewrites the boxed node in place (reusing the allocation).
    fn bx(&mut self, mut e: Box<SpannedExpr>) -> Box<SpannedExpr> {
        let inner = std::mem::replace(&mut *e, Spanned::new(0, Expr::Null, 0..0));
        *e = self.run(inner);
        e
    }

    pub(super) fn run(&mut self, e: SpannedExpr) -> SpannedExpr {
        let Spanned { id, node, span } = e;
        let node = match node {
            Expr::Comprehension(mut c) => {
                c.iter_range = self.bx(c.iter_range);
                c.accu_init = self.bx(c.accu_init);
                let cond = self.run(*c.loop_condition);
                let step_call = self.call(STEP_FN, vec![], span.clone());
                c.loop_condition = Box::new(Spanned::new(
                    self.id(),
                    Expr::Binary {
                        op: BinaryOp::And,
                        left: Box::new(step_call),
                        right: Box::new(cond),
                    },
                    span.clone(),
                ));
                let step = self.run(*c.loop_step);
                let list_accu = matches!(c.accu_init.node, Expr::List(ref l) if l.is_empty());
                c.loop_step = Box::new(if list_accu {
                    self.call(CHARGE_FN, vec![step], span.clone())
                } else {
                    step
                });
                c.result = self.bx(c.result);
                Expr::Comprehension(c)
            }
            Expr::Unary { op, expr } => Expr::Unary {
                op,
                expr: self.bx(expr),
            },
            Expr::Binary { op, left, right } => Expr::Binary {
                op,
                left: self.bx(left),
                right: self.bx(right),
            },
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } => Expr::Ternary {
                cond: self.bx(cond),
                then_expr: self.bx(then_expr),
                else_expr: self.bx(else_expr),
            },
            Expr::Member {
                expr,
                field,
                optional,
            } => Expr::Member {
                expr: self.bx(expr),
                field,
                optional,
            },
            Expr::Index {
                expr,
                index,
                optional,
            } => Expr::Index {
                expr: self.bx(expr),
                index: self.bx(index),
                optional,
            },
            Expr::Call { expr, args } => Expr::Call {
                expr: self.bx(expr),
                args: args.into_iter().map(|a| self.run(a)).collect(),
            },
            Expr::List(elems) => Expr::List(
                elems
                    .into_iter()
                    .map(|mut el| {
                        el.expr = self.run(el.expr);
                        el
                    })
                    .collect(),
            ),
            Expr::Map(entries) => Expr::Map(
                entries
                    .into_iter()
                    .map(|mut en| {
                        en.key = self.run(en.key);
                        en.value = self.run(en.value);
                        en
                    })
                    .collect(),
            ),
            Expr::MemberTestOnly { expr, field } => Expr::MemberTestOnly {
                expr: self.bx(expr),
                field,
            },
            other => other,
        };
        Spanned::new(id, node, span)
    }
}

/// JSON as OLM decodes it (`json.Unmarshal` into `any`): every number is a double.
pub(super) fn json_to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(Arc::from(s.as_str())),
        serde_json::Value::Array(a) => Value::List(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => {
            Value::Map(Arc::new(ValueMap::from_entries(o.iter().map(|(k, v)| {
                (MapKey::String(Arc::from(k.as_str())), json_to_value(v))
            }))))
        }
    }
}

/// One element of `properties`: `{"type": ty, "value": value}`.
pub(super) fn property_value(ty: &str, value: &serde_json::Value) -> Value {
    Value::Map(Arc::new(ValueMap::from_entries([
        (
            MapKey::String(Arc::from("type")),
            Value::String(Arc::from(ty)),
        ),
        (MapKey::String(Arc::from("value")), json_to_value(value)),
    ])))
}

/// Go's `fmt.Sprint` of the native value behind a CEL value.
pub(super) fn go_sprint(v: &Value) -> String {
    let mut out = String::new();
    sprint_into(&mut out, v);
    out
}

fn sprint_into(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Double(d) => out.push_str(&go_float(*d)),
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => {
            out.push('[');
            for (i, byte) in b.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let _ = write!(out, "{byte}");
            }
            out.push(']');
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                sprint_into(out, item);
            }
            out.push(']');
        }
        Value::Map(m) => {
            // Go prints maps with keys sorted.
            let mut entries: Vec<(String, &Value)> = m
                .iter()
                .map(|(k, v)| (go_sprint(&k.to_value()), v))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push_str("map[");
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                sprint_into(out, v);
            }
            out.push(']');
        }
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}

/// Go `%v` of a float64 (`%g`, shortest digits): exponent form when exp < -4 or exp >= 6.
pub(super) fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        format!("{f}")
    }
}

/// cel-go's wording for cel-core runtime errors.
pub(super) fn runtime_message(e: &cel_core::EvalError) -> String {
    let msg = e.message.as_str();
    match e.kind {
        CoreKind::KeyNotFound => {
            let key = msg.strip_prefix("key not found: ").unwrap_or(msg);
            let key = key
                .strip_prefix('"')
                .and_then(|k| k.strip_suffix('"'))
                .unwrap_or(key);
            format!("no such key: {key}")
        }
        CoreKind::IndexOutOfBounds => {
            let idx = msg
                .strip_prefix("index ")
                .and_then(|s| s.split_whitespace().next())
                .unwrap_or(msg);
            format!("index out of bounds: {idx}")
        }
        CoreKind::NoMatchingOverload => "no such overload".into(),
        CoreKind::DivisionByZero => "division by zero".into(),
        CoreKind::ModuloByZero => "modulus by zero".into(),
        CoreKind::Overflow => "integer overflow".into(),
        _ => msg.to_string(),
    }
}
