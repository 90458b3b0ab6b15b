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
//! from `LONG_REPLY` UTF-16 units on ([`with_reply`]) when they look all ASCII. In Node, one that
//! does not but looks Latin-1 (accented letters, no curly quotes, dashes or emoji) crosses by
//! `Buffer.latin1Write` up to its first character past U+00FF and becomes UTF-8 here
//! (`relay_core::latin1`): `encodeInto` copies a string at memory speed only while all of it is
//! ASCII, and a few accented letters made a 1 MB reply's copy ten times slower. The staged
//! bytes are validated as UTF-8 before the parser reads them (no `unsafe` here), with
//! `simdutf8` (SIMD in wasm): std's `from_utf8` made a reply with a non-ASCII character near its
//! start slower than the glue, whose loop such a reply stops at once (BENCHMARKS.md, "Third
//! pass" and "Issue 22"); a 1 MB ASCII reply crosses 3-5× faster than through the glue.
//!
//! Not done: an inline JavaScript snippet doing the type check, `encodeInto` and reading
//! `written` in one call (three calls into JavaScript here) made 1,000 appends ~13% cheaper in
//! Node, but the Node glue `require`s snippets as CommonJS while the browser tests of this crate
//! import them as ES modules, and no snippet is both (BENCHMARKS.md, "Issue 22, second pass").

use std::cell::RefCell;

use js_sys::{Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use relay_core::latin1;

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

    /// Node's `Buffer` (called only where it exists: [`NODE_BUFFER`]): a view of wasm memory
    /// whose `latin1Write` copies a string one byte per character, each character's low byte.
    #[wasm_bindgen(js_name = Buffer)]
    type NodeBuffer;
    #[wasm_bindgen(static_method_of = NodeBuffer, js_class = "Buffer", js_name = from)]
    fn over(memory: &JsValue, offset: u32, length: u32) -> NodeBuffer;
    #[wasm_bindgen(method, js_name = latin1Write)]
    fn latin1_write(this: &NodeBuffer, text: &JsValue, offset: u32, length: u32) -> u32;
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
    /// A reply's UTF-8 made from its Latin-1 part and the rest (`latin1_staged`).
    out: Vec<u8>,
}

