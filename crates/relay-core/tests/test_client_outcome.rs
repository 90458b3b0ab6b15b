//! "Did the tool run?" as a typed answer: `ClientError::may_have_run`, per variant and through
//! the sans-IO session for every way a `tools/call` can fail. For a `tools/call`, the kind
//! `outcome_unknown` and `may_have_run()` always agree, so the exactly-once ledger never has to
//! match kind strings.

mod client_harness;

use std::cell::Cell;
use std::rc::Rc;

use client_harness::{config, server, Ctx, Harness, Reply, Req};
use relay_core::client::jsonrpc::ErrorCode;
use relay_core::client::{ClientError, HttpMethod, Operation, RetryPolicy, SessionConfig};
use serde_json::{json, Map};

const URL: &str = "http://127.0.0.1:3001/mcp";

#[test]
fn may_have_run_per_variant() {
    let connection = ClientError::Connection {
        url: URL.into(),
        message: "connect ECONNREFUSED".into(),
    };
    let http = |status| ClientError::Http {
        url: URL.into(),
        status,
        body: String::new(),
        retry_after_ms: None,
    };
    let cases: Vec<(&str, ClientError, bool)> = vec![
        (
            "outcome unknown",
            ClientError::OutcomeUnknown {
                tool: "t".into(),
                reason: "no answer".into(),
            },
            true,
        ),
        (
            "timeout after sending",
            ClientError::Timeout {
                method: "tools/list".into(),
                after_ms: 30_000,
            },
            true,
        ),
        ("connection refused", connection.clone(), false),
        (
            "auth",
            ClientError::Auth {
                url: URL.into(),
                status: 401,
                loopback: true,
                www_authenticate: None,
            },
            false,
        ),
        ("http 400", http(400), false),
        ("http 429", http(429), false),
        // A 5xx or an unreadable answer of a tools/call comes as OutcomeUnknown (see the
        // session table below); as themselves they are answers to other requests.
        ("http 500 of another request", http(500), false),
        (
            "protocol of another request",
            ClientError::Protocol {
                url: URL.into(),
                message: "bad".into(),
            },
            false,
        ),
        (
            "json-rpc error",
            ClientError::Rpc {
                method: "tools/list".into(),
                code: ErrorCode::INTERNAL_ERROR,
                message: "boom".into(),
                data: None,
            },
            false,
        ),
        (
            "invalid arguments",
            ClientError::Tool {
                tool: "t".into(),
                code: ErrorCode::INVALID_PARAMS,
                message: "b: required".into(),
                data: None,
            },
            false,
        ),
        (
            "cancelled before sending",
            ClientError::Cancelled {
                method: "tools/call".into(),
                reason: "user".into(),
            },
            false,
        ),
        (
            "retries of a safe request",
            ClientError::RetriesExhausted {
                method: "initialize".into(),
                attempts: 3,
                last: Box::new(connection),
            },
            false,
        ),
        (
            "session expired",
            ClientError::SessionExpired { url: URL.into() },
            false,
        ),
        (
            "unsupported version",
            ClientError::UnsupportedProtocolVersion {
                url: URL.into(),
                received: "1999-01-01".into(),
            },
            false,
        ),
        (
            "config",
            ClientError::Config {
                message: "bad url".into(),
            },
            false,
        ),
    ];
    for (label, error, expected) in cases {
        assert_eq!(error.may_have_run(), expected, "{label}: {error}");
    }
}

fn call_tool() -> Operation {
    Operation::CallTool {
        name: "charge_card".into(),
        arguments: Map::new(),
        progress: false,
    }
}

type Handler = Box<dyn FnMut(&Req, &mut Ctx) -> Reply>;

/// A server that answers the handshake and lets `on_call` answer `tools/call`.
fn on_call(mut reply: impl FnMut(&Req) -> Reply + 'static) -> Handler {
    Box::new(server("2025-11-25", move |req, _| {
        (req.rpc_method() == "tools/call").then(|| reply(req))
    }))
}

#[derive(Clone, Copy)]
enum Then {
    Run,
    /// Cancel the call this many ms after submitting it.
    CancelAfter(u64),
}

