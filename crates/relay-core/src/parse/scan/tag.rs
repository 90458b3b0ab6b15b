//! Tagged elements (`<tool_call>`, `<function_calls>`, `<invoke>`...): the search for the closing
//! tag, and the element's content.

use memchr::{memchr, memmem};

use super::super::checkpoints::Checkpoints;
use super::super::sink::Sink;
use super::super::state::{Absent, Cfg, Ctx, Mode, ScanState};
use super::super::xml::{self, Lex, TagKind, XmlItem};
use super::super::{DiagnosticKind, Span};
use super::{Flow, Scan};

impl Scan<'_> {
    pub(crate) fn tag(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        mut cps: Option<&mut Checkpoints>,
    ) -> Flow {
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
        // In a finished text, no closer starts where an earlier failed search of this tag began.
        let limit = if self.finished {
            st.absent.tag_limit(name, self.end).max(next)
        } else {
            self.end
        };
        loop {
            let lt = memchr(b'<', &b[next..limit]);
            if let Some(c) = cps.as_mut() {
                let to = lt.map_or(limit, |o| next + o);
                if c.due(to) {
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
                    sink.work += (limit - next) as u64;
                    next = limit;
                    break;
                }
                Some(o) => {
                    let k = next + o;
                    sink.work += o as u64 + 1;
                    let (this, other) = xml::closing_tag_or_call_tag(b, k, self.end, local);
                    match this {
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
                            // Closing tags of other kinds are noted (see `failed_tag_search`),
                            // so this one must be known too before going on.
                            match other {
                                Lex::Incomplete if !self.finished => {
                                    next = k;
                                    break;
                                }
                                Lex::Yes(other) => st.tag_closers.last[other] = k,
                                Lex::Incomplete | Lex::No => {}
                            }
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
        // so a complete call inside is still found by the other layers. No closer of this tag
        // starts anywhere after its opening tag: later openers of it need not search again.
        let passed = st.tag_closers;
        st.absent
            .failed_tag_search(name, content, limit, &passed, self.end);
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
    pub(crate) fn element(
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
                self.sub_scan(sink, content.0, content.1, cfg, Absent::NONE);
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
}
