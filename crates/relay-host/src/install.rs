//! `relay-host install`: the host's registration with the browsers for the current user, the one
//! place that knows where things go. The release zip's `install-host.sh` / `install-host.ps1`
//! and `cargo xtask install-host` only pick the binary and run it with `--copy`; every fact
//! (the host's name, the folders, the manifest, the registry keys) is here.
//!
//! - `--copy`: this program first copies itself into the user's data folder ([`install_dir`]) and
//!   the copy is registered (a download folder or `target/` can go away; the copy stays).
//! - Linux and macOS: the host manifest goes into each browser's per-user `NativeMessagingHosts`
//!   folder ([`manifest_dirs`]): Chrome's and Chromium's always, Edge's and Brave's when the
//!   browser's own folder exists (nothing is created for a browser that is not there).
//! - Windows: the manifest is written beside the copy and each browser's `HKCU` key
//!   ([`REGISTRY_KEYS`]) names it, through `reg.exe`.
//!
//! `--uninstall` removes what install wrote (with `--copy`, the copy too).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::{CliError, HOST_NAME};

/// The registry keys (under `HKEY_CURRENT_USER`) whose default value names the host manifest on
/// Windows, one per browser; each gets `\<HOST_NAME>` appended.
pub const REGISTRY_KEYS: &[&str] = &[
    r"Software\Google\Chrome\NativeMessagingHosts",
    r"Software\Chromium\NativeMessagingHosts",
    r"Software\Microsoft\Edge\NativeMessagingHosts",
    r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
];

/// The program's file name on this platform.
pub fn exe_name() -> &'static str {
    if cfg!(windows) {
        "relay-host.exe"
    } else {
        "relay-host"
    }
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

fn home() -> Result<PathBuf, CliError> {
    env_dir("HOME").ok_or_else(|| CliError::Usage("HOME is not set".into()))
}

/// Where `--copy` puts the host: the user's data folder (`~/.local/share/mcp-relay/bin` or
/// `$XDG_DATA_HOME/mcp-relay/bin`, `~/Library/Application Support/mcp-relay/bin`,
/// `%LOCALAPPDATA%\mcp-relay\bin`).
pub fn install_dir() -> Result<PathBuf, CliError> {
    if cfg!(windows) {
        return env_dir("LOCALAPPDATA")
            .map(|d| d.join("mcp-relay").join("bin"))
            .ok_or_else(|| CliError::Usage("LOCALAPPDATA is not set".into()));
    }
    let home = home()?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library/Application Support/mcp-relay/bin")
    } else {
        env_dir("XDG_DATA_HOME")
            .unwrap_or_else(|| home.join(".local/share"))
            .join("mcp-relay/bin")
    })
}

/// The per-user `NativeMessagingHosts` folders to write to (Linux, macOS): Chrome's and
/// Chromium's, and Edge's and Brave's where that browser keeps its profile already.
/// `for_removal`: every one of them, whether the browser is there or not.
pub fn manifest_dirs(for_removal: bool) -> Vec<PathBuf> {
    let Some(home) = env_dir("HOME") else {
        return Vec::new();
    };
    let (base, always, if_present): (PathBuf, [&str; 2], [&str; 2]) = if cfg!(target_os = "macos") {
        (
            home.join("Library/Application Support"),
            ["Google/Chrome", "Chromium"],
            ["Microsoft Edge", "BraveSoftware/Brave-Browser"],
        )
    } else {
        (
            env_dir("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")),
            ["google-chrome", "chromium"],
            ["microsoft-edge", "BraveSoftware/Brave-Browser"],
        )
    };
    let present = if_present
        .iter()
        .filter(|b| for_removal || base.join(b).is_dir());
    always
        .iter()
        .chain(present)
        .map(|b| base.join(b).join("NativeMessagingHosts"))
        .collect()
}

