//! The chat page as the core sees it: which reply is which, whether a reply is old or being
//! written now, when it has ended, and whether the page moved to a new chat or to another
//! conversation. Sans-IO like [`crate::client::Session`]: a content script senses the page and
//! sends one [`Observation`] per look (its page instance, the site's signals, and each turn as
//! an element handle with the site's id where it has one and its text when it changed); the
//! time comes in as milliseconds; [`Page::observe`] answers with an [`Outcome`] (what each
//! reply means for the tool loop, what to look at again and when).
//!
//! The rules, each with a transcript test in `tests/test_page_model.rs` (re-renders and
//! regenerations: `tests/test_page_renders.rs`):
//! - **Identity.** A turn is its element while the element lives; a new element is a turn we
//!   know when it carries that turn's site id, or, where the site has none, when it shows the
//!   same text as a turn whose element just left (a re-render, a virtualised list mounting an
//!   old turn again), or, for a reply still being written, text that one of them extends (a
//!   site that re-renders per token), or another render of the same reply: the text of one of
//!   the [`RENDER_CANDIDATES`] turns whose elements left last, white space, lines of digits
//!   (a code block's line-number gutter) and page counters (`1 / 2`) aside, give or take a few
//!   characters anywhere (a code block's header, a button's label; [`RENDER_SLACK_CHARS`]).
//!   So a reply's final render replacing its streamed element is that reply, however it came
//!   (while the stop control shows, as it goes, after the reply ended, a look later), and its
//!   calls never run again; nor does a render changing an ended reply's text in place make it
//!   grow (only text after its own does). But where the page writes a reply (the last turn,
//!   while the site's signal shows), a new element showing less than a reply that had ended
//!   is a reply written anew (Regenerate, streamed from its start): a new turn whose calls
//!   run once more; without any signal, so is one showing under nine tenths of it (a reply
//!   shown again shows all of it); and so is the page's last element when it shows, in
//!   place, that much less of the reply it showed once that reply ended (Regenerate in the
//!   reply's own element). A reply being written whose element is replaced is that
//!   reply before any older one whose text its new render repeats, also where the page's
//!   last element shows more of it at once, drawn differently, beginning alike. An older branch shown again (‹ 1/2 ›) is the reply it was: nothing runs.
//!   Never a list position alone. A reload keeps the ids of the turns it shows again (matched
//!   by text), so their calls keep their cards.
//! - **Old or live.** What a page shows when it is first seen (a load, another conversation)
//!   is history. A new turn that is not the newest (a re-mount above the ones we know, a reply
//!   another already follows) is history. After a load, a move to another conversation or the
//!   end of a reply the page is *quiet* until the user sends something (a new user turn, or a
//!   send the content script made) or a reply is seen being written: a reply that appears
//!   complete then is that conversation loading or an old turn shown again, and is history
//!   once it ends unless it grew under our eyes. So is what appears where a reply being
//!   written since the last send left the page (another conversation opened in place). A new turn that another tab on the same conversation already shows (the site
//!   mirrors a conversation into every tab that has it open) is that tab's: the first tab to
//!   see a reply being written runs its calls.
//! - **End.** Signals first (a stop control, a streaming marker): a reply that saw one ends
//!   [`STOP_QUIET_MS`] after it is gone and the text is still; without any signal, after
//!   [`SETTLE_MS`] of still text. A reply ends at once when a newer reply appears below it.
//! - **Moves.** The same conversation id (or, without one, the same path) is the same chat; a
//!   new chat's URL (no id, `/`, `…/new`) becoming a conversation is the same chat moving
//!   ([`Move::Fresh`]); anything else is another conversation ([`Move::Switch`]), seen afresh.

mod moves;
mod render;

use serde::{Deserialize, Serialize};

pub use moves::{move_kind, Move};
pub use render::{RENDER_SLACK_CHARS, RENDER_SLACK_DIVISOR};

