//! The runner's part in requests whose work is the second module's (`crate::rare`): an
//! `mcpServers` import read (and applied), an accepted form checked, a local plan read. The
//! work's result is then the app's to decide on (`App::elicitation_checked`, `App::new_server`),
//! or the answer as the second module made it (a preview, a plan).

use std::rc::Rc;

use super::host::Host;
use super::requests::{answer, import_preview};
use super::servers::input_of;
use super::Runner;
use crate::client::ImportReport;
use crate::contract::request::answers;
use crate::contract::views::{ImportAnswer, ImportedServer};
use crate::contract::ErrorBody;
use crate::rare::{ElicitAcceptCall, ImportCall, LocalPlanCall, RareCall, RareReply};
use serde_json::Value;

type Answer = Result<Value, ErrorBody>;

impl<H: Host> Runner<H> {
    /// `servers/import`: the configuration read in the second module; with `apply`, each of its
    /// servers added (as `servers/add` would) and their views answered, else the preview.
    pub(super) async fn import_read(self: &Rc<Self>, call: ImportCall, apply: bool) -> Answer {
        let read = RareCall::ImportServers(call);
        let report: ImportReport = self.host.rare(&read).await?.into_result()?;
        if !apply {
            return Ok(import_preview(report));
        }
        let mut added = Vec::new();
        for server in report.servers {
            let server = self.app.borrow().new_server(input_of(&server))?;
            added.push(ImportedServer::Added(Box::new(
                self.put_view(server, false).await?,
            )));
        }
        Ok(answer::<answers::ServersImport>(ImportAnswer {
            servers: added,
            skipped: report.skipped,
        }))
    }

    /// `elicitation/answer` with an accepted form: checked in the second module, then sent (or
    /// refused naming the field, the question still open); the questions still waiting.
    pub(super) async fn elicitation_check(
        self: &Rc<Self>,
        key: String,
        call: ElicitAcceptCall,
    ) -> Answer {
        let reply = self.host.rare(&RareCall::ElicitAccept(call)).await;
        let checked = reply.and_then(RareReply::into_result);
        let effects = self.app.borrow_mut().elicitation_checked(&key, checked)?;
        self.run_effects(effects).await?;
        let views = self.app.borrow().elicitations_view();
        Ok(answer::<answers::ElicitationAnswer>(views))
    }

    /// `local/plan`: the plan as the second module made it (`LocalPlanView`).
    pub(super) async fn local_plan(self: &Rc<Self>, call: LocalPlanCall) -> Answer {
        self.host
            .rare(&RareCall::LocalPlan(call))
            .await?
            .into_result()
    }
}
