//! Resolving the tool name (and optional server) a call gives to one tool of the selection.
//!
//! Linear scans over the servers' tools, without an index: building one would cost more than the
//! handful of calls a reply holds, and the full parse of a reply without calls must not pay for it.

use crate::model::ServerTools;

/// How far a name may be from a tool's to be suggested (edits), and how many suggestions at most.
const MAX_SUGGESTIONS: usize = 3;
/// Longer names are not compared: edit distance is quadratic and such names are not typos.
const MAX_COMPARED_LEN: usize = 64;

/// The outcome of resolving one call's tool.
#[derive(Debug)]
pub(crate) enum Resolution<'s> {
    Found {
        server: &'s ServerTools,
        tool: &'s str,
        /// The call's `server` named no selected server that has the tool; set to that hint.
        mismatched_hint: Option<String>,
    },
    Unknown {
        suggestions: Vec<String>,
    },
    Ambiguous {
        servers: Vec<&'s ServerTools>,
    },
}

/// Server names compare case-insensitively, with spaces, dashes and underscores alike, so
/// "Server Everything", "server-everything" and "server_everything" are one server.
fn server_matches(server: &ServerTools, hint: &str) -> bool {
    fn norm(c: char) -> char {
        match c {
            ' ' | '-' => '_',
            c => c.to_ascii_lowercase(),
        }
    }
    let eq = |a: &str| {
        let (a, b) = (a.trim(), hint.trim());
        !a.is_empty() && a.chars().map(norm).eq(b.chars().map(norm))
    };
    eq(&server.id) || eq(&server.name)
}

fn has_tool<'s>(server: &'s ServerTools, name: &str) -> Option<&'s str> {
    server
        .tools
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.name.as_str())
}

/// Resolves `name` (possibly qualified as `server/tool`, `server__tool`, `server.tool` or
/// `server:tool`) with an optional `server` hint against the selected servers.
pub(crate) fn resolve<'s>(
    servers: &'s [ServerTools],
    name: &str,
    hint: Option<&str>,
    suggest: bool,
) -> Resolution<'s> {
    let mut found = servers
        .iter()
        .filter_map(|s| has_tool(s, name).map(|t| (s, t)));
    let first = found.next();
    if let (Some((server, tool)), None) = (first, found.clone().next()) {
        // One selected server has the tool (the usual case): what the general path below decides
        // for a single match, without collecting the matches.
        let hint = hint.map(str::trim).filter(|h| !h.is_empty());
        return Resolution::Found {
            server,
            tool,
            mismatched_hint: hint
                .filter(|h| !server_matches(server, h))
                .map(str::to_owned),
        };
    }
    let mut exact: Vec<(&'s ServerTools, &'s str)> = first.into_iter().chain(found).collect();
    if exact.is_empty() {
        exact = qualified(servers, name);
    }
    if exact.is_empty() {
        return Resolution::Unknown {
            suggestions: if suggest {
                suggestions(servers, name)
            } else {
                Vec::new()
            },
        };
    }
    let hint = hint.map(str::trim).filter(|h| !h.is_empty());
    if let Some(h) = hint {
        let narrowed: Vec<_> = exact
            .iter()
            .copied()
            .filter(|(s, _)| server_matches(s, h))
            .collect();
        if narrowed.len() == 1 {
            let (server, tool) = narrowed[0];
            return Resolution::Found {
                server,
                tool,
                mismatched_hint: None,
            };
        }
        if narrowed.len() > 1 {
            // Two selected servers share an id or a name: nothing tells them apart.
            return Resolution::Ambiguous {
                servers: narrowed.into_iter().map(|(s, _)| s).collect(),
            };
        }
    }
    match exact.as_slice() {
        [(server, tool)] => Resolution::Found {
            server,
            tool,
            mismatched_hint: hint.map(str::to_owned),
        },
        _ => Resolution::Ambiguous {
            servers: exact.into_iter().map(|(s, _)| s).collect(),
        },
    }
}

