//! Templates: every placeholder, two-phase resolution, unknown and missing values, section
//! placeholders, and the built-in template rendering exactly the built-in prompt.

use std::path::Path;

use expect_test::expect;
use relay_core::model::{GetPromptResult, ReadResourceResult, ServerTools, Tool};
use relay_core::prompt::{
    prompt_for_servers, render_template, template_requirements, DiagnosticCode, HistoryStep,
    PromptOptions, Requirement, Strategy, Template, TemplateContext, DEFAULT_TEMPLATE,
};
use serde_json::json;

fn tools(file: &str) -> Vec<Tool> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/prompts")
        .join(file);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("tools")
}

fn servers() -> Vec<ServerTools> {
    let weather = vec![
        Tool::new("weather_forecast", json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3}}, "required": ["city"]}))
            .with_description("Daily weather forecast for a city."),
        Tool::new("air_quality", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
            .with_description("Current air quality index."),
    ];
    let notes = vec![Tool::new(
        "notes_search",
        json!({"type": "object", "properties": {"query": {"type": "string"}}}),
    )
    .with_description("Search my notes.")];
    vec![
        ServerTools::new("w", "weather", weather),
        ServerTools::new("n", "notes", notes),
    ]
}

fn context() -> TemplateContext {
    let mut context = TemplateContext::default();
    context.current_time = Some("2025-06-01 09:30 (Europe/Paris)".to_owned());
    context.user_intent =
        Some("Is a rainy weather forecast expected in Paris this week?".to_owned());
    context.model_name = Some("gemini-2.5-pro".to_owned());
    context.servers = servers();
    let mut step = HistoryStep::new(
        "weather_forecast",
        "weather",
        json!({"city": "Paris", "days": 2}),
    );
    step.thought = Some("I need the forecast.".to_owned());
    step.status = Some("ok".to_owned());
    step.observation = Some("Rain on Tuesday.".to_owned());
    context.tool_history = vec![
        step,
        HistoryStep::new("air_quality", "weather", json!({"city": "Paris"})),
    ];
    context.resources.insert(
        "notes://today".to_owned(),
        serde_json::from_value::<ReadResourceResult>(json!({"contents": [
            {"uri": "notes://today", "mimeType": "text/plain", "text": "Buy an umbrella."},
            {"uri": "notes://today/photo", "mimeType": "image/png", "blob": "AAAA"}
        ]}))
        .expect("resource"),
    );
    context.prompts.insert(
        "persona".to_owned(),
        serde_json::from_value::<GetPromptResult>(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "You are a careful travel planner. ${local:model_name} stays literal."}}
        ]}))
        .expect("prompt"),
    );
    context
}

