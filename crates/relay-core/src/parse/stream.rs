//! Parsing a reply while it is being written.
//!
//! A content script sees a message grow (and sometimes re-rendered); it hands the parser the whole
//! text each time ([`StreamParser::push`]) or only what was added ([`StreamParser::append`]). The
//! parser reports each call once, as soon as it is complete, and never again, even when a
//! re-render makes it rescan that part of the text. A reported call is final: if a re-render
//! later removes it from the text, it is not taken back (it may already be running).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::engine::Engine;
use super::tooltag::ToolTagIndex;
use super::{Diagnostic, DiagnosticKind, ParseOutput, Span, ToolCall};
use crate::model::ServerTools;

/// What changed with one step of the stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StreamUpdate {
    /// Calls completed by this step, never reported before.
    pub calls: Vec<ToolCall>,
    /// A call seems to be in the middle of being written (for the UI's "writing a call…").
    pub pending: bool,
    /// Diagnostics new with this step.
    pub diagnostics: Vec<Diagnostic>,
}

/// The streaming parser of one message.
///
/// Work is linear in the length of the message however it is split: the scanner keeps its state
/// between steps and only repeats bounded look-aheads. A rewrite (`push` with text that differs
/// from what it had before its end) restarts from the last checkpoint before the first changed
/// byte; comparing the old and new text for that is a `memcmp` of their common length per call.
#[derive(Debug, Clone)]
pub struct StreamParser {
    servers: Rc<[ServerTools]>,
    text: String,
    /// Length of `text[..bytes]` in UTF-16 units (what a JavaScript caller counts), as
    /// `(bytes, units)`: counted on request, from where the last request stopped, so a stream
    /// whose caller never asks pays nothing per append (counting every chunk was half of a
    /// native append's instructions).
    utf16_counted: Cell<(usize, usize)>,
    engine: Engine,
    /// How many of the engine's calls and diagnostics have been looked at for reporting, and how
    /// often each diagnostic occurs among those.
    seen_calls: usize,
    seen_diags: usize,
    seen_counts: DiagCounts,
    reported: Reported,
    finished: bool,
    /// Work of the end-of-message passes, which run on a copy of the engine.
    finish_work: u64,
    compared: u64,
}

/// A diagnostic's identity for reporting it once: the same text about the same span.
type DiagKey = (DiagnosticKind, Option<Span>, String);
type DiagCounts = BTreeMap<DiagKey, usize>;

fn key(d: &Diagnostic) -> DiagKey {
    (d.kind, d.span, d.message.clone())
}

fn occurrences(diags: &[Diagnostic]) -> DiagCounts {
    let mut counts = DiagCounts::new();
    for d in diags {
        *counts.entry(key(d)).or_insert(0) += 1;
    }
    counts
}

/// Everything reported so far. A call is identified by its id; a diagnostic by its key and its
/// occurrence (one object can yield the same diagnostic twice, e.g. two bad `tool_calls` entries).
#[derive(Debug, Clone, Default)]
struct Reported {
    ids: BTreeSet<String>,
    diag_counts: DiagCounts,
    calls: Vec<ToolCall>,
    diagnostics: Vec<Diagnostic>,
}

impl Reported {
    /// Reports `calls[from_call..]` and `diags[from_diag..]` not reported yet. `counts` holds
    /// the occurrences of each diagnostic in `diags[..from_diag]` and is advanced.
    fn take(
        &mut self,
        engine: &Engine,
        from_call: usize,
        from_diag: usize,
        counts: &mut DiagCounts,
        update: &mut StreamUpdate,
    ) {
        if from_call == engine.calls().len() && from_diag == engine.diagnostics().len() {
            // Nothing new: most steps of a stream.
            return;
        }
        for call in &engine.calls()[from_call..] {
            if self.ids.insert(call.call_id.clone()) {
                self.calls.push(call.clone());
                update.calls.push(call.clone());
            }
        }
        for d in &engine.diagnostics()[from_diag..] {
            let k = key(d);
            let occurrence = counts.entry(k.clone()).or_insert(0);
            *occurrence += 1;
            let reported = self.diag_counts.entry(k).or_insert(0);
            if *occurrence > *reported {
                *reported = *occurrence;
                self.diagnostics.push(d.clone());
                update.diagnostics.push(d.clone());
            }
        }
    }
}

