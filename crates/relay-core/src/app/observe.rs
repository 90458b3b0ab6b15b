//! A content script's look at its page (`page/observe`) through the page model
//! ([`crate::page`]) into the tool loop: the model decides which reply is which, whether it is
//! old and when it ends; each reply that changed then goes to its parser and the ledger
//! ([`App::reply_update_text`]) as a live reply, or only shows its cards as an old one.

use crate::sorted_map::SortedMap;

use serde::Serialize;

use crate::page::{Move, Observation, OtherTabs, Page, ReportText, TurnState};
use crate::policy::CallRecord;

use super::{chat_key, App, Effect, ReplyText};

/// How many tabs' pages the core remembers (the least recently seen go first).
pub const MAX_PAGES: usize = 32;

/// The answer to `page/observe`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PageAnswer {
    /// The calls of the replies this look changed, as the ledger has them (their cards).
    pub calls: Vec<CallRecord>,
    /// Whether a call may still be forming at the end of a reply being written.
    pub pending: bool,
    /// Handles whose whole text the content script sends next (the core lacks what their
    /// appended text extends).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub resend: Vec<u32>,
    /// Look again after this many milliseconds even if nothing changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable, type = "number"))]
    pub rescan_ms: Option<u64>,
    /// Another conversation is on the page: the cards of the last one go.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub reset: bool,
}

/// A tab's page as the side panel and tests see it (`page/state`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PageView {
    pub url: String,
    pub quiet: bool,
    pub turns: Vec<TurnView>,
}

/// One reply of a [`PageView`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TurnView {
    pub message_id: String,
    pub state: TurnState,
    /// Its element is on the page now.
    pub on_page: bool,
    /// Its text's length in UTF-16 units.
    pub length: usize,
}

/// A page's key: its tab and frame (`"7/0"`; JSON objects are keyed by strings).
pub fn page_key(tab: i64, frame: i64) -> String {
    format!("{tab}/{frame}")
}

/// The other tabs' pages on one conversation URL (a tab's own frames are not other tabs: a
/// frame a reload replaced stays behind, showing what the tab showed).
struct Others<'a> {
    pages: &'a SortedMap<String, Page>,
    url: &'a str,
    /// The observing tab's key prefix (`"7/"`).
    tab: &'a str,
}

impl OtherTabs for Others<'_> {
    fn shows(&self, site_id: Option<&str>, text: &str) -> bool {
        (self.pages.iter())
            .any(|(k, p)| !k.starts_with(self.tab) && p.url == self.url && p.shows(site_id, text))
    }
}

