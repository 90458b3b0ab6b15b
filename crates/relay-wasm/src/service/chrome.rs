//! The Chrome APIs the service drives: messages to a chat tab, the Origin rules of loopback
//! servers, and host permissions given back.

use relay_core::client::ServerConfig;
use relay_core::contract::ErrorBody;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::{invalid, HandlerResult};
use crate::js::{from_js, to_js};

/// Sends a message to a tab's content script (`chrome.tabs.sendMessage`) and returns its answer.
pub(super) async fn send_to_tab(tab: i64, message: &Value) -> HandlerResult {
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
pub(super) async fn release_origin(origin: &str) {
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
/// like a local client's; `initiatorDomains` keeps web pages' workers (also tab -1) out. Rebuilt whole from the configuration before any connection is made.
pub(super) async fn sync_origin_rules(servers: &[ServerConfig]) -> Result<(), ErrorBody> {
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
