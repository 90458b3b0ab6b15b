//! Prose: finds the next byte that may start a construct (`{`, a backtick, `<`) and decides what
//! it opens.

use memchr::memchr3;

use super::super::checkpoints::Checkpoints;
use super::super::sink::Sink;
use super::super::state::{Mode, ScanState, TagClosers};
use super::super::text::run_len;
use super::super::xml::{self, Lex, TagKind};
use super::fence::FenceOpen;
use super::tooltag::Opened;
use super::{Flow, Scan};

impl Scan<'_> {
    pub(crate) fn prose(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        cps: Option<&mut Checkpoints>,
    ) -> Flow {
        let from = st.pos;
        let hit = memchr3(b'{', b'`', b'<', &self.b[from..self.end]).map(|o| from + o);
        let to = hit.unwrap_or(self.end);
        sink.work += (to - from) as u64;
        if let Some(cps) = cps {
            cps.span(from.max(st.horizon), to, sink, |p| ScanState {
                pos: p,
                horizon: p,
                ..st.clone()
            });
        }
        let Some(i) = hit else {
            st.pos = self.end;
            if self.finished {
                self.end_group(st, sink);
                st.tool_tag = None;
            }
            return Flow::Stop;
        };
        st.pos = i;
        if st.tool_tag.is_some() {
            self.tool_tag_next(st, sink, i);
        }
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

    pub(crate) fn backtick(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Flow {
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

    pub(crate) fn angle(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Flow {
        if !self.cfg.tags {
            st.pos = i + 1;
            return Flow::Continue;
        }
        match self.classify_angle(st, sink, i) {
            Angle::Wait => Flow::Stop,
            Angle::No => match self.tool_tag_open(st, sink, i) {
                Opened::Wait => Flow::Stop,
                Opened::Yes => Flow::Continue,
                Opened::No => {
                    st.pos = i + 1;
                    Flow::Continue
                }
            },
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
                    st.tag_closers = TagClosers::NONE;
                    st.pos = tag.gt + 1;
                }
                Flow::Continue
            }
        }
    }

    pub(crate) fn classify_angle(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Angle {
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
        // Ruling out `<!--` read up to three bytes after the `<`, whatever the tag lexer reads.
        st.see((i + 4).min(self.end));
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
}

/// The outcome of a `<`.
pub(crate) enum Angle {
    Wait,
    No,
    Comment,
    Tag {
        tag: xml::OpenTag,
        kind: TagKind,
        name: usize,
    },
}
