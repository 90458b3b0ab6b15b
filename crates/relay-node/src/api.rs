//! Pure functions of the core exported to JavaScript: used by the service worker, the Node build
//! (`target/relay-node/relay_wasm.js`) and tests. Stable names; plain JSON in and out.
//!
//! - `promptForServers(servers, options?)` → `{text, chars, tokensEstimate, tools, diagnostics?}` or `null`
//! - `verifySkillFile(skill, uri, read)` → the text of a skill's file, verified against its listing
//! - `parseToolCalls(text, servers)` → `{calls: [{tool, server, arguments, callId, span, format}], diagnostics}`
//! - `new StreamParser(servers)`: `.push(fullText)`, `.append(chunk)`, `.finish()` → `{calls, pending, diagnostics}`
//! - `new ToolSet(servers)`: `.prompt(options?)`, `.parse(text)`, `.streamParser()`, `.tools`,
//!   `.dropPromptCache()` (the tools converted and, on the first prompt, rendered once)
//!
//! `StreamParser` and `ToolSet` free their wasm memory when JavaScript drops them (the build's
//! `--weak-refs`: a `FinalizationRegistry`); `free()` does it at once. `__liveObjects()` (for
//! `tests/api/lifetime.test.mjs`) counts the ones alive and the module's memory.
//!
//! `servers` is `[{id, name, tools: [MCP Tool as tools/list returns it]}]`; it crosses as JSON
//! text (`js::from_js_text`: measured twice as fast as structured for tool lists), once per
//! array: the functions that take it keep the last array they converted (its tools and, once a
//! prompt was asked for, the rendered tool list) and reuse them while they are given the same
//! array again (`===`), or a new array of the same server objects in the same order, each with
//! the same `id`, `name` and `tools` array (`===`) of the same length (`[...servers]`, a
//! `filter` that kept them all), or new server objects whose JSON text is that of a server of
//! the last array (a repeated `tools/list` answer: the text is made and compared, not read
//! again): `crate::reuse`. So treat a `servers` array, its server objects and
//! their tools as immutable once passed, and pass new ones when tools change (as every
//! `tools/list` answer is); a `ToolSet` holds its conversion for as long as it lives.

use relay_core::model::ServerTools;
use relay_core::parse::SelectedTools;
use relay_core::prompt::{prepare_for_servers, PreparedTools, PromptOptions};
use std::cell::{Cell, OnceCell};
use wasm_bindgen::prelude::*;

use crate::output::output_to_js;
use crate::reuse::converted;
use crate::text::{from_js_lenient, from_js_text};
use relay_wasm::js::{from_js, to_js};

/// Servers converted from JavaScript, with their tools rendered for prompts on first use.
pub(crate) struct Converted {
    pub(crate) selection: SelectedTools,
    prepared: OnceCell<Option<PreparedTools>>,
}

impl Converted {
    pub(crate) fn new(servers: Vec<ServerTools>) -> Self {
        Converted {
            selection: SelectedTools::new(servers),
            prepared: OnceCell::new(),
        }
    }

    fn prompt(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let options: Option<PromptOptions> = from_js_lenient(options, "options")?;
        let options = options.unwrap_or_default();
        let prepared = self
            .prepared
            .get_or_init(|| prepare_for_servers(self.selection.servers()));
        match prepared.as_ref().and_then(|p| p.prompt(&options)) {
            Some(p) => to_js(&p),
            None => Ok(JsValue::NULL),
        }
    }
}

thread_local! {
    /// `StreamParser`s and `ToolSet`s alive (made and not yet freed, by `free()` or by the
    /// finalizer when JavaScript dropped them). Signed: an object freed twice would show.
    static LIVE: Cell<[i32; 2]> = const { Cell::new([0, 0]) };
}

const PARSERS: usize = 0;
const TOOL_SETS: usize = 1;

fn live(kind: usize, up: bool) {
    LIVE.with(|l| {
        let mut n = l.get();
        n[kind] += if up { 1 } else { -1 };
        l.set(n);
    });
}

