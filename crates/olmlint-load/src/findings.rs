//! Findings across runs, the filter stage between the checks and the report: stable
//! fingerprints, the findings baseline file (`--write-baseline` / `--findings-baseline`) and
//! "only what a change introduced" (`--only-new`).
//!
//! A fingerprint names a finding without its line number, so that it survives edits above it:
//! the rule, the file relative to a base (the catalog root, or the baseline file's directory),
//! the package, the bundle, the JSON pointer in the document and the text of the finding's
//! first line (a finding without a position: its message). Equal fingerprints are matched as
//! a multiset: two old findings excuse two new ones, not three.

use crate::LoadedFile;
use olmlint_base::diag::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The findings baseline's conventional name: the walk never reads it as catalog content
/// (under another name inside a catalog, it would be linted as a file of the catalog).
pub const FILE_NAME: &str = crate::names::FINDINGS_BASELINE;

/// What a finding's file is taken relative to.
pub enum Base<'a> {
    /// Each file relative to the catalog it was linted in (`roots[scope]`): the same catalog at
    /// two revisions gives the same paths.
    Roots(&'a [PathBuf]),
    /// Every file relative to one directory (a baseline file's).
    Dir(&'a Path),
}

/// A finding's identity across runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub fingerprint: u64,
    /// The file, relative to the base, `/`-separated; `None` for findings without a position.
    pub file: Option<String>,
    /// The catalog (scope) of the file; `None` for findings without a position.
    pub scope: Option<usize>,
}

