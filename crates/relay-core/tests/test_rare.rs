//! The second module's work (`relay_core::rare`) as the worker reaches it: calls and replies as
//! JSON values, every reply shape read back as it was sent, and the calls it cannot serve
//! answered with a reason rather than a failure.

use relay_core::auth::{AuthAction, AuthInput, AuthState};
use relay_core::client::HttpMethod;
use relay_core::contract::ErrorBody;
use relay_core::model::ReadResourceResult;
use relay_core::rare::{
    ElicitAcceptCall, ElicitParseCall, ImportCall, Rare, RareCall, RareReply, SignInCall,
    SignInStart, SignInStep, VerifySkillCall,
};
use relay_core::skills::{Skill, VerifiedFile};
use serde_json::{json, Value};

fn start() -> SignInStart {
    SignInStart {
        server_url: "https://mcp.example.com/mcp".into(),
        redirect_uri: "https://ext.chromiumapp.org/oauth".into(),
        dpop_key: None,
        state: AuthState::default(),
        seed: vec![7; 32],
    }
}

fn serve(rare: &mut Rare, call: SignInCall) -> SignInStep {
    let sent = serde_json::to_value(RareCall::SignIn(call)).expect("a call");
    let reply: RareReply =
        relay_core::json_value::from_value(rare.serve_value(sent)).expect("a reply");
    match reply {
        RareReply::SignIn { step } => step,
        other => panic!("refused: {other:?}"),
    }
}

fn error_of(step: &SignInStep) -> &ErrorBody {
    match step {
        SignInStep::Done { error: Some(e), .. } => e,
        other => panic!("no error: {other:?}"),
    }
}

#[test]
fn a_refusal_starts_discovery_and_the_attempt_goes_on_from_the_module_memory() {
    let mut rare = Rare::default();
    let first = SignInCall {
        server: "s".into(),
        start: Some(Box::new(start())),
        input: AuthInput::Challenge {
            status: 401,
            www_authenticate: Some("Bearer".into()),
        },
        now_ms: 1_000,
    };
    let SignInStep::Act {
        action: AuthAction::Fetch(request),
    } = serve(&mut rare, first)
    else {
        panic!("discovery first");
    };
    assert_eq!(request.method, HttpMethod::Get);
    assert!(
        request
            .url
            .contains("/.well-known/oauth-protected-resource"),
        "{}",
        request.url
    );
    // The next step carries no start: the flow is the one the module kept.
    let next = SignInCall {
        server: "s".into(),
        start: None,
        input: AuthInput::FetchError {
            id: request.id,
            message: "offline".into(),
        },
        now_ms: 1_001,
    };
    assert!(matches!(
        serve(&mut rare, next),
        SignInStep::Act { .. } | SignInStep::Done { .. }
    ));
}

#[test]
fn what_cannot_start_ends_at_once_with_the_reason_and_no_state() {
    let mut rare = Rare::default();
    // No refresh token to refresh with.
    let refresh = SignInCall {
        server: "s".into(),
        start: Some(Box::new(start())),
        input: AuthInput::Refresh,
        now_ms: 1,
    };
    let step = serve(&mut rare, refresh);
    assert!(
        matches!(step, SignInStep::Done { state: None, .. }),
        "{step:?}"
    );
    assert!(
        error_of(&step).message.starts_with("Sign-in failed"),
        "{step:?}"
    );
    assert!(error_of(&step).hint.is_some());
    // Nothing was kept: a step for it finds no attempt.
    let step = serve(
        &mut rare,
        SignInCall {
            server: "s".into(),
            start: None,
            input: AuthInput::Success,
            now_ms: 2,
        },
    );
    assert!(
        error_of(&step).message.contains("no sign-in is under way"),
        "{step:?}"
    );
    // Too little randomness.
    let mut short = start();
    short.seed = vec![1; 4];
    let call = SignInCall {
        server: "t".into(),
        start: Some(Box::new(short)),
        input: AuthInput::SignOut,
        now_ms: 3,
    };
    assert!(matches!(
        serve(&mut rare, call),
        SignInStep::Done {
            state: None,
            error: Some(_)
        }
    ));
}

