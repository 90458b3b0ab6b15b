//! Calls answered with a task (`io.modelcontextprotocol/tasks`) across a worker stop, on the
//! in-memory host: the task is kept with the call's record; a restarted worker asks the
//! call's server for the task's result instead of ending the call unknown; the tool runs once
//! and its real result reaches the chat once. A task id reported for another server's call is
//! never recorded, and such a call ends unknown as before.

mod app_harness;

use std::rc::Rc;

use app_harness::*;
use relay_core::app::Runner;
use relay_core::client::{Pool, SessionSnapshot, TaskForm};
use relay_core::contract::storage::Area;
use serde_json::{json, Value};

fn look_at(run: &Rc<Runner<Mem>>, page: &str, turns: Value, streaming: bool) {
    let _ = ask(run, &content(), look(page, turns, streaming));
}

fn records(run: &Rc<Runner<Mem>>) -> Vec<Value> {
    let list = ask(
        run,
        &page(),
        json!({"type": "activity/list", "chat": {"tabId": TAB, "url": URL}}),
    )
    .expect("list");
    list.as_array().cloned().unwrap_or_default()
}

/// The chat's call runs, its request is with the server when the worker stops, and the server
/// reports (`server` and task id as given) that it answered with a task.
fn stopped_mid_task(server: &str) -> (Mem, String) {
    stopped_mid_task_in(server, None)
}

/// The same, in the server-side session `session` (a session the pool is in when the task
/// comes).
fn stopped_mid_task_in(server: &str, session: Option<SessionSnapshot>) -> (Mem, String) {
    let (host, run) = loaded();
    if let Some(session) = session {
        assert!(pool_of(&host).adopt("notes", session));
    }
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    look_at(&run, "load-1", json!([]), false);
    look_at(&run, "load-1", json!([{"h": 1, "text": CALL}]), true);
    host.0.clock.set(host.0.clock.get() + 2_000);
    host.0.hold_mcp.set(true);
    look_at(&run, "load-1", json!([{"h": 1}]), false);
    host.settle();
    let key = records(&run)[0]["key"].as_str().expect("a key").to_owned();
    now(run.task_created(server, &key, "task-7", TaskForm::Extension));
    host.settle();
    let log = host.take_log();
    assert_eq!(
        log.iter().filter(|l| *l == "mcp notes tools/call").count(),
        1,
        "{log:#?}"
    );
    host.stop();
    host.0.hold_mcp.set(false);
    (host, key)
}

/// A new worker on the same storage, with the log of its start kept.
fn restart_logged(host: &Mem) -> (Rc<Runner<Mem>>, Vec<String>) {
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    host.settle();
    look_at(&run, "load-1", json!([{"h": 1}]), false);
    host.settle();
    (run, host.take_log())
}

#[test]
fn a_task_survives_the_worker_one_run_and_its_real_result_reaches_the_chat_once() {
    let (host, _) = stopped_mid_task("notes");
    let told_before = host.0.inserted.borrow().len();
    host.answer("notes", "tasks/get", ok("the real result"));
    let (run, log) = restart_logged(&host);
    assert!(log.contains(&"mcp notes tasks/get".to_owned()), "{log:#?}");
    assert!(
        !log.iter().any(|l| l == "mcp notes tools/call"),
        "never a second run: {log:#?}"
    );
    let record = &records(&run)[0];
    assert_eq!(record["state"], "done", "{record:#}");
    assert_eq!(record["task"], json!({"id": "task-7", "form": "extension"}));
    let inserted = host.0.inserted.borrow()[told_before..].to_vec();
    assert_eq!(inserted.len(), 1, "told once: {inserted:#?}");
    assert!(inserted[0].contains("the real result"), "{inserted:#?}");
    // Another stop and start, more looks: nothing runs or is told again.
    host.stop();
    let (run, log) = restart_logged(&host);
    host.advance(5_000);
    look_at(&run, "load-1", json!([{"h": 1}]), false);
    host.settle();
    assert!(!log.iter().any(|l| l.starts_with("mcp ")), "{log:#?}");
    assert_eq!(host.0.inserted.borrow().len(), told_before + 1);
}

#[test]
fn a_task_reported_for_another_servers_call_is_never_kept_or_polled() {
    let (host, _) = stopped_mid_task("other");
    host.answer("notes", "tasks/get", ok("must not be asked for"));
    host.answer("other", "tasks/get", ok("must not be asked for"));
    let (run, log) = restart_logged(&host);
    assert!(!log.iter().any(|l| l.starts_with("mcp ")), "{log:#?}");
    let record = &records(&run)[0];
    assert!(record.get("task").is_none(), "{record:#}");
    assert_eq!(record["state"], "unknown", "as any call cut off by a stop");
}

fn pool_of(host: &Mem) -> std::cell::RefMut<'_, Pool> {
    std::cell::RefMut::map(host.0.pool.borrow_mut(), |p| p.as_mut().expect("a pool"))
}

/// A task is polled in the server-side session it was created in: the session is kept with the
/// ledger's index (never in the call's record, which content scripts read), a restarted worker
/// goes on in it, and it is forgotten once no task of the server is left.
#[test]
fn a_task_is_resumed_in_its_session_which_no_record_holds() {
    let info = json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"},
                      "capabilities": {"tools": {}}, "transport": "streamable"});
    let snapshot: SessionSnapshot =
        serde_json::from_value(json!({"sessionId": "sess-9", "info": info})).expect("a snapshot");
    let (host, key) = stopped_mid_task_in("notes", Some(snapshot.clone()));
    let index = host.stored(Area::Session, "ledger");
    assert_eq!(
        index["taskSessions"]["notes"]["sessionId"], "sess-9",
        "{index:#}"
    );
    let record = host.stored(Area::Session, &format!("call:{key}"));
    assert!(!record.to_string().contains("sess-9"), "{record:#}");
    host.answer("notes", "tasks/get", ok("the real result"));
    let (run, log) = restart_logged(&host);
    assert!(log.contains(&"mcp notes tasks/get".to_owned()), "{log:#?}");
    assert_eq!(
        pool_of(&host).snapshot("notes"),
        Some(snapshot),
        "polled in the task's session"
    );
    assert_eq!(records(&run)[0]["state"], "done");
    let index = host.stored(Area::Session, "ledger");
    assert!(index.get("taskSessions").is_none(), "{index:#}");
}
