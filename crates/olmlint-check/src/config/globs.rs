//! The globs of `.olmlint.yaml` (`ignore:`, the files of `suppress:` entries) and the table
//! the `suppress:` entries are matched through.
//!
//! A pull request controls the configuration, so neither a pattern nor the number of entries
//! may cost more than linear work:
//! - a pattern is compiled through a `GlobSet`, which reports a pattern too complex for
//!   globset's regex limits as an error (OLM011), where `Glob::compile_matcher` panics
//!   (alternates nested 200 deep ended the run with exit 2 and a backtrace);
//! - entries are matched per (file, rule), not per (finding, entry): one set of the rule's
//!   distinct globs is matched against the file once, then the entries under the globs that
//!   match are looked up by what else they name (pointer, package, bundle). Matching each
//!   finding against each entry took over 2 minutes for 20 000 findings and a 420 KB
//!   configuration.

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use olmlint_base::diag::Diagnostic;
use olmlint_base::tree::Span;
use std::collections::HashMap;
use std::path::Path;

/// Characters of a pattern quoted in a finding.
const QUOTED: usize = 200;

/// `pattern` for a message: at most [`QUOTED`] characters.
pub fn quoted(pattern: &str) -> String {
    if pattern.chars().count() <= QUOTED {
        return pattern.to_string();
    }
    let mut s: String = pattern.chars().take(QUOTED - 1).collect();
    s.push('…');
    s
}

/// A glob of the configuration, or why it cannot be used.
pub fn compile(pattern: &str) -> Result<Glob, String> {
    let glob = Glob::new(pattern).map_err(|e| e.kind().to_string())?;
    // The regex error quotes the whole generated regex: say what is wrong instead.
    GlobSetBuilder::new()
        .add(glob.clone())
        .build()
        .map_err(|_| "too complex to match (alternates or classes nested or repeated beyond globset's limits); simplify it".to_string())?;
    Ok(glob)
}

/// Patterns matched together: one `GlobSet`, or several when together they exceed globset's
/// size limits (each one alone builds: [`compile`] checked it).
#[derive(Debug, Default)]
pub struct Globs {
    /// (index of the set's first pattern, the set).
    sets: Vec<(usize, GlobSet)>,
}

impl Globs {
    pub fn new(globs: &[Glob]) -> Self {
        let mut sets = Vec::new();
        build_split(globs, 0, &mut sets);
        Globs { sets }
    }

    pub fn is_match(&self, path: &Path) -> bool {
        let c = Candidate::new(path);
        self.sets.iter().any(|(_, s)| s.is_match_candidate(&c))
    }

    /// Appends to `out` the indices (in the order given to [`Globs::new`]) of the patterns
    /// that match `path`.
    pub fn matches_into(&self, path: &Path, out: &mut Vec<usize>) {
        let c = Candidate::new(path);
        let mut found = Vec::new();
        for (first, s) in &self.sets {
            s.matches_candidate_into(&c, &mut found);
            out.extend(found.iter().map(|i| first + i));
        }
    }
}

/// Builds `globs` as one set, or, when globset refuses them together, each half separately.
fn build_split(globs: &[Glob], first: usize, out: &mut Vec<(usize, GlobSet)>) {
    if globs.is_empty() {
        return;
    }
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(g.clone());
    }
    match b.build() {
        Ok(set) => out.push((first, set)),
        Err(_) if globs.len() > 1 => {
            let (a, z) = globs.split_at(globs.len() / 2);
            build_split(a, first, out);
            build_split(z, first + a.len(), out);
        }
        // Not reached: every pattern was built alone by `compile`.
        Err(_) => {}
    }
}

/// A field an entry names (an interned string), or [`ANY`] when it names none.
type Key = [u32; 3];
const ANY: u32 = u32::MAX;

/// One `suppress:` entry (the rest of it is in the table's indexes).
#[derive(Debug)]
pub struct Entry {
    pub rule: &'static str,
    /// The entry in the configuration file (for OLM010 when it matches nothing).
    pub span: Span,
}

/// The `suppress:` entries of a rule.
#[derive(Debug, Default)]
struct RuleEntries {
    /// Distinct file globs → index in `globs`.
    by_pattern: HashMap<String, usize>,
    globs: Vec<Glob>,
    set: Globs,
    /// Per glob: (pointer, package, bundle) → the first entry naming them under that glob.
    first: Vec<HashMap<Key, usize>>,
}

/// The `suppress:` entries, in file order, and their indexes.
#[derive(Debug, Default)]
pub struct Table {
    pub entries: Vec<Entry>,
    rules: HashMap<&'static str, RuleEntries>,
    /// Pointers, packages and bundles the entries name.
    strings: HashMap<String, u32>,
}

/// What a `suppress:` entry names besides its rule and file.
pub struct Names {
    pub pointer: Option<String>,
    pub package: Option<String>,
    pub bundle: Option<String>,
}

