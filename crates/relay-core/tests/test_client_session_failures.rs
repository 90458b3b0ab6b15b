//! The sans-IO session's failures against scripted servers and a fake clock: expired sessions
//! (404, server-everything's 400) re-initialized once, transient failures retried with backoff
//! up to the limit, `Retry-After`, and timeouts (safe requests retried, tool calls unknown).
//! Transcripts as in `test_client_session.rs` (`data/client/<scenario>.txt`).

mod client_harness;
use std::cell::Cell;
use std::rc::Rc;

use client_harness::{
    call_tool, config, init_result, list, server, text_result, tool, Harness, Reply, Req,
};
use relay_core::client::{ClientError, Output};
use serde_json::json;

fn expiring_server(
    status: u16,
    body: &'static str,
    expire_every_time: bool,
) -> impl FnMut(&Req, &mut client_harness::Ctx) -> Reply {
    let expired_once = Rc::new(Cell::new(false));
    server("2025-11-25", move |req, _| {
        if req.rpc_method() != "tools/call" {
            return None;
        }
        if req.header("mcp-session-id") == Some("sess-1")
            || (expire_every_time && expired_once.get())
        {
            expired_once.set(true);
            return Some(Reply::status(status, body));
        }
        Some(Reply::result(&req.id(), text_result("ok")))
    })
}

#[test]
fn session_expired_404_reinitializes_and_retries_once() {
    let mut h = Harness::new(config(), expiring_server(404, "Session not found", false));
    let call = h.submit(call_tool("echo", json!({})));
    h.run(1_000);
    assert!(matches!(h.ok(call), Output::ToolResult(_)));
    assert_eq!(h.session.stats().initialize_requests, 2);
    assert_eq!(h.session.stats().reinitializations, 1);
    assert_eq!(h.session.session_id(), Some("sess-2"));
    h.check("session_expired_404");
}

#[test]
fn server_everything_400_no_valid_session_counts_as_expiry() {
    let mut h = Harness::new(
        config(),
        expiring_server(400, "Bad Request: No valid session ID provided", false),
    );
    let call = h.submit(call_tool("echo", json!({})));
    h.run(1_000);
    assert!(matches!(h.ok(call), Output::ToolResult(_)));
    assert_eq!(h.session.stats().reinitializations, 1);
}

#[test]
fn a_session_expiring_again_at_once_is_an_error() {
    let mut h = Harness::new(config(), expiring_server(404, "Session not found", true));
    let call = h.submit(call_tool("echo", json!({})));
    h.run(1_000);
    assert!(matches!(h.err(call), ClientError::SessionExpired { .. }));
    // And the client stays usable: a later call gets its own fresh attempt.
    assert_eq!(h.session.pending_calls(), 0);
    h.check("session_expired_twice");
}

#[test]
fn a_400_is_an_expiry_only_when_a_session_was_sent() {
    let mut h = Harness::new(
        config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/list").then(|| Reply::status(400, "no session here"))
        }),
    );
    // With a session, a 400 mentioning the session is taken as expiry (server-everything), and a
    // second one right after re-initializing is reported as such.
    let call = h.submit(list());
    h.run(1_000);
    assert!(matches!(h.err(call), ClientError::SessionExpired { .. }));

    // Without a session (a stateless server), a 400 is just a 400.

    let mut h = Harness::new(
        config(),
        move |req: &Req, _: &mut client_harness::Ctx| match req.rpc_method() {
            "initialize" => Reply::result(&req.id(), init_result("2025-11-25")),
            "tools/list" => Reply::status(400, "no session here"),
            _ => Reply::accepted(),
        },
    );
    let call = h.submit(list());
    h.run(1_000);
    assert!(matches!(h.err(call), ClientError::Http { status: 400, .. }));
    assert_eq!(h.session.stats().initialize_requests, 1);
}

