//! The scanner: one left-to-right pass that finds call candidates, resumable at any point.
//!
//! State is explicit (`ScanState`): the position, what construct the scanner is inside (prose, a
//! fenced block, a tagged element, an HTML comment, a possible inline code span), the stack of open
//! braces with the complete objects nested in each, and the JSON-lines call being assembled. When
//! a decision needs text that has not arrived yet (the rest of a fence's info line, the end of a
//! tag's name, the byte after a backslash), the scanner stops *before* it and resumes there later;
//! searches that may run long (for a closing fence, tag or backtick) remember how far they got.
//! So feeding a text in pieces does the same work as feeding it at once, plus the bounded
//! look-aheads it had to repeat, and takes the same decisions.
//!
//! At clean points (prose, no open brace, no JSON-lines call in progress, nothing decided on text
//! beyond the point) the streaming parser records checkpoints; a rewrite of the text restarts from
//! the last checkpoint before the first changed byte.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use memchr::{memchr, memchr2, memchr3, memmem};
use serde_json::{Map, Value};

use super::ident::{call_key, canonical_json, derived_call_id};
use super::interpret::{self, LineEvent, RawCall, Shape};
use super::json::{self, Repairs};
use super::resolve::{self, Resolution};
use super::text::{at_line_start, looks_like_call, prev_significant, run_len};
use super::xml::{self, Lex, TagKind, XmlItem};
use super::{Diagnostic, DiagnosticKind, ParseOutput, Span, ToolCall};
use crate::model::ServerTools;

/// Distance between checkpoints in clean prose.
const CHECKPOINT_INTERVAL: usize = 4096;
/// Open braces tracked individually; deeper ones are only counted (nothing that deep parses).
const MAX_FRAMES: usize = 256;
/// Complete objects remembered per open brace, for the fallback when that brace never closes.
const MAX_CHILDREN: usize = 1024;
/// Inline code spans longer than this are not looked for (bounds the look-ahead per backtick).
const MAX_INLINE_CODE: usize = 512;
/// A fence's info line longer than this is not a fence.
const MAX_INFO_LINE: usize = 256;
/// Diagnostics kept per message; one `diagnostics_truncated` follows.
const MAX_DIAGNOSTICS: usize = 256;
/// Unknown tools that get edit-distance suggestions (the rest only the message).
const MAX_SUGGESTED: u32 = 32;

/// Fence info words whose blocks are read for calls. Any other language is a code example.
const CALL_LANGS: &[&str] = &[
    "",
    "json",
    "json5",
    "jsonc",
    "jsonl",
    "jsonlines",
    "ndjson",
    "xml",
    "tool_call",
    "tool_calls",
    "function_call",
    "text",
    "txt",
    "plaintext",
    "plain",
];

fn lang_is_read(lang: &str) -> bool {
    CALL_LANGS.iter().any(|l| l.eq_ignore_ascii_case(lang))
}

/// Where candidates come from; decides which failures are worth a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Prose,
    Block,
    Tag,
}

#[derive(Debug, Clone, Copy)]
struct Cfg {
    fences: bool,
    tags: bool,
    inline_code: bool,
    ctx: Ctx,
    /// The end of this scan's text is the end of the finished message.
    at_message_end: bool,
    /// Repairs implied by the container (a fenced block that never closed).
    extra: Repairs,
    /// Start of this scan's text: look-backs stop here.
    floor: usize,
}

const PROSE: Cfg = Cfg {
    fences: true,
    tags: true,
    inline_code: true,
    ctx: Ctx::Prose,
    at_message_end: true,
    extra: Repairs::NONE,
    floor: 0,
};

#[derive(Debug, Clone, Copy)]
enum Mode {
    Prose,
    /// Inside a fenced block; `next` is where the search for the closing fence resumes, at a line
    /// start unless `mid_line`.
    Fence {
        open: usize,
        content: usize,
        len: usize,
        lang: (usize, usize),
        next: usize,
        mid_line: bool,
    },
    /// Inside a tagged element; searching its closing tag from `next`.
    Tag {
        open: usize,
        content: usize,
        kind: TagKind,
        name: usize,
        next: usize,
    },
    /// Inside `<!-- -->`.
    Comment {
        open: usize,
        next: usize,
    },
    /// A backtick run of `run` at `open`: is it an inline code span? Searching its end from `next`.
    Code {
        open: usize,
        run: usize,
        next: usize,
    },
}

/// The open braces, innermost on top, as a persistent stack: copying it for a checkpoint costs
/// the same whatever its depth, and a shared node is copied only when it changes.
#[derive(Debug, Clone, Default)]
struct Frames {
    top: Option<Rc<FrameNode>>,
}

#[derive(Debug, Clone)]
struct FrameNode {
    start: usize,
    depth: usize,
    /// The complete objects nested directly in this brace, for when it never closes.
    children: Vec<Span>,
    parent: Option<Rc<FrameNode>>,
}

impl Frames {
    fn len(&self) -> usize {
        self.top.as_ref().map_or(0, |n| n.depth)
    }

    fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    fn push(&mut self, start: usize) {
        let parent = self.top.take();
        let depth = parent.as_ref().map_or(0, |p| p.depth) + 1;
        self.top = Some(Rc::new(FrameNode {
            start,
            depth,
            children: Vec::new(),
            parent,
        }));
    }

    /// Closes the innermost brace; returns where it opened.
    fn pop(&mut self) -> Option<usize> {
        let node = self.top.take()?;
        self.top = node.parent.clone();
        Some(node.start)
    }

    fn add_child(&mut self, span: Span) {
        if let Some(top) = self.top.as_mut() {
            if top.children.len() < MAX_CHILDREN {
                Rc::make_mut(top).children.push(span);
            }
        }
    }

    fn outermost(&self) -> Option<usize> {
        let mut node = self.top.as_ref()?;
        while let Some(parent) = node.parent.as_ref() {
            node = parent;
        }
        Some(node.start)
    }

    /// Removes all braces; returns them outermost first, with their children.
    fn take(&mut self) -> Vec<(usize, Vec<Span>)> {
        let mut out = Vec::with_capacity(self.len());
        let mut node = self.top.take();
        while let Some(n) = node {
            out.push((n.start, n.children.clone()));
            node = n.parent.clone();
        }
        out.reverse();
        out
    }
}

