//! Calls answered with a task (`io.modelcontextprotocol/tasks`): the app keeps the task with
//! the call's record, so a worker restart resumes polling it (the call's outcome, never a
//! second run) instead of ending the call unknown. A task id is not a capability: it is only
//! recorded for the running call of the server that made it, and only that call's record ever
//! makes it be polled again, on that server.

use super::{App, Effect};
use crate::client::{SessionSnapshot, TaskForm};
use crate::policy::{CallState, CallTask};

impl App {
    /// The server of the running call `key` answered it with task `task_id`: recorded with the
    /// call, and the server-side session it lives in with the ledger's index (stored at once:
    /// the worker may stop any time). Ignored for another server's
    /// call, a call that is no longer running, or one whose task is known already.
    pub fn task_created(
        &mut self,
        server: &str,
        key: &str,
        task_id: &str,
        form: TaskForm,
        session: Option<SessionSnapshot>,
    ) -> Vec<Effect> {
        let Some(rec) = self.ledger.calls.get_mut(key) else {
            return Vec::new();
        };
        if rec.server_id != server || rec.state != CallState::Running || rec.task.is_some() {
            return Vec::new();
        }
        rec.task = Some(CallTask {
            id: task_id.to_owned(),
            form,
        });
        match session {
            Some(session) => self.ledger.task_sessions.insert(server.to_owned(), session),
            None => self.ledger.task_sessions.remove(server),
        };
        vec![Effect::SaveLedger]
    }

    /// The server-side session to poll a resumed task of `server` in, if one was kept.
    pub fn task_session(&self, server: &str) -> Option<SessionSnapshot> {
        self.ledger.task_sessions.get(server).cloned()
    }

    /// Forgets the sessions of servers with no running task left.
    pub(super) fn forget_task_sessions(&mut self) {
        let calls = &self.ledger.calls;
        let polled = |server: &str| {
            calls
                .values()
                .any(|c| c.server_id == server && c.state == CallState::Running && c.task.is_some())
        };
        self.ledger.task_sessions.retain(|server, _| polled(server));
    }
}
