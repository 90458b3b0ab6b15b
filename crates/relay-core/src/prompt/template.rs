//! Prompt templates with `${prefix:key}` placeholders (seed 002), resolved without IO.
//!
//! Resolution has two phases because the core cannot fetch: [`template_requirements`] says
//! which resources and server prompts the caller must fetch (`resources/read`, `prompts/get`),
//! then [`render_template`] fills everything in from a [`TemplateContext`]. Placeholders:
//!
//! - `${local:current_time}`, `${local:user_intent}`, `${local:model_name}`: given by the caller;
//! - `${local:tool_history}`: the thought-action-observation steps of this chat;
//! - `${mcp:resource:URI}`, `${mcp:prompt:NAME}`: fetched content (not expanded further, so
//!   fetched text cannot inject placeholders);
//! - `${mcp:tool:NAME}`: that tool's rendering; `${mcp:tool:dynamic_tool_selection}`: the tools
//!   most relevant to the user's intent ([`super::select_tools`]);
//! - `${relay:SECTION}`: a section of the built-in prompt ([`super::sections::SECTION_NAMES`]).
//!
//! An unknown placeholder stays in the text verbatim with a diagnostic; a missing value gives
//! a visible marker and a diagnostic. `$${` writes a literal `${`.

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::sections::{self, spaced_json, Parts, SECTION_NAMES};
use super::select::{select_tools, SelectionOptions};
use super::{server_display_name, tool_catalog, Diagnostic, DiagnosticCode, Group, PromptOptions};
use crate::model::{Content, GetPromptResult, ReadResourceResult, ServerTools};
use crate::schema::render;

/// The built-in template: every section of the built-in prompt, in order. Rendering it gives
/// exactly the text of [`super::prompt_for_servers`].
pub const DEFAULT_TEMPLATE: &str = "${relay:intro}\n\n${relay:call_format}\n\n${relay:waiting}\n\n${relay:results}\n\n\
${relay:finishing}\n\n${relay:strategy}\n\n${relay:site}\n\n${relay:tools}\n\n${relay:custom_instructions}";

/// Marks a line that rendered empty and is dropped with its paragraph break.
const DROPPED_LINE: &str = "\u{0}";

/// A named template text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Template {
    pub name: String,
    pub text: String,
}

impl Template {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Template {
            name: name.into(),
            text: text.into(),
        }
    }

    /// The built-in template ([`DEFAULT_TEMPLATE`]).
    pub fn builtin() -> Self {
        Template::new("default", DEFAULT_TEMPLATE)
    }

    /// A server prompt (`prompts/get`) used as a template: its messages' text, in order.
    /// Embedded text resources are included; other content is named by a marker line.
    pub fn from_prompt(name: impl Into<String>, prompt: &GetPromptResult) -> Self {
        Template::new(name, prompt_text(prompt))
    }
}

/// Something the caller must fetch before rendering a template.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Requirement {
    /// `resources/read` of this URI.
    Resource { uri: String },
    /// `prompts/get` of this prompt name.
    Prompt { name: String },
}

/// One step of the chat's thought-action-observation history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HistoryStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<String>,
    pub tool: String,
    #[serde(default)]
    pub server: String,
    #[serde(default)]
    pub arguments: Value,
    /// The result status (`ok`, `error`, ...), as in the result wrapper.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// What came back, as the caller wants it shown (it may have shortened it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<String>,
}

impl HistoryStep {
    pub fn new(tool: impl Into<String>, server: impl Into<String>, arguments: Value) -> Self {
        HistoryStep {
            thought: None,
            tool: tool.into(),
            server: server.into(),
            arguments,
            status: None,
            observation: None,
        }
    }
}

/// Everything a template may refer to. All fields default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct TemplateContext {
    /// The current time, formatted by the caller (the core has no clock).
    pub current_time: Option<String>,
    pub user_intent: Option<String>,
    pub model_name: Option<String>,
    pub tool_history: Vec<HistoryStep>,
    /// Fetched resources by URI.
    pub resources: SortedMap<String, ReadResourceResult>,
    /// Fetched server prompts by name.
    pub prompts: SortedMap<String, GetPromptResult>,
    /// The tools the chat may use (already filtered to the selected, enabled ones).
    pub servers: Vec<ServerTools>,
    pub options: PromptOptions,
    pub selection: SelectionOptions,
}

