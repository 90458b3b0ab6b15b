//! The message contract between the core (in the service worker), content scripts and the side
//! panel: every message name, who may send it, and the envelope of every answer.
//!
//! This file is the single source of truth. `extension/contract.js` mirrors the names and roles
//! for the JavaScript side, and a test (`tests/test_contract.rs`) fails when the two drift.
//!
//! A request is a JSON object `{"type": "<name>", ...fields}`. An answer is either
//! `{"ok": true, "data": ...}` or `{"ok": false, "error": {"kind", "message", "hint"}}`.
//! Senders are classified by the service worker from Chrome's `MessageSender` (never from
//! anything inside the message): extension pages (side panel, options) are [`Role::Page`];
//! content scripts of this extension in a chat tab are [`Role::Content`]. Anything else (web
//! pages, other extensions) is dropped before it reaches the core.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who sent a message, as the service worker established from `chrome.runtime.MessageSender`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// An extension page: the side panel or the options page. Trusted with configuration.
    Page,
    /// A content script in a chat tab. Sees page text only; never receives secrets.
    Content,
}

/// One message of the contract.
#[derive(Debug, Clone, Copy)]
pub struct MessageSpec {
    /// The `type` field.
    pub name: &'static str,
    /// Roles allowed to send it.
    pub roles: &'static [Role],
    /// What it does and what it answers.
    pub doc: &'static str,
}

const PAGE: &[Role] = &[Role::Page];
const CONTENT: &[Role] = &[Role::Content];
const BOTH: &[Role] = &[Role::Page, Role::Content];

/// Every message the core accepts.
pub const MESSAGES: &[MessageSpec] = &[
    MessageSpec { name: "ping", roles: BOTH, doc: "Liveness. → {core: version, role}" },
    // Servers. ServerView = {id, name, url, transport: auto|streamable|sse, headers: [{name, value}] (values of
    // secret-looking headers masked as "••••"), timeoutMs, enabled, state: {status: idle|connected|failed|disabled,
    // info?: {protocolVersion, serverInfo, capabilities, ...}, transport?, toolCount?, error?: {kind, message, hint}, lastLatencyMs?}}.
    MessageSpec { name: "servers/list", roles: PAGE, doc: "Configured servers with live state. → [ServerView]" },
    MessageSpec { name: "servers/add", roles: PAGE, doc: "{server: {name, url, transport?, headers?, timeoutMs?, enabled?}} → ServerView" },
    MessageSpec { name: "servers/update", roles: PAGE, doc: "{server: {id, ...}}; a header value \"••••\" keeps the stored secret. → ServerView" },
    MessageSpec { name: "servers/remove", roles: PAGE, doc: "{id} removes a server and ends its session (DELETE). → null" },
    MessageSpec { name: "servers/import", roles: PAGE, doc: "{json, apply} parses an mcpServers JSON; adds when apply. → {servers: [ServerView], skipped: [{name, reason}]}" },
    MessageSpec { name: "servers/export", roles: PAGE, doc: "→ {mcpServers: {...}} without secrets" },
    MessageSpec { name: "servers/test", roles: PAGE, doc: "{id} connects and lists tools. → ServerView" },
    // Tools. ToolView = MCP Tool + {serverId, policy: allow|ask|deny, enabled}.
    MessageSpec { name: "tools/list", roles: PAGE, doc: "{serverId?, refresh?} → [ToolView] (cached, 5 min TTL)" },
    MessageSpec { name: "tools/policy", roles: PAGE, doc: "{serverId, tool?, policy?, enabled?} sets one tool's (or, without tool, every tool's of the server) policy. → [ToolView]" },
    MessageSpec { name: "tools/call", roles: PAGE, doc: "{serverId, tool, arguments} runs a tool by hand (policy and validation apply). → CallRecord" },
    MessageSpec { name: "prompts/list", roles: PAGE, doc: "{serverId} → MCP prompts" },
    MessageSpec { name: "prompts/get", roles: PAGE, doc: "{serverId, name, arguments?} → MCP GetPromptResult" },
    MessageSpec { name: "resources/list", roles: PAGE, doc: "{serverId} → MCP resources" },
    MessageSpec { name: "resources/read", roles: PAGE, doc: "{serverId, uri} → MCP ReadResourceResult" },
    // Chats. A chat is identified by {tabId, url}; ChatSettings = {serverIds, strategy?: auto|toolFirst|toolForced|disabled,
    // template?, autoExecute, autoSubmit, maxConsecutive?, maxTotal?}.
    MessageSpec { name: "chat/get", roles: BOTH, doc: "{chat?} this chat's settings (content scripts: their own tab). → ChatSettings" },
    MessageSpec { name: "chat/set", roles: PAGE, doc: "{chat, settings} → ChatSettings" },
    MessageSpec { name: "prompt/build", roles: BOTH, doc: "{chat?, serverIds?, options?} → Prompt {text, chars, tokensEstimate, tools} or null" },
    MessageSpec { name: "chat/insert", roles: PAGE, doc: "{chat, text, submit?} asks the chat tab's content script to insert text. → {inserted, submitted}" },
    // The loop. CallRecord = {key, chat, messageId, callId, serverId, tool, arguments, seq, delivered,
    // state: pending|running|done|failed|unknown|denied|limited, progress?, result?, error?, replyText?, startedAt?, durationMs?}.
    MessageSpec { name: "reply/parse", roles: BOTH, doc: "{text} parses one reply against the selected servers' tools. → {calls, diagnostics}" },
    MessageSpec { name: "reply/update", roles: CONTENT, doc: "{messageId, text, done} a growing assistant reply; new complete calls enter the ledger. → {calls: [CallRecord], pending}" },
    MessageSpec { name: "activity/list", roles: BOTH, doc: "{chat?} → [CallRecord] of the chat (content scripts: their own tab)" },
    MessageSpec { name: "activity/decide", roles: BOTH, doc: "{key, decision: run|deny|always} approves or denies a pending call; re-runs an unknown one on run. → CallRecord" },
    MessageSpec { name: "settings/get", roles: PAGE, doc: "→ Settings" },
    MessageSpec { name: "settings/set", roles: PAGE, doc: "{settings} → Settings" },
    MessageSpec { name: "sites/list", roles: PAGE, doc: "→ [Site] custom sites {origin, adapter}" },
    MessageSpec { name: "sites/add", roles: PAGE, doc: "{origin, adapter} adds a custom chat site (content script registered for it). → [Site]" },
    MessageSpec { name: "sites/remove", roles: PAGE, doc: "{origin} removes a custom chat site. → [Site]" },
    MessageSpec { name: "sites/check", roles: PAGE, doc: "{chat} asks the chat tab's content script which adapter selectors match. → {adapter, checks: [{part, selector, matches}]}" },
    MessageSpec { name: "sites/adapter", roles: CONTENT, doc: "The adapter id configured for the sender's origin. → {adapter} or null" },
];

