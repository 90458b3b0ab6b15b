//! Local servers' decisions (`app::local`): names the host would take, the host's answers and
//! endpoints the client may use, the stdio entries of an `mcpServers` file with the exact command
//! to confirm, proposals' bounds, and which of the host's servers the extension lacks.

use relay_core::app::local::{
    check_name, display, endpoint, host_data, host_failure, install_command, named, not_installed,
    plan, propose_message, with_endpoint, Platform, DEVELOPER_COMMAND, MAX_PROPOSED,
};
use relay_core::app::App;
use relay_core::client::ServerConfig;
use relay_core::contract::local::LocalProposal;
use relay_core::contract::{ErrorBody, ErrorCause, ErrorKind};
use relay_core::sorted_map::SortedMap;
use serde_json::json;

const TOKEN: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

#[test]
fn names_with_path_characters_are_refused() {
    for ok in ["fs", "server-everything", "py_2", "a.b", "X9"] {
        assert!(check_name(ok).is_ok(), "{ok}");
    }
    let long = "a".repeat(65);
    for bad in [
        "",
        "../x",
        "a/b",
        "a\\b",
        ".hidden",
        "-flag",
        "a b",
        "é",
        long.as_str(),
    ] {
        let e = check_name(bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument, "{bad}");
        assert!(e.message.contains("not allowed"), "{bad}: {}", e.message);
        assert!(named("open", bad).is_err());
    }
    assert_eq!(
        named("log", "fs").unwrap(),
        json!({"type": "log", "name": "fs"})
    );
}

#[test]
fn host_answers_become_data_or_a_local_host_error() {
    assert_eq!(
        host_data(json!({"id": 1, "ok": true, "data": {"a": 1}})).unwrap(),
        json!({"a": 1})
    );
    let refused = host_data(json!({"id": 1, "ok": false, "error": {"kind": "unknownServer", "message": "no local server is named \"x\""}}))
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::LocalHost);
    assert_eq!(refused.message, "no local server is named \"x\"");
    for garbage in [json!(null), json!([1]), json!({"ok": "yes"})] {
        assert_eq!(host_data(garbage).unwrap_err().kind, ErrorKind::LocalHost);
    }
}

#[test]
fn only_the_hosts_loopback_address_for_that_server_is_used() {
    let good = json!({"url": "http://127.0.0.1:4312/mcp/fs", "token": TOKEN});
    assert_eq!(
        endpoint("fs", &good).unwrap(),
        ("http://127.0.0.1:4312/mcp/fs".to_owned(), TOKEN.to_owned())
    );
    let table = [
        json!({"url": "http://127.0.0.1:4312/mcp/other", "token": TOKEN}),
        json!({"url": "http://evil.example:4312/mcp/fs", "token": TOKEN}),
        json!({"url": "http://127.0.0.1.evil.example:80/mcp/fs", "token": TOKEN}),
        json!({"url": "https://127.0.0.1:4312/mcp/fs", "token": TOKEN}),
        json!({"url": "http://127.0.0.1:0/mcp/fs", "token": TOKEN}),
        json!({"url": "http://127.0.0.1:4312/mcp/fs", "token": "short"}),
        json!({"url": "http://127.0.0.1:4312/mcp/fs", "token": format!("{}\r\nX: y", TOKEN)}),
        json!({"url": "http://127.0.0.1:4312/mcp/fs"}),
        json!({}),
    ];
    for data in table {
        let e = endpoint("fs", &data).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LocalHost, "{data}");
    }
}

#[test]
fn the_live_configuration_carries_only_the_hosts_secret() {
    let mut server = ServerConfig::new("local-fs", "fs", "http://127.0.0.1/local/fs");
    server.local = Some("fs".into());
    server.headers = vec![("X-Old".into(), "v".into())];
    let live = with_endpoint(&server, "http://127.0.0.1:4312/mcp/fs", TOKEN);
    assert_eq!(live.url, "http://127.0.0.1:4312/mcp/fs");
    assert_eq!(
        live.headers,
        vec![("Authorization".to_owned(), format!("Bearer {TOKEN}"))]
    );
    assert_eq!(live.id, "local-fs");
    assert_eq!(live.local.as_deref(), Some("fs"));
}

#[test]
fn an_mcp_servers_file_gives_the_stdio_entries_with_the_exact_command() {
    let file = json!({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/my docs"],
                  "env": {"TOKEN": "a b"}, "cwd": "/tmp"},
        "git": {"command": "uvx", "args": ["mcp-server-git"]},
        "remote": {"url": "http://127.0.0.1:3001/mcp"},
        "../evil": {"command": "sh"},
        "badargs": {"command": "x", "args": "not a list"},
        "quote": {"command": "echo", "args": ["it's"]},
    }});
    let found = plan(&file.to_string()).unwrap();
    let shown: Vec<(&str, &str)> = found
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.display.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("files", "TOKEN='a b' npx -y @modelcontextprotocol/server-filesystem '/home/me/my docs'   (in /tmp)"),
            ("git", "uvx mcp-server-git"),
            ("quote", "echo 'it'\\''s'"),
        ]
    );
    let skipped: Vec<&str> = found.skipped.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skipped, ["../evil", "badargs"]);
    assert!(found.skipped[0].reason.contains("not allowed"));
    assert_eq!(
        found.servers[0].args[2], "/home/me/my docs",
        "argv, never a shell line"
    );
    assert!(plan("not json").is_err());
    assert!(plan("{}").is_err());
}

fn proposal(name: &str) -> LocalProposal {
    LocalProposal {
        name: name.into(),
        command: "uvx".into(),
        args: vec!["mcp-server-git".into()],
        env: SortedMap::new(),
        cwd: None,
        display: display("uvx", &["mcp-server-git".into()], &SortedMap::new(), None),
    }
}

