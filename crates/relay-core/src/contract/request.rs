//! Every request the core accepts, as one typed enum ([`Request`], tagged by `type`), and the
//! table of names, roles and docs ([`MESSAGES`]) made from the same declaration.
//!
//! Each message is declared once, in [`messages!`]'s invocation below: its variant, wire name,
//! allowed roles, doc, typed fields, and the JavaScript types of its request and answer (for the
//! generated `extension/contract.js`, see `cargo xtask codegen`). A message without a handler in
//! `crate::app::App::handle` does not compile, because it matches this enum exhaustively.
//!
//! Fields are typed as the handlers read them, and read as leniently as the handlers always did:
//! a string field of the wrong type or empty reads as absent, a flag of the wrong type as absent
//! ([`lenient`]); free-form parts (a server, settings, arguments) stay JSON values for the
//! handlers to check. Unknown extra fields are accepted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{MessageSpec, Role};

const PAGE: &[Role] = &[Role::Page];
const CONTENT: &[Role] = &[Role::Content];
const BOTH: &[Role] = &[Role::Page, Role::Content];

/// A chat a side-panel message is about: a tab and its conversation URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRef {
    /// The chat's tab; absent (or not an integer) reads as missing.
    #[serde(default, deserialize_with = "lenient::int")]
    pub tab_id: Option<i64>,
    /// The conversation URL.
    #[serde(default, deserialize_with = "lenient::string")]
    pub url: Option<String>,
}

/// Field readers that accept what the handlers always accepted: a value of the wrong type is
/// "absent" (the handler then answers `invalid_argument` for a required field, or uses the
/// default), never a deserialization error of the whole message.
pub mod lenient {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

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

    /// A chat reference, or `None` when the value is not an object.
    pub fn chat<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::ChatRef>, D::Error> {
        Ok(match Value::deserialize(d)? {
            v @ Value::Object(_) => serde_json::from_value(v).ok(),
            _ => None,
        })
    }
}

