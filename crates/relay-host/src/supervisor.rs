//! The running servers: one child process per listed server, started on demand, stopped when
//! idle, restarted with backoff when it dies, its stderr kept in a bounded log.
//!
//! The host is a relay of JSON-RPC messages between the HTTP side (`bridge`) and each child's
//! stdio (one JSON message per line, the MCP stdio transport). Requests get host-unique ids on
//! their way in and their own ids back on the way out, so two clients (a service worker and the
//! one that replaced it) never collide. The client's `initialize` is kept: a child started again
//! (after idling or a crash) is initialized by the host with it before anything else, so the
//! client's session goes on.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot};

use crate::config::{check_name, Config, ServerEntry};
use crate::protocol::HostError;

/// Lines of stderr (and host notes) kept per server.
pub const LOG_LINES: usize = 200;
/// Longest log line kept; longer ones are cut.
pub const LOG_LINE_CHARS: usize = 1_000;
/// Longest line a child may write on stdout (one JSON-RPC message).
pub const MAX_CHILD_LINE: usize = 16 * 1024 * 1024;
/// Consecutive crashes after which the host stops restarting a server until the user asks.
pub const MAX_CRASHES: u32 = 5;

/// Settings of a host run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub config_path: std::path::PathBuf,
    /// A server with no request in flight for this long is stopped.
    pub idle: Duration,
    /// First restart delay after a crash; doubled per consecutive crash, capped at 30 s.
    pub backoff: Duration,
}

/// A server's state as the panel shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Stopped,
    Starting,
    Running,
    Crashed,
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Stopped => "stopped",
            Status::Starting => "starting",
            Status::Running => "running",
            Status::Crashed => "crashed",
            Status::Failed => "failed",
        }
    }
}

/// Where a message from a child goes.
type Sink = mpsc::UnboundedSender<Value>;

struct Pending {
    client_id: Value,
    progress: Option<Value>,
    sink: Sink,
}

struct Child {
    generation: u64,
    stdin: mpsc::UnboundedSender<String>,
    pending: BTreeMap<u64, Pending>,
    kill: Option<oneshot::Sender<()>>,
}

struct Slot {
    status: Status,
    detail: String,
    log: VecDeque<String>,
    child: Option<Child>,
    crashes: u32,
    retry_at: Option<Instant>,
    last_used: Instant,
    init: Option<Value>,
    stopping: bool,
}

impl Slot {
    fn new() -> Slot {
        Slot {
            status: Status::Stopped,
            detail: String::new(),
            log: VecDeque::new(),
            child: None,
            crashes: 0,
            retry_at: None,
            last_used: Instant::now(),
            init: None,
            stopping: false,
        }
    }

    fn note(&mut self, line: &str) {
        let cut = line.chars().count() > LOG_LINE_CHARS;
        let mut line: String = line.chars().take(LOG_LINE_CHARS).collect();
        if cut {
            line.push('…');
        }
        if self.log.len() == LOG_LINES {
            self.log.pop_front();
        }
        self.log.push_back(line);
    }
}

struct State {
    slots: HashMap<String, Slot>,
    next_id: u64,
    generation: u64,
}

