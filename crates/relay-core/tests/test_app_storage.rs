//! State that fits its storage (`app::store`), on the in-memory host with Chrome's 10 MB
//! session quota: results of 3 MB, 10 MB and 50 MB with a worker restart after each, 2,000
//! past calls, and a write that fails without skipping what comes after it.

// ClientError carries what a user needs (see client::Pool); the tests script such results.
#![allow(clippy::result_large_err)]

mod app_harness;

use std::time::{Duration, Instant};

use app_harness::*;
use relay_core::app::{
    App, CallEnd, Config, Effect, LedgerIndex, StorageOp, LEDGER_KEEP, PREVIEW_BYTES,
    RESULTS_PER_CHAT_BYTES,
};
use relay_core::contract::storage::{Area, CALL_PREFIX, LEDGER_KEY, RESULT_PREFIX};
use relay_core::model::{CallToolResult, Content};
use relay_core::policy::{Decision, Ledger, LoopLimits, NewCall};
use serde_json::{json, Value};

const MB: usize = 1024 * 1024;

/// A reply asking for `add` with `text`.
fn call(text: &str) -> String {
    format!(
        "Adding.\n```json\n{{\"tool\": \"add\", \"arguments\": {{\"text\": \"{text}\"}}}}\n```\n"
    )
}

/// A page loads, the user sends, the reply with one call streams and ends.
fn one_turn(host: &Mem, run: &std::rc::Rc<relay_core::app::Runner<Mem>>, page: &str, text: &str) {
    ask(run, &content(), look(page, json!([]), false)).expect("page load");
    let reply = look(page, json!([{"h": 1, "text": call(text)}]), true);
    ask(run, &content(), reply).expect("read");
    host.settle();
    host.advance(2_000);
    ask(run, &content(), look(page, json!([{"h": 1}]), false)).expect("ended");
    host.settle();
}

fn big(
    bytes: usize,
    mark: char,
) -> Result<relay_core::client::Output, relay_core::client::ClientError> {
    ok(&mark.to_string().repeat(bytes))
}

#[test]
fn results_of_3_10_and_50_mb_stay_out_of_session_storage_and_every_outcome_goes_back_once() {
    let (host, _) = loaded();
    // One chat goes on for six calls in a row: the loop limits are not what this is about.
    {
        let mut storage = host.0.storage.borrow_mut();
        let config = storage
            .get_mut(&("local", "config".to_owned()))
            .expect("config");
        let chat = &mut config["chats"][relay_core::app::chat_key(TAB, URL)];
        chat["maxConsecutive"] = json!(100);
        chat["maxTotal"] = json!(100);
    }
    let mut run = restart(&host);
    host.0.session_quota.set(Some(SESSION_QUOTA_BYTES));
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    let sizes = [3 * MB, 3 * MB, 3 * MB, 3 * MB, 10 * MB, 50 * MB];
    for (i, size) in sizes.into_iter().enumerate() {
        host.answer("notes", "tools/call", big(size, 'x'));
        let stop_before_delivery = size == 10 * MB;
        if stop_before_delivery {
            // The worker stops as it records the delivery: the full result is only in storage.
            *host.0.hold_write.borrow_mut() =
                Some(Box::new(|_, v: &Value| v["inFlight"] == json!(true)));
        }
        one_turn(&host, &run, &format!("load-{i}"), &format!("item {i}"));
        let mut log = Vec::new();
        if stop_before_delivery {
            assert_eq!(host.0.inserted.borrow().len(), i, "not delivered yet");
            log = host.take_log();
            host.stop();
            run = restart(&host);
            ask(
                &run,
                &content(),
                look(&format!("load-{i}"), json!([{"h": 1}]), false),
            )
            .expect("first look");
            host.settle();
        }
        log.extend(host.take_log());
        assert!(
            !log.iter().any(|l| l.starts_with("quota exceeded")),
            "{log:?}"
        );
        assert!(!log.iter().any(|l| l.starts_with("warn")), "{log:?}");
        let mcp = log.iter().filter(|l| *l == "mcp notes tools/call").count();
        assert_eq!(mcp, 1, "turn {i}: {log:?}");
        let inserted = host.0.inserted.borrow().clone();
        assert_eq!(inserted.len(), i + 1, "turn {i}: one message per turn");
        // The model gets the result up to its bound (20,000 characters), not the preview.
        let last = inserted.last().expect("inserted");
        assert!(last.matches('x').count() > 4 * PREVIEW_BYTES, "turn {i}");
        let session = host.session_bytes();
        assert!(
            session < 64 * 1024,
            "turn {i}: session holds {session} bytes"
        );
        let results = host.local_bytes(RESULT_PREFIX);
        assert!(
            results as u64 <= RESULTS_PER_CHAT_BYTES + size as u64,
            "turn {i}: {results}"
        );
        // A worker restart after each: the loop goes on where it was.
        host.stop();
        run = restart(&host);
    }
    // The chat's budget (64 MB) pruned the oldest delivered results, and their records say so.
    let records = ask(
        &run,
        &page(),
        json!({"type": "activity/list", "chat": {"tabId": TAB, "url": URL}}),
    )
    .expect("list");
    let records = records.as_array().expect("records").clone();
    assert_eq!(records.len(), 6);
    let pruned: Vec<bool> = records.iter().map(|r| r["resultPruned"] == true).collect();
    // 50 + 10 + 3 MB fit the chat's 64 MiB; the three older 3 MB results do not.
    assert_eq!(
        pruned,
        [true, true, true, false, false, false],
        "{records:#?}"
    );
    assert!(records.iter().all(|r| r["resultSize"].as_u64().is_some()));
    assert_eq!(host.keys(Area::Local, RESULT_PREFIX).len(), 3);
}

