//! Who may decide what about a call, and which policy changes need the user's explicit
//! confirmation.
//!
//! A content script runs inside a chat page the extension does not control: the page can fake
//! DOM, click anything the content script leaves reachable and send whatever the content script
//! would send. So the rules for a content sender are the narrowest that keep the in-page card
//! useful: it may run or deny a call that waits for the user (pending) or whose outcome is unknown,
//! only in its own chat, and never approve a tool its server declares destructive (that approval
//! belongs to the side panel, an extension page no web page can script). Policy changes such as
//! "always allow" are side-panel only. These rules are decided here, in the core, whatever the
//! content script's own UI does.

use crate::contract::ErrorKind;
use serde_json::Value;

use crate::contract::{ErrorBody, Role};
use crate::model::Tool;

use super::{CallRecord, CallState, ToolPolicy};

/// What the user decided about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum UserDecision {
    /// Run it (a pending call) or run it again (an unknown one).
    Run,
    /// Refuse it.
    Deny,
    /// Run it and allow the tool from now on (a policy change).
    Always,
}

/// Why a decision or a policy change was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The sender may not do this at all (a content script outside its narrow rights).
    #[error("{message}")]
    Forbidden { message: String, hint: String },
    /// The call is not in a state this decision applies to.
    #[error("{message}")]
    InvalidState { message: String },
    /// Allowed, but only with the user's explicit confirmation (`confirm: true`).
    #[error("{message}")]
    ConfirmRequired {
        message: String,
        hint: String,
        /// The tool, the detail of the kind's localized text.
        tool: String,
    },
}

impl Refusal {
    /// The stable error kind of the contract.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Refusal::Forbidden { .. } => ErrorKind::Forbidden,
            Refusal::InvalidState { .. } => ErrorKind::InvalidState,
            Refusal::ConfirmRequired { .. } => ErrorKind::ConfirmRequired,
        }
    }

    fn forbidden(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Refusal::Forbidden {
            message: message.into(),
            hint: hint.into(),
        }
    }
}

impl From<Refusal> for ErrorBody {
    fn from(r: Refusal) -> Self {
        let kind = r.kind();
        match r {
            Refusal::Forbidden { message, hint } => ErrorBody::new(kind, message).with_hint(hint),
            Refusal::ConfirmRequired {
                message,
                hint,
                tool,
            } => ErrorBody::new(kind, message)
                .with_hint(hint)
                .with_details(vec![tool]),
            Refusal::InvalidState { message } => ErrorBody::new(kind, message),
        }
    }
}

const PANEL_HINT: &str = "Open the MCP Relay side panel and decide there.";

/// Whether a tool's server declares it destructive. Annotations are untrusted hints: they can
/// only make the extension stricter (a claim of being destructive is believed, a claim of being
/// harmless changes nothing).
pub fn is_destructive(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .is_some_and(|a| a.destructive_hint == Some(true))
}

/// Checks a user's decision about a recorded call. `sender_chat` is the chat of a content
/// sender (its own tab and URL); pages may decide for any chat.
pub fn check_decision(
    role: Role,
    rec: &CallRecord,
    sender_chat: Option<&str>,
    decision: UserDecision,
) -> Result<(), Refusal> {
    if role == Role::Content {
        if decision == UserDecision::Always {
            return Err(Refusal::forbidden(
                "A chat page cannot change a tool's policy.",
                "Change the tool's policy in the side panel's Tools view.",
            ));
        }
        if sender_chat != Some(rec.chat.as_str()) {
            return Err(Refusal::forbidden(
                "This call belongs to another chat.",
                PANEL_HINT,
            ));
        }
        if decision == UserDecision::Run && rec.destructive {
            return Err(Refusal::forbidden(
                format!(
                    "Tool '{}' is marked destructive by its server: approve it in the side panel.",
                    rec.tool
                ),
                PANEL_HINT,
            ));
        }
    }
    let applies = match decision {
        UserDecision::Run | UserDecision::Always => {
            matches!(rec.state, CallState::Pending | CallState::Unknown)
        }
        UserDecision::Deny => rec.state == CallState::Pending,
    };
    if !applies {
        return Err(Refusal::InvalidState {
            message: format!(
                "The call is {} and cannot be {}.",
                state_name(rec.state),
                match decision {
                    UserDecision::Deny => "denied",
                    _ => "run",
                }
            ),
        });
    }
    Ok(())
}

fn state_name(state: CallState) -> String {
    match serde_json::to_value(state) {
        Ok(Value::String(s)) => s,
        _ => format!("{state:?}"),
    }
}

/// The servers a content sender's `prompt/build` may use: its chat's picked servers, or a subset
/// of them. Naming any other configured server is refused (and nothing connects to it).
pub fn content_server_ids(
    requested: Option<Vec<String>>,
    picked: &[String],
) -> Result<Vec<String>, Refusal> {
    match requested {
        None => Ok(picked.to_vec()),
        Some(ids) => {
            if let Some(other) = ids.iter().find(|id| !picked.contains(id)) {
                return Err(Refusal::forbidden(
                    format!("Server '{other}' is not picked for this chat."),
                    "Pick the server for this chat in the side panel.",
                ));
            }
            Ok(ids)
        }
    }
}

