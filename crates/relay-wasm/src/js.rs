//! Conversions at the JS boundary: plain JSON in and out (maps as objects), errors as
//! `{kind, message, hint}` objects.

use relay_core::contract::ErrorBody;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Serialises to a plain JS value; maps become objects, not `Map`s, so pages can use them as JSON.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&ser).map_err(|e| error_value(&ErrorBody::new("internal", e.to_string())))
}

/// Reads a JS value as a Rust type, with a clear error naming what was expected.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| error_value(&ErrorBody::new("invalid_argument", format!("{what}: {e}"))))
}

/// An error object for a rejected promise or a thrown exception.
pub fn error_value(error: &ErrorBody) -> JsValue {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    error.serialize(&ser).unwrap_or_else(|_| JsValue::from_str(&error.message))
}
