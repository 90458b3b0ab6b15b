//! MCP Apps' decisions in the tool loop (`relay_core::apps`): a tool whose visibility lacks
//! `"model"` never reaches the prompt, the parser's names or the model's calls; the same tool
//! stays a tool of its server for the user and for its server's apps; the client declares the
//! extension only when the host renders apps.

use relay_core::sorted_map::SortedMap;

use relay_core::app::{chat_key, App, CallEnd, ChatSettings, Config, Io, Sender, Step};
use relay_core::apps::{self, AppDocument, ToolUi, APP_CALLS_WITHOUT_ASKING};
use relay_core::client::ServerConfig;
use relay_core::contract::{admit, ErrorBody, ErrorKind, TabMessage};
use relay_core::model::{CallToolResult, Content, ReadResourceResult, Tool};
use relay_core::policy::{CallState, Ledger, ToolPolicy};
use relay_core::rare::{AppDocumentCall, Rare, RareCall, RareReply};
use serde_json::{json, Value};

const URL: &str = "https://chat.example/c/1";

fn chat() -> String {
    chat_key(7, URL)
}

/// A tool with `_meta` (and a text parameter).
fn tool(name: &str, description: &str, meta: Value) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "_meta": meta,
    }))
    .expect("tool")
}

/// Server `weather` with a model-and-app tool carrying an interface, an app-only tool, a
/// model-only tool and a plain one; every tool allowed, the chat picking the server with
/// automatic runs.
fn app() -> App {
    let mut config = Config::default();
    config.servers.push(ServerConfig::new(
        "weather",
        "Weather",
        "http://127.0.0.1:9/mcp",
    ));
    config.chats.insert(
        chat(),
        ChatSettings {
            server_ids: vec!["weather".into()],
            auto_execute: true,
            auto_submit: true,
            ..Default::default()
        },
    );
    let tools = vec![
        tool(
            "show_forecast",
            "Shows the FORECAST_VIEW for a city.",
            json!({"ui": {"resourceUri": "ui://weather/forecast.html"}}),
        ),
        tool(
            "refresh_panel",
            "Reloads the APP_ONLY_PANEL data.",
            json!({"ui": {"resourceUri": "ui://weather/forecast.html", "visibility": ["app"]}}),
        ),
        tool(
            "alerts",
            "Lists MODEL_ONLY_ALERTS.",
            json!({"ui": {"visibility": ["model"]}}),
        ),
        tool("plain", "A PLAIN_TOOL.", json!({})),
    ];
    for t in &tools {
        config.set_tool("weather", &t.name, Some(ToolPolicy::Allow), None);
    }
    let tools = SortedMap::from([("weather".to_owned(), tools)]);
    App::restore(config, tools, Ledger::default()).0
}

fn prompt_text(app: &App) -> String {
    let settings = app.config.chats.get(&chat()).cloned();
    let prompt = app.prompt(settings.as_ref(), &["weather".to_owned()], None);
    prompt.to_string()
}

#[test]
fn a_tool_only_for_its_app_is_absent_from_the_prompt() {
    let app = app();
    let text = prompt_text(&app);
    for shown in ["show_forecast", "FORECAST_VIEW", "alerts", "plain"] {
        assert!(text.contains(shown), "{shown} missing from {text}");
    }
    for hidden in ["refresh_panel", "APP_ONLY_PANEL"] {
        assert!(!text.contains(hidden), "{hidden} in the prompt: {text}");
    }
    let names: Vec<String> = app
        .selected_tools(&["weather".to_owned()])
        .into_iter()
        .flat_map(|s| s.tools.into_iter().map(|t| t.name))
        .collect();
    assert_eq!(names, ["show_forecast", "alerts", "plain"]);
}

#[test]
fn the_models_call_of_a_tool_only_for_its_app_never_runs() {
    let mut app = app();
    for (id, name) in [("m1", "refresh_panel"), ("m2", "show_forecast")] {
        let text = format!(
            "Sure.\n```json\n{{\"tool\": \"{name}\", \"arguments\": {{\"text\": \"x\"}}}}\n```\n"
        );
        let (answer, _) = app.reply_update(&chat(), id, &text, true, false);
        let running = answer
            .calls
            .iter()
            .filter(|c| c.state == CallState::Running)
            .count();
        if name == "refresh_panel" {
            assert_eq!(running, 0, "{name} ran: {:?}", answer.calls);
        } else {
            assert_eq!(running, 1, "{name} did not run: {:?}", answer.calls);
        }
    }
    // The same tool is still its server's: the user can run it by hand from the panel, and
    // its server's app may call it.
    assert!(app
        .manual_call("weather", "refresh_panel", &json!({"text": "x"}))
        .is_ok());
    let refresh = app.find_tool("weather", "refresh_panel");
    assert_eq!(
        apps::check_app_call("weather", "weather", "refresh_panel", refresh),
        Ok(())
    );
    let alerts = app.find_tool("weather", "alerts");
    assert!(apps::check_app_call("weather", "weather", "alerts", alerts).is_err());
    assert!(apps::check_app_call("other", "weather", "refresh_panel", refresh).is_err());
}

