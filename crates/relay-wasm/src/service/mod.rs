//! The message handler the service worker calls for every admitted message: the IO around
//! `relay_core::app`, which owns the state and every decision.
//!
//! The service worker classifies the sender (see `extension/background.js`) and passes
//! `{role, origin, tabId, url}`; the contract admits or refuses the message, the app decides it
//! ([`App::handle`]): an answer with effects to carry out (`effects`), or IO to perform here.
//! Answers are always envelopes (`{ok, data}` / `{ok: false, error}`), never rejections.
//!
//! State: the configuration lives in `chrome.storage.local`, the call ledger in
//! `chrome.storage.session`; both are loaded once per worker life, changed synchronously in the
//! app, and written back whole, so concurrent handlers never interleave a read-modify-write.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use relay_core::app::{
    adapter_for, sites_with, App, Config, Io, Sender, Step, AUTH_KEY, CONFIG_KEY, LEDGER_KEY,
    TOOLS_KEY,
};
use relay_core::client::{Operation, Output, PoolOptions, ServerConfig, ServerStatus};
use relay_core::contract::storage::SITES_KEY;
use relay_core::contract::{self, ErrorBody};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::js::{from_js, to_js};
use crate::mcp::{now_ms, McpClient};
use crate::storage::Store;

mod chrome;
mod effects;
mod keys;
mod signin;

use chrome::{release_origin, send_to_tab, sync_origin_rules};

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
    /// The servers' DPoP proof keys (WebCrypto, in IndexedDB).
    keys: keys::DpopKeys,
}

thread_local! {
    static SERVICE: Rc<Service> = Rc::new(Service {
        local: Store::detect("local"),
        session: Store::detect("session"),
        client: McpClient::new(PoolOptions::default().with_elicitation()),
        loaded: Cell::new(false),
        loading: RefCell::new(None),
        app: RefCell::new(App::default()),
        keys: keys::DpopKeys::default(),
    });
}

type HandlerResult = Result<Value, ErrorBody>;

/// Handles one message from an extension page or content script; always resolves to an
/// envelope. `sender` is `{role, origin, tabId?, url?}`, decided by the service worker from
/// Chrome's sender information, never from the message.
#[wasm_bindgen]
pub async fn handle(message: JsValue, sender: JsValue) -> Result<JsValue, JsValue> {
    let answer = match answer(message, sender).await {
        Ok(data) => contract::ok(data),
        Err(e) => contract::err(e),
    };
    to_js(&answer)
}

/// Answers at once a message that needs neither the state nor the full handler (`ping`, the
/// liveness check pages and content scripts send first), and starts loading the state behind
/// it, as `handle` would have; `undefined` for any other message, which then goes to `handle`.
/// On a cold start this answer costs no storage read and none of the handler's code: V8
/// compiles each wasm function on its first call, and `handle` is the module's largest.
#[wasm_bindgen(js_name = answerAtOnce)]
pub fn answer_at_once(message: &JsValue, role: &str) -> JsValue {
    let kind = js_sys::Reflect::get(message, &JsValue::from_str("type")).ok();
    let role = match role {
        "page" => contract::Role::Page,
        "content" => contract::Role::Content,
        _ => return JsValue::UNDEFINED,
    };
    if kind.and_then(|t| t.as_string()).as_deref() != Some("ping") {
        return JsValue::UNDEFINED;
    }
    let svc = SERVICE.with(Rc::clone);
    wasm_bindgen_futures::spawn_local(async move {
        let _ = svc.ensure_loaded().await;
    });
    crate::js::value_to_js(&contract::ok(App::ping(role))).unwrap_or(JsValue::UNDEFINED)
}

