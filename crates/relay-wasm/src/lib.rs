//! The wasm bindings of `relay-core`: the only crate that touches JavaScript.
#![deny(clippy::unwrap_used, clippy::expect_used)]

use wasm_bindgen::prelude::*;

/// The core's version, for the side panel's about line and for liveness checks.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
