//! Calls in flight and the user's Cancel: which running call a `calls/cancel` may stop (a chat
//! call of the ledger, for a content script only in its own chat; a run by hand, from the side
//! panel only), the key the client's pool knows it by, and how a cancelled call ends (failed
//! with `cancelled`, never `unknown`: the user stopped it and the server was told, so nothing
//! runs it again by itself). Runs by hand are kept here while they run, with their latest
//! progress notification, for the panel's run form (`calls/running`).
//!
//! The pool aborts the request (closing its response stream) and sends the server
//! `notifications/cancelled`; under protocol 2026-07-28 the closed stream is the cancellation
//! over HTTP and no notification is sent (`client::session`).

use crate::sorted_map::{SortedMap, SortedSet};

use serde_json::Value;

use crate::contract::views::RunningCall;
use crate::contract::{ErrorBody, ErrorKind, Role};
use crate::policy::CallState;

use super::turn::CallEnd;
use super::App;

/// A run by hand's key in the client's pool (a chat call's is its ledger key).
pub fn run_cancel_key(run: &str) -> String {
    format!("run:{run}")
}

/// The longest run key the panel may choose.
const RUN_KEY_MAX: usize = 64;

/// Runs by hand under way, by the key the panel chose, and the calls the user cancelled.
#[derive(Debug, Default)]
pub struct InFlight {
    runs: SortedMap<String, RunningCall>,
    cancelled: SortedSet<String>,
    /// When each running chat call's card was last told of its progress.
    progress_told: SortedMap<String, u64>,
}

/// How often a call's card is told of its progress, at most.
pub const PROGRESS_NOTIFY_MS: u64 = 250;

fn refused(kind: ErrorKind, message: String) -> ErrorBody {
    ErrorBody::new(kind, message)
}

impl App {
    /// The pool's key of the running call `key` the sender may cancel: a chat call of the
    /// ledger (a content script: of its own chat) or, for the side panel, a run by hand.
    pub fn cancel_target(
        &self,
        role: Role,
        sender_chat: Option<&str>,
        key: &str,
    ) -> Result<String, ErrorBody> {
        if let Some(record) = self.ledger.calls.get(key) {
            if role == Role::Content && sender_chat != Some(record.chat.as_str()) {
                return Err(refused(
                    ErrorKind::Forbidden,
                    "a page may cancel only its own chat's calls".to_owned(),
                ));
            }
            if record.state != CallState::Running {
                return Err(refused(
                    ErrorKind::InvalidState,
                    format!("the call of {} is not running", record.tool),
                ));
            }
            return Ok(key.to_owned());
        }
        if role == Role::Page && self.inflight.runs.contains_key(key) {
            return Ok(run_cancel_key(key));
        }
        Err(refused(
            ErrorKind::InvalidState,
            format!("no call '{key}' is running (it ended, or never started)"),
        ))
    }

    /// The user cancelled the call the pool knows as `cancel_key` (and the pool had it): it
    /// ends as cancelled whatever error the aborted request reports.
    pub fn cancel_sent(&mut self, cancel_key: &str) {
        self.inflight.cancelled.insert(cancel_key.to_owned());
    }

    /// How a call (by its pool key) ended, the user's Cancel taken into account: an error
    /// after a Cancel is `cancelled` and did not run on (a result that came first stays).
    pub fn end_of(&mut self, cancel_key: &str, end: CallEnd) -> CallEnd {
        let cancelled = self.take_cancelled(cancel_key);
        match end {
            CallEnd::Error { .. } if cancelled => CallEnd::Error {
                error: cancelled_error(),
                may_have_run: false,
            },
            other => other,
        }
    }

    /// Whether a chat call's card is due to be told of its progress at `now_ms` (and if so,
    /// noted as told); calls that ended are forgotten.
    pub(super) fn progress_due(&mut self, key: &str, now_ms: u64) -> bool {
        let told = &mut self.inflight.progress_told;
        let calls = &self.ledger.calls;
        told.retain(|k, _| calls.get(k).is_some_and(|r| r.state == CallState::Running));
        match told.get(key) {
            Some(at) if now_ms < at.saturating_add(PROGRESS_NOTIFY_MS) => false,
            _ => {
                told.insert(key.to_owned(), now_ms);
                true
            }
        }
    }

    /// Whether the user cancelled the call the pool knows as `cancel_key` (forgotten once
    /// asked: the call has ended).
    pub fn take_cancelled(&mut self, cancel_key: &str) -> bool {
        self.inflight.cancelled.remove(cancel_key)
    }

    /// A run by hand started (the panel chose `key`); `false` when the key is taken or not a
    /// short token.
    pub fn run_started(&mut self, key: &str, server: &str, tool: &str, now_ms: u64) -> bool {
        let fine = !key.is_empty()
            && key.len() <= RUN_KEY_MAX
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !fine || self.inflight.runs.contains_key(key) || self.ledger.calls.contains_key(key) {
            return false;
        }
        let view = RunningCall {
            key: key.to_owned(),
            server_id: server.to_owned(),
            tool: tool.to_owned(),
            started_at: now_ms,
            progress: None,
        };
        self.inflight.runs.insert(key.to_owned(), view);
        true
    }

    /// A progress notification of a run by hand.
    pub fn run_progress(&mut self, key: &str, progress: Value) {
        if let Some(run) = self.inflight.runs.get_mut(key) {
            run.progress = Some(progress);
        }
    }

    /// A run by hand ended.
    pub fn run_ended(&mut self, key: &str) {
        self.inflight.runs.remove(key);
    }

    /// The runs by hand under way, for the panel.
    pub fn running_view(&self) -> Vec<RunningCall> {
        self.inflight.runs.values().cloned().collect()
    }
}

/// What a cancelled call says.
pub fn cancelled_error() -> ErrorBody {
    ErrorBody::new(
        ErrorKind::Cancelled,
        "cancelled by the user: the request was stopped and the server told to stop",
    )
    .with_hint("The server may have done part of the work before it stopped.")
}