/// Declares the messages: the [`Request`] enum, [`MESSAGES`] and [`Request::name`] from one list.
macro_rules! messages {
    ($(
        $(#[$vmeta:meta])*
        $variant:ident = $name:literal, roles: $roles:expr, doc: $doc:literal,
        js: ($js_req:literal => $js_res:literal)
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    )*) => {
        /// One request to the core, `{"type": "<name>", ...fields}`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        // Not `non_exhaustive`: the dispatch must name every message.
        #[serde(tag = "type")]
        pub enum Request {
            $(
                #[doc = $doc]
                $(#[$vmeta])*
                #[serde(rename = $name, rename_all = "camelCase")]
                $variant { $( $(#[$fmeta])* $field: $ty ),* },
            )*
        }

        /// Every message the core accepts, in declaration order.
        pub const MESSAGES: &[MessageSpec] = &[
            $( MessageSpec { name: $name, roles: $roles, doc: $doc, js_request: $js_req, js_answer: $js_res }, )*
        ];

        impl Request {
            /// The wire name (`type`) of this request.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Request::$variant { .. } => $name, )*
                }
            }
        }
    };
}

// Shapes named in the docs and JS types: ServerView = {id, name, url, transport: auto|streamable|sse,
// headers: [{name, value}] (values of secret-looking headers masked as "••••"), timeoutMs, enabled,
// state: {status, info?, transport?, toolCount?, error?, lastLatencyMs?},
// auth: null | {signedIn, scope?, expiresAtMs?, refreshable, origins}}; ToolView = MCP Tool +
// {serverId, policy: allow|ask|deny, enabled}; ChatSettings = {serverIds, strategy?, template?,
// autoExecute, autoSubmit, maxConsecutive?, maxTotal?}; CallRecord = {key, chat, messageId, callId,
// serverId, tool, arguments, seq, delivered, state, progress?, result?, error?, replyText?,
// startedAt?, durationMs?}. Their JSDoc typedefs are in crates/xtask/src/codegen/contract.js.in.
messages! {
    Ping = "ping", roles: BOTH, doc: "Liveness. → {core: version, role}",
        js: ("{}" => "{core: string, role: Role}") {}
    ServersList = "servers/list", roles: PAGE, doc: "Configured servers with live state. → [ServerView]",
        js: ("{}" => "ServerView[]") {}
    ServersAdd = "servers/add", roles: PAGE,
        doc: "{server: {name, url, transport?, headers?, timeoutMs?, enabled?}} → ServerView",
        js: ("{server: ServerInput}" => "ServerView") {
            #[serde(default)] server: Value,
        }
    ServersUpdate = "servers/update", roles: PAGE,
        doc: "{server: {id, ...}}; a header value \"••••\" keeps the stored secret. → ServerView",
        js: ("{server: ServerInput & {id: string}}" => "ServerView") {
            #[serde(default)] server: Value,
        }
    ServersRemove = "servers/remove", roles: PAGE,
        doc: "{id} removes a server and ends its session (DELETE). → null",
        js: ("{id: string}" => "null") {
            #[serde(default, deserialize_with = "lenient::string")] id: Option<String>,
        }
    ServersImport = "servers/import", roles: PAGE,
        doc: "{json, apply} parses an mcpServers JSON; adds when apply. → {servers: [ServerView], skipped: [{name, reason}]}",
        js: ("{json: string, apply: boolean}" => "{servers: ServerView[], skipped: {name: string, reason: string}[]}") {
            #[serde(default, deserialize_with = "lenient::string")] json: Option<String>,
            #[serde(default, deserialize_with = "lenient::flag")] apply: Option<bool>,
        }
    ServersSignIn = "servers/signIn", roles: PAGE,
        doc: "{id} connects; a server that asks for a sign-in (MCP authorization) gets one, in a browser window. → ServerView",
        js: ("{id: string}" => "ServerView") {
            #[serde(default, deserialize_with = "lenient::string")] id: Option<String>,
        }
    ServersSignOut = "servers/signOut", roles: PAGE,
        doc: "{id} forgets the server's tokens, revoking them where its authorization server can. → ServerView",
        js: ("{id: string}" => "ServerView") {
            #[serde(default, deserialize_with = "lenient::string")] id: Option<String>,
        }
    ServersExport = "servers/export", roles: PAGE, doc: "→ {mcpServers: {...}} without secrets",
        js: ("{}" => "{mcpServers: Record<string, unknown>}") {}
    ServersTest = "servers/test", roles: PAGE, doc: "{id} connects and lists tools. → ServerView",
        js: ("{id: string}" => "ServerView") {
            #[serde(default, deserialize_with = "lenient::string")] id: Option<String>,
        }
    ToolsList = "tools/list", roles: PAGE, doc: "{serverId?, refresh?} → [ToolView] (cached, 5 min TTL)",
        js: ("{serverId?: string, refresh?: boolean}" => "ToolView[]") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::flag")] refresh: Option<bool>,
        }
    ToolsPolicy = "tools/policy", roles: PAGE,
        doc: "{serverId, tool?, policy?, enabled?, readOnly?, confirm?} sets one tool's (or, without tool, every tool's of the server) policy. → [ToolView]",
        js: ("ToolPolicyRequest" => "ToolView[]") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] tool: Option<String>,
            #[serde(default)] policy: Option<Value>,
            #[serde(default, deserialize_with = "lenient::flag")] enabled: Option<bool>,
            #[serde(default, deserialize_with = "lenient::flag")] read_only: Option<bool>,
            #[serde(default, deserialize_with = "lenient::flag")] confirm: Option<bool>,
        }
    ToolsCall = "tools/call", roles: PAGE,
        doc: "{serverId, tool, arguments} runs a tool by hand (policy and validation apply). → CallRecord",
        js: ("{serverId: string, tool: string, arguments: unknown}" => "CallRecord") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] tool: Option<String>,
            #[serde(default)] arguments: Option<Value>,
        }
    PromptsList = "prompts/list", roles: PAGE, doc: "{serverId} → MCP prompts",
        js: ("{serverId: string}" => "any") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
        }
    PromptsGet = "prompts/get", roles: PAGE, doc: "{serverId, name, arguments?} → MCP GetPromptResult",
        js: ("{serverId: string, name: string, arguments?: Record<string, string>}" => "any") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] name: Option<String>,
            #[serde(default)] arguments: Option<Value>,
        }
    ResourcesList = "resources/list", roles: PAGE, doc: "{serverId} → MCP resources",
        js: ("{serverId: string}" => "any") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
        }
    ResourcesRead = "resources/read", roles: PAGE, doc: "{serverId, uri} → MCP ReadResourceResult",
        js: ("{serverId: string, uri: string}" => "any") {
            #[serde(default, deserialize_with = "lenient::string")] server_id: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] uri: Option<String>,
        }
    ChatGet = "chat/get", roles: BOTH,
        doc: "{chat?} this chat's settings (content scripts: their own tab): its own, else its site's, else the defaults (source says which). → ChatSettings",
        js: ("{chat?: ChatRef}" => "ChatSettings & {source: 'chat' | 'site' | 'default'}") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ChatSet = "chat/set", roles: PAGE, doc: "{chat, settings, scope?} sets the chat's settings and remembers them for its site (scope \"chat\": this chat only). → ChatSettings",
        js: ("{chat: ChatRef, settings: Partial<ChatSettings>, scope?: 'site' | 'chat'}" => "ChatSettings & {source: 'chat' | 'site' | 'default'}") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default)] settings: Value,
            #[serde(default, deserialize_with = "lenient::string")] scope: Option<String>,
        }
    PromptBuild = "prompt/build", roles: BOTH,
        doc: "{chat?, serverIds?, options?} → Prompt {text, chars, tokensEstimate, tools} or null",
        js: ("{chat?: ChatRef, serverIds?: string[], options?: object}" => "Prompt | null") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default)] server_ids: Option<Value>,
            #[serde(default)] options: Option<Value>,
        }
    ChatInsert = "chat/insert", roles: PAGE,
        doc: "{chat, text, submit?} asks the chat tab's content script to insert text. → {inserted, submitted}",
        js: ("{chat: ChatRef, text: string, submit?: boolean}" => "InsertOutcome") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
            #[serde(default, deserialize_with = "lenient::string")] text: Option<String>,
            #[serde(default, deserialize_with = "lenient::flag")] submit: Option<bool>,
        }
    ReplyParse = "reply/parse", roles: BOTH,
        doc: "{text, serverIds?} parses one reply against the selected servers' tools (content scripts: their chat's). → {calls, diagnostics}",
        js: ("{text: string, serverIds?: string[]}" => "{calls: unknown[], diagnostics: unknown[]}") {
            #[serde(default, deserialize_with = "lenient::string")] text: Option<String>,
            #[serde(default)] server_ids: Option<Value>,
        }
    PageObserve = "page/observe", roles: CONTENT,
        doc: "One look at the sender's page: {page, conversation?, pattern, streaming, submitted, turns: [{h, user?, id?, text?, at?}]}. The core's page model decides which reply is which, whether it is old and when it ends; live replies' complete calls enter the ledger. → PageAnswer {calls, pending, resend?, rescanMs?, reset?}",
        js: ("PageObservation" => "PageAnswer") {
            #[serde(flatten)] observation: crate::page::Observation,
        }
    PageState = "page/state", roles: PAGE,
        doc: "{chat} the chat tab's page as the core sees it (its replies, their ids and states). → PageView | null",
        js: ("{chat: ChatRef}" => "PageView | null") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ActivityList = "activity/list", roles: BOTH,
        doc: "{chat?} → [CallRecord] of the chat (content scripts: their own tab)",
        js: ("{chat?: ChatRef}" => "CallRecord[]") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    ActivityDecide = "activity/decide", roles: BOTH,
        doc: "{key, decision: run|deny|always, confirm?} approves or denies a pending call; re-runs an unknown one on run. → CallRecord",
        js: ("{key: string, decision: Decision, confirm?: boolean}" => "CallRecord") {
            #[serde(default, deserialize_with = "lenient::string")] key: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] decision: Option<String>,
            #[serde(default, deserialize_with = "lenient::flag")] confirm: Option<bool>,
        }
    ElicitationList = "elicitation/list", roles: PAGE,
        doc: "Servers' questions waiting for the user (MCP elicitation). → [ElicitationView]",
        js: ("{}" => "ElicitationView[]") {}
    ElicitationAnswer = "elicitation/answer", roles: PAGE,
        doc: "{key, action: accept|decline|cancel, content?} answers a question; a form that does not fit its schema is refused and stays open. → [ElicitationView]",
        js: ("{key: string, action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>}" => "ElicitationView[]") {
            #[serde(default, deserialize_with = "lenient::string")] key: Option<String>,
            #[serde(default, deserialize_with = "lenient::string")] action: Option<String>,
            #[serde(default)] content: Option<Value>,
        }
    SettingsGet = "settings/get", roles: PAGE, doc: "→ Settings",
        js: ("{}" => "Record<string, any>") {}
    SettingsSet = "settings/set", roles: PAGE, doc: "{settings} → Settings",
        js: ("{settings: Record<string, unknown>}" => "Record<string, any>") {
            #[serde(default)] settings: Value,
        }
    SitesList = "sites/list", roles: PAGE, doc: "→ [Site] custom sites {origin, adapter}",
        js: ("{}" => "Site[]") {}
    SitesAdd = "sites/add", roles: PAGE,
        doc: "{origin, adapter} adds a custom chat site (content script registered for it); adapter is an adapter id or adapter data (validated, kept as the site's `custom`). → [Site]",
        js: ("{origin: string, adapter: string | AdapterData}" => "Site[]") {
            #[serde(default)] origin: Option<Value>,
            #[serde(default)] adapter: Option<Value>,
        }
    SitesRemove = "sites/remove", roles: PAGE, doc: "{origin} removes a custom chat site. → [Site]",
        js: ("{origin: string}" => "Site[]") {
            #[serde(default)] origin: Option<Value>,
        }
    SitesCheck = "sites/check", roles: PAGE,
        doc: "{chat} asks the chat tab's content script which adapter selectors match. → {adapter, checks: [{part, selector, matches}]}",
        js: ("{chat: ChatRef}" => "SiteCheck") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
    SitesAdapter = "sites/adapter", roles: CONTENT,
        doc: "The adapter configured for the sender's origin: its id and, for a taught or edited one, its data. → {adapter, custom?} or null",
        js: ("{}" => "{adapter: string, custom?: AdapterData} | null") {}
    SitesTaught = "sites/taught", roles: CONTENT,
        doc: "{adapter} saves what \"Teach this page\" made (validated) as the sender origin's adapter. → AdapterData",
        js: ("{adapter: AdapterData}" => "AdapterData") {
            #[serde(default)] adapter: Option<Value>,
        }
    SitesTeach = "sites/teach", roles: PAGE,
        doc: "{chat} starts \"Teach this page\" in the chat's tab (the user then picks the parts with trusted clicks). → {started}",
        js: ("{chat: ChatRef}" => "{started: boolean}") {
            #[serde(default, deserialize_with = "lenient::chat")] chat: Option<ChatRef>,
        }
}
