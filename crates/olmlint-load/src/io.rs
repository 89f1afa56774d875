//! Writing files safely (used by `-o` and `--fix`): the catalog and its directory may be
//! controlled by a pull request, so temporaries are created exclusively, with unpredictable
//! names, next to their target (`tempfile`: `O_EXCL`, no following of a planted link).

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Prefix and suffix of olmlint's temporary files; the walker skips such files, so one left
/// behind by a killed `--fix` is never read as catalog content.
pub const TEMP_PREFIX: &str = ".olmlint-";
pub const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is one of olmlint's temporaries.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

/// Write through a temporary file in the same directory and rename it into place, so a reader
/// never sees half a file. The catalog and the directory olmlint runs in may come from a pull
/// request, so a symbolic link is never written through to a regular file (nor a dangling
/// one created): the write would land wherever the commit points it. A link to a character
/// device, a FIFO or socket, or one of the process's own descriptors (`-o /dev/stderr`), and
/// such a file itself (`-o /dev/null`), is written directly, as renaming over it would
/// replace it with a regular file. A directory reached through a link that leaves the
/// repository ([`leaves_repository`]) is not written into.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let refused = |why: &str| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            why.to_string(),
        ))
    };
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        let ft = meta.file_type();
        if ft.is_symlink() {
            let stream = std::fs::metadata(path).is_ok_and(|m| is_stream(&m.file_type()));
            if stream || own_descriptor(path) {
                return write_directly(path, bytes);
            }
            return refused(
                "is a symbolic link; not written through (a committed link could point anywhere): \
                 remove the link, or give the path of the file it points to",
            );
        }
        if !ft.is_file() && !ft.is_dir() {
            return write_directly(path, bytes);
        }
    }
    let dir = parent_or_dot(path);
    if leaves_repository(dir) {
        return refused(
            "its directory is, or passes through, a symbolic link that leaves the repository; \
             not written (give a path outside the repository, or one without such a link)",
        );
    }
    let existing = std::fs::metadata(path).ok();
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(meta) = existing {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    // On failure the temporary is removed when `tmp` drops. The rename replaces a link
    // swapped in meanwhile rather than following it.
    tmp.persist(path).map(|_| ()).map_err(|e| e.error)
}

/// A character device, FIFO or socket: written in place, never replaced.
fn is_stream(ft: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        ft.is_char_device() || ft.is_fifo() || ft.is_socket()
    }
    #[cfg(not(unix))]
    {
        !ft.is_file() && !ft.is_dir()
    }
}

/// Whether the link `path` leads, hop by hop, to one of the process's own descriptors
/// (`/dev/stderr` → `/proc/self/fd/2`; `/dev/fd/N`), whatever that descriptor is open on.
fn own_descriptor(path: &Path) -> bool {
    let own = |p: &Path| {
        let rest = p
            .strip_prefix("/proc/self/fd")
            .or_else(|_| p.strip_prefix("/dev/fd"))
            .or_else(|_| p.strip_prefix(format!("/proc/{}/fd", std::process::id())));
        rest.ok()
            .and_then(Path::to_str)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if own(path) {
        return true;
    }
    let mut at = path.to_path_buf();
    // As many hops as the kernel follows (ELOOP after 40).
    for _ in 0..40 {
        let Ok(next) = std::fs::read_link(&at) else {
            return false;
        };
        at = lexical(parent_or_dot(&at), &next);
        if own(&at) {
            return true;
        }
    }
    false
}

/// Opens an existing file for appending and writes `bytes` (a device, FIFO or descriptor).
fn write_directly(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)?
        .write_all(bytes)
}

/// The directory holding `path` (`.` for a bare name).
fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The repository the paths olmlint is given are judged against: the top level of the git
/// work tree holding `dir` (a canonical directory; the nearest ancestor with `.git`), else
/// `dir` itself.
pub fn repository_of(dir: &Path) -> PathBuf {
    work_tree_top(dir).unwrap_or(dir).to_path_buf()
}

/// The top level of the git work tree holding `dir` (the nearest ancestor with `.git`),
/// found without running git.
pub fn work_tree_top(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// The display form of a path: relative to the working directory when below it.
pub fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let rel = cwd
        .as_deref()
        .and_then(|c| p.strip_prefix(c).ok())
        .unwrap_or(p);
    let s = rel.to_string_lossy().replace('\\', "/");
    match s.strip_prefix("./").map_or(s.as_str(), |r| r) {
        // The working directory itself.
        "" => ".".to_string(),
        shown => shown.to_string(),
    }
}

/// Whether the real path of `path` (every symbolic link on the way resolved) is inside
/// `root`, a canonical directory. A path that does not exist yet is judged by its directory's
/// real path, a dangling link by where it points; a looping link is never inside. The one
/// test for "this file, which the repository named or linked, stays in the repository".
pub fn confined(root: &Path, path: &Path) -> bool {
    real_path(path).is_some_and(|r| r.starts_with(root))
}

/// [`std::fs::canonicalize`], extended to a path that does not exist (yet): its missing
/// last components are judged by the real path of the directory holding them, and a dangling
/// link by where it points (hop by hop, as many hops as the kernel follows). A looping link,
/// or one whose directory cannot be resolved, leads nowhere known.
fn real_path(path: &Path) -> Option<PathBuf> {
    real_path_hops(path, 40)
}

/// A path made absolute and real where it can be ([`real_path`]): a deleted changed file is
/// placed where it was, its missing directories too; a path no real directory leads to, as
/// written from the directory olmlint runs in.
pub fn absolute(path: &Path) -> PathBuf {
    real_path(path).unwrap_or_else(|| {
        let cwd = std::env::current_dir().unwrap_or_default();
        lexical(&cwd, path)
    })
}

