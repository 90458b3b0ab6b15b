//! Tasks (`io.modelcontextprotocol/tasks`): a `tools/call` the server answers with a task
//! handle instead of its result, polled until the task ends. Both forms servers speak:
//! - SEP-2663, protocol 2026-07-28's extension: the answer is `resultType: "task"` with the
//!   task's fields inline; `tasks/get` carries the status, the outstanding `inputRequests` and,
//!   once the task ended, its `result` or `error`; answers go back with `tasks/update`.
//! - SEP-1686, protocol 2025-11-25: the client asks for a task with the `task` request param
//!   (only for a tool whose `execution.taskSupport` allows one); the answer is `{task: {...}}`;
//!   `tasks/get` carries the status; the result comes with `tasks/result`, and so do the
//!   server's questions (elicitation requests on that request's stream).
//!
//! Polling follows the server's poll interval, bounded to [`MIN_POLL_MS`]..[`MAX_POLL_MS`];
//! a changed status message is reported as progress of the call; the task's time to live
//! bounds the wait; cancelling the call sends `tasks/cancel`. A task id is one call's
//! bookkeeping on one server: only that call's polling ever sends it, and only to that server.

use crate::sorted_map::SortedSet;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::input::answer;
use super::state::CallState;
use super::{CallId, Session, SessionEvent};
use crate::client::error::ClientError;
use crate::client::jsonrpc::{ErrorCode, ErrorObject, RequestId};
use crate::client::ops::{read_output, Operation};

/// The extension's identifier, declared under the capabilities' `extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";
/// The shortest wait between two polls, whatever the server asks for.
pub const MIN_POLL_MS: u64 = 250;
/// The longest wait between two polls.
pub const MAX_POLL_MS: u64 = 30_000;
/// The wait when the server names none.
const DEFAULT_POLL_MS: u64 = 1_000;
/// The id a [`SessionEvent::Request`] carries for an input request of a task:
/// `task/<call>/<key>`.
const TASK_INPUT_ID: &str = "task/";

/// Which form of the tasks protocol a server speaks: SEP-2663's extension (protocol
/// 2026-07-28), or SEP-1686 before it (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum TaskForm {
    /// SEP-2663 (`resultType: "task"`, `tasks/update`).
    Extension,
    /// SEP-1686 (the `task` request param, `tasks/result`).
    Legacy,
}

/// The request a polled task sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskStep {
    Get,
    Update,
    Result,
}

/// A call's task, while it is polled.
#[derive(Debug)]
pub(super) struct TaskPoll {
    pub(super) id: String,
    pub(super) form: TaskForm,
    pub(super) step: TaskStep,
    interval_ms: u64,
    /// When this session learned of the task; its time to live counts from there.
    learned_at: u64,
    /// The server's time to live; `None` is unlimited.
    ttl_ms: Option<u64>,
    status_message: Option<String>,
    messages: u32,
    /// Input requests already handed to the driver or answered: never asked twice.
    seen: SortedSet<String>,
    /// Answers not yet acknowledged by `tasks/update`.
    answers: Map<String, Value>,
    /// The keys the `tasks/update` in flight carries.
    sending: Vec<String>,
}

impl TaskPoll {
    pub(super) fn new(id: String, form: TaskForm, now_ms: u64) -> TaskPoll {
        TaskPoll {
            id,
            form,
            step: TaskStep::Get,
            interval_ms: DEFAULT_POLL_MS,
            learned_at: now_ms,
            ttl_ms: None,
            status_message: None,
            messages: 0,
            seen: SortedSet::new(),
            answers: Map::new(),
            sending: Vec::new(),
        }
    }

    /// The method and params of the next request.
    pub(super) fn request(&mut self) -> (&'static str, Value) {
        match self.step {
            TaskStep::Get => ("tasks/get", json!({ "taskId": self.id })),
            TaskStep::Result => ("tasks/result", json!({ "taskId": self.id })),
            TaskStep::Update => {
                self.sending = self.answers.keys().cloned().collect();
                let params = json!({ "taskId": self.id, "inputResponses": self.answers });
                ("tasks/update", params)
            }
        }
    }