/// Without any streaming signal, a reply has ended when its text has been still this long.
pub const SETTLE_MS: u64 = 1500;
/// Once the site's streaming signal is gone, the last render has this long to land.
pub const STOP_QUIET_MS: u64 = 60;
/// While a signal says a reply is being written but its text is still (a reply that pauses
/// after a call), the page is looked at again this often, so the signal's end is seen.
pub const SIGNAL_POLL_MS: u64 = 250;
/// How many turns a page remembers, the newest first kept (a virtualised list shows a few at a
/// time; a page that held more than this is long past re-mounting the oldest).
pub const MAX_TURNS: usize = 400;
/// How many bytes of reply text a page keeps (the newest replies' texts; older ones keep their
/// hash only).
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// How long a text must be before another tab showing text it extends counts as the same
/// reply (shorter texts are too often the same by chance).
pub const CROSS_TAB_MIN_CHARS: usize = 16;
/// How many of the replies whose elements left most recently a new element's text is compared
/// with as another render of them (see the module doc): what one look costs stays linear.
pub const RENDER_CANDIDATES: usize = 4;

/// One look at the page, as a content script sends it (`page/observe`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct Observation {
    /// The content script instance: a new value is a new page load.
    pub page: String,
    /// The conversation id the adapter's pattern finds in the page's URL (`None`: a new chat,
    /// or an adapter without a pattern, see `pattern`).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub conversation: Option<String>,
    /// Whether the adapter has a conversation pattern at all.
    pub pattern: bool,
    /// The site's signal that a reply is being written (a stop control or a streaming marker
    /// is visible).
    pub streaming: bool,
    /// The page sent a message since the last observation (the user's Send, or ours).
    pub submitted: bool,
    /// The turns on the page, in page order: assistant replies and, without text, the user's.
    pub turns: Vec<TurnSeen>,
}

/// One turn on the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct TurnSeen {
    /// The element's handle, stable while the element lives (the content script's counter).
    pub h: u32,
    /// A user's turn (only its presence counts; its text is never sent).
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub user: bool,
    /// The site's own id of the turn, where the adapter names one.
    pub id: Option<String>,
    /// The turn's text when it changed since the content script last sent it: the whole text,
    /// or with `at` what was appended to the first `at` UTF-16 units it sent before.
    pub text: Option<String>,
    pub at: Option<usize>,
}

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum TurnState {
    /// Old: nothing in it runs.
    History,
    /// New and complete-looking on a quiet page: live if it grows, history if it ends first.
    Undecided,
    /// Being written now: its calls run.
    Live,
    /// A live reply that ended.
    Done,
}

/// A reply as the page model knows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// The message id the ledger keys calls by.
    pub id: String,
    /// The site's id, where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_id: Option<String>,
    /// The element showing it now (`None`: it left the page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<u32>,
    pub state: TurnState,
    /// The text, in memory only: after a worker restart it is asked for again.
    #[serde(skip)]
    pub text: Option<String>,
    /// The text's length in UTF-16 units (what a content script counts).
    pub utf16: usize,
    /// A hash of the text without its white space (a re-mounted turn may lay its text out with
    /// other line breaks): identity by content survives a restart without the text. Updated as
    /// text is appended, so a reply streamed in many appends costs its length once.
    #[serde(with = "hex")]
    pub hash: u64,
    #[serde(skip)]
    changed_at: u64,
    /// A streaming signal was seen while this was the newest reply.
    #[serde(default)]
    saw_signal: bool,
    /// Its text was let go to bound the page's memory (not asked for again).
    #[serde(skip)]
    forgotten: bool,
    /// When its element left the page (the most recent ones are compared with new elements as
    /// other renders of them).
    #[serde(skip)]
    left_at: u64,
}

impl Turn {
    /// Whether its element, at the page's last place, now shows a reply written anew rather
    /// than more or another render of this one: it had ended, and the element's whole text is
    /// less of it than it showed (with `anew`, the site's signal that the element is being
    /// written, any less; without, under nine tenths, as for a new element in [`Page::find`]).
    fn written_anew(&self, s: &TurnSeen, anew: bool) -> bool {
        let (Some(old), Some(text), None) = (self.text.as_deref(), s.text.as_deref(), s.at) else {
            return false;
        };
        if !matches!(self.state, TurnState::Done | TurnState::History) || rendered_again(old, text)
        {
            return false;
        }
        let (old, new) = (render::content(old), render::content(text));
        new.len() < old.len() && (anew || new.len() * 10 < old.len() * 9)
    }