impl Stage {
    fn new() -> Stage {
        Stage {
            encoder: TextEncoder::new(),
            buf: Vec::new(),
            view: Uint8Array::new_with_length(0),
            pages: 0,
            out: Vec::new(),
        }
    }
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

/// From this many UTF-16 units on, a whole reply crosses by `encodeInto` when it looks all
/// ASCII, and in Node by `latin1Write` when it looks Latin-1 (below it, the glue's loop costs
/// less than the calls into JavaScript the stage makes). Any other takes the glue: its loop
/// stops at the first non-ASCII character and `encodeInto`s the rest, with no validation after.
const LONG_REPLY: u32 = 2048;
/// The first part of a Latin-1 reply copied by `latin1Write`: where its accents turn out dense,
/// it takes the glue's way instead (see `latin1_staged`).
const PROBE: usize = 64 * 1024;
/// Where a reply is looked at: this many windows of `WINDOW` units, spread from its start to
/// its end. Accents, quotes and dashes recur through a text; a reply that has them in none of
/// the windows is copied as it was before the windows were (by `encodeInto`, through its
/// per-character path), and one whose character past U+00FF comes after all of them costs a
/// search to it.
const WINDOWS: u32 = 8;
const WINDOW: u32 = 256;

/// What a reply's windows hold.
enum Looks {
    Ascii,
    /// Some U+0080–U+00FF, nothing past it.
    Latin1,
    /// A character past U+00FF.
    Wide,
}

fn look(js: &js_sys::JsString) -> Looks {
    let len = js.length();
    let step = len.saturating_sub(WINDOW) / (WINDOWS - 1);
    let mut looks = Looks::Ascii;
    for k in 0..WINDOWS {
        let start = k * step;
        let window = js.slice(start, (start + WINDOW).min(len));
        if NON_ASCII.with(|re| window.search(re)) >= 0 {
            if NON_LATIN1.with(|re| window.search(re)) >= 0 {
                return Looks::Wide;
            }
            looks = Looks::Latin1;
        }
    }
    looks
}

thread_local! {
    /// Finds a non-ASCII character (a JavaScript regular expression: V8 runs it natively).
    static NON_ASCII: js_sys::RegExp = js_sys::RegExp::new("[^\\x00-\\x7f]", "");
    /// Finds a character past U+00FF. V8 answers at once for a string it keeps one byte per
    /// character (none can be there); in any other it looks until the first one.
    static NON_LATIN1: js_sys::RegExp = js_sys::RegExp::new("[^\\x00-\\xff]", "");
    /// Whether `Buffer` exists (Node; not the browser the crate's own tests run in).
    static NODE_BUFFER: bool =
        js_sys::Reflect::has(&js_sys::global(), &JsValue::from_str("Buffer")).unwrap_or(false);
}

/// A whole reply as UTF-8: staged when long and its windows are ASCII (or, in Node, Latin-1 with
/// sparse accents), wasm-bindgen's glue otherwise; `String(text)` (or `""` if that throws) when
/// it is not a string.
pub(crate) fn with_reply<R>(text: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    if !text.is_string() {
        return with_reply(&string_of(text), f);
    }
    let js = text.unchecked_ref::<js_sys::JsString>();
    if js.length() >= LONG_REPLY {
        let looks = look(js);
        if let Looks::Ascii = looks {
            return with_text(text, f);
        }
        let f = if let (Looks::Latin1, true) = (looks, NODE_BUFFER.with(|b| *b)) {
            // Up to its first character past U+00FF: V8 says at once that there is none in a
            // string it keeps one byte per character, the common case here.
            let latin1 = u32::try_from(NON_LATIN1.with(|re| js.search(re))).unwrap_or(js.length());
            match latin1_staged(text, js, latin1 as usize, f) {
                Ok(out) => return out,
                Err(f) => f,
            }
        } else {
            f
        };
        // As before the windows: `encodeInto` if it starts with ASCII (the glue's loop would
        // copy all of that one unit at a time), else the glue.
        let head = js.slice(0, WINDOW);
        if NON_ASCII.with(|re| head.search(re)) < 0 {
            return with_text(text, f);
        }
        return glued(text, f);
    }
    glued(text, f)
}

/// `f` with `text` through wasm-bindgen's glue.
fn glued<R>(text: &JsValue, f: impl FnOnce(&str) -> R) -> R {
    match text.as_string() {
        Some(glued) => f(&glued),
        None => with_text(text, f),
    }
}

fn staged<R>(text: &JsValue, need: usize, f: impl FnOnce(&str) -> R) -> R {
    // Encode with the stage borrowed, then call `f` with it still borrowed: `f` (a parser step,
    // serde_json) never re-enters here.
    STAGE.with_borrow_mut(|slot| {
        let stage = slot.get_or_insert_with(Stage::new);
        if stage.buf.len() < need.max(FIRST_CAPACITY) {
            stage.grow(need.max(FIRST_CAPACITY));
        }
        let written = stage.encode(text);
        let out = utf8(&stage.buf[..written], f);
        stage.keep_small();
        out
    })
}

/// A reply whose first `latin1` UTF-16 units are all U+0000–U+00FF: those by `latin1Write`,
/// made UTF-8 here, the rest (if any) by `encodeInto`. `f` back when the accents turn out dense
/// (then the glue's way costs less: it is not validated after, and here the UTF-8 of many
/// accents would be).
fn latin1_staged<R, F: FnOnce(&str) -> R>(
    text: &JsValue,
    js: &js_sys::JsString,
    latin1: usize,
    f: F,
) -> Result<R, F> {
    let units = js.length() as usize;
    STAGE.with_borrow_mut(|slot| {
        let stage = slot.get_or_insert_with(Stage::new);
        // Room first (growing the memory detaches every view of it, `view` included): the
        // Latin-1 bytes, then in the same buffer the UTF-8 of what `latin1_to_utf8` leaves (at
        // most all of it); in `out` the Latin-1 part's UTF-8 (two bytes a unit at most), then
        // the rest's.
        let need = units.saturating_mul(3).saturating_add(ROOM);
        if stage.buf.len() < need.max(FIRST_CAPACITY) {
            stage.grow(need.max(FIRST_CAPACITY));
        }
        stage.out.clear();
        stage.out.reserve(latin1.saturating_mul(2));
        let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        let view = NodeBuffer::over(&memory.buffer(), stage.buf.as_ptr() as u32, latin1 as u32);
        let write = |from: usize, to: usize| {
            let part: JsValue = if from == 0 && to == units {
                text.clone()
            } else {
                js.slice(from as u32, to as u32).into()
            };
            let n = view.latin1_write(&part, from as u32, (to - from) as u32) as usize;
            from + n.min(to - from)
        };
        // A first part tells whether the accents are sparse; if they are not, nothing more is
        // copied this way. Latin-1 bytes are UTF-16 units one for one: what `latin1_to_utf8`
        // took is where the rest starts.
        let first = write(0, latin1.min(PROBE));
        let mut took = latin1::latin1_to_utf8(&stage.buf[..first], &mut stage.out);
        if took < first {
            stage.keep_small();
            return Err(f);
        }
        if first < latin1 {
            let end = write(first, latin1);
            took += latin1::latin1_to_utf8(&stage.buf[first..end], &mut stage.out);
        }
        if took < units {
            let tail = js.slice(took as u32, units as u32);
            let written = stage.encode(&tail);
            stage.out.extend_from_slice(&stage.buf[..written]);
        }
        let out = utf8(&stage.out, f);
        stage.keep_small();
        Ok(out)
    })
}

/// `f` with `bytes` as text: UTF-8 by construction (`encodeInto` writes UTF-8 only, lone
/// surrogates becoming U+FFFD; `latin1` makes UTF-8), validated anyway, and kept total.
fn utf8<R>(bytes: &[u8], f: impl FnOnce(&str) -> R) -> R {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => f(text),
        Err(_) => f(&String::from_utf8_lossy(bytes)),
    }
}

impl Stage {
    /// Gives back what a long text grew past [`KEEP`].
    fn keep_small(&mut self) {
        if self.buf.len() > KEEP {
            self.grow(FIRST_CAPACITY);
        }
        if self.out.capacity() > KEEP {
            self.out = Vec::new();
        }
    }

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
