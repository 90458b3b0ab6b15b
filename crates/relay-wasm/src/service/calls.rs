//! The tool loop's IO: what `relay_core::app` decides, carried out. Replies and decisions go
//! into the app; the effects it returns are run here (storage writes, MCP calls, messages to the
//! chat tab). No decision is made in this file.

use std::rc::Rc;

use relay_core::app::{CallEnd, Delivery, Effect};
use relay_core::contract::tab::InsertOutcome;
use relay_core::contract::{ErrorBody, Role, TabMessage};
use relay_core::policy::UserDecision;
use serde_json::Value;

use super::chrome::send_to_tab;
use super::{client_error, invalid, now_ms, str_field, HandlerResult, Sender, Service};
use crate::mcp::{CallOptions, Progress, ProgressFn};

impl Service {
    /// Carries out the app's effects: storage writes now (in order), the rest in the
    /// background so the answer to the message that caused them is not held up.
    pub(super) async fn run_effects(
        self: &Rc<Self>,
        effects: Vec<Effect>,
    ) -> Result<(), ErrorBody> {
        for effect in effects {
            match effect {
                Effect::SaveConfig => self.save_config().await?,
                Effect::SaveTools => self.save_tools().await?,
                Effect::SaveLedger => self.save_ledger().await?,
                Effect::Run(key) => {
                    let svc = Rc::clone(self);
                    wasm_bindgen_futures::spawn_local(async move { svc.execute(&key).await });
                }
                Effect::Notify { chat, key } => {
                    let svc = Rc::clone(self);
                    wasm_bindgen_futures::spawn_local(async move { svc.notify(&chat, &key).await });
                }
                Effect::Insert { tab, text, submit } => {
                    let message = TabMessage::Insert {
                        text,
                        submit,
                        attachments: Vec::new(),
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

    pub(super) async fn reply_update(
        self: &Rc<Self>,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        let chat = self.chat_for(role, sender, msg)?;
        let message_id = str_field(msg, "messageId")?;
        let text = msg.get("text").and_then(Value::as_str).unwrap_or("");
        let done = msg.get("done").and_then(Value::as_bool).unwrap_or(false);
        let history = msg.get("history").and_then(Value::as_bool).unwrap_or(false);
        let (answer, effects) = self
            .app
            .borrow_mut()
            .reply_update(&chat, message_id, text, done, history);
        self.run_effects(effects).await?;
        Ok(serde_json::to_value(answer).unwrap_or(Value::Null))
    }

    pub(super) async fn decide_call(
        self: &Rc<Self>,
        role: Role,
        sender: &Sender,
        msg: &Value,
    ) -> HandlerResult {
        let key = str_field(msg, "key")?;
        let decision = str_field(msg, "decision")?;
        let decision = UserDecision::parse(decision)
            .ok_or_else(|| invalid(format!("unknown decision '{decision}'")))?;
        let confirm = msg.get("confirm").and_then(Value::as_bool).unwrap_or(false);
        let sender_chat = match role {
            Role::Content => Some(self.chat_for(role, sender, msg)?),
            Role::Page => None,
        };
        let (record, effects) =
            self.app
                .borrow_mut()
                .decide(role, sender_chat.as_deref(), key, decision, confirm)?;
        self.run_effects(effects).await?;
        Ok(serde_json::to_value(record).unwrap_or(Value::Null))
    }

    /// Sends one admitted call to its server and reports how it ended.
    async fn execute(self: &Rc<Self>, key: &str) {
        let started = now_ms();
        let prepared = self.app.borrow_mut().prepare_call(key, started);
        let call = match prepared {
            Ok(call) => call,
            Err(effects) => return self.run_background(effects).await,
        };
        let progress_key = key.to_owned();
        let svc = Rc::clone(self);
        let on_progress: ProgressFn = Rc::new(move |p: &Progress| {
            if let Ok(v) = serde_json::to_value(p) {
                svc.app.borrow_mut().call_progress(&progress_key, v);
            }
        });
        let options = CallOptions::new(Some(on_progress), Some(key.to_owned()));
        let result = self
            .client
            .call_tool(&call.server_id, &call.tool, call.arguments, options)
            .await;
        let duration = now_ms().saturating_sub(started);
        self.health
            .borrow_mut()
            .entry(call.server_id.clone())
            .or_insert((None, None))
            .1 = Some(duration);
        let end = match result {
            Ok(r) => CallEnd::Result(r),
            Err(e) => CallEnd::Error {
                error: client_error(&e),
                may_have_run: e.may_have_run(),
            },
        };
        let effects = self.app.borrow_mut().finish_call(key, end, duration);
        self.run_background(effects).await;
    }

    /// Tells the chat's content script that a call changed (its card updates).
    async fn notify(&self, chat: &str, key: &str) {
        let rec = self.ledger().calls.get(key).cloned();
        if let (Some(tab), Some(rec)) = (relay_core::app::tab_of(chat), rec) {
            let calls = vec![serde_json::to_value(rec).unwrap_or(Value::Null)];
            let _ = send_to_tab(tab, &TabMessage::Calls { calls }).await;
        }
    }

    /// Writes a message's results into the chat, when the app has them ready.
    async fn deliver(self: &Rc<Self>, chat: &str, message_id: &str) {
        let Some(delivery) = self.app.borrow_mut().take_delivery(chat, message_id) else {
            return;
        };
        let outcome = self.write(&delivery).await;
        let effects = self.app.borrow_mut().delivery_written(&delivery, &outcome);
        self.run_background(effects).await;
    }

    /// Sends a delivery to its tab; a tab that did not answer wrote nothing.
    async fn write(&self, d: &Delivery) -> InsertOutcome {
        let Some(tab) = d.tab else {
            return InsertOutcome::default();
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
        send_to_tab(tab, &message)
            .await
            .ok()
            .and_then(|a| serde_json::from_value(a).ok())
            .unwrap_or_default()
    }
}
