//! Every request the core accepts, as one typed enum ([`Request`], tagged by `type`), the table
//! of names, roles and docs ([`MESSAGES`]) and the type of each answer ([`answers`]), made from
//! the same declaration.
//!
//! Each message is declared once, in the `messages!` invocation below: its variant, wire name,
//! allowed roles, doc, answer type and typed fields. `cargo xtask codegen` writes their
//! JavaScript types from these Rust types (`extension/contract.js`). A message without a handler
//! in `crate::app::App::handle` does not compile, because it matches this enum exhaustively.
//!
//! Every field has a Rust type; strings and flags are read as leniently as the handlers always
//! did: a string of the wrong type reads as empty or absent, a flag of the wrong type as absent
//! ([`lenient`]), so a handler answers with what is missing. Only what the core passes on or
//! validates itself stays JSON: a tool's arguments (checked against its schema), adapter data
//! ([`AdapterInput`], checked by `crate::app::validate_adapter`). Unknown extra fields are
//! accepted.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::local::{LocalAdded, LocalHostView, LocalLogView, LocalPlanView, LocalProposal};
use super::tab::InsertOutcome;
use super::views::{
    AdapterData, AppOpen, ChatView, ElicitationView, ExportAnswer, Header, ImportAnswer, ManualRun,
    Pong, RunningCall, ServerView, Site, SiteAdapter, SiteCheck, SkillLoaded, SkillsView, Started,
    ToolView,
};
use super::Role;
use crate::app::{ChatSettings, PageAnswer, PageView, Settings};
use crate::client::TransportKind;
use crate::parse::ParseOutput;
use crate::policy::{CallRecord, SeenTool, ToolPolicy, UserDecision};
use crate::prompt::{Prompt, PromptOptions};

const PAGE: &[Role] = &[Role::Page];
const CONTENT: &[Role] = &[Role::Content];
const BOTH: &[Role] = &[Role::Page, Role::Content];

/// A chat a side-panel message is about: a tab and its conversation URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ChatRef {
    /// The chat's tab; absent (or not an integer) reads as missing (and the core says so).
    #[serde(default, deserialize_with = "lenient::int")]
    #[cfg_attr(feature = "ts", ts(as = "i64"))]
    pub tab_id: Option<i64>,
    /// The conversation URL.
    #[serde(default, deserialize_with = "lenient::string")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub url: Option<String>,
}

/// Field readers that accept what the handlers always accepted: a value of the wrong type is
/// "absent" (the handler then answers `invalid_argument` for a required field, or uses the
/// default), never a deserialization error of the whole message.
pub mod lenient {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// A string; anything else reads as empty (a required field the handler then names).
    pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) => s,
            _ => String::new(),
        })
    }

    /// A non-empty string, or `None`.
    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) if !s.is_empty() => Some(s),
            _ => None,
        })
    }

    /// A boolean, or `None`.
    pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        Ok(Value::deserialize(d)?.as_bool())
    }

    /// An integer, or `None`.
    pub fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Ok(Value::deserialize(d)?.as_i64())
    }

    /// A value of type `T`, or `None` when it is absent, null or of another shape.
    pub fn value<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        Ok(crate::json_value::from_value(Value::deserialize(d)?).ok())
    }

    /// A chat reference, or `None` when the value is not an object.
    pub fn chat<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::ChatRef>, D::Error> {
        Ok(match Value::deserialize(d)? {
            v @ Value::Object(_) => crate::json_value::from_value(v).ok(),
            _ => None,
        })
    }
}

/// What `servers/add` and `servers/update` take (update names the server by `id`): the panel's
/// shape, headers as rows with `secret` marking a header whose name does not say it is a
/// credential.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ServerInput {
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "lenient::text")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::text")]
    pub url: String,
    #[serde(default)]
    pub transport: Option<TransportKind>,
    #[serde(default)]
    pub headers: Option<Vec<Header>>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default, deserialize_with = "lenient::flag")]
    pub enabled: Option<bool>,
}

