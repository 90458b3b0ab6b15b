//! The client's building blocks, table- and fixture-driven: URL resolution, `mcpServers`
//! import (golden files in `data/client_config/`), JSON-RPC classification, retry timing with an
//! injected clock and jitter, and the error reports users see (golden file).
//!
//! `UPDATE_EXPECT=1 cargo test -p relay-core --test test_client_units` rewrites the golden files.

use std::path::PathBuf;

use relay_core::client::jsonrpc::{ErrorCode, Message, RequestId};
use relay_core::client::{
    import_mcp_servers, ClientError, HttpUrl, Jitter, RetryPolicy, ServerConfig, ToolCache,
    TransportKind,
};
use relay_core::model::Tool;
use serde_json::{json, Value};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

fn golden(path: &str, actual: &str) {
    let path = data(path);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, actual).expect("golden writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs; rerun with UPDATE_EXPECT=1 and review\n{actual}",
        path.display()
    );
}

#[test]
fn url_references_resolve_per_rfc_3986() {
    let base = HttpUrl::parse("http://127.0.0.1:8000/sse").expect("valid");
    let nested = HttpUrl::parse("https://host.example/a/b/sse?x=1#frag").expect("valid");
    let cases = [
        (
            &base,
            "/messages/?session_id=abc",
            "http://127.0.0.1:8000/messages/?session_id=abc",
        ),
        (
            &base,
            "/message?sessionId=1-2",
            "http://127.0.0.1:8000/message?sessionId=1-2",
        ),
        (&base, "messages", "http://127.0.0.1:8000/messages"),
        (&base, "http://other:1/x", "http://other:1/x"),
        (&base, "//cdn.example/p", "http://cdn.example/p"),
        (&nested, "msg", "https://host.example/a/b/msg"),
        (&nested, "../msg?y=2", "https://host.example/a/msg?y=2"),
        (&nested, "./../../../../msg", "https://host.example/msg"),
        (
            &nested,
            "?only=query",
            "https://host.example/a/b/sse?only=query",
        ),
        (&nested, "", "https://host.example/a/b/sse?x=1"),
        (&nested, "/abs/./p/../q", "https://host.example/abs/q"),
    ];
    for (base, reference, expected) in cases {
        assert_eq!(
            base.join(reference).expect("resolves").to_string(),
            expected,
            "{base} + {reference:?}"
        );
    }
}

#[test]
fn url_parsing_and_loopback_detection() {
    let cases = [
        ("http://localhost:3001/mcp", Some(true)),
        ("http://LOCALHOST/mcp", Some(true)),
        ("http://api.localhost/mcp", Some(true)),
        ("http://127.0.0.1:3001", Some(true)),
        ("http://127.8.9.10/mcp", Some(true)),
        ("http://[::1]:8080/mcp", Some(true)),
        ("http://user:pw@127.0.0.1/mcp", Some(true)),
        ("https://mcp.example.com/mcp", Some(false)),
        ("http://127.0.0.1.example.com/", Some(false)),
        ("http://1270.0.0.1/", Some(false)),
        ("ftp://127.0.0.1/", None),
        ("127.0.0.1:3001/mcp", None),
        ("http:///nohost", None),
        ("http://host/with space", None),
    ];
    for (url, loopback) in cases {
        assert_eq!(
            HttpUrl::parse(url).ok().map(|u| u.is_loopback()),
            loopback,
            "{url}"
        );
    }
    assert_eq!(
        HttpUrl::parse("http://h:1").expect("valid").to_string(),
        "http://h:1/"
    );
}

