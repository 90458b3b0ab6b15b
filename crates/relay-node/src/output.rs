//! A parse result into JavaScript, by the path that is faster for its shape.
//!
//! serde-wasm-bindgen builds the result value by value: a call into JavaScript per property and
//! a `TextDecoder.decode` per string, about the same for a 10-byte tool name as for a 1 MB
//! argument. JSON text is no better for many small values: `JSON.parse` took 0.24-0.29 ms for
//! the 35 KB result of 205 calls (Node 20), where JavaScript builds the same objects from
//! literals in 0.01 ms. So a result of many small values (a reply with hundreds of calls)
//! crosses as two buffers, every string in one JavaScript string (one decode) and the
//! structure with the numbers in one `Float64Array`, read by a small builder function (made
//! once, with `Function`) that writes the objects as literals of one shape; a result whose
//! strings are long (one call carrying most of a 1 MB reply) crosses structured (`crate::out`), where each
//! long string is decoded once and never copied again. Both give the plain JavaScript value
//! that JSON text would (BENCHMARKS.md, issue 22).

use relay_core::parse::{CallFormat, DiagnosticKind, ParseOutput};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Bytes of string per value below which the buffers are the faster crossing (4-10 bytes per
/// value for 20 to 205 calls, about 50,000 for one 1 MB call).
const BUFFERS_BELOW_BYTES_PER_VALUE: usize = 64;

/// `output` as a plain JavaScript value.
pub(crate) fn output_to_js(output: &ParseOutput) -> Result<JsValue, JsValue> {
    if !crosses_as_buffers(output) {
        return crate::out::parse_output(output);
    }
    BUILD.with(|build| match build {
        Some(build) => {
            let mut enc = Encoder::default();
            enc.output(output);
            let strings = JsValue::from_str(&enc.strings);
            let numbers = js_sys::Float64Array::from(enc.numbers.as_slice());
            build.call2(&JsValue::NULL, &strings, &numbers)
        }
        // A host that refuses code made from strings (`--disallow-code-generation-from-strings`,
        // a CSP without 'unsafe-eval'): the structured crossing.
        None => crate::out::parse_output(output),
    })
}

// The reader of [`Encoder`]'s buffers, in JavaScript: `s`, the strings one after another; `n`,
// the structure. A value is a tag (0 null, 1 false, 2 true, 3 a number that follows, 4 a
// string of the length that follows, 5 an array of the count that follows, 6 an object of the
// count that follows, each member a key's length then a value); a string's length is in UTF-16
// units. `__proto__` as a key is an own property, as `JSON.parse` makes it.
const BUILDER: &str = r#"
let p = 0, q = 0;
const str = () => { const e = q + n[p++]; const r = s.slice(q, e); q = e; return r; };
const span = () => ({ start: n[p++], end: n[p++] });
const val = () => {
  switch (n[p++]) {
    case 0: return null;
    case 1: return false;
    case 2: return true;
    case 3: return n[p++];
    case 4: return str();
    case 5: { const c = n[p++]; const a = []; for (let i = 0; i < c; i++) a.push(val()); return a; }
    default: {
      const c = n[p++]; const o = {};
      for (let i = 0; i < c; i++) {
        const k = str(); const v = val();
        if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
        else o[k] = v;
      }
      return o;
    }
  }
};
const calls = [];
for (let i = 0, c = n[p++]; i < c; i++) {
  calls.push({ tool: str(), server: str(), arguments: val(), callId: str(), span: span(), format: str() });
}
const diagnostics = [];
for (let i = 0, c = n[p++]; i < c; i++) {
  const d = { kind: str(), message: str(), span: n[p++] ? span() : null };
  const k = n[p++];
  if (k) { d.details = []; for (let j = 0; j < k; j++) d.details.push(str()); }
  diagnostics.push(d);
}
return { calls, diagnostics };
"#;

#[wasm_bindgen]
extern "C" {
    /// `Function(args, body)`, caught: a host may refuse code made from strings.
    #[wasm_bindgen(catch, js_name = Function)]
    fn function(args: &str, body: &str) -> Result<js_sys::Function, JsValue>;
}

thread_local! {
    /// [`BUILDER`] as a function, made once; `None` where the host refuses to make it.
    static BUILD: Option<js_sys::Function> = function("s, n", BUILDER).ok();
}

/// The two buffers [`BUILDER`] reads.
#[derive(Default)]
struct Encoder {
    strings: String,
    numbers: Vec<f64>,
    /// Serde's names of the enums met so far (a few kinds per result).
    names: Vec<(Enum, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Enum {
    Format(CallFormat),
    Kind(DiagnosticKind),
}

impl Encoder {
    fn output(&mut self, output: &ParseOutput) {
        self.numbers.push(output.calls.len() as f64);
        for call in &output.calls {
            self.string(&call.tool);
            self.string(&call.server);
            self.value(&call.arguments);
            self.string(&call.call_id);
            self.numbers.push(call.span.start as f64);
            self.numbers.push(call.span.end as f64);
            self.name(Enum::Format(call.format));
        }
        self.numbers.push(output.diagnostics.len() as f64);
        for d in &output.diagnostics {
            self.name(Enum::Kind(d.kind));
            self.string(&d.message);
            match d.span {
                Some(span) => self
                    .numbers
                    .extend([1.0, span.start as f64, span.end as f64]),
                None => self.numbers.push(0.0),
            }
            self.numbers.push(d.details.len() as f64);
            for detail in &d.details {
                self.string(detail);
            }
        }
    }

    fn string(&mut self, s: &str) {
        let units = if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        self.numbers.push(units as f64);
        self.strings.push_str(s);
    }

    /// An enum's name as serde writes it (what the structured path gives JavaScript).
    fn name(&mut self, e: Enum) {
        let at = match self.names.iter().position(|(k, _)| *k == e) {
            Some(at) => at,
            None => {
                let name = match e {
                    Enum::Format(f) => serde_json::to_value(f),
                    Enum::Kind(k) => serde_json::to_value(k),
                };
                let name = match name {
                    Ok(Value::String(s)) => s,
                    _ => String::new(),
                };
                self.names.push((e, name));
                self.names.len() - 1
            }
        };
        let name = std::mem::take(&mut self.names[at].1);
        self.string(&name);
        self.names[at].1 = name;
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.numbers.push(0.0),
            Value::Bool(false) => self.numbers.push(1.0),
            Value::Bool(true) => self.numbers.push(2.0),
            Value::Number(n) => {
                // As `JSON.parse` reads serde_json's text of it: the nearest double.
                let x = n.as_f64().unwrap_or(f64::NAN);
                self.numbers.extend([3.0, x]);
            }
            Value::String(s) => {
                self.numbers.push(4.0);
                self.string(s);
            }
            Value::Array(items) => {
                self.numbers.extend([5.0, items.len() as f64]);
                items.iter().for_each(|item| self.value(item));
            }
            Value::Object(map) => {
                self.numbers.extend([6.0, map.len() as f64]);
                for (k, item) in map {
                    self.string(k);
                    self.value(item);
                }
            }
        }
    }
}

/// Whether `output` is mostly small values: its string bytes against its value count.
pub(crate) fn crosses_as_buffers(output: &ParseOutput) -> bool {
    let (mut values, mut bytes) = (2usize, 0usize);
    for call in &output.calls {
        // The call object, its six fields and its span's two numbers.
        values += 9;
        bytes += call.tool.len() + call.server.len() + call.call_id.len();
        weigh(&call.arguments, &mut values, &mut bytes);
    }
    for d in &output.diagnostics {
        values += 6 + d.details.len();
        bytes += d.message.len() + d.details.iter().map(String::len).sum::<usize>();
    }
    bytes < values.saturating_mul(BUFFERS_BELOW_BYTES_PER_VALUE)
}

fn weigh(value: &Value, values: &mut usize, bytes: &mut usize) {
    *values += 1;
    match value {
        Value::String(s) => *bytes += s.len(),
        Value::Array(items) => items.iter().for_each(|v| weigh(v, values, bytes)),
        Value::Object(map) => {
            for (k, v) in map {
                *bytes += k.len();
                weigh(v, values, bytes);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use relay_core::parse::{bench_inputs, parse_tool_calls};

    /// The replies the choice was measured on (at a quarter of their size, which keeps their
    /// shape: the wasm tests run this too) go the way that measured faster.
    #[test]
    fn many_small_calls_cross_as_buffers_one_large_call_structured() {
        let servers = bench_inputs::servers();
        for format in bench_inputs::COMPETITOR_FORMATS {
            for calls in [1, 20, 205] {
                let out = parse_tool_calls(
                    &bench_inputs::competitor_reply(format, 1 << 18, calls),
                    &servers,
                );
                assert_eq!(out.calls.len(), calls, "{format} {calls}");
                assert!(crosses_as_buffers(&out), "{format}, {calls} calls");
            }
        }
        let large = parse_tool_calls(&bench_inputs::reply_with_one_large_call(1 << 18), &servers);
        assert_eq!(large.calls.len(), 1);
        assert!(!crosses_as_buffers(&large), "one 256 KB call");
        assert!(crosses_as_buffers(&ParseOutput::default()), "nothing found");
    }
}
