//! CEL (OLM4xx): every `cel` constraint compiled in OLM's exact environment, errors pointed at
//! the character inside the YAML scalar, then evaluated over the catalog's bundles.
//! OLM401 cel-syntax, OLM402 cel-type, OLM403 cel-not-bool, OLM404 cel-unknown-property,
//! OLM405 cel-runtime-error, OLM406 cel-limit.

use super::Ctx;
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Node, Span};
use olmlint_load::scalar::file_span;
use olmlint_model::resolution::{is_hidden, runtime_of};
use olmlint_semantics::cel::{self, CelErrorKind};
use olmlint_semantics::constraint::{decode, Kind};
use std::collections::{BTreeSet, HashMap};

/// One `cel` node of one bundle's constraint.
struct Site<'a> {
    file: usize,
    rule: String,
    node: Option<&'a Node>,
    pointer: String,
    package: &'a str,
    bundle: &'a str,
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let sites = cel_sites(ctx);
    if sites.is_empty() {
        return;
    }
    let types = property_types(ctx);
    let mut compiled: HashMap<&str, Result<cel::CompiledRule, Vec<cel::CelError>>> = HashMap::new();
    let mut evaluated: BTreeSet<&str> = BTreeSet::new();
    for site in &sites {
        let result = compiled
            .entry(site.rule.as_str())
            .or_insert_with(|| cel::compile(&site.rule));
        let report = SiteReport { ctx, site };
        match result {
            Err(errors) => report.compile_errors(errors, out),
            Ok(program) => {
                report.unknown_property_types(program, &types, out);
                if evaluated.insert(site.rule.as_str()) {
                    report.evaluation(out);
                }
            }
        }
    }
}

/// Every `cel` node of every bundle's decodable `olm.constraint` properties.
fn cel_sites<'a>(ctx: &Ctx<'a>) -> Vec<Site<'a>> {
    let mut sites: Vec<Site<'_>> = Vec::new();
    for b in &ctx.catalog.bundles {
        for p in b.properties_of("olm.constraint") {
            let Some(v) = p.value.as_deref() else {
                continue;
            };
            // Most constraints have no `cel` key at any depth: skip decoding them.
            if !has_key_folded(v, "cel") {
                continue;
            }
            let d = decode(v);
            if d.parse_error().is_some() {
                continue;
            }
            let Some(root) = d.root.as_ref() else {
                continue;
            };
            root.walk(&mut |c| {
                if let Kind::Cel { rule, rule_node } = &c.kind {
                    sites.push(Site {
                        file: p.file,
                        rule: rule.clone(),
                        node: *rule_node,
                        pointer: format!("{}{}/cel/rule", p.value_pointer(), c.pointer),
                        package: b.package(),
                        bundle: b.name(),
                    });
                }
            });
        }
    }
    sites
}

/// The property types OLM shows the rules (hidden ones left out), in order.
fn property_types<'a>(ctx: &Ctx<'a>) -> BTreeSet<&'a str> {
    // Distinct types through a hash set first: a B-tree insert per property compared strings
    // for every property of every bundle.
    (0..ctx.resolution.home.len())
        .filter_map(|bi| ctx.bundle(bi))
        .flat_map(|b| b.properties.iter().map(|p| p.ty()))
        .filter(|ty| !is_hidden(ty))
        .collect::<foldhash::HashSet<&str>>()
        .into_iter()
        .collect()
}

/// The findings about one CEL site.
struct SiteReport<'s, 'a> {
    ctx: &'s Ctx<'a>,
    site: &'s Site<'a>,
}

impl SiteReport<'_, '_> {
    fn d(&self, rule: &'static str, msg: String, span: Span) -> Diagnostic {
        let site = self.site;
        Diagnostic::new(rule, msg)
            .at(site.file, span)
            .pointer(site.pointer.clone())
            .package(Some(site.package))
            .bundle(Some(site.bundle))
    }

    /// Where bytes `r` of the rule are in the file (or the whole scalar when the file is
    /// unknown).
    fn span_of(&self, r: &std::ops::Range<usize>) -> Span {
        let Some(n) = self.site.node else {
            return Span::default();
        };
        let Some(f) = self.ctx.files.get(self.site.file) else {
            return n.span;
        };
        file_span(&f.source.text, n, r)
    }

    /// The whole rule scalar.
    fn whole(&self) -> Span {
        self.site.node.map_or(Span::default(), |n| n.span)
    }

