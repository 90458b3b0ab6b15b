//! Inline code spans: a backtick run and its partner of the same length on the same line.

use memchr::{memchr, memchr2};

use super::super::sink::Sink;
use super::super::state::{Mode, ScanState};
use super::super::text::run_len;
use super::super::{DiagnosticKind, Span};
use super::{has_call_key, Flow, Scan};

/// Inline code spans longer than this are not looked for (bounds the look-ahead per backtick).
const MAX_INLINE_CODE: usize = 512;

impl Scan<'_> {
    /// A backtick run that is not a fence: find the matching run on the same line.
    pub(crate) fn code(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        let Mode::Code {
            open,
            run,
            mut next,
        } = st.mode
        else {
            return Flow::Continue;
        };
        let b = self.b;
        let limit = self.end.min(open + run + MAX_INLINE_CODE);
        loop {
            match memchr2(b'`', b'\n', &b[next..limit]) {
                None => {
                    sink.work += (limit - next) as u64;
                    if limit == self.end && !self.finished {
                        st.mode = Mode::Code {
                            open,
                            run,
                            next: limit,
                        };
                        return Flow::Stop;
                    }
                    st.see(limit);
                    break;
                }
                Some(o) => {
                    let k = next + o;
                    sink.work += o as u64 + 1;
                    if b[k] == b'\n' {
                        st.see(k + 1);
                        break;
                    }
                    let r = run_len(b, k, self.end, b'`');
                    st.see((k + r + 1).min(self.end));
                    if k + r == self.end && !self.finished {
                        st.mode = Mode::Code { open, run, next: k };
                        return Flow::Stop;
                    }
                    if r == run {
                        let body = &b[open + run..k];
                        if memchr(b'{', body).is_some() && has_call_key(body) {
                            sink.note(
                                DiagnosticKind::IgnoredCall,
                                "A tool call written as inline code is quoted, not made; it was not run.".to_owned(),
                                Span::new(open, k + r),
                            );
                        }
                        st.mode = Mode::Prose;
                        st.pos = k + r;
                        st.see(k + r);
                        return Flow::Continue;
                    }
                    next = k + r;
                    if next >= limit {
                        st.see(next);
                        break;
                    }
                }
            }
        }
        // Not a code span: the backticks are literal.
        st.mode = Mode::Prose;
        st.pos = open + run;
        Flow::Continue
    }
}
