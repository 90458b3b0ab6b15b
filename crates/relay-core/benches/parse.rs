//! Tool-call parser benchmarks: one full parse of replies from 1 KB to 1 MB, a 100 KB reply
//! streamed in 1,000 appends (with and without one call carrying most of the reply), and one
//! full parse of each 1 MB adversarial reply (`parse_adversarial_1MB`; goal: < 50 ms each); with
//! 1,000 tools selected, a short reply with a tool-name tag and the app's reply updates.
//!
//! Inputs come from `relay_core::parse::bench_inputs`, the same the wasm benchmark uses.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::rc::Rc;

use relay_core::app::{bench_state_with_chat, bench_stream_reply, App};
use relay_core::model::ServerTools;
use relay_core::parse::{bench_inputs, parse_tool_calls, SelectedTools, StreamParser};
use relay_core::policy::Ledger;

fn full(c: &mut Criterion) {
    let servers = bench_inputs::servers();
    let mut group = c.benchmark_group("parse_full");
    let cases = [
        ("1KB", bench_inputs::reply_with_calls(1_000)),
        ("10KB", bench_inputs::reply_with_calls(10_000)),
        ("100KB", bench_inputs::reply_with_calls(100_000)),
        ("1MB", bench_inputs::reply_with_calls(1_000_000)),
        (
            "100KB_one_large_call",
            bench_inputs::reply_with_one_large_call(100_000),
        ),
    ];
    for (id, text) in &cases {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(id), text, |b, text| {
            b.iter(|| parse_tool_calls(black_box(text), &servers))
        });
    }
    group.finish();
}

fn stream(c: &mut Criterion) {
    // Shared, as the parsers of a chat's messages share their tool set.
    let servers: Rc<[ServerTools]> = bench_inputs::servers().into();
    let mut group = c.benchmark_group("parse_stream_1000_appends");
    let cases = [
        ("100KB", bench_inputs::reply_with_calls(100_000)),
        (
            "100KB_one_large_call",
            bench_inputs::reply_with_one_large_call(100_000),
        ),
    ];
    for (id, text) in &cases {
        let ends = bench_inputs::chunk_ends(text, 1_000);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(id), text, |b, text| {
            b.iter(|| {
                let mut parser = StreamParser::new(Rc::clone(&servers));
                let mut start = 0;
                for &end in &ends {
                    black_box(parser.append(&text[start..end]));
                    start = end;
                }
                parser.finish()
            })
        });
    }
    group.finish();
}

fn adversarial(c: &mut Criterion) {
    let servers = bench_inputs::servers();
    let mut group = c.benchmark_group("parse_adversarial_1MB");
    // A quadratic case would take seconds per parse: keep the sample small.
    group.sample_size(10);
    for name in bench_inputs::all_adversarial() {
        let Some(text) = bench_inputs::adversarial(name, 1_000_000) else {
            continue;
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| parse_tool_calls(black_box(text), &servers))
        });
    }
    group.finish();
}

/// With 1,000 tools selected: a short reply with one tool-name tag parsed on its own (the index
/// of tool names built again) and through a [`SelectedTools`] (built once); and the app's updates
/// for the 100 KB reply in 1,000 appends (the extension's `reply/update` path).
fn many_tools(c: &mut Criterion) {
    let servers = relay_core::prompt::bench_tools(1_000);
    let tool = &servers[0].tools[0].name;
    let reply = format!("Saving it.\n\n<{tool}>\n{{\"title\": \"a\"}}\n</{tool}>\n");
    let selection = SelectedTools::new(servers.clone());
    let mut group = c.benchmark_group("parse_1000_tools");
    group.bench_function("one_tag_reply", |b| {
        b.iter(|| parse_tool_calls(black_box(&reply), &servers))
    });
    group.bench_function("one_tag_reply_selection", |b| {
        b.iter(|| selection.parse(black_box(&reply)))
    });
    let (config, tools) = bench_state_with_chat(&servers);
    let text = bench_inputs::reply_with_calls(100_000);
    let ends = bench_inputs::chunk_ends(&text, 1_000);
    group.sample_size(20);
    group.bench_function("app_reply_updates_100KB_1000_appends", |b| {
        b.iter_batched(
            || App::restore(config.clone(), tools.clone(), Ledger::default()).0,
            |mut app| bench_stream_reply(&mut app, "m", &text, &ends),
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, full, stream, adversarial, many_tools);
criterion_main!(benches);