#[test]
fn a_tools_interface_is_read_from_its_meta() {
    let app = app();
    let ui = |name: &str| ToolUi::of(app.find_tool("weather", name).expect("tool"));
    assert_eq!(
        ui("show_forecast").resource_uri.as_deref(),
        Some("ui://weather/forecast.html")
    );
    assert!(ui("show_forecast").has_app());
    assert!(!ui("plain").has_app());
    assert!(!ui("alerts").app && ui("alerts").model);
}

fn panel() -> Sender {
    Sender {
        role: "page".into(),
        origin: "chrome-extension://abc".into(),
        ..Sender::default()
    }
}

fn handle(app: &mut App, message: Value) -> Result<Step, ErrorBody> {
    let request = admit(&message, panel().role()?).map_err(ErrorBody::from)?;
    app.handle(request, &panel())
}

const VIEW: &str = "<!doctype html><p>forecast</p>";

fn view_read(meta: Value) -> ReadResourceResult {
    serde_json::from_value(json!({"contents": [{
        "uri": "ui://weather/forecast.html", "mimeType": "text/html;profile=mcp-app",
        "text": VIEW, "_meta": meta}]}))
    .expect("read")
}

/// The model calls `show_forecast` in the chat; it runs and ends. Returns its ledger key.
fn forecast_call(app: &mut App) -> String {
    let text = "```json\n{\"tool\": \"show_forecast\", \"arguments\": {\"text\": \"Oslo\"}}\n```\n";
    let (answer, _) = app.reply_update(&chat(), "m1", text, true, false);
    let key = answer.calls[0].key.clone();
    app.prepare_call(&key, 1).expect("ready");
    let result = CallToolResult::success(vec![Content::text("Oslo: 3°C")]);
    app.finish_call(&key, CallEnd::Result(result), 5);
    key
}

/// The document the second module makes of a read (`relay_core::rare`, through JSON values).
fn document(uri: &str, read: &ReadResourceResult) -> Result<AppDocument, ErrorBody> {
    let call = RareCall::AppDocument(AppDocumentCall {
        uri: uri.to_owned(),
        read: read.clone(),
    });
    let reply = Rare::default().serve_value(serde_json::to_value(call).expect("a call"));
    let reply: RareReply = relay_core::json_value::from_value(reply).expect("a reply");
    reply.into_result()
}

/// Opens the app of a chat call: the core asks for its document, then answers its view.
fn open(app: &mut App, key: &str, meta: Value) -> Value {
    let step = handle(app, json!({"type": "apps/open", "key": key})).expect("open");
    let Step::Io(Io::AppsOpen(pending)) = step else {
        panic!("expected the document to be read, got {step:?}")
    };
    assert_eq!(pending.server, "weather");
    assert_eq!(pending.uri, "ui://weather/forecast.html");
    let made = document(&pending.uri, &view_read(meta)).expect("a document");
    app.app_read(pending, made)
}

#[test]
fn a_chat_calls_app_opens_with_its_call_and_a_policy_from_its_declarations() {
    let mut app = app();
    let key = forecast_call(&mut app);
    assert!(
        app.ledger.calls[&key].has_app,
        "Activity offers the call's app"
    );
    let view = open(
        &mut app,
        &key,
        json!({"ui": {"csp": {"connectDomains": ["https://api.weather.example"]}}}),
    );
    let instance = view["instance"].as_str().unwrap().to_owned();
    // Its links open only as the core reads them, and nothing but http(s).
    let link = |app: &mut App, url: &str| {
        handle(
            app,
            json!({"type": "apps/link", "instance": instance, "url": url}),
        )
    };
    let Ok(Step::Done(shown, _)) = link(&mut app, "https://example.com/docs") else {
        panic!("an https link is shown")
    };
    assert_eq!(shown["host"], "example.com");
    for bad in [
        "javascript:alert(1)",
        "data:text/html,x",
        "https://a.example\\@b.example/",
    ] {
        assert_eq!(
            link(&mut app, bad).unwrap_err().kind,
            ErrorKind::Forbidden,
            "{bad}"
        );
    }
    assert_eq!(view["serverId"], "weather");
    assert_eq!(view["tool"]["name"], "show_forecast");
    assert_eq!(view["arguments"], json!({"text": "Oslo"}));
    assert_eq!(view["result"]["content"][0]["text"], "Oslo: 3°C");
    assert_eq!(view["chat"], true);
    assert_eq!(view["document"]["html"], VIEW);
    let csp = view["document"]["csp"].as_str().unwrap();
    assert!(
        csp.contains("connect-src https://api.weather.example;"),
        "{csp}"
    );
    // Opened again, the document is not read again until the server's lists change.
    let again = handle(&mut app, json!({"type": "apps/open", "key": key})).expect("open");
    assert!(matches!(again, Step::Done(..)), "{again:?}");
    app.app_documents_changed("weather");
    let changed = handle(&mut app, json!({"type": "apps/open", "key": key})).expect("open");
    assert!(matches!(changed, Step::Io(Io::AppsOpen(_))), "{changed:?}");
    // A tool without an interface, a non-app document: clear errors.
    let plain = handle(
        &mut app,
        json!({"type": "apps/open", "serverId": "weather", "tool": "plain"}),
    );
    assert_eq!(plain.unwrap_err().kind, ErrorKind::InvalidArgument);
    let Step::Io(Io::AppsOpen(pending)) =
        handle(&mut app, json!({"type": "apps/open", "key": key})).unwrap()
    else {
        panic!()
    };
    let html: ReadResourceResult = serde_json::from_value(json!({"contents": [{
        "uri": "ui://weather/forecast.html", "mimeType": "text/html", "text": "<p>"}]}))
    .unwrap();
    let e = document(&pending.uri, &html).unwrap_err();
    assert!(e.message.contains("not an app"), "{}", e.message);
}

