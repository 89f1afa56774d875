//! OpenShift versions of a bundle: the `com.redhat.openshift.versions` annotation that decides
//! which OpenShift indexes the hosted pipelines add a bundle to, and the Kubernetes version
//! each OpenShift release runs (for `spec.minKubeVersion`).
//!
//! The annotation forms (Red Hat's "Managing OpenShift Versions"): `v4.12` is 4.12 and later,
//! `=v4.14` only 4.14, `v4.12-v4.15` an inclusive range; the `v` is optional. A comma list is
//! accepted only as `v4.5,v4.6` (legacy: it means `v4.5`); any other comma list keeps the
//! bundle out of every index.

/// An OpenShift `major.minor`.
pub type Release = (u32, u32);

/// OpenShift releases and the Kubernetes minor each is built on (operator-pipelines'
/// `OCP_TO_K8S` up to 4.17, then the OpenShift release notes).
pub const KUBERNETES: &[(Release, Release)] = &[
    ((4, 1), (1, 13)),
    ((4, 2), (1, 14)),
    ((4, 3), (1, 16)),
    ((4, 4), (1, 17)),
    ((4, 5), (1, 18)),
    ((4, 6), (1, 19)),
    ((4, 7), (1, 20)),
    ((4, 8), (1, 21)),
    ((4, 9), (1, 22)),
    ((4, 10), (1, 23)),
    ((4, 11), (1, 24)),
    ((4, 12), (1, 25)),
    ((4, 13), (1, 26)),
    ((4, 14), (1, 27)),
    ((4, 15), (1, 28)),
    ((4, 16), (1, 29)),
    ((4, 17), (1, 30)),
    ((4, 18), (1, 31)),
    ((4, 19), (1, 32)),
    ((4, 20), (1, 33)),
    ((4, 21), (1, 34)),
    ((4, 22), (1, 35)),
];

/// The OpenShift indexes the pipelines build today (the `catalogs/v4.12` … `v4.22`
/// directories of community-operators-prod and certified-operators, November 2026).
pub const INDEXED: (Release, Release) = ((4, 12), (4, 22));

/// Which OpenShift releases an annotation selects: `min..=max` (`max` open when `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    pub min: Release,
    pub max: Option<Release>,
}

impl Selection {
    pub fn contains(&self, r: Release) -> bool {
        r >= self.min && self.max.is_none_or(|m| r <= m)
    }

    /// The indexed releases selected, in order.
    pub fn indexed(&self) -> Vec<Release> {
        KUBERNETES
            .iter()
            .map(|(o, _)| *o)
            .filter(|&o| o >= INDEXED.0 && o <= INDEXED.1 && self.contains(o))
            .collect()
    }
}

/// A parsed annotation, or why it does not parse. `Ok((selection, legacy_list))`: the second
/// is true for the legacy `v4.5,v4.6` form.
pub fn parse(value: &str) -> Result<(Selection, bool), String> {
    let s = value.trim();
    if s.is_empty() {
        return Err("the value is empty".into());
    }
    if s.contains(',') {
        let items: Vec<Release> = s
            .split(',')
            .map(|i| release(i.trim()))
            .collect::<Result<_, _>>()?;
        let mut sorted = items.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted == [(4, 5), (4, 6)] {
            return Ok((
                Selection {
                    min: (4, 5),
                    max: None,
                },
                true,
            ));
        }
        return Err(format!(
            "a comma-separated list is accepted only as `v4.5,v4.6` (a legacy form); `{s}` \
             keeps the bundle out of every index"
        ));
    }
    if let Some(only) = s.strip_prefix('=') {
        let r = release(only.trim())?;
        return Ok((
            Selection {
                min: r,
                max: Some(r),
            },
            false,
        ));
    }
    if let Some((a, b)) = s.split_once('-') {
        let (lo, hi) = (release(a.trim())?, release(b.trim())?);
        if lo > hi {
            return Err(format!(
                "the range starts at {}.{} and ends before it, at {}.{}: it selects no release",
                lo.0, lo.1, hi.0, hi.1
            ));
        }
        return Ok((
            Selection {
                min: lo,
                max: Some(hi),
            },
            false,
        ));
    }
    Ok((
        Selection {
            min: release(s)?,
            max: None,
        },
        false,
    ))
}

/// `v4.12` or `4.12`.
fn release(s: &str) -> Result<Release, String> {
    let t = s.strip_prefix('v').unwrap_or(s);
    let bad = || {
        format!(
            "`{s}` is not an OpenShift release (`v4.12`); the forms are `v4.12` (4.12 and \
             later), `=v4.12` (only 4.12) and `v4.12-v4.15` (a range)"
        )
    };
    let (major, minor) = t.split_once('.').ok_or_else(bad)?;
    let digits = |x: &str| !x.is_empty() && x.len() <= 4 && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return Err(bad());
    }
    Ok((
        major.parse().map_err(|_| bad())?,
        minor.parse().map_err(|_| bad())?,
    ))
}

/// The releases of [`INDEXED`], in order.
pub fn indexed_releases() -> Vec<Release> {
    KUBERNETES
        .iter()
        .map(|(o, _)| *o)
        .filter(|&o| o >= INDEXED.0 && o <= INDEXED.1)
        .collect()
}

/// The Kubernetes minor an OpenShift release runs.
pub fn kubernetes_of(r: Release) -> Option<Release> {
    KUBERNETES.iter().find(|(o, _)| *o == r).map(|(_, k)| *k)
}

/// `4.12-4.14, 4.16`: releases as compact ranges.
pub fn describe(releases: &[Release]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&start) = releases.get(i) {
        let mut end = start;
        while releases
            .get(i + 1)
            .is_some_and(|&n| n.0 == end.0 && n.1 == end.1 + 1)
        {
            i += 1;
            end = releases.get(i).copied().unwrap_or(end);
        }
        parts.push(if start == end {
            format!("{}.{}", start.0, start.1)
        } else {
            format!("{}.{}–{}.{}", start.0, start.1, end.0, end.1)
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let sel = |s: &str| parse(s).map(|(x, _)| x);
        assert_eq!(
            sel("v4.12"),
            Ok(Selection {
                min: (4, 12),
                max: None
            })
        );
        assert_eq!(
            sel("\"4.12\"".trim_matches('"')).map(|s| s.min),
            Ok((4, 12))
        );
        assert_eq!(
            sel("=v4.14"),
            Ok(Selection {
                min: (4, 14),
                max: Some((4, 14))
            })
        );
        assert_eq!(
            sel("v4.12-v4.15"),
            Ok(Selection {
                min: (4, 12),
                max: Some((4, 15))
            })
        );
        assert_eq!(sel("v4.10-4.12").map(|s| s.max), Ok(Some((4, 12))));
        assert_eq!(
            parse("v4.6,v4.5").map(|(s, l)| (s.min, l)),
            Ok(((4, 5), true))
        );
        for bad in [
            "",
            "v4",
            "4.x",
            ">=v4.12",
            "v4.12+",
            "v4.8,v4.9",
            "v4.15-v4.12",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn indexed_releases() {
        let (s, _) = parse("v4.6-v4.13").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.indexed(), vec![(4, 12), (4, 13)]);
        let (s, _) = parse("=v4.9").unwrap_or_else(|e| panic!("{e}"));
        assert!(s.indexed().is_empty());
        assert_eq!(
            describe(&[(4, 12), (4, 13), (4, 14), (4, 16)]),
            "4.12–4.14, 4.16"
        );
        assert_eq!(kubernetes_of((4, 18)), Some((1, 31)));
    }
}
