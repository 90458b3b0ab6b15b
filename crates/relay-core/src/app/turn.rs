//! The tool loop's turn: a reply grows, its complete calls enter the ledger once, policy and
//! limits decide what runs, the user decides what waits, calls run and end.

use crate::contract::ErrorKind;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::contract::{ErrorBody, Role};
use crate::model::CallToolResult;
use crate::parse::Diagnostic;
use crate::policy::{
    check_decision, is_destructive, policy_change, quoted_fingerprints, Admission, CallRecord,
    CallState, NewCall, ToolPolicy, UserDecision, WaitReason, TOOL_FORCED_REMINDER,
};
use crate::prompt::Strategy;
use crate::schema::validate;

use super::{tab_of, App, Effect};

/// The answer to a `reply/update`: this message's calls as the ledger has them.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplyUpdate {
    pub calls: Vec<CallRecord>,
    /// Whether a call may still be forming at the end of the text.
    pub pending: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// The update carried appended text, but the core does not have the text it extends (the
    /// worker restarted, the reply ended, an earlier update was lost): nothing was read, the
    /// content script sends the whole text.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub resend: bool,
}

/// The text a `reply/update` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyText<'a> {
    /// The reply's whole text so far.
    Whole(&'a str),
    /// What was appended to the first `at` UTF-16 units of the text sent before (a content
    /// script counts in UTF-16 units: JavaScript string lengths).
    Appended { at: usize, text: &'a str },
}

/// A call ready to send: validated arguments, its server and tool; or the task its server
/// answered it with before the worker restarted.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedCall {
    pub key: String,
    pub server_id: String,
    pub tool: String,
    pub arguments: Map<String, Value>,
    pub task: Option<crate::policy::CallTask>,
}

impl PreparedCall {
    /// The `tools/call` to send (with progress: the card shows it), or the polling of its task.
    pub fn operation(&self) -> crate::client::Operation {
        match &self.task {
            Some(task) => crate::client::Operation::ResumeTask {
                name: self.tool.clone(),
                task_id: task.id.clone(),
                form: task.form,
            },
            None => crate::client::Operation::CallTool {
                name: self.tool.clone(),
                arguments: self.arguments.clone(),
                progress: true,
            },
        }
    }
}

/// How a call that was sent ended.
#[derive(Debug, Clone)]
pub enum CallEnd {
    /// The server answered with a result (which may be a tool error, `isError`).
    Result(CallToolResult),
    /// No usable answer. `may_have_run`: the request may have reached the tool (timeout, lost
    /// connection, HTTP 5xx, unreadable answer), so the outcome is unknown, never "did not run".
    Error {
        error: ErrorBody,
        may_have_run: bool,
    },
}

impl CallEnd {
    /// How the client's answer ends a call: a result, or an error that says whether the tool
    /// may have run.
    #[allow(clippy::result_large_err)] // ClientError carries the context a user needs.
    pub fn from_client(
        result: Result<crate::client::Output, crate::client::ClientError>,
    ) -> CallEnd {
        match result.and_then(crate::client::Output::into_tool_result) {
            Ok(r) => CallEnd::Result(r),
            Err(e) => CallEnd::Error {
                error: ErrorBody::from(&e),
                may_have_run: e.may_have_run(),
            },
        }
    }
}

impl App {
    /// A content script's report of an assistant reply in `chat` (`done`: the reply is
    /// complete; `history`: it was on the page before the content script looked, so nothing in
    /// it runs). New complete calls enter the ledger once; the answer lists this message's
    /// calls.
    pub fn reply_update(
        &mut self,
        chat: &str,
        message_id: &str,
        text: &str,
        done: bool,
        history: bool,
    ) -> (ReplyUpdate, Vec<Effect>) {
        self.reply_update_text(chat, message_id, ReplyText::Whole(text), done, history)
    }

