//! `.indexignore` patterns exactly as `opm` applies them. opm (operator-registry's
//! `alpha/declcfg` walk, which `opm validate` and `opm render` use) reads every `.indexignore`
//! under the catalog root with `joelanford/ignore`, which parses each line with go-git's
//! gitignore package (`plumbing/format/gitignore`), and then asks that matcher about each
//! file, never about a directory. go-git's rules are not git's, which is why the `ignore`
//! crate's gitignore (git's rules) is not used here:
//!
//! - Directories are never pruned. A file below a directory that a pattern names is
//!   excluded because the pattern matches a component of the file's path, and a later
//!   matching negation re-includes it: `**/*` then `!*.json` reads every JSON file at any
//!   depth (git would skip the directories and everything in them).
//! - A pattern without a slash matches any component of the path below its directory,
//!   directories above the file included: `docs/` excludes `docs/a.json` and `x/docs/b.json`,
//!   not a file named `docs`.
//! - A pattern with a slash is anchored at its directory and matches what lies below the
//!   path it names too (`a/b` excludes `a/b/c.json`); `**` counts only as a whole segment
//!   (`a**/b` matches nothing); a leading `/` only anchors.
//! - `*`, `?` and `[...]` are Go's `path/filepath.Match`: a class is negated by `^` only
//!   (`[!a]` is the class of `!` and `a`), `\` escapes, `?` and classes take one UTF-8
//!   character, and a malformed pattern (`[`, `[a-]`, a trailing `\`) matches nothing.
//! - Lines are trimmed of white space at both ends (so `\ ` cannot keep a trailing space);
//!   a line whose first non-blank character is `#` is a comment; `!` negates.
//! - The patterns of every `.indexignore` form one list in the order opm's walk finds the
//!   files (by path, byte by byte, a directory's `.indexignore` among its entries: after
//!   `-pre/`'s and `.a/`'s, whose names sort before `.indexignore`), and the last matching
//!   pattern of the list decides, not the deepest file.
//!
//! Each function names the Go code it follows; tests/it/indexignore.rs checks the whole
//! against vectors written by the real matcher (scripts/indexignore-vectors.sh).

use std::cmp::Ordering;
use std::sync::Arc;

/// The name of the files, and the last component of their walk-order key.
pub const FILE_NAME: &str = ".indexignore";

/// The longest line Go's `bufio.Scanner` reads: with one of 64 KiB or more,
/// `joelanford/ignore` fails, and opm with it.
pub const MAX_LINE: usize = 64 * 1024 - 1;

/// What one pattern says about a path (go-git's `MatchResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    NoMatch,
    Exclude,
    Include,
}

/// A malformed `filepath.Match` pattern (Go's `ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPattern;

/// One pattern line (go-git's `pattern`), relative to the directory of its `.indexignore`.
#[derive(Debug, Clone)]
pub struct Pattern {
    segments: Vec<Vec<u8>>,
    inclusion: bool,
    dir_only: bool,
    is_glob: bool,
}

impl Pattern {
    /// go-git's `ParsePattern` of a line as `joelanford/ignore` passes it (trimmed, not a
    /// comment).
    pub fn parse(line: &[u8]) -> Pattern {
        let (inclusion, mut p) = match line.strip_prefix(b"!") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if !p.ends_with(b"\\ ") {
            while let Some(rest) = p.strip_suffix(b" ") {
                p = rest;
            }
        }
        let dir_only = match p.strip_suffix(b"/") {
            Some(rest) => {
                p = rest;
                true
            }
            None => false,
        };
        Pattern {
            segments: p.split(|&b| b == b'/').map(<[u8]>::to_vec).collect(),
            inclusion,
            dir_only,
            is_glob: p.contains(&b'/'),
        }
    }

