//! Why a sign-in failed. Every text names URLs in their redacted form and never carries a
//! token, a client secret, a code or a code verifier: these messages reach the side panel and
//! may be quoted into a chat.

use crate::contract::ErrorKind;
use thiserror::Error;

use crate::client::url::{redact_url, scrub_urls};

/// Everything that can end an authorization attempt.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A URL the flow was given or discovered is unusable (not http(s), or plain http to a host
    /// that is not this computer: OAuth 2.1 requires TLS for every endpoint).
    #[error("unusable authorization URL {}: {reason}", redact_url(.url))]
    BadUrl { url: String, reason: String },
    /// Neither protected-resource nor authorization-server metadata could be found.
    #[error("no authorization server found for {}: {}", redact_url(.resource), scrub_urls(.message))]
    Discovery { resource: String, message: String },
    /// The protected-resource metadata is about another resource (RFC 9728 §3.3): a server
    /// pointing the client at someone else's authorization is refused.
    #[error("the server's metadata names resource {} but the server is {}", redact_url(.found), redact_url(.expected))]
    ResourceMismatch { expected: String, found: String },
    /// Authorization-server metadata whose `issuer` is not the server asked (RFC 8414 §3.3), or
    /// an authorization response whose `iss` is not it (RFC 9207 §2.4).
    #[error("issuer mismatch: expected {}, got {}", redact_url(.expected), redact_url(.found))]
    IssuerMismatch { expected: String, found: String },
    /// The authorization server does not advertise PKCE with S256 (MCP requires it).
    #[error("the authorization server {} does not support PKCE (S256)", redact_url(.issuer))]
    PkceUnsupported { issuer: String },
    /// No pre-registered client id, no Client ID Metadata Document support and no
    /// registration endpoint: there is no way to identify this client.
    #[error("the authorization server {} offers no way to register this client; configure a client id", redact_url(.issuer))]
    NoClientIdentity { issuer: String },
    /// An endpoint answered with an error (OAuth `error` and `error_description` when given).
    #[error("{step} failed at {} (HTTP {status}){}", redact_url(.url), describe(.error, .description))]
    Endpoint {
        step: &'static str,
        url: String,
        status: u16,
        error: Option<String>,
        description: Option<String>,
    },
    /// An endpoint's answer was not what the protocol says.
    #[error("{step}: invalid answer from {}: {}", redact_url(.url), scrub_urls(.message))]
    InvalidResponse {
        step: &'static str,
        url: String,
        message: String,
    },
    /// A request could not be performed.
    #[error("{step}: cannot reach {}: {}", redact_url(.url), scrub_urls(.message))]
    Transport {
        step: &'static str,
        url: String,
        message: String,
    },
    /// The user or the authorization server declined (`error` in the redirect).
    #[error("sign-in was refused: {}", describe_plain(&Some(.error.clone()), .description))]
    Denied {
        error: String,
        description: Option<String>,
    },
    /// The redirect does not belong to this attempt (`state` differs) or carries no code.
    #[error("the sign-in redirect is not valid for this attempt: {reason}")]
    BadRedirect { reason: &'static str },
    /// The browser step did not complete (closed window, no redirect).
    #[error("the sign-in window was closed or failed: {}", scrub_urls(.message))]
    BrowserFailed { message: String },
    /// The server keeps refusing: after the allowed number of sign-ins, or asking for scopes
    /// this client already asked for (another sign-in would loop).
    #[error("the server still refuses after {attempts} sign-in(s){}", scope_suffix(.scope))]
    TooManyAttempts {
        attempts: u32,
        scope: Option<String>,
    },
    /// A 403 that asks for no scope: signing in again cannot help.
    #[error("the server refuses this request (HTTP 403) whatever the sign-in")]
    Forbidden,
    /// Asked to do something the flow's current state does not allow.
    #[error("{0}")]
    InvalidState(&'static str),
}

fn scope_suffix(scope: &Option<String>) -> String {
    scope
        .as_deref()
        .map(|s| format!(" asking for scope `{}`", scrub_urls(s)))
        .unwrap_or_default()
}

fn describe(error: &Option<String>, description: &Option<String>) -> String {
    match (error, description) {
        (None, None) => String::new(),
        _ => format!(": {}", describe_plain(error, description)),
    }
}

fn describe_plain(error: &Option<String>, description: &Option<String>) -> String {
    let error = error.as_deref().unwrap_or("error");
    match description {
        Some(d) => format!("{} ({})", scrub_urls(error), scrub_urls(d)),
        None => scrub_urls(error).into_owned(),
    }
}

impl AuthError {
    /// A short stable name, for `{kind}` in error objects.
    pub fn kind(&self) -> ErrorKind {
        match self {
            AuthError::BadUrl { .. } => ErrorKind::AuthBadUrl,
            AuthError::Discovery { .. } => ErrorKind::AuthDiscovery,
            AuthError::ResourceMismatch { .. } => ErrorKind::AuthResourceMismatch,
            AuthError::IssuerMismatch { .. } => ErrorKind::AuthIssuerMismatch,
            AuthError::PkceUnsupported { .. } => ErrorKind::AuthPkceUnsupported,
            AuthError::NoClientIdentity { .. } => ErrorKind::AuthNoClient,
            AuthError::Endpoint { .. } => ErrorKind::AuthEndpoint,
            AuthError::InvalidResponse { .. } => ErrorKind::AuthInvalidResponse,
            AuthError::Transport { .. } => ErrorKind::AuthTransport,
            AuthError::Denied { .. } => ErrorKind::AuthDenied,
            AuthError::BadRedirect { .. } => ErrorKind::AuthBadRedirect,
            AuthError::BrowserFailed { .. } => ErrorKind::AuthBrowser,
            AuthError::TooManyAttempts { .. } => ErrorKind::AuthTooManyAttempts,
            AuthError::Forbidden => ErrorKind::AuthForbidden,
            AuthError::InvalidState(_) => ErrorKind::AuthState,
        }
    }
}
