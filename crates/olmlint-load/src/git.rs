//! What `--changed-since REF` needs from git: the files changed and deleted since REF, and a
//! catalog as it was at REF (the baseline of the upgrade-safety rules).
//!
//! A pull request controls every file of the checkout (not git's own configuration), so every
//! git process is built by one function, [`Repo::command`]:
//! - it runs at the top level of the work tree olmlint determined itself (the nearest
//!   directory holding `.git` above the current directory), never discovered from a catalog
//!   directory: a bare repository committed there (`HEAD`, `objects/`, `refs/` and a `config`
//!   setting `core.fsmonitor`, `core.worktree`, …) would be taken as the repository.
//!   `GIT_CEILING_DIRECTORIES` and `safe.bareRepository=explicit` keep git from discovering
//!   another one, and `core.fsmonitor` and hooks are off;
//! - REF is verified first (`rev-parse --verify --end-of-options REF^{commit}`) and only the
//!   commit's object name is passed on, after `--end-of-options`; paths come after `--` and
//!   are literal (`GIT_LITERAL_PATHSPECS`);
//! - it has the run's deadline (`--timeout`): a git still running then is killed
//!   ([`Error::TimedOut`]);
//! - the snapshot is streamed blob by blob, sizes read first (`ls-tree -l`): a blob over
//!   `limits.max-file-size` is not read, and a snapshot is bounded in total.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why git gave no usable answer.
#[derive(Debug)]
pub enum Error {
    /// git failed, or answered something olmlint does not use.
    Failed(String),
    /// The run's deadline (`--timeout`) passed while doing this.
    TimedOut(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Failed(m) => f.write_str(m),
            Error::TimedOut(what) => write!(f, "the timeout passed while {what}"),
        }
    }
}

pub use crate::io::work_tree_top;

/// A path as git stores it (bytes; not necessarily UTF-8 on Unix).
fn name_path(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Bytes of git's standard error kept for a message.
const MAX_STDERR: u64 = 8 << 10;
/// The longest record olmlint reads from `ls-tree -z` or a `cat-file` header.
const MAX_RECORD: u64 = 64 << 10;
/// A snapshot holds at most this many times `limits.max-file-size` bytes in all.
pub const SNAPSHOT_FILES_FACTOR: u64 = 16;

/// A git work tree, by its top level (canonical), with the run's deadline.
#[derive(Debug, Clone)]
struct Repo {
    top: PathBuf,
    deadline: Option<Instant>,
}

impl Repo {
    /// The work tree olmlint runs in.
    fn of_current_dir(deadline: Option<Instant>) -> Result<Repo, Error> {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|e| Error::Failed(format!("cannot read the current directory: {e}")))?;
        let top = work_tree_top(&cwd).ok_or_else(|| {
            Error::Failed(
                "not in a git work tree (no `.git` in the current directory or above); run olmlint from the repository".into(),
            )
        })?;
        Ok(Repo {
            top: top.to_path_buf(),
            deadline,
        })
    }

    /// Every git process olmlint starts: at the top level, discovering no other repository,
    /// with no hook or file-system monitor.
    fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&self.top);
        for setting in [
            "safe.bareRepository=explicit",
            "core.fsmonitor=false",
            "core.hooksPath=/dev/null",
        ] {
            cmd.args(["-c", setting]);
        }
        if let Some(parent) = self.top.parent() {
            cmd.env("GIT_CEILING_DIRECTORIES", parent);
        }
        cmd.env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// git with `args` (`input` on its standard input), its output given to `read` on a
    /// thread of its own so that the deadline holds whatever git does: `read`'s answer.
    fn run<T: Send + 'static>(
        &self,
        what: &str,
        args: &[&OsStr],
        input: Option<Vec<u8>>,
        read: impl FnOnce(&mut dyn BufRead) -> Result<T, String> + Send + 'static,
    ) -> Result<T, Error> {
        let mut cmd = self.command();
        cmd.args(args);
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::Failed(format!("cannot run git: {e}")))?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
            // Written from a thread: git answers while it reads, and both pipes have limits.
            std::thread::spawn(move || stdin.write_all(&bytes));
        }
        let (err_tx, err_rx) = std::sync::mpsc::channel();
        if let Some(stderr) = child.stderr.take() {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                let mut stderr = stderr;
                let _ = stderr.by_ref().take(MAX_STDERR).read_to_end(&mut text);
                let _ = std::io::copy(&mut stderr, &mut std::io::sink());
                let _ = err_tx.send(String::from_utf8_lossy(&text).trim().to_string());
            });
        }
        let (out_tx, out_rx) = std::sync::mpsc::channel();
        let Some(stdout) = child.stdout.take() else {
            return Err(Error::Failed("cannot read git's output".into()));
        };
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let _ = out_tx.send(read(&mut reader));
        });
        let answer = match self.deadline {
            Some(d) => out_rx.recv_timeout(d.saturating_duration_since(Instant::now())),
            None => out_rx
                .recv()
                .map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                stop(&mut child);
                return Err(Error::TimedOut(what.to_string()));
            }
            Err(_) => Err("git's output could not be read".to_string()),
        };
        if let Err(e) = answer {
            stop(&mut child);
            return Err(Error::Failed(e));
        }
        let status = self.wait(&mut child, what)?;
        if !status.success() {
            let stderr = err_rx
                .recv_timeout(Duration::from_millis(500))
                .unwrap_or_default();
            return Err(Error::Failed(if stderr.is_empty() {
                format!("git exited with {status}")
            } else {
                stderr
            }));
        }
        answer.map_err(Error::Failed)
    }

    /// The exit status of `child`, unless the deadline passes first (then it is killed).
    fn wait(&self, child: &mut Child, what: &str) -> Result<ExitStatus, Error> {
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(e) => return Err(Error::Failed(format!("git: {e}"))),
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                stop(child);
                return Err(Error::TimedOut(what.to_string()));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Everything git writes on its standard output.
    fn output(&self, what: &str, args: &[&OsStr]) -> Result<Vec<u8>, Error> {
        self.run(what, args, None, |out| {
            let mut bytes = Vec::new();
            out.read_to_end(&mut bytes)
                .map_err(|e| format!("git: {e}"))?;
            Ok(bytes)
        })
    }

    /// The names a git command lists (`-z`), as paths under the top level. `-z`: names
    /// exactly as stored (git quotes names with non-ASCII bytes or tabs in its line output,
    /// and a quoted name would not exist and be dropped silently).
    fn listed(&self, what: &str, args: &[&str]) -> Result<Vec<PathBuf>, Error> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        Ok(self
            .output(what, &args)?
            .split(|&b| b == 0)
            .filter(|n| !n.is_empty())
            .map(|n| self.top.join(name_path(n)))
            .collect())
    }
}

