//! The Chrome APIs the service drives: messages to a chat tab, the Origin rules of loopback
//! servers, and host permissions given back.

use relay_core::app::{extension_id, origin_rules_update};
use relay_core::client::ServerConfig;
use relay_core::contract::{ErrorBody, ErrorKind, TabMessage};
use relay_core::rare::{RareCall, RareReply};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::HandlerResult;
use crate::js::{from_js, message, to_js, value_to_js};

#[wasm_bindgen]
extern "C" {
    /// `chrome.tabs.sendMessage(tabId, message, options)`; throws (caught) outside an extension.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = sendMessage)]
    fn tabs_send_message(t: f64, m: &JsValue, o: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.permissions.remove({origins})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = remove)]
    fn permissions_remove(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.declarativeNetRequest.getSessionRules()`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = getSessionRules)]
    fn dnr_get_session_rules() -> Result<js_sys::Promise, JsValue>;

    /// `chrome.declarativeNetRequest.updateSessionRules({removeRuleIds, addRules})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules)]
    fn dnr_update_session_rules(options: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.action.setBadgeText({text})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeText)]
    fn action_set_badge_text(details: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.action.setBadgeBackgroundColor({color})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeBackgroundColor)]
    fn action_set_badge_background_color(details: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `relayNative(request)` (extension/native.js): one request on the native host's port.
    #[wasm_bindgen(catch, js_name = relayNative)]
    fn relay_native(request: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `relayRare(call)` (extension/rare.js): the second module's answer to a call; the module
    /// is fetched and instantiated on the first call.
    #[wasm_bindgen(catch, js_name = relayRare)]
    fn relay_rare(call: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.runtime.getURL(path)`: `chrome-extension://<id>/<path>`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn runtime_get_url(path: &str) -> Result<String, JsValue>;
}

/// Sends a message of the contract to a tab's content script (in `frame`, or in every frame)
/// and returns its answer.
pub(super) async fn send_to_tab(tab: i64, frame: Option<i64>, m: &TabMessage) -> HandlerResult {
    let unconvertible = |_| ErrorBody::new(ErrorKind::Internal, "cannot convert message");
    let msg = to_js(&m.to_value()).map_err(unconvertible)?;
    let options = (frame.map(|f| to_js(&json!({ "frameId": f })).map_err(unconvertible)))
        .transpose()?
        .unwrap_or(JsValue::UNDEFINED);
    let unavailable = "chrome.tabs.sendMessage is not available here";
    let promise = tabs_send_message(tab as f64, &msg, &options)
        .map_err(|_| ErrorBody::new(ErrorKind::Unavailable, unavailable))?;
    let answer = JsFuture::from(promise).await.map_err(|_| {
        ErrorBody::new(ErrorKind::Tab, "The chat tab did not answer.")
            .with_hint("Reload the chat page so MCP Relay can connect to it.")
    })?;
    Ok(from_js(answer, "tab answer").unwrap_or(Value::Null))
}

/// Gives back an optional host permission nothing uses any more (the core decides: a removed
/// chat site, a removed server's own or authorization servers' origin). Chrome refuses to remove
/// a permission the manifest requires (loopback, the built-in sites): those are not ours to give
/// back, so that refusal is expected and ignored.
pub(super) async fn release_origin(origin: &str) {
    let Ok(arg) = to_js(&json!({"origins": [format!("{origin}/*")]})) else {
        return;
    };
    if let Ok(promise) = permissions_remove(&arg) {
        let _ = JsFuture::from(promise).await;
    }
}

/// Rebuilds the `declarativeNetRequest` session rules that drop the Origin header of this
/// extension's requests to loopback servers (`relay_core::app::origin_rules` says which and
/// why), before any connection is made.
pub(super) async fn sync_origin_rules(servers: &[ServerConfig]) -> Result<(), ErrorBody> {
    // Throwing at once (rather than rejecting) means the API is not there: not an extension
    // (Node, tests), so there is nothing to rewrite.
    let Ok(existing) = dnr_get_session_rules() else {
        return Ok(());
    };
    let url = runtime_get_url("").unwrap_or_default();
    let extension_id = extension_id(&url).ok_or_else(|| {
        ErrorBody::new(ErrorKind::Unavailable, "the extension id is not available")
    })?;
    let failed = |what: &str| {
        ErrorBody::new(
            ErrorKind::Internal,
            format!("cannot {what} the session rules"),
        )
    };
    let existing = JsFuture::from(existing).await.map_err(|_| failed("read"))?;
    let existing = from_js(existing, "session rules").unwrap_or(Value::Null);
    let Some(update) = origin_rules_update(&existing, servers, extension_id) else {
        return Ok(()); // already the rules these servers need
    };
    let update = to_js(&update).map_err(|_| failed("build"))?;
    let pending = dnr_update_session_rules(&update).map_err(|_| failed("update"))?;
    JsFuture::from(pending).await.map_err(|e| {
        let reason = message(&e, "rejected");
        ErrorBody::new(
            ErrorKind::Internal,
            format!("cannot update the session rules: {reason}"),
        )
    })?;
    Ok(())
}

/// Shows `text` on the toolbar icon (nothing when empty), of one tab or of every tab without
/// its own. Outside an extension (Node, tests) the API is absent and nothing happens.
pub(super) async fn set_badge(tab: Option<i64>, text: &str) {
    let mut args = [json!({"color": "#c62828"}), json!({ "text": text })];
    if let Some(tab) = tab {
        args.iter_mut().for_each(|a| a["tabId"] = json!(tab));
    }
    let set: [fn(&JsValue) -> _; 2] = [action_set_badge_background_color, action_set_badge_text];
    for (set, arg) in set.into_iter().zip(args) {
        if let Ok(p) = to_js(&arg).and_then(|arg| set(&arg)) {
            let _ = JsFuture::from(p).await;
        }
    }
}

/// Work for the second module (`relay_core::rare`): the call and its reply cross as plain
/// objects, through `Value` (whose serializer and reader the app instantiates anyway).
pub(super) async fn rare(call: &RareCall) -> Result<RareReply, ErrorBody> {
    let failed = |what: String| {
        ErrorBody::new(
            ErrorKind::Internal,
            format!("MCP Relay's second module failed: {what}"),
        )
        .with_hint("Reload MCP Relay from chrome://extensions and try again.")
    };
    let call = serde_json::to_value(call).map_err(|e| failed(e.to_string()))?;
    let call = value_to_js(&call).map_err(|e| failed(message(&e, "a call it cannot take")))?;
    let promise = relay_rare(&call).map_err(|e| failed(message(&e, "it is missing")))?;
    let reply = JsFuture::from(promise)
        .await
        .map_err(|e| failed(message(&e, "it stopped")))?;
    from_js(reply, "its reply").map_err(|e| failed(message(&e, "an unreadable reply")))
}

/// One request to the native host; an error when Chrome cannot start it.
pub(super) async fn native(request: &Value) -> HandlerResult {
    let failed = |e: JsValue| ErrorBody::new(ErrorKind::LocalHost, message(&e, "no native host"));
    let promise = relay_native(&to_js(request).map_err(failed)?).map_err(failed)?;
    let answer = JsFuture::from(promise).await.map_err(failed)?;
    from_js(answer, "host answer").map_err(failed)
}
