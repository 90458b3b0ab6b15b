//! A reply's text as identity compares it across renders: a site's final render of a reply
//! shows what was streamed with a code block's line-number gutter (digits on lines of their
//! own, before or among the code lines, as `innerText` reads them), highlighted token spans
//! (other white space and line breaks), a page counter (`1 / 2`), a code block's header or a
//! button's label. Linear in the texts' lengths.

use super::CROSS_TAB_MIN_CHARS;

/// How many characters two renders of one reply may differ by (labels, a header), besides one
/// in [`RENDER_SLACK_DIVISOR`] of the longer one's.
pub const RENDER_SLACK_CHARS: usize = 64;
/// See [`RENDER_SLACK_CHARS`].
pub const RENDER_SLACK_DIVISOR: usize = 8;

/// The text without white space and without the lines that hold only digits and slashes (a
/// gutter's line numbers, a page counter): what every render of a reply shows.
pub fn content(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split(['\n', '\r']) {
        let mut chars = line.chars().filter(|c| !c.is_whitespace()).peekable();
        if chars.peek().is_none() {
            continue;
        }
        let start = out.len();
        let mut counter = true;
        for c in chars {
            counter &= c.is_ascii_digit() || c == '/';
            out.push(c);
        }
        if counter {
            out.truncate(start);
        }
    }
    out
}

/// Whether two contents ([`content`]) are renders of one reply: the same, or, both long enough
/// not to be alike by chance, one the other with a few characters more (labels, a header, a
/// gutter's digits on the code's own lines) anywhere.
pub fn same_reply(a: &[char], b: &[char]) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let slack = RENDER_SLACK_CHARS + long.len() / RENDER_SLACK_DIVISOR;
    short.len() >= CROSS_TAB_MIN_CHARS
        && long.len() - short.len() <= slack
        && is_subsequence(short, long)
}

/// How many characters two renders of one reply begin with alike, at least (fewer where a
/// text is shorter), for [`starts_alike`].
pub const START_CHARS: usize = 8;

/// Whether two contents ([`content`]) begin the same way: the first [`START_CHARS`] characters
/// (all of the shorter one's, when it has fewer), none empty. What a reply's render and a
/// later, fuller render of it share when the later one draws its markdown differently.
pub fn starts_alike(a: &[char], b: &[char]) -> bool {
    let n = START_CHARS.min(a.len()).min(b.len());
    n > 0 && a[..n] == b[..n]
}

/// Whether `short` is `long` with some characters left out (one pass over `long`).
fn is_subsequence(short: &[char], long: &[char]) -> bool {
    let mut rest = short.iter().peekable();
    for c in long {
        if rest.peek() == Some(&c) {
            rest.next();
        }
    }
    rest.peek().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gutters_counters_and_white_space_are_not_content() {
        let streamed = "Sure.\n{\n  \"a\": 1\n}\n";
        let rendered = "Sure.\n1\n{\n2\n\"a\":\t1\n3\n}\n1 / 2\n";
        assert_eq!(content(streamed), content(rendered));
        assert_eq!(content("12\r\n3/4"), Vec::<char>::new());
    }

    #[test]
    fn a_few_more_characters_anywhere_are_the_same_reply_only_when_long_enough() {
        let c = |s: &str| content(s);
        let reply = "Sure, adding them: {\"tool\": \"add\"}";
        let header = "Sure, adding them: json Copy code {\"tool\": \"add\"}";
        assert!(same_reply(&c(reply), &c(header)));
        assert!(same_reply(&c(header), &c(reply)));
        assert!(!same_reply(&c("Sure."), &c("Sure. Copy")));
        assert!(!same_reply(
            &c(reply),
            &c("Sure, adding them: {\"tool\": \"sub\"}")
        ));
        let long = "x".repeat(CROSS_TAB_MIN_CHARS);
        let more = format!("{long}{}", "y".repeat(2 * RENDER_SLACK_CHARS));
        assert!(!same_reply(&c(&long), &c(&more)));
    }
}
