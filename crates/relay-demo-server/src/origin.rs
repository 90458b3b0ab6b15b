//! Which browser origins may call the server.
//!
//! The MCP spec asks servers to validate `Origin`. rmcp checks the `Host` header (which stops
//! DNS rebinding) but accepts any `Origin`, so without this gate any web page the user visits
//! could drive the demo's tools from the browser, `notes_delete` included. Allowed are requests
//! without `Origin` (non-browser clients, and a service worker's GETs), Chrome extensions (MCP
//! Relay's service worker sends `chrome-extension://ID` on POST), and pages served from
//! loopback (a local inspector or test page).

use axum::extract::Request;
use axum::http::{header::ORIGIN, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Whether a request carrying `Origin: origin` may be served.
pub fn is_allowed(origin: &str) -> bool {
    if let Some(id) = origin.strip_prefix("chrome-extension://") {
        return !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric());
    }
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((host, port)) => (host, port),
            None => return false,
        }
    } else {
        match authority.find(':') {
            Some(i) => authority.split_at(i),
            None => (authority, ""),
        }
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
        });
    port_ok && matches!(host, "127.0.0.1" | "localhost" | "::1")
}

/// Axum middleware: 403 for a request whose `Origin` is not [`is_allowed`].
pub async fn reject_foreign_origins(request: Request, next: Next) -> Response {
    let verdict = request
        .headers()
        .get(ORIGIN)
        .map(|value| value.to_str().map(is_allowed).unwrap_or(false));
    match verdict {
        None | Some(true) => next.run(request).await,
        Some(false) => {
            tracing::warn!(origin = ?request.headers().get(ORIGIN), "rejected a request from a foreign origin");
            (StatusCode::FORBIDDEN, "Forbidden: Origin not allowed\n").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let cases = [
            ("chrome-extension://abcdefghijklmnopabcdefghijklmnop", true),
            ("http://127.0.0.1:6274", true),
            ("http://localhost:5173", true),
            ("https://localhost", true),
            ("http://[::1]:8080", true),
            ("chrome-extension://", false),
            ("chrome-extension://abc/def", false),
            ("https://evil.example", false),
            ("http://127.0.0.1.evil.example", false),
            ("http://localhost.evil.example:80", false),
            ("http://localhost:80/path", false),
            ("http://localhost:", false),
            ("http://[::1", false),
            ("moz-extension://abc", false),
            ("null", false),
            ("", false),
        ];
        for (origin, allowed) in cases {
            assert_eq!(is_allowed(origin), allowed, "{origin:?}");
        }
    }
}
