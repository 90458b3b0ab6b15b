//! The MCP client's edge: `relay_core::client::Session` driven over `gloo_net::http` (the
//! global `fetch`), with streamed bodies, `AbortController` cancellation and `setTimeout`
//! deadlines. Works in a service worker and in Node (no `window`).
//!
//! - [`McpClient`]: the Rust API the service worker's handlers use.
//! - [`RelayClient`]: the same as a JavaScript class (Node host, tests, benchmarks).

mod bindings;
mod client;
mod fetch;
mod global;
mod oneshot;

pub use bindings::RelayClient;
pub use client::{
    CallOptions, ClientOptions, EventFn, McpClient, Progress, ProgressFn, ServerStatus,
};
