//! The sans-IO session against scripted servers and a fake clock. Each scenario asserts its key
//! facts and compares the full wire transcript with `data/client/<scenario>.txt`
//! (`UPDATE_EXPECT=1 cargo test -p relay-core --test test_client_session` rewrites them).

mod client_harness;

use std::cell::Cell;
use std::rc::Rc;

use client_harness::{
    call_tool, config, event, list, server, text_result, tool, Harness, Reply, Req, URL,
};
use relay_core::client::{ClientError, HttpMethod, Operation, Output};
use serde_json::{json, Map, Value};

#[test]
fn streamable_json_lifecycle() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| match req.rpc_method() {
            "tools/list" => Some(Reply::result(
                &req.id(),
                json!({"tools": [tool("echo"), tool("add")]}),
            )),
            "tools/call" => Some(Reply::result(&req.id(), text_result("hi"))),
            _ => None,
        }),
    );
    let list_call = h.submit(list());
    let call = h.submit(call_tool("echo", json!({"message": "hi"})));
    h.run(1_000);
    assert!(matches!(h.ok(list_call), Output::Tools(t) if t.len() == 2));
    assert!(matches!(h.ok(call), Output::ToolResult(r) if !r.is_error()));
    // One initialize; every later request carries the session and the negotiated version.
    assert_eq!(h.session.stats().initialize_requests, 1);
    let later: Vec<&Req> = h
        .requests
        .iter()
        .skip(1)
        .filter(|r| r.method == HttpMethod::Post)
        .collect();
    assert!(later
        .iter()
        .all(|r| r.header("mcp-session-id") == Some("sess-1")));
    assert!(later
        .iter()
        .all(|r| r.header("mcp-protocol-version") == Some("2025-11-25")));
    assert!(h.requests[0].header("mcp-session-id").is_none());
    h.check("streamable_json_lifecycle");
}

#[test]
fn streamable_sse_with_progress_server_requests_and_list_changed() {
    let mut h = Harness::new(
        config(),
        server("2025-06-18", |req, _| match req.rpc_method() {
            "tools/list" => Some(Reply::result(&req.id(), json!({"tools": [tool("slow")]}))),
            "tools/call" => {
                let token = req.params()["_meta"]["progressToken"].clone();
                let id = req.id();
                Some(Reply::sse(&[
                    &event(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 1, "total": 2, "message": "half"}})),
                    &event(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})),
                    &event(
                        json!({"jsonrpc": "2.0", "id": "srv-2", "method": "sampling/createMessage", "params": {}}),
                    ),
                    &event(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
                    &event(json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "working"}})),
                    &event(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 2, "total": 2}})),
                    &event(json!({"jsonrpc": "2.0", "id": id, "result": text_result("done")})),
                ]))
            }
            _ => None,
        }),
    );
    let first = h.submit(list());
    h.run(1_000);
    assert!(h.session.cached_tools(h.now).is_some());
    let arguments = Map::new();
    let call = h.submit(Operation::CallTool {
        name: "slow".into(),
        arguments,
        progress: true,
    });
    h.run(1_000);
    assert!(matches!(h.ok(call), Output::ToolResult(_)));
    let progress: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            relay_core::client::SessionEvent::Progress {
                progress, total, ..
            } => Some((*progress, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, [(1.0, Some(2.0)), (2.0, Some(2.0))]);
    // Server requests are answered: ping with {}, others with method-not-found.
    let replies: Vec<&Value> = h
        .requests
        .iter()
        .filter_map(|r| r.body.as_ref())
        .filter(|b| b.get("method").is_none())
        .collect();
    assert_eq!(replies[0]["result"], json!({}));
    assert_eq!(replies[1]["error"]["code"], json!(-32601));
    // list_changed dropped the cache: the next list goes to the server again.
    assert!(h.session.cached_tools(h.now).is_none());
    let again = h.submit(list());
    h.run(1_000);
    assert!(matches!(h.ok(first), Output::Tools(_)) && matches!(h.ok(again), Output::Tools(_)));
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/list")
            .count(),
        2
    );
    h.check("streamable_sse_progress");
}

