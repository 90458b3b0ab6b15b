//! Fixed-iteration loops over the benchmark inputs, for comparing two builds side by side on a
//! loaded machine (best of N, printed to stderr) and for instruction counts under
//! `valgrind --tool=callgrind`, which load does not change:
//!
//! `cargo build --release -p relay-core --example bench_probe`, then
//! `target/release/examples/bench_probe prompt|convert|app|updates|append|stream|full|dump N [large]`:
//! a first render of 1,000 tools; reading them from JSON text; the extension's `prompt/build` for them (`App::prompt`, first
//! and again); `updates`, the app's updates for the 100 KB reply in 1,000 appends in a chat
//! with 1,000 tools selected; 10,000 one-byte appends to one parser; the 100 KB reply (or,
//! with `large`, the one with a 90 KB call; `large1m`, one 1 MB call; `many`, 1 MB with 205
//! calls; `toolTag`, `jsonl`, `xml` or `json`, 1 MB in that competitor's format with 205 calls,
//! or `FORMAT:N` with N calls, as `tests/bench/competitors.bench.mjs` writes them) in 1,000
//! appends; the same in one parse; `dump N`: the first render of N tools, printed with its
//! counts (to compare two builds byte for byte).
use std::hint::black_box;
use std::rc::Rc;

use relay_core::app::{bench_state, bench_state_with_chat, bench_stream_reply, App};
use relay_core::model::ServerTools;
use relay_core::parse::{bench_inputs, StreamParser};
use relay_core::policy::Ledger;
use relay_core::prompt::{bench_tools, prepare_for_servers, PromptOptions};

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    match what.as_str() {
        "prompt" => {
            let servers = bench_tools(1_000);
            let t = std::time::Instant::now();
            let mut best = f64::MAX;
            for _ in 0..n {
                let s = std::time::Instant::now();
                black_box(
                    prepare_for_servers(black_box(&servers))
                        .and_then(|p| p.prompt(&PromptOptions::default())),
                );
                best = best.min(s.elapsed().as_secs_f64());
            }
            eprintln!("prompt: best {:.3} ms, total {:?}", best * 1e3, t.elapsed());
        }
        "convert" => {
            // The 1,000 tools read from their JSON text, as the Node build reads a `servers`
            // array (`JSON.stringify` in JavaScript, then serde_json).
            let text = serde_json::to_string(&bench_tools(1_000)).unwrap_or_default();
            let mut best = f64::MAX;
            for _ in 0..n {
                let s = std::time::Instant::now();
                black_box(serde_json::from_str::<Vec<ServerTools>>(black_box(&text)).ok());
                best = best.min(s.elapsed().as_secs_f64());
            }
            eprintln!("convert: best {:.3} ms ({} bytes)", best * 1e3, text.len());
        }
        "append" => {
            let servers: Rc<[ServerTools]> = bench_inputs::servers().into();
            let mut best = f64::MAX;
            for _ in 0..n {
                let s = std::time::Instant::now();
                let mut p = StreamParser::new(Rc::clone(&servers));
                for _ in 0..10_000 {
                    black_box(p.append("a"));
                }
                best = best.min(s.elapsed().as_secs_f64());
            }
            eprintln!("append: best {:.1} ns per append", best * 1e9 / 10_000.0);
        }
        "stream" | "full" => {
            let servers: Rc<[ServerTools]> = bench_inputs::servers().into();
            let which = std::env::args().nth(3).unwrap_or_default();
            let text = match which.as_str() {
                "large" => bench_inputs::reply_with_one_large_call(100_000),
                "large1m" => bench_inputs::reply_with_one_large_call(1_000_000),
                "many" => bench_inputs::reply_with_calls_every(1_000_000, 4_400),
                other => match other.split_once(':').unwrap_or((other, "205")) {
                    (format, calls) if bench_inputs::COMPETITOR_FORMATS.contains(&format) => {
                        bench_inputs::competitor_reply(
                            format,
                            1 << 20,
                            calls.parse().unwrap_or(205),
                        )
                    }
                    _ => bench_inputs::reply_with_calls(100_000),
                },
            };
            let ends = bench_inputs::chunk_ends(&text, 1_000);
            let mut best = f64::MAX;
            for _ in 0..n {
                let s = std::time::Instant::now();
                if what == "full" {
                    black_box(relay_core::parse::parse_tool_calls(&text, &servers));
                } else {
                    let mut p = StreamParser::new(Rc::clone(&servers));
                    let mut start = 0;
                    for &end in &ends {
                        black_box(p.append(&text[start..end]));
                        start = end;
                    }
                    black_box(p.finish());
                }
                best = best.min(s.elapsed().as_secs_f64());
            }
            let calls = relay_core::parse::parse_tool_calls(&text, &servers)
                .calls
                .len();
            eprintln!(
                "{what} {which}: best {:.1} µs, {:.0} MB/s, {calls} calls",
                best * 1e6,
                text.len() as f64 / best / 1e6
            );
        }
        "updates" => {
            // The extension's `reply/update` path: the app's updates for the 100 KB reply in
            // 1,000 appends, in a chat that selected the servers of 1,000 tools.
            let servers = bench_tools(1_000);
            let (config, tools) = bench_state_with_chat(&servers);
            let text = bench_inputs::reply_with_calls(100_000);
            let ends = bench_inputs::chunk_ends(&text, 1_000);
            let mut best = f64::MAX;
            for round in 0..n {
                let (mut app, _) = App::restore(config.clone(), tools.clone(), Ledger::default());
                let s = std::time::Instant::now();
                bench_stream_reply(&mut app, &format!("m{round}"), &text, &ends);
                best = best.min(s.elapsed().as_secs_f64());
            }
            eprintln!("app updates: best {:.3} ms for 1,000 appends", best * 1e3);
        }
        "app" => {
            // The extension's `prompt/build`: App::prompt for a chat's selection of 1,000 tools,
            // on a new app (the first render) and again on the same app (its cached render).
            let servers = bench_tools(1_000);
            let (config, tools, ids) = bench_state(&servers);
            let (mut first, mut again) = (f64::MAX, f64::MAX);
            for _ in 0..n {
                let (app, _) = App::restore(config.clone(), tools.clone(), Ledger::default());
                let s = std::time::Instant::now();
                black_box(app.prompt(None, black_box(&ids), None));
                first = first.min(s.elapsed().as_secs_f64());
                let s = std::time::Instant::now();
                black_box(app.prompt(None, black_box(&ids), None));
                again = again.min(s.elapsed().as_secs_f64());
            }
            eprintln!(
                "app prompt: first best {:.3} ms, again best {:.3} ms",
                first * 1e3,
                again * 1e3
            );
        }
        "dump" => {
            // The first render's text and counts, to compare two builds byte for byte.
            let servers = bench_tools(n);
            if let Some(p) =
                prepare_for_servers(&servers).and_then(|p| p.prompt(&PromptOptions::default()))
            {
                println!(
                    "{}\n--- chars {} tokens {} tools {} diagnostics {:?}",
                    p.text, p.chars, p.tokens_estimate, p.tools, p.diagnostics
                );
            }
        }
        _ => eprintln!("usage: bench_probe prompt|convert|app|append|stream|full|dump N [large]"),
    }
}
