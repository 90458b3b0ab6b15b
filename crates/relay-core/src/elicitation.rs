//! Elicitation (MCP 2025-11-25 `elicitation/create`), the pure part: reading a server's
//! request, describing its form for the side panel, and building the answer — SEP-1034's
//! defaults applied to the fields the user left empty, the content checked against the
//! requested schema (flat object of string, number, integer, boolean and enum fields) before it
//! is sent, and the URL mode that asks the user to open a page.
//!
//! The session does not route server requests here yet: declaring the capability and passing
//! the request to the panel belong to the client driver (see CONFORMANCE.md).

use serde::Serialize;
use serde_json::{json, Map, Value};
use thiserror::Error;

/// Why an elicitation request or answer is unusable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ElicitError {
    #[error("the elicitation request is malformed: {0}")]
    Malformed(&'static str),
    #[error("field `{field}`: {problem}")]
    Field { field: String, problem: String },
}

/// One field of a form elicitation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Field {
    pub name: String,
    /// `string`, `number`, `integer` or `boolean`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// The allowed values of an enum field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<Value>>,
}

/// A server's `elicitation/create` request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ElicitRequest {
    /// Ask the user to fill in a form.
    Form { message: String, fields: Vec<Field> },
    /// Ask the user to open `url` (after confirming) and come back.
    #[serde(rename_all = "camelCase")]
    Url {
        message: String,
        url: String,
        elicitation_id: Option<String>,
    },
}

impl ElicitRequest {
    /// Reads the `params` of an `elicitation/create` request.
    pub fn parse(params: &Value) -> Result<ElicitRequest, ElicitError> {
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .ok_or(ElicitError::Malformed("no message"))?
            .to_owned();
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            let url = params
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
                .ok_or(ElicitError::Malformed(
                    "a URL elicitation needs an http(s) url",
                ))?
                .to_owned();
            let elicitation_id = params
                .get("elicitationId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            return Ok(ElicitRequest::Url {
                message,
                url,
                elicitation_id,
            });
        }
        let schema = params
            .get("requestedSchema")
            .and_then(Value::as_object)
            .ok_or(ElicitError::Malformed("no requestedSchema"))?;
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, spec) in properties {
                fields.push(field(name, spec, required.contains(&name.as_str()))?);
            }
        }
        Ok(ElicitRequest::Form { message, fields })
    }
}

fn field(name: &str, spec: &Value, required: bool) -> Result<Field, ElicitError> {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
    let options = spec
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| {
            // `oneOf: [{const, title}]`: titled enum options.
            spec.get("oneOf").and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.get("const").cloned())
                    .collect()
            })
        });
    let kind = text("type").unwrap_or_else(|| "string".to_owned());
    if !matches!(kind.as_str(), "string" | "number" | "integer" | "boolean") {
        return Err(ElicitError::Field {
            field: name.to_owned(),
            problem: format!("type `{kind}` is not a primitive type"),
        });
    }
    Ok(Field {
        name: name.to_owned(),
        kind,
        title: text("title"),
        description: text("description"),
        required,
        default: spec.get("default").cloned(),
        options,
    })
}

/// The answer when the user accepts with `content` (what they filled in): SEP-1034's defaults
/// for every field left out, then each value checked against its field. A required field with
/// neither a value nor a default is an error the panel shows next to it.
pub fn accept(fields: &[Field], content: &Map<String, Value>) -> Result<Value, ElicitError> {
    let mut out = Map::new();
    for field in fields {
        let value = match content.get(&field.name).filter(|v| !v.is_null()) {
            Some(value) => value.clone(),
            None => match &field.default {
                Some(default) => default.clone(),
                None if field.required => {
                    return Err(ElicitError::Field {
                        field: field.name.clone(),
                        problem: "is required".to_owned(),
                    })
                }
                None => continue,
            },
        };
        check(field, &value)?;
        out.insert(field.name.clone(), value);
    }
    Ok(json!({ "action": "accept", "content": out }))
}

fn check(field: &Field, value: &Value) -> Result<(), ElicitError> {
    let ok = match field.kind.as_str() {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        _ => value.is_number(),
    };
    if !ok {
        return Err(ElicitError::Field {
            field: field.name.clone(),
            problem: format!("must be of type {}", field.kind),
        });
    }
    if let Some(options) = &field.options {
        if !options.contains(value) {
            return Err(ElicitError::Field {
                field: field.name.clone(),
                problem: "is not one of the allowed values".to_owned(),
            });
        }
    }
    Ok(())
}

/// The answer when the user declines.
pub fn decline() -> Value {
    json!({ "action": "decline" })
}

/// The answer when the user dismisses the request, or nobody answers in time.
pub fn cancel() -> Value {
    json!({ "action": "cancel" })
}
