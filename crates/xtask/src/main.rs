//! `cargo xtask`: MCP Relay's build automation, one small Rust binary instead of shell scripts.
//!
//! Commands: `setup`, `build`, `codegen`, `test`, `demo`, `bench`, `size`, `dist`, `fuzz`, `conformance`,
//! `sweep`, `install-host`.
//! Every command that needs tools runs `setup` first; setup is idempotent and checks before it
//! installs, so a second run is a no-op in seconds.

mod bench;
mod build;
mod codegen;
mod fuzz;
mod host;
mod setup;
mod size;
mod test;
mod tidy;
mod util;

use std::process::ExitCode;

use util::{Result, Xtask};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  setup        install what the build and tests need (idempotent)
  build        build the wasm core into extension/pkg and target/relay-node
  codegen      write extension/contract.js, the manifest's site lists and sites.js's HOSTS from the
               contract (`--check`: fail naming stale files; `--root DIR`: another copy of the repo)
  test         run every test: codegen, tidy, lint (fmt, clippy), types (tsc), native, wasm (in a service
               worker), browser end-to-end, interop
               (one suite: `test codegen|tidy|lint|types|native|wasm|node`)
  demo         run the whole tool loop on bundled defaults (headless: prints steps, saves screenshots)
               (`demo --screenshots DIR`: headless, the screenshots and their manifest.json into DIR,
               e.g. docs/screenshots)
  bench        run the benchmarks and write target/bench/summary.json
               (`bench --quick`: every figure once, with short measurements; a smoke run;
               `--competitor NAME=DIR`, repeatable, NAME one of deepseek-pp, superassistant,
               gemini-nexus: that extension's parsers, bundled from a local checkout, side by side
               with ours)
  size         the wasm module's bytes per crate and function (tests/bench/wasm-size.mjs --build),
               naming the crates above their baseline (crates/xtask/src/size.rs); tidy fails when
               the gzipped module is over its budget (crates/xtask/src/tidy.rs, WASM_GZIP_BUDGET)
  dist         package the extension as a zip under target/dist
  fuzz         fuzz the parser and the wire decoders for FUZZ_SECONDS (default 60): seeded
               mutation rounds and property tests on stable Rust, a new seed each round
               (`fuzz --libfuzzer`: the cargo-fuzz target)
  conformance  run the official MCP client conformance suite (prints `N passed, N failed`)
  sweep        the tool loop on generated chat pages (tests/fixtures/generated), N random seeds
               (`--seeds N`, default 200; `--seed S` repeatable; `--jobs J` pages at a time)
               with a table per dimension value in target/sweep/summary.md
  install-host register the native messaging host (local stdio servers) with Chrome and Chromium
               for the current user (idempotent; `--uninstall` removes it)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let x = match Xtask::new() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("xtask: {e}");
            return ExitCode::FAILURE;
        }
    };
    let rest = &args[1..];
    let result: Result<()> = match command.as_str() {
        "setup" => setup::setup(&x),
        "build" => setup::setup(&x)
            .and_then(|()| build::build(&x))
            .and_then(|()| host::build_host(&x)),
        "codegen" => codegen::codegen(&x.root, rest),
        "test" => test::test(&x, rest),
        "demo" => test::demo(&x, rest),
        "bench" => bench::bench(&x, rest),
        "size" => setup::setup(&x).and_then(|()| size::size(&x)),
        "dist" => setup::setup(&x)
            .and_then(|()| build::build(&x))
            .and_then(|()| build::dist(&x)),
        "fuzz" => fuzz::fuzz(&x, rest),
        "conformance" => test::conformance(&x),
        "sweep" => test::sweep(&x, rest),
        "install-host" => host::install_host(&x, rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}").into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {command}: {e}");
            ExitCode::FAILURE
        }
    }
}
