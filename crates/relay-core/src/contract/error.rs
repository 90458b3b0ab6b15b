//! The error half of every answer: [`ErrorBody`] `{kind, message, hint?, details?}`, and
//! [`ErrorKind`], every kind of error the extension reports, as one enum.
//!
//! The side panel says each kind in the user's language: `_locales/<lang>/messages.json` has
//! `errKind_<kind>` for every kind, with a placeholder for each of its [`ErrorKind::details`],
//! which it fills in from the error's `details` (`www/core.js`, `localizedError`). A test
//! (`cargo test -p xtask`, and `tests/e2e/panel-static.test.mjs` through the generated
//! `ERROR_KINDS`) fails when a kind lacks its text in a locale.

use serde::{Deserialize, Serialize};

/// Declares [`ErrorKind`] with its wire names and details from one list.
macro_rules! error_kinds {
    ($( $(#[$meta:meta])* $variant:ident = $name:literal $([$($detail:literal),*])?, )*) => {
        /// Every kind of error the core and the extension's edges report: a stable machine name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        pub enum ErrorKind {
            $( $(#[$meta])* #[serde(rename = $name)] $variant, )*
        }

        impl ErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ErrorKind] = &[ $( ErrorKind::$variant, )* ];

            /// The wire name (`invalid_argument`, `auth_endpoint`, ...).
            pub fn as_str(self) -> &'static str {
                match self { $( ErrorKind::$variant => $name, )* }
            }

            /// The names of the details an error of this kind carries, in order: the
            /// placeholders of its localized text.
            pub fn details(self) -> &'static [&'static str] {
                match self { $( ErrorKind::$variant => &[$($($detail),*)?], )* }
            }
        }
    };
}

error_kinds! {
    /// A request field is missing or not valid.
    InvalidArgument = "invalid_argument",
    /// A bug or an impossible state inside the extension.
    Internal = "internal",
    /// The chat tab did not answer.
    Tab = "tab",
    /// Reading or writing chrome.storage failed.
    Storage = "storage",
    /// A browser facility is missing here.
    Unavailable = "unavailable",
    /// The message is not a contract message.
    Malformed = "malformed",
    /// No message of this name.
    UnknownMessage = "unknown_message",
    /// The sender may not do this.
    Forbidden = "forbidden",
    /// The call is not in a state this decision applies to.
    InvalidState = "invalid_state",
    /// Allowing a tool its server declares destructive needs the user's confirmation.
    ConfirmRequired = "confirm_required" ["tool"],
    /// A call repeated one written inside an earlier tool result: not run.
    Quoted = "quoted" ["tool"],
    /// The loop limits stopped a call.
    Limit = "limit" ["consecutive", "total"],
    /// The user or the policy refused a call.
    Denied = "denied",
    /// A call's arguments or tool are not valid.
    Invalid = "invalid",
    /// A call was running when the worker stopped: whether it ran is not known.
    Unknown = "unknown",
    /// The server could not be reached.
    Connection = "connection" ["address"],
    /// The server refused the credentials.
    Auth = "auth" ["status"],
    /// The server answered with an HTTP error.
    Http = "http" ["status", "address"],
    /// The server does not speak MCP as expected.
    Protocol = "protocol",
    /// The server answered with a JSON-RPC error.
    Rpc = "rpc",
    /// The tool reported an error.
    Tool = "tool" ["tool"],
    /// The server took too long.
    Timeout = "timeout" ["seconds"],
    /// A call was sent and no usable answer came.
    OutcomeUnknown = "outcome_unknown" ["tool"],
    /// The server failed after the retries.
    RetriesExhausted = "retries_exhausted" ["attempts"],
    /// The request was cancelled.
    Cancelled = "cancelled",
    /// The server's session expired.
    SessionExpired = "session_expired",
    /// The server speaks no protocol version we do.
    UnsupportedProtocolVersion = "unsupported_protocol_version",
    /// The server answered with a redirect, which MCP Relay does not follow.
    Redirected = "redirected",
    /// A legacy server named an endpoint on another origin.
    ForeignEndpoint = "foreign_endpoint",
    /// The server's settings are not valid.
    Config = "config",
    /// Sign-in: the server's URL cannot be used.
    AuthBadUrl = "auth_bad_url",
    /// Sign-in: the authorization server could not be found.
    AuthDiscovery = "auth_discovery",
    /// Sign-in: the metadata names another resource.
    AuthResourceMismatch = "auth_resource_mismatch",
    /// Sign-in: the metadata names another issuer.
    AuthIssuerMismatch = "auth_issuer_mismatch",
    /// Sign-in: the authorization server does not support PKCE S256.
    AuthPkceUnsupported = "auth_pkce_unsupported",
    /// Sign-in: no client identity could be had.
    AuthNoClient = "auth_no_client",
    /// Sign-in: an endpoint failed.
    AuthEndpoint = "auth_endpoint",
    /// Sign-in: an answer was not valid.
    AuthInvalidResponse = "auth_invalid_response",
    /// Sign-in: a request could not be made.
    AuthTransport = "auth_transport",
    /// Sign-in: the user or the server refused.
    AuthDenied = "auth_denied",
    /// Sign-in: the browser came back with a redirect we did not ask for.
    AuthBadRedirect = "auth_bad_redirect",
    /// Sign-in: the browser window failed.
    AuthBrowser = "auth_browser",
    /// Sign-in: too many attempts.
    AuthTooManyAttempts = "auth_too_many_attempts",
    /// Sign-in: the token does not grant access.
    AuthForbidden = "auth_forbidden",
    /// Sign-in: the stored state is not valid.
    AuthState = "auth_state",
    /// The panel: Chrome did not grant a permission.
    Permission = "permission",
    /// The panel or a content script: the extension did not answer.
    NoAnswer = "no_answer",
    /// The panel: no chat tab is active.
    NoChat = "no_chat",
    /// A field of a server's question was left empty or does not fit (the question stays open).
    FieldInvalid = "field_invalid" ["field"],
    /// The native host (local servers) could not be started or refused a request.
    LocalHost = "local_host",
    /// A skill's file did not match the server's listing (size, digest or frontmatter): it was
    /// not loaded.
    SkillUnverified = "skill_unverified" ["uri"],
}

