//! Signing in to servers behind MCP authorization ([`crate::auth`]), as the extension does it.
//!
//! The app keeps each server's [`AuthState`] (discovered metadata, client registration,
//! tokens), persisted under [`AUTH_KEY`] in `chrome.storage.local`, which only extension pages
//! and the worker can read. An attempt (a sign-in the user asked for, a refresh before the token
//! expires or after a refusal, a sign-out) runs one [`crate::auth::Authorizer`] in the second
//! module ([`crate::rare`]), whose actions the driver performs; when it ends, the app keeps what it came to and names the server whose requests
//! must carry the new `Authorization` ([`Effect::Authorize`]). The token goes on that server's
//! requests and nowhere else: a view shows whether the user is signed in, the scopes and the
//! expiry, never a token, and every error text is the auth module's, which quotes no secret.

use crate::contract::ErrorKind;
use crate::sorted_map::SortedMap;

use crate::auth::pkce::Entropy;
use crate::auth::{AuthAction, AuthInput, AuthState, PublicJwk};
use crate::client::{AuthChallenge, HttpMethod, HttpUrl};
use crate::contract::views::ServerAuth;
use crate::contract::ErrorBody;
use crate::rare::{SignInCall, SignInStart, SignInStep};

use super::{App, Effect};

pub use crate::contract::storage::AUTH_KEY;

/// A token that expires within this margin is refreshed before the next request.
pub const REFRESH_MARGIN_MS: u64 = 60_000;

/// An attempt under way for one server. Its flow runs in the second module
/// ([`crate::rare`]); the app keeps what decides the attempt's steps.
#[derive(Debug)]
pub struct Attempt {
    /// Whether the user asked for it: its browser step may show the authorization page. An
    /// attempt the app started on its own (a refusal in the middle of a tool call) can only
    /// succeed without one, and takes even the silent browser step only where the user pressed
    /// Sign in for the server since the worker started ([`App::auth_step`]).
    interactive: bool,
}

/// What the driver gives every attempt: the redirect URI of the browser step
/// (`chrome.identity.getRedirectURL`), fresh randomness for PKCE, `state` and proof ids, and
/// the public half of the server's DPoP key where the driver holds one (its private half never
/// leaves the driver's WebCrypto).
#[derive(Debug, Clone, Copy)]
pub struct AuthEnv<'a> {
    pub redirect_uri: &'a str,
    pub seed: &'a [u8],
    pub now_ms: u64,
    pub dpop_key: Option<&'a PublicJwk>,
}

/// What comes after the second module's answer to an attempt's call.
#[derive(Debug)]
pub enum AuthNext {
    /// Carry this out (`true`: the browser step may show a page), then report what came of it
    /// with [`App::auth_input`].
    Act(AuthAction, bool),
    /// Send this call next (the app answered the attempt itself).
    Call(SignInCall),
    /// The attempt ended: its effects (the sign-in saved, the server's `Authorization`
    /// changed), then its outcome.
    Done(Vec<Effect>, Result<(), ErrorBody>),
}

/// The origins the worker fetches from to sign in, as far as discovery got: the authorization
/// servers the resource names and the endpoints of the one it uses. The side panel asks the user
/// for host permission to them on a Sign in click (the only moment Chrome allows it); an
/// authorization server on another origin that does not answer the extension's CORS requests
/// is unreachable until then.
fn auth_origins(state: &AuthState) -> Vec<String> {
    let mut urls: Vec<&str> = Vec::new();
    if let Some(resource) = &state.resource_metadata {
        urls.extend(resource.authorization_servers.iter().map(String::as_str));
    }
    if let Some(server) = &state.server_metadata {
        urls.push(&server.issuer);
        urls.push(&server.token_endpoint);
        urls.extend(server.registration_endpoint.as_deref());
        urls.extend(server.revocation_endpoint.as_deref());
    }
    let mut origins: Vec<String> = urls
        .into_iter()
        .filter_map(|u| HttpUrl::parse(u).ok())
        .map(|u| u.origin())
        .collect();
    crate::sorted_map::sort(&mut origins);
    origins.dedup();
    origins
}

impl App {
    /// The stored sign-ins, as they were persisted: every server's, to put back on the client
    /// (one [`Effect::Authorize`] each). Sign-ins of servers that no longer exist are dropped.
    pub fn restore_auth(&mut self, stored: SortedMap<String, AuthState>) -> Vec<Effect> {
        let servers = &self.config.servers;
        self.auth = stored
            .into_iter()
            .filter(|(id, _)| servers.iter().any(|s| &s.id == id))
            .collect();
        self.auth.keys().cloned().map(Effect::Authorize).collect()
    }