/// A stored ledger of `count` past calls of one chat, each delivered with a result of 4 KB
/// (stored apart), written the way the app writes it.
fn past_calls(host: &Mem, count: usize) {
    let (config, tools) = stored_config(host);
    let (mut app, _) = App::restore(config, tools, Ledger::default());
    let ledger = &mut app.ledger;
    let args = json!({"text": "x"});
    let chat = relay_core::app::chat_key(TAB, URL);
    let limits = LoopLimits {
        max_consecutive: u32::MAX,
        max_total: u32::MAX,
    };
    let mut keys = Vec::new();
    for i in 0..count {
        let (message, id) = (format!("m{i}"), format!("c{i}"));
        let new = NewCall {
            chat: &chat,
            message_id: &message,
            call_id: &id,
            server_id: "notes",
            tool: "add",
            arguments: &args,
            destructive: false,
        };
        if let relay_core::policy::Admission::New(r) = ledger.admit(&new, &Decision::Run, limits) {
            keys.push(r.key);
        }
    }
    let mut effects = Vec::new();
    for key in &keys {
        let result = CallToolResult::success(vec![Content::text("y".repeat(4_096))]);
        effects.extend(app.finish_call(key, CallEnd::Result(result), 5));
        if let Some(r) = app.ledger.calls.get_mut(key) {
            r.delivered = true;
        }
    }
    let mut ops = Vec::new();
    for e in effects
        .iter()
        .filter(|e| matches!(e, Effect::SaveResult(_)))
    {
        ops.extend(app.stored(e));
    }
    ops.extend(app.stored(&Effect::SaveLedger));
    for op in ops {
        if let StorageOp::Write {
            area, key, value, ..
        } = &op
        {
            now(relay_core::app::Host::write(host, *area, key, value)).expect("stored");
        }
        if let StorageOp::Remove { area, keys, .. } = &op {
            now(relay_core::app::Host::remove(host, *area, keys)).expect("removed");
        }
    }
}

fn stored_config(
    host: &Mem,
) -> (
    Config,
    relay_core::sorted_map::SortedMap<String, Vec<relay_core::model::Tool>>,
) {
    let config = host.stored(Area::Local, relay_core::app::CONFIG_KEY);
    let tools = host.stored(Area::Local, relay_core::app::TOOLS_KEY);
    (
        serde_json::from_value(config).expect("config"),
        serde_json::from_value(tools).expect("tools"),
    )
}

