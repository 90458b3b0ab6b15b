//! The app's effects carried out: storage writes, MCP calls, messages to the chat tab. No
//! decision is made in this file: how a call ends and what a delivery did go back to the app.

use std::rc::Rc;

use relay_core::app::{tab_of, CallEnd, Effect};
use relay_core::client::{Operation, Progress};
use relay_core::contract::{ErrorBody, TabMessage};
use serde_json::Value;

use super::chrome::send_to_tab;
use super::{now_ms, Service, CONFIG_KEY, LEDGER_KEY, TOOLS_KEY};
use crate::mcp::{CallOptions, ProgressFn};

impl Service {
    /// Carries out the app's effects: storage writes now (in order), the rest in the
    /// background so the answer to the message that caused them is not held up.
    pub(super) async fn run_effects(
        self: &Rc<Self>,
        effects: Vec<Effect>,
    ) -> Result<(), ErrorBody> {
        for effect in effects {
            match effect {
                Effect::SaveConfig => {
                    let config = json(&self.app.borrow().config);
                    self.local.set(CONFIG_KEY, &config).await?;
                }
                Effect::SaveTools => {
                    let tools = json(&self.app.borrow().tools);
                    self.local.set(TOOLS_KEY, &tools).await?;
                }
                Effect::SaveLedger => {
                    let ledger = json(self.app.borrow_mut().ledger_to_store());
                    self.session.set(LEDGER_KEY, &ledger).await?;
                }
                Effect::Run(key) => {
                    let svc = Rc::clone(self);
                    wasm_bindgen_futures::spawn_local(async move { svc.execute(&key).await });
                }
                Effect::Notify { chat, key } => {
                    // The card shows the call as it is when the message goes out.
                    let svc = Rc::clone(self);
                    wasm_bindgen_futures::spawn_local(async move {
                        let record = svc.app.borrow().ledger.calls.get(&key).map(json);
                        if let (Some(tab), Some(record)) = (tab_of(&chat), record) {
                            let calls = vec![record];
                            let _ = send_to_tab(tab, &TabMessage::Calls { calls }).await;
                        }
                    });
                }
                Effect::Insert { tab, text, submit } => {
                    let attachments = Vec::new();
                    let message = TabMessage::Insert {
                        text,
                        submit,
                        attachments,
                    };
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = send_to_tab(tab, &message).await;
                    });
                }
                Effect::Deliver { chat, message_id } => {
                    let svc = Rc::clone(self);
                    wasm_bindgen_futures::spawn_local(async move {
                        svc.deliver(&chat, &message_id).await;
                    });
                }
            }
        }
        Ok(())
    }

    /// Effects of background work: nobody waits for an answer, so a failed storage write can
    /// only be logged.
    async fn run_background(self: &Rc<Self>, effects: Vec<Effect>) {
        if let Err(e) = self.run_effects(effects).await {
            web_sys::console::warn_1(&format!("MCP Relay: {}", e.message).into());
        }
    }

    /// Sends one admitted call to its server and reports how it ended.
    async fn execute(self: &Rc<Self>, key: &str) {
        let started = now_ms();
        let prepared = self.app.borrow_mut().prepare_call(key, started);
        let call = match prepared {
            Ok(call) => call,
            Err(effects) => return self.run_background(effects).await,
        };
        let (svc, progress_key) = (Rc::clone(self), key.to_owned());
        let on_progress: ProgressFn = Rc::new(move |p: &Progress| {
            if let Ok(v) = serde_json::to_value(p) {
                svc.app.borrow_mut().call_progress(&progress_key, v);
            }
        });
        let options = CallOptions {
            on_progress: Some(on_progress),
            cancel_key: Some(key.to_owned()),
        };
        let op = Operation::CallTool {
            name: call.tool,
            arguments: call.arguments,
            progress: true,
        };
        let result = self.client.run(&call.server_id, op, options).await;
        let duration = now_ms().saturating_sub(started);
        self.app
            .borrow_mut()
            .call_ended(&call.server_id, duration, false);
        let end = match result.and_then(|o| o.into_tool_result()) {
            Ok(r) => CallEnd::Result(r),
            Err(e) => CallEnd::Error {
                error: ErrorBody::from(&e),
                may_have_run: e.may_have_run(),
            },
        };
        let effects = self.app.borrow_mut().finish_call(key, end, duration);
        self.run_background(effects).await;
    }

    /// Writes a message's results into the chat, when the app has them ready.
    async fn deliver(self: &Rc<Self>, chat: &str, message_id: &str) {
        let Some(d) = self.app.borrow_mut().take_delivery(chat, message_id) else {
            return;
        };
        let message = TabMessage::Insert {
            text: d.text.clone(),
            submit: d.submit,
            attachments: d
                .attachments
                .iter()
                .filter_map(|a| serde_json::to_value(a).ok())
                .collect(),
        };
        let inserted = match d.tab {
            Some(tab) => send_to_tab(tab, &message)
                .await
                .ok()
                .and_then(|a| a.get("inserted").and_then(Value::as_bool)),
            None => None,
        };
        let effects = self
            .app
            .borrow_mut()
            .delivery_written(&d, inserted.unwrap_or(false));
        self.run_background(effects).await;
    }
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