    /// Takes what a task object says about polling; a status message that changed is
    /// returned, to report as progress.
    fn observe(&mut self, task: &Value) -> Option<String> {
        let interval = task
            .get("pollIntervalMs")
            .or_else(|| task.get("pollInterval"))
            .and_then(Value::as_u64);
        if let Some(ms) = interval {
            self.interval_ms = ms.clamp(MIN_POLL_MS, MAX_POLL_MS);
        }
        match task.get("ttlMs").or_else(|| task.get("ttl")) {
            Some(Value::Null) => self.ttl_ms = None,
            Some(ttl) => {
                if let Some(ms) = ttl.as_u64() {
                    self.ttl_ms = Some(ms);
                }
            }
            None => {}
        }
        let message = task.get("statusMessage").and_then(Value::as_str)?;
        if self.status_message.as_deref() == Some(message) {
            return None;
        }
        self.status_message = Some(message.to_owned());
        self.messages += 1;
        Some(message.to_owned())
    }

    fn expires_at(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.learned_at.saturating_add(ttl))
    }
}

/// Declares the extension under the capabilities' `extensions` (no settings: `{}`).
pub(super) fn declare(capabilities: &mut Value) {
    let Value::Object(caps) = capabilities else {
        return;
    };
    let extensions = caps
        .entry("extensions")
        .or_insert_with(|| Value::Object(Map::new()));
    if !extensions.is_object() {
        *extensions = Value::Object(Map::new());
    }
    if let Value::Object(ext) = extensions {
        ext.insert(EXTENSION_ID.to_owned(), json!({}));
    }
}

/// The task handle in a `tools/call` result, when the server answered with one.
pub(super) fn task_handle(result: &Value) -> Option<(TaskForm, Value)> {
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return Some((TaskForm::Extension, result.clone()));
    }
    let task = result.get("task")?;
    let legacy = task.get("taskId").is_some() && result.get("content").is_none();
    legacy.then(|| (TaskForm::Legacy, task.clone()))
}

/// Whether a tool's definition lets a call of it ask for a task (SEP-1686's
/// `execution.taskSupport` of `optional` or `required`).
pub(super) fn asks_for_task(tool: &crate::model::Tool) -> bool {
    let support = tool
        .extra
        .get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str);
    matches!(support, Some("optional" | "required"))
}

fn tool_of(op: &Operation) -> String {
    match op {
        Operation::CallTool { name, .. } => name.clone(),
        Operation::ResumeTask { name, .. } => name.clone(),
        other => other.method().to_owned(),
    }
}

impl Session {
    /// A `tools/call` was answered with a task: poll it from now on.
    pub(super) fn task_created(&mut self, call: CallId, form: TaskForm, task: Value, now_ms: u64) {
        let id = task.get("taskId").and_then(Value::as_str).unwrap_or("");
        if id.is_empty() {
            self.task_broken(call, "a task handle has no taskId".to_owned(), now_ms);
            return;
        }
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        c.task = Some(TaskPoll::new(id.to_owned(), form, now_ms));
        self.events.push_back(SessionEvent::TaskCreated {
            call,
            task_id: id.to_owned(),
            form,
        });
        self.task_status(call, &task, now_ms);
    }

    /// An answer to one of a task's requests.
    pub(super) fn task_answered(
        &mut self,
        call: CallId,
        outcome: Result<Value, ErrorObject>,
        now_ms: u64,
    ) {
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let tool = tool_of(&c.op);
        let Some(t) = c.task.as_mut() else {
            return;
        };
        let step = t.step;
        let value = match outcome {
            Ok(value) => value,
            Err(e) if e.code == ErrorCode::INVALID_PARAMS => {
                let reason = format!(
                    "the server no longer knows its task {}: {}",
                    t.id, e.message
                );
                self.complete_call(
                    call,
                    Err(ClientError::OutcomeUnknown { tool, reason }),
                    now_ms,
                );
                return;
            }
            // Answers the server refuses are its to judge; the task's status says what next.
            Err(_) if step == TaskStep::Update => {
                for key in std::mem::take(&mut t.sending) {
                    t.answers.remove(&key);
                }
                t.step = TaskStep::Get;
                self.task_wait(call, now_ms);
                return;
            }
            Err(e) if step == TaskStep::Result => {
                let error = ClientError::Tool {
                    tool,
                    code: e.code,
                    message: e.message,
                    data: e.data,
                };
                self.complete_call(call, Err(error), now_ms);
                return;
            }
            Err(e) => {
                let reason = format!(
                    "tasks/get for its task {} failed: {} (error {})",
                    t.id, e.message, e.code
                );
                self.complete_call(
                    call,
                    Err(ClientError::OutcomeUnknown { tool, reason }),
                    now_ms,
                );
                return;
            }
        };
        c.attempt = 1;
        c.first_try_at = now_ms;
        match step {
            TaskStep::Get => self.task_status(call, &value, now_ms),
            TaskStep::Update => {
                for key in std::mem::take(&mut t.sending) {
                    t.answers.remove(&key);
                }
                t.step = TaskStep::Get;
                self.task_wait(call, now_ms);
            }
            TaskStep::Result => self.task_result(call, value, now_ms),
        }
    }

