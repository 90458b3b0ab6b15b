//! Servers' questions to the user (MCP elicitation), as the extension handles them: a server's
//! `elicitation/create` waits here until the user answers it in the side panel (a form built
//! from its schema, or a page to open), declines, dismisses it, or nobody answers within
//! [`ELICITATION_TIMEOUT_MS`] (then it is cancelled). The pending requests are mirrored in
//! `chrome.storage.session` ([`ELICITATIONS_KEY`]) so that every open side panel hears of them
//! at once; the panel then asks the app for the list, which is the truth. A worker restart ends
//! the streams they came on, so they do not survive it (the app starts with none, whatever the
//! mirror still says).
//! What to answer is decided here (`crate::elicitation`: SEP-1034 defaults, the content checked
//! against the schema, in the second module, `crate::rare`); the driver only sends it
//! ([`Effect::Respond`]).

use crate::contract::ErrorKind;
use serde_json::{json, Map, Value};

use crate::client::jsonrpc::RequestId;
use crate::contract::views::{ElicitationView, Question};
use crate::contract::ErrorBody;
use crate::elicitation::{cancel, decline};
use crate::rare::ElicitAcceptCall;

use super::{App, Effect};

pub use crate::contract::storage::ELICITATIONS_KEY;

/// How long a question waits for the user before it is cancelled.
pub const ELICITATION_TIMEOUT_MS: u64 = 10 * 60 * 1000;

/// A server's question waiting for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    pub server: String,
    pub request: RequestId,
    /// The question as the second module read it (`ElicitRequest::parse`, serialized): the
    /// side panel's view of it, of which the app reads only the `mode`.
    pub asked: Value,
    pub asked_at_ms: u64,
    /// The chat call (its ledger key) the question came in the middle of, whose card says to
    /// answer in the side panel.
    pub call: Option<String>,
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorKind::InvalidArgument, message)
}

/// What an answer comes to.
#[derive(Debug)]
pub enum ElicitAnswer {
    /// Answered: the effects (the server's response among them).
    Done(Vec<Effect>),
    /// An accepted form, to check first (in the second module, [`crate::rare`]); its result
    /// goes to [`App::elicitation_checked`].
    Check(ElicitAcceptCall),
}

impl App {
    /// A server asked the user something (`asked`: its params as read, in the second module,
    /// by `ElicitRequest::parse`, serialized): it waits for an answer (the panel hears of it, and so does
    /// the card of `call`, the chat call it came in the middle of, if any), or, when the request
    /// is unusable, is answered with an error at once. Returns the question's key (the driver
    /// cancels it after [`ELICITATION_TIMEOUT_MS`]).
    pub fn elicitation_asked(
        &mut self,
        server: &str,
        request: RequestId,
        asked: Result<Value, ErrorBody>,
        now_ms: u64,
        call: Option<&str>,
    ) -> (Option<String>, Vec<Effect>) {
        let asked = match asked {
            Ok(asked) => asked,
            Err(e) => {
                let effect = Effect::Respond {
                    server: server.to_owned(),
                    request,
                    result: Err(e.message),
                };
                return (None, vec![effect]);
            }
        };
        self.next_elicitation += 1;
        let key = format!("e{}", self.next_elicitation);
        let call = call.filter(|k| self.ledger.calls.contains_key(*k));
        let elicitation = Elicitation {
            server: server.to_owned(),
            request,
            asked,
            asked_at_ms: now_ms,
            call: call.map(str::to_owned),
        };
        self.elicitations.insert(key.clone(), elicitation);
        let mut effects = vec![Effect::SaveElicitations];
        if let Some(call) = call {
            let name = self.server_name(server).to_owned();
            effects.extend(self.mark_asking(call, Some(name)));
        }
        (Some(key), effects)
    }

    fn server_name<'a>(&'a self, id: &'a str) -> &'a str {
        let server = self.config.servers.iter().find(|s| s.id == id);
        server.map_or(id, |s| s.name.as_str())
    }

