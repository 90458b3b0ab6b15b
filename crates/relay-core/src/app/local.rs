//! Local servers: the stdio servers the native host (`relay-host`) runs from its own list.
//!
//! The extension never tells the host what to run: it names a server of the host's list, and
//! the host answers where it serves it (Streamable HTTP on 127.0.0.1, with a secret of this host
//! run). A local server is an ordinary [`ServerConfig`] whose `local` names it; its address and
//! `Authorization` are replaced by the host's before the client talks to it
//! ([`endpoint`], [`with_endpoint`]). The decisions here: which names are valid, what a host
//! answer must look like, which of the host's servers the extension does not know yet, and
//! which entries of an `mcpServers` file the host could run, with the exact command the user
//! confirms.

use crate::sorted_map::SortedMap;

use serde_json::{json, Value};

use super::App;
use crate::client::{ServerConfig, SkipReason, SkippedServer};
use crate::contract::local::{LocalHostView, LocalPlanView, LocalProposal, LocalServerView};
use crate::contract::{ErrorBody, ErrorCause, ErrorKind};

/// The developer's command that builds and installs the host from a checkout (README, "Local
/// servers"); a user runs the release zip's script instead ([`install_command`]).
pub const DEVELOPER_COMMAND: &str = "cargo xtask install-host";
/// The release zip's install scripts (`cargo xtask dist` puts them beside the host's binaries).
pub const INSTALL_SCRIPT_SH: &str = "install-host.sh";
pub const INSTALL_SCRIPT_PS1: &str = "install-host.ps1";
/// The host's name for Chrome (`chrome.runtime.connectNative`).
pub const HOST_NAME: &str = "com.mcp_relay.host";
/// Longest server name the host takes.
pub const MAX_NAME: usize = 64;
/// Most servers one proposal may carry (the host's own limit).
pub const MAX_PROPOSED: usize = 32;
/// Longest message to the host (it reads 64 KiB at most; the id is added on the way).
pub const MAX_MESSAGE: usize = 60 * 1024;

/// What the runner asks the host for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalIo {
    /// The host's list, synchronised into the configuration; answer [`LocalHostView`] (with
    /// the install command for the panel's platform).
    List(Platform),
    /// A server's log.
    Log(String),
    /// Stop and start a server again.
    Restart(String),
    /// Servers the host adds once the user confirms them in the host's own dialog.
    Propose(Vec<LocalProposal>),
}

/// Where the panel runs, for the install command: `chrome.runtime.getPlatformInfo().os` and
/// `chrome.runtime.id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Platform {
    pub os: String,
    pub extension_id: String,
}

/// The one command that installs the host from the unzipped release, in that folder: the
/// PowerShell script on Windows, the shell script elsewhere, with this extension's id (a store
/// build's id differs from the unpacked one's, so the script is told).
pub fn install_command(platform: &Platform) -> String {
    let id = &platform.extension_id;
    let id_ok = id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b));
    let id = if id_ok { id.as_str() } else { "EXTENSION_ID" };
    match platform.os.as_str() {
        "win" => format!("powershell -ExecutionPolicy Bypass -File .\\{INSTALL_SCRIPT_PS1} {id}"),
        _ => format!("sh {INSTALL_SCRIPT_SH} {id}"),
    }
}

/// Chrome's message when it cannot use the native host, as a kind and a cause with what to do:
/// its English words are replaced, not shown (the panel says the cause in the user's language).
pub fn host_failure(error: ErrorBody) -> ErrorBody {
    if error.kind != ErrorKind::LocalHost || error.cause.is_some() {
        return error;
    }
    let raw = error.message.trim();
    let known: &[(&str, ErrorCause, &str, &str)] = &[
        (
            "Specified native messaging host not found.",
            ErrorCause::HostMissing,
            "the local host is not installed",
            "Download MCP Relay's zip, unzip it and run the command below in that folder.",
        ),
        (
            "Native host has exited.",
            ErrorCause::HostExited,
            "the local host stopped",
            "If this repeats, its program is missing or broken: run the install command below again.",
        ),
        (
            "Access to the specified native messaging host is forbidden.",
            ErrorCause::HostForbidden,
            "the local host is installed for another copy of the extension",
            "Run the install command below: it names this extension's id.",
        ),
    ];
    match known.iter().find(|(m, ..)| raw.eq_ignore_ascii_case(m)) {
        Some((_, cause, message, hint)) => ErrorBody::new(ErrorKind::LocalHost, *message)
            .with_hint(*hint)
            .with_cause(Some(*cause)),
        None => error,
    }
}

