//! Deterministic benchmark inputs, shared by the native criterion benchmarks, the work tests and
//! the wasm benchmark in Node (through the wasm crate), so every figure is measured on the same
//! bytes.
//!
//! A reply is mostly prose (English and some Chinese, with inline code, emphasis and the odd `<`)
//! with a few calls the way chat pages render them: fenced ```json blocks, blocks whose fences
//! the page stripped leaving "json" / "Copy code" labels, and non-call JSON examples.

use serde_json::json;

use crate::model::{ServerTools, Tool};

const WORDS: &[&str] = &[
    "the",
    "server",
    "returns",
    "a",
    "list",
    "of",
    "notes",
    "that",
    "match",
    "your",
    "query",
    "and",
    "then",
    "I",
    "will",
    "summarise",
    "them",
    "for",
    "you",
    "with",
    "each",
    "note's",
    "title",
    "tool",
    "result",
    "because",
    "this",
    "is",
    "faster",
    "than",
    "reading",
    "every",
    "file",
    "by",
    "hand",
    "here",
    "what",
    "it",
    "found",
    "so",
    "far",
    "in",
    "order",
    "to",
    "answer",
    "question",
    "we",
    "need",
    "two",
    "calls",
    "first",
    "one",
    "adds",
    "numbers",
    "second",
    "searches",
    "服务器",
    "返回",
    "结果",
    "工具",
    "调用",
    "我们",
    "需要",
    "先",
    "搜索",
    "笔记",
];

/// A small deterministic generator (xorshift64*): identical sequences on every target.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The tool set the benchmark replies call: a demo server (`add`, `echo`, `notes_add`,
/// `notes_search`) and a second server, so resolution has more than one server to look at.
pub fn servers() -> Vec<ServerTools> {
    let obj = |props: serde_json::Value| json!({"type": "object", "properties": props});
    let demo = ServerTools::new(
        "demo",
        "Demo",
        vec![
            Tool::new(
                "add",
                obj(json!({"a": {"type": "number"}, "b": {"type": "number"}})),
            ),
            Tool::new("echo", obj(json!({"message": {"type": "string"}}))),
            Tool::new(
                "notes_add",
                obj(json!({"title": {"type": "string"}, "body": {"type": "string"}})),
            ),
            Tool::new(
                "notes_search",
                obj(json!({"query": {"type": "string"}, "limit": {"type": "integer"}})),
            ),
        ],
    );
    let other = ServerTools::new(
        "everything",
        "Everything",
        [
            "get-sum",
            "get-env",
            "get-tiny-image",
            "trigger-long-running-operation",
        ]
        .iter()
        .map(|n| Tool::new(*n, obj(json!({}))))
        .collect(),
    );
    vec![demo, other]
}

fn paragraph(rng: &mut Rng, out: &mut String, bytes: usize) {
    let start = out.len();
    let mut sentence_start = true;
    while out.len() - start < bytes {
        let w = WORDS[rng.below(WORDS.len())];
        match rng.below(40) {
            0 => {
                out.push('`');
                out.push_str(w);
                out.push_str("()`");
            }
            1 => {
                out.push_str("**");
                out.push_str(w);
                out.push_str("**");
            }
            2 => out.push_str("a < b"),
            _ if sentence_start => {
                let mut cs = w.chars();
                if let Some(c) = cs.next() {
                    out.extend(c.to_uppercase());
                    out.push_str(cs.as_str());
                }
            }
            _ => out.push_str(w),
        }
        sentence_start = false;
        match rng.below(12) {
            0 => {
                out.push_str(". ");
                sentence_start = true;
            }
            1 => out.push_str(", "),
            _ => out.push(' '),
        }
    }
    out.push_str(".\n\n");
}

fn call(rng: &mut Rng, out: &mut String, n: usize) {
    let call = match n % 3 {
        0 => {
            json!({"tool": "notes_add", "server": "demo", "arguments": {"title": format!("note {n}"), "body": "Remember the tool-call parser benchmark."}})
        }
        1 => json!({"tool": "add", "arguments": {"a": n, "b": rng.below(1000)}}),
        _ => {
            json!({"tool": "notes_search", "arguments": {"query": format!("topic {n}"), "limit": 5}})
        }
    };
    let pretty = serde_json::to_string_pretty(&call).unwrap_or_default();
    match n % 2 {
        // Rendered with fences (a network stream, or a site that keeps them).
        0 => {
            out.push_str("```json\n");
            out.push_str(&pretty);
            out.push_str("\n```\n\n");
        }
        // innerText of a rendered block: the fences are gone, the labels stay.
        _ => {
            out.push_str("json\nCopy code\n");
            out.push_str(&pretty);
            out.push_str("\n\n");
        }
    }
}

