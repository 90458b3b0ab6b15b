//! [`Host`]: what the application needs from its platform, as primitives with no decision in
//! them (read and write storage, run an MCP operation, message a tab, set the Origin rules and
//! the badge, start a task, set a timer; for sign-ins: a request, the browser step, randomness,
//! a DPoP key and its signatures; the second module's work). The browser implements it in relay-wasm; tests
//! implement it in memory (`tests/test_app_run.rs`). Which primitive runs when, and what its
//! result means, is [`super::Runner`]'s business.

use std::future::Future;

use serde_json::Value;

use crate::auth::{AuthRequest, PublicJwk};
use crate::client::{ClientError, Operation, Output, Pool, ServerConfig};
pub use crate::client::{ProgressFn, Task};
use crate::contract::storage::Area;
use crate::contract::{ErrorBody, TabMessage};
use crate::rare::{RareCall, RareReply};

/// The platform under the application. One thread, no `Send` bounds: the worker is
/// single-threaded, and so are the futures.
#[allow(async_fn_in_trait)]
pub trait Host: Sized + 'static {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> u64;
    /// Runs `task` in the background.
    fn spawn(&self, task: Task);
    /// Calls `callback` once after `delay_ms`.
    fn after(&self, delay_ms: u64, callback: Box<dyn FnOnce()>);
    /// Reports what background work could not tell anyone else.
    fn warn(&self, message: &str);
    /// Runs `f` on the MCP client's pool (with the time), then performs what it asked for.
    fn pool<R>(&self, f: impl FnOnce(&mut Pool, u64) -> R) -> R;
    /// Reads `keys` from a storage area: each key's value, `Value::Null` when absent. The read
    /// is under way when this returns, so two areas read one after the other load together.
    fn read(
        &self,
        area: Area,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Value>, ErrorBody>>;
    /// Writes one key of a storage area.
    async fn write(&self, area: Area, key: &str, value: &Value) -> Result<(), ErrorBody>;
    /// Removes keys from a storage area.
    async fn remove(&self, area: Area, keys: &[String]) -> Result<(), ErrorBody>;
    /// Sends a message to a tab's content script and returns its answer: the one in `frame`
    /// (Chrome's frame id), or, without one, in every frame of the tab (the first answer
    /// counts).
    async fn to_tab(
        &self,
        tab: i64,
        frame: Option<i64>,
        message: &TabMessage,
    ) -> Result<Value, ErrorBody>;
    /// Makes the Origin rules these servers need ([`super::origin_rules_update`]).
    async fn origin_rules(&self, servers: &[ServerConfig]) -> Result<(), ErrorBody>;
    /// Gives back the host permission of an origin nothing uses any more (a removed chat site,
    /// a removed server's own or authorization servers' origin).
    async fn release_origin(&self, origin: &str);
    /// Shows `text` on the toolbar icon: of one tab, or (`None`) of every tab without its own.
    async fn badge(&self, tab: Option<i64>, text: &str);
    /// Runs one MCP operation on a server with the client's pool (signing in is the runner's
    /// business: [`super::Runner::mcp`]).
    #[allow(clippy::result_large_err)] // ClientError carries what a user needs; see client::Pool
    async fn mcp(
        &self,
        server: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError>;
    /// Where a sign-in's browser step comes back to (`chrome.identity.getRedirectURL`).
    fn redirect_uri(&self) -> Result<String, ErrorBody>;
    /// Fills `buffer` from the platform's CSPRNG.
    fn random(&self, buffer: &mut [u8]) -> Result<(), ErrorBody>;
    /// One request of a sign-in, read whole: status, body and `DPoP-Nonce`.
    async fn fetch(&self, request: &AuthRequest) -> Result<(u16, Vec<u8>, Option<String>), String>;
    /// The browser step: the authorization page (in a window only when `interactive`),
    /// resolved with the URL it redirected to.
    async fn browser_step(&self, url: &str, interactive: bool) -> Result<String, String>;
    /// The public half of a server's DPoP proof key; with `create`, a new key when it has none.
    async fn proof_key(&self, server: &str, create: bool) -> Result<Option<PublicJwk>, String>;
    /// Signs a JWS signing input with a server's DPoP proof key (base64url signature).
    async fn sign(&self, server: &str, signing_input: &str) -> Result<String, String>;
    /// Work for the second module ([`crate::rare`]), loaded on first use: in the extension a
    /// module of its own, elsewhere [`crate::rare::Rare::serve`] in-process. An error when the
    /// module cannot be loaded or failed.
    async fn rare(&self, call: &RareCall) -> Result<RareReply, ErrorBody>;
    /// One request to the native host (`relay-host`, which Chrome starts on the first one),
    /// answered with what the host sent; an error when Chrome cannot start it.
    async fn native(&self, message: &Value) -> Result<Value, ErrorBody> {
        let _ = message;
        Err(ErrorBody::new(
            crate::contract::ErrorKind::LocalHost,
            "no native host on this platform",
        ))
    }
}
