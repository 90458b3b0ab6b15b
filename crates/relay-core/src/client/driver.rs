//! [`Driver`]: a [`Pool`] run on an [`HttpIo`] (the browser's `fetch`, or a test's fake).
//!
//! The pool decides everything (sessions per server, exchanges, cancellation, deadlines, which
//! operation a result completes). The driver performs its actions: it starts each `Send` as a
//! background exchange (head, then the body whole or chunk by chunk, handed back piece by piece,
//! stopped as soon as the pool wants no more), aborts what the pool aborts, keeps one timer at
//! the pool's next deadline, and completes the future each [`Driver::run`] awaits. The transport
//! only moves bytes. A [`Prover`] (DPoP, RFC 9449) adds a freshly signed proof to each request
//! and may have one made once more with a server's nonce; what goes into a proof and whether to
//! retry are decided by the sign-in's state (`auth::AuthState`), not here.

use crate::sorted_map::SortedMap;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use super::{
    ClientError, ExchangeId, HttpMethod, HttpRequest, OpId, Operation, Output, Pool, PoolAction,
    Progress, ResponseHead, SessionEvent,
};

/// Work started in the background (nobody awaits it).
pub type Task = Pin<Box<dyn Future<Output = ()>>>;

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

/// The platform's side of HTTP: primitives only.
#[allow(async_fn_in_trait)] // one thread, no Send bounds
pub trait HttpIo: 'static {
    /// Cancels one exchange (`AbortController`); a clone cancels the same exchange.
    type Abort: Clone;
    /// A response body not read yet.
    type Body;
    /// A pending timer; dropping it cancels it.
    type Timer;
    /// Milliseconds since the epoch: the sessions' clock.
    fn now_ms(&self) -> u64;
    /// Runs `task` in the background.
    fn spawn(&self, task: Task);
    /// Calls `callback` once after `delay_ms`.
    fn timer(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) -> Self::Timer;
    /// A new cancellation handle for an exchange.
    fn abort_handle(&self) -> Result<Self::Abort, String>;
    /// Cancels the exchange of this handle.
    fn abort(&self, handle: &Self::Abort);
    /// Sends a request; resolves with the response head and its body (none for 202, 204...).
    async fn start(
        &self,
        request: &HttpRequest,
        abort: &Self::Abort,
    ) -> Result<(ResponseHead, Option<Self::Body>), String>;
    /// The whole body in one step.
    async fn read_whole(&self, body: Self::Body) -> Result<Vec<u8>, String>;
    /// The next chunk of a body read as a stream, `None` at its end.
    async fn read(&self, body: &mut Self::Body) -> Result<Option<Vec<u8>>, String>;
    /// Stops reading a body nobody wants any more (frees the connection).
    fn cancel(&self, body: Self::Body);
}

/// Where an operation's outcome waits for the future that awaits it.
#[derive(Default)]
struct Slot {
    outcome: Option<Result<Output, ClientError>>,
    waker: Option<Waker>,
}

struct State<T: HttpIo> {
    pool: Pool,
    waiting: SortedMap<OpId, Rc<RefCell<Slot>>>,
    progress: SortedMap<OpId, ProgressFn>,
    aborts: SortedMap<ExchangeId, T::Abort>,
    timer: Option<(u64, T::Timer)>,
    listener: Option<EventFn>,
    prover: Option<Rc<dyn Prover>>,
}

struct Shared<T: HttpIo> {
    transport: Rc<T>,
    state: RefCell<State<T>>,
}

/// A pool and its transport. Cheap to clone; clones share the sessions.
pub struct Driver<T: HttpIo> {
    shared: Rc<Shared<T>>,
}

impl<T: HttpIo> Clone for Driver<T> {
    fn clone(&self) -> Self {
        Driver {
            shared: Rc::clone(&self.shared),
        }
    }
}

