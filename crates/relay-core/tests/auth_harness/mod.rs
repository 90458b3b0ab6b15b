//! The scripted world of the sign-in transcript tests (`test_auth_*.rs`): servers' answers by
//! URL, a driver that runs `relay_core::auth::Authorizer`'s actions against them (the browser
//! step answered like an authorization server that redirects at once, assertions "signed"
//! with a fixed signature), and builders of metadata documents.
#![allow(dead_code)]

use std::collections::BTreeMap;

use relay_core::auth::encode::{form_decode, query_params};
use relay_core::auth::{AuthAction, AuthConfig, AuthError, AuthEvent, Authorizer, SignKey};

pub const MCP: &str = "http://127.0.0.1:4000/mcp";
pub const RS: &str = "http://127.0.0.1:4000";
pub const AS: &str = "http://127.0.0.1:5000";
pub const REDIRECT: &str = "http://127.0.0.1:8976/callback";
pub const SEED: [u8; 32] = [7; 32];

/// One scripted answer: status and JSON body.
pub type Answer = (u16, String);

#[derive(Default, Clone)]
pub struct World {
    /// `METHOD url` → answer; anything not here is a 404.
    pub routes: BTreeMap<String, Answer>,
    /// What the authorization endpoint's redirect adds besides `code` and `state`.
    pub redirect_extra: Vec<(String, String)>,
    /// Replace the redirect's `state` (a forged or stale redirect).
    pub forged_state: bool,
    /// A token endpoint that wants this DPoP nonce (RFC 9449 §8): a proof without it gets a
    /// 400 `use_dpop_nonce` with the nonce in `DPoP-Nonce`.
    pub token_nonce: Option<String>,
}