    /// The origins `id`'s kept sign-in fetches from ([`auth_origins`]); none without one.
    pub fn sign_in_origins(&self, id: &str) -> Vec<String> {
        self.auth.get(id).map(auth_origins).unwrap_or_default()
    }

    /// The `Authorization` header value for a server's requests, when signed in.
    pub fn authorization(&self, id: &str) -> Option<String> {
        let tokens = self.auth.get(id)?.tokens.as_ref()?;
        Some(tokens.authorization())
    }

    /// Whether `id`'s token is DPoP-bound: each of its requests needs a proof signed with the
    /// key [`App::dpop_key`] names.
    pub fn uses_dpop(&self, id: &str) -> bool {
        self.auth
            .get(id)
            .and_then(|s| s.tokens.as_ref())
            .is_some_and(|t| t.is_dpop())
    }

    /// The public key `id`'s tokens are bound to, if they are.
    pub fn dpop_key(&self, id: &str) -> Option<&PublicJwk> {
        self.auth
            .get(id)
            .filter(|_| self.uses_dpop(id))?
            .dpop_key
            .as_ref()
    }

    /// The signing input of the DPoP proof for a request of `id` (`method` to `url`), when its
    /// token is DPoP-bound; `env.seed` makes the proof's `jti`. The driver signs it with the
    /// server's private key and sends `DPoP: <input>.<signature>`.
    pub fn dpop_proof(
        &self,
        id: &str,
        method: HttpMethod,
        url: &str,
        env: AuthEnv,
    ) -> Option<String> {
        let state = self.auth.get(id)?;
        let jti = Entropy::new(env.seed)?.next_token("dpop jti");
        state.dpop_proof(method, url, env.now_ms, &jti)
    }

    /// `id`'s server answered a proved request: keeps its `DPoP-Nonce`, and says whether to
    /// make the request once more (it asked for that nonce, RFC 9449 §9).
    pub fn dpop_answered(
        &mut self,
        id: &str,
        url: &str,
        status: u16,
        www_authenticate: Option<&str>,
        nonce: Option<&str>,
    ) -> bool {
        self.auth
            .get_mut(id)
            .is_some_and(|s| s.dpop_answered(url, status, www_authenticate, nonce))
    }

    /// A server's sign-in as its view shows it: `{signedIn, scope?, expiresAtMs?, refreshable,
    /// origins}`,
    /// or `null` for a server never signed in to.
    pub fn auth_view(&self, id: &str) -> Option<ServerAuth> {
        let state = self.auth.get(id)?;
        let tokens = state.tokens.as_ref();
        Some(ServerAuth {
            signed_in: tokens.is_some(),
            scope: tokens.and_then(|t| t.scope.clone()),
            expires_at_ms: tokens.and_then(|t| t.expires_at_ms),
            refreshable: tokens.is_some_and(|t| t.refresh_token.is_some()),
            origins: auth_origins(state),
        })
    }

