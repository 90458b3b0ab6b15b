//! The XML call format and the tag lexing the scanner shares with it.
//!
//! `<function_calls><invoke name="t"><parameter name="k">v</parameter></invoke></function_calls>`,
//! with or without a namespace prefix on any element (`<ns:invoke>`, and DeepSeek's own
//! `<｜DSML｜tool_calls><｜DSML｜invoke>`, whose `string="true"` parameters stay strings). This is
//! not an XML parser:
//! parameter values are raw text up to their closing tag (models do not escape `<` in them), and a
//! value that reads as JSON is that JSON, any other is a string (the schema module coerces later).

use serde_json::{Map, Value};

use super::interpret::RawCall;
use super::json::{self, Repairs};
use super::{CallFormat, Span};

/// Tag names (without prefix) that open a tagged call region at the top level.
pub(crate) const TAGS: &[(&str, TagKind)] = &[
    ("tool_call", TagKind::Json),
    ("tool_calls", TagKind::Json),
    ("function_call", TagKind::Json),
    ("tool_use", TagKind::Json),
    ("function_calls", TagKind::FunctionCalls),
    ("invoke", TagKind::Invoke),
];

/// What a recognised tag holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagKind {
    /// JSON call objects (or, tolerated, `<invoke>` elements).
    Json,
    /// `<invoke>` elements.
    FunctionCalls,
    /// Is itself one `<invoke>` element.
    Invoke,
}

/// Longest tag name (with prefix) and longest attribute list we look at before deciding that a
/// `<` does not open a tag: bounds the look-ahead the streaming parser may have to repeat.
const MAX_NAME: usize = 64;
const MAX_OPEN_TAG: usize = 512;
/// Blanks allowed before a closing tag's `>`.
const MAX_BLANKS: usize = 16;
/// How far past its `<` [`closing_tag`] may look.
pub(crate) const MAX_CLOSING_TAG: usize = 2 + DSML.len() + 2 * MAX_NAME + 1 + MAX_BLANKS + 1;

/// An opening tag `<prefix:local attrs>`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenTag {
    /// Byte range of the local name.
    pub(crate) local: (usize, usize),
    /// Byte range of the attribute text.
    pub(crate) attrs: (usize, usize),
    /// Index of the closing `>`.
    pub(crate) gt: usize,
    pub(crate) self_closing: bool,
}

#[derive(Debug)]
pub(crate) enum Lex<T> {
    /// The text ends before the answer is known.
    Incomplete,
    No,
    Yes(T),
}

/// DeepSeek's own tool-call markup puts this before every element name
/// (`<｜DSML｜invoke name="t">`): read like a namespace prefix.
const DSML: &[u8] = "｜DSML｜".as_bytes();

