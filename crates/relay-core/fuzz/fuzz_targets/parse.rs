//! Fuzz target `parse`: arbitrary bytes (as text) through the full parser and through the
//! streaming parser fed in pieces the input itself chooses; both must agree, and neither may
//! panic.
//!
//! The first byte chooses the piece size (1..=64 bytes); the rest is the reply. Run with
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run parse` from `crates/relay-core/fuzz` (or `cargo xtask fuzz`).

#![no_main]

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
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let servers = servers();
    let full = parse_tool_calls(&text, &servers);

    let piece = usize::from(first % 64) + 1;
    let mut stream = StreamParser::new(servers);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + piece).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        stream.append(&text[start..end]);
        start = end;
    }
    stream.finish();
    assert_eq!(
        stream.output(),
        full,
        "streaming in pieces of {piece} disagrees with the full parse"
    );
});
