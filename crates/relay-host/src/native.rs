//! The host as Chrome runs it: requests in on stdin, answers and status events out on stdout
//! (native messaging framing), until Chrome closes the port; then every server is stopped and
//! the host exits.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::bridge::{self, Endpoint};
use crate::config::{check_name, Config};
use crate::framing::{self, Frame, MAX_OUT};
use crate::protocol::{self, HostError, ProposedServer, Request};
use crate::supervisor::{Settings, Supervisor};

/// The program that asks the user to confirm added servers (tests point it at a script).
pub const CONFIRM_ENV: &str = "RELAY_HOST_CONFIRM";

/// Runs until Chrome closes the port.
pub async fn run(settings: Settings, origin: Option<String>) -> std::io::Result<()> {
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Value>();
    let sup = Supervisor::new(settings.clone(), out_tx.clone());
    let endpoint = Arc::new(bridge::start(Arc::clone(&sup), origin).await?);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(msg) = out_rx.recv().await {
            let mut body = msg.to_string().into_bytes();
            if body.len() > MAX_OUT {
                let id = msg.get("id").cloned().unwrap_or(Value::Null);
                body = json!({"id": id, "ok": false, "error": {"kind": "tooLarge",
                    "message": "the answer is too long for native messaging"}})
                .to_string()
                .into_bytes();
            }
            if framing::write_frame(&mut stdout, &body).await.is_err() {
                break;
            }
        }
    });
    let mut stdin = tokio::io::stdin();
    loop {
        match framing::read_frame(&mut stdin).await? {
            Frame::Closed => break,
            Frame::TooLarge(len) => {
                let _ = out_tx.send(protocol::answer(None, Err(HostError::TooLarge(len))));
            }
            Frame::Message(bytes) => match protocol::parse(&bytes) {
                Err((id, e)) => {
                    let _ = out_tx.send(protocol::answer(id, Err(e)));
                }
                Ok(request) => {
                    let sup = Arc::clone(&sup);
                    let endpoint = Arc::clone(&endpoint);
                    let out = out_tx.clone();
                    let path = settings.config_path.clone();
                    tokio::spawn(async move {
                        let (id, result) = handle(&sup, &endpoint, &path, request).await;
                        let _ = out.send(protocol::answer(Some(id), result));
                    });
                }
            },
        }
    }
    // Chrome closed the port: stop every server before leaving.
    sup.stop_all();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while sup.any_running() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(out_tx);
    writer.abort();
    Ok(())
}

async fn handle(
    sup: &Arc<Supervisor>,
    endpoint: &Endpoint,
    path: &std::path::Path,
    request: Request,
) -> (u32, Result<Value, HostError>) {
    match request {
        Request::List { id } => (id, sup.list()),
        Request::Open { id, name } => (
            id,
            sup.ensure(&name).map(
                |()| json!({"name": name, "url": endpoint.url(&name), "token": endpoint.secret}),
            ),
        ),
        Request::Stop { id, name } => (
            id,
            sup.entry(&name)
                .map(|_| json!({"name": name, "stopped": sup.stop(&name, "stopped by the user")})),
        ),
        Request::Restart { id, name } => (id, sup.restart(&name).map(|()| json!({"name": name}))),
        Request::Log { id, name } => (id, sup.log(&name)),
        Request::Propose { id, servers } => (id, propose(path, &servers).await),
    }
}

/// Adds servers after the user confirmed them in a dialog the host shows itself.
async fn propose(path: &std::path::Path, servers: &[ProposedServer]) -> Result<Value, HostError> {
    for s in servers {
        check_name(&s.name).map_err(|_| HostError::BadName(s.name.clone()))?;
        if s.command.is_empty() {
            return Err(HostError::BadMessage(format!(
                "{} has an empty command",
                s.name
            )));
        }
    }
    let mut text = String::from("Add these local MCP servers to MCP Relay? Each runs as:\n");
    for s in servers {
        text.push_str(&format!("\n{}: {}", s.name, s.entry().display()));
    }
    if !confirm(&text).await? {
        return Err(HostError::NotConfirmed);
    }
    let mut config = Config::load_from(path).map_err(|e| HostError::Config(e.to_string()))?;
    for s in servers {
        config
            .insert(&s.name, s.entry())
            .map_err(|e| HostError::Config(e.to_string()))?;
    }
    config
        .save_to(path)
        .map_err(|e| HostError::Config(e.to_string()))?;
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    Ok(json!({"added": names}))
}

/// Asks the user; `Ok(false)` when they said no.
async fn confirm(text: &str) -> Result<bool, HostError> {
    let argv: Vec<String> = if let Some(program) = std::env::var_os(CONFIRM_ENV) {
        vec![program.to_string_lossy().into_owned(), text.to_owned()]
    } else if cfg!(target_os = "macos") {
        ["osascript", "-e", "on run argv", "-e",
         "display dialog (item 1 of argv) with title \"MCP Relay\" buttons {\"Cancel\", \"Add\"} default button \"Cancel\"",
         "-e", "end run", text]
            .iter().map(|s| (*s).to_owned()).collect()
    } else if on_path("zenity") {
        [
            "zenity",
            "--question",
            "--no-markup",
            "--title=MCP Relay",
            "--ok-label=Add",
            &format!("--text={text}"),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    } else if on_path("kdialog") {
        ["kdialog", "--title", "MCP Relay", "--yesno", text]
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    } else {
        return Err(HostError::NoConfirm(
            "no dialog program (zenity, kdialog) found".into(),
        ));
    };
    let status = tokio::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .await
        .map_err(|e| HostError::NoConfirm(format!("{}: {e}", argv[0])))?;
    Ok(status.success())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}
