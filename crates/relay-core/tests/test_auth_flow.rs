//! Transcript tests of the sans-IO sign-in flow (`relay_core::auth::Authorizer`): each case
//! scripts the servers' answers by URL, drives the flow to an outcome (the browser step
//! answered like an authorization server that redirects at once), and checks the requests it
//! made, in order, and the outcome.

use std::collections::BTreeMap;

use relay_core::auth::encode::{form_decode, query_params};
use relay_core::auth::pkce::s256_challenge;
use relay_core::auth::{
    AuthAction, AuthConfig, AuthError, AuthEvent, AuthState, Authorizer, ClientIdentity,
};

const MCP: &str = "http://127.0.0.1:4000/mcp";
const RS: &str = "http://127.0.0.1:4000";
const AS: &str = "http://127.0.0.1:5000";
const REDIRECT: &str = "http://127.0.0.1:8976/callback";
const SEED: [u8; 32] = [7; 32];

/// One scripted answer: status and JSON body.
type Answer = (u16, String);

#[derive(Default, Clone)]
struct World {
    /// `METHOD url` → answer; anything not here is a 404.
    routes: BTreeMap<String, Answer>,
    /// What the authorization endpoint's redirect adds besides `code` and `state`.
    redirect_extra: Vec<(String, String)>,
    /// Replace the redirect's `state` (a forged or stale redirect).
    forged_state: bool,
}

impl World {
    fn route(mut self, method: &str, url: &str, status: u16, body: serde_json::Value) -> Self {
        self.routes
            .insert(format!("{method} {url}"), (status, body.to_string()));
        self
    }
}

#[derive(Debug, Clone)]
struct Recorded {
    line: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

#[derive(Debug, Default)]
struct Transcript {
    requests: Vec<Recorded>,
    events: Vec<AuthEvent>,
    redirect_errors: Vec<AuthError>,
}

impl Transcript {
    fn lines(&self) -> Vec<String> {
        self.requests.iter().map(|r| r.line.clone()).collect()
    }

    fn browser(&self) -> Vec<(String, String)> {
        let r = self
            .requests
            .iter()
            .rfind(|r| r.line.starts_with("BROWSER"))
            .expect("a browser step");
        query_params(&r.line["BROWSER ".len()..])
    }

    fn form(&self, url: &str) -> Vec<(String, String)> {
        let r = self
            .requests
            .iter()
            .rfind(|r| r.line == format!("POST {url}"))
            .expect("the request");
        form_decode(r.body.as_deref().unwrap_or_default())
    }

    fn header(&self, url: &str, name: &str) -> Option<String> {
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

fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// Runs the flow's actions against `world` until it is idle, recording everything.
fn drive(flow: &mut Authorizer, world: &World, now_ms: u64, t: &mut Transcript) {
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
                if let Err(e) = flow.handle_redirect(&redirect) {
                    t.redirect_errors.push(e);
                }
            }
            other => panic!("unexpected action {other:?}"),
        }
    }
    while let Some(event) = flow.poll_event() {
        t.events.push(event);
    }
}

fn prm(resource: &str, servers: &[&str], scopes: Option<&[&str]>) -> serde_json::Value {
    let mut v = serde_json::json!({ "resource": resource, "authorization_servers": servers });
    if let Some(scopes) = scopes {
        v["scopes_supported"] = serde_json::json!(scopes);
    }
    v
}