/// FNV-1a, 64 bits: fixed, so that fingerprints written by one version match in the next
/// (also SARIF's `partialFingerprints`).
pub fn fnv(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// [`fnv`] of `parts`, each followed by a NUL byte.
fn fnv_parts(parts: &[&str]) -> u64 {
    fnv(parts.iter().flat_map(|p| p.bytes().chain([0])))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The directory paths are taken relative to, for a root given on the command line.
fn base_dir(root: &Path) -> PathBuf {
    let c = canonical(root);
    if c.is_file() {
        c.parent().map(Path::to_path_buf).unwrap_or(c)
    } else {
        c
    }
}

/// `/`-separated path of `file` relative to `base` (its display path when outside).
fn relative(file: &LoadedFile, base: &Path) -> String {
    match crate::io::relative_to(base, &file.source.path) {
        Some(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        None => file.source.display.clone(),
    }
}

/// Relative paths of the loaded files (computed once per file that is asked for).
struct Paths<'a> {
    files: &'a [LoadedFile],
    bases: Vec<PathBuf>,
    single: Option<PathBuf>,
    cache: HashMap<usize, String>,
    /// Display forms of the bases, removed from messages (a snapshot's temporary directory
    /// must not change a fingerprint).
    displays: Vec<String>,
}

impl<'a> Paths<'a> {
    fn new(files: &'a [LoadedFile], base: &Base<'_>) -> Self {
        let (bases, single, displays) = match base {
            Base::Roots(roots) => {
                let bases: Vec<PathBuf> = roots.iter().map(|r| base_dir(r)).collect();
                let mut displays: Vec<String> = roots
                    .iter()
                    .map(|r| crate::display_path(r))
                    .chain(bases.iter().map(|b| b.display().to_string()))
                    .filter(|d| !d.is_empty() && d != ".")
                    .collect();
                displays.sort_by_key(|d| std::cmp::Reverse(d.len()));
                (bases, None, displays)
            }
            Base::Dir(d) => (Vec::new(), Some(base_dir(d)), Vec::new()),
        };
        Paths {
            files,
            bases,
            single,
            cache: HashMap::new(),
            displays,
        }
    }

    fn of(&mut self, fi: usize) -> Option<String> {
        if let Some(p) = self.cache.get(&fi) {
            return Some(p.clone());
        }
        let f = self.files.get(fi)?;
        let base = match &self.single {
            Some(b) => Some(b),
            None => self.bases.get(f.scope),
        };
        let rel = match base {
            Some(b) => relative(f, b),
            None => f.source.display.clone(),
        };
        self.cache.insert(fi, rel.clone());
        Some(rel)
    }

    fn normalized(&self, message: &str) -> String {
        let mut m = message.to_string();
        for d in &self.displays {
            m = m.replace(d.as_str(), "");
        }
        m
    }
}

/// A JSON pointer without its array indices (`/entries/#/skipRange`): an entry inserted
/// above shifts the indices of the ones below, which are the same findings.
fn shape(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|seg| {
            if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
                "#"
            } else {
                seg
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The key of every finding in `diags`.
pub fn keys(diags: &[Diagnostic], files: &[LoadedFile], base: &Base<'_>) -> Vec<Key> {
    let mut paths = Paths::new(files, base);
    diags
        .iter()
        .map(|d| {
            let file = d.location.and_then(|l| paths.of(l.file));
            let at = d
                .location
                .and_then(|l| Some((files.get(l.file)?, l.span.start())));
            let text = match at {
                Some((f, start)) => {
                    let line = f.source.position(start).line;
                    f.source.line_text(line).trim().to_string()
                }
                None => paths.normalized(&d.message),
            };
            let fingerprint = fnv_parts(&[
                d.rule,
                file.as_deref().unwrap_or(""),
                d.package.as_deref().unwrap_or(""),
                d.bundle.as_deref().unwrap_or(""),
                &shape(d.pointer.as_deref().unwrap_or("")),
                &text,
            ]);
            let scope = d.location.and_then(|l| files.get(l.file)).map(|f| f.scope);
            Key {
                fingerprint,
                file,
                scope,
            }
        })
        .collect()
}

/// Drops the findings whose (scope, fingerprint) is among `old`, as a multiset; returns what
/// is left and how many were dropped (counting those a finding stands for).
pub fn subtract(diags: Vec<Diagnostic>, keys: &[Key], old: &[Key]) -> (Vec<Diagnostic>, usize) {
    let mut left: HashMap<(Option<usize>, u64), usize> = HashMap::new();
    for k in old {
        *left.entry((k.scope, k.fingerprint)).or_default() += 1;
    }
    let mut dropped = 0;
    let kept = diags
        .into_iter()
        .zip(keys)
        .filter_map(|(d, k)| match left.get_mut(&(k.scope, k.fingerprint)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                dropped += 1 + d.omitted;
                None
            }
            _ => Some(d),
        })
        .collect();
    (kept, dropped)
}

/// The findings baseline file: known findings that a run does not report.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineFile {
    /// Format version (1).
    #[serde(rename = "olmlint-findings-baseline")]
    pub version: u32,
    pub findings: Vec<Entry>,
}

/// One known finding. `rule`, `file` and `fingerprint` identify it; the rest is for people
/// reading the file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub file: Option<String>,
    pub rule: String,
    /// 16 hexadecimal digits.
    pub fingerprint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    #[serde(default)]
    pub message: String,
}

/// The baseline file's text for `diags` (keys relative to the file's directory), sorted by
/// file, rule and fingerprint so that regenerating it gives a small diff.
pub fn baseline_text(diags: &[Diagnostic], keys: &[Key]) -> String {
    let mut findings: Vec<Entry> = diags
        .iter()
        .zip(keys)
        .flat_map(|(d, k)| {
            let e = Entry {
                file: k.file.clone(),
                rule: d.rule.to_string(),
                fingerprint: format!("{:016x}", k.fingerprint),
                package: d.package.clone(),
                bundle: d.bundle.clone(),
                message: olmlint_base::diag::bounded(d.message.clone(), 240),
            };
            // A finding standing for others left out by the per-file cap stands for them here
            // too (they share nothing else we could key on).
            std::iter::repeat_n(e, 1 + d.omitted)
        })
        .collect();
    findings.sort();
    let file = BaselineFile {
        version: 1,
        findings,
    };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a baseline file written by [`baseline_text`]. A path given inside the repository
/// that leaves it through a link is not read, and a file that is not a baseline is reported
/// by position only: its text is never quoted (it may be anything the runner can read).
pub fn read_baseline(path: &Path, max_size: u64) -> Result<Vec<Entry>, String> {
    crate::io::refuse_leaving(path)?;
    let bytes = crate::io::read_regular(path, max_size).map_err(|e| e.to_string())?;
    let file: BaselineFile = serde_json::from_slice(&bytes).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Data => "JSON, but not in the baseline format",
            _ => "not JSON",
        };
        format!(
            "not an olmlint findings baseline ({what}, at line {} column {}); write one with \
             `olmlint lint --write-baseline FILE`",
            e.line(),
            e.column()
        )
    })?;
    if file.version != 1 {
        return Err(format!(
            "findings baseline format {} is not supported (this olmlint reads format 1)",
            file.version
        ));
    }
    Ok(file.findings)
}

/// What [`apply_baseline`] did.
pub struct Applied {
    pub kept: Vec<Diagnostic>,
    /// Findings the baseline suppressed.
    pub suppressed: usize,
    /// Entries for files that were linted but that match no finding (OLM010 findings).
    pub stale: Vec<Diagnostic>,
}

