//! The host's command line: the only way (with the host's own confirmation dialog) to change
//! the list of local servers, and the registration with Chrome.
//!
//! ```text
//! relay-host add NAME [--cwd DIR] [--env KEY=VALUE]... -- COMMAND [ARGS...]
//! relay-host remove NAME
//! relay-host list
//! relay-host import FILE [--yes]
//! relay-host install --extension-id ID [--copy] [--dir DIR]... [--uninstall]   (see `install`)
//! relay-host chrome-extension://ID/     (how Chrome starts it)
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use thiserror::Error;

use crate::config::{plan_import, Config, ConfigError, ServerEntry};

/// The name Chrome knows the host by (`chrome.runtime.connectNative(HOST_NAME)`).
pub const HOST_NAME: &str = "com.mcp_relay.host";

/// Usage text.
pub const USAGE: &str = "\
usage:
  relay-host add NAME [--cwd DIR] [--env KEY=VALUE]... -- COMMAND [ARGS...]
  relay-host remove NAME
  relay-host list
  relay-host import FILE [--yes]      (an mcpServers JSON file; shows what it would add first)
  relay-host install --extension-id ID [--copy] [--dir DIR]... [--uninstall]
                                      (--copy: into your data folder first, and register the copy)
The list lives in $RELAY_HOST_CONFIG_DIR/servers.json (default: the user's config folder).";

/// A command-line failure.
#[derive(Debug, Error)]
pub enum CliError {
    #[error("{0}\n\n{USAGE}")]
    Usage(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("nothing was changed")]
    Declined,
}

/// Runs a command line (without the program name); output goes to `out`.
pub fn run(args: &[String], out: &mut dyn Write) -> Result<(), CliError> {
    let usage = |m: &str| CliError::Usage(m.to_owned());
    let Some((verb, rest)) = args.split_first() else {
        return Err(usage("no command"));
    };
    let path = Config::path()?;
    match verb.as_str() {
        "add" => {
            let (name, entry) = parse_add(rest)?;
            let mut config = Config::load_from(&path)?;
            config.insert(&name, entry.clone())?;
            config.save_to(&path)?;
            let _ = writeln!(out, "added {name}: {}", entry.display());
        }
        "remove" => {
            let [name] = rest else {
                return Err(usage("remove takes one NAME"));
            };
            let mut config = Config::load_from(&path)?;
            config.remove(name)?;
            config.save_to(&path)?;
            let _ = writeln!(out, "removed {name}");
        }
        "list" => {
            let config = Config::load_from(&path)?;
            if config.servers.is_empty() {
                let _ = writeln!(out, "no local servers (in {})", path.display());
            }
            for (name, entry) in &config.servers {
                let _ = writeln!(out, "{name}: {}", entry.display());
            }
        }
        "import" => {
            let (file, yes) = match rest {
                [file] => (file, false),
                [file, flag] if flag == "--yes" => (file, true),
                _ => return Err(usage("import takes FILE [--yes]")),
            };
            let text = std::fs::read_to_string(file).map_err(|source| CliError::Io {
                path: file.into(),
                source,
            })?;
            let plan = plan_import(&text)?;
            for (name, entry) in &plan.local {
                let _ = writeln!(out, "add {name}: {}", entry.display());
            }
            for (name, url) in &plan.remote {
                let _ = writeln!(
                    out,
                    "not here: {name} is an HTTP server ({url}); import it in the side panel"
                );
            }
            for (name, why) in &plan.skipped {
                let _ = writeln!(out, "skip {name}: {why}");
            }
            if plan.local.is_empty() {
                let _ = writeln!(out, "no stdio servers to add");
                return Ok(());
            }
            if !yes {
                let _ = write!(out, "Add {} local server(s)? [y/N] ", plan.local.len());
                let _ = out.flush();
                let mut answer = String::new();
                let _ = std::io::stdin().lock().read_line(&mut answer);
                if !matches!(answer.trim(), "y" | "Y" | "yes") {
                    return Err(CliError::Declined);
                }
            }
            let mut config = Config::load_from(&path)?;
            for (name, entry) in plan.local {
                config.insert(&name, entry)?;
            }
            config.save_to(&path)?;
            let _ = writeln!(out, "saved {}", path.display());
        }
        "install" => crate::install::install(rest, out)?,
        other => return Err(usage(&format!("unknown command {other:?}"))),
    }
    Ok(())
}

fn parse_add(args: &[String]) -> Result<(String, ServerEntry), CliError> {
    let usage = |m: &str| CliError::Usage(m.to_owned());
    let split = args
        .iter()
        .position(|a| a == "--")
        .ok_or_else(|| usage("add needs `-- COMMAND [ARGS...]`"))?;
    let (opts, argv) = (&args[..split], &args[split + 1..]);
    let Some((command, cmd_args)) = argv.split_first() else {
        return Err(usage("add needs a COMMAND after `--`"));
    };
    let Some((name, mut opts)) = opts.split_first() else {
        return Err(usage("add needs a NAME"));
    };
    let mut env = BTreeMap::new();
    let mut cwd = None;
    while let Some((flag, rest)) = opts.split_first() {
        let Some((value, rest)) = rest.split_first() else {
            return Err(usage(&format!("{flag} needs a value")));
        };
        match flag.as_str() {
            "--cwd" => cwd = Some(value.clone()),
            "--env" => {
                let (k, v) = value
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| usage("--env takes KEY=VALUE"))?;
                env.insert(k.to_owned(), v.to_owned());
            }
            other => return Err(usage(&format!("unknown option {other:?}"))),
        }
        opts = rest;
    }
    Ok((
        name.clone(),
        ServerEntry {
            command: command.clone(),
            args: cmd_args.to_vec(),
            env,
            cwd,
        },
    ))
}

/// Whether `id` looks like a Chrome extension id (32 letters a–p).
pub fn valid_extension_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b))
}
