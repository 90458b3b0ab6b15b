//! Grants: the scope to ask for, the authorization request and the browser step, the client
//! credentials grant, issued tokens, and the requests themselves.

use super::*;
use crate::auth::dpop::{self, ProofClaims};
use crate::auth::encode::base64url;

impl Authorizer {
    /// The scope to ask for: a step-up's union; else the challenge's; else the resource's
    /// `scopes_supported`; else none. `offline_access` is added where the authorization server
    /// lists it.
    pub(super) fn choose_scope(&self, server: &ServerMetadata) -> Option<String> {
        let base = self
            .step_up_scope
            .clone()
            .or_else(|| self.challenge.scope.clone())
            .or_else(|| {
                self.state
                    .resource_metadata
                    .as_ref()
                    .and_then(|m| m.scopes_supported.as_ref())
                    .map(|s| s.join(" "))
            })
            .filter(|s| !s.trim().is_empty())?;
        let mut scopes = split_scopes(&base);
        if self.cfg.offline_access
            && server.lists_scope("offline_access")
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        Some(scopes.join(" "))
    }

    pub(super) fn asked_scopes(&self) -> Vec<String> {
        let mut scopes = split_scopes(self.state.requested_scope.as_deref().unwrap_or_default());
        if let Some(granted) = self.state.tokens.as_ref().and_then(|t| t.scope.as_deref()) {
            for scope in split_scopes(granted) {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
        }
        scopes
    }

    pub(super) fn authorize(&mut self) {
        let (Some(server), Some(client)) = (
            self.state.server_metadata.clone(),
            self.state.client.clone(),
        ) else {
            return;
        };
        if enterprise::uses_enterprise(&server, &self.cfg) {
            self.exchange_at_idp(&server);
            return;
        }
        if uses_client_credentials(&server, &client) {
            self.client_credentials(&server, &client);
            return;
        }
        // Metadata found by discovery must promise PKCE; the 2025-03-26 default endpoints
        // come with no metadata to ask.
        let fallback = self.state.resource_metadata.is_none()
            && server == ServerMetadata::fallback(&server.issuer);
        if !server.supports_s256() && !fallback {
            self.fail(AuthError::PkceUnsupported {
                issuer: server.issuer,
            });
            return;
        }
        if self.attempts >= self.cfg.max_attempts {
            self.fail(AuthError::TooManyAttempts {
                attempts: self.attempts,
                scope: self.challenge.scope.clone(),
            });
            return;
        }
        self.attempts += 1;
        let scope = self.choose_scope(&server);
        let verifier = self.entropy.next_token("pkce code verifier");
        let state = self.entropy.next_token("oauth state");
        let challenge = s256_challenge(&verifier);
        let mut pairs: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &client.client_id),
            ("redirect_uri", &self.cfg.redirect_uri),
            ("state", &state),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ];
        if let Some(resource) = &self.state.resource {
            pairs.push(("resource", resource));
        }
        if let Some(scope) = &scope {
            pairs.push(("scope", scope));
        }
        let url = append_query(&server.authorization_endpoint, &pairs);
        self.attempt_scope = scope.clone();
        self.state.requested_scope = scope;
        self.actions.push_back(AuthAction::OpenBrowser { url });
        self.step = Step::Browser { state, verifier };
    }

    /// The client credentials grant (OAuth 2.1 §4.2, SEP-1046): a confidential client asks
    /// for a token for itself, without a user or a browser.
    pub(super) fn client_credentials(&mut self, server: &ServerMetadata, client: &ClientIdentity) {
        if self.attempts >= self.cfg.max_attempts {
            self.fail(AuthError::TooManyAttempts {
                attempts: self.attempts,
                scope: self.challenge.scope.clone(),
            });
            return;
        }
        self.attempts += 1;
        let scope = self.choose_scope(server);
        let mut form = vec![("grant_type".to_owned(), "client_credentials".to_owned())];
        if let Some(scope) = &scope {
            form.push(("scope".to_owned(), scope.clone()));
        }
        if let Some(resource) = &self.state.resource {
            form.push(("resource".to_owned(), resource.clone()));
        }
        self.attempt_scope = scope.clone();
        self.state.requested_scope = scope;
        let url = server.token_endpoint.clone();
        let exchange = self.token_request(server, client, form);
        self.step = Step::Code { exchange, url };
    }

    pub(super) fn ready_for_token_requests(&self) -> bool {
        self.state.server_metadata.is_some() && self.state.client.is_some()
    }

    pub(super) fn tokens_issued(
        &mut self,
        body: &[u8],
        now_ms: u64,
        scope: Option<&str>,
        previous_refresh: Option<&str>,
        refreshed: bool,
        url: String,
    ) {
        self.token_retry = None;
        match TokenSet::from_response(body, now_ms, scope, previous_refresh, self.proved) {
            Ok(tokens) => {
                // A bound token is bound to the key the proof was made with.
                self.state.dpop_key = if tokens.is_dpop() {
                    self.dpop_key()
                } else {
                    None
                };
                self.events.push_back(AuthEvent::SignedIn {
                    scope: tokens.scope.clone(),
                    expires_at_ms: tokens.expires_at_ms,
                    refreshed,
                });
                self.state.tokens = Some(tokens);
                self.step_up_scope = None;
            }
            Err(message) => self.fail(AuthError::InvalidResponse {
                step: if refreshed {
                    "token refresh"
                } else {
                    "token request"
                },
                url,
                message,
            }),
        }
    }

    /// A request to the token endpoint: with a DPoP proof where the tokens are to be bound,
    /// kept to be made once more should the server ask for a nonce.
    pub(super) fn token_request(
        &mut self,
        server: &ServerMetadata,
        client: &ClientIdentity,
        form: Vec<(String, String)>,
    ) -> u64 {
        let url = server.token_endpoint.clone();
        self.token_retry = Some(proof::TokenRetry {
            url: url.clone(),
            form: form.clone(),
            retried: false,
        });
        self.authenticated_post(server, client, url, form, true)
    }

    /// A POST to an endpoint of the authorization server with the client's authentication
    /// (and a DPoP proof when `dpop` and the tokens are to be bound). Signatures come first
    /// ([`AuthAction::Sign`]: a `private_key_jwt` assertion, a proof); the id returned is then
    /// the first signing request's, and the step waiting on it is moved to the POST's id once
    /// every signature is in (`handle_signature`).
    pub(super) fn authenticated_post(
        &mut self,
        server: &ServerMetadata,
        client: &ClientIdentity,
        url: String,
        mut form: Vec<(String, String)>,
        dpop: bool,
    ) -> u64 {
        let mut headers = vec![form_content_type(), accept_json()];
        let auth = TokenAuth::choose(client, server);
        auth.apply(client, &mut headers, &mut form);
        let mut parts = Vec::new();
        if auth == TokenAuth::PrivateKeyJwt {
            let alg = client
                .assertion_alg
                .clone()
                .unwrap_or_else(|| "ES256".to_owned());
            let now_s = self.clock_ms / 1000;
            // RFC 7523 §3: iss and sub are the client, aud the authorization server's issuer
            // identifier (RFC 7523bis), a short lifetime and a unique id.
            let header = serde_json::json!({ "alg": alg, "typ": "JWT" });
            let claims = serde_json::json!({
                "iss": client.client_id,
                "sub": client.client_id,
                "aud": server.issuer,
                "iat": now_s,
                "exp": now_s + 300,
                "jti": self.entropy.next_token("jwt id"),
            });
            let signing_input = format!(
                "{}.{}",
                base64url(header.to_string().as_bytes()),
                base64url(claims.to_string().as_bytes())
            );
            form.push(("client_id".to_owned(), client.client_id.clone()));
            parts.push((SignKey::Client, alg, signing_input));
        }
        self.proved = false;
        if dpop {
            if let Some(key) = self.dpop_key() {
                let jti = self.entropy.next_token("dpop jti");
                let claims = ProofClaims {
                    method: HttpMethod::Post,
                    url: &url,
                    iat_s: self.clock_ms / 1000,
                    jti: &jti,
                    nonce: self.state.dpop_nonces.for_url(&url),
                    access_token: None,
                };
                let input = dpop::signing_input(&key, &claims);
                parts.push((SignKey::Dpop, dpop::DPOP_ALG.to_owned(), input));
                self.proved = true;
            }
        }
        if parts.is_empty() {
            return self.fetch(HttpMethod::Post, url, headers, Some(encode_pairs(&form)));
        }
        self.sign_then_post(url, headers, form, parts)
    }

    pub(super) fn fetch(
        &mut self,
        method: HttpMethod,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<String>,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.inflight = Some((id, url.clone()));
        self.actions.push_back(AuthAction::Fetch(AuthRequest {
            id,
            method,
            url,
            headers,
            body,
        }));
        id
    }

    pub(super) fn fail(&mut self, error: AuthError) {
        self.step = Step::Idle;
        self.pending_sign = None;
        self.token_retry = None;
        self.step_up_scope = None;
        self.events.push_back(AuthEvent::Failed(error));
    }
}

