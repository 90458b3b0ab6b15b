//! The sessions of every configured server, sans IO: a [`Pool`] holds one [`Session`] per server
//! and makes every decision a multi-server client makes, so the driver (relay-wasm's `McpClient`
//! over `fetch`, or a test harness) only performs what it is told.
//!
//! Events in: an operation submitted for a server ([`Pool::submit`]), a cancellation by key
//! ([`Pool::cancel`]), servers added, replaced or removed ([`Pool::set_servers`],
//! [`Pool::add_server`], [`Pool::remove_server`]), the response of an exchange (head, body
//! chunks, end, failure: `handle_*`), the clock reaching [`Pool::poll_timeout`]
//! ([`Pool::handle_timeout`]). Actions out ([`Pool::poll_action`]): start or abort an HTTP
//! exchange, complete an operation, report progress, pass on what a server said.
//!
//! Exchange ids are the pool's own (unique across servers), so a response of a server that was
//! removed, or re-added under the same id, never reaches the wrong session: such a response is
//! "not wanted" (`handle_*` return `false`) and the driver stops reading it. Sessions are
//! created once per server and reused: one `initialize` serves every later call.

use std::collections::VecDeque;

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::ClientError;
use super::http::{Action, ExchangeId, HttpRequest, ResponseHead};
use super::jsonrpc::{ErrorObject, RequestId};
use super::ops::{Operation, Output};
use super::retry::RetryPolicy;
use super::session::{
    CallId, ProtocolMode, ServerInfo, Session, SessionConfig, SessionEvent, SessionSnapshot,
    SessionStats, Transport,
};
use super::wire_log::{Secrets, WireEntry, WireLog};
use super::ServerConfig;
use crate::model::{CallToolResult, Implementation, LogLevel, Tool};

/// Client-wide settings; every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct PoolOptions {
    /// Requests in flight per server (seed 003: 5).
    pub max_concurrent: usize,
    /// Open the optional GET stream for server notifications (`list_changed`...).
    pub listen: bool,
    pub tools_ttl_ms: u64,
    pub max_attempts: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
    pub budget_ms: u64,
    pub client_name: String,
    pub client_version: String,
    /// Declare elicitation and pass servers' requests on ([`SessionEvent::Request`]).
    pub elicitation: bool,
    /// Declare MCP Apps (`io.modelcontextprotocol/ui`): servers then offer their tools'
    /// interfaces, which the host must render.
    pub apps: bool,
    /// Declare skills (`io.modelcontextprotocol/skills`): servers then list their skills.
    pub skills: bool,
    /// Declare tasks (`io.modelcontextprotocol/tasks`): calls answered with a task are polled.
    pub tasks: bool,
    /// The log level to ask servers for (none: no log messages are asked for).
    pub log_level: Option<LogLevel>,
}

impl PoolOptions {
    /// These options with elicitation declared.
    pub fn with_elicitation(mut self) -> Self {
        self.elicitation = true;
        self
    }

    /// These options with MCP Apps declared.
    pub fn with_apps(mut self) -> Self {
        self.apps = true;
        self
    }

    /// These options with skills declared.
    pub fn with_skills(mut self) -> Self {
        self.skills = true;
        self
    }

    /// These options with tasks declared.
    pub fn with_tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// What the browser extension declares: elicitation (the side panel asks the user), MCP
    /// Apps (the side panel renders them), skills (loaded into chats on demand) and tasks
    /// (polled, and resumed after a restart).
    pub fn browser() -> Self {
        PoolOptions::default()
            .with_elicitation()
            .with_apps()
            .with_skills()
            .with_tasks()
    }
}

impl Default for PoolOptions {
    fn default() -> Self {
        let retry = RetryPolicy::default();
        PoolOptions {
            max_concurrent: 5,
            listen: true,
            tools_ttl_ms: super::cache::DEFAULT_TOOLS_TTL_MS,
            max_attempts: retry.max_attempts,
            base_delay_ms: retry.base_delay_ms,
            max_delay_ms: retry.max_delay_ms,
            budget_ms: retry.budget_ms,
            client_name: "mcp-relay".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            elicitation: false,
            apps: false,
            skills: false,
            tasks: false,
            log_level: None,
        }
    }
}

