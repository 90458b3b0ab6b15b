//! The sign-in state machine of one MCP server: [`Authorizer`].
//!
//! Sans-IO like `client::Session`: it asks its driver to perform requests and to open the
//! browser step ([`AuthAction`]), is told what came back (`handle_*`, with the driver's clock
//! as `now_ms`), and reports sign-ins and failures ([`AuthEvent`]). Its durable part
//! ([`AuthState`]: metadata, client identity, tokens) is plain data the driver persists.
//!
//! The flow, per the MCP authorization spec (2025-11-25, with the 2025-03-26 fallbacks):
//! 1. protected-resource metadata from the challenge's `resource_metadata`, else the
//!    well-known URIs (path-specific, then root); its `resource` must cover the server;
//! 2. authorization-server metadata at the issuer's well-known URIs (RFC 8414, then OpenID),
//!    whose `issuer` must be the one asked; without protected-resource metadata, the server's
//!    origin is the authorization server, and without metadata its `/authorize`, `/token` and
//!    `/register` are used;
//! 3. a client identity: pre-registered, a Client ID Metadata Document URL where the server
//!    supports it, else Dynamic Client Registration;
//! 4. the authorization request (PKCE S256, `state`, RFC 8707 `resource`, the scope of the
//!    challenge, else `scopes_supported`, else none; `offline_access` where the server lists
//!    it), the browser step, `state` and RFC 9207 `iss` checks on the redirect;
//! 5. the code exchange and later refreshes, with client authentication `client_secret_basic`,
//!    `client_secret_post` or `none`.
//!
//! With a proof key from the driver ([`AuthConfig::dpop_key`]) and an authorization server that
//! takes ES256 DPoP proofs, every token request carries a proof and the tokens are DPoP-bound
//! (RFC 9449, SEP-1932; [`super::dpop`], the requests in `proof`); otherwise they are bearer
//! tokens.
//!
//! A 401 refreshes first when it can; a 403 `insufficient_scope` signs in again asking for the
//! union of the scopes (step-up), at most `max_attempts` sign-ins until the driver reports a
//! success, and never for scopes already asked for. A different authorization server in fresh
//! metadata (migration) drops the tokens and the registration that belonged to the old one.

mod discovery;
mod enterprise;
mod grant;
mod proof;

pub use enterprise::EnterpriseIdentity;
use grant::{accept_json, encode_pairs, endpoint_error, form_content_type, transport_error};

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::challenge::{split_scopes, BearerChallenge};
use super::dpop::{DpopNonces, PublicJwk};
use super::encode::{append_query, form_encode, query_params};
use super::error::AuthError;
use super::metadata::{
    canonical_resource, endpoint_url, resource_covers, resource_metadata_url,
    resource_metadata_urls, same_issuer, server_metadata_urls, sign_in_endpoint, ResourceMetadata,
    ServerMetadata,
};
use super::pkce::{s256_challenge, Entropy};
use super::registration::{registration_request, registration_response, ClientIdentity, TokenAuth};
use super::token::{oauth_error, TokenSet};
use crate::client::http::HttpMethod;
use crate::client::url::HttpUrl;

/// How the client signs in to one server. As data (a driver's configuration), camelCase with
/// `serverUrl` and `redirectUri` required and the rest defaulting as in [`AuthConfig::new`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthConfig {
    /// The MCP server's URL (the protected resource).
    pub server_url: String,
    /// Where the authorization server sends the browser back (`https://<id>.chromiumapp.org/…`
    /// for `chrome.identity.launchWebAuthFlow`).
    pub redirect_uri: String,
    /// `client_name` in a registration.
    #[serde(default = "default_client_name")]
    pub client_name: String,
    /// The URL of this client's Client ID Metadata Document, used as `client_id` where the
    /// authorization server supports it.
    #[serde(default)]
    pub client_metadata_url: Option<String>,
    /// A pre-registered client (id and optional secret) for servers without registration.
    #[serde(default)]
    pub client: Option<ClientIdentity>,
    /// Ask for `offline_access` where the authorization server lists it (SEP-2207).
    #[serde(default = "default_true")]
    pub offline_access: bool,
    /// Most sign-ins between two successful requests (the first one and step-ups).
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// An identity provider sign-in for enterprise-managed authorization (SEP-990), used where
    /// the authorization server takes JWT bearer grants.
    #[serde(default)]
    pub enterprise: Option<EnterpriseIdentity>,
    /// The public half of the driver's DPoP proof key (ECDSA P-256, the private half stays
    /// with the driver): tokens are DPoP-bound where the authorization server supports it.
    #[serde(default)]
    pub dpop_key: Option<PublicJwk>,
}

