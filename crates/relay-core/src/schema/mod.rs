//! JSON Schema for tools: a compact rendering of input schemas for the prompt, and the check
//! of a model's arguments against them before a call runs.
//!
//! Rendering is TypeScript-like, one signature per tool (`get_sum(a: number, b: number)`),
//! with every type, required flag, default, enum, bound, format and nested shape kept (seed
//! 001: a prompt that lists only names gets zero tool calls). Several tools rendered together
//! share repeated shapes and descriptions ([`render_catalog`]).

mod catalog;
mod example;
mod ir;
mod keywords;
mod names;
mod refs;
mod render;
pub(crate) mod text;
mod validate;
pub(crate) use validate::fmt_num;

pub(crate) use catalog::render_joined;
pub use catalog::{render, render_catalog, CatalogOptions, RenderedCatalog, SchemaProblem};
pub use example::example_arguments;
pub(crate) use example::example_cost;
pub use names::closest_names;
pub(crate) use text::normalize_ws;
pub use validate::{display_path, validate, Coercion, Validated, ValidationError};

use serde_json::Value;

/// The one-line type of a schema (`{lat: number -90..90, lon?: number}`), with `$ref`s
/// resolved against the schema itself; a recursive reference shows as its definition's name.
pub fn render_type(schema: &Value) -> String {
    let mut lowerer = ir::Lowerer::default();
    let node = lowerer.lower_root(schema);
    let names: Vec<String> = lowerer.defs.iter().map(|d| d.name_hint.clone()).collect();
    render::inline(&node, &names)
}
