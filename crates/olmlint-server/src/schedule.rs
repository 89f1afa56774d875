//! Which run a catalog gets after an edit: a **full** run (every rule family, with OLM's
//! resolution: SAT, installability) or a **quick** one (the families that do not read the
//! resolution), and when a quick-checked catalog's full run is due.
//!
//! A catalog whose last full run took longer than [`QUICK_ABOVE`] (a 100 000-bundle catalog
//! takes seconds) is checked quickly on each keystroke; its full run follows on save and once
//! edits pause for [`IDLE`]. Meanwhile the editor shows the quick run's findings with the
//! last full run's deferred findings ([`olmlint_base::diag::Diagnostic::deferred`]) on the
//! files that have not changed since (their positions still hold); on a changed file they
//! are withdrawn until the next full run, never shown at a stale position.

use lsp_types as lsp;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A full run longer than this makes the catalog's keystrokes quick runs (`auto`).
pub const QUICK_ABOVE: Duration = Duration::from_millis(200);

/// How long edits must pause before a quick-checked catalog's full run starts.
pub const IDLE: Duration = Duration::from_millis(1500);

/// When the rule families that read the resolution run on an edit (the client's
/// `initializationOptions.resolutionChecks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolutionChecks {
    /// On every edit while the catalog's full run is fast ([`QUICK_ABOVE`]), else deferred.
    Auto,
    /// Always deferred: on open, on save and when edits pause.
    Deferred,
    /// On every edit, whatever it costs.
    EveryEdit,
}

impl ResolutionChecks {
    /// The option's value (`"auto"`, `"deferred"`, `"everyEdit"`), or why it is not one.
    pub fn parse(value: &serde_json::Value) -> Result<Self, String> {
        match value.as_str() {
            Some("auto") => Ok(Self::Auto),
            Some("deferred") => Ok(Self::Deferred),
            Some("everyEdit") => Ok(Self::EveryEdit),
            _ => Err(format!(
                "initializationOptions.resolutionChecks is {value}, which is not one of \"auto\", \"deferred\", \"everyEdit\"; using \"auto\""
            )),
        }
    }
}

/// What was published, or is kept, for one file: the version it was found at (`None`: a
/// file that is not open) and its diagnostics.
pub type Published = (Option<i32>, Vec<lsp::Diagnostic>);

/// The per-catalog state of the policy.
pub struct Schedule {
    mode: ResolutionChecks,
    /// How long each catalog's last published full run took.
    cost: HashMap<PathBuf, Duration>,
    /// Catalogs whose next run is full: opened, saved, a configuration changed, or due.
    full_next: BTreeSet<PathBuf>,
    /// Full runs to start once edits pause.
    due: BTreeMap<PathBuf, Instant>,
    /// Per catalog and file, the deferred findings of the last published full run.
    deferred: HashMap<PathBuf, BTreeMap<String, Published>>,
    /// Catalogs whose quick runs the client was told about (once each).
    announced: BTreeSet<PathBuf>,
}

impl Schedule {
    pub fn new(mode: ResolutionChecks) -> Self {
        Schedule {
            mode,
            cost: HashMap::new(),
            full_next: BTreeSet::new(),
            due: BTreeMap::new(),
            deferred: HashMap::new(),
            announced: BTreeSet::new(),
        }
    }

    /// A document of `root` changed: typed (`typed`), or opened or saved (a full run next).
    /// A pending full run waits for the edits to pause again.
    pub fn edited(&mut self, root: &Path, typed: bool, now: Instant) {
        if !typed {
            self.full_next.insert(root.to_path_buf());
        }
        if let Some(at) = self.due.get_mut(root) {
            *at = now + IDLE;
        }
    }

    /// A run of `root` starts: whether it is quick.
    pub fn start(&mut self, root: &Path) -> bool {
        let full = self.full_next.remove(root);
        let slow = self.cost.get(root).copied();
        !full
            && match self.mode {
                ResolutionChecks::EveryEdit => false,
                ResolutionChecks::Deferred => slow.is_some(),
                ResolutionChecks::Auto => slow.is_some_and(|c| c > QUICK_ABOVE),
            }
    }

    /// A run of `root` ended: `published` unless an edit made it stale, after `took`.
    pub fn ran(&mut self, root: &Path, quick: bool, published: bool, took: Duration, now: Instant) {
        if !quick && published {
            self.cost.insert(root.to_path_buf(), took);
            self.due.remove(root);
        } else if !self.full_next.contains(root) {
            // A quick run, or a full one an edit overtook: the full run waits for a pause.
            self.due.insert(root.to_path_buf(), now + IDLE);
        }
    }

    /// When the next full run is due, if any is.
    pub fn next_due(&self) -> Option<Instant> {
        self.due.values().min().copied()
    }

    /// A catalog whose full run is due at `now`, marked for a full run.
    pub fn take_due(&mut self, now: Instant) -> Option<PathBuf> {
        let root = self
            .due
            .iter()
            .filter(|(_, at)| **at <= now)
            .min_by_key(|(_, at)| **at)
            .map(|(r, _)| r.clone())?;
        self.due.remove(&root);
        self.full_next.insert(root.clone());
        Some(root)
    }

    /// Whether the client should be told, now and once, that `root` is checked quickly.
    pub fn announce(&mut self, root: &Path) -> bool {
        self.announced.insert(root.to_path_buf())
    }

    /// The last full run's cost of `root`, if it had one.
    pub fn cost(&self, root: &Path) -> Option<Duration> {
        self.cost.get(root).copied()
    }

