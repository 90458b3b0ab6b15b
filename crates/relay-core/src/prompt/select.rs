//! Picks the tools relevant to what the user asked, without asking a model (seed 002's
//! `dynamic_tool_selection`, minus the extra round trip).
//!
//! BM25 over one document per tool: its name (weighted up), title, description, parameter
//! names and parameter descriptions. Terms are lowercased, camelCase and snake_case are split,
//! a light suffix stemmer folds plurals and verb forms, and CJK text becomes character bigrams
//! so a Chinese request matches Chinese descriptions. The result is capped by count and by an
//! estimated token budget.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{estimate_tokens, Diagnostic, DiagnosticCode};
use crate::model::{ServerTools, Tool};
use crate::schema::render;

const K1: f64 = 1.2;
const B: f64 = 0.75;
const NAME_WEIGHT: f64 = 3.0;
const TITLE_WEIGHT: f64 = 2.0;
const DESCRIPTION_WEIGHT: f64 = 1.0;
const PARAM_NAME_WEIGHT: f64 = 1.0;
const PARAM_DOC_WEIGHT: f64 = 0.5;

/// Limits of a dynamic selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct SelectionOptions {
    /// Most tools selected.
    pub max_tools: usize,
    /// Most estimated tokens of the selected tools' renderings (at least one tool is kept).
    pub token_budget: usize,
}

impl Default for SelectionOptions {
    fn default() -> Self {
        SelectionOptions {
            max_tools: 10,
            token_budget: 3_000,
        }
    }
}

/// One selected tool: indices into the servers slice and its tools, and its relevance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Pick {
    pub server: usize,
    pub tool: usize,
    pub score: f64,
}

/// The selected tools, best first.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Selection {
    pub picks: Vec<Pick>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Ranks the tools of `servers` by relevance to `intent` and keeps the best within `options`.
/// Tools matching nothing are left out; when nothing matches at all, the first tools are kept
/// (the model still needs something to work with) and a diagnostic says so.
pub fn select_tools(
    servers: &[ServerTools],
    intent: &str,
    options: &SelectionOptions,
) -> Selection {
    let mut docs: Vec<(usize, usize, HashMap<String, f64>, f64)> = Vec::new();
    for (s, server) in servers.iter().enumerate() {
        for (t, tool) in server.tools.iter().enumerate() {
            let terms = tool_terms(tool);
            let length = terms.values().sum();
            docs.push((s, t, terms, length));
        }
    }
    let mut selection = Selection::default();
    if docs.is_empty() || options.max_tools == 0 {
        return selection;
    }
    let mut query = terms_of(intent);
    crate::sorted_map::sort(&mut query);
    query.dedup();
    let n = docs.len() as f64;
    let average = docs.iter().map(|d| d.3).sum::<f64>() / n;
    let idf: Vec<f64> = query
        .iter()
        .map(|term| {
            let df = docs.iter().filter(|d| d.2.contains_key(term)).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scored: Vec<(f64, usize)> = Vec::with_capacity(docs.len());
    for (index, (_, _, terms, length)) in docs.iter().enumerate() {
        let mut score = 0.0;
        for (term, idf) in query.iter().zip(&idf) {
            let Some(&tf) = terms.get(term) else { continue };
            score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1e-9)));
        }
        scored.push((score, index));
    }
    // Equal scores keep the servers' and tools' order (the index breaks ties: a total order).
    crate::sorted_map::sort_by(&mut scored, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let matched = scored.iter().filter(|(score, _)| *score > 0.0).count();
    if matched == 0 {
        selection.diagnostics.push(Diagnostic::new(
            DiagnosticCode::SelectionNoMatch,
            "No tool matches the request; the first tools are offered instead.",
        ));
    }
    let candidates = if matched == 0 { scored.len() } else { matched };
    let mut spent = 0;
    for &(score, index) in scored.iter().take(candidates) {
        if selection.picks.len() == options.max_tools {
            break;
        }
        let (server, tool, _, _) = docs[index];
        let cost = estimate_tokens(&render(&servers[server].tools[tool]));
        if !selection.picks.is_empty() && spent + cost > options.token_budget {
            break;
        }
        spent += cost;
        selection.picks.push(Pick {
            server,
            tool,
            score,
        });
    }
    let left_out = candidates - selection.picks.len();
    if left_out > 0 && matched > 0 {
        selection.diagnostics.push(Diagnostic::new(
            DiagnosticCode::SelectionCapped,
            format!(
                "{left_out} more matching tools were left out (limit {} tools, {} tokens).",
                options.max_tools, options.token_budget
            ),
        ));
    }
    selection
}

fn tool_terms(tool: &Tool) -> HashMap<String, f64> {
    let mut terms: HashMap<String, f64> = HashMap::new();
    let mut add = |text: &str, weight: f64| {
        for term in terms_of(text) {
            *terms.entry(term).or_insert(0.0) += weight;
        }
    };
    add(&tool.name, NAME_WEIGHT);
    if let Some(title) = &tool.title {
        add(title, TITLE_WEIGHT);
    }
    if let Some(description) = &tool.description {
        add(description, DESCRIPTION_WEIGHT);
    }
    if let Some(Value::Object(properties)) = tool.input_schema.get("properties") {
        for (name, schema) in properties {
            add(name, PARAM_NAME_WEIGHT);
            if let Some(doc) = schema.get("description").and_then(Value::as_str) {
                add(doc, PARAM_DOC_WEIGHT);
            }
        }
    }
    terms
}

/// The search terms of a text (see the module docs).
#[doc(hidden)]
pub fn terms_of(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut terms);
            cjk.push(c);
            previous_lower = false;
            continue;
        }
        flush_cjk(&mut cjk, &mut terms);
        if c.is_alphanumeric() {
            // camelCase boundary: `getWeather` is `get` + `weather`.
            if c.is_uppercase() && previous_lower {
                flush_word(&mut word, &mut terms);
            }
            word.extend(c.to_lowercase());
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
        } else {
            flush_word(&mut word, &mut terms);
            previous_lower = false;
        }
    }
    flush_word(&mut word, &mut terms);
    flush_cjk(&mut cjk, &mut terms);
    terms
}

fn flush_word(word: &mut String, terms: &mut Vec<String>) {
    if !word.is_empty() && !STOP_WORDS.contains(&word.as_str()) {
        terms.push(stem(word));
    }
    word.clear();
}

fn flush_cjk(run: &mut Vec<char>, terms: &mut Vec<String>) {
    match run.len() {
        0 => {}
        1 => terms.push(run[0].to_string()),
        _ => terms.extend(run.windows(2).map(|pair| pair.iter().collect())),
    }
    run.clear();
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "for", "from", "how",
    "i", "in", "is", "it", "me", "my", "of", "on", "or", "please", "the", "this", "that", "to",
    "what", "when", "where", "which", "with", "would", "you", "your",
];

/// A light suffix stemmer: enough to meet `forecasts`/`forecast`, `searching`/`search`.
fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 {
        return word.to_owned();
    }
    let rules: &[(&str, &str)] = &[
        ("ies", "y"),
        ("sses", "ss"),
        ("ings", ""),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ches", "ch"),
        ("shes", "sh"),
        ("xes", "x"),
        ("ly", ""),
        ("s", ""),
    ];
    for (suffix, replacement) in rules {
        if let Some(stem) = word.strip_suffix(suffix) {
            if stem.len() >= 3 && !(suffix == &"s" && stem.ends_with('s')) {
                return format!("{stem}{replacement}");
            }
        }
    }
    word.to_owned()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}
