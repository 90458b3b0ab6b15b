//! Fuzz-style tests on stable Rust for the decoders that read what servers send: the SSE
//! decoder, the JSON-RPC reader and the schema renderer/validator/example generator.
//!
//! Inputs: a fixed corpus (`tests/fixtures/fuzz/{sse,jsonrpc,schema}/` at the repository root,
//! real-world shapes and known-nasty cases) plus inputs generated from a fixed seed (a
//! SplitMix64 generator, so every run tests the same cases and a failure names its input).
//! Counts are bounded so the whole file runs in a few seconds in a debug build.
//!
//! Properties: nothing panics; the SSE decoder's output does not depend on how the bytes are
//! split into chunks; the JSON-RPC reader returns messages that survive a round trip or a typed
//! error; rendering stays within a size bound of its schema.

use std::path::PathBuf;

use relay_core::client::jsonrpc::Message;
use relay_core::model::Tool;
use relay_core::schema::{
    example_arguments, render, render_catalog, render_type, validate, CatalogOptions,
};
use relay_core::sse::{SseDecoder, SseError, SseEvent, DEFAULT_MAX_EVENT_BYTES};
use serde_json::{json, Map, Value};

/// SplitMix64: tiny, deterministic, good enough to spread test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn corpus(kind: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/fuzz")
        .join(kind);
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("readable entry").path();
            let name = path
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("readable file"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the {kind} corpus is missing");
    files
}

// ---- SSE ------------------------------------------------------------------------------------

/// Everything a decoder reports for a stream.
#[derive(Debug, PartialEq)]
struct Decoded {
    events: Vec<SseEvent>,
    error: Option<SseError>,
    cut: Option<bool>,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

fn decode(chunks: &[&[u8]], max: usize) -> Decoded {
    let mut decoder = SseDecoder::with_max_event_bytes(max);
    let mut events = Vec::new();
    for chunk in chunks {
        match decoder.push(chunk) {
            Ok(more) => events.extend(more),
            Err(error) => {
                return Decoded {
                    events,
                    error: Some(error),
                    cut: None,
                    last_event_id: None,
                    retry_ms: None,
                }
            }
        }
    }
    let cut = Some(decoder.finish());
    Decoded {
        events,
        error: None,
        cut,
        last_event_id: decoder.last_event_id().map(str::to_owned),
        retry_ms: decoder.retry_ms(),
    }
}

/// Splits `input` at random points, empty chunks included.
fn split<'a>(rng: &mut Rng, input: &'a [u8]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = (0..rng.below(12))
        .map(|_| rng.below(input.len() + 1))
        .collect();
    cuts.push(0);
    cuts.push(input.len());
    cuts.sort_unstable();
    cuts.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

fn sse_stream(rng: &mut Rng) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"data: ",
        b"data:",
        b"data",
        b"event: message",
        b"event: endpoint",
        b"event:",
        b"id: 7",
        b"id: ",
        b"id:\x00",
        b"retry: 250",
        b"retry: x",
        b"retry: 99999999999999999999",
        b": comment",
        b":",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
        b"caf\xC3\xA9",
        b"\xF0\x9F\x98\x80",
        b"\xF0\x9F",
        b"\xFF",
        b"\xEF\xBB\xBF",
        b" ",
        b"value",
    ];
    const ENDS: &[&[u8]] = &[b"\n", b"\r", b"\r\n", b"\n\n", b"\r\n\r\n", b"\r\r"];
    let mut out = Vec::new();
    if rng.chance(10) {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for _ in 0..rng.below(40) {
        let piece = rng.pick::<&[u8]>(PIECES);
        out.extend_from_slice(piece);
        if rng.chance(60) {
            let end = rng.pick::<&[u8]>(ENDS);
            out.extend_from_slice(end);
        }
        if rng.chance(3) {
            out.push(rng.next() as u8);
        }
    }
    out
}

