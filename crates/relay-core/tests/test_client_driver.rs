//! `relay_core::client::Driver` on an in-memory HTTP: operations complete through the pool's
//! exchanges, bodies are read whole or chunk by chunk as the response head says, a cancelled
//! call aborts its exchange, a prover's proofs go on each request (one more try when the server
//! asks for its nonce), and the pool's deadlines fire through the driver's one timer (a
//! call sent and then ended either way may have run: its outcome is unknown).

#![allow(clippy::result_large_err)] // ClientError carries what a user needs; see client::Pool

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use relay_core::client::{
    ClientError, Driver, HttpIo, HttpMethod, HttpRequest, Operation, Output, Pool, PoolOptions,
    ProofFuture, Prover, ResponseHead, ServerConfig, Task,
};
use serde_json::{json, Value};

/// How the fake server answers a request.
#[derive(Clone)]
enum Answer {
    /// Status, headers and the body in chunks.
    Body(u16, Vec<(String, String)>, Vec<String>),
    /// Never answers (until aborted).
    Hang,
}

fn json_answer(id: &Value, result: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    let headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("content-length".to_owned(), body.len().to_string()),
    ];
    Answer::Body(200, headers, vec![body])
}

/// An MCP server speaking 2025-11-25 with one tool; `tools/call` hangs, and `tools/list`
/// answers as an event stream in small chunks.
fn server(request: &HttpRequest) -> Answer {
    let body: Value =
        serde_json::from_str(request.body.as_deref().unwrap_or("null")).unwrap_or_default();
    let (method, id) = (body["method"].as_str().unwrap_or_default(), &body["id"]);
    match method {
        // The listen stream (GET) is not offered.
        "" => Answer::Body(405, Vec::new(), Vec::new()),
        "initialize" => json_answer(
            id,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "1"}}),
        ),
        "tools/list" => {
            let result = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]});
            let message = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
            let event = format!("event: message\ndata: {message}\n\n");
            let chunks = event.as_bytes().chunks(16);
            let chunks = chunks
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect();
            let headers = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
            Answer::Body(200, headers, chunks)
        }
        "tools/call" => Answer::Hang,
        m if m.starts_with("notifications/") => Answer::Body(202, Vec::new(), Vec::new()),
        _ => {
            let error = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}});
            let headers = vec![("content-type".to_owned(), "application/json".to_owned())];
            Answer::Body(200, headers, vec![error.to_string()])
        }
    }
}

/// A body being read: the chunks left.
struct Chunks(VecDeque<String>);

/// A callback due at a time (taken when it fires), and whether its handle was dropped.
type Timer = (u64, Option<Box<dyn FnOnce()>>, Rc<Cell<bool>>);

#[derive(Default)]
struct Net {
    log: RefCell<Vec<String>>,
    tasks: RefCell<Vec<Task>>,
    timers: RefCell<Vec<Timer>>,
    clock: Cell<u64>,
    aborted: RefCell<Vec<Rc<Cell<bool>>>>,
    /// Refuse the first proved request, asking for a nonce (DPoP).
    want_nonce: Cell<bool>,
}

/// The in-memory HTTP; shared with the test, which reads its log and runs its tasks.
#[derive(Clone, Default)]
struct Mem(Rc<Net>);

/// A timer; dropping it cancels it.
struct Pending(Rc<Cell<bool>>);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

impl Mem {
    fn note(&self, line: String) {
        self.0.log.borrow_mut().push(line);
    }

    /// Polls every task until none makes progress (the driver wakes nothing itself here).
    fn settle(&self) {
        let waker = Waker::noop();
        for _ in 0..1_000 {
            let mut tasks = std::mem::take(&mut *self.0.tasks.borrow_mut());
            let before = tasks.len();
            tasks.retain_mut(|t| {
                t.as_mut()
                    .poll(&mut Context::from_waker(waker))
                    .is_pending()
            });
            let progressed = tasks.len() < before || !self.0.tasks.borrow().is_empty();
            self.0.tasks.borrow_mut().extend(tasks);
            if !progressed {
                return;
            }
        }
        panic!("tasks never settle");
    }