#[test]
fn pagination_follows_cursors_and_stops_on_loops() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            let cursor = req
                .params()
                .get("cursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            match (req.rpc_method(), cursor.as_deref()) {
                ("tools/list", None) => Some(Reply::result(
                    &req.id(),
                    json!({"tools": [tool("a")], "nextCursor": "p2"}),
                )),
                ("tools/list", Some("p2")) => Some(Reply::result(
                    &req.id(),
                    json!({"tools": [tool("b")], "nextCursor": "p3"}),
                )),
                ("tools/list", Some("p3")) => {
                    Some(Reply::result(&req.id(), json!({"tools": [tool("c")]})))
                }
                ("prompts/list", _) => Some(Reply::result(
                    &req.id(),
                    json!({"prompts": [{"name": "loop"}], "nextCursor": "same"}),
                )),
                _ => None,
            }
        }),
    );
    let tools = h.submit(list());
    let prompts = h.submit(Operation::ListPrompts);
    h.run(1_000);
    match h.ok(tools) {
        Output::Tools(t) => assert_eq!(
            t.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"]
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(h.err(prompts), ClientError::Protocol { message, .. } if message.contains("repeated the cursor"))
    );
    h.check("pagination");
}

#[test]
fn page_limit_bounds_an_endless_listing() {
    let mut cfg = config();
    cfg.max_pages = 4;
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "resources/list").then(|| {
                let next = format!(
                    "{}x",
                    req.params()
                        .get("cursor")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                );
                Reply::result(
                    &req.id(),
                    json!({"resources": [{"uri": "r://1", "name": "r"}], "nextCursor": next}),
                )
            })
        }),
    );
    let call = h.submit(Operation::ListResources);
    h.run(1_000);
    assert!(
        matches!(h.err(call), ClientError::Protocol { message, .. } if message.contains("more than 4 pages"))
    );
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "resources/list")
            .count(),
        4
    );
}

#[test]
fn tool_cache_ttl_refresh_and_invalidation() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/list")
                .then(|| Reply::result(&req.id(), json!({"tools": [tool("t")]})))
        }),
    );
    let count = |h: &Harness| {
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/list")
            .count()
    };
    h.submit(list());
    h.run(100);
    h.submit(list());
    h.run(100);
    assert_eq!(count(&h), 1, "second list served from the cache");
    assert_eq!(h.session.stats().cache_hits, 1);
    h.submit(Operation::ListTools { refresh: true });
    h.run(100);
    assert_eq!(count(&h), 2, "refresh goes to the server");
    h.advance(5 * 60 * 1000);
    h.submit(list());
    h.run(100);
    assert_eq!(count(&h), 3, "stale after five minutes");
    h.session.invalidate_tools();
    h.submit(list());
    h.run(100);
    assert_eq!(count(&h), 4, "manual invalidation");
    h.check("tool_cache");
}

#[test]
fn list_changed_during_a_listing_keeps_the_stale_result_out_of_the_cache() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/list").then(|| {
                Reply::sse(&[
                    &event(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
                    &event(json!({"jsonrpc": "2.0", "id": req.id(), "result": {"tools": [tool("old")]}})),
                ])
            })
        }),
    );
    let call = h.submit(list());
    h.run(100);
    assert!(matches!(h.ok(call), Output::Tools(_)));
    assert!(h.session.cached_tools(h.now).is_none());
}

