//! Just enough URL handling for MCP endpoints: parse an absolute `http(s)` URL, resolve a
//! reference against it (RFC 3986 §5.2, for the legacy transport's `endpoint` event), tell
//! whether it points at this computer (the one definition of "loopback" in the project), and
//! redact it for display.
//!
//! Redaction: server URLs often carry credentials (`https://user:pw@host/mcp?token=…`), and the
//! client's texts end up in a chat the model and the site can read. Every text the client
//! produces names a server by [`HttpUrl::redacted`] (or [`redact_url`] for a string that did not
//! parse): `scheme://host[:port]/path`, userinfo removed, every query value replaced by `…` (the
//! names stay: they say what kind of parameter was there), the fragment dropped.
//! [`scrub_urls`] does the same to every URL quoted inside a free text (a fetch failure, a
//! server's error body). The full form ([`fmt::Display`]) is only for the requests themselves.
//!
//! Written here rather than taken from the `url` crate, whose IDNA tables would add a few
//! hundred kilobytes to the wasm module for host names we never need to normalise.

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

/// Why a string is not a usable endpoint URL. The string it quotes is redacted
/// ([`redact_url`]): these messages reach the side panel and import reports.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UrlError {
    #[error("`{0}` is not an http:// or https:// URL")]
    NotHttp(String),
    #[error("`{0}` has no host")]
    NoHost(String),
    #[error("`{0}` contains spaces or control characters")]
    BadCharacters(String),
}

/// An absolute http(s) URL split into its RFC 3986 parts (the fragment is dropped: it is never
/// sent to a server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    scheme: String,
    authority: String,
    path: String,
    query: Option<String>,
}

impl HttpUrl {
    /// Parses an absolute `http://` or `https://` URL.
    pub fn parse(input: &str) -> Result<HttpUrl, UrlError> {
        let input = input.trim();
        if input.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UrlError::BadCharacters(redact_url(input)));
        }
        let (scheme, rest) = input
            .split_once("://")
            .ok_or_else(|| UrlError::NotHttp(redact_url(input)))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(UrlError::NotHttp(redact_url(input)));
        }
        let rest = rest.split('#').next().unwrap_or_default();
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if host_of(authority).is_empty() {
            return Err(UrlError::NoHost(redact_url(input)));
        }
        let (path, query) = split_query(&rest[authority_end..]);
        let path = if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        };
        Ok(HttpUrl {
            scheme,
            authority: authority.to_owned(),
            path,
            query: query.map(str::to_owned),
        })
    }

    /// Resolves a reference (absolute URL, `//host/...`, `/path`, `relative/path`, `?query`)
    /// against this URL, per RFC 3986 §5.2.2.
    pub fn join(&self, reference: &str) -> Result<HttpUrl, UrlError> {
        let reference = reference.trim();
        let reference = reference.split('#').next().unwrap_or_default();
        if let Some((scheme, _)) = reference.split_once(':') {
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                return HttpUrl::parse(reference);
            }
        }
        if let Some(rest) = reference.strip_prefix("//") {
            return HttpUrl::parse(&format!("{}://{rest}", self.scheme));
        }
        let (ref_path, ref_query) = split_query(reference);
        let (path, query) = if ref_path.is_empty() {
            (
                self.path.clone(),
                ref_query.map(str::to_owned).or_else(|| self.query.clone()),
            )
        } else if ref_path.starts_with('/') {
            (remove_dot_segments(ref_path), ref_query.map(str::to_owned))
        } else {
            let base_dir = match self.path.rfind('/') {
                Some(i) => &self.path[..=i],
                None => "/",
            };
            (
                remove_dot_segments(&format!("{base_dir}{ref_path}")),
                ref_query.map(str::to_owned),
            )
        };
        Ok(HttpUrl {
            scheme: self.scheme.clone(),
            authority: self.authority.clone(),
            path,
            query,
        })
    }

    /// The scheme, lower-cased (`http` or `https`).
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The path, `/` at least, as written (no query).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The host, without port or brackets' contents changed (`[::1]` stays bracketed).
    pub fn host(&self) -> &str {
        host_of(&self.authority)
    }

    /// The port written in the URL, if any.
    pub fn port(&self) -> Option<&str> {
        let host_port = strip_userinfo(&self.authority);
        let after_host = &host_port[self.host().len()..];
        after_host.strip_prefix(':').filter(|p| !p.is_empty())
    }

    /// Whether the host is this computer (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`,
    /// case-insensitive): such servers commonly reject foreign `Origin` headers. The one
    /// definition of loopback in the project ([`loopback_origin`] uses it).
    pub fn is_loopback(&self) -> bool {
        let host = self.host().to_ascii_lowercase();
        if host == "localhost" || host.ends_with(".localhost") || host == "[::1]" {
            return true;
        }
        let octets: Vec<&str> = host.split('.').collect();
        octets.len() == 4 && octets[0] == "127" && octets.iter().all(|o| o.parse::<u8>().is_ok())
    }

    /// The origin, `scheme://host[:port]` (RFC 6454 serialization): host lower-cased, userinfo
    /// dropped, and the port only when it is not the scheme's default.
    pub fn origin(&self) -> String {
        let host = self.host().to_ascii_lowercase();
        let default_port = if self.scheme == "https" { "443" } else { "80" };
        match self.port() {
            Some(port) if port != default_port => format!("{}://{host}:{port}", self.scheme),
            _ => format!("{}://{host}", self.scheme),
        }
    }

    /// The URL as it may be shown: `scheme://host[:port]/path`, no userinfo, every query value
    /// replaced by `…` (names kept), no fragment. Use it for every text a user or model sees.
    pub fn redacted(&self) -> String {
        let mut out = format!(
            "{}://{}{}",
            self.scheme,
            strip_userinfo(&self.authority),
            self.path
        );
        if let Some(query) = &self.query {
            out.push('?');
            push_redacted_query(&mut out, query);
        }
        out
    }
}

