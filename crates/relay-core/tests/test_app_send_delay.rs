//! The delay before auto-send, decided by the core: results are written without a send, their
//! records count down (`send_at`), the timer's send goes out unless the user cancelled it, a
//! content script cancels in its own chat only, and a worker restart leaves them unsent.

use relay_core::sorted_map::SortedMap;

use relay_core::app::{chat_key, App, CallEnd, ChatSettings, Config, Effect};
use relay_core::client::ServerConfig;
use relay_core::contract::tab::{InsertOutcome, SubmitOutcome};
use relay_core::contract::{ErrorKind, Role, TabMessage};
use relay_core::model::{CallToolResult, Content, Tool};
use relay_core::policy::{Ledger, ToolPolicy};
use serde_json::json;

const URL: &str = "https://chat.example/c/1";

fn chat() -> String {
    chat_key(7, URL)
}

/// An app whose chat uses server `notes` (tool `add`, allowed) with auto-run and auto-send on,
/// and a delay before auto-send of `delay` ms.
fn app(delay: u64) -> App {
    let mut config = Config::default();
    config.servers.push(ServerConfig::new(
        "notes",
        "notes",
        "http://127.0.0.1:9/mcp",
    ));
    config.chats.insert(
        chat(),
        ChatSettings {
            server_ids: vec!["notes".into()],
            auto_execute: true,
            auto_submit: true,
            ..Default::default()
        },
    );
    config.set_tool("notes", "add", Some(ToolPolicy::Allow), None);
    config.settings.send_delay_ms = delay;
    let add = Tool::new(
        "add",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    );
    let tools = SortedMap::from([("notes".to_owned(), vec![add])]);
    App::restore(config, tools, Ledger::default()).0
}

/// A reply with one call, run to its end: returns the call's key.
fn one_call_done(app: &mut App) -> String {
    let text = "Sure.\n```json\n{\"tool\": \"add\", \"arguments\": {\"text\": \"a\"}}\n```\n";
    let (answer, _) = app.reply_update(&chat(), "m", text, true, false);
    let key = answer.calls[0].key.clone();
    app.prepare_call(&key, 1).expect("ready");
    app.finish_call(
        &key,
        CallEnd::Result(CallToolResult::success(vec![Content::text("one")])),
        5,
    );
    key
}

fn written() -> InsertOutcome {
    InsertOutcome {
        inserted: true,
        ..Default::default()
    }
}

#[test]
fn without_a_delay_the_results_are_sent_with_the_write() {
    let mut app = app(0);
    one_call_done(&mut app);
    let d = app.take_delivery(&chat(), "m").expect("ready");
    assert!(d.submit);
    assert_eq!(d.send_delay_ms, None);
    let (effects, timer) = app.hold_send(
        &d,
        &InsertOutcome {
            submitted: true,
            ..written()
        },
        1_000,
    );
    assert!(effects.is_empty() && timer.is_none());
}

#[test]
fn with_a_delay_the_write_does_not_send_and_the_timer_sends_once() {
    let mut app = app(3_000);
    let key = one_call_done(&mut app);
    let d = app.take_delivery(&chat(), "m").expect("ready");
    assert!(!d.submit, "written without a send");
    assert_eq!(d.send_delay_ms, Some(3_000));
    let TabMessage::Insert { submit, .. } = d.message() else {
        panic!("an insert")
    };
    assert!(!submit);
    app.delivery_written(&d, &written());
    let (effects, timer) = app.hold_send(&d, &written(), 10_000);
    assert_eq!(timer, Some((key.clone(), 3_000)));
    assert_eq!(
        app.ledger.calls[&key].send_at,
        Some(13_000),
        "the card counts down to this"
    );
    assert!(effects.contains(&Effect::SaveLedger));
    assert!(effects.contains(&Effect::Notify {
        chat: chat(),
        key: key.clone()
    }));

    let due = app.send_due(&key).expect("not cancelled: due");
    assert_eq!(due.tab, 7);
    assert_eq!(
        due.message,
        TabMessage::Submit {
            text: d.text.clone()
        }
    );
    assert_eq!(app.ledger.calls[&key].send_at, None);
    assert!(app.send_due(&key).is_none(), "sent once");
    app.send_done(
        &due.id,
        &SubmitOutcome {
            submitted: true,
            error: None,
        },
    );
    assert!(!app.ledger.calls[&key].unsent);
}

