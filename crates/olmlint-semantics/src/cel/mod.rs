//! OLM's CEL dialect (`olm.constraint` `cel.rule`), reproducing OLM's cel-go environment:
//! standard library only, `properties: list(map(string, any))`, the global
//! `semver_compare(any, any) -> int`, and a result that must be exactly `bool`.
//!
//! cel-core 0.5.1 provides the lexer/parser (with OLM's macro set) and the evaluator. The
//! type checker is our own port of cel-go's (cel-core's accepts e.g. `1 == "a"`). A
//! linear pre-scan enforces cel-go's size and recursion limits before any recursive
//! pass runs; deep-but-legal rules are processed on a thread with a larger stack.
//! Evaluation is bounded by a step budget (OLM has none).

mod check;
mod limits;
mod runtime;
mod stdlib;
mod suggest;
mod syntax;
mod types;

#[cfg(test)]
mod tests;

use cel_core::{BinaryOp, Expr, MapActivation, SpannedExpr, Value};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// The variables a rule sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Env {
    /// OLM's own environment: `properties` only.
    #[default]
    Olm,
    /// olmlint's cluster constraints (OLM720, not an upstream feature): OLM's environment
    /// plus `cluster: list(map(string, any))`, the target cluster's `{type, value}` properties.
    Cluster,
}

/// Category of a compile error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CelErrorKind {
    /// The parser rejects the rule (cel-go `Syntax error: ...` and parser checks).
    Syntax,
    /// The type checker rejects the rule.
    Type,
    /// The rule type-checks but its result is not `bool`.
    NotBool,
    /// Size or nesting limits.
    Limit,
}

/// A compile error, worded like OLM/cel-go's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelError {
    /// Which stage rejected the rule.
    pub kind: CelErrorKind,
    /// cel-go's message without the `ERROR: <input>:L:C:` prefix (see [`render_cel_go`]).
    pub message: String,
    /// Byte range within the rule.
    pub span: Range<usize>,
    /// A hint for the user (not part of OLM's message).
    pub suggestion: Option<String>,
}

impl fmt::Display for CelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CelError {}

/// A rule that compiled; cheap to clone and shareable across threads.
#[derive(Clone)]
pub struct CompiledRule {
    inner: Arc<Compiled>,
}

struct Compiled {
    program: cel_core::Program,
    literals: Vec<(String, Range<usize>)>,
    /// See [`projection`].
    projection: Option<String>,
    /// AST depth; deep ASTs are evaluated on a thread with a larger stack.
    depth: u32,
}

impl fmt::Debug for CompiledRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledRule").finish_non_exhaustive()
    }
}

/// One bundle property as OLM exposes it to CEL.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The property `type`, e.g. `olm.gvk`.
    pub ty: String,
    /// The decoded `value` JSON.
    pub value: serde_json::Value,
}

/// Why an evaluation gave no boolean (OLM treats all of these as `false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvalErrorKind {
    /// A CEL runtime error, e.g. `no such key: x` or `no such overload`.
    Runtime,
    /// The cost budget ran out (OLM itself has no limit).
    Budget,
    /// The run's deadline (`--timeout`) passed during the evaluation.
    Deadline,
}

/// What one evaluation may spend: cost units (see `runtime`: comprehension iterations and the
/// size of the values compared and built) and, optionally, until when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EvalBudget {
    pub units: u64,
    pub deadline: Option<std::time::Instant>,
}

impl From<u64> for EvalBudget {
    fn from(units: u64) -> Self {
        EvalBudget {
            units,
            deadline: None,
        }
    }
}

/// An evaluation that produced no boolean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// Runtime error or exhausted budget.
    pub kind: EvalErrorKind,
    /// cel-go's wording where known (e.g. `no such key: x`).
    pub message: String,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// Stack needed by the recursive passes beyond which they run on a dedicated thread.
