//! Open braces in prose: strings and nesting are tracked until the outermost brace closes (a
//! candidate object), or the braces turn out to be prose (the nested objects are the candidates).

use memchr::{memchr2, memchr3};

use super::super::checkpoints::Checkpoints;
use super::super::frames::Frames;
use super::super::sink::Sink;
use super::super::state::{Mode, ScanState};
use super::super::text::{looks_like_call, prev_significant, run_len};
use super::super::{DiagnosticKind, Span};
use super::fence::FenceOpen;
use super::prose::Angle;
use super::{Flow, Scan};

/// Open braces tracked individually; deeper ones are only counted (nothing that deep parses).
const MAX_FRAMES: usize = 256;

/// Bytes that matter inside an open brace, outside strings.
pub(crate) static FRAME_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'"' as usize] = true;
    t[b'`' as usize] = true;
    t[b'<' as usize] = true;
    t
};

impl Scan<'_> {
    /// Inside open braces: track strings and nesting until the outermost closes.
    pub(crate) fn frames(
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
                    if c.due(to) {
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
                if c.due(j) {
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
                    if st.tool_tag.is_some() && st.frames.len() == 1 {
                        match self.tool_tag_close(st, sink, j) {
                            None => {
                                st.pos = j;
                                return Flow::Stop;
                            }
                            Some(true) => return Flow::Continue,
                            Some(false) => {}
                        }
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
    pub(crate) fn frames_at_end(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        if !self.finished {
            return Flow::Stop;
        }
        st.tool_tag = None;
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
    pub(crate) fn abandon(&self, st: &mut ScanState, sink: &mut Sink, at: usize) {
        let frames = st.frames.take();
        st.tool_tag = None;
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
}