/// Skips DeepSeek's `｜DSML｜` prefix at `j`: the index after it, or `Err(Incomplete)` when the
/// text ends inside it.
fn skip_dsml(b: &[u8], j: usize, end: usize) -> Result<usize, ()> {
    let rest = &b[j..end];
    if rest.starts_with(DSML) {
        Ok(j + DSML.len())
    } else if !rest.is_empty() && DSML.starts_with(rest) {
        Err(())
    } else {
        Ok(j)
    }
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Reads the name at `j`; returns its end.
fn name_end(b: &[u8], j: usize, end: usize) -> usize {
    let stop = end.min(j + MAX_NAME);
    let mut k = j;
    while k < stop && is_name_byte(b[k]) {
        k += 1;
    }
    k
}

/// Lexes an opening tag at `i` (where `b[i] == b'<'`), looking no further than `end`, for a
/// local name `wanted` accepts. The name is checked before anything else and the search for `>`
/// stops at the next `<`, so text full of `<` costs linear time.
pub(crate) fn open_tag(
    b: &[u8],
    i: usize,
    end: usize,
    wanted: &dyn Fn(&[u8]) -> bool,
) -> Lex<OpenTag> {
    open_tag_looked(b, i, end, wanted).0
}

/// [`open_tag`], and how far it looked (for the parser's work count and checkpoints).
pub(crate) fn open_tag_looked(
    b: &[u8],
    i: usize,
    end: usize,
    wanted: &dyn Fn(&[u8]) -> bool,
) -> (Lex<OpenTag>, usize) {
    let Ok(j) = skip_dsml(b, i + 1, end) else {
        return (Lex::Incomplete, end);
    };
    if j >= end {
        return (Lex::Incomplete, end);
    }
    if !is_name_start(b[j]) {
        return (Lex::No, j + 1);
    }
    let mut k = name_end(b, j, end);
    let mut local = (j, k);
    if k < end && b[k] == b':' {
        if k + 1 >= end {
            return (Lex::Incomplete, end);
        }
        if !is_name_start(b[k + 1]) {
            return (Lex::No, k + 2);
        }
        let k2 = name_end(b, k + 1, end);
        local = (k + 1, k2);
        k = k2;
    }
    if k >= end {
        return (Lex::Incomplete, end);
    }
    if !matches!(b[k], b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r') || !wanted(&b[local.0..local.1])
    {
        return (Lex::No, k + 1);
    }
    let window = end.min(k + MAX_OPEN_TAG);
    match memchr::memchr2(b'>', b'<', &b[k..window]) {
        Some(o) if b[k + o] == b'>' => {
            let gt = k + o;
            let self_closing = gt > k && b[gt - 1] == b'/';
            let attrs_end = if self_closing { gt - 1 } else { gt };
            let tag = OpenTag {
                local,
                attrs: (k, attrs_end),
                gt,
                self_closing,
            };
            (Lex::Yes(tag), gt + 1)
        }
        Some(o) => (Lex::No, k + o + 1),
        None if window == end => (Lex::Incomplete, end),
        None => (Lex::No, window),
    }
}

/// Whether `local` names a tag that opens a call region.
pub(crate) fn is_call_tag(local: &[u8]) -> bool {
    TAGS.iter().any(|(n, _)| n.as_bytes() == local)
}

/// The kind of a recognised top-level tag.
pub(crate) fn tag_kind(b: &[u8], tag: &OpenTag) -> Option<(TagKind, usize)> {
    let local = &b[tag.local.0..tag.local.1];
    TAGS.iter()
        .position(|(n, _)| n.as_bytes() == local)
        .map(|idx| (TAGS[idx].1, idx))
}

/// Whether a closing tag `</prefix:local>` for `local` starts at `k` (`b[k] == b'<'`); `Yes`
/// holds the index just past its `>`.
pub(crate) fn closing_tag(b: &[u8], k: usize, end: usize, local: &[u8]) -> Lex<usize> {
    let (j, name, n) = match closing_name(b, k, end) {
        Ok(found) => found,
        Err(lex) => return lex,
    };
    if n >= end {
        // Could still grow into the name we want.
        let partial = &b[name.0..n];
        return if local.starts_with(partial) || n - j < MAX_NAME {
            Lex::Incomplete
        } else {
            Lex::No
        };
    }
    if &b[name.0..name.1] != local {
        return Lex::No;
    }
    closing_gt(b, n, end)
}

/// The name of a closing tag at `k`: `(start of the name, its local part, its end)`, the end
/// possibly `end` (the text ends inside the name); `Err` when that is decided before any name.
fn closing_name(
    b: &[u8],
    k: usize,
    end: usize,
) -> Result<(usize, (usize, usize), usize), Lex<usize>> {
    let mut j = k + 1;
    if j >= end {
        return Err(Lex::Incomplete);
    }
    if b[j] != b'/' {
        return Err(Lex::No);
    }
    j += 1;
    let Ok(j) = skip_dsml(b, j, end) else {
        return Err(Lex::Incomplete);
    };
    if j >= end {
        return Err(Lex::Incomplete);
    }
    if !is_name_start(b[j]) {
        return Err(Lex::No);
    }
    let mut n = name_end(b, j, end);
    let mut name = (j, n);
    if n < end && b[n] == b':' {
        let n2 = name_end(b, n + 1, end);
        name = (n + 1, n2);
        n = n2;
    }
    Ok((j, name, n))
}

/// After a closing tag's name ending at `n`: blanks, then its `>`.
fn closing_gt(b: &[u8], mut n: usize, end: usize) -> Lex<usize> {
    let blanks_end = n + MAX_BLANKS;
    while n < end && n < blanks_end && matches!(b[n], b' ' | b'\t' | b'\n' | b'\r') {
        n += 1;
    }
    match b.get(n) {
        _ if n >= end => Lex::Incomplete,
        Some(b'>') => Lex::Yes(n + 1),
        _ => Lex::No,
    }
}

/// Which tag of [`TAGS`] a closing tag at `k` closes: `Incomplete` when the text ends before
/// that is known for some tag. What [`closing_tag`] says for each of them, with the name read
/// once. The scan asks it through [`closing_tag_or_call_tag`]; the tests compare both.
#[cfg(test)]
fn closing_call_tag(b: &[u8], k: usize, end: usize) -> Lex<usize> {
    if k + 1 < end && b[k + 1] != b'/' {
        return Lex::No;
    }
    match closing_name(b, k, end) {
        Ok(found) => call_tag_named(b, end, found),
        Err(lex) => lex,
    }
}

/// [`closing_tag`] for `local` and, when that is not `Yes`, [`closing_call_tag`], with the
/// closing tag's name read once: what the search for an element's closing tag asks of every `<`.
pub(crate) fn closing_tag_or_call_tag(
    b: &[u8],
    k: usize,
    end: usize,
    local: &[u8],
) -> (Lex<usize>, Lex<usize>) {
    let found = match closing_name(b, k, end) {
        Ok(found) => found,
        Err(lex) => {
            let other = match lex {
                Lex::Incomplete => Lex::Incomplete,
                _ => Lex::No,
            };
            return (lex, other);
        }
    };
    let (j, name, n) = found;
    let this = if n >= end {
        let partial = &b[name.0..n];
        if local.starts_with(partial) || n - j < MAX_NAME {
            Lex::Incomplete
        } else {
            Lex::No
        }
    } else if &b[name.0..name.1] != local {
        Lex::No
    } else {
        closing_gt(b, n, end)
    };
    match this {
        Lex::Yes(after) => (Lex::Yes(after), Lex::No),
        this => (this, call_tag_named(b, end, found)),
    }
}

/// [`closing_call_tag`] once the name is read.
fn call_tag_named(
    b: &[u8],
    end: usize,
    (j, name, n): (usize, (usize, usize), usize),
) -> Lex<usize> {
    if n >= end {
        let partial = &b[name.0..n];
        return if n - j < MAX_NAME || TAGS.iter().any(|(l, _)| l.as_bytes().starts_with(partial)) {
            Lex::Incomplete
        } else {
            Lex::No
        };
    }
    let local = &b[name.0..name.1];
    match TAGS.iter().position(|(l, _)| l.as_bytes() == local) {
        Some(idx) => match closing_gt(b, n, end) {
            Lex::Yes(_) => Lex::Yes(idx),
            Lex::Incomplete => Lex::Incomplete,
            Lex::No => Lex::No,
        },
        None => Lex::No,
    }
}

/// The value of attribute `name` in `attrs` (`name="v"` or `name='v'`).
fn attribute<'t>(text: &'t str, attrs: (usize, usize), name: &str) -> Option<&'t str> {
    let s = text.get(attrs.0..attrs.1)?;
    let mut rest = s;
    while let Some(at) = find(rest.as_bytes(), name.as_bytes()) {
        let before_ok = at == 0 || rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = rest[at + name.len()..].trim_start();
        if let (true, Some(after_eq)) = (before_ok, after.strip_prefix('=')) {
            let v = after_eq.trim_start();
            let quote = v.chars().next()?;
            if quote == '"' || quote == '\'' {
                let body = &v[1..];
                return body.find(quote).map(|e| &body[..e]);
            }
        }
        rest = &rest[at + name.len()..];
    }
    None
}

