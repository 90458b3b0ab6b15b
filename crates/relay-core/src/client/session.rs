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
//! - version negotiation (offer the newest supported version, accept any supported answer);
//! - Streamable HTTP: JSON or SSE answers to POSTs, `Mcp-Session-Id`, `MCP-Protocol-Version`,
//!   resumption of a cut stream by GET with `Last-Event-ID` after the server's `retry:` delay,
//!   the optional GET stream for server-initiated messages (405 means "none"), DELETE on close;
//! - legacy HTTP+SSE: GET the SSE URL, wait for `endpoint`, POST there, answers on the stream;
//! - `auto` transport detection: POST `initialize`; on 400/404/405 try the legacy GET;
//! - seed 003's fault policy: retries with backoff for transient failures of idempotent
//!   requests only, never for `tools/call` (a lost answer is [`ClientError::OutcomeUnknown`]),
//!   per-request timeouts and a total budget, a FIFO queue behind a concurrency cap, and the
//!   tool-list cache.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;
use serde_json::{json, Value};

use super::cache::{ToolCache, DEFAULT_TOOLS_TTL_MS};
use super::config::{ServerConfig, TransportKind};
use super::error::ClientError;
use super::http::{Action, ExchangeId, HttpMethod, HttpRequest, ResponseHead};
use super::jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, Request, RequestId, Response,
};
use super::ops::{read_output, read_page, Operation, Output, Pages};
use super::retry::{Jitter, RetryPolicy};
use super::url::HttpUrl;
use crate::model::{Implementation, Tool, SUPPORTED_PROTOCOL_VERSIONS};
use crate::sse::{SseDecoder, DEFAULT_MAX_EVENT_BYTES};

/// How much of an error response's body is kept for the error message.
const MAX_ERROR_BODY: usize = 64 * 1024;

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
        }
    }
}

/// Handle of a submitted operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CallId(pub u64);

/// The transport a session speaks (what `auto` detected, or what was configured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Streamable,
    #[serde(rename = "sse")]
    Legacy,
}

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// Counters, for tests, benchmarks and the side panel's diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionStats {
    pub initialize_requests: u32,
    pub http_requests: u64,
    pub retries: u32,
    pub reinitializations: u32,
    pub resumptions: u32,
    pub cache_hits: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Handshake,
    Call(CallId),
}

/// A JSON-RPC request awaiting its answer.
#[derive(Debug)]
struct Rpc {
    owner: Owner,
    method: &'static str,
    timeout_ms: u64,
    deadline: u64,
    /// The exchange expected to carry the answer (the POST, or the GET resuming it). `None`
    /// when the answer comes on a shared stream (legacy transport, or a 202).
    exchange: Option<ExchangeId>,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    resume_at: Option<u64>,
    resumptions: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Purpose {
    Request(RequestId),
    Resume(RequestId),
    Notify { initialized: bool },
    Reply,
    Listen,
    LegacyStream,
    Delete,
}

#[derive(Debug)]
enum Body {
    AwaitingHead,
    Json(Vec<u8>),
    Sse(SseDecoder),
    Error(ResponseHead, Vec<u8>),
    Discard,
}

#[derive(Debug)]
struct Exchange {
    purpose: Purpose,
    /// The session id the request carried.
    session_id: Option<String>,
    /// The session generation it belongs to: a 404 for an old session must not reset a new one.
    generation: u64,
    body: Body,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conn {
    Down,
    /// Legacy: waiting for the `endpoint` event on the GET stream.
    Opening {
        exchange: ExchangeId,
        deadline: u64,
    },
    Initializing {
        rpc: i64,
    },
    /// `notifications/initialized` sent, waiting for its 202.
    Confirming {
        exchange: ExchangeId,
        deadline: u64,
    },
    Backoff {
        until: u64,
    },
    Ready,
}

#[derive(Debug)]
struct Handshake {
    transport: Transport,
    attempt: u32,
    first_try_at: u64,
    /// In `auto`, the Streamable HTTP failure that made us try the legacy transport.
    streamable_error: Option<ClientError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallState {
    Queued,
    InFlight(i64),
    Backoff { until: u64 },
}

#[derive(Debug)]
struct Call {
    op: Operation,
    state: CallState,
    attempt: u32,
    submitted_at: u64,
    first_try_at: u64,
    reinitialized: bool,
    pages: Pages,
    progress_token: Option<String>,
    cache_generation: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listen {
    Off,
    Open(ExchangeId),
    Waiting { until: u64 },
    Disabled,
}

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
    calls: BTreeMap<CallId, Call>,
    queue: VecDeque<CallId>,
    rpcs: BTreeMap<i64, Rpc>,
    exchanges: BTreeMap<ExchangeId, Exchange>,
    progress_tokens: HashMap<String, CallId>,
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
            calls: BTreeMap::new(),
            queue: VecDeque::new(),
            rpcs: BTreeMap::new(),
            exchanges: BTreeMap::new(),
            progress_tokens: HashMap::new(),
            listen: Listen::Off,
            listen_last_event_id: None,
            listen_retry_ms: None,
            listen_failures: 0,
            listen_unsupported: false,
            actions: VecDeque::new(),
            events: VecDeque::new(),
            stats: SessionStats::default(),
        }
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

    /// Submits an operation. Its outcome comes as [`SessionEvent::Completed`] (at once for a
    /// cached tool list).
    pub fn submit(&mut self, op: Operation, now_ms: u64) -> CallId {
        let id = CallId(self.next_call);
        self.next_call += 1;
        if let Err(error) = &self.url {
            let error = error.clone();
            self.events.push_back(SessionEvent::Completed {
                call: id,
                result: Err(error),
            });
            return id;
        }
        if let Operation::ListTools { refresh: false } = op {
            if let Some(tools) = self.tools.get(now_ms) {
                self.stats.cache_hits += 1;
                let result = Ok(Output::Tools(tools.to_vec()));
                self.events
                    .push_back(SessionEvent::Completed { call: id, result });
                return id;
            }
        }
        let progress_token = match &op {
            Operation::CallTool { progress: true, .. } => {
                let token = format!("relay-{}", id.0);
                self.progress_tokens.insert(token.clone(), id);
                Some(token)
            }
            _ => None,
        };
        let call = Call {
            op,
            state: CallState::Queued,
            attempt: 1,
            submitted_at: now_ms,
            first_try_at: now_ms,
            reinitialized: false,
            pages: Pages::default(),
            progress_token,
            cache_generation: self.tools.generation(),
        };
        self.calls.insert(id, call);
        self.queue.push_back(id);
        self.pump(now_ms);
        id
    }