/// `relay-host install --extension-id ID [--copy] [--dir DIR]... [--uninstall]`.
pub fn install(args: &[String], out: &mut dyn Write) -> Result<(), CliError> {
    let usage = |m: &str| CliError::Usage(m.to_owned());
    let mut id = None;
    let mut dirs = Vec::new();
    let mut uninstall = false;
    let mut copy = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--extension-id" => id = it.next().cloned(),
            "--dir" => dirs.push(PathBuf::from(
                it.next().ok_or_else(|| usage("--dir needs a value"))?,
            )),
            "--uninstall" => uninstall = true,
            "--copy" => copy = true,
            other => return Err(usage(&format!("unknown option {other:?}"))),
        }
    }
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| CliError::Io { path, source }
    };
    let id = match (uninstall, id) {
        (true, _) => String::new(),
        (false, Some(id)) if crate::cli::valid_extension_id(&id) => id,
        (false, _) => {
            return Err(usage(
                "install needs --extension-id with the extension's 32-letter id",
            ))
        }
    };
    let windows = cfg!(windows) && dirs.is_empty();
    if dirs.is_empty() && !windows {
        dirs = manifest_dirs(uninstall);
    }
    let here = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(io(Path::new("relay-host")))?;
    let program = match copy {
        true => install_dir()?.join(exe_name()),
        false => here.clone(),
    };
    if uninstall {
        for file in dirs.iter().map(|d| d.join(format!("{HOST_NAME}.json"))) {
            remove(&file, out)?;
        }
        if windows {
            for key in REGISTRY_KEYS {
                let key = format!(r"HKCU\{key}\{HOST_NAME}");
                // Absent keys are no failure: only the browsers that were registered have one.
                let _ = std::process::Command::new("reg")
                    .args(["delete", &key, "/f"])
                    .output();
            }
            if let Some(dir) = program.parent() {
                remove(&dir.join(format!("{HOST_NAME}.json")), out)?;
            }
        }
        if copy && program != here {
            remove(&program, out)?;
        }
        return Ok(());
    }
    if copy && program != here {
        let dir = program.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        // Through a temporary name and a rename: a host Chrome is running keeps its old file.
        let tmp = program.with_extension("new");
        std::fs::copy(&here, &tmp).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &program).map_err(io(&program))?;
        let _ = writeln!(out, "copied the host to {}", program.display());
    }
    if windows {
        let dir = program.parent().unwrap_or(Path::new("."));
        let file = dir.join(format!("{HOST_NAME}.json"));
        write_manifest(&file, &program, &id)?;
        for key in REGISTRY_KEYS {
            let key = format!(r"HKCU\{key}\{HOST_NAME}");
            let file = file.to_string_lossy();
            let status = std::process::Command::new("reg")
                .args(["add", &key, "/ve", "/t", "REG_SZ", "/d", &file, "/f"])
                .status()
                .map_err(io(Path::new("reg.exe")))?;
            if !status.success() {
                return Err(usage(&format!("reg add {key} failed ({status})")));
            }
            let _ = writeln!(out, "registered HKCU\\{key}");
        }
    }
    for file in dirs.iter().map(|d| d.join(format!("{HOST_NAME}.json"))) {
        write_manifest(&file, &program, &id)?;
        let _ = writeln!(out, "registered {}", file.display());
    }
    Ok(())
}

fn remove(file: &Path, out: &mut dyn Write) -> Result<(), CliError> {
    match std::fs::remove_file(file) {
        Ok(()) => {
            let _ = writeln!(out, "removed {}", file.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(CliError::Io {
            path: file.to_owned(),
            source,
        }),
    }
}

/// Writes the host manifest naming `program` and the one extension allowed to start it.
pub fn write_manifest(file: &Path, program: &Path, extension_id: &str) -> Result<(), CliError> {
    let io = |source| CliError::Io {
        path: file.to_owned(),
        source,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(file, manifest_text(program, extension_id)).map_err(io)
}

/// The host manifest: the program, and the one extension allowed to start it.
pub fn manifest_text(program: &Path, extension_id: &str) -> String {
    let manifest = json!({
        "name": HOST_NAME,
        "description": "MCP Relay local servers",
        "path": program,
        "type": "stdio",
        "allowed_origins": [format!("chrome-extension://{extension_id}/")],
    });
    serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n"
}
