//! Who the client is to an authorization server, and how it proves it at the token endpoint:
//! a pre-registered client id, a Client ID Metadata Document URL, or Dynamic Client
//! Registration (RFC 7591); client authentication `client_secret_basic`, `client_secret_post`
//! or `none` (RFC 6749 §2.3, OAuth 2.1 §2.4).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::encode::basic_authorization;
use super::metadata::ServerMetadata;

/// A client identity at one authorization server. `Debug` never prints the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientIdentity {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// What the registration answered (or was configured); chosen from the server's list
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The issuer this identity belongs to: an identity never travels to another server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The JWS algorithm (`ES256`...) of a private key the driver holds for this client: it
    /// authenticates with `private_key_jwt` (RFC 7523 §2.2), the driver signing each
    /// assertion, so the key never enters the core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion_alg: Option<String>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("issuer", &self.issuer)
            .field("assertion_alg", &self.assertion_alg)
            .finish()
    }
}

impl ClientIdentity {
    /// An identity with an id and an optional secret.
    pub fn new(client_id: impl Into<String>, client_secret: Option<String>) -> Self {
        ClientIdentity {
            client_id: client_id.into(),
            client_secret,
            token_endpoint_auth_method: None,
            issuer: None,
            assertion_alg: None,
        }
    }

    /// Whether the client can authenticate itself (a secret or a signing key): what the
    /// client credentials grant needs.
    pub fn is_confidential(&self) -> bool {
        self.client_secret.as_deref().is_some_and(|s| !s.is_empty()) || self.assertion_alg.is_some()
    }
}

/// Client authentication at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenAuth {
    /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret.
    Basic,
    /// `client_secret_post`: id and secret in the form body.
    Post,
    /// `none`: a public client sends its id only.
    None,
    /// `private_key_jwt`: a signed assertion (RFC 7523), made by the driver's key.
    PrivateKeyJwt,
}

impl TokenAuth {
    /// The method for `client` at `server`: `private_key_jwt` for a client with a signing
    /// key; the registered one if known; otherwise, with a secret, the first of Basic and Post the server lists (Basic when it lists none, RFC
    /// 8414's default); without a secret, `none`.
    pub fn choose(client: &ClientIdentity, server: &ServerMetadata) -> TokenAuth {
        if client.assertion_alg.is_some() {
            return TokenAuth::PrivateKeyJwt;
        }
        let has_secret = client
            .client_secret
            .as_deref()
            .is_some_and(|s| !s.is_empty());
        match client.token_endpoint_auth_method.as_deref() {
            Some("client_secret_basic") if has_secret => return TokenAuth::Basic,
            Some("client_secret_post") if has_secret => return TokenAuth::Post,
            Some("none") => return TokenAuth::None,
            _ => {}
        }
        if !has_secret {
            return TokenAuth::None;
        }
        match &server.token_endpoint_auth_methods_supported {
            None => TokenAuth::Basic,
            Some(methods) => {
                let listed = |m: &str| methods.iter().any(|x| x == m);
                if listed("client_secret_basic") {
                    TokenAuth::Basic
                } else if listed("client_secret_post") {
                    TokenAuth::Post
                } else {
                    TokenAuth::None
                }
            }
        }
    }

    /// Adds the client's credentials to a token request's headers and form.
    pub(crate) fn apply(
        self,
        client: &ClientIdentity,
        headers: &mut Vec<(String, String)>,
        form: &mut Vec<(String, String)>,
    ) {
        let secret = client.client_secret.clone().unwrap_or_default();
        match self {
            TokenAuth::Basic => headers.push((
                "Authorization".to_owned(),
                basic_authorization(&client.client_id, &secret),
            )),
            TokenAuth::Post => {
                form.push(("client_id".to_owned(), client.client_id.clone()));
                form.push(("client_secret".to_owned(), secret));
            }
            TokenAuth::None => form.push(("client_id".to_owned(), client.client_id.clone())),
            // The assertion is added once the driver has signed it (`Authorizer`).
            TokenAuth::PrivateKeyJwt => {}
        }
    }
}

/// The RFC 7591 registration request of this client.
pub(crate) fn registration_request(
    client_name: &str,
    redirect_uri: &str,
    scope: Option<&str>,
    server: &ServerMetadata,
) -> String {
    // A browser extension cannot keep a secret from its user, so it asks to be a public
    // client where the server allows it, and a confidential one only where it must.
    let method = match &server.token_endpoint_auth_methods_supported {
        None => "none",
        Some(m) if m.iter().any(|x| x == "none") => "none",
        Some(m) if m.iter().any(|x| x == "client_secret_basic") => "client_secret_basic",
        Some(m) if m.iter().any(|x| x == "client_secret_post") => "client_secret_post",
        Some(_) => "none",
    };
    let mut body = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": application_type(redirect_uri),
    });
    if let (Some(scope), Some(object)) = (scope, body.as_object_mut()) {
        object.insert("scope".to_owned(), Value::String(scope.to_owned()));
    }
    body.to_string()
}

/// SEP-837's `application_type` (OpenID Connect Dynamic Registration): `web` for a redirect
/// to an `https` host on the network (the extension's `https://<id>.chromiumapp.org/`),
/// `native` for loopback or custom-scheme redirects (a command-line client's
/// `http://127.0.0.1:…/callback`), which web clients may not use.
pub(crate) fn application_type(redirect_uri: &str) -> &'static str {
    let Some(rest) = redirect_uri.strip_prefix("https://") else {
        return "native";
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    let loopback =
        host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "::1";
    if loopback {
        "native"
    } else {
        "web"
    }
}

/// The identity an RFC 7591 registration response gives.
pub(crate) fn registration_response(body: &[u8], issuer: &str) -> Result<ClientIdentity, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id")
        .filter(|id| !id.is_empty())
        .ok_or("no client_id")?;
    Ok(ClientIdentity {
        client_id,
        client_secret: text("client_secret").filter(|s| !s.is_empty()),
        token_endpoint_auth_method: text("token_endpoint_auth_method"),
        issuer: Some(issuer.to_owned()),
        assertion_alg: None,
    })
}

#[cfg(test)]
mod tests {
    use super::application_type;

    #[test]
    fn application_type_follows_the_redirect_uri() {
        let cases = [
            ("https://abcdefghijklmnop.chromiumapp.org/oauth", "web"),
            ("https://app.example.com:8443/cb?x=1", "web"),
            ("https://user@app.example.com/cb", "web"),
            ("http://127.0.0.1:8976/callback", "native"),
            ("http://localhost/cb", "native"),
            ("https://localhost:3000/cb", "native"),
            ("https://127.0.0.1/cb", "native"),
            ("https://[::1]:8080/cb", "native"),
            ("com.example.app:/oauth2redirect", "native"),
            ("http://app.example.com/cb", "native"),
        ];
        for (uri, expected) in cases {
            assert_eq!(application_type(uri), expected, "{uri}");
        }
    }
}
