//! The fault matrix, as data: each fault a browser really has (the worker stopped at each step
//! of a call's life, the server killed or silent, session storage full, the tab closed or
//! reloaded) is one row, played on the in-memory host as one transcript; after each, the same
//! invariants are checked: no call twice, no outcome lost, no outcome twice, and the chat told
//! when it should be (after a worker stop: at the restarted worker's first look, with no
//! reload).

mod app_harness;

use std::rc::Rc;

use app_harness::*;
use relay_core::app::Runner;
use relay_core::client::ClientError;
use serde_json::{json, Value};

/// Where a row's fault strikes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// The worker stops after the call was admitted, before its request went out.
    StopBeforeRequest,
    /// The worker stops while the request is with the server.
    StopDuringRequest,
    /// The server answered; the worker stops before the outcome was stored.
    StopAfterAnswer,
    /// The worker stops as it records the delivery, before the tab was asked to write it.
    StopDuringDelivery,
    /// The tab got the results and wrote them; the worker stops before the tab's answer.
    StopDuringSend,
    /// The server is gone: the request fails before reaching it.
    ServerKilled,
    /// The server never answers: the client's timeout ends the call.
    ServerSilent,
    /// Session storage refuses every write from the call's start to its delivery.
    QuotaExceeded,
    /// The tab is closed before the results go back.
    TabClosed,
    /// The tab is reloading when the results go back; the reloaded page shows the reply.
    TabReloaded,
}

/// When the chat hears of the outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Told {
    /// Once, when the reply ended (no restart).
    AtTheEnd,
    /// Once, at the restarted worker's first look (no reload).
    AtFirstLookAfterRestart,
    /// Once, when the reloaded page looks.
    AfterReload,
    /// Once, before the worker stopped; never again after it.
    BeforeTheStop,
    /// Never (the tab is gone); the outcome stays in the ledger, ready to deliver.
    KeptForLater,
}

struct Row {
    fault: Fault,
    /// Requests that reached the server (at most one, whatever happens).
    requests: usize,
    /// The call's state in the ledger at the end.
    state: &'static str,
    told: Told,
}

const ROWS: &[Row] = &[
    Row {
        fault: Fault::StopBeforeRequest,
        requests: 0,
        state: "unknown",
        told: Told::AtFirstLookAfterRestart,
    },
    Row {
        fault: Fault::StopDuringRequest,
        requests: 1,
        state: "unknown",
        told: Told::AtFirstLookAfterRestart,
    },
    Row {
        fault: Fault::StopAfterAnswer,
        requests: 1,
        state: "unknown",
        told: Told::AtFirstLookAfterRestart,
    },
    Row {
        fault: Fault::StopDuringDelivery,
        requests: 1,
        state: "done",
        told: Told::AtFirstLookAfterRestart,
    },
    Row {
        fault: Fault::StopDuringSend,
        requests: 1,
        state: "done",
        told: Told::BeforeTheStop,
    },
    Row {
        fault: Fault::ServerKilled,
        requests: 1,
        state: "failed",
        told: Told::AtTheEnd,
    },
    Row {
        fault: Fault::ServerSilent,
        requests: 1,
        state: "unknown",
        told: Told::AtTheEnd,
    },
    Row {
        fault: Fault::QuotaExceeded,
        requests: 1,
        state: "done",
        told: Told::AtTheEnd,
    },
    Row {
        fault: Fault::TabClosed,
        requests: 1,
        state: "done",
        told: Told::KeptForLater,
    },
    Row {
        fault: Fault::TabReloaded,
        requests: 1,
        state: "done",
        told: Told::AfterReload,
    },
];

/// What one row's transcript showed.
struct Seen {
    requests: usize,
    /// Inserts into the chat before the fault's recovery step (restart or reload), and after.
    told_before: usize,
    told_after: usize,
    record: Value,
    log: Vec<String>,
}

fn look_at(run: &Rc<Runner<Mem>>, page: &str, turns: Value, streaming: bool) {
    // A look may report a failed storage write (the quota row): the loop goes on regardless.
    let _ = ask(run, &content(), look(page, turns, streaming));
}