    /// go-git's `pattern.Match` for a path relative to the pattern's directory (its domain,
    /// already taken off), split into components.
    pub fn matches(&self, path: &[&[u8]], is_dir: bool) -> Verdict {
        if path.is_empty() {
            return Verdict::NoMatch;
        }
        let hit = if self.is_glob {
            self.glob_match(path, is_dir)
        } else {
            self.simple_name_match(path, is_dir)
        };
        match (hit, self.inclusion) {
            (false, _) => Verdict::NoMatch,
            (true, true) => Verdict::Include,
            (true, false) => Verdict::Exclude,
        }
    }

    /// go-git's `simpleNameMatch`: the first component the name matches decides; a
    /// directory-only pattern does not match the file itself.
    fn simple_name_match(&self, path: &[&[u8]], is_dir: bool) -> bool {
        let name_pattern = self.segments.first().map_or(&[][..], Vec::as_slice);
        for (i, name) in path.iter().enumerate() {
            match go_match(name_pattern, name) {
                Err(BadPattern) => return false,
                Ok(false) => continue,
                Ok(true) => {}
            }
            return !(self.dir_only && !is_dir && i + 1 == path.len());
        }
        false
    }

    /// go-git's `globMatch`, step for step: segments match components from the start, `**`
    /// lets the next segment match any later component, and what is left of the path after
    /// the last segment does not matter.
    fn glob_match(&self, mut path: &[&[u8]], is_dir: bool) -> bool {
        let mut matched = false;
        let mut can_traverse = false;
        let last = self.segments.len().saturating_sub(1);
        for (i, segment) in self.segments.iter().enumerate() {
            if segment.is_empty() {
                can_traverse = false;
                continue;
            }
            if segment == b"**" {
                if i == last {
                    break;
                }
                can_traverse = true;
                continue;
            }
            if segment.windows(2).any(|w| w == b"**") {
                return false;
            }
            let Some((first, rest)) = path.split_first() else {
                return false;
            };
            if can_traverse {
                can_traverse = false;
                while let Some((component, rest)) = path.split_first() {
                    path = rest;
                    match go_match(segment, component) {
                        Err(BadPattern) => return false,
                        Ok(true) => {
                            matched = true;
                            break;
                        }
                        Ok(false) if path.is_empty() => matched = false,
                        Ok(false) => {}
                    }
                }
            } else {
                if go_match(segment, first) != Ok(true) {
                    return false;
                }
                matched = true;
                path = rest;
            }
        }
        // A directory-only pattern that ends at the file itself does not match it.
        if matched && self.dir_only && !is_dir && path.is_empty() {
            matched = false;
        }
        matched
    }
}

/// The patterns of one `.indexignore` as `joelanford/ignore`'s `loadPatterns` reads them:
/// line by line (`bufio.Scanner`), each trimmed (`strings.TrimSpace`), blank lines and those
/// starting with `#` skipped. `Err` with the 1-based number of a line too long for the
/// scanner, on which opm fails.
pub fn parse_file(bytes: &[u8]) -> Result<Vec<Pattern>, usize> {
    let mut patterns = Vec::new();
    for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.len() > MAX_LINE {
            return Err(number + 1);
        }
        let line = trim_space(line);
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        patterns.push(Pattern::parse(line));
    }
    Ok(patterns)
}

/// One `.indexignore`: its directory's components below the walked root and its patterns.
#[derive(Debug)]
pub struct IgnoreFile {
    dir: Vec<Vec<u8>>,
    patterns: Vec<Pattern>,
}

impl IgnoreFile {
    pub fn new(dir: Vec<Vec<u8>>, patterns: Vec<Pattern>) -> IgnoreFile {
        IgnoreFile { dir, patterns }
    }

    /// The order in which opm's walk (`fs.WalkDir`, entries sorted by name) finds the files.
    fn walk_order(&self, other: &IgnoreFile) -> Ordering {
        fn key(f: &IgnoreFile) -> impl Iterator<Item = &[u8]> {
            f.dir
                .iter()
                .map(Vec::as_slice)
                .chain(std::iter::once(FILE_NAME.as_bytes()))
        }
        key(self).cmp(key(other))
    }
}