/// Looks up a message by name.
pub fn spec(name: &str) -> Option<&'static MessageSpec> {
    MESSAGES.iter().find(|m| m.name == name)
}

/// Why a message was refused before any handler ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    #[error("a message must be a JSON object with a string \"type\"")]
    Malformed,
    #[error("unknown message type '{0}'")]
    Unknown(String),
    #[error("message '{name}' is not allowed from a {role:?} sender")]
    Forbidden { name: String, role: Role },
}

/// Checks a raw message against the contract: its name exists and the role may send it.
pub fn admit(message: &Value, role: Role) -> Result<&'static MessageSpec, ContractError> {
    let name = message
        .get("type")
        .and_then(Value::as_str)
        .ok_or(ContractError::Malformed)?;
    let spec = spec(name).ok_or_else(|| ContractError::Unknown(name.to_owned()))?;
    if !spec.roles.contains(&role) {
        return Err(ContractError::Forbidden {
            name: name.to_owned(),
            role,
        });
    }
    Ok(spec)
}

/// The error half of an answer: what happened, and what the user can do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorBody {
    /// A stable machine name (`connection`, `auth`, `timeout`, `forbidden`, ...).
    pub kind: String,
    /// One sentence for the user.
    pub message: String,
    /// What to do about it, when we know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ErrorBody {
    /// An error with a kind and a message.
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorBody {
            kind: kind.into(),
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl From<ContractError> for ErrorBody {
    fn from(e: ContractError) -> Self {
        let kind = match e {
            ContractError::Malformed => "malformed",
            ContractError::Unknown(_) => "unknown_message",
            ContractError::Forbidden { .. } => "forbidden",
        };
        ErrorBody::new(kind, e.to_string())
    }
}

/// Builds the success envelope.
pub fn ok(data: Value) -> Value {
    serde_json::json!({"ok": true, "data": data})
}

/// Builds the error envelope.
pub fn err(error: ErrorBody) -> Value {
    serde_json::json!({"ok": false, "error": error})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn admits_by_name_and_role() {
        let cases = [
            (json!({"type": "ping"}), Role::Content, Ok("ping")),
            (
                json!({"type": "servers/add"}),
                Role::Page,
                Ok("servers/add"),
            ),
            (
                json!({"type": "servers/add"}),
                Role::Content,
                Err("forbidden"),
            ),
            (
                json!({"type": "tools/call"}),
                Role::Content,
                Err("forbidden"),
            ),
            (json!({"type": "nope"}), Role::Page, Err("unknown_message")),
            (json!({"kind": "ping"}), Role::Page, Err("malformed")),
            (json!("ping"), Role::Page, Err("malformed")),
        ];
        for (msg, role, want) in cases {
            let got = admit(&msg, role)
                .map(|s| s.name)
                .map_err(|e| ErrorBody::from(e).kind);
            assert_eq!(got, want.map_err(str::to_owned), "{msg} from {role:?}");
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, m) in MESSAGES.iter().enumerate() {
            assert!(
                MESSAGES[i + 1..].iter().all(|o| o.name != m.name),
                "duplicate {}",
                m.name
            );
        }
    }
}
