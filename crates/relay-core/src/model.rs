//! MCP wire types shared by every module: tools, content blocks, call results.
//!
//! Field names follow the MCP specification (camelCase on the wire). Unknown fields are kept
//! where a server may send extensions we pass on untouched (`_meta`, future content kinds).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Protocol 2026-07-28: no `initialize`, no session; `server/discover` and per-request `_meta`.
/// Tried first; a server that does not know it gets `initialize` with the versions below.
pub const STATELESS_PROTOCOL_VERSION: &str = "2026-07-28";

/// Protocol versions this client negotiates with `initialize`, newest first. The first one is
/// offered.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Hints a server gives about a tool's behaviour (MCP `ToolAnnotations`). Untrusted: they only
/// choose a policy default, never bypass the user's policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// One tool definition as `tools/list` returns it. Stored whole (seed 001: names alone are not
/// enough for a model to call a tool).
///
/// Deserialized by hand (below): `#[serde(flatten)]` would buffer every tool into serde's
/// `Content` tree first, which is slower and, monomorphised per input format, the largest
/// serde code in the wasm module; reading into a `Map` first and taking the named members out
/// of it cost a map per tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Members this struct does not name (`icons`, `execution`, `_meta`, newer protocol
    /// additions), kept so a tool passes through unchanged.
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub extra: Map<String, Value>,
}

impl<'de> Deserialize<'de> for Tool {
    /// The members the struct names, in camelCase; every other member into `extra`, in order
    /// (a repeated member: its last value, at its first place). Read member by member: the
    /// tool itself is never a `Map` (1,000 tools: a map each, their keys hashed twice).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ToolVisitor)
    }
}

/// A member of a tool definition: one the struct names, or another one for `extra`.
enum ToolKey {
    Name,
    Title,
    Description,
    InputSchema,
    OutputSchema,
    Annotations,
    Other(String),
}

impl<'de> Deserialize<'de> for ToolKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = ToolKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<ToolKey, E> {
                Ok(match key {
                    "name" => ToolKey::Name,
                    "title" => ToolKey::Title,
                    "description" => ToolKey::Description,
                    "inputSchema" => ToolKey::InputSchema,
                    "outputSchema" => ToolKey::OutputSchema,
                    "annotations" => ToolKey::Annotations,
                    other => ToolKey::Other(other.to_owned()),
                })
            }
            fn visit_string<E: serde::de::Error>(self, key: String) -> Result<ToolKey, E> {
                match self.visit_str::<E>(&key)? {
                    ToolKey::Other(_) => Ok(ToolKey::Other(key)),
                    named => Ok(named),
                }
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct ToolVisitor;

impl<'de> serde::de::Visitor<'de> for ToolVisitor {
    type Value = Tool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Tool, A::Error> {
        use serde::de::Error;
        fn opt<T: serde::de::DeserializeOwned, E: Error>(v: Option<Value>) -> Result<Option<T>, E> {
            match v {
                None | Some(Value::Null) => Ok(None),
                Some(v) => crate::json_value::from_value(v)
                    .map(Some)
                    .map_err(E::custom),
            }
        }
        let mut named: [Option<Value>; 6] = Default::default();
        let mut extra = Map::new();
        while let Some(key) = map.next_key::<ToolKey>()? {
            let slot = match key {
                ToolKey::Name => 0,
                ToolKey::Title => 1,
                ToolKey::Description => 2,
                ToolKey::InputSchema => 3,
                ToolKey::OutputSchema => 4,
                ToolKey::Annotations => 5,
                ToolKey::Other(key) => {
                    extra.insert(key, map.next_value()?);
                    continue;
                }
            };
            named[slot] = Some(map.next_value()?);
        }
        let [name, title, description, input_schema, output_schema, annotations] = named;
        let name = match name {
            Some(Value::String(s)) => s,
            Some(other) => crate::json_value::from_value(other).map_err(A::Error::custom)?,
            None => return Err(A::Error::missing_field("name")),
        };
        Ok(Tool {
            name,
            title: opt(title)?,
            description: opt(description)?,
            input_schema: input_schema.unwrap_or_else(empty_object_schema),
            output_schema: opt(output_schema)?,
            annotations: opt(annotations)?,
            extra,
        })
    }
}

impl Tool {
    /// A tool with a name and an input schema; the rest empty.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            extra: Map::new(),
        }
    }

    /// Builder-style description setter (mostly for tests and the demo).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

