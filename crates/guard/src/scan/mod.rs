//! L1: finding credentials in text before it leaves the machine.
//!
//! One Aho-Corasick pass over the text looks for every rule's keywords at once; only the lines
//! (or, for private keys, the blocks) around a keyword are given to that rule's pattern, so clean
//! text costs one linear pass. Each match is then checked (entropy, the allowlist of shapes that
//! look like credentials and are not) and reported with its rule, line, column and byte span,
//! and the secret redacted: no finding ever carries the whole secret.

mod allow;
pub mod diff;
mod encoded;
mod rules;
mod wide;

use std::sync::OnceLock;

use aho_corasick::automaton::{Automaton as _, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use rayon::prelude::*;
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;

use self::allow::{
    decode_base64, decode_hex, entropy, is_base64_credentials, is_not_a_secret_key,
    is_not_a_secret_value, is_placeholder, redact,
};
use self::rules::{Check, RULES, Reach, Rule};

/// How every redaction marker [`Scanner::redact`] writes begins. Content holding one is refused by
/// the writing primitives: written back, it would replace the secret it stands for.
pub const REDACTION_MARKER: &str = "[nodwyn: redacted ";

/// How much of a file's start decides whether it is binary (see [`looks_binary`]).
pub const BINARY_PROBE: usize = 8192;

/// Whether bytes starting a file are a binary file's: a NUL among the first [`BINARY_PROBE`]
/// bytes, git's own test. Scans and text reads pass such files over.
pub fn looks_binary(start: &[u8]) -> bool {
    start[..start.len().min(BINARY_PROBE)].contains(&0)
}

/// How far past its keyword's line a block rule (a private key) may reach.
const BLOCK_REACH: usize = 16 * 1024;

/// How far either side of its keyword a line rule may look.
const LINE_REACH: usize = 1024;

/// One credential found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule that found it, such as `github-pat`.
    pub rule: &'static str,
    /// 1-based line of the secret's first byte.
    pub line: usize,
    /// 1-based column (in bytes) of the secret's first byte.
    pub column: usize,
    /// Byte offset of the secret's first byte.
    pub start: usize,
    /// Byte offset just past the secret.
    pub end: usize,
    /// The secret with all but its first characters hidden.
    pub redacted: String,
}

struct Compiled {
    rule: &'static Rule,
    /// Compiled on first use: most inputs meet only a few rules' keywords, and compiling all 60
    /// patterns up front costs a short-lived process (a landing's scan) more than its scan.
    regex: OnceLock<Regex>,
}

impl Compiled {
    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            // Byte-oriented: ASCII classes and case folding are all the rules need, and much
            // faster than Unicode's.
            RegexBuilder::new(self.rule.pattern)
                .unicode(false)
                .build()
                .unwrap_or_else(|e| panic!("rule {} does not compile: {e}", self.rule.id))
        })
    }
}

