//! The sans-IO MCP client session for one server.
//!
//! The session decides everything and performs nothing: it emits HTTP requests to perform
//! ([`Session::poll_action`]), consumes what came back (`handle_*`), keeps every deadline
//! ([`Session::poll_timeout`] / [`Session::handle_timeout`], with time passed in as
//! milliseconds) and reports outcomes ([`Session::poll_event`]). The same code therefore runs
//! against `fetch` in a service worker, in Node, and against scripted responses in tests.
//!
//! What it implements, per the MCP transports and lifecycle chapters:
//! - one `initialize` (+ `notifications/initialized`) per session, established lazily when a
//!   call needs it and re-established transparently when the server forgets the session (404,
//!   or server-everything's 400 "No valid session ID"), retrying the request once;
//! - version negotiation: protocol 2026-07-28 first (`server/discover`, then no `initialize`
//!   and no session: every request carries its `_meta` and the `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers), retried once with a version the
//!   server names in an "unsupported protocol version" error; a server that does not know
//!   `server/discover` gets `initialize` offering the newest dated version (2025-11-25, then
//!   whatever supported version it answers), and legacy SSE after that; what worked is kept
//!   for the server ([`Session::protocol_mode`]);
//! - results of 2026-07-28: `resultType` (`input_required` requests are answered and the
//!   request sent again with `inputResponses` and the server's `requestState`, SEP-2322), and
//!   `ttlMs` driving the tool cache's freshness;
//! - tasks (`io.modelcontextprotocol/tasks`: SEP-2663, and SEP-1686 before it): a call
//!   answered with a task is polled until the task ends (`tasks`);
//! - Streamable HTTP: JSON or SSE answers to POSTs, `Mcp-Session-Id`, `MCP-Protocol-Version`,
//!   resumption of a cut stream by GET with `Last-Event-ID` after the server's `retry:` delay,
//!   the optional GET stream for server-initiated messages (405 means "none"), DELETE on close;
//! - legacy HTTP+SSE: GET the SSE URL, wait for `endpoint`, POST there, answers on the stream;
//! - `auto` transport detection: POST `initialize`; on 400/404/405 try the legacy GET;
//! - seed 003's fault policy: retries with backoff for transient failures of idempotent
//!   requests only, never for `tools/call` (a lost answer is [`ClientError::OutcomeUnknown`]),
//!   per-request timeouts and a total budget, a FIFO queue behind a concurrency cap, and the
//!   tool-list cache.
//!
//! Layout: this file holds the public types and the session's state; the behaviour is split by
//! responsibility into `connect` (handshake and version negotiation), `exchange` (HTTP
//! requests, headers, response heads and bodies), `stream` (SSE messages, notifications,
//! resumption and the listen GET stream), `legacy` (the HTTP+SSE transport), `calls` (the
//! queue, deadlines, retries, paging and cache), `input` (`input_required` results), `tasks`
//! (calls answered with a task) and
//! `failures` (what each failure means).

mod calls;
mod connect;
mod exchange;
mod failures;
mod input;
mod legacy;
mod resume;
mod state;
mod stream;
mod tasks;

pub use resume::SessionSnapshot;
pub use tasks::{TaskForm, EXTENSION_ID as TASKS_EXTENSION_ID, MAX_POLL_MS, MIN_POLL_MS};

use std::collections::VecDeque;

use crate::sorted_map::SortedMap;

use serde::Serialize;
use serde_json::Value;

use super::cache::{ToolCache, DEFAULT_TOOLS_TTL_MS};
use super::config::{ServerConfig, TransportKind};
use super::error::ClientError;
use super::http::{Action, ExchangeId};
use super::jsonrpc::{ErrorObject, RequestId};
use super::ops::Output;
use super::retry::{Jitter, RetryPolicy};
use super::url::{redact_url, HttpUrl};
use crate::model::{Implementation, LogLevel, Tool};
use crate::sse::DEFAULT_MAX_EVENT_BYTES;