/// Session expiry, as the Python SDK (404) and server-everything (400) report it.
#[test]
fn progress_extends_the_timeout_up_to_the_maximum() {
    let mut cfg = config();
    cfg.server.timeout_ms = 1_000;
    cfg.max_call_ms = 3_500;
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", |req, ctx| {
            (req.rpc_method() == "tools/call").then(|| {
                let token = req.params()["_meta"]["progressToken"].clone();
                for i in 1..=6u64 {
                    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": i}});
                    ctx.push("call", i * 800, event(progress));
                }
                Reply::sse(&[]).open("call")
            })
        }),
    );
    let call = h.submit(Operation::CallTool {
        name: "long".into(),
        arguments: Map::new(),
        progress: true,
    });
    h.run(20_000);
    // Progress every 800 ms keeps a 1 s timeout alive, but not past the 3.5 s maximum.
    assert!(matches!(h.err(call), ClientError::OutcomeUnknown { .. }));
    let done_at = h
        .log
        .lines()
        .find(|l| l.contains("● call 1 error"))
        .expect("completed");
    assert!(done_at.starts_with("t=3500"), "{done_at}");
}

#[test]
fn sse_polling_resumes_with_last_event_id_after_retry_delay() {
    // The conformance suite's sse-retry scenario: priming event with id and retry, connection
    // closed, the answer delivered on the GET that resumes the stream (which then stays open).
    let mut h = Harness::new(
        config(),
        server("2025-03-26", |req, ctx| {
            match (req.method, req.rpc_method()) {
                (HttpMethod::Post, "tools/call") => {
                    Some(Reply::sse(&["id: event-1\nretry: 500\ndata: \n\n"]).delay(50))
                }
                (HttpMethod::Get, _) if req.header("last-event-id") == Some("event-1") => {
                    let answer =
                        json!({"jsonrpc": "2.0", "id": 2, "result": text_result("resumed")});
                    ctx.push(
                        "resume",
                        0,
                        format!("event: message\nid: event-3\ndata: {answer}\n\n"),
                    );
                    Some(Reply::sse(&["id: event-2\nretry: 500\ndata: \n\n"]).open("resume"))
                }
                (HttpMethod::Get, _) => {
                    Some(Reply::sse(&["id: listen-1\nretry: 500\ndata: \n\n"]).open("listen"))
                }
                _ => None,
            }
        }),
    );
    let call = h.submit(call_tool("test_reconnection", json!({})));
    h.run(5_000);
    assert!(matches!(h.ok(call), Output::ToolResult(_)));
    let resume = h
        .requests
        .iter()
        .find(|r| r.header("last-event-id").is_some())
        .expect("resumed");
    assert_eq!(resume.header("mcp-protocol-version"), Some("2025-03-26"));
    // Reconnected exactly `retry` ms after the stream closed (at t=50).
    let line = h
        .log
        .lines()
        .find(|l| l.contains("Last-Event-ID: event-1"))
        .expect("resume line");
    assert!(line.starts_with("t=550 "), "{line}");
    assert_eq!(h.session.stats().resumptions, 1);
    h.check("sse_polling_resume");
}

#[test]
fn a_cut_stream_without_event_ids_fails_safe_requests_over_and_tool_calls_unknown() {
    let listed = Rc::new(Cell::new(0));
    let seen = listed.clone();
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "tools/list" => {
                seen.set(seen.get() + 1);
                Some(if seen.get() == 1 {
                    Reply::sse(&["event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"res"])
                } else {
                    Reply::result(&req.id(), json!({"tools": []}))
                })
            }
            "tools/call" => {
                Some(Reply::sse(&["data: {\"jsonrpc\":"]).cut("connection reset by peer"))
            }
            _ => None,
        }),
    );
    let listing = h.submit(list());
    h.run(10_000);
    assert!(matches!(h.ok(listing), Output::Tools(_)));
    let call = h.submit(call_tool("t", json!({})));
    h.run(10_000);
    assert!(matches!(h.err(call), ClientError::OutcomeUnknown { .. }));
    h.check("stream_cut");
}

