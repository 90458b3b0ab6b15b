//! The instructions a chat gets: which tools exist, how to call them, when to stop.
//!
//! The prompt is a plain request written in the user's voice (never a fake `<system>` block,
//! which some models flag as injection), built from small sections (seed 004) so templates can
//! reuse them, and deterministic so it can be logged and golden-tested. It lists every tool of
//! the selected servers with its full signature (seed 001), teaches one call format with one
//! example taken from a real tool, and states the strategy and limits (seed 003).
//!
//! Code map: [`sections`] (the parts of the prompt), [`template`] (`${...}` placeholders,
//! seed 002), [`select`] (ranking tools by relevance to the user's intent), [`tokens`] (token
//! estimate without a tokenizer).

mod bench;
mod limits;
mod prepared;
pub mod sections;
pub mod select;
pub mod template;
pub mod tokens;

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};

use crate::model::{ServerTools, Tool};
use crate::result::Nudge;
use crate::schema::{render_joined, CatalogOptions};

#[doc(hidden)]
pub use bench::bench_tools;
pub use limits::{is_mcp_name, MAX_NAME, MAX_SCHEMA_TEXT, MAX_TOOLS, MAX_TOOL_DESCRIPTION};
pub use prepared::PreparedTools;
pub use select::{select_tools, Selection, SelectionOptions};
pub use template::{
    render_template, template_requirements, HistoryStep, Rendered, Requirement, Template,
    TemplateContext, DEFAULT_TEMPLATE,
};
pub use tokens::estimate_tokens;

/// How hard the prompt pushes the model towards tools (seed 003's per-prompt strategies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Strategy {
    /// Use a tool when it helps, answer directly otherwise (seed 003's Blank/Hybrid).
    #[default]
    Auto,
    /// Prefer a tool over answering from memory whenever one can help.
    ToolFirst,
    /// Call at least one tool before answering.
    ToolForced,
    /// No tools: no prompt at all.
    Disabled,
}

impl Strategy {
    /// The nudge a tool result should end with under this strategy.
    pub fn result_nudge(self) -> Nudge {
        match self {
            Strategy::Auto | Strategy::Disabled => Nudge::None,
            Strategy::ToolFirst | Strategy::ToolForced => Nudge::Continue,
        }
    }
}

/// Options of the generated prompt. Every field has a default, so `{}` is valid JSON for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptOptions {
    pub strategy: Strategy,
    /// Most call blocks one reply may hold (seed 003's consecutive-call limit).
    pub max_calls_per_reply: u32,
    /// Most calls for one request of the user (seed 003's total-call limit).
    pub max_calls_per_turn: u32,
    /// The user's own instructions, appended last.
    pub custom_instructions: Option<String>,
    /// A note the chat site's adapter needs the model to follow (e.g. how its renderer treats
    /// code blocks). Comes from the site adapter's data.
    pub site_addendum: Option<String>,
}

impl Default for PromptOptions {
    fn default() -> Self {
        PromptOptions {
            strategy: Strategy::Auto,
            max_calls_per_reply: 5,
            max_calls_per_turn: 20,
            custom_instructions: None,
            site_addendum: None,
        }
    }
}

/// Tools and servers the user switched off: they are left out of the prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct DisabledTools {
    /// Server ids switched off as a whole.
    pub servers: Vec<String>,
    /// Per server id, the names of the tools switched off.
    pub tools: SortedMap<String, Vec<String>>,
}

impl DisabledTools {
    /// Switches a whole server off.
    pub fn with_server(mut self, server_id: impl Into<String>) -> Self {
        self.servers.push(server_id.into());
        self
    }

    /// Switches one tool of a server off.
    pub fn with_tool(mut self, server_id: impl Into<String>, tool: impl Into<String>) -> Self {
        self.tools
            .entry(server_id.into())
            .or_default()
            .push(tool.into());
        self
    }

