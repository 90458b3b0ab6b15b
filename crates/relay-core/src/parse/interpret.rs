//! What a parsed JSON object means: one or more calls in one of the accepted shapes, one event of
//! the JSON-lines format, or nothing at all (most JSON in prose is not a call, and says nothing).

use serde_json::{Map, Value};

use super::json::{self, Repairs};
use super::members::{Member, Members};
use super::{CallFormat, Span};

/// A call as written, before its tool is resolved against the servers.
#[derive(Debug, Clone)]
pub(crate) struct RawCall {
    pub(crate) name: String,
    pub(crate) server: Option<String>,
    /// Always an object.
    pub(crate) arguments: Value,
    pub(crate) id: Option<String>,
    pub(crate) format: CallFormat,
    pub(crate) span: Span,
    pub(crate) repairs: Repairs,
}

/// One object of the JSON-lines format.
#[derive(Debug)]
pub(crate) enum LineEvent {
    Start {
        name: Option<String>,
        call_id: Option<String>,
    },
    Description,
    Parameter {
        key: Option<String>,
        value: Value,
    },
    End {
        call_id: Option<String>,
    },
}

#[derive(Debug)]
pub(crate) enum Shape {
    NotACall,
    /// Each entry is a call or why a call-shaped object cannot be one.
    Calls(Vec<Result<RawCall, String>>),
    Event(LineEvent),
}

const ARGUMENT_KEYS: &[&str] = &["arguments", "args", "parameters", "params", "input"];
const SERVER_KEYS: &[&str] = &[
    "server",
    "server_id",
    "serverId",
    "server_name",
    "serverName",
    "mcp_server",
];
const ID_KEYS: &[&str] = &["id", "call_id", "callId", "tool_call_id", "toolCallId"];
/// `type` values that mark `{"type", "name", ...}` as a call even without arguments.
const CALL_TYPES: &[&str] = &["function", "function_call", "tool_call", "tool_use"];

/// Interprets a parsed candidate found at `span`, whose text needed `repairs`.
pub(crate) fn interpret(value: Value, span: Span, repairs: Repairs) -> Shape {
    let Value::Object(obj) = value else {
        return Shape::NotACall;
    };
    interpret_object(obj, span, repairs)
}

/// [`interpret`] for an object, whichever way its members were read.
pub(crate) fn interpret_object(mut obj: impl Members, span: Span, repairs: Repairs) -> Shape {
    if let Some(event) = line_event(&mut obj) {
        return Shape::Event(event);
    }
    if let Some(Value::Array(items)) = obj.take("tool_calls") {
        let calls = items
            .into_iter()
            .map(|item| match item {
                Value::Object(o) => one_call(o, span, repairs).unwrap_or_else(|| {
                    Err("An entry of \"tool_calls\" has no tool name.".to_owned())
                }),
                _ => Err("An entry of \"tool_calls\" is not an object.".to_owned()),
            })
            .collect();
        return Shape::Calls(calls);
    }
    match one_call(obj, span, repairs) {
        Some(call) => Shape::Calls(vec![call]),
        None => Shape::NotACall,
    }
}

/// The member `key` when it is a string.
fn str_member<'o>(obj: &'o impl Members, key: &str) -> Option<&'o str> {
    match obj.member(key)? {
        Member::Str(s) => Some(s),
        Member::Other(_) => None,
    }
}

fn line_event(obj: &mut impl Members) -> Option<LineEvent> {
    #[derive(Clone, Copy)]
    enum Kind {
        Start,
        Description,
        Parameter,
        End,
    }
    let kind = match str_member(obj, "type")? {
        "function_call_start" => Kind::Start,
        "description" => Kind::Description,
        "parameter" => Kind::Parameter,
        "function_call_end" => Kind::End,
        _ => return None,
    };
    Some(match kind {
        Kind::Start => LineEvent::Start {
            name: string_field(obj, &["name", "tool"]),
            call_id: id_field(obj, &["call_id", "id"]),
        },
        Kind::Description => LineEvent::Description,
        Kind::Parameter => LineEvent::Parameter {
            key: string_field(obj, &["key", "name"]),
            value: obj.take("value").unwrap_or(Value::Null),
        },
        Kind::End => LineEvent::End {
            call_id: id_field(obj, &["call_id", "id"]),
        },
    })
}

fn string_field(obj: &impl Members, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| str_member(obj, k).map(str::to_owned))
}