/// A reply of about `size` bytes: prose with a call every ~20 KB (at least one), and a JSON
/// example that is not a call.
pub fn reply_with_calls(size: usize) -> String {
    reply_with_calls_every(size, 20_000)
}

/// [`reply_with_calls`] with a call every ~`gap` bytes (for 1 MB: 20 KB → 48 calls, 4.4 KB →
/// 205, the "many calls" reply of BENCHMARKS.md).
pub fn reply_with_calls_every(size: usize, gap: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ size as u64);
    let mut out = String::with_capacity(size + 1024);
    let mut calls = 0;
    let mut next_call = (size / 2).min(gap);
    while out.len() < size {
        let len = 300 + rng.below(600);
        paragraph(&mut rng, &mut out, len);
        if out.len() >= next_call {
            call(&mut rng, &mut out, calls);
            calls += 1;
            next_call = out.len() + gap;
            if calls % 4 == 1 {
                out.push_str("The configuration looks like `{\"retries\": 3}` or, in full:\n\n");
                out.push_str("```json\n{\"retries\": 3, \"timeout_ms\": 30000}\n```\n\n");
            }
        }
    }
    out
}

/// A reply of about `size` bytes where one call carries almost all of it: a note whose body is
/// ~90% of the reply (escaped newlines and quotes included), between two short paragraphs.
pub fn reply_with_one_large_call(size: usize) -> String {
    let mut rng = Rng(0x5851_f42d_4c95_7f2d ^ size as u64);
    let mut out = String::with_capacity(size + 1024);
    let prose = size / 20;
    paragraph(&mut rng, &mut out, prose);
    let mut body = String::with_capacity(size);
    while body.len() < size - 2 * prose {
        paragraph(&mut rng, &mut body, 200);
        body.push_str("Quote: \"ok\" {braces} `code`\n");
    }
    let call = json!({"tool": "notes_add", "server": "demo", "arguments": {"title": "large", "body": body}});
    out.push_str("```json\n");
    out.push_str(&serde_json::to_string_pretty(&call).unwrap_or_default());
    out.push_str("\n```\n\n");
    paragraph(&mut rng, &mut out, prose);
    out
}

/// The call formats of the competing extensions, as `tests/bench/competitors.bench.mjs` writes
/// them (each as that extension's prompt teaches it): deepseek-pp's tool-name tag
/// (`toolTag`), SuperAssistant's ```jsonl block (`jsonl`) and its ```xml `<function_calls>`
/// block (`xml`), and Gemini Nexus's ```json `{"tool", "args"}` (`json`).
pub const COMPETITOR_FORMATS: &[&str] = &["toolTag", "jsonl", "xml", "json"];

/// One `notes_add` call (the `id`-th of its reply) in `format` (one of [`COMPETITOR_FORMATS`]).
fn competitor_call(format: &str, title: &str, body: &str, id: usize) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match format {
        "toolTag" => format!(
            "<notes_add>\n{{\"title\":{},\"body\":{}}}\n</notes_add>",
            q(title),
            q(body)
        ),
        "jsonl" => [
            "```jsonl".to_owned(),
            format!("{{\"type\": \"function_call_start\", \"name\": \"notes_add\", \"call_id\": {id}}}"),
            "{\"type\": \"description\", \"text\": \"Calls notes_add.\"}".to_owned(),
            format!("{{\"type\": \"parameter\", \"key\": \"title\", \"value\": {}}}", q(title)),
            format!("{{\"type\": \"parameter\", \"key\": \"body\", \"value\": {}}}", q(body)),
            format!("{{\"type\": \"function_call_end\", \"call_id\": {id}}}"),
            "```".to_owned(),
        ]
        .join("\n"),
        "xml" => format!(
            "```xml\n<function_calls>\n<invoke name=\"notes_add\" call_id=\"{id}\">\n\
             <parameter name=\"title\">{title}</parameter>\n<parameter name=\"body\">{body}</parameter>\n\
             </invoke>\n</function_calls>\n```"
        ),
        _ => format!(
            "```json\n{{ \"tool\": \"demo__notes_add\", \"args\": {{\"title\":{},\"body\":{}}} }}\n```",
            q(title),
            q(body)
        ),
    }
}

