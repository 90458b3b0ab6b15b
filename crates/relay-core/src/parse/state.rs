//! The scanner's state: where it is, what construct it is inside, and what it has proved.
//!
//! Everything the scan decides depends only on a [`ScanState`] and the text, so a state copied at
//! a clean point is a checkpoint, and a state kept between runs resumes the scan exactly.

use serde_json::{Map, Value};

use std::rc::Rc;

use super::frames::Frames;
use super::json::Repairs;
use super::scan::CodeMemo;
use super::tooltag::ToolTag;
use super::xml::{self, TagKind};

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
    pub(crate) params: Params,
    pub(crate) repairs: Repairs,
}

/// The parameters of a JSON-lines call, newest first, as a persistent list: a checkpoint shares
/// them, and adding one never copies the others. (Copying them at every checkpoint would make
/// a long call quadratic; keeping no checkpoint while one is open would make every re-render
/// rescan from its start.)
#[derive(Debug, Clone, Default)]
pub(crate) struct Params(Option<Rc<Param>>);

#[derive(Debug)]
struct Param {
    key: String,
    value: Value,
    prev: Option<Rc<Param>>,
}

impl Drop for Param {
    /// Iteratively: a recursive drop of a long list would overflow the stack.
    fn drop(&mut self) {
        let mut next = self.prev.take();
        while let Some(rc) = next {
            match Rc::try_unwrap(rc) {
                Ok(mut node) => next = node.prev.take(),
                Err(_) => break,
            }
        }
    }
}

impl Params {
    pub(crate) fn push(&mut self, key: String, value: Value) {
        let prev = self.0.take();
        self.0 = Some(Rc::new(Param { key, value, prev }));
    }

    /// The parameters as an object, as if inserted in the order written: a repeated key keeps
    /// its first place and takes its last value. Keys and values are moved out of the nodes no
    /// checkpoint shares (all of them in a one-shot parse), copied from the others.
    pub(crate) fn into_map(self) -> Map<String, Value> {
        let mut newest_first: Vec<(String, Value)> = Vec::new();
        let mut node = self.0;
        while let Some(mut rc) = node {
            node = match Rc::get_mut(&mut rc) {
                Some(p) => {
                    newest_first.push((std::mem::take(&mut p.key), p.value.take()));
                    p.prev.take()
                }
                None => {
                    newest_first.push((rc.key.clone(), rc.value.clone()));
                    rc.prev.clone()
                }
            };
        }
        let mut map = Map::new();
        for (key, value) in newest_first.into_iter().rev() {
            map.insert(key, value);
        }
        map
    }
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
    /// Boxed: it is rare, and the state is copied for every checkpoint (cheaply: its parameters
    /// are shared).
    pub(crate) group: Option<Box<Group>>,
    /// Closers a finished scan proved absent from the rest of its text.
    pub(crate) absent: Absent,
    /// The closing tags of other kinds the current search for a closing tag passed.
    pub(crate) tag_closers: TagClosers,
    /// What the searches for inline code spans saw last (shared with checkpoints until changed).
    pub(crate) code: Option<Rc<CodeMemo>>,
    /// An opening tool-name tag (`<echo>`) whose object may follow.
    pub(crate) tool_tag: Option<ToolTag>,
}

/// Where the last closing tag of each kind of [`xml::TAGS`] starts among those a search for
/// another kind's closing tag passed (`usize::MAX`: none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TagClosers {
    pub(crate) last: [usize; xml::TAGS.len()],
}

impl TagClosers {
    pub(crate) const NONE: TagClosers = TagClosers {
        last: [usize::MAX; xml::TAGS.len()],
    };
}

/// Closers that failed searches proved absent from the rest of a finished scan's text.
///
/// When the message ends with an element or comment open, its opener was prose and the scan goes
/// on right after it. Without this, every later opener of the same kind would search the same
/// text to the end again: a reply full of unclosed `<tool_call>`s cost quadratic time. With it, a
/// search stops where an earlier failed search of its kind began, so each byte is searched for
/// each kind of closer at most once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Absent {
    /// The end of the text these facts hold for (`usize::MAX`: none recorded).
    end: usize,
    /// Per tag of [`xml::TAGS`]: no closing tag of it starts at or after this index.
    tags: [usize; xml::TAGS.len()],
    /// No `-->` starts at or after this index.
    comment_close: usize,
}

impl Absent {
    pub(crate) const NONE: Absent = Absent {
        end: usize::MAX,
        tags: [usize::MAX; xml::TAGS.len()],
        comment_close: usize::MAX,
    };

    fn for_end(&mut self, end: usize) -> &mut Self {
        if self.end != end {
            *self = Absent {
                end,
                ..Absent::NONE
            };
        }
        self
    }

    /// Where the search for the closing tag of `TAGS[name]` may stop in a text ending at `end`:
    /// no closer starts at or after it.
    pub(crate) fn tag_limit(&self, name: usize, end: usize) -> usize {
        if self.end == end {
            self.tags.get(name).map_or(end, |&t| t.min(end))
        } else {
            end
        }
    }

    /// No closing tag of `TAGS[name]` starts in `[from, end)`.
    pub(crate) fn no_tag_close(&mut self, name: usize, from: usize, end: usize) {
        if let Some(t) = self.for_end(end).tags.get_mut(name) {
            *t = (*t).min(from);
        }
    }

    /// A search for the closing tag of `TAGS[name]` from `content` failed, having looked at every
    /// `<` up to `searched` (and this record says none closes it after that), passing the
    /// closing tags of other kinds in `passed`. So what each kind lacks is known too: one failed
    /// search, not one per kind of tag, reads the rest of the text.
    pub(crate) fn failed_tag_search(
        &mut self,
        name: usize,
        content: usize,
        searched: usize,
        passed: &TagClosers,
        end: usize,
    ) {
        self.no_tag_close(name, content, end);
        for (other, &last) in passed.last.iter().enumerate() {
            // Beyond `searched` only what was recorded before is known.
            if other != name && self.tag_limit(other, end) <= searched {
                let from = if last == usize::MAX {
                    content
                } else {
                    last + 1
                };
                self.no_tag_close(other, from, end);
            }
        }
    }

    /// Where the search for `-->` may stop in a text ending at `end` (a `-->` ending there
    /// starts before the recorded index).
    pub(crate) fn comment_limit(&self, end: usize) -> usize {
        if self.end == end {
            self.comment_close.saturating_add(2).min(end)
        } else {
            end
        }
    }

    /// No `-->` starts in `[from, end)`.
    pub(crate) fn no_comment_close(&mut self, from: usize, end: usize) {
        let a = self.for_end(end);
        a.comment_close = a.comment_close.min(from);
    }
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
            absent: Absent::NONE,
            tag_closers: TagClosers::NONE,
            code: None,
            tool_tag: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A repeated key keeps its first place and its last value, whether the parameters are
    /// moved out (no checkpoint shares them) or copied (a checkpoint still holds them, and must
    /// still see all of them afterwards).
    #[test]
    fn params_into_map_moved_or_shared() {
        let mut params = Params::default();
        for (k, v) in [("a", 1), ("b", 2), ("a", 3), ("c", 4)] {
            params.push(k.to_owned(), json!(v));
        }
        let want = r#"{"a":3,"b":2,"c":4}"#;
        let kept = params.clone();
        assert_eq!(Value::Object(params.into_map()).to_string(), want, "shared");
        assert_eq!(
            Value::Object(kept.clone().into_map()).to_string(),
            want,
            "kept"
        );
        assert_eq!(Value::Object(kept.into_map()).to_string(), want, "moved");
    }
}
