//! The multi-server [`Pool`] against scripted servers and a fake clock, driven the way
//! relay-wasm's `McpClient` drives it over `fetch`: every `Send` is answered (or not) by the
//! script, every `Abort` stops delivery, the one timer follows `poll_timeout`. Each test checks
//! what the driver is told: which exchanges to start and abort, which operation completes with
//! what, where progress and events go.

mod client_harness;

use std::collections::{BTreeMap, BTreeSet};

use client_harness::{call_tool, list, server, text_result, tool, Ctx, Reply, Req};
use relay_core::client::{
    ClientError, ExchangeId, HttpMethod, OpId, Operation, Output, Pool, PoolAction, PoolOptions,
    ResponseHead, ServerConfig, SessionEvent,
};
use serde_json::{json, Value};

type Script = Box<dyn FnMut(&Req, &mut Ctx) -> Reply>;

/// A pool, one scripted server per URL, a clock, and what the driver was told.
struct Driver {
    pool: Pool,
    now: u64,
    scripts: BTreeMap<String, Script>,
    /// Replies due: (time, seq) → (exchange, reply).
    due: BTreeMap<(u64, u64), (ExchangeId, Reply)>,
    seq: u64,
    in_flight: BTreeSet<ExchangeId>,
    most_in_flight: usize,
    aborted: BTreeSet<ExchangeId>,
    /// Exchanges whose reader the driver stopped because the pool no longer wanted them.
    unwanted: Vec<ExchangeId>,
    sent: Vec<Req>,
    results: BTreeMap<OpId, Result<Output, ClientError>>,
    progress: Vec<(OpId, f64)>,
    events: Vec<(String, SessionEvent)>,
}

fn url(n: u16) -> String {
    format!("http://127.0.0.1:{n}/mcp")
}

fn config(id: &str, port: u16) -> ServerConfig {
    ServerConfig::new(id, id, url(port))
}

/// A well-behaved server whose tools answer after `delay_ms`.
fn echo_server(delay_ms: u64) -> Script {
    Box::new(server("2025-11-25", move |req, _| match req.rpc_method() {
        "tools/list" => Some(Reply::result(&req.id(), json!({"tools": [tool("echo")]}))),
        "tools/call" => {
            let text = req.params()["arguments"]["message"].clone();
            Some(Reply::result(&req.id(), text_result(text.as_str().unwrap_or(""))).delay(delay_ms))
        }
        _ => None,
    }))
}

impl Driver {
    fn new(options: PoolOptions, servers: Vec<(ServerConfig, Script)>) -> Driver {
        let mut pool = Pool::new(options, 7);
        let mut scripts = BTreeMap::new();
        let mut configs = Vec::new();
        for (config, script) in servers {
            scripts.insert(config.url.clone(), script);
            configs.push(config);
        }
        pool.set_servers(configs);
        Driver {
            pool,
            now: 0,
            scripts,
            due: BTreeMap::new(),
            seq: 0,
            in_flight: BTreeSet::new(),
            most_in_flight: 0,
            aborted: BTreeSet::new(),
            unwanted: Vec::new(),
            sent: Vec::new(),
            results: BTreeMap::new(),
            progress: Vec::new(),
            events: Vec::new(),
        }
    }

    fn submit(&mut self, server: &str, op: Operation, key: Option<&str>) -> OpId {
        self.pool
            .submit(server, op, key.map(str::to_owned), self.now)
            .expect("submitted")
    }

