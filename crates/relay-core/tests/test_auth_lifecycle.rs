//! Transcript tests of the sans-IO sign-in flow (`relay_core::auth::Authorizer`), second
//! part: what happens after a sign-in — step-up and its limit, refresh, expiry on the driver's
//! clock, authorization-server migration, sign-out and revocation, persistence, private-key
//! assertions, secrets kept out of texts, and the session's `Authorization` hook.

mod auth_harness;

use auth_harness::*;
use relay_core::auth::{AuthAction, AuthEvent, AuthState, Authorizer, ClientIdentity};

#[test]
fn each_attempt_has_fresh_state_and_verifier() {
    let world = standard();
    let (mut flow, mut t) = sign_in(config(), &world, None);
    let first = (
        param(&t.browser(), "state"),
        param(&t.browser(), "code_challenge"),
    );
    flow.note_success();
    flow.handle_challenge(
        403,
        Some(r#"Bearer error="insufficient_scope", scope="more""#),
        1_000,
    )
    .expect("step-up");
    drive(&mut flow, &world, 2_000, &mut t);
    let second = (
        param(&t.browser(), "state"),
        param(&t.browser(), "code_challenge"),
    );
    assert_ne!(first.0, second.0);
    assert_ne!(first.1, second.1);
}

#[test]
fn step_up_asks_for_the_union_and_stops_when_nothing_new_is_asked() {
    let world = standard();
    let (mut flow, mut t) = sign_in(config(), &world, Some(r#"Bearer scope="mcp:basic""#));
    assert_eq!(param(&t.browser(), "scope").as_deref(), Some("mcp:basic"));
    flow.note_success();
    flow.handle_challenge(
        403,
        Some(r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write""#),
        1_000,
    )
    .expect("step-up");
    drive(&mut flow, &world, 2_000, &mut t);
    assert_eq!(
        param(&t.browser(), "scope").as_deref(),
        Some("mcp:basic mcp:write")
    );
    assert!(signed_in(&t));
    // The same demand again: another sign-in cannot help.
    let again = flow.handle_challenge(
        403,
        Some(r#"Bearer error="insufficient_scope", scope="mcp:write""#),
        1_000,
    );
    assert_eq!(
        again.map_err(|e| e.kind().as_str()),
        Err("auth_too_many_attempts")
    );
    // A 403 that asks for nothing is not an authorization problem.
    assert_eq!(
        flow.handle_challenge(403, Some("Bearer"), 1_000)
            .map_err(|e| e.kind().as_str()),
        Err("auth_forbidden")
    );
    // Discovery ran once per sign-in; the second reused the AS metadata and registration.
    let registrations = t
        .lines()
        .iter()
        .filter(|l| l.ends_with("/register"))
        .count();
    assert_eq!(registrations, 1);
}

#[test]
fn sign_ins_without_a_success_are_limited() {
    let world = standard();
    let mut cfg = config();
    cfg.max_attempts = 2;
    let mut flow = Authorizer::new(cfg, &SEED).expect("flow");
    let mut t = Transcript::default();
    let scopes = ["a", "a b", "a b c"];
    let mut results = Vec::new();
    for (i, scope) in scopes.iter().enumerate() {
        let status = if i == 0 { 401 } else { 403 };
        let www = format!(r#"Bearer error="insufficient_scope", scope="{scope}""#);
        let r = flow
            .handle_challenge(status, Some(&www), 1_000)
            .map_err(|e| e.kind().as_str());
        results.push(r);
        drive(&mut flow, &world, 1_000, &mut t);
    }
    assert_eq!(results, vec![Ok(()), Ok(()), Err("auth_too_many_attempts")]);
    let browsers = t
        .lines()
        .iter()
        .filter(|l| l.starts_with("BROWSER"))
        .count();
    assert_eq!(browsers, 2);
}

#[test]
fn a_401_refreshes_first_then_signs_in_when_the_refresh_token_is_refused() {
    let world = standard();
    let (mut flow, mut t) = sign_in(config(), &world, None);
    flow.note_success();
    let refreshed =
        world
            .clone()
            .route("POST", &format!("{AS}/token"), 200, token("access-2", None));
    flow.handle_challenge(401, Some(r#"Bearer error="invalid_token""#), 1_000)
        .expect("refresh");
    drive(&mut flow, &refreshed, 5_000, &mut t);
    let form = t.form(&format!("{AS}/token"));
    assert_eq!(param(&form, "grant_type").as_deref(), Some("refresh_token"));
    assert_eq!(param(&form, "refresh_token").as_deref(), Some("refresh-1"));
    assert_eq!(param(&form, "resource").as_deref(), Some(MCP));
    assert!(matches!(
        t.events.last(),
        Some(AuthEvent::SignedIn {
            refreshed: true,
            ..
        })
    ));
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-2"));
    assert_eq!(
        flow.state()
            .tokens
            .as_ref()
            .and_then(|t| t.refresh_token.as_deref()),
        Some("refresh-1"),
        "a refresh answer without a new refresh token keeps the old one"
    );
    // Refused refresh token: a full sign-in follows without another challenge.
    flow.note_success();
    let before = t.requests.len();
    let refused = world.clone().route(
        "POST",
        &format!("{AS}/token"),
        400,
        serde_json::json!({"error": "invalid_grant"}),
    );
    flow.handle_challenge(401, None, 1_000).expect("refresh");
    // Answer the refresh with 400, then let the new sign-in's code exchange succeed.
    let Some(AuthAction::Fetch(request)) = flow.poll_action() else {
        panic!("refresh request")
    };
    assert_eq!(request.url, format!("{AS}/token"));
    let (status, body) = refused.routes[&format!("POST {AS}/token")].clone();
    flow.handle_response(request.id, status, body.as_bytes(), 6_000);
    drive(&mut flow, &world, 6_000, &mut t);
    assert!(t.requests[before..]
        .iter()
        .any(|r| r.line.starts_with("BROWSER")));
    assert!(signed_in(&t));
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-1"));
}

#[test]
fn refresh_is_due_before_expiry_on_the_drivers_clock() {
    let (flow, _) = sign_in(config(), &standard(), None);
    // Issued at 1 000 ms with expires_in 3600 s.
    assert!(!flow.needs_refresh(1_000, 60_000));
    assert!(!flow.needs_refresh(3_541_000 - 1, 60_000));
    assert!(flow.needs_refresh(3_541_000, 60_000));
}

#[test]
fn a_new_authorization_server_drops_what_the_old_one_issued() {
    let as2 = "http://127.0.0.1:5001";
    let world = standard();
    let (mut flow, mut t) = sign_in(config(), &world, None);
    flow.note_success();
    let migrated = World::default()
        .route(
            "GET",
            &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
            200,
            prm(MCP, &[as2], None),
        )
        .route(
            "GET",
            &format!("{as2}/.well-known/oauth-authorization-server"),
            200,
            asm(as2, serde_json::json!({})),
        )
        .route(
            "POST",
            &format!("{as2}/register"),
            201,
            serde_json::json!({"client_id": "client-at-as2"}),
        )
        .route(
            "POST",
            &format!("{as2}/token"),
            200,
            token("access-as2", None),
        )
        // The old server still refreshes happily: its tokens are no good for the resource.
        .route("POST", &format!("{AS}/token"), 200, token("stale", None));
    flow.handle_challenge(401, None, 1_000).expect("refresh");
    drive(&mut flow, &migrated, 2_000, &mut t);
    flow.handle_challenge(401, None, 1_000)
        .expect("sign in again");
    drive(&mut flow, &migrated, 3_000, &mut t);
    assert!(t.lines().contains(&format!("POST {as2}/register")));
    assert_eq!(
        param(&t.browser(), "client_id").as_deref(),
        Some("client-at-as2")
    );
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-as2"));
    assert_eq!(
        flow.state()
            .server_metadata
            .as_ref()
            .map(|m| m.issuer.as_str()),
        Some(as2)
    );
}

#[test]
fn sign_out_revokes_where_supported() {
    let world = standard()
        .route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(
                AS,
                serde_json::json!({"revocation_endpoint": format!("{AS}/revoke")}),
            ),
        )
        .route("POST", &format!("{AS}/revoke"), 200, serde_json::json!({}));
    let (mut flow, mut t) = sign_in(config(), &world, None);
    flow.sign_out(2_000);
    drive(&mut flow, &world, 2_000, &mut t);
    let form = t.form(&format!("{AS}/revoke"));
    assert_eq!(param(&form, "token").as_deref(), Some("refresh-1"));
    assert_eq!(
        param(&form, "token_type_hint").as_deref(),
        Some("refresh_token")
    );
    assert_eq!(t.events.last(), Some(&AuthEvent::SignedOut));
    assert_eq!(flow.authorization(), None);
    // Without a revocation endpoint, signing out is immediate.
    let (mut flow, mut t) = sign_in(config(), &standard(), None);
    let before = t.requests.len();
    flow.sign_out(2_000);
    drive(&mut flow, &standard(), 2_000, &mut t);
    assert_eq!(t.requests.len(), before);
    assert_eq!(t.events.last(), Some(&AuthEvent::SignedOut));
}

#[test]
fn persisted_state_resumes_without_discovery() {
    let world = standard();
    let (flow, _) = sign_in(config(), &world, None);
    let saved: AuthState =
        serde_json::from_str(&serde_json::to_string(flow.state()).expect("ser")).expect("de");
    let mut resumed = Authorizer::with_state(config(), saved, &[9; 32]).expect("flow");
    assert_eq!(resumed.authorization().as_deref(), Some("Bearer access-1"));
    let mut t = Transcript::default();
    resumed.handle_challenge(401, None, 1_000).expect("refresh");
    drive(&mut resumed, &world, 2_000, &mut t);
    assert_eq!(t.lines(), vec![format!("POST {AS}/token")]);
}

#[test]
fn secrets_stay_out_of_texts_and_debug_output() {
    let mut cfg = config();
    cfg.client = Some(ClientIdentity::new(
        "id",
        Some("client-secret-value".into()),
    ));
    let world = standard()
        .route("GET", &format!("{AS}/.well-known/oauth-authorization-server"), 200, asm(AS, serde_json::json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]})))
        .route("POST", &format!("{AS}/token"), 200, token("access-token-value", Some("refresh-token-value")));
    let (mut flow, mut t) = sign_in(cfg, &world, None);
    let verifier = param(&t.form(&format!("{AS}/token")), "code_verifier").expect("verifier");
    let failing = world.clone().route(
        "POST",
        &format!("{AS}/token"),
        500,
        serde_json::json!({"error": "server_error"}),
    );
    flow.note_success();
    flow.handle_challenge(401, None, 1_000).expect("refresh");
    drive(&mut flow, &failing, 2_000, &mut t);
    let texts = format!(
        "{:?} {:?} {}",
        flow,
        t.requests
            .iter()
            .map(|r| r.line.clone())
            .collect::<Vec<_>>(),
        t.events
            .iter()
            .map(|e| match e {
                AuthEvent::Failed(e) => e.to_string(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(
        matches!(t.events.last(), Some(AuthEvent::Failed(_))),
        "{:?}",
        t.events
    );
    for secret in [
        "client-secret-value",
        "access-token-value",
        "refresh-token-value",
        "the-code",
        &verifier,
    ] {
        assert!(!texts.contains(secret), "{secret} leaked into {texts}");
    }
}

#[test]
fn a_challenge_while_busy_is_refused_and_stale_answers_are_ignored() {
    let mut flow = Authorizer::new(config(), &SEED).expect("flow");
    flow.handle_challenge(401, None, 1_000).expect("start");
    assert_eq!(
        flow.handle_challenge(401, None, 1_000)
            .map_err(|e| e.kind().as_str()),
        Err("auth_state")
    );
    let Some(AuthAction::Fetch(first)) = flow.poll_action() else {
        panic!("fetch")
    };
    flow.handle_response(first.id + 100, 200, b"{}", 0);
    assert!(
        flow.poll_action().is_none(),
        "an unknown exchange changes nothing"
    );
    flow.handle_fetch_error(first.id, "connection refused");
    let Some(AuthAction::Fetch(second)) = flow.poll_action() else {
        panic!("next URL")
    };
    assert_eq!(
        second.url,
        format!("{RS}/.well-known/oauth-protected-resource")
    );
    assert!(
        Authorizer::new(config(), &[1; 8]).is_err(),
        "a short seed is refused"
    );
}

#[test]
fn the_session_carries_the_sign_in_authorization_instead_of_a_configured_one() {
    use relay_core::client::{Action, Operation, ServerConfig, Session, SessionConfig};
    let mut server = ServerConfig::new("s", "s", MCP);
    server.headers = vec![
        ("authorization".into(), "Bearer configured".into()),
        ("X-Tenant".into(), "t1".into()),
    ];
    let headers_of = |session: &mut Session| -> Vec<(String, String)> {
        match session.poll_action() {
            Some(Action::Send(request)) => request.headers,
            other => panic!("expected a request, got {other:?}"),
        }
    };
    let authorizations = |headers: &[(String, String)]| -> Vec<String> {
        headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| v.clone())
            .collect()
    };
    for (signed_in, expected) in [
        (Some("Bearer from-sign-in"), "Bearer from-sign-in"),
        (None, "Bearer configured"),
    ] {
        let mut session = Session::new(SessionConfig::new(server.clone()));
        session.set_authorization(signed_in.map(str::to_owned));
        session.submit(Operation::Ping, 0);
        let headers = headers_of(&mut session);
        assert_eq!(authorizations(&headers), vec![expected.to_owned()]);
        assert!(headers.iter().any(|(k, v)| k == "X-Tenant" && v == "t1"));
    }
}

#[test]
fn private_key_jwt_assertions_are_signed_by_the_driver() {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    let world = standard().route(
        "GET",
        &format!("{AS}/.well-known/oauth-authorization-server"),
        200,
        asm(
            AS,
            serde_json::json!({
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            }),
        ),
    );
    let mut client = ClientIdentity::new("jwt-client", None);
    client.assertion_alg = Some("ES256".into());
    let mut cfg = config();
    cfg.client = Some(client);
    let mut flow = Authorizer::new(cfg, &SEED).expect("flow");
    let mut t = Transcript::default();
    flow.handle_challenge(401, None, 1_700_000_000_000)
        .expect("challenge");
    drive(&mut flow, &world, 1_700_000_000_000, &mut t);
    assert_eq!(
        t.lines(),
        vec![
            format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
            format!("GET {AS}/.well-known/oauth-authorization-server"),
            "SIGN ES256".to_owned(),
            format!("POST {AS}/token"),
        ]
    );
    let signing_input = t.requests[2].body.clone().expect("signing input");
    let form = t.form(&format!("{AS}/token"));
    assert_eq!(
        param(&form, "grant_type").as_deref(),
        Some("client_credentials")
    );
    assert_eq!(
        param(&form, "client_assertion_type").as_deref(),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    assert_eq!(
        param(&form, "client_assertion"),
        Some(format!("{signing_input}.c2lnbmF0dXJl"))
    );
    assert_eq!(t.header(&format!("{AS}/token"), "authorization"), None);
    let parts: Vec<&str> = signing_input.split('.').collect();
    let decode = |part: &str| -> serde_json::Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("json")
    };
    assert_eq!(
        decode(parts[0]),
        serde_json::json!({"alg": "ES256", "typ": "JWT"})
    );
    let claims = decode(parts[1]);
    assert_eq!(claims["iss"], "jwt-client");
    assert_eq!(claims["sub"], "jwt-client");
    assert_eq!(claims["aud"], AS);
    assert_eq!(claims["iat"], 1_700_000_000);
    assert_eq!(claims["exp"], 1_700_000_300);
    assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 32));
    assert!(signed_in(&t));
}

#[test]
fn enterprise_managed_authorization_exchanges_the_id_token_then_presents_the_grant() {
    use relay_core::auth::EnterpriseIdentity;
    const IDP: &str = "http://127.0.0.1:7000";
    let world = standard()
        .route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(
                AS,
                serde_json::json!({
                    "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                }),
            ),
        )
        .route(
            "POST",
            &format!("{IDP}/token"),
            200,
            serde_json::json!({
                "access_token": "the-id-jag",
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }),
        );
    let mut cfg = config();
    cfg.client = Some(ClientIdentity::new("mcp-client", Some("mcp-secret".into())));
    cfg.enterprise = Some(EnterpriseIdentity::new(
        format!("{IDP}/token"),
        "idp-client",
        "the-id-token",
    ));
    let (flow, t) = sign_in(cfg.clone(), &world, Some(r#"Bearer scope="docs:read""#));
    assert_eq!(
        t.lines(),
        vec![
            format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
            format!("GET {AS}/.well-known/oauth-authorization-server"),
            format!("POST {IDP}/token"),
            format!("POST {AS}/token"),
        ]
    );
    let exchange = t.form(&format!("{IDP}/token"));
    for (name, value) in [
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag",
        ),
        ("subject_token", "the-id-token"),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token",
        ),
        ("audience", AS),
        ("resource", MCP),
        ("client_id", "idp-client"),
        ("scope", "docs:read"),
    ] {
        assert_eq!(param(&exchange, name).as_deref(), Some(value), "{name}");
    }
    let grant = t.form(&format!("{AS}/token"));
    assert_eq!(
        param(&grant, "grant_type").as_deref(),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    assert_eq!(param(&grant, "assertion").as_deref(), Some("the-id-jag"));
    assert!(t
        .header(&format!("{AS}/token"), "authorization")
        .is_some_and(|h| h.starts_with("Basic ")));
    assert!(signed_in(&t));
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-1"));
    assert!(!format!("{cfg:?}").contains("the-id-token"));
    // An identity provider that does not answer with a grant ends the attempt.
    let refused = world.route(
        "POST",
        &format!("{IDP}/token"),
        400,
        serde_json::json!({"error": "invalid_grant"}),
    );
    let (_, t) = sign_in(cfg, &refused, None);
    assert_eq!(failure(&t).kind(), "auth_endpoint");
}