thread_local! {
    /// This thread's own copy of each rule's pattern (by the rule's place in [`RULES`]), made
    /// from the scanner's on first use. A pattern keeps the memory its searches need in a pool
    /// whose first user takes it without a lock; every other thread locked it for each search,
    /// which cost 3.6% of a scan on two cores. Every scanner compiles the same patterns from the
    /// same table the same way, so a copy serves any of them.
    static PATTERNS: std::cell::RefCell<Vec<Option<Regex>>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// The L1 scanner: every rule, compiled once.
pub struct Scanner {
    rules: Vec<Compiled>,
    /// Every rule's keywords, as one automaton walked a byte at a time (see
    /// [`Scanner::keyword_spans`]).
    automaton: DFA,
    /// For each of the automaton's keywords, the rules whose keyword it is.
    rules_of_keyword: Vec<Vec<usize>>,
}

impl Scanner {
    /// A scanner of every rule (each rule's pattern is compiled the first time its keyword is
    /// met).
    pub fn new() -> Self {
        let rules: Vec<Compiled> = RULES
            .iter()
            .map(|rule| Compiled {
                rule,
                regex: OnceLock::new(),
            })
            .collect();
        let mut keywords: Vec<&'static str> = Vec::new();
        let mut rules_of_keyword: Vec<Vec<usize>> = Vec::new();
        for (index, compiled) in rules.iter().enumerate() {
            for keyword in compiled.rule.keywords {
                match keywords.iter().position(|k| k == keyword) {
                    Some(at) => rules_of_keyword[at].push(index),
                    None => {
                        keywords.push(keyword);
                        rules_of_keyword.push(vec![index]);
                    }
                }
            }
        }
        // No prefilter: nearly every line of code holds a keyword's first byte, and the walk
        // below reads each byte once anyway.
        let automaton = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .build(&keywords)
            .expect("the keywords build an automaton");
        Self {
            rules,
            automaton,
            rules_of_keyword,
        }
    }

    /// The scanner shared by the whole process.
    pub fn global() -> &'static Scanner {
        static SCANNER: OnceLock<Scanner> = OnceLock::new();
        SCANNER.get_or_init(Scanner::new)
    }

    /// The ids of every rule, for documentation and reports.
    pub fn rule_ids() -> impl Iterator<Item = &'static str> {
        RULES.iter().map(|r| r.id)
    }

    /// `text` with every credential in it replaced by a marker naming its rule and length
    /// (`[nodwyn: redacted github-pat, 40 chars]`, starting [`REDACTION_MARKER`]), for text shown
    /// where the secret must not go.
    pub fn redact(&self, text: &str) -> String {
        let mut redacted = String::with_capacity(text.len());
        let mut at = 0;
        for finding in self.scan(text.as_bytes()) {
            let (Some(before), Some(secret)) = (
                text.get(at..finding.start),
                text.get(finding.start..finding.end),
            ) else {
                continue;
            };
            redacted.push_str(before);
            redacted.push_str(&format!(
                "{REDACTION_MARKER}{}, {} chars]",
                finding.rule,
                secret.chars().count()
            ));
            at = finding.end;
        }
        redacted.push_str(text.get(at..).unwrap_or_default());
        redacted
    }

    /// Every credential in `text`, in order of position. A large text is cut into line-aligned
    /// chunks scanned on every core; a pattern's window still reads past its chunk's end, so a
    /// private key block that crosses a cut is found whole.
    pub fn scan(&self, text: &[u8]) -> Vec<Finding> {
        const CHUNK: usize = 1 << 20;
        let spans = if text.len() <= 2 * CHUNK {
            self.spans_in(text, 0, text.len())
        } else {
            chunks(text, CHUNK)
                .into_par_iter()
                .flat_map_iter(|(from, to)| self.spans_in(text, from, to))
                .collect()
        };
        self.findings(text, spans)
    }

    /// The matches whose keyword starts in `text[from..to]` (`to` is a line end).
    ///
    /// A line rule looks at its keyword's line, but never more than [`LINE_REACH`] bytes either
    /// side of the keyword: a credential sits next to its keyword, and a megabyte-long line (a
    /// minified bundle, or a file made to stall the scan) must not cost a pattern run over all of
    /// it for every keyword in it.
    fn spans_in(&self, text: &[u8], from: usize, to: usize) -> Vec<(usize, usize, usize)> {
        let mut spans = self.keyword_spans(text, from, to);
        let found_plainly = spans.clone();
        spans.extend(
            self.encoded_spans(text, from, to)
                .into_iter()
                .filter(|(s, e, _)| !found_plainly.iter().any(|(ps, pe, _)| s < pe && ps < e)),
        );
        // Only text with a zero byte can be UTF-16.
        if memchr::memchr(0, &text[from..to]).is_some() {
            spans.extend(self.wide_spans(text, from, to));
        }
        spans
    }

    /// The credentials in UTF-16 text in `text[from..to]`, each span covering the credential's
    /// own bytes (two a character).
    fn wide_spans(&self, text: &[u8], from: usize, to: usize) -> Vec<(usize, usize, usize)> {
        let mut spans = Vec::new();
        for (start, _, characters) in wide::runs(&text[from..to]) {
            let at = |character: usize| from + start + 2 * character;
            for (s, e, index) in self.keyword_spans(&characters, 0, characters.len()) {
                spans.push((at(s), at(e), index));
            }
        }
        spans
    }

    /// The credentials hidden in base64 or hex runs of `text[from..to]`: each run long enough to
    /// hold a key is decoded, and when what it decodes to is text, that text is scanned (one
    /// level deep). A finding covers the whole run, under the rule that found what it hides.
    fn encoded_spans(&self, text: &[u8], from: usize, to: usize) -> Vec<(usize, usize, usize)> {
        let mut spans = Vec::new();
        for (start, end, decoded) in encoded::runs(&text[from..to]) {
            let Some(decoded) = decoded else {
                continue;
            };
            let inner = self.keyword_spans(&decoded, 0, decoded.len());
            // A provider's own rule names it better than the generic assignment.
            let specific = inner
                .iter()
                .find(|(_, _, i)| self.rules[*i].rule.check != Check::Assignment)
                .or(inner.first());
            if let Some((_, _, index)) = specific {
                spans.push((from + start, from + end, *index));
            }
        }
        spans
    }

    /// The matches whose keyword lies in `text[from..to]`, read as it is.
    ///
    /// Every keyword (overlapping ones too) is taken in the order the library's overlapping
    /// iterator gives them, from [`keyword_ends`]' walk of the automaton, which does what that
    /// iterator does in half the instructions a byte and four times the steps at once.
    fn keyword_spans(&self, text: &[u8], from: usize, to: usize) -> Vec<(usize, usize, usize)> {
        let mut spans = Vec::new();
        // Where each rule's last window ended: a keyword inside it has been looked at already.
        let mut covered_until = vec![0usize; self.rules.len()];
        let automaton = &self.automaton;
        for (end, state) in keyword_ends(automaton, &text[from..to]) {
            let end = from + end;
            for found in 0..automaton.match_len(state) {
                let keyword = automaton.match_pattern(state, found);
                let start = end - automaton.pattern_len(keyword);
                self.keyword_met(
                    text,
                    (start, end),
                    keyword.as_usize(),
                    &mut covered_until,
                    &mut spans,
                );
            }
        }
        spans
    }

    /// Runs the patterns of the rules whose keyword is at `text[start..end]` on its line (or
    /// block), unless that rule's last window already covered it.
    fn keyword_met(
        &self,
        text: &[u8],
        (start, end): (usize, usize),
        keyword: usize,
        covered_until: &mut [usize],
        spans: &mut Vec<(usize, usize, usize)>,
    ) {
        // Found only when a rule needs it: a keyword seen again on its line costs nothing more.
        let mut line = None;
        for &index in &self.rules_of_keyword[keyword] {
            if start < covered_until[index] {
                continue;
            }
            let (line_start, line_end) = *line.get_or_insert_with(|| {
                let reach_back = start.saturating_sub(LINE_REACH);
                let line_start = memchr::memrchr(b'\n', &text[reach_back..start])
                    .map_or(reach_back, |i| reach_back + i + 1);
                let reach_forward = (end + LINE_REACH).min(text.len());
                let line_end = memchr::memchr(b'\n', &text[end..reach_forward])
                    .map_or(reach_forward, |i| end + i);
                (line_start, line_end)
            });
            let compiled = &self.rules[index];
            if let Some(byte) = compiled.rule.needs_after
                && memchr::memchr(byte, &text[end..line_end]).is_none()
            {
                continue;
            }
            let window_end = match compiled.rule.reach {
                Reach::Line => line_end,
                Reach::Block => (line_start + BLOCK_REACH).min(text.len()),
            };
            covered_until[index] = line_end;
            self.match_window(compiled, index, text, line_start, window_end, spans);
        }
    }

    fn match_window(
        &self,
        compiled: &Compiled,
        index: usize,
        text: &[u8],
        window_start: usize,
        window_end: usize,
        spans: &mut Vec<(usize, usize, usize)>,
    ) {
        PATTERNS.with_borrow_mut(|patterns| {
            if patterns.len() < self.rules.len() {
                patterns.resize(self.rules.len(), None);
            }
            let regex = patterns[index].get_or_insert_with(|| compiled.regex().clone());
            self.match_with(
                regex,
                compiled,
                index,
                text,
                (window_start, window_end),
                spans,
            );
        });
    }

    /// [`Scanner::match_window`] with this thread's copy of the rule's pattern.
    fn match_with(
        &self,
        regex: &Regex,
        compiled: &Compiled,
        index: usize,
        text: &[u8],
        (window_start, window_end): (usize, usize),
        spans: &mut Vec<(usize, usize, usize)>,
    ) {
        let assignment = compiled.rule.check == Check::Assignment;
        // An assignment's match starts with its key, and its pattern looks at nothing before the
        // match: the search starts at the window's first key byte (past the indentation).
        let window_start = if assignment {
            text[window_start..window_end]
                .iter()
                .position(|&b| is_key_byte(b))
                .map_or(window_end, |skip| window_start + skip)
        } else {
            window_start
        };
        let window = &text[window_start..window_end];
        // The matcher without captures finds each match fastest. An assignment's key and value
        // are read off its match (see [`assignment_value`]); captures (a slower engine) run only
        // for the other rules' matches, which are rare.
        for found in regex.find_iter(window) {
            let (key, secret) = if assignment {
                let key = assignment_key(found.as_bytes());
                if is_not_a_secret_key(&String::from_utf8_lossy(key)) {
                    continue;
                }
                let value = assignment_value(found.as_bytes());
                let secret = found.end() - value.len()..found.end();
                debug_assert_eq!(
                    regex.captures_at(window, found.start()).map(|c| (
                        c.name("k").map(|k| k.range()),
                        c.name("s").map(|s| s.range())
                    )),
                    Some((
                        Some(found.start()..found.start() + key.len()),
                        Some(secret.clone())
                    )),
                    "the assignment read off its match differs from its captures",
                );
                (Some(key), secret)
            } else {
                let Some(captures) = regex.captures_at(window, found.start()) else {
                    continue;
                };
                let Some(secret) = captures.name("s") else {
                    continue;
                };
                (
                    captures.name("k").map(|k| &window[k.range()]),
                    secret.range(),
                )
            };
            // Text a format string builds (`"pypi-AgEI...{}"`): the hole right after it says
            // the credential is not written here.
            let after = &window[secret.end..];
            if [&b"{}"[..], b"{0", b"{1", b"%s", b"%v"]
                .iter()
                .any(|hole| after.starts_with(hole))
            {
                continue;
            }
            let mut bytes = &window[secret.clone()];
            if assignment {
                // `TOKEN = MonitorTokens(1)`: a value that is called is code.
                if after.first() == Some(&b'(') {
                    continue;
                }
                // `password=...&grant_type=...`: a query string's value ends at the next
                // parameter.
                bytes = allow::query_value(bytes);
            }
            let value = String::from_utf8_lossy(bytes);
            let key = key.map(String::from_utf8_lossy);
            if accepts(compiled.rule.check, &value, key.as_deref()) {
                spans.push((
                    window_start + secret.start,
                    window_start + secret.start + bytes.len(),
                    index,
                ));
            }
        }
    }

    /// Orders the matches, drops repeats and generic matches that a specific rule also found,
    /// and numbers lines in one forward pass.
    fn findings(&self, text: &[u8], mut spans: Vec<(usize, usize, usize)>) -> Vec<Finding> {
        spans.sort_unstable();
        spans.dedup();
        let generic = |index: usize| self.rules[index].rule.check == Check::Assignment;
        let specific: Vec<(usize, usize)> = spans
            .iter()
            .filter(|(_, _, i)| !generic(*i))
            .map(|(s, e, _)| (*s, *e))
            .collect();
        spans.retain(|(start, end, index)| {
            !generic(*index) || !specific.iter().any(|(s, e)| start < e && s < end)
        });
        let (mut line, mut line_start, mut cursor) = (1, 0, 0);
        spans
            .into_iter()
            .map(|(start, end, index)| {
                // Counted by memchr's vector count: stopping at each of a large text's line
                // ends cost a twentieth of the scan's instructions, all after its parallel part.
                let between = &text[cursor..start];
                line += memchr::memchr_iter(b'\n', between).count();
                if let Some(last) = memchr::memrchr(b'\n', between) {
                    line_start = cursor + last + 1;
                }
                cursor = start;
                Finding {
                    rule: self.rules[index].rule.id,
                    line,
                    column: start - line_start + 1,
                    start,
                    end,
                    // UTF-16 text is shown by its characters, without their zero bytes.
                    redacted: redact(&String::from_utf8_lossy(&text[start..end]).replace('\0', "")),
                }
            })
            .collect()
    }
}

