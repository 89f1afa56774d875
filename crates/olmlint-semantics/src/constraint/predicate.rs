//! OLM's conversion of a constraint into a resolver predicate, and the predicate evaluated on
//! one candidate entry (spec §3.2).

use super::{CompoundKind, Constraint, Kind};
use crate::range::{self, Range};
use compact_str::CompactString;
use semver::Version;

/// A compiled predicate. CEL rules are referenced by an index the caller assigns (each
/// distinct rule is compiled once and its results evaluated per entry by the caller).
#[derive(Debug, Clone)]
pub enum Pred {
    Gvk {
        group: String,
        version: String,
        kind: String,
    },
    Package {
        name: String,
        range: Range,
    },
    Cel {
        rule: usize,
    },
    Label(String),
    All(Vec<Pred>),
    Any(Vec<Pred>),
    Not(Vec<Pred>),
}

/// Why conversion failed, with the constraint node it failed at.
#[derive(Debug, Clone)]
pub struct ConvertError {
    pub message: String,
    pub pointer: String,
}

/// Convert like OLM: depth-first, children in order, first error wins. `cel` compiles a rule
/// (returning its index or cel-go's error text).
pub fn convert(
    c: &Constraint<'_>,
    cel: &mut dyn FnMut(&str) -> Result<usize, String>,
) -> Result<Pred, ConvertError> {
    let err = |message: String| ConvertError {
        message,
        pointer: c.pointer.clone(),
    };
    Ok(match &c.kind {
        Kind::Empty => return Err(err("constraint is empty".into())),
        Kind::Gvk {
            group,
            version,
            kind,
        } => Pred::Gvk {
            group: group.clone(),
            version: version.clone(),
            kind: kind.clone(),
        },
        Kind::Package { name, range, .. } => Pred::Package {
            name: name.clone(),
            range: range::parse(range).map_err(|e| err(e.message))?,
        },
        Kind::Cel { rule, .. } => Pred::Cel {
            rule: cel(rule).map_err(err)?,
        },
        Kind::Compound { op, children, .. } => {
            let preds = children
                .iter()
                .map(|ch| convert(ch, cel))
                .collect::<Result<Vec<_>, _>>()?;
            match op {
                CompoundKind::All => Pred::All(preds),
                CompoundKind::Any => Pred::Any(preds),
                CompoundKind::Not => Pred::Not(preds),
            }
        }
    })
}

/// What a predicate can see of one candidate entry.
#[derive(Debug, Default, Clone)]
/// Names are inline strings: one set of facts per bundle, and most names fit in 24 bytes.
pub struct Facts {
    /// The entry's own package.
    pub package: CompactString,
    /// The entry's version (tolerant parse of its `olm.package` version).
    pub version: Option<Version>,
    /// `olm.package` properties: packageName and strictly parsed version.
    pub olm_packages: Vec<(CompactString, Option<Version>)>,
    /// `olm.gvk` properties as (group, version, kind).
    pub gvks: Vec<(CompactString, CompactString, CompactString)>,
    /// `olm.label` properties.
    pub labels: Vec<CompactString>,
}

impl Pred {
    /// Whether the candidate matches. `cel(rule)` gives the rule's result on this candidate
    /// (an evaluation error counts as false, as in OLM).
    pub fn matches(&self, f: &Facts, cel: &dyn Fn(usize) -> bool) -> bool {
        match self {
            Pred::Gvk {
                group,
                version,
                kind,
            } => f
                .gvks
                .iter()
                .any(|(g, v, k)| g == group && v == version && k == kind),
            Pred::Package { name, range } => {
                let named = f.package == *name || f.olm_packages.iter().any(|(n, _)| n == name);
                let in_range = f
                    .olm_packages
                    .iter()
                    .any(|(_, v)| v.as_ref().is_some_and(|v| range.contains(v)))
                    || f.version.as_ref().is_some_and(|v| range.contains(v));
                named && in_range
            }
            Pred::Cel { rule } => cel(*rule),
            Pred::Label(l) => f.labels.iter().any(|x| x == l),
            Pred::All(ps) => ps.iter().all(|p| p.matches(f, cel)),
            Pred::Any(ps) => ps.iter().any(|p| p.matches(f, cel)),
            Pred::Not(ps) => !ps.iter().any(|p| p.matches(f, cel)),
        }
    }