fn asm(issuer: &str, extra: serde_json::Value) -> serde_json::Value {
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

fn token(access: &str, refresh: Option<&str>) -> serde_json::Value {
    let mut v =
        serde_json::json!({ "access_token": access, "token_type": "Bearer", "expires_in": 3600 });
    if let Some(r) = refresh {
        v["refresh_token"] = serde_json::json!(r);
    }
    v
}

fn registered(secret: Option<&str>, method: Option<&str>) -> serde_json::Value {
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
fn standard() -> World {
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

fn config() -> AuthConfig {
    AuthConfig::new(MCP, REDIRECT)
}

fn sign_in(cfg: AuthConfig, world: &World, www: Option<&str>) -> (Authorizer, Transcript) {
    let mut flow = Authorizer::new(cfg, &SEED).expect("flow");
    let mut t = Transcript::default();
    flow.handle_challenge(401, www).expect("challenge accepted");
    drive(&mut flow, world, 1_000, &mut t);
    (flow, t)
}

fn signed_in(t: &Transcript) -> bool {
    matches!(t.events.last(), Some(AuthEvent::SignedIn { .. }))
}

fn failure(t: &Transcript) -> &AuthError {
    match t.events.last() {
        Some(AuthEvent::Failed(e)) => e,
        other => panic!(
            "expected a failure, got {other:?}; requests {:?}",
            t.lines()
        ),
    }
}

#[test]
fn discovery_variants_reach_the_token_endpoint() {
    struct Case {
        name: &'static str,
        world: World,
        www: Option<String>,
        expected: Vec<String>,
    }
    let tenant = format!("{AS}/tenant1");
    let cases = vec![
        Case {
            name: "PRM named in the challenge, AS at the root",
            world: standard().route(
                "GET",
                &format!("{RS}/custom/prm.json"),
                200,
                prm(MCP, &[AS], None),
            ),
            www: Some(format!(
                r#"Bearer resource_metadata="{RS}/custom/prm.json""#
            )),
            expected: vec![
                format!("GET {RS}/custom/prm.json"),
                format!("GET {AS}/.well-known/oauth-authorization-server"),
                format!("POST {AS}/register"),
                "BROWSER".into(),
                format!("POST {AS}/token"),
            ],
        },
        Case {
            name: "path-based PRM, OpenID configuration after OAuth metadata is missing",
            world: {
                let mut w = standard();
                w.routes
                    .remove(&format!("GET {AS}/.well-known/oauth-authorization-server"));
                w.route(
                    "GET",
                    &format!("{AS}/.well-known/openid-configuration"),
                    200,
                    asm(AS, serde_json::json!({})),
                )
            },
            www: None,
            expected: vec![
                format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {AS}/.well-known/oauth-authorization-server"),
                format!("GET {AS}/.well-known/openid-configuration"),
                format!("POST {AS}/register"),
                "BROWSER".into(),
                format!("POST {AS}/token"),
            ],
        },
        Case {
            name: "root PRM covering /mcp, issuer with a path (OAuth path insertion)",
            world: World::default()
                .route(
                    "GET",
                    &format!("{RS}/.well-known/oauth-protected-resource"),
                    200,
                    prm(RS, &[&tenant], None),
                )
                .route(
                    "GET",
                    &format!("{AS}/.well-known/oauth-authorization-server/tenant1"),
                    200,
                    asm(&tenant, serde_json::json!({})),
                )
                .route(
                    "POST",
                    &format!("{tenant}/register"),
                    201,
                    registered(None, None),
                )
                .route("POST", &format!("{tenant}/token"), 200, token("a", None)),
            www: Some("Bearer".into()),
            expected: vec![
                format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {RS}/.well-known/oauth-protected-resource"),
                format!("GET {AS}/.well-known/oauth-authorization-server/tenant1"),
                format!("POST {tenant}/register"),
                "BROWSER".into(),
                format!("POST {tenant}/token"),
            ],
        },
        Case {
            name: "issuer with a path, OpenID path appending last",
            world: World::default()
                .route(
                    "GET",
                    &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
                    200,
                    prm(MCP, &[&tenant], None),
                )
                .route(
                    "GET",
                    &format!("{tenant}/.well-known/openid-configuration"),
                    200,
                    asm(&tenant, serde_json::json!({})),
                )
                .route(
                    "POST",
                    &format!("{tenant}/register"),
                    201,
                    registered(None, None),
                )
                .route("POST", &format!("{tenant}/token"), 200, token("a", None)),
            www: None,
            expected: vec![
                format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {AS}/.well-known/oauth-authorization-server/tenant1"),
                format!("GET {AS}/.well-known/openid-configuration/tenant1"),
                format!("GET {tenant}/.well-known/openid-configuration"),
                format!("POST {tenant}/register"),
                "BROWSER".into(),
                format!("POST {tenant}/token"),
            ],
        },
        Case {
            name: "2025-03-26: no PRM, metadata at the server's origin whose issuer differs",
            world: World::default()
                .route(
                    "GET",
                    &format!("{RS}/.well-known/oauth-authorization-server"),
                    200,
                    asm(&format!("{RS}/oauth"), serde_json::json!({})),
                )
                .route(
                    "POST",
                    &format!("{RS}/oauth/register"),
                    201,
                    registered(None, None),
                )
                .route("POST", &format!("{RS}/oauth/token"), 200, token("a", None)),
            www: Some("Bearer".into()),
            expected: vec![
                format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {RS}/.well-known/oauth-protected-resource"),
                format!("GET {RS}/.well-known/oauth-authorization-server"),
                format!("POST {RS}/oauth/register"),
                "BROWSER".into(),
                format!("POST {RS}/oauth/token"),
            ],
        },
        Case {
            name: "2025-03-26: no metadata at all, default endpoints",
            world: World::default()
                .route(
                    "POST",
                    &format!("{RS}/register"),
                    201,
                    registered(None, None),
                )
                .route("POST", &format!("{RS}/token"), 200, token("a", None)),
            www: None,
            expected: vec![
                format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {RS}/.well-known/oauth-protected-resource"),
                format!("GET {RS}/.well-known/oauth-authorization-server"),
                format!("GET {RS}/.well-known/openid-configuration"),
                format!("POST {RS}/register"),
                "BROWSER".into(),
                format!("POST {RS}/token"),
            ],
        },
    ];
    for case in cases {
        let (_, t) = sign_in(config(), &case.world, case.www.as_deref());
        let lines: Vec<String> = t
            .lines()
            .into_iter()
            .map(|l| {
                if l.starts_with("BROWSER") {
                    "BROWSER".into()
                } else {
                    l
                }
            })
            .collect();
        assert_eq!(lines, case.expected, "{}", case.name);
        assert!(signed_in(&t), "{}: {:?}", case.name, t.events);
    }
}

#[test]
fn authorization_and_token_requests_carry_pkce_resource_and_state() {
    let (flow, t) = sign_in(config(), &standard(), None);
    let auth = t.browser();
    assert_eq!(param(&auth, "response_type").as_deref(), Some("code"));
    assert_eq!(param(&auth, "client_id").as_deref(), Some("dcr-client"));
    assert_eq!(param(&auth, "redirect_uri").as_deref(), Some(REDIRECT));
    assert_eq!(
        param(&auth, "code_challenge_method").as_deref(),
        Some("S256")
    );
    assert_eq!(param(&auth, "resource").as_deref(), Some(MCP));
    assert_eq!(param(&auth, "scope"), None, "no scope anywhere: omitted");
    let form = t.form(&format!("{AS}/token"));
    assert_eq!(
        param(&form, "grant_type").as_deref(),
        Some("authorization_code")
    );
    assert_eq!(param(&form, "code").as_deref(), Some("the-code"));
    assert_eq!(param(&form, "resource").as_deref(), Some(MCP));
    assert_eq!(param(&form, "client_id").as_deref(), Some("dcr-client"));
    let verifier = param(&form, "code_verifier").expect("verifier");
    assert!((43..=128).contains(&verifier.len()));
    assert_eq!(
        Some(s256_challenge(&verifier)),
        param(&auth, "code_challenge")
    );
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-1"));
    // DCR asked for a public client with refresh tokens.
    let reg = t
        .requests
        .iter()
        .find(|r| r.line == format!("POST {AS}/register"))
        .and_then(|r| r.body.clone())
        .expect("registration");
    let reg: serde_json::Value = serde_json::from_str(&reg).expect("json");
    assert_eq!(reg["token_endpoint_auth_method"], "none");
    assert_eq!(reg["redirect_uris"], serde_json::json!([REDIRECT]));
    assert!(reg["grant_types"]
        .as_array()
        .is_some_and(|g| g.contains(&"refresh_token".into())));
}

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
fn scope_choice() {
    struct Case {
        name: &'static str,
        www: Option<&'static str>,
        prm_scopes: Option<&'static [&'static str]>,
        as_scopes: Option<&'static [&'static str]>,
        offline_access: bool,
        expected: Option<&'static str>,
    }
    let cases = [
        Case {
            name: "challenge scope first",
            www: Some(r#"Bearer scope="mcp:basic""#),
            prm_scopes: Some(&["a", "b"]),
            as_scopes: None,
            offline_access: true,
            expected: Some("mcp:basic"),
        },
        Case {
            name: "else all of scopes_supported",
            www: Some("Bearer"),
            prm_scopes: Some(&["mcp:basic", "mcp:read", "mcp:write"]),
            as_scopes: None,
            offline_access: true,
            expected: Some("mcp:basic mcp:read mcp:write"),
        },
        Case {
            name: "else omitted",
            www: None,
            prm_scopes: None,
            as_scopes: Some(&["x", "offline_access"]),
            offline_access: true,
            expected: None,
        },
        Case {
            name: "offline_access where the AS lists it",
            www: None,
            prm_scopes: Some(&["mcp:basic"]),
            as_scopes: Some(&["mcp:basic", "offline_access"]),
            offline_access: true,
            expected: Some("mcp:basic offline_access"),
        },
        Case {
            name: "never where it does not",
            www: None,
            prm_scopes: Some(&["mcp:basic", "mcp:read"]),
            as_scopes: Some(&["mcp:basic", "mcp:read"]),
            offline_access: true,
            expected: Some("mcp:basic mcp:read"),
        },
        Case {
            name: "nor when not wanted",
            www: None,
            prm_scopes: Some(&["mcp:basic"]),
            as_scopes: Some(&["mcp:basic", "offline_access"]),
            offline_access: false,
            expected: Some("mcp:basic"),
        },
    ];
    for case in cases {
        let mut world = standard().route(
            "GET",
            &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
            200,
            prm(MCP, &[AS], case.prm_scopes),
        );
        if let Some(scopes) = case.as_scopes {
            world = world.route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm(AS, serde_json::json!({ "scopes_supported": scopes })),
            );
        }
        let mut cfg = config();
        cfg.offline_access = case.offline_access;
        let (_, t) = sign_in(cfg, &world, case.www);
        assert_eq!(
            param(&t.browser(), "scope").as_deref(),
            case.expected,
            "{}",
            case.name
        );
        assert!(signed_in(&t), "{}", case.name);
    }
}

#[test]
fn client_identity_and_token_endpoint_authentication() {
    struct Case {
        name: &'static str,
        cfg: AuthConfig,
        as_extra: serde_json::Value,
        registration: Option<serde_json::Value>,
        expect_register: bool,
        client_id: &'static str,
        basic: Option<&'static str>,
        post_secret: Option<&'static str>,
    }
    let mut pre = config();
    pre.client = Some(ClientIdentity::new(
        "pre-registered-client",
        Some("pre-registered-secret".into()),
    ));
    let mut cimd = config();
    cimd.client_metadata_url = Some("https://client.example/metadata.json".into());
    let cases = vec![
        Case {
            name: "pre-registered, basic",
            cfg: pre,
            as_extra: serde_json::json!({"registration_endpoint": null, "token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
            registration: None,
            expect_register: false,
            client_id: "pre-registered-client",
            // base64("pre-registered-client:pre-registered-secret")
            basic: Some("Basic cHJlLXJlZ2lzdGVyZWQtY2xpZW50OnByZS1yZWdpc3RlcmVkLXNlY3JldA=="),
            post_secret: None,
        },
        Case {
            name: "CIMD where supported",
            cfg: cimd.clone(),
            as_extra: serde_json::json!({"client_id_metadata_document_supported": true}),
            registration: None,
            expect_register: false,
            client_id: "https://client.example/metadata.json",
            basic: None,
            post_secret: None,
        },
        Case {
            name: "CIMD URL but not supported: DCR",
            cfg: cimd,
            as_extra: serde_json::json!({}),
            registration: Some(registered(None, None)),
            expect_register: true,
            client_id: "dcr-client",
            basic: None,
            post_secret: None,
        },
        Case {
            name: "DCR says client_secret_basic",
            cfg: config(),
            as_extra: serde_json::json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
            registration: Some(registered(Some("s3cret"), Some("client_secret_basic"))),
            expect_register: true,
            client_id: "dcr-client",
            basic: Some("Basic ZGNyLWNsaWVudDpzM2NyZXQ="),
            post_secret: None,
        },
        Case {
            name: "DCR says client_secret_post",
            cfg: config(),
            as_extra: serde_json::json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]}),
            registration: Some(registered(Some("s3cret"), Some("client_secret_post"))),
            expect_register: true,
            client_id: "dcr-client",
            basic: None,
            post_secret: Some("s3cret"),
        },
        Case {
            name: "secret issued but only none supported",
            cfg: config(),
            as_extra: serde_json::json!({}),
            registration: Some(registered(Some("s3cret"), None)),
            expect_register: true,
            client_id: "dcr-client",
            basic: None,
            post_secret: None,
        },
    ];
    for case in cases {
        let mut world = standard().route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(AS, case.as_extra.clone()),
        );
        if let Some(reg) = &case.registration {
            world = world.route("POST", &format!("{AS}/register"), 201, reg.clone());
        }
        let (_, t) = sign_in(case.cfg, &world, None);
        assert!(signed_in(&t), "{}: {:?}", case.name, t.events);
        let registered = t.lines().contains(&format!("POST {AS}/register"));
        assert_eq!(registered, case.expect_register, "{}", case.name);
        assert_eq!(
            param(&t.browser(), "client_id").as_deref(),
            Some(case.client_id),
            "{}",
            case.name
        );
        let token = format!("{AS}/token");
        assert_eq!(
            t.header(&token, "authorization").as_deref(),
            case.basic,
            "{}",
            case.name
        );
        let form = t.form(&token);
        assert_eq!(
            param(&form, "client_secret").as_deref(),
            case.post_secret,
            "{}",
            case.name
        );
        if case.basic.is_none() {
            assert_eq!(
                param(&form, "client_id").as_deref(),
                Some(case.client_id),
                "{}",
                case.name
            );
        }
    }
}