/// Tunables of a session. [`SessionConfig::new`] gives the defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionConfig {
    pub server: ServerConfig,
    pub client_info: Implementation,
    pub retry: RetryPolicy,
    /// Requests in flight at once; more wait in a FIFO queue (seed 003: 5). Browsers open at
    /// most 6 HTTP/1.1 connections per host, and the GET stream may hold one.
    pub max_concurrent: usize,
    pub tools_ttl_ms: u64,
    /// Open the optional GET stream for server-initiated messages (`list_changed`...).
    pub listen: bool,
    /// Largest JSON body or SSE event accepted.
    pub max_body_bytes: usize,
    /// Most pages a list operation follows.
    pub max_pages: usize,
    /// Most resumptions (GET with `Last-Event-ID`) of one request's stream.
    pub max_resumptions: u32,
    /// Reconnection delay when a server closes a stream without sending `retry:`.
    pub default_reconnect_ms: u64,
    /// Longest a request may run while progress notifications keep extending its timeout
    /// (the spec's "maximum timeout").
    pub max_call_ms: u64,
    /// Seed of the jitter added to retry delays.
    pub jitter_seed: u64,
    /// Declare the `elicitation` capability (form and URL modes) and pass a server's
    /// `elicitation/create` to the driver ([`SessionEvent::Request`]); without it, the request
    /// is refused as a method this client does not offer.
    pub elicitation: bool,
    /// Declare MCP Apps ([`crate::apps`]) under the capabilities' `extensions`, on every
    /// protocol version (servers of versions without extensions ignore a member they do not
    /// know).
    pub apps: bool,
    /// Declare skills ([`crate::skills`], SEP-2640) under the capabilities' `extensions`.
    pub skills: bool,
    /// Declare tasks (`io.modelcontextprotocol/tasks`, SEP-2663) and ask for a task where a
    /// tool allows one (SEP-1686): a call answered with a task is polled until it ends.
    pub tasks: bool,
    /// Try protocol 2026-07-28 (`server/discover`, no session) before `initialize`.
    pub discover: bool,
    /// The client capabilities declared (`initialize` and, in 2026-07-28, every request's
    /// `_meta`).
    pub capabilities: Value,
    /// The log level asked for: `logging/setLevel` once a 2025 session is ready (when the
    /// server declares `logging`), `io.modelcontextprotocol/logLevel` in every 2026-07-28
    /// request's `_meta`. None: no log messages are asked for.
    pub log_level: Option<LogLevel>,
}

impl SessionConfig {
    /// Defaults for a server.
    pub fn new(server: ServerConfig) -> Self {
        SessionConfig {
            server,
            client_info: Implementation::new("mcp-relay", env!("CARGO_PKG_VERSION")),
            retry: RetryPolicy::default(),
            max_concurrent: 5,
            tools_ttl_ms: DEFAULT_TOOLS_TTL_MS,
            listen: true,
            max_body_bytes: DEFAULT_MAX_EVENT_BYTES,
            max_pages: 100,
            max_resumptions: 16,
            default_reconnect_ms: 1_000,
            max_call_ms: 10 * 60 * 1000,
            jitter_seed: 0,
            elicitation: false,
            apps: false,
            skills: false,
            tasks: false,
            discover: true,
            capabilities: Value::Object(serde_json::Map::new()),
            log_level: None,
        }
    }
}

/// Handle of a submitted operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CallId(pub u64);

/// The transport a session speaks (what `auto` detected, or what was configured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Streamable,
    #[serde(rename = "sse")]
    Legacy,
}

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerInfo {
    pub protocol_version: String,
    pub server_info: Implementation,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    pub transport: Transport,
}

/// Which list a `list_changed` notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

