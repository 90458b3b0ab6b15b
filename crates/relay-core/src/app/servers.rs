//! The server registry's decisions: a server from what the side panel sends (headers as rows,
//! secrets marked), secrets kept when the panel sends their mask back, and a server's view for
//! the panel with every secret masked.

use crate::contract::{ErrorCause, ErrorKind};
use serde_json::{json, Value};

use crate::client::config::{DEFAULT_TIMEOUT_MS, MASK};
use crate::client::url::UrlError;
use crate::client::{loopback_origin, HttpUrl, ProtocolMode, ServerConfig, ServerStatus};
use crate::contract::request::ServerInput;
use crate::contract::views::{self, Header, ServerStatusName, ServerView};
use crate::contract::ErrorBody;
use crate::model::Tool;

use super::{App, Effect};

/// A server's last connection error and last request latency (ms), for its view.
pub type Health = (Option<ErrorBody>, Option<u64>);

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
    ErrorBody::new(ErrorKind::InvalidArgument, message)
}

/// A server configuration from the side panel's shape: headers as `[{name, value, secret?}]`
/// rows (`secret` marks a header whose name does not say it is a credential). Validated.
pub fn server_from(
    input: ServerInput,
    id: &str,
    default_timeout_ms: u64,
) -> Result<ServerConfig, ErrorBody> {
    let rows: Vec<Header> = input
        .headers
        .unwrap_or_default()
        .into_iter()
        .filter_map(|h| {
            let name = h.name.trim().to_owned();
            (!name.is_empty()).then_some(Header { name, ..h })
        })
        .collect();
    let server = ServerConfig {
        id: id.to_owned(),
        name: input.name,
        url: input.url,
        transport: input.transport.unwrap_or_default(),
        secret_headers: rows
            .iter()
            .filter(|h| h.secret == Some(true))
            .map(|h| h.name.clone())
            .collect(),
        headers: rows.into_iter().map(|h| (h.name, h.value)).collect(),
        timeout_ms: input.timeout_ms.unwrap_or(default_timeout_ms),
        enabled: input.enabled.unwrap_or(true),
        local: None,
    };
    server.validate().map_err(|e| {
        // A bad address is the one mistake with its own advice in every language.
        let cause = match HttpUrl::parse(&server.url) {
            Err(UrlError::NotHttp(_)) => Some(ErrorCause::UrlScheme),
            Err(_) => Some(ErrorCause::UrlInvalid),
            Ok(_) => None,
        };
        invalid(e.to_string()).with_cause(cause)
    })?;
    Ok(server)
}

/// The panel's shape of a configured server (an import's servers are added through it).
pub fn input_of(server: &ServerConfig) -> ServerInput {
    ServerInput {
        id: None,
        name: server.name.clone(),
        url: server.url.clone(),
        transport: Some(server.transport),
        headers: Some(
            server
                .headers
                .iter()
                .map(|(name, value)| Header {
                    name: name.clone(),
                    value: value.clone(),
                    secret: Some(
                        server
                            .secret_headers
                            .iter()
                            .any(|s| s.eq_ignore_ascii_case(name)),
                    ),
                })
                .collect(),
        ),
        timeout_ms: Some(server.timeout_ms),
        enabled: Some(server.enabled),
    }
}

impl App {
    /// A server the panel adds: its id from its name, the default timeout unless it has one.
    pub fn new_server(&self, input: ServerInput) -> Result<ServerConfig, ErrorBody> {
        let name = if input.name.is_empty() {
            "server"
        } else {
            input.name.as_str()
        };
        let id = self.config.unique_id(name);
        let mut server = server_from(input, &id, self.config.settings.default_timeout_ms)?;
        if server.name.trim().is_empty() {
            server.name = id;
        }
        Ok(server)
    }

    /// A server the panel edits. A header value equal to the mask means "unchanged": secrets
    /// never round-trip through the panel.
    pub fn edited_server(&self, input: ServerInput) -> Result<ServerConfig, ErrorBody> {
        let id = input
            .id
            .clone()
            .ok_or_else(|| invalid("'server.id' is required"))?;
        let old = self
            .config
            .servers
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| invalid(format!("no server '{id}'")))?;
        let mut server = server_from(input, &id, DEFAULT_TIMEOUT_MS)?;
        for (k, v) in &mut server.headers {
            if v == MASK {
                if let Some((_, old_v)) =
                    old.headers.iter().find(|(o, _)| o.eq_ignore_ascii_case(k))
                {
                    *v = old_v.clone();
                }
            }
        }
        // A local server stays the host's: its name and address are not the panel's to edit.
        server.local = old.local.clone();
        if server.local.is_some() {
            server.url = old.url.clone();
        }
        Ok(server)
    }

    /// A server as the side panel shows it: secret header values masked.
    pub fn server_view(&self, id: &str, state: ServerState) -> Option<ServerView> {
        let s = self.config.servers.iter().find(|s| s.id == id)?;
        let status = if !s.enabled {
            ServerStatusName::Disabled
        } else if self.connecting.contains_key(id) {
            ServerStatusName::Connecting
        } else if state.error.is_some() {
            ServerStatusName::Failed
        } else if state.connected {
            ServerStatusName::Connected
        } else {
            ServerStatusName::Idle
        };
        let headers = s
            .masked_headers()
            .into_iter()
            .map(|(name, value, secret)| Header {
                name,
                value,
                secret: Some(secret),
            })
            .collect();
        Some(ServerView {
            id: s.id.clone(),
            name: s.name.clone(),
            url: s.url.clone(),
            transport: s.transport,
            headers,
            timeout_ms: s.timeout_ms,
            enabled: s.enabled,
            auth: self.auth_view(id),
            local: s.local.clone(),
            state: views::ServerState {
                status,
                info: state.info,
                tool_count: self.tools.get(id).map(Vec::len),
                error: state.error,
                last_latency_ms: state.latency_ms,
                transport: state.transport,
            },
        })
    }
}

