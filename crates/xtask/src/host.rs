//! The native messaging host (`crates/relay-host`): built with the extension, registered for the
//! current user by `cargo xtask install-host` (`--uninstall` undoes it), and packed by
//! `cargo xtask dist` with `install-host.sh` / `install-host.ps1` for users without Rust.
//!
//! The host manifest names the extension's id only. The id is fixed by the manifest's `key`
//! (Chrome derives it from the public key: the first 16 bytes of its SHA-256, each hex digit
//! written as `a`..`p`); `--extension-id ID` names another (a store build).

use std::path::PathBuf;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::util::{cmd, run, step, Result, Xtask};

/// The debug build the tests start (`RELAY_HOST`).
pub fn host_path(x: &Xtask) -> PathBuf {
    x.target().join("debug/relay-host")
}

/// Builds the host (debug, for the tests and `build`).
pub fn build_host(x: &Xtask) -> Result<()> {
    step("build: relay-host (native messaging host)");
    run(cmd("cargo")
        .args(["build", "-p", "relay-host"])
        .current_dir(&x.root))
}

/// The extension id Chrome gives the unpacked extension: from the manifest's `key`.
pub fn extension_id(x: &Xtask) -> Result<String> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(x.path("manifest.json"))?)?;
    let key = manifest["key"]
        .as_str()
        .ok_or("manifest.json has no `key`: the extension id would not be fixed")?;
    id_from_key(key)
}

fn id_from_key(key: &str) -> Result<String> {
    let der = base64::engine::general_purpose::STANDARD.decode(key.trim())?;
    let digest = Sha256::digest(&der);
    Ok(digest[..16]
        .iter()
        .flat_map(|b| [b >> 4, b & 15])
        .map(|n| char::from(b'a' + n))
        .collect())
}

/// The release build of the host for this platform (`cargo build --release -p relay-host`).
fn build_release(x: &Xtask) -> Result<PathBuf> {
    step("cargo build --release -p relay-host");
    run(cmd("cargo")
        .args(["build", "--release", "-p", "relay-host"])
        .current_dir(&x.root))?;
    Ok(x.target().join("release").join(EXE))
}

/// The host program's file name on this platform.
const EXE: &str = if cfg!(windows) {
    "relay-host.exe"
} else {
    "relay-host"
};

/// `cargo xtask install-host [--uninstall] [--extension-id ID]`: the release build copies itself
/// into the user's data folder and registers the copy (`relay-host install --copy`, which
/// knows every folder and key; the zip's scripts run the same command).
pub fn install_host(x: &Xtask, args: &[String]) -> Result<()> {
    let uninstall = args.iter().any(|a| a == "--uninstall");
    let exe = build_release(x)?;
    if uninstall {
        run(cmd(&exe).args(["install", "--copy", "--uninstall"]))?;
        println!("the native host is uninstalled");
        return Ok(());
    }
    let id = match args.iter().position(|a| a == "--extension-id") {
        Some(i) => args
            .get(i + 1)
            .cloned()
            .ok_or("--extension-id needs a value")?,
        None => extension_id(x)?,
    };
    step(&format!(
        "install-host: relay-host install --copy --extension-id {id}"
    ));
    run(cmd(&exe).args(["install", "--copy", "--extension-id", &id]))?;
    println!("add local servers with: relay-host add NAME -- COMMAND ARGS... (the copy in your data folder)");
    Ok(())
}

/// The release zip's install scripts, with the extension's fixed id filled in (every other fact
/// is the host's own: the scripts only pick the binary and run `relay-host install --copy`).
const SCRIPTS: &[(&str, &str)] = &[
    ("install-host.sh", include_str!("../assets/install-host.sh")),
    (
        "install-host.ps1",
        include_str!("../assets/install-host.ps1"),
    ),
];

/// A file of the release zip: its name, its bytes, and whether it is a program.
pub struct DistFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

/// Where a platform's host goes in the zip: `host/<os>-<arch>/relay-host[.exe]`, `os` and
/// `arch` as Rust names them (`linux-x86_64`, `macos-aarch64`, `windows-x86_64`); the scripts
/// map `uname` / `PROCESSOR_ARCHITECTURE` to the same names.
pub fn dist_host_path() -> String {
    format!(
        "host/{}-{}/{EXE}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// What `cargo xtask dist` adds for local servers: this platform's release host and both
/// install scripts (a user installs the host without Rust or this repository).
pub fn dist_files(x: &Xtask) -> Result<Vec<DistFile>> {
    let exe = build_release(x)?;
    let id = extension_id(x)?;
    let mut files = vec![DistFile {
        name: dist_host_path(),
        bytes: std::fs::read(&exe)?,
        executable: true,
    }];
    for (name, text) in SCRIPTS {
        files.push(DistFile {
            name: (*name).to_owned(),
            bytes: script(text, &id).into_bytes(),
            executable: name.ends_with(".sh"),
        });
    }
    Ok(files)
}

/// A script with its `@EXTENSION_ID@` filled in.
fn script(text: &str, id: &str) -> String {
    text.replace("@EXTENSION_ID@", id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_chromes_from_the_key() {
        // The committed key and the id Chrome showed for the unpacked extension.
        let manifest: serde_json::Value =
            serde_json::from_str(include_str!("../../../manifest.json")).unwrap();
        let id = id_from_key(manifest["key"].as_str().unwrap()).unwrap();
        assert_eq!(id, "ellfknbogpmjfnllbfnllmflekcknadb");
    }

    #[test]
    fn the_scripts_get_the_id_and_run_the_hosts_own_install() {
        for (name, text) in SCRIPTS {
            let filled = script(text, "ellfknbogpmjfnllbfnllmflekcknadb");
            assert!(!filled.contains('@'), "{name}: every placeholder filled");
            assert!(
                filled.contains("ellfknbogpmjfnllbfnllmflekcknadb"),
                "{name}"
            );
            assert!(
                filled.contains("install --copy"),
                "{name}: the host does the work"
            );
            // The host's name and folders are the host's (relay-host/src/install.rs) only.
            assert!(!filled.contains("com.mcp_relay.host"), "{name}");
            assert!(!filled.contains("NativeMessagingHosts"), "{name}");
        }
        assert!(dist_host_path().starts_with("host/"));
    }
}
