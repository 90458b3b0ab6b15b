//! HTTP exchanges: building requests and their headers, and reading response heads and
//! bodies (JSON or SSE) back into JSON-RPC messages.

use serde_json::{json, Map, Value};

use super::state::*;
use super::{Session, Transport};
use crate::client::error::ClientError;
use crate::client::headers;
use crate::client::http::{Action, ExchangeId, HttpMethod, HttpRequest, ResponseHead};
use crate::client::jsonrpc::{
    ErrorObject, ErrorResponse, Message, Notification, Request, RequestId, Response,
};
use crate::client::url::scrub_urls;
use crate::model::STATELESS_PROTOCOL_VERSION;
use crate::sse::SseDecoder;

/// How much of an error response's body is kept for the error message.
const MAX_ERROR_BODY: usize = 64 * 1024;

impl Session {
    /// The status and headers of an exchange's response arrived.
    pub fn handle_response_head(&mut self, exchange: ExchangeId, head: ResponseHead, now_ms: u64) {
        let Some(ex) = self.exchanges.get(&exchange) else {
            return;
        };
        let purpose = ex.purpose.clone();
        let ok = (200..300).contains(&head.status);
        let streamable = self.transport_in_use() == Some(Transport::Streamable);
        let max = self.cfg.max_body_bytes;
        let body = match &purpose {
            Purpose::Request(id) if ok => {
                if streamable && self.is_initialize(id) {
                    self.session_id = head
                        .header("mcp-session-id")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty());
                }
                if !streamable || head.status == 202 || head.status == 204 {
                    Body::Discard
                } else if head.is_event_stream() {
                    Body::Sse(SseDecoder::with_max_event_bytes(max))
                } else {
                    Body::Json(Vec::new())
                }
            }
            Purpose::Resume(id) if ok && head.is_event_stream() => {
                let last = self.rpc_of(id).and_then(|r| r.last_event_id.clone());
                Body::Sse(SseDecoder::resuming(last.as_deref(), max))
            }
            Purpose::Notify { .. } | Purpose::Reply | Purpose::Delete if ok => Body::Discard,
            Purpose::Listen => {
                if ok && head.is_event_stream() {
                    Body::Sse(SseDecoder::resuming(
                        self.listen_last_event_id.as_deref(),
                        max,
                    ))
                } else {
                    // A server without a GET stream says 405; others 400 or 404. Either way
                    // there is no stream for this session, and nothing is wrong with it.
                    self.abort_exchange(Some(exchange));
                    if head.status >= 500 || head.status == 429 {
                        self.listen_closed(None, true, now_ms);
                    } else {
                        self.listen_unsupported |= head.status == 405;
                        self.listen = Listen::Disabled;
                    }
                    return;
                }
            }
            Purpose::LegacyStream if ok && head.is_event_stream() => {
                Body::Sse(SseDecoder::with_max_event_bytes(max))
            }
            _ => Body::Error(head, Vec::new()),
        };
        if let Some(ex) = self.exchanges.get_mut(&exchange) {
            ex.body = body;
        }
    }

    /// A chunk of an exchange's response body arrived.
    pub fn handle_body(&mut self, exchange: ExchangeId, chunk: &[u8], now_ms: u64) {
        let max = self.cfg.max_body_bytes;
        let Some(ex) = self.exchanges.get_mut(&exchange) else {
            return;
        };
        let decoded = match &mut ex.body {
            Body::Json(buf) => {
                if buf.len() + chunk.len() > max {
                    Err(format!("the response is larger than {max} bytes"))
                } else {
                    buf.extend_from_slice(chunk);
                    Ok(Vec::new())
                }
            }
            Body::Error(_, buf) => {
                let room = MAX_ERROR_BODY.saturating_sub(buf.len());
                buf.extend_from_slice(&chunk[..room.min(chunk.len())]);
                Ok(Vec::new())
            }
            Body::Sse(decoder) => decoder.push(chunk).map_err(|e| e.to_string()),
            Body::AwaitingHead | Body::Discard => Ok(Vec::new()),
        };
        match decoded {
            Ok(events) => {
                for event in events {
                    self.handle_sse_event(exchange, event.event, event.data, now_ms);
                }
            }
            Err(message) => {
                let url = self.error_url();
                self.exchange_failed(exchange, ClientError::Protocol { url, message }, now_ms);
            }
        }
    }

    /// An exchange's response body ended normally.
    pub fn handle_body_end(&mut self, exchange: ExchangeId, now_ms: u64) {
        let Some(ex) = self.exchanges.remove(&exchange) else {
            return;
        };
        if let Body::Json(buf) | Body::Error(_, buf) = &ex.body {
            self.note_received(buf);
        }
        let url = self.error_url();
        match (ex.purpose, ex.body) {
            (Purpose::Request(id), Body::Json(buf)) => {
                match Message::parse_all(&buf) {
                    Ok(messages) => {
                        for message in messages {
                            self.handle_message(message, Some(exchange), now_ms);
                        }
                    }
                    Err(e) => {
                        let error = ClientError::Protocol {
                            url,
                            message: format!("malformed JSON-RPC response: {e}"),
                        };
                        self.fail_pending(&id, exchange, error, now_ms);
                        return;
                    }
                }
                let error = ClientError::Protocol {
                    url,
                    message: format!("the response did not answer request {id}"),
                };
                self.fail_pending(&id, exchange, error, now_ms);
            }
            (Purpose::Request(id) | Purpose::Resume(id), Body::Sse(mut decoder)) => {
                let cut = decoder.finish();
                let reason = if cut {
                    "the event stream was cut in the middle of an event"
                } else {
                    "the event stream ended before the answer arrived"
                };
                self.stream_ended(&id, exchange, &decoder, reason, now_ms);
            }
            (Purpose::Request(id), Body::Discard) => {
                // Legacy transport, or a 202: the answer comes on another stream.
                if let Some(rpc) = self.rpc_of_mut(&id) {
                    if rpc.exchange == Some(exchange) {
                        rpc.exchange = None;
                    }
                }
            }
            (Purpose::Request(id), Body::Error(head, buf)) => {
                let RequestId::Number(n) = id else { return };
                if self
                    .rpcs
                    .get(&n)
                    .is_none_or(|r| r.exchange != Some(exchange))
                {
                    return;
                }
                let legacy = self.transport_in_use() == Some(Transport::Legacy);
                let expired = is_session_expired(&head, &buf, ex.session_id.is_some() || legacy);
                let Some(rpc) = self.rpcs.remove(&n) else {
                    return;
                };
                if rpc.owner == Owner::Handshake
                    && self.discovering.is_some()
                    && self.discover_refused(&head, &buf, now_ms)
                {
                    self.pump(now_ms);
                    return;
                }
                if expired {
                    self.session_expired(rpc.owner, ex.generation, now_ms);
                } else {
                    let error = self.http_error(&head, &buf);
                    self.fail_rpc(rpc.owner, error, head.retry_after_ms(), now_ms);
                }
            }
            (Purpose::Resume(id), Body::Error(head, _)) => {
                // The request was delivered; whatever the status, its answer is lost with the
                // stream. Never a reason to send it again as if it had not been.
                let error = ClientError::Connection {
                    url,
                    message: format!("could not resume the event stream (HTTP {})", head.status),
                };
                self.fail_pending(&id, exchange, error, now_ms);
            }
            (Purpose::Notify { initialized: true }, body) => {
                if !matches!(self.conn, Conn::Confirming { exchange: e, .. } if e == exchange) {
                    return;
                }
                if let Body::Error(head, buf) = &body {
                    if is_session_expired(head, buf, ex.session_id.is_some()) || head.status >= 500
                    {
                        let error = ClientError::Connection {
                            url,
                            message: format!(
                                "the server dropped the session during initialization (HTTP {})",
                                head.status
                            ),
                        };
                        self.handshake_failed(error, None, now_ms);
                        return;
                    }
                }
                // Any other answer means the server got the notification; some reply 200 with
                // a body, or even an error status, and work fine afterwards.
                self.become_ready(now_ms);
            }
            (Purpose::Listen, Body::Sse(mut decoder)) => {
                decoder.finish();
                self.listen_closed(Some(&decoder), false, now_ms);
            }
            (Purpose::LegacyStream, Body::Error(head, buf)) => {
                let error = self.http_error(&head, &buf);
                self.handshake_failed(error, head.retry_after_ms(), now_ms);
            }
            (Purpose::LegacyStream, Body::Sse(_)) => {
                let error = ClientError::Connection {
                    url,
                    message: "the server closed the SSE stream".to_owned(),
                };
                self.legacy_stream_lost(error, now_ms);
            }
            _ => {}
        }
        self.pump(now_ms);
    }

    /// An exchange failed at the network level (fetch rejected, or its body stream errored).
    pub fn handle_transport_error(&mut self, exchange: ExchangeId, message: &str, now_ms: u64) {
        let error = ClientError::Connection {
            url: self.error_url(),
            // Some fetch implementations quote the URL in their message.
            message: scrub_urls(message).into_owned(),
        };
        self.exchange_failed(exchange, error, now_ms);
    }

    pub(super) fn send_rpc(
        &mut self,
        owner: Owner,
        method: &'static str,
        params: Option<Value>,
        now_ms: u64,
    ) -> i64 {
        let id = self.next_rpc;
        self.next_rpc += 1;
        let (params, extra) = if self.stateless_active() {
            self.stateless_request(method, params)
        } else {
            (params, Vec::new())
        };
        let body = Message::Request(Request::new(RequestId::Number(id), method, params)).to_json();
        let exchange = self.post_with(Purpose::Request(RequestId::Number(id)), body, extra);
        let timeout_ms = self.timeout_ms();
        self.rpcs.insert(
            id,
            Rpc {
                owner,
                method,
                timeout_ms,
                deadline: now_ms + timeout_ms,
                exchange: Some(exchange),
                last_event_id: None,
                retry_ms: None,
                resume_at: None,
                resumptions: 0,
            },
        );
        id
    }

    /// Protocol 2026-07-28: the request's `_meta` (version, client, capabilities) and the
    /// headers mirroring its body (`Mcp-Method`, `Mcp-Name`, a tool's `Mcp-Param-*`).
    fn stateless_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> (Option<Value>, Vec<(String, String)>) {
        let mut params = match params {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".to_owned(),
                json!(STATELESS_PROTOCOL_VERSION),
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".to_owned(),
                json!(self.cfg.client_info),
            );
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".to_owned(),
                self.capabilities(),
            );
            if let Some(level) = self.cfg.log_level {
                meta.insert("io.modelcontextprotocol/logLevel".to_owned(), json!(level));
            }
        }
        let params = Value::Object(params);
        let mut headers = vec![("Mcp-Method".to_owned(), method.to_owned())];
        if let Some(name) = headers::name_header(method, Some(&params)) {
            headers.push(("Mcp-Name".to_owned(), name));
        }
        if method == "tools/call" {
            let tool = params
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.tools.find(name));
            let arguments = params.get("arguments").and_then(Value::as_object);
            if let (Some(tool), Some(arguments)) = (tool, arguments) {
                headers.extend(headers::param_headers(tool, arguments));
            }
        }
        (Some(params), headers)
    }

    pub(super) fn post(&mut self, purpose: Purpose, body: String) -> ExchangeId {
        self.post_with(purpose, body, Vec::new())
    }

    fn post_with(
        &mut self,
        purpose: Purpose,
        body: String,
        extra: Vec<(String, String)>,
    ) -> ExchangeId {
        let url = match (self.transport_in_use(), &self.legacy_post_url) {
            (Some(Transport::Legacy), Some(post_url)) => post_url.clone(),
            _ => self.request_url(),
        };
        let mut headers = self.headers(HeaderKind::Post);
        headers.extend(extra);
        self.send(purpose, HttpMethod::Post, url, headers, Some(body), false)
    }

    pub(super) fn send(
        &mut self,
        purpose: Purpose,
        method: HttpMethod,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<String>,
        long_lived: bool,
    ) -> ExchangeId {
        let exchange = ExchangeId(self.next_exchange);
        self.next_exchange += 1;
        self.stats.http_requests += 1;
        let session_id = self.session_id.clone();
        let generation = self.generation;
        self.exchanges.insert(
            exchange,
            Exchange {
                purpose,
                session_id,
                generation,
                body: Body::AwaitingHead,
            },
        );
        self.actions.push_back(Action::Send(HttpRequest {
            exchange,
            method,
            url,
            headers,
            body,
            long_lived,
        }));
        exchange
    }

    pub(super) fn abort_exchange(&mut self, exchange: Option<ExchangeId>) {
        if let Some(exchange) = exchange {
            if self.exchanges.remove(&exchange).is_some() {
                self.actions.push_back(Action::Abort(exchange));
            }
        }
    }

    pub(super) fn headers(&self, kind: HeaderKind<'_>) -> Vec<(String, String)> {
        const RESERVED: &[&str] = &[
            "accept",
            "content-type",
            "content-length",
            "host",
            "mcp-session-id",
            "mcp-protocol-version",
            "last-event-id",
            "mcp-method",
            "mcp-name",
        ];
        let mut headers: Vec<(String, String)> = self
            .cfg
            .server
            .headers
            .iter()
            .filter(|(k, _)| !RESERVED.iter().any(|r| k.eq_ignore_ascii_case(r)))
            .filter(|(k, _)| {
                self.authorization.is_none() || !k.eq_ignore_ascii_case("authorization")
            })
            .cloned()
            .collect();
        if let Some(value) = &self.authorization {
            headers.push(("Authorization".to_owned(), value.clone()));
        }
        match kind {
            HeaderKind::Post => {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
                headers.push((
                    "Accept".to_owned(),
                    "application/json, text/event-stream".to_owned(),
                ));
            }
            HeaderKind::Stream { last_event_id } => {
                headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
                if let Some(id) = last_event_id {
                    headers.push(("Last-Event-ID".to_owned(), id.to_owned()));
                }
            }
            HeaderKind::Delete => {}
        }
        if self.transport_in_use() == Some(Transport::Streamable) {
            if let Some(id) = &self.session_id {
                headers.push(("Mcp-Session-Id".to_owned(), id.clone()));
            }
            if let Some(version) = &self.protocol_version {
                headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
            }
        }
        headers
    }

    /// Tells the server a request it was sent is cancelled: `notifications/cancelled`, except
    /// under protocol 2026-07-28, where closing the request's response stream (the abort that
    /// comes with every cancellation) is the cancellation over HTTP and no notification is
    /// expected.
    pub(super) fn notify_cancelled(&mut self, rpc: i64, reason: &str) {
        if self.conn != Conn::Ready || self.stateless_active() {
            return;
        }
        let params = json!({ "requestId": rpc, "reason": reason });
        let body =
            Message::Notification(Notification::new("notifications/cancelled", Some(params)))
                .to_json();
        self.post_with(Purpose::Notify { initialized: false }, body, Vec::new());
    }

    pub(super) fn reply(&mut self, id: RequestId, result: Result<Value, ErrorObject>) {
        let message = match result {
            Ok(result) => Message::Response(Response::new(id, result)),
            Err(error) => Message::Error(ErrorResponse::new(Some(id), error)),
        };
        self.post(Purpose::Reply, message.to_json());
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum HeaderKind<'a> {
    Post,
    Stream { last_event_id: Option<&'a str> },
    Delete,
}

/// A 404 to a request that carried a session id means the session is gone (transports §session
/// management). Some servers (server-everything) answer 400 "No valid session ID" instead.
/// On the legacy transport the session lives in the POST URL, so a 404 there means the same.
pub(super) fn is_session_expired(head: &ResponseHead, body: &[u8], had_session: bool) -> bool {
    if !had_session {
        return false;
    }
    head.status == 404
        || (head.status == 400
            && String::from_utf8_lossy(body)
                .to_ascii_lowercase()
                .contains("session"))
}