impl App {
    /// A server's view with what the client knows of its connection and its last error and
    /// latency.
    pub fn live_view(&self, id: &str, status: Option<&ServerStatus>) -> Option<ServerView> {
        let (error, latency_ms) = self.health.get(id).cloned().unwrap_or((None, None));
        let state = ServerState {
            connected: status.is_some_and(|s| s.connected),
            info: status
                .and_then(|s| s.info.as_ref())
                .and_then(|i| serde_json::to_value(i).ok()),
            transport: status
                .and_then(|s| s.transport)
                .and_then(|t| serde_json::to_value(t).ok()),
            error,
            latency_ms,
        };
        self.server_view(id, state)
    }

    /// A connection and tool listing of the server starts (`true`) or ends (`false`).
    pub fn connecting(&mut self, id: &str, started: bool) {
        let n = self.connecting.entry(id.to_owned()).or_default();
        if started {
            *n += 1;
        } else {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.connecting.remove(id);
            }
        }
    }

    /// How a server's `tools/list` ended: its tools (persisted when they changed) and the
    /// latency, or the error its view shows.
    pub fn tools_listed(
        &mut self,
        id: &str,
        result: Result<Vec<Tool>, ErrorBody>,
        latency_ms: u64,
    ) -> Vec<Effect> {
        match result {
            Ok(tools) => {
                self.health.insert(id.to_owned(), (None, Some(latency_ms)));
                self.set_tools(id, tools)
            }
            Err(error) => {
                self.health.insert(id.to_owned(), (Some(error), None));
                Vec::new()
            }
        }
    }

    /// What a server was found to speak after a request (`ServerStatus::protocol`):
    /// remembered, so the next worker starts there instead of probing again; saved when it
    /// changed.
    pub fn learned(&mut self, id: &str, mode: Option<ProtocolMode>) -> Vec<Effect> {
        let Some(mode) = mode else {
            return Vec::new();
        };
        let known = self.config.servers.iter().any(|s| s.id == id);
        if !known || self.config.protocols.get(id) == Some(&mode) {
            return Vec::new();
        }
        self.config.protocols.insert(id.to_owned(), mode);
        vec![Effect::SaveConfig]
    }

    /// A call on a server ended after `latency_ms`. A run by hand also clears the server's last
    /// error; a call of the loop keeps it.
    pub fn call_ended(&mut self, id: &str, latency_ms: u64, by_hand: bool) {
        let health = self.health.entry(id.to_owned()).or_insert((None, None));
        if by_hand {
            health.0 = None;
        }
        health.1 = Some(latency_ms);
    }
}

/// The extension's id from `chrome.runtime.getURL("")` (`chrome-extension://<id>/`).
pub fn extension_id(url: &str) -> Option<&str> {
    url.strip_prefix("chrome-extension://")
        .map(|rest| rest.trim_end_matches('/'))
        .filter(|id| !id.is_empty())
}

/// The `declarativeNetRequest.updateSessionRules` argument that replaces the `existing` session
/// rules with [`origin_rules`]; `None` when they are those rules already. Session rules outlive
/// the worker: on a restart they are usually what we would write, and an update is a round trip
/// through the browser on every cold start. Every field but the id, URL filter and initiator is
/// a constant of this code, so those three decide.
pub fn origin_rules_update(
    existing: &Value,
    servers: &[ServerConfig],
    extension_id: &str,
) -> Option<Value> {
    let existing: &[Value] = existing.as_array().map_or(&[], Vec::as_slice);
    let rules = origin_rules(servers, extension_id);
    let key = |r: &Value| {
        (
            r.get("id").and_then(Value::as_u64),
            r.pointer("/condition/urlFilter").cloned(),
            r.pointer("/condition/initiatorDomains").cloned(),
        )
    };
    if existing.len() == rules.len() && existing.iter().map(key).eq(rules.iter().map(key)) {
        return None;
    }
    let ids: Vec<Value> = existing
        .iter()
        .filter_map(|r| r.get("id").cloned())
        .collect();
    Some(json!({"removeRuleIds": ids, "addRules": rules}))
}

