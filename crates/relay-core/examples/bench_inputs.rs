//! Writes the parser and prompt benchmark inputs to a folder, so the wasm benchmarks in Node
//! (`tests/bench/wasm.bench.mjs`) measure exactly what the native criterion benchmarks measure.
//!
//! `cargo run -p relay-core --example bench_inputs -- <dir>` (run by `cargo xtask bench`).

use std::path::PathBuf;

use relay_core::parse::bench_inputs;
use relay_core::prompt::bench_tools;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/bench/inputs".to_owned()),
    );
    std::fs::create_dir_all(&dir)?;
    let servers = serde_json::to_string(&bench_inputs::servers()).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("servers.json"), servers)?;
    for (name, size) in [
        ("1KB", 1_000),
        ("10KB", 10_000),
        ("100KB", 100_000),
        ("1MB", 1_000_000),
    ] {
        std::fs::write(
            dir.join(format!("reply_{name}.txt")),
            bench_inputs::reply_with_calls(size),
        )?;
    }
    for (name, size) in [("100KB", 100_000), ("1MB", 1_000_000)] {
        std::fs::write(
            dir.join(format!("reply_{name}_one_large_call.txt")),
            bench_inputs::reply_with_one_large_call(size),
        )?;
    }
    // 1 MB with a call every ~4.4 KB: 205 calls.
    std::fs::write(
        dir.join("reply_1MB_many_calls.txt"),
        bench_inputs::reply_with_calls_every(1_000_000, 4400),
    )?;
    // The adversarial replies, 1 MB each: `adversarial/<name>_1MB.txt`.
    let adversarial = dir.join("adversarial");
    std::fs::create_dir_all(&adversarial)?;
    for name in bench_inputs::all_adversarial() {
        if let Some(text) = bench_inputs::adversarial(name, 1_000_000) {
            std::fs::write(adversarial.join(format!("{name}_1MB.txt")), text)?;
        }
    }
    let tools = serde_json::to_string(&bench_tools(1_000)).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("tools_1000.json"), tools)?;
    println!("{}", dir.display());
    Ok(())
}
