//! The lint worker: which catalog a changed file belongs to, the catalog linted whole with
//! the open buffers overlaid, and its findings published per file. One run at a time; a
//! newer edit of the catalog cancels the run in flight and its result is dropped (latest
//! wins), and edits in quick succession are gathered into one run ([`DEBOUNCE`]). A large
//! catalog's keystrokes get quick runs, its full run follows on save and in pauses
//! ([`crate::schedule`]).

use crate::convert::{self, Encoding};
use crate::documents::Documents;
use crate::facts::Facts;
use crate::schedule::{Published, ResolutionChecks, Schedule};
use crate::{Engine, Run, Snapshot};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Message, Notification};
use lsp_types as lsp;
use olmlint_base::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long the worker waits after an edit for the next one before it lints: typing
/// produces an edit per key, and one run for a burst of them is enough.
const DEBOUNCE: Duration = Duration::from_millis(20);

/// Stack of the worker thread: the pipeline's serial stages walk trees as deep as the
/// `limits.max-depth` lets documents be (the command line gives its threads as much).
const STACK: usize = 256 << 20;

/// How long a request waits, at most, for the facts of the run being published.
const KEEPING: Duration = Duration::from_secs(5);

/// What the main loop tells the worker.
pub enum Work {
    /// A document was opened, edited (`debounce`) or saved.
    Changed {
        uri: String,
        path: PathBuf,
        debounce: bool,
    },
    /// A document was closed: its file is read from the disk again.
    Closed {
        uri: String,
        path: PathBuf,
    },
    Stop,
}

/// What the main loop and the worker share: the documents and the run in flight.
pub struct Shared {
    documents: Mutex<Documents>,
    /// The catalog being linted and its cancellation flag.
    running: Mutex<Option<(PathBuf, Arc<AtomicBool>)>>,
    /// Per catalog, what the requests answer from: its last published run; and whether a
    /// run's findings are being published, its facts not yet kept.
    facts: Mutex<(HashMap<PathBuf, Arc<Facts>>, bool)>,
    /// Notified when a publication's facts are kept.
    kept: Condvar,
    pub encoding: Encoding,
}

impl Shared {
    pub fn new(encoding: Encoding) -> Self {
        Shared {
            documents: Mutex::default(),
            running: Mutex::default(),
            facts: Mutex::default(),
            kept: Condvar::new(),
            encoding,
        }
    }

    /// The documents; a panic elsewhere while they were held leaves them as they were.
    pub fn documents(&self) -> MutexGuard<'_, Documents> {
        self.documents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn running(&self) -> MutexGuard<'_, Option<(PathBuf, Arc<AtomicBool>)>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Cancels the run in flight if `path` may be part of the catalog it lints (a file under
    /// it, or a configuration file, which may be any catalog's).
    pub fn cancel_stale(&self, path: &Path) {
        if let Some((root, cancel)) = &*self.running() {
            if path.starts_with(root) || is_config(path) {
                cancel.store(true, Ordering::Relaxed);
            }
        }
    }

    fn facts(&self) -> MutexGuard<'_, (HashMap<PathBuf, Arc<Facts>>, bool)> {
        self.facts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The facts of the last run published that read the document at `uri`. A request that
    /// arrives while a run's findings are being published waits for its facts (milliseconds),
    /// so that a client asking about what it was just sent gets the answer.
    pub fn facts_of(&self, uri: &str) -> Option<Arc<Facts>> {
        let guard = self.facts();
        let (guard, _) = self
            .kept
            .wait_timeout_while(guard, KEEPING, |(_, publishing)| *publishing)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.0.values().find(|f| f.file(uri).is_some()).cloned()
    }

    /// A run's facts kept (`Some`) or dropped (`None`) for `root`, after its publication.
    fn keep(&self, root: &Path, facts: Option<Facts>) {
        let mut guard = self.facts();
        let before = match facts {
            Some(f) => guard.0.insert(root.to_path_buf(), Arc::new(f)),
            None => guard.0.remove(root),
        };
        guard.1 = false;
        drop(guard);
        self.kept.notify_all();
        // Freed after the requests waiting for the new facts are let go.
        drop(before);
    }

    pub fn cancel_all(&self) {
        if let Some((_, cancel)) = &*self.running() {
            cancel.store(true, Ordering::Relaxed);
        }
    }
}

