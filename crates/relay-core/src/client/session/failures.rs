//! Failures: deciding what a failed exchange or request means (retry, re-initialize, outcome
//! unknown, or an error for the caller), and turning HTTP statuses into [`ClientError`]s.

use super::state::*;
use super::{CallId, Session, Transport};
use crate::client::config::TransportKind;
use crate::client::error::ClientError;
use crate::client::http::{Action, ExchangeId, ResponseHead};
use crate::client::jsonrpc::{Message, RequestId};
use crate::client::ops::Operation;
use crate::client::url::HttpUrl;

impl Session {
    /// Fails the request `id` if `exchange` is still the one carrying its answer.
    pub(super) fn fail_pending(
        &mut self,
        id: &RequestId,
        exchange: ExchangeId,
        error: ClientError,
        now_ms: u64,
    ) {
        let RequestId::Number(n) = id else { return };
        if self
            .rpcs
            .get(n)
            .is_none_or(|r| r.exchange != Some(exchange))
        {
            return;
        }
        let Some(rpc) = self.rpcs.remove(n) else {
            return;
        };
        self.fail_rpc(rpc.owner, error, None, now_ms);
    }

    pub(super) fn exchange_failed(
        &mut self,
        exchange: ExchangeId,
        error: ClientError,
        now_ms: u64,
    ) {
        let Some(ex) = self.exchanges.remove(&exchange) else {
            return;
        };
        self.actions.push_back(Action::Abort(exchange));
        match ex.purpose {
            Purpose::Request(id) | Purpose::Resume(id) => match ex.body {
                // A stream that breaks after an event id can be resumed, like a closed one.
                Body::Sse(decoder) if matches!(error, ClientError::Connection { .. }) => {
                    let reason = match &error {
                        ClientError::Connection { message, .. } => message.clone(),
                        other => other.to_string(),
                    };
                    self.stream_ended(&id, exchange, &decoder, &reason, now_ms);
                }
                _ => {
                    if self
                        .rpc_of(&id)
                        .is_some_and(|r| r.exchange == Some(exchange))
                    {
                        self.fail_pending(&id, exchange, error, now_ms);
                    }
                }
            },
            Purpose::Notify { initialized: true } => {
                if matches!(self.conn, Conn::Confirming { exchange: e, .. } if e == exchange) {
                    self.handshake_failed(error, None, now_ms);
                }
            }
            Purpose::Listen => {
                let decoder = match ex.body {
                    Body::Sse(decoder) => Some(decoder),
                    _ => None,
                };
                self.listen_closed(decoder.as_ref(), true, now_ms);
            }
            Purpose::LegacyStream => self.legacy_stream_lost(error, now_ms),
            Purpose::Notify { initialized: false } | Purpose::Reply | Purpose::Delete => {}
        }
        self.pump(now_ms);
    }

    pub(super) fn fail_rpc(
        &mut self,
        owner: Owner,
        error: ClientError,
        retry_after_ms: Option<u64>,
        now_ms: u64,
    ) {
        match owner {
            Owner::Handshake => self.handshake_failed(error, retry_after_ms, now_ms),
            Owner::Call(call) => self.call_failed(call, error, retry_after_ms, now_ms),
            Owner::Setting => {}
        }
    }

    pub(super) fn call_failed(
        &mut self,
        call: CallId,
        error: ClientError,
        retry_after_ms: Option<u64>,
        now_ms: u64,
    ) {
        let jitter = self.jitter.next_unit();
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        // A task's polling is safe to repeat, though the call it belongs to is not.
        let retryable = (c.op.is_idempotent() || c.task.is_some()) && error.is_transient();
        let error = match &c.op {
            // Sent, and no usable answer: the tool may have run. Never retried (seed 003).
            Operation::CallTool { name, .. } | Operation::ResumeTask { name, .. } => {
                error.after_sending_call(name)
            }
            _ => error,
        };
        if retryable {
            let next = c.attempt + 1;
            if let Some(at) =
                self.cfg
                    .retry
                    .next_attempt_at(next, c.first_try_at, now_ms, jitter, retry_after_ms)
            {
                c.attempt = next;
                c.state = CallState::Backoff { until: at };
                self.stats.retries += 1;
                return;
            }
        }
        let error = if c.attempt > 1 {
            ClientError::RetriesExhausted {
                method: c.op.method().to_owned(),
                attempts: c.attempt,
                last: Box::new(error),
            }
        } else {
            error
        };
        self.complete_call(call, Err(error), now_ms);
    }

