//! The call queue: submitting, cancelling and finishing operations, the concurrency cap,
//! deadlines and retries, paging of list results and the tool-list cache.

use serde_json::Value;

use super::exchange::HeaderKind;
use super::state::*;
use super::tasks::{asks_for_task, task_handle, TaskPoll};
use super::{CallId, Session, SessionEvent, Transport};
use crate::client::error::ClientError;
use crate::client::headers;
use crate::client::http::{ExchangeId, HttpMethod};
use crate::client::jsonrpc::{ErrorObject, RequestId};
use crate::client::ops::{read_output, read_page, Operation, Output, Pages};

impl Session {
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
        let op_task = match &op {
            Operation::ResumeTask { task_id, form, .. } => Some((task_id.clone(), *form)),
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
            input: None,
            input_rounds: 0,
            awaiting: None,
            task: op_task.map(|(id, form)| TaskPoll::new(id, form, now_ms)),
        };
        self.calls.insert(id, call);
        self.queue.push_back(id);
        self.pump(now_ms);
        id
    }

    /// Cancels an operation: it completes with [`ClientError::Cancelled`], and the server is
    /// told with `notifications/cancelled` if the request was sent.
    pub fn cancel(&mut self, call: CallId, reason: &str, now_ms: u64) {
        let Some((state, task)) = self
            .calls
            .get(&call)
            .map(|c| (c.state, c.task.as_ref().map(|t| t.id.clone())))
        else {
            return;
        };
        match state {
            CallState::Queued => self.queue.retain(|c| *c != call),
            CallState::Backoff { .. } | CallState::Polling { .. } => {}
            CallState::InFlight(rpc) => {
                if let Some(pending) = self.rpcs.remove(&rpc) {
                    self.abort_exchange(pending.exchange);
                    // A task's own request is not what the user stopped: `tasks/cancel` is.
                    if task.is_none() {
                        self.notify_cancelled(rpc, reason);
                    }
                }
            }
        }
        let Some(c) = self.calls.get(&call) else {
            return;
        };
        let error = cancelled(&c.op, sent(c), reason);
        if let Some(task_id) = task {
            self.cancel_task(task_id, now_ms);
        }
        self.complete_call(call, Err(error), now_ms);
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
            let error = cancelled(&c.op, sent(&c), reason);
            self.events.push_back(SessionEvent::Completed {
                call,
                result: Err(error),
            });
        }
        if self.transport_in_use() == Some(Transport::Streamable) && self.session_id.is_some() {
            let url = self.request_url();
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
            CallState::Backoff { until } | CallState::Polling { until } => Some(until),
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
            .filter(|(_, c)| {
                matches!(c.state, CallState::Backoff { until } | CallState::Polling { until } if until <= now_ms)
            })
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

    pub(super) fn in_flight(&self) -> usize {
        self.calls
            .values()
            .filter(|c| !matches!(c.state, CallState::Queued | CallState::Polling { .. }))
            .count()
    }

    /// Moves queued work forward: starts a handshake if work waits for a session, and sends
    /// queued calls while the concurrency cap allows.
    pub(super) fn pump(&mut self, now_ms: u64) {
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

    pub(super) fn send_call(&mut self, id: CallId, now_ms: u64) {
        if let Some(task) = self.calls.get_mut(&id).and_then(|c| c.task.as_mut()) {
            let (method, params) = task.request();
            let rpc = self.send_rpc(Owner::Call(id), method, Some(params), now_ms);
            if let Some(call) = self.calls.get_mut(&id) {
                call.state = CallState::InFlight(rpc);
            }
            return;
        }
        let Some(call) = self.calls.get(&id) else {
            return;
        };
        let mut params = call
            .op
            .params(call.pages.cursor.as_deref(), call.progress_token.as_deref());
        if let Some(input) = &call.input {
            let object = params
                .get_or_insert_with(|| Value::Object(serde_json::Map::new()))
                .as_object_mut();
            if let Some(object) = object {
                object.extend(input.clone());
            }
        }
        // SEP-1686: a tool that allows a task runs as one when the client declares tasks.
        if let (true, Operation::CallTool { name, .. }) = (self.cfg.tasks, &call.op) {
            let tool = self.tools.find(name);
            if let (Some(true), Some(Value::Object(object))) =
                (tool.map(asks_for_task), params.as_mut())
            {
                object.insert("task".to_owned(), Value::Object(serde_json::Map::new()));
            }
        }
        let method = match call.op.method() {
            // 2026-07-28 has no `ping` (servers answer "method not found"); `server/discover`
            // is the cheap request that proves the server is there.
            "ping" if self.stateless_active() => "server/discover",
            method => method,
        };
        let rpc = self.send_rpc(Owner::Call(id), method, params, now_ms);
        if let Some(call) = self.calls.get_mut(&id) {
            call.state = CallState::InFlight(rpc);
        }
    }

    pub(super) fn call_answered(
        &mut self,
        call: CallId,
        outcome: Result<Value, ErrorObject>,
        now_ms: u64,
    ) {
        let url = self.error_url();
        let max_pages = self.cfg.max_pages;
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        if c.task.is_some() {
            self.task_answered(call, outcome, now_ms);
            return;
        }
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
        // 2026-07-28: a result without `resultType` is complete.
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            self.input_required(call, result, now_ms);
            return;
        }
        let is_call = matches!(c.op, Operation::CallTool { .. });
        if let Some((form, task)) = task_handle(&result).filter(|_| is_call) {
            self.task_created(call, form, task, now_ms);
            return;
        }
        let Some(key) = c.op.list_key() else {
            // A tools/call answered with a result we cannot read did reach the tool.
            let output = read_output(&c.op, result).map_err(|message| {
                let error = ClientError::Protocol { url, message };
                match &c.op {
                    Operation::CallTool { name, .. } => error.after_sending_call(name),
                    _ => error,
                }
            });
            self.complete_call(call, output, now_ms);
            return;
        };
        if let Some(ttl) = result.get("ttlMs").and_then(Value::as_u64) {
            c.pages.ttl_ms = Some(c.pages.ttl_ms.map_or(ttl, |t| t.min(ttl)));
        }
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
                let ttl = c.pages.ttl_ms;
                let mut output = read_output(&c.op, items)
                    .map_err(|message| ClientError::Protocol { url, message });
                if let Ok(Output::Tools(tools)) = &mut output {
                    self.reject_invalid_tools(tools);
                    self.tools.store_for(tools.clone(), now_ms, generation, ttl);
                }
                self.complete_call(call, output, now_ms);
            }
        }
    }

    /// Leaves out tools whose `x-mcp-header` annotations cannot become valid headers (SEP-2243
    /// says such tools MUST be rejected), reporting each as a warning log entry; one bad tool
    /// does not cost the others.
    fn reject_invalid_tools(&mut self, tools: &mut Vec<crate::model::Tool>) {
        let events = &mut self.events;
        tools.retain(|tool| match headers::tool_param_headers(tool) {
            Ok(_) => true,
            Err(e) => {
                events.push_back(SessionEvent::Log {
                    level: "warning".to_owned(),
                    logger: Some("mcp-relay".to_owned()),
                    data: Value::String(format!("tool `{}` left out: {e}", tool.name)),
                });
                false
            }
        });
    }

    pub(super) fn complete_call(
        &mut self,
        call: CallId,
        result: Result<Output, ClientError>,
        now_ms: u64,
    ) {
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

    /// Progress resets a call's timeout (the spec allows it), up to `max_call_ms` in all.
    /// Every request in flight may run to its longest time (`max_call_ms`): the server asked
    /// the user something, and the answer may take longer than a request's timeout.
    pub(super) fn hold_deadlines(&mut self) {
        for c in self.calls.values() {
            let CallState::InFlight(rpc) = c.state else {
                continue;
            };
            let cap = c.submitted_at.saturating_add(self.cfg.max_call_ms);
            if let Some(rpc) = self.rpcs.get_mut(&rpc) {
                rpc.deadline = rpc.deadline.max(cap);
            }
        }
    }

    pub(super) fn extend_deadline(&mut self, call: CallId, now_ms: u64) {
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
    pub(super) fn answer(
        &mut self,
        id: &RequestId,
        outcome: Result<Value, ErrorObject>,
        now_ms: u64,
    ) {
        let RequestId::Number(n) = id else { return };
        let Some(rpc) = self.rpcs.remove(n) else {
            return;
        };
        // The stream that was to carry this answer has nothing more to say (a GET resuming it
        // may stay open forever otherwise); free its connection.
        self.abort_exchange(rpc.exchange);
        match rpc.owner {
            Owner::Handshake if self.discovering.is_some() => self.discovered(outcome, now_ms),
            Owner::Handshake => self.initialized(outcome, now_ms),
            Owner::Call(call) => self.call_answered(call, outcome, now_ms),
            // A server that refuses a log level sends no log messages: nothing to do.
            Owner::Setting => {}
        }
    }
}

/// Whether a call's request was handed over to be sent: in flight, or a task the server made.
fn sent(c: &Call) -> bool {
    c.task.is_some() || matches!(c.state, CallState::InFlight(_))
}

/// The error of a cancelled operation: [`ClientError::Cancelled`], unless it is a `tools/call`
/// already handed over to be sent (or its task), whose outcome is then unknown.
fn cancelled(op: &Operation, sent: bool, reason: &str) -> ClientError {
    let error = ClientError::Cancelled {
        method: op.method().to_owned(),
        reason: reason.to_owned(),
    };
    match (op, sent) {
        (Operation::CallTool { name, .. } | Operation::ResumeTask { name, .. }, true) => {
            error.after_sending_call(name)
        }
        _ => error,
    }
}
