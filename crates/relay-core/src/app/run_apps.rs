//! The runner's part in MCP Apps: it reads an app's document (made in the second module,
//! `crate::rare`) and runs an app's calls through
//! the pool, and hands each outcome to the app's decisions in [`super::apps`].

use std::rc::Rc;

use serde_json::{Map, Value};

use super::host::Host;
use super::{PendingApp, Runner};
use crate::client::{Operation, Output};
use crate::contract::{ErrorBody, ErrorKind};
use crate::rare::{AppDocumentCall, RareCall};

type Answer = Result<Value, ErrorBody>;

impl<H: Host> Runner<H> {
    /// Reads the app's `ui://` resource and opens it.
    pub(super) async fn app_open(self: &Rc<Self>, pending: PendingApp) -> Answer {
        let op = Operation::ReadResource {
            uri: pending.uri.clone(),
        };
        let read = match self.mcp_op(&pending.server, op).await? {
            Output::Resource(read) => read,
            other => {
                return Err(ErrorBody::new(
                    ErrorKind::Internal,
                    format!("resources/read answered {}", other.kind()),
                ))
            }
        };
        let uri = pending.uri.clone();
        let call = RareCall::AppDocument(AppDocumentCall { uri, read });
        let document = self.host.rare(&call).await?.into_result()?;
        Ok(self.app.borrow_mut().app_read(pending, document))
    }

    /// Runs an app's call (allowed by the app) and records how it ended.
    pub(super) async fn app_call(
        self: &Rc<Self>,
        instance: String,
        server: String,
        tool: String,
        arguments: Map<String, Value>,
    ) -> Answer {
        let started = self.host.now_ms();
        let op = Operation::CallTool {
            name: tool.clone(),
            arguments: arguments.clone(),
            progress: false,
        };
        let result = (self.mcp_op(&server, op).await)
            .and_then(|o| o.into_tool_result().map_err(|e| (&e).into()));
        let duration = self.host.now_ms().saturating_sub(started);
        let (answer, effects) =
            (self.app.borrow_mut()).app_call_done(&instance, &tool, arguments, result, duration);
        self.run_effects(effects).await?;
        answer
    }
}
