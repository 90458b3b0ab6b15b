//! The MCP handler: the demo's tools, prompts and resources.
//!
//! Tool failures the caller can fix (division by zero, an unknown timezone, a bound exceeded,
//! arguments that do not match the schema) come back as results with `isError: true`, so the
//! model reads the message and corrects itself; protocol errors are kept for requests the
//! server cannot route (unknown tool, prompt or resource).

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use chrono::Utc;
use rmcp::handler::server::router::{prompt::PromptRouter, tool::ToolRouter};
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptResult, Implementation, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ProgressNotificationParam, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router, ErrorData, RoleServer,
    ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::board;
use crate::clock::{self, TIME_ZONE_PATTERN};
use crate::corpus::{self, Index, DOCS_URI_PREFIX};
use crate::image::{self, Color};
use crate::notes::{NewNote, Note, NotesStore, MAX_BODY_CHARS, MAX_TITLE_CHARS};
use crate::prompts::{self, Language};

/// URI of the notes resource; `demo://notes/{id}` reads one note.
pub const NOTES_URI: &str = "demo://notes";
const NOTES_URI_PREFIX: &str = "demo://notes/";
const MARKDOWN: &str = "text/markdown";
const JSON: &str = "application/json";

/// Bounds advertised in the schemas and enforced in the handlers: serde does not check them.
const ECHO_MAX_CHARS: usize = 10_000;
const LIST_DEFAULT: usize = 20;
const LIST_MAX: usize = 100;
const SEARCH_MAX_RESULTS: usize = 20;
const TOP_K_DEFAULT: usize = 3;
const TOP_K_MAX: usize = 10;
const STEPS_DEFAULT: u32 = 5;
const STEPS_MAX: u32 = 20;
const DELAY_DEFAULT_MS: u64 = 250;
const DELAY_MAX_MS: u64 = 2_000;
const IMAGE_DEFAULT_SIZE: u32 = 16;

/// State shared by every session (and every request in stateless mode).
#[derive(Debug, Default)]
pub struct DemoState {
    notes: NotesStore,
}

impl DemoState {
    /// Empty state.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The demo server's MCP handler. Cheap to clone: rmcp asks for one per session, or one per
/// request when stateless, and every clone shares the same [`DemoState`].
#[derive(Clone)]
pub struct DemoServer {
    state: Arc<DemoState>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl std::fmt::Debug for DemoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoServer")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

fn tool_error(message: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}

fn to_json(what: &str, value: &impl Serialize) -> Result<String, ErrorData> {
    serde_json::to_string(value)
        .map_err(|e| ErrorData::internal_error(format!("serializing {what}: {e}"), None))
}

fn json_text(value: &impl Serialize) -> Result<CallToolResult, ErrorData> {
    let text = to_json("the result", value)?;
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

/// Checks a value against the bounds its schema advertises; the error is the message for the
/// model.
fn in_range<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    min: T,
    max: T,
) -> Result<T, String> {
    if value < min || value > max {
        return Err(format!(
            "{name} must be between {min} and {max}, got {value}"
        ));
    }
    Ok(value)
}

fn number_result(value: f64) -> CallToolResult {
    if value.is_finite() {
        CallToolResult::success(vec![ContentBlock::text(value.to_string())])
    } else {
        tool_error("the result is too large to represent as a finite number")
    }
}

/// Operands of `add` and `multiply`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TwoNumbers {
    /// First operand.
    pub a: f64,
    /// Second operand.
    pub b: f64,
}

/// Operands of `divide`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DivideArgs {
    /// The number to divide.
    pub dividend: f64,
    /// The number to divide by; must not be zero.
    pub divisor: f64,
}

/// Argument of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Text to send back unchanged.
    #[schemars(length(max = ECHO_MAX_CHARS))]
    pub message: String,
}

fn default_time_zone() -> String {
    "UTC".into()
}

/// Argument of `current_time`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CurrentTimeArgs {
    /// "UTC" or a fixed offset from UTC written ±HH:MM, e.g. "+08:00" or "-05:30"; named zones such as "Asia/Shanghai" are not supported.
    #[serde(default = "default_time_zone")]
    #[schemars(regex(pattern = TIME_ZONE_PATTERN))]
    pub timezone: String,
}

