//! `App::handle`: every request of the contract decided without IO. Each case sends a raw
//! message through the contract's admission, as the service worker does, and checks what the app
//! answers (with which effects), which IO it asks the driver for, or why it refuses.

use relay_core::sorted_map::SortedMap;

use relay_core::app::{
    adapter_for, chat_key, import_preview, site_entry, sites_with, App, Config, Effect, Io, Sender,
    Step,
};
use relay_core::client::{ImportReport, Operation, ServerConfig, TransportKind};
use relay_core::contract::{admit, ErrorBody, Role, TabMessage};
use relay_core::model::Tool;
use relay_core::policy::Ledger;
use relay_core::rare::{ImportCall, Rare, RareCall, RareReply};
use serde_json::{json, Value};

const URL: &str = "https://chat.example/c/1";

fn page() -> Sender {
    Sender {
        role: "page".into(),
        origin: "chrome-extension://abc".into(),
        ..Sender::default()
    }
}

fn content() -> Sender {
    Sender {
        role: "content".into(),
        origin: "https://chat.example".into(),
        tab_id: Some(7),
        frame_id: Some(0),
        url: Some(format!("{URL}#m-2")),
        reported_url: None,
    }
}

fn app() -> App {
    let mut config = Config::default();
    let mut off = ServerConfig::new("off", "Off", "http://127.0.0.1:9/mcp");
    off.enabled = false;
    let mut legacy = ServerConfig::new("old", "Old", "http://127.0.0.1:8/sse");
    legacy.transport = TransportKind::Sse;
    config.servers = vec![
        ServerConfig::new("notes", "Notes", "http://127.0.0.1:3001/mcp"),
        off,
        legacy,
    ];
    let tools = SortedMap::from([(
        "notes".to_owned(),
        vec![Tool::new("add", json!({"type": "object"}))],
    )]);
    App::restore(config, tools, Ledger::default()).0
}

fn handle(app: &mut App, sender: &Sender, message: Value) -> Result<Step, ErrorBody> {
    let role = sender.role()?;
    let request = admit(&message, role).map_err(ErrorBody::from)?;
    app.handle(request, sender)
}

fn io(app: &mut App, sender: &Sender, message: Value) -> Io {
    match handle(app, sender, message.clone()) {
        Ok(Step::Io(io)) => io,
        other => panic!("{message}: expected IO, got {other:?}"),
    }
}

fn done(app: &mut App, sender: &Sender, message: Value) -> (Value, Vec<Effect>) {
    match handle(app, sender, message.clone()) {
        Ok(Step::Done(value, effects)) => (value, effects),
        other => panic!("{message}: expected an answer, got {other:?}"),
    }
}

#[test]
fn requests_that_need_io_name_it_with_checked_fields() {
    let mut app = app();
    let (p, c) = (page(), content());
    // (sender, message, IO)
    let table: Vec<(&Sender, Value, Io)> = vec![
        (
            &p,
            json!({"type": "servers/list"}),
            Io::ServersList(vec!["notes".into(), "off".into(), "old".into()]),
        ),
        (
            &p,
            json!({"type": "servers/remove", "id": "notes"}),
            Io::ServersRemove("notes".into()),
        ),
        (
            &p,
            json!({"type": "servers/test", "id": "old"}),
            Io::ServersTest("old".into()),
        ),
        (
            &p,
            json!({"type": "tools/list"}),
            Io::ToolsList {
                ids: vec!["notes".into(), "old".into()],
                single: false,
                refresh: false,
            },
        ),
        (
            &p,
            json!({"type": "tools/list", "serverId": "off", "refresh": true}),
            Io::ToolsList {
                ids: vec!["off".into()],
                single: true,
                refresh: true,
            },
        ),
        (
            &p,
            json!({"type": "prompts/get", "serverId": "notes", "name": "p", "arguments": {"a": "1"}}),
            Io::Mcp {
                server: "notes".into(),
                op: Operation::GetPrompt {
                    name: "p".into(),
                    arguments: json!({"a": "1"}).as_object().cloned().unwrap_or_default(),
                },
            },
        ),
        (
            &p,
            json!({"type": "resources/read", "serverId": "notes", "uri": "file:///x"}),
            Io::Mcp {
                server: "notes".into(),
                op: Operation::ReadResource {
                    uri: "file:///x".into(),
                },
            },
        ),
        (
            &p,
            json!({"type": "sites/add", "origin": "https://Chat.Example.com/"}),
            Io::SitesChange {
                origin: "https://chat.example.com".into(),
                entry: Some(json!({"origin": "https://chat.example.com", "adapter": "generic"})),
                answer: None,
            },
        ),
        (
            &p,
            json!({"type": "sites/remove", "origin": "https://chat.example.com"}),
            Io::SitesChange {
                origin: "https://chat.example.com".into(),
                entry: None,
                answer: None,
            },
        ),
        (
            &p,
            json!({"type": "sites/teach", "chat": {"tabId": 9, "url": URL}}),
            Io::Tab {
                tab: 9,
                message: TabMessage::Teach {},
                effects: Vec::new(),
            },
        ),
        (
            &p,
            json!({"type": "sites/check", "chat": {"tabId": 9, "url": URL}}),
            Io::Tab {
                tab: 9,
                message: TabMessage::Check {},
                effects: Vec::new(),
            },
        ),
        (
            &c,
            json!({"type": "sites/adapter"}),
            Io::SitesAdapter("https://chat.example".into()),
        ),
    ];
    for (sender, message, want) in table {
        assert_eq!(io(&mut app, sender, message.clone()), want, "{message}");
    }
}

