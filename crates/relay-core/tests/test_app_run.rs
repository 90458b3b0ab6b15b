//! `relay_core::app::Runner` on an in-memory host: the order of the IO a request needs, the
//! effects carried out (storage first, in order; calls, cards and deliveries in the background),
//! the tool loop through restarts, and server questions with their timeout. The host records
//! every primitive it performs, so each test reads as a transcript.

// ClientError carries what a user needs (see client::Pool); the tests script such results.
#![allow(clippy::result_large_err)]

use std::future::Future;
use std::task::{Context, Poll, Waker};

use relay_core::app::{
    badge_text, Config, Host, Runner, CONFIG_KEY, ELICITATIONS_KEY, ELICITATION_TIMEOUT_MS,
};
use relay_core::client::jsonrpc::RequestId;
use relay_core::client::{ClientError, Output, ServerConfig, SessionEvent};
use relay_core::contract::storage::{Area, SITES_KEY};
use serde_json::{json, Value};

mod app_harness;
use app_harness::*;

#[test]
fn the_badge_counts_calls_waiting_up_to_99() {
    for (pending, text) in [(0, ""), (1, "1"), (99, "99"), (100, "99+"), (5_000, "99+")] {
        assert_eq!(badge_text(pending), text, "{pending}");
    }
}

/// Each chat tab's badge counts the calls waiting there; the global one counts them all; a tab
/// is set again only when its count changed.
#[test]
fn each_chat_tab_has_its_own_badge() {
    let (host, run) = loaded();
    let ask = relay_core::policy::ToolPolicy::Ask;
    run.app
        .borrow_mut()
        .config
        .set_tool("notes", "add", Some(ask), None);
    let _ = app_harness::ask(&run, &content(), look("load-1", json!([]), false));
    let _ = app_harness::ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), true),
    );
    let _ = app_harness::ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), false),
    );
    host.settle();
    let badges = |log: Vec<String>| -> Vec<String> {
        log.into_iter().filter(|l| l.starts_with("badge")).collect()
    };
    let log = badges(host.take_log());
    assert!(log.contains(&format!("badge tab {TAB} '1'")), "{log:?}");
    assert!(log.contains(&"badge '1'".to_owned()), "{log:?}");
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with(&format!("badge tab {TAB} ")))
            .count(),
        1,
        "set only when its count changed: {log:?}"
    );
    let key = run
        .app
        .borrow()
        .ledger
        .calls
        .keys()
        .next()
        .cloned()
        .expect("a call");
    app_harness::ask(
        &run,
        &page(),
        json!({"type": "activity/decide", "key": key, "decision": "deny"}),
    )
    .expect("denied");
    host.settle();
    let log = badges(host.take_log());
    assert!(log.contains(&format!("badge tab {TAB} ''")), "{log:?}");
    assert!(log.contains(&"badge ''".to_owned()), "{log:?}");
}

#[test]
fn a_state_load_reads_each_area_once_then_makes_the_origin_rules() {
    let host = Mem::default();
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    assert_eq!(
        host.take_log(),
        [
            "read local config,tools,auth,skills",
            "read session ledger,pages",
            "rules []"
        ]
    );
}

#[test]
fn a_new_server_gets_its_origin_rule_before_its_config_is_saved_and_its_tools_listed() {
    let (host, run) = loaded();
    host.answer(
        "notes-2",
        "tools/list",
        Ok(Output::Tools(vec![tool("echo")])),
    );
    let server = json!({"name": "Notes 2", "url": "http://127.0.0.1:10/mcp"});
    // The id is made by the app from the name; the script is keyed by it.
    let view = ask(
        &run,
        &page(),
        json!({"type": "servers/add", "server": server}),
    );
    let view = view.expect("added");
    assert_eq!(view["id"], "notes-2", "{view}");
    assert_eq!(view["state"]["toolCount"], 1, "{view}");
    let log = host.take_log();
    let at = |line: &str| log.iter().position(|l| l.starts_with(line)).expect(line);
    assert!(
        at("rules [notes,notes-2]") < at("write local config"),
        "{log:?}"
    );
    assert!(
        at("write local config") < at("mcp notes-2 tools/list"),
        "{log:?}"
    );
    assert!(
        at("mcp notes-2 tools/list") < at("write local tools"),
        "{log:?}"
    );
}

