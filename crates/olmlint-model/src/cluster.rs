//! The target cluster of OLM720 (`--cluster-properties FILE`): the cluster's own `{type, value}`
//! properties and admin constraints every installed bundle must satisfy, each written as an
//! `olm.constraint` value. Upstream OLM never implemented cluster runtime constraints (the
//! enhancement is provisional, the resolver's system-constraint hook is empty), so this is
//! olmlint's own policy input. Constraints are decoded with OLM's grammar; CEL rules see the
//! bundle's `properties` and the cluster's as `cluster`. Mistakes are OLM011 findings.

use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::{Entry, Node, Span};
use olmlint_load::scalar::file_span;
use olmlint_semantics::cel::{self, CompiledRule, Env};
use olmlint_semantics::constraint::predicate::{convert, Pred};
use olmlint_semantics::constraint::{decode, Constraint, Decoded, IssueKind, Kind};
use olmlint_semantics::range;
use std::collections::HashMap;

const TOP_KEYS: [&str; 2] = ["properties", "constraints"];
/// Keys of the enhancement's never-implemented constraint syntax.
const PROVISIONAL_KEYS: [&str; 4] = ["evaluator", "rule", "action", "source"];
const HELP: &str = "The cluster file (see rules/OLM720.md) has `properties`, a list of the cluster's {type, value} facts, and `constraints`, a list of olm.constraint values (gvk, package, cel, all, any, not, with an optional failureMessage).";

/// The parsed cluster file.
#[derive(Debug, Default)]
pub struct ClusterPolicy {
    /// The file's index among the run's files (findings point into it).
    pub file: usize,
    /// How the file is shown in messages.
    pub display: String,
    /// The cluster's properties, as CEL sees them in `cluster`.
    pub properties: Vec<cel::Property>,
    /// The constraints that decoded and compiled (broken ones are OLM011 and left out).
    pub constraints: Vec<ClusterConstraint>,
    /// CEL rules by the index `Pred::Cel` holds.
    pub rules: Vec<CompiledRule>,
}

#[derive(Debug)]
pub struct ClusterConstraint {
    /// 1-based position in `constraints`, as messages name it.
    pub number: usize,
    pub pred: Pred,
    /// The author's `failureMessage`, else OLM's text for the predicate.
    pub text: String,
    pub span: Span,
    pub pointer: String,
}

impl ClusterPolicy {
    /// Reads the cluster file's document (`root`; `text` is the file's text, for positions
    /// inside CEL rules). Mistakes are pushed as OLM011 findings in `file`.
    pub fn read(
        file: usize,
        display: String,
        root: Option<&Node>,
        text: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Self {
        let mut policy = ClusterPolicy {
            file,
            display: display.clone(),
            ..ClusterPolicy::default()
        };
        let mut reader = Reader {
            file,
            display: &display,
            text,
            diags,
        };
        let Some((root, entries)) = reader.mapping(root) else {
            return policy;
        };
        reader.unknown_keys(entries);
        if let Some(list) = root.get("properties") {
            policy.properties = read_properties(list, &mut |span, pointer, message, help| {
                reader.issue(span, pointer, message, help);
            });
        }
        if let Some(list) = root.get("constraints") {
            reader.constraints(list, &mut policy);
        }
        policy
    }

    /// The cluster's properties as the CEL value of `cluster`.
    pub fn cel_input(&self) -> cel::Input {
        cel::Input::new(&self.properties)
    }
}

/// Reads the cluster file: its text (for positions inside CEL rules), and where its OLM011
/// findings go.
struct Reader<'r> {
    file: usize,
    /// How the file is shown in messages.
    display: &'r str,
    text: &'r str,
    diags: &'r mut Vec<Diagnostic>,
}

