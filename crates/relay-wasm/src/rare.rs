//! The second module's one export (relay-wasm built with its `rare` feature): the work the
//! worker's start-up module leaves to it (`relay_core::rare`), called by `extension/rare.js`,
//! which fetches and instantiates this module on the first call. plain JS objects (JSON values) in and out; the
//! work in progress lives here, in this module's memory, for the worker's life.

use std::cell::RefCell;

use relay_core::rare::Rare;

use crate::js::{from_js, value_to_js};
use wasm_bindgen::prelude::*;

thread_local! {
    static RARE: RefCell<Rare> = RefCell::new(Rare::default());
}

/// Does the work of one call (`relay_core::rare::RareCall` as a plain object): the reply as
/// one (`RareReply`).
#[wasm_bindgen]
pub fn serve(call: JsValue) -> Result<JsValue, JsValue> {
    let call = from_js(call, "call")?;
    let reply = RARE.with(|rare| rare.borrow_mut().serve_value(call));
    value_to_js(&reply)
}
