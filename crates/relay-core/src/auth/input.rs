//! The flow driven as data, for a driver outside Rust (relay-wasm's `AuthFlow`): what the driver
//! reports is one [`AuthInput`] value given to [`Authorizer::handle`], and what it must do or
//! hear ([`AuthAction`](super::AuthAction), [`AuthEvent`](super::AuthEvent)) serialises to
//! plain data, so a binding converts values and holds no flow logic.

use serde::{Deserialize, Serialize, Serializer};

use super::error::AuthError;
use super::flow::Authorizer;
use crate::contract::ErrorBody;

/// What happened, as the driver reports it: `{type: "challenge", status, wwwAuthenticate?}`,
/// `{type: "response", id, status, body}`, `{type: "fetchError", id, message}`,
/// `{type: "redirect", url}`, `{type: "browserError", message}`,
/// `{type: "signature", id, signature}`, `{type: "refresh"}`, `{type: "signOut"}` or
/// `{type: "success"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AuthInput {
    /// A request was refused: its status (401/403) and `WWW-Authenticate` (the `challenge` of
    /// a client `auth` error, as it is).
    Challenge {
        status: u16,
        #[serde(default)]
        www_authenticate: Option<String>,
    },
    /// The whole response to request `id` (`dpop_nonce`: its `DPoP-Nonce` header).
    Response {
        id: u64,
        status: u16,
        body: String,
        #[serde(default)]
        dpop_nonce: Option<String>,
    },
    /// Request `id` failed before an answer (or its assertion could not be signed).
    FetchError { id: u64, message: String },
    /// The browser step ended at the redirect URI with `url`.
    Redirect { url: String },
    /// The browser step failed or was closed.
    BrowserError { message: String },
    /// The base64url signature of the `sign` action `id`'s signing input.
    Signature { id: u64, signature: String },
    /// Refresh with the stored refresh token.
    Refresh,
    /// Drop the tokens, revoking them where the server supports it.
    SignOut,
    /// A request with the current token succeeded.
    Success,
}

impl Authorizer {
    /// Hands one input to the flow (`now_ms`: the driver's clock); an error says why a
    /// challenge, redirect or refresh cannot proceed.
    pub fn handle(&mut self, input: AuthInput, now_ms: u64) -> Result<(), AuthError> {
        match input {
            AuthInput::Challenge {
                status,
                www_authenticate,
            } => return self.handle_challenge(status, www_authenticate.as_deref(), now_ms),
            AuthInput::Response {
                id,
                status,
                body,
                dpop_nonce,
            } => {
                if let Some(nonce) = dpop_nonce {
                    self.handle_dpop_nonce(id, &nonce);
                }
                self.handle_response(id, status, body.as_bytes(), now_ms)
            }
            AuthInput::FetchError { id, message } => self.handle_fetch_error(id, &message),
            AuthInput::Redirect { url } => return self.handle_redirect(&url, now_ms),
            AuthInput::BrowserError { message } => self.handle_browser_error(&message),
            AuthInput::Signature { id, signature } => self.handle_signature(id, &signature),
            AuthInput::Refresh => return self.refresh(now_ms),
            AuthInput::SignOut => self.sign_out(now_ms),
            AuthInput::Success => self.note_success(),
        }
        Ok(())
    }
}

impl From<&AuthError> for ErrorBody {
    /// The error as `{kind, message}` (its text never quotes a secret).
    fn from(error: &AuthError) -> Self {
        ErrorBody::new(error.kind(), error.to_string())
    }
}

/// `AuthEvent::Failed` as `{error: {kind, message}}` (beside its `type`).
pub(super) fn failed<S: Serializer>(error: &AuthError, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Failed {
        error: ErrorBody,
    }
    Failed {
        error: error.into(),
    }
    .serialize(serializer)
}

/// [`AuthAction`](super::AuthAction) as read: every variant's fields in one struct beside its
/// `type`, so reading it copies no deserializer into serde's buffered `Content` path (the
/// worker's module reads actions from its second module, `crate::rare`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActionWire {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    method: Option<crate::client::HttpMethod>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    key: Option<super::SignKey>,
    #[serde(default)]
    signing_input: Option<String>,
}

impl TryFrom<ActionWire> for super::AuthAction {
    type Error = String;

    fn try_from(w: ActionWire) -> Result<Self, String> {
        let missing = |field: &str| format!("a `{}` action without `{field}`", w.kind);
        Ok(match w.kind.as_str() {
            "fetch" => super::AuthAction::Fetch(super::AuthRequest {
                id: w.id.ok_or_else(|| missing("id"))?,
                method: w.method.ok_or_else(|| missing("method"))?,
                url: w.url.clone().ok_or_else(|| missing("url"))?,
                headers: w.headers,
                body: w.body,
            }),
            "browser" => super::AuthAction::OpenBrowser {
                url: w.url.ok_or_else(|| missing("url"))?,
            },
            "sign" => super::AuthAction::Sign {
                id: w.id.ok_or_else(|| missing("id"))?,
                alg: w.alg.clone().ok_or_else(|| missing("alg"))?,
                key: w.key.ok_or_else(|| missing("key"))?,
                signing_input: w.signing_input.ok_or_else(|| missing("signingInput"))?,
            },
            other => return Err(format!("unknown action `{other}`")),
        })
    }
}
