//! Transcript tests of signing in as the application does it (`relay_core::app`, `signin`):
//! an attempt started from a server's refusal, its flow in the second module's work
//! (`relay_core::rare`, reached through JSON values), its actions carried out against a scripted world
//! through `App::auth_step` / `App::auth_input` until it ends; the token on the
//! server's requests only (never in a view), refresh before expiry, sign-out, and sign-ins
//! forgotten with their server or its URL.

mod auth_harness;

use relay_core::sorted_map::SortedMap;

use auth_harness::*;
use relay_core::app::{App, AuthEnv, AuthNext, Config, Effect, REFRESH_MARGIN_MS};
use relay_core::auth::encode::query_params;
use relay_core::auth::{AuthAction, AuthInput};
use relay_core::client::{AuthChallenge, ServerConfig};
use relay_core::contract::{ErrorBody, Request};
use relay_core::policy::Ledger;
use relay_core::rare::{Rare, RareCall, RareReply, SignInCall};
use serde_json::{json, Value};

const ID: &str = "remote";

fn app() -> App {
    let mut config = Config::default();
    config.servers.push(ServerConfig::new(ID, "Remote", MCP));
    App::restore(config, SortedMap::new(), Ledger::default()).0
}

fn env(now_ms: u64) -> AuthEnv<'static> {
    AuthEnv {
        redirect_uri: REDIRECT,
        seed: &SEED,
        now_ms,
        dpop_key: None,
    }
}

fn challenge() -> AuthChallenge {
    AuthChallenge::new(
        401,
        Some(format!(
            r#"Bearer resource_metadata="{RS}/.well-known/oauth-protected-resource/mcp""#
        )),
    )
}

/// What the driver did: requests (`METHOD url`), browser steps (and whether they could show a
/// page).
#[derive(Default, Debug)]
struct Driven {
    lines: Vec<String>,
    browser: Vec<bool>,
}

/// Carries out `ID`'s attempt from its first call against `world` as the runner does: each
/// call to the second module's work (`Rare`, through JSON values as the extension sends it), each
/// action performed against the world, until the attempt ends.
fn carry_out(
    app: &mut App,
    first: SignInCall,
    world: &World,
    now_ms: u64,
) -> (Driven, Vec<Effect>, Result<(), ErrorBody>) {
    let mut d = Driven::default();
    let mut rare = Rare::default();
    let mut call = first;
    for _ in 0..64 {
        let sent = serde_json::to_value(RareCall::SignIn(call)).expect("a call");
        let reply: RareReply =
            relay_core::json_value::from_value(rare.serve_value(sent)).expect("a reply");
        let RareReply::SignIn { step } = reply else {
            panic!("refused: {reply:?}");
        };
        let (action, interactive) = match app.auth_step(ID, step, now_ms) {
            AuthNext::Act(action, interactive) => (action, interactive),
            AuthNext::Call(next) => {
                call = next;
                continue;
            }
            AuthNext::Done(effects, outcome) => return (d, effects, outcome),
        };
        let input = match action {
            AuthAction::Fetch(request) => {
                let line = format!("{} {}", request.method.as_str(), request.url);
                d.lines.push(line.clone());
                let (status, body) = match world.routes.get(&line) {
                    Some((status, body)) => (*status, body.clone()),
                    None => (404, "Not Found".to_owned()),
                };
                AuthInput::Response {
                    id: request.id,
                    status,
                    body,
                    dpop_nonce: None,
                }
            }
            AuthAction::OpenBrowser { url } => {
                d.browser.push(interactive);
                if !interactive {
                    AuthInput::BrowserError {
                        message: "User interaction required.".to_owned(),
                    }
                } else {
                    let state = param(&query_params(&url), "state").unwrap_or_default();
                    AuthInput::Redirect {
                        url: format!("{REDIRECT}?code=the-code&state={state}"),
                    }
                }
            }
            AuthAction::Sign { id, .. } => {
                d.lines.push("SIGN".to_owned());
                AuthInput::Signature {
                    id,
                    signature: "c2ln".to_owned(),
                }
            }
            other => panic!("unexpected action {other:?}"),
        };
        call = app.auth_input(ID, input, now_ms);
    }
    panic!("the attempt did not end");
}

