//! Protocol 2026-07-28 in the sans-IO session against scripted servers: `server/discover`
//! instead of `initialize`, no session, per-request `_meta` and the headers mirroring the body
//! (SEP-2575, SEP-2243), the fall-back to `initialize` for older servers, `input_required`
//! results (SEP-2322) and `ttlMs` driving the tool cache. The main flow's wire transcript is
//! compared with `data/client/stateless_*.txt` (`UPDATE_EXPECT=1` rewrites it).

mod client_harness;

use client_harness::{call_tool, config, list, server, text_result, tool, Harness, Reply, Req};
use relay_core::client::headers::{encode_value, tool_param_headers, ToolHeaderError};
use relay_core::client::{ClientError, HttpMethod, Operation, Output, ProtocolMode};
use relay_core::model::Tool;
use serde_json::{json, Value};

fn stateless_config() -> relay_core::client::SessionConfig {
    let mut cfg = config();
    cfg.discover = true;
    cfg
}

fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "stateless", "version": "1.0"}
    })
}

fn regional_tool() -> Value {
    json!({"name": "lookup", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "priority": {"type": "integer", "x-mcp-header": "Priority"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "query": {"type": "string"}
    }}})
}

/// A 2026-07-28 server: answers `server/discover`, sends a session id anyway (the suite's mock
/// does) to show the client ignores it, and lets `handler` answer the rest.
fn stateless_server(
    mut handler: impl FnMut(&Req) -> Option<Reply> + 'static,
) -> impl FnMut(&Req, &mut client_harness::Ctx) -> Reply + 'static {
    server("2025-11-25", move |req, _| {
        if req.rpc_method() == "server/discover" {
            return Some(
                Reply::result(&req.id(), discover_result()).header("mcp-session-id", "ignored"),
            );
        }
        handler(req)
    })
}

fn posts<'a>(h: &'a Harness, method: &str) -> Vec<&'a Req> {
    h.requests
        .iter()
        .filter(|r| r.method == HttpMethod::Post && r.rpc_method() == method)
        .collect()
}

#[test]
fn discover_then_every_request_carries_meta_and_mirroring_headers() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(|req| match req.rpc_method() {
            "tools/list" => Some(Reply::result(
                &req.id(),
                json!({"resultType": "complete", "tools": [regional_tool()]}),
            )),
            "tools/call" => Some(Reply::result(&req.id(), text_result("ok"))),
            _ => None,
        }),
    );
    let listed = h.submit(list());
    h.run(1_000);
    let called = h.submit(call_tool(
        "lookup",
        json!({"region": " eu-west ", "priority": 3, "verbose": null, "query": "q"}),
    ));
    h.run(1_000);
    assert!(matches!(h.ok(listed), Output::Tools(t) if t.len() == 1));
    assert!(matches!(h.ok(called), Output::ToolResult(r) if !r.is_error()));
    assert_eq!(h.session.stats().initialize_requests, 0);
    assert_eq!(h.session.stats().discover_requests, 1);
    assert_eq!(h.session.protocol_mode(), Some(ProtocolMode::Stateless));
    assert_eq!(
        h.session.server_info().map(|i| i.protocol_version.as_str()),
        Some("2026-07-28")
    );
    for req in h.requests.iter().filter(|r| r.method == HttpMethod::Post) {
        assert_eq!(req.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(req.header("mcp-method"), Some(req.rpc_method()));
        assert_eq!(
            req.header("mcp-session-id"),
            None,
            "no session in 2026-07-28"
        );
        let meta = &req.params()["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-relay"
        );
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    }
    let call = posts(&h, "tools/call")[0];
    assert_eq!(call.header("mcp-name"), Some("lookup"));
    assert_eq!(
        call.header("mcp-param-region"),
        Some("=?base64?IGV1LXdlc3Qg?=")
    );
    assert_eq!(call.header("mcp-param-priority"), Some("3"));
    assert_eq!(
        call.header("mcp-param-verbose"),
        None,
        "null values send no header"
    );
    assert_eq!(
        call.header("mcp-param-query"),
        None,
        "unannotated parameters are not mirrored"
    );
    h.check("stateless_discover_and_call");
}