#[test]
fn malformed_answers_are_protocol_errors_and_the_session_survives() {
    let n = Rc::new(Cell::new(0));
    let seen = n.clone();
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| {
            (req.rpc_method() == "tools/call").then(|| {
                seen.set(seen.get() + 1);
                match seen.get() {
                    1 => Reply::status(200, "{not json").header("content-type", "application/json"),
                    2 => Reply::json(json!({"jsonrpc": "1.0", "id": req.id(), "result": {}})),
                    3 => Reply::sse(&["data: [1,2\n\n"]),
                    4 => Reply::json(json!({"jsonrpc": "2.0", "id": 999, "result": {}})),
                    5 => Reply::result(&req.id(), json!({"content": "not a list"})),
                    _ => Reply::result(&req.id(), text_result("fine")),
                }
            })
        }),
    );
    let calls: Vec<_> = (0..6)
        .map(|i| h.submit(call_tool("t", json!({"i": i}))))
        .collect();
    h.run(10_000);
    // Each answer reached us, so the tool may have run: unknown, with the protocol problem.
    for call in &calls[..5] {
        assert!(
            matches!(h.err(*call), ClientError::OutcomeUnknown { reason, .. } if reason.starts_with("invalid answer from")),
            "{:?}",
            h.results.get(call)
        );
    }
    assert!(matches!(h.ok(calls[5]), Output::ToolResult(_)));
    assert_eq!(h.session.stats().initialize_requests, 1);
    h.check("malformed");
}

#[test]
fn jsonrpc_errors_are_tool_or_rpc_errors_and_is_error_is_a_result() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| match req.rpc_method() {
            "tools/call" if req.params()["name"] == "missing" => {
                Some(Reply::error(&req.id(), -32602, "Unknown tool: missing"))
            }
            "tools/call" => Some(Reply::result(
                &req.id(),
                json!({"content": [{"type": "text", "text": "disk full"}], "isError": true}),
            )),
            "prompts/get" => Some(Reply::error(&req.id(), -32601, "Method not found")),
            _ => None,
        }),
    );
    let refused = h.submit(call_tool("missing", json!({})));
    let failed = h.submit(call_tool("write", json!({})));
    let prompt = h.submit(Operation::GetPrompt {
        name: "p".into(),
        arguments: Map::new(),
    });
    h.run(1_000);
    assert!(matches!(h.err(refused), ClientError::Tool { code, .. } if code.0 == -32602));
    assert!(matches!(h.ok(failed), Output::ToolResult(r) if r.is_error()));
    assert!(matches!(h.err(prompt), ClientError::Rpc { method, .. } if method == "prompts/get"));
}

#[test]
fn every_content_kind_and_structured_content_come_through() {
    let result = json!({
        "content": [
            {"type": "text", "text": "t"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "body"}},
            {"type": "resource_link", "uri": "test://l", "name": "l"}
        ],
        "structuredContent": {"temperature": 21.5}
    });
    let expected = result.clone();
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "tools/call" => Some(Reply::result(&req.id(), result.clone())),
            "resources/read" => Some(Reply::result(
                &req.id(),
                json!({"contents": [{"uri": req.params()["uri"], "blob": "AAEC", "mimeType": "application/octet-stream"}]}),
            )),
            "prompts/get" => Some(Reply::result(
                &req.id(),
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("city={}", req.params()["arguments"]["city"])}}]}),
            )),
            _ => None,
        }),
    );
    let call = h.submit(call_tool("everything", json!({})));
    let read = h.submit(Operation::ReadResource {
        uri: "test://static/1".into(),
    });
    let mut args = Map::new();
    args.insert("city".into(), json!(42));
    let prompt = h.submit(Operation::GetPrompt {
        name: "weather".into(),
        arguments: args,
    });
    h.run(1_000);
    assert_eq!(
        serde_json::to_value(h.ok(call)).expect("serializes"),
        expected
    );
    assert!(
        matches!(h.ok(read), Output::Resource(r) if r.contents[0].blob.as_deref() == Some("AAEC"))
    );
    // Prompt arguments are strings on the wire.
    let sent = h
        .requests
        .iter()
        .find(|r| r.rpc_method() == "prompts/get")
        .expect("sent");
    assert_eq!(sent.params()["arguments"]["city"], json!("42"));
    assert!(matches!(h.ok(prompt), Output::Prompt(p) if p.messages.len() == 1));
}