    pub fn is_server_disabled(&self, server_id: &str) -> bool {
        self.servers.iter().any(|s| s == server_id)
    }

    pub fn is_tool_disabled(&self, server_id: &str, tool: &str) -> bool {
        self.is_server_disabled(server_id)
            || self
                .tools
                .get(server_id)
                .is_some_and(|t| t.iter().any(|n| n == tool))
    }
}

/// Why something was left out or looks wrong; shown to the user next to the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "PromptDiagnostic"))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Diagnostic {
    pub code: DiagnosticCode,
    pub message: String,
}

impl Diagnostic {
    pub fn new(code: DiagnosticCode, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "PromptDiagnosticCode"))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// No server was selected for this chat: no prompt.
    NoServersSelected,
    /// The selected servers have no (enabled) tools: no prompt.
    NoTools,
    /// The strategy is `Disabled`: no prompt.
    StrategyDisabled,
    /// A selected server id is not configured; skipped.
    UnknownServer,
    /// A selected server is switched off; skipped.
    DisabledServer,
    /// Two selected servers share a display name: calls naming it are ambiguous.
    DuplicateServerName,
    /// A tool's schema has a problem (unresolvable `$ref`, too deep).
    SchemaProblem,
    /// A template placeholder is not known; left in the text.
    UnknownPlaceholder,
    /// A template placeholder has no value in the context.
    MissingValue,
    /// A resource a template needs was not fetched or is empty.
    MissingResource,
    /// A server prompt a template needs was not fetched.
    MissingPrompt,
    /// `${mcp:tool:NAME}` names no tool of the selection.
    UnknownTool,
    /// `${mcp:tool:NAME}` matches tools of several servers; the first is used.
    AmbiguousTool,
    /// Dynamic selection left tools out (cap or token budget).
    SelectionCapped,
    /// Nothing in the intent matched any tool; the first tools are used.
    SelectionNoMatch,
    /// A template lists tools but never says how to call them.
    TemplateWithoutCallFormat,
    /// More tools than one prompt may list ([`MAX_TOOLS`]); the rest were left out.
    ToolsCapped,
    /// A tool's description or a parameter's text was too long and was cut.
    TextCut,
    /// A tool's name is longer than MCP allows; the tool was left out.
    ToolNameTooLong,
    /// A tool's name is not an MCP name (line breaks, spaces, markup...); the tool was left out.
    ToolNameInvalid,
}

/// A generated prompt, ready to insert into a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    pub text: String,
    /// Length in characters (Unicode scalar values), for the side panel.
    pub chars: usize,
    /// Estimated tokens ([`estimate_tokens`]), within about 10% of o200k.
    pub tokens_estimate: usize,
    /// Number of tools described.
    pub tools: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

/// The result of [`system_prompt`]: the prompt, if any, and what the user should know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptOutcome {
    pub prompt: Option<Prompt>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The tools of one server that go into a prompt.
#[derive(Debug, Clone)]
pub(crate) struct Group<'a> {
    pub server: &'a ServerTools,
    pub tools: Vec<&'a Tool>,
}

/// The name a model uses for a server in its calls: the user's name for it, else its id.
pub fn server_display_name(server: &ServerTools) -> &str {
    if server.name.trim().is_empty() {
        &server.id
    } else {
        &server.name
    }
}

/// The prompt for all tools of `servers`; `None` when there are no tools or the strategy is
/// `Disabled`.
pub fn prompt_for_servers(servers: &[ServerTools], options: &PromptOptions) -> Option<Prompt> {
    if options.strategy == Strategy::Disabled {
        return None;
    }
    prepare_for_servers(servers)?.prompt(options)
}