impl<T: HttpIo> Driver<T> {
    /// A driver of `pool` over `transport`.
    pub fn new(pool: Pool, transport: T) -> Self {
        let state = State {
            pool,
            waiting: SortedMap::new(),
            progress: SortedMap::new(),
            aborts: SortedMap::new(),
            timer: None,
            listener: None,
            prover: None,
        };
        Driver {
            shared: Rc::new(Shared {
                transport: Rc::new(transport),
                state: RefCell::new(state),
            }),
        }
    }

    /// Hands every server event (connected, lists changed, a server's request) to `listener`.
    pub fn set_listener(&self, listener: Option<EventFn>) {
        self.shared.state.borrow_mut().listener = listener;
    }

    /// Proves every request with `prover` from now on.
    pub fn set_prover(&self, prover: Option<Rc<dyn Prover>>) {
        self.shared.state.borrow_mut().prover = prover;
    }

    /// Runs `f` on the pool (with the time), then performs what it asked for.
    pub fn with<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        let now = self.shared.transport.now_ms();
        let result = f(&mut self.shared.state.borrow_mut().pool, now);
        drive(&self.shared);
        result
    }

    /// Runs one operation on a server: a tool call with `on_progress` reports progress, and
    /// `cancel_key` is a key `Pool::cancel` accepts.
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
        let slot = Rc::new(RefCell::new(Slot::default()));
        {
            let now = self.shared.transport.now_ms();
            let mut state = self.shared.state.borrow_mut();
            let id = state.pool.submit(server_id, op, cancel_key, now)?;
            state.waiting.insert(id, Rc::clone(&slot));
            state.progress.extend(on_progress.map(|p| (id, p)));
        }
        drive(&self.shared);
        Outcome(slot).await
    }
}

/// The future of one operation: ready once the pool completed it.
struct Outcome(Rc<RefCell<Slot>>);

impl Future for Outcome {
    type Output = Result<Output, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.0.borrow_mut();
        match slot.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Performs the pool's actions until it has none, then keeps the timer at its next deadline.
/// Callbacks run outside any borrow: they may call back into the driver.
fn drive<T: HttpIo>(shared: &Rc<Shared<T>>) {
    let transport = &shared.transport;
    // Bounded: each action consumes pool output, and the pool only produces it in answer to input.
    for _ in 0..100_000 {
        let Some(action) = shared.state.borrow_mut().pool.poll_action() else {
            break;
        };
        match action {
            PoolAction::Send(request) => {
                let id = request.exchange;
                match transport.abort_handle() {
                    Ok(abort) => {
                        shared.state.borrow_mut().aborts.insert(id, abort.clone());
                        let (weak, transport) = (Rc::downgrade(shared), Rc::clone(transport));
                        transport.spawn(Box::pin(exchange(
                            weak,
                            transport.clone(),
                            request,
                            abort,
                        )));
                    }
                    Err(message) => {
                        let mut state = shared.state.borrow_mut();
                        let now = transport.now_ms();
                        state.pool.handle_transport_error(id, &message, now);
                    }
                }
            }
            PoolAction::Abort(id) => {
                let abort = shared.state.borrow_mut().aborts.remove(&id);
                if let Some(abort) = abort {
                    transport.abort(&abort);
                }
            }
            PoolAction::Complete { op, result } => {
                let slot = {
                    let mut state = shared.state.borrow_mut();
                    state.progress.remove(&op);
                    state.waiting.remove(&op)
                };
                if let Some(slot) = slot {
                    let waker = {
                        let mut slot = slot.borrow_mut();
                        slot.outcome = Some(result);
                        slot.waker.take()
                    };
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                }
            }
            PoolAction::Progress { op, progress } => {
                let callback = shared.state.borrow().progress.get(&op).cloned();
                if let Some(callback) = callback {
                    callback(&progress);
                }
            }
            PoolAction::Event { server, event } => {
                let listener = shared.state.borrow().listener.clone();
                if let Some(listener) = listener {
                    listener(&server, &event);
                }
            }
        }
    }
    let mut state = shared.state.borrow_mut();
    let due = state.pool.poll_timeout();
    if state.timer.as_ref().map(|(at, _)| *at) == due {
        return;
    }
    let weak = Rc::downgrade(shared);
    state.timer = due.map(|at| {
        let delay = at.saturating_sub(transport.now_ms());
        let timer = transport.timer(
            delay,
            Box::new(move || {
                let Some(shared) = weak.upgrade() else { return };
                {
                    let now = shared.transport.now_ms();
                    let mut state = shared.state.borrow_mut();
                    state.timer = None;
                    state.pool.handle_timeout(now);
                }
                drive(&shared);
            }),
        );
        (at, timer)
    });
}

/// One HTTP exchange, from the request to the end of its body (or until the pool wants no
/// more). It holds the driver weakly: a dropped client's exchanges stop at their next step.
async fn exchange<T: HttpIo>(
    weak: Weak<Shared<T>>,
    transport: Rc<T>,
    request: HttpRequest,
    abort: T::Abort,
) {
    let id = request.exchange;
    let started = start(&weak, &transport, &request, &abort).await;
    let fail = |message: String| {
        deliver(&weak, id, |p, now| {
            p.handle_transport_error(id, &message, now)
        });
    };
    let end = || {
        deliver(&weak, id, |p, now| p.handle_body_end(id, now));
    };
    let (head, body) = match started {
        Ok(started) => started,
        Err(message) => return fail(message),
    };
    let whole = head.read_whole(&request);
    let wanted = deliver(&weak, id, |p, now| p.handle_response_head(id, head, now));
    let mut body = match body {
        Some(body) if !wanted => return transport.cancel(body),
        _ if !wanted => return,
        None => return end(),
        Some(body) if whole => {
            match transport.read_whole(body).await {
                Ok(bytes) if deliver(&weak, id, |p, now| p.handle_body(id, &bytes, now)) => end(),
                Ok(_) => {}
                Err(message) => fail(message),
            }
            return;
        }
        Some(body) => body,
    };
    loop {
        let chunk = match transport.read(&mut body).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return end(),
            Err(message) => return fail(message),
        };
        if !deliver(&weak, id, |p, now| p.handle_body(id, &chunk, now)) {
            return transport.cancel(body);
        }
    }
}

