//! Bounds on what one server can put into a prompt.
//!
//! Tool definitions come from servers the extension does not control. Without bounds, one tool
//! with a 50 MB description makes a 50 MB prompt (pasted into a chat input, it hangs the page),
//! and a server with ten thousand tools does the same. Descriptions are cut with a visible
//! marker, tools past the cap are left out, and each cut is reported as a diagnostic the side
//! panel shows next to the prompt. Names are never cut (a model must call the real name): a tool
//! whose name is too long to be a real one is left out instead.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::Tool;

/// Tools in one prompt at most. A prompt this size is already past what chat inputs accept; the
/// cap exists so a hostile server cannot make the worker build a far larger one.
pub const MAX_TOOLS: usize = 1000;
/// Characters of a tool's own description kept in the prompt.
pub const MAX_TOOL_DESCRIPTION: usize = 2000;
/// Characters of a parameter's `description` or `title` kept in the prompt.
pub const MAX_SCHEMA_TEXT: usize = 500;
/// Bytes of a tool name: MCP names are at most 128 characters.
pub const MAX_NAME: usize = 128;

const CUT_MARK: &str = " […]";

/// A tool as the prompt may show it: borrowed when within bounds, a trimmed copy otherwise.
/// `None` when the tool cannot be listed at all (its name is too long to be real).
pub(crate) fn bounded(tool: &Tool) -> Option<Cow<'_, Tool>> {
    if tool.name.len() > MAX_NAME {
        return None;
    }
    let long_description = tool
        .description
        .as_deref()
        .is_some_and(|d| d.len() > MAX_TOOL_DESCRIPTION);
    let long_title = tool
        .title
        .as_deref()
        .is_some_and(|d| d.len() > MAX_SCHEMA_TEXT);
    if !long_description && !long_title && !schema_has_long_text(&tool.input_schema) {
        return Some(Cow::Borrowed(tool));
    }
    let mut t = tool.clone();
    if let Some(d) = t.description.as_mut() {
        cut(d, MAX_TOOL_DESCRIPTION);
    }
    if let Some(d) = t.title.as_mut() {
        cut(d, MAX_SCHEMA_TEXT);
    }
    trim_schema(&mut t.input_schema);
    Some(Cow::Owned(t))
}

/// Cuts `text` to at most `max` bytes (on a character boundary) and marks the cut.
fn cut(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut end = max.saturating_sub(CUT_MARK.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(CUT_MARK);
}

fn is_text_key(key: &str) -> bool {
    matches!(key, "description" | "title")
}

/// Whether any `description`/`title` string in the schema is over the bound. Iterative, so a
/// deeply nested hostile schema cannot overflow the stack.
fn schema_has_long_text(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match v {
                        Value::String(s) if is_text_key(k) && s.len() > MAX_SCHEMA_TEXT => {
                            return true
                        }
                        Value::Object(_) | Value::Array(_) => stack.push(v),
                        _ => {}
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    false
}

fn trim_schema(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    match v {
                        Value::String(s) if is_text_key(k) => cut(s, MAX_SCHEMA_TEXT),
                        Value::Object(_) | Value::Array(_) => stack.push(v),
                        _ => {}
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_within_bounds_are_borrowed_and_long_texts_are_cut_with_a_mark() {
        let small = Tool::new("ok", json!({"type": "object"}));
        assert!(matches!(bounded(&small), Some(Cow::Borrowed(_))));

        let mut big = Tool::new(
            "big",
            json!({"type": "object", "properties": {
                "q": {"type": "string", "description": "é".repeat(5_000), "enum": ["x".repeat(600)]},
                "nested": {"type": "array", "items": {"type": "object", "title": "t".repeat(900)}}
            }}),
        );
        big.description = Some("d".repeat(10_000_000));
        let Some(Cow::Owned(t)) = bounded(&big) else {
            panic!("a trimmed copy")
        };
        let d = t.description.as_deref().expect("description");
        assert!(d.len() <= MAX_TOOL_DESCRIPTION && d.ends_with(CUT_MARK));
        let q = &t.input_schema["properties"]["q"];
        let qd = q["description"].as_str().expect("q description");
        assert!(qd.len() <= MAX_SCHEMA_TEXT && qd.ends_with(CUT_MARK));
        assert_eq!(
            q["enum"][0].as_str().map(str::len),
            Some(600),
            "values a call must match are never cut"
        );
        let title = t.input_schema["properties"]["nested"]["items"]["title"]
            .as_str()
            .expect("title");
        assert!(title.len() <= MAX_SCHEMA_TEXT);

        let long_name = Tool::new("n".repeat(MAX_NAME + 1), json!({}));
        assert!(bounded(&long_name).is_none());
    }
}
