//! Requests stay with their server (issue 24): a redirect is an error the session reports,
//! never a hop to another address, and a legacy HTTP+SSE server's `endpoint` event may only name
//! the origin of the server's own URL. Every request of a session, with its headers and tokens,
//! goes to the configured origin and nowhere else.

mod client_harness;

use client_harness::{
    call_tool, config, init_result, list, server, text_result, tool, Harness, Req, URL,
};
use client_harness::{Ctx, Reply};
use relay_core::client::{ClientError, HttpMethod, HttpUrl, Output, TransportKind};
use serde_json::json;

const SECRET: &str = "k-123-secret";

/// Every request went to `origin`, and the secret header went with none other.
fn assert_all_requests_on(h: &Harness, origin: &str) {
    for req in &h.requests {
        let url = HttpUrl::parse(&req.url).expect("a request URL parses");
        assert_eq!(
            url.origin(),
            origin,
            "request to {} left its server",
            req.url
        );
    }
}

#[test]
fn a_redirected_request_fails_typed_and_is_never_followed() {
    // (status the driver reports, Location) - status 0 is a browser's opaque redirect
    // (`fetch(..., {redirect: "manual"})` hides the status and the Location).
    let table: [(u16, Option<&str>); 7] = [
        (301, Some("http://127.0.0.1:4000/mcp")),
        (302, Some("http://127.0.0.1:4000/mcp")),
        (303, Some("/elsewhere")),
        (307, Some("http://127.0.0.1:4000/mcp")),
        (308, Some("https://evil.example/mcp")),
        (307, None),
        (0, None),
    ];
    for (status, location) in table {
        let mut cfg = config();
        cfg.server.headers = vec![("X-Api-Key".into(), SECRET.into())];
        let mut h = Harness::new(
            cfg,
            server("2025-11-25", move |req, _| {
                if req.rpc_method() == "tools/list" {
                    return Some(Reply::result(&req.id(), json!({"tools": [tool("write")]})));
                }
                (req.rpc_method() == "tools/call").then(|| {
                    let reply = Reply::status(status, "");
                    match location {
                        Some(to) => reply.header("location", to),
                        None => reply,
                    }
                })
            }),
        );
        let listing = h.submit(list());
        let call = h.submit(call_tool("write", json!({"path": "a"})));
        h.run(10_000);
        assert!(matches!(h.ok(listing), Output::Tools(_)));
        let error = h.err(call);
        assert!(
            matches!(error, ClientError::Redirected { .. }),
            "{status} {location:?}: {error:?}"
        );
        assert_eq!(error.kind(), "redirected");
        let message = error.to_string();
        assert!(
            message.contains("does not follow redirects"),
            "{status}: {message}"
        );
        // The server answered instead of running the tool: it did not run here, and the call
        // is not retried anywhere else.
        assert!(!error.may_have_run(), "{status}");
        assert!(!message.contains(SECRET) && !error.hint().contains(SECRET));
        let calls = h
            .requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/call")
            .count();
        assert_eq!(calls, 1, "{status}: sent once, never again");
        assert_all_requests_on(&h, "http://127.0.0.1:3001");
    }
}

#[test]
fn a_redirected_initialize_fails_the_connection_with_the_same_error() {
    for transport in [TransportKind::Auto, TransportKind::Streamable] {
        let mut cfg = config();
        cfg.server.transport = transport;
        let mut h = Harness::new(
            cfg,
            server("2025-11-25", |req, _| {
                (req.rpc_method() == "initialize")
                    .then(|| Reply::status(307, "").header("location", "http://127.0.0.1:4000/mcp"))
            }),
        );
        let listing = h.submit(list());
        h.run(60_000);
        assert!(
            matches!(h.err(listing), ClientError::Redirected { .. }),
            "{transport:?}: {:?}",
            h.err(listing)
        );
        assert_all_requests_on(&h, "http://127.0.0.1:3001");
    }
}