impl Default for Scanner {
    fn default() -> Self {
        Self::new()
    }
}

/// How many stretches of a text the keyword automaton walks at once (see [`keyword_ends`]).
const STREAMS: usize = 4;

/// Where keywords end in `text` (just past their last byte), in order, with the automaton's
/// match state there, which names them.
///
/// Each step of the automaton waits for the one before (the next state is read from a table at
/// the current one), so one walk leaves the core idle most of each step. The text is cut into
/// [`STREAMS`] stretches walked side by side, each from the start state a longest keyword's
/// length before its stretch begins and keeping only the ends inside its stretch: a keyword
/// ending there starts after that point, and the state there is the one a single walk from the
/// text's start would reach (a state stands for the longest text just read that begins some
/// keyword, never longer than a keyword), so every end is found once, with the same state.
fn keyword_ends(automaton: &DFA, text: &[u8]) -> Vec<(usize, StateID)> {
    let Ok(start) = automaton.start_state(Anchored::No) else {
        return Vec::new();
    };
    let overlap = automaton.max_pattern_len().saturating_sub(1);
    if text.len() < STREAMS * 4 * (overlap + 1) {
        let mut ends = Vec::new();
        walk(automaton, text, 0, start, &mut ends);
        return ends;
    }
    // Stretch `i` is `text[bounds[i]..bounds[i + 1]]`, walked from `from[i]`.
    let bounds: [usize; STREAMS + 1] = std::array::from_fn(|i| text.len() * i / STREAMS);
    let from: [usize; STREAMS] = std::array::from_fn(|i| bounds[i].saturating_sub(overlap));
    let steps = (0..STREAMS)
        .map(|i| bounds[i + 1] - from[i])
        .min()
        .unwrap_or(0);
    let mut states = [start; STREAMS];
    let mut ends: [Vec<(usize, StateID)>; STREAMS] = std::array::from_fn(|_| Vec::new());
    side_by_side(automaton, text, from, steps, &mut states, &mut ends);
    let mut all = Vec::new();
    for i in 0..STREAMS {
        let done = from[i] + steps;
        walk(
            automaton,
            &text[done..bounds[i + 1]],
            done,
            states[i],
            &mut ends[i],
        );
        all.extend(
            ends[i]
                .iter()
                .filter(|(end, state)| *end > bounds[i] && automaton.is_match(*state)),
        );
    }
    all
}