/// Sends a request, with a proof when the prover makes one; a proved request the server
/// answers asking for its nonce is made once more with a new proof.
async fn start<T: HttpIo>(
    weak: &Weak<Shared<T>>,
    transport: &T,
    request: &HttpRequest,
    abort: &T::Abort,
) -> Result<(ResponseHead, Option<T::Body>), String> {
    let (server, prover) = match weak.upgrade() {
        Some(shared) => {
            let state = shared.state.borrow();
            let server = state.pool.server_of(request.exchange).map(str::to_owned);
            (server, state.prover.clone())
        }
        None => (None, None),
    };
    let (Some(server), Some(prover)) = (server, prover) else {
        return transport.start(request, abort).await;
    };
    for retry in [false, true] {
        let Some(proof) = prover.proof(&server, request.method, &request.url).await else {
            break;
        };
        let mut proved = request.clone();
        proved.headers.push(("DPoP".to_owned(), proof));
        let (head, body) = transport.start(&proved, abort).await?;
        // Every answer's nonce is kept; the request is made once more at most.
        if retry || !prover.answered(&server, &request.url, &head) {
            return Ok((head, body));
        }
        if let Some(body) = body {
            transport.cancel(body);
        }
    }
    transport.start(request, abort).await
}

/// Hands a piece of a response to the pool (`f` answers whether the rest is wanted) and
/// performs what that caused; `false` when nobody wants the rest (ended, aborted, removed
/// server), so the caller stops reading.
fn deliver<T: HttpIo>(
    weak: &Weak<Shared<T>>,
    id: ExchangeId,
    f: impl FnOnce(&mut Pool, u64) -> bool,
) -> bool {
    let Some(shared) = weak.upgrade() else {
        return false;
    };
    let now = shared.transport.now_ms();
    let wanted = f(&mut shared.state.borrow_mut().pool, now);
    if !wanted {
        shared.state.borrow_mut().aborts.remove(&id);
    }
    drive(&shared);
    let wanted = shared.state.borrow().pool.is_wanted(id);
    wanted
}