/// Something the session reports.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionEvent {
    /// A submitted operation finished.
    Completed {
        call: CallId,
        result: Result<Output, ClientError>,
    },
    /// A `notifications/progress` for a call submitted with progress.
    Progress {
        call: CallId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A session was established (also after a transparent re-initialization).
    Connected(ServerInfo),
    /// The server changed a list; for tools the cache is already invalidated.
    ListChanged(ListKind),
    /// A `notifications/message` log entry.
    Log {
        level: String,
        logger: Option<String>,
        data: Value,
    },
    /// Any other notification.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A request of the server for the user (`elicitation/create`), to answer with
    /// [`Session::respond`]. Until then the requests in flight wait for it, up to their longest
    /// time (`max_call_ms`), instead of timing out while the user reads.
    Request {
        id: RequestId,
        method: String,
        params: Value,
        /// The call whose answer stream carried it, when it came on one.
        call: Option<CallId>,
    },
    /// A `tools/call` was answered with a task, which the session now polls: the task id to
    /// keep with the call, so polling can resume after the caller restarts
    /// ([`crate::client::Operation::ResumeTask`]).
    TaskCreated {
        call: CallId,
        task_id: String,
        form: TaskForm,
    },
}

/// Counters, for tests, benchmarks and the side panel's diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionStats {
    pub initialize_requests: u32,
    /// `server/discover` requests (protocol 2026-07-28's handshake).
    pub discover_requests: u32,
    /// Requests sent again with `inputResponses` after an `input_required` result.
    pub input_rounds: u32,
    pub http_requests: u64,
    pub retries: u32,
    pub reinitializations: u32,
    pub resumptions: u32,
    pub cache_hits: u32,
}

use state::*;

/// The MCP client session of one server. See the module documentation.
#[derive(Debug)]
pub struct Session {
    cfg: SessionConfig,
    url: Result<HttpUrl, ClientError>,
    conn: Conn,
    handshake: Option<Handshake>,
    transport: Option<Transport>,
    legacy_post_url: Option<String>,
    legacy_stream: Option<ExchangeId>,
    session_id: Option<String>,
    /// Bumped whenever the server-side session is forgotten.
    generation: u64,
    protocol_version: Option<String>,
    info: Option<ServerInfo>,
    next_rpc: i64,
    next_call: u64,
    next_exchange: u64,
    calls: SortedMap<CallId, Call>,
    queue: VecDeque<CallId>,
    rpcs: SortedMap<i64, Rpc>,
    exchanges: SortedMap<ExchangeId, Exchange>,
    progress_tokens: SortedMap<String, CallId>,
    listen: Listen,
    listen_last_event_id: Option<String>,
    listen_retry_ms: Option<u64>,
    listen_failures: u32,
    /// The server answered the GET stream with 405: it has none, whatever the session.
    listen_unsupported: bool,
    actions: VecDeque<Action>,
    events: VecDeque<SessionEvent>,
    tools: ToolCache,
    jitter: Jitter,
    stats: SessionStats,
    /// `Authorization` from a sign-in (`auth::Authorizer`), replacing any configured one.
    authorization: Option<String>,
    /// What this server speaks once learned: `Some(true)` 2026-07-28 (stateless), `Some(false)`
    /// a version negotiated by `initialize`.
    stateless: Option<bool>,
    /// A `server/discover` is the handshake request in flight; `true` once it was retried
    /// after an "unsupported protocol version" answer.
    discovering: Option<bool>,
    /// What came back since the pool last looked (JSON bodies, SSE messages, error bodies), at
    /// most `WIRE_TEXT_BYTES` each, for the protocol log (`client::wire_log`).
    received: Vec<String>,
}

/// What a server was found to speak (see [`Session::protocol_mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolMode {
    /// Protocol 2026-07-28: `server/discover`, no `initialize`, no session.
    Stateless,
    /// A version negotiated by `initialize` (2025-11-25 and older), with a session.
    Session,
}

