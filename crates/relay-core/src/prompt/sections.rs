//! The sections of the prompt, each a small function (seed 004), in the user's voice.
//!
//! Every section is also a template placeholder (`${relay:NAME}`), so a custom template can
//! keep the parts it wants; [`super::DEFAULT_TEMPLATE`] lists them all and renders to exactly
//! the built-in prompt.

use serde_json::Value;

use super::{server_display_name, tool_catalog, Diagnostic, Group, PromptOptions, Strategy};
use crate::model::{ServerTools, Tool};
use crate::result::{
    STATUS_DENIED, STATUS_ERROR, STATUS_FAILED, STATUS_INVALID, STATUS_OK, STATUS_SKIPPED,
    STATUS_UNKNOWN,
};
use crate::schema::{example_arguments, example_cost};

/// The names of the sections, in prompt order; `${relay:NAME}` in a template.
pub const SECTION_NAMES: &[&str] = &[
    "intro",
    "call_format",
    "waiting",
    "results",
    "finishing",
    "strategy",
    "site",
    "tools",
    "custom_instructions",
];

pub(crate) const NOTATION: &str =
    "Tools by server. TypeScript-like; `= v` default, `1..9` inclusive range.\n";
pub(crate) const TYPES_INTRO: &str = "Types:";
pub(crate) const SHARED_DOCS_INTRO: &str = "Shared parameters (unless a tool describes them):";

/// Everything the sections are made from, computed once.
pub(crate) struct Parts<'a> {
    pub options: &'a PromptOptions,
    /// `(tool, server display name, arguments)` of the example call.
    pub example: Option<(&'a str, &'a str, Value)>,
    pub tools: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Tools whose parameter texts were cut while rendering.
    pub cut: Vec<String>,
}

impl<'a> Parts<'a> {
    pub fn new(groups: &[&Group<'a>], options: &'a PromptOptions) -> Self {
        let (tools, diagnostics, cut) = tool_catalog(groups);
        Parts {
            options,
            example: example_call(groups),
            tools,
            diagnostics,
            cut,
        }
    }

    /// The text of one section by name; `None` for an unknown name, `Some("")` for a section
    /// with nothing to say (no custom instructions, no site note).
    pub fn section(&self, name: &str) -> Option<String> {
        Some(match name {
            "intro" => intro(),
            "call_format" => call_format(self.example.as_ref()),
            "waiting" => waiting(),
            "results" => results(),
            "finishing" => finishing(),
            "strategy" => strategy(self.options),
            "site" => site(self.options),
            "tools" => self.tools.clone(),
            "custom_instructions" => custom_instructions(self.options),
            _ => return None,
        })
    }
}

/// The user asks for help and explains who runs the tools: no system-prompt costume.
pub fn intro() -> String {
    "Please help me, using tools where useful. You can't run tools, but I can: \
     write a call as below and I'll send the result."
        .to_owned()
}

/// The one call format the parser expects by default, with one example from a real tool.
pub fn call_format(example: Option<&(&str, &str, Value)>) -> String {
    let example = match example {
        // Compact JSON: the spaces after `:` and `,` cost a token each and teach nothing.
        Some((tool, server, arguments)) => {
            serde_json::json!({"tool": tool, "server": server, "arguments": arguments}).to_string()
        }
        None => r#"{"tool":"TOOL","server":"SERVER","arguments":{}}"#.to_owned(),
    };
    format!(
        "To call a tool, write a ```json block like this:\n\
         ```json\n{example}\n```\n\
         Use exact tool and server names from the list below; one block per call."
    )
}

/// Stop after the call: the result only exists once the user sends it.
pub fn waiting() -> String {
    "After your call blocks, stop: my next message brings the results. Never write results yourself."
        .to_owned()
}

/// What results look like (the wrapper [`crate::result`] produces).
pub fn results() -> String {
    format!(
        "Results come in ```tool-result blocks headed by call, tool and status: \
         {STATUS_OK}, {STATUS_ERROR} (tool failed), {STATUS_INVALID} (bad call, not run), \
         {STATUS_FAILED} (not sent), {STATUS_DENIED} (by me), {STATUS_SKIPPED}, or \
         {STATUS_UNKNOWN} (may have run). Images and files come as named attachments."
    )
}

/// How to finish, and the lesson of seed 004: no claimed result without a received one.
pub fn finishing() -> String {
    "When done, answer normally without a call block. Never claim a result I did not send."
        .to_owned()
}

/// The strategy and the call limits.
pub fn strategy(options: &PromptOptions) -> String {
    let push = match options.strategy {
        Strategy::ToolFirst => {
            "Prefer tools: when one can help, call it before answering from memory."
        }
        Strategy::ToolForced => "Call at least one tool before you give your answer.",
        Strategy::Auto | Strategy::Disabled => "Call a tool when it helps, else just answer.",
    };
    format!(
        "{push} At most {} calls per reply, {} per request of mine; then answer with what you have.",
        options.max_calls_per_reply, options.max_calls_per_turn
    )
}

/// What the chat site's adapter needs the model to do.
pub fn site(options: &PromptOptions) -> String {
    options
        .site_addendum
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned()
}

/// The user's own instructions (seed 004's USER'S CUSTOM INSTRUCTIONS).
pub fn custom_instructions(options: &PromptOptions) -> String {
    match options.custom_instructions.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => format!("My additional instructions:\n{text}"),
        _ => String::new(),
    }
}

/// The heading of one server's tool group.
pub(crate) fn server_heading(name: &str) -> String {
    format!(
        "Server {}:",
        serde_json::to_string(name).unwrap_or_default()
    )
}

/// The example call: among the selection's tools that say they only read, the one that makes
/// the clearest example (few required scalar parameters), the first such one in order. Never
/// a tool that may write: a model (or a user pasting the instructions) may copy the example as
/// it is, and it must not change anything if it runs. Without such a tool, the example is a
/// made-up `TOOL` that names no real tool, so copying it runs nothing.
fn example_call<'a>(groups: &[&Group<'a>]) -> Option<(&'a str, &'a str, Value)> {
    let mut best: Option<(usize, &'a Tool, &'a ServerTools)> = None;
    'search: for group in groups {
        for tool in group.tools.iter().filter(|t| only_reads(t)) {
            let cost = example_cost(tool);
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, tool, group.server));
                if cost == 0 {
                    break 'search;
                }
            }
        }
    }
    let (_, tool, server) = best?;
    Some((
        tool.name.as_str(),
        server_display_name(server),
        example_arguments(tool),
    ))
}

/// Whether a tool says it only reads: `readOnlyHint: true` and not `destructiveHint: true`.
fn only_reads(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .is_some_and(|a| a.read_only_hint == Some(true) && a.destructive_hint != Some(true))
}

/// JSON on one line with a space after `:` and `,`, the way people write it.
pub(crate) fn spaced_json(value: &Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                writer.write_all(b", ")
            }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                writer.write_all(b", ")
            }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
        ) -> std::io::Result<()> {
            writer.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Spaced);
    if serde::Serialize::serialize(value, &mut serializer).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}