    fn set_text(&mut self, text: String, now: u64) {
        self.utf16 = utf16_len(&text);
        self.hash = hash_more(HASH_START, &text);
        self.text = Some(text);
        self.changed_at = now;
    }

    fn append(&mut self, more: &str, now: u64) {
        self.utf16 += utf16_len(more);
        self.hash = hash_more(self.hash, more);
        self.text.get_or_insert_with(String::new).push_str(more);
        self.changed_at = now;
    }
}

/// What the tool loop must do with one reply after an observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub message_id: String,
    pub text: ReportText,
    /// The reply has ended.
    pub done: bool,
    /// Nothing in it runs (an old reply whose calls only show their cards).
    pub history: bool,
}

/// The text a [`Report`] carries for the reply's parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportText {
    /// None: the parser's text is unchanged (a reply that ended, an old reply).
    Unchanged,
    /// The reply's whole text.
    Whole(String),
    /// Appended to the first `at` UTF-16 units (the parser has them unless the worker
    /// restarted; then the whole text is known too, see [`Page::text_of`]).
    Appended { at: usize, text: String },
}

/// What an observation decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The page's URL changed: from which URL, and how.
    pub moved: Option<(String, Move)>,
    /// Another conversation (or a new load): the cards of the last one go.
    pub reset: bool,
    /// What each reply that changed means for the loop, in page order.
    pub reports: Vec<Report>,
    /// Handles whose whole text the content script must send (the core lacks what an
    /// appended text extends: the worker restarted).
    pub resend: Vec<u32>,
    /// Look again after this long even if nothing changes (a reply's end is pending).
    pub rescan_ms: Option<u64>,
    /// The persisted part of the page changed (a turn came or went, a state changed).
    pub changed: bool,
}

/// Another tab's claim on a reply this page shows for the first time.
pub trait OtherTabs {
    /// Whether another tab on the same conversation shows this reply: the same site id, the
    /// same text, or (while it is being written there) text that this one extends or that
    /// extends this one.
    fn shows(&self, site_id: Option<&str>, text: &str) -> bool;
}

impl OtherTabs for () {
    fn shows(&self, _: Option<&str>, _: &str) -> bool {
        false
    }
}

/// One tab's page.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The content script instance last seen.
    pub instance: String,
    /// The URL last seen (without fragment).
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// See the module doc: new complete-looking replies are loading, not being written.
    pub quiet: bool,
    /// User turns' handles seen (a new one is a message sent).
    #[serde(default)]
    users: Vec<u32>,
    /// The counter of local message ids.
    next: u64,
    /// Known replies, in page order (those that left keep their place).
    pub turns: Vec<Turn>,
    /// When the page was last observed (pruning).
    #[serde(default)]
    pub seen_at: u64,
    /// When the page last sent a message (the user's Send, ours, a new user turn).
    #[serde(default)]
    sent_at: u64,
}

impl Page {
    /// The whole text of a reply, when the model has it.
    pub fn text_of(&self, message_id: &str) -> Option<&str> {
        let turn = self.turns.iter().find(|t| t.id == message_id)?;
        turn.text.as_deref()
    }

    /// Whether this page shows a reply `site_id` or `text` names, for [`OtherTabs`]: the same
    /// site id, the same text, or, while it is being written here, text related by extension.
    pub fn shows(&self, site_id: Option<&str>, text: &str) -> bool {
        let h = hash(text);
        self.turns.iter().any(|t| {
            if let (Some(a), Some(b)) = (site_id, t.site_id.as_deref()) {
                return a == b;
            }
            if t.hash == h && text.chars().count() >= CROSS_TAB_MIN_CHARS {
                return true;
            }
            let writing = matches!(t.state, TurnState::Live | TurnState::Undecided);
            match (&t.text, writing) {
                (Some(mine), true) => related(mine, text),
                _ => false,
            }
        })
    }