fn empty_object_schema() -> Value {
    Value::Object(Map::from_iter([(
        "type".to_owned(),
        Value::String("object".to_owned()),
    )]))
}

/// The tools of one configured server, as the prompt generator and the parser see them.
/// `id` is our stable server id; `name` is what the user calls it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerTools {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub tools: Vec<Tool>,
}

impl ServerTools {
    /// A server with its tools.
    pub fn new(id: impl Into<String>, name: impl Into<String>, tools: Vec<Tool>) -> Self {
        ServerTools {
            id: id.into(),
            name: name.into(),
            tools,
        }
    }
}

/// The body of an embedded resource (`resource` content, `resources/read` result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceContents {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 data of a binary resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// The contents' metadata (an MCP App's document declares its frame's policy here,
    /// `_meta.ui`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub meta: Option<Value>,
}

/// One content block of a tool result or prompt message.
///
/// Deserialized by hand (below), with the derive's semantics: a known `type` whose members
/// do not fit, or an unknown one, is kept whole as [`Content::Unknown`]. The derive of a tagged
/// enum with an untagged fallback buffers every block into serde's `Content` tree first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    Text {
        text: String,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Resource {
        resource: ResourceContents,
    },
    ResourceLink {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// A content kind from a newer protocol version: kept whole so nothing is lost.
    #[serde(untagged)]
    Unknown(Value),
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Content::from_value(Value::deserialize(d)?))
    }
}

impl Content {
    /// The block a wire value is; [`Content::Unknown`] when it is none of the known kinds.
    fn from_value(v: Value) -> Self {
        fn string(m: &Map<String, Value>, key: &str) -> Option<String> {
            m.get(key).and_then(Value::as_str).map(str::to_owned)
        }
        /// An optional string member: absent or null is `None`, another type does not fit.
        fn optional(m: &Map<String, Value>, key: &str) -> Option<Option<String>> {
            match m.get(key) {
                None | Some(Value::Null) => Some(None),
                Some(Value::String(s)) => Some(Some(s.clone())),
                Some(_) => None,
            }
        }
        let Value::Object(m) = &v else {
            return Content::Unknown(v);
        };
        let known = match m.get("type").and_then(Value::as_str) {
            Some("text") => string(m, "text").map(|text| Content::Text { text }),
            Some("image") => string(m, "data")
                .zip(string(m, "mimeType"))
                .map(|(data, mime_type)| Content::Image { data, mime_type }),
            Some("audio") => string(m, "data")
                .zip(string(m, "mimeType"))
                .map(|(data, mime_type)| Content::Audio { data, mime_type }),
            Some("resource") => m
                .get("resource")
                .and_then(|r| crate::json_value::from_value::<ResourceContents>(r.clone()).ok())
                .map(|resource| Content::Resource { resource }),
            Some("resource_link") => (|| {
                Some(Content::ResourceLink {
                    uri: string(m, "uri")?,
                    name: optional(m, "name")?,
                    description: optional(m, "description")?,
                    mime_type: optional(m, "mimeType")?,
                })
            })(),
            _ => None,
        };
        known.unwrap_or(Content::Unknown(v))
    }

    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

/// The result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    #[serde(default)]
    pub content: Vec<Content>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl CallToolResult {
    /// A successful result made of content blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            structured_content: None,
            is_error: None,
        }
    }

    /// Whether the server flagged the result as a tool error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

/// Name and version of an MCP implementation (`clientInfo` in `initialize`, `serverInfo` in its result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
        }
    }
}

/// One argument a prompt template accepts (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// A prompt template a server offers (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One message of an expanded prompt (`prompts/get`). The role is kept as a string: a newer
/// server's role must not make the whole prompt unreadable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    pub role: String,
    pub content: Content,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
}