    /// Sets (or clears) what a call's card says about a question, and tells its chat.
    fn mark_asking(&mut self, call: &str, asking: Option<String>) -> Vec<Effect> {
        let Some(record) = self.ledger.calls.get_mut(call) else {
            return Vec::new();
        };
        record.asking = asking;
        let chat = record.chat.clone();
        let key = call.to_owned();
        vec![Effect::SaveLedger, Effect::Notify { chat, key }]
    }

    /// The user's answer to question `key`: `accept` (with the form's `content`; for a page,
    /// after opening it), `decline` or `cancel`. An accepted form is checked first
    /// ([`ElicitAnswer::Check`]).
    pub fn elicitation_answer(
        &mut self,
        key: &str,
        action: &str,
        content: Option<Map<String, Value>>,
    ) -> Result<ElicitAnswer, ErrorBody> {
        let e = self.waiting(key)?;
        let result = match action {
            // A page to open: accepted once the user opened it.
            "accept" if e.asked.get("mode").and_then(Value::as_str) == Some("url") => {
                json!({"action": "accept"})
            }
            "accept" => {
                return Ok(ElicitAnswer::Check(ElicitAcceptCall {
                    question: e.asked.clone(),
                    content: content.unwrap_or_default(),
                }))
            }
            "decline" => decline(),
            "cancel" => cancel(),
            other => return Err(invalid(format!("unknown answer '{other}'"))),
        };
        Ok(ElicitAnswer::Done(self.close_elicitation(key, result)))
    }

    /// What came of checking an accepted form of question `key`: the content is sent; a form
    /// that does not fit the schema is refused with the field and the problem, and the
    /// question stays open.
    pub fn elicitation_checked(
        &mut self,
        key: &str,
        checked: Result<Value, ErrorBody>,
    ) -> Result<Vec<Effect>, ErrorBody> {
        self.waiting(key)?;
        Ok(self.close_elicitation(key, checked?))
    }

    fn waiting(&self, key: &str) -> Result<&Elicitation, ErrorBody> {
        self.elicitations.get(key).ok_or_else(|| {
            invalid(format!(
                "no question '{key}' is waiting (answered, or it expired)"
            ))
        })
    }

    /// Cancels question `key` if nobody answered it by `now_ms`.
    pub fn elicitation_expired(&mut self, key: &str, now_ms: u64) -> Vec<Effect> {
        match self.elicitations.get(key) {
            Some(e) if now_ms >= e.asked_at_ms.saturating_add(ELICITATION_TIMEOUT_MS) => {
                self.close_elicitation(key, cancel())
            }
            _ => Vec::new(),
        }
    }

    fn close_elicitation(&mut self, key: &str, result: Value) -> Vec<Effect> {
        let Some(e) = self.elicitations.remove(key) else {
            return Vec::new();
        };
        let mut effects = vec![
            Effect::Respond {
                server: e.server,
                request: e.request,
                result: Ok(result),
            },
            Effect::SaveElicitations,
        ];
        if let Some(call) = &e.call {
            effects.extend(self.mark_asking(call, None));
        }
        effects
    }

    /// The questions waiting, as the side panel shows them: `[{key, serverId, serverName,
    /// askedAtMs, expiresAtMs, mode, message, fields? | url?}]`.
    pub fn elicitations_view(&self) -> Vec<ElicitationView> {
        self.elicitations
            .iter()
            .map(|(key, e)| ElicitationView {
                asked: Question(e.asked.clone()),
                key: key.clone(),
                server_id: e.server.clone(),
                server_name: self.server_name(&e.server).to_owned(),
                asked_at_ms: e.asked_at_ms,
                expires_at_ms: e.asked_at_ms.saturating_add(ELICITATION_TIMEOUT_MS),
            })
            .collect()
    }
}