fn is_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| olmlint_load::names::CONFIG_FILES.iter().any(|c| n == *c))
}

/// A `window/logMessage` notification.
pub fn log_message(kind: lsp::MessageType, message: String) -> Message {
    notification("window/logMessage", lsp::LogMessageParams { kind, message })
}

fn notification(method: &str, params: impl serde::Serialize) -> Message {
    Notification::new(method.to_string(), params).into()
}

pub fn spawn(
    shared: Arc<Shared>,
    inbox: Receiver<Work>,
    client: Sender<Message>,
    engine: Arc<dyn Engine>,
    folders: Vec<PathBuf>,
    checks: ResolutionChecks,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let worker = Worker {
        schedule: Schedule::new(checks),
        shared,
        inbox,
        client,
        engine,
        folders,
        root_of: HashMap::new(),
        companions: HashMap::new(),
        published: HashMap::new(),
        caches: HashMap::new(),
        refused: HashMap::new(),
        dirty: BTreeSet::new(),
        lone: BTreeSet::new(),
        debouncing: false,
        stopped: false,
    };
    std::thread::Builder::new()
        .name("olmlint-lint".into())
        .stack_size(STACK)
        .spawn(move || worker.serve())
}

struct Worker {
    shared: Arc<Shared>,
    inbox: Receiver<Work>,
    client: Sender<Message>,
    engine: Arc<dyn Engine>,
    folders: Vec<PathBuf>,
    /// The catalog each changed file belongs to (`None`: no catalog), decided once per file.
    root_of: HashMap<PathBuf, Option<PathBuf>>,
    /// The catalogs linted with each root for its sake ([`Run::companions`]).
    companions: HashMap<PathBuf, Vec<PathBuf>>,
    /// Per catalog, what was last published for each file.
    published: HashMap<PathBuf, BTreeMap<String, Published>>,
    /// Per catalog, the parses of its files the last run read (reused when unchanged).
    caches: HashMap<PathBuf, Arc<olmlint_load::overlay::FileCache>>,
    /// Per catalog, why its last run could not lint it (shown to the user once).
    refused: HashMap<PathBuf, String>,
    /// Catalogs to lint again.
    dirty: BTreeSet<PathBuf>,
    /// Open documents in no catalog: published once, empty, so the editor knows.
    lone: BTreeSet<String>,
    /// Which catalogs get quick runs, and when their full runs are due.
    schedule: Schedule,
    debouncing: bool,
    stopped: bool,
}

