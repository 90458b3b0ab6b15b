//! Results back into the chat: once every call of an assistant message reached an end, their
//! formatted results are written into the chat's input together, exactly once, and kept for a
//! later try while the tab cannot take them. Where the page does not take their files, the tab
//! writes the text that says so (`Delivery::without_files`) and each call's record keeps what
//! was left out and why (`CallRecord::unattached`), which the panel shows as a warning.

use crate::contract::tab::InsertOutcome;
use crate::contract::ErrorKind;
use crate::model::CallToolResult;
use crate::page::TurnState;
use crate::policy::{CallRecord, CallState};
use crate::result::{
    format_results, AttachFailure, Attachment, Nudge, Outcome, ResultInput, ResultOptions,
    Unattached,
};

use super::{tab_of, App, Effect, PREVIEW_BYTES};

/// Results ready to write into a chat (`relay/insert`).
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub chat: String,
    pub tab: Option<i64>,
    /// The calls whose results these are.
    pub keys: Vec<String>,
    pub text: String,
    pub attachments: Vec<Attachment>,
    /// The text as written when the page does not take the attachments (each placeholder says
    /// its file is missing); `None` without attachments.
    pub without_files: Option<String>,
    /// Whether to send the chat's message right after writing (the chat's auto-submit, without
    /// a delay before auto-send).
    pub submit: bool,
    /// Auto-submit with a delay: the results are written without a send, which follows this
    /// many milliseconds later unless the user cancels it ([`App::hold_send`]).
    pub send_delay_ms: Option<u64>,
}

impl Delivery {
    /// Whether the page left out the files of this delivery (the tab attached fewer than it
    /// was given; a tab that says nothing attached none).
    pub fn files_refused(&self, outcome: &InsertOutcome) -> bool {
        !self.attachments.is_empty()
            && (outcome.attached.unwrap_or(0) as usize) < self.attachments.len()
    }

    /// The text the tab wrote: the one without the files when it left them out.
    pub fn written_text(&self, outcome: &InsertOutcome) -> &str {
        match &self.without_files {
            Some(without) if self.files_refused(outcome) => without,
            _ => &self.text,
        }
    }

    /// The message that writes these results into the chat.
    pub fn message(&self) -> crate::contract::TabMessage {
        crate::contract::TabMessage::Insert {
            text: self.text.clone(),
            submit: self.submit,
            attachments: self.attachments.clone(),
            without_files: self.without_files.clone(),
        }
    }
}

impl App {
    /// A delivery attempt for every message of `chat` whose calls are all final and not yet
    /// written.
    pub fn pending_deliveries(&self, chat: &str) -> Vec<Effect> {
        let mut messages: Vec<String> = Vec::new();
        for c in self.ledger.for_chat(chat) {
            if !c.delivered && c.state.is_final() && !messages.contains(&c.message_id) {
                messages.push(c.message_id.clone());
            }
        }
        messages
            .into_iter()
            .map(|message_id| Effect::Deliver {
                chat: chat.to_owned(),
                message_id,
            })
            .collect()
    }

    /// Takes the results of a message for writing, when every call of it reached an end. They
    /// are marked delivered at once, so a second attempt racing this one finds nothing; report
    /// the outcome with [`App::delivery_written`].
    pub fn take_delivery(&mut self, chat: &str, message_id: &str) -> Option<Delivery> {
        if self.reply_in_progress(chat, message_id) {
            // Results go back once the reply has ended: written while it streams, they would
            // land in an input the site may not send (its Send is Stop), or split a turn's
            // outcomes over two messages. The reply's end delivers them ([`App::observe`]).
            return None;
        }
        let records: Vec<CallRecord> = self
            .ledger
            .deliverable(chat, message_id)
            .into_iter()
            .cloned()
            .collect();
        if records.is_empty() {
            return None;
        }
        for r in &records {
            if let Some(x) = self.ledger.calls.get_mut(&r.key) {
                // Recorded before the tab is asked ([`Runner`](super::Runner) saves the ledger
                // first); [`App::delivery_written`] confirms it.
                x.delivered = true;
                x.in_flight = true;
                x.answered = false;
            }
        }
        let settings = self.config.chat(chat);
        let delay = self.config.settings.send_delay_ms;
        let inputs: Vec<ResultInput> = records
            .iter()
            .map(|r| {
                ResultInput::new(
                    r.call_id.clone(),
                    r.tool.clone(),
                    self.config.server_name(&r.server_id),
                    outcome_with(r, self.full_result(&r.key)),
                )
            })
            .collect();
        let options = ResultOptions {
            max_chars: self.config.settings.result_max_chars,
            nudge: self.config.strategy(&settings).result_nudge(),
            ..ResultOptions::default()
        };
        let formatted = format_results(&inputs, &options);
        let limited =
            options.nudge == Nudge::None && records.iter().any(|r| r.state == CallState::Limited);
        // What the model learns of apps goes with either text, once.
        let app_lines = self.app_lines(chat, &records);
        let finish = |mut text: String| {
            if limited {
                text.push_str(Nudge::Answer.text().unwrap_or(""));
            }
            text.push_str(&app_lines);
            text
        };
        let without_files = (!formatted.attachments.is_empty()).then(|| {
            let refused = ResultOptions {
                files_refused: true,
                ..options.clone()
            };
            finish(format_results(&inputs, &refused).text)
        });
        let text = finish(formatted.text);
        Some(Delivery {
            chat: chat.to_owned(),
            tab: tab_of(chat),
            keys: records.into_iter().map(|r| r.key).collect(),
            text,
            attachments: formatted.attachments,
            without_files,
            submit: settings.auto_submit && delay == 0,
            send_delay_ms: (settings.auto_submit && delay > 0).then_some(delay),
        })
    }

