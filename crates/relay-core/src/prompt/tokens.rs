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
const WEIGHTS: [f64; FEATURES] = [
    0.971, 1.204, 0.0, 1.197, 0.934, 0.369, 0.508, 0.5, 0.689, 1.0,
];

/// The run counts of a text; those of texts joined at a line break add up.
pub(crate) type Features = [f64; FEATURES];

/// Estimated o200k token count of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    estimate_from_features(&token_features(text))
}

/// The estimate for a text with these [`token_features`].
pub(crate) fn estimate_from_features(features: &Features) -> usize {
    let total: f64 = features
        .iter()
        .zip(WEIGHTS.iter())
        .map(|(f, w)| f * w)
        .sum();
    total.round() as usize
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (c.is_alphabetic() && !c.is_ascii() && !is_cjk(c))
}

/// Byte classes of ASCII, looked up instead of tested one predicate at a time.
const LETTER: u8 = 0;
const DIGIT: u8 = 1;
const BREAK: u8 = 2;
const SPACE: u8 = 3;
const PUNCT: u8 = 4;
const CONTROL: u8 = 5;

/// Every byte outside ASCII starts or continues a multi-byte character.
const NON_ASCII: u8 = 6;

const CLASS: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphabetic() {
            LETTER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c == b'\n' || c == b'\r' {
            BREAK
        } else if c == b' ' || c == b'\t' {
            SPACE
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else {
            CONTROL
        };
        b += 1;
    }
    table
};

#[inline]
fn class(byte: u8) -> u8 {
    CLASS[byte as usize]
}

/// The end of the run of `kind` bytes starting at or after `i`.
#[inline]
fn run_end(bytes: &[u8], i: usize, kind: u8) -> usize {
    let rest = &bytes[i.min(bytes.len())..];
    i + rest
        .iter()
        .position(|&b| class(b) != kind)
        .unwrap_or(rest.len())
}

/// The run counts the estimate is made of (exposed for calibration).
#[doc(hidden)]
pub fn token_features(text: &str) -> [f64; FEATURES] {
    let mut counts = [0usize; FEATURES];
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        match class(bytes[i]) {
            LETTER => {
                let start = i;
                i = run_end(bytes, i, LETTER);
                let len = i - start;
                word(&mut counts, continue_word(text, &mut i, len));
            }
            DIGIT => {
                let start = i;
                i = run_end(bytes, i, DIGIT);
                // o200k splits numbers into groups of up to three digits.
                counts[DIGIT_GROUPS] += (i - start).div_ceil(3);
            }
            BREAK => {
                // A line break and the indentation after it are usually one token.
                while i < n && matches!(class(bytes[i]), BREAK | SPACE) {
                    i += 1;
                }
                counts[LINE_BREAKS] += 1;
            }
            SPACE => {
                let start = i;
                i = run_end(bytes, i, SPACE);
                // A single space joins the next word's token; a longer run is a token of its own.
                if i - start > 1 {
                    counts[SPACE_RUNS] += 1;
                }
            }
            PUNCT => {
                // Common punctuation pairs (`":`, `",`, `{"`) merge into one token.
                let start = i;
                i = run_end(bytes, i, PUNCT);
                counts[PUNCTUATION_RUNS] += 1;
                counts[PUNCTUATION_EXTRA] += i - start - 1;
            }
            CONTROL => {
                counts[OTHER_CHARS] += usize::from(!bytes[i].is_ascii_whitespace());
                i += 1;
            }
            _ => {
                let c = text[i..]
                    .chars()
                    .next()
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                i += c.len_utf8();
                if is_letter(c) {
                    word(&mut counts, continue_word(text, &mut i, 2));
                } else if is_cjk(c) {
                    counts[CJK_CHARS] += 1;
                } else if !c.is_whitespace() {
                    counts[OTHER_CHARS] += 1;
                }
            }
        }
    }
    counts.map(|c| c as f64)
}

/// Extends a word past its ASCII start through any further letters; returns its weighted
/// length (letters outside ASCII count double: accents, Cyrillic, Greek split more).
fn continue_word(text: &str, i: &mut usize, mut len: usize) -> usize {
    let bytes = text.as_bytes();
    while *i < bytes.len() {
        let byte = bytes[*i];
        if byte < 0x80 {
            if class(byte) != LETTER {
                break;
            }
            len += 1;
            *i += 1;
        } else {
            let c = text[*i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            if !is_letter(c) {
                break;
            }
            len += 2;
            *i += c.len_utf8();
        }
    }
    len
}

fn word(counts: &mut [usize; FEATURES], len: usize) {
    if len <= SHORT_WORD {
        counts[SHORT_WORDS] += 1;
    } else {
        counts[LONG_WORDS] += 1;
        counts[LONG_WORD_EXTRA_CHARS] += len - SHORT_WORD;
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x9FFF     // CJK radicals, kana, unified ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0xFF00..=0xFFEF   // full-width forms
        | 0x20000..=0x2FA1F)
}
