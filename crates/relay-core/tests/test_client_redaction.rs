//! Secrets in a server URL (userinfo, query values, fragment) never reach a text the client
//! produces: error messages, hints, reports, configuration and import errors. Every variant of
//! `ClientError` that names a URL is built with a URL full of secrets, and each failure path of
//! the sans-IO session is driven against a server at such a URL.

mod client_harness;

use client_harness::{config, server, Harness, Reply, Req};
use relay_core::client::jsonrpc::ErrorCode;
use relay_core::client::{
    import_mcp_servers, ClientError, HttpMethod, Operation, ServerConfig, TransportKind,
};
use serde_json::{json, Map, Value};

/// A URL with a password, a secret query value and a fragment.
const SECRET_URL: &str = "https://user:pw@mcp.example.com:8443/mcp/v1?token=SECRET&x=1#frag";
const SECRETS: &[&str] = &["pw", "SECRET", "frag"];
/// What must still be there: where the server is.
const KEPT: &[&str] = &["mcp.example.com", "/mcp/v1"];

fn assert_redacted(label: &str, text: &str, must_keep: bool) {
    for secret in SECRETS {
        assert!(
            !text.contains(secret),
            "{label}: `{secret}` leaked in {text:?}"
        );
    }
    if must_keep {
        for kept in KEPT {
            assert!(
                text.contains(kept),
                "{label}: `{kept}` missing from {text:?}"
            );
        }
    }
}

fn assert_error_redacted(label: &str, error: &ClientError, must_keep: bool) {
    let report = error.report();
    assert_redacted(label, &error.to_string(), must_keep);
    assert_redacted(label, &report.message, must_keep);
    assert_redacted(label, &report.hint, false);
    assert_redacted(label, report.kind.as_str(), false);
    let json = serde_json::to_string(&report).expect("serializes");
    assert_redacted(label, &json, false);
}

fn url() -> String {
    SECRET_URL.to_owned()
}

#[test]
fn every_error_variant_naming_a_url_hides_its_secrets() {
    // Free-text members (a fetch failure's message, a server's body or reason) may quote the
    // URL too: they are scrubbed as well.
    let quoted = format!("request to {SECRET_URL} failed, reason: connect ECONNREFUSED");
    let cases: Vec<(&str, ClientError)> = vec![
        (
            "connection",
            ClientError::Connection {
                url: url(),
                message: quoted.clone(),
            },
        ),
        (
            "auth 401",
            ClientError::Auth {
                url: url(),
                status: 401,
                loopback: false,
                www_authenticate: Some("Bearer realm=\"mcp\"".into()),
            },
        ),
        (
            "auth 403 loopback",
            ClientError::Auth {
                url: url(),
                status: 403,
                loopback: true,
                www_authenticate: None,
            },
        ),
        (
            "http 404",
            ClientError::Http {
                url: url(),
                status: 404,
                body: format!("no route for {SECRET_URL}"),
                retry_after_ms: None,
            },
        ),
        (
            "http 500",
            ClientError::Http {
                url: url(),
                status: 500,
                body: "Internal Server Error".into(),
                retry_after_ms: None,
            },
        ),
        (
            "protocol",
            ClientError::Protocol {
                url: url(),
                message: format!("bad `endpoint` event: {SECRET_URL}"),
            },
        ),
        (
            "session expired",
            ClientError::SessionExpired { url: url() },
        ),
        (
            "unsupported version",
            ClientError::UnsupportedProtocolVersion {
                url: url(),
                received: "2099-01-01".into(),
            },
        ),
        (
            "outcome unknown",
            ClientError::OutcomeUnknown {
                tool: "charge".into(),
                reason: quoted.clone(),
            },
        ),
        (
            "retries exhausted",
            ClientError::RetriesExhausted {
                method: "initialize".into(),
                attempts: 3,
                last: Box::new(ClientError::Connection {
                    url: url(),
                    message: "Failed to fetch".into(),
                }),
            },
        ),
    ];
    for (label, error) in &cases {
        assert_error_redacted(label, error, true);
    }
    // Variants that name no URL of their own still scrub one quoted in their text.
    let quoting: Vec<(&str, ClientError)> = vec![
        (
            "config",
            ClientError::Config {
                message: format!("server `x`: `{SECRET_URL}` is unusable"),
            },
        ),
        (
            "rpc",
            ClientError::Rpc {
                method: "tools/list".into(),
                code: ErrorCode::INTERNAL_ERROR,
                message: format!("upstream {SECRET_URL} down"),
                data: None,
            },
        ),
        (
            "tool",
            ClientError::Tool {
                tool: "fetch".into(),
                code: ErrorCode::INVALID_PARAMS,
                message: format!("cannot open {SECRET_URL}"),
                data: None,
            },
        ),
        (
            "cancelled",
            ClientError::Cancelled {
                method: "tools/call".into(),
                reason: format!("server {SECRET_URL} removed"),
            },
        ),
        (
            "timeout",
            ClientError::Timeout {
                method: "tools/list".into(),
                after_ms: 30_000,
            },
        ),
    ];
    for (label, error) in &quoting {
        assert_error_redacted(label, error, false);
    }
}

