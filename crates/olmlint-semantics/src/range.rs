//! Version ranges as Go's blang/semver v4.0.0 `ParseRange` reads and evaluates them
//! (the grammar OLM uses), an exact normal form (a union of half-open intervals over
//! the precedence order), and rewrite suggestions for Cargo/npm/Python-style ranges.

use super::version::{self, go_quote, is_go_digit};
use semver::Version;
use std::cmp::Ordering;
use std::fmt;

/// A byte range in the parsed input.
pub type Span = std::ops::Range<usize>;

/// A parse failure, worded exactly as blang words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeError {
    pub message: String,
    /// The offending token's bytes in the input, when known.
    pub span: Option<Span>,
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RangeError {}

fn error(message: impl Into<String>, span: Option<Span>) -> RangeError {
    RangeError {
        message: message.into(),
        span,
    }
}

/// A comparison operator (`""`/`=`/`==` are `Eq`, `!`/`!=` are `Ne`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn from_go(s: &str) -> Option<Op> {
        Some(match s {
            "" | "=" | "==" => Op::Eq,
            "!" | "!=" => Op::Ne,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "<" => Op::Lt,
            "<=" => Op::Le,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }

    /// Whether `candidate.cmp(bound) == ord` satisfies the operator.
    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
        }
    }
}

/// One comparator after wildcard expansion; `span` is the source token's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparator {
    pub op: Op,
    pub version: Version,
    pub span: Span,
}

impl Comparator {
    /// blang semantics: `Version.Compare`, build metadata ignored.
    pub fn matches(&self, v: &Version) -> bool {
        self.op.holds(version::cmp(v, &self.version))
    }

    pub fn intervals(&self) -> IntervalSet {
        IntervalSet::from_comparator(self.op, &self.version)
    }
}

/// A raw token: `text` has its spaces removed; `dropped` tokens (1 byte) are ignored by blang.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub span: Span,
    pub dropped: bool,
}

/// A construct that parses but probably does not mean what the author intended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quirk {
    /// A 1-byte token blang silently ignores: the `!` of `! 1.0.0` (leaving `=1.0.0`),
    /// the `-` of `1.0.0 - 2.0.0`, a trailing `|`.
    DroppedToken { span: Span, text: String },
    /// `1.x.x` is read as a patch wildcard of `1.0`: `[1.0.0, 1.1.0)`, not `[1.0.0, 2.0.0)`.
    PatchWildcardOfMajor { span: Span },
    /// A wildcard whose operator is dropped: `~1.x`, `^1.x` mean `=1.0.0`, `~>1.2.x` `=1.2.0`.
    OperatorDroppedOnWildcard { span: Span, op: String },
    /// `!1.x` / `!=1.2.x` expand to `<a >=b` in one AND group, which never matches.
    NotEqualWildcard { span: Span },
    /// `a || || b`: the empty alternative makes OLM panic on versions the earlier ones reject.
    NilGroup { span: Span },
}

impl Quirk {
    pub fn span(&self) -> &Span {
        match self {
            Quirk::DroppedToken { span, .. }
            | Quirk::PatchWildcardOfMajor { span }
            | Quirk::OperatorDroppedOnWildcard { span, .. }
            | Quirk::NotEqualWildcard { span }
            | Quirk::NilGroup { span } => span,
        }
    }
}

/// A parsed range: OR groups of ANDed comparators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// An empty group is a nil group (`a || || b`).
    groups: Vec<Vec<Comparator>>,
    tokens: Vec<Token>,
    quirks: Vec<Quirk>,
}

/// blang `ParseRange`, quirks included (see the olm-semantics spec, §5.1).
///
/// # Errors
/// blang's error for the first failure, with the offending token's span when there is one.
pub fn parse(input: &str) -> Result<Range, RangeError> {
    let tokens = tokenize(input);
    let mut quirks: Vec<Quirk> = tokens
        .iter()
        .filter(|t| t.dropped)
        .map(|t| Quirk::DroppedToken {
            span: t.span.clone(),
            text: t.text.clone(),
        })
        .collect();
    let kept: Vec<&Token> = tokens.iter().filter(|t| !t.dropped).collect();

    // OR split.
    if let Some(first) = kept.first().filter(|t| t.text == "||") {
        let span = Some(first.span.clone());
        return Err(error("First element in range is '||'", span));
    }
    let mut groups: Vec<Vec<&Token>> = vec![Vec::new()];
    let mut prev_or: Option<&Token> = None;
    for &t in &kept {
        if t.text != "||" {
            if let Some(g) = groups.last_mut() {
                g.push(t);
            }
            continue;
        }
        if let (Some(p), true) = (prev_or, groups.last().is_some_and(Vec::is_empty)) {
            quirks.push(Quirk::NilGroup {
                span: p.span.start..t.span.end,
            });
        }
        groups.push(Vec::new());
        prev_or = Some(t);
    }
    if groups.last().is_none_or(Vec::is_empty) {
        let span = kept.last().map(|t| t.span.clone());
        return Err(error("Last element in range is '||'", span));
    }

    // Wildcard expansion of every token containing `x`, over all groups first.
    let mut expanded: Vec<Vec<(String, &Token)>> = Vec::with_capacity(groups.len());
    for g in &groups {
        let mut out = Vec::with_capacity(g.len());
        for &t in g {
            if t.text.contains('x') {
                let (parts, qs) = expand_wildcard(&t.text, &t.span)
                    .map_err(|m| error(m, Some(t.span.clone())))?;
                quirks.extend(qs);
                out.extend(parts.into_iter().map(|p| (p, t)));
            } else {
                out.push((t.text.clone(), t));
            }
        }
        expanded.push(out);
    }

    // Comparators.
    let mut result = Vec::with_capacity(expanded.len());
    for g in expanded {
        let mut comps = Vec::with_capacity(g.len());
        for (text, t) in g {
            let span = Some(t.span.clone());
            let (op_s, v_s) =
                split_comparator_version(&text).map_err(|m| error(m, span.clone()))?;
            let joined = go_quote(&format!("{op_s}{v_s}"));
            let Some(op) = Op::from_go(op_s) else {
                let m = format!(
                    "Could not parse Range {}: Could not parse comparator {} in {joined}",
                    go_quote(&text),
                    go_quote(op_s)
                );
                return Err(error(m, span));
            };
            let version = version::parse_strict(v_s).map_err(|e| {
                let m = format!(
                    "Could not parse Range {}: Could not parse version {} in {joined}: {e}",
                    go_quote(&text),
                    go_quote(v_s)
                );
                error(m, span.clone())
            })?;
            comps.push(Comparator {
                op,
                version,
                span: t.span.clone(),
            });
        }
        result.push(comps);
    }
    quirks.sort_by_key(|q| q.span().start);
    Ok(Range {
        groups: result,
        tokens,
        quirks,
    })
}

