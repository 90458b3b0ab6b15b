//! The server registry's IO: adding, editing, importing and testing servers, their views for
//! the side panel (secrets masked), and refreshing their tool lists.

use std::rc::Rc;

use relay_core::client::config::MASK;
use relay_core::client::{import_mcp_servers, ServerConfig};
use relay_core::contract::ErrorBody;
use relay_core::model::Tool;
use serde_json::{json, Value};

use super::{client_error, invalid, now_ms, str_field, HandlerResult, Service};

impl Service {
    pub(super) fn server_view(&self, id: &str) -> Option<Value> {
        let config = self.config();
        let s = config.servers.iter().find(|s| s.id == id)?;
        let status = self.client.status().into_iter().find(|st| st.id == id);
        let (error, latency) = self
            .health
            .borrow()
            .get(id)
            .cloned()
            .unwrap_or((None, None));
        let tool_count = self.tools().get(id).map(Vec::len);
        let state = if !s.enabled {
            "disabled"
        } else if error.is_some() {
            "failed"
        } else if status.as_ref().is_some_and(|st| st.connected) {
            "connected"
        } else {
            "idle"
        };
        let headers: Vec<Value> = s
            .masked_headers()
            .into_iter()
            .map(|(name, value, secret)| json!({"name": name, "value": value, "secret": secret}))
            .collect();
        let protocol = status
            .as_ref()
            .and_then(|st| st.info.as_ref())
            .map(|i| serde_json::to_value(i).unwrap_or(Value::Null));
        Some(json!({
            "id": s.id, "name": s.name, "url": s.url, "transport": s.transport, "headers": headers,
            "timeoutMs": s.timeout_ms, "enabled": s.enabled,
            "state": {"status": state, "info": protocol, "toolCount": tool_count, "error": error, "lastLatencyMs": latency,
                      "transport": status.as_ref().and_then(|st| st.transport.map(|t| serde_json::to_value(t).unwrap_or(Value::Null)))},
        }))
    }

    pub(super) fn server_views(&self) -> Vec<Value> {
        let ids: Vec<String> = self.config().servers.iter().map(|s| s.id.clone()).collect();
        ids.iter().filter_map(|id| self.server_view(id)).collect()
    }

    pub(super) fn server_from(
        &self,
        value: Value,
        id: Option<String>,
    ) -> Result<ServerConfig, ErrorBody> {
        let mut v = value;
        if let Some(obj) = v.as_object_mut() {
            if let Some(id) = id {
                obj.insert("id".into(), Value::String(id));
            }
            // The panel sends headers as [{name, value, secret?}]; `secret` marks a header
            // whose name does not say it is a credential.
            if let Some(Value::Array(items)) = obj.get("headers").cloned() {
                let named = |h: &Value| -> Option<(String, String, bool)> {
                    let name = h.get("name")?.as_str()?.trim();
                    let value = h.get("value")?.as_str()?;
                    let secret = h.get("secret").and_then(Value::as_bool).unwrap_or(false);
                    (!name.is_empty()).then(|| (name.to_owned(), value.to_owned(), secret))
                };
                let rows: Vec<(String, String, bool)> = items.iter().filter_map(named).collect();
                let pairs: Vec<Value> = rows.iter().map(|(k, v, _)| json!([k, v])).collect();
                let secret: Vec<Value> = rows
                    .iter()
                    .filter(|(_, _, secret)| *secret)
                    .map(|(k, _, _)| json!(k))
                    .collect();
                obj.insert("headers".into(), Value::Array(pairs));
                obj.insert("secretHeaders".into(), Value::Array(secret));
            }
        }
        let server: ServerConfig =
            serde_json::from_value(v).map_err(|e| invalid(format!("server: {e}")))?;
        server.validate().map_err(|e| invalid(e.to_string()))?;
        Ok(server)
    }

    pub(super) async fn add_server(self: &Rc<Self>, value: Value) -> HandlerResult {
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("server")
            .to_owned();
        let id = self.config().unique_id(&name);
        let mut value = value;
        if let Some(obj) = value.as_object_mut() {
            if !obj.contains_key("timeoutMs") {
                let timeout = self.config().settings.default_timeout_ms;
                obj.insert("timeoutMs".into(), json!(timeout));
            }
        }
        let mut server = self.server_from(value, Some(id.clone()))?;
        if server.name.trim().is_empty() {
            server.name = id.clone();
        }
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
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("'server.id' is required"))?
            .to_owned();
        let old = self
            .config()
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| invalid(format!("no server '{id}'")))?;
        let mut server = self.server_from(value, Some(id.clone()))?;
        // A masked value means "unchanged": secrets never round-trip through the panel.
        for (k, v) in &mut server.headers {
            if v == MASK {
                if let Some((_, old_v)) = old
                    .headers
                    .iter()
                    .find(|(ok, _)| ok.eq_ignore_ascii_case(k))
                {
                    *v = old_v.clone();
                }
            }
        }
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
