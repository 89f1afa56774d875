//! Linear, non-recursive pre-scan of a rule before it reaches cel-core's recursive parser.
//!
//! It approximates cel-go's parser limits (100,000 code points; the ANTLR listener's
//! per-rule recursion depth of 250) and estimates how much stack the recursive passes will
//! need, so deep-but-legal rules can be compiled on a thread with a larger stack.

/// cel-go `expressionSizeCodePointLimit`.
pub(super) const MAX_CODE_POINTS: usize = 100_000;
/// cel-go `maxRecursionDepth`.
pub(super) const MAX_RECURSION: u32 = 250;

pub(super) struct Scan {
    /// `(message, byte offset)` when the recursion limit is exceeded.
    pub recursion_error: Option<(String, usize)>,
    /// Byte offset of a `)` that closes a call with a trailing comma (`f(a,)`).
    pub trailing_comma: Option<usize>,
    /// Rough upper bound of the stack the recursive passes need, in bytes.
    pub stack_estimate: usize,
    /// Byte offset where `!` and `-` are mixed in one unary run (`!-x`, a cel-go syntax
    /// error).
    pub mixed_unary: Option<usize>,
    /// Byte offsets of unary operators that cancel out in pairs (cel-go drops an even
    /// number of repeated `!`/`-`); blanking them keeps spans and bounds parser recursion.
    pub cancelled_unary: Vec<usize>,
}

// Stack cost per nesting level, measured on debug builds (release needs ~5x less).
const STACK_PER_BRACKET: usize = 40 * 1024;
const STACK_PER_UNARY: usize = 6 * 1024;
const STACK_PER_TERNARY: usize = 12 * 1024;
const STACK_PER_CHAIN_LINK: usize = 512;

#[derive(Clone, Copy, Default)]
struct Frame {
    /// Totals (relation, calc, member) contributed by the frames below.
    base: [u32; 3],
    tern: u32,
    rel: u32,
    calc: u32,
    member: u32,
    chain: u32,
    paren: bool,
}

impl Frame {
    /// Open ANTLR contexts per left-recursive rule type in this frame.
    fn totals(&self) -> [u32; 3] {
        let open = |k: u32| if k == 0 { 1 } else { k.saturating_add(2) };
        [
            self.base[0]
                .saturating_add(self.tern)
                .saturating_add(open(self.rel)),
            self.base[1]
                .saturating_add(self.tern)
                .saturating_add(open(self.calc)),
            self.base[2]
                .saturating_add(self.tern)
                .saturating_add(1)
                .saturating_add(self.member),
        ]
    }
    fn reset_chains(&mut self) {
        self.rel = 0;
        self.calc = 0;
        self.member = 0;
    }
}

/// Returns the index just past a string literal starting at `i` (after any `r`/`b` prefix).
fn skip_string(b: &[u8], mut i: usize, raw: bool) -> usize {
    let Some(&q) = b.get(i) else { return i };
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    i += if triple { 3 } else { 1 };
    while let Some(&c) = b.get(i) {
        if c == b'\\' && !raw {
            i += 2;
            continue;
        }
        if c == q {
            if !triple {
                return i + 1;
            }
            if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                return i + 3;
            }
        }
        if c == b'\n' && !triple {
            return i;
        }
        i += 1;
    }
    i
}