    /// A short human description ("package bar in range >=2.0.0"). Long lists show their
    /// first children and a count, so a generated constraint cannot flood a message.
    pub fn describe(&self) -> String {
        const SHOWN: usize = 6;
        let join = |ps: &[Pred], sep: &str| {
            let mut parts: Vec<String> = ps.iter().take(SHOWN).map(Pred::describe).collect();
            if ps.len() > SHOWN {
                parts.push(format!("… {} more", ps.len() - SHOWN));
            }
            parts.join(sep)
        };
        match self {
            Pred::Gvk {
                group,
                version,
                kind,
            } => format!("a provider of {group}/{version} {kind}"),
            Pred::Package { name, range } => {
                format!("package {name} in range {}", range.intervals())
            }
            Pred::Cel { rule } => format!("CEL rule #{rule}"),
            Pred::Label(l) => format!("label {l}"),
            Pred::All(ps) if ps.is_empty() => "anything (empty all)".into(),
            Pred::Any(ps) if ps.is_empty() => "nothing (empty any)".into(),
            Pred::All(ps) => format!("({})", join(ps, " and ")),
            Pred::Any(ps) => format!("({})", join(ps, " or ")),
            Pred::Not(ps) => format!("not ({})", join(ps, " or ")),
        }
    }

    /// Packages one of which a matching entry must belong to, when the predicate pins that
    /// (used to look candidates up in an index instead of scanning every entry).
    pub fn required_packages(&self) -> Option<Vec<&str>> {
        match self {
            Pred::Package { name, .. } => Some(vec![name.as_str()]),
            Pred::All(ps) => ps.iter().find_map(Pred::required_packages),
            Pred::Any(ps) if !ps.is_empty() => {
                let mut all = Vec::new();
                for p in ps {
                    all.extend(p.required_packages()?);
                }
                Some(all)
            }
            _ => None,
        }
    }