/// A JSON-lines call being assembled.
#[derive(Debug, Clone)]
struct Group {
    start: usize,
    last_end: usize,
    name: Option<String>,
    call_id: Option<String>,
    params: Map<String, Value>,
    repairs: Repairs,
}

#[derive(Debug, Clone)]
struct ScanState {
    pos: usize,
    /// Everything before this index has been looked at; checkpoints must not precede it.
    horizon: usize,
    mode: Mode,
    frames: Frames,
    /// Open braces beyond `MAX_FRAMES`.
    deep: usize,
    in_string: bool,
    /// Boxed: it is rare, and the state is copied for every checkpoint.
    group: Option<Box<Group>>,
}

impl ScanState {
    fn at(pos: usize) -> Self {
        ScanState {
            pos,
            horizon: pos,
            mode: Mode::Prose,
            frames: Frames::default(),
            deep: 0,
            in_string: false,
            group: None,
        }
    }

    fn see(&mut self, upto: usize) {
        self.horizon = self.horizon.max(upto);
    }

    /// How much of the text the state depends on.
    fn frontier(&self) -> usize {
        let searched = match self.mode {
            Mode::Prose => 0,
            Mode::Fence { next, .. }
            | Mode::Tag { next, .. }
            | Mode::Comment { next, .. }
            | Mode::Code { next, .. } => next,
        };
        self.pos.max(self.horizon).max(searched)
    }
}

/// Where everything found goes, with what ids and ordinals need.
#[derive(Debug, Clone, Default)]
struct Sink {
    calls: Vec<ToolCall>,
    /// The call key of each call (for ordinals among identical calls).
    keys: Vec<u64>,
    ordinals: BTreeMap<u64, u32>,
    ids: BTreeSet<String>,
    diags: Vec<Diagnostic>,
    suggested: u32,
    work: u64,
}

impl Sink {
    fn diag(&mut self, d: Diagnostic) {
        match self.diags.len() {
            n if n < MAX_DIAGNOSTICS => self.diags.push(d),
            MAX_DIAGNOSTICS => self.diags.push(Diagnostic::new(
                DiagnosticKind::DiagnosticsTruncated,
                format!("More than {MAX_DIAGNOSTICS} problems in this message; the rest are not listed."),
                None,
            )),
            _ => {}
        }
    }

    fn note(&mut self, kind: DiagnosticKind, message: String, span: Span) {
        self.diag(Diagnostic::new(kind, message, Some(span)));
    }

