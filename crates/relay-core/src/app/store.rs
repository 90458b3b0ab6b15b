//! State that fits its storage. The ledger keeps what the loop needs to decide (keys, states,
//! bounded previews) in `chrome.storage.session`, one key per call record ([`CALL_PREFIX`]) plus
//! a small index ([`LEDGER_KEY`]), and writes only what changed since the last successful
//! write. Full results live in `chrome.storage.local` (the manifest asks for
//! `unlimitedStorage`), one key per result ([`RESULT_PREFIX`]), written once, bounded per chat
//! and pruned by age and size; a pruned record says so, so the side panel tells the user.
//!
//! The driver performs each [`StorageOp`] and reports how it went ([`App::storage_done`]): a
//! failed write is kept as the app's last storage error, its content is written again with the
//! next change, and the effects queued after it still run.

use crate::sorted_map::{SortedMap, SortedSet};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{App, Effect, LEDGER_KEEP};
use crate::contract::storage::{Area, CALL_PREFIX, LEDGER_KEY, RESULT_PREFIX};
use crate::contract::ErrorBody;
use crate::policy::{CallRecord, ChatCounters, Ledger};

/// The most a call record's result preview (and its `reply_text`) takes, in bytes of JSON.
pub const PREVIEW_BYTES: usize = 2_048;
/// The most a chat's stored full results take, delivered ones pruned oldest first beyond it
/// (the newest result and results not yet delivered are always kept).
pub const RESULTS_PER_CHAT_BYTES: u64 = 64 << 20;
/// A delivered full result older than this (from the newest result of its chat) is pruned.
pub const RESULT_MAX_AGE_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// The storage key of a call's record.
pub fn call_storage_key(key: &str) -> String {
    format!("{CALL_PREFIX}{key}")
}

/// The storage key of a call's full result.
pub fn result_storage_key(key: &str) -> String {
    format!("{RESULT_PREFIX}{key}")
}

/// The ledger's index as stored under [`LEDGER_KEY`]: everything but the records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LedgerIndex {
    /// The keys of the records stored under [`CALL_PREFIX`].
    pub keys: Vec<String>,
    pub counters: SortedMap<String, ChatCounters>,
    pub next_seq: u64,
    pub quoted: SortedMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "SortedMap::is_empty")]
    pub task_sessions: SortedMap<String, crate::client::SessionSnapshot>,
}

/// What a [`StorageOp`] stores, for [`App::storage_done`].
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// One call's record.
    Call(Box<CallRecord>),
    /// The ledger's index.
    Index(LedgerIndex),
    /// Records removed (pruned from the ledger).
    CallsRemoved(Vec<String>),
    /// One call's full result.
    Result(String),
    /// Full results removed (pruned).
    ResultsRemoved,
    /// Anything else (configuration, tools, sign-ins, pages, questions).
    Other,
}

/// One storage primitive for the driver to perform, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StorageOp {
    Write {
        area: Area,
        key: String,
        value: Rc<Value>,
        what: Stored,
    },
    Remove {
        area: Area,
        keys: Vec<String>,
        what: Stored,
    },
}

impl StorageOp {
    fn write(area: Area, key: impl Into<String>, value: Value, what: Stored) -> Self {
        let (key, value) = (key.into(), Rc::new(value));
        StorageOp::Write {
            area,
            key,
            value,
            what,
        }
    }

    /// A write's area, key and value (`None` for a removal).
    pub fn into_write(self) -> Option<(Area, String, Value)> {
        match self {
            StorageOp::Write {
                area, key, value, ..
            } => Some((area, key, Rc::unwrap_or_clone(value))),
            StorageOp::Remove { .. } => None,
        }
    }

    /// The key (or first key) it touches, for messages.
    pub fn key(&self) -> &str {
        match self {
            StorageOp::Write { key, .. } => key,
            StorageOp::Remove { keys, .. } => keys.first().map_or("", String::as_str),
        }
    }
}

/// What storage holds as far as the app knows (its last successful writes), and the full
/// results it keeps in memory until they are stored and delivered.
#[derive(Debug, Default)]
pub struct Stash {
    /// The records as last written.
    written: SortedMap<String, CallRecord>,
    index: Option<LedgerIndex>,
    /// Full results by call key: kept until written to local storage and delivered.
    pub(super) results: SortedMap<String, Rc<Value>>,
    /// Results whose write has not succeeded yet.
    unstored: SortedSet<String>,
    /// The last storage write that failed.
    pub last_error: Option<ErrorBody>,
}

