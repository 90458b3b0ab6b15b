//! Properties of the tool-call parser on generated input:
//! - no input makes it panic (arbitrary Unicode, and text dense in the bytes it cares about);
//! - a call embedded anywhere in noise (noise free of braces, backticks and angle brackets) is
//!   found, in every format, with its arguments intact;
//! - streaming a text in arbitrary pieces finds what one full parse finds (everything, when the
//!   text only grows, whether each piece is new or given again; with re-renders that are later
//!   replaced, the final text's calls and no call that was not complete in some text the parser
//!   was shown).
//!
//! Each property draws 512 cases, or `PROPTEST_CASES` for a deeper search (`cargo xtask test`
//! fixes the seed; `cargo xtask fuzz` and a caller's `PROPTEST_RNG_SEED` draw others).

use proptest::prelude::*;
use relay_core::model::{ServerTools, Tool};
use relay_core::parse::{parse_tool_calls, ParseOutput, StreamParser};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

fn servers() -> Vec<ServerTools> {
    let t = |n: &str| Tool::new(n, json!({"type": "object"}));
    vec![
        ServerTools::new(
            "demo",
            "Demo",
            vec![t("add"), t("echo"), t("notes_add"), t("notes_search")],
        ),
        ServerTools::new(
            "everything",
            "Everything",
            vec![t("echo"), t("get-sum"), t("get-env")],
        ),
    ]
}

/// Text made of what the parser reacts to, so generated inputs reach deep into its states.
fn structured_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\n".to_owned()),
        Just("```json\n".to_owned()),
        Just("\n```\n".to_owned()),
        Just("`".to_owned()),
        Just("<tool_call>".to_owned()),
        Just("</tool_call>".to_owned()),
        Just("<function_calls><invoke name=\"add\">".to_owned()),
        Just("<parameter name=\"a\">1</parameter>".to_owned()),
        Just("</invoke></function_calls>".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just("{\"tool\": \"add\", \"arguments\": {\"a\": 1}}".to_owned()),
        Just(
            "{\"tool\": \"echo\", \"server\": \"demo\", \"arguments\": {\"message\": \"x\"}"
                .to_owned()
        ),
        Just("{\"type\":\"function_call_start\",\"name\":\"get-env\",\"call_id\":1}".to_owned()),
        Just("{\"type\":\"function_call_end\",\"call_id\":1}".to_owned()),
        Just("Copy code\n".to_owned()),
        Just("“".to_owned()),
        Just("\u{a0}".to_owned()),
        Just("&quot;".to_owned()),
        Just(",".to_owned()),
        Just(":".to_owned()),
        "[a-z ]{0,6}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

/// Noise: any characters except `{`, `}`, `` ` ``, `<` and `>`.
fn noise() -> impl Strategy<Value = String> {
    prop::collection::vec(
        // Mapped, not filtered: a filter's rejects abort a long run (`PROPTEST_CASES`).
        any::<char>().prop_map(|c| if "{}`<>".contains(c) { ' ' } else { c }),
        0..80,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn argument_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        // Strings may hold anything but `<`, which an XML parameter value cannot carry unescaped.
        prop::collection::vec(
            any::<char>().prop_map(|c| if c == '<' { '_' } else { c }),
            0..12
        )
        .prop_map(|v| Value::String(v.into_iter().collect())),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z_]{1,8}", argument_value(), 0..5)
        .prop_map(|m| m.into_iter().collect())
}

/// How the embedded call is written.
#[derive(Debug, Clone, Copy)]
enum Written {
    Bare,
    Fenced,
    ToolCallTag,
    Xml,
}

fn write_call(tool: &str, args: &Map<String, Value>, how: Written) -> String {
    let object = json!({"tool": tool, "server": "demo", "arguments": args}).to_string();
    match how {
        Written::Bare => object,
        Written::Fenced => format!("\n```json\n{object}\n```\n"),
        Written::ToolCallTag => format!(
            "<tool_call>{}</tool_call>",
            json!({"tool_name": tool, "server": "demo", "arguments": args})
        ),
        Written::Xml => {
            let params: String = args
                .iter()
                .map(|(k, v)| format!("<parameter name=\"{k}\">{v}</parameter>"))
                .collect();
            format!("<function_calls><invoke name=\"{tool}\" server=\"demo\">{params}</invoke></function_calls>")
        }
    }
}

/// Streams `text` by `push`, each prefix twice: the second push of a text already parsed must
/// report nothing new (it runs the scanner again from where it stopped, on the same bytes).
fn stream_push_twice(text: &str, cuts: &[usize]) -> Result<ParseOutput, TestCaseError> {
    let mut p = StreamParser::new(servers());
    for &end in cuts.iter().chain(std::iter::once(&text.len())) {
        p.push(&text[..end]);
        let again = p.push(&text[..end]);
        prop_assert!(
            again.calls.is_empty() && again.diagnostics.is_empty(),
            "the same {end} bytes pushed again reported {:?}",
            again
        );
    }
    p.finish();
    Ok(p.output())
}

fn stream_append(text: &str, cuts: &[usize]) -> ParseOutput {
    let mut p = StreamParser::new(servers());
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&text.len())) {
        if end > start {
            p.append(&text[start..end]);
            start = end;
        }
    }
    p.finish();
    p.output()
}