pub(super) fn scan(rule: &str) -> Scan {
    let b = rule.as_bytes();
    let mut frames: Vec<Frame> = vec![Frame::default()];
    let mut out = Scan {
        recursion_error: None,
        trailing_comma: None,
        stack_estimate: 0,
        mixed_unary: None,
        cancelled_unary: Vec::new(),
    };
    // Current unary run: operator byte and positions not yet paired.
    let mut run_op = 0u8;
    let mut run_open: Option<usize> = None;
    let mut prev_operand = false;
    let mut prev_comma = false;
    let mut unary_run: usize = 0;
    let mut brackets: usize = 0;
    let mut terns: usize = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b.get(i).copied().unwrap_or(0);
        let next = b.get(i + 1).copied().unwrap_or(0);
        let start = i;
        let mut operand = false;
        let mut comma = false;
        let Some(top) = frames.last_mut() else { break };
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if next == b'/' => {
                while i < b.len() && b.get(i) != Some(&b'\n') {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                i = skip_string(b, i, false);
                operand = true;
            }
            b'`' => {
                i += 1;
                while i < b.len() && b.get(i) != Some(&b'`') {
                    i += 1;
                }
                i += 1;
                operand = true;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                // String prefixes r, b, rb, br (any case).
                let mut j = i;
                let mut raw = false;
                while j < b.len() && j - i < 2 {
                    match b.get(j).map(u8::to_ascii_lowercase) {
                        Some(b'r') => raw = true,
                        Some(b'b') => {}
                        _ => break,
                    }
                    j += 1;
                }
                if j > i && matches!(b.get(j), Some(b'"') | Some(b'\'')) {
                    i = skip_string(b, j, raw);
                    operand = true;
                } else {
                    while i < b.len()
                        && b.get(i)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        i += 1;
                    }
                    if rule.get(start..i) == Some("in") {
                        top.rel = top.rel.saturating_add(1);
                        top.calc = 0;
                        top.member = 0;
                        top.chain = top.chain.saturating_add(1);
                    } else {
                        operand = true;
                    }
                }
            }
            c if c.is_ascii_digit() || (c == b'.' && next.is_ascii_digit() && !prev_operand) => {
                i += 1;
                while let Some(&d) = b.get(i) {
                    let exp_sign = (d == b'+' || d == b'-')
                        && matches!(b.get(i - 1), Some(b'e') | Some(b'E'))
                        && !rule.get(start..i).is_some_and(|s| s.contains(['x', 'X']));
                    let frac = d == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
                    if d.is_ascii_alphanumeric() || d == b'_' || frac || exp_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                operand = true;
            }
            b'(' | b'[' | b'{' => {
                if c == b'[' && prev_operand {
                    top.member = top.member.saturating_add(1);
                    top.chain = top.chain.saturating_add(1);
                }
                let t = top.totals();
                frames.push(Frame {
                    base: t,
                    paren: c == b'(',
                    ..Frame::default()
                });
                brackets += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                if c == b')' && prev_comma && top.paren && out.trailing_comma.is_none() {
                    out.trailing_comma = Some(i);
                }
                if frames.len() > 1 {
                    if let Some(f) = frames.pop() {
                        terns = terns.saturating_sub(f.tern as usize);
                    }
                    brackets = brackets.saturating_sub(1);
                }
                i += 1;
                operand = true;
            }
            b'&' | b'|' => {
                top.reset_chains();
                top.chain = top.chain.saturating_add(1);
                i += if next == c { 2 } else { 1 };
            }
            b',' | b':' => {
                top.reset_chains();
                comma = c == b',';
                i += 1;
            }
            b'?' => {
                top.tern = top.tern.saturating_add(1);
                terns += 1;
                top.reset_chains();
                i += 1;
            }
            b'=' | b'<' | b'>' => {
                top.rel = top.rel.saturating_add(1);
                top.calc = 0;
                top.member = 0;
                top.chain = top.chain.saturating_add(1);
                i += if next == b'=' { 2 } else { 1 };
            }
            b'!' if next == b'=' => {
                top.rel = top.rel.saturating_add(1);
                top.calc = 0;
                top.member = 0;
                top.chain = top.chain.saturating_add(1);
                i += 2;
            }
            b'!' | b'-' if c == b'!' || !prev_operand => {
                if unary_run > 0 && run_op != c && out.mixed_unary.is_none() {
                    out.mixed_unary = Some(i);
                }
                run_op = c;
                match run_open.take() {
                    Some(first) => {
                        out.cancelled_unary.push(first);
                        out.cancelled_unary.push(i);
                    }
                    None => run_open = Some(i),
                }
                unary_run = 1;
                i += 1;
            }
            b'+' | b'-' | b'*' | b'/' | b'%' => {
                top.calc = top.calc.saturating_add(1);
                top.member = 0;
                top.chain = top.chain.saturating_add(1);
                i += 1;
            }
            b'.' => {
                if prev_operand {
                    top.member = top.member.saturating_add(1);
                    top.chain = top.chain.saturating_add(1);
                }
                i += 1;
            }
            _ => {
                // Non-ASCII or unknown byte: the lexer reports it.
                i += 1;
            }
        }
        if !(c == b'!' || (c == b'-' && !prev_operand)) {
            unary_run = 0;
            run_open = None;
        }
        prev_operand = operand;
        prev_comma = comma;
        if let Some(top) = frames.last() {
            let depth = top.totals().into_iter().max().unwrap_or(0);
            if depth > MAX_RECURSION && out.recursion_error.is_none() {
                out.recursion_error = Some((
                    format!("expression recursion limit exceeded: {MAX_RECURSION}"),
                    start,
                ));
            }
            let chain = frames.iter().map(|f| f.chain as usize).max().unwrap_or(0);
            let est = brackets * STACK_PER_BRACKET
                + unary_run * STACK_PER_UNARY
                + terns * STACK_PER_TERNARY
                + chain * STACK_PER_CHAIN_LINK;
            out.stack_estimate = out.stack_estimate.max(est);
        }
        if out.recursion_error.is_some() {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(s: &str) -> bool {
        scan(s).recursion_error.is_none()
    }

    #[test]
    fn parens_limit_near_250() {
        let ok = format!("{}1{}", "(".repeat(240), ")".repeat(240));
        assert!(depth_ok(&ok));
        let bad = format!("{}1{}", "(".repeat(260), ")".repeat(260));
        assert!(!depth_ok(&bad));
    }

    #[test]
    fn chains() {
        assert!(depth_ok(&vec!["1"; 200].join(" + ")));
        assert!(!depth_ok(&vec!["1"; 300].join(" + ")));
        assert!(!depth_ok(&format!("a{}", ".b".repeat(300))));
        // `&&` chains are flat in cel-go.
        assert!(depth_ok(&vec!["true"; 5000].join(" && ")));
    }

    #[test]
    fn strings_and_comments_are_skipped() {
        let s = format!(
            "'{}' == \"(((\" // ((((\n && r'''{}'''",
            "(".repeat(400),
            "[".repeat(400)
        );
        let sc = scan(&s);
        assert!(sc.recursion_error.is_none());
        assert!(sc.stack_estimate < 100_000);
    }

    #[test]
    fn unary_runs() {
        let sc = scan("!!!!x");
        assert_eq!(sc.cancelled_unary, vec![0, 1, 2, 3]);
        assert!(sc.mixed_unary.is_none());
        let sc = scan("a - --1");
        assert_eq!(sc.cancelled_unary, vec![4, 5]);
        assert_eq!(scan("!-x").mixed_unary, Some(1));
        assert!(scan("a != !b").mixed_unary.is_none());
    }

    #[test]
    fn trailing_comma() {
        assert!(scan("f(a, b,)").trailing_comma.is_some());
        assert!(scan("[a, b,]").trailing_comma.is_none());
        assert!(scan("f(a, b)").trailing_comma.is_none());
    }
}
