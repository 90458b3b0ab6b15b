//! The browser's side of signing in to servers (`relay_core::app`'s attempts): the attempt's
//! requests over `fetch`, its browser step in `chrome.identity.launchWebAuthFlow`, randomness
//! from `crypto.getRandomValues`, DPoP proofs signed with the server's WebCrypto key
//! (`keys`), and every MCP request of the service run with the server's sign-in kept fresh
//! and, for a DPoP-bound token, proved ([`ServiceProver`]). What an attempt comes to, what a
//! proof says and when to retry with a nonce are the app's decisions.

use std::rc::{Rc, Weak};

use relay_core::app::AuthEnv;
use relay_core::auth::{AuthAction, PublicJwk, SignKey, SEED_BYTES};
use relay_core::client::{ClientError, HttpMethod, Operation, Output, ResponseHead};
use relay_core::contract::ErrorBody;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{HandlerResult, Service};
use crate::mcp::{fetch, now_ms, ProgressFn, ProofFuture, Prover};

/// Most actions one attempt may take (discovery tries a few URLs; a sign-in is about ten).
const MAX_STEPS: usize = 40;
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
    ErrorBody::new("unavailable", format!("{what} is not available here"))
        .with_hint("Sign in from the extension's side panel in Chrome.")
}

/// Runs `f` with what an attempt needs from the platform (`dpop_key`: the public half of the
/// server's proof key, for an attempt that may get tokens).
fn with_env<R>(dpop_key: Option<&PublicJwk>, f: impl FnOnce(AuthEnv) -> R) -> Result<R, ErrorBody> {
    let redirect_uri = get_redirect_url("oauth").map_err(|_| unavailable("chrome.identity"))?;
    let mut seed = [0u8; SEED_BYTES];
    get_random_values(&mut seed).map_err(|_| unavailable("crypto.getRandomValues"))?;
    Ok(f(AuthEnv {
        redirect_uri: &redirect_uri,
        seed: &seed,
        now_ms: now_ms(),
        dpop_key,
    }))
}