/// 512, or `PROPTEST_CASES` when set (which proptest reads only where no count is given).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

/// Char-boundary cut points of `text` from arbitrary fractions.
fn cut_points(text: &str, fractions: &[f64]) -> Vec<usize> {
    let mut cuts: Vec<usize> = fractions
        .iter()
        .map(|f| {
            let mut c = ((text.len() as f64) * f) as usize;
            while !text.is_char_boundary(c) {
                c += 1;
            }
            c
        })
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_unicode_never_panics(text in any::<String>(), fractions in prop::collection::vec(0.0f64..1.0, 0..8)) {
        let full = parse_tool_calls(&text, &servers());
        let streamed = stream_append(&text, &cut_points(&text, &fractions));
        prop_assert_eq!(streamed, full);
    }

    #[test]
    fn structured_text_streams_exactly_like_a_full_parse(
        text in structured_text(),
        fractions in prop::collection::vec(0.0f64..1.0, 0..24),
    ) {
        let full = parse_tool_calls(&text, &servers());
        let cuts = cut_points(&text, &fractions);
        let streamed = stream_append(&text, &cuts);
        prop_assert_eq!(&streamed, &full);
        prop_assert_eq!(&stream_push_twice(&text, &cuts)?, &full);
        // One byte at a time, the extreme split.
        let bytes: Vec<usize> = (1..text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        prop_assert_eq!(&stream_append(&text, &bytes), &full);
    }

    /// Re-renders: the final text's calls are all reported, and nothing else is, except calls
    /// complete in a text the parser was shown (a reported call cannot be taken back).
    #[test]
    fn rewrites_report_the_final_calls_and_only_calls_that_were_shown(
        text in structured_text(),
        fractions in prop::collection::vec(0.0f64..1.0, 1..16),
        rewrites in prop::collection::vec((0usize..16, 0.0f64..1.0, "[a-z \\n\"':,]{0,12}"), 0..3),
    ) {
        let full = parse_tool_calls(&text, &servers());
        let cuts = cut_points(&text, &fractions);
        let mut p = StreamParser::new(servers());
        let mut shown_ids: BTreeSet<String> = full.calls.iter().map(|c| c.call_id.clone()).collect();
        for (step, &end) in cuts.iter().chain(std::iter::once(&text.len())).enumerate() {
            for (at_step, back, garbage) in &rewrites {
                if *at_step == step {
                    // A re-render: an earlier prefix with a different tail, replaced by the next push.
                    let mut keep = ((end as f64) * back) as usize;
                    while !text.is_char_boundary(keep) {
                        keep -= 1;
                    }
                    let shown = format!("{}{garbage}", &text[..keep]);
                    shown_ids.extend(parse_tool_calls(&shown, &servers()).calls.into_iter().map(|c| c.call_id));
                    p.push(&shown);
                }
            }
            shown_ids.extend(parse_tool_calls(&text[..end], &servers()).calls.into_iter().map(|c| c.call_id));
            p.push(&text[..end]);
        }
        p.finish();
        let reported: BTreeSet<String> = p.calls().iter().map(|c| c.call_id.clone()).collect();
        for call in &full.calls {
            prop_assert!(reported.contains(&call.call_id), "not reported: {:?}", call);
        }
        for call in p.calls() {
            prop_assert!(shown_ids.contains(&call.call_id), "reported but never shown: {:?}", call);
        }
    }

    #[test]
    fn a_call_anywhere_in_noise_is_found(
        before in noise(),
        after in noise(),
        tool in prop::sample::select(vec!["add", "echo", "notes_add", "notes_search"]),
        args in arguments(),
        how in prop::sample::select(vec![Written::Bare, Written::Fenced, Written::ToolCallTag, Written::Xml]),
    ) {
        let call = write_call(tool, &args, how);
        let text = format!("{before}{call}{after}");
        let out = parse_tool_calls(&text, &servers());
        prop_assert_eq!(out.calls.len(), 1, "{:?}", out);
        let found = &out.calls[0];
        prop_assert_eq!(found.tool.as_str(), tool);
        prop_assert_eq!(found.server.as_str(), "demo");
        prop_assert_eq!(&found.arguments, &Value::Object(args.clone()));
        prop_assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        prop_assert!(found.span.start >= before.len() && found.span.start < found.span.end);
        prop_assert!(found.span.end <= before.len() + call.len());
    }
}
