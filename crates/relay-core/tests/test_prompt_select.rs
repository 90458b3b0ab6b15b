//! Dynamic tool selection: relevance ranking (English and Chinese), caps, budgets, fallbacks.

use std::path::Path;

use relay_core::model::{ServerTools, Tool};
use relay_core::prompt::select::terms_of;
use relay_core::prompt::{select_tools, DiagnosticCode, Selection, SelectionOptions};
use serde_json::json;

fn tools100() -> Vec<ServerTools> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/prompts/tools100.json");
    let tools: Vec<Tool> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("tools");
    vec![ServerTools::new("bench", "bench", tools)]
}

fn names<'a>(servers: &'a [ServerTools], selection: &Selection) -> Vec<&'a str> {
    selection
        .picks
        .iter()
        .map(|p| servers[p.server].tools[p.tool].name.as_str())
        .collect()
}

fn options(max_tools: usize, token_budget: usize) -> SelectionOptions {
    let mut options = SelectionOptions::default();
    options.max_tools = max_tools;
    options.token_budget = token_budget;
    options
}

#[test]
fn a_weather_question_ranks_weather_tools_first() {
    let servers = tools100();
    let weather: Vec<&str> = servers[0]
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .filter(|n| n.starts_with("weather_"))
        .collect();
    assert!(weather.len() >= 3);
    let selection = select_tools(
        &servers,
        "What's the weather forecast for Lyon tomorrow?",
        &options(weather.len(), 100_000),
    );
    let picked = names(&servers, &selection);
    assert_eq!(picked.len(), weather.len());
    assert!(
        picked.iter().all(|n| n.starts_with("weather_")),
        "{picked:?}"
    );
    assert!(selection.picks.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn git_and_kubernetes_intents_find_their_tools() {
    let servers = tools100();
    let top = |intent: &str| {
        names(
            &servers,
            &select_tools(&servers, intent, &options(3, 100_000)),
        )[0]
        .to_owned()
    };
    assert!(top("check out the release branch in my git repository").starts_with("git_"));
    assert!(top("restart the rollout of the api deployment in the cluster").starts_with("k8s_"));
}

#[test]
fn a_chinese_intent_matches_chinese_descriptions() {
    let tool = |name: &str, description: &str| {
        Tool::new(name, json!({"type": "object"})).with_description(description)
    };
    let servers = vec![ServerTools::new(
        "cn",
        "cn",
        vec![
            tool("translate", "把文本翻译成另一种语言"),
            tool("weather", "查询城市的天气预报和气温"),
            tool("stock", "查询股票的实时价格"),
            tool("calendar", "创建日程并提醒"),
        ],
    )];
    let selection = select_tools(&servers, "北京明天天气怎么样？", &options(2, 100_000));
    assert_eq!(names(&servers, &selection), ["weather"]);
    let selection = select_tools(&servers, "帮我查一下股票价格", &options(2, 100_000));
    assert_eq!(names(&servers, &selection)[0], "stock");
}

#[test]
fn caps_and_budgets_limit_the_selection_and_say_so() {
    let servers = tools100();
    let selection = select_tools(
        &servers,
        "search notes messages files",
        &options(3, 100_000),
    );
    assert_eq!(selection.picks.len(), 3);
    assert_eq!(
        selection
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        [DiagnosticCode::SelectionCapped]
    );

    let selection = select_tools(&servers, "search notes messages files", &options(50, 120));
    assert!(
        !selection.picks.is_empty() && selection.picks.len() < 5,
        "{}",
        selection.picks.len()
    );

    // At least one tool, even when it alone exceeds the budget.
    let selection = select_tools(&servers, "search", &options(5, 1));
    assert_eq!(selection.picks.len(), 1);
}

#[test]
fn nothing_matching_falls_back_to_the_first_tools() {
    let servers = tools100();
    let selection = select_tools(&servers, "zzzz qqqq", &options(2, 100_000));
    assert_eq!(
        names(&servers, &selection),
        [
            servers[0].tools[0].name.as_str(),
            servers[0].tools[1].name.as_str()
        ]
    );
    assert_eq!(
        selection
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        [DiagnosticCode::SelectionNoMatch]
    );
    assert!(select_tools(&[], "anything", &SelectionOptions::default())
        .picks
        .is_empty());
}

#[test]
fn terms_are_split_lowercased_stemmed_and_bigrammed() {
    assert_eq!(
        terms_of("getWeatherForecasts for the_cities"),
        ["get", "weather", "forecast", "city"]
    );
    assert_eq!(
        terms_of("Searching indexed files"),
        ["search", "index", "file"]
    );
    assert_eq!(terms_of("天气预报 ok"), ["天气", "气预", "预报", "ok"]);
    assert_eq!(terms_of("查"), ["查"]);
}
