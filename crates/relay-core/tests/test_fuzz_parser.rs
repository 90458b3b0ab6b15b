//! A fuzz run of the tool-call parser on stable Rust, deterministic and bounded: every entry of
//! the corpus `tests/fixtures/fuzz/parser/` (reply shapes, mixed formats, repairs, and the
//! adversarial shapes of `bench_inputs`), then a few thousand seeded mutations of them (splices,
//! duplications, deletions, truncations, insertions of the tokens the parser reacts to). For each
//! input:
//! - nothing panics;
//! - streaming it in appends at random split points reports exactly what a full parse reports;
//! - streaming it by whole-text pushes with re-renders reports every call of the full parse;
//! - the work is linear: a full parse inspects at most `FULL_FACTOR` bytes per byte, the appends
//!   at most `STREAM_FACTOR` per byte plus a bounded look-ahead per step.
//!
//! A failure prints the case's index and seed; `FUZZ_CASE=<index>` reruns that case alone, and
//! `FUZZ_CASES=<n>` / `FUZZ_SEED=<n>` change the run. `cargo xtask fuzz` (cargo-fuzz, nightly)
//! explores further; this one runs with the other tests.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use relay_core::model::ServerTools;
use relay_core::parse::{bench_inputs, full_parse_work, parse_tool_calls, StreamParser};

const CASES: usize = 3_000;
const SEED: u64 = 0x6a09_e667_f3bc_c908;
/// Longest mutated input (a window of a larger corpus entry is mutated).
const MAX_LEN: usize = 3_000;
/// Reads per byte allowed. Each level of nesting reads its content once more, and each kind of
/// construct left open reads the rest once more (`test_parse_work`'s shapes: up to 6×); mixtures
/// of both found by long fuzz runs read up to 8.4× (`FUZZ_SEED=4`, case 7311, repeated to 1 MB:
/// 8.40×, the same at every size, so linear). A quadratic scanner exceeds any constant.
const FULL_FACTOR: u64 = 12;
const STREAM_FACTOR: u64 = 12;
/// Look-ahead a streaming step may repeat (an open tag is lexed again when more arrives).
const STEP_LOOKAHEAD: u64 = 600;

/// Text the parser reacts to, inserted by mutations so they reach deep into its states.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "\"",
    "\\",
    "\n",
    "\r\n",
    "`",
    "```",
    "```json\n",
    "\n```\n",
    "<tool_call>",
    "</tool_call>",
    "<tool_use>",
    "</tool_use >",
    "<function_calls>",
    "</function_calls>",
    "<invoke name=\"add\">",
    "<invoke>",
    "</invoke>",
    "<parameter name=\"a\">1</parameter>",
    "<parameter name=\"",
    "<ns:invoke name='echo'>",
    "<!--",
    "-->",
    "<tool_c",
    "{\"tool\":",
    "{\"tool\": \"add\", \"arguments\": {\"a\": 1}}",
    "{\"tool\": \"echo\", \"arguments\": {\"message\": \"x\"}}",
    "{\"type\":\"function_call_start\",\"name\":\"get-sum\",\"call_id\":1}\n",
    "{\"type\":\"parameter\",\"key\":\"a\",\"value\":2}\n",
    "{\"type\":\"function_call_end\",\"call_id\":1}\n",
    "Copy code\n",
    "json\n",
    "\u{201c}",
    "\u{2019}",
    "\u{a0}",
    "&quot;",
    "'",
    ",",
    ":",
    "é",
    "工具",
];

/// The reply fixtures' servers (`everything` and `demo`, whose tools the tokens and the
/// adversarial shapes call).
fn servers() -> Vec<ServerTools> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/replies/servers.json");
    let text = fs::read_to_string(path).expect("servers.json is readable");
    serde_json::from_str(&text).expect("servers.json holds ServerTools")
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fuzz/parser")
}

fn corpus() -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = fs::read_dir(corpus_dir())
        .expect("the fuzz corpus directory exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            Some((name, fs::read_to_string(&path).ok()?))
        })
        .collect();
    entries.sort();
    assert!(entries.len() >= 20, "the fuzz corpus is missing");
    for &name in bench_inputs::ADVERSARIAL {
        let text = bench_inputs::adversarial(name, 2_000).expect("a known name");
        entries.push((format!("adversarial {name}"), text));
    }
    entries
}

/// xorshift64*: the same cases on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A random slice `[a, b)` of `s` on character boundaries, at most `max` bytes.
fn slice(rng: &mut Rng, s: &str, max: usize) -> (usize, usize) {
    let a = floor_boundary(s, rng.below(s.len() + 1));
    let b = floor_boundary(s, a + rng.below(max.min(s.len() - a) + 1));
    (a, b.max(a))
}