/// The tools of all `servers` rendered once for many prompts ([`PreparedTools::prompt`] equals
/// [`prompt_for_servers`] for any options); `None` when they have no tools.
pub fn prepare_for_servers(servers: &[ServerTools]) -> Option<PreparedTools> {
    let groups: Vec<Group<'_>> = servers
        .iter()
        .map(|server| Group {
            server,
            tools: server.tools.iter().collect(),
        })
        .collect();
    prepare(&groups, &mut Vec::new())
}

/// The prompt for the tools of exactly the servers `server_ids` (in that order) among `all`,
/// leaving out what `disabled` switches off. Unknown ids are skipped with a diagnostic; no
/// ids, or no tools left, give no prompt (seed 000's `getSystemPromptForServers`).
pub fn system_prompt(
    all: &[ServerTools],
    server_ids: &[String],
    disabled: &DisabledTools,
    options: &PromptOptions,
) -> PromptOutcome {
    prepare_system(all, server_ids, disabled).prompt(options)
}

/// A selection's tools rendered once ([`prepare_system`]): [`PreparedSelection::prompt`] equals
/// [`system_prompt`] for any options, and costs a concatenation. The side panel and chat pages
/// ask for prompts far more often than tools change.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedSelection {
    /// No server was asked for.
    none_selected: bool,
    /// What choosing the servers found (unknown, switched off).
    chosen: Vec<Diagnostic>,
    /// The same, plus what bounding found, when no tool is left to render.
    bounded: Vec<Diagnostic>,
    tools: Option<PreparedTools>,
}

impl PreparedSelection {
    /// The prompt with `options` (see [`system_prompt`]).
    pub fn prompt(&self, options: &PromptOptions) -> PromptOutcome {
        if self.none_selected || options.strategy == Strategy::Disabled {
            let mut diagnostics = self.chosen.clone();
            if !self.none_selected {
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::StrategyDisabled,
                    "Tools are disabled for this chat.",
                ));
            }
            return PromptOutcome {
                prompt: None,
                diagnostics,
            };
        }
        let prompt = self.tools.as_ref().and_then(|p| p.prompt(options));
        let diagnostics = match &prompt {
            Some(p) => p.diagnostics.clone(),
            None => self.bounded.clone(),
        };
        PromptOutcome {
            prompt,
            diagnostics,
        }
    }
}

/// Chooses and renders the tools of `server_ids` among `all` (see [`system_prompt`]), for any
/// number of prompts.
pub fn prepare_system(
    all: &[ServerTools],
    server_ids: &[String],
    disabled: &DisabledTools,
) -> PreparedSelection {
    fn on<'a>(server: &'a ServerTools, disabled: &DisabledTools) -> Vec<&'a Tool> {
        let on = |t: &&Tool| !disabled.is_tool_disabled(&server.id, &t.name);
        server.tools.iter().filter(on).collect()
    }
    let off = |id: &str| disabled.is_server_disabled(id);
    prepare_chosen(all, server_ids, off, |server| on(server, disabled))
}

/// [`prepare_system`] with the tools of each server given by `tools` (and servers switched off
/// by `off`), so that a caller that keeps its tools elsewhere renders them without copying:
/// `all` then names the servers and may leave their `tools` empty.
pub fn prepare_chosen<'a>(
    all: &'a [ServerTools],
    server_ids: &[String],
    off: impl Fn(&str) -> bool,
    tools: impl Fn(&'a ServerTools) -> Vec<&'a Tool>,
) -> PreparedSelection {
    let mut diagnostics = Vec::new();
    if server_ids.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::NoServersSelected,
            "No server is selected for this chat.",
        ));
        return PreparedSelection {
            none_selected: true,
            chosen: diagnostics,
            bounded: Vec::new(),
            tools: None,
        };
    }
    let mut groups: Vec<Group<'_>> = Vec::new();
    for id in server_ids {
        if groups.iter().any(|g| &g.server.id == id) {
            continue;
        }
        let Some(server) = all.iter().find(|s| &s.id == id) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::UnknownServer,
                format!("Server {id:?} is not configured; skipped."),
            ));
            continue;
        };
        if off(id) {
            let name = server_display_name(server);
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::DisabledServer,
                format!("Server {name:?} is switched off; skipped."),
            ));
            continue;
        }
        groups.push(Group {
            server,
            tools: tools(server),
        });
    }
    let chosen = diagnostics.clone();
    let tools = prepare(&groups, &mut diagnostics);
    PreparedSelection {
        none_selected: false,
        chosen,
        bounded: diagnostics,
        tools,
    }
}

