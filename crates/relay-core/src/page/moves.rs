//! What a change of a page's URL without a reload means: the same chat, a new chat that became
//! a conversation, or another conversation.

use serde::{Deserialize, Serialize};

/// How a page's URL changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Move {
    /// The same conversation (another query, say).
    Same,
    /// A new chat got its conversation URL: the same chat, with its settings and replies.
    Fresh,
    /// Another conversation, or a new chat: what it shows is looked at afresh.
    Switch,
}

/// The kind of a move from `from` (conversation id `from_conv`) to `to` (`to_conv`), the ids
/// as the adapter's pattern (`pattern`) finds them. Without a pattern the path decides: a new
/// chat's path (`/`, `…/new`, `…/new_chat`) or one that the new path extends became that
/// conversation.
pub fn move_kind(
    from: &str,
    from_conv: Option<&str>,
    to: &str,
    to_conv: Option<&str>,
    pattern: bool,
) -> Move {
    let (Some(a), Some(b)) = (path_of(from), path_of(to)) else {
        return Move::Switch;
    };
    if pattern {
        return match (from_conv, to_conv) {
            (Some(x), y) => {
                if Some(x) == y {
                    Move::Same
                } else {
                    Move::Switch
                }
            }
            (None, Some(_)) => Move::Fresh,
            (None, None) if a == b => Move::Same,
            (None, None) => Move::Switch,
        };
    }
    if a == b {
        return Move::Same;
    }
    let trimmed = a.trim_end_matches('/');
    let new_chat =
        trimmed.is_empty() || trimmed.ends_with("/new") || trimmed.ends_with("/new_chat");
    let base = if a.ends_with('/') {
        a.to_owned()
    } else {
        format!("{a}/")
    };
    if new_chat || b.starts_with(&base) {
        Move::Fresh
    } else {
        Move::Switch
    }
}

/// The path of an absolute URL (`/` when it has none); `None` when it is not absolute.
fn path_of(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let path_start = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let rest = &rest[path_start..];
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    Some(if rest[..end].is_empty() {
        "/"
    } else {
        &rest[..end]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From, its id, to, its id, whether the adapter has a pattern, the move.
    type Case = (
        &'static str,
        Option<&'static str>,
        &'static str,
        Option<&'static str>,
        bool,
        Move,
    );

    #[test]
    fn moves_by_conversation_pattern_and_by_path() {
        let s = "https://chat.example";
        #[rustfmt::skip]
        let cases: &[Case] = &[
            // With a pattern: ids decide.
            ("/c/1", Some("1"), "/c/1", Some("1"), true, Move::Same),
            ("/c/1", Some("1"), "/c/2", Some("2"), true, Move::Switch),
            ("/c/1", Some("1"), "/", None, true, Move::Switch),
            ("/", None, "/c/9", Some("9"), true, Move::Fresh),
            ("/", None, "/?model=x", None, true, Move::Same),
            ("/", None, "/gpts", None, true, Move::Switch),
            // Without one: the path.
            ("/chat", None, "/chat", None, false, Move::Same),
            ("/", None, "/chat/7", None, false, Move::Fresh),
            ("/new", None, "/chat/7", None, false, Move::Fresh),
            ("/app/new_chat", None, "/app/x", None, false, Move::Fresh),
            ("/chat", None, "/chat/7", None, false, Move::Fresh),
            ("/chat/7", None, "/chat/8", None, false, Move::Switch),
            ("/chat/7", None, "/", None, false, Move::Switch),
        ];
        for &(from, fc, to, tc, pattern, want) in cases {
            let got = move_kind(&format!("{s}{from}"), fc, &format!("{s}{to}"), tc, pattern);
            assert_eq!(got, want, "{from} -> {to} (pattern: {pattern})");
        }
        assert_eq!(
            move_kind("not a url", None, "https://x/", None, false),
            Move::Switch
        );
    }
}
