//! Golden tests of the tool-call parser on realistic replies (`tests/fixtures/replies/*.txt`).
//!
//! Each `<case>.txt` is parsed against `servers.json`; the output must equal `<case>.expected`
//! (pretty JSON of the `ParseOutput`). `UPDATE_EXPECT=1` rewrites the golden files. Every case is
//! also streamed in several chunkings, through `append` and through `push` with re-renders, and
//! must report exactly what the full parse reports.

use std::fs;
use std::path::{Path, PathBuf};

use relay_core::model::ServerTools;
use relay_core::parse::{parse_tool_calls, ParseOutput, SelectedTools, StreamParser};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/replies")
}

fn servers() -> Vec<ServerTools> {
    let text =
        fs::read_to_string(fixtures_dir().join("servers.json")).expect("servers.json is readable");
    serde_json::from_str(&text).expect("servers.json holds ServerTools")
}

fn cases() -> Vec<(String, String)> {
    let mut cases: Vec<(String, String)> = fs::read_dir(fixtures_dir())
        .expect("fixtures directory exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".txt")?.to_owned();
            let text = fs::read_to_string(&path).ok()?;
            Some((name, text))
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "the fixtures are missing");
    cases
}

fn streamed_by_append(text: &str, servers: &[ServerTools], chunk: usize) -> ParseOutput {
    let mut p = StreamParser::new(servers.to_vec());
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + chunk).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        p.append(&text[start..end]);
        start = end;
    }
    p.finish();
    p.output()
}

/// Streams with `push`, and every third step first shows a re-render: the same prefix with a
/// different, shorter tail (a label where the fence will be), which the next step replaces.
fn streamed_by_push_with_rewrites(
    text: &str,
    servers: &[ServerTools],
    chunk: usize,
) -> ParseOutput {
    let mut p = StreamParser::new(servers.to_vec());
    let mut end = 0;
    let mut step = 0;
    while end < text.len() {
        end = (end + chunk).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        step += 1;
        if step % 3 == 0 {
            let mut cut = end.saturating_sub(chunk / 2 + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            p.push(&format!("{}Copy code", &text[..cut]));
        }
        p.push(&text[..end]);
    }
    p.finish();
    p.output()
}

#[test]
fn replies_match_their_golden_files() {
    let servers = servers();
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for (name, text) in cases() {
        let out = parse_tool_calls(&text, &servers);
        let got = serde_json::to_string_pretty(&out).expect("output serialises") + "\n";
        let path = fixtures_dir().join(format!("{name}.expected"));
        if update {
            fs::write(&path, &got).expect("golden file is writable");
            continue;
        }
        match fs::read_to_string(&path) {
            Ok(want) if want == got => {}
            Ok(want) => failures.push(format!(
                "{name}: output differs\n--- expected\n{want}\n--- got\n{got}"
            )),
            Err(_) => failures.push(format!("{name}: no golden file (run with UPDATE_EXPECT=1)")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn streaming_reports_what_the_full_parse_reports() {
    let servers = servers();
    for (name, text) in cases() {
        let full = parse_tool_calls(&text, &servers);
        for chunk in [1, 3, 17, 256] {
            let streamed = streamed_by_append(&text, &servers, chunk);
            assert_eq!(streamed, full, "{name}: append in chunks of {chunk}");
        }
        for chunk in [5, 64] {
            let streamed = streamed_by_push_with_rewrites(&text, &servers, chunk);
            assert_eq!(
                streamed.calls, full.calls,
                "{name}: push with rewrites, chunks of {chunk}"
            );
        }
    }
}

/// One `SelectedTools` for every reply (its index of tool names built by the first reply with a
/// tag, then shared): each parse and each stream reports what a parse on its own reports.
#[test]
fn parses_sharing_one_selection_report_what_each_parse_alone_reports() {
    let servers = servers();
    let selection = SelectedTools::new(servers.clone());
    for round in 0..2 {
        for (name, text) in cases() {
            let alone = parse_tool_calls(&text, &servers);
            assert_eq!(selection.parse(&text), alone, "{name}, round {round}");
            let mut p = selection.stream_parser();
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            p.append(&text[..half]);
            p.append(&text[half..]);
            p.finish();
            assert_eq!(p.output(), alone, "{name}, streamed, round {round}");
        }
    }
}

#[test]
fn the_golden_files_cover_every_format_and_diagnostic() {
    let servers = servers();
    let mut formats = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new();
    for (_, text) in cases() {
        let out = parse_tool_calls(&text, &servers);
        let v = serde_json::to_value(&out).expect("output serialises");
        for c in v["calls"].as_array().into_iter().flatten() {
            formats.insert(c["format"].as_str().unwrap_or_default().to_owned());
        }
        for d in v["diagnostics"].as_array().into_iter().flatten() {
            kinds.insert(d["kind"].as_str().unwrap_or_default().to_owned());
        }
    }
    let want_formats = [
        "json_lines",
        "openai",
        "tool",
        "tool_args",
        "tool_name",
        "tool_tag",
        "xml",
    ];
    assert_eq!(
        formats.iter().map(String::as_str).collect::<Vec<_>>(),
        want_formats
    );
    for kind in [
        "ambiguous_tool",
        "duplicate_call_id",
        "ignored_call",
        "incomplete_call",
        "invalid_call",
        "invalid_json",
        "repaired",
        "server_mismatch",
        "unknown_tool",
    ] {
        assert!(
            kinds.contains(kind),
            "no fixture produces a {kind} diagnostic"
        );
    }
}

/// The formats of other extensions (`deepseek_*`: tool-name tags and DeepSeek's DSML markup,
/// their negatives included) split in two at every byte, and cut there with nothing after it,
/// report what the full parse of that text reports.
#[test]
fn other_extensions_formats_stream_the_same_at_every_split() {
    let servers = servers();
    let mut seen = 0;
    for (name, text) in cases()
        .into_iter()
        .filter(|(n, _)| n.starts_with("deepseek_"))
    {
        seen += 1;
        let full = parse_tool_calls(&text, &servers);
        assert!(
            !full.calls.is_empty() || !full.diagnostics.is_empty(),
            "{name}: the fixture finds nothing"
        );
        for k in (1..text.len()).filter(|&k| text.is_char_boundary(k)) {
            let mut p = StreamParser::new(servers.clone());
            p.append(&text[..k]);
            p.append(&text[k..]);
            p.finish();
            assert_eq!(p.output(), full, "{name}: split at {k}");
            let mut cut = StreamParser::new(servers.clone());
            cut.append(&text[..k]);
            cut.finish();
            assert_eq!(
                cut.output(),
                parse_tool_calls(&text[..k], &servers),
                "{name}: cut at {k}"
            );
        }
    }
    assert!(seen >= 3, "the deepseek fixtures are missing");
}
