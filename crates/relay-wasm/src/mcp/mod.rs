//! The MCP client's edge: `relay_core::client::Driver` (the pool and its driving) over
//! `gloo_net::http` (the global `fetch`), with streamed bodies, `AbortController` cancellation
//! and `setTimeout` timers.
//! Works in a service worker and in Node (no `window`). [`McpClient`] is the Rust API the
//! service uses; relay-node's `RelayClient` is the JavaScript class of the Node host.

mod client;
#[doc(hidden)]
pub mod fetch;
mod global;

pub use client::{new_client, McpClient};
pub(crate) use global::{now_ms, set_timeout};
