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
    /// A relation (`==`, `<`, `!=`, `in`, …): one more relation level; the arithmetic and
    /// member chains start again.
    fn relation(&mut self) {
        self.rel = self.rel.saturating_add(1);
        self.calc = 0;
        self.member = 0;
        self.chain = self.chain.saturating_add(1);
    }
    /// An arithmetic operator: one more arithmetic level; the member chain starts again.
    fn arithmetic(&mut self) {
        self.calc = self.calc.saturating_add(1);
        self.member = 0;
        self.chain = self.chain.saturating_add(1);
    }
    /// A selection (`.f`) or index (`[i]`) after an operand.
    fn member_link(&mut self) {
        self.member = self.member.saturating_add(1);
        self.chain = self.chain.saturating_add(1);
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
    let mut s = Scanner::new(rule);
    while s.i < s.b.len() && !s.frames.is_empty() {
        let start = s.i;
        let c = s.b.get(start).copied().unwrap_or(0);
        let next = s.b.get(start + 1).copied().unwrap_or(0);
        let Some(token) = s.token(c, next) else {
            continue;
        };
        s.after_token(c, start, token);
        if s.out.recursion_error.is_some() {
            break;
        }
    }
    s.out
}

/// What a token tells the next one.
#[derive(Clone, Copy)]
struct Token {
    /// It ends an operand (so `-` after it is binary, `[` an index, `.` a selection).
    operand: bool,
    /// It is a `,`.
    comma: bool,
}

const OPERAND: Token = Token {
    operand: true,
    comma: false,
};
const OPERATOR: Token = Token {
    operand: false,
    comma: false,
};

/// The current run of unary operators.
#[derive(Default)]
struct UnaryRun {
    /// The operator byte of the run's last operator.
    op: u8,
    /// Position of an operator not yet paired with the next one.
    open: Option<usize>,
    /// 1 while a run is going on, 0 otherwise.
    len: usize,
}

/// The scan's state: position, the open brackets (never empty: the outermost level is
/// never closed), the current unary run and what the previous token was.
struct Scanner<'a> {
    rule: &'a str,
    b: &'a [u8],
    i: usize,
    frames: Vec<Frame>,
    out: Scan,
    unary: UnaryRun,
    prev_operand: bool,
    prev_comma: bool,
    brackets: usize,
    terns: usize,
}

impl<'a> Scanner<'a> {
    fn new(rule: &'a str) -> Self {
        Scanner {
            rule,
            b: rule.as_bytes(),
            i: 0,
            frames: vec![Frame::default()],
            out: Scan {
                recursion_error: None,
                trailing_comma: None,
                stack_estimate: 0,
                mixed_unary: None,
                cancelled_unary: Vec::new(),
            },
            unary: UnaryRun::default(),
            prev_operand: false,
            prev_comma: false,
            brackets: 0,
            terns: 0,
        }
    }

    fn on_top(&mut self, f: impl FnOnce(&mut Frame)) {
        if let Some(top) = self.frames.last_mut() {
            f(top);
        }
    }

