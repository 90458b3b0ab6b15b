//! The few globals the transport needs, bound so they resolve in a service worker and in Node
//! alike: `fetch`, `setTimeout`, `clearTimeout` and the clock. Never `window`: a service worker
//! has none.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The global `fetch(request)` (the one gloo-net's `send` calls), bound here so a rejection
    /// reaches us whole; `catch` because it may throw synchronously.
    #[wasm_bindgen(catch, js_name = fetch)]
    pub fn fetch(request: &web_sys::Request) -> Result<js_sys::Promise, JsValue>;

    /// The global `setTimeout`; its handle is a number in browsers and an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &js_sys::Function, ms: f64) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);
}

/// Milliseconds since the epoch: the session's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

/// A pending `setTimeout`; dropping it cancels the timer and frees its closure.
pub struct Timer {
    handle: JsValue,
    _closure: Closure<dyn FnMut()>,
}

impl Timer {
    /// Calls `callback` once after `delay_ms`.
    pub fn after(delay_ms: u64, callback: impl FnMut() + 'static) -> Timer {
        let closure = Closure::<dyn FnMut()>::new(callback);
        let handle = set_timeout(closure.as_ref().unchecked_ref(), delay_ms as f64);
        Timer {
            handle,
            _closure: closure,
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}
