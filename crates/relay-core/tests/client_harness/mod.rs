//! A scripted MCP server and a fake clock driving a sans-IO [`Session`], recording everything
//! on the wire as a transcript (compared with golden files by the tests).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use relay_core::client::{
    Action, CallId, ClientError, ExchangeId, HttpMethod, HttpRequest, Operation, Output,
    ResponseHead, ServerConfig, Session, SessionConfig, SessionEvent,
};
use serde_json::{json, Map, Value};

/// How a scripted response ends.
#[derive(Debug, Clone)]
pub enum End {
    /// The body ends normally.
    Close,
    /// The body stream fails (connection reset).
    Error(&'static str),
    /// The stream stays open, reachable under this key for later pushes.
    Open(&'static str),
}

/// A scripted response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub chunks: Vec<Vec<u8>>,
    pub end: End,
    pub delay_ms: u64,
    /// `Some(message)`: fetch itself fails, no response at all.
    pub fail: Option<&'static str>,
    /// Never answers.
    pub hang: bool,
}

impl Reply {
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            chunks: if body.is_empty() {
                vec![]
            } else {
                vec![body.as_bytes().to_vec()]
            },
            end: End::Close,
            delay_ms: 0,
            fail: None,
            hang: false,
        }
    }
    pub fn json(value: Value) -> Reply {
        Reply::status(200, &value.to_string()).header("content-type", "application/json")
    }
    pub fn result(id: &Value, result: Value) -> Reply {
        Reply::json(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }
    pub fn error(id: &Value, code: i64, message: &str) -> Reply {
        Reply::json(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        )
    }
    pub fn accepted() -> Reply {
        Reply::status(202, "")
    }
    /// An event stream made of raw SSE text pieces, one chunk each.
    pub fn sse(pieces: &[&str]) -> Reply {
        let mut reply = Reply::status(200, "").header("content-type", "text/event-stream");
        reply.chunks = pieces.iter().map(|p| p.as_bytes().to_vec()).collect();
        reply
    }
    pub fn fail(message: &'static str) -> Reply {
        Reply {
            fail: Some(message),
            ..Reply::status(0, "")
        }
    }
    pub fn hang() -> Reply {
        Reply {
            hang: true,
            ..Reply::status(0, "")
        }
    }
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
    pub fn delay(mut self, ms: u64) -> Reply {
        self.delay_ms = ms;
        self
    }
    pub fn open(mut self, key: &'static str) -> Reply {
        self.end = End::Open(key);
        self
    }
    pub fn cut(mut self, message: &'static str) -> Reply {
        self.end = End::Error(message);
        self
    }
}

/// `data:` event text for a JSON-RPC message.
pub fn event(message: Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

/// A request as the scripted server sees it.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
}