    /// A full run's deferred findings, per file, kept for the quick runs that follow.
    pub fn keep_deferred(&mut self, root: &Path, sets: BTreeMap<String, Published>) {
        self.deferred.insert(root.to_path_buf(), sets);
    }

    /// Adds to a quick run's `sets` the last full run's deferred findings on the files that
    /// have the same version now as then (`version`: a file's open version now, `None` when it
    /// is not open).
    pub fn merge_deferred(
        &self,
        root: &Path,
        sets: &mut BTreeMap<String, Published>,
        version: &dyn Fn(&str) -> Option<i32>,
    ) {
        let Some(kept) = self.deferred.get(root) else {
            return;
        };
        for (uri, (then, diags)) in kept {
            let now = version(uri);
            if now == *then {
                sets.entry(uri.clone())
                    .or_insert((now, Vec::new()))
                    .1
                    .extend(diags.iter().cloned());
            }
        }
    }

    /// No document of `root` is open any more.
    pub fn forget(&mut self, root: &Path) {
        self.full_next.remove(root);
        self.due.remove(root);
        self.deferred.remove(root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from("/c")
    }

    #[test]
    fn a_slow_catalog_is_checked_quickly_while_typed_and_fully_after_a_pause() {
        let mut s = Schedule::new(ResolutionChecks::Auto);
        let t0 = Instant::now();
        s.edited(&root(), false, t0);
        assert!(!s.start(&root()), "the first run is full");
        s.ran(&root(), false, true, Duration::from_secs(7), t0);
        s.edited(&root(), true, t0);
        assert!(
            s.start(&root()),
            "a keystroke after a slow full run is quick"
        );
        s.ran(&root(), true, true, Duration::from_millis(900), t0);
        assert_eq!(s.next_due(), Some(t0 + IDLE));
        // Typing on pushes the full run back.
        let t1 = t0 + Duration::from_secs(1);
        s.edited(&root(), true, t1);
        assert_eq!(s.take_due(t0 + IDLE), None);
        assert_eq!(s.take_due(t1 + IDLE), Some(root()));
        assert!(!s.start(&root()), "the due run is full");
        s.ran(&root(), false, true, Duration::from_secs(7), t1 + IDLE);
        assert_eq!(s.next_due(), None);
    }

    #[test]
    fn a_fast_catalog_is_checked_fully_on_every_edit() {
        let mut s = Schedule::new(ResolutionChecks::Auto);
        let t0 = Instant::now();
        assert!(!s.start(&root()));
        s.ran(&root(), false, true, Duration::from_millis(60), t0);
        s.edited(&root(), true, t0);
        assert!(!s.start(&root()));
        s.ran(&root(), false, true, Duration::from_millis(60), t0);
        assert_eq!(s.next_due(), None);
        let mut every = Schedule::new(ResolutionChecks::EveryEdit);
        every.ran(&root(), false, true, Duration::from_secs(9), t0);
        assert!(!every.start(&root()));
        let mut deferred = Schedule::new(ResolutionChecks::Deferred);
        deferred.ran(&root(), false, true, Duration::from_millis(5), t0);
        assert!(deferred.start(&root()));
    }

    #[test]
    fn a_save_during_a_run_makes_the_next_run_full_and_an_overtaken_full_run_waits() {
        let mut s = Schedule::new(ResolutionChecks::Auto);
        let t0 = Instant::now();
        s.ran(&root(), false, true, Duration::from_secs(7), t0);
        s.edited(&root(), true, t0);
        assert!(s.start(&root()));
        s.edited(&root(), false, t0);
        s.ran(&root(), true, false, Duration::ZERO, t0);
        assert_eq!(
            s.next_due(),
            None,
            "the save's full run comes next, not after a pause"
        );
        assert!(!s.start(&root()));
        // The full run is overtaken by a keystroke: quick again, full after a pause.
        s.ran(&root(), false, false, Duration::ZERO, t0);
        assert!(s.start(&root()));
        assert_eq!(s.next_due(), Some(t0 + IDLE));
    }

    #[test]
    fn deferred_findings_stay_only_on_files_unchanged_since_the_full_run() {
        let mut s = Schedule::new(ResolutionChecks::Auto);
        let d = lsp::Diagnostic {
            message: "OLM501".into(),
            ..Default::default()
        };
        s.keep_deferred(
            &root(),
            BTreeMap::from([
                ("file:///c/a.yaml".to_string(), (Some(3), vec![d.clone()])),
                ("file:///c/b.yaml".to_string(), (None, vec![d.clone()])),
                ("file:///c/c.yaml".to_string(), (Some(1), vec![d.clone()])),
            ]),
        );
        let mut sets = BTreeMap::from([("file:///c/a.yaml".to_string(), (Some(4), Vec::new()))]);
        let now = |uri: &str| match uri {
            "file:///c/a.yaml" => Some(4),
            "file:///c/c.yaml" => Some(1),
            _ => None,
        };
        s.merge_deferred(&root(), &mut sets, &now);
        assert_eq!(
            sets["file:///c/a.yaml"],
            (Some(4), Vec::new()),
            "a.yaml changed"
        );
        assert_eq!(sets["file:///c/b.yaml"], (None, vec![d.clone()]));
        assert_eq!(sets["file:///c/c.yaml"], (Some(1), vec![d]));
        s.forget(&root());
        let mut sets = BTreeMap::new();
        s.merge_deferred(&root(), &mut sets, &now);
        assert!(sets.is_empty());
    }
}