/// blang `splitAndTrim`: a space splits unless the last non-space byte is `>`, `<` or `=`;
/// spaces inside a token are deleted; 1-byte tokens are kept here but marked `dropped`.
fn tokenize(input: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut push = |start: usize, end: usize| {
        if end > start {
            let raw = input.get(start..end).unwrap_or_default();
            tokens.push(Token {
                text: raw.replace(' ', ""),
                span: start..end,
                dropped: end - start == 1,
            });
        }
    };
    let (mut last, mut last_char) = (0, 0u8);
    for (i, b) in input.bytes().enumerate() {
        if b == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            push(last, i);
            last = i + 1;
        } else if b != b' ' {
            last_char = b;
        }
    }
    push(last, input.len());
    tokens
}

/// blang `splitComparatorVersion`: split at the first (Unicode) digit, trim the operator.
fn split_comparator_version(s: &str) -> Result<(&str, &str), String> {
    let err = || format!("Could not get version from string: {}", go_quote(s));
    let i = s.find(is_go_digit).ok_or_else(err)?;
    let (op, v) = s.split_at_checked(i).ok_or_else(err)?;
    Ok((op.trim(), v))
}

/// blang `expandWildcardVersion` for one token containing `x`: the replacement tokens.
fn expand_wildcard(text: &str, span: &Span) -> Result<(Vec<String>, Vec<Quirk>), String> {
    let (op, v) = split_comparator_version(text)?;
    let parts: Vec<&str> = v.split('.').collect();
    // Number of dot parts when the last one is `x` (2: minor wildcard, 3: patch wildcard).
    let kind = match parts.last() {
        Some(&"x") => parts.len(),
        _ => 0,
    };
    let flat = {
        let s = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
        if s.split('.').count() == 2 {
            s + ".0"
        } else {
            s
        }
    };
    let mut out = Vec::new();
    let mut quirks = Vec::new();
    let (result_op, increment) = match op {
        ">" => (">=", true),
        ">=" => (">=", false),
        "<" => ("<", false),
        "<=" => ("<", true),
        "" | "=" | "==" => {
            out.push(format!(">={flat}"));
            ("<", true)
        }
        "!=" | "!" => {
            out.push(format!("<{flat}"));
            quirks.push(Quirk::NotEqualWildcard { span: span.clone() });
            (">=", true)
        }
        other => {
            let op = other.to_string();
            quirks.push(Quirk::OperatorDroppedOnWildcard {
                span: span.clone(),
                op,
            });
            ("", false)
        }
    };
    let bound = match (increment, kind) {
        (false, _) => flat,
        (true, 3) => {
            if parts.get(1) == Some(&"x") {
                quirks.push(Quirk::PatchWildcardOfMajor { span: span.clone() });
            }
            increment_part(&flat, 1)
        }
        (true, 2) => increment_part(&flat, 0),
        (true, _) => String::new(),
    };
    out.push(format!("{result_op}{bound}"));
    Ok((out, quirks))
}

/// blang `incrementMajorVersion`/`incrementMinorVersion`: Go `Atoi`, `+1` with int64
/// wrap-around; `""` when the part is not an integer (blang ignores that error).
fn increment_part(flat: &str, idx: usize) -> String {
    let mut parts: Vec<String> = flat.split('.').map(str::to_string).collect();
    let Some(part) = parts.get_mut(idx) else {
        return String::new();
    };
    let Ok(n) = part.parse::<i64>() else {
        return String::new();
    };
    *part = n.wrapping_add(1).to_string();
    parts.join(".")
}

impl Range {
    /// The OR groups; an empty group is a nil group (see [`Range::has_nil_group`]).
    pub fn groups(&self) -> &[Vec<Comparator>] {
        &self.groups
    }

    /// All raw tokens in input order, dropped ones included.
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// Quirks, ordered by position.
    pub fn quirks(&self) -> &[Quirk] {
        &self.quirks
    }

    /// `a || || b`: OLM builds a nil function for the empty group and panics on it.
    pub fn has_nil_group(&self) -> bool {
        self.groups.iter().any(Vec::is_empty)
    }

    /// blang evaluation. A nil group counts as false here (OLM would panic instead when
    /// no earlier group matches; see [`Range::panics_on`]).
    pub fn contains(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|g| !g.is_empty() && g.iter().all(|c| c.matches(v)))
    }

    /// Whether OLM's evaluation panics on `v`: it reaches a nil group, left to right.
    pub fn panics_on(&self, v: &Version) -> bool {
        for g in &self.groups {
            if g.is_empty() {
                return true;
            }
            if g.iter().all(|c| c.matches(v)) {
                return false;
            }
        }
        false
    }

    /// The exact normal form (nil groups count as empty).
    pub fn intervals(&self) -> IntervalSet {
        // One sort over every alternative's intervals: linearithmic in the alternatives.
        let items: Vec<Interval> = self
            .groups
            .iter()
            .filter(|g| !g.is_empty())
            .flat_map(|g| group_set(g).items)
            .collect();
        IntervalSet::normalize(items)
    }

    pub fn is_empty(&self) -> bool {
        self.intervals().is_empty()
    }

    pub fn intersects(&self, other: &Range) -> bool {
        self.intervals().intersects(&other.intervals())
    }

    pub fn is_subset_of(&self, other: &Range) -> bool {
        self.intervals().is_subset_of(&other.intervals())
    }

    /// A single bare version with no operator, e.g. `1.2.0` (dropped tokens ignored).
    pub fn is_exact_pin(&self) -> bool {
        let mut kept = self.tokens.iter().filter(|t| !t.dropped);
        let (Some(tok), None) = (kept.next(), kept.next()) else {
            return false;
        };
        let single_eq = match self.groups.as_slice() {
            [g] => matches!(g.as_slice(), [c] if c.op == Op::Eq),
            _ => false,
        };
        single_eq && tok.text.starts_with(|c: char| c.is_ascii_digit())
    }

    /// Some (non-nil) group is bounded above (an empty group counts as bounded).
    pub fn has_upper_bound(&self) -> bool {
        self.groups
            .iter()
            .filter(|g| !g.is_empty())
            .any(|g| group_set(g).is_bounded_above())
    }
}

