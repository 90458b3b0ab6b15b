//! Work the worker's start-up module leaves to a second module, loaded on first use: code that
//! runs rarely (a sign-in's flow) but would otherwise be fetched and compiled on every
//! service-worker start.
//!
//! The app asks for such work with a [`RareCall`] through its host
//! ([`crate::app::Host::rare`]) and reads the [`RareReply`]; both cross as JSON values (plain
//! JS objects between the two modules). In the
//! extension the second module (relay-wasm built with its `rare` feature) runs [`Rare::serve`];
//! hosts without a second module (tests, tools) run it in-process. Either way the decisions stay
//! the app's: this module holds no state of the app, only the work in progress that the app's
//! calls drive, and a worker stop loses it as it loses any attempt under way.
//!
//! Sign-ins: the app starts an attempt with a [`SignInCall`] carrying what the flow starts from
//! (the server, the redirect URI, the stored [`AuthState`], randomness) and the first
//! [`AuthInput`]; the second module runs the [`Authorizer`] and answers each call with the next
//! [`AuthAction`] for the app to carry out, or with the attempt's end ([`SignInStep::Done`]).

use serde::{Deserialize, Serialize};

use crate::auth::{AuthAction, AuthConfig, AuthError, AuthEvent, AuthInput, AuthState};
use crate::auth::{Authorizer, PublicJwk};
use crate::contract::ErrorBody;
use crate::sorted_map::SortedMap;

/// Work for the second module. As data: `{type: "signIn", …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RareCall {
    SignIn(SignInCall),
}

/// What the second module answers, or why it could not. As data: `{signIn: step}` or
/// `{refused: error}`.
///
/// The worker's module reads replies, so they are plain structs on the wire: an internally
/// tagged enum would be read through serde's buffered `Content`, which copies the deserializer of
/// everything inside (the stored sign-in's metadata, say) a second time into the module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ReplyWire", into = "ReplyWire")]
#[non_exhaustive]
pub enum RareReply {
    SignIn {
        step: SignInStep,
    },
    /// The call was not one this module reads (a module of another build).
    Refused {
        error: ErrorBody,
    },
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sign_in: Option<SignInStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refused: Option<ErrorBody>,
}

impl From<ReplyWire> for RareReply {
    fn from(wire: ReplyWire) -> Self {
        match (wire.sign_in, wire.refused) {
            (Some(step), None) => RareReply::SignIn { step },
            (_, refused) => RareReply::Refused {
                error: refused.unwrap_or_else(|| {
                    ErrorBody::new(
                        crate::contract::ErrorKind::Internal,
                        "the second module answered nothing the worker reads",
                    )
                }),
            },
        }
    }
}

impl From<RareReply> for ReplyWire {
    fn from(reply: RareReply) -> Self {
        match reply {
            RareReply::SignIn { step } => ReplyWire {
                sign_in: Some(step),
                refused: None,
            },
            RareReply::Refused { error } => ReplyWire {
                sign_in: None,
                refused: Some(error),
            },
        }
    }
}

/// One step of a server's sign-in attempt: the first one carries `start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInCall {
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Box<SignInStart>>,
    pub input: AuthInput,
    pub now_ms: u64,
}

/// What an attempt starts from.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInStart {
    /// The MCP server's URL (the protected resource).
    pub server_url: String,
    pub redirect_uri: String,
    /// The public half of the server's DPoP key, where tokens will be bound to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<PublicJwk>,
    /// The server's stored sign-in (metadata, registration, tokens), or the default.
    pub state: AuthState,
    /// Fresh randomness for PKCE, `state` and proof ids.
    pub seed: Vec<u8>,
}

impl std::fmt::Debug for SignInStart {
    /// Leaves out the state (tokens) and the randomness.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInStart")
            .field(
                "server_url",
                &crate::client::url::redact_url(&self.server_url),
            )
            .finish_non_exhaustive()
    }
}

/// Where an attempt is after a call. As data: `{action}` or `{done: true, state?, error?}`
/// (plain structs on the wire, as [`RareReply`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StepWire", into = "StepWire")]
pub enum SignInStep {
    /// The app carries this out and reports what came of it in the next call.
    Act { action: AuthAction },
    /// The attempt ended: `state` is what the server's sign-in is now (absent when the attempt
    /// could not start, and nothing changed), `error` why it failed.
    Done {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<Box<AuthState>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorBody>,
    },
}