fn signed_in_app(world: &World) -> App {
    let mut app = app();
    let first = app
        .sign_in(ID, &challenge(), env(1_000), true)
        .expect("started");
    let (_, _, outcome) = carry_out(&mut app, first, world, 1_000);
    outcome.expect("signed in");
    app
}

fn view(app: &App) -> Value {
    serde_json::to_value(app.live_view(ID, None).expect("the server's view")).expect("json")
}

#[test]
fn a_refusal_becomes_a_sign_in_whose_token_goes_on_the_requests_only() {
    let world = standard();
    let mut app = app();
    assert_eq!(view(&app)["auth"], Value::Null);
    let first = app
        .sign_in(ID, &challenge(), env(1_000), true)
        .expect("started");
    let (d, effects, outcome) = carry_out(&mut app, first, &world, 1_000);
    assert_eq!(outcome, Ok(()));
    assert_eq!(
        d.lines,
        [
            format!("GET {RS}/.well-known/oauth-protected-resource/mcp"),
            format!("GET {AS}/.well-known/oauth-authorization-server"),
            format!("POST {AS}/register"),
            format!("POST {AS}/token"),
        ]
    );
    assert_eq!(d.browser, [true]);
    assert_eq!(effects, [Effect::SaveAuth, Effect::Authorize(ID.into())]);
    assert_eq!(app.authorization(ID).as_deref(), Some("Bearer access-1"));

    let v = view(&app);
    assert_eq!(v["auth"]["signedIn"], json!(true));
    assert_eq!(v["auth"]["refreshable"], json!(true));
    assert_eq!(v["auth"]["origins"], json!([AS]));
    let text = v.to_string();
    for secret in ["access-1", "refresh-1", "the-code"] {
        assert!(!text.contains(secret), "{secret} in the view: {text}");
    }
    // What is persisted holds the tokens (storage the content scripts cannot read).
    let stored = app.stored(&Effect::SaveAuth).pop();
    let (_, key, stored) = stored.and_then(|op| op.into_write()).expect("stored");
    assert_eq!(key, "auth");
    assert_eq!(stored[ID]["tokens"]["accessToken"], json!("access-1"));
}

#[test]
fn stored_sign_ins_come_back_after_a_restart_for_servers_that_still_exist() {
    let app = signed_in_app(&standard());
    let stored = app.auth.clone();
    let mut fresh = self::app();
    let mut with_gone = stored.clone();
    with_gone.insert("gone".into(), Default::default());
    let effects = fresh.restore_auth(with_gone);
    assert_eq!(effects, [Effect::Authorize(ID.into())]);
    assert_eq!(fresh.authorization(ID).as_deref(), Some("Bearer access-1"));
    assert!(!fresh.auth.contains_key("gone"));
}

#[test]
fn a_token_about_to_expire_is_refreshed_without_the_browser() {
    let world = standard();
    let mut app = signed_in_app(&world);
    // token() says expires_in 3600 s, issued at 1,000 ms.
    let expiry = 1_000 + 3_600_000;
    assert!(app
        .refresh_if_due(ID, env(expiry - REFRESH_MARGIN_MS - 1))
        .is_none());
    let refreshed = world.clone().route(
        "POST",
        &format!("{AS}/token"),
        200,
        token("access-2", Some("refresh-2")),
    );
    let first = (app.refresh_if_due(ID, env(expiry - REFRESH_MARGIN_MS + 1))).expect("due");
    let (d, effects, outcome) = carry_out(&mut app, first, &refreshed, expiry - 1);
    assert_eq!(outcome, Ok(()));
    assert_eq!(d.lines, [format!("POST {AS}/token")]);
    assert!(d.browser.is_empty());
    assert!(effects.contains(&Effect::Authorize(ID.into())));
    assert_eq!(app.authorization(ID).as_deref(), Some("Bearer access-2"));
}