fn group_set(g: &[Comparator]) -> IntervalSet {
    g.iter().fold(IntervalSet::full(), |acc, c| {
        acc.intersection(&c.intervals())
    })
}

/// The normal form of a range text that parses (`None` if it does not), memoised: one
/// `skipRange`, aliased or repeated in every entry of a channel, is parsed once, not once per
/// entry and per question (the upgrade-graph checks ask it for every version). A pure
/// function's cache, bounded: cleared when it holds [`MEMO_ENTRIES`] texts.
pub fn intervals_of(text: &str) -> Option<std::sync::Arc<IntervalSet>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Memo = Mutex<HashMap<String, Option<Arc<IntervalSet>>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(hit) = memo.lock().ok().and_then(|m| m.get(text).cloned()) {
        return hit;
    }
    let set = parse(text).ok().map(|r| Arc::new(r.intervals()));
    if let Ok(mut m) = memo.lock() {
        if m.len() >= MEMO_ENTRIES {
            m.clear();
        }
        m.insert(text.to_string(), set.clone());
    }
    set
}

/// Distinct range texts [`intervals_of`] remembers.
const MEMO_ENTRIES: usize = 4096;

/// `[lower, upper)` over the precedence order; `upper == None` is +∞. Bounds carry no
/// build metadata. `lower == 0.0.0-0` (the least version) means unbounded below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interval {
    lo: Version,
    hi: Option<Version>,
}

impl Interval {
    /// Inclusive lower bound.
    pub fn lower(&self) -> &Version {
        &self.lo
    }

    /// Exclusive upper bound, `None` for +∞.
    pub fn upper(&self) -> Option<&Version> {
        self.hi.as_ref()
    }

    pub fn contains(&self, v: &Version) -> bool {
        version::cmp(v, &self.lo) != Ordering::Less
            && self
                .hi
                .as_ref()
                .is_none_or(|h| version::cmp(v, h) == Ordering::Less)
    }

    /// Exact: a non-empty `[lo, hi)` contains `lo`.
    fn is_empty(&self) -> bool {
        self.hi
            .as_ref()
            .is_some_and(|h| version::cmp(h, &self.lo) != Ordering::Greater)
    }
}

/// A sorted union of disjoint, non-adjacent half-open intervals: a canonical form, so
/// `==` is set equality and every operation is exact.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IntervalSet {
    items: Vec<Interval>,
}

impl IntervalSet {
    pub fn empty() -> Self {
        IntervalSet { items: Vec::new() }
    }

    pub fn full() -> Self {
        Self::from_bounds(version::min_version(), None)
    }

    /// The versions `v` with `v <op> bound`.
    pub fn from_comparator(op: Op, bound: &Version) -> Self {
        let v = version::without_build(bound);
        let next = version::successor(&v);
        match op {
            Op::Eq => Self::from_bounds(v, next),
            Op::Ne => Self::from_comparator(Op::Eq, &v).complement(),
            Op::Gt => next.map_or_else(Self::empty, |n| Self::from_bounds(n, None)),
            Op::Ge => Self::from_bounds(v, None),
            Op::Lt => Self::from_bounds(version::min_version(), Some(v)),
            Op::Le => Self::from_bounds(version::min_version(), next),
        }
    }

    fn from_bounds(lo: Version, hi: Option<Version>) -> Self {
        Self::normalize(vec![Interval { lo, hi }])
    }

    fn normalize(mut items: Vec<Interval>) -> Self {
        items.retain(|i| !i.is_empty());
        items.sort_by(|a, b| version::cmp(&a.lo, &b.lo));
        let mut out: Vec<Interval> = Vec::with_capacity(items.len());
        for it in items {
            if let Some(last) = out.last_mut() {
                let overlaps = last
                    .hi
                    .as_ref()
                    .is_none_or(|h| version::cmp(&it.lo, h) != Ordering::Greater);
                if overlaps {
                    last.hi = max_upper(last.hi.take(), it.hi);
                    continue;
                }
            }
            out.push(it);
        }
        IntervalSet { items: out }
    }

