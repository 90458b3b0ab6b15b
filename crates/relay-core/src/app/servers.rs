//! The server registry's decisions: a server from what the side panel sends (headers as rows,
//! secrets marked), secrets kept when the panel sends their mask back, and a server's view for
//! the panel with every secret masked.

use serde_json::{json, Value};

use crate::client::config::MASK;
use crate::client::ServerConfig;
use crate::contract::ErrorBody;

use super::App;

/// What the driver knows of a server's connection, for its view.
#[derive(Debug, Clone, Default)]
pub struct ServerState {
    pub connected: bool,
    /// The server's `initialize` answer (protocol version, server info, capabilities).
    pub info: Option<Value>,
    /// The transport that worked (`streamable` or `sse`).
    pub transport: Option<Value>,
    /// The last connection error.
    pub error: Option<ErrorBody>,
    /// The last request's latency in milliseconds.
    pub latency_ms: Option<u64>,
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new("invalid_argument", message)
}

/// A server configuration from the side panel's shape: headers as `[{name, value, secret?}]`
/// rows (`secret` marks a header whose name does not say it is a credential), or the stored
/// shapes (`[[name, value]]`, `{name: value}`). Validated.
pub fn server_from(value: Value, id: &str) -> Result<ServerConfig, ErrorBody> {
    let mut v = value;
    if let Some(obj) = v.as_object_mut() {
        obj.insert("id".into(), Value::String(id.to_owned()));
        let rows = match obj.get("headers") {
            Some(Value::Array(items)) if items.iter().any(Value::is_object) => Some(items.clone()),
            _ => None,
        };
        if let Some(items) = rows {
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

impl App {
    /// A server the panel adds: its id from its name, the default timeout unless it has one.
    pub fn new_server(&self, value: Value) -> Result<ServerConfig, ErrorBody> {
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("server")
            .to_owned();
        let id = self.config.unique_id(&name);
        let mut value = value;
        if let Some(obj) = value.as_object_mut() {
            if !obj.contains_key("timeoutMs") {
                obj.insert(
                    "timeoutMs".into(),
                    json!(self.config.settings.default_timeout_ms),
                );
            }
        }
        let mut server = server_from(value, &id)?;
        if server.name.trim().is_empty() {
            server.name = id;
        }
        Ok(server)
    }

    /// A server the panel edits. A header value equal to the mask means "unchanged": secrets
    /// never round-trip through the panel.
    pub fn edited_server(&self, value: Value) -> Result<ServerConfig, ErrorBody> {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("'server.id' is required"))?
            .to_owned();
        let old = self
            .config
            .servers
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| invalid(format!("no server '{id}'")))?;
        let mut server = server_from(value, &id)?;
        for (k, v) in &mut server.headers {
            if v == MASK {
                if let Some((_, old_v)) =
                    old.headers.iter().find(|(o, _)| o.eq_ignore_ascii_case(k))
                {
                    *v = old_v.clone();
                }
            }
        }
        Ok(server)
    }

    /// A server as the side panel shows it: secret header values masked.
    pub fn server_view(&self, id: &str, state: ServerState) -> Option<Value> {
        let s = self.config.servers.iter().find(|s| s.id == id)?;
        let status = if !s.enabled {
            "disabled"
        } else if state.error.is_some() {
            "failed"
        } else if state.connected {
            "connected"
        } else {
            "idle"
        };
        let headers: Vec<Value> = s
            .masked_headers()
            .into_iter()
            .map(|(name, value, secret)| json!({"name": name, "value": value, "secret": secret}))
            .collect();
        Some(json!({
            "id": s.id, "name": s.name, "url": s.url, "transport": s.transport, "headers": headers,
            "timeoutMs": s.timeout_ms, "enabled": s.enabled,
            "state": {"status": status, "info": state.info, "toolCount": self.tools.get(id).map(Vec::len),
                      "error": state.error, "lastLatencyMs": state.latency_ms, "transport": state.transport},
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_in_views_and_kept_when_their_mask_comes_back() {
        let mut app = App::default();
        let added = app
            .new_server(
                json!({"name": "Docs", "url": "https://docs.example/mcp", "headers": [
                {"name": "Authorization", "value": "Bearer s3cret"},
                {"name": "X-Team", "value": "t-42", "secret": true},
                {"name": "Accept-Language", "value": "fr"},
                {"name": "  ", "value": "dropped"}]}),
            )
            .expect("server");
        assert_eq!(added.id, "docs");
        assert_eq!(added.headers.len(), 3);
        app.config.servers.push(added);
        let view = app
            .server_view("docs", ServerState::default())
            .expect("view");
        let text = view.to_string();
        assert!(!text.contains("s3cret") && !text.contains("t-42"), "{text}");
        assert!(text.contains("fr"));
        // The panel sends the view's rows back, masks included, with one value changed.
        let mut rows = view["headers"].clone();
        rows[2]["value"] = json!("de");
        let edited = app
            .edited_server(json!({"id": "docs", "name": "Docs", "url": "https://docs.example/mcp", "headers": rows}))
            .expect("edited");
        let values: Vec<&str> = edited.headers.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, ["Bearer s3cret", "t-42", "de"]);
        assert!(edited.is_secret_header("x-team"));
        assert_eq!(
            app.edited_server(json!({"id": "nope", "url": "https://x/"}))
                .expect_err("unknown")
                .kind,
            "invalid_argument"
        );
    }
}
