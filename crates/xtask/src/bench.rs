//! `cargo xtask bench`: the criterion benchmarks of relay-core (native), then every
//! `tests/bench/*.bench.mjs` script (the same inputs through the wasm build in Node, token counts,
//! browser figures), merged into `target/bench/summary.json` as
//! `{"figure name": {"value": N, "unit": "…"}}`; it also prints the wasm module's bytes per crate
//! and the crates above their baseline (`cargo xtask size`).
//!
//! `bench --quick` produces every figure once with short measurements (criterion: 10 samples of
//! ~0.1 s, built with the dev profile the test suite already compiled, so native figures are
//! unoptimised; the browser scripts: a couple of runs each): a check that the benchmarks work,
//! not figures to report. Its criterion data lives apart (`target/bench/criterion-quick`) so that it
//! never mixes with a full run's.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::util::{cmd, run, run_capture, step, Result, Xtask};

/// What `cargo xtask bench` was asked for.
#[derive(Debug, PartialEq)]
struct Options {
    quick: bool,
    /// `NAME=DIR` items, each a local checkout of a competing extension, whose parsers
    /// `tests/bench/competitors.bench.mjs` bundles and measures side by side with ours: the
    /// environment's RELAY_BENCH_COMPETITORS (comma-separated) first, then one per
    /// `--competitor NAME=DIR`, as many as given.
    competitors: Vec<String>,
}

fn options(args: &[String], env_competitors: Option<String>) -> Result<Options> {
    let mut quick = false;
    let mut competitors: Vec<String> = env_competitors
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--competitor" => match it.next() {
                Some(spec)
                    if spec
                        .split_once('=')
                        .is_some_and(|(n, d)| !n.is_empty() && !d.is_empty()) =>
                {
                    competitors.push(spec.clone())
                }
                _ => return Err("--competitor needs NAME=DIR (a local checkout)".into()),
            },
            other => {
                return Err(format!(
                    "unknown bench option '{other}' (--quick, --competitor NAME=DIR)"
                )
                .into())
            }
        }
    }
    Ok(Options { quick, competitors })
}

pub fn bench(x: &Xtask, args: &[String]) -> Result<()> {
    let Options { quick, competitors } =
        options(args, std::env::var("RELAY_BENCH_COMPETITORS").ok())?;
    crate::setup::setup(x)?;
    crate::build::build(x)?;
    // The browser figures run the loop against the demo MCP server.
    crate::test::build_demo_server(x)?;
    // tests/bench/host-bridge.bench.mjs runs the native host.
    crate::host::build_host(x)?;
    let mut summary: BTreeMap<String, Value> = BTreeMap::new();

    let benches: Vec<String> = ["parse", "prompt"]
        .into_iter()
        .filter(|b| {
            x.path(&format!("crates/relay-core/benches/{b}.rs"))
                .exists()
        })
        .map(str::to_owned)
        .collect();
    if !benches.is_empty() {
        step(&format!("bench: criterion (native) {}", benches.join(", ")));
        let mut c = cmd("cargo");
        if quick {
            // The test build's profile and feature set (`cargo test --workspace`): nothing new
            // to compile after the test suite, at the price of unoptimised native figures.
            c.args(["bench", "--workspace", "--profile", "dev"]);
        } else {
            c.args(["bench", "-p", "relay-core"]);
        }
        for b in &benches {
            c.args(["--bench", b]);
        }
        let criterion_dir = if quick {
            let dir = x.target().join("bench/criterion-quick");
            // criterion's own output directory setting; a quick run starts from nothing.
            let _ = fs::remove_dir_all(&dir);
            c.env("CRITERION_HOME", &dir).args([
                "--",
                "--warm-up-time",
                "0.05",
                "--measurement-time",
                "0.1",
                "--sample-size",
                "10",
                "--noplot",
            ]);
            dir
        } else {
            x.target().join("criterion")
        };
        run(c.current_dir(&x.root))?;
        collect_criterion(&criterion_dir, &mut summary)?;
    }

    let wasm = x.path("extension/pkg/relay_wasm_bg.wasm");
    let bytes = fs::read(&wasm)?;
    summary.insert(
        "wasm size (optimised)".into(),
        json!({"value": bytes.len() / 1024, "unit": "KB"}),
    );
    summary.insert(
        "wasm size (optimised, gzipped)".into(),
        json!({"value": crate::build::gzip_len(&bytes)? / 1024, "unit": "KB"}),
    );

    // Where the module's bytes go, per crate, and the crates above their baseline (a build of
    // relay-wasm with its names kept: a full run's, not a smoke run's).
    if quick {
        step("bench: module bytes per crate skipped (--quick): cargo xtask size");
    } else {
        crate::size::size(x)?;
    }

    // The wasm benchmarks read the very inputs the native ones use.
    let inputs = x.target().join("bench/inputs");
    step("bench: writing the benchmark inputs (relay-core example bench_inputs)");
    // The inputs are the same whichever profile writes them; quick mode reuses the test build
    // (`--workspace` keeps its feature set).
    let (profile, dir) = if quick {
        ("dev", "debug")
    } else {
        ("release", "release")
    };
    run(cmd("cargo")
        .args([
            "build",
            "--quiet",
            "--workspace",
            "--profile",
            profile,
            "--example",
            "bench_inputs",
        ])
        .current_dir(&x.root))?;
    run(cmd(x.target().join(dir).join("examples/bench_inputs"))
        .arg(&inputs)
        .current_dir(&x.root))?;

    let dir = x.path("tests/bench");
    let mut scripts: Vec<_> = fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.retain(|p: &std::path::PathBuf| p.to_string_lossy().ends_with(".bench.mjs"));
    scripts.sort();
    for script in scripts {
        step(&format!(
            "bench: node {}",
            script.strip_prefix(&x.root).unwrap_or(&script).display()
        ));
        let mut c = cmd("node");
        if quick {
            // The scripts' own repetition settings (read from the environment).
            c.env("PANEL_BENCH_LOADS", "2")
                .env("SITES_BENCH_RUNS", "1")
                .env("DEMO_BENCH_CALLS", "30");
        }
        let (ok, out) = run_capture(
            c.arg(&script)
                .current_dir(&x.root)
                .env("RELAY_ROOT", &x.root)
                .env("RELAY_TARGET", x.target())
                .env("RELAY_BENCH_COMPETITORS", competitors.join(","))
                .env(
                    "RELAY_DEMO_SERVER",
                    x.target().join("debug/relay-demo-server"),
                ),
        )?;
        if !ok {
            return Err(format!("{} failed", script.display()).into());
        }
        let last = out
            .lines()
            .rev()
            .find(|l| l.trim_start().starts_with('{'))
            .ok_or("bench script printed no JSON")?;
        let figures: BTreeMap<String, Value> = serde_json::from_str(last)?;
        summary.extend(figures);
    }

    let out_dir = x.target().join("bench");
    fs::create_dir_all(&out_dir)?;
    let text = serde_json::to_string_pretty(&summary)?;
    fs::write(out_dir.join("summary.json"), &text)?;
    println!("{text}");
    eprintln!("written to {}", out_dir.join("summary.json").display());
    Ok(())
}