impl AuthConfig {
    /// Defaults for a server and a redirect URI.
    pub fn new(server_url: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        AuthConfig {
            server_url: server_url.into(),
            redirect_uri: redirect_uri.into(),
            client_name: default_client_name(),
            client_metadata_url: None,
            client: None,
            offline_access: true,
            max_attempts: default_max_attempts(),
            enterprise: None,
            dpop_key: None,
        }
    }
}

fn default_client_name() -> String {
    "MCP Relay".to_owned()
}

fn default_true() -> bool {
    true
}

fn default_max_attempts() -> u32 {
    3
}

/// What survives between sign-ins (persist it; `Debug` of its parts redacts secrets).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthState {
    /// The resource indicator (RFC 8707) tokens are asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<ResourceMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_metadata: Option<ServerMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientIdentity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSet>,
    /// The scope of the last authorization request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_scope: Option<String>,
    /// The public key DPoP-bound tokens are bound to (the driver holds its private half).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<PublicJwk>,
    /// The latest DPoP nonce of each endpoint (token endpoint, MCP endpoint), by `htu`.
    #[serde(default, skip_serializing_if = "DpopNonces::is_empty")]
    pub dpop_nonces: DpopNonces,
}

/// A request for the driver. `Debug` leaves out the headers and body (credentials);
/// serialised, `headers` is a list of `[name, value]` pairs.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AuthRequest {
    pub id: u64,
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl std::fmt::Debug for AuthRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("url", &crate::client::url::redact_url(&self.url))
            .finish_non_exhaustive()
    }
}

/// Something the driver must do. As data: `{type: "fetch", id, method, url, headers, body}`,
/// `{type: "browser", url}` or `{type: "sign", id, alg, key, signingInput}` (read through one
/// flat struct, [`input::ActionWire`](super::input), not serde's buffered tagged-enum path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "super::input::ActionWire")]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AuthAction {
    /// Perform this request; report with `handle_response` or `handle_fetch_error`.
    Fetch(AuthRequest),
    /// Send the user's browser to `url` and report the redirect to the configured
    /// redirect URI with `handle_redirect` (or `handle_browser_error`).
    #[serde(rename = "browser")]
    OpenBrowser { url: String },
    /// Sign `signing_input` (a JWS's `header.payload`) with the private key `key` names and
    /// algorithm `alg`; report the base64url signature with `handle_signature` (or
    /// `handle_fetch_error` with this id when it cannot).
    Sign {
        id: u64,
        alg: String,
        key: SignKey,
        signing_input: String,
    },
}

/// Which of the driver's keys signs: the client's (`private_key_jwt` assertions) or the DPoP
/// proof key. As data: `"client"` or `"dpop"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SignKey {
    Client,
    Dpop,
}

/// Something the flow reports. As data: `{type: "signedIn", scope, expiresAtMs, refreshed}`,
/// `{type: "signedOut"}` or `{type: "failed", error: {kind, message}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AuthEvent {
    /// Tokens were issued (`refreshed`: by a refresh, without the browser).
    SignedIn {
        scope: Option<String>,
        expires_at_ms: Option<u64>,
        refreshed: bool,
    },
    /// The tokens were dropped (and revoked where the server supports it).
    SignedOut,
    /// The attempt ended without tokens.
    #[serde(serialize_with = "crate::auth::input::failed")]
    Failed(AuthError),
}

