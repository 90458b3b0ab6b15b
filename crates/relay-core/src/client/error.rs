//! The client's error taxonomy (seed 003): every failure a user can meet, with a message that
//! says what happened and a hint that says what to do about it.
//!
//! A tool result with `isError: true` is NOT here: the tool ran and reported a failure, which
//! is a result for the model to read, not a failure of the client.
//!
//! **Did it run?** [`ClientError::may_have_run`] answers it for the exactly-once ledger, typed,
//! with no matching of kind strings. For a `tools/call`, the session reports every failure
//! after the request was handed over to be sent (timeout, connection lost, HTTP 5xx, an
//! unreadable, malformed or truncated answer, cancellation in flight) as
//! [`ClientError::OutcomeUnknown`], kind `outcome_unknown`; every other error of a `tools/call`
//! means it did not run (it was never sent, or the server refused it: 4xx, JSON-RPC error).
//! Other requests keep their own kinds (`timeout` for one that was sent and got no answer).
//!
//! **No secrets.** Every URL in a message is redacted ([`super::url::redact_url`]) and every
//! free-text member scrubbed of URLs ([`super::url::scrub_urls`]) when the error is formatted,
//! whatever the `url` fields hold; the session stores only the redacted form anyway.

use crate::contract::{ErrorCause, ErrorKind};
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::jsonrpc::ErrorCode;
use super::url::{redact_url, scrub_urls};

/// Everything that can go wrong talking to an MCP server.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server could not be reached, or the connection broke before an answer arrived.
    #[error("the server at {} could not be reached: {}", redact_url(.url), scrub_urls(.message))]
    Connection { url: String, message: String },
    /// The server refused our credentials (401) or our request's origin/permissions (403).
    #[error("{} refused the request (HTTP {status})", redact_url(.url))]
    Auth {
        url: String,
        status: u16,
        loopback: bool,
        www_authenticate: Option<String>,
    },
    /// Any other HTTP status that is not an MCP answer.
    #[error("{} answered HTTP {status}{}", redact_url(.url), body_suffix(.body))]
    Http {
        url: String,
        status: u16,
        body: String,
        retry_after_ms: Option<u64>,
    },
    /// The server answered, but not with valid MCP.
    #[error("invalid answer from {}: {}", redact_url(.url), scrub_urls(.message))]
    Protocol { url: String, message: String },
    /// The server answered a request other than `tools/call` with a JSON-RPC error.
    #[error("{method} failed: {} (error {code})", scrub_urls(.message))]
    Rpc {
        method: String,
        code: ErrorCode,
        message: String,
        data: Option<Value>,
    },
    /// The server refused a `tools/call` with a JSON-RPC error (unknown tool, invalid
    /// arguments...): the tool did not run.
    #[error("tool `{tool}` was refused: {} (error {code})", scrub_urls(.message))]
    Tool {
        tool: String,
        code: ErrorCode,
        message: String,
        data: Option<Value>,
    },
    /// A request that is safe to repeat took longer than its timeout.
    #[error("{method} got no answer within {} s", seconds(*.after_ms))]
    Timeout { method: String, after_ms: u64 },
    /// A `tools/call` was sent but no usable answer came (timeout, broken connection, HTTP 5xx,
    /// an unreadable answer, or cancelled in flight): the tool may or may not have run. Never
    /// retried automatically. The only kind of a `tools/call` for which
    /// [`ClientError::may_have_run`] is true.
    #[error("the outcome of tool `{tool}` is unknown: {}", scrub_urls(.reason))]
    OutcomeUnknown { tool: String, reason: String },
    /// Retries of a transient failure ran out.
    #[error("{last} (tried {attempts} times)")]
    RetriesExhausted {
        method: String,
        attempts: u32,
        last: Box<ClientError>,
    },
    /// The request was cancelled (by the user, or because the server was removed).
    #[error("{method} was cancelled: {}", scrub_urls(.reason))]
    Cancelled { method: String, reason: String },
    /// The server dropped our session, and dropped the new one again at once.
    #[error("{} keeps expiring the session", redact_url(.url))]
    SessionExpired { url: String },
    /// The server speaks only protocol versions we do not.
    #[error("{} speaks MCP {}, which this client does not support", redact_url(.url), scrub_urls(.received))]
    UnsupportedProtocolVersion { url: String, received: String },
    /// The server answered with a redirect (3xx, or a browser's opaque redirect): MCP Relay
    /// never follows one, so a request, its headers and its token never reach an address the
    /// user did not configure. The server did not run the request.
    #[error(
        "{} redirected the request to {}; MCP Relay does not follow redirects",
        redact_url(.url),
        .location.as_deref().map(redact_url).unwrap_or_else(|| "another address".to_owned())
    )]
    Redirected {
        url: String,
        location: Option<String>,
    },
    /// A legacy HTTP+SSE server's `endpoint` event named an address on another origin than the
    /// server's URL: nothing is sent there (the official SDKs refuse it too).
    #[error(
        "{} named its message endpoint on another origin ({}); MCP Relay sends a server's requests only to the server's own origin",
        redact_url(.url),
        redact_url(.endpoint)
    )]
    ForeignEndpoint { url: String, endpoint: String },
    /// The server's configuration cannot work (bad URL, stdio server...).
    #[error("invalid server configuration: {}", scrub_urls(.message))]
    Config { message: String },
}

