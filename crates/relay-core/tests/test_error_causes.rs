//! What an error carries for the panel to say it in any language: its kind's details (the
//! placeholders of `errKind_<kind>`) and its cause (the advice `errCause_<cause>`), from every
//! client failure a user meets, and from a server address the panel refuses.

use relay_core::app::server_from;
use relay_core::client::jsonrpc::ErrorCode;
use relay_core::client::ClientError;
use relay_core::contract::request::ServerInput;
use relay_core::contract::{ErrorBody, ErrorCause, ErrorKind};

fn http(status: u16) -> ClientError {
    ClientError::Http {
        url: "http://user:pw@127.0.0.1:9/wrong?token=s3cret".into(),
        status,
        body: String::new(),
        retry_after_ms: None,
    }
}

fn auth(status: u16, loopback: bool) -> ClientError {
    ClientError::Auth {
        url: "http://127.0.0.1:9/mcp".into(),
        status,
        loopback,
        www_authenticate: None,
    }
}

fn tool(code: ErrorCode) -> ClientError {
    ClientError::Tool {
        tool: "add".into(),
        code,
        message: "no".into(),
        data: None,
    }
}

#[test]
fn client_errors_carry_their_kinds_details_and_cause() {
    let redacted = "http://127.0.0.1:9/wrong?token=…";
    #[rustfmt::skip]
    let table: Vec<(ClientError, ErrorKind, Vec<&str>, Option<ErrorCause>)> = vec![
        (http(404), ErrorKind::Http, vec!["404", redacted], Some(ErrorCause::WrongPath)),
        (http(405), ErrorKind::Http, vec!["405", redacted], Some(ErrorCause::NotMcp)),
        (http(429), ErrorKind::Http, vec!["429", redacted], Some(ErrorCause::RateLimited)),
        (http(502), ErrorKind::Http, vec!["502", redacted], Some(ErrorCause::ServerFailed)),
        (http(418), ErrorKind::Http, vec!["418", redacted], None),
        (auth(401, false), ErrorKind::Auth, vec!["401"], Some(ErrorCause::SignIn)),
        (auth(403, true), ErrorKind::Auth, vec!["403"], Some(ErrorCause::LoopbackOrigin)),
        (auth(403, false), ErrorKind::Auth, vec!["403"], Some(ErrorCause::Scopes)),
        (tool(ErrorCode::INVALID_PARAMS), ErrorKind::Tool, vec!["add"], Some(ErrorCause::BadArguments)),
        (tool(ErrorCode::METHOD_NOT_FOUND), ErrorKind::Tool, vec!["add"], Some(ErrorCause::UnknownTool)),
        (tool(ErrorCode::INTERNAL_ERROR), ErrorKind::Tool, vec!["add"], None),
        (
            ClientError::Rpc { method: "prompts/list".into(), code: ErrorCode::METHOD_NOT_FOUND, message: "x".into(), data: None },
            ErrorKind::Rpc, vec![], Some(ErrorCause::NoFeature),
        ),
        (
            // An offline server says what happened and what to do in every language.
            ClientError::Connection { url: "http://127.0.0.1:9/mcp".into(), message: "refused".into() },
            ErrorKind::Connection, vec!["http://127.0.0.1:9/mcp"], Some(ErrorCause::Unreachable),
        ),
        (
            ClientError::RetriesExhausted {
                method: "tools/list".into(),
                attempts: 3,
                last: Box::new(ClientError::Connection { url: "http://127.0.0.1:9/mcp".into(), message: "Failed to fetch".into() }),
            },
            ErrorKind::RetriesExhausted, vec!["3"], Some(ErrorCause::Unreachable),
        ),
        (ClientError::Timeout { method: "tools/list".into(), after_ms: 30_000 }, ErrorKind::Timeout, vec!["30"], None),
        (ClientError::Timeout { method: "tools/list".into(), after_ms: 1_500 }, ErrorKind::Timeout, vec!["1.5"], None),
        (
            ClientError::OutcomeUnknown { tool: "charge".into(), reason: "timeout".into() },
            ErrorKind::OutcomeUnknown, vec!["charge"], None,
        ),
        (
            // Retries say how many, and keep the advice of the failure that ended them.
            ClientError::RetriesExhausted { method: "tools/list".into(), attempts: 3, last: Box::new(http(503)) },
            ErrorKind::RetriesExhausted, vec!["3"], Some(ErrorCause::ServerFailed),
        ),
    ];
    for (error, kind, details, cause) in table {
        let body = ErrorBody::from(&error);
        assert_eq!(body.kind, kind, "{error}");
        assert_eq!(body.details, details, "{error}");
        assert_eq!(body.cause, cause, "{error}");
        // One detail per placeholder of the kind's text in every language.
        assert_eq!(body.details.len(), kind.details().len(), "{error}");
        // The wire form carries the cause by its name, and nothing secret.
        let wire = serde_json::to_string(&body).expect("json");
        assert!(!wire.contains("s3cret") && !wire.contains("pw@"), "{wire}");
        if let Some(cause) = cause {
            assert!(
                wire.contains(&format!("\"cause\":\"{}\"", cause.as_str())),
                "{wire}"
            );
        }
    }
}

#[test]
fn a_server_address_the_panel_refuses_says_how_to_write_it() {
    for (url, cause) in [
        ("example.com/mcp", Some(ErrorCause::UrlScheme)),
        ("ftp://example.com/mcp", Some(ErrorCause::UrlScheme)),
        ("http:///mcp", Some(ErrorCause::UrlInvalid)),
        ("http://exa mple.com/mcp", Some(ErrorCause::UrlInvalid)),
    ] {
        let input: ServerInput =
            serde_json::from_value(serde_json::json!({"name": "x", "url": url})).expect("input");
        let error = server_from(input, "x", 30_000).expect_err(url);
        assert_eq!(error.kind, ErrorKind::InvalidArgument, "{url}");
        assert_eq!(error.cause, cause, "{url}");
    }
    // A good address with another mistake has no address advice.
    let input: ServerInput = serde_json::from_value(
        serde_json::json!({"name": "x", "url": "http://127.0.0.1:9/mcp", "timeoutMs": 0}),
    )
    .expect("input");
    let error = server_from(input, "x", 30_000).expect_err("timeout 0");
    assert_eq!(error.cause, None);
}
