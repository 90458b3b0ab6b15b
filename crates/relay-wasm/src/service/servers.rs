//! The server registry's IO: adding, editing, importing and testing servers, their views for
//! the side panel (secrets masked), and refreshing their tool lists.

use std::rc::Rc;

use relay_core::app::ServerState;
use relay_core::client::config::MASK;
use relay_core::client::import_mcp_servers;
use relay_core::contract::ErrorBody;
use relay_core::model::Tool;
use serde_json::{json, Value};

use super::{client_error, invalid, now_ms, str_field, HandlerResult, Service};

impl Service {
    pub(super) fn server_view(&self, id: &str) -> Option<Value> {
        let status = self.client.status().into_iter().find(|st| st.id == id);
        let (error, latency_ms) = self
            .health
            .borrow()
            .get(id)
            .cloned()
            .unwrap_or((None, None));
        let state = ServerState {
            connected: status.as_ref().is_some_and(|st| st.connected),
            info: status
                .as_ref()
                .and_then(|st| st.info.as_ref())
                .and_then(|i| serde_json::to_value(i).ok()),
            transport: status
                .as_ref()
                .and_then(|st| st.transport)
                .and_then(|t| serde_json::to_value(t).ok()),
            error,
            latency_ms,
        };
        self.app.borrow().server_view(id, state)
    }

    pub(super) fn server_views(&self) -> Vec<Value> {
        let ids: Vec<String> = self.config().servers.iter().map(|s| s.id.clone()).collect();
        ids.iter().filter_map(|id| self.server_view(id)).collect()
    }

    pub(super) async fn add_server(self: &Rc<Self>, value: Value) -> HandlerResult {
        let server = self.app.borrow().new_server(value)?;
        let id = server.id.clone();
        let added = server.clone();
        self.prepare_servers(|list| list.push(added)).await?;
        if self.config().servers.iter().any(|s| s.id == id) {
            return Err(invalid(format!(
                "a server with id '{id}' was added meanwhile; try again"
            )));
        }
        self.config_mut().servers.push(server.clone());
        self.client.add_server(server);
        self.save_config().await?;
        let _ = self.refresh_tools(&id, false).await;
        self.server_view(&id)
            .ok_or_else(|| invalid("server vanished"))
    }

    pub(super) async fn update_server(self: &Rc<Self>, value: Value) -> HandlerResult {
        let server = self.app.borrow().edited_server(value)?;
        let id = server.id.clone();
        let updated = server.clone();
        self.prepare_servers(|list| {
            if let Some(slot) = list.iter_mut().find(|s| s.id == updated.id) {
                *slot = updated;
            }
        })
        .await?;
        {
            let mut c = self.config_mut();
            if let Some(slot) = c.servers.iter_mut().find(|s| s.id == id) {
                *slot = server.clone();
            }
        }
        self.health.borrow_mut().remove(&id);
        self.client.remove_server(&id);
        self.client.add_server(server.clone());
        self.save_config().await?;
        if server.enabled {
            let _ = self.refresh_tools(&id, true).await;
        }
        self.server_view(&id)
            .ok_or_else(|| invalid("server vanished"))
    }

    pub(super) async fn import_servers(self: &Rc<Self>, msg: &Value) -> HandlerResult {
        let text = str_field(msg, "json")?;
        let apply = msg.get("apply").and_then(Value::as_bool).unwrap_or(false);
        let existing: Vec<String> = self.config().servers.iter().map(|s| s.id.clone()).collect();
        let report = import_mcp_servers(text, &existing).map_err(|e| invalid(e.to_string()))?;
        let skipped = serde_json::to_value(&report.skipped).unwrap_or(Value::Null);
        let mut views = Vec::new();
        for server in report.servers {
            if apply {
                let mut v = serde_json::to_value(&server).unwrap_or(Value::Null);
                if let Some(o) = v.as_object_mut() {
                    o.remove("id");
                }
                views.push(self.add_server(v).await?);
            } else {
                views.push(json!({"name": server.name, "url": server.url, "transport": server.transport,
                    "headers": server.headers.iter().map(|(k, _)| json!({"name": k, "value": MASK})).collect::<Vec<_>>()}));
            }
        }
        Ok(json!({"servers": views, "skipped": skipped}))
    }

    pub(super) async fn refresh_tools(
        self: &Rc<Self>,
        id: &str,
        refresh: bool,
    ) -> Result<Vec<Tool>, ErrorBody> {
        let started = now_ms();
        match self.client.list_tools(id, refresh).await {
            Ok(tools) => {
                self.health.borrow_mut().insert(
                    id.to_owned(),
                    (None, Some(now_ms().saturating_sub(started))),
                );
                let effects = self.app.borrow_mut().set_tools(id, tools.clone());
                self.run_effects(effects).await?;
                Ok(tools)
            }
            Err(e) => {
                let body = client_error(&e);
                self.health
                    .borrow_mut()
                    .insert(id.to_owned(), (Some(body.clone()), None));
                Err(body)
            }
        }
    }
}