#[test]
fn a_refusal_the_app_meets_on_its_own_never_shows_a_page() {
    // The refresh token is refused: a new sign-in would need the browser, which an attempt the
    // user did not ask for may not show. The error says what to do.
    let world = standard();
    let mut app = signed_in_app(&world);
    let refused = world.clone().route(
        "POST",
        &format!("{AS}/token"),
        400,
        json!({"error": "invalid_grant"}),
    );
    let first = app
        .sign_in(ID, &challenge(), env(5_000), false)
        .expect("started");
    let (d, effects, outcome) = carry_out(&mut app, first, &refused, 5_000);
    assert_eq!(d.browser, [false]);
    let error = outcome.expect_err("no sign-in without the user");
    assert!(error.message.starts_with("Sign-in failed"), "{error:?}");
    assert!(error.hint.as_deref().unwrap_or("").contains("Sign in"));
    for secret in ["access-1", "refresh-1"] {
        assert!(!format!("{error:?}").contains(secret));
    }
    // The refused token is gone from the requests, and the view says so.
    assert!(effects.contains(&Effect::Authorize(ID.into())));
    assert_eq!(app.authorization(ID), None);
    assert_eq!(view(&app)["auth"]["signedIn"], json!(false));
}

#[test]
fn after_a_restart_a_refusal_during_a_call_asks_the_user_to_sign_in_with_no_browser_step() {
    // Signed in before the worker restarted; the refresh token is refused now. Nobody pressed
    // Sign in in this worker, so not even a silent browser step (launchWebAuthFlow with
    // interactive: false, riding on the browser's session at the authorization server) runs.
    let world = standard();
    let stored = signed_in_app(&world).auth.clone();
    let mut app = app();
    app.restore_auth(stored);
    let refused = world.clone().route(
        "POST",
        &format!("{AS}/token"),
        400,
        json!({"error": "invalid_grant"}),
    );
    let first = app
        .sign_in(ID, &challenge(), env(5_000), false)
        .expect("started");
    let (d, _, outcome) = carry_out(&mut app, first, &refused, 5_000);
    assert_eq!(d.browser, Vec::<bool>::new(), "{:?}", d.lines);
    let error = outcome.expect_err("the user must sign in");
    assert_eq!(error.kind, "auth_browser", "{error:?}");
    assert!(error.message.contains("press Sign in"), "{error:?}");
    assert!(error.hint.as_deref().unwrap_or("").contains("Sign in"));
    assert_eq!(app.authorization(ID), None);

    // The user presses Sign in: from then on, in this worker, a refusal met on its own may take
    // the silent step (and only the silent one).
    let first = app
        .sign_in(ID, &challenge(), env(6_000), true)
        .expect("started");
    let (d, _, outcome) = carry_out(&mut app, first, &world, 6_000);
    assert_eq!((d.browser, outcome), (vec![true], Ok(())));
    let first = app
        .sign_in(ID, &challenge(), env(7_000), false)
        .expect("started");
    let (d, _, _) = carry_out(&mut app, first, &refused, 7_000);
    assert_eq!(d.browser, [false]);
}

#[test]
fn sign_out_revokes_where_it_can_and_forgets_the_tokens() {
    let world = standard().route(
        "GET",
        &format!("{AS}/.well-known/oauth-authorization-server"),
        200,
        asm(AS, json!({"revocation_endpoint": format!("{AS}/revoke")})),
    );
    let world = world.route("POST", &format!("{AS}/revoke"), 200, json!({}));
    let mut app = signed_in_app(&world);
    let first = app.sign_out(ID, env(2_000)).expect("started");
    let (d, effects, outcome) = carry_out(&mut app, first, &world, 2_000);
    assert_eq!(outcome, Ok(()));
    assert_eq!(d.lines, [format!("POST {AS}/revoke")]);
    assert!(effects.contains(&Effect::SaveAuth));
    assert_eq!(app.authorization(ID), None);
    assert_eq!(view(&app)["auth"]["signedIn"], json!(false));
}

