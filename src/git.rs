//! What `--changed-since REF` needs from git: the files changed since REF, and a catalog as it
//! was at REF (the baseline of the upgrade-safety rules), read with two git processes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn git(dir: Option<&Path>, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    let mut child = cmd
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written from a thread: git answers while it reads, and both pipes have limits.
        let bytes = bytes.to_vec();
        std::thread::spawn(move || stdin.write_all(&bytes));
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(out.stdout)
}

fn git_text(dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
    git(dir, args, None).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The top level of the git work tree holding `dir` (the nearest ancestor with `.git`),
/// found without running git.
pub fn work_tree_top(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

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

/// The names a git command lists (`-z`), as paths under the top level `top`. `-z`: names
/// exactly as stored (git quotes names with non-ASCII bytes or tabs in its line output, and a
/// quoted name would not exist and be dropped silently).
fn listed(top: &Path, args: &[&str]) -> Result<Vec<PathBuf>, String> {
    Ok(git(Some(top), args, None)?
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| top.join(name_path(n)))
        .collect())
}

/// Files changed since `git_ref` (committed, staged, unstaged and untracked), as paths that
/// exist.
pub fn changed_files(git_ref: &str) -> Result<Vec<PathBuf>, String> {
    let top = PathBuf::from(git_text(None, &["rev-parse", "--show-toplevel"])?.trim());
    // Both from the top level: `ls-files` lists paths relative to the directory it runs in
    // (and only below it), and `diff.relative` would do the same to `diff`.
    let mut files = listed(
        &top,
        &["diff", "-z", "--name-only", "--diff-filter=ACMRT", git_ref],
    )?;
    files.extend(listed(
        &top,
        &["ls-files", "-z", "--others", "--exclude-standard"],
    )?);
    files.retain(|p| p.is_file());
    files.sort();
    files.dedup();
    Ok(files)
}

/// Files deleted since `git_ref` (committed, staged or not), as the paths they had: what a
/// change removed (a package's catalog file, say) is part of what it changed.
pub fn deleted_files(git_ref: &str) -> Result<Vec<PathBuf>, String> {
    let top = PathBuf::from(git_text(None, &["rev-parse", "--show-toplevel"])?.trim());
    let mut files = listed(
        &top,
        &["diff", "-z", "--name-only", "--diff-filter=D", git_ref],
    )?;
    files.retain(|p| !p.exists());
    files.sort();
    files.dedup();
    Ok(files)
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

/// A directory as it was at a git ref, written to a temporary directory that is removed when
/// this is dropped.
#[derive(Debug)]
pub struct Snapshot {
    /// Created exclusively, with an unpredictable name and mode 0700; removed on drop.
    dir: tempfile::TempDir,
    /// The snapshot of the requested directory.
    pub root: PathBuf,
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

/// `path` (a directory in a git work tree) as it was at `git_ref`; `None` when it did not
/// exist there.
pub fn snapshot(git_ref: &str, path: &Path) -> Result<Option<Snapshot>, String> {
    let abs = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let top = git_text(Some(&abs), &["rev-parse", "--show-toplevel"])?;
    let top = std::fs::canonicalize(top.trim()).map_err(|e| e.to_string())?;
    let rel = abs
        .strip_prefix(&top)
        .map_err(|_| {
            format!(
                "{} is not in the git work tree {}",
                abs.display(),
                top.display()
            )
        })?
        .to_path_buf();
    let rel_text = rel.to_string_lossy().into_owned();
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", git_ref];
    if !rel_text.is_empty() {
        args.extend(["--", rel_text.as_str()]);
    }
    let listing = git(Some(&top), &args, None)?;
    // `<mode> <type> <object>\t<path>\0`; regular files only (no links, no submodules).
    let blobs: Vec<(String, String)> = listing
        .split(|&b| b == 0)
        .filter_map(|rec| {
            let rec = std::str::from_utf8(rec).ok()?;
            let (meta, name) = rec.split_once('\t')?;
            let mut parts = meta.split(' ');
            let (mode, kind, oid) = (parts.next()?, parts.next()?, parts.next()?);
            (kind == "blob" && mode.starts_with("100")).then(|| (oid.to_string(), name.to_string()))
        })
        .collect();
    if blobs.is_empty() {
        return Ok(None);
    }
    let dir = tempfile::Builder::new()
        .prefix("olmlint-baseline-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let snap = Snapshot {
        root: dir.path().join(&rel),
        dir,
    };
    let input: String = blobs.iter().map(|(oid, _)| format!("{oid}\n")).collect();
    let contents = git(Some(&top), &["cat-file", "--batch"], Some(input.as_bytes()))?;
    // Each object: `<object> <type> <size>\n<bytes>\n`.
    let mut rest = contents.as_slice();
    for (_, name) in &blobs {
        let header_end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("git cat-file: truncated output")?;
        let header =
            String::from_utf8_lossy(rest.get(..header_end).unwrap_or_default()).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("git cat-file: unexpected header {header:?}"))?;
        let body = rest
            .get(header_end + 1..header_end + 1 + size)
            .ok_or("git cat-file: truncated output")?;
        let rel_name = safe_relative(name)
            .ok_or_else(|| format!("{git_ref} holds a path olmlint will not write: {name:?}"))?;
        let target = snap.dir.path().join(rel_name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        // A fresh file in the private directory: never through a link, never over a file.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|e| format!("{}: {e}", target.display()))?;
        std::io::Write::write_all(&mut file, body)
            .map_err(|e| format!("{}: {e}", target.display()))?;
        rest = rest.get(header_end + 2 + size..).unwrap_or(&[]);
    }
    Ok(Some(snap))
}
