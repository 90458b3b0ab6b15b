//! `relay_core::app::Runner` on an in-memory host: the order of the IO a request needs, the
//! effects carried out (storage first, in order; calls, cards and deliveries in the background),
//! the tool loop through restarts, and server questions with their timeout. The host records
//! every primitive it performs, so each test reads as a transcript.

// ClientError carries what a user needs (see client::Pool); the tests script such results.
#![allow(clippy::result_large_err)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use relay_core::app::{
    badge_text, chat_key, ChatSettings, Config, Host, ProgressFn, Runner, Sender, Task, CONFIG_KEY,
    ELICITATIONS_KEY, ELICITATION_TIMEOUT_MS, TOOLS_KEY,
};
use relay_core::auth::{AuthRequest, PublicJwk};
use relay_core::client::jsonrpc::RequestId;
use relay_core::client::{
    ClientError, Operation, Output, Pool, PoolOptions, ServerConfig, SessionEvent,
};
use relay_core::contract::storage::Area;
use relay_core::contract::storage::SITES_KEY;
use relay_core::contract::{admit, ErrorBody, ErrorKind, TabMessage};
use relay_core::model::{CallToolResult, Content, Tool};
use relay_core::policy::ToolPolicy;
use serde_json::{json, Value};

const URL: &str = "https://chat.example/c/1";
const TAB: i64 = 7;

/// Polls a future that the in-memory host always lets finish at once.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("the in-memory host never waits"),
    }
}

/// What a server answers an operation: scripted per `(server, operation name)`; an operation
/// without a script fails as an unreachable server would.
type Script = HashMap<(String, &'static str), VecDeque<Result<Output, ClientError>>>;

/// A callback due at a time.
type Timer = (u64, Box<dyn FnOnce()>);

#[derive(Default)]
struct Memory {
    storage: RefCell<BTreeMap<(&'static str, String), Value>>,
    /// Every primitive performed, in order.
    log: RefCell<Vec<String>>,
    script: RefCell<Script>,
    tasks: RefCell<VecDeque<Task>>,
    timers: RefCell<Vec<Timer>>,
    clock: Cell<u64>,
    pool: RefCell<Option<Pool>>,
    /// The content script's answer to an insert.
    tab_answer: RefCell<Value>,
    /// The text of every insert sent to a tab.
    inserted: RefCell<Vec<String>>,
    /// While set, storage reads wait until it is cleared (a slow first load).
    reads_held: Rc<Cell<bool>>,
    /// While set, storage reads fail.
    reads_fail: Cell<bool>,
}

/// Ready once the host lets reads through.
struct Held(Rc<Cell<bool>>);

impl Future for Held {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        match self.0.get() {
            true => Poll::Pending,
            false => Poll::Ready(()),
        }
    }
}

/// The host: shares its memory with the test, which reads it after each step and hands it to a
/// second runner for a restart.
#[derive(Clone, Default)]
struct Mem(Rc<Memory>);

impl Mem {
    fn note(&self, line: String) {
        self.0.log.borrow_mut().push(line);
    }

    fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.log.borrow_mut())
    }

    fn answer(&self, server: &str, op: &'static str, result: Result<Output, ClientError>) {
        let mut script = self.0.script.borrow_mut();
        let queue = script.entry((server.to_owned(), op)).or_default();
        queue.push_back(result);
    }

    fn stored(&self, area: Area, key: &str) -> Value {
        let storage = self.0.storage.borrow();
        let value = storage.get(&(area.as_str(), key.to_owned()));
        value.cloned().unwrap_or_default()
    }

    /// Runs the background tasks until none is left.
    fn settle(&self) {
        for _ in 0..1_000 {
            let Some(task) = self.0.tasks.borrow_mut().pop_front() else {
                return;
            };
            now(task);
        }
        panic!("background tasks keep spawning more");
    }

    /// Moves the clock on and fires the timers that fell due.
    fn advance(&self, ms: u64) {
        self.0.clock.set(self.0.clock.get() + ms);
        let due: Vec<_> = {
            let mut timers = self.0.timers.borrow_mut();
            let (due, later) = timers
                .drain(..)
                .partition(|(at, _)| *at <= self.0.clock.get());
            *timers = later;
            due
        };
        for (_, callback) in due {
            callback();
        }
        self.settle();
    }
}

