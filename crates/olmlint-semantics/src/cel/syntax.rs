//! Parsing with cel-core, translation of its errors to cel-go wording, and the AST
//! normalisation cel-go's parser performs (optional syntax rejected, `!!x` collapsed,
//! `&&`/`||` chains balanced, visitor recursion depth limited).

use super::{CelError, CelErrorKind};
use cel_core::parser::macros::{ArgCount, MacroStyle, STANDARD_MACROS};
use cel_core::parser::{parse_with_options, MacroRegistry, ParseOptions};
use cel_core::{
    BinaryOp, ComprehensionData, Expr, ListElement, MapEntry, SpannedExpr, StructField, UnaryOp,
};
use std::ops::Range;

/// ANTLR's expected-token set where an expression must start.
pub(super) const EXPR_START: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', \
     NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/// cel-core's macro accumulator name (cel-go uses the unreferenceable `@result`).
pub(super) const ACCU_VAR: &str = "__result__";

/// The macros of cel-go's standard environment (no two-variable forms, no `existsOne`,
/// no `cel.bind`, no optionals).
fn olm_macros() -> MacroRegistry {
    let mut reg = MacroRegistry::new();
    for m in STANDARD_MACROS.iter() {
        let keep = matches!(
            (m.name, m.style, m.arg_count),
            ("has", MacroStyle::Global, ArgCount::Exact(1))
                | (
                    "all" | "exists" | "exists_one" | "filter",
                    MacroStyle::Receiver,
                    ArgCount::Exact(2)
                )
                | ("map", MacroStyle::Receiver, ArgCount::Exact(2 | 3))
        );
        if keep {
            reg.register(m.clone());
        }
    }
    reg
}

fn syntax(message: String, span: Range<usize>) -> CelError {
    CelError {
        kind: CelErrorKind::Syntax,
        message,
        span,
        suggestion: None,
    }
}

/// The source text of a token span, or `<EOF>`.
fn token_text(rule: &str, span: &Range<usize>) -> String {
    if span.start >= rule.len() {
        return "<EOF>".to_string();
    }
    let text = rule.get(span.clone()).unwrap_or("");
    if text.is_empty() {
        "<EOF>".to_string()
    } else {
        text.to_string()
    }
}

/// Maps one cel-core parse/macro error to cel-go's message.
fn translate(rule: &str, message: &str, span: Range<usize>) -> CelError {
    let tok = token_text(rule, &span);
    // cel-go places EOF after the whole input, trailing whitespace included.
    let span = if span.start >= rule.len() || tok == "<EOF>" {
        rule.len()..rule.len()
    } else {
        span
    };
    if message.starts_with("unexpected character") {
        return syntax(
            format!("Syntax error: token recognition error at: '{tok}'"),
            span,
        );
    }
    if let Some(rest) = message.strip_prefix("expected '") {
        let expected = rest.split('\'').next().unwrap_or("");
        return syntax(
            format!("Syntax error: mismatched input '{tok}' expecting '{expected}'"),
            span,
        );
    }
    if message.starts_with("expected identifier") || message.starts_with("expected field name") {
        return syntax(
            format!("Syntax error: mismatched input '{tok}' expecting IDENTIFIER"),
            span,
        );
    }
    if message == "unexpected tokens after expression" {
        return syntax(
            format!("Syntax error: extraneous input '{tok}' expecting <EOF>"),
            span,
        );
    }
    if message.starts_with("unexpected token")
        || message == "unexpected end of input"
        || message == "empty input"
    {
        return syntax(
            format!("Syntax error: mismatched input '{tok}' expecting {EXPR_START}"),
            span,
        );
    }
    if message == "unexpected tokens after expression" {
        return syntax(
            format!("Syntax error: extraneous input '{tok}' expecting <EOF>"),
            span,
        );
    }
    if let Some(rest) = message.strip_prefix('\'') {
        if message.contains("is a reserved word") {
            let word = rest.split('\'').next().unwrap_or("");
            return syntax(format!("reserved identifier: {word}"), span);
        }
    }
    if message.starts_with("integer literal") {
        return syntax("invalid int literal".to_string(), span);
    }
    if message.contains("must be an identifier") {
        return syntax("argument must be a simple name".to_string(), span);
    }
    if message.starts_with("has() argument") {
        return syntax("invalid argument to has() macro".to_string(), span);
    }
    if let Some((name, _)) = message.split_once("() requires") {
        // No macro of that arity: cel-go parses a plain call and the checker rejects it.
        return CelError {
            kind: CelErrorKind::Type,
            message: format!("undeclared reference to '{name}' (in container '')"),
            span,
            suggestion: None,
        };
    }
    syntax(format!("Syntax error: {message}"), span)
}

