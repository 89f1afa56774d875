//! Is a predicate satisfiable by *any* conceivable bundle? A bundle has exactly one package
//! name and one version, so `package` atoms with different names exclude each other and their
//! ranges split the version line into elementary intervals; `gvk`, `label` and `cel` atoms are
//! free. Decided exactly by enumeration (names × elementary intervals × free atoms).

use super::predicate::Pred;
use crate::version;
use semver::Version;

/// Free atoms beyond this are not enumerated (the answer is then "unknown").
const MAX_FREE_ATOMS: usize = 12;

/// A concrete bundle shape to evaluate the predicate on.
struct World<'a> {
    name: &'a str,
    version: &'a Version,
    free: &'a [String],
    assignment: u32,
}

fn atom_key(p: &Pred) -> Option<String> {
    match p {
        Pred::Gvk {
            group,
            version,
            kind,
        } => Some(format!("gvk:{group}/{version}/{kind}")),
        Pred::Cel { rule } => Some(format!("cel:{rule}")),
        Pred::Label(l) => Some(format!("label:{l}")),
        _ => None,
    }
}

fn eval(p: &Pred, w: &World<'_>) -> bool {
    match p {
        Pred::Package { name, range } => name == w.name && range.contains(w.version),
        Pred::All(ps) => ps.iter().all(|c| eval(c, w)),
        Pred::Any(ps) => ps.iter().any(|c| eval(c, w)),
        Pred::Not(ps) => !ps.iter().any(|c| eval(c, w)),
        atom => atom_key(atom)
            .and_then(|k| w.free.iter().position(|f| *f == k))
            .is_some_and(|i| w.assignment & (1 << i) != 0),
    }
}

fn collect<'a>(
    p: &'a Pred,
    names: &mut Vec<&'a str>,
    versions: &mut Vec<Version>,
    free: &mut Vec<String>,
) {
    match p {
        Pred::Package { name, range } => {
            names.push(name);
            for iv in range.intervals().intervals() {
                versions.push(iv.lower().clone());
                if let Some(u) = iv.upper() {
                    versions.push(u.clone());
                }
            }
        }
        Pred::All(ps) | Pred::Any(ps) | Pred::Not(ps) => {
            ps.iter().for_each(|c| collect(c, names, versions, free))
        }
        atom => {
            if let Some(k) = atom_key(atom) {
                free.push(k);
            }
        }
    }
}

/// `Some(true)` if some bundle could match, `Some(false)` if none ever can, `None` if the
/// predicate has too many free atoms to decide.
pub fn satisfiable(p: &Pred) -> Option<bool> {
    let (mut names, mut versions, mut free) = (Vec::new(), Vec::new(), Vec::new());
    collect(p, &mut names, &mut versions, &mut free);
    names.sort_unstable();
    names.dedup();
    names.push("\u{0}another package");
    versions.push(version::min_version());
    versions.sort_by(version::cmp);
    versions.dedup_by(|a, b| version::cmp(a, b).is_eq());
    free.sort();
    free.dedup();
    if free.len() > MAX_FREE_ATOMS {
        return None;
    }
    // Worlds × predicate size bounds the enumeration; past it the answer is "undecided".
    let work = names
        .len()
        .saturating_mul(versions.len())
        .saturating_mul(1usize << free.len())
        .saturating_mul(size(p));
    if work > MAX_WORK {
        return None;
    }
    for name in &names {
        for v in &versions {
            for assignment in 0..(1u32 << free.len()) {
                if eval(
                    p,
                    &World {
                        name,
                        version: v,
                        free: &free,
                        assignment,
                    },
                ) {
                    return Some(true);
                }
            }
        }
    }
    Some(false)
}

/// Node visits the enumeration may spend on one predicate (about a second at most).
const MAX_WORK: usize = 20_000_000;

/// Predicate nodes, counted iteratively.
fn size(p: &Pred) -> usize {
    let mut stack = vec![p];
    let mut n = 0usize;
    while let Some(q) = stack.pop() {
        n += 1;
        if let Pred::All(ps) | Pred::Any(ps) | Pred::Not(ps) = q {
            stack.extend(ps);
        }
    }
    n
}

/// Children a minimal conflict is searched among (one enumeration per child).
const MAX_CONFLICT_CHILDREN: usize = 64;

/// For an unsatisfiable `all`, a minimal subset of its children that is still unsatisfiable
/// (deletion-based). Other shapes, and `all`s too wide to shrink cheaply, return `None`.
pub fn minimal_conflict(p: &Pred) -> Option<Vec<usize>> {
    let Pred::All(children) = p else { return None };
    if children.len() > MAX_CONFLICT_CHILDREN {
        return None;
    }
    let mut keep: Vec<usize> = (0..children.len()).collect();
    let mut i = 0;
    while i < keep.len() {
        let trial: Vec<usize> = keep
            .iter()
            .copied()
            .filter(|&k| Some(&k) != keep.get(i))
            .collect();
        let sub = Pred::All(
            trial
                .iter()
                .filter_map(|&k| children.get(k).cloned())
                .collect(),
        );
        if satisfiable(&sub) == Some(false) {
            keep = trial;
        } else {
            i += 1;
        }
    }
    Some(keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range;

    fn pkg(name: &str, r: &str) -> Pred {
        Pred::Package {
            name: name.into(),
            range: range::parse(r).unwrap(),
        }
    }
    fn gvk(k: &str) -> Pred {
        Pred::Gvk {
            group: "g".into(),
            version: "v1".into(),
            kind: k.into(),
        }
    }

    #[test]
    fn self_conflicts_from_the_issue() {
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", ">=2.0.0"),
                pkg("foo", "<1.0.0")
            ])),
            Some(false)
        );
        assert_eq!(
            satisfiable(&Pred::All(vec![gvk("X"), Pred::Not(vec![gvk("X")])])),
            Some(false)
        );
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", ">=0.0.0"),
                pkg("bar", ">=0.0.0")
            ])),
            Some(false)
        );
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", ">=0.0.0"),
                Pred::Not(vec![pkg("foo", ">=0.0.0")])
            ])),
            Some(false)
        );
    }

    #[test]
    fn satisfiable_shapes() {
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", ">=1.0.0"),
                Pred::Not(vec![pkg("foo", ">=2.0.0")])
            ])),
            Some(true)
        );
        assert_eq!(
            satisfiable(&Pred::All(vec![gvk("X"), pkg("foo", ">=1.0.0")])),
            Some(true)
        );
        assert_eq!(satisfiable(&Pred::Not(vec![gvk("X")])), Some(true));
        // Pre-releases are points: <2.0.0 and >=2.0.0-0 overlap at 2.0.0-0.
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", "<2.0.0"),
                pkg("foo", ">=2.0.0-0")
            ])),
            Some(true)
        );
        assert_eq!(
            satisfiable(&Pred::All(vec![
                pkg("foo", "<2.0.0-0"),
                pkg("foo", ">=2.0.0-0")
            ])),
            Some(false)
        );
    }

    #[test]
    fn minimal_conflicts() {
        let p = Pred::All(vec![
            gvk("Y"),
            pkg("foo", ">=2.0.0"),
            gvk("Z"),
            pkg("foo", "<1.0.0"),
        ]);
        assert_eq!(minimal_conflict(&p), Some(vec![1, 3]));
    }
}