    /// Whether a chat's page still shows this reply being written (or not yet decided).
    pub fn reply_in_progress(&self, chat: &str, message_id: &str) -> bool {
        let (Some(tab), Some((_, url))) = (tab_of(chat), chat.split_once('|')) else {
            return false;
        };
        let prefix = format!("{tab}/");
        (self.pages.iter())
            .filter(|(key, page)| key.starts_with(&prefix) && page.url == url)
            .flat_map(|(_, page)| &page.turns)
            .any(|t| {
                t.id == message_id && matches!(t.state, TurnState::Live | TurnState::Undecided)
            })
    }

    /// What the tab did with a delivery. Written as meant: delivered; if a send was asked and
    /// not proven, the record says so (`unsent`), so neither the card nor the panel calls it
    /// done while the result sits in the input. Written damaged (`partial`): delivered too (a
    /// second write would add a second copy) but unsent, with what was lost. Not written at all
    /// (gone, reloading, no input found): the results stay deliverable for the chat's next
    /// update.
    /// What a delivery did when the tab never answered (it reloaded or closed meanwhile):
    /// written and sent when the page wrote a reply after it while it was on its way
    /// ([`App::note_answered`]), else nothing was written.
    pub fn unanswered_outcome(&self, delivery: &Delivery) -> InsertOutcome {
        let answered = !delivery.keys.is_empty()
            && (delivery.keys.iter()).all(|k| self.ledger.calls.get(k).is_some_and(|r| r.answered));
        InsertOutcome {
            inserted: answered,
            submitted: answered,
            ..InsertOutcome::default()
        }
    }

    /// The page wrote replies (`live`: their message ids) in a chat: results on their way into
    /// it, for another message, were answered by them.
    pub fn note_answered(&mut self, chat: &str, live: &[String]) {
        for r in self.ledger.calls.values_mut() {
            if r.in_flight && r.chat == chat && !live.contains(&r.message_id) {
                r.answered = true;
            }
        }
    }

    pub fn delivery_written(
        &mut self,
        delivery: &Delivery,
        outcome: &InsertOutcome,
    ) -> Vec<Effect> {
        let written = outcome.inserted || outcome.partial;
        let unsent = written && (outcome.partial || (delivery.submit && !outcome.submitted));
        let note = if unsent || !written {
            outcome.error.clone()
        } else {
            None
        };
        // The page took the text but not the files: the text written was the one that says so,
        // and each call whose files were left out carries what and why.
        let files_refused = written && delivery.files_refused(outcome);
        let reason = outcome.attach_failure.unwrap_or(AttachFailure::NotShown);
        let text = delivery.written_text(outcome);
        let mut effects = vec![Effect::SaveLedger];
        for key in &delivery.keys {
            if let Some(x) = self.ledger.calls.get_mut(key) {
                x.delivered = written;
                x.in_flight = false;
                x.unsent = unsent;
                x.delivery_note = note.clone();
                x.reply_text = Some(super::store::cut(text, PREVIEW_BYTES).to_owned());
                x.unattached = files_refused
                    .then(|| Unattached::of_call(&delivery.attachments, &x.call_id, reason))
                    .flatten();
            }
            if written {
                self.release_result(key);
            }
            if unsent || !written {
                // The card changes: "in the input, not sent", or why nothing was written.
                effects.push(Effect::Notify {
                    chat: delivery.chat.clone(),
                    key: key.clone(),
                });
            }
        }
        effects
    }
}

/// What a ledger record means for the model.
pub fn outcome_of(r: &CallRecord) -> Outcome {
    outcome_with(r, None)
}

/// What a ledger record means for the model, with its full result when it is stored apart
/// (`None`: the record's own result, which is the whole result unless `result_size` is set).
pub fn outcome_with(r: &CallRecord, full: Option<&serde_json::Value>) -> Outcome {
    let message = r
        .error
        .as_ref()
        .map_or("no details", |e| e.message.as_str())
        .to_owned();
    match r.state {
        CallState::Done => {
            let whole = full.or(r.result.as_ref());
            let mut result = whole
                .and_then(|v| crate::json_value::from_value::<CallToolResult>(v.clone()).ok())
                .unwrap_or_default();
            if full.is_none() && r.result_size.is_some() {
                // The full result is gone (pruned, or never stored): say what the model gets.
                let size = r.result_size.unwrap_or(0);
                result.content.push(crate::model::Content::text(format!(
                    "[The full result ({size} bytes) is no longer available; this is its start.]"
                )));
            }
            Outcome::Completed { result }
        }
        CallState::Failed
            if r.error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::Invalid) =>
        {
            Outcome::Invalid { message }
        }
        CallState::Failed => Outcome::Failed { message },
        CallState::Unknown => Outcome::Unknown { message },
        CallState::Denied => Outcome::Denied {
            reason: Some(message),
        },
        CallState::Limited | CallState::Quoted => Outcome::Skipped { reason: message },
        CallState::Pending | CallState::Running => Outcome::Unknown {
            message: "still running".into(),
        },
    }
}
