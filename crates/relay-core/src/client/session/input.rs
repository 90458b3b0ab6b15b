//! Results of protocol 2026-07-28 that ask for input before the request can complete
//! (`resultType: "input_required"`, SEP-2322 multi-round-trip requests): the session answers
//! each input request and sends the request again, under a new JSON-RPC id, with
//! `inputResponses` and the server's `requestState` echoed unchanged (and none when the server
//! sent none). The state belongs to that one call: no other request ever carries it.

use serde_json::{json, Map, Value};

use super::{CallId, Session};
use crate::client::error::ClientError;

/// Most rounds of input one request may go through before the session gives up on it.
pub(super) const MAX_INPUT_ROUNDS: u32 = 8;

impl Session {
    /// A result said `input_required`: answer its `inputRequests` and send the call again.
    pub(super) fn input_required(&mut self, call: CallId, result: Value, now_ms: u64) {
        let url = self.error_url();
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        let answered = if c.input_rounds >= MAX_INPUT_ROUNDS {
            Err(format!(
                "the server asked for input more than {MAX_INPUT_ROUNDS} times for one request; stopped"
            ))
        } else {
            input_responses(&result)
        };
        let responses = match answered {
            Ok(responses) => responses,
            Err(message) => {
                self.complete_call(call, Err(ClientError::Protocol { url, message }), now_ms);
                return;
            }
        };
        let mut input = Map::new();
        input.insert("inputResponses".to_owned(), Value::Object(responses));
        if let Some(state) = result.get("requestState") {
            input.insert("requestState".to_owned(), state.clone());
        }
        c.input = Some(input);
        c.input_rounds += 1;
        c.attempt = 1;
        c.first_try_at = now_ms;
        self.stats.input_rounds += 1;
        self.send_call(call, now_ms);
    }
}

/// The answers to an `input_required` result's `inputRequests`, keyed like them.
fn input_responses(result: &Value) -> Result<Map<String, Value>, String> {
    let requests = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .ok_or("an input_required result has no inputRequests object")?;
    requests
        .iter()
        .map(|(key, request)| Ok((key.clone(), answer(request)?)))
        .collect()
}

/// What this client answers to a server's input request. No person is asked here: an
/// elicitation is declined (the client declares no elicitation capability, so nothing was
/// shown to anyone), and the client exposes no roots.
fn answer(request: &Value) -> Result<Value, String> {
    match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => Ok(json!({ "action": "decline" })),
        Some("roots/list") => Ok(json!({ "roots": [] })),
        Some(other) => Err(format!(
            "the server needs an answer to `{other}` first, which this client does not offer"
        )),
        None => Err("an input request has no method".to_owned()),
    }
}
