//! Tokens (RFC 6749 §5.1): the set a token endpoint issues, when it expires, and the OAuth
//! error body (§5.2). A [`TokenSet`] never prints its secrets (`Debug` redacts them).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a token endpoint issued. `expires_at_ms` is on the driver's clock, the one every
/// `now_ms` given to the flow is on.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TokenSet {
    pub access_token: String,
    pub token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// The granted scopes (the request's when the server does not say, RFC 6749 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
}

impl std::fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSet")
            .field("access_token", &"<redacted>")
            .field("token_type", &self.token_type)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("scope", &self.scope)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish()
    }
}

impl TokenSet {
    /// The `Authorization` header value for the resource: `Bearer <token>` (RFC 6750 §2.1),
    /// or `DPoP <token>` for a DPoP-bound token (RFC 9449 §7.1), which also needs a proof.
    pub fn authorization(&self) -> String {
        let scheme = if self.is_dpop() { "DPoP" } else { "Bearer" };
        format!("{scheme} {}", self.access_token)
    }

    /// Whether the token is DPoP-bound (`token_type: DPoP`): every request needs a proof.
    pub fn is_dpop(&self) -> bool {
        self.token_type.eq_ignore_ascii_case("dpop")
    }

    /// Whether the access token expires within `margin_ms` of `now_ms` (unknown expiry: no).
    pub fn expires_within(&self, now_ms: u64, margin_ms: u64) -> bool {
        self.expires_at_ms
            .is_some_and(|at| at <= now_ms.saturating_add(margin_ms))
    }

    /// Parses a successful token response. `requested_scope` stands in for an omitted
    /// `scope`; `previous_refresh` is kept when a refresh response carries no new one
    /// (RFC 6749 §6). `proved`: the request carried a DPoP proof, so a `DPoP` token is
    /// usable (RFC 9449 §5).
    pub(crate) fn from_response(
        body: &[u8],
        now_ms: u64,
        requested_scope: Option<&str>,
        previous_refresh: Option<&str>,
        proved: bool,
    ) -> Result<TokenSet, String> {
        let value: Value =
            serde_json::from_slice(body).map_err(|e| format!("not a JSON object: {e}"))?;
        let Some(object) = value.as_object() else {
            return Err("not a JSON object".to_owned());
        };
        let access_token = object
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or("no access_token")?
            .to_owned();
        let token_type = object
            .get("token_type")
            .and_then(Value::as_str)
            .unwrap_or("Bearer");
        // Bearer tokens, and DPoP-bound ones when this client asked with a proof (so holds
        // the key); token types compare case-insensitively (RFC 6749 §7.1).
        let token_type = if token_type.eq_ignore_ascii_case("bearer") {
            "Bearer"
        } else if proved && token_type.eq_ignore_ascii_case("dpop") {
            "DPoP"
        } else {
            return Err(format!("token_type `{token_type}` is not supported"));
        };
        let expires_at_ms = object
            .get("expires_in")
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
            .map(|s| now_ms.saturating_add(s.saturating_mul(1000)));
        let refresh_token = object
            .get("refresh_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .or(previous_refresh)
            .map(str::to_owned);
        let scope = object
            .get("scope")
            .and_then(Value::as_str)
            .or(requested_scope)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned);
        Ok(TokenSet {
            access_token,
            token_type: token_type.to_owned(),
            refresh_token,
            scope,
            expires_at_ms,
        })
    }
}

/// `error` and `error_description` of an OAuth error body, when it is one.
pub(crate) fn oauth_error(body: &[u8]) -> (Option<String>, Option<String>) {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(body) else {
        return (None, None);
    };
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(|s| s.chars().take(300).collect::<String>())
    };
    (text("error"), text("error_description"))
}
