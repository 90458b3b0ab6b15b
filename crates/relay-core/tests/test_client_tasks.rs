//! Tasks (`io.modelcontextprotocol/tasks`) in the sans-IO session against scripted servers: a
//! `tools/call` answered with a task is polled with `tasks/get` at the server's interval
//! (bounded), with the routing headers, until it completes, fails or is cancelled; status
//! messages become progress; an unknown task id and a task past its time to live end the call
//! clearly; the user's Cancel sends `tasks/cancel`; `input_required` questions reach the driver
//! once each and go back with `tasks/update`; a SEP-1686 server (the `task` request param,
//! `tasks/result`) works too; and a task is resumed by id without running the tool again.

mod client_harness;

use std::cell::RefCell;
use std::rc::Rc;

use client_harness::{call_tool, config, server, text_result, Harness, Reply, Req};
use relay_core::client::{
    ClientError, HttpMethod, Operation, Output, SessionConfig, SessionEvent, TaskForm,
    TASKS_EXTENSION_ID,
};
use serde_json::{json, Value};

fn tasks_config() -> SessionConfig {
    let mut cfg = config();
    cfg.discover = true;
    cfg.tasks = true;
    cfg
}

/// A 2026-07-28 server declaring the tasks extension; `handler` answers everything else.
fn stateless_server(
    mut handler: impl FnMut(&Req) -> Option<Reply> + 'static,
) -> impl FnMut(&Req, &mut client_harness::Ctx) -> Reply + 'static {
    server("2025-11-25", move |req, _| {
        if req.rpc_method() == "server/discover" {
            return Some(Reply::result(
                &req.id(),
                json!({
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION_ID: {}}},
                    "serverInfo": {"name": "tasks", "version": "1.0"}
                }),
            ));
        }
        handler(req)
    })
}

/// A SEP-2663 task object.
fn task(id: &str, status: &str, message: &str, poll_ms: u64, ttl_ms: Value) -> Value {
    json!({
        "taskId": id, "status": status, "statusMessage": message,
        "createdAt": "2026-11-29T10:00:00Z", "lastUpdatedAt": "2026-11-29T10:00:00Z",
        "ttlMs": ttl_ms, "pollIntervalMs": poll_ms
    })
}

/// A CreateTaskResult (SEP-2663) for `tools/call`.
fn created(id: &str, poll_ms: u64, ttl_ms: Value) -> Value {
    let mut t = task(id, "working", "Started", poll_ms, ttl_ms);
    t["resultType"] = json!("task");
    t
}

fn posts<'a>(h: &'a Harness, method: &str) -> Vec<&'a Req> {
    h.requests
        .iter()
        .filter(|r| r.method == HttpMethod::Post && r.rpc_method() == method)
        .collect()
}

