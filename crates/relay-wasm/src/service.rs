//! The message handler the service worker calls for every admitted message, and the tool loop.
//!
//! The service worker classifies the sender (see `extension/background.js`) and passes
//! `{role, origin, tabId, url}`; the contract (`relay_core::contract`) admits or refuses the
//! message, then one handler per message name does the work. Answers are always envelopes
//! (`{ok, data}` / `{ok: false, error}`), never rejections, so callers have one shape to read.
//!
//! State: the configuration (servers, tool policies, chats, settings) lives in
//! `chrome.storage.local`, the call ledger in `chrome.storage.session` (cleared when the browser
//! closes, kept across service-worker restarts). Both are loaded once per worker life into
//! memory, changed synchronously, and written back whole after each change, so concurrent
//! handlers never interleave a read-modify-write.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use relay_core::client::config::MASK;
use relay_core::client::{import_mcp_servers, ClientError, ServerConfig, TransportKind};
use relay_core::contract::{self, ErrorBody, Role};
use relay_core::model::{CallToolResult, ServerTools, Tool};
use relay_core::parse::{parse_tool_calls, StreamParser};
use relay_core::policy::{
    allows_read_only, check_decision, content_server_ids, decide, is_destructive, policy_change,
    quoted_fingerprints, Admission, CallRecord, CallState, Decision, DecisionInput, Ledger,
    LoopLimits, NewCall, ToolPolicy, UserDecision,
};
use relay_core::prompt::{system_prompt, DisabledTools, PromptOptions, Strategy};
use relay_core::result::{format_results, Nudge, Outcome, ResultInput, ResultOptions};
use relay_core::schema::validate;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

use crate::js::{from_js, to_js};
use crate::mcp::{CallOptions, ClientOptions, McpClient, Progress, ProgressFn};
use crate::storage::{StorageError, Store};

/// Who sent a message, as the service worker established it from Chrome's `MessageSender`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sender {
    /// `"page"` or `"content"`.
    pub role: String,
    /// The sender's origin (`https://chatgpt.com`, `chrome-extension://…`).
    #[serde(default)]
    pub origin: String,
    /// The tab of a content script.
    #[serde(default)]
    pub tab_id: Option<i64>,
    /// The page URL of a content script.
    #[serde(default)]
    pub url: Option<String>,
}

/// Per-tool settings the user chose.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ToolSetting {
    policy: Option<ToolPolicy>,
    enabled: Option<bool>,
}

/// One chat's settings (a chat is a tab and its conversation URL).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ChatSettings {
    server_ids: Vec<String>,
    strategy: Option<Strategy>,
    template: Option<String>,
    auto_execute: bool,
    auto_submit: bool,
    max_consecutive: Option<u32>,
    max_total: Option<u32>,
}

/// Settings of the whole extension.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Settings {
    custom_instructions: String,
    default_strategy: Strategy,
    max_consecutive: u32,
    max_total: u32,
    result_max_chars: usize,
    /// The request timeout of servers added without one of their own.
    default_timeout_ms: u64,
    language: String,
}

impl Default for Settings {
    fn default() -> Self {
        let limits = LoopLimits::default();
        Settings {
            custom_instructions: String::new(),
            default_strategy: Strategy::Auto,
            max_consecutive: limits.max_consecutive,
            max_total: limits.max_total,
            result_max_chars: ResultOptions::default().max_chars,
            default_timeout_ms: relay_core::client::config::DEFAULT_TIMEOUT_MS,
            language: String::new(),
        }
    }
}

/// Everything in `chrome.storage.local` under "config".
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    servers: Vec<ServerConfig>,
    tools: BTreeMap<String, BTreeMap<String, ToolSetting>>,
    chats: BTreeMap<String, ChatSettings>,
    settings: Settings,
}

/// A server's last connection error and last call latency (ms), for the side panel.
type Health = (Option<ErrorBody>, Option<u64>);

/// The service-worker state. Rebuilt from storage after a restart.
pub struct Service {
    local: Store,
    session: Store,
    client: McpClient,
    loaded: Cell<bool>,
    config: RefCell<Config>,
    ledger: RefCell<Ledger>,
    /// Last known tools per server (also in storage, so prompts work right after a restart).
    tools: RefCell<BTreeMap<String, Vec<Tool>>>,
    /// Last connection error and call latency per server, for the side panel.
    health: RefCell<HashMap<String, Health>>,
    parsers: RefCell<HashMap<String, StreamParser>>,
}

thread_local! {
    static SERVICE: Rc<Service> = Rc::new(Service {
        local: Store::detect("local"),
        session: Store::detect("session"),
        client: McpClient::new(ClientOptions::default()),
        loaded: Cell::new(false),
        config: RefCell::new(Config::default()),
        ledger: RefCell::new(Ledger::default()),
        tools: RefCell::new(BTreeMap::new()),
        health: RefCell::new(HashMap::new()),
        parsers: RefCell::new(HashMap::new()),
    });
}

fn service() -> Rc<Service> {
    SERVICE.with(Rc::clone)
}

impl From<StorageError> for ErrorBody {
    fn from(e: StorageError) -> Self {
        ErrorBody::new("storage", e.to_string()).with_hint(
            "Reload the extension; if it persists, reset its data in the side panel's settings.",
        )
    }
}

fn client_error(e: &ClientError) -> ErrorBody {
    let r = e.report();
    let body = ErrorBody::new(r.kind, r.message);
    if r.hint.is_empty() {
        body
    } else {
        body.with_hint(r.hint)
    }
}

/// Milliseconds since the epoch, from the JS clock (the core never reads one).
fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new("invalid_argument", message)
}

type HandlerResult = Result<Value, ErrorBody>;

/// Handles one message from an extension page or content script; always resolves to an
/// envelope. `sender` is `{role, origin, tabId?, url?}`, decided by the service worker from
/// Chrome's sender information, never from the message.
#[wasm_bindgen]
pub async fn handle(message: JsValue, sender: JsValue) -> Result<JsValue, JsValue> {
    let sender: Sender = match from_js(sender, "sender") {
        Ok(s) => s,
        Err(_) => {
            return to_js(&contract::err(ErrorBody::new(
                "forbidden",
                "missing sender",
            )))
        }
    };
    let answer = match admit(message, &sender.role) {
        Ok((name, role, msg)) => {
            let svc = service();
            match svc.ensure_loaded().await {
                Ok(()) => match svc.dispatch(name, role, &sender, &msg).await {
                    Ok(data) => contract::ok(data),
                    Err(e) => contract::err(e),
                },
                Err(e) => contract::err(e),
            }
        }
        Err(e) => contract::err(e),
    };
    to_js(&answer)
}

fn admit(message: JsValue, role: &str) -> Result<(&'static str, Role, Value), ErrorBody> {
    let role = match role {
        "page" => Role::Page,
        "content" => Role::Content,
        other => {
            return Err(ErrorBody::new(
                "forbidden",
                format!("unknown sender role '{other}'"),
            ))
        }
    };
    let msg: Value = from_js(message, "message")
        .map_err(|_| ErrorBody::from(contract::ContractError::Malformed))?;
    let spec = contract::admit(&msg, role)?;
    Ok((spec.name, role, msg))
}