/// The origin of `url` if it parses and points at this computer ([`HttpUrl::is_loopback`]),
/// e.g. `http://127.0.0.1:3001` for `http://user:pw@127.0.0.1:3001/mcp?token=x`.
pub fn loopback_origin(url: &str) -> Option<String> {
    HttpUrl::parse(url)
        .ok()
        .filter(HttpUrl::is_loopback)
        .map(|u| u.origin())
}

/// Redacts a string meant to be a URL even if it does not parse (a bad configuration, a
/// reference from a server): userinfo before the host removed, query values replaced by `…`,
/// fragment dropped. Idempotent.
pub fn redact_url(text: &str) -> String {
    let text = text.split('#').next().unwrap_or_default();
    let (before_query, query) = split_query(text);
    let (prefix, rest) = match before_query.find("://") {
        Some(i) => before_query.split_at(i + 3),
        None => ("", before_query),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let mut out = String::with_capacity(text.len());
    out.push_str(prefix);
    out.push_str(strip_userinfo(authority));
    out.push_str(path);
    if let Some(query) = query {
        out.push('?');
        push_redacted_query(&mut out, query);
    }
    out
}

/// Redacts every `http://` or `https://` URL quoted in a free text ([`redact_url`]): a URL runs
/// to the next whitespace, quote, angle bracket or backtick. Text without one is borrowed as is.
pub fn scrub_urls(text: &str) -> Cow<'_, str> {
    let Some(first) = find_url_start(text, 0) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut at = first;
    loop {
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || "\"'<>`".contains(c))
            .map_or(text.len(), |i| at + i);
        out.push_str(&redact_url(&text[at..end]));
        match find_url_start(text, end) {
            Some(next) => {
                out.push_str(&text[end..next]);
                at = next;
            }
            None => {
                out.push_str(&text[end..]);
                return Cow::Owned(out);
            }
        }
    }
}

fn find_url_start(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    (from..bytes.len()).find(|&i| {
        let rest = &bytes[i..];
        [&b"http://"[..], &b"https://"[..]]
            .iter()
            .any(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p))
    })
}

fn strip_userinfo(authority: &str) -> &str {
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

/// `a=1&b&c=` becomes `a=…&…&c=…`: a bare item may itself be a secret.
fn push_redacted_query(out: &mut String, query: &str) {
    for (i, item) in query.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        match item.split_once('=') {
            Some((name, _)) => {
                out.push_str(name);
                out.push_str("=…");
            }
            None if item.is_empty() => {}
            None => out.push('…'),
        }
    }
}

impl fmt::Display for HttpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}{}", self.scheme, self.authority, self.path)?;
        if let Some(query) = &self.query {
            write!(f, "?{query}")?;
        }
        Ok(())
    }
}

fn host_of(authority: &str) -> &str {
    let host_port = strip_userinfo(authority);
    if host_port.starts_with('[') {
        return host_port
            .find(']')
            .map_or(host_port, |end| &host_port[..=end]);
    }
    host_port.split(':').next().unwrap_or_default()
}

fn split_query(s: &str) -> (&str, Option<&str>) {
    match s.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (s, None),
    }
}

/// RFC 3986 §5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut output: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    output.push("");
                }
            }
            ".." => {
                if output.len() > 1 {
                    output.pop();
                }
                if i == last {
                    output.push("");
                }
            }
            s => output.push(s),
        }
    }
    let joined = output.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}