#[test]
fn a_call_the_module_cannot_read_is_refused_with_the_reason() {
    let mut rare = Rare::default();
    for call in [
        json!({"type": "paint"}),
        json!("signIn"),
        json!({"type": "signIn"}),
        Value::Null,
    ] {
        let reply: RareReply =
            relay_core::json_value::from_value(rare.serve_value(call.clone())).expect("a reply");
        let RareReply::Refused { error } = reply else {
            panic!("{call}: {reply:?}");
        };
        assert!(
            error.message.contains("cannot read this call"),
            "{call}: {error:?}"
        );
    }
}

/// A file the second module verified, as it replies.
fn verified_reply() -> RareReply {
    let text = "---\nname: t\ndescription: d\n---\nbody";
    let digest = format!("sha256:{}", relay_core::skills::sha256_hex(text.as_bytes()));
    let skill: Skill = relay_core::json_value::from_value(json!({
        "uri": "skill://t/SKILL.md",
        "frontmatter": {"name": "t", "description": "d"},
        "resources": [{"uri": "skill://t/SKILL.md", "size": text.len(), "digest": digest}]
    }))
    .expect("a skill");
    let read: ReadResourceResult = relay_core::json_value::from_value(
        json!({"contents": [{"uri": "skill://t/SKILL.md", "text": text}]}),
    )
    .expect("a read");
    let call = RareCall::VerifySkill(VerifySkillCall {
        skill,
        uri: "skill://t/SKILL.md".into(),
        read,
    });
    let reply = Rare::default().serve_value(serde_json::to_value(call).expect("a call"));
    relay_core::json_value::from_value(reply).expect("a reply")
}

#[test]
fn a_skill_file_is_verified_and_a_form_checked_in_the_second_module() {
    let file: VerifiedFile = verified_reply().into_result().expect("verified");
    assert!(file.text().ends_with("body"));
    // A question read, then a form answer checked against it: defaults filled in, a value of
    // the wrong type refused naming its field, a page question refused as a form.
    let serve = |call: RareCall| -> RareReply {
        let reply = Rare::default().serve_value(serde_json::to_value(call).expect("a call"));
        relay_core::json_value::from_value(reply).expect("a reply")
    };
    let params = json!({"message": "How many?", "requestedSchema": {"type": "object",
        "properties": {"n": {"type": "integer", "default": 1}, "pw": {"type": "string", "title": "Password"}}}});
    let question: Value = serve(RareCall::ElicitParse(ElicitParseCall { params }))
        .into_result()
        .expect("a form");
    assert_eq!(question["mode"], "form");
    assert_eq!(question["fields"][1]["secret"], "password");
    let check = |content: Value| {
        serve(RareCall::ElicitAccept(ElicitAcceptCall {
            question: question.clone(),
            content: content.as_object().cloned().unwrap_or_default(),
        }))
        .into_result::<Value>()
    };
    assert_eq!(
        check(json!({})),
        Ok(json!({"action": "accept", "content": {"n": 1}}))
    );
    let unfit = check(json!({"n": "two"})).expect_err("not an integer");
    assert_eq!(
        (unfit.kind.as_str(), unfit.details),
        ("field_invalid", vec!["n".to_owned()])
    );
    let page = serve(RareCall::ElicitParse(ElicitParseCall {
        params: json!({"message": "Sign", "mode": "url", "url": "https://example.com/x"}),
    }))
    .into_result::<Value>()
    .expect("a page question");
    let refused = serve(RareCall::ElicitAccept(ElicitAcceptCall {
        question: page,
        content: serde_json::Map::new(),
    }))
    .into_result::<Value>()
    .expect_err("not a form");
    assert!(refused.message.contains("not a form"), "{refused:?}");
    // Unusable params: the reason, which the server is answered with.
    let bad = serve(RareCall::ElicitParse(ElicitParseCall {
        params: json!({"mode": "url"}),
    }));
    assert!(bad.into_result::<Value>().is_err());
}

