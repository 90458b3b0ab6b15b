//! Conversions at the JS boundary: structured values in and out with `serde-wasm-bindgen`,
//! errors as `{kind, message, hint}` objects.
//!
//! Answers are built with `Serializer::json_compatible()`: maps become plain objects, `None`
//! becomes `null`, so what a page receives is plain data, as `JSON.parse` would give it.
//! Incoming strings are decoded by wasm-bindgen's UTF-8 encoder, which turns a lone surrogate
//! (a page's trick, or a reply cut mid-emoji) into U+FFFD instead of failing the message.
//! Differences from the JSON text round trip this replaced: a property set to `undefined`
//! inside free-form JSON reads as `null` (missing struct fields still read as missing).
//!
//! [`to_js_text`] keeps the JSON text path for the one place where a measurement showed it
//! clearly faster (see BENCHMARKS.md, "Boundary").

use relay_core::contract::ErrorBody;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

const SERIALIZER: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::json_compatible();

/// Serialises to a plain JS value (objects, arrays, strings, numbers, booleans, null).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    // serde-wasm-bindgen refuses integers beyond 2^53 (a server's 64-bit id inside a tool
    // result) and non-string map keys; JSON text rounds the former and quotes the latter, as
    // the boundary always did, so such a value still arrives.
    value
        .serialize(&SERIALIZER)
        .or_else(|_| to_js_text(value))
}

/// Serialises through JSON text (`serde_json` then `JSON.parse`).
pub fn to_js_text<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| error_value(&ErrorBody::new("internal", e.to_string())))?;
    js_sys::JSON::parse(&text).map_err(|_| {
        error_value(&ErrorBody::new(
            "internal",
            "the core produced invalid JSON",
        ))
    })
}

/// Reads a JS value as a Rust type, with a clear error naming what was expected.
/// `undefined` reads as `null`.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| error_value(&ErrorBody::new("invalid_argument", format!("{what}: {e}"))))
}

/// An error object for a rejected promise or a thrown exception.
pub fn error_value(error: &ErrorBody) -> JsValue {
    error
        .serialize(&SERIALIZER)
        .unwrap_or_else(|_| JsValue::from_str(&error.message))
}
