//! Writing files safely (used by `-o` and `--fix`): the catalog and its directory may be
//! controlled by a pull request, so temporaries are created exclusively, with unpredictable
//! names, next to their target (`tempfile`: `O_EXCL`, no following of a planted link).

use std::io::Write as _;
use std::path::Path;

/// Prefix and suffix of olmlint's temporary files; the walker skips such files, so one left
/// behind by a killed `--fix` is never read as catalog content.
pub const TEMP_PREFIX: &str = ".olmlint-";
pub const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is one of olmlint's temporaries.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

/// Write through a temporary file in the same directory and rename it into place, so a reader
/// never sees half a file. A symbolic link is written through (the link stays); a device, FIFO
/// or socket (`-o /dev/null`, `-o /dev/stderr`) is written directly, as renaming over it would
/// replace it with a regular file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        match std::fs::canonicalize(path) {
            Ok(t) => t,
            // A dangling link: create the file it names.
            Err(_) => return std::fs::write(path, bytes),
        }
    } else {
        path.to_path_buf()
    };
    let existing = std::fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(&target)?
            .write_all(bytes);
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(meta) = existing {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    // On failure the temporary is removed when `tmp` drops.
    tmp.persist(&target).map(|_| ()).map_err(|e| e.error)
}

/// Open `path` for reading without blocking on a FIFO (`O_NONBLOCK`, which does not change
/// how a regular file reads) and check with one `fstat` that it is a regular file.
pub fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file; not read",
        ));
    }
    Ok((file, meta))
}

/// The bytes of the regular file `path`, at most `limit` of them: a larger file (or one that
/// grows past the limit while read) is an error, a FIFO or device is never opened for a
/// blocking read.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    let bytes = if meta.len() > limit {
        None
    } else {
        read_bounded(file, meta.len(), limit)?
    };
    bytes.ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than the {limit}-byte limit; not read"),
        )
    })
}

/// The rest of `file` (whose size was `len` when it was checked), or `None` when it holds
/// more than `limit` bytes: the limit holds while reading, whatever the size said.
pub fn read_bounded(file: std::fs::File, len: u64, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// `base` joined with `rel`, `.` and `..` resolved without touching the filesystem (an
/// absolute `rel` replaces `base`).
pub fn lexical(base: &Path, rel: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in base.join(rel).components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The real path of `path` relative to `base` (a canonical directory), when it is below it.
/// A path that cannot be resolved is taken as written.
pub fn relative_to(base: &Path, path: &Path) -> Option<std::path::PathBuf> {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    abs.strip_prefix(base).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("catalog.yaml");
        std::fs::write(&f, "old").unwrap();
        write_atomic(&f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["catalog.yaml"]);
        assert!(is_temporary(".olmlint-Ab12Cd.tmp"));
        assert!(!is_temporary("catalog.yaml"));
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read_and_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a");
        std::fs::write(&f, "12345").unwrap();
        assert_eq!(read_regular(&f, 5).unwrap(), b"12345");
        assert!(read_regular(&f, 4).is_err());
        assert!(read_regular(Path::new("/dev/zero"), 1 << 20).is_err());
        assert!(read_regular(dir.path(), 1 << 20).is_err());
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // Returns at once (no writer needed), with an error.
        assert!(read_regular(&fifo, 1 << 20).is_err());
    }

    /// Planted links at predictable names cannot redirect the write (the name is random and
    /// the temporary is created exclusively).
    #[cfg(unix)]
    #[test]
    fn planted_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep").unwrap();
        let cat = dir.path().join("cat");
        std::fs::create_dir(&cat).unwrap();
        for pid in 0..64 {
            let _ = std::os::unix::fs::symlink(
                &outside,
                cat.join(format!(
                    ".catalog.yaml.olmlint-{}.tmp",
                    std::process::id() + pid
                )),
            );
        }
        let f = cat.join("catalog.yaml");
        std::fs::write(&f, "old").unwrap();
        write_atomic(&f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&f)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}
