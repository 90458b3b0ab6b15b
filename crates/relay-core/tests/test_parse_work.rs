//! The streaming parser's work is linear: a reply streamed in 1,000 steps costs at most 3× one
//! full parse of it, counted in bytes inspected (not time, so the test is exact and stable).
//! Checked on the benchmark replies (including one whose single call is 90% of the text) and on
//! hostile shapes that make naive scanners quadratic.

use relay_core::parse::{bench_inputs, full_parse_work, StreamParser};

fn inputs() -> Vec<(&'static str, String)> {
    vec![
        ("100KB", bench_inputs::reply_with_calls(100_000)),
        (
            "100KB_one_large_call",
            bench_inputs::reply_with_one_large_call(100_000),
        ),
        ("open_braces", "{".repeat(100_000)),
        (
            "stray_brace_then_prose",
            format!("{{ {}", "word \"quoted\" ".repeat(7_000)),
        ),
        (
            "unterminated_string",
            format!(
                "{{\"tool\": \"notes_add\", \"arguments\": {{\"body\": \"{}",
                "a".repeat(100_000)
            ),
        ),
        (
            "one_line_fenced_call",
            format!(
                "```json\n{{\"tool\": \"echo\", \"arguments\": {{\"message\": \"{}\"}}}}\n```\n",
                "x".repeat(100_000)
            ),
        ),
        (
            "unclosed_fence",
            format!("```json\n{}", "line of text\n".repeat(8_000)),
        ),
        ("angle_brackets", "a <b c".repeat(17_000)),
        ("backticks", "a `b c".repeat(17_000)),
        (
            "unclosed_tag",
            format!("<tool_call>{}", "<p>text</p> ".repeat(8_000)),
        ),
        (
            "unclosed_comment",
            format!("<!-- {}", "- - > ".repeat(17_000)),
        ),
    ]
}

fn streamed_work(text: &str, pieces: usize, by_push: bool) -> u64 {
    let mut parser = StreamParser::new(bench_inputs::servers());
    let mut start = 0;
    for end in bench_inputs::chunk_ends(text, pieces) {
        if by_push {
            parser.push(&text[..end]);
        } else {
            parser.append(&text[start..end]);
        }
        start = end;
    }
    parser.finish();
    parser.work()
}

#[test]
fn a_full_parse_is_linear_in_the_text() {
    for (name, text) in inputs() {
        let work = full_parse_work(&text, &bench_inputs::servers());
        assert!(
            work >= text.len() as u64 / 2,
            "{name}: a full parse inspected only {work} bytes of {}",
            text.len()
        );
        assert!(
            work <= 3 * text.len() as u64,
            "{name}: a full parse inspected {work} bytes of {}",
            text.len()
        );
    }
}

#[test]
fn streaming_in_1000_steps_costs_at_most_three_full_parses() {
    let mut report = Vec::new();
    for (name, text) in inputs() {
        let full = full_parse_work(&text, &bench_inputs::servers());
        for by_push in [false, true] {
            let streamed = streamed_work(&text, 1_000, by_push);
            let ratio = streamed as f64 / full as f64;
            report.push(format!(
                "{name} ({}): {ratio:.2}×",
                if by_push { "push" } else { "append" }
            ));
            assert!(
                ratio <= 3.0,
                "{name}: streamed in 1,000 {} the parser inspected {streamed} bytes, {ratio:.2}× the {full} of one full parse",
                if by_push { "pushes" } else { "appends" },
            );
        }
    }
    println!("{}", report.join("\n"));
}

/// A site that re-renders the end of the message at every step (a label appears, then the text
/// goes on): each rewrite restarts from where the previous step stopped, not from far back.
#[test]
fn a_rerender_at_every_step_costs_little() {
    for (name, text) in inputs() {
        let full = full_parse_work(&text, &bench_inputs::servers());
        let mut parser = StreamParser::new(bench_inputs::servers());
        for end in bench_inputs::chunk_ends(&text, 1_000) {
            parser.push(&format!("{}\nCopy code\n", &text[..end]));
            parser.push(&text[..end]);
        }
        parser.finish();
        let ratio = parser.work() as f64 / full as f64;
        println!("{name} (push, re-render at every step): {ratio:.2}×");
        assert!(
            ratio <= 3.0,
            "{name}: 1,000 steps each with a re-render cost {ratio:.2}× a full parse"
        );
    }
}

#[test]
fn work_stays_linear_with_ten_times_more_steps() {
    let text = bench_inputs::reply_with_calls(100_000);
    let full = full_parse_work(&text, &bench_inputs::servers());
    let streamed = streamed_work(&text, 10_000, false);
    assert!(
        streamed <= 3 * full,
        "10,000 appends: {streamed} bytes inspected vs {full} for one full parse"
    );
}

/// Not a test: the best time of many full parses, a figure robust to a busy machine.
/// `cargo test --release -p relay-core --test test_parse_work -- --ignored --nocapture`
#[test]
#[ignore = "timing probe; run explicitly in release mode"]
fn probe_best_full_parse_times() {
    let servers = bench_inputs::servers();
    let shared: std::rc::Rc<[relay_core::model::ServerTools]> = servers.clone().into();
    for (name, text) in [
        ("1MB", bench_inputs::reply_with_calls(1_000_000)),
        ("100KB", bench_inputs::reply_with_calls(100_000)),
        (
            "100KB_one_large_call",
            bench_inputs::reply_with_one_large_call(100_000),
        ),
    ] {
        let mut best = std::time::Duration::MAX;
        for _ in 0..200 {
            let t = std::time::Instant::now();
            let out = relay_core::parse::parse_tool_calls(&text, &servers);
            best = best.min(t.elapsed());
            assert!(!out.calls.is_empty());
        }
        let mbps = text.len() as f64 / best.as_secs_f64() / 1e6;
        let ends = bench_inputs::chunk_ends(&text, 1_000);
        let mut best_stream = std::time::Duration::MAX;
        for _ in 0..100 {
            let t = std::time::Instant::now();
            let mut parser = StreamParser::new(std::rc::Rc::clone(&shared));
            let mut start = 0;
            for &end in &ends {
                parser.append(&text[start..end]);
                start = end;
            }
            parser.finish();
            best_stream = best_stream.min(t.elapsed());
        }
        let ratio = best_stream.as_secs_f64() / best.as_secs_f64();
        println!("{name}: full parse best {best:?} ({mbps:.0} MB/s); 1,000 appends best {best_stream:?} ({ratio:.2}×)");
    }
}