/// Where a chat's settings apply (`chat/set`, `chat/scope`): one conversation, or every
/// conversation of its site that has no settings of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The whole site: its conversations without settings of their own, this one included.
    Site,
    /// This conversation only. A `chat/set` that names no scope means it: nothing spreads to
    /// the site's other conversations unasked (auto-run least of all).
    #[default]
    Chat,
}

/// The user's answer to a server's question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    Accept,
    Decline,
    Cancel,
}

/// `sites/add`'s adapter: a built-in adapter's id, or adapter data (validated by the core).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum AdapterChoice {
    Id(String),
    Data(AdapterInput),
}

/// A chat's settings as `chat/set` takes them: what is left out takes its default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChatSettingsInput(pub ChatSettings);

#[cfg(feature = "ts")]
impl ts_rs::TS for ChatSettingsInput {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "Partial<ChatSettings>".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor) {
        v.visit::<ChatSettings>();
    }
}

/// Adapter data as sent, before the core validates it (`crate::app::validate_adapter`, whose
/// errors name the field, and which fills in what is left out): a partial [`AdapterData`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AdapterInput(pub Map<String, Value>);

#[cfg(feature = "ts")]
impl ts_rs::TS for AdapterInput {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        // What the core fills in (the optional lists, the editor) may be left out.
        "Partial<AdapterData>".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor) {
        v.visit::<AdapterData>();
    }
}

/// A required field of the wrong type reads as `T::default()` (the handler names what is missing).
fn or_default<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(lenient::value(d)?.unwrap_or_default())
}