#[test]
fn transient_failures_of_safe_requests_are_retried_with_backoff() {
    let attempts = Rc::new(Cell::new(0));
    let seen = attempts.clone();
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "tools/list" => {
                seen.set(seen.get() + 1);
                Some(match seen.get() {
                    1 => Reply::status(503, "overloaded"),
                    2 => Reply::fail("connection reset"),
                    _ => Reply::result(&req.id(), json!({"tools": [tool("t")]})),
                })
            }
            "tools/call" => Some(Reply::status(503, "overloaded")),
            _ => None,
        }),
    );
    let listing = h.submit(list());
    h.run(60_000);
    assert!(matches!(h.ok(listing), Output::Tools(_)));
    assert_eq!(attempts.get(), 3);
    assert_eq!(h.session.stats().retries, 2);
    // Delays: 250..500 ms before the 2nd attempt, 500..1000 ms before the 3rd (equal jitter).
    let call = h.submit(call_tool("write_file", json!({"path": "x"})));
    h.run(60_000);
    // A 5xx to a call may come after the tool ran: its outcome is unknown, never retried.
    assert!(
        matches!(h.err(call), ClientError::OutcomeUnknown { reason, .. } if reason.contains("HTTP 503")),
        "tools/call is never retried"
    );
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/call")
            .count(),
        1
    );
    h.check("retry_backoff");
}

#[test]
fn retries_stop_after_max_attempts_with_retries_exhausted() {
    let mut h = Harness::new(config(), |_: &Req, _: &mut client_harness::Ctx| {
        Reply::fail("connection refused")
    });
    let call = h.submit(list());
    h.run(60_000);
    match h.err(call) {
        ClientError::RetriesExhausted {
            method,
            attempts,
            last,
        } => {
            assert_eq!((method.as_str(), *attempts), ("initialize", 3));
            assert!(matches!(**last, ClientError::Connection { .. }));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.session.stats().initialize_requests, 3);
    h.check("retries_exhausted");
}

#[test]
fn retry_after_is_honoured_for_429() {
    let attempts = Rc::new(Cell::new(0));
    let seen = attempts.clone();
    let mut h = Harness::new(
        config(),
        server("2025-11-25", move |req, _| {
            (req.rpc_method() == "tools/list").then(|| {
                seen.set(seen.get() + 1);
                if seen.get() == 1 {
                    Reply::status(429, "slow down").header("retry-after", "2")
                } else {
                    Reply::result(&req.id(), json!({"tools": []}))
                }
            })
        }),
    );
    let call = h.submit(list());
    h.run(1_999);
    assert_eq!(attempts.get(), 1, "not before Retry-After");
    h.run(10);
    assert!(matches!(h.ok(call), Output::Tools(_)));
}

#[test]
fn timeouts_retry_safe_requests_and_leave_tool_calls_unknown() {
    let mut cfg = config();
    cfg.server.timeout_ms = 1_000;
    let listed = Rc::new(Cell::new(0));
    let seen = listed.clone();
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "tools/list" => {
                seen.set(seen.get() + 1);
                Some(if seen.get() == 1 {
                    Reply::hang()
                } else {
                    Reply::result(&req.id(), json!({"tools": []}))
                })
            }
            "tools/call" => Some(Reply::hang()),
            _ => None,
        }),
    );
    let listing = h.submit(list());
    h.run(10_000);
    assert!(matches!(h.ok(listing), Output::Tools(_)));
    let call = h.submit(call_tool("charge_card", json!({"amount": 5})));
    h.run(10_000);
    assert!(
        matches!(h.err(call), ClientError::OutcomeUnknown { tool, .. } if tool == "charge_card")
    );
    // The server is told we gave up, and the call is not sent again.
    let cancelled: Vec<&Req> = h
        .requests
        .iter()
        .filter(|r| r.rpc_method() == "notifications/cancelled")
        .collect();
    assert_eq!(cancelled.len(), 2);
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| r.rpc_method() == "tools/call")
            .count(),
        1
    );
    h.check("timeouts");
}
