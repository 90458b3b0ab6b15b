//! Readers of values JavaScript code builds by hand (options, configurations, tool lists), for
//! the Node build's API: through JSON text where it measured faster (BENCHMARKS.md, "Boundary:
//! JSON text vs serde-wasm-bindgen"), and as a second chance where serde-wasm-bindgen refuses.

use relay_wasm::js::{from_js, invalid};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::JsValue;

/// [`from_js`] for options and configurations that JavaScript code builds by hand.
/// serde-wasm-bindgen reads `{timeoutMs: undefined}` as a present field (`null`), refused where
/// a number is expected; `JSON.stringify` drops it, so the field takes its default as it always
/// did. The same second chance covers what JSON converts and serde-wasm-bindgen does not (a
/// `Date`, an object with `toJSON`). Both tries read into `Value`, so `T` has one deserializer.
pub fn from_js_lenient<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    from_js(value.clone(), what).or_else(|_| {
        let v: Value = from_js_text(&value, what)?;
        relay_core::json_value::from_value(v).map_err(|e| invalid(what, &e))
    })
}

/// Reads a JS value through JSON text (`JSON.stringify`, serde_json); `undefined` reads as
/// `null`.
pub fn from_js_text<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() {
        return read_json("null", what);
    }
    with_json_text(value, what, |text| read_json(text, what))
}

/// Calls `f` with the JSON text of `value` (`JSON.stringify`) as UTF-8 in wasm memory; an error
/// when it has none (`undefined`, a function, a cycle, a `BigInt`).
pub fn with_json_text<R>(
    value: &JsValue,
    what: &str,
    f: impl FnOnce(&str) -> Result<R, JsValue>,
) -> Result<R, JsValue> {
    match js_sys::JSON::stringify(value) {
        // Into wasm memory by one `encodeInto` (`crate::staged`): the text is mostly ASCII,
        // which wasm-bindgen's glue copies one unit at a time in JavaScript (2.1-2.7 ms for the
        // 852 KB of 1,000 tools, against 0.05 ms).
        Ok(text) if text.is_string() => crate::staged::with_text(&text, f),
        _ => Err(invalid(what, &"not JSON data")),
    }
}

/// Reads JSON text that `JSON.stringify` wrote.
pub fn read_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, JsValue> {
    // `JSON.stringify` writes a lone surrogate as an escape serde_json refuses; like the
    // structured path, it becomes U+FFFD instead of making the whole value unreadable.
    serde_json::from_str(&relay_core::json_text::replace_lone_surrogates(text))
        .map_err(|e| invalid(what, &e))
}