    pub fn intervals(&self) -> &[Interval] {
        &self.items
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn is_full(&self) -> bool {
        *self == Self::full()
    }

    /// Empty, or not reaching +∞.
    pub fn is_bounded_above(&self) -> bool {
        self.items.last().is_none_or(|i| i.hi.is_some())
    }

    /// Binary search: the intervals are sorted and disjoint, so only the last one starting
    /// at or below `v` can hold it (a range of thousands of alternatives is tested in
    /// O(log n), not O(n)).
    pub fn contains(&self, v: &Version) -> bool {
        let i = self
            .items
            .partition_point(|it| version::cmp(&it.lo, v) != Ordering::Greater);
        i.checked_sub(1)
            .and_then(|i| self.items.get(i))
            .is_some_and(|it| it.contains(v))
    }

    pub fn intersects(&self, other: &IntervalSet) -> bool {
        !self.intersection(other).is_empty()
    }

    pub fn intersection(&self, other: &IntervalSet) -> IntervalSet {
        // Sweep both sorted lists, advancing whichever interval ends first.
        let mut items = Vec::new();
        let (mut i, mut j) = (0, 0);
        while let (Some(a), Some(b)) = (self.items.get(i), other.items.get(j)) {
            let lo = match version::cmp(&a.lo, &b.lo) {
                Ordering::Less => b.lo.clone(),
                _ => a.lo.clone(),
            };
            let hi = min_upper(a.hi.clone(), b.hi.clone());
            let a_first = hi == a.hi;
            items.push(Interval { lo, hi });
            if a_first {
                i += 1;
            } else {
                j += 1;
            }
        }
        Self::normalize(items)
    }

    pub fn union(&self, other: &IntervalSet) -> IntervalSet {
        Self::normalize(self.items.iter().chain(&other.items).cloned().collect())
    }

    pub fn complement(&self) -> IntervalSet {
        let mut items = Vec::with_capacity(self.items.len() + 1);
        let mut gap_start = Some(version::min_version());
        for it in &self.items {
            if let Some(lo) = gap_start {
                items.push(Interval {
                    lo,
                    hi: Some(it.lo.clone()),
                });
            }
            gap_start = it.hi.clone();
        }
        if let Some(lo) = gap_start {
            items.push(Interval { lo, hi: None });
        }
        Self::normalize(items)
    }

    pub fn is_subset_of(&self, other: &IntervalSet) -> bool {
        self.intersection(&other.complement()).is_empty()
    }
}

fn max_upper(a: Option<Version>, b: Option<Version>) -> Option<Version> {
    match (a, b) {
        (Some(a), Some(b)) if version::cmp(&a, &b) == Ordering::Less => Some(b),
        (Some(a), Some(_)) => Some(a),
        _ => None,
    }
}

fn min_upper(a: Option<Version>, b: Option<Version>) -> Option<Version> {
    match (a, b) {
        (Some(a), Some(b)) if version::cmp(&b, &a) == Ordering::Less => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

impl fmt::Display for Interval {
    /// `{v}` for a point, `(a, …` / `…, b]` where the bound is the successor of a
    /// natural version, `(-∞` from the least version, `∞)` for no upper bound.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let next = version::successor(&self.lo);
        let is_point = match (&next, &self.hi) {
            (Some(n), Some(h)) => version::cmp(n, h) == Ordering::Equal,
            (None, None) => true,
            _ => false,
        };
        if is_point {
            return write!(f, "{{{}}}", self.lo);
        }
        if version::cmp(&self.lo, &version::min_version()) == Ordering::Equal {
            f.write_str("(-∞, ")?;
        } else if let Some(p) = version::natural_predecessor(&self.lo) {
            write!(f, "({p}, ")?;
        } else {
            write!(f, "[{}, ", self.lo)?;
        }
        match &self.hi {
            None => f.write_str("∞)"),
            Some(h) => match version::natural_predecessor(h) {
                Some(p) => write!(f, "{p}]"),
                None => write!(f, "{h})"),
            },
        }
    }
}

impl fmt::Display for IntervalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.items.is_empty() {
            return f.write_str("∅");
        }
        for (i, it) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(" ∪ ")?;
            }
            write!(f, "{it}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Rewrite suggestions.

/// Alternatives (OR) of comparator lists (AND); `[[]]` matches everything, `[]` nothing.
type Dnf = Vec<Vec<String>>;

const OP_CHARS: &[char] = &['<', '>', '=', '!', '~', '^'];
const MAX_ALTERNATIVES: usize = 64;

/// For a range that fails to parse or has quirks, the blang spelling of what a
/// Cargo/npm/Python/Ruby-style reading means (`^`, `~`, `~>`, `~=`, partial versions,
/// `*`/`x` wildcards, `v` prefixes, `,`/`&&`, `|`, hyphen ranges). `None` when the input
/// is fine as it is or no sensible rewrite exists. Partial versions follow npm X-ranges:
/// `>1.2` is `>=1.3.0`, `<=1.2` is `<1.3.0`, bare `1.2` is `>=1.2.0 <1.3.0`.
/// Pre-release exclusion (npm/Cargo) has no blang equivalent and is not reproduced.
pub fn suggest_rewrite(input: &str) -> Option<String> {
    if parse(input).is_ok_and(|r| r.quirks.is_empty()) {
        return None;
    }
    let trimmed = input.trim();
    let dnf = if matches!(trimmed, "" | "*" | "x" | "X") {
        vec![Vec::new()]
    } else {
        let mut dnf = Dnf::new();
        for alt in trimmed.split('|').map(str::trim).filter(|a| !a.is_empty()) {
            dnf.extend(alternative_dnf(alt)?);
            if dnf.len() > MAX_ALTERNATIVES {
                return None;
            }
        }
        dnf
    };
    if dnf.is_empty() {
        return None;
    }
    let out = dnf
        .iter()
        .map(|alt| {
            if alt.is_empty() {
                ">=0.0.0".to_string()
            } else {
                alt.join(" ")
            }
        })
        .collect::<Vec<_>>()
        .join(" || ");
    (out != input && parse(&out).is_ok()).then_some(out)
}

fn alternative_dnf(alt: &str) -> Option<Dnf> {
    let words: Vec<&str> = alt.split_whitespace().collect();
    if let [lo, "-", hi] = words.as_slice() {
        return hyphen_dnf(lo, hi);
    }
    let cleaned = alt.replace("&&", " ").replace(',', " ");
    let mut rest = cleaned.trim_start();
    let mut dnf: Dnf = vec![Vec::new()];
    while !rest.is_empty() {
        let op_end = rest.find(|c| !OP_CHARS.contains(&c)).unwrap_or(rest.len());
        let (op, tail) = rest.split_at_checked(op_end)?;
        let tail = tail.trim_start();
        let v_end = tail
            .find(|c: char| c.is_whitespace() || OP_CHARS.contains(&c))
            .unwrap_or(tail.len());
        let (ver, tail) = tail.split_at_checked(v_end)?;
        dnf = and_dnf(&dnf, &comparator_dnf(op, ver)?)?;
        rest = tail.trim_start();
    }
    Some(dnf)
}

fn and_dnf(a: &Dnf, b: &Dnf) -> Option<Dnf> {
    if a.len().saturating_mul(b.len()) > MAX_ALTERNATIVES {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat()))
            .collect(),
    )
}

/// A possibly partial version: `1`, `1.2`, `1.2.x`, `v1.2.3-rc.1+b`.
struct Partial<'a> {
    nums: Vec<u64>,
    /// Dot parts written, wildcards included.
    written: usize,
    pre: Option<&'a str>,
    build: Option<&'a str>,
}

impl<'a> Partial<'a> {
    fn parse(s: &'a str) -> Option<Self> {
        let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
        let (s, build) = match s.split_once('+') {
            Some((s, b)) => (s, Some(b)),
            None => (s, None),
        };
        let (core, pre) = match s.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (s, None),
        };
        let (mut nums, mut written) = (Vec::new(), 0);
        for part in core.split('.') {
            written += 1;
            if written > 3 {
                return None;
            }
            if matches!(part, "x" | "X" | "*") {
                continue;
            }
            if written > nums.len() + 1
                || part.is_empty()
                || !part.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            nums.push(part.parse().ok()?);
        }
        if nums.len() < 3 && (pre.is_some() || build.is_some()) {
            return None;
        }
        Some(Partial {
            nums,
            written,
            pre,
            build,
        })
    }

    /// Missing parts as 0, leading zeros dropped.
    fn padded(&self) -> String {
        let n = |i: usize| self.nums.get(i).copied().unwrap_or(0);
        let pre = self.pre.map(|p| format!("-{p}")).unwrap_or_default();
        let build = self.build.map(|b| format!("+{b}")).unwrap_or_default();
        format!("{}.{}.{}{pre}{build}", n(0), n(1), n(2))
    }

    /// Exclusive upper bound of the first `keep` parts: `1.2` → `1.3.0`.
    fn bump(&self, keep: usize) -> Option<String> {
        Some(match self.nums.get(..keep)? {
            [m] => format!("{}.0.0", m.checked_add(1)?),
            [m, n] => format!("{m}.{}.0", n.checked_add(1)?),
            [m, n, p] => format!("{m}.{n}.{}", p.checked_add(1)?),
            _ => return None,
        })
    }
}

