//! The MCP client's edge: `relay_core::client::Pool` driven over `gloo_net::http` (the global
//! `fetch`), with streamed bodies, `AbortController` cancellation and one `setTimeout`.
//! Works in a service worker and in Node (no `window`). [`McpClient`] is the Rust API the
//! service uses and, as `RelayClient` (`bindings`), the JavaScript class of the Node host.

mod bindings;
mod client;
#[doc(hidden)]
pub mod fetch;
mod global;

pub use client::{EventFn, McpClient, ProgressFn, ProofFuture, Prover};
pub(crate) use global::{now_ms, set_timeout};
