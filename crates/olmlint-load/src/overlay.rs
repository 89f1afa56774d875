//! What an editor holds and the disk does not (yet): the text of its open buffers, read in
//! place of the files at the same paths (`olmlint server`). Never written anywhere.
//!
//! And what a server keeps between runs of one catalog: the parsed files ([`FileCache`]). A
//! run takes an unchanged file's parse instead of reading and parsing it again, and the
//! caller gives the run's files back when it is done with them ([`Overlay::give_back`]).

use crate::{walk, Build, Format, Limits, LoadedFile, Role};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// Open buffers by path: the path the walk finds the file at (the server gives canonical
/// paths and lints canonical catalog roots, so the two agree).
#[derive(Default)]
pub struct Overlay {
    buffers: HashMap<PathBuf, Arc<str>>,
    cache: Option<Arc<FileCache>>,
}

impl Overlay {
    pub fn new(buffers: impl IntoIterator<Item = (PathBuf, Arc<str>)>) -> Self {
        Overlay {
            buffers: buffers.into_iter().collect(),
            cache: None,
        }
    }

    /// Runs with this overlay reuse the parses `cache` holds and record what they read in it.
    #[must_use]
    pub fn with_cache(mut self, cache: Arc<FileCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// The unsaved text of `path`, if a buffer holds it.
    pub fn buffer(&self, path: &Path) -> Option<&Arc<str>> {
        self.buffers.get(path)
    }

    pub(crate) fn cache(&self) -> Option<&FileCache> {
        self.cache.as_deref()
    }

    /// A run's files, once its findings are no longer needed: kept for the next run.
    pub fn give_back(&self, files: Vec<LoadedFile>) {
        if let Some(c) = &self.cache {
            c.give_back(files);
        }
    }
}

impl std::fmt::Debug for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Overlay({} buffer(s))", self.buffers.len())
    }
}

/// What a file's parse was made from: the file on the disk as `stat` saw it before it was
/// read, or an editor's buffer (then the parse is reused only for the same text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Disk(Stamp),
    Buffer,
}

/// A file's identity and state on the disk: unchanged while all of these are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64, i64, i64),
}

impl Stamp {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt as _;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// Everything besides the text that a parse depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Made {
    origin: Origin,
    build: Build,
    /// `limits`' bounds (a changed `.olmlint.yaml` may change them).
    bounds: [u64; 5],
}

fn bounds(limits: &Limits) -> [u64; 5] {
    [
        limits.max_depth as u64,
        limits.max_alias_nodes,
        limits.max_alias_bytes,
        limits.max_file_size,
        limits.max_nodes,
    ]
}

/// Parsed files of one catalog by path, kept between runs. Entries are moved out when a run
/// reuses them and back when the run's files are given back: one copy of each file, the
/// one the last run read. A file whose YAML may use aliases is never kept (what it may
/// expand to counts against a budget the whole run shares).
#[derive(Default)]
pub struct FileCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    kept: HashMap<PathBuf, (LoadedFile, Made, Role)>,
    /// What the current run read each file from, until its files come back.
    reading: HashMap<PathBuf, Made>,
}