const INLINE_STACK: usize = 512 * 1024;
/// AST depth beyond which evaluation runs on a dedicated thread.
const INLINE_EVAL_DEPTH: u32 = 96;
const MIN_BIG_STACK: usize = 16 * 1024 * 1024;
const MAX_BIG_STACK: usize = 512 * 1024 * 1024;
/// Evaluation stack per AST level, generous for debug builds.
const EVAL_STACK_PER_LEVEL: usize = 32 * 1024;

fn version_parse(s: &str) -> Result<semver::Version, String> {
    super::version::parse_tolerant(s)
}

fn limit(message: String, span: Range<usize>) -> CelError {
    CelError {
        kind: CelErrorKind::Limit,
        message,
        span,
        suggestion: None,
    }
}

/// Runs `f` on a thread with a larger stack (scoped, joined before returning).
fn on_big_stack<T: Send>(needed: usize, f: impl FnOnce() -> T + Send) -> Option<T> {
    let size = needed.saturating_mul(2).clamp(MIN_BIG_STACK, MAX_BIG_STACK);
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(size)
            .spawn_scoped(s, f)
            .ok()
            .and_then(|h| h.join().ok())
    })
}

/// Parses and type-checks `rule` in OLM's CEL environment.
pub fn compile(rule: &str) -> Result<CompiledRule, Vec<CelError>> {
    compile_in(rule, Env::Olm)
}

/// [`compile`] in the given environment.
pub fn compile_in(rule: &str, env: Env) -> Result<CompiledRule, Vec<CelError>> {
    let code_points = rule.chars().count();
    if code_points > limits::MAX_CODE_POINTS {
        let at = rule
            .char_indices()
            .nth(limits::MAX_CODE_POINTS)
            .map_or(rule.len(), |(i, _)| i);
        return Err(vec![limit(
            format!(
                "expression code point size exceeds limit: size: {code_points}, limit {}",
                limits::MAX_CODE_POINTS
            ),
            at..rule.len(),
        )]);
    }
    let scan = limits::scan(rule);
    if let Some((message, at)) = scan.recursion_error {
        return Err(vec![limit(message, at..(at + 1).min(rule.len()))]);
    }
    let mut pre_errors = Vec::new();
    if let Some(at) = scan.mixed_unary {
        pre_errors.push(CelError {
            kind: CelErrorKind::Syntax,
            message: format!(
                "Syntax error: extraneous input '{}' expecting {}",
                rule.get(at..at + 1).unwrap_or("-"),
                syntax::EXPR_START
            ),
            span: at..at + 1,
            suggestion: None,
        });
        return Err(pre_errors);
    }
    // Pairs of repeated unary operators cancel out in cel-go; blank them (same offsets).
    let blanked;
    let src = if scan.cancelled_unary.is_empty() {
        rule
    } else {
        let mut bytes = rule.as_bytes().to_vec();
        for &i in &scan.cancelled_unary {
            if let Some(b) = bytes.get_mut(i) {
                *b = b' ';
            }
        }
        blanked = String::from_utf8(bytes).unwrap_or_else(|_| rule.to_string());
        blanked.as_str()
    };
    if let Some(at) = scan.trailing_comma {
        pre_errors.push(CelError {
            kind: CelErrorKind::Syntax,
            message: format!(
                "Syntax error: mismatched input ')' expecting {}",
                syntax::EXPR_START
            ),
            span: at..at + 1,
            suggestion: None,
        });
    }
    let result = if scan.stack_estimate > INLINE_STACK {
        on_big_stack(scan.stack_estimate, || compile_inner(src, pre_errors, env)).unwrap_or_else(
            || {
                Err(vec![limit(
                    "expression too deeply nested".to_string(),
                    0..rule.len(),
                )])
            },
        )
    } else {
        compile_inner(src, pre_errors, env)
    };
    result.map(|inner| CompiledRule {
        inner: Arc::new(inner),
    })
}

fn finish_errors(
    rule: &str,
    mut errors: Vec<CelError>,
    result_type: Option<&str>,
    env: Env,
) -> Vec<CelError> {
    errors.sort_by_key(|e| (e.span.start, e.span.end));
    for e in errors.iter_mut() {
        suggest::attach(rule, e, result_type, env);
    }
    errors
}

