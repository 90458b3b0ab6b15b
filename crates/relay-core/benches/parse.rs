//! Tool-call parser benchmarks: one full parse of replies from 1 KB to 1 MB, a 100 KB reply
//! streamed in 1,000 appends (with and without one call carrying most of the reply), and one
//! full parse of each 1 MB adversarial reply (`parse_adversarial_1MB`; goal: < 50 ms each).
//!
//! Inputs come from `relay_core::parse::bench_inputs`, the same the wasm benchmark uses.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::rc::Rc;

use relay_core::model::ServerTools;
use relay_core::parse::{bench_inputs, parse_tool_calls, StreamParser};

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

criterion_group!(benches, full, stream, adversarial);
criterion_main!(benches);
