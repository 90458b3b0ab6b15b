//! The MCP Apps open in the side panel, and every decision about what they ask for.
//!
//! An open app is an instance bound to the server of the call it shows and, when it came from
//! a chat (or the panel named one), to that chat. The panel renders the app in a sandboxed
//! frame and relays its requests here; the core decides:
//! - which calls it may make: its own server's tools visible to apps ([`crate::apps`]), under
//!   the user's policy (a tool that asks, and every call past
//!   [`APP_CALLS_WITHOUT_ASKING`], wait for the user's click in the panel); each call is
//!   recorded in the chat's Activity, never delivered into the chat;
//! - what it may read: its own server's resources;
//! - where its messages go: the chat's composer, sent only where the chat auto-sends;
//! - what the model learns from it: the last context it set, put into the next results that
//!   go to the chat.
//!
//! Instances and documents live in memory only: an app's frame dies with the panel, and a
//! worker restart asks the panel to open it again (`invalid_state`).

use crate::sorted_map::SortedMap;

use serde_json::{Map, Value};

use super::{tab_of, App, Effect, Io, Sender, Step};
use crate::apps::{check_app_call, AppDocument, ToolUi, APP_CALLS_WITHOUT_ASKING};
use crate::contract::views::AppOpen;
use crate::contract::{ChatRef, ErrorBody, ErrorKind, Request, TabMessage};
use crate::model::CallToolResult;
use crate::policy::{CallRecord, CallState, Decision};

/// The longest context an app may set for the model (characters; the rest is cut).
pub const MAX_CONTEXT_CHARS: usize = 8_000;

/// The open apps, their documents and the context they set.
#[derive(Debug, Default)]
pub struct Apps {
    open: SortedMap<String, Instance>,
    next: u64,
    /// Documents read, per server and URI, until the server's lists change.
    documents: SortedMap<(String, String), AppDocument>,
    /// Per chat, the last context an app set (`[tool] text`), for the next results.
    context: SortedMap<String, String>,
}

/// One open app.
#[derive(Debug, Clone)]
struct Instance {
    server: String,
    tool: String,
    chat: Option<String>,
    calls: u32,
}

/// An app about to open: what its document is read for.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApp {
    pub server: String,
    pub uri: String,
    tool: String,
    arguments: Value,
    result: Option<Value>,
    chat: Option<String>,
    call_key: Option<String>,
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorKind::InvalidArgument, message)
}

fn closed(instance: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorKind::InvalidState,
        format!("app '{instance}' is not open (its panel closed or the worker restarted)"),
    )
    .with_hint("Open the app again from its call in Activity.")
}

impl Apps {
    /// Forgets a server's documents: its lists changed, so its interfaces may have too.
    pub fn forget_documents(&mut self, server: &str) {
        self.documents.retain(|(s, _), _| s != server);
    }

    /// The context apps set for `chat` since its last results, taken (it goes once).
    pub fn take_context(&mut self, chat: &str) -> Option<String> {
        self.context.remove(chat)
    }
}