impl FileCache {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Files kept.
    pub fn len(&self) -> usize {
        self.lock().kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept parse of `f`, if it was made the same way from the same content
    /// (`buffer`: the editor's text; else the disk's file as `stamp` describes it).
    pub(crate) fn take(
        &self,
        f: &walk::Found,
        buffer: Option<&str>,
        stamp: Option<Stamp>,
        limits: &Limits,
        build: Build,
    ) -> Option<LoadedFile> {
        let origin = match stamp {
            Some(s) if buffer.is_none() => Origin::Disk(s),
            _ => Origin::Buffer,
        };
        let made = Made {
            origin,
            build,
            bounds: bounds(limits),
        };
        let mut inner = self.lock();
        inner.reading.insert(f.path.clone(), made);
        let (file, was, role) = inner.kept.remove(&f.path)?;
        let same_text = match buffer {
            Some(text) => was.origin == Origin::Buffer && file.source.text.as_str() == text,
            None => true,
        };
        if was != made || role != f.role || !same_text {
            return None;
        }
        let mut file = file;
        file.scope = f.scope;
        file.source.display.clone_from(&f.display);
        Some(file)
    }

    fn give_back(&self, files: Vec<LoadedFile>) {
        let mut inner = self.lock();
        let mut reading = std::mem::take(&mut inner.reading);
        for file in files {
            let Some(made) = reading.remove(&file.source.path) else {
                continue;
            };
            if file.format == Format::Yaml && crate::yaml::may_use_aliases(&file.source.text) {
                continue;
            }
            let role = file.role.clone();
            inner
                .kept
                .insert(file.source.path.clone(), (file, made, role));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of a load, by file name, and whether each is the same allocation as before.
    fn texts(loaded: &crate::Loaded) -> Vec<(String, Arc<String>)> {
        loaded
            .files
            .iter()
            .map(|f| {
                let name = f.source.path.file_name().unwrap().to_string_lossy();
                (name.into_owned(), Arc::clone(&f.source.text))
            })
            .collect()
    }

    #[test]
    fn unchanged_files_are_reused_and_changed_ones_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let package = "schema: olm.package\nname: a\n";
        std::fs::write(root.join("a.yaml"), package).unwrap();
        std::fs::write(root.join("b.yaml"), "schema: olm.package\nname: b\n").unwrap();
        std::fs::write(root.join("c.yaml"), "x: &a [1]\ny: *a\n").unwrap();
        let cache = Arc::new(FileCache::default());
        let run = |buffers: Vec<(PathBuf, Arc<str>)>| {
            let overlay = Arc::new(Overlay::new(buffers).with_cache(Arc::clone(&cache)));
            let limits = Limits {
                overlay: Some(Arc::clone(&overlay)),
                ..Limits::default()
            };
            let loaded = crate::load(std::slice::from_ref(&root), &limits);
            let t = texts(&loaded);
            overlay.give_back(loaded.files);
            t
        };
        let first = run(vec![]);
        // Aliases: never kept.
        assert_eq!(cache.len(), 2);
        let second = run(vec![]);
        let same: Vec<bool> = first
            .iter()
            .zip(&second)
            .map(|(a, b)| Arc::ptr_eq(&a.1, &b.1))
            .collect();
        assert_eq!(same, [true, true, false]);
        // A buffer over a.yaml: parsed from the buffer, then reused while the text stays.
        let edited: Arc<str> = Arc::from("schema: olm.package\nname: a2\n");
        let third = run(vec![(root.join("a.yaml"), Arc::clone(&edited))]);
        assert_eq!(third[0].1.as_str(), &*edited);
        assert!(Arc::ptr_eq(&third[1].1, &second[1].1));
        let fourth = run(vec![(root.join("a.yaml"), Arc::clone(&edited))]);
        assert!(Arc::ptr_eq(&third[0].1, &fourth[0].1));
        // Closed: the disk's text again; a file changed on the disk is read again.
        std::fs::write(root.join("b.yaml"), "schema: olm.package\nname: bb\n").unwrap();
        let fifth = run(vec![]);
        assert_eq!(fifth[0].1.as_str(), package);
        assert_eq!(fifth[1].1.as_str(), "schema: olm.package\nname: bb\n");
        // Other limits: parsed again.
        let overlay = Arc::new(Overlay::new(vec![]).with_cache(Arc::clone(&cache)));
        let limits = Limits {
            overlay: Some(overlay),
            max_depth: 5,
            ..Limits::default()
        };
        let loaded = crate::load(std::slice::from_ref(&root), &limits);
        assert!(!Arc::ptr_eq(&loaded.files[0].source.text, &fifth[0].1));
    }
}
