//! The messages between the extension and the host over the native port, and their checks.
//!
//! Every request carries a numeric `id` and a `type`; unknown types and unknown fields are
//! refused (`deny_unknown_fields`), so no message can carry a command, arguments or an
//! environment: a server is named, and the name is looked up in the user's list.
//! Answers are `{id, ok: true, data}` or `{id, ok: false, error: {kind, message}}`; events
//! (`{event: "status", name, status, detail}`) carry no id.

use serde::Deserialize;
use serde_json::{json, Value};
use thiserror::Error;

use crate::config::ServerEntry;

/// Most servers one `propose` may carry.
pub const MAX_PROPOSED: usize = 32;

/// A request from the extension.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Request {
    /// The host's version and the user's servers with their status.
    List { id: u32 },
    /// Start a listed server (if it is not running) and hand over its endpoint.
    Open { id: u32, name: String },
    /// Stop a running server.
    Stop { id: u32, name: String },
    /// Stop and start again, forgetting earlier crashes.
    Restart { id: u32, name: String },
    /// A server's recent stderr lines and the host's notes about it.
    Log { id: u32, name: String },
    /// Servers the user wants added: the host asks the user itself before writing them.
    Propose {
        id: u32,
        servers: Vec<ProposedServer>,
    },
}

/// One server of a `propose`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposedServer {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<String>,
}

impl ProposedServer {
    /// The entry the list would hold.
    pub fn entry(&self) -> ServerEntry {
        ServerEntry {
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
            cwd: self.cwd.clone(),
        }
    }
}

/// Why the host refused or failed a request; `kind` is stable for the extension.
#[derive(Debug, Error)]
pub enum HostError {
    #[error("the message is not valid for the local host: {0}")]
    BadMessage(String),
    #[error("the message is {0} bytes, more than the local host accepts ({max} bytes)", max = crate::framing::MAX_IN)]
    TooLarge(u64),
    #[error(
        "server name {0:?} is not allowed (letters, digits, '-', '_', '.'; no path characters)"
    )]
    BadName(String),
    #[error("no local server is named {0:?}; add it with `relay-host add {0} -- COMMAND ARGS…`")]
    UnknownServer(String),
    #[error("cannot start {name}: {message}")]
    SpawnFailed { name: String, message: String },
    #[error("{name} stopped ({status}); {next}; see its log")]
    Crashed {
        name: String,
        status: String,
        next: String,
    },
    #[error("the list of local servers cannot be used: {0}")]
    Config(String),
    #[error("the user did not confirm adding the servers")]
    NotConfirmed,
    #[error("the host cannot ask for a confirmation here ({0}); add the servers with `relay-host add` in a terminal")]
    NoConfirm(String),
}

impl HostError {
    /// The stable kind the extension matches on.
    pub fn kind(&self) -> &'static str {
        match self {
            HostError::BadMessage(_) => "badMessage",
            HostError::TooLarge(_) => "tooLarge",
            HostError::BadName(_) => "badName",
            HostError::UnknownServer(_) => "unknownServer",
            HostError::SpawnFailed { .. } => "spawnFailed",
            HostError::Crashed { .. } => "crashed",
            HostError::Config(_) => "config",
            HostError::NotConfirmed => "notConfirmed",
            HostError::NoConfirm(_) => "noConfirm",
        }
    }

    /// As a JSON-RPC error object (for the HTTP side).
    pub fn rpc(&self) -> Value {
        json!({"code": -32000, "message": self.to_string(), "data": {"kind": self.kind()}})
    }
}

/// Parses a request, or the error to answer (with the id when one could be read).
pub fn parse(bytes: &[u8]) -> Result<Request, (Option<u32>, HostError)> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| (None, HostError::BadMessage(format!("not JSON: {e}"))))?;
    let id = value
        .get("id")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok());
    let request: Request =
        serde_json::from_value(value).map_err(|e| (id, HostError::BadMessage(e.to_string())))?;
    if let Request::Propose { servers, .. } = &request {
        if servers.is_empty() || servers.len() > MAX_PROPOSED {
            return Err((
                id,
                HostError::BadMessage(format!("propose takes 1 to {MAX_PROPOSED} servers")),
            ));
        }
    }
    Ok(request)
}

/// An answer.
pub fn answer(id: Option<u32>, result: Result<Value, HostError>) -> Value {
    match result {
        Ok(data) => json!({"id": id, "ok": true, "data": data}),
        Err(e) => {
            json!({"id": id, "ok": false, "error": {"kind": e.kind(), "message": e.to_string()}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_and_anything_else_is_refused_with_its_kind() {
        let table: &[(&str, Result<&str, &str>)] = &[
            (r#"{"type":"list","id":1}"#, Ok("List")),
            (r#"{"type":"open","id":2,"name":"fs"}"#, Ok("Open")),
            (r#"{"type":"log","id":2,"name":"fs"}"#, Ok("Log")),
            (
                r#"{"type":"propose","id":3,"servers":[{"name":"a","command":"x","args":["1"]}]}"#,
                Ok("Propose"),
            ),
            // A command riding on an open is an unknown field.
            (
                r#"{"type":"open","id":4,"name":"fs","command":"/bin/sh"}"#,
                Err("badMessage"),
            ),
            (
                r#"{"type":"run","id":5,"command":"/bin/sh"}"#,
                Err("badMessage"),
            ),
            (r#"{"type":"open","id":6}"#, Err("badMessage")),
            (
                r#"{"type":"propose","id":7,"servers":[]}"#,
                Err("badMessage"),
            ),
            (r#"[1,2]"#, Err("badMessage")),
            (r#"not json"#, Err("badMessage")),
        ];
        for (text, expected) in table {
            let got = parse(text.as_bytes());
            match (expected, got) {
                (Ok(variant), Ok(request)) => {
                    assert!(format!("{request:?}").starts_with(variant), "{text}")
                }
                (Err(kind), Err((_, e))) => assert_eq!(e.kind(), *kind, "{text}"),
                (expected, got) => panic!("{text}: expected {expected:?}, got {got:?}"),
            }
        }
    }
}
