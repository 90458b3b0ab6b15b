//! MCP Relay's native messaging host: Chrome starts it when the extension connects
//! (`chrome.runtime.connectNative("com.mcp_relay.host")`), and it runs the user's local stdio
//! MCP servers, each served to the extension as Streamable HTTP on 127.0.0.1 behind a secret of
//! this run (ARCHITECTURE.md, "relay-host"; SECURITY.md, "The native host").

pub mod bridge;
pub mod cli;
pub mod config;
pub mod framing;
pub mod install;
pub mod native;
pub mod protocol;
pub mod supervisor;

use std::time::Duration;

/// Idle time before a server is stopped, in milliseconds (`RELAY_HOST_IDLE_MS`; default 5 min).
pub const IDLE_ENV: &str = "RELAY_HOST_IDLE_MS";
/// First restart delay after a crash, in milliseconds (`RELAY_HOST_BACKOFF_MS`; default 1 s).
pub const BACKOFF_ENV: &str = "RELAY_HOST_BACKOFF_MS";

fn env_ms(name: &str, default: u64) -> Duration {
    Duration::from_millis(
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default),
    )
}

/// The settings of a host run, from the environment.
pub fn settings() -> Result<supervisor::Settings, config::ConfigError> {
    Ok(supervisor::Settings {
        config_path: config::Config::path()?,
        idle: env_ms(IDLE_ENV, 300_000),
        backoff: env_ms(BACKOFF_ENV, 1_000),
    })
}
