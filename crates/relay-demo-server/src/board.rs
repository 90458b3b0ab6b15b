//! The notes board: the demo's MCP App (`io.modelcontextprotocol/ui`, spec 2026-01-26).
//!
//! `notes_board` names its interface in `_meta.ui.resourceUri` ([`BOARD_URI`]); a host that
//! renders apps reads that `ui://` resource ([`resource_contents`], HTML with the MIME type
//! [`APP_MIME`]) and shows the notes as cards. The page is self-contained (inline script and
//! style, nothing fetched), so the spec's default Content Security Policy suits it and the
//! resource declares none. It speaks the protocol over `postMessage` with plain JavaScript: it
//! initializes, renders the tool result the host sends, adds a note through the host's
//! `tools/call` (`notes_add`, which goes through the host's approval like any call) and reports
//! its size.

use rmcp::model::{MetaObject, Resource, ResourceContents};
use serde_json::json;

use crate::notes::Note;

/// The board's `ui://` resource.
pub const BOARD_URI: &str = "ui://demo/notes-board.html";

/// The MIME type of an MCP App's document.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The app's document.
const BOARD_HTML: &str = include_str!("notes_board.html");

/// The tool's `_meta`: its interface; visible to the model and to apps (the default).
pub fn tool_meta() -> MetaObject {
    let mut meta = MetaObject::new();
    meta.0
        .insert("ui".into(), json!({ "resourceUri": BOARD_URI }));
    meta
}

/// The board's entry in `resources/list`.
pub fn resource() -> Resource {
    Resource::new(BOARD_URI, "notes-board")
        .with_title("Notes board")
        .with_description("The interface of notes_board: the notes as cards (an MCP App).")
        .with_mime_type(APP_MIME)
        .with_size(BOARD_HTML.len() as u64)
}

/// What `resources/read` returns for [`BOARD_URI`]: the document, and that it wants the host's
/// border (it has no background of its own at the edges).
pub fn resource_contents() -> ResourceContents {
    let mut meta = MetaObject::new();
    meta.0.insert("ui".into(), json!({ "prefersBorder": true }));
    ResourceContents::text(BOARD_HTML, BOARD_URI)
        .with_mime_type(APP_MIME)
        .with_meta(meta)
}

/// The text of `notes_board`'s result, for a model (or a host without apps): how many notes and
/// their titles, newest first.
pub fn summary(notes: &[Note]) -> String {
    match notes {
        [] => "The notes board is empty: no notes yet.".to_owned(),
        [note] => format!("1 note on the board: #{} {}.", note.id, note.title),
        _ => format!(
            "{} notes on the board: {}.",
            notes.len(),
            notes
                .iter()
                .map(|n| format!("#{} {}", n.id, n.title))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(id: u64, title: &str) -> Note {
        Note {
            id,
            title: title.into(),
            body: String::new(),
            tags: Vec::new(),
            created_at: "2026-01-26T00:00:00Z".into(),
        }
    }

    #[test]
    fn the_summary_counts_and_names_the_notes() {
        assert_eq!(summary(&[]), "The notes board is empty: no notes yet.");
        assert_eq!(summary(&[note(3, "Milk")]), "1 note on the board: #3 Milk.");
        assert_eq!(
            summary(&[note(2, "B"), note(1, "A")]),
            "2 notes on the board: #2 B, #1 A."
        );
    }

    #[test]
    fn the_document_speaks_the_protocol_and_loads_nothing() {
        for needed in [
            "ui/initialize",
            "ui/notifications/initialized",
            "ui/notifications/tool-result",
            "ui/notifications/size-changed",
            "ui/resource-teardown",
            "tools/call",
            "2026-01-26",
        ] {
            assert!(BOARD_HTML.contains(needed), "the board lacks {needed}");
        }
        // Self-contained: the default CSP (no declared origins) must be enough.
        for external in ["src=\"http", "href=\"http", "import(", "fetch("] {
            assert!(!BOARD_HTML.contains(external), "the board loads {external}");
        }
        // Notes are the user's text: written as text, never as markup.
        assert!(!BOARD_HTML.contains("innerHTML"));
    }

    #[test]
    fn the_resource_says_it_is_an_app() {
        let json = serde_json::to_value(resource_contents()).expect("serialize");
        assert_eq!(json["mimeType"], APP_MIME);
        assert_eq!(json["uri"], BOARD_URI);
        assert_eq!(json["_meta"]["ui"]["prefersBorder"], true);
        assert_eq!(tool_meta().0["ui"]["resourceUri"], BOARD_URI);
    }
}