/// A 2024-11-05 server whose `endpoint` event names `endpoint`, and which answers there.
fn legacy_server(endpoint: &'static str) -> impl FnMut(&Req, &mut Ctx) -> Reply {
    move |req, ctx| match req.method {
        HttpMethod::Get => {
            Reply::sse(&[&format!("event: endpoint\r\ndata: {endpoint}\r\n\r\n")]).open("sse")
        }
        HttpMethod::Post if req.url.contains("/messages") => {
            let answer = match req.rpc_method() {
                "initialize" => Some(init_result("2024-11-05")),
                "tools/list" => Some(json!({"tools": [tool("echo")]})),
                "tools/call" => Some(text_result("hi")),
                _ => None,
            };
            if let Some(answer) = answer {
                let message = json!({"jsonrpc": "2.0", "id": req.id(), "result": answer});
                ctx.push(
                    "sse",
                    5,
                    format!("event: message\r\ndata: {message}\r\n\r\n"),
                );
            }
            Reply::accepted()
        }
        _ => Reply::status(405, "Method Not Allowed"),
    }
}

#[test]
fn a_legacy_endpoint_on_another_origin_is_refused_before_anything_is_sent_there() {
    let foreign = [
        "http://127.0.0.1:4000/messages/?session_id=abc",
        "//evil.example/messages/?session_id=abc",
        "https://127.0.0.1:3001/messages/?session_id=abc",
        "http://localhost:3001/messages/?session_id=abc",
        "http://user:pw@127.0.0.1:4000/messages",
    ];
    for transport in [TransportKind::Sse, TransportKind::Auto] {
        for endpoint in foreign {
            let mut cfg = config();
            cfg.server.url = "http://127.0.0.1:3001/sse".into();
            cfg.server.transport = transport;
            cfg.server.headers = vec![("X-Api-Key".into(), SECRET.into())];
            let mut h = Harness::new(cfg, legacy_server(endpoint));
            let listing = h.submit(list());
            h.run(60_000);
            let error = h.err(listing);
            assert!(
                matches!(error, ClientError::ForeignEndpoint { .. }),
                "{transport:?} {endpoint}: {error:?}"
            );
            assert_eq!(error.kind(), "foreign_endpoint");
            let message = error.to_string();
            assert!(message.contains("another origin"), "{message}");
            assert!(!message.contains("pw@") && !message.contains("session_id=abc"));
            assert_all_requests_on(&h, "http://127.0.0.1:3001");
            assert!(
                h.requests
                    .iter()
                    .all(|r| r.method != HttpMethod::Post || !r.url.contains("/messages")),
                "{endpoint}: nothing was posted to the foreign endpoint"
            );
        }
    }
}

#[test]
fn a_legacy_endpoint_on_the_servers_own_origin_works() {
    let own = [
        "/messages/?session_id=abc",
        "messages?session_id=abc",
        "http://127.0.0.1:3001/messages/?session_id=abc",
        "HTTP://127.0.0.1:3001/messages/?session_id=abc",
    ];
    for endpoint in own {
        let mut cfg = config();
        cfg.server.url = "http://127.0.0.1:3001/sse".into();
        cfg.server.transport = TransportKind::Sse;
        cfg.server.headers = vec![("X-Api-Key".into(), SECRET.into())];
        let mut h = Harness::new(cfg, legacy_server(endpoint));
        let call = h.submit(call_tool("echo", json!({})));
        h.run(1_000);
        assert!(
            matches!(h.ok(call), Output::ToolResult(_)),
            "{endpoint}: {:?}",
            h.results
        );
        assert_all_requests_on(&h, "http://127.0.0.1:3001");
        assert!(h
            .requests
            .iter()
            .all(|r| r.header("x-api-key") == Some(SECRET)));
    }
}

#[test]
fn the_configured_url_is_the_origin_every_request_goes_to() {
    let mut h = Harness::new(config(), server("2025-11-25", |_, _| None));
    let listing = h.submit(list());
    h.run(1_000);
    assert!(h.results.contains_key(&listing));
    let origin = HttpUrl::parse(URL).expect("parses").origin();
    assert_all_requests_on(&h, &origin);
}
