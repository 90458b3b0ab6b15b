//! Just enough URL handling for MCP endpoints: parse an absolute `http(s)` URL, resolve a
//! reference against it (RFC 3986 §5.2, for the legacy transport's `endpoint` event), and tell
//! whether it points at this computer.
//!
//! Written here rather than taken from the `url` crate, whose IDNA tables would add a few
//! hundred kilobytes to the wasm module for host names we never need to normalise.

use std::fmt;

use thiserror::Error;

/// Why a string is not a usable endpoint URL.
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
            return Err(UrlError::BadCharacters(input.to_owned()));
        }
        let (scheme, rest) = input
            .split_once("://")
            .ok_or_else(|| UrlError::NotHttp(input.to_owned()))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(UrlError::NotHttp(input.to_owned()));
        }
        let rest = rest.split('#').next().unwrap_or_default();
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if host_of(authority).is_empty() {
            return Err(UrlError::NoHost(input.to_owned()));
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

    /// `scheme://host[:port]`, the host lower-cased, without userinfo.
    pub fn origin(&self) -> String {
        let authority = self
            .authority
            .rsplit_once('@')
            .map_or(self.authority.as_str(), |(_, a)| a);
        format!("{}://{}", self.scheme, authority.to_ascii_lowercase())
    }

    /// The host, without port or brackets' contents changed (`[::1]` stays bracketed).
    pub fn host(&self) -> &str {
        host_of(&self.authority)
    }

    /// Whether the host is this computer (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`):
    /// such servers commonly reject foreign `Origin` headers.
    pub fn is_loopback(&self) -> bool {
        let host = self.host().to_ascii_lowercase();
        if host == "localhost" || host.ends_with(".localhost") || host == "[::1]" {
            return true;
        }
        let octets: Vec<&str> = host.split('.').collect();
        octets.len() == 4 && octets[0] == "127" && octets.iter().all(|o| o.parse::<u8>().is_ok())
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
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
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