/// A rendered template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Rendered {
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// A parsed placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placeholder<'t> {
    CurrentTime,
    UserIntent,
    ModelName,
    ToolHistory,
    Resource(&'t str),
    Prompt(&'t str),
    DynamicTools,
    Tool(&'t str),
    Section(&'t str),
    Unknown,
}

impl<'t> Placeholder<'t> {
    fn parse(body: &'t str) -> Self {
        match body {
            "local:current_time" => Placeholder::CurrentTime,
            "local:user_intent" => Placeholder::UserIntent,
            "local:model_name" => Placeholder::ModelName,
            "local:tool_history" => Placeholder::ToolHistory,
            "mcp:tool:dynamic_tool_selection" => Placeholder::DynamicTools,
            _ => {
                if let Some(uri) = body.strip_prefix("mcp:resource:").filter(|s| !s.is_empty()) {
                    Placeholder::Resource(uri)
                } else if let Some(name) =
                    body.strip_prefix("mcp:prompt:").filter(|s| !s.is_empty())
                {
                    Placeholder::Prompt(name)
                } else if let Some(name) = body.strip_prefix("mcp:tool:").filter(|s| !s.is_empty())
                {
                    Placeholder::Tool(name)
                } else if let Some(name) = body
                    .strip_prefix("relay:")
                    .filter(|s| SECTION_NAMES.contains(s))
                {
                    Placeholder::Section(name)
                } else {
                    Placeholder::Unknown
                }
            }
        }
    }
}

/// A piece of template text.
enum Piece<'t> {
    Text(&'t str),
    /// `raw` is the whole `${...}` as written.
    Placeholder {
        raw: &'t str,
        placeholder: Placeholder<'t>,
    },
}

/// Splits a template into text and placeholders. `${` without a `}` on the same line is text.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        if start > 0 && rest.as_bytes()[start - 1] == b'$' {
            // `$${` is an escaped `${`.
            out.push(Piece::Text(&rest[..start - 1]));
            out.push(Piece::Text("${"));
            rest = &rest[start + 2..];
            continue;
        }
        let after = &rest[start + 2..];
        let end = after
            .find(['}', '\n'])
            .filter(|&i| after.as_bytes()[i] == b'}');
        let Some(end) = end else {
            out.push(Piece::Text(&rest[..start + 2]));
            rest = after;
            continue;
        };
        out.push(Piece::Text(&rest[..start]));
        let raw = &rest[start..start + 2 + end + 1];
        out.push(Piece::Placeholder {
            raw,
            placeholder: Placeholder::parse(&after[..end]),
        });
        rest = &after[end + 1..];
    }
    out.push(Piece::Text(rest));
    out
}

/// What must be fetched before [`render_template`] can fill `text` in, in order, without repeats.
pub fn template_requirements(text: &str) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = Vec::new();
    for piece in pieces(text) {
        let requirement = match piece {
            Piece::Placeholder {
                placeholder: Placeholder::Resource(uri),
                ..
            } => Requirement::Resource {
                uri: uri.to_owned(),
            },
            Piece::Placeholder {
                placeholder: Placeholder::Prompt(name),
                ..
            } => Requirement::Prompt {
                name: name.to_owned(),
            },
            _ => continue,
        };
        if !out.contains(&requirement) {
            out.push(requirement);
        }
    }
    out
}

/// Fills the placeholders of `text` from `context` (see the module docs).
pub fn render_template(text: &str, context: &TemplateContext) -> Rendered {
    let pieces = pieces(text);
    let mut renderer = Renderer {
        context,
        parts: None,
        diagnostics: Vec::new(),
    };
    let mut out = String::with_capacity(text.len() + 4096);
    let mut shows_tools = false;
    let mut shows_format = false;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Placeholder { raw, placeholder } => {
                shows_tools |= matches!(
                    placeholder,
                    Placeholder::DynamicTools
                        | Placeholder::Tool(_)
                        | Placeholder::Section("tools")
                );
                shows_format |= matches!(placeholder, Placeholder::Section("call_format"));
                let value = renderer.value(raw, *placeholder).replace('\u{0}', "");
                let alone = line_is_only(&pieces, i);
                if value.is_empty() && alone {
                    out.push_str(DROPPED_LINE);
                } else {
                    out.push_str(&value);
                }
            }
        }
    }
    if shows_tools && !shows_format {
        renderer.diagnostics.push(Diagnostic::new(
            DiagnosticCode::TemplateWithoutCallFormat,
            "The template lists tools but never says how to call them; add ${relay:call_format}.",
        ));
    }
    Rendered {
        text: drop_empty_lines(&out),
        diagnostics: renderer.diagnostics,
    }
}

