//! Text helpers shared by the schema renderer, the catalog and the validator: whitespace
//! normalisation of descriptions and the compact JSON form values take in a prompt.

use std::borrow::Cow;

use serde_json::Value;

/// Collapses whitespace so multi-line descriptions take one line and no blank-line tokens.
/// Borrows when there is nothing to collapse (nearly always). Only ASCII whitespace counts.
pub(crate) fn normalize_ws(text: &str) -> Cow<'_, str> {
    if is_single_spaced(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split_ascii_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Cow::Owned(out)
}

/// No leading, trailing or doubled space and no other ASCII control character: checked eight
/// bytes at a time (descriptions are most of a prompt's bytes).
fn is_single_spaced(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Bit 7 of each byte that equals `value`, exactly (no carries between bytes).
    let equal = |word: u64, value: u8| {
        let y = word ^ (ONES * u64::from(value));
        !(((y & LOW7).wrapping_add(LOW7)) | y | LOW7)
    };
    match (bytes.first(), bytes.last()) {
        (Some(b' '), _) | (_, Some(b' ')) | (None, _) => return false,
        _ => {}
    }
    let mut chunks = bytes.chunks_exact(8);
    let mut previous_space = false;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // A byte below 0x20 (control, tab, newline) or DEL.
        let control = (word.wrapping_sub(ONES * 0x20) & !word & HIGH) | equal(word, 0x7f);
        let spaces = equal(word, b' ');
        let doubled = spaces & (spaces >> 8);
        if control != 0 || doubled != 0 || (previous_space && spaces & 0x80 != 0) {
            return false;
        }
        previous_space = spaces >> 63 != 0;
    }
    for &byte in chunks.remainder() {
        let space = byte == b' ';
        if (byte < 0x20 || byte == 0x7f) || (space && previous_space) {
            return false;
        }
        previous_space = space;
    }
    true
}

/// Marks where a text was cut.
pub(crate) const CUT_MARK: &str = " […]";

/// `text` cut to at most `max` bytes (on a character boundary) with [`CUT_MARK`] at the end;
/// `None` when it fits.
pub(crate) fn cut_text(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    let mut end = max.saturating_sub(CUT_MARK.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut short = String::with_capacity(end + CUT_MARK.len());
    short.push_str(&text[..end]);
    short.push_str(CUT_MARK);
    Some(short)
}

/// Compact JSON, the way values appear in a prompt (`"en"`, `3`, `[1,2]`).
pub(crate) fn compact(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value);
    out
}

/// Appends compact JSON; plain strings and numbers without going through a serializer.
pub(crate) fn write_json(out: &mut String, value: &Value) {
    use std::fmt::Write;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s)
            if s.bytes()
                .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0x7f) =>
        {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}