/// `{streamParsers, toolSets, memoryBytes}`: the objects alive and the size of the module's
/// memory, for the lifetime test (no leak when JavaScript never calls `free()`).
#[wasm_bindgen(js_name = __liveObjects)]
pub fn live_objects() -> Result<JsValue, JsValue> {
    let [parsers, sets] = LIVE.with(Cell::get);
    #[cfg(target_arch = "wasm32")]
    let bytes = core::arch::wasm32::memory_size::<0>() * 65_536;
    #[cfg(not(target_arch = "wasm32"))]
    let bytes = 0usize;
    to_js(&serde_json::json!({
        "streamParsers": parsers,
        "toolSets": sets,
        "memoryBytes": bytes,
    }))
}

/// The system prompt for all tools of `servers`; `null` when there are none.
#[wasm_bindgen(js_name = promptForServers)]
pub fn prompt_for_servers_js(servers: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    converted(&servers)?.prompt(options)
}

/// The answer of a client with nobody to ask (the conformance client) to an elicitation's
/// `params`: accept with every field's default (SEP-1034, `relay_core::elicitation`), or decline
/// when a required field has none or the request is not a form.
#[wasm_bindgen(js_name = elicitationDefaults)]
pub fn elicitation_defaults(params: JsValue) -> Result<JsValue, JsValue> {
    use relay_core::elicitation::{accept, decline, ElicitRequest};
    let answer = match ElicitRequest::parse(&from_js(params, "params")?) {
        Ok(ElicitRequest::Form { fields, .. }) => {
            accept(&fields, &serde_json::Map::new()).unwrap_or_else(|_| decline())
        }
        _ => decline(),
    };
    to_js(&answer)
}

/// A file of a skill (SEP-2640) as read, checked against the skill's `skills/list` entry by the
/// core (`relay_core::skills::verify_read`: size, digest, and a `SKILL.md`'s frontmatter):
/// `skill` is the entry, `uri` the file, `read` the `resources/read` result. Returns the
/// verified text; throws an `Error` saying what did not match, and then nothing may be used.
#[wasm_bindgen(js_name = verifySkillFile)]
pub fn verify_skill_file(skill: JsValue, uri: &str, read: JsValue) -> Result<String, JsValue> {
    use relay_core::skills::{verify_read, Skill};
    let skill: Skill = from_js(skill, "skill")?;
    let read: relay_core::model::ReadResourceResult = from_js(read, "read")?;
    verify_read(&skill, uri, &read)
        .map(relay_core::skills::VerifiedFile::into_text)
        .map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// Finds the tool calls in one reply; never throws for any text.
/// The text is read as `String(text)` when it is not a string.
#[wasm_bindgen(js_name = parseToolCalls)]
pub fn parse_tool_calls_js(text: &JsValue, servers: JsValue) -> Result<JsValue, JsValue> {
    let c = converted(&servers)?;
    crate::staged::with_reply(text, |text| output_to_js(&c.selection.parse(text)))
}

/// An incremental parser for one reply as it streams: reports each complete call once.
#[wasm_bindgen(js_name = StreamParser)]
pub struct StreamParserJs {
    inner: relay_core::parse::StreamParser,
}

thread_local! {
    /// Frozen answers for "nothing new" (not writing / writing a call), made once for every
    /// parser: most steps of a streaming reply return one of them, so a step costs the parse
    /// and nothing more, and a new parser costs no JS objects.
    static QUIET: [JsValue; 2] = quiet_updates();
}

fn quiet_updates() -> [JsValue; 2] {
    [false, true].map(|pending| {
        let obj = js_sys::Object::new();
        let calls = js_sys::Object::freeze(&js_sys::Array::new().into());
        let diagnostics = js_sys::Object::freeze(&js_sys::Array::new().into());
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str("calls"), &calls);
        let _ = js_sys::Reflect::set(
            &obj,
            &JsValue::from_str("pending"),
            &JsValue::from_bool(pending),
        );
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str("diagnostics"), &diagnostics);
        js_sys::Object::freeze(&obj).into()
    })
}