fn str_field<'a>(msg: &'a Value, key: &str) -> Result<&'a str, ErrorBody> {
    msg.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid(format!("'{key}' is required")))
}

/// A chat's key: its tab and conversation URL (without the fragment).
fn chat_key(tab_id: i64, url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    format!("{tab_id}|{url}")
}

fn tab_of(chat: &str) -> Option<i64> {
    chat.split('|').next().and_then(|t| t.parse().ok())
}

impl Service {
    async fn ensure_loaded(&self) -> Result<(), ErrorBody> {
        if self.loaded.get() {
            return Ok(());
        }
        let config: Config =
            serde_json::from_value(self.local.get("config").await?).unwrap_or_default();
        let tools: BTreeMap<String, Vec<Tool>> =
            serde_json::from_value(self.local.get("tools").await?).unwrap_or_default();
        let mut ledger: Ledger =
            serde_json::from_value(self.session.get("ledger").await?).unwrap_or_default();
        // A worker that stopped mid-call cannot know whether the call ran.
        let recovered = ledger.recover_after_restart();
        if self.loaded.get() {
            return Ok(()); // another handler finished loading while we awaited
        }
        let _ = sync_origin_rules(&config.servers).await;
        self.client.set_servers(config.servers.clone());
        *self.config.borrow_mut() = config;
        *self.tools.borrow_mut() = tools;
        *self.ledger.borrow_mut() = ledger;
        self.loaded.set(true);
        if !recovered.is_empty() {
            self.save_ledger().await?;
            // Tell the chats: their cards turn to "unknown" with a Run again button.
            for key in &recovered {
                let chat = self.ledger.borrow().calls.get(key).map(|r| r.chat.clone());
                if let Some(chat) = chat {
                    self.notify(&chat, key).await;
                }
            }
        }
        Ok(())
    }

    async fn save_config(&self) -> Result<(), ErrorBody> {
        let value = serde_json::to_value(&*self.config.borrow()).unwrap_or(Value::Null);
        self.local.set("config", &value).await.map_err(Into::into)
    }

    /// Makes the Origin rules for `servers` (the server list as it is about to be) before the
    /// list changes: configuration and client then change together with no await between them,
    /// so no concurrent handler sees a server the client does not know, and no connection to a
    /// new loopback server goes out before its rule exists.
    async fn prepare_servers(
        &self,
        change: impl FnOnce(&mut Vec<ServerConfig>),
    ) -> Result<(), ErrorBody> {
        let mut next = self.config.borrow().servers.clone();
        change(&mut next);
        sync_origin_rules(&next).await
    }

    async fn save_tools(&self) -> Result<(), ErrorBody> {
        let value = serde_json::to_value(&*self.tools.borrow()).unwrap_or(Value::Null);
        self.local.set("tools", &value).await.map_err(Into::into)
    }

    async fn save_ledger(&self) -> Result<(), ErrorBody> {
        let value = {
            let mut ledger = self.ledger.borrow_mut();
            ledger.prune(500);
            serde_json::to_value(&*ledger).unwrap_or(Value::Null)
        };
        self.session.set("ledger", &value).await.map_err(Into::into)
    }