/// Bounds and renders the tools of `groups`; `None` (with a diagnostic) when none is left.
/// The prepared tools carry `diagnostics` plus what rendering found.
fn prepare(groups: &[Group<'_>], diagnostics: &mut Vec<Diagnostic>) -> Option<PreparedTools> {
    let (owned, picks, cut) = bound_tools(groups, diagnostics);
    let bounded: Vec<Group<'_>> = groups
        .iter()
        .zip(picks)
        .map(|(g, picks)| Group {
            server: g.server,
            tools: g
                .tools
                .iter()
                .zip(picks)
                .filter_map(|(t, pick)| match pick {
                    Pick::Keep => Some(*t),
                    Pick::Own(i) => owned.get(i),
                    Pick::Skip => None,
                })
                .collect(),
        })
        .collect();
    let groups: Vec<&Group<'_>> = bounded.iter().filter(|g| !g.tools.is_empty()).collect();
    let tool_count: usize = groups.iter().map(|g| g.tools.len()).sum();
    if tool_count == 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::NoTools,
            "The selected servers have no tools.",
        ));
        return None;
    }
    for (i, group) in groups.iter().enumerate() {
        let name = server_display_name(group.server);
        if groups[..i]
            .iter()
            .any(|g| server_display_name(g.server) == name)
        {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::DuplicateServerName,
                format!("Two selected servers are named {name:?}; calls cannot tell them apart."),
            ));
        }
    }
    Some(PreparedTools::from_groups(
        &groups,
        diagnostics.clone(),
        cut,
    ))
}

/// What the prompt does with one selected tool.
enum Pick {
    /// Listed as the server sent it.
    Keep,
    /// Listed as the trimmed copy at this index.
    Own(usize),
    /// Not listed.
    Skip,
}

/// Applies the bounds of [`limits`] to every selected tool: trimmed copies for tools with
/// overlong texts, nothing for tools past the cap or with impossible names; one diagnostic per
/// kind of cut.
fn bound_tools(
    groups: &[Group<'_>],
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Tool>, Vec<Vec<Pick>>, Vec<String>) {
    let mut owned = Vec::new();
    let (mut listed, mut over_cap, mut cut) = (0usize, 0usize, Vec::new());
    let mut long_names = 0usize;
    let mut invalid_names: Vec<String> = Vec::new();
    let picks = groups
        .iter()
        .map(|g| {
            g.tools
                .iter()
                .map(|t| {
                    if listed == MAX_TOOLS {
                        over_cap += 1;
                        return Pick::Skip;
                    }
                    match limits::bounded(t) {
                        Err(limits::Unlisted::LongName) => {
                            long_names += 1;
                            Pick::Skip
                        }
                        Err(limits::Unlisted::InvalidName) => {
                            invalid_names.push(t.name.clone());
                            Pick::Skip
                        }
                        Ok(std::borrow::Cow::Borrowed(_)) => {
                            listed += 1;
                            Pick::Keep
                        }
                        Ok(std::borrow::Cow::Owned(copy)) => {
                            listed += 1;
                            cut.push(copy.name.clone());
                            owned.push(copy);
                            Pick::Own(owned.len() - 1)
                        }
                    }
                })
                .collect()
        })
        .collect();
    if over_cap > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::ToolsCapped,
            format!(
                "{over_cap} tools were left out: a prompt lists at most {MAX_TOOLS} tools. Pick fewer servers, or switch tools off."
            ),
        ));
    }
    if long_names > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::ToolNameTooLong,
            format!("{long_names} tools were left out: their names are longer than {MAX_NAME} characters."),
        ));
    }
    if !invalid_names.is_empty() {
        // Quoted with escapes: a name's line breaks and quotes stay visible, and inert.
        let shown: Vec<String> = invalid_names
            .iter()
            .take(3)
            .map(|n| format!("{:?}", n.chars().take(40).collect::<String>()))
            .collect();
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::ToolNameInvalid,
            format!(
                "{} tools were left out: their names are not MCP tool names (ASCII letters, digits, `_`, `-` and `.` only): {}.",
                invalid_names.len(),
                shown.join(", ")
            ),
        ));
    }
    (owned, picks, cut)
}

