//! Latin-1 to UTF-8: the way into wasm memory for a reply whose characters are all
//! U+0000–U+00FF but not all ASCII.
//!
//! V8 keeps such a string one byte per character, and `encodeInto` copies it at memory speed
//! only while every character is ASCII: one `é` anywhere sends the whole string through its
//! per-character path, ~10× slower (1 MB: 0.06 ms ASCII, 0.6 ms with one accent). Node's
//! `Buffer.latin1Write` copies the same string byte for byte whatever it holds (0.02 ms), and
//! this makes UTF-8 of those bytes for the Node build (`relay-node`'s `staged`): ASCII runs
//! copied as they are, each other byte as its two UTF-8 bytes (U+0080–U+00FF are
//! `110000xx 10xxxxxx`). Pure: no JavaScript here.
//!
//! A run costs more than a byte, so where accents come every few words the per-character path
//! is as fast: [`latin1_to_utf8`] stops where they turn dense and the caller copies the rest by
//! `encodeInto`, which then costs what it always did.

/// Bytes with the high bit set, eight at a time.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Non-ASCII runs read before judging their density.
const FIRST_RUNS: usize = 64;
/// Bytes per non-ASCII run below which the rest is given back (a run here costs about what
/// `encodeInto`'s per-character path takes for 30 bytes).
const SPARSE: usize = 64;

/// The length of `b`'s ASCII prefix: 32 bytes a word at a time, then byte by byte.
pub fn ascii_prefix_len(b: &[u8]) -> usize {
    let mut ascii = 0;
    for chunk in b.chunks_exact(32) {
        let word = |at: usize| {
            chunk
                .get(at..at + 8)
                .and_then(|w| w.try_into().ok())
                .map_or(HIGH, u64::from_ne_bytes)
        };
        if (word(0) | word(8) | word(16) | word(24)) & HIGH != 0 {
            break;
        }
        ascii += 32;
    }
    let rest = &b[ascii..];
    ascii + rest.iter().position(|&c| c >= 0x80).unwrap_or(rest.len())
}

/// Appends to `out` as UTF-8 the characters `latin1` holds (one byte each, U+0000–U+00FF),
/// while they stay mostly ASCII; returns how many bytes of `latin1` it took: all of them, or
/// fewer where non-ASCII runs came once every [`SPARSE`] bytes or more often (the rest is then
/// better copied by `encodeInto`).
pub fn latin1_to_utf8(latin1: &[u8], out: &mut Vec<u8>) -> usize {
    out.reserve(latin1.len() + latin1.len() / 8);
    let mut at = 0;
    let mut runs = 0;
    while at < latin1.len() {
        if runs > FIRST_RUNS && runs * SPARSE > at {
            return at;
        }
        let ascii = ascii_prefix_len(&latin1[at..]);
        out.extend_from_slice(&latin1[at..at + ascii]);
        at += ascii;
        let high = latin1[at..].iter().take_while(|&&c| c >= 0x80).count();
        for &c in &latin1[at..at + high] {
            out.extend_from_slice(&[0xC0 | (c >> 6), 0x80 | (c & 0x3F)]);
        }
        at += high;
        runs += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latin1_of(text: &str) -> Vec<u8> {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
            .collect()
    }

    #[test]
    fn latin1_becomes_the_same_text_in_utf8() {
        let long_ascii = "plain words, no accents at all; ".repeat(40);
        let cases = [
            String::new(),
            "a".to_owned(),
            "é".to_owned(),
            "ÿ\u{80}\u{a0}".to_owned(),
            "Café au lait, naïve façade: ½ × 3 ± 1°".to_owned(),
            format!("{long_ascii}é{long_ascii}"),
            format!("é{long_ascii}"),
            format!("{long_ascii}ÿ"),
            format!("{}ÿ", "x".repeat(31)),
            format!("{}ÿ", "x".repeat(32)),
            (0u8..=255).map(char::from).collect(),
        ];
        for text in cases {
            let mut out = b"before|".to_vec();
            let took = latin1_to_utf8(&latin1_of(&text), &mut out);
            assert_eq!(took, text.chars().count(), "{text:?}: all of it");
            assert_eq!(&out[7..], text.as_bytes(), "{text:?}");
        }
    }

    #[test]
    fn dense_accents_are_given_back() {
        let text = "àé îõ ü".repeat(200);
        let latin1 = latin1_of(&text);
        let mut out = Vec::new();
        let took = latin1_to_utf8(&latin1, &mut out);
        assert!(
            took > 0 && took < latin1.len(),
            "took {took} of {}",
            latin1.len()
        );
        let prefix: String = text.chars().take(took).collect();
        assert_eq!(out, prefix.as_bytes());
    }

    #[test]
    fn the_ascii_prefix_ends_at_the_first_high_byte_wherever_it_is() {
        for len in [0, 1, 31, 32, 33, 64, 100, 1000] {
            let mut b = vec![b'x'; len];
            assert_eq!(ascii_prefix_len(&b), len);
            for at in 0..len {
                b[at] = 0xE9;
                assert_eq!(ascii_prefix_len(&b), at, "len {len}, at {at}");
                b[at] = b'x';
            }
        }
    }
}
