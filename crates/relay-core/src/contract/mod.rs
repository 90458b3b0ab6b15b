//! The message contract between the core (in the service worker), content scripts and the side
//! panel: every message, who may send it, its typed fields, the envelope of every answer, the
//! messages the core sends to tabs, the storage schema and the built-in sites' hosts.
//!
//! This module is the single source of truth. `cargo xtask codegen` writes its mirrors from it:
//! `extension/contract.js` (names, roles, tab messages, storage keys, JSDoc typedefs), the
//! manifest's `content_scripts[0].matches` and `host_permissions`, and the `HOSTS` block of
//! `extension/content/sites.js`; `cargo xtask codegen --check` (a step of `cargo xtask test`)
//! fails when any of them is stale.
//!
//! - [`request`]: [`Request`], one variant per message, and [`MESSAGES`] (names, roles, docs).
//! - [`tab`]: [`TabMessage`], what the core sends to a chat tab's content script.
//! - [`storage`]: the `chrome.storage` keys and their areas.
//! - [`sites`]: the built-in chat sites and their hosts.
//! - [`error`]: [`ErrorBody`] and [`ErrorKind`], every kind of error as one enum.
//!
//! A request is a JSON object `{"type": "<name>", ...fields}`. An answer is either
//! `{"ok": true, "data": ...}` or `{"ok": false, "error": {"kind", "message", "hint"}}`.
//! Senders are classified by the service worker from Chrome's `MessageSender` (never from
//! anything inside the message): extension pages (side panel, options) are [`Role::Page`];
//! content scripts of this extension in a chat tab are [`Role::Content`]. Anything else (web
//! pages, other extensions) is dropped before it reaches the core. A content script's chat is
//! its tab plus its page's current URL: every content message carries `url` (`location.href`),
//! taken only within the sender's origin ([`crate::app::content_chat`]), because Chrome's sender
//! URL does not follow in-page navigations.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Declares one direction of the contract from one list: the enum of its messages (tagged by
/// `type`), its table of [`MessageSpec`]s, `name()`, the type of each message's answer (module
/// `$answers`, one alias per variant), and, with the feature `ts`, `typescript()`: the TypeScript
/// of each message's fields and answer, which `cargo xtask codegen` writes as JSDoc typedefs.
///
/// Each message's fields are also a struct of their own (module `fields`: the same fields with
/// the same attributes), and the enum is read through them: the `type` names the struct, which
/// then reads the whole object. serde's derive for an internally tagged enum would buffer every
/// message into its `Content` tree first and instantiate each field type's deserializer a second
/// time for that tree; through the structs, every type has one deserializer in the wasm module
/// (`crate::json_value::from_value`'s, the one storage and servers' answers use): 119 KB less code,
/// 3.5% off the gzipped module (BENCHMARKS.md, "Module size"). With `ts`, the same structs give
/// the generated types, so they are the shape serde reads.
macro_rules! messages {
    (
        $(#[$emeta:meta])*
        enum $enum:ident, specs $specs:ident, answers $answers:ident;
        $(
            $variant:ident = $name:literal, roles: $roles:expr, doc: $doc:literal, answer: $answer:ty,
            { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
        )*
    ) => {
        $(#[$emeta])*
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum $enum {
            $(
                #[doc = $doc]
                #[serde(rename = $name, rename_all = "camelCase")]
                $variant { $( $(#[$fmeta])* $field: $ty ),* },
            )*
        }

        /// Every message of this direction, in declaration order.
        pub const $specs: &[$crate::contract::MessageSpec] = &[
            $( $crate::contract::MessageSpec {
                name: $name,
                roles: $roles,
                #[cfg(feature = "ts")]
                doc: $doc,
            }, )*
        ];

        impl $enum {
            /// The wire name (`type`) of this message.
            pub fn name(&self) -> &'static str {
                match self {
                    $( $enum::$variant { .. } => $name, )*
                }
            }

            /// Reads a message `{"type": name, ...fields}`: the fields through the struct its
            /// `type` names; members it does not name are ignored, as serde does.
            pub fn from_json(message: Value) -> Result<Self, serde_json::Error> {
                use serde::de::Error as _;
                let name = match message.get("type") {
                    Some(Value::String(name)) => name.clone(),
                    Some(_) => return Err(serde_json::Error::custom("`type` must be a string")),
                    None => return Err(serde_json::Error::missing_field("type")),
                };
                match name.as_str() {
                    $( $name => {
                        let fields::$variant { $( $field ),* } = crate::json_value::from_value(message)?;
                        Ok($enum::$variant { $( $field ),* })
                    } )*
                    other => Err(serde_json::Error::unknown_variant(other, &[$( $name ),*])),
                }
            }
        }

        impl<'de> Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                Self::from_json(Value::deserialize(d)?).map_err(D::Error::custom)
            }
        }

        /// Each message's fields as a struct of their own, with the attributes the enum's
        /// variant has: what [`from_json`](Self::from_json) reads through, and with `ts` what
        /// the TypeScript is generated from.
        #[allow(dead_code, non_snake_case, clippy::all)]
        mod fields {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[derive(Deserialize)]
                #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
                #[serde(rename_all = "camelCase")]
                pub struct $variant { $( $(#[$fmeta])* pub $field: $ty ),* }
            )*
        }

        /// The answer of each message, by variant: the type its `data` serializes from.
        pub mod $answers {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[doc = $doc]
                pub type $variant = $answer;
            )*
        }

        /// The TypeScript of each message's fields (without `type`) and answer; the named
        /// types they use are collected in `shapes`.
        #[cfg(feature = "ts")]
        pub fn typescript(shapes: &mut $crate::contract::ts::Shapes) -> Vec<$crate::contract::ts::MessageTs> {
            vec![ $( shapes.message::<fields::$variant, $answer>($name), )* ]
        }
    };
}

pub mod error;
pub mod local;
pub mod request;
pub mod sites;
pub mod storage;
pub mod tab;
#[cfg(feature = "ts")]
pub mod ts;
pub mod views;

pub use error::{ErrorBody, ErrorCause, ErrorKind};
pub use request::{ChatRef, Request, MESSAGES};
pub use tab::{TabMessage, TAB_MESSAGES};

/// Who sent a message, as the service worker established from `chrome.runtime.MessageSender`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// Roles allowed to send it to the core (none for the core's own messages to tabs).
    pub roles: &'static [Role],
    /// What it does and what it answers: for the generated mirrors only (`ts`), so the shipped
    /// module does not carry the contract's documentation.
    #[cfg(feature = "ts")]
    pub doc: &'static str,
}

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
    #[error("message '{name}' is malformed: {reason}")]
    Invalid { name: String, reason: String },
}

/// Checks a raw message against the contract: its name exists, the role may send it, and its
/// fields have the contract's shape. Returns the typed request.
pub fn admit(message: &Value, role: Role) -> Result<Request, ContractError> {
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
    Request::from_json(message.clone()).map_err(|e| ContractError::Invalid {
        name: name.to_owned(),
        reason: e.to_string(),
    })
}

impl From<ContractError> for ErrorBody {
    fn from(e: ContractError) -> Self {
        let kind = match e {
            ContractError::Malformed => ErrorKind::Malformed,
            ContractError::Unknown(_) => ErrorKind::UnknownMessage,
            ContractError::Forbidden { .. } => ErrorKind::Forbidden,
            ContractError::Invalid { .. } => ErrorKind::InvalidArgument,
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
                .map(|r| r.name())
                .map_err(|e| ErrorBody::from(e).kind.as_str());
            assert_eq!(got, want, "{msg} from {role:?}");
        }
    }

    #[test]
    fn every_message_has_its_variant() {
        // Fields whose type has no "absent" (an enum without a default).
        let required = [("activity/decide", json!({"decision": "run"}))];
        for m in MESSAGES {
            let role = m.roles[0];
            let mut message = required
                .iter()
                .find(|(name, _)| *name == m.name)
                .map_or_else(|| json!({}), |(_, fields)| fields.clone());
            message["type"] = json!(m.name);
            let got = admit(&message, role).map(|r| r.name());
            assert_eq!(got, Ok(m.name), "{}", m.name);
        }
    }

    #[test]
    fn fields_are_typed_leniently_and_extra_fields_accepted() {
        let cases = [
            (
                json!({"type": "servers/remove", "id": "a", "extra": [1]}),
                Request::ServersRemove { id: "a".into() },
            ),
            // A wrong type reads as empty: the handler names the missing field.
            (
                json!({"type": "servers/remove", "id": 5}),
                Request::ServersRemove { id: String::new() },
            ),
            (
                json!({"type": "servers/test"}),
                Request::ServersTest { id: String::new() },
            ),
            (
                json!({"type": "chat/get", "chat": {"tabId": 3, "url": "https://x/"}}),
                Request::ChatGet {
                    chat: Some(ChatRef {
                        tab_id: Some(3),
                        url: Some("https://x/".into()),
                    }),
                },
            ),
            (
                json!({"type": "chat/get", "chat": "tab 3"}),
                Request::ChatGet { chat: None },
            ),
            (
                json!({"type": "page/observe", "page": "p1", "streaming": true, "url": "https://x/",
                       "turns": [{"h": 1, "text": "t"}, {"h": 2, "user": true}]}),
                Request::PageObserve {
                    observation: crate::page::Observation {
                        page: "p1".into(),
                        streaming: true,
                        turns: vec![
                            crate::page::TurnSeen {
                                h: 1,
                                text: Some("t".into()),
                                ..Default::default()
                            },
                            crate::page::TurnSeen {
                                h: 2,
                                user: true,
                                ..Default::default()
                            },
                        ],
                        ..Default::default()
                    },
                },
            ),
        ];
        for (msg, want) in cases {
            let role =
                spec(msg["type"].as_str().unwrap_or_default()).map_or(Role::Page, |s| s.roles[0]);
            assert_eq!(admit(&msg, role), Ok(want), "{msg}");
        }
    }

    #[test]
    fn tab_messages_serialize_to_their_names() {
        let cases = [
            (
                TabMessage::Insert {
                    text: "hi".into(),
                    submit: true,
                    attachments: vec![],
                    without_files: None,
                },
                json!({"type": "relay/insert", "text": "hi", "submit": true}),
            ),
            (TabMessage::Check {}, json!({"type": "relay/check"})),
            (
                TabMessage::Calls { calls: vec![] },
                json!({"type": "relay/calls", "calls": []}),
            ),
        ];
        for (m, want) in cases {
            assert_eq!(m.to_value(), want);
            assert!(
                TAB_MESSAGES.iter().any(|t| t.name == m.name()),
                "{}",
                m.name()
            );
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