#[test]
fn refusals() {
    struct Case {
        name: &'static str,
        world: World,
        kind: &'static str,
        browser_opened: bool,
    }
    let cases = vec![
        Case {
            name: "PRM for another origin",
            world: standard().route(
                "GET",
                &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
                200,
                prm("https://evil.example.com/mcp", &[AS], None),
            ),
            kind: "auth_resource_mismatch",
            browser_opened: false,
        },
        Case {
            name: "PRM for a sibling path",
            world: standard().route(
                "GET",
                &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
                200,
                prm(&format!("{RS}/other"), &[AS], None),
            ),
            kind: "auth_resource_mismatch",
            browser_opened: false,
        },
        Case {
            name: "AS metadata for another issuer",
            world: standard().route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm("http://127.0.0.1:6000", serde_json::json!({})),
            ),
            kind: "auth_issuer_mismatch",
            browser_opened: false,
        },
        Case {
            name: "no PKCE advertised",
            world: standard().route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm(
                    AS,
                    serde_json::json!({"code_challenge_methods_supported": null}),
                ),
            ),
            kind: "auth_pkce_unsupported",
            browser_opened: false,
        },
        Case {
            name: "plain http to a remote authorization server",
            world: standard().route(
                "GET",
                &format!("{RS}/.well-known/oauth-protected-resource/mcp"),
                200,
                prm(MCP, &["http://auth.example.com"], None),
            ),
            kind: "auth_bad_url",
            browser_opened: false,
        },
        Case {
            name: "no registration and no configured client",
            world: standard().route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm(AS, serde_json::json!({"registration_endpoint": null})),
            ),
            kind: "auth_no_client",
            browser_opened: false,
        },
        Case {
            name: "PRM found but no AS metadata",
            world: {
                let mut w = standard();
                w.routes
                    .remove(&format!("GET {AS}/.well-known/oauth-authorization-server"));
                w
            },
            kind: "auth_discovery",
            browser_opened: false,
        },
        Case {
            name: "iss in the redirect names another server",
            world: World {
                redirect_extra: vec![("iss".into(), "http://127.0.0.1:6000".into())],
                ..standard()
            },
            kind: "auth_issuer_mismatch",
            browser_opened: true,
        },
        Case {
            name: "iss promised and missing",
            world: standard().route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm(
                    AS,
                    serde_json::json!({"authorization_response_iss_parameter_supported": true}),
                ),
            ),
            kind: "auth_bad_redirect",
            browser_opened: true,
        },
        Case {
            name: "the user denied",
            world: World {
                redirect_extra: vec![("error".into(), "access_denied".into())],
                ..standard()
            },
            kind: "auth_denied",
            browser_opened: true,
        },
        Case {
            name: "token endpoint refuses",
            world: standard().route(
                "POST",
                &format!("{AS}/token"),
                400,
                serde_json::json!({"error": "invalid_grant", "error_description": "bad code"}),
            ),
            kind: "auth_endpoint",
            browser_opened: true,
        },
    ];
    for case in cases {
        let (flow, t) = sign_in(config(), &case.world, None);
        assert_eq!(
            failure(&t).kind(),
            case.kind,
            "{}: {}",
            case.name,
            failure(&t)
        );
        let opened = t.lines().iter().any(|l| l.starts_with("BROWSER"));
        assert_eq!(opened, case.browser_opened, "{}", case.name);
        assert_eq!(flow.authorization(), None, "{}", case.name);
        assert!(!flow.is_busy(), "{}", case.name);
    }
}

