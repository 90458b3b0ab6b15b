//! Fuzz target `parse`: arbitrary bytes (as text) through the full parser and through the
//! streaming parser fed in pieces the input itself chooses, by appends and by whole-text pushes
//! with re-renders; they must agree, and none may panic.
//!
//! The first byte chooses the piece size (1..=64 bytes), the second how far back each step's
//! re-render (a "Copy code" label in place of the tail) starts; the rest is the reply. Run with
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run parse` from `crates/relay-core/fuzz` (or `cargo xtask fuzz`).

#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use relay_core::model::{ServerTools, Tool};
use relay_core::parse::{parse_tool_calls, StreamParser};

fn servers() -> Vec<ServerTools> {
    let schema = serde_json::json!({"type": "object"});
    let t = |n: &str| Tool::new(n, schema.clone());
    vec![
        ServerTools::new("demo", "Demo", vec![t("add"), t("echo"), t("notes_add")]),
        ServerTools::new("everything", "Everything", vec![t("echo"), t("get-sum")]),
    ]
}

fuzz_target!(|data: &[u8]| {
    let [piece, rewrite, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let servers = servers();
    let full = parse_tool_calls(&text, &servers);
    let piece = usize::from(piece % 64) + 1;
    let ends = {
        let mut ends = Vec::new();
        let mut end = 0;
        while end < text.len() {
            end = (end + piece).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            ends.push(end);
        }
        ends
    };

    // Appends: everything the full parse reports, diagnostics included.
    let mut stream = StreamParser::new(servers.clone());
    let mut start = 0;
    for &end in &ends {
        stream.append(&text[start..end]);
        start = end;
    }
    stream.finish();
    assert_eq!(
        stream.output(),
        full,
        "appending pieces of {piece} disagrees with the full parse"
    );

    // Whole-text pushes where every step first shows a re-render of its tail: every call of the
    // final text is reported, and no call that was not complete in some text that was shown.
    let rerender = |end: usize| {
        let mut keep = end.saturating_sub(usize::from(*rewrite) % (piece + 8));
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
        format!("{}\nCopy code\n", &text[..keep])
    };
    // Each push copies the whole text: coarser steps keep the harness from going quadratic.
    let ends: Vec<usize> = ends
        .iter()
        .copied()
        .skip(15)
        .step_by(16)
        .chain(std::iter::once(text.len()))
        .collect();
    let mut stream = StreamParser::new(servers.clone());
    for &end in &ends {
        stream.push(&rerender(end));
        stream.push(&text[..end]);
    }
    stream.finish();
    let reported: BTreeSet<&str> = stream.calls().iter().map(|c| c.call_id.as_str()).collect();
    for call in &full.calls {
        assert!(
            reported.contains(call.call_id.as_str()),
            "not reported after re-renders: {call:?}"
        );
    }
    let in_full: BTreeSet<&str> = full.calls.iter().map(|c| c.call_id.as_str()).collect();
    for call in stream
        .calls()
        .iter()
        .filter(|c| !in_full.contains(c.call_id.as_str()))
    {
        // Rare: only then look for a shown text where it was complete.
        let shown = ends.iter().any(|&end| {
            [rerender(end), text[..end].to_owned()].iter().any(|t| {
                parse_tool_calls(t, &servers)
                    .calls
                    .iter()
                    .any(|c| c.call_id == call.call_id)
            })
        });
        assert!(shown, "reported but never shown: {call:?}");
    }
});