impl Stash {
    /// What storage holds after a load: the ledger as read.
    pub fn loaded(ledger: &Ledger, index_read: bool) -> Stash {
        let mut stash = Stash::default();
        if index_read {
            stash.written = ledger.calls.clone().into_iter().collect();
            stash.index = Some(index_of(ledger));
        }
        stash
    }
}

fn index_of(ledger: &Ledger) -> LedgerIndex {
    LedgerIndex {
        keys: ledger.calls.keys().cloned().collect(),
        counters: ledger.counters.clone(),
        next_seq: ledger.next_seq,
        quoted: ledger.quoted.clone(),
        task_sessions: ledger.task_sessions.clone(),
    }
}

/// The session keys of the records a stored ledger index names (to read after the index).
pub fn record_keys(index: &Value) -> Vec<String> {
    let keys = index.get("keys").and_then(Value::as_array);
    let keys = keys.map(|k| k.iter().filter_map(Value::as_str).collect::<Vec<_>>());
    keys.unwrap_or_default()
        .into_iter()
        .map(call_storage_key)
        .collect()
}

/// The ledger from its stored index and the records it names (absent or unreadable ones are
/// left out); also whether the index was of this layout (an older one held the records
/// inside it, and is written out anew at the next change).
pub fn ledger_from(index: Value, records: Vec<Value>) -> (Ledger, bool) {
    if index.get("calls").is_some_and(Value::is_object) {
        return (
            crate::json_value::from_value(index).unwrap_or_default(),
            false,
        );
    }
    let current = index.get("keys").is_some();
    let index: LedgerIndex = crate::json_value::from_value(index).unwrap_or_default();
    let calls = records
        .into_iter()
        .filter_map(|r| crate::json_value::from_value::<CallRecord>(r).ok())
        .map(|r| (r.key.clone(), r))
        .collect();
    let ledger = Ledger {
        calls,
        counters: index.counters,
        next_seq: index.next_seq,
        quoted: index.quoted,
        task_sessions: index.task_sessions,
    };
    (ledger, current)
}

/// A bounded preview of a result: the result itself when its JSON fits [`PREVIEW_BYTES`], else
/// its content in order, text cut to what is left and other blocks as placeholders, and
/// whether it was cut.
pub fn preview(result: &Value, size: usize) -> Value {
    if size <= PREVIEW_BYTES {
        return result.clone();
    }
    let mut left = PREVIEW_BYTES;
    let mut content = Vec::new();
    let blocks = result.get("content").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        if left == 0 {
            break;
        }
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("?");
        let text = match (kind, block.get("text").and_then(Value::as_str)) {
            ("text", Some(text)) => cut(text, left).to_owned(),
            _ => {
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("");
                format!("[{kind} {mime}]")
            }
        };
        left = left.saturating_sub(text.len());
        content.push(serde_json::json!({"type": "text", "text": text}));
    }
    let mut out = serde_json::json!({ "content": content });
    if let Some(e) = result.get("isError") {
        out["isError"] = e.clone();
    }
    out
}

