//! A deterministic generator of realistic tool sets, for benchmarks (native and wasm).
//!
//! The tools look like the ones real servers publish and like `data/tools100.json`: a
//! service prefix, a verb and a noun in the name, a one-sentence description, two to six
//! parameters drawn from a catalogue of common ones (enums, defaults, bounds, nested objects,
//! arrays of objects, maps). No file is read, so the wasm bench can call it too.

use serde_json::{json, Value};

use crate::model::{ServerTools, Tool};

/// Tools per generated server.
const TOOLS_PER_SERVER: usize = 100;

const SERVICES: &[(&str, &str, &[&str])] = &[
    (
        "weather",
        "weather service",
        &["forecast", "conditions", "alerts", "history"],
    ),
    (
        "git",
        "local git repository",
        &["branch", "commit", "diff", "tag"],
    ),
    (
        "slack",
        "Slack workspace",
        &["message", "channel", "thread", "reaction"],
    ),
    (
        "calendar",
        "calendar",
        &["event", "invite", "slot", "reminder"],
    ),
    (
        "fs",
        "file system",
        &["file", "directory", "link", "archive"],
    ),
    (
        "search",
        "web search",
        &["results", "news", "images", "suggestions"],
    ),
    ("crm", "CRM", &["contact", "deal", "activity", "note"]),
    (
        "k8s",
        "Kubernetes cluster",
        &["pod", "deployment", "service", "secret"],
    ),
    (
        "sheets",
        "spreadsheet",
        &["range", "sheet", "chart", "formula"],
    ),
    (
        "http",
        "HTTP client",
        &["request", "download", "upload", "webhook"],
    ),
];
const VERBS: &[(&str, &str)] = &[
    ("get", "Get"),
    ("list", "List"),
    ("create", "Create"),
    ("update", "Update"),
    ("delete", "Delete"),
    ("search", "Search"),
];
const QUALIFIERS: &[&str] = &[
    "the selected",
    "matching",
    "one or more",
    "existing",
    "recent",
];
const SUFFIXES: &[&str] = &[
    "Returns a JSON object describing the result.",
    "Requires write permission on the target resource.",
    "Fails with a descriptive error if the resource does not exist.",
    "Results are paginated; use offset and limit to page through them.",
    "Safe to retry; the operation is idempotent.",
];

/// `n` tools in servers of up to 100 (`bench-0`, `bench-1`, ...), always the same ones.
pub fn bench_tools(n: usize) -> Vec<ServerTools> {
    let catalogue = parameters();
    let mut rng = Lcg(0x5eed_1234_abcd_0001);
    let mut servers: Vec<ServerTools> = Vec::new();
    for i in 0..n {
        if i % TOOLS_PER_SERVER == 0 {
            let id = format!("bench-{}", i / TOOLS_PER_SERVER);
            servers.push(ServerTools::new(id.clone(), id, Vec::new()));
        }
        let (service, place, nouns) = SERVICES[rng.below(SERVICES.len())];
        let noun = nouns[rng.below(nouns.len())];
        let (verb, verb_text) = VERBS[rng.below(VERBS.len())];
        let name = format!("{service}_{verb}_{noun}_{i}");
        let description = format!(
            "{verb_text} {} {noun} in the {place}. {}",
            QUALIFIERS[rng.below(QUALIFIERS.len())],
            SUFFIXES[rng.below(SUFFIXES.len())]
        );
        let count = 2 + rng.below(5);
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        while properties.len() < count {
            let (param, schema) = &catalogue[rng.below(catalogue.len())];
            if properties.contains_key(param) {
                continue;
            }
            if rng.below(2) == 0 {
                required.push(Value::String(param.clone()));
            }
            properties.insert(param.clone(), schema.clone());
        }
        let schema = json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false});
        let tool = Tool::new(name, schema).with_description(description);
        if let Some(server) = servers.last_mut() {
            server.tools.push(tool);
        }
    }
    servers
}