#[test]
fn configuration_and_import_errors_hide_url_secrets() {
    let bad_urls = [
        "ftp://user:pw@mcp.example.com/mcp/v1?token=SECRET#frag",
        "https://user:pw@/mcp/v1?token=SECRET#frag",
        "https://user:pw@mcp.example.com/mcp/v1 x?token=SECRET#frag",
        "user:pw@mcp.example.com/mcp/v1?token=SECRET#frag",
    ];
    for bad in bad_urls {
        let server = ServerConfig::new("s", "S", bad);
        let error = server.validate().expect_err("invalid");
        assert_redacted(bad, &error.to_string(), false);
        let file = json!({"mcpServers": {"s": {"url": bad}}}).to_string();
        let report = import_mcp_servers(&file, &[]).expect("readable");
        assert_eq!(report.skipped.len(), 1, "{bad}");
        assert_redacted(bad, &report.skipped[0].reason, false);
        // A session over such a configuration fails every call with a redacted Config error.
        let mut cfg = config();
        cfg.server.url = bad.to_owned();
        let mut h = Harness::new(cfg, |_: &Req, _: &mut client_harness::Ctx| {
            Reply::status(500, "unreachable")
        });
        let call = h.submit(Operation::Ping);
        h.run(10);
        assert_error_redacted(bad, h.err(call), false);
        assert!(h.requests.is_empty());
    }
    // Not JSON, with the URL in it: serde's message may quote the input.
    let error = import_mcp_servers(&format!("{{\"mcpServers\": \"{SECRET_URL}\"}}"), &[])
        .map(|r| format!("{:?}", r.skipped))
        .unwrap_or_else(|e| e.to_string());
    assert_redacted("import", &error, false);
}

fn call_tool(name: &str) -> Operation {
    Operation::CallTool {
        name: name.to_owned(),
        arguments: Map::new(),
        progress: false,
    }
}

fn secret_config() -> relay_core::client::SessionConfig {
    let mut cfg = config();
    cfg.server.url = SECRET_URL.to_owned();
    cfg
}

#[test]
fn a_tool_call_answered_with_http_500_reports_no_secret() {
    let mut h = Harness::new(
        secret_config(),
        server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/call").then(|| Reply::status(500, "Internal Server Error"))
        }),
    );
    let call = h.submit(call_tool("charge_card"));
    h.run(10_000);
    // The request itself went to the full URL: only texts are redacted.
    let sent = h
        .requests
        .iter()
        .find(|r| r.rpc_method() == "tools/call")
        .expect("the call was sent");
    assert_eq!(
        sent.url,
        "https://user:pw@mcp.example.com:8443/mcp/v1?token=SECRET&x=1"
    );
    let error = h.err(call);
    assert!(error.to_string().contains("500"), "{error}");
    assert_error_redacted("tools/call 500", error, true);
}

