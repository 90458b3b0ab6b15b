//! MCP authorization for JavaScript: `AuthFlow` exposes `relay_core::auth::Authorizer` (the
//! sans-IO sign-in state machine) to a JavaScript driver that performs its requests with
//! `fetch`, does the browser step (`chrome.identity.launchWebAuthFlow` in the extension,
//! following the authorization redirect in the Node conformance client), and persists
//! `state()`.
//!
//! Values cross as plain data through serde-wasm-bindgen. Actions are
//! `{type: "fetch", id, method, url, headers: [[name, value]], body}` or
//! `{type: "browser", url}` or `{type: "sign", id, alg, signingInput}` (a `private_key_jwt`
//! assertion for the driver's key, answered with `handleSignature`); events are `{type: "signedIn", scope, expiresAtMs, refreshed}`,
//! `{type: "signedOut"}` or `{type: "failed", error: {kind, message}}`. Error texts never carry
//! a token, secret, code or verifier (`relay_core::auth::error`).

use relay_core::auth::{
    AuthAction, AuthConfig, AuthError, AuthEvent, AuthState, Authorizer, ClientIdentity,
    EnterpriseIdentity,
};
use relay_core::client::ErrorReport;
use relay_core::contract::ErrorBody;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::js::{error_value, from_js, to_js};