/// The first occurrence of `needle` (not empty) in `hay`: `str::find` without building a
/// two-way searcher, which for the few bytes of a tag's attributes cost more than the search.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(o) = memchr::memchr(first, hay.get(from..)?) {
        let at = from + o;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// One result of reading the `<invoke>` elements of a region.
#[derive(Debug)]
pub(crate) enum XmlItem {
    Call(RawCall),
    Invalid { span: Span, message: String },
    Incomplete { span: Span },
}

/// Finds the next opening tag named `local` (any prefix) in `[from, end)`.
fn next_open(b: &[u8], from: usize, end: usize, local: &[u8]) -> Option<(usize, OpenTag)> {
    let mut k = from;
    while let Some(o) = memchr::memchr(b'<', &b[k..end]) {
        let i = k + o;
        if let Lex::Yes(tag) = open_tag(b, i, end, &|name| name == local) {
            return Some((i, tag));
        }
        k = i + 1;
    }
    None
}

/// Finds the closing tag for `local` in `[from, end)`: (its start, just past its end).
fn next_close(b: &[u8], from: usize, end: usize, local: &[u8]) -> Option<(usize, usize)> {
    next_close_before(b, from, end, end, local)
}

/// [`next_close`] for a closing tag that starts before `limit` (≤ `end`).
fn next_close_before(
    b: &[u8],
    from: usize,
    limit: usize,
    end: usize,
    local: &[u8],
) -> Option<(usize, usize)> {
    let mut k = from;
    while let Some(o) = memchr::memchr(b'<', &b[k.min(limit)..limit]) {
        let i = k + o;
        if let Lex::Yes(after) = closing_tag(b, i, end, local) {
            return Some((i, after));
        }
        k = i + 1;
    }
    None
}