messages! {
    /// One request to the core, `{"type": "<name>", ...fields}`.
    // Not `non_exhaustive`: the dispatch must name every message.
    enum Request, specs MESSAGES, answers answers;

    Ping = "ping", roles: BOTH, doc: "Liveness. → {core: version, role}",
        answer: Pong, {}
    ServersList = "servers/list", roles: PAGE, doc: "Configured servers with live state. → [ServerView]",
        answer: Vec<ServerView>, {}
    ServersAdd = "servers/add", roles: PAGE,
        doc: "{server: {name, url, transport?, headers?, timeoutMs?, enabled?}} → ServerView",
        answer: ServerView, {
            #[serde(default, deserialize_with = "or_default")] server: ServerInput,
        }
    ServersUpdate = "servers/update", roles: PAGE,
        doc: "{server: {id, ...}}; a header value \"••••\" keeps the stored secret. → ServerView",
        answer: ServerView, {
            #[serde(default, deserialize_with = "or_default")] server: ServerInput,
        }
    ServersRemove = "servers/remove", roles: PAGE,
        doc: "{id} removes a server and ends its session (DELETE). → null",
        answer: (), {
            #[serde(default, deserialize_with = "lenient::text")] id: String,
        }
    ServersImport = "servers/import", roles: PAGE,
        doc: "{json, apply} parses an mcpServers JSON; adds when apply. → {servers: [ServerView], skipped: [{name, reason}]}",
        answer: ImportAnswer, {
            #[serde(default, deserialize_with = "lenient::text")] json: String,
            #[serde(default, deserialize_with = "lenient::flag")] apply: Option<bool>,
        }
    ServersSignIn = "servers/signIn", roles: PAGE,
        doc: "{id} connects; a server that asks for a sign-in (MCP authorization) gets one, in a browser window. → ServerView",
        answer: ServerView, {
            #[serde(default, deserialize_with = "lenient::text")] id: String,
        }
    ServersSignOut = "servers/signOut", roles: PAGE,
        doc: "{id} forgets the server's tokens, revoking them where its authorization server can. → ServerView",
        answer: ServerView, {
            #[serde(default, deserialize_with = "lenient::text")] id: String,
        }
    ServersExport = "servers/export", roles: PAGE, doc: "→ {mcpServers: {...}} without secrets",
        answer: ExportAnswer, {}
    ServersLog = "servers/log", roles: PAGE,
        doc: "{id, clear?} the server's protocol log since the worker started: every request (headers and body), status and message back, secrets masked, the last 200 entries (with clear: emptied after it is read). → [WireEntry]",
        answer: Vec<crate::client::wire_log::WireEntry>, {
            #[serde(default, deserialize_with = "lenient::text")] id: String,
            #[serde(default, deserialize_with = "lenient::flag")] clear: Option<bool>,
        }
    ServersTest = "servers/test", roles: PAGE, doc: "{id} connects and lists tools. → ServerView",
        answer: ServerView, {
            #[serde(default, deserialize_with = "lenient::text")] id: String,
        }
    ToolsList = "tools/list", roles: PAGE, doc: "{serverId?, refresh?} → [ToolView] (cached, 5 min TTL)",
        answer: Vec<ToolView>, {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::flag")] refresh: Option<bool>,
        }
    ToolsPolicy = "tools/policy", roles: PAGE,
        doc: "{serverId, tool?, policy?, enabled?, readOnly?, seen?, confirm?} sets one tool's (or, without tool, every tool's of the server) policy; `readOnly` (with policy `allow`) allows the tools `seen` names ({name, revision}: what the panel showed the user as covered), where each is still that definition and annotated read-only and not destructive; the allowance lapses when the tool changes; `confirm` confirms allowing a destructive tool (without it the core answers `confirm_required`). → [ToolView]",
        answer: Vec<ToolView>, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
            #[serde(default, deserialize_with = "lenient::string")] tool: Option<String>,
            #[serde(default)] policy: Option<ToolPolicy>,
            #[serde(default, deserialize_with = "lenient::flag")] enabled: Option<bool>,
            #[serde(default, deserialize_with = "lenient::flag")] read_only: Option<bool>,
            #[serde(default)] seen: Option<Vec<SeenTool>>,
            #[serde(default, deserialize_with = "lenient::flag")] confirm: Option<bool>,
        }
    ToolsCall = "tools/call", roles: PAGE,
        doc: "{serverId, tool, arguments, runKey?} runs a tool by hand (policy and validation apply); with `runKey` (letters, digits, - and _) it reports progress (`calls/running`) and `calls/cancel` stops it. → ManualRun",
        answer: ManualRun, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
            #[serde(default, deserialize_with = "lenient::text")] tool: String,
            #[serde(default)] arguments: Option<Value>,
            #[serde(default, deserialize_with = "lenient::string")] run_key: Option<String>,
        }
    CallsCancel = "calls/cancel", roles: BOTH,
        doc: "{key} cancels a running call: a chat call (its ledger key; content scripts: their own chat's, after a trusted click on the card) or a run by hand (its runKey). The request is aborted and the server told (notifications/cancelled; under protocol 2026-07-28 the closed response stream); the call ends as cancelled. → true when it was still running",
        answer: bool, {
            #[serde(default, deserialize_with = "lenient::text")] key: String,
        }
    CallsRunning = "calls/running", roles: PAGE,
        doc: "Runs by hand under way, with their latest progress. → [RunningCall]",
        answer: Vec<RunningCall>, {}
    PromptsList = "prompts/list", roles: PAGE, doc: "{serverId} → MCP prompts",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
        }
    PromptsGet = "prompts/get", roles: PAGE, doc: "{serverId, name, arguments?} → MCP GetPromptResult",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
            #[serde(default, deserialize_with = "lenient::text")] name: String,
            #[serde(default, deserialize_with = "lenient::value")] arguments: Option<crate::sorted_map::SortedMap<String, String>>,
        }
    ResourcesList = "resources/list", roles: PAGE, doc: "{serverId} → MCP resources",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
        }
    AppsOpen = "apps/open", roles: PAGE,
        doc: "{key?, chat?, serverId?, tool?, arguments?, result?} opens the interface (MCP App) of a call of a tool that has one: a chat call's (`key`, its ledger key: the app may then call its server's tools into that chat's Activity, write into its composer and give the model context), or a run by hand's (`serverId`, `tool`, `arguments`, `result`; `chat`: the chat it may write into). The core reads the tool's ui:// resource (resources/read, kept per server and URI until the server's lists change) and builds the frame's CSP and permissions from the resource's declarations only. → AppOpen",
        answer: AppOpen, {
            #[serde(default, deserialize_with = "lenient::string")] key: Option<String>,
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] tool: Option<String>,
            #[serde(default)] arguments: Option<Value>,
            #[serde(default)] result: Option<Value>,
        }
    AppsCall = "apps/call", roles: PAGE,
        doc: "{instance, tool, arguments?, approved?} an open app's tools/call: its own server's tools visible to apps only (others: forbidden), under the user's policy; a tool that asks, and every call past the app's budget, answers confirm_required until the panel sends `approved` after the user's click. Recorded in the chat's Activity, never sent into the chat. → MCP CallToolResult",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] tool: String,
            #[serde(default)] arguments: Option<Value>,
            #[serde(default, deserialize_with = "lenient::flag")] approved: Option<bool>,
        }
    AppsRead = "apps/read", roles: PAGE,
        doc: "{instance, uri} an open app's resources/read, of its own server only. → MCP ReadResourceResult",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] uri: String,
        }
    AppsMessage = "apps/message", roles: PAGE,
        doc: "{instance, text} an open app's ui/message: written into its chat's composer, sent only where the chat sends by itself. → InsertOutcome",
        answer: InsertOutcome, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] text: String,
        }
    AppsContext = "apps/context", roles: PAGE,
        doc: "{instance, text} an open app's ui/update-model-context: kept (the last one wins) and put into the next results sent to its chat. → whether it is kept (false: the app has no chat)",
        answer: bool, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] text: String,
        }
    AppsLog = "apps/log", roles: PAGE,
        doc: "{instance, text} an open app's log message, into its server's protocol log. → null",
        answer: (), {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] text: String,
        }
    AppsLink = "apps/link", roles: PAGE,
        doc: "{instance, url} an open app's ui/open-link: the link as the user must see it before a click opens it (the host it opens, crate::link); anything but http(s) is refused. → Link",
        answer: crate::link::Link, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
            #[serde(default, deserialize_with = "lenient::text")] url: String,
        }
    AppsShow = "apps/show", roles: CONTENT,
        doc: "{key} the in-page card's Open in panel (after a trusted click): a finished call of the sender's own chat whose tool has an interface is marked for the side panel to open its app (`showApp` on its record, cleared by apps/open). → null",
        answer: (), {
            #[serde(default, deserialize_with = "lenient::text")] key: String,
        }
    AppsClose = "apps/close", roles: PAGE,
        doc: "{instance} the app's frame closed: its instance ends (later requests of it are refused). → whether it was open",
        answer: bool, {
            #[serde(default, deserialize_with = "lenient::text")] instance: String,
        }
    ResourcesRead = "resources/read", roles: PAGE, doc: "{serverId, uri} → MCP ReadResourceResult",
        answer: Value, {
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
            #[serde(default, deserialize_with = "lenient::text")] uri: String,
        }
    ChatGet = "chat/get", roles: BOTH,
        doc: "{chat?} this chat's settings (content scripts: their own tab): its own, else its site's, else the defaults (source says which). → ChatView",
        answer: ChatView, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ChatSet = "chat/set", roles: PAGE, doc: "{chat, settings, scope?} sets the settings of the chat's conversation (scope \"chat\", the default) or of its whole site (\"site\": every conversation of the site without its own, this one's own dropped). → ChatView",
        answer: ChatView, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default)] settings: ChatSettingsInput,
            #[serde(default)] scope: Option<Scope>,
        }
    ChatScope = "chat/scope", roles: PAGE, doc: "{chat, scope} where the chat's settings apply from now on: \"chat\" gives the conversation its own, starting from those it uses now; \"site\" drops its own for the site's. → ChatView",
        answer: ChatView, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default)] scope: Option<Scope>,
        }
    PromptBuild = "prompt/build", roles: BOTH,
        doc: "{chat?, serverIds?, options?} → Prompt {text, chars, tokensEstimate, tools} or null",
        answer: Option<Prompt>, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default)] server_ids: Option<Vec<String>>,
            #[serde(default)] options: Option<PromptOptions>,
        }
    ChatInsert = "chat/insert", roles: PAGE,
        doc: "{chat, text, submit?} asks the chat tab's content script to insert text. → InsertOutcome",
        answer: InsertOutcome, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default, deserialize_with = "lenient::text")] text: String,
            #[serde(default, deserialize_with = "lenient::flag")] submit: Option<bool>,
        }
    ReplyParse = "reply/parse", roles: BOTH,
        doc: "{text, serverIds?} parses one reply against the selected servers' tools (content scripts: their chat's). → {calls, diagnostics}",
        answer: ParseOutput, {
            #[serde(default, deserialize_with = "lenient::text")] text: String,
            #[serde(default, deserialize_with = "lenient::value")] server_ids: Option<Vec<String>>,
        }
    PageObserve = "page/observe", roles: CONTENT,
        doc: "One look at the sender's page: {page, conversation?, pattern, streaming, submitted, turns: [{h, user?, id?, text?, at?}]}. The core's page model decides which reply is which, whether it is old and when it ends; live replies' complete calls enter the ledger. → PageAnswer {calls, pending, resend?, rescanMs?, reset?}",
        answer: PageAnswer, {
            #[serde(flatten)] observation: crate::page::Observation,
        }
    PageState = "page/state", roles: PAGE,
        doc: "{chat} the chat tab's page as the core sees it (its replies, their ids and states). → PageView | null",
        answer: Option<PageView>, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ActivityList = "activity/list", roles: BOTH,
        doc: "{chat?} → [CallRecord] of the chat (content scripts: their own tab)",
        answer: Vec<CallRecord>, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ActivityDecide = "activity/decide", roles: BOTH,
        doc: "{key, decision: run|deny|always, confirm?} approves or denies a pending call; re-runs an unknown one on run. → CallRecord",
        answer: CallRecord, {
            #[serde(default, deserialize_with = "lenient::text")] key: String,
            decision: UserDecision,
            #[serde(default, deserialize_with = "lenient::flag")] confirm: Option<bool>,
        }
    ChatHoldSend = "chat/holdSend", roles: BOTH,
        doc: "{key} cancels the delayed auto-send of the results this call's went back with: they stay in the chat's input, unsent. A content script, for its own chat only. → CallRecord",
        answer: CallRecord, {
            #[serde(default, deserialize_with = "lenient::text")] key: String,
        }
    ElicitationList = "elicitation/list", roles: PAGE,
        doc: "Servers' questions waiting for the user (MCP elicitation). → [ElicitationView]",
        answer: Vec<ElicitationView>, {}
    ElicitationAnswer = "elicitation/answer", roles: PAGE,
        doc: "{key, action: accept|decline|cancel, content?} answers a question; a form that does not fit its schema is refused and stays open. → [ElicitationView]",
        answer: Vec<ElicitationView>, {
            #[serde(default, deserialize_with = "lenient::text")] key: String,
            #[serde(default, deserialize_with = "lenient::text")] action: String,
            #[serde(default, deserialize_with = "lenient::value")] content: Option<Map<String, Value>>,
        }
    SettingsGet = "settings/get", roles: PAGE, doc: "→ Settings",
        answer: Settings, {}
    SettingsSet = "settings/set", roles: PAGE, doc: "{settings} → Settings",
        answer: Settings, {
            #[serde(default)] settings: Settings,
        }
    SitesList = "sites/list", roles: PAGE, doc: "→ [Site] custom sites {origin, adapter}",
        answer: Vec<Site>, {}
    SitesAdd = "sites/add", roles: PAGE,
        doc: "{origin, adapter} adds a custom chat site (content script registered for it); adapter is an adapter id or adapter data (validated, kept as the site's `custom`). → [Site]",
        answer: Vec<Site>, {
            #[serde(default, deserialize_with = "lenient::text")] origin: String,
            #[serde(default, deserialize_with = "lenient::value")] adapter: Option<AdapterChoice>,
        }
    SitesRemove = "sites/remove", roles: PAGE, doc: "{origin} removes a custom chat site. → [Site]",
        answer: Vec<Site>, {
            #[serde(default, deserialize_with = "lenient::text")] origin: String,
        }
    SitesCheck = "sites/check", roles: PAGE,
        doc: "{chat} asks the chat tab's content script which adapter selectors match. → SiteCheck",
        answer: SiteCheck, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    SitesAdapter = "sites/adapter", roles: CONTENT,
        doc: "The adapter configured for the sender's origin: its id and, for a taught or edited one, its data. → {adapter, custom?} or null",
        answer: Option<SiteAdapter>, {}
    SitesTaught = "sites/taught", roles: CONTENT,
        doc: "{adapter} saves what \"Teach this page\" made (validated) as the sender origin's adapter. → AdapterData",
        answer: AdapterData, {
            #[serde(default)] adapter: Option<AdapterInput>,
        }
    SitesTeach = "sites/teach", roles: PAGE,
        doc: "{chat} starts \"Teach this page\" in the chat's tab (the user then picks the parts with trusted clicks). → {started}",
        answer: Started, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    LocalList = "local/list", roles: PAGE,
        doc: "The native host's servers with their status; servers the extension does not know yet are added (marked local). {os, extensionId} (chrome.runtime.getPlatformInfo's os, chrome.runtime.id) name the install command's platform and id. When Chrome cannot start the host: {installed: false, error, install, developer} with the one command that installs it. → LocalHostView",
        answer: LocalHostView, {
            #[serde(default, deserialize_with = "lenient::text")] os: String,
            #[serde(default, deserialize_with = "lenient::text")] extension_id: String,
        }
    LocalLog = "local/log", roles: PAGE, doc: "{name} a local server's recent stderr lines. → LocalLogView",
        answer: LocalLogView, {
            #[serde(default, deserialize_with = "lenient::text")] name: String,
        }
    LocalRestart = "local/restart", roles: PAGE, doc: "{name} stops and starts a local server, its crash count forgotten. → null",
        answer: (), {
            #[serde(default, deserialize_with = "lenient::text")] name: String,
        }
    LocalPlan = "local/plan", roles: PAGE,
        doc: "{json} the stdio entries of an mcpServers file as the local host would run them, each with the exact command to confirm. → LocalPlanView",
        answer: LocalPlanView, {
            #[serde(default, deserialize_with = "lenient::text")] json: String,
        }
    LocalPropose = "local/propose", roles: PAGE,
        doc: "{servers: [LocalProposal]} asks the host to add them; the host asks the user itself before it writes its list. → LocalAdded",
        answer: LocalAdded, {
            #[serde(default, deserialize_with = "lenient::value")] servers: Option<Vec<LocalProposal>>,
        }
    SkillsList = "skills/list", roles: PAGE,
        doc: "{serverId?} the skills (SEP-2640) of one server, or of every enabled server, listed with skills/list where the server declares the extension; no file of a skill is read (no prefetch). → [SkillsView]",
        answer: Vec<SkillsView>, {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
        }
    SkillsLoad = "skills/load", roles: PAGE,
        doc: "{chat, serverId, name, file?} writes a skill into the chat's composer (not sent): its SKILL.md (with `file`, one of its listed files), read with resources/read and verified against the listing (size, sha256 digest, frontmatter); a mismatch answers skill_unverified and nothing is written. → SkillLoaded",
        answer: SkillLoaded, {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default, deserialize_with = "lenient::text")] server_id: String,
            #[serde(default, deserialize_with = "lenient::text")] name: String,
            #[serde(default, deserialize_with = "lenient::string")] file: Option<String>,
        }
}
