//! The host binary end to end: its command line, and the native port as Chrome drives it (framed
//! JSON on stdin/stdout) with a standard-library Python stdio server behind it, reached over
//! the host's Streamable HTTP bridge.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_relay-host");
const WAIT: Duration = Duration::from_secs(20);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stdio_server.py")
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "relay-host-{tag}-{}-{:?}",
        std::process::id(),
        Instant::now()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cli(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("RELAY_HOST_CONFIG_DIR", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn add_fixture(dir: &Path, name: &str, pid_file: &Path) {
    let env = format!("PID_FILE={}", pid_file.display());
    let script = fixture();
    let (ok, out, err) = cli(
        dir,
        &[
            "add",
            name,
            "--env",
            &env,
            "--",
            "python3",
            "-u",
            script.to_str().unwrap(),
        ],
    );
    assert!(ok, "{out}{err}");
}

struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next: u32,
    backlog: Vec<Value>,
}

impl Host {
    fn start(dir: &Path, env: &[(&str, &str)]) -> Host {
        let mut child = Command::new(BIN)
            .arg("chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
            .env("RELAY_HOST_CONFIG_DIR", dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut len = [0u8; 4];
            if stdout.read_exact(&mut len).is_err() {
                break;
            }
            let mut body = vec![0u8; u32::from_ne_bytes(len) as usize];
            stdout.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                break;
            }
        });
        Host {
            stdin: child.stdin.take(),
            child,
            rx,
            next: 1,
            backlog: Vec::new(),
        }
    }

    fn raw(&mut self, body: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(&(body.len() as u32).to_ne_bytes()).unwrap();
        stdin.write_all(body).unwrap();
        stdin.flush().unwrap();
    }

    /// The next message matching `pred`, keeping the others for later.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = self
                .rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {what}; got {:?}", self.backlog));
            if pred(&msg) {
                return msg;
            }
            self.backlog.push(msg);
        }
    }

    fn request(&mut self, mut msg: Value) -> Value {
        let id = self.next;
        self.next += 1;
        msg["id"] = json!(id);
        self.raw(msg.to_string().as_bytes());
        self.wait_for("answer", |m| m["id"] == json!(id))
    }

    fn status(&mut self, name: &str, status: &str) -> Value {
        self.wait_for(&format!("{name} {status}"), |m| {
            m["event"] == "status" && m["name"] == name && m["status"] == status
        })
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One JSON-RPC message to the bridge; the SSE events (or JSON body) it answered with.
fn post(url: &str, token: &str, msg: &Value) -> (u16, Vec<Value>) {
    let (status, events, _) = post_text(url, token, msg);
    (status, events)
}

/// [`post`] with the body's text.
fn post_text(url: &str, token: &str, msg: &Value) -> (u16, Vec<Value>, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut resp = agent
        .post(url)
        .header("Authorization", &format!("Bearer {token}"))
        .header("Accept", "application/json, text/event-stream")
        .send_json(msg)
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    let events = if text.trim_start().starts_with('{') {
        vec![serde_json::from_str(&text).unwrap()]
    } else if !text.starts_with("data:") && !text.contains("\ndata:") {
        Vec::new()
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| serde_json::from_str(d.trim()).unwrap())
            .collect()
    };
    (status, events, text)
}