/// A resource a server lists (`resources/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    pub uri: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A parameterised resource (`resources/templates/list`), RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    pub uri_template: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// The result of `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadResourceResult {
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_round_trips_every_kind_and_keeps_unknown_ones() {
        let wire = json!([
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAA=", "mimeType": "image/png"},
            {"type": "audio", "data": "AAA=", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "test://1", "mimeType": "text/plain", "text": "x"}},
            {"type": "resource_link", "uri": "test://2", "name": "two"},
            {"type": "hologram", "frames": 3},
            {"type": "text", "text": 3},
            {"type": "resource_link", "uri": "test://3", "name": 4},
            "not an object"
        ]);
        let parsed: Vec<Content> = crate::json_value::from_value(wire.clone()).expect("parses");
        for unknown in [5, 6, 7, 8] {
            assert!(matches!(parsed[unknown], Content::Unknown(_)), "{unknown}");
        }
        assert!(matches!(parsed[4], Content::ResourceLink { .. }));
        assert_eq!(serde_json::to_value(&parsed).expect("serializes"), wire);
    }

    #[test]
    fn tool_members_read_alike_from_text_and_from_values() {
        // (wire form, what it reads as: the tool as JSON again, or the error's start). Text
        // through serde_json's reader and a `Value` through its deserializer agree.
        let cases: &[(&str, Result<Value, &str>)] = &[
            (
                r#"{"icons":[1],"name":"t","_meta":{"a":1},"title":null,"description":"d","inputSchema":{"type":"object"},"x":2}"#,
                Ok(
                    json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}, "icons": [1], "_meta": {"a": 1}, "x": 2}),
                ),
            ),
            // A repeated member: its last value, at its first place.
            (
                r#"{"x":1,"name":"a","y":2,"x":3,"name":"b"}"#,
                Ok(json!({"name": "b", "inputSchema": {"type": "object"}, "x": 3, "y": 2})),
            ),
            (
                r#"{"name":"t","inputSchema":null,"annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"}}"#,
                Ok(
                    json!({"name": "t", "inputSchema": null, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
                ),
            ),
            (r#"{"title":"t"}"#, Err("missing field `name`")),
            (
                r#"{"name":3}"#,
                Err("invalid type: integer `3`, expected a string"),
            ),
            (
                r#"{"name":"t","description":4}"#,
                Err("invalid type: integer `4`, expected a string"),
            ),
            (
                r#"{"name":"t","annotations":"x"}"#,
                Err("invalid type: string \"x\", expected struct ToolAnnotations"),
            ),
            (
                r#""tool""#,
                Err("invalid type: string \"tool\", expected a map"),
            ),
        ];
        for (wire, want) in cases {
            let from_text = serde_json::from_str::<Tool>(wire);
            let value: Value = serde_json::from_str(wire).expect("JSON");
            let from_value = crate::json_value::from_value::<Tool>(value);
            for (how, got) in [("text", from_text), ("value", from_value)] {
                match (got, want) {
                    (Ok(tool), Ok(want)) => {
                        let got = serde_json::to_string(&tool).expect("serializes");
                        assert_eq!(got, want.to_string(), "{how}: {wire}");
                    }
                    (Err(e), Err(want)) => {
                        assert!(e.to_string().starts_with(want), "{how}: {wire}: {e}");
                    }
                    (got, _) => panic!("{how}: {wire}: {got:?}"),
                }
            }
        }
    }

    #[test]
    fn tool_without_schema_gets_an_empty_object_schema() {
        let tool: Tool = crate::json_value::from_value(json!({"name": "t"})).expect("parses");
        assert_eq!(tool.input_schema, json!({"type": "object"}));
    }
}

/// The severity of log messages a client asks a server for (RFC 5424 syslog levels, MCP
/// `LoggingLevel`): 2025 sessions send it with `logging/setLevel`, 2026-07-28 requests carry it
/// in `_meta` as `io.modelcontextprotocol/logLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}
