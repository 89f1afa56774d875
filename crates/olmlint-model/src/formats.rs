//! Small format validators `opm` applies: image pull specs, DNS-1123 labels, base64.

/// A container image reference as `github.com/distribution/reference` parses it.
///
/// On bytes throughout (every delimiter is ASCII, and a non-ASCII character fails the byte
/// tests as its first byte does): `str`'s pattern searchers cost more than the checks on
/// these short strings.
pub fn image_reference_error(s: &str) -> Option<&'static str> {
    let s = s.as_bytes();
    if s.is_empty() {
        return Some("repository name must have at least one component");
    }
    let (rest, digest) = match split_first(s, b'@') {
        Some((r, d)) => (r, Some(d)),
        None => (s, None),
    };
    if let Some(d) = digest {
        let Some((alg, hex)) = split_first(d, b':') else {
            return Some("invalid reference format");
        };
        let alg_ok = !alg.is_empty()
            && alg
                .split(|c| matches!(c, b'+' | b'.' | b'_' | b'-'))
                .all(|c| {
                    c.first().is_some_and(|f| f.is_ascii_alphabetic())
                        && c.iter().all(|x| x.is_ascii_alphanumeric())
                });
        if !alg_ok || hex.len() < 32 || !hex.iter().all(|c| c.is_ascii_hexdigit()) {
            return Some("invalid reference format");
        }
        // go-digest's Validate, after the reference grammar accepted the digest.
        let len = match alg {
            b"sha256" => 64,
            b"sha384" => 96,
            b"sha512" => 128,
            _ => return Some("unsupported digest algorithm"),
        };
        if hex.len() != len {
            return Some("invalid checksum digest length");
        }
        if hex.iter().any(|c| c.is_ascii_uppercase()) {
            return Some("invalid checksum digest format");
        }
    }
    // The tag is after the last ':' that follows the last '/'.
    let last_slash = rest.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    let (name, tag) = match rest
        .get(last_slash..)
        .and_then(|t| t.iter().position(|&c| c == b':'))
    {
        Some(i) => (
            rest.get(..last_slash + i).unwrap_or_default(),
            rest.get(last_slash + i + 1..),
        ),
        None => (rest, None),
    };
    if let Some(t) = tag {
        let ok = !t.is_empty()
            && t.len() <= 128
            && t.first()
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            && t.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'));
        if !ok {
            return Some("invalid reference format");
        }
    }
    if name.len() > 255 {
        return Some("repository name must not be more than 255 characters");
    }
    let mut path = name;
    if let Some((first, rest)) = split_first(name, b'/') {
        if first
            .iter()
            .any(|c| matches!(c, b'.' | b':') || c.is_ascii_uppercase())
            || first == b"localhost"
        {
            if !domain_ok(first) {
                return Some("invalid reference format");
            }
            path = rest;
        }
    }
    for p in path.split(|&c| c == b'/') {
        if p.iter().any(|c| c.is_ascii_uppercase()) && path_component_ok(&p.to_ascii_lowercase()) {
            return Some("invalid reference format: repository name must be lowercase");
        }
        if !path_component_ok(p) {
            return Some("invalid reference format");
        }
    }
    None
}

/// The bytes before and after the first `sep`.
fn split_first(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    split_around(s, s.iter().position(|&c| c == sep)?)
}

/// The bytes before and after the last `sep`.
fn split_last(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    split_around(s, s.iter().rposition(|&c| c == sep)?)
}

fn split_around(s: &[u8], i: usize) -> Option<(&[u8], &[u8])> {
    Some((s.get(..i)?, s.get(i + 1..)?))
}

fn domain_ok(d: &[u8]) -> bool {
    let (host, port) = match split_last(d, b':') {
        Some((h, p)) if !h.ends_with(b"]") || d.starts_with(b"[") => (h, Some(p)),
        _ => (d, None),
    };
    if port.is_some_and(|p| p.is_empty() || !p.iter().all(|c| c.is_ascii_digit())) {
        return false;
    }
    if host.starts_with(b"[") {
        return host.ends_with(b"]") && host.len() > 2;
    }
    !host.is_empty()
        && host.split(|&c| c == b'.').all(|c| {
            !c.is_empty()
                && c.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
                && !c.starts_with(b"-")
                && !c.ends_with(b"-")
        })
}

/// `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
fn path_component_ok(b: &[u8]) -> bool {
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut i = 0;
    let run = |i: &mut usize| {
        let s = *i;
        while b.get(*i).copied().is_some_and(alnum) {
            *i += 1;
        }
        *i > s
    };
    if !run(&mut i) {
        return false;
    }
    while i < b.len() {
        let sep_start = i;
        match b.get(i) {
            Some(b'.') => i += 1,
            Some(b'_') => {
                i += 1;
                if b.get(i) == Some(&b'_') {
                    i += 1;
                }
            }
            Some(b'-') => {
                while b.get(i) == Some(&b'-') {
                    i += 1;
                }
            }
            _ => return false,
        }
        if i == sep_start || !run(&mut i) {
            return false;
        }
    }
    true
}

/// RFC 1123 label: lowercase alphanumerics and '-', alphanumeric at both ends, at most 63.
pub fn dns1123_label_ok(s: &str) -> bool {
    dns1123_label_errors(s).is_empty()
}