#[test]
fn after_2000_past_calls_a_restarted_worker_answers_its_first_look_quickly_from_bounded_storage() {
    let (host, _) = loaded();
    host.0.session_quota.set(Some(SESSION_QUOTA_BYTES));
    past_calls(&host, 2_000);
    // The ledger keeps its bound of records; their results went to local storage, one key each,
    // and the results of records the bound dropped went with them.
    let index: LedgerIndex =
        serde_json::from_value(host.stored(Area::Session, LEDGER_KEY)).expect("index");
    assert_eq!(index.keys.len(), LEDGER_KEEP);
    assert_eq!(host.keys(Area::Session, CALL_PREFIX).len(), LEDGER_KEEP);
    assert_eq!(host.keys(Area::Local, RESULT_PREFIX).len(), LEDGER_KEEP);
    let session = host.session_bytes();
    assert!(
        session < SESSION_QUOTA_BYTES / 4,
        "session holds {session} bytes"
    );
    let mut slowest = Duration::ZERO;
    for i in 0..3 {
        host.stop();
        host.take_log();
        let started = Instant::now();
        let run = relay_core::app::Runner::new(host.clone());
        now(run.load()).expect("loaded");
        let answer = ask(
            &run,
            &content(),
            look(&format!("load-{i}"), json!([]), false),
        );
        let answer = answer.expect("look");
        let took = started.elapsed();
        slowest = slowest.max(took);
        assert!(answer.is_object(), "{answer}");
        eprintln!("first answer after a restart with 2,000 past calls: {took:?}");
        host.settle();
        let log = host.take_log();
        // Nothing is written back: the restart found nothing to change.
        assert!(
            !log.iter().any(|l| l.starts_with("write session call:")),
            "{log:?}"
        );
        // What makes the first answer quick (its time is the benchmark's to measure, not a
        // test's): no stored result is read to answer it, only the bounded records.
        assert!(
            !log.iter()
                .any(|l| l.starts_with("read") && l.contains(RESULT_PREFIX)),
            "{log:?}"
        );
    }
    eprintln!("slowest first answer: {slowest:?}");
    // A record holds a bounded preview, and the size of the result stored apart.
    let any = host
        .keys(Area::Session, CALL_PREFIX)
        .pop()
        .expect("a record");
    let record = host.stored(Area::Session, &any);
    assert!(record["resultSize"].as_u64().is_some(), "{record}");
    assert!(serde_json::to_string(&record).expect("json").len() < 2 * PREVIEW_BYTES + 1_024);
}

#[test]
fn a_failed_storage_write_is_reported_and_the_card_and_delivery_queued_after_it_still_happen() {
    let (host, run) = loaded();
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    host.answer("notes", "tools/call", ok("added"));
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    let reply = look("load-1", json!([{"h": 1, "text": call("milk")}]), true);
    ask(&run, &content(), reply).expect("read");
    // From the call's end on, session storage is full.
    host.0.session_quota.set(Some(host.session_bytes()));
    host.settle();
    host.advance(2_000);
    // The answer reports the failed write (of the page model, the first to fail).
    let ended = ask(&run, &content(), look("load-1", json!([{"h": 1}]), false));
    let error = ended.expect_err("the write failed");
    assert!(error.message.contains("quota bytes exceeded"), "{error:?}");
    host.settle();
    let log = host.take_log();
    assert!(
        log.iter().any(|l| l.starts_with("quota exceeded call:")),
        "{log:?}"
    );
    // Reported: the background work's warning names the key and Chrome's words.
    let warned = log.iter().find(|l| l.starts_with("warn")).expect("warned");
    assert!(warned.contains("quota bytes exceeded"), "{warned}");
    assert!(warned.contains("call:"), "{warned}");
    assert_eq!(
        run.app.borrow().storage_error().map(|e| e.kind),
        Some(relay_core::contract::ErrorKind::Storage)
    );
    // Not skipped: the card update and the delivery after the failed write.
    assert!(log.contains(&format!("tab {TAB} relay/calls")), "{log:?}");
    assert_eq!(host.0.inserted.borrow().len(), 1, "{log:?}");
    // Room again: the next write of the ledger stores what the failed writes left out.
    host.0.session_quota.set(None);
    now(run.run_effects(vec![Effect::SaveLedger])).expect("written");
    let keys = host.keys(Area::Session, CALL_PREFIX);
    assert_eq!(keys.len(), 1);
    let record = host.stored(Area::Session, &keys[0]);
    assert_eq!(
        (&record["state"], &record["delivered"]),
        (&json!("done"), &json!(true)),
        "{record}"
    );
}