    /// One look at the page at `now` (ms), its URL `url` (without fragment).
    pub fn observe(
        &mut self,
        obs: &Observation,
        url: &str,
        now: u64,
        others: &impl OtherTabs,
    ) -> Outcome {
        let mut out = Outcome::default();
        self.seen_at = now;
        // A new load or another conversation: everything shown now is looked at afresh.
        let mut first = false;
        // Turns of the page before, to recognise (by text) the ones shown again.
        let mut before: Vec<Turn> = Vec::new();
        if self.instance != obs.page {
            let same_url = self.url == url;
            first = true;
            out.reset = !self.instance.is_empty();
            if same_url {
                before = std::mem::take(&mut self.turns);
                before.iter_mut().for_each(|t| t.handle = None);
            }
            self.turns.clear();
            self.users.clear();
            self.instance = obs.page.clone();
            self.quiet = true;
        } else if self.url != url {
            let kind = move_kind(
                &self.url,
                self.conversation.as_deref(),
                url,
                obs.conversation.as_deref(),
                obs.pattern,
            );
            if kind != Move::Same {
                out.moved = Some((self.url.clone(), kind));
            }
            if kind == Move::Switch {
                first = true;
                out.reset = true;
                self.turns.clear();
                self.users.clear();
                self.quiet = true;
            }
        }
        if self.url != url || self.conversation != obs.conversation {
            out.changed = true;
        }
        self.url = url.to_owned();
        self.conversation = obs.conversation.clone();

        // A message went out: the user's Send (ours or a new user turn seen).
        let users: Vec<u32> = obs.turns.iter().filter(|t| t.user).map(|t| t.h).collect();
        let new_user = users.iter().any(|h| !self.users.contains(h));
        if obs.submitted || (new_user && !first && !self.users.is_empty()) {
            self.quiet = false;
            self.sent_at = now;
        }
        if users != self.users {
            self.users = users;
        }

        // Resolve each assistant turn to a known reply, in page order.
        let seen: Vec<&TurnSeen> = obs.turns.iter().filter(|t| !t.user).collect();
        let present: Vec<u32> = seen.iter().map(|t| t.h).collect();
        for t in &mut self.turns {
            if t.handle.is_some_and(|h| !present.contains(&h)) {
                t.handle = None;
                t.left_at = now;
                out.changed = true;
            }
        }
        // The page's last turn while the page says a reply is being written: a new element
        // there showing less than a reply that had ended is a reply written anew (Regenerate).
        let anew = (obs.streaming)
            .then(|| obs.turns.last().filter(|t| !t.user).map(|t| t.h))
            .flatten();
        // Index into self.turns per seen turn; `None` entries get new turns below.
        let mut order: Vec<usize> = Vec::with_capacity(seen.len());
        let mut fresh: Vec<usize> = Vec::new();
        // Known replies shown by a new element (a re-render, a re-mount).
        let mut remounted: Vec<usize> = Vec::new();
        for s in &seen {
            let last = obs.turns.last().is_some_and(|t| t.h == s.h);
            let known = self.find(s, &before, first, anew == Some(s.h), last);
            let idx = match known {
                Found::Here(i) => {
                    if self.turns[i].handle != Some(s.h) {
                        remounted.push(i);
                    }
                    if self.turns[i].handle != Some(s.h) {
                        self.turns[i].handle = Some(s.h);
                        out.changed = true;
                    }
                    i
                }
                Found::Before(turn) => {
                    // A reload showing a reply again: its id (and cards) carry over; history.
                    let mut turn = turn;
                    turn.handle = Some(s.h);
                    turn.state = TurnState::History;
                    self.turns.push(turn);
                    out.changed = true;
                    fresh.push(self.turns.len() - 1);
                    self.turns.len() - 1
                }
                Found::New => {
                    self.next += 1;
                    let id = match &s.id {
                        Some(site) => format!("s:{site}"),
                        None => format!("p:{}-{}", self.instance, self.next),
                    };
                    self.turns.push(Turn {
                        id,
                        site_id: s.id.clone(),
                        handle: Some(s.h),
                        state: TurnState::Undecided,
                        text: None,
                        utf16: 0,
                        hash: HASH_START,
                        changed_at: now,
                        saw_signal: false,
                        forgotten: false,
                        left_at: 0,
                    });
                    out.changed = true;
                    fresh.push(self.turns.len() - 1);
                    self.turns.len() - 1
                }
            };
            order.push(idx);
        }

        // Text updates, and what grew.
        let mut grew: Vec<Option<ReportText>> = vec![None; order.len()];
        for (k, s) in seen.iter().enumerate() {
            let turn = &mut self.turns[order[k]];
            let Some(text) = &s.text else {
                if turn.text.is_none() && !turn.forgotten && !fresh.contains(&order[k]) {
                    // Restored after a restart: the text is asked for again.
                    out.resend.push(s.h);
                }
                continue;
            };
            match s.at {
                None => {
                    if turn.text.as_deref() == Some(text.as_str()) {
                        continue;
                    }
                    if turn.text.is_none() && turn.utf16 > 0 && turn.hash == hash(text) {
                        // The text a restarted worker asked for, unchanged: nothing grew.
                        turn.text = Some(text.clone());
                        continue;
                    }
                    if turn.state != TurnState::Live
                        && turn
                            .text
                            .as_deref()
                            .is_some_and(|old| rendered_again(old, text))
                    {
                        // Not being written: the same reply rendered anew (highlighted, its
                        // gutter drawn) has not grown.
                        let changed_at = turn.changed_at;
                        turn.set_text(text.clone(), now);
                        turn.changed_at = changed_at;
                        continue;
                    }
                    let extends = turn
                        .text
                        .as_deref()
                        .filter(|old| !old.is_empty() && text.starts_with(old))
                        .map(|old| (old.len(), turn.utf16));
                    grew[k] = Some(match extends {
                        Some((bytes, at)) => {
                            turn.append(&text[bytes..], now);
                            ReportText::Appended {
                                at,
                                text: text[bytes..].to_owned(),
                            }
                        }
                        None => {
                            turn.set_text(text.clone(), now);
                            ReportText::Whole(text.clone())
                        }
                    });
                }
                Some(at) => match &turn.text {
                    Some(_) if turn.utf16 == at => {
                        if text.is_empty() {
                            continue;
                        }
                        turn.append(text, now);
                        grew[k] = Some(ReportText::Appended {
                            at,
                            text: text.clone(),
                        });
                    }
                    _ => out.resend.push(s.h),
                },
            }
        }

        // Where each reply stood before this look (a new one: undecided).
        let initial: Vec<TurnState> = order
            .iter()
            .map(|i| {
                if fresh.contains(i) {
                    TurnState::Undecided
                } else {
                    self.turns[*i].state
                }
            })
            .collect();

        // A reply being written since the last send whose element left in this look, shown by
        // no element now: the page moved away from it (another conversation opened from a
        // sidebar without a URL change), not on to the answer of a new message. What appears
        // in its place is taken as live only once it grows.
        let displaced = self.turns.iter().any(|t| {
            t.handle.is_none()
                && t.left_at == now
                && t.changed_at > self.sent_at
                && matches!(t.state, TurnState::Live | TurnState::Undecided)
        });
        // Old or live, for the replies seen for the first time.
        let last = order.len().checked_sub(1);
        for (k, &idx) in order.iter().enumerate() {
            if !fresh.contains(&idx) || self.turns[idx].state != TurnState::Undecided {
                continue;
            }
            // Not the newest: an old turn mounted again above the ones we know (a virtualised
            // list scrolled up), or a reply a newer one already follows.
            let history = first || Some(k) != last || {
                let t = &self.turns[idx];
                let text = t.text.as_deref().unwrap_or("");
                others.shows(t.site_id.as_deref(), text)
            };
            let turn = &mut self.turns[idx];
            if history {
                turn.state = TurnState::History;
            } else if !displaced && (obs.streaming || !self.quiet) {
                turn.state = TurnState::Live;
                self.quiet = false;
            }
            turn.changed_at = now;
        }

        // Growth, signals and ends of the replies not ended yet.
        for (k, &idx) in order.iter().enumerate() {
            let newest = Some(k) == last;
            let grown = grew[k].take();
            let claimed = initial[k] == TurnState::Undecided && {
                let t = &self.turns[idx];
                !fresh.contains(&idx)
                    && others.shows(t.site_id.as_deref(), t.text.as_deref().unwrap_or(""))
            };
            let turn = &mut self.turns[idx];
            if claimed {
                turn.state = TurnState::History;
            }
            // A reply that ended changes its text only under our eyes: a new element showing
            // it differently is a re-mount, not more of the reply.
            let went_on = grown.is_some()
                && !fresh.contains(&idx)
                && (!remounted.contains(&idx) || turn.state == TurnState::Undecided);
            if went_on
                && (turn.state == TurnState::Undecided || (turn.state == TurnState::Done && newest))
            {
                // It grows under our eyes: it is being written now (again, after a pause
                // that no signal covered).
                turn.state = TurnState::Live;
                turn.saw_signal = false;
                self.quiet = false;
            }
            if matches!(turn.state, TurnState::Live | TurnState::Undecided) {
                if newest && obs.streaming {
                    turn.saw_signal = true;
                }
                let still = now.saturating_sub(turn.changed_at);
                let wait = if turn.saw_signal {
                    STOP_QUIET_MS
                } else {
                    SETTLE_MS
                };
                if !newest || (!obs.streaming && still >= wait) {
                    turn.state = if turn.state == TurnState::Live {
                        TurnState::Done
                    } else {
                        TurnState::History
                    };
                    // The next reply comes after a send: until then a turn that appears
                    // complete is an old one shown again, not a new answer.
                    self.quiet = true;
                } else {
                    let next = if obs.streaming {
                        SIGNAL_POLL_MS
                    } else {
                        wait - still
                    };
                    out.rescan_ms = Some(out.rescan_ms.map_or(next, |m: u64| m.min(next)));
                }
            }
            if turn.state != initial[k] {
                out.changed = true;
            }
            let whole = || ReportText::Whole(turn.text.clone().unwrap_or_default());
            // The parser has a reply's text only while it is live (it is dropped at the end).
            let report = match (turn.state, initial[k]) {
                (TurnState::Undecided, _) => None,
                (TurnState::History, TurnState::History) => None,
                (TurnState::History, _) => Some((ReportText::Unchanged, true, true)),
                (TurnState::Live, TurnState::Live) => grown.map(|g| (g, false, false)),
                (TurnState::Live, _) => Some((whole(), false, false)),
                (TurnState::Done, TurnState::Live) => {
                    Some((grown.unwrap_or(ReportText::Unchanged), true, false))
                }
                (TurnState::Done, TurnState::Undecided) => Some((whole(), true, false)),
                (TurnState::Done, _) => None,
            };
            if let Some((text, done, history)) = report {
                out.reports.push(Report {
                    message_id: turn.id.clone(),
                    text,
                    done,
                    history,
                });
            }
        }
        // A reply being written whose element left while a newer reply is on the page (a
        // virtualised list unmounting it as the next one streams) has ended. (Newer: known
        // later and not old; an old turn mounted again is known later too.)
        let newest_shown = (order.iter().copied())
            .filter(|&i| self.turns[i].state != TurnState::History)
            .max();
        // So has one whose element left and has not come back for [`SETTLE_MS`] (a branch
        // switched, a render nothing recognised): its text is still, as far as anyone can see.
        for (i, turn) in self.turns.iter_mut().enumerate() {
            let writing = matches!(turn.state, TurnState::Live | TurnState::Undecided);
            if turn.handle.is_some() || !writing {
                continue;
            }
            let away = now.saturating_sub(turn.left_at);
            if newest_shown.is_none_or(|n| n < i) && away < SETTLE_MS {
                let next = SETTLE_MS - away;
                out.rescan_ms = Some(out.rescan_ms.map_or(next, |m: u64| m.min(next)));
                continue;
            }
            out.changed = true;
            if turn.state == TurnState::Undecided {
                turn.state = TurnState::History;
                continue;
            }
            turn.state = TurnState::Done;
            self.quiet = true;
            out.reports.push(Report {
                message_id: turn.id.clone(),
                text: ReportText::Unchanged,
                done: true,
                history: false,
            });
        }
        self.prune();
        out
    }