fn compile_inner(
    rule: &str,
    mut errors: Vec<CelError>,
    env: Env,
) -> Result<Compiled, Vec<CelError>> {
    let ast = match syntax::parse(rule) {
        Ok(ast) => ast,
        Err(e) => {
            errors.extend(e);
            return Err(finish_errors(rule, errors, None, env));
        }
    };
    let mut norm = syntax::Normalizer::new(rule);
    let ast = norm.run(ast);
    errors.append(&mut norm.errors);
    if !errors.is_empty() {
        return Err(finish_errors(rule, errors, None, env));
    }
    let mut checker = check::Checker::new(rule, env);
    let ty = checker.check_root(&ast);
    if !checker.errors.is_empty() {
        return Err(finish_errors(rule, checker.errors, None, env));
    }
    if ty != types::Ty::Bool {
        let err = CelError {
            kind: CelErrorKind::NotBool,
            message: "cel expressions must have type Bool".to_string(),
            span: 0..rule.len(),
            suggestion: None,
        };
        return Err(finish_errors(rule, vec![err], Some(&ty.to_string()), env));
    }
    let mut literals = Vec::new();
    collect_type_literals(&ast, &mut literals);
    let projection = exists_with_type_guard(&ast);
    let instrumented = runtime::Instrumenter::new().run(ast);
    let program = runtime::program(instrumented, rule).ok_or_else(|| {
        vec![limit(
            "internal error: cannot build program".to_string(),
            0..rule.len(),
        )]
    })?;
    Ok(Compiled {
        program,
        literals,
        projection,
        depth: norm.max_depth,
    })
}

/// `Some(T)` for `properties.exists(p, … && p.type == 'T' && …)` (any conjunct, either
/// operand order, `p["type"]` too) whose condition mentions neither `properties` nor the
/// accumulator. Every element of another type makes the condition `false` — not an error,
/// since CEL's `&&` absorbs errors next to `false` and every property has a `type` — so the
/// result on a bundle equals the result on the list of its type-T properties alone.
fn exists_with_type_guard(ast: &SpannedExpr) -> Option<String> {
    let Expr::Comprehension(c) = &ast.node else {
        return None;
    };
    let is_ident = |e: &SpannedExpr, name: &str| matches!(&e.node, Expr::Ident(n) if n == name);
    if !c.iter_var2.is_empty()
        || !is_ident(&c.iter_range, "properties")
        || !matches!(c.accu_init.node, Expr::Bool(false))
        || !is_ident(&c.result, &c.accu_var)
    {
        return None;
    }
    let Expr::Binary {
        op: BinaryOp::Or,
        left,
        right,
    } = &c.loop_step.node
    else {
        return None;
    };
    let cond = match (is_ident(left, &c.accu_var), is_ident(right, &c.accu_var)) {
        (true, false) => right,
        (false, true) => left,
        _ => return None,
    };
    if mentions(cond, &|n| n == "properties" || n == c.accu_var) {
        return None;
    }
    let mut conjuncts = Vec::new();
    flatten_and(cond, &mut conjuncts);
    conjuncts.iter().find_map(|t| match &t.node {
        Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } => [(left, right), (right, left)]
            .into_iter()
            .find_map(|(a, b)| {
                let on_iter_var = match &a.node {
                    Expr::Member { expr, .. } | Expr::Index { expr, .. } => {
                        is_ident(expr, &c.iter_var)
                    }
                    _ => false,
                };
                match &b.node {
                    Expr::String(ty) if on_iter_var && is_type_access(a) => Some(ty.clone()),
                    _ => None,
                }
            }),
        _ => None,
    })
}

fn flatten_and<'e>(e: &'e SpannedExpr, out: &mut Vec<&'e SpannedExpr>) {
    match &e.node {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            flatten_and(left, out);
            flatten_and(right, out);
        }
        _ => out.push(e),
    }
}

