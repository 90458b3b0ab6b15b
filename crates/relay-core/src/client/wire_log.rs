//! The protocol log of each server: every HTTP request the client sends (method, URL, headers,
//! body), every response's status, and every JSON-RPC message that comes back (from a JSON body
//! or an SSE event), with secrets masked before anything is kept, and bounded in size.
//!
//! Masked: the values of headers that carry credentials (`Authorization`, `Cookie`, `DPoP`, any
//! name [`looks_secret`], any the user marked secret), keeping only an auth scheme such as
//! `Bearer`; any configured secret or sign-in token wherever it appears (URL, body, header);
//! the string values of JSON keys that name credentials (`access_token`, `password`, `apiKey`,
//! ...); and a URL's userinfo and query values ([`redact_url`]).
//!
//! Bounded: [`WIRE_LOG_ENTRIES`] entries per server (the oldest go first) and
//! [`WIRE_TEXT_BYTES`] bytes of each body or message (the rest is counted, not kept).

use std::collections::VecDeque;

use serde::Serialize;

use super::config::{looks_secret, MASK};
use super::http::HttpRequest;
use super::url::redact_url;

/// Entries kept per server.
pub const WIRE_LOG_ENTRIES: usize = 200;
/// Bytes kept of one body or message.
pub const WIRE_TEXT_BYTES: usize = 4096;

/// JSON keys whose string values are credentials, compared without case, `_` or `-`.
const SECRET_KEYS: &[&str] = &[
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "token",
    "password",
    "passwd",
    "secret",
    "clientsecret",
    "apikey",
    "authorization",
    "codeverifier",
    "privatekey",
    "cookie",
];

/// One line of the protocol log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WireEntry {
    /// Milliseconds since the epoch (the client's clock when it happened).
    pub at: u64,
    /// `out` (sent) or `in` (received).
    pub dir: &'static str,
    /// `request` (an HTTP request), `status` (a response's status), `message` (a JSON-RPC
    /// message received) or `failure` (no response, or its body broke off).
    pub kind: &'static str,
    /// The request's exchange, linking a status to its request.
    pub exchange: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The body or message, masked, at most [`WIRE_TEXT_BYTES`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Bytes of the body or message left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<usize>,
}

/// The protocol log of one server.
#[derive(Debug, Clone, Default)]
pub struct WireLog {
    entries: VecDeque<WireEntry>,
}

/// What must never appear in a log line: the secret values of a server's headers, its
/// sign-in token, and which header names the user marked secret.
#[derive(Debug, Clone, Default)]
pub struct Secrets<'a> {
    pub values: Vec<&'a str>,
    pub header_names: &'a [String],
}

impl Secrets<'_> {
    fn header_is_secret(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        looks_secret(&lower)
            || matches!(lower.as_str(), "dpop" | "proxy-authorization")
            || self
                .header_names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(name))
    }

    /// `text` with every known secret value replaced by the mask.
    fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in &self.values {
            // Short values would mask ordinary words: a credential is longer than this.
            if value.len() >= 6 && out.contains(value) {
                out = out.replace(value, MASK);
            }
        }
        out
    }
}

/// A header's value as the log shows it: the mask for a credential (keeping an auth scheme:
/// `Bearer ••••`), else the value with known secrets scrubbed.
pub fn mask_header(name: &str, value: &str, secrets: &Secrets<'_>) -> String {
    if secrets.header_is_secret(name) {
        return match value.split_once(' ') {
            Some((scheme, _))
                if scheme.len() <= 12 && scheme.chars().all(|c| c.is_ascii_alphabetic()) =>
            {
                format!("{scheme} {MASK}")
            }
            _ => MASK.to_owned(),
        };
    }
    secrets.scrub(value)
}