    /// Performs what the pool asks until nothing is due within `limit_ms`.
    fn run(&mut self, limit_ms: u64) {
        let end = self.now + limit_ms;
        for _ in 0..100_000 {
            if let Some(action) = self.pool.poll_action() {
                self.perform(action);
                continue;
            }
            let next_reply = self.due.keys().next().copied();
            if let Some(key) = next_reply.filter(|(t, _)| *t <= self.now) {
                let (exchange, reply) = self.due.remove(&key).expect("present");
                self.deliver(exchange, reply);
                continue;
            }
            let next = [self.pool.poll_timeout(), next_reply.map(|(t, _)| t)]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(t) if t <= end => {
                    self.now = self.now.max(t);
                    if self.pool.poll_timeout().is_some_and(|at| at <= self.now) {
                        self.pool.handle_timeout(self.now);
                    }
                }
                _ => {
                    self.now = end;
                    return;
                }
            }
        }
        panic!("the pool did not settle");
    }

    fn perform(&mut self, action: PoolAction) {
        match action {
            PoolAction::Send(request) => {
                let req = Req {
                    method: request.method,
                    url: request.url.clone(),
                    headers: request.headers.clone(),
                    body: request
                        .body
                        .as_deref()
                        .map(|b| serde_json::from_str(b).expect("JSON body")),
                };
                self.sent.push(req.clone());
                self.in_flight.insert(request.exchange);
                self.most_in_flight = self.most_in_flight.max(self.in_flight.len());
                let script = self.scripts.get_mut(&request.url).expect("a scripted url");
                let reply = script(&req, &mut Ctx::default());
                self.seq += 1;
                self.due.insert(
                    (self.now + reply.delay_ms, self.seq),
                    (request.exchange, reply),
                );
            }
            PoolAction::Abort(exchange) => {
                self.aborted.insert(exchange);
                self.in_flight.remove(&exchange);
            }
            PoolAction::Complete { op, result } => {
                assert!(self.results.insert(op, result).is_none(), "completed twice");
            }
            PoolAction::Progress { op, progress } => self.progress.push((op, progress.progress)),
            PoolAction::Event { server, event } => self.events.push((server, event)),
            other => panic!("unexpected action {other:?}"),
        }
    }

    fn deliver(&mut self, exchange: ExchangeId, reply: Reply) {
        if self.aborted.contains(&exchange) || reply.hang {
            return;
        }
        self.in_flight.remove(&exchange);
        if let Some(message) = reply.fail {
            self.pool
                .handle_transport_error(exchange, message, self.now);
            return;
        }
        let head = ResponseHead::new(reply.status, reply.headers.clone());
        if !self.pool.handle_response_head(exchange, head, self.now) {
            self.unwanted.push(exchange);
            return;
        }
        for chunk in &reply.chunks {
            if !self.pool.handle_body(exchange, chunk, self.now) {
                self.unwanted.push(exchange);
                return;
            }
        }
        self.pool.handle_body_end(exchange, self.now);
    }

    fn ok(&self, op: OpId) -> &Output {
        match self.results.get(&op) {
            Some(Ok(output)) => output,
            other => panic!("op {op:?} did not succeed: {other:?}"),
        }
    }

    fn err_kind(&self, op: OpId) -> &'static str {
        match self.results.get(&op) {
            Some(Err(e)) => e.kind().as_str(),
            other => panic!("op {op:?} did not fail: {other:?}"),
        }
    }

    fn count(&self, port: u16, rpc: &str) -> usize {
        self.sent
            .iter()
            .filter(|r| r.url == url(port) && r.rpc_method() == rpc)
            .count()
    }
}

/// Options without the GET stream, so every exchange is a request's.
fn quiet() -> PoolOptions {
    let mut options = PoolOptions::default();
    options.listen = false;
    options
}

fn echo(message: &str) -> Operation {
    call_tool("echo", json!({ "message": message }))
}