/// Whether the region holds an `<invoke>` element.
pub(crate) fn has_invoke(b: &[u8], start: usize, end: usize) -> bool {
    next_open(b, start, end, b"invoke").is_some()
}

/// Reads every `<invoke>` element in `[start, end)` of `text`.
pub(crate) fn invokes(text: &str, start: usize, end: usize, repairs: Repairs) -> Vec<XmlItem> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = start;
    // No `</invoke>` starts at or after this: a failed search is not repeated by the next
    // nameless `<invoke>` (text full of them would cost quadratic time).
    let mut no_close_from = end;
    while let Some((i, tag)) = next_open(b, pos, end, b"invoke") {
        let Some(name) = attribute(text, tag.attrs, "name")
            .map(str::trim)
            .filter(|n| !n.is_empty())
        else {
            let from = tag.gt + 1;
            let close = match next_close_before(b, from, no_close_from.max(from), end, b"invoke") {
                Some(c) => c.1,
                None => {
                    no_close_from = no_close_from.min(from);
                    from
                }
            };
            out.push(XmlItem::Invalid {
                span: Span::new(i, close),
                message: "An <invoke> element has no name attribute.".to_owned(),
            });
            pos = close;
            continue;
        };
        let server = attribute(text, tag.attrs, "server").map(str::to_owned);
        let id = attribute(text, tag.attrs, "id")
            .map(str::to_owned)
            .filter(|s| !s.is_empty());
        let (body, elem_end) = if tag.self_closing {
            ((tag.gt + 1, tag.gt + 1), tag.gt + 1)
        } else {
            match next_close(b, tag.gt + 1, end, b"invoke") {
                Some((c, after)) => ((tag.gt + 1, c), after),
                None => {
                    out.push(XmlItem::Incomplete {
                        span: Span::new(i, end),
                    });
                    break;
                }
            }
        };
        let span = Span::new(i, elem_end);
        out.push(match parameters(text, body, repairs) {
            Ok((arguments, repairs)) => XmlItem::Call(RawCall {
                name: name.to_owned(),
                server,
                arguments,
                id,
                format: CallFormat::Xml,
                span,
                repairs,
            }),
            Err(BodyError::Invalid(message)) => XmlItem::Invalid {
                span,
                message: message.to_owned(),
            },
            Err(BodyError::Incomplete) => XmlItem::Incomplete { span },
        });
        pos = elem_end;
    }
    out
}