/// The steps [`keyword_ends`] takes in all its stretches at once: `steps` bytes of `text` from
/// each of `from`, each stretch's ends added to its own list. One branch a step (on whether any
/// stretch is at a special state, rare) and the four byte iterators zipped leave no bounds check
/// on the bytes and keep the four states in registers.
#[inline(never)]
fn side_by_side(
    automaton: &DFA,
    text: &[u8],
    from: [usize; STREAMS],
    steps: usize,
    states: &mut [StateID; STREAMS],
    ends: &mut [Vec<(usize, StateID)>; STREAMS],
) {
    let [a, b, c, d] = from.map(|at| text[at..at + steps].iter());
    let mut state = *states;
    for (step, (((&a, &b), &c), &d)) in a.zip(b).zip(c).zip(d).enumerate() {
        state = [
            automaton.next_state(Anchored::No, state[0], a),
            automaton.next_state(Anchored::No, state[1], b),
            automaton.next_state(Anchored::No, state[2], c),
            automaton.next_state(Anchored::No, state[3], d),
        ];
        if state.iter().any(|&s| automaton.is_special(s)) {
            for i in 0..STREAMS {
                if automaton.is_special(state[i]) {
                    ends[i].push((from[i] + step + 1, state[i]));
                }
            }
        }
    }
    *states = state;
}