/// A note to add.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotesAddArgs {
    /// Short title of the note.
    #[schemars(length(min = 1, max = MAX_TITLE_CHARS))]
    pub title: String,
    /// The note's text.
    #[schemars(length(max = MAX_BODY_CHARS))]
    pub body: String,
    /// Labels to filter by later, e.g. ["work", "ideas"]; stored lower-case, no spaces, at most 10.
    #[serde(default)]
    #[schemars(length(max = crate::notes::MAX_TAGS))]
    pub tags: Vec<String>,
}

fn default_list_limit() -> usize {
    LIST_DEFAULT
}

/// Filters of `notes_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotesListArgs {
    /// Only notes carrying this tag (case-insensitive). Omit to list every note.
    // Advertised as a plain optional string: `null` is accepted but is not worth a union type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub tag: Option<String>,
    /// Most notes to return, newest first.
    #[serde(default = "default_list_limit")]
    #[schemars(range(min = 1, max = LIST_MAX))]
    pub limit: usize,
}

/// Query of `notes_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotesSearchArgs {
    /// Words that must all occur in a note's title, body or tags (case-insensitive substring match, so Chinese works without spaces).
    #[schemars(length(min = 1))]
    pub query: String,
}

/// Which note to delete.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotesDeleteArgs {
    /// Id of the note, as returned by notes_add or notes_list.
    pub id: u64,
}

fn default_top_k() -> usize {
    TOP_K_DEFAULT
}

/// Query of `retrieve`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RetrieveArgs {
    /// What to look for, in English or Chinese, e.g. "MCP session header" or "上下文工程".
    #[schemars(length(min = 1))]
    pub query: String,
    /// How many documents to return at most.
    #[serde(default = "default_top_k")]
    #[schemars(range(min = 1, max = TOP_K_MAX))]
    pub top_k: usize,
}

/// One ranked document.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RetrievedDocument {
    /// Document id.
    pub id: String,
    /// `demo://docs/{id}`; read it with resources/read.
    pub uri: String,
    /// Title of the document.
    pub title: String,
    /// Language tag, "en" or "zh".
    pub lang: String,
    /// BM25 relevance; higher is better, only comparable within one query.
    pub score: f64,
    /// Full Markdown text of the document.
    pub content: String,
}

/// Result of `retrieve`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RetrieveOutput {
    /// The query as received.
    pub query: String,
    /// Documents in the index.
    pub total_documents: usize,
    /// Best first; empty when nothing matched.
    pub documents: Vec<RetrievedDocument>,
}

fn default_steps() -> u32 {
    STEPS_DEFAULT
}

fn default_delay_ms() -> u64 {
    DELAY_DEFAULT_MS
}

/// Parameters of `slow_count`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlowCountArgs {
    /// How many steps to count.
    #[serde(default = "default_steps")]
    #[schemars(range(min = 1, max = STEPS_MAX))]
    pub steps: u32,
    /// Pause before each step, in milliseconds.
    #[serde(default = "default_delay_ms")]
    #[schemars(range(max = DELAY_MAX_MS))]
    pub delay_ms: u64,
}

fn default_image_size() -> u32 {
    IMAGE_DEFAULT_SIZE
}

/// Parameters of `generate_image`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GenerateImageArgs {
    /// Colour of the gradient.
    #[serde(default)]
    pub color: Color,
    /// Width and height in pixels.
    #[serde(default = "default_image_size")]
    #[schemars(range(min = image::MIN_SIZE, max = image::MAX_SIZE))]
    pub size: u32,
}

/// Arguments of the `simple_chat` prompt.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SimpleChatArgs {
    /// What the user wants to know or do.
    pub user_intent: String,
    /// "en" (default) or "zh".
    #[serde(default)]
    pub language: Option<String>,
}

/// Arguments of the `context_engineering` prompt.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContextEngineeringArgs {
    /// "en" (default) or "zh".
    #[serde(default)]
    pub language: Option<String>,
}

#[tool_router]
impl DemoServer {
    /// A handler over `state`. Builds the tool and prompt tables; clone the result rather than
    /// calling this per request.
    pub fn new(state: Arc<DemoState>) -> Self {
        Self {
            state,
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    #[tool(
        description = "Add two numbers and return the sum.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn add(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> CallToolResult {
        number_result(a + b)
    }

    #[tool(
        description = "Multiply two numbers and return the product.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn multiply(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> CallToolResult {
        number_result(a * b)
    }

