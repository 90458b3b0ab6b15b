//! A SKILL.md's frontmatter: the leading `---` block, read as the small part of YAML that real
//! frontmatter uses (block mappings and sequences, plain, quoted and block scalars, flow lists
//! of scalars, comments), into JSON values to compare with a listing's `frontmatter`.
//!
//! Why not a YAML crate: the extension's wasm size matters, and a construct this reader does not
//! know (anchors, aliases, tags, nested flow collections) is an error, never a guess, so a
//! SKILL.md it cannot read is refused rather than compared wrongly.

use serde_json::{Map, Number, Value};

/// Why a frontmatter block could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontmatterError {
    #[error("the file does not begin with a `---` frontmatter block")]
    Missing,
    #[error("the frontmatter block is never closed by a `---` line")]
    Unclosed,
    #[error("frontmatter line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("the frontmatter is not a mapping of fields")]
    NotMapping,
}

/// The frontmatter of a SKILL.md (a leading byte-order mark and CRLF line ends allowed) as a
/// JSON object.
pub fn parse(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(FrontmatterError::Missing);
    }
    let mut block = Vec::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push(line);
    }
    if !closed {
        return Err(FrontmatterError::Unclosed);
    }
    let mut reader = Reader::new(&block)?;
    if reader.next_significant().is_none() {
        return Ok(Map::new());
    }
    match reader.block(0)? {
        Value::Object(map) => match reader.next_significant() {
            None => Ok(map),
            Some(i) => Err(reader.error(i, "unexpected indentation")),
        },
        _ => Err(FrontmatterError::NotMapping),
    }
}

/// One line: its indentation (spaces) and the rest, trailing whitespace removed. Line numbers
/// count from the file's first line (the opening `---` is line 1).
struct Line<'a> {
    indent: usize,
    text: &'a str,
}