/// When each `tasks/get` went out, from the transcript.
fn poll_times(h: &Harness) -> Vec<u64> {
    h.log
        .lines()
        .filter(|l| l.contains("] tasks/get id="))
        .filter_map(|l| {
            l.strip_prefix("t=")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

fn progress_messages(h: &Harness) -> Vec<String> {
    h.events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Progress { message, .. } => message.clone(),
            _ => None,
        })
        .collect()
}

fn text_of(output: &Output) -> String {
    match output {
        Output::ToolResult(r) => serde_json::to_value(r).unwrap()["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        other => panic!("not a tool result: {other:?}"),
    }
}

/// A server whose `slow` tool answers with task `t1`, then `tasks/get` answers from `script`
/// (one status per poll, the last repeated).
fn scripted_task(
    poll_ms: u64,
    ttl_ms: Value,
    script: Vec<Value>,
) -> impl FnMut(&Req) -> Option<Reply> + 'static {
    let mut polls = 0usize;
    move |req| match req.rpc_method() {
        "tools/call" => Some(Reply::result(
            &req.id(),
            created("t1", poll_ms, ttl_ms.clone()),
        )),
        "tasks/get" => {
            let mut answer = script[polls.min(script.len() - 1)].clone();
            polls += 1;
            answer["resultType"] = json!("complete");
            Some(Reply::result(&req.id(), answer))
        }
        "tasks/cancel" | "tasks/update" => {
            Some(Reply::result(&req.id(), json!({"resultType": "complete"})))
        }
        _ => None,
    }
}

#[test]
fn a_task_is_polled_at_the_servers_interval_until_it_completes() {
    let mut done = task("t1", "completed", "Done", 500, json!(60_000));
    done["result"] = text_result("the report");
    let script = vec![
        task("t1", "working", "Gathering sources", 500, json!(60_000)),
        task("t1", "working", "Gathering sources", 500, json!(60_000)),
        task("t1", "working", "Analyzing", 500, json!(60_000)),
        done,
    ];
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(500, json!(60_000), script)),
    );
    let call = h.submit(call_tool("slow", json!({"topic": "rust"})));
    h.run(10_000);
    assert_eq!(text_of(h.ok(call)), "the report");
    assert_eq!(posts(&h, "tools/call").len(), 1, "the tool ran once");
    let gets = posts(&h, "tasks/get");
    assert_eq!(gets.len(), 4);
    for get in &gets {
        assert_eq!(get.params()["taskId"], "t1");
        assert_eq!(get.header("Mcp-Method"), Some("tasks/get"));
        assert_eq!(get.header("Mcp-Name"), Some("t1"));
    }
    let times = poll_times(&h);
    assert!(
        times.windows(2).all(|w| w[1] - w[0] >= 500),
        "polls follow the server's interval: {times:?}"
    );
    let call_req = posts(&h, "tools/call")[0].params();
    assert_eq!(
        call_req["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            [TASKS_EXTENSION_ID],
        json!({}),
        "the extension is declared on the request"
    );
    assert_eq!(
        progress_messages(&h),
        ["Started", "Gathering sources", "Analyzing", "Done"],
        "each new status message is progress, once"
    );
    assert!(h.events.iter().any(|e| matches!(e,
        SessionEvent::TaskCreated { task_id, form: TaskForm::Extension, .. } if task_id == "t1")));
}

#[test]
fn the_poll_interval_is_bounded_both_ways() {
    for (asked, expected) in [(1u64, 250u64), (10_000_000, 30_000)] {
        let script = vec![task("t1", "working", "w", asked, Value::Null)];
        let mut h = Harness::new(
            tasks_config(),
            stateless_server(scripted_task(asked, Value::Null, script)),
        );
        let call = h.submit(call_tool("slow", json!({})));
        h.run(95_000);
        let times = poll_times(&h);
        assert!(times.len() >= 3, "{times:?}");
        for w in times.windows(2) {
            assert_eq!(w[1] - w[0], expected, "asked {asked}: {times:?}");
        }
        assert!(
            !h.results.contains_key(&call),
            "a working task keeps the call open"
        );
    }
}

#[test]
fn a_failed_task_is_an_error_with_the_servers_message() {
    let mut failed = task("t1", "failed", "Tool execution failed", 300, json!(60_000));
    failed["error"] = json!({"code": -32603, "message": "API rate limit exceeded"});
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(300, json!(60_000), vec![failed])),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(5_000);
    let error = h.err(call);
    assert!(
        matches!(error, ClientError::Tool { message, .. } if message == "API rate limit exceeded"),
        "{error:?}"
    );
    assert!(
        !error.may_have_run(),
        "the task ended: its outcome is known"
    );
}

#[test]
fn a_task_the_server_cancelled_ends_the_call() {
    let cancelled = task("t1", "cancelled", "Operator stopped it", 300, json!(60_000));
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(300, json!(60_000), vec![cancelled])),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(5_000);
    let error = h.err(call).to_string();
    assert!(error.contains("Operator stopped it"), "{error}");
}

