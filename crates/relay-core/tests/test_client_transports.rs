//! The sans-IO session's streams, transports and configuration against scripted servers and a
//! fake clock: large bodies, the listen GET stream, the legacy HTTP+SSE transport and `auto`
//! detection, invalid configurations and custom headers. Like `test_client_session`, each
//! scenario compares its wire transcript with `data/client/<scenario>.txt`
//! (`UPDATE_EXPECT=1 cargo test -p relay-core --test test_client_transports` rewrites them).

mod client_harness;

use std::cell::Cell;
use std::rc::Rc;

use client_harness::{
    call_tool, config, event, init_result, list, server, text_result, tool, Harness, Reply, Req,
};
use relay_core::client::{ClientError, HttpMethod, Operation, Output, TransportKind};
use serde_json::json;

#[test]
fn large_bodies_within_the_limit_pass_and_beyond_it_fail() {
    let big = "x".repeat(10 * 1024 * 1024);
    let answer = json!({"jsonrpc": "2.0", "id": 2, "result": text_result(&big)}).to_string();
    let chunks: Vec<Vec<u8>> = answer
        .as_bytes()
        .chunks(64 * 1024)
        .map(<[u8]>::to_vec)
        .collect();
    let mut reply = Reply::json(json!(null));
    reply.chunks = chunks;
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| {
            (req.rpc_method() == "tools/call").then(|| reply.clone())
        }),
    );
    let call = h.submit(call_tool("big", json!({})));
    h.run(1_000);
    assert!(
        matches!(h.ok(call), Output::ToolResult(r) if matches!(&r.content[0], relay_core::model::Content::Text { text } if text.len() == big.len()))
    );

    let mut cfg = config();
    cfg.max_body_bytes = 1024 * 1024;
    let answer =
        json!({"jsonrpc": "2.0", "id": 2, "result": text_result(&"y".repeat(2 * 1024 * 1024))})
            .to_string();
    let event = format!("event: message\ndata: {answer}\n\n");
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", move |req, _| {
            (req.rpc_method() == "tools/call").then(|| Reply::sse(&[&event]))
        }),
    );
    let call = h.submit(call_tool("big", json!({})));
    h.run(1_000);
    // The answer was on its way: the tool ran, its result is lost.
    assert!(
        matches!(h.err(call), ClientError::OutcomeUnknown { reason, .. } if reason.contains("exceeded"))
    );
    assert!(h.err(call).may_have_run());
}

#[test]
fn listen_stream_receives_list_changed_and_reconnects_after_retry() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, ctx| {
            if req.method != HttpMethod::Get {
                return (req.rpc_method() == "tools/list")
                    .then(|| Reply::result(&req.id(), json!({"tools": [tool("t")]})));
            }
            if req.header("last-event-id").is_none() {
                ctx.push(
                    "listen",
                    100,
                    event(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
                );
                ctx.push("listen", 150, "id: l-2\nretry: 2000\ndata: \n\n");
                ctx.close("listen", 200);
                Some(Reply::sse(&["id: l-1\ndata: \n\n"]).open("listen"))
            } else {
                Some(Reply::sse(&[]).open("listen2"))
            }
        }),
    );
    h.submit(list());
    h.run(50);
    assert!(h.session.cached_tools(h.now).is_some());
    h.run(5_000);
    assert!(
        h.session.cached_tools(h.now).is_none(),
        "list_changed on the GET stream invalidated the cache"
    );
    let reconnect = h
        .requests
        .iter()
        .filter(|r| r.method == HttpMethod::Get)
        .nth(1)
        .expect("reconnected");
    assert_eq!(reconnect.header("last-event-id"), Some("l-2"));
    let line = h
        .log
        .lines()
        .find(|l| l.contains("Last-Event-ID: l-2"))
        .expect("line");
    assert!(
        line.starts_with("t=2200 "),
        "waited the server's retry: {line}"
    );
    h.check("listen_stream");
}

#[test]
fn legacy_sse_transport_by_configuration() {
    let mut cfg = config();
    cfg.server.url = "http://127.0.0.1:3001/sse".into();
    cfg.server.transport = TransportKind::Sse;
    let mut h = Harness::new(cfg, legacy_server());
    let listing = h.submit(list());
    let call = h.submit(call_tool("echo", json!({"message": "hi"})));
    h.run(1_000);
    assert!(matches!(h.ok(listing), Output::Tools(_)));
    assert!(matches!(h.ok(call), Output::ToolResult(_)));
    let post = h
        .requests
        .iter()
        .find(|r| r.method == HttpMethod::Post)
        .expect("posted");
    assert_eq!(post.url, "http://127.0.0.1:3001/messages/?session_id=abc");
    assert!(post.header("mcp-session-id").is_none());
    h.check("legacy_sse");
}

