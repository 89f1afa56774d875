//! Checker types and cel-go's assignability/unification rules (port of
//! `checker/types.go`, cel-go v0.29).

use std::fmt;

/// A type as seen by the checker. `Var(0)`/`Var(1)` are the declaration parameters
/// `A`/`B`; fresh checker variables start at 2 and print as `_var0`, `_var1`, ...
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ty {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    Dyn,
    /// `google.protobuf.Any`: behaves like `dyn` for assignability, prints as `any`.
    Any,
    Error,
    Timestamp,
    Duration,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    /// `type` (None) or `type(T)`.
    Type(Option<Box<Ty>>),
    Var(u32),
}

pub(super) const PARAM_A: u32 = 0;
pub(super) const PARAM_B: u32 = 1;
pub(super) const FIRST_FRESH_VAR: u32 = 2;

impl Ty {
    pub(super) fn list(t: Ty) -> Ty {
        Ty::List(Box::new(t))
    }
    pub(super) fn map(k: Ty, v: Ty) -> Ty {
        Ty::Map(Box::new(k), Box::new(v))
    }
    pub(super) fn type_of(t: Ty) -> Ty {
        Ty::Type(Some(Box::new(t)))
    }
    fn kind(&self) -> u8 {
        match self {
            Ty::Bool => 0,
            Ty::Int => 1,
            Ty::Uint => 2,
            Ty::Double => 3,
            Ty::String => 4,
            Ty::Bytes => 5,
            Ty::Null => 6,
            Ty::Dyn => 7,
            Ty::Any => 8,
            Ty::Error => 9,
            Ty::Timestamp => 10,
            Ty::Duration => 11,
            Ty::List(_) => 12,
            Ty::Map(..) => 13,
            Ty::Type(_) => 14,
            Ty::Var(_) => 15,
        }
    }
}

/// cel-go `FormatCELType`.
impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bool => f.write_str("bool"),
            Ty::Int => f.write_str("int"),
            Ty::Uint => f.write_str("uint"),
            Ty::Double => f.write_str("double"),
            Ty::String => f.write_str("string"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::Null => f.write_str("null"),
            Ty::Dyn => f.write_str("dyn"),
            Ty::Any => f.write_str("any"),
            Ty::Error => f.write_str("!error!"),
            Ty::Timestamp => f.write_str("timestamp"),
            Ty::Duration => f.write_str("duration"),
            Ty::List(e) => write!(f, "list({e})"),
            Ty::Map(k, v) => write!(f, "map({k}, {v})"),
            Ty::Type(None) => f.write_str("type"),
            Ty::Type(Some(t)) => write!(f, "type({t})"),
            Ty::Var(PARAM_A) => f.write_str("A"),
            Ty::Var(PARAM_B) => f.write_str("B"),
            Ty::Var(n) => write!(f, "_var{}", n - FIRST_FRESH_VAR),
        }
    }
}

pub(super) fn is_dyn(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any)
}

pub(super) fn is_dyn_or_error(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any | Ty::Error)
}

/// Type-variable substitutions with an undo trail, so a failed assignability test can be
/// rolled back without copying the whole mapping (cel-go copies it).
#[derive(Default)]
pub(super) struct Mapping {
    subs: Vec<Option<Ty>>,
    trail: Vec<(u32, Option<Ty>)>,
}

impl Mapping {
    pub(super) fn find(&self, t: &Ty) -> Option<&Ty> {
        match t {
            Ty::Var(id) => self.subs.get(*id as usize).and_then(Option::as_ref),
            _ => None,
        }
    }

    fn add(&mut self, var: &Ty, t: Ty) {
        let Ty::Var(id) = var else { return };
        let idx = *id as usize;
        if self.subs.len() <= idx {
            self.subs.resize(idx + 1, None);
        }
        if let Some(slot) = self.subs.get_mut(idx) {
            let old = slot.replace(t);
            self.trail.push((*id, old));
        }
    }

    fn mark(&self) -> usize {
        self.trail.len()
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            if let Some((id, old)) = self.trail.pop() {
                if let Some(slot) = self.subs.get_mut(id as usize) {
                    *slot = old;
                }
            }
        }
    }

    /// cel-go `isAssignable`: commits substitutions only on success.
    pub(super) fn is_assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        let mark = self.mark();
        let ok = internal_is_assignable(self, t1, t2);
        if !ok {
            self.undo(mark);
        }
        ok
    }

    pub(super) fn is_assignable_list(&mut self, l1: &[Ty], l2: &[Ty]) -> bool {
        let mark = self.mark();
        let ok = internal_is_assignable_list(self, l1, l2);
        if !ok {
            self.undo(mark);
        }
        ok
    }
}

fn is_equal_or_less_specific(t1: &Ty, t2: &Ty) -> bool {
    if is_dyn(t1) || matches!(t1, Ty::Var(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Ty::Var(_)) {
        return false;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) => is_equal_or_less_specific(a, b),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2) && is_equal_or_less_specific(v1, v2)
        }
        (Ty::Type(_), Ty::Type(_)) => true,
        _ => t1 == t2,
    }
}

