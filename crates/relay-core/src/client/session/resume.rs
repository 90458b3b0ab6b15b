//! Taking a server-side session up again after the caller restarted (an MV3 worker stops
//! whenever Chrome likes). A server may tie state to its `Mcp-Session-Id`: server-everything
//! keeps a session's tasks with the session, so a task created under one session is unknown
//! to the next. A [`SessionSnapshot`] is what a new [`Session`] needs to go on speaking in the
//! old one (the id, and what `initialize` said); [`Session::adopt`] starts from it with no new
//! handshake. When the server has forgotten the session it answers 404, and the session starts
//! afresh as for any expired session.
//!
//! Only sessions of protocol versions negotiated by `initialize` over Streamable HTTP have an
//! id to take up: 2026-07-28 has no session, and a legacy SSE session dies with its stream.

use serde::{Deserialize, Serialize};

use super::state::Conn;
use super::{ServerInfo, Session, Transport};

/// What a session is: enough to take it up again in another process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    /// The server's `Mcp-Session-Id`.
    pub session_id: String,
    /// What the server said in `initialize`.
    pub info: ServerInfo,
}

impl Session {
    /// The session as it is now, when there is one to take up later.
    pub fn snapshot(&self) -> Option<SessionSnapshot> {
        let (Some(id), Some(info)) = (&self.session_id, &self.info) else {
            return None;
        };
        let streamable = self.transport == Some(Transport::Streamable);
        (self.conn == Conn::Ready && streamable && self.stateless == Some(false)).then(|| {
            SessionSnapshot {
                session_id: id.clone(),
                info: info.clone(),
            }
        })
    }

    /// Goes on in the server-side session `snapshot` describes instead of starting one: only
    /// a session that has none yet (nothing connected or connecting), of a server configured
    /// for Streamable HTTP or `auto`. Returns whether it did.
    pub fn adopt(&mut self, snapshot: SessionSnapshot, now_ms: u64) -> bool {
        let fresh = self.conn == Conn::Down && self.handshake.is_none();
        let streamable = self.transport.is_none_or(|t| t == Transport::Streamable);
        let stateless = snapshot.info.protocol_version == crate::model::STATELESS_PROTOCOL_VERSION;
        if !fresh || !streamable || stateless || snapshot.info.transport != Transport::Streamable {
            return false;
        }
        self.session_id = Some(snapshot.session_id);
        self.protocol_version = Some(snapshot.info.protocol_version.clone());
        self.info = Some(snapshot.info);
        self.transport = Some(Transport::Streamable);
        self.stateless = Some(false);
        self.conn = Conn::Ready;
        if self.cfg.listen && !self.listen_unsupported {
            self.open_listen();
        }
        self.pump(now_ms);
        true
    }
}
