//! The user's Cancel of a running call (`calls/cancel`, `relay_core::app::inflight`): who may
//! cancel what (a content script only its own chat's running calls; the side panel any running
//! call and its runs by hand), how a cancelled call ends (failed with `cancelled`, never
//! `unknown`, a result that came first kept), run keys of runs by hand, and how often a card
//! is told of a call's progress.

mod app_harness;

use app_harness::{ask, content, loaded, look, page, Mem, CALL};
use relay_core::app::{CallEnd, Effect, Runner, PROGRESS_NOTIFY_MS};
use relay_core::contract::{ErrorBody, ErrorKind};
use relay_core::model::CallToolResult;
use serde_json::{json, Value};
use std::rc::Rc;

/// A runner whose chat call of `add` is running (its request never answers).
fn running() -> (Mem, Rc<Runner<Mem>>, String) {
    let (host, run) = loaded();
    host.0.hold_mcp.set(true);
    let _ = ask(&run, &content(), look("load-1", json!([]), false));
    let _ = ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), true),
    );
    let _ = ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), false),
    );
    host.settle();
    let app = run.app.borrow();
    let (key, record) = app.ledger.calls.iter().next().expect("a call");
    assert_eq!(
        serde_json::to_value(record.state).expect("state"),
        json!("running")
    );
    let key = key.clone();
    drop(app);
    (host, run, key)
}

fn cancel(
    run: &Rc<Runner<Mem>>,
    sender: &relay_core::app::Sender,
    key: &str,
) -> Result<Value, ErrorBody> {
    ask(run, sender, json!({"type": "calls/cancel", "key": key}))
}

#[test]
fn who_may_cancel_which_call() {
    let (_host, run, key) = running();
    let mut elsewhere = content();
    elsewhere.tab_id = Some(8);
    let cases: Vec<(&str, relay_core::app::Sender, String, Result<(), ErrorKind>)> = vec![
        (
            "another chat's page",
            elsewhere,
            key.clone(),
            Err(ErrorKind::Forbidden),
        ),
        (
            "a key nobody knows",
            page(),
            "nope".into(),
            Err(ErrorKind::InvalidState),
        ),
        (
            "a content script, for a run by hand's key",
            content(),
            "r1".into(),
            Err(ErrorKind::InvalidState),
        ),
        ("its own chat's page", content(), key.clone(), Ok(())),
        ("the side panel", page(), key.clone(), Ok(())),
    ];
    for (who, sender, key, expected) in cases {
        let got = cancel(&run, &sender, &key).map(|_| ()).map_err(|e| e.kind);
        assert_eq!(got, expected, "{who}");
    }
    assert!(cancel(&run, &page(), "").is_err(), "a key is required");
}

#[test]
fn a_finished_call_cannot_be_cancelled() {
    let (_host, run, key) = running();
    let effects =
        run.app
            .borrow_mut()
            .finish_call(&key, CallEnd::Result(CallToolResult::success(vec![])), 5);
    assert!(!effects.is_empty());
    let got = cancel(&run, &page(), &key).expect_err("not running");
    assert_eq!(got.kind, ErrorKind::InvalidState);
    assert!(got.message.contains("not running"), "{got:?}");
}

#[test]
fn a_cancelled_call_ends_cancelled_not_unknown_and_a_result_first_is_kept() {
    let (_host, run, key) = running();
    let mut app = run.app.borrow_mut();
    let aborted = || CallEnd::Error {
        error: ErrorBody::new(ErrorKind::OutcomeUnknown, "aborted after sending"),
        may_have_run: true,
    };
    // Not cancelled by the user: the error stays what it was.
    match app.end_of(&key, aborted()) {
        CallEnd::Error {
            error,
            may_have_run,
        } => {
            assert_eq!(
                (error.kind, may_have_run),
                (ErrorKind::OutcomeUnknown, true)
            )
        }
        other => panic!("{other:?}"),
    }
    app.cancel_sent(&key);
    match app.end_of(&key, aborted()) {
        CallEnd::Error {
            error,
            may_have_run,
        } => {
            assert_eq!((error.kind, may_have_run), (ErrorKind::Cancelled, false));
            assert!(error.message.contains("cancelled by the user"), "{error:?}");
        }
        other => panic!("{other:?}"),
    }
    // Said once: the Cancel is forgotten when the call ended.
    assert!(!app.take_cancelled(&key));
    app.cancel_sent(&key);
    let result = CallEnd::Result(CallToolResult::success(vec![]));
    assert!(matches!(app.end_of(&key, result), CallEnd::Result(_)));
    // Ended as cancelled: failed, so nothing runs it again by itself.
    let end = app.end_of(
        &key,
        CallEnd::Error {
            error: relay_core::app::cancelled_error(),
            may_have_run: false,
        },
    );
    app.finish_call(&key, end, 9);
    let state = serde_json::to_value(app.ledger.calls[&key].state).expect("state");
    assert_eq!(state, json!("failed"));
}

#[test]
fn runs_by_hand_have_short_unique_keys_and_are_listed_with_their_progress() {
    let (_host, run, key) = running();
    let mut app = run.app.borrow_mut();
    for (run_key, fine) in [
        ("r-1_a", true),
        ("r-1_a", false),
        ("", false),
        ("has space", false),
        ("<script>", false),
        (key.as_str(), false),
        (&"x".repeat(65), false),
    ] {
        assert_eq!(
            app.run_started(run_key, "notes", "add", 100),
            fine,
            "{run_key:?}"
        );
    }
    app.run_progress("r-1_a", json!({"progress": 2, "total": 5}));
    let view = serde_json::to_value(app.running_view()).expect("json");
    assert_eq!(
        view,
        json!([{"key": "r-1_a", "serverId": "notes", "tool": "add", "startedAt": 100, "progress": {"progress": 2, "total": 5}}])
    );
    assert_eq!(
        app.cancel_target(relay_core::contract::Role::Page, None, "r-1_a")
            .expect("page"),
        "run:r-1_a"
    );
    assert!(app
        .cancel_target(relay_core::contract::Role::Content, Some("x"), "r-1_a")
        .is_err());
    app.run_ended("r-1_a");
    assert!(app.running_view().is_empty());
    assert!(app
        .cancel_target(relay_core::contract::Role::Page, None, "r-1_a")
        .is_err());
}

#[test]
fn a_cards_progress_is_told_at_most_every_interval() {
    let (_host, run, key) = running();
    let mut app = run.app.borrow_mut();
    let notify = |effects: Vec<Effect>| effects.iter().any(|e| matches!(e, Effect::Notify { .. }));
    let p = |n: u64| json!({"progress": n, "total": 10});
    assert!(notify(app.call_progress(&key, p(1), 1_000)));
    assert!(!notify(app.call_progress(
        &key,
        p(2),
        1_000 + PROGRESS_NOTIFY_MS - 1
    )));
    assert!(notify(app.call_progress(
        &key,
        p(3),
        1_000 + PROGRESS_NOTIFY_MS
    )));
    assert_eq!(app.ledger.calls[&key].progress, Some(p(3)));
    assert!(app.call_progress("nope", p(4), 9_000).is_empty());
}
