//! Conversions at the JS boundary: structured values in and out with `serde-wasm-bindgen`,
//! errors as `{kind, message, hint}` objects. Incoming values are read as `serde_json::Value`
//! first, so serde-wasm-bindgen's deserializer is instantiated once, not once per type.
//!
//! JSON text stays where BENCHMARKS.md ("Boundary: JSON text vs serde-wasm-bindgen") measured it
//! clearly faster: lists of tool definitions, many small objects and strings, cross in about
//! half the time as text ([`to_js_text`]; the Node build's readers of JSON text are in
//! relay-node's `text`).

use relay_core::contract::ErrorBody;
use relay_core::contract::ErrorKind;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;
use wasm_bindgen::JsValue;

const SERIALIZER: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::json_compatible();

/// Serialises to a plain JS value (objects, arrays, strings, numbers, booleans, null).
///
/// Straight through serde-wasm-bindgen: a parse result's large strings cross once, with no
/// intermediate tree (an extra `serde_json::Value` step cost 30% of the wasm parse throughput).
/// What serde-wasm-bindgen refuses goes through `Value`, whose serializer the core already
/// instantiates for storage and answers, rather than a per-type JSON text serializer.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&SERIALIZER).or_else(|_| {
        let value = serde_json::to_value(value)
            .map_err(|e| error_value(&ErrorBody::new(ErrorKind::Internal, e.to_string())))?;
        value_to_js(&value)
    })
}

/// A `Value` as a plain JS value.
pub fn value_to_js(value: &Value) -> Result<JsValue, JsValue> {
    // serde-wasm-bindgen refuses integers beyond 2^53 (a server's 64-bit id inside a tool
    // result); JSON text rounds them, as the boundary always did, so such a value still arrives.
    value.serialize(&SERIALIZER).or_else(|_| to_js_text(value))
}

/// Serialises through JSON text (`serde_json` then `JSON.parse`).
pub fn to_js_text<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| error_value(&ErrorBody::new(ErrorKind::Internal, e.to_string())))?;
    js_sys::JSON::parse(&text).map_err(|_| {
        error_value(&ErrorBody::new(
            ErrorKind::Internal,
            "the core produced invalid JSON",
        ))
    })
}

/// Reads a JS value as a Rust type, with a clear error naming what was expected.
/// `undefined` reads as `null`. For values Chrome hands over (messages, storage, senders):
/// they are JSON-clean already. Only `Value` meets serde-wasm-bindgen's deserializer, and each
/// type then reads from `Value` (`relay_core::json_value::from_value`, which the core instantiates anyway):
/// one deserializer per type instead of two or three, 40 KB less wasm (BENCHMARKS.md, size).
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    let value: Value = serde_wasm_bindgen::from_value(value).map_err(|e| invalid(what, &e))?;
    relay_core::json_value::from_value(value).map_err(|e| invalid(what, &e))
}

/// The error a reader of `what` throws: `invalid_argument` with the reason.
pub fn invalid(what: &str, e: &dyn std::fmt::Display) -> JsValue {
    error_value(&ErrorBody::new(
        ErrorKind::InvalidArgument,
        format!("{what}: {e}"),
    ))
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