    fn advance(&self, ms: u64) {
        self.0.clock.set(self.0.clock.get() + ms);
        let due: Vec<_> = self
            .0
            .timers
            .borrow_mut()
            .iter_mut()
            .filter(|(at, f, dropped)| *at <= self.0.clock.get() && f.is_some() && !dropped.get())
            .filter_map(|(_, f, _)| f.take())
            .collect();
        for f in due {
            f();
        }
        self.settle();
    }
}

/// A future waiting on an abort flag (a hanging request).
struct UntilAborted(Rc<Cell<bool>>);

impl Future for UntilAborted {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0.get() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl HttpIo for Mem {
    type Abort = Rc<Cell<bool>>;
    type Body = Chunks;
    type Timer = Pending;

    fn now_ms(&self) -> u64 {
        self.0.clock.get()
    }

    fn spawn(&self, task: Task) {
        self.0.tasks.borrow_mut().push(task);
    }

    fn timer(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) -> Pending {
        let dropped = Rc::new(Cell::new(false));
        let at = self.0.clock.get() + delay_ms;
        (self.0.timers.borrow_mut()).push((at, Some(callback), Rc::clone(&dropped)));
        Pending(dropped)
    }

    fn abort_handle(&self) -> Result<Rc<Cell<bool>>, String> {
        let handle = Rc::new(Cell::new(false));
        self.0.aborted.borrow_mut().push(Rc::clone(&handle));
        Ok(handle)
    }

    fn abort(&self, handle: &Rc<Cell<bool>>) {
        self.note("abort".into());
        handle.set(true);
    }

    async fn start(
        &self,
        request: &HttpRequest,
        abort: &Rc<Cell<bool>>,
    ) -> Result<(ResponseHead, Option<Chunks>), String> {
        let body: Value =
            serde_json::from_str(request.body.as_deref().unwrap_or("null")).unwrap_or_default();
        let method = body["method"].as_str().unwrap_or("-").to_owned();
        let proof = request.headers.iter().find(|(n, _)| n == "DPoP");
        let proof = proof.map_or(String::new(), |(_, v)| format!(" proof={v}"));
        self.note(format!("{:?} {method}{proof}", request.method));
        if !proof.is_empty() && self.0.want_nonce.replace(false) {
            let headers = vec![
                (
                    "www-authenticate".to_owned(),
                    "DPoP error=\"use_dpop_nonce\"".to_owned(),
                ),
                ("dpop-nonce".to_owned(), "n1".to_owned()),
            ];
            return Ok((
                ResponseHead::new(401, headers),
                Some(Chunks(VecDeque::new())),
            ));
        }
        match server(request) {
            Answer::Body(status, headers, chunks) => {
                let body = (!chunks.is_empty()).then(|| Chunks(chunks.into()));
                Ok((ResponseHead::new(status, headers), body))
            }
            Answer::Hang => {
                UntilAborted(Rc::clone(abort)).await;
                Err("aborted".into())
            }
        }
    }

    async fn read_whole(&self, body: Chunks) -> Result<Vec<u8>, String> {
        self.note("read whole".into());
        Ok(body.0.into_iter().collect::<String>().into_bytes())
    }

    async fn read(&self, body: &mut Chunks) -> Result<Option<Vec<u8>>, String> {
        self.note("read chunk".into());
        Ok(body.0.pop_front().map(String::into_bytes))
    }