    #[tool(
        description = "Divide dividend by divisor and return the quotient. Dividing by zero is \
                       reported as a tool error.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn divide(&self, Parameters(args): Parameters<DivideArgs>) -> CallToolResult {
        if args.divisor == 0.0 {
            return tool_error("cannot divide by zero: divisor must be a non-zero number");
        }
        number_result(args.dividend / args.divisor)
    }

    #[tool(
        description = "Return the given message unchanged. Useful to check that tool calls work.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn echo(&self, Parameters(EchoArgs { message }): Parameters<EchoArgs>) -> CallToolResult {
        let chars = message.chars().count();
        if chars > ECHO_MAX_CHARS {
            return tool_error(format!(
                "message is {chars} characters long; the limit is {ECHO_MAX_CHARS}"
            ));
        }
        CallToolResult::success(vec![ContentBlock::text(message)])
    }

    #[tool(
        description = "Current date and time as ISO 8601 (RFC 3339, whole seconds), in UTC or a \
                       fixed offset such as +08:00.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn current_time(&self, Parameters(args): Parameters<CurrentTimeArgs>) -> CallToolResult {
        match clock::parse_time_zone(&args.timezone) {
            Ok(offset) => CallToolResult::success(vec![ContentBlock::text(clock::format_in(
                Utc::now(),
                offset,
            ))]),
            Err(e) => tool_error(e),
        }
    }

    #[tool(
        description = "Save a note in the server's in-memory notebook (lost when the server \
                       stops). Returns the stored note with its id.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn notes_add(
        &self,
        Parameters(args): Parameters<NotesAddArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let new = NewNote {
            title: args.title,
            body: args.body,
            tags: args.tags,
        };
        match self.state.notes.add(new, clock::format_utc(Utc::now())) {
            Ok(note) => json_text(&note),
            Err(e) => Ok(tool_error(e)),
        }
    }

    #[tool(
        description = "List notes, newest first, optionally only those with a given tag.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn notes_list(
        &self,
        Parameters(args): Parameters<NotesListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = match in_range("limit", args.limit, 1, LIST_MAX) {
            Ok(limit) => limit,
            Err(e) => return Ok(tool_error(e)),
        };
        let notes = self.state.notes.list(args.tag.as_deref(), limit);
        json_text(&NoteList::new(notes))
    }

    #[tool(
        description = "Show notes as a board of cards, newest first, optionally only those \
                       with a given tag. Hosts that render MCP Apps show the board to the user, \
                       who can add notes from it; the result's text lists the notes.",
        annotations(read_only_hint = true, open_world_hint = false),
        meta = board::tool_meta()
    )]
    fn notes_board(
        &self,
        Parameters(args): Parameters<NotesListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = match in_range("limit", args.limit, 1, LIST_MAX) {
            Ok(limit) => limit,
            Err(e) => return Ok(tool_error(e)),
        };
        let notes = self.state.notes.list(args.tag.as_deref(), limit);
        let text = board::summary(&notes);
        let structured = serde_json::to_value(NoteList::new(notes))
            .map_err(|e| ErrorData::internal_error(format!("serializing the board: {e}"), None))?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        Ok(result)
    }

    #[tool(
        description = "Find notes containing every word of the query in their title, body or \
                       tags; best matches first, at most 20.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn notes_search(
        &self,
        Parameters(args): Parameters<NotesSearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if args.query.trim().is_empty() {
            return Ok(tool_error("query must contain at least one word"));
        }
        let notes = self.state.notes.search(&args.query, SEARCH_MAX_RESULTS);
        json_text(&NoteList::new(notes))
    }

    #[tool(
        description = "Delete a note by id. This cannot be undone.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn notes_delete(
        &self,
        Parameters(args): Parameters<NotesDeleteArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        match self.state.notes.delete(args.id) {
            Ok(note) => json_text(&note),
            Err(e) => Ok(tool_error(e)),
        }
    }

    #[tool(
        description = "Search the bundled documents (about MCP, its transports, MCP Relay, tool \
                       calls, approval policy and context engineering; English and Chinese) and \
                       return the most relevant ones, ranked by BM25.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn retrieve(
        &self,
        Parameters(args): Parameters<RetrieveArgs>,
    ) -> Result<Json<RetrieveOutput>, String> {
        let top_k = in_range("top_k", args.top_k, 1, TOP_K_MAX)?;
        if !Index::has_terms(&args.query) {
            return Err("query must contain at least one word or Chinese character".into());
        }
        let index = corpus::index();
        let documents = index
            .search(&args.query, top_k)
            .into_iter()
            .map(|hit| RetrievedDocument {
                id: hit.doc.id.to_owned(),
                uri: hit.doc.uri(),
                title: hit.doc.title().to_owned(),
                lang: hit.doc.lang.to_owned(),
                // Three decimals are plenty to compare and keep the JSON readable.
                score: (hit.score * 1000.0).round() / 1000.0,
                content: hit.doc.text.to_owned(),
            })
            .collect();
        Ok(Json(RetrieveOutput {
            query: args.query,
            total_documents: index.document_count(),
            documents,
        }))
    }

    #[tool(
        description = "Count from 1 to steps, pausing delay_ms before each step. Sends \
                       notifications/progress after each step when the request has a \
                       progressToken. Stops early if the request is cancelled.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn slow_count(
        &self,
        Parameters(args): Parameters<SlowCountArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let steps = in_range("steps", args.steps, 1, STEPS_MAX)?;
        let delay = Duration::from_millis(in_range("delay_ms", args.delay_ms, 0, DELAY_MAX_MS)?);
        let token = context.meta.get_progress_token();
        let started = Instant::now();
        for step in 1..=steps {
            tokio::select! {
                () = context.ct.cancelled() => {
                    // Said on stderr: the tests of the client's Cancel look for it.
                    tracing::info!(done = step - 1, steps, "slow_count cancelled by the client");
                    return Err(format!("cancelled after {} of {steps} steps", step - 1));
                }
                () = tokio::time::sleep(delay) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(steps))
                    .with_message(format!("step {step} of {steps}"));
                if let Err(e) = context.peer.notify_progress(progress).await {
                    // The client went away; the count itself is still well defined.
                    tracing::debug!(error = %e, "progress notification not delivered");
                }
            }
        }
        let reported = if token.is_some() {
            "with progress notifications"
        } else {
            "without progress notifications (no progressToken in the request)"
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "counted to {steps} in {} ms, {reported}",
            started.elapsed().as_millis()
        ))]))
    }

    #[tool(
        description = "Generate a small PNG image: a diagonal gradient in the chosen colour. \
                       Returns an image content block.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn generate_image(&self, Parameters(args): Parameters<GenerateImageArgs>) -> CallToolResult {
        match image::gradient_png(args.color, args.size) {
            Ok(png) => CallToolResult::success(vec![
                ContentBlock::text(format!(
                    "A {size}×{size} {color} gradient PNG ({bytes} bytes).",
                    size = args.size,
                    color = args.color.name(),
                    bytes = png.len()
                )),
                ContentBlock::image(
                    base64::engine::general_purpose::STANDARD.encode(&png),
                    "image/png",
                ),
            ]),
            Err(e) => tool_error(e),
        }
    }

    #[tool(
        description = "Return this server's user guide as an embedded resource \
                       (demo://docs/guide), with a resource_link to the notes (demo://notes).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn read_guide(&self) -> CallToolResult {
        let guide = corpus::guide();
        CallToolResult::success(vec![
            ContentBlock::text("The user guide follows; the notes are linked below."),
            ContentBlock::resource(
                ResourceContents::text(guide.text, guide.uri()).with_mime_type(MARKDOWN),
            ),
            ContentBlock::resource_link(notes_resource()),
        ])
    }
}