#[test]
fn a_send_that_did_not_take_leaves_the_result_unsent_with_why() {
    let mut app = app(1_000);
    let key = one_call_done(&mut app);
    let d = app.take_delivery(&chat(), "m").expect("ready");
    app.delivery_written(&d, &written());
    app.hold_send(&d, &written(), 0);
    let due = app.send_due(&key).expect("due");
    let effects = app.send_done(
        &due.id,
        &SubmitOutcome {
            submitted: false,
            error: Some("The input no longer holds the results.".into()),
        },
    );
    let rec = &app.ledger.calls[&key];
    assert!(rec.unsent);
    assert_eq!(
        rec.delivery_note.as_deref(),
        Some("The input no longer holds the results.")
    );
    assert!(effects.contains(&Effect::Notify { chat: chat(), key }));
}

#[test]
fn a_damaged_or_missing_write_starts_no_countdown() {
    for outcome in [
        InsertOutcome::default(),
        InsertOutcome {
            partial: true,
            ..written()
        },
    ] {
        let mut app = app(1_000);
        let key = one_call_done(&mut app);
        let d = app.take_delivery(&chat(), "m").expect("ready");
        app.delivery_written(&d, &outcome);
        let (_, timer) = app.hold_send(&d, &outcome, 0);
        assert!(timer.is_none(), "{outcome:?}");
        assert_eq!(app.ledger.calls[&key].send_at, None);
    }
}

#[test]
fn cancelled_it_is_never_sent_and_only_the_chat_itself_or_the_panel_may_cancel() {
    // (role, the sender's chat, expected: Ok or the error's kind)
    let other = chat_key(8, "https://chat.example/c/2");
    let cases: [(Role, Option<String>, Result<(), ErrorKind>); 3] = [
        (Role::Content, Some(other), Err(ErrorKind::Forbidden)),
        (Role::Content, Some(chat()), Ok(())),
        (Role::Page, None, Ok(())),
    ];
    for (role, sender, expected) in cases {
        let mut app = app(5_000);
        let key = one_call_done(&mut app);
        let d = app.take_delivery(&chat(), "m").expect("ready");
        app.delivery_written(&d, &written());
        app.hold_send(&d, &written(), 0);
        let got = app.cancel_send(role, sender.as_deref(), &key);
        match expected {
            Err(kind) => {
                assert_eq!(got.expect_err("refused").kind, kind, "{role:?}");
                assert_eq!(
                    app.ledger.calls[&key].send_at,
                    Some(5_000),
                    "still counting down"
                );
                assert!(
                    app.send_due(&key).is_some(),
                    "a refused cancel stops nothing"
                );
            }
            Ok(()) => {
                let (rec, _) = got.expect("cancelled");
                assert_eq!(
                    (rec.send_at, rec.unsent),
                    (None, true),
                    "in the input, not sent"
                );
                assert!(app.send_due(&key).is_none(), "the timer sends nothing");
                let again = app
                    .cancel_send(role, sender.as_deref(), &key)
                    .expect_err("nothing to cancel");
                assert_eq!(again.kind, ErrorKind::InvalidArgument);
            }
        }
    }
}

#[test]
fn a_worker_restart_during_the_countdown_leaves_the_result_unsent() {
    let mut app = app(5_000);
    let key = one_call_done(&mut app);
    let d = app.take_delivery(&chat(), "m").expect("ready");
    app.delivery_written(&d, &written());
    app.hold_send(&d, &written(), 0);
    let ledger = app.ledger.clone();
    let (restarted, effects) = App::restore(app.config.clone(), app.tools.clone(), ledger);
    let rec = &restarted.ledger.calls[&key];
    assert_eq!((rec.send_at, rec.unsent), (None, true));
    assert!(rec.delivery_note.is_some());
    assert!(effects.contains(&Effect::Notify { chat: chat(), key }));
}