impl Req {
    pub fn rpc_method(&self) -> &str {
        self.body
            .as_ref()
            .and_then(|b| b.get("method"))
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    pub fn id(&self) -> Value {
        self.body
            .as_ref()
            .and_then(|b| b.get("id"))
            .cloned()
            .unwrap_or(Value::Null)
    }
    pub fn params(&self) -> Value {
        self.body
            .as_ref()
            .and_then(|b| b.get("params"))
            .cloned()
            .unwrap_or(Value::Null)
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn is(&self, method: HttpMethod, rpc: &str) -> bool {
        self.method == method && self.rpc_method() == rpc
    }
}

/// What the scripted server can do besides replying: write to streams it keeps open.
#[derive(Default)]
pub struct Ctx {
    pushes: Vec<(u64, &'static str, Option<String>)>,
}

impl Ctx {
    /// Writes to an open stream after `delay_ms`.
    pub fn push(&mut self, key: &'static str, delay_ms: u64, text: impl Into<String>) {
        self.pushes.push((delay_ms, key, Some(text.into())));
    }
    /// Closes an open stream after `delay_ms`.
    pub fn close(&mut self, key: &'static str, delay_ms: u64) {
        self.pushes.push((delay_ms, key, None));
    }
}

type Server = Box<dyn FnMut(&Req, &mut Ctx) -> Reply>;

enum Deferred {
    Reply(ExchangeId, Reply),
    Push(&'static str, Option<String>),
}

/// The test driver: a session, a scripted server, a clock, and the transcript.
pub struct Harness {
    pub session: Session,
    pub now: u64,
    pub log: String,
    server: Server,
    deferred: BTreeMap<(u64, u64), Deferred>,
    seq: u64,
    streams: BTreeMap<&'static str, ExchangeId>,
    aborted: BTreeSet<ExchangeId>,
    pub results: BTreeMap<CallId, Result<Output, ClientError>>,
    pub events: Vec<SessionEvent>,
    pub requests: Vec<Req>,
}

pub const URL: &str = "http://127.0.0.1:3001/mcp";

pub fn config() -> SessionConfig {
    let mut cfg = SessionConfig::new(ServerConfig::new("s1", "Test server", URL));
    cfg.jitter_seed = 7;
    // The transcripts of protocol 2025-x start with `initialize`; 2026-07-28's handshake has
    // its own tests (test_client_stateless.rs).
    cfg.discover = false;
    cfg
}

impl Harness {
    pub fn new(
        cfg: SessionConfig,
        server: impl FnMut(&Req, &mut Ctx) -> Reply + 'static,
    ) -> Harness {
        Harness {
            session: Session::new(cfg),
            now: 0,
            log: String::new(),
            server: Box::new(server),
            deferred: BTreeMap::new(),
            seq: 0,
            streams: BTreeMap::new(),
            aborted: BTreeSet::new(),
            results: BTreeMap::new(),
            events: Vec::new(),
            requests: Vec::new(),
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.log, "t={:<6} {}", self.now, text.as_ref());
    }

    pub fn note(&mut self, text: &str) {
        self.line(format!("# {text}"));
    }

    pub fn submit(&mut self, op: Operation) -> CallId {
        let summary = format!("{op:?}");
        let call = self.session.submit(op, self.now);
        self.line(format!(
            "submit call {} {}",
            call.0,
            truncate(&summary, 140)
        ));
        call
    }

    pub fn cancel(&mut self, call: CallId) {
        self.line(format!("cancel call {}", call.0));
        self.session.cancel(call, "user cancelled", self.now);
    }

    /// Runs until nothing is due within `limit_ms` from now.
    pub fn run(&mut self, limit_ms: u64) {
        let end = self.now + limit_ms;
        for _ in 0..100_000 {
            if let Some(action) = self.session.poll_action() {
                self.perform(action);
                continue;
            }
            if let Some(event) = self.session.poll_event() {
                self.record(event);
                continue;
            }
            let due_deferred = self.deferred.keys().next().map(|(t, _)| *t);
            if let Some(t) = due_deferred.filter(|t| *t <= self.now) {
                let key = (t, self.deferred.keys().next().expect("non-empty").1);
                let item = self.deferred.remove(&key).expect("present");
                self.apply(item);
                continue;
            }
            let next = [self.session.poll_timeout(), due_deferred]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(t) if t <= end => {
                    self.now = self.now.max(t);
                    if self.session.poll_timeout().is_some_and(|s| s <= self.now) {
                        self.session.handle_timeout(self.now);
                    }
                }
                _ => {
                    self.now = end;
                    return;
                }
            }
        }
        panic!("the session did not settle:\n{}", self.log);
    }

    /// Advances the clock by `ms`, running what falls due.
    pub fn advance(&mut self, ms: u64) {
        self.run(ms);
    }

    fn perform(&mut self, action: Action) {
        match action {
            Action::Abort(exchange) => {
                self.aborted.insert(exchange);
                self.line(format!("✕ abort {exchange}"));
            }
            Action::Send(request) => {
                self.line(format!("→ {}", describe_request(&request)));
                let req = Req {
                    method: request.method,
                    url: request.url.clone(),
                    headers: request.headers.clone(),
                    body: request
                        .body
                        .as_deref()
                        .map(|b| serde_json::from_str(b).expect("bodies are JSON")),
                };
                self.requests.push(req.clone());
                let mut ctx = Ctx::default();
                let reply = (self.server)(&req, &mut ctx);
                let at = self.now + reply.delay_ms;
                self.defer(at, Deferred::Reply(request.exchange, reply));
                for (delay, key, text) in ctx.pushes {
                    self.defer(self.now + delay, Deferred::Push(key, text));
                }
            }
            other => panic!("unexpected action {other:?}"),
        }
    }

    fn defer(&mut self, at: u64, item: Deferred) {
        self.seq += 1;
        self.deferred.insert((at, self.seq), item);
    }

    fn apply(&mut self, item: Deferred) {
        match item {
            Deferred::Reply(exchange, reply) => self.deliver(exchange, reply),
            Deferred::Push(key, text) => {
                let Some(&exchange) = self.streams.get(key) else {
                    return;
                };
                if self.aborted.contains(&exchange) {
                    return;
                }
                match text {
                    Some(text) => self
                        .session
                        .handle_body(exchange, text.as_bytes(), self.now),
                    None => {
                        self.line(format!("← {exchange} (stream `{key}` closed)"));
                        self.streams.remove(key);
                        self.session.handle_body_end(exchange, self.now);
                    }
                }
            }
        }
    }

    fn deliver(&mut self, exchange: ExchangeId, reply: Reply) {
        if self.aborted.contains(&exchange) || reply.hang {
            return;
        }
        if let Some(message) = reply.fail {
            self.line(format!("← {exchange} network error: {message}"));
            self.session
                .handle_transport_error(exchange, message, self.now);
            return;
        }
        let content_type = reply
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map_or("", |(_, v)| v.as_str())
            .to_owned();
        let extra: Vec<String> = reply
            .headers
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("content-type"))
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(" [{}]", extra.join(", "))
        };
        self.line(format!(
            "← {exchange} {} {content_type}{extra}",
            reply.status
        ));
        self.session.handle_response_head(
            exchange,
            ResponseHead::new(reply.status, reply.headers.clone()),
            self.now,
        );
        for chunk in &reply.chunks {
            if self.aborted.contains(&exchange) {
                return;
            }
            self.session.handle_body(exchange, chunk, self.now);
        }
        if self.aborted.contains(&exchange) {
            return;
        }
        match reply.end {
            End::Close => self.session.handle_body_end(exchange, self.now),
            End::Error(message) => {
                self.line(format!("← {exchange} body error: {message}"));
                self.session
                    .handle_transport_error(exchange, message, self.now);
            }
            End::Open(key) => {
                self.streams.insert(key, exchange);
            }
        }
    }

    fn record(&mut self, event: SessionEvent) {
        let text = match &event {
            SessionEvent::Completed { call, result } => {
                self.results.insert(*call, result.clone());
                match result {
                    Ok(output) => format!("● call {} ok {}", call.0, summarize(output)),
                    Err(e) => format!("● call {} error [{}] {}", call.0, e.kind(), e),
                }
            }
            SessionEvent::Progress {
                call,
                progress,
                total,
                message,
            } => {
                format!(
                    "● call {} progress {progress}/{total:?} {message:?}",
                    call.0
                )
            }
            SessionEvent::Connected(info) => format!(
                "● connected {:?} {} {} {}",
                info.transport,
                info.protocol_version,
                info.server_info.name,
                info.server_info.version
            ),
            SessionEvent::ListChanged(kind) => format!("● list changed {kind:?}"),
            SessionEvent::Log { level, data, .. } => format!("● log {level} {data}"),
            SessionEvent::Notification { method, .. } => format!("● notification {method}"),
            other => format!("● {other:?}"),
        };
        self.line(text);
        self.events.push(event);
    }

    pub fn ok(&self, call: CallId) -> &Output {
        match self.results.get(&call) {
            Some(Ok(output)) => output,
            other => panic!(
                "call {} did not succeed: {}\n{}",
                call.0,
                truncate(&format!("{other:?}"), 300),
                self.log
            ),
        }
    }

    pub fn err(&self, call: CallId) -> &ClientError {
        match self.results.get(&call) {
            Some(Err(error)) => error,
            other => panic!(
                "call {} did not fail: {}\n{}",
                call.0,
                truncate(&format!("{other:?}"), 300),
                self.log
            ),
        }
    }

    /// Compares the transcript with `tests/data/client/<name>.txt` (`UPDATE_EXPECT=1` rewrites it).
    pub fn check(&self, name: &str) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/client")
            .join(format!("{name}.txt"));
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::create_dir_all(path.parent().expect("has a parent")).expect("data dir");
            std::fs::write(&path, &self.log).expect("golden writable");
            return;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != self.log {
            panic!(
                "transcript `{name}` differs from {}; rerun with UPDATE_EXPECT=1 and review the diff\n--- actual ---\n{}",
                path.display(),
                self.log
            );
        }
    }
}

