//! Incremental Server-Sent Events decoder: bytes in, events out.
//!
//! Implements the event-stream interpretation of the WHATWG HTML standard ("9.2.6 Interpreting
//! an event stream") over arbitrary chunking, because MCP servers differ in every detail the
//! standard leaves open: Python's SDK ends lines with CRLF, rmcp writes `id:`/`retry:` after
//! `data:`, servers prime a stream with an event whose `data:` is empty, and the network may
//! split a chunk anywhere, including between CR and LF or inside a UTF-8 sequence.
//!
//! The decoder only buffers the current unfinished line and the current event, and scans each
//! byte once, so feeding a large response in many small chunks costs the same as feeding it
//! whole.

use thiserror::Error;

/// Default cap on the size of one event (its `data` plus the unfinished line), in bytes.
/// Large enough for a tool returning a 10 MB document; small enough that a server streaming
/// garbage without line breaks cannot exhaust the worker's memory.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseEvent {
    /// The `event:` field, `"message"` when the server gave none.
    pub event: String,
    /// The `data:` lines joined with `\n`. Empty for priming events (`data:` with no value).
    pub data: String,
    /// The last event ID in effect when this event was dispatched (the standard's "last event
    /// ID buffer", which persists across events), `None` if no `id:` has been seen or the last
    /// one was empty.
    pub id: Option<String>,
    /// The reconnection time this event set (`retry:`), if it carried a valid one.
    pub retry_ms: Option<u64>,
}

/// Why decoding stopped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SseError {
    /// One event grew past the configured limit.
    #[error("a server-sent event exceeded {limit} bytes; the stream was abandoned")]
    EventTooLarge { limit: usize },
}

/// Incremental decoder for one event stream. Create one per HTTP response.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    /// Bytes of the unfinished line (never contains CR or LF).
    line: Vec<u8>,
    /// Whether the previous chunk ended in CR, so a leading LF in the next chunk belongs to it.
    skip_lf: bool,
    /// Whether the stream start (and its optional BOM) is behind us.
    started: bool,
    data: String,
    /// Whether any `data` field was seen in the current event (the standard's "data buffer is
    /// not empty", which is true even for a lone empty `data:` line).
    has_data: bool,
    event_type: String,
    last_event_id: String,
    event_retry: Option<u64>,
    retry_ms: Option<u64>,
    max_event_bytes: usize,
    /// Whether the current event has any field at all, so `finish` can tell a cut event from a
    /// clean end.
    event_started: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl SseDecoder {
    /// A decoder with the default event size limit.
    pub fn new() -> Self {
        Self::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails once one event grows past `max_event_bytes`.
    pub fn with_max_event_bytes(max_event_bytes: usize) -> Self {
        SseDecoder {
            line: Vec::new(),
            skip_lf: false,
            started: false,
            data: String::new(),
            has_data: false,
            event_type: String::new(),
            last_event_id: String::new(),
            event_retry: None,
            retry_ms: None,
            max_event_bytes,
            event_started: false,
        }
    }

    /// A decoder resuming a stream: keeps the last event ID so events after the reconnection
    /// report it until the server sends a new one.
    pub fn resuming(last_event_id: Option<&str>, max_event_bytes: usize) -> Self {
        let mut decoder = Self::with_max_event_bytes(max_event_bytes);
        decoder.last_event_id = last_event_id.unwrap_or_default().to_owned();
        decoder
    }

    /// The last event ID seen on this stream (what a reconnection sends as `Last-Event-ID`).
    pub fn last_event_id(&self) -> Option<&str> {
        (!self.last_event_id.is_empty()).then_some(self.last_event_id.as_str())
    }

    /// The reconnection time the server asked for with `retry:`, if any.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds the next chunk of the response body and returns the events it completed.
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        if !self.started {
            // The BOM may itself be split across chunks: keep the prefix until it is decided.
            let have = self.line.len();
            let take = (BOM.len() - have).min(chunk.len());
            self.line.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if BOM.starts_with(&self.line) && self.line.len() < BOM.len() {
                return Ok(events);
            }
            self.started = true;
            let pending = std::mem::take(&mut self.line);
            let pending = pending.strip_prefix(BOM).unwrap_or(&pending);
            self.scan(pending, &mut events)?;
        }
        self.scan(chunk, &mut events)?;
        Ok(events)
    }

    /// Ends the stream. Per the standard an unfinished event is discarded; the return value
    /// says whether one was (a stream cut in the middle of an event).
    pub fn finish(&mut self) -> bool {
        let cut = self.event_started || !self.line.is_empty();
        self.line.clear();
        self.reset_event();
        self.skip_lf = false;
        cut
    }

    fn scan(&mut self, mut bytes: &[u8], events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.skip_lf {
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
                self.skip_lf = false;
            } else if !bytes.is_empty() {
                self.skip_lf = false;
            }
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            let terminator = bytes[end];
            self.check_size(end)?;
            if self.line.is_empty() {
                self.process_line(&bytes[..end], events);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&bytes[..end]);
                self.process_line(&line, events);
                line.clear();
                self.line = line;
            }
            bytes = &bytes[end + 1..];
            if terminator == b'\r' {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.check_size(bytes.len())?;
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn check_size(&self, extra: usize) -> Result<(), SseError> {
        if self.data.len() + self.line.len() + extra > self.max_event_bytes {
            return Err(SseError::EventTooLarge {
                limit: self.max_event_bytes,
            });
        }
        Ok(())
    }

    fn process_line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        self.event_started = true;
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            b"event" => self.event_type = String::from_utf8_lossy(value).into_owned(),
            // An id containing NUL is ignored (it could not be sent back in a header).
            b"id" if !value.contains(&0) => {
                self.last_event_id = String::from_utf8_lossy(value).into_owned();
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Absurd values saturate rather than fail: the caller bounds the wait anyway.
                let ms = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(u64::MAX);
                self.retry_ms = Some(ms);
                self.event_retry = Some(ms);
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        if self.has_data {
            let event = if self.event_type.is_empty() {
                "message".to_owned()
            } else {
                std::mem::take(&mut self.event_type)
            };
            events.push(SseEvent {
                event,
                data: std::mem::take(&mut self.data),
                id: self.last_event_id().map(str::to_owned),
                retry_ms: self.event_retry,
            });
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event_type.clear();
        self.event_retry = None;
        self.event_started = false;
    }
}