/// The `declarativeNetRequest` session rules for `servers`: loopback MCP servers built on the
/// Python SDK refuse any foreign `Origin` (DNS-rebinding protection), and a service worker's
/// POST carries `Origin: chrome-extension://<id>`. One rule per enabled loopback origin removes
/// the header from this extension's own requests (`tabIds: [-1]`: never a page's; and
/// `initiatorDomains`, since a web page's workers are tab -1 too), so they look like a local
/// client's.
pub fn origin_rules(servers: &[ServerConfig], extension_id: &str) -> Vec<Value> {
    let mut origins: Vec<String> = servers
        .iter()
        .filter(|s| s.enabled)
        .filter_map(|s| loopback_origin(&s.url))
        .collect();
    crate::sorted_map::sort(&mut origins);
    origins.dedup();
    origins
        .iter()
        .enumerate()
        .map(|(i, origin)| {
            json!({
                "id": i + 1,
                "priority": 1,
                "action": {"type": "modifyHeaders", "requestHeaders": [{"header": "origin", "operation": "remove"}]},
                "condition": {"urlFilter": format!("|{origin}/"), "tabIds": [-1],
                              "initiatorDomains": [extension_id],
                              "resourceTypes": ["xmlhttprequest", "other"]},
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: Value) -> ServerInput {
        crate::json_value::from_value(v).expect("a server input")
    }

    #[test]
    fn secrets_are_masked_in_views_and_kept_when_their_mask_comes_back() {
        let mut app = App::default();
        let added = app
            .new_server(input(
                json!({"name": "Docs", "url": "https://docs.example/mcp", "headers": [
                {"name": "Authorization", "value": "Bearer s3cret"},
                {"name": "X-Team", "value": "t-42", "secret": true},
                {"name": "Accept-Language", "value": "fr"},
                {"name": "  ", "value": "dropped"}]}),
            ))
            .expect("server");
        assert_eq!(added.id, "docs");
        assert_eq!(added.headers.len(), 3);
        app.config.servers.push(added);
        let view = app
            .server_view("docs", ServerState::default())
            .expect("view");
        let view = serde_json::to_value(view).expect("json");
        let text = view.to_string();
        assert!(!text.contains("s3cret") && !text.contains("t-42"), "{text}");
        assert!(text.contains("fr"));
        // The panel sends the view's rows back, masks included, with one value changed.
        let mut rows = view["headers"].clone();
        rows[2]["value"] = json!("de");
        let edited = app
            .edited_server(input(json!({"id": "docs", "name": "Docs", "url": "https://docs.example/mcp", "headers": rows})))
            .expect("edited");
        let values: Vec<&str> = edited.headers.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, ["Bearer s3cret", "t-42", "de"]);
        assert!(edited.is_secret_header("x-team"));
        assert_eq!(
            app.edited_server(input(json!({"id": "nope", "url": "https://x/"})))
                .expect_err("unknown")
                .kind,
            "invalid_argument"
        );
    }

    #[test]
    fn origin_rules_cover_enabled_loopback_servers_once_each() {
        let server = |id: &str, url: &str, enabled: bool| {
            let mut s = ServerConfig::new(id, id, url);
            s.enabled = enabled;
            s
        };
        let servers = [
            server("a", "http://127.0.0.1:3001/mcp", true),
            server("b", "http://127.0.0.1:3001/other", true),
            server("c", "http://localhost:8000/mcp", true),
            server("d", "http://127.0.0.1:9000/mcp", false),
            server("e", "https://remote.example/mcp", true),
        ];
        let update = origin_rules_update(&json!([{"id": 4}, {"id": 9}]), &servers, "abc")
            .expect("other rules are replaced");
        assert_eq!(update["removeRuleIds"], json!([4, 9]));
        let rules = origin_rules(&servers, "abc");
        assert_eq!(update["addRules"], json!(rules));
        // Rules that are already these (a worker restart) are left alone; none for none.
        assert_eq!(origin_rules_update(&json!(rules), &servers, "abc"), None);
        assert_eq!(origin_rules_update(&Value::Null, &[], "abc"), None);
        let other_extension = origin_rules_update(&json!(rules), &servers, "xyz").expect("update");
        assert_eq!(
            other_extension["removeRuleIds"].as_array().map(Vec::len),
            Some(rules.len())
        );
        let fewer = origin_rules_update(&json!(rules), &servers[..1], "abc").expect("update");
        assert_eq!(fewer["addRules"].as_array().map(Vec::len), Some(1));
        let filters: Vec<&str> = rules
            .iter()
            .map(|r| r["condition"]["urlFilter"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            filters,
            ["|http://127.0.0.1:3001/", "|http://localhost:8000/"]
        );
        assert!(rules
            .iter()
            .all(|r| r["condition"]["initiatorDomains"] == json!(["abc"])));
        assert_eq!(rules[1]["id"], 2);
        // (getURL answer, id)
        for (url, want) in [
            ("chrome-extension://abc/", Some("abc")),
            ("chrome-extension:///", None),
            ("https://x/", None),
        ] {
            assert_eq!(extension_id(url), want, "{url}");
        }
    }
}