/// Checks a policy change the side panel asks for: allowing a tool its server declares
/// destructive needs the user's explicit confirmation.
pub fn policy_change(
    tool: &Tool,
    policy: Option<ToolPolicy>,
    confirm: bool,
) -> Result<(), Refusal> {
    if policy == Some(ToolPolicy::Allow) && is_destructive(tool) && !confirm {
        return Err(Refusal::ConfirmRequired {
            message: format!(
                "Tool '{}' is marked destructive by its server; allowing it lets it run without asking.",
                tool.name
            ),
            hint: "Confirm to allow it anyway.".into(),
            tool: tool.name.clone(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolAnnotations;
    use serde_json::json;

    fn record(chat: &str, state: CallState, destructive: bool) -> CallRecord {
        let mut rec: CallRecord = crate::json_value::from_value(json!({
            "key": format!("{chat}|m|1"), "chat": chat, "messageId": "m", "callId": "1",
            "serverId": "s", "tool": "t", "arguments": {}, "state": state, "seq": 1,
        }))
        .expect("record");
        rec.destructive = destructive;
        rec
    }

    #[test]
    fn content_senders_run_or_deny_waiting_calls_of_their_own_chat_only() {
        use CallState::*;
        use UserDecision::*;
        let own = Some("1|https://chat.example/c/1");
        let chat = "1|https://chat.example/c/1";
        // (role, state, destructive, sender chat, decision, expected kind or "ok")
        type Case<'a> = (
            Role,
            CallState,
            bool,
            Option<&'a str>,
            UserDecision,
            &'a str,
        );
        let cases: &[Case] = &[
            (Role::Content, Pending, false, own, Run, "ok"),
            (Role::Content, Pending, false, own, Deny, "ok"),
            (Role::Content, Unknown, false, own, Run, "ok"),
            (Role::Content, Pending, false, own, Always, "forbidden"),
            (
                Role::Content,
                Pending,
                false,
                Some("2|https://chat.example/c/1"),
                Run,
                "forbidden",
            ),
            (Role::Content, Pending, false, None, Deny, "forbidden"),
            (Role::Content, Pending, true, own, Run, "forbidden"),
            (Role::Content, Pending, true, own, Deny, "ok"),
            (Role::Content, Failed, false, own, Run, "invalid_state"),
            (Role::Content, Limited, false, own, Run, "invalid_state"),
            (Role::Content, Done, false, own, Run, "invalid_state"),
            (Role::Content, Running, false, own, Run, "invalid_state"),
            (Role::Content, Quoted, false, own, Run, "invalid_state"),
            (Role::Page, Pending, true, None, Run, "ok"),
            (Role::Page, Pending, true, None, Always, "ok"),
            (Role::Page, Unknown, false, None, Run, "ok"),
            (Role::Page, Failed, false, None, Run, "invalid_state"),
            (Role::Page, Limited, false, None, Run, "invalid_state"),
            (Role::Page, Denied, false, None, Run, "invalid_state"),
            (Role::Page, Unknown, false, None, Deny, "invalid_state"),
        ];
        for (role, state, destructive, sender, decision, want) in cases {
            let rec = record(chat, *state, *destructive);
            let got = match check_decision(*role, &rec, *sender, *decision) {
                Ok(()) => "ok",
                Err(r) => r.kind().as_str(),
            };
            assert_eq!(
                got, *want,
                "{role:?} {decision:?} on a {state:?} call (destructive {destructive})"
            );
        }
    }

    #[test]
    fn content_prompts_use_only_the_chats_servers() {
        let picked = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(content_server_ids(None, &picked), Ok(picked.clone()));
        assert_eq!(
            content_server_ids(Some(vec!["b".into()]), &picked),
            Ok(vec!["b".to_owned()])
        );
        let err = content_server_ids(Some(vec!["a".into(), "secret".into()]), &picked)
            .expect_err("not picked");
        assert_eq!(err.kind(), "forbidden");
        assert!(err.to_string().contains("secret"));
    }

    #[test]
    fn allowing_a_destructive_tool_needs_confirmation() {
        let tool = |destructive: Option<bool>, read_only: Option<bool>| {
            let mut t: Tool =
                crate::json_value::from_value(json!({"name": "t", "inputSchema": {}}))
                    .expect("tool");
            t.annotations = Some(ToolAnnotations {
                destructive_hint: destructive,
                read_only_hint: read_only,
                ..Default::default()
            });
            t
        };
        let allow = Some(ToolPolicy::Allow);
        let kind = |r: Result<(), Refusal>| r.err().map(|e| e.kind().as_str());
        assert_eq!(
            kind(policy_change(&tool(Some(true), None), allow, false)),
            Some("confirm_required")
        );
        assert_eq!(
            kind(policy_change(&tool(Some(true), Some(true)), allow, false)),
            Some("confirm_required"),
            "a contradictory read-only claim does not loosen a destructive one"
        );
        assert_eq!(
            kind(policy_change(&tool(Some(true), None), allow, true)),
            None
        );
        assert_eq!(
            kind(policy_change(
                &tool(Some(true), None),
                Some(ToolPolicy::Ask),
                false
            )),
            None
        );
        assert_eq!(
            kind(policy_change(&tool(None, Some(true)), allow, false)),
            None
        );
    }
}
