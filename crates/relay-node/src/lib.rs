//! The JavaScript API of MCP Relay's Node build (`target/relay-node`, made by `cargo xtask
//! build`): a second thin edge of `relay-core`, for tests, benchmarks, the conformance client and
//! tools. It holds no logic: each export converts values at the boundary and calls the core (or
//! relay-wasm's MCP client over `fetch`). The extension's worker never loads it.
//!
//! - `api`: `parseToolCalls`, `StreamParser`, `promptForServers`, `ToolSet`,
//!   `elicitationDefaults`, `verifySkillFile`;
//! - `client`: the class `RelayClient` (`relay_core::client::Operation` as data);
//! - `auth`: `AuthFlow`, `relay_core::auth::Authorizer` for a JavaScript driver;
//! - `output`: a parse result into JavaScript, as two buffers or structured by its shape;
//! - `reuse`: what a new `servers` array can reuse of the last one's conversion;
//! - `staged` and `text`: strings and JSON text into wasm memory by one `encodeInto` (in Node, a
//!   Latin-1 reply by `Buffer.latin1Write`, made UTF-8 by `relay_core::latin1`).
//!
//! relay-wasm's exports (`handle`, `answerAtOnce`, `coreVersion`) are linked in too.
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod api;
mod auth;
// Benchmark-only exports, outside `src/`: never part of the extension's build.
#[cfg(feature = "boundary-bench")]
#[path = "../bench/boundary.rs"]
mod boundary_bench;
mod client;
mod out;
mod output;
mod reuse;
mod staged;
mod text;

pub use api::*;
pub use auth::AuthFlow;
pub use client::RelayClient;
pub use relay_wasm::{answer_at_once, core_version, handle};