/// The JSON shape of note lists, in tool results and in the `demo://notes` resource.
#[derive(Debug, Serialize)]
struct NoteList {
    count: usize,
    notes: Vec<Note>,
}

impl NoteList {
    fn new(notes: Vec<Note>) -> Self {
        Self {
            count: notes.len(),
            notes,
        }
    }
}

fn guide_resource() -> Resource {
    let guide = corpus::guide();
    Resource::new(guide.uri(), "guide")
        .with_title(guide.title())
        .with_description("How to use this demo server: its tools, prompts and resources.")
        .with_mime_type(MARKDOWN)
        .with_size(guide.text.len() as u64)
}

fn notes_resource() -> Resource {
    Resource::new(NOTES_URI, "notes")
        .with_title("Notes")
        .with_description("Every note in the in-memory notebook, oldest first, as JSON.")
        .with_mime_type(JSON)
}

#[prompt_router]
impl DemoServer {
    #[prompt(
        name = "simple_chat",
        description = "A friendly assistant prompt for one question. ${local:current_time} and \
                       ${local:model_name} are left in the text for the client to fill in."
    )]
    async fn simple_chat(
        &self,
        Parameters(args): Parameters<SimpleChatArgs>,
    ) -> Result<GetPromptResult, ErrorData> {
        let language = Language::parse(args.language.as_deref())
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        if args.user_intent.trim().is_empty() {
            return Err(ErrorData::invalid_params(
                "user_intent must not be empty",
                None,
            ));
        }
        let text = prompts::simple_chat(language, &args.user_intent);
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Answer one question briefly, using a tool when it helps."),
        )
    }

    #[prompt(
        name = "context_engineering",
        description = "A thought-action-observation template whose ${local:...}, \
                       ${mcp:resource:...} and ${mcp:tool:...} placeholders the client resolves \
                       before sending it to the model."
    )]
    async fn context_engineering(
        &self,
        Parameters(args): Parameters<ContextEngineeringArgs>,
    ) -> Result<GetPromptResult, ErrorData> {
        let language = Language::parse(args.language.as_deref())
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let text = prompts::context_engineering(language);
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).with_description(
                format!(
                    "Context-engineering template; resolve its placeholders before use: {}.",
                    prompts::CONTEXT_PLACEHOLDERS.join(", ")
                ),
            ),
        )
    }
}

