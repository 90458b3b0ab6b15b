//! The wasm bindings of `relay-core` for the extension's service worker: with relay-node (the
//! Node build's JavaScript API, on top of this crate), the only code that touches JavaScript.
//!
//! Every place the worker touches the browser is here: `storage` (chrome.storage), `mcp` (the
//! MCP client over `fetch`), `service` (the message handler the service worker calls), `js` (the
//! boundary's conversions). The logic itself lives in `relay-core`.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod js;
pub mod mcp;
mod service;
mod storage;

pub use service::{answer_at_once, handle};

use wasm_bindgen::prelude::*;

/// The core's version, for the side panel's about line and for liveness checks.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
