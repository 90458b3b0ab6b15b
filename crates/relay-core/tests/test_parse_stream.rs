//! The streaming parser step by step: when a call is reported (only once complete, and only
//! once), when `pending` says a call is being written, and what re-renders do.
//!
//! Each scenario is a list of steps with the calls that step must report (tool names) and the
//! `pending` it must say.

use relay_core::model::{ServerTools, Tool};
use relay_core::parse::{parse_tool_calls, StreamParser, StreamUpdate};
use serde_json::json;

fn servers() -> Vec<ServerTools> {
    let t = |n: &str| Tool::new(n, json!({"type": "object"}));
    vec![ServerTools::new("demo", "Demo", vec![t("add"), t("echo")])]
}

#[derive(Debug)]
enum Step {
    Append(&'static str),
    Push(&'static str),
    Finish,
}

/// (step, tools reported by it, pending after it)
type Scenario = (&'static str, Vec<(Step, &'static [&'static str], bool)>);

fn scenarios() -> Vec<Scenario> {
    use Step::*;
    vec![
        (
            "fenced call: reported at the closing fence",
            vec![
                (Append("Sure.\n```json\n{\"tool\": \"add\", "), &[], true),
                (Append("\"arguments\": {\"a\": 1, \"b\": 2}}\n"), &[], true),
                (Append("``"), &[], true),
                (Append("`\nDone."), &["add"], false),
                (Finish, &[], false),
            ],
        ),
        (
            "bare call: reported when its braces balance",
            vec![
                (Append("Calling {\"tool\": \"echo\", \"arguments\": {\"message\": \"}\"}"), &[], true),
                (Append("} now"), &["echo"], false),
                (Finish, &[], false),
            ],
        ),
        (
            "tagged call: reported at the closing tag",
            vec![
                (Append("<tool_call>{\"tool_name\": \"add\", \"arguments\": {}}"), &[], true),
                (Append("</tool_"), &[], true),
                (Append("call>"), &["add"], false),
            ],
        ),
        (
            "JSON lines: reported at function_call_end",
            vec![
                (Append("{\"type\":\"function_call_start\",\"name\":\"add\",\"call_id\":1}\n"), &[], true),
                (Append("{\"type\":\"parameter\",\"key\":\"a\",\"value\":1}\n"), &[], true),
                (Append("{\"type\":\"function_call_end\",\"call_id\":1}\n"), &["add"], false),
            ],
        ),
        (
            "XML: reported at </function_calls>",
            vec![
                (Append("<function_calls><invoke name=\"echo\"><parameter name=\"message\">hi</parameter></invoke>"), &[], true),
                (Append("</function_calls>"), &["echo"], false),
            ],
        ),
        (
            "prose braces are not a call being written",
            vec![(Append("A set {1, 2} and a stray { here"), &[], false), (Finish, &[], false)],
        ),
        (
            "unclosed fence: reported when the message finishes",
            vec![
                (Append("```json\n{\"tool\": \"add\", \"arguments\": {}}\n"), &[], true),
                (Finish, &["add"], false),
            ],
        ),
        (
            "missing final brace: repaired only at the end of the message",
            vec![(Append("{\"tool\": \"add\", \"arguments\": {\"a\": 1}"), &[], true), (Finish, &["add"], false)],
        ),
        (
            "a re-render before a reported call does not report it again",
            vec![
                (Push("Sure:\n{\"tool\": \"add\", \"arguments\": {\"a\": 1}}\n"), &["add"], false),
                (Push("Sure! Here:\n{\"tool\": \"add\", \"arguments\": {\"a\": 1}}\n"), &[], false),
                (Push("Sure! Here:\n{\"tool\": \"add\", \"arguments\": {\"a\": 1}}\nAnd {\"tool\": \"echo\"}"), &["echo"], false),
                (Finish, &[], false),
            ],
        ),
        (
            "a re-render that turns fences into labels keeps the call once",
            vec![
                (Push("```json\n{\"tool\": \"add\", \"arguments\": {\"b\": 2}}\n```\n"), &["add"], false),
                (Push("json\nCopy code\n{\"tool\": \"add\", \"arguments\": {\"b\": 2}}\n"), &[], false),
                (Finish, &[], false),
            ],
        ),
        (
            // The search for `-->` read the byte after the last `--` to rule it out; a re-render
            // that changes only that byte must be seen (found by the re-render property test).
            "a re-render that completes an HTML comment's `-->` closes it",
            vec![
                (Push("Note <!-- hidden --"), &[], false),
                (Push("Note <!-- hidden --a"), &[], false),
                (Push("Note <!-- hidden -->{\"tool\": \"add\", \"arguments\": {\"a\": 1}}"), &["add"], false),
                (Finish, &[], false),
            ],
        ),
        (
            // An inline code span still open at the end of the text: running again on the same
            // text must still wait for its closing backtick, not take the opening one as literal.
            "the same text pushed twice waits for an open code span both times",
            vec![
                (Push("See `{\"tool\": \"add\", \"arguments\": {}} here"), &[], false),
                (Push("See `{\"tool\": \"add\", \"arguments\": {}} here"), &[], false),
                (Push("See `{\"tool\": \"add\", \"arguments\": {}} here` is how."), &[], false),
                (Finish, &[], false),
            ],
        ),
        (
            // Ruling out `<!--` reads three bytes past the `<`: a re-render of the third alone
            // must reopen the question, or a call hidden in a comment would run.
            "a re-render that turns `<!-<` into a comment hides the call inside",
            vec![
                (Push("Note <!-<"), &[], false),
                (Push("Note <!-- {\"tool\": \"add\", \"arguments\": {\"a\": 1}} --> done"), &[], false),
                (Finish, &[], false),
            ],
        ),
        (
            // An open tool-name tag is dropped by what follows it: a re-render of that byte
            // must bring the tag back.
            "a re-render after a tool-name tag that writes its object keeps the call",
            vec![
                (Push("<add><"), &[], false),
                (Push("<add>{\"a\": 1}</add>"), &["add"], false),
                (Finish, &[], false),
            ],
        ),
        (
            "text after finish (a late re-render) is parsed as a finished message",
            vec![
                (Append("Result:"), &[], false),
                (Finish, &[], false),
                (Append(" {\"tool\": \"echo\", \"arguments\": {}"), &["echo"], false),
            ],
        ),
    ]
}

fn tools(update: &StreamUpdate) -> Vec<&str> {
    update.calls.iter().map(|c| c.tool.as_str()).collect()
}

#[test]
fn scenarios_report_calls_once_and_when_complete() {
    for (name, steps) in scenarios() {
        let mut parser = StreamParser::new(servers());
        for (i, (step, want_calls, want_pending)) in steps.into_iter().enumerate() {
            let update = match &step {
                Step::Append(s) => parser.append(s),
                Step::Push(s) => parser.push(s),
                Step::Finish => parser.finish(),
            };
            assert_eq!(
                tools(&update),
                want_calls,
                "{name}, step {i} ({step:?}): calls"
            );
            assert_eq!(
                update.pending, want_pending,
                "{name}, step {i} ({step:?}): pending"
            );
        }
        // Whatever the steps, what was reported is what a full parse of the final text finds
        // (spans excepted: a call keeps the span it had when it was reported).
        let ids = |calls: &[relay_core::parse::ToolCall]| {
            calls
                .iter()
                .map(|c| (c.call_id.clone(), c.arguments.clone()))
                .collect::<Vec<_>>()
        };
        let full = parse_tool_calls(parser.text(), &servers());
        assert_eq!(
            ids(parser.calls()),
            ids(&full.calls),
            "{name}: reported calls vs full parse"
        );
    }
}

#[test]
fn the_update_serialises_in_camel_case() {
    let mut parser = StreamParser::new(servers());
    let update = parser.append("{\"tool\": \"add\", \"arguments\": {\"a\": 1}, \"id\": \"k\"}");
    let v = serde_json::to_value(&update).expect("serialises");
    assert_eq!(
        v,
        json!({
            "calls": [{"tool": "add", "server": "demo", "arguments": {"a": 1}, "callId": "k", "span": {"start": 0, "end": 49}, "format": "tool"}],
            "pending": false,
            "diagnostics": []
        })
    );
}