fn real_path_hops(path: &Path, hops: u32) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = real_path_hops(parent_or_dot(path), hops)?;
    match std::fs::read_link(path) {
        // A dangling link: where it points, from the real directory holding it.
        Ok(target) if hops > 0 => real_path_hops(&lexical(&dir, &target), hops - 1),
        Ok(_) => None,
        // It exists but is no link (an unreadable directory on the way): not known.
        Err(_) if std::fs::symlink_metadata(path).is_ok() => None,
        Err(_) => Some(dir.join(name)),
    }
}

/// Whether `path`, given to olmlint (on the command line, a changed file of
/// `--changed-since`/`--only-files`, a script running in the checkout), lies as written in a
/// repository while its real path (every symbolic link on the way resolved) leaves it: a link
/// the repository planted, which a pull request controls. The repository is the nearest
/// directory above the path, as written, that holds `.git` and is reached through no link (a
/// committed link to another checkout on the runner never becomes the boundary); without one,
/// the directory olmlint runs in when it holds the path as written. A path in no repository
/// and outside the current directory (`/tmp/x`) is the user's own choice and is not judged.
pub fn leaves_repository(path: &Path) -> bool {
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok())
    else {
        return false;
    };
    // Found along the path as named; the path itself resolved as the system opens it
    // (`link/..` is the link target's parent, not the link's).
    let abs = lexical(&cwd, path);
    let repository = abs
        .ancestors()
        .skip(1)
        .find(|d| d.join(".git").exists() && std::fs::canonicalize(d).is_ok_and(|c| c == *d))
        .map(Path::to_path_buf)
        .or_else(|| abs.starts_with(&cwd).then(|| cwd.clone()));
    repository.is_some_and(|r| !confined(&r, &cwd.join(path)))
}

/// [`leaves_repository`] as an error; the caller names the path as given (never where the
/// link points).
pub fn refuse_leaving(path: &Path) -> Result<(), String> {
    if !leaves_repository(path) {
        return Ok(());
    }
    Err(
        "is, or passes through, a symbolic link that leaves the repository; not read (the \
         repository's links come from its commits, which a pull request controls; give the \
         path of the file itself if you mean it)"
            .into(),
    )
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
    prefault(&mut bytes);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Maps the pages of a new buffer's spare capacity in one system call before `read` fills it.
/// Filled by `read`, every fresh page of the buffer costs a page fault of its own (a catalog
/// run's file buffers were 3 100 of its 6 900 faults, issue #44); `MADV_POPULATE_WRITE`
/// (Linux 5.14) maps the same zeroed pages a fault would, without a fault per page. Buffers
/// under 64 KiB, other systems and older kernels (the call fails) go without.
fn prefault(buf: &mut Vec<u8>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let spare = buf.spare_capacity_mut();
        if spare.len() < 16 * PAGE {
            return;
        }
        let start = spare.as_mut_ptr();
        let skip = (start as usize).next_multiple_of(PAGE) - start as usize;
        let whole = spare.len().saturating_sub(skip) / PAGE * PAGE;
        // SAFETY: the range lies inside the vector's allocation, in its unused capacity (no
        // reference to it exists). MADV_POPULATE_WRITE faults its pages in as writing to them
        // would, without writing: what the memory holds does not change. A failure (a kernel
        // before 5.14, a page size other than 4 KiB) leaves everything as it was.
        unsafe {
            libc::madvise(
                start.wrapping_add(skip).cast(),
                whole,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
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

    /// A link to a regular file or a dangling one is never written through; the file it
    /// names is left as it was, and nothing is created.
    #[cfg(unix)]
    #[test]
    fn links_to_files_are_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("report.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(write_atomic(&link, b"new").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("created"), &dangling).unwrap();
        assert!(write_atomic(&dangling, b"new").is_err());
        assert!(!dir.path().join("created").exists());
        // A link to a character device is written directly.
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        write_atomic(&null, b"x").unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn confined_resolves_links_and_paths_not_yet_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::os::unix::fs::symlink("/", root.join("up")).unwrap();
        std::os::unix::fs::symlink("a", root.join("same")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("dangling")).unwrap();
        std::os::unix::fs::symlink("/no/such/place", root.join("dangling-out")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        assert!(confined(&root, &root.join("a/new/deeper.json")));
        assert!(confined(&root, &root.join("same/x")));
        assert!(!confined(&root, &root.join("up/etc")));
        assert!(!confined(&root, &root.join("up/no/such")));
        // A dangling link is judged by where it points; a loop leads nowhere known.
        assert!(confined(&root, &root.join("dangling")));
        assert!(!confined(&root, &root.join("dangling-out")));
        assert!(!confined(&root, &root.join("loop")));
        assert!(!confined(&root, &root.join("../x")));
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

    #[cfg(unix)]
    #[test]
    fn paths_that_leave_through_a_link_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let (repo, outside) = (base.join("repo"), base.join("outside"));
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("f.yaml"), "").unwrap();
        std::fs::write(repo.join("ok.yaml"), "").unwrap();
        std::os::unix::fs::symlink(outside.join("f.yaml"), repo.join("l.yaml")).unwrap();
        std::os::unix::fs::symlink(&outside, repo.join("d")).unwrap();
        std::os::unix::fs::symlink("ok.yaml", repo.join("in.yaml")).unwrap();
        for out in ["l.yaml", "d/f.yaml", "d/missing.yaml", "d/../x.yaml"] {
            assert!(!confined(&repo, &repo.join(out)), "{out}");
        }
        for inside in ["ok.yaml", "in.yaml", "missing/x.yaml"] {
            assert!(confined(&repo, &repo.join(inside)), "{inside}");
        }
    }
}