/// A small linear congruential generator: deterministic everywhere, no dependency.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// The parameter catalogue as one JSON object (name → schema): data, not `json!` code, which
/// would cost tens of kilobytes in the wasm module.
const PARAMETERS: &str = r#"{
"query": {"type": "string", "description": "Free-text query; supports quoted phrases and field:value filters"},
"limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50, "description": "Maximum number of results to return"},
"offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Number of results to skip for pagination"},
"id": {"type": "string", "description": "Unique identifier of the target resource"},
"path": {"type": "string", "description": "Absolute or workspace-relative path of the target item"},
"body": {"type": "string", "description": "Main text content; Markdown is supported"},
"title": {"type": "string", "maxLength": 200, "description": "Short human-readable title"},
"language": {"type": "string", "default": "en", "description": "BCP 47 language code, e.g. en, fr, pt-BR"},
"format": {"type": "string", "enum": ["json", "csv", "markdown", "plain"], "default": "json", "description": "Output format of the returned payload"},
"units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric", "description": "Measurement system for numeric values"},
"start_time": {"type": "string", "format": "date-time", "description": "Start time in ISO 8601 format, e.g. 2025-03-01T09:00:00Z"},
"end_time": {"type": "string", "format": "date-time", "description": "End time in ISO 8601 format"},
"tags": {"type": "array", "items": {"type": "string"}, "description": "Labels to attach, e.g. [\"urgent\", \"backend\"]"},
"dry_run": {"type": "boolean", "default": false, "description": "If true, validate and report the changes without applying them"},
"threshold": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5, "description": "Confidence threshold between 0 and 1"},
"priority": {"type": "string", "enum": ["lowest", "low", "medium", "high", "critical"], "default": "medium", "description": "Priority level"},
"visibility": {"type": "string", "enum": ["private", "team", "public"], "default": "private", "description": "Who can see the item"},
"amount": {"type": "number", "exclusiveMinimum": 0, "description": "Monetary amount in the account currency"},
"headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Extra HTTP headers as a name to value map"},
"metadata": {"type": "object", "additionalProperties": true, "description": "Arbitrary key/value metadata stored with the item"},
"location": {"type": "object", "description": "Geographic point", "properties": {
    "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude in degrees"},
    "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude in degrees"}},
    "required": ["lat", "lon"]},
"options": {"type": "object", "description": "Advanced options", "additionalProperties": false, "properties": {
    "recursive": {"type": "boolean", "default": false, "description": "Apply to nested items"},
    "follow_symlinks": {"type": "boolean", "default": true, "description": "Follow symbolic links"},
    "max_depth": {"type": "integer", "minimum": 1, "description": "Maximum traversal depth"}}},
"filters": {"type": "object", "description": "Structured filters applied before sorting", "properties": {
    "status": {"type": "string", "enum": ["open", "closed", "all"], "description": "Lifecycle status to match"},
    "owner": {"type": "string", "description": "Username or email of the owner"},
    "created_after": {"type": "string", "format": "date", "description": "Only items created on or after this date"}}},
"attachments": {"type": "array", "description": "Files to attach", "items": {"type": "object", "properties": {
    "filename": {"type": "string", "description": "Name shown to the recipient"},
    "mime_type": {"type": "string", "description": "MIME type such as application/pdf"},
    "content_base64": {"type": "string", "description": "File content encoded as base64"}},
    "required": ["filename", "content_base64"]}},
"recipients": {"type": "array", "items": {"type": "string", "format": "email"}, "minItems": 1, "description": "Email addresses of the recipients"}
}"#;

fn parameters() -> Vec<(String, Value)> {
    match serde_json::from_str::<serde_json::Map<String, Value>>(PARAMETERS) {
        Ok(map) => map.into_iter().collect(),
        // A constant that does not parse is caught by the tests; the bench then has no parameters.
        Err(_) => Vec::new(),
    }
}
