//! The message handler the service worker calls for every admitted message, and [`Browser`],
//! the platform `relay_core::app::Runner` runs the app on (chrome.storage, the MCP client,
//! the Chrome APIs). Every decision, and the order of every step, is the core's.
//!
//! The service worker classifies the sender (see `extension/background.js`) and passes
//! `{role, origin, tabId, url}`; the contract admits or refuses the message, the runner answers
//! it ([`Runner::answer`]). Answers are always envelopes (`{ok, data}` / `{ok: false, error}`),
//! never rejections.
//!
//! State: the configuration and full tool results live in `chrome.storage.local`, the call
//! ledger (one key per record, bounded previews) in `chrome.storage.session`; both are loaded
//! once per worker life, changed synchronously in the app, and written back by key as the core
//! says (`relay_core::app::StorageOp`), so concurrent handlers never interleave a
//! read-modify-write.

use std::future::Future;
use std::rc::Rc;

use relay_core::app::{DpopProver, Host, ProgressFn, Runner, Task};
use relay_core::auth::{AuthRequest, PublicJwk};
use relay_core::client::{ClientError, Operation, Output, Pool, PoolOptions, ServerConfig};
use relay_core::contract::storage::Area;
use relay_core::contract::{self, ErrorBody, ErrorKind, TabMessage};
use relay_core::rare::{RareCall, RareReply};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js::{from_js, to_js};
use crate::mcp::{new_client, now_ms, set_timeout, McpClient};
use crate::storage::Store;

mod chrome;
mod keys;
mod signin;

/// The browser under the app: chrome.storage, the MCP client, the Chrome APIs.
pub struct Browser {
    local: Store,
    session: Store,
    client: McpClient,
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
            client: new_client(PoolOptions::browser()),
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
        svc.host.client.set_prover(Some(Rc::new(DpopProver(Rc::downgrade(&svc)))));
        svc
    };
}

type HandlerResult = Result<Value, ErrorBody>;

/// Handles one message from an extension page or content script; always resolves to an
/// envelope. `sender` is `{role, origin, tabId?, url?}`, decided by the service worker from
/// Chrome's sender information, never from the message.
#[wasm_bindgen]
pub async fn handle(message: JsValue, sender: JsValue) -> Result<JsValue, JsValue> {
    let svc = SERVICE.with(Rc::clone);
    let answer = match (from_js(message, "message"), from_js(sender, "sender")) {
        (Ok(message), Ok(sender)) => svc.message(&message, sender).await,
        (_, Err(_)) => contract::err(ErrorBody::new(ErrorKind::Forbidden, "missing sender")),
        (Err(_), _) => contract::err(contract::ContractError::Malformed.into()),
    };
    to_js(&answer)
}

/// `Runner::answer_at_once`: the answer to a `ping` without the state or the full handler;
/// `undefined` for any other message, which then goes to `handle`.
#[wasm_bindgen(js_name = answerAtOnce)]
pub fn answer_at_once(message: &JsValue, role: &str) -> JsValue {
    let kind = js_sys::Reflect::get(message, &JsValue::from_str("type")).ok();
    let kind = kind.and_then(|t| t.as_string());
    let answer = SERVICE.with(|svc| svc.answer_at_once(kind.as_deref(), role));
    answer.map_or(JsValue::UNDEFINED, |a| {
        crate::js::value_to_js(&a).unwrap_or(JsValue::UNDEFINED)
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

    async fn remove(&self, area: Area, keys: &[String]) -> Result<(), ErrorBody> {
        Ok(self.store(area).remove(keys).await?)
    }

    async fn to_tab(&self, tab: i64, frame: Option<i64>, message: &TabMessage) -> HandlerResult {
        chrome::send_to_tab(tab, frame, message).await
    }

    async fn origin_rules(&self, servers: &[ServerConfig]) -> Result<(), ErrorBody> {
        chrome::sync_origin_rules(servers).await
    }

    async fn release_origin(&self, origin: &str) {
        chrome::release_origin(origin).await;
    }

    async fn badge(&self, tab: Option<i64>, text: &str) {
        chrome::set_badge(tab, text).await;
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

    async fn native(&self, request: &Value) -> HandlerResult {
        chrome::native(request).await
    }

    async fn rare(&self, call: &RareCall) -> Result<RareReply, ErrorBody> {
        chrome::rare(call).await
    }
}