/// The longest start of `text` that fits `bytes`, on a character boundary.
pub fn cut(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl App {
    /// What a `Save*` effect writes, as storage primitives in the order to perform them
    /// (nothing when nothing changed since the last successful write).
    pub fn stored(&mut self, effect: &Effect) -> Vec<StorageOp> {
        let json = |v: serde_json::Result<Value>| v.unwrap_or_default();
        let one = |area, key: &str, value| vec![StorageOp::write(area, key, value, Stored::Other)];
        match effect {
            Effect::SaveConfig => one(
                Area::Local,
                super::CONFIG_KEY,
                json(serde_json::to_value(&self.config)),
            ),
            Effect::SaveTools => one(
                Area::Local,
                super::TOOLS_KEY,
                json(serde_json::to_value(&self.tools)),
            ),
            Effect::SaveSkills => one(
                Area::Local,
                crate::contract::storage::SKILLS_KEY,
                self.skills_to_store(),
            ),
            Effect::SaveAuth => one(
                Area::Local,
                super::AUTH_KEY,
                json(serde_json::to_value(&self.auth)),
            ),
            Effect::SaveElicitations => one(
                Area::Session,
                super::ELICITATIONS_KEY,
                json(serde_json::to_value(self.elicitations_view())),
            ),
            Effect::SavePages => one(
                Area::Session,
                crate::contract::storage::PAGES_KEY,
                self.pages_to_store(),
            ),
            Effect::SaveLedger => self.ledger_ops(),
            Effect::SaveResult(key) => self.result_ops(key),
            _ => Vec::new(),
        }
    }

    /// The records that changed since their last write, the index if it changed, and the
    /// records (and their full results) the ledger's bound dropped.
    fn ledger_ops(&mut self) -> Vec<StorageOp> {
        let mut ops = Vec::new();
        if self.ledger.calls.len() > LEDGER_KEEP {
            // Full results of records the bound drops go with them.
            let apart: Vec<String> = (self.ledger.calls.values())
                .filter(|r| r.result_size.is_some() && !r.result_pruned)
                .map(|r| r.key.clone())
                .collect();
            self.ledger.prune(LEDGER_KEEP);
            let dropped: Vec<String> = (apart.into_iter())
                .filter(|k| !self.ledger.calls.contains_key(k))
                .collect();
            if !dropped.is_empty() {
                dropped
                    .iter()
                    .for_each(|k| drop(self.stash.results.remove(k)));
                ops.push(StorageOp::Remove {
                    area: Area::Local,
                    keys: dropped.iter().map(|k| result_storage_key(k)).collect(),
                    what: Stored::ResultsRemoved,
                });
            }
        }
        for rec in self.ledger.calls.values() {
            if self.stash.written.get(&rec.key) != Some(rec) {
                let value = serde_json::to_value(rec).unwrap_or_default();
                let what = Stored::Call(Box::new(rec.clone()));
                ops.push(StorageOp::write(
                    Area::Session,
                    call_storage_key(&rec.key),
                    value,
                    what,
                ));
            }
        }
        let index = index_of(&self.ledger);
        if self.stash.index.as_ref() != Some(&index) {
            let value = serde_json::to_value(&index).unwrap_or_default();
            ops.push(StorageOp::write(
                Area::Session,
                LEDGER_KEY,
                value,
                Stored::Index(index),
            ));
        }
        let gone: Vec<&CallRecord> = (self.stash.written.values())
            .filter(|r| !self.ledger.calls.contains_key(&r.key))
            .collect();
        if !gone.is_empty() {
            let keys: Vec<String> = gone.iter().map(|r| r.key.clone()).collect();
            ops.push(StorageOp::Remove {
                area: Area::Session,
                keys: keys.iter().map(|k| call_storage_key(k)).collect(),
                what: Stored::CallsRemoved(keys),
            });
        }
        ops
    }

    /// A call's full result into local storage, then the chat's delivered results beyond its
    /// bounds (age, size) pruned, oldest first; their records say so.
    fn result_ops(&mut self, key: &str) -> Vec<StorageOp> {
        let (Some(value), Some(rec)) = (self.stash.results.get(key), self.ledger.calls.get(key))
        else {
            return Vec::new();
        };
        let mut ops = vec![StorageOp::Write {
            area: Area::Local,
            key: result_storage_key(key),
            value: Rc::clone(value),
            what: Stored::Result(key.to_owned()),
        }];
        let end = rec.started_at.unwrap_or(0) + rec.duration_ms.unwrap_or(0);
        let mut total = rec.result_size.unwrap_or(0);
        let mut older: Vec<&CallRecord> = self.ledger.for_chat(&rec.chat);
        older.retain(|r| r.key != key && r.result_size.is_some() && !r.result_pruned);
        let mut pruned = Vec::new();
        for r in older.into_iter().rev() {
            total += r.result_size.unwrap_or(0);
            let old = r
                .started_at
                .is_some_and(|s| end.saturating_sub(s) > RESULT_MAX_AGE_MS);
            if r.delivered && !r.in_flight && (old || total > RESULTS_PER_CHAT_BYTES) {
                pruned.push(r.key.clone());
            }
        }
        if pruned.is_empty() {
            return ops;
        }
        for k in &pruned {
            self.stash.results.remove(k);
            if let Some(r) = self.ledger.calls.get_mut(k) {
                r.result_pruned = true;
            }
        }
        ops.push(StorageOp::Remove {
            area: Area::Local,
            keys: pruned.iter().map(|k| result_storage_key(k)).collect(),
            what: Stored::ResultsRemoved,
        });
        ops
    }

    /// How a storage primitive went. A success becomes what the app knows storage holds; a
    /// failure is kept as the last storage error and its content is written again with the
    /// next change; a full result that could not be stored stays in memory and its card says
    /// so. Returns effects to carry out.
    pub fn storage_done(&mut self, op: StorageOp, failed: Option<&ErrorBody>) -> Vec<Effect> {
        let what = match op {
            StorageOp::Write { what, .. } | StorageOp::Remove { what, .. } => what,
        };
        if let Some(e) = failed {
            self.stash.last_error = Some(e.clone());
            if let Stored::Result(key) = what {
                let Some(rec) = self.ledger.calls.get_mut(&key) else {
                    return Vec::new();
                };
                rec.delivery_note = Some(format!(
                    "The full result could not be stored ({}); it is kept until it is delivered.",
                    e.message
                ));
                let chat = rec.chat.clone();
                return vec![Effect::SaveLedger, Effect::Notify { chat, key }];
            }
            return Vec::new();
        }
        match what {
            Stored::Call(rec) => {
                self.stash.written.insert(rec.key.clone(), *rec);
            }
            Stored::Index(index) => self.stash.index = Some(index),
            Stored::CallsRemoved(keys) => {
                for k in keys {
                    self.stash.written.remove(&k);
                    self.stash.results.remove(&k);
                }
            }
            Stored::Result(key) => {
                self.stash.unstored.remove(&key);
                self.release_result(&key);
            }
            Stored::ResultsRemoved | Stored::Other => {}
        }
        Vec::new()
    }

    /// Keeps a call's full result (until it is stored and delivered) and puts its bounded
    /// preview in the ledger; returns whether it is stored apart ([`Effect::SaveResult`]).
    pub(super) fn keep_result(&mut self, key: &str, result: Value) -> bool {
        let size = serde_json::to_string(&result).map_or(0, |s| s.len());
        let Some(rec) = self.ledger.calls.get_mut(key) else {
            return false;
        };
        rec.result = Some(preview(&result, size));
        rec.result_pruned = false;
        if size <= PREVIEW_BYTES {
            rec.result_size = None;
            return false;
        }
        rec.result_size = Some(size as u64);
        self.stash.results.insert(key.to_owned(), Rc::new(result));
        self.stash.unstored.insert(key.to_owned());
        true
    }

    /// Drops a full result from memory once it is both stored and delivered.
    pub(super) fn release_result(&mut self, key: &str) {
        let delivered = self
            .ledger
            .calls
            .get(key)
            .is_some_and(|r| r.delivered && !r.in_flight);
        if delivered && !self.stash.unstored.contains(key) {
            self.stash.results.remove(key);
        }
    }

    /// The full result of a call, when the app has it in memory.
    pub fn full_result(&self, key: &str) -> Option<&Value> {
        self.stash.results.get(key).map(Rc::as_ref)
    }

    /// The local keys of the full results a delivery of this message needs and memory does
    /// not hold (after a worker restart): the driver reads them, then [`App::results_loaded`].
    pub fn results_to_load(&self, chat: &str, message_id: &str) -> Vec<String> {
        (self.ledger.deliverable(chat, message_id).into_iter())
            .filter(|r| r.result_size.is_some() && !r.result_pruned)
            .filter(|r| !self.stash.results.contains_key(&r.key))
            .map(|r| r.key.clone())
            .collect()
    }

    /// Full results read back from local storage (`Value::Null` for one that is not there:
    /// its preview stands in).
    pub fn results_loaded(&mut self, keys: &[String], values: Vec<Value>) {
        for (key, value) in keys.iter().zip(values) {
            if !value.is_null() {
                self.stash.results.insert(key.clone(), Rc::new(value));
            }
        }
    }

    /// The last storage write that failed, if any.
    pub fn storage_error(&self) -> Option<&ErrorBody> {
        self.stash.last_error.as_ref()
    }
}