#[test]
fn an_unknown_task_id_ends_the_call_clearly() {
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(|req| match req.rpc_method() {
            "tools/call" => Some(Reply::result(&req.id(), created("t9", 300, json!(60_000)))),
            "tasks/get" => Some(Reply::error(
                &req.id(),
                -32602,
                "Failed to retrieve task: Task not found",
            )),
            _ => None,
        }),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(5_000);
    let error = h.err(call);
    let text = error.to_string();
    assert!(
        text.contains("no longer knows its task t9") && text.contains("Task not found"),
        "{text}"
    );
    assert_eq!(posts(&h, "tasks/get").len(), 1, "not polled again");
    assert_eq!(posts(&h, "tools/call").len(), 1, "never run again");
}

#[test]
fn a_task_past_its_time_to_live_ends_the_call() {
    let script = vec![task("t1", "working", "still going", 800, json!(2_000))];
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(800, json!(2_000), script)),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(10_000);
    let text = h.err(call).to_string();
    assert!(text.contains("time to live"), "{text}");
    let times = poll_times(&h);
    assert_eq!(
        times.last().copied(),
        Some(2_000),
        "one last look when the time to live runs out: {times:?}"
    );
}

#[test]
fn cancel_sends_tasks_cancel_and_stops_polling() {
    let script = vec![task("t1", "working", "w", 500, json!(60_000))];
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(500, json!(60_000), script)),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(1_200);
    let polls = posts(&h, "tasks/get").len();
    assert!(polls >= 1);
    h.cancel(call);
    h.run(5_000);
    assert!(h.results.contains_key(&call), "the call ended");
    let cancels = posts(&h, "tasks/cancel");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].params()["taskId"], "t1");
    assert_eq!(cancels[0].header("Mcp-Name"), Some("t1"));
    assert_eq!(
        posts(&h, "tasks/get").len(),
        polls,
        "no poll after the cancel"
    );
    assert!(posts(&h, "notifications/cancelled").is_empty());
}