/// Whether an identifier satisfying `name` occurs anywhere in `e`.
fn mentions(e: &SpannedExpr, name: &dyn Fn(&str) -> bool) -> bool {
    if let Expr::Ident(n) = &e.node {
        if name(n) {
            return true;
        }
    }
    let mut found = false;
    for_each_child(e, |c| found = found || mentions(c, name));
    found
}

/// The property type a rule's result depends on exclusively, if any (see
/// [`exists_with_type_guard`]): such a rule can be evaluated on a bundle's properties of that
/// type alone, and bundles with equal such properties share the result.
pub fn projection(rule: &CompiledRule) -> Option<&str> {
    rule.inner.projection.as_deref()
}

fn is_type_access(e: &SpannedExpr) -> bool {
    match &e.node {
        Expr::Member { field, .. } => field == "type",
        Expr::Index { index, .. } => matches!(&index.node, Expr::String(s) if s == "type"),
        _ => false,
    }
}

fn collect_type_literals(e: &SpannedExpr, out: &mut Vec<(String, Range<usize>)>) {
    match &e.node {
        Expr::Binary {
            op: BinaryOp::Eq | BinaryOp::Ne,
            left,
            right,
        } => {
            for (a, b) in [(left, right), (right, left)] {
                if let (true, Expr::String(s)) = (is_type_access(a), &b.node) {
                    out.push((s.clone(), b.span.clone()));
                }
            }
        }
        Expr::Binary {
            op: BinaryOp::In,
            left,
            right,
        } if is_type_access(left) => {
            if let Expr::List(elems) = &right.node {
                for el in elems {
                    if let Expr::String(s) = &el.expr.node {
                        out.push((s.clone(), el.expr.span.clone()));
                    }
                }
            }
        }
        _ => {}
    }
    for_each_child(e, |c| collect_type_literals(c, out));
}

fn for_each_child(e: &SpannedExpr, mut f: impl FnMut(&SpannedExpr)) {
    match &e.node {
        Expr::Unary { expr, .. }
        | Expr::MemberTestOnly { expr, .. }
        | Expr::Member { expr, .. } => f(expr),
        Expr::Binary { left, right, .. } => {
            f(left);
            f(right);
        }
        Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } => {
            f(cond);
            f(then_expr);
            f(else_expr);
        }
        Expr::Index { expr, index, .. } => {
            f(expr);
            f(index);
        }
        Expr::Call { expr, args } => {
            f(expr);
            args.iter().for_each(f);
        }
        Expr::List(elems) => elems.iter().for_each(|el| f(&el.expr)),
        Expr::Map(entries) => entries.iter().for_each(|en| {
            f(&en.key);
            f(&en.value);
        }),
        Expr::Struct { fields, .. } => fields.iter().for_each(|fl| f(&fl.value)),
        Expr::Comprehension(c) => {
            f(&c.iter_range);
            f(&c.accu_init);
            f(&c.loop_condition);
            f(&c.loop_step);
            f(&c.result);
        }
        Expr::Bind { init, body, .. } => {
            f(init);
            f(body);
        }
        _ => {}
    }
}

/// String literals compared with `X.type` / `X["type"]` (`==`, `!=`, `in [...]`), with
/// their byte spans (quotes included).
pub fn property_type_literals(rule: &CompiledRule) -> Vec<(String, Range<usize>)> {
    rule.inner.literals.clone()
}

/// Property types OLM hides from CEL (§4.4).
const HIDDEN_TYPES: [&str; 2] = ["olm.bundle.object", "olm.csv.metadata"];

/// Evaluates `rule` against one entry's properties (in OLM order). OLM treats any error as
/// `false`. `budget` bounds the work: comprehension iterations plus the size of the values
/// compared and built (strings per 10 bytes, collections per element), and the time.
pub fn eval(
    rule: &CompiledRule,
    properties: &[Property],
    budget: impl Into<EvalBudget>,
) -> Result<bool, EvalError> {
    eval_input(rule, &Input::new(properties), budget)
}

