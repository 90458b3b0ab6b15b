//! The message handler the service worker calls for every admitted message: the IO around
//! `relay_core::app`, which owns the state and every decision.
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

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use relay_core::app::{chat_key, App, Config, Settings, CONFIG_KEY, LEDGER_KEY, TOOLS_KEY};
use relay_core::client::{ClientError, ServerConfig, TransportKind};
use relay_core::contract::storage::SITES_KEY;
use relay_core::contract::{self, ErrorBody, Request, Role, TabMessage};
use relay_core::model::Tool;
use relay_core::parse::parse_tool_calls;
use relay_core::policy::Ledger;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

use crate::js::{from_js, to_js};
use crate::mcp::{ClientOptions, McpClient};
use crate::storage::{StorageError, Store};

mod calls;
mod chrome;
mod servers;
mod tools;

use chrome::{release_origin, send_to_tab, sync_origin_rules, web_origin};

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

/// A server's last connection error and last call latency (ms), for the side panel.
type Health = (Option<ErrorBody>, Option<u64>);

/// The service-worker state. Rebuilt from storage after a restart.
pub struct Service {
    local: Store,
    session: Store,
    client: McpClient,
    loaded: Cell<bool>,
    /// The load under way, if any (see [`Service::ensure_loaded`]).
    loading: RefCell<Option<js_sys::Promise>>,
    /// The application (configuration, tools, ledger, parsers) and all its decisions.
    app: RefCell<App>,
    /// Last connection error and call latency per server, for the side panel.
    health: RefCell<HashMap<String, Health>>,
}

thread_local! {
    static SERVICE: Rc<Service> = Rc::new(Service {
        local: Store::detect("local"),
        session: Store::detect("session"),
        client: McpClient::new(ClientOptions::default()),
        loaded: Cell::new(false),
        loading: RefCell::new(None),
        app: RefCell::new(App::default()),
        health: RefCell::new(HashMap::new()),
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
        // A liveness check needs no state: answered at once, while the state loads behind it
        // (so a worker woken by a ping has restored its calls as before).
        Ok((Request::Ping { .. }, role, _)) => {
            let svc = service();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = svc.ensure_loaded().await;
            });
            contract::ok(ping(role))
        }
        Ok((request, role, msg)) => {
            let svc = service();
            match svc.ensure_loaded().await {
                Ok(()) => match svc.dispatch(&request, role, &sender, &msg).await {
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

/// Answers at once a message that needs neither the state nor the full handler (`ping`, the
/// liveness check pages and content scripts send first), and starts loading the state behind
/// it, as `handle` would have; `undefined` for any other message, which then goes to `handle`.
/// On a cold start this answer costs no storage read and none of the handler's code: in a
/// fresh worker, V8 compiles each wasm function on its first call, and `handle`'s state
/// machine is the module's largest function (BENCHMARKS.md, cold start).
#[wasm_bindgen(js_name = answerAtOnce)]
pub fn answer_at_once(message: &JsValue, role: &str) -> JsValue {
    let role = match role {
        "page" => Role::Page,
        "content" => Role::Content,
        _ => return JsValue::UNDEFINED,
    };
    let kind = js_sys::Reflect::get(message, &JsValue::from_str("type"))
        .ok()
        .and_then(|t| t.as_string());
    if kind.as_deref() != Some("ping") {
        return JsValue::UNDEFINED;
    }
    let svc = service();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = svc.ensure_loaded().await;
    });
    crate::js::value_to_js(&contract::ok(ping(role))).unwrap_or(JsValue::UNDEFINED)
}

/// The typed request, the sender's role, and the raw message (the handlers read their fields
/// from it as they always did; the contract has already checked the shape).
fn admit(message: JsValue, role: &str) -> Result<(Request, Role, Value), ErrorBody> {
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
    let request = contract::admit(&msg, role)?;
    Ok((request, role, msg))
}

/// The answer to `ping`: the core's version and the sender's role.
fn ping(role: Role) -> Value {
    json!({"core": env!("CARGO_PKG_VERSION"), "role": role})
}

fn str_field<'a>(msg: &'a Value, key: &str) -> Result<&'a str, ErrorBody> {
    msg.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid(format!("'{key}' is required")))
}