/// Reads criterion's `new/estimates.json` for every benchmark id and records its mean time;
/// where the benchmark declared a byte throughput, records MB/s as well.
fn collect_criterion(dir: &Path, summary: &mut BTreeMap<String, Value>) -> Result<()> {
    let mut found = Vec::new();
    find_estimates(dir, &mut found)?;
    for est in found {
        let bench_dir = est
            .parent()
            .and_then(Path::parent)
            .ok_or("bad criterion layout")?;
        let meta: Value =
            serde_json::from_str(&fs::read_to_string(bench_dir.join("new/benchmark.json"))?)?;
        let id = meta["full_id"].as_str().unwrap_or("?").to_owned();
        let e: Value = serde_json::from_str(&fs::read_to_string(&est)?)?;
        let ns = e["mean"]["point_estimate"].as_f64().unwrap_or(f64::NAN);
        summary.insert(
            format!("{id} (native)"),
            json!({"value": round(ns / 1e6, 4), "unit": "ms"}),
        );
        if let Some(bytes) = meta["throughput"]["Bytes"].as_f64() {
            summary.insert(
                format!("{id} throughput (native)"),
                json!({"value": round(bytes / (ns / 1e9) / 1e6, 1), "unit": "MB/s"}),
            );
        }
    }
    let ratio = |stream: &str, full: &str, s: &BTreeMap<String, Value>| -> Option<f64> {
        let a = s.get(&format!("{stream} (native)"))?["value"].as_f64()?;
        let b = s.get(&format!("{full} (native)"))?["value"].as_f64()?;
        Some(round(a / b, 2))
    };
    for (name, stream, full) in [
        (
            "stream/full ratio, 100KB in 1000 appends (native)",
            "parse_stream_1000_appends/100KB",
            "parse_full/100KB",
        ),
        (
            "stream/full ratio, 100KB one large call in 1000 appends (native)",
            "parse_stream_1000_appends/100KB_one_large_call",
            "parse_full/100KB_one_large_call",
        ),
    ] {
        if let Some(r) = ratio(stream, full, summary) {
            summary.insert(name.into(), json!({"value": r, "unit": "x"}));
        }
    }
    Ok(())
}

fn find_estimates(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for e in fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") && p.join("estimates.json").exists() {
                out.push(p.join("estimates.json"));
            } else if p
                .file_name()
                .is_some_and(|n| n != "base" && n != "report" && n != "change")
            {
                find_estimates(&p, out)?;
            }
        }
    }
    Ok(())
}

fn round(v: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (v * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn several_competitors_from_the_environment_and_the_command_line() {
        type Case<'a> = (
            &'a [&'a str],
            Option<&'a str>,
            std::result::Result<Options, &'a str>,
        );
        let cases: &[Case] = &[
            (
                &[],
                None,
                Ok(Options {
                    quick: false,
                    competitors: vec![],
                }),
            ),
            (
                &["--quick"],
                Some(" "),
                Ok(Options {
                    quick: true,
                    competitors: vec![],
                }),
            ),
            (
                &[
                    "--competitor",
                    "superassistant=/c/sa",
                    "--competitor",
                    "gemini-nexus=/c/gn",
                ],
                Some("deepseek-pp=/c/dp, "),
                Ok(Options {
                    quick: false,
                    competitors: vec![
                        "deepseek-pp=/c/dp".into(),
                        "superassistant=/c/sa".into(),
                        "gemini-nexus=/c/gn".into(),
                    ],
                }),
            ),
            (&["--competitor"], None, Err("--competitor needs NAME=DIR")),
            (
                &["--competitor", "superassistant"],
                None,
                Err("--competitor needs NAME=DIR"),
            ),
            (
                &["--competitor", "=/c/sa"],
                None,
                Err("--competitor needs NAME=DIR"),
            ),
            (&["--fast"], None, Err("unknown bench option '--fast'")),
        ];
        for (a, env, want) in cases {
            let got = options(&args(a), env.map(str::to_owned));
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(&got, want, "{a:?} {env:?}"),
                (Err(e), Err(want)) => assert!(e.to_string().starts_with(want), "{a:?}: {e}"),
                (got, want) => panic!("{a:?} {env:?}: got {got:?}, want {want:?}"),
            }
        }
    }
}