    /// [`reply_update`](Self::reply_update) for a report that may carry only the appended
    /// text: it goes straight to the reply's parser when the parser has exactly the text it
    /// extends; otherwise the answer asks for the whole text (`resend`) and nothing is read.
    pub fn reply_update_text(
        &mut self,
        chat: &str,
        message_id: &str,
        text: ReplyText<'_>,
        done: bool,
        history: bool,
    ) -> (ReplyUpdate, Vec<Effect>) {
        let settings = self.config.chat(chat);
        if settings.server_ids.is_empty() {
            let empty = ReplyUpdate {
                calls: Vec::new(),
                pending: false,
                diagnostics: Vec::new(),
                resend: false,
            };
            return (empty, Vec::new());
        }
        let pkey = format!("{chat}|{message_id}");
        let starts = matches!(
            text,
            ReplyText::Whole(_) | ReplyText::Appended { at: 0, .. }
        );
        if starts && !self.parsers.contains_key(&pkey) {
            // The selection's tools are looked up once per reply, for its parser; not on every
            // update (with 1,000 tools a copy of them cost 3.4 ms natively per update).
            let parser = self.selection(&settings.server_ids).stream_parser();
            self.parsers.insert(pkey.clone(), parser);
        }
        let mut update = match (text, self.parsers.get_mut(&pkey)) {
            (ReplyText::Whole(text), Some(parser)) => parser.push(text),
            (ReplyText::Appended { at, text }, Some(parser)) if parser.utf16_len() == at => {
                parser.append(text)
            }
            // Appended text that does not extend what the parser has (or a reply whose parser
            // is gone): ask for the whole text.
            _ => {
                let answer = ReplyUpdate {
                    calls: self.message_calls(chat, message_id),
                    pending: false,
                    diagnostics: Vec::new(),
                    resend: true,
                };
                return (answer, Vec::new());
            }
        };
        if done {
            if let Some(mut parser) = self.parsers.remove(&pkey) {
                update.calls.extend(parser.finish().calls);
            }
            update.pending = false;
        }
        let limits = self.config.limits(&settings);
        let mut effects = Vec::new();
        let mut changed = false;
        if done && !history {
            // A new reply ended: the model got a message after the one we could not send (the
            // user pressed Send), so results waiting in the input are not waiting any more.
            for r in self.ledger.calls.values_mut() {
                if r.chat == chat && r.unsent && r.message_id != message_id {
                    r.unsent = false;
                    r.delivery_note = None;
                    changed = true;
                    effects.push(Effect::Notify {
                        chat: chat.to_owned(),
                        key: r.key.clone(),
                    });
                }
            }
        }
        for call in &update.calls {
            if history {
                continue; // replies that were on the page before we looked are never run
            }
            // A tool the model may not see is not there for its calls (MCP Apps' visibility).
            let tool = self
                .find_tool(&call.server, &call.tool)
                .filter(|t| crate::apps::visible_to_model(t));
            let destructive = tool.is_some_and(is_destructive);
            let has_app = tool.is_some_and(|t| crate::apps::ToolUi::of(t).has_app());
            let decision =
                self.config
                    .decision(&call.server, &call.tool, tool, settings.auto_execute);
            let admission = self.ledger.admit(
                &NewCall {
                    chat,
                    message_id,
                    call_id: &call.call_id,
                    server_id: &call.server,
                    tool: &call.tool,
                    arguments: &call.arguments,
                    destructive,
                },
                &decision,
                limits,
            );
            if let Admission::New(rec) = admission {
                changed = true;
                if has_app {
                    if let Some(r) = self.ledger.calls.get_mut(&rec.key) {
                        r.has_app = true;
                    }
                }
                if rec.state == CallState::Pending {
                    // Say why it waits: an allowed tool in a chat without auto-run is the case
                    // users cannot guess ("Allow" in the tools view, "waiting" on the card).
                    let policy = self
                        .find_tool(&call.server, &call.tool)
                        .map(|t| self.config.tool_policy(&call.server, t).0);
                    let why = if policy == Some(ToolPolicy::Allow) && !settings.auto_execute {
                        WaitReason::AutoRunOff
                    } else {
                        WaitReason::PolicyAsk
                    };
                    if let Some(r) = self.ledger.calls.get_mut(&rec.key) {
                        r.wait = Some(why);
                    }
                }
                if rec.state == CallState::Running {
                    effects.push(Effect::Run(rec.key));
                }
            }
        }
        let has_calls = self
            .ledger
            .calls
            .values()
            .any(|c| c.chat == chat && c.message_id == message_id);
        if done && !history && !has_calls {
            self.ledger.reply_without_calls(chat);
            changed = true;
            // The model answered without the tool call this chat requires: remind it once a
            // turn, so a model that will not call a tool is not nagged in a loop.
            if self.config.strategy(&settings) == Strategy::ToolForced
                && self.ledger.nudge_for_missing_call(chat)
            {
                if let Some(tab) = tab_of(chat) {
                    effects.push(Effect::Insert {
                        tab,
                        text: TOOL_FORCED_REMINDER.to_owned(),
                        submit: settings.auto_submit,
                    });
                }
            }
        }
        if changed {
            effects.insert(0, Effect::SaveLedger);
        }
        // Deliver what is ready in this chat: this message's results, and results that finished
        // while the tab could not take them (it was reloading, or the worker restarted).
        effects.extend(self.pending_deliveries(chat));
        let answer = ReplyUpdate {
            calls: self.message_calls(chat, message_id),
            pending: update.pending,
            diagnostics: update.diagnostics,
            resend: false,
        };
        (answer, effects)
    }

