//! Type checker over cel-core's AST that follows cel-go's `checker.go` (overload
//! resolution, type-parameter unification, comprehension scoping, error wording).

use super::stdlib::{functions, lookup_global, FnDecl};
use super::syntax::{find_token, ACCU_VAR};
use super::types::FIRST_FRESH_VAR;
use super::types::{instantiate, is_dyn, is_dyn_or_error, most_general, substitute, Mapping, Ty};
use super::{CelError, CelErrorKind, Env};
use cel_core::{BinaryOp, ComprehensionData, Expr, SpannedExpr, UnaryOp};
use std::ops::Range;

pub(super) struct Checker<'a> {
    rule: &'a str,
    m: Mapping,
    next_var: u32,
    scopes: Vec<(String, Ty)>,
    env: Env,
    pub errors: Vec<CelError>,
}

fn type_error(message: String, span: Range<usize>) -> CelError {
    CelError {
        kind: CelErrorKind::Type,
        message,
        span,
        suggestion: None,
    }
}

fn undeclared(name: &str, span: Range<usize>) -> CelError {
    type_error(
        format!("undeclared reference to '{name}' (in container '')"),
        span,
    )
}

/// `a.b.c` for a select chain of identifiers.
fn qualified_name(e: &SpannedExpr) -> Option<String> {
    match &e.node {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Member { expr, field, .. } => qualified_name(expr).map(|p| format!("{p}.{field}")),
        _ => None,
    }
}

impl<'a> Checker<'a> {
    pub(super) fn new(rule: &'a str, env: Env) -> Self {
        Checker {
            rule,
            m: Mapping::default(),
            next_var: FIRST_FRESH_VAR,
            scopes: Vec::new(),
            env,
            errors: Vec::new(),
        }
    }

    /// Checks the whole expression and returns its final type (unbound variables → dyn).
    pub(super) fn check_root(&mut self, e: &SpannedExpr) -> Ty {
        let t = self.check(e);
        substitute(&self.m, &t, true)
    }

    fn fresh(&mut self) -> Ty {
        let v = Ty::Var(self.next_var);
        self.next_var = self.next_var.saturating_add(1);
        v
    }

    fn op_span(&self, from: usize, to: usize, tok: &str, fallback: &Range<usize>) -> Range<usize> {
        find_token(self.rule, from, to, tok).unwrap_or_else(|| fallback.clone())
    }

