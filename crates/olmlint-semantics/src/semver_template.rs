//! The channels and upgrade edges `opm alpha render-template semver` generates (operator-registry
//! `alpha/template/semver/semver.go`, unchanged from v1.61 to v1.71, the version the pipelines
//! pin; docs/research/templates.md §2). I/O-free: bundles come in as (archetype, name, version).
//!
//! - Archetypes (`Candidate`, `Fast`, `Stable`) are independent: a bundle is only in the channels
//!   of the archetypes that list it.
//! - Channel names: `<archetype>-v<X>` (major) and `<archetype>-v<X>.<Y>` (minor).
//! - Edges, per (archetype, kind, X): the highest-patch bundle of each Y-stream replaces the
//!   highest-patch bundle of the previous Y-stream and skips every other earlier bundle of that
//!   X (skips sorted as strings); other bundles get no edges. No edges cross X, archetypes or
//!   kinds; no skipRange.
//! - Default channel: the highest non-empty archetype; then the channel whose first (lowest)
//!   bundle has the highest version; then the preferred kind; else minor.

use semver::Version;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Archetype {
    Candidate,
    Fast,
    Stable,
}

impl Archetype {
    pub const ALL: [Archetype; 3] = [Archetype::Candidate, Archetype::Fast, Archetype::Stable];

    /// The channel-name prefix and the template key (matched case-insensitively).
    pub fn name(self) -> &'static str {
        match self {
            Archetype::Candidate => "candidate",
            Archetype::Fast => "fast",
            Archetype::Stable => "stable",
        }
    }
}

/// Major channels sort before minor ones in the edge walk (opm's stream priorities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stream {
    Major,
    Minor,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Major => "major",
            Stream::Minor => "minor",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Input {
    pub archetype: Archetype,
    pub name: String,
    pub version: Version,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub major: bool,
    pub minor: bool,
    pub preference: Stream,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// Channel name → entries in ascending version order.
    pub channels: BTreeMap<String, Vec<Entry>>,
    pub default_channel: String,
}

/// `opm`'s channel name for a bundle version.
pub fn channel_name(arch: Archetype, stream: Stream, v: &Version) -> String {
    match stream {
        Stream::Major => format!("{}-v{}", arch.name(), v.major),
        Stream::Minor => format!("{}-v{}.{}", arch.name(), v.major, v.minor),
    }
}

struct Tuple {
    arch: Archetype,
    stream: Stream,
    version: Version,
    channel: String,
    index: usize,
}

/// Generate the channels. `bundles` must already satisfy the template's own checks (unique
/// names and versions per archetype, see [`version_conflicts`]); a duplicate would be kept.
pub fn generate(bundles: &[Input], opts: Options) -> Generated {
    let (major, minor) = if !opts.major && !opts.minor {
        (false, true)
    } else {
        (opts.major, opts.minor)
    };
    let streams: Vec<Stream> = [(major, Stream::Major), (minor, Stream::Minor)]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, s)| s)
        .collect();
    let mut out = Generated::default();
    let mut tuples: Vec<Tuple> = Vec::new();
    // The default channel's high-water mark: (archetype, version of the channel's first bundle,
    // stream), starting below everything.
    let mut high: Option<(Archetype, Version, Stream, String)> = None;
    for arch in Archetype::ALL {
        let mut list: Vec<&Input> = bundles.iter().filter(|b| b.archetype == arch).collect();
        list.sort_by(|a, b| a.version.cmp_precedence(&b.version));
        for b in list {
            for &stream in &streams {
                let channel = channel_name(arch, stream, &b.version);
                let entries = out.channels.entry(channel.clone()).or_insert_with(|| {
                    let cand = (arch, b.version.clone(), stream, channel.clone());
                    if beats(&cand, high.as_ref(), opts.preference) {
                        high = Some(cand);
                    }
                    Vec::new()
                });
                entries.push(Entry {
                    name: b.name.clone(),
                    ..Default::default()
                });
                tuples.push(Tuple {
                    arch,
                    stream,
                    version: b.version.clone(),
                    channel,
                    index: entries.len() - 1,
                });
            }
        }
    }
    out.default_channel = high.map(|h| h.3).unwrap_or_default();
    link(&mut out, &mut tuples);
    out
}