impl StreamParser {
    /// A parser for one message, resolving calls against the selected servers' tools (a
    /// `Vec<ServerTools>`, or an `Rc<[ServerTools]>` shared by the parsers of several messages).
    pub fn new(servers: impl Into<Rc<[ServerTools]>>) -> Self {
        StreamParser::with_tags(servers.into(), ToolTagIndex::default())
    }

    /// A parser whose tool-name index is shared with others (`super::SelectedTools`).
    pub(crate) fn with_tags(servers: Rc<[ServerTools]>, tags: ToolTagIndex) -> Self {
        StreamParser {
            servers,
            text: String::new(),
            utf16_counted: Cell::new((0, 0)),
            engine: Engine::rewindable(tags),
            seen_calls: 0,
            seen_diags: 0,
            seen_counts: DiagCounts::new(),
            reported: Reported::default(),
            finished: false,
            finish_work: 0,
            compared: 0,
        }
    }

    /// The message's whole text so far. Usually it extends the previous text; when it does not
    /// (the site re-rendered), parsing restarts from a checkpoint before the first difference.
    pub fn push(&mut self, full_text_so_far: &str) -> StreamUpdate {
        // A text given whole may be a re-render that changed its end: keep where runs stop.
        self.engine.keep_stops();
        let old = self.text.as_bytes();
        let new = full_text_so_far.as_bytes();
        let common = common_prefix(old, new);
        self.compared += common as u64;
        if common < old.len() {
            // Both texts are UTF-8 and agree before `common`, so a boundary of one is one of the other.
            let mut cut = common;
            while !full_text_so_far.is_char_boundary(cut) {
                cut -= 1;
            }
            self.engine.rewind(cut);
            self.text.truncate(cut);
            if self.utf16_counted.get().0 > cut {
                self.utf16_counted.set((0, 0));
            }
            // The rewind may have dropped calls and diagnostics already looked at: they come
            // back and are filtered; the occurrences among the kept diagnostics are recounted.
            self.seen_calls = self.seen_calls.min(self.engine.calls().len());
            if self.seen_diags > self.engine.diagnostics().len() {
                self.seen_diags = self.engine.diagnostics().len();
                self.seen_counts = occurrences(self.engine.diagnostics());
            }
        }
        let have = self.text.len();
        self.text.push_str(&full_text_so_far[have..]);
        self.update()
    }

    /// Text appended to the message.
    pub fn append(&mut self, chunk: &str) -> StreamUpdate {
        self.text.push_str(chunk);
        self.update()
    }

    /// Length of the text in UTF-16 units, as JavaScript counts a string's length.
    pub fn utf16_len(&self) -> usize {
        let (bytes, units) = self.utf16_counted.get();
        let units = units + utf16_len(&self.text.as_bytes()[bytes..]);
        self.utf16_counted.set((self.text.len(), units));
        units
    }

    /// The message is complete: open blocks are closed at its end, and what they hold is
    /// reported. Later `push`/`append` calls are still accepted (sites re-render finished
    /// messages); they are parsed as complete messages too.
    pub fn finish(&mut self) -> StreamUpdate {
        self.finished = true;
        self.update()
    }

    /// Every call reported so far, in the order reported (each with the span it had then).
    pub fn calls(&self) -> &[ToolCall] {
        &self.reported.calls
    }

