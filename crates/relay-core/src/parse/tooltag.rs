//! The tool's own name as the tag: `<get-sum>{"a": 1, "b": 2}</get-sum>`, the format
//! deepseek-pp teaches its models (a JSON object of arguments and nothing else between the tags).
//!
//! Only names of the selected servers' tools open such an element, so `<div>{...}</div>` and
//! `<b>` stay prose. Accepted names: the tool's own name, and a server-qualified one
//! (`server__tool`, `server.tool`, `server:tool`, which [`super::resolve`] also reads, and
//! deepseek-pp's `mcp_<server>_<tool>` with every run of other characters as one `_`, and
//! `mcp__<server>__<tool>`).
//!
//! The element is found by the scanner without a search of its own: the opening tag is noted
//! (`ScanState::tool_tag`), the object that follows it is found by the brace tracking every
//! object in prose goes through, and where that object closes the closing tag must follow
//! (blanks between them allowed). So no reply, however many such tags it holds, costs more
//! than its length; looking a name up costs a hash, through an index of the selection's names
//! built the first time a reply has a tag that may be one.

use std::cell::OnceCell;
use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use crate::model::ServerTools;

/// Longest tag name looked at (MCP tool names are at most 128 characters; a server prefix more).
pub(crate) const MAX_TAG_NAME: usize = 192;
/// Blanks allowed inside a tag (`< echo >`, `</ echo >`) and between the object and its closer.
const MAX_BLANKS: usize = 16;
/// Blanks (and line breaks) allowed between the opening tag and the object.
pub(crate) const MAX_LEAD: usize = 64;

/// An opening tool tag seen in prose, waiting for its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolTag {
    /// The `<` of the opening tag.
    pub(crate) open: usize,
    /// The tag's name.
    pub(crate) name: (usize, usize),
    /// Just past the opening tag's `>`.
    pub(crate) content: usize,
    /// The `{` of its object, once found (`usize::MAX` before).
    pub(crate) object: usize,
}

/// What a tag name at a `<` turned out to be.
#[derive(Debug)]
pub(crate) enum Lexed<T> {
    /// The text ends before it is known.
    Incomplete,
    No,
    Yes(T),
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Lexes `<name>` or `</name>` at `i` (`b[i] == b'<'`), blanks allowed around the name: the
/// name's range and the index past `>`. How far it looked is at most `i + 4 + MAX_TAG_NAME +
/// 2 * MAX_BLANKS`.
pub(crate) fn lex(b: &[u8], i: usize, end: usize, closing: bool) -> Lexed<((usize, usize), usize)> {
    let mut j = i + 1;
    if closing {
        match b.get(j) {
            _ if j >= end => return Lexed::Incomplete,
            Some(b'/') => j += 1,
            _ => return Lexed::No,
        }
    }
    let blanks = |mut k: usize| {
        let stop = end.min(k + MAX_BLANKS);
        while k < stop && is_blank(b[k]) {
            k += 1;
        }
        k
    };
    j = blanks(j);
    if j >= end {
        return Lexed::Incomplete;
    }
    if !is_name_start(b[j]) {
        return Lexed::No;
    }
    let stop = end.min(j + MAX_TAG_NAME + 1);
    let mut k = j;
    while k < stop && is_name_byte(b[k]) {
        k += 1;
    }
    if k - j > MAX_TAG_NAME {
        return Lexed::No;
    }
    let name = (j, k);
    let k = blanks(k);
    match b.get(k) {
        _ if k >= end => Lexed::Incomplete,
        Some(b'>') => Lexed::Yes((name, k + 1)),
        _ => Lexed::No,
    }
}

/// Where the closing tag of `name` ends when one starts at `k` (blanks before it allowed).
pub(crate) fn closer(b: &[u8], k: usize, end: usize, name: &[u8]) -> Lexed<usize> {
    let mut j = k;
    let stop = end.min(k + MAX_BLANKS);
    while j < stop && is_blank(b[j]) {
        j += 1;
    }
    if j >= end {
        return Lexed::Incomplete;
    }
    if b[j] != b'<' {
        return Lexed::No;
    }
    match lex(b, j, end, true) {
        Lexed::Yes((n, after)) if &b[n.0..n.1] == name => Lexed::Yes(after),
        Lexed::Yes(_) | Lexed::No => Lexed::No,
        Lexed::Incomplete => Lexed::Incomplete,
    }
}

/// The selection's tool names, for tags: built when first asked, for one servers slice.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolTagIndex {
    /// The servers slice it was built for (address and length).
    built_for: (usize, usize),
    names: OnceCell<Names>,
}

/// Hashes of every accepted name, each with the tool and the server it names (`None`: the bare
/// name, which the sink resolves, ambiguity included).
#[derive(Debug, Clone, Default)]
struct Names {
    by_hash: FxHashMap<u64, Vec<(u32, u32, bool)>>,
}

/// The hash of the concatenation of `parts` (one `write`: the hasher's result depends on how
/// the bytes are split between writes).
fn hash_bytes(parts: &[&[u8]]) -> u64 {
    let mut h = FxHasher::default();
    match parts {
        [one] => h.write(one),
        _ => h.write(&parts.concat()),
    }
    h.finish()
}