/// Walks the keyword automaton over `text` (which starts at `offset`) from `state`, adding
/// where each keyword ends to `ends` (see [`keyword_ends`]).
fn walk(
    automaton: &DFA,
    text: &[u8],
    offset: usize,
    mut state: StateID,
    ends: &mut Vec<(usize, StateID)>,
) {
    for (at, &byte) in text.iter().enumerate() {
        state = automaton.next_state(Anchored::No, state, byte);
        if automaton.is_special(state) && automaton.is_match(state) {
            ends.push((offset + at + 1, state));
        }
    }
}

/// Cuts `text` into pieces of about `size` bytes that end at a line's end.
fn chunks(text: &[u8], size: usize) -> Vec<(usize, usize)> {
    let mut bounds = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let at = (from + size).min(text.len());
        let to = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i + 1);
        bounds.push((from, to));
        from = to;
    }
    bounds
}

/// Whether a match passes its rule's check and is not an allowed shape. The cheap tests that
/// reject most candidates (the key's name, the mix of characters) come first.
fn accepts(check: Check, value: &str, key: Option<&str>) -> bool {
    match check {
        Check::Assignment => {
            !key.is_some_and(is_not_a_secret_key)
                && character_classes(value) >= 2
                && !is_not_a_secret_value(value)
                && entropy(value) >= 3.2
        }
        Check::Bearer => {
            !value.starts_with("eyJ")
                && character_classes(value) >= 2
                && !is_not_a_secret_value(value)
                && entropy(value) >= 3.5
        }
        _ if is_placeholder(value) => false,
        Check::Shape => true,
        Check::Entropy(bits) => entropy(value) >= bits,
        Check::Base64Credentials => is_base64_credentials(value),
        Check::Base64PrivateKey => decodes_to_private_key(decode_base64(value)),
        Check::HexPrivateKey => decodes_to_private_key(decode_hex(value)),
        Check::DiscordToken => names_a_discord_id(value),
    }
}