#[test]
fn an_apps_calls_are_its_servers_app_tools_under_the_users_policy_and_recorded_not_delivered() {
    let mut app = app();
    let key = forecast_call(&mut app);
    let view = open(&mut app, &key, json!({}));
    let instance = view["instance"].as_str().unwrap().to_owned();
    let call = |app: &mut App, tool: &str, approved: bool| {
        handle(
            app,
            json!({"type": "apps/call", "instance": instance, "tool": tool,
                "arguments": {"text": "x"}, "approved": approved}),
        )
    };
    // Refused: a model-only tool, a tool its server does not have (another server's).
    for tool in ["alerts", "add"] {
        let e = call(&mut app, tool, true).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Forbidden, "{tool}: {e:?}");
    }
    // An app-only tool the user allowed runs; as the chat's Activity shows it, made by the app.
    let Step::Io(Io::AppsCall { server, tool, .. }) =
        call(&mut app, "refresh_panel", false).unwrap()
    else {
        panic!("expected the call to run")
    };
    assert_eq!(
        (server.as_str(), tool.as_str()),
        ("weather", "refresh_panel")
    );
    let result = CallToolResult::success(vec![Content::text("refreshed")]);
    let (answer, _) = app.app_call_done(
        &instance,
        "refresh_panel",
        Default::default(),
        Ok(result),
        3,
    );
    assert_eq!(answer.unwrap()["content"][0]["text"], "refreshed");
    let by_app: Vec<_> = app
        .ledger
        .for_chat(&chat())
        .into_iter()
        .filter(|r| r.by_app.is_some())
        .cloned()
        .collect();
    assert_eq!(by_app.len(), 1);
    assert_eq!(by_app[0].tool, "refresh_panel");
    assert_eq!(by_app[0].by_app.as_deref(), Some("show_forecast"));
    assert_eq!(by_app[0].state, CallState::Done);
    assert!(
        by_app[0].delivered,
        "an app's call never goes into the chat"
    );
    assert!(app.take_delivery(&chat(), &by_app[0].message_id).is_none());
    // A tool that asks waits for the user's click in the panel.
    app.config
        .set_tool("weather", "refresh_panel", Some(ToolPolicy::Ask), None);
    let e = call(&mut app, "refresh_panel", false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ConfirmRequired);
    assert!(matches!(
        call(&mut app, "refresh_panel", true),
        Ok(Step::Io(Io::AppsCall { .. }))
    ));
    // A flood: past its budget, every further call asks, even of an allowed tool.
    app.config
        .set_tool("weather", "refresh_panel", Some(ToolPolicy::Allow), None);
    let mut ran = 0;
    let mut asked = 0;
    for _ in 0..APP_CALLS_WITHOUT_ASKING + 5 {
        match call(&mut app, "refresh_panel", false) {
            Ok(Step::Io(Io::AppsCall { .. })) => ran += 1,
            Err(e) if e.kind == ErrorKind::ConfirmRequired => asked += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        ran + 2,
        APP_CALLS_WITHOUT_ASKING,
        "two calls ran before the flood"
    );
    assert_eq!(asked, 7);
    // Closed, the app can do nothing more.
    assert!(matches!(
        handle(
            &mut app,
            json!({"type": "apps/close", "instance": instance})
        ),
        Ok(Step::Done(Value::Bool(true), _))
    ));
    assert_eq!(
        call(&mut app, "refresh_panel", true).unwrap_err().kind,
        ErrorKind::InvalidState
    );
}

