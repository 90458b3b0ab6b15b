//! Servers' questions to the user (`relay_core::app`, `elicit`): a question waits for the
//! side panel's answer, which the app checks against the question's schema (SEP-1034 defaults
//! applied) before the driver sends it; unusable questions are refused at once, unanswered ones
//! cancelled after the timeout, and none survives a restart.

use relay_core::sorted_map::SortedMap;

use relay_core::app::{
    App, Config, Effect, ElicitAnswer, ELICITATIONS_KEY, ELICITATION_TIMEOUT_MS,
};
use relay_core::client::jsonrpc::RequestId;
use relay_core::client::ServerConfig;
use relay_core::contract::ErrorBody;
use relay_core::policy::Ledger;
use relay_core::rare::{ElicitParseCall, Rare, RareCall, RareReply};
use serde_json::{json, Map, Value};

fn app() -> App {
    let mut config = Config::default();
    config.servers.push(ServerConfig::new(
        "cal",
        "Calendar",
        "http://127.0.0.1:9/mcp",
    ));
    App::restore(config, SortedMap::new(), Ledger::default()).0
}

fn form() -> Value {
    json!({"message": "Which day?", "requestedSchema": {"type": "object",
        "properties": {"day": {"type": "string", "enum": ["mon", "tue"], "default": "mon"},
                       "count": {"type": "integer"}, "note": {"type": "string"}},
        "required": ["day", "count"]}})
}

/// A server's params as the second module reads them (`relay_core::rare`, through JSON values).
fn read(params: &Value) -> Result<Value, ErrorBody> {
    let call = RareCall::ElicitParse(ElicitParseCall {
        params: params.clone(),
    });
    let reply = Rare::default().serve_value(serde_json::to_value(call).expect("a call"));
    let reply: RareReply = relay_core::json_value::from_value(reply).expect("a reply");
    reply.into_result()
}

fn asked(app: &mut App, params: &Value) -> String {
    let (key, effects) =
        app.elicitation_asked("cal", RequestId::Number(7), read(params), 1_000, None);
    assert_eq!(effects, [Effect::SaveElicitations]);
    key.expect("a question waits")
}

/// The user's answer as the runner handles it: an accepted form checked by the second module's
/// work (`relay_core::rare`, through JSON values), then the question answered.
fn answer(
    app: &mut App,
    key: &str,
    action: &str,
    content: Option<&Map<String, Value>>,
) -> Result<Vec<Effect>, ErrorBody> {
    match app.elicitation_answer(key, action, content.cloned())? {
        ElicitAnswer::Done(effects) => Ok(effects),
        ElicitAnswer::Check(call) => {
            let sent = serde_json::to_value(RareCall::ElicitAccept(call)).expect("a call");
            let reply = Rare::default().serve_value(sent);
            let reply: RareReply = relay_core::json_value::from_value(reply).expect("a reply");
            app.elicitation_checked(key, reply.into_result())
        }
    }
}

fn content(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn respond(result: Value) -> Effect {
    Effect::Respond {
        server: "cal".into(),
        request: RequestId::Number(7),
        result: Ok(result),
    }
}

#[test]
fn a_question_waits_in_the_panels_list_and_storage() {
    let mut app = app();
    let key = asked(&mut app, &form());
    let list = serde_json::to_value(app.elicitations_view()).expect("json");
    assert_eq!(list[0]["key"], json!(key));
    assert_eq!(list[0]["serverName"], json!("Calendar"));
    assert_eq!(list[0]["mode"], json!("form"));
    assert_eq!(
        list[0]["expiresAtMs"],
        json!(1_000 + ELICITATION_TIMEOUT_MS)
    );
    let stored = app.stored(&Effect::SaveElicitations).pop();
    let (_, storage_key, stored) = stored.and_then(|op| op.into_write()).expect("stored");
    assert_eq!(storage_key, ELICITATIONS_KEY);
    assert_eq!(stored, list);
}

#[test]
fn an_accepted_form_gets_its_defaults_and_is_checked_before_it_is_sent() {
    let mut app = app();
    let key = asked(&mut app, &form());
    // Wrong type: refused, the question stays.
    let wrong = answer(
        &mut app,
        &key,
        "accept",
        Some(&content(json!({"count": "two"}))),
    );
    let error = wrong.expect_err("a string for an integer");
    assert!(error.message.contains("count"), "{error:?}");
    assert_eq!(
        (error.kind.as_str(), error.details),
        ("field_invalid", vec!["count".to_owned()])
    );
    // A required field without a value or default, or left blank: refused, naming the field.
    assert!(answer(&mut app, &key, "accept", None).is_err());
    assert_eq!(app.elicitations.len(), 1);
    // Left out: `day` takes its default; `note` (optional, no default) stays out.
    let effects = answer(
        &mut app,
        &key,
        "accept",
        Some(&content(json!({"count": 2}))),
    )
    .expect("accepted");
    let sent = json!({"action": "accept", "content": {"day": "mon", "count": 2}});
    assert_eq!(effects, [respond(sent), Effect::SaveElicitations]);
    assert!(app.elicitations.is_empty());
    // Answered once: a second answer is refused.
    assert!(answer(&mut app, &key, "decline", None).is_err());
}

#[test]
fn a_blank_required_string_is_refused_and_the_question_stays_open() {
    let mut app = app();
    let params = json!({"message": "Your name?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string"}, "mail": {"type": "string", "format": "email"}},
        "required": ["name"]}});
    let key = asked(&mut app, &params);
    for (filled, field) in [
        (json!({"name": ""}), "name"),
        (json!({"name": "  "}), "name"),
        (json!({"name": "Ada", "mail": "ada"}), "mail"),
    ] {
        let error =
            answer(&mut app, &key, "accept", Some(&content(filled.clone()))).expect_err("refused");
        assert_eq!(error.kind.as_str(), "field_invalid", "{filled}");
        assert_eq!(error.details, [field.to_owned()], "{filled}");
        assert_eq!(
            app.elicitations_view().len(),
            1,
            "still open after {filled}"
        );
    }
    let effects = answer(
        &mut app,
        &key,
        "accept",
        Some(&content(json!({"name": "Ada", "mail": ""}))),
    )
    .expect("accepted");
    let sent = json!({"action": "accept", "content": {"name": "Ada"}});
    assert_eq!(effects, [respond(sent), Effect::SaveElicitations]);
}

