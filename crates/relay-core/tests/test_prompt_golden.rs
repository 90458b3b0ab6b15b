//! Golden system prompts for the reference tool sets: exact text (regenerate with
//! `UPDATE_EXPECT=1`), o200k token budgets, completeness of every parameter, enum value,
//! default and description, and the token estimate against o200k.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use relay_core::model::{ServerTools, Tool};
use relay_core::prompt::{
    prompt_for_servers, system_prompt, DiagnosticCode, DisabledTools, Prompt, PromptOptions,
    Strategy,
};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/prompts")
}

fn tools(file: &str) -> Vec<Tool> {
    let text = std::fs::read_to_string(fixtures().join(file)).expect("fixture exists");
    serde_json::from_str(&text).expect("fixture is a tools/list array")
}

fn everything() -> ServerTools {
    ServerTools::new("everything", "everything", tools("everything-tools.json"))
}

fn bench() -> ServerTools {
    ServerTools::new("bench", "bench", tools("tools100.json"))
}

fn o200k(text: &str) -> usize {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("o200k is embedded"))
        .encode_ordinary(text)
        .len()
}

/// Compares with the golden file, or rewrites it when `UPDATE_EXPECT` is set.
fn golden(name: &str, actual: &str) {
    let path = fixtures().join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, actual).expect("golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(expected == actual, "{name}: prompt differs from {} (run with UPDATE_EXPECT=1 to accept)\n--- actual ---\n{actual}", path.display());
}

struct Case {
    name: &'static str,
    prompt: fn() -> Prompt,
}

fn options(f: impl FnOnce(&mut PromptOptions)) -> PromptOptions {
    let mut options = PromptOptions::default();
    f(&mut options);
    options
}

const CASES: &[Case] = &[
    Case {
        name: "everything",
        prompt: || prompt_for_servers(&[everything()], &PromptOptions::default()).expect("tools"),
    },
    Case {
        name: "tools100",
        prompt: || prompt_for_servers(&[bench()], &PromptOptions::default()).expect("tools"),
    },
    Case {
        name: "everything-forced-custom",
        prompt: || {
            let options = options(|o| {
                o.strategy = Strategy::ToolForced;
                o.max_calls_per_reply = 2;
                o.max_calls_per_turn = 6;
                o.custom_instructions = Some("Answer in French.\nKeep answers short.".to_owned());
                o.site_addendum =
                    Some("Put each call block on its own, outside any list.".to_owned());
            });
            prompt_for_servers(&[everything()], &options).expect("tools")
        },
    },
    Case {
        name: "two-servers-tool-first",
        prompt: || {
            let mut small = bench();
            small.tools.truncate(6);
            let disabled = DisabledTools::default()
                .with_tool("everything", "get-env")
                .with_tool("everything", "echo");
            let ids = ["bench", "everything"].map(str::to_owned);
            let options = options(|o| o.strategy = Strategy::ToolFirst);
            system_prompt(&[everything(), small], &ids, &disabled, &options)
                .prompt
                .expect("tools")
        },
    },
];

#[test]
fn golden_prompts_match_their_files() {
    for case in CASES {
        golden(case.name, &(case.prompt)().text);
    }
}

#[test]
fn reference_sets_fit_their_token_budgets() {
    let everything = o200k(&(CASES[0].prompt)().text);
    let tools100 = o200k(&(CASES[1].prompt)().text);
    println!("o200k tokens: everything {everything}, tools100 {tools100}");
    assert!(
        everything <= 1_000,
        "everything prompt is {everything} tokens"
    );
    assert!(tools100 <= 8_000, "tools100 prompt is {tools100} tokens");
}

#[test]
fn token_estimate_is_within_ten_percent_of_o200k() {
    for case in CASES {
        let prompt = (case.prompt)();
        let actual = o200k(&prompt.text) as f64;
        let error = (prompt.tokens_estimate as f64 - actual) / actual;
        println!(
            "{}: estimate {} vs o200k {actual} ({:+.1}%)",
            case.name,
            prompt.tokens_estimate,
            error * 100.0
        );
        assert!(
            error.abs() <= 0.10,
            "{}: estimate {} vs o200k {actual}",
            case.name,
            prompt.tokens_estimate
        );
        assert_eq!(prompt.chars, prompt.text.chars().count());
    }
}

/// Every parameter (at any depth) with its required flag, type keyword, enum values, default and
/// description must be findable in the prompt.
#[test]
fn prompts_keep_every_parameter_enum_default_and_description() {
    for (server, case) in [(everything(), 0), (bench(), 1)] {
        let text = (CASES[case].prompt)().text;
        let mut checked = 0;
        for tool in &server.tools {
            let signature = format!("{}(", tool.name);
            assert!(
                text.lines().any(|l| l.starts_with(&signature)),
                "tool {} missing",
                tool.name
            );
            if let Some(description) = &tool.description {
                assert!(
                    text.contains(description.trim()),
                    "description of {} missing",
                    tool.name
                );
            }
            check_properties(&text, &tool.name, &tool.input_schema, &mut checked);
        }
        let expected = if case == 0 { 16 } else { 401 };
        assert!(checked >= expected, "only {checked} parameters checked");
    }
}