#[test]
fn an_unsupported_version_answer_is_retried_once_with_the_version_it_names() {
    let mut refusals = 0;
    let mut h = Harness::new(
        stateless_config(),
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "server/discover" if refusals == 0 => {
                refusals += 1;
                let body = json!({"jsonrpc": "2.0", "id": req.id(), "error": {
                    "code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": "x"}}});
                Some(
                    Reply::status(400, &body.to_string())
                        .header("content-type", "application/json"),
                )
            }
            "server/discover" => Some(Reply::result(&req.id(), discover_result())),
            "tools/list" => Some(Reply::result(&req.id(), json!({"tools": []}))),
            _ => None,
        }),
    );
    let listed = h.submit(list());
    h.run(1_000);
    assert!(matches!(h.ok(listed), Output::Tools(t) if t.is_empty()));
    let discovers = posts(&h, "server/discover");
    assert_eq!(discovers.len(), 2);
    assert_ne!(discovers[0].id(), discovers[1].id());
    assert_eq!(h.session.stats().initialize_requests, 0);
}

/// A scripted answer to one request.
type Answer = fn(&Req) -> Reply;

/// How a server of an older protocol answers `server/discover`; each means "use initialize".
#[test]
fn older_servers_fall_back_to_initialize_and_are_remembered() {
    let cases: Vec<(&str, Answer)> = vec![
        ("method not found", |req| {
            Reply::error(&req.id(), -32601, "Method not found")
        }),
        ("no 2026-07-28 among the versions", |req| {
            Reply::result(&req.id(), json!({"supportedVersions": ["2025-11-25"]}))
        }),
        ("400 without a session (server-everything)", |_| {
            Reply::status(400, "Bad Request: No valid session ID provided")
        }),
        ("404", |_| Reply::status(404, "Not Found")),
        ("bare 401 without a challenge (rmcp)", |_| {
            Reply::status(401, "Unauthorized: Session ID is required")
        }),
        ("version refused, 2026-07-28 not supported", |req| {
            let body = json!({"jsonrpc": "2.0", "id": req.id(), "error": {
                "code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2025-11-25"]}}});
            Reply::status(400, &body.to_string())
        }),
    ];
    for (case, answer) in cases {
        let mut h = Harness::new(
            stateless_config(),
            server("2025-11-25", move |req, _| match req.rpc_method() {
                "server/discover" => Some(answer(req)),
                "tools/list" => Some(Reply::result(&req.id(), json!({"tools": [tool("t")]}))),
                _ => None,
            }),
        );
        let listed = h.submit(list());
        h.run(1_000);
        assert!(
            matches!(h.ok(listed), Output::Tools(t) if t.len() == 1),
            "{case}"
        );
        assert_eq!(h.session.stats().discover_requests, 1, "{case}");
        assert_eq!(h.session.stats().initialize_requests, 1, "{case}");
        assert_eq!(
            h.session.protocol_mode(),
            Some(ProtocolMode::Session),
            "{case}"
        );
        let later = posts(&h, "tools/list")[0];
        assert_eq!(
            later.header("mcp-protocol-version"),
            Some("2025-11-25"),
            "{case}"
        );
        assert_eq!(
            later.header("mcp-method"),
            None,
            "{case}: 2025 requests unchanged"
        );
        assert!(later.params().get("_meta").is_none(), "{case}");
    }
}

