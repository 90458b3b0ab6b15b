//! Connection and version negotiation: the `initialize` handshake, the choice of transport,
//! `notifications/initialized`, and forgetting a session.

use serde_json::{json, Value};

use super::exchange::HeaderKind;
use super::state::*;
use super::{ServerInfo, Session, SessionEvent, Transport};
use crate::client::error::ClientError;
use crate::client::http::HttpMethod;
use crate::client::jsonrpc::{ErrorObject, Message, Notification};
use crate::model::{Implementation, SUPPORTED_PROTOCOL_VERSIONS};

impl Session {
    pub(super) fn start_handshake(&mut self, now_ms: u64) {
        let transport = self.transport.unwrap_or(Transport::Streamable);
        self.handshake = Some(Handshake {
            transport,
            attempt: 1,
            first_try_at: now_ms,
            streamable_error: None,
        });
        self.begin_attempt(now_ms);
    }

    pub(super) fn begin_attempt(&mut self, now_ms: u64) {
        self.reset_session();
        let Some(transport) = self.handshake.as_ref().map(|h| h.transport) else {
            return;
        };
        match transport {
            Transport::Streamable => self.send_initialize(now_ms),
            Transport::Legacy => {
                let url = self.request_url();
                let headers = self.headers(HeaderKind::Stream {
                    last_event_id: None,
                });
                let exchange = self.send(
                    Purpose::LegacyStream,
                    HttpMethod::Get,
                    url,
                    headers,
                    None,
                    true,
                );
                self.legacy_stream = Some(exchange);
                self.conn = Conn::Opening {
                    exchange,
                    deadline: now_ms + self.timeout_ms(),
                };
            }
        }
    }

    pub(super) fn send_initialize(&mut self, now_ms: u64) {
        let capabilities = if self.cfg.elicitation {
            json!({"elicitation": {"form": {}, "url": {}}})
        } else {
            json!({})
        };
        let params = json!({
            "protocolVersion": SUPPORTED_PROTOCOL_VERSIONS[0],
            "capabilities": capabilities,
            "clientInfo": self.cfg.client_info,
        });
        self.stats.initialize_requests += 1;
        let rpc = self.send_rpc(Owner::Handshake, "initialize", Some(params), now_ms);
        self.conn = Conn::Initializing { rpc };
    }

    /// Forgets the server-side session (not the calls waiting for one).
    pub(super) fn reset_session(&mut self) {
        self.generation += 1;
        self.session_id = None;
        self.protocol_version = None;
        self.legacy_post_url = None;
        let legacy_stream = self.legacy_stream.take();
        self.abort_exchange(legacy_stream);
        if let Listen::Open(exchange) = self.listen {
            self.abort_exchange(Some(exchange));
        }
        self.listen = Listen::Off;
        self.listen_last_event_id = None;
        self.listen_retry_ms = None;
        self.listen_failures = 0;
    }

    pub(super) fn initialized(&mut self, outcome: Result<Value, ErrorObject>, now_ms: u64) {
        let url = self.error_url();
        let result = match outcome {
            Ok(result) => result,
            Err(error) => {
                let error = ClientError::Rpc {
                    method: "initialize".to_owned(),
                    code: error.code,
                    message: error.message,
                    data: error.data,
                };
                self.handshake_failed(error, None, now_ms);
                return;
            }
        };
        let Some(version) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            let error = ClientError::Protocol {
                url,
                message: "the initialize result has no protocolVersion".to_owned(),
            };
            self.handshake_failed(error, None, now_ms);
            return;
        };
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
            // The spec says to disconnect: end the server's session before giving up.
            if self.session_id.is_some() {
                let headers = self.headers(HeaderKind::Delete);
                self.send(
                    Purpose::Delete,
                    HttpMethod::Delete,
                    self.request_url(),
                    headers,
                    None,
                    false,
                );
            }
            self.handshake_failed(
                ClientError::UnsupportedProtocolVersion {
                    url,
                    received: version,
                },
                None,
                now_ms,
            );
            return;
        }
        let Some(transport) = self.handshake.as_ref().map(|h| h.transport) else {
            return;
        };
        let server_info = result
            .get("serverInfo")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| Implementation::new("unknown", ""));
        self.info = Some(ServerInfo {
            protocol_version: version.clone(),
            server_info,
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
            transport,
        });
        self.protocol_version = Some(version);
        let body =
            Message::Notification(Notification::new("notifications/initialized", None)).to_json();
        let exchange = self.post(Purpose::Notify { initialized: true }, body);
        self.conn = Conn::Confirming {
            exchange,
            deadline: now_ms + self.timeout_ms(),
        };
    }

    pub(super) fn become_ready(&mut self, now_ms: u64) {
        let Some(handshake) = self.handshake.take() else {
            return;
        };
        self.transport = Some(handshake.transport);
        self.conn = Conn::Ready;
        if let Some(info) = &self.info {
            self.events.push_back(SessionEvent::Connected(info.clone()));
        }
        if self.cfg.listen
            && !self.listen_unsupported
            && handshake.transport == Transport::Streamable
        {
            self.open_listen();
        }
        self.pump(now_ms);
    }
}
