//! The flow as data (`auth::input`): the shapes a driver outside Rust sends and receives
//! (relay-wasm's `AuthFlow` converts them and nothing more), table-driven.

use relay_core::auth::{
    AuthAction, AuthConfig, AuthError, AuthEvent, AuthInput, Authorizer, SignKey,
};
use serde_json::{json, Value};

const SEED: [u8; 32] = [7; 32];

#[test]
fn inputs_read_from_plain_data() {
    let cases = [
        (
            json!({"type": "challenge", "status": 401, "wwwAuthenticate": "Bearer"}),
            AuthInput::Challenge {
                status: 401,
                www_authenticate: Some("Bearer".into()),
            },
        ),
        (
            json!({"type": "challenge", "status": 403}),
            AuthInput::Challenge {
                status: 403,
                www_authenticate: None,
            },
        ),
        (
            json!({"type": "response", "id": 3, "status": 200, "body": "{}"}),
            AuthInput::Response {
                id: 3,
                status: 200,
                body: "{}".into(),
                dpop_nonce: None,
            },
        ),
        (
            json!({"type": "response", "id": 3, "status": 400, "body": "{}", "dpopNonce": "n"}),
            AuthInput::Response {
                id: 3,
                status: 400,
                body: "{}".into(),
                dpop_nonce: Some("n".into()),
            },
        ),
        (
            json!({"type": "fetchError", "id": 4, "message": "down"}),
            AuthInput::FetchError {
                id: 4,
                message: "down".into(),
            },
        ),
        (
            json!({"type": "redirect", "url": "https://a.example/cb?code=x"}),
            AuthInput::Redirect {
                url: "https://a.example/cb?code=x".into(),
            },
        ),
        (
            json!({"type": "browserError", "message": "closed"}),
            AuthInput::BrowserError {
                message: "closed".into(),
            },
        ),
        (
            json!({"type": "signature", "id": 9, "signature": "c2ln"}),
            AuthInput::Signature {
                id: 9,
                signature: "c2ln".into(),
            },
        ),
        (json!({"type": "refresh"}), AuthInput::Refresh),
        (json!({"type": "signOut"}), AuthInput::SignOut),
        (json!({"type": "success"}), AuthInput::Success),
    ];
    for (value, want) in cases {
        let got: AuthInput = serde_json::from_value(value.clone()).expect("input");
        assert_eq!(got, want, "{value}");
    }
    for bad in [
        json!({"type": "teleport"}),
        json!({"type": "response", "id": 1}),
    ] {
        assert!(
            serde_json::from_value::<AuthInput>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn configuration_reads_with_the_defaults_of_new() {
    let read = |v: Value| serde_json::from_value::<AuthConfig>(v);
    let plain = read(json!({"serverUrl": "https://m.example/mcp", "redirectUri": "https://r/"}))
        .expect("config");
    let new = AuthConfig::new("https://m.example/mcp", "https://r/");
    assert_eq!(format!("{plain:?}"), format!("{new:?}"));
    let full = read(json!({
        "serverUrl": "https://m.example/mcp", "redirectUri": "https://r/",
        "clientName": "Other", "offlineAccess": false, "maxAttempts": 5,
        "clientMetadataUrl": "https://c.example/client.json",
        "client": {"clientId": "id", "clientSecret": "s", "assertionAlg": "ES256"},
        "enterprise": {"idpTokenEndpoint": "https://idp/token", "idpClientId": "c", "idToken": "t"},
    }))
    .expect("config");
    assert_eq!(full.client_name, "Other");
    assert!(!full.offline_access);
    assert_eq!(full.max_attempts, 5);
    let client = full.client.expect("client");
    assert_eq!(
        (client.client_id.as_str(), client.client_secret.as_deref()),
        ("id", Some("s"))
    );
    assert_eq!(client.assertion_alg.as_deref(), Some("ES256"));
    assert_eq!(full.enterprise.expect("enterprise").idp_client_id, "c");
    assert!(read(json!({"serverUrl": "https://m.example/mcp"})).is_err());
}

#[test]
fn actions_and_events_serialise_as_plain_data() {
    let mut flow = Authorizer::new(
        AuthConfig::new("https://m.example/mcp", "https://r/"),
        &SEED,
    )
    .expect("flow");
    let challenge = json!({"type": "challenge", "status": 401});
    let input = serde_json::from_value(challenge).expect("input");
    flow.handle(input, 1_000).expect("challenge");
    let action = flow.poll_action().expect("a discovery request");
    let AuthAction::Fetch(request) = &action else {
        panic!("{action:?}")
    };
    let value = serde_json::to_value(&action).expect("action");
    assert_eq!(value["type"], "fetch");
    assert_eq!(value["id"], request.id);
    assert_eq!(value["method"], "GET");
    assert_eq!(value["url"], request.url.as_str());
    assert!(value["headers"].is_array());

    let browser = AuthAction::OpenBrowser {
        url: "https://a/".into(),
    };
    let cases = [
        (
            serde_json::to_value(&browser),
            json!({"type": "browser", "url": "https://a/"}),
        ),
        (
            serde_json::to_value(AuthAction::Sign {
                id: 2,
                alg: "ES256".into(),
                key: SignKey::Client,
                signing_input: "h.p".into(),
            }),
            json!({"type": "sign", "id": 2, "alg": "ES256", "key": "client", "signingInput": "h.p"}),
        ),
        (
            serde_json::to_value(AuthAction::Sign {
                id: 3,
                alg: "ES256".into(),
                key: SignKey::Dpop,
                signing_input: "h.p".into(),
            }),
            json!({"type": "sign", "id": 3, "alg": "ES256", "key": "dpop", "signingInput": "h.p"}),
        ),
        (
            serde_json::to_value(AuthEvent::SignedIn {
                scope: Some("read".into()),
                expires_at_ms: Some(5),
                refreshed: true,
            }),
            json!({"type": "signedIn", "scope": "read", "expiresAtMs": 5, "refreshed": true}),
        ),
        (
            serde_json::to_value(AuthEvent::SignedOut),
            json!({"type": "signedOut"}),
        ),
        (
            serde_json::to_value(AuthEvent::Failed(AuthError::Forbidden)),
            json!({"type": "failed", "error": {
                "kind": AuthError::Forbidden.kind(),
                "message": AuthError::Forbidden.to_string(),
            }}),
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got.expect("serialises"), want);
    }
}

#[test]
fn inputs_reach_the_flow() {
    let mut flow = Authorizer::new(
        AuthConfig::new("https://m.example/mcp", "https://r/"),
        &SEED,
    )
    .expect("flow");
    // Refused inputs answer with the flow's own errors.
    let refresh = flow.handle(AuthInput::Refresh, 0);
    assert!(
        matches!(refresh, Err(AuthError::InvalidState(_))),
        "{refresh:?}"
    );
    let forbidden = AuthInput::Challenge {
        status: 403,
        www_authenticate: None,
    };
    assert_eq!(flow.handle(forbidden, 0), Err(AuthError::Forbidden));
    // A failed discovery request is reported to the flow, which tries the next URL.
    flow.handle(
        AuthInput::Challenge {
            status: 401,
            www_authenticate: None,
        },
        0,
    )
    .expect("challenge");
    let Some(AuthAction::Fetch(first)) = flow.poll_action() else {
        panic!("no request")
    };
    let failed = AuthInput::FetchError {
        id: first.id,
        message: "down".into(),
    };
    flow.handle(failed, 0).expect("fetch error");
    let Some(AuthAction::Fetch(next)) = flow.poll_action() else {
        panic!("no next request")
    };
    assert_ne!(next.url, first.url);
    flow.handle(AuthInput::SignOut, 0).expect("sign out");
    assert_eq!(flow.poll_event(), Some(AuthEvent::SignedOut));
}
