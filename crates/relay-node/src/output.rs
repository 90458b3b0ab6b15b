//! A parse result into JavaScript, by the path that is faster for its shape.
//!
//! serde-wasm-bindgen builds the result value by value: a call into JavaScript per property and
//! a `TextDecoder.decode` per string, about the same for a 10-byte tool name as for a 1 MB
//! argument. JSON text (serde_json, then one decode and one `JSON.parse`) costs per byte: it
//! escapes, copies and re-reads every string. So a result of many small values (a reply with
//! hundreds of calls) crosses as JSON text, and one whose strings are long (one call carrying
//! most of a 1 MB reply) crosses structured (BENCHMARKS.md, "Boundary" and issue 22). Both give
//! the same plain JavaScript value.

use relay_core::parse::ParseOutput;
use relay_wasm::js::{to_js, to_js_text};
use serde_json::Value;
use wasm_bindgen::JsValue;

/// Bytes of string per value below which JSON text is the faster crossing (measured on the
/// competitor bench's replies: 4-10 bytes per value for 20 to 205 calls, about 50,000 for one
/// 1 MB call; the two costs meet in between, around a hundred).
const TEXT_BELOW_BYTES_PER_VALUE: usize = 64;

/// `output` as a plain JavaScript value.
pub(crate) fn output_to_js(output: &ParseOutput) -> Result<JsValue, JsValue> {
    if crosses_as_text(output) {
        to_js_text(output)
    } else {
        to_js(output)
    }
}

/// Whether `output` is mostly small values: its string bytes against its value count.
pub(crate) fn crosses_as_text(output: &ParseOutput) -> bool {
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
    bytes < values.saturating_mul(TEXT_BELOW_BYTES_PER_VALUE)
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

    /// The replies the choice was measured on go the way that measured faster.
    #[test]
    fn many_small_calls_cross_as_text_one_large_call_structured() {
        let servers = bench_inputs::servers();
        for format in bench_inputs::COMPETITOR_FORMATS {
            for calls in [1, 20, 205] {
                let out = parse_tool_calls(
                    &bench_inputs::competitor_reply(format, 1 << 20, calls),
                    &servers,
                );
                assert_eq!(out.calls.len(), calls, "{format} {calls}");
                assert!(crosses_as_text(&out), "{format}, {calls} calls");
            }
        }
        let large = parse_tool_calls(&bench_inputs::reply_with_one_large_call(1 << 20), &servers);
        assert_eq!(large.calls.len(), 1);
        assert!(!crosses_as_text(&large), "one 1 MB call");
        assert!(crosses_as_text(&ParseOutput::default()), "nothing found");
    }
}