#[test]
fn mcp_servers_imports_match_golden_files() {
    for (file, existing) in [
        ("claude_desktop", vec!["auto".to_owned()]),
        ("vscode", vec![]),
        ("settings_nested", vec![]),
    ] {
        let text =
            std::fs::read_to_string(data(&format!("client_config/{file}.json"))).expect("fixture");
        let report = import_mcp_servers(&text, &existing).expect("imports");
        let actual = serde_json::to_string_pretty(&report).expect("serializes") + "\n";
        golden(&format!("client_config/{file}.expected.json"), &actual);
        // Nothing is dropped silently.
        let entries = serde_json::from_str::<Value>(&text).expect("json");
        let count = ["mcpServers", "servers"]
            .iter()
            .find_map(|k| entries.get(k).and_then(Value::as_object).map(|o| o.len()))
            .unwrap_or_else(|| entries["mcp"]["servers"].as_object().map_or(0, |o| o.len()));
        assert_eq!(report.servers.len() + report.skipped.len(), count, "{file}");
    }
    assert!(import_mcp_servers("{\"other\": {}}", &[]).is_err());
    assert!(import_mcp_servers("not json", &[]).is_err());
}

#[test]
fn server_config_accepts_header_objects_and_pairs_and_round_trips() {
    let from_object: ServerConfig = serde_json::from_value(json!({
        "id": "a", "url": "http://h/mcp", "headers": {"Authorization": "Bearer x"}
    }))
    .expect("object headers");
    let from_pairs: ServerConfig = serde_json::from_value(json!({
        "id": "a", "url": "http://h/mcp", "headers": [["Authorization", "Bearer x"]]
    }))
    .expect("pair headers");
    assert_eq!(from_object, from_pairs);
    assert_eq!(from_object.transport, TransportKind::Auto);
    assert_eq!(from_object.timeout_ms, 30_000);
    assert!(from_object.enabled);
    let wire = serde_json::to_value(&from_object).expect("serializes");
    assert_eq!(
        wire,
        json!({"id": "a", "name": "", "url": "http://h/mcp", "transport": "auto",
               "headers": [["Authorization", "Bearer x"]], "timeoutMs": 30000, "enabled": true})
    );
    let mut bad = from_object.clone();
    bad.headers = vec![("X-Evil".into(), "a\r\nInjected: 1".into())];
    assert!(bad.validate().is_err());
    bad.headers = vec![("Bad Name".into(), "v".into())];
    assert!(bad.validate().is_err());
}

#[test]
fn jsonrpc_messages_are_classified_or_rejected_with_a_reason() {
    let cases: &[(Value, &str)] = &[
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            "request",
        ),
        (
            json!({"jsonrpc": "2.0", "id": "a", "method": "x", "params": {"k": 1}}),
            "request",
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}),
            "notification",
        ),
        (json!({"jsonrpc": "2.0", "id": 1, "result": {}}), "response"),
        (
            json!({"jsonrpc": "2.0", "id": 1, "result": null}),
            "response",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}),
            "error",
        ),
        (
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse"}}),
            "error",
        ),
        (
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "bad"}}),
            "error",
        ),
        (
            json!({"jsonrpc": "1.0", "id": 1, "result": {}}),
            "missing or wrong \"jsonrpc\"",
        ),
        (
            json!({"id": 1, "result": {}}),
            "missing or wrong \"jsonrpc\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1.5, "result": {}}),
            "invalid id",
        ),
        (
            json!({"jsonrpc": "2.0", "id": [1], "method": "x"}),
            "invalid id",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": 7}),
            "\"method\" must be a string",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": 3}),
            "\"params\" must be",
        ),
        (json!({"jsonrpc": "2.0", "id": 1}), "exactly one of"),
        (
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": ""}}),
            "exactly one of",
        ),
        (json!({"jsonrpc": "2.0", "result": {}}), "needs an id"),
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": {"message": "no code"}}),
            "invalid \"error\"",
        ),
        (json!([1, 2]), "must be an object"),
        (json!("text"), "must be an object"),
    ];
    for (value, expected) in cases {
        let got = match Message::from_value(value.clone()) {
            Ok(Message::Request(_)) => "request".to_owned(),
            Ok(Message::Notification(_)) => "notification".to_owned(),
            Ok(Message::Response(_)) => "response".to_owned(),
            Ok(Message::Error(_)) => "error".to_owned(),
            Err(e) => e.to_string(),
        };
        assert!(
            got.contains(expected),
            "{value}: got {got:?}, expected {expected:?}"
        );
    }
}