impl App {
    /// Handles the `apps/*` messages (side panel only).
    pub(super) fn apps_request(
        &mut self,
        request: Request,
        sender: &Sender,
    ) -> Result<Step, ErrorBody> {
        match request {
            Request::AppsOpen {
                key,
                chat,
                server_id,
                tool,
                arguments,
                result,
            } => self.app_open(
                key,
                chat.as_ref(),
                server_id,
                tool,
                arguments,
                result,
                sender,
            ),
            Request::AppsCall {
                instance,
                tool,
                arguments,
                approved,
            } => {
                let arguments = arguments.unwrap_or_else(|| Value::Object(Map::new()));
                let (server, arguments) =
                    self.app_may_call(&instance, &tool, &arguments, approved.unwrap_or(false))?;
                Ok(Step::Io(Io::AppsCall {
                    instance,
                    server,
                    tool,
                    arguments,
                }))
            }
            Request::AppsRead { instance, uri } => {
                let server = self.instance(&instance)?.server.clone();
                if uri.is_empty() {
                    return Err(invalid("'uri' is required"));
                }
                Ok(Step::Io(Io::Mcp {
                    server,
                    op: crate::client::Operation::ReadResource { uri },
                }))
            }
            Request::AppsMessage { instance, text } => {
                let chat = self.instance(&instance)?.chat.clone().ok_or_else(|| {
                    ErrorBody::new(
                        ErrorKind::InvalidState,
                        "this app has no chat to write into",
                    )
                    .with_hint("Open the app from a chat's Activity to let it write there.")
                })?;
                if text.trim().is_empty() {
                    return Err(invalid("the app's message is empty"));
                }
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                // A message from the app is the user's next message: a new turn, sent only
                // where the user lets this chat send by itself.
                let submit = self.config.chat(&chat).auto_submit;
                let mut text = text;
                if let Some(context) = self.apps.take_context(&chat) {
                    text.push_str("\n\n");
                    text.push_str(&context);
                }
                let effects = self.new_turn(&chat);
                Ok(Step::Io(Io::Tab {
                    tab,
                    message: TabMessage::Insert {
                        text,
                        submit,
                        attachments: Vec::new(),
                        without_files: None,
                    },
                    effects,
                }))
            }
            Request::AppsContext { instance, text } => {
                let open = self.instance(&instance)?;
                let Some(chat) = open.chat.clone() else {
                    return Ok(Step::Done(Value::Bool(false), Vec::new()));
                };
                let tool = open.tool.clone();
                if text.trim().is_empty() {
                    self.apps.context.remove(&chat);
                } else {
                    let text: String = text.chars().take(MAX_CONTEXT_CHARS).collect();
                    let line = format!("[What the user sees in the {tool} view: {text}]");
                    self.apps.context.insert(chat, line);
                }
                Ok(Step::Done(Value::Bool(true), Vec::new()))
            }
            Request::AppsLog { instance, text } => {
                let server = self.instance(&instance)?.server.clone();
                Ok(Step::Io(Io::AppsLog { server, text }))
            }
            Request::AppsLink { instance, url } => {
                self.instance(&instance)?;
                let link = crate::link::Link::parse(&url).map_err(|e| {
                    ErrorBody::new(
                        ErrorKind::Forbidden,
                        format!("The app's link was refused: {e}."),
                    )
                })?;
                Ok(Step::Done(
                    super::answer::<crate::contract::request::answers::AppsLink>(link),
                    Vec::new(),
                ))
            }
            Request::AppsShow { key } => {
                let chat = self.chat_for(sender, None)?;
                let rec = (self.ledger.calls.get_mut(&key))
                    .filter(|r| r.chat == chat && r.has_app && r.state.is_final())
                    .ok_or_else(|| {
                        ErrorBody::new(
                            ErrorKind::InvalidState,
                            "no finished call of this chat with an interface",
                        )
                    })?;
                rec.show_app = true;
                let effects = vec![Effect::SaveLedger, Effect::Notify { chat, key }];
                Ok(Step::Done(Value::Null, effects))
            }
            Request::AppsClose { instance } => {
                let was = self.apps.open.remove(&instance).is_some();
                Ok(Step::Done(Value::Bool(was), Vec::new()))
            }
            other => Err(invalid(format!("not an apps message: {}", other.name()))),
        }
    }

    /// A server's lists changed: its app documents are read again when next opened.
    pub fn app_documents_changed(&mut self, server: &str) {
        self.apps.forget_documents(server);
    }

    /// The context apps set for `chat` since its last results, taken (it goes once).
    pub fn take_app_context(&mut self, chat: &str) -> Option<String> {
        self.apps.take_context(chat)
    }

    /// What results going to `chat` say about apps: that a tool's interface is shown to the
    /// user (the model cannot see it), and the context an app set since the last results.
    pub(super) fn app_lines(&mut self, chat: &str, records: &[CallRecord]) -> String {
        let mut shown: Vec<&str> = Vec::new();
        for r in records.iter().filter(|r| r.state == CallState::Done) {
            let has_app = self
                .find_tool(&r.server_id, &r.tool)
                .is_some_and(|t| ToolUi::of(t).has_app());
            if has_app && !shown.contains(&r.tool.as_str()) {
                shown.push(&r.tool);
            }
        }
        let mut text = String::new();
        for tool in shown {
            text.push_str(&format!(
                "\n[{tool} also shows the user an interactive view of its result, in the side panel; you see only the text above.]"
            ));
        }
        if let Some(context) = self.apps.take_context(chat) {
            text.push('\n');
            text.push_str(&context);
        }
        text
    }