    /// The first call of an attempt for `id` (which must be a server), starting from its
    /// stored sign-in with `input`.
    fn begin(
        &mut self,
        id: &str,
        input: AuthInput,
        env: AuthEnv,
        interactive: bool,
    ) -> Result<SignInCall, ErrorBody> {
        let server = self
            .config
            .servers
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| {
                ErrorBody::new(ErrorKind::InvalidArgument, format!("no server '{id}'"))
            })?;
        let start = SignInStart {
            server_url: server.url.clone(),
            redirect_uri: env.redirect_uri.to_owned(),
            dpop_key: env.dpop_key.cloned(),
            state: self.auth.get(id).cloned().unwrap_or_default(),
            seed: env.seed.to_vec(),
        };
        self.attempts.insert(id.to_owned(), Attempt { interactive });
        Ok(SignInCall {
            server: id.to_owned(),
            start: Some(Box::new(start)),
            input,
            now_ms: env.now_ms,
        })
    }

    /// Starts signing in after `id` refused a request with `challenge`: a refresh where a
    /// refresh token allows, else discovery, registration and the browser step. `interactive`:
    /// the user asked (see [`Attempt`]). Returns the attempt's first call.
    pub fn sign_in(
        &mut self,
        id: &str,
        challenge: &AuthChallenge,
        env: AuthEnv,
        interactive: bool,
    ) -> Result<SignInCall, ErrorBody> {
        let input = AuthInput::Challenge {
            status: challenge.status,
            www_authenticate: challenge.www_authenticate.clone(),
        };
        let call = self.begin(id, input, env, interactive)?;
        if interactive {
            self.signed_in_by_user.insert(id.to_owned());
        }
        Ok(call)
    }

    /// Starts a refresh when `id`'s token expires within [`REFRESH_MARGIN_MS`] and can be
    /// refreshed: the attempt's first call, or `None` when none is due.
    pub fn refresh_if_due(&mut self, id: &str, env: AuthEnv) -> Option<SignInCall> {
        let due = self
            .auth
            .get(id)
            .and_then(|s| s.tokens.as_ref())
            .is_some_and(|t| {
                t.refresh_token.is_some() && t.expires_within(env.now_ms, REFRESH_MARGIN_MS)
            });
        if !due || self.attempts.contains_key(id) {
            return None;
        }
        self.begin(id, AuthInput::Refresh, env, false).ok()
    }

    /// Starts signing out of `id`: the tokens are dropped, and revoked where the authorization
    /// server has a revocation endpoint.
    pub fn sign_out(&mut self, id: &str, env: AuthEnv) -> Result<SignInCall, ErrorBody> {
        self.begin(id, AuthInput::SignOut, env, true)
    }

    /// What came of an action of `id`'s attempt, as its next call.
    pub fn auth_input(&self, id: &str, input: AuthInput, now_ms: u64) -> SignInCall {
        SignInCall {
            server: id.to_owned(),
            start: None,
            input,
            now_ms,
        }
    }

    /// The second module's answer to a call of `id`'s attempt: the action to carry out, and
    /// whether it may show the user a page; or the attempt's end.
    ///
    /// No browser step, not even a silent one, without a user action in this worker's life: an
    /// attempt the app started on its own (a refusal during a call) for a server the user has
    /// not pressed Sign in for since the worker started fails instead, asking the user to sign
    /// in. A silent step (`launchWebAuthFlow` with `interactive: false`) rides on the browser's
    /// session at the authorization server; after a restart nobody has shown intent to use it.
    pub fn auth_step(&mut self, id: &str, step: SignInStep, now_ms: u64) -> AuthNext {
        let Some(attempt) = self.attempts.get(id) else {
            return AuthNext::Done(Vec::new(), Ok(())); // forgotten meanwhile
        };
        match step {
            SignInStep::Act { action } => {
                let user_here = self.signed_in_by_user.contains(id);
                if matches!(action, AuthAction::OpenBrowser { .. })
                    && !attempt.interactive
                    && !user_here
                {
                    let message =
                        "signing in again needs you: press Sign in on the server in the side panel";
                    let input = AuthInput::BrowserError {
                        message: message.to_owned(),
                    };
                    return AuthNext::Call(self.auth_input(id, input, now_ms));
                }
                AuthNext::Act(action, attempt.interactive)
            }
            SignInStep::Done { state, error } => {
                let (effects, outcome) = self.auth_finish(id, state, error);
                AuthNext::Done(effects, outcome)
            }
        }
    }

    /// Ends `id`'s attempt: tokens issued are kept (and the server's requests carry them), a
    /// sign-out forgets them, a failure is the error. Either way the state is saved: discovered
    /// metadata and a registration let the next attempt start further on, and a token the
    /// server refused is gone. `state` is absent when the attempt could not start (or its
    /// second module failed): nothing changed.
    pub fn auth_finish(
        &mut self,
        id: &str,
        state: Option<Box<AuthState>>,
        error: Option<ErrorBody>,
    ) -> (Vec<Effect>, Result<(), ErrorBody>) {
        if self.attempts.remove(id).is_none() {
            return (Vec::new(), Ok(()));
        }
        let outcome = error.map_or(Ok(()), Err);
        let Some(state) = state else {
            return (Vec::new(), outcome);
        };
        if !self.config.servers.iter().any(|s| s.id == id) {
            return (Vec::new(), outcome); // removed meanwhile
        }
        self.auth.insert(id.to_owned(), *state);
        (
            vec![Effect::SaveAuth, Effect::Authorize(id.to_owned())],
            outcome,
        )
    }

    /// Forgets a server's sign-in (the server was removed, or now lives at another URL, where
    /// its tokens are not valid).
    pub(super) fn forget_auth(&mut self, id: &str) -> Option<Effect> {
        self.attempts.remove(id);
        self.signed_in_by_user.remove(id);
        self.auth.remove(id).map(|_| Effect::SaveAuth)
    }
}