fn local_error(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorKind::LocalHost, message)
}

/// Whether the host would take `name`: letters, digits, `-`, `_`, `.`, not first; no path.
pub fn check_name(name: &str) -> Result<(), ErrorBody> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    match ok {
        true => Ok(()),
        false => Err(ErrorBody::new(
            ErrorKind::InvalidArgument,
            format!("local server name {name:?} is not allowed (letters, digits, '-', '_', '.'; no path characters)"),
        )),
    }
}

/// A message to the host naming one server, the name checked first.
pub fn named(kind: &str, name: &str) -> Result<Value, ErrorBody> {
    check_name(name)?;
    Ok(json!({"type": kind, "name": name}))
}

/// The data of a host answer (`{ok: true, data}`), or its error as the panel shows it.
pub fn host_data(answer: Value) -> Result<Value, ErrorBody> {
    match answer.get("ok").and_then(Value::as_bool) {
        Some(true) => Ok(answer.get("data").cloned().unwrap_or(Value::Null)),
        Some(false) => {
            let message = answer
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("the local host refused the request");
            Err(local_error(message))
        }
        None => Err(local_error(
            "the local host sent an answer that is not valid",
        )),
    }
}

/// Where the host serves `name` now: `http://127.0.0.1:PORT/mcp/NAME` and its secret. Any
/// other address is refused: a local server's requests never leave the loopback interface.
pub fn endpoint(name: &str, data: &Value) -> Result<(String, String), ErrorBody> {
    let url = data.get("url").and_then(Value::as_str).unwrap_or_default();
    let token = data
        .get("token")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix(&format!("/mcp/{name}")))
        .and_then(|port| port.parse::<u16>().ok());
    let token_ok = token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit());
    match (port, token_ok) {
        (Some(p), true) if p > 0 => Ok((url.to_owned(), token.to_owned())),
        _ => Err(local_error(format!(
            "the local host named an address that is not its own for {name}"
        ))),
    }
}

/// The configuration the client uses for a local server while the host serves it.
pub fn with_endpoint(server: &ServerConfig, url: &str, token: &str) -> ServerConfig {
    let mut live = server.clone();
    live.url = url.to_owned();
    live.headers = vec![("Authorization".to_owned(), format!("Bearer {token}"))];
    live
}

/// The placeholder address stored for a local server (the host's is known only while it runs).
pub fn placeholder_url(name: &str) -> String {
    format!("http://127.0.0.1/local/{name}")
}

/// A command line as the user must see it before confirming it: each argument quoted unless
/// it is plain, the environment first, the folder after. Same rules as the host's own dialog.
pub fn display(
    command: &str,
    args: &[String],
    env: &SortedMap<String, String>,
    cwd: Option<&str>,
) -> String {
    fn quote(s: &str) -> String {
        let plain = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,%~".contains(c));
        match plain {
            true => s.to_owned(),
            false => format!("'{}'", s.replace('\'', "'\\''")),
        }
    }
    let mut parts: Vec<String> = env
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(v)))
        .collect();
    parts.push(quote(command));
    parts.extend(args.iter().map(|a| quote(a)));
    let line = parts.join(" ");
    match cwd {
        Some(cwd) => format!("{line}   (in {})", quote(cwd)),
        None => line,
    }
}

/// The stdio entries of an `mcpServers` (or VS Code `servers`) file, as the host would run them.
pub fn plan(json_text: &str) -> Result<LocalPlanView, ErrorBody> {
    let invalid = |m: String| ErrorBody::new(ErrorKind::InvalidArgument, m);
    let value: Value = serde_json::from_str(json_text)
        .map_err(|e| invalid(format!("the file is not JSON: {e}")))?;
    let servers = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("no `mcpServers` or `servers` object found".into()))?;
    let mut plan = LocalPlanView {
        servers: Vec::new(),
        skipped: Vec::new(),
    };
    for (name, entry) in servers {
        let Some(command) = entry.get("command") else {
            continue; // an HTTP entry: `servers/import`'s
        };
        match proposal(name, command, entry) {
            Ok(p) => plan.servers.push(p),
            Err(reason) => plan.skipped.push(SkippedServer::new(
                name,
                SkipReason::BadLocalEntry,
                "",
                reason,
            )),
        }
    }
    Ok(plan)
}

