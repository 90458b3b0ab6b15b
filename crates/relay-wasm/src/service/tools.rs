//! Tools and prompts: listing (refreshing from the servers), policy changes, runs by hand and
//! prompt building. The decisions are `relay_core::app`'s; this file fetches and converts.

use std::rc::Rc;

use relay_core::app::PolicyChange;
use relay_core::contract::Role;
use relay_core::policy::ToolPolicy;
use relay_core::prompt::PromptOptions;
use serde_json::{json, Value};

use super::{client_error, invalid, now_ms, str_field, HandlerResult, Sender, Service};
use crate::mcp::CallOptions;

impl Service {
    pub(super) async fn list_tools(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let refresh = msg.get("refresh").and_then(Value::as_bool).unwrap_or(false);
        let ids: Vec<String> = match msg.get("serverId").and_then(Value::as_str) {
            Some(id) => vec![id.to_owned()],
            None => self
                .config()
                .servers
                .iter()
                .filter(|s| s.enabled)
                .map(|s| s.id.clone())
                .collect(),
        };
        let single = ids.len() == 1 && msg.get("serverId").is_some();
        let mut out = Vec::new();
        for id in ids {
            if let Err(e) = self.refresh_tools(&id, refresh).await {
                if single {
                    return Err(e);
                }
                // A dead server keeps its last known tools in the list (and its error in its
                // state).
            }
            out.extend(self.app.borrow().tool_views(&id));
        }
        Ok(Value::from(out))
    }

    pub(super) async fn set_policy(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let server = str_field(msg, "serverId")?;
        let policy: Option<ToolPolicy> = match msg.get("policy") {
            None | Some(Value::Null) => None,
            Some(p) => Some(
                serde_json::from_value(p.clone())
                    .map_err(|_| invalid("policy must be allow, ask or deny"))?,
            ),
        };
        let flag = |name: &str| msg.get(name).and_then(Value::as_bool);
        let change = PolicyChange {
            server,
            tool: msg.get("tool").and_then(Value::as_str),
            policy,
            enabled: flag("enabled"),
            read_only: flag("readOnly").unwrap_or(false),
            confirm: flag("confirm").unwrap_or(false),
        };
        let effects = self.app.borrow_mut().set_policy(&change)?;
        self.run_effects(effects).await?;
        Ok(Value::from(self.app.borrow().tool_views(server)))
    }

    /// A call from the side panel's "run by hand".
    pub(super) async fn manual_call(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let server = str_field(msg, "serverId")?.to_owned();
        let name = str_field(msg, "tool")?.to_owned();
        if self.app.borrow().find_tool(&server, &name).is_none() {
            let _ = self.refresh_tools(&server, false).await;
        }
        let args = msg.get("arguments").cloned().unwrap_or(json!({}));
        let arguments = self.app.borrow().manual_call(&server, &name, &args)?;
        let sent = Value::Object(arguments.clone());
        let started = now_ms();
        let result = self
            .client
            .call_tool(&server, &name, arguments, CallOptions::default())
            .await;
        let duration = now_ms().saturating_sub(started);
        self.health
            .borrow_mut()
            .insert(server.clone(), (None, Some(duration)));
        match result {
            Ok(r) => Ok(
                json!({"state": "done", "tool": name, "serverId": server, "arguments": sent,
                       "result": r, "durationMs": duration}),
            ),
            Err(e) => Err(client_error(&e)),
        }
    }

    pub(super) async fn build_prompt(
        self: &Rc<Self>,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        let chat = self
            .chat_for(role, sender, msg)
            .ok()
            .map(|c| self.config().chat(&c));
        let requested: Option<Vec<String>> = match msg.get("serverIds") {
            Some(v) => Some(
                serde_json::from_value(v.clone())
                    .map_err(|_| invalid("serverIds must be a list of ids"))?,
            ),
            None => None,
        };
        let options: Option<PromptOptions> = match msg.get("options") {
            Some(o) => Some(
                serde_json::from_value(o.clone()).map_err(|e| invalid(format!("options: {e}")))?,
            ),
            None => None,
        };
        let ids = self
            .app
            .borrow()
            .prompt_servers(role, chat.as_ref(), requested)?;
        // Tools come from the stored lists; a server never listed yet is asked now.
        for id in &ids {
            if !self.tools().contains_key(id) {
                let _ = self.refresh_tools(id, false).await;
            }
        }
        Ok(self.app.borrow().prompt(chat.as_ref(), &ids, options))
    }
}
