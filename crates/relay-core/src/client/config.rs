//! Server registry types, and import of the `mcpServers` JSON that Claude Desktop, Cursor,
//! Windsurf and VS Code (`servers`) use.
//!
//! An import never drops an entry silently: what cannot run in a browser (stdio servers, which
//! need a process) comes back in [`ImportReport::skipped`] with the reason.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use super::url::{redact_url, scrub_urls, HttpUrl};

/// Per-request timeout when a server's configuration gives none (seed 003: 30 s).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// Which HTTP transport to speak to a server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// Try Streamable HTTP, fall back to legacy HTTP+SSE per the spec's compatibility rules.
    #[default]
    Auto,
    /// Streamable HTTP only (protocol 2025-03-26 and later).
    Streamable,
    /// Legacy HTTP+SSE only (protocol 2024-11-05).
    Sse,
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerConfig {
    pub id: String,
    #[serde(default)]
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub transport: TransportKind,
    /// Extra request headers (`Authorization`...). Accepts a `{"K": "V"}` object on input.
    #[serde(default, deserialize_with = "header_list")]
    pub headers: Vec<(String, String)>,
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Names of headers the user marked secret, beside those whose name says so
    /// ([`looks_secret`]): their values are shown masked and never leave the worker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_headers: Vec<String>,
    /// The name of a server the native host runs (`relay-host`'s own list): its URL and
    /// `Authorization` come from the host when it starts it (`crate::app::local`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
}

/// Parts of header names that say the value is a credential. Matched case-insensitively
/// anywhere in the name, so `X-Custom-Auth`, `X-Api-Key` and `Proxy-Authorization` are all
/// covered; a false positive only masks a value in the side panel.
pub const SECRET_HEADER_PARTS: &[&str] = &[
    "auth",
    "cookie",
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "session",
    "credential",
    "signature",
    "bearer",
];

/// Whether a header's name says its value is a credential.
pub fn looks_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_HEADER_PARTS.iter().any(|part| n.contains(part))
}

/// What the side panel shows instead of a secret header's value; sent back unchanged, it means
/// "keep the stored value".
pub const MASK: &str = "••••";

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_MS
}

fn default_true() -> bool {
    true
}

fn header_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(String, String)>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(Vec::new()),
        Value::Object(map) => headers_from_object(&map).map_err(de::Error::custom),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Array(pair) if pair.len() == 2 => match (&pair[0], &pair[1]) {
                    (Value::String(k), Value::String(v)) => Ok((k.clone(), v.clone())),
                    _ => Err(de::Error::custom("a header must be a pair of strings")),
                },
                _ => Err(de::Error::custom("a header must be a [name, value] pair")),
            })
            .collect(),
        _ => Err(de::Error::custom(
            "headers must be an object or a list of [name, value] pairs",
        )),
    }
}

fn headers_from_object(map: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    map.iter()
        .map(|(k, v)| match v {
            Value::String(v) => Ok((k.clone(), v.clone())),
            other => Err(format!("header `{k}` must be a string, got {other}")),
        })
        .collect()
}

impl ServerConfig {
    /// A server with defaults: auto transport, no headers, 30 s timeout, enabled.
    pub fn new(id: impl Into<String>, name: impl Into<String>, url: impl Into<String>) -> Self {
        ServerConfig {
            id: id.into(),
            name: name.into(),
            url: url.into(),
            transport: TransportKind::Auto,
            headers: Vec::new(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            enabled: true,
            secret_headers: Vec::new(),
            local: None,
        }
    }

    /// Whether a header's value is a secret: its name says so, or the user marked it.
    pub fn is_secret_header(&self, name: &str) -> bool {
        looks_secret(name)
            || self
                .secret_headers
                .iter()
                .any(|s| s.eq_ignore_ascii_case(name))
    }

    /// The headers as the side panel may show them: secret values masked.
    pub fn masked_headers(&self) -> Vec<(String, String, bool)> {
        self.headers
            .iter()
            .map(|(k, v)| {
                let secret = self.is_secret_header(k);
                let shown = if secret { MASK.to_owned() } else { v.clone() };
                (k.clone(), shown, secret)
            })
            .collect()
    }

    /// Checks what can be checked without talking to the server.
    pub fn validate(&self) -> Result<HttpUrl, ConfigError> {
        if self.id.trim().is_empty() {
            return Err(ConfigError::Invalid("a server needs an id".to_owned()));
        }
        if self.timeout_ms == 0 {
            return Err(ConfigError::Invalid(format!(
                "server `{}`: the timeout must be positive",
                self.id
            )));
        }
        for (name, value) in &self.headers {
            let bad_name =
                name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':');
            if bad_name || value.bytes().any(|b| b == b'\r' || b == b'\n') {
                return Err(ConfigError::Invalid(format!(
                    "server `{}`: invalid header `{name}`",
                    self.id
                )));
            }
        }
        HttpUrl::parse(&self.url)
            .map_err(|e| ConfigError::Invalid(format!("server `{}`: {e}", self.id)))
    }
}