#[test]
fn a_dead_server_keeps_its_last_tools_in_the_list_unless_it_is_the_one_asked_for() {
    let (host, run) = loaded();
    let all = ask(
        &run,
        &page(),
        json!({"type": "tools/list", "refresh": true}),
    );
    let all = all.expect("listed");
    assert_eq!(all[0]["name"], "add", "{all}");
    assert!(host.take_log().contains(&"mcp notes tools/list".to_owned()));
    let one = json!({"type": "tools/list", "serverId": "notes", "refresh": true});
    let error = ask(&run, &page(), one).expect_err("the server is down");
    assert_eq!(error.kind, "connection", "{error:?}");
}

#[test]
fn a_call_in_a_reply_runs_once_its_card_follows_and_its_result_is_sent_even_across_a_restart() {
    let (host, run) = loaded();
    host.answer("notes", "tools/call", ok("added"));
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    // The page loads with no reply, the user sends, the reply is written and ends.
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    let reply = look("load-1", json!([{"h": 1, "text": CALL}]), true);
    let answer = ask(&run, &content(), reply).expect("read");
    host.advance(2_000);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("ended");
    assert_eq!(
        answer["calls"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
    host.settle();
    let log = host.take_log();
    let calls = log.iter().filter(|l| *l == "mcp notes tools/call").count();
    assert_eq!(calls, 1, "{log:?}");
    assert!(log.contains(&format!("tab {TAB} relay/calls")), "{log:?}");
    assert!(log.contains(&format!("tab {TAB} relay/insert")), "{log:?}");
    // The call's record was written before the call went out, and after its end.
    let record = "write session call:";
    let at = |line: &str| log.iter().position(|l| l == line).expect(line);
    let first = log.iter().position(|l| l.starts_with(record));
    assert!(first < Some(at("mcp notes tools/call")), "{log:?}");
    let last = log.iter().rposition(|l| l.starts_with(record));
    assert!(last > Some(at("mcp notes tools/call")), "{log:?}");

    // A new worker: the page model comes back from session storage. The content script goes
    // on looking (no text: it sent it before), is asked for the text, sends it: nothing runs
    // twice. Then the page reloads and shows the reply again: history.
    let run = restart(&host);
    let again = ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("look");
    assert_eq!(again["resend"], json!([1]), "{again}");
    ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), false),
    )
    .expect("text");
    host.advance(2_000);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("still");
    ask(
        &run,
        &content(),
        look("load-2", json!([{"h": 1, "text": CALL}]), false),
    )
    .expect("reload");
    host.advance(2_000);
    ask(&run, &content(), look("load-2", json!([{"h": 1}]), false)).expect("still");
    host.settle();
    let log = host.take_log();
    assert!(!log.iter().any(|l| l.starts_with("mcp ")), "{log:?}");
    assert!(!log.contains(&format!("tab {TAB} relay/insert")), "{log:?}");
}

#[test]
fn results_a_tab_could_not_take_are_delivered_once_it_can() {
    let (host, run) = loaded();
    host.answer("notes", "tools/call", ok("added"));
    // The content script wrote nothing (a reload was under way).
    *host.0.tab_answer.borrow_mut() = Value::Null;
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    let reply = look("load-1", json!([{"h": 1, "text": CALL}]), true);
    ask(&run, &content(), reply).expect("read");
    host.advance(2_000);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("ended");
    host.settle();
    let first = host.take_log();
    assert!(
        first.contains(&format!("tab {TAB} relay/insert")),
        "{first:?}"
    );
    // The page comes back and reports the reply again: the results go out, the call does not.
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    let reload = look("load-2", json!([{"h": 1, "text": CALL}]), false);
    ask(&run, &content(), reload).expect("read again");
    host.settle();
    let again = host.take_log();
    assert!(
        again.contains(&format!("tab {TAB} relay/insert")),
        "{again:?}"
    );
    assert!(!again.iter().any(|l| l.starts_with("mcp ")), "{again:?}");
}