fn comparator_dnf(op: &str, ver: &str) -> Option<Dnf> {
    let p = Partial::parse(ver)?;
    let n = p.nums.len();
    let v = p.padded();
    let all = || Some(vec![Vec::new()]);
    let one = |items: Vec<String>| Some(vec![items]);
    match (op, n) {
        ("" | "=" | "==" | "===" | ">=" | "=>" | "<=" | "=<" | "^" | "~" | "~>" | "~=", 0) => all(),
        ("!" | "!=" | "<>" | ">" | "<", 0) => Some(Vec::new()),
        ("" | "=" | "==" | "===", 3) => one(vec![v]),
        ("" | "=" | "==" | "===", _) => one(vec![format!(">={v}"), format!("<{}", p.bump(n)?)]),
        ("!" | "!=" | "<>", 3) => one(vec![format!("!={v}")]),
        ("!" | "!=" | "<>", _) => Some(vec![
            vec![format!("<{v}")],
            vec![format!(">={}", p.bump(n)?)],
        ]),
        (">", 3) => one(vec![format!(">{v}")]),
        (">", _) => one(vec![format!(">={}", p.bump(n)?)]),
        (">=" | "=>", _) => one(vec![format!(">={v}")]),
        ("<", _) => one(vec![format!("<{v}")]),
        ("<=" | "=<", 3) => one(vec![format!("<={v}")]),
        ("<=" | "=<", _) => one(vec![format!("<{}", p.bump(n)?)]),
        ("^" | "~" | "~>" | "~=", _) => {
            let keep = match op {
                // Caret: up to the first non-zero part written.
                "^" => match p.nums.as_slice() {
                    [0, 0, _] => 3,
                    [0, ..] if n >= 2 => 2,
                    _ => 1,
                },
                "~" => n.min(2),
                // Ruby/Python pessimistic: drop the last written part.
                _ => p.written.saturating_sub(1).clamp(1, n),
            };
            one(vec![format!(">={v}"), format!("<{}", p.bump(keep)?)])
        }
        _ => None,
    }
}