    async fn dispatch(
        self: &Rc<Self>,
        name: &str,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        match name {
            "ping" => Ok(json!({"core": env!("CARGO_PKG_VERSION"), "role": role})),
            "settings/get" => {
                Ok(serde_json::to_value(&self.config.borrow().settings).unwrap_or(Value::Null))
            }
            "settings/set" => {
                let settings: Settings =
                    serde_json::from_value(msg.get("settings").cloned().unwrap_or(Value::Null))
                        .map_err(|e| invalid(format!("settings: {e}")))?;
                self.config.borrow_mut().settings = settings;
                self.save_config().await?;
                Ok(serde_json::to_value(&self.config.borrow().settings).unwrap_or(Value::Null))
            }
            "servers/list" => Ok(Value::from(self.server_views())),
            "servers/add" => {
                self.add_server(msg.get("server").cloned().unwrap_or(Value::Null))
                    .await
            }
            "servers/update" => {
                self.update_server(msg.get("server").cloned().unwrap_or(Value::Null))
                    .await
            }
            "servers/remove" => {
                let id = str_field(msg, "id")?.to_owned();
                self.client.remove_server(&id);
                {
                    let mut c = self.config.borrow_mut();
                    c.servers.retain(|s| s.id != id);
                    c.tools.remove(&id);
                    for chat in c.chats.values_mut() {
                        chat.server_ids.retain(|s| *s != id);
                    }
                }
                self.tools.borrow_mut().remove(&id);
                self.save_config().await?;
                self.save_tools().await?;
                let servers = self.config.borrow().servers.clone();
                sync_origin_rules(&servers).await?;
                Ok(Value::Null)
            }
            "servers/import" => self.import_servers(msg).await,
            "servers/export" => {
                let mut out = Map::new();
                for s in &self.config.borrow().servers {
                    let transport = match s.transport {
                        TransportKind::Sse => "sse",
                        _ => "http",
                    };
                    out.insert(s.name.clone(), json!({"url": s.url, "type": transport}));
                }
                Ok(json!({"mcpServers": out}))
            }
            "servers/test" => {
                let id = str_field(msg, "id")?.to_owned();
                let _ = self.refresh_tools(&id, true).await;
                self.server_view(&id)
                    .ok_or_else(|| invalid(format!("no server '{id}'")))
            }
            "tools/list" => self.list_tools(msg).await,
            "tools/policy" => self.set_policy(msg).await,
            "tools/call" => self.manual_call(msg).await,
            "prompts/list" => {
                let id = str_field(msg, "serverId")?;
                let prompts = self
                    .client
                    .list_prompts(id)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(prompts).unwrap_or(Value::Null))
            }
            "prompts/get" => {
                let id = str_field(msg, "serverId")?;
                let prompt = str_field(msg, "name")?;
                let args: BTreeMap<String, String> =
                    serde_json::from_value(msg.get("arguments").cloned().unwrap_or(json!({})))
                        .unwrap_or_default();
                let got = self
                    .client
                    .get_prompt(
                        id,
                        prompt,
                        args.into_iter()
                            .map(|(k, v)| (k, Value::String(v)))
                            .collect(),
                    )
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(got).unwrap_or(Value::Null))
            }
            "resources/list" => {
                let id = str_field(msg, "serverId")?;
                let got = self
                    .client
                    .list_resources(id)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(got).unwrap_or(Value::Null))
            }
            "resources/read" => {
                let id = str_field(msg, "serverId")?;
                let uri = str_field(msg, "uri")?;
                let got = self
                    .client
                    .read_resource(id, uri)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(got).unwrap_or(Value::Null))
            }
            "chat/get" => {
                let chat = self.chat_for(role, sender, msg)?;
                Ok(serde_json::to_value(self.chat_settings(&chat)).unwrap_or(Value::Null))
            }
            "chat/set" => {
                let chat = self.chat_for(role, sender, msg)?;
                let settings: ChatSettings =
                    serde_json::from_value(msg.get("settings").cloned().unwrap_or(Value::Null))
                        .map_err(|e| invalid(format!("settings: {e}")))?;
                self.config
                    .borrow_mut()
                    .chats
                    .insert(chat.clone(), settings);
                self.save_config().await?;
                Ok(serde_json::to_value(self.chat_settings(&chat)).unwrap_or(Value::Null))
            }
            "prompt/build" => self.build_prompt(role, sender, msg).await,
            "chat/insert" => {
                let chat = self.chat_for(role, sender, msg)?;
                let text = str_field(msg, "text")?;
                let submit = msg.get("submit").and_then(Value::as_bool).unwrap_or(false);
                // Inserting the instructions starts a new turn of the loop.
                self.ledger.borrow_mut().new_turn(&chat);
                // Persisted before the text goes out: after a worker restart the loop limits
                // must count from this turn, not from the previous one.
                self.save_ledger().await?;
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                send_to_tab(
                    tab,
                    &json!({"type": "relay/insert", "text": text, "submit": submit}),
                )
                .await
            }
            "reply/parse" => {
                let text = str_field(msg, "text")?;
                let servers = match role {
                    Role::Content => {
                        let chat = self.chat_for(role, sender, msg)?;
                        self.selected_tools(&self.chat_settings(&chat).server_ids)
                    }
                    Role::Page => {
                        let ids: Vec<String> = serde_json::from_value(
                            msg.get("serverIds").cloned().unwrap_or(json!([])),
                        )
                        .unwrap_or_default();
                        self.selected_tools(&ids)
                    }
                };
                Ok(serde_json::to_value(parse_tool_calls(text, &servers)).unwrap_or(Value::Null))
            }
            "reply/update" => self.reply_update(role, sender, msg).await,
            "activity/list" => {
                let chat = self.chat_for(role, sender, msg)?;
                let ledger = self.ledger.borrow();
                Ok(serde_json::to_value(ledger.for_chat(&chat)).unwrap_or(Value::Null))
            }
            "activity/decide" => self.decide_call(role, sender, msg).await,
            "sites/list" => self.sites().await.map(Value::from),
            "sites/add" => {
                let origin = web_origin(msg.get("origin"))?;
                let adapter = msg
                    .get("adapter")
                    .and_then(Value::as_str)
                    .unwrap_or("generic")
                    .to_owned();
                let mut sites = self.sites().await?;
                sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
                sites.push(json!({"origin": origin, "adapter": adapter}));
                self.local.set("sites", &Value::from(sites.clone())).await?;
                Ok(Value::from(sites))
            }
            "sites/remove" => {
                let origin = web_origin(msg.get("origin"))?;
                let mut sites = self.sites().await?;
                sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
                self.local.set("sites", &Value::from(sites.clone())).await?;
                // Give the host permission back, unless a configured server still needs it.
                let needed = self.config.borrow().servers.iter().any(|s| {
                    relay_core::client::HttpUrl::parse(&s.url)
                        .is_ok_and(|u| u.origin().eq_ignore_ascii_case(&origin))
                });
                if !needed {
                    release_origin(&origin).await;
                }
                Ok(Value::from(sites))
            }
            "sites/check" => {
                let chat = self.chat_for(role, sender, msg)?;
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                send_to_tab(tab, &json!({"type": "relay/check"})).await
            }
            "sites/adapter" => {
                let sites = self.sites().await?;
                Ok(sites
                    .into_iter()
                    .find(|s| {
                        s.get("origin").and_then(Value::as_str) == Some(sender.origin.as_str())
                    })
                    .map(|s| json!({"adapter": s.get("adapter").cloned().unwrap_or(Value::Null)}))
                    .unwrap_or(Value::Null))
            }
            other => Err(ErrorBody::new(
                "unavailable",
                format!("'{other}' is not handled"),
            )),
        }
    }

    /// Custom chat sites the user added: `[{origin, adapter}]`.
    async fn sites(&self) -> Result<Vec<Value>, ErrorBody> {
        match self.local.get("sites").await? {
            Value::Array(a) => Ok(a),
            _ => Ok(Vec::new()),
        }
    }

    /// The chat a message is about: a content script's own tab, or the `chat` a page names.
    fn chat_for(&self, role: Role, sender: &Sender, msg: &Value) -> Result<String, ErrorBody> {
        match role {
            Role::Content => {
                let tab = sender
                    .tab_id
                    .ok_or_else(|| invalid("content script without a tab"))?;
                Ok(chat_key(tab, sender.url.as_deref().unwrap_or("")))
            }
            Role::Page => {
                let chat = msg
                    .get("chat")
                    .ok_or_else(|| invalid("'chat' ({tabId, url}) is required"))?;
                let tab = chat
                    .get("tabId")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| invalid("'chat.tabId' is required"))?;
                let url = chat.get("url").and_then(Value::as_str).unwrap_or("");
                Ok(chat_key(tab, url))
            }
        }
    }

    fn chat_settings(&self, chat: &str) -> ChatSettings {
        self.config
            .borrow()
            .chats
            .get(chat)
            .cloned()
            .unwrap_or_default()
    }

    fn limits(&self, chat: &ChatSettings) -> LoopLimits {
        let s = &self.config.borrow().settings;
        LoopLimits {
            max_consecutive: chat.max_consecutive.unwrap_or(s.max_consecutive),
            max_total: chat.max_total.unwrap_or(s.max_total),
        }
    }

    // ---- servers -------------------------------------------------------------------------

    fn server_view(&self, id: &str) -> Option<Value> {
        let config = self.config.borrow();
        let s = config.servers.iter().find(|s| s.id == id)?;
        let status = self.client.status().into_iter().find(|st| st.id == id);
        let (error, latency) = self
            .health
            .borrow()
            .get(id)
            .cloned()
            .unwrap_or((None, None));
        let tool_count = self.tools.borrow().get(id).map(Vec::len);
        let state = if !s.enabled {
            "disabled"
        } else if error.is_some() {
            "failed"
        } else if status.as_ref().is_some_and(|st| st.connected) {
            "connected"
        } else {
            "idle"
        };
        let headers: Vec<Value> = s
            .masked_headers()
            .into_iter()
            .map(|(name, value, secret)| json!({"name": name, "value": value, "secret": secret}))
            .collect();
        let protocol = status
            .as_ref()
            .and_then(|st| st.info.as_ref())
            .map(|i| serde_json::to_value(i).unwrap_or(Value::Null));
        Some(json!({
            "id": s.id, "name": s.name, "url": s.url, "transport": s.transport, "headers": headers,
            "timeoutMs": s.timeout_ms, "enabled": s.enabled,
            "state": {"status": state, "info": protocol, "toolCount": tool_count, "error": error, "lastLatencyMs": latency,
                      "transport": status.as_ref().and_then(|st| st.transport.map(|t| serde_json::to_value(t).unwrap_or(Value::Null)))},
        }))
    }

    fn server_views(&self) -> Vec<Value> {
        let ids: Vec<String> = self
            .config
            .borrow()
            .servers
            .iter()
            .map(|s| s.id.clone())
            .collect();
        ids.iter().filter_map(|id| self.server_view(id)).collect()
    }

    fn unique_id(&self, name: &str) -> String {
        let base: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .trim_matches('-')
            .to_owned();
        let base = if base.is_empty() {
            "server".to_owned()
        } else {
            base
        };
        let taken = |id: &str| self.config.borrow().servers.iter().any(|s| s.id == id);
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken(id))
            .unwrap_or(base)
    }

    fn server_from(&self, value: Value, id: Option<String>) -> Result<ServerConfig, ErrorBody> {
        let mut v = value;
        if let Some(obj) = v.as_object_mut() {
            if let Some(id) = id {
                obj.insert("id".into(), Value::String(id));
            }
            // The panel sends headers as [{name, value, secret?}]; `secret` marks a header
            // whose name does not say it is a credential.
            if let Some(Value::Array(items)) = obj.get("headers").cloned() {
                let named = |h: &Value| -> Option<(String, String, bool)> {
                    let name = h.get("name")?.as_str()?.trim();
                    let value = h.get("value")?.as_str()?;
                    let secret = h.get("secret").and_then(Value::as_bool).unwrap_or(false);
                    (!name.is_empty()).then(|| (name.to_owned(), value.to_owned(), secret))
                };
                let rows: Vec<(String, String, bool)> = items.iter().filter_map(named).collect();
                let pairs: Vec<Value> = rows.iter().map(|(k, v, _)| json!([k, v])).collect();
                let secret: Vec<Value> = rows
                    .iter()
                    .filter(|(_, _, secret)| *secret)
                    .map(|(k, _, _)| json!(k))
                    .collect();
                obj.insert("headers".into(), Value::Array(pairs));
                obj.insert("secretHeaders".into(), Value::Array(secret));
            }
        }
        let server: ServerConfig =
            serde_json::from_value(v).map_err(|e| invalid(format!("server: {e}")))?;
        server.validate().map_err(|e| invalid(e.to_string()))?;
        Ok(server)
    }

    async fn add_server(self: &Rc<Self>, value: Value) -> HandlerResult {
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("server")
            .to_owned();
        let id = self.unique_id(&name);
        let mut value = value;
        if let Some(obj) = value.as_object_mut() {
            if !obj.contains_key("timeoutMs") {
                let timeout = self.config.borrow().settings.default_timeout_ms;
                obj.insert("timeoutMs".into(), json!(timeout));
            }
        }
        let mut server = self.server_from(value, Some(id.clone()))?;
        if server.name.trim().is_empty() {
            server.name = id.clone();
        }
        let added = server.clone();
        self.prepare_servers(|list| list.push(added)).await?;
        if self.config.borrow().servers.iter().any(|s| s.id == id) {
            return Err(invalid(format!(
                "a server with id '{id}' was added meanwhile; try again"
            )));
        }
        self.config.borrow_mut().servers.push(server.clone());
        self.client.add_server(server);
        self.save_config().await?;
        let _ = self.refresh_tools(&id, false).await;
        self.server_view(&id)
            .ok_or_else(|| invalid("server vanished"))
    }

    async fn update_server(self: &Rc<Self>, value: Value) -> HandlerResult {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("'server.id' is required"))?
            .to_owned();
        let old = self
            .config
            .borrow()
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| invalid(format!("no server '{id}'")))?;
        let mut server = self.server_from(value, Some(id.clone()))?;
        // A masked value means "unchanged": secrets never round-trip through the panel.
        for (k, v) in &mut server.headers {
            if v == MASK {
                if let Some((_, old_v)) = old
                    .headers
                    .iter()
                    .find(|(ok, _)| ok.eq_ignore_ascii_case(k))
                {
                    *v = old_v.clone();
                }
            }
        }
        let updated = server.clone();
        self.prepare_servers(|list| {
            if let Some(slot) = list.iter_mut().find(|s| s.id == updated.id) {
                *slot = updated;
            }
        })
        .await?;
        {
            let mut c = self.config.borrow_mut();
            if let Some(slot) = c.servers.iter_mut().find(|s| s.id == id) {
                *slot = server.clone();
            }
        }
        self.health.borrow_mut().remove(&id);
        self.client.remove_server(&id);
        self.client.add_server(server.clone());
        self.save_config().await?;
        if server.enabled {
            let _ = self.refresh_tools(&id, true).await;
        }
        self.server_view(&id)
            .ok_or_else(|| invalid("server vanished"))
    }

    async fn import_servers(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let text = str_field(msg, "json")?;
        let apply = msg.get("apply").and_then(Value::as_bool).unwrap_or(false);
        let existing: Vec<String> = self
            .config
            .borrow()
            .servers
            .iter()
            .map(|s| s.id.clone())
            .collect();
        let report = import_mcp_servers(text, &existing).map_err(|e| invalid(e.to_string()))?;
        let skipped = serde_json::to_value(&report.skipped).unwrap_or(Value::Null);
        let mut views = Vec::new();
        for server in report.servers {
            if apply {
                let mut v = serde_json::to_value(&server).unwrap_or(Value::Null);
                if let Some(o) = v.as_object_mut() {
                    o.remove("id");
                }
                views.push(self.add_server(v).await?);
            } else {
                views.push(json!({"name": server.name, "url": server.url, "transport": server.transport,
                    "headers": server.headers.iter().map(|(k, _)| json!({"name": k, "value": MASK})).collect::<Vec<_>>()}));
            }
        }
        Ok(json!({"servers": views, "skipped": skipped}))
    }

    async fn refresh_tools(&self, id: &str, refresh: bool) -> Result<Vec<Tool>, ErrorBody> {
        let started = now_ms();
        match self.client.list_tools(id, refresh).await {
            Ok(tools) => {
                self.health.borrow_mut().insert(
                    id.to_owned(),
                    (None, Some(now_ms().saturating_sub(started))),
                );
                let changed = self.tools.borrow().get(id) != Some(&tools);
                if changed {
                    self.tools.borrow_mut().insert(id.to_owned(), tools.clone());
                    self.save_tools().await?;
                }
                Ok(tools)
            }
            Err(e) => {
                let body = client_error(&e);
                self.health
                    .borrow_mut()
                    .insert(id.to_owned(), (Some(body.clone()), None));
                Err(body)
            }
        }
    }

    // ---- tools ---------------------------------------------------------------------------

    fn tool_setting(&self, server: &str, tool: &Tool) -> (ToolPolicy, bool) {
        let config = self.config.borrow();
        let s = config.tools.get(server).and_then(|m| m.get(&tool.name));
        let policy = s.and_then(|s| s.policy).unwrap_or(ToolPolicy::DEFAULT);
        (policy, s.and_then(|s| s.enabled).unwrap_or(true))
    }

    fn tool_view(&self, server: &str, tool: &Tool) -> Value {
        let (policy, enabled) = self.tool_setting(server, tool);
        let mut v = serde_json::to_value(tool).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.insert("serverId".into(), json!(server));
            o.insert("policy".into(), json!(policy));
            o.insert("enabled".into(), json!(enabled));
        }
        v
    }

    async fn list_tools(&self, msg: &Value) -> HandlerResult {
        let refresh = msg.get("refresh").and_then(Value::as_bool).unwrap_or(false);
        let ids: Vec<String> = match msg.get("serverId").and_then(Value::as_str) {
            Some(id) => vec![id.to_owned()],
            None => self
                .config
                .borrow()
                .servers
                .iter()
                .filter(|s| s.enabled)
                .map(|s| s.id.clone())
                .collect(),
        };
        let single = ids.len() == 1 && msg.get("serverId").is_some();
        let mut out = Vec::new();
        for id in ids {
            let tools = match self.refresh_tools(&id, refresh).await {
                Ok(t) => t,
                Err(e) if single => return Err(e),
                // A dead server keeps its last known tools in the list (and its error in its state).
                Err(_) => self.tools.borrow().get(&id).cloned().unwrap_or_default(),
            };
            out.extend(tools.iter().map(|t| self.tool_view(&id, t)));
        }
        Ok(Value::from(out))
    }

    async fn set_policy(&self, msg: &Value) -> HandlerResult {
        let server = str_field(msg, "serverId")?.to_owned();
        let policy: Option<ToolPolicy> = match msg.get("policy") {
            None | Some(Value::Null) => None,
            Some(p) => Some(
                serde_json::from_value(p.clone())
                    .map_err(|_| invalid("policy must be allow, ask or deny"))?,
            ),
        };
        let enabled = msg.get("enabled").and_then(Value::as_bool);
        let confirm = msg.get("confirm").and_then(Value::as_bool).unwrap_or(false);
        // `readOnly: true`: the user's one-click "allow this server's read-only tools".
        let read_only = msg
            .get("readOnly")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let known = self
            .tools
            .borrow()
            .get(&server)
            .cloned()
            .unwrap_or_default();
        let chosen: Vec<&Tool> = match msg.get("tool").and_then(Value::as_str) {
            Some(t) => known.iter().filter(|k| k.name == t).collect(),
            None if read_only => known.iter().filter(|t| allows_read_only(t)).collect(),
            None => known.iter().collect(),
        };
        for tool in &chosen {
            policy_change(tool, policy, confirm)?;
        }
        let mut names: Vec<String> = chosen.iter().map(|t| t.name.clone()).collect();
        if let Some(t) = msg.get("tool").and_then(Value::as_str) {
            if names.is_empty() {
                names.push(t.to_owned()); // a tool not listed (yet): its setting waits for it
            }
        }
        {
            let mut c = self.config.borrow_mut();
            let entry = c.tools.entry(server.clone()).or_default();
            for name in names {
                let s = entry.entry(name).or_default();
                if policy.is_some() {
                    s.policy = policy;
                }
                if enabled.is_some() {
                    s.enabled = enabled;
                }
            }
        }
        self.save_config().await?;
        let tools = self
            .tools
            .borrow()
            .get(&server)
            .cloned()
            .unwrap_or_default();
        Ok(Value::from(
            tools
                .iter()
                .map(|t| self.tool_view(&server, t))
                .collect::<Vec<_>>(),
        ))
    }

    fn find_tool(&self, server: &str, tool: &str) -> Option<Tool> {
        self.tools
            .borrow()
            .get(server)?
            .iter()
            .find(|t| t.name == tool)
            .cloned()
    }

    /// A call from the side panel's "run by hand": the click is the approval, but disabled and
    /// denied tools stay refused and arguments are validated.
    async fn manual_call(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let server = str_field(msg, "serverId")?.to_owned();
        let name = str_field(msg, "tool")?.to_owned();
        if self.find_tool(&server, &name).is_none() {
            let _ = self.refresh_tools(&server, false).await;
        }
        let tool = self
            .find_tool(&server, &name)
            .ok_or_else(|| invalid(format!("server '{server}' has no tool '{name}'")))?;
        let (policy, enabled) = self.tool_setting(&server, &tool);
        let server_enabled = self
            .config
            .borrow()
            .servers
            .iter()
            .any(|s| s.id == server && s.enabled);
        if let Decision::Deny { reason } = decide(DecisionInput {
            server_enabled,
            tool_enabled: enabled,
            policy,
            auto_execute: true,
            tool: &name,
        }) {
            return Err(ErrorBody::new("denied", reason)
                .with_hint("Change the tool's policy in the Tools view to run it."));
        }
        let args = msg.get("arguments").cloned().unwrap_or(json!({}));
        let checked = validate(&tool, &args);
        if !checked.is_valid() {
            return Err(invalid(
                checked.message_for_model(&name).unwrap_or_default(),
            ));
        }
        let started = now_ms();
        let arguments = checked.arguments.as_object().cloned().unwrap_or_default();
        let result = self
            .client
            .call_tool(&server, &name, arguments, CallOptions::default())
            .await;
        let duration = now_ms().saturating_sub(started);
        self.health
            .borrow_mut()
            .insert(server.clone(), (None, Some(duration)));
        match result {
            Ok(r) => Ok(
                json!({"state": "done", "tool": name, "serverId": server, "arguments": checked.arguments,
                               "result": r, "durationMs": duration}),
            ),
            Err(e) => Err(client_error(&e)),
        }
    }

    // ---- prompts -------------------------------------------------------------------------

    /// The tools of the given servers (enabled servers and tools only), as the prompt and the
    /// parser see them.
    fn selected_tools(&self, ids: &[String]) -> Vec<ServerTools> {
        let config = self.config.borrow();
        let tools = self.tools.borrow();
        ids.iter()
            .filter_map(|id| {
                let s = config.servers.iter().find(|s| &s.id == id && s.enabled)?;
                let list: Vec<Tool> = tools
                    .get(id)
                    .map(|ts| {
                        ts.iter()
                            .filter(|t| self.tool_setting(id, t).1)
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                Some(ServerTools::new(s.id.clone(), s.name.clone(), list))
            })
            .collect()
    }

    async fn build_prompt(&self, role: Role, sender: &Sender, msg: &Value) -> HandlerResult {
        let chat = self
            .chat_for(role, sender, msg)
            .ok()
            .map(|c| self.chat_settings(&c));
        let requested: Option<Vec<String>> = match msg.get("serverIds") {
            Some(v) => Some(
                serde_json::from_value(v.clone())
                    .map_err(|_| invalid("serverIds must be a list of ids"))?,
            ),
            None => None,
        };
        let picked = chat
            .as_ref()
            .map(|c| c.server_ids.clone())
            .unwrap_or_default();
        let ids: Vec<String> = match role {
            // A chat page may only describe its own chat's servers (and so never makes the
            // worker connect to any other).
            Role::Content => content_server_ids(requested, &picked)?,
            Role::Page => requested.unwrap_or(picked),
        };
        // Tools come from the stored lists; a server never listed yet is asked now.
        for id in &ids {
            if !self.tools.borrow().contains_key(id) {
                let _ = self.refresh_tools(id, false).await;
            }
        }
        let all: Vec<ServerTools> = self.selected_tools(&ids);
        let settings = self.config.borrow().settings.clone();
        let mut options: PromptOptions = match msg.get("options") {
            Some(o) => {
                serde_json::from_value(o.clone()).map_err(|e| invalid(format!("options: {e}")))?
            }
            None => PromptOptions::default(),
        };
        if msg.get("options").is_none() {
            let limits = chat.as_ref().map(|c| self.limits(c)).unwrap_or_default();
            options.strategy = chat
                .as_ref()
                .and_then(|c| c.strategy)
                .unwrap_or(settings.default_strategy);
            options.max_calls_per_reply = limits.max_consecutive;
            options.max_calls_per_turn = limits.max_total;
            if !settings.custom_instructions.trim().is_empty() {
                options.custom_instructions = Some(settings.custom_instructions.clone());
            }
        }
        let outcome = system_prompt(&all, &ids, &DisabledTools::default(), &options);
        let mut value = match outcome.prompt {
            Some(p) => serde_json::to_value(p).unwrap_or(Value::Null),
            None => Value::Null,
        };
        if let Some(o) = value.as_object_mut() {
            o.insert(
                "diagnostics".into(),
                serde_json::to_value(&outcome.diagnostics).unwrap_or(Value::Null),
            );
        }
        Ok(value)
    }

    // ---- the loop ------------------------------------------------------------------------

    async fn reply_update(
        self: &Rc<Self>,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        let chat = self.chat_for(role, sender, msg)?;
        let message_id = str_field(msg, "messageId")?.to_owned();
        let text = msg.get("text").and_then(Value::as_str).unwrap_or("");
        let done = msg.get("done").and_then(Value::as_bool).unwrap_or(false);
        let history = msg.get("history").and_then(Value::as_bool).unwrap_or(false);
        let settings = self.chat_settings(&chat);
        if settings.server_ids.is_empty() {
            return Ok(json!({"calls": [], "pending": false}));
        }
        let pkey = format!("{chat}|{message_id}");
        let update = {
            let mut parsers = self.parsers.borrow_mut();
            let parser = parsers
                .entry(pkey.clone())
                .or_insert_with(|| StreamParser::new(self.selected_tools(&settings.server_ids)));
            let mut update = parser.push(text);
            if done {
                let last = parser.finish();
                update.calls.extend(last.calls);
                update.pending = false;
            }
            update
        };
        if done {
            self.parsers.borrow_mut().remove(&pkey);
        }
        let limits = self.limits(&settings);
        let mut to_run = Vec::new();
        let mut changed = false;
        for call in &update.calls {
            if history {
                continue; // replies that were on the page before we looked are never run
            }
            let tool = self.find_tool(&call.server, &call.tool);
            let destructive = tool.as_ref().is_some_and(is_destructive);
            let decision = match tool {
                Some(tool) => {
                    let (policy, enabled) = self.tool_setting(&call.server, &tool);
                    let server_enabled = self
                        .config
                        .borrow()
                        .servers
                        .iter()
                        .any(|s| s.id == call.server && s.enabled);
                    decide(DecisionInput {
                        server_enabled,
                        tool_enabled: enabled,
                        policy,
                        auto_execute: settings.auto_execute,
                        tool: &call.tool,
                    })
                }
                None => Decision::Deny {
                    reason: format!("Tool '{}' is not available.", call.tool),
                },
            };
            let admission = self.ledger.borrow_mut().admit(
                &NewCall {
                    chat: &chat,
                    message_id: &message_id,
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
                if rec.state == CallState::Running {
                    to_run.push(rec.key.clone());
                }
            }
        }
        let has_calls = !self
            .ledger
            .borrow()
            .for_chat(&chat)
            .iter()
            .all(|c| c.message_id != message_id);
        let mut remind = false;
        if done && !history && !has_calls {
            let mut ledger = self.ledger.borrow_mut();
            ledger.reply_without_calls(&chat);
            let strategy = settings
                .strategy
                .unwrap_or(self.config.borrow().settings.default_strategy);
            remind = strategy == Strategy::ToolForced && ledger.nudge_for_missing_call(&chat);
            changed = true;
        }
        if remind {
            // The model answered without the tool call this chat requires: remind it once.
            if let Some(tab) = tab_of(&chat) {
                let text = relay_core::policy::TOOL_FORCED_REMINDER;
                let reminder =
                    json!({"type": "relay/insert", "text": text, "submit": settings.auto_submit});
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = send_to_tab(tab, &reminder).await;
                });
            }
        }
        if changed {
            self.save_ledger().await?;
        }
        for key in to_run {
            self.spawn_call(key);
        }
        // Deliver what is ready in this chat: this message's results, and results that finished
        // while the tab could not take them (it was reloading, or the worker restarted).
        self.clone().deliver_pending(chat.clone());
        let records: Vec<Value> = self
            .ledger
            .borrow()
            .for_chat(&chat)
            .into_iter()
            .filter(|c| c.message_id == message_id)
            .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
            .collect();
        Ok(json!({"calls": records, "pending": update.pending, "diagnostics": update.diagnostics}))
    }

    async fn decide_call(
        self: &Rc<Self>,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        let key = str_field(msg, "key")?.to_owned();
        let decision = str_field(msg, "decision")?;
        let decision = UserDecision::parse(decision)
            .ok_or_else(|| invalid(format!("unknown decision '{decision}'")))?;
        let confirm = msg.get("confirm").and_then(Value::as_bool).unwrap_or(false);
        let rec = self
            .ledger
            .borrow()
            .calls
            .get(&key)
            .cloned()
            .ok_or_else(|| invalid("no such call"))?;
        let sender_chat = match role {
            Role::Content => Some(self.chat_for(role, sender, msg)?),
            Role::Page => None,
        };
        check_decision(role, &rec, sender_chat.as_deref(), decision)?;
        match decision {
            UserDecision::Run | UserDecision::Always => {
                let tool = self.find_tool(&rec.server_id, &rec.tool);
                if decision == UserDecision::Always {
                    if let Some(tool) = &tool {
                        policy_change(tool, Some(ToolPolicy::Allow), confirm)?;
                    }
                    self.config
                        .borrow_mut()
                        .tools
                        .entry(rec.server_id.clone())
                        .or_default()
                        .entry(rec.tool.clone())
                        .or_default()
                        .policy = Some(ToolPolicy::Allow);
                    self.save_config().await?;
                }
                // Policy still applies to the click: a denied or disabled tool never runs.
                if let Some(tool) = &tool {
                    let (policy, enabled) = self.tool_setting(&rec.server_id, tool);
                    if policy == ToolPolicy::Deny || !enabled {
                        return Err(ErrorBody::new(
                            "denied",
                            format!("Tool '{}' is denied or disabled.", rec.tool),
                        ));
                    }
                }
                if self.ledger.borrow_mut().run_by_user(&key).is_none() {
                    return Err(ErrorBody::new(
                        "invalid_state",
                        format!("The call is {:?} and cannot run again.", rec.state),
                    ));
                }
                self.save_ledger().await?;
                self.spawn_call(key.clone());
            }
            UserDecision::Deny => {
                if let Some(r) = self.ledger.borrow_mut().transition(&key, CallState::Denied) {
                    r.error = Some(json!({"kind": "denied", "message": "You denied this call."}));
                }
                self.save_ledger().await?;
                self.clone()
                    .deliver_later(rec.chat.clone(), rec.message_id.clone());
            }
        }
        let rec = self.ledger.borrow().calls.get(&key).cloned();
        Ok(serde_json::to_value(rec).unwrap_or(Value::Null))
    }

    fn spawn_call(self: &Rc<Self>, key: String) {
        let svc = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            svc.execute(&key).await;
        });
    }

    async fn execute(self: &Rc<Self>, key: &str) {
        let Some(rec) = self.ledger.borrow().calls.get(key).cloned() else {
            return;
        };
        let started = now_ms();
        if let Some(r) = self.ledger.borrow_mut().calls.get_mut(key) {
            r.started_at = Some(started);
        }
        let (state, result, error) = match self.find_tool(&rec.server_id, &rec.tool) {
            None => (
                CallState::Failed,
                None,
                Some(
                    json!({"kind": "invalid", "message": format!("Tool '{}' is not available.", rec.tool)}),
                ),
            ),
            Some(tool) => {
                let checked = validate(&tool, &rec.arguments);
                if !checked.is_valid() {
                    let message = checked.message_for_model(&rec.tool).unwrap_or_default();
                    (
                        CallState::Failed,
                        None,
                        Some(json!({"kind": "invalid", "message": message})),
                    )
                } else {
                    let progress_key = key.to_owned();
                    let svc = Rc::clone(self);
                    let on_progress: ProgressFn = Rc::new(move |p: &Progress| {
                        if let Some(r) = svc.ledger.borrow_mut().calls.get_mut(&progress_key) {
                            r.progress = serde_json::to_value(p).ok();
                        }
                    });
                    let arguments = checked.arguments.as_object().cloned().unwrap_or_default();
                    let options = CallOptions::new(Some(on_progress), Some(key.to_owned()));
                    match self
                        .client
                        .call_tool(&rec.server_id, &rec.tool, arguments, options)
                        .await
                    {
                        Ok(r) => (CallState::Done, Some(r), None),
                        Err(e) => {
                            let body = client_error(&e);
                            // A request that may have reached the tool is "unknown", never retried.
                            let state = if e.may_have_run() {
                                CallState::Unknown
                            } else {
                                CallState::Failed
                            };
                            (
                                state,
                                None,
                                Some(serde_json::to_value(body).unwrap_or(Value::Null)),
                            )
                        }
                    }
                }
            }
        };
        let duration = now_ms().saturating_sub(started);
        self.health
            .borrow_mut()
            .entry(rec.server_id.clone())
            .or_insert((None, None))
            .1 = Some(duration);
        // Calls written inside the result are the server's words, not the model's decision:
        // remember them so a reply that repeats one does not run it.
        let quoted = match &result {
            Some(r) => {
                let picked = self.chat_settings(&rec.chat).server_ids;
                quoted_fingerprints(r, &self.selected_tools(&picked))
            }
            None => Vec::new(),
        };
        {
            let mut ledger = self.ledger.borrow_mut();
            ledger.remember_quoted(&rec.chat, quoted);
            if let Some(r) = ledger.transition(key, state) {
                r.duration_ms = Some(duration);
                r.result = result.map(|r| serde_json::to_value(r).unwrap_or(Value::Null));
                r.error = error;
            }
        }
        let _ = self.save_ledger().await;
        self.notify(&rec.chat, key).await;
        self.deliver(&rec.chat, &rec.message_id).await;
    }

    /// Tells the chat's content script that a call changed (its card updates).
    async fn notify(&self, chat: &str, key: &str) {
        let rec = self.ledger.borrow().calls.get(key).cloned();
        if let (Some(tab), Some(rec)) = (tab_of(chat), rec) {
            let _ = send_to_tab(tab, &json!({"type": "relay/calls", "calls": [rec]})).await;
        }
    }

    /// Delivers every message of a chat whose calls are all final and not yet written.
    fn deliver_pending(self: Rc<Self>, chat: String) {
        wasm_bindgen_futures::spawn_local(async move {
            let mut messages: Vec<String> = Vec::new();
            for c in self.ledger.borrow().for_chat(&chat) {
                if !c.delivered && c.state.is_final() && !messages.contains(&c.message_id) {
                    messages.push(c.message_id.clone());
                }
            }
            for m in messages {
                self.deliver(&chat, &m).await;
            }
        });
    }

    fn deliver_later(self: Rc<Self>, chat: String, message_id: String) {
        wasm_bindgen_futures::spawn_local(async move {
            self.deliver(&chat, &message_id).await;
        });
    }

    /// When every call of a message reached an end, writes their results into the chat once.
    async fn deliver(&self, chat: &str, message_id: &str) {
        let records: Vec<CallRecord> = self
            .ledger
            .borrow()
            .deliverable(chat, message_id)
            .into_iter()
            .cloned()
            .collect();
        if records.is_empty() {
            return;
        }
        // Mark first: a second delivery attempt racing this one finds nothing to deliver.
        {
            let mut ledger = self.ledger.borrow_mut();
            for r in &records {
                if let Some(x) = ledger.calls.get_mut(&r.key) {
                    x.delivered = true;
                }
            }
        }
        let settings = self.chat_settings(chat);
        let server_names: BTreeMap<String, String> = self
            .config
            .borrow()
            .servers
            .iter()
            .map(|s| (s.id.clone(), s.name.clone()))
            .collect();
        let inputs: Vec<ResultInput> = records
            .iter()
            .map(|r| {
                let server = server_names
                    .get(&r.server_id)
                    .cloned()
                    .unwrap_or_else(|| r.server_id.clone());
                ResultInput::new(r.call_id.clone(), r.tool.clone(), server, outcome_of(r))
            })
            .collect();
        let strategy = settings
            .strategy
            .unwrap_or(self.config.borrow().settings.default_strategy);
        let mut options = ResultOptions::default();
        options.max_chars = self.config.borrow().settings.result_max_chars;
        options.nudge = strategy.result_nudge();
        let formatted = format_results(&inputs, &options);
        let mut text = formatted.text.clone();
        if options.nudge == Nudge::None && records.iter().any(|r| r.state == CallState::Limited) {
            text.push_str(Nudge::Answer.text().unwrap_or(""));
        }
        let mut delivered = false;
        if let Some(tab) = tab_of(chat) {
            let answer = send_to_tab(
                tab,
                &json!({"type": "relay/insert", "text": text, "submit": settings.auto_submit, "attachments": formatted.attachments}),
            )
            .await;
            delivered = answer
                .ok()
                .and_then(|a| a.get("inserted").and_then(Value::as_bool))
                .unwrap_or(false);
        }
        if !delivered {
            // Not written (tab gone, input not found): keep it deliverable for a later try.
            let mut ledger = self.ledger.borrow_mut();
            for r in &records {
                if let Some(x) = ledger.calls.get_mut(&r.key) {
                    x.delivered = false;
                    x.reply_text = Some(text.clone());
                }
            }
        } else {
            let mut ledger = self.ledger.borrow_mut();
            for r in &records {
                if let Some(x) = ledger.calls.get_mut(&r.key) {
                    x.reply_text = Some(text.clone());
                }
            }
        }
        let _ = self.save_ledger().await;
    }
}

