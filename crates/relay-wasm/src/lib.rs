//! The wasm bindings of `relay-core` for the extension's service worker: with relay-node (the
//! Node build's JavaScript API, on top of this crate), the only code that touches JavaScript.
//!
//! Every place the worker touches the browser is here: `storage` (chrome.storage), `mcp` (the
//! MCP client over `fetch`), `service` (the message handler the service worker calls), `js` (the
//! boundary's conversions). The logic itself lives in `relay-core`.
//!
//! The crate builds two modules: with its default feature `worker`, the worker's module above,
//! loaded on every start; with only `rare`, the second module (`rare`), which the worker
//! loads on first use for work that runs rarely (`relay_core::rare`), so that its code is not
//! fetched and compiled on every start.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod js;
#[cfg(feature = "worker")]
pub mod mcp;
#[cfg(feature = "rare")]
mod rare;
#[cfg(feature = "worker")]
mod service;
#[cfg(feature = "worker")]
mod storage;

#[cfg(feature = "rare")]
pub use rare::serve;
#[cfg(feature = "worker")]
pub use service::{answer_at_once, handle};

#[cfg(feature = "worker")]
use wasm_bindgen::prelude::*;

/// The core's version, for the side panel's about line and for liveness checks.
#[cfg(feature = "worker")]
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