fn body_suffix(body: &str) -> String {
    let body = scrub_urls(body);
    let body = body.trim();
    if body.is_empty() {
        return String::new();
    }
    let mut short: String = body.chars().take(200).collect();
    if short.len() < body.len() {
        short.push('…');
    }
    format!(": {short}")
}

/// The serializable form of an error for the UI: `{kind, message, hint}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ErrorReport {
    pub kind: ErrorKind,
    pub message: String,
    /// Left out when there is none, as in `contract::ErrorBody`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hint: String,
    /// For `auth` errors: what a sign-in needs (`auth::AuthInput::Challenge`, as it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<AuthChallenge>,
}

/// The status and `WWW-Authenticate` of a refused request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthChallenge {
    pub status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub www_authenticate: Option<String>,
}

impl AuthChallenge {
    /// A refusal's status and `WWW-Authenticate` header.
    pub fn new(status: u16, www_authenticate: Option<String>) -> Self {
        AuthChallenge {
            status,
            www_authenticate,
        }
    }
}

impl ClientError {
    /// A stable machine-readable name of the error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ClientError::Connection { .. } => ErrorKind::Connection,
            ClientError::Auth { .. } => ErrorKind::Auth,
            ClientError::Http { .. } => ErrorKind::Http,
            ClientError::Protocol { .. } => ErrorKind::Protocol,
            ClientError::Rpc { .. } => ErrorKind::Rpc,
            ClientError::Tool { .. } => ErrorKind::Tool,
            ClientError::Timeout { .. } => ErrorKind::Timeout,
            ClientError::OutcomeUnknown { .. } => ErrorKind::OutcomeUnknown,
            ClientError::RetriesExhausted { .. } => ErrorKind::RetriesExhausted,
            ClientError::Cancelled { .. } => ErrorKind::Cancelled,
            ClientError::SessionExpired { .. } => ErrorKind::SessionExpired,
            ClientError::UnsupportedProtocolVersion { .. } => ErrorKind::UnsupportedProtocolVersion,
            ClientError::Redirected { .. } => ErrorKind::Redirected,
            ClientError::ForeignEndpoint { .. } => ErrorKind::ForeignEndpoint,
            ClientError::Config { .. } => ErrorKind::Config,
        }
    }

    /// Whether the failure may go away by itself, so a request that is safe to repeat may be
    /// retried: connection failures, timeouts, 5xx and 429. Never auth or argument errors.
    pub fn is_transient(&self) -> bool {
        match self {
            ClientError::Connection { .. } | ClientError::Timeout { .. } => true,
            ClientError::Http { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }

    /// Whether the request this error is about may have reached the server and taken effect,
    /// so running it again could run it twice. True for [`ClientError::OutcomeUnknown`] (what a
    /// `tools/call` becomes when it was sent and no usable answer came: timeout, connection lost,
    /// HTTP 5xx, unreadable/malformed/truncated answer, cancelled in flight) and
    /// [`ClientError::Timeout`] (another request sent and not answered). False for everything
    /// that shows the request did not run: not sent (connection refused, DNS, no session,
    /// configuration, cancelled while queued), refused by the server (HTTP 4xx, auth, JSON-RPC
    /// errors: the server answered), and retries of requests that are safe to repeat.
    pub fn may_have_run(&self) -> bool {
        matches!(
            self,
            ClientError::OutcomeUnknown { .. } | ClientError::Timeout { .. }
        )
    }

    /// What a failure of a `tools/call` of `tool` becomes once its request was handed over to
    /// be sent: a failure that leaves open whether the tool ran is [`ClientError::OutcomeUnknown`]
    /// (never retried: the exactly-once ledger upstream depends on it); a definite one (4xx,
    /// JSON-RPC error, expired session) stays as it is.
    pub(crate) fn after_sending_call(self, tool: &str) -> ClientError {
        let reason = match &self {
            ClientError::Connection { .. }
            | ClientError::Timeout { .. }
            | ClientError::Protocol { .. } => self.to_string(),
            ClientError::Http { status, .. } if *status >= 500 => self.to_string(),
            ClientError::Cancelled { reason, .. } => {
                format!("cancelled after it was sent ({reason})")
            }
            _ => return self,
        };
        ClientError::OutcomeUnknown {
            tool: tool.to_owned(),
            reason,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> String {
        match self {
            ClientError::Connection { .. } => "Check that the server is running and that its URL is right. \
                If it runs on this computer, start it and try again; the extension retries safe requests by itself."
                .to_owned(),
            ClientError::Auth { status: 401, www_authenticate, .. } => {
                let scheme = www_authenticate.as_deref().and_then(|h| h.split_whitespace().next()).unwrap_or("Bearer");
                format!(
                    "The server needs you to sign in: press Sign in on this server in the side panel. If the \
                     server gave you a token instead, add an `Authorization: {scheme} <token>` header to its settings."
                )
            }
            ClientError::Auth { loopback: true, .. } => "Servers on this computer reject requests whose Origin is not \
                their own, to block DNS-rebinding attacks, and a browser extension's requests carry \
                `Origin: chrome-extension://…`. MCP Relay removes the Origin header for the servers you configure: \
                reload the extension if you just added this server. Otherwise allow the extension's origin in the \
                server's settings (its allowed origins / DNS-rebinding protection)."
                .to_owned(),
            ClientError::Auth { .. } => "The server understood who you are but does not allow this request. Check \
                the token's permissions or scopes in the server's settings."
                .to_owned(),
            ClientError::Http { status: 404, .. } => "Nothing answers MCP at this URL. Check the path: Streamable \
                HTTP servers usually listen on `/mcp`, older SSE servers on `/sse`."
                .to_owned(),
            ClientError::Http { status: 405 | 406 | 415, .. } => "The address answers HTTP but not MCP. Check that the \
                URL is the server's MCP endpoint, and try the transport setting `sse` for older servers."
                .to_owned(),
            ClientError::Http { status: 429, .. } => {
                "The server is rate-limiting requests. Wait a moment and try again.".to_owned()
            }
            ClientError::Http { status, .. } if *status >= 500 => "The server failed while handling the request; \
                its own logs say why. Safe requests were retried automatically."
                .to_owned(),
            ClientError::Http { .. } => "The server rejected the request. Check the server's URL and settings.".to_owned(),
            ClientError::Protocol { .. } => "The server's answer is not valid MCP. Check that the URL points at an \
                MCP endpoint; if it does, the server has a bug worth reporting."
                .to_owned(),
            ClientError::Rpc { code, .. } if *code == ErrorCode::METHOD_NOT_FOUND => {
                "This server does not offer that feature.".to_owned()
            }
            ClientError::Rpc { .. } => "The server reported an error for this request; its message says why.".to_owned(),
            ClientError::Tool { code, .. } if *code == ErrorCode::INVALID_PARAMS => "The server rejected the tool's \
                name or arguments before running it. Refresh the tool list and check the arguments against its schema."
                .to_owned(),
            ClientError::Tool { code, .. } if *code == ErrorCode::METHOD_NOT_FOUND => {
                "The server does not know this tool. Refresh the tool list.".to_owned()
            }
            ClientError::Tool { .. } => "The server reported an error instead of a result; its message says why.".to_owned(),
            ClientError::Timeout { .. } => "The server is slow or stuck. Try again, or raise this server's timeout \
                in its settings."
                .to_owned(),
            ClientError::OutcomeUnknown { .. } => "The call was sent but no usable answer came back, so the tool may \
                or may not have run. It is not repeated automatically, to avoid running it twice: check its effect \
                before running it again."
                .to_owned(),
            ClientError::RetriesExhausted { last, .. } => last.hint(),
            ClientError::Cancelled { .. } => "Nothing to do: the request was stopped on purpose.".to_owned(),
            ClientError::SessionExpired { .. } => "The server forgets sessions as soon as they are made. Restart the \
                server; if it runs behind a load balancer, enable sticky sessions."
                .to_owned(),
            ClientError::UnsupportedProtocolVersion { .. } => format!(
                "This client speaks MCP {}. Update the server (or the extension) so they share a version.",
                crate::model::SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            ),
            ClientError::Redirected { .. } => "The server sent MCP Relay to another address. If the server has \
                moved, put its new URL in the server's settings; requests and their headers or tokens go only to \
                the address you configured."
                .to_owned(),
            ClientError::ForeignEndpoint { .. } => "A server could use this to send your requests, with this \
                server's headers, to another server. If the server really lives at that address, configure that \
                URL instead; otherwise the server is misconfigured or hostile."
                .to_owned(),
            ClientError::Config { .. } => "Fix this server's settings in the side panel.".to_owned(),
        }
    }

    /// The error as `{kind, message, hint}` for the UI.
    pub fn report(&self) -> ErrorReport {
        ErrorReport {
            kind: self.kind(),
            message: self.to_string(),
            hint: self.hint(),
            challenge: match self {
                ClientError::Auth {
                    status,
                    www_authenticate,
                    ..
                } => Some(AuthChallenge {
                    status: *status,
                    www_authenticate: www_authenticate.clone(),
                }),
                _ => None,
            },
        }
    }
}

impl ClientError {
    /// Why it happened, when that changes what to do: the panel says the cause's hint in the
    /// user's language (`errCause_<cause>`), as [`ClientError::hint`] says it in English.
    pub fn cause(&self) -> Option<ErrorCause> {
        Some(match self {
            ClientError::Auth { status: 401, .. } => ErrorCause::SignIn,
            ClientError::Auth { loopback: true, .. } => ErrorCause::LoopbackOrigin,
            ClientError::Auth { .. } => ErrorCause::Scopes,
            ClientError::Http { status: 404, .. } => ErrorCause::WrongPath,
            ClientError::Http {
                status: 405 | 406 | 415,
                ..
            } => ErrorCause::NotMcp,
            ClientError::Http { status: 429, .. } => ErrorCause::RateLimited,
            ClientError::Http { status, .. } if *status >= 500 => ErrorCause::ServerFailed,
            ClientError::Rpc { code, .. } if *code == ErrorCode::METHOD_NOT_FOUND => {
                ErrorCause::NoFeature
            }
            ClientError::Tool { code, .. } if *code == ErrorCode::INVALID_PARAMS => {
                ErrorCause::BadArguments
            }
            ClientError::Tool { code, .. } if *code == ErrorCode::METHOD_NOT_FOUND => {
                ErrorCause::UnknownTool
            }
            ClientError::Connection { .. } => ErrorCause::Unreachable,
            ClientError::RetriesExhausted { last, .. } => return last.cause(),
            _ => return None,
        })
    }

    /// The details of its kind ([`ErrorKind::details`]), in order: the placeholders of the
    /// kind's text in every language. Addresses are redacted, as in the message.
    pub fn details(&self) -> Vec<String> {
        match self {
            ClientError::Connection { url, .. } => vec![redact_url(url)],
            ClientError::Auth { status, .. } => vec![status.to_string()],
            ClientError::Http { url, status, .. } => vec![status.to_string(), redact_url(url)],
            ClientError::Timeout { after_ms, .. } => vec![seconds(*after_ms)],
            ClientError::RetriesExhausted { attempts, .. } => vec![attempts.to_string()],
            ClientError::Tool { tool, .. } | ClientError::OutcomeUnknown { tool, .. } => {
                vec![tool.clone()]
            }
            _ => Vec::new(),
        }
    }
}

/// Milliseconds as seconds, the unit every timeout is shown in: whole when whole.
fn seconds(ms: u64) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        // Tenths in integers, rounded half to even: float formatting would pull core's float
        // printer (~14 KB) into the wasm module for this one line.
        let (mut tenths, rest) = (ms / 100, ms % 100);
        if rest > 50 || (rest == 50 && tenths % 2 == 1) {
            tenths += 1;
        }
        format!("{}.{}", tenths / 10, tenths % 10)
    }
}

impl From<&ClientError> for crate::contract::ErrorBody {
    /// The error as an answer's `{kind, message, hint, details, cause}`.
    fn from(e: &ClientError) -> Self {
        let body = crate::contract::ErrorBody::new(e.kind(), e.to_string())
            .with_details(e.details())
            .with_cause(e.cause());
        match e.hint() {
            hint if hint.is_empty() => body,
            hint => body.with_hint(hint),
        }
    }
}