/// Two questions at once, asked on every poll until answered: each reaches the driver once;
/// each answer goes out as it comes (a partial set), and the task completes after both.
#[test]
fn input_required_questions_reach_the_driver_once_and_go_back_with_tasks_update() {
    let asking = |keys: &[&str]| {
        let mut t = task(
            "t1",
            "input_required",
            "Need clarification",
            400,
            json!(60_000),
        );
        let mut requests = serde_json::Map::new();
        for key in keys {
            requests.insert(
                (*key).to_owned(),
                json!({"method": "elicitation/create", "params": {
                    "mode": "form", "message": format!("{key}?"),
                    "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}}}),
            );
        }
        t["inputRequests"] = Value::Object(requests);
        t
    };
    let answered: Rc<RefCell<Vec<String>>> = Rc::default();
    let seen = answered.clone();
    let mut h = Harness::new(
        {
            let mut cfg = tasks_config();
            cfg.elicitation = true;
            cfg
        },
        stateless_server(move |req| match req.rpc_method() {
            "tools/call" => Some(Reply::result(&req.id(), created("t1", 400, json!(60_000)))),
            "tasks/update" => {
                let responses = req.params()["inputResponses"].clone();
                seen.borrow_mut()
                    .extend(responses.as_object().unwrap().keys().cloned());
                Some(Reply::result(&req.id(), json!({"resultType": "complete"})))
            }
            "tasks/get" => {
                let got = seen.borrow().clone();
                let open: Vec<&str> = ["a", "b"]
                    .into_iter()
                    .filter(|k| !got.iter().any(|g| g == k))
                    .collect();
                let mut answer = if open.is_empty() {
                    let mut t = task("t1", "completed", "Done", 400, json!(60_000));
                    t["result"] = text_result("answered");
                    t
                } else {
                    asking(&open)
                };
                answer["resultType"] = json!("complete");
                Some(Reply::result(&req.id(), answer))
            }
            _ => None,
        }),
    );
    let call = h.submit(call_tool("ask", json!({})));
    h.run(3_000);
    let asks: Vec<relay_core::client::jsonrpc::RequestId> = h
        .events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Request {
                id,
                method,
                call: c,
                ..
            } => {
                assert_eq!(method, "elicitation/create");
                assert_eq!(*c, Some(call));
                Some(id.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), 2, "each question once, across polls");
    assert!(
        posts(&h, "tasks/get").len() >= 3,
        "polling goes on meanwhile"
    );
    assert!(posts(&h, "tasks/update").is_empty());
    let id_of = |key: &str| {
        h.events
            .iter()
            .find_map(|e| match e {
                SessionEvent::Request { id, params, .. }
                    if params["message"] == format!("{key}?") =>
                {
                    Some(id.clone())
                }
                _ => None,
            })
            .expect("asked")
    };
    let (a, b) = (id_of("a"), id_of("b"));
    let now = h.now;
    h.session.respond(
        a,
        Ok(json!({"action": "accept", "content": {"v": "x"}})),
        now,
    );
    h.run(1_000);
    let updates = posts(&h, "tasks/update");
    assert_eq!(updates.len(), 1, "a partial answer goes out at once");
    assert_eq!(
        updates[0].params()["inputResponses"],
        json!({"a": {"action": "accept", "content": {"v": "x"}}})
    );
    assert_eq!(updates[0].header("Mcp-Name"), Some("t1"));
    assert!(!h.results.contains_key(&call));
    let now = h.now;
    h.session.respond(b, Ok(json!({"action": "decline"})), now);
    h.run(3_000);
    assert_eq!(text_of(h.ok(call)), "answered");
    let updates = posts(&h, "tasks/update");
    assert_eq!(updates.len(), 2);
    assert_eq!(
        updates[1].params()["inputResponses"],
        json!({"b": {"action": "decline"}})
    );
    assert_eq!(*answered.borrow(), ["a", "b"]);
}

/// Without elicitation declared, a task's question is declined by the client itself (nobody
/// was shown anything), as for any other server request.
#[test]
fn without_elicitation_a_tasks_question_is_declined() {
    let mut asked = task("t1", "input_required", "?", 300, json!(60_000));
    asked["inputRequests"] =
        json!({"q": {"method": "elicitation/create", "params": {"message": "?"}}});
    let mut done = task("t1", "completed", "Done", 300, json!(60_000));
    done["result"] = text_result("fine");
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(300, json!(60_000), vec![asked, done])),
    );
    let call = h.submit(call_tool("slow", json!({})));
    h.run(5_000);
    assert_eq!(text_of(h.ok(call)), "fine");
    let updates = posts(&h, "tasks/update");
    assert_eq!(updates.len(), 1);
    assert_eq!(
        updates[0].params()["inputResponses"],
        json!({"q": {"action": "decline"}})
    );
    assert!(!h
        .events
        .iter()
        .any(|e| matches!(e, SessionEvent::Request { .. })));
}

/// A SEP-1686 server (server-everything's SDK): the tool's `execution.taskSupport` makes the
/// client ask for a task with the `task` param; `tasks/get` is polled, and the result comes
/// with `tasks/result`.
#[test]
fn a_sep_1686_server_is_asked_for_a_task_and_its_result_fetched_with_tasks_result() {
    let mut polls = 0;
    let mut cfg = config();
    cfg.tasks = true;
    let legacy_task = |status: &str, message: &str| {
        json!({"taskId": "old-1", "status": status, "statusMessage": message, "ttl": 300_000,
               "pollInterval": 1_000, "createdAt": "2026-11-29T10:00:00Z"})
    };
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", move |req, _| match req.rpc_method() {
            "tools/list" => Some(Reply::result(
                &req.id(),
                json!({"tools": [
                    {"name": "research", "inputSchema": {"type": "object"},
                     "execution": {"taskSupport": "required"}},
                    {"name": "echo", "inputSchema": {"type": "object"}}
                ]}),
            )),
            "tools/call" if req.params()["name"] == "echo" => {
                Some(Reply::result(&req.id(), text_result("plain")))
            }
            "tools/call" => Some(Reply::result(
                &req.id(),
                json!({"task": legacy_task("working", "Gathering sources...")}),
            )),
            "tasks/get" => {
                polls += 1;
                let status = if polls < 3 { "working" } else { "completed" };
                Some(Reply::result(
                    &req.id(),
                    legacy_task(status, "Analyzing content..."),
                ))
            }
            "tasks/result" => Some(Reply::result(&req.id(), text_result("# Research Report"))),
            _ => None,
        }),
    );
    let listed = h.submit(Operation::ListTools { refresh: true });
    h.run(1_000);
    h.ok(listed);
    let plain = h.submit(call_tool("echo", json!({})));
    let call = h.submit(call_tool("research", json!({"topic": "python"})));
    h.run(10_000);
    assert_eq!(text_of(h.ok(plain)), "plain");
    assert_eq!(text_of(h.ok(call)), "# Research Report");
    let calls = posts(&h, "tools/call");
    let research = calls
        .iter()
        .find(|r| r.params()["name"] == "research")
        .expect("sent");
    assert_eq!(research.params()["task"], json!({}), "a task is asked for");
    let echo = calls
        .iter()
        .find(|r| r.params()["name"] == "echo")
        .expect("sent");
    assert!(
        echo.params().get("task").is_none(),
        "only where the tool allows one"
    );
    assert_eq!(posts(&h, "tasks/get").len(), 3);
    let results = posts(&h, "tasks/result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].params()["taskId"], "old-1");
    assert_eq!(
        progress_messages(&h),
        ["Gathering sources...", "Analyzing content..."]
    );
    assert!(h.events.iter().any(|e| matches!(e,
        SessionEvent::TaskCreated { task_id, form: TaskForm::Legacy, .. } if task_id == "old-1")));
}

