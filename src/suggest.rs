//! "Did you mean" suggestions by edit distance.

/// Levenshtein distance, case-insensitive.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = cur.get(j).copied().unwrap_or(0) + 1;
            cur.push(sub.min(del).min(ins));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

/// The closest candidate within a third of the word's length (at least 1, at most 3 edits);
/// of equally close ones the first in byte order, so that the answer does not depend on the
/// order of the candidates (often a hash map's).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// `hint` as the first sentence of a longer text: a full stop is added unless it already
/// ends a sentence (`did you mean 'x'?`).
pub fn lead(hint: &str) -> String {
    if hint.ends_with(['.', '?', '!']) {
        format!("{hint} ")
    } else {
        format!("{hint}. ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn closest() {
        assert_eq!(
            super::closest("packagename", ["packageName", "versionRange"]),
            Some("packageName")
        );
        assert_eq!(
            super::closest("failureMesage", ["failureMessage", "gvk"]),
            Some("failureMessage")
        );
        assert_eq!(super::closest("zzz", ["gvk"]), None);
        // Ties: the same answer whatever the candidates' order.
        let tied = ["foo.v3.2.4", "foo.v3.0.2", "foo.v3.2.1"];
        assert_eq!(super::closest("foo.v3.2.2", tied), Some("foo.v3.0.2"));
        let mut rev = tied;
        rev.reverse();
        assert_eq!(super::closest("foo.v3.2.2", rev), Some("foo.v3.0.2"));
    }
}
