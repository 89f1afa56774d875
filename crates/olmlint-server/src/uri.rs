//! `file:` URIs ↔ paths (RFC 8089, as editors write them: `file:///abs/path`, percent-encoded).

use std::path::{Path, PathBuf};

/// The path a `file:` URI names; `None` for any other scheme (an untitled buffer, a remote
/// file), which olmlint cannot place in a catalog.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("FILE://"))?;
    // `file://localhost/p` and `file:///p` are the same file; another host is not ours.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = decode(rest)?;
    #[cfg(windows)]
    {
        // `/C:/dir/file` → `C:/dir/file`.
        if decoded.as_bytes().get(2) == Some(&b':') {
            return decoded.get(1..).map(PathBuf::from);
        }
    }
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str("file://");
    #[cfg(windows)]
    let text = text.replace('\\', "/");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decoding; `None` for a malformed escape or bytes that are not UTF-8.
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let p = Path::new("/tmp/a b/é%/catalog.yaml");
        let uri = from_path(p);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%A9%25/catalog.yaml");
        assert_eq!(to_path(&uri).as_deref(), Some(p));
        assert_eq!(
            to_path("file://localhost/x/y").as_deref(),
            Some(Path::new("/x/y"))
        );
        assert_eq!(to_path("untitled:Untitled-1"), None);
        assert_eq!(to_path("file:///bad%zz"), None);
    }
}
