//! Tool-call parsing from assistant replies, in one pass or while the reply streams in.
//!
//! The input is the text of one assistant message as a content script reads it from a chat page
//! (`innerText`), or as a network stream carries it. Chat sites render code blocks with labels
//! ("json", "Copy code", "复制", "content_copy"), strip fences, swap quotes for typographic ones
//! and leave HTML entities or non-breaking spaces behind, so the parser never trusts the text to be
//! clean and never fails: it returns the calls it could read and a diagnostic for everything it
//! had to repair or could not use.
//!
//! Formats (all accepted everywhere): our default `{"tool", "server", "arguments", "id"}` in a
//! fenced ```json block (the one the prompt generator teaches); `{"tool", "args"}` (seed 000);
//! `<tool_call>{"id", "tool_name", "arguments"}</tool_call>` (seed 001); OpenAI shapes (`name` +
//! `arguments` as a JSON string or object, `function`, `tool_calls`); JSON lines
//! (`function_call_start` / `parameter` / `function_call_end`); XML
//! `<function_calls><invoke name><parameter name>` with any namespace prefix, DeepSeek's own
//! `<｜DSML｜tool_calls>` spelling of it included (`string="true"` keeps a parameter a string);
//! and a selected tool's name as the tag around a JSON object of arguments,
//! `<get-sum>{"a": 1}</get-sum>` (deepseek-pp; `tooltag`).
//!
//! Layers, as seed 000 orders them, fall out of a single left-to-right scan: a fenced block or a
//! tagged element consumes its whole text (nothing inside is seen again by another layer), then
//! balanced top-level objects in prose, then, for braces that never balance, the complete objects
//! nested inside them. Every decision depends only on the text before the point where it is made
//! (plus a bounded look-ahead the scanner waits for), which is what makes [`StreamParser`] report
//! exactly what [`parse_tool_calls`] reports on the final text while doing linear total work.
//!
//! What is deliberately not a call: an object in inline code (`` `{"tool": ...}` ``), in an HTML
//! comment (hidden from the reader), or in a code block of another language (```python); each
//! gives an `ignored_call` diagnostic. A tag or comment still open when the message ends was
//! prose (a model naming `<tool_call>`), and the text after it is read normally.
//!
//! Resolution against the selected servers' tools happens here too (unknown and ambiguous names
//! become diagnostics, not calls); validating arguments against the input schema does not (that is
//! the `schema` module's job).
//!
//! Layout: `engine` (one message's parser), `scan/` (one scanner per construct: `prose`,
//! `braces`, `fence`, `tag`, `comment`, `code`, and `candidate` for the objects they find),
//! `state` (the scan state and what failed searches proved), `frames` (the brace stack),
//! `checkpoints`, `sink` (calls and diagnostics), `json` (the repairing JSON reader),
//! `members` (a valid candidate's top level without a `Map`), `interpret` (object shapes), `xml`
//! (tags and `<invoke>`), `tooltag` (tool-name tags), `resolve` (tool names), `ident` (canonical
//! JSON and call ids), `stream` (the streaming API), `text` (byte helpers).

mod checkpoints;
mod engine;
mod frames;
mod ident;
mod interpret;
mod json;
mod members;
mod resolve;
#[cfg(test)]
mod rewind_props;
mod scan;
mod sink;
mod state;
mod stream;
mod text;
mod tooltag;
mod xml;

#[doc(hidden)]
pub mod bench_inputs;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ServerTools;

pub use ident::canonical_json;
pub use stream::{StreamParser, StreamUpdate};

/// A byte range `[start, end)` of the message text.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    /// The range `[start, end)`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// Which of the accepted shapes a call was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallFormat {
    /// Our default: `{"tool", "server"?, "arguments", "id"?}`.
    Tool,
    /// Seed 000's `{"tool", "args"}`.
    ToolArgs,
    /// Seed 001's `{"id", "tool_name", "arguments"}`, usually inside `<tool_call>`.
    ToolName,
    /// `{"name", "arguments"}`, `{"function": {...}}`, `{"tool_calls": [...]}` and relatives.
    #[serde(rename = "openai")]
    OpenAi,
    /// One object per line: `function_call_start`, `parameter`..., `function_call_end`.
    JsonLines,
    /// `<invoke name="..."><parameter name="...">...</parameter></invoke>`.
    Xml,
    /// The tool's name as the tag around its arguments: `<get-sum>{"a": 1}</get-sum>`
    /// (deepseek-pp).
    ToolTag,
}

