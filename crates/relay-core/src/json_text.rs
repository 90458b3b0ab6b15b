//! JSON text that comes from JavaScript, made readable by serde_json whatever it holds.
//!
//! JavaScript strings are UTF-16 and may hold lone surrogates (a page can put one in a reply on
//! purpose, and a reply cut mid-emoji has one by accident). `JSON.stringify` writes them as
//! `\udXXX` escapes, which serde_json rightly refuses as invalid Unicode: the whole message would
//! be unreadable because of one character. [`replace_lone_surrogates`] rewrites exactly those
//! escapes to U+FFFD (what a browser's own decoders do) and leaves everything else alone, in one
//! pass over the text.

use std::borrow::Cow;

const REPLACEMENT: &str = "\\ufffd";

/// Rewrites every `\u` escape of a lone surrogate in JSON text to `\ufffd`. Pairs (a high
/// surrogate escape directly followed by a low one) are kept. Text without any surrogate escape
/// is returned borrowed.
pub fn replace_lone_surrogates(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `json` already in `out`
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + off;
        // Every backslash in JSON text starts an escape (they only occur inside strings), so
        // skipping each escape whole keeps us aligned: `\\u` is a backslash, then a `u`.
        if bytes.get(at + 1) != Some(&b'u') {
            i = at + 2;
            continue;
        }
        let Some(unit) = hex4(bytes, at + 2) else {
            i = at + 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => {
                let next = (bytes.get(at + 6) == Some(&b'\\') && bytes.get(at + 7) == Some(&b'u'))
                    .then(|| hex4(bytes, at + 8))
                    .flatten();
                if matches!(next, Some(0xDC00..=0xDFFF)) {
                    i = at + 12; // a valid pair: keep both
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let o = out.get_or_insert_with(|| String::with_capacity(json.len()));
            o.push_str(&json[copied..at]);
            o.push_str(REPLACEMENT);
            copied = at + 6;
        }
        i = at + 6;
    }
    match out {
        None => Cow::Borrowed(json),
        Some(mut o) => {
            o.push_str(&json[copied..]);
            Cow::Owned(o)
        }
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters_and_the_rest_is_kept() {
        let cases = [
            (r#""a\ud800b""#, "a\u{fffd}b"),
            (r#""\udc00""#, "\u{fffd}"),
            (r#""\ud83d\ude00""#, "😀"),
            (r#""\ud83d\ud83d\ude00""#, "\u{fffd}😀"),
            (r#""end\ud83d""#, "end\u{fffd}"),
            (r#""\\ud800""#, "\\ud800"),
            (r#""\\\ud800""#, "\\\u{fffd}"),
            (r#""\u0041\n\"""#, "A\n\""),
            (r#""plain""#, "plain"),
        ];
        for (json, want) in cases {
            let fixed = replace_lone_surrogates(json);
            let got: String =
                serde_json::from_str(&fixed).unwrap_or_else(|e| panic!("{json} → {fixed}: {e}"));
            assert_eq!(got, want, "{json}");
        }
        assert!(matches!(
            replace_lone_surrogates(r#"{"a":"\ud83d\ude00 \\ud800"}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn any_text_stays_valid_json_if_it_was_valid_apart_from_surrogates() {
        // A message with a reply text built from every escape kind, in every position.
        let pieces = [
            r"\ud800",
            r"\udfff",
            r"\ud800\udc00",
            r"\\",
            r"\n",
            "x",
            "é",
            r"\u00e9",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let json = format!(r#"{{"text":"{a}{b}{c}"}}"#);
                    let fixed = replace_lone_surrogates(&json);
                    assert!(
                        serde_json::from_str::<serde_json::Value>(&fixed).is_ok(),
                        "{json} → {fixed}"
                    );
                }
            }
        }
    }
}