    /// Consumes the token starting with `c` (followed by `next`); `None` for whitespace and
    /// comments.
    fn token(&mut self, c: u8, next: u8) -> Option<Token> {
        let token = match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                self.i += 1;
                return None;
            }
            b'/' if next == b'/' => {
                while self.i < self.b.len() && self.b.get(self.i) != Some(&b'\n') {
                    self.i += 1;
                }
                return None;
            }
            b'"' | b'\'' => {
                self.i = skip_string(self.b, self.i, false);
                OPERAND
            }
            b'`' => {
                self.i += 1;
                while self.i < self.b.len() && self.b.get(self.i) != Some(&b'`') {
                    self.i += 1;
                }
                self.i += 1;
                OPERAND
            }
            c if c.is_ascii_alphabetic() || c == b'_' => self.word(),
            c if c.is_ascii_digit()
                || (c == b'.' && next.is_ascii_digit() && !self.prev_operand) =>
            {
                self.number();
                OPERAND
            }
            b'(' | b'[' | b'{' => {
                self.open_bracket(c);
                OPERATOR
            }
            b')' | b']' | b'}' => {
                self.close_bracket(c);
                OPERAND
            }
            b'&' | b'|' => {
                self.on_top(|top| {
                    top.reset_chains();
                    top.chain = top.chain.saturating_add(1);
                });
                self.i += if next == c { 2 } else { 1 };
                OPERATOR
            }
            b',' | b':' => {
                self.on_top(Frame::reset_chains);
                self.i += 1;
                Token {
                    operand: false,
                    comma: c == b',',
                }
            }
            b'?' => {
                self.on_top(|top| {
                    top.tern = top.tern.saturating_add(1);
                    top.reset_chains();
                });
                self.terns += 1;
                self.i += 1;
                OPERATOR
            }
            b'=' | b'<' | b'>' => {
                self.on_top(Frame::relation);
                self.i += if next == b'=' { 2 } else { 1 };
                OPERATOR
            }
            b'!' if next == b'=' => {
                self.on_top(Frame::relation);
                self.i += 2;
                OPERATOR
            }
            b'!' | b'-' if c == b'!' || !self.prev_operand => {
                self.unary(c);
                OPERATOR
            }
            b'+' | b'-' | b'*' | b'/' | b'%' => {
                self.on_top(Frame::arithmetic);
                self.i += 1;
                OPERATOR
            }
            b'.' => {
                if self.prev_operand {
                    self.on_top(Frame::member_link);
                }
                self.i += 1;
                OPERATOR
            }
            _ => {
                // Non-ASCII or unknown byte: the lexer reports it.
                self.i += 1;
                OPERATOR
            }
        };
        Some(token)
    }

    /// An identifier, the keyword `in` (a relation), or a string with an `r`/`b` prefix.
    fn word(&mut self) -> Token {
        let start = self.i;
        // String prefixes r, b, rb, br (any case).
        let mut j = start;
        let mut raw = false;
        while j < self.b.len() && j - start < 2 {
            match self.b.get(j).map(u8::to_ascii_lowercase) {
                Some(b'r') => raw = true,
                Some(b'b') => {}
                _ => break,
            }
            j += 1;
        }
        if j > start && matches!(self.b.get(j), Some(b'"') | Some(b'\'')) {
            self.i = skip_string(self.b, j, raw);
            return OPERAND;
        }
        while self.i < self.b.len()
            && self
                .b
                .get(self.i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.i += 1;
        }
        if self.rule.get(start..self.i) == Some("in") {
            self.on_top(Frame::relation);
            OPERATOR
        } else {
            OPERAND
        }
    }

    /// A number literal: digits, hex digits, a fraction, an exponent with its sign, a `u`.
    fn number(&mut self) {
        let start = self.i;
        self.i += 1;
        while let Some(&d) = self.b.get(self.i) {
            let exp_sign = (d == b'+' || d == b'-')
                && matches!(self.b.get(self.i - 1), Some(b'e') | Some(b'E'))
                && !self
                    .rule
                    .get(start..self.i)
                    .is_some_and(|s| s.contains(['x', 'X']));
            let frac = d == b'.' && self.b.get(self.i + 1).is_some_and(u8::is_ascii_digit);
            if d.is_ascii_alphanumeric() || d == b'_' || frac || exp_sign {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// `(`, `[` or `{`: a new nesting level on top of the current one (`[` after an operand
    /// is an index, a link of the member chain).
    fn open_bracket(&mut self, c: u8) {
        if c == b'[' && self.prev_operand {
            self.on_top(Frame::member_link);
        }
        let base = self.frames.last().map(Frame::totals).unwrap_or_default();
        self.frames.push(Frame {
            base,
            paren: c == b'(',
            ..Frame::default()
        });
        self.brackets += 1;
        self.i += 1;
    }

    /// `)`, `]` or `}`: closes the innermost level (`f(a,)` noted on the way).
    fn close_bracket(&mut self, c: u8) {
        let paren = self.frames.last().is_some_and(|f| f.paren);
        if c == b')' && self.prev_comma && paren && self.out.trailing_comma.is_none() {
            self.out.trailing_comma = Some(self.i);
        }
        if self.frames.len() > 1 {
            if let Some(f) = self.frames.pop() {
                self.terns = self.terns.saturating_sub(f.tern as usize);
            }
            self.brackets = self.brackets.saturating_sub(1);
        }
        self.i += 1;
    }

    /// A unary `!` or `-`: mixing them in one run is an error; repeated ones cancel in pairs.
    fn unary(&mut self, c: u8) {
        if self.unary.len > 0 && self.unary.op != c && self.out.mixed_unary.is_none() {
            self.out.mixed_unary = Some(self.i);
        }
        self.unary.op = c;
        match self.unary.open.take() {
            Some(first) => {
                self.out.cancelled_unary.push(first);
                self.out.cancelled_unary.push(self.i);
            }
            None => self.unary.open = Some(self.i),
        }
        self.unary.len = 1;
        self.i += 1;
    }

    /// After the token that started at `start` with `c`: the unary run ends unless it was a
    /// unary operator, and the depth and stack estimate are measured.
    fn after_token(&mut self, c: u8, start: usize, token: Token) {
        if !(c == b'!' || (c == b'-' && !self.prev_operand)) {
            self.unary.len = 0;
            self.unary.open = None;
        }
        self.prev_operand = token.operand;
        self.prev_comma = token.comma;
        let Some(top) = self.frames.last() else {
            return;
        };
        let depth = top.totals().into_iter().max().unwrap_or(0);
        if depth > MAX_RECURSION && self.out.recursion_error.is_none() {
            self.out.recursion_error = Some((
                format!("expression recursion limit exceeded: {MAX_RECURSION}"),
                start,
            ));
        }
        let chain = self
            .frames
            .iter()
            .map(|f| f.chain as usize)
            .max()
            .unwrap_or(0);
        let est = self.brackets * STACK_PER_BRACKET
            + self.unary.len * STACK_PER_UNARY
            + self.terns * STACK_PER_TERNARY
            + chain * STACK_PER_CHAIN_LINK;
        self.out.stack_estimate = self.out.stack_estimate.max(est);
    }
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
