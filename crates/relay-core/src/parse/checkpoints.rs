//! Checkpoints of the top-level scan, where a rewritten text restarts from.

use std::collections::VecDeque;

use super::sink::Sink;
use super::state::ScanState;

/// Distance between checkpoints in clean prose.
pub(crate) const CHECKPOINT_INTERVAL: usize = 4096;

/// A state of the top-level scan that depends only on the text before `pos`.
#[derive(Debug, Clone)]
pub(crate) struct Checkpoint {
    pub(crate) pos: usize,
    pub(crate) state: ScanState,
    pub(crate) calls: usize,
    pub(crate) diags: usize,
    pub(crate) suggested: u32,
}

/// How many of the states where recent runs stopped are kept, and how far apart at least.
pub(crate) const RECENT_CHECKPOINTS: usize = 16;
pub(crate) const RECENT_SPACING: usize = 128;

/// Where a rewrite may restart from: sparse checkpoints (about one per `CHECKPOINT_INTERVAL`
/// bytes, in prose, fenced blocks, tagged elements and open braces alike) and the states where the
/// last few runs stopped (a re-render usually changes the text just before its end).
#[derive(Debug, Clone)]
pub(crate) struct Checkpoints {
    pub(crate) sparse: Vec<Checkpoint>,
    pub(crate) recent: VecDeque<Checkpoint>,
}

impl Checkpoints {
    pub(crate) fn new() -> Self {
        let start = Checkpoint {
            pos: 0,
            state: ScanState::at(0),
            calls: 0,
            diags: 0,
            suggested: 0,
        };
        Checkpoints {
            sparse: vec![start],
            recent: VecDeque::new(),
        }
    }

    pub(crate) fn last_sparse(&self) -> usize {
        self.sparse.last().map_or(0, |c| c.pos)
    }

    /// Whether a sparse checkpoint is due by `at`. (Every state is cheap to copy: braces and
    /// JSON-lines parameters are shared, memos are small.)
    pub(crate) fn due(&self, at: usize) -> bool {
        at >= self.last_sparse() + CHECKPOINT_INTERVAL
    }

    pub(crate) fn snapshot(st: &ScanState, sink: &Sink) -> Checkpoint {
        Checkpoint {
            pos: st.frontier(),
            state: st.clone(),
            calls: sink.calls.len(),
            diags: sink.diags.len(),
            suggested: sink.suggested,
        }
    }

    /// Sparse checkpoints inside a stretch `[lo, to]` the scanner crossed in one jump, where the
    /// state at every position is `state_at` that position.
    pub(crate) fn span(
        &mut self,
        lo: usize,
        to: usize,
        sink: &Sink,
        state_at: impl Fn(usize) -> ScanState,
    ) {
        let mut at = self.last_sparse() + CHECKPOINT_INTERVAL;
        while at <= to {
            let p = at.max(lo);
            if p > to {
                break;
            }
            let state = state_at(p);
            self.sparse.push(Checkpoint {
                pos: state.frontier(),
                state,
                calls: sink.calls.len(),
                diags: sink.diags.len(),
                suggested: sink.suggested,
            });
            at = p + CHECKPOINT_INTERVAL;
        }
    }

    /// The state where a run stopped (unless one was kept less than `RECENT_SPACING` before).
    pub(crate) fn stopped(&mut self, st: &ScanState, sink: &Sink) {
        let last = self
            .recent
            .back()
            .map_or(0, |c| c.pos)
            .max(self.last_sparse());
        if st.frontier() < last + RECENT_SPACING {
            return;
        }
        if self.recent.len() == RECENT_CHECKPOINTS {
            self.recent.pop_front();
        }
        self.recent.push_back(Self::snapshot(st, sink));
    }

    /// Forgets the checkpoints after `changed_from` and returns the latest one left.
    pub(crate) fn before(&mut self, changed_from: usize) -> Option<Checkpoint> {
        while self.sparse.len() > 1 && self.sparse.last().is_some_and(|c| c.pos > changed_from) {
            self.sparse.pop();
        }
        self.recent.retain(|c| c.pos <= changed_from);
        let sparse = self.sparse.last()?;
        Some(match self.recent.back() {
            Some(r) if r.pos > sparse.pos => r.clone(),
            _ => sparse.clone(),
        })
    }
}