/// One bundle's `properties` converted to a CEL list once, so that evaluating many rules on
/// it does not convert the JSON again for each (values are reference-counted, cloning is cheap).
#[derive(Debug, Clone)]
pub struct Input(Value);

impl Input {
    pub fn new(properties: &[Property]) -> Self {
        let list: Vec<Value> = properties
            .iter()
            .filter(|p| !HIDDEN_TYPES.contains(&p.ty.as_str()))
            .map(|p| runtime::property_value(&p.ty, &p.value))
            .collect();
        Input(Value::List(list.into()))
    }
}

/// [`eval`] on a prepared [`Input`].
pub fn eval_input(
    rule: &CompiledRule,
    input: &Input,
    budget: impl Into<EvalBudget>,
) -> Result<bool, EvalError> {
    eval_in(rule, input, None, budget)
}

/// Evaluates a rule compiled in [`Env::Cluster`]: `cluster` holds the cluster's properties.
pub fn eval_in(
    rule: &CompiledRule,
    input: &Input,
    cluster: Option<&Input>,
    budget: impl Into<EvalBudget>,
) -> Result<bool, EvalError> {
    let budget = budget.into();
    let mut act = MapActivation::new();
    act.insert("properties", input.0.clone());
    if let Some(c) = cluster {
        act.insert("cluster", c.0.clone());
    }
    let compiled = &rule.inner;
    let run = || {
        runtime::with_budget(budget.units, budget.deadline, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compiled.program.eval(&act)))
        })
    };
    let outcome = if compiled.depth > INLINE_EVAL_DEPTH {
        on_big_stack(compiled.depth as usize * EVAL_STACK_PER_LEVEL, run)
    } else {
        Some(run())
    };
    let Some((value, stopped)) = outcome else {
        return Err(EvalError {
            kind: EvalErrorKind::Runtime,
            message: "internal error: evaluation thread failed".to_string(),
        });
    };
    match stopped {
        Some(runtime::Stop::Budget) => {
            return Err(EvalError {
                kind: EvalErrorKind::Budget,
                message: format!("evaluation exceeded the cost budget of {}", budget.units),
            })
        }
        Some(runtime::Stop::Deadline) => {
            return Err(EvalError {
                kind: EvalErrorKind::Deadline,
                message: "evaluation stopped at the run's deadline (--timeout)".to_string(),
            })
        }
        None => {}
    }
    match value {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(Value::Error(e)) => Err(EvalError {
            kind: EvalErrorKind::Runtime,
            message: runtime::runtime_message(&e),
        }),
        Ok(other) => Err(EvalError {
            kind: EvalErrorKind::Runtime,
            message: format!(
                "cel expression evaluated to {}, not bool",
                other.cel_type().display_name()
            ),
        }),
        Err(_) => Err(EvalError {
            kind: EvalErrorKind::Runtime,
            message: "internal error: evaluator panicked".to_string(),
        }),
    }
}

/// Formats errors like cel-go's `issues.Err()` (`ERROR: <input>:L:C: msg` plus the source
/// line and a caret). `NotBool` is OLM's own message and is printed bare.
pub fn render_cel_go(rule: &str, errors: &[CelError]) -> String {
    let mut out = Vec::new();
    for e in errors {
        if e.kind == CelErrorKind::NotBool {
            out.push(e.message.clone());
            continue;
        }
        if e.kind == CelErrorKind::Limit {
            out.push(format!("ERROR: <input>:-1:0: {}", e.message));
            continue;
        }
        let at = e.span.start.min(rule.len());
        let before = rule.get(..at).unwrap_or("");
        let line_no = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = rule.get(line_start..at).map_or(0, |s| s.chars().count());
        let line_text = rule
            .get(line_start..)
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let shown_col = if rule.is_empty() { 0 } else { col + 1 };
        out.push(format!(
            "ERROR: <input>:{line_no}:{shown_col}: {}\n | {line_text}\n | {}^",
            e.message,
            ".".repeat(col)
        ));
    }
    out.join("\n")
}