async fn answer(message: JsValue, sender: JsValue) -> HandlerResult {
    let mut sender: Sender =
        from_js(sender, "sender").map_err(|_| ErrorBody::new("forbidden", "missing sender"))?;
    let role = sender.role()?;
    let message: Value = from_js(message, "message")
        .map_err(|_| ErrorBody::from(contract::ContractError::Malformed))?;
    let request = contract::admit(&message, role)?;
    if role == contract::Role::Content {
        // What the page's URL is now; the core decides how far to trust it.
        sender.reported_url = message
            .get("url")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    let svc = SERVICE.with(Rc::clone);
    svc.ensure_loaded().await?;
    let step = svc.app.borrow_mut().handle(request, &sender)?;
    match step {
        Step::Done(value, effects) => {
            svc.run_effects(effects).await?;
            Ok(value)
        }
        Step::Io(io) => svc.perform(io).await,
    }
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

    /// Only [`Service::ensure_loaded`]'s shared load calls this, once at a time.
    async fn load(self: &Rc<Self>) -> Result<(), ErrorBody> {
        // One read per area, both under way before either is awaited.
        let local = self.local.read(&[CONFIG_KEY, TOOLS_KEY, AUTH_KEY]);
        let session = self.session.read(&[LEDGER_KEY]);
        let mut local = local.await?.into_iter();
        let mut session = session.await?.into_iter();
        let next = |values: &mut std::vec::IntoIter<Value>| values.next().unwrap_or_default();
        let config: Config = serde_json::from_value(next(&mut local)).unwrap_or_default();
        let tools = serde_json::from_value(next(&mut local)).unwrap_or_default();
        let auth = serde_json::from_value(next(&mut local)).unwrap_or_default();
        let ledger = serde_json::from_value(next(&mut session)).unwrap_or_default();
        let _ = sync_origin_rules(&config.servers).await;
        let (servers, protocols) = (config.servers.clone(), config.protocols.clone());
        self.client.with(|pool, _| {
            pool.set_servers(servers);
            // What each server speaks, as found before: no probing again.
            for (id, mode) in protocols {
                pool.remember_protocol_mode(&id, mode);
            }
        });
        // A worker that stopped mid-call cannot know whether the call ran: the app turns such
        // calls "unknown" and tells their chats.
        self.listen();
        // Requests of servers with DPoP-bound tokens carry proofs.
        let prover = signin::ServiceProver(Rc::downgrade(self));
        self.client.set_prover(Rc::new(prover));
        let (mut app, mut effects) = App::restore(config, tools, ledger);
        effects.extend(app.restore_auth(auth));
        *self.app.borrow_mut() = app;
        self.loaded.set(true);
        self.run_effects(effects).await
    }

    /// What the client knows of a server's connection now.
    fn status(&self, id: &str) -> Option<ServerStatus> {
        let status = self.client.with(|pool, _| pool.status());
        status.into_iter().find(|s| s.id == id)
    }

    /// A server's view with its live connection state.
    fn server_view(&self, id: &str) -> HandlerResult {
        let view = self.app.borrow().live_view(id, self.status(id).as_ref());
        view.ok_or_else(|| ErrorBody::new("invalid_argument", format!("no server '{id}'")))
    }

    async fn perform(self: &Rc<Self>, io: Io) -> HandlerResult {
        // Exhaustive: IO the app asks for without a performer here does not compile.
        match io {
            Io::ServersList(ids) => Ok(ids
                .iter()
                .filter_map(|id| self.server_view(id).ok())
                .collect()),
            Io::ServersAdd(server) => self.put_server(server, false).await,
            Io::ServersUpdate(server) => self.put_server(server, true).await,
            Io::ServersRemove(id) => {
                self.client.with(|pool, _| pool.remove_server(&id));
                let effects = self.app.borrow_mut().remove_server(&id);
                self.run_effects(effects).await?;
                let servers = self.app.borrow().config.servers.clone();
                sync_origin_rules(&servers).await.map(|()| Value::Null)
            }
            Io::ServersImport { servers, skipped } => {
                let mut views = Vec::new();
                for server in servers {
                    let server = self.app.borrow().new_server(server)?;
                    views.push(self.put_server(server, false).await?);
                }
                Ok(json!({"servers": views, "skipped": skipped}))
            }
            Io::ServersSignIn(id) => self.sign_in(&id).await,
            Io::ServersSignOut(id) => self.sign_out(&id).await,
            Io::ServersTest(id) => {
                let _ = self.list_tools(&id, true).await;
                self.server_view(&id)
            }
            Io::ToolsList {
                ids,
                single,
                refresh,
            } => {
                let mut out = Vec::new();
                for id in ids {
                    // A dead server keeps its last known tools in the list (and its error in
                    // its view), unless it is the one asked for.
                    if let Err(e) = self.list_tools(&id, refresh).await {
                        if single {
                            return Err(e);
                        }
                    }
                    out.extend(self.app.borrow().tool_views(&id));
                }
                Ok(Value::from(out))
            }
            Io::ToolsCall {
                server,
                tool,
                arguments,
            } => {
                if self.app.borrow().find_tool(&server, &tool).is_none() {
                    let _ = self.list_tools(&server, false).await;
                }
                let arguments = self.app.borrow().manual_call(&server, &tool, &arguments)?;
                let (name, sent, started) = (tool.clone(), arguments.clone(), now_ms());
                let op = Operation::CallTool {
                    name,
                    arguments,
                    progress: false,
                };
                let result = self.mcp(&server, op, None, None).await;
                let result = result
                    .and_then(Output::into_tool_result)
                    .map_err(|e| ErrorBody::from(&e));
                let duration = now_ms().saturating_sub(started);
                self.app
                    .borrow_mut()
                    .manual_done(&server, &tool, sent, result, duration)
            }
            Io::Mcp { server, op } => (self.mcp(&server, op, None, None).await)
                .map(|output| serde_json::to_value(output).unwrap_or(Value::Null))
                .map_err(|e| ErrorBody::from(&e)),
            Io::PromptBuild { chat, ids, options } => {
                // Tools come from the stored lists; a server never listed yet is asked now.
                for id in &ids {
                    if !self.app.borrow().tools.contains_key(id) {
                        let _ = self.list_tools(id, false).await;
                    }
                }
                Ok(self.app.borrow().prompt(chat.as_ref(), &ids, options))
            }
            Io::Tab {
                tab,
                message,
                effects,
            } => {
                self.run_effects(effects).await?;
                send_to_tab(tab, &message).await
            }
            Io::SitesList => self.sites().await.map(Value::from),
            Io::SitesChange {
                origin,
                entry,
                answer,
            } => {
                let removed = entry.is_none();
                let sites = Value::from(sites_with(self.sites().await?, &origin, entry));
                self.local.set(SITES_KEY, &sites).await?;
                if removed && !self.app.borrow().origin_in_use(&origin) {
                    release_origin(&origin).await;
                }
                Ok(answer.unwrap_or(sites))
            }
            Io::SitesAdapter(origin) => Ok(adapter_for(&self.sites().await?, &origin)),
        }
    }

    /// Adds a server, or replaces the one with its id (`replace`), then lists its tools: a
    /// new server's from the client's cache, a changed one's afresh (unless disabled).
    async fn put_server(self: &Rc<Self>, server: ServerConfig, replace: bool) -> HandlerResult {
        // The Origin rules for the list as it will be come first; then configuration and client
        // change together with no await between them, so no concurrent handler sees a server
        // the client does not know, and no connection to a new loopback server goes out
        // before its rule exists.
        let (id, list) = (server.id.clone(), server.enabled || !replace);
        let next = self.app.borrow().servers_with(&server, replace);
        sync_origin_rules(&next).await?;
        let effects = match replace {
            true => self.app.borrow_mut().update_server(server.clone()),
            false => self.app.borrow_mut().add_server(server.clone())?,
        };
        let known = self.app.borrow().config.protocols.get(&id).copied();
        self.client.with(|pool, _| {
            pool.add_server(server);
            known.map(|mode| pool.remember_protocol_mode(&id, mode))
        });
        self.run_effects(effects).await?;
        if list {
            let _ = self.list_tools(&id, replace).await;
        }
        self.server_view(&id)
    }

    /// Lists a server's tools (every page; from the client's cache unless `refresh`).
    async fn list_tools(self: &Rc<Self>, id: &str, refresh: bool) -> Result<(), ErrorBody> {
        let started = now_ms();
        let result = self
            .mcp(id, Operation::ListTools { refresh }, None, None)
            .await;
        let result = result
            .and_then(Output::into_tools)
            .map_err(|e| ErrorBody::from(&e));
        let failed = result.as_ref().err().cloned();
        let latency = now_ms().saturating_sub(started);
        let mut effects = self.app.borrow_mut().tools_listed(id, result, latency);
        let mode = self.status(id).and_then(|s| s.protocol);
        effects.extend(self.app.borrow_mut().learned(id, mode));
        self.run_effects(effects).await?;
        failed.map_or(Ok(()), Err)
    }

    /// Custom chat sites the user added: `[{origin, adapter}]`.
    async fn sites(&self) -> Result<Vec<Value>, ErrorBody> {
        match self.local.read(&[SITES_KEY]).await?.pop() {
            Some(Value::Array(a)) => Ok(a),
            _ => Ok(Vec::new()),
        }
    }
}
