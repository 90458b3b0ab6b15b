//! A repairing JSON reader for call candidates.
//!
//! Valid JSON goes through `serde_json` untouched. Only when that fails does the reader here try
//! again, accepting what models and chat pages do to JSON: trailing commas, typographic or single
//! quotes as string delimiters, raw newlines in strings, label lines and non-breaking spaces
//! between tokens, HTML entities, comments, unquoted keys, Python literals, a missing comma
//! between members, and (only when the caller says the text ends the finished message) one
//! missing closing bracket. Every repair used is recorded so the caller can report it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::text;

/// Deeper nesting than this is refused (as `serde_json` does), so hostile input cannot blow the
/// stack.
const MAX_DEPTH: u32 = 128;

/// The repairs applied to one call's text, as a bit set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Repairs(u32);

impl Repairs {
    pub(crate) const NONE: Repairs = Repairs(0);
    pub(crate) const TRAILING_COMMA: Repairs = Repairs(1);
    pub(crate) const SMART_QUOTES: Repairs = Repairs(1 << 1);
    pub(crate) const SINGLE_QUOTES: Repairs = Repairs(1 << 2);
    pub(crate) const LABEL_LINES: Repairs = Repairs(1 << 3);
    pub(crate) const HTML_ENTITIES: Repairs = Repairs(1 << 4);
    pub(crate) const UNICODE_SPACES: Repairs = Repairs(1 << 5);
    pub(crate) const RAW_CONTROL_CHARS: Repairs = Repairs(1 << 6);
    pub(crate) const MISSING_CLOSER: Repairs = Repairs(1 << 7);
    pub(crate) const COMMENTS: Repairs = Repairs(1 << 8);
    pub(crate) const UNQUOTED_KEYS: Repairs = Repairs(1 << 9);
    pub(crate) const PYTHON_LITERALS: Repairs = Repairs(1 << 10);
    pub(crate) const MISSING_COMMA: Repairs = Repairs(1 << 11);
    pub(crate) const INVALID_ESCAPES: Repairs = Repairs(1 << 12);
    pub(crate) const MISSING_CLOSING_FENCE: Repairs = Repairs(1 << 13);
    pub(crate) const ARGUMENTS_STRING: Repairs = Repairs(1 << 14);

    const NAMES: &'static [(Repairs, &'static str)] = &[
        (Repairs::TRAILING_COMMA, "trailing comma"),
        (Repairs::SMART_QUOTES, "typographic quotes"),
        (Repairs::SINGLE_QUOTES, "single quotes"),
        (Repairs::LABEL_LINES, "code block labels"),
        (Repairs::HTML_ENTITIES, "HTML entities"),
        (Repairs::UNICODE_SPACES, "non-breaking spaces"),
        (Repairs::RAW_CONTROL_CHARS, "unescaped newlines in strings"),
        (Repairs::MISSING_CLOSER, "missing final closing bracket"),
        (Repairs::COMMENTS, "comments"),
        (Repairs::UNQUOTED_KEYS, "unquoted keys"),
        (Repairs::PYTHON_LITERALS, "Python literals"),
        (Repairs::MISSING_COMMA, "missing comma"),
        (Repairs::INVALID_ESCAPES, "invalid escapes"),
        (Repairs::MISSING_CLOSING_FENCE, "missing closing fence"),
        (Repairs::ARGUMENTS_STRING, "repaired arguments string"),
    ];

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn insert(&mut self, other: Repairs) {
        self.0 |= other.0;
    }

    pub(crate) fn union(self, other: Repairs) -> Repairs {
        Repairs(self.0 | other.0)
    }

    /// Human names of the repairs, in a fixed order.
    pub(crate) fn names(self) -> Vec<String> {
        Self::NAMES
            .iter()
            .filter(|(r, _)| self.0 & r.0 != 0)
            .map(|(_, n)| (*n).to_owned())
            .collect()
    }
}

/// Why a candidate could not be read even with repairs. Offsets are bytes into the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum JsonError {
    #[error("the text ends before the JSON does")]
    UnexpectedEnd,
    #[error("unexpected {found:?} at byte {at}")]
    Unexpected { found: char, at: usize },
    #[error("nesting deeper than {MAX_DEPTH} levels at byte {at}")]
    TooDeep { at: usize },
    #[error("the string starting at byte {at} never ends")]
    UnterminatedString { at: usize },
    #[error("{text:?} at byte {at} is not a number")]
    BadNumber { text: String, at: usize },
    #[error("unexpected text after the JSON value at byte {at}")]
    Trailing { at: usize },
}

