//! `olm.constraint` exactly as OLM reads it (api `constraints.Parse` + OLM's conversion to a
//! resolver predicate), over the spanned tree so every node keeps its position.
//!
//! Decoding reports every problem, in document order; the first error is the one OLM itself
//! would return. Conversion (kind selection, empty constraints, ranges, CEL) happens on the
//! decoded AST.

mod decode;
pub mod predicate;
pub mod property;
pub mod theory;

pub use decode::{decode, Decoded, Issue, IssueKind, FIELDS};

use olmlint_base::tree::Node;

/// OLM rejects values whose canonical JSON is longer than this (`2 << 16`).
pub const MAX_SIZE: usize = 131_072;
/// The size the docs and the enhancement state (64 KiB).
pub const DOCUMENTED_SIZE: usize = 65_536;
/// Go's JSON scanner stops at this many nested containers.
pub const GO_MAX_DEPTH: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompoundKind {
    All,
    Any,
    Not,
}

impl CompoundKind {
    pub fn key(self) -> &'static str {
        match self {
            CompoundKind::All => "all",
            CompoundKind::Any => "any",
            CompoundKind::Not => "not",
        }
    }
}

/// A decoded constraint node. Strings are the decoded values; `node` is the source object.
#[derive(Debug)]
pub struct Constraint<'a> {
    pub node: &'a Node,
    pub pointer: String,
    /// 1 for the root constraint.
    pub depth: usize,
    pub failure_message: Option<&'a Node>,
    pub kind: Kind<'a>,
    /// Kinds set on this node that OLM ignores (lower precedence).
    pub ignored: Vec<&'static str>,
}

#[derive(Debug)]
pub enum Kind<'a> {
    Gvk {
        group: String,
        version: String,
        kind: String,
    },
    /// `range_node` is the `versionRange` string node (absent or null: `None`).
    Package {
        name: String,
        range: String,
        range_node: Option<&'a Node>,
        name_node: Option<&'a Node>,
    },
    Cel {
        rule: String,
        rule_node: Option<&'a Node>,
    },
    Compound {
        op: CompoundKind,
        children: Vec<Constraint<'a>>,
        list: Option<&'a Node>,
    },
    /// No kind set: OLM fails with "constraint is empty".
    Empty,
}

impl Constraint<'_> {
    /// OLM's `pred.String()` text for this node (§3.8).
    pub fn olm_string(&self) -> String {
        match &self.kind {
            Kind::Gvk {
                group,
                version,
                kind,
            } => {
                format!("providing an API with group: {group}, version: {version}, kind: {kind}")
            }
            Kind::Package { name, range, .. } => {
                format!("with package: {name} and with version in range: {range}")
            }
            Kind::Cel { rule, .. } => format!(
                "with constraint: {} and message: {}",
                crate::version::go_quote(rule),
                crate::version::go_quote(self.failure_message.and_then(Node::as_str).unwrap_or(""))
            ),
            Kind::Compound { op, children, .. } => {
                let sep = match op {
                    CompoundKind::All => " and ",
                    CompoundKind::Any => " or ",
                    CompoundKind::Not => " and not ",
                };
                children
                    .iter()
                    .map(|c| c.olm_string())
                    .collect::<Vec<_>>()
                    .join(sep)
            }
            Kind::Empty => String::new(),
        }
    }

    /// Depth of the deepest node below and including this one.
    pub fn max_depth(&self) -> usize {
        let mut max = self.depth;
        self.walk(&mut |c| max = max.max(c.depth));
        max
    }

    /// Visit this node and every descendant (pre-order).
    pub fn walk<'s>(&'s self, f: &mut dyn FnMut(&'s Self)) {
        let mut stack = vec![self];
        while let Some(c) = stack.pop() {
            f(c);
            if let Kind::Compound { children, .. } = &c.kind {
                stack.extend(children.iter().rev());
            }
        }
    }
}