    fn instance(&self, instance: &str) -> Result<&Instance, ErrorBody> {
        self.apps.open.get(instance).ok_or_else(|| closed(instance))
    }

    #[allow(clippy::too_many_arguments)]
    fn app_open(
        &mut self,
        key: Option<String>,
        chat: Option<&ChatRef>,
        server_id: Option<String>,
        tool: Option<String>,
        arguments: Option<Value>,
        result: Option<Value>,
        sender: &Sender,
    ) -> Result<Step, ErrorBody> {
        let mut shown = Vec::new();
        let pending = match key.filter(|k| !k.is_empty()) {
            Some(key) => {
                // Opened: the card's request to show it is answered.
                if let Some(r) = self.ledger.calls.get_mut(&key).filter(|r| r.show_app) {
                    r.show_app = false;
                    shown = vec![Effect::SaveLedger];
                }
                let rec = self.ledger.calls.get(&key).ok_or_else(|| {
                    ErrorBody::new(ErrorKind::InvalidState, format!("no call '{key}'"))
                })?;
                let result = rec.result.clone().or_else(|| {
                    self.full_result(&rec.key)
                        .and_then(|r| serde_json::to_value(r).ok())
                });
                PendingApp {
                    server: rec.server_id.clone(),
                    uri: String::new(),
                    tool: rec.tool.clone(),
                    arguments: rec.arguments.clone(),
                    result,
                    chat: Some(rec.chat.clone()),
                    call_key: Some(rec.key.clone()),
                }
            }
            None => PendingApp {
                server: server_id.filter(|s| !s.is_empty()).ok_or_else(|| {
                    invalid("'key' (a call in Activity) or 'serverId' and 'tool' are required")
                })?,
                uri: String::new(),
                tool: tool
                    .filter(|t| !t.is_empty())
                    .ok_or_else(|| invalid("'tool' is required"))?,
                arguments: arguments.unwrap_or_else(|| Value::Object(Map::new())),
                result,
                chat: chat.and_then(|c| self.chat_for(sender, Some(c)).ok()),
                call_key: None,
            },
        };
        let definition = self
            .find_tool(&pending.server, &pending.tool)
            .ok_or_else(|| {
                invalid(format!(
                    "server '{}' has no tool '{}'",
                    self.config.server_name(&pending.server),
                    pending.tool
                ))
            })?;
        let uri = ToolUi::of(definition).resource_uri.ok_or_else(|| {
            invalid(format!("tool '{}' has no interface", pending.tool))
                .with_hint("Only tools whose server declares a ui:// view open as apps.")
        })?;
        let pending = PendingApp { uri, ..pending };
        let cached = (self.apps.documents)
            .get(&(pending.server.clone(), pending.uri.clone()))
            .cloned();
        match cached {
            Some(document) => Ok(Step::Done(self.app_opened(pending, document), shown)),
            // The mark's clearing is saved with the ledger's next change: a worker stopped
            // before that shows the app once more, nothing worse.
            None => Ok(Step::Io(Io::AppsOpen(pending))),
        }
    }

    /// The app's document was read and made (`AppDocument::from_read`, in the second module):
    /// keep it, open an instance and answer its view.
    pub fn app_read(&mut self, pending: PendingApp, document: AppDocument) -> Value {
        let key = (pending.server.clone(), pending.uri.clone());
        self.apps.documents.insert(key, document.clone());
        self.app_opened(pending, document)
    }

