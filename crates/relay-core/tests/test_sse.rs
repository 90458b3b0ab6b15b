//! SSE decoder: golden outputs for every fixture in `data/sse/cases.json`, and the same events
//! whatever the chunking (every single split point, every pair of split points for short
//! inputs, byte by byte, and random chunkings).
//!
//! Regenerate the golden file with `UPDATE_EXPECT=1 cargo test -p relay-core --test test_sse`.

use std::path::PathBuf;

use proptest::prelude::*;
use relay_core::sse::{SseDecoder, SseError, SseEvent};
use serde_json::{json, Value};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sse")
}

struct Case {
    name: String,
    input: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(data_dir().join("cases.json")).expect("cases.json readable");
    let raw: Vec<Value> = serde_json::from_str(&text).expect("cases.json is JSON");
    raw.into_iter()
        .map(|case| {
            let name = case["name"].as_str().expect("case has a name").to_owned();
            let input = match (case.get("input"), case.get("input_hex")) {
                (Some(Value::String(s)), None) => s.as_bytes().to_vec(),
                (None, Some(Value::String(hex))) => (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect(),
                _ => panic!("case {name}: exactly one of input / input_hex"),
            };
            Case { name, input }
        })
        .collect()
}

/// What a decoder observed: the events, whether the end cut an event, and its final state.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    cut: bool,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

fn decode_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(decoder.push(chunk).expect("under the size limit"));
    }
    let last_event_id = decoder.last_event_id().map(str::to_owned);
    let retry_ms = decoder.retry_ms();
    Outcome {
        events,
        cut: decoder.finish(),
        last_event_id,
        retry_ms,
    }
}

fn outcome_json(name: &str, outcome: &Outcome) -> Value {
    let events: Vec<Value> = outcome
        .events
        .iter()
        .map(|e| json!({"event": e.event, "data": e.data, "id": e.id, "retry_ms": e.retry_ms}))
        .collect();
    json!({
        "name": name,
        "events": events,
        "cut": outcome.cut,
        "last_event_id": outcome.last_event_id,
        "retry_ms": outcome.retry_ms,
    })
}

#[test]
fn fixtures_match_golden_file() {
    let actual: Vec<Value> = cases()
        .iter()
        .map(|c| outcome_json(&c.name, &decode_chunks([&c.input[..]])))
        .collect();
    let actual = serde_json::to_string_pretty(&actual).expect("serializes") + "\n";
    let golden = data_dir().join("cases.expected.json");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&golden, &actual).expect("golden file writable");
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        expected == actual,
        "golden mismatch; rerun with UPDATE_EXPECT=1 and review the diff\n{actual}"
    );
}

#[test]
fn every_single_split_point_gives_the_same_events() {
    for case in cases() {
        let whole = decode_chunks([&case.input[..]]);
        for i in 0..=case.input.len() {
            let (a, b) = case.input.split_at(i);
            assert_eq!(
                decode_chunks([a, b]),
                whole,
                "case {:?} split at {i}",
                case.name
            );
        }
    }
}

#[test]
fn every_pair_of_split_points_gives_the_same_events() {
    for case in cases().into_iter().filter(|c| c.input.len() <= 80) {
        let whole = decode_chunks([&case.input[..]]);
        let n = case.input.len();
        for i in 0..=n {
            for j in i..=n {
                let chunks = [&case.input[..i], &case.input[i..j], &case.input[j..]];
                assert_eq!(
                    decode_chunks(chunks),
                    whole,
                    "case {:?} split at {i},{j}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn byte_by_byte_gives_the_same_events() {
    for case in cases() {
        let whole = decode_chunks([&case.input[..]]);
        assert_eq!(
            decode_chunks(case.input.chunks(1)),
            whole,
            "case {:?}",
            case.name
        );
    }
}

#[test]
fn events_are_dispatched_as_soon_as_their_blank_line_arrives() {
    // A CR at the very end of a chunk ends the line at once: a server that ends each event
    // with "\r\r" and then waits must not leave the event stuck in the decoder.
    let mut decoder = SseDecoder::new();
    assert!(decoder.push(b"data: x\r").expect("ok").is_empty());
    let events = decoder.push(b"\r").expect("ok");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, "x");
    // The LF that may follow belongs to the CR already seen, not a new blank line.
    assert!(decoder.push(b"\n").expect("ok").is_empty());
    assert!(!decoder.finish());
}

#[test]
fn resuming_keeps_the_last_event_id_until_the_server_sends_another() {
    let mut decoder = SseDecoder::resuming(Some("41"), 1024);
    let events = decoder.push(b"data: a\n\nid: 42\ndata: b\n\n").expect("ok");
    let ids: Vec<_> = events.iter().map(|e| e.id.as_deref()).collect();
    assert_eq!(ids, [Some("41"), Some("42")]);
}

#[test]
fn an_event_over_the_limit_fails_whatever_the_chunking() {
    let limit = 64;
    let payload = format!("data: {}\n\n", "x".repeat(limit + 1));
    for chunk_size in [1, 7, payload.len()] {
        let mut decoder = SseDecoder::with_max_event_bytes(limit);
        let result: Result<Vec<_>, _> = payload
            .as_bytes()
            .chunks(chunk_size)
            .map(|c| decoder.push(c))
            .collect();
        assert_eq!(
            result.err(),
            Some(SseError::EventTooLarge { limit }),
            "chunk size {chunk_size}"
        );
    }
    // Many data lines add up too: the limit is per event, not per line.
    let mut decoder = SseDecoder::with_max_event_bytes(limit);
    let lines = "data: 0123456789\n".repeat(10);
    assert!(decoder.push(lines.as_bytes()).is_err());
    // The same bytes split into separate events stay under it.
    let mut decoder = SseDecoder::with_max_event_bytes(limit);
    let events = "data: 0123456789\n\n".repeat(10);
    assert_eq!(
        decoder
            .push(events.as_bytes())
            .expect("under the limit")
            .len(),
        10
    );
}

#[test]
fn a_ten_megabyte_event_in_small_chunks_decodes_in_linear_time() {
    let body = "y".repeat(10 * 1024 * 1024);
    let stream = format!("id: big\ndata: {body}\n\n");
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    for chunk in stream.as_bytes().chunks(1024) {
        events.extend(decoder.push(chunk).expect("within the default limit"));
    }
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data.len(), body.len());
    assert_eq!(events[0].id.as_deref(), Some("big"));
}

proptest! {
    #[test]
    fn random_chunkings_give_the_same_events(
        case_index in 0usize..64,
        cuts in proptest::collection::vec(0usize..400, 0..12),
    ) {
        let cases = cases();
        let case = &cases[case_index % cases.len()];
        let whole = decode_chunks([&case.input[..]]);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (case.input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&case.input[start..cut]);
            start = cut;
        }
        chunks.push(&case.input[start..]);
        prop_assert_eq!(decode_chunks(chunks), whole);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512), split in 0usize..512) {
        let split = split.min(bytes.len());
        let mut decoder = SseDecoder::new();
        let _ = decoder.push(&bytes[..split]);
        let _ = decoder.push(&bytes[split..]);
        decoder.finish();
    }
}