/// deepseek-pp's part of an `mcp_` name: each run of characters other than ASCII letters,
/// digits and `_` becomes one `_`, leading and trailing `_` are dropped, an empty part is
/// `tool`, and a part that starts with a digit gets `t_` in front.
fn sanitized(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    let mut gap = false;
    for c in part.trim().chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            if gap {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    let s = out.trim_matches('_');
    match s.chars().next() {
        None => "tool".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("t_{s}"),
        Some(_) => s.to_owned(),
    }
}

impl Names {
    fn build(servers: &[ServerTools]) -> Names {
        let mut names = Names::default();
        let mut add = |key: u64, s: usize, t: usize, qualified: bool| {
            let entry = names.by_hash.entry(key).or_default();
            let v = (s as u32, t as u32, qualified);
            if !entry.contains(&v) {
                entry.push(v);
            }
        };
        for (s, server) in servers.iter().enumerate() {
            let id = server.id.as_bytes();
            let san_id = sanitized(&server.id);
            for (t, tool) in server.tools.iter().enumerate() {
                let name = tool.name.as_bytes();
                add(hash_bytes(&[name]), s, t, false);
                for sep in [&b"__"[..], b".", b":"] {
                    add(hash_bytes(&[id, sep, name]), s, t, true);
                }
                add(hash_bytes(&[b"mcp__", id, b"__", name]), s, t, true);
                let mcp = format!("mcp_{san_id}_{}", sanitized(&tool.name));
                let mcp = &mcp.as_bytes()[..mcp.len().min(96)];
                add(hash_bytes(&[mcp]), s, t, true);
            }
        }
        names
    }
}

impl ToolTagIndex {
    /// Forgets the index when the servers are not the ones it was built for.
    pub(crate) fn use_servers(&mut self, servers: &[ServerTools]) {
        let key = (servers.as_ptr() as usize, servers.len());
        if self.built_for != key {
            *self = ToolTagIndex {
                built_for: key,
                names: OnceCell::new(),
            };
        }
    }

    /// The tool a tag name names, with the server when the name says it: `(tool, server id)`.
    /// `servers` must be the slice given to [`Self::use_servers`] last.
    pub(crate) fn lookup<'s>(
        &self,
        servers: &'s [ServerTools],
        name: &[u8],
    ) -> Option<(&'s str, Option<&'s str>)> {
        let names = self.names.get_or_init(|| Names::build(servers));
        let hits = names.by_hash.get(&hash_bytes(&[name]))?;
        hits.iter().find_map(|&(s, t, qualified)| {
            let server = servers.get(s as usize)?;
            let tool = server.tools.get(t as usize)?;
            let spelled = if qualified {
                let id = server.id.as_str();
                let tool = tool.name.as_str();
                [
                    format!("{id}__{tool}"),
                    format!("{id}.{tool}"),
                    format!("{id}:{tool}"),
                    format!("mcp__{id}__{tool}"),
                    {
                        let m = format!("mcp_{}_{}", sanitized(id), sanitized(tool));
                        m[..m.len().min(96)].to_owned()
                    },
                ]
                .iter()
                .any(|n| n.as_bytes() == name)
            } else {
                tool.name.as_bytes() == name
            };
            spelled.then(|| (tool.name.as_str(), qualified.then_some(server.id.as_str())))
        })
    }
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
                "Everything",
                vec![t("echo"), t("get-sum")],
            ),
            ServerTools::new("demo", "Demo", vec![t("echo"), t("notes_add")]),
        ]
    }

    #[test]
    fn names_table() {
        let s = servers();
        let mut idx = ToolTagIndex::default();
        idx.use_servers(&s);
        type Named<'a> = Option<(&'a str, Option<&'a str>)>;
        let cases: &[(&str, Named<'_>)] = &[
            ("echo", Some(("echo", None))),
            ("get-sum", Some(("get-sum", None))),
            ("demo__notes_add", Some(("notes_add", Some("demo")))),
            ("demo.echo", Some(("echo", Some("demo")))),
            (
                "srv-everything:get-sum",
                Some(("get-sum", Some("srv-everything"))),
            ),
            (
                "mcp_srv_everything_get_sum",
                Some(("get-sum", Some("srv-everything"))),
            ),
            ("mcp__demo__echo", Some(("echo", Some("demo")))),
            ("div", None),
            ("Echo", None),
            ("mcp_demo_nope", None),
        ];
        for (name, want) in cases {
            assert_eq!(idx.lookup(&s, name.as_bytes()), *want, "{name}");
        }
    }

    #[test]
    fn lexing_table() {
        let show = |t: &str, closing: bool| match lex(t.as_bytes(), 0, t.len(), closing) {
            Lexed::Yes((n, after)) => format!("{} {after}", &t[n.0..n.1]),
            Lexed::No => "no".to_owned(),
            Lexed::Incomplete => "wait".to_owned(),
        };
        assert_eq!(show("<echo>", false), "echo 6");
        assert_eq!(show("< get-sum >", false), "get-sum 11");
        assert_eq!(show("<echo a=\"1\">", false), "no");
        assert_eq!(show("<ech", false), "wait");
        assert_eq!(show("<1a>", false), "no");
        assert_eq!(show("</ echo>", true), "echo 8");
        assert_eq!(show("</echo", true), "wait");
        assert_eq!(show("<echo>", true), "no");
        let b = b"  </echo> ";
        assert!(matches!(closer(b, 0, b.len(), b"echo"), Lexed::Yes(9)));
        assert!(matches!(closer(b, 0, 6, b"echo"), Lexed::Incomplete));
        assert!(matches!(closer(b, 0, b.len(), b"echoes"), Lexed::No));
        assert!(matches!(closer(b"x</echo>", 0, 8, b"echo"), Lexed::No));
    }
}