    /// GVKs one of which a matching entry must provide, when the predicate pins that.
    pub fn required_gvks(&self) -> Option<Vec<(&str, &str, &str)>> {
        match self {
            Pred::Gvk {
                group,
                version,
                kind,
            } => Some(vec![(group.as_str(), version.as_str(), kind.as_str())]),
            Pred::All(ps) => ps.iter().find_map(Pred::required_gvks),
            Pred::Any(ps) if !ps.is_empty() => {
                let mut all = Vec::new();
                for p in ps {
                    all.extend(p.required_gvks()?);
                }
                Some(all)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::*;
    use olmlint_load::{json, tree::Node, Limits};

    fn node(text: &str) -> Node {
        let mut p = Vec::new();
        json::parse_stream(&format!("{{\"v\":{text}}}"), &Limits::default(), &mut p)
            .into_iter()
            .next()
            .unwrap()
            .root
            .unwrap()
            .get("v")
            .unwrap()
            .clone()
    }

    /// The three sample bundles of spec §9.
    fn samples() -> Vec<(&'static str, Facts)> {
        let v = |s: &str| Version::parse(s).ok();
        let g = |x: &str, k: &str| (x.into(), "v1".into(), k.into());
        vec![
            (
                "foo1",
                Facts {
                    package: "foo".into(),
                    version: v("1.0.0"),
                    olm_packages: vec![("foo".into(), v("1.0.0"))],
                    gvks: vec![g("g1", "k1")],
                    labels: vec![],
                },
            ),
            (
                "foo2",
                Facts {
                    package: "foo".into(),
                    version: v("2.0.0"),
                    olm_packages: vec![("foo".into(), v("2.0.0"))],
                    gvks: vec![g("g1", "k1"), g("g2", "k2")],
                    labels: vec![],
                },
            ),
            (
                "bar",
                Facts {
                    package: "bar".into(),
                    version: v("1.5.0"),
                    olm_packages: vec![("bar".into(), v("1.5.0"))],
                    gvks: vec![g("g2", "k2")],
                    labels: vec!["stable".into()],
                },
            ),
        ]
    }

    fn matching(text: &str) -> Result<Vec<&'static str>, String> {
        let n = node(text);
        let d = decode(&n);
        if let Some(e) = d.parse_error() {
            return Err(e.message.clone());
        }
        // The only CEL rule in the vectors: certified (bar has that property).
        let mut rules = Vec::new();
        let pred = convert(d.root.as_ref().unwrap(), &mut |r| {
            rules.push(r.to_string());
            Ok(rules.len() - 1)
        })
        .map_err(|e| e.message)?;
        Ok(samples()
            .into_iter()
            .filter(|(name, f)| pred.matches(f, &|_| *name == "bar"))
            .map(|(n, _)| n)
            .collect())
    }

    const G1: &str = r#"{"gvk":{"group":"g1","version":"v1","kind":"k1"}}"#;
    const G2: &str = r#"{"gvk":{"group":"g2","version":"v1","kind":"k2"}}"#;

    #[test]
    fn spec_9_1_verdicts() {
        assert_eq!(matching(G1), Ok(vec!["foo1", "foo2"])); // C1
        assert_eq!(
            matching(r#"{"package":{"packageName":"foo","versionRange":">=2.0.0"}}"#),
            Ok(vec!["foo2"])
        ); // C2
        let last = Err("Last element in range is '||'".to_string());
        assert_eq!(
            matching(r#"{"package":{"packageName":"foo","versionRange":""}}"#),
            last
        ); // C3
        assert_eq!(matching(r#"{"package":{"packageName":"foo"}}"#), last); // C4
        assert_eq!(
            matching(
                r#"{"package":{"packageName":"bar","versionRange":">=0.0.0"},"all":{"constraints":[]}}"#
            ),
            Ok(vec!["bar"])
        ); // C9
        assert_eq!(
            matching(&format!(
                r#"{{"not":{{"constraints":[{G2}]}},"cel":{{"rule":"true"}}}}"#
            )),
            Ok(vec!["foo1"])
        ); // C10
        assert_eq!(
            matching(&format!(r#"{{"all":{{"constraints":[{G1},{G2}]}}}}"#)),
            Ok(vec!["foo2"])
        ); // C11
        assert_eq!(
            matching(
                r#"{"any":{"constraints":[{"package":{"packageName":"bar","versionRange":">=1.0.0"}},{"package":{"packageName":"foo","versionRange":"<2.0.0"}}]}}"#
            ),
            Ok(vec!["foo1", "bar"])
        ); // C12
        assert_eq!(
            matching(&format!(
                r#"{{"not":{{"constraints":[{G1},{{"package":{{"packageName":"bar","versionRange":">=0.0.0"}}}}]}}}}"#
            )),
            Ok(vec![])
        ); // C13
        assert_eq!(
            matching(&format!(
                r#"{{"all":{{"constraints":[{G1},{{"not":{{"constraints":[{{"package":{{"packageName":"foo","versionRange":">=2.0.0"}}}}]}}}}]}}}}"#
            )),
            Ok(vec!["foo1"])
        ); // C14
        for all in [
            r#"{"all":{"constraints":[]}}"#,
            r#"{"all":{}}"#,
            r#"{"all":{"constraints":null}}"#,
        ] {
            assert_eq!(matching(all), Ok(vec!["foo1", "foo2", "bar"])); // C15
        }
        assert_eq!(matching(r#"{"any":{"constraints":[]}}"#), Ok(vec![])); // C16
        assert_eq!(
            matching(r#"{"not":{"constraints":[]}}"#),
            Ok(vec!["foo1", "foo2", "bar"])
        ); // C17
        let empty = Err("constraint is empty".to_string());
        for e in [
            r#"{"all":null}"#,
            "{}",
            "null",
            r#"{"failureMessage":"m"}"#,
            r#"{"all":{"constraints":[{}]}}"#,
        ] {
            assert_eq!(matching(e), empty, "{e}"); // C18, C19
        }
        assert_eq!(
            matching(&format!(r#"{{"any":{{"constraints":[{G1},{{}}]}}}}"#)),
            empty
        ); // C19
        assert_eq!(
            matching(r#"{"package":{"packageName":"foo","versionRange":"^1.0.0"}}"#),
            Err(
                r#"Could not parse Range "^1.0.0": Could not parse comparator "^" in "^1.0.0""#
                    .into()
            )
        ); // C27
        assert_eq!(
            matching(r#"{"package":{"packageName":"Foo","versionRange":">=0.0.0"}}"#),
            Ok(vec![])
        ); // C29
        assert_eq!(
            matching(
                r#"{"cel":{"rule":"properties.exists(p, p.type == 'certified')"},"failureMessage":"needs certified"}"#
            ),
            Ok(vec!["bar"])
        ); // C30
        assert_eq!(
            matching(&format!(
                r#"{{"not":{{"constraints":[{{"not":{{"constraints":[{G2}]}}}}]}}}}"#
            )),
            Ok(vec!["foo2", "bar"])
        ); // C35
        assert_eq!(
            matching(&format!(
                r#"{{"all":{{"constraints":[{G1},{{"package":{{"packageName":"foo","versionRange":"bad"}}}}]}}}}"#
            )),
            Err(r#"Could not get version from string: "bad""#.into())
        ); // C36
        assert_eq!(matching(r#"{"gvk":{}}"#), Ok(vec![])); // C37
        assert_eq!(
            matching(r#"{"package":{"packageName":"","versionRange":">=0.0.0"}}"#),
            Ok(vec![])
        ); // C37
    }
}