impl Session {
    /// A session for a server; nothing is sent until an operation is submitted.
    pub fn new(cfg: SessionConfig) -> Self {
        let url = cfg.server.validate().map_err(|e| ClientError::Config {
            message: e.to_string(),
        });
        let transport = match cfg.server.transport {
            TransportKind::Streamable => Some(Transport::Streamable),
            TransportKind::Sse => Some(Transport::Legacy),
            TransportKind::Auto => None,
        };
        Session {
            tools: ToolCache::new(cfg.tools_ttl_ms),
            jitter: Jitter::new(cfg.jitter_seed),
            cfg,
            url,
            conn: Conn::Down,
            handshake: None,
            transport,
            legacy_post_url: None,
            legacy_stream: None,
            session_id: None,
            generation: 0,
            protocol_version: None,
            info: None,
            next_rpc: 1,
            next_call: 1,
            next_exchange: 1,
            calls: SortedMap::new(),
            queue: VecDeque::new(),
            rpcs: SortedMap::new(),
            exchanges: SortedMap::new(),
            progress_tokens: SortedMap::new(),
            listen: Listen::Off,
            listen_last_event_id: None,
            listen_retry_ms: None,
            listen_failures: 0,
            listen_unsupported: false,
            actions: VecDeque::new(),
            events: VecDeque::new(),
            stats: SessionStats::default(),
            authorization: None,
            stateless: None,
            discovering: None,
            received: Vec::new(),
        }
    }

    /// Answers a server's request ([`SessionEvent::Request`]); the requests in flight that
    /// waited for it get their usual time again from now.
    pub fn respond(&mut self, id: RequestId, result: Result<Value, ErrorObject>, now_ms: u64) {
        // A 2026-07-28 input request is answered by sending its call again, not by a reply
        // (an error the user's side made becomes a cancel).
        let answer = result
            .clone()
            .unwrap_or_else(|_| serde_json::json!({"action": "cancel"}));
        if self.task_input_answered(&id, answer.clone(), now_ms) {
            return;
        }
        if self.input_answered(&id, answer, now_ms) {
            return;
        }
        self.reply(id, result);
        let calls: Vec<CallId> = self.calls.keys().copied().collect();
        for call in calls {
            self.extend_deadline(call, now_ms);
        }
    }

    /// What the server was found to speak, once a handshake worked; `None` before.
    pub fn protocol_mode(&self) -> Option<ProtocolMode> {
        self.stateless.map(|s| {
            if s {
                ProtocolMode::Stateless
            } else {
                ProtocolMode::Session
            }
        })
    }

    /// Knows the server's tools from an earlier run for their definitions only
    /// ([`crate::client::ToolCache::remember`]).
    pub fn remember_tools(&mut self, tools: Vec<crate::model::Tool>) {
        self.tools.remember(tools);
    }

    /// Starts from what a server was found to speak before (persisted by the caller), so
    /// `server/discover` is not tried again on a server that did not know it.
    pub fn remember_protocol_mode(&mut self, mode: Option<ProtocolMode>) {
        self.stateless = mode.map(|m| m == ProtocolMode::Stateless);
    }

    /// The capabilities this client declares: the configured ones, plus elicitation (form and
    /// URL modes) when the driver answers it, MCP Apps when the host renders them, skills when
    /// it loads them, and tasks when calls may be answered with one.
    pub(super) fn capabilities(&self) -> Value {
        let mut capabilities = self.cfg.capabilities.clone();
        if self.cfg.elicitation {
            if let Value::Object(m) = &mut capabilities {
                let modes = serde_json::json!({"form": {}, "url": {}});
                m.insert("elicitation".to_owned(), modes);
            }
        }
        if self.cfg.apps {
            crate::apps::declare(&mut capabilities);
        }
        if self.cfg.skills {
            crate::skills::declare(&mut capabilities);
        }
        if self.cfg.tasks {
            tasks::declare(&mut capabilities);
        }
        capabilities
    }

    /// Whether requests go out in protocol 2026-07-28's stateless form.
    fn stateless_active(&self) -> bool {
        self.protocol_version.as_deref() == Some(crate::model::STATELESS_PROTOCOL_VERSION)
    }