    /// The calls of one message as the ledger has them.
    pub(crate) fn message_calls(&self, chat: &str, message_id: &str) -> Vec<CallRecord> {
        self.ledger
            .for_chat(chat)
            .into_iter()
            .filter(|c| c.message_id == message_id)
            .cloned()
            .collect()
    }

    /// The user's decision about a call. `sender_chat` is a content sender's own chat.
    pub fn decide(
        &mut self,
        role: Role,
        sender_chat: Option<&str>,
        key: &str,
        decision: UserDecision,
        confirm: bool,
    ) -> Result<(CallRecord, Vec<Effect>), ErrorBody> {
        let rec = self
            .ledger
            .calls
            .get(key)
            .cloned()
            .ok_or_else(|| ErrorBody::new(ErrorKind::InvalidArgument, "no such call"))?;
        check_decision(role, &rec, sender_chat, decision)?;
        let mut effects = Vec::new();
        match decision {
            UserDecision::Run | UserDecision::Always => {
                let tool = self.find_tool(&rec.server_id, &rec.tool).cloned();
                if decision == UserDecision::Always {
                    if let Some(tool) = &tool {
                        policy_change(tool, Some(ToolPolicy::Allow), confirm)?;
                    }
                    self.config
                        .set_tool(&rec.server_id, &rec.tool, Some(ToolPolicy::Allow), None);
                    effects.push(Effect::SaveConfig);
                }
                // Policy still applies to the click: a denied or disabled tool never runs.
                let (policy, enabled) = self.config.tool_setting(&rec.server_id, &rec.tool);
                if tool.is_some() && (policy == ToolPolicy::Deny || !enabled) {
                    return Err(ErrorBody::new(
                        ErrorKind::Denied,
                        format!("Tool '{}' is denied or disabled.", rec.tool),
                    ));
                }
                if self.ledger.run_by_user(key).is_none() {
                    return Err(ErrorBody::new(
                        ErrorKind::InvalidState,
                        format!("The call is {:?} and cannot run again.", rec.state),
                    ));
                }
                effects.extend([Effect::SaveLedger, Effect::Run(key.to_owned())]);
            }
            UserDecision::Deny => {
                if let Some(r) = self.ledger.transition(key, CallState::Denied) {
                    r.error = Some(ErrorBody::new(ErrorKind::Denied, "You denied this call."));
                }
                effects.extend([
                    Effect::SaveLedger,
                    Effect::Deliver {
                        chat: rec.chat.clone(),
                        message_id: rec.message_id.clone(),
                    },
                ]);
            }
        }
        // The chat's card shows the decision at once, wherever it was made (the side panel's
        // decision would otherwise leave a stale Run button on the page).
        effects.push(Effect::Notify {
            chat: rec.chat.clone(),
            key: key.to_owned(),
        });
        let rec = self.ledger.calls.get(key).cloned().unwrap_or(rec);
        Ok((rec, effects))
    }