#[derive(Clone, Serialize, Deserialize)]
struct StepWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action: Option<AuthAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<Box<AuthState>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody>,
}

impl From<StepWire> for SignInStep {
    fn from(wire: StepWire) -> Self {
        match wire.action {
            Some(action) => SignInStep::Act { action },
            None => SignInStep::Done {
                state: wire.state,
                error: wire.error,
            },
        }
    }
}

impl From<SignInStep> for StepWire {
    fn from(step: SignInStep) -> Self {
        match step {
            SignInStep::Act { action } => StepWire {
                action: Some(action),
                state: None,
                error: None,
            },
            SignInStep::Done { state, error } => StepWire {
                action: None,
                state,
                error,
            },
        }
    }
}

/// The second module's work in progress: the sign-in attempts under way, by server.
#[derive(Debug, Default)]
pub struct Rare {
    attempts: SortedMap<String, Authorizer>,
}

impl Rare {
    /// Does the work of one call.
    pub fn serve(&mut self, call: RareCall) -> RareReply {
        match call {
            RareCall::SignIn(call) => RareReply::SignIn {
                step: self.sign_in(call),
            },
        }
    }

    /// [`Rare::serve`] on JSON values, as the second module is called: the reply as a JSON
    /// value. A call it cannot read is answered [`RareReply::Refused`].
    pub fn serve_value(&mut self, call: serde_json::Value) -> serde_json::Value {
        let reply = match crate::json_value::from_value::<RareCall>(call) {
            Ok(call) => self.serve(call),
            Err(e) => RareReply::Refused {
                error: ErrorBody::new(
                    crate::contract::ErrorKind::Internal,
                    format!("the second module cannot read this call: {e}"),
                ),
            },
        };
        serde_json::to_value(&reply).unwrap_or_default()
    }

    fn sign_in(&mut self, call: SignInCall) -> SignInStep {
        let SignInCall {
            server,
            start,
            input,
            now_ms,
        } = call;
        let starting = start.is_some();
        if let Some(start) = start {
            let mut cfg = AuthConfig::new(&start.server_url, &start.redirect_uri);
            cfg.dpop_key = start.dpop_key.clone();
            let SignInStart {
                server_url: _,
                redirect_uri: _,
                dpop_key: _,
                state,
                seed,
            } = *start;
            match Authorizer::with_state(cfg, state, &seed) {
                Ok(flow) => self.attempts.insert(server.clone(), flow),
                Err(e) => return not_started(&e),
            };
        }
        let Some(flow) = self.attempts.get_mut(&server) else {
            return not_started(&AuthError::InvalidState("no sign-in is under way"));
        };
        // An input that cannot proceed fails the attempt it starts; later ones (a redirect
        // that does not belong to the attempt) fail it inside the flow, which then ends.
        if let Err(e) = flow.handle(input, now_ms) {
            if starting {
                self.attempts.remove(&server);
                return not_started(&e);
            }
        }
        if let Some(action) = flow.poll_action() {
            return SignInStep::Act { action };
        }
        let mut error = Some(sign_in_error(&AuthError::InvalidState(
            "the sign-in stopped before it finished",
        )));
        while let Some(event) = flow.poll_event() {
            error = match event {
                AuthEvent::SignedIn { .. } | AuthEvent::SignedOut => None,
                AuthEvent::Failed(e) => Some(sign_in_error(&e)),
            };
        }
        let state = flow.state().clone();
        self.attempts.remove(&server);
        SignInStep::Done {
            state: Some(Box::new(state)),
            error,
        }
    }
}

fn not_started(e: &AuthError) -> SignInStep {
    SignInStep::Done {
        state: None,
        error: Some(sign_in_error(e)),
    }
}

/// A sign-in's error as the user reads it: what failed and what to do (no secret: the auth
/// module's texts quote none).
pub fn sign_in_error(e: &AuthError) -> ErrorBody {
    let hint = match e {
        AuthError::BrowserFailed { .. } | AuthError::Denied { .. } => {
            "Press Sign in on the server in the side panel and finish signing in."
        }
        AuthError::Transport { .. } => {
            "Check the connection, or allow MCP Relay to reach the sign-in server, and sign in again."
        }
        _ => "Sign in again from the server's card in the side panel; if it keeps failing, the server's sign-in is not one MCP Relay supports.",
    };
    ErrorBody::new(e.kind(), format!("Sign-in failed: {e}")).with_hint(hint)
}
