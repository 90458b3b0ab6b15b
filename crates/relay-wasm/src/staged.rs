//! A JavaScript string into wasm memory without wasm-bindgen's string glue, for
//! `StreamParser.append`, the one call made a thousand times per reply.
//!
//! wasm-bindgen passes a `&str` by calling `malloc` for the string's length, copying it one
//! UTF-16 unit at a time in a JavaScript loop until the first non-ASCII character, then
//! `realloc` to three times the length, `TextEncoder.encodeInto` for the rest and `realloc` back;
//! the callee frees it. For a 100-character chunk of prose with the odd dash or accent that is
//! most of an append's cost. Here the chunk crosses as a borrowed JS value and is encoded once,
//! by `encodeInto`, straight into a staging buffer that lives as long as the module (its
//! `Uint8Array` view is made again only when the buffer moves or the memory grows).

use std::cell::RefCell;

use js_sys::{Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsValue, into: &Uint8Array) -> EncodeResult;

    /// `String(value)`: `encodeInto` in Node throws for anything but a string, and a throw
    /// through wasm would leave the stage and the parser borrowed.
    #[wasm_bindgen(js_name = String)]
    fn to_string(value: &JsValue) -> JsValue;

    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> u32;
}

/// Room for a chunk of ~5,000 UTF-16 units (up to three bytes each) before the first growth.
const FIRST_CAPACITY: usize = 16 * 1024;
/// `encodeInto` stops before a character that does not fit, which needs at most four bytes:
/// with this much room left after what it wrote, it wrote everything.
const ROOM: usize = 4;
/// Doublings of the buffer at most for one chunk (a 2^40-byte string does not exist).
const MAX_GROWTH: usize = 40;

struct Stage {
    encoder: TextEncoder,
    buf: Vec<u8>,
    /// The view of `buf`, and the memory's size in pages when it was made.
    view: Uint8Array,
    pages: usize,
}

thread_local! {
    static STAGE: RefCell<Option<Stage>> = const { RefCell::new(None) };
}

/// Calls `f` with `chunk` (or `String(chunk)` if it is not a string) as UTF-8.
pub(crate) fn with_str<R>(chunk: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    if !chunk.is_string() {
        return with_str(&to_string(chunk), f);
    }
    // Encode with the stage borrowed, then call `f` with it still borrowed: `f` is the
    // parser's step, which never re-enters here.
    STAGE.with_borrow_mut(|stage| {
        let stage = stage.get_or_insert_with(|| Stage::new(FIRST_CAPACITY));
        let written = stage.encode(chunk);
        match std::str::from_utf8(&stage.buf[..written]) {
            Ok(text) => f(text),
            // encodeInto writes UTF-8 only (lone surrogates become U+FFFD); kept total anyway.
            Err(_) => f(&String::from_utf8_lossy(&stage.buf[..written])),
        }
    })
}

impl Stage {
    fn new(capacity: usize) -> Stage {
        let buf = vec![0; capacity];
        let pages = memory_pages();
        Stage {
            encoder: TextEncoder::new(),
            view: view_of(&buf),
            buf,
            pages,
        }
    }

    fn encode(&mut self, chunk: &JsValue) -> usize {
        for _ in 0..MAX_GROWTH {
            let pages = memory_pages();
            if pages != self.pages {
                // The memory grew, which detaches every view of it.
                self.view = view_of(&self.buf);
                self.pages = pages;
            }
            let written = self.encoder.encode_into(chunk, &self.view).written() as usize;
            if written + ROOM <= self.buf.len() {
                return written;
            }
            // Perhaps cut short: encode again into twice the room.
            self.buf = vec![0; self.buf.len() * 2];
            self.view = view_of(&self.buf);
            self.pages = memory_pages();
        }
        wasm_bindgen::throw_str("StreamParser.append: chunk too large")
    }
}

fn view_of(buf: &[u8]) -> Uint8Array {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        buf.as_ptr() as u32,
        buf.len() as u32,
    )
}

#[cfg(target_arch = "wasm32")]
fn memory_pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

/// Off wasm: never run (the crate compiles natively for lints and unit tests only).
#[cfg(not(target_arch = "wasm32"))]
fn memory_pages() -> usize {
    usize::MAX
}