/// Kills `child` and reaps it.
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// What `git diff --name-status` lists: the paths changed (added or modified), deleted, and,
/// among the changed, added (or copied).
type Listed = (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>);

/// `--changed-since REF`: the work tree olmlint runs in and REF, verified to name a commit.
#[derive(Debug)]
pub struct Since {
    repo: Repo,
    /// The commit's object name: all that is passed to git after verification.
    commit: String,
    /// REF as the user wrote it, for messages.
    name: String,
    /// Once [`Since::changes`] ran: the paths (relative, `/`-separated) that differ between
    /// REF and the work tree. A file of REF not among them is the work tree's file as it is,
    /// which a snapshot copies instead of reading it from git.
    differ: std::sync::OnceLock<std::collections::HashSet<String>>,
    /// Once [`Since::changes`] ran: the files (absolute, as listed) that REF does not have:
    /// added (or copied) since, or untracked.
    added: std::sync::OnceLock<std::collections::HashSet<PathBuf>>,
}

impl Since {
    /// REF in the work tree olmlint runs in; git calls end by `deadline`.
    pub fn open(git_ref: &str, deadline: Option<Instant>) -> Result<Since, Error> {
        let repo = Repo::of_current_dir(deadline)?;
        let spec = OsString::from(format!("{git_ref}^{{commit}}"));
        let out = repo
            .output(
                &format!("resolving {git_ref}"),
                &[
                    OsStr::new("rev-parse"),
                    OsStr::new("--verify"),
                    OsStr::new("--quiet"),
                    OsStr::new("--end-of-options"),
                    &spec,
                ],
            )
            .map_err(|e| match e {
                Error::Failed(m) if !m.starts_with("cannot run git") => Error::Failed(
                    "names no commit of this repository (`git rev-parse --verify REF^{commit}`)"
                        .into(),
                ),
                timed_out => timed_out,
            })?;
        let commit = String::from_utf8_lossy(&out).trim().to_string();
        if commit.len() < 40 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Failed(format!(
                "git rev-parse answered {commit:?}, not an object name"
            )));
        }
        Ok(Since {
            repo,
            commit,
            name: git_ref.to_string(),
            differ: std::sync::OnceLock::new(),
            added: std::sync::OnceLock::new(),
        })
    }

    /// The top level of the work tree (canonical).
    pub fn top(&self) -> &Path {
        &self.repo.top
    }

    /// Whether `path` (absolute, under the top level) is a file REF does not have: added
    /// since, or untracked. False before [`Since::changes`] ran, and for any other path.
    pub fn added(&self, path: &Path) -> bool {
        self.added.get().is_some_and(|a| a.contains(path))
    }

    /// What changed since REF: the files changed (committed, staged, unstaged and
    /// untracked), as paths that are files now or links out of the repository (reported,
    /// never read), and the files deleted (committed, staged or not), as the paths they had.
    /// One `git diff --name-status` and the untracked files' listing, run side by side (on a
    /// pipeline repository's 80 000 files each takes 0.2–0.4 s).
    pub fn changes(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), Error> {
        let what = format!("listing the files changed since {}", self.name);
        let (diff, untracked) = std::thread::scope(|s| {
            let untracked = s.spawn(|| {
                self.repo.listed(
                    &what,
                    &["ls-files", "-z", "--others", "--exclude-standard", "--"],
                )
            });
            let diff = self.name_status(&what);
            let untracked = untracked
                .join()
                .unwrap_or_else(|_| Err(Error::Failed("listing untracked files failed".into())));
            (diff, untracked)
        });
        let (mut changed, mut deleted, mut added) = diff?;
        let untracked = untracked?;
        added.extend(untracked.iter().cloned());
        let _ = self.added.set(added.into_iter().collect());
        changed.extend(untracked);
        let top = &self.repo.top;
        let differ = changed
            .iter()
            .chain(&deleted)
            .filter_map(|p| p.strip_prefix(top).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        let _ = self.differ.set(differ);
        changed.retain(|p| {
            let link = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
            p.is_file() || (link && !crate::io::confined(top, p))
        });
        deleted.retain(|p| !p.is_file());
        for list in [&mut changed, &mut deleted] {
            list.sort();
            list.dedup();
        }
        Ok((changed, deleted))
    }

    /// `git diff --name-status REF` against the work tree: the paths added, copied, modified
    /// or retyped, and those deleted. `--no-renames`: a file moved to another catalog changed
    /// both.
    fn name_status(&self, what: &str) -> Result<Listed, Error> {
        let args: Vec<&OsStr> = [
            "diff",
            "-z",
            "--name-status",
            "--no-renames",
            "--no-ext-diff",
            "--diff-filter=ACMTD",
            "--end-of-options",
            &self.commit,
            "--",
        ]
        .into_iter()
        .map(OsStr::new)
        .collect();
        let out = self.repo.output(what, &args)?;
        let (mut changed, mut deleted, mut added) = (Vec::new(), Vec::new(), Vec::new());
        let mut fields = out.split(|&b| b == 0).filter(|n| !n.is_empty());
        while let (Some(status), Some(name)) = (fields.next(), fields.next()) {
            let path = self.repo.top.join(name_path(name));
            match status.first() {
                Some(b'D') => deleted.push(path),
                Some(b'A' | b'C') => {
                    added.push(path.clone());
                    changed.push(path);
                }
                Some(_) => changed.push(path),
                None => {}
            }
        }
        Ok((changed, deleted, added))
    }

    /// `path` (a directory of the work tree, or a file) as it was at REF; `None` when it held
    /// no file there. A file over `max_file_size` is not read (see [`Snapshot::problems`]); over
    /// [`SNAPSHOT_FILES_FACTOR`] times that in all, nothing is.
    pub fn snapshot(&self, path: &Path, max_file_size: u64) -> Result<Option<Snapshot>, Error> {
        let shown = match crate::io::display_path(path) {
            s if s.is_empty() => ".".to_string(),
            s => s,
        };
        let abs =
            std::fs::canonicalize(path).map_err(|e| Error::Failed(format!("{shown}: {e}")))?;
        let rel = abs
            .strip_prefix(&self.repo.top)
            .map_err(|_| {
                Error::Failed(format!(
                    "{shown} is not in the git work tree olmlint runs in"
                ))
            })?
            .to_path_buf();
        let blobs = self.tree(&rel)?;
        if blobs.is_empty() {
            return Ok(None);
        }
        let mut problems = Vec::new();
        let mut wanted = Vec::new();
        for blob in blobs {
            // Every name is checked, read or not: none may reach the file system.
            let Some(rel_name) = safe_relative(&blob.name) else {
                return Err(Error::Failed(format!(
                    "{} holds a path olmlint will not write: {:?}",
                    self.name, blob.name
                )));
            };
            if blob.size > max_file_size {
                problems.push(olmlint_base::diag::bounded(
                    format!(
                        "{} at {}: {} bytes, over the {max_file_size}-byte file size limit (`limits.max-file-size`); not read, so what is compared with {} lacks it",
                        blob.name, self.name, blob.size, self.name
                    ),
                    olmlint_base::diag::MAX_MESSAGE,
                ));
            } else {
                wanted.push((blob, rel_name));
            }
        }
        let total: u64 = wanted.iter().map(|(b, _)| b.size).sum();
        let bound = max_file_size.saturating_mul(SNAPSHOT_FILES_FACTOR);
        if total > bound {
            return Err(Error::Failed(format!(
                "{shown} at {} holds {total} bytes of files, over the {bound}-byte bound of a snapshot ({SNAPSHOT_FILES_FACTOR} × `limits.max-file-size`); not read",
                self.name
            )));
        }
        let dir = tempfile::Builder::new()
            .prefix("olmlint-baseline-")
            .tempdir()
            .map_err(|e| Error::Failed(format!("cannot create a temporary directory: {e}")))?;
        let snap = Snapshot {
            root: dir.path().join(&rel),
            dir,
            problems,
        };
        // A template linted on its own is a file: its directory is made, the file written.
        let is_file = matches!(wanted.as_slice(), [(b, _)] if b.name == rel.to_string_lossy().replace('\\', "/"));
        let dir_of_root = if is_file {
            snap.root.parent().unwrap_or(&snap.root)
        } else {
            &snap.root
        };
        std::fs::create_dir_all(dir_of_root)
            .map_err(|e| Error::Failed(format!("cannot create the snapshot: {e}")))?;
        let wanted = self.copy_unchanged(wanted, snap.dir.path());
        if wanted.is_empty() {
            return Ok(Some(snap));
        }
        let input: String = wanted.iter().map(|(b, _)| format!("{}\n", b.oid)).collect();
        let base = snap.dir.path().to_path_buf();
        let what = format!("reading {shown} as it was at {}", self.name);
        self.repo.run(
            &what,
            &[OsStr::new("cat-file"), OsStr::new("--batch")],
            Some(input.into_bytes()),
            move |out| write_blobs(out, &base, &wanted),
        )?;
        Ok(Some(snap))
    }

    /// The files of REF that the work tree holds as they are (known once [`Since::changes`]
    /// ran: not among the paths that differ, a regular file of the same size there, reached
    /// through no link) are copied into the snapshot `base` by the kernel
    /// (`copy_file_range`, a reflink where the file system has them), not inflated from
    /// git's objects and piped: a per-release catalog of 20 MB whose pull request changed one
    /// package's file. (A hard link would change the work tree files' ctime, and every later
    /// `git diff` would read them again.) Returns the others, to be read from git.
    fn copy_unchanged(&self, wanted: Vec<(Blob, PathBuf)>, base: &Path) -> Vec<(Blob, PathBuf)> {
        use rayon::prelude::*;
        let Some(differ) = self.differ.get() else {
            return wanted;
        };
        // Whether each directory is where it seems (no link on its path), asked once per
        // directory, not once per file (a real path costs a `stat` per component).
        let mut real_dirs: HashMap<PathBuf, bool> = HashMap::new();
        let mut real_dir = |dir: &Path| {
            *real_dirs
                .entry(dir.to_path_buf())
                .or_insert_with(|| std::fs::canonicalize(dir).is_ok_and(|real| real == dir))
        };
        let (placeable, from_git): (Vec<_>, Vec<_>) =
            wanted.into_iter().partition(|(blob, rel)| {
                if differ.contains(&blob.name) {
                    return false;
                }
                let src = self.repo.top.join(rel);
                // Never through a link: the file's real path is where git has it.
                std::fs::symlink_metadata(&src)
                    .is_ok_and(|m| m.file_type().is_file() && m.len() == blob.size)
                    && src.parent().is_some_and(&mut real_dir)
            });
        let mut dirs: Vec<PathBuf> = placeable
            .iter()
            .filter_map(|(_, rel)| base.join(rel).parent().map(Path::to_path_buf))
            .collect();
        dirs.sort();
        dirs.dedup();
        for d in &dirs {
            let _ = std::fs::create_dir_all(d);
        }
        // Side by side: on an operator of 1 000 files this was most of the snapshot's time.
        let unplaced: Vec<(Blob, PathBuf)> = placeable
            .into_par_iter()
            .filter(|(blob, rel)| !place(&self.repo.top.join(rel), &base.join(rel), blob.size))
            .collect();
        from_git.into_iter().chain(unplaced).collect()
    }

    /// The regular files of the tree at `rel` (relative to the top level) at REF, with
    /// their sizes, streamed from `ls-tree -l`.
    fn tree(&self, rel: &Path) -> Result<Vec<Blob>, Error> {
        let mut args: Vec<&OsStr> = [
            "ls-tree",
            "-r",
            "-z",
            "-l",
            "--full-tree",
            // Not followed by `--`: after `--end-of-options`, ls-tree takes `--` as a path.
            "--end-of-options",
            &self.commit,
        ]
        .into_iter()
        .map(OsStr::new)
        .collect();
        if !rel.as_os_str().is_empty() {
            args.push(rel.as_os_str());
        }
        let prefix = rel.to_string_lossy().replace('\\', "/");
        let what = format!("listing the catalog at {}", self.name);
        self.repo.run(&what, &args, None, move |out| {
            let mut blobs = Vec::new();
            while let Some(record) = read_record(out, 0)? {
                if let Some(blob) = Blob::parse(&record) {
                    let under = prefix.is_empty()
                        || blob.name == prefix
                        || blob
                            .name
                            .strip_prefix(&prefix)
                            .is_some_and(|r| r.starts_with('/'));
                    if under {
                        blobs.push(blob);
                    }
                }
            }
            Ok(blobs)
        })
    }
}

