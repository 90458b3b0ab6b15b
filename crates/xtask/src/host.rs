//! The native messaging host (`crates/relay-host`): built with the extension, and registered
//! for the current user by `cargo xtask install-host` (`--uninstall` undoes it).
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

/// Where the installed copy of the host lives (so a `cargo clean` does not break Chrome's link).
fn install_dir() -> Result<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or("HOME is not set")?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library/Application Support/mcp-relay/bin")
    } else {
        std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".local/share"))
            .join("mcp-relay/bin")
    })
}

/// `cargo xtask install-host [--uninstall] [--extension-id ID]`.
pub fn install_host(x: &Xtask, args: &[String]) -> Result<()> {
    let uninstall = args.iter().any(|a| a == "--uninstall");
    let id = match args.iter().position(|a| a == "--extension-id") {
        Some(i) => args
            .get(i + 1)
            .cloned()
            .ok_or("--extension-id needs a value")?,
        None => extension_id(x)?,
    };
    let dir = install_dir()?;
    let exe = dir.join(if cfg!(windows) {
        "relay-host.exe"
    } else {
        "relay-host"
    });
    if uninstall {
        if exe.exists() {
            run(cmd(&exe).args(["install", "--uninstall"]))?;
            std::fs::remove_file(&exe)?;
        }
        println!("the native host is uninstalled");
        return Ok(());
    }
    step("install-host: cargo build --release -p relay-host");
    run(cmd("cargo")
        .args(["build", "--release", "-p", "relay-host"])
        .current_dir(&x.root))?;
    std::fs::create_dir_all(&dir)?;
    // Through a temporary name and a rename: a host Chrome is running keeps its old file.
    let tmp = exe.with_extension("new");
    std::fs::copy(x.target().join("release/relay-host"), &tmp)?;
    std::fs::rename(&tmp, &exe)?;
    step(&format!(
        "install-host: {} install --extension-id {id}",
        exe.display()
    ));
    run(cmd(&exe).args(["install", "--extension-id", &id]))?;
    println!(
        "add local servers with: {} add NAME -- COMMAND ARGS...",
        exe.display()
    );
    Ok(())
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
}