/// opm's `gt` for the default channel: archetype, then version, then the preferred stream,
/// then minor over major. The starting value is candidate at 0.0.0 with no stream, so a
/// channel whose first bundle is below 0.0.0 (a 0.0.0 prerelease) never wins.
fn beats(
    cand: &(Archetype, Version, Stream, String),
    cur: Option<&(Archetype, Version, Stream, String)>,
    pref: Stream,
) -> bool {
    let Some(cur) = cur else {
        let zero = Version::new(0, 0, 0);
        return cand.0 > Archetype::Candidate
            || cand.1.cmp_precedence(&zero) == Ordering::Greater
            || cand.1.cmp_precedence(&zero) == Ordering::Equal;
    };
    if cand.0 != cur.0 {
        return cand.0 > cur.0;
    }
    match cand.1.cmp_precedence(&cur.1) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => {
            if cand.2 == cur.2 {
                false
            } else if cand.2 == pref {
                true
            } else if cur.2 == pref {
                false
            } else {
                cand.2 == Stream::Minor
            }
        }
    }
}

/// opm's `linkChannels`.
fn link(out: &mut Generated, tuples: &mut [Tuple]) {
    tuples.sort_by(|a, b| {
        a.arch
            .cmp(&b.arch)
            .then(a.stream.cmp(&b.stream))
            .then(a.version.cmp_precedence(&b.version))
    });
    let name_of = |out: &Generated, t: &Tuple| {
        out.channels
            .get(&t.channel)
            .and_then(|c| c.get(t.index))
            .map_or_else(String::new, |e| e.name.clone())
    };
    let set = |out: &mut Generated, t: &Tuple, replaces: &str, skips: &BTreeSet<String>| {
        let Some(e) = out
            .channels
            .get_mut(&t.channel)
            .and_then(|c| c.get_mut(t.index))
        else {
            return;
        };
        if !replaces.is_empty() {
            e.replaces = Some(replaces.to_string());
        }
        let skips: Vec<String> = skips.iter().filter(|s| *s != replaces).cloned().collect();
        if !skips.is_empty() {
            e.skips = skips;
        }
    };
    let same_x = |a: &Tuple, b: &Tuple| {
        a.arch == b.arch && a.stream == b.stream && a.version.major == b.version.major
    };
    let mut prev_zmax = String::new();
    let mut cur_skips: BTreeSet<String> = BTreeSet::new();
    for pair in tuples.windows(2) {
        let [prev, cur] = pair else { continue };
        let y_changed = !same_x(prev, cur) || prev.version.minor != cur.version.minor;
        if y_changed {
            set(out, prev, &prev_zmax, &cur_skips);
        }
        if !same_x(prev, cur) {
            cur_skips.clear();
            prev_zmax.clear();
        } else {
            let name = name_of(out, prev);
            if prev.version.minor != cur.version.minor {
                prev_zmax = name.clone();
            }
            cur_skips.insert(name);
        }
    }
    if let [.., penultimate, last] = &*tuples {
        if same_x(penultimate, last) {
            set(out, last, &prev_zmax, &cur_skips);
        }
    }
}

