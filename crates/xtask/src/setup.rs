//! `cargo xtask setup`: installs what the build, the tests and the demo need, each step checked
//! first so that a second run does nothing. Everything comes from the registries by name:
//! rustup's wasm target, crates.io's wasm-bindgen CLI, Debian's Chromium, npm (`npm ci` from the
//! committed lock file) and PyPI (a virtual environment under `target/`).

use std::fs;
use std::path::Path;

use crate::util::{cmd, output, run, step, Result, Xtask, WASM_BINDGEN_VERSION};

pub fn setup(x: &Xtask) -> Result<()> {
    wasm_target()?;
    wasm_bindgen_cli()?;
    chromium()?;
    npm(x)?;
    python(x)?;
    Ok(())
}

fn wasm_target() -> Result<()> {
    let installed = output(cmd("rustup").args(["target", "list", "--installed"]))
        .map_err(|e| format!("rustup is needed to add the wasm32 target: {e}"))?;
    if installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    step("setup: adding the wasm32-unknown-unknown target");
    run(cmd("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

/// The version `wasm-bindgen --version` reports, if the CLI is there.
pub fn wasm_bindgen_version() -> Option<String> {
    let out = std::process::Command::new(Xtask::cargo_bin("wasm-bindgen"))
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().nth(1).map(str::to_owned)
}

fn wasm_bindgen_cli() -> Result<()> {
    if wasm_bindgen_version().as_deref() == Some(WASM_BINDGEN_VERSION) {
        return Ok(());
    }
    step(&format!(
        "setup: installing wasm-bindgen-cli {WASM_BINDGEN_VERSION} (takes a few minutes)"
    ));
    run(cmd("cargo").args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &format!("={WASM_BINDGEN_VERSION}"),
        "--locked",
    ]))
}

fn chromium() -> Result<()> {
    // A CJK font, so the Chinese UI renders (and its screenshots show text, not boxes).
    const CJK_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
    if Path::new("/usr/bin/chromium").exists()
        && Path::new("/usr/bin/chromedriver").exists()
        && Path::new(CJK_FONT).exists()
    {
        return Ok(());
    }
    step("setup: installing Debian's chromium, chromium-driver and fonts-wqy-microhei");
    let sudo: &[&str] = if is_root() { &[] } else { &["sudo"] };
    let apt = |args: &[&str]| {
        let mut c = if sudo.is_empty() {
            cmd("apt-get")
        } else {
            cmd("sudo")
        };
        if !sudo.is_empty() {
            c.arg("apt-get");
        }
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    run(&mut apt(&["update", "-q"]))?;
    run(&mut apt(&[
        "install",
        "-y",
        "-q",
        "chromium",
        "chromium-driver",
        "fonts-wqy-microhei",
    ]))
    .map_err(|e| format!("{e}\nChromium is needed for the browser tests and the demo.").into())
}

fn is_root() -> bool {
    output(cmd("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
}

/// A stable hash of a file's bytes (FNV-1a), for "is this install still current" stamps.
pub(crate) fn file_hash(path: &Path) -> Result<String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Ok(format!("{h:016x}"))
}

fn stamped(stamp: &Path, hash: &str) -> bool {
    fs::read_to_string(stamp)
        .map(|s| s.trim() == hash)
        .unwrap_or(false)
}

fn npm(x: &Xtask) -> Result<()> {
    let lock = x.path("package-lock.json");
    let stamp = x.path("node_modules/.relay-setup-stamp");
    let hash = file_hash(&lock)?;
    if stamped(&stamp, &hash) {
        return Ok(());
    }
    step("setup: npm ci (playwright-core, binaryen, MCP test servers, conformance suite)");
    run(cmd("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&x.root))?;
    fs::write(stamp, hash)?;
    Ok(())
}

fn python(x: &Xtask) -> Result<()> {
    let reqs = x.path("tests/python/requirements.txt");
    let venv = x.target().join("venv");
    let stamp = venv.join(".relay-setup-stamp");
    let hash = file_hash(&reqs)?;
    if stamped(&stamp, &hash) {
        return Ok(());
    }
    step("setup: Python virtual environment for the Python MCP test servers (target/venv)");
    if !venv.join("bin/python").exists() {
        run(cmd("python3").arg("-m").arg("venv").arg(&venv))?;
    }
    run(cmd(venv.join("bin/pip"))
        .args(["install", "-q", "--disable-pip-version-check", "-r"])
        .arg(&reqs))?;
    fs::write(stamp, hash)?;
    Ok(())
}
