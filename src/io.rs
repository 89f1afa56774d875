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
