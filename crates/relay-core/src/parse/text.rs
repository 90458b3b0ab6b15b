//! Byte-level helpers shared by the scanner and the repairing JSON reader: chat-site labels,
//! HTML entities, line starts, "does this look like a call".

use std::borrow::Cow;

use memchr::memmem;

/// Lines chat sites put around or inside rendered code blocks (language badges, copy buttons,
/// Material icon ligatures). Compared case-insensitively against a whole trimmed line.
const LABELS: &[&str] = &[
    "json",
    "jsonc",
    "json5",
    "jsonl",
    "xml",
    "code",
    "copy",
    "copy code",
    "copied!",
    "copied",
    "content_copy",
    "download",
    "edit",
    "expand_more",
    "expand_less",
    "wrap",
    "复制",
    "复制代码",
    "代码",
    "已复制",
];

/// Whether `line` (without its newline) is nothing but a code-block label.
pub(crate) fn is_label_line(line: &str) -> bool {
    let t = line.trim_matches(|c: char| c.is_whitespace());
    !t.is_empty() && t.len() <= 16 && LABELS.iter().any(|l| l.eq_ignore_ascii_case(t))
}

/// Whether the text mentions what every call format has somewhere: a tool, a function or
/// arguments. Used only to decide whether a failure deserves a diagnostic.
pub(crate) fn looks_like_call(bytes: &[u8]) -> bool {
    memmem::find(bytes, b"tool").is_some()
        || memmem::find(bytes, b"arguments").is_some()
        || memmem::find(bytes, b"function").is_some()
        || memmem::find(bytes, b"invoke").is_some()
}

/// Whether `i` is the first non-blank byte of its line (blanks: spaces and tabs, at most 64 of
/// them, so the look-back stays bounded).
pub(crate) fn at_line_start(bytes: &[u8], i: usize, floor: usize) -> bool {
    let mut j = i;
    let lowest = i.saturating_sub(64).max(floor);
    while j > lowest {
        match bytes[j - 1] {
            b' ' | b'\t' => j -= 1,
            b'\n' => return true,
            _ => return false,
        }
    }
    j == floor
}

/// The length of the run of `b` starting at `i` (stopping at `end`).
pub(crate) fn run_len(bytes: &[u8], i: usize, end: usize, b: u8) -> usize {
    bytes[i..end].iter().take_while(|&&c| c == b).count()
}

/// The last byte before `i` that is not whitespace (ASCII blanks, or the NBSP `C2 A0`), stopping
/// at `floor`. Whitespace runs are disjoint between two calls, so the look-backs add up to linear.
pub(crate) fn prev_significant(bytes: &[u8], i: usize, floor: usize) -> Option<u8> {
    let mut j = i;
    while j > floor {
        let b = bytes[j - 1];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => j -= 1,
            0xa0 if j >= floor + 2 && bytes[j - 2] == 0xc2 => j -= 2,
            _ => return Some(b),
        }
    }
    None
}

/// Decodes the HTML entities chat pages leave in text (`&quot;`, `&amp;`, `&lt;`, `&gt;`,
/// `&#39;`, `&apos;`, `&nbsp;` and numeric ones). `Cow::Borrowed` when there was none.
pub(crate) fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        match decode_one(tail) {
            Some((c, used)) => {
                out.push(c);
                rest = &tail[used..];
                changed = true;
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(s)
    }
}

fn decode_one(tail: &str) -> Option<(char, usize)> {
    const NAMED: &[(&str, char)] = &[
        ("&quot;", '"'),
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&apos;", '\''),
        ("&nbsp;", '\u{a0}'),
        ("&ldquo;", '\u{201c}'),
        ("&rdquo;", '\u{201d}'),
        ("&lsquo;", '\u{2018}'),
        ("&rsquo;", '\u{2019}'),
    ];
    for (name, c) in NAMED {
        if tail.len() >= name.len()
            && tail.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return Some((*c, name.len()));
        }
    }
    let body = tail.strip_prefix("&#")?;
    let semi = body.find(';')?;
    if semi == 0 || semi > 8 {
        return None;
    }
    let digits = &body[..semi];
    let code = match digits.strip_prefix(['x', 'X']) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u32>().ok()?,
    };
    Some((char::from_u32(code)?, 2 + semi + 1))
}

/// Whether the text holds one of the entities [`decode_entities`] understands.
pub(crate) fn has_entities(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'&', b).any(|i| decode_one(&s[i..]).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_decode_and_unknown_ones_stay() {
        assert_eq!(
            decode_entities("&quot;a&quot; &amp;&#39;&#x41;&nbsp;&bogus; &"),
            "\"a\" &'A\u{a0}&bogus; &"
        );
        assert!(matches!(
            decode_entities("no entities & here"),
            Cow::Borrowed(_)
        ));
        assert!(has_entities("x &lt; y"));
        assert!(!has_entities("x & y"));
    }

    #[test]
    fn labels_are_whole_lines_only() {
        assert!(is_label_line("  Copy code "));
        assert!(is_label_line("复制"));
        assert!(is_label_line("JSON"));
        assert!(!is_label_line("json: 1"));
        assert!(!is_label_line(""));
    }

    #[test]
    fn line_starts_and_significant_bytes() {
        let b = b"ab\n   ```x";
        assert!(at_line_start(b, 6, 0));
        assert!(!at_line_start(b, 1, 0));
        assert!(at_line_start(b, 0, 0));
        assert_eq!(
            prev_significant("{ \u{a0}\n\"".as_bytes(), 5, 0),
            Some(b'{')
        );
        assert_eq!(prev_significant(b"  ", 2, 0), None);
    }
}