/// A reply of about `size` bytes in a competitor's `format` (one of [`COMPETITOR_FORMATS`]) with
/// `calls` `notes_add` calls spread evenly through prose: the shape of the competitor bench's
/// replies (`205` calls in 1 MB is its "many calls" case), for profiling natively.
pub fn competitor_reply(format: &str, size: usize, calls: usize) -> String {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ size as u64 ^ calls as u64);
    let one = competitor_call(format, "T", "B", 0).len();
    let gap = size.saturating_sub(calls * (one + 40)) / (calls + 1);
    let mut out = String::with_capacity(size + 1024);
    competitor_prose(&mut rng, &mut out, gap);
    for i in 0..calls {
        out.push_str("\n\n");
        out.push_str(&competitor_call(
            format,
            &format!("note {i}"),
            &format!("body of note {i}"),
            i + 1,
        ));
        out.push_str("\n\n");
        competitor_prose(&mut rng, &mut out, gap);
    }
    out
}

/// About `bytes` of the competitor bench's prose: sentences, a list item with inline code
/// (one in 20) and a comparison (one in 20), in English only.
fn competitor_prose(rng: &mut Rng, out: &mut String, bytes: usize) {
    const WORDS: &[&str] = &[
        "the", "server", "returns", "a", "list", "of", "notes", "and", "each", "note", "has",
        "title", "body", "when", "you", "search", "results", "are", "sorted", "by", "date",
        "which", "means", "recent", "ones", "come", "first",
    ];
    let start = out.len();
    while out.len() - start < bytes {
        let n = 8 + rng.below(12);
        let mut sentence = String::new();
        for k in 0..n {
            if k > 0 {
                sentence.push(' ');
            }
            sentence.push_str(WORDS[rng.below(WORDS.len())]);
        }
        match rng.below(20) {
            0 => {
                out.push_str("- ");
                out.push_str(&sentence);
                out.push_str(", see `notes.md`.\n");
            }
            1 => {
                out.push_str("If a < b then ");
                out.push_str(&sentence);
                out.push_str(".\n\n");
            }
            _ => {
                out.push_str(&sentence[..1].to_uppercase());
                out.push_str(&sentence[1..]);
                out.push_str(". ");
            }
        }
    }
    out.truncate(start + bytes);
}

/// The ends of `n` nearly equal pieces of `text`, on character boundaries (the last is
/// `text.len()`).
pub fn chunk_ends(text: &str, n: usize) -> Vec<usize> {
    let n = n.max(1);
    let mut ends: Vec<usize> = (1..=n)
        .map(|i| {
            let mut e = text.len() * i / n;
            while !text.is_char_boundary(e) {
                e += 1;
            }
            e
        })
        .collect();
    ends.dedup();
    ends
}

/// The names of the adversarial replies [`adversarial`] builds: shapes that make a scanner which
/// restarts after a failed construct, or re-searches from every opener, quadratic.
pub const ADVERSARIAL: &[&str] = &[
    "unclosed_tool_call",
    "unclosed_tool_calls",
    "unclosed_function_call",
    "unclosed_tool_use",
    "unclosed_invoke",
    "unclosed_function_calls",
    "unclosed_prefixed_tag",
    "nested_xml_openers",
    "unclosed_tags_of_every_kind",
    "unclosed_comments",
    "unclosed_fences",
    "unclosed_fence_in_tag",
    "open_braces",
    "tool_key_prefixes",
    "open_strings",
    "partial_tag_names",
    "partial_invoke_attrs",
    "partial_closing_tags",
    "nameless_invokes",
    "unclosed_parameters",
    "backtick_runs",
    "json_lines_starts",
];