/// Whether a dotted token's first part is base64 of a Discord id (a snowflake: 17 to 20 digits).
fn names_a_discord_id(token: &str) -> bool {
    let id = token.split('.').next().and_then(decode_base64);
    id.is_some_and(|id| (17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit))
}

/// The key of an assignment match: the assignment pattern starts with its key group, a greedy run
/// of `[A-Za-z0-9_.-]` that nothing after it in the pattern can continue, so the key is the
/// match's longest prefix of those bytes.
fn assignment_key(matched: &[u8]) -> &[u8] {
    let end = matched
        .iter()
        .position(|b| !is_key_byte(*b))
        .unwrap_or(matched.len());
    &matched[..end]
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// The value of an assignment match (its group `s`), read off the match rather than with
/// captures. Every step of the pattern between the key and the value has one way to match: the
/// key is the run [`assignment_key`] takes; a closing quote or bracket after it is taken when
/// there (nothing else can take it); then all the white space (the operator is not white space);
/// the operator, `:=` or `=>` when written so (its one-byte alternative would leave `=` or `>` to
/// start the value, which the value's first byte excludes); white space again and an opening
/// quote, both excluded from the value's first byte. The value runs from there to the match's
/// end. Debug builds check this against the captures at every match.
fn assignment_value(matched: &[u8]) -> &[u8] {
    let mut at = assignment_key(matched).len();
    let skip_spaces = |mut at: usize| {
        // `\s` without Unicode: `[\t\n\x0B\x0C\r ]` (`is_ascii_whitespace` leaves out `\x0B`).
        while matched
            .get(at)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == 0x0B)
        {
            at += 1;
        }
        at
    };
    if matches!(matched.get(at), Some(b'"' | b'\'' | b']')) {
        at += 1;
    }
    at = skip_spaces(at);
    at += match matched.get(at..at + 2) {
        Some(b":=" | b"=>") => 2,
        _ => 1,
    };
    at = skip_spaces(at);
    if matches!(matched.get(at), Some(b'"' | b'\'' | b'`')) {
        at += 1;
    }
    &matched[at.min(matched.len())..]
}

/// Whether decoded bytes are a PEM private key.
fn decodes_to_private_key(decoded: Option<Vec<u8>>) -> bool {
    decoded.is_some_and(|bytes| memchr::memmem::find(&bytes, b"PRIVATE KEY-----").is_some())
}

fn character_classes(value: &str) -> usize {
    let has = |f: fn(&u8) -> bool| usize::from(value.as_bytes().iter().any(f));
    has(u8::is_ascii_lowercase)
        + has(u8::is_ascii_uppercase)
        + has(u8::is_ascii_digit)
        + has(|b| b.is_ascii_punctuation())
}

#[cfg(test)]
mod tests;
