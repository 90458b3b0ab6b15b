//! The legacy HTTP+SSE transport (protocol 2024-11-05): the `endpoint` event and the loss of
//! the stream that carries every answer. An `endpoint` on another origin than the server's URL
//! is refused ([`ClientError::ForeignEndpoint`]).

use super::state::*;
use super::Session;
use crate::client::error::ClientError;

impl Session {
    pub(super) fn legacy_endpoint(&mut self, data: &str, now_ms: u64) {
        if !matches!(self.conn, Conn::Opening { .. }) {
            return;
        }
        let resolved = match &self.url {
            Ok(base) => base.join(data.trim()).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match resolved {
            // The endpoint names where every request of the session goes, with the server's
            // headers: only the server's own origin (as the official SDKs require).
            Ok(post_url)
                if self
                    .url
                    .as_ref()
                    .is_ok_and(|base| base.origin() != post_url.origin()) =>
            {
                let error = ClientError::ForeignEndpoint {
                    url: self.error_url(),
                    endpoint: post_url.redacted(),
                };
                self.handshake_failed(error, None, now_ms);
            }
            Ok(post_url) => {
                self.legacy_post_url = Some(post_url.to_string());
                self.send_initialize(now_ms);
            }
            Err(message) => {
                let url = self.error_url();
                let error = ClientError::Protocol {
                    url,
                    message: format!("bad `endpoint` event: {message}"),
                };
                self.handshake_failed(error, None, now_ms);
            }
        }
    }

    /// The legacy transport's stream is the session: losing it loses every pending answer.
    pub(super) fn legacy_stream_lost(&mut self, error: ClientError, now_ms: u64) {
        if matches!(
            self.conn,
            Conn::Opening { .. } | Conn::Initializing { .. } | Conn::Confirming { .. }
        ) {
            let rpcs: Vec<i64> = self
                .rpcs
                .iter()
                .filter(|(_, r)| r.owner == Owner::Handshake)
                .map(|(id, _)| *id)
                .collect();
            for id in rpcs {
                self.rpcs.remove(&id);
            }
            self.handshake_failed(error, None, now_ms);
            return;
        }
        self.conn = Conn::Down;
        self.reset_session();
        let pending: Vec<i64> = self.rpcs.keys().copied().collect();
        for id in pending {
            if let Some(rpc) = self.rpcs.remove(&id) {
                self.fail_rpc(rpc.owner, error.clone(), None, now_ms);
            }
        }
    }
}
