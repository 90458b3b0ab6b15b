//! Requests as `fetch` sees them: gloo-net's builder keeps a session's URL (query included, gloo
//! issue #498), method and repeated headers; a header `Headers` refuses fails the exchange with a
//! message instead of panicking the worker; no request follows a redirect.
#![cfg(target_arch = "wasm32")]
use relay_core::client::HttpMethod;
use relay_wasm::mcp::fetch::build;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::AbortSignal;

fn signal() -> AbortSignal {
    web_sys::AbortController::new()
        .map(|c| c.signal())
        .unwrap_or_else(|_| JsValue::UNDEFINED.unchecked_into())
}

fn pairs(h: &[(&str, &str)]) -> Vec<(String, String)> {
    h.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[wasm_bindgen_test]
fn requests_keep_their_url_method_and_headers() {
    // (url as the session gives it, url fetch must see)
    let cases = [
        ("http://127.0.0.1:3001/mcp", "http://127.0.0.1:3001/mcp"),
        (
            "http://127.0.0.1:3001/messages/?session_id=4f2a9c",
            "http://127.0.0.1:3001/messages/?session_id=4f2a9c",
        ),
        (
            "http://127.0.0.1:3001/message?sessionId=a-1&x=2",
            "http://127.0.0.1:3001/message?sessionId=a-1&x=2",
        ),
        ("http://127.0.0.1:3001/mcp?", "http://127.0.0.1:3001/mcp"),
    ];
    let headers = pairs(&[
        ("Accept", "application/json, text/event-stream"),
        ("X-Extra", "a"),
        ("X-Extra", "b"),
    ]);
    for (url, want) in cases {
        for (method, name, body) in [
            (HttpMethod::Post, "POST", Some("{}")),
            (HttpMethod::Get, "GET", None),
            (HttpMethod::Delete, "DELETE", None),
        ] {
            let request = build(method, url, &headers, body, &signal())
                .unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(request.url(), want, "{name} {url}");
            assert_eq!(request.method().as_str(), name);
            let sent = request.headers();
            assert_eq!(
                sent.get("accept").as_deref(),
                Some("application/json, text/event-stream")
            );
            assert_eq!(sent.get("x-extra").as_deref(), Some("a, b"), "{url}");
            // Issue 24: a server's redirect is reported, never followed with its headers.
            let raw: web_sys::Request = request.into();
            assert_eq!(raw.redirect(), web_sys::RequestRedirect::Manual, "{url}");
        }
    }
}

#[wasm_bindgen_test]
fn a_bad_header_or_url_fails_the_exchange_with_a_message() {
    let bad_header = build(
        HttpMethod::Post,
        "http://127.0.0.1:3001/mcp",
        &pairs(&[("Authorization", "Bearer a\nb")]),
        Some("{}"),
        &signal(),
    );
    let message = bad_header.err().unwrap_or_default();
    assert!(message.starts_with("header `Authorization`"), "{message}");
    let bad_url = build(HttpMethod::Get, "not a url", &[], None, &signal());
    assert!(bad_url.is_err());
}