/// Parses `rule` with cel-core and OLM's macro set.
pub(super) fn parse(rule: &str) -> Result<SpannedExpr, Vec<CelError>> {
    let result = std::panic::catch_unwind(|| {
        let r = parse_with_options(rule, ParseOptions::with_macros(olm_macros()));
        (r.ast, r.errors)
    });
    let (ast, errors) = match result {
        Ok(v) => v,
        Err(_) => {
            return Err(vec![syntax(
                "Syntax error: internal parser failure".to_string(),
                0..rule.len(),
            )])
        }
    };
    if !errors.is_empty() {
        return Err(errors
            .into_iter()
            .map(|e| translate(rule, &e.message, e.span))
            .collect());
    }
    ast.ok_or_else(|| {
        vec![syntax(
            format!("Syntax error: mismatched input '<EOF>' expecting {EXPR_START}"),
            rule.len()..rule.len(),
        )]
    })
}

/// First occurrence of `tok` in `rule[from..to]` outside `//` comments (between two
/// operands only whitespace, comments and parentheses can occur).
pub(super) fn find_token(rule: &str, from: usize, to: usize, tok: &str) -> Option<Range<usize>> {
    let b = rule.as_bytes();
    let mut i = from;
    while i < to.min(b.len()) {
        if rule.get(i..).is_some_and(|s| s.starts_with(tok)) {
            return Some(i..i + tok.len());
        }
        if rule.get(i..).is_some_and(|s| s.starts_with("//")) {
            while i < b.len() && b.get(i) != Some(&b'\n') {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    None
}

/// Whether `rule[from..to]` holds only whitespace and comments.
fn only_trivia(rule: &str, from: usize, to: usize) -> bool {
    let Some(s) = rule.get(from..to) else {
        return false;
    };
    s.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with("//")
    })
}

/// Owning normalisation pass. Recursion is bounded by the pre-scan; `&&`/`||` chains and
/// unary runs (which may be arbitrarily long) are handled iteratively.
pub(super) struct Normalizer<'a> {
    rule: &'a str,
    pub errors: Vec<CelError>,
    /// Maximum AST depth after normalisation.
    pub max_depth: u32,
    /// cel-go visitor recursion depth (ternary, relations, arithmetic, select, member
    /// calls, index).
    visit_depth: u32,
    depth_error: bool,
}

pub(super) const MAX_VISIT_DEPTH: u32 = 250;

impl<'a> Normalizer<'a> {
    pub(super) fn new(rule: &'a str) -> Self {
        Normalizer {
            rule,
            errors: Vec::new(),
            max_depth: 0,
            visit_depth: 0,
            depth_error: false,
        }
    }

