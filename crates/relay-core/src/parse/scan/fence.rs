//! Fenced code blocks: the opening line, the search for the closing fence, and the block's content.

use memchr::{memchr, memchr2};

use super::super::checkpoints::Checkpoints;
use super::super::json::Repairs;
use super::super::sink::Sink;
use super::super::state::{Absent, Cfg, Ctx, Mode, ScanState};
use super::super::text::{at_line_start, looks_like_call, run_len};
use super::super::{DiagnosticKind, Span};
use super::{has_call_key, Flow, Scan};

/// A fence's info line longer than this is not a fence.
const MAX_INFO_LINE: usize = 256;
/// The longest word of `CALL_LANGS`, with room to spare.
const MAX_LANG: usize = 16;

/// Fence info words whose blocks are read for calls. Any other language is a code example.
pub(crate) const CALL_LANGS: &[&str] = &[
    "",
    "json",
    "json5",
    "jsonc",
    "jsonl",
    "jsonlines",
    "ndjson",
    "xml",
    "tool_call",
    "tool_calls",
    "function_call",
    "text",
    "txt",
    "plaintext",
    "plain",
];

pub(crate) fn lang_is_read(lang: &str) -> bool {
    CALL_LANGS.iter().any(|l| l.eq_ignore_ascii_case(lang))
}

/// Result of looking at a possible fence opening.
pub(crate) enum FenceOpen {
    Wait,
    No,
    Yes(Mode),
}

