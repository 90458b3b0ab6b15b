//! Signed token requests and DPoP: a token request waits for its signatures (a
//! `private_key_jwt` assertion, a DPoP proof) before it goes out; an authorization server's
//! `use_dpop_nonce` makes it once more with the nonce; and resource requests get their proofs
//! and nonces here ([`Authorizer::resource_proof`], [`Authorizer::resource_answered`]).

use super::*;
use crate::auth::dpop::{self, ProofClaims};

/// A token request waiting for its signatures. `Debug` leaves out the form (a code, a refresh
/// token) and the signing inputs.
pub(super) struct PendingSign {
    /// The first signing request's id: the id the step waits on until the POST goes out.
    id: u64,
    url: String,
    headers: Vec<(String, String)>,
    form: Vec<(String, String)>,
    parts: Vec<SignPart>,
}

struct SignPart {
    id: u64,
    key: SignKey,
    signing_input: String,
    signature: Option<String>,
}

impl std::fmt::Debug for PendingSign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSign")
            .field("id", &self.id)
            .field("parts", &self.parts.len())
            .finish_non_exhaustive()
    }
}

/// A token request as it was asked for, before client authentication, to be made once more
/// with a fresh proof when the server asks for a nonce. `Debug` leaves out the form.
pub(super) struct TokenRetry {
    pub(super) url: String,
    pub(super) form: Vec<(String, String)>,
    /// Made once more already: a second `use_dpop_nonce` ends the attempt.
    pub(super) retried: bool,
}

impl std::fmt::Debug for TokenRetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRetry")
            .field("retried", &self.retried)
            .finish_non_exhaustive()
    }
}

impl AuthState {
    /// The signing input of a DPoP proof for a resource request (`method` to `url` at
    /// `now_ms`, unique `jti`), when the tokens are DPoP-bound: with `ath` of the access token
    /// and the resource server's latest nonce. The driver signs it with the private key of
    /// [`AuthState::dpop_key`] and sends `DPoP: <signing input>.<signature>`.
    pub fn dpop_proof(
        &self,
        method: HttpMethod,
        url: &str,
        now_ms: u64,
        jti: &str,
    ) -> Option<String> {
        let tokens = self.tokens.as_ref().filter(|t| t.is_dpop())?;
        let key = self.dpop_key.as_ref()?;
        let claims = ProofClaims {
            method,
            url,
            iat_s: now_ms / 1000,
            jti,
            nonce: self.dpop_nonces.for_url(url),
            access_token: Some(&tokens.access_token),
        };
        Some(dpop::signing_input(key, &claims))
    }

    /// A resource server answered a request with a DPoP-bound token: keeps the nonce it sent
    /// (`DPoP-Nonce`), and says whether to make the request once more with a new proof (a 401
    /// asking for a nonce it just gave, RFC 9449 §9).
    pub fn dpop_answered(
        &mut self,
        url: &str,
        status: u16,
        www_authenticate: Option<&str>,
        nonce: Option<&str>,
    ) -> bool {
        if !self.tokens.as_ref().is_some_and(TokenSet::is_dpop) {
            return false;
        }
        let fresh = nonce.is_some_and(|n| self.dpop_nonces.remember(url, n));
        fresh && dpop::resource_wants_nonce(status, www_authenticate)
    }
}

impl Authorizer {
    /// The key token requests are proved with: the driver's, when the authorization server
    /// takes ES256 proofs.
    pub(super) fn dpop_key(&self) -> Option<PublicJwk> {
        let server = self.state.server_metadata.as_ref()?;
        if !dpop::server_supports(server.dpop_signing_alg_values_supported.as_deref()) {
            return None;
        }
        self.cfg.dpop_key.clone().filter(PublicJwk::is_usable)
    }

    /// The signing input of a proof for a resource request (see [`AuthState::dpop_proof`]),
    /// with a `jti` from this flow's entropy.
    pub fn resource_proof(&mut self, method: HttpMethod, url: &str, now_ms: u64) -> Option<String> {
        self.state.tokens.as_ref().filter(|t| t.is_dpop())?;
        let jti = self.entropy.next_token("dpop jti");
        self.state.dpop_proof(method, url, now_ms, &jti)
    }

