//! Test harness: runs the real `relay-demo-server` binary on a free port and speaks MCP's
//! Streamable HTTP to it with a small blocking client.
//!
//! Every wait is bounded, and the child is killed by pid when the handle drops, so a failing
//! test never leaves a server behind.

#![allow(dead_code)] // Each test binary uses a different part of the harness.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The exact stdout line format, up to the port.
pub const LINE_PREFIX: &str = "MCP demo server listening on http://127.0.0.1:";
/// What follows the port.
pub const LINE_SUFFIX: &str = "/mcp";
/// Longest wait for the listening line.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest wait for any HTTP exchange.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(20);
/// The protocol version the tests speak.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// A running server process.
pub struct Server {
    child: Option<Child>,
    /// What the process printed on stdout after the listening line, delivered at EOF.
    stdout_rest: mpsc::Receiver<std::io::Result<String>>,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The port from the listening line.
    pub port: u16,
}

impl Server {
    /// Starts the binary with `args` and waits for its listening line.
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_relay-demo-server"))
            .args(args)
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn relay-demo-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let first = reader.read_line(&mut line).map(|_| line);
            let _ = tx.send(first);
            // Anything after the first line would break the "exactly one line" contract.
            let mut rest = String::new();
            let extra = reader.read_line(&mut rest).map(|n| (n > 0).then_some(rest));
            let _ = tx.send(extra.map(|e| e.unwrap_or_default()));
        });
        let line = rx
            .recv_timeout(START_TIMEOUT)
            .expect("listening line within the start timeout")
            .expect("read stdout");
        let mut server = Self {
            child: Some(child),
            stdout_rest: rx,
            url: String::new(),
            port: 0,
        };
        let port = parse_listening_line(&line)
            .unwrap_or_else(|| panic!("unexpected listening line {line:?}"));
        server.port = port;
        server.url = format!("http://127.0.0.1:{port}/mcp");
        server
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).expect("running child")
    }

    /// Sends SIGTERM, waits (bounded) for the exit status, and checks that nothing but the
    /// listening line was printed on stdout.
    #[cfg(unix)]
    pub fn terminate(mut self, timeout: Duration) -> (ExitStatus, Duration) {
        let pid = self.pid();
        let started = Instant::now();
        let status = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM {pid} failed");
        let mut child = self.child.take().expect("running child");
        let exit = wait_bounded(&mut child, timeout)
            .unwrap_or_else(|| panic!("server did not exit within {timeout:?} of SIGTERM"));
        let elapsed = started.elapsed();
        let rest = self
            .stdout_rest
            .recv_timeout(Duration::from_secs(5))
            .expect("stdout reaches EOF once the process exits")
            .expect("read stdout");
        assert_eq!(rest, "", "stdout must hold exactly one line");
        (exit, elapsed)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The port in `MCP demo server listening on http://127.0.0.1:PORT/mcp\n`, if the line has
/// exactly that shape.
pub fn parse_listening_line(line: &str) -> Option<u16> {
    let port = line
        .strip_suffix('\n')?
        .strip_prefix(LINE_PREFIX)?
        .strip_suffix(LINE_SUFFIX)?;
    port.parse().ok().filter(|&p| p != 0)
}

/// Waits for `child` at most `timeout`, polling.
pub fn wait_bounded(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An HTTP agent that hands back 4xx/5xx responses instead of failing on them.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(HTTP_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into()
}

/// One HTTP exchange: the status, the content type, and every JSON-RPC message in the body
/// (one for a JSON body, any number for an SSE stream).
#[derive(Debug)]
pub struct Exchange {
    pub status: u16,
    pub content_type: String,
    pub session_id: Option<String>,
    pub messages: Vec<Value>,
    pub raw: String,
}

impl Exchange {
    /// The response to request `id`: `Ok(result)` or `Err(error object)`.
    pub fn response(&self, id: u64) -> Result<Value, Value> {
        let msg = self
            .messages
            .iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no response to id {id} in {:?}", self.raw));
        match (msg.get("result"), msg.get("error")) {
            (Some(result), None) => Ok(result.clone()),
            (None, Some(error)) => Err(error.clone()),
            _ => panic!("malformed response {msg}"),
        }
    }

    /// Notifications (messages with a method and no id) in arrival order.
    pub fn notifications(&self, method: &str) -> Vec<Value> {
        self.messages
            .iter()
            .filter(|m| m["method"] == json!(method) && m.get("id").is_none())
            .cloned()
            .collect()
    }
}

/// Splits an SSE body into the JSON of its `data` fields; empty data (rmcp's priming event)
/// is skipped.
pub fn sse_messages(body: &str) -> Vec<Value> {
    let body = body.replace("\r\n", "\n");
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            (!data.trim().is_empty()).then(|| {
                serde_json::from_str(&data).unwrap_or_else(|e| panic!("bad SSE data {data:?}: {e}"))
            })
        })
        .collect()
}

