//! The JS boundary in a real service worker: lone surrogates in incoming strings do not make a
//! message unreadable (structured and JSON text paths alike), answers are plain data (objects,
//! not `Map`s), integers stay integers, and a 64-bit integer beyond 2^53 still arrives.
#![cfg(target_arch = "wasm32")]

use js_sys::{Object, Reflect};
use relay_node::{handle, parse_tool_calls_js};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_service_worker);

/// `JSON.parse` turns the escape `\uD800` into a lone surrogate inside a JS string.
fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap_or(JsValue::NULL)
}

fn field(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |acc, k| {
        Reflect::get(&acc, &(*k).into()).unwrap_or(JsValue::UNDEFINED)
    })
}

fn is_plain_object(v: &JsValue) -> bool {
    v.is_object()
        && !v.has_type::<js_sys::Map>()
        && JsValue::from(Object::get_prototype_of(v))
            == JsValue::from(Object::get_prototype_of(&Object::new()))
}

const TOOL: &str = r#"{"name":"t","inputSchema":{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer"}}}}"#;

#[wasm_bindgen_test]
async fn a_lone_surrogate_in_a_message_is_replaced_not_fatal() {
    // (message, role): each must be read and answered, not refused as malformed.
    let cases = [
        (r#"{"type":"ping","note":"\uD800"}"#, "content"),
        (r#"{"type":"ping","note":"a\uDC00b\uD83D"}"#, "page"),
    ];
    for (message, role) in cases {
        let sender = js(&format!(
            r#"{{"role":"{role}","origin":"chrome-extension://test"}}"#
        ));
        let answer = handle(js(message), sender).await.unwrap_or(JsValue::NULL);
        assert_eq!(field(&answer, &["ok"]), JsValue::TRUE, "{message}");
    }
}

#[wasm_bindgen_test]
fn lone_surrogates_become_replacement_characters() {
    // (a server id as JSON with escapes, the id the core must see): structured values read
    // through serde-wasm-bindgen.
    let cases = [
        (r#""\uD800""#, "\u{FFFD}"),
        (r#""x\uDFFFy""#, "x\u{FFFD}y"),
        (r#""\uD83D\uDE00""#, "\u{1F600}"),
    ];
    for (id, want) in cases {
        let servers = js(&format!(
            r#"[{{"id":{id},"url":"http://127.0.0.1:9/mcp"}}]"#
        ));
        let client = relay_node::RelayClient::js_new(servers, js(r#"{"listen":false}"#));
        let client = client.unwrap_or_else(|e| panic!("{id} refused: {e:?}"));
        let status = client.js_status().unwrap_or(JsValue::NULL);
        assert_eq!(
            field(&status, &["0", "id"]).as_string().as_deref(),
            Some(want),
            "{id}"
        );
    }
    // The tools cross as JSON text: a lone surrogate in a description is repaired there too.
    let servers = js(
        r#"[{"id":"s","name":"s","tools":[{"name":"t","description":"bad \uD800","inputSchema":{"type":"object"}}]}]"#,
    );
    let parsed = parse_tool_calls_js(&JsValue::from_str("no calls here"), servers);
    assert!(parsed.is_ok(), "servers with a lone surrogate were refused");
}

#[wasm_bindgen_test]
fn answers_are_plain_data_with_integers_kept() {
    let servers = js(&format!(r#"[{{"id":"s","name":"s","tools":[{TOOL}]}}]"#));
    let reply = "```json\n{\"tool\": \"t\", \"server\": \"s\", \"arguments\": {\"s\": \"x\", \"n\": 3}}\n```\n";
    let out = parse_tool_calls_js(&JsValue::from_str(reply), servers).unwrap_or(JsValue::NULL);
    assert!(is_plain_object(&out));
    let args = field(&out, &["calls", "0", "arguments"]);
    assert!(is_plain_object(&args), "a map crossed as {args:?}");
    assert_eq!(field(&args, &["n"]).as_f64(), Some(3.0));
    assert!(js_sys::Number::is_integer(&field(&args, &["n"])));
    assert!(js_sys::Array::is_array(&field(&out, &["calls"])));
}

#[wasm_bindgen_test]
fn an_integer_beyond_2_pow_53_still_arrives() {
    let servers =
        js(r#"[{"id":"s","name":"s","tools":[{"name":"t","inputSchema":{"type":"object"}}]}]"#);
    let reply = "```json\n{\"tool\": \"t\", \"server\": \"s\", \"arguments\": {\"id\": 18446744073709551615, \"k\": 1}}\n```\n";
    let out = parse_tool_calls_js(&JsValue::from_str(reply), servers).unwrap_or(JsValue::NULL);
    let args = field(&out, &["calls", "0", "arguments"]);
    assert_eq!(
        field(&args, &["id"]).as_f64(),
        Some(18_446_744_073_709_551_615_u64 as f64)
    );
    assert_eq!(field(&args, &["k"]).as_f64(), Some(1.0));
    assert!(args.dyn_ref::<Object>().is_some());
}

#[wasm_bindgen_test]
fn undefined_fields_read_as_missing() {
    // tests/conformance/client.mjs passes `{transport, headers, timeoutMs}` straight from its
    // options, any of them `undefined`.
    let server = Object::new();
    for (key, value) in [
        ("id", JsValue::from_str("s")),
        ("url", JsValue::from_str("http://127.0.0.1:9/mcp")),
        ("transport", JsValue::UNDEFINED),
        ("headers", JsValue::UNDEFINED),
        ("timeoutMs", JsValue::UNDEFINED),
    ] {
        let _ = Reflect::set(&server, &key.into(), &value);
    }
    let options = js(r#"{"listen":false}"#);
    let _ = Reflect::set(&options, &"maxConcurrent".into(), &JsValue::UNDEFINED);
    let servers: JsValue = js_sys::Array::of1(&server).into();
    let client = relay_node::RelayClient::js_new(servers, options);
    let client = client.unwrap_or_else(|e| panic!("refused: {e:?}"));
    let status = client.js_status().unwrap_or(JsValue::NULL);
    assert_eq!(
        field(&status, &["0", "id"]).as_string().as_deref(),
        Some("s")
    );
    assert_eq!(field(&status, &["0", "enabled"]), JsValue::TRUE);
}