    /// See [`AuthState::dpop_answered`].
    pub fn resource_answered(
        &mut self,
        url: &str,
        status: u16,
        www_authenticate: Option<&str>,
        nonce: Option<&str>,
    ) -> bool {
        self.state
            .dpop_answered(url, status, www_authenticate, nonce)
    }

    /// The response to request `id` carried `DPoP-Nonce: nonce`: kept for that server's next
    /// proofs. Report it before the response itself.
    pub fn handle_dpop_nonce(&mut self, id: u64, nonce: &str) {
        if let Some((_, url)) = self.inflight.as_ref().filter(|(i, _)| *i == id) {
            let url = url.clone();
            self.state.dpop_nonces.remember(&url, nonce);
        }
    }

    /// Asks the driver for `parts`' signatures; the POST goes out when all are in.
    pub(super) fn sign_then_post(
        &mut self,
        url: String,
        headers: Vec<(String, String)>,
        form: Vec<(String, String)>,
        parts: Vec<(SignKey, String, String)>,
    ) -> u64 {
        let first = self.next_id;
        let mut pending = PendingSign {
            id: first,
            url,
            headers,
            form,
            parts: Vec::new(),
        };
        for (key, alg, signing_input) in parts {
            let id = self.next_id;
            self.next_id += 1;
            self.actions.push_back(AuthAction::Sign {
                id,
                alg,
                key,
                signing_input: signing_input.clone(),
            });
            pending.parts.push(SignPart {
                id,
                key,
                signing_input,
                signature: None,
            });
        }
        self.pending_sign = Some(pending);
        first
    }

    /// The id the step waits on for signing request `id`, if `id` is one.
    pub(super) fn signing_request(&self, id: u64) -> Option<u64> {
        let pending = self.pending_sign.as_ref()?;
        pending
            .parts
            .iter()
            .any(|p| p.id == id)
            .then_some(pending.id)
    }

    /// The driver signed the signing input of request `id` (`signature`: base64url). Once
    /// every signature of the pending token request is in, the request goes out.
    pub fn handle_signature(&mut self, id: u64, signature: &str) {
        let Some(pending) = self.pending_sign.as_mut() else {
            return;
        };
        let Some(part) = pending.parts.iter_mut().find(|p| p.id == id) else {
            return;
        };
        part.signature = Some(signature.to_owned());
        if pending.parts.iter().any(|p| p.signature.is_none()) {
            return;
        }
        let Some(PendingSign {
            id: waited,
            url,
            mut headers,
            mut form,
            parts,
        }) = self.pending_sign.take()
        else {
            return;
        };
        for part in parts {
            let jws = format!(
                "{}.{}",
                part.signing_input,
                part.signature.unwrap_or_default()
            );
            match part.key {
                SignKey::Client => {
                    form.push((
                        "client_assertion_type".to_owned(),
                        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                    ));
                    form.push(("client_assertion".to_owned(), jws));
                }
                SignKey::Dpop => headers.push(("DPoP".to_owned(), jws)),
            }
        }
        let exchange = self.fetch(HttpMethod::Post, url, headers, Some(encode_pairs(&form)));
        match &mut self.step {
            Step::Code { exchange: e, .. }
            | Step::Refresh { exchange: e, .. }
            | Step::Revoke { exchange: e }
                if *e == waited =>
            {
                *e = exchange;
            }
            _ => {}
        }
    }

    /// An authorization server's `use_dpop_nonce` (RFC 9449 §8) to a proved token request:
    /// the request made once more, with a proof carrying the nonce it sent; the new exchange.
    pub(super) fn retry_with_nonce(&mut self, status: u16, body: &[u8]) -> Option<u64> {
        if status != 400 || !self.proved {
            return None;
        }
        if oauth_error(body).0.as_deref() != Some("use_dpop_nonce") {
            return None;
        }
        let retry = self.token_retry.take().filter(|r| !r.retried)?;
        let (server, client) = (
            self.state.server_metadata.clone()?,
            self.state.client.clone()?,
        );
        self.token_retry = Some(TokenRetry {
            retried: true,
            ..retry
        });
        let retry = self.token_retry.as_ref()?;
        let (url, form) = (retry.url.clone(), retry.form.clone());
        Some(self.authenticated_post(&server, &client, url, form, true))
    }
}
