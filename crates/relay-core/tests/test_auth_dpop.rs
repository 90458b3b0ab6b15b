//! DPoP (RFC 9449, SEP-1932) in the sans-IO sign-in flow: proofs on token requests and on
//! resource requests (claims, key, `ath`, fresh `jti`), token types, nonces from the
//! authorization server and from the resource server, and Bearer where DPoP is not offered.

mod auth_harness;

use auth_harness::*;
use relay_core::auth::dpop::{ath, htu};
use relay_core::auth::{AuthError, Authorizer, ClientIdentity, PublicJwk};
use relay_core::client::HttpMethod;
use serde_json::{json, Value};

const X: &str = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
const Y: &str = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
const TOKEN: &str = "http://127.0.0.1:5000/token";

fn key() -> PublicJwk {
    PublicJwk::p256(X, Y)
}

fn dpop_token(access: &str, token_type: &str) -> Value {
    json!({"access_token": access, "token_type": token_type, "expires_in": 3600,
           "refresh_token": "refresh-1"})
}

/// The standard world whose authorization server lists `algs` (None: no DPoP metadata) and
/// whose token endpoint answers `token_type`.
fn world(algs: Option<&[&str]>, token_type: &str) -> World {
    let extra = match algs {
        Some(algs) => json!({ "dpop_signing_alg_values_supported": algs }),
        None => json!({}),
    };
    standard()
        .route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(AS, extra),
        )
        .route("POST", TOKEN, 200, dpop_token("access-1", token_type))
}

fn dpop_config() -> relay_core::auth::AuthConfig {
    let mut cfg = config();
    cfg.dpop_key = Some(key());
    cfg
}

fn token_requests(t: &Transcript) -> Vec<&Recorded> {
    t.requests
        .iter()
        .filter(|r| r.line == format!("POST {TOKEN}"))
        .collect()
}

fn proof_of(r: &Recorded) -> Option<(Value, Value)> {
    let (_, proof) = r.headers.iter().find(|(k, _)| k == "DPoP")?;
    assert!(proof.ends_with(".c2lnbmF0dXJl"), "signed by the driver");
    Some(jws_parts(proof))
}

#[test]
fn token_request_proof_has_the_rfc_9449_shape() {
    let (flow, t) = sign_in(dpop_config(), &world(Some(&["ES256"]), "DPoP"), None);
    assert!(signed_in(&t), "{:?}", t.events);
    assert!(t.lines().contains(&"SIGN ES256 dpop".to_owned()));
    let requests = token_requests(&t);
    let (header, claims) = proof_of(requests[0]).expect("a proof");
    assert_eq!(header["typ"], "dpop+jwt");
    assert_eq!(header["alg"], "ES256");
    assert_eq!(
        header["jwk"],
        json!({"kty": "EC", "crv": "P-256", "x": X, "y": Y})
    );
    assert!(header["jwk"].get("d").is_none());
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], TOKEN);
    assert_eq!(claims["iat"], 1);
    assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 22));
    assert!(claims.get("ath").is_none() && claims.get("nonce").is_none());
    let tokens = flow.state().tokens.clone().expect("tokens");
    assert_eq!(tokens.token_type, "DPoP");
    assert_eq!(flow.authorization().as_deref(), Some("DPoP access-1"));
    assert_eq!(flow.state().dpop_key, Some(key()));
}