fn text(output: &Output) -> String {
    serde_json::to_value(output).expect("serializes")["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn operations_reach_their_server_and_complete_their_own_operation() {
    let mut d = Driver::new(
        PoolOptions::default(),
        vec![
            (config("a", 4001), echo_server(30)),
            (config("b", 4002), echo_server(10)),
        ],
    );
    let ops: Vec<(OpId, &str)> = (0..6)
        .map(|i| {
            let (server, message) = [("a", "to a"), ("b", "to b")][i % 2];
            (
                d.submit(server, echo(&format!("{message} {i}")), None),
                server,
            )
        })
        .collect();
    d.run(1_000);
    for (i, (op, server)) in ops.iter().enumerate() {
        assert_eq!(text(d.ok(*op)), format!("to {server} {i}"));
    }
    // One session per server, reused by every call.
    assert_eq!(
        (d.count(4001, "initialize"), d.count(4002, "initialize")),
        (1, 1)
    );
    assert_eq!(
        (d.count(4001, "tools/call"), d.count(4002, "tools/call")),
        (3, 3)
    );
    let connected: Vec<&str> = d
        .events
        .iter()
        .filter(|(_, e)| matches!(e, SessionEvent::Connected(_)))
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(connected.len(), 2);
    assert!(connected.contains(&"a") && connected.contains(&"b"));
    let status = d.pool.status();
    assert!(status
        .iter()
        .all(|s| s.connected && s.stats.initialize_requests == 1));
}

#[test]
fn unknown_and_disabled_servers_are_refused_at_once() {
    let mut off = config("off", 4003);
    off.enabled = false;
    let mut d = Driver::new(PoolOptions::default(), vec![(off, echo_server(0))]);
    for (server, want) in [
        ("nope", "no server with id `nope`"),
        ("off", "server `off` is disabled"),
    ] {
        let error = d.pool.submit(server, list(), None, 0).expect_err(server);
        assert_eq!(error.kind(), "config");
        assert!(error.to_string().contains(want), "{error}");
    }
    d.run(100);
    assert!(d.sent.is_empty());
}

#[test]
fn the_concurrency_limit_holds_per_server() {
    for limit in [1usize, 2, 5] {
        let mut options = PoolOptions::default();
        options.max_concurrent = limit;
        options.listen = false;
        let mut d = Driver::new(options, vec![(config("a", 4001), echo_server(50))]);
        d.submit("a", list(), None);
        d.run(100);
        d.most_in_flight = 0;
        let ops: Vec<OpId> = (0..8)
            .map(|i| d.submit("a", echo(&i.to_string()), None))
            .collect();
        d.run(5_000);
        assert_eq!(d.most_in_flight, limit, "limit {limit}");
        assert!(ops
            .iter()
            .all(|op| matches!(d.ok(*op), Output::ToolResult(_))));
    }
}

#[test]
fn cancelling_by_key_settles_the_call_and_aborts_its_exchange_once() {
    let mut d = Driver::new(quiet(), vec![(config("a", 4001), echo_server(10_000))]);
    let slow = d.submit("a", echo("slow"), Some("k1"));
    let done = d.submit("a", echo("fast"), Some("k2"));
    d.run(100);
    assert!(d.results.is_empty());
    assert!(d.pool.cancel("k1", d.now));
    assert!(!d.pool.cancel("k1", d.now), "a key cancels once");
    assert!(!d.pool.cancel("never", d.now));
    d.run(20_000);
    // The request was sent: the tool may have run, so the outcome is unknown, not "cancelled".
    assert_eq!(d.err_kind(slow), "outcome_unknown");
    assert_eq!(text(d.ok(done)), "fast");
    assert_eq!(d.aborted.len(), 1);
    assert_eq!(d.count(4001, "notifications/cancelled"), 1);
    // A completed operation's key is forgotten.
    assert!(!d.pool.cancel("k2", d.now));
}

#[test]
fn removing_a_server_cancels_its_calls_deletes_its_session_and_ignores_late_answers() {
    let mut d = Driver::new(
        quiet(),
        vec![
            (config("a", 4001), echo_server(5_000)),
            (config("b", 4002), echo_server(10)),
        ],
    );
    let pending = d.submit("a", echo("never"), Some("k"));
    let other = d.submit("b", echo("kept"), None);
    d.run(100);
    assert!(d.pool.remove_server("a"));
    assert!(!d.pool.remove_server("a"));
    d.run(10_000);
    assert_eq!(d.err_kind(pending), "outcome_unknown");
    assert_eq!(text(d.ok(other)), "kept");
    let deletes: Vec<&Req> = d
        .sent
        .iter()
        .filter(|r| r.method == HttpMethod::Delete)
        .collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].url, url(4001));
    assert_eq!(deletes[0].header("mcp-session-id"), Some("sess-1"));
    // The DELETE's answer came back to nobody: the driver was told to stop reading it.
    assert_eq!(d.unwanted.len(), 1);
    assert!(!d.pool.cancel("k", d.now));
    // The server re-added under the same id starts a new session.
    d.pool.add_server(config("a", 4001));
    let again = d.submit("a", echo("again"), None);
    d.run(10_000);
    assert_eq!(text(d.ok(again)), "again");
    assert_eq!(d.count(4001, "initialize"), 2);
}