    /// Resolves a call and records it (or why it cannot be run).
    fn emit(&mut self, raw: RawCall, servers: &[ServerTools]) {
        let suggest = self.suggested < MAX_SUGGESTED;
        match resolve::resolve(servers, &raw.name, raw.server.as_deref(), suggest) {
            Resolution::Unknown { suggestions } => {
                if suggest {
                    self.suggested += 1;
                }
                let message = match suggestions.as_slice() {
                    [] => format!("No selected server has a tool named \"{}\".", raw.name),
                    s => format!(
                        "No selected server has a tool named \"{}\"; did you mean {}?",
                        raw.name,
                        s.iter()
                            .map(|n| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                };
                self.diag(
                    Diagnostic::new(DiagnosticKind::UnknownTool, message, Some(raw.span))
                        .with_details(suggestions),
                );
            }
            Resolution::Ambiguous { servers } => {
                let ids: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
                let names = servers
                    .iter()
                    .map(|s| {
                        if s.name.is_empty() {
                            s.id.clone()
                        } else {
                            format!("{} ({})", s.name, s.id)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let message = format!(
                    "Several selected servers have a tool named \"{}\": {names}; the call must name its \"server\".",
                    raw.name
                );
                self.diag(
                    Diagnostic::new(DiagnosticKind::AmbiguousTool, message, Some(raw.span))
                        .with_details(ids),
                );
            }
            Resolution::Found {
                server,
                tool,
                mismatched_hint,
            } => {
                let canonical = canonical_json(&raw.arguments);
                let key = call_key(&server.id, tool, &canonical);
                let ordinal = self.ordinals.get(&key).copied().unwrap_or(0);
                let call_id = raw.id.unwrap_or_else(|| derived_call_id(key, ordinal));
                if self.ids.contains(&call_id) {
                    self.note(
                        DiagnosticKind::DuplicateCallId,
                        format!("Call id \"{call_id}\" is used twice in this message; the second call to \"{tool}\" is ignored."),
                        raw.span,
                    );
                    return;
                }
                if let Some(hint) = mismatched_hint {
                    let message = format!(
                        "No selected server called \"{hint}\" has a tool \"{tool}\"; using the one on {}.",
                        if server.name.is_empty() { server.id.as_str() } else { server.name.as_str() }
                    );
                    self.diag(
                        Diagnostic::new(DiagnosticKind::ServerMismatch, message, Some(raw.span))
                            .with_details(vec![server.id.clone()]),
                    );
                }
                if !raw.repairs.is_empty() {
                    let names = raw.repairs.names();
                    let message =
                        format!("The call to \"{tool}\" was repaired: {}.", names.join(", "));
                    self.diag(
                        Diagnostic::new(DiagnosticKind::Repaired, message, Some(raw.span))
                            .with_details(names),
                    );
                }
                self.ordinals.insert(key, ordinal + 1);
                self.keys.push(key);
                self.ids.insert(call_id.clone());
                self.calls.push(ToolCall {
                    tool: tool.to_owned(),
                    server: server.id.clone(),
                    arguments: raw.arguments,
                    call_id,
                    span: raw.span,
                    format: raw.format,
                });
            }
        }
    }

    fn produced(&self) -> (usize, usize) {
        (self.calls.len(), self.diags.len())
    }
}

/// A state of the top-level scan that depends only on the text before `pos`.
#[derive(Debug, Clone)]
struct Checkpoint {
    pos: usize,
    state: ScanState,
    calls: usize,
    diags: usize,
    suggested: u32,
}

/// How many of the states where recent runs stopped are kept, and how far apart at least.
const RECENT_CHECKPOINTS: usize = 16;
const RECENT_SPACING: usize = 128;

/// Where a rewrite may restart from: sparse checkpoints (about one per `CHECKPOINT_INTERVAL`
/// bytes, in prose, fenced blocks, tagged elements and open braces alike) and the states where the
/// last few runs stopped (a re-render usually changes the text just before its end).
#[derive(Debug, Clone)]
struct Checkpoints {
    sparse: Vec<Checkpoint>,
    recent: VecDeque<Checkpoint>,
}

impl Checkpoints {
    fn new() -> Self {
        let start = Checkpoint {
            pos: 0,
            state: ScanState::at(0),
            calls: 0,
            diags: 0,
            suggested: 0,
        };
        Checkpoints {
            sparse: vec![start],
            recent: VecDeque::new(),
        }
    }

    fn last_sparse(&self) -> usize {
        self.sparse.last().map_or(0, |c| c.pos)
    }

    /// Whether a sparse checkpoint is due by `at` and `st` is cheap to keep.
    fn due(&self, st: &ScanState, at: usize) -> bool {
        at >= self.last_sparse() + CHECKPOINT_INTERVAL && Self::cheap(st)
    }

    /// Copying the state must stay cheap: braces are shared, but a JSON-lines call in progress
    /// may hold a lot.
    fn cheap(st: &ScanState) -> bool {
        st.group.is_none()
    }

    fn snapshot(st: &ScanState, sink: &Sink) -> Checkpoint {
        Checkpoint {
            pos: st.frontier(),
            state: st.clone(),
            calls: sink.calls.len(),
            diags: sink.diags.len(),
            suggested: sink.suggested,
        }
    }

    /// Sparse checkpoints inside a stretch `[lo, to]` the scanner crossed in one jump, where the
    /// state at every position is `state_at` that position.
    fn span(&mut self, lo: usize, to: usize, sink: &Sink, state_at: impl Fn(usize) -> ScanState) {
        let mut at = self.last_sparse() + CHECKPOINT_INTERVAL;
        while at <= to {
            let p = at.max(lo);
            if p > to {
                break;
            }
            let state = state_at(p);
            if !Self::cheap(&state) {
                return;
            }
            self.sparse.push(Checkpoint {
                pos: state.frontier(),
                state,
                calls: sink.calls.len(),
                diags: sink.diags.len(),
                suggested: sink.suggested,
            });
            at = p + CHECKPOINT_INTERVAL;
        }
    }

    /// The state where a run stopped (unless one was kept less than `RECENT_SPACING` before).
    fn stopped(&mut self, st: &ScanState, sink: &Sink) {
        let last = self
            .recent
            .back()
            .map_or(0, |c| c.pos)
            .max(self.last_sparse());
        if st.frontier() < last + RECENT_SPACING || !Self::cheap(st) {
            return;
        }
        if self.recent.len() == RECENT_CHECKPOINTS {
            self.recent.pop_front();
        }
        self.recent.push_back(Self::snapshot(st, sink));
    }

    /// Forgets the checkpoints after `changed_from` and returns the latest one left.
    fn before(&mut self, changed_from: usize) -> Option<Checkpoint> {
        while self.sparse.len() > 1 && self.sparse.last().is_some_and(|c| c.pos > changed_from) {
            self.sparse.pop();
        }
        self.recent.retain(|c| c.pos <= changed_from);
        let sparse = self.sparse.last()?;
        Some(match self.recent.back() {
            Some(r) if r.pos > sparse.pos => r.clone(),
            _ => sparse.clone(),
        })
    }
}

/// The whole parser state for one message.
#[derive(Debug, Clone)]
pub(crate) struct Engine {
    st: ScanState,
    sink: Sink,
    /// `None` for one-shot parses, which never rewind.
    checkpoints: Option<Checkpoints>,
}

impl Engine {
    /// An engine for one full parse.
    pub(crate) fn new() -> Self {
        Engine {
            st: ScanState::at(0),
            sink: Sink::default(),
            checkpoints: None,
        }
    }

    /// An engine that records checkpoints, so it can [`rewind`](Self::rewind).
    pub(crate) fn rewindable() -> Self {
        Engine {
            st: ScanState::at(0),
            sink: Sink::default(),
            checkpoints: Some(Checkpoints::new()),
        }
    }

    /// Scans `text` from where the last run stopped. `finished`: the message is complete, so
    /// nothing is waited for and open constructs are closed at its end.
    pub(crate) fn run(&mut self, text: &str, finished: bool, servers: &[ServerTools]) {
        if self.st.frontier() > text.len() {
            // The caller shortened the text without rewinding; never index past its end.
            self.rewind(text.len());
        }
        let scan = Scan {
            text,
            b: text.as_bytes(),
            end: text.len(),
            finished,
            cfg: PROSE,
            servers,
        };
        scan.run(&mut self.st, &mut self.sink, self.checkpoints.as_mut());
        if let (Some(cps), false) = (self.checkpoints.as_mut(), finished) {
            cps.stopped(&self.st, &self.sink);
        }
    }

    /// A copy to finish the message with: same state, no checkpoints (it never rewinds).
    pub(crate) fn copy_for_finish(&self) -> Engine {
        Engine {
            st: self.st.clone(),
            sink: self.sink.clone(),
            checkpoints: None,
        }
    }

    /// Forgets everything derived from text at or after byte `changed_from`, going back to the
    /// last checkpoint before it when the current state depends on that text.
    pub(crate) fn rewind(&mut self, changed_from: usize) {
        let Some(cps) = self.checkpoints.as_mut() else {
            return;
        };
        if self.st.frontier() <= changed_from {
            // Nothing decided so far looked at the changed text.
            return;
        }
        let Some(cp) = cps.before(changed_from) else {
            return;
        };
        self.st = cp.state;
        let sink = &mut self.sink;
        sink.calls.truncate(cp.calls);
        sink.keys.truncate(cp.calls);
        sink.diags.truncate(cp.diags);
        sink.suggested = cp.suggested;
        sink.ordinals.clear();
        for &k in &sink.keys {
            *sink.ordinals.entry(k).or_insert(0) += 1;
        }
        sink.ids = sink.calls.iter().map(|c| c.call_id.clone()).collect();
    }

    pub(crate) fn calls(&self) -> &[ToolCall] {
        &self.sink.calls
    }

    pub(crate) fn diagnostics(&self) -> &[Diagnostic] {
        &self.sink.diags
    }

    pub(crate) fn work(&self) -> u64 {
        self.sink.work
    }

    /// Whether a call seems to be in the middle of being written at the end of `text`.
    pub(crate) fn pending(&self, text: &str) -> bool {
        let b = text.as_bytes();
        match self.st.mode {
            Mode::Fence { lang, .. } => text.get(lang.0..lang.1).is_some_and(lang_is_read),
            Mode::Tag { .. } => true,
            Mode::Comment { .. } | Mode::Code { .. } => false,
            Mode::Prose => {
                self.st.group.is_some()
                    || self.st.frames.outermost().is_some_and(|start| {
                        let mut j = start + 1;
                        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
                            j += 1;
                        }
                        j >= b.len() || matches!(b[j], b'"' | b'\'' | b'}' | 0xe2)
                    })
            }
        }
    }

    pub(crate) fn into_output(self) -> ParseOutput {
        ParseOutput {
            calls: self.sink.calls,
            diagnostics: self.sink.diags,
        }
    }
}

/// What a step of the scanner says next.
enum Flow {
    Continue,
    /// Wait for more text (or, when finished, done).
    Stop,
}

/// Result of looking at a possible fence opening.
enum FenceOpen {
    Wait,
    No,
    Yes(Mode),
}

/// One scan over `text[..end]` with a configuration.
#[derive(Clone, Copy)]
struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    end: usize,
    finished: bool,
    cfg: Cfg,
    servers: &'a [ServerTools],
}

/// Bytes that matter inside an open brace, outside strings.
static FRAME_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'"' as usize] = true;
    t[b'`' as usize] = true;
    t[b'<' as usize] = true;
    t
};

impl<'a> Scan<'a> {
    fn run(&self, st: &mut ScanState, sink: &mut Sink, mut cps: Option<&mut Checkpoints>) {
        loop {
            let flow = match st.mode {
                Mode::Prose if st.frames.is_empty() && st.deep == 0 => {
                    self.prose(st, sink, cps.as_deref_mut())
                }
                Mode::Prose => self.frames(st, sink, cps.as_deref_mut()),
                Mode::Fence { .. } => self.fence(st, sink, cps.as_deref_mut()),
                Mode::Tag { .. } => self.tag(st, sink, cps.as_deref_mut()),
                Mode::Comment { .. } => self.comment(st, sink),
                Mode::Code { .. } => self.code(st, sink),
            };
            if let Flow::Stop = flow {
                return;
            }
        }
    }