#[derive(Debug)]
enum Step {
    Idle,
    Resource {
        urls: Vec<String>,
        next: usize,
        exchange: u64,
    },
    Server {
        urls: Vec<String>,
        next: usize,
        exchange: u64,
        issuer: String,
        legacy: bool,
    },
    Register {
        exchange: u64,
        url: String,
    },
    Browser {
        state: String,
        verifier: String,
    },
    Code {
        exchange: u64,
        url: String,
    },
    Refresh {
        exchange: u64,
        url: String,
    },
    IdpExchange {
        exchange: u64,
        url: String,
    },
    Revoke {
        exchange: u64,
    },
}

/// The sign-in state machine of one server. See the module documentation.
#[derive(Debug)]
pub struct Authorizer {
    cfg: AuthConfig,
    state: AuthState,
    step: Step,
    entropy: Entropy,
    next_id: u64,
    actions: VecDeque<AuthAction>,
    events: VecDeque<AuthEvent>,
    /// The challenge that started the current attempt.
    challenge: BearerChallenge,
    /// The scope of a step-up, decided before discovery.
    step_up_scope: Option<String>,
    /// The scope of the authorization request under way.
    attempt_scope: Option<String>,
    /// Sign-ins since the driver last reported a successful request.
    attempts: u32,
    refreshed_since_success: bool,
    /// The driver's clock as last told (for assertion timestamps).
    clock_ms: u64,
    pending_sign: Option<proof::PendingSign>,
    /// The URL of the request under way (whose `DPoP-Nonce` the driver may report).
    inflight: Option<(u64, String)>,
    /// The token request under way, to make once more with a nonce (RFC 9449 §8).
    token_retry: Option<proof::TokenRetry>,
    /// Whether the last token request carried a DPoP proof.
    proved: bool,
}

impl Authorizer {
    /// A flow with nothing known yet. `seed` is at least
    /// [`SEED_BYTES`](super::pkce::SEED_BYTES) bytes from the platform's CSPRNG.
    pub fn new(cfg: AuthConfig, seed: &[u8]) -> Result<Authorizer, AuthError> {
        Authorizer::with_state(cfg, AuthState::default(), seed)
    }

    /// A flow resuming from persisted state.
    pub fn with_state(
        cfg: AuthConfig,
        state: AuthState,
        seed: &[u8],
    ) -> Result<Authorizer, AuthError> {
        let entropy =
            Entropy::new(seed).ok_or(AuthError::InvalidState("the random seed is too short"))?;
        HttpUrl::parse(&cfg.server_url).map_err(|e| AuthError::BadUrl {
            url: cfg.server_url.clone(),
            reason: e.to_string(),
        })?;
        Ok(Authorizer {
            cfg,
            state,
            step: Step::Idle,
            entropy,
            next_id: 1,
            actions: VecDeque::new(),
            events: VecDeque::new(),
            challenge: BearerChallenge::default(),
            step_up_scope: None,
            attempt_scope: None,
            attempts: 0,
            refreshed_since_success: false,
            clock_ms: 0,
            pending_sign: None,
            inflight: None,
            token_retry: None,
            proved: false,
        })
    }

    /// The durable part, to persist.
    pub fn state(&self) -> &AuthState {
        &self.state
    }

    /// The `Authorization` header value for the server, when signed in.
    pub fn authorization(&self) -> Option<String> {
        self.state.tokens.as_ref().map(TokenSet::authorization)
    }

    /// Whether a refresh should happen before the next request (the token expires within
    /// `margin_ms` and a refresh token exists).
    pub fn needs_refresh(&self, now_ms: u64, margin_ms: u64) -> bool {
        self.state
            .tokens
            .as_ref()
            .is_some_and(|t| t.refresh_token.is_some() && t.expires_within(now_ms, margin_ms))
    }

    /// Whether an attempt is under way.
    pub fn is_busy(&self) -> bool {
        !matches!(self.step, Step::Idle)
    }

    /// Next thing for the driver to do.
    pub fn poll_action(&mut self) -> Option<AuthAction> {
        self.actions.pop_front()
    }