#[test]
fn set_servers_keeps_unchanged_sessions_and_restarts_changed_ones() {
    let mut d = Driver::new(
        PoolOptions::default(),
        vec![
            (config("a", 4001), echo_server(0)),
            (config("b", 4002), echo_server(0)),
            (config("c", 4003), echo_server(0)),
        ],
    );
    for s in ["a", "b", "c"] {
        d.submit(s, list(), None);
    }
    d.run(100);
    let mut changed = config("b", 4002);
    changed.timeout_ms = 1_234;
    d.pool.set_servers(vec![config("a", 4001), changed]);
    let ids: Vec<String> = d.pool.status().into_iter().map(|s| s.id).collect();
    assert_eq!(ids, ["a", "b"]);
    for s in ["a", "b"] {
        d.submit(s, Operation::Ping, None);
    }
    d.run(100);
    // (port, initializes, deletes)
    let want = [(4001, 1, 0), (4002, 2, 1), (4003, 1, 1)];
    for (port, inits, deletes) in want {
        let sent_deletes = d
            .sent
            .iter()
            .filter(|r| r.url == url(port) && r.method == HttpMethod::Delete)
            .count();
        assert_eq!(
            (d.count(port, "initialize"), sent_deletes),
            (inits, deletes),
            "{port}"
        );
    }
}

#[test]
fn the_earliest_deadline_of_any_server_arms_the_timer() {
    let mut fast = config("fast", 4001);
    fast.timeout_ms = 1_000;
    let mut slow = config("slow", 4002);
    slow.timeout_ms = 3_000;
    let hang = || -> Script {
        Box::new(server("2025-11-25", |req, _| {
            (req.rpc_method() == "tools/call").then(Reply::hang)
        }))
    };
    let mut options = PoolOptions::default();
    options.listen = false;
    let mut d = Driver::new(options, vec![(fast, hang()), (slow, hang())]);
    let a = d.submit("fast", echo("x"), None);
    let b = d.submit("slow", echo("y"), None);
    d.run(0);
    // Both calls wait on their servers; the pool's one timer is the nearer deadline.
    assert_eq!(d.pool.poll_timeout(), Some(1_000));
    d.run(1_500);
    // A tool call that timed out may have run: its outcome is unknown.
    assert_eq!(d.err_kind(a), "outcome_unknown");
    assert!(!d.results.contains_key(&b));
    assert_eq!(d.pool.poll_timeout(), Some(3_000));
    d.run(2_000);
    assert_eq!(d.err_kind(b), "outcome_unknown");
    assert_eq!(d.pool.poll_timeout(), None);
}