#[test]
fn a_server_question_waits_in_the_panel_and_is_cancelled_when_nobody_answers_in_time() {
    let (host, run) = loaded();
    let params = json!({"message": "Which list?", "requestedSchema": {"type": "object",
        "properties": {"list": {"type": "string"}}}});
    let event = SessionEvent::Request {
        id: RequestId::Number(3),
        method: "elicitation/create".into(),
        params,
        call: None,
    };
    run.server_event("notes", &event);
    host.settle();
    let waiting = host.stored(Area::Session, ELICITATIONS_KEY);
    assert_eq!(waiting.as_array().map(Vec::len), Some(1), "{waiting}");
    host.advance(ELICITATION_TIMEOUT_MS - 1);
    let still = host.stored(Area::Session, ELICITATIONS_KEY);
    assert_eq!(still.as_array().map(Vec::len), Some(1), "{still}");
    host.advance(1);
    let gone = host.stored(Area::Session, ELICITATIONS_KEY);
    assert_eq!(gone.as_array().map(Vec::len), Some(0), "{gone}");
}

#[test]
fn rare_work_goes_to_the_second_module_and_its_answer_is_the_requests() {
    let (host, run) = loaded();
    host.take_log();
    let file = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]},
        "web": {"url": "https://mcp.example.com/mcp"}, "bad": {"command": 3}}}"#;
    let plan = ask(&run, &page(), json!({"type": "local/plan", "json": file})).expect("a plan");
    assert_eq!(plan["servers"][0]["name"], "fs");
    assert_eq!(plan["skipped"][0]["name"], "bad");
    let preview = ask(
        &run,
        &page(),
        json!({"type": "servers/import", "json": file}),
    )
    .expect("a preview");
    assert_eq!(preview["servers"][0]["name"], "web");
    // Not JSON: the second module's reason is the answer.
    let e = ask(&run, &page(), json!({"type": "local/plan", "json": "{"})).expect_err("not JSON");
    assert!(e.message.contains("not JSON"), "{e:?}");
    let rare: Vec<String> = (host.take_log().into_iter())
        .filter(|l| l.starts_with("rare "))
        .collect();
    assert_eq!(
        rare,
        ["rare localPlan", "rare importServers", "rare localPlan"]
    );
}

#[test]
fn a_removed_custom_site_gives_its_permission_back() {
    let (host, run) = loaded();
    let origin = "https://chat.other.example";
    let add = json!({"type": "sites/add", "origin": origin});
    ask(&run, &page(), add).expect("added");
    ask(
        &run,
        &page(),
        json!({"type": "sites/remove", "origin": origin}),
    )
    .expect("removed");
    let log = host.take_log();
    assert!(log.contains(&format!("release {origin}")), "{log:?}");
    let sites = ask(&run, &page(), json!({"type": "sites/list"})).expect("listed");
    assert_eq!(sites, json!([]));
}

