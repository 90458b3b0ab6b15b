//! The rewind invariant, checked on the parser's own state: after any sequence of re-renders,
//! a streaming parser holds exactly the calls and diagnostics that a fresh parser given the
//! final text at once holds. (What it *reports* can differ, and may: a reported call is final.
//! What it holds is what later steps build on, so a stale decision there is a wrong answer
//! later, such as a call never found or one found under the wrong id.)

use std::path::Path;

use proptest::prelude::*;
use serde_json::json;

use super::stream::StreamParser;
use crate::model::{ServerTools, Tool};

thread_local! {
    /// Read once per test thread (each property runs on one thread, for every case).
    static CORPUS: (Vec<ServerTools>, Vec<String>) = corpus();
}

/// The reply corpus of the golden tests, with its servers.
fn corpus() -> (Vec<ServerTools>, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/replies");
    let servers = std::fs::read_to_string(dir.join("servers.json")).expect("servers.json");
    let servers = serde_json::from_str(&servers).expect("servers.json holds ServerTools");
    let mut replies: Vec<(std::path::PathBuf, String)> = std::fs::read_dir(&dir)
        .expect("the fixtures")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "txt").then_some(())?;
            let text = std::fs::read_to_string(&path).ok()?;
            Some((path, text))
        })
        .collect();
    replies.sort();
    assert!(replies.len() >= 20, "the fixtures are missing");
    (servers, replies.into_iter().map(|(_, t)| t).collect())
}

fn servers() -> Vec<ServerTools> {
    let t = |n: &str| Tool::new(n, json!({"type": "object"}));
    vec![
        ServerTools::new("demo", "Demo", vec![t("add"), t("echo")]),
        ServerTools::new("everything", "Everything", vec![t("echo"), t("get-env")]),
    ]
}

/// Text made of what the parser reacts to: every construct's opener and closer, as pieces.
fn pieces() -> impl Strategy<Value = Vec<&'static str>> {
    let piece = prop::sample::select(vec![
        "{",
        "}",
        "\"",
        "\\",
        "\n",
        "```json\n",
        "\n```\n",
        "`",
        "``",
        "<tool_call>",
        "</tool_call>",
        "<function_calls><invoke name=\"add\">",
        "<parameter name=\"a\">1</parameter>",
        "</invoke></function_calls>",
        "<!--",
        "-->",
        "--",
        "<add>",
        "</add>",
        "{\"a\": 1}",
        "{\"tool\": \"add\", \"arguments\": {\"a\": 1}}",
        "{\"tool\": \"echo\", \"server\": \"demo\", \"arguments\": {\"message\": \"x\"}",
        "{\"type\":\"function_call_start\",\"name\":\"get-env\",\"call_id\":1}",
        "{\"type\":\"function_call_end\",\"call_id\":1}",
        "Copy code\n",
        "“",
        "&quot;",
        ",",
        ":",
        "a",
        " ",
        "é",
    ]);
    prop::collection::vec(piece, 0..48)
}

/// A byte offset of the text made of `pieces`: inside piece `at` (wrapped), `within` of the way.
/// Cuts land inside constructs' openers and closers as often as between them.
fn cut(pieces: &[&str], at: usize, within: f64) -> usize {
    if pieces.is_empty() {
        return 0;
    }
    let i = at % pieces.len();
    let before: usize = pieces[..i].iter().map(|p| p.len()).sum();
    let piece = pieces[i];
    let mut j = ((piece.len() as f64) * within) as usize;
    while !piece.is_char_boundary(j) {
        j -= 1;
    }
    before + j
}

/// 1,024, or `PROPTEST_CASES` for a deeper search.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Pushes of prefixes of the final text and of re-rendered texts (a prefix with another
    /// tail), each possibly twice, in any order, then the final text: the parser holds what a
    /// fresh one given the final text holds. The message may be finished at any step (sites
    /// re-render finished messages too).
    #[test]
    fn after_any_rewrites_the_parser_holds_what_a_fresh_one_holds(
        pieces in pieces(),
        steps in prop::collection::vec(
            (any::<usize>(), 0.0f64..1.0, prop::sample::select(vec!["", "", "a", "-", ">", "`", "}", "\n", "<", "/"]), any::<bool>()),
            0..12,
        ),
        finish_at in prop::option::of(0usize..16),
    ) {
        let text = pieces.concat();
        let mut p = StreamParser::new(servers());
        for (i, &(at, within, tail, twice)) in steps.iter().enumerate() {
            if finish_at == Some(i) {
                p.finish();
            }
            let shown = format!("{}{tail}", &text[..cut(&pieces, at, within)]);
            p.push(&shown);
            if twice {
                p.push(&shown);
            }
        }
        p.push(&text);
        let mut fresh = StreamParser::new(servers());
        fresh.push(&text);
        if finish_at.is_some() {
            p.finish();
            fresh.finish();
        }
        prop_assert_eq!(p.held(), fresh.held());
    }

    /// The same on the reply corpus (every format as models write it), cut anywhere.
    #[test]
    fn after_any_rewrites_of_a_real_reply_the_parser_holds_what_a_fresh_one_holds(
        which in any::<usize>(),
        steps in prop::collection::vec(
            (0.0f64..1.0, prop::sample::select(vec!["", "", "a", "-", ">", "`", "}", "\n", "<", "/", "\""]), any::<bool>()),
            1..8,
        ),
        finish_at in prop::option::of(0usize..10),
    ) {
        let (servers, text) = CORPUS.with(|(servers, replies)| {
            (servers.clone(), replies[which % replies.len()].clone())
        });
        let text = &text;
        let mut p = StreamParser::new(servers.clone());
        for (i, &(f, tail, twice)) in steps.iter().enumerate() {
            if finish_at == Some(i) {
                p.finish();
            }
            let mut keep = ((text.len() as f64) * f) as usize;
            while !text.is_char_boundary(keep) {
                keep -= 1;
            }
            let shown = format!("{}{tail}", &text[..keep]);
            p.push(&shown);
            if twice {
                p.push(&shown);
            }
        }
        p.push(text);
        let mut fresh = StreamParser::new(servers.clone());
        fresh.push(text);
        if finish_at.is_some() {
            p.finish();
            fresh.finish();
        }
        prop_assert_eq!(p.held(), fresh.held());
    }
}
