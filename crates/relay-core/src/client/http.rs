//! The HTTP surface of the sans-IO session: requests it asks the driver to perform, and the
//! response parts the driver hands back.

use std::fmt;

/// Identifies one HTTP exchange between [`Session::poll_action`](super::Session::poll_action)
/// and the driver's callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExchangeId(pub u64);

impl fmt::Display for ExchangeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The HTTP methods MCP uses (serialised as their names on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    Get,
    Post,
    Delete,
}

impl HttpMethod {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Delete => "DELETE",
        }
    }

    /// The method named `name` (any case), if it is one a session uses.
    pub fn parse(name: &str) -> Option<HttpMethod> {
        [HttpMethod::Get, HttpMethod::Post, HttpMethod::Delete]
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(name))
    }
}

/// An HTTP request for the driver to perform. The driver reports its response with
/// `handle_response_head`, then `handle_body` for each chunk, then `handle_body_end`, or
/// `handle_transport_error` at any point.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpRequest {
    pub exchange: ExchangeId,
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// An event stream that may stay open indefinitely: the driver must not buffer it or put
    /// its own deadline on it (the session keeps every deadline).
    pub long_lived: bool,
}

impl HttpRequest {
    /// The value of a request header (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_value(&self.headers, name)
    }
}

/// Something the driver must do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Perform this request.
    Send(HttpRequest),
    /// Abort this exchange (fetch's `AbortController.abort()`); its later callbacks are ignored.
    Abort(ExchangeId),
}

/// The largest declared body length [`ResponseHead::read_whole`] allows.
pub const WHOLE_BODY_MAX: u64 = 1024 * 1024;

/// Status and headers of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponseHead {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl ResponseHead {
    /// A response head.
    pub fn new(status: u16, headers: Vec<(String, String)>) -> Self {
        ResponseHead { status, headers }
    }

    /// The value of a header (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_value(&self.headers, name)
    }

    /// An opaque redirect: what a browser's `fetch(..., {redirect: "manual"})` gives for a 3xx,
    /// with neither the status nor the `Location` readable. Drivers report it as status 0.
    pub fn opaque_redirect() -> Self {
        ResponseHead::new(0, Vec::new())
    }

    /// Whether the server answered with a redirect (3xx, or an [opaque
    /// one](ResponseHead::opaque_redirect)). Sessions never follow one.
    pub fn is_redirect(&self) -> bool {
        self.status == 0 || (300..400).contains(&self.status)
    }

    /// Whether the body is an event stream.
    pub fn is_event_stream(&self) -> bool {
        self.header("content-type")
            .is_some_and(|ct| ct.to_ascii_lowercase().contains("text/event-stream"))
    }

    /// Whether the driver may read this response's body whole, in one step, instead of chunk
    /// by chunk: a plain answer to a request that is not long-lived, with a declared length up
    /// to [`WHOLE_BODY_MAX`]. Anything else is streamed, so an event stream is decoded as it
    /// arrives and the session's size limit stops an oversized body before it is all in memory.
    pub fn read_whole(&self, request: &HttpRequest) -> bool {
        let small = self
            .header("content-length")
            .and_then(|len| len.trim().parse::<u64>().ok())
            .is_some_and(|len| len <= WHOLE_BODY_MAX);
        small && !request.long_lived && !self.is_event_stream()
    }

    /// `Retry-After` in milliseconds, for its delta-seconds form (the date form needs a clock
    /// we do not have; it is ignored).
    pub fn retry_after_ms(&self) -> Option<u64> {
        self.header("retry-after")?
            .trim()
            .parse::<u64>()
            .ok()
            .map(|s| s.saturating_mul(1000))
    }
}

fn header_value<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_parse_by_name_in_any_case() {
        let table = [
            ("GET", Some(HttpMethod::Get)),
            ("post", Some(HttpMethod::Post)),
            ("Delete", Some(HttpMethod::Delete)),
            ("PUT", None),
            ("", None),
            ("GETX", None),
        ];
        for (name, want) in table {
            assert_eq!(HttpMethod::parse(name), want, "{name}");
        }
    }

    #[test]
    fn only_small_plain_answers_are_read_whole() {
        let request = |long_lived| HttpRequest {
            exchange: ExchangeId(1),
            method: HttpMethod::Post,
            url: "http://127.0.0.1:1/mcp".into(),
            headers: Vec::new(),
            body: None,
            long_lived,
        };
        // (content-type, content-length, long-lived request, read whole)
        let table = [
            ("application/json", Some("120"), false, true),
            ("application/json", Some("1048576"), false, true),
            ("application/json", Some("1048577"), false, false),
            ("application/json", Some(" 12 "), false, true),
            ("application/json", Some("many"), false, false),
            ("application/json", None, false, false),
            ("application/json", Some("120"), true, false),
            ("text/event-stream", Some("120"), false, false),
            (
                "Text/Event-Stream; charset=utf-8",
                Some("120"),
                false,
                false,
            ),
        ];
        for (content_type, length, long_lived, want) in table {
            let mut headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
            if let Some(length) = length {
                headers.push(("Content-Length".to_owned(), length.to_owned()));
            }
            let head = ResponseHead::new(200, headers);
            assert_eq!(
                head.read_whole(&request(long_lived)),
                want,
                "{content_type} {length:?} {long_lived}"
            );
        }
    }
}
