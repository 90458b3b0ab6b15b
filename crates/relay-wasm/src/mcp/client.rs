//! [`McpClient`]: `relay_core::client::Pool` driven over `fetch` and one `setTimeout`.
//!
//! The pool decides everything (sessions per server, exchanges, cancellation, deadlines, which
//! operation a result completes); this file performs its `Send`s over gloo-net, aborts what it
//! aborts, hands every piece of a response back, keeps one timer at the pool's next deadline,
//! and resolves the promise each operation's future awaits.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use relay_core::client::{
    ClientError, ExchangeId, HttpRequest, OpId, Operation, Output, Pool, PoolAction, PoolOptions,
    Progress, ResponseHead, ServerConfig, SessionEvent,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::AbortController;

use super::fetch::{self, BodyReader};
use super::global::{now_ms, Timer};

/// Receives progress of one call.
pub type ProgressFn = Rc<dyn Fn(&Progress)>;

/// Receives everything a server says that is not an answer: `(server id, event)`.
pub type EventFn = Rc<dyn Fn(&str, &SessionEvent)>;

/// Per-call options: a progress callback, and a key [`McpClient::cancel`] accepts.
#[derive(Default, Clone)]
pub struct CallOptions {
    pub on_progress: Option<ProgressFn>,
    pub cancel_key: Option<String>,
}

type Outcome = Rc<RefCell<Option<Result<Output, ClientError>>>>;

pub(super) struct Inner {
    pool: Pool,
    /// Where each operation's outcome goes, and the `resolve` of the promise its future awaits.
    waiters: HashMap<OpId, (Outcome, js_sys::Function)>,
    progress: HashMap<OpId, ProgressFn>,
    controllers: HashMap<ExchangeId, AbortController>,
    timer: Option<(u64, Timer)>,
    pub(super) listener: Option<EventFn>,
}

/// The MCP client of the service worker; in JavaScript the class `RelayClient` (see
/// `bindings`). Cheap to clone; clones share the sessions.
#[wasm_bindgen(js_name = RelayClient)]
#[derive(Clone)]
pub struct McpClient {
    pub(super) inner: Rc<RefCell<Inner>>,
}

enum Delivery {
    Head(ResponseHead),
    Chunk(Vec<u8>),
    End,
    Error(String),
}

impl McpClient {
    /// A client with no servers.
    pub fn new(options: PoolOptions) -> Self {
        // Jitter only has to differ between clients that failed together.
        let seed = (js_sys::Math::random() * u64::MAX as f64) as u64;
        let inner = Inner {
            pool: Pool::new(options, seed),
            waiters: HashMap::new(),
            progress: HashMap::new(),
            controllers: HashMap::new(),
            timer: None,
            listener: None,
        };
        McpClient {
            inner: Rc::new(RefCell::new(inner)),
        }
    }

    /// Runs `f` on the pool (with the time), then performs what it asked for.
    pub fn with<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        let result = f(&mut self.inner.borrow_mut().pool, now_ms());
        drive(&self.inner);
        result
    }

    /// See [`Pool::set_servers`].
    pub fn set_servers(&self, servers: Vec<ServerConfig>) {
        self.with(|pool, now| pool.set_servers(servers, now));
    }

    /// See [`Pool::add_server`].
    pub fn add_server(&self, server: ServerConfig) {
        self.with(|pool, now| pool.add_server(server, now));
    }

    /// Runs one operation on a server (a tool call reports progress when asked to).
    // ClientError carries the context a user needs (method, server, hint); these futures wait on
    // the network, so moving a large error costs nothing that matters.
    #[allow(clippy::result_large_err)]
    pub async fn run(
        &self,
        server_id: &str,
        mut op: Operation,
        options: CallOptions,
    ) -> Result<Output, ClientError> {
        if let Operation::CallTool { progress, .. } = &mut op {
            *progress = options.on_progress.is_some();
        }
        let cancel_key = options.cancel_key;
        let id = {
            let mut inner = self.inner.borrow_mut();
            inner.pool.submit(server_id, op, cancel_key, now_ms())?
        };
        let outcome: Outcome = Rc::default();
        let mut resolve = None;
        let promise = js_sys::Promise::new(&mut |done, _| resolve = Some(done));
        if let Some(resolve) = resolve {
            let mut inner = self.inner.borrow_mut();
            inner.waiters.insert(id, (outcome.clone(), resolve));
            if let Some(on_progress) = options.on_progress {
                inner.progress.insert(id, on_progress);
            }
        }
        drive(&self.inner);
        let _ = JsFuture::from(promise).await;
        let result = outcome.borrow_mut().take();
        result.unwrap_or_else(|| {
            Err(ClientError::Cancelled {
                method: "request".to_owned(),
                reason: "the client gave no answer".to_owned(),
            })
        })
    }
}