/// A 2024-11-05 server: GET /sse opens the stream and names the POST endpoint; answers come on
/// the stream; POST to the Streamable endpoint is a 405.
fn legacy_server() -> impl FnMut(&Req, &mut client_harness::Ctx) -> Reply {
    move |req, ctx| match req.method {
        HttpMethod::Get => {
            Reply::sse(&["event: endpoint\r\ndata: /messages/?session_id=abc\r\n\r\n"]).open("sse")
        }
        HttpMethod::Post if req.url.contains("/messages/") => {
            let answer = match req.rpc_method() {
                "initialize" => Some(
                    json!({"jsonrpc": "2.0", "id": req.id(), "result": init_result("2024-11-05")}),
                ),
                "tools/list" => Some(
                    json!({"jsonrpc": "2.0", "id": req.id(), "result": {"tools": [tool("echo")]}}),
                ),
                "tools/call" => {
                    Some(json!({"jsonrpc": "2.0", "id": req.id(), "result": text_result("hi")}))
                }
                _ => None,
            };
            if let Some(answer) = answer {
                ctx.push(
                    "sse",
                    5,
                    format!("event: message\r\ndata: {answer}\r\n\r\n"),
                );
            }
            Reply::accepted()
        }
        _ => Reply::status(405, "Method Not Allowed"),
    }
}

#[test]
fn auto_detects_legacy_sse_after_a_405_and_remembers_it() {
    let mut cfg = config();
    cfg.server.url = "http://127.0.0.1:3001/sse".into();
    let mut h = Harness::new(cfg, legacy_server());
    let call = h.submit(list());
    h.run(1_000);
    assert!(matches!(h.ok(call), Output::Tools(_)));
    assert_eq!(
        h.session.transport(),
        Some(relay_core::client::Transport::Legacy)
    );
    h.check("auto_legacy");
}

#[test]
fn auto_fallback_that_finds_nothing_reports_the_original_error() {
    let mut h = Harness::new(config(), |_: &Req, _: &mut client_harness::Ctx| {
        Reply::status(404, "Not Found")
    });
    let call = h.submit(list());
    h.run(10_000);
    assert!(matches!(h.err(call), ClientError::Http { status: 404, .. }));
    assert_eq!(h.requests.len(), 2, "POST, then one GET, no retries");
    assert!(h.err(call).hint().contains("/mcp"));
}

#[test]
fn legacy_stream_lost_mid_call_makes_the_call_unknown_and_reconnects_later() {
    let mut cfg = config();
    cfg.server.transport = TransportKind::Sse;
    let connects = Rc::new(Cell::new(0));
    let seen = connects.clone();
    let mut legacy = legacy_server();
    let mut h = Harness::new(cfg, move |req: &Req, ctx: &mut client_harness::Ctx| {
        if req.method == HttpMethod::Get {
            seen.set(seen.get() + 1);
        }
        if req.rpc_method() == "tools/call" && seen.get() == 1 {
            ctx.close("sse", 10);
            return Reply::accepted();
        }
        legacy(req, ctx)
    });
    let call = h.submit(call_tool("echo", json!({})));
    h.run(1_000);
    assert!(matches!(h.err(call), ClientError::OutcomeUnknown { .. }));
    let again = h.submit(call_tool("echo", json!({})));
    h.run(1_000);
    assert!(matches!(h.ok(again), Output::ToolResult(_)));
    assert_eq!(connects.get(), 2);
    h.check("legacy_stream_lost");
}

#[test]
fn invalid_configuration_fails_every_call_without_io() {
    let mut cfg = config();
    cfg.server.url = "ftp://example.com".into();
    let mut h = Harness::new(cfg, |_: &Req, _: &mut client_harness::Ctx| Reply::hang());
    let call = h.submit(list());
    h.run(10);
    assert!(matches!(h.err(call), ClientError::Config { .. }));
    assert!(h.requests.is_empty());
}

#[test]
fn custom_headers_are_sent_but_cannot_override_protocol_headers() {
    let mut cfg = config();
    cfg.server.headers = vec![
        ("Authorization".into(), "Bearer secret".into()),
        ("mcp-session-id".into(), "forged".into()),
        ("Accept".into(), "text/html".into()),
    ];
    let mut h = Harness::new(cfg, server("2025-11-25", |_, _| None));
    h.submit(Operation::Ping);
    h.run(100);
    for req in &h.requests {
        assert_eq!(req.header("authorization"), Some("Bearer secret"));
        assert_ne!(req.header("mcp-session-id"), Some("forged"));
        assert_ne!(req.header("accept"), Some("text/html"));
    }
}