fn play(fault: Fault) -> Seen {
    let (host, mut run) = loaded();
    let mut log = Vec::new();
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    host.answer(
        "notes",
        "tools/call",
        match fault {
            Fault::ServerKilled => Err(ClientError::Connection {
                url: "http://127.0.0.1:9/mcp".into(),
                message: "connection reset".into(),
            }),
            Fault::ServerSilent => Err(ClientError::Timeout {
                method: "tools/call".into(),
                after_ms: 30_000,
            }),
            _ => ok("added"),
        },
    );
    // The page loads, the user sends, the reply streams its call and ends. The call is admitted
    // as it completes; its run waits in the worker's task queue.
    look_at(&run, "load-1", json!([]), false);
    look_at(&run, "load-1", json!([{"h": 1, "text": CALL}]), true);
    host.0.clock.set(host.0.clock.get() + 2_000);
    look_at(&run, "load-1", json!([{"h": 1}]), false);
    match fault {
        Fault::StopDuringRequest => host.0.hold_mcp.set(true),
        Fault::StopAfterAnswer => {
            *host.0.hold_write.borrow_mut() = Some(Box::new(|key: &str, v: &Value| {
                key.starts_with("call:") && v["state"] == json!("done")
            }))
        }
        Fault::StopDuringDelivery => {
            *host.0.hold_write.borrow_mut() =
                Some(Box::new(|_: &str, v: &Value| v["inFlight"] == json!(true)))
        }
        Fault::StopDuringSend => host.0.hold_insert.set(true),
        Fault::QuotaExceeded => host.0.session_quota.set(Some(host.session_bytes())),
        Fault::TabClosed => host.0.tab_gone.set(true),
        Fault::TabReloaded => *host.0.tab_answer.borrow_mut() = Value::Null,
        _ => {}
    }
    if fault != Fault::StopBeforeRequest {
        host.settle();
    }
    let told_before = host.0.inserted.borrow().len();
    log.extend(host.take_log());
    let stop = matches!(
        fault,
        Fault::StopBeforeRequest
            | Fault::StopDuringRequest
            | Fault::StopAfterAnswer
            | Fault::StopDuringDelivery
            | Fault::StopDuringSend
    );
    if stop {
        host.stop();
        run = restart(&host);
        log.push("-- restart".into());
        // The restarted worker's first look: the page as it was, no reload.
        look_at(&run, "load-1", json!([{"h": 1}]), false);
        host.settle();
    }
    if fault == Fault::TabReloaded {
        *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
        log.push("-- reload".into());
        look_at(&run, "load-2", json!([{"h": 1, "text": CALL}]), false);
        host.settle();
    }
    if fault == Fault::QuotaExceeded {
        host.0.session_quota.set(None);
    }
    let told_after_recovery = host.0.inserted.borrow().len() - told_before;
    // More looks, more time: nothing more may happen.
    for _ in 0..3 {
        host.advance(1_000);
        let page = if fault == Fault::TabReloaded {
            "load-2"
        } else {
            "load-1"
        };
        look_at(&run, page, json!([{"h": 1}]), false);
        host.settle();
    }
    log.extend(host.take_log());
    let records = ask(
        &run,
        &page(),
        json!({"type": "activity/list", "chat": {"tabId": TAB, "url": URL}}),
    )
    .expect("list");
    let told_after = host.0.inserted.borrow().len() - told_before;
    assert_eq!(
        told_after, told_after_recovery,
        "{fault:?}: nothing is told after the recovery's first step: {log:#?}"
    );
    Seen {
        requests: log.iter().filter(|l| *l == "mcp notes tools/call").count(),
        told_before,
        told_after,
        record: records[0].clone(),
        log,
    }
}

#[test]
fn every_fault_keeps_every_call_once_and_every_outcome_once_and_the_chat_told() {
    for row in ROWS {
        let seen = play(row.fault);
        let (fault, log) = (row.fault, &seen.log);
        // No call twice (and the expected number of requests).
        assert_eq!(seen.requests, row.requests, "{fault:?}: {log:#?}");
        assert_eq!(
            seen.record["state"], row.state,
            "{fault:?}: {:#}",
            seen.record
        );
        let told = seen.told_before + seen.told_after;
        match row.told {
            // No outcome twice, none lost.
            Told::AtTheEnd | Told::BeforeTheStop => {
                assert_eq!(
                    (seen.told_before, seen.told_after),
                    (1, 0),
                    "{fault:?}: {log:#?}"
                )
            }
            Told::AtFirstLookAfterRestart | Told::AfterReload => {
                assert_eq!(
                    (seen.told_before, seen.told_after),
                    (0, 1),
                    "{fault:?}: {log:#?}"
                )
            }
            Told::KeptForLater => {
                assert_eq!(told, 0, "{fault:?}: {log:#?}");
                // Not lost: final and not delivered, so the chat's next look takes it.
                assert_eq!(seen.record["delivered"], false, "{fault:?}");
            }
        }
        if told > 0 {
            assert_eq!(
                seen.record["delivered"], true,
                "{fault:?}: {:#}",
                seen.record
            );
        }
        if row.fault == Fault::StopDuringSend {
            // Written before the stop, never confirmed: its card says to check the input.
            assert_eq!(seen.record["unsent"], true, "{:#}", seen.record);
            assert!(seen.record["deliveryNote"].is_string(), "{:#}", seen.record);
        }
        if row.fault == Fault::QuotaExceeded {
            assert!(
                log.iter().any(|l| l.starts_with("quota exceeded")),
                "{log:#?}"
            );
            assert!(
                log.iter().any(|l| l.starts_with("warn")),
                "reported: {log:#?}"
            );
        }
    }
}
