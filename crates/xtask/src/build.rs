//! `cargo xtask build` and `cargo xtask dist`.
//!
//! build: for wasm32 (size profile), relay-wasm for the extension and relay-node (the Node
//! build's JavaScript API on top of it) → wasm-bindgen `--target web` into `extension/pkg`
//! (generated, gitignored, never edited) and `--target nodejs` into `target/relay-node` (for tests
//! and tools) → wasm-opt from npm's binaryen on both. dist: a zip with only what the extension needs,
//! and this platform's native host with its install scripts (`host::dist_files`).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::setup::wasm_bindgen_version;
use crate::util::{cmd, run, step, Result, Xtask, WASM_BINDGEN_VERSION};

/// wasm-opt's optimisation flags for the shipped module (tests/bench/wasm-size.mjs reads this
/// list to analyse the same output).
///
/// No inlining of a function into its only caller: wasm-opt's default merges every such
/// function, whatever its size, which made the core's message handling one 210 KB function.
/// V8 compiles a function on its first call (lazily), so a worker's first message compiled all
/// of it, 11 ms on this machine; kept apart, each message compiles only the code it runs
/// (first `servers/list` after a cold start 65-72 -> 38-45 ms), and the module gzips 7% smaller.
/// Parser, stream and prompt figures did not move (BENCHMARKS.md's history, `git show
/// 3325361:BENCHMARKS.md`, "Lazy compilation and wasm-opt's one-caller inlining").
const WASM_OPT_FLAGS: &[&str] = &["-Oz", "--one-caller-inline-max-function-size=0"];
/// wasm-bindgen's flags beyond the target: `--weak-refs` frees an exported object's wasm memory
/// (a `StreamParser`, a `ToolSet`) once JavaScript drops it, through a `FinalizationRegistry`,
/// so an API user who never calls `free()` does not leak (`tests/api/lifetime.test.mjs`).
const WASM_BINDGEN_FLAGS: &[&str] = &["--no-typescript", "--weak-refs"];

/// Features the Rust wasm32 target emits today; wasm-opt must accept them and keep to them.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-sign-ext",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-multivalue",
    // .cargo/config.toml builds wasm32 with +simd128 (the parser's byte searches).
    "--enable-simd",
];

