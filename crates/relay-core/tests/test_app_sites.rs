//! Where chat settings apply: one conversation, or its whole site (every conversation of the
//! site without settings of its own), one choice per chat (`chat/set`, `chat/scope`).

use relay_core::app::{chat_key, chat_origin, App, ChatSettings, Config, Sender, Step};
use relay_core::contract::{admit, ErrorBody, Role};
use relay_core::policy::Ledger;
use serde_json::{json, Value};

fn picked(servers: &[&str], auto: bool) -> ChatSettings {
    ChatSettings {
        server_ids: servers.iter().map(|s| (*s).to_owned()).collect(),
        auto_execute: auto,
        auto_submit: auto,
        ..Default::default()
    }
}

#[test]
fn origins_of_chat_keys() {
    let cases = [
        (
            chat_key(1, "https://Chat.Example.com/c/1?x#y"),
            Some("https://chat.example.com"),
        ),
        (
            chat_key(2, "http://127.0.0.1:8080/"),
            Some("http://127.0.0.1:8080"),
        ),
        (chat_key(3, "about:blank"), None),
        ("no-bar".to_owned(), None),
    ];
    for (key, want) in cases {
        assert_eq!(chat_origin(&key).as_deref(), want, "{key}");
    }
}

/// The panel's settings request, through the contract's admission as the worker sends it.
fn ask(app: &mut App, message: Value) -> Result<Value, ErrorBody> {
    let sender = Sender {
        role: "page".into(),
        origin: "chrome-extension://abc".into(),
        ..Sender::default()
    };
    let request = admit(&message, Role::Page).map_err(ErrorBody::from)?;
    match app.handle(request, &sender)? {
        Step::Done(value, _) => Ok(value),
        other => panic!("{message}: expected an answer, got {other:?}"),
    }
}

/// `{tabId, url}` of a chat key.
fn chat_ref(key: &str) -> Value {
    let (tab, url) = key.split_once('|').expect("a chat key");
    json!({"tabId": tab.parse::<i64>().expect("a tab"), "url": url})
}

/// (source, servers, auto-run) of a chat, as `chat/get` answers.
fn seen(app: &mut App, key: &str) -> (String, Vec<String>, bool) {
    let v = ask(app, json!({"type": "chat/get", "chat": chat_ref(key)})).expect("chat/get");
    (
        v["source"].as_str().expect("source").to_owned(),
        serde_json::from_value(v["serverIds"].clone()).expect("serverIds"),
        v["autoExecute"].as_bool().expect("autoExecute"),
    )
}

fn set(app: &mut App, key: &str, servers: &[&str], auto: bool, scope: Option<&str>) {
    let mut m = json!({"type": "chat/set", "chat": chat_ref(key),
        "settings": {"serverIds": servers, "autoExecute": auto, "autoSubmit": auto}});
    if let Some(scope) = scope {
        m["scope"] = json!(scope);
    }
    ask(app, m).expect("chat/set");
}

fn scope(app: &mut App, key: &str, scope: &str) -> Value {
    ask(
        app,
        json!({"type": "chat/scope", "chat": chat_ref(key), "scope": scope}),
    )
    .expect("scope")
}