#[test]
fn dpop_only_where_offered_and_held() {
    // (AS algs, driver key, token_type answered) → (proof sent, outcome: scheme or error kind)
    let es256: &[&str] = &["ES256", "RS256"];
    let rsa: &[&str] = &["RS256"];
    type Case<'a> = (
        Option<&'a [&'a str]>,
        bool,
        &'a str,
        bool,
        Result<&'a str, &'a str>,
    );
    let cases: &[Case] = &[
        (Some(es256), true, "DPoP", true, Ok("DPoP")),
        (Some(es256), true, "dpop", true, Ok("DPoP")),
        // The AS may issue an unbound token even to a proved request.
        (Some(es256), true, "Bearer", true, Ok("Bearer")),
        (None, true, "Bearer", false, Ok("Bearer")),
        (Some(rsa), true, "Bearer", false, Ok("Bearer")),
        (Some(es256), false, "Bearer", false, Ok("Bearer")),
        // A DPoP token the client never proved for is of no use to it.
        (None, true, "DPoP", false, Err("auth_invalid_response")),
        (
            Some(es256),
            false,
            "DPoP",
            false,
            Err("auth_invalid_response"),
        ),
    ];
    for &(algs, with_key, answered, proof, outcome) in cases {
        let cfg = if with_key { dpop_config() } else { config() };
        let (flow, t) = sign_in(cfg, &world(algs, answered), None);
        let label = format!("{algs:?} key={with_key} {answered}");
        assert_eq!(
            proof_of(token_requests(&t)[0]).is_some(),
            proof,
            "proof: {label}"
        );
        match outcome {
            Ok(scheme) => {
                assert!(signed_in(&t), "{label}: {:?}", t.events);
                assert_eq!(
                    flow.authorization(),
                    Some(format!("{scheme} access-1")),
                    "{label}"
                );
            }
            Err(kind) => assert_eq!(failure(&t).kind(), kind, "{label}"),
        }
    }
}

#[test]
fn authorization_server_nonce_is_used_once_asked() {
    let mut w = world(Some(&["ES256"]), "DPoP");
    w.token_nonce = Some("as-nonce-1".into());
    let (mut flow, t) = sign_in(dpop_config(), &w, None);
    assert!(signed_in(&t), "{:?}", t.events);
    let requests = token_requests(&t);
    assert_eq!(requests.len(), 2, "{:?}", t.lines());
    let (_, first) = proof_of(requests[0]).expect("proof");
    let (_, second) = proof_of(requests[1]).expect("proof");
    assert!(first.get("nonce").is_none());
    assert_eq!(second["nonce"], "as-nonce-1");
    assert_ne!(first["jti"], second["jti"], "a fresh proof");
    // The same grant, made once more.
    assert_eq!(param(&t.form(TOKEN), "code").as_deref(), Some("the-code"));
    // The nonce is kept: a refresh proves with it at once.
    let mut t2 = Transcript::default();
    flow.refresh(5_000).expect("refresh");
    drive(&mut flow, &w, 5_000, &mut t2);
    let requests = token_requests(&t2);
    assert_eq!(requests.len(), 1, "{:?}", t2.lines());
    let (_, refresh) = proof_of(requests[0]).expect("proof");
    assert_eq!(refresh["nonce"], "as-nonce-1");
    assert_eq!(refresh["iat"], 5);
    assert_eq!(
        param(&t2.form(TOKEN), "grant_type").as_deref(),
        Some("refresh_token")
    );
}

#[test]
fn a_second_nonce_demand_ends_the_attempt() {
    let w = world(Some(&["ES256"]), "DPoP").route(
        "POST",
        TOKEN,
        400,
        json!({"error": "use_dpop_nonce"}),
    );
    let (_, t) = sign_in(dpop_config(), &w, None);
    assert_eq!(token_requests(&t).len(), 2, "{:?}", t.lines());
    match failure(&t) {
        AuthError::Endpoint { status, error, .. } => {
            assert_eq!((*status, error.as_deref()), (400, Some("use_dpop_nonce")));
        }
        other => panic!("{other:?}"),
    }
    // A Bearer flow does not retry a 400 of that name: it sent no proof to renew.
    let w = world(None, "Bearer").route("POST", TOKEN, 400, json!({"error": "use_dpop_nonce"}));
    let (_, t) = sign_in(dpop_config(), &w, None);
    assert_eq!(token_requests(&t).len(), 1);
}

