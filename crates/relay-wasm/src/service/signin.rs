//! The browser's primitives of signing in (`relay_core::app::Runner` decides what to do with
//! them): the redirect URI and the browser step (`chrome.identity`), randomness
//! (`crypto.getRandomValues`), a sign-in's requests over `fetch`. The DPoP keys are in `keys`.

use relay_core::auth::AuthRequest;
use relay_core::contract::ErrorBody;
use relay_core::contract::ErrorKind;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::mcp::fetch;

/// How long one request of a sign-in may take.
const FETCH_TIMEOUT_MS: u32 = 30_000;

#[wasm_bindgen]
extern "C" {
    /// `chrome.identity.launchWebAuthFlow({url, interactive})`: the redirect URL it ended at.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "identity"], js_name = launchWebAuthFlow)]
    fn launch_web_auth_flow(details: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.identity.getRedirectURL(path)`: `https://<extension id>.chromiumapp.org/<path>`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "identity"], js_name = getRedirectURL)]
    fn get_redirect_url(path: &str) -> Result<String, JsValue>;

    /// `crypto.getRandomValues(buffer)`: the platform's CSPRNG.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(buffer: &mut [u8]) -> Result<JsValue, JsValue>;
}

fn unavailable(what: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorKind::Unavailable,
        format!("{what} is not available here"),
    )
    .with_hint("Sign in from the extension's side panel in Chrome.")
}

/// `https://<extension id>.chromiumapp.org/oauth`.
pub(super) fn redirect_uri() -> Result<String, ErrorBody> {
    get_redirect_url("oauth").map_err(|_| unavailable("chrome.identity"))
}

/// Fills `buffer` from the platform's CSPRNG.
pub(super) fn random(buffer: &mut [u8]) -> Result<(), ErrorBody> {
    get_random_values(buffer).map_err(|_| unavailable("crypto.getRandomValues"))?;
    Ok(())
}

/// One request of a sign-in, read whole.
pub(super) async fn fetch(r: &AuthRequest) -> Result<(u16, Vec<u8>, Option<String>), String> {
    let body = r.body.as_deref();
    fetch::exchange(r.method, &r.url, &r.headers, body, FETCH_TIMEOUT_MS).await
}

/// The authorization page in a Chrome window (only when the user asked: otherwise Chrome
/// fails at once where the page would need the user), resolved with the URL it redirected to.
pub(super) async fn browser_step(url: &str, interactive: bool) -> Result<String, String> {
    let details = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&details, &JsValue::from_str(k), &v);
    let _ = set("url", JsValue::from_str(url));
    let _ = set("interactive", JsValue::from_bool(interactive));
    let promise = launch_web_auth_flow(&details)
        .map_err(|_| "chrome.identity is not available here".to_owned())?;
    let redirect = JsFuture::from(promise)
        .await
        .map_err(|e| crate::js::message(&e, "the sign-in window failed"))?;
    redirect
        .as_string()
        .ok_or_else(|| "the sign-in window ended without a redirect".to_owned())
}