fn init_msg(id: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn call(id: u32, tool: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": {"text": text}, "_meta": {"progressToken": format!("p{id}")}}})
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[test]
fn the_command_line_keeps_the_list_and_refuses_path_names() {
    let dir = temp_dir("cli");
    let (ok, out, _) = cli(
        &dir,
        &[
            "add", "files", "--cwd", "/tmp", "--env", "A=b c", "--", "npx", "-y", "pkg", "~/docs",
        ],
    );
    assert!(ok);
    assert_eq!(out, "added files: A='b c' npx -y pkg ~/docs   (in /tmp)\n");
    for bad in ["../evil", "a/b", ".hidden", "a b", ""] {
        let (ok, _, err) = cli(&dir, &["add", bad, "--", "true"]);
        assert!(!ok && err.contains("is not allowed"), "{bad}: {err}");
    }
    let (_, out, _) = cli(&dir, &["list"]);
    assert_eq!(out, "files: A='b c' npx -y pkg ~/docs   (in /tmp)\n");
    let file = dir.join("mcp.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]},
            "remote": {"url": "http://127.0.0.1:9/mcp"}, "odd": {"args": []}}}"#,
    )
    .unwrap();
    let (ok, out, err) = cli(&dir, &["import", file.to_str().unwrap()]);
    assert!(!ok, "no answer on stdin is a no: {out}");
    assert!(err.contains("nothing was changed"));
    assert_eq!(
        out,
        "add git: uvx mcp-server-git\nnot here: remote is an HTTP server (http://127.0.0.1:9/mcp); import it in the side panel\nskip odd: neither `url` nor `command`\nAdd 1 local server(s)? [y/N] "
    );
    let (ok, _, _) = cli(&dir, &["import", file.to_str().unwrap(), "--yes"]);
    assert!(ok);
    let (_, out, _) = cli(&dir, &["remove", "files"]);
    assert_eq!(out, "removed files\n");
    let (_, out, _) = cli(&dir, &["list"]);
    assert_eq!(out, "git: uvx mcp-server-git\n");
    let (ok, _, err) = cli(&dir, &["remove", "nope"]);
    assert!(!ok && err.contains("no local server is named \"nope\""));
}

#[test]
fn install_writes_a_manifest_for_one_extension_and_uninstall_removes_it() {
    let dir = temp_dir("install");
    let hosts = dir.join("NativeMessagingHosts");
    let id = "abcdefghijklmnopabcdefghijklmnop";
    for _ in 0..2 {
        let (ok, _, err) = cli(
            &dir,
            &[
                "install",
                "--extension-id",
                id,
                "--dir",
                hosts.to_str().unwrap(),
            ],
        );
        assert!(ok, "{err}");
    }
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(hosts.join("com.mcp_relay.host.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        manifest["allowed_origins"],
        json!([format!("chrome-extension://{id}/")])
    );
    assert_eq!(manifest["type"], "stdio");
    assert!(Path::new(manifest["path"].as_str().unwrap()).is_absolute());
    let (ok, _, _) = cli(
        &dir,
        &[
            "install",
            "--extension-id",
            "not-an-id",
            "--dir",
            hosts.to_str().unwrap(),
        ],
    );
    assert!(!ok);
    let (ok, _, _) = cli(
        &dir,
        &["install", "--uninstall", "--dir", hosts.to_str().unwrap()],
    );
    assert!(ok);
    assert!(!hosts.join("com.mcp_relay.host.json").exists());
}

#[test]
fn messages_are_checked_and_unlisted_or_path_names_refused() {
    let dir = temp_dir("attack");
    add_fixture(&dir, "fixture", &dir.join("pids"));
    let mut host = Host::start(&dir, &[]);
    let table: &[(Value, &str)] = &[
        (json!({"type": "open", "name": "nope"}), "unknownServer"),
        (json!({"type": "open", "name": "../../bin/sh"}), "badName"),
        (
            json!({"type": "open", "name": "fixture", "command": "/bin/sh"}),
            "badMessage",
        ),
        (
            json!({"type": "run", "command": "/bin/sh", "args": ["-c", "touch x"]}),
            "badMessage",
        ),
        (json!({"type": "log", "name": "a/b"}), "badName"),
    ];
    for (msg, kind) in table {
        let answer = host.request(msg.clone());
        assert_eq!(answer["ok"], false, "{msg}");
        assert_eq!(answer["error"]["kind"], *kind, "{msg}: {answer}");
    }
    // An oversized message is skipped whole and answered; the port still works after it.
    host.raw(&vec![b' '; 200 * 1024]);
    let refused = host.wait_for("tooLarge", |m| m["error"]["kind"] == "tooLarge");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("204800 bytes"));
    let list = host.request(json!({"type": "list"}));
    assert_eq!(list["data"]["servers"][0]["name"], "fixture");
    assert!(!dir.join("pids").exists(), "no server was started");
}

