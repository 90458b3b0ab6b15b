//! A token estimate that needs no tokenizer (no BPE tables in the wasm module).
//!
//! The text is split into runs the way BPE pre-tokenisers split it (words, digit groups,
//! punctuation, whitespace, CJK) and each kind of run gets a weight. The weights were fitted
//! by least squares against tiktoken's o200k on prompts, tool descriptions, JSON results and
//! Chinese text; `tests/test_prompt_tokens.rs` holds the estimate within 10% of o200k on the
//! golden prompts.

/// Indices into the feature vector.
const SHORT_WORDS: usize = 0;
const LONG_WORDS: usize = 1;
const LONG_WORD_EXTRA_CHARS: usize = 2;
const DIGIT_GROUPS: usize = 3;
const PUNCTUATION_RUNS: usize = 4;
const PUNCTUATION_EXTRA: usize = 5;
const LINE_BREAKS: usize = 6;
const SPACE_RUNS: usize = 7;
const CJK_CHARS: usize = 8;
const OTHER_CHARS: usize = 9;
const FEATURES: usize = 10;

/// Words up to this many letters are usually one token.
const SHORT_WORD: usize = 6;

/// Fitted weights (see the module docs); one per feature.
const WEIGHTS: [f64; FEATURES] = [0.971, 1.204, 0.0, 1.197, 0.934, 0.369, 0.508, 0.5, 0.689, 1.0];

/// Estimated o200k token count of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    let features = token_features(text);
    let total: f64 = features.iter().zip(WEIGHTS.iter()).map(|(f, w)| f * w).sum();
    total.round() as usize
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (c.is_alphabetic() && !c.is_ascii() && !is_cjk(c))
}

/// The run counts the estimate is made of (exposed for calibration).
#[doc(hidden)]
pub fn token_features(text: &str) -> [f64; FEATURES] {
    let mut features = [0.0; FEATURES];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_letter(c) {
            // Letters outside ASCII (accents, Cyrillic, Greek) count double: they split more.
            let mut len = if c.is_ascii() { 1 } else { 2 };
            while let Some(&next) = chars.peek().filter(|&&n| is_letter(n)) {
                len += if next.is_ascii() { 1 } else { 2 };
                chars.next();
            }
            if len <= SHORT_WORD {
                features[SHORT_WORDS] += 1.0;
            } else {
                features[LONG_WORDS] += 1.0;
                features[LONG_WORD_EXTRA_CHARS] += (len - SHORT_WORD) as f64;
            }
        } else if c.is_ascii_digit() {
            let mut len: usize = 1;
            while chars.peek().is_some_and(char::is_ascii_digit) {
                len += 1;
                chars.next();
            }
            // o200k splits numbers into groups of up to three digits.
            features[DIGIT_GROUPS] += len.div_ceil(3) as f64;
        } else if c == '\n' || c == '\r' {
            // A line break and the indentation after it are usually one token.
            while chars.peek().is_some_and(|&n| n == '\n' || n == '\r' || n == ' ' || n == '\t') {
                chars.next();
            }
            features[LINE_BREAKS] += 1.0;
        } else if c == ' ' || c == '\t' {
            let mut len = 1;
            while chars.peek().is_some_and(|&n| n == ' ' || n == '\t') {
                len += 1;
                chars.next();
            }
            // A single space joins the next word's token; a longer run is a token of its own.
            if len > 1 {
                features[SPACE_RUNS] += 1.0;
            }
        } else if c.is_ascii_punctuation() {
            // Common punctuation pairs (`":`, `",`, `{"`) merge into one token.
            features[PUNCTUATION_RUNS] += 1.0;
            while chars.peek().is_some_and(char::is_ascii_punctuation) {
                features[PUNCTUATION_EXTRA] += 1.0;
                chars.next();
            }
        } else if is_cjk(c) {
            features[CJK_CHARS] += 1.0;
        } else if !c.is_whitespace() {
            features[OTHER_CHARS] += 1.0;
        }
    }
    features
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x9FFF     // CJK radicals, kana, unified ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0xFF00..=0xFFEF   // full-width forms
        | 0x20000..=0x2FA1F)
}
