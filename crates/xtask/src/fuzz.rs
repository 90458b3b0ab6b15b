//! `cargo xtask fuzz`: fuzzing of the tool-call parser and the wire decoders for `FUZZ_SECONDS`
//! (default 60).
//!
//! The default engine works on the stable toolchain: relay-core's fuzz-style tests
//! (`tests/test_fuzz_parser.rs`: seeded mutations of the reply corpus through the full and the
//! streaming parser, which must agree and never panic; `tests/test_fuzz_decoders.rs`: the SSE,
//! JSON-RPC and header decoders on mutated wire data) run once as committed, then the parser's
//! run and relay-core's property tests (`PROPTEST_RNG_SEED`; the test suite gives them a fixed
//! seed) are repeated with a fresh random seed per round until the time is up. A failure names
//! the seed that reproduces it. `--libfuzzer` runs the coverage-guided cargo-fuzz target
//! (`crates/relay-core/fuzz`) instead; it needs cargo-fuzz (installed on first use) and nightly
//! compiler features (opted into with `RUSTC_BOOTSTRAP=1`).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::util::{cmd, run, step, Result, Xtask};

/// Mutations per random round: a few seconds in a debug build, so the budget is kept closely.
const CASES_PER_ROUND: u32 = 1_000;

/// The seed `cargo xtask test` gives relay-core's property tests (`PROPTEST_RNG_SEED`), so the
/// suite draws the same cases on every run; fuzz rounds draw new ones.
pub const COMMITTED_PROPTEST_SEED: u64 = 0x5eed_2026;

/// relay-core's proptest files: run again in every round with the round's seed.
const PROPERTY_TESTS: [&str; 3] = ["test_parse_props", "test_schema_props", "test_sse"];
/// The property tests inside relay-core's library (they read the parser's private state).
const LIB_PROPERTIES: &str = "parse::rewind_props";

pub fn fuzz(x: &Xtask, args: &[String]) -> Result<()> {
    let secs: u64 = match std::env::var("FUZZ_SECONDS") {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("FUZZ_SECONDS must be a whole number of seconds, not {v:?}"))?,
        Err(_) => 60,
    };
    match args.first().map(String::as_str) {
        None | Some("--stable") => stable(x, secs),
        Some("--libfuzzer") => libfuzzer(x, secs),
        Some(other) => {
            Err(format!("unknown fuzz option '{other}' (--stable or --libfuzzer)").into())
        }
    }
}

/// `cargo test` of relay-core's fuzz tests. `--workspace` keeps the feature set of the native
/// suite's `cargo test --workspace`, so the build it made is reused rather than redone.
fn fuzz_tests(x: &Xtask, tests: &[&str], extra: &[&str]) -> std::process::Command {
    let mut c = cmd("cargo");
    c.args(["test", "--workspace", "--color", "never"]);
    for t in tests {
        c.args(["--test", t]);
    }
    c.args(extra).current_dir(&x.root);
    c
}

/// The seeded fuzz tests: the committed run first, then random seeds until the time is up
/// (at least one round). The budget starts once the tests are built.
fn stable(x: &Xtask, secs: u64) -> Result<()> {
    let all = ["test_fuzz_parser", "test_fuzz_decoders"];
    step("fuzz: building relay-core's fuzz and property tests");
    let built: Vec<&str> = all.iter().chain(&PROPERTY_TESTS).copied().collect();
    run(&mut fuzz_tests(x, &built, &["--lib", "--no-run"]))?;
    let started = Instant::now();
    let budget = Duration::from_secs(secs);
    step("fuzz: the fuzz tests as committed (parser corpus mutations, wire decoders)");
    run(&mut fuzz_tests(x, &all, &[]))?;
    let mut rounds = 0u32;
    let mut seed = random_seed();
    while rounds == 0 || started.elapsed() < budget {
        seed = next(seed);
        rounds += 1;
        step(&format!(
            "fuzz: round {rounds}, FUZZ_SEED={seed} FUZZ_CASES={CASES_PER_ROUND} ({:.0}s of {secs}s used)",
            started.elapsed().as_secs_f64()
        ));
        run(fuzz_tests(
            x,
            &["test_fuzz_parser"],
            &["--", "--quiet", "the_parser_survives_a_seeded_fuzz_run"],
        )
        .env("FUZZ_SEED", seed.to_string())
        .env("FUZZ_CASES", CASES_PER_ROUND.to_string()))
        .map_err(|e| {
            format!(
                "{e}\nreproduce with: FUZZ_SEED={seed} FUZZ_CASES={CASES_PER_ROUND} \
                 cargo test -p relay-core --test test_fuzz_parser"
            )
        })?;
        step(&format!(
            "fuzz: round {rounds}, property tests with PROPTEST_RNG_SEED={seed}"
        ));
        run(fuzz_tests(x, &PROPERTY_TESTS, &["--", "--quiet"])
            .env("PROPTEST_RNG_SEED", seed.to_string()))
        .and_then(|()| {
            run(
                fuzz_tests(x, &[], &["--lib", "--", "--quiet", LIB_PROPERTIES])
                    .env("PROPTEST_RNG_SEED", seed.to_string()),
            )
        })
        .map_err(|e| {
            format!(
                "{e}\nreproduce with: PROPTEST_RNG_SEED={seed} cargo test -p relay-core \
                 --test test_parse_props --test test_schema_props --test test_sse, and \
                 PROPTEST_RNG_SEED={seed} cargo test -p relay-core --lib {LIB_PROPERTIES}"
            )
        })?;
    }
    println!(
        "fuzz: {rounds} random rounds of {CASES_PER_ROUND} mutations and the property tests (plus the committed run) in {:.1}s, no failure",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A seed that differs from run to run (time and process id); the run prints every seed it used.
fn random_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    next(nanos ^ (u64::from(std::process::id()) << 32))
}

/// splitmix64: spreads consecutive seeds over the whole range.
fn next(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The coverage-guided cargo-fuzz (libFuzzer) target `parse`.
fn libfuzzer(x: &Xtask, secs: u64) -> Result<()> {
    let dir = x.path("crates/relay-core/fuzz");
    if !dir.exists() {
        return Err("crates/relay-core/fuzz is missing".into());
    }
    if !Xtask::cargo_bin("cargo-fuzz").exists() {
        step("fuzz: installing cargo-fuzz");
        run(cmd("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
    }
    step(&format!("fuzz: cargo-fuzz parse target for {secs}s"));
    // cargo-fuzz needs nightly flags; on a stable toolchain, opt in explicitly.
    run(cmd("cargo")
        .args([
            "fuzz",
            "run",
            "parse",
            "--",
            &format!("-max_total_time={secs}"),
        ])
        .current_dir(&dir)
        .env("RUSTC_BOOTSTRAP", "1"))
}

#[cfg(test)]
mod tests {
    use super::next;

    #[test]
    fn seeds_change_every_round() {
        let a = next(1);
        let b = next(a);
        assert_ne!(a, b);
        assert_ne!(next(1), next(2));
    }
}
