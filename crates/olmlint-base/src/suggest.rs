//! "Did you mean" suggestions by edit distance, with bounded work.
//!
//! A suggestion compares one misspelt name with the names that exist. Computed naively, every
//! missing name against every name costs |missing| × |names| × length² (950 KB of long names
//! took 71 s). Here:
//!
//! - the names are indexed once ([`Names`]): lower-cased, grouped by length, sorted within a
//!   length;
//! - only names whose length is within the edit limit (at most 3) of the word are compared;
//! - when more than [`EXACT_WINDOW`] names have such a length, only the word's neighbours in
//!   the sorted order (sharing the longest prefix) and in the order of reversed names (the
//!   longest suffix) are compared, [`NEIGHBOURS`] on each side per length: a typo keeps most of
//!   a name's start or end, and clap and ruff cap their suggestion work the same way;
//! - each comparison strips the common prefix and suffix and computes the distance only in a
//!   band of the limit's width, stopping as soon as the limit is exceeded.
//!
//! A query costs at most about `EXACT_WINDOW × limit × length`, whatever the number of names.

/// Names of lengths within the edit limit compared one by one; above this, neighbours only.
const EXACT_WINDOW: usize = 128;
/// Neighbours compared on each side of the word, per length, in each order (prefix, suffix).
const NEIGHBOURS: usize = 8;

/// Levenshtein distance, case-insensitive.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    within(&a, &b, a.len().max(b.len()), &mut 0).unwrap_or(usize::MAX)
}

/// Whether `a` and `b` are at most `limit` edits apart (case-insensitive); the work is
/// proportional to `limit` times their length.
pub fn is_within(a: &str, b: &str, limit: usize) -> bool {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    within(&a, &b, limit, &mut 0).is_some()
}

/// The Levenshtein distance of `a` and `b` when it is at most `limit`: the common prefix and
/// suffix are stripped, and only the cells of the dynamic programme within `limit` of the
/// diagonal are computed, stopping at the first row whose cells all exceed `limit`. `cells`
/// counts the characters compared and cells computed.
fn within(a: &[char], b: &[char], limit: usize, cells: &mut u64) -> Option<usize> {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (a.get(p..).unwrap_or(&[]), b.get(p..).unwrap_or(&[]));
    let s = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let a = a.get(..a.len() - s).unwrap_or(&[]);
    let b = b.get(..b.len() - s).unwrap_or(&[]);
    let (n, m) = (a.len(), b.len());
    *cells += (p + s + 1) as u64;
    if n.abs_diff(m) > limit {
        return None;
    }
    if n == 0 || m == 0 {
        return Some(n.max(m));
    }
    // Cells outside the band hold `over`, which no path through them can improve on.
    let over = limit.saturating_add(1);
    let mut prev: Vec<usize> = (0..=m).map(|j| if j <= limit { j } else { over }).collect();
    let mut cur = vec![over; m + 1];
    for (i, ca) in (1..=n).zip(a) {
        let lo = i.saturating_sub(limit).max(1);
        let hi = i.saturating_add(limit).min(m);
        let first = if i <= limit { i } else { over };
        let mut row_min = first;
        if let Some(c) = cur.get_mut(0) {
            *c = first;
        }
        if let Some(c) = cur.get_mut(lo - 1).filter(|_| lo > 1) {
            *c = over;
        }
        for j in lo..=hi {
            let (Some(&diag), Some(&up), Some(&left), Some(cb)) =
                (prev.get(j - 1), prev.get(j), cur.get(j - 1), b.get(j - 1))
            else {
                continue;
            };
            let v = (diag + usize::from(ca != cb))
                .min(up + 1)
                .min(left + 1)
                .min(over);
            if let Some(c) = cur.get_mut(j) {
                *c = v;
            }
            row_min = row_min.min(v);
        }
        if let Some(c) = cur.get_mut(hi + 1) {
            *c = over;
        }
        *cells += (hi + 1).saturating_sub(lo) as u64;
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(m).copied().filter(|&d| d <= limit)
}

/// The edit limit for a word: a third of its length, at least 1, at most 3.
fn limit_for(word: &str) -> usize {
    (word.chars().count() / 3).clamp(1, 3)
}

/// The closest candidate within a third of the word's length (at least 1, at most 3 edits);
/// of equally close ones the first in byte order, so that the answer does not depend on the
/// order of the candidates (often a hash map's). For one question; to ask many against the
/// same names, build [`Names`] once.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    Names::new(candidates).closest(word)
}

/// A name as compared: lower-cased characters, and the name itself.
struct Name<'a> {
    lower: Vec<char>,
    text: &'a str,
}

/// Names indexed for suggestions: built once, asked many times.
pub struct Names<'a> {
    /// By length (of the lower-cased name), then lower-cased name, then name.
    by_length: Vec<Name<'a>>,
    /// Per length bucket of `by_length` (its range), the bucket's positions ordered by the
    /// reversed lower-cased name.
    reversed: Vec<usize>,
}