/// The `.indexignore` files that can speak about the files of one directory: those of the
/// directory and of every directory above it up to the walked root, in opm's order.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    files: Vec<Arc<IgnoreFile>>,
}

impl Chain {
    /// This chain with the `.indexignore` of a directory below it added.
    #[must_use]
    pub fn with(&self, file: Arc<IgnoreFile>) -> Chain {
        let mut files = self.files.clone();
        files.push(file);
        files.sort_by(|a, b| a.walk_order(b));
        Chain { files }
    }

    /// Whether no `.indexignore` speaks here.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// go-git's `matcher.Match` for a file, as opm asks (`isDir` false): the last pattern
    /// that matches decides. `path` is the file's components below the walked root.
    pub fn ignores(&self, path: &[&[u8]]) -> bool {
        for file in self.files.iter().rev() {
            let Some(below) = path.get(file.dir.len()..) else {
                continue;
            };
            for pattern in file.patterns.iter().rev() {
                match pattern.matches(below, false) {
                    Verdict::NoMatch => {}
                    Verdict::Exclude => return true,
                    Verdict::Include => return false,
                }
            }
        }
        false
    }
}

/// Go's `path/filepath.Match` (Unix: `\` escapes), on bytes as Go's strings are.
pub fn go_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing `*` matches the rest of the name unless it holds a `/`.
            return Ok(!name.contains(&b'/'));
        }
        let first = match_chunk(chunk, name);
        if let Ok(Some(t)) = first {
            // The last chunk must take the whole name.
            if t.is_empty() || !pattern.is_empty() {
                name = t;
                continue;
            }
        }
        first?;
        if star {
            // The star takes 1, 2, … bytes, never a `/`.
            let mut i = 0;
            while name.get(i).is_some_and(|&b| b != b'/') {
                match match_chunk(chunk, name.get(i + 1..).unwrap_or_default())? {
                    Some(t) if pattern.is_empty() && !t.is_empty() => {}
                    Some(t) => {
                        name = t;
                        continue 'pattern;
                    }
                    None => {}
                }
                i += 1;
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Go's `scanChunk`: the leading stars, then the pattern up to the next star outside a class.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let Some(rest) = pattern.strip_prefix(b"*") {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while let Some(&b) = pattern.get(i) {
        match b {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => {
                let (chunk, rest) = pattern.split_at_checked(i).unwrap_or((pattern, &[]));
                return (star, chunk, rest);
            }
            _ => {}
        }
        i += 1;
    }
    (star, pattern, &[])
}

/// Go's `matchChunk`: whether a chunk (no stars) matches the start of `s`, and what is left of
/// `s` if it does. The whole chunk is parsed even after a mismatch, so a malformed chunk is
/// an error whatever `s` is.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> Result<Option<&'s [u8]>, BadPattern> {
    let mut failed = false;
    while let Some(&c) = chunk.first() {
        failed = failed || s.is_empty();
        match c {
            b'[' => {
                let mut r = 0;
                if !failed {
                    let (rune, n) = decode_rune(s);
                    r = rune;
                    s = s.get(n..).unwrap_or_default();
                }
                chunk = chunk.get(1..).unwrap_or_default();
                let (matched, negated, rest) = match_class(chunk, r)?;
                chunk = rest;
                failed = failed || matched == negated;
            }
            b'?' => {
                if !failed {
                    failed = s.first() == Some(&b'/');
                    let (_, n) = decode_rune(s);
                    s = s.get(n..).unwrap_or_default();
                }
                chunk = chunk.get(1..).unwrap_or_default();
            }
            _ => {
                if c == b'\\' {
                    chunk = chunk.get(1..).unwrap_or_default();
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                }
                if !failed {
                    failed = chunk.first() != s.first();
                    s = s.get(1..).unwrap_or_default();
                }
                chunk = chunk.get(1..).unwrap_or_default();
            }
        }
    }
    Ok((!failed).then_some(s))
}