/// Whether placeholder `i` is alone on its line (only whitespace around it).
fn line_is_only(pieces: &[Piece<'_>], i: usize) -> bool {
    let before = match i.checked_sub(1).map(|j| &pieces[j]) {
        None => true,
        Some(Piece::Text(text)) => {
            text.rsplit('\n')
                .next()
                .is_some_and(|l| l.trim().is_empty())
                && (text.contains('\n') || i == 1)
        }
        Some(Piece::Placeholder { .. }) => false,
    };
    let after = match pieces.get(i + 1) {
        None => true,
        Some(Piece::Text(text)) => text.split('\n').next().is_some_and(|l| l.trim().is_empty()),
        Some(Piece::Placeholder { .. }) => false,
    };
    before && after
}

/// Removes the lines of placeholders that rendered empty, and the paragraph break they leave.
fn drop_empty_lines(text: &str) -> String {
    if !text.contains(DROPPED_LINE) {
        return text.to_owned();
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut skip_blank = false;
    for line in lines {
        if line.trim() == DROPPED_LINE {
            // The removed paragraph's separator: drop the blank line before or after it.
            if kept.last().is_some_and(|l| l.trim().is_empty()) {
                kept.pop();
            } else {
                skip_blank = true;
            }
            continue;
        }
        if skip_blank && line.trim().is_empty() {
            skip_blank = false;
            continue;
        }
        skip_blank = false;
        kept.push(line);
    }
    kept.join("\n").replace(DROPPED_LINE, "")
}

struct Renderer<'c> {
    context: &'c TemplateContext,
    /// The built-in sections, built on first use (they render the whole tool list).
    parts: Option<Parts<'c>>,
    diagnostics: Vec<Diagnostic>,
}

impl<'c> Renderer<'c> {
    fn missing(&mut self, code: DiagnosticCode, message: String, marker: String) -> String {
        self.diagnostics.push(Diagnostic::new(code, message));
        marker
    }

    fn value(&mut self, raw: &str, placeholder: Placeholder<'_>) -> String {
        let context = self.context;
        match placeholder {
            Placeholder::CurrentTime => self.local(&context.current_time, "current time"),
            Placeholder::UserIntent => self.local(&context.user_intent, "user intent"),
            Placeholder::ModelName => self.local(&context.model_name, "model name"),
            Placeholder::ToolHistory => history(&context.tool_history),
            Placeholder::Resource(uri) => match context.resources.get(uri) {
                Some(resource) if !resource.contents.is_empty() => resource_text(resource),
                _ => self.missing(
                    DiagnosticCode::MissingResource,
                    format!("Resource {uri:?} was not fetched or is empty."),
                    format!("[resource {uri} unavailable]"),
                ),
            },
            Placeholder::Prompt(name) => match context.prompts.get(name) {
                Some(prompt) => prompt_text(prompt),
                None => self.missing(
                    DiagnosticCode::MissingPrompt,
                    format!("Prompt {name:?} was not fetched."),
                    format!("[prompt {name} unavailable]"),
                ),
            },
            Placeholder::Tool(name) => self.tool(raw, name),
            Placeholder::DynamicTools => self.dynamic_tools(),
            Placeholder::Section(name) => {
                if self.parts.is_none() {
                    let groups = groups(&context.servers);
                    let refs: Vec<&Group<'c>> = groups.iter().collect();
                    let parts = Parts::new(&refs, &context.options);
                    self.diagnostics.extend(parts.diagnostics.iter().cloned());
                    self.parts = Some(parts);
                }
                self.parts
                    .as_ref()
                    .and_then(|p| p.section(name))
                    .unwrap_or_default()
            }
            Placeholder::Unknown => {
                self.diagnostics.push(Diagnostic::new(
                    DiagnosticCode::UnknownPlaceholder,
                    format!("Unknown placeholder {raw}; left as it is."),
                ));
                raw.to_owned()
            }
        }
    }

    fn local(&mut self, value: &Option<String>, what: &str) -> String {
        match value {
            Some(value) => value.clone(),
            None => self.missing(
                DiagnosticCode::MissingValue,
                format!("No {what} was given."),
                format!("[{what} unknown]"),
            ),
        }
    }

    fn tool(&mut self, raw: &str, name: &str) -> String {
        let mut found = self.context.servers.iter().flat_map(|server| {
            server
                .tools
                .iter()
                .filter(move |t| t.name == name)
                .map(move |t| (server, t))
        });
        let Some((server, tool)) = found.next() else {
            self.diagnostics.push(Diagnostic::new(
                DiagnosticCode::UnknownTool,
                format!("{raw}: no selected server has this tool."),
            ));
            return raw.to_owned();
        };
        if found.next().is_some() {
            self.diagnostics.push(Diagnostic::new(
                DiagnosticCode::AmbiguousTool,
                format!(
                    "{raw}: several servers have this tool; the one of {:?} is shown.",
                    server_display_name(server)
                ),
            ));
        }
        format!(
            "{}\n{}",
            sections::server_heading(server_display_name(server)),
            render(tool).trim_end()
        )
    }

    fn dynamic_tools(&mut self) -> String {
        let context = self.context;
        let intent = match &context.user_intent {
            Some(intent) => intent.as_str(),
            None => {
                self.diagnostics.push(Diagnostic::new(
                    DiagnosticCode::MissingValue,
                    "No user intent was given to select tools with.",
                ));
                ""
            }
        };
        let selection = select_tools(&context.servers, intent, &context.selection);
        self.diagnostics.extend(selection.diagnostics);
        // Group the picks by server (first pick's order), tools best first within a server.
        let mut groups: Vec<Group<'_>> = Vec::new();
        for pick in &selection.picks {
            let server = &context.servers[pick.server];
            let tool = &server.tools[pick.tool];
            match groups.iter_mut().find(|g| std::ptr::eq(g.server, server)) {
                Some(group) => group.tools.push(tool),
                None => groups.push(Group {
                    server,
                    tools: vec![tool],
                }),
            }
        }
        let refs: Vec<&Group<'_>> = groups.iter().collect();
        if refs.is_empty() {
            return String::new();
        }
        let (text, diagnostics, cut) = tool_catalog(&refs);
        self.diagnostics.extend(super::text_cut(&cut));
        self.diagnostics.extend(diagnostics);
        text
    }
}

fn groups(servers: &[ServerTools]) -> Vec<Group<'_>> {
    servers
        .iter()
        .filter(|s| !s.tools.is_empty())
        .map(|server| Group {
            server,
            tools: server.tools.iter().collect(),
        })
        .collect()
}

