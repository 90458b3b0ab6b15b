//! Streams and resumption: messages arriving on SSE streams, server notifications and
//! requests, resumption of a cut stream (`retry:` + `Last-Event-ID`) and the listen GET stream.

use serde_json::{json, Value};

use super::exchange::HeaderKind;
use super::state::*;
use super::{CallId, ListKind, Session, SessionEvent, Transport};
use crate::client::error::ClientError;
use crate::client::http::{ExchangeId, HttpMethod};
use crate::client::jsonrpc::{ErrorCode, ErrorObject, Message, Notification, RequestId};
use crate::sse::SseDecoder;

impl Session {
    pub(super) fn handle_sse_event(
        &mut self,
        exchange: ExchangeId,
        event: String,
        data: String,
        now_ms: u64,
    ) {
        let purpose = self.exchanges.get(&exchange).map(|e| e.purpose.clone());
        if purpose == Some(Purpose::Listen) {
            self.listen_failures = 0;
        }
        if event == "endpoint" && purpose == Some(Purpose::LegacyStream) {
            self.legacy_endpoint(&data, now_ms);
            return;
        }
        if event != "message" || data.trim().is_empty() {
            // Priming events (an id and no data) and unknown event types carry no message.
            return;
        }
        self.note_received(data.as_bytes());
        match Message::parse_all(data.as_bytes()) {
            Ok(messages) => {
                for message in messages {
                    self.handle_message(message, Some(exchange), now_ms);
                }
            }
            Err(e) => {
                // Only a stream dedicated to one request can blame it; on shared streams the
                // request will time out instead.
                if let Some(Purpose::Request(id) | Purpose::Resume(id)) = purpose {
                    let url = self.error_url();
                    let error = ClientError::Protocol {
                        url,
                        message: format!("malformed JSON-RPC message: {e}"),
                    };
                    self.fail_pending(&id, exchange, error, now_ms);
                    self.abort_exchange(Some(exchange));
                }
            }
        }
    }