    /// What a task object (a creation or a `tasks/get` answer) says: poll again, ask, or end.
    fn task_status(&mut self, call: CallId, task: &Value, now_ms: u64) {
        let Some(t) = self.calls.get_mut(&call).and_then(|c| c.task.as_mut()) else {
            return;
        };
        if let Some(message) = t.observe(task) {
            self.events.push_back(SessionEvent::Progress {
                call,
                progress: f64::from(t.messages),
                total: None,
                message: Some(message),
            });
        }
        let form = t.form;
        let status = task.get("status").and_then(Value::as_str).unwrap_or("");
        match (status, form) {
            ("working", _) => self.task_wait(call, now_ms),
            ("input_required" | "completed", TaskForm::Legacy) => {
                self.task_send(call, TaskStep::Result, now_ms)
            }
            ("input_required", TaskForm::Extension) => self.task_inputs(call, task, now_ms),
            ("completed", TaskForm::Extension) => match task.get("result") {
                Some(result) => self.task_result(call, result.clone(), now_ms),
                None => self.task_broken(call, "a completed task has no result".into(), now_ms),
            },
            ("failed", _) => {
                let error = task.get("error");
                let code = error
                    .and_then(|e| e.get("code"))
                    .and_then(Value::as_i64)
                    .map_or(ErrorCode::INTERNAL_ERROR, ErrorCode);
                let message = error
                    .and_then(|e| e.get("message"))
                    .or_else(|| task.get("statusMessage"))
                    .and_then(Value::as_str)
                    .unwrap_or("the task failed")
                    .to_owned();
                let data = error.and_then(|e| e.get("data")).cloned();
                let Some(c) = self.calls.get(&call) else {
                    return;
                };
                let tool = tool_of(&c.op);
                let error = ClientError::Tool {
                    tool,
                    code,
                    message,
                    data,
                };
                self.complete_call(call, Err(error), now_ms);
            }
            ("cancelled", _) => {
                let reason = task
                    .get("statusMessage")
                    .and_then(Value::as_str)
                    .unwrap_or("the server cancelled its task")
                    .to_owned();
                let Some(c) = self.calls.get(&call) else {
                    return;
                };
                let tool = tool_of(&c.op);
                let error = ClientError::Cancelled {
                    method: "tools/call".to_owned(),
                    reason,
                };
                self.complete_call(call, Err(error.after_sending_call(&tool)), now_ms);
            }
            (other, _) => {
                let message = format!("a task has an unknown status {other:?}");
                self.task_broken(call, message, now_ms);
            }
        }
    }

