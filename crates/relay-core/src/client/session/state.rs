//! The session's internal bookkeeping types: requests awaiting answers, exchanges in flight,
//! connection, call and listen-stream states.

use super::{CallId, Transport};
use crate::client::error::ClientError;
use crate::client::http::{ExchangeId, ResponseHead};
use crate::client::jsonrpc::RequestId;
use crate::client::ops::{Operation, Pages};
use crate::sorted_map::SortedSet;
use crate::sse::SseDecoder;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    Handshake,
    Call(CallId),
    /// A request of the session's own whose answer changes nothing (`logging/setLevel`).
    Setting,
}

/// A JSON-RPC request awaiting its answer.
#[derive(Debug)]
pub(super) struct Rpc {
    pub(super) owner: Owner,
    pub(super) method: &'static str,
    pub(super) timeout_ms: u64,
    pub(super) deadline: u64,
    /// The exchange expected to carry the answer (the POST, or the GET resuming it). `None`
    /// when the answer comes on a shared stream (legacy transport, or a 202).
    pub(super) exchange: Option<ExchangeId>,
    pub(super) last_event_id: Option<String>,
    pub(super) retry_ms: Option<u64>,
    pub(super) resume_at: Option<u64>,
    pub(super) resumptions: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Purpose {
    Request(RequestId),
    Resume(RequestId),
    Notify { initialized: bool },
    Reply,
    Listen,
    LegacyStream,
    Delete,
}

#[derive(Debug)]
pub(super) enum Body {
    AwaitingHead,
    Json(Vec<u8>),
    Sse(SseDecoder),
    Error(ResponseHead, Vec<u8>),
    Discard,
}

#[derive(Debug)]
pub(super) struct Exchange {
    pub(super) purpose: Purpose,
    /// The session id the request carried.
    pub(super) session_id: Option<String>,
    /// The session generation it belongs to: a 404 for an old session must not reset a new one.
    pub(super) generation: u64,
    pub(super) body: Body,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conn {
    Down,
    /// Legacy: waiting for the `endpoint` event on the GET stream.
    Opening {
        exchange: ExchangeId,
        deadline: u64,
    },
    Initializing {
        rpc: i64,
    },
    /// `notifications/initialized` sent, waiting for its 202.
    Confirming {
        exchange: ExchangeId,
        deadline: u64,
    },
    Backoff {
        until: u64,
    },
    Ready,
}

#[derive(Debug)]
pub(super) struct Handshake {
    pub(super) transport: Transport,
    pub(super) attempt: u32,
    pub(super) first_try_at: u64,
    /// In `auto`, the Streamable HTTP failure that made us try the legacy transport.
    pub(super) streamable_error: Option<ClientError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallState {
    Queued,
    InFlight(i64),
    Backoff {
        until: u64,
    },
    /// A task's next `tasks/get` is due (`tasks`): nothing in flight, no concurrency slot held.
    Polling {
        until: u64,
    },
}

#[derive(Debug)]
pub(super) struct Call {
    pub(super) op: Operation,
    pub(super) state: CallState,
    pub(super) attempt: u32,
    pub(super) submitted_at: u64,
    pub(super) first_try_at: u64,
    pub(super) reinitialized: bool,
    pub(super) pages: Pages,
    pub(super) progress_token: Option<String>,
    pub(super) cache_generation: u64,
    /// `inputResponses` and `requestState` to send with this call after an `input_required`
    /// result (SEP-2322); never with any other call.
    pub(super) input: Option<serde_json::Map<String, serde_json::Value>>,
    pub(super) input_rounds: u32,
    /// Input requests of the last `input_required` result still waiting for the driver's
    /// answer (elicitations the user answers), and the answers so far.
    pub(super) awaiting: Option<AwaitingInput>,
    /// The server answered with a task: the call is now its polling (`tasks`).
    pub(super) task: Option<super::tasks::TaskPoll>,
}

/// An `input_required` round waiting for answers from the driver.
#[derive(Debug, Default)]
pub(super) struct AwaitingInput {
    pub(super) waiting: SortedSet<String>,
    pub(super) responses: serde_json::Map<String, serde_json::Value>,
    pub(super) state: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listen {
    Off,
    Open(ExchangeId),
    Waiting { until: u64 },
    Disabled,
}
