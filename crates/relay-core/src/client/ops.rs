//! The MCP operations a user of the client can ask for, how each becomes JSON-RPC requests
//! (list operations follow `nextCursor` through every page), and how results are read.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

use crate::model::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};

/// Something to ask a server. As data (a driver's JavaScript callers), it is tagged by its
/// JSON-RPC method: `{"method": "tools/call", "name": "echo", "arguments": {...}}`,
/// `{"method": "tools/list", "refresh": true}`, `{"method": "ping"}`; absent or `null` arguments
/// are none. `progress` is the driver's to set (it has a progress callback or not).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "method")]
#[non_exhaustive]
pub enum Operation {
    #[serde(rename = "ping")]
    Ping,
    /// All tools, every page. Served from the cache unless `refresh` or stale.
    #[serde(rename = "tools/list")]
    ListTools {
        #[serde(default)]
        refresh: bool,
    },
    #[serde(rename = "prompts/list")]
    ListPrompts,
    #[serde(rename = "resources/list")]
    ListResources,
    #[serde(rename = "resources/templates/list")]
    ListResourceTemplates,
    /// All skills (SEP-2640, `io.modelcontextprotocol/skills`), every page. Lists only: no file
    /// of a skill is read until it is loaded.
    #[serde(rename = "skills/list")]
    ListSkills,
    /// Runs a tool. With `progress`, a progress token is sent and progress is reported.
    #[serde(rename = "tools/call")]
    CallTool {
        name: String,
        #[serde(default, deserialize_with = "object_or_empty")]
        arguments: Map<String, Value>,
        #[serde(skip)]
        progress: bool,
    },
    #[serde(rename = "prompts/get")]
    GetPrompt {
        name: String,
        #[serde(default, deserialize_with = "object_or_empty")]
        arguments: Map<String, Value>,
    },
    #[serde(rename = "resources/read")]
    ReadResource { uri: String },
    /// Polls the task a `tools/call` of `name` was answered with before (the caller restarted
    /// meanwhile): the call's outcome, never a second run. Its result is the tool's.
    #[serde(rename = "tasks/get", rename_all = "camelCase")]
    ResumeTask {
        name: String,
        task_id: String,
        form: super::session::TaskForm,
    },
}

/// Arguments: an object, or none when `null`.
fn object_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
    Ok(Option::<Map<String, Value>>::deserialize(d)?.unwrap_or_default())
}

impl Operation {
    /// The JSON-RPC method.
    pub fn method(&self) -> &'static str {
        match self {
            Operation::Ping => "ping",
            Operation::ListTools { .. } => "tools/list",
            Operation::ListPrompts => "prompts/list",
            Operation::ListResources => "resources/list",
            Operation::ListResourceTemplates => "resources/templates/list",
            Operation::ListSkills => crate::skills::LIST_METHOD,
            Operation::CallTool { .. } => "tools/call",
            Operation::GetPrompt { .. } => "prompts/get",
            Operation::ReadResource { .. } => "resources/read",
            Operation::ResumeTask { .. } => "tasks/get",
        }
    }

    /// Whether repeating the request cannot do harm, so transient failures may be retried.
    /// A tool call never is: the tool may have side effects, and may already have run. Polling
    /// a task is (its failures still leave the call's outcome unknown).
    pub fn is_idempotent(&self) -> bool {
        !matches!(self, Operation::CallTool { .. })
    }

    /// For list operations, the member of the result holding the items.
    pub(crate) fn list_key(&self) -> Option<&'static str> {
        match self {
            Operation::ListTools { .. } => Some("tools"),
            Operation::ListPrompts => Some("prompts"),
            Operation::ListResources => Some("resources"),
            Operation::ListResourceTemplates => Some("resourceTemplates"),
            Operation::ListSkills => Some("skills"),
            _ => None,
        }
    }

    /// The request's params. `cursor` is the page to fetch for list operations; the progress
    /// token goes into `_meta` as the spec says.
    pub(crate) fn params(
        &self,
        cursor: Option<&str>,
        progress_token: Option<&str>,
    ) -> Option<Value> {
        let mut params = match self {
            Operation::Ping => return None,
            Operation::ListTools { .. }
            | Operation::ListPrompts
            | Operation::ListResources
            | Operation::ListResourceTemplates
            | Operation::ListSkills => match cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => return None,
            },
            Operation::CallTool {
                name, arguments, ..
            } => json!({ "name": name, "arguments": arguments }),
            Operation::GetPrompt { name, arguments } => {
                // Prompt arguments are strings on the wire; a number typed in a form is sent as text.
                let arguments: Map<String, Value> = arguments
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(_) => (k.clone(), v.clone()),
                        other => (k.clone(), Value::String(other.to_string())),
                    })
                    .collect();
                json!({ "name": name, "arguments": arguments })
            }
            Operation::ReadResource { uri } => json!({ "uri": uri }),
            Operation::ResumeTask { task_id, .. } => json!({ "taskId": task_id }),
        };
        if let (Some(token), Some(object)) = (progress_token, params.as_object_mut()) {
            object.insert("_meta".to_owned(), json!({ "progressToken": token }));
        }
        Some(params)
    }
}