#[test]
fn sse_decoder_output_does_not_depend_on_chunking() {
    let mut rng = Rng(0x05EE_D55E);
    let mut inputs: Vec<(String, Vec<u8>)> = corpus("sse");
    for i in 0..400 {
        inputs.push((format!("generated #{i}"), sse_stream(&mut rng)));
    }
    let mut events_seen = 0;
    for (name, input) in &inputs {
        let whole = decode(&[input], DEFAULT_MAX_EVENT_BYTES);
        assert!(whole.error.is_none(), "{name}");
        let data_bytes: usize = whole.events.iter().map(|e| e.data.len()).sum();
        assert!(
            data_bytes <= 3 * input.len(),
            "{name}: output grew past its input"
        );
        events_seen += whole.events.len();
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(
            decode(&bytes, DEFAULT_MAX_EVENT_BYTES),
            whole,
            "{name}: byte by byte"
        );
        // A small limit: whether it is hit does not depend on chunking either, and what came
        // out before it is what an unlimited decoder produced first.
        let small_whole = decode(&[input], 24);
        for _ in 0..8 {
            let chunks = split(&mut rng, input);
            assert_eq!(
                decode(&chunks, DEFAULT_MAX_EVENT_BYTES),
                whole,
                "{name}: split {:?}",
                chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
            );
            let small = decode(&chunks, 24);
            assert_eq!(small.error.is_some(), small_whole.error.is_some(), "{name}");
            assert!(whole.events.starts_with(&small.events), "{name}");
            if small.error.is_none() {
                assert_eq!(small, small_whole, "{name}");
            }
        }
    }
    assert!(
        events_seen > 300,
        "the generator produces events ({events_seen})"
    );
}

// ---- JSON-RPC -------------------------------------------------------------------------------

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 => out.truncate(at),
            1 if at < out.len() => out[at] ^= 1 << rng.below(8),
            2 => out.insert(at, *rng.pick(b"{}[]\",:0-.e\\u \x00\xFF")),
            3 if at < out.len() => {
                out.remove(at);
            }
            4 => {
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(32)).min(other.len());
                out.splice(at..at, other[from..to].iter().copied());
            }
            _ => {
                let end = (at + rng.below(16)).min(out.len());
                let copy = out[at..end].to_vec();
                out.splice(at..at, copy);
            }
        }
    }
    out
}

fn jsonrpc_value(rng: &mut Rng, depth: usize) -> Value {
    let keys = [
        "jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data",
    ];
    match rng.below(if depth > 3 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.next() as i64 >> rng.below(64)),
        // Exactly representable: serde_json's default float parser may be off by an ulp on
        // 17-digit numbers, which is not what this test is about.
        3 => json!((rng.next() % 2_000_000) as f64 / 1024.0 - 977.0),
        4 => json!(*rng.pick(&["2.0", "1.0", "ping", "tools/call", "", "notifications/x"])),
        5 => json!(rng.below(3) as i64 - 32_700),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| jsonrpc_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(6) {
                map.insert((*rng.pick(&keys)).to_owned(), jsonrpc_value(rng, depth + 1));
            }
            if rng.chance(70) {
                map.insert("jsonrpc".into(), json!("2.0"));
            }
            Value::Object(map)
        }
    }
}

/// A well-formed message of a random kind, with random contents.
fn valid_message(rng: &mut Rng) -> Value {
    let id = if rng.chance(50) {
        json!(rng.next() as i64 >> rng.below(64))
    } else {
        json!(format!("id-{}", rng.below(100)))
    };
    let params = match rng.below(3) {
        0 => json!({"x": jsonrpc_value(rng, 2)}),
        1 => json!([jsonrpc_value(rng, 2)]),
        _ => Value::Null,
    };
    let mut message = match rng.below(4) {
        0 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}),
        1 => json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
        2 => json!({"jsonrpc": "2.0", "id": id, "result": jsonrpc_value(rng, 1)}),
        _ => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": rng.below(40_000) as i64 - 32_768,
            "message": "failed",
            "data": jsonrpc_value(rng, 2),
        }}),
    };
    if !params.is_null() && message.get("method").is_some() {
        message["params"] = params;
    }
    message
}

