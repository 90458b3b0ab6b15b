//! Conversions at the JS boundary: structured values in and out with `serde-wasm-bindgen`
//! (answers as plain data, as `JSON.parse` would give them: maps as objects, `None` as `null`;
//! a lone surrogate in an incoming string becomes U+FFFD), errors as `{kind, message, hint}`.
//!
//! JSON text stays where BENCHMARKS.md ("Boundary: JSON text vs serde-wasm-bindgen") measured it
//! clearly faster: lists of tool definitions, many small objects and strings, cross in about
//! half the time as text ([`to_js_text`], [`from_js_text`]). Options and configurations built by
//! JavaScript code get a second chance through JSON text ([`from_js_lenient`]).

use relay_core::contract::ErrorBody;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

const SERIALIZER: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::json_compatible();

fn invalid(message: String) -> JsValue {
    error_value(&ErrorBody::new("invalid_argument", message))
}

/// Serialises to a plain JS value (objects, arrays, strings, numbers, booleans, null).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    // serde-wasm-bindgen refuses integers beyond 2^53 (a server's 64-bit id inside a tool
    // result) and non-string map keys; JSON text rounds the former and quotes the latter, as
    // the boundary always did, so such a value still arrives.
    value.serialize(&SERIALIZER).or_else(|_| to_js_text(value))
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

/// Reads a JS value as a Rust type (`undefined` reads as `null`), for values Chrome hands over
/// (messages, storage, senders): they are JSON-clean already.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid(format!("{what}: {e}")))
}

/// [`from_js`] for options and configurations that JavaScript code builds by hand:
/// serde-wasm-bindgen refuses `{timeoutMs: undefined}` where a number is expected, while
/// `JSON.stringify` drops it, so the field takes its default (also a `Date`, a `toJSON`). Not
/// the default: it instantiates both deserializers for `T` (13 KB gzipped more, BENCHMARKS.md).
pub fn from_js_lenient<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value.clone()).or_else(|_| from_js_text(&value, what))
}

/// Reads a JS value through JSON text (`JSON.stringify`, serde_json); `undefined` reads as
/// `null`.
pub fn from_js_text<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    let text = match value.is_undefined() {
        true => "null".to_owned(),
        false => js_sys::JSON::stringify(value)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| invalid(format!("{what}: not JSON data")))?,
    };
    // `JSON.stringify` writes a lone surrogate as an escape serde_json refuses; like the
    // structured path, it becomes U+FFFD instead of making the whole value unreadable.
    serde_json::from_str(&relay_core::json_text::replace_lone_surrogates(&text))
        .map_err(|e| invalid(format!("{what}: {e}")))
}

/// An error object for a rejected promise or a thrown exception.
pub fn error_value(error: &ErrorBody) -> JsValue {
    error
        .serialize(&SERIALIZER)
        .unwrap_or_else(|_| JsValue::from_str(&error.message))
}

/// A readable message from a JS error: `message`, plus Node's `cause` (`ECONNREFUSED`...),
/// which says much more than "fetch failed"; `fallback` when there is neither.
pub fn message(error: &JsValue, fallback: &str) -> String {
    let get =
        |value: &JsValue, key: &str| js_sys::Reflect::get(value, &JsValue::from_str(key)).ok();
    let text = |value: Option<JsValue>| value.and_then(|v| v.as_string());
    let message = text(get(error, "message")).or_else(|| error.as_string());
    let cause = get(error, "cause").filter(JsValue::is_object);
    let cause = cause.and_then(|c| text(get(&c, "code")).or_else(|| text(get(&c, "message"))));
    match (message, cause) {
        (Some(message), Some(cause)) => format!("{message} ({cause})"),
        (Some(message), None) => message,
        (None, Some(cause)) => cause,
        (None, None) => fallback.to_owned(),
    }
}
