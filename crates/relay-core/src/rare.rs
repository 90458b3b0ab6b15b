//! Work the worker's start-up module leaves to a second module, loaded on first use: code that
//! runs rarely (a sign-in's flow, reading a server's question, a skill file's verification...)
//! but would otherwise be fetched and compiled on every service-worker start.
//!
//! The app asks for such work with a [`RareCall`] through its host
//! ([`crate::app::Host::rare`]) and reads the [`RareReply`]; both cross as JSON values (plain
//! JS objects between the two modules). In the extension the second module (relay-wasm built with its `rare` feature) runs [`Rare::serve`];
//! hosts without a second module (tests, tools) run it in-process. Either way the decisions stay
//! the app's: this module holds no state of the app, only the work in progress that the app's
//! calls drive, and a worker stop loses it as it loses any attempt under way. Both modules run in
//! the service worker: a call (a sign-in's state and tokens among them) passes between two wasm
//! instances of the worker as a JavaScript value, never through a message, storage or a page.
//!
//! Sign-ins: the app starts an attempt with a [`SignInCall`] carrying what the flow starts from
//! (the server, the redirect URI, the stored [`AuthState`], randomness) and the first
//! [`AuthInput`]; the second module runs the [`Authorizer`] and answers each call with the next
//! [`AuthAction`] for the app to carry out, or with the attempt's end ([`SignInStep::Done`]).
//!
//! Skills: a file read for a load is checked against the server's listing (size, digest, a
//! `SKILL.md`'s frontmatter) by [`crate::skills::verify_read`] here ([`VerifySkillCall`]).
//!
//! MCP Apps: an app's `ui://` resource becomes the document the panel shows (its HTML, the CSP
//! and permissions its `_meta.ui` declares) by [`AppDocument::from_read`] here
//! ([`AppDocumentCall`]).
//!
//! Imports: an `mcpServers` configuration becomes the servers to add and the entries skipped
//! ([`crate::client::import_mcp_servers`], [`ImportCall`]).
//!
//! Local servers: a local `mcpServers` file's stdio entries as the native host would run them
//! (`app::local::plan`, [`LocalPlanCall`]).
//!
//! Servers' questions: a question's params are read ([`ElicitRequest::parse`]: its form's
//! fields, or the link it asks the user to open, [`ElicitParseCall`]), and an accepted form's
//! content is checked against the question's fields (SEP-1034 defaults applied) by
//! [`crate::elicitation::accept`] here ([`ElicitAcceptCall`]): the content to send, or the
//! field that does not fit.
//!
//! `Debug` of a call leaves out what may hold a secret (a configuration's text, a form's
//! values, a sign-in's responses).

use serde::{Deserialize, Serialize};

use crate::apps::{AppDocument, DocumentError};
use crate::auth::{AuthAction, AuthConfig, AuthError, AuthEvent, AuthInput, AuthState};
use crate::auth::{Authorizer, PublicJwk};
use crate::contract::{ErrorBody, ErrorKind};
use crate::elicitation::{accept, ElicitError, ElicitRequest};
use crate::model::ReadResourceResult;
use crate::skills::{Skill, SkillError};
use crate::sorted_map::SortedMap;
use serde_json::{Map, Value};

/// Work for the second module. As data: `{type, …}` with `type` one of `signIn`, `elicitAccept`,
/// `verifySkill`, `appDocument`, `importServers`, `elicitParse`, `localPlan`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RareCall {
    SignIn(SignInCall),
    ElicitAccept(ElicitAcceptCall),
    VerifySkill(VerifySkillCall),
    AppDocument(AppDocumentCall),
    ImportServers(ImportCall),
    ElicitParse(ElicitParseCall),
    LocalPlan(LocalPlanCall),
}

/// A local `mcpServers` file to read as the native host would run its stdio entries
/// (`app::local::plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalPlanCall {
    pub text: String,
}

/// A server's `elicitation/create` params, to read as a question ([`ElicitRequest::parse`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitParseCall {
    pub params: Value,
}

/// An `mcpServers` configuration to read (`client::import_mcp_servers`): its text, and the ids
/// of the servers there are already.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportCall {
    pub text: String,
    pub existing: Vec<String>,
}

/// An MCP App's `ui://` resource as read, to make the document the panel shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppDocumentCall {
    pub uri: String,
    pub read: ReadResourceResult,
}

