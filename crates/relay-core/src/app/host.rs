//! [`Host`]: what the application needs from its platform, as primitives with no decision in
//! them (read and write storage, run an MCP operation, message a tab, set the Origin rules and
//! the badge, start a task, set a timer). The browser implements it in relay-wasm; tests
//! implement it in memory (`tests/test_app_run.rs`). Which primitive runs when, and what its
//! result means, is [`super::Runner`]'s business.

use std::future::Future;
use std::rc::Rc;

use serde_json::Value;

use super::Runner;
use crate::client::{ClientError, Operation, Output, Pool, ServerConfig};
pub use crate::client::{ProgressFn, Task};
use crate::contract::storage::Area;
use crate::contract::{ErrorBody, TabMessage};

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
    /// Sends a message to a tab's content script and returns its answer.
    async fn to_tab(&self, tab: i64, message: &TabMessage) -> Result<Value, ErrorBody>;
    /// Makes the Origin rules these servers need ([`super::origin_rules_update`]).
    async fn origin_rules(&self, servers: &[ServerConfig]) -> Result<(), ErrorBody>;
    /// Gives back the host permission of a chat site nobody uses any more.
    async fn release_origin(&self, origin: &str);
    /// Shows `text` on the toolbar icon.
    async fn badge(&self, text: &str);
    /// Runs one MCP operation on a server, with its sign-in kept fresh.
    #[allow(clippy::result_large_err)] // ClientError carries what a user needs; see client::Pool
    async fn mcp(
        run: &Rc<Runner<Self>>,
        server: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError>;
    /// `servers/signIn`: signs in where the server asks for it; answers the server's view.
    async fn sign_in(run: &Rc<Runner<Self>>, id: &str) -> Result<Value, ErrorBody>;
    /// `servers/signOut`: forgets (and revokes) the sign-in; answers the server's view.
    async fn sign_out(run: &Rc<Runner<Self>>, id: &str) -> Result<Value, ErrorBody>;
}