impl Table {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds an entry; [`Table::seal`] must follow the last one.
    pub fn add(&mut self, rule: &'static str, pattern: &str, glob: Glob, names: Names, span: Span) {
        let mut intern = |s: Option<String>| {
            s.map_or(ANY, |s| {
                let next = u32::try_from(self.strings.len()).unwrap_or(ANY - 1);
                *self.strings.entry(s).or_insert(next)
            })
        };
        let key = [
            intern(names.pointer),
            intern(names.package),
            intern(names.bundle),
        ];
        let r = self.rules.entry(rule).or_default();
        let g = match r.by_pattern.get(pattern) {
            Some(&g) => g,
            None => {
                r.by_pattern.insert(pattern.to_string(), r.globs.len());
                r.globs.push(glob);
                r.first.push(HashMap::new());
                r.globs.len() - 1
            }
        };
        if let Some(m) = r.first.get_mut(g) {
            m.entry(key).or_insert(self.entries.len());
        }
        self.entries.push(Entry { rule, span });
    }

    /// Builds each rule's glob set.
    pub fn seal(&mut self) {
        for r in self.rules.values_mut() {
            r.set = Globs::new(&std::mem::take(&mut r.globs));
        }
    }

    /// The (up to eight) keys an entry matching `d` can have: each field either named as
    /// `d` has it or not named.
    fn keys_of(&self, d: &Diagnostic) -> [Key; 8] {
        let id = |v: Option<&str>| v.and_then(|v| self.strings.get(v)).copied();
        let fields = [
            id(d.pointer.as_deref()),
            id(d.package.as_deref()),
            id(d.bundle.as_deref()),
        ];
        let mut out = [[ANY; 3]; 8];
        for (m, key) in out.iter_mut().enumerate() {
            for ((f, slot), value) in key.iter_mut().enumerate().zip(fields) {
                if m & (1 << f) != 0 {
                    *slot = value.unwrap_or(ANY);
                }
            }
        }
        out
    }

    /// For each finding, the first entry (in file order) that suppresses it, and how many
    /// findings were not matched because `expired` said the run's deadline had passed.
    /// `file_globs(file, globs, out)` appends the globs matching the finding's file.
    pub fn hits(
        &self,
        diags: &[Diagnostic],
        mut file_globs: impl FnMut(usize, &Globs, &mut Vec<usize>),
        expired: impl Fn() -> bool,
    ) -> (Vec<Option<usize>>, usize) {
        let mut groups: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
        for (i, d) in diags.iter().enumerate() {
            if let Some(loc) = d.location.filter(|_| self.rules.contains_key(d.rule)) {
                groups.entry((loc.file, d.rule)).or_default().push(i);
            }
        }
        let mut groups: Vec<((usize, &str), Vec<usize>)> = groups.into_iter().collect();
        groups.sort_unstable_by_key(|(k, _)| *k);
        let mut hits = vec![None; diags.len()];
        let mut unchecked = 0;
        let mut work = diags.len() as u64;
        let mut matching = Vec::new();
        for ((file, rule), members) in groups {
            if expired() {
                unchecked += members.len();
                continue;
            }
            let Some(r) = self.rules.get(rule) else {
                continue;
            };
            matching.clear();
            file_globs(file, &r.set, &mut matching);
            matching.sort_unstable();
            matching.dedup();
            if matching.is_empty() {
                continue;
            }
            let keys: Vec<[Key; 8]> = members
                .iter()
                .filter_map(|&i| diags.get(i))
                .map(|d| self.keys_of(d))
                .collect();
            // The first entry for each key these findings can be matched under, over the
            // globs matching the file: the smaller of the glob's entries and the keys is read.
            let mut best: HashMap<Key, usize> =
                keys.iter().flatten().map(|k| (*k, usize::MAX)).collect();
            work += (matching.len() + 8 * members.len()) as u64;
            for first in matching.iter().filter_map(|&g| r.first.get(g)) {
                work += first.len().min(best.len()) as u64;
                if first.len() <= best.len() {
                    for (k, &e) in first {
                        if let Some(b) = best.get_mut(k) {
                            *b = (*b).min(e);
                        }
                    }
                } else {
                    for (k, b) in best.iter_mut() {
                        if let Some(&e) = first.get(k) {
                            *b = (*b).min(e);
                        }
                    }
                }
            }
            for (&i, ks) in members.iter().zip(&keys) {
                let hit = ks.iter().filter_map(|k| best.get(k)).copied().min();
                if let Some(slot) = hits.get_mut(i) {
                    *slot = hit.filter(|&e| e != usize::MAX);
                }
            }
        }
        olmlint_base::timings::work(olmlint_base::timings::Work::Suppressions, work);
        (hits, unchecked)
    }
}
