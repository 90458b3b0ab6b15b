//! [`McpClient`]: the sessions of every configured server, driven over `fetch` and timers.
//!
//! One [`Session`] per server does the protocol (see `relay_core::client`); this module only
//! performs its HTTP requests, feeds responses back, arms one timer per session for its
//! deadlines, and turns completion events into resolved futures. Sessions are created lazily
//! and reused: one `initialize` per server serves every later call until the server drops it.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::{Rc, Weak};

use relay_core::client::{
    Action, CallId, ClientError, ExchangeId, HttpRequest, Operation, Output, RetryPolicy,
    ServerConfig, ServerInfo, Session, SessionConfig, SessionEvent, SessionStats, Transport,
};
use relay_core::model::{
    CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wasm_bindgen_futures::spawn_local;
use web_sys::AbortController;

use super::fetch;
use super::global::{now_ms, Timer};
use super::oneshot;

/// Client-wide settings; every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct ClientOptions {
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
}

impl Default for ClientOptions {
    fn default() -> Self {
        let retry = RetryPolicy::default();
        ClientOptions {
            max_concurrent: 5,
            listen: true,
            tools_ttl_ms: relay_core::client::cache::DEFAULT_TOOLS_TTL_MS,
            max_attempts: retry.max_attempts,
            base_delay_ms: retry.base_delay_ms,
            max_delay_ms: retry.max_delay_ms,
            budget_ms: retry.budget_ms,
            client_name: "mcp-relay".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

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

/// Receives progress of one call.
pub type ProgressFn = Rc<dyn Fn(&Progress)>;

/// Receives everything a server says that is not an answer: `(server id, event)`.
pub type EventFn = Rc<dyn Fn(&str, &SessionEvent)>;

/// Per-call options.
#[derive(Default, Clone)]
#[non_exhaustive]
pub struct CallOptions {
    pub on_progress: Option<ProgressFn>,
    /// A caller-chosen key that [`McpClient::cancel`] accepts.
    pub cancel_key: Option<String>,
}

impl CallOptions {
    /// Options with a progress callback and a cancellation key.
    pub fn new(on_progress: Option<ProgressFn>, cancel_key: Option<String>) -> Self {
        CallOptions {
            on_progress,
            cancel_key,
        }
    }
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
    pub stats: SessionStats,
}

#[derive(Clone, PartialEq, Eq)]
struct SlotKey {
    id: String,
    /// Distinguishes a server re-added under the same id from its predecessor, whose fetches
    /// may still call back.
    serial: u64,
}

struct Slot {
    serial: u64,
    session: Session,
    waiters: HashMap<CallId, oneshot::Sender<Result<Output, ClientError>>>,
    progress: HashMap<CallId, ProgressFn>,
    inflight: HashMap<ExchangeId, AbortController>,
    timer: Option<(u64, Timer)>,
}

#[derive(Default)]
struct Inner {
    options: ClientOptions,
    slots: BTreeMap<String, Slot>,
    next_serial: u64,
    cancel_keys: HashMap<String, (SlotKey, CallId)>,
    listener: Option<EventFn>,
}

impl Inner {
    fn slot(&mut self, key: &SlotKey) -> Option<&mut Slot> {
        self.slots
            .get_mut(&key.id)
            .filter(|s| s.serial == key.serial)
    }

    fn session_config(&self, server: ServerConfig) -> SessionConfig {
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
        cfg.tools_ttl_ms = o.tools_ttl_ms;
        // Jitter only has to differ between clients that failed together.
        cfg.jitter_seed = (js_sys::Math::random() * u64::MAX as f64) as u64;
        cfg
    }
}

/// The MCP client of the service worker (and of the Node host): many servers, one session
/// each. Cheap to clone; clones share the sessions.
#[derive(Clone, Default)]
pub struct McpClient {
    inner: Rc<RefCell<Inner>>,
}

enum Delivery {
    Head(relay_core::client::ResponseHead),
    Chunk(Vec<u8>),
    End,
    Error(String),
}

impl McpClient {
    /// A client with no servers.
    pub fn new(options: ClientOptions) -> Self {
        McpClient {
            inner: Rc::new(RefCell::new(Inner {
                options,
                ..Inner::default()
            })),
        }
    }

    /// Receives connection events, `list_changed`, logs and other notifications of all servers.
    pub fn set_event_listener(&self, listener: Option<EventFn>) {
        self.inner.borrow_mut().listener = listener;
    }

    /// Makes the configured servers exactly `servers`: new ones are added, removed ones get
    /// their session deleted, changed ones start over. Unchanged ones keep their session.
    pub fn set_servers(&self, servers: Vec<ServerConfig>) {
        let stale: Vec<String> = {
            let inner = self.inner.borrow();
            inner
                .slots
                .iter()
                .filter(|(id, slot)| {
                    !servers
                        .iter()
                        .any(|s| &s.id == *id && *s == slot.session.config().server)
                })
                .map(|(id, _)| id.clone())
                .collect()
        };
        for id in stale {
            self.remove_server(&id);
        }
        for server in servers {
            if !self.inner.borrow().slots.contains_key(&server.id) {
                self.add_server(server);
            }
        }
    }

    /// Adds (or replaces) one server.
    pub fn add_server(&self, server: ServerConfig) {
        self.remove_server(&server.id);
        let mut inner = self.inner.borrow_mut();
        inner.next_serial += 1;
        let serial = inner.next_serial;
        let session = Session::new(inner.session_config(server.clone()));
        let slot = Slot {
            serial,
            session,
            waiters: HashMap::new(),
            progress: HashMap::new(),
            inflight: HashMap::new(),
            timer: None,
        };
        inner.slots.insert(server.id, slot);
    }

    /// Removes a server: pending calls are cancelled and its session is deleted (HTTP DELETE).
    /// Returns whether it existed.
    pub fn remove_server(&self, id: &str) -> bool {
        let key = {
            let mut inner = self.inner.borrow_mut();
            let Some(slot) = inner.slots.get_mut(id) else {
                return false;
            };
            slot.session.shutdown("the server was removed");
            SlotKey {
                id: id.to_owned(),
                serial: slot.serial,
            }
        };
        // Sends the DELETE and settles the cancelled calls while the slot still exists.
        drive(&self.inner, &key);
        // Dropping the slot clears its timer; the DELETE's fetch finishes on its own.
        let slot = self.inner.borrow_mut().slots.remove(id);
        drop(slot);
        true
    }

    /// Ends every session (DELETE) and removes all servers.
    pub fn close(&self) {
        let ids: Vec<String> = self.inner.borrow().slots.keys().cloned().collect();
        for id in ids {
            self.remove_server(&id);
        }
    }

    /// Cancels the call submitted with `cancel_key`; returns whether one was pending.
    pub fn cancel(&self, cancel_key: &str) -> bool {
        let entry = self.inner.borrow_mut().cancel_keys.remove(cancel_key);
        let Some((key, call)) = entry else {
            return false;
        };
        {
            let mut inner = self.inner.borrow_mut();
            let Some(slot) = inner.slot(&key) else {
                return false;
            };
            slot.session.cancel(call, "cancelled by the user", now_ms());
        }
        drive(&self.inner, &key);
        true
    }

    /// Status of every server.
    pub fn status(&self) -> Vec<ServerStatus> {
        let inner = self.inner.borrow();
        inner
            .slots
            .iter()
            .map(|(id, slot)| ServerStatus {
                id: id.clone(),
                enabled: slot.session.config().server.enabled,
                connected: slot.session.is_ready(),
                transport: slot.session.transport(),
                info: slot.session.server_info().cloned(),
                stats: slot.session.stats().clone(),
            })
            .collect()
    }

    /// Runs one operation on a server.
    // ClientError carries the context a user needs (method, server, hint); these futures wait on
    // the network, so moving a large error costs nothing that matters.
    #[allow(clippy::result_large_err)]
    pub async fn run(
        &self,
        server_id: &str,
        op: Operation,
        options: CallOptions,
    ) -> Result<Output, ClientError> {
        let (sender, receiver) = oneshot::channel();
        let cancel_key = options.cancel_key.clone();
        let key = {
            let mut inner = self.inner.borrow_mut();
            let Some(slot) = inner.slots.get_mut(server_id) else {
                return Err(ClientError::Config {
                    message: format!("no server with id `{server_id}`"),
                });
            };
            if !slot.session.config().server.enabled {
                return Err(ClientError::Config {
                    message: format!("server `{server_id}` is disabled"),
                });
            }
            let key = SlotKey {
                id: server_id.to_owned(),
                serial: slot.serial,
            };
            let call = slot.session.submit(op, now_ms());
            slot.waiters.insert(call, sender);
            if let Some(on_progress) = options.on_progress {
                slot.progress.insert(call, on_progress);
            }
            if let Some(cancel_key) = &cancel_key {
                inner
                    .cancel_keys
                    .insert(cancel_key.clone(), (key.clone(), call));
            }
            key
        };
        drive(&self.inner, &key);
        let result = receiver.await.unwrap_or_else(|| {
            Err(ClientError::Cancelled {
                method: "request".to_owned(),
                reason: "the server was removed".to_owned(),
            })
        });
        if let Some(cancel_key) = cancel_key {
            let mut inner = self.inner.borrow_mut();
            if inner
                .cancel_keys
                .get(&cancel_key)
                .is_some_and(|(k, _)| *k == key)
            {
                inner.cancel_keys.remove(&cancel_key);
            }
        }
        result
    }

    /// All tools of a server (every page), from the cache when fresh unless `refresh`.
    pub async fn list_tools(
        &self,
        server_id: &str,
        refresh: bool,
    ) -> Result<Vec<Tool>, ClientError> {
        match self
            .run(
                server_id,
                Operation::ListTools { refresh },
                CallOptions::default(),
            )
            .await?
        {
            Output::Tools(tools) => Ok(tools),
            other => Err(unexpected(other)),
        }
    }

    /// Calls a tool. A result with `isError: true` is a result, not an error.
    pub async fn call_tool(
        &self,
        server_id: &str,
        name: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        let progress = options.on_progress.is_some();
        let op = Operation::CallTool {
            name: name.to_owned(),
            arguments,
            progress,
        };
        match self.run(server_id, op, options).await? {
            Output::ToolResult(result) => Ok(result),
            other => Err(unexpected(other)),
        }
    }

    /// All prompts of a server.
    pub async fn list_prompts(&self, server_id: &str) -> Result<Vec<Prompt>, ClientError> {
        match self
            .run(server_id, Operation::ListPrompts, CallOptions::default())
            .await?
        {
            Output::Prompts(prompts) => Ok(prompts),
            other => Err(unexpected(other)),
        }
    }

    /// Expands a prompt with its arguments.
    pub async fn get_prompt(
        &self,
        server_id: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, ClientError> {
        let op = Operation::GetPrompt {
            name: name.to_owned(),
            arguments,
        };
        match self.run(server_id, op, CallOptions::default()).await? {
            Output::Prompt(prompt) => Ok(prompt),
            other => Err(unexpected(other)),
        }
    }

    /// All resources of a server.
    pub async fn list_resources(&self, server_id: &str) -> Result<Vec<Resource>, ClientError> {
        match self
            .run(server_id, Operation::ListResources, CallOptions::default())
            .await?
        {
            Output::Resources(resources) => Ok(resources),
            other => Err(unexpected(other)),
        }
    }

    /// All resource templates of a server.
    pub async fn list_resource_templates(
        &self,
        server_id: &str,
    ) -> Result<Vec<ResourceTemplate>, ClientError> {
        match self
            .run(
                server_id,
                Operation::ListResourceTemplates,
                CallOptions::default(),
            )
            .await?
        {
            Output::ResourceTemplates(templates) => Ok(templates),
            other => Err(unexpected(other)),
        }
    }

    /// Reads a resource.
    pub async fn read_resource(
        &self,
        server_id: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, ClientError> {
        let op = Operation::ReadResource {
            uri: uri.to_owned(),
        };
        match self.run(server_id, op, CallOptions::default()).await? {
            Output::Resource(contents) => Ok(contents),
            other => Err(unexpected(other)),
        }
    }
}

fn unexpected(output: Output) -> ClientError {
    ClientError::Protocol {
        url: String::new(),
        message: format!("unexpected output {output:?}"),
    }
}

/// Performs what a session asked for and reports its events, until it has nothing more to say;
/// then arms its timer for its next deadline.
fn drive(inner: &Rc<RefCell<Inner>>, key: &SlotKey) {
    // Bounded: each round consumes what the previous round produced, and a session only
    // produces actions in answer to input.
    for _ in 0..10_000 {
        let mut sends = Vec::new();
        let mut completions = Vec::new();
        let mut progress = Vec::new();
        let mut notices = Vec::new();
        let listener;
        {
            let mut guard = inner.borrow_mut();
            listener = guard.listener.clone();
            let Some(slot) = guard.slot(key) else { return };
            while let Some(action) = slot.session.poll_action() {
                match action {
                    Action::Send(request) => {
                        let Ok(controller) = AbortController::new() else {
                            let message = "AbortController is unavailable";
                            slot.session.handle_transport_error(
                                request.exchange,
                                message,
                                now_ms(),
                            );
                            continue;
                        };
                        slot.inflight.insert(request.exchange, controller.clone());
                        sends.push((request, controller));
                    }
                    Action::Abort(exchange) => {
                        if let Some(controller) = slot.inflight.remove(&exchange) {
                            controller.abort();
                        }
                    }
                    _ => {}
                }
            }
            while let Some(event) = slot.session.poll_event() {
                match event {
                    SessionEvent::Completed { call, result } => {
                        slot.progress.remove(&call);
                        if let Some(waiter) = slot.waiters.remove(&call) {
                            completions.push((waiter, result));
                        }
                    }
                    SessionEvent::Progress {
                        call,
                        progress: p,
                        total,
                        message,
                    } => {
                        if let Some(callback) = slot.progress.get(&call) {
                            progress.push((
                                callback.clone(),
                                Progress {
                                    progress: p,
                                    total,
                                    message,
                                },
                            ));
                        }
                    }
                    other => notices.push(other),
                }
            }
        }
        if sends.is_empty() && completions.is_empty() && progress.is_empty() && notices.is_empty() {
            break;
        }
        // Outside the borrow: callbacks may call back into the client.
        for (request, controller) in sends {
            spawn_local(exchange(
                Rc::downgrade(inner),
                key.clone(),
                request,
                controller,
            ));
        }
        for (waiter, result) in completions {
            waiter.send(result);
        }
        for (callback, update) in progress {
            callback(&update);
        }
        if let Some(listener) = listener {
            for notice in &notices {
                listener(&key.id, notice);
            }
        }
    }
    arm_timer(inner, key);
}

fn arm_timer(inner: &Rc<RefCell<Inner>>, key: &SlotKey) {
    let mut guard = inner.borrow_mut();
    let Some(slot) = guard.slot(key) else { return };
    let due = slot.session.poll_timeout();
    if slot.timer.as_ref().map(|(at, _)| *at) == due {
        return;
    }
    slot.timer = due.map(|at| {
        let weak = Rc::downgrade(inner);
        let key = key.clone();
        let timer = Timer::after(at.saturating_sub(now_ms()), move || {
            let Some(inner) = weak.upgrade() else { return };
            {
                let mut guard = inner.borrow_mut();
                let Some(slot) = guard.slot(&key) else { return };
                slot.timer = None;
                slot.session.handle_timeout(now_ms());
            }
            drive(&inner, &key);
        });
        (at, timer)
    });
}

/// One HTTP exchange, from `fetch` to the end of its body.
async fn exchange(
    inner: Weak<RefCell<Inner>>,
    key: SlotKey,
    request: HttpRequest,
    controller: AbortController,
) {
    let id = request.exchange;
    let (head, body) = match fetch::start(&request, &controller.signal()).await {
        Ok(started) => started,
        Err(message) => {
            deliver(&inner, &key, id, Delivery::Error(message));
            return;
        }
    };
    if !deliver(&inner, &key, id, Delivery::Head(head)) {
        if let fetch::BodyReader::Stream(reader) = &body {
            fetch::cancel(reader);
        }
        return;
    }
    let reader = match body {
        fetch::BodyReader::Stream(reader) => reader,
        fetch::BodyReader::Empty => {
            deliver(&inner, &key, id, Delivery::End);
            return;
        }
        fetch::BodyReader::Whole(response) => {
            match fetch::read_whole(&response).await {
                Ok(bytes) => {
                    if deliver(&inner, &key, id, Delivery::Chunk(bytes)) {
                        deliver(&inner, &key, id, Delivery::End);
                    }
                }
                Err(message) => {
                    deliver(&inner, &key, id, Delivery::Error(message));
                }
            }
            return;
        }
    };
    loop {
        let step = match fetch::read(&reader).await {
            Ok(Some(chunk)) => Delivery::Chunk(chunk),
            Ok(None) => Delivery::End,
            Err(message) => Delivery::Error(message),
        };
        let last = matches!(step, Delivery::End | Delivery::Error(_));
        let wanted = deliver(&inner, &key, id, step);
        if last {
            return;
        }
        if !wanted {
            fetch::cancel(&reader);
            return;
        }
    }
}

/// Hands a piece of a response to its session; `false` if nobody wants it any more (aborted
/// exchange, removed server), so the caller stops reading.
fn deliver(
    inner: &Weak<RefCell<Inner>>,
    key: &SlotKey,
    id: ExchangeId,
    delivery: Delivery,
) -> bool {
    let Some(inner) = inner.upgrade() else {
        return false;
    };
    {
        let mut guard = inner.borrow_mut();
        let Some(slot) = guard.slot(key) else {
            return false;
        };
        if !slot.inflight.contains_key(&id) {
            return false;
        }
        let now = now_ms();
        match delivery {
            Delivery::Head(head) => slot.session.handle_response_head(id, head, now),
            Delivery::Chunk(chunk) => slot.session.handle_body(id, &chunk, now),
            Delivery::End => {
                slot.inflight.remove(&id);
                slot.session.handle_body_end(id, now);
            }
            Delivery::Error(message) => {
                slot.inflight.remove(&id);
                slot.session.handle_transport_error(id, &message, now);
            }
        }
    }
    drive(&inner, key);
    let mut guard = inner.borrow_mut();
    guard
        .slot(key)
        .is_some_and(|slot| slot.inflight.contains_key(&id))
}
