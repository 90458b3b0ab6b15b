//! Messages the core sends to a chat tab's content script (`chrome.tabs.sendMessage`), the other
//! direction of the contract, declared like the requests ([`messages!`]): each with its fields
//! and the type of the content script's answer (`extension/content/main.js` dispatches them
//! through the generated `TabHandlers`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::views::{SiteCheck, Started};
use super::Role;
use crate::policy::CallRecord;
use crate::result::{AttachFailure, Attachment};

/// No role sends these to the core: the core sends them.
const CORE: &[Role] = &[];

messages! {
    /// One message to a chat tab, `{"type": "<name>", ...fields}`.
    #[non_exhaustive]
    enum TabMessage, specs TAB_MESSAGES, answers tab_answers;

    Insert = "relay/insert", roles: CORE,
        doc: "Write text (and attach files) into the chat input; submit when asked.",
        answer: InsertOutcome, {
            text: String,
            submit: bool,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            attachments: Vec<Attachment>,
            /// The text to write instead when the page did not take the attachments: it says
            /// they are missing (the core's words; the content script only reports which).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            without_files: Option<String>,
        }
    Check = "relay/check", roles: CORE,
        doc: "Report which adapter selectors match on the page.",
        answer: SiteCheck, {}
    Calls = "relay/calls", roles: CORE,
        doc: "Changed call records of this tab, for its call cards.",
        answer: (), { calls: Vec<CallRecord> }
    Teach = "relay/teach", roles: CORE,
        doc: "Start \"Teach this page\": the user picks the input, the send button and a reply.",
        answer: Started, {}
    Submit = "relay/submit", roles: CORE,
        doc: "Send the chat's message now, if its input still holds this text (results written earlier, at the end of the delay before auto-send).",
        answer: SubmitOutcome, { text: String }
}

/// A content script's answer to `relay/submit`. Read leniently: no answer is not sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct SubmitOutcome {
    /// The message left: the editor let go of the text and a new user turn appeared.
    pub submitted: bool,
    /// Why not, for the user (the text is no longer in the input, the send did not take).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A content script's answer to `relay/insert`: what the chat's editor holds and whether the
/// message left. Read leniently: a tab that answered nothing (closed, reloading) is
/// `InsertOutcome::default()`, nothing written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct InsertOutcome {
    /// The editor holds the text, line by line as meant.
    pub inserted: bool,
    /// The message left: the editor emptied and a new user turn with the text appeared.
    pub submitted: bool,
    /// Text is in the editor but not as meant (line breaks or lines lost even after the
    /// fallbacks): writing it again would only add a second damaged copy.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub partial: bool,
    /// What went wrong, for the user (what was lost, why the send did not take).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The write path that took the text (`native-setter`, `paste`, `chip`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// How many files were attached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attached: Option<u32>,
    /// Whether the site showed the attached files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Why the files were not attached (then the text written is the message's
    /// `withoutFiles`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attach_failure: Option<AttachFailure>,
}

impl TabMessage {
    /// The JSON the tab receives.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