/// An entry of an imported file that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub struct SkippedServer {
    pub name: String,
    /// Why, in English, with the entry's own words.
    pub reason: String,
    /// Why, as the panel says it in the user's language (`importSkip_<why>`, with `detail`).
    pub why: SkipReason,
    /// The entry's value the reason names (a transport, a header, a command), or empty.
    pub detail: String,
}

/// Why an imported entry cannot be used: each has its text in every locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The entry is not a JSON object.
    NotObject,
    /// A local (stdio) server, which a browser cannot start (the native host can).
    Stdio,
    /// No `url`.
    NoUrl,
    /// A transport type MCP Relay does not know.
    UnknownTransport,
    /// `headers` is not an object of strings.
    BadHeaders,
    /// The URL is not a usable http(s) address.
    BadUrl,
    /// A local server entry the host cannot run as written (name, command, args, env, cwd).
    BadLocalEntry,
}

impl SkipReason {
    /// Every reason, in declaration order.
    pub const ALL: &'static [SkipReason] = &[
        SkipReason::NotObject,
        SkipReason::Stdio,
        SkipReason::NoUrl,
        SkipReason::UnknownTransport,
        SkipReason::BadHeaders,
        SkipReason::BadUrl,
        SkipReason::BadLocalEntry,
    ];

    /// The wire name (`not_object`, `stdio`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NotObject => "not_object",
            SkipReason::Stdio => "stdio",
            SkipReason::NoUrl => "no_url",
            SkipReason::UnknownTransport => "unknown_transport",
            SkipReason::BadHeaders => "bad_headers",
            SkipReason::BadUrl => "bad_url",
            SkipReason::BadLocalEntry => "bad_local_entry",
        }
    }
}

impl SkippedServer {
    /// An entry skipped for `why`, naming `detail`, said in English as `reason`.
    pub fn new(name: &str, why: SkipReason, detail: &str, reason: impl Into<String>) -> Self {
        SkippedServer {
            name: name.to_owned(),
            reason: reason.into(),
            why,
            detail: detail.to_owned(),
        }
    }
}

/// Why [`import_entry`] skipped an entry: the reason, its detail and the English text.
type Skip = (SkipReason, String, String);

/// What an import produced (read back from the second module, `crate::rare`, that made it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ImportReport {
    pub servers: Vec<ServerConfig>,
    pub skipped: Vec<SkippedServer>,
}

/// Why a configuration could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("the configuration is not JSON: {0}")]
    NotJson(String),
    #[error("no `mcpServers` or `servers` object found")]
    NoServers,
    #[error("{0}")]
    Invalid(String),
}

/// Imports an `mcpServers` (Claude Desktop, Cursor, Windsurf) or `servers` (VS Code) file.
/// `existing_ids` are ids already in use, so imported ids never collide with them.
pub fn import_mcp_servers(
    json: &str,
    existing_ids: &[String],
) -> Result<ImportReport, ConfigError> {
    let root: Value = serde_json::from_str(json)
        .map_err(|e| ConfigError::NotJson(scrub_urls(&e.to_string()).into_owned()))?;
    let entries = ["mcpServers", "servers"]
        .iter()
        .find_map(|key| root.get(key).and_then(Value::as_object))
        .or_else(|| {
            root.get("mcp")
                .and_then(|m| m.get("servers"))
                .and_then(Value::as_object)
        })
        .ok_or(ConfigError::NoServers)?;
    let mut report = ImportReport::default();
    let mut taken: Vec<String> = existing_ids.to_vec();
    for (name, entry) in entries {
        match import_entry(name, entry) {
            Ok(mut server) => {
                server.id = unique_id(&slug(name), &taken);
                taken.push(server.id.clone());
                report.servers.push(server);
            }
            Err((why, detail, reason)) => report
                .skipped
                .push(SkippedServer::new(name, why, &detail, reason)),
        }
    }
    Ok(report)
}