fn op_name(op: &Operation) -> &'static str {
    match op {
        Operation::ListTools { .. } => "tools/list",
        Operation::CallTool { .. } => "tools/call",
        _ => "other",
    }
}

impl Host for Mem {
    fn now_ms(&self) -> u64 {
        self.0.clock.get()
    }

    fn spawn(&self, task: Task) {
        self.0.tasks.borrow_mut().push_back(task);
    }

    fn after(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) {
        let at = self.0.clock.get() + delay_ms;
        self.0.timers.borrow_mut().push((at, callback));
    }

    fn warn(&self, message: &str) {
        self.note(format!("warn {message}"));
    }

    fn pool<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        let mut pool = self.0.pool.borrow_mut();
        let pool = pool.get_or_insert_with(|| Pool::new(PoolOptions::default(), 1));
        f(pool, self.0.clock.get())
    }

    fn read(
        &self,
        area: Area,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Value>, ErrorBody>> {
        self.note(format!("read {} {}", area.as_str(), keys.join(",")));
        let values: Vec<Value> = keys.iter().map(|k| self.stored(area, k)).collect();
        let held = Held(Rc::clone(&self.0.reads_held));
        let failed = self.0.reads_fail.get();
        async move {
            held.await;
            match failed {
                true => Err(ErrorBody::new(
                    ErrorKind::Storage,
                    "chrome.storage failed: disk",
                )),
                false => Ok(values),
            }
        }
    }

    async fn write(&self, area: Area, key: &str, value: &Value) -> Result<(), ErrorBody> {
        self.note(format!("write {} {key}", area.as_str()));
        let mut storage = self.0.storage.borrow_mut();
        storage.insert((area.as_str(), key.to_owned()), value.clone());
        Ok(())
    }

    async fn to_tab(&self, tab: i64, message: &TabMessage) -> Result<Value, ErrorBody> {
        let message = message.to_value();
        let kind = message["type"].as_str().unwrap_or_default().to_owned();
        self.note(format!("tab {tab} {kind}"));
        if kind == "relay/insert" {
            let text = message["text"].as_str().unwrap_or_default().to_owned();
            self.0.inserted.borrow_mut().push(text);
        }
        Ok(match kind.as_str() {
            "relay/insert" => self.0.tab_answer.borrow().clone(),
            _ => Value::Null,
        })
    }

    async fn origin_rules(&self, servers: &[ServerConfig]) -> Result<(), ErrorBody> {
        let ids: Vec<_> = servers.iter().map(|s| s.id.as_str()).collect();
        self.note(format!("rules [{}]", ids.join(",")));
        Ok(())
    }

    async fn release_origin(&self, origin: &str) {
        self.note(format!("release {origin}"));
    }

    async fn badge(&self, text: &str) {
        self.note(format!("badge '{text}'"));
    }

    async fn mcp(
        &self,
        server: &str,
        op: Operation,
        _on_progress: Option<ProgressFn>,
        _cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        let name = op_name(&op);
        self.note(format!("mcp {server} {name}"));
        let next = (self.0.script.borrow_mut())
            .get_mut(&(server.to_owned(), name))
            .and_then(VecDeque::pop_front);
        next.unwrap_or_else(|| {
            Err(ClientError::Connection {
                url: "http://127.0.0.1:9/mcp".into(),
                message: "connection refused".into(),
            })
        })
    }

    fn redirect_uri(&self) -> Result<String, ErrorBody> {
        Ok("https://abc.chromiumapp.org/oauth".into())
    }

    fn random(&self, buffer: &mut [u8]) -> Result<(), ErrorBody> {
        buffer
            .iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = i as u8);
        Ok(())
    }

    async fn fetch(&self, request: &AuthRequest) -> Result<(u16, Vec<u8>, Option<String>), String> {
        self.note(format!("fetch {:?} {}", request.method, request.url));
        Err("offline".into())
    }

    async fn browser_step(&self, url: &str, _: bool) -> Result<String, String> {
        self.note(format!("browser {url}"));
        Err("closed".into())
    }

    async fn proof_key(&self, server: &str, create: bool) -> Result<Option<PublicJwk>, String> {
        self.note(format!("proof key {server} create={create}"));
        Ok(None)
    }

    async fn sign(&self, server: &str, _: &str) -> Result<String, String> {
        Err(format!("no key for {server}"))
    }
}