pub fn build(x: &Xtask) -> Result<()> {
    check_tools(x)?;
    // Three modules: the extension's worker calls only `handle` and `answerAtOnce`, so its module
    // (relay-wasm) leaves out the JavaScript API that the Node build (relay-node, which links
    // relay-wasm in) exports for tests and tools: 9% fewer bytes to fetch and compile on every
    // worker start (BENCHMARKS.md, "Module size"). Work that runs rarely (a sign-in's flow,
    // `relay_core::rare`) is a second module of the extension, relay-wasm with only its `rare`
    // feature, which the worker instantiates on first use (extension/rare.js). The extension's
    // modules are built for size, the Node library's core for speed (Cargo.toml, `wasm-node`).
    let built = x.target().join("relay-wasm");
    fs::create_dir_all(&built)?;
    let modules = [
        Module {
            target: "web",
            out: x.path("extension/pkg"),
            krate: "relay-wasm",
            file: "relay_wasm",
            name: "relay_wasm",
            profile: "wasm-release",
            features: &[],
        },
        Module {
            target: "web",
            out: x.path("extension/pkg"),
            krate: "relay-wasm",
            file: "relay_wasm",
            name: "relay_rare",
            profile: "wasm-release",
            features: &["--no-default-features", "--features", "rare"],
        },
        Module {
            target: "nodejs",
            out: x.target().join("relay-node"),
            krate: "relay-node",
            file: "relay_node",
            name: "relay_node",
            profile: "wasm-node",
            features: &[],
        },
    ];
    for m in &modules {
        step(&format!(
            "build: {} {} for wasm32-unknown-unknown (profile {})",
            m.krate,
            m.features.join(" "),
            m.profile
        ));
        run(cmd("cargo")
            .args([
                "build",
                "-p",
                m.krate,
                "--target",
                "wasm32-unknown-unknown",
                "--profile",
                m.profile,
            ])
            .args(m.features)
            .current_dir(&x.root))?;
        // Copied at once: the next build of the same crate writes the same file.
        let wasm = x.target().join(format!(
            "wasm32-unknown-unknown/{}/{}.wasm",
            m.profile, m.file
        ));
        fs::copy(&wasm, built.join(format!("{}.wasm", m.name)))?;
    }

    // wasm-bindgen and wasm-opt take a while; when cargo left the modules as they were and the
    // outputs are what the last build made, they are current.
    let stamp_path = x.target().join("relay-build-stamp");
    let outputs: Vec<PathBuf> = modules
        .iter()
        .flat_map(|m| {
            [
                m.out.join(format!("{}_bg.wasm", m.name)),
                m.out.join(format!("{}.js", m.name)),
            ]
        })
        .collect();
    let stamp = || -> Result<String> {
        // The flags too: a build with other flags is not current.
        let mut parts = vec![WASM_OPT_FLAGS.join(" "), WASM_BINDGEN_FLAGS.join(" ")];
        for m in &modules {
            parts.push(crate::setup::file_hash(
                &built.join(format!("{}.wasm", m.name)),
            )?);
        }
        for out in &outputs {
            parts.push(crate::setup::file_hash(out)?);
        }
        Ok(parts.join(" "))
    };
    if outputs.iter().all(|p| p.exists()) && fs::read_to_string(&stamp_path).ok() == stamp().ok() {
        eprintln!("    extension/pkg and target/relay-node are current (wasm unchanged)");
        return Ok(());
    }
    for m in &modules {
        // wasm-bindgen names its output after its input (`--out-name` for the second module).
        let (target, out) = (m.target, &m.out);
        let wasm = built.join(m.name).join(format!("{}.wasm", m.file));
        fs::create_dir_all(wasm.parent().unwrap_or(&built))?;
        fs::copy(built.join(format!("{}.wasm", m.name)), &wasm)?;
        step(&format!(
            "build: wasm-bindgen --target {target} → {}",
            rel(x, out)
        ));
        fs::create_dir_all(out)?;
        run(cmd(crate::util::Xtask::cargo_bin("wasm-bindgen"))
            .args(["--target", target])
            .args(WASM_BINDGEN_FLAGS)
            .args(["--out-name", m.name])
            .arg("--out-dir")
            .arg(out)
            .arg(&wasm))?;
        let bg = out.join(format!("{}_bg.wasm", m.name));
        step(&format!(
            "build: wasm-opt {} {}",
            WASM_OPT_FLAGS.join(" "),
            rel(x, &bg)
        ));
        run(cmd(x.npm_bin("wasm-opt"))
            .args(WASM_OPT_FLAGS)
            .args(WASM_FEATURES)
            .arg(&bg)
            .arg("-o")
            .arg(&bg))?;
    }
    // The repository's package.json says "type": "module"; the Node build is CommonJS.
    fs::write(
        modules[2].out.join("package.json"),
        "{\"type\": \"commonjs\"}\n",
    )?;
    fs::write(&stamp_path, stamp()?)?;
    for name in ["relay_wasm", "relay_rare"] {
        let shipped = modules[0].out.join(format!("{name}_bg.wasm"));
        let raw = fs::metadata(&shipped)?.len();
        let gz = gzip_len(&fs::read(&shipped)?)?;
        eprintln!(
            "    {name}_bg.wasm: {} KB raw, {} KB gzipped",
            raw / 1024,
            gz / 1024
        );
    }
    Ok(())
}

/// One wasm module the build makes.
struct Module {
    /// wasm-bindgen's `--target`.
    target: &'static str,
    /// Where its glue and module go.
    out: PathBuf,
    krate: &'static str,
    /// The library's file name cargo writes.
    file: &'static str,
    /// The output's name (`NAME.js`, `NAME_bg.wasm`).
    name: &'static str,
    profile: &'static str,
    /// Cargo's feature flags for it.
    features: &'static [&'static str],
}