#[test]
fn inserting_into_a_chat_starts_a_new_turn_before_the_text_goes_out() {
    let mut app = app();
    let message = json!({"type": "chat/insert", "chat": {"tabId": 7, "url": URL}, "text": "hi", "submit": true});
    let want = Io::Tab {
        tab: 7,
        message: TabMessage::Insert {
            text: "hi".into(),
            submit: true,
            attachments: Vec::new(),
            without_files: None,
        },
        effects: vec![Effect::SaveLedger],
    };
    assert_eq!(io(&mut app, &page(), message), want);
}

#[test]
fn answers_come_from_the_state_with_their_effects() {
    let mut app = app();
    let (value, effects) = done(&mut app, &page(), json!({"type": "servers/export"}));
    assert!(effects.is_empty());
    assert_eq!(
        value,
        json!({"mcpServers": {
            "Notes": {"url": "http://127.0.0.1:3001/mcp", "type": "http"},
            "Off": {"url": "http://127.0.0.1:9/mcp", "type": "http"},
            "Old": {"url": "http://127.0.0.1:8/sse", "type": "sse"}}})
    );
    let (value, _) = done(&mut app, &content(), json!({"type": "ping"}));
    assert_eq!(value["role"], "content");
    // A content script's chat is its own tab and URL (without the fragment).
    let set = json!({"type": "chat/set", "chat": {"tabId": 7, "url": URL}, "settings": {"serverIds": ["notes"]}});
    let (_, effects) = done(&mut app, &page(), set);
    assert_eq!(effects, [Effect::SaveConfig]);
    let (value, _) = done(&mut app, &content(), json!({"type": "chat/get"}));
    assert_eq!(value["serverIds"], json!(["notes"]));
    assert_eq!(app.config.chats.keys().next(), Some(&chat_key(7, URL)));
    let (value, effects) = done(
        &mut app,
        &page(),
        json!({"type": "tools/policy", "serverId": "notes", "tool": "add", "policy": "allow"}),
    );
    assert_eq!(effects, [Effect::SaveConfig]);
    assert_eq!(value[0]["policy"], "allow");
    // An import is read in the second module (`relay_core::rare`), then previewed: the
    // header's value never in the answer.
    let import = json!({"type": "servers/import", "json": r#"{"mcpServers": {"x": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer s3cret"}}}}"#});
    let Io::ServersImportRead { call, apply } = io(&mut app, &page(), import) else {
        panic!("the configuration is read first");
    };
    assert!(!apply);
    assert_eq!(call.existing, ["notes", "off", "old"]);
    let sent = serde_json::to_value(RareCall::ImportServers(call)).expect("a call");
    let reply = Rare::default().serve_value(sent);
    let reply: RareReply = relay_core::json_value::from_value(reply).expect("a reply");
    let value = import_preview(reply.into_result().expect("a report"));
    assert!(!value.to_string().contains("s3cret"), "{value}");
    assert_eq!(value["servers"][0]["name"], "x");
    // Not JSON: the reason, from the second module.
    let bad = RareCall::ImportServers(ImportCall {
        text: "{".into(),
        existing: Vec::new(),
    });
    let reply = Rare::default().serve_value(serde_json::to_value(bad).expect("a call"));
    let reply: RareReply = relay_core::json_value::from_value(reply).expect("a reply");
    let error = reply.into_result::<ImportReport>().expect_err("not JSON");
    assert_eq!(error.kind.as_str(), "invalid_argument");
    assert!(error.message.contains("not JSON"), "{error:?}");
}

#[test]
fn malformed_requests_are_refused_with_what_to_fix() {
    let mut app = app();
    let (p, c) = (page(), content());
    // (sender, message, error kind, message fragment)
    let table: Vec<(&Sender, Value, &str, &str)> = vec![
        (
            &p,
            json!({"type": "servers/remove"}),
            "invalid_argument",
            "'id' is required",
        ),
        (
            &p,
            json!({"type": "servers/remove", "id": ""}),
            "invalid_argument",
            "'id' is required",
        ),
        (
            &p,
            json!({"type": "chat/get"}),
            "invalid_argument",
            "'chat' ({tabId, url}) is required",
        ),
        (
            &p,
            json!({"type": "chat/get", "chat": {"url": URL}}),
            "invalid_argument",
            "'chat.tabId' is required",
        ),
        (
            &p,
            json!({"type": "settings/set", "settings": {"language": 3}}),
            "invalid_argument",
            "'settings/set' is malformed: invalid type: integer `3`, expected a string",
        ),
        (
            &p,
            json!({"type": "tools/policy", "serverId": "notes", "policy": "sometimes"}),
            "invalid_argument",
            "expected one of `allow`, `ask`, `deny`",
        ),
        (
            &p,
            json!({"type": "sites/add", "origin": "https://x.example/path"}),
            "invalid_argument",
            "is not a web origin",
        ),
        (
            &p,
            json!({"type": "sites/add", "origin": "javascript:alert(1)"}),
            "invalid_argument",
            "is not a web origin",
        ),
        (
            &c,
            json!({"type": "activity/decide", "key": "k", "decision": "maybe"}),
            "invalid_argument",
            "unknown variant `maybe`, expected one of `run`, `deny`, `always`",
        ),
        (
            &c,
            json!({"type": "servers/list"}),
            "forbidden",
            "not allowed",
        ),
        (
            &c,
            json!({"type": "page/observe", "turns": [{"h": "first"}]}),
            "invalid_argument",
            "expected u32",
        ),
    ];
    for (sender, message, kind, fragment) in table {
        let error = handle(&mut app, sender, message.clone()).expect_err("refused");
        assert_eq!(error.kind, kind, "{message}");
        assert!(
            error.message.contains(fragment),
            "{message}: {}",
            error.message
        );
    }
    let stranger = Sender {
        role: "web".into(),
        ..Sender::default()
    };
    assert_eq!(stranger.role().expect_err("refused").kind, "forbidden");
    let no_tab = Sender {
        tab_id: None,
        ..content()
    };
    let error = handle(&mut app, &no_tab, json!({"type": "chat/get"})).expect_err("refused");
    assert!(error.message.contains("without a tab"));
}

#[test]
fn custom_sites_are_replaced_by_origin_and_found_by_origin() {
    let a = "https://a.example";
    let choice = |adapter: Value| serde_json::from_value(adapter).expect("an adapter choice");
    let entry = |origin: &str, adapter: Value| {
        let site = site_entry(origin, Some(choice(adapter))).expect("valid");
        serde_json::to_value(site).expect("json")
    };
    let found = |sites: &[Value], origin: &str| {
        serde_json::to_value(adapter_for(sites, origin)).expect("json")
    };
    let sites = sites_with(Vec::new(), a, Some(entry(a, json!("generic"))));
    let sites = sites_with(
        sites,
        "https://b.example",
        Some(entry("https://b.example", json!("chatgpt"))),
    );
    let sites = sites_with(sites, a, Some(entry(a, json!("claude"))));
    assert_eq!(sites.len(), 2);
    assert_eq!(found(&sites, a), json!({"adapter": "claude"}));
    // Adapter data (taught, edited, imported) is validated and kept as the site's `custom`.
    let taught = json!({"id": "taught", "input": ["textarea"], "send": ["button"], "assistant": ["article"]});
    let sites = sites_with(sites, a, Some(entry(a, taught)));
    let got = found(&sites, a);
    assert_eq!(got["adapter"], "taught");
    assert_eq!(got["custom"]["input"], json!(["textarea"]));
    let refused = site_entry(a, Some(choice(json!({"input": ["a"], "send": ["b"]}))))
        .expect_err("no assistant");
    assert_eq!(refused.kind, "invalid_argument");
    assert!(
        refused.message.contains("'assistant'"),
        "{}",
        refused.message
    );
    assert_eq!(found(&sites, "https://c.example"), Value::Null);
    let sites = sites_with(sites, a, None);
    assert_eq!(found(&sites, a), Value::Null);
    assert_eq!(sites.len(), 1);
}

#[test]
fn a_site_keeps_its_permission_while_a_server_lives_on_its_origin() {
    let app = app();
    for (origin, used) in [
        ("http://127.0.0.1:3001", true),
        ("HTTP://127.0.0.1:3001", true),
        ("http://127.0.0.1:3002", false),
        ("https://chat.example", false),
    ] {
        assert_eq!(app.origin_in_use(origin), used, "{origin}");
    }
    assert_eq!(Role::Page, page().role().expect("page"));
}

#[test]
fn origin_rules_are_made_for_the_server_list_as_it_will_be() {
    let app = app();
    let moved = ServerConfig::new("notes", "Notes", "http://127.0.0.1:4000/mcp");
    let fresh = ServerConfig::new("new", "New", "http://localhost:5000/mcp");
    let urls =
        |list: Vec<ServerConfig>| -> Vec<String> { list.into_iter().map(|s| s.url).collect() };
    // (server, replace, URLs of the list it makes the rules for)
    let table = [
        (
            &moved,
            true,
            vec![
                "http://127.0.0.1:4000/mcp",
                "http://127.0.0.1:9/mcp",
                "http://127.0.0.1:8/sse",
            ],
        ),
        // Added under a taken id (refused later): both servers keep their rules meanwhile.
        (
            &moved,
            false,
            vec![
                "http://127.0.0.1:3001/mcp",
                "http://127.0.0.1:9/mcp",
                "http://127.0.0.1:8/sse",
                "http://127.0.0.1:4000/mcp",
            ],
        ),
        (
            &fresh,
            false,
            vec![
                "http://127.0.0.1:3001/mcp",
                "http://127.0.0.1:9/mcp",
                "http://127.0.0.1:8/sse",
                "http://localhost:5000/mcp",
            ],
        ),
        (
            &fresh,
            true,
            vec![
                "http://127.0.0.1:3001/mcp",
                "http://127.0.0.1:9/mcp",
                "http://127.0.0.1:8/sse",
            ],
        ),
    ];
    for (server, replace, want) in table {
        assert_eq!(
            urls(app.servers_with(server, replace)),
            want,
            "{} {replace}",
            server.id
        );
    }
}

#[test]
fn a_taught_adapter_is_saved_for_the_senders_own_origin_and_answered() {
    let mut app = app();
    let taught = json!({"id": "taught", "input": ["textarea"], "send": ["button"], "assistant": ["article"]});
    // The message cannot name another origin: the sender's (from Chrome) is the one saved.
    let message =
        json!({"type": "sites/taught", "origin": "https://evil.example", "adapter": taught});
    match io(&mut app, &content(), message) {
        Io::SitesChange {
            origin,
            entry,
            answer,
        } => {
            assert_eq!(origin, "https://chat.example");
            let entry = entry.expect("an entry");
            assert_eq!(entry["origin"], "https://chat.example");
            assert_eq!(entry["custom"]["assistant"], json!(["article"]));
            assert_eq!(answer, Some(entry["custom"].clone()));
        }
        other => panic!("{other:?}"),
    }
    let refused = handle(
        &mut app,
        &content(),
        json!({"type": "sites/taught", "adapter": "chatgpt"}),
    )
    .expect_err("not adapter data");
    assert_eq!(refused.kind, "invalid_argument");
}

#[test]
fn a_content_script_names_its_current_url_within_its_origin_only() {
    let mut app = app();
    let moved = Sender {
        reported_url: Some("https://chat.example/c/42".into()),
        ..content()
    };
    let settings = json!({"type": "chat/set", "chat": {"tabId": 7, "url": "https://chat.example/c/42"},
        "settings": {"serverIds": ["notes"]}, "scope": "chat"});
    handle(&mut app, &page(), settings).expect("set");
    let (got, _) = done(&mut app, &moved, json!({"type": "chat/get"}));
    assert_eq!(got["serverIds"], json!(["notes"]));
    assert_eq!(got["source"], "chat");
    // Another origin's URL is not taken: the sender's own (Chrome's) names the chat.
    let elsewhere = Sender {
        reported_url: Some("https://evil.example/c/42".into()),
        ..content()
    };
    let (got, _) = done(&mut app, &elsewhere, json!({"type": "chat/get"}));
    assert_ne!(got["source"], "chat");
}

/// What a server speaks is remembered across worker restarts (in the configuration), saved
/// only when it changes, and forgotten with the server or when its URL changes.
#[test]
fn what_a_server_speaks_is_remembered_until_it_moves_or_goes() {
    use relay_core::client::ProtocolMode::{Session, Stateless};
    let mut app = app();
    let id = app.config.servers[0].id.clone();
    assert_eq!(app.learned(&id, None), []);
    assert_eq!(app.learned(&id, Some(Stateless)), [Effect::SaveConfig]);
    assert_eq!(
        app.learned(&id, Some(Stateless)),
        [],
        "unchanged: nothing to save"
    );
    assert_eq!(app.learned("gone", Some(Session)), [], "no such server");
    let stored = serde_json::to_value(&app.config).expect("config");
    assert_eq!(stored["protocols"][&id], json!("stateless"));
    let mut renamed = app.config.servers[0].clone();
    renamed.name = "Renamed".into();
    app.update_server(renamed);
    assert_eq!(app.config.protocols.get(&id), Some(&Stateless));
    let mut moved = app.config.servers[0].clone();
    moved.url = "http://127.0.0.1:9/other".into();
    app.update_server(moved);
    assert_eq!(app.config.protocols.get(&id), None);
    app.learned(&id, Some(Session));
    app.remove_server(&id);
    assert!(app.config.protocols.is_empty());
}

/// The prompt of a fresh app on the same state: what a cached prompt must equal.
fn fresh_prompt(app: &App, ids: &[String]) -> Value {
    let (fresh, _) = App::restore(app.config.clone(), app.tools.clone(), Ledger::default());
    fresh.prompt(None, ids, None)
}

#[test]
fn a_prompt_is_rendered_once_per_selection_and_follows_every_change_of_its_tools() {
    let mut app = app();
    let ids = vec!["notes".to_owned(), "old".to_owned()];
    let first = app.prompt(None, &ids, None);
    assert!(
        first["text"].as_str().unwrap_or_default().contains("add("),
        "{first}"
    );
    assert_eq!(app.prompt(None, &ids, None), first, "the cached prompt");
    // Each change, then the app's prompt equals a fresh app's, and differs from before.
    type Change = fn(&mut App);
    let changes: [(&str, Change); 5] = [
        ("new tools", |app| {
            let tools = vec![
                Tool::new("add", json!({"type": "object"})),
                Tool::new("list", json!({})),
            ];
            app.set_tools("notes", tools);
        }),
        ("a tool switched off", |app| {
            app.config.set_tool("notes", "list", None, Some(false));
        }),
        ("the server renamed", |app| {
            app.config.servers[0].name = "Notebook".into();
        }),
        ("the other server listed", |app| {
            app.set_tools("old", vec![Tool::new("fetch", json!({"type": "object"}))]);
        }),
        ("the server switched off", |app| {
            app.config.servers[0].enabled = false;
        }),
    ];
    let mut before = first;
    for (what, change) in changes {
        change(&mut app);
        let now = app.prompt(None, &ids, None);
        assert_eq!(now, fresh_prompt(&app, &ids), "{what}");
        assert_ne!(now, before, "{what}: the prompt changed");
        before = now;
    }
    // Other options reuse the rendered tools and still match a fresh app.
    let options = serde_json::from_value(json!({"customInstructions": "Be brief."})).ok();
    let (fresh, _) = App::restore(app.config.clone(), app.tools.clone(), Ledger::default());
    assert_eq!(
        app.prompt(None, &ids, options.clone()),
        fresh.prompt(None, &ids, options)
    );
}