/// SEP-1686's `input_required`: the question comes on the `tasks/result` stream as an
/// elicitation request; the answer is a reply, and the result follows on the same stream.
#[test]
fn a_sep_1686_question_comes_with_tasks_result() {
    let mut cfg = config();
    cfg.tasks = true;
    cfg.elicitation = true;
    let mut h = Harness::new(
        cfg,
        server("2025-11-25", move |req, ctx| match req.rpc_method() {
            "tools/list" => Some(Reply::result(
                &req.id(),
                json!({"tools": [{"name": "research", "inputSchema": {"type": "object"},
                                  "execution": {"taskSupport": "optional"}}]}),
            )),
            "tools/call" => Some(Reply::result(
                &req.id(),
                json!({"task": {"taskId": "old-2", "status": "working", "ttl": null,
                                "pollInterval": 500, "createdAt": "2026-11-29T10:00:00Z"}}),
            )),
            "tasks/get" => Some(Reply::result(
                &req.id(),
                json!({"taskId": "old-2", "status": "input_required", "ttl": null,
                       "createdAt": "2026-11-29T10:00:00Z"}),
            )),
            "tasks/result" => {
                let ask = json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                    "params": {"message": "Which python?", "requestedSchema": {"type": "object"}}});
                let done = json!({"jsonrpc": "2.0", "id": req.id(),
                    "result": text_result("python (snake)")});
                ctx.push("result", 0, client_harness::event(ask));
                ctx.push("result", 2_000, client_harness::event(done));
                Some(Reply::sse(&[]).open("result"))
            }
            _ => None,
        }),
    );
    let listed = h.submit(Operation::ListTools { refresh: true });
    h.run(1_000);
    h.ok(listed);
    let call = h.submit(call_tool("research", json!({})));
    h.run(1_500);
    let asked = h.events.iter().find_map(|e| match e {
        SessionEvent::Request { id, method, .. } if method == "elicitation/create" => {
            Some(id.clone())
        }
        _ => None,
    });
    let id = asked.expect("the question reached the driver");
    let now = h.now;
    h.session.respond(
        id,
        Ok(json!({"action": "accept", "content": {"v": "snake"}})),
        now,
    );
    h.run(5_000);
    assert_eq!(text_of(h.ok(call)), "python (snake)");
    assert_eq!(posts(&h, "tasks/result").len(), 1);
}