#[test]
fn jsonrpc_batches_and_round_trips() {
    let batch = br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]"#;
    assert_eq!(Message::parse_all(batch).expect("batch").len(), 2);
    assert!(Message::parse_all(b"[]").is_err());
    assert!(Message::parse_all(b"{").is_err());
    for text in [
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":"x","result":{"a":1}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
    ] {
        let message: Message = serde_json::from_str(text).expect("parses");
        let back: Value = serde_json::from_str(&message.to_json()).expect("json");
        assert_eq!(
            back,
            serde_json::from_str::<Value>(text).expect("json"),
            "{text}"
        );
    }
    assert_eq!(
        ErrorCode::METHOD_NOT_FOUND.to_string(),
        "-32601, method not found"
    );
    assert_eq!(ErrorCode(-1).to_string(), "-1");
    assert_eq!(RequestId::String("a".into()).to_string(), "\"a\"");
}

#[test]
fn backoff_grows_with_jitter_in_the_upper_half_and_respects_the_budget() {
    let policy = RetryPolicy::new(5, 500, 4_000, 10_000);
    let rows = [
        (2, 0.0, 250),
        (2, 0.999, 499),
        (3, 0.0, 500),
        (3, 0.5, 750),
        (4, 0.0, 1_000),
        (5, 0.0, 2_000),
        (9, 0.0, 2_000),
    ];
    for (attempt, jitter, expected) in rows {
        assert_eq!(
            policy.delay_ms(attempt, jitter),
            expected,
            "attempt {attempt} jitter {jitter}"
        );
    }
    // Attempt 6 is past max_attempts; a retry that would start after the budget is refused.
    assert_eq!(policy.next_attempt_at(6, 0, 100, 0.0, None), None);
    assert_eq!(policy.next_attempt_at(2, 0, 100, 0.0, None), Some(350));
    assert_eq!(policy.next_attempt_at(2, 0, 9_900, 0.0, None), None);
    assert_eq!(
        policy.next_attempt_at(2, 0, 100, 0.0, Some(3_000)),
        Some(3_100),
        "Retry-After wins"
    );
    // The jitter source is deterministic per seed and spread over [0, 1).
    let sample: Vec<f64> = {
        let mut j = Jitter::new(42);
        (0..1_000).map(|_| j.next_unit()).collect()
    };
    let again: Vec<f64> = {
        let mut j = Jitter::new(42);
        (0..1_000).map(|_| j.next_unit()).collect()
    };
    assert_eq!(sample, again);
    assert!(sample.iter().all(|x| (0.0..1.0).contains(x)));
    let mean = sample.iter().sum::<f64>() / sample.len() as f64;
    assert!((0.45..0.55).contains(&mean), "mean {mean}");
}

#[test]
fn tool_cache_expires_and_ignores_results_fetched_before_an_invalidation() {
    let mut cache = ToolCache::new(1_000);
    let tools = vec![Tool::new("t", json!({"type": "object"}))];
    assert!(cache.get(0).is_none());
    let generation = cache.generation();
    assert!(cache.store(tools.clone(), 100, generation));
    assert!(cache.get(1_099).is_some());
    assert!(cache.get(1_100).is_none());
    let before = cache.generation();
    cache.invalidate();
    assert!(
        !cache.store(tools, 2_000, before),
        "a list fetched before list_changed is stale"
    );
    assert!(cache.get(2_000).is_none());
}

