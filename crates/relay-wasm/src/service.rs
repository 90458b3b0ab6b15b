//! The message handler the service worker calls for every admitted message.
//!
//! The service worker classifies the sender (see `extension/background.js`) and passes the role;
//! here the contract (`relay_core::contract`) admits or refuses the message, then one handler per
//! message name does the work. Answers are always envelopes (`{ok, data}` / `{ok: false, error}`),
//! never rejections, so callers have one shape to read.

use std::rc::Rc;

use relay_core::contract::{self, ErrorBody, Role};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::js::{from_js, to_js};
use crate::storage::{StorageError, Store};

/// The service-worker state: cheap to rebuild, because everything durable is in storage.
pub struct Service {
    pub local: Store,
}

thread_local! {
    static SERVICE: Rc<Service> = Rc::new(Service { local: Store::detect("local") });
}

fn service() -> Rc<Service> {
    SERVICE.with(Rc::clone)
}

impl From<StorageError> for ErrorBody {
    fn from(e: StorageError) -> Self {
        ErrorBody::new("storage", e.to_string()).with_hint("Reload the extension; if it persists, reset its data in the side panel's settings.")
    }
}

type HandlerResult = Result<Value, ErrorBody>;

/// Who sent a message, as the service worker established it from Chrome's `MessageSender`.
#[derive(Debug, serde::Deserialize)]
pub struct Sender {
    /// `"page"` or `"content"`.
    pub role: String,
    /// The sender's origin (`https://chatgpt.com`, `chrome-extension://…`).
    #[serde(default)]
    pub origin: String,
}

/// Handles one message from an extension page or content script; always resolves to an
/// envelope. `sender` is `{role, origin}`, decided by the service worker from Chrome's sender
/// information, never from the message.
#[wasm_bindgen]
pub async fn handle(message: JsValue, sender: JsValue) -> Result<JsValue, JsValue> {
    let sender: Sender = match from_js(sender, "sender") {
        Ok(s) => s,
        Err(_) => return to_js(&contract::err(ErrorBody::new("forbidden", "missing sender"))),
    };
    let answer = match admit(message, &sender.role) {
        Ok((name, role, msg)) => match dispatch(&service(), name, role, &sender, &msg).await {
            Ok(data) => contract::ok(data),
            Err(e) => contract::err(e),
        },
        Err(e) => contract::err(e),
    };
    to_js(&answer)
}

fn admit(message: JsValue, role: &str) -> Result<(&'static str, Role, Value), ErrorBody> {
    let role = match role {
        "page" => Role::Page,
        "content" => Role::Content,
        other => return Err(ErrorBody::new("forbidden", format!("unknown sender role '{other}'"))),
    };
    let msg: Value = from_js(message, "message").map_err(|_| ErrorBody::from(contract::ContractError::Malformed))?;
    let spec = contract::admit(&msg, role)?;
    Ok((spec.name, role, msg))
}

async fn dispatch(svc: &Service, name: &str, role: Role, sender: &Sender, msg: &Value) -> HandlerResult {
    match name {
        "ping" => Ok(json!({"core": env!("CARGO_PKG_VERSION"), "role": role})),
        "settings/get" => svc.local.get("settings").await.map_err(Into::into),
        "settings/set" => {
            let settings = msg.get("settings").cloned().unwrap_or(Value::Null);
            svc.local.set("settings", &settings).await?;
            Ok(settings)
        }
        "sites/list" => svc.sites().await.map(Value::from),
        "sites/add" => {
            let origin = web_origin(msg.get("origin"))?;
            let adapter = msg.get("adapter").and_then(Value::as_str).unwrap_or("generic").to_owned();
            let mut sites = svc.sites().await?;
            sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
            sites.push(json!({"origin": origin, "adapter": adapter}));
            svc.local.set("sites", &Value::from(sites.clone())).await?;
            Ok(Value::from(sites))
        }
        "sites/remove" => {
            let origin = web_origin(msg.get("origin"))?;
            let mut sites = svc.sites().await?;
            sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin.as_str()));
            svc.local.set("sites", &Value::from(sites.clone())).await?;
            Ok(Value::from(sites))
        }
        "sites/adapter" => {
            let sites = svc.sites().await?;
            Ok(sites
                .into_iter()
                .find(|s| s.get("origin").and_then(Value::as_str) == Some(sender.origin.as_str()))
                .map(|s| json!({"adapter": s.get("adapter").cloned().unwrap_or(Value::Null)}))
                .unwrap_or(Value::Null))
        }
        other => Err(ErrorBody::new("unavailable", format!("'{other}' is not available in this build yet"))),
    }
}

impl Service {
    /// Custom chat sites the user added: `[{origin, adapter}]`.
    async fn sites(&self) -> Result<Vec<Value>, ErrorBody> {
        match self.local.get("sites").await? {
            Value::Array(a) => Ok(a),
            _ => Ok(Vec::new()),
        }
    }
}

/// Accepts `http(s)://host[:port]` only: a content script is registered for exactly this origin.
fn web_origin(v: Option<&Value>) -> Result<String, ErrorBody> {
    let s = v.and_then(Value::as_str).unwrap_or("").trim().trim_end_matches('/');
    let rest = s.strip_prefix("https://").or_else(|| s.strip_prefix("http://"));
    let valid = rest.is_some_and(|r| {
        !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    });
    if !valid {
        return Err(ErrorBody::new("invalid_argument", format!("'{s}' is not a web origin"))
            .with_hint("Use the form https://chat.example.com (scheme, host and optional port, nothing else)."));
    }
    Ok(s.to_ascii_lowercase())
}