#[test]
fn a_listed_server_runs_behind_the_secret_crashes_are_contained_and_idle_servers_stop() {
    let dir = temp_dir("bridge");
    let pids = dir.join("pids");
    add_fixture(&dir, "fixture", &pids);
    let mut host = Host::start(
        &dir,
        &[
            ("RELAY_HOST_IDLE_MS", "1500"),
            ("RELAY_HOST_BACKOFF_MS", "100"),
        ],
    );
    let open = host.request(json!({"type": "open", "name": "fixture"}));
    assert_eq!(open["ok"], true, "{open}");
    let url = open["data"]["url"].as_str().unwrap().to_owned();
    let token = open["data"]["token"].as_str().unwrap().to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp/fixture"));

    // No secret, no call.
    let (status, _) = post(&url, "wrong", &init_msg(1));
    assert_eq!(status, 401);
    let (status, events) = post(&url, &token, &init_msg(7));
    assert_eq!(status, 200);
    assert_eq!(events[0]["id"], 7);
    assert_eq!(events[0]["result"]["serverInfo"]["name"], "fixture");
    let (status, _) = post(
        &url,
        &token,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(status, 202);

    // Progress comes on the call's stream, the response last, under the client's own id.
    let (_, events) = post(&url, &token, &call(1, "slow", "hi"));
    let methods: Vec<&str> = events
        .iter()
        .map(|e| e["method"].as_str().unwrap_or("response"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "response"
        ]
    );
    assert_eq!(events[2]["id"], 1);
    assert_eq!(events[2]["result"]["content"][0]["text"], "hi");

    // A crash mid-call: 502 (the outcome is unknown, not a refusal) naming it; the log shows
    // stderr.
    let (status, _, message) = post_text(&url, &token, &call(2, "crash", ""));
    assert_eq!(status, 502);
    assert!(
        message.contains("fixture stopped") && message.contains("outcome is unknown"),
        "{message}"
    );
    host.status("fixture", "crashed");
    let log = host.request(json!({"type": "log", "name": "fixture"}));
    let lines: Vec<&str> = log["data"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(lines.contains(&"crashing on purpose"), "{lines:?}");

    // After the backoff the next call starts it again, initialized by the host with the
    // client's own initialize (the fixture refuses calls before initialize).
    let deadline = Instant::now() + WAIT;
    let events = loop {
        let (_, events) = post(&url, &token, &call(3, "echo", "again"));
        if events[0].get("result").is_some() || Instant::now() > deadline {
            break events;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        events[0]["result"]["content"][0]["text"], "again",
        "{events:?}"
    );
    assert_eq!(std::fs::read_to_string(&pids).unwrap().lines().count(), 2);

    // Idle: stopped by the host, its process gone.
    let stopped = host.status("fixture", "stopped");
    assert_eq!(stopped["detail"], "idle");
    let pid = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let deadline = Instant::now() + WAIT;
    while alive(&pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(&pid), "the idle server's process {pid} still runs");
}

#[test]
fn the_host_exits_and_stops_its_servers_when_chrome_closes_the_port() {
    let dir = temp_dir("close");
    let pids = dir.join("pids");
    add_fixture(&dir, "fixture", &pids);
    let mut host = Host::start(&dir, &[]);
    let open = host.request(json!({"type": "open", "name": "fixture"}));
    assert_eq!(open["ok"], true, "{open}");
    let deadline = Instant::now() + WAIT;
    while !pids.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(&pids).unwrap().trim().to_owned();
    assert!(alive(&pid));
    drop(host.stdin.take());
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = host.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the host did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    assert!(!alive(&pid), "the server {pid} outlived the host");
}

#[test]
fn requests_at_the_idle_boundary_never_land_on_a_process_being_stopped() {
    let dir = temp_dir("idle-race");
    let pids = dir.join("pids");
    add_fixture(&dir, "fixture", &pids);
    let mut host = Host::start(&dir, &[("RELAY_HOST_IDLE_MS", "200")]);
    let open = host.request(json!({"type": "open", "name": "fixture"}));
    let url = open["data"]["url"].as_str().unwrap().to_owned();
    let token = open["data"]["token"].as_str().unwrap().to_owned();
    let (_, events) = post(&url, &token, &init_msg(1));
    assert!(events[0].get("result").is_some(), "{events:?}");
    // Each request comes about when the host decides the server is idle: it either keeps the
    // process or starts a new one, never answers from one it is stopping.
    for (i, gap) in [
        190u64, 200, 210, 195, 205, 200, 185, 215, 200, 198, 202, 200,
    ]
    .iter()
    .enumerate()
    {
        std::thread::sleep(Duration::from_millis(*gap));
        let id = 10 + i as u32;
        let (status, events) = post(&url, &token, &call(id, "echo", "x"));
        assert_eq!(status, 200, "request {i}");
        assert_eq!(
            events[0]["result"]["content"][0]["text"], "x",
            "request {i}: {events:?}"
        );
    }
    let starts = std::fs::read_to_string(&pids).unwrap().lines().count();
    assert!(
        starts >= 2,
        "the server idled and started again at least once ({starts} starts)"
    );
}

/// The release zip's `install-host.sh` (crates/xtask/assets, the id filled in as `cargo xtask
/// dist` does) beside the host as the zip lays it out: it installs for the user of a temporary
/// HOME (the copy in the data folder, a manifest per browser naming that copy and the one
/// extension), again without harm, and `--uninstall` removes all of it.
#[cfg(unix)]
#[test]
fn the_zips_install_script_installs_into_home_and_uninstalls() {
    let dir = temp_dir("zip");
    let (zip, home) = (dir.join("zip"), dir.join("home"));
    let platform = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
    std::fs::create_dir_all(zip.join("host").join(&platform)).unwrap();
    std::fs::copy(BIN, zip.join("host").join(&platform).join("relay-host")).unwrap();
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xtask/assets/install-host.sh");
    let id = "ellfknbogpmjfnllbfnllmflekcknadb";
    let text = std::fs::read_to_string(template).unwrap();
    std::fs::write(
        zip.join("install-host.sh"),
        text.replace("@EXTENSION_ID@", id),
    )
    .unwrap();
    let script = |args: &[&str]| {
        let out = Command::new("sh")
            .arg(zip.join("install-host.sh"))
            .args(args)
            .env("HOME", &home)
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "install-host.sh {args:?}: {text}");
        text
    };
    let (data, config) = if cfg!(target_os = "macos") {
        let base = home.join("Library/Application Support");
        (
            base.join("mcp-relay/bin"),
            vec![base.join("Google/Chrome"), base.join("Chromium")],
        )
    } else {
        (
            home.join(".local/share/mcp-relay/bin"),
            vec![
                home.join(".config/google-chrome"),
                home.join(".config/chromium"),
            ],
        )
    };
    let exe = data.join("relay-host");
    let manifests: Vec<PathBuf> = config
        .iter()
        .map(|b| b.join("NativeMessagingHosts/com.mcp_relay.host.json"))
        .collect();
    // A browser whose profile folder exists gets its manifest too (Edge here); one that is
    // not there (Brave) gets no folder of its.
    let (edge, brave) = if cfg!(target_os = "macos") {
        let base = home.join("Library/Application Support");
        (base.join("Microsoft Edge"), base.join("BraveSoftware"))
    } else {
        (
            home.join(".config/microsoft-edge"),
            home.join(".config/BraveSoftware"),
        )
    };
    std::fs::create_dir_all(&edge).unwrap();
    let manifests: Vec<PathBuf> = manifests
        .into_iter()
        .chain([edge.join("NativeMessagingHosts/com.mcp_relay.host.json")])
        .collect();
    for _ in 0..2 {
        script(&[]);
        assert!(
            !brave.exists(),
            "nothing is made for a browser that is not there"
        );
        assert!(exe.is_file(), "the host is copied to {}", exe.display());
        for file in &manifests {
            let m: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            assert_eq!(m["name"], "com.mcp_relay.host");
            assert_eq!(m["type"], "stdio");
            assert_eq!(
                Path::new(m["path"].as_str().unwrap()),
                exe,
                "{} names the copy",
                file.display()
            );
            assert_eq!(
                m["allowed_origins"],
                json!([format!("chrome-extension://{id}/")])
            );
        }
    }
    // Another id as the argument (a store build): the manifests name that one only.
    let other = "abcdefghijklmnopabcdefghijklmnop";
    script(&[other]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&manifests[0]).unwrap()).unwrap();
    assert_eq!(
        m["allowed_origins"],
        json!([format!("chrome-extension://{other}/")])
    );
    script(&["--uninstall"]);
    assert!(!exe.exists(), "the copy is removed");
    for file in &manifests {
        assert!(!file.exists(), "{} is removed", file.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