/// A skill's file as read, to verify against the skill's listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifySkillCall {
    pub skill: Skill,
    pub uri: String,
    pub read: ReadResourceResult,
}

/// An accepted form to check: the question as this module read it ([`ElicitParseCall`]) and
/// what the user filled in.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitAcceptCall {
    pub question: Value,
    pub content: Map<String, Value>,
}

/// What the second module answers, or why it could not. As data: `{signIn: step}`,
/// `{value}`, `{error}` (the work's: a form that does not fit, a file that does not match) or
/// `{refused: error}`.
///
/// The worker's module reads replies, so they are plain structs on the wire: an internally
/// tagged enum would be read through serde's buffered `Content`, which copies the deserializer of
/// everything inside (the stored sign-in's metadata, say) a second time into the module. The
/// result of other work is a JSON value the caller reads as its type (`into_*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ReplyWire", into = "ReplyWire")]
#[non_exhaustive]
pub enum RareReply {
    SignIn {
        step: SignInStep,
    },
    /// The work's result, or why it failed.
    Done {
        result: Result<Value, ErrorBody>,
    },
    /// The call was not one this module reads (a module of another build).
    Refused {
        error: ErrorBody,
    },
}

impl RareReply {
    /// The reply to a [`RareCall::SignIn`]: its step, or why there is none.
    pub fn into_step(self) -> Result<SignInStep, ErrorBody> {
        match self {
            RareReply::SignIn { step } => Ok(step),
            RareReply::Refused { error } => Err(error),
            RareReply::Done { .. } => Err(another_call()),
        }
    }

    /// The reply to other work, read as its result's type: [`RareCall::ElicitAccept`] (the
    /// content to send, a `Value`), [`RareCall::VerifySkill`] ([`crate::skills::VerifiedFile`]),
    /// [`RareCall::AppDocument`] ([`AppDocument`]), [`RareCall::ImportServers`]
    /// ([`crate::client::ImportReport`]), [`RareCall::ElicitParse`] ([`ElicitRequest`]),
    /// [`RareCall::LocalPlan`] (`LocalPlanView`).
    pub fn into_result<T: serde::de::DeserializeOwned>(self) -> Result<T, ErrorBody> {
        match self {
            RareReply::Done { result } => crate::json_value::from_value(result?).map_err(|e| {
                ErrorBody::new(
                    ErrorKind::Internal,
                    format!("{}: {e}", another_call().message),
                )
            }),
            RareReply::Refused { error } => Err(error),
            RareReply::SignIn { .. } => Err(another_call()),
        }
    }
}

fn another_call() -> ErrorBody {
    ErrorBody::new(
        ErrorKind::Internal,
        "MCP Relay's second module answered another call",
    )
}

#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sign_in: Option<SignInStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refused: Option<ErrorBody>,
}

impl From<ReplyWire> for RareReply {
    fn from(wire: ReplyWire) -> Self {
        match wire {
            ReplyWire {
                sign_in: Some(step),
                ..
            } => RareReply::SignIn { step },
            ReplyWire {
                value: Some(value), ..
            } => RareReply::Done { result: Ok(value) },
            ReplyWire {
                error: Some(error), ..
            } => RareReply::Done { result: Err(error) },
            ReplyWire { refused, .. } => RareReply::Refused {
                error: refused.unwrap_or_else(|| {
                    ErrorBody::new(
                        ErrorKind::Internal,
                        "the second module answered nothing the worker reads",
                    )
                }),
            },
        }
    }
}

impl From<RareReply> for ReplyWire {
    fn from(reply: RareReply) -> Self {
        let mut wire = ReplyWire::default();
        match reply {
            RareReply::SignIn { step } => wire.sign_in = Some(step),
            RareReply::Done { result: Ok(value) } => wire.value = Some(value),
            RareReply::Done { result: Err(error) } => wire.error = Some(error),
            RareReply::Refused { error } => wire.refused = Some(error),
        }
        wire
    }
}

/// One step of a server's sign-in attempt: the first one carries `start`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Lengths, not the text: a configuration's headers hold credentials.
impl std::fmt::Debug for ImportCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportCall")
            .field("text_bytes", &self.text.len())
            .field("existing", &self.existing)
            .finish()
    }
}