#[test]
fn version_negotiation_accepts_supported_versions_and_rejects_others() {
    for (version, ok) in [
        ("2025-11-25", true),
        ("2025-06-18", true),
        ("2025-03-26", true),
        ("2024-11-05", true),
        ("2099-01-01", false),
    ] {
        let mut h = Harness::new(
            config(),
            server(version, |req, _| {
                (req.rpc_method() == "ping").then(|| Reply::result(&req.id(), json!({})))
            }),
        );
        let call = h.submit(Operation::Ping);
        h.run(1_000);
        assert_eq!(
            h.results.get(&call).is_some_and(Result::is_ok),
            ok,
            "{version}\n{}",
            h.log
        );
        assert_eq!(
            h.requests[0].params()["protocolVersion"],
            json!("2025-11-25"),
            "offers the newest"
        );
        if ok {
            let ping = h
                .requests
                .iter()
                .find(|r| r.rpc_method() == "ping")
                .expect("ping sent");
            assert_eq!(ping.header("mcp-protocol-version"), Some(version));
        } else {
            assert!(
                matches!(h.err(call), ClientError::UnsupportedProtocolVersion { received, .. } if received == version)
            );
            assert!(
                h.requests.iter().any(|r| r.method == HttpMethod::Delete),
                "disconnects"
            );
            h.check("version_rejected");
        }
    }
}

#[test]
fn auth_failures_explain_what_to_do() {
    for (url, status, www, fragment) in [
        (
            URL,
            401,
            Some("Bearer realm=\"mcp\""),
            "Authorization: Bearer <token>",
        ),
        (URL, 403, None, "Origin"),
        ("https://mcp.example.com/mcp", 403, None, "permissions"),
    ] {
        let mut cfg = config();
        cfg.server.url = url.to_owned();
        let mut h = Harness::new(cfg, move |_: &Req, _: &mut client_harness::Ctx| {
            let reply = Reply::status(status, "Forbidden");
            match www {
                Some(w) => reply.header("www-authenticate", w),
                None => reply,
            }
        });
        let call = h.submit(list());
        h.run(10_000);
        let error = h.err(call);
        assert_eq!(error.kind(), "auth");
        assert!(error.hint().contains(fragment), "{}", error.hint());
        assert_eq!(
            h.requests.len(),
            1,
            "auth failures are not retried, and do not trigger SSE fallback"
        );
    }
}

#[test]
fn concurrency_cap_queues_fifo() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/call").then(|| {
                let n = req.params()["arguments"]["n"].as_u64().unwrap_or(0);
                Reply::result(&req.id(), text_result(&n.to_string())).delay(100 + n * 10)
            })
        }),
    );
    let calls: Vec<_> = (0..8)
        .map(|n| h.submit(call_tool("t", json!({"n": n}))))
        .collect();
    h.run(5); // the handshake is instantaneous; the calls take >= 100 ms
    let sent = h
        .requests
        .iter()
        .filter(|r| r.rpc_method() == "tools/call")
        .count();
    assert_eq!(sent, 5, "at most five in flight");
    h.run(10_000);
    let order: Vec<u64> = h
        .requests
        .iter()
        .filter(|r| r.rpc_method() == "tools/call")
        .map(|r| r.params()["arguments"]["n"].as_u64().expect("n"))
        .collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5, 6, 7], "FIFO");
    assert!(calls
        .iter()
        .all(|c| matches!(h.results.get(c), Some(Ok(_)))));
    h.check("concurrency");
}

#[test]
fn cancel_in_flight_and_queued_calls() {
    let mut cfg = config();
    cfg.max_concurrent = 1;
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/call").then(Reply::hang)
        }),
    );
    let running = h.submit(call_tool("a", json!({})));
    let queued = h.submit(call_tool("b", json!({})));
    h.run(10);
    h.cancel(queued);
    h.cancel(running);
    h.run(10);
    // The running call was sent, so it may have run; the queued one never left.
    assert!(
        matches!(h.err(running), ClientError::OutcomeUnknown { reason, .. } if reason == "cancelled after it was sent (user cancelled)")
    );
    assert!(matches!(h.err(queued), ClientError::Cancelled { .. }));
    assert!(h.err(running).may_have_run() && !h.err(queued).may_have_run());
    let cancelled: Vec<&Req> = h
        .requests
        .iter()
        .filter(|r| r.rpc_method() == "notifications/cancelled")
        .collect();
    assert_eq!(
        cancelled.len(),
        1,
        "only the sent request is cancelled on the server"
    );
    assert_eq!(cancelled[0].params()["requestId"], json!(2));
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/call")
            .count(),
        1
    );
    h.check("cancel");
}