/// What an operation produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Output {
    /// The answer to a ping (serializes as `{}`).
    Pong(Map<String, Value>),
    Tools(Vec<Tool>),
    Prompts(Vec<Prompt>),
    Resources(Vec<Resource>),
    ResourceTemplates(Vec<ResourceTemplate>),
    Skills(Vec<crate::skills::Skill>),
    ToolResult(CallToolResult),
    Prompt(GetPromptResult),
    Resource(ReadResourceResult),
}

impl Output {
    /// What the output is, for a message about an answer of the wrong kind (never its content:
    /// `Debug` of the whole model would weigh ~20 KB in the wasm module for messages that say
    /// "this cannot happen").
    pub fn kind(&self) -> &'static str {
        match self {
            Output::Pong(_) => "a pong",
            Output::Tools(_) => "tools",
            Output::Prompts(_) => "prompts",
            Output::Resources(_) => "resources",
            Output::ResourceTemplates(_) => "resource templates",
            Output::Skills(_) => "skills",
            Output::ToolResult(_) => "a tool result",
            Output::Prompt(_) => "a prompt",
            Output::Resource(_) => "a resource",
        }
    }
}

/// Reads a final result (a whole list for list operations) into an [`Output`].
pub(crate) fn read_output(op: &Operation, result: Value) -> Result<Output, String> {
    fn parse<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, String> {
        crate::json_value::from_value(value).map_err(|e| format!("malformed {what}: {e}"))
    }
    Ok(match op {
        Operation::Ping => Output::Pong(Map::new()),
        Operation::ListTools { .. } => Output::Tools(parse(result, "tools")?),
        Operation::ListPrompts => Output::Prompts(parse(result, "prompts")?),
        Operation::ListResources => Output::Resources(parse(result, "resources")?),
        Operation::ListResourceTemplates => {
            Output::ResourceTemplates(parse(result, "resource templates")?)
        }
        Operation::ListSkills => Output::Skills(parse(result, "skills")?),
        Operation::CallTool { .. } | Operation::ResumeTask { .. } => {
            Output::ToolResult(parse(result, "tool result")?)
        }
        Operation::GetPrompt { .. } => Output::Prompt(parse(result, "prompt")?),
        Operation::ReadResource { .. } => Output::Resource(parse(result, "resource contents")?),
    })
}

/// Pages of a list operation gathered so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pages {
    pub items: Vec<Value>,
    pub cursor: Option<String>,
    pub seen_cursors: Vec<String>,
    pub count: usize,
    /// The server's `ttlMs` caching directive (2026-07-28), the smallest of the pages'.
    pub ttl_ms: Option<u64>,
}

/// What one page says: its items, and the cursor of the next page if any.
pub(crate) fn read_page(
    key: &str,
    result: &mut Value,
) -> Result<(Vec<Value>, Option<String>), String> {
    let object = result
        .as_object_mut()
        .ok_or_else(|| format!("a {key} page must be an object"))?;
    let items = match object.remove(key) {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return Err(format!("`{key}` must be an array")),
    };
    let cursor = match object.remove("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c),
        Some(_) => return Err("`nextCursor` must be a string".to_owned()),
    };
    Ok((items, cursor))
}
