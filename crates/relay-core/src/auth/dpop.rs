//! DPoP (RFC 9449, MCP SEP-1932): sender-constrained tokens, sans IO and without the key.
//!
//! The driver holds an ECDSA P-256 key pair (WebCrypto) and gives the core only its public
//! [`PublicJwk`]. The core builds every proof's signing input (`header.payload` of a JWT with
//! `typ: dpop+jwt`, `alg: ES256`, the public `jwk`, and the claims `jti`, `htm`, `htu`, `iat`,
//! plus `ath` for a resource request and `nonce` once a server asked for one); the driver signs
//! it and sends `DPoP: <signing input>.<signature>`. The private key never enters the core.
//!
//! Nonces (RFC 9449 §8, §9): a server that wants one answers `use_dpop_nonce` with a
//! `DPoP-Nonce` header (an authorization server in a 400 OAuth error, a resource server in a 401
//! `WWW-Authenticate: DPoP error="use_dpop_nonce"`); the request is made once more with it, and
//! the latest nonce of each endpoint (its `htu`) is kept ([`DpopNonces`]) for the next proofs:
//! an authorization server and its resource server often share an origin, never a nonce.

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::challenge::BearerChallenge;
use super::encode::base64url;
use crate::client::http::HttpMethod;
use crate::client::url::HttpUrl;

/// The only proof algorithm this client signs with: ECDSA P-256 with SHA-256, which WebCrypto
/// offers everywhere and whose raw `r‖s` output is the JWS form.
pub const DPOP_ALG: &str = "ES256";

/// Header of a response carrying a server's nonce.
pub const NONCE_HEADER: &str = "DPoP-Nonce";

/// The public half of the driver's proof key, as JWK (RFC 7517): EC P-256 `x` and `y`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PublicJwk {
    pub kty: String,
    pub crv: String,
    pub x: String,
    pub y: String,
}

impl PublicJwk {
    /// An EC P-256 public key from its base64url coordinates.
    pub fn p256(x: impl Into<String>, y: impl Into<String>) -> PublicJwk {
        PublicJwk {
            kty: "EC".to_owned(),
            crv: "P-256".to_owned(),
            x: x.into(),
            y: y.into(),
        }
    }

    /// Whether this is a key the client can prove with (EC P-256 with both coordinates).
    pub fn is_usable(&self) -> bool {
        self.kty == "EC" && self.crv == "P-256" && !self.x.is_empty() && !self.y.is_empty()
    }
}

/// The latest nonce each endpoint gave, by its `htu` (URL without query and fragment).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DpopNonces(SortedMap<String, String>);

impl DpopNonces {
    /// The nonce to put in a proof for `url`, if its server gave one.
    pub fn for_url(&self, url: &str) -> Option<&str> {
        self.0.get(&htu(url)).map(String::as_str)
    }

    /// Keeps the nonce a response from `url` carried; returns whether it is new.
    pub fn remember(&mut self, url: &str, nonce: &str) -> bool {
        let nonce = nonce.trim();
        if nonce.is_empty() || HttpUrl::parse(url).is_err() {
            return false;
        }
        self.0.insert(htu(url), nonce.to_owned()).as_deref() != Some(nonce)
    }

    /// Whether no nonce is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The `htu` claim: the request URI without query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

/// The `ath` claim: base64url SHA-256 of the access token (RFC 9449 §4.2).
pub fn ath(access_token: &str) -> String {
    base64url(&Sha256::digest(access_token.as_bytes()))
}

/// What one proof says.
#[derive(Debug, Clone, Copy)]
pub struct ProofClaims<'a> {
    pub method: HttpMethod,
    pub url: &'a str,
    pub iat_s: u64,
    pub jti: &'a str,
    pub nonce: Option<&'a str>,
    /// The access token the request presents (resource requests only).
    pub access_token: Option<&'a str>,
}

/// The signing input (`base64url(header).base64url(claims)`) of a proof with `jwk`.
pub fn signing_input(jwk: &PublicJwk, claims: &ProofClaims<'_>) -> String {
    let header = serde_json::json!({ "typ": "dpop+jwt", "alg": DPOP_ALG, "jwk": jwk });
    let mut payload = serde_json::json!({
        "jti": claims.jti,
        "htm": claims.method.as_str(),
        "htu": htu(claims.url),
        "iat": claims.iat_s,
    });
    if let Some(nonce) = claims.nonce {
        payload["nonce"] = nonce.into();
    }
    if let Some(token) = claims.access_token {
        payload["ath"] = ath(token).into();
    }
    format!(
        "{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(payload.to_string().as_bytes())
    )
}

/// Whether an authorization server lets its tokens be bound with this client's proofs: its
/// metadata lists ES256 in `dpop_signing_alg_values_supported`.
pub fn server_supports(algs: Option<&[String]>) -> bool {
    algs.is_some_and(|a| a.iter().any(|alg| alg == DPOP_ALG))
}

/// Whether a resource server's refusal asks for a nonce: a 401 whose `DPoP` challenge has
/// `error="use_dpop_nonce"` (RFC 9449 §9).
pub fn resource_wants_nonce(status: u16, www_authenticate: Option<&str>) -> bool {
    status == 401
        && www_authenticate
            .and_then(BearerChallenge::parse_dpop)
            .is_some_and(|c| c.error.as_deref() == Some("use_dpop_nonce"))
}
