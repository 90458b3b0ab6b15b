//! The second module's one export (relay-wasm built with its `rare` feature): the work the
//! worker's start-up module leaves to it (`relay_core::rare`), called by `extension/rare.js`,
//! which fetches and instantiates this module on the first call. JSON text in and out; the
//! work in progress lives here, in this module's memory, for the worker's life.

use std::cell::RefCell;

use relay_core::rare::Rare;
use wasm_bindgen::prelude::*;

thread_local! {
    static RARE: RefCell<Rare> = RefCell::new(Rare::default());
}

/// Does the work of one call (`relay_core::rare::RareCall` as JSON text): the reply as JSON
/// text (`RareReply`). Text, not JS values: this module's glue then only passes strings, and
/// the worker imports that glue on every start (a module service worker has no `import()`);
/// `extension/rare.js` converts, and the worker's module sends and reads plain objects.
#[wasm_bindgen]
pub fn serve(call: &str) -> String {
    let reply = match serde_json::from_str(call) {
        Ok(call) => RARE.with(|rare| rare.borrow_mut().serve_value(call)),
        Err(e) => {
            serde_json::json!({"refused": {"kind": "internal", "message": format!("the second module cannot read this call: {e}")}})
        }
    };
    reply.to_string()
}