impl App {
    /// A content script's look at its page in a tab's frame (`(tab, frame)`), whose chat's URL
    /// now is `url` (taken within the sender's origin, [`super::content_chat`]), at `now_ms`.
    pub fn observe(
        &mut self,
        (tab, frame): (i64, i64),
        url: &str,
        obs: &Observation,
        now_ms: u64,
    ) -> (PageAnswer, Vec<Effect>) {
        let url = url.split('#').next().unwrap_or(url);
        let key = page_key(tab, frame);
        let mut page = self.pages.remove(&key).unwrap_or_default();
        if frame == 0 && !page.instance.is_empty() && page.instance != obs.page {
            // The tab's top document loaded anew (a reload, not its first look): it replaced
            // every frame of the tab, so the pages of its frames that were not seen since are
            // gone (never looked at again, a frame's page would show the tab's old turns for
            // ever).
            let prefix = format!("{tab}/");
            (self.pages).retain(|k, p| !k.starts_with(&prefix) || p.seen_at >= now_ms);
        }
        let outcome = page.observe(
            obs,
            url,
            now_ms,
            &Others {
                pages: &self.pages,
                url,
                tab: &format!("{tab}/"),
            },
        );
        let chat = chat_key(tab, url);
        let mut effects = Vec::new();
        if let Some((from, Move::Fresh)) = &outcome.moved {
            effects.extend(self.chat_moved(&chat_key(tab, from), &chat, true));
        }
        let mut answer = PageAnswer {
            resend: outcome.resend,
            rescan_ms: outcome.rescan_ms,
            reset: outcome.reset,
            ..PageAnswer::default()
        };
        let mut parsed = false;
        let mut live: Vec<String> = Vec::new();
        for report in outcome.reports {
            if report.history {
                answer
                    .calls
                    .extend(self.message_calls(&chat, &report.message_id));
                continue;
            }
            parsed = true;
            live.push(report.message_id.clone());
            let text = match &report.text {
                ReportText::Whole(t) => ReplyText::Whole(t),
                ReportText::Appended { at, text } => ReplyText::Appended { at: *at, text },
                ReportText::Unchanged => ReplyText::Appended {
                    at: page
                        .turns
                        .iter()
                        .find(|t| t.id == report.message_id)
                        .map_or(0, |t| t.utf16),
                    text: "",
                },
            };
            let (mut update, mut more) =
                self.reply_update_text(&chat, &report.message_id, text, report.done, false);
            if update.resend {
                // The parser lost its text (the worker restarted): the model has it whole, or
                // the content script sends it.
                match page.text_of(&report.message_id) {
                    Some(whole) => {
                        let whole = whole.to_owned();
                        (update, more) = self.reply_update_text(
                            &chat,
                            &report.message_id,
                            ReplyText::Whole(&whole),
                            report.done,
                            false,
                        );
                    }
                    None => {
                        let handle = page.turns.iter().find(|t| t.id == report.message_id);
                        if let Some(h) = handle.and_then(|t| t.handle) {
                            if !answer.resend.contains(&h) {
                                answer.resend.push(h);
                            }
                        }
                    }
                }
            }
            answer.pending |= update.pending;
            answer.calls.extend(update.calls);
            effects.extend(more);
        }
        if parsed {
            self.note_answered(&chat, &live);
        } else {
            // The page answers: results that finished while it could not take them (a reload,
            // a worker stopped mid-call) go out now, once their reply has ended
            // ([`App::reply_update_text`] does so for the replies it reads).
            effects.extend(self.pending_deliveries(&chat));
        }
        if outcome.changed {
            effects.insert(0, Effect::SavePages);
        }
        self.pages.insert(key, page);
        self.prune_pages();
        (answer, effects)
    }

    /// A tab's page as the core sees it: of its frames that show replies, the one seen last
    /// (a frame a reload replaced stays behind until pruned, never looked at again).
    pub fn page_view(&self, tab: i64) -> Option<PageView> {
        let prefix = format!("{tab}/");
        let page = (self.pages.iter())
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(_, p)| p)
            .max_by_key(|p| (!p.turns.is_empty(), p.seen_at))?;
        Some(PageView {
            url: page.url.clone(),
            quiet: page.quiet,
            turns: (page.turns.iter())
                .map(|t| TurnView {
                    message_id: t.id.clone(),
                    state: t.state,
                    on_page: t.handle.is_some(),
                    length: t.utf16,
                })
                .collect(),
        })
    }

    /// The frame of a tab that shows its chat: of the frames whose pages show replies, the one
    /// seen last (`None`: none shows any yet; a message then goes to every frame, and the one
    /// holding a composer answers). Messages that write go there only: another frame of the
    /// tab (a portal's top page around a chat app's frame) answering first that it has no
    /// input would make a written result look unwritten, and written again.
    pub fn chat_frame(&self, tab: i64) -> Option<i64> {
        let prefix = format!("{tab}/");
        (self.pages.iter())
            .filter(|(k, p)| k.starts_with(&prefix) && !p.turns.is_empty())
            .max_by_key(|(_, p)| p.seen_at)
            .and_then(|(k, _)| k[prefix.len()..].parse().ok())
    }

    /// The pages as they are stored (session storage: a worker restart keeps them).
    pub fn pages_to_store(&self) -> serde_json::Value {
        serde_json::to_value(&self.pages).unwrap_or_default()
    }

    /// The pages a worker restart found in storage.
    pub fn restore_pages(&mut self, stored: serde_json::Value) {
        self.pages = crate::json_value::from_value(stored).unwrap_or_default();
    }

    fn prune_pages(&mut self) {
        while self.pages.len() > MAX_PAGES {
            let oldest = (self.pages.iter())
                .min_by_key(|(_, p)| p.seen_at)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(key) => self.pages.remove(&key),
                None => break,
            };
        }
    }
}