    pub(super) fn handshake_failed(
        &mut self,
        error: ClientError,
        retry_after_ms: Option<u64>,
        now_ms: u64,
    ) {
        let auto = self.cfg.server.transport == TransportKind::Auto && self.transport.is_none();
        let jitter = self.jitter.next_unit();
        let Some(hs) = self.handshake.as_mut() else {
            return;
        };
        // Backwards compatibility (transports §backwards compatibility): a POST of
        // InitializeRequest failing with 400, 404 or 405 means an old HTTP+SSE server may be
        // there; try GET for its `endpoint` event.
        if auto
            && hs.transport == Transport::Streamable
            && matches!(
                error,
                ClientError::Http {
                    status: 400 | 404 | 405,
                    ..
                }
            )
        {
            hs.transport = Transport::Legacy;
            hs.streamable_error = Some(error);
            self.begin_attempt(now_ms);
            return;
        }
        let error = match hs.streamable_error.take() {
            // The legacy attempt was a guess; if it did not work, the POST's answer says more.
            // A foreign `endpoint` proves the legacy server is there; its error is the one.
            Some(first)
                if !error.is_transient()
                    && !matches!(
                        error,
                        ClientError::Auth { .. } | ClientError::ForeignEndpoint { .. }
                    ) =>
            {
                first
            }
            Some(first) => {
                hs.streamable_error = Some(first);
                error
            }
            None => error,
        };
        if error.is_transient() {
            let next = hs.attempt + 1;
            if let Some(at) = self.cfg.retry.next_attempt_at(
                next,
                hs.first_try_at,
                now_ms,
                jitter,
                retry_after_ms,
            ) {
                hs.attempt = next;
                self.stats.retries += 1;
                self.conn = Conn::Backoff { until: at };
                self.reset_session();
                return;
            }
        }
        let attempts = hs.attempt;
        self.handshake = None;
        self.conn = Conn::Down;
        self.reset_session();
        let error = if attempts > 1 {
            ClientError::RetriesExhausted {
                method: "initialize".to_owned(),
                attempts,
                last: Box::new(error),
            }
        } else {
            error
        };
        // A handshake step that timed out may have run, but the calls waiting for it were never
        // sent: for them it is a failure to connect.
        let error = if error.may_have_run() {
            ClientError::Connection {
                url: self.error_url(),
                message: format!("could not start a session: {error}"),
            }
        } else {
            error
        };
        // Calls waiting for this session cannot proceed; calls waiting to retry will start a
        // new handshake when their time comes.
        let waiting: Vec<CallId> = self.queue.drain(..).collect();
        for call in waiting {
            self.complete_call(call, Err(error.clone()), now_ms);
        }
    }

    pub(super) fn session_expired(&mut self, owner: Owner, generation: u64, now_ms: u64) {
        if owner == Owner::Setting {
            // The next session asks for the level again once it is ready.
            return;
        }
        let Owner::Call(call) = owner else {
            let error = ClientError::SessionExpired {
                url: self.error_url(),
            };
            self.handshake_failed(error, None, now_ms);
            return;
        };
        if generation == self.generation && self.conn == Conn::Ready {
            // MUST start a new session with a new InitializeRequest (transports §session management).
            self.stats.reinitializations += 1;
            self.conn = Conn::Down;
            self.reset_session();
        }
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        if c.reinitialized {
            let error = ClientError::SessionExpired {
                url: self.error_url(),
            };
            self.complete_call(call, Err(error), now_ms);
            return;
        }
        // The server refused the request without running it, so even a tool call is safe to
        // send again, once.
        c.reinitialized = true;
        c.state = CallState::Queued;
        self.queue.push_front(call);
        self.pump(now_ms);
    }

    pub(super) fn http_error(&self, head: &ResponseHead, body: &[u8]) -> ClientError {
        let url = self.error_url();
        let text = String::from_utf8_lossy(body);
        if head.is_redirect() {
            return ClientError::Redirected {
                url,
                location: head.header("location").map(str::to_owned),
            };
        }
        if head.status == 401 || head.status == 403 {
            let loopback = self.url.as_ref().is_ok_and(HttpUrl::is_loopback);
            let www_authenticate = head.header("www-authenticate").map(str::to_owned);
            return ClientError::Auth {
                url,
                status: head.status,
                loopback,
                www_authenticate,
            };
        }
        // Servers often explain a 4xx with a JSON-RPC error; its message is the useful part.
        let body = match Message::parse_all(body) {
            Ok(messages) => messages
                .into_iter()
                .find_map(|m| match m {
                    Message::Error(e) => Some(e.error.message),
                    _ => None,
                })
                .unwrap_or_else(|| text.into_owned()),
            Err(_) => text.into_owned(),
        };
        ClientError::Http {
            url,
            status: head.status,
            body,
            retry_after_ms: head.retry_after_ms(),
        }
    }
}
