//! The user's list of local servers: one JSON file under the user's configuration folder,
//! written only by the host's own command line (`add`, `remove`, `import`) or after a
//! confirmation the host asks the user for itself (`propose`), never because a message arrived.
//!
//! Each server is an argv (a program and its arguments, never a shell line), an environment to
//! add and a working directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

/// The environment variable that names the configuration folder (tests, portable setups).
pub const CONFIG_DIR_ENV: &str = "RELAY_HOST_CONFIG_DIR";
/// The file inside the configuration folder.
pub const CONFIG_FILE: &str = "servers.json";
/// Longest server name.
pub const MAX_NAME: usize = 64;

/// One local server as the user listed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerEntry {
    /// The program: a path or a name looked up on `PATH`.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to the host's environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory; the host's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

impl ServerEntry {
    /// The command as the user must see it before confirming: every argument quoted when it
    /// holds anything but plain characters, environment first.
    pub fn display(&self) -> String {
        let mut parts: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", quote(v)))
            .collect();
        parts.push(quote(&self.command));
        parts.extend(self.args.iter().map(|a| quote(a)));
        let line = parts.join(" ");
        match &self.cwd {
            Some(cwd) => format!("{line}   (in {})", quote(cwd)),
            None => line,
        }
    }
}

fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,%~".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub servers: BTreeMap<String, ServerEntry>,
}

/// What can go wrong with the list.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot find the configuration folder: set {CONFIG_DIR_ENV} or HOME")]
    NoConfigDir,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid server list: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("server name {0:?} is not allowed: use 1 to {MAX_NAME} letters, digits, '-', '_' or '.', starting with a letter or digit")]
    BadName(String),
    #[error("server {0:?} has an empty command")]
    EmptyCommand(String),
    #[error("no local server is named {0:?}")]
    Unknown(String),
    #[error("{0}")]
    Import(String),
}

/// Whether a name may name a server: no path characters, no leading dot, bounded.
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(ConfigError::BadName(name.to_owned()))
    }
}

/// The configuration folder: `$RELAY_HOST_CONFIG_DIR`, else the platform's per-user folder.
pub fn config_dir() -> Result<PathBuf, ConfigError> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if cfg!(windows) {
        return std::env::var_os("APPDATA")
            .map(|d| PathBuf::from(d).join("mcp-relay"))
            .ok_or(ConfigError::NoConfigDir);
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    if cfg!(target_os = "macos") {
        return home
            .map(|h| h.join("Library/Application Support/mcp-relay"))
            .ok_or(ConfigError::NoConfigDir);
    }
    match std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir).join("mcp-relay")),
        None => home
            .map(|h| h.join(".config/mcp-relay"))
            .ok_or(ConfigError::NoConfigDir),
    }
}

impl Config {
    /// The file's path.
    pub fn path() -> Result<PathBuf, ConfigError> {
        Ok(config_dir()?.join(CONFIG_FILE))
    }

    /// Reads the list; a missing file is an empty list.
    pub fn load_from(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let config: Config = serde_json::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })?;
        for (name, entry) in &config.servers {
            check_name(name)?;
            if entry.command.is_empty() {
                return Err(ConfigError::EmptyCommand(name.clone()));
            }
        }
        Ok(config)
    }

    /// Writes the list through a temporary file and a rename, so a reader never sees half.
    pub fn save_to(&self, path: &Path) -> Result<(), ConfigError> {
        let write_err = |source| ConfigError::Write {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        let tmp = path.with_extension("json.tmp");
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        std::fs::write(&tmp, text).map_err(write_err)?;
        std::fs::rename(&tmp, path).map_err(write_err)
    }

    /// Adds or replaces a server after checking its name and command.
    pub fn insert(&mut self, name: &str, entry: ServerEntry) -> Result<(), ConfigError> {
        check_name(name)?;
        if entry.command.is_empty() {
            return Err(ConfigError::EmptyCommand(name.to_owned()));
        }
        self.servers.insert(name.to_owned(), entry);
        Ok(())
    }

    /// Removes a server.
    pub fn remove(&mut self, name: &str) -> Result<ServerEntry, ConfigError> {
        self.servers
            .remove(name)
            .ok_or_else(|| ConfigError::Unknown(name.to_owned()))
    }
}

/// What an `mcpServers` file holds, split by where each entry can run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportPlan {
    /// stdio entries: the local host runs them.
    pub local: Vec<(String, ServerEntry)>,
    /// HTTP entries: the extension reaches them itself (`name`, `url`).
    pub remote: Vec<(String, String)>,
    /// Entries neither can take, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Splits an `mcpServers` (Claude Desktop, Cursor) or `servers` (VS Code) file.
pub fn plan_import(text: &str) -> Result<ImportPlan, ConfigError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ConfigError::Import(format!("not JSON: {e}")))?;
    let servers = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            ConfigError::Import("no `mcpServers` (or `servers`) object in the file".into())
        })?;
    let mut plan = ImportPlan::default();
    for (name, entry) in servers {
        match classify(name, entry) {
            Ok(Planned::Local(e)) => plan.local.push((name.clone(), e)),
            Ok(Planned::Remote(url)) => plan.remote.push((name.clone(), url)),
            Err(reason) => plan.skipped.push((name.clone(), reason)),
        }
    }
    Ok(plan)
}

enum Planned {
    Local(ServerEntry),
    Remote(String),
}

fn classify(name: &str, entry: &Value) -> Result<Planned, String> {
    if let Some(url) = entry.get("url").or_else(|| entry.get("serverUrl")) {
        return url
            .as_str()
            .map(|u| Planned::Remote(u.to_owned()))
            .ok_or_else(|| "`url` is not a string".to_owned());
    }
    let command = entry
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| "neither `url` nor `command`".to_owned())?;
    check_name(name).map_err(|e| e.to_string())?;
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("`{key}` holds a non-string"))
                })
                .collect(),
            Some(_) => Err(format!("`{key}` is not a list")),
        }
    };
    let mut env = BTreeMap::new();
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
    Ok(Planned::Local(ServerEntry {
        command: command.to_owned(),
        args: strings("args")?,
        env,
        cwd,
    }))
}
