//! HTML comments: hidden from the reader, so a call inside one is reported, never run.

use memchr::{memchr2, memmem};

use super::super::sink::Sink;
use super::super::state::{Mode, ScanState};
use super::super::{DiagnosticKind, Span};
use super::{has_call_key, Flow, Scan};

impl Scan<'_> {
    pub(crate) fn comment(&self, st: &mut ScanState, sink: &mut Sink) -> Flow {
        let Mode::Comment { open, next } = st.mode else {
            return Flow::Continue;
        };
        // In a finished text, no `-->` starts where an earlier failed search began.
        let limit = if self.finished {
            st.absent.comment_limit(self.end).max(next)
        } else {
            self.end
        };
        let (body_end, after) = match memmem::find(&self.b[next..limit], b"-->") {
            Some(o) => {
                sink.work += o as u64 + 3;
                (next + o, next + o + 3)
            }
            None => {
                sink.work += (limit - next) as u64;
                if !self.finished {
                    // Keep the last two bytes: they may begin the "-->". Ruling out a `-->` at
                    // the byte before them read the text's last byte, so the state depends on
                    // all of it: a rewrite of that byte alone must rewind.
                    st.see(self.end);
                    st.mode = Mode::Comment {
                        open,
                        next: self.end.saturating_sub(2).max(open + 4),
                    };
                    return Flow::Stop;
                }
                // Never closed: not a comment (a renderer would have shown it), so its text is
                // scanned like any other; later openers need not search it for `-->` again.
                st.absent.no_comment_close(open + 4, self.end);
                st.mode = Mode::Prose;
                st.pos = open + 4;
                return Flow::Continue;
            }
        };
        let body = &self.b[(open + 4).min(body_end)..body_end];
        if has_call_key(body) && memchr2(b'{', b'<', body).is_some() {
            sink.note(
                DiagnosticKind::IgnoredCall,
                "A tool call inside an HTML comment is hidden from the reader; it was not run."
                    .to_owned(),
                Span::new(open, after),
            );
        }
        st.mode = Mode::Prose;
        st.pos = after;
        st.see(after);
        Flow::Continue
    }
}