impl Reader<'_> {
    /// An OLM011 finding in the cluster file.
    fn issue(&mut self, span: Span, pointer: String, message: String, help: String) {
        self.diags.push(
            Diagnostic::new("OLM011", format!("{}: {message}", self.display))
                .at(self.file, span)
                .pointer(pointer)
                .help(help),
        );
    }

    /// The document and its entries, or a finding when it is empty or not a mapping.
    fn mapping<'n>(&mut self, root: Option<&'n Node>) -> Option<(&'n Node, &'n [Entry])> {
        let Some(root) = root.filter(|r| !r.is_null()) else {
            self.issue(
                Span::new(0, 0),
                String::new(),
                "the cluster file is empty, so there is nothing to check".into(),
                HELP.into(),
            );
            return None;
        };
        let Some(entries) = root.as_map() else {
            self.issue(
                root.span,
                String::new(),
                format!(
                    "the cluster file must be a mapping, not a {}",
                    root.go_kind()
                ),
                HELP.into(),
            );
            return None;
        };
        Some((root, entries))
    }

    /// A finding for each top-level key other than `properties` and `constraints`.
    fn unknown_keys(&mut self, entries: &[Entry]) {
        for e in entries {
            if !TOP_KEYS.contains(&e.key.as_str()) {
                let hint = olmlint_base::suggest::closest(&e.key, TOP_KEYS)
                    .map(|s| format!("Did you mean `{s}`? "))
                    .unwrap_or_default();
                self.issue(
                    e.key_span,
                    format!("/{}", olmlint_base::diag::pointer_segment(&e.key)),
                    format!("unknown key `{}`", e.key),
                    format!("{hint}{HELP}"),
                );
            }
        }
    }

    /// The `constraints` list: each constraint that decodes and compiles joins `policy`
    /// (its CEL rules, each compiled once, join `policy.rules`).
    fn constraints(&mut self, list: &Node, policy: &mut ClusterPolicy) {
        let Some(items) = list.as_seq() else {
            self.issue(
                list.span,
                "/constraints".into(),
                "`constraints` must be a list of olm.constraint values".into(),
                HELP.into(),
            );
            return;
        };
        let mut interned: HashMap<String, usize> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            self.constraint(i, item, &mut interned, policy);
        }
    }

    /// Constraint `i` (`item`): decoded with OLM's decoder, then each node of it checked; when
    /// nothing is wrong, its new CEL rules are interned and its predicate joins `policy`.
    fn constraint(
        &mut self,
        i: usize,
        item: &Node,
        interned: &mut HashMap<String, usize>,
        policy: &mut ClusterPolicy,
    ) {
        let pointer = format!("/constraints/{i}");
        let before = policy.rules.len();
        let decoded = decode(item);
        let mut ok = self.decode_issues(i, &pointer, &decoded);
        let Some(root) = decoded.root.as_ref().filter(|_| ok) else {
            return;
        };
        let mut compiled = Vec::new();
        root.walk(&mut |c| ok &= self.check_node(i, &pointer, c, interned, &mut compiled));
        if !ok {
            return;
        }
        for (rule, p) in compiled {
            interned.insert(rule, policy.rules.len());
            policy.rules.push(p);
        }
        let converted = convert(root, &mut |rule| {
            interned
                .get(rule)
                .copied()
                .ok_or_else(|| String::from("not compiled"))
        });
        match converted {
            Ok(pred) => policy.constraints.push(ClusterConstraint {
                number: i + 1,
                pred,
                text: describe(root),
                span: item.span,
                pointer,
            }),
            Err(_) => policy.rules.truncate(before),
        }
    }

    /// A finding for each issue of the decoder; false when one of them is an error.
    fn decode_issues(&mut self, i: usize, pointer: &str, decoded: &Decoded<'_>) -> bool {
        let mut ok = true;
        for d in &decoded.issues {
            ok &= !d.kind.is_error();
            let provisional = matches!(&d.kind,
                IssueKind::UnknownField { key }
                    if PROVISIONAL_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)));
            let help = if provisional {
                "This is the syntax the cluster-runtime-constraints enhancement proposed, which OLM's decoder rejects: write `cel: {rule: ...}` instead of `evaluator`/`source`, and turn `action: conflict` into `not: {constraints: [...]}`.".to_string()
            } else {
                format!("Constraints are decoded exactly as OLM decodes olm.constraint. {HELP}")
            };
            self.issue(
                d.span,
                format!("{pointer}{}", d.pointer),
                format!("constraint {}: {}", i + 1, d.message),
                help,
            );
        }
        ok
    }

    /// One node `c` of constraint `i`: false, with a finding, when it is empty, its version
    /// range does not parse or its CEL rule does not compile. A CEL rule not interned yet
    /// that compiles joins `compiled`.
    fn check_node(
        &mut self,
        i: usize,
        pointer: &str,
        c: &Constraint<'_>,
        interned: &HashMap<String, usize>,
        compiled: &mut Vec<(String, CompiledRule)>,
    ) -> bool {
        let here = format!("{pointer}{}", c.pointer);
        match &c.kind {
            Kind::Empty => {
                self.issue(
                    c.node.span,
                    here,
                    format!("constraint {}: constraint is empty", i + 1),
                    "Set exactly one of gvk, package, cel, all, any or not.".into(),
                );
                false
            }
            Kind::Package {
                range, range_node, ..
            } => {
                let Err(e) = range::parse(range) else {
                    return true;
                };
                self.issue(
                    range_node.map_or(c.node.span, |n| n.span),
                    format!("{here}/package/versionRange"),
                    format!("constraint {}: {}", i + 1, e.message),
                    "Version ranges use OLM's grammar (see rules/OLM301.md), e.g. `>=1.2.0 <2.0.0`.".into(),
                );
                false
            }
            Kind::Cel { rule, rule_node } => {
                if interned.contains_key(rule.as_str()) {
                    return true;
                }
                match cel::compile_in(rule, Env::Cluster) {
                    Ok(p) => {
                        compiled.push((rule.clone(), p));
                        true
                    }
                    Err(errors) => {
                        for e in errors.iter().take(5) {
                            let span =
                                rule_node.map_or(c.node.span, |n| file_span(self.text, n, &e.span));
                            let hint = e
                                .suggestion
                                .as_ref()
                                .map(|s| olmlint_base::suggest::lead(s))
                                .unwrap_or_default();
                            self.issue(
                                span,
                                format!("{here}/cel/rule"),
                                format!("constraint {}: CEL: {}", i + 1, e.message),
                                format!("{hint}Cluster constraints are checked in OLM's CEL environment plus the variable `cluster` (the cluster's properties)."),
                            );
                        }
                        false
                    }
                }
            }
            Kind::Gvk { .. } | Kind::Compound { .. } => true,
        }
    }
}

