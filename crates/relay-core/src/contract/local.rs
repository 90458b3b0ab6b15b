//! The shapes of the local-server messages (`local/*`): what the native host (`relay-host`)
//! runs, as the side panel shows it.

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};

use super::ErrorBody;

/// The native host and its servers (`local/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LocalHostView {
    /// Whether Chrome could start the host.
    pub installed: bool,
    /// Why the host could not be reached, when it could not: Chrome's message as a kind and a
    /// cause with what to do (Chrome's own words only in the message, never as the advice).
    pub error: Option<ErrorBody>,
    /// The one command that installs the host from the release zip, for this platform and this
    /// extension's id (`sh install-host.sh ID`, or the PowerShell line on Windows).
    pub install: String,
    /// The developer's alternative in a checkout of the repository (`cargo xtask install-host`).
    pub developer: String,
    pub servers: Vec<LocalServerView>,
}

/// One server of the host's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LocalServerView {
    pub name: String,
    /// The command as the host runs it (argv, quoted for display).
    pub command: String,
    /// `stopped`, `starting`, `running`, `crashed` or `failed`.
    pub status: String,
    pub detail: String,
    /// Crashes in a row.
    pub crashes: u32,
    /// The id of the extension's server for it.
    pub server_id: Option<String>,
}

/// A server's recent stderr lines and the host's notes (`local/log`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalLogView {
    pub name: String,
    pub lines: Vec<String>,
}

/// A stdio entry of an `mcpServers` file, as the local host would run it (`local/plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalProposal {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: SortedMap<String, String>,
    pub cwd: Option<String>,
    /// The exact command line the user confirms.
    pub display: String,
}

/// What `local/plan` found in a file: entries the host can run, and those it cannot.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalPlanView {
    pub servers: Vec<LocalProposal>,
    pub skipped: Vec<crate::client::SkippedServer>,
}

/// The host added these servers after the user confirmed them (`local/propose`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalAdded {
    pub added: Vec<String>,
}