/// The fields filled in, not their values.
impl std::fmt::Debug for ElicitAcceptCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElicitAcceptCall")
            .field("mode", &self.question.get("mode"))
            .field("filled", &self.content.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The server and the kind of input, not the input (a token response's body).
impl std::fmt::Debug for SignInCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let input = serde_json::to_value(&self.input).ok();
        f.debug_struct("SignInCall")
            .field("server", &self.server)
            .field("start", &self.start)
            .field("input", &input.as_ref().and_then(|i| i.get("type")))
            .field("now_ms", &self.now_ms)
            .finish()
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
            RareCall::ElicitAccept(call) => RareReply::Done {
                result: check_form(call),
            },
            RareCall::LocalPlan(call) => done(crate::app::local::plan(&call.text)),
            RareCall::ElicitParse(call) => done(
                ElicitRequest::parse(&call.params)
                    .map_err(|e| ErrorBody::new(ErrorKind::InvalidArgument, e.to_string())),
            ),
            RareCall::ImportServers(call) => done(
                crate::client::import_mcp_servers(&call.text, &call.existing)
                    .map_err(|e| ErrorBody::new(ErrorKind::InvalidArgument, e.to_string())),
            ),
            RareCall::VerifySkill(call) => done(
                crate::skills::verify_read(&call.skill, &call.uri, &call.read)
                    .map_err(|e| unverified(&e)),
            ),
            RareCall::AppDocument(call) => {
                done(AppDocument::from_read(&call.uri, &call.read).map_err(|e| unshowable(&e)))
            }
        }
    }

    /// [`Rare::serve`] on JSON values, as the second module is called: the reply as a JSON
    /// value. A call it cannot read is answered [`RareReply::Refused`].
    pub fn serve_value(&mut self, call: serde_json::Value) -> serde_json::Value {
        let reply = match crate::json_value::from_value::<RareCall>(call) {
            Ok(call) => self.serve(call),
            Err(e) => RareReply::Refused {
                error: ErrorBody::new(
                    ErrorKind::Internal,
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

/// An accepted form's content against its question's fields: what to send.
fn check_form(call: ElicitAcceptCall) -> Result<Value, ErrorBody> {
    match crate::json_value::from_value::<ElicitRequest>(call.question) {
        Ok(ElicitRequest::Form { fields, .. }) => accept(&fields, &call.content).map_err(unfit),
        Ok(_) => Err(ErrorBody::new(
            ErrorKind::InvalidArgument,
            "this question is not a form",
        )),
        Err(e) => Err(ErrorBody::new(
            ErrorKind::Internal,
            format!("the question cannot be read: {e}"),
        )),
    }
}

/// A form answer that does not fit: `field_invalid` naming the field (the panel shows it next
/// to that field), with the problem in the message.
fn unfit(e: ElicitError) -> ErrorBody {
    let field = match &e {
        ElicitError::Field { field, .. } | ElicitError::Required(field) => Some(field.clone()),
        _ => None,
    };
    match field {
        Some(field) => ErrorBody::new(ErrorKind::FieldInvalid, e.to_string())
            .with_hint("Fill in the field as it says, then send again.")
            .with_details(vec![field]),
        None => ErrorBody::new(ErrorKind::InvalidArgument, e.to_string()),
    }
}

fn done<T: Serialize>(result: Result<T, ErrorBody>) -> RareReply {
    let result = result.and_then(|v| {
        serde_json::to_value(v).map_err(|e| ErrorBody::new(ErrorKind::Internal, e.to_string()))
    });
    RareReply::Done { result }
}

/// An app document that cannot be shown, and what the user still has.
fn unshowable(e: &DocumentError) -> ErrorBody {
    ErrorBody::new(ErrorKind::Invalid, format!("cannot show the app: {e}"))
        .with_hint("The server's interface is broken; its text result is still in Activity.")
}

/// A skill's file that does not match its listing, as the panel shows it: the file that
/// failed, and why (nothing of it is used).
pub fn unverified(error: &SkillError) -> ErrorBody {
    let mut body = ErrorBody::new(ErrorKind::SkillUnverified, error.to_string());
    body.details = vec![error.uri().to_owned()];
    body.with_hint("The server's file does not match what it listed; nothing of it was used. Tell the server's maintainer, or list the skills again if the skill was just updated.")
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
