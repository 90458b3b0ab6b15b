//! Prompt generation speed: the two reference tool sets and 1,000 generated tools.
//!
//! Ids: `prompt/everything`, `prompt/tools100`, `prompt/1000_tools` (a prompt from the tool
//! definitions; the wasm bench in Node measures the same inputs through
//! `relay_core::prompt::bench_tools`), `prompt_rebuild/1000_tools` (a prompt with other
//! options from tools rendered once: `PreparedTools::prompt`), and the extension's
//! `prompt/build` for a chat's 1,000 tools (`App::prompt`): `prompt_app/1000_tools_first` on an
//! app that has not rendered them yet, `prompt_app/1000_tools_again` on one that has.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use relay_core::app::{bench_state, App};
use relay_core::model::{ServerTools, Tool};
use relay_core::policy::Ledger;
use relay_core::prompt::{
    bench_tools, prepare_for_servers, prompt_for_servers, PromptOptions, Strategy,
};

fn fixture(file: &str, server: &str) -> Vec<ServerTools> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/prompts")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tools: Vec<Tool> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    vec![ServerTools::new(server, server, tools)]
}

fn bench(c: &mut Criterion) {
    let options = PromptOptions::default();
    let mut group = c.benchmark_group("prompt");
    let inputs = [
        ("everything", fixture("everything-tools.json", "everything")),
        ("tools100", fixture("tools100.json", "bench")),
        ("1000_tools", bench_tools(1_000)),
    ];
    for (id, servers) in &inputs {
        let tools: usize = servers.iter().map(|s| s.tools.len()).sum();
        group.throughput(Throughput::Elements(tools as u64));
        group.bench_function(*id, |b| {
            b.iter(|| prompt_for_servers(black_box(servers), black_box(&options)))
        });
    }
    group.finish();

    let servers = bench_tools(1_000);
    let prepared = prepare_for_servers(&servers).expect("tools");
    let mut forced = PromptOptions::default();
    forced.strategy = Strategy::ToolForced;
    forced.custom_instructions = Some("Answer briefly.".to_owned());
    let mut group = c.benchmark_group("prompt_rebuild");
    group.bench_function("1000_tools", |b| {
        b.iter(|| prepared.prompt(black_box(&forced)))
    });
    group.finish();

    // The extension's path: the app keeps the tools per server and renders a selection once.
    let (config, tools, ids) = bench_state(&servers);
    let fresh = || App::restore(config.clone(), tools.clone(), Ledger::default()).0;
    let mut group = c.benchmark_group("prompt_app");
    group.bench_function("1000_tools_first", |b| {
        // `_ref`: the app is dropped outside the measurement.
        b.iter_batched_ref(
            fresh,
            |app| app.prompt(None, black_box(&ids), None),
            BatchSize::LargeInput,
        )
    });
    let app = fresh();
    app.prompt(None, &ids, None);
    group.bench_function("1000_tools_again", |b| {
        b.iter(|| app.prompt(None, black_box(&ids), None))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
