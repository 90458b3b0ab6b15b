//! Bounds on what one server can put into a prompt.
//!
//! Tool definitions come from servers the extension does not control. Without bounds, one tool
//! with a 50 MB description makes a 50 MB prompt (pasted into a chat input, it hangs the page),
//! and a server with ten thousand tools does the same. Descriptions are cut with a visible
//! marker, tools past the cap are left out, and each cut is reported as a diagnostic the side
//! panel shows next to the prompt. Names are never cut (a model must call the real name): a tool
//! whose name is too long to be a real one is left out instead.

use std::borrow::Cow;

use crate::model::Tool;
use crate::schema::text::cut_text;

/// Tools in one prompt at most. A prompt this size is already past what chat inputs accept; the
/// cap exists so a hostile server cannot make the worker build a far larger one.
pub const MAX_TOOLS: usize = 1000;
/// Characters of a tool's own description kept in the prompt.
pub const MAX_TOOL_DESCRIPTION: usize = 2000;
/// Characters of a parameter's `description` or `title` kept in the prompt.
pub const MAX_SCHEMA_TEXT: usize = 500;
/// Bytes of a tool name: MCP names are at most 128 characters.
pub const MAX_NAME: usize = 128;

/// Whether `name` is an MCP tool name (MCP 2025-11-25, "Tool names"): 1 to [`MAX_NAME`]
/// characters, each an ASCII letter, digit, `_`, `-` or `.`. Anything else (a line break that
/// would open a section of its own in the prompt, spaces, quotes, markup) is a server's text
/// posing as a name.
pub fn is_mcp_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Why a tool cannot be listed in a prompt at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unlisted {
    /// Longer than MCP allows.
    LongName,
    /// Not an MCP name ([`is_mcp_name`]).
    InvalidName,
}

/// A tool as the prompt may show it: borrowed when its own texts are within bounds, a trimmed
/// copy otherwise. An error when the tool cannot be listed at all (its name is too long to be
/// real, or is not an MCP name). Parameter texts (`description`, `title` at any schema position) are cut where the
/// renderer reads them (`schema::ir`), which reports the tools it cut ([`RenderedCatalog::cut`]).
///
/// [`RenderedCatalog::cut`]: crate::schema::RenderedCatalog::cut
pub(crate) fn bounded(tool: &Tool) -> Result<Cow<'_, Tool>, Unlisted> {
    if tool.name.len() > MAX_NAME {
        return Err(Unlisted::LongName);
    }
    if !is_mcp_name(&tool.name) {
        return Err(Unlisted::InvalidName);
    }
    let description = tool
        .description
        .as_deref()
        .and_then(|d| cut_text(d, MAX_TOOL_DESCRIPTION));
    let title = tool
        .title
        .as_deref()
        .and_then(|t| cut_text(t, MAX_SCHEMA_TEXT));
    if description.is_none() && title.is_none() {
        return Ok(Cow::Borrowed(tool));
    }
    let mut t = tool.clone();
    if description.is_some() {
        t.description = description;
    }
    if title.is_some() {
        t.title = title;
    }
    Ok(Cow::Owned(t))
}

#[cfg(test)]
mod tests {
    #[test]
    fn mcp_names_are_ascii_words_of_1_to_128_characters() {
        let table = [
            ("notes_add", true),
            ("notes.list-all_v2", true),
            ("A", true),
            (&*"n".repeat(MAX_NAME), true),
            (&*"n".repeat(MAX_NAME + 1), false),
            ("", false),
            ("a b", false),
            ("a\nb", false),
            ("a/b", false),
            ("say\"hi\"", false),
            ("naïve", false),
        ];
        for (name, want) in table {
            assert_eq!(super::is_mcp_name(name), want, "{name:?}");
        }
    }

    use super::*;
    use crate::schema::text::CUT_MARK;
    use crate::schema::{render_catalog, CatalogOptions};
    use serde_json::json;

    #[test]
    fn tools_within_bounds_are_borrowed_and_long_texts_are_cut_with_a_mark() {
        let small = Tool::new("ok", json!({"type": "object"}));
        assert!(matches!(bounded(&small), Ok(Cow::Borrowed(_))));

        let mut big = Tool::new(
            "big",
            json!({"type": "object", "properties": {
                "q": {"type": "string", "description": "é".repeat(5_000), "enum": ["x".repeat(600)]},
                "nested": {"type": "array", "items": {"type": "object", "title": "t".repeat(900)}}
            }}),
        );
        big.description = Some("d".repeat(10_000_000));
        let Ok(Cow::Owned(t)) = bounded(&big) else {
            panic!("a trimmed copy")
        };
        let d = t.description.as_deref().expect("description");
        assert!(d.len() <= MAX_TOOL_DESCRIPTION && d.ends_with(CUT_MARK));

        // Parameter texts are cut where the renderer reads them.
        let catalog = render_catalog(&[&t], &CatalogOptions::standalone());
        assert_eq!(catalog.cut, [0], "the tool whose parameter texts were cut");
        let text = catalog.tools.concat();
        let line = |prefix: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(prefix))
                .unwrap_or_else(|| panic!("{prefix} in {text}"))
                .to_owned()
        };
        let qd = line(" q: ");
        assert!(
            qd.len() <= MAX_SCHEMA_TEXT && qd.ends_with(CUT_MARK),
            "{qd}"
        );
        let title = line(" nested[]: ");
        assert!(title.len() <= MAX_SCHEMA_TEXT && title.ends_with(CUT_MARK));
        assert!(
            text.contains(&format!("\"{}\"", "x".repeat(600))),
            "values a call must match are never cut"
        );

        let bad_name = Tool::new("a\nb", json!({}));
        assert_eq!(bounded(&bad_name).err(), Some(Unlisted::InvalidName));
        let long_name = Tool::new("n".repeat(MAX_NAME + 1), json!({}));
        assert_eq!(bounded(&long_name).err(), Some(Unlisted::LongName));
    }
}
