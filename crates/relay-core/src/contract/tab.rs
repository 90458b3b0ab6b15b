//! Messages the core sends to a chat tab's content script (`chrome.tabs.sendMessage`), the other
//! direction of the contract. The content script (`extension/content/main.js`) answers
//! `relay/insert` with an `InsertOutcome` and `relay/check` with a `SiteCheck`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message to a chat tab, `{"type": "<name>", ...fields}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum TabMessage {
    /// Write `text` into the chat's input, attach `attachments`, and submit when `submit`.
    #[serde(rename = "relay/insert")]
    Insert {
        text: String,
        submit: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Value>,
    },
    /// Report which of the adapter's selectors match (the side panel's site check).
    #[serde(rename = "relay/check")]
    Check {},
    /// Call records of this tab that changed, for its call cards.
    #[serde(rename = "relay/calls")]
    Calls { calls: Vec<Value> },
    /// Start "Teach this page" (the picker takes the user's trusted clicks only).
    #[serde(rename = "relay/teach")]
    Teach {},
}

/// A content script's answer to `relay/insert`: what the chat's editor holds and whether the
/// message left. Read leniently: a tab that answered nothing (closed, reloading) is
/// `InsertOutcome::default()`, nothing written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InsertOutcome {
    /// The editor holds the text, line by line as meant.
    pub inserted: bool,
    /// The message left: the editor emptied and a new user turn with the text appeared.
    pub submitted: bool,
    /// Text is in the editor but not as meant (line breaks or lines lost even after the
    /// fallbacks): writing it again would only add a second damaged copy.
    pub partial: bool,
    /// What went wrong, for the user (what was lost, why the send did not take).
    pub error: Option<String>,
}

/// The tab messages: wire name, JavaScript type of its fields and of the answer, and doc.
pub struct TabMessageSpec {
    /// The `type` field.
    pub name: &'static str,
    /// JavaScript (JSDoc) type of the fields without `type`.
    pub js_fields: &'static str,
    /// JavaScript (JSDoc) type of the content script's answer.
    pub js_answer: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// Every message the core sends to a tab, with the shapes [`TabMessage`] serializes to.
pub const TAB_MESSAGES: &[TabMessageSpec] = &[
    TabMessageSpec {
        name: "relay/insert",
        js_fields: "{text: string, submit: boolean, attachments?: Attachment[]}",
        js_answer: "InsertOutcome",
        doc: "Write text (and attach files) into the chat input; submit when asked.",
    },
    TabMessageSpec {
        name: "relay/check",
        js_fields: "{}",
        js_answer: "SiteCheck",
        doc: "Report which adapter selectors match on the page.",
    },
    TabMessageSpec {
        name: "relay/calls",
        js_fields: "{calls: CallRecord[]}",
        js_answer: "void",
        doc: "Changed call records of this tab, for its call cards.",
    },
    TabMessageSpec {
        name: "relay/teach",
        js_fields: "{}",
        js_answer: "{started: boolean}",
        doc: "Start \"Teach this page\": the user picks the input, the send button and a reply.",
    },
];

impl TabMessage {
    /// The wire name (`type`).
    pub fn name(&self) -> &'static str {
        match self {
            TabMessage::Insert { .. } => "relay/insert",
            TabMessage::Check {} => "relay/check",
            TabMessage::Calls { .. } => "relay/calls",
            TabMessage::Teach {} => "relay/teach",
        }
    }

    /// The JSON the tab receives.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
