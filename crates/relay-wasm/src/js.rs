//! Conversions at the JS boundary: plain JSON in and out, errors as `{kind, message, hint}`
//! objects.
//!
//! Values cross as JSON text (`JSON.stringify` / `JSON.parse` on the JS side, serde_json on
//! ours): one serde format for every type keeps the wasm module small (a second, JsValue-based
//! deserializer would instantiate every `Deserialize` impl twice), and the result is always
//! plain data a page can use.

use relay_core::contract::ErrorBody;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Serialises to a plain JS value (objects, arrays, strings, numbers, booleans, null).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
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
    let text = if value.is_undefined() {
        "null".to_owned()
    } else {
        js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| {
                error_value(&ErrorBody::new(
                    "invalid_argument",
                    format!("{what}: not JSON data"),
                ))
            })?
    };
    // A lone surrogate (a page's trick, or a reply cut mid-emoji) must not make the whole
    // message unreadable: it becomes U+FFFD, as a browser's own decoders do.
    serde_json::from_str(&relay_core::json_text::replace_lone_surrogates(&text))
        .map_err(|e| error_value(&ErrorBody::new("invalid_argument", format!("{what}: {e}"))))
}

/// An error object for a rejected promise or a thrown exception.
pub fn error_value(error: &ErrorBody) -> JsValue {
    serde_json::to_string(error)
        .ok()
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .unwrap_or_else(|| JsValue::from_str(&error.message))
}
