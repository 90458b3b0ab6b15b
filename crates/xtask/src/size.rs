//! `cargo xtask size`: where the extension's wasm module's bytes go, per crate
//! (`node tests/bench/wasm-size.mjs --build`), and which crates are above their bytes in
//! [`BASELINE`]. tidy's budget (`tidy::WASM_GZIP_BUDGET`) says that the module grew; this says
//! where. `cargo xtask bench` runs it too.

use crate::util::{cmd, output, run, step, Result, Xtask};

/// Code bytes per crate of the shipped module (`wasm-size.mjs`'s "per crate"; a function counts
/// for the first crate its path names), measured on 2026-11-30 with
/// `node tests/bench/wasm-size.mjs --build` (1,152,356 bytes of code in all), after what runs
/// rarely moved to the second module (`relay_core::rare`). Lowered with the budget as the module
/// is cut.
pub const BASELINE: &[(&str, u64)] = &[
    ("relay_core", 666_624),
    ("alloc", 121_298),
    ("core", 102_424),
    ("(other)", 64_726),
    ("serde_json", 55_109),
    ("serde_core", 28_379),
    ("relay_wasm", 26_140),
    ("serde", 16_231),
    ("hashbrown", 13_647),
    ("(unnamed)", 9_852),
    ("js_sys", 8_565),
    ("memchr", 8_300),
    ("serde_wasm_bindgen", 5_142),
    ("indexmap", 5_007),
    ("wasm_bindgen", 3_251),
    ("web_sys", 3_019),
    ("base64", 2_851),
    ("zmij", 1_998),
    ("sha2", 1_958),
    ("gloo_net", 1_944),
    ("(runtime)", 1_851),
    ("std", 1_626),
    ("once_cell", 799),
    ("digest", 550),
    ("itoa", 509),
    ("gloo_utils", 384),
    ("hybrid_array", 92),
    ("http", 60),
    ("equivalent", 20),
];

/// What a crate may grow by before it is named: code placement moves a few hundred bytes between
/// crates from build to build.
pub const SLACK: u64 = 1_024;

/// The crates of `measured` (crate, code bytes) above their [`BASELINE`] bytes by more than
/// [`SLACK`], largest growth first: (crate, bytes now, bytes in the baseline; 0 for a crate that
/// was not there).
pub fn grew(measured: &[(String, u64)], baseline: &[(&str, u64)]) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = measured
        .iter()
        .map(|(name, now)| {
            let was = (baseline.iter())
                .find(|(b, _)| b == name)
                .map_or(0, |(_, n)| *n);
            (name.clone(), *now, was)
        })
        .filter(|(_, now, was)| *now > was + SLACK)
        .collect();
    out.sort_by_key(|(_, now, was)| std::cmp::Reverse(now - was));
    out
}

/// The `crates` of `wasm-size.mjs --json`'s answer: (crate, code bytes).
fn crates_of(json: &str) -> Result<Vec<(String, u64)>> {
    let v: serde_json::Value = serde_json::from_str(json)?;
    let list = v["crates"].as_array().ok_or("wasm-size.mjs: no `crates`")?;
    Ok(list
        .iter()
        .filter_map(|c| Some((c["crate"].as_str()?.to_owned(), c["bytes"].as_u64()?)))
        .collect())
}

/// Builds the module with its names kept, prints bytes per crate and per function, then the
/// crates above [`BASELINE`].
pub fn size(x: &Xtask) -> Result<()> {
    let script = x.path("tests/bench/wasm-size.mjs");
    let node = |args: &[&str]| {
        let mut c = cmd("node");
        c.arg(&script)
            .args(args)
            .current_dir(&x.root)
            .env("RELAY_ROOT", &x.root)
            .env("RELAY_TARGET", x.target());
        c
    };
    step("size: node tests/bench/wasm-size.mjs --build --top 15 (bytes per crate and function)");
    run(&mut node(&["--build", "--top", "15"]))?;
    // The same file again, read as JSON (no second build).
    let measured = crates_of(&output(&mut node(&["--json"]))?)?;
    let grown = grew(&measured, BASELINE);
    if grown.is_empty() {
        println!(
            "no crate is above its baseline by more than {SLACK} bytes (crates/xtask/src/size.rs, BASELINE)"
        );
    }
    for (name, now, was) in grown {
        println!(
            "grew: {name} {now} bytes of code, {was} in the baseline (+{})",
            now - was
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_crates_above_their_baseline() {
        let base: &[(&str, u64)] = &[("relay_core", 100_000), ("serde_json", 50_000)];
        let measured = vec![
            ("relay_core".to_owned(), 110_000),
            ("serde_json".to_owned(), 50_900),
            ("gloo_net".to_owned(), 3_000),
        ];
        assert_eq!(
            grew(&measured, base),
            vec![
                ("relay_core".to_owned(), 110_000, 100_000),
                ("gloo_net".to_owned(), 3_000, 0),
            ]
        );
        let json =
            r#"{"total": 9, "crates": [{"crate": "relay_core", "bytes": 7, "functions": 1}]}"#;
        assert_eq!(
            crates_of(json).expect("json"),
            vec![("relay_core".to_owned(), 7)]
        );
    }

    #[test]
    fn the_baseline_names_each_crate_once() {
        let names: Vec<&str> = BASELINE.iter().map(|(n, _)| *n).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }
}
