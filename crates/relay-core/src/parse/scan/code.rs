//! Inline code spans: a backtick run and its partner of the same length on the same line.

use std::collections::BTreeMap;
use std::rc::Rc;

use memchr::{memchr, memchr2};

use super::super::sink::Sink;
use super::super::state::{Mode, ScanState};
use super::super::text::run_len;
use super::super::{DiagnosticKind, Span};
use super::{has_call_key, Flow, Scan};

/// Inline code spans longer than this are not looked for (bounds the look-ahead per backtick).
const MAX_INLINE_CODE: usize = 512;

/// Run lengths kept in an array; longer ones (rare) in a map.
const SHORT_RUNS: usize = 16;

/// What the searches for inline code spans saw of one stretch `[from, to)` of a line: where the
/// last backtick run of each length starts in it.
///
/// A run that finds no partner is literal, and the scan goes on right after it; the next run's
/// search covers mostly the same text. With this, that search skips the stretch already seen
/// when no run of its own length is in it, so a line of runs of many lengths (none with a
/// partner within the look-ahead) costs linear time instead of one look-ahead per run.
#[derive(Debug, Clone)]
pub(crate) struct CodeMemo {
    from: usize,
    to: usize,
    /// `to` is at a newline, which ends every search.
    at_newline: bool,
    /// Start of the last run of length `i + 1` in the stretch (`usize::MAX`: none).
    short: [usize; SHORT_RUNS],
    long: BTreeMap<usize, usize>,
}

impl CodeMemo {
    fn new(at: usize) -> Self {
        CodeMemo {
            from: at,
            to: at,
            at_newline: false,
            short: [usize::MAX; SHORT_RUNS],
            long: BTreeMap::new(),
        }
    }

    /// Where the last run of length `len` starts in the stretch.
    fn last(&self, len: usize) -> Option<usize> {
        match len {
            1..=SHORT_RUNS => Some(self.short[len - 1]).filter(|&p| p != usize::MAX),
            _ => self.long.get(&len).copied(),
        }
    }

    /// Whether the stretch holds the search that resumes at `next`.
    fn covers(&self, next: usize) -> bool {
        self.from <= next && next <= self.to
    }
}

/// The stretch a search resuming at `next` extends: the one in `memo` if it reaches `next`,
/// else a new one starting there.
fn stretch(memo: &mut Option<Rc<CodeMemo>>, next: usize) -> &mut CodeMemo {
    let fresh = !memo.as_deref().is_some_and(|m| m.covers(next));
    if fresh {
        *memo = Some(Rc::new(CodeMemo::new(next)));
    }
    Rc::make_mut(memo.get_or_insert_with(|| Rc::new(CodeMemo::new(next))))
}

/// The search resuming at `next` saw no backtick or newline before `upto`.
fn saw_plain(memo: &mut Option<Rc<CodeMemo>>, next: usize, upto: usize) {
    let m = stretch(memo, next);
    m.to = m.to.max(upto);
}

/// The search resuming at `next` found a run of `len` at `k` (nothing before it since `next`).
fn saw_run(memo: &mut Option<Rc<CodeMemo>>, next: usize, k: usize, len: usize) {
    let m = stretch(memo, next);
    if m.to > k {
        // Already known.
        return;
    }
    match len {
        1..=SHORT_RUNS => m.short[len - 1] = k,
        _ => {
            m.long.insert(len, k);
        }
    }
    m.to = k + len;
}

/// The search resuming at `next` found a newline at `k`.
fn saw_newline(memo: &mut Option<Rc<CodeMemo>>, next: usize, k: usize) {
    let m = stretch(memo, next);
    if m.to <= k {
        m.to = k;
        m.at_newline = true;
    }
}

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
        // Skip what an earlier search saw, when no run of this length is in it.
        if let Some(memo) = st.code.as_deref().filter(|m| m.covers(next)) {
            if memo.last(run).is_none_or(|p| p < next) {
                if memo.at_newline {
                    st.see(memo.to + 1);
                    return self.literal_backticks(st, open, run);
                }
                // The search below decides at the limit as it always does: wait there if it is
                // the end of the text so far, the closing run may still come; give up if it is
                // the length limit.
                next = memo.to.min(limit);
            }
        }
        loop {
            match memchr2(b'`', b'\n', &b[next..limit]) {
                None => {
                    sink.work += (limit - next) as u64;
                    saw_plain(&mut st.code, next, limit);
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
                        saw_newline(&mut st.code, next, k);
                        st.see(k + 1);
                        break;
                    }
                    let r = run_len(b, k, self.end, b'`');
                    st.see((k + r + 1).min(self.end));
                    if k + r == self.end && !self.finished {
                        // The run may still grow.
                        saw_plain(&mut st.code, next, k);
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
                    saw_run(&mut st.code, next, k, r);
                    next = k + r;
                    if next >= limit {
                        st.see(next);
                        break;
                    }
                }
            }
        }
        self.literal_backticks(st, open, run)
    }

    /// Not a code span: the backticks are literal.
    fn literal_backticks(&self, st: &mut ScanState, open: usize, run: usize) -> Flow {
        st.mode = Mode::Prose;
        st.pos = open + run;
        Flow::Continue
    }
}