fn import_entry(name: &str, entry: &Value) -> Result<ServerConfig, Skip> {
    let skip = |why: SkipReason, detail: &str, reason: String| (why, detail.to_owned(), reason);
    let entry = entry.as_object().ok_or_else(|| {
        skip(
            SkipReason::NotObject,
            "",
            "the entry is not an object".into(),
        )
    })?;
    let kind = entry
        .get("type")
        .or_else(|| entry.get("transport"))
        .and_then(Value::as_str);
    let url = entry
        .get("url")
        .or_else(|| entry.get("serverUrl"))
        .and_then(Value::as_str);
    if kind == Some("stdio") || (url.is_none() && entry.contains_key("command")) {
        let command = entry
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("a local command");
        return Err(skip(
            SkipReason::Stdio,
            command,
            format!(
                "runs `{command}` as a local process (stdio), which a browser cannot start; add it to \
                 the local host (`install-host.sh` or `install-host.ps1` in MCP Relay's zip installs it), or \
                 expose it over HTTP and add its URL"
            ),
        ));
    }
    let url = url.ok_or_else(|| skip(SkipReason::NoUrl, "", "no `url`".into()))?;
    let transport = match kind.map(str::to_ascii_lowercase).as_deref() {
        None => TransportKind::Auto,
        Some("http" | "streamable-http" | "streamablehttp" | "streamable_http" | "streamable") => {
            TransportKind::Streamable
        }
        Some("sse") => TransportKind::Sse,
        Some(other) => {
            let reason = format!("unknown transport type `{other}`");
            return Err(skip(SkipReason::UnknownTransport, other, reason));
        }
    };
    let headers = match entry.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => {
            headers_from_object(map).map_err(|e| skip(SkipReason::BadHeaders, "", e))?
        }
        Some(_) => {
            let reason = "`headers` must be an object".to_owned();
            return Err(skip(SkipReason::BadHeaders, "", reason));
        }
    };
    let timeout_ms = match entry.get("timeout").and_then(Value::as_u64) {
        // Cline writes seconds, others milliseconds: small numbers can only be seconds.
        Some(t) if t > 0 && t < 1000 => t * 1000,
        Some(t) if t > 0 => t,
        _ => DEFAULT_TIMEOUT_MS,
    };
    let enabled = !entry
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let server = ServerConfig {
        id: String::new(),
        name: name.to_owned(),
        url: url.to_owned(),
        transport,
        headers,
        timeout_ms,
        enabled,
        secret_headers: Vec::new(),
        local: None,
    };
    HttpUrl::parse(url).map_err(|e| skip(SkipReason::BadUrl, &redact_url(url), e.to_string()))?;
    Ok(server)
}

fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "server".to_owned()
    } else {
        out.to_owned()
    }
}

fn unique_id(base: &str, taken: &[String]) -> String {
    if !taken.iter().any(|t| t == base) {
        return base.to_owned();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.iter().any(|t| t == c))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_headers_by_name_or_by_the_users_mark_are_masked() {
        let mut s = ServerConfig::new("s", "S", "http://127.0.0.1:1/mcp");
        s.headers = [
            ("Authorization", "Bearer a"),
            ("X-Custom-Auth", "b"),
            ("x-api-key", "c"),
            ("Cookie", "d"),
            ("X-Other", "e"),
            ("Accept-Language", "fr"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        s.secret_headers = vec!["x-other".into()];
        let shown: Vec<(String, String, bool)> = s.masked_headers();
        let masked: Vec<&str> = shown
            .iter()
            .filter(|(_, v, secret)| *secret && v == MASK)
            .map(|(k, _, _)| k.as_str())
            .collect();
        assert_eq!(
            masked,
            [
                "Authorization",
                "X-Custom-Auth",
                "x-api-key",
                "Cookie",
                "X-Other"
            ]
        );
        assert_eq!(
            shown.last(),
            Some(&("Accept-Language".into(), "fr".into(), false))
        );
    }
}
