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

use crate::model::ServerTools;
use std::cell::OnceCell;
use std::rc::Rc;

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

/// Lexes `<name>` or `</ name>` at `i` (`b[i] == b'<'`), blanks allowed after the name and, in a
/// closing tag, before it (an opening `< name>` is prose: a comparison `a < b` must cost
/// nothing more than its byte): the name's range and the index past `>`.
pub(crate) fn lex(b: &[u8], i: usize, end: usize, closing: bool) -> Lexed<TagName> {
    lex_looked(b, i, end, closing).0
}

/// A tag's name (its byte range) and the index just past the tag's `>`.
pub(crate) type TagName = ((usize, usize), usize);

/// [`lex`], and the index past the last byte it looked at (at most `i + 4 + MAX_TAG_NAME +
/// 2 * MAX_BLANKS`; `end` when it needs more text).
pub(crate) fn lex_looked(b: &[u8], i: usize, end: usize, closing: bool) -> (Lexed<TagName>, usize) {
    let mut j = i + 1;
    if closing {
        match b.get(j) {
            _ if j >= end => return (Lexed::Incomplete, end),
            Some(b'/') => j += 1,
            _ => return (Lexed::No, j + 1),
        }
    }
    let blanks = |mut k: usize| {
        let stop = end.min(k + MAX_BLANKS);
        while k < stop && is_blank(b[k]) {
            k += 1;
        }
        k
    };
    if closing {
        j = blanks(j);
    }
    if j >= end {
        return (Lexed::Incomplete, end);
    }
    if !is_name_start(b[j]) {
        return (Lexed::No, j + 1);
    }
    let stop = end.min(j + MAX_TAG_NAME + 1);
    let mut k = j;
    while k < stop && is_name_byte(b[k]) {
        k += 1;
    }
    if k - j > MAX_TAG_NAME {
        return (Lexed::No, k);
    }
    let name = (j, k);
    let k = blanks(k);
    match b.get(k) {
        _ if k >= end => (Lexed::Incomplete, end),
        Some(b'>') => (Lexed::Yes((name, k + 1)), k + 1),
        _ => (Lexed::No, k + 1),
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
/// Clones share the index, built or not (a [`super::SelectedTools`] hands it to every parse it
/// makes, so the first reply with a tag builds it for all of them).
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolTagIndex {
    /// The servers slice it was built for (address and length).
    built_for: (usize, usize),
    names: Rc<OnceCell<Names>>,
}

/// Every accepted spelling's hash with the tool it names, sorted by hash: one allocation, no
/// string built (a reply's first tag pays for it, so it must cost little next to a parse).
#[derive(Debug, Clone, Default)]
struct Names {
    by_hash: Vec<(u64, Spelling, u32, u32)>,
}

/// How a tag may spell a tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Spelling {
    /// The tool's own name (the sink resolves it, ambiguity included).
    Bare,
    /// `server<sep>tool`.
    Qualified(&'static str),
    /// `mcp__server__tool`.
    McpDouble,
    /// deepseek-pp's `mcp_<server>_<tool>`, each part [`sanitized`], cut at 96 bytes.
    McpSanitized,
}

const QUALIFIERS: [&str; 3] = ["__", ".", ":"];
/// deepseek-pp cuts its `mcp_` names here.
const MCP_MAX: usize = 96;

/// FNV-1a: the same hash whichever pieces the bytes come in.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    fn bytes(mut self, bs: &[u8]) -> Self {
        for &b in bs {
            self.byte(b);
        }
        self
    }
}

/// deepseek-pp's part of an `mcp_` name, as bytes: each run of characters other than ASCII
/// letters, digits and `_` becomes one `_`, leading and trailing `_` are dropped, an empty part
/// is `tool`, and a part that starts with a digit gets `t_` in front.
fn sanitized(part: &str) -> impl Iterator<Item = u8> + '_ {
    let kept = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let core = part
        .trim()
        .trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let empty = !core.chars().any(|c| c.is_ascii_alphanumeric());
    let prefix: &[u8] = if empty {
        b"tool"
    } else if core.starts_with(|c: char| c.is_ascii_digit()) {
        b"t_"
    } else {
        b""
    };
    let mut gap = false;
    let body = core.chars().filter(move |_| !empty).flat_map(move |c| {
        let out = if kept(c) {
            let g = std::mem::take(&mut gap);
            [g.then_some(b'_'), Some(c as u8)]
        } else {
            gap = true;
            [None, None]
        };
        out.into_iter().flatten()
    });
    prefix.iter().copied().chain(body)
}