// Explicit routers: the macros' default rebuilds the whole table on every request.
#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
                .with_title("MCP Relay demo server"),
        )
        .with_instructions(
            "Demo server bundled with MCP Relay. Tools: arithmetic (add, multiply, divide), echo, \
             current_time, an in-memory notebook (notes_add, notes_list, notes_search, \
             notes_delete, and notes_board, whose MCP App shows them as cards), retrieve over \
             bundled documents, slow_count (progress), generate_image and read_guide. Prompts: \
             simple_chat, context_engineering. Resources: demo://docs/guide, demo://notes, \
             ui://demo/notes-board.html.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            guide_resource(),
            notes_resource(),
            board::resource(),
        ]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let ids: Vec<&str> = corpus::DOCUMENTS.iter().map(|d| d.id).collect();
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{DOCS_URI_PREFIX}{{id}}"), "document")
                .with_title("Bundled document")
                .with_description(format!(
                    "One of the documents retrieve searches. Ids: {}.",
                    ids.join(", ")
                ))
                .with_mime_type(MARKDOWN),
            ResourceTemplate::new(format!("{NOTES_URI_PREFIX}{{id}}"), "note")
                .with_title("Note")
                .with_description("One note by its numeric id, as JSON.")
                .with_mime_type(JSON),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let not_found = || {
            ErrorData::resource_not_found(
                format!("no resource at {uri}"),
                Some(serde_json::json!({ "uri": uri })),
            )
        };
        let contents = if uri == NOTES_URI {
            ResourceContents::text(to_json(uri, &NoteList::new(self.state.notes.all()))?, uri)
                .with_mime_type(JSON)
        } else if let Some(id) = uri.strip_prefix(NOTES_URI_PREFIX) {
            let id: u64 = id.parse().map_err(|_| not_found())?;
            let note = self.state.notes.get(id).map_err(|_| not_found())?;
            ResourceContents::text(to_json(uri, &note)?, uri).with_mime_type(JSON)
        } else if uri == board::BOARD_URI {
            board::resource_contents()
        } else if let Some(id) = uri.strip_prefix(DOCS_URI_PREFIX) {
            let doc = corpus::document(id).ok_or_else(not_found)?;
            ResourceContents::text(doc.text, uri).with_mime_type(MARKDOWN)
        } else {
            return Err(not_found());
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