#[test]
fn iss_matching_the_issuer_is_accepted() {
    let world = World {
        redirect_extra: vec![("iss".into(), AS.into())],
        ..standard()
    };
    let (_, t) = sign_in(config(), &world, None);
    assert!(signed_in(&t), "{:?}", t.events);
}

#[test]
fn a_forged_state_is_refused_and_the_attempt_stays_open() {
    let world = World {
        forged_state: true,
        ..standard()
    };
    let (flow, t) = sign_in(config(), &world, None);
    assert_eq!(
        t.redirect_errors.first().map(AuthError::kind),
        Some("auth_bad_redirect")
    );
    assert!(t.events.is_empty(), "{:?}", t.events);
    assert!(flow.is_busy(), "still waiting for the real redirect");
    assert!(!t
        .lines()
        .iter()
        .any(|l| l.starts_with("POST") && l.ends_with("/token")));
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
    );
    assert_eq!(again.map_err(|e| e.kind()), Err("auth_too_many_attempts"));
    // A 403 that asks for nothing is not an authorization problem.
    assert_eq!(
        flow.handle_challenge(403, Some("Bearer"))
            .map_err(|e| e.kind()),
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
            .handle_challenge(status, Some(&www))
            .map_err(|e| e.kind());
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
    flow.handle_challenge(401, Some(r#"Bearer error="invalid_token""#))
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
    flow.handle_challenge(401, None).expect("refresh");
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
    flow.handle_challenge(401, None).expect("refresh");
    drive(&mut flow, &migrated, 2_000, &mut t);
    flow.handle_challenge(401, None).expect("sign in again");
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
    flow.sign_out();
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
    flow.sign_out();
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
    resumed.handle_challenge(401, None).expect("refresh");
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
    flow.handle_challenge(401, None).expect("refresh");
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
    flow.handle_challenge(401, None).expect("start");
    assert_eq!(
        flow.handle_challenge(401, None).map_err(|e| e.kind()),
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
fn client_credentials_where_the_server_offers_only_that_grant() {
    let world = standard().route(
        "GET",
        &format!("{AS}/.well-known/oauth-authorization-server"),
        200,
        asm(
            AS,
            serde_json::json!({
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            }),
        ),
    );
    let mut cfg = config();
    cfg.client = Some(ClientIdentity::new(
        "machine",
        Some("machine-secret".into()),
    ));
    let (flow, t) = sign_in(cfg, &world, Some(r#"Bearer scope="jobs:run""#));
    assert_eq!(
        t.lines(),
        vec![
            format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
            format!("GET {AS}/.well-known/oauth-authorization-server"),
            format!("POST {AS}/token"),
        ]
    );
    let form = t.form(&format!("{AS}/token"));
    assert_eq!(
        param(&form, "grant_type").as_deref(),
        Some("client_credentials")
    );
    assert_eq!(param(&form, "scope").as_deref(), Some("jobs:run"));
    assert_eq!(param(&form, "resource").as_deref(), Some(MCP));
    assert_eq!(
        t.header(&format!("{AS}/token"), "authorization").as_deref(),
        Some("Basic bWFjaGluZTptYWNoaW5lLXNlY3JldA==")
    );
    assert!(signed_in(&t));
    assert_eq!(flow.authorization().as_deref(), Some("Bearer access-1"));
    // A public client cannot use it: the authorization code flow is tried instead.
    let (_, t) = sign_in(config(), &world, None);
    assert!(t.lines().iter().any(|l| l.starts_with("BROWSER")));
}