#[test]
fn error_reports_match_golden_file() {
    let url = "http://127.0.0.1:3001/mcp".to_owned();
    let errors = [
        ClientError::Connection {
            url: url.clone(),
            message: "connect ECONNREFUSED 127.0.0.1:3001".into(),
        },
        ClientError::Auth {
            url: url.clone(),
            status: 401,
            loopback: true,
            www_authenticate: Some("Bearer realm=\"x\"".into()),
        },
        ClientError::Auth {
            url: url.clone(),
            status: 403,
            loopback: true,
            www_authenticate: None,
        },
        ClientError::Auth {
            url: "https://mcp.example.com/mcp".into(),
            status: 403,
            loopback: false,
            www_authenticate: None,
        },
        ClientError::Http {
            url: url.clone(),
            status: 404,
            body: "Not Found".into(),
            retry_after_ms: None,
        },
        ClientError::Http {
            url: url.clone(),
            status: 405,
            body: String::new(),
            retry_after_ms: None,
        },
        ClientError::Http {
            url: url.clone(),
            status: 429,
            body: "slow down".into(),
            retry_after_ms: Some(2_000),
        },
        ClientError::Http {
            url: url.clone(),
            status: 502,
            body: "x".repeat(300),
            retry_after_ms: None,
        },
        ClientError::Protocol {
            url: url.clone(),
            message: "malformed JSON-RPC response: not JSON".into(),
        },
        ClientError::Rpc {
            method: "prompts/get".into(),
            code: ErrorCode::METHOD_NOT_FOUND,
            message: "Method not found".into(),
            data: None,
        },
        ClientError::Rpc {
            method: "resources/read".into(),
            code: ErrorCode::RESOURCE_NOT_FOUND,
            message: "no such resource".into(),
            data: None,
        },
        ClientError::Tool {
            tool: "add".into(),
            code: ErrorCode::INVALID_PARAMS,
            message: "b: required".into(),
            data: None,
        },
        ClientError::Tool {
            tool: "add".into(),
            code: ErrorCode::INTERNAL_ERROR,
            message: "boom".into(),
            data: None,
        },
        ClientError::Timeout {
            method: "tools/list".into(),
            after_ms: 30_000,
        },
        ClientError::OutcomeUnknown {
            tool: "send_email".into(),
            reason: "tools/call got no answer within 30 s".into(),
        },
        ClientError::RetriesExhausted {
            method: "initialize".into(),
            attempts: 3,
            last: Box::new(ClientError::Connection {
                url: url.clone(),
                message: "Failed to fetch".into(),
            }),
        },
        ClientError::Cancelled {
            method: "tools/call".into(),
            reason: "user cancelled".into(),
        },
        ClientError::SessionExpired { url: url.clone() },
        ClientError::UnsupportedProtocolVersion {
            url,
            received: "2099-01-01".into(),
        },
        ClientError::Config {
            message: "server `x`: `ftp://h` is not an http:// or https:// URL".into(),
        },
    ];
    let reports: Vec<Value> = errors
        .iter()
        .map(|e| {
            let mut report = serde_json::to_value(e.report()).expect("serializes");
            report["transient"] = json!(e.is_transient());
            report
        })
        .collect();
    golden(
        "client/error_reports.json",
        &(serde_json::to_string_pretty(&reports).expect("json") + "\n"),
    );
    let transient: Vec<&str> = errors
        .iter()
        .filter(|e| e.is_transient())
        .map(|e| e.kind().as_str())
        .collect();
    assert_eq!(transient, ["connection", "http", "http", "timeout"]);
}

#[test]
fn tools_keep_members_the_model_does_not_name() {
    // server-everything 2026 sends `execution`; others send `icons` and `_meta`. A tool must
    // reach the prompt and the side panel exactly as the server described it.
    let wire = json!({
        "name": "research",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"},
        "icons": [{"src": "https://example.com/i.png"}],
        "_meta": {"vendor": 1}
    });
    let tool: Tool = serde_json::from_value(wire.clone()).expect("parses");
    assert_eq!(tool.extra.len(), 3);
    assert_eq!(serde_json::to_value(&tool).expect("serializes"), wire);
    let plain = Tool::new("t", json!({"type": "object"}));
    assert_eq!(
        serde_json::to_value(&plain).expect("serializes"),
        json!({"name": "t", "inputSchema": {"type": "object"}})
    );
}
