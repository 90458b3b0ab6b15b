//! Transcript tests of the sans-IO sign-in flow (`relay_core::auth::Authorizer`), first part:
//! discovery, the authorization request, scope choice, client identity and token endpoint
//! authentication, and every refusal. Each case scripts the servers' answers by URL
//! (`auth_harness`), drives the flow to an outcome, and checks the requests it made and the
//! outcome.

mod auth_harness;

use auth_harness::*;
use relay_core::auth::pkce::s256_challenge;
use relay_core::auth::{AuthConfig, ClientIdentity};

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
            // SEP-2468 / RFC 9207: compared as strings, no trailing-slash or case folding.
            name: "iss in the redirect with a trailing slash the issuer has not",
            world: World {
                redirect_extra: vec![("iss".into(), format!("{AS}/"))],
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
        t.redirect_errors.first().map(|e| e.kind().as_str()),
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

#[test]
fn sign_in_endpoints_stay_on_the_server_or_its_authorization_server() {
    let other = "http://127.0.0.1:6000";
    // (case, what the authorization server's metadata says besides the standard, refused)
    let cases = [
        (
            "token endpoint on another loopback port",
            serde_json::json!({"token_endpoint": format!("{other}/token")}),
            true,
        ),
        (
            "authorization endpoint on another host",
            serde_json::json!({"authorization_endpoint": "https://accounts.example.com/authorize"}),
            true,
        ),
        (
            "registration on another loopback port",
            serde_json::json!({"registration_endpoint": format!("{other}/register")}),
            true,
        ),
        (
            "revocation on another loopback port",
            serde_json::json!({"revocation_endpoint": format!("{other}/revoke")}),
            true,
        ),
        (
            "token endpoint on the MCP server's own origin",
            serde_json::json!({"token_endpoint": format!("{RS}/oauth/token")}),
            false,
        ),
        (
            "everything on the authorization server's origin",
            serde_json::json!({"revocation_endpoint": format!("{AS}/revoke")}),
            false,
        ),
    ];
    for (name, extra, refused) in cases {
        let world = standard()
            .route(
                "GET",
                &format!("{AS}/.well-known/oauth-authorization-server"),
                200,
                asm(AS, extra),
            )
            .route("POST", &format!("{RS}/oauth/token"), 200, token("a", None));
        let (flow, t) = sign_in(config(), &world, None);
        if refused {
            let error = failure(&t);
            assert_eq!(error.kind(), "auth_bad_url", "{name}: {error}");
            assert!(error.to_string().contains("origin"), "{name}: {error}");
            assert_eq!(flow.authorization(), None, "{name}");
            let elsewhere = t.lines().into_iter().find(|l| {
                l.starts_with("BROWSER") || l.contains(other) || l.contains("accounts.example")
            });
            assert_eq!(elsewhere, None, "{name}: {:?}", t.lines());
        } else {
            assert!(signed_in(&t), "{name}: {:?}", t.events);
        }
    }
}

#[test]
fn a_challenge_names_resource_metadata_on_the_servers_origin_only() {
    // (where the challenge points, refused)
    let cases = [
        (
            "http://127.0.0.1:6000/.well-known/oauth-protected-resource",
            true,
        ),
        ("https://metadata.example.com/prm", true),
        (
            "http://localhost:4000/.well-known/oauth-protected-resource",
            true,
        ),
        (
            "http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp",
            false,
        ),
    ];
    for (url, refused) in cases {
        let www = format!(r#"Bearer resource_metadata="{url}""#);
        let (_, t) = sign_in(config(), &standard(), Some(&www));
        if refused {
            assert_eq!(failure(&t).kind(), "auth_bad_url", "{url}");
            assert_eq!(t.lines(), Vec::<String>::new(), "{url}: nothing fetched");
        } else {
            assert!(signed_in(&t), "{url}: {:?}", t.events);
        }
    }
}
