//! The wasm bindings of `relay-core`: the only crate that touches JavaScript.
//!
//! Every place the product touches the browser is here: `storage` (chrome.storage, or memory in
//! Node), `service` (the message handler the service worker calls), `api` (pure functions exported
//! for the service worker, the Node build and tests). The logic itself lives in `relay-core`.
#![deny(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "library")]
mod api;
#[cfg(feature = "library")]
mod auth;
// Benchmark-only exports, outside `src/`: never part of the extension's build.
#[cfg(feature = "boundary-bench")]
#[path = "../bench/boundary.rs"]
mod boundary_bench;
mod js;
pub mod mcp;
mod service;
#[cfg(feature = "library")]
mod staged;
mod storage;

#[cfg(feature = "library")]
pub use api::*;
#[cfg(feature = "library")]
pub use auth::AuthFlow;
pub use service::{answer_at_once, handle};

use wasm_bindgen::prelude::*;

/// The core's version, for the side panel's about line and for liveness checks.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