    /// Every diagnostic reported so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.reported.diagnostics
    }

    /// What was reported so far, as one [`ParseOutput`].
    pub fn output(&self) -> ParseOutput {
        ParseOutput {
            calls: self.reported.calls.clone(),
            diagnostics: self.reported.diagnostics.clone(),
        }
    }

    /// The text as the parser has it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Bytes inspected by the parser so far (scanning and reading candidates), comparable with
    /// [`full_parse_work`](super::full_parse_work). Excludes [`compared`](Self::compared).
    pub fn work(&self) -> u64 {
        self.engine.work() + self.finish_work
    }

    /// Bytes compared by `push` to find what changed.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// The calls and diagnostics the parser holds for its text (a finished copy's, once the
    /// message is finished): what later steps build on, reported or not.
    #[cfg(test)]
    pub(crate) fn held(&self) -> (Vec<ToolCall>, Vec<Diagnostic>) {
        let mut engine = self.engine.copy_for_finish();
        if self.finished {
            engine.run(&self.text, true, &self.servers);
        }
        (engine.calls().to_vec(), engine.diagnostics().to_vec())
    }

    fn update(&mut self) -> StreamUpdate {
        self.engine.run(&self.text, false, &self.servers);
        let mut update = StreamUpdate::default();
        let (calls, diags) = (self.engine.calls().len(), self.engine.diagnostics().len());
        // `push` rewinds before running; this only guards the slices below.
        self.seen_calls = self.seen_calls.min(calls);
        if self.seen_diags > diags {
            self.seen_diags = diags;
            self.seen_counts = occurrences(self.engine.diagnostics());
        }
        if self.seen_calls < calls || self.seen_diags < diags {
            // Checked here, not only in `take`: most steps find nothing new, and `take` is not
            // inlined (its call alone cost ~40 instructions a step).
            self.reported.take(
                &self.engine,
                self.seen_calls,
                self.seen_diags,
                &mut self.seen_counts,
                &mut update,
            );
        }
        self.seen_calls = calls;
        self.seen_diags = diags;
        if self.finished {
            let mut at_end = self.engine.copy_for_finish();
            let before = at_end.work();
            at_end.run(&self.text, true, &self.servers);
            self.finish_work += at_end.work() - before;
            let mut counts = self.seen_counts.clone();
            self.reported
                .take(&at_end, calls, diags, &mut counts, &mut update);
        } else {
            update.pending = self.engine.pending(&self.text);
        }
        update
    }
}

/// UTF-16 units of UTF-8 `text`: one per byte that does not continue a character, plus one
/// more per character outside the BMP (four-byte sequences). Counted in `u8` lanes over blocks
/// of 64 bytes (at most 128 per block), which the compiler vectorises; a `usize` per byte did
/// not vectorise and cost ~9 instructions a byte.
fn utf16_len(text: &[u8]) -> usize {
    let mut blocks = text.chunks_exact(64);
    let mut n = 0;
    for block in &mut blocks {
        n += usize::from(units_in(block));
    }
    n + usize::from(units_in(blocks.remainder()))
}

fn units_in(block: &[u8]) -> u8 {
    block.iter().fold(0u8, |c, &b| {
        c + u8::from((b as i8) >= -0x40) + u8::from(b >= 0xf0)
    })
}

/// Length of the common prefix, compared in blocks so the usual case (one text extends the other)
/// runs at `memcmp` speed.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::{common_prefix, utf16_len, StreamParser};

    #[test]
    fn common_prefix_finds_the_first_difference() {
        let a = vec![7u8; 10_000];
        let mut b = a.clone();
        assert_eq!(common_prefix(&a, &b), 10_000);
        b[9_000] = 1;
        assert_eq!(common_prefix(&a, &b), 9_000);
        assert_eq!(common_prefix(&a, &b[..5]), 5);
        assert_eq!(common_prefix(b"", b"x"), 0);
    }

    #[test]
    fn utf16_len_counts_what_javascript_counts() {
        let long = "é—😀a".repeat(40); // blocks of 64 bytes cut characters anywhere
        let cases = [
            "",
            "a",
            "é",
            "😀",
            "a—b😀c",
            &"x".repeat(63),
            &"x".repeat(64),
            &"😀".repeat(64),
            &long,
        ];
        for text in cases {
            assert_eq!(
                utf16_len(text.as_bytes()),
                text.encode_utf16().count(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn utf16_len_follows_appends_and_rewrites() {
        let mut p = StreamParser::new(Vec::new());
        let mut expected = String::new();
        let steps: [(&str, bool); 6] = [
            ("héllo ", false),
            ("wörld 😀 ", false),
            ("héllo wörld 😀 again", true), // a push that extends
            ("héllo", true),                // a rewrite that shortens
            (" — ", false),
            ("héllo — 😀😀", true),
        ];
        for (i, (text, whole)) in steps.into_iter().enumerate() {
            if whole {
                p.push(text);
                expected = text.to_owned();
            } else {
                p.append(text);
                expected.push_str(text);
            }
            // Asked after some steps only: the count catches up over the steps between.
            if i % 2 == 1 || i == 5 {
                assert_eq!(p.utf16_len(), expected.encode_utf16().count(), "step {i}");
            }
        }
    }
}