impl World {
    pub fn route(mut self, method: &str, url: &str, status: u16, body: serde_json::Value) -> Self {
        self.routes
            .insert(format!("{method} {url}"), (status, body.to_string()));
        self
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub line: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

#[derive(Debug, Default)]
pub struct Transcript {
    pub requests: Vec<Recorded>,
    pub events: Vec<AuthEvent>,
    pub redirect_errors: Vec<AuthError>,
}

impl Transcript {
    pub fn lines(&self) -> Vec<String> {
        self.requests.iter().map(|r| r.line.clone()).collect()
    }

    pub fn browser(&self) -> Vec<(String, String)> {
        let r = self
            .requests
            .iter()
            .rfind(|r| r.line.starts_with("BROWSER"))
            .expect("a browser step");
        query_params(&r.line["BROWSER ".len()..])
    }

    pub fn form(&self, url: &str) -> Vec<(String, String)> {
        let r = self
            .requests
            .iter()
            .rfind(|r| r.line == format!("POST {url}"))
            .expect("the request");
        form_decode(r.body.as_deref().unwrap_or_default())
    }

    pub fn header(&self, url: &str, name: &str) -> Option<String> {
        let r = self
            .requests
            .iter()
            .rfind(|r| r.line == format!("POST {url}"))?;
        r.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }
}

pub fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// Runs the flow's actions against `world` until it is idle, recording everything.
pub fn drive(flow: &mut Authorizer, world: &World, now_ms: u64, t: &mut Transcript) {
    for _ in 0..64 {
        let Some(action) = flow.poll_action() else {
            break;
        };
        match action {
            AuthAction::Fetch(request) => {
                let line = format!("{} {}", request.method.as_str(), request.url);
                t.requests.push(Recorded {
                    line: line.clone(),
                    headers: request.headers.clone(),
                    body: request.body.clone(),
                });
                let wants_nonce = world.token_nonce.as_ref().filter(|nonce| {
                    line == format!("POST {AS}/token")
                        && proof_claims(&request.headers)
                            .is_some_and(|c| c["nonce"].as_str() != Some(nonce.as_str()))
                });
                if let Some(nonce) = wants_nonce {
                    flow.handle_dpop_nonce(request.id, nonce);
                    let body = br#"{"error":"use_dpop_nonce"}"#;
                    flow.handle_response(request.id, 400, body, now_ms);
                    continue;
                }
                match world.routes.get(&line) {
                    Some((status, body)) => {
                        flow.handle_response(request.id, *status, body.as_bytes(), now_ms)
                    }
                    None if line.contains("unreachable") => {
                        flow.handle_fetch_error(request.id, "connection refused")
                    }
                    None => flow.handle_response(request.id, 404, b"Not Found", now_ms),
                }
            }
            AuthAction::OpenBrowser { url } => {
                t.requests.push(Recorded {
                    line: format!("BROWSER {url}"),
                    headers: vec![],
                    body: None,
                });
                let params = query_params(&url);
                let state = if world.forged_state {
                    "forged".to_owned()
                } else {
                    param(&params, "state").unwrap_or_default()
                };
                let mut redirect = format!("{REDIRECT}?code=the-code&state={state}");
                for (k, v) in &world.redirect_extra {
                    redirect.push_str(&format!("&{k}={v}"));
                }
                if let Err(e) = flow.handle_redirect(&redirect, 1_000) {
                    t.redirect_errors.push(e);
                }
            }
            AuthAction::Sign {
                id,
                alg,
                key,
                signing_input,
            } => {
                let suffix = if key == SignKey::Dpop { " dpop" } else { "" };
                t.requests.push(Recorded {
                    line: format!("SIGN {alg}{suffix}"),
                    headers: vec![],
                    body: Some(signing_input),
                });
                flow.handle_signature(id, "c2lnbmF0dXJl");
            }
            other => panic!("unexpected action {other:?}"),
        }
    }
    while let Some(event) = flow.poll_event() {
        t.events.push(event);
    }
}

pub fn prm(resource: &str, servers: &[&str], scopes: Option<&[&str]>) -> serde_json::Value {
    let mut v = serde_json::json!({ "resource": resource, "authorization_servers": servers });
    if let Some(scopes) = scopes {
        v["scopes_supported"] = serde_json::json!(scopes);
    }
    v
}

pub fn asm(issuer: &str, extra: serde_json::Value) -> serde_json::Value {
    let mut v = serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
        for (k, x) in extra {
            if x.is_null() {
                v.remove(k);
            } else {
                v.insert(k.clone(), x.clone());
            }
        }
    }
    v
}

pub fn token(access: &str, refresh: Option<&str>) -> serde_json::Value {
    let mut v =
        serde_json::json!({ "access_token": access, "token_type": "Bearer", "expires_in": 3600 });
    if let Some(r) = refresh {
        v["refresh_token"] = serde_json::json!(r);
    }
    v
}

pub fn registered(secret: Option<&str>, method: Option<&str>) -> serde_json::Value {
    let mut v = serde_json::json!({ "client_id": "dcr-client" });
    if let Some(s) = secret {
        v["client_secret"] = serde_json::json!(s);
    }
    if let Some(m) = method {
        v["token_endpoint_auth_method"] = serde_json::json!(m);
    }
    v
}

/// The usual world: path-based PRM, root AS metadata, DCR, token endpoint.
pub fn standard() -> World {
    World::default()
        .route(
            "GET",
            &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
            200,
            prm(MCP, &[AS], None),
        )
        .route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(AS, serde_json::json!({})),
        )
        .route(
            "POST",
            &format!("{AS}/register"),
            201,
            registered(None, None),
        )
        .route(
            "POST",
            &format!("{AS}/token"),
            200,
            token("access-1", Some("refresh-1")),
        )
}

pub fn config() -> AuthConfig {
    AuthConfig::new(MCP, REDIRECT)
}

pub fn sign_in(cfg: AuthConfig, world: &World, www: Option<&str>) -> (Authorizer, Transcript) {
    let mut flow = Authorizer::new(cfg, &SEED).expect("flow");
    let mut t = Transcript::default();
    flow.handle_challenge(401, www, 1_000)
        .expect("challenge accepted");
    drive(&mut flow, world, 1_000, &mut t);
    (flow, t)
}

pub fn signed_in(t: &Transcript) -> bool {
    matches!(t.events.last(), Some(AuthEvent::SignedIn { .. }))
}

pub fn failure(t: &Transcript) -> &AuthError {
    match t.events.last() {
        Some(AuthEvent::Failed(e)) => e,
        other => panic!(
            "expected a failure, got {other:?}; requests {:?}",
            t.lines()
        ),
    }
}

/// The decoded (header, claims) of a compact JWS.
pub fn jws_parts(jws: &str) -> (serde_json::Value, serde_json::Value) {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    let mut parts = jws.split('.');
    let mut next = || {
        let bytes = URL_SAFE_NO_PAD
            .decode(parts.next().unwrap_or_default())
            .expect("base64url");
        serde_json::from_slice(&bytes).expect("JSON")
    };
    (next(), next())
}

/// The claims of the `DPoP` proof among `headers`, if there is one.
pub fn proof_claims(headers: &[(String, String)]) -> Option<serde_json::Value> {
    let (_, proof) = headers.iter().find(|(k, _)| k == "DPoP")?;
    Some(jws_parts(proof).1)
}
