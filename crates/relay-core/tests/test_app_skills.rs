//! Skills in the app (SEP-2640), as transcripts on the in-memory host: a server's skills are
//! listed without reading any of their files; a skill the user loads is read then, verified
//! against the listing and written into the chat's composer (not sent); a file whose digest,
//! size or frontmatter does not match is a `skill_unverified` error and nothing reaches the
//! chat.

// The host's scripted answers are the client's own `Result<Output, ClientError>`.
#![allow(clippy::result_large_err)]

mod app_harness;

use app_harness::{ask, loaded, page, restart, Mem, TAB, URL};
use relay_core::client::{ClientError, Output};
use relay_core::contract::ErrorKind;
use relay_core::model::ReadResourceResult;
use relay_core::skills::{sha256_hex, Skill};
use serde_json::{json, Value};

const SKILL_URI: &str = "skill://pdf-processing/SKILL.md";
const FORMS_URI: &str = "skill://pdf-processing/references/FORMS.md";
const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSKILL_BODY: use the forms.\n";
const FORMS_MD: &str = "FORMS_BODY\n";

/// The listing of the skill whose SKILL.md is `skill_md` (its digest and size; the frontmatter
/// as the server read it from SKILL_MD).
fn listing(skill_md: &str) -> Skill {
    let file = |uri: &str, text: &str| json!({"uri": uri, "digest": format!("sha256:{}", sha256_hex(text.as_bytes())), "size": text.len()});
    serde_json::from_value(json!({
        "uri": SKILL_URI,
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": [file(SKILL_URI, skill_md), file(FORMS_URI, FORMS_MD)],
    }))
    .expect("a skill entry")
}

fn served(uri: &str, text: &str) -> Result<Output, ClientError> {
    let read: ReadResourceResult = serde_json::from_value(json!({
        "contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]
    }))
    .expect("a read result");
    Ok(Output::Resource(read))
}

fn list(host: &Mem) {
    list_for(host, SKILL_MD);
}

fn list_for(host: &Mem, skill_md: &str) {
    host.answer(
        "notes",
        "skills/list",
        Ok(Output::Skills(vec![listing(skill_md)])),
    );
}

fn load(name: &str, file: Option<&str>) -> Value {
    let mut message = json!({
        "type": "skills/load",
        "chat": {"tabId": TAB, "url": URL},
        "serverId": "notes",
        "name": name,
    });
    if let Some(file) = file {
        message["file"] = json!(file);
    }
    message
}

fn reads(log: &[String]) -> usize {
    log.iter().filter(|l| l.ends_with("resources/read")).count()
}

#[test]
fn skills_are_listed_without_reading_a_file() {
    let (host, run) = loaded();
    list(&host);
    let views = ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    assert_eq!(views[0]["serverId"], "notes");
    assert_eq!(views[0]["skills"][0]["name"], "pdf-processing");
    assert_eq!(
        views[0]["skills"][0]["description"],
        "Extract, fill, and assemble PDF documents"
    );
    assert_eq!(views[0]["skills"][0]["references"], json!([FORMS_URI]));
    let log = host.take_log();
    assert_eq!(log, ["mcp notes skills/list", "write local skills"]);
    assert_eq!(reads(&log), 0, "no prefetch: {log:?}");
    assert!(host.0.inserted.borrow().is_empty());
}

#[test]
fn a_server_without_the_method_has_no_skills() {
    let (host, run) = loaded();
    host.answer(
        "notes",
        "skills/list",
        Err(ClientError::Rpc {
            method: "skills/list".into(),
            code: relay_core::client::jsonrpc::ErrorCode::METHOD_NOT_FOUND,
            message: "Method not found".into(),
            data: None,
        }),
    );
    let views = ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    assert_eq!(views[0]["skills"], json!([]));
    assert!(views[0].get("error").is_none(), "{views}");
}

#[test]
fn a_loaded_skill_is_verified_and_written_into_the_composer() {
    let (host, run) = loaded();
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": false});
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    host.take_log();
    host.answer("notes", "resources/read", served(SKILL_URI, SKILL_MD));
    let loaded = ask(&run, &page(), load("pdf-processing", None)).expect("loaded");
    assert_eq!(loaded["name"], "pdf-processing");
    assert_eq!(loaded["uri"], SKILL_URI);
    assert_eq!(loaded["bytes"], SKILL_MD.len());
    assert_eq!(loaded["outcome"]["inserted"], true);
    let log = host.take_log();
    assert_eq!(reads(&log), 1, "{log:?}");
    assert!(log.contains(&format!("tab {TAB} relay/insert")), "{log:?}");
    let inserted = host.0.inserted.borrow().clone();
    assert_eq!(inserted.len(), 1);
    assert!(inserted[0].contains("SKILL_BODY"), "{}", inserted[0]);
    assert!(
        inserted[0].contains(FORMS_URI),
        "the references are named: {}",
        inserted[0]
    );
    // Only the SKILL.md was read: a reference file waits until it is asked for.
    assert!(!inserted[0].contains("FORMS_BODY"));

    host.answer("notes", "resources/read", served(FORMS_URI, FORMS_MD));
    let reference = ask(
        &run,
        &page(),
        load("pdf-processing", Some("references/FORMS.md")),
    )
    .expect("the reference loaded");
    assert_eq!(reference["uri"], FORMS_URI);
    assert!(host.0.inserted.borrow()[1].contains("FORMS_BODY"));
}

