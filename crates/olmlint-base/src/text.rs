//! Strings of the tree. Short ones (most keys, names, versions, kinds) are stored inline;
//! long scalars written verbatim in the file (base64 payloads, descriptions, image references)
//! are a range of the shared file text, so loading them neither copies nor allocates.

use compact_str::CompactString;
use std::borrow::{Borrow, Cow};
use std::sync::Arc;

/// Longest string stored inline (compact_str's capacity on 64-bit targets).
const INLINE: usize = 24;

/// A file's text, shared by the loaded file and the strings of its tree.
pub type FileText = Arc<String>;

#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Own(CompactString),
    /// `file[start .. start + len]`, always on character boundaries.
    Slice {
        file: FileText,
        start: u32,
        len: u32,
    },
}

impl Text {
    pub const fn new() -> Self {
        Text(Repr::Own(CompactString::const_new("")))
    }

    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Own(s) => s,
            Repr::Slice { file, start, len } => {
                let start = *start as usize;
                file.get(start..start + *len as usize).unwrap_or_default()
            }
        }
    }

    /// `s`, a substring of `file`: long ones become a range of it instead of a copy.
    pub fn in_file(file: &FileText, s: &str) -> Self {
        if s.len() > INLINE {
            let offset = (s.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
            if let (Some(true), Ok(start), Ok(len)) = (
                offset.checked_add(s.len()).map(|end| end <= file.len()),
                u32::try_from(offset),
                u32::try_from(s.len()),
            ) {
                return Text(Repr::Slice {
                    file: Arc::clone(file),
                    start,
                    len,
                });
            }
        }
        Text::from(s)
    }

    /// Like [`Text::in_file`] for a value that may have been unescaped into a buffer of its own.
    pub fn from_cow(file: Option<&FileText>, s: Cow<'_, str>) -> Self {
        match (file, s) {
            (Some(file), Cow::Borrowed(s)) => Text::in_file(file, s),
            (_, s) => Text::from(s),
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::new()
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    #[inline]
    fn from(s: &str) -> Self {
        Text(Repr::Own(s.into()))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Repr::Own(s.into()))
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Self {
        Text(Repr::Own(s.into()))
    }
}

impl PartialEq for Text {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a marker that follows `before` on its line (the line's text up to the marker) sits
/// in a YAML comment: a `#` at the line's start or after a blank, with only blanks between it
/// and the marker. Returns the `#`'s offset. (The inline suppression comment's rule, shared by
/// the checks that read it and the language server that writes it.)
pub fn comment_hash_before(before: &str) -> Option<usize> {
    let hash = before.rfind('#')?;
    let is_comment = before.get(hash + 1..).is_some_and(|s| s.trim().is_empty())
        && (hash == 0 || before.get(..hash).is_some_and(|s| s.ends_with([' ', '\t'])));
    is_comment.then_some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_substrings_share_the_file_short_ones_are_inline() {
        let file: FileText = Arc::new(format!("key: {}\nk: v\n", "x".repeat(40)));
        let long = file.get(5..45).unwrap();
        let t = Text::in_file(&file, long);
        assert!(matches!(
            t.0,
            Repr::Slice {
                start: 5,
                len: 40,
                ..
            }
        ));
        assert_eq!(t, long);
        let short = Text::in_file(&file, file.get(49..50).unwrap());
        assert!(matches!(short.0, Repr::Own(_)));
        assert_eq!(short, "v");
        // Not a substring of the file: copied.
        let other = "y".repeat(40);
        assert!(matches!(Text::in_file(&file, &other).0, Repr::Own(_)));
        // Unescaped (owned) values are always copies.
        let owned = Text::from_cow(Some(&file), Cow::Owned(long.to_string()));
        assert!(matches!(owned.0, Repr::Own(_)));
        assert_eq!(owned, t);
    }

    #[test]
    fn no_larger_than_an_inline_string() {
        assert_eq!(
            std::mem::size_of::<Text>(),
            std::mem::size_of::<CompactString>()
        );
    }
}
