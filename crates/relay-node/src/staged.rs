//! A JavaScript string into wasm memory without wasm-bindgen's string glue, for
//! `StreamParser.append` (the one call made a thousand times per reply) and JSON texts
//! (`js::from_js_text`: tool lists).
//!
//! wasm-bindgen passes a `&str` by calling `malloc` for the string's length, copying it one
//! UTF-16 unit at a time in a JavaScript loop until the first non-ASCII character, then
//! `realloc` to three times the length, `TextEncoder.encodeInto` for the rest and `realloc` back;
//! the callee frees it. For a 100-character chunk of prose with the odd dash or accent that is
//! most of an append's cost, and for a long ASCII text the loop runs at ~2.5 ns a character
//! (2.1-2.7 ms for the 852 KB JSON of 1,000 tools, where `encodeInto` takes 0.05 ms). Here the
//! text crosses as a borrowed JS value and is encoded once, by `encodeInto`, straight into a
//! staging buffer that lives as long as the module (its `Uint8Array` view is made again only
//! when the buffer moves or the memory grows; a buffer grown past `KEEP` is given back).
//!
//! Whole replies (`parseToolCalls`, `ToolSet.parse`, `StreamParser.push`) take this path too
//! from `LONG_REPLY` UTF-16 units on ([`with_reply`]). The staged bytes are validated as UTF-8
//! before the parser reads them (no `unsafe` here), with `simdutf8` (SIMD in wasm): std's
//! `from_utf8` made a reply with a non-ASCII character near its start slower than the glue,
//! whose loop such a reply stops at once (BENCHMARKS.md, "Third pass" and "Issue 22"); a 1 MB
//! ASCII reply crosses 3-5× faster than through the glue.
//!
//! Not done: an inline JavaScript snippet doing the type check, `encodeInto` and reading
//! `written` in one call (three calls into JavaScript here) made 1,000 appends ~13% cheaper in
//! Node, but the Node glue `require`s snippets as CommonJS while the browser tests of this crate
//! import them as ES modules, and no snippet is both (BENCHMARKS.md, "Issue 22, second pass").

use std::cell::RefCell;

use js_sys::{Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    /// Given strings only: Node's `encodeInto` throws for anything else (browsers convert
    /// it), and a throw through wasm would leave the stage and the parser borrowed. (Catching
    /// it instead of asking `typeof` first measured slower: wasm-bindgen's `handleError`
    /// wrapper costs more than the call it saves.)
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsValue, into: &Uint8Array) -> EncodeResult;

    /// `String(value)`, caught (a `toString` may throw).
    #[wasm_bindgen(catch, js_name = String)]
    fn to_string(value: &JsValue) -> Result<JsValue, JsValue>;

    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> u32;
}

/// Room for a chunk of ~5,000 UTF-16 units (up to three bytes each) before the first growth.
const FIRST_CAPACITY: usize = 16 * 1024;
/// Bytes of staging buffer kept between calls at most (a 1 MB reply of any text needs 3 MB).
const KEEP: usize = 4 << 20;
/// `encodeInto` stops before a character that does not fit, which needs at most four bytes:
/// with this much room left after what it wrote, it wrote everything.
const ROOM: usize = 4;
/// Doublings of the buffer at most for one text (a 2^40-byte string does not exist).
const MAX_GROWTH: usize = 40;

struct Stage {
    encoder: TextEncoder,
    /// Zeroed once when made (the crate has no `unsafe` for writing into spare capacity), then
    /// written by `encodeInto` again and again.
    buf: Vec<u8>,
    /// The view of `buf`, and the memory's size in pages when it was made.
    view: Uint8Array,
    pages: usize,
}

thread_local! {
    static STAGE: RefCell<Option<Stage>> = const { RefCell::new(None) };
}

/// Calls `f` with `chunk` (or `String(chunk)` if it is not a string, `""` if that throws) as
/// UTF-8.
pub(crate) fn with_str<R>(chunk: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    if !chunk.is_string() {
        return with_str(&string_of(chunk), f);
    }
    staged(chunk, 0, f)
}