#[test]
fn jsonrpc_reader_never_panics_and_its_messages_round_trip() {
    let mut rng = Rng(0x1504_129C);
    let seeds = corpus("jsonrpc");
    let mut inputs: Vec<(String, Vec<u8>)> = seeds.clone();
    for (name, seed) in &seeds {
        for i in 0..60 {
            let other = &rng.pick(&seeds).1.clone();
            inputs.push((
                format!("{name} mutation #{i}"),
                mutate(&mut rng, seed, other),
            ));
        }
    }
    for i in 0..300 {
        let value = jsonrpc_value(&mut rng, 0);
        inputs.push((format!("value #{i}"), value.to_string().into_bytes()));
    }
    for i in 0..200 {
        let value = if rng.chance(20) {
            json!([valid_message(&mut rng), valid_message(&mut rng)])
        } else {
            valid_message(&mut rng)
        };
        let text = value.to_string().into_bytes();
        inputs.push((format!("message #{i}"), text.clone()));
        inputs.push((
            format!("message #{i} mutated"),
            mutate(&mut rng, &text, b"{}"),
        ));
    }
    for i in 0..100 {
        let bytes = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        inputs.push((format!("bytes #{i}"), bytes));
    }
    let (mut ok, mut errors) = (0, 0);
    for (name, input) in &inputs {
        match Message::parse_all(input) {
            Ok(messages) => {
                ok += 1;
                assert!(
                    !messages.is_empty() && messages.len() <= input.len(),
                    "{name}"
                );
                for message in messages {
                    let again = Message::parse_all(message.to_json().as_bytes())
                        .unwrap_or_else(|e| panic!("{name}: {e} after a round trip"));
                    assert_eq!(again, vec![message], "{name}");
                }
            }
            Err(error) => {
                errors += 1;
                assert!(!error.to_string().is_empty(), "{name}");
            }
        }
        if let Ok(value) = serde_json::from_slice::<Value>(input) {
            let _ = Message::from_value(value);
        }
    }
    assert!(
        ok > 150 && errors > 500,
        "both outcomes are exercised ({ok} ok, {errors} errors)"
    );
}

// ---- schemas --------------------------------------------------------------------------------

fn schema(rng: &mut Rng, depth: usize) -> Value {
    if depth > 4 || rng.chance(15) {
        return match rng.below(6) {
            0 => json!(rng.chance(50)),
            1 => {
                json!({"$ref": *rng.pick(&["#", "#/$defs/A", "#/$defs/B", "#/$defs/nope", "#/properties/a"])})
            }
            2 => json!({"type": *rng.pick(&["string", "integer", "number", "boolean", "null"])}),
            3 => json!({"enum": [1, "a", null, [1], {"k": true}]}),
            4 => json!({"const": rng.below(5)}),
            _ => json!({}),
        };
    }
    let mut map = Map::new();
    let types = [
        "object", "array", "string", "number", "integer", "boolean", "null", "bogus",
    ];
    if rng.chance(70) {
        let ty = if rng.chance(15) {
            json!([rng.pick(&types), rng.pick(&types)])
        } else {
            json!(rng.pick(&types))
        };
        map.insert("type".into(), ty);
    }
    let mut add = |key: &str, value: Value| {
        map.insert(key.to_owned(), value);
    };
    for _ in 0..rng.below(5) {
        match rng.below(22) {
            0 => {
                let props: Map<String, Value> = (0..rng.below(4))
                    .map(|i| (["a", "b", "x y", "é"][i].to_owned(), schema(rng, depth + 1)))
                    .collect();
                add("properties", Value::Object(props));
            }
            1 => add("required", json!(["a", "zz"])),
            2 => add("items", schema(rng, depth + 1)),
            3 => add(
                "prefixItems",
                json!([schema(rng, depth + 1), schema(rng, depth + 1)]),
            ),
            4 => add("additionalProperties", schema(rng, depth + 1)),
            5 => add(
                rng.pick::<&str>(&["anyOf", "oneOf", "allOf"]),
                json!([schema(rng, depth + 1), schema(rng, depth + 1)]),
            ),
            6 => add("not", schema(rng, depth + 1)),
            7 => {
                add("if", schema(rng, depth + 1));
                add("then", schema(rng, depth + 1));
            }
            8 => add(
                "$defs",
                json!({"A": schema(rng, depth + 1), "B": schema(rng, depth + 1)}),
            ),
            9 => add("minimum", json!(rng.below(10) as i64 - 5)),
            10 => add("exclusiveMaximum", json!(rng.below(10))),
            11 => add("maxLength", json!(rng.below(5))),
            12 => add(
                "pattern",
                json!(*rng.pick(&["^[a-z]+$", "(", "\\d{2,}", ""])),
            ),
            13 => add("enum", json!(["a", 1, null, 2.5])),
            14 => add("default", json!({"d": [1, "x"]})),
            15 => add("description", json!("some\n words  here")),
            16 => add("nullable", json!(true)),
            17 => add("patternProperties", json!({"^x": schema(rng, depth + 1)})),
            18 => add("dependentSchemas", json!({"a": schema(rng, depth + 1)})),
            19 => add("contains", schema(rng, depth + 1)),
            20 => add(
                "format",
                json!(*rng.pick(&["date-time", "uri", "email", "weird"])),
            ),
            _ => add("$ref", json!(*rng.pick(&["#", "#/$defs/A", "#/$defs/%41"]))),
        }
    }
    Value::Object(map)
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(20) as i64 - 10),
        3 => json!(rng.below(1000) as f64 / 7.0),
        4 => json!(*rng.pick(&["", "a", "12", "true", "2024-01-01T00:00:00Z", "é"])),
        5 => json!(rng.below(3)),
        6 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|i| (["a", "b", "x", "zz"][i].to_owned(), value(rng, depth + 1)))
                .collect(),
        ),
    }
}