/// Why an `<invoke>` body gives no arguments.
enum BodyError {
    Invalid(&'static str),
    Incomplete,
}

fn parameters(
    text: &str,
    body: (usize, usize),
    repairs: Repairs,
) -> Result<(Value, Repairs), BodyError> {
    let b = text.as_bytes();
    let mut args = Map::new();
    let mut pos = body.0;
    let mut any = false;
    while let Some((_, tag)) = next_open(b, pos, body.1, b"parameter") {
        any = true;
        let Some(key) = attribute(text, tag.attrs, "name") else {
            return Err(BodyError::Invalid(
                "A <parameter> element has no name attribute.",
            ));
        };
        if tag.self_closing {
            args.insert(key.to_owned(), Value::String(String::new()));
            pos = tag.gt + 1;
            continue;
        }
        let Some((c, after)) = next_close(b, tag.gt + 1, body.1, b"parameter") else {
            return Err(BodyError::Incomplete);
        };
        let raw = text.get(tag.gt + 1..c).unwrap_or_default();
        // DeepSeek marks string parameters, whose text must not be read as JSON ("42").
        let value = match attribute(text, tag.attrs, "string") {
            Some("true") => Value::String(raw.to_owned()),
            _ => parameter_value(raw),
        };
        args.insert(key.to_owned(), value);
        pos = after;
    }
    if !any {
        // `<invoke name="t">{"k": 1}</invoke>`: tolerated, the body is the arguments object.
        let raw = text.get(body.0..body.1).unwrap_or_default();
        let trimmed = raw.trim();
        if trimmed.starts_with('{') {
            let offset = body.0 + (raw.len() - raw.trim_start().len());
            return match json::read_value(trimmed, offset, false) {
                Ok((v @ Value::Object(_), more)) => Ok((v, repairs.union(more))),
                _ => Err(BodyError::Invalid(
                    "An <invoke> body is neither parameters nor a JSON object.",
                )),
            };
        }
    }
    Ok((Value::Object(args), repairs))
}

/// A parameter's raw text: JSON if it reads as JSON, else the text itself.
fn parameter_value(raw: &str) -> Value {
    let t = raw.trim();
    // Only a text that can start a JSON value is given to serde_json: most parameters are
    // prose, and a failed read cost an error allocated and dropped. A literal is read by
    // comparison (`note 1` starts like `null`).
    let json = match t.as_bytes().first() {
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9') => serde_json::from_str::<Value>(t).ok(),
        Some(b't' | b'f' | b'n') => match t {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            "null" => Some(Value::Null),
            _ => None,
        },
        _ => None,
    };
    json.unwrap_or_else(|| Value::String(raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> Vec<String> {
        invokes(text, 0, text.len(), Repairs::default())
            .into_iter()
            .map(|item| match item {
                XmlItem::Call(c) => format!(
                    "{}@{:?} {} [{}..{}]",
                    c.name, c.server, c.arguments, c.span.start, c.span.end
                ),
                XmlItem::Invalid { message, .. } => format!("invalid: {message}"),
                XmlItem::Incomplete { span } => {
                    format!("incomplete [{}..{}]", span.start, span.end)
                }
            })
            .collect()
    }

    #[test]
    fn invokes_table() {
        let cases: &[(&str, &[&str])] = &[
            (
                r#"<function_calls><invoke name="add"><parameter name="a">1</parameter><parameter name="b"> 2.5 </parameter></invoke></function_calls>"#,
                &[r#"add@None {"a":1,"b":2.5} [16..114]"#],
            ),
            (
                "<ns:invoke name='echo' server=\"demo\">\n<ns:parameter name=\"message\">a < b & \"c\"</ns:parameter>\n</ns:invoke>",
                &[r#"echo@Some("demo") {"message":"a < b & \"c\""} [0..106]"#],
            ),
            (r#"<invoke name="t"><parameter name="o">{"x": [1]}</parameter></invoke>"#, &[r#"t@None {"o":{"x":[1]}} [0..68]"#]),
            (r#"<invoke name="t">{"k": true}</invoke>"#, &[r#"t@None {"k":true} [0..37]"#]),
            (r#"<invoke name="t"/><invoke name="u"></invoke>"#, &["t@None {} [0..18]", "u@None {} [18..44]"]),
            (r#"<invoke><parameter name="a">1</parameter></invoke>"#, &["invalid: An <invoke> element has no name attribute."]),
            (r#"<invoke name="t"><parameter name="a">1</parameter>"#, &["incomplete [0..50]"]),
            (r#"<invoke name="t"><parameter name="a">1</invoke>"#, &["incomplete [0..47]"]),
            (r#"<invoker name="t"></invoker>"#, &[]),
        ];
        for (text, want) in cases {
            assert_eq!(show(text), *want, "{text}");
        }
    }

    /// `closing_call_tag` reads the name once; it answers what asking [`closing_tag`] for each
    /// tag of [`TAGS`] answers, at every length of the text (streaming asks at every one).
    #[test]
    fn closing_call_tag_is_closing_tag_for_each_tag() {
        let per_tag = |b: &[u8], end: usize| {
            let mut incomplete = false;
            for (idx, (local, _)) in TAGS.iter().enumerate() {
                match closing_tag(b, 0, end, local.as_bytes()) {
                    Lex::Yes(_) => return format!("yes {idx}"),
                    Lex::Incomplete => incomplete = true,
                    Lex::No => {}
                }
            }
            if incomplete { "incomplete" } else { "no" }.to_owned()
        };
        let show = |lex: Lex<usize>| match lex {
            Lex::Yes(idx) => format!("yes {idx}"),
            Lex::Incomplete => "incomplete".to_owned(),
            Lex::No => "no".to_owned(),
        };
        let long = format!("</{}>", "a".repeat(80));
        let texts = [
            "</tool_call>",
            "</tool_calls >",
            "</ns:invoke\n>",
            "</｜DSML｜function_calls>",
            "</｜DS",
            "</invoke x>",
            "</parameter>",
            "</ns:>",
            "</1>",
            "<invoke>",
            "</tool_use                  >",
            long.as_str(),
        ];
        for text in texts {
            let b = text.as_bytes();
            for end in 1..=b.len() {
                assert_eq!(
                    show(closing_call_tag(b, 0, end)),
                    per_tag(b, end),
                    "{text:?} to {end}"
                );
                for (local, _) in TAGS {
                    let (this, other) = closing_tag_or_call_tag(b, 0, end, local.as_bytes());
                    let this = show(this);
                    let want = show(closing_tag(b, 0, end, local.as_bytes()));
                    assert_eq!(this, want, "{text:?} to {end} for {local}");
                    if !this.starts_with("yes") {
                        assert_eq!(
                            show(other),
                            per_tag(b, end),
                            "{text:?} to {end} for {local}"
                        );
                    }
                }
            }
        }
    }

    /// What serde_json reads is the value, anything else the text, as before the shortcut.
    #[test]
    fn parameter_values_are_json_or_text() {
        let cases = [
            "1",
            " 2.5 ",
            "-3",
            "true",
            "false",
            "null",
            " null\n",
            "nul",
            "nullx",
            "note 1",
            "tru e",
            "\"q\"",
            "[1, 2]",
            "{\"a\": 1}",
            "{a}",
            "",
            "  ",
            "1 2",
            "body of note 1",
            "\u{a0}7",
            "٣",
            "+1",
            ".5",
            "NaN",
            "t",
            "f",
            "n",
        ];
        for raw in cases {
            let t = raw.trim();
            let want = (!t.is_empty())
                .then(|| serde_json::from_str::<Value>(t).ok())
                .flatten()
                .unwrap_or_else(|| Value::String(raw.to_owned()));
            assert_eq!(parameter_value(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn attributes_table() {
        let attrs = r#" data-name="no" name = 'add' server="demo" id=x string="true" names="n""#;
        let cases = [
            ("name", Some("add")),
            ("server", Some("demo")),
            ("id", None),
            ("string", Some("true")),
            ("names", Some("n")),
            ("nam", None),
        ];
        for (name, want) in cases {
            assert_eq!(attribute(attrs, (0, attrs.len()), name), want, "{name}");
        }
    }

    #[test]
    fn lexing_waits_only_when_the_text_may_still_complete_a_tag() {
        let t = b"<tool_call attr=\"x\">";
        assert!(matches!(open_tag(t, 0, 5, &is_call_tag), Lex::Incomplete));
        assert!(matches!(open_tag(t, 0, t.len(), &is_call_tag), Lex::Yes(_)));
        assert!(matches!(
            open_tag(t, 0, t.len() - 1, &is_call_tag),
            Lex::Incomplete
        ));
        assert!(matches!(
            open_tag(b"<tool_call a <b>", 0, 16, &is_call_tag),
            Lex::No
        ));
        assert!(matches!(open_tag(b"<b c>", 0, 5, &is_call_tag), Lex::No));
        assert!(matches!(open_tag(b"< b>", 0, 4, &is_call_tag), Lex::No));
        assert!(matches!(open_tag(b"<a+b>", 0, 5, &is_call_tag), Lex::No));
        assert!(matches!(
            closing_tag(b"</tool_ca", 0, 9, b"tool_call"),
            Lex::Incomplete
        ));
        assert!(matches!(
            closing_tag(b"</tool_call >", 0, 13, b"tool_call"),
            Lex::Yes(13)
        ));
        assert!(matches!(
            closing_tag(b"</x:tool_call>", 0, 14, b"tool_call"),
            Lex::Yes(14)
        ));
        assert!(matches!(
            closing_tag(b"</tool_calls>", 0, 13, b"tool_call"),
            Lex::No
        ));
    }
}
