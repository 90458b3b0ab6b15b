//! Plausible argument values derived from a schema, for the prompt's example call.
//!
//! An example built from a real tool of the selection teaches the call format better than a
//! made-up one, as long as its values look like what a person would send.

use serde_json::{Map, Number, Value};

use super::refs::resolve;
use crate::model::Tool;

const MAX_DEPTH: usize = 8;

/// Arguments for `tool` with its required parameters filled in (the first parameter when none
/// is required): the default, else the first allowed value or example, else a value made up
/// from the format or the parameter's name within its bounds.
pub fn example_arguments(tool: &Tool) -> Value {
    let mut gen = Generator {
        root: &tool.input_schema,
        numbers: 2,
    };
    gen.object(&tool.input_schema, true, 0)
}

/// How awkward `tool` is as an example: low for one to three required scalar parameters.
pub(crate) fn example_cost(tool: &Tool) -> usize {
    let schema = &tool.input_schema;
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if required.is_empty() {
        return if properties.is_some_and(|p| !p.is_empty()) {
            20
        } else {
            40
        };
    }
    let mut cost = required.len().abs_diff(2);
    for name in &required {
        let kind = properties
            .and_then(|p| p.get(*name))
            .and_then(|s| s.get("type"))
            .and_then(Value::as_str);
        cost += match kind {
            Some("string" | "number" | "integer" | "boolean") => 0,
            Some("object" | "array") => 5,
            _ => 3,
        };
    }
    cost
}

struct Generator<'a> {
    root: &'a Value,
    /// Successive numbers differ (2, 3, ...) so `add(a, b)` does not get `1 + 1`.
    numbers: i64,
}

impl<'a> Generator<'a> {
    fn object(&mut self, schema: &'a Value, root: bool, depth: usize) -> Value {
        let mut out = Map::new();
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Value::Object(out);
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, property) in properties {
            if required.contains(&name.as_str()) {
                out.insert(name.clone(), self.value(property, name, depth + 1));
            }
        }
        if out.is_empty() && root {
            if let Some((name, property)) = properties.iter().next() {
                out.insert(name.clone(), self.value(property, name, depth + 1));
            }
        }
        Value::Object(out)
    }

    fn value(&mut self, schema: &'a Value, name: &str, depth: usize) -> Value {
        let Some(map) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
            return Value::String(string_for(name, None));
        };
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(self.root, r))
        {
            return self.value(target, name, depth + 1);
        }
        if let Some(value) = map.get("default").or_else(|| map.get("const")) {
            return value.clone();
        }
        let first = |key: &str| {
            map.get(key)
                .and_then(Value::as_array)
                .and_then(|a| a.first())
        };
        if let Some(value) = first("enum")
            .or_else(|| first("examples"))
            .or_else(|| map.get("example"))
        {
            return value.clone();
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(branch) = map.get(key).and_then(Value::as_array).and_then(|branches| {
                branches
                    .iter()
                    .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            }) {
                return self.value(branch, name, depth + 1);
            }
        }
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .find(|k| *k != "null")
                .unwrap_or("null"),
            _ if map.contains_key("properties") => "object",
            _ if map.contains_key("items") => "array",
            _ => "string",
        };
        match kind {
            "integer" | "number" => self.number(map, kind == "integer"),
            "boolean" => Value::Bool(true),
            "null" => Value::Null,
            "array" => {
                let item = match map.get("items") {
                    Some(items) if items.is_object() => {
                        self.value(items, &singular(name), depth + 1)
                    }
                    _ => Value::String(string_for(&singular(name), None)),
                };
                Value::Array(vec![item])
            }
            "object" => self.object(schema, false, depth),
            _ => Value::String(string_for(name, map.get("format").and_then(Value::as_str))),
        }
    }

    fn number(&mut self, map: &Map<String, Value>, integer: bool) -> Value {
        let bound = |keys: [&str; 2]| {
            keys.iter()
                .find_map(|k| map.get(*k).and_then(Value::as_f64))
        };
        let low = bound(["minimum", "exclusiveMinimum"]);
        let high = bound(["maximum", "exclusiveMaximum"]);
        let mut x = self.numbers as f64;
        self.numbers += 1;
        if let Some(low) = low {
            if x <= low {
                x = if map.contains_key("exclusiveMinimum") {
                    low + 1.0
                } else {
                    low
                };
            }
        }
        if let Some(high) = high {
            if x >= high {
                x = if map.contains_key("exclusiveMaximum") {
                    high - 1.0
                } else {
                    high
                };
                if let Some(low) = low.filter(|l| x < *l) {
                    x = (low + high) / 2.0;
                }
            }
        }
        if integer || x.fract() == 0.0 {
            Value::Number(Number::from(x.round() as i64))
        } else {
            Number::from_f64(x)
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
    }
}

fn singular(name: &str) -> String {
    name.strip_suffix('s')
        .filter(|s| !s.is_empty())
        .unwrap_or(name)
        .to_owned()
}

/// A string a person might send for a parameter with this name or format.
fn string_for(name: &str, format: Option<&str>) -> String {
    let by_format = match format {
        Some("date-time") => Some("2025-06-01T09:00:00Z"),
        Some("date") => Some("2025-06-01"),
        Some("time") => Some("09:00:00"),
        Some("email" | "idn-email") => Some("alice@example.com"),
        Some("uri" | "url" | "iri" | "uri-reference") => Some("https://example.com"),
        Some("uuid") => Some("3f2b8c1e-9d4a-4e7b-8a61-2c5d7f0e9b13"),
        Some("hostname" | "idn-hostname") => Some("example.com"),
        Some("ipv4") => Some("192.0.2.10"),
        Some("ipv6") => Some("2001:db8::10"),
        _ => None,
    };
    if let Some(text) = by_format {
        return text.to_owned();
    }
    let lower = name.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let text = if has(&["url", "uri", "link", "href"]) {
        "https://example.com"
    } else if has(&["email"]) {
        "alice@example.com"
    } else if has(&["path", "file", "dir", "folder"]) {
        "docs/readme.md"
    } else if has(&["query", "search", "keyword"]) || lower == "q" {
        "latest news"
    } else if has(&["city", "location", "place", "address"]) {
        "Paris"
    } else if has(&["lang", "locale"]) {
        "en"
    } else if has(&["date"]) {
        "2025-06-01"
    } else if has(&["time"]) {
        "09:00"
    } else if lower == "id"
        || lower.ends_with("_id")
        || lower.ends_with("id") && name.ends_with("Id")
    {
        "abc123"
    } else if has(&["name", "title"]) {
        "Example"
    } else if has(&[
        "message", "text", "body", "content", "prompt", "comment", "note",
    ]) {
        "Hello!"
    } else if has(&["topic", "subject"]) {
        "renewable energy"
    } else if has(&["color", "colour"]) {
        "blue"
    } else {
        "example"
    };
    text.to_owned()
}
