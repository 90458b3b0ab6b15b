//! Both ways of crossing the JS boundary side by side, for `tests/bench/boundary.bench.mjs`
//! only (cargo feature `boundary-bench`, never in the extension's build): JSON text
//! (`JSON.stringify` + serde_json in, serde_json + `JSON.parse` out) against serde-wasm-bindgen,
//! on a message in, an answer out, a `tools/list` answer and a parse result.

use relay_core::model::{ServerTools, Tool};
use relay_core::parse::{parse_tool_calls, ParseOutput};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::text::from_js_text;
use relay_wasm::js::{from_js, to_js, to_js_text};

fn read<T: DeserializeOwned>(value: &JsValue, text: bool) -> Result<T, JsValue> {
    if text {
        from_js_text(value, "value")
    } else {
        from_js(value.clone(), "value")
    }
}

fn write<T: serde::Serialize>(value: &T, text: bool) -> Result<JsValue, JsValue> {
    if text {
        to_js_text(value)
    } else {
        to_js(value)
    }
}

/// Holds the Rust side of each figure; `text` picks JSON text (`true`) or serde-wasm-bindgen.
#[wasm_bindgen(js_name = BoundaryBench)]
pub struct BoundaryBench {
    answer: Value,
    tools: Vec<Tool>,
    parsed: ParseOutput,
    /// Parse results of replies with many calls (issue 22, item 3): the 1 MB replies with a
    /// call every 20 KB (48 calls) and every 4.4 KB (205 calls), against the bench servers.
    by_size: Vec<ParseOutput>,
}

#[wasm_bindgen(js_class = BoundaryBench)]
impl BoundaryBench {
    /// `answer`: a typical answer (JSON text); `tools`: a tools/list result's tools (JSON
    /// text); a reply of `reply_bytes` whose one call carries almost all of it (the native
    /// benchmarks' `reply_with_one_large_call`) is parsed against `servers` once, here.
    #[wasm_bindgen(constructor)]
    pub fn new(
        answer: &str,
        tools: &str,
        servers: &str,
        reply_bytes: usize,
    ) -> Result<BoundaryBench, JsValue> {
        let reply = relay_core::parse::bench_inputs::reply_with_one_large_call(reply_bytes);
        let err = |e: serde_json::Error| JsValue::from_str(&e.to_string());
        let servers: Vec<ServerTools> = serde_json::from_str(servers).map_err(err)?;
        let bench = relay_core::parse::bench_inputs::servers();
        let by_size = [
            (10_000, 20_000),
            (100_000, 20_000),
            (1 << 20, 20_000),
            (1 << 20, 4_400),
        ]
        .into_iter()
        .map(|(size, gap)| {
            let text = relay_core::parse::bench_inputs::reply_with_calls_every(size, gap);
            parse_tool_calls(&text, &bench)
        })
        .collect();
        Ok(BoundaryBench {
            answer: serde_json::from_str(answer).map_err(err)?,
            tools: serde_json::from_str(tools).map_err(err)?,
            parsed: parse_tool_calls(&reply, &servers),
            by_size,
        })
    }

    /// Reads a message as `handle()` does (free-form JSON); returns its number of fields.
    #[wasm_bindgen(js_name = readMessage)]
    pub fn read_message(&self, message: &JsValue, text: bool) -> Result<usize, JsValue> {
        let value: Value = read(message, text)?;
        Ok(value.as_object().map_or(0, |o| o.len()))
    }

    /// Reads `[{id, name, tools}]` as `ToolSet`/`promptForServers` do; returns the tool count.
    #[wasm_bindgen(js_name = readServers)]
    pub fn read_servers(&self, servers: &JsValue, text: bool) -> Result<usize, JsValue> {
        let servers: Vec<ServerTools> = read(servers, text)?;
        Ok(servers.iter().map(|s| s.tools.len()).sum())
    }

    /// The typical answer, out.
    #[wasm_bindgen(js_name = writeAnswer)]
    pub fn write_answer(&self, text: bool) -> Result<JsValue, JsValue> {
        write(&self.answer, text)
    }

    /// The tools/list answer, out (as `RelayClient.listTools` returns it).
    #[wasm_bindgen(js_name = writeTools)]
    pub fn write_tools(&self, text: bool) -> Result<JsValue, JsValue> {
        write(&self.tools, text)
    }

    /// The parse result, out (as `parseToolCalls` returns it).
    #[wasm_bindgen(js_name = writeParse)]
    pub fn write_parse(&self, text: bool) -> Result<JsValue, JsValue> {
        write(&self.parsed, text)
    }

    /// The `i`-th parse result of many calls, out; `spans`: instead, its calls' spans as one
    /// `Uint32Array` (start, end per call: what a JavaScript caller holding the reply needs to
    /// find each call's text, the least any result could carry).
    #[wasm_bindgen(js_name = writeParseOf)]
    pub fn write_parse_of(&self, i: usize, text: bool, spans: bool) -> Result<JsValue, JsValue> {
        let parsed = self.by_size.get(i).ok_or("no such parse result")?;
        if spans {
            let flat: Vec<u32> = parsed
                .calls
                .iter()
                .flat_map(|c| [c.span.start as u32, c.span.end as u32])
                .collect();
            return Ok(js_sys::Uint32Array::from(flat.as_slice()).into());
        }
        write(parsed, text)
    }

    /// `[calls, bytes of JSON]` of the `i`-th parse result of many calls.
    #[wasm_bindgen(js_name = parseOfSize)]
    pub fn parse_of_size(&self, i: usize) -> Vec<usize> {
        self.by_size.get(i).map_or(vec![0, 0], |p| {
            vec![
                p.calls.len(),
                serde_json::to_string(p).map_or(0, |t| t.len()),
            ]
        })
    }

    /// Calls in the parse result.
    #[wasm_bindgen(getter)]
    pub fn calls(&self) -> usize {
        self.parsed.calls.len()
    }

    /// Bytes of the parse result as JSON text.
    #[wasm_bindgen(getter, js_name = parseBytes)]
    pub fn parse_bytes(&self) -> usize {
        serde_json::to_string(&self.parsed).map_or(0, |t| t.len())
    }
}