/// Reads one JSON value spanning all of `src` (which starts at byte `base` of the message).
///
/// `eof_ends_message`: the text ends the finished message, so one missing closing bracket may be
/// supplied.
pub(crate) fn read_value(
    src: &str,
    base: usize,
    eof_ends_message: bool,
) -> Result<(Value, Repairs), JsonError> {
    if let Ok(v) = serde_json::from_str::<Value>(src) {
        return Ok((v, Repairs::default()));
    }
    repair_value(src, base, eof_ends_message)
}

/// [`read_value`] for a text `serde_json` is known to refuse: only the repairing reader.
pub(crate) fn repair_value(
    src: &str,
    base: usize,
    eof_ends_message: bool,
) -> Result<(Value, Repairs), JsonError> {
    let first = Reader::new(src, base, eof_ends_message).document();
    match first {
        Ok(done) => Ok(done),
        Err(err) => {
            // Entities are decoded only when the text does not read without decoding, so
            // `&amp;` inside a valid string stays what the model wrote.
            if !text::has_entities(src) {
                return Err(err);
            }
            let decoded = text::decode_entities(src);
            let decoded: &str = match &decoded {
                Cow::Borrowed(s) => s,
                Cow::Owned(s) => s.as_str(),
            };
            match Reader::new(decoded, base, eof_ends_message).document() {
                Ok((v, mut repairs)) => {
                    repairs.insert(Repairs::HTML_ENTITIES);
                    Ok((v, repairs))
                }
                Err(_) => Err(err),
            }
        }
    }
}

struct Reader<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    base: usize,
    depth: u32,
    repairs: Repairs,
    may_close_at_end: bool,
}

/// Which characters open a string and how it ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `"`: ends at the next unescaped `"`.
    Double,
    /// `“` or `”` used as delimiters: ends at `”` (or `“`).
    SmartDouble,
    /// `'` or `‘`/`’`: ends at a matching quote followed by a structural character, so an
    /// apostrophe inside the text does not end it.
    Single,
    SmartSingle,
}

const LDQUO: &[u8] = "\u{201c}".as_bytes();
const RDQUO: &[u8] = "\u{201d}".as_bytes();
const LSQUO: &[u8] = "\u{2018}".as_bytes();
const RSQUO: &[u8] = "\u{2019}".as_bytes();

impl<'a> Reader<'a> {
    fn new(src: &'a str, base: usize, may_close_at_end: bool) -> Self {
        Reader {
            src,
            b: src.as_bytes(),
            i: 0,
            base,
            depth: 0,
            repairs: Repairs::default(),
            may_close_at_end,
        }
    }

    fn document(mut self) -> Result<(Value, Repairs), JsonError> {
        let v = self.value()?;
        self.skip_ws();
        if self.i < self.b.len() {
            return Err(JsonError::Trailing {
                at: self.base + self.i,
            });
        }
        Ok((v, self.repairs))
    }

    fn unexpected(&self) -> JsonError {
        match self.src.get(self.i..).and_then(|s| s.chars().next()) {
            Some(found) => JsonError::Unexpected {
                found,
                at: self.base + self.i,
            },
            None => JsonError::UnexpectedEnd,
        }
    }

    fn starts_with(&self, pat: &[u8]) -> bool {
        self.b.get(self.i..self.i + pat.len()) == Some(pat)
    }