impl Service {
    /// Loads the state from storage once per worker life. Handlers that arrive while it loads
    /// (a panel sends several messages at once on a cold start) wait for the same load instead
    /// of reading storage again.
    async fn ensure_loaded(self: &Rc<Self>) -> Result<(), ErrorBody> {
        if self.loaded.get() {
            return Ok(());
        }
        let under_way = self.loading.borrow().clone();
        let promise = match under_way {
            Some(p) => p,
            None => {
                let svc = Rc::clone(self);
                let p = wasm_bindgen_futures::future_to_promise(async move {
                    let result = svc.load().await;
                    // A failed load is tried again by the next message.
                    svc.loading.borrow_mut().take();
                    result
                        .map(|()| JsValue::UNDEFINED)
                        .map_err(|e| crate::js::error_value(&e))
                });
                *self.loading.borrow_mut() = Some(p.clone());
                p
            }
        };
        wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map(|_| ())
            .map_err(|e| {
                from_js(e, "load error")
                    .unwrap_or_else(|_| ErrorBody::new("storage", "loading the state failed"))
            })
    }

    async fn load(self: &Rc<Self>) -> Result<(), ErrorBody> {
        if self.loaded.get() {
            return Ok(());
        }
        // One read per area, both under way before either is awaited.
        let local = self.local.read(&[CONFIG_KEY, TOOLS_KEY]);
        let session = self.session.read(&[LEDGER_KEY]);
        let mut local = local.finish().await?.into_iter();
        let mut session = session.finish().await?.into_iter();
        let config: Config =
            serde_json::from_value(local.next().unwrap_or_default()).unwrap_or_default();
        let tools: BTreeMap<String, Vec<Tool>> =
            serde_json::from_value(local.next().unwrap_or_default()).unwrap_or_default();
        let ledger: Ledger =
            serde_json::from_value(session.next().unwrap_or_default()).unwrap_or_default();
        if self.loaded.get() {
            return Ok(()); // another handler finished loading while we awaited
        }
        let _ = sync_origin_rules(&config.servers).await;
        if self.loaded.get() {
            return Ok(());
        }
        self.client.set_servers(config.servers.clone());
        // A worker that stopped mid-call cannot know whether the call ran: the app turns such
        // calls "unknown" and tells their chats.
        let (app, effects) = App::restore(config, tools, ledger);
        *self.app.borrow_mut() = app;
        self.loaded.set(true);
        self.run_effects(effects).await
    }

