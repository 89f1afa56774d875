//! Evaluation on cel-core's interpreter: OLM's runtime data, `semver_compare`, a cost
//! budget enforced through an instrumented AST, and cel-go error wording.
//!
//! The cost model follows cel-go's in spirit: one unit per comprehension iteration, and for
//! every operation whose work grows with its operands (`+`, comparisons, `in`, function and
//! method calls), the size of the values involved — a string one unit per 10 bytes (cel-go's
//! traversal factor 0.1), a list or map the sum over its elements. Values are measured only up
//! to what the budget has left, so measuring never costs more than the budget. Once the budget
//! is spent (or the run's deadline has passed) every charge yields an error value and every
//! comprehension stops, so a rule that doubles a string in a loop ends after a few megabytes
//! instead of allocating gigabytes.

use super::version_parse;
use cel_core::{
    BinaryOp, CelType, ComprehensionData, Env, EvalErrorKind as CoreKind, Expr, FunctionDecl,
    MapKey, OverloadDecl, Spanned, SpannedExpr, Value, ValueMap,
};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

const STEP_FN: &str = "@olm_step";
const CHARGE_FN: &str = "@olm_charge";
const CHARGE_SHALLOW_FN: &str = "@olm_charge_shallow";
/// Charges are counted between clock reads: reading the clock on every step would cost more
/// than the step.
const CLOCK_EVERY: u32 = 4096;

/// What stopped an evaluation early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    Budget,
    Deadline,
}

#[derive(Clone, Copy)]
struct Budget {
    remaining: u64,
    stopped: Option<Stop>,
    deadline: Option<Instant>,
    until_clock: u32,
}

impl Budget {
    const UNLIMITED: Budget = Budget {
        remaining: u64::MAX,
        stopped: None,
        deadline: None,
        until_clock: CLOCK_EVERY,
    };

    /// Spends `cost` units; `false` once the budget or the time is gone.
    fn spend(&mut self, cost: u64) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        if let Some(d) = self.deadline {
            self.until_clock = self.until_clock.saturating_sub(1);
            if self.until_clock == 0 {
                self.until_clock = CLOCK_EVERY;
                if Instant::now() >= d {
                    self.remaining = 0;
                    self.stopped = Some(Stop::Deadline);
                    return false;
                }
            }
        }
        if self.remaining < cost {
            self.remaining = 0;
            self.stopped = Some(Stop::Budget);
            return false;
        }
        self.remaining -= cost;
        true
    }
}

thread_local! {
    static BUDGET: Cell<Budget> = const { Cell::new(Budget::UNLIMITED) };
    static REGEX_CACHE: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Runs `f` with a fresh budget of `units` (and the run's deadline) on this thread; returns
/// its result and what stopped it early, if anything.
pub(super) fn with_budget<T>(
    units: u64,
    deadline: Option<Instant>,
    f: impl FnOnce() -> T,
) -> (T, Option<Stop>) {
    let fresh = Budget {
        remaining: units,
        stopped: deadline
            .filter(|d| Instant::now() >= *d)
            .map(|_| Stop::Deadline),
        deadline,
        until_clock: CLOCK_EVERY,
    };
    let saved = BUDGET.with(|b| b.replace(fresh));
    let out = f();
    let after = BUDGET.with(|b| b.replace(saved));
    (out, after.stopped)
}

fn spend(cost: u64) -> bool {
    BUDGET.with(|b| {
        let mut s = b.get();
        let ok = s.spend(cost);
        b.set(s);
        ok
    })
}

fn remaining() -> u64 {
    BUDGET.with(|b| b.get().remaining)
}

/// One comprehension iteration: `false` (stop the loop) once the budget is spent.
fn step(_: &[Value]) -> Value {
    Value::Bool(spend(1))
}

/// The cost of handling `v` whole (see the module documentation), measured up to `cap`
/// units: at most `cap + 1` is returned, after visiting at most that many values.
fn cost(v: &Value, cap: u64) -> u64 {
    let mut total: u64 = 0;
    let mut stack: Vec<&Value> = vec![v];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(match v {
            Value::String(s) => 1 + s.len() as u64 / 10,
            Value::Bytes(b) => 1 + b.len() as u64 / 10,
            Value::List(items) => {
                stack.extend(items.iter());
                1
            }
            Value::Map(m) => {
                for (_, v) in m.iter() {
                    stack.push(v);
                }
                1 + m.len() as u64
            }
            _ => 1,
        });
        if total > cap {
            return cap.saturating_add(1);
        }
    }
    total
}

/// The cost of building `v` from values that already exist: a string's bytes are copied,
/// a list's or map's elements are shared (reference-counted), so only their number counts.
fn shallow_cost(v: &Value) -> u64 {
    match v {
        Value::String(s) => 1 + s.len() as u64 / 10,
        Value::Bytes(b) => 1 + b.len() as u64 / 10,
        Value::List(items) => 1 + items.len() as u64,
        Value::Map(m) => 1 + m.len() as u64,
        _ => 1,
    }
}

/// Charges the whole cost of its argument (an operand of `==`, `!=`, `in`, which compare
/// deeply) and passes it through; an error value once the budget is spent, so nothing
/// further is built from it.
fn charge(args: &[Value]) -> Value {
    let Some(v) = args.first() else {
        return Value::Null;
    };
    pass_if_paid(v, cost(v, remaining()))
}

/// Charges the [`shallow_cost`] of its argument: the result of `+`, an argument of a call or
/// an ordering comparison.
fn charge_shallow(args: &[Value]) -> Value {
    let Some(v) = args.first() else {
        return Value::Null;
    };
    pass_if_paid(v, shallow_cost(v))
}

fn pass_if_paid(v: &Value, c: u64) -> Value {
    if spend(c) {
        v.clone()
    } else {
        Value::error(cel_core::EvalError::invalid_argument(
            "evaluation cost budget exhausted",
        ))
    }
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
            .with_function(f(
                CHARGE_SHALLOW_FN,
                "olm_charge_shallow",
                vec![CelType::Dyn],
                CelType::Dyn,
                charge_shallow,
            ))
            .with_function(matches_decl)
    })
}

