//! End-to-end: the real binary on a free loopback port, driven over Streamable HTTP.
//!
//! The catalog (tools, prompts, resources, templates) is pinned by a golden file; regenerate
//! it with `UPDATE_EXPECT=1 cargo test -p relay-demo-server --test test_mcp_http`.

mod support;

use base64::Engine as _;
use serde_json::{json, Value};
use support::{is_error, post, post_with, text_of, Server, Session};

const GUIDE: &str = include_str!("../src/docs/guide.md");

#[test]
fn initialize_returns_a_session_and_the_server_identity() {
    let server = Server::start(&[]);
    let session = Session::open(&server);
    let init = &session.initialize_result;
    assert_eq!(init["protocolVersion"], support::PROTOCOL_VERSION);
    assert_eq!(init["serverInfo"]["name"], "relay-demo-server");
    for capability in ["tools", "prompts", "resources"] {
        assert!(
            init["capabilities"][capability].is_object(),
            "{capability} missing: {init}"
        );
    }
    assert!(session
        .session_id
        .as_deref()
        .is_some_and(|id| !id.is_empty()));
}

#[test]
fn catalog_matches_golden() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let mut catalog = serde_json::Map::new();
    for (method, key) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let result = session.request(method, json!({})).expect(method);
        assert!(
            result.get("nextCursor").is_none(),
            "{method} is not paginated"
        );
        catalog.insert(key.to_owned(), result[key].clone());
    }
    let rendered = serde_json::to_string_pretty(&Value::Object(catalog)).expect("serialize") + "\n";
    expect_test::expect_file!["golden/catalog.json"].assert_eq(&rendered);
}

#[test]
fn tool_annotations_are_truthful() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let tools = session
        .request("tools/list", json!({}))
        .expect("tools/list");
    let tools = tools["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), 14);
    let writes = ["notes_add", "notes_delete"];
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        let annotations = &tool["annotations"];
        assert_eq!(
            annotations["readOnlyHint"],
            !writes.contains(&name),
            "{name}"
        );
        assert_eq!(annotations["openWorldHint"], false, "{name}");
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 20),
            "{name} needs a real description"
        );
    }
    let annotation = |name: &str, key: &str| {
        tools.iter().find(|t| t["name"] == name).expect(name)["annotations"][key].clone()
    };
    assert_eq!(annotation("notes_delete", "destructiveHint"), true);
    assert_eq!(annotation("notes_add", "destructiveHint"), false);
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallCase {
    tool: String,
    arguments: Value,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    text_starts_with: Option<String>,
    #[serde(default)]
    text_ends_with: Option<String>,
    #[serde(default)]
    error_contains: Option<String>,
    #[serde(default)]
    protocol_error: Option<i64>,
}

