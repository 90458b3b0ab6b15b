//! Discovery documents and where to look for them: protected-resource metadata (RFC 9728),
//! authorization-server metadata (RFC 8414 and OpenID Connect Discovery 1.0, in the order the
//! MCP authorization spec gives), and the checks on what they say (resource and issuer match,
//! endpoints over TLS).

use serde::{Deserialize, Serialize};

use super::error::AuthError;
use crate::client::url::HttpUrl;

/// Protected-resource metadata (RFC 9728 §2), the fields MCP uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceMetadata {
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization-server metadata (RFC 8414 §2), the fields MCP uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207 §3: the authorization response carries `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// RFC 9449 §5.1: the JWS algorithms the server takes DPoP proofs in (absent: no DPoP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// The endpoints of a 2025-03-26 server without metadata: `/authorize`, `/token` and
    /// `/register` at the root of the MCP server's origin (that revision's fallback).
    pub fn fallback(origin: &str) -> ServerMetadata {
        ServerMetadata {
            issuer: origin.to_owned(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            revocation_endpoint: None,
            scopes_supported: None,
            code_challenge_methods_supported: None,
            token_endpoint_auth_methods_supported: None,
            grant_types_supported: None,
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
            dpop_signing_alg_values_supported: None,
        }
    }

    /// Whether the server advertises PKCE S256. Absent means "no PKCE", and MCP clients must
    /// then refuse to go on (2025-11-25 §authorization code protection).
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// Whether `scopes_supported` lists `scope`.
    pub fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|s| s == scope))
    }
}

/// Where to look for the protected-resource metadata of `server` when the challenge does not
/// say (RFC 9728 §3.1, MCP 2025-11-25): the path-specific well-known URI first, then the root.
pub fn resource_metadata_urls(server: &HttpUrl) -> Vec<String> {
    let origin = server.origin();
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::with_capacity(2);
    if !path.is_empty() {
        urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// Where to look for an authorization server's metadata, in the MCP spec's order: for an issuer
/// with a path, OAuth path insertion, OpenID path insertion, OpenID path appending; without a
/// path, OAuth then OpenID at the root.
pub fn server_metadata_urls(issuer: &HttpUrl) -> Vec<String> {
    let origin = issuer.origin();
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// The canonical resource identifier of an MCP server (RFC 8707, MCP §canonical server URI):
/// scheme and host lower-case, no query or fragment, no trailing slash.
pub fn canonical_resource(server: &HttpUrl) -> String {
    format!("{}{}", server.origin(), server.path().trim_end_matches('/'))
}

/// Whether protected-resource metadata naming `resource`, fetched from `fetched_from`, may be
/// used for `server`. RFC 9728 §3.3: the `resource` value MUST be identical to the resource
/// identifier the metadata was asked for: the server's URL (MCP's canonical server URI, also
/// what a challenge's `resource_metadata` is about), or the identifier a well-known URL of
/// [`resource_metadata_urls`] was built from (`/.well-known/oauth-protected-resource/mcp` is
/// about `/mcp`; the root one is about the origin). Identifiers compare canonically
/// ([`canonical_resource`]: scheme and host case, a default port, a trailing slash are not
/// differences). A parent path never covers a server below it: another resource on the same
/// origin could otherwise lend it its sign-in.
pub fn resource_covers(resource: &str, server: &HttpUrl, fetched_from: &str) -> bool {
    let Ok(resource) = HttpUrl::parse(resource) else {
        return false;
    };
    let resource = canonical_resource(&resource);
    if resource == canonical_resource(server) {
        return true;
    }
    let root = format!("{}/.well-known/oauth-protected-resource", server.origin());
    let asked_for = match fetched_from.strip_prefix(&root) {
        Some(path) if path.is_empty() || path.starts_with('/') => {
            format!("{}{path}", server.origin())
        }
        _ => return false,
    };
    resource == asked_for.trim_end_matches('/')
}

/// Whether two issuer identifiers are the same (RFC 8414 §3.3 wants identity; a trailing slash
/// is the one difference servers commonly introduce, and RFC 3986 treats an empty path and `/`
/// alike).
pub fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Parses an endpoint URL and requires TLS unless it points at this computer.
pub fn endpoint_url(url: &str) -> Result<HttpUrl, AuthError> {
    let parsed = HttpUrl::parse(url).map_err(|e| AuthError::BadUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    if parsed.scheme() != "https" && !parsed.is_loopback() {
        return Err(AuthError::BadUrl {
            url: url.to_owned(),
            reason: "authorization endpoints must use https".to_owned(),
        });
    }
    Ok(parsed)
}

/// Checks a sign-in endpoint (authorization, token, registration, revocation) of the metadata
/// of `issuer`, the authorization server the resource declared: TLS unless loopback
/// ([`endpoint_url`]), and on that authorization server's origin or the MCP server's own. An
/// authorization server's metadata cannot send the user's code, client secret or tokens to a
/// third origin (another port on this computer included).
pub fn sign_in_endpoint(url: &str, issuer: &str, server: &HttpUrl) -> Result<HttpUrl, AuthError> {
    let parsed = endpoint_url(url)?;
    let issuer_origin = HttpUrl::parse(issuer).map(|i| i.origin()).ok();
    let origin = parsed.origin();
    if Some(&origin) == issuer_origin.as_ref() || origin == server.origin() {
        return Ok(parsed);
    }
    Err(AuthError::BadUrl {
        url: url.to_owned(),
        reason: format!(
            "sign-in endpoints must be on the authorization server's origin ({}) or the server's ({})",
            issuer_origin.as_deref().unwrap_or(issuer),
            server.origin()
        ),
    })
}

/// Checks where a challenge's `resource_metadata` points: protected-resource metadata is read
/// from the MCP server's own origin only, so a challenge cannot make the worker fetch from
/// (or lend a host permission to) any other.
pub fn resource_metadata_url(url: &str, server: &HttpUrl) -> Result<HttpUrl, AuthError> {
    let parsed = endpoint_url(url)?;
    if parsed.origin() == server.origin() {
        return Ok(parsed);
    }
    Err(AuthError::BadUrl {
        url: url.to_owned(),
        reason: format!(
            "the server's resource metadata must be on its own origin ({})",
            server.origin()
        ),
    })
}