impl Scan<'_> {
    /// A run of `run` ≥ 3 backticks at `i`: does it open a fenced block?
    pub(crate) fn fence_open(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        i: usize,
        run: usize,
    ) -> FenceOpen {
        let info_start = i + run;
        let window = self.end.min(info_start + MAX_INFO_LINE);
        let line_start = at_line_start(self.b, i, self.cfg.floor);
        if !line_start {
            if let Some(upto) = self.mid_line_info_breaks(info_start, window) {
                sink.work += (upto - info_start) as u64;
                st.see(upto);
                return FenceOpen::No;
            }
        }
        let line_end = match memchr(b'\n', &self.b[info_start..window]) {
            Some(o) => info_start + o,
            None if window == self.end && !self.finished => {
                sink.work += (self.end - info_start) as u64;
                return FenceOpen::Wait;
            }
            None if window == self.end => self.end,
            None => {
                st.see(window);
                return FenceOpen::No;
            }
        };
        sink.work += (line_end - info_start) as u64;
        st.see((line_end + 1).min(self.end));
        let Some(info) = self.text.get(info_start..line_end) else {
            return FenceOpen::No;
        };
        if info.contains('`') {
            return FenceOpen::No;
        }
        let trimmed = info.trim();
        let word = trimmed.split_whitespace().next().unwrap_or("");
        if !line_start && (word.is_empty() || word.len() != trimmed.len() || !lang_is_read(word)) {
            // Mid-line backticks open a block only as "```json" alone on the rest of the line.
            return FenceOpen::No;
        }
        let lang_start = info_start + (info.len() - info.trim_start().len());
        let content = if line_end < self.end {
            line_end + 1
        } else {
            self.end
        };
        FenceOpen::Yes(Mode::Fence {
            open: i,
            content,
            len: run,
            lang: (lang_start, lang_start + word.len()),
            next: content,
            mid_line: false,
        })
    }

    pub(crate) fn fence(
        &self,
        st: &mut ScanState,
        sink: &mut Sink,
        mut cps: Option<&mut Checkpoints>,
    ) -> Flow {
        let Mode::Fence {
            open,
            content,
            len,
            lang,
            mut next,
            mut mid_line,
        } = st.mode
        else {
            return Flow::Continue;
        };
        let b = self.b;
        let end = self.end;
        loop {
            if mid_line {
                let newline = memchr(b'\n', &b[next..end]);
                if let Some(c) = cps.as_mut() {
                    let to = newline.map_or(end, |o| next + o);
                    if c.due(to) {
                        let at = |p: usize| ScanState {
                            mode: Mode::Fence {
                                open,
                                content,
                                len,
                                lang,
                                next: p,
                                mid_line: true,
                            },
                            ..st.clone()
                        };
                        c.span(next.max(st.horizon), to, sink, at);
                    }
                }
                match newline {
                    Some(o) => {
                        sink.work += o as u64 + 1;
                        next += o + 1;
                        mid_line = false;
                    }
                    None => {
                        sink.work += (end - next) as u64;
                        next = end;
                        break;
                    }
                }
            }
            if next >= end {
                break;
            }
            // A closing fence: blanks, at least `len` backticks, blanks, end of line.
            let mut k = next;
            while k < end && k - next < 64 && matches!(b[k], b' ' | b'\t') {
                k += 1;
            }
            let run = run_len(b, k, end.min(k + 64), b'`');
            let mut m = k + run;
            while m < end && matches!(b[m], b' ' | b'\t' | b'\r') && m - k < 128 {
                m += 1;
            }
            sink.work += (m - next) as u64;
            if m >= end {
                if !self.finished {
                    // The line may still become a closing fence.
                    st.mode = Mode::Fence {
                        open,
                        content,
                        len,
                        lang,
                        next,
                        mid_line: false,
                    };
                    return Flow::Stop;
                }
                if run >= len {
                    self.block(sink, content, next, lang, true, Absent::NONE);
                    st.mode = Mode::Prose;
                    st.pos = end;
                    return Flow::Continue;
                }
                next = end;
                break;
            }
            if run >= len && b[m] == b'\n' {
                self.block(sink, content, next, lang, true, Absent::NONE);
                st.mode = Mode::Prose;
                st.pos = m + 1;
                st.see(m + 1);
                return Flow::Continue;
            }
            // Not a closing fence; `b[m]` was looked at, so the search resumes after it.
            mid_line = b[m] != b'\n';
            next = m + 1;
        }
        if !self.finished {
            st.mode = Mode::Fence {
                open,
                content,
                len,
                lang,
                next,
                mid_line,
            };
            return Flow::Stop;
        }
        self.block(sink, content, end, lang, false, st.absent);
        st.mode = Mode::Prose;
        st.pos = end;
        Flow::Continue
    }

    /// The content of a fenced block: read for calls unless it is a code example.
    pub(crate) fn block(
        &self,
        sink: &mut Sink,
        start: usize,
        end: usize,
        lang: (usize, usize),
        closed: bool,
        absent: Absent,
    ) {
        let lang_text = self.text.get(lang.0..lang.1).unwrap_or("");
        if !lang_is_read(lang_text) {
            let region = &self.b[start..end];
            sink.work += region.len() as u64;
            if looks_like_call(region)
                && (memchr2(b'{', b'<', region).is_some())
                && has_call_key(region)
            {
                sink.note(
                    DiagnosticKind::IgnoredCall,
                    format!("A ```{lang_text} code block is an example, not a tool call; it was not run."),
                    Span::new(start, end),
                );
            }
            return;
        }
        let cfg = Cfg {
            fences: false,
            tags: true,
            inline_code: false,
            ctx: Ctx::Block,
            at_message_end: !closed && self.cfg.at_message_end,
            extra: if closed {
                self.cfg.extra
            } else {
                self.cfg.extra.union(Repairs::MISSING_CLOSING_FENCE)
            },
            floor: start,
        };
        self.sub_scan(sink, start, end, cfg, absent);
    }
    /// Backticks mid-line open a block only when the rest of the line is one language word that
    /// is read for calls, between blanks. Returns the end of the first character that rules this
    /// out, when one comes before the line ends (else the whole line decides): no more than that
    /// is looked at, so a line of many backtick runs costs linear time, not one line per run.
    fn mid_line_info_breaks(&self, info_start: usize, window: usize) -> Option<usize> {
        #[derive(PartialEq)]
        enum Part {
            Before,
            Word,
            After,
        }
        let mut part = Part::Before;
        let mut word = 0;
        let mut p = info_start;
        while p < window {
            let c = self.b[p];
            if c == b'\n' {
                return None;
            }
            let (blank, len) = if c.is_ascii() {
                (char::from(c).is_whitespace(), 1)
            } else {
                let ch = self.text.get(p..)?.chars().next()?;
                (ch.is_whitespace(), ch.len_utf8())
            };
            let after = p + len;
            if blank {
                if part == Part::Word {
                    part = Part::After;
                }
            } else if part == Part::After
                || !(c.is_ascii_alphanumeric() || c == b'_')
                || word >= MAX_LANG
            {
                // A second word, a backtick, or a character no language word has.
                return Some(after);
            } else {
                part = Part::Word;
                word += 1;
            }
            p = after;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{CALL_LANGS, MAX_LANG};

    #[test]
    fn mid_line_check_knows_every_language_word() {
        for lang in CALL_LANGS {
            assert!(lang.len() <= MAX_LANG, "{lang}");
            assert!(
                lang.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'),
                "{lang}"
            );
        }
    }
}