#[test]
fn shutdown_deletes_the_session_and_cancels_pending_work() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/call").then(Reply::hang)
        }),
    );
    let call = h.submit(call_tool("a", json!({})));
    h.run(10);
    h.session.shutdown("server removed");
    h.run(10);
    assert!(
        matches!(h.err(call), ClientError::OutcomeUnknown { reason, .. } if reason == "cancelled after it was sent (server removed)")
    );
    let delete = h
        .requests
        .iter()
        .find(|r| r.method == HttpMethod::Delete)
        .expect("DELETE sent");
    assert_eq!(delete.header("mcp-session-id"), Some("sess-1"));
    // The session can be used again: a new initialize.
    h.submit(Operation::Ping);
    h.run(10);
    assert_eq!(h.session.stats().initialize_requests, 2);
    h.check("shutdown");
}

/// With elicitation declared, a server's `elicitation/create` in the middle of a call is the
/// driver's to answer (`SessionEvent::Request`, then `Session::respond`); without it, it is
/// refused as a method this client does not offer.
#[test]
fn elicitation_is_declared_passed_to_the_driver_and_answered() {
    for declared in [true, false] {
        let mut cfg = config();
        cfg.elicitation = declared;
        let mut h = Harness::new(
            cfg,
            server("2025-11-25", |req, _| match req.rpc_method() {
                "tools/call" => Some(Reply::sse(&[
                    &event(
                        json!({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create",
                        "params": {"message": "Which day?", "requestedSchema": {"type": "object", "properties": {}}}}),
                    ),
                    &event(
                        json!({"jsonrpc": "2.0", "id": req.id(), "result": text_result("done")}),
                    ),
                ])),
                _ => None,
            }),
        );
        let call = h.submit(Operation::CallTool {
            name: "book".into(),
            arguments: Map::new(),
            progress: false,
        });
        h.run(1_000);
        assert!(matches!(h.ok(call), Output::ToolResult(_)));
        let init = h.requests[0].body.as_ref().expect("initialize");
        let asked = h.events.iter().find_map(|e| match e {
            relay_core::client::SessionEvent::Request {
                id,
                method,
                params,
                call: on,
            } => {
                // It came on the call's own answer stream.
                assert_eq!(*on, Some(call));
                Some((id.clone(), method.clone(), params.clone()))
            }
            _ => None,
        });
        let replies = |h: &Harness| -> Vec<Value> {
            h.requests
                .iter()
                .filter_map(|r| r.body.clone())
                .filter(|b| b.get("method").is_none())
                .collect()
        };
        if declared {
            assert_eq!(
                init["params"]["capabilities"],
                json!({"elicitation": {"form": {}, "url": {}}})
            );
            let (id, method, params) = asked.expect("the question reached the driver");
            assert_eq!(method, "elicitation/create");
            assert_eq!(params["message"], json!("Which day?"));
            assert!(replies(&h).is_empty(), "nothing answered before the user");
            let now = h.now;
            h.session.respond(id, Ok(json!({"action": "decline"})), now);
            h.run(1_000);
            let sent = replies(&h);
            assert_eq!(sent.len(), 1);
            assert_eq!(sent[0]["id"], json!("ask-1"));
            assert_eq!(sent[0]["result"], json!({"action": "decline"}));
        } else {
            assert_eq!(init["params"]["capabilities"], json!({}));
            assert!(asked.is_none());
            assert_eq!(replies(&h)[0]["error"]["code"], json!(-32601));
        }
    }
}