impl Worker {
    fn serve(mut self) {
        while !self.stopped {
            if self.dirty.is_empty() && self.lone.is_empty() && !self.wait_for_work() {
                return;
            }
            // Gather what arrives until the edits pause.
            while !self.stopped {
                let wait = if self.debouncing {
                    DEBOUNCE
                } else {
                    Duration::ZERO
                };
                match self.inbox.recv_timeout(wait) {
                    Ok(w) => self.take(w),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            self.debouncing = false;
            if self.stopped {
                return;
            }
            self.publish_lone();
            if let Some(root) = self.dirty.pop_first() {
                self.lint(root);
            }
        }
    }

    /// Waits for work: a message, or a catalog's full run falling due. False when the
    /// client is gone.
    fn wait_for_work(&mut self) -> bool {
        let Some(at) = self.schedule.next_due() else {
            return match self.inbox.recv() {
                Ok(w) => {
                    self.take(w);
                    true
                }
                Err(_) => false,
            };
        };
        match self
            .inbox
            .recv_timeout(at.saturating_duration_since(Instant::now()))
        {
            Ok(w) => self.take(w),
            Err(RecvTimeoutError::Timeout) => {
                if let Some(root) = self.schedule.take_due(Instant::now()) {
                    self.dirty.insert(root);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return false,
        }
        true
    }

    /// Whatever arrived meanwhile, without waiting.
    fn drain(&mut self) {
        while let Ok(w) = self.inbox.try_recv() {
            self.take(w);
        }
    }

    fn take(&mut self, work: Work) {
        match work {
            Work::Stop => self.stopped = true,
            Work::Changed {
                uri,
                path,
                debounce,
            } => {
                self.debouncing |= debounce;
                if is_config(&path) {
                    // Every catalog linted so far under the configuration's directory.
                    if let Some(dir) = path.parent() {
                        let under: Vec<PathBuf> = self
                            .published
                            .keys()
                            .filter(|r| r.starts_with(dir))
                            .cloned()
                            .collect();
                        for root in &under {
                            self.schedule.edited(root, false, Instant::now());
                        }
                        self.dirty.extend(under);
                    }
                }
                match self.root(&path) {
                    Some(root) => {
                        self.schedule.edited(&root, debounce, Instant::now());
                        self.dirty.insert(root);
                    }
                    None => {
                        self.lone.insert(uri);
                    }
                }
            }
            Work::Closed { uri, path } => self.closed(uri, &path),
        }
    }

    /// The catalog `path` belongs to, as `olmlint lint --only-files` decides it.
    fn root(&mut self, path: &Path) -> Option<PathBuf> {
        let folders = &self.folders;
        self.root_of
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                olmlint_load::discover::changed::roots(&[path.to_path_buf()], folders)
                    .into_iter()
                    .find(|r| r.exists())
            })
            .clone()
    }

    /// A closed document: its catalog linted again with the file as saved, or, when no
    /// document of the catalog stays open, the catalog's findings withdrawn.
    fn closed(&mut self, uri: String, path: &Path) {
        self.lone.remove(&uri);
        let Some(root) = self.root(path) else {
            self.publish(&uri, (None, Vec::new()));
            return;
        };
        let still_open = self.shared.documents().iter().any(|(_, d)| {
            d.path
                .as_ref()
                .and_then(|p| self.root_of.get(p))
                .is_some_and(|r| r.as_ref() == Some(&root))
        });
        if still_open {
            self.schedule.edited(&root, false, Instant::now());
            self.dirty.insert(root);
            return;
        }
        self.dirty.remove(&root);
        self.schedule.forget(&root);
        self.caches.remove(&root);
        self.shared.keep(&root, None);
        for (uri, (_, diags)) in self.published.remove(&root).unwrap_or_default() {
            if !diags.is_empty() {
                self.publish(&uri, (None, Vec::new()));
            }
        }
    }

    fn publish_lone(&mut self) {
        for uri in std::mem::take(&mut self.lone) {
            let version = self
                .shared
                .documents()
                .iter()
                .find(|(u, _)| **u == uri)
                .map(|(_, d)| d.version);
            if version.is_some() {
                self.publish(&uri, (version, Vec::new()));
            }
        }
    }

    fn publish(&self, uri: &str, (version, diagnostics): Published) {
        let params =
            lsp::PublishDiagnosticsParams::new(lsp::Uri(uri.to_string()), version, diagnostics);
        let _ = self
            .client
            .send(notification("textDocument/publishDiagnostics", params));
    }

    fn log(&self, kind: lsp::MessageType, message: String) {
        let _ = self.client.send(log_message(kind, message));
    }

    /// One run of `root`; its findings published unless an edit made them stale.
    fn lint(&mut self, root: PathBuf) {
        let open = self.open_documents();
        let cache = Arc::clone(self.caches.entry(root.clone()).or_default());
        let overlay = Arc::new(
            olmlint_load::overlay::Overlay::new(
                open.iter().map(|(p, d)| (p.clone(), Arc::clone(&d.text))),
            )
            .with_cache(cache),
        );
        let cancel = Arc::new(AtomicBool::new(false));
        *self.shared.running() = Some((root.clone(), Arc::clone(&cancel)));
        let quick = self.schedule.start(&root);
        let companions = self
            .companions
            .entry(root.clone())
            .or_insert_with(|| {
                olmlint_load::discover::changed::companions(
                    std::slice::from_ref(&root),
                    &self.folders,
                )
            })
            .clone();
        let run = Run {
            root: root.clone(),
            companions,
            overlay,
            cancel: Arc::clone(&cancel),
            quick,
        };
        let engine = Arc::clone(&self.engine);
        let started = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.lint(&run)));
        let took = started.elapsed();
        *self.shared.running() = None;
        self.drain();
        if cancel.load(Ordering::Relaxed) {
            // Cancelled for an edit that may turn out to be another catalog's: run again.
            self.dirty.insert(root.clone());
        }
        let stale = self.dirty.contains(&root);
        let published = !stale && matches!(result, Ok(Ok(_)));
        self.schedule
            .ran(&root, quick, published, took, Instant::now());
        let shown = olmlint_load::display_path(&root);
        match result {
            Ok(Ok(snapshot)) => {
                self.refused.remove(&root);
                if !stale {
                    self.shared.facts().1 = true;
                    olmlint_base::timings::phase("server: publish", || {
                        self.publish_snapshot(&root, &snapshot, &open, quick);
                    });
                    olmlint_base::timings::phase("server: facts", || {
                        self.keep_facts(&root, &snapshot, &open, quick);
                    });
                    if quick {
                        self.announce_quick(&root);
                    }
                }
                // The parses stay valid whatever became of the run.
                olmlint_base::timings::phase("server: parses kept", || {
                    run.overlay.give_back(snapshot.files);
                });
            }
            _ if stale => {}
            Ok(Err(message)) => {
                let message = format!("olmlint could not lint {shown}: {message}");
                self.log(lsp::MessageType::Error, message.clone());
                // Shown once, not on every keystroke while the cause is being edited.
                if self.refused.get(&root) != Some(&message) {
                    self.refused.insert(root, message.clone());
                    let _ = self.client.send(notification(
                        "window/showMessage",
                        lsp::ShowMessageParams {
                            kind: lsp::MessageType::Error,
                            message,
                        },
                    ));
                }
            }
            Err(_) => self.log(
                lsp::MessageType::Error,
                format!("internal error while linting {shown} (an olmlint bug; please report it at https://github.com/olmlint/olmlint/issues with the catalog); the server goes on, and lints it again on the next change"),
            ),
        }
    }

