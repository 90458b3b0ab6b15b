//! The scanner proper: one [`Scan`] over a text and a configuration, driving one scanner per
//! construct (`prose`, `braces`, `fence`, `tag`, `tooltag`, `comment`, `code`) and reading the candidates
//! they find (`candidate`).

mod braces;
mod candidate;
mod code;
mod comment;
mod fence;
mod prose;
mod tag;
mod tooltag;

use memchr::memmem;

use super::checkpoints::Checkpoints;
use super::sink::Sink;
use super::state::{Absent, Cfg, Mode, ScanState};
use super::tooltag::ToolTagIndex;

pub(crate) use super::state::PROSE;
use crate::model::ServerTools;

pub(crate) use code::CodeMemo;
pub(crate) use fence::lang_is_read;

/// What a step of the scanner says next.
pub(crate) enum Flow {
    Continue,
    /// Wait for more text (or, when finished, done).
    Stop,
}

/// One scan over `text[..end]` with a configuration.
#[derive(Clone, Copy)]
pub(crate) struct Scan<'a> {
    pub(crate) text: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) end: usize,
    pub(crate) finished: bool,
    pub(crate) cfg: Cfg,
    pub(crate) servers: &'a [ServerTools],
    /// The servers' tool names as tags (`tooltag`).
    pub(crate) tags: &'a ToolTagIndex,
}

impl<'a> Scan<'a> {
    pub(crate) fn run(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        mut cps: Option<&mut Checkpoints>,
    ) {
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

    /// Scans `[start, end)` to completion with its own braces and JSON-lines state. `absent`:
    /// what the enclosing scan proved (used only if it is about the same end: an open block's
    /// content is searched for closers that the text after its fence was already searched for).
    pub(crate) fn sub_scan(
        &self,
        sink: &mut Sink,
        start: usize,
        end: usize,
        cfg: Cfg,
        absent: Absent,
    ) {
        let scan = Scan {
            end,
            finished: true,
            cfg,
            ..*self
        };
        let mut st = ScanState::at(start);
        st.absent = absent;
        scan.run(&mut st, sink, None);
    }
}

/// Whether quoted text names a call's tool field (`"tool"`, `"tool_name"`, `"name"` next to
/// `"arguments"`, `<invoke`): stricter than [`looks_like_call`], for text we deliberately skip.
pub(crate) fn has_call_key(b: &[u8]) -> bool {
    memmem::find(b, b"\"tool\"").is_some()
        || memmem::find(b, b"\"tool_name\"").is_some()
        || memmem::find(b, b"invoke").is_some()
        || (memmem::find(b, b"\"name\"").is_some() && memmem::find(b, b"\"arguments\"").is_some())
        || memmem::find(b, "“tool”".as_bytes()).is_some()
        || memmem::find(b, b"'tool'").is_some()
}