/// The history as numbered thought / action / observation steps.
fn history(steps: &[HistoryStep]) -> String {
    if steps.is_empty() {
        return "(no tool calls yet)".to_owned();
    }
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let number = format!("{}. ", i + 1);
        let indent = " ".repeat(number.len());
        out.push_str(&number);
        if let Some(thought) = &step.thought {
            out.push_str(&format!(
                "Thought: {}\n{indent}",
                crate::schema::normalize_ws(thought)
            ));
        }
        let arguments = if step.arguments.is_null() {
            "{}".to_owned()
        } else {
            spaced_json(&step.arguments)
        };
        out.push_str(&format!(
            "Action: {} on {} {arguments}",
            step.tool,
            serde_json::to_string(&step.server).unwrap_or_default()
        ));
        if let Some(observation) = &step.observation {
            let status = step
                .status
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            out.push_str(&format!("\n{indent}Observation{status}: {observation}"));
        }
    }
    out
}

fn resource_text(resource: &ReadResourceResult) -> String {
    let mut parts = Vec::new();
    for contents in &resource.contents {
        match (&contents.text, &contents.blob) {
            (Some(text), _) => parts.push(text.clone()),
            (None, Some(blob)) => parts.push(format!(
                "[binary resource {} ({}), {} bytes: not shown]",
                contents.uri,
                contents
                    .mime_type
                    .as_deref()
                    .unwrap_or("application/octet-stream"),
                blob.len() * 3 / 4
            )),
            (None, None) => {}
        }
    }
    parts.join("\n\n")
}

fn prompt_text(prompt: &GetPromptResult) -> String {
    let mut parts = Vec::new();
    for message in &prompt.messages {
        match &message.content {
            Content::Text { text } => parts.push(text.clone()),
            Content::Resource { resource } if resource.text.is_some() => {
                parts.push(resource.text.clone().unwrap_or_default())
            }
            Content::Resource { resource } => parts.push(format!("[resource {}]", resource.uri)),
            Content::ResourceLink { uri, .. } => parts.push(format!("[resource link {uri}]")),
            Content::Image { mime_type, .. } => parts.push(format!("[image {mime_type}]")),
            Content::Audio { mime_type, .. } => parts.push(format!("[audio {mime_type}]")),
            _ => {}
        }
    }
    parts.join("\n\n")
}