/// Output bound of a rendering: linear in the schema's size with a generous factor. Shared
/// shapes are named, so a schema whose `$ref`s would expand exponentially stays small too.
fn bound(schema: &Value) -> usize {
    64 * schema.to_string().len() + 4_096
}

#[test]
fn schema_renderer_validator_and_examples_never_panic_and_stay_bounded() {
    let mut rng = Rng(0x005C_4E3A);
    let mut schemas: Vec<(String, Value)> = corpus("schema")
        .into_iter()
        .map(|(name, bytes)| {
            (
                name,
                serde_json::from_slice(&bytes).expect("corpus is JSON"),
            )
        })
        .collect();
    for i in 0..300 {
        schemas.push((format!("generated #{i}"), schema(&mut rng, 0)));
    }
    let tools: Vec<Tool> = schemas
        .iter()
        .map(|(name, s)| Tool::new(name.replace(['.', ' ', '#'], "_"), s.clone()))
        .collect();
    let mut largest = 0.0f64;
    for ((name, schema), tool) in schemas.iter().zip(&tools) {
        let text = render(tool);
        let inline = render_type(schema);
        for out in [&text, &inline] {
            assert!(out.len() <= bound(schema), "{name}: {} bytes", out.len());
            largest = largest.max(out.len() as f64 / schema.to_string().len() as f64);
        }
        let example = example_arguments(tool);
        assert!(
            example.to_string().len() <= bound(schema),
            "{name}: example"
        );
        validate(tool, &example);
        for _ in 0..3 {
            let args = value(&mut rng, 0);
            let checked = validate(tool, &args);
            if let Some(feedback) = checked.message_for_model(&tool.name) {
                assert!(
                    feedback.len() <= bound(schema) + 4 * args.to_string().len(),
                    "{name}"
                );
            }
        }
    }
    for batch in tools.chunks(25) {
        let refs: Vec<&Tool> = batch.iter().collect();
        let size: usize = batch.iter().map(|t| t.input_schema.to_string().len()).sum();
        for options in [CatalogOptions::default(), CatalogOptions::standalone()] {
            let catalog = render_catalog(&refs, &options);
            let text = catalog.types.len() + catalog.shared_docs.len();
            let tools_text: usize = catalog.tools.iter().map(String::len).sum();
            assert!(text + tools_text <= 64 * size + 4_096 * batch.len());
        }
    }
    assert!(largest > 0.0);
}

#[test]
fn a_ten_megabyte_description_renders_without_panic_and_linearly() {
    let description = "word ".repeat(2 * 1024 * 1024);
    let schema = json!({
        "type": "object",
        "description": description,
        "properties": {"q": {"type": "string", "description": description}},
        "required": ["q"],
    });
    let mut tool = Tool::new("big", schema.clone());
    tool.description = Some(description.clone());
    // No cap on descriptions: the text is kept whole, but never copied more than a few times.
    let text = render(&tool);
    assert!(text.len() <= 3 * description.len(), "{} bytes", text.len());
    assert!(render_type(&schema).len() <= 3 * description.len());
    assert!(!validate(&tool, &json!({})).is_valid());
    assert!(validate(&tool, &json!({"q": "x"})).is_valid());
    assert!(example_arguments(&tool).get("q").is_some());
}