fn describe_request(request: &HttpRequest) -> String {
    let mut headers: Vec<String> = request
        .headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("content-type"))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    headers.sort();
    let body = request.body.as_deref().map(|b| {
        let v: Value = serde_json::from_str(b).expect("JSON body");
        match (v.get("method"), v.get("id")) {
            (Some(m), Some(id)) => format!(
                " {} id={id} {}",
                m.as_str().unwrap_or("?"),
                compact(v.get("params"))
            ),
            (Some(m), None) => format!(
                " {} (notification) {}",
                m.as_str().unwrap_or("?"),
                compact(v.get("params"))
            ),
            _ => format!(" reply {}", truncate(&v.to_string(), 160)),
        }
    });
    format!(
        "{} {} {} [{}]{}{}",
        request.method.as_str(),
        request.url,
        request.exchange,
        headers.join(", "),
        body.unwrap_or_default(),
        if request.long_lived {
            " (long-lived)"
        } else {
            ""
        }
    )
}

fn compact(value: Option<&Value>) -> String {
    value
        .map(|v| truncate(&v.to_string(), 160))
        .unwrap_or_default()
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

pub fn summarize(output: &Output) -> String {
    match output {
        Output::Tools(tools) => {
            format!(
                "tools [{}]",
                tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        other => truncate(&serde_json::to_string(other).expect("serializes"), 200),
    }
}

/// The initialize result a well-behaved server sends.
pub fn init_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": {"name": "scripted", "version": "1.0"}
    })
}