#[test]
fn a_remembered_session_server_is_not_asked_to_discover_again() {
    let mut h = Harness::new(
        stateless_config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/list")
                .then(|| Reply::result(&req.id(), json!({"tools": []})))
        }),
    );
    h.session
        .remember_protocol_mode(Some(ProtocolMode::Session));
    let listed = h.submit(list());
    h.run(1_000);
    h.ok(listed);
    assert_eq!(h.session.stats().discover_requests, 0);
    assert_eq!(h.requests[0].rpc_method(), "initialize");
}

#[test]
fn an_authorization_challenge_to_discover_is_an_auth_error() {
    let mut h = Harness::new(
        stateless_config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "server/discover").then(|| {
                Reply::status(401, "").header("www-authenticate", "Bearer resource_metadata=\"x\"")
            })
        }),
    );
    let listed = h.submit(list());
    h.run(1_000);
    assert!(
        matches!(h.err(listed), ClientError::Auth { .. }),
        "{:?}",
        h.err(listed)
    );
    assert_eq!(h.session.stats().initialize_requests, 0);
}

/// A tool answering `input_required` the way the suite's SEP-2322 server does.
fn mrtr_server(
    rounds_before_done: usize,
    with_state: bool,
    method: &'static str,
) -> impl FnMut(&Req) -> Option<Reply> {
    let mut seen = 0;
    move |req| match (req.rpc_method(), req.params()["name"].as_str()) {
        ("tools/call", Some("needs_input")) => {
            if seen == rounds_before_done {
                return Some(Reply::result(
                    &req.id(),
                    json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}),
                ));
            }
            seen += 1;
            let mut result = json!({"resultType": "input_required", "inputRequests": {
                "confirm": {"method": method, "params": {"message": "ok?", "requestedSchema": {"type": "object"}}}}});
            if with_state {
                result["requestState"] = json!(format!("opaque-{seen}"));
            }
            Some(Reply::result(&req.id(), result))
        }
        ("tools/call", _) => Some(Reply::result(&req.id(), text_result("plain"))),
        _ => None,
    }
}

#[test]
fn input_required_is_answered_and_the_request_sent_again_with_its_state() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(mrtr_server(2, true, "elicitation/create")),
    );
    let needs = h.submit(call_tool("needs_input", json!({})));
    let plain = h.submit(call_tool("other", json!({})));
    h.run(2_000);
    assert!(matches!(h.ok(needs), Output::ToolResult(r) if !r.is_error()));
    h.ok(plain);
    let calls: Vec<&Req> = posts(&h, "tools/call")
        .into_iter()
        .filter(|r| r.params()["name"] == "needs_input")
        .collect();
    assert_eq!(calls.len(), 3);
    assert!(calls[0].params().get("inputResponses").is_none());
    for (round, retry) in calls.iter().enumerate().skip(1) {
        assert_eq!(
            retry.params()["requestState"],
            json!(format!("opaque-{round}"))
        );
        assert_eq!(
            retry.params()["inputResponses"]["confirm"],
            json!({"action": "decline"})
        );
        assert_eq!(retry.params()["arguments"], json!({}));
        assert_ne!(
            retry.id(),
            calls[round - 1].id(),
            "a new JSON-RPC id per round"
        );
    }
    let other = posts(&h, "tools/call")
        .into_iter()
        .find(|r| r.params()["name"] == "other")
        .expect("the other call went out");
    assert!(other.params().get("inputResponses").is_none());
    assert!(other.params().get("requestState").is_none());
    assert_eq!(h.session.stats().input_rounds, 2);
}

