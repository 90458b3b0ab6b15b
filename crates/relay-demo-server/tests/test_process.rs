//! The process contract: the stdout line, exit statuses, and shutdown on SIGTERM even while
//! clients hold streams open.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::{parse_listening_line, Server, Session};

fn run_to_end(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relay-demo-server"))
        .args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // These invocations exit on their own; the bound only guards against a hang.
    support::wait_bounded(&mut child, Duration::from_secs(20)).expect("exits");
    child.wait_with_output().expect("collect output")
}

#[test]
fn listening_line_format_is_exact() {
    let cases = [
        (
            "MCP demo server listening on http://127.0.0.1:8931/mcp\n",
            Some(8931),
        ),
        (
            "MCP demo server listening on http://127.0.0.1:8931/mcp",
            None,
        ),
        (
            "MCP demo server listening on http://0.0.0.0:8931/mcp\n",
            None,
        ),
        (
            "MCP demo server listening on http://127.0.0.1:0/mcp\n",
            None,
        ),
        (
            "MCP demo server listening on http://127.0.0.1:8931/mcp/\n",
            None,
        ),
    ];
    for (line, port) in cases {
        assert_eq!(parse_listening_line(line), port, "{line:?}");
    }
}

#[test]
fn port_zero_picks_distinct_free_ports() {
    let a = Server::start(&[]);
    let b = Server::start(&["--port", "0"]);
    assert_ne!(a.port, b.port);
}

#[test]
fn explicit_port_is_used_and_a_taken_port_fails_with_status_1() {
    let first = Server::start(&[]);
    let port = first.port.to_string();
    let output = run_to_end(&["--port", &port]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        output.stdout.is_empty(),
        "no listening line when binding fails"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );

    drop(first);
    // The port is free again, so binding it explicitly must announce that very port (another
    // process could grab it in between; on a test machine that race is negligible).
    let second = Server::start(&["--port", &port]);
    assert_eq!(second.port.to_string(), port);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    for args in [&["--port"][..], &["--port", "70000"], &["--bogus"]] {
        let output = run_to_end(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("Usage: relay-demo-server"),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty());
    }
    let help = run_to_end(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage: relay-demo-server"));
    let version = run_to_end(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("relay-demo-server {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[cfg(unix)]
#[test]
fn sigterm_right_after_the_line_exits_cleanly() {
    let server = Server::start(&[]);
    let (status, _) = server.terminate(Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
}

#[cfg(unix)]
#[test]
fn sigterm_with_an_open_sse_stream_exits_within_the_grace_period() {
    let server = Server::start(&[]);
    let session = Session::open(&server);
    let session_id = session.session_id.clone().expect("session");
    // Hold the session's standalone GET stream open, as a client waiting for notifications.
    let url = server.url.clone();
    let (opened_tx, opened_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut response = support::agent()
            .get(&url)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", &session_id)
            .header("MCP-Protocol-Version", support::PROTOCOL_VERSION)
            .call()
            .expect("GET stream");
        let _ = opened_tx.send(response.status().as_u16());
        // Returns when the server closes the stream (or the agent's global timeout hits).
        let _ = response.body_mut().read_to_string();
    });
    let status = opened_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("GET stream opened");
    assert_eq!(status, 200);

    let bound = relay_demo_server::SHUTDOWN_GRACE + Duration::from_secs(5);
    let (exit, took) = server.terminate(bound);
    assert!(exit.success(), "{exit:?}");
    assert!(took < bound, "took {took:?}");
    reader.join().expect("reader thread");
}