fn check_properties(text: &str, tool: &str, schema: &Value, checked: &mut usize) {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        *checked += 1;
        let marker = if required.contains(&name.as_str()) {
            format!("{name}: ")
        } else {
            format!("{name}?: ")
        };
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(&marker)).collect();
        assert!(!lines.is_empty(), "{tool}: parameter {marker:?} missing");
        if let Some(default) = property.get("default") {
            let default = format!("= {}", serde_json::to_string(default).expect("json"));
            assert!(
                lines.iter().any(|l| l
                    .split(&marker)
                    .skip(1)
                    .any(|after| after.contains(&default))),
                "{tool}: default {default} of {name} missing"
            );
        }
        if let Some(Value::Array(values)) = property.get("enum") {
            let union: Vec<String> = values
                .iter()
                .map(|v| serde_json::to_string(v).expect("json"))
                .collect();
            assert!(
                text.contains(&union.join("|")),
                "{tool}: enum of {name} missing"
            );
        }
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            assert!(
                text.contains(&format!("{name}: {description}")),
                "{tool}: description of {name} missing"
            );
        }
        for keyword in [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
        ] {
            if let Some(bound) = property.get(keyword) {
                let bound = bound.to_string();
                let shown = lines.iter().any(|l| {
                    l.split(&marker).skip(1).any(|after| {
                        after
                            .split([',', ')', '}'])
                            .next()
                            .is_some_and(|t| t.contains(&bound))
                    })
                });
                assert!(shown, "{tool}: {keyword} {bound} of {name} missing");
            }
        }
        if let Some(format) = property.get("format").and_then(Value::as_str) {
            assert!(
                text.contains(&format!("<{format}>")),
                "{tool}: format of {name} missing"
            );
        }
        check_properties(text, tool, property, checked);
        if let Some(items) = property.get("items") {
            check_properties(text, tool, items, checked);
        }
    }
}

#[test]
fn system_prompt_takes_exactly_the_selected_enabled_servers() {
    let all = [everything(), bench()];
    let ids = |ids: &[&str]| ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let none = DisabledTools::default();
    let defaults = PromptOptions::default();

    let outcome = system_prompt(&all, &ids(&[]), &none, &defaults);
    assert!(outcome.prompt.is_none());
    assert_eq!(
        codes(&outcome.diagnostics),
        [DiagnosticCode::NoServersSelected]
    );

    let outcome = system_prompt(&all, &ids(&["missing", "everything"]), &none, &defaults);
    let prompt = outcome.prompt.expect("everything has tools");
    assert_eq!(prompt.tools, 13);
    assert!(!prompt.text.contains("Server \"bench\""));
    assert_eq!(codes(&outcome.diagnostics), [DiagnosticCode::UnknownServer]);

    let outcome = system_prompt(&all, &ids(&["missing"]), &none, &defaults);
    assert!(outcome.prompt.is_none());
    assert_eq!(
        codes(&outcome.diagnostics),
        [DiagnosticCode::UnknownServer, DiagnosticCode::NoTools]
    );

    let disabled = DisabledTools::default()
        .with_server("bench")
        .with_tool("everything", "get-sum");
    let outcome = system_prompt(&all, &ids(&["everything", "bench"]), &disabled, &defaults);
    let prompt = outcome.prompt.expect("everything still has tools");
    assert_eq!(prompt.tools, 12);
    assert!(!prompt.text.contains("get-sum("));
    assert_eq!(
        codes(&outcome.diagnostics),
        [DiagnosticCode::DisabledServer]
    );

    let outcome = system_prompt(
        &all,
        &ids(&["everything"]),
        &none,
        &options(|o| o.strategy = Strategy::Disabled),
    );
    assert!(outcome.prompt.is_none());
    assert_eq!(
        codes(&outcome.diagnostics),
        [DiagnosticCode::StrategyDisabled]
    );

    let empty = ServerTools::new("empty", "empty", Vec::new());
    assert!(prompt_for_servers(&[empty], &defaults).is_none());
    assert!(prompt_for_servers(&[], &defaults).is_none());
}

#[test]
fn same_display_name_on_two_servers_is_reported() {
    let mut twin = bench();
    twin.name = "everything".to_owned();
    let prompt =
        prompt_for_servers(&[everything(), twin], &PromptOptions::default()).expect("tools");
    assert_eq!(
        codes(&prompt.diagnostics),
        [DiagnosticCode::DuplicateServerName]
    );
}

#[test]
fn prompt_is_user_voiced_and_deterministic() {
    let first = (CASES[1].prompt)();
    assert_eq!(first, (CASES[1].prompt)());
    let lower = first.text.to_lowercase();
    for costume in [
        "<system>",
        "system:",
        "[system]",
        "you are an ai",
        "as an ai",
    ] {
        assert!(!lower.contains(costume), "prompt contains {costume:?}");
    }
}

