//! The delay before auto-send: results written with auto-send on, while the settings ask for a
//! delay (`send_delay_ms`), wait in the chat's input. Their records carry the moment they will
//! be sent (`send_at`, the card's countdown); the runner's timer asks [`App::send_due`], which
//! sends them unless the user cancelled with [`App::hold_send`] (the card's Cancel, or the side
//! panel). Every decision here is the core's: the content script only counts down, reports a
//! trusted Cancel and sends when told.

use crate::contract::tab::{InsertOutcome, SubmitOutcome};
use crate::contract::{ErrorBody, ErrorKind, Role, TabMessage};
use crate::policy::CallRecord;

use super::deliver::Delivery;
use super::{App, Effect};

/// Results written and waiting to be sent: which calls, where, and the text that should still
/// be in the input.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingSend {
    pub chat: String,
    pub tab: i64,
    pub keys: Vec<String>,
    pub text: String,
    pub at: u64,
}

/// A send that is due: the tab message, and what to report the outcome against.
#[derive(Debug, Clone, PartialEq)]
pub struct DueSend {
    pub id: String,
    pub tab: i64,
    pub message: TabMessage,
}

impl App {
    /// After a delivery was written: when it waits for a delayed auto-send, its records get the
    /// moment it will go, and the runner a timer (`Some((id, delay))`, asking [`App::send_due`]
    /// with `id` once `delay` ms have passed). Nothing when the delivery was not written whole.
    pub fn hold_send(
        &mut self,
        delivery: &Delivery,
        outcome: &InsertOutcome,
        now: u64,
    ) -> (Vec<Effect>, Option<(String, u64)>) {
        let (Some(delay), Some(tab)) = (delivery.send_delay_ms, delivery.tab) else {
            return (Vec::new(), None);
        };
        if !outcome.inserted || outcome.partial || delivery.keys.is_empty() {
            return (Vec::new(), None);
        }
        let at = now.saturating_add(delay);
        let mut effects = vec![Effect::SaveLedger];
        for key in &delivery.keys {
            if let Some(x) = self.ledger.calls.get_mut(key) {
                x.send_at = Some(at);
            }
            effects.push(Effect::Notify {
                chat: delivery.chat.clone(),
                key: key.clone(),
            });
        }
        let id = delivery.keys[0].clone();
        self.pending_sends.insert(
            id.clone(),
            PendingSend {
                chat: delivery.chat.clone(),
                tab,
                keys: delivery.keys.clone(),
                text: delivery.written_text(outcome).to_owned(),
                at,
            },
        );
        (effects, Some((id, delay)))
    }

    /// The timer of a delayed send fired: the message to send, unless the user cancelled it (or
    /// the worker restarted) meanwhile. The records stop counting down either way.
    pub fn send_due(&mut self, id: &str) -> Option<DueSend> {
        let pending = self.pending_sends.remove(id)?;
        let mut still = false;
        for key in &pending.keys {
            if let Some(x) = self.ledger.calls.get_mut(key) {
                still |= x.send_at.take().is_some();
            }
        }
        if !still {
            return None;
        }
        let due = DueSend {
            id: id.to_owned(),
            tab: pending.tab,
            message: TabMessage::Submit {
                text: pending.text.clone(),
            },
        };
        self.sent_waiting.insert(id.to_owned(), pending);
        Some(due)
    }

    /// What the tab did with a due send: not sent, the records say so (the result is in the
    /// input); sent, their cards stop counting down.
    pub fn send_done(&mut self, id: &str, outcome: &SubmitOutcome) -> Vec<Effect> {
        let Some(pending) = self.sent_waiting.remove(id) else {
            return Vec::new();
        };
        let mut effects = vec![Effect::SaveLedger];
        for key in &pending.keys {
            if let Some(x) = self.ledger.calls.get_mut(key) {
                x.unsent = !outcome.submitted;
                x.delivery_note = if outcome.submitted {
                    None
                } else {
                    outcome.error.clone()
                };
            }
            effects.push(Effect::Notify {
                chat: pending.chat.clone(),
                key: key.clone(),
            });
        }
        effects
    }

    /// The user cancelled a delayed send (`chat/holdSend`): the results of the call `key` went
    /// back with stay in the input, unsent. A content script may cancel in its own chat only.
    pub fn cancel_send(
        &mut self,
        role: Role,
        sender_chat: Option<&str>,
        key: &str,
    ) -> Result<(CallRecord, Vec<Effect>), ErrorBody> {
        let record = self.ledger.calls.get(key).ok_or_else(|| {
            ErrorBody::new(
                ErrorKind::InvalidArgument,
                format!("no call with key '{key}'"),
            )
        })?;
        if role == Role::Content && sender_chat != Some(record.chat.as_str()) {
            return Err(ErrorBody::new(
                ErrorKind::Forbidden,
                "This call belongs to another chat.",
            ));
        }
        let id = (self.pending_sends.iter())
            .find(|(_, p)| p.keys.iter().any(|k| k == key))
            .map(|(id, _)| id.clone());
        let Some(pending) = id.and_then(|id| self.pending_sends.remove(&id)) else {
            return Err(ErrorBody::new(
                ErrorKind::InvalidArgument,
                "this result is not waiting to be sent (it was sent, or its send was cancelled)",
            ));
        };
        let mut effects = vec![Effect::SaveLedger];
        for k in &pending.keys {
            if let Some(x) = self.ledger.calls.get_mut(k) {
                x.send_at = None;
                x.unsent = true;
            }
            if k != key {
                effects.push(Effect::Notify {
                    chat: pending.chat.clone(),
                    key: k.clone(),
                });
            }
        }
        let record = self.ledger.calls.get(key).cloned().ok_or_else(|| {
            ErrorBody::new(ErrorKind::Internal, format!("call '{key}' went missing"))
        })?;
        Ok((record, effects))
    }
}