/// Handle of an operation submitted to the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u64);

/// Progress of a call, as `notifications/progress` reported it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Progress {
    pub progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What the side panel shows about a server's connection.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerStatus {
    pub id: String,
    pub enabled: bool,
    pub connected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<ServerInfo>,
    /// What the server was found to speak, once a handshake worked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ProtocolMode>,
    pub stats: SessionStats,
}

/// Something the driver must do.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PoolAction {
    /// Perform this request (`request.exchange` is the pool's id for it).
    Send(HttpRequest),
    /// Abort this exchange; the pool wants nothing more of it.
    Abort(ExchangeId),
    /// An operation finished.
    Complete {
        op: OpId,
        result: Result<Output, ClientError>,
    },
    /// Progress of an operation submitted with progress.
    Progress { op: OpId, progress: Progress },
    /// Anything else a server said (connected, `list_changed`, logs, notifications).
    Event { server: String, event: SessionEvent },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SlotKey {
    id: String,
    /// Distinguishes a server re-added under the same id from its predecessor.
    serial: u64,
}

#[derive(Debug)]
struct Slot {
    serial: u64,
    session: Session,
    /// The server's protocol log.
    log: WireLog,
    ops: SortedMap<CallId, OpId>,
    /// Session exchange id → pool exchange id, for exchanges still wanted.
    exchanges: SortedMap<ExchangeId, ExchangeId>,
}

/// The sessions of every server. See the module documentation.
#[derive(Debug)]
pub struct Pool {
    options: PoolOptions,
    seed: u64,
    slots: SortedMap<String, Slot>,
    next_serial: u64,
    next_op: u64,
    next_exchange: u64,
    /// Pool exchange id → (server, session exchange id).
    exchanges: SortedMap<ExchangeId, (SlotKey, ExchangeId)>,
    /// Operation → its server, and its cancellation key.
    ops: SortedMap<OpId, (SlotKey, CallId, Option<String>)>,
    cancel_keys: SortedMap<String, OpId>,
    actions: VecDeque<PoolAction>,
    /// The latest time any input brought (the protocol log's clock).
    clock_ms: u64,
}

/// What a server's protocol log must never show: its secret header values (and their
/// credentials after an auth scheme) and its sign-in token.
fn secrets_of(session: &Session) -> Secrets<'_> {
    let server = &session.config().server;
    let mut values = Vec::new();
    let headers = (server.headers.iter()).filter(|(k, _)| server.is_secret_header(k));
    for value in headers
        .map(|(_, v)| v.as_str())
        .chain(session.authorization())
    {
        values.push(value);
        if let Some((_, credential)) = value.split_once(' ') {
            values.push(credential.trim());
        }
    }
    Secrets {
        values,
        header_names: &server.secret_headers,
    }
}

/// The error of an operation whose server was removed while it waited.
fn removed() -> ClientError {
    ClientError::Cancelled {
        method: "request".to_owned(),
        reason: "the server was removed".to_owned(),
    }
}

impl Pool {
    /// A pool with no servers. `seed` varies the retry jitter between clients (any number; a
    /// random one in the browser), so clients that failed together do not retry together.
    pub fn new(options: PoolOptions, seed: u64) -> Self {
        Pool {
            options,
            seed,
            slots: SortedMap::new(),
            next_serial: 0,
            next_op: 0,
            next_exchange: 0,
            exchanges: SortedMap::new(),
            ops: SortedMap::new(),
            cancel_keys: SortedMap::new(),
            actions: VecDeque::new(),
            clock_ms: 0,
        }
    }

    fn session_config(&self, server: ServerConfig, serial: u64) -> SessionConfig {
        let o = &self.options;
        let mut cfg = SessionConfig::new(server);
        cfg.client_info = Implementation::new(o.client_name.clone(), o.client_version.clone());
        cfg.retry = RetryPolicy::new(
            o.max_attempts.max(1),
            o.base_delay_ms,
            o.max_delay_ms,
            o.budget_ms,
        );
        cfg.max_concurrent = o.max_concurrent.max(1);
        cfg.listen = o.listen;
        cfg.elicitation = o.elicitation;
        cfg.apps = o.apps;
        cfg.skills = o.skills;
        cfg.tasks = o.tasks;
        cfg.log_level = o.log_level;
        cfg.tools_ttl_ms = o.tools_ttl_ms;
        cfg.jitter_seed = self.seed ^ serial.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        cfg
    }