/// The failure message, else OLM's text for the constraint.
fn describe(c: &Constraint<'_>) -> String {
    match c.failure_message.and_then(Node::as_str) {
        Some(m) if !m.trim().is_empty() => m.to_string(),
        _ => match &c.kind {
            Kind::Cel { rule, .. } => format!("the rule {rule:?} must hold"),
            _ => format!("a bundle must match: {}", c.olm_string()),
        },
    }
}

fn read_properties(
    list: &Node,
    issue: &mut impl FnMut(Span, String, String, String),
) -> Vec<cel::Property> {
    let Some(items) = list.as_seq() else {
        issue(
            list.span,
            "/properties".into(),
            "`properties` must be a list of {type, value} entries".into(),
            HELP.into(),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("/properties/{i}");
        let Some(entries) = item.as_map() else {
            issue(
                item.span,
                pointer,
                format!(
                    "property {} must be a mapping with `type` and `value`",
                    i + 1
                ),
                HELP.into(),
            );
            continue;
        };
        for e in entries {
            if !matches!(e.key.as_str(), "type" | "value") {
                issue(
                    e.key_span,
                    format!("{pointer}/{}", olmlint_base::diag::pointer_segment(&e.key)),
                    format!("property {}: unknown key `{}`", i + 1, e.key),
                    "A property has only `type` and `value`, as in a bundle.".into(),
                );
            }
        }
        let ty = item
            .get("type")
            .and_then(Node::as_str)
            .filter(|t| !t.is_empty());
        let value = item.get("value").and_then(Node::to_json);
        match (ty, value) {
            (Some(ty), Some(value)) => out.push(cel::Property {
                ty: ty.to_string(),
                value,
            }),
            (None, _) => issue(
                item.get("type").map_or(item.span, |n| n.span),
                format!("{pointer}/type"),
                format!("property {} needs a non-empty string `type`", i + 1),
                "For example `type: olm.kubeversion`.".into(),
            ),
            (Some(_), None) => issue(
                item.span,
                format!("{pointer}/value"),
                format!("property {} has no `value`", i + 1),
                "For example `value: {version: 1.29.0}`.".into(),
            ),
        }
    }
    out
}