/// A regular file of a tree: `<mode> blob <object> <size>\t<path>` of `ls-tree -l`.
#[derive(Debug)]
struct Blob {
    oid: String,
    name: String,
    size: u64,
}

impl Blob {
    /// Regular files only (no links, no submodules); names that are not UTF-8 are left out.
    fn parse(record: &[u8]) -> Option<Blob> {
        let record = std::str::from_utf8(record).ok()?;
        let (meta, name) = record.split_once('\t')?;
        let mut parts = meta.split_whitespace();
        let (mode, kind, oid, size) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let regular = kind == "blob" && mode.starts_with("100");
        let oid_ok = !oid.is_empty() && oid.bytes().all(|b| b.is_ascii_hexdigit());
        if !regular || !oid_ok {
            return None;
        }
        Some(Blob {
            oid: oid.to_string(),
            name: name.to_string(),
            size: size.parse().ok()?,
        })
    }
}

/// The next record of `out` ended by `end` (without it), at most [`MAX_RECORD`] bytes;
/// `None` at the end of the output.
fn read_record(out: &mut dyn BufRead, end: u8) -> Result<Option<Vec<u8>>, String> {
    let mut record = Vec::new();
    let n = Read::take(&mut *out, MAX_RECORD + 1)
        .read_until(end, &mut record)
        .map_err(|e| format!("git: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if record.last() == Some(&end) {
        record.pop();
    } else if n as u64 > MAX_RECORD {
        return Err(format!("git: a record longer than {MAX_RECORD} bytes"));
    }
    Ok(Some(record))
}

/// Writes the blobs `git cat-file --batch` streams (`<object> blob <size>\n<bytes>\n` each,
/// in the order asked) under `base`, each copied straight to its file.
/// Copies `src` to a new file `target` (never over a file, never through a link).
/// The work tree's unchanged file `src` (a regular file of `size` bytes) at `target` in a
/// snapshot: a hard link where the file system allows one (no data copied; the snapshot is
/// only read, then removed), else a copy into a new file. False when neither worked (the
/// file is then read from git into a fresh file).
fn place(src: &Path, target: &Path, size: u64) -> bool {
    if std::fs::hard_link(src, target).is_ok() {
        if std::fs::symlink_metadata(target).is_ok_and(|m| m.len() == size) {
            return true;
        }
        let _ = std::fs::remove_file(target);
        return false;
    }
    let copied = copy_new(src, target).is_ok_and(|n| n == size);
    if !copied {
        let _ = std::fs::remove_file(target);
    }
    copied
}

fn copy_new(src: &Path, target: &Path) -> std::io::Result<u64> {
    let mut from = std::fs::File::open(src)?;
    let mut to = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(target)?;
    std::io::copy(&mut from, &mut to)
}

fn write_blobs(
    out: &mut dyn BufRead,
    base: &Path,
    blobs: &[(Blob, PathBuf)],
) -> Result<(), String> {
    for (blob, rel) in blobs {
        let header = read_record(out, b'\n')?.ok_or("git cat-file: truncated output")?;
        let header = String::from_utf8_lossy(&header);
        let mut parts = header.split(' ');
        let answer = (
            parts.next(),
            parts.next(),
            parts.next().and_then(|s| s.parse().ok()),
        );
        if answer != (Some(blob.oid.as_str()), Some("blob"), Some(blob.size)) {
            return Err(format!(
                "git cat-file: unexpected answer {header:?} for {}",
                blob.name
            ));
        }
        let target = base.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        // A fresh file in the private directory: never through a link, never over a file.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|e| format!("{}: {e}", blob.name))?;
        let copied = std::io::copy(&mut Read::take(&mut *out, blob.size), &mut file)
            .map_err(|e| format!("{}: {e}", blob.name))?;
        let mut newline = [0u8];
        if copied != blob.size || out.read_exact(&mut newline).is_err() || newline != *b"\n" {
            return Err("git cat-file: truncated output".into());
        }
    }
    Ok(())
}

/// A directory as it was at a git ref, written to a temporary directory that is removed when
/// this is dropped.
#[derive(Debug)]
pub struct Snapshot {
    /// Created exclusively, with an unpredictable name and mode 0700; removed on drop.
    dir: tempfile::TempDir,
    /// The snapshot of the requested directory.
    pub root: PathBuf,
    /// Files of the directory at REF that were not read (over `limits.max-file-size`): what
    /// the report says about them.
    pub problems: Vec<String>,
}

/// Of `files`, the catalog-shaped ones (YAML, JSON) under one of `paths` (all, when no path
/// is given): what a change-scoped run looks at.
pub fn catalog_files_under(files: Vec<PathBuf>, paths: &[PathBuf]) -> Vec<PathBuf> {
    let roots: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    files
        .into_iter()
        .filter(|f| {
            f.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        })
        .filter(|f| roots.is_empty() || roots.iter().any(|r| f.starts_with(r)))
        .collect()
}

/// A tree path from git as a relative path of plain components: a crafted tree can hold
/// names like `..`, `/x` or `a/../../b`, which must not reach the filesystem.
fn safe_relative(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    let plain = !name.is_empty()
        && !name.contains('\\')
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    plain.then(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_entries_are_parsed_with_their_sizes() {
        let b = Blob::parse(
            b"100644 blob 9d7a0205e1597f21237669d88b373cbd33850a4c      53\tcatalog/p.yaml",
        )
        .unwrap();
        assert_eq!((b.name.as_str(), b.size), ("catalog/p.yaml", 53));
        // Links, submodules and trees are not files of the snapshot.
        for rec in [
            &b"120000 blob 9d7a0205e1597f21237669d88b373cbd33850a4c 5\tl.yaml"[..],
            b"160000 commit 9d7a0205e1597f21237669d88b373cbd33850a4c -\tsub",
            b"100644 blob not-hex 5\tx.yaml",
        ] {
            assert!(Blob::parse(rec).is_none());
        }
    }

    #[test]
    fn records_are_bounded() {
        let long = vec![b'a'; (MAX_RECORD + 10) as usize];
        let mut r: &[u8] = &long;
        assert!(read_record(&mut r, 0).is_err());
        let mut r: &[u8] = b"a\0b\0";
        assert_eq!(read_record(&mut r, 0).unwrap().unwrap(), b"a");
        assert_eq!(read_record(&mut r, 0).unwrap().unwrap(), b"b");
        assert!(read_record(&mut r, 0).unwrap().is_none());
    }

    #[test]
    fn unsafe_tree_paths_are_refused() {
        for bad in ["..", "../x", "a/../b", "/abs", "a//b", "./a", "a\\b", ""] {
            assert!(safe_relative(bad).is_none(), "{bad}");
        }
        assert!(safe_relative("a/b.yaml").is_some());
    }
}