    fn config(&self) -> Ref<'_, Config> {
        Ref::map(self.app.borrow(), |a| &a.config)
    }

    fn config_mut(&self) -> RefMut<'_, Config> {
        RefMut::map(self.app.borrow_mut(), |a| &mut a.config)
    }

    fn ledger(&self) -> Ref<'_, Ledger> {
        Ref::map(self.app.borrow(), |a| &a.ledger)
    }

    fn tools(&self) -> Ref<'_, BTreeMap<String, Vec<Tool>>> {
        Ref::map(self.app.borrow(), |a| &a.tools)
    }

    async fn save_config(&self) -> Result<(), ErrorBody> {
        let value = serde_json::to_value(&*self.config()).unwrap_or(Value::Null);
        self.local.set(CONFIG_KEY, &value).await.map_err(Into::into)
    }

    /// Makes the Origin rules for `servers` (the server list as it is about to be) before the
    /// list changes: configuration and client then change together with no await between them,
    /// so no concurrent handler sees a server the client does not know, and no connection to a
    /// new loopback server goes out before its rule exists.
    async fn prepare_servers(
        &self,
        change: impl FnOnce(&mut Vec<ServerConfig>),
    ) -> Result<(), ErrorBody> {
        let mut next = self.config().servers.clone();
        change(&mut next);
        sync_origin_rules(&next).await
    }

    async fn save_tools(&self) -> Result<(), ErrorBody> {
        let value = serde_json::to_value(&*self.tools()).unwrap_or(Value::Null);
        self.local.set(TOOLS_KEY, &value).await.map_err(Into::into)
    }

    async fn save_ledger(&self) -> Result<(), ErrorBody> {
        let value =
            serde_json::to_value(self.app.borrow_mut().ledger_to_store()).unwrap_or(Value::Null);
        self.session
            .set(LEDGER_KEY, &value)
            .await
            .map_err(Into::into)
    }

    async fn dispatch(
        self: &Rc<Self>,
        request: &Request,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        // Exhaustive: a message of the contract without a handler here does not compile.
        match request {
            Request::Ping { .. } => Ok(ping(role)),
            Request::SettingsGet { .. } => {
                Ok(serde_json::to_value(&self.config().settings).unwrap_or(Value::Null))
            }
            Request::SettingsSet { .. } => {
                let settings: Settings =
                    serde_json::from_value(msg.get("settings").cloned().unwrap_or(Value::Null))
                        .map_err(|e| invalid(format!("settings: {e}")))?;
                self.config_mut().settings = settings;
                self.save_config().await?;
                Ok(serde_json::to_value(&self.config().settings).unwrap_or(Value::Null))
            }
            Request::ServersList { .. } => Ok(Value::from(self.server_views())),
            Request::ServersAdd { .. } => {
                self.add_server(msg.get("server").cloned().unwrap_or(Value::Null))
                    .await
            }
            Request::ServersUpdate { .. } => {
                self.update_server(msg.get("server").cloned().unwrap_or(Value::Null))
                    .await
            }
            Request::ServersRemove { .. } => {
                let id = str_field(msg, "id")?.to_owned();
                self.client.remove_server(&id);
                let effects = self.app.borrow_mut().remove_server(&id);
                self.run_effects(effects).await?;
                let servers = self.config().servers.clone();
                sync_origin_rules(&servers).await?;
                Ok(Value::Null)
            }
            Request::ServersImport { .. } => self.import_servers(msg).await,
            Request::ServersExport { .. } => {
                let mut out = Map::new();
                for s in &self.config().servers {
                    let transport = match s.transport {
                        TransportKind::Sse => "sse",
                        _ => "http",
                    };
                    out.insert(s.name.clone(), json!({"url": s.url, "type": transport}));
                }
                Ok(json!({"mcpServers": out}))
            }
            Request::ServersTest { .. } => {
                let id = str_field(msg, "id")?.to_owned();
                let _ = self.refresh_tools(&id, true).await;
                self.server_view(&id)
                    .ok_or_else(|| invalid(format!("no server '{id}'")))
            }
            Request::ToolsList { .. } => self.list_tools(msg).await,
            Request::ToolsPolicy { .. } => self.set_policy(msg).await,
            Request::ToolsCall { .. } => self.manual_call(msg).await,
            Request::PromptsList { .. } => {
                let id = str_field(msg, "serverId")?;
                let prompts = self
                    .client
                    .list_prompts(id)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(prompts).unwrap_or(Value::Null))
            }
            Request::PromptsGet { .. } => {
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
            Request::ResourcesList { .. } => {
                let id = str_field(msg, "serverId")?;
                let got = self
                    .client
                    .list_resources(id)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(got).unwrap_or(Value::Null))
            }
            Request::ResourcesRead { .. } => {
                let id = str_field(msg, "serverId")?;
                let uri = str_field(msg, "uri")?;
                let got = self
                    .client
                    .read_resource(id, uri)
                    .await
                    .map_err(|e| client_error(&e))?;
                Ok(serde_json::to_value(got).unwrap_or(Value::Null))
            }
            Request::ChatGet { .. } => {
                let chat = self.chat_for(role, sender, msg)?;
                Ok(serde_json::to_value(self.config().chat(&chat)).unwrap_or(Value::Null))
            }
            Request::ChatSet { .. } => {
                let chat = self.chat_for(role, sender, msg)?;
                let settings: relay_core::app::ChatSettings =
                    serde_json::from_value(msg.get("settings").cloned().unwrap_or(Value::Null))
                        .map_err(|e| invalid(format!("settings: {e}")))?;
                let effects = self.app.borrow_mut().set_chat(&chat, settings);
                self.run_effects(effects).await?;
                Ok(serde_json::to_value(self.config().chat(&chat)).unwrap_or(Value::Null))
            }
            Request::PromptBuild { .. } => self.build_prompt(role, sender, msg).await,
            Request::ChatInsert { .. } => {
                let chat = self.chat_for(role, sender, msg)?;
                let text = str_field(msg, "text")?;
                let submit = msg.get("submit").and_then(Value::as_bool).unwrap_or(false);
                // Inserting the instructions starts a new turn of the loop (persisted before
                // the text goes out).
                let effects = self.app.borrow_mut().new_turn(&chat);
                self.run_effects(effects).await?;
                let tab =
                    relay_core::app::tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                let insert = TabMessage::Insert {
                    text: text.to_owned(),
                    submit,
                    attachments: Vec::new(),
                };
                send_to_tab(tab, &insert).await
            }
            Request::ReplyParse { .. } => {
                let text = str_field(msg, "text")?;
                let servers = match role {
                    Role::Content => {
                        let chat = self.chat_for(role, sender, msg)?;
                        self.app
                            .borrow()
                            .selected_tools(&self.config().chat(&chat).server_ids)
                    }
                    Role::Page => {
                        let ids: Vec<String> = serde_json::from_value(
                            msg.get("serverIds").cloned().unwrap_or(json!([])),
                        )
                        .unwrap_or_default();
                        self.app.borrow().selected_tools(&ids)
                    }
                };
                Ok(serde_json::to_value(parse_tool_calls(text, &servers)).unwrap_or(Value::Null))
            }
            Request::ReplyUpdate { .. } => self.reply_update(role, sender, msg).await,
            Request::ActivityList { .. } => {
                let chat = self.chat_for(role, sender, msg)?;
                let ledger = self.ledger();
                Ok(serde_json::to_value(ledger.for_chat(&chat)).unwrap_or(Value::Null))
            }
            Request::ActivityDecide { .. } => self.decide_call(role, sender, msg).await,
            Request::SitesList { .. } => self.sites().await.map(Value::from),
            Request::SitesAdd { .. } => {
                let origin = web_origin(msg.get("origin"))?;
                let adapter = msg
                    .get("adapter")
                    .and_then(Value::as_str)
                    .unwrap_or("generic")
                    .to_owned();
                let mut sites = self.sites().await?;
                sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
                sites.push(json!({"origin": origin, "adapter": adapter}));
                self.local
                    .set(SITES_KEY, &Value::from(sites.clone()))
                    .await?;
                Ok(Value::from(sites))
            }
            Request::SitesRemove { .. } => {
                let origin = web_origin(msg.get("origin"))?;
                let mut sites = self.sites().await?;
                sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
                self.local
                    .set(SITES_KEY, &Value::from(sites.clone()))
                    .await?;
                // Give the host permission back, unless a configured server still needs it.
                let needed = self.config().servers.iter().any(|s| {
                    relay_core::client::HttpUrl::parse(&s.url)
                        .is_ok_and(|u| u.origin().eq_ignore_ascii_case(&origin))
                });
                if !needed {
                    release_origin(&origin).await;
                }
                Ok(Value::from(sites))
            }
            Request::SitesCheck { .. } => {
                let chat = self.chat_for(role, sender, msg)?;
                let tab =
                    relay_core::app::tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                send_to_tab(tab, &TabMessage::Check {}).await
            }
            Request::SitesAdapter { .. } => {
                let sites = self.sites().await?;
                Ok(sites
                    .into_iter()
                    .find(|s| {
                        s.get("origin").and_then(Value::as_str) == Some(sender.origin.as_str())
                    })
                    .map(|s| json!({"adapter": s.get("adapter").cloned().unwrap_or(Value::Null)}))
                    .unwrap_or(Value::Null))
            }
        }
    }

    /// Custom chat sites the user added: `[{origin, adapter}]`.
    async fn sites(&self) -> Result<Vec<Value>, ErrorBody> {
        match self.local.get(SITES_KEY).await? {
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
}