    fn cancel(&self, _: Chunks) {
        self.note("cancel body".into());
    }
}

fn driver() -> (Mem, Driver<Mem>) {
    let net = Mem::default();
    let mut pool = Pool::new(PoolOptions::default(), 1);
    let mut server = ServerConfig::new("s", "S", "http://127.0.0.1:9/mcp");
    server.timeout_ms = 5_000;
    pool.set_servers(vec![server]);
    (net.clone(), Driver::new(pool, net))
}

/// Runs `op` to its end (or until nothing moves any more: `None`).
fn run(
    net: &Mem,
    driver: &Driver<Mem>,
    op: Operation,
    key: Option<&str>,
) -> Rc<RefCell<Option<Result<Output, ClientError>>>> {
    let out = Rc::new(RefCell::new(None));
    let (slot, driver) = (Rc::clone(&out), driver.clone());
    let key = key.map(str::to_owned);
    net.spawn(Box::pin(async move {
        let result = driver.run("s", op, None, key).await;
        *slot.borrow_mut() = Some(result);
    }));
    net.settle();
    out
}

#[test]
fn a_list_completes_through_the_handshake_reading_json_whole_and_events_chunk_by_chunk() {
    let (net, driver) = driver();
    let out = run(&net, &driver, Operation::ListTools { refresh: true }, None);
    let result = out.borrow_mut().take().expect("finished");
    match result {
        Ok(Output::Tools(tools)) => assert_eq!(tools[0].name, "echo"),
        other => panic!("{other:?}"),
    }
    let log = net.0.log.borrow().clone();
    let at = |line: &str| {
        log.iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("{line}: {log:?}"))
    };
    assert!(at("Post initialize") < at("read whole"), "{log:?}");
    let last_chunk = log.iter().rposition(|l| l == "read chunk");
    assert!(Some(at("Post tools/list")) < last_chunk, "{log:?}");
    // The event stream came in 16-byte pieces: every one was read, then its end.
    let chunks = log.iter().filter(|l| *l == "read chunk").count();
    assert!(chunks > 5, "{log:?}");
}

#[test]
fn a_cancelled_call_aborts_its_exchange_and_ends_cancelled() {
    let (net, driver) = driver();
    let call = Operation::CallTool {
        name: "echo".into(),
        arguments: Default::default(),
        progress: false,
    };
    let out = run(&net, &driver, call, Some("k1"));
    assert!(out.borrow().is_none(), "the call hangs");
    assert!(!net.0.log.borrow().contains(&"abort".to_owned()));
    assert!(driver.with(|pool, now| pool.cancel("k1", now)));
    net.settle();
    assert!(net.0.log.borrow().contains(&"abort".to_owned()));
    let result = out.borrow_mut().take();
    match result {
        // Sent, so it may have run: cancelled, with its outcome unknown.
        Some(Err(e)) => {
            assert_eq!(e.kind(), "outcome_unknown", "{e}");
            assert!(e.to_string().contains("cancelled"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_request_past_its_deadline_ends_through_the_drivers_timer() {
    let (net, driver) = driver();
    let call = Operation::CallTool {
        name: "echo".into(),
        arguments: Default::default(),
        progress: false,
    };
    let out = run(&net, &driver, call, None);
    net.advance(4_999);
    assert!(out.borrow().is_none(), "not yet");
    net.advance(1);
    let result = out.borrow_mut().take();
    match result {
        Some(Err(e)) => {
            assert_eq!(e.kind(), "outcome_unknown", "{e}");
            assert!(e.to_string().contains("no answer within 5 s"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(net.0.log.borrow().contains(&"abort".to_owned()));
}

/// Proofs numbered in order; asks again when the server sent a nonce.
struct Numbered(Cell<u32>);

impl Prover for Numbered {
    fn proof(&self, _: &str, _: HttpMethod, _: &str) -> ProofFuture {
        self.0.set(self.0.get() + 1);
        let proof = format!("p{}", self.0.get());
        Box::pin(async move { Some(proof) })
    }

    fn answered(&self, _: &str, _: &str, head: &ResponseHead) -> bool {
        head.status == 401 && head.header("dpop-nonce").is_some()
    }
}

#[test]
fn a_prover_proves_each_request_and_makes_one_again_when_the_server_asks_for_its_nonce() {
    let (net, driver) = driver();
    driver.set_prover(Some(Rc::new(Numbered(Cell::new(0)))));
    net.0.want_nonce.set(true);
    let out = run(&net, &driver, Operation::ListTools { refresh: true }, None);
    assert!(matches!(out.borrow().as_ref(), Some(Ok(_))), "listed");
    let log = net.0.log.borrow().clone();
    let posts: Vec<_> = log.iter().filter(|l| l.starts_with("Post ")).collect();
    // The first request went twice (refused, then with a new proof); every other once.
    assert_eq!(posts[0], "Post server/discover proof=p1", "{log:?}");
    assert_eq!(posts[1], "Post server/discover proof=p2", "{log:?}");
    assert!(
        posts[2..].iter().all(|l| !l.contains("server/discover")),
        "{log:?}"
    );
    assert!(
        log.contains(&"cancel body".to_owned()),
        "the refused answer's body: {log:?}"
    );
}