/// One choice says where a chat's settings apply: this conversation or its whole site. Every
/// setting, auto-run included, is written where that choice says and only there; switching to
/// "this conversation" starts from what the conversation used; switching back to "the whole
/// site" drops the conversation's own settings.
#[test]
fn one_scope_decides_where_every_setting_lands() {
    let (mut app, _) = App::restore(Config::default(), Default::default(), Ledger::default());
    let a = chat_key(1, "https://chat.example.com/c/1");
    let b = chat_key(2, "https://chat.example.com/c/2"); // same site, another tab and chat
    let other = chat_key(3, "https://other.example.org/");
    let s = |x: &str, servers: &[&str], auto: bool| {
        (
            x.to_owned(),
            servers.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
            auto,
        )
    };
    assert_eq!(
        seen(&mut app, &b),
        s("default", &[], false),
        "nothing set yet"
    );

    // The whole site: both conversations use it, auto-run too; nothing is a chat's own.
    set(&mut app, &a, &["s1"], true, Some("site"));
    assert_eq!(seen(&mut app, &a), s("site", &["s1"], true));
    assert_eq!(seen(&mut app, &b), s("site", &["s1"], true));
    assert_eq!(seen(&mut app, &other), s("default", &[], false));
    assert!(app.config.chats.is_empty(), "{:?}", app.config.chats);

    // This conversation: it starts from the site's values, and a change stays in it.
    let started = scope(&mut app, &b, "chat");
    assert_eq!(started["source"], "chat");
    assert_eq!(seen(&mut app, &b), s("chat", &["s1"], true));
    set(&mut app, &b, &["s2"], false, Some("chat"));
    assert_eq!(seen(&mut app, &b), s("chat", &["s2"], false));
    assert_eq!(
        seen(&mut app, &a),
        s("site", &["s1"], true),
        "the site is unchanged"
    );

    // A site change reaches every conversation without its own settings, not b.
    set(&mut app, &a, &["s3"], false, Some("site"));
    let c = chat_key(4, "https://chat.example.com/new");
    assert_eq!(seen(&mut app, &c), s("site", &["s3"], false));
    assert_eq!(
        seen(&mut app, &b),
        s("chat", &["s2"], false),
        "its own settings stay"
    );

    // Back to the whole site: b's own settings are dropped; the site's apply.
    assert_eq!(scope(&mut app, &b, "site")["source"], "site");
    assert_eq!(seen(&mut app, &b), s("site", &["s3"], false));
    assert!(!app.config.chats.contains_key(&b));

    // Saying "this conversation" for a chat that has it, or "the whole site" for one that
    // follows it, changes nothing.
    set(&mut app, &b, &["s4"], true, Some("chat"));
    assert!(app
        .set_chat_scope(&b, relay_core::contract::request::Scope::Chat)
        .is_empty());
    assert!(app
        .set_chat_scope(&a, relay_core::contract::request::Scope::Site)
        .is_empty());
    assert_eq!(seen(&mut app, &b), s("chat", &["s4"], true));

    // A request that names no scope changes this conversation only: nothing spreads unasked.
    set(&mut app, &c, &["s5"], true, None);
    assert_eq!(seen(&mut app, &c), s("chat", &["s5"], true));
    assert_eq!(seen(&mut app, &a), s("site", &["s3"], false));

    // A page without an origin has no site: its settings stay its own.
    let blank = chat_key(5, "about:blank");
    set(&mut app, &blank, &["s1"], false, Some("site"));
    assert_eq!(seen(&mut app, &blank), s("chat", &["s1"], false));

    // chat/scope needs a scope, and only the panel may send it.
    let missing = ask(
        &mut app,
        json!({"type": "chat/scope", "chat": chat_ref(&a)}),
    );
    assert!(missing.is_err(), "{missing:?}");
    let m = json!({"type": "chat/scope", "chat": chat_ref(&a), "scope": "chat"});
    assert!(
        admit(&m, Role::Content).is_err(),
        "a content script may not change scopes"
    );

    // Removing a server forgets it in the sites' settings too.
    let mut config = app.config.clone();
    config.remove_server("s3");
    assert_eq!(config.chat(&a).server_ids, Vec::<String>::new());
}

/// Site settings remembered before the scope choice existed came from one conversation: the
/// site's other conversations get its servers with auto-run and auto-send off.
#[test]
fn older_site_settings_keep_the_switches_in_their_conversation() {
    let mut config = Config::default();
    let a = chat_key(1, "https://chat.example.com/c/1");
    config.sites.insert(
        chat_origin(&a).expect("origin"),
        picked(&["s1"], true), // switches_for_site: false, as stored before
    );
    let (app, _) = App::restore(config, Default::default(), Ledger::default());
    assert_eq!(app.config.chat(&a), picked(&["s1"], false));
}

/// A pending call says why it waits: an allowed tool in a chat without auto-run, or a tool
/// whose policy asks.
#[test]
fn a_waiting_call_says_why() {
    use relay_core::client::ServerConfig;
    use relay_core::model::Tool;
    use relay_core::policy::{CallState, ToolPolicy};
    let chat = chat_key(7, "https://chat.example/c/1");
    // (policy, auto-run, state, wait)
    let cases = [
        (
            ToolPolicy::Allow,
            false,
            CallState::Pending,
            Some("auto_run_off"),
        ),
        (
            ToolPolicy::Ask,
            false,
            CallState::Pending,
            Some("policy_ask"),
        ),
        (
            ToolPolicy::Ask,
            true,
            CallState::Pending,
            Some("policy_ask"),
        ),
        (ToolPolicy::Allow, true, CallState::Running, None),
    ];
    for (policy, auto, state, wait) in cases {
        let mut config = Config::default();
        config.servers.push(ServerConfig::new(
            "notes",
            "notes",
            "http://127.0.0.1:9/mcp",
        ));
        config.set_tool("notes", "add", Some(policy), None);
        let tools = relay_core::sorted_map::SortedMap::from([(
            "notes".to_owned(),
            vec![Tool::new(
                "add",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            )],
        )]);
        let (mut app, _) = App::restore(config, tools, Ledger::default());
        app.set_chat(
            &chat,
            ChatSettings {
                server_ids: vec!["notes".into()],
                auto_execute: auto,
                ..Default::default()
            },
        );
        let text = "```json\n{\"tool\": \"add\", \"arguments\": {\"text\": \"x\"}}\n```\n";
        let (answer, _) = app.reply_update(&chat, "m1", text, true, false);
        let rec = serde_json::to_value(&answer).unwrap()["calls"][0].clone();
        assert_eq!(
            rec["state"],
            serde_json::to_value(state).unwrap(),
            "{policy:?} auto={auto}"
        );
        assert_eq!(rec["wait"].as_str(), wait, "{policy:?} auto={auto}: {rec}");
    }
}
