//! Local `$ref` resolution (JSON pointers into the tool's own schema) and the names
//! references are shown under. Used by lowering, validation and example generation.

use std::borrow::Cow;

use serde_json::Value;

/// Resolves a local JSON pointer reference (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...`).
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&percent_decode(pointer))
}

/// `$ref` fragments are URI-encoded (`%24defs`); JSON pointers are not.
fn percent_decode(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(byte) = hex {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out)
        .map(Cow::Owned)
        .unwrap_or(Cow::Borrowed(text))
}

/// The name a reference is shown under: its last path segment (`#/$defs/Node` → `Node`).
pub(crate) fn ref_name(reference: &str) -> String {
    // `#` is the whole schema: a tool whose arguments nest themselves.
    let last = reference
        .rsplit(['/', '#'])
        .find(|s| !s.is_empty())
        .unwrap_or("Root");
    last.replace("~1", "/").replace("~0", "~")
}
