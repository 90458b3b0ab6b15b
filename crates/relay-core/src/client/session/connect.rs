//! Connection and version negotiation: `server/discover` (protocol 2026-07-28, stateless),
//! else the `initialize` handshake, the choice of transport, `notifications/initialized`, and
//! forgetting a session.

use serde_json::{json, Value};

use super::exchange::HeaderKind;
use super::state::*;
use super::{ServerInfo, Session, SessionEvent, Transport};
use crate::client::error::ClientError;
use crate::client::http::{HttpMethod, ResponseHead};
use crate::client::jsonrpc::{ErrorCode, ErrorObject, Message, Notification};
use crate::model::{Implementation, STATELESS_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};

/// JSON-RPC error of a server refusing the request's protocol version (2026-07-28), with the
/// versions it supports in `data.supported`.
const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

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
            Transport::Streamable if self.cfg.discover && self.stateless != Some(false) => {
                self.send_discover(false, now_ms);
            }
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

    /// Protocol 2026-07-28's handshake: one `server/discover`, stateless (its `_meta` and
    /// headers are added by `send_rpc` since the version is set first).
    pub(super) fn send_discover(&mut self, retried: bool, now_ms: u64) {
        self.protocol_version = Some(STATELESS_PROTOCOL_VERSION.to_owned());
        self.discovering = Some(retried);
        self.stats.discover_requests += 1;
        let rpc = self.send_rpc(Owner::Handshake, "server/discover", None, now_ms);
        self.conn = Conn::Initializing { rpc };
    }

    /// The answer to `server/discover`: a server listing 2026-07-28 is used without a session;
    /// one refusing the version but naming it supported is asked once more; anything else
    /// (method not found, no 2026-07-28, an HTTP 4xx) means a server of an older protocol.
    pub(super) fn discovered(&mut self, outcome: Result<Value, ErrorObject>, now_ms: u64) {
        let retried = self.discovering.take().unwrap_or(true);
        let supports = |versions: Option<&Value>| {
            versions.and_then(Value::as_array).is_some_and(|v| {
                v.iter()
                    .any(|v| v.as_str() == Some(STATELESS_PROTOCOL_VERSION))
            })
        };
        let result = match outcome {
            Ok(result) if supports(result.get("supportedVersions")) => result,
            Err(error)
                if error.code == UNSUPPORTED_PROTOCOL_VERSION
                    && !retried
                    && supports(error.data.as_ref().and_then(|d| d.get("supported"))) =>
            {
                self.send_discover(true, now_ms);
                return;
            }
            _ => {
                self.fall_back_to_initialize(now_ms);
                return;
            }
        };
        let version = STATELESS_PROTOCOL_VERSION.to_owned();
        self.info = Some(server_info(&result, version, Transport::Streamable));
        self.stateless = Some(true);
        self.session_id = None;
        self.become_ready(now_ms);
    }

    /// `server/discover` answered with an HTTP error: a 4xx other than authorization, rate
    /// limiting or a timeout is an older server (its body may still hold the JSON-RPC error
    /// naming the versions it supports). `false` when the status means something else.
    pub(super) fn discover_refused(
        &mut self,
        head: &ResponseHead,
        body: &[u8],
        now_ms: u64,
    ) -> bool {
        let status = head.status;
        // rmcp answers a request without a session with a bare 401; a real authorization
        // challenge carries `WWW-Authenticate`.
        let challenge = matches!(status, 401 | 403) && head.header("www-authenticate").is_some();
        if !(400..500).contains(&status) || challenge || matches!(status, 408 | 429) {
            return false;
        }
        let error = match Message::parse_all(body)
            .ok()
            .and_then(|m| m.into_iter().next())
        {
            Some(Message::Error(e)) => e.error,
            _ => ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, format!("HTTP {status}")),
        };
        self.discovered(Err(error), now_ms);
        true
    }

    fn fall_back_to_initialize(&mut self, now_ms: u64) {
        self.discovering = None;
        self.stateless = Some(false);
        self.protocol_version = None;
        self.session_id = None;
        self.send_initialize(now_ms);
    }

    pub(super) fn send_initialize(&mut self, now_ms: u64) {
        let params = json!({
            "protocolVersion": SUPPORTED_PROTOCOL_VERSIONS[0],
            "capabilities": self.capabilities(),
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
        self.discovering = None;
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
        self.info = Some(server_info(&result, version.clone(), transport));
        self.protocol_version = Some(version);
        self.stateless = Some(false);
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
        // 2026-07-28 has no session for a GET stream to belong to.
        if self.cfg.listen
            && !self.listen_unsupported
            && handshake.transport == Transport::Streamable
            && !self.stateless_active()
        {
            self.open_listen();
        }
        self.ask_log_level(now_ms);
        self.pump(now_ms);
    }

    /// A 2025 session asks for the configured log level once ready, where the server declares
    /// `logging` (2026-07-28 requests carry it in their `_meta` instead).
    fn ask_log_level(&mut self, now_ms: u64) {
        let Some(level) = self.cfg.log_level else {
            return;
        };
        let logs = self
            .info
            .as_ref()
            .is_some_and(|i| i.capabilities.get("logging").is_some_and(Value::is_object));
        if logs && !self.stateless_active() {
            let params = json!({ "level": level });
            self.send_rpc(Owner::Setting, "logging/setLevel", Some(params), now_ms);
        }
    }
}

/// What an `initialize` or `server/discover` result says of the server. PyPI `mcp` 2.3.0 puts
/// `serverInfo` of a discover result in `_meta`, the conformance suite at the top.
fn server_info(result: &Value, protocol_version: String, transport: Transport) -> ServerInfo {
    let server_info = result
        .get("serverInfo")
        .or_else(|| result.pointer("/_meta/io.modelcontextprotocol~1serverInfo"))
        .cloned()
        .and_then(|v| crate::json_value::from_value(v).ok())
        .unwrap_or_else(|| Implementation::new("unknown", ""));
    ServerInfo {
        protocol_version,
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
    }
}