    /// The known reply a seen turn is: by handle, site id, or text (see the module doc). `anew`:
    /// the page says this element is being written now, so it shows no reply that had ended.
    /// `last`: the element is the page's last turn, where a reply is written.
    fn find(
        &mut self,
        s: &TurnSeen,
        before: &[Turn],
        first: bool,
        anew: bool,
        last: bool,
    ) -> Found {
        if let Some(i) = self.turns.iter().position(|t| t.handle == Some(s.h)) {
            if last && self.turns[i].written_anew(s, anew) {
                // Regenerate in the reply's own element: the element shows a new reply now;
                // the old one left (its calls stay its own).
                self.turns[i].handle = None;
                self.turns[i].left_at = self.seen_at;
                return Found::New;
            }
            return Found::Here(i);
        }
        if let Some(site) = &s.id {
            if let Some(i) = self
                .turns
                .iter()
                .position(|t| t.site_id.as_deref() == Some(site))
            {
                return Found::Here(i);
            }
            if let Some(t) = before.iter().find(|t| t.site_id.as_deref() == Some(site)) {
                return Found::Before(t.clone());
            }
            return Found::New;
        }
        let Some(text) = s.text.as_deref().filter(|_| s.at.is_none()) else {
            return Found::New;
        };
        let h = hash(text);
        let writing = |t: &Turn| matches!(t.state, TurnState::Live | TurnState::Undecided);
        let gone = |t: &&Turn| t.handle.is_none() && t.site_id.is_none();
        let new = render::content(text);
        // Less text than a reply that had ended, where the page writes one: written anew. Without
        // a signal, much less of it (under nine tenths) is too: a reply shown again shows all
        // of it, a regenerated one starts over.
        let again = |t: &Turn, old: &[char]| {
            writing(t) || new.len() >= old.len() || (!anew && new.len() * 10 >= old.len() * 9)
        };
        // A reply being written, re-rendered per token: its new element extends its text. First:
        // a regenerated reply that ends with its old text again is the one being written, not
        // the old reply it repeats. Elsewhere than the page's last place, only a text with
        // enough content to tell replies apart: one that showed white space alone ("\n\n"
        // before its first token) begins every reply, also one drawn again above it.
        let written_on = |old: &str| {
            extends(old, text) && (last || render::content(old).len() >= render::START_CHARS)
        };
        if let Some(i) = self
            .turns
            .iter()
            .rposition(|t| gone(&t) && writing(t) && t.text.as_deref().is_some_and(written_on))
        {
            return Found::Here(i);
        }
        // Its final render in a new element (a table drawn, a gutter), the same content give
        // or take a few characters: still the reply being written.
        if let Some(i) = self.turns.iter().rposition(|t| {
            gone(&t)
                && writing(t)
                && (t.text.as_deref()).is_some_and(|old| {
                    related(old, text) || render::same_reply(&render::content(old), &new)
                })
        }) {
            return Found::Here(i);
        }
        // Its final render at the page's last place, caught part way and drawn differently
        // (markdown rendered at its end: a fence hidden, a code block's header): still the
        // reply being written when it starts the same way. (A reply being written whose
        // element left is the newest one: a newer reply would have ended it.)
        if last {
            if let Some(i) = self.turns.iter().rposition(|t| {
                gone(&t)
                    && writing(t)
                    && (t.text.as_deref())
                        .is_some_and(|old| render::starts_alike(&render::content(old), &new))
            }) {
                return Found::Here(i);
            }
        }
        if let Some(i) = self.turns.iter().position(|t| gone(&t) && t.hash == h) {
            return Found::Here(i);
        }
        // A turn shown again with its text rendered a little differently (a code block's
        // button label, a lazily rendered tail): the reply whose text it extends or that
        // extends it, long enough not to be chance.
        if let Some(i) = self.turns.iter().rposition(|t| {
            gone(&t)
                && (t.text.as_deref())
                    .is_some_and(|old| related(old, text) && again(t, &render::content(old)))
        }) {
            return Found::Here(i);
        }
        // Another render of a reply whose element just left (a final render with a gutter, a
        // header, other white space): the same content, give or take a few characters.
        let mut recent: Vec<usize> = Vec::with_capacity(RENDER_CANDIDATES + 1);
        for (i, t) in self.turns.iter().enumerate() {
            if !gone(&t) || t.text.is_none() {
                continue;
            }
            let at = recent.partition_point(|&j| self.turns[j].left_at >= t.left_at);
            recent.insert(at, i);
            recent.truncate(RENDER_CANDIDATES);
        }
        if let Some(i) = recent.into_iter().find(|&i| {
            let t = &self.turns[i];
            let old = render::content(t.text.as_deref().unwrap_or(""));
            again(t, &old) && render::same_reply(&old, &new)
        }) {
            return Found::Here(i);
        }
        if first {
            // The same text used by several old replies: each is taken once.
            let taken: Vec<&str> = self.turns.iter().map(|t| t.id.as_str()).collect();
            if let Some(t) = before
                .iter()
                .find(|t| t.hash == h && !taken.contains(&t.id.as_str()))
            {
                return Found::Before(t.clone());
            }
        }
        Found::New
    }