/// The class after a `[` (Go's `matchChunk`, its `[` case): whether `r` is in one of its
/// ranges, whether it is negated, and the chunk after its `]`.
fn match_class(mut chunk: &[u8], r: u32) -> Result<(bool, bool, &[u8]), BadPattern> {
    let negated = match chunk.strip_prefix(b"^") {
        Some(rest) => {
            chunk = rest;
            true
        }
        None => false,
    };
    let mut matched = false;
    let mut ranges = 0;
    loop {
        if ranges > 0 {
            if let Some(rest) = chunk.strip_prefix(b"]") {
                return Ok((matched, negated, rest));
            }
        }
        let (lo, rest) = get_esc(chunk)?;
        chunk = rest;
        let mut hi = lo;
        if let Some(rest) = chunk.strip_prefix(b"-") {
            (hi, chunk) = get_esc(rest)?;
        }
        matched = matched || (lo <= r && r <= hi);
        ranges += 1;
    }
}

/// Go's `getEsc`: a possibly escaped character of a class, and the chunk after it (which
/// must not be empty: the class is not closed).
fn get_esc(mut chunk: &[u8]) -> Result<(u32, &[u8]), BadPattern> {
    if matches!(chunk.first(), None | Some(b'-' | b']')) {
        return Err(BadPattern);
    }
    if let Some(rest) = chunk.strip_prefix(b"\\") {
        chunk = rest;
        if chunk.is_empty() {
            return Err(BadPattern);
        }
    }
    let (r, n) = decode_rune(chunk);
    let rest = chunk.get(n..).unwrap_or_default();
    if (r == RUNE_ERROR && n == 1) || rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, rest))
}

/// Go's `utf8.RuneError`, what a byte that starts no valid UTF-8 sequence decodes to.
const RUNE_ERROR: u32 = 0xFFFD;

/// Go's `utf8.DecodeRune`: the first character of `s` and its length; an invalid byte is
/// `RUNE_ERROR` of length 1, an empty `s` `RUNE_ERROR` of length 0.
fn decode_rune(s: &[u8]) -> (u32, usize) {
    let Some(&b0) = s.first() else {
        return (RUNE_ERROR, 0);
    };
    if b0 < 0x80 {
        return (b0.into(), 1);
    }
    let width = match b0 {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (RUNE_ERROR, 1),
    };
    // Rust's UTF-8 is Go's: no overlong forms, no surrogates, nothing past U+10FFFF.
    match s
        .get(..width)
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| t.chars().next())
    {
        Some(c) => (c.into(), width),
        None => (RUNE_ERROR, 1),
    }
}

/// Go's `utf8.DecodeLastRune`.
fn decode_last_rune(s: &[u8]) -> (u32, usize) {
    let end = s.len();
    let Some(&last) = s.last() else {
        return (RUNE_ERROR, 0);
    };
    if last < 0x80 {
        return (last.into(), 1);
    }
    let lim = end.saturating_sub(4);
    // The nearest byte that starts a character, at most 3 bytes back (Go then decodes from
    // one byte before the limit when none does).
    let mut start = end - 1;
    loop {
        if start == 0 {
            break;
        }
        start -= 1;
        if start < lim {
            break;
        }
        if s.get(start).is_some_and(|&b| b & 0xC0 != 0x80) {
            break;
        }
    }
    let (r, size) = decode_rune(s.get(start..).unwrap_or_default());
    if start + size == end {
        (r, size)
    } else {
        (RUNE_ERROR, 1)
    }
}

/// Go's `unicode.IsSpace`: Unicode's White_Space characters.
fn is_space(r: u32) -> bool {
    matches!(
        r,
        0x09..=0x0D
            | 0x20
            | 0x85
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
    )
}

