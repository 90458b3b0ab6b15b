//! The Chrome APIs the service drives: messages to a chat tab, the Origin rules of loopback
//! servers, and host permissions given back.

use relay_core::client::ServerConfig;
use relay_core::contract::{ErrorBody, TabMessage};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::{invalid, HandlerResult};
use crate::js::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    /// `chrome.tabs.sendMessage(tabId, message)`; throws (caught) outside an extension.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = sendMessage)]
    fn tabs_send_message(tab_id: f64, message: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.permissions.remove({origins})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = remove)]
    fn permissions_remove(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.declarativeNetRequest.getSessionRules()`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = getSessionRules)]
    fn dnr_get_session_rules() -> Result<js_sys::Promise, JsValue>;

    /// `chrome.declarativeNetRequest.updateSessionRules({removeRuleIds, addRules})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules)]
    fn dnr_update_session_rules(options: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.runtime.getURL(path)`: `chrome-extension://<id>/<path>`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn runtime_get_url(path: &str) -> Result<String, JsValue>;
}

/// Sends a message of the contract to a tab's content script and returns its answer.
pub(super) async fn send_to_tab(tab: i64, message: &TabMessage) -> HandlerResult {
    let msg = to_js(&message.to_value())
        .map_err(|_| ErrorBody::new("internal", "cannot convert message"))?;
    let promise = tabs_send_message(tab as f64, &msg).map_err(|_| {
        ErrorBody::new(
            "unavailable",
            "chrome.tabs.sendMessage is not available here",
        )
    })?;
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
pub(super) async fn release_origin(origin: &str) {
    let Ok(arg) = to_js(&json!({"origins": [format!("{origin}/*")]})) else {
        return;
    };
    if let Ok(promise) = permissions_remove(&arg) {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// Accepts `http(s)://host[:port]` only: a content script is registered for exactly this origin.
pub(super) fn web_origin(v: Option<&Value>) -> Result<String, ErrorBody> {
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
/// like a local client's; `initiatorDomains` keeps web pages' workers (also tab -1) out.
/// Rebuilt whole from the configuration before any connection is made.
pub(super) async fn sync_origin_rules(servers: &[ServerConfig]) -> Result<(), ErrorBody> {
    // Throwing at once (rather than rejecting) means the API is not there: not an extension
    // (Node, tests), so there is nothing to rewrite.
    let Ok(existing) = dnr_get_session_rules() else {
        return Ok(());
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
    let extension_id = runtime_get_url("")
        .ok()
        .and_then(|u| {
            u.strip_prefix("chrome-extension://")
                .map(|rest| rest.trim_end_matches('/').to_owned())
        })
        .filter(|id| !id.is_empty())
        .ok_or_else(|| ErrorBody::new("unavailable", "the extension id is not available"))?;
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
    let existing = wasm_bindgen_futures::JsFuture::from(existing)
        .await
        .map_err(|_| ErrorBody::new("internal", "cannot read the session rules"))?;
    let existing: Vec<Value> = from_js(existing, "session rules").unwrap_or_default();
    // Session rules outlive the worker: on a restart they are usually what we would write, and
    // an update is a round trip through the browser on every cold start. Every field but the
    // id, URL filter and initiator is a constant of this code.
    let key = |r: &Value| {
        (
            r.get("id").and_then(Value::as_u64),
            r.pointer("/condition/urlFilter").cloned(),
            r.pointer("/condition/initiatorDomains").cloned(),
        )
    };
    if existing.len() == rules.len() && existing.iter().map(key).eq(rules.iter().map(key)) {
        return Ok(());
    }
    let remove: Vec<Value> = existing
        .iter()
        .filter_map(|r| r.get("id").cloned())
        .collect();
    let update = to_js(&json!({"removeRuleIds": remove, "addRules": rules}))
        .map_err(|_| ErrorBody::new("internal", "cannot build the session rules"))?;
    let pending = dnr_update_session_rules(&update)
        .map_err(|_| ErrorBody::new("internal", "cannot update the session rules"))?;
    wasm_bindgen_futures::JsFuture::from(pending)
        .await
        .map_err(|e| {
            ErrorBody::new(
                "internal",
                format!("cannot update the session rules: {e:?}"),
            )
        })?;
    Ok(())
}