impl<'a> Names<'a> {
    pub fn new(candidates: impl IntoIterator<Item = &'a str>) -> Self {
        let mut by_length: Vec<Name<'a>> = candidates
            .into_iter()
            .map(|text| Name {
                lower: text.to_lowercase().chars().collect(),
                text,
            })
            .collect();
        by_length.sort_by(|a, b| {
            (a.lower.len(), &a.lower, a.text).cmp(&(b.lower.len(), &b.lower, b.text))
        });
        by_length.dedup_by(|a, b| a.text == b.text);
        crate::timings::work(
            crate::timings::Work::Suggestions,
            by_length.iter().map(|n| n.lower.len() as u64 + 1).sum(),
        );
        let mut reversed: Vec<usize> = (0..by_length.len()).collect();
        reversed.sort_by(|&x, &y| {
            let (Some(a), Some(b)) = (by_length.get(x), by_length.get(y)) else {
                return std::cmp::Ordering::Equal;
            };
            a.lower
                .len()
                .cmp(&b.lower.len())
                .then_with(|| a.lower.iter().rev().cmp(b.lower.iter().rev()))
                .then(x.cmp(&y))
        });
        Names {
            by_length,
            reversed,
        }
    }

    /// The closest name within the word's limit (see [`closest`]).
    pub fn closest(&self, word: &str) -> Option<&'a str> {
        let w: Vec<char> = word.to_lowercase().chars().collect();
        self.closest_within(&w, limit_for(word), None)
    }

    /// The closest name other than `except` within the word's limit.
    pub fn closest_except(&self, word: &str, except: &str) -> Option<&'a str> {
        let w: Vec<char> = word.to_lowercase().chars().collect();
        self.closest_within(&w, limit_for(word), Some(except))
    }

    /// Whether some name is at most `limit` edits from `word`.
    pub fn any_within(&self, word: &str, limit: usize) -> bool {
        let w: Vec<char> = word.to_lowercase().chars().collect();
        self.closest_within(&w, limit, None).is_some()
    }

    /// The positions (in `by_length`) of the names whose length is `len`.
    fn bucket(&self, len: usize) -> std::ops::Range<usize> {
        let from = self.by_length.partition_point(|n| n.lower.len() < len);
        let to = self.by_length.partition_point(|n| n.lower.len() <= len);
        from..to
    }

    fn closest_within(&self, w: &[char], limit: usize, except: Option<&str>) -> Option<&'a str> {
        let lengths = w.len().saturating_sub(limit)..=w.len().saturating_add(limit);
        let buckets: Vec<std::ops::Range<usize>> = lengths.map(|l| self.bucket(l)).collect();
        let total: usize = buckets.iter().map(ExactSizeIterator::len).sum();
        let mut best: Option<(usize, &'a str)> = None;
        let mut cells = 0u64;
        let mut consider = |i: usize| {
            let Some(n) = self.by_length.get(i) else {
                return;
            };
            if except == Some(n.text) {
                return;
            }
            if let Some(d) = within(w, &n.lower, limit, &mut cells) {
                if best.is_none_or(|b| (d, n.text) < b) {
                    best = Some((d, n.text));
                }
            }
        };
        if total <= EXACT_WINDOW {
            buckets.into_iter().flatten().for_each(&mut consider);
        } else {
            for b in buckets {
                let names = self.by_length.get(b.clone()).unwrap_or(&[]);
                let at = names.partition_point(|n| n.lower.as_slice() < w);
                let near = at.saturating_sub(NEIGHBOURS)..(at + NEIGHBOURS).min(names.len());
                near.for_each(|i| consider(b.start + i));
                let rev = self.reversed.get(b.clone()).unwrap_or(&[]);
                let at = rev.partition_point(|&i| {
                    self.by_length
                        .get(i)
                        .is_some_and(|n| n.lower.iter().rev().lt(w.iter().rev()))
                });
                let near = at.saturating_sub(NEIGHBOURS)..(at + NEIGHBOURS).min(rev.len());
                for k in near {
                    if let Some(&i) = rev.get(k) {
                        consider(i);
                    }
                }
            }
        }
        crate::timings::work(crate::timings::Work::Suggestions, cells + w.len() as u64);
        best.map(|(_, text)| text)
    }
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

    /// The full dynamic programme, for comparison.
    fn reference(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1];
            for (j, cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(ca != cb);
                cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn banded_distance_agrees_with_the_full_one() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "kitten",
            "sitting",
            "Saturday",
            "sunday",
            "foo.v1.0.0",
            "foo.v1.0.1",
            "foo.v10.0.0",
            "bar.v1.0.0",
            "aaaa",
            "aaab",
            "baaa",
            "abab",
            "İstanbul",
            "istanbul",
            "xxxxxxxxxxxx1",
            "yxxxxxxxxxxx2",
        ];
        for a in words {
            for b in words {
                let d = reference(a, b);
                assert_eq!(super::distance(a, b), d, "{a:?} {b:?}");
                for limit in 0..5 {
                    assert_eq!(
                        super::is_within(a, b, limit),
                        d <= limit,
                        "{a:?} {b:?} {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn many_names_are_searched_by_neighbours() {
        let names: Vec<String> = (0..5_000)
            .map(|i| format!("operator-{i:05}.v1.0.0"))
            .collect();
        let index = super::Names::new(names.iter().map(String::as_str));
        // A typo near the start and one near the end are both found among thousands.
        assert_eq!(
            index.closest("operatr-01234.v1.0.0"),
            Some("operator-01234.v1.0.0")
        );
        assert_eq!(
            index.closest("operator-01234.v1.0.9"),
            Some("operator-01234.v1.0.0")
        );
        let other = index.closest_except("operator-01234.v1.0.0", "operator-01234.v1.0.0");
        assert!(other
            .is_some_and(|o| o != "operator-01234.v1.0.0"
                && super::distance(o, "operator-01234.v1.0.0") == 1));
        assert!(index.any_within("Operator-04999.v1.0.0", 0));
        assert_eq!(index.closest("something-else-entirely"), None);
    }
}