/// A model-given id: a non-empty string or a number.
fn id_field(obj: &impl Members, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match obj.member(k)? {
        Member::Str(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Member::Other(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

/// `None`: not call-shaped at all. `Some(Err)`: call-shaped but unusable.
fn one_call(
    mut obj: impl Members,
    span: Span,
    repairs: Repairs,
) -> Option<Result<RawCall, String>> {
    let id = id_field(&obj, ID_KEYS);
    let server = string_field(&obj, SERVER_KEYS);
    let (name, args, format) = if let Some(Value::Object(mut f)) = obj.take("function") {
        let name = f.take("name")?;
        (name, take_arguments(&mut f).1, CallFormat::OpenAi)
    } else if let Some(name) = obj.take("tool") {
        let (key, args) = take_arguments(&mut obj);
        (
            name,
            args,
            if key == Some("args") {
                CallFormat::ToolArgs
            } else {
                CallFormat::Tool
            },
        )
    } else if let Some(name) = obj.take("tool_name") {
        (name, take_arguments(&mut obj).1, CallFormat::ToolName)
    } else if str_member(&obj, "name").is_some() {
        let typed = str_member(&obj, "type").is_some_and(|t| CALL_TYPES.contains(&t));
        let (key, args) = take_arguments(&mut obj);
        if key.is_none() && !typed {
            // `{"name": "Alice"}` is data, not a call.
            return None;
        }
        (
            obj.take("name").unwrap_or(Value::Null),
            args,
            CallFormat::OpenAi,
        )
    } else {
        return None;
    };
    let name = match name {
        Value::String(s) if !s.trim().is_empty() => s.trim().to_owned(),
        Value::String(_) => return Some(Err("A call's tool name is empty.".to_owned())),
        other => {
            return Some(Err(format!(
                "A call's tool name must be a string, not {}.",
                type_name(&other)
            )))
        }
    };
    let mut repairs = repairs;
    let arguments = match normalise_arguments(args, span, &mut repairs) {
        Ok(a) => a,
        Err(why) => {
            return Some(Err(format!(
                "The call to \"{name}\" has unusable arguments: {why}."
            )))
        }
    };
    Some(Ok(RawCall {
        name,
        server,
        arguments,
        id,
        format,
        span,
        repairs,
    }))
}

fn take_arguments(obj: &mut impl Members) -> (Option<&'static str>, Option<Value>) {
    for key in ARGUMENT_KEYS {
        if let Some(v) = obj.take(key) {
            return (Some(key), Some(v));
        }
    }
    (None, None)
}

/// Arguments become an object: absent or null is `{}`, a JSON string is parsed (OpenAI sends
/// them that way).
fn normalise_arguments(
    args: Option<Value>,
    span: Span,
    repairs: &mut Repairs,
) -> Result<Value, String> {
    match args {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(v @ Value::Object(_)) => Ok(v),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Some(Value::String(s)) => match json::read_value(s.trim(), span.start, false) {
            Ok((v @ Value::Object(_), inner)) => {
                if !inner.is_empty() {
                    repairs.insert(Repairs::ARGUMENTS_STRING.union(inner));
                }
                Ok(v)
            }
            Ok((other, _)) => Err(format!(
                "the arguments string holds {}, not an object",
                type_name(&other)
            )),
            Err(e) => Err(format!("the arguments string is not JSON ({e})")),
        },
        Some(other) => Err(format!("they are {}, not an object", type_name(&other))),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn show(v: Value) -> String {
        show_shape(interpret(v, Span::new(0, 1), Repairs::default()))
    }

    fn show_shape(shape: Shape) -> String {
        match shape {
            Shape::NotACall => "none".to_owned(),
            Shape::Event(e) => format!("{e:?}"),
            Shape::Calls(calls) => calls
                .into_iter()
                .map(|c| match c {
                    Ok(c) => format!(
                        "{}@{:?} {} id={:?} {:?}",
                        c.name, c.server, c.arguments, c.id, c.format
                    ),
                    Err(e) => format!("err: {e}"),
                })
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    #[test]
    fn shapes_table() {
        let cases = [
            (
                json!({"tool": "add", "server": "demo", "arguments": {"a": 1}, "id": "x"}),
                r#"add@Some("demo") {"a":1} id=Some("x") Tool"#,
            ),
            (
                json!({"action": "call_tool", "tool": "add", "args": {"a": 1}}),
                r#"add@None {"a":1} id=None ToolArgs"#,
            ),
            (
                json!({"id": "call_001", "tool_name": "echo", "arguments": {}}),
                r#"echo@None {} id=Some("call_001") ToolName"#,
            ),
            (
                json!({"name": "add", "arguments": "{\"a\": 2}"}),
                r#"add@None {"a":2} id=None OpenAi"#,
            ),
            (
                json!({"type": "function", "id": 7, "function": {"name": "add", "arguments": "{}"}}),
                r#"add@None {} id=Some("7") OpenAi"#,
            ),
            (
                json!({"type": "tool_use", "name": "echo", "input": {"message": "hi"}}),
                r#"echo@None {"message":"hi"} id=None OpenAi"#,
            ),
            (
                json!({"tool_calls": [{"function": {"name": "a"}}, 3]}),
                r#"a@None {} id=None OpenAi | err: An entry of "tool_calls" is not an object."#,
            ),
            (
                json!({"tool": "add", "arguments": [1]}),
                r#"err: The call to "add" has unusable arguments: they are an array, not an object."#,
            ),
            (
                json!({"tool": "add", "arguments": "[1]"}),
                r#"err: The call to "add" has unusable arguments: the arguments string holds an array, not an object."#,
            ),
            (
                json!({"tool": 5}),
                "err: A call's tool name must be a string, not a number.",
            ),
            (json!({"tool": " "}), "err: A call's tool name is empty."),
            (json!({"name": "Alice", "age": 3}), "none"),
            (json!({"answer": 42}), "none"),
            (json!([1, 2]), "none"),
            (
                json!({"type": "function_call_start", "name": "add", "call_id": 1}),
                r#"Start { name: Some("add"), call_id: Some("1") }"#,
            ),
            (
                json!({"type": "parameter", "key": "a", "value": [1]}),
                r#"Parameter { key: Some("a"), value: Array [Number(1)] }"#,
            ),
            (
                json!({"type": "function_call_end", "call_id": 1}),
                r#"End { call_id: Some("1") }"#,
            ),
            (
                json!({"type": "description", "text": "adds"}),
                "Description",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(show(v.clone()), want, "{v}");
            // The same object read without a `Map` (as candidates are) means the same.
            let text = v.to_string();
            if let Ok(obj) = super::super::members::read(&text) {
                let shape = interpret_object(obj, Span::new(0, 1), Repairs::default());
                assert_eq!(show_shape(shape), want, "{text} read shallow");
            }
        }
    }
}
