//! MCP authorization for JavaScript: `AuthFlow` exposes `relay_core::auth::Authorizer` (the
//! sans-IO sign-in state machine) to a JavaScript driver that performs its requests with
//! `fetch`, does the browser step (`chrome.identity.launchWebAuthFlow` in the extension,
//! following the authorization redirect in the Node conformance client), and persists
//! `state()`.
//!
//! Values cross as the core's own plain data (`relay_core::auth::input`): the driver `send`s
//! what happened (`{type: "challenge" | "response" | "fetchError" | "redirect" | "browserError"
//! | "signature" | "refresh" | "signOut" | "success", ...}`) and `poll`s what to do next
//! (`{type: "fetch" | "browser" | "sign", ...}`), then how it ended (`{type: "signedIn" |
//! "signedOut" | "failed", ...}`). Error texts never carry a token, secret, code or verifier
//! (`relay_core::auth::error`).
//!
//! DPoP (RFC 9449): the driver's key pair stays in its WebCrypto; `config.dpopKey` is the public
//! JWK. `sign` actions name the key (`key: "client" | "dpop"`); resource requests get their
//! proofs from `resourceProof` and report answers to `resourceAnswered`.

use relay_core::auth::{AuthConfig, AuthError, AuthInput, AuthState, Authorizer};
use relay_core::client::HttpMethod;
use relay_core::contract::ErrorBody;
use wasm_bindgen::prelude::*;

use crate::text::from_js_lenient;
use relay_wasm::js::{error_value, from_js, to_js};

fn auth_error(error: AuthError) -> JsValue {
    error_value(&ErrorBody::from(&error))
}

/// The sign-in state machine of one MCP server (see the module documentation). Times are
/// JavaScript milliseconds (`Date.now()`).
#[wasm_bindgen]
pub struct AuthFlow {
    inner: Authorizer,
}

#[wasm_bindgen]
impl AuthFlow {
    /// `config`: `{serverUrl, redirectUri, clientName?, clientMetadataUrl?, client?: {clientId,
    /// clientSecret?, assertionAlg?}, offlineAccess?, maxAttempts?, enterprise?:
    /// {idpTokenEndpoint, idpClientId, idToken}, dpopKey?: {kty: "EC", crv: "P-256", x, y}}`; `seed`: at least 32 bytes from
    /// `crypto.getRandomValues`; `state`: what `state()` returned before, or `undefined`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, seed: &[u8], state: JsValue) -> Result<AuthFlow, JsValue> {
        let config: AuthConfig = from_js_lenient(config, "AuthFlow config")?;
        let state: Option<AuthState> = from_js(state, "AuthFlow state")?;
        Authorizer::with_state(config, state.unwrap_or_default(), seed)
            .map(|inner| AuthFlow { inner })
            .map_err(auth_error)
    }

    /// Reports what happened; throws `{kind, message}` when a challenge, redirect or refresh
    /// cannot proceed.
    pub fn send(&mut self, input: JsValue, now_ms: f64) -> Result<(), JsValue> {
        let input: AuthInput = from_js_lenient(input, "AuthFlow input")?;
        // `as` saturates: a negative or NaN time reads as 0.
        self.inner.handle(input, now_ms as u64).map_err(auth_error)
    }

    /// The next action, else the next event, else `null`.
    pub fn poll(&mut self) -> Result<JsValue, JsValue> {
        match self.inner.poll_action() {
            Some(action) => to_js(&action),
            None => self
                .inner
                .poll_event()
                .map_or(Ok(JsValue::NULL), |e| to_js(&e)),
        }
    }

    /// The `Authorization` header value, or `undefined` when signed out.
    pub fn authorization(&self) -> Option<String> {
        self.inner.authorization()
    }

    /// Whether to refresh before the next request.
    #[wasm_bindgen(js_name = needsRefresh)]
    pub fn needs_refresh(&self, now_ms: f64, margin_ms: f64) -> bool {
        self.inner.needs_refresh(now_ms as u64, margin_ms as u64)
    }

    /// The signing input of the DPoP proof for a resource request (`method` `GET` | `POST` |
    /// `DELETE` to `url`), or `undefined` when the token is not DPoP-bound. Send
    /// `DPoP: <input>.<base64url ES256 signature>`.
    #[wasm_bindgen(js_name = resourceProof)]
    pub fn resource_proof(&mut self, method: &str, url: &str, now_ms: f64) -> Option<String> {
        let method = HttpMethod::parse(method)?;
        self.inner.resource_proof(method, url, now_ms as u64)
    }

    /// A resource server answered a proved request: keeps its `DPoP-Nonce`; whether to make the
    /// request once more with a new proof.
    #[wasm_bindgen(js_name = resourceAnswered)]
    pub fn resource_answered(
        &mut self,
        url: &str,
        status: u16,
        www_authenticate: Option<String>,
        dpop_nonce: Option<String>,
    ) -> bool {
        self.inner.resource_answered(
            url,
            status,
            www_authenticate.as_deref(),
            dpop_nonce.as_deref(),
        )
    }

    /// The durable state, to persist where content scripts cannot read it (it holds tokens).
    pub fn state(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.state())
    }
}
