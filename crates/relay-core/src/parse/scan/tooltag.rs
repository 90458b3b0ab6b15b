//! Tool-name tags in prose (`<get-sum>{"a": 1}</get-sum>`, see `parse::tooltag`): the opening
//! tag, the object that must follow it, and the closing tag that must follow the object.

use serde_json::Value;

use super::super::interpret::RawCall;
use super::super::json;
use super::super::sink::Sink;
use super::super::state::ScanState;
use super::super::tooltag::{self, Lexed, ToolTag, MAX_LEAD, MAX_TAG_NAME};
use super::super::{CallFormat, DiagnosticKind, Span};
use super::Scan;

/// How far past a `<` deciding a tool tag may look.
const LOOK: usize = 4 + MAX_TAG_NAME + 2 * 16;

/// What a `<` in prose is, as a tool tag.
pub(crate) enum Opened {
    Wait,
    No,
    Yes,
}

impl Scan<'_> {
    /// Whether the `<` at `i` opens a tag named after a selected tool; if so, notes it.
    pub(crate) fn tool_tag_open(&self, st: &mut ScanState, sink: &mut Sink, i: usize) -> Opened {
        if self.servers.is_empty() {
            return Opened::No;
        }
        let (lexed, looked) = tooltag::lex_looked(self.b, i, self.end, false);
        match lexed {
            Lexed::Incomplete if !self.finished => Opened::Wait,
            Lexed::Incomplete | Lexed::No => {
                st.see(looked);
                Opened::No
            }
            Lexed::Yes((name, content)) => {
                st.see(content.max(i + 1));
                sink.work += (content - i) as u64;
                if self
                    .tags
                    .lookup(self.servers, &self.b[name.0..name.1])
                    .is_none()
                {
                    return Opened::No;
                }
                st.tool_tag = Some(ToolTag {
                    open: i,
                    name,
                    content,
                    object: usize::MAX,
                });
                st.pos = content;
                Opened::Yes
            }
        }
    }

    /// Prose found `b[i]` (a `{`, a backtick or a `<`) while a tool tag is open: only its
    /// object, after nothing but blanks, keeps it.
    pub(crate) fn tool_tag_next(&self, st: &mut ScanState, sink: &mut Sink, i: usize) {
        if st.tool_tag.is_none() {
            return;
        }
        // Kept or dropped, the tag's fate is decided by `b[i]`, though the scan may stop before it.
        st.see(i + 1);
        let Some(tag) = st.tool_tag.as_mut() else {
            return;
        };
        let lead = &self.b[tag.content.min(i)..i];
        sink.work += lead.len().min(MAX_LEAD) as u64;
        if self.b[i] == b'{'
            && tag.object == usize::MAX
            && lead.len() <= MAX_LEAD
            && lead.iter().all(|c| c.is_ascii_whitespace())
        {
            tag.object = i;
        } else {
            st.tool_tag = None;
        }
    }

    /// The object of an open tool tag closes at `close` (its `}`): whether its closing tag
    /// follows. `None`: wait for more text (the scan stops before the `}`).
    pub(crate) fn tool_tag_close(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        close: usize,
    ) -> Option<bool> {
        let Some(tag) = st
            .tool_tag
            .filter(|t| st.frames.outermost() == Some(t.object))
        else {
            st.tool_tag = None;
            return Some(false);
        };
        let name = &self.b[tag.name.0..tag.name.1];
        let after_object = close + 1;
        st.see((after_object + LOOK).min(self.end));
        match tooltag::closer(self.b, after_object, self.end, name) {
            Lexed::Incomplete if !self.finished => None,
            lexed @ (Lexed::Incomplete | Lexed::No) => {
                st.tool_tag = None;
                let written = self.text.get(tag.name.0..tag.name.1).unwrap_or_default();
                let span = Span::new(tag.open, after_object);
                if matches!(lexed, Lexed::Incomplete) {
                    sink.note(
                        DiagnosticKind::IncompleteCall,
                        format!("The <{written}> element is cut off at the end of the message, so it was not run."),
                        span,
                    );
                } else {
                    sink.note(
                        DiagnosticKind::InvalidCall,
                        format!("The <{written}> element's arguments are not followed by </{written}>, so it was not run."),
                        span,
                    );
                }
                Some(false)
            }
            Lexed::Yes(after) => {
                sink.work += (after - after_object) as u64;
                st.tool_tag = None;
                st.frames.clear();
                st.pos = after;
                self.tool_element(sink, tag, Span::new(tag.object, after_object), after);
                Some(true)
            }
        }
    }

    /// A complete `<tool>{arguments}</tool>` element ending at `after`.
    fn tool_element(&self, sink: &mut Sink, tag: ToolTag, object: Span, after: usize) {
        let element = Span::new(tag.open, after);
        let written = self.text.get(tag.name.0..tag.name.1).unwrap_or_default();
        let (name, server) = match self.tags.lookup(self.servers, written.as_bytes()) {
            Some((tool, server)) => (tool.to_owned(), server.map(str::to_owned)),
            None => (written.to_owned(), None),
        };
        let Some(src) = self.text.get(object.start..object.end) else {
            return;
        };
        sink.work += src.len() as u64;
        match json::read_value(src, object.start, false) {
            Ok((arguments @ Value::Object(_), repairs)) => sink.emit(
                RawCall {
                    name,
                    server,
                    arguments,
                    id: None,
                    format: CallFormat::ToolTag,
                    span: element,
                    repairs: repairs.union(self.cfg.extra),
                },
                self.servers,
            ),
            Ok(_) => sink.note(
                DiagnosticKind::InvalidCall,
                format!("The <{written}> element does not hold a JSON object of arguments."),
                element,
            ),
            Err(e) => sink.note(
                DiagnosticKind::InvalidJson,
                format!("The <{written}> element's arguments are not valid JSON, even after repairs: {e}."),
                element,
            ),
        }
    }
}