pub(super) fn program(expr: SpannedExpr, source: &str) -> Option<cel_core::Program> {
    let ast = cel_core::Ast::new_unchecked(expr, source);
    env().program(&ast).ok()
}

/// Rewrites a rule so that evaluating it pays for its work (see the module documentation):
/// each comprehension iteration calls `@olm_step()` first; the result of `+` and the
/// non-literal operands of calls and ordering comparisons pass through `@olm_charge_shallow`;
/// the non-literal operands of `==`, `!=` and `in` through `@olm_charge`.
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

    fn wrap(&mut self, function: &str, e: SpannedExpr) -> SpannedExpr {
        let span = e.span.clone();
        self.call(function, vec![e], span)
    }

    /// An operand, instrumented and then charged unless it is a literal (whose cost is
    /// bounded by the rule's own size).
    fn operand(&mut self, function: &str, e: Box<SpannedExpr>) -> Box<SpannedExpr> {
        let e = self.bx(e);
        if is_literal(&e.node) {
            return e;
        }
        Box::new(self.wrap(function, *e))
    }

    pub(super) fn run(&mut self, e: SpannedExpr) -> SpannedExpr {
        let Spanned { id, node, span } = e;
        let node = match node {
            Expr::Comprehension(c) => self.comprehension(c, &span),
            Expr::Unary { op, expr } => Expr::Unary {
                op,
                expr: self.bx(expr),
            },
            Expr::Binary { op, left, right } => return self.binary(id, op, left, right, span),
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
            Expr::Call { expr, args } => self.charged_call(*expr, args),
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
            // Not in OLM's environment (the checker rejects them), instrumented all the same.
            Expr::Bind {
                var_name,
                init,
                body,
            } => Expr::Bind {
                var_name,
                init: self.bx(init),
                body: self.bx(body),
            },
            Expr::Struct { type_name, fields } => Expr::Struct {
                type_name,
                fields: fields
                    .into_iter()
                    .map(|mut fl| {
                        fl.value = self.run(fl.value);
                        fl
                    })
                    .collect(),
            },
            other => other,
        };
        Spanned::new(id, node, span)
    }

    /// Each iteration calls `@olm_step()` before the loop condition.
    fn comprehension(&mut self, mut c: ComprehensionData, span: &std::ops::Range<usize>) -> Expr {
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
        c.loop_step = self.bx(c.loop_step);
        c.result = self.bx(c.result);
        Expr::Comprehension(c)
    }

    /// A binary operation: a sum is charged for its result, equality and `in` for their
    /// operands in depth, ordering comparisons for their operands' top level.
    fn binary(
        &mut self,
        id: i64,
        op: BinaryOp,
        left: Box<SpannedExpr>,
        right: Box<SpannedExpr>,
        span: std::ops::Range<usize>,
    ) -> SpannedExpr {
        let node = match op {
            BinaryOp::Add => {
                let sum = Spanned::new(
                    id,
                    Expr::Binary {
                        op,
                        left: self.bx(left),
                        right: self.bx(right),
                    },
                    span,
                );
                return self.wrap(CHARGE_SHALLOW_FN, sum);
            }
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::In => Expr::Binary {
                op,
                left: self.operand(CHARGE_FN, left),
                right: self.operand(CHARGE_FN, right),
            },
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => Expr::Binary {
                op,
                left: self.operand(CHARGE_SHALLOW_FN, left),
                right: self.operand(CHARGE_SHALLOW_FN, right),
            },
            _ => Expr::Binary {
                op,
                left: self.bx(left),
                right: self.bx(right),
            },
        };
        Spanned::new(id, node, span)
    }

    /// A call: its arguments are charged, and a method's receiver like an argument (the
    /// callee itself is a name), except for prefix and suffix tests, whose work is the
    /// argument's size.
    fn charged_call(&mut self, callee: SpannedExpr, args: Vec<SpannedExpr>) -> Expr {
        let Spanned {
            id: callee_id,
            node: callee,
            span: callee_span,
        } = callee;
        let callee = match callee {
            Expr::Member {
                expr: receiver,
                field,
                optional,
            } => Expr::Member {
                expr: if matches!(field.as_str(), "startsWith" | "endsWith") {
                    self.bx(receiver)
                } else {
                    self.operand(CHARGE_SHALLOW_FN, receiver)
                },
                field,
                optional,
            },
            other => other,
        };
        let callee = Box::new(Spanned::new(callee_id, callee, callee_span));
        Expr::Call {
            expr: callee,
            args: args
                .into_iter()
                .map(|a| *self.operand(CHARGE_SHALLOW_FN, Box::new(a)))
                .collect(),
        }
    }
}

fn is_literal(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::UInt(_)
            | Expr::Float(_)
            | Expr::String(_)
            | Expr::Bytes(_)
    )
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