    /// OLM401/402/403/406: the first five errors of a rule that does not compile, each with what
    /// OLM reports.
    fn compile_errors(&self, errors: &[cel::CelError], out: &mut Vec<Diagnostic>) {
        let site = self.site;
        let olm = cel::render_cel_go(&site.rule, errors);
        for e in errors.iter().take(5) {
            let (rule, why) = match e.kind {
                CelErrorKind::Syntax => ("OLM401", "OLM compiles the rule only when a subscription reaches this bundle; the syntax error then aborts resolution for the whole namespace."),
                CelErrorKind::Type => ("OLM402", "OLM's CEL environment has only the standard library, the variable `properties` and `semver_compare`; the check error aborts resolution."),
                CelErrorKind::NotBool => ("OLM403", "OLM requires the rule's type to be exactly bool (a dyn result is rejected)."),
                CelErrorKind::Limit => ("OLM406", "cel-go rejects rules over 100000 code points or nested deeper than its parser allows."),
            };
            let span = if e.kind == CelErrorKind::NotBool {
                self.whole()
            } else {
                self.span_of(&e.span)
            };
            let help = match &e.suggestion {
                Some(s) => format!("{}{why}", olmlint_base::suggest::lead(s)),
                None => why.to_string(),
            };
            let msg = if e.kind == CelErrorKind::NotBool {
                format!(
                    "cel expressions must have type Bool: {:?} does not",
                    site.rule
                )
            } else {
                format!("CEL: {}", e.message)
            };
            out.push(self.d(rule, msg, span).help(format!(
                "{help}\nOLM reports: convert olm.constraint to resolver predicate: {olm}"
            )));
        }
    }

    /// OLM404: a property type literal the rule compares with that no bundle has.
    fn unknown_property_types(
        &self,
        program: &cel::CompiledRule,
        types: &BTreeSet<&str>,
        out: &mut Vec<Diagnostic>,
    ) {
        for (ty, range) in cel::property_type_literals(program) {
            if types.contains(ty.as_str()) {
                continue;
            }
            let hint = olmlint_base::suggest::closest(&ty, types.iter().copied())
                .map(|s| format!(" Did you mean {s:?}?"))
                .unwrap_or_default();
            out.push(self.d("OLM404", format!("the rule compares a property type with {ty:?}, which no bundle in the catalog has"), self.span_of(&range)).help(format!(
                "Property types present: {}.{hint} A typo here makes the rule false for every candidate.",
                types.iter().take(12).copied().collect::<Vec<_>>().join(", ")
            )));
        }
    }

    /// OLM405/406 and the timeout finding: the rule evaluated over the resolution's bundles
    /// (once per distinct rule).
    fn evaluation(&self, out: &mut Vec<Diagnostic>) {
        let (ctx, site) = (self.ctx, self.site);
        let runtime = |bi: usize, only: Option<&str>| {
            ctx.bundle(bi)
                .map(|b| runtime_of(b, only))
                .unwrap_or_default()
        };
        let r = ctx.resolution;
        let Some(outcomes) = r
            .cel
            .index_of(&site.rule)
            .and_then(|i| r.cel.outcomes(i, &runtime))
        else {
            return;
        };
        let whole = self.whole();
        if let Some((bi, message)) = &outcomes.first_runtime_error {
            let example = ctx.catalog.bundles.get(*bi).map_or("", |b| b.name());
            out.push(
                self.d("OLM405", format!("evaluating the rule fails at runtime on {} of {} bundles (e.g. {example}: {message}); OLM silently treats that as false", outcomes.runtime_errors, outcomes.truth.len()), whole).help(
                    "JSON numbers are doubles in OLM's CEL data (`p.value + 1` fails, `p.value + 1.0` works), and a missing key is an error: guard with `has(p.value.x)` or compare types first.",
                ),
            );
        }
        if outcomes.over_budget > 0 {
            out.push(
                self.d("OLM406", format!("evaluating the rule exceeds the cost budget ({} units) on {} bundles", r.cel.budget.units, outcomes.over_budget), whole)
                    .help("The budget counts comprehension iterations and the size of the values the rule compares and builds (a string per 10 bytes, a list or map per element). Nested comprehensions over `properties` grow exponentially, and so does a string or list doubled in a loop. OLM has no limit and would stall or run out of memory. Raise `limits.cel-eval-budget` only if the rule is intended."),
            );
        }
        if outcomes.timed_out > 0 {
            out.push(
                super::timeout_finding(
                    ctx,
                    format!(
                        "this CEL rule was not evaluated on {} bundles",
                        outcomes.timed_out
                    ),
                )
                .at(site.file, whole)
                .pointer(site.pointer.clone()),
            );
        }
    }
}

/// Whether some object in `n` has a key equal to `key` in ASCII case-insensitive comparison.
/// Iterative: constraint values may nest far deeper than the call stack allows.
fn has_key_folded(n: &Node, key: &str) -> bool {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match &n.value {
            olmlint_base::tree::Value::Map(entries) => {
                if entries.iter().any(|e| e.key.eq_ignore_ascii_case(key)) {
                    return true;
                }
                stack.extend(entries.iter().map(|e| &e.value));
            }
            olmlint_base::tree::Value::Seq(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    false
}