/// Declares [`ErrorCause`] with its wire names from one list.
macro_rules! error_causes {
    ($( $(#[$meta:meta])* $variant:ident = $name:literal, )*) => {
        /// Why an error of a kind happened, when the kind alone does not say what to do: the
        /// panel shows `errCause_<cause>` of its language as the hint (a 404 says to check the
        /// `/mcp` or `/sse` path, a 401 to sign in), so no language loses the cause.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        pub enum ErrorCause {
            $( $(#[$meta])* #[serde(rename = $name)] $variant, )*
        }

        impl ErrorCause {
            /// Every cause, in declaration order.
            pub const ALL: &'static [ErrorCause] = &[ $( ErrorCause::$variant, )* ];

            /// The wire name (`wrong_path`, `sign_in`, ...).
            pub fn as_str(self) -> &'static str {
                match self { $( ErrorCause::$variant => $name, )* }
            }
        }
    };
}

error_causes! {
    /// Nothing answers MCP at the URL's path (HTTP 404).
    WrongPath = "wrong_path",
    /// The address answers HTTP but not MCP (405, 406, 415).
    NotMcp = "not_mcp",
    /// The server is rate-limiting (429).
    RateLimited = "rate_limited",
    /// The server failed handling the request (5xx).
    ServerFailed = "server_failed",
    /// The server needs a sign-in or a token (401).
    SignIn = "sign_in",
    /// A server on this computer refused the extension's origin (403 on loopback).
    LoopbackOrigin = "loopback_origin",
    /// The credentials lack a permission (403).
    Scopes = "scopes",
    /// The server does not offer the feature (JSON-RPC method not found).
    NoFeature = "no_feature",
    /// The server rejected a tool's name or arguments before running it.
    BadArguments = "bad_arguments",
    /// The server does not know the tool.
    UnknownTool = "unknown_tool",
    /// A server URL without `http://` or `https://`.
    UrlScheme = "url_scheme",
    /// A server URL that is not a valid address.
    UrlInvalid = "url_invalid",
    /// Nothing answered at the server's address (offline, wrong host or port, blocked).
    Unreachable = "unreachable",
    /// Chrome found no native messaging host: the local host is not installed.
    HostMissing = "host_missing",
    /// The local host started and exited (its program is gone or broken).
    HostExited = "host_exited",
    /// The local host is installed for another extension id.
    HostForbidden = "host_forbidden",
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// The error half of an answer: what happened, and what the user can do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub struct ErrorBody {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// One sentence for the user (in English; the panel says the kind in the user's language).
    pub message: String,
    /// What to do about it, when we know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The kind's details ([`ErrorKind::details`]), in order, for its localized text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// Why it happened, when that changes what to do ([`ErrorCause`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<ErrorCause>,
}

impl ErrorBody {
    /// An error with a kind and a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ErrorBody {
            kind,
            message: message.into(),
            hint: None,
            details: Vec::new(),
            cause: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds the kind's details.
    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    /// Adds the cause.
    pub fn with_cause(mut self, cause: Option<ErrorCause>) -> Self {
        self.cause = cause;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_unique_snake_case_and_round_trip() {
        for (i, kind) in ErrorKind::ALL.iter().enumerate() {
            let name = kind.as_str();
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert!(ErrorKind::ALL[i + 1..].iter().all(|k| k.as_str() != name));
            let json = serde_json::to_value(kind).expect("json");
            assert_eq!(json, name);
            assert_eq!(
                crate::json_value::from_value::<ErrorKind>(json).ok(),
                Some(*kind)
            );
        }
        for (i, cause) in ErrorCause::ALL.iter().enumerate() {
            let name = cause.as_str();
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert!(ErrorCause::ALL[i + 1..].iter().all(|c| c.as_str() != name));
            let json = serde_json::to_value(cause).expect("json");
            assert_eq!(
                crate::json_value::from_value::<ErrorCause>(json).ok(),
                Some(*cause)
            );
        }
    }
}