#[test]
fn a_file_that_does_not_match_the_listing_never_reaches_the_chat() {
    let tampered = SKILL_MD.replace("SKILL_BODY", "EVIL_BODY!");
    let longer = format!("{SKILL_MD}EVIL_EXTRA\n");
    let other_frontmatter = SKILL_MD.replace(
        "Extract, fill, and assemble PDF documents",
        "Exfiltrate credentials",
    );
    // (what, the SKILL.md listed (digest and size), the one served, what the error names)
    let cases = [
        ("wrong digest", SKILL_MD, tampered.as_str(), "digest"),
        ("wrong size", SKILL_MD, longer.as_str(), "bytes"),
        // Digest and size match the served file: only its frontmatter differs from the listing.
        (
            "frontmatter mismatch",
            other_frontmatter.as_str(),
            other_frontmatter.as_str(),
            "description",
        ),
    ];
    for (what, listed, text, says) in cases {
        let (host, run) = loaded();
        *host.0.tab_answer.borrow_mut() = json!({"inserted": true});
        list_for(&host, listed);
        host.answer("notes", "resources/read", served(SKILL_URI, text));
        let error = ask(&run, &page(), load("pdf-processing", None)).expect_err(what);
        assert_eq!(error.kind, ErrorKind::SkillUnverified, "{what}: {error:?}");
        assert_eq!(error.details, [SKILL_URI], "{what}");
        assert!(error.message.contains(says), "{what}: {}", error.message);
        let log = host.take_log();
        assert!(
            !log.iter().any(|l| l.contains("relay/insert")),
            "{what}: {log:?}"
        );
        assert!(host.0.inserted.borrow().is_empty(), "{what}");
        // Nothing after the failed file is read.
        assert_eq!(reads(&log), 1, "{what}: {log:?}");
    }
}

#[test]
fn after_a_restart_a_load_lists_first_and_unknown_names_are_refused() {
    let (host, run) = loaded();
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    let run = restart(&host);
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true});
    list(&host);
    host.answer("notes", "resources/read", served(SKILL_URI, SKILL_MD));
    ask(&run, &page(), load("pdf-processing", None)).expect("loaded");
    assert_eq!(
        host.take_log()[..2],
        ["mcp notes skills/list", "mcp notes resources/read"]
    );
    let error = ask(&run, &page(), load("no-such-skill", None)).expect_err("unknown");
    assert_eq!(error.kind, ErrorKind::InvalidArgument);
    let error =
        ask(&run, &page(), load("pdf-processing", Some("secrets.txt"))).expect_err("unlisted");
    assert_eq!(error.kind, ErrorKind::InvalidArgument);
    assert_eq!(reads(&host.take_log()), 0);
}

const LOAD_CALL: &str = "Let me read the skill first.\n```json\n{\"tool\": \"load_skill\", \"arguments\": {\"name\": \"pdf-processing\"}}\n```\n";

/// The model asks for the skill (`load_skill`, allowed by the user's policy like any tool): the
/// page's reply is written, the call runs, and the chat gets its result.
fn model_loads(host: &Mem, run: &std::rc::Rc<relay_core::app::Runner<Mem>>) -> Value {
    ask(
        run,
        &page(),
        json!({"type": "tools/policy", "serverId": "notes", "tool": "load_skill", "policy": "allow"}),
    )
    .expect("allowed");
    *host.0.tab_answer.borrow_mut() = json!({"inserted": true, "submitted": true});
    ask(
        run,
        &app_harness::content(),
        app_harness::look("load-1", json!([]), false),
    )
    .expect("page load");
    let reply = app_harness::look("load-1", json!([{"h": 1, "text": LOAD_CALL}]), true);
    let answer = ask(run, &app_harness::content(), reply).expect("read");
    host.advance(2_000);
    ask(
        run,
        &app_harness::content(),
        app_harness::look("load-1", json!([{"h": 1}]), false),
    )
    .expect("ended");
    host.settle();
    answer
}

