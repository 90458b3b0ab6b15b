//! The log level a client asks servers for (`SessionConfig::log_level`): in every 2026-07-28
//! request's `_meta` as `io.modelcontextprotocol/logLevel`; with `logging/setLevel` once a 2025
//! session is ready, where the server declares `logging`; never when no level is set.

mod client_harness;

use client_harness::{config, init_result, list, server, tool, Harness, Reply, Req};
use relay_core::client::{HttpMethod, Output};
use relay_core::model::LogLevel;
use serde_json::{json, Value};

fn posts(h: &Harness) -> Vec<&Req> {
    h.requests
        .iter()
        .filter(|r| r.method == HttpMethod::Post)
        .collect()
}

fn tools(req: &Req) -> Option<Reply> {
    (req.rpc_method() == "tools/list").then(|| {
        Reply::result(
            &req.id(),
            json!({"resultType": "complete", "tools": [tool("t")]}),
        )
    })
}

#[test]
fn stateless_requests_carry_the_level_in_meta_only_when_set() {
    for level in [None, Some(LogLevel::Warning), Some(LogLevel::Debug)] {
        let mut cfg = config();
        cfg.discover = true;
        cfg.log_level = level;
        let mut h = Harness::new(
            cfg,
            server("2025-11-25", |req, _| {
                if req.rpc_method() == "server/discover" {
                    return Some(Reply::result(
                        &req.id(),
                        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                               "capabilities": {"tools": {}, "logging": {}},
                               "serverInfo": {"name": "s", "version": "1"}}),
                    ));
                }
                tools(req)
            }),
        );
        let listed = h.submit(list());
        h.run(1_000);
        assert!(matches!(h.ok(listed), Output::Tools(_)));
        let expected = level.map(|l| serde_json::to_value(l).expect("level"));
        let requests = posts(&h);
        assert!(requests.len() >= 2, "{level:?}");
        for req in requests {
            let meta = &req.params()["_meta"];
            assert_eq!(
                meta.get("io.modelcontextprotocol/logLevel").cloned(),
                expected,
                "{level:?} {}",
                req.rpc_method()
            );
            assert_ne!(
                req.rpc_method(),
                "logging/setLevel",
                "2026-07-28 has no setLevel"
            );
        }
    }
}

#[test]
fn sessions_ask_with_set_level_where_the_server_logs() {
    // (level, server declares logging, setLevel answer) → setLevel params sent
    let cases: &[(Option<LogLevel>, bool, bool, Option<Value>)] = &[
        (
            Some(LogLevel::Info),
            true,
            true,
            Some(json!({"level": "info"})),
        ),
        (
            Some(LogLevel::Emergency),
            true,
            true,
            Some(json!({"level": "emergency"})),
        ),
        // A server that refuses it still answers everything else.
        (
            Some(LogLevel::Error),
            true,
            false,
            Some(json!({"level": "error"})),
        ),
        (Some(LogLevel::Info), false, true, None),
        (None, true, true, None),
    ];
    for (level, logging, accepts, expected) in cases.iter().cloned() {
        let mut cfg = config();
        cfg.log_level = level;
        let mut h = Harness::new(
            cfg,
            server("2025-11-25", move |req, _| match req.rpc_method() {
                "initialize" if logging => {
                    let mut result = init_result("2025-11-25");
                    result["capabilities"]["logging"] = json!({});
                    Some(Reply::result(&req.id(), result).header("mcp-session-id", "s-1"))
                }
                "logging/setLevel" if accepts => Some(Reply::result(&req.id(), json!({}))),
                "logging/setLevel" => Some(Reply::error(&req.id(), -32601, "no")),
                _ => tools(req),
            }),
        );
        let listed = h.submit(list());
        h.run(1_000);
        let label = format!("{level:?} logging={logging} accepts={accepts}");
        assert!(matches!(h.ok(listed), Output::Tools(_)), "{label}");
        let sent: Vec<Value> = posts(&h)
            .into_iter()
            .filter(|r| r.rpc_method() == "logging/setLevel")
            .map(Req::params)
            .collect();
        assert_eq!(sent, expected.into_iter().collect::<Vec<_>>(), "{label}");
        // Nothing else changes: no `_meta` level on a 2025 session's requests.
        for req in posts(&h) {
            assert!(req
                .params()
                .pointer("/_meta/io.modelcontextprotocol~1logLevel")
                .is_none());
        }
        let second = h.submit(list());
        h.run(1_000);
        assert!(
            matches!(h.ok(second), Output::Tools(_)),
            "{label}: still usable"
        );
    }
}