/// What a ledger record means for the model.
fn outcome_of(r: &CallRecord) -> Outcome {
    let message = r
        .error
        .as_ref()
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("no details")
        .to_owned();
    let kind = r
        .error
        .as_ref()
        .and_then(|e| e.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("");
    match r.state {
        CallState::Done => Outcome::Completed {
            result: r
                .result
                .clone()
                .and_then(|v| serde_json::from_value::<CallToolResult>(v).ok())
                .unwrap_or_default(),
        },
        CallState::Failed if kind == "invalid" => Outcome::Invalid { message },
        CallState::Failed => Outcome::Failed { message },
        CallState::Unknown => Outcome::Unknown { message },
        CallState::Denied => Outcome::Denied {
            reason: Some(message),
        },
        CallState::Limited | CallState::Quoted => Outcome::Skipped { reason: message },
        CallState::Pending | CallState::Running => Outcome::Unknown {
            message: "still running".into(),
        },
    }
}

/// Sends a message to a tab's content script (`chrome.tabs.sendMessage`) and returns its answer.
async fn send_to_tab(tab: i64, message: &Value) -> HandlerResult {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    let tabs = Reflect::get(&global, &"chrome".into())
        .and_then(|c| Reflect::get(&c, &"tabs".into()))
        .map_err(|_| ErrorBody::new("unavailable", "chrome.tabs is not available here"))?;
    let send: Function = Reflect::get(&tabs, &"sendMessage".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| {
            ErrorBody::new(
                "unavailable",
                "chrome.tabs.sendMessage is not available here",
            )
        })?;
    let msg = to_js(message).map_err(|_| ErrorBody::new("internal", "cannot convert message"))?;
    let promise: Promise = send
        .call2(&tabs, &JsValue::from_f64(tab as f64), &msg)
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or_else(|| ErrorBody::new("tab", "cannot reach the chat tab"))?;
    let answer = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|_| {
            ErrorBody::new("tab", "The chat tab did not answer.")
                .with_hint("Reload the chat page so MCP Relay can connect to it.")
        })?;
    Ok(from_js(answer, "tab answer").unwrap_or(Value::Null))
}