#[test]
fn a_removed_server_gives_back_the_origins_nothing_else_uses() {
    let (host, _) = loaded();
    let mut config: Config =
        serde_json::from_value(host.stored(Area::Local, CONFIG_KEY)).expect("config");
    for (id, url) in [
        ("remote", "https://mcp.example/mcp"),
        ("other", "https://other.example/mcp"),
    ] {
        config.servers.push(ServerConfig::new(id, id, url));
    }
    let config = serde_json::to_value(config).expect("config");
    now(host.write(Area::Local, CONFIG_KEY, &config)).expect("stored");
    // A sign-in as it is stored: the authorization servers the resource names and the
    // endpoints of the one it uses.
    let signed_in = |servers: &[&str], issuer: &str| {
        json!({
            "resourceMetadata": {"authorization_servers": servers},
            "serverMetadata": {
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
            },
        })
    };
    let auth = json!({
        "remote": signed_in(&["https://as.example", "https://shared.example", "https://chat-as.example"], "https://as.example"),
        "other": signed_in(&["https://shared.example"], "https://shared.example"),
    });
    now(host.write(Area::Local, "auth", &auth)).expect("stored");
    let site = json!([{"origin": "https://chat-as.example", "adapter": "generic"}]);
    now(host.write(Area::Local, SITES_KEY, &site)).expect("stored");
    let run = restart(&host);

    ask(
        &run,
        &page(),
        json!({"type": "servers/remove", "id": "remote"}),
    )
    .expect("removed");
    let mut released: Vec<String> = host
        .take_log()
        .into_iter()
        .filter_map(|l| l.strip_prefix("release ").map(str::to_owned))
        .collect();
    released.sort();
    // Its own origin and its authorization server's go back; the one another server's
    // sign-in uses and the one a custom chat site lives on stay.
    assert_eq!(released, ["https://as.example", "https://mcp.example"]);

    // The other server's authorization server goes once nothing uses it.
    ask(
        &run,
        &page(),
        json!({"type": "servers/remove", "id": "other"}),
    )
    .expect("removed");
    let released: Vec<String> = host
        .take_log()
        .into_iter()
        .filter_map(|l| l.strip_prefix("release ").map(str::to_owned))
        .collect();
    assert_eq!(
        released,
        ["https://other.example", "https://shared.example"]
    );
}

#[test]
fn a_sign_in_to_a_server_that_refuses_asks_the_host_for_each_request_of_the_attempt() {
    let (host, run) = loaded();
    let refused = ClientError::Auth {
        url: "http://127.0.0.1:9/mcp".into(),
        status: 401,
        loopback: true,
        www_authenticate: Some(
            "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource\""
                .into(),
        ),
    };
    host.answer("notes", "tools/list", Err(refused));
    let error = ask(
        &run,
        &page(),
        json!({"type": "servers/signIn", "id": "notes"}),
    );
    let error = error.expect_err("the authorization server is offline");
    // Discovery found nothing, so the server's origin stood in for the authorization server
    // (the 2025-03-26 fallbacks), and registering there failed the attempt.
    assert_eq!(error.kind, "auth_transport", "{error:?}");
    assert!(error.message.contains("/register: offline"), "{error:?}");
    let log = host.take_log();
    let at = |line: &str| log.iter().position(|l| l.starts_with(line)).expect(line);
    assert!(
        at("mcp notes tools/list") < at("proof key notes create=true"),
        "{log:?}"
    );
    let discovery = "fetch Get http://127.0.0.1:9/.well-known/oauth-protected-resource";
    assert!(at("proof key notes") < at(discovery), "{log:?}");
    assert!(
        at(discovery) < at("fetch Post http://127.0.0.1:9/register"),
        "{log:?}"
    );
    // The attempt failed before its browser step: no window was opened.
    assert!(!log.iter().any(|l| l.starts_with("browser ")), "{log:?}");
}

#[test]
fn a_sign_in_to_a_server_that_lets_us_in_lists_its_tools_and_answers_its_view() {
    let (host, run) = loaded();
    host.answer("notes", "tools/list", Ok(Output::Tools(vec![tool("add")])));
    host.answer(
        "notes",
        "tools/list",
        Ok(Output::Tools(vec![tool("add"), tool("b")])),
    );
    let view = ask(
        &run,
        &page(),
        json!({"type": "servers/signIn", "id": "notes"}),
    );
    let view = view.expect("signed in: nothing to do");
    assert_eq!(view["id"], "notes", "{view}");
    assert_eq!(view["auth"], Value::Null, "{view}");
    let log = host.take_log();
    assert!(!log.iter().any(|l| l.starts_with("fetch ")), "{log:?}");
    assert_eq!(run.app.borrow().tools["notes"].len(), 2);
}