/// Suppresses the findings the baseline lists. An entry counts as stale when its file was
/// linted in this run (`linted`, relative to the same directory) and nothing matched it.
pub fn apply_baseline(
    diags: Vec<Diagnostic>,
    keys: &[Key],
    entries: &[Entry],
    linted: &HashSet<String>,
    baseline_display: &str,
) -> Applied {
    let mut left: HashMap<(u64, &str), Vec<&Entry>> = HashMap::new();
    for e in entries {
        if let Ok(fp) = u64::from_str_radix(&e.fingerprint, 16) {
            left.entry((fp, e.rule.as_str())).or_default().push(e);
        }
    }
    let mut suppressed = 0;
    let kept: Vec<Diagnostic> = diags
        .into_iter()
        .zip(keys)
        .filter_map(|(d, k)| match left.get_mut(&(k.fingerprint, d.rule)) {
            Some(v) if !v.is_empty() => {
                v.pop();
                suppressed += 1 + d.omitted;
                None
            }
            _ => Some(d),
        })
        .collect();
    let mut stale_entries: Vec<&Entry> = left
        .into_values()
        .flatten()
        .filter(|e| e.file.as_ref().is_some_and(|f| linted.contains(f)))
        .collect();
    stale_entries.sort();
    let stale = stale_entries
        .into_iter()
        .map(|e| {
            let about = [e.package.as_deref(), e.bundle.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("/");
            let about = if about.is_empty() {
                String::new()
            } else {
                format!(" ({about})")
            };
            Diagnostic::new(
                "OLM010",
                format!(
                    "the findings baseline {baseline_display} lists {} in {}{about}, which no longer occurs (it was: {})",
                    e.rule,
                    e.file.as_deref().unwrap_or("?"),
                    e.message
                ),
            )
            .package(e.package.as_deref())
            .bundle(e.bundle.as_deref())
            .help(format!(
                "The finding was fixed (or its line changed). Remove the entry so that it cannot hide a new finding: `olmlint lint --write-baseline {baseline_display} …` rewrites the file from the findings of now."
            ))
        })
        .collect();
    Applied {
        kept,
        suppressed,
        stale,
    }
}

/// The linted files' paths relative to `base` (for [`apply_baseline`]'s stale entries); with
/// `only` (changed files), just those.
pub fn linted_files(
    files: &[LoadedFile],
    roots: usize,
    base: &Path,
    only: &[PathBuf],
) -> HashSet<String> {
    let base = base_dir(base);
    let only: HashSet<PathBuf> = only.iter().map(|p| canonical(p)).collect();
    files
        .iter()
        .filter(|f| f.scope < roots && f.role != crate::Role::Config)
        .filter(|f| only.is_empty() || only.contains(&canonical(&f.source.path)))
        .map(|f| relative(f, &base))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(rule: &'static str, msg: &str) -> Diagnostic {
        Diagnostic::new(rule, msg.to_string())
    }

    fn key(fp: u64) -> Key {
        Key {
            fingerprint: fp,
            file: Some("a.yaml".into()),
            scope: Some(0),
        }
    }

    #[test]
    fn fnv_is_fixed() {
        // Baseline files written by one version must match in the next.
        assert_eq!(fnv_parts(&["OLM104", "a.yaml"]), 0x6d54_c7cb_2759_1a2c);
        assert_ne!(fnv_parts(&["ab", "c"]), fnv_parts(&["a", "bc"]));
    }

    #[test]
    fn pointers_lose_their_indices() {
        assert_eq!(shape("/entries/12/skipRange"), "/entries/#/skipRange");
        assert_eq!(shape("/properties/0/value/x1"), "/properties/#/value/x1");
        assert_eq!(shape(""), "");
    }

    #[test]
    fn subtraction_is_a_multiset() {
        let diags = vec![d("OLM104", "x"), d("OLM104", "x"), d("OLM104", "y")];
        let keys = [key(1), key(1), key(2)];
        let (kept, dropped) = subtract(diags, &keys, &[key(1)]);
        assert_eq!(dropped, 1);
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn baseline_round_trip_and_stale_entries() {
        let diags = vec![d("OLM104", "x").package(Some("foo")), d("OLM110", "y")];
        let keys = vec![key(7), key(9)];
        let text = baseline_text(&diags, &keys);
        let file: BaselineFile = serde_json::from_str(&text).unwrap();
        assert_eq!(file.findings.len(), 2);
        // Next run: OLM104 is still there, OLM110 was fixed.
        let now = vec![d("OLM104", "x").package(Some("foo")), d("OLM201", "z")];
        let linted: HashSet<String> = ["a.yaml".to_string()].into();
        let applied = apply_baseline(now, &[key(7), key(3)], &file.findings, &linted, "b.json");
        assert_eq!(applied.suppressed, 1);
        assert_eq!(applied.kept.len(), 1);
        assert_eq!(applied.kept[0].rule, "OLM201");
        assert_eq!(applied.stale.len(), 1);
        assert!(applied.stale[0].message.contains("OLM110 in a.yaml"));
        // A file that was not linted this time has no stale entries.
        let applied = apply_baseline(vec![], &[], &file.findings, &HashSet::new(), "b.json");
        assert!(applied.stale.is_empty());
    }
}
