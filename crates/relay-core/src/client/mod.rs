//! The MCP client over HTTP, sans IO: a [`Session`] per server turns operations into HTTP
//! requests for a driver to perform and turns responses back into results.
//!
//! - [`session`]: the state machine (lifecycle, transports, retries, timeouts, cache, queue).
//! - [`pool`]: the sessions of every server, as one sans-IO state machine for a driver.
//! - [`jsonrpc`]: JSON-RPC 2.0 messages.
//! - [`ops`]: the operations (`tools/list`, `tools/call`, ...) and their results.
//! - [`headers`]: the request headers of protocol 2026-07-28 that mirror the body.
//! - [`error`]: the error taxonomy, each error with a hint for the user.
//! - [`config`]: server configurations and the `mcpServers` import.
//! - [`http`], [`url`], [`retry`], [`cache`]: the pieces the session is made of.

pub mod cache;
pub mod config;
pub mod driver;
pub mod error;
pub mod headers;
pub mod http;
pub mod jsonrpc;
pub mod ops;
pub mod pool;
pub mod retry;
pub mod session;
pub mod url;
pub mod wire_log;

pub use cache::ToolCache;
pub use config::{
    import_mcp_servers, ConfigError, ImportReport, ServerConfig, SkipReason, SkippedServer,
    TransportKind,
};
pub use driver::{Driver, EventFn, HttpIo, ProgressFn, ProofFuture, Prover, Task};
pub use error::{AuthChallenge, ClientError, ErrorReport};
pub use http::{Action, ExchangeId, HttpMethod, HttpRequest, ResponseHead};
pub use ops::{Operation, Output};
pub use pool::{OpId, Pool, PoolAction, PoolOptions, Progress, ServerStatus};
pub use retry::{Jitter, RetryPolicy};
pub use session::{
    CallId, ListKind, ProtocolMode, ServerInfo, Session, SessionConfig, SessionEvent,
    SessionSnapshot, SessionStats, TaskForm, Transport, MAX_POLL_MS, MIN_POLL_MS,
    TASKS_EXTENSION_ID,
};
pub use url::{loopback_origin, redact_url, scrub_urls, HttpUrl};
