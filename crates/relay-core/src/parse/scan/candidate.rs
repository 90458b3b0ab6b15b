//! Candidates: a complete (or repaired) JSON object read, interpreted as calls, and JSON-lines
//! events assembled into calls.

use serde_json::Value;

use super::super::interpret::{self, LineEvent, RawCall, Shape};
use super::super::json::{self, Repairs};
use super::super::members;
use super::super::sink::Sink;
use super::super::state::{Ctx, Group, Params, ScanState};
use super::super::text::looks_like_call;
use super::super::{DiagnosticKind, Span};
use super::Scan;

impl Scan<'_> {
    /// Reads one candidate object. Returns whether it parsed as JSON (and so was dealt with).
    pub(crate) fn candidate(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        span: Span,
        at_end: bool,
    ) -> bool {
        let Some(src) = self.text.get(span.start..span.end) else {
            return false;
        };
        sink.work += src.len() as u64;
        // Valid JSON objects (nearly every candidate) are read without a `Map` of their own.
        let read = match members::read(src) {
            Ok(obj) => {
                let shape = interpret::interpret_object(obj, span, self.cfg.extra);
                self.shape(st, sink, shape, span, self.cfg.extra);
                return true;
            }
            Err(true) => json::repair_value(src, span.start, at_end),
            Err(false) => json::read_value(src, span.start, at_end),
        };
        match read {
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

    pub(crate) fn value(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        value: Value,
        span: Span,
        repairs: Repairs,
    ) {
        let shape = interpret::interpret(value, span, repairs);
        self.shape(st, sink, shape, span, repairs);
    }

    /// What a candidate turned out to be, acted on.
    fn shape(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        shape: Shape,
        span: Span,
        repairs: Repairs,
    ) {
        match shape {
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

    pub(crate) fn line_event(
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
                    params: Params::default(),
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
                    g.params.push(key, value);
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
                        arguments: Value::Object(g.params.into_map()),
                        id: g.call_id.or(call_id),
                        format: super::super::CallFormat::JsonLines,
                        span: whole,
                        repairs: g.repairs.union(repairs),
                    },
                    self.servers,
                );
            }
        }
    }

    /// A JSON-lines call still open where this scan's text ends.
    pub(crate) fn end_group(&self, st: &mut ScanState, sink: &mut Sink) {
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
}