#[test]
fn progress_reaches_the_operation_that_asked_for_it() {
    let script: Script = Box::new(server("2025-11-25", |req, _| {
        (req.rpc_method() == "tools/call").then(|| {
            let token = req.params()["_meta"]["progressToken"].clone();
            let note = |p: u32| {
                client_harness::event(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": p, "total": 2}}))
            };
            let done = client_harness::event(
                json!({"jsonrpc": "2.0", "id": req.id(), "result": text_result("ok")}),
            );
            Reply::sse(&[&note(1), &note(2), &done])
        })
    }));
    let mut d = Driver::new(PoolOptions::default(), vec![(config("a", 4001), script)]);
    let quiet = d.submit("a", echo("no progress"), None);
    let op = Operation::CallTool {
        name: "echo".into(),
        arguments: Default::default(),
        progress: true,
    };
    let loud = d.submit("a", op, None);
    d.run(1_000);
    assert!(d.results.contains_key(&quiet) && d.results.contains_key(&loud));
    assert_eq!(d.progress, [(loud, 1.0), (loud, 2.0)]);
}

#[test]
fn a_network_failure_of_a_call_is_an_unknown_outcome_and_the_next_call_reconnects() {
    let mut calls = 0;
    let script: Script = Box::new(server("2025-11-25", move |req, _| {
        (req.rpc_method() == "tools/call").then(|| {
            calls += 1;
            if calls == 1 {
                Reply::fail("connection reset")
            } else {
                Reply::result(&req.id(), text_result("second"))
            }
        })
    }));
    let mut d = Driver::new(PoolOptions::default(), vec![(config("a", 4001), script)]);
    let first = d.submit("a", echo("1"), None);
    d.run(1_000);
    let second = d.submit("a", echo("2"), None);
    d.run(1_000);
    let error = d.results[&first].clone().expect_err("failed");
    assert!(error.may_have_run(), "{error}");
    assert_eq!(text(d.ok(second)), "second");
}

#[test]
fn operations_read_from_data_as_javascript_sends_them() {
    // (JSON, operation)
    let table: Vec<(Value, Operation)> = vec![
        (json!({"method": "ping"}), Operation::Ping),
        (json!({"method": "tools/list"}), list()),
        (
            json!({"method": "tools/list", "refresh": true}),
            Operation::ListTools { refresh: true },
        ),
        (json!({"method": "prompts/list"}), Operation::ListPrompts),
        (
            json!({"method": "resources/list"}),
            Operation::ListResources,
        ),
        (
            json!({"method": "resources/templates/list"}),
            Operation::ListResourceTemplates,
        ),
        (
            json!({"method": "tools/call", "name": "echo", "arguments": {"message": "hi"}}),
            echo("hi"),
        ),
        (
            json!({"method": "tools/call", "name": "echo", "arguments": null}),
            call_tool("echo", json!({})),
        ),
        (
            json!({"method": "tools/call", "name": "echo", "progress": true}),
            call_tool("echo", json!({})),
        ),
        (
            json!({"method": "prompts/get", "name": "p", "arguments": {"a": "1"}}),
            Operation::GetPrompt {
                name: "p".into(),
                arguments: json!({"a": "1"}).as_object().cloned().unwrap_or_default(),
            },
        ),
        (
            json!({"method": "resources/read", "uri": "file:///x"}),
            Operation::ReadResource {
                uri: "file:///x".into(),
            },
        ),
    ];
    for (data, want) in table {
        let got: Operation = serde_json::from_value(data.clone()).expect("reads");
        assert_eq!(got, want, "{data}");
    }
    for bad in [
        json!({"method": "tools/delete"}),
        json!({"method": "tools/call"}),
        json!({"method": "tools/call", "name": "x", "arguments": [1]}),
        json!({"name": "x"}),
    ] {
        assert!(
            serde_json::from_value::<Operation>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn events_read_as_the_listener_receives_them() {
    let table = [
        (
            SessionEvent::ListChanged(relay_core::client::ListKind::Tools),
            json!({"type": "listChanged", "list": "tools"}),
        ),
        (
            SessionEvent::Notification {
                method: "x/y".into(),
                params: None,
            },
            json!({"type": "notification", "method": "x/y", "params": null}),
        ),
        (
            SessionEvent::Log {
                level: "info".into(),
                logger: None,
                data: json!("working"),
            },
            json!({"type": "log", "level": "info", "logger": null, "data": "working"}),
        ),
    ];
    for (event, want) in table {
        assert_eq!(event.to_json(), want);
    }
}

/// The protocol log of a server (`client::wire_log`): every request with its headers and body,
/// every status and every message back; a configured secret header, a sign-in token and a
/// token the server echoes are masked wherever they appear; the cancellation of a call is
/// logged as the `notifications/cancelled` it sent.
#[test]
fn the_protocol_log_keeps_the_exchange_and_masks_secrets() {
    const KEY: &str = "sk-live-1234567890";
    const TOKEN: &str = "oauth-at-abcdefghijkl";
    let mut secret = config("a", 1);
    secret.headers = vec![
        ("X-Api-Key".into(), KEY.into()),
        ("X-Team".into(), "blue".into()),
    ];
    let echo_back = Box::new(server("2025-11-25", move |req, _| match req.rpc_method() {
        "tools/call" => Some(Reply::result(
            &req.id(),
            json!({"content": [{"type": "text", "text": format!("you sent {TOKEN} and {KEY}")}],
                   "access_token": "server-side-secret-value"}),
        )),
        "tools/list" => Some(Reply::result(&req.id(), json!({"tools": [tool("echo")]}))),
        _ => None,
    }));
    let mut d = Driver::new(quiet(), vec![(secret, echo_back)]);
    assert!(d
        .pool
        .set_authorization("a", Some(format!("Bearer {TOKEN}"))));
    let op = d.submit("a", echo("hi"), None);
    d.run(1_000);
    d.ok(op);
    let log = serde_json::to_string(&d.pool.wire_log("a")).expect("json");
    for secret in [KEY, TOKEN, "server-side-secret-value"] {
        assert!(!log.contains(secret), "{secret} leaked into {log}");
    }
    let entries = serde_json::to_value(d.pool.wire_log("a")).expect("json");
    let entries = entries.as_array().expect("entries");
    let kinds: Vec<String> = entries
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["dir"].as_str().unwrap_or(""),
                e["kind"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        kinds.starts_with(&[
            "out request".to_owned(),
            "in status".to_owned(),
            "in message".to_owned()
        ]),
        "{kinds:?}"
    );
    let call = entries
        .iter()
        .find(|e| {
            e["text"]
                .as_str()
                .is_some_and(|t| t.contains("\"tools/call\""))
        })
        .expect("the call was logged");
    let header = |name: &str| {
        call["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .find(|h| h[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
            .map(|h| h[1].as_str().unwrap_or("").to_owned())
    };
    assert_eq!(header("authorization").as_deref(), Some("Bearer ••••"));
    assert_eq!(header("x-api-key").as_deref(), Some("••••"));
    assert_eq!(
        header("x-team").as_deref(),
        Some("blue"),
        "what is not a secret stays readable"
    );
    let status = entries
        .iter()
        .find(|e| e["kind"] == "status" && e["exchange"] == call["exchange"]);
    assert_eq!(status.map(|s| s["status"].clone()), Some(json!(200)));
    let answer = entries
        .iter()
        .rev()
        .find(|e| e["kind"] == "message")
        .expect("answer");
    let text = answer["text"].as_str().expect("text");
    assert!(
        text.contains("\"access_token\":\"••••\"") && text.contains("you sent •••• and ••••"),
        "{text}"
    );

    // A cancelled call: its notifications/cancelled is in the log.
    let mut d2 = Driver::new(quiet(), vec![(config("b", 2), echo_server(5_000))]);
    let slow = d2.submit("b", echo("slow"), Some("k"));
    d2.run(100);
    assert!(d2.pool.cancel("k", d2.now));
    d2.run(100);
    assert_eq!(d2.err_kind(slow), "outcome_unknown");
    let log = serde_json::to_string(&d2.pool.wire_log("b")).expect("json");
    assert!(log.contains("notifications/cancelled"), "{log}");
    // A request that got no response is logged as a failure.
    let mut d3 = Driver::new(
        quiet(),
        vec![(
            config("c", 3),
            Box::new(server("2025-11-25", |req, _| match req.rpc_method() {
                "tools/call" => Some(Reply::fail("connection reset")),
                _ => None,
            })) as Script,
        )],
    );
    let failed = d3.submit("c", echo("x"), None);
    d3.run(1_000);
    assert_eq!(d3.err_kind(failed), "outcome_unknown");
    let entries = serde_json::to_value(d3.pool.wire_log("c")).expect("json");
    let failure = entries
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["kind"] == "failure");
    assert_eq!(
        failure.map(|e| e["text"].clone()),
        Some(json!("connection reset"))
    );
    d2.pool.clear_wire_log("b");
    assert!(d2.pool.wire_log("b").is_empty());
}