/// Whether to use the client credentials grant: the authorization server offers it and not
/// the authorization code grant, and the client has a secret to authenticate with.
pub(super) fn uses_client_credentials(server: &ServerMetadata, client: &ClientIdentity) -> bool {
    let Some(grants) = &server.grant_types_supported else {
        return false;
    };
    let offers = |g: &str| grants.iter().any(|x| x == g);
    !offers("authorization_code") && offers("client_credentials") && client.is_confidential()
}

pub(super) fn accept_json() -> (String, String) {
    ("Accept".to_owned(), "application/json".to_owned())
}

pub(super) fn form_content_type() -> (String, String) {
    (
        "Content-Type".to_owned(),
        "application/x-www-form-urlencoded".to_owned(),
    )
}

pub(super) fn encode_pairs(pairs: &[(String, String)]) -> String {
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    form_encode(&borrowed)
}

pub(super) fn endpoint_error(
    step: &'static str,
    url: String,
    status: u16,
    body: &[u8],
) -> AuthError {
    let (error, description) = oauth_error(body);
    AuthError::Endpoint {
        step,
        url,
        status,
        error,
        description,
    }
}

pub(super) fn transport_error(step: &'static str, url: String, message: &str) -> AuthError {
    AuthError::Transport {
        step,
        url,
        message: message.to_owned(),
    }
}
