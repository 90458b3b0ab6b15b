//! Parse results into JavaScript objects, made key by key.
//!
//! serde-wasm-bindgen makes every string anew (one `TextDecoder.decode` each, ~0.1 µs in Node
//! 20 for a short one) and passes each field name by value (a clone into wasm-bindgen's heap and
//! back per key). A call's object is mostly strings that repeat from call to call: its six
//! field names, its tool and server names, its format, its arguments' keys. Here they are made
//! once and passed by reference; only what is new in a call (its id, its argument values) is
//! decoded. Diagnostics, which are rare, still cross by serde-wasm-bindgen.
//!
//! The objects are what serde-wasm-bindgen's JSON-compatible serializer made, key for key and
//! in the same order (`tests::call_fields_are_the_serialized_ones` checks the names), with one
//! difference: an argument named `__proto__` becomes an own property, as `JSON.parse` makes it,
//! not the object's prototype (which an assignment sets).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use relay_core::parse::{CallFormat, ParseOutput, StreamUpdate, ToolCall};
use relay_wasm::js::to_js;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A fresh plain object, written by assignment (`o[k] = v`: no `Reflect.set` and its
    /// try/catch; assigning to a fresh, extensible plain object does not throw).
    #[wasm_bindgen(extends = js_sys::Object)]
    type Plain;
    #[wasm_bindgen(method, indexing_setter)]
    fn set(this: &Plain, key: &JsValue, value: JsValue);
    #[wasm_bindgen(method, indexing_setter, js_name = set)]
    fn set_shared(this: &Plain, key: &JsValue, value: &JsValue);
}

/// A call's fields as serde names them, in serde's order.
const CALL_FIELDS: [&str; 6] = ["tool", "server", "arguments", "callId", "span", "format"];

/// Names made into JavaScript strings once per module.
struct Names {
    calls: JsValue,
    pending: JsValue,
    diagnostics: JsValue,
    call: [JsValue; 6],
    start: JsValue,
    end: JsValue,
    proto: &'static str,
}

/// Strings seen as keys, tool, server and format names: made once, kept up to `INTERNED`.
type Interned = HashMap<Box<str>, JsValue, BuildHasherDefault<Fnv>>;
const INTERNED: usize = 1024;
/// Keys and names longer than this are rarely repeated; they are made each time.
const INTERN_LEN: usize = 64;

thread_local! {
    static NAMES: Names = Names {
        calls: JsValue::from_str("calls"),
        pending: JsValue::from_str("pending"),
        diagnostics: JsValue::from_str("diagnostics"),
        call: CALL_FIELDS.map(JsValue::from_str),
        start: JsValue::from_str("start"),
        end: JsValue::from_str("end"),
        proto: "__proto__",
    };
    static INTERN: RefCell<Interned> = RefCell::new(Interned::default());
}

/// `{calls, diagnostics}`.
pub(crate) fn parse_output(out: &ParseOutput) -> Result<JsValue, JsValue> {
    let diagnostics = to_js(&out.diagnostics)?;
    NAMES.with(|n| {
        let obj = plain();
        obj.set(&n.calls, calls(n, &out.calls));
        obj.set(&n.diagnostics, diagnostics);
        Ok(obj.into())
    })
}

/// `{calls, pending, diagnostics}`.
pub(crate) fn stream_update(update: &StreamUpdate) -> Result<JsValue, JsValue> {
    let diagnostics = to_js(&update.diagnostics)?;
    NAMES.with(|n| {
        let obj = plain();
        obj.set(&n.calls, calls(n, &update.calls));
        obj.set(&n.pending, JsValue::from_bool(update.pending));
        obj.set(&n.diagnostics, diagnostics);
        Ok(obj.into())
    })
}

fn plain() -> Plain {
    js_sys::Object::new().unchecked_into()
}

fn calls(n: &Names, calls: &[ToolCall]) -> JsValue {
    let list = js_sys::Array::new_with_length(calls.len() as u32);
    for (i, call) in calls.iter().enumerate() {
        list.set(i as u32, one_call(n, call));
    }
    list.into()
}

fn one_call(n: &Names, call: &ToolCall) -> JsValue {
    let [tool, server, arguments, call_id, span, format] = &n.call;
    let obj = plain();
    with_interned(&call.tool, |v| obj.set_shared(tool, v));
    with_interned(&call.server, |v| obj.set_shared(server, v));
    obj.set(arguments, value(n, &call.arguments));
    obj.set(call_id, JsValue::from_str(&call.call_id));
    let at = plain();
    at.set(&n.start, JsValue::from_f64(call.span.start as f64));
    at.set(&n.end, JsValue::from_f64(call.span.end as f64));
    obj.set(span, at.into());
    set_format(&obj, format, call.format);
    obj.into()
}