#[test]
fn every_session_failure_path_reports_no_secret() {
    type Handler = Box<dyn FnMut(&Req, &mut client_harness::Ctx) -> Reply>;
    // (what happens, transport, operation, kind of the error it must produce, server)
    let cases: Vec<(&str, TransportKind, Operation, &str, Handler)> = vec![
        (
            "initialize refused",
            TransportKind::Streamable,
            Operation::Ping,
            "retries_exhausted",
            Box::new(|_: &Req, _: &mut client_harness::Ctx| Reply::fail("connection refused")),
        ),
        (
            "transport error quoting the URL",
            TransportKind::Streamable,
            Operation::Ping,
            "retries_exhausted",
            Box::new(|_: &Req, _: &mut client_harness::Ctx| {
                Reply::fail("request to https://user:pw@mcp.example.com:8443/mcp/v1?token=SECRET&x=1 failed")
            }),
        ),
        (
            "401",
            TransportKind::Streamable,
            Operation::Ping,
            "auth",
            Box::new(|_: &Req, _: &mut client_harness::Ctx| Reply::status(401, "Unauthorized")),
        ),
        (
            "404 echoing the URL",
            TransportKind::Streamable,
            Operation::Ping,
            "http",
            Box::new(|_: &Req, _: &mut client_harness::Ctx| {
                Reply::status(
                    404,
                    "Cannot POST https://user:pw@mcp.example.com:8443/mcp/v1?token=SECRET",
                )
            }),
        ),
        (
            "malformed answer",
            TransportKind::Streamable,
            call_tool("t"),
            "outcome_unknown",
            Box::new(server("2025-11-25", |req, _| {
                (req.rpc_method() == "tools/call").then(|| {
                    Reply::status(200, "{not json").header("content-type", "application/json")
                })
            })),
        ),
        (
            "unsupported version",
            TransportKind::Streamable,
            Operation::Ping,
            "unsupported_protocol_version",
            Box::new(server("2099-01-01", |_, _| None)),
        ),
        (
            "session expiring twice",
            TransportKind::Streamable,
            call_tool("t"),
            "session_expired",
            Box::new(server("2025-11-25", |req, _| {
                (req.rpc_method() == "tools/call").then(|| Reply::status(404, "Not Found"))
            })),
        ),
        (
            "timeout",
            TransportKind::Streamable,
            call_tool("t"),
            "outcome_unknown",
            Box::new(server("2025-11-25", |req, _| {
                (req.rpc_method() == "tools/call").then(Reply::hang)
            })),
        ),
        (
            "legacy endpoint unusable",
            TransportKind::Sse,
            Operation::Ping,
            "protocol",
            Box::new(|req: &Req, _: &mut client_harness::Ctx| {
                if req.method == HttpMethod::Get {
                    Reply::sse(&["event: endpoint\ndata: ftp://user:pw@x/?token=SECRET#frag\n\n"])
                        .open("sse")
                } else {
                    Reply::status(500, "no")
                }
            }),
        ),
        (
            "legacy stream closed",
            TransportKind::Sse,
            Operation::Ping,
            "retries_exhausted",
            Box::new(|_: &Req, _: &mut client_harness::Ctx| {
                Reply::sse(&["event: message\ndata: {}\n\n"])
            }),
        ),
    ];
    for (label, transport, op, kind, handler) in cases {
        let mut cfg = secret_config();
        cfg.server.transport = transport;
        cfg.server.timeout_ms = 1_000;
        let mut h = Harness::new(cfg, handler);
        let call = h.submit(op);
        h.run(120_000);
        assert_error_redacted(label, h.err(call), false);
        let text = h.err(call).to_string();
        assert_eq!(h.err(call).kind(), kind, "{label}: {text}");
        assert!(
            text.contains("mcp.example.com") || !text.contains("://"),
            "{label}: {text}"
        );
    }
}

#[test]
fn error_reports_of_urls_without_secrets_are_unchanged() {
    let plain: Value = serde_json::to_value(
        ClientError::Http {
            url: "http://127.0.0.1:3001/mcp".into(),
            status: 404,
            body: "see http://127.0.0.1:3001/docs".into(),
            retry_after_ms: None,
        }
        .report(),
    )
    .expect("serializes");
    assert_eq!(
        plain["message"],
        json!("http://127.0.0.1:3001/mcp answered HTTP 404: see http://127.0.0.1:3001/docs")
    );
}