    /// Tells the client, once per catalog, why some findings wait for a save or a pause.
    fn announce_quick(&mut self, root: &Path) {
        if !self.schedule.announce(root) {
            return;
        }
        let took = self.schedule.cost(root).map_or(String::new(), |c| {
            format!(" (its last full check took {:.1} s)", c.as_secs_f64())
        });
        self.log(
            lsp::MessageType::Info,
            format!(
                "olmlint: while {} is being edited{took}, each edit is checked without OLM's resolution; the rules that need it (dependencies, installability, upgrades) run on open, on save and when edits pause for {:.1} s. Set initializationOptions.resolutionChecks to \"everyEdit\" to run them on every edit.",
                olmlint_load::display_path(root),
                crate::schedule::IDLE.as_secs_f64()
            ),
        );
    }

    fn publish_snapshot(
        &mut self,
        root: &Path,
        snapshot: &Snapshot,
        open: &HashMap<PathBuf, OpenDocument>,
        quick: bool,
    ) {
        let sets = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.diagnostics(root, snapshot, open)
        }));
        match sets {
            Ok((mut sets, deferred)) => {
                if quick {
                    self.schedule
                        .merge_deferred(root, &mut sets, &version_of(open));
                } else {
                    self.schedule.keep_deferred(root, deferred);
                }
                self.publish_catalog(root.to_path_buf(), sets);
            }
            Err(_) => self.log(
                lsp::MessageType::Error,
                format!("internal error while converting the findings of {} (an olmlint bug; please report it at https://github.com/olmlint/olmlint/issues); the server goes on", olmlint_load::display_path(root)),
            ),
        }
    }

    /// What the requests on the catalog's documents answer from, until its next publication.
    fn keep_facts(
        &self,
        root: &Path,
        snapshot: &Snapshot,
        open: &HashMap<PathBuf, OpenDocument>,
        quick: bool,
    ) {
        // The files of a run under its (canonical) root are absolute already: no need to ask
        // the file system again for each (a definition's target names the file as read).
        let uri = |path: &Path| match open.get(path) {
            Some(d) => d.uri.clone(),
            None if path.is_absolute() => crate::uri::from_path(path),
            None => crate::uri::from_path(&olmlint_load::io::absolute(path)),
        };
        let version = version_of(open);
        let naming = crate::facts::Naming {
            uri: &uri,
            version: &version,
            encoding: self.shared.encoding,
        };
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::facts::build(snapshot, &naming, quick)
        }));
        let failed = built.is_err();
        self.shared.keep(root, built.ok());
        if failed {
            self.log(
                lsp::MessageType::Error,
                format!("internal error while indexing {} for hover, code actions and go to definition (an olmlint bug; please report it at https://github.com/olmlint/olmlint/issues); the server goes on", olmlint_load::display_path(root)),
            );
        }
    }

    /// The open documents that are files, by path: their URI (as the client wrote it),
    /// version and text.
    fn open_documents(&self) -> HashMap<PathBuf, OpenDocument> {
        self.shared
            .documents()
            .iter()
            .filter_map(|(uri, d)| {
                Some((
                    d.path.clone()?,
                    OpenDocument {
                        uri: uri.clone(),
                        version: d.version,
                        text: Arc::clone(&d.text),
                    },
                ))
            })
            .collect()
    }

    /// The diagnostics of every file of the catalog with findings, and of every open
    /// document of the catalog (an empty set says it is clean at that version); and, apart,
    /// the deferred ones among them (see [`crate::schedule`]).
    fn diagnostics(
        &self,
        root: &Path,
        snapshot: &Snapshot,
        open: &HashMap<PathBuf, OpenDocument>,
    ) -> (BTreeMap<String, Published>, BTreeMap<String, Published>) {
        let enc = self.shared.encoding;
        let file_at = |i: usize| -> Option<(String, &SourceFile)> {
            let f = snapshot.files.get(i)?;
            let path = &f.source.path;
            let uri = match open.get(path) {
                Some(d) => d.uri.clone(),
                None => crate::uri::from_path(&olmlint_load::io::absolute(path)),
            };
            Some((uri, &f.source))
        };
        let version_of = version_of(open);
        let mut sets: BTreeMap<String, Published> = BTreeMap::new();
        let mut deferred: BTreeMap<String, Published> = BTreeMap::new();
        let in_catalog: BTreeSet<&str> = open
            .iter()
            .filter(|(p, _)| {
                self.root_of
                    .get(*p)
                    .is_some_and(|r| r.as_deref() == Some(root))
            })
            .map(|(_, d)| d.uri.as_str())
            .collect();
        for uri in &in_catalog {
            sets.insert((*uri).to_string(), (version_of(uri), Vec::new()));
        }
        let mut unplaced = Vec::new();
        for d in &snapshot.diags {
            match d
                .location
                .and_then(|l| file_at(l.file).map(|f| (f, l.span)))
            {
                Some(((uri, source), span)) => {
                    let range = convert::range(source, span, enc);
                    let diagnostic = convert::diagnostic(d, range, &file_at, enc);
                    let version = version_of(&uri);
                    if d.deferred {
                        deferred
                            .entry(uri.clone())
                            .or_insert((version, Vec::new()))
                            .1
                            .push(diagnostic.clone());
                    }
                    sets.entry(uri)
                        .or_insert((version, Vec::new()))
                        .1
                        .push(diagnostic);
                }
                None => unplaced.push(d),
            }
        }
        // Findings about no file (nothing to lint, a file that could not be read) go at the
        // top of the catalog's first open document.
        if let Some(first) = in_catalog.first() {
            for d in unplaced {
                let diagnostic = convert::diagnostic(d, lsp::Range::default(), &file_at, enc);
                if let Some(set) = sets.get_mut(*first) {
                    set.1.push(diagnostic);
                }
            }
        }
        (sets, deferred)
    }

    /// Publishes what changed since the catalog's last publication, and empty sets for the
    /// files whose findings are gone.
    fn publish_catalog(&mut self, root: PathBuf, sets: BTreeMap<String, Published>) {
        let before = self.published.remove(&root).unwrap_or_default();
        for (uri, (version, diags)) in &before {
            if !diags.is_empty() && !sets.contains_key(uri) {
                let version = version.and(
                    self.shared
                        .documents()
                        .iter()
                        .find(|(u, _)| *u == uri)
                        .map(|(_, d)| d.version),
                );
                self.publish(uri, (version, Vec::new()));
            }
        }
        for (uri, set) in &sets {
            if before.get(uri) != Some(set) {
                self.publish(uri, set.clone());
            }
        }
        self.published.insert(root, sets);
    }
}

/// The version of each open document by URI, looked up in a map built once (a run converts
/// one finding per line of output, each asking for its file's version).
fn version_of(open: &HashMap<PathBuf, OpenDocument>) -> impl Fn(&str) -> Option<i32> + '_ {
    let by_uri: HashMap<&str, i32> = open.values().map(|d| (d.uri.as_str(), d.version)).collect();
    move |uri| by_uri.get(uri).copied()
}

/// An open document as a run saw it.
struct OpenDocument {
    uri: String,
    version: i32,
    text: Arc<str>,
}
