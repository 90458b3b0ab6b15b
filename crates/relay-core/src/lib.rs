//! MCP Relay's core: everything the product decides, with no IO, no clock and no JavaScript.
//!
//! The wasm crate (`relay-wasm`) owns every edge (fetch, storage, messaging, time) and drives
//! the state machines here. Reading this crate tells you the product's logic.
//!
//! Code map:
//! - [`model`]: MCP wire types (tools, content, results) shared by every module.
//! - [`sse`]: incremental Server-Sent Events decoder.
//! - [`client`]: the sans-IO MCP client session (Streamable HTTP and legacy HTTP+SSE).
//! - [`auth`]: MCP authorization (OAuth 2.1 sign-in for remote servers), sans-IO.
//! - [`apps`]: MCP Apps (tools with an interface): what a tool declares, who may call it.
//! - [`skills`]: Skills (SEP-2640): what `skills/list` says, every file read verified against it.
//! - [`elicitation`]: reading `elicitation/create` requests and building their answers.
//! - [`link`]: a URL as the user must see it (the host it opens, IDN, userinfo).
//! - [`schema`]: JSON Schema rendering (for prompts) and argument validation.
//! - [`prompt`]: system prompt generation, templates and tool selection.
//! - [`page`]: the chat page as the core sees it: which reply is which, old or live, ended.
//! - [`parse`]: tool-call parsing from assistant replies, full and streaming.
//! - [`result`]: formatting tool results back for the model.
//! - [`policy`]: who may run what (allow / ask / deny) and the per-turn limits.
//! - [`contract`]: the message contract between the core, content scripts and the side panel.
//! - [`json_value`]: typed values read from a `serde_json::Value` (one reader for the crate).

pub mod app;
pub mod apps;
pub mod auth;
pub mod client;
pub mod contract;
pub mod elicitation;
pub mod json_text;
pub mod json_value;
pub mod latin1;
pub mod link;
pub mod model;
pub mod page;
pub mod parse;
pub mod pattern;
pub mod policy;
pub mod prompt;
pub mod rare;
pub mod result;
pub mod schema;
pub mod skills;
pub mod sorted_map;
pub mod sse;