struct Reader<'a> {
    lines: Vec<Line<'a>>,
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(raw: &[&'a str]) -> Result<Self, FrontmatterError> {
        let mut lines = Vec::with_capacity(raw.len());
        for (i, line) in raw.iter().enumerate() {
            let text = line.trim_start_matches(' ');
            if text.starts_with('\t') && !text.trim().is_empty() {
                return Err(FrontmatterError::Syntax {
                    line: i + 2,
                    message: "a tab in indentation".to_owned(),
                });
            }
            lines.push(Line {
                indent: line.len() - text.len(),
                text: text.trim_end(),
            });
        }
        Ok(Reader { lines, at: 0 })
    }

    fn error(&self, i: usize, message: &str) -> FrontmatterError {
        FrontmatterError::Syntax {
            line: i + 2,
            message: message.to_owned(),
        }
    }

    /// The index of the next line holding something (not blank, not only a comment).
    fn next_significant(&mut self) -> Option<usize> {
        while let Some(line) = self.lines.get(self.at) {
            if line.text.is_empty() || line.text.starts_with('#') {
                self.at += 1;
            } else {
                return Some(self.at);
            }
        }
        None
    }

    /// A mapping or sequence whose lines start at column `indent`.
    fn block(&mut self, indent: usize) -> Result<Value, FrontmatterError> {
        let Some(i) = self.next_significant() else {
            return Ok(Value::Null);
        };
        if is_item(self.lines[i].text) {
            self.sequence(indent)
        } else {
            self.mapping(indent)
        }
    }

    fn sequence(&mut self, indent: usize) -> Result<Value, FrontmatterError> {
        let mut items = Vec::new();
        while let Some(i) = self.next_significant() {
            let (line_indent, text) = (self.lines[i].indent, self.lines[i].text);
            if line_indent < indent || !is_item(text) {
                break;
            }
            if line_indent > indent {
                return Err(self.error(i, "unexpected indentation"));
            }
            let rest = text[1..].trim_start();
            if rest.is_empty() {
                self.at += 1;
                items.push(self.nested(i, indent)?);
                continue;
            }
            // `- key: value` opens a mapping at the column of `key`: the line is read again
            // as if it began there.
            let column = indent + (text.len() - rest.len());
            if split_key(rest).is_some() {
                self.lines[i] = Line {
                    indent: column,
                    text: rest,
                };
                items.push(self.mapping(column)?);
            } else {
                self.at += 1;
                items.push(self.value(i, rest, indent)?);
            }
        }
        Ok(Value::Array(items))
    }

    fn mapping(&mut self, indent: usize) -> Result<Value, FrontmatterError> {
        let mut map = Map::new();
        while let Some(i) = self.next_significant() {
            let (line_indent, text) = (self.lines[i].indent, self.lines[i].text);
            if line_indent < indent || (line_indent == indent && is_item(text)) {
                break;
            }
            if line_indent > indent {
                return Err(self.error(i, "unexpected indentation"));
            }
            let Some((key, rest)) = split_key(text) else {
                return Err(self.error(i, "expected `key: value`"));
            };
            let key = match key.chars().next() {
                Some('"' | '\'') => match scalar(key).map_err(|m| self.error(i, &m))? {
                    Value::String(s) => s,
                    _ => return Err(self.error(i, "a key must be a string")),
                },
                _ => key.to_owned(),
            };
            self.at += 1;
            let value = if rest.is_empty() {
                self.nested(i, indent)?
            } else {
                self.value(i, rest, indent)?
            };
            if map.insert(key.clone(), value).is_some() {
                return Err(self.error(i, &format!("the key `{key}` appears twice")));
            }
        }
        Ok(Value::Object(map))
    }

    /// The value under a key or item with nothing after it on its line (`key:` / `-`): a
    /// more-indented block, a sequence at the key's own column (YAML allows it for a mapping's
    /// value), or null.
    fn nested(&mut self, owner: usize, indent: usize) -> Result<Value, FrontmatterError> {
        let Some(i) = self.next_significant() else {
            return Ok(Value::Null);
        };
        let (line_indent, text) = (self.lines[i].indent, self.lines[i].text);
        let under_key = !is_item(self.lines[owner].text.trim_start());
        if line_indent > indent {
            self.block(line_indent)
        } else if under_key && line_indent == indent && is_item(text) {
            self.sequence(indent)
        } else {
            Ok(Value::Null)
        }
    }

    /// A value written after `key:` or `- ` on line `i` (block scalars and plain scalars that
    /// go on over more-indented lines read those lines too).
    fn value(&mut self, i: usize, rest: &str, indent: usize) -> Result<Value, FrontmatterError> {
        if let Some(header) = rest.strip_prefix(['|', '>']) {
            return self.block_scalar(i, rest.starts_with('>'), header, indent);
        }
        let first = rest.chars().next().unwrap_or(' ');
        if matches!(first, '"' | '\'' | '[' | '{') {
            return scalar(rest).map_err(|m| self.error(i, &m));
        }
        // A plain scalar may go on over more-indented lines, joined by spaces.
        let mut text = strip_comment(rest).to_owned();
        while let Some(line) = self.lines.get(self.at) {
            if line.text.is_empty() || line.indent <= indent || line.text.starts_with('#') {
                break;
            }
            text.push(' ');
            text.push_str(strip_comment(line.text));
            self.at += 1;
        }
        if text.contains(": ") || text.ends_with(':') {
            return Err(self.error(i, "`: ` in a plain value (quote it)"));
        }
        plain(&text).map_err(|m| self.error(i, &m))
    }

    /// `|` (literal) or `>` (folded), with `-` (strip) or `+` (keep) chomping.
    fn block_scalar(
        &mut self,
        i: usize,
        folded: bool,
        header: &str,
        indent: usize,
    ) -> Result<Value, FrontmatterError> {
        let chomp = match strip_comment(header) {
            "" => None,
            "-" => Some(false),
            "+" => Some(true),
            _ => return Err(self.error(i, "an unsupported block scalar header")),
        };
        let mut body: Vec<(usize, &str)> = Vec::new();
        while let Some(line) = self.lines.get(self.at) {
            if !line.text.is_empty() && line.indent <= indent {
                break;
            }
            body.push((line.indent, line.text));
            self.at += 1;
        }
        let column = body
            .iter()
            .find(|(_, t)| !t.is_empty())
            .map_or(0, |(c, _)| *c);
        let trailing = body.iter().rev().take_while(|(_, t)| t.is_empty()).count();
        let content = &body[..body.len() - trailing];
        let mut out = String::new();
        let (mut blanks, mut started, mut prev_plain) = (0, false, false);
        for (col, text) in content {
            if text.is_empty() {
                blanks += 1;
                continue;
            }
            // Folding joins lines of the block's own indentation with a space; a blank line
            // between them stands for one line break; more-indented lines stay as they are.
            let plain_line = *col == column;
            if started && folded && prev_plain && plain_line && blanks == 0 {
                out.push(' ');
            } else {
                let breaks = if started && !(folded && prev_plain && plain_line) {
                    blanks + 1
                } else {
                    blanks
                };
                out.push_str(&"\n".repeat(breaks));
            }
            out.push_str(&" ".repeat(col.saturating_sub(column)));
            out.push_str(text);
            (blanks, started, prev_plain) = (0, true, plain_line);
        }
        match chomp {
            Some(false) => {}
            None if !content.is_empty() => out.push('\n'),
            None => {}
            Some(true) => {
                if !content.is_empty() {
                    out.push('\n');
                }
                out.push_str(&"\n".repeat(trailing));
            }
        }
        Ok(Value::String(out))
    }
}

fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// `key: rest` (a quoted key allowed), or none when the line is not a key.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let end = match text.chars().next()? {
        q @ ('"' | '\'') => text[1..].find(q)? + 2,
        '[' | '{' | '#' => return None,
        _ => text
            .find(": ")
            .or_else(|| text.strip_suffix(':').map(str::len))?,
    };
    let rest = text[end..].trim_start();
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((text[..end].trim_end(), rest.trim()))
}