/// Performs the pool's actions until it has none, then keeps the timer at its next deadline.
/// Callbacks run outside any borrow: they may call back into the client.
fn drive(inner: &Rc<RefCell<Inner>>) {
    // Bounded: each action consumes pool output, and the pool only produces it in answer to input.
    for _ in 0..100_000 {
        let Some(action) = inner.borrow_mut().pool.poll_action() else {
            break;
        };
        match action {
            PoolAction::Send(request) => {
                let Ok(controller) = AbortController::new() else {
                    let message = "AbortController is unavailable";
                    let mut guard = inner.borrow_mut();
                    guard
                        .pool
                        .handle_transport_error(request.exchange, message, now_ms());
                    continue;
                };
                let id = request.exchange;
                inner
                    .borrow_mut()
                    .controllers
                    .insert(id, controller.clone());
                spawn_local(exchange(Rc::downgrade(inner), request, controller));
            }
            PoolAction::Abort(id) => {
                let controller = inner.borrow_mut().controllers.remove(&id);
                if let Some(controller) = controller {
                    controller.abort();
                }
            }
            PoolAction::Complete { op, result } => {
                let waiter = {
                    let mut guard = inner.borrow_mut();
                    guard.progress.remove(&op);
                    guard.waiters.remove(&op)
                };
                if let Some((outcome, resolve)) = waiter {
                    *outcome.borrow_mut() = Some(result);
                    let _ = resolve.call0(&JsValue::NULL);
                }
            }
            PoolAction::Progress { op, progress } => {
                let callback = inner.borrow().progress.get(&op).cloned();
                if let Some(callback) = callback {
                    callback(&progress);
                }
            }
            PoolAction::Event { server, event } => {
                let listener = inner.borrow().listener.clone();
                if let Some(listener) = listener {
                    listener(&server, &event);
                }
            }
            _ => {}
        }
    }
    let mut guard = inner.borrow_mut();
    let due = guard.pool.poll_timeout();
    if guard.timer.as_ref().map(|(at, _)| *at) == due {
        return;
    }
    let weak = Rc::downgrade(inner);
    guard.timer = due.map(|at| {
        let timer = Timer::after(at.saturating_sub(now_ms()), move || {
            let Some(inner) = weak.upgrade() else { return };
            {
                let mut guard = inner.borrow_mut();
                guard.timer = None;
                guard.pool.handle_timeout(now_ms());
            }
            drive(&inner);
        });
        (at, timer)
    });
}

/// One HTTP exchange, from `fetch` to the end of its body (or until the pool wants no more).
async fn exchange(inner: Weak<RefCell<Inner>>, request: HttpRequest, controller: AbortController) {
    let give = |delivery| deliver(&inner, request.exchange, delivery);
    let (head, body) = match fetch::start(&request, &controller.signal()).await {
        Ok(started) => started,
        Err(message) => {
            give(Delivery::Error(message));
            return;
        }
    };
    let wanted = give(Delivery::Head(head));
    let reader = match body {
        BodyReader::Stream(reader) if !wanted => return fetch::cancel(&reader),
        _ if !wanted => return,
        BodyReader::Stream(reader) => reader,
        BodyReader::Empty => {
            give(Delivery::End);
            return;
        }
        BodyReader::Whole(response) => {
            let read = fetch::read_whole(&response).await;
            if give(read.map_or_else(Delivery::Error, Delivery::Chunk)) {
                give(Delivery::End);
            }
            return;
        }
    };
    loop {
        let step = match fetch::read(&reader).await {
            Ok(Some(chunk)) => Delivery::Chunk(chunk),
            Ok(None) => Delivery::End,
            Err(message) => Delivery::Error(message),
        };
        let last = matches!(step, Delivery::End | Delivery::Error(_));
        // The end and a failure are never "wanted further": the loop ends with them.
        if !give(step) {
            if !last {
                fetch::cancel(&reader);
            }
            return;
        }
    }
}

/// Hands a piece of a response to the pool; `false` when nobody wants the rest (aborted
/// exchange, removed server), so the caller stops reading.
fn deliver(inner: &Weak<RefCell<Inner>>, id: ExchangeId, delivery: Delivery) -> bool {
    let Some(inner) = inner.upgrade() else {
        return false;
    };
    let now = now_ms();
    {
        let mut guard = inner.borrow_mut();
        let pool = &mut guard.pool;
        let wanted = match delivery {
            Delivery::Head(head) => pool.handle_response_head(id, head, now),
            Delivery::Chunk(chunk) => pool.handle_body(id, &chunk, now),
            Delivery::End => {
                pool.handle_body_end(id, now);
                false
            }
            Delivery::Error(message) => {
                pool.handle_transport_error(id, &message, now);
                false
            }
        };
        if !wanted {
            guard.controllers.remove(&id);
        }
    }
    drive(&inner);
    let wanted = inner.borrow().pool.is_wanted(id);
    wanted
}
