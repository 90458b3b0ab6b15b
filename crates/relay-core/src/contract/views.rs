//! The answers of the contract that are views made for it (not types of another module passed
//! on): what the side panel and content scripts read back. Each is the Rust type its answer
//! serializes from, and (feature `ts`) the source of its JSDoc typedef in `extension/contract.js`.

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ErrorBody, Role};
use crate::client::{SkippedServer, TransportKind};
#[cfg(feature = "ts")]
use crate::elicitation::ElicitRequest;

/// A server's question as the second module read it: an `ElicitRequest`, serialized (the app
/// keeps it as it came and reads only its `mode`; to TypeScript it is the `ElicitRequest`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Question(pub Value);

#[cfg(feature = "ts")]
impl ts_rs::TS for Question {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(cfg: &ts_rs::Config) -> String {
        ElicitRequest::name(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        ElicitRequest::inline(cfg)
    }
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        ElicitRequest::inline_flattened(cfg)
    }
    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        ElicitRequest::visit_dependencies(v);
    }
    fn visit_generics(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        ElicitRequest::visit_generics(v);
    }
}
use crate::model::{CallToolResult, Tool};
use crate::policy::{AllowedBy, CallState, ToolPolicy};

/// The answer to `ping`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Pong {
    /// The core's version.
    pub core: String,
    /// The sender's role, as the core sees it.
    pub role: Role,
}

/// A header of a server. In a [`ServerView`], values of secret headers (marked `secret`, or with
/// a secret-looking name) are masked as "••••"; sending "••••" back keeps the stored value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
pub struct Header {
    pub name: String,
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<bool>,
}

/// How a server's connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ServerStatusName {
    Idle,
    /// A connection (and tool listing) is under way.
    Connecting,
    Connected,
    Failed,
    Disabled,
}

/// A server's connection as its view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    pub status: ServerStatusName,
    /// The server's `initialize` (or `server/discover`) answer: protocol version, server info,
    /// capabilities.
    pub info: Option<Value>,
    /// The number of tools last listed.
    pub tool_count: Option<usize>,
    /// The last connection error.
    pub error: Option<ErrorBody>,
    /// The last request's latency in milliseconds.
    pub last_latency_ms: Option<u64>,
    /// The transport that worked.
    pub transport: Option<Value>,
}

/// A server's sign-in (MCP authorization) as the panel sees it: never a token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerAuth {
    pub signed_in: bool,
    pub scope: Option<String>,
    pub expires_at_ms: Option<u64>,
    pub refreshable: bool,
    /// Where signing in fetches from (the panel asks for host permission to them).
    pub origins: Vec<String>,
}

/// A configured server as the side panel shows it: secret header values masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    pub id: String,
    pub name: String,
    pub url: String,
    pub transport: TransportKind,
    pub headers: Vec<Header>,
    pub timeout_ms: u64,
    pub enabled: bool,
    /// The server's sign-in; null when never signed in.
    pub auth: Option<ServerAuth>,
    pub state: ServerState,
    /// The native host's name for a local server (run by `relay-host`); absent for a remote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub local: Option<String>,
}

/// A server of an imported file before it is added (`servers/import` without `apply`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerPreview {
    pub name: String,
    pub url: String,
    pub transport: TransportKind,
    pub headers: Vec<Header>,
}

/// A server of an import: added (with `apply`), or as it would be added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum ImportedServer {
    Added(Box<ServerView>),
    Preview(ServerPreview),
}

/// The answer to `servers/import`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportAnswer {
    pub servers: Vec<ImportedServer>,
    pub skipped: Vec<SkippedServer>,
}

/// A server in an exported `mcpServers` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExportedServer {
    pub url: String,
    /// `http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The answer to `servers/export`: the servers without secrets, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExportAnswer {
    #[serde(rename = "mcpServers")]
    pub mcp_servers: SortedMap<String, ExportedServer>,
}

/// An MCP tool plus the user's settings for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    #[serde(flatten)]
    pub tool: Tool,
    pub server_id: String,
    /// The policy in effect now ([`crate::policy::policy_now`]).
    pub policy: ToolPolicy,
    pub enabled: bool,
    /// The digest of the definition shown ([`crate::policy::revision`]): what the side panel
    /// sends back for the tools the user saw when allowing read-only tools.
    pub revision: String,
    /// Whether "allow read-only tools" covers it: its server says it only reads
    /// (`readOnlyHint`) and does not say it is destructive.
    pub read_only: bool,
    /// Why it runs without asking, when its policy is `allow`.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_by: Option<AllowedBy>,
    /// It was allowed as read-only, and has changed (or stopped claiming to only read) since
    /// the user saw it: it asks until they look again.
    pub changed: bool,
    /// Its interface and who may call it (MCP Apps), when it says anything about them.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ui: Option<crate::apps::ToolUi>,
}