/// A plain scalar's text without its ` # comment`.
fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(at) => text[..at].trim_end(),
        None if text.starts_with('#') => "",
        None => text,
    }
}

/// A scalar written on one line: quoted, a flow list of scalars, `{}`, or plain.
fn scalar(text: &str) -> Result<Value, String> {
    let (value, rest) = match text.chars().next() {
        Some('"') => double_quoted(text)?,
        Some('\'') => single_quoted(text)?,
        Some('[') => flow_list(text)?,
        Some('{') => match text.strip_prefix('{').map(str::trim_start) {
            Some(rest) if rest.starts_with('}') => (Value::Object(Map::new()), &rest[1..]),
            _ => return Err("flow mappings are not supported (use block style)".to_owned()),
        },
        _ => return plain(strip_comment(text)),
    };
    match strip_comment(rest.trim_start()) {
        "" => Ok(value),
        _ => Err("text after a closed value".to_owned()),
    }
}

fn double_quoted(text: &str) -> Result<(Value, &str), String> {
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((Value::String(out), &text[at + 1..])),
            '\\' => {
                let (_, e) = chars.next().ok_or("an unfinished escape")?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    '"' | '\\' | '/' | ' ' => out.push(e),
                    'u' | 'x' | 'U' => {
                        let digits = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..digits)
                            .filter_map(|_| chars.next())
                            .map(|c| c.1)
                            .collect();
                        let code = u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == digits)
                            .and_then(char::from_u32)
                            .ok_or("an invalid escape")?;
                        out.push(code);
                    }
                    _ => return Err(format!("an unsupported escape `\\{e}`")),
                }
            }
            c => out.push(c),
        }
    }
    Err("an unclosed double-quoted value".to_owned())
}

fn single_quoted(text: &str) -> Result<(Value, &str), String> {
    let mut out = String::new();
    let mut rest = &text[1..];
    loop {
        let at = rest.find('\'').ok_or("an unclosed single-quoted value")?;
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        match rest.strip_prefix('\'') {
            Some(after) => {
                out.push('\'');
                rest = after;
            }
            None => return Ok((Value::String(out), rest)),
        }
    }
}

/// `[a, "b", 3]`: scalars only.
fn flow_list(text: &str) -> Result<(Value, &str), String> {
    let mut items = Vec::new();
    let mut rest = text[1..].trim_start();
    if let Some(after) = rest.strip_prefix(']') {
        return Ok((Value::Array(items), after));
    }
    loop {
        let (item, after) = match rest.chars().next() {
            Some('"') => double_quoted(rest)?,
            Some('\'') => single_quoted(rest)?,
            Some('[' | '{') => return Err("nested flow collections are not supported".to_owned()),
            Some(_) => {
                let end = rest.find([',', ']']).ok_or("an unclosed flow list")?;
                (plain(rest[..end].trim())?, &rest[end..])
            }
            None => return Err("an unclosed flow list".to_owned()),
        };
        items.push(item);
        let after = after.trim_start();
        if let Some(next) = after.strip_prefix(',') {
            rest = next.trim_start();
        } else if let Some(end) = after.strip_prefix(']') {
            return Ok((Value::Array(items), end));
        } else {
            return Err("expected `,` or `]` in a flow list".to_owned());
        }
    }
}

/// A plain scalar resolved as YAML's core schema does: null, booleans, numbers, else text.
fn plain(text: &str) -> Result<Value, String> {
    if let Some(c @ ('&' | '*' | '!' | '%' | '@' | '`' | '|' | '>')) = text.chars().next() {
        return Err(format!(
            "`{c}` (anchors, aliases, tags and directives are not supported)"
        ));
    }
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => number(text).unwrap_or_else(|| Value::String(text.to_owned())),
    })
}

fn number(text: &str) -> Option<Value> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::Number(n.into()));
        }
    }
    let numeric = digits
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'));
    if !numeric || !digits.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    // Read as JSON's grammar reads a number (serde_json's reader, already in the module; core's
    // `f64` parser would add its tables, ~12 KB of wasm): no `+`, a digit on both sides of the
    // point (YAML allows `.5`, `+1` and `1.`).
    let mut json = String::with_capacity(text.len() + 2);
    if text.starts_with('-') {
        json.push('-');
    }
    if digits.starts_with('.') {
        json.push('0');
    }
    for (i, c) in digits.char_indices() {
        json.push(c);
        if c == '.' && !digits[i + 1..].starts_with(|c: char| c.is_ascii_digit()) {
            json.push('0');
        }
    }
    serde_json::from_str::<Number>(&json)
        .ok()
        .filter(|n| n.as_f64().is_some_and(f64::is_finite))
        .map(Value::Number)
}