#[wasm_bindgen(js_class = StreamParser)]
impl StreamParserJs {
    /// A parser for the tools of `servers`.
    #[wasm_bindgen(constructor)]
    pub fn new(servers: JsValue) -> Result<StreamParserJs, JsValue> {
        Ok(StreamParserJs::over(&converted(&servers)?.selection))
    }

    fn over(selection: &SelectedTools) -> StreamParserJs {
        live(PARSERS, true);
        StreamParserJs {
            inner: selection.stream_parser(),
        }
    }

    /// Feeds the whole text so far (appends and re-renders alike). The answer is
    /// `{calls, pending, diagnostics}`; treat it as read-only (quiet answers are shared).
    /// The steps return the answer itself, not a `Result`: wasm-bindgen's glue for a `Result`
    /// moves the stack pointer twice and reads three words back on every step.
    pub fn push(&mut self, text: &JsValue) -> JsValue {
        let update = crate::staged::with_reply(text, |text| self.inner.push(text));
        answer(&update)
    }

    /// Feeds a chunk appended to the text (a string; another value is read as `String(chunk)`,
    /// or as nothing if that throws).
    /// The chunk reaches the parser through `crate::staged` (`encodeInto` into a buffer kept
    /// in wasm memory), not wasm-bindgen's `&str` glue, which cost most of an append.
    pub fn append(&mut self, chunk: &JsValue) -> JsValue {
        let update = crate::staged::with_str(chunk, |chunk| self.inner.append(chunk));
        answer(&update)
    }

    /// The reply is complete: reports what can only be decided at the end.
    pub fn finish(&mut self) -> JsValue {
        answer(&self.inner.finish())
    }
}

impl Drop for StreamParserJs {
    fn drop(&mut self) {
        live(PARSERS, false);
    }
}

impl Drop for ToolSet {
    fn drop(&mut self) {
        live(TOOL_SETS, false);
    }
}

/// A step's answer; throws (as a `Result` would) if it cannot be converted, which a
/// `StreamUpdate` never fails to be.
fn answer(update: &relay_core::parse::StreamUpdate) -> JsValue {
    if update.calls.is_empty() && update.diagnostics.is_empty() {
        return QUIET.with(|q| q[usize::from(update.pending)].clone());
    }
    crate::out::stream_update(update).unwrap_or_else(|e| wasm_bindgen::throw_val(e))
}

/// A set of servers' tools held inside the core: converted from JavaScript once, then used for
/// many prompts and parses (the service worker keeps its tools this way; benchmarks measure the
/// core's work without the conversion).
#[wasm_bindgen]
pub struct ToolSet {
    set: Converted,
}

#[wasm_bindgen]
impl ToolSet {
    /// Takes `[{id, name, tools}]`.
    #[wasm_bindgen(constructor)]
    pub fn new(servers: JsValue) -> Result<ToolSet, JsValue> {
        let set = Converted::new(from_js_text(&servers, "servers")?);
        live(TOOL_SETS, true);
        Ok(ToolSet { set })
    }

    /// Number of tools in the set.
    #[wasm_bindgen(getter)]
    pub fn tools(&self) -> usize {
        self.set
            .selection
            .servers()
            .iter()
            .map(|s| s.tools.len())
            .sum()
    }

    /// Same as `promptForServers` for this set. The tool list is rendered on the first call
    /// and kept: later prompts (any options) are a concatenation.
    pub fn prompt(&self, options: JsValue) -> Result<JsValue, JsValue> {
        self.set.prompt(options)
    }

    /// Forgets the rendered tool list, so the next `prompt` renders it again (for benchmarks
    /// of a first render).
    #[wasm_bindgen(js_name = dropPromptCache)]
    pub fn drop_prompt_cache(&mut self) {
        self.set.prepared = OnceCell::new();
    }

    /// Same as `parseToolCalls` for this set.
    pub fn parse(&self, text: &JsValue) -> Result<JsValue, JsValue> {
        crate::staged::with_reply(text, |text| output_to_js(&self.set.selection.parse(text)))
    }

    /// A streaming parser for one reply against this set.
    #[wasm_bindgen(js_name = streamParser)]
    pub fn stream_parser(&self) -> StreamParserJs {
        StreamParserJs::over(&self.set.selection)
    }
}