#[test]
fn proposals_are_bounded_and_named_as_the_host_takes_them() {
    let message = propose_message(&[proposal("git")]).unwrap();
    assert_eq!(
        message,
        json!({"type": "propose", "servers": [{"name": "git", "command": "uvx", "args": ["mcp-server-git"], "env": {}, "cwd": null}]})
    );
    assert!(propose_message(&[]).is_err());
    let many: Vec<LocalProposal> = (0..=MAX_PROPOSED)
        .map(|i| proposal(&format!("s{i}")))
        .collect();
    assert!(propose_message(&many)
        .unwrap_err()
        .message
        .contains("1 to 32"));
    assert!(propose_message(&[proposal("a/b")]).is_err());
    let mut huge = proposal("big");
    huge.args = vec!["x".repeat(70_000)];
    assert!(propose_message(&[huge])
        .unwrap_err()
        .message
        .contains("too large"));
}

#[test]
fn the_hosts_servers_the_extension_lacks_are_added_once_and_marked_local() {
    let mut app = App::default();
    let data = json!({"version": "0.1.0", "servers": [
        {"name": "fs", "command": "npx fs", "status": "running", "detail": "", "crashes": 0},
        {"name": "git", "command": "uvx mcp-server-git", "status": "crashed", "detail": "exit status: 1", "crashes": 2},
        {"name": "../x", "command": "sh", "status": "stopped", "detail": "", "crashes": 0},
    ]});
    let linux = Platform {
        os: "linux".into(),
        extension_id: "ellfknbogpmjfnllbfnllmflekcknadb".into(),
    };
    let (view, missing) = app.local_view(&data, &linux).unwrap();
    assert_eq!(missing, ["fs", "git"]);
    assert_eq!(
        view.install,
        "sh install-host.sh ellfknbogpmjfnllbfnllmflekcknadb"
    );
    assert_eq!(view.developer, DEVELOPER_COMMAND);
    assert_eq!(
        view.servers.len(),
        2,
        "a name the host should never have is not shown"
    );
    assert_eq!(view.servers[1].crashes, 2);
    let server = app.local_server("fs");
    assert_eq!(server.local.as_deref(), Some("fs"));
    assert_eq!(server.url, "http://127.0.0.1/local/fs");
    assert!(server.headers.is_empty());
    app.config.servers.push(server.clone());
    let (view, missing) = app.local_view(&data, &linux).unwrap();
    assert_eq!(missing, ["git"]);
    assert_eq!(
        view.servers[0].server_id.as_deref(),
        Some(server.id.as_str())
    );
    assert_eq!(app.local_name(&server.id).as_deref(), Some("fs"));
    assert!(app.local_view(&json!({"nope": 1}), &linux).is_err());
    // Dropped from the host's list: the configured server is stale; remote ones never are.
    app.config.servers.push(ServerConfig::new(
        "remote",
        "remote",
        "http://127.0.0.1:9/mcp",
    ));
    let gone = json!({"servers": [{"name": "git", "command": "uvx", "status": "stopped", "detail": "", "crashes": 0}]});
    let (view, _) = app.local_view(&gone, &linux).unwrap();
    assert_eq!(app.local_stale(&view), vec![server.id.clone()]);
    let (view, _) = app.local_view(&data, &linux).unwrap();
    assert!(app.local_stale(&view).is_empty());
}

#[test]
fn the_install_command_is_the_zips_script_for_this_platform_and_id() {
    let id = "ellfknbogpmjfnllbfnllmflekcknadb";
    let on = |os: &str, id: &str| {
        install_command(&Platform {
            os: os.into(),
            extension_id: id.into(),
        })
    };
    assert_eq!(on("mac", id), format!("sh install-host.sh {id}"));
    assert_eq!(on("linux", id), format!("sh install-host.sh {id}"));
    assert_eq!(
        on("win", id),
        format!("powershell -ExecutionPolicy Bypass -File .\\install-host.ps1 {id}")
    );
    // Never a command holding text the panel did not get from Chrome as an id.
    assert_eq!(
        on("linux", "x; rm -rf ~"),
        "sh install-host.sh EXTENSION_ID"
    );
    assert!(!on("linux", id).contains("cargo"));
}

#[test]
fn chromes_native_messaging_errors_become_causes_with_what_to_do() {
    let chrome = |m: &str| ErrorBody::new(ErrorKind::LocalHost, m);
    for (raw, cause) in [
        (
            "Specified native messaging host not found.",
            ErrorCause::HostMissing,
        ),
        ("Native host has exited.", ErrorCause::HostExited),
        (
            "Access to the specified native messaging host is forbidden.",
            ErrorCause::HostForbidden,
        ),
    ] {
        let e = host_failure(chrome(raw));
        assert_eq!(e.kind, ErrorKind::LocalHost);
        assert_eq!(e.cause, Some(cause), "{raw}");
        assert!(
            !e.message.contains(raw),
            "Chrome's words are not the message: {}",
            e.message
        );
        assert!(e.hint.as_deref().is_some_and(|h| !h.is_empty()));
    }
    // Anything else stays as it was; other kinds are not touched.
    let other = chrome("Error when communicating with the native messaging host.");
    assert_eq!(host_failure(other.clone()), other);
    let view = not_installed(
        chrome("Specified native messaging host not found."),
        &Platform::default(),
    );
    assert!(!view.installed);
    assert_eq!(view.error.unwrap().cause, Some(ErrorCause::HostMissing));
    assert_eq!(view.install, "sh install-host.sh EXTENSION_ID");
}
