//! `RelayClient`, the MCP client as a JavaScript class (service worker and Node host).
//!
//! ```js
//! const client = new RelayClient([{id, name, url, transport, headers, timeoutMs, enabled}], options?);
//! await client.listTools("id", refresh?)            // → [Tool]
//! await client.callTool("id", "name", args, {onProgress, key}?)  // → CallToolResult
//! client.cancel(key)                               // → boolean
//! await client.listPrompts("id"); await client.getPrompt("id", "name", args)
//! await client.listResources("id"); await client.listResourceTemplates("id"); await client.readResource("id", uri)
//! await client.ping("id"); client.removeServer("id"); client.setServers([...]); client.close()
//! client.status()                                  // → [{id, enabled, connected, transport, info, stats}]
//! client.setEventListener((serverId, event) => …)  // connected / listChanged / log / notification
//! RelayClient.importConfig(json, existingIds?)     // → {servers, skipped}
//! ```
//! Results are plain JSON (maps as objects). Failures reject with `{kind, message, hint}`.

use std::rc::Rc;

use relay_core::client::{import_mcp_servers, ErrorReport, Operation, ServerConfig, SessionEvent};
use relay_core::contract::ErrorBody;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::client::{CallOptions, ClientOptions, McpClient, Progress};

use relay_core::client::Output;

use crate::js::{error_value, from_js, from_js_lenient, to_js, to_js_text};

fn report_value(report: &ErrorReport) -> JsValue {
    let value = error_value(
        &ErrorBody::new(report.kind, report.message.clone()).with_hint(report.hint.clone()),
    );
    crate::auth::with_challenge(value, report)
}

fn invalid(message: &str) -> JsValue {
    error_value(
        &ErrorBody::new("invalid_argument", message)
            .with_hint("Check the arguments passed to RelayClient."),
    )
}

fn servers_from(value: JsValue) -> Result<Vec<ServerConfig>, JsValue> {
    if let Some(text) = value.as_string() {
        return serde_json::from_str(&text).map_err(|e| invalid(&format!("servers: {e}")));
    }
    from_js_lenient(value, "servers")
}

fn object_or_empty(value: JsValue, what: &str) -> Result<Map<String, Value>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Map::new());
    }
    match from_js::<Value>(value, what)? {
        Value::Object(map) => Ok(map),
        other => Err(invalid(&format!("{what} must be an object, got {other}"))),
    }
}

fn event_value(event: &SessionEvent) -> Value {
    match event {
        SessionEvent::Connected(info) => json!({"type": "connected", "info": info}),
        SessionEvent::ListChanged(list) => json!({"type": "listChanged", "list": list}),
        SessionEvent::Log {
            level,
            logger,
            data,
        } => json!({"type": "log", "level": level, "logger": logger, "data": data}),
        SessionEvent::Notification { method, params } => {
            json!({"type": "notification", "method": method, "params": params})
        }
        SessionEvent::Progress {
            progress,
            total,
            message,
            ..
        } => {
            json!({"type": "progress", "progress": progress, "total": total, "message": message})
        }
        SessionEvent::Completed { .. } => json!({"type": "completed"}),
        _ => json!({"type": "other"}),
    }
}

/// The MCP client for JavaScript. See the module documentation.
#[wasm_bindgen]
pub struct RelayClient {
    client: McpClient,
}

#[wasm_bindgen]
impl RelayClient {
    /// `servers`: an array of server configs (or its JSON text); `options`: `{maxConcurrent,
    /// listen, toolsTtlMs, maxAttempts, baseDelayMs, maxDelayMs, budgetMs, clientName,
    /// clientVersion}`, all optional.
    #[wasm_bindgen(constructor)]
    pub fn new(servers: JsValue, options: JsValue) -> Result<RelayClient, JsValue> {
        let options: ClientOptions = if options.is_undefined() || options.is_null() {
            ClientOptions::default()
        } else {
            from_js_lenient(options, "options")?
        };
        let client = McpClient::new(options);
        if !(servers.is_undefined() || servers.is_null()) {
            client.set_servers(servers_from(servers)?);
        }
        Ok(RelayClient { client })
    }

    /// Replaces the configured servers (unchanged ones keep their sessions).
    #[wasm_bindgen(js_name = setServers)]
    pub fn set_servers(&self, servers: JsValue) -> Result<(), JsValue> {
        self.client.set_servers(servers_from(servers)?);
        Ok(())
    }

    /// Removes a server, deleting its session on the server.
    #[wasm_bindgen(js_name = removeServer)]
    pub fn remove_server(&self, server_id: &str) -> bool {
        self.client.remove_server(server_id)
    }

    /// Ends every session.
    pub fn close(&self) {
        self.client.close();
    }

    /// Cancels the call started with `{key}`.
    pub fn cancel(&self, key: &str) -> bool {
        self.client.cancel(key)
    }

    /// Connection state and counters of every server.
    pub fn status(&self) -> Result<JsValue, JsValue> {
        to_js(&self.client.status())
    }