/// The chat's one call record.
fn only_call(run: &std::rc::Rc<relay_core::app::Runner<Mem>>) -> relay_core::policy::CallRecord {
    let app = run.app.borrow();
    let call = app.ledger.calls.values().next().cloned();
    call.expect("a call")
}

#[test]
fn the_prompt_offers_load_skill_only_for_servers_with_skills() {
    let (host, run) = loaded();
    let chat = json!({"tabId": TAB, "url": URL});
    let before = ask(&run, &page(), json!({"type": "prompt/build", "chat": chat})).expect("prompt");
    assert!(!before["text"]
        .as_str()
        .unwrap_or_default()
        .contains("load_skill"));
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    let after = ask(&run, &page(), json!({"type": "prompt/build", "chat": chat})).expect("prompt");
    let text = after["text"].as_str().unwrap_or_default();
    assert!(text.contains("load_skill"), "{text}");
    assert!(
        text.contains("pdf-processing")
            && text.contains("Extract, fill, and assemble PDF documents"),
        "{text}"
    );
    assert_eq!(
        reads(&host.take_log()),
        0,
        "describing a skill reads none of its files"
    );
}

#[test]
fn the_models_load_skill_call_answers_with_the_verified_skill() {
    let (host, run) = loaded();
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    host.answer("notes", "resources/read", served(SKILL_URI, SKILL_MD));
    let answer = model_loads(&host, &run);
    assert_eq!(answer["calls"][0]["tool"], "load_skill", "{answer}");
    let log = host.take_log();
    assert_eq!(reads(&log), 1, "{log:?}");
    assert!(
        !log.iter().any(|l| l.ends_with("tools/call")),
        "no tool of the server ran: {log:?}"
    );
    let inserted = host.0.inserted.borrow().clone();
    assert!(
        inserted.iter().any(|t| t.contains("SKILL_BODY")),
        "{inserted:?}"
    );
    let record = only_call(&run);
    assert_eq!(
        record.state,
        relay_core::policy::CallState::Done,
        "{record:?}"
    );
}

#[test]
fn a_tampered_skill_the_model_asks_for_is_an_error_and_never_reaches_the_chat() {
    let (host, run) = loaded();
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    let tampered = SKILL_MD.replace("SKILL_BODY", "EVIL_BODY!");
    host.answer("notes", "resources/read", served(SKILL_URI, &tampered));
    model_loads(&host, &run);
    let inserted = host.0.inserted.borrow().clone();
    assert!(
        !inserted.iter().any(|t| t.contains("EVIL_BODY")),
        "{inserted:?}"
    );
    // The model is told why (the chat gets the error), and Activity shows it failed.
    assert!(
        inserted.iter().any(|t| t.contains("does not match")),
        "{inserted:?}"
    );
    let record = only_call(&run);
    assert_eq!(
        record.state,
        relay_core::policy::CallState::Failed,
        "{record:?}"
    );
}

/// The listing outlives the worker: a restarted worker's prompt still offers `load_skill`, and
/// the model's call of it, in a reply read after the restart, is a call (nothing listed again,
/// one read). A removed server's listing goes with it.
#[test]
fn a_restarted_workers_prompt_and_parser_still_know_load_skill() {
    let (host, run) = loaded();
    list(&host);
    ask(&run, &page(), json!({"type": "skills/list"})).expect("listed");
    let stored = app_harness::stored_skills(&host);
    assert_eq!(stored["notes"][0]["uri"], SKILL_URI, "{stored:#}");
    assert!(
        !stored.to_string().contains("SKILL_BODY"),
        "no file content is stored"
    );
    host.stop();
    let run = restart(&host);
    let chat = json!({"tabId": TAB, "url": URL});
    let prompt = ask(&run, &page(), json!({"type": "prompt/build", "chat": chat})).expect("prompt");
    assert!(prompt["text"]
        .as_str()
        .unwrap_or_default()
        .contains("load_skill"));
    host.answer("notes", "resources/read", served(SKILL_URI, SKILL_MD));
    model_loads(&host, &run);
    let log = host.take_log();
    assert_eq!(reads(&log), 1, "{log:#?}");
    assert!(!log.iter().any(|l| l.ends_with("skills/list")), "{log:#?}");
    let inserted = host.0.inserted.borrow().join("\n");
    assert!(inserted.contains("SKILL_BODY"), "{inserted}");
    ask(
        &run,
        &page(),
        json!({"type": "servers/remove", "id": "notes"}),
    )
    .expect("removed");
    host.settle();
    assert!(app_harness::stored_skills(&host).get("notes").is_none());
}