#[test]
fn tool_calls_match_fixtures() {
    let cases: Vec<ToolCallCase> =
        serde_json::from_str(include_str!("fixtures/tool_calls.json")).expect("fixture parses");
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let mut failures = Vec::new();
    for case in &cases {
        let label = format!("{} {}", case.tool, case.arguments);
        let reply = session.request(
            "tools/call",
            json!({"name": case.tool, "arguments": case.arguments}),
        );
        let problem = match (&reply, case.protocol_error) {
            (Err(error), Some(code)) => {
                (error["code"] != json!(code)).then(|| format!("error code {error}, want {code}"))
            }
            (Err(error), None) => Some(format!("unexpected protocol error {error}")),
            (Ok(result), Some(code)) => Some(format!("got {result}, want protocol error {code}")),
            (Ok(result), None) => {
                let text = text_of(result);
                let failed = is_error(result);
                if let Some(needle) = &case.error_contains {
                    (!failed || !text.contains(needle.as_str()))
                        .then(|| format!("want isError containing {needle:?}, got {result}"))
                } else if failed {
                    Some(format!("unexpected isError: {text}"))
                } else if let Some(want) = &case.text {
                    (&text != want).then(|| format!("text {text:?}, want {want:?}"))
                } else if let Some(prefix) = &case.text_starts_with {
                    (!text.starts_with(prefix.as_str()))
                        .then(|| format!("text {text:?} lacks prefix {prefix:?}"))
                } else if let Some(suffix) = &case.text_ends_with {
                    (!text.ends_with(suffix.as_str()))
                        .then(|| format!("text {text:?} lacks suffix {suffix:?}"))
                } else {
                    Some("fixture states no expectation".to_owned())
                }
            }
        };
        if let Some(problem) = problem {
            failures.push(format!("{label}: {problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn current_time_is_iso_8601_and_current() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let text = text_of(&session.call_tool("current_time", json!({"timezone": "+08:00"})));
    let parsed = chrono::DateTime::parse_from_rfc3339(&text).expect("RFC 3339 timestamp");
    assert_eq!(parsed.offset().local_minus_utc(), 8 * 3600);
    let skew = chrono::Utc::now()
        .signed_duration_since(parsed)
        .num_seconds()
        .abs();
    assert!(skew < 60, "{text} is {skew} s away from now");
}

#[test]
fn notes_round_trip_and_are_shared_across_sessions() {
    let server = Server::start(&[]);
    let mut writer = Session::open(&server);
    let first = writer.call_tool(
        "notes_add",
        json!({"title": "Relay release", "body": "Ship the demo server on Friday", "tags": ["Work", "release"]}),
    );
    assert!(!is_error(&first), "{first}");
    let first: Value = serde_json::from_str(&text_of(&first)).expect("note JSON");
    assert_eq!(first["id"], 1);
    assert_eq!(first["tags"], json!(["work", "release"]));
    let second = writer.call_tool(
        "notes_add",
        json!({"title": "买菜", "body": "豆腐、青菜，还有 demo 用的牛奶"}),
    );
    assert!(!is_error(&second), "{second}");

    // A different session sees the same notebook.
    let mut reader = Session::open(&server);
    assert_ne!(reader.session_id, writer.session_id);
    let found = |session: &mut Session, query: &str| -> Vec<u64> {
        let result = session.call_tool("notes_search", json!({"query": query}));
        let list: Value = serde_json::from_str(&text_of(&result)).expect("list JSON");
        assert_eq!(list["count"], list["notes"].as_array().map_or(0, Vec::len));
        list["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .map(|n| n["id"].as_u64().expect("id"))
            .collect()
    };
    assert_eq!(found(&mut reader, "demo"), [1, 2]);
    assert_eq!(found(&mut reader, "豆腐"), [2]);
    assert_eq!(found(&mut reader, "DEMO friday"), [1]);
    assert_eq!(found(&mut reader, "nowhere"), Vec::<u64>::new());

    let listed = reader.call_tool("notes_list", json!({"tag": "work"}));
    let listed: Value = serde_json::from_str(&text_of(&listed)).expect("list JSON");
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["notes"][0]["title"], "Relay release");

    let all = reader
        .request("resources/read", json!({"uri": "demo://notes"}))
        .expect("read notes");
    let contents = &all["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    let all: Value = serde_json::from_str(contents["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(all["count"], 2);
    let one = reader
        .request("resources/read", json!({"uri": "demo://notes/2"}))
        .expect("read note 2");
    assert!(one["contents"][0]["text"]
        .as_str()
        .expect("text")
        .contains("买菜"));

    let deleted = writer.call_tool("notes_delete", json!({"id": 1}));
    assert!(!is_error(&deleted), "{deleted}");
    let gone = reader
        .request("resources/read", json!({"uri": "demo://notes/1"}))
        .expect_err("deleted note is gone");
    assert_eq!(gone["code"], -32002, "{gone}");
    assert_eq!(found(&mut reader, "demo"), [2]);
}

#[test]
fn retrieve_ranks_documents_and_returns_structured_content() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let cases = [
        ("How does the Mcp-Session-Id header work?", "mcp-transports"),
        ("上下文工程的占位符", "context-engineering-zh"),
        ("approval policy destructive", "safety-policy"),
    ];
    for (query, top) in cases {
        let result = session.call_tool("retrieve", json!({"query": query}));
        assert!(!is_error(&result), "{result}");
        let structured = &result["structuredContent"];
        assert_eq!(structured["query"], query);
        assert_eq!(structured["total_documents"], 8);
        let documents = structured["documents"].as_array().expect("documents");
        assert!(
            (1..=3).contains(&documents.len()),
            "default top_k is 3: {documents:?}"
        );
        assert_eq!(documents[0]["id"], top, "{query}");
        assert_eq!(documents[0]["uri"], format!("demo://docs/{top}"));
        let scores: Vec<f64> = documents
            .iter()
            .map(|d| d["score"].as_f64().expect("score"))
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        // The text block mirrors the structured content for clients that ignore the latter.
        let mirrored: Value = serde_json::from_str(&text_of(&result)).expect("text is JSON");
        assert_eq!(&mirrored, structured);
    }
    let wide = session.call_tool("retrieve", json!({"query": "MCP", "top_k": 10}));
    let n = wide["structuredContent"]["documents"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(n > 3 && n <= 8, "top_k 10 over 8 documents gave {n}");
}

#[test]
fn prompts_keep_placeholders_for_the_client() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let placeholders = [
        "${local:current_time}",
        "${local:user_intent}",
        "${local:model_name}",
        "${mcp:resource:demo://docs/guide}",
        "${mcp:tool:dynamic_tool_selection}",
        "${local:tool_history}",
    ];
    for arguments in [json!({}), json!({"language": "zh"})] {
        let prompt = session
            .request(
                "prompts/get",
                json!({"name": "context_engineering", "arguments": arguments}),
            )
            .expect("context_engineering");
        let text = prompt["messages"][0]["content"]["text"]
            .as_str()
            .expect("text");
        assert_eq!(prompt["messages"][0]["role"], "user");
        for placeholder in placeholders {
            assert!(
                text.contains(placeholder),
                "{arguments}: {placeholder} missing"
            );
        }
    }

    let chat = session
        .request(
            "prompts/get",
            json!({"name": "simple_chat", "arguments": {"user_intent": "What is MCP?"}}),
        )
        .expect("simple_chat");
    let text = chat["messages"][0]["content"]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("Question: What is MCP?"), "{text}");
    assert!(text.contains("${local:current_time}"));

    for (name, arguments) in [
        ("simple_chat", json!({})),
        (
            "simple_chat",
            json!({"user_intent": "hi", "language": "fr"}),
        ),
        ("context_engineering", json!({"language": "fr"})),
        ("no_such_prompt", json!({})),
    ] {
        let error = session
            .request("prompts/get", json!({"name": name, "arguments": arguments}))
            .expect_err("invalid prompt request");
        assert_eq!(error["code"], -32602, "{name} {arguments}: {error}");
    }
}

#[test]
fn resources_read_guide_documents_and_report_unknown_uris() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let guide = session
        .request("resources/read", json!({"uri": "demo://docs/guide"}))
        .expect("guide");
    assert_eq!(guide["contents"][0]["mimeType"], "text/markdown");
    assert_eq!(guide["contents"][0]["text"], GUIDE);
    let doc = session
        .request("resources/read", json!({"uri": "demo://docs/mcp-zh"}))
        .expect("templated document");
    assert!(doc["contents"][0]["text"]
        .as_str()
        .expect("text")
        .contains("模型上下文协议"));
    for uri in [
        "demo://docs/nope",
        "demo://notes/abc",
        "demo://notes/99",
        "file:///etc/passwd",
    ] {
        let error = session
            .request("resources/read", json!({"uri": uri}))
            .expect_err(uri);
        assert_eq!(error["code"], -32002, "{uri}: {error}");
    }
}

#[test]
fn notes_board_names_its_app_and_the_app_is_readable() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let empty = session
        .request(
            "tools/call",
            json!({"name": "notes_board", "arguments": {}}),
        )
        .expect("empty board");
    assert_eq!(
        text_of(&empty),
        "The notes board is empty: no notes yet.",
        "{empty}"
    );
    session
        .request(
            "tools/call",
            json!({"name": "notes_add", "arguments": {"title": "Milk", "body": "", "tags": ["home"]}}),
        )
        .expect("notes_add");
    let board = session
        .request(
            "tools/call",
            json!({"name": "notes_board", "arguments": {}}),
        )
        .expect("board");
    assert!(!is_error(&board), "{board}");
    assert_eq!(board["structuredContent"]["count"], 1, "{board}");
    assert_eq!(board["structuredContent"]["notes"][0]["title"], "Milk");
    assert!(
        text_of(&board).starts_with("1 note on the board: #"),
        "{board}"
    );

    let tools = session
        .request("tools/list", json!({}))
        .expect("tools/list");
    let tool = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "notes_board")
        .expect("notes_board listed");
    let uri = tool["_meta"]["ui"]["resourceUri"]
        .as_str()
        .expect("resourceUri");
    assert!(uri.starts_with("ui://"), "{tool}");
    let read = session
        .request("resources/read", json!({"uri": uri}))
        .expect("the app's resource");
    let contents = &read["contents"][0];
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert!(contents["text"]
        .as_str()
        .is_some_and(|html| html.starts_with("<!doctype html>") && html.contains("ui/initialize")));
}