pub(super) fn most_general(t1: Ty, t2: Ty) -> Ty {
    if is_equal_or_less_specific(&t1, &t2) {
        t1
    } else {
        t2
    }
}

fn internal_is_assignable(m: &mut Mapping, t1: &Ty, t2: &Ty) -> bool {
    if matches!(t2, Ty::Var(_)) {
        let (valid, has_sub) = is_valid_type_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, Ty::Var(_)) {
        return is_valid_type_substitution(m, t2, t1).0;
    }
    if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
        return true;
    }
    if matches!(t1, Ty::Null) {
        return is_assignable_null(t2);
    }
    if matches!(t2, Ty::Null) {
        return is_assignable_null(t1);
    }
    match (t1, t2) {
        (Ty::Type(_), _) => matches!(t2, Ty::Type(_)),
        (Ty::List(a), Ty::List(b)) => internal_is_assignable(m, a, b),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            internal_is_assignable(m, k1, k2) && internal_is_assignable(m, v1, v2)
        }
        _ => t1.kind() == t2.kind() && !matches!(t1, Ty::List(_) | Ty::Map(..)),
    }
}

fn internal_is_assignable_list(m: &mut Mapping, l1: &[Ty], l2: &[Ty]) -> bool {
    l1.len() == l2.len()
        && l1
            .iter()
            .zip(l2)
            .all(|(a, b)| internal_is_assignable(m, a, b))
}

fn is_assignable_null(t: &Ty) -> bool {
    matches!(
        t,
        Ty::Any | Ty::Duration | Ty::Timestamp | Ty::Null | Ty::Dyn
    )
}

fn is_valid_type_substitution(m: &mut Mapping, t1: &Ty, t2: &Ty) -> (bool, bool) {
    if t1 == t2 {
        return (true, true);
    }
    if let Some(t2_sub) = m.find(t2).cloned() {
        if *t1 == t2_sub {
            return (true, true);
        }
        if internal_is_assignable(m, t1, &t2_sub) {
            let t2_new = most_general(t1.clone(), t2_sub);
            if not_referenced_in(m, t2, &t2_new) {
                m.add(t2, t2_new);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

fn not_referenced_in(m: &Mapping, t: &Ty, within: &Ty) -> bool {
    if t == within {
        return false;
    }
    match within {
        Ty::Var(_) => match m.find(within) {
            Some(sub) => not_referenced_in(m, t, sub),
            None => true,
        },
        Ty::List(e) => not_referenced_in(m, t, e),
        Ty::Map(k, v) => not_referenced_in(m, t, k) && not_referenced_in(m, t, v),
        _ => true,
    }
}

/// cel-go `substitute`: replaces bound variables; unbound ones become `dyn` if `to_dyn`.
pub(super) fn substitute(m: &Mapping, t: &Ty, to_dyn: bool) -> Ty {
    if let Some(sub) = m.find(t) {
        return substitute(m, sub, to_dyn);
    }
    match t {
        Ty::Var(_) if to_dyn => Ty::Dyn,
        Ty::List(e) => Ty::list(substitute(m, e, to_dyn)),
        Ty::Map(k, v) => Ty::map(substitute(m, k, to_dyn), substitute(m, v, to_dyn)),
        Ty::Type(Some(p)) => Ty::type_of(substitute(m, p, to_dyn)),
        _ => t.clone(),
    }
}

/// Replaces the declaration parameters `A`/`B` by the given fresh variables.
pub(super) fn instantiate(t: &Ty, a: u32, b: u32) -> Ty {
    match t {
        Ty::Var(PARAM_A) => Ty::Var(a),
        Ty::Var(PARAM_B) => Ty::Var(b),
        Ty::List(e) => Ty::list(instantiate(e, a, b)),
        Ty::Map(k, v) => Ty::map(instantiate(k, a, b), instantiate(v, a, b)),
        Ty::Type(Some(p)) => Ty::type_of(instantiate(p, a, b)),
        _ => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_params_do_not_widen() {
        let mut m = Mapping::default();
        let a = Ty::Var(FIRST_FRESH_VAR);
        assert!(!m.is_assignable_list(&[Ty::Int, Ty::String], &[a.clone(), a.clone()]));
        assert!(m.is_assignable_list(&[Ty::Int, Ty::Dyn], &[a.clone(), a.clone()]));
        assert_eq!(substitute(&m, &a, false), Ty::Dyn);
    }

    #[test]
    fn formatting() {
        let t = Ty::list(Ty::map(Ty::String, Ty::Any));
        assert_eq!(t.to_string(), "list(map(string, any))");
        assert_eq!(Ty::Var(FIRST_FRESH_VAR + 3).to_string(), "_var3");
    }
}