/// Go's `strings.TrimSpace`: white space off both ends, decoded as UTF-8 (an invalid byte is
/// not space).
fn trim_space(mut s: &[u8]) -> &[u8] {
    loop {
        let (r, n) = decode_rune(s);
        if n == 0 || !is_space(r) {
            break;
        }
        s = s.get(n..).unwrap_or_default();
    }
    loop {
        let (r, n) = decode_last_rune(s);
        if n == 0 || !is_space(r) {
            break;
        }
        s = s.get(..s.len() - n).unwrap_or_default();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's own table (path/filepath/match_test.go).
    #[test]
    fn go_match_agrees_with_gos_table() {
        let bad = Err(BadPattern);
        let table: &[(&str, &str, Result<bool, BadPattern>)] = &[
            ("abc", "abc", Ok(true)),
            ("*", "abc", Ok(true)),
            ("*c", "abc", Ok(true)),
            ("a*", "a", Ok(true)),
            ("a*", "abc", Ok(true)),
            ("a*", "ab/c", Ok(false)),
            ("a*/b", "abc/b", Ok(true)),
            ("a*/b", "a/c/b", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", Ok(false)),
            ("a*b?c*x", "abxbbxdbxebxczzx", Ok(true)),
            ("a*b?c*x", "abxbbxdbxebxczzy", Ok(false)),
            ("ab[c]", "abc", Ok(true)),
            ("ab[b-d]", "abc", Ok(true)),
            ("ab[e-g]", "abc", Ok(false)),
            ("ab[^c]", "abc", Ok(false)),
            ("ab[^b-d]", "abc", Ok(false)),
            ("ab[^e-g]", "abc", Ok(true)),
            ("a\\*b", "a*b", Ok(true)),
            ("a\\*b", "ab", Ok(false)),
            ("a?b", "a☺b", Ok(true)),
            ("a[^a]b", "a☺b", Ok(true)),
            ("a???b", "a☺b", Ok(false)),
            ("a[^a][^a][^a]b", "a☺b", Ok(false)),
            ("[a-ζ]*", "α", Ok(true)),
            ("*[a-ζ]", "A", Ok(false)),
            ("a?b", "a/b", Ok(false)),
            ("a*b", "a/b", Ok(false)),
            ("[\\]a]", "]", Ok(true)),
            ("[\\-]", "-", Ok(true)),
            ("[x\\-]", "x", Ok(true)),
            ("[x\\-]", "-", Ok(true)),
            ("[x\\-]", "z", Ok(false)),
            ("[\\-x]", "x", Ok(true)),
            ("[\\-x]", "-", Ok(true)),
            ("[\\-x]", "a", Ok(false)),
            ("[]a]", "]", bad),
            ("[-]", "-", bad),
            ("[x-]", "x", bad),
            ("[x-]", "-", bad),
            ("[x-]", "z", bad),
            ("[-x]", "x", bad),
            ("[-x]", "-", bad),
            ("[-x]", "a", bad),
            ("\\", "a", bad),
            ("[a-b-c]", "a", bad),
            ("[", "a", bad),
            ("[^", "a", bad),
            ("[^bc", "a", bad),
            ("a[", "a", bad),
            ("a[", "ab", bad),
            ("a[", "x", bad),
            ("a/b[", "x", bad),
            ("*x", "xxx", Ok(true)),
        ];
        for (pattern, name, want) in table {
            assert_eq!(
                go_match(pattern.as_bytes(), name.as_bytes()),
                *want,
                "Match({pattern:?}, {name:?})"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_one_rune_error_per_byte() {
        // `?` takes one byte of an invalid sequence; a class sees U+FFFD.
        assert_eq!(go_match(b"a?b", b"a\xffb"), Ok(true));
        assert_eq!(go_match(b"a??b", b"a\xe2\x98b"), Ok(true));
        assert_eq!(go_match("a[\u{FFFD}]b".as_bytes(), b"a\xffb"), Ok(true));
        // An invalid byte inside a class is a malformed pattern.
        assert_eq!(go_match(b"[\xff]", b"x"), Err(BadPattern));
    }

    fn verdict(pattern: &str, path: &str, is_dir: bool) -> Verdict {
        let parts: Vec<&[u8]> = path.split('/').map(str::as_bytes).collect();
        Pattern::parse(pattern.as_bytes()).matches(&parts, is_dir)
    }

    /// go-git's rules where they differ from git's.
    #[test]
    fn go_git_pattern_semantics() {
        use Verdict::{Exclude, Include, NoMatch};
        // A name matches any component, directories above the file included.
        assert_eq!(verdict("docs/", "docs/a.json", false), Exclude);
        assert_eq!(verdict("docs/", "x/docs/a.json", false), Exclude);
        assert_eq!(verdict("docs/", "x/docs", false), NoMatch);
        assert_eq!(verdict("docs/", "x/docs", true), Exclude);
        assert_eq!(verdict("!*.json", "a/b/c.json", false), Include);
        // A slash anchors; what lies below the named path matches too.
        assert_eq!(verdict("a/b", "a/b/c/d.json", false), Exclude);
        assert_eq!(verdict("a/b", "x/a/b", false), NoMatch);
        assert_eq!(verdict("/a", "a/x.json", false), Exclude);
        assert_eq!(verdict("/a", "b/a/x.json", false), NoMatch);
        // `**` as a whole segment only; `foo/**` matches `foo` itself.
        assert_eq!(verdict("**/*", "a/b/c", false), Exclude);
        assert_eq!(verdict("a/**", "a", false), Exclude);
        assert_eq!(verdict("a**/b", "a/b", false), NoMatch);
        assert_eq!(verdict("a/**/b", "a/x/y/b/c", false), Exclude);
        // Go's classes: `!` is no negation.
        assert_eq!(verdict("[!a]*", "b.json", false), NoMatch);
        assert_eq!(verdict("[!a]*", "!b.json", false), Exclude);
        assert_eq!(verdict("[^a]*", "b.json", false), Exclude);
        // A malformed pattern matches nothing.
        assert_eq!(verdict("a[", "a[", false), NoMatch);
    }

    #[test]
    fn lines_are_trimmed_like_go() {
        let patterns = |text: &[u8]| parse_file(text).map(|p| p.len());
        assert_eq!(patterns(b"# c\n\n  \t\r\na\r\n \\#b \n"), Ok(2));
        // No-break space and U+3000 are white space; U+FEFF and an invalid byte are not.
        assert_eq!(trim_space("\u{a0}x\u{3000}".as_bytes()), b"x");
        assert_eq!(trim_space("\u{feff}x".as_bytes()), "\u{feff}x".as_bytes());
        assert_eq!(trim_space(b" x\xa0 "), b"x\xa0");
        assert_eq!(trim_space(b"\xc2\xa0"), b"");
        // Trailing `\ ` loses its space to the trim, leaving a trailing backslash.
        let p = &parse_file(b"a\\ \n").unwrap()[0];
        assert_eq!(p.matches(&[b"a "], false), Verdict::NoMatch);
        let long = [
            vec![b'a'; MAX_LINE],
            b"\n".to_vec(),
            vec![b'b'; MAX_LINE + 1],
        ]
        .concat();
        assert_eq!(parse_file(&long).map(|p| p.len()), Err(2));
    }

    #[test]
    fn the_last_file_in_walk_order_decides() {
        let file = |dir: &[&str], text: &str| {
            let dir = dir.iter().map(|d| d.as_bytes().to_vec()).collect();
            Arc::new(IgnoreFile::new(dir, parse_file(text.as_bytes()).unwrap()))
        };
        // `-pre/` sorts before `.indexignore`: the root's file comes after its own.
        let chain = Chain::default()
            .with(file(&[], "!keep.json\n"))
            .with(file(&["-pre"], "*.json\n"));
        assert!(!chain.ignores(&[b"-pre", b"keep.json"]));
        assert!(chain.ignores(&[b"-pre", b"other.json"]));
        // `op/` sorts after it: `op/.indexignore` comes last.
        let chain = Chain::default()
            .with(file(&[], "!keep.json\n"))
            .with(file(&["op"], "*.json\n"));
        assert!(chain.ignores(&[b"op", b"keep.json"]));
    }
}