#[test]
fn slow_count_reports_progress_only_with_a_token() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let (id, exchange) = session.exchange(
        "tools/call",
        json!({"name": "slow_count", "arguments": {"steps": 4, "delay_ms": 5}, "_meta": {"progressToken": "count-1"}}),
    );
    let result = exchange.response(id).expect("result");
    assert!(!is_error(&result), "{result}");
    let progress = exchange.notifications("notifications/progress");
    let steps: Vec<(f64, f64)> = progress
        .iter()
        .map(|n| {
            assert_eq!(n["params"]["progressToken"], "count-1");
            (
                n["params"]["progress"].as_f64().expect("progress"),
                n["params"]["total"].as_f64().expect("total"),
            )
        })
        .collect();
    assert_eq!(steps, [(1.0, 4.0), (2.0, 4.0), (3.0, 4.0), (4.0, 4.0)]);
    let position = |pred: &dyn Fn(&Value) -> bool| exchange.messages.iter().position(pred);
    assert!(
        position(&|m| m["method"] == "notifications/progress")
            < position(&|m| m["id"] == json!(id)),
        "progress must precede the result"
    );

    let (id, exchange) = session.exchange(
        "tools/call",
        json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 0}}),
    );
    assert!(text_of(&exchange.response(id).expect("result")).contains("without progress"));
    assert!(exchange.notifications("notifications/progress").is_empty());
}

