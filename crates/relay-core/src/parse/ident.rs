//! Canonical JSON and the stable hash behind derived call ids.
//!
//! Ids must be identical across re-parses, across streaming and full parsing, across builds and
//! across the native and wasm targets, so nothing here may depend on a randomised hasher or on the
//! key order a `serde_json::Map` happens to keep (the crate enables `preserve_order`).

use std::io::Write as _;

use serde_json::Value;

/// Serialises `value` with object keys sorted (by Unicode code point) and no whitespace.
///
/// Strings are escaped minimally (`"`, `\`, and control characters, the common ones as `\n`,
/// `\t`... and the rest as `\u00XX`); numbers are printed as `serde_json` prints them. Two values
/// that are equal as JSON values give the same text, whatever their key order. The exactly-once
/// ledger hashes call arguments with it.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// Where canonical JSON goes, piece by piece: a string ([`canonical_json`]) or straight into a
/// hash ([`call_key`]), so a call's arguments are never written out as text only to be hashed
/// (for a 1 MB argument that copy cost as much as the hash).
trait Canonical {
    fn put(&mut self, piece: &str);
}

impl Canonical for String {
    fn put(&mut self, piece: &str) {
        self.push_str(piece);
    }
}

impl Canonical for StableHash {
    fn put(&mut self, piece: &str) {
        self.feed(piece.as_bytes());
    }
}

fn write_canonical(value: &Value, out: &mut impl Canonical) {
    match value {
        Value::Null => out.put("null"),
        Value::Bool(true) => out.put("true"),
        Value::Bool(false) => out.put("false"),
        Value::Number(n) => {
            // Printed into a stack buffer: a number's text is short (serde_json prints at most
            // about 24 bytes), and a `String` per number cost an allocation each.
            let mut buf = [0u8; 40];
            let mut w = &mut buf[..];
            if write!(w, "{n}").is_ok() {
                let len = 40 - w.len();
                out.put(std::str::from_utf8(&buf[..len]).unwrap_or_default());
            } else {
                out.put(&n.to_string());
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                write_canonical(item, out);
            }
            out.put("]");
        }
        Value::Object(map) if map.len() <= SMALL => {
            // Sorted on the stack: most arguments have a few keys, and a `Vec` per object cost
            // an allocation per call.
            let mut entries: [Option<(&str, &Value)>; SMALL] = [None; SMALL];
            for (slot, (k, v)) in entries.iter_mut().zip(map) {
                *slot = Some((k.as_str(), v));
            }
            let entries = &mut entries[..map.len()];
            entries.sort_unstable_by(|a, b| a.map(|e| e.0).cmp(&b.map(|e| e.0)));
            write_members(entries.iter().flatten().copied(), out);
        }
        Value::Object(map) => {
            let mut entries: Vec<(&str, &Value)> =
                map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            write_members(entries.into_iter(), out);
        }
    }
}

/// Objects of at most this many members are sorted without an allocation.
const SMALL: usize = 8;

/// An object's members, already sorted by key.
fn write_members<'v>(
    entries: impl Iterator<Item = (&'v str, &'v Value)>,
    out: &mut impl Canonical,
) {
    out.put("{");
    for (i, (key, item)) in entries.enumerate() {
        if i > 0 {
            out.put(",");
        }
        write_string(key, out);
        out.put(":");
        write_canonical(item, out);
    }
    out.put("}");
}

fn write_string(s: &str, out: &mut impl Canonical) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.put("\"");
    let bytes = s.as_bytes();
    let mut plain_from = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Skip eight bytes at a time while none of them needs escaping (most string content).
        if let Some((word, _)) = bytes[i..].split_first_chunk::<8>() {
            if !word_needs_escape(u64::from_le_bytes(*word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => {
                i += 1;
                continue;
            }
        };
        // Every byte matched above is ASCII, so `i` is a char boundary.
        out.put(&s[plain_from..i]);
        match escape {
            Some(e) => out.put(e),
            None => {
                let code = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ];
                out.put(std::str::from_utf8(&code).unwrap_or_default());
            }
        }
        i += 1;
        plain_from = i;
    }
    out.put(&s[plain_from..]);
    out.put("\"");
}

/// Whether any byte of the little-endian word is a control character, `"` or `\\` (SWAR: exact
/// for "any", which is all the caller asks).
fn word_needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let bs = w ^ (ONES * u64::from(b'\\'));
    let backslash = bs.wrapping_sub(ONES) & !bs;
    (below_space | quote | backslash) & HIGHS != 0
}