#[test]
fn a_sign_in_is_forgotten_with_its_server_or_when_the_server_moves() {
    let world = standard();
    let mut app = signed_in_app(&world);
    // Same URL (say, renamed): the new session carries the sign-in.
    let mut renamed = app.config.servers[0].clone();
    renamed.name = "Renamed".into();
    let effects = app.update_server(renamed);
    assert!(effects.contains(&Effect::Authorize(ID.into())));
    assert!(app.authorization(ID).is_some());
    // Another URL: the tokens were issued for the old resource.
    let mut moved = app.config.servers[0].clone();
    moved.url = "http://127.0.0.1:4001/mcp".into();
    let effects = app.update_server(moved);
    assert!(effects.contains(&Effect::SaveAuth));
    assert_eq!(app.authorization(ID), None);

    let mut app = signed_in_app(&world);
    let effects = app.remove_server(ID);
    assert!(effects.contains(&Effect::SaveAuth));
    assert!(app.auth.is_empty());
}

#[test]
fn sign_in_and_out_are_requests_of_the_side_panel_only() {
    use relay_core::contract::{admit, Role};
    for kind in ["servers/signIn", "servers/signOut"] {
        let message = json!({"type": kind, "id": ID});
        let request = admit(&message, Role::Page).expect("the panel may");
        assert!(matches!(
            request,
            Request::ServersSignIn { .. } | Request::ServersSignOut { .. }
        ));
        assert!(
            admit(&message, Role::Content).is_err(),
            "{kind} from a page"
        );
    }
}

#[test]
fn a_dpop_sign_in_binds_the_token_to_the_drivers_key_and_proves_each_request() {
    use relay_core::auth::PublicJwk;
    use relay_core::client::HttpMethod;
    let key = PublicJwk::p256("x-coordinate", "y-coordinate");
    let world = standard()
        .route(
            "GET",
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            asm(AS, json!({"dpop_signing_alg_values_supported": ["ES256"]})),
        )
        .route(
            "POST",
            &format!("{AS}/token"),
            200,
            json!({"access_token": "access-1", "token_type": "DPoP", "expires_in": 3600}),
        );
    let mut app = app();
    let mut with_key = env(1_000);
    with_key.dpop_key = Some(&key);
    let first = app
        .sign_in(ID, &challenge(), with_key, true)
        .expect("started");
    let (d, effects, outcome) = carry_out(&mut app, first, &world, 1_000);
    assert_eq!(outcome, Ok(()));
    assert!(d.lines.contains(&"SIGN".to_owned()), "{:?}", d.lines);
    assert!(effects.contains(&Effect::Authorize(ID.to_owned())));
    assert_eq!(app.authorization(ID).as_deref(), Some("DPoP access-1"));
    assert!(app.uses_dpop(ID));
    assert_eq!(app.dpop_key(ID), Some(&key));
    let proof = app
        .dpop_proof(ID, HttpMethod::Post, MCP, env(2_000))
        .expect("a proof");
    let (header, claims) = jws_parts(&format!("{proof}.s"));
    assert_eq!(header["jwk"]["x"], "x-coordinate");
    assert_eq!(
        (claims["htm"].as_str(), claims["iat"].as_u64()),
        (Some("POST"), Some(2))
    );
    // A nonce asked for by the resource is used by the next proof, and only once asked.
    let www = Some(r#"DPoP error="use_dpop_nonce""#);
    assert!(app.dpop_answered(ID, MCP, 401, www, Some("n-1")));
    assert!(!app.dpop_answered(ID, MCP, 401, www, Some("n-1")));
    let proof = app
        .dpop_proof(ID, HttpMethod::Post, MCP, env(2_000))
        .expect("a proof");
    assert_eq!(jws_parts(&format!("{proof}.s")).1["nonce"], "n-1");
    // The view never shows the key or the token.
    let text = view(&app).to_string();
    assert!(
        !text.contains("access-1") && !text.contains("x-coordinate"),
        "{text}"
    );
    // A Bearer sign-in makes no proofs.
    let bearer = signed_in_app(&standard());
    assert!(!bearer.uses_dpop(ID));
    assert_eq!(
        bearer.dpop_proof(ID, HttpMethod::Post, MCP, env(2_000)),
        None
    );
}
