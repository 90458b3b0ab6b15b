//! Enterprise-managed authorization (SEP-990, "cross-app access"): the user is already signed
//! in to the organisation's identity provider, whose ID token the driver holds. The token is
//! exchanged at the identity provider for an identity assertion grant (ID-JAG, RFC 8693 token
//! exchange), which the authorization server turns into an access token (RFC 7523 JWT bearer
//! grant) — no browser step.

use serde_json::Value;

use super::*;

/// The grant type of RFC 7523's JWT bearer grant.
pub(super) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// What the identity provider gave the driver. `Debug` never prints the ID token. As data:
/// `{idpTokenEndpoint, idpClientId, idToken}`.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EnterpriseIdentity {
    /// The identity provider's token endpoint (token exchange).
    pub idp_token_endpoint: String,
    /// This client's id at the identity provider.
    pub idp_client_id: String,
    /// The user's ID token from the identity provider.
    pub id_token: String,
}

impl EnterpriseIdentity {
    /// An identity provider sign-in: its token endpoint, this client's id there, the ID token.
    pub fn new(
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        id_token: impl Into<String>,
    ) -> Self {
        EnterpriseIdentity {
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client_id: idp_client_id.into(),
            id_token: id_token.into(),
        }
    }
}

impl std::fmt::Debug for EnterpriseIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseIdentity")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

/// Whether to use enterprise-managed authorization: configured, and the authorization server
/// takes JWT bearer grants.
pub(super) fn uses_enterprise(server: &ServerMetadata, cfg: &AuthConfig) -> bool {
    cfg.enterprise.is_some()
        && server
            .grant_types_supported
            .as_ref()
            .is_some_and(|g| g.iter().any(|x| x == JWT_BEARER))
}

impl Authorizer {
    /// Step 1: the token exchange at the identity provider (SEP-990 §5.1).
    pub(super) fn exchange_at_idp(&mut self, server: &ServerMetadata) {
        let Some(idp) = self.cfg.enterprise.clone() else {
            return;
        };
        if let Err(error) = endpoint_url(&idp.idp_token_endpoint) {
            self.fail(error);
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
        let scope = self.choose_scope(server);
        let mut form = vec![
            (
                "grant_type".to_owned(),
                "urn:ietf:params:oauth:grant-type:token-exchange".to_owned(),
            ),
            (
                "requested_token_type".to_owned(),
                "urn:ietf:params:oauth:token-type:id-jag".to_owned(),
            ),
            ("audience".to_owned(), server.issuer.clone()),
            ("subject_token".to_owned(), idp.id_token.clone()),
            (
                "subject_token_type".to_owned(),
                "urn:ietf:params:oauth:token-type:id_token".to_owned(),
            ),
            ("client_id".to_owned(), idp.idp_client_id.clone()),
        ];
        if let Some(resource) = &self.state.resource {
            form.push(("resource".to_owned(), resource.clone()));
        }
        if let Some(scope) = &scope {
            form.push(("scope".to_owned(), scope.clone()));
        }
        self.attempt_scope = scope.clone();
        self.state.requested_scope = scope;
        let url = idp.idp_token_endpoint.clone();
        let headers = vec![form_content_type(), accept_json()];
        let exchange = self.fetch(
            HttpMethod::Post,
            url.clone(),
            headers,
            Some(encode_pairs(&form)),
        );
        self.step = Step::IdpExchange { exchange, url };
    }

    /// Step 2: the identity assertion grant goes to the authorization server (SEP-990 §5.2).
    pub(super) fn idp_answered(&mut self, url: String, status: u16, body: &[u8]) {
        if !(200..300).contains(&status) {
            self.fail(endpoint_error(
                "identity provider token exchange",
                url,
                status,
                body,
            ));
            return;
        }
        let grant = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
            let issued = v.get("issued_token_type").and_then(Value::as_str);
            let token = v.get("access_token").and_then(Value::as_str)?;
            (issued.is_none_or(|t| t == "urn:ietf:params:oauth:token-type:id-jag")
                && !token.is_empty())
            .then(|| token.to_owned())
        });
        let Some(assertion) = grant else {
            self.fail(AuthError::InvalidResponse {
                step: "identity provider token exchange",
                url,
                message: "no identity assertion grant (ID-JAG) in the answer".to_owned(),
            });
            return;
        };
        let (Some(server), Some(client)) = (
            self.state.server_metadata.clone(),
            self.state.client.clone(),
        ) else {
            self.fail(AuthError::InvalidState("no authorization server is known"));
            return;
        };
        let mut form = vec![
            ("grant_type".to_owned(), JWT_BEARER.to_owned()),
            ("assertion".to_owned(), assertion),
        ];
        if let Some(resource) = &self.state.resource {
            form.push(("resource".to_owned(), resource.clone()));
        }
        let url = server.token_endpoint.clone();
        let exchange = self.token_request(&server, &client, form);
        self.step = Step::Code { exchange, url };
    }
}