/// A stable 64-bit hash, fed in pieces: eight bytes at a time through a multiply and xor-shift,
/// then a splitmix64 finaliser. Defined here, not borrowed from a crate or `std`, because call
/// ids derived from it must never change between builds, versions or targets (native and wasm
/// give the same value). Not meant to resist crafted collisions: ids are not a security boundary.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StableHash {
    h: u64,
    /// Pending bytes (fewer than eight), little-endian in `buf`.
    buf: u64,
    nbuf: u32,
    len: u64,
}

const SEED: u64 = 0x243f_6a88_85a3_08d3;
const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// One word into the state: multiply (spreads low bits up), then xor-shift (brings high bits
/// down). Only 64-bit operations, which wasm has natively.
fn fold(h: u64, w: u64) -> u64 {
    let x = (h ^ w).wrapping_mul(MUL);
    x ^ (x >> 29)
}

impl StableHash {
    pub(crate) fn new() -> Self {
        StableHash {
            h: SEED,
            buf: 0,
            nbuf: 0,
            len: 0,
        }
    }

    pub(crate) fn write(mut self, bytes: &[u8]) -> Self {
        self.feed(bytes);
        self
    }

    /// [`write`](Self::write) in place.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        self.len = self.len.wrapping_add(bytes.len() as u64);
        while self.nbuf != 0 && !bytes.is_empty() {
            self.buf |= u64::from(bytes[0]) << (8 * self.nbuf);
            self.nbuf += 1;
            bytes = &bytes[1..];
            if self.nbuf == 8 {
                self.h = fold(self.h, self.buf);
                self.buf = 0;
                self.nbuf = 0;
            }
        }
        let mut words = bytes.chunks_exact(8);
        let mut h = self.h;
        for w in &mut words {
            if let Ok(w) = <[u8; 8]>::try_from(w) {
                h = fold(h, u64::from_le_bytes(w));
            }
        }
        self.h = h;
        for &b in words.remainder() {
            self.buf |= u64::from(b) << (8 * self.nbuf);
            self.nbuf += 1;
        }
    }

    /// A field separator that cannot occur inside UTF-8 text, so `("ab", "c")` and `("a", "bc")`
    /// hash differently.
    pub(crate) fn sep(self) -> Self {
        self.write(&[0xff])
    }

    pub(crate) fn finish(self) -> u64 {
        let mut z = fold(fold(self.h, self.buf), self.len);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The identity of a call for counting identical calls: server, tool and canonical arguments
/// (hashed as they are written, never held as text).
pub(crate) fn call_key(server: &str, tool: &str, arguments: &Value) -> u64 {
    let mut h = StableHash::new()
        .write(server.as_bytes())
        .sep()
        .write(tool.as_bytes())
        .sep();
    write_canonical(arguments, &mut h);
    h.finish()
}

/// `c_` + 16 hex digits of the call key extended with the ordinal among identical calls.
pub(crate) fn derived_call_id(key: u64, ordinal: u32) -> String {
    let h = StableHash::new()
        .write(&key.to_le_bytes())
        .sep()
        .write(&ordinal.to_le_bytes())
        .finish();
    // By hand: `format!` is the formatting machinery for 16 digits, once per call.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(18);
    id.push_str("c_");
    for shift in (0..16).rev() {
        id.push(char::from(HEX[((h >> (shift * 4)) & 0xf) as usize]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_level_and_escapes_minimally() {
        let v = json!({"b": [1, {"z": null, "a": "x\"\n\u{1}é"}], "a": true});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":true,"b":[1,{"a":"x\"\n\u0001é","z":null}]}"#
        );
    }

    #[test]
    fn canonical_json_sorts_small_and_large_objects_alike() {
        let keys = ["k", "b", "é", "a", "B", "", "z", "a1", "ab", "m", "c"];
        for n in 0..=keys.len() {
            let map: serde_json::Map<String, Value> = keys[..n]
                .iter()
                .enumerate()
                .map(|(i, k)| ((*k).to_owned(), json!(i as f64 * 1.5 - 3.0)))
                .collect();
            let mut sorted: Vec<&&str> = keys[..n].iter().collect();
            sorted.sort();
            let want = format!(
                "{{{}}}",
                sorted
                    .iter()
                    .map(|k| format!("{}:{}", json!(k), map[**k]))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            assert_eq!(canonical_json(&Value::Object(map)), want, "{n} members");
        }
    }

    #[test]
    fn canonical_json_round_trips_through_serde() {
        let v =
            json!({"k": "tab\there \\ \u{7f} 😀", "n": -1.5e-7, "big": 18446744073709551615u64});
        let back: Value =
            serde_json::from_str(&canonical_json(&v)).expect("canonical JSON is JSON");
        assert_eq!(back, v);
    }

    #[test]
    fn stable_hash_does_not_depend_on_how_the_bytes_are_fed() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let whole = StableHash::new().write(&data).finish();
        for split in [1, 3, 7, 8, 9, 500, 999] {
            let (a, b) = data.split_at(split);
            assert_eq!(
                StableHash::new().write(a).write(b).finish(),
                whole,
                "split at {split}"
            );
        }
        let bytewise = data
            .iter()
            .fold(StableHash::new(), |h, b| h.write(std::slice::from_ref(b)));
        assert_eq!(bytewise.finish(), whole);
        // Padding must not make a shorter input equal a longer one.
        assert_ne!(
            StableHash::new().write(b"a").finish(),
            StableHash::new().write(b"a\0").finish()
        );
    }

    #[test]
    fn stable_hash_spreads_similar_inputs() {
        let n = 200_000u32;
        let mut seen = std::collections::BTreeSet::new();
        let mut ones = [0u32; 64];
        for i in 0..n {
            let h = call_key("demo", "add", &json!({ "a": i }));
            assert!(seen.insert(h), "collision at {i}");
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += u32::from((h >> bit) & 1 == 1);
            }
        }
        for (bit, &count) in ones.iter().enumerate() {
            let share = f64::from(count) / f64::from(n);
            assert!(
                (0.49..0.51).contains(&share),
                "bit {bit} is set in {share:.3} of hashes"
            );
        }
    }

    /// The key hashes the canonical text as it is written, without holding it: exactly the hash
    /// of that text, whatever the pieces (escapes, long runs, non-ASCII, nesting).
    #[test]
    fn call_key_is_the_hash_of_the_canonical_text() {
        let long = "x".repeat(1_000_003);
        let values = [
            json!({}),
            json!(null),
            json!({"b": [1, 2.5, -3], "a": {"z": true, "y": null}}),
            json!({"s": "tab\there \\ \"q\" \u{1}\u{1f}\u{7f} é 😀 line\nend"}),
            json!({"body": long}),
            json!({"k": format!("{long}\n{long}\"")}),
            json!(["a", "bcdefghij", "", "\u{8}\u{c}"]),
            // Up to 8 members are sorted on the stack, more in a vector: both, with numbers of
            // every kind (integers, negatives, floats, the u64 range) printed without a string.
            json!({"h": 8, "g": -7, "f": 6.5, "e": 5e300, "d": 4, "c": 3, "b": 2, "a": 1}),
            json!({"i": 9, "h": 8, "g": -7, "f": 6.5, "e": 5e-300, "d": 4, "c": 3, "b": 2, "a": u64::MAX}),
            json!({"z": {"y": [{"b": 1, "a": 0}], "x": null}, "é": 1, "e": i64::MIN, "": 0}),
        ];
        for v in &values {
            let text = canonical_json(v);
            let by_text = StableHash::new()
                .write(b"srv")
                .sep()
                .write(b"tool")
                .sep()
                .write(text.as_bytes())
                .finish();
            assert_eq!(
                call_key("srv", "tool", v),
                by_text,
                "{}",
                &text[..text.len().min(80)]
            );
        }
    }

    /// Derived call ids are persisted by the exactly-once ledger: these values must never change.
    #[test]
    fn stable_hash_values_are_frozen() {
        let key = call_key("demo", "add", &json!({"b": 2, "a": 1}));
        assert_eq!(format!("{key:016x}"), "b20af8d515045c8e");
        assert_eq!(derived_call_id(key, 0), "c_f64c9a5b16cc175a");
        assert_eq!(
            format!("{:016x}", StableHash::new().finish()),
            "b67e4ed205f58a81"
        );
    }

    #[test]
    fn derived_ids_differ_by_ordinal_and_field_boundaries() {
        let fields = |tool: &str, args: &str| {
            StableHash::new()
                .write(b"s")
                .sep()
                .write(tool.as_bytes())
                .sep()
                .write(args.as_bytes())
                .finish()
        };
        assert_ne!(fields("ab", "{}"), fields("a", "b{}"));
        let a = call_key("s", "ab", &json!({}));
        assert_ne!(a, call_key("s", "a", &json!({})));
        assert_ne!(derived_call_id(a, 0), derived_call_id(a, 1));
        assert_eq!(derived_call_id(a, 0).len(), 18);
    }
}