/// After the caller restarted, a task is polled by its id: the tool is never called again and
/// the call's result is the task's.
#[test]
fn a_resumed_task_is_polled_without_running_the_tool_again() {
    let mut done = task("t1", "completed", "Done", 300, json!(60_000));
    done["result"] = text_result("after the restart");
    let script = vec![task("t1", "working", "w", 300, json!(60_000)), done];
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(scripted_task(300, json!(60_000), script)),
    );
    let call = h.submit(Operation::ResumeTask {
        name: "slow".to_owned(),
        task_id: "t1".to_owned(),
        form: TaskForm::Extension,
    });
    h.run(5_000);
    assert_eq!(text_of(h.ok(call)), "after the restart");
    assert!(posts(&h, "tools/call").is_empty(), "never a second run");
    assert_eq!(posts(&h, "tasks/get").len(), 2);
}

/// A resumed task the server no longer knows ends the call as unknown, with the reason.
#[test]
fn a_resumed_task_the_server_forgot_is_unknown() {
    let mut h = Harness::new(
        tasks_config(),
        stateless_server(|req| match req.rpc_method() {
            "tasks/get" => Some(Reply::error(&req.id(), -32602, "Task not found")),
            _ => None,
        }),
    );
    let call = h.submit(Operation::ResumeTask {
        name: "slow".to_owned(),
        task_id: "gone".to_owned(),
        form: TaskForm::Extension,
    });
    h.run(5_000);
    let error = h.err(call);
    assert!(error.may_have_run());
    assert!(
        error.to_string().contains("no longer knows its task gone"),
        "{error}"
    );
}

/// A 2025-11-25 server that knows a task only in the session that created it (as
/// server-everything does), and forgets sessions it is told are gone (`alive`); its session
/// ids count on from `sessions`.
fn per_session_server(
    alive: Rc<RefCell<Vec<String>>>,
    mut sessions: usize,
) -> impl FnMut(&Req, &mut client_harness::Ctx) -> Reply + 'static {
    let task = |status: &str| {
        json!({"taskId": "r-1", "status": status, "ttl": 300_000, "pollInterval": 500,
               "createdAt": "2026-11-29T10:00:00Z"})
    };
    let known = alive.clone();
    move |req, _| {
        let session = req.header("mcp-session-id").map(str::to_owned);
        match req.rpc_method() {
            "initialize" => {
                sessions += 1;
                let id = format!("sess-{sessions}");
                known.borrow_mut().push(id.clone());
                let init = client_harness::init_result("2025-11-25");
                Reply::result(&req.id(), init).header("mcp-session-id", &id)
            }
            _ if req.method != HttpMethod::Post => Reply::status(405, "Method Not Allowed"),
            _ if session.as_ref().is_none_or(|s| !known.borrow().contains(s)) => {
                Reply::status(404, "Session not found")
            }
            "tools/list" => Reply::result(
                &req.id(),
                json!({"tools": [{"name": "research", "inputSchema": {"type": "object"},
                                  "execution": {"taskSupport": "required"}}]}),
            ),
            "tools/call" => Reply::result(&req.id(), json!({"task": task("working")})),
            // Only the session that created the task knows it.
            "tasks/get" if session.as_deref() == Some("sess-1") => {
                Reply::result(&req.id(), task("completed"))
            }
            "tasks/get" => Reply::error(&req.id(), -32602, "Task not found"),
            "tasks/result" => Reply::result(&req.id(), text_result("# Research Report")),
            _ => Reply::accepted(),
        }
    }
}