    /// Cancels an operation: it completes with [`ClientError::Cancelled`], and the server is
    /// told with `notifications/cancelled` if the request was sent.
    pub fn cancel(&mut self, call: CallId, reason: &str, now_ms: u64) {
        let Some(state) = self.calls.get(&call).map(|c| c.state) else {
            return;
        };
        match state {
            CallState::Queued => self.queue.retain(|c| *c != call),
            CallState::Backoff { .. } => {}
            CallState::InFlight(rpc) => {
                if let Some(pending) = self.rpcs.remove(&rpc) {
                    self.abort_exchange(pending.exchange);
                    self.notify_cancelled(rpc, reason);
                }
            }
        }
        let method = self
            .calls
            .get(&call)
            .map_or("request", |c| c.op.method())
            .to_owned();
        self.complete_call(
            call,
            Err(ClientError::Cancelled {
                method,
                reason: reason.to_owned(),
            }),
            now_ms,
        );
    }

    /// Ends the session (server removed or disabled): pending operations are cancelled, open
    /// streams aborted, and the server is sent DELETE so it can free the session. A later
    /// `submit` starts a new session.
    pub fn shutdown(&mut self, reason: &str) {
        let exchanges: Vec<ExchangeId> = self.exchanges.keys().copied().collect();
        for exchange in exchanges {
            self.abort_exchange(Some(exchange));
        }
        // Completed without `pump`: nothing queued may start while the session ends.
        self.queue.clear();
        self.rpcs.clear();
        self.progress_tokens.clear();
        for (call, c) in std::mem::take(&mut self.calls) {
            let error = ClientError::Cancelled {
                method: c.op.method().to_owned(),
                reason: reason.to_owned(),
            };
            self.events.push_back(SessionEvent::Completed {
                call,
                result: Err(error),
            });
        }
        if self.transport_in_use() == Some(Transport::Streamable) && self.session_id.is_some() {
            let url = self.url_string();
            let headers = self.headers(HeaderKind::Delete);
            self.send(
                Purpose::Delete,
                HttpMethod::Delete,
                url,
                headers,
                None,
                false,
            );
        }
        self.reset_session();
        self.handshake = None;
        self.conn = Conn::Down;
    }

    /// The earliest time [`Session::handle_timeout`] has something to do.
    pub fn poll_timeout(&self) -> Option<u64> {
        let rpcs = self
            .rpcs
            .values()
            .flat_map(|r| [Some(r.deadline), r.resume_at])
            .flatten();
        let calls = self.calls.values().filter_map(|c| match c.state {
            CallState::Backoff { until } => Some(until),
            _ => None,
        });
        let conn = match self.conn {
            Conn::Opening { deadline, .. } | Conn::Confirming { deadline, .. } => Some(deadline),
            Conn::Backoff { until } => Some(until),
            _ => None,
        };
        let listen = match self.listen {
            Listen::Waiting { until } => Some(until),
            _ => None,
        };
        rpcs.chain(calls).chain(conn).chain(listen).min()
    }

    /// Runs whatever is due at `now_ms`: timeouts, retries, reconnections.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        let expired: Vec<i64> = self
            .rpcs
            .iter()
            .filter(|(_, r)| r.deadline <= now_ms)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            let Some(rpc) = self.rpcs.remove(&id) else {
                continue;
            };
            self.abort_exchange(rpc.exchange);
            // The spec forbids cancelling `initialize`; anything else is told we gave up.
            if rpc.owner != Owner::Handshake {
                self.notify_cancelled(id, "timed out");
            }
            let error = ClientError::Timeout {
                method: rpc.method.to_owned(),
                after_ms: rpc.timeout_ms,
            };
            self.fail_rpc(rpc.owner, error, None, now_ms);
        }
        let resumable: Vec<i64> = self
            .rpcs
            .iter()
            .filter(|(_, r)| r.resume_at.is_some_and(|t| t <= now_ms))
            .map(|(id, _)| *id)
            .collect();
        for id in resumable {
            self.resume(id);
        }
        let retries: Vec<CallId> = self
            .calls
            .iter()
            .filter(|(_, c)| matches!(c.state, CallState::Backoff { until } if until <= now_ms))
            .map(|(id, _)| *id)
            .collect();
        for id in retries {
            if self.conn == Conn::Ready {
                self.send_call(id, now_ms);
            } else if let Some(call) = self.calls.get_mut(&id) {
                call.state = CallState::Queued;
                self.queue.push_front(id);
            }
        }
        match self.conn {
            Conn::Backoff { until } if until <= now_ms => self.begin_attempt(now_ms),
            Conn::Opening { exchange, deadline } if deadline <= now_ms => {
                self.abort_exchange(Some(exchange));
                let error = ClientError::Timeout {
                    method: "GET (SSE endpoint)".to_owned(),
                    after_ms: self.timeout_ms(),
                };
                self.handshake_failed(error, None, now_ms);
            }
            Conn::Confirming { exchange, deadline } if deadline <= now_ms => {
                self.abort_exchange(Some(exchange));
                let error = ClientError::Timeout {
                    method: "notifications/initialized".to_owned(),
                    after_ms: self.timeout_ms(),
                };
                self.handshake_failed(error, None, now_ms);
            }
            _ => {}
        }
        if matches!(self.listen, Listen::Waiting { until } if until <= now_ms) {
            self.open_listen();
        }
        self.pump(now_ms);
    }