fn qualified<'s>(servers: &'s [ServerTools], name: &str) -> Vec<(&'s ServerTools, &'s str)> {
    let mut found: Vec<(&'s ServerTools, &'s str)> = Vec::new();
    for sep in ["/", "__", ".", ":"] {
        for (at, _) in name.match_indices(sep) {
            let (left, right) = (&name[..at], &name[at + sep.len()..]);
            for s in servers.iter().filter(|s| server_matches(s, left)) {
                if let Some(t) = has_tool(s, right) {
                    if !found
                        .iter()
                        .any(|(fs, ft)| std::ptr::eq(*fs, s) && *ft == t)
                    {
                        found.push((s, t));
                    }
                }
            }
        }
    }
    found
}

/// Up to three tool names close to `name`: by edit distance (case-insensitive) within a third of
/// the name's length, or containing it ("sum" → "get-sum"). Closest first, then alphabetical.
fn suggestions(servers: &[ServerTools], name: &str) -> Vec<String> {
    let lower: Vec<char> = name.to_lowercase().chars().collect();
    if lower.is_empty() || lower.len() > MAX_COMPARED_LEN {
        return Vec::new();
    }
    let limit = (lower.len() / 3).clamp(1, 3);
    let lower_str: String = lower.iter().collect();
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for tool in servers.iter().flat_map(|s| s.tools.iter()) {
        let candidate = tool.name.to_lowercase();
        let cand: Vec<char> = candidate.chars().collect();
        if cand.len() > MAX_COMPARED_LEN {
            continue;
        }
        let d = levenshtein(&lower, &cand);
        let contains = lower.len() >= 3 && candidate.contains(&lower_str);
        if d <= limit || contains {
            scored.push((d, tool.name.as_str()));
        }
    }
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n.to_owned())
        .collect()
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Tool;
    use serde_json::json;

    fn servers() -> Vec<ServerTools> {
        let t = |n: &str| Tool::new(n, json!({"type": "object"}));
        vec![
            ServerTools::new(
                "srv-everything",
                "Server Everything",
                vec![t("echo"), t("get-sum"), t("a.b")],
            ),
            ServerTools::new("demo", "Demo", vec![t("echo"), t("add"), t("notes_add")]),
        ]
    }

    fn show(r: &Resolution<'_>) -> String {
        match r {
            Resolution::Found {
                server,
                tool,
                mismatched_hint,
            } => {
                format!(
                    "found {}/{tool}{}",
                    server.id,
                    mismatched_hint
                        .as_ref()
                        .map(|h| format!(" (hint {h})"))
                        .unwrap_or_default()
                )
            }
            Resolution::Unknown { suggestions } => format!("unknown {suggestions:?}"),
            Resolution::Ambiguous { servers } => {
                format!(
                    "ambiguous {:?}",
                    servers.iter().map(|s| s.id.as_str()).collect::<Vec<_>>()
                )
            }
        }
    }

    #[test]
    fn resolution_table() {
        let s = servers();
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("add", None, "found demo/add"),
            ("echo", None, r#"ambiguous ["srv-everything", "demo"]"#),
            ("echo", Some("DEMO"), "found demo/echo"),
            (
                "echo",
                Some("server everything"),
                "found srv-everything/echo",
            ),
            (
                "echo",
                Some("nope"),
                r#"ambiguous ["srv-everything", "demo"]"#,
            ),
            ("add", Some("nope"), "found demo/add (hint nope)"),
            (
                "add",
                Some("srv-everything"),
                "found demo/add (hint srv-everything)",
            ),
            ("demo/echo", None, "found demo/echo"),
            ("demo__echo", None, "found demo/echo"),
            ("Server_Everything.echo", None, "found srv-everything/echo"),
            ("srv-everything:a.b", None, "found srv-everything/a.b"),
            ("a.b", None, "found srv-everything/a.b"),
            ("ech", None, r#"unknown ["echo"]"#),
            ("sum", None, r#"unknown ["get-sum"]"#),
            ("notes-add", None, r#"unknown ["notes_add"]"#),
            ("zzzzzz", None, "unknown []"),
        ];
        for (name, hint, want) in cases {
            assert_eq!(
                show(&resolve(&s, name, *hint, true)),
                *want,
                "{name} {hint:?}"
            );
        }
    }

    #[test]
    fn edit_distance() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(levenshtein(&c("kitten"), &c("sitting")), 3);
        assert_eq!(levenshtein(&c(""), &c("abc")), 3);
        assert_eq!(levenshtein(&c("复制"), &c("复制")), 0);
    }
}