    /// Next thing for the driver to do.
    pub fn poll_action(&mut self) -> Option<PoolAction> {
        self.actions.pop_front()
    }

    /// Makes the configured servers exactly `servers`: new ones are added, removed ones get
    /// their session deleted, changed ones start over. Unchanged ones keep their session.
    pub fn set_servers(&mut self, servers: Vec<ServerConfig>) {
        let stale: Vec<String> = self
            .slots
            .iter()
            .filter(|(id, slot)| {
                !servers
                    .iter()
                    .any(|s| &s.id == *id && *s == slot.session.config().server)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in stale {
            self.remove_server(&id);
        }
        for server in servers {
            if !self.slots.contains_key(&server.id) {
                self.add_server(server);
            }
        }
    }

    /// Adds (or replaces) one server.
    pub fn add_server(&mut self, server: ServerConfig) {
        // A server's protocol log outlives an edit of its settings.
        let log = (self.slots.get_mut(&server.id)).map(|s| std::mem::take(&mut s.log));
        self.remove_server(&server.id);
        self.next_serial += 1;
        let serial = self.next_serial;
        let session = Session::new(self.session_config(server.clone(), serial));
        let slot = Slot {
            serial,
            session,
            log: log.unwrap_or_default(),
            ops: SortedMap::new(),
            exchanges: SortedMap::new(),
        };
        self.slots.insert(server.id, slot);
    }

    /// A server's configuration as the client uses it.
    pub fn server(&self, id: &str) -> Option<&ServerConfig> {
        self.slots.get(id).map(|slot| &slot.session.config().server)
    }

    /// Removes a server: pending operations are cancelled and its session is deleted (HTTP
    /// DELETE, whose answer nobody wants). Returns whether it existed.
    pub fn remove_server(&mut self, id: &str) -> bool {
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        slot.session.shutdown("the server was removed");
        self.pump(id);
        let Some(slot) = self.slots.remove(id) else {
            return true;
        };
        for exchange in slot.exchanges.values() {
            self.exchanges.remove(exchange);
        }
        // Whatever the session did not settle is settled here.
        for op in slot.ops.values() {
            self.finish(*op, Err(removed()));
        }
        true
    }

    /// Puts an `Authorization` value (MCP authorization's bearer token) on a server's requests,
    /// in place of a configured one, or takes it off; the session goes on. Returns whether the
    /// server exists.
    pub fn set_authorization(&mut self, id: &str, value: Option<String>) -> bool {
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        slot.session.set_authorization(value);
        true
    }

    /// The cancellation key an operation of `server` was submitted with, by the session's call
    /// (what a [`SessionEvent::Request`] names): the caller's own name for the operation.
    pub fn call_key(&self, server: &str, call: CallId) -> Option<String> {
        let op = self.slots.get(server)?.ops.get(&call)?;
        self.ops.get(op)?.2.clone()
    }

    /// Answers a server's request ([`SessionEvent::Request`]); false when the server is gone.
    pub fn respond(
        &mut self,
        id: &str,
        request: RequestId,
        result: Result<Value, ErrorObject>,
        now_ms: u64,
    ) -> bool {
        self.clock_ms = self.clock_ms.max(now_ms);
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        slot.session.respond(request, result, now_ms);
        self.pump(id);
        true
    }

    /// Starts a server's session from what it was found to speak before (see
    /// [`Session::remember_protocol_mode`]); false when the server is gone.
    pub fn remember_protocol_mode(&mut self, id: &str, mode: ProtocolMode) -> bool {
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        slot.session.remember_protocol_mode(Some(mode));
        true
    }

    /// Knows a server's tools from an earlier run for their definitions (which calls ask for a
    /// task, which arguments go into headers) until they are listed again; false when the
    /// server is gone.
    pub fn remember_tools(&mut self, id: &str, tools: Vec<crate::model::Tool>) -> bool {
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        slot.session.remember_tools(tools);
        true
    }

    /// A server's session as it is now, to take up again after a restart
    /// ([`Session::snapshot`]).
    pub fn snapshot(&self, id: &str) -> Option<SessionSnapshot> {
        self.slots.get(id)?.session.snapshot()
    }

    /// Goes on in a server's earlier session instead of starting one ([`Session::adopt`]);
    /// false when the server is gone or its session is under way already.
    pub fn adopt(&mut self, id: &str, snapshot: SessionSnapshot) -> bool {
        let now = self.clock_ms;
        let Some(slot) = self.slots.get_mut(id) else {
            return false;
        };
        let adopted = slot.session.adopt(snapshot, now);
        self.pump(id);
        adopted
    }

    /// Ends every session (DELETE) and removes all servers.
    pub fn close(&mut self) {
        let ids: Vec<String> = self.slots.keys().cloned().collect();
        for id in ids {
            self.remove_server(&id);
        }
    }

    /// Submits an operation to a server; it completes with [`PoolAction::Complete`] (at once
    /// for a cached tool list). `cancel_key` is a caller-chosen key [`Pool::cancel`] accepts.
    #[allow(clippy::result_large_err)] // ClientError carries the context a user needs.
    pub fn submit(
        &mut self,
        server_id: &str,
        op: Operation,
        cancel_key: Option<String>,
        now_ms: u64,
    ) -> Result<OpId, ClientError> {
        self.clock_ms = self.clock_ms.max(now_ms);
        let Some(slot) = self.slots.get_mut(server_id) else {
            return Err(ClientError::Config {
                message: format!("no server with id `{server_id}`"),
            });
        };
        if !slot.session.config().server.enabled {
            return Err(ClientError::Config {
                message: format!("server `{server_id}` is disabled"),
            });
        }
        self.next_op += 1;
        let id = OpId(self.next_op);
        let call = slot.session.submit(op, now_ms);
        slot.ops.insert(call, id);
        let key = SlotKey {
            id: server_id.to_owned(),
            serial: slot.serial,
        };
        if let Some(k) = &cancel_key {
            self.cancel_keys.insert(k.clone(), id);
        }
        self.ops.insert(id, (key, call, cancel_key));
        self.pump(server_id);
        Ok(id)
    }

    /// Cancels the operation submitted with `cancel_key`; returns whether one was pending.
    pub fn cancel(&mut self, cancel_key: &str, now_ms: u64) -> bool {
        self.clock_ms = self.clock_ms.max(now_ms);
        let Some(op) = self.cancel_keys.remove(cancel_key) else {
            return false;
        };
        let Some((key, call, _)) = self.ops.get(&op).cloned() else {
            return false;
        };
        let Some(slot) = self.slot(&key) else {
            return false;
        };
        slot.session.cancel(call, "cancelled by the user", now_ms);
        self.pump(&key.id);
        true
    }

    /// A server's protocol log, oldest first (secrets masked; `client::wire_log`).
    pub fn wire_log(&self, id: &str) -> Vec<WireEntry> {
        self.slots
            .get(id)
            .map(|s| s.log.entries())
            .unwrap_or_default()
    }

    /// Adds a log message of one of the server's MCP Apps to its protocol log (secrets masked
    /// like the server's own messages).
    pub fn note_app_log(&mut self, id: &str, text: &str, now_ms: u64) {
        if let Some(slot) = self.slots.get_mut(id) {
            let secrets = secrets_of(&slot.session);
            slot.log.app_log(text, &secrets, now_ms);
        }
    }

    /// Forgets a server's protocol log.
    pub fn clear_wire_log(&mut self, id: &str) {
        if let Some(slot) = self.slots.get_mut(id) {
            slot.log.clear();
        }
    }

    /// Status of every server.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.slots
            .iter()
            .map(|(id, slot)| ServerStatus {
                id: id.clone(),
                enabled: slot.session.config().server.enabled,
                connected: slot.session.is_ready(),
                transport: slot.session.transport(),
                info: slot.session.server_info().cloned(),
                protocol: slot.session.protocol_mode(),
                stats: slot.session.stats().clone(),
            })
            .collect()
    }

    /// The earliest time [`Pool::handle_timeout`] has something to do.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.slots
            .values()
            .filter_map(|s| s.session.poll_timeout())
            .min()
    }