#[test]
fn input_required_without_state_sends_none_and_unanswerable_or_endless_input_fails() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(mrtr_server(1, false, "roots/list")),
    );
    let call = h.submit(call_tool("needs_input", json!({})));
    h.run(1_000);
    h.ok(call);
    let retry = posts(&h, "tools/call")[1];
    assert!(retry.params().get("requestState").is_none());
    assert_eq!(
        retry.params()["inputResponses"]["confirm"],
        json!({"roots": []})
    );

    let cases = [
        (
            mrtr_server(1, true, "sampling/createMessage"),
            "sampling/createMessage",
        ),
        (
            mrtr_server(usize::MAX, true, "elicitation/create"),
            "more than 8 times",
        ),
    ];
    for (handler, expected) in cases {
        let mut h = Harness::new(stateless_config(), stateless_server(handler));
        let call = h.submit(call_tool("needs_input", json!({})));
        h.run(5_000);
        match h.err(call) {
            ClientError::Protocol { message, .. } => {
                assert!(message.contains(expected), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn ttl_ms_drives_the_tool_cache() {
    for (ttl, cached_at_500) in [(Some(0), false), (Some(1_000), true), (None, true)] {
        let mut h = Harness::new(
            stateless_config(),
            stateless_server(move |req| {
                let mut result = json!({"tools": [tool("t")]});
                if let Some(ttl) = ttl {
                    result["ttlMs"] = json!(ttl);
                }
                (req.rpc_method() == "tools/list").then(|| Reply::result(&req.id(), result))
            }),
        );
        h.submit(list());
        h.run(100);
        h.advance(400);
        h.submit(list());
        h.run(100);
        let lists = posts(&h, "tools/list").len();
        assert_eq!(lists == 1, cached_at_500, "ttlMs {ttl:?}: {lists} listings");
        if ttl == Some(1_000) {
            h.advance(1_000);
            h.submit(list());
            h.run(100);
            assert_eq!(posts(&h, "tools/list").len(), 2, "stale after ttlMs");
        }
    }
}

fn schema_tool(properties: Value) -> Tool {
    serde_json::from_value(
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}}),
    )
    .expect("a tool")
}

/// Which rejection a case expects.
type Expected = fn(&ToolHeaderError) -> bool;

#[test]
fn invalid_x_mcp_header_annotations_reject_the_tool() {
    let cases: Vec<(Value, Option<Expected>)> = vec![
        (
            json!({"r": {"type": "string", "x-mcp-header": "Region"}}),
            None,
        ),
        (json!({"q": {"type": "string"}}), None),
        (
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            Some(|e| matches!(e, ToolHeaderError::Empty { .. })),
        ),
        (
            json!({"v": {"type": "string", "x-mcp-header": 7}}),
            Some(|e| matches!(e, ToolHeaderError::Empty { .. })),
        ),
        (
            json!({"d": {"type": "object", "x-mcp-header": "Data"}}),
            Some(|e| matches!(e, ToolHeaderError::NotPrimitive { .. })),
        ),
        (
            json!({"d": {"type": "array", "x-mcp-header": "Items"}}),
            Some(|e| matches!(e, ToolHeaderError::NotPrimitive { .. })),
        ),
        (
            json!({"d": {"type": "null", "x-mcp-header": "Nil"}}),
            Some(|e| matches!(e, ToolHeaderError::NotPrimitive { .. })),
        ),
        (
            json!({"d": {"type": "number", "x-mcp-header": "Score"}}),
            Some(|e| matches!(e, ToolHeaderError::NotPrimitive { .. })),
        ),
        (
            json!({"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "Region"}}),
            Some(|e| matches!(e, ToolHeaderError::Duplicate { .. })),
        ),
        (
            json!({"a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}}),
            Some(|e| matches!(e, ToolHeaderError::Duplicate { .. })),
        ),
        (
            json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
            Some(|e| matches!(e, ToolHeaderError::Charset { .. })),
        ),
        (
            json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
            Some(|e| matches!(e, ToolHeaderError::Charset { .. })),
        ),
        (
            json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
            Some(|e| matches!(e, ToolHeaderError::Charset { .. })),
        ),
        (
            json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
            Some(|e| matches!(e, ToolHeaderError::Charset { .. })),
        ),
    ];
    for (properties, expected) in cases {
        let result = tool_param_headers(&schema_tool(properties.clone()));
        match (expected, &result) {
            (None, Ok(_)) => {}
            (Some(check), Err(e)) if check(e) => {}
            _ => panic!("{properties}: {result:?}"),
        }
    }
}

#[test]
fn the_session_leaves_out_tools_with_invalid_headers_and_keeps_the_rest() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(|req| {
            (req.rpc_method() == "tools/list").then(|| {
                Reply::result(&req.id(), json!({"tools": [
                    regional_tool(),
                    {"name": "bad", "inputSchema": {"type": "object", "properties": {"s": {"type": "number", "x-mcp-header": "Score"}}}},
                    tool("plain")
                ]}))
            })
        }),
    );
    let listed = h.submit(list());
    h.run(1_000);
    let Output::Tools(tools) = h.ok(listed) else {
        panic!()
    };
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["lookup", "plain"]);
}

#[test]
fn header_values_are_encoded_as_sep_2243_says() {
    let cases = [
        (json!("us-west1"), Some("us-west1")),
        (json!("us west 1"), Some("us west 1")),
        (json!(""), Some("")),
        (json!(42), Some("42")),
        (json!(-3), Some("-3")),
        (json!(true), Some("true")),
        (json!(false), Some("false")),
        (
            json!("Hello, 世界"),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?="),
        ),
        (json!(" padded "), Some("=?base64?IHBhZGRlZCA=?=")),
        (json!("line1\nline2"), Some("=?base64?bGluZTEKbGluZTI=?=")),
        (json!("\tindented"), Some("=?base64?CWluZGVudGVk?=")),
        (
            json!("=?base64?eA==?="),
            Some("=?base64?PT9iYXNlNjQ/ZUE9PT89?="),
        ),
        (json!(null), None),
        (json!([1]), None),
        (json!({"a": 1}), None),
    ];
    for (value, expected) in cases {
        assert_eq!(encode_value(&value).as_deref(), expected, "{value}");
    }
}

#[test]
fn operations_other_than_tools_carry_their_name_header() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(|req| match req.rpc_method() {
            "resources/read" => Some(Reply::result(&req.id(), json!({"contents": []}))),
            "prompts/get" => Some(Reply::result(&req.id(), json!({"messages": []}))),
            _ => None,
        }),
    );
    let read = h.submit(Operation::ReadResource {
        uri: "file:///a%20b.txt".to_owned(),
    });
    let get = h.submit(Operation::GetPrompt {
        name: "p-1".to_owned(),
        arguments: Default::default(),
    });
    h.run(1_000);
    h.ok(read);
    h.ok(get);
    assert_eq!(
        posts(&h, "resources/read")[0].header("mcp-name"),
        Some("file:///a%20b.txt")
    );
    assert_eq!(posts(&h, "prompts/get")[0].header("mcp-name"), Some("p-1"));
}