    fn check(&mut self, e: &SpannedExpr) -> Ty {
        match &e.node {
            Expr::Null => Ty::Null,
            Expr::Bool(_) => Ty::Bool,
            Expr::Int(_) => Ty::Int,
            Expr::UInt(_) => Ty::Uint,
            Expr::Float(_) => Ty::Double,
            Expr::String(_) => Ty::String,
            Expr::Bytes(_) => Ty::Bytes,
            Expr::Ident(name) => self.check_ident(name, e),
            Expr::RootIdent(name) => match lookup_global(name, self.env) {
                Some(t) => t,
                None => {
                    self.errors
                        .push(undeclared(&format!(".{name}"), e.span.clone()));
                    Ty::Error
                }
            },
            Expr::List(elems) => {
                let mut joined: Option<Ty> = None;
                for el in elems {
                    let t = self.check(&el.expr);
                    joined = Some(self.join(joined, t));
                }
                Ty::list(joined.unwrap_or_else(|| self.fresh()))
            }
            Expr::Map(entries) => {
                let mut keys: Option<Ty> = None;
                let mut vals: Option<Ty> = None;
                for en in entries {
                    let k = self.check(&en.key);
                    keys = Some(self.join(keys, k));
                    let v = self.check(&en.value);
                    vals = Some(self.join(vals, v));
                }
                match (keys, vals) {
                    (Some(k), Some(v)) => Ty::map(k, v),
                    _ => {
                        let (k, v) = (self.fresh(), self.fresh());
                        Ty::map(k, v)
                    }
                }
            }
            Expr::Unary { op, expr } => {
                let t = self.check(expr);
                let name = match op {
                    UnaryOp::Not => "!_",
                    UnaryOp::Neg => "-_",
                };
                let span = e.span.start..e.span.start + 1;
                self.resolve(name, None, vec![t], span)
            }
            Expr::Binary { op, left, right } => self.check_binary(*op, left, right, e),
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.check(cond);
                let t = self.check(then_expr);
                let f = self.check(else_expr);
                let span = self.op_span(cond.span.end, then_expr.span.start, "?", &e.span);
                self.resolve("_?_:_", None, vec![c, t, f], span)
            }
            Expr::Member { expr, field, .. } => {
                if let Some(q) = qualified_name(e) {
                    if !self.leftmost_is_local(e) {
                        if let Some(t) = lookup_global(&q, self.env) {
                            return t;
                        }
                    }
                }
                let r = self.check_select_field(expr, field, e);
                substitute(&self.m, &r, false)
            }
            Expr::MemberTestOnly { expr, field } => {
                self.check_select_field(expr, field, e);
                Ty::Bool
            }
            Expr::Index { expr, index, .. } => {
                let o = self.check(expr);
                let i = self.check(index);
                let span = self.op_span(expr.span.end, index.span.start, "[", &e.span);
                self.resolve("_[_]", None, vec![o, i], span)
            }
            Expr::Call { expr, args } => self.check_call(expr, args, e),
            Expr::Struct { type_name, .. } => {
                let name = qualified_name(type_name).unwrap_or_default();
                self.errors.push(undeclared(&name, e.span.clone()));
                Ty::Error
            }
            Expr::Comprehension(c) => self.check_comprehension(c),
            Expr::Bind { .. } | Expr::Error => Ty::Error,
        }
    }

    fn leftmost_is_local(&self, e: &SpannedExpr) -> bool {
        match &e.node {
            Expr::Ident(n) => self.scopes.iter().any(|(s, _)| s == n),
            Expr::Member { expr, .. } => self.leftmost_is_local(expr),
            _ => false,
        }
    }

    fn check_ident(&mut self, name: &str, e: &SpannedExpr) -> Ty {
        // cel-core names the accumulator `__result__`; only its synthetic references
        // (spanning the whole macro call) may see it, as with cel-go's `@result`.
        let user_written = self.rule.get(e.span.clone()) == Some(name);
        if name != ACCU_VAR || !user_written {
            if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
                return t.clone();
            }
        }
        if let Some(t) = lookup_global(name, self.env) {
            return t;
        }
        self.errors.push(undeclared(name, e.span.clone()));
        Ty::Error
    }

    fn check_select_field(&mut self, operand: &SpannedExpr, field: &str, e: &SpannedExpr) -> Ty {
        let t = self.check(operand);
        let t = substitute(&self.m, &t, false);
        match t {
            Ty::Map(_, v) => *v,
            Ty::Var(_) => {
                self.m.is_assignable(&Ty::Dyn, &t);
                Ty::Dyn
            }
            t => {
                if !is_dyn_or_error(&t) {
                    let dot = self.op_span(operand.span.end, e.span.end, ".", &e.span);
                    let end = find_token(self.rule, dot.end, e.span.end, field)
                        .map_or(dot.end, |r| r.end);
                    let span = dot.start..end;
                    self.errors.push(type_error(
                        format!("type '{t}' does not support field selection"),
                        span,
                    ));
                }
                Ty::Dyn
            }
        }
    }

    fn check_binary(
        &mut self,
        op: BinaryOp,
        left: &SpannedExpr,
        right: &SpannedExpr,
        e: &SpannedExpr,
    ) -> Ty {
        let (name, tok) = match op {
            BinaryOp::Add => ("_+_", "+"),
            BinaryOp::Sub => ("_-_", "-"),
            BinaryOp::Mul => ("_*_", "*"),
            BinaryOp::Div => ("_/_", "/"),
            BinaryOp::Mod => ("_%_", "%"),
            BinaryOp::Eq => ("_==_", "=="),
            BinaryOp::Ne => ("_!=_", "!="),
            BinaryOp::Lt => ("_<_", "<"),
            BinaryOp::Le => ("_<=_", "<="),
            BinaryOp::Gt => ("_>_", ">"),
            BinaryOp::Ge => ("_>=_", ">="),
            BinaryOp::In => ("@in", "in"),
            BinaryOp::And => ("_&&_", "&&"),
            BinaryOp::Or => ("_||_", "||"),
        };
        let l = self.check(left);
        let r = self.check(right);
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            // cel-go checks each operand of the logical operators against bool.
            let mut ok = true;
            for (t, arg) in [(l, left), (r, right)] {
                if !self.m.is_assignable(&t, &Ty::Bool) {
                    self.errors.push(type_error(
                        format!("expected type 'bool' but found '{t}'"),
                        arg.span.clone(),
                    ));
                    ok = false;
                }
            }
            return if ok { Ty::Bool } else { Ty::Error };
        }
        let span = self.op_span(left.span.end, right.span.start, tok, &e.span);
        self.resolve(name, None, vec![l, r], span)
    }

    fn check_call(&mut self, callee: &SpannedExpr, args: &[SpannedExpr], e: &SpannedExpr) -> Ty {
        match &callee.node {
            Expr::Ident(name) | Expr::RootIdent(name) => {
                let arg_types: Vec<Ty> = args.iter().map(|a| self.check(a)).collect();
                let span = callee.span.start..e.span.end;
                self.resolve(name, None, arg_types, span)
            }
            Expr::Member {
                expr: target,
                field: name,
                ..
            } => {
                let arg_types: Vec<Ty> = args.iter().map(|a| self.check(a)).collect();
                let name_start = callee.span.end.saturating_sub(name.len());
                let span = name_start..e.span.end;
                let t = self.check(target);
                self.resolve(name, Some(t), arg_types, span)
            }
            _ => {
                self.check(callee);
                for a in args {
                    self.check(a);
                }
                self.errors.push(CelError {
                    kind: CelErrorKind::Syntax,
                    message: format!(
                        "Syntax error: mismatched input '(' expecting {}",
                        super::syntax::EXPR_START
                    ),
                    span: callee.span.end..e.span.end,
                    suggestion: None,
                });
                Ty::Error
            }
        }
    }

    /// cel-go `resolveOverload`.
    fn resolve(&mut self, name: &str, target: Option<Ty>, args: Vec<Ty>, span: Range<usize>) -> Ty {
        let Some(decl) = functions().get(name) else {
            self.errors.push(undeclared(name, span));
            return Ty::Error;
        };
        let member = target.is_some();
        let mut arg_types: Vec<Ty> = target.into_iter().collect();
        arg_types.extend(args);
        match self.resolve_decl(decl, member, &arg_types) {
            Some(t) => t,
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| substitute(&self.m, t, true).to_string())
                    .collect();
                let sig = match shown.split_first() {
                    Some((recv, rest)) if member => format!("{recv}.({})", rest.join(", ")),
                    _ => format!("({})", shown.join(", ")),
                };
                self.errors.push(type_error(
                    format!("found no matching overload for '{name}' applied to '{sig}'"),
                    span,
                ));
                Ty::Error
            }
        }
    }

    fn resolve_decl(&mut self, decl: &FnDecl, member: bool, arg_types: &[Ty]) -> Option<Ty> {
        let mut result: Option<Ty> = None;
        for ov in &decl.overloads {
            if ov.member != member {
                continue;
            }
            let (params, res) = if ov.generic {
                let (Ty::Var(a), Ty::Var(b)) = (self.fresh(), self.fresh()) else {
                    continue;
                };
                (
                    ov.params
                        .iter()
                        .map(|p| instantiate(p, a, b))
                        .collect::<Vec<_>>(),
                    instantiate(&ov.result, a, b),
                )
            } else {
                (ov.params.clone(), ov.result.clone())
            };
            if self.m.is_assignable_list(arg_types, &params) {
                let r = substitute(&self.m, &res, false);
                result = Some(match result {
                    None => r,
                    Some(prev) if !is_dyn(&prev) && r != prev => Ty::Dyn,
                    Some(prev) => prev,
                });
            }
        }
        result
    }

    /// cel-go `joinTypes` with dynamic aggregate literals (the default).
    fn join(&mut self, prev: Option<Ty>, cur: Ty) -> Ty {
        match prev {
            None => cur,
            Some(p) => {
                if self.m.is_assignable(&p, &cur) {
                    most_general(p, cur)
                } else {
                    Ty::Dyn
                }
            }
        }
    }

    fn assert_type(&mut self, e: &SpannedExpr, actual: &Ty, expected: &Ty) {
        if !self.m.is_assignable(expected, actual) {
            self.errors.push(type_error(
                format!("expected type '{expected}' but found '{actual}'"),
                e.span.clone(),
            ));
        }
    }

    fn check_comprehension(&mut self, c: &ComprehensionData) -> Ty {
        let range = self.check(&c.iter_range);
        let accu = self.check(&c.accu_init);
        let range = substitute(&self.m, &range, false);
        self.scopes.push((c.accu_var.clone(), accu.clone()));
        let var = match &range {
            Ty::List(e) => (**e).clone(),
            Ty::Map(k, _) => (**k).clone(),
            Ty::Dyn | Ty::Error | Ty::Var(_) => {
                self.m.is_assignable(&Ty::Dyn, &range);
                Ty::Dyn
            }
            other => {
                self.errors.push(type_error(
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension \
                         (must be list, map, or dynamic)"
                    ),
                    c.iter_range.span.clone(),
                ));
                Ty::Error
            }
        };
        self.scopes.push((c.iter_var.clone(), var));
        let cond = self.check(&c.loop_condition);
        self.assert_type(&c.loop_condition, &cond, &Ty::Bool);
        let step = self.check(&c.loop_step);
        self.assert_type(&c.loop_step, &step, &accu);
        self.scopes.pop();
        let result = self.check(&c.result);
        self.scopes.pop();
        substitute(&self.m, &result, false)
    }
}
