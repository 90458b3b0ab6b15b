//! HTTP headers of protocol 2026-07-28 that mirror a request's body (SEP-2243): `Mcp-Method`,
//! `Mcp-Name`, and the `Mcp-Param-*` headers a tool asks for with `x-mcp-header` on its
//! parameters; and the check that rejects tools whose `x-mcp-header` annotations are invalid.
//!
//! Why the client cares: intermediaries (gateways, load balancers) route and authorize on these
//! headers without parsing bodies, so a header that disagrees with the body, or a tool whose
//! annotation cannot be turned into a valid header, must never reach the wire.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::model::Tool;

/// The prefix of a header mirroring a tool parameter.
pub const PARAM_HEADER_PREFIX: &str = "Mcp-Param-";

/// Why a tool's `x-mcp-header` annotations are invalid (the tool is then left out).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolHeaderError {
    #[error("parameter `{param}`: x-mcp-header must be a non-empty string")]
    Empty { param: String },
    #[error("parameter `{param}`: x-mcp-header {name:?} may only hold ASCII token characters (no space, colon or control character)")]
    Charset { param: String, name: String },
    #[error("parameter `{param}`: x-mcp-header is only allowed on string, integer and boolean parameters")]
    NotPrimitive { param: String },
    #[error(
        "x-mcp-header {name:?} is used by more than one parameter (names are case-insensitive)"
    )]
    Duplicate { name: String },
}

/// The `x-mcp-header` annotations of a tool's top-level parameters, as (parameter, header name)
/// pairs, or why they are invalid.
pub fn tool_param_headers(tool: &Tool) -> Result<Vec<(String, String)>, ToolHeaderError> {
    let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return Ok(Vec::new());
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (param, schema) in properties {
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let name = match annotation.as_str() {
            Some(s) if !s.is_empty() => s,
            _ => {
                return Err(ToolHeaderError::Empty {
                    param: param.clone(),
                })
            }
        };
        if !name.bytes().all(is_token_char) {
            return Err(ToolHeaderError::Charset {
                param: param.clone(),
                name: name.to_owned(),
            });
        }
        let primitive = matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        if !primitive {
            return Err(ToolHeaderError::NotPrimitive {
                param: param.clone(),
            });
        }
        if out.iter().any(|(_, n)| n.eq_ignore_ascii_case(name)) {
            return Err(ToolHeaderError::Duplicate {
                name: name.to_owned(),
            });
        }
        out.push((param.clone(), name.to_owned()));
    }
    Ok(out)
}

/// RFC 9110 `tchar`: what a header field name may contain.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `Mcp-Param-*` headers of a call of `tool` with `arguments`: one per annotated parameter
/// that has a value (`null` and absent values send none).
pub fn param_headers(tool: &Tool, arguments: &Map<String, Value>) -> Vec<(String, String)> {
    let Ok(annotated) = tool_param_headers(tool) else {
        return Vec::new();
    };
    annotated
        .into_iter()
        .filter_map(|(param, name)| {
            let value = encode_value(arguments.get(&param)?)?;
            Some((format!("{PARAM_HEADER_PREFIX}{name}"), value))
        })
        .collect()
}

/// A parameter's value as a header value: numbers and booleans in their JSON text, strings as
/// they are when they are safe in a header, otherwise `=?base64?…?=` of their UTF-8.
pub fn encode_value(value: &Value) -> Option<String> {
    match value {
        Value::Null | Value::Array(_) | Value::Object(_) => None,
        Value::Bool(b) => Some(if *b { "true" } else { "false" }.to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(if needs_base64(s) {
            format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
            )
        } else {
            s.clone()
        }),
    }
}

/// A string needs Base64 when a header cannot carry it verbatim: characters outside printable
/// ASCII, leading or trailing whitespace (HTTP trims it), or text that would itself read as
/// an encoded value.
fn needs_base64(s: &str) -> bool {
    s.bytes().any(|b| !(0x20..=0x7e).contains(&b))
        || s.trim() != s
        || (s.starts_with("=?base64?") && s.ends_with("?="))
}

/// What `Mcp-Name` carries for a request: the tool or prompt name, the resource URI, or the
/// task id.
pub fn name_header(method: &str, params: Option<&Value>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        // The tasks extension routes a task's requests by its id.
        "tasks/get" | "tasks/update" | "tasks/cancel" | "tasks/result" => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str().map(str::to_owned)
}