    fn prose(&self, st: &mut ScanState, sink: &mut Sink, cps: Option<&mut Checkpoints>) -> Flow {
        let from = st.pos;
        let hit = memchr3(b'{', b'`', b'<', &self.b[from..self.end]).map(|o| from + o);
        let to = hit.unwrap_or(self.end);
        sink.work += (to - from) as u64;
        if let Some(cps) = cps {
            if st.group.is_none() {
                cps.span(from.max(st.horizon), to, sink, ScanState::at);
            }
        }
        let Some(i) = hit else {
            st.pos = self.end;
            if self.finished {
                self.end_group(st, sink);
            }
            return Flow::Stop;
        };
        st.pos = i;
        match self.b[i] {
            b'{' => {
                sink.work += 1;
                st.frames.push(i);
                st.in_string = false;
                st.pos = i + 1;
                Flow::Continue
            }
            b'`' => self.backtick(st, sink, i),
            _ => self.angle(st, sink, i),
        }
    }

    fn backtick(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Flow {
        let run = run_len(self.b, i, self.end, b'`');
        // The byte after the run decided its length.
        st.see((i + run + 1).min(self.end));
        sink.work += run as u64;
        if i + run == self.end && !self.finished {
            return Flow::Stop;
        }
        if self.cfg.fences && run >= 3 {
            match self.fence_open(st, sink, i, run) {
                FenceOpen::Wait => return Flow::Stop,
                FenceOpen::Yes(mode) => {
                    if let Mode::Fence { content, .. } = mode {
                        st.pos = content;
                    }
                    st.mode = mode;
                    return Flow::Continue;
                }
                FenceOpen::No => {}
            }
        }
        if self.cfg.inline_code {
            st.mode = Mode::Code {
                open: i,
                run,
                next: i + run,
            };
        } else {
            st.pos = i + run;
        }
        Flow::Continue
    }

    /// A run of `run` ≥ 3 backticks at `i`: does it open a fenced block?
    fn fence_open(&self, st: &mut ScanState, sink: &mut Sink, i: usize, run: usize) -> FenceOpen {
        let info_start = i + run;
        let window = self.end.min(info_start + MAX_INFO_LINE);
        let line_end = match memchr(b'\n', &self.b[info_start..window]) {
            Some(o) => info_start + o,
            None if window == self.end && !self.finished => {
                sink.work += (self.end - info_start) as u64;
                return FenceOpen::Wait;
            }
            None if window == self.end => self.end,
            None => {
                st.see(window);
                return FenceOpen::No;
            }
        };
        sink.work += (line_end - info_start) as u64;
        st.see((line_end + 1).min(self.end));
        let Some(info) = self.text.get(info_start..line_end) else {
            return FenceOpen::No;
        };
        if info.contains('`') {
            return FenceOpen::No;
        }
        let trimmed = info.trim();
        let word = trimmed.split_whitespace().next().unwrap_or("");
        if !at_line_start(self.b, i, self.cfg.floor)
            && (word.is_empty() || word.len() != trimmed.len() || !lang_is_read(word))
        {
            // Mid-line backticks open a block only as "```json" alone on the rest of the line.
            return FenceOpen::No;
        }
        let lang_start = info_start + (info.len() - info.trim_start().len());
        let content = if line_end < self.end {
            line_end + 1
        } else {
            self.end
        };
        FenceOpen::Yes(Mode::Fence {
            open: i,
            content,
            len: run,
            lang: (lang_start, lang_start + word.len()),
            next: content,
            mid_line: false,
        })
    }

    fn angle(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Flow {
        if !self.cfg.tags {
            st.pos = i + 1;
            return Flow::Continue;
        }
        match self.classify_angle(st, sink, i) {
            Angle::Wait => Flow::Stop,
            Angle::No => {
                st.pos = i + 1;
                Flow::Continue
            }
            Angle::Comment => {
                st.mode = Mode::Comment {
                    open: i,
                    next: i + 4,
                };
                st.pos = i + 4;
                Flow::Continue
            }
            Angle::Tag { tag, kind, name } => {
                if tag.self_closing {
                    let after = tag.gt + 1;
                    self.element(sink, kind, name, (i, after), (after, after));
                    st.pos = after;
                } else {
                    st.mode = Mode::Tag {
                        open: i,
                        content: tag.gt + 1,
                        kind,
                        name,
                        next: tag.gt + 1,
                    };
                    st.pos = tag.gt + 1;
                }
                Flow::Continue
            }
        }
    }

    fn classify_angle(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Angle {
        let rest = &self.b[i + 1..self.end];
        if rest.starts_with(b"!--") {
            return Angle::Comment;
        }
        if rest.len() < 3 && b"!--".starts_with(rest) && !rest.is_empty() || rest.is_empty() {
            return if self.finished {
                Angle::No
            } else {
                Angle::Wait
            };
        }
        let (lex, looked) = xml::open_tag_looked(self.b, i, self.end, &xml::is_call_tag);
        sink.work += (looked - i) as u64;
        match lex {
            Lex::Incomplete if !self.finished => Angle::Wait,
            Lex::Incomplete | Lex::No => {
                st.see(looked);
                Angle::No
            }
            Lex::Yes(tag) => {
                st.see(looked);
                match xml::tag_kind(self.b, &tag) {
                    Some((kind, name)) => Angle::Tag { tag, kind, name },
                    None => Angle::No,
                }
            }
        }
    }

    /// Inside open braces: track strings and nesting until the outermost closes.
    fn frames(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        mut cps: Option<&mut Checkpoints>,
    ) -> Flow {
        let b = self.b;
        let end = self.end;
        loop {
            if st.in_string {
                let hay = &b[st.pos..end];
                let hit = if self.cfg.fences {
                    memchr3(b'"', b'\\', b'\n', hay)
                } else {
                    memchr2(b'"', b'\\', hay)
                };
                if let Some(c) = cps.as_mut() {
                    let to = hit.map_or(end, |o| st.pos + o);
                    if c.due(st, to) {
                        c.span(st.pos.max(st.horizon), to, sink, |p| ScanState {
                            pos: p,
                            ..st.clone()
                        });
                    }
                }
                let Some(o) = hit else {
                    sink.work += hay.len() as u64;
                    st.pos = end;
                    return self.frames_at_end(st, sink);
                };
                let j = st.pos + o;
                sink.work += o as u64 + 1;
                match b[j] {
                    b'"' => {
                        st.in_string = false;
                        st.pos = j + 1;
                    }
                    b'\\' if j + 1 < end => st.pos = j + 2,
                    b'\\' => {
                        st.pos = j;
                        if !self.finished {
                            return Flow::Stop;
                        }
                        st.pos = end;
                        return self.frames_at_end(st, sink);
                    }
                    _ => {
                        // A raw newline in a string is already broken JSON; a fence on the next
                        // line means the string (and its braces) never closed. Fences come first.
                        let mut k = j + 1;
                        while k < end && k - j <= 64 && matches!(b[k], b' ' | b'\t') {
                            k += 1;
                        }
                        let run = run_len(b, k, end, b'`');
                        st.see((k + run + 1).min(end));
                        if k + run >= end && !self.finished {
                            st.pos = j;
                            return Flow::Stop;
                        }
                        if run >= 3 {
                            match self.fence_open(st, sink, k, run) {
                                FenceOpen::Wait => {
                                    st.pos = j;
                                    return Flow::Stop;
                                }
                                FenceOpen::Yes(mode) => {
                                    self.abandon(st, sink, k);
                                    if let Mode::Fence { content, .. } = mode {
                                        st.pos = content;
                                    }
                                    st.mode = mode;
                                    return Flow::Continue;
                                }
                                FenceOpen::No => {}
                            }
                        }
                        st.pos = j + 1;
                    }
                }
                continue;
            }
            let start = st.pos;
            let mut j = start;
            while j < end && !FRAME_SPECIAL[usize::from(b[j])] {
                j += 1;
            }
            sink.work += (j - start) as u64;
            if let Some(c) = cps.as_mut() {
                if c.due(st, j) {
                    c.span(start.max(st.horizon), j, sink, |p| ScanState {
                        pos: p,
                        ..st.clone()
                    });
                }
            }
            st.pos = j;
            if j >= end {
                return self.frames_at_end(st, sink);
            }
            match b[j] {
                b'{' => {
                    sink.work += 1;
                    if st.frames.len() < MAX_FRAMES {
                        st.frames.push(j);
                    } else {
                        st.deep += 1;
                    }
                    st.pos = j + 1;
                }
                b'}' => {
                    sink.work += 1;
                    st.pos = j + 1;
                    if st.deep > 0 {
                        st.deep -= 1;
                        continue;
                    }
                    let Some(start) = st.frames.pop() else {
                        return Flow::Continue;
                    };
                    let span = Span::new(start, j + 1);
                    if st.frames.is_empty() {
                        self.candidate(st, sink, span, false);
                        return Flow::Continue;
                    }
                    st.frames.add_child(span);
                }
                b'"' => {
                    sink.work += 1;
                    // Only where JSON allows a string: prose quotes inside a stray brace must not
                    // flip the string state for the rest of the reply.
                    if matches!(
                        prev_significant(b, j, self.cfg.floor),
                        Some(b'{' | b'[' | b',' | b':')
                    ) {
                        st.in_string = true;
                    }
                    st.pos = j + 1;
                }
                b'`' => {
                    let run = run_len(b, j, end, b'`');
                    sink.work += run as u64;
                    st.see((j + run + 1).min(end));
                    if self.cfg.fences && j + run == end && !self.finished {
                        // The run may still grow into a fence.
                        return Flow::Stop;
                    }
                    if self.cfg.fences && run >= 3 {
                        match self.fence_open(st, sink, j, run) {
                            FenceOpen::Wait => return Flow::Stop,
                            FenceOpen::Yes(mode) => {
                                // No JSON has a fence outside its strings: these braces were prose.
                                self.abandon(st, sink, j);
                                if let Mode::Fence { content, .. } = mode {
                                    st.pos = content;
                                }
                                st.mode = mode;
                                return Flow::Continue;
                            }
                            FenceOpen::No => {}
                        }
                    }
                    st.pos = j + run;
                }
                _ => {
                    // `<`
                    if !self.cfg.tags {
                        st.pos = j + 1;
                        continue;
                    }
                    match self.classify_angle(st, sink, j) {
                        Angle::Wait => return Flow::Stop,
                        Angle::No => st.pos = j + 1,
                        Angle::Comment | Angle::Tag { .. } => {
                            // No JSON has a tag outside its strings: these braces were prose.
                            self.abandon(st, sink, j);
                            st.pos = j;
                            return self.angle(st, sink, j);
                        }
                    }
                }
            }
        }
    }

    /// The text ran out inside open braces.
    fn frames_at_end(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        if !self.finished {
            return Flow::Stop;
        }
        if st.frames.len() == 1 && st.deep == 0 && !st.in_string && self.cfg.at_message_end {
            if let Some(start) = st.frames.outermost() {
                if self.candidate(st, sink, Span::new(start, self.end), true) {
                    st.frames = Frames::default();
                    return Flow::Continue;
                }
            }
        }
        self.abandon(st, sink, self.end);
        Flow::Continue
    }

    /// Open braces turned out to be prose (they never close, or a fence or tag interrupted them):
    /// the complete objects nested directly in them are the candidates.
    fn abandon(&self, st: &mut ScanState, sink: &mut Sink, at: usize) {
        let frames = st.frames.take();
        st.deep = 0;
        st.in_string = false;
        let before = sink.produced();
        for (_, children) in &frames {
            for &child in children {
                self.candidate(st, sink, child, false);
            }
        }
        // The first open brace that starts like a JSON object is the call that never closed.
        let json_like = frames.iter().map(|f| f.0).find(|&start| {
            self.b[start + 1..at]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .is_some_and(|c| matches!(c, b'"' | b'\'' | 0xe2))
        });
        if let (Some(outer), true) = (json_like, sink.produced() == before) {
            let region = &self.b[outer..at];
            sink.work += region.len() as u64;
            if looks_like_call(region) {
                let (kind, message) = if at == self.end && self.cfg.at_message_end {
                    (
                        DiagnosticKind::IncompleteCall,
                        "A tool call is cut off at the end of the message, so it was not run.",
                    )
                } else {
                    (
                        DiagnosticKind::InvalidJson,
                        "A tool call's braces never balance, so it could not be read.",
                    )
                };
                sink.note(kind, message.to_owned(), Span::new(outer, at));
            }
        }
    }

    /// Reads one candidate object. Returns whether it parsed as JSON (and so was dealt with).
    fn candidate(&self, st: &mut ScanState, sink: &mut Sink, span: Span, at_end: bool) -> bool {
        let Some(src) = self.text.get(span.start..span.end) else {
            return false;
        };
        sink.work += src.len() as u64;
        match json::read_value(src, span.start, at_end) {
            Ok((value, repairs)) => {
                self.value(st, sink, value, span, repairs.union(self.cfg.extra));
                true
            }
            Err(e) => {
                if !at_end && (self.cfg.ctx == Ctx::Tag || looks_like_call(src.as_bytes())) {
                    sink.note(
                        DiagnosticKind::InvalidJson,
                        format!("This looks like a tool call but is not valid JSON, even after repairs: {e}."),
                        span,
                    );
                }
                false
            }
        }
    }

    fn value(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        value: Value,
        span: Span,
        repairs: Repairs,
    ) {
        match interpret::interpret(value, span, repairs) {
            Shape::NotACall => {
                if self.cfg.ctx == Ctx::Tag {
                    sink.note(
                        DiagnosticKind::InvalidCall,
                        "A tool-call element holds JSON that names no tool.".to_owned(),
                        span,
                    );
                }
            }
            Shape::Calls(calls) => {
                for call in calls {
                    match call {
                        Ok(raw) => sink.emit(raw, self.servers),
                        Err(message) => sink.note(DiagnosticKind::InvalidCall, message, span),
                    }
                }
            }
            Shape::Event(event) => self.line_event(st, sink, event, span, repairs),
        }
    }

    fn line_event(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        event: LineEvent,
        span: Span,
        repairs: Repairs,
    ) {
        match event {
            LineEvent::Start { name, call_id } => {
                self.end_group(st, sink);
                st.group = Some(Box::new(Group {
                    start: span.start,
                    last_end: span.end,
                    name,
                    call_id,
                    params: Map::new(),
                    repairs,
                }));
            }
            LineEvent::Description => {
                if let Some(g) = st.group.as_mut() {
                    g.last_end = span.end;
                }
            }
            LineEvent::Parameter { key, value } => match (st.group.as_mut(), key) {
                (Some(g), Some(key)) => {
                    g.params.insert(key, value);
                    g.last_end = span.end;
                    g.repairs.insert(repairs);
                }
                (Some(_), None) => sink.note(
                    DiagnosticKind::InvalidCall,
                    "A JSON-lines parameter has no \"key\".".to_owned(),
                    span,
                ),
                (None, _) => sink.note(
                    DiagnosticKind::InvalidCall,
                    "A JSON-lines parameter comes before any function_call_start.".to_owned(),
                    span,
                ),
            },
            LineEvent::End { call_id } => {
                let Some(g) = st.group.take() else {
                    sink.note(
                        DiagnosticKind::InvalidCall,
                        "A function_call_end comes without its function_call_start.".to_owned(),
                        span,
                    );
                    return;
                };
                let whole = Span::new(g.start, span.end);
                if let (Some(a), Some(b)) = (&g.call_id, &call_id) {
                    if a != b {
                        sink.note(
                            DiagnosticKind::InvalidCall,
                            format!("A JSON-lines call started as call_id {a} but ended as call_id {b}."),
                            whole,
                        );
                        return;
                    }
                }
                let Some(name) = g.name.filter(|n| !n.trim().is_empty()) else {
                    sink.note(
                        DiagnosticKind::InvalidCall,
                        "A JSON-lines call has no \"name\".".to_owned(),
                        whole,
                    );
                    return;
                };
                sink.emit(
                    RawCall {
                        name: name.trim().to_owned(),
                        server: None,
                        arguments: Value::Object(g.params),
                        id: g.call_id.or(call_id),
                        format: super::CallFormat::JsonLines,
                        span: whole,
                        repairs: g.repairs.union(repairs),
                    },
                    self.servers,
                );
            }
        }
    }

    /// A JSON-lines call still open where this scan's text ends.
    fn end_group(&self, st: &mut ScanState, sink: &mut Sink) {
        if let Some(g) = st.group.take() {
            sink.note(
                DiagnosticKind::IncompleteCall,
                format!(
                    "The JSON-lines call to \"{}\" has no function_call_end, so it was not run.",
                    g.name.as_deref().unwrap_or("?")
                ),
                Span::new(g.start, g.last_end),
            );
        }
    }

    fn fence(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        mut cps: Option<&mut Checkpoints>,
    ) -> Flow {
        let Mode::Fence {
            open,
            content,
            len,
            lang,
            mut next,
            mut mid_line,
        } = st.mode
        else {
            return Flow::Continue;
        };
        let b = self.b;
        let end = self.end;
        loop {
            if mid_line {
                let newline = memchr(b'\n', &b[next..end]);
                if let Some(c) = cps.as_mut() {
                    let to = newline.map_or(end, |o| next + o);
                    if c.due(st, to) {
                        let at = |p: usize| ScanState {
                            mode: Mode::Fence {
                                open,
                                content,
                                len,
                                lang,
                                next: p,
                                mid_line: true,
                            },
                            ..st.clone()
                        };
                        c.span(next.max(st.horizon), to, sink, at);
                    }
                }
                match newline {
                    Some(o) => {
                        sink.work += o as u64 + 1;
                        next += o + 1;
                        mid_line = false;
                    }
                    None => {
                        sink.work += (end - next) as u64;
                        next = end;
                        break;
                    }
                }
            }
            if next >= end {
                break;
            }
            // A closing fence: blanks, at least `len` backticks, blanks, end of line.
            let mut k = next;
            while k < end && k - next < 64 && matches!(b[k], b' ' | b'\t') {
                k += 1;
            }
            let run = run_len(b, k, end.min(k + 64), b'`');
            let mut m = k + run;
            while m < end && matches!(b[m], b' ' | b'\t' | b'\r') && m - k < 128 {
                m += 1;
            }
            sink.work += (m - next) as u64;
            if m >= end {
                if !self.finished {
                    // The line may still become a closing fence.
                    st.mode = Mode::Fence {
                        open,
                        content,
                        len,
                        lang,
                        next,
                        mid_line: false,
                    };
                    return Flow::Stop;
                }
                if run >= len {
                    self.block(sink, content, next, lang, true);
                    st.mode = Mode::Prose;
                    st.pos = end;
                    return Flow::Continue;
                }
                next = end;
                break;
            }
            if run >= len && b[m] == b'\n' {
                self.block(sink, content, next, lang, true);
                st.mode = Mode::Prose;
                st.pos = m + 1;
                st.see(m + 1);
                return Flow::Continue;
            }
            // Not a closing fence; `b[m]` was looked at, so the search resumes after it.
            mid_line = b[m] != b'\n';
            next = m + 1;
        }
        if !self.finished {
            st.mode = Mode::Fence {
                open,
                content,
                len,
                lang,
                next,
                mid_line,
            };
            return Flow::Stop;
        }
        self.block(sink, content, end, lang, false);
        st.mode = Mode::Prose;
        st.pos = end;
        Flow::Continue
    }

    /// The content of a fenced block: read for calls unless it is a code example.
    fn block(&self, sink: &mut Sink, start: usize, end: usize, lang: (usize, usize), closed: bool) {
        let lang_text = self.text.get(lang.0..lang.1).unwrap_or("");
        if !lang_is_read(lang_text) {
            let region = &self.b[start..end];
            sink.work += region.len() as u64;
            if looks_like_call(region)
                && (memchr2(b'{', b'<', region).is_some())
                && has_call_key(region)
            {
                sink.note(
                    DiagnosticKind::IgnoredCall,
                    format!("A ```{lang_text} code block is an example, not a tool call; it was not run."),
                    Span::new(start, end),
                );
            }
            return;
        }
        let cfg = Cfg {
            fences: false,
            tags: true,
            inline_code: false,
            ctx: Ctx::Block,
            at_message_end: !closed && self.cfg.at_message_end,
            extra: if closed {
                self.cfg.extra
            } else {
                self.cfg.extra.union(Repairs::MISSING_CLOSING_FENCE)
            },
            floor: start,
        };
        self.sub_scan(sink, start, end, cfg);
    }

    /// Scans `[start, end)` to completion with its own braces and JSON-lines state.
    fn sub_scan(&self, sink: &mut Sink, start: usize, end: usize, cfg: Cfg) {
        let scan = Scan {
            end,
            finished: true,
            cfg,
            ..*self
        };
        let mut st = ScanState::at(start);
        scan.run(&mut st, sink, None);
    }

    fn tag(&self, st: &mut ScanState, sink: &mut Sink, mut cps: Option<&mut Checkpoints>) -> Flow {
        let Mode::Tag {
            open,
            content,
            kind,
            name,
            mut next,
        } = st.mode
        else {
            return Flow::Continue;
        };
        let local = xml::TAGS[name].0.as_bytes();
        let b = self.b;
        loop {
            let lt = memchr(b'<', &b[next..self.end]);
            if let Some(c) = cps.as_mut() {
                let to = lt.map_or(self.end, |o| next + o);
                if c.due(st, to) {
                    let at = |p: usize| ScanState {
                        mode: Mode::Tag {
                            open,
                            content,
                            kind,
                            name,
                            next: p,
                        },
                        ..st.clone()
                    };
                    c.span(next.max(st.horizon), to, sink, at);
                }
            }
            match lt {
                None => {
                    sink.work += (self.end - next) as u64;
                    next = self.end;
                    break;
                }
                Some(o) => {
                    let k = next + o;
                    sink.work += o as u64 + 1;
                    match xml::closing_tag(b, k, self.end, local) {
                        Lex::Yes(after) => {
                            sink.work += (after - k) as u64;
                            st.mode = Mode::Prose;
                            st.pos = after;
                            st.see(after);
                            self.element(sink, kind, name, (open, after), (content, k));
                            return Flow::Continue;
                        }
                        Lex::Incomplete if !self.finished => {
                            next = k;
                            break;
                        }
                        Lex::Incomplete | Lex::No => {
                            // The lexer may have looked this far before saying no.
                            st.see((k + xml::MAX_CLOSING_TAG).min(self.end));
                            next = k + 1;
                        }
                    }
                }
            }
        }
        if !self.finished {
            st.mode = Mode::Tag {
                open,
                content,
                kind,
                name,
                next,
            };
            return Flow::Stop;
        }
        // The message ended with the element open: the opening tag was prose after all (a model
        // naming the tag, or one that stopped early). What follows it is scanned like any text,
        // so a complete call inside is still found by the other layers.
        if kind == TagKind::Invoke && memmem::find(&self.b[open..content], b"name=").is_some() {
            sink.note(
                DiagnosticKind::IncompleteCall,
                "An <invoke> element never closes, so it was not run.".to_owned(),
                Span::new(open, self.end),
            );
        }
        st.mode = Mode::Prose;
        st.pos = content;
        Flow::Continue
    }

    /// A complete tagged element: `<invoke>` elements when it has them, else JSON call objects.
    fn element(
        &self,
        sink: &mut Sink,
        kind: TagKind,
        name: usize,
        element: (usize, usize),
        content: (usize, usize),
    ) {
        let before = sink.produced();
        sink.work += (content.1 - content.0) as u64;
        let xml_region = match kind {
            TagKind::Invoke => Some(element),
            _ if xml::has_invoke(self.b, content.0, content.1) => Some(content),
            _ => None,
        };
        match xml_region {
            Some((from, to)) => {
                for item in xml::invokes(self.text, from, to, self.cfg.extra) {
                    match item {
                        XmlItem::Call(raw) => sink.emit(raw, self.servers),
                        XmlItem::Invalid { span, message } => {
                            sink.note(DiagnosticKind::InvalidCall, message, span)
                        }
                        XmlItem::Incomplete { span } => sink.note(
                            DiagnosticKind::IncompleteCall,
                            "An <invoke> element never closes, so it was not run.".to_owned(),
                            span,
                        ),
                    }
                }
            }
            None => {
                let cfg = Cfg {
                    fences: true,
                    tags: false,
                    inline_code: false,
                    ctx: Ctx::Tag,
                    at_message_end: false,
                    extra: self.cfg.extra,
                    floor: content.0,
                };
                self.sub_scan(sink, content.0, content.1, cfg);
            }
        }
        if sink.produced() == before {
            let tag = xml::TAGS[name].0;
            sink.note(
                DiagnosticKind::InvalidCall,
                format!("The <{tag}> element holds no tool call."),
                Span::new(element.0, element.1),
            );
        }
    }

    fn comment(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        let Mode::Comment { open, next } = st.mode else {
            return Flow::Continue;
        };
        let (body_end, after) = match memmem::find(&self.b[next..self.end], b"-->") {
            Some(o) => {
                sink.work += o as u64 + 3;
                (next + o, next + o + 3)
            }
            None => {
                sink.work += (self.end - next) as u64;
                if !self.finished {
                    // Keep the last two bytes: they may begin the "-->".
                    st.mode = Mode::Comment {
                        open,
                        next: self.end.saturating_sub(2).max(open + 4),
                    };
                    return Flow::Stop;
                }
                // Never closed: not a comment (a renderer would have shown it), so its text is
                // scanned like any other.
                st.mode = Mode::Prose;
                st.pos = open + 4;
                return Flow::Continue;
            }
        };
        let body = &self.b[(open + 4).min(body_end)..body_end];
        if has_call_key(body) && memchr2(b'{', b'<', body).is_some() {
            sink.note(
                DiagnosticKind::IgnoredCall,
                "A tool call inside an HTML comment is hidden from the reader; it was not run."
                    .to_owned(),
                Span::new(open, after),
            );
        }
        st.mode = Mode::Prose;
        st.pos = after;
        st.see(after);
        Flow::Continue
    }

    /// A backtick run that is not a fence: find the matching run on the same line.
    fn code(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        let Mode::Code {
            open,
            run,
            mut next,
        } = st.mode
        else {
            return Flow::Continue;
        };
        let b = self.b;
        let limit = self.end.min(open + run + MAX_INLINE_CODE);
        loop {
            match memchr2(b'`', b'\n', &b[next..limit]) {
                None => {
                    sink.work += (limit - next) as u64;
                    if limit == self.end && !self.finished {
                        st.mode = Mode::Code {
                            open,
                            run,
                            next: limit,
                        };
                        return Flow::Stop;
                    }
                    st.see(limit);
                    break;
                }
                Some(o) => {
                    let k = next + o;
                    sink.work += o as u64 + 1;
                    if b[k] == b'\n' {
                        st.see(k + 1);
                        break;
                    }
                    let r = run_len(b, k, self.end, b'`');
                    st.see((k + r + 1).min(self.end));
                    if k + r == self.end && !self.finished {
                        st.mode = Mode::Code { open, run, next: k };
                        return Flow::Stop;
                    }
                    if r == run {
                        let body = &b[open + run..k];
                        if memchr(b'{', body).is_some() && has_call_key(body) {
                            sink.note(
                                DiagnosticKind::IgnoredCall,
                                "A tool call written as inline code is quoted, not made; it was not run.".to_owned(),
                                Span::new(open, k + r),
                            );
                        }
                        st.mode = Mode::Prose;
                        st.pos = k + r;
                        st.see(k + r);
                        return Flow::Continue;
                    }
                    next = k + r;
                    if next >= limit {
                        st.see(next);
                        break;
                    }
                }
            }
        }
        // Not a code span: the backticks are literal.
        st.mode = Mode::Prose;
        st.pos = open + run;
        Flow::Continue
    }
}

/// The outcome of a `<`.
enum Angle {
    Wait,
    No,
    Comment,
    Tag {
        tag: xml::OpenTag,
        kind: TagKind,
        name: usize,
    },
}

/// Whether quoted text names a call's tool field (`"tool"`, `"tool_name"`, `"name"` next to
/// `"arguments"`, `<invoke`): stricter than [`looks_like_call`], for text we deliberately skip.
fn has_call_key(b: &[u8]) -> bool {
    memmem::find(b, b"\"tool\"").is_some()
        || memmem::find(b, b"\"tool_name\"").is_some()
        || memmem::find(b, b"invoke").is_some()
        || (memmem::find(b, b"\"name\"").is_some() && memmem::find(b, b"\"arguments\"").is_some())
        || memmem::find(b, "“tool”".as_bytes()).is_some()
        || memmem::find(b, b"'tool'").is_some()
}