#[test]
fn generate_image_returns_a_valid_png() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let result = session.call_tool("generate_image", json!({"color": "orange", "size": 8}));
    assert!(!is_error(&result), "{result}");
    let image = result["content"]
        .as_array()
        .expect("content")
        .iter()
        .find(|block| block["type"] == "image")
        .expect("an image block");
    assert_eq!(image["mimeType"], "image/png");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().expect("data"))
        .expect("base64");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let frame = reader.next_frame(&mut pixels).expect("PNG data");
    assert_eq!((frame.width, frame.height), (8, 8));
    assert_eq!(
        &pixels[..3],
        &[0xFB, 0x8C, 0x00],
        "top-left pixel is full orange"
    );
}

#[test]
fn read_guide_returns_an_embedded_resource_and_a_link() {
    let server = Server::start(&[]);
    let mut session = Session::open(&server);
    let result = session.call_tool("read_guide", json!({}));
    let content = result["content"].as_array().expect("content");
    let types: Vec<&str> = content
        .iter()
        .map(|b| b["type"].as_str().expect("type"))
        .collect();
    assert_eq!(types, ["text", "resource", "resource_link"]);
    assert_eq!(content[1]["resource"]["uri"], "demo://docs/guide");
    assert_eq!(content[1]["resource"]["mimeType"], "text/markdown");
    assert_eq!(content[1]["resource"]["text"], GUIDE);
    assert_eq!(content[2]["uri"], "demo://notes");
    assert_eq!(content[2]["mimeType"], "application/json");
}

#[test]
fn unknown_session_is_404_and_missing_session_is_rejected() {
    let server = Server::start(&[]);
    let agent = support::agent();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let unknown = post(&agent, &server.url, Some("not-a-session"), &call);
    assert_eq!(unknown.status, 404, "{}", unknown.raw);
    let missing = post(&agent, &server.url, None, &call);
    assert!(
        (400..500).contains(&missing.status),
        "{} {}",
        missing.status,
        missing.raw
    );
}