    fn app_opened(&mut self, pending: PendingApp, document: AppDocument) -> Value {
        self.apps.next += 1;
        let instance = format!("app-{}", self.apps.next);
        self.apps.open.insert(
            instance.clone(),
            Instance {
                server: pending.server.clone(),
                tool: pending.tool.clone(),
                chat: pending.chat.clone(),
                calls: 0,
            },
        );
        let tool = self
            .find_tool(&pending.server, &pending.tool)
            .cloned()
            .unwrap_or_else(|| crate::model::Tool::new(&pending.tool, Value::Null));
        let view = AppOpen {
            instance,
            server_id: pending.server.clone(),
            server_name: self.config.server_name(&pending.server),
            tool,
            arguments: pending.arguments,
            result: pending.result,
            call_key: pending.call_key,
            chat: pending.chat.is_some(),
            document,
        };
        super::answer::<crate::contract::request::answers::AppsOpen>(view)
    }

    /// Whether an open app may call `tool` now: its own server's, visible to apps, allowed by
    /// the user's policy (or `approved` by the user's click in the panel), within its budget of
    /// calls that do not ask. Returns the server and the validated arguments.
    fn app_may_call(
        &mut self,
        instance: &str,
        tool: &str,
        arguments: &Value,
        approved: bool,
    ) -> Result<(String, Map<String, Value>), ErrorBody> {
        let open = self.instance(instance)?.clone();
        if tool.is_empty() {
            return Err(invalid("'tool' is required"));
        }
        let definition = self.find_tool(&open.server, tool);
        check_app_call(&open.server, &open.server, tool, definition).map_err(|e| {
            ErrorBody::new(
                ErrorKind::Forbidden,
                format!("The app's call was refused: {e}."),
            )
        })?;
        let arguments = self.manual_call(&open.server, tool, arguments)?;
        let asks = matches!(
            self.config.decision(&open.server, tool, definition, true),
            Decision::Ask
        );
        if !approved && asks {
            return Err(ErrorBody::new(
                ErrorKind::ConfirmRequired,
                format!(
                    "The {} app asks to run '{tool}', which asks before it runs.",
                    open.tool
                ),
            )
            .with_details(vec![tool.to_owned()]));
        }
        if !approved && open.calls >= APP_CALLS_WITHOUT_ASKING {
            return Err(ErrorBody::new(
                ErrorKind::ConfirmRequired,
                format!(
                    "The {} app has made {} calls; each further call of '{tool}' asks first.",
                    open.tool, open.calls
                ),
            )
            .with_details(vec![tool.to_owned()]));
        }
        if let Some(i) = self.apps.open.get_mut(instance) {
            i.calls += 1;
        }
        Ok((open.server, arguments))
    }

    /// An app's call ended: recorded in its chat's Activity (made by the app, never delivered
    /// into the chat), and its result is the app's answer.
    pub fn app_call_done(
        &mut self,
        instance: &str,
        tool: &str,
        arguments: Map<String, Value>,
        result: Result<CallToolResult, ErrorBody>,
        duration_ms: u64,
    ) -> (Result<Value, ErrorBody>, Vec<Effect>) {
        let Some(open) = self.apps.open.get(instance).cloned() else {
            return (Err(closed(instance)), Vec::new());
        };
        self.call_ended(&open.server, duration_ms, result.is_ok());
        let mut effects = Vec::new();
        if let Some(chat) = &open.chat {
            self.ledger.next_seq += 1;
            let seq = self.ledger.next_seq;
            let message_id = format!("{instance}@{}", open.tool);
            let call_id = format!("a{seq}");
            let key = crate::policy::call_key(chat, &message_id, &call_id);
            let mut record = CallRecord::by_app(&key, chat, &open.server, tool, &open.tool, seq);
            record.arguments = Value::Object(arguments);
            record.duration_ms = Some(duration_ms);
            match &result {
                Ok(r) => {
                    record.state = if r.is_error() {
                        CallState::Failed
                    } else {
                        CallState::Done
                    };
                    record.result = serde_json::to_value(r).ok();
                }
                Err(e) => {
                    record.state = CallState::Failed;
                    record.error = Some(e.clone());
                }
            }
            self.ledger.calls.insert(key.clone(), record);
            effects.push(Effect::SaveLedger);
            effects.push(Effect::Notify {
                chat: chat.clone(),
                key,
            });
        }
        let answer = result.map(|r| serde_json::to_value(r).unwrap_or(Value::Null));
        (answer, effects)
    }
}