const EVERY_PLACEHOLDER: &str = "Time: ${local:current_time}
Intent: ${local:user_intent}
Model: ${local:model_name}
History:
${local:tool_history}
Notes: ${mcp:resource:notes://today}
Persona: ${mcp:prompt:persona}
One tool:
${mcp:tool:air_quality}
Relevant tools:
${mcp:tool:dynamic_tool_selection}
${relay:call_format}
Literal: $${local:current_time}, unterminated ${local:current_time";

#[test]
fn every_placeholder_is_filled_from_the_context() {
    let rendered = render_template(EVERY_PLACEHOLDER, &context());
    expect![[r#"
        Time: 2025-06-01 09:30 (Europe/Paris)
        Intent: Is a rainy weather forecast expected in Paris this week?
        Model: gemini-2.5-pro
        History:
        1. Thought: I need the forecast.
           Action: weather_forecast on "weather" {"city": "Paris", "days": 2}
           Observation (ok): Rain on Tuesday.
        2. Action: air_quality on "weather" {"city": "Paris"}
        Notes: Buy an umbrella.

        [binary resource notes://today/photo (image/png), 3 bytes: not shown]
        Persona: You are a careful travel planner. ${local:model_name} stays literal.
        One tool:
        Server "weather":
        air_quality(city: string)
         Current air quality index.
        Relevant tools:
        Tools by server. TypeScript-like; `= v` default, `1..9` inclusive range.

        Server "weather":
        weather_forecast(city: string, days?: integer 1..7 = 3)
         Daily weather forecast for a city.
        To call a tool, write a ```json block like this:
        ```json
        {"tool":"TOOL","server":"SERVER","arguments":{}}
        ```
        Use exact tool and server names from the list below; one block per call.
        Literal: ${local:current_time}, unterminated ${local:current_time"#]]
    .assert_eq(&rendered.text);
    assert!(
        rendered.diagnostics.is_empty(),
        "{:?}",
        rendered.diagnostics
    );
}

#[test]
fn requirements_list_what_must_be_fetched_once_each() {
    let text = "${mcp:resource:a://1} ${mcp:prompt:p} ${mcp:resource:a://1} ${mcp:resource:b://2} $${mcp:prompt:q} ${local:user_intent}";
    assert_eq!(
        template_requirements(text),
        [
            Requirement::Resource {
                uri: "a://1".to_owned()
            },
            Requirement::Prompt {
                name: "p".to_owned()
            },
            Requirement::Resource {
                uri: "b://2".to_owned()
            },
        ]
    );
    let json = serde_json::to_value(template_requirements("${mcp:prompt:p}")).expect("serialises");
    assert_eq!(json, json!([{"kind": "prompt", "name": "p"}]));
}

#[test]
fn unknown_and_missing_values_stay_visible_with_diagnostics() {
    let text = "${local:weather} ${mcp:resource:x://gone} ${mcp:prompt:gone} ${mcp:tool:nope} ${relay:nope} ${local:model_name} ${local:user_intent}";
    let rendered = render_template(text, &TemplateContext::default());
    expect![[r#"${local:weather} [resource x://gone unavailable] [prompt gone unavailable] ${mcp:tool:nope} ${relay:nope} [model name unknown] [user intent unknown]"#]]
        .assert_eq(&rendered.text);
    let codes: Vec<DiagnosticCode> = rendered.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            DiagnosticCode::UnknownPlaceholder,
            DiagnosticCode::MissingResource,
            DiagnosticCode::MissingPrompt,
            DiagnosticCode::UnknownTool,
            DiagnosticCode::UnknownPlaceholder,
            DiagnosticCode::MissingValue,
            DiagnosticCode::MissingValue,
            DiagnosticCode::TemplateWithoutCallFormat,
        ]
    );
}

#[test]
fn an_ambiguous_tool_name_uses_the_first_server_and_says_so() {
    let mut context = context();
    context.servers.push(ServerTools::new(
        "w2",
        "weather-backup",
        servers()[0].tools.clone(),
    ));
    let rendered = render_template(
        "${relay:call_format}\n${mcp:tool:weather_forecast}",
        &context,
    );
    assert!(rendered
        .text
        .contains("Server \"weather\":\nweather_forecast("));
    let codes: Vec<DiagnosticCode> = rendered.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [DiagnosticCode::AmbiguousTool]);
}

#[test]
fn the_built_in_template_renders_exactly_the_built_in_prompt() {
    let sets = [
        vec![ServerTools::new(
            "everything",
            "everything",
            tools("everything-tools.json"),
        )],
        vec![ServerTools::new("bench", "bench", tools("tools100.json"))],
        servers(),
    ];
    let mut with_extras = PromptOptions::default();
    with_extras.strategy = Strategy::ToolForced;
    with_extras.custom_instructions = Some("Be brief.".to_owned());
    with_extras.site_addendum = Some("One block per message.".to_owned());
    for servers in sets {
        for options in [PromptOptions::default(), with_extras.clone()] {
            let expected = prompt_for_servers(&servers, &options).expect("tools").text;
            let mut context = TemplateContext::default();
            context.servers = servers.clone();
            context.options = options;
            let rendered = render_template(&Template::builtin().text, &context);
            assert_eq!(rendered.text, expected);
            assert!(rendered.diagnostics.is_empty());
        }
    }
    assert_eq!(Template::builtin().text, DEFAULT_TEMPLATE);
}

#[test]
fn empty_sections_take_their_paragraph_with_them() {
    let context = context();
    for (template, expected) in [
        ("A\n\n${relay:site}\n\nB", "A\n\nB"),
        ("A\n\n${relay:custom_instructions}", "A"),
        ("${relay:site}\n\nB", "B"),
        ("A ${relay:site} B", "A  B"),
    ] {
        assert_eq!(
            render_template(template, &context).text,
            expected,
            "{template:?}"
        );
    }
}

#[test]
fn a_server_prompt_can_be_the_template() {
    let prompt: GetPromptResult = serde_json::from_value(json!({"description": "Trip planner", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Plan a trip for: ${local:user_intent}"}},
        {"role": "assistant", "content": {"type": "text", "text": "Tools:\n${relay:tools}\n\n${relay:call_format}"}},
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "r://x", "text": "Budget: 500 EUR"}}},
        {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}
    ]}))
    .expect("prompt");
    let template = Template::from_prompt("trip", &prompt);
    assert_eq!(template.name, "trip");
    let rendered = render_template(&template.text, &context());
    assert!(rendered.text.starts_with("Plan a trip for: Is a rainy weather forecast expected in Paris this week?\n\nTools:\nTools by server."));
    assert!(rendered
        .text
        .contains("\nnotes_search(query?: string)\n Search my notes.\n"));
    assert!(rendered
        .text
        .ends_with("Budget: 500 EUR\n\n[image image/png]"));
    assert!(
        rendered.diagnostics.is_empty(),
        "{:?}",
        rendered.diagnostics
    );
}

#[test]
fn empty_history_and_no_intent() {
    let mut context = context();
    context.tool_history.clear();
    context.user_intent = None;
    let rendered = render_template(
        "${local:tool_history}\n${relay:call_format}\n${mcp:tool:dynamic_tool_selection}",
        &context,
    );
    assert!(rendered.text.starts_with("(no tool calls yet)\n"));
    let codes: Vec<DiagnosticCode> = rendered.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            DiagnosticCode::MissingValue,
            DiagnosticCode::SelectionNoMatch
        ]
    );
}