#[test]
fn an_apps_message_goes_to_its_chats_composer_and_its_context_to_the_next_results() {
    let mut app = app();
    let key = forecast_call(&mut app);
    // The forecast's own results say the user sees its interface.
    let d = app.take_delivery(&chat(), "m1").expect("results");
    assert!(
        d.text
            .contains("show_forecast also shows the user an interactive view"),
        "{}",
        d.text
    );
    let view = open(&mut app, &key, json!({}));
    let instance = view["instance"].as_str().unwrap().to_owned();
    let kept = handle(
        &mut app,
        json!({"type": "apps/context", "instance": instance, "text": "3 days shown, Tuesday picked"}),
    );
    assert!(matches!(kept, Ok(Step::Done(Value::Bool(true), _))));
    // The chat sends by itself here: the message is written and sent, with the context.
    let Step::Io(Io::Tab { tab, message, .. }) = handle(
        &mut app,
        json!({"type": "apps/message", "instance": instance, "text": "Plan Tuesday"}),
    )
    .unwrap() else {
        panic!("expected a write into the chat")
    };
    assert_eq!(tab, 7);
    let TabMessage::Insert { text, submit, .. } = message else {
        panic!()
    };
    assert!(submit);
    assert!(text.starts_with("Plan Tuesday"), "{text}");
    assert!(text.contains("Tuesday picked"), "{text}");
    // Where the chat does not send by itself, the message waits in the composer; a context
    // set later goes with the next results instead, once.
    let mut settings = app.config.chats[&chat()].clone();
    settings.auto_submit = false;
    app.config.chats.insert(chat(), settings);
    let Step::Io(Io::Tab {
        message: TabMessage::Insert { submit, .. },
        ..
    }) = handle(
        &mut app,
        json!({"type": "apps/message", "instance": instance, "text": "again"}),
    )
    .unwrap()
    else {
        panic!()
    };
    assert!(!submit);
    handle(
        &mut app,
        json!({"type": "apps/context", "instance": instance, "text": "zoomed in"}),
    )
    .unwrap();
    let text = "```json\n{\"tool\": \"plain\", \"arguments\": {\"text\": \"y\"}}\n```\n";
    let (answer, _) = app.reply_update(&chat(), "m2", text, true, false);
    let key2 = answer.calls[0].key.clone();
    app.prepare_call(&key2, 1).expect("ready");
    app.finish_call(
        &key2,
        CallEnd::Result(CallToolResult::success(vec![Content::text("ok")])),
        5,
    );
    let d = app.take_delivery(&chat(), "m2").expect("results");
    assert!(d.text.contains("zoomed in"), "{}", d.text);
    assert!(
        !d.text.contains("interactive view"),
        "plain has no interface: {}",
        d.text
    );
    // An app opened from a run by hand without a chat cannot write anywhere (its document is
    // the one read before).
    let Step::Done(view, _) = handle(
        &mut app,
        json!({"type": "apps/open", "serverId": "weather", "tool": "show_forecast",
            "arguments": {"text": "Bergen"}}),
    )
    .unwrap() else {
        panic!("the document was read before")
    };
    assert_eq!(view["chat"], false);
    assert_eq!(view["arguments"], json!({"text": "Bergen"}));
    let lone = view["instance"].as_str().unwrap();
    let e = handle(
        &mut app,
        json!({"type": "apps/message", "instance": lone, "text": "hi"}),
    );
    assert_eq!(e.unwrap_err().kind, ErrorKind::InvalidState);
}

fn content(tab: i64) -> Sender {
    Sender {
        role: "content".into(),
        origin: "https://chat.example".into(),
        tab_id: Some(tab),
        frame_id: Some(0),
        url: Some(URL.into()),
        reported_url: None,
    }
}

#[test]
fn the_cards_open_in_panel_marks_its_own_chats_call_for_the_panel_until_it_opens() {
    let mut app = app();
    let key = forecast_call(&mut app);
    let show = |app: &mut App, sender: &Sender, key: &str| {
        let request = admit(&json!({"type": "apps/show", "key": key}), sender.role()?)
            .map_err(ErrorBody::from)?;
        app.handle(request, sender)
    };
    // Another tab's content script cannot; a panel cannot (the card's message only).
    assert!(show(&mut app, &content(8), &key).is_err());
    assert!(show(&mut app, &panel(), &key).is_err());
    assert!(!app.ledger.calls[&key].show_app);
    let Ok(Step::Done(_, effects)) = show(&mut app, &content(7), &key) else {
        panic!("the chat's own card may")
    };
    assert!(
        !effects.is_empty(),
        "the mark is saved for the panel to see"
    );
    assert!(app.ledger.calls[&key].show_app);
    // Opening the app answers it.
    let _ = open(&mut app, &key, json!({}));
    assert!(!app.ledger.calls[&key].show_app);
}
