//! The identity of a chat: the tab it is in and its conversation URL, and what happens when a
//! tab's conversation URL changes without a reload.

use super::{App, Effect};

/// A chat's key: its tab and conversation URL (without the fragment, which chat sites use for
/// in-page anchors, not for conversations).
pub fn chat_key(tab_id: i64, url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    format!("{tab_id}|{url}")
}

/// The chat of a content script's message: its tab (from Chrome's sender) and its page's
/// current URL. Chrome's sender URL is the document's URL at load: an in-page navigation (the
/// History API: a new chat becoming `/c/<id>`, the page's own "New chat") does not change it.
/// So the content script reports `location.href` (`reported`), taken when it has the sender's
/// origin: a page can move anywhere within its origin by itself, never out of it.
pub fn content_chat(tab_id: i64, sender_url: &str, reported: Option<&str>) -> String {
    let url = match (reported, origin_of(sender_url)) {
        (Some(r), Some(o)) if origin_of(r) == Some(o) => r,
        _ => sender_url,
    };
    chat_key(tab_id, url)
}

/// `scheme://host[:port]` of an absolute URL, compared as written (both sides come from the
/// browser, normalised).
fn origin_of(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    (end > start).then(|| &url[..end])
}

/// The tab of a chat key.
pub fn tab_of(chat: &str) -> Option<i64> {
    chat.split('|').next().and_then(|t| t.parse().ok())
}

impl App {
    /// A tab's page moved from the URL `from` (chat key `from`) to the conversation `to`
    /// without a reload. `fresh`: `from` was a "new chat" URL (no conversation id), so `to` is
    /// the conversation that chat became (`claude.ai/new` → `/chat/<uuid>`): it keeps the
    /// chat's settings, unless it has its own, and the turn's loop counters. Moving between
    /// two conversations carries nothing: each keeps its own settings.
    pub fn chat_moved(&mut self, from: &str, to: &str, fresh: bool) -> Vec<Effect> {
        if !fresh || from == to || self.config.chats.contains_key(to) {
            return Vec::new();
        }
        let Some(settings) = self.config.chats.get(from).cloned() else {
            return Vec::new();
        };
        self.config.chats.insert(to.to_owned(), settings);
        let mut effects = vec![Effect::SaveConfig];
        if self.ledger.carry_turn(from, to) {
            effects.push(Effect::SaveLedger);
        }
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_script_names_its_current_url_within_its_origin() {
        let load = "https://chat.example/new";
        let cases = [
            (
                Some("https://chat.example/chat/9f1c"),
                "7|https://chat.example/chat/9f1c",
            ),
            (
                Some("https://chat.example/chat/9f1c#m2"),
                "7|https://chat.example/chat/9f1c",
            ),
            (None, "7|https://chat.example/new"),
            // Another origin (or nothing that parses) is never taken: the sender's URL is.
            (
                Some("https://other.example/chat/1"),
                "7|https://chat.example/new",
            ),
            (
                Some("https://chat.example.evil/x"),
                "7|https://chat.example/new",
            ),
            (Some("chat/1"), "7|https://chat.example/new"),
        ];
        for (reported, want) in cases {
            assert_eq!(content_chat(7, load, reported), want, "{reported:?}");
        }
    }

    #[test]
    fn chats_are_tab_and_url_without_fragment() {
        let key = chat_key(7, "https://chat.example/c/1#msg-3");
        assert_eq!(key, "7|https://chat.example/c/1");
        assert_eq!(tab_of(&key), Some(7));
        assert_eq!(tab_of("x|y"), None);
    }
}