#[test]
fn ping_becomes_server_discover_and_server_info_may_sit_in_meta() {
    let mut h = Harness::new(
        stateless_config(),
        server("2025-11-25", |req, _| match req.rpc_method() {
            // PyPI `mcp` 2.3.0's shape: serverInfo in `_meta`; `ping` is gone in 2026-07-28.
            "server/discover" => Some(Reply::result(
                &req.id(),
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {},
                       "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "py", "version": "2"}}}),
            )),
            "ping" => Some(Reply::status(404, "Method not found")),
            _ => None,
        }),
    );
    let ping = h.submit(Operation::Ping);
    h.run(1_000);
    assert!(matches!(h.ok(ping), Output::Pong(_)));
    assert_eq!(posts(&h, "server/discover").len(), 2);
    assert!(posts(&h, "ping").is_empty());
    let info = h.session.server_info().expect("connected");
    assert_eq!(info.server_info.name, "py");
}

/// With elicitation declared, an elicitation among a 2026-07-28 call's input requests is the
/// user's: it reaches the driver as a `SessionEvent::Request` naming the call, the call waits,
/// and the driver's answer is what the call is sent again with.
#[test]
fn input_required_elicitation_waits_for_the_drivers_answer() {
    let mut cfg = stateless_config();
    cfg.elicitation = true;
    let mut h = Harness::new(
        cfg,
        stateless_server(mrtr_server(1, true, "elicitation/create")),
    );
    let needs = h.submit(call_tool("needs_input", json!({})));
    h.run(2_000);
    let asked = h.events.iter().find_map(|e| match e {
        relay_core::client::SessionEvent::Request {
            id, method, call, ..
        } => {
            assert_eq!(method, "elicitation/create");
            assert_eq!(*call, Some(needs));
            Some(id.clone())
        }
        _ => None,
    });
    let id = asked.expect("the elicitation reached the driver");
    assert_eq!(
        posts(&h, "tools/call").len(),
        1,
        "the call waits for the answer"
    );
    let now = h.now;
    h.session.respond(
        id,
        Ok(json!({"action": "accept", "content": {"ok": true}})),
        now,
    );
    h.run(2_000);
    assert!(matches!(h.ok(needs), Output::ToolResult(r) if !r.is_error()));
    let calls = posts(&h, "tools/call");
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[1].params()["inputResponses"]["confirm"],
        json!({"action": "accept", "content": {"ok": true}})
    );
    assert_eq!(calls[1].params()["requestState"], json!("opaque-1"));
}