#[test]
fn resource_proofs_bind_method_url_and_token() {
    let (mut flow, t) = sign_in(dpop_config(), &world(Some(&["ES256"]), "DPoP"), None);
    assert!(signed_in(&t));
    let cases = [
        (HttpMethod::Post, MCP, "POST", MCP),
        (
            HttpMethod::Get,
            "http://127.0.0.1:4000/mcp?x=1#frag",
            "GET",
            MCP,
        ),
        (
            HttpMethod::Delete,
            "http://127.0.0.1:4000/mcp#f",
            "DELETE",
            MCP,
        ),
    ];
    let mut jtis = Vec::new();
    for (method, url, htm, expected_htu) in cases {
        let input = flow.resource_proof(method, url, 7_900).expect("a proof");
        let (header, claims) = jws_parts(&format!("{input}.c2ln"));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(claims["htm"], htm);
        assert_eq!(claims["htu"], expected_htu);
        assert_eq!(htu(url), expected_htu);
        assert_eq!(claims["iat"], 7);
        assert_eq!(claims["ath"], ath("access-1"));
        jtis.push(claims["jti"].as_str().expect("jti").to_owned());
    }
    jtis.sort();
    jtis.dedup();
    assert_eq!(jtis.len(), 3, "every proof has its own jti");
    // RFC 9449 appendix-style check of ath: base64url(SHA-256("access-1")), 43 characters.
    assert_eq!(ath("access-1").len(), 43);
}