/// `AuthFlow`'s configuration as JavaScript writes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlowConfig {
    server_url: String,
    redirect_uri: String,
    #[serde(default)]
    client_name: Option<String>,
    #[serde(default)]
    client_metadata_url: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    offline_access: Option<bool>,
    #[serde(default)]
    max_attempts: Option<u32>,
    /// The JWS algorithm of a private key the driver holds (`private_key_jwt`).
    #[serde(default)]
    client_assertion_alg: Option<String>,
    /// Enterprise-managed authorization: `{idpTokenEndpoint, idpClientId, idToken}`.
    #[serde(default)]
    enterprise: Option<EnterpriseConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EnterpriseConfig {
    idp_token_endpoint: String,
    idp_client_id: String,
    id_token: String,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum ActionOut<'a> {
    Fetch {
        id: u64,
        method: &'static str,
        url: &'a str,
        headers: &'a [(String, String)],
        body: Option<&'a str>,
    },
    Browser {
        url: &'a str,
    },
    #[serde(rename_all = "camelCase")]
    Sign {
        id: u64,
        alg: &'a str,
        signing_input: &'a str,
    },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum EventOut {
    #[serde(rename_all = "camelCase")]
    SignedIn {
        scope: Option<String>,
        expires_at_ms: Option<u64>,
        refreshed: bool,
    },
    SignedOut,
    Failed {
        error: ErrorBody,
    },
}

/// A JavaScript time or duration in milliseconds (`Date.now()`), as the core takes it.
fn millis(ms: f64) -> u64 {
    if ms.is_finite() && ms > 0.0 {
        ms as u64
    } else {
        0
    }
}

fn auth_error(error: &AuthError) -> ErrorBody {
    ErrorBody::new(error.kind(), error.to_string())
}

fn auth_error_value(error: &AuthError) -> JsValue {
    error_value(&auth_error(error))
}

/// Adds an `auth` error's `challenge` (`{status, wwwAuthenticate}`) to its JS error object,
/// for a driver to hand to `AuthFlow.handleChallenge`.
pub(crate) fn with_challenge(value: JsValue, report: &ErrorReport) -> JsValue {
    if let Some(challenge) = &report.challenge {
        if let Ok(challenge) = to_js(challenge) {
            let _ = js_sys::Reflect::set(&value, &JsValue::from_str("challenge"), &challenge);
        }
    }
    value
}

/// The sign-in state machine of one MCP server (see the module documentation).
#[wasm_bindgen]
pub struct AuthFlow {
    inner: Authorizer,
}

#[wasm_bindgen]
impl AuthFlow {
    /// `config`: `{serverUrl, redirectUri, clientName?, clientMetadataUrl?, clientId?,
    /// clientSecret?, clientAssertionAlg?, offlineAccess?, maxAttempts?, enterprise?:
    /// {idpTokenEndpoint, idpClientId, idToken}}`; `seed`: at least 32 bytes from
    /// `crypto.getRandomValues`; `state`: what `state()` returned before, or `undefined`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, seed: &[u8], state: JsValue) -> Result<AuthFlow, JsValue> {
        let config: FlowConfig = from_js(config, "AuthFlow config")?;
        let mut cfg = AuthConfig::new(config.server_url, config.redirect_uri);
        if let Some(name) = config.client_name {
            cfg.client_name = name;
        }
        cfg.client_metadata_url = config.client_metadata_url;
        cfg.client = config.client_id.map(|id| {
            let mut client = ClientIdentity::new(id, config.client_secret);
            client.assertion_alg = config.client_assertion_alg;
            client
        });
        if let Some(offline) = config.offline_access {
            cfg.offline_access = offline;
        }
        if let Some(max) = config.max_attempts {
            cfg.max_attempts = max;
        }
        cfg.enterprise = config
            .enterprise
            .map(|e| EnterpriseIdentity::new(e.idp_token_endpoint, e.idp_client_id, e.id_token));
        let state: AuthState = if state.is_undefined() || state.is_null() {
            AuthState::default()
        } else {
            from_js(state, "AuthFlow state")?
        };
        Authorizer::with_state(cfg, state, seed)
            .map(|inner| AuthFlow { inner })
            .map_err(|e| auth_error_value(&e))
    }

    /// A request was refused: its status (401/403) and `WWW-Authenticate`.
    #[wasm_bindgen(js_name = handleChallenge)]
    pub fn handle_challenge(
        &mut self,
        status: u16,
        www_authenticate: Option<String>,
        now_ms: f64,
    ) -> Result<(), JsValue> {
        self.inner
            .handle_challenge(status, www_authenticate.as_deref(), millis(now_ms))
            .map_err(|e| auth_error_value(&e))
    }

    /// The next action, or `null`.
    #[wasm_bindgen(js_name = pollAction)]
    pub fn poll_action(&mut self) -> Result<JsValue, JsValue> {
        let Some(action) = self.inner.poll_action() else {
            return Ok(JsValue::NULL);
        };
        match &action {
            AuthAction::Fetch(request) => to_js(&ActionOut::Fetch {
                id: request.id,
                method: request.method.as_str(),
                url: &request.url,
                headers: &request.headers,
                body: request.body.as_deref(),
            }),
            AuthAction::OpenBrowser { url } => to_js(&ActionOut::Browser { url }),
            AuthAction::Sign {
                id,
                alg,
                signing_input,
            } => to_js(&ActionOut::Sign {
                id: *id,
                alg,
                signing_input,
            }),
            _ => Ok(JsValue::NULL),
        }
    }

    /// The next event, or `null`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Result<JsValue, JsValue> {
        let out = match self.inner.poll_event() {
            None => return Ok(JsValue::NULL),
            Some(AuthEvent::SignedIn {
                scope,
                expires_at_ms,
                refreshed,
            }) => EventOut::SignedIn {
                scope,
                expires_at_ms,
                refreshed,
            },
            Some(AuthEvent::SignedOut) => EventOut::SignedOut,
            Some(AuthEvent::Failed(error)) => EventOut::Failed {
                error: auth_error(&error),
            },
            Some(_) => return Ok(JsValue::NULL),
        };
        to_js(&out)
    }

    /// The whole response to request `id`.
    #[wasm_bindgen(js_name = handleResponse)]
    pub fn handle_response(&mut self, id: f64, status: u16, body: &str, now_ms: f64) {
        self.inner
            .handle_response(id as u64, status, body.as_bytes(), millis(now_ms));
    }

    /// Request `id` failed before an answer.
    #[wasm_bindgen(js_name = handleFetchError)]
    pub fn handle_fetch_error(&mut self, id: f64, message: &str) {
        self.inner.handle_fetch_error(id as u64, message);
    }

    /// The browser step ended at the redirect URI with `url`.
    #[wasm_bindgen(js_name = handleRedirect)]
    pub fn handle_redirect(&mut self, url: &str, now_ms: f64) -> Result<(), JsValue> {
        self.inner
            .handle_redirect(url, millis(now_ms))
            .map_err(|e| auth_error_value(&e))
    }

    /// The browser step failed or was closed.
    #[wasm_bindgen(js_name = handleBrowserError)]
    pub fn handle_browser_error(&mut self, message: &str) {
        self.inner.handle_browser_error(message);
    }

    /// Starts a refresh with the stored refresh token.
    pub fn refresh(&mut self, now_ms: f64) -> Result<(), JsValue> {
        self.inner
            .refresh(millis(now_ms))
            .map_err(|e| auth_error_value(&e))
    }

    /// Drops the tokens, revoking them where the server supports it.
    #[wasm_bindgen(js_name = signOut)]
    pub fn sign_out(&mut self, now_ms: f64) {
        self.inner.sign_out(millis(now_ms));
    }

    /// The base64url signature of the `sign` action `id`'s signing input.
    #[wasm_bindgen(js_name = handleSignature)]
    pub fn handle_signature(&mut self, id: f64, signature: &str) {
        self.inner.handle_signature(id as u64, signature);
    }

    /// A request with the current token succeeded.
    #[wasm_bindgen(js_name = noteSuccess)]
    pub fn note_success(&mut self) {
        self.inner.note_success();
    }

    /// The `Authorization` header value, or `undefined` when signed out.
    pub fn authorization(&self) -> Option<String> {
        self.inner.authorization()
    }

    /// Whether to refresh before the next request.
    #[wasm_bindgen(js_name = needsRefresh)]
    pub fn needs_refresh(&self, now_ms: f64, margin_ms: f64) -> bool {
        self.inner.needs_refresh(millis(now_ms), millis(margin_ms))
    }

    /// The durable state, to persist where content scripts cannot read it (it holds tokens).
    pub fn state(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.state())
    }
}
