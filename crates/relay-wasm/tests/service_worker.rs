//! The wasm core inside a real service worker (headless Chromium via chromedriver): the exported
//! message handler answers, refuses what the contract refuses, and keeps state between calls.
#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use relay_wasm::handle;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_service_worker);

fn obj(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap_or(JsValue::NULL)
}

async fn call(message: &str, role: &str) -> JsValue {
    let sender = obj(&format!(
        r#"{{"role":"{role}","origin":"chrome-extension://test"}}"#
    ));
    handle(obj(message), sender).await.unwrap_or(JsValue::NULL)
}

fn field(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |acc, k| {
        Reflect::get(&acc, &(*k).into()).unwrap_or(JsValue::UNDEFINED)
    })
}

#[wasm_bindgen_test]
async fn answers_ping_in_a_service_worker() {
    let global = js_sys::global();
    assert!(
        Reflect::has(&global, &"registration".into()).unwrap_or(false),
        "not running in a service worker"
    );
    let answer = call(r#"{"type":"ping"}"#, "content").await;
    assert_eq!(field(&answer, &["ok"]), JsValue::TRUE);
    assert_eq!(
        field(&answer, &["data", "role"]).as_string().as_deref(),
        Some("content")
    );
}

#[wasm_bindgen_test]
async fn refuses_page_only_messages_from_content_scripts() {
    let answer = call(r#"{"type":"settings/set","settings":{}}"#, "content").await;
    assert_eq!(field(&answer, &["ok"]), JsValue::FALSE);
    assert_eq!(
        field(&answer, &["error", "kind"]).as_string().as_deref(),
        Some("forbidden")
    );
    let answer = call(r#"{"type":"ping"}"#, "website").await;
    assert_eq!(
        field(&answer, &["error", "kind"]).as_string().as_deref(),
        Some("forbidden")
    );
}

#[wasm_bindgen_test]
async fn keeps_custom_sites_between_calls_and_rejects_bad_origins() {
    let bad = call(
        r#"{"type":"sites/add","origin":"javascript:alert(1)"}"#,
        "page",
    )
    .await;
    assert_eq!(
        field(&bad, &["error", "kind"]).as_string().as_deref(),
        Some("invalid_argument")
    );
    let added = call(
        r#"{"type":"sites/add","origin":"http://127.0.0.1:3000/","adapter":"chatgpt"}"#,
        "page",
    )
    .await;
    assert_eq!(field(&added, &["ok"]), JsValue::TRUE);
    let listed = call(r#"{"type":"sites/list"}"#, "page").await;
    let first = field(&listed, &["data", "0", "origin"]);
    assert_eq!(first.as_string().as_deref(), Some("http://127.0.0.1:3000"));
}