    /// Readies a running call for its request: the tool must still be listed and the
    /// arguments must match its input schema (coerced where that is safe). A call that cannot
    /// be sent fails here, with the effects that tell the chat.
    pub fn prepare_call(&mut self, key: &str, now_ms: u64) -> Result<PreparedCall, Vec<Effect>> {
        let Some(rec) = self.ledger.calls.get(key).cloned() else {
            return Err(Vec::new());
        };
        if rec.state != CallState::Running {
            return Err(Vec::new());
        }
        // Its task is asked about as it is: the tool list and the arguments had their check.
        if let Some(task) = rec.task.clone() {
            return Ok(PreparedCall {
                key: key.to_owned(),
                server_id: rec.server_id,
                tool: rec.tool,
                arguments: Map::new(),
                task: Some(task),
            });
        }
        if let Some(r) = self.ledger.calls.get_mut(key) {
            r.started_at = Some(now_ms);
        }
        let error = match self.find_tool(&rec.server_id, &rec.tool) {
            None => ErrorBody::new(
                ErrorKind::Invalid,
                format!("Tool '{}' is not available.", rec.tool),
            ),
            Some(tool) => {
                let checked = validate(tool, &rec.arguments);
                if checked.is_valid() {
                    return Ok(PreparedCall {
                        key: key.to_owned(),
                        server_id: rec.server_id,
                        tool: rec.tool,
                        arguments: checked.arguments.as_object().cloned().unwrap_or_default(),
                        task: None,
                    });
                }
                let message = checked.message_for_model(&rec.tool).unwrap_or_default();
                ErrorBody::new(ErrorKind::Invalid, message)
            }
        };
        if let Some(r) = self.ledger.transition(key, CallState::Failed) {
            r.error = Some(error);
            r.duration_ms = Some(0);
        }
        Err(self.after_call(&rec))
    }

    /// Progress of a running call, as the server reported it.
    pub fn call_progress(&mut self, key: &str, progress: Value, now_ms: u64) -> Vec<Effect> {
        let Some(r) = self.ledger.calls.get_mut(key) else {
            return Vec::new();
        };
        if r.state != CallState::Running {
            return Vec::new();
        }
        r.progress = Some(progress);
        // Its card shows the progress too, at most every PROGRESS_NOTIFY_MS.
        let chat = r.chat.clone();
        match self.progress_due(key, now_ms) {
            true => vec![Effect::Notify {
                chat,
                key: key.to_owned(),
            }],
            false => Vec::new(),
        }
    }

    /// A sent call ended. Calls written inside its result are remembered as quoted (the
    /// server's words, not the model's decision).
    pub fn finish_call(&mut self, key: &str, end: CallEnd, duration_ms: u64) -> Vec<Effect> {
        let Some(rec) = self.ledger.calls.get(key).cloned() else {
            return Vec::new();
        };
        let (state, result, error) = match end {
            CallEnd::Result(r) => {
                let picked = self.config.chat(&rec.chat).server_ids;
                let quoted = quoted_fingerprints(&r, self.selection(&picked).servers());
                self.ledger.remember_quoted(&rec.chat, quoted);
                (CallState::Done, serde_json::to_value(r).ok(), None)
            }
            CallEnd::Error {
                error,
                may_have_run,
            } => {
                let state = if may_have_run {
                    CallState::Unknown
                } else {
                    CallState::Failed
                };
                (state, None, Some(error))
            }
        };
        let mut effects = Vec::new();
        if let Some(r) = self.ledger.transition(key, state) {
            r.duration_ms = Some(duration_ms);
            r.result = None;
            r.error = error;
            // The ledger keeps a bounded preview; a larger result is stored apart, first.
            if let Some(result) = result {
                if self.keep_result(key, result) {
                    effects.push(Effect::SaveResult(key.to_owned()));
                }
            }
        }
        if rec.task.is_some() {
            self.forget_task_sessions();
        }
        effects.extend(self.after_call(&rec));
        effects
    }

    fn after_call(&self, rec: &CallRecord) -> Vec<Effect> {
        vec![
            Effect::SaveLedger,
            Effect::Notify {
                chat: rec.chat.clone(),
                key: rec.key.clone(),
            },
            Effect::Deliver {
                chat: rec.chat.clone(),
                message_id: rec.message_id.clone(),
            },
        ]
    }
}