#[test]
fn bearer_tokens_get_no_resource_proof() {
    let (mut flow, t) = sign_in(dpop_config(), &world(None, "Bearer"), None);
    assert!(signed_in(&t));
    assert_eq!(flow.resource_proof(HttpMethod::Post, MCP, 1_000), None);
    let answer = Some(r#"DPoP error="use_dpop_nonce""#);
    assert!(!flow.resource_answered(MCP, 401, answer, Some("n")));
}

#[test]
fn resource_server_nonce_retry_once() {
    let (mut flow, t) = sign_in(dpop_config(), &world(Some(&["ES256"]), "DPoP"), None);
    assert!(signed_in(&t));
    let nonce_challenge = r#"DPoP error="use_dpop_nonce", resource_metadata="http://x/prm""#;
    // (status, WWW-Authenticate, DPoP-Nonce) → make the request once more?
    let cases: &[(u16, Option<&str>, Option<&str>, bool)] = &[
        (401, Some(nonce_challenge), Some("rs-1"), true),
        // The nonce it already has: asking again will not help.
        (401, Some(nonce_challenge), Some("rs-1"), false),
        (401, Some(nonce_challenge), None, false),
        (
            401,
            Some(r#"DPoP error="invalid_token""#),
            Some("rs-2"),
            false,
        ),
        (
            401,
            Some(r#"Bearer error="use_dpop_nonce""#),
            Some("rs-3"),
            false,
        ),
        (200, None, Some("rs-4"), false),
        (401, Some(nonce_challenge), Some("rs-5"), true),
    ];
    for &(status, www, nonce, retry) in cases {
        assert_eq!(
            flow.resource_answered(MCP, status, www, nonce),
            retry,
            "{status} {www:?} {nonce:?}"
        );
        if let Some(nonce) = nonce {
            // Every nonce a response carried is the next proof's, whatever the status.
            let input = flow
                .resource_proof(HttpMethod::Post, MCP, 1_000)
                .expect("proof");
            assert_eq!(jws_parts(&format!("{input}.s")).1["nonce"], nonce);
        }
    }
    // Nonces are per endpoint: the authorization server's proofs do not carry the resource's.
    assert!(flow
        .state()
        .dpop_nonces
        .for_url("http://127.0.0.1:5000/token")
        .is_none());
    // And they persist with the state.
    let saved = serde_json::to_value(flow.state()).expect("state");
    assert_eq!(saved["dpopNonces"][MCP], "rs-5");
    assert_eq!(saved["dpopKey"]["x"], X);
}

#[test]
fn dpop_challenge_starts_discovery_and_state_proves_after_restore() {
    // The resource's first refusal is a DPoP challenge naming its metadata.
    let www = r#"DPoP algs="ES256", resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp""#;
    let (flow, t) = sign_in(dpop_config(), &world(Some(&["ES256"]), "DPoP"), Some(www));
    assert!(signed_in(&t));
    assert_eq!(
        t.lines()[0],
        "GET http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp"
    );
    // A worker restart: the persisted state alone makes proofs (the driver supplies the jti).
    let saved: relay_core::auth::AuthState =
        serde_json::from_value(serde_json::to_value(flow.state()).expect("json")).expect("state");
    let input = saved
        .dpop_proof(HttpMethod::Post, MCP, 9_000, "jti-1")
        .expect("proof");
    let (header, claims) = jws_parts(&format!("{input}.s"));
    assert_eq!(header["jwk"]["x"], X);
    assert_eq!(claims["jti"], "jti-1");
    assert_eq!(claims["ath"], ath("access-1"));
}

#[test]
fn client_assertion_and_proof_are_both_signed_before_the_request() {
    let w = world(Some(&["ES256"]), "DPoP").route(
        "GET",
        &format!("{AS}/.well-known/oauth-authorization-server"),
        200,
        asm(
            AS,
            json!({
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "dpop_signing_alg_values_supported": ["ES256"],
            }),
        ),
    );
    let mut client = ClientIdentity::new("jwt-client", None);
    client.assertion_alg = Some("ES256".into());
    let mut cfg = dpop_config();
    cfg.client = Some(client);
    let mut flow = Authorizer::new(cfg, &SEED).expect("flow");
    let mut t = Transcript::default();
    flow.handle_challenge(401, None, 1_000).expect("challenge");
    drive(&mut flow, &w, 1_000, &mut t);
    assert!(signed_in(&t), "{:?} {:?}", t.events, t.lines());
    let lines = t.lines();
    let post = lines
        .iter()
        .position(|l| l == &format!("POST {TOKEN}"))
        .expect("post");
    assert_eq!(lines[post - 2..post], ["SIGN ES256", "SIGN ES256 dpop"]);
    let form = t.form(TOKEN);
    assert!(param(&form, "client_assertion").is_some());
    assert!(proof_of(token_requests(&t)[0]).is_some());
    assert_eq!(flow.authorization().as_deref(), Some("DPoP access-1"));
}

#[test]
fn no_secret_in_debug_output() {
    let mut w = world(Some(&["ES256"]), "DPoP");
    w.token_nonce = Some("n".into());
    let (flow, t) = sign_in(dpop_config(), &w, None);
    assert!(signed_in(&t));
    let debug = format!("{flow:?}");
    for secret in ["access-1", "refresh-1", "the-code"] {
        assert!(!debug.contains(secret), "{secret} in {debug}");
    }
}

#[test]
fn nonces_are_kept_per_endpoint() {
    use relay_core::auth::dpop::DpopNonces;
    // One origin serving both the token endpoint and the MCP endpoint (a common deployment).
    let token = "https://h.example/token";
    let mcp = "https://h.example/mcp";
    let mut nonces = DpopNonces::default();
    // (url the answer came from, nonce) → whether it is new
    let cases = [
        (token, "as-1", true),
        (mcp, "rs-1", true),
        ("https://h.example/mcp?session=2#x", "rs-1", false),
        (token, "as-1", false),
        (token, " as-2 ", true),
        (mcp, "", false),
        ("not a url", "n", false),
    ];
    for (url, nonce, new) in cases {
        assert_eq!(nonces.remember(url, nonce), new, "{url} {nonce:?}");
    }
    assert_eq!(nonces.for_url(token), Some("as-2"));
    assert_eq!(nonces.for_url("https://h.example/mcp?x=1"), Some("rs-1"));
    assert_eq!(nonces.for_url("https://other.example/mcp"), None);
}