    /// `listener(serverId, event)` receives `{type: "connected" | "listChanged" | "log" |
    /// "notification", ...}`; `null` removes it.
    #[wasm_bindgen(js_name = setEventListener)]
    pub fn set_event_listener(&self, listener: JsValue) {
        let Some(function) = listener.dyn_ref::<js_sys::Function>().cloned() else {
            self.client.set_event_listener(None);
            return;
        };
        self.client.set_event_listener(Some(Rc::new(
            move |server_id: &str, event: &SessionEvent| {
                if let Ok(value) = to_js(&event_value(event)) {
                    // A throwing listener must not break the client.
                    let _ = function.call2(&JsValue::NULL, &JsValue::from_str(server_id), &value);
                }
            },
        )));
    }

    /// All tools of a server (cached for 5 minutes unless `refresh`).
    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(&self, server_id: String, refresh: Option<bool>) -> js_sys::Promise {
        self.run(
            server_id,
            Operation::ListTools {
                refresh: refresh.unwrap_or(false),
            },
            CallOptions::default(),
        )
    }

    /// Calls a tool; `options` is `{onProgress?: (p) => void, key?: string}`.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(
        &self,
        server_id: String,
        name: String,
        args: JsValue,
        options: JsValue,
    ) -> js_sys::Promise {
        let arguments = match object_or_empty(args, "arguments") {
            Ok(arguments) => arguments,
            Err(e) => return js_sys::Promise::reject(&e),
        };
        let get = |key: &str| {
            js_sys::Reflect::get(&options, &JsValue::from_str(key))
                .ok()
                .filter(|v| !v.is_undefined())
        };
        let on_progress = if options.is_object() {
            get("onProgress")
        } else {
            None
        };
        let on_progress = on_progress
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .map(|function| {
                Rc::new(move |update: &Progress| {
                    if let Ok(value) = to_js(update) {
                        let _ = function.call1(&JsValue::NULL, &value);
                    }
                }) as Rc<dyn Fn(&Progress)>
            });
        let cancel_key = if options.is_object() {
            get("key").and_then(|k| k.as_string())
        } else {
            None
        };
        let progress = on_progress.is_some();
        let op = Operation::CallTool {
            name,
            arguments,
            progress,
        };
        self.run(server_id, op, CallOptions::new(on_progress, cancel_key))
    }

    /// All prompts of a server.
    #[wasm_bindgen(js_name = listPrompts)]
    pub fn list_prompts(&self, server_id: String) -> js_sys::Promise {
        self.run(server_id, Operation::ListPrompts, CallOptions::default())
    }

    /// Expands a prompt.
    #[wasm_bindgen(js_name = getPrompt)]
    pub fn get_prompt(&self, server_id: String, name: String, args: JsValue) -> js_sys::Promise {
        match object_or_empty(args, "arguments") {
            Ok(arguments) => self.run(
                server_id,
                Operation::GetPrompt { name, arguments },
                CallOptions::default(),
            ),
            Err(e) => js_sys::Promise::reject(&e),
        }
    }

    /// All resources of a server.
    #[wasm_bindgen(js_name = listResources)]
    pub fn list_resources(&self, server_id: String) -> js_sys::Promise {
        self.run(server_id, Operation::ListResources, CallOptions::default())
    }

    /// All resource templates of a server.
    #[wasm_bindgen(js_name = listResourceTemplates)]
    pub fn list_resource_templates(&self, server_id: String) -> js_sys::Promise {
        self.run(
            server_id,
            Operation::ListResourceTemplates,
            CallOptions::default(),
        )
    }

    /// Reads a resource.
    #[wasm_bindgen(js_name = readResource)]
    pub fn read_resource(&self, server_id: String, uri: String) -> js_sys::Promise {
        self.run(
            server_id,
            Operation::ReadResource { uri },
            CallOptions::default(),
        )
    }

    /// Pings a server (connecting if needed).
    pub fn ping(&self, server_id: String) -> js_sys::Promise {
        self.run(server_id, Operation::Ping, CallOptions::default())
    }

    /// Reads a Claude Desktop / Cursor / VS Code configuration: `{servers, skipped}`.
    #[wasm_bindgen(js_name = importConfig)]
    pub fn import_config(json: &str, existing_ids: JsValue) -> Result<JsValue, JsValue> {
        let existing: Vec<String> = if existing_ids.is_undefined() || existing_ids.is_null() {
            Vec::new()
        } else {
            from_js(existing_ids, "existingIds")?
        };
        match import_mcp_servers(json, &existing) {
            Ok(report) => to_js(&report),
            Err(e) => Err(report_value(
                &relay_core::client::ClientError::Config {
                    message: e.to_string(),
                }
                .report(),
            )),
        }
    }

    fn run(&self, server_id: String, op: Operation, options: CallOptions) -> js_sys::Promise {
        let client = self.client.clone();
        future_to_promise(async move {
            match client.run(&server_id, op, options).await {
                // A tool list crosses faster as JSON text (see `js`).
                Ok(output @ Output::Tools(_)) => to_js_text(&output),
                Ok(output) => to_js(&output),
                Err(error) => Err(report_value(&error.report())),
            }
        })
    }
}
