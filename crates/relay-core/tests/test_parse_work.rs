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

/// Bytes a reply of `len` bytes may cost on adversarial input, in a full parse or streamed in
/// appends. Text after constructs that never close is read once per kind left open when the
/// message ends: the prose scan, the searches for a closing tag, `-->` and a closing fence, and
/// an open call object's braces and repair (`every_kind_open_then_prose`: 6.00×)...
const ADVERSARIAL_FACTOR: u64 = 6;
/// ...and streamed with a re-render at every step (each restarts from a recent checkpoint;
/// the same shape: 7.58×).
const RERENDER_FACTOR: u64 = 8;

/// Every adversarial shape at growing sizes (smallest first, so a quadratic scanner fails fast):
/// a full parse and 1,000 appends (then finish) inspect at most `ADVERSARIAL_FACTOR` bytes per
/// byte of the reply, pushes each after a re-render of the tail at most `RERENDER_FACTOR`; the
/// appends report what the full parse reports, the pushes at least its calls.
#[test]
fn adversarial_replies_cost_linear_work() {
    let servers = bench_inputs::servers();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for size in [4_000, 32_000, 128_000] {
        for name in bench_inputs::all_adversarial() {
            let text = bench_inputs::adversarial(name, size).expect("a known name");
            let len = text.len() as u64;
            let want = relay_core::parse::parse_tool_calls(&text, &servers);
            let full = full_parse_work(&text, &servers);

            let mut parser = StreamParser::new(servers.clone());
            let mut start = 0;
            for end in bench_inputs::chunk_ends(&text, 1_000) {
                parser.append(&text[start..end]);
                start = end;
            }
            parser.finish();
            let appended = parser.work();
            assert_eq!(
                parser.output(),
                want,
                "{name}: appends disagree with a full parse"
            );

            // A re-render restarts from a recent checkpoint, a bounded distance back: a constant
            // per step, so the steps here are of ~100 bytes (as 1,000 steps of a 100 KB reply).
            let steps = text.len() / 100;
            let mut parser = StreamParser::new(servers.clone());
            for end in bench_inputs::chunk_ends(&text, steps) {
                // Known limit: after a backtick run the label line closes an open block, and
                // the re-rendered text really holds a closed block to read, as large as the
                // reply so far (block contents are read when the block closes).
                if !text[..end].ends_with('`') {
                    parser.push(&format!("{}\nCopy code\n", &text[..end]));
                }
                parser.push(&text[..end]);
            }
            parser.finish();
            let rerendered = parser.work();
            for call in &want.calls {
                assert!(
                    parser.calls().iter().any(|c| c.call_id == call.call_id),
                    "{name}: a call of the full parse was not reported after re-renders"
                );
            }

            let line = format!(
                "{name} {len} B: full {:.2}×, 1,000 appends {:.2}×, {steps} re-renders {:.2}×",
                full as f64 / len as f64,
                appended as f64 / len as f64,
                rerendered as f64 / len as f64
            );
            if full.max(appended) > ADVERSARIAL_FACTOR * len || rerendered > RERENDER_FACTOR * len {
                failures.push(line.clone());
            }
            report.push(line);
        }
        // A quadratic scanner would take minutes on the larger sizes: stop at the first failure.
        assert!(
            failures.is_empty(),
            "more than {ADVERSARIAL_FACTOR}× ({RERENDER_FACTOR}× with re-renders) the reply's length inspected:\n{}",
            failures.join("\n")
        );
    }
    println!("{}", report.join("\n"));
}

#[test]
fn every_adversarial_name_builds_a_reply_of_about_its_size() {
    for name in bench_inputs::all_adversarial() {
        let text = bench_inputs::adversarial(name, 10_000).expect("a known name");
        assert!(
            (10_000..12_000).contains(&text.len()),
            "{name}: {} bytes",
            text.len()
        );
    }
    assert!(bench_inputs::adversarial("no such shape", 10).is_none());
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

/// Not a test: the work ratio and best time of a full parse of every adversarial reply.
/// `cargo test --release -p relay-core --test test_parse_work probe_adversarial -- --ignored --nocapture`
/// (`PROBE_SIZES=100000,200000`, `PROBE_NAMES=a,b` to choose).
#[test]
#[ignore = "timing probe; run explicitly in release mode"]
fn probe_adversarial() {
    let servers = bench_inputs::servers();
    let sizes: Vec<usize> = std::env::var("PROBE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000, 200_000, 1_000_000]);
    let names: Vec<String> = std::env::var("PROBE_NAMES")
        .ok()
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_else(|| bench_inputs::all_adversarial().map(str::to_owned).collect());
    for &size in &sizes {
        for name in &names {
            let text = bench_inputs::adversarial(name, size).expect("a known name");
            let work = full_parse_work(&text, &servers);
            let mut best = std::time::Duration::MAX;
            let started = std::time::Instant::now();
            // Fewer repetitions when one parse is slow: the probe must end.
            while started.elapsed() < std::time::Duration::from_millis(300) {
                let t = std::time::Instant::now();
                std::hint::black_box(relay_core::parse::parse_tool_calls(&text, &servers));
                best = best.min(t.elapsed());
            }
            println!(
                "{name} {} B: work {:.2}×, full parse best {best:?}",
                text.len(),
                work as f64 / text.len() as f64
            );
        }
    }
}
