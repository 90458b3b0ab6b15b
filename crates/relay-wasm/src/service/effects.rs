//! The app's effects carried out: storage writes, MCP calls, messages to the chat tab. No
//! decision is made in this file: how a call ends and what a delivery did go back to the app.

use std::rc::Rc;

use relay_core::app::{tab_of, CallEnd, Effect, ELICITATION_TIMEOUT_MS};
use relay_core::client::jsonrpc::{ErrorCode, ErrorObject};
use relay_core::client::{Progress, SessionEvent};
use relay_core::contract::storage::Area;
use relay_core::contract::{ErrorBody, TabMessage};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

use super::chrome::send_to_tab;
use super::{now_ms, Service};
use crate::mcp::set_timeout;

impl Service {
    /// Carries out the app's effects: storage writes now (in order), the rest in the
    /// background so the answer to the message that caused them is not held up.
    pub(super) async fn run_effects(
        self: &Rc<Self>,
        effects: Vec<Effect>,
    ) -> Result<(), ErrorBody> {
        for effect in effects {
            let stored = self.app.borrow_mut().stored(&effect);
            if matches!(effect, Effect::SaveLedger) {
                // The toolbar badge follows the ledger (calls waiting for the user), set first
                // so a panel that hears of the ledger change reads the new count.
                let pending = self.app.borrow().pending_count();
                super::chrome::set_pending_badge(pending).await;
            }
            if let Some((area, key, value)) = stored {
                let store = match area {
                    Area::Local => &self.local,
                    Area::Session => &self.session,
                };
                store.set(key, &value).await?;
                continue;
            }
            let svc = Rc::clone(self);
            match effect {
                Effect::Run(key) => spawn_local(async move { svc.execute(&key).await }),
                Effect::Notify { chat, key } => spawn_local(async move {
                    // The card shows the call as it is when the message goes out.
                    let record = svc.app.borrow().ledger.calls.get(&key).cloned();
                    if let (Some(tab), Some(record)) = (tab_of(&chat), record) {
                        let calls = vec![serde_json::to_value(record).unwrap_or(Value::Null)];
                        let _ = send_to_tab(tab, &TabMessage::Calls { calls }).await;
                    }
                }),
                Effect::Insert { tab, text, submit } => spawn_local(async move {
                    let attachments = Vec::new();
                    let message = TabMessage::Insert {
                        text,
                        submit,
                        attachments,
                    };
                    let _ = send_to_tab(tab, &message).await;
                }),
                Effect::Deliver { chat, message_id } => {
                    spawn_local(async move { svc.deliver(&chat, &message_id).await })
                }
                Effect::Respond {
                    server,
                    request,
                    result,
                } => {
                    let result = result.map_err(|m| ErrorObject::new(ErrorCode::INVALID_PARAMS, m));
                    self.client
                        .with(|pool, now| pool.respond(&server, request, result, now));
                }
                Effect::Authorize(id) => {
                    let value = self.app.borrow().authorization(&id);
                    self.client
                        .with(|pool, _| pool.set_authorization(&id, value));
                }
                Effect::SaveConfig
                | Effect::SaveTools
                | Effect::SaveLedger
                | Effect::SaveAuth
                | Effect::SaveElicitations => {}
            }
        }
        Ok(())
    }

    /// Listens to the servers: a question for the user (elicitation) goes to the app, which
    /// shows it in the side panel and cancels it if nobody answers in time.
    pub(super) fn listen(self: &Rc<Self>) {
        let weak = Rc::downgrade(self);
        self.client.set_listener(Rc::new(move |server, event| {
            let (
                Some(svc),
                SessionEvent::Request {
                    id, params, call, ..
                },
            ) = (weak.upgrade(), event)
            else {
                return;
            };
            let (server, id, params, call) = (server.to_owned(), id.clone(), params.clone(), *call);
            // Not inside the client's own dispatch: the app may be borrowed there.
            spawn_local(async move {
                // The chat call it came in the middle of: a call's cancel key is its ledger key.
                let on = call.and_then(|c| svc.client.with(|pool, _| pool.call_key(&server, c)));
                let now = now_ms();
                let asked = (svc.app.borrow_mut()).elicitation_asked(
                    &server,
                    id,
                    &params,
                    now,
                    on.as_deref(),
                );
                let (key, effects) = asked;
                svc.run_background(effects).await;
                let Some(key) = key else { return };
                let expire = Closure::once_into_js(move || {
                    let effects = svc.app.borrow_mut().elicitation_expired(&key, now_ms());
                    spawn_local(async move { svc.run_background(effects).await });
                });
                set_timeout(expire.unchecked_ref(), ELICITATION_TIMEOUT_MS as f64);
            });
        }));
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
        let on_progress = Rc::new(move |p: &Progress| {
            if let Ok(v) = serde_json::to_value(p) {
                svc.app.borrow_mut().call_progress(&progress_key, v);
            }
        });
        let (op, cancel_key) = (call.operation(), Some(key.to_owned()));
        let result = (self.mcp(&call.server_id, op, Some(on_progress), cancel_key)).await;
        let duration = now_ms().saturating_sub(started);
        let effects = {
            let mut app = self.app.borrow_mut();
            app.call_ended(&call.server_id, duration, false);
            app.finish_call(key, CallEnd::from_client(result), duration)
        };
        self.run_background(effects).await;
    }

    /// Writes a message's results into the chat, when the app has them ready.
    async fn deliver(self: &Rc<Self>, chat: &str, message_id: &str) {
        let Some(d) = self.app.borrow_mut().take_delivery(chat, message_id) else {
            return;
        };
        let answer = match d.tab {
            Some(tab) => send_to_tab(tab, &d.message()).await.ok(),
            None => None,
        };
        // A tab that did not answer (or answered nonsense) wrote nothing.
        let outcome = answer
            .and_then(|a| serde_json::from_value(a).ok())
            .unwrap_or_default();
        let effects = self.app.borrow_mut().delivery_written(&d, &outcome);
        self.run_background(effects).await;
    }
}
