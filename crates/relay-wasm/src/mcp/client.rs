//! [`McpClient`]: `relay_core::client::Driver` (which drives the pool) over [`Fetch`], the
//! browser's HTTP primitives: gloo-net requests with an `AbortController`, bodies read whole or
//! as streams, `setTimeout` timers.

use std::rc::Rc;

use relay_core::client::{
    ClientError, Driver, EventFn, HttpIo, HttpRequest, Operation, Output, Pool, PoolOptions,
    ProgressFn, Prover, ResponseHead, Task,
};
use wasm_bindgen::prelude::*;
use web_sys::AbortController;

use super::fetch::{self, Body};
use super::global::{now_ms, Timer};

/// The browser's HTTP, for the driver.
pub struct Fetch;

impl HttpIo for Fetch {
    type Abort = AbortController;
    type Body = Body;
    type Timer = Timer;

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn spawn(&self, task: Task) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn timer(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) -> Timer {
        let mut callback = Some(callback);
        Timer::after(delay_ms, move || callback.take().map_or((), |f| f()))
    }

    fn abort_handle(&self) -> Result<AbortController, String> {
        AbortController::new().map_err(|_| "AbortController is unavailable".to_owned())
    }

    fn abort(&self, handle: &AbortController) {
        handle.abort();
    }

    async fn start(
        &self,
        request: &HttpRequest,
        abort: &AbortController,
    ) -> Result<(ResponseHead, Option<Body>), String> {
        fetch::start(request, &abort.signal()).await
    }

    async fn read_whole(&self, body: Body) -> Result<Vec<u8>, String> {
        fetch::read_whole(&body.response).await
    }

    async fn read(&self, body: &mut Body) -> Result<Option<Vec<u8>>, String> {
        fetch::read(body).await
    }

    fn cancel(&self, body: Body) {
        fetch::cancel(body);
    }
}

/// The MCP client of the service worker; in JavaScript the class `RelayClient` (see
/// `bindings`). Cheap to clone; clones share the sessions.
#[wasm_bindgen(js_name = RelayClient)]
#[derive(Clone)]
pub struct McpClient {
    driver: Driver<Fetch>,
}

impl McpClient {
    /// A client with no servers.
    pub fn new(options: PoolOptions) -> Self {
        // Jitter only has to differ between clients that failed together.
        let seed = (js_sys::Math::random() * u64::MAX as f64) as u64;
        let driver = Driver::new(Pool::new(options, seed), Fetch);
        McpClient { driver }
    }

    /// Hands every server event (connected, lists changed, a server's request) to `listener`.
    pub fn set_listener(&self, listener: Option<EventFn>) {
        self.driver.set_listener(listener);
    }

    /// Proves every request with `prover` (DPoP) from now on.
    pub fn set_prover(&self, prover: Rc<dyn Prover>) {
        self.driver.set_prover(Some(prover));
    }

    /// Runs `f` on the pool (with the time), then performs what it asked for.
    pub fn with<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R {
        self.driver.with(f)
    }

    /// Runs one operation on a server (see `Driver::run`).
    #[allow(clippy::result_large_err)] // see Driver::run
    pub async fn run(
        &self,
        server_id: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        self.driver
            .run(server_id, op, on_progress, cancel_key)
            .await
    }
}
