//! The MCP client as the JavaScript class `RelayClient` (Node host, tests, benchmarks).
//!
//! ```js
//! const client = new RelayClient([{id, name, url, transport, headers, timeoutMs, enabled}], options?);
//! await client.request("id", {method: "tools/list", refresh: true})       // → [Tool]
//! await client.request("id", {method: "tools/call", name, arguments}, {onProgress, key}?)
//! // also ping, prompts/list, prompts/get {name, arguments}, resources/list,
//! // resources/templates/list, resources/read {uri}: see relay_core::client::Operation
//! client.cancel(key); client.removeServer("id"); client.close()
//! client.status()                                  // → [{id, enabled, connected, transport, info, stats}]
//! client.setEventListener((serverId, event) => …)  // connected / listChanged / log / notification / request
//! client.respond("id", requestId, result)          // answers a server's request
//! client.setProver(proof, answered)                // DPoP proofs on every request (below)
//! ```
//! Results are plain JSON (maps as objects). Failures reject with `{kind, message, hint,
//! challenge?}`.

use std::rc::Rc;

use relay_core::client::{
    HttpMethod, Operation, Output, PoolOptions, Progress, ProofFuture, Prover, ResponseHead,
    ServerConfig, SessionEvent,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use relay_wasm::mcp::{new_client, McpClient};

/// A [`Prover`] of JavaScript functions (see `setProver`).
struct JsProver {
    proof: js_sys::Function,
    answered: js_sys::Function,
}

impl Prover for JsProver {
    fn proof(&self, server: &str, method: HttpMethod, url: &str) -> ProofFuture {
        let args = [server, method.as_str(), url].map(JsValue::from_str);
        let called = self
            .proof
            .apply(&JsValue::NULL, &js_sys::Array::from_iter(args));
        Box::pin(async move {
            let value = called.ok()?;
            let value = match value.dyn_into::<js_sys::Promise>() {
                Ok(promise) => JsFuture::from(promise).await.ok()?,
                Err(value) => value,
            };
            value.as_string()
        })
    }

    fn answered(&self, server: &str, url: &str, head: &ResponseHead) -> bool {
        let optional = |v: Option<&str>| v.map_or(JsValue::NULL, JsValue::from_str);
        let args = [
            JsValue::from_str(server),
            JsValue::from_str(url),
            JsValue::from(head.status),
            optional(head.header("www-authenticate")),
            optional(head.header("dpop-nonce")),
        ];
        self.answered
            .apply(&JsValue::NULL, &js_sys::Array::from_iter(args))
            .is_ok_and(|v| v.is_truthy())
    }
}
use crate::text::from_js_lenient;
use relay_wasm::js::{from_js, to_js, to_js_text};

/// The MCP client for JavaScript (see the module documentation). Clones share the sessions.
#[wasm_bindgen]
#[derive(Clone)]
pub struct RelayClient {
    client: McpClient,
}

#[wasm_bindgen]
impl RelayClient {
    /// `servers`: an array of server configs; `options`: `{maxConcurrent,
    /// listen, toolsTtlMs, maxAttempts, baseDelayMs, maxDelayMs, budgetMs, clientName,
    /// clientVersion, elicitation, logLevel}`, all optional (`elicitation`: declare it, and
    /// answer the servers' requests with `respond`; `logLevel`: `"debug"` … `"emergency"`, the
    /// log messages to ask servers for).
    #[wasm_bindgen(constructor)]
    pub fn js_new(servers: JsValue, options: JsValue) -> Result<RelayClient, JsValue> {
        let options: PoolOptions = match options.is_undefined() || options.is_null() {
            true => PoolOptions::default(),
            false => from_js_lenient(options, "options")?,
        };
        let client = new_client(options);
        if !(servers.is_undefined() || servers.is_null()) {
            let servers: Vec<ServerConfig> = from_js_lenient(servers, "servers")?;
            client.with(|pool, _| pool.set_servers(servers));
        }
        Ok(RelayClient { client })
    }

    /// Removes a server: pending calls are cancelled, its session deleted (HTTP DELETE).
    #[wasm_bindgen(js_name = removeServer)]
    pub fn remove_server(&self, server_id: &str) -> bool {
        self.client.with(|pool, _| pool.remove_server(server_id))
    }

    /// Ends every session.
    pub fn close(&self) {
        self.client.with(|pool, _| pool.close());
    }

    /// Cancels the call started with `{key}`; whether one was pending.
    pub fn cancel(&self, key: &str) -> bool {
        self.client.with(|pool, now| pool.cancel(key, now))
    }

    /// Connection state and counters of every server.
    #[wasm_bindgen(js_name = status)]
    pub fn js_status(&self) -> Result<JsValue, JsValue> {
        to_js(&self.client.with(|pool, _| pool.status()))
    }

    /// `listener(serverId, event)` receives `{type: "connected" | "listChanged" | "log" |
    /// "notification", ...}`; `null` removes it.
    #[wasm_bindgen(js_name = setEventListener)]
    pub fn set_event_listener(&self, listener: JsValue) {
        let listener = listener
            .dyn_into::<js_sys::Function>()
            .ok()
            .map(|function| {
                Rc::new(move |server_id: &str, event: &SessionEvent| {
                    if let Ok(value) = to_js(&event.to_json()) {
                        // A throwing listener must not break the client.
                        let _ =
                            function.call2(&JsValue::NULL, &JsValue::from_str(server_id), &value);
                    }
                }) as Rc<dyn Fn(&str, &SessionEvent)>
            });
        self.client.set_listener(listener);
    }

    /// DPoP: `proof(serverId, method, url)` resolves with the `DPoP` header value of a request
    /// (a proof signed with the sign-in's key; `null`: none), and `answered(serverId, url,
    /// status, wwwAuthenticate, dpopNonce)` says whether to make a proved request once more
    /// (the server asked for the nonce it sent). Both come from the core (`AuthFlow`).
    #[wasm_bindgen(js_name = setProver)]
    pub fn set_prover_js(&self, proof: js_sys::Function, answered: js_sys::Function) {
        self.client
            .set_prover(Some(Rc::new(JsProver { proof, answered })));
    }

    /// Answers a server's request (an event `{type: "request", id, method, params}`, given
    /// with `options.elicitation`) with `result`.
    pub fn respond(&self, server_id: &str, id: JsValue, result: JsValue) -> Result<bool, JsValue> {
        let (id, result) = (from_js(id, "id")?, from_js(result, "result")?);
        Ok(self
            .client
            .with(|pool, now| pool.respond(server_id, id, Ok(result), now)))
    }

    /// Runs one operation, `{method, ...}` (see the module documentation); `options` is
    /// `{onProgress?: (p) => void, key?: string}`.
    pub fn request(
        &self,
        server_id: String,
        operation: JsValue,
        options: JsValue,
    ) -> js_sys::Promise {
        let op: Operation = match from_js(operation, "operation") {
            Ok(op) => op,
            Err(e) => return js_sys::Promise::reject(&e),
        };
        let get = |key: &str| {
            js_sys::Reflect::get(&options, &JsValue::from_str(key))
                .ok()
                .filter(|_| options.is_object())
        };
        let on_progress = get("onProgress").and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let on_progress = on_progress.map(|function| {
            Rc::new(move |update: &Progress| {
                if let Ok(value) = to_js(update) {
                    let _ = function.call1(&JsValue::NULL, &value);
                }
            }) as Rc<dyn Fn(&Progress)>
        });
        let cancel_key = get("key").and_then(|k| k.as_string());
        let client = self.client.clone();
        future_to_promise(async move {
            match client.run(&server_id, op, on_progress, cancel_key).await {
                // A tool list crosses faster as JSON text (see `js`).
                Ok(output @ Output::Tools(_)) => to_js_text(&output),
                Ok(output) => to_js(&output),
                // `{kind, message, hint}`; an `auth` error adds the `challenge` a sign-in needs
                // (`AuthFlow.send({type: "challenge", ...challenge})`).
                Err(error) => Err(to_js(&error.report())?),
            }
        })
    }
}