#[test]
fn a_tool_call_may_have_run_exactly_when_its_outcome_is_unknown() {
    let calls_seen = Rc::new(Cell::new(0));
    let seen = calls_seen.clone();
    let no_retry = |mut cfg: SessionConfig| {
        cfg.retry = RetryPolicy::new(1, 100, 100, 1_000);
        cfg
    };
    // (what happens, configuration, server, what the test does, kind, may have run)
    let cases: Vec<(&str, SessionConfig, Handler, Then, &str, bool)> = vec![
        // --- sent, and no usable answer: may have run ---
        (
            "timeout after sending",
            config(),
            on_call(|_| Reply::hang()),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "connection lost after sending (no response)",
            config(),
            on_call(|_| Reply::fail("connection reset")),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "connection lost in the middle of the answer",
            config(),
            on_call(|_| Reply::sse(&["event: message\ndata: {\"jsonrpc\""]).cut("reset")),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "HTTP 500",
            config(),
            on_call(|_| Reply::status(500, "Internal Server Error")),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "HTTP 502 from a proxy",
            config(),
            on_call(|_| Reply::status(502, "Bad Gateway")),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "malformed JSON answer",
            config(),
            on_call(|_| {
                Reply::status(200, "{\"jsonrpc\": ").header("content-type", "application/json")
            }),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "unreadable result",
            config(),
            on_call(|req| Reply::result(&req.id(), json!({"content": 7}))),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "truncated event stream",
            config(),
            on_call(|_| Reply::sse(&["event: message\ndata: {\"jsonrpc\":\"2.0\""])),
            Then::Run,
            "outcome_unknown",
            true,
        ),
        (
            "cancelled after sending",
            config(),
            on_call(|_| Reply::hang()),
            Then::CancelAfter(10),
            "outcome_unknown",
            true,
        ),
        // --- never sent, or refused by the server: did not run ---
        (
            "connection refused",
            config(),
            Box::new(|_: &Req, _: &mut Ctx| Reply::fail("connect ECONNREFUSED")),
            Then::Run,
            "retries_exhausted",
            false,
        ),
        (
            "DNS failure, no retries",
            no_retry(config()),
            Box::new(|_: &Req, _: &mut Ctx| Reply::fail("getaddrinfo ENOTFOUND")),
            Then::Run,
            "connection",
            false,
        ),
        (
            "initialize timed out, no retries",
            no_retry(config()),
            Box::new(|_: &Req, _: &mut Ctx| Reply::hang()),
            Then::Run,
            "connection",
            false,
        ),
        (
            "initialize answered HTTP 500, no retries",
            no_retry(config()),
            Box::new(|_: &Req, _: &mut Ctx| Reply::status(500, "boom")),
            Then::Run,
            "http",
            false,
        ),
        (
            "HTTP 401",
            config(),
            on_call(|_| Reply::status(401, "Unauthorized")),
            Then::Run,
            "auth",
            false,
        ),
        (
            "HTTP 400",
            config(),
            on_call(|_| Reply::status(400, "Bad Request")),
            Then::Run,
            "http",
            false,
        ),
        (
            "HTTP 429",
            config(),
            on_call(|_| Reply::status(429, "slow down")),
            Then::Run,
            "http",
            false,
        ),
        (
            "JSON-RPC invalid params",
            config(),
            on_call(|req| Reply::error(&req.id(), -32602, "amount: required")),
            Then::Run,
            "tool",
            false,
        ),
        (
            "JSON-RPC unknown tool",
            config(),
            on_call(|req| Reply::error(&req.id(), -32601, "no such tool")),
            Then::Run,
            "tool",
            false,
        ),
        (
            "session expired twice",
            config(),
            on_call(move |_| {
                seen.set(seen.get() + 1);
                Reply::status(404, "Not Found")
            }),
            Then::Run,
            "session_expired",
            false,
        ),
        (
            "cancelled while waiting for a session",
            config(),
            Box::new(|_: &Req, _: &mut Ctx| Reply::hang()),
            Then::CancelAfter(10),
            "cancelled",
            false,
        ),
        (
            "invalid configuration",
            {
                let mut cfg = config();
                cfg.server.url = "ftp://example.com/mcp".into();
                cfg
            },
            Box::new(|_: &Req, _: &mut Ctx| Reply::status(500, "never asked")),
            Then::Run,
            "config",
            false,
        ),
    ];
    for (label, mut cfg, handler, then, kind, may_have_run) in cases {
        cfg.server.timeout_ms = 1_000;
        let mut h = Harness::new(cfg, handler);
        let call = h.submit(call_tool());
        match then {
            Then::Run => h.run(120_000),
            Then::CancelAfter(ms) => {
                h.run(ms);
                h.cancel(call);
                h.run(10);
            }
        }
        let error = h.err(call);
        assert_eq!(error.kind(), kind, "{label}: {error}");
        assert_eq!(error.may_have_run(), may_have_run, "{label}: {error}");
        assert_eq!(
            error.kind() == "outcome_unknown",
            error.may_have_run(),
            "{label}: for a tools/call the kind and may_have_run agree"
        );
        let posted = h
            .requests
            .iter()
            .filter(|r| r.is(HttpMethod::Post, "tools/call"))
            .count();
        if may_have_run {
            assert_eq!(posted, 1, "{label}: sent once, never again");
        }
    }
    assert_eq!(calls_seen.get(), 2, "an expired session is retried once");
}

#[test]
fn a_tool_result_with_is_error_is_a_result_not_an_error() {
    let mut h = Harness::new(
        config(),
        on_call(|req| {
            Reply::result(
                &req.id(),
                json!({"content": [{"type": "text", "text": "card declined"}], "isError": true}),
            )
        }),
    );
    let call = h.submit(call_tool());
    h.run(1_000);
    h.ok(call);
}