#[test]
fn stateless_json_mode_answers_without_sessions() {
    let server = Server::start(&["--json-response"]);
    let mut session = Session::open(&server);
    assert_eq!(
        session.session_id, None,
        "stateless servers issue no session id"
    );
    let (id, exchange) = session.exchange(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    );
    assert!(
        exchange.content_type.starts_with("application/json"),
        "{}",
        exchange.content_type
    );
    assert_eq!(text_of(&exchange.response(id).expect("result")), "3");

    // State survives across stateless requests: each request gets a fresh handler over the
    // same notebook.
    let added = session.call_tool("notes_add", json!({"title": "stateless", "body": "kept"}));
    assert!(!is_error(&added), "{added}");
    let listed = session.call_tool("notes_list", json!({}));
    assert!(text_of(&listed).contains("stateless"));

    // Progress still needs a stream, so the server falls back to SSE for that call.
    let (id, exchange) = session.exchange(
        "tools/call",
        json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 0}, "_meta": {"progressToken": 7}}),
    );
    assert!(
        exchange.content_type.starts_with("text/event-stream"),
        "{}",
        exchange.content_type
    );
    assert_eq!(exchange.notifications("notifications/progress").len(), 2);
    assert!(!is_error(&exchange.response(id).expect("result")));
}

#[test]
fn browser_origins_other_than_extensions_and_loopback_are_refused() {
    let server = Server::start(&[]);
    let agent = support::agent();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": support::PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "origin-test", "version": "0"}
        }
    });
    let cases = [
        (
            Some("chrome-extension://abcdefghijklmnopabcdefghijklmnop"),
            200,
        ),
        (Some("http://localhost:6274"), 200),
        (None, 200),
        (Some("https://evil.example"), 403),
        (Some("http://127.0.0.1.evil.example"), 403),
        (Some("null"), 403),
    ];
    for (origin, status) in cases {
        let headers: Vec<(&str, &str)> = origin.iter().map(|o| ("Origin", *o)).collect();
        let exchange = post_with(&agent, &server.url, None, &headers, &initialize);
        assert_eq!(exchange.status, status, "{origin:?}: {}", exchange.raw);
    }
    // Host is checked too (DNS rebinding): a foreign name pointing at 127.0.0.1 is refused.
    let rebound = post_with(
        &agent,
        &server.url,
        None,
        &[("Host", "evil.example")],
        &initialize,
    );
    assert_eq!(rebound.status, 403, "{}", rebound.raw);
}

#[test]
fn cancelling_slow_count_ends_its_stream_early() {
    use std::io::{BufRead, BufReader};
    let server = Server::start(&[]);
    let session = Session::open(&server);
    let session_id = session.session_id.clone().expect("session");
    // 20 steps of 1 s: 20 s if the cancellation were ignored.
    let call = json!({
        "jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "slow_count", "arguments": {"steps": 20, "delay_ms": 1000}, "_meta": {"progressToken": "c"}}
    });
    let (url, sid) = (server.url.clone(), session_id.clone());
    let started = std::time::Instant::now();
    // The caller reads the SSE stream line by line and reports the first progress notification:
    // the witness that the call is running before it is cancelled.
    let (first_progress, progressed) = std::sync::mpsc::channel::<()>();
    let caller = std::thread::spawn(move || {
        let mut response = support::agent()
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", support::PROTOCOL_VERSION)
            .header("Mcp-Session-Id", &sid)
            .send(call.to_string())
            .unwrap_or_else(|e| panic!("POST {url}: {e}"));
        let mut raw = String::new();
        let mut reader = BufReader::new(response.body_mut().as_reader());
        let mut line = String::new();
        // Bounded by the agent's global timeout and by the stream's end.
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if line.contains("notifications/progress") {
                let _ = first_progress.send(());
            }
            raw.push_str(&line);
            line.clear();
        }
        raw
    });
    progressed
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("a first progress notification within 10 s");
    let cancel = post(
        &support::agent(),
        &server.url,
        Some(&session_id),
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99, "reason": "test"}}),
    );
    assert_eq!(cancel.status, 202, "{}", cancel.raw);
    let raw = caller.join().expect("caller thread");
    let took = started.elapsed();
    let messages = support::sse_messages(&raw);
    let steps = messages
        .iter()
        .filter(|m| m["method"] == json!("notifications/progress"))
        .count();
    assert!(
        took < std::time::Duration::from_secs(10) && (1..20).contains(&steps),
        "took {took:?}, {steps} progress notifications: {raw}"
    );
    // Per the spec a cancelled request gets no response; if rmcp sends one anyway it must
    // say the call was cancelled rather than report a completed count.
    if let Some(reply) = messages.iter().find(|m| m["id"] == json!(99)) {
        assert!(text_of(&reply["result"]).contains("cancelled"), "{reply}");
    }
}