/// [`with_str`] for a long text (a whole reply, a tool list's JSON): the buffer is sized from
/// its length first, so the text is encoded once.
pub(crate) fn with_text<R>(text: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    if !text.is_string() {
        return with_text(&string_of(text), f);
    }
    let units = text.unchecked_ref::<js_sys::JsString>().length() as usize;
    staged(text, units.saturating_mul(3).saturating_add(ROOM), f)
}

/// From this many UTF-16 units on, a whole reply crosses by `encodeInto` (below it, the glue's
/// loop costs less than the calls into JavaScript the stage makes) unless a non-ASCII
/// character comes within its first `ASCII_HEAD` units: the glue's loop stops there and
/// `encodeInto`s the rest, with no validation after it.
const LONG_REPLY: u32 = 2048;
const ASCII_HEAD: u32 = 1024;

thread_local! {
    /// Finds a non-ASCII character (a JavaScript regular expression: V8 runs it natively).
    static NON_ASCII: js_sys::RegExp = js_sys::RegExp::new("[^\\x00-\\x7f]", "");
}

/// A whole reply as UTF-8: staged when long with an ASCII head, wasm-bindgen's glue otherwise;
/// `String(text)` (or `""` if that throws) when it is not a string.
pub(crate) fn with_reply<R>(text: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    if !text.is_string() {
        return with_reply(&string_of(text), f);
    }
    let js = text.unchecked_ref::<js_sys::JsString>();
    if js.length() >= LONG_REPLY {
        let head = js.slice(0, ASCII_HEAD);
        if NON_ASCII.with(|re| head.search(re)) < 0 {
            return with_text(text, f);
        }
    }
    match text.as_string() {
        Some(glued) => f(&glued),
        None => with_text(text, f),
    }
}

fn staged<R>(text: &JsValue, need: usize, f: impl FnOnce(&str) -> R) -> R {
    // Encode with the stage borrowed, then call `f` with it still borrowed: `f` (a parser step,
    // serde_json) never re-enters here.
    STAGE.with_borrow_mut(|slot| {
        let stage = slot.get_or_insert_with(|| Stage {
            encoder: TextEncoder::new(),
            buf: Vec::new(),
            view: Uint8Array::new_with_length(0),
            pages: 0,
        });
        if stage.buf.len() < need.max(FIRST_CAPACITY) {
            stage.grow(need.max(FIRST_CAPACITY));
        }
        let written = stage.encode(text);
        let bytes = &stage.buf[..written];
        let out = match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => f(text),
            // encodeInto writes UTF-8 only (lone surrogates become U+FFFD); kept total anyway.
            Err(_) => f(&String::from_utf8_lossy(bytes)),
        };
        if stage.buf.len() > KEEP {
            stage.grow(FIRST_CAPACITY);
        }
        out
    })
}

impl Stage {
    /// A new buffer of `len` bytes.
    fn grow(&mut self, len: usize) {
        self.buf = vec![0; len];
        self.pages = usize::MAX; // a new view before the next encoding
    }

    /// Encodes `text` at the start of `buf`; the length written.
    fn encode(&mut self, text: &JsValue) -> usize {
        for _ in 0..MAX_GROWTH {
            let pages = memory_pages();
            if pages != self.pages {
                // A new buffer, or the memory grew (which detaches every view of it).
                let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
                self.view = Uint8Array::new_with_byte_offset_and_length(
                    &memory.buffer(),
                    self.buf.as_ptr() as u32,
                    self.buf.len() as u32,
                );
                self.pages = pages;
            }
            let len = self.buf.len();
            let written = (self.encoder.encode_into(text, &self.view).written() as usize).min(len);
            if written + ROOM <= len {
                return written;
            }
            // Perhaps cut short: encode again into twice the room.
            self.grow(len * 2);
        }
        wasm_bindgen::throw_str("StreamParser: text too large")
    }
}

/// `String(value)`, or `""` if that throws.
fn string_of(value: &JsValue) -> JsValue {
    to_string(value).unwrap_or_else(|_| JsValue::from_str(""))
}

#[cfg(target_arch = "wasm32")]
fn memory_pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

/// Off wasm: never run (the crate compiles natively for lints and unit tests only).
#[cfg(not(target_arch = "wasm32"))]
fn memory_pages() -> usize {
    0
}