/// The bytes of spelling `how` of `tool` on `server`.
fn spelled<'a>(how: Spelling, server: &'a str, tool: &'a str) -> Box<dyn Iterator<Item = u8> + 'a> {
    match how {
        Spelling::Bare => Box::new(tool.bytes()),
        Spelling::Qualified(sep) => Box::new(server.bytes().chain(sep.bytes()).chain(tool.bytes())),
        Spelling::McpDouble => Box::new(
            b"mcp__"
                .iter()
                .copied()
                .chain(server.bytes())
                .chain(b"__".iter().copied())
                .chain(tool.bytes()),
        ),
        Spelling::McpSanitized => Box::new(
            b"mcp_"
                .iter()
                .copied()
                .chain(sanitized(server))
                .chain(std::iter::once(b'_'))
                .chain(sanitized(tool))
                .take(MCP_MAX),
        ),
    }
}

/// Whether `name` is spelling `how` of `tool` on `server`: a plain comparison for the spellings
/// that are concatenations (every tag of a reply is looked up, and the boxed iterator of
/// [`spelled`] cost an allocation each), the iterator only for the sanitised one.
fn spelled_is(how: Spelling, server: &str, tool: &str, name: &[u8]) -> bool {
    let joined = |parts: [&[u8]; 4]| {
        let mut rest = name;
        for part in parts {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        rest.is_empty()
    };
    let (s, t) = (server.as_bytes(), tool.as_bytes());
    match how {
        Spelling::Bare => t == name,
        Spelling::Qualified(sep) => joined([b"", s, sep.as_bytes(), t]),
        Spelling::McpDouble => joined([b"mcp__", s, b"__", t]),
        Spelling::McpSanitized => spelled(how, server, tool).eq(name.iter().copied()),
    }
}

const SPELLINGS: [Spelling; 6] = [
    Spelling::Bare,
    Spelling::Qualified(QUALIFIERS[0]),
    Spelling::Qualified(QUALIFIERS[1]),
    Spelling::Qualified(QUALIFIERS[2]),
    Spelling::McpDouble,
    Spelling::McpSanitized,
];

impl Names {
    fn build(servers: &[ServerTools]) -> Names {
        let count: usize = servers.iter().map(|s| s.tools.len()).sum();
        let mut by_hash = Vec::with_capacity(count * SPELLINGS.len());
        for (s, server) in servers.iter().enumerate() {
            for (t, tool) in server.tools.iter().enumerate() {
                for how in SPELLINGS {
                    let mut h = Fnv::new();
                    spelled(how, &server.id, &tool.name).for_each(|b| h.byte(b));
                    by_hash.push((h.0, how, s as u32, t as u32));
                }
            }
        }
        by_hash.sort_unstable();
        Names { by_hash }
    }
}

impl ToolTagIndex {
    /// Forgets the index when the servers are not the ones it was built for.
    pub(crate) fn use_servers(&mut self, servers: &[ServerTools]) {
        let key = (servers.as_ptr() as usize, servers.len());
        if self.built_for != key {
            *self = ToolTagIndex {
                built_for: key,
                names: Rc::default(),
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
        let hash = Fnv::new().bytes(name).0;
        let from = names.by_hash.partition_point(|e| e.0 < hash);
        names.by_hash[from..]
            .iter()
            .take_while(|e| e.0 == hash)
            .find_map(|&(_, how, s, t)| {
                let server = servers.get(s as usize)?;
                let tool = server.tools.get(t as usize)?;
                spelled_is(how, &server.id, &tool.name, name).then(|| {
                    let named = (how != Spelling::Bare).then_some(server.id.as_str());
                    (tool.name.as_str(), named)
                })
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
            ("demo__", None),
            ("demo__echoo", None),
            ("demoecho", None),
            ("mcp__demo__", None),
            ("mcp__demo_echo", None),
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
        assert_eq!(show("<get-sum >", false), "get-sum 10");
        assert_eq!(show("< get-sum>", false), "no");
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
