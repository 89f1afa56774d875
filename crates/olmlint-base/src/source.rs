//! A loaded file: its text and a line index built on the first position lookup (most files
//! have no finding and never need one), so positions are O(log n) per lookup.

use std::path::PathBuf;

#[derive(Debug)]
pub struct SourceFile {
    /// Path as shown to users: as given on the command line or relative to the working directory.
    pub display: String,
    /// Path used to open the file.
    pub path: PathBuf,
    /// Shared with the long strings of the file's tree (see [`super::text::Text`]).
    pub text: super::text::FileText,
    line_starts: std::sync::OnceLock<Vec<u32>>,
    /// Characters before every [`CHAR_STEP`]-th byte (rounded down to a character
    /// boundary), built with the line index: a column in a megabyte-long line (a one-line
    /// JSON catalog) is then counted from the nearest checkpoint, not from the line's start.
    /// Empty for ASCII text, where columns are byte differences.
    char_marks: std::sync::OnceLock<Vec<(u32, u32)>>,
}

/// Bytes between character-count checkpoints.
const CHAR_STEP: usize = 4096;

/// 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl SourceFile {
    pub fn new(display: String, path: PathBuf, text: String) -> Self {
        SourceFile {
            display,
            path,
            text: std::sync::Arc::new(text),
            line_starts: std::sync::OnceLock::new(),
            char_marks: std::sync::OnceLock::new(),
        }
    }

    fn char_marks(&self) -> &[(u32, u32)] {
        self.char_marks.get_or_init(|| {
            let text: &str = &self.text;
            if text.is_ascii() {
                return Vec::new();
            }
            let mut marks = vec![(0u32, 0u32)];
            let (mut at, mut chars) = (0usize, 0usize);
            while at + CHAR_STEP < text.len() {
                let mut next = at + CHAR_STEP;
                while !text.is_char_boundary(next) {
                    next -= 1;
                }
                chars += text.get(at..next).map_or(0, |s| s.chars().count());
                at = next;
                marks.push((
                    u32::try_from(at).unwrap_or(u32::MAX),
                    u32::try_from(chars).unwrap_or(u32::MAX),
                ));
            }
            marks
        })
    }

    /// Characters in the text before byte `byte` (a character boundary).
    fn chars_before(&self, byte: usize) -> usize {
        let marks = self.char_marks();
        if marks.is_empty() {
            return byte;
        }
        let i = marks
            .partition_point(|&(b, _)| b as usize <= byte)
            .saturating_sub(1);
        let (b, c) = marks.get(i).copied().unwrap_or((0, 0));
        c as usize
            + self
                .text
                .get(b as usize..byte)
                .map_or(byte.saturating_sub(b as usize), |s| s.chars().count())
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0u32];
            starts.extend(
                memchr::memchr_iter(b'\n', self.text.as_bytes())
                    .map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX)),
            );
            starts
        })
    }

    pub fn position(&self, byte: usize) -> Position {
        let byte = byte.min(self.text.len());
        let idx = match self.line_starts().binary_search(&(byte as u32)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts().get(idx).copied().unwrap_or(0) as usize;
        let col = if byte - start <= CHAR_STEP || !self.text.is_char_boundary(byte) {
            self.text
                .get(start..byte)
                .map_or(byte - start, |s| s.chars().count())
        } else {
            self.chars_before(byte) - self.chars_before(start)
        };
        Position {
            line: idx as u32 + 1,
            column: col as u32 + 1,
        }
    }

    /// Byte offset of the start of a 1-based line.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts()
            .get(line.checked_sub(1)? as usize)
            .map(|&v| v as usize)
    }

    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let Some(start) = self.line_start(line) else {
            return "";
        };
        let end = self.line_start(line + 1).unwrap_or(self.text.len());
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }
}

/// The offset of the start of the line holding byte `i` of `bytes`.
pub fn line_start_of(bytes: &[u8], i: usize) -> usize {
    bytes
        .get(..i)
        .and_then(|b| memchr::memrchr(b'\n', b))
        .map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        let f = SourceFile::new("f".into(), "f".into(), "ab\ncdé\nx".into());
        assert_eq!(f.position(0), Position { line: 1, column: 1 });
        assert_eq!(f.position(4), Position { line: 2, column: 2 });
        assert_eq!(f.position(8), Position { line: 3, column: 1 });
        assert_eq!(f.line_text(2), "cdé");
    }
}