fn proposal(name: &str, command: &Value, entry: &Value) -> Result<LocalProposal, String> {
    check_name(name).map_err(|e| e.message)?;
    let command = command
        .as_str()
        .filter(|c| !c.is_empty())
        .ok_or("`command` is not a string")?;
    let args = match entry.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .ok_or("`args` holds a non-string")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`args` is not a list".into()),
    };
    let mut env = SortedMap::new();
    match entry.get("env") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                let v = v
                    .as_str()
                    .ok_or_else(|| format!("env `{k}` is not a string"))?;
                env.insert(k.clone(), v.to_owned());
            }
        }
        Some(_) => return Err("`env` is not an object".into()),
    }
    let cwd = entry.get("cwd").and_then(Value::as_str).map(str::to_owned);
    Ok(LocalProposal {
        display: display(command, &args, &env, cwd.as_deref()),
        name: name.to_owned(),
        command: command.to_owned(),
        args,
        env,
        cwd,
    })
}

/// The `propose` message for the host, checked as the host will check it.
pub fn propose_message(servers: &[LocalProposal]) -> Result<Value, ErrorBody> {
    if servers.is_empty() || servers.len() > MAX_PROPOSED {
        return Err(ErrorBody::new(
            ErrorKind::InvalidArgument,
            format!("propose 1 to {MAX_PROPOSED} servers"),
        ));
    }
    let mut list = Vec::new();
    for s in servers {
        check_name(&s.name)?;
        list.push(json!({"name": s.name, "command": s.command, "args": s.args, "env": s.env, "cwd": s.cwd}));
    }
    let message = json!({"type": "propose", "servers": list});
    if message.to_string().len() > MAX_MESSAGE {
        return Err(ErrorBody::new(
            ErrorKind::InvalidArgument,
            format!("the servers are too large for the local host ({MAX_MESSAGE} bytes at most)"),
        ));
    }
    Ok(message)
}

impl App {
    /// The host's name of a configured local server.
    pub fn local_name(&self, id: &str) -> Option<String> {
        self.config
            .servers
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.local.clone())
    }

    /// The configured server of a local one (the client's view is the host's address).
    pub fn local_config(&self, id: &str) -> Option<ServerConfig> {
        self.config
            .servers
            .iter()
            .find(|s| s.id == id && s.local.is_some())
            .cloned()
    }

    /// Configured local servers the host no longer lists (the user removed them with
    /// `relay-host remove`): the host's list is the source of local servers.
    pub fn local_stale(&self, view: &LocalHostView) -> Vec<String> {
        self.config
            .servers
            .iter()
            .filter(|s| {
                s.local
                    .as_ref()
                    .is_some_and(|name| view.servers.iter().all(|l| &l.name != name))
            })
            .map(|s| s.id.clone())
            .collect()
    }

    /// The panel's view of the host's `list` data, and the names the configuration lacks.
    pub fn local_view(
        &self,
        data: &Value,
        platform: &Platform,
    ) -> Result<(LocalHostView, Vec<String>), ErrorBody> {
        let list = data
            .get("servers")
            .and_then(Value::as_array)
            .ok_or_else(|| local_error("the local host's list is not valid"))?;
        let mut servers = Vec::new();
        let mut missing = Vec::new();
        for s in list {
            let text = |k: &str| {
                s.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let name = text("name");
            if check_name(&name).is_err() {
                continue;
            }
            let server_id = self
                .config
                .servers
                .iter()
                .find(|c| c.local.as_deref() == Some(name.as_str()))
                .map(|c| c.id.clone());
            if server_id.is_none() {
                missing.push(name.clone());
            }
            servers.push(LocalServerView {
                command: text("command"),
                status: text("status"),
                detail: text("detail"),
                crashes: s.get("crashes").and_then(Value::as_u64).unwrap_or(0) as u32,
                server_id,
                name,
            });
        }
        let view = LocalHostView {
            installed: true,
            error: None,
            install: install_command(platform),
            developer: DEVELOPER_COMMAND.to_owned(),
            servers,
        };
        Ok((view, missing))
    }

    /// A new configured server for a host server the extension does not know yet.
    pub fn local_server(&self, name: &str) -> ServerConfig {
        let id = self.config.unique_id(&format!("local-{name}"));
        let mut server = ServerConfig::new(id, name, placeholder_url(name));
        server.timeout_ms = self.config.settings.default_timeout_ms;
        server.local = Some(name.to_owned());
        server
    }
}

/// The view when Chrome could not start the host: why, and the one command that installs it.
pub fn not_installed(error: ErrorBody, platform: &Platform) -> LocalHostView {
    LocalHostView {
        installed: false,
        error: Some(host_failure(error)),
        install: install_command(platform),
        developer: DEVELOPER_COMMAND.to_owned(),
        servers: Vec::new(),
    }
}