/// The servers of one host run.
pub struct Supervisor {
    settings: Settings,
    state: Mutex<State>,
    events: mpsc::UnboundedSender<Value>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Supervisor {
    /// A supervisor whose status changes go to `events`.
    pub fn new(settings: Settings, events: mpsc::UnboundedSender<Value>) -> Arc<Supervisor> {
        let sup = Arc::new(Supervisor {
            settings,
            state: Mutex::new(State {
                slots: HashMap::new(),
                next_id: 1,
                generation: 0,
            }),
            events,
        });
        let weak = Arc::downgrade(&sup);
        let tick = (sup.settings.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(tick).await;
                match weak.upgrade() {
                    Some(sup) => sup.tick(),
                    None => break,
                }
            }
        });
        sup
    }

    /// The user's list, read again so `relay-host add` applies without a restart.
    pub fn config(&self) -> Result<Config, HostError> {
        Config::load_from(&self.settings.config_path).map_err(|e| HostError::Config(e.to_string()))
    }

    /// The configured entry of `name`, or why there is none.
    pub fn entry(&self, name: &str) -> Result<ServerEntry, HostError> {
        check_name(name).map_err(|_| HostError::BadName(name.to_owned()))?;
        self.config()?
            .servers
            .remove(name)
            .ok_or_else(|| HostError::UnknownServer(name.to_owned()))
    }

    /// Every listed server with its status.
    pub fn list(&self) -> Result<Value, HostError> {
        let config = self.config()?;
        let state = lock(&self.state);
        let servers: Vec<Value> = config
            .servers
            .iter()
            .map(|(name, entry)| {
                let (status, detail, restarts) = state
                    .slots
                    .get(name)
                    .map(|s| (s.status, s.detail.clone(), s.crashes))
                    .unwrap_or((Status::Stopped, String::new(), 0));
                json!({"name": name, "command": entry.display(), "status": status.as_str(),
                       "detail": detail, "crashes": restarts})
            })
            .collect();
        Ok(json!({"version": env!("CARGO_PKG_VERSION"), "servers": servers}))
    }

    /// A server's log.
    pub fn log(&self, name: &str) -> Result<Value, HostError> {
        self.entry(name)?;
        let state = lock(&self.state);
        let lines: Vec<&String> = state
            .slots
            .get(name)
            .map(|s| s.log.iter().collect())
            .unwrap_or_default();
        Ok(json!({"name": name, "lines": lines}))
    }

    fn emit(&self, name: &str, slot: &Slot) {
        let _ = self.events.send(json!({"event": "status", "name": name,
            "status": slot.status.as_str(), "detail": slot.detail}));
    }

    fn set(&self, name: &str, slot: &mut Slot, status: Status, detail: String) {
        slot.status = status;
        slot.detail = detail;
        self.emit(name, slot);
    }

    /// Starts `name` unless it runs (or waits for its restart delay).
    pub fn ensure(self: &Arc<Self>, name: &str) -> Result<(), HostError> {
        let entry = self.entry(name)?;
        let mut state = lock(&self.state);
        state.generation += 1;
        let generation = state.generation;
        let slot = state.slots.entry(name.to_owned()).or_insert_with(Slot::new);
        slot.last_used = Instant::now();
        if slot.child.is_some() {
            return Ok(());
        }
        if slot.status == Status::Failed {
            return Err(HostError::Crashed {
                name: name.to_owned(),
                status: slot.detail.clone(),
                next: format!("it crashed {MAX_CRASHES} times in a row; press Restart"),
            });
        }
        if let Some(at) = slot.retry_at.filter(|at| *at > Instant::now()) {
            let wait = at.saturating_duration_since(Instant::now());
            return Err(HostError::Crashed {
                name: name.to_owned(),
                status: slot.detail.clone(),
                next: format!("restarting in {} ms", wait.as_millis()),
            });
        }
        let child = self.spawn(name, &entry, generation).map_err(|message| {
            slot.note(&format!("[host] cannot start: {message}"));
            HostError::SpawnFailed {
                name: name.to_owned(),
                message,
            }
        })?;
        slot.stopping = false;
        slot.note(&format!("[host] started: {}", entry.display()));
        let init = slot.init.clone();
        slot.child = Some(child);
        self.set(name, slot, Status::Running, String::new());
        if let Some(init) = init {
            // The client initialized an earlier process: initialize this one the same way,
            // before anything of the client's. A stdio server reads its input in order, so the
            // `initialized` notification can follow at once; the response is dropped.
            let id = state.next_id;
            state.next_id += 1;
            if let Some(child) = state.slots.get_mut(name).and_then(|s| s.child.as_mut()) {
                let (sink, _) = mpsc::unbounded_channel();
                let pending = Pending {
                    client_id: Value::Null,
                    progress: None,
                    sink,
                };
                child.pending.insert(id, pending);
                let init =
                    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": init});
                let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                let _ = child.stdin.send(init.to_string());
                let _ = child.stdin.send(note.to_string());
            }
        }
        Ok(())
    }

    fn spawn(
        self: &Arc<Self>,
        name: &str,
        entry: &ServerEntry,
        generation: u64,
    ) -> Result<Child, String> {
        let mut cmd = Command::new(&entry.command);
        cmd.args(&entry.args)
            .envs(&entry.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(cwd) = &entry.cwd {
            cmd.current_dir(cwd);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        let mut process = cmd.spawn().map_err(|e| e.to_string())?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) = (
            process.stdin.take(),
            process.stdout.take(),
            process.stderr.take(),
        ) else {
            return Err("no pipes to the process".into());
        };
        let pid = process.id();
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(mut line) = rx.recv().await {
                line.push('\n');
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the stdio way to ask a server to exit.
        });
        let sup = Arc::clone(self);
        let n = name.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match (&mut lines)
                    .take(MAX_CHILD_LINE as u64)
                    .read_until(b'\n', &mut buf)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => sup.on_child_line(&n, generation, &buf),
                }
            }
        });
        let sup = Arc::clone(self);
        let n = name.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(slot) = lock(&sup.state).slots.get_mut(&n) {
                    slot.note(&line);
                }
            }
        });
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let sup = Arc::clone(self);
        let n = name.to_owned();
        tokio::spawn(async move {
            let status = tokio::select! {
                status = process.wait() => status,
                _ = kill_rx => {
                    // Stdin is closed already; give the server a moment to exit on its own.
                    match tokio::time::timeout(Duration::from_secs(2), process.wait()).await {
                        Ok(status) => status,
                        Err(_) => {
                            kill_group(pid);
                            let _ = process.start_kill();
                            process.wait().await
                        }
                    }
                }
            };
            let status = status
                .map(|s| s.to_string())
                .unwrap_or_else(|e| e.to_string());
            sup.exited(&n, generation, &status);
        });
        Ok(Child {
            generation,
            stdin: tx,
            pending: BTreeMap::new(),
            kill: Some(kill_tx),
        })
    }

    /// Sends a client's message to `name`'s process; a request's messages come back on the
    /// returned receiver, its response last.
    pub fn send(
        self: &Arc<Self>,
        name: &str,
        mut msg: Value,
    ) -> Result<Option<mpsc::UnboundedReceiver<Value>>, HostError> {
        self.ensure(name)?;
        let mut state = lock(&self.state);
        let id = state.next_id;
        let slot = state
            .slots
            .get_mut(name)
            .ok_or_else(|| HostError::UnknownServer(name.to_owned()))?;
        slot.last_used = Instant::now();
        let is_request = msg.get("method").is_some() && msg.get("id").is_some();
        if msg.get("method").and_then(Value::as_str) == Some("initialize") {
            slot.init = msg.get("params").cloned();
        }
        let Some(child) = slot.child.as_mut() else {
            return Err(HostError::SpawnFailed {
                name: name.to_owned(),
                message: "not running".into(),
            });
        };
        let mut receiver = None;
        if is_request {
            let (sink, rx) = mpsc::unbounded_channel();
            let client_id = msg["id"].take();
            let progress = msg.pointer("/params/_meta/progressToken").cloned();
            msg["id"] = json!(id);
            child.pending.insert(
                id,
                Pending {
                    client_id,
                    progress,
                    sink,
                },
            );
            receiver = Some(rx);
        } else if msg.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            // The client names its own id; the process knows the host's.
            if let Some(request_id) = msg.pointer("/params/requestId").cloned() {
                if let Some((host_id, _)) = child
                    .pending
                    .iter()
                    .find(|(_, p)| p.client_id == request_id)
                {
                    msg["params"]["requestId"] = json!(*host_id);
                }
            }
        }
        let _ = child.stdin.send(msg.to_string());
        if is_request {
            state.next_id += 1;
        }
        Ok(receiver)
    }

    fn on_child_line(&self, name: &str, generation: u64, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let mut state = lock(&self.state);
        let Some(slot) = state.slots.get_mut(name) else {
            return;
        };
        let Ok(mut msg) = serde_json::from_str::<Value>(text) else {
            slot.note(&format!("[host] not JSON on stdout: {text}"));
            return;
        };
        let Some(child) = slot.child.as_mut().filter(|c| c.generation == generation) else {
            return;
        };
        let is_response = msg.get("method").is_none();
        if is_response {
            let host_id = msg.get("id").and_then(Value::as_u64);
            if let Some(pending) = host_id.and_then(|id| child.pending.remove(&id)) {
                msg["id"] = pending.client_id;
                let _ = pending.sink.send(msg);
                slot.crashes = 0;
            }
            return;
        }
        // A notification or a request of the server's: to the request it is about (progress),
        // else to the newest request in flight.
        let token = msg.pointer("/params/progressToken").cloned();
        let target = child
            .pending
            .values()
            .rev()
            .find(|p| token.is_some() && p.progress == token)
            .or_else(|| child.pending.values().next_back());
        match target {
            Some(p) => {
                let _ = p.sink.send(msg);
            }
            None => {
                let method = msg
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                slot.note(&format!("[host] dropped {method}: no request in flight"));
            }
        }
    }

    fn exited(&self, name: &str, generation: u64, status: &str) {
        let mut state = lock(&self.state);
        let Some(slot) = state.slots.get_mut(name) else {
            return;
        };
        if slot
            .child
            .as_ref()
            .is_some_and(|c| c.generation != generation)
        {
            return;
        }
        let Some(child) = slot.child.take() else {
            return;
        };
        for pending in child.pending.into_values() {
            let error = HostError::Crashed {
                name: name.to_owned(),
                status: status.to_owned(),
                next: "the call's outcome is unknown".into(),
            };
            let _ = pending
                .sink
                .send(json!({"jsonrpc": "2.0", "id": pending.client_id, "error": error.rpc()}));
        }
        if slot.stopping {
            slot.note(&format!("[host] stopped ({status})"));
            let detail = slot.detail.clone();
            self.set(name, slot, Status::Stopped, detail);
            return;
        }
        slot.crashes += 1;
        slot.note(&format!("[host] exited unexpectedly ({status})"));
        if slot.crashes >= MAX_CRASHES {
            slot.retry_at = None;
            self.set(name, slot, Status::Failed, status.to_owned());
            return;
        }
        let factor = 1u32 << (slot.crashes - 1).min(5);
        let delay = (self.settings.backoff * factor).min(Duration::from_secs(30));
        slot.retry_at = Some(Instant::now() + delay);
        self.set(name, slot, Status::Crashed, status.to_owned());
    }

    /// Stops `name` (closing its stdin, then killing it if it does not exit).
    pub fn stop(&self, name: &str, why: &str) -> bool {
        let mut state = lock(&self.state);
        let Some(slot) = state.slots.get_mut(name) else {
            return false;
        };
        let Some(child) = slot.child.as_mut() else {
            return false;
        };
        slot.stopping = true;
        slot.detail = why.to_owned();
        // Closing the channel ends the writer task, which closes the process's stdin.
        let (dead, _) = mpsc::unbounded_channel();
        child.stdin = dead;
        if let Some(kill) = child.kill.take() {
            let _ = kill.send(());
        }
        true
    }

    /// Stops and starts `name` again, its crash count forgotten.
    pub fn restart(self: &Arc<Self>, name: &str) -> Result<(), HostError> {
        self.entry(name)?;
        self.stop(name, "restarted");
        {
            let mut state = lock(&self.state);
            if let Some(slot) = state.slots.get_mut(name) {
                slot.crashes = 0;
                slot.retry_at = None;
                slot.status = Status::Stopped;
                // The old process is on its way out; the new one replaces it now.
                slot.child = None;
            }
        }
        self.ensure(name)
    }

    fn tick(self: &Arc<Self>) {
        let now = Instant::now();
        let idle: Vec<String> = lock(&self.state)
            .slots
            .iter()
            .filter(|(_, s)| {
                s.child.as_ref().is_some_and(|c| c.pending.is_empty())
                    && now.saturating_duration_since(s.last_used) >= self.settings.idle
            })
            .map(|(n, _)| n.clone())
            .collect();
        for name in idle {
            self.stop(&name, "idle");
        }
    }

    /// Stops every server (the port closed).
    pub fn stop_all(&self) -> usize {
        let names: Vec<String> = lock(&self.state).slots.keys().cloned().collect();
        names
            .iter()
            .filter(|n| self.stop(n, "host exiting"))
            .count()
    }

    /// Whether any process is still running.
    pub fn any_running(&self) -> bool {
        lock(&self.state).slots.values().any(|s| s.child.is_some())
    }

    /// Which servers run now (for tests).
    pub fn running(&self) -> Vec<String> {
        let state = lock(&self.state);
        let mut names: Vec<String> = state
            .slots
            .iter()
            .filter(|(_, s)| s.child.is_some())
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    }
}

/// Kills the process group a server leads (a launcher such as `npx` starts the real server as
/// its own child). `kill` is run as a program: the host has no unsafe code.
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = pid;
}