    /// Skips whitespace and what may stand between tokens: Unicode spaces, comments, label lines.
    fn skip_ws(&mut self) {
        loop {
            let Some(&c) = self.b.get(self.i) else { return };
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                0xc2 if self.b.get(self.i + 1) == Some(&0xa0) => {
                    self.i += 2;
                    self.repairs.insert(Repairs::UNICODE_SPACES);
                }
                0xe2 if self.b.get(self.i + 1) == Some(&0x80)
                    && matches!(self.b.get(self.i + 2), Some(0x80..=0x8b | 0xaf)) =>
                {
                    self.i += 3;
                    self.repairs.insert(Repairs::UNICODE_SPACES);
                }
                0xe3 if self.starts_with("\u{3000}".as_bytes()) => {
                    self.i += 3;
                    self.repairs.insert(Repairs::UNICODE_SPACES);
                }
                0xef if self.starts_with("\u{feff}".as_bytes()) => {
                    self.i += 3;
                    self.repairs.insert(Repairs::UNICODE_SPACES);
                }
                b'/' if self.b.get(self.i + 1) == Some(&b'/') => {
                    self.i = memchr::memchr(b'\n', &self.b[self.i..])
                        .map_or(self.b.len(), |n| self.i + n);
                    self.repairs.insert(Repairs::COMMENTS);
                }
                b'/' if self.b.get(self.i + 1) == Some(&b'*') => {
                    match memchr::memmem::find(&self.b[self.i + 2..], b"*/") {
                        Some(n) => self.i += 2 + n + 2,
                        None => return,
                    }
                    self.repairs.insert(Repairs::COMMENTS);
                }
                _ if self.label_line_here() => {}
                _ => return,
            }
        }
    }

    /// Skips a whole line that is only a chat-site label, when `i` starts that line's text.
    fn label_line_here(&mut self) -> bool {
        if !text::at_line_start(self.b, self.i, 0) || self.i == 0 {
            return false;
        }
        let end = memchr::memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |n| self.i + n);
        match self.src.get(self.i..end) {
            Some(line) if text::is_label_line(line) => {
                self.i = end;
                self.repairs.insert(Repairs::LABEL_LINES);
                true
            }
            _ => false,
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        let Some(&c) = self.b.get(self.i) else {
            return Err(JsonError::UnexpectedEnd);
        };
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' | b'\'' => self.string().map(Value::String),
            0xe2 if self.quote_here().is_some() => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => self.number(),
            b'a'..=b'z' | b'A'..=b'Z' => self.literal(),
            _ => Err(self.unexpected()),
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(JsonError::TooDeep {
                at: self.base + self.i,
            });
        }
        Ok(())
    }

    /// At the end of the text inside an open container: supply its closer once, when allowed.
    fn close_at_end(&mut self) -> Result<(), JsonError> {
        if self.i >= self.b.len() && self.may_close_at_end {
            self.may_close_at_end = false;
            self.repairs.insert(Repairs::MISSING_CLOSER);
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut map = Map::new();
        self.skip_ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_ws();
            let key = self.key()?;
            self.skip_ws();
            if self.b.get(self.i) != Some(&b':') {
                return Err(self.unexpected());
            }
            self.i += 1;
            let v = self.value()?;
            map.insert(key, v);
            self.skip_ws();
            match self.b.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.skip_ws();
                    if self.b.get(self.i) == Some(&b'}') {
                        self.repairs.insert(Repairs::TRAILING_COMMA);
                        self.i += 1;
                        break;
                    }
                }
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                Some(b'"' | b'\'') => self.repairs.insert(Repairs::MISSING_COMMA),
                Some(0xe2) if self.quote_here().is_some() => {
                    self.repairs.insert(Repairs::MISSING_COMMA)
                }
                None => {
                    self.close_at_end()?;
                    break;
                }
                Some(_) => return Err(self.unexpected()),
            }
        }
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_ws();
            match self.b.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.skip_ws();
                    if self.b.get(self.i) == Some(&b']') {
                        self.repairs.insert(Repairs::TRAILING_COMMA);
                        self.i += 1;
                        break;
                    }
                }
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                Some(b'"' | b'{' | b'[' | b'0'..=b'9' | b'-') => {
                    self.repairs.insert(Repairs::MISSING_COMMA)
                }
                None => {
                    self.close_at_end()?;
                    break;
                }
                Some(_) => return Err(self.unexpected()),
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn key(&mut self) -> Result<String, JsonError> {
        match self.b.get(self.i) {
            Some(b'"' | b'\'') => self.string(),
            Some(0xe2) if self.quote_here().is_some() => self.string(),
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' || *c == b'$' => {
                let start = self.i;
                while matches!(self.b.get(self.i), Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-'))
                {
                    self.i += 1;
                }
                self.repairs.insert(Repairs::UNQUOTED_KEYS);
                Ok(self.src.get(start..self.i).unwrap_or_default().to_owned())
            }
            _ => Err(self.unexpected()),
        }
    }

    /// The typographic quote at `i`, if any.
    fn quote_here(&self) -> Option<Quote> {
        if self.starts_with(LDQUO) || self.starts_with(RDQUO) {
            Some(Quote::SmartDouble)
        } else if self.starts_with(LSQUO) || self.starts_with(RSQUO) {
            Some(Quote::SmartSingle)
        } else {
            None
        }
    }

    /// Whether a single quote at `at` (of `len` bytes) ends a string: what follows it must be
    /// structural (`:` `,` `}` `]`) or the end.
    fn closes_single(&self, at: usize, len: usize) -> bool {
        let mut j = at + len;
        while let Some(&c) = self.b.get(j) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => j += 1,
                b':' | b',' | b'}' | b']' => return true,
                _ => return false,
            }
        }
        true
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let start = self.i;
        let quote = match self.b[self.i] {
            b'"' => Quote::Double,
            b'\'' => Quote::Single,
            _ => self.quote_here().ok_or_else(|| self.unexpected())?,
        };
        self.i += if matches!(quote, Quote::Double | Quote::Single) {
            1
        } else {
            3
        };
        match quote {
            Quote::Double => {}
            Quote::SmartDouble => self.repairs.insert(Repairs::SMART_QUOTES),
            Quote::Single | Quote::SmartSingle => self.repairs.insert(Repairs::SINGLE_QUOTES),
        }
        let mut out = String::new();
        let mut plain = self.i;
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(JsonError::UnterminatedString {
                    at: self.base + start,
                });
            };
            // Returns how many bytes the closing quote takes, if the quote at `i` ends the string.
            let closing = match (quote, c) {
                (Quote::Double, b'"') => Some(1),
                (Quote::Single, b'\'') if self.closes_single(self.i, 1) => Some(1),
                (Quote::SmartDouble, 0xe2)
                    if self.starts_with(RDQUO) || self.starts_with(LDQUO) =>
                {
                    Some(3)
                }
                (Quote::SmartSingle, 0xe2)
                    if (self.starts_with(RSQUO) || self.starts_with(LSQUO))
                        && self.closes_single(self.i, 3) =>
                {
                    Some(3)
                }
                _ => None,
            };
            if let Some(len) = closing {
                out.push_str(self.src.get(plain..self.i).unwrap_or_default());
                self.i += len;
                return Ok(out);
            }
            match c {
                b'\\' => {
                    out.push_str(self.src.get(plain..self.i).unwrap_or_default());
                    self.escape(&mut out, start)?;
                    plain = self.i;
                }
                b'\r' | b'\n' | 0..=0x1f => {
                    out.push_str(self.src.get(plain..self.i).unwrap_or_default());
                    self.repairs.insert(Repairs::RAW_CONTROL_CHARS);
                    if c == b'\r' && self.b.get(self.i + 1) == Some(&b'\n') {
                        self.i += 1;
                        out.push('\n');
                    } else {
                        out.push(c as char);
                    }
                    self.i += 1;
                    plain = self.i;
                }
                _ => self.i += 1,
            }
        }
    }

    fn escape(&mut self, out: &mut String, string_start: usize) -> Result<(), JsonError> {
        let Some(&e) = self.b.get(self.i + 1) else {
            return Err(JsonError::UnterminatedString {
                at: self.base + string_start,
            });
        };
        self.i += 2;
        match e {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let hi = self.hex4().ok_or_else(|| self.unexpected())?;
                let c = if (0xd800..0xdc00).contains(&hi) && self.starts_with(b"\\u") {
                    let save = self.i;
                    self.i += 2;
                    match self.hex4() {
                        Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                            char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                        }
                        _ => {
                            self.i = save;
                            None
                        }
                    }
                } else {
                    char::from_u32(hi)
                };
                out.push(c.unwrap_or('\u{fffd}'));
            }
            _ => {
                // `\'`, `\x`...: keep the character, drop the backslash.
                self.i -= 1;
                let ch = self
                    .src
                    .get(self.i..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\u{fffd}');
                out.push(ch);
                self.i += ch.len_utf8();
                self.repairs.insert(Repairs::INVALID_ESCAPES);
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.src.get(self.i..self.i + 4)?;
        let v = u32::from_str_radix(digits, 16).ok()?;
        self.i += 4;
        Some(v)
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        while matches!(
            self.b.get(self.i),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.i += 1;
        }
        let text = self.src.get(start..self.i).unwrap_or_default();
        serde_json::from_str::<serde_json::Number>(text)
            .map(Value::Number)
            .map_err(|_| JsonError::BadNumber {
                text: text.to_owned(),
                at: self.base + start,
            })
    }

    fn literal(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        while matches!(self.b.get(self.i), Some(c) if c.is_ascii_alphanumeric() || *c == b'_') {
            self.i += 1;
        }
        let (v, python) = match self.src.get(start..self.i).unwrap_or_default() {
            "true" => (Value::Bool(true), false),
            "false" => (Value::Bool(false), false),
            "null" => (Value::Null, false),
            "True" => (Value::Bool(true), true),
            "False" => (Value::Bool(false), true),
            "None" => (Value::Null, true),
            _ => {
                self.i = start;
                return Err(self.unexpected());
            }
        };
        if python {
            self.repairs.insert(Repairs::PYTHON_LITERALS);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// (input, expected value or None for an error, expected repair names)
    #[test]
    fn repairs_table() {
        let cases: &[(&str, Option<Value>, &[&str])] = &[
            (r#"{"a": 1}"#, Some(json!({"a": 1})), &[]),
            (
                r#"{"a": [1, 2,], }"#,
                Some(json!({"a": [1, 2]})),
                &["trailing comma"],
            ),
            (
                "{“a”: “b \"c\"”}",
                Some(json!({"a": "b \"c\""})),
                &["typographic quotes"],
            ),
            (
                "{'a': 'it's fine', 'b': 'x'}",
                Some(json!({"a": "it's fine", "b": "x"})),
                &["single quotes"],
            ),
            (
                "{‘a’: ‘don’t’}",
                Some(json!({"a": "don’t"})),
                &["single quotes"],
            ),
            (
                "{\n\"a\": 1,\nCopy code\n\"b\": 2}",
                Some(json!({"a": 1, "b": 2})),
                &["code block labels"],
            ),
            (
                "{&quot;a&quot;: &quot;x &amp; y&quot;}",
                Some(json!({"a": "x & y"})),
                &["HTML entities"],
            ),
            (
                r#"{"a": "x &amp; y"}"#,
                Some(json!({"a": "x &amp; y"})),
                &[],
            ),
            (
                "{\u{a0}\"a\":\u{a0}1}",
                Some(json!({"a": 1})),
                &["non-breaking spaces"],
            ),
            (
                "{\"a\": \"line1\r\nline2\ttab\"}",
                Some(json!({"a": "line1\nline2\ttab"})),
                &["unescaped newlines in strings"],
            ),
            (
                "{\"a\": 1 // one\n, /* c */ \"b\": 2}",
                Some(json!({"a": 1, "b": 2})),
                &["comments"],
            ),
            (
                "{a: 1, b_2: True, c: None}",
                Some(json!({"a": 1, "b_2": true, "c": null})),
                &["unquoted keys", "Python literals"],
            ),
            (
                "{\"a\": 1\n\"b\": 2}",
                Some(json!({"a": 1, "b": 2})),
                &["missing comma"],
            ),
            (
                r#"{"a": "\'x\'"}"#,
                Some(json!({"a": "'x'"})),
                &["invalid escapes"],
            ),
            (
                r#"{"a": "\ud83d\ude00 \ud800"}"#,
                Some(json!({"a": "😀 \u{fffd}"})),
                &[],
            ),
            (r#"{"a": {"b": 1}"#, None, &[]),
            (r#"{"a": "never ends}"#, None, &[]),
            (r#"{"a": 01.2.3}"#, None, &[]),
            (r#"{"a": 1} trailing"#, None, &[]),
            (r#"{"a": nope}"#, None, &[]),
        ];
        for (input, want, repairs) in cases {
            let got = read_value(input, 0, false);
            match (want, got) {
                (Some(v), Ok((got, r))) => {
                    assert_eq!(&got, v, "value of {input:?}");
                    assert_eq!(r.names(), *repairs, "repairs of {input:?}");
                }
                (None, Err(_)) => {}
                (want, got) => panic!("{input:?}: wanted {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn one_missing_closer_only_at_the_end_of_a_finished_message() {
        let (v, r) = read_value(r#"{"a": {"b": 1}"#, 0, true).expect("repairable");
        assert_eq!(v, json!({"a": {"b": 1}}));
        assert_eq!(r.names(), ["missing final closing bracket"]);
        assert!(
            read_value(r#"{"a": {"b": 1"#, 0, true).is_err(),
            "two missing closers"
        );
        assert!(
            read_value(r#"{"a": {"b": "x"#, 0, true).is_err(),
            "unterminated string"
        );
        assert!(
            read_value(r#"{"a": 1,"#, 0, true).is_err(),
            "dangling comma"
        );
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(matches!(
            read_value(&deep, 0, false),
            Err(JsonError::TooDeep { .. })
        ));
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(read_value(&ok, 0, false).is_ok());
    }
}