    pub(super) fn handle_message(
        &mut self,
        message: Message,
        source: Option<ExchangeId>,
        now_ms: u64,
    ) {
        match message {
            Message::Response(response) => self.answer(&response.id, Ok(response.result), now_ms),
            Message::Error(error) => match error.id {
                Some(id) => self.answer(&id, Err(error.error), now_ms),
                None => {
                    // An error without an id can only be attributed to a dedicated stream.
                    let purpose = source
                        .and_then(|s| self.exchanges.get(&s))
                        .map(|e| e.purpose.clone());
                    if let Some(Purpose::Request(id) | Purpose::Resume(id)) = purpose {
                        self.answer(&id, Err(error.error), now_ms);
                    }
                }
            },
            Message::Request(request) => {
                let result = match request.method.as_str() {
                    "ping" => Ok(json!({})),
                    "elicitation/create" if self.cfg.elicitation => {
                        self.hold_deadlines();
                        let call = self.call_of_stream(source);
                        self.events.push_back(SessionEvent::Request {
                            id: request.id,
                            method: request.method,
                            params: request.params.unwrap_or(Value::Null),
                            call,
                        });
                        return;
                    }
                    other => Err(ErrorObject::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        format!(
                            "method not found: {other} (this client offers no sampling or roots)"
                        ),
                    )),
                };
                self.reply(request.id, result);
            }
            Message::Notification(notification) => self.handle_notification(notification, now_ms),
        }
    }

    /// The call whose answer the stream `source` carries (a POST's, or a GET resuming it).
    fn call_of_stream(&self, source: Option<ExchangeId>) -> Option<CallId> {
        let purpose = &self.exchanges.get(&source?)?.purpose;
        let (Purpose::Request(RequestId::Number(n)) | Purpose::Resume(RequestId::Number(n))) =
            purpose
        else {
            return None;
        };
        match self.rpcs.get(n)?.owner {
            Owner::Call(call) => Some(call),
            Owner::Handshake | Owner::Setting => None,
        }
    }

    pub(super) fn handle_notification(&mut self, n: Notification, now_ms: u64) {
        let params = n.params.unwrap_or(Value::Null);
        match n.method.as_str() {
            "notifications/progress" => {
                let token = match params.get("progressToken") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => return,
                };
                let Some(&call) = self.progress_tokens.get(&token) else {
                    return;
                };
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
                    return;
                };
                let total = params.get("total").and_then(Value::as_f64);
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.extend_deadline(call, now_ms);
                self.events.push_back(SessionEvent::Progress {
                    call,
                    progress,
                    total,
                    message,
                });
            }
            "notifications/tools/list_changed" => {
                self.tools.invalidate();
                self.events
                    .push_back(SessionEvent::ListChanged(ListKind::Tools));
            }
            "notifications/prompts/list_changed" => self
                .events
                .push_back(SessionEvent::ListChanged(ListKind::Prompts)),
            "notifications/resources/list_changed" => {
                self.events
                    .push_back(SessionEvent::ListChanged(ListKind::Resources));
            }
            "notifications/message" => {
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned();
                let logger = params
                    .get("logger")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                self.events.push_back(SessionEvent::Log {
                    level,
                    logger,
                    data,
                });
            }
            // The server cancelling one of its requests to us: we answer them at once.
            "notifications/cancelled" => {}
            _ => {
                let params = (!params.is_null()).then_some(params);
                self.events.push_back(SessionEvent::Notification {
                    method: n.method,
                    params,
                });
            }
        }
    }

    pub(super) fn open_listen(&mut self) {
        if self.conn != Conn::Ready || self.transport != Some(Transport::Streamable) {
            self.listen = Listen::Off;
            return;
        }
        let url = self.request_url();
        let headers = self.headers(HeaderKind::Stream {
            last_event_id: self.listen_last_event_id.as_deref(),
        });
        let exchange = self.send(Purpose::Listen, HttpMethod::Get, url, headers, None, true);
        self.listen = Listen::Open(exchange);
    }

    /// The GET stream ended or failed: reconnect after the server's `retry:` delay (or with
    /// backoff after failures), and give up after a few failures in a row.
    pub(super) fn listen_closed(
        &mut self,
        decoder: Option<&SseDecoder>,
        failed: bool,
        now_ms: u64,
    ) {
        if let Some(decoder) = decoder {
            if let Some(id) = decoder.last_event_id() {
                self.listen_last_event_id = Some(id.to_owned());
            }
            if let Some(retry) = decoder.retry_ms() {
                self.listen_retry_ms = Some(retry);
            }
        }
        if failed {
            self.listen_failures += 1;
        }
        if self.listen_failures >= 5 || self.conn != Conn::Ready {
            self.listen = Listen::Disabled;
            return;
        }
        let delay = if failed {
            self.cfg
                .retry
                .delay_ms(self.listen_failures + 1, self.jitter.next_unit())
        } else {
            self.listen_retry_ms
                .unwrap_or(self.cfg.default_reconnect_ms)
        };
        self.listen = Listen::Waiting {
            until: now_ms + delay,
        };
    }

    /// A POST's event stream (or a GET resuming it) ended without the answer.
    pub(super) fn stream_ended(
        &mut self,
        id: &RequestId,
        exchange: ExchangeId,
        decoder: &SseDecoder,
        reason: &str,
        now_ms: u64,
    ) {
        let default_reconnect = self.cfg.default_reconnect_ms;
        let max_resumptions = self.cfg.max_resumptions;
        let streamable = self.transport_in_use() == Some(Transport::Streamable);
        let Some(rpc) = self.rpc_of_mut(id) else {
            return;
        };
        if rpc.exchange != Some(exchange) {
            return;
        }
        if let Some(last) = decoder.last_event_id() {
            rpc.last_event_id = Some(last.to_owned());
        }
        if let Some(retry) = decoder.retry_ms() {
            rpc.retry_ms = Some(retry);
        }
        if streamable && rpc.last_event_id.is_some() && rpc.resumptions < max_resumptions {
            // SEP-1699: a server may close the connection to make the client poll; the client
            // MUST wait the `retry:` delay, then resume with GET + Last-Event-ID.
            rpc.exchange = None;
            rpc.resume_at = Some(now_ms + rpc.retry_ms.unwrap_or(default_reconnect));
            return;
        }
        let error = ClientError::Connection {
            url: self.error_url(),
            message: reason.to_owned(),
        };
        self.fail_pending(id, exchange, error, now_ms);
    }

    pub(super) fn resume(&mut self, id: i64) {
        let Some(rpc) = self.rpcs.get(&id) else {
            return;
        };
        let last = rpc.last_event_id.clone();
        let url = self.request_url();
        let headers = self.headers(HeaderKind::Stream {
            last_event_id: last.as_deref(),
        });
        let exchange = self.send(
            Purpose::Resume(RequestId::Number(id)),
            HttpMethod::Get,
            url,
            headers,
            None,
            true,
        );
        self.stats.resumptions += 1;
        if let Some(rpc) = self.rpcs.get_mut(&id) {
            rpc.resume_at = None;
            rpc.resumptions += 1;
            rpc.exchange = Some(exchange);
        }
    }
}