    /// Next thing to report.
    pub fn poll_event(&mut self) -> Option<AuthEvent> {
        self.events.pop_front()
    }

    /// A request with the current token succeeded: the sign-in budget starts over.
    pub fn note_success(&mut self) {
        self.attempts = 0;
        self.refreshed_since_success = false;
    }

    /// The server refused a request: `status` 401 or 403 and its `WWW-Authenticate`. Starts a
    /// refresh, a sign-in or a step-up; an error says why none can help.
    pub fn handle_challenge(
        &mut self,
        status: u16,
        www_authenticate: Option<&str>,
        now_ms: u64,
    ) -> Result<(), AuthError> {
        self.clock_ms = now_ms;
        if self.is_busy() {
            return Err(AuthError::InvalidState("a sign-in is already under way"));
        }
        let challenge = www_authenticate
            .and_then(BearerChallenge::parse)
            .unwrap_or_default();
        if status == 403 {
            if !challenge.is_insufficient_scope() {
                return Err(AuthError::Forbidden);
            }
            let asked: Vec<String> = self.asked_scopes();
            let wanted = challenge.scopes();
            let new: Vec<&String> = wanted.iter().filter(|s| !asked.contains(s)).collect();
            if new.is_empty() || self.attempts >= self.cfg.max_attempts {
                return Err(AuthError::TooManyAttempts {
                    attempts: self.attempts,
                    scope: challenge.scope.clone(),
                });
            }
            let mut union = asked;
            union.extend(new.into_iter().cloned());
            self.step_up_scope = Some(union.join(" "));
        } else {
            self.step_up_scope = None;
            let can_refresh = self
                .state
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some());
            if can_refresh && !self.refreshed_since_success && self.ready_for_token_requests() {
                self.refreshed_since_success = true;
                self.challenge = challenge;
                return self.refresh(now_ms);
            }
            if self.attempts >= self.cfg.max_attempts {
                return Err(AuthError::TooManyAttempts {
                    attempts: self.attempts,
                    scope: challenge.scope.clone(),
                });
            }
        }
        self.state.tokens = None;
        self.challenge = challenge;
        self.discover_resource();
        Ok(())
    }

    /// Starts a refresh with the stored refresh token.
    pub fn refresh(&mut self, now_ms: u64) -> Result<(), AuthError> {
        self.clock_ms = now_ms;
        if matches!(
            self.step,
            Step::Browser { .. } | Step::Code { .. } | Step::Refresh { .. }
        ) {
            return Err(AuthError::InvalidState("a sign-in is already under way"));
        }
        let (Some(server), Some(client), Some(refresh)) = (
            self.state.server_metadata.clone(),
            self.state.client.clone(),
            self.state
                .tokens
                .as_ref()
                .and_then(|t| t.refresh_token.clone()),
        ) else {
            return Err(AuthError::InvalidState("there is no refresh token"));
        };
        let mut form = vec![
            ("grant_type".to_owned(), "refresh_token".to_owned()),
            ("refresh_token".to_owned(), refresh),
        ];
        if let Some(resource) = &self.state.resource {
            form.push(("resource".to_owned(), resource.clone()));
        }
        let url = server.token_endpoint.clone();
        let exchange = self.token_request(&server, &client, form);
        self.step = Step::Refresh { exchange, url };
        Ok(())
    }

    /// Signs out: drops the tokens and revokes the refresh (else access) token where the
    /// server has a revocation endpoint (RFC 7009). [`AuthEvent::SignedOut`] follows.
    pub fn sign_out(&mut self, now_ms: u64) {
        self.clock_ms = now_ms;
        self.step = Step::Idle;
        let tokens = self.state.tokens.take();
        let revocation = self
            .state
            .server_metadata
            .as_ref()
            .and_then(|m| m.revocation_endpoint.clone());
        match (
            tokens,
            revocation,
            self.state.client.clone(),
            self.state.server_metadata.clone(),
        ) {
            (Some(tokens), Some(url), Some(client), Some(server)) if endpoint_url(&url).is_ok() => {
                let (token, hint) = match tokens.refresh_token {
                    Some(refresh) => (refresh, "refresh_token"),
                    None => (tokens.access_token, "access_token"),
                };
                let form = vec![
                    ("token".to_owned(), token),
                    ("token_type_hint".to_owned(), hint.to_owned()),
                ];
                let exchange = self.authenticated_post(&server, &client, url, form, false);
                self.step = Step::Revoke { exchange };
            }
            _ => self.events.push_back(AuthEvent::SignedOut),
        }
    }

    /// Abandons the attempt under way (the user closed the sign-in).
    pub fn handle_browser_error(&mut self, message: &str) {
        if matches!(self.step, Step::Browser { .. }) {
            self.fail(AuthError::BrowserFailed {
                message: message.to_owned(),
            });
        }
    }

    /// The browser came back to the redirect URI with `url` (code, state, maybe iss).
    pub fn handle_redirect(&mut self, url: &str, now_ms: u64) -> Result<(), AuthError> {
        self.clock_ms = now_ms;
        let Step::Browser { state, verifier } = &self.step else {
            return Err(AuthError::InvalidState(
                "no sign-in is waiting for the browser",
            ));
        };
        let (state, verifier) = (state.clone(), verifier.clone());
        let params = query_params(url);
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        if param("state").as_deref() != Some(state.as_str()) {
            // Not this attempt's answer (or forged): the attempt stays open for the real one.
            return Err(AuthError::BadRedirect {
                reason: "its state does not match",
            });
        }
        let Some(server) = self.state.server_metadata.clone() else {
            return Err(AuthError::InvalidState("no authorization server is known"));
        };
        // RFC 9207: an `iss` must name the server asked; a server that promises one must send it.
        // Compared as strings, without any normalization (SEP-2468): a lookalike issuer that
        // differs only by a trailing slash or letter case is another issuer.
        match param("iss") {
            Some(iss) if iss != server.issuer => {
                self.fail(AuthError::IssuerMismatch {
                    expected: server.issuer.clone(),
                    found: iss,
                });
                return Ok(());
            }
            None if server.authorization_response_iss_parameter_supported => {
                self.fail(AuthError::BadRedirect {
                    reason: "the authorization server promised an `iss` and sent none",
                });
                return Ok(());
            }
            _ => {}
        }
        if let Some(error) = param("error") {
            self.fail(AuthError::Denied {
                error,
                description: param("error_description"),
            });
            return Ok(());
        }
        let Some(code) = param("code").filter(|c| !c.is_empty()) else {
            self.fail(AuthError::BadRedirect {
                reason: "it carries no code",
            });
            return Ok(());
        };
        let Some(client) = self.state.client.clone() else {
            return Err(AuthError::InvalidState("no client identity is known"));
        };
        let mut form = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code),
            ("redirect_uri".to_owned(), self.cfg.redirect_uri.clone()),
            ("code_verifier".to_owned(), verifier),
        ];
        if let Some(resource) = &self.state.resource {
            form.push(("resource".to_owned(), resource.clone()));
        }
        let url = server.token_endpoint.clone();
        let exchange = self.token_request(&server, &client, form);
        self.step = Step::Code { exchange, url };
        Ok(())
    }

    /// A response to request `id` arrived whole.
    pub fn handle_response(&mut self, id: u64, status: u16, body: &[u8], now_ms: u64) {
        self.clock_ms = now_ms;
        let ok = (200..300).contains(&status);
        match std::mem::replace(&mut self.step, Step::Idle) {
            Step::Resource {
                urls,
                next,
                exchange,
            } if exchange == id => {
                if ok {
                    if let Ok(metadata) = crate::json_value::from_slice::<ResourceMetadata>(body) {
                        let fetched_from = urls.get(next - 1).cloned().unwrap_or_default();
                        self.resource_found(metadata, &fetched_from);
                        return;
                    }
                }
                self.next_resource_url(urls, next);
            }
            Step::Server {
                urls,
                next,
                exchange,
                issuer,
                legacy,
            } if exchange == id => {
                if ok {
                    if let Ok(metadata) = crate::json_value::from_slice::<ServerMetadata>(body) {
                        self.server_found(metadata, &issuer, legacy);
                        return;
                    }
                }
                self.next_server_url(urls, next, issuer, legacy);
            }
            Step::Register { exchange, url } if exchange == id => {
                if !ok {
                    self.fail(endpoint_error("client registration", url, status, body));
                    return;
                }
                let issuer = self
                    .state
                    .server_metadata
                    .as_ref()
                    .map(|m| m.issuer.clone())
                    .unwrap_or_default();
                match registration_response(body, &issuer) {
                    Ok(client) => {
                        self.state.client = Some(client);
                        self.authorize();
                    }
                    Err(message) => self.fail(AuthError::InvalidResponse {
                        step: "client registration",
                        url,
                        message,
                    }),
                }
            }
            Step::Code { exchange, url } if exchange == id => {
                if let Some(exchange) = self.retry_with_nonce(status, body) {
                    self.step = Step::Code { exchange, url };
                    return;
                }
                if !ok {
                    self.fail(endpoint_error("token request", url, status, body));
                    return;
                }
                let scope = self.attempt_scope.clone();
                self.tokens_issued(body, now_ms, scope.as_deref(), None, false, url);
            }
            Step::Refresh { exchange, url } if exchange == id => {
                if let Some(exchange) = self.retry_with_nonce(status, body) {
                    self.step = Step::Refresh { exchange, url };
                    return;
                }
                if ok {
                    let previous = self
                        .state
                        .tokens
                        .as_ref()
                        .and_then(|t| t.refresh_token.clone());
                    let scope = self.state.tokens.as_ref().and_then(|t| t.scope.clone());
                    self.tokens_issued(
                        body,
                        now_ms,
                        scope.as_deref(),
                        previous.as_deref(),
                        true,
                        url,
                    );
                } else if status == 400 || status == 401 {
                    // The refresh token is no longer good (invalid_grant): sign in again.
                    self.state.tokens = None;
                    if self.attempts >= self.cfg.max_attempts {
                        self.fail(endpoint_error("token refresh", url, status, body));
                    } else {
                        self.discover_resource();
                    }
                } else {
                    self.fail(endpoint_error("token refresh", url, status, body));
                }
            }
            Step::IdpExchange { exchange, url } if exchange == id => {
                self.idp_answered(url, status, body);
            }
            Step::Revoke { exchange } if exchange == id => {
                // Revocation is best effort: the tokens are gone from here either way.
                self.events.push_back(AuthEvent::SignedOut);
            }
            other => self.step = other,
        }
    }

    /// Request `id` could not be performed (network failure, blocked, timed out), or the
    /// signature `id` could not be made.
    pub fn handle_fetch_error(&mut self, id: u64, message: &str) {
        let id = self.signing_request(id).unwrap_or(id);
        match std::mem::replace(&mut self.step, Step::Idle) {
            Step::Resource {
                urls,
                next,
                exchange,
            } if exchange == id => {
                self.next_resource_url(urls, next);
            }
            Step::Server {
                urls,
                next,
                exchange,
                issuer,
                legacy,
            } if exchange == id => {
                self.next_server_url(urls, next, issuer, legacy);
            }
            Step::Register { exchange, url } if exchange == id => {
                self.fail(transport_error("client registration", url, message));
            }
            Step::Code { exchange, url } if exchange == id => {
                self.fail(transport_error("token request", url, message));
            }
            Step::Refresh { exchange, url } if exchange == id => {
                self.fail(transport_error("token refresh", url, message));
            }
            Step::IdpExchange { exchange, url } if exchange == id => {
                self.fail(transport_error(
                    "identity provider token exchange",
                    url,
                    message,
                ));
            }
            Step::Revoke { exchange } if exchange == id => {
                self.events.push_back(AuthEvent::SignedOut);
            }
            other => self.step = other,
        }
    }
}
