//! Chat settings remembered per site: a user picks servers once per site (every chat of the
//! site without settings of its own starts with them; auto-run and auto-send only where the
//! user applied them to the whole site) and can override one chat.

use relay_core::app::{chat_key, chat_origin, App, ChatSettings, Config};
use relay_core::policy::Ledger;

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

#[test]
fn pick_once_per_site_override_per_chat() {
    let (mut app, _) = App::restore(Config::default(), Default::default(), Ledger::default());
    let a = chat_key(1, "https://chat.example.com/c/1");
    let b = chat_key(2, "https://chat.example.com/c/2"); // same site, another tab and chat
    let other = chat_key(3, "https://other.example.org/");
    let fresh = |app: &App, k: &str| app.config.chat(k);

    assert_eq!(
        fresh(&app, &b),
        ChatSettings::default(),
        "nothing picked yet"
    );
    app.set_chat(&a, picked(&["s1"], true));
    // (chat, settings it gets, where they come from): the switches stay in their chat.
    let table = [
        (&a, picked(&["s1"], true), "chat"),
        (&b, picked(&["s1"], false), "site"),
        (&other, ChatSettings::default(), "default"),
    ];
    for (k, want, source) in table {
        assert_eq!(fresh(&app, k), want, "{k}");
        assert_eq!(
            serde_json::to_value(app.config.chat_source(k)).expect("json"),
            source,
            "{k}"
        );
    }

    // One chat overridden: its site and the site's other chats are unchanged.
    app.set_chat_only(&b, picked(&["s2"], false));
    assert_eq!(fresh(&app, &b), picked(&["s2"], false));
    assert_eq!(fresh(&app, &a), picked(&["s1"], true));
    let c = chat_key(4, "https://chat.example.com/new");
    assert_eq!(
        fresh(&app, &c),
        picked(&["s1"], false),
        "a new chat of the site starts with the site's pick, switches off"
    );

    // A new pick on the site is what its chats without their own settings start with; the
    // switches too when the user applied them to the whole site.
    let site_wide = ChatSettings {
        switches_for_site: true,
        ..picked(&["s3"], true)
    };
    app.set_chat(&c, site_wide.clone());
    let d = chat_key(5, "https://chat.example.com/c/5");
    assert_eq!(fresh(&app, &d), site_wide);
    assert_eq!(fresh(&app, &b), picked(&["s2"], false), "an override stays");

    // Removing a server forgets it in the sites' picks too.
    let mut config = app.config.clone();
    config.remove_server("s3");
    assert_eq!(config.chat(&d).server_ids, Vec::<String>::new());
}

/// A pending call says why it waits: an allowed tool in a chat without auto-run, or a tool
/// whose policy asks.
#[test]
fn a_waiting_call_says_why() {
    use relay_core::client::ServerConfig;
    use relay_core::model::Tool;
    use relay_core::policy::{CallState, ToolPolicy};
    use serde_json::json;
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
        let tools = std::collections::BTreeMap::from([(
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
