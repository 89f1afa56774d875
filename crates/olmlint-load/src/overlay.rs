//! What an editor holds and the disk does not (yet): the text of its open buffers, read in
//! place of the files at the same paths (`olmlint server`). Never written anywhere.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Open buffers by path: the path the walk finds the file at (the server gives canonical
/// paths and lints canonical catalog roots, so the two agree).
#[derive(Default)]
pub struct Overlay {
    buffers: HashMap<PathBuf, Arc<str>>,
}

impl Overlay {
    pub fn new(buffers: impl IntoIterator<Item = (PathBuf, Arc<str>)>) -> Self {
        Overlay {
            buffers: buffers.into_iter().collect(),
        }
    }

    /// The unsaved text of `path`, if a buffer holds it.
    pub fn buffer(&self, path: &Path) -> Option<&Arc<str>> {
        self.buffers.get(path)
    }
}

impl std::fmt::Debug for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Overlay({} buffer(s))", self.buffers.len())
    }
}