/// JSON text (whole, or cut anywhere) with the string values of credential keys masked and
/// known secrets scrubbed; at most [`WIRE_TEXT_BYTES`] of it kept. Returns the text and the
/// number of bytes left out.
pub fn mask_text(text: &str, secrets: &Secrets<'_>) -> (String, Option<usize>) {
    let mut end = text.len().min(WIRE_TEXT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = (end < text.len()).then_some(text.len() - end);
    (secrets.scrub(&mask_keys(&text[..end])), cut)
}

/// Masks the string value after every `"<credential key>":`.
fn mask_keys(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A string: its end, then whether a `:` and a string value follow.
        let Some(close) = string_end(bytes, i + 1) else {
            break;
        };
        let key = &text[i + 1..close];
        let mut j = close + 1;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b':' && is_secret_key(key) {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'"' {
                let value_end = string_end(bytes, j + 1).unwrap_or(bytes.len());
                out.push_str(&text[copied..=j]);
                out.push_str(MASK);
                copied = value_end;
                i = value_end + 1;
                continue;
            }
        }
        i = close + 1;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// The index of the closing quote of a JSON string whose content starts at `from`.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut k = from;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b'"' => return Some(k),
            _ => k += 1,
        }
    }
    None
}

fn is_secret_key(key: &str) -> bool {
    let folded: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_KEYS.contains(&folded.as_str())
}

impl WireLog {
    fn push(&mut self, entry: WireEntry) {
        if self.entries.len() == WIRE_LOG_ENTRIES {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// A request sent.
    pub fn sent(&mut self, request: &HttpRequest, secrets: &Secrets<'_>, now_ms: u64) {
        let (text, cut) = match &request.body {
            Some(body) => {
                let (text, cut) = mask_text(body, secrets);
                (Some(text), cut)
            }
            None => (None, None),
        };
        let headers = (request.headers.iter())
            .map(|(k, v)| (k.clone(), mask_header(k, v, secrets)))
            .collect();
        self.push(WireEntry {
            at: now_ms,
            dir: "out",
            kind: "request",
            exchange: request.exchange.0,
            method: Some(request.method.as_str().to_owned()),
            url: Some(secrets.scrub(&redact_url(&request.url))),
            status: None,
            headers,
            text,
            cut,
        });
    }

    /// A response's status (and its content type).
    pub fn status(&mut self, exchange: u64, status: u16, content_type: Option<&str>, now_ms: u64) {
        let headers = content_type
            .map(|c| vec![("Content-Type".to_owned(), c.to_owned())])
            .unwrap_or_default();
        self.push(WireEntry {
            at: now_ms,
            dir: "in",
            kind: "status",
            exchange,
            method: None,
            url: None,
            status: Some(status),
            headers,
            text: None,
            cut: None,
        });
    }

    /// A JSON-RPC message (or an error body) received.
    pub fn received(&mut self, exchange: u64, text: &str, secrets: &Secrets<'_>, now_ms: u64) {
        let (text, cut) = mask_text(text, secrets);
        self.push(WireEntry {
            at: now_ms,
            dir: "in",
            kind: "message",
            exchange,
            method: None,
            url: None,
            status: None,
            headers: Vec::new(),
            text: Some(text),
            cut,
        });
    }

    /// An exchange that failed: no response, or its body broke off (`text`: why, as the
    /// platform said it, scrubbed).
    pub fn failed(&mut self, exchange: u64, message: &str, secrets: &Secrets<'_>, now_ms: u64) {
        let (text, cut) = mask_text(&redact_url(message), secrets);
        self.push(WireEntry {
            at: now_ms,
            dir: "in",
            kind: "failure",
            exchange,
            method: None,
            url: None,
            status: None,
            headers: Vec::new(),
            text: Some(text),
            cut,
        });
    }

    /// A log message an MCP App of this server sent from its frame (`notifications/message`).
    pub fn app_log(&mut self, text: &str, secrets: &Secrets<'_>, now_ms: u64) {
        let (text, cut) = mask_text(text, secrets);
        self.push(WireEntry {
            at: now_ms,
            dir: "in",
            kind: "app",
            exchange: 0,
            method: Some("notifications/message".to_owned()),
            url: None,
            status: None,
            headers: Vec::new(),
            text: Some(text),
            cut,
        });
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> Vec<WireEntry> {
        self.entries.iter().cloned().collect()
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