    /// The status and headers of an exchange's response arrived.
    pub fn handle_response_head(&mut self, exchange: ExchangeId, head: ResponseHead, now_ms: u64) {
        let Some(ex) = self.exchanges.get(&exchange) else {
            return;
        };
        let purpose = ex.purpose.clone();
        let ok = (200..300).contains(&head.status);
        let streamable = self.transport_in_use() == Some(Transport::Streamable);
        let max = self.cfg.max_body_bytes;
        let body = match &purpose {
            Purpose::Request(id) if ok => {
                if streamable && self.is_initialize(id) {
                    self.session_id = head
                        .header("mcp-session-id")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty());
                }
                if !streamable || head.status == 202 || head.status == 204 {
                    Body::Discard
                } else if head.is_event_stream() {
                    Body::Sse(SseDecoder::with_max_event_bytes(max))
                } else {
                    Body::Json(Vec::new())
                }
            }
            Purpose::Resume(id) if ok && head.is_event_stream() => {
                let last = self.rpc_of(id).and_then(|r| r.last_event_id.clone());
                Body::Sse(SseDecoder::resuming(last.as_deref(), max))
            }
            Purpose::Notify { .. } | Purpose::Reply | Purpose::Delete if ok => Body::Discard,
            Purpose::Listen => {
                if ok && head.is_event_stream() {
                    Body::Sse(SseDecoder::resuming(
                        self.listen_last_event_id.as_deref(),
                        max,
                    ))
                } else {
                    // A server without a GET stream says 405; others 400 or 404. Either way
                    // there is no stream for this session, and nothing is wrong with it.
                    self.abort_exchange(Some(exchange));
                    if head.status >= 500 || head.status == 429 {
                        self.listen_closed(None, true, now_ms);
                    } else {
                        self.listen_unsupported |= head.status == 405;
                        self.listen = Listen::Disabled;
                    }
                    return;
                }
            }
            Purpose::LegacyStream if ok && head.is_event_stream() => {
                Body::Sse(SseDecoder::with_max_event_bytes(max))
            }
            _ => Body::Error(head, Vec::new()),
        };
        if let Some(ex) = self.exchanges.get_mut(&exchange) {
            ex.body = body;
        }
    }

    /// A chunk of an exchange's response body arrived.
    pub fn handle_body(&mut self, exchange: ExchangeId, chunk: &[u8], now_ms: u64) {
        let max = self.cfg.max_body_bytes;
        let Some(ex) = self.exchanges.get_mut(&exchange) else {
            return;
        };
        let decoded = match &mut ex.body {
            Body::Json(buf) => {
                if buf.len() + chunk.len() > max {
                    Err(format!("the response is larger than {max} bytes"))
                } else {
                    buf.extend_from_slice(chunk);
                    Ok(Vec::new())
                }
            }
            Body::Error(_, buf) => {
                let room = MAX_ERROR_BODY.saturating_sub(buf.len());
                buf.extend_from_slice(&chunk[..room.min(chunk.len())]);
                Ok(Vec::new())
            }
            Body::Sse(decoder) => decoder.push(chunk).map_err(|e| e.to_string()),
            Body::AwaitingHead | Body::Discard => Ok(Vec::new()),
        };
        match decoded {
            Ok(events) => {
                for event in events {
                    self.handle_sse_event(exchange, event.event, event.data, now_ms);
                }
            }
            Err(message) => {
                let url = self.url_string();
                self.exchange_failed(exchange, ClientError::Protocol { url, message }, now_ms);
            }
        }
    }

    /// An exchange's response body ended normally.
    pub fn handle_body_end(&mut self, exchange: ExchangeId, now_ms: u64) {
        let Some(ex) = self.exchanges.remove(&exchange) else {
            return;
        };
        let url = self.url_string();
        match (ex.purpose, ex.body) {
            (Purpose::Request(id), Body::Json(buf)) => {
                match Message::parse_all(&buf) {
                    Ok(messages) => {
                        for message in messages {
                            self.handle_message(message, Some(exchange), now_ms);
                        }
                    }
                    Err(e) => {
                        let error = ClientError::Protocol {
                            url,
                            message: format!("malformed JSON-RPC response: {e}"),
                        };
                        self.fail_pending(&id, exchange, error, now_ms);
                        return;
                    }
                }
                let error = ClientError::Protocol {
                    url,
                    message: format!("the response did not answer request {id}"),
                };
                self.fail_pending(&id, exchange, error, now_ms);
            }
            (Purpose::Request(id) | Purpose::Resume(id), Body::Sse(mut decoder)) => {
                let cut = decoder.finish();
                let reason = if cut {
                    "the event stream was cut in the middle of an event"
                } else {
                    "the event stream ended before the answer arrived"
                };
                self.stream_ended(&id, exchange, &decoder, reason, now_ms);
            }
            (Purpose::Request(id), Body::Discard) => {
                // Legacy transport, or a 202: the answer comes on another stream.
                if let Some(rpc) = self.rpc_of_mut(&id) {
                    if rpc.exchange == Some(exchange) {
                        rpc.exchange = None;
                    }
                }
            }
            (Purpose::Request(id), Body::Error(head, buf)) => {
                let RequestId::Number(n) = id else { return };
                if self
                    .rpcs
                    .get(&n)
                    .is_none_or(|r| r.exchange != Some(exchange))
                {
                    return;
                }
                let legacy = self.transport_in_use() == Some(Transport::Legacy);
                let expired = is_session_expired(&head, &buf, ex.session_id.is_some() || legacy);
                let Some(rpc) = self.rpcs.remove(&n) else {
                    return;
                };
                if expired {
                    self.session_expired(rpc.owner, ex.generation, now_ms);
                } else {
                    let error = self.http_error(&head, &buf);
                    self.fail_rpc(rpc.owner, error, head.retry_after_ms(), now_ms);
                }
            }
            (Purpose::Resume(id), Body::Error(head, _)) => {
                // The request was delivered; whatever the status, its answer is lost with the
                // stream. Never a reason to send it again as if it had not been.
                let error = ClientError::Connection {
                    url,
                    message: format!("could not resume the event stream (HTTP {})", head.status),
                };
                self.fail_pending(&id, exchange, error, now_ms);
            }
            (Purpose::Notify { initialized: true }, body) => {
                if !matches!(self.conn, Conn::Confirming { exchange: e, .. } if e == exchange) {
                    return;
                }
                if let Body::Error(head, buf) = &body {
                    if is_session_expired(head, buf, ex.session_id.is_some()) || head.status >= 500
                    {
                        let error = ClientError::Connection {
                            url,
                            message: format!(
                                "the server dropped the session during initialization (HTTP {})",
                                head.status
                            ),
                        };
                        self.handshake_failed(error, None, now_ms);
                        return;
                    }
                }
                // Any other answer means the server got the notification; some reply 200 with
                // a body, or even an error status, and work fine afterwards.
                self.become_ready(now_ms);
            }
            (Purpose::Listen, Body::Sse(mut decoder)) => {
                decoder.finish();
                self.listen_closed(Some(&decoder), false, now_ms);
            }
            (Purpose::LegacyStream, Body::Error(head, buf)) => {
                let error = self.http_error(&head, &buf);
                self.handshake_failed(error, head.retry_after_ms(), now_ms);
            }
            (Purpose::LegacyStream, Body::Sse(_)) => {
                let error = ClientError::Connection {
                    url,
                    message: "the server closed the SSE stream".to_owned(),
                };
                self.legacy_stream_lost(error, now_ms);
            }
            _ => {}
        }
        self.pump(now_ms);
    }

    /// An exchange failed at the network level (fetch rejected, or its body stream errored).
    pub fn handle_transport_error(&mut self, exchange: ExchangeId, message: &str, now_ms: u64) {
        let error = ClientError::Connection {
            url: self.url_string(),
            message: message.to_owned(),
        };
        self.exchange_failed(exchange, error, now_ms);
    }

    // ---- internals -------------------------------------------------------------------------

    fn timeout_ms(&self) -> u64 {
        self.cfg.server.timeout_ms
    }

    fn url_string(&self) -> String {
        self.url
            .as_ref()
            .map_or_else(|_| self.cfg.server.url.clone(), ToString::to_string)
    }

    fn transport_in_use(&self) -> Option<Transport> {
        self.handshake
            .as_ref()
            .map(|h| h.transport)
            .or(self.transport)
    }

    fn is_initialize(&self, id: &RequestId) -> bool {
        matches!((self.conn, id), (Conn::Initializing { rpc }, RequestId::Number(n)) if rpc == *n)
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

    fn in_flight(&self) -> usize {
        self.calls
            .values()
            .filter(|c| !matches!(c.state, CallState::Queued))
            .count()
    }

    /// Moves queued work forward: starts a handshake if work waits for a session, and sends
    /// queued calls while the concurrency cap allows.
    fn pump(&mut self, now_ms: u64) {
        if self.queue.is_empty() {
            return;
        }
        match self.conn {
            Conn::Down => self.start_handshake(now_ms),
            Conn::Ready => {
                while self.in_flight() < self.cfg.max_concurrent.max(1) {
                    let Some(id) = self.queue.pop_front() else {
                        break;
                    };
                    self.send_call(id, now_ms);
                }
            }
            _ => {}
        }
    }

    fn start_handshake(&mut self, now_ms: u64) {
        let transport = self.transport.unwrap_or(Transport::Streamable);
        self.handshake = Some(Handshake {
            transport,
            attempt: 1,
            first_try_at: now_ms,
            streamable_error: None,
        });
        self.begin_attempt(now_ms);
    }

    fn begin_attempt(&mut self, now_ms: u64) {
        self.reset_session();
        let Some(transport) = self.handshake.as_ref().map(|h| h.transport) else {
            return;
        };
        match transport {
            Transport::Streamable => self.send_initialize(now_ms),
            Transport::Legacy => {
                let url = self.url_string();
                let headers = self.headers(HeaderKind::Stream {
                    last_event_id: None,
                });
                let exchange = self.send(
                    Purpose::LegacyStream,
                    HttpMethod::Get,
                    url,
                    headers,
                    None,
                    true,
                );
                self.legacy_stream = Some(exchange);
                self.conn = Conn::Opening {
                    exchange,
                    deadline: now_ms + self.timeout_ms(),
                };
            }
        }
    }

    fn send_initialize(&mut self, now_ms: u64) {
        let params = json!({
            "protocolVersion": SUPPORTED_PROTOCOL_VERSIONS[0],
            "capabilities": {},
            "clientInfo": self.cfg.client_info,
        });
        self.stats.initialize_requests += 1;
        let rpc = self.send_rpc(Owner::Handshake, "initialize", Some(params), now_ms);
        self.conn = Conn::Initializing { rpc };
    }

    /// Forgets the server-side session (not the calls waiting for one).
    fn reset_session(&mut self) {
        self.generation += 1;
        self.session_id = None;
        self.protocol_version = None;
        self.legacy_post_url = None;
        let legacy_stream = self.legacy_stream.take();
        self.abort_exchange(legacy_stream);
        if let Listen::Open(exchange) = self.listen {
            self.abort_exchange(Some(exchange));
        }
        self.listen = Listen::Off;
        self.listen_last_event_id = None;
        self.listen_retry_ms = None;
        self.listen_failures = 0;
    }

    fn send_call(&mut self, id: CallId, now_ms: u64) {
        let Some(call) = self.calls.get(&id) else {
            return;
        };
        let params = call
            .op
            .params(call.pages.cursor.as_deref(), call.progress_token.as_deref());
        let method = call.op.method();
        let rpc = self.send_rpc(Owner::Call(id), method, params, now_ms);
        if let Some(call) = self.calls.get_mut(&id) {
            call.state = CallState::InFlight(rpc);
        }
    }

    fn send_rpc(
        &mut self,
        owner: Owner,
        method: &'static str,
        params: Option<Value>,
        now_ms: u64,
    ) -> i64 {
        let id = self.next_rpc;
        self.next_rpc += 1;
        let body = Message::Request(Request::new(RequestId::Number(id), method, params)).to_json();
        let exchange = self.post(Purpose::Request(RequestId::Number(id)), body);
        let timeout_ms = self.timeout_ms();
        self.rpcs.insert(
            id,
            Rpc {
                owner,
                method,
                timeout_ms,
                deadline: now_ms + timeout_ms,
                exchange: Some(exchange),
                last_event_id: None,
                retry_ms: None,
                resume_at: None,
                resumptions: 0,
            },
        );
        id
    }

    fn post(&mut self, purpose: Purpose, body: String) -> ExchangeId {
        let url = match (self.transport_in_use(), &self.legacy_post_url) {
            (Some(Transport::Legacy), Some(post_url)) => post_url.clone(),
            _ => self.url_string(),
        };
        let headers = self.headers(HeaderKind::Post);
        self.send(purpose, HttpMethod::Post, url, headers, Some(body), false)
    }

    fn send(
        &mut self,
        purpose: Purpose,
        method: HttpMethod,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<String>,
        long_lived: bool,
    ) -> ExchangeId {
        let exchange = ExchangeId(self.next_exchange);
        self.next_exchange += 1;
        self.stats.http_requests += 1;
        let session_id = self.session_id.clone();
        let generation = self.generation;
        self.exchanges.insert(
            exchange,
            Exchange {
                purpose,
                session_id,
                generation,
                body: Body::AwaitingHead,
            },
        );
        self.actions.push_back(Action::Send(HttpRequest {
            exchange,
            method,
            url,
            headers,
            body,
            long_lived,
        }));
        exchange
    }

    fn abort_exchange(&mut self, exchange: Option<ExchangeId>) {
        if let Some(exchange) = exchange {
            if self.exchanges.remove(&exchange).is_some() {
                self.actions.push_back(Action::Abort(exchange));
            }
        }
    }

    fn headers(&self, kind: HeaderKind<'_>) -> Vec<(String, String)> {
        const RESERVED: &[&str] = &[
            "accept",
            "content-type",
            "content-length",
            "host",
            "mcp-session-id",
            "mcp-protocol-version",
            "last-event-id",
        ];
        let mut headers: Vec<(String, String)> = self
            .cfg
            .server
            .headers
            .iter()
            .filter(|(k, _)| !RESERVED.iter().any(|r| k.eq_ignore_ascii_case(r)))
            .cloned()
            .collect();
        match kind {
            HeaderKind::Post => {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
                headers.push((
                    "Accept".to_owned(),
                    "application/json, text/event-stream".to_owned(),
                ));
            }
            HeaderKind::Stream { last_event_id } => {
                headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
                if let Some(id) = last_event_id {
                    headers.push(("Last-Event-ID".to_owned(), id.to_owned()));
                }
            }
            HeaderKind::Delete => {}
        }
        if self.transport_in_use() == Some(Transport::Streamable) {
            if let Some(id) = &self.session_id {
                headers.push(("Mcp-Session-Id".to_owned(), id.clone()));
            }
            if let Some(version) = &self.protocol_version {
                headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
            }
        }
        headers
    }

    fn notify_cancelled(&mut self, rpc: i64, reason: &str) {
        if self.conn != Conn::Ready {
            return;
        }
        let params = json!({ "requestId": rpc, "reason": reason });
        let body =
            Message::Notification(Notification::new("notifications/cancelled", Some(params)))
                .to_json();
        self.post(Purpose::Notify { initialized: false }, body);
    }

    fn reply(&mut self, id: RequestId, result: Result<Value, ErrorObject>) {
        let message = match result {
            Ok(result) => Message::Response(Response::new(id, result)),
            Err(error) => Message::Error(ErrorResponse::new(Some(id), error)),
        };
        self.post(Purpose::Reply, message.to_json());
    }

    fn handle_sse_event(&mut self, exchange: ExchangeId, event: String, data: String, now_ms: u64) {
        let purpose = self.exchanges.get(&exchange).map(|e| e.purpose.clone());
        if purpose == Some(Purpose::Listen) {
            self.listen_failures = 0;
        }
        if event == "endpoint" && purpose == Some(Purpose::LegacyStream) {
            self.legacy_endpoint(&data, now_ms);
            return;
        }
        if event != "message" || data.trim().is_empty() {
            // Priming events (an id and no data) and unknown event types carry no message.
            return;
        }
        match Message::parse_all(data.as_bytes()) {
            Ok(messages) => {
                for message in messages {
                    self.handle_message(message, Some(exchange), now_ms);
                }
            }
            Err(e) => {
                // Only a stream dedicated to one request can blame it; on shared streams the
                // request will time out instead.
                if let Some(Purpose::Request(id) | Purpose::Resume(id)) = purpose {
                    let url = self.url_string();
                    let error = ClientError::Protocol {
                        url,
                        message: format!("malformed JSON-RPC message: {e}"),
                    };
                    self.fail_pending(&id, exchange, error, now_ms);
                    self.abort_exchange(Some(exchange));
                }
            }
        }
    }

    fn legacy_endpoint(&mut self, data: &str, now_ms: u64) {
        if !matches!(self.conn, Conn::Opening { .. }) {
            return;
        }
        let resolved = match &self.url {
            Ok(base) => base.join(data.trim()).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match resolved {
            Ok(post_url) => {
                self.legacy_post_url = Some(post_url.to_string());
                self.send_initialize(now_ms);
            }
            Err(message) => {
                let url = self.url_string();
                let error = ClientError::Protocol {
                    url,
                    message: format!("bad `endpoint` event: {message}"),
                };
                self.handshake_failed(error, None, now_ms);
            }
        }
    }

    fn handle_message(&mut self, message: Message, source: Option<ExchangeId>, now_ms: u64) {
        match message {
            Message::Response(response) => self.answer(&response.id, Ok(response.result), now_ms),
            Message::Error(error) => match error.id {
                Some(id) => self.answer(&id, Err(error.error), now_ms),
                None => {
                    // An error without an id can only be attributed to a dedicated stream.
                    let purpose = source
                        .and_then(|s| self.exchanges.get(&s))
                        .map(|e| e.purpose.clone());
                    if let Some(Purpose::Request(id) | Purpose::Resume(id)) = purpose {
                        self.answer(&id, Err(error.error), now_ms);
                    }
                }
            },
            Message::Request(request) => {
                let result = match request.method.as_str() {
                    "ping" => Ok(json!({})),
                    other => Err(ErrorObject::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        format!("method not found: {other} (this client offers no sampling, elicitation or roots)"),
                    )),
                };
                self.reply(request.id, result);
            }
            Message::Notification(notification) => self.handle_notification(notification, now_ms),
        }
    }

    fn handle_notification(&mut self, n: Notification, now_ms: u64) {
        let params = n.params.unwrap_or(Value::Null);
        match n.method.as_str() {
            "notifications/progress" => {
                let token = match params.get("progressToken") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => return,
                };
                let Some(&call) = self.progress_tokens.get(&token) else {
                    return;
                };
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
                    return;
                };
                let total = params.get("total").and_then(Value::as_f64);
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.extend_deadline(call, now_ms);
                self.events.push_back(SessionEvent::Progress {
                    call,
                    progress,
                    total,
                    message,
                });
            }
            "notifications/tools/list_changed" => {
                self.tools.invalidate();
                self.events
                    .push_back(SessionEvent::ListChanged(ListKind::Tools));
            }
            "notifications/prompts/list_changed" => self
                .events
                .push_back(SessionEvent::ListChanged(ListKind::Prompts)),
            "notifications/resources/list_changed" => {
                self.events
                    .push_back(SessionEvent::ListChanged(ListKind::Resources));
            }
            "notifications/message" => {
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned();
                let logger = params
                    .get("logger")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                self.events.push_back(SessionEvent::Log {
                    level,
                    logger,
                    data,
                });
            }
            // The server cancelling one of its requests to us: we answer them at once.
            "notifications/cancelled" => {}
            _ => {
                let params = (!params.is_null()).then_some(params);
                self.events.push_back(SessionEvent::Notification {
                    method: n.method,
                    params,
                });
            }
        }
    }

    /// Progress resets a call's timeout (the spec allows it), up to `max_call_ms` in all.
    fn extend_deadline(&mut self, call: CallId, now_ms: u64) {
        let Some(c) = self.calls.get(&call) else {
            return;
        };
        let CallState::InFlight(rpc) = c.state else {
            return;
        };
        let cap = c.submitted_at.saturating_add(self.cfg.max_call_ms);
        if let Some(rpc) = self.rpcs.get_mut(&rpc) {
            rpc.deadline = rpc.deadline.max((now_ms + rpc.timeout_ms).min(cap));
        }
    }

    /// An answer (result or error) to one of our requests arrived.
    fn answer(&mut self, id: &RequestId, outcome: Result<Value, ErrorObject>, now_ms: u64) {
        let RequestId::Number(n) = id else { return };
        let Some(rpc) = self.rpcs.remove(n) else {
            return;
        };
        // The stream that was to carry this answer has nothing more to say (a GET resuming it
        // may stay open forever otherwise); free its connection.
        self.abort_exchange(rpc.exchange);
        match rpc.owner {
            Owner::Handshake => self.initialized(outcome, now_ms),
            Owner::Call(call) => self.call_answered(call, outcome, now_ms),
        }
    }

    fn initialized(&mut self, outcome: Result<Value, ErrorObject>, now_ms: u64) {
        let url = self.url_string();
        let result = match outcome {
            Ok(result) => result,
            Err(error) => {
                let error = ClientError::Rpc {
                    method: "initialize".to_owned(),
                    code: error.code,
                    message: error.message,
                    data: error.data,
                };
                self.handshake_failed(error, None, now_ms);
                return;
            }
        };
        let Some(version) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            let error = ClientError::Protocol {
                url,
                message: "the initialize result has no protocolVersion".to_owned(),
            };
            self.handshake_failed(error, None, now_ms);
            return;
        };
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
            // The spec says to disconnect: end the server's session before giving up.
            if self.session_id.is_some() {
                let headers = self.headers(HeaderKind::Delete);
                self.send(
                    Purpose::Delete,
                    HttpMethod::Delete,
                    url.clone(),
                    headers,
                    None,
                    false,
                );
            }
            self.handshake_failed(
                ClientError::UnsupportedProtocolVersion {
                    url,
                    received: version,
                },
                None,
                now_ms,
            );
            return;
        }
        let Some(transport) = self.handshake.as_ref().map(|h| h.transport) else {
            return;
        };
        let server_info = result
            .get("serverInfo")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| Implementation::new("unknown", ""));
        self.info = Some(ServerInfo {
            protocol_version: version.clone(),
            server_info,
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
            transport,
        });
        self.protocol_version = Some(version);
        let body =
            Message::Notification(Notification::new("notifications/initialized", None)).to_json();
        let exchange = self.post(Purpose::Notify { initialized: true }, body);
        self.conn = Conn::Confirming {
            exchange,
            deadline: now_ms + self.timeout_ms(),
        };
    }

    fn become_ready(&mut self, now_ms: u64) {
        let Some(handshake) = self.handshake.take() else {
            return;
        };
        self.transport = Some(handshake.transport);
        self.conn = Conn::Ready;
        if let Some(info) = &self.info {
            self.events.push_back(SessionEvent::Connected(info.clone()));
        }
        if self.cfg.listen
            && !self.listen_unsupported
            && handshake.transport == Transport::Streamable
        {
            self.open_listen();
        }
        self.pump(now_ms);
    }

    fn open_listen(&mut self) {
        if self.conn != Conn::Ready || self.transport != Some(Transport::Streamable) {
            self.listen = Listen::Off;
            return;
        }
        let url = self.url_string();
        let headers = self.headers(HeaderKind::Stream {
            last_event_id: self.listen_last_event_id.as_deref(),
        });
        let exchange = self.send(Purpose::Listen, HttpMethod::Get, url, headers, None, true);
        self.listen = Listen::Open(exchange);
    }

    /// The GET stream ended or failed: reconnect after the server's `retry:` delay (or with
    /// backoff after failures), and give up after a few failures in a row.
    fn listen_closed(&mut self, decoder: Option<&SseDecoder>, failed: bool, now_ms: u64) {
        if let Some(decoder) = decoder {
            if let Some(id) = decoder.last_event_id() {
                self.listen_last_event_id = Some(id.to_owned());
            }
            if let Some(retry) = decoder.retry_ms() {
                self.listen_retry_ms = Some(retry);
            }
        }
        if failed {
            self.listen_failures += 1;
        }
        if self.listen_failures >= 5 || self.conn != Conn::Ready {
            self.listen = Listen::Disabled;
            return;
        }
        let delay = if failed {
            self.cfg
                .retry
                .delay_ms(self.listen_failures + 1, self.jitter.next_unit())
        } else {
            self.listen_retry_ms
                .unwrap_or(self.cfg.default_reconnect_ms)
        };
        self.listen = Listen::Waiting {
            until: now_ms + delay,
        };
    }

    /// A POST's event stream (or a GET resuming it) ended without the answer.
    fn stream_ended(
        &mut self,
        id: &RequestId,
        exchange: ExchangeId,
        decoder: &SseDecoder,
        reason: &str,
        now_ms: u64,
    ) {
        let default_reconnect = self.cfg.default_reconnect_ms;
        let max_resumptions = self.cfg.max_resumptions;
        let streamable = self.transport_in_use() == Some(Transport::Streamable);
        let Some(rpc) = self.rpc_of_mut(id) else {
            return;
        };
        if rpc.exchange != Some(exchange) {
            return;
        }
        if let Some(last) = decoder.last_event_id() {
            rpc.last_event_id = Some(last.to_owned());
        }
        if let Some(retry) = decoder.retry_ms() {
            rpc.retry_ms = Some(retry);
        }
        if streamable && rpc.last_event_id.is_some() && rpc.resumptions < max_resumptions {
            // SEP-1699: a server may close the connection to make the client poll; the client
            // MUST wait the `retry:` delay, then resume with GET + Last-Event-ID.
            rpc.exchange = None;
            rpc.resume_at = Some(now_ms + rpc.retry_ms.unwrap_or(default_reconnect));
            return;
        }
        let error = ClientError::Connection {
            url: self.url_string(),
            message: reason.to_owned(),
        };
        self.fail_pending(id, exchange, error, now_ms);
    }

    fn resume(&mut self, id: i64) {
        let Some(rpc) = self.rpcs.get(&id) else {
            return;
        };
        let last = rpc.last_event_id.clone();
        let url = self.url_string();
        let headers = self.headers(HeaderKind::Stream {
            last_event_id: last.as_deref(),
        });
        let exchange = self.send(
            Purpose::Resume(RequestId::Number(id)),
            HttpMethod::Get,
            url,
            headers,
            None,
            true,
        );
        self.stats.resumptions += 1;
        if let Some(rpc) = self.rpcs.get_mut(&id) {
            rpc.resume_at = None;
            rpc.resumptions += 1;
            rpc.exchange = Some(exchange);
        }
    }

    /// Fails the request `id` if `exchange` is still the one carrying its answer.
    fn fail_pending(
        &mut self,
        id: &RequestId,
        exchange: ExchangeId,
        error: ClientError,
        now_ms: u64,
    ) {
        let RequestId::Number(n) = id else { return };
        if self
            .rpcs
            .get(n)
            .is_none_or(|r| r.exchange != Some(exchange))
        {
            return;
        }
        let Some(rpc) = self.rpcs.remove(n) else {
            return;
        };
        self.fail_rpc(rpc.owner, error, None, now_ms);
    }

    fn exchange_failed(&mut self, exchange: ExchangeId, error: ClientError, now_ms: u64) {
        let Some(ex) = self.exchanges.remove(&exchange) else {
            return;
        };
        self.actions.push_back(Action::Abort(exchange));
        match ex.purpose {
            Purpose::Request(id) | Purpose::Resume(id) => match ex.body {
                // A stream that breaks after an event id can be resumed, like a closed one.
                Body::Sse(decoder) if matches!(error, ClientError::Connection { .. }) => {
                    let reason = match &error {
                        ClientError::Connection { message, .. } => message.clone(),
                        other => other.to_string(),
                    };
                    self.stream_ended(&id, exchange, &decoder, &reason, now_ms);
                }
                _ => {
                    if self
                        .rpc_of(&id)
                        .is_some_and(|r| r.exchange == Some(exchange))
                    {
                        self.fail_pending(&id, exchange, error, now_ms);
                    }
                }
            },
            Purpose::Notify { initialized: true } => {
                if matches!(self.conn, Conn::Confirming { exchange: e, .. } if e == exchange) {
                    self.handshake_failed(error, None, now_ms);
                }
            }
            Purpose::Listen => {
                let decoder = match ex.body {
                    Body::Sse(decoder) => Some(decoder),
                    _ => None,
                };
                self.listen_closed(decoder.as_ref(), true, now_ms);
            }
            Purpose::LegacyStream => self.legacy_stream_lost(error, now_ms),
            Purpose::Notify { initialized: false } | Purpose::Reply | Purpose::Delete => {}
        }
        self.pump(now_ms);
    }

    /// The legacy transport's stream is the session: losing it loses every pending answer.
    fn legacy_stream_lost(&mut self, error: ClientError, now_ms: u64) {
        if matches!(
            self.conn,
            Conn::Opening { .. } | Conn::Initializing { .. } | Conn::Confirming { .. }
        ) {
            let rpcs: Vec<i64> = self
                .rpcs
                .iter()
                .filter(|(_, r)| r.owner == Owner::Handshake)
                .map(|(id, _)| *id)
                .collect();
            for id in rpcs {
                self.rpcs.remove(&id);
            }
            self.handshake_failed(error, None, now_ms);
            return;
        }
        self.conn = Conn::Down;
        self.reset_session();
        let pending: Vec<i64> = self.rpcs.keys().copied().collect();
        for id in pending {
            if let Some(rpc) = self.rpcs.remove(&id) {
                self.fail_rpc(rpc.owner, error.clone(), None, now_ms);
            }
        }
    }

    fn session_expired(&mut self, owner: Owner, generation: u64, now_ms: u64) {
        let Owner::Call(call) = owner else {
            let error = ClientError::SessionExpired {
                url: self.url_string(),
            };
            self.handshake_failed(error, None, now_ms);
            return;
        };
        if generation == self.generation && self.conn == Conn::Ready {
            // MUST start a new session with a new InitializeRequest (transports §session management).
            self.stats.reinitializations += 1;
            self.conn = Conn::Down;
            self.reset_session();
        }
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        if c.reinitialized {
            let error = ClientError::SessionExpired {
                url: self.url_string(),
            };
            self.complete_call(call, Err(error), now_ms);
            return;
        }
        // The server refused the request without running it, so even a tool call is safe to
        // send again, once.
        c.reinitialized = true;
        c.state = CallState::Queued;
        self.queue.push_front(call);
        self.pump(now_ms);
    }

    fn fail_rpc(
        &mut self,
        owner: Owner,
        error: ClientError,
        retry_after_ms: Option<u64>,
        now_ms: u64,
    ) {
        match owner {
            Owner::Handshake => self.handshake_failed(error, retry_after_ms, now_ms),
            Owner::Call(call) => self.call_failed(call, error, retry_after_ms, now_ms),
        }
    }

    fn handshake_failed(&mut self, error: ClientError, retry_after_ms: Option<u64>, now_ms: u64) {
        let auto = self.cfg.server.transport == TransportKind::Auto && self.transport.is_none();
        let jitter = self.jitter.next_unit();
        let Some(hs) = self.handshake.as_mut() else {
            return;
        };
        // Backwards compatibility (transports §backwards compatibility): a POST of
        // InitializeRequest failing with 400, 404 or 405 means an old HTTP+SSE server may be
        // there; try GET for its `endpoint` event.
        if auto
            && hs.transport == Transport::Streamable
            && matches!(
                error,
                ClientError::Http {
                    status: 400 | 404 | 405,
                    ..
                }
            )
        {
            hs.transport = Transport::Legacy;
            hs.streamable_error = Some(error);
            self.begin_attempt(now_ms);
            return;
        }
        let error = match hs.streamable_error.take() {
            // The legacy attempt was a guess; if it did not work, the POST's answer says more.
            Some(first) if !error.is_transient() && !matches!(error, ClientError::Auth { .. }) => {
                first
            }
            Some(first) => {
                hs.streamable_error = Some(first);
                error
            }
            None => error,
        };
        if error.is_transient() {
            let next = hs.attempt + 1;
            if let Some(at) = self.cfg.retry.next_attempt_at(
                next,
                hs.first_try_at,
                now_ms,
                jitter,
                retry_after_ms,
            ) {
                hs.attempt = next;
                self.stats.retries += 1;
                self.conn = Conn::Backoff { until: at };
                self.reset_session();
                return;
            }
        }
        let attempts = hs.attempt;
        self.handshake = None;
        self.conn = Conn::Down;
        self.reset_session();
        let error = if attempts > 1 {
            ClientError::RetriesExhausted {
                method: "initialize".to_owned(),
                attempts,
                last: Box::new(error),
            }
        } else {
            error
        };
        // Calls waiting for this session cannot proceed; calls waiting to retry will start a
        // new handshake when their time comes.
        let waiting: Vec<CallId> = self.queue.drain(..).collect();
        for call in waiting {
            self.complete_call(call, Err(error.clone()), now_ms);
        }
    }

    fn call_failed(
        &mut self,
        call: CallId,
        error: ClientError,
        retry_after_ms: Option<u64>,
        now_ms: u64,
    ) {
        let jitter = self.jitter.next_unit();
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let error = match (&c.op, &error) {
            // Sent, and no answer: the tool may have run. Never retried (seed 003, and the
            // exactly-once ledger upstream depends on it).
            (
                Operation::CallTool { name, .. },
                ClientError::Connection { .. } | ClientError::Timeout { .. },
            ) => ClientError::OutcomeUnknown {
                tool: name.clone(),
                reason: error.to_string(),
            },
            _ => error,
        };
        if c.op.is_idempotent() && error.is_transient() {
            let next = c.attempt + 1;
            if let Some(at) =
                self.cfg
                    .retry
                    .next_attempt_at(next, c.first_try_at, now_ms, jitter, retry_after_ms)
            {
                c.attempt = next;
                c.state = CallState::Backoff { until: at };
                self.stats.retries += 1;
                return;
            }
        }
        let error = if c.attempt > 1 {
            ClientError::RetriesExhausted {
                method: c.op.method().to_owned(),
                attempts: c.attempt,
                last: Box::new(error),
            }
        } else {
            error
        };
        self.complete_call(call, Err(error), now_ms);
    }

    fn call_answered(&mut self, call: CallId, outcome: Result<Value, ErrorObject>, now_ms: u64) {
        let url = self.url_string();
        let max_pages = self.cfg.max_pages;
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let mut result = match outcome {
            Ok(result) => result,
            Err(e) => {
                let error = match &c.op {
                    Operation::CallTool { name, .. } => ClientError::Tool {
                        tool: name.clone(),
                        code: e.code,
                        message: e.message,
                        data: e.data,
                    },
                    op => ClientError::Rpc {
                        method: op.method().to_owned(),
                        code: e.code,
                        message: e.message,
                        data: e.data,
                    },
                };
                self.complete_call(call, Err(error), now_ms);
                return;
            }
        };
        let Some(key) = c.op.list_key() else {
            let output = read_output(&c.op, result)
                .map_err(|message| ClientError::Protocol { url, message });
            self.complete_call(call, output, now_ms);
            return;
        };
        let (items, cursor) = match read_page(key, &mut result) {
            Ok(page) => page,
            Err(message) => {
                self.complete_call(call, Err(ClientError::Protocol { url, message }), now_ms);
                return;
            }
        };
        c.pages.items.extend(items);
        c.pages.count += 1;
        match cursor.filter(|c| !c.is_empty()) {
            Some(cursor) => {
                let problem = if c.pages.seen_cursors.contains(&cursor) {
                    Some(format!(
                        "the server repeated the cursor {cursor:?}; stopped to avoid a loop"
                    ))
                } else if c.pages.count >= max_pages {
                    Some(format!("more than {max_pages} pages of {key}; stopped"))
                } else {
                    None
                };
                if let Some(message) = problem {
                    self.complete_call(call, Err(ClientError::Protocol { url, message }), now_ms);
                    return;
                }
                c.pages.seen_cursors.push(cursor.clone());
                c.pages.cursor = Some(cursor);
                c.attempt = 1;
                c.first_try_at = now_ms;
                self.send_call(call, now_ms);
            }
            None => {
                let items = Value::Array(std::mem::take(&mut c.pages.items));
                let generation = c.cache_generation;
                let output = read_output(&c.op, items)
                    .map_err(|message| ClientError::Protocol { url, message });
                if let Ok(Output::Tools(tools)) = &output {
                    self.tools.store(tools.clone(), now_ms, generation);
                }
                self.complete_call(call, output, now_ms);
            }
        }
    }

    fn complete_call(&mut self, call: CallId, result: Result<Output, ClientError>, now_ms: u64) {
        let Some(c) = self.calls.remove(&call) else {
            return;
        };
        if let Some(token) = c.progress_token {
            self.progress_tokens.remove(&token);
        }
        if c.state == CallState::Queued {
            self.queue.retain(|q| *q != call);
        }
        self.events
            .push_back(SessionEvent::Completed { call, result });
        self.pump(now_ms);
    }

    fn http_error(&self, head: &ResponseHead, body: &[u8]) -> ClientError {
        let url = self.url_string();
        let text = String::from_utf8_lossy(body);
        if head.status == 401 || head.status == 403 {
            let loopback = self.url.as_ref().is_ok_and(HttpUrl::is_loopback);
            let www_authenticate = head.header("www-authenticate").map(str::to_owned);
            return ClientError::Auth {
                url,
                status: head.status,
                loopback,
                www_authenticate,
            };
        }
        // Servers often explain a 4xx with a JSON-RPC error; its message is the useful part.
        let body = match Message::parse_all(body) {
            Ok(messages) => messages
                .into_iter()
                .find_map(|m| match m {
                    Message::Error(e) => Some(e.error.message),
                    _ => None,
                })
                .unwrap_or_else(|| text.into_owned()),
            Err(_) => text.into_owned(),
        };
        ClientError::Http {
            url,
            status: head.status,
            body,
            retry_after_ms: head.retry_after_ms(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum HeaderKind<'a> {
    Post,
    Stream { last_event_id: Option<&'a str> },
    Delete,
}

/// A 404 to a request that carried a session id means the session is gone (transports §session
/// management). Some servers (server-everything) answer 400 "No valid session ID" instead.
/// On the legacy transport the session lives in the POST URL, so a 404 there means the same.
fn is_session_expired(head: &ResponseHead, body: &[u8], had_session: bool) -> bool {
    if !had_session {
        return false;
    }
    head.status == 404
        || (head.status == 400
            && String::from_utf8_lossy(body)
                .to_ascii_lowercase()
                .contains("session"))
}