/// The note for tools whose texts were cut (`names`: in order, possibly repeated), naming the
/// first five.
pub(crate) fn text_cut(names: &[String]) -> Option<Diagnostic> {
    let mut shown: Vec<&str> = Vec::with_capacity(5);
    for name in names {
        if shown.len() == 5 {
            break;
        }
        if !shown.contains(&name.as_str()) {
            shown.push(name);
        }
    }
    (!shown.is_empty()).then(|| {
        Diagnostic::new(
            DiagnosticCode::TextCut,
            format!(
                "Overlong descriptions were cut (at {MAX_TOOL_DESCRIPTION} characters for a tool, {MAX_SCHEMA_TEXT} for a parameter) in: {}.",
                shown.join(", ")
            ),
        )
    })
}

/// Renders the tool list of `groups` (shared types, shared descriptions, then each server's
/// tools); also returns schema problems as diagnostics, and the names of the tools whose
/// parameter texts were cut.
pub(crate) fn tool_catalog(groups: &[&Group<'_>]) -> (String, Vec<Diagnostic>, Vec<String>) {
    let tools: Vec<&Tool> = groups
        .iter()
        .flat_map(|g| g.tools.iter().copied())
        .collect();
    let catalog = render_joined(&tools, &CatalogOptions::default());
    let mut diagnostics = Vec::new();
    for problem in &catalog.problems {
        let name = tools
            .get(problem.tool)
            .map(|t| t.name.as_str())
            .unwrap_or("?");
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::SchemaProblem,
            format!("Tool {name:?}: {}", problem.message),
        ));
    }
    let cut = catalog
        .cut
        .iter()
        .filter_map(|&i| tools.get(i).map(|t| t.name.clone()))
        .collect();
    let headings: usize = groups
        .iter()
        .map(|g| server_display_name(g.server).len() + 16)
        .sum();
    let mut out = String::with_capacity(
        sections::NOTATION.len()
            + catalog.types.len()
            + catalog.shared_docs.len()
            + catalog.tools.len()
            + headings
            + 128,
    );
    out.push_str(sections::NOTATION);
    if !catalog.types.is_empty() {
        out.push('\n');
        out.push_str(sections::TYPES_INTRO);
        out.push('\n');
        out.push_str(&catalog.types);
    }
    if !catalog.shared_docs.is_empty() {
        out.push('\n');
        out.push_str(sections::SHARED_DOCS_INTRO);
        out.push('\n');
        out.push_str(&catalog.shared_docs);
    }
    let (mut start, mut listed) = (0, 0);
    for group in groups {
        out.push('\n');
        out.push_str(&sections::server_heading(server_display_name(group.server)));
        out.push('\n');
        // No bullet before a signature: `- ` is a token per tool and the signature's
        // `name(` already marks the line.
        listed += group.tools.len();
        let end = catalog
            .tool_ends
            .get(listed.wrapping_sub(1))
            .copied()
            .unwrap_or(start)
            .max(start);
        out.push_str(&catalog.tools[start..end]);
        start = end;
    }
    out.truncate(out.trim_end().len());
    (out, diagnostics, cut)
}