/// The browser step: the authorization page in a Chrome window (only when the user asked:
/// otherwise Chrome fails at once where the page would need the user), resolved with the URL
/// it redirected to.
async fn browser_step(url: &str, interactive: bool) -> Result<String, String> {
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

impl Service {
    /// `servers/signIn`: connects; a server that refuses gets a sign-in the user may finish in
    /// a browser window. Answers the server's view (with the error, when the sign-in failed).
    pub(super) async fn sign_in(self: &Rc<Self>, id: &str) -> HandlerResult {
        let op = Operation::ListTools { refresh: true };
        let refused = match self.client.run(id, op, None, None).await {
            Err(e) => e.report().challenge,
            Ok(_) => None,
        };
        if let Some(challenge) = refused {
            let key = self.keys.get_or_create(id).await.ok().map(|k| k.jwk);
            with_env(key.as_ref(), |env| {
                self.app.borrow_mut().sign_in(id, &challenge, env, true)
            })??;
            self.carry_out(id).await?;
        }
        let _ = self.list_tools(id, true).await;
        self.server_view(id)
    }

    /// `servers/signOut`: the tokens forgotten (revoked where the server can), the view.
    pub(super) async fn sign_out(self: &Rc<Self>, id: &str) -> HandlerResult {
        with_env(None, |env| self.app.borrow_mut().sign_out(id, env))??;
        self.carry_out(id).await?;
        self.server_view(id)
    }

    /// Performs an attempt's actions, then ends it: its effects (the sign-in saved, the
    /// server's `Authorization` changed) first, then its outcome.
    async fn carry_out(self: &Rc<Self>, id: &str) -> Result<(), ErrorBody> {
        for _ in 0..MAX_STEPS {
            let Some((action, interactive)) = self.app.borrow_mut().auth_action(id) else {
                break;
            };
            match action {
                AuthAction::Fetch(r) => {
                    let body = r.body.as_deref();
                    let answer =
                        fetch::exchange(r.method, &r.url, &r.headers, body, FETCH_TIMEOUT_MS).await;
                    let mut app = self.app.borrow_mut();
                    let Some(flow) = app.auth_attempt(id) else {
                        break;
                    };
                    match answer {
                        Ok((status, body, nonce)) => {
                            if let Some(nonce) = nonce {
                                flow.handle_dpop_nonce(r.id, &nonce);
                            }
                            flow.handle_response(r.id, status, &body, now_ms());
                        }
                        Err(message) => flow.handle_fetch_error(r.id, &message),
                    }
                }
                AuthAction::OpenBrowser { url } => {
                    let answer = browser_step(&url, interactive).await;
                    let mut app = self.app.borrow_mut();
                    let Some(flow) = app.auth_attempt(id) else {
                        break;
                    };
                    match answer {
                        // A redirect that does not belong to the attempt fails it.
                        Ok(redirect) => drop(flow.handle_redirect(&redirect, now_ms())),
                        Err(message) => flow.handle_browser_error(&message),
                    }
                }
                AuthAction::Sign {
                    id: request,
                    key,
                    signing_input,
                    ..
                } => {
                    // Only DPoP proofs: the extension holds no client (assertion) key.
                    let signature = match key {
                        SignKey::Dpop => match self.keys.get(id).await {
                            Ok(Some(key)) => key.sign(&signing_input).await,
                            Ok(None) => Err("no DPoP key for this server".to_owned()),
                            Err(message) => Err(message),
                        },
                        _ => Err("MCP Relay holds no private key for this server".to_owned()),
                    };
                    if let Some(flow) = self.app.borrow_mut().auth_attempt(id) {
                        match signature {
                            Ok(signature) => flow.handle_signature(request, &signature),
                            Err(message) => flow.handle_fetch_error(request, &message),
                        }
                    }
                }
                _ => break,
            }
        }
        let (effects, outcome) = self.app.borrow_mut().auth_finish(id);
        self.run_effects(effects).await?;
        outcome
    }

    /// Runs an MCP operation with the server's sign-in kept fresh: a token about to expire is
    /// refreshed first, and a request the server refused although the app holds a token is
    /// tried once more after a refresh (or a sign-in that needs no page). A refused request
    /// did not run, so trying it again cannot run a call twice.
    // ClientError carries the context a user needs; see `McpClient::run`.
    #[allow(clippy::result_large_err)]
    pub(super) async fn mcp(
        self: &Rc<Self>,
        id: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        // Only a server signed in to has a token to refresh (no randomness drawn otherwise).
        if self.app.borrow().authorization(id).is_some() {
            let dpop = self.app.borrow().uses_dpop(id);
            let key = if dpop { self.proof_key(id).await } else { None };
            let due = with_env(key.as_ref(), |env| {
                self.app.borrow_mut().refresh_if_due(id, env)
            });
            if due == Ok(true) {
                let _ = self.carry_out(id).await;
            }
        }
        let retry = (op.clone(), on_progress.clone(), cancel_key.clone());
        let result = self.client.run(id, op, on_progress, cancel_key).await;
        let refused = match &result {
            Err(e) if self.app.borrow().authorization(id).is_some() => e.report().challenge,
            _ => None,
        };
        let Some(challenge) = refused else {
            return result;
        };
        let key = self.proof_key(id).await;
        let started = with_env(key.as_ref(), |env| {
            self.app.borrow_mut().sign_in(id, &challenge, env, false)
        });
        if !matches!(started, Ok(Ok(()))) || self.carry_out(id).await.is_err() {
            return result;
        }
        self.client.run(id, retry.0, retry.1, retry.2).await
    }
}

impl Service {
    /// The public half of the proof key an attempt of `id` binds tokens to: the one it has
    /// (or a new one when it has none yet).
    async fn proof_key(&self, id: &str) -> Option<PublicJwk> {
        self.keys.get_or_create(id).await.ok().map(|k| k.jwk)
    }
}

/// The service's DPoP prover: a proof from the app, signed with the server's key, on each
/// request of a server whose token is DPoP-bound; the app keeps nonces and says when to retry.
pub(super) struct ServiceProver(pub(super) Weak<Service>);

impl Prover for ServiceProver {
    fn proof(&self, server: &str, method: HttpMethod, url: &str) -> ProofFuture {
        let (svc, server, url) = (self.0.upgrade(), server.to_owned(), url.to_owned());
        Box::pin(async move {
            let svc = svc.filter(|s| s.app.borrow().uses_dpop(&server))?;
            let key = svc.keys.get(&server).await.ok()??;
            let mut seed = [0u8; SEED_BYTES];
            get_random_values(&mut seed).ok()?;
            let env = AuthEnv {
                redirect_uri: "",
                seed: &seed,
                now_ms: now_ms(),
                dpop_key: None,
            };
            let input = svc.app.borrow().dpop_proof(&server, method, &url, env)?;
            let signature = key.sign(&input).await.ok()?;
            Some(format!("{input}.{signature}"))
        })
    }

    fn answered(&self, server: &str, url: &str, head: &ResponseHead) -> bool {
        let Some(svc) = self.0.upgrade() else {
            return false;
        };
        let mut app = svc.app.borrow_mut();
        let (www, nonce) = (head.header("www-authenticate"), head.header("dpop-nonce"));
        app.dpop_answered(server, url, head.status, www, nonce)
    }
}