    /// The task asks for input (SEP-2663): each request not seen before goes to the driver
    /// (elicitations, when declared) or is answered here; answers go out with `tasks/update`.
    fn task_inputs(&mut self, call: CallId, task: &Value, now_ms: u64) {
        let elicitation = self.cfg.elicitation;
        let Some(t) = self.calls.get_mut(&call).and_then(|c| c.task.as_mut()) else {
            return;
        };
        let requests = task
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut asks = Vec::new();
        for (key, request) in requests {
            if !t.seen.insert(key.clone()) {
                continue;
            }
            let method = request.get("method").and_then(Value::as_str);
            if elicitation && method == Some("elicitation/create") {
                let params = request.get("params").cloned().unwrap_or(Value::Null);
                asks.push((key, params));
                continue;
            }
            match answer(&request) {
                Ok(answer) => {
                    t.answers.insert(key, answer);
                }
                Err(message) => {
                    self.task_broken(call, message, now_ms);
                    return;
                }
            }
        }
        for (key, params) in asks {
            self.events.push_back(SessionEvent::Request {
                id: RequestId::String(format!("{TASK_INPUT_ID}{}/{key}", call.0)),
                method: "elicitation/create".to_owned(),
                params,
                call: Some(call),
            });
        }
        self.task_wait(call, now_ms);
    }

    /// The driver's answer to a task's input request; false when `id` is not one.
    pub(super) fn task_input_answered(
        &mut self,
        id: &RequestId,
        answer: Value,
        now_ms: u64,
    ) -> bool {
        let RequestId::String(s) = id else {
            return false;
        };
        let Some((call, key)) = s
            .strip_prefix(TASK_INPUT_ID)
            .and_then(|rest| rest.split_once('/'))
            .and_then(|(c, k)| Some((CallId(c.parse().ok()?), k.to_owned())))
        else {
            return false;
        };
        let Some(c) = self.calls.get_mut(&call) else {
            return true;
        };
        let polling = matches!(c.state, CallState::Polling { .. });
        let Some(t) = c.task.as_mut().filter(|t| t.seen.contains(&key)) else {
            return true;
        };
        t.answers.insert(key, answer);
        // Sent at once when nothing is in flight; else after the request in flight.
        if polling {
            self.task_send(call, TaskStep::Update, now_ms);
        }
        true
    }

    /// Waits for the next poll, or sends answers waiting to go; a task past its time to live
    /// ends the call.
    fn task_wait(&mut self, call: CallId, now_ms: u64) {
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let tool = tool_of(&c.op);
        let Some(t) = c.task.as_mut() else {
            return;
        };
        if !t.answers.is_empty() {
            self.task_send(call, TaskStep::Update, now_ms);
            return;
        }
        let expires = t.expires_at();
        if expires.is_some_and(|at| now_ms >= at) {
            let reason = format!(
                "its task {} outlived its time to live ({} s) without finishing",
                t.id,
                t.ttl_ms.unwrap_or(0) / 1000
            );
            self.complete_call(
                call,
                Err(ClientError::OutcomeUnknown { tool, reason }),
                now_ms,
            );
            return;
        }
        t.step = TaskStep::Get;
        let next = now_ms.saturating_add(t.interval_ms);
        // One last look when the time to live runs out between two polls.
        let until = expires.map_or(next, |at| next.min(at));
        c.state = CallState::Polling { until };
    }

    fn task_send(&mut self, call: CallId, step: TaskStep, now_ms: u64) {
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        if let Some(t) = c.task.as_mut() {
            t.step = step;
        }
        self.send_call(call, now_ms);
    }

    /// The task's final result.
    fn task_result(&mut self, call: CallId, result: Value, now_ms: u64) {
        let url = self.error_url();
        let Some(c) = self.calls.get(&call) else {
            return;
        };
        let tool = tool_of(&c.op);
        let output = read_output(&c.op, result)
            .map_err(|message| ClientError::Protocol { url, message }.after_sending_call(&tool));
        self.complete_call(call, output, now_ms);
    }

    /// A task answer this client cannot read: the tool may have run.
    fn task_broken(&mut self, call: CallId, message: String, now_ms: u64) {
        let url = self.error_url();
        let Some(c) = self.calls.get(&call) else {
            return;
        };
        let tool = tool_of(&c.op);
        let error = ClientError::Protocol { url, message }.after_sending_call(&tool);
        self.complete_call(call, Err(error), now_ms);
    }

    /// A cancelled call's task is told with `tasks/cancel` (its answer changes nothing: the
    /// call ended already).
    pub(super) fn cancel_task(&mut self, task_id: String, now_ms: u64) {
        let params = json!({ "taskId": task_id });
        self.send_rpc(
            super::state::Owner::Setting,
            "tasks/cancel",
            Some(params),
            now_ms,
        );
    }
}
