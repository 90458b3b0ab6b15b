//! The message handler the service worker calls for every admitted message, and [`Browser`],
//! the platform `relay_core::app::Runner` runs the app on (chrome.storage, the MCP client,
//! the Chrome APIs). Every decision, and the order of every step, is the core's.
//!
//! The service worker classifies the sender (see `extension/background.js`) and passes
//! `{role, origin, tabId, url}`; the contract admits or refuses the message, the runner answers
//! it ([`Runner::answer`]). Answers are always envelopes (`{ok, data}` / `{ok: false, error}`),
//! never rejections.
//!
//! State: the configuration lives in `chrome.storage.local`, the call ledger in
//! `chrome.storage.session`; both are loaded once per worker life, changed synchronously in the
//! app, and written back whole, so concurrent handlers never interleave a read-modify-write.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use relay_core::app::{App, DpopProver, Host, ProgressFn, Runner, Sender, Task};
use relay_core::auth::{AuthRequest, PublicJwk};
use relay_core::client::{ClientError, Operation, Output, Pool, PoolOptions, ServerConfig};
use relay_core::contract::storage::Area;
use relay_core::contract::{self, ErrorBody, TabMessage};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js::{from_js, to_js};
use crate::mcp::{now_ms, set_timeout, McpClient};
use crate::storage::Store;

mod chrome;
mod keys;
mod signin;

/// The browser under the app: chrome.storage, the MCP client, the Chrome APIs.
pub struct Browser {
    local: Store,
    session: Store,
    client: McpClient,
    loaded: Cell<bool>,
    /// The load under way, if any (see [`ensure_loaded`]).
    loading: RefCell<Option<js_sys::Promise>>,
    /// The servers' DPoP proof keys (WebCrypto, in IndexedDB).
    keys: keys::DpopKeys,
}

/// The service-worker state: the app on the browser. Rebuilt from storage after a restart.
pub type Service = Runner<Browser>;

thread_local! {
    static SERVICE: Rc<Service> = {
        let svc = Runner::new(Browser {
            local: Store::detect("local"),
            session: Store::detect("session"),
            client: McpClient::new(PoolOptions::default().with_elicitation()),
            loaded: Cell::new(false),
            loading: RefCell::new(None),
            keys: keys::DpopKeys::default(),
        });
        // Servers' questions go to the app (weakly: the client lives inside the service).
        let weak = Rc::downgrade(&svc);
        svc.host.client.set_listener(Some(Rc::new(move |server, event| {
            if let Some(svc) = weak.upgrade() {
                svc.server_event(server, event);
            }
        })));
        // Requests of servers whose tokens are DPoP-bound carry a proof the app makes.
        svc.host.client.set_prover(Rc::new(DpopProver(Rc::downgrade(&svc))));
        svc
    };
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
        let _ = ensure_loaded(&svc).await;
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
    ensure_loaded(&svc).await?;
    svc.answer(request, &sender).await
}

/// Loads the state from storage once per worker life. Handlers that arrive while it loads (a
/// panel sends several messages at once on a cold start) wait for the same load instead of
/// reading storage again.
async fn ensure_loaded(svc: &Rc<Service>) -> Result<(), ErrorBody> {
    if svc.host.loaded.get() {
        return Ok(());
    }
    let under_way = svc.host.loading.borrow().clone();
    let promise = match under_way {
        Some(p) => p,
        None => {
            let run = Rc::clone(svc);
            let p = wasm_bindgen_futures::future_to_promise(async move {
                let result = run.load().await;
                // A failed load is tried again by the next message.
                run.host.loading.borrow_mut().take();
                run.host.loaded.set(result.is_ok());
                result
                    .map(|()| JsValue::UNDEFINED)
                    .map_err(|e| crate::js::error_value(&e))
            });
            *svc.host.loading.borrow_mut() = Some(p.clone());
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

impl Browser {
    fn store(&self, area: Area) -> &Store {
        match area {
            Area::Local => &self.local,
            Area::Session => &self.session,
        }
    }
}

impl Host for Browser {
    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn spawn(&self, task: Task) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn after(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) {
        let callback = Closure::once_into_js(callback);
        set_timeout(callback.unchecked_ref(), delay_ms as f64);
    }

    fn warn(&self, message: &str) {
        web_sys::console::warn_1(&message.into());
    }

    fn pool<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        self.client.with(f)
    }

    fn read(
        &self,
        area: Area,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Value>, ErrorBody>> {
        let read = self.store(area).read(keys);
        async move { read.await.map_err(ErrorBody::from) }
    }

    async fn write(&self, area: Area, key: &str, value: &Value) -> Result<(), ErrorBody> {
        Ok(self.store(area).set(key, value).await?)
    }

    async fn to_tab(&self, tab: i64, message: &TabMessage) -> HandlerResult {
        chrome::send_to_tab(tab, message).await
    }

    async fn origin_rules(&self, servers: &[ServerConfig]) -> Result<(), ErrorBody> {
        chrome::sync_origin_rules(servers).await
    }

    async fn release_origin(&self, origin: &str) {
        chrome::release_origin(origin).await;
    }

    async fn badge(&self, text: &str) {
        chrome::set_badge(text).await;
    }

    async fn mcp(
        &self,
        server: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        self.client.run(server, op, on_progress, cancel_key).await
    }

    fn redirect_uri(&self) -> Result<String, ErrorBody> {
        signin::redirect_uri()
    }

    fn random(&self, buffer: &mut [u8]) -> Result<(), ErrorBody> {
        signin::random(buffer)
    }

    async fn fetch(&self, request: &AuthRequest) -> Result<(u16, Vec<u8>, Option<String>), String> {
        signin::fetch(request).await
    }

    async fn browser_step(&self, url: &str, interactive: bool) -> Result<String, String> {
        signin::browser_step(url, interactive).await
    }

    async fn proof_key(&self, server: &str, create: bool) -> Result<Option<PublicJwk>, String> {
        let key = match create {
            true => Some(self.keys.get_or_create(server).await?),
            false => self.keys.get(server).await?,
        };
        Ok(key.map(|k| k.jwk))
    }

    async fn sign(&self, server: &str, signing_input: &str) -> Result<String, String> {
        match self.keys.get(server).await? {
            Some(key) => key.sign(signing_input).await,
            None => Err("no DPoP key for this server".to_owned()),
        }
    }
}