    /// Runs whatever is due at `now_ms` in every session.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.clock_ms = self.clock_ms.max(now_ms);
        let due: Vec<String> = self
            .slots
            .iter()
            .filter(|(_, s)| s.session.poll_timeout().is_some_and(|at| at <= now_ms))
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            if let Some(slot) = self.slots.get_mut(&id) {
                slot.session.handle_timeout(now_ms);
            }
            self.pump(&id);
        }
    }

    /// The id of the server an exchange goes to (while the pool wants it).
    pub fn server_of(&self, exchange: ExchangeId) -> Option<&str> {
        self.exchanges
            .get(&exchange)
            .map(|(key, _)| key.id.as_str())
    }

    /// Whether the pool still wants the rest of this exchange's response.
    pub fn is_wanted(&self, exchange: ExchangeId) -> bool {
        self.exchanges.contains_key(&exchange)
    }

    /// The status and headers of an exchange's response; `false`: stop reading it.
    pub fn handle_response_head(
        &mut self,
        exchange: ExchangeId,
        head: ResponseHead,
        now_ms: u64,
    ) -> bool {
        if let Some((key, _)) = self.exchanges.get(&exchange).cloned() {
            let content_type = head.header("content-type").map(str::to_owned);
            if let Some(slot) = self.slot(&key) {
                (slot.log).status(exchange.0, head.status, content_type.as_deref(), now_ms);
            }
        }
        self.with_session(exchange, false, now_ms, |s, x| {
            s.handle_response_head(x, head, now_ms)
        })
    }

    /// A chunk of an exchange's body; `false`: stop reading it.
    pub fn handle_body(&mut self, exchange: ExchangeId, chunk: &[u8], now_ms: u64) -> bool {
        self.with_session(exchange, false, now_ms, |s, x| {
            s.handle_body(x, chunk, now_ms)
        })
    }

    /// The end of an exchange's body. Always `false`: nothing more is wanted of it.
    pub fn handle_body_end(&mut self, exchange: ExchangeId, now_ms: u64) -> bool {
        self.with_session(exchange, true, now_ms, |s, x| s.handle_body_end(x, now_ms))
    }

    /// An exchange failed (no response, or its body broke off). Always `false`.
    pub fn handle_transport_error(
        &mut self,
        exchange: ExchangeId,
        message: &str,
        now_ms: u64,
    ) -> bool {
        if let Some((key, _)) = self.exchanges.get(&exchange).cloned() {
            if let Some(slot) = self.slot(&key) {
                let secrets = secrets_of(&slot.session);
                slot.log.failed(exchange.0, message, &secrets, now_ms);
            }
        }
        self.with_session(exchange, true, now_ms, |s, x| {
            s.handle_transport_error(x, message, now_ms)
        })
    }

    /// Hands a piece of a response to its session (when still wanted), then pumps it.
    fn with_session(
        &mut self,
        exchange: ExchangeId,
        last: bool,
        now_ms: u64,
        f: impl FnOnce(&mut Session, ExchangeId),
    ) -> bool {
        self.clock_ms = self.clock_ms.max(now_ms);
        let Some((key, inner)) = self.exchanges.get(&exchange).cloned() else {
            return false;
        };
        if last {
            self.exchanges.remove(&exchange);
        }
        let Some(slot) = self.slot(&key) else {
            self.exchanges.remove(&exchange);
            return false;
        };
        if last {
            slot.exchanges.remove(&inner);
        }
        f(&mut slot.session, inner);
        let received = slot.session.take_received();
        if !received.is_empty() {
            let secrets = secrets_of(&slot.session);
            for text in received {
                slot.log.received(exchange.0, &text, &secrets, now_ms);
            }
        }
        self.pump(&key.id);
        self.is_wanted(exchange)
    }

    fn slot(&mut self, key: &SlotKey) -> Option<&mut Slot> {
        self.slots
            .get_mut(&key.id)
            .filter(|s| s.serial == key.serial)
    }

    /// Moves what a session asked for and reported into the pool's actions.
    fn pump(&mut self, id: &str) {
        // Bounded: a session only produces output in answer to input.
        for _ in 0..100_000 {
            let Some(slot) = self.slots.get_mut(id) else {
                return;
            };
            let key = SlotKey {
                id: id.to_owned(),
                serial: slot.serial,
            };
            if let Some(action) = slot.session.poll_action() {
                match action {
                    Action::Send(mut request) => {
                        self.next_exchange += 1;
                        let outer = ExchangeId(self.next_exchange);
                        slot.exchanges.insert(request.exchange, outer);
                        self.exchanges.insert(outer, (key, request.exchange));
                        request.exchange = outer;
                        let secrets = secrets_of(&slot.session);
                        slot.log.sent(&request, &secrets, self.clock_ms);
                        self.actions.push_back(PoolAction::Send(request));
                    }
                    Action::Abort(inner) => {
                        if let Some(outer) = slot.exchanges.remove(&inner) {
                            self.exchanges.remove(&outer);
                            self.actions.push_back(PoolAction::Abort(outer));
                        }
                    }
                }
                continue;
            }
            let Some(event) = slot.session.poll_event() else {
                return;
            };
            match event {
                SessionEvent::Completed { call, result } => {
                    if let Some(op) = slot.ops.remove(&call) {
                        self.finish(op, result);
                    }
                }
                SessionEvent::Progress {
                    call,
                    progress,
                    total,
                    message,
                } => {
                    if let Some(op) = slot.ops.get(&call).copied() {
                        let progress = Progress {
                            progress,
                            total,
                            message,
                        };
                        self.actions
                            .push_back(PoolAction::Progress { op, progress });
                    }
                }
                event => self.actions.push_back(PoolAction::Event {
                    server: id.to_owned(),
                    event,
                }),
            }
        }
    }

    fn finish(&mut self, op: OpId, result: Result<Output, ClientError>) {
        if let Some((_, _, Some(key))) = self.ops.remove(&op) {
            if self.cancel_keys.get(&key) == Some(&op) {
                self.cancel_keys.remove(&key);
            }
        }
        self.actions.push_back(PoolAction::Complete { op, result });
    }
}

