//! The parser of one message: a resumable left-to-right scan (`scan`) over its state (`state`),
//! its output (`sink`) and, when streaming, its checkpoints (`checkpoints`).
//!
//! State is explicit (`ScanState`): the position, what construct the scanner is inside (prose, a
//! fenced block, a tagged element, an HTML comment, a possible inline code span), the stack of open
//! braces with the complete objects nested in each, and the JSON-lines call being assembled. When
//! a decision needs text that has not arrived yet (the rest of a fence's info line, the end of a
//! tag's name, the byte after a backslash), the scanner stops *before* it and resumes there later;
//! searches that may run long (for a closing fence, tag or backtick) remember how far they got,
//! and failed ones what they proved absent, so no byte is searched again by the next opener of
//! the same kind. So feeding a text in pieces does the same work as feeding it at once, plus the
//! bounded look-aheads it had to repeat, and takes the same decisions; and either is linear in
//! the text, whatever it holds.
//!
//! The streaming parser records checkpoints (about one per 4 KB, and where recent runs stopped);
//! a rewrite of the text restarts from the last checkpoint before the first changed byte.

use super::checkpoints::Checkpoints;
use super::scan::{lang_is_read, Scan, PROSE};
use super::sink::Sink;
use super::state::{Mode, ScanState};
use super::tooltag::ToolTagIndex;
use super::{Diagnostic, ParseOutput, ToolCall};
use crate::model::ServerTools;

/// The whole parser state for one message.
#[derive(Debug, Clone)]
pub(crate) struct Engine {
    st: ScanState,
    sink: Sink,
    /// `None` for one-shot parses, which never rewind.
    checkpoints: Option<Checkpoints>,
    /// The selected tools' names as tags, indexed when a reply first needs them.
    tags: ToolTagIndex,
    /// Whether the states where runs stop are kept as checkpoints: only a rewrite near the end
    /// of the text uses them, and a text that only grows is never rewritten.
    keep_stops: bool,
}

impl Engine {
    /// An engine for one full parse, with the tool-name index `tags` (shared, built or not).
    pub(crate) fn new(tags: ToolTagIndex) -> Self {
        Engine {
            st: ScanState::at(0),
            sink: Sink::default(),
            checkpoints: None,
            tags,
            keep_stops: false,
        }
    }

    /// An engine that records checkpoints, so it can [`rewind`](Self::rewind).
    pub(crate) fn rewindable(tags: ToolTagIndex) -> Self {
        Engine {
            checkpoints: Some(Checkpoints::new()),
            ..Engine::new(tags)
        }
    }

    /// From now on, keep the states where runs stop as checkpoints too (the text may be
    /// rewritten near its end); until then only the sparse ones are kept.
    pub(crate) fn keep_stops(&mut self) {
        self.keep_stops = true;
    }

    /// Scans `text` from where the last run stopped. `finished`: the message is complete, so
    /// nothing is waited for and open constructs are closed at its end.
    pub(crate) fn run(&mut self, text: &str, finished: bool, servers: &[ServerTools]) {
        if self.st.frontier() > text.len() {
            // The caller shortened the text without rewinding; never index past its end.
            self.rewind(text.len());
        }
        self.tags.use_servers(servers);
        let scan = Scan {
            text,
            b: text.as_bytes(),
            end: text.len(),
            finished,
            cfg: PROSE,
            servers,
            tags: &self.tags,
        };
        scan.run(&mut self.st, &mut self.sink, self.checkpoints.as_mut());
        if let (Some(cps), false, true) = (self.checkpoints.as_mut(), finished, self.keep_stops) {
            cps.stopped(&self.st, &self.sink);
        }
    }

    /// A copy to finish the message with: same state, no checkpoints (it never rewinds).
    pub(crate) fn copy_for_finish(&self) -> Engine {
        Engine {
            st: self.st.clone(),
            sink: self.sink.clone(),
            checkpoints: None,
            tags: self.tags.clone(),
            keep_stops: false,
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
                    || self.st.tool_tag.is_some()
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