/// Gives back the optional host permission of a removed chat site. Chrome refuses to remove a
/// permission the manifest requires (loopback, the built-in sites): those are not ours to give
/// back, so that refusal is expected and ignored.
async fn release_origin(origin: &str) {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    let Some(permissions) = Reflect::get(&global, &"chrome".into())
        .and_then(|c| Reflect::get(&c, &"permissions".into()))
        .ok()
        .filter(|p| p.is_object())
    else {
        return;
    };
    let Some(remove) = Reflect::get(&permissions, &"remove".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    else {
        return;
    };
    let Ok(arg) = to_js(&json!({"origins": [format!("{origin}/*")]})) else {
        return;
    };
    if let Some(promise) = remove
        .call1(&permissions, &arg)
        .ok()
        .and_then(|p| p.dyn_into::<Promise>().ok())
    {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// Accepts `http(s)://host[:port]` only: a content script is registered for exactly this origin.
fn web_origin(v: Option<&Value>) -> Result<String, ErrorBody> {
    let s = v
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .trim_end_matches('/');
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    let valid = rest.is_some_and(|r| {
        !r.is_empty()
            && r.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    });
    if !valid {
        return Err(invalid(format!("'{s}' is not a web origin")).with_hint(
            "Use the form https://chat.example.com (scheme, host and optional port, nothing else).",
        ));
    }
    Ok(s.to_ascii_lowercase())
}

/// Loopback MCP servers built on the Python SDK refuse any foreign `Origin` (DNS-rebinding
/// protection), and a service worker's POST carries `Origin: chrome-extension://<id>`. For each
/// enabled loopback server, a `declarativeNetRequest` session rule removes the Origin header from
/// this extension's own requests to that server (`tabIds: [-1]`: never a page's), so they look
/// like a local client's; `initiatorDomains` keeps web pages' workers (also tab -1) out. Rebuilt whole from the configuration before any connection is made.
async fn sync_origin_rules(servers: &[ServerConfig]) -> Result<(), ErrorBody> {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    let Some(dnr) = Reflect::get(&global, &"chrome".into())
        .and_then(|c| Reflect::get(&c, &"declarativeNetRequest".into()))
        .ok()
        .filter(|d| d.is_object())
    else {
        return Ok(()); // not in an extension (Node, tests): nothing to rewrite
    };
    let mut origins: Vec<String> = servers
        .iter()
        .filter(|s| s.enabled)
        .filter_map(|s| relay_core::client::loopback_origin(&s.url))
        .collect();
    origins.sort();
    origins.dedup();
    // Only this extension's own requests: `tabIds: [-1]` alone also matches a web page's
    // shared or service worker, which would then reach the server without its Origin.
    let extension_id = Reflect::get(&global, &"chrome".into())
        .and_then(|c| Reflect::get(&c, &"runtime".into()))
        .and_then(|r| Reflect::get(&r, &"id".into()))
        .ok()
        .and_then(|id| id.as_string())
        .ok_or_else(|| ErrorBody::new("unavailable", "chrome.runtime.id is not available"))?;
    let rules: Vec<Value> = origins
        .iter()
        .enumerate()
        .map(|(i, origin)| {
            json!({
                "id": i + 1,
                "priority": 1,
                "action": {"type": "modifyHeaders", "requestHeaders": [{"header": "origin", "operation": "remove"}]},
                "condition": {"urlFilter": format!("|{origin}/"), "tabIds": [-1],
                              "initiatorDomains": [extension_id],
                              "resourceTypes": ["xmlhttprequest", "other"]},
            })
        })
        .collect();
    let call = |name: &str, arg: &JsValue| -> Result<Promise, ErrorBody> {
        let f: Function = Reflect::get(&dnr, &name.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| {
                ErrorBody::new(
                    "unavailable",
                    format!("chrome.declarativeNetRequest.{name} is missing"),
                )
            })?;
        f.call1(&dnr, arg)
            .ok()
            .and_then(|p| p.dyn_into().ok())
            .ok_or_else(|| {
                ErrorBody::new(
                    "internal",
                    format!("chrome.declarativeNetRequest.{name} failed"),
                )
            })
    };
    let existing =
        wasm_bindgen_futures::JsFuture::from(call("getSessionRules", &JsValue::UNDEFINED)?)
            .await
            .map_err(|_| ErrorBody::new("internal", "cannot read the session rules"))?;
    let existing: Vec<Value> = from_js(existing, "session rules").unwrap_or_default();
    let remove: Vec<Value> = existing
        .iter()
        .filter_map(|r| r.get("id").cloned())
        .collect();
    let update = to_js(&json!({"removeRuleIds": remove, "addRules": rules}))
        .map_err(|_| ErrorBody::new("internal", "cannot build the session rules"))?;
    wasm_bindgen_futures::JsFuture::from(call("updateSessionRules", &update)?)
        .await
        .map_err(|e| {
            ErrorBody::new(
                "internal",
                format!("cannot update the session rules: {e:?}"),
            )
        })?;
    Ok(())
}