/// Sets `obj[key]` to the format's serialized name (a unit variant's string), made once per
/// format.
fn set_format(obj: &Plain, key: &JsValue, format: CallFormat) {
    thread_local! {
        static FORMATS: RefCell<Vec<(CallFormat, JsValue)>> = const { RefCell::new(Vec::new()) };
    }
    FORMATS.with_borrow_mut(|known| {
        if let Some((_, name)) = known.iter().find(|(f, _)| *f == format) {
            return obj.set_shared(key, name);
        }
        let name = JsValue::from_str(&format_text(format));
        obj.set_shared(key, &name);
        known.push((format, name));
    })
}

fn format_text(format: CallFormat) -> String {
    match serde_json::to_value(format) {
        Ok(Value::String(s)) => s,
        // A unit variant serializes to its name; nothing else is possible.
        _ => String::new(),
    }
}

/// A JSON value as JavaScript: objects with interned keys, numbers as doubles (an integer past
/// 2^53 rounds to the nearest one, as `JSON.parse` reads it).
fn value(n: &Names, v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(x) => JsValue::from_f64(number(x)),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let list = js_sys::Array::new_with_length(items.len() as u32);
            for (i, item) in items.iter().enumerate() {
                list.set(i as u32, value(n, item));
            }
            list.into()
        }
        Value::Object(map) => {
            let obj = plain();
            for (key, item) in map {
                let item = value(n, item);
                if key == n.proto {
                    // An own property, as JSON.parse makes it; assignment would set the
                    // object's prototype instead.
                    let desc = js_sys::Object::new();
                    let _ = js_sys::Reflect::set(&desc, &"value".into(), &item);
                    let _ = js_sys::Reflect::set(&desc, &"enumerable".into(), &JsValue::TRUE);
                    let _ = js_sys::Reflect::set(&desc, &"writable".into(), &JsValue::TRUE);
                    let _ = js_sys::Reflect::set(&desc, &"configurable".into(), &JsValue::TRUE);
                    let _ = js_sys::Reflect::define_property(&obj, &key.into(), &desc);
                } else {
                    with_interned(key, |k| obj.set(k, item));
                }
            }
            obj.into()
        }
    }
}

fn number(x: &serde_json::Number) -> f64 {
    // `as_f64` is `Some` for every number without `arbitrary_precision`.
    x.as_f64().unwrap_or(f64::NAN)
}

/// Calls `f` with `s` as a JavaScript string: the one made before for the same text, or a new
/// one (kept when short and the table has room; a table that fills is emptied, so a hostile
/// reply with endless distinct keys costs what it cost without the table).
fn with_interned<R>(s: &str, f: impl FnOnce(&JsValue) -> R) -> R {
    if s.len() > INTERN_LEN {
        return f(&JsValue::from_str(s));
    }
    INTERN.with_borrow_mut(|table| {
        if let Some(v) = table.get(s) {
            return f(v);
        }
        if table.len() >= INTERNED {
            table.clear();
        }
        let v = table
            .entry(s.into())
            .or_insert_with(|| JsValue::from_str(s));
        f(v)
    })
}

/// FNV-1a: keys here are short names, where SipHash's setup is most of the hashing.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// The names the objects are made with are the ones serde gives a call, in its order.
    #[test]
    fn call_fields_are_the_serialized_ones() {
        let servers = relay_core::parse::bench_inputs::servers();
        let out = relay_core::parse::parse_tool_calls(
            "```json\n{\"tool\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\n```",
            &servers,
        );
        let Some(call) = out.calls.first() else {
            panic!("one call expected: {out:?}");
        };
        let Ok(Value::Object(fields)) = serde_json::to_value(call) else {
            panic!("a call serializes to an object");
        };
        let names: Vec<&str> = fields.keys().map(String::as_str).collect();
        assert_eq!(names, CALL_FIELDS);
        let Ok(Value::Object(span)) = serde_json::to_value(call.span) else {
            panic!("a span serializes to an object");
        };
        assert_eq!(span.keys().collect::<Vec<_>>(), ["start", "end"]);
        assert_eq!(format_text(call.format), "tool");
    }
}