/// Polls a future once (the in-memory host may hold it).
fn poll_once<F: Future>(future: &mut std::pin::Pin<Box<F>>) -> Poll<F::Output> {
    future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn messages_on_a_cold_start_share_one_load_and_are_answered_as_envelopes() {
    let host = Mem::default();
    let run = Runner::new(host.clone());
    host.0.reads_held.set(true);
    let list = json!({"type": "servers/list"});
    let mut first = Box::pin(run.message(&list, page()));
    let mut second = Box::pin(run.message(&list, page()));
    assert!(poll_once(&mut first).is_pending());
    assert!(poll_once(&mut second).is_pending());
    // A ping is answered at once, without waiting for the load.
    let ping = run
        .answer_at_once(Some("ping"), "content")
        .expect("answered");
    assert_eq!(ping["ok"], true, "{ping}");
    assert_eq!(ping["data"]["role"], "content", "{ping}");
    assert_eq!(run.answer_at_once(Some("servers/list"), "page"), None);
    host.0.reads_held.set(false);
    host.settle();
    for future in [&mut first, &mut second] {
        match poll_once(future) {
            Poll::Ready(answer) => assert_eq!(answer, json!({"ok": true, "data": []})),
            Poll::Pending => panic!("answered once the load is done"),
        }
    }
    let reads = host
        .take_log()
        .iter()
        .filter(|l| l.starts_with("read "))
        .count();
    assert_eq!(reads, 2, "one read per area for both messages");
    // Refused messages are envelopes too.
    let refused = now(run.message(&json!({"type": "page/observe"}), page()));
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(refused["error"]["kind"], "forbidden", "{refused}");
}

#[test]
fn a_load_that_failed_is_answered_as_an_error_and_tried_again_by_the_next_message() {
    let host = Mem::default();
    let run = Runner::new(host.clone());
    host.0.reads_fail.set(true);
    let list = json!({"type": "servers/list"});
    let mut first = Box::pin(run.message(&list, page()));
    assert!(poll_once(&mut first).is_pending());
    host.settle();
    let Poll::Ready(failed) = poll_once(&mut first) else {
        panic!("answered once the load ended");
    };
    assert_eq!(failed["error"]["kind"], "storage", "{failed}");
    host.0.reads_fail.set(false);
    let mut second = Box::pin(run.message(&list, page()));
    assert!(poll_once(&mut second).is_pending());
    host.settle();
    let Poll::Ready(answer) = poll_once(&mut second) else {
        panic!("answered once the load ended");
    };
    assert_eq!(answer, json!({"ok": true, "data": []}));
}

#[test]
fn results_go_back_once_the_reply_that_asked_for_them_has_ended() {
    let (host, run) = loaded();
    host.answer("notes", "tools/call", ok("added"));
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    // The call is complete; the reply goes on streaming (the site shows its Stop control).
    let reply = look("load-1", json!([{"h": 1, "text": CALL}]), true);
    ask(&run, &content(), reply).expect("read");
    host.settle();
    let log = host.take_log();
    assert!(log.contains(&"mcp notes tools/call".to_owned()), "{log:?}");
    assert!(
        !log.contains(&format!("tab {TAB} relay/insert")),
        "not while it streams: {log:?}"
    );
    host.advance(5_000);
    let more = look(
        "load-1",
        json!([{"h": 1, "text": format!("{CALL}\nI will wait.")}]),
        true,
    );
    ask(&run, &content(), more).expect("more");
    host.settle();
    assert!(!host.take_log().contains(&format!("tab {TAB} relay/insert")));
    // The Stop control goes: the reply ends, the result goes in.
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("stop gone");
    host.advance(100);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("ended");
    host.settle();
    let log = host.take_log();
    let inserts = log
        .iter()
        .filter(|l| **l == format!("tab {TAB} relay/insert"))
        .count();
    assert_eq!(inserts, 1, "{log:?}");
}

#[test]
fn a_call_cut_off_by_a_worker_stop_is_told_to_the_chat_at_its_first_look_after_the_restart() {
    let (host, run) = loaded();
    host.answer("notes", "tools/call", ok("added"));
    // The tab takes nothing while this goes on (as if the worker stopped before delivering).
    *host.0.tab_answer.borrow_mut() = Value::Null;
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    ask(
        &run,
        &content(),
        look("load-1", json!([{"h": 1, "text": CALL}]), true),
    )
    .expect("read");
    host.advance(2_000);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("ended");
    host.settle();
    // What storage held when the worker stopped mid-call: the call running, nothing delivered.
    {
        let mut storage = host.0.storage.borrow_mut();
        let records = storage.iter_mut();
        let records =
            records.filter(|((area, key), _)| *area == "session" && key.starts_with("call:"));
        let mut found = 0;
        for (_, rec) in records {
            rec["state"] = json!("running");
            rec["delivered"] = json!(false);
            rec.as_object_mut().map(|r| r.remove("result"));
            found += 1;
        }
        assert_eq!(found, 1, "the call's record was stored");
    }
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    host.settle();
    let log = host.take_log();
    // The restart tells the chat's card (which makes the content script look again).
    assert!(log.contains(&format!("tab {TAB} relay/calls")), "{log:?}");
    // The content script's next look, nothing changed on the page: the outcome goes to the chat.
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("look");
    host.settle();
    let log = host.take_log();
    assert!(
        !log.iter().any(|l| l.starts_with("mcp ")),
        "nothing runs again: {log:?}"
    );
    let inserts = log
        .iter()
        .filter(|l| **l == format!("tab {TAB} relay/insert"))
        .count();
    assert_eq!(
        inserts, 1,
        "the unknown outcome goes to the chat once: {log:?}"
    );
    // And only once: more looks deliver nothing more.
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("look");
    host.settle();
    assert!(!host.take_log().contains(&format!("tab {TAB} relay/insert")));
}

#[test]
fn forty_calls_in_one_reply_come_back_in_one_message_each_outcome_once_in_call_order() {
    let (host, run) = loaded();
    for _ in 0..40 {
        host.answer("notes", "tools/call", ok("added"));
    }
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    ask(&run, &content(), look("load-1", json!([]), false)).expect("page load");
    // The reply streams its 40 calls in four parts; calls run as they complete.
    let call = |i: usize| {
        format!("```json\n{{\"tool\": \"add\", \"arguments\": {{\"text\": \"item {i}\"}}}}\n```\n")
    };
    let mut text = String::from("Adding them all.\n");
    for part in 0..4 {
        for i in part * 10..part * 10 + 10 {
            text.push_str(&call(i));
        }
        ask(
            &run,
            &content(),
            look("load-1", json!([{"h": 1, "text": text}]), true),
        )
        .expect("part");
        host.settle();
        host.advance(100);
    }
    assert!(
        host.0.inserted.borrow().is_empty(),
        "nothing goes back while the reply streams"
    );
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("stop gone");
    host.advance(100);
    ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("ended");
    host.settle();
    // More looks after the end send nothing more.
    for _ in 0..3 {
        host.advance(100);
        ask(&run, &content(), look("load-1", json!([{"h": 1}]), false)).expect("look");
        host.settle();
    }
    let inserted = host.0.inserted.borrow().clone();
    assert_eq!(inserted.len(), 1, "one message: {inserted:#?}");
    let records = ask(
        &run,
        &page(),
        json!({"type": "activity/list", "chat": {"tabId": TAB, "url": URL}}),
    )
    .expect("list");
    let records = records.as_array().expect("records");
    assert_eq!(records.len(), 40, "every call has a record");
    // Each call's outcome once, in call order.
    let mut at = 0;
    for r in records {
        let id = r["callId"].as_str().expect("call id");
        let found = inserted[0][at..].find(id).map(|i| i + at);
        let found = found.unwrap_or_else(|| panic!("{id} in order in {}", inserted[0]));
        assert_eq!(inserted[0].matches(id).count(), 1, "{id} once");
        at = found;
    }
}
