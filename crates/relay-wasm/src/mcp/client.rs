//! [`McpClient`]: `relay_core::client::Driver` (which drives the pool) over [`Fetch`], the
//! browser's HTTP primitives: gloo-net requests with an `AbortController`, bodies read whole or
//! as streams, `setTimeout` timers.

use relay_core::client::{Driver, HttpIo, HttpRequest, Pool, PoolOptions, ResponseHead, Task};
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

/// The MCP client: the core's pool driven over the browser's HTTP. Cheap to clone; clones share
/// the sessions. In JavaScript, the class `RelayClient` (`bindings`).
pub type McpClient = Driver<Fetch>;

/// A client with no servers.
pub fn new_client(options: PoolOptions) -> McpClient {
    // Jitter only has to differ between clients that failed together.
    let seed = (js_sys::Math::random() * u64::MAX as f64) as u64;
    Driver::new(Pool::new(options, seed), Fetch)
}