pub fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("the {name} tool"), "inputSchema": {"type": "object"}})
}

/// A server that handles the lifecycle itself (initialize with session ids `sess-1`, `sess-2`...,
/// 202 for notifications and replies, 405 for GET, 200 for DELETE) and asks `handler` for
/// everything else, or for anything it wants to override (return `Some`).
pub fn server(
    version: &'static str,
    mut handler: impl FnMut(&Req, &mut Ctx) -> Option<Reply> + 'static,
) -> impl FnMut(&Req, &mut Ctx) -> Reply + 'static {
    let mut sessions = 0;
    move |req, ctx| {
        if let Some(reply) = handler(req, ctx) {
            return reply;
        }
        match req.method {
            HttpMethod::Get => Reply::status(405, "Method Not Allowed"),
            HttpMethod::Delete => Reply::status(200, ""),
            HttpMethod::Post if req.rpc_method() == "initialize" => {
                sessions += 1;
                Reply::result(&req.id(), init_result(version))
                    .header("mcp-session-id", &format!("sess-{sessions}"))
            }
            HttpMethod::Post
                if req
                    .body
                    .as_ref()
                    .is_some_and(|b| b.get("id").is_none() || b.get("method").is_none()) =>
            {
                Reply::accepted()
            }
            HttpMethod::Post => Reply::error(
                &req.id(),
                -32601,
                &format!("no handler for {}", req.rpc_method()),
            ),
        }
    }
}

/// A `tools/call` operation.
pub fn call_tool(name: &str, args: Value) -> Operation {
    let arguments: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    Operation::CallTool {
        name: name.to_owned(),
        arguments,
        progress: false,
    }
}

/// A `tools/list` operation (cached).
pub fn list() -> Operation {
    Operation::ListTools { refresh: false }
}

/// A tool result with one text block.
pub fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}