    /// Sets (or clears) the `Authorization` header value every later request carries, in place
    /// of a configured one: the hook of MCP authorization (`auth::Authorizer::authorization`).
    /// A refused request ends in [`ClientError::Auth`] with the status and `WWW-Authenticate`
    /// the driver hands to the authorizer.
    pub fn set_authorization(&mut self, value: Option<String>) {
        self.authorization = value;
    }

    /// The `Authorization` a sign-in set, if any.
    pub fn authorization(&self) -> Option<&str> {
        self.authorization.as_deref()
    }

    /// The server's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    /// What the server said in `initialize`, once a session exists.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.info.as_ref()
    }

    /// The transport in use: configured, or detected by `auto` (persist it to skip detection).
    pub fn transport(&self) -> Option<Transport> {
        self.transport
    }

    /// The current `Mcp-Session-Id`.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether a session is established.
    pub fn is_ready(&self) -> bool {
        self.conn == Conn::Ready
    }

    /// Counters since creation.
    pub fn stats(&self) -> &SessionStats {
        &self.stats
    }

    /// Operations submitted and not finished.
    pub fn pending_calls(&self) -> usize {
        self.calls.len()
    }

    /// The cached tool list, if fresh.
    pub fn cached_tools(&self, now_ms: u64) -> Option<&[Tool]> {
        self.tools.get(now_ms)
    }

    /// Drops the cached tool list.
    pub fn invalidate_tools(&mut self) {
        self.tools.invalidate();
    }

    /// Next thing for the driver to do.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// Next thing to report.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.events.pop_front()
    }

    /// What came back since the last call (bodies and messages, in order), for the protocol
    /// log.
    pub fn take_received(&mut self) -> Vec<String> {
        std::mem::take(&mut self.received)
    }

    /// Notes a body or message that came back (its first `WIRE_TEXT_BYTES` and how long it
    /// was), at most a few hundred between two looks of the pool.
    pub(super) fn note_received(&mut self, bytes: &[u8]) {
        use crate::client::wire_log::WIRE_TEXT_BYTES;
        if self.received.len() >= 256 || bytes.is_empty() {
            return;
        }
        let kept = &bytes[..bytes.len().min(WIRE_TEXT_BYTES)];
        let mut text = String::from_utf8_lossy(kept).into_owned();
        if kept.len() < bytes.len() {
            text.push_str(&format!("… ({} bytes more)", bytes.len() - kept.len()));
        }
        self.received.push(text);
    }

    fn timeout_ms(&self) -> u64 {
        self.cfg.server.timeout_ms
    }

    /// The full URL, userinfo and query included: for the requests themselves, never for a
    /// text (see [`Session::error_url`]).
    fn request_url(&self) -> String {
        self.url
            .as_ref()
            .map_or_else(|_| self.cfg.server.url.clone(), ToString::to_string)
    }

    /// The server's URL as every error names it: redacted ([`HttpUrl::redacted`]), so a token
    /// in the URL never reaches a chat or the side panel.
    fn error_url(&self) -> String {
        match &self.url {
            Ok(url) => url.redacted(),
            Err(_) => redact_url(&self.cfg.server.url),
        }
    }

    fn transport_in_use(&self) -> Option<Transport> {
        self.handshake
            .as_ref()
            .map(|h| h.transport)
            .or(self.transport)
    }

    fn is_initialize(&self, id: &RequestId) -> bool {
        self.discovering.is_none()
            && matches!((self.conn, id), (Conn::Initializing { rpc }, RequestId::Number(n)) if rpc == *n)
    }

    fn rpc_of(&self, id: &RequestId) -> Option<&Rpc> {
        match id {
            RequestId::Number(n) => self.rpcs.get(n),
            RequestId::String(_) => None,
        }
    }

    fn rpc_of_mut(&mut self, id: &RequestId) -> Option<&mut Rpc> {
        match id {
            RequestId::Number(n) => self.rpcs.get_mut(n),
            RequestId::String(_) => None,
        }
    }
}
