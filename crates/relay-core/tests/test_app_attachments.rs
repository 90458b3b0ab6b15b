//! A result's files on a page that does not take them (`relay_core::app::deliver`): the text
//! written never claims an attachment the page did not make, and the record says which files
//! were left out and why, so the panel warns instead of calling the call simply done.

use relay_core::sorted_map::SortedMap;

use relay_core::app::{chat_key, App, CallEnd, ChatSettings, Config};
use relay_core::client::ServerConfig;
use relay_core::contract::tab::InsertOutcome;
use relay_core::contract::TabMessage;
use relay_core::model::{CallToolResult, Content, Tool};
use relay_core::policy::{Ledger, ToolPolicy};
use relay_core::result::{AttachFailure, Unattached};
use serde_json::json;

const URL: &str = "https://chat.example/c/1";
/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn chat() -> String {
    chat_key(7, URL)
}

/// An app whose chat runs `draw` (server `art`) by itself and sends its results.
fn app() -> App {
    let mut config = Config::default();
    config
        .servers
        .push(ServerConfig::new("art", "art", "http://127.0.0.1:9/mcp"));
    config.chats.insert(
        chat(),
        ChatSettings {
            server_ids: vec!["art".into()],
            auto_execute: true,
            auto_submit: true,
            ..Default::default()
        },
    );
    config.set_tool("art", "draw", Some(ToolPolicy::Allow), None);
    let tools = SortedMap::from([(
        "art".to_owned(),
        vec![Tool::new("draw", json!({"type": "object"}))],
    )]);
    App::restore(config, tools, Ledger::default()).0
}

/// A reply calling `draw`, run to a result of a caption and `images` PNGs; the delivery.
fn delivered_result(app: &mut App, images: usize) -> (String, relay_core::app::Delivery) {
    let text = "Sure.\n```json\n{\"tool\": \"draw\", \"arguments\": {}}\n```\n";
    let (answer, _) = app.reply_update(&chat(), "m", text, true, false);
    let key = answer.calls[0].key.clone();
    let mut content = vec![Content::text("a drawing")];
    for _ in 0..images {
        content.push(Content::Image {
            data: PNG.into(),
            mime_type: "image/png".into(),
        });
    }
    app.prepare_call(&key, 1).expect("ready");
    app.finish_call(&key, CallEnd::Result(CallToolResult::success(content)), 5);
    let d = app.take_delivery(&chat(), "m").expect("deliverable");
    (key, d)
}

fn sent(attached: u32, failure: Option<AttachFailure>) -> InsertOutcome {
    InsertOutcome {
        inserted: true,
        submitted: true,
        attached: Some(attached),
        attach_failure: failure,
        ..Default::default()
    }
}

#[test]
fn the_tab_gets_a_text_for_a_page_that_does_not_take_the_files() {
    let mut app = app();
    let (_, d) = delivered_result(&mut app, 1);
    assert!(
        d.text.contains("attached as tool-result-1.png"),
        "{}",
        d.text
    );
    let TabMessage::Insert {
        attachments,
        without_files,
        ..
    } = d.message()
    else {
        panic!("an insert")
    };
    assert_eq!(attachments.len(), 1);
    let without = without_files.expect("a text without the files");
    assert!(
        without
            .contains("[image 1: image/png, 70 B, not attached: the chat page did not take files]"),
        "{without}"
    );
    assert!(!without.contains("attached as"), "{without}");
    assert!(
        without.contains("a drawing"),
        "the rest of the result is the same"
    );
}

#[test]
fn a_result_without_files_has_no_second_text() {
    let mut app = app();
    let (_, d) = delivered_result(&mut app, 0);
    let TabMessage::Insert { without_files, .. } = d.message() else {
        panic!("an insert")
    };
    assert_eq!(without_files, None);
}

#[test]
fn files_the_page_did_not_take_are_on_the_record_and_in_what_it_says_was_sent() {
    // (what the tab reported, what the record keeps)
    let cases = [
        (sent(2, None), None),
        (
            sent(0, Some(AttachFailure::NoTarget)),
            Some((2, AttachFailure::NoTarget)),
        ),
        (
            sent(0, Some(AttachFailure::NotShown)),
            Some((2, AttachFailure::NotShown)),
        ),
        // A tab that reports no count attached nothing.
        (
            InsertOutcome {
                inserted: true,
                submitted: true,
                ..Default::default()
            },
            Some((2, AttachFailure::NotShown)),
        ),
    ];
    for (outcome, want) in cases {
        let mut app = app();
        let (key, d) = delivered_result(&mut app, 2);
        app.delivery_written(&d, &outcome);
        let rec = &app.ledger.calls[&key];
        assert!(rec.delivered, "the text went in: {outcome:?}");
        let got = rec.unattached.map(|u: Unattached| (u.count, u.reason));
        assert_eq!(got, want, "{outcome:?}");
        assert!(rec.unattached.is_none_or(|u| u.images), "both are images");
        let said = rec.reply_text.as_deref().unwrap_or_default();
        assert_eq!(
            said.contains("attached as"),
            want.is_none(),
            "the record keeps the text the chat got: {said}"
        );
    }
}

#[test]
fn nothing_written_leaves_no_warning_and_the_result_goes_again_with_its_files() {
    let mut app = app();
    let (key, d) = delivered_result(&mut app, 1);
    app.delivery_written(&d, &InsertOutcome::default());
    let rec = &app.ledger.calls[&key];
    assert!(!rec.delivered && rec.unattached.is_none());
    let (_, _) = app.reply_update(&chat(), "m-next", "", false, false);
    let again = app.take_delivery(&chat(), "m").expect("again");
    assert_eq!(again.attachments.len(), 1);
}
