//! Results of protocol 2026-07-28 that ask for input before the request can complete
//! (`resultType: "input_required"`, SEP-2322 multi-round-trip requests): the session answers
//! each input request and sends the request again, under a new JSON-RPC id, with
//! `inputResponses` and the server's `requestState` echoed unchanged (and none when the server
//! sent none). The state belongs to that one call: no other request ever carries it. An
//! elicitation among the input requests is the user's to answer when the client declares
//! elicitation: it goes to the driver like a 2025 server request, and the call waits.

use serde_json::{json, Map, Value};

use super::state::AwaitingInput;
use super::{CallId, Session, SessionEvent};
use crate::client::error::ClientError;
use crate::client::jsonrpc::RequestId;

/// Most rounds of input one request may go through before the session gives up on it.
pub(super) const MAX_INPUT_ROUNDS: u32 = 8;

/// The id a [`SessionEvent::Request`] carries for an input request of an `input_required`
/// result (which has a key, not a JSON-RPC id): `input/<call>/<key>`.
const INPUT_ID: &str = "input/";

impl Session {
    /// A result said `input_required`: answer its `inputRequests` and send the call again.
    /// With elicitation declared, an elicitation among them goes to the driver first
    /// ([`SessionEvent::Request`]); the call is sent again once every one is answered
    /// ([`Session::respond`]).
    pub(super) fn input_required(&mut self, call: CallId, result: Value, now_ms: u64) {
        let url = self.error_url();
        let elicitation = self.cfg.elicitation;
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let answered = if c.input_rounds >= MAX_INPUT_ROUNDS {
            Err(format!(
                "the server asked for input more than {MAX_INPUT_ROUNDS} times for one request; stopped"
            ))
        } else {
            input_responses(&result, elicitation)
        };
        let (responses, asks) = match answered {
            Ok(answered) => answered,
            Err(message) => {
                self.complete_call(call, Err(ClientError::Protocol { url, message }), now_ms);
                return;
            }
        };
        let mut round = AwaitingInput {
            responses,
            state: result.get("requestState").cloned(),
            ..AwaitingInput::default()
        };
        for (key, params) in asks {
            self.events.push_back(SessionEvent::Request {
                id: RequestId::String(format!("{INPUT_ID}{}/{key}", call.0)),
                method: "elicitation/create".to_owned(),
                params,
                call: Some(call),
            });
            round.waiting.insert(key);
        }
        self.resume_with(call, round, now_ms);
    }

    /// An answer to an input request of an `input_required` round; false when `id` is not one.
    pub(super) fn input_answered(&mut self, id: &RequestId, answer: Value, now_ms: u64) -> bool {
        let RequestId::String(s) = id else {
            return false;
        };
        let Some((call, key)) = s
            .strip_prefix(INPUT_ID)
            .and_then(|rest| rest.split_once('/'))
            .and_then(|(c, k)| Some((CallId(c.parse().ok()?), k.to_owned())))
        else {
            return false;
        };
        let round = self.calls.get_mut(&call).and_then(|c| c.awaiting.take());
        if let Some(mut round) = round {
            if round.waiting.remove(&key) {
                round.responses.insert(key, answer);
            }
            self.resume_with(call, round, now_ms);
        }
        true
    }

    /// Sends the call again once its round has every answer; keeps waiting otherwise.
    fn resume_with(&mut self, call: CallId, round: AwaitingInput, now_ms: u64) {
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        if !round.waiting.is_empty() {
            c.awaiting = Some(round);
            return;
        }
        let mut input = Map::new();
        input.insert("inputResponses".to_owned(), Value::Object(round.responses));
        if let Some(state) = round.state {
            input.insert("requestState".to_owned(), state);
        }
        c.input = Some(input);
        c.input_rounds += 1;
        c.attempt = 1;
        c.first_try_at = now_ms;
        self.stats.input_rounds += 1;
        self.send_call(call, now_ms);
    }
}

/// The answers to an `input_required` result's `inputRequests`, keyed like them, and the
/// elicitations left for the driver (with `elicitation`), by key with their params.
#[allow(clippy::type_complexity)]
fn input_responses(
    result: &Value,
    elicitation: bool,
) -> Result<(Map<String, Value>, Vec<(String, Value)>), String> {
    let requests = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .ok_or("an input_required result has no inputRequests object")?;
    let (mut answers, mut asks) = (Map::new(), Vec::new());
    for (key, request) in requests {
        let method = request.get("method").and_then(Value::as_str);
        if elicitation && method == Some("elicitation/create") {
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            asks.push((key.clone(), params));
        } else {
            answers.insert(key.clone(), answer(request)?);
        }
    }
    Ok((answers, asks))
}

/// What this client answers by itself to a server's input request: an elicitation is declined
/// when the client declared none (nobody was shown anything), and the client exposes no roots.
pub(super) fn answer(request: &Value) -> Result<Value, String> {
    match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => Ok(json!({ "action": "decline" })),
        Some("roots/list") => Ok(json!({ "roots": [] })),
        Some(other) => Err(format!(
            "the server needs an answer to `{other}` first, which this client does not offer"
        )),
        None => Err("an input request has no method".to_owned()),
    }
}
