//! JSON-RPC 2.0 messages as MCP uses them: requests, notifications, responses and errors.
//!
//! Parsing classifies a message by the members it has rather than by trying each shape in
//! turn, so a malformed message gets an error that names what is wrong with it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// A request id. MCP forbids `null` ids; numbers and strings are both valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error code, with the codes MCP uses named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// MCP: the requested resource does not exist.
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// MCP: the server needs the user to complete a URL elicitation first.
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

    /// The standard name of the code, if it has one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "parse error",
            Self::INVALID_REQUEST => "invalid request",
            Self::METHOD_NOT_FOUND => "method not found",
            Self::INVALID_PARAMS => "invalid params",
            Self::INTERNAL_ERROR => "internal error",
            Self::RESOURCE_NOT_FOUND => "resource not found",
            Self::URL_ELICITATION_REQUIRED => "URL elicitation required",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{}, {name}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorObject {
    pub code: ErrorCode,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// The `"jsonrpc": "2.0"` member, written on every message and checked on every parse.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Version;

impl Version {
    fn as_str(self) -> &'static str {
        "2.0"
    }
}

/// A request: a method call that expects a response with the same id.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Request {
    #[serde(serialize_with = "write_version")]
    pub jsonrpc: Version,
    pub id: RequestId,
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// A notification: a method call without an id, never answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Notification {
    #[serde(serialize_with = "write_version")]
    pub jsonrpc: Version,
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Response {
    #[serde(serialize_with = "write_version")]
    pub jsonrpc: Version,
    pub id: RequestId,
    pub result: Value,
}

/// An error response. The id is absent when the server could not read the request's id.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ErrorResponse {
    #[serde(serialize_with = "write_version")]
    pub jsonrpc: Version,
    pub id: Option<RequestId>,
    pub error: ErrorObject,
}

fn write_version<S: serde::Serializer>(v: &Version, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.as_str())
}

/// Any JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
    Error(ErrorResponse),
}

impl Request {
    /// A request with the given id, method and params.
    pub fn new(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        Request {
            jsonrpc: Version,
            id,
            method: method.into(),
            params,
        }
    }
}

impl Notification {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Notification {
            jsonrpc: Version,
            method: method.into(),
            params,
        }
    }
}

impl Response {
    /// A successful response.
    pub fn new(id: RequestId, result: Value) -> Self {
        Response {
            jsonrpc: Version,
            id,
            result,
        }
    }
}

impl ErrorResponse {
    /// An error response.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        ErrorResponse {
            jsonrpc: Version,
            id,
            error,
        }
    }
}

/// Why a payload is not a valid JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MessageError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("a JSON-RPC message must be an object, got {0}")]
    NotAnObject(&'static str),
    #[error("missing or wrong \"jsonrpc\" member (must be \"2.0\")")]
    BadVersion,
    #[error("invalid id: {0}")]
    BadId(String),
    #[error("\"method\" must be a string")]
    BadMethod,
    #[error("\"params\" must be an object or an array")]
    BadParams,
    #[error("invalid \"error\" member: {0}")]
    BadError(String),
    #[error("a response must have exactly one of \"result\" and \"error\"")]
    ResultAndError,
    #[error("a response needs an id")]
    MissingId,
    #[error("an empty batch")]
    EmptyBatch,
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn parse_id(value: Value) -> Result<RequestId, MessageError> {
    match value {
        Value::String(s) => Ok(RequestId::String(s)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Ok(RequestId::Number(i)),
            None => Err(MessageError::BadId(format!("{n} is not an integer"))),
        },
        other => Err(MessageError::BadId(format!("got {}", kind_of(&other)))),
    }
}

fn parse_params(value: Option<Value>) -> Result<Option<Value>, MessageError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v @ (Value::Object(_) | Value::Array(_))) => Ok(Some(v)),
        Some(_) => Err(MessageError::BadParams),
    }
}

impl Message {
    /// Classifies one JSON value as a message.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        let mut object: Map<String, Value> = match value {
            Value::Object(o) => o,
            other => return Err(MessageError::NotAnObject(kind_of(&other))),
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(MessageError::BadVersion);
        }
        let id = object.remove("id");
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else {
                return Err(MessageError::BadMethod);
            };
            let params = parse_params(object.remove("params"))?;
            return Ok(match id {
                None => Message::Notification(Notification {
                    jsonrpc: Version,
                    method,
                    params,
                }),
                Some(id) => Message::Request(Request {
                    jsonrpc: Version,
                    id: parse_id(id)?,
                    method,
                    params,
                }),
            });
        }
        match (object.remove("result"), object.remove("error")) {
            (Some(result), None) => {
                let id = parse_id(id.ok_or(MessageError::MissingId)?)?;
                Ok(Message::Response(Response {
                    jsonrpc: Version,
                    id,
                    result,
                }))
            }
            (None, Some(error)) => {
                let error: ErrorObject = crate::json_value::from_value(error)
                    .map_err(|e| MessageError::BadError(e.to_string()))?;
                let id = match id {
                    None | Some(Value::Null) => None,
                    Some(id) => Some(parse_id(id)?),
                };
                Ok(Message::Error(ErrorResponse {
                    jsonrpc: Version,
                    id,
                    error,
                }))
            }
            _ => Err(MessageError::ResultAndError),
        }
    }

    /// Parses a payload holding one message or a batch (an array) of messages.
    pub fn parse_all(bytes: &[u8]) -> Result<Vec<Message>, MessageError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| MessageError::NotJson(e.to_string()))?;
        match value {
            Value::Array(items) if items.is_empty() => Err(MessageError::EmptyBatch),
            Value::Array(items) => items.into_iter().map(Message::from_value).collect(),
            single => Ok(vec![Message::from_value(single)?]),
        }
    }

    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        // Serializing plain data (string keys, no maps with non-string keys) cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(serde::de::Error::custom)
    }
}