fn page() -> Sender {
    Sender {
        role: "page".into(),
        origin: "chrome-extension://abc".into(),
        ..Sender::default()
    }
}

/// A content script's look at its page: a reply being written is `streaming` and follows the
/// user's send.
fn look(page: &str, turns: Value, streaming: bool) -> Value {
    json!({"type": "page/observe", "page": page, "streaming": streaming, "submitted": streaming, "turns": turns})
}

fn content() -> Sender {
    Sender {
        role: "content".into(),
        origin: "https://chat.example".into(),
        tab_id: Some(TAB),
        frame_id: Some(0),
        url: Some(URL.into()),
        reported_url: None,
    }
}

fn ask(run: &Rc<Runner<Mem>>, sender: &Sender, message: Value) -> Result<Value, ErrorBody> {
    let request = admit(&message, sender.role()?).map_err(ErrorBody::from)?;
    now(run.answer(request, sender))
}

fn tool(name: &str) -> Tool {
    Tool::new(
        name,
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
}

/// A host whose storage holds server `notes` (tool `add`, allowed) picked by the chat, with
/// automatic runs and sends; and a runner loaded from it.
fn loaded() -> (Mem, Rc<Runner<Mem>>) {
    let host = Mem::default();
    let mut config = Config::default();
    config.servers.push(ServerConfig::new(
        "notes",
        "Notes",
        "http://127.0.0.1:9/mcp",
    ));
    config.set_tool("notes", "add", Some(ToolPolicy::Allow), None);
    let settings = ChatSettings {
        server_ids: vec!["notes".into()],
        auto_execute: true,
        auto_submit: true,
        ..Default::default()
    };
    config.chats.insert(chat_key(TAB, URL), settings);
    let config = serde_json::to_value(config).expect("config");
    now(host.write(Area::Local, CONFIG_KEY, &config)).expect("stored");
    let tools = json!({"notes": [tool("add")]});
    now(host.write(Area::Local, TOOLS_KEY, &tools)).expect("stored");
    (host.clone(), restart(&host))
}

/// A new worker on the same storage.
fn restart(host: &Mem) -> Rc<Runner<Mem>> {
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    host.settle();
    host.take_log();
    run
}

fn ok(text: &str) -> Result<Output, ClientError> {
    Ok(Output::ToolResult(CallToolResult::success(vec![
        Content::text(text),
    ])))
}

const CALL: &str =
    "Sure.\n```json\n{\"tool\": \"add\", \"arguments\": {\"text\": \"milk\"}}\n```\n";

#[test]
fn the_badge_counts_calls_waiting_up_to_99() {
    for (pending, text) in [(0, ""), (1, "1"), (99, "99"), (100, "99+"), (5_000, "99+")] {
        assert_eq!(badge_text(pending), text, "{pending}");
    }
}

#[test]
fn a_state_load_reads_each_area_once_then_makes_the_origin_rules() {
    let host = Mem::default();
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    assert_eq!(
        host.take_log(),
        [
            "read local config,tools,auth",
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
    // The ledger was written before the call went out, and after its end.
    let at = |line: &str| log.iter().position(|l| l == line).expect(line);
    assert!(
        at("write session ledger") < at("mcp notes tools/call"),
        "{log:?}"
    );
    assert!(
        log.iter().rposition(|l| l == "write session ledger") > Some(at("mcp notes tools/call"))
    );

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
        let ledger = storage
            .get_mut(&("session", "ledger".to_owned()))
            .expect("the ledger was stored");
        for rec in ledger["calls"].as_object_mut().expect("calls").values_mut() {
            rec["state"] = json!("running");
            rec["delivered"] = json!(false);
            rec.as_object_mut().map(|r| r.remove("result"));
        }
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