#[test]
fn every_reply_reads_back_as_it_was_sent() {
    let fetch: AuthAction = relay_core::json_value::from_value(json!({
        "type": "fetch", "id": 3, "method": "POST", "url": "https://as.example/token",
        "headers": [["content-type", "application/x-www-form-urlencoded"]], "body": "a=b"
    }))
    .expect("fetch");
    let browser: AuthAction = relay_core::json_value::from_value(
        json!({"type": "browser", "url": "https://as.example/authorize"}),
    )
    .expect("browser");
    let sign: AuthAction = relay_core::json_value::from_value(json!({
        "type": "sign", "id": 4, "alg": "ES256", "key": "dpop", "signingInput": "a.b"
    }))
    .expect("sign");
    let mut state = AuthState::default();
    state.requested_scope = Some("read".into());
    let replies = [
        RareReply::SignIn {
            step: SignInStep::Act { action: fetch },
        },
        RareReply::SignIn {
            step: SignInStep::Act { action: browser },
        },
        RareReply::SignIn {
            step: SignInStep::Act { action: sign },
        },
        RareReply::SignIn {
            step: SignInStep::Done {
                state: Some(Box::new(state)),
                error: None,
            },
        },
        RareReply::SignIn {
            step: SignInStep::Done {
                state: None,
                error: Some(ErrorBody::new(
                    relay_core::contract::ErrorKind::Internal,
                    "x",
                )),
            },
        },
        RareReply::Refused {
            error: ErrorBody::new(relay_core::contract::ErrorKind::Internal, "y"),
        },
        RareReply::Done {
            result: Ok(json!({"action": "accept", "content": {"n": 2}})),
        },
        RareReply::Done {
            result: Err(ErrorBody::new(
                relay_core::contract::ErrorKind::FieldInvalid,
                "n",
            )),
        },
        verified_reply(),
    ];
    for reply in replies {
        let value = serde_json::to_value(&reply).expect("serialises");
        let back: RareReply = relay_core::json_value::from_value(value.clone()).expect("reads");
        assert_eq!(back, reply, "{value}");
    }
}

#[test]
fn an_action_without_what_it_needs_is_an_error_that_names_it() {
    for (value, says) in [
        (
            json!({"type": "fetch", "id": 1, "url": "https://a"}),
            "without `method`",
        ),
        (json!({"type": "browser"}), "without `url`"),
        (
            json!({"type": "sign", "id": 1, "alg": "ES256", "key": "dpop"}),
            "without `signingInput`",
        ),
        (json!({"type": "teleport"}), "unknown action `teleport`"),
    ] {
        let e =
            relay_core::json_value::from_value::<AuthAction>(value.clone()).expect_err("refused");
        assert!(e.to_string().contains(says), "{value}: {e}");
    }
}

#[test]
fn a_calls_debug_leaves_out_what_may_hold_a_secret() {
    let import = ImportCall {
        text: r#"{"mcpServers": {"x": {"url": "https://x.example", "headers": {"Authorization": "Bearer s3cret"}}}}"#.into(),
        existing: vec!["notes".into()],
    };
    let form = ElicitAcceptCall {
        question: json!({"mode": "form"}),
        content: json!({"password": "s3cret"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    };
    let step = SignInCall {
        server: "s".into(),
        start: Some(Box::new(start())),
        input: AuthInput::Response {
            id: 1,
            status: 200,
            body: r#"{"access_token": "s3cret"}"#.into(),
            dpop_nonce: None,
        },
        now_ms: 1,
    };
    for shown in [
        format!("{import:?}"),
        format!("{form:?}"),
        format!("{step:?}"),
    ] {
        assert!(!shown.contains("s3cret"), "{shown}");
    }
    assert!(
        format!("{form:?}").contains("password"),
        "the field is named"
    );
    assert!(
        format!("{step:?}").contains("response"),
        "the input's kind is named"
    );
}