pub fn gzip_len(bytes: &[u8]) -> Result<u64> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes)?;
    Ok(enc.finish()?.len() as u64)
}

fn rel(x: &Xtask, p: &Path) -> String {
    p.strip_prefix(&x.root).unwrap_or(p).display().to_string()
}

/// Fails early with a message that says what to do, rather than deep in a build.
fn check_tools(x: &Xtask) -> Result<()> {
    let pinned = locked_version(x, "wasm-bindgen")?;
    if pinned != WASM_BINDGEN_VERSION {
        return Err(format!(
            "Cargo.lock has wasm-bindgen {pinned} but xtask pins the CLI at {WASM_BINDGEN_VERSION}; update both together"
        )
        .into());
    }
    match wasm_bindgen_version() {
        Some(v) if v == pinned => {}
        Some(v) => {
            return Err(format!(
                "wasm-bindgen CLI is {v} but the crate is {pinned}; run `cargo xtask setup` \
                 (cargo install wasm-bindgen-cli --version ={pinned} --locked)"
            )
            .into())
        }
        None => return Err("wasm-bindgen CLI not found; run `cargo xtask setup`".into()),
    }
    if !x.npm_bin("wasm-opt").exists() {
        return Err(
            "wasm-opt (npm package binaryen) not found; run `cargo xtask setup` (npm ci)".into(),
        );
    }
    Ok(())
}

fn locked_version(x: &Xtask, krate: &str) -> Result<String> {
    let lock = fs::read_to_string(x.path("Cargo.lock"))?;
    let needle = format!("name = \"{krate}\"\nversion = \"");
    let start = lock
        .find(&needle)
        .ok_or_else(|| format!("{krate} not in Cargo.lock"))?
        + needle.len();
    let end = lock[start..].find('"').ok_or("malformed Cargo.lock")? + start;
    Ok(lock[start..end].to_owned())
}

/// What the packaged extension contains: the manifest and the folders it references.
const DIST_ENTRIES: &[&str] = &["manifest.json", "_locales", "extension", "www", "icons"];

pub fn dist(x: &Xtask) -> Result<()> {
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(x.path("manifest.json"))?)?;
    let version = manifest["version"].as_str().unwrap_or("0");
    let out_dir = x.target().join("dist");
    fs::create_dir_all(&out_dir)?;
    let zip_path = out_dir.join(format!("mcp-relay-{version}.zip"));
    step(&format!("dist: {}", rel(x, &zip_path)));
    let file = fs::File::create(&zip_path)?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut files = Vec::new();
    for entry in DIST_ENTRIES {
        collect(&x.path(entry), &mut files)?;
    }
    files.sort();
    for path in &files {
        let name = path
            .strip_prefix(&x.root)?
            .to_string_lossy()
            .replace('\\', "/");
        // Sources of the build and tests never ship; only what Chrome loads.
        // Type declarations (`*.d.ts`) exist for `tsc` only.
        if name.ends_with(".gitignore") || name.contains("/test") || name.ends_with(".d.ts") {
            continue;
        }
        zip.start_file(name, opts)?;
        zip.write_all(&fs::read(path)?)?;
    }
    // The native host for this platform and its install scripts: local servers without Rust.
    let host = crate::host::dist_files(x)?;
    for file in &host {
        let mode = if file.executable { 0o755 } else { 0o644 };
        zip.start_file(file.name.as_str(), opts.unix_permissions(mode))?;
        zip.write_all(&file.bytes)?;
    }
    zip.finish()?;
    let size = fs::metadata(&zip_path)?.len();
    eprintln!("    {} files, {} KB", files.len() + host.len(), size / 1024);
    println!("{}", zip_path.display());
    Ok(())
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    if path.is_dir() {
        for e in fs::read_dir(path)? {
            collect(&e?.path(), out)?;
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}