/// Lowercase alphanumerics and '-', starting and ending alphanumeric (no length check).
fn label_chars_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// `k8s.io/apimachinery` `IsDNS1123Label`'s messages for `s` (empty when it is a label).
pub fn dns1123_label_errors(s: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters");
    }
    if !label_chars_ok(s) {
        // A valid subdomain that is not a label can only be one with dots.
        let subdomain = s.split('.').all(label_chars_ok);
        errs.push(if subdomain {
            "must not contain dots"
        } else {
            DNS1123_MESSAGE
        });
    }
    errs
}

pub const DNS1123_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Value of each byte in the standard base64 alphabet; [`SKIP`] for the line breaks Go's
/// decoder drops, [`BAD`] for anything else.
// Indexing here runs at compile time: an index out of range fails the build, not a lint run.
#[allow(clippy::indexing_slicing)]
static BASE64: [u8; 256] = {
    let mut t = [BAD; 256];
    let mut i = 0u8;
    while i < 26 {
        t[(b'A' + i) as usize] = i;
        t[(b'a' + i) as usize] = 26 + i;
        if i < 10 {
            t[(b'0' + i) as usize] = 52 + i;
        }
        i += 1;
    }
    t[b'+' as usize] = 62;
    t[b'/' as usize] = 63;
    t[b'\r' as usize] = SKIP;
    t[b'\n' as usize] = SKIP;
    t
};
const SKIP: u8 = 64;
const BAD: u8 = 255;

fn base64_value(c: u8) -> u8 {
    BASE64.get(usize::from(c)).copied().unwrap_or(BAD)
}

/// Whether `s` is standard base64 as Go's `[]byte` JSON decoding reads it
/// (`base64.StdEncoding`: padding required, `\r` and `\n` skipped anywhere); `Err(offset)`
/// is Go's `CorruptInputError`, quirks included. A table lookup per byte, without decoding:
/// payloads run to megabytes.
pub fn base64_validate(s: &str) -> Result<(), usize> {
    let src = s.as_bytes();
    let skip_breaks = |mut i: usize| {
        while src.get(i).is_some_and(|&c| base64_value(c) == SKIP) {
            i += 1;
        }
        i
    };
    let mut si = 0;
    loop {
        // One quantum of four symbols.
        let mut j = 0;
        while j < 4 {
            let Some(&c) = src.get(si) else {
                // Input ended inside a quantum: the padding is missing.
                return if j == 0 { Ok(()) } else { Err(si - j) };
            };
            si += 1;
            match base64_value(c) {
                v if v < SKIP => j += 1,
                SKIP => {}
                _ if c != b'=' || j < 2 => return Err(si - 1),
                _ => {
                    if j == 2 {
                        // `==` expected: the second `=` may follow line breaks.
                        si = skip_breaks(si);
                        match src.get(si) {
                            None => return Err(src.len()),
                            Some(&b'=') => si += 1,
                            Some(_) => return Err(si - 1),
                        }
                    }
                    let end = skip_breaks(si);
                    return if end < src.len() { Err(end) } else { Ok(()) };
                }
            }
        }
    }
}

/// The first `n` bytes that `s`, already validated, decodes to (enough to sniff a format).
pub fn base64_head(s: &str, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n.min(s.len() / 4 * 3));
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = base64_value(c);
        if v >= SKIP {
            if v == BAD {
                break;
            }
            continue;
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            if out.len() == n {
                break;
            }
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references() {
        for ok in ["quay.io/foo/bar:v1", "busybox", "localhost:5000/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "registry.redhat.io/a/b-c__d.e:1.0", "[::1]:5000/x"] {
            assert_eq!(image_reference_error(ok), None, "{ok}");
        }
        assert_eq!(
            image_reference_error("quay.io/Foo/bar"),
            Some("invalid reference format: repository name must be lowercase")
        );
        for bad in [
            "quay.io/foo/bar:",
            "quay.io//bar",
            "foo bar",
            "quay.io/foo@sha256:12",
            "-a/b",
        ] {
            assert!(image_reference_error(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn base64() {
        assert_eq!(base64_head("aGVsbG8=", 100), b"hello");
        assert_eq!(base64_head("aGVs\r\nbG8=", 100), b"hello");
        assert_eq!(base64_head("aGVsbG8=", 2), b"he");
        // Offsets are Go's `base64.CorruptInputError` for `StdEncoding.DecodeString`.
        for ok in [
            "",
            "aGVsbG8=",
            "aGVs\nbG8=",
            "aGVs\r\nbG8=\n",
            "aG==",
            "aG=\n=",
            "aGVs",
        ] {
            assert_eq!(base64_validate(ok), Ok(()), "{ok:?}");
        }
        for (bad, at) in [
            ("aGVsb$8=", 5),
            ("a", 0),
            ("aGVsbG8", 4),
            ("aGVsbG8===", 8),
            ("aG=", 3),
            ("aG=x", 2),
            ("aGVs=", 4),
            ("a===", 1),
            ("aGVsbG8=aGVs", 8),
        ] {
            assert_eq!(base64_validate(bad), Err(at), "{bad:?}");
        }
    }
}