/// The answer to `tools/call`: how a run by hand ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ManualRun {
    pub state: CallState,
    pub tool: String,
    pub server_id: String,
    pub arguments: serde_json::Map<String, Value>,
    pub result: CallToolResult,
    pub duration_ms: u64,
}

/// A run by hand under way (`calls/running`): the key the panel started it with, and the
/// latest progress notification's params (`{progress, total?, message?}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct RunningCall {
    pub key: String,
    pub server_id: String,
    pub tool: String,
    pub started_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Value>,
}

/// Where a chat's settings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ChatSource {
    /// Its own.
    Chat,
    /// Its site's (the settings picked last on that site).
    Site,
    /// The defaults.
    Default,
}

/// A chat's settings as the panel shows them, with where they come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatView {
    #[serde(flatten)]
    pub settings: crate::app::ChatSettings,
    pub source: ChatSource,
}

/// A server's question waiting for the user (MCP elicitation): a form (`fields`) or a page to
/// open (`url`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ElicitationView {
    #[serde(flatten)]
    pub asked: Question,
    pub key: String,
    pub server_id: String,
    pub server_name: String,
    pub asked_at_ms: u64,
    pub expires_at_ms: u64,
}

/// The selector lists of an adapter's file upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AdapterFiles {
    pub input: Vec<String>,
    pub drop: Vec<String>,
    pub preview: Vec<String>,
}

/// A site adapter as data (taught, edited or imported), in the normal form
/// `crate::app::validate_adapter` makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct AdapterData {
    pub id: String,
    pub name: String,
    pub editor: String,
    pub input: Vec<String>,
    pub send: Vec<String>,
    pub assistant: Vec<String>,
    pub stop: Vec<String>,
    pub disabled: Vec<String>,
    pub user: Vec<String>,
    pub code: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = false))]
    pub files: Option<AdapterFiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_text: Option<u64>,
}

/// A custom chat site: its origin and adapter (an adapter id; with `custom`, the data of a
/// taught or edited one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
pub struct Site {
    pub origin: String,
    pub adapter: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<AdapterData>,
}

/// The answer to `sites/adapter`: the adapter configured for the sender's origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
pub struct SiteAdapter {
    pub adapter: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<AdapterData>,
}

/// A part of a chat page the site check looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SitePart {
    Input,
    Send,
    Stop,
    Assistant,
    User,
}

/// One row of the site check: a part, the selector that matched (or the first tried), and how
/// many elements match and are visible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SiteCheckRow {
    pub part: SitePart,
    pub selector: Option<String>,
    pub matches: u32,
    pub visible: u32,
}

/// A content script's answer to `relay/check` (and the answer to `sites/check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SiteCheck {
    pub adapter: String,
    pub editor: String,
    /// The write strategies tried in order (none without an input).
    pub write_path: Vec<String>,
    pub checks: Vec<SiteCheckRow>,
    /// The generic adapter is not sure it found the page's parts ("Teach this page" helps).
    pub unsure: bool,
    /// What the loop itself would use on this page (a tab's answer; absent from old ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub found: Option<SiteFound>,
}

/// What the loop would use on a page: the composer and send control it picks (as CSS paths,
/// ` >>> ` hopping into open shadow roots), the assistant and user turns it counts, and the
/// start of the last reply it would read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SiteFound {
    pub input: Option<String>,
    pub send: Option<String>,
    pub assistant: u32,
    pub user: u32,
    pub last_reply: Option<String>,
}

/// Whether "Teach this page" started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Started {
    pub started: bool,
}

/// An app opened (`apps/open`): what the side panel needs to render it and to start its bridge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AppOpen {
    /// The open app's handle for `apps/*` requests.
    pub instance: String,
    pub server_id: String,
    pub server_name: String,
    /// The tool whose interface it is (for the app's host context).
    pub tool: Tool,
    /// The call's arguments (`ui/notifications/tool-input`).
    pub arguments: Value,
    /// The call's result, when it has one (`ui/notifications/tool-result`).
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The chat call it shows, if any.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_key: Option<String>,
    /// Whether the app has a chat to write into (`ui/message`, model context).
    pub chat: bool,
    /// The document and its frame's policy.
    pub document: crate::apps::AppDocument,
}

/// One server's skills (`skills/list`, SEP-2640), as listed: nothing of a skill is read before
/// it is loaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SkillsView {
    pub server_id: String,
    pub server_name: String,
    pub skills: Vec<SkillView>,
    /// Why the server's skills could not be listed.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// A skill as the panel shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SkillView {
    /// The name to load it by.
    pub name: String,
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its SKILL.md's URI.
    pub uri: String,
    /// Its listed files other than the SKILL.md (none for a skill whose files are dynamic).
    pub references: Vec<String>,
}

/// A skill's file written into a chat's composer, verified (`skills/load`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SkillLoaded {
    pub name: String,
    /// The file written.
    pub uri: String,
    /// Its size in bytes (as listed, and as read).
    pub bytes: u64,
    /// What the chat tab said about the write.
    pub outcome: super::tab::InsertOutcome,
}