/// The hostile shapes found after the fuzz corpus was seeded: every kind of construct left open
/// before prose, and those of the formats issue 22 added (tool-name tags, DeepSeek's DSML
/// markup). Apart from [`ADVERSARIAL`], which seeds the fuzz corpus: that corpus stays as it was.
pub const ADVERSARIAL_FORMATS: &[&str] = &[
    "every_kind_open_then_prose",
    "tool_tags_unclosed",
    "tool_tags_open_objects",
    "tool_tags_wrong_closer",
    "tool_tags_partial",
    "dsml_unclosed",
];

/// Every hostile shape: [`ADVERSARIAL`] and [`ADVERSARIAL_FORMATS`].
pub fn all_adversarial() -> impl Iterator<Item = &'static str> {
    ADVERSARIAL.iter().chain(ADVERSARIAL_FORMATS).copied()
}

/// The adversarial reply `name` (one of [`ADVERSARIAL`]) of about `size` bytes, or `None` for
/// an unknown name. Each repeats one hostile unit; a scanner that is linear in the text reads
/// each byte a small, constant number of times whatever the unit.
pub fn adversarial(name: &str, size: usize) -> Option<String> {
    let repeat = |unit: &str| unit.repeat(size.div_ceil(unit.len().max(1)));
    Some(match name {
        "unclosed_tool_call" => repeat("<tool_call>{\"tool\": \"add\" "),
        "unclosed_tool_calls" => repeat("<tool_calls>\n"),
        "unclosed_function_call" => repeat("<function_call> text "),
        "unclosed_tool_use" => repeat("<tool_use>"),
        "unclosed_invoke" => repeat("<invoke name=\"add\">1 "),
        "unclosed_function_calls" => repeat("<function_calls>\n"),
        "unclosed_prefixed_tag" => repeat("<ns:tool_call>x "),
        "nested_xml_openers" => {
            repeat("<function_calls><invoke name=\"add\"><parameter name=\"a\">")
        }
        "unclosed_tags_of_every_kind" => repeat(
            "<tool_call><tool_calls><function_call><tool_use><function_calls>\
             <invoke name=\"add\"><!-- \n```json\n{\"tool\": ",
        ),
        "unclosed_comments" => repeat("<!-- {\"tool\": 1} "),
        "unclosed_fences" => repeat("```json\n{\"tool\": \"add\"\n"),
        "unclosed_fence_in_tag" => repeat("<tool_call>\n```json\n{\"tool\": \n"),
        "open_braces" => repeat("{ "),
        "tool_key_prefixes" => repeat("{\"tool\":"),
        "open_strings" => repeat("{\"a\": \"b\\\" "),
        "partial_tag_names" => repeat("<tool_c"),
        "partial_invoke_attrs" => repeat("<invoke name=\""),
        "partial_closing_tags" => format!("<tool_call>{}", repeat("</tool_call    ")),
        "nameless_invokes" => format!(
            "<function_calls>{}</function_calls>",
            repeat("<invoke><parameter name=\"a\">1</parameter>")
        ),
        "unclosed_parameters" => format!(
            "<function_calls><invoke name=\"add\">{}</invoke></function_calls>",
            repeat("<parameter name=\"a\">")
        ),
        "backtick_runs" => {
            // Runs of 1 to 24 backticks, each length once per line-free stretch: no run finds
            // its partner within the inline-code look-ahead.
            let mut unit = String::new();
            for len in 1..=24 {
                unit.push_str(&"`".repeat(len));
                unit.push_str("ab ");
            }
            unit.push('\n');
            repeat(&unit)
        }
        "json_lines_starts" => {
            repeat("{\"type\":\"function_call_start\",\"name\":\"add\",\"call_id\":1}\n")
        }
        // Every kind of construct left open once, then prose: each reads the rest of the reply
        // when the message ends (the most reads per byte any reply costs; found by the fuzz run).
        "every_kind_open_then_prose" => format!(
            "<tool_call><!-- \n```json\n{{\"tool\": {}",
            repeat("plain words ")
        ),
        "tool_tags_unclosed" => repeat("<add>{\"a\": 1} "),
        "tool_tags_open_objects" => repeat("<add>{\"a\": <echo>{"),
        "tool_tags_wrong_closer" => repeat("<add>{\"a\": 1}</echo   "),
        "tool_tags_partial" => repeat("<notes_ad"),
        "dsml_unclosed" => repeat("<｜DSML｜tool_calls><｜DSML｜invoke name=\"add\">｜DSML｜"),
        _ => return None,
    })
}