    /// Keeps the newest [`MAX_TURNS`] replies (the ones on the page always stay), and the
    /// texts of the newest within [`MAX_TEXT_BYTES`]: an older reply that ended keeps its hash,
    /// which still recognises it shown again with the same text.
    fn prune(&mut self) {
        let mut excess = self.turns.len().saturating_sub(MAX_TURNS);
        if excess > 0 {
            self.turns.retain(|t| {
                if excess > 0 && t.handle.is_none() {
                    excess -= 1;
                    false
                } else {
                    true
                }
            });
        }
        let mut bytes = 0usize;
        for t in self.turns.iter_mut().rev() {
            let Some(text) = &t.text else { continue };
            bytes += text.len();
            let writing = matches!(t.state, TurnState::Live | TurnState::Undecided);
            if bytes > MAX_TEXT_BYTES && !writing {
                t.text = None;
                t.forgotten = true;
            }
        }
    }
}

enum Found {
    Here(usize),
    Before(Turn),
    New,
}

/// Whether one text extends the other (a reply caught at two moments of its writing).
fn extends(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty() && long.starts_with(short)
}

/// [`extends`] without regard to white space, for texts long enough not to be the same by
/// chance (another tab's reply, a turn mounted again with another layout).
fn related(a: &str, b: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (a, b) = (squash(a), squash(b));
    extends(&a, &b) && a.chars().count().min(b.chars().count()) >= CROSS_TAB_MIN_CHARS
}

/// Whether `new` is `old` rendered again rather than more of it: the same content (white
/// space, a gutter, a page counter aside), or another render of it that does not extend it.
fn rendered_again(old: &str, new: &str) -> bool {
    let (a, b) = (render::content(old), render::content(new));
    a == b || (!new.starts_with(old) && render::same_reply(&a, &b))
}

/// JavaScript's length of a string: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

const HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The text's hash ([`Turn::hash`]).
fn hash(s: &str) -> u64 {
    hash_more(HASH_START, s)
}

/// FNV-1a continued over `s`, white space left out.
fn hash_more(mut h: u64, s: &str) -> u64 {
    for b in s.bytes().filter(|b| !b.is_ascii_whitespace()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Hashes stored as hex strings: JavaScript numbers hold 53 bits.
mod hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{h:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}