/// npm hyphen range `a - b`: `>=a` (padded) and `<=b`, or `<bump(b)` for a partial `b`.
fn hyphen_dnf(lo: &str, hi: &str) -> Option<Dnf> {
    let (a, b) = (Partial::parse(lo)?, Partial::parse(hi)?);
    let mut items = Vec::new();
    if !a.nums.is_empty() {
        items.push(format!(">={}", a.padded()));
    }
    match b.nums.len() {
        0 => {}
        3 => items.push(format!("<={}", b.padded())),
        n => items.push(format!("<{}", b.bump(n)?)),
    }
    Some(vec![items])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The §5.2 sample versions.
    const SAMPLE: &[&str] = &[
        "0.9.0",
        "1.0.0",
        "1.0.1",
        "1.2.1",
        "1.5.0",
        "2.0.0",
        "3.0.0",
        "1.0.0-alpha",
        "1.1.0-beta.1",
        "2.0.0-rc.1",
        "1.0.0+build.1",
    ];

    fn v(s: &str) -> Version {
        version::parse_strict(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn ok(r: &str) -> Range {
        parse(r).unwrap_or_else(|e| panic!("{r:?}: {}", e.message))
    }

    fn err(r: &str) -> String {
        match parse(r) {
            Ok(x) => panic!("{r:?} parsed: {x:?}"),
            Err(e) => e.message,
        }
    }

    /// The sample versions the range matches, checking the normal form agrees.
    fn matches(r: &str) -> Vec<&'static str> {
        let range = ok(r);
        let set = range.intervals();
        SAMPLE
            .iter()
            .copied()
            .filter(|s| {
                let m = range.contains(&v(s));
                assert_eq!(m, set.contains(&v(s)), "{r} / {s}");
                m
            })
            .collect()
    }

    fn all_but(excluded: &[&str]) -> Vec<&'static str> {
        SAMPLE
            .iter()
            .copied()
            .filter(|s| !excluded.contains(s))
            .collect()
    }

    fn show(r: &str) -> String {
        ok(r).intervals().to_string()
    }

    const LAST: &str = "Last element in range is '||'";

    // §5.1 step 1: tokenizing.
    #[test]
    fn tokenize_quirks() {
        for r in ["", "  ", "x", "*", "1"] {
            assert_eq!(err(r), LAST, "{r:?}");
        }
        assert!(matches("1.0.0 - 2.0.0").is_empty());
        let r = ok("1.0.0 - 2.0.0");
        assert_eq!(r.groups().len(), 1);
        assert_eq!(r.groups().first().map(Vec::len), Some(2));
        assert_eq!(
            r.quirks(),
            &[Quirk::DroppedToken {
                span: 6..7,
                text: "-".into()
            }]
        );
        assert_eq!(matches("! 1.0.0"), ["1.0.0", "1.0.0+build.1"]);
        assert_eq!(
            ok("! 1.0.0").quirks(),
            &[Quirk::DroppedToken {
                span: 0..1,
                text: "!".into()
            }]
        );
        assert_eq!(ok(">=1.0.0 |").intervals(), ok(">=1.0.0").intervals());
        assert_eq!(matches("> 1.0.0"), matches(">1.0.0"));
        assert_eq!(matches(">= 1.0.0 < 2.0.0"), matches(">=1.0.0 <2.0.0"));
        assert_eq!(matches("!= 1.0.0"), matches("!=1.0.0"));
        let toks: Vec<(String, Span, bool)> = ok(">= 1.0.0  <  2.0.0 |")
            .tokens()
            .iter()
            .map(|t| (t.text.clone(), t.span.clone(), t.dropped))
            .collect();
        assert_eq!(
            toks,
            [
                (">=1.0.0".into(), 0..8, false),
                ("<2.0.0".into(), 10..18, false),
                ("|".into(), 19..20, true)
            ]
        );
        // A lone operator followed by spaces survives as a 1-byte token after trimming.
        assert_eq!(err(">  "), r#"Could not get version from string: ">""#);
        // Tabs do not split; the operator is trimmed of Unicode white space.
        assert_eq!(matches("\t>=1.0.0"), matches(">=1.0.0"));
    }

    // §5.1 step 2: OR split.
    #[test]
    fn or_split() {
        assert_eq!(
            err(">=1.0.0||<0.5.0"),
            r#"Could not parse Range ">=1.0.0||<0.5.0": Could not parse version "1.0.0||<0.5.0" in ">=1.0.0||<0.5.0": Invalid character(s) found in patch number "0||<0.5.0""#
        );
        assert_eq!(err("|| >=1.0.0"), "First element in range is '||'");
        assert_eq!(parse("|| >=1.0.0").err().and_then(|e| e.span), Some(0..2));
        assert_eq!(err(">=1.0.0 ||"), LAST);
        assert_eq!(parse(">=1.0.0 ||").err().and_then(|e| e.span), Some(8..10));
        assert_eq!(parse("").err().map(|e| e.span), Some(None));
        let r = ok(">=1.0.0 || || <0.5.0");
        assert!(r.has_nil_group());
        assert_eq!(r.quirks(), &[Quirk::NilGroup { span: 8..13 }]);
        assert_eq!(
            matches(">=1.0.0 || || <0.5.0"),
            all_but(&["0.9.0", "1.0.0-alpha"])
        );
        assert!(r.panics_on(&v("0.9.0")) && r.panics_on(&v("1.0.0-alpha")));
        assert!(!r.panics_on(&v("1.0.0")));
        // Matches `<0.5.0`, but OLM panics on the nil group before reaching it.
        assert!(r.contains(&v("0.1.0")) && r.panics_on(&v("0.1.0")));
    }

    // §5.1 step 3: wildcards.
    #[test]
    fn wildcards() {
        assert_eq!(show("1.x"), "[1.0.0, 2.0.0)");
        assert_eq!(show("1.x.x"), "[1.0.0, 1.1.0)");
        assert_eq!(show("1.2.x"), "[1.2.0, 1.3.0)");
        assert_eq!(show(">1.x"), "[2.0.0, ∞)");
        assert_eq!(show(">=1.x"), "[1.0.0, ∞)");
        assert_eq!(show("<1.x"), "(-∞, 1.0.0)");
        assert_eq!(show("<=1.2.x"), "(-∞, 1.3.0)");
        assert_eq!(show("==1.x"), "[1.0.0, 2.0.0)");
        assert_eq!(show("!1.x"), "∅");
        assert_eq!(show("!=1.2.x"), "∅");
        assert_eq!(show("~1.x"), "{1.0.0}");
        assert_eq!(show("^1.x"), "{1.0.0}");
        assert_eq!(show("~>1.2.x"), "{1.2.0}");
        assert_eq!(show(">=1.0.0-x"), "[1.0.0-x, ∞)");
        assert_eq!(show(">=1.0.0-alpha.x"), "(1.0.0-alpha, ∞)"); // i.e. [1.0.0-alpha.0, ∞)
        assert_eq!(show("x1.0.0"), "{1.0.0}");
        let q = |r: &str| ok(r).quirks().to_vec();
        assert_eq!(q("1.x.x"), [Quirk::PatchWildcardOfMajor { span: 0..5 }]);
        assert_eq!(q(">=1.x.x"), []);
        assert_eq!(
            q("~>1.2.x"),
            [Quirk::OperatorDroppedOnWildcard {
                span: 0..7,
                op: "~>".into()
            }]
        );
        assert_eq!(q(">=0.0.0 !1.x"), [Quirk::NotEqualWildcard { span: 8..12 }]);
        for r in ["1.0.0-x", "1.0.0-alpha.x", "1.x.1", "=1.0.0-x", "<=1.0.0-x"] {
            assert_eq!(err(r), r#"Could not get version from string: "<""#, "{r}");
        }
        assert_eq!(
            err(">1.0.0-x"),
            r#"Could not get version from string: ">=""#
        );
        assert_eq!(
            err("1.2.3.x"),
            r#"Could not parse Range ">=1.2.3.0": Could not parse version "1.2.3.0" in ">=1.2.3.0": Invalid character(s) found in patch number "3.0""#
        );
        assert_eq!(
            err("x.x.x"),
            r#"Could not get version from string: "x.x.x""#
        );
        assert_eq!(err(">=x"), r#"Could not get version from string: ">=x""#);
        // Wildcard errors come first (expansion runs over all groups before comparators).
        assert_eq!(
            err("^1.0.0 || >=x"),
            r#"Could not get version from string: ">=x""#
        );
        assert_eq!(
            err("1.X"),
            r#"Could not parse Range "1.X": Could not parse version "1.X" in "1.X": No Major.Minor.Patch elements found"#
        );
        assert_eq!(
            err("1.*"),
            r#"Could not parse Range "1.*": Could not parse version "1.*" in "1.*": No Major.Minor.Patch elements found"#
        );
    }

    // §5.1 step 4: comparators.
    #[test]
    fn comparator_errors() {
        assert_eq!(
            err(">=1.0.0 ab"),
            r#"Could not get version from string: "ab""#
        );
        assert_eq!(parse(">=1.0.0 ab").err().and_then(|e| e.span), Some(8..10));
        assert_eq!(
            err(">=1.0.0 && <2.0.0"),
            r#"Could not get version from string: "&&""#
        );
        for (r, op) in [
            ("^1.0.0", "^"),
            ("~1.0.0", "~"),
            ("~>1.0.0", "~>"),
            ("=>1.0.0", "=>"),
            ("=<1.0.0", "=<"),
            ("<>1.0.0", "<>"),
            (">=v1.0.0", ">=v"),
        ] {
            let v = r.trim_start_matches(|c: char| !c.is_ascii_digit());
            assert_eq!(
                err(r),
                format!(
                    r#"Could not parse Range "{r}": Could not parse comparator "{op}" in "{op}{v}""#
                )
            );
        }
        let bad_version = |r: &str, v: &str, e: &str| {
            assert_eq!(
                err(r),
                format!(
                    r#"Could not parse Range "{r}": Could not parse version "{v}" in "{r}": {e}"#
                )
            );
        };
        bad_version(">=1.0", "1.0", "No Major.Minor.Patch elements found");
        bad_version(">=1", "1", "No Major.Minor.Patch elements found");
        bad_version(
            ">=01.0.0",
            "01.0.0",
            r#"Major number must not contain leading zeroes "01""#,
        );
        bad_version(
            ">=1.0.0,<2.0.0",
            "1.0.0,<2.0.0",
            r#"Invalid character(s) found in patch number "0,<2.0.0""#,
        );
        assert_eq!(
            err("٣"),
            r#"Could not parse Range "٣": Could not parse version "٣" in "٣": No Major.Minor.Patch elements found"#
        );
    }

    // §5.1 step 5 and §5.2.
    #[test]
    fn range_examples() {
        let ge1 = all_but(&["0.9.0", "1.0.0-alpha"]);
        assert_eq!(matches(">=1.0.0"), ge1);
        assert_eq!(
            matches(">1.0.0 <2.0.0 || >=3.0.0"),
            [
                "1.0.1",
                "1.2.1",
                "1.5.0",
                "3.0.0",
                "1.1.0-beta.1",
                "2.0.0-rc.1"
            ]
        );
        assert!(!matches("<2.0.0-0").contains(&"2.0.0-rc.1"));
        assert!(matches("<2.0.0").contains(&"2.0.0-rc.1"));
        for r in ["1.0.0", "=1.0.0", "==1.0.0", "! 1.0.0"] {
            assert_eq!(matches(r), ["1.0.0", "1.0.0+build.1"], "{r}");
        }
        for r in ["!1.0.0", "!=1.0.0", "!= 1.0.0"] {
            assert_eq!(matches(r), all_but(&["1.0.0", "1.0.0+build.1"]), "{r}");
        }
        assert_eq!(
            matches("> 1.0.0 !1.2.1"),
            [
                "1.0.1",
                "1.5.0",
                "2.0.0",
                "3.0.0",
                "1.1.0-beta.1",
                "2.0.0-rc.1"
            ]
        );
        let one_x = [
            "1.0.0",
            "1.0.1",
            "1.2.1",
            "1.5.0",
            "1.1.0-beta.1",
            "2.0.0-rc.1",
            "1.0.0+build.1",
        ];
        assert_eq!(matches("1.x"), one_x);
        assert_eq!(
            matches("1.x.x"),
            ["1.0.0", "1.0.1", "1.1.0-beta.1", "1.0.0+build.1"]
        );
        assert_eq!(matches("1.2.x"), ["1.2.1"]);
        assert_eq!(matches(">1.x"), ["2.0.0", "3.0.0"]);
        assert_eq!(matches("<=1.x"), all_but(&["2.0.0", "3.0.0"]));
        assert_eq!(matches("<1.x"), ["0.9.0", "1.0.0-alpha"]);
        assert!(matches("!1.x").is_empty() && matches("!=1.2.x").is_empty());
        let mut one_or_three = one_x.to_vec();
        one_or_three.insert(4, "3.0.0");
        assert_eq!(matches("1.x || 3.x"), one_or_three);
        for r in ["~1.x", "^1.x"] {
            assert_eq!(matches(r), ["1.0.0", "1.0.0+build.1"], "{r}");
        }
        assert!(matches("1.0.0 2.0.0").is_empty());
        assert!(matches(">=1.0.0 <1.0.0").is_empty());
        assert!(matches("<1.0.0 >2.0.0").is_empty());
        for r in ["^1.0.0", "~1.0.0", "~>1.0.0", "=>1.0.0", "<>1.0.0"] {
            assert!(err(r).contains("Could not parse comparator"), "{r}");
        }
        for r in [">=1.0", ">=1", "1.*", "1.X", ">=v1.0.0", ">=01.0.0"] {
            assert!(parse(r).is_err(), "{r}");
        }
        // Build metadata ignored, no pre-release exclusion, 0.0.0-0 below 0.0.0.
        assert!(!ok(">1.0.0").contains(&v("1.0.0+build.1")));
        assert!(ok(">=1.0.0+meta").contains(&v("1.0.0")));
        assert!(!ok(">=0.0.0").contains(&v("0.0.0-0")));
    }

    // §9.3.
    #[test]
    fn vectors_9_3() {
        let r1 = [
            "1.0.0",
            "1.0.1",
            "1.2.1",
            "1.5.0",
            "1.1.0-beta.1",
            "2.0.0-rc.1",
            "1.0.0+build.1",
        ];
        assert_eq!(matches(">=1.0.0 <2.0.0"), r1); // R1
        assert_eq!(matches(">= 1.0.0 < 2.0.0"), r1); // R2
        assert_eq!(matches("! 1.0.0"), ["1.0.0", "1.0.0+build.1"]); // R3
        assert_eq!(show("1.x.x"), "[1.0.0, 1.1.0)"); // R4
        assert!(matches("!1.x").is_empty()); // R5
        assert_eq!(matches("~1.x"), ["1.0.0", "1.0.0+build.1"]); // R6
        assert_eq!(err("1.0.0-x"), r#"Could not get version from string: "<""#); // R7
        assert_eq!(
            err(">=1.0.0, <2.0.0"),
            r#"Could not parse Range ">=1.0.0,": Could not parse version "1.0.0," in ">=1.0.0,": Invalid character(s) found in patch number "0,""#
        ); // R8
        assert_eq!(matches(">=1.0.0 x"), matches(">=1.0.0")); // R9
        assert_eq!(matches(">=1.0.0 |"), matches(">=1.0.0"));
        assert_eq!(matches(">=1.0.0 <2.0.0 a"), r1);
        assert_eq!(
            err(">=1.0.0 ab"),
            r#"Could not get version from string: "ab""#
        ); // R10
        assert!(!ok(">=0.0.0").contains(&v("0.0.0-0"))); // R11
    }

    #[test]
    fn normal_form_is_exact() {
        const MAX: &str = "18446744073709551615.18446744073709551615.18446744073709551615";
        assert_eq!(
            show(">=1.0.0 <2.0.0 || >=3.0.0"),
            "[1.0.0, 2.0.0) ∪ [3.0.0, ∞)"
        );
        assert_eq!(show("<2.0.0"), "(-∞, 2.0.0)");
        assert_eq!(show("<=2.0.0"), "(-∞, 2.0.0]");
        assert_eq!(show(">1.0.0"), "(1.0.0, ∞)");
        assert_eq!(show("1.0.0"), "{1.0.0}");
        assert_eq!(show("!=1.0.0"), "(-∞, 1.0.0) ∪ (1.0.0, ∞)");
        assert_eq!(show(">1.0.0 <1.0.1-0"), "∅");
        assert_eq!(show(">1.0.0 <=1.0.1-0"), "{1.0.1-0}");
        assert_eq!(show(">1.0.0-a <1.0.0-a.0"), "∅");
        assert_eq!(show(">=1.0.0-a <=1.0.0-a.0"), "[1.0.0-a, 1.0.0-a.0]");
        assert_eq!(show(">=0.0.0-0"), "(-∞, ∞)");
        assert_eq!(show("<0.0.0-0"), "∅");
        assert_eq!(show("!=0.0.0-0"), "(0.0.0-0, ∞)");
        assert_eq!(show("<1.0.0 || >=1.0.0"), "(-∞, ∞)");
        assert_eq!(show("<=1.0.0 || >1.0.0"), "(-∞, ∞)");
        assert_eq!(show("<1.0.0 || >1.0.0"), "(-∞, 1.0.0) ∪ (1.0.0, ∞)");
        assert_eq!(show(&format!(">{MAX}")), "∅");
        assert_eq!(show(&format!("<={MAX}")), "(-∞, ∞)");
        assert_eq!(show(MAX), format!("{{{MAX}}}"));
        assert_eq!(show(">1.0.18446744073709551615"), "[1.1.0-0, ∞)");
        assert!(ok(">=1.0.0 <2.0.0").is_subset_of(&ok(">=0.5.0")));
        assert!(!ok(">=1.0.0").is_subset_of(&ok("<3.0.0")));
        assert!(ok(">=1.0.0").intersects(&ok("<=1.0.0")));
        assert!(!ok(">1.0.0").intersects(&ok("<=1.0.0")));
        assert!(ok(">1.0.0 <1.0.1-0").is_empty());
        let a = ok(">=1.0.0 <2.0.0").intervals();
        assert_eq!(a.complement().to_string(), "(-∞, 1.0.0) ∪ [2.0.0, ∞)");
        assert!(a.union(&a.complement()).is_full());
    }

    #[test]
    fn pins_and_bounds() {
        assert!(ok("1.2.0").is_exact_pin());
        assert!(ok("1.2.0+b").is_exact_pin());
        for r in ["=1.2.0", ">=1.2.0", "1.2.0 1.2.0", "1.x", "1.0.0 || 1.0.0"] {
            assert!(!ok(r).is_exact_pin(), "{r}");
        }
        assert!(ok(">=1.0.0 <2.0.0").has_upper_bound());
        assert!(ok(">=3.0.0 || <=1.0.0").has_upper_bound());
        assert!(ok("1.0.0").has_upper_bound());
        assert!(!ok(">=1.0.0").has_upper_bound());
        assert!(!ok("!=1.0.0").has_upper_bound());
    }

    #[test]
    fn rewrites() {
        let cases = [
            ("^1.2.0", ">=1.2.0 <2.0.0"),
            ("^0.2.3", ">=0.2.3 <0.3.0"),
            ("^0.0.3", ">=0.0.3 <0.0.4"),
            ("^0.0", ">=0.0.0 <0.1.0"),
            ("^1", ">=1.0.0 <2.0.0"),
            ("~1.2.0", ">=1.2.0 <1.3.0"),
            ("~1", ">=1.0.0 <2.0.0"),
            ("~>1.2", ">=1.2.0 <2.0.0"),
            ("~>1.2.3", ">=1.2.3 <1.3.0"),
            ("~=1.4.5", ">=1.4.5 <1.5.0"),
            (">=1.0, <2.0", ">=1.0.0 <2.0.0"),
            (">=1.0,<2.0", ">=1.0.0 <2.0.0"),
            (">=1.0", ">=1.0.0"),
            (">1.2", ">=1.3.0"),
            ("<=1.2", "<1.3.0"),
            ("v1.0.0", "1.0.0"),
            (">=v1.0.0", ">=1.0.0"),
            (">=1.0.0 && <2.0.0", ">=1.0.0 <2.0.0"),
            (">=1.0.0||<0.5.0", ">=1.0.0 || <0.5.0"),
            (">=1.0.0 | <0.5.0", ">=1.0.0 || <0.5.0"),
            (">=1.0.0 || || <0.5.0", ">=1.0.0 || <0.5.0"),
            (">=1.0.0 |", ">=1.0.0"),
            (">=1.0.0<2.0.0", ">=1.0.0 <2.0.0"),
            ("1.0.0 - 2.0.0", ">=1.0.0 <=2.0.0"),
            ("1.0 - 2.1", ">=1.0.0 <2.2.0"),
            ("*", ">=0.0.0"),
            ("", ">=0.0.0"),
            ("x", ">=0.0.0"),
            ("! 1.0.0", "!=1.0.0"),
            ("<>1.0.0", "!=1.0.0"),
            ("=>1.0.0", ">=1.0.0"),
            ("1.x.x", ">=1.0.0 <2.0.0"),
            ("1.*", ">=1.0.0 <2.0.0"),
            ("1.2.X", ">=1.2.0 <1.3.0"),
            ("~1.x", ">=1.0.0 <2.0.0"),
            ("~>1.2.x", ">=1.2.0 <1.3.0"),
            ("!1.x", "<1.0.0 || >=2.0.0"),
            (">=0.5.0 !=1.*", ">=0.5.0 <1.0.0 || >=0.5.0 >=2.0.0"),
            (">=01.0.0", ">=1.0.0"),
            ("^1.2.3-beta.1", ">=1.2.3-beta.1 <2.0.0"),
        ];
        for (input, want) in cases {
            assert_eq!(suggest_rewrite(input).as_deref(), Some(want), "{input:?}");
            assert!(parse(want).is_ok());
        }
        for input in [
            ">=1.0.0 <2.0.0",
            "1.x",
            "1.0.0 2.0.0",
            ">=1.0.0 ab",
            "<*",
            "1.0.0-al_pha",
            "^18446744073709551615.0.0",
            "1.*.3",
            "||",
        ] {
            assert_eq!(suggest_rewrite(input), None, "{input:?}");
        }
    }
}