/// One tool call found in a reply, resolved to a server of the selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name as the server lists it (a qualified `server/tool` is reduced to `tool`).
    pub tool: String,
    /// The id of the server that has the tool.
    pub server: String,
    /// Always a JSON object (an absent or empty `arguments` becomes `{}`).
    pub arguments: Value,
    /// The model's own id when it gave one, else `c_` + 16 hex digits derived from the server,
    /// the tool, the canonical arguments and the ordinal among identical calls of the message.
    pub call_id: String,
    /// Where the call is written in the message: its object, its `<invoke>` element, or its
    /// JSON lines from start to end. The calls of one `tool_calls` object share that object's span.
    pub span: Span,
    pub format: CallFormat,
}

/// What a diagnostic reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A call was read after repairing its text; `details` lists the repairs.
    Repaired,
    /// A call names a tool that none of the selected servers has; `details` holds the closest names.
    UnknownTool,
    /// A call names a tool several selected servers have and says nothing that tells them apart;
    /// `details` lists those servers.
    AmbiguousTool,
    /// A call's `server` matches no selected server that has the tool; the one server that does
    /// have it was used.
    ServerMismatch,
    /// Text that looks like a call is not JSON, even after repairs.
    InvalidJson,
    /// A call-shaped object or element is missing its tool name or has unusable arguments.
    InvalidCall,
    /// A call was still open when the message (or its block) ended.
    IncompleteCall,
    /// A second call reused a call id of this message; it was dropped.
    DuplicateCallId,
    /// A call inside an HTML comment, inline code or a non-JSON code block; it is not run.
    IgnoredCall,
    /// Too many diagnostics for one message; the rest were dropped.
    DiagnosticsTruncated,
}

/// Something the user (or the model, in the next turn) should know about the reply's calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    /// A sentence for humans.
    pub message: String,
    /// The text it is about, when there is one.
    pub span: Option<Span>,
    /// Machine-readable specifics: repairs made, suggested tool names, candidate servers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl Diagnostic {
    pub(crate) fn new(kind: DiagnosticKind, message: String, span: Option<Span>) -> Self {
        Diagnostic {
            kind,
            message,
            span,
            details: Vec::new(),
        }
    }

    pub(crate) fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// Everything found in one reply, in text order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub struct ParseOutput {
    pub calls: Vec<ToolCall>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses the calls of one complete reply against the tools of the selected servers.
///
/// Never fails and never panics: unreadable or unresolvable calls become [`Diagnostic`]s.
pub fn parse_tool_calls(text: &str, servers: &[ServerTools]) -> ParseOutput {
    let mut engine = engine::Engine::new(tooltag::ToolTagIndex::default());
    engine.run(text, true, servers);
    engine.into_output()
}

/// The selected servers' tools held for many replies: [`SelectedTools::parse`] and
/// [`SelectedTools::stream_parser`] share what a parse derives from the tools alone (the index of
/// their names as tags, built by the first reply with a tag that may name one), where
/// [`parse_tool_calls`] and [`StreamParser::new`] derive it again for each reply: with 1,000
/// tools, more than a short reply's whole parse.
#[derive(Debug, Clone)]
pub struct SelectedTools {
    servers: std::rc::Rc<[ServerTools]>,
    tags: tooltag::ToolTagIndex,
}

impl SelectedTools {
    pub fn new(servers: impl Into<std::rc::Rc<[ServerTools]>>) -> Self {
        let servers = servers.into();
        let mut tags = tooltag::ToolTagIndex::default();
        tags.use_servers(&servers);
        SelectedTools { servers, tags }
    }

    /// The servers, as given.
    pub fn servers(&self) -> &std::rc::Rc<[ServerTools]> {
        &self.servers
    }

    /// The servers back (to reuse them without a copy when nothing else holds them).
    pub fn into_servers(self) -> std::rc::Rc<[ServerTools]> {
        self.servers
    }

    /// Same as [`parse_tool_calls`] with these servers.
    pub fn parse(&self, text: &str) -> ParseOutput {
        let mut engine = engine::Engine::new(self.tags.clone());
        engine.run(text, true, &self.servers);
        engine.into_output()
    }

    /// Same as [`StreamParser::new`] with these servers.
    pub fn stream_parser(&self) -> StreamParser {
        StreamParser::with_tags(std::rc::Rc::clone(&self.servers), self.tags.clone())
    }
}

/// The parse work (bytes inspected) of one full parse: the yardstick for the streaming parser's
/// [`StreamParser::work`].
#[doc(hidden)]
pub fn full_parse_work(text: &str, servers: &[ServerTools]) -> u64 {
    let mut engine = engine::Engine::new(tooltag::ToolTagIndex::default());
    engine.run(text, true, servers);
    engine.work()
}