/// Versions opm cannot order within one archetype: equal once build metadata is dropped
/// (`encountered bundle versions which differ only by build metadata`). Pairs of names.
pub fn version_conflicts(bundles: &[Input]) -> Vec<(Archetype, String, String)> {
    let mut out = Vec::new();
    for arch in Archetype::ALL {
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        for b in bundles.iter().filter(|b| b.archetype == arch) {
            let mut v = b.version.clone();
            v.build = semver::BuildMetadata::EMPTY;
            let key = v.to_string();
            match seen.get(key.as_str()) {
                Some(first) => out.push((arch, (*first).to_string(), b.name.clone())),
                None => {
                    seen.insert(key, &b.name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(arch: Archetype, versions: &[&str]) -> Vec<Input> {
        versions
            .iter()
            .map(|v| Input {
                archetype: arch,
                name: format!("op.v{v}"),
                version: Version::parse(v).unwrap(),
            })
            .collect()
    }

    fn opts(major: bool, minor: bool, preference: Stream) -> Options {
        Options {
            major,
            minor,
            preference,
        }
    }

    /// operator-registry's TestGenerateChannels, stable minor channels.
    #[test]
    fn minor_channels_replace_the_previous_y_stream_and_skip_the_rest() {
        let b = input(
            Archetype::Stable,
            &[
                "1.4.1",
                "1.1.0",
                "1.2.1",
                "1.3.1-alpha",
                "1.3.1-beta",
                "1.3.1",
                "1.4.1-beta1",
                "1.4.1-beta2",
            ],
        );
        let g = generate(&b, opts(false, true, Stream::Minor));
        let names: Vec<&str> = g.channels.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["stable-v1.1", "stable-v1.2", "stable-v1.3", "stable-v1.4"]
        );
        assert_eq!(g.default_channel, "stable-v1.4");
        let v14 = &g.channels["stable-v1.4"];
        let names: Vec<&str> = v14.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["op.v1.4.1-beta1", "op.v1.4.1-beta2", "op.v1.4.1"]);
        assert_eq!(
            v14[0],
            Entry {
                name: "op.v1.4.1-beta1".into(),
                ..Default::default()
            }
        );
        assert_eq!(v14[2].replaces.as_deref(), Some("op.v1.3.1"));
        assert_eq!(
            v14[2].skips,
            [
                "op.v1.1.0",
                "op.v1.2.1",
                "op.v1.3.1-alpha",
                "op.v1.3.1-beta",
                "op.v1.4.1-beta1",
                "op.v1.4.1-beta2"
            ]
        );
        let v13 = &g.channels["stable-v1.3"];
        assert_eq!(v13[2].replaces.as_deref(), Some("op.v1.2.1"));
        assert_eq!(
            v13[2].skips,
            ["op.v1.1.0", "op.v1.3.1-alpha", "op.v1.3.1-beta"]
        );
        assert_eq!(
            g.channels["stable-v1.2"][0].replaces.as_deref(),
            Some("op.v1.1.0")
        );
        assert!(g.channels["stable-v1.2"][0].skips.is_empty());
        assert_eq!(
            g.channels["stable-v1.1"][0],
            Entry {
                name: "op.v1.1.0".into(),
                ..Default::default()
            }
        );
    }

    #[test]
    fn no_edges_across_majors_archetypes_or_streams() {
        let mut b = input(Archetype::Stable, &["1.0.0", "1.1.0", "2.0.0", "2.1.0"]);
        b.extend(input(Archetype::Candidate, &["2.2.0-rc.1"]));
        let g = generate(&b, opts(true, true, Stream::Major));
        assert_eq!(
            g.channels.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "candidate-v2",
                "candidate-v2.2",
                "stable-v1",
                "stable-v1.0",
                "stable-v1.1",
                "stable-v2",
                "stable-v2.0",
                "stable-v2.1"
            ]
        );
        let v2 = &g.channels["stable-v2"];
        assert_eq!(
            v2[0],
            Entry {
                name: "op.v2.0.0".into(),
                ..Default::default()
            }
        );
        assert_eq!(v2[1].replaces.as_deref(), Some("op.v2.0.0"));
        assert_eq!(
            g.channels["stable-v2.1"][0].replaces.as_deref(),
            Some("op.v2.0.0")
        );
        assert_eq!(g.channels["candidate-v2"][0].replaces, None);
        // Top major has two minor streams: the minor channel, created at 2.1.0, wins over
        // the major one (created at 2.0.0) even though major is preferred.
        assert_eq!(g.default_channel, "stable-v2.1");
        // A single minor stream at the top: the preference decides.
        let g = generate(
            &input(Archetype::Stable, &["1.0.0", "1.0.1"]),
            opts(true, true, Stream::Major),
        );
        assert_eq!(g.default_channel, "stable-v1");
        let g = generate(
            &input(Archetype::Fast, &["1.0.0", "1.0.1"]),
            opts(true, true, Stream::Minor),
        );
        assert_eq!(g.default_channel, "fast-v1.0");
        assert_eq!(g.channels["fast-v1.0"][1].replaces, None, "same Y: no edge");
    }

    #[test]
    fn neither_stream_means_minor() {
        let g = generate(
            &input(Archetype::Stable, &["0.1.0"]),
            opts(false, false, Stream::Minor),
        );
        assert_eq!(g.channels.keys().collect::<Vec<_>>(), ["stable-v0.1"]);
    }

    #[test]
    fn equal_versions_conflict() {
        let b = input(Archetype::Stable, &["1.0.0", "1.0.0+build.2", "1.1.0"]);
        let c = version_conflicts(&b);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].2, "op.v1.0.0+build.2");
        let mut b = input(Archetype::Stable, &["1.0.0"]);
        b.extend(input(Archetype::Fast, &["1.0.0"]));
        assert!(
            version_conflicts(&b).is_empty(),
            "archetypes are independent"
        );
    }
}
