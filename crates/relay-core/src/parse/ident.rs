//! Canonical JSON and the stable hash behind derived call ids.
//!
//! Ids must be identical across re-parses, across streaming and full parsing, across builds and
//! across the native and wasm targets, so nothing here may depend on a randomised hasher or on the
//! key order a `serde_json::Map` happens to keep (the crate enables `preserve_order`).

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

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut plain_from = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        // Every byte matched above is ASCII, so `i` is a char boundary.
        out.push_str(&s[plain_from..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                out.push_str("\\u00");
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 0xf)] as char);
            }
        }
        plain_from = i + 1;
    }
    out.push_str(&s[plain_from..]);
    out.push('"');
}

/// 64-bit FNV-1a, fed in pieces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(mut self, bytes: &[u8]) -> Self {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// A field separator that cannot occur inside UTF-8 text, so `("ab", "c")` and `("a", "bc")`
    /// hash differently.
    pub(crate) fn sep(self) -> Self {
        self.write(&[0xff])
    }

    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

/// The identity of a call for counting identical calls: server, tool and canonical arguments.
pub(crate) fn call_key(server: &str, tool: &str, canonical_args: &str) -> u64 {
    Fnv::new()
        .write(server.as_bytes())
        .sep()
        .write(tool.as_bytes())
        .sep()
        .write(canonical_args.as_bytes())
        .finish()
}

/// `c_` + 16 hex digits of the call key extended with the ordinal among identical calls.
pub(crate) fn derived_call_id(key: u64, ordinal: u32) -> String {
    let h = Fnv::new()
        .write(&key.to_le_bytes())
        .sep()
        .write(&ordinal.to_le_bytes())
        .finish();
    format!("c_{h:016x}")
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
    fn canonical_json_round_trips_through_serde() {
        let v =
            json!({"k": "tab\there \\ \u{7f} 😀", "n": -1.5e-7, "big": 18446744073709551615u64});
        let back: Value =
            serde_json::from_str(&canonical_json(&v)).expect("canonical JSON is JSON");
        assert_eq!(back, v);
    }

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(Fnv::new().finish(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv::new().write(b"a").finish(), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv::new().write(b"foobar").finish(), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn derived_ids_differ_by_ordinal_and_field_boundaries() {
        let a = call_key("s", "ab", "{}");
        let b = call_key("s", "a", "b{}");
        assert_ne!(a, b);
        assert_ne!(derived_call_id(a, 0), derived_call_id(a, 1));
        assert_eq!(derived_call_id(a, 0).len(), 18);
    }
}