/// POSTs one JSON-RPC message.
pub fn post(agent: &ureq::Agent, url: &str, session: Option<&str>, message: &Value) -> Exchange {
    post_with(agent, url, session, &[], message)
}

/// POSTs one JSON-RPC message with extra request headers.
pub fn post_with(
    agent: &ureq::Agent,
    url: &str,
    session: Option<&str>,
    headers: &[(&str, &str)],
    message: &Value,
) -> Exchange {
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", PROTOCOL_VERSION);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = request
        .send(message.to_string())
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header("content-type").unwrap_or_default();
    let session_id = header("mcp-session-id");
    let raw = response
        .body_mut()
        .read_to_string()
        .unwrap_or_else(|e| panic!("read body: {e}"));
    let messages = if content_type.starts_with("text/event-stream") {
        sse_messages(&raw)
    } else if content_type.starts_with("application/json") && !raw.trim().is_empty() {
        vec![serde_json::from_str(&raw).unwrap_or_else(|e| panic!("bad JSON {raw:?}: {e}"))]
    } else {
        Vec::new()
    };
    Exchange {
        status,
        content_type,
        session_id,
        messages,
        raw,
    }
}

/// An initialized MCP session (or, against a stateless server, a client that never got a
/// session id).
pub struct Session {
    agent: ureq::Agent,
    url: String,
    pub session_id: Option<String>,
    pub initialize_result: Value,
    next_id: u64,
}

impl Session {
    /// `initialize` + `notifications/initialized`.
    pub fn open(server: &Server) -> Self {
        let agent = agent();
        let init = post(
            &agent,
            &server.url,
            None,
            &json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "relay-demo-server-tests", "version": "0"}
                }
            }),
        );
        assert_eq!(init.status, 200, "initialize: {}", init.raw);
        let initialize_result = init.response(0).expect("initialize succeeds");
        let session_id = init.session_id.clone();
        let initialized = post(
            &agent,
            &server.url,
            session_id.as_deref(),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert_eq!(initialized.status, 202, "initialized: {}", initialized.raw);
        Self {
            agent,
            url: server.url.clone(),
            session_id,
            initialize_result,
            next_id: 1,
        }
    }

    /// Sends a request and returns the whole exchange plus the request's id.
    pub fn exchange(&mut self, method: &str, params: Value) -> (u64, Exchange) {
        let id = self.next_id;
        self.next_id += 1;
        let exchange = post(
            &self.agent,
            &self.url,
            self.session_id.as_deref(),
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        assert_eq!(exchange.status, 200, "{method}: {}", exchange.raw);
        (id, exchange)
    }

    /// Sends a request; `Ok(result)` or `Err(JSON-RPC error object)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let (id, exchange) = self.exchange(method, params);
        exchange.response(id)
    }

    /// `tools/call`, expecting a result (possibly with `isError: true`).
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .unwrap_or_else(|e| panic!("tools/call {name}: protocol error {e}"))
    }
}

/// The text of every text block in a tool result, joined by newlines.
pub fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a tool result is flagged as an error.
pub fn is_error(result: &Value) -> bool {
    result["isError"].as_bool().unwrap_or(false)
}
