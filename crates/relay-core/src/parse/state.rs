//! The scanner's state: where it is, what construct it is inside, and what it has proved.
//!
//! Everything the scan decides depends only on a [`ScanState`] and the text, so a state copied at
//! a clean point is a checkpoint, and a state kept between runs resumes the scan exactly.

use serde_json::{Map, Value};

use super::frames::Frames;
use super::json::Repairs;
use super::xml::TagKind;

/// Where candidates come from; decides which failures are worth a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    Prose,
    Block,
    Tag,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Cfg {
    pub(crate) fences: bool,
    pub(crate) tags: bool,
    pub(crate) inline_code: bool,
    pub(crate) ctx: Ctx,
    /// The end of this scan's text is the end of the finished message.
    pub(crate) at_message_end: bool,
    /// Repairs implied by the container (a fenced block that never closed).
    pub(crate) extra: Repairs,
    /// Start of this scan's text: look-backs stop here.
    pub(crate) floor: usize,
}

pub(crate) const PROSE: Cfg = Cfg {
    fences: true,
    tags: true,
    inline_code: true,
    ctx: Ctx::Prose,
    at_message_end: true,
    extra: Repairs::NONE,
    floor: 0,
};

#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
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

/// A JSON-lines call being assembled.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) start: usize,
    pub(crate) last_end: usize,
    pub(crate) name: Option<String>,
    pub(crate) call_id: Option<String>,
    pub(crate) params: Map<String, Value>,
    pub(crate) repairs: Repairs,
}

#[derive(Debug, Clone)]
pub(crate) struct ScanState {
    pub(crate) pos: usize,
    /// Everything before this index has been looked at; checkpoints must not precede it.
    pub(crate) horizon: usize,
    pub(crate) mode: Mode,
    pub(crate) frames: Frames,
    /// Open braces beyond `MAX_FRAMES`.
    pub(crate) deep: usize,
    pub(crate) in_string: bool,
    /// Boxed: it is rare, and the state is copied for every checkpoint.
    pub(crate) group: Option<Box<Group>>,
}

impl ScanState {
    pub(crate) fn at(pos: usize) -> Self {
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

    pub(crate) fn see(&mut self, upto: usize) {
        self.horizon = self.horizon.max(upto);
    }

    /// How much of the text the state depends on.
    pub(crate) fn frontier(&self) -> usize {
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