/// A caller that restarted goes on in the session its task was created in (the server knows
/// the task only there): no new `initialize`, the task's result, no second run. When the
/// server has forgotten that session, a new one starts and the task ends unknown, clearly.
#[test]
fn a_resumed_task_is_polled_in_the_session_it_was_created_in() {
    let mut cfg = config();
    cfg.tasks = true;
    let alive = Rc::new(RefCell::new(Vec::new()));
    let mut first = Harness::new(cfg.clone(), per_session_server(alive.clone(), 0));
    let listed = first.submit(Operation::ListTools { refresh: true });
    first.run(1_000);
    first.ok(listed);
    let _call = first.submit(call_tool("research", json!({})));
    first.run(100);
    assert!(first
        .events
        .iter()
        .any(|e| matches!(e, SessionEvent::TaskCreated { .. })));
    let snapshot = first.session.snapshot().expect("a session to take up");
    assert_eq!(snapshot.session_id, "sess-1");
    // The caller stops; a new one starts from the snapshot.
    let resume = || Operation::ResumeTask {
        name: "research".to_owned(),
        task_id: "r-1".to_owned(),
        form: TaskForm::Legacy,
    };
    let mut again = Harness::new(cfg.clone(), per_session_server(alive.clone(), 0));
    assert!(again.session.adopt(snapshot.clone(), 0));
    let call = again.submit(resume());
    again.run(5_000);
    assert_eq!(text_of(again.ok(call)), "# Research Report");
    assert!(posts(&again, "initialize").is_empty(), "the same session");
    assert!(posts(&again, "tools/call").is_empty(), "never a second run");
    let asked = posts(&again, "tasks/get");
    assert_eq!(asked[0].header("mcp-session-id"), Some("sess-1"));
    // A session that is under way already is not replaced.
    assert!(!again.session.adopt(snapshot.clone(), again.now));

    // The server restarted meanwhile: the old session is gone.
    alive.borrow_mut().clear();
    let mut late = Harness::new(cfg, per_session_server(alive, 1));
    assert!(late.session.adopt(snapshot, 0));
    let call = late.submit(resume());
    late.run(10_000);
    let error = late.err(call);
    assert!(error.may_have_run(), "{error}");
    assert!(
        error.to_string().contains("no longer knows its task r-1"),
        "{error}"
    );
    assert_eq!(posts(&late, "initialize").len(), 1, "a new session");
}

/// Tools kept from an earlier run (the caller restarted; nothing listed since) still say which
/// calls ask for a task: a `required` tool is called with the `task` param, without listing
/// first, and the listing is still asked for when wanted (what was kept is never fresh).
#[test]
fn remembered_tools_still_ask_for_a_task_before_the_next_listing() {
    let mut cfg = config();
    cfg.tasks = true;
    let alive = Rc::new(RefCell::new(Vec::new()));
    let mut h = Harness::new(cfg, per_session_server(alive, 0));
    let kept: relay_core::model::Tool = serde_json::from_value(json!({
        "name": "research", "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"}
    }))
    .expect("a tool");
    h.session.remember_tools(vec![kept]);
    let call = h.submit(call_tool("research", json!({})));
    h.run(5_000);
    assert_eq!(text_of(h.ok(call)), "# Research Report");
    assert!(posts(&h, "tools/list").is_empty(), "no listing needed");
    assert_eq!(posts(&h, "tools/call")[0].params()["task"], json!({}));
    let listed = h.submit(Operation::ListTools { refresh: false });
    h.run(1_000);
    h.ok(listed);
    assert_eq!(
        posts(&h, "tools/list").len(),
        1,
        "what was kept is not fresh"
    );
}
