//! The identity of a chat: the tab it is in and its conversation URL.

/// A chat's key: its tab and conversation URL (without the fragment, which chat sites use for
/// in-page anchors, not for conversations).
pub fn chat_key(tab_id: i64, url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    format!("{tab_id}|{url}")
}

/// The tab of a chat key.
pub fn tab_of(chat: &str) -> Option<i64> {
    chat.split('|').next().and_then(|t| t.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chats_are_tab_and_url_without_fragment() {
        let key = chat_key(7, "https://chat.example/c/1#msg-3");
        assert_eq!(key, "7|https://chat.example/c/1");
        assert_eq!(tab_of(&key), Some(7));
        assert_eq!(tab_of("x|y"), None);
    }
}