/// Cancelling a call under 2026-07-28: its response stream is closed (the cancellation over
/// HTTP) and no `notifications/cancelled` is sent; the call ends at once.
#[test]
fn a_cancelled_call_closes_its_stream_and_sends_no_notification() {
    let mut h = Harness::new(
        stateless_config(),
        stateless_server(|req| match req.rpc_method() {
            "tools/call" => Some(Reply::hang()),
            _ => None,
        }),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(500);
    assert_eq!(posts(&h, "tools/call").len(), 1, "the call went out");
    h.cancel(call);
    h.run(1_000);
    assert!(h.results.contains_key(&call), "the call ended");
    assert!(
        h.log.contains("abort"),
        "its exchange was aborted: {}",
        h.log
    );
    assert!(
        posts(&h, "notifications/cancelled").is_empty(),
        "no notification in 2026-07-28"
    );
}

/// MCP Apps, where the host renders them, is declared under the capabilities' `extensions` in
/// every request's `_meta` (2026-07-28) and in `initialize` (older servers), beside the other
/// capabilities; a host that does not render them declares nothing.
#[test]
fn apps_are_declared_on_every_protocol_version_when_rendered() {
    let ui = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
    for (discover, apps) in [(true, true), (false, true), (true, false), (false, false)] {
        let mut cfg = stateless_config();
        cfg.discover = discover;
        cfg.apps = apps;
        cfg.elicitation = true;
        let mut h = Harness::new(
            cfg,
            stateless_server(|req| match req.rpc_method() {
                "tools/list" => Some(Reply::result(
                    &req.id(),
                    json!({"resultType": "complete", "tools": []}),
                )),
                _ => None,
            }),
        );
        let listed = h.submit(list());
        h.run(1_000);
        assert!(matches!(h.ok(listed), Output::Tools(_)));
        let declared: Vec<Value> = if discover {
            posts(&h, "tools/list")
                .iter()
                .map(|r| r.params()["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone())
                .collect()
        } else {
            posts(&h, "initialize")
                .iter()
                .map(|r| r.params()["capabilities"].clone())
                .collect()
        };
        assert!(!declared.is_empty(), "discover={discover}");
        for caps in declared {
            assert!(caps["elicitation"].is_object(), "{caps}");
            let got = &caps["extensions"]["io.modelcontextprotocol/ui"];
            if apps {
                assert_eq!(got, &ui, "discover={discover}: {caps}");
            } else {
                assert!(got.is_null(), "discover={discover}: {caps}");
            }
        }
    }
}
