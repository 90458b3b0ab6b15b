//! An in-memory [`Host`] for `relay_core::app::Runner`: storage (with Chrome's session quota
//! when asked), scripted MCP answers, a tab, tasks and timers on a test clock, and holds that
//! stop a step half-way (an MCP request, a storage write, a tab message) so a test can stop the
//! worker there and start a new one on the same storage. The host records every primitive it
//! performs, so each test reads as a transcript.

#![allow(dead_code, clippy::result_large_err)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use relay_core::app::{
    chat_key, ChatSettings, Config, Host, ProgressFn, Runner, Sender, Task, CONFIG_KEY, TOOLS_KEY,
};
use relay_core::auth::{AuthRequest, PublicJwk};
use relay_core::client::{ClientError, Operation, Output, Pool, PoolOptions, ServerConfig};
use relay_core::contract::storage::Area;
use relay_core::contract::{admit, ErrorBody, ErrorKind, TabMessage};
use relay_core::model::{CallToolResult, Content, Tool};
use relay_core::policy::ToolPolicy;
use relay_core::rare::{RareCall, RareReply};
use serde_json::{json, Value};

pub const URL: &str = "https://chat.example/c/1";
pub const TAB: i64 = 7;

/// Polls a future that the in-memory host always lets finish at once.
pub fn now<F: Future>(future: F) -> F::Output {
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
pub type Script = HashMap<(String, &'static str), VecDeque<Result<Output, ClientError>>>;

/// A callback due at a time.
pub type Timer = (u64, Box<dyn FnOnce()>);

#[derive(Default)]
pub struct Memory {
    pub storage: RefCell<BTreeMap<(&'static str, String), Value>>,
    /// Every primitive performed, in order.
    pub log: RefCell<Vec<String>>,
    pub script: RefCell<Script>,
    pub tasks: RefCell<VecDeque<Task>>,
    /// Tasks that wait on a hold (dropped when the worker stops).
    pub waiting: RefCell<Vec<Task>>,
    pub timers: RefCell<Vec<Timer>>,
    pub clock: Cell<u64>,
    pub pool: RefCell<Option<Pool>>,
    /// The content script's answer to an insert.
    pub tab_answer: RefCell<Value>,
    /// The text of every insert a tab wrote.
    pub inserted: RefCell<Vec<String>>,
    /// While set, storage reads wait until it is cleared (a slow first load).
    pub reads_held: Rc<Cell<bool>>,
    /// While set, storage reads fail.
    pub reads_fail: Cell<bool>,
    /// Chrome's `QUOTA_BYTES` of the session area, when set (keys and JSON values counted).
    pub session_quota: Cell<Option<usize>>,
    /// Bytes of each stored key.
    pub sizes: RefCell<HashMap<(&'static str, String), usize>>,
    /// While set, an MCP request goes out and its answer never comes (the worker stops first).
    pub hold_mcp: Cell<bool>,
    /// Storage writes this matches never finish (the worker stops during them).
    pub hold_write: RefCell<Option<WriteHold>>,
    /// While set, a tab receives an insert (and writes it) but its answer never comes back.
    pub hold_insert: Cell<bool>,
    /// While set, the tab is gone: every message to it fails.
    pub tab_gone: Cell<bool>,
    /// The second module's work in progress (`relay_core::rare`), reached through JSON values as
    /// the extension reaches its module.
    pub rare: RefCell<relay_core::rare::Rare>,
}

/// Which storage writes to hold: `(key, value)`.
pub type WriteHold = Box<dyn Fn(&str, &Value) -> bool>;

/// The session quota of `chrome.storage.session` (10 MB).
pub const SESSION_QUOTA_BYTES: usize = 10 * 1024 * 1024;

/// Ready once the host lets reads through.
pub struct Held(Rc<Cell<bool>>);

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
pub struct Mem(pub Rc<Memory>);

impl Mem {
    pub fn note(&self, line: String) {
        self.0.log.borrow_mut().push(line);
    }

    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.log.borrow_mut())
    }

    pub fn answer(&self, server: &str, op: &'static str, result: Result<Output, ClientError>) {
        let mut script = self.0.script.borrow_mut();
        let queue = script.entry((server.to_owned(), op)).or_default();
        queue.push_back(result);
    }

    pub fn stored(&self, area: Area, key: &str) -> Value {
        let storage = self.0.storage.borrow();
        let value = storage.get(&(area.as_str(), key.to_owned()));
        value.cloned().unwrap_or_default()
    }

    /// Runs the background tasks until none can go on (tasks held stay waiting).
    pub fn settle(&self) {
        for _ in 0..10_000 {
            let next = self.0.tasks.borrow_mut().pop_front();
            let Some(mut task) = next else {
                return;
            };
            if task
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_pending()
            {
                self.0.waiting.borrow_mut().push(task);
            }
        }
        panic!("background tasks keep spawning more");
    }

    /// The worker stops: its tasks, timers and connections are gone; storage stays. Holds are
    /// released for the next worker.
    pub fn stop(&self) {
        self.0.tasks.borrow_mut().clear();
        self.0.waiting.borrow_mut().clear();
        self.0.timers.borrow_mut().clear();
        *self.0.pool.borrow_mut() = None;
        self.0.hold_mcp.set(false);
        *self.0.hold_write.borrow_mut() = None;
        self.0.hold_insert.set(false);
    }

    /// Bytes the session area holds.
    pub fn session_bytes(&self) -> usize {
        let sizes = self.0.sizes.borrow();
        sizes
            .iter()
            .filter(|((area, _), _)| *area == "session")
            .map(|(_, n)| n)
            .sum()
    }

    /// Bytes the local area holds under keys starting with `prefix`.
    pub fn local_bytes(&self, prefix: &str) -> usize {
        let sizes = self.0.sizes.borrow();
        sizes
            .iter()
            .filter(|((area, key), _)| *area == "local" && key.starts_with(prefix))
            .map(|(_, n)| n)
            .sum()
    }

    /// The keys of an area starting with `prefix`.
    pub fn keys(&self, area: Area, prefix: &str) -> Vec<String> {
        let storage = self.0.storage.borrow();
        (storage.keys())
            .filter(|(a, k)| *a == area.as_str() && k.starts_with(prefix))
            .map(|(_, k)| k.clone())
            .collect()
    }

    /// Moves the clock on and fires the timers that fell due.
    pub fn advance(&self, ms: u64) {
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

pub fn op_name(op: &Operation) -> &'static str {
    match op {
        Operation::ListTools { .. } => "tools/list",
        Operation::CallTool { .. } => "tools/call",
        Operation::ListSkills => "skills/list",
        Operation::ReadResource { .. } => "resources/read",
        Operation::ResumeTask { .. } => "tasks/get",
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
        let held = (self.0.hold_write.borrow().as_ref()).is_some_and(|hold| hold(key, value));
        if held {
            return std::future::pending().await;
        }
        let size = key.len() + serde_json::to_string(value).map_or(0, |s| s.len());
        let slot = (area.as_str(), key.to_owned());
        if let (Area::Session, Some(quota)) = (area, self.0.session_quota.get()) {
            let old = self.0.sizes.borrow().get(&slot).copied().unwrap_or(0);
            if self.session_bytes() - old + size > quota {
                self.note(format!("quota exceeded {key}"));
                return Err(ErrorBody::new(
                    ErrorKind::Storage,
                    "Session storage quota bytes exceeded. Values were not stored.",
                ));
            }
        }
        self.0.sizes.borrow_mut().insert(slot.clone(), size);
        self.0.storage.borrow_mut().insert(slot, value.clone());
        Ok(())
    }

    async fn remove(&self, area: Area, keys: &[String]) -> Result<(), ErrorBody> {
        self.note(format!("remove {} {}", area.as_str(), keys.len()));
        for key in keys {
            let slot = (area.as_str(), key.clone());
            self.0.sizes.borrow_mut().remove(&slot);
            self.0.storage.borrow_mut().remove(&slot);
        }
        Ok(())
    }

    async fn to_tab(
        &self,
        tab: i64,
        _frame: Option<i64>,
        message: &TabMessage,
    ) -> Result<Value, ErrorBody> {
        let message = message.to_value();
        let kind = message["type"].as_str().unwrap_or_default().to_owned();
        self.note(format!("tab {tab} {kind}"));
        if self.0.tab_gone.get() {
            return Err(ErrorBody::new(ErrorKind::Tab, "No tab with id"));
        }
        if kind == "relay/insert" {
            // What the tab wrote (a reloading tab answers nothing and writes nothing).
            let text = message["text"].as_str().unwrap_or_default().to_owned();
            let held = self.0.hold_insert.get();
            if held || self.0.tab_answer.borrow()["inserted"] == json!(true) {
                self.0.inserted.borrow_mut().push(text);
            }
            if held {
                return std::future::pending().await;
            }
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

    async fn badge(&self, tab: Option<i64>, text: &str) {
        match tab {
            None => self.note(format!("badge '{text}'")),
            Some(tab) => self.note(format!("badge tab {tab} '{text}'")),
        }
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
        if self.0.hold_mcp.get() {
            return std::future::pending().await;
        }
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

    async fn rare(&self, call: &RareCall) -> Result<RareReply, ErrorBody> {
        let call = serde_json::to_value(call).expect("a call serialises");
        self.note(format!("rare {}", call["type"].as_str().unwrap_or("?")));
        let reply = self.0.rare.borrow_mut().serve_value(call);
        Ok(relay_core::json_value::from_value(reply).expect("a reply the app reads"))
    }
}

pub fn page() -> Sender {
    Sender {
        role: "page".into(),
        origin: "chrome-extension://abc".into(),
        ..Sender::default()
    }
}

/// A content script's look at its page: a reply being written is `streaming` and follows the
/// user's send.
pub fn look(page: &str, turns: Value, streaming: bool) -> Value {
    json!({"type": "page/observe", "page": page, "streaming": streaming, "submitted": streaming, "turns": turns})
}

pub fn content() -> Sender {
    Sender {
        role: "content".into(),
        origin: "https://chat.example".into(),
        tab_id: Some(TAB),
        frame_id: Some(0),
        url: Some(URL.into()),
        reported_url: None,
    }
}

pub fn ask(run: &Rc<Runner<Mem>>, sender: &Sender, message: Value) -> Result<Value, ErrorBody> {
    let request = admit(&message, sender.role()?).map_err(ErrorBody::from)?;
    now(run.answer(request, sender))
}

pub fn tool(name: &str) -> Tool {
    Tool::new(
        name,
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
}

/// A host whose storage holds server `notes` (tool `add`, allowed) picked by the chat, with
/// automatic runs and sends; and a runner loaded from it.
pub fn loaded() -> (Mem, Rc<Runner<Mem>>) {
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
pub fn restart(host: &Mem) -> Rc<Runner<Mem>> {
    let run = Runner::new(host.clone());
    now(run.load()).expect("loaded");
    host.settle();
    host.take_log();
    run
}

pub fn ok(text: &str) -> Result<Output, ClientError> {
    Ok(Output::ToolResult(CallToolResult::success(vec![
        Content::text(text),
    ])))
}

pub const CALL: &str =
    "Sure.\n```json\n{\"tool\": \"add\", \"arguments\": {\"text\": \"milk\"}}\n```\n";

/// Each server's skills listing as stored.
pub fn stored_skills(host: &Mem) -> Value {
    host.stored(Area::Local, relay_core::contract::storage::SKILLS_KEY)
}