#[test]
fn prompt_serialises_in_camel_case() {
    let prompt = (CASES[0].prompt)();
    let json = serde_json::to_value(&prompt).expect("serialises");
    assert!(json.get("tokensEstimate").is_some_and(Value::is_u64));
    assert_eq!(json["tools"], 13);
    let options: PromptOptions =
        serde_json::from_value(serde_json::json!({"strategy": "toolForced"}))
            .expect("defaults fill in");
    assert_eq!(options.strategy, Strategy::ToolForced);
    assert_eq!(
        options.max_calls_per_turn,
        PromptOptions::default().max_calls_per_turn
    );
}

fn codes(diagnostics: &[relay_core::prompt::Diagnostic]) -> Vec<DiagnosticCode> {
    diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn bench_tools_are_deterministic_realistic_and_render() {
    let servers = relay_core::prompt::bench_tools(1_000);
    assert_eq!(servers, relay_core::prompt::bench_tools(1_000));
    assert_eq!(servers.len(), 10);
    let tools: Vec<&Tool> = servers.iter().flat_map(|s| s.tools.iter()).collect();
    assert_eq!(tools.len(), 1_000);
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 1_000, "tool names are unique");
    for tool in &tools {
        let params = tool.input_schema["properties"]
            .as_object()
            .expect("object schema")
            .len();
        assert!(
            (2..=6).contains(&params),
            "{}: {params} parameters",
            tool.name
        );
    }
    let prompt = prompt_for_servers(&servers, &PromptOptions::default()).expect("tools");
    assert_eq!(prompt.tools, 1_000);
    assert!(prompt
        .text
        .contains("Location = {lat: number -90..90, lon: number -180..180}"));
    assert!(prompt.diagnostics.is_empty(), "{:?}", prompt.diagnostics);
    assert_eq!(
        relay_core::prompt::bench_tools(150)
            .iter()
            .map(|s| s.tools.len())
            .collect::<Vec<_>>(),
        [100, 50]
    );
}

/// A selection's tools rendered once give, for any options, exactly the prompt (text, counts,
/// estimate, diagnostics) a fresh build gives.
#[test]
fn prepared_tools_give_the_prompt_a_fresh_build_gives() {
    let variants: Vec<PromptOptions> = vec![
        PromptOptions::default(),
        options(|o| o.strategy = Strategy::ToolFirst),
        options(|o| {
            o.strategy = Strategy::ToolForced;
            o.max_calls_per_reply = 1;
            o.max_calls_per_turn = 3;
            o.custom_instructions = Some("  Réponds en français. 你好\n".to_owned());
            o.site_addendum = Some("Keep blocks outside lists.".to_owned());
        }),
        options(|o| o.site_addendum = Some("   ".to_owned())),
        options(|o| o.strategy = Strategy::Disabled),
    ];
    let mut twin = bench();
    twin.name = "everything".to_owned();
    for servers in [vec![everything()], vec![bench()], vec![everything(), twin]] {
        let prepared = relay_core::prompt::prepare_for_servers(&servers).expect("tools");
        for o in &variants {
            let fresh = prompt_for_servers(&servers, o);
            assert_eq!(prepared.prompt(o), fresh, "{o:?}");
            if let Some(p) = fresh {
                assert_eq!(
                    p.tokens_estimate,
                    relay_core::prompt::estimate_tokens(&p.text)
                );
                assert_eq!(p.chars, p.text.chars().count());
            }
        }
    }
    assert!(relay_core::prompt::prepare_for_servers(&[]).is_none());
}

/// The benches' generated tool sets (`bench_tools`, the fixture the speed figures are measured
/// on) render to the same text: 100 tools as a golden file, 1,000 tools (217 KB) by their
/// SHA-256, length and counts. Speed work on the renderer may not change either by a byte.
#[test]
fn bench_tool_prompts_are_unchanged() {
    use relay_core::prompt::{bench_tools, prepare_for_servers};
    use sha2::Digest;
    let render = |n| {
        prepare_for_servers(&bench_tools(n))
            .and_then(|p| p.prompt(&PromptOptions::default()))
            .expect("tools")
    };
    golden("bench-tools-100", &render(100).text);
    let prompt = render(1_000);
    let digest: String = sha2::Sha256::digest(prompt.text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let counts = (
        prompt.text.len(),
        prompt.chars,
        prompt.tokens_estimate,
        prompt.tools,
    );
    assert_eq!(counts, (217_178, 217_178, 54_509, 1_000));
    assert_eq!(
        digest,
        "a64c03a9d4d43887b3e5a10605d6ec94526d0628646946a526e765559f7ed461"
    );
    assert!(prompt.diagnostics.is_empty(), "{:?}", prompt.diagnostics);
}