#[test]
fn decline_cancel_and_pages() {
    for (action, sent) in [
        ("decline", json!({"action": "decline"})),
        ("cancel", json!({"action": "cancel"})),
    ] {
        let mut app = app();
        let key = asked(&mut app, &form());
        let effects = answer(&mut app, &key, action, None).expect("answered");
        assert_eq!(effects[0], respond(sent));
    }
    let mut app = app();
    let page = json!({"mode": "url", "message": "Connect", "url": "https://example.com/c", "elicitationId": "x"});
    let key = asked(&mut app, &page);
    assert_eq!(
        serde_json::to_value(app.elicitations_view()).expect("json")[0]["url"],
        json!("https://example.com/c")
    );
    // The panel shows the host it opens and the warnings (crate::link).
    assert_eq!(
        serde_json::to_value(app.elicitations_view()).expect("json")[0]["link"],
        json!({"scheme": "https", "host": "example.com", "warnings": []})
    );
    let effects = answer(&mut app, &key, "accept", None).expect("opened");
    assert_eq!(effects[0], respond(json!({"action": "accept"})));
    assert!(answer(&mut app, "e99", "accept", None).is_err());
    let key = asked(&mut app, &form());
    assert!(answer(&mut app, &key, "maybe", None).is_err());
}

#[test]
fn unusable_questions_are_refused_at_once() {
    for params in [
        json!({"requestedSchema": {}}),
        json!({"message": "x", "requestedSchema": {"properties": {"a": {"type": "object"}}}}),
        json!({"message": "x", "mode": "url", "url": "javascript:alert(1)"}),
    ] {
        let mut app = app();
        let (key, effects) =
            app.elicitation_asked("cal", RequestId::Number(7), read(&params), 0, None);
        assert_eq!(key, None, "{params}");
        assert!(
            matches!(&effects[..], [Effect::Respond { result: Err(_), .. }]),
            "{effects:?}"
        );
        assert!(app.elicitations.is_empty());
    }
}

#[test]
fn a_question_nobody_answers_is_cancelled_after_the_timeout_and_none_survives_a_restart() {
    let mut app = app();
    let key = asked(&mut app, &form());
    assert!(app
        .elicitation_expired(&key, 1_000 + ELICITATION_TIMEOUT_MS - 1)
        .is_empty());
    let effects = app.elicitation_expired(&key, 1_000 + ELICITATION_TIMEOUT_MS);
    assert_eq!(effects[0], respond(json!({"action": "cancel"})));
    assert!(app.elicitations.is_empty());

    // After a restart the app knows of no question (the panel lists the app's, not the
    // storage mirror's).
    let (fresh, _) = App::restore(Config::default(), SortedMap::new(), Ledger::default());
    assert!(fresh.elicitations_view().is_empty());
}

#[test]
fn a_question_in_the_middle_of_a_chat_call_shows_on_its_card_until_answered() {
    let mut app = app();
    let key = "7|https://chat.example/c/1|m|1";
    let record = serde_json::from_value(json!({
        "key": key, "chat": "7|https://chat.example/c/1", "messageId": "m", "callId": "1",
        "serverId": "cal", "tool": "book", "arguments": {}, "state": "running", "seq": 1,
    }))
    .expect("record");
    app.ledger.calls.insert(key.to_owned(), record);
    let notify = Effect::Notify {
        chat: "7|https://chat.example/c/1".into(),
        key: key.into(),
    };
    let (question, effects) =
        app.elicitation_asked("cal", RequestId::Number(7), read(&form()), 1_000, Some(key));
    assert!(effects.contains(&notify), "{effects:?}");
    assert_eq!(app.ledger.calls[key].asking.as_deref(), Some("Calendar"));
    let effects = answer(&mut app, &question.expect("waits"), "decline", None).expect("answered");
    assert!(effects.contains(&notify), "{effects:?}");
    assert_eq!(app.ledger.calls[key].asking, None);
    // A key the ledger does not know (a run by hand has none) marks nothing.
    let (_, effects) = app.elicitation_asked(
        "cal",
        RequestId::Number(8),
        read(&form()),
        1_000,
        Some("nope"),
    );
    assert_eq!(effects, [Effect::SaveElicitations]);
}