fn unexpected(output: Output) -> ClientError {
    ClientError::Protocol {
        url: String::new(),
        message: format!("unexpected output: {}", output.kind()),
    }
}

#[allow(clippy::result_large_err)] // ClientError carries the context a user needs.
impl Output {
    /// The tools of a `tools/list`.
    pub fn into_tools(self) -> Result<Vec<Tool>, ClientError> {
        match self {
            Output::Tools(tools) => Ok(tools),
            other => Err(unexpected(other)),
        }
    }

    /// The result of a `tools/call`.
    pub fn into_tool_result(self) -> Result<CallToolResult, ClientError> {
        match self {
            Output::ToolResult(result) => Ok(result),
            other => Err(unexpected(other)),
        }
    }
}

impl SessionEvent {
    /// The event as a driver's listener receives it: `{type: "connected" | "listChanged" |
    /// "log" | "notification" | "progress" | "completed", ...}`.
    pub fn to_json(&self) -> Value {
        match self {
            SessionEvent::Connected(info) => json!({"type": "connected", "info": info}),
            SessionEvent::ListChanged(list) => json!({"type": "listChanged", "list": list}),
            SessionEvent::Log {
                level,
                logger,
                data,
            } => json!({"type": "log", "level": level, "logger": logger, "data": data}),
            SessionEvent::Notification { method, params } => {
                json!({"type": "notification", "method": method, "params": params})
            }
            SessionEvent::Progress {
                progress,
                total,
                message,
                ..
            } => {
                json!({"type": "progress", "progress": progress, "total": total, "message": message})
            }
            SessionEvent::Completed { .. } => json!({"type": "completed"}),
            SessionEvent::TaskCreated { task_id, form, .. } => {
                json!({"type": "task", "taskId": task_id, "form": form})
            }
            SessionEvent::Request {
                id, method, params, ..
            } => {
                json!({"type": "request", "id": id, "method": method, "params": params})
            }
        }
    }
}