/// One mutated input from the corpus.
fn mutate(rng: &mut Rng, corpus: &[(String, String)]) -> String {
    let base = &corpus[rng.below(corpus.len())].1;
    let (a, b) = if base.len() <= MAX_LEN && rng.below(2) == 0 {
        (0, base.len())
    } else {
        slice(rng, base, MAX_LEN)
    };
    let mut text = base[a..b].to_owned();
    for _ in 0..1 + rng.below(8) {
        match rng.below(6) {
            // Insert a token.
            0 | 1 => {
                let at = floor_boundary(&text, rng.below(text.len() + 1));
                text.insert_str(at, TOKENS[rng.below(TOKENS.len())]);
            }
            // Delete a stretch.
            2 => {
                let (x, y) = slice(rng, &text, 64);
                text.replace_range(x..y, "");
            }
            // Duplicate a stretch (repeated prefixes and openers).
            3 => {
                let (x, y) = slice(rng, &text, 64);
                let piece = text[x..y].repeat(1 + rng.below(16));
                text.insert_str(y, &piece);
            }
            // Splice in a stretch of another entry.
            4 => {
                let other = &corpus[rng.below(corpus.len())].1;
                let (x, y) = slice(rng, other, 400);
                let at = floor_boundary(&text, rng.below(text.len() + 1));
                text.insert_str(at, &other[x..y]);
            }
            // Truncate (a reply cut off mid-call).
            _ => {
                let at = floor_boundary(&text, rng.below(text.len() + 1));
                text.truncate(at);
            }
        }
    }
    if text.len() > 2 * MAX_LEN {
        text.truncate(floor_boundary(&text, 2 * MAX_LEN));
    }
    text
}

/// Ends of pieces of random sizes (1 to `max_piece` bytes) on character boundaries.
fn random_ends(rng: &mut Rng, text: &str, max_piece: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut end = 0;
    while end < text.len() {
        end = (end + 1 + rng.below(max_piece)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        ends.push(end);
    }
    ends
}

/// Checks every invariant on one input; `Err` says which failed.
fn check(rng: &mut Rng, text: &str, servers: &[ServerTools]) -> Result<usize, String> {
    let len = text.len() as u64;
    let full = parse_tool_calls(text, servers);
    let work = full_parse_work(text, servers);
    if work > FULL_FACTOR * len + 64 {
        return Err(format!("a full parse inspected {work} bytes of {len}"));
    }

    let max_piece = [1, 7, 64, 512][rng.below(4)];
    let ends = random_ends(rng, text, max_piece);
    let mut stream = StreamParser::new(servers.to_vec());
    let mut start = 0;
    for &end in &ends {
        stream.append(&text[start..end]);
        start = end;
    }
    stream.finish();
    if stream.output() != full {
        return Err(format!(
            "appends of up to {max_piece} bytes disagree with the full parse:\nstream {:#?}\nfull {full:#?}",
            stream.output()
        ));
    }
    let budget = STREAM_FACTOR * len + STEP_LOOKAHEAD * ends.len() as u64 + 64;
    if stream.work() > budget {
        return Err(format!(
            "{} appends inspected {} bytes of {len}",
            ends.len(),
            stream.work()
        ));
    }

    // Pushes of the whole text, each step first showing a re-render of its tail.
    let ends = random_ends(rng, text, 256);
    let mut stream = StreamParser::new(servers.to_vec());
    for &end in &ends {
        let keep = floor_boundary(text, end.saturating_sub(rng.below(32)));
        stream.push(&format!("{}\nCopy code\n", &text[..keep]));
        stream.push(&text[..end]);
    }
    stream.finish();
    for call in &full.calls {
        if !stream.calls().iter().any(|c| c.call_id == call.call_id) {
            return Err(format!("not reported after re-renders: {call:?}"));
        }
    }
    Ok(full.calls.len())
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

#[test]
fn the_parser_survives_a_seeded_fuzz_run() {
    let servers = servers();
    let corpus = corpus();
    let cases = env_number("FUZZ_CASES").map_or(CASES, |n| n as usize);
    let seed = env_number("FUZZ_SEED").unwrap_or(SEED);
    let only = env_number("FUZZ_CASE").map(|n| n as usize);
    let mut failures = Vec::new();
    let (mut inputs, mut bytes, mut calls) = (0, 0, 0);
    // The corpus as it is, then mutations; case `i` has its own generator, so it can be rerun.
    let total = corpus.len() + cases;
    for i in (0..total).filter(|i| only.is_none_or(|o| o == *i)) {
        let mut rng = Rng(seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (label, text) = match corpus.get(i) {
            Some((name, text)) => (name.clone(), text.clone()),
            None => ("mutation".to_owned(), mutate(&mut rng, &corpus)),
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&mut rng, &text, &servers)));
        inputs += 1;
        bytes += text.len();
        let problem = match outcome {
            Ok(Ok(found)) => {
                calls += found;
                continue;
            }
            Ok(Err(problem)) => problem,
            Err(_) => "panicked".to_owned(),
        };
        failures.push(format!(
            "case {i} ({label}, FUZZ_SEED={seed}): {problem}\ninput: {text:?}"
        ));
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!("{inputs} inputs, {bytes} bytes, {calls} calls found");
    if only.is_none() {
        // The mutations must still hold calls, or the run tests little.
        assert!(calls > inputs / 4, "only {calls} calls in {inputs} inputs");
    }
}

#[test]
fn mutations_are_deterministic_and_varied() {
    let corpus = corpus();
    let run = |seed: u64| -> Vec<String> {
        (0..50)
            .map(|i| mutate(&mut Rng(seed ^ (i + 1)), &corpus))
            .collect()
    };
    assert_eq!(run(7), run(7));
    let distinct: std::collections::BTreeSet<String> = run(7).into_iter().collect();
    assert!(
        distinct.len() > 40,
        "only {} distinct mutations",
        distinct.len()
    );
}
