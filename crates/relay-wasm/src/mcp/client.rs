//! [`McpClient`]: `relay_core::client::Pool` driven over `fetch` and one `setTimeout`.
//!
//! The pool decides everything (sessions per server, exchanges, cancellation, deadlines, which
//! operation a result completes); this file performs its `Send`s over gloo-net, aborts what it
//! aborts, hands every piece of a response back, keeps one timer at the pool's next deadline,
//! and resolves the promise each operation's future awaits. A [`Prover`] (DPoP, RFC 9449) adds
//! a freshly signed proof to each request and may have one made once more with a server's
//! nonce; what goes into a proof and whether to retry are the core's decisions.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};

use relay_core::client::{
    ClientError, ExchangeId, HttpMethod, HttpRequest, OpId, Operation, Output, Pool, PoolAction,
    PoolOptions, Progress, ResponseHead, SessionEvent,
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

/// A proof for one request, made asynchronously (WebCrypto signs asynchronously).
pub type ProofFuture = Pin<Box<dyn Future<Output = Option<String>>>>;

/// Proves requests with the holder's key (DPoP): a server signed in to with a DPoP-bound token
/// needs a fresh proof on each request.
pub trait Prover {
    /// The `DPoP` header for a request to `server` (`None`: it needs none, or none can be made).
    fn proof(&self, server: &str, method: HttpMethod, url: &str) -> ProofFuture;
    /// The answer to a proved request: whether to make it once more with a new proof (the
    /// server asked for the nonce it sent).
    fn answered(&self, server: &str, url: &str, head: &ResponseHead) -> bool;
}

pub(super) struct Inner {
    pool: Pool,
    /// The `resolve` of the promise each operation's future awaits, and the outcomes.
    waiters: HashMap<OpId, js_sys::Function>,
    outcomes: HashMap<OpId, Result<Output, ClientError>>,
    progress: HashMap<OpId, ProgressFn>,
    controllers: HashMap<ExchangeId, AbortController>,
    timer: Option<(u64, Timer)>,
    pub(super) listener: Option<EventFn>,
    pub(super) prover: Option<Rc<dyn Prover>>,
}

/// The MCP client of the service worker; in JavaScript the class `RelayClient` (see
/// `bindings`). Cheap to clone; clones share the sessions.
#[wasm_bindgen(js_name = RelayClient)]
#[derive(Clone)]
pub struct McpClient {
    pub(super) inner: Rc<RefCell<Inner>>,
}

impl McpClient {
    /// A client with no servers.
    pub fn new(options: PoolOptions) -> Self {
        // Jitter only has to differ between clients that failed together.
        let seed = (js_sys::Math::random() * u64::MAX as f64) as u64;
        let inner = Inner {
            pool: Pool::new(options, seed),
            waiters: HashMap::new(),
            outcomes: HashMap::new(),
            progress: HashMap::new(),
            controllers: HashMap::new(),
            timer: None,
            listener: None,
            prover: None,
        };
        McpClient {
            inner: Rc::new(RefCell::new(inner)),
        }
    }

    /// Hands every server event (connected, lists changed, a server's request) to `listener`.
    pub fn set_listener(&self, listener: EventFn) {
        self.inner.borrow_mut().listener = Some(listener);
    }

    /// Proves every request with `prover` from now on.
    pub fn set_prover(&self, prover: Rc<dyn Prover>) {
        self.inner.borrow_mut().prover = Some(prover);
    }

    /// Runs `f` on the pool (with the time), then performs what it asked for.
    pub fn with<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        let result = f(&mut self.inner.borrow_mut().pool, now_ms());
        drive(&self.inner);
        result
    }

    /// Runs one operation on a server: a tool call with `on_progress` reports progress, and
    /// `cancel_key` is a key [`McpClient::cancel`] accepts.
    // ClientError carries the context a user needs (method, server, hint); these futures wait on
    // the network, so moving a large error costs nothing that matters.
    #[allow(clippy::result_large_err)]
    pub async fn run(
        &self,
        server_id: &str,
        mut op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        if let Operation::CallTool { progress, .. } = &mut op {
            *progress = on_progress.is_some();
        }
        let mut resolve = None;
        let promise = js_sys::Promise::new(&mut |done, _| resolve = Some(done));
        let id = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.pool.submit(server_id, op, cancel_key, now_ms())?;
            inner.waiters.extend(resolve.map(|resolve| (id, resolve)));
            inner
                .progress
                .extend(on_progress.map(|on_progress| (id, on_progress)));
            id
        };
        drive(&self.inner);
        let _ = JsFuture::from(promise).await;
        let outcome = self.inner.borrow_mut().outcomes.remove(&id);
        outcome.unwrap_or_else(|| {
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
                    guard.outcomes.insert(op, result);
                    guard.waiters.remove(&op)
                };
                if let Some(resolve) = waiter {
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
    let id = request.exchange;
    let fail = |message: String| {
        deliver(&inner, id, |p, now| {
            p.handle_transport_error(id, &message, now)
        });
    };
    let end = || {
        deliver(&inner, id, |p, now| p.handle_body_end(id, now));
    };
    let (head, body) = match start(&inner, &request, &controller).await {
        Ok(started) => started,
        Err(message) => return fail(message),
    };
    let wanted = deliver(&inner, id, |p, now| p.handle_response_head(id, head, now));
    let reader = match body {
        BodyReader::Stream(reader) if !wanted => return fetch::cancel(&reader),
        _ if !wanted => return,
        BodyReader::Stream(reader) => reader,
        BodyReader::Empty => return end(),
        BodyReader::Whole(response) => {
            let bytes = match fetch::read_whole(&response).await {
                Ok(bytes) => bytes,
                Err(message) => return fail(message),
            };
            if deliver(&inner, id, |p, now| p.handle_body(id, &bytes, now)) {
                end();
            }
            return;
        }
    };
    loop {
        let chunk = match fetch::read(&reader).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return end(),
            Err(message) => return fail(message),
        };
        if !deliver(&inner, id, |p, now| p.handle_body(id, &chunk, now)) {
            return fetch::cancel(&reader);
        }
    }
}

/// Sends a request, with a proof when the prover makes one; a proved request the server
/// answers asking for its nonce is made once more with a new proof.
async fn start(
    inner: &Weak<RefCell<Inner>>,
    request: &HttpRequest,
    controller: &AbortController,
) -> Result<(ResponseHead, BodyReader), String> {
    let (server, prover) = match inner.upgrade() {
        Some(inner) => {
            let guard = inner.borrow();
            let server = guard.pool.server_of(request.exchange).map(str::to_owned);
            (server, guard.prover.clone())
        }
        None => (None, None),
    };
    let (Some(server), Some(prover)) = (server, prover) else {
        return fetch::start(request, &controller.signal()).await;
    };
    let mut retried = false;
    loop {
        let Some(proof) = prover.proof(&server, request.method, &request.url).await else {
            return fetch::start(request, &controller.signal()).await;
        };
        let mut proved = request.clone();
        proved.headers.push(("DPoP".to_owned(), proof));
        let (head, body) = fetch::start(&proved, &controller.signal()).await?;
        // Every answer's nonce is kept; the request is made once more at most.
        let again = prover.answered(&server, &request.url, &head);
        if retried || !again {
            return Ok((head, body));
        }
        if let BodyReader::Stream(reader) = body {
            fetch::cancel(&reader);
        }
        retried = true;
    }
}

/// Hands a piece of a response to the pool (`f` answers whether the rest is wanted) and
/// performs what that caused; `false` when nobody wants the rest (ended, aborted, removed
/// server), so the caller stops reading.
fn deliver(
    inner: &Weak<RefCell<Inner>>,
    id: ExchangeId,
    f: impl FnOnce(&mut Pool, u64) -> bool,
) -> bool {
    let Some(inner) = inner.upgrade() else {
        return false;
    };
    let wanted = f(&mut inner.borrow_mut().pool, now_ms());
    if !wanted {
        inner.borrow_mut().controllers.remove(&id);
    }
    drive(&inner);
    let wanted = inner.borrow().pool.is_wanted(id);
    wanted
}