    fn text(&self, span: &Range<usize>) -> &'a str {
        self.rule.get(span.clone()).unwrap_or("")
    }

    pub(super) fn run(&mut self, e: SpannedExpr) -> SpannedExpr {
        self.walk(e, 0)
    }

    fn walk(&mut self, e: SpannedExpr, depth: u32) -> SpannedExpr {
        self.max_depth = self.max_depth.max(depth);
        if self.depth_error {
            return e;
        }
        let counts = matches!(
            e.node,
            Expr::Ternary { .. }
                | Expr::Member { .. }
                | Expr::Index { .. }
                | Expr::Comprehension(_)
                | Expr::MemberTestOnly { .. }
        ) || matches!(&e.node, Expr::Binary { op, .. } if !matches!(op, BinaryOp::And | BinaryOp::Or))
            || matches!(&e.node, Expr::Call { expr, .. } if matches!(expr.node, Expr::Member { .. }));
        if counts {
            self.visit_depth += 1;
            if self.visit_depth > MAX_VISIT_DEPTH {
                self.depth_error = true;
                self.errors.push(CelError {
                    kind: CelErrorKind::Limit,
                    message: "max recursion depth exceeded".to_string(),
                    span: e.span.clone(),
                    suggestion: None,
                });
                self.visit_depth -= 1;
                return e;
            }
        }
        let out = self.walk_inner(e, depth);
        if counts {
            self.visit_depth -= 1;
        }
        out
    }

    /// Rewrites the boxed node in place (reusing the allocation).
    fn walk_box(&mut self, mut e: Box<SpannedExpr>, depth: u32) -> Box<SpannedExpr> {
        let inner = std::mem::replace(&mut *e, cel_core::Spanned::new(0, Expr::Null, 0..0));
        *e = self.walk(inner, depth);
        e
    }

    fn walk_inner(&mut self, e: SpannedExpr, depth: u32) -> SpannedExpr {
        let d = depth + 1;
        let cel_core::Spanned { id, node, span } = e;
        let node = match node {
            Expr::Unary { op, expr } => return self.unary_run(id, op, span, *expr, depth),
            Expr::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                left,
                right,
            } => return self.logical_chain(id, op, *left, *right, depth),
            Expr::Binary { op, left, right } => Expr::Binary {
                op,
                left: self.walk_box(left, d),
                right: self.walk_box(right, d),
            },
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } => Expr::Ternary {
                cond: self.walk_box(cond, d),
                then_expr: self.walk_box(then_expr, d),
                else_expr: self.walk_box(else_expr, d),
            },
            Expr::Member {
                expr,
                field,
                optional,
            } => {
                if optional {
                    self.unsupported(".?", expr.span.end, &span, "unsupported syntax '.?'");
                }
                Expr::Member {
                    expr: self.walk_box(expr, d),
                    field,
                    optional,
                }
            }
            Expr::Index {
                expr,
                index,
                optional,
            } => {
                if optional {
                    self.unsupported("[", expr.span.end, &span, "unsupported syntax '[?'");
                }
                Expr::Index {
                    expr: self.walk_box(expr, d),
                    index: self.walk_box(index, d),
                    optional,
                }
            }
            Expr::Call { expr, args } => self.call(*expr, args, d),
            Expr::List(elems) => Expr::List(self.list(elems, d)),
            Expr::Map(entries) => Expr::Map(self.map_entries(entries, d)),
            Expr::Struct { type_name, fields } => Expr::Struct {
                type_name,
                fields: self.struct_fields(fields, d),
            },
            Expr::Comprehension(c) => self.comprehension(c, d),
            Expr::MemberTestOnly { expr, field } => Expr::MemberTestOnly {
                expr: self.walk_box(expr, d),
                field,
            },
            Expr::Bind {
                var_name,
                init,
                body,
            } => Expr::Bind {
                var_name,
                init: self.walk_box(init, d),
                body: self.walk_box(body, d),
            },
            Expr::Ident(name) => {
                self.check_ident(&span);
                Expr::Ident(name)
            }
            other => other,
        };
        cel_core::Spanned::new(id, node, span)
    }

    /// Reports the optional syntax cel-go's parser rejects: `tok` searched between the end
    /// of the operand (`from`) and the end of the whole expression.
    fn unsupported(&mut self, tok: &str, from: usize, span: &Range<usize>, message: &str) {
        let at = find_token(self.rule, from, span.end, tok).unwrap_or(span.clone());
        self.errors.push(syntax(message.to_string(), at));
    }

    /// A call: a method's target and the arguments are walked one level deeper.
    fn call(&mut self, callee: SpannedExpr, args: Vec<SpannedExpr>, d: u32) -> Expr {
        let expr = match callee {
            cel_core::Spanned {
                id: cid,
                node:
                    Expr::Member {
                        expr: target,
                        field,
                        optional,
                    },
                span: cspan,
            } => Box::new(cel_core::Spanned::new(
                cid,
                Expr::Member {
                    expr: self.walk_box(target, d),
                    field,
                    optional,
                },
                cspan,
            )),
            other => Box::new(self.walk(other, d)),
        };
        let args = args.into_iter().map(|a| self.walk(a, d)).collect();
        Expr::Call { expr, args }
    }

    /// A list literal's elements (an optional element `?e` is reported).
    fn list(&mut self, elems: Vec<ListElement>, d: u32) -> Vec<ListElement> {
        elems
            .into_iter()
            .map(|mut el| {
                if el.optional {
                    self.optional_marker(el.expr.span.start);
                }
                el.expr = self.walk(el.expr, d);
                el
            })
            .collect()
    }

    /// A map literal's entries (an optional entry `?k: v` is reported).
    fn map_entries(&mut self, entries: Vec<MapEntry>, d: u32) -> Vec<MapEntry> {
        entries
            .into_iter()
            .map(|mut en| {
                if en.optional {
                    self.optional_marker(en.key.span.start);
                }
                en.key = self.walk(en.key, d);
                en.value = self.walk(en.value, d);
                en
            })
            .collect()
    }

    /// A message literal's fields (an optional field `?f: v` is reported).
    fn struct_fields(&mut self, fields: Vec<StructField>, d: u32) -> Vec<StructField> {
        fields
            .into_iter()
            .map(|mut f| {
                if f.optional {
                    self.optional_marker(f.value.span.start);
                }
                f.value = self.walk(f.value, d);
                f
            })
            .collect()
    }

    /// A macro's comprehension, its parts walked one level deeper.
    fn comprehension(&mut self, mut c: ComprehensionData, d: u32) -> Expr {
        // cel-core steps are `cond && accu` / `cond || accu`; cel-go evaluates `accu`
        // first, which decides which error surfaces.
        let step = *c.loop_step;
        c.loop_step = Box::new(match step.node {
            Expr::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                left,
                right,
            } if self.is_synthetic_accu(&right) => cel_core::Spanned::new(
                step.id,
                Expr::Binary {
                    op,
                    left: right,
                    right: left,
                },
                step.span,
            ),
            node => cel_core::Spanned::new(step.id, node, step.span),
        });
        c.iter_range = self.walk_box(c.iter_range, d);
        c.accu_init = self.walk_box(c.accu_init, d);
        c.loop_condition = self.walk_box(c.loop_condition, d);
        c.loop_step = self.walk_box(c.loop_step, d);
        c.result = self.walk_box(c.result, d);
        Expr::Comprehension(c)
    }

    /// A backquoted identifier (cel-core accepts them, cel-go's grammar does not).
    fn check_ident(&mut self, span: &Range<usize>) {
        if self.text(span).starts_with('`') {
            self.errors.push(syntax(
                format!(
                    "Syntax error: mismatched input '{}' expecting {EXPR_START}",
                    self.text(span)
                ),
                span.clone(),
            ));
        }
    }

    fn is_synthetic_accu(&self, e: &SpannedExpr) -> bool {
        matches!(&e.node, Expr::Ident(n) if n == ACCU_VAR) && self.text(&e.span) != ACCU_VAR
    }

    /// Reports `unsupported syntax '?'` at the `?` preceding `before`.
    fn optional_marker(&mut self, before: usize) {
        let q = self
            .rule
            .get(..before)
            .and_then(|s| s.rfind('?'))
            .map(|i| i..i + 1)
            .unwrap_or(before..before);
        self.errors
            .push(syntax("unsupported syntax '?'".to_string(), q));
    }

    /// cel-go collapses a run of the same unary operator: an even count disappears.
    fn unary_run(
        &mut self,
        id: i64,
        op: UnaryOp,
        span: Range<usize>,
        expr: SpannedExpr,
        depth: u32,
    ) -> SpannedExpr {
        let mut count = 1u32;
        let mut prev_start = span.start;
        let mut inner = expr;
        loop {
            let adjacent = only_trivia(self.rule, prev_start + 1, inner.span.start);
            match inner.node {
                Expr::Unary {
                    op: op2,
                    expr: next,
                } if adjacent => {
                    if op2 != op {
                        let tok = self
                            .text(&(inner.span.start..inner.span.start + 1))
                            .to_string();
                        self.errors.push(syntax(
                            format!(
                                "Syntax error: extraneous input '{tok}' expecting {EXPR_START}"
                            ),
                            inner.span.start..inner.span.start + 1,
                        ));
                    }
                    count += 1;
                    prev_start = inner.span.start;
                    inner = *next;
                }
                node => {
                    inner = cel_core::Spanned::new(inner.id, node, inner.span);
                    break;
                }
            }
        }
        if count.is_multiple_of(2) {
            self.walk(inner, depth)
        } else {
            let operand = self.walk(inner, depth + 1);
            cel_core::Spanned::new(
                id,
                Expr::Unary {
                    op,
                    expr: Box::new(operand),
                },
                span,
            )
        }
    }

    /// Flattens a left-nested `&&`/`||` chain and rebuilds it balanced, like cel-go's
    /// parser `balancer`.
    fn logical_chain(
        &mut self,
        id: i64,
        op: BinaryOp,
        left: SpannedExpr,
        right: SpannedExpr,
        depth: u32,
    ) -> SpannedExpr {
        let mut ids = vec![id];
        let mut terms = vec![right];
        let mut cur = left;
        loop {
            match cur.node {
                Expr::Binary {
                    op: o,
                    left: l,
                    right: r,
                } if o == op => {
                    ids.push(cur.id);
                    terms.push(*r);
                    cur = *l;
                }
                node => {
                    terms.push(cel_core::Spanned::new(cur.id, node, cur.span));
                    break;
                }
            }
        }
        terms.reverse();
        ids.reverse();
        let levels = usize::BITS - terms.len().leading_zeros();
        let term_depth = depth + levels;
        let terms: Vec<SpannedExpr> = terms
            .into_iter()
            .map(|t| self.walk(t, term_depth))
            .collect();
        let mut slots: Vec<Option<SpannedExpr>> = terms.into_iter().map(Some).collect();
        let hi = slots.len().saturating_sub(2);
        balanced(&mut slots, &ids, op, 0, hi)
            .unwrap_or_else(|| cel_core::Spanned::new(id, Expr::Error, 0..0))
    }
}

/// cel-go `balancer.balancedTree` over `terms` (n) and operator ids (n - 1).
fn balanced(
    terms: &mut [Option<SpannedExpr>],
    ids: &[i64],
    op: BinaryOp,
    lo: usize,
    hi: usize,
) -> Option<SpannedExpr> {
    if terms.len() == 1 {
        return terms.get_mut(0).and_then(Option::take);
    }
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo {
        terms.get_mut(mid).and_then(Option::take)?
    } else {
        balanced(terms, ids, op, lo, mid - 1)?
    };
    let right = if mid == hi {
        terms.get_mut(mid + 1).and_then(Option::take)?
    } else {
        balanced(terms, ids, op, mid + 1, hi)?
    };
    let span = left.span.start..right.span.end;
    let id = ids.get(mid).copied().unwrap_or(0);
    Some(cel_core::Spanned::new(
        id,
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        span,
    ))
}
