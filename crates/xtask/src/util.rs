//! Small helpers shared by the commands: the repository root, running programs, messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The exact wasm-bindgen version the workspace pins; the CLI must match it.
pub const WASM_BINDGEN_VERSION: &str = "0.2.129";

/// Paths every command needs.
pub struct Xtask {
    pub root: PathBuf,
}

impl Xtask {
    pub fn new() -> Result<Self> {
        let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let root = manifest_dir
            .parent()
            .and_then(Path::parent)
            .ok_or("cannot find the repository root from the xtask crate")?
            .to_path_buf();
        Ok(Xtask { root })
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn target(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.root.join("target"))
    }

    /// A binary installed by `npm ci` (node_modules/.bin).
    pub fn npm_bin(&self, name: &str) -> PathBuf {
        self.root.join("node_modules/.bin").join(name)
    }

    pub fn cargo_bin(name: &str) -> PathBuf {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .unwrap_or_else(|| PathBuf::from("/root/.cargo"));
        let candidate = home.join("bin").join(name);
        if candidate.exists() {
            candidate
        } else {
            PathBuf::from(name)
        }
    }
}

pub fn step(msg: &str) {
    eprintln!("\x1b[1m==> {msg}\x1b[0m");
}

pub fn cmd(program: impl AsRef<std::ffi::OsStr>) -> Command {
    Command::new(program)
}

/// Runs a command with inherited output; fails with the command line on a non-zero exit.
pub fn run(c: &mut Command) -> Result<()> {
    let started = Instant::now();
    let status = c
        .status()
        .map_err(|e| format!("cannot start {}: {e}", describe(c)))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", describe(c)).into());
    }
    eprintln!(
        "    ({} in {:.1}s)",
        short(c),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs a command, returning its stdout when it exits 0.
pub fn output(c: &mut Command) -> Result<String> {
    let out = c
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", describe(c)))?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", describe(c), out.status).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs a command, teeing its combined output to our stderr, returning (success, output).
pub fn run_capture(c: &mut Command) -> Result<(bool, String)> {
    use std::io::{BufRead, BufReader};
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", describe(c)))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let err_thread = std::thread::spawn(move || {
        let mut buf = String::new();
        for line in BufReader::new(stderr)
            .lines()
            .map_while(std::result::Result::ok)
        {
            eprintln!("{line}");
            buf.push_str(&line);
            buf.push('\n');
        }
        buf
    });
    let mut all = String::new();
    for line in BufReader::new(stdout)
        .lines()
        .map_while(std::result::Result::ok)
    {
        eprintln!("{line}");
        all.push_str(&line);
        all.push('\n');
    }
    let status = child.wait()?;
    all.push_str(&err_thread.join().unwrap_or_default());
    Ok((status.success(), all))
}

pub fn describe(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn short(c: &Command) -> String {
    let d = describe(c);
    if d.len() > 80 {
        format!(
            "{}…",
            &d[..d.char_indices().nth(79).map(|(i, _)| i).unwrap_or(d.len())]
        )
    } else {
        d
    }
}

pub fn is_ci() -> bool {
    std::env::var("CI")
        .map(|v| !v.is_empty() && v != "false" && v != "0")
        .unwrap_or(false)
}

pub fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}
