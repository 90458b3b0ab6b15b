//! A link as the user must see it before opening it (MCP 2025-11-25: a client shows the target
//! host of a URL elicitation clearly). A server writes the URL; what counts is the host the
//! browser will open, which the written text can hide:
//!
//! - userinfo: `https://accounts.google.com@127.0.0.1:8080/` opens `127.0.0.1`, not Google;
//! - look-alike letters: `https://аpple.com` (a Cyrillic `а`) opens `xn--pple-43d.com`;
//! - encodings a browser undoes: percent-escapes in the host, backslashes (WHATWG reads `\` as
//!   `/` in http(s) URLs, so `https://evil.example\@bank.example` opens `evil.example`), the
//!   ideographic full stops that separate labels like `.`.
//!
//! [`Link::parse`] finds the host as a browser does for the URLs it accepts, in both forms: the
//! ASCII one the browser opens (punycode, RFC 3492, written here rather than taken from an IDNA
//! crate whose tables would weigh hundreds of kilobytes in the wasm module) and the Unicode one
//! a person reads, and flags what deserves a warning. URLs whose host a browser would rewrite
//! in ways this does not reproduce (percent-escapes, backslashes, full-width letters, an
//! invalid punycode label) are refused instead of shown wrongly. The side panel also compares
//! [`Link::host`] with its browser's own parse before it opens anything.

use serde::Serialize;
use thiserror::Error;

/// Why a link is not shown.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LinkError {
    #[error("the link is not an http:// or https:// URL")]
    NotHttp,
    #[error("the link contains spaces, control characters or backslashes")]
    BadCharacters,
    #[error("the link has no host")]
    NoHost,
    #[error("the link's host `{0}` is written in a way a browser would rewrite")]
    BadHost(String),
}

/// What deserves the user's attention about a link, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum LinkWarning {
    /// Text before an `@`: it reads like a host, and is not where the link goes.
    Userinfo,
    /// International letters in the host: it may imitate another address.
    International,
    /// Plain `http://` to a host that is not this computer: not encrypted.
    Unencrypted,
}

/// A parsed http(s) link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Link {
    /// `http` or `https`.
    pub scheme: String,
    /// The host the browser opens, lower-cased, international labels in punycode (`xn--…`).
    pub host: String,
    /// The host in Unicode, when it differs from [`Link::host`] (an international name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unicode_host: Option<String>,
    /// The port, when one is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The user name written before `@` (never the password), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub userinfo: Option<String>,
    pub warnings: Vec<LinkWarning>,
}

impl Link {
    /// Reads `url` as a browser would open it.
    pub fn parse(url: &str) -> Result<Link, LinkError> {
        if url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        {
            return Err(LinkError::BadCharacters);
        }
        let (scheme, rest) = url.split_once("://").ok_or(LinkError::NotHttp)?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(LinkError::NotHttp);
        }
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        // A browser takes the host after the last `@`; the rest is userinfo.
        let (userinfo, host_port) = match authority.rfind('@') {
            Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
            None => (None, authority),
        };
        let (host, port) = split_port(host_port)?;
        // As a browser writes it: a number, without the scheme's default.
        let port = match port.map(str::parse::<u16>) {
            None => None,
            Some(Err(_)) => return Err(LinkError::BadHost(host_port.to_owned())),
            Some(Ok(n)) if n == if scheme == "https" { 443 } else { 80 } => None,
            Some(Ok(n)) => Some(n.to_string()),
        };
        if host.is_empty() {
            return Err(LinkError::NoHost);
        }
        let (host, unicode) = if host.starts_with('[') {
            (host.to_ascii_lowercase(), None)
        } else {
            hosts(host)?
        };
        let mut warnings = Vec::new();
        let user = userinfo.map(|u| u.split(':').next().unwrap_or_default().to_owned());
        if userinfo.is_some() {
            warnings.push(LinkWarning::Userinfo);
        }
        if unicode.is_some() {
            warnings.push(LinkWarning::International);
        }
        if scheme == "http" && !is_loopback(&host) {
            warnings.push(LinkWarning::Unencrypted);
        }
        Ok(Link {
            scheme,
            host,
            unicode_host: unicode,
            port,
            userinfo: user,
            warnings,
        })
    }
}

fn split_port(host_port: &str) -> Result<(&str, Option<&str>), LinkError> {
    let colon = if host_port.starts_with('[') {
        let close = host_port
            .find(']')
            .ok_or_else(|| LinkError::BadHost(host_port.to_owned()))?;
        host_port[close..].find(':').map(|i| close + i)
    } else {
        host_port.rfind(':')
    };
    let Some(colon) = colon else {
        return Ok((host_port, None));
    };
    let port = &host_port[colon + 1..];
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LinkError::BadHost(host_port.to_owned()));
    }
    Ok((&host_port[..colon], (!port.is_empty()).then_some(port)))
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.ends_with(".localhost") || host == "[::1]" || {
        let octets: Vec<&str> = host.split('.').collect();
        octets.len() == 4 && octets[0] == "127" && octets.iter().all(|o| o.parse::<u8>().is_ok())
    }
}

/// The host in ASCII (as opened) and, when it has international labels, in Unicode.
fn hosts(host: &str) -> Result<(String, Option<String>), LinkError> {
    let bad = || LinkError::BadHost(host.to_owned());
    // Characters a browser maps to others (UTS 46) that this does not reproduce: refused.
    let remapped = |c: char| {
        matches!(c, '%' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}')
            || ('\u{FF01}'..='\u{FF5E}').contains(&c)
            || c.is_uppercase() && c.to_lowercase().count() != 1
    };
    if host.chars().any(remapped) {
        return Err(bad());
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    let mut ascii = Vec::new();
    let mut unicode = Vec::new();
    for label in host.split('.') {
        if label.is_empty() {
            return Err(bad());
        }
        let lower: String = label.chars().flat_map(char::to_lowercase).collect();
        if lower.is_ascii() {
            let shown = match lower.strip_prefix("xn--") {
                Some(code) => {
                    let decoded = punycode_decode(code).ok_or_else(bad)?;
                    // A label must decode to something that needed encoding, and back, with
                    // nothing a browser would refuse or map (controls, capitals).
                    let unusable = |c: char| c.is_control() || c.is_uppercase() || c == '.';
                    if decoded.is_ascii()
                        || decoded.chars().any(unusable)
                        || punycode_encode(&decoded).as_deref() != Some(code)
                    {
                        return Err(bad());
                    }
                    decoded
                }
                None => lower.clone(),
            };
            ascii.push(lower);
            unicode.push(shown);
        } else {
            let encoded = punycode_encode(&lower).ok_or_else(bad)?;
            ascii.push(format!("xn--{encoded}"));
            unicode.push(lower);
        }
    }
    let (ascii, unicode) = (ascii.join("."), unicode.join("."));
    let unicode = (unicode != ascii).then_some(unicode);
    Ok((ascii, unicode))
}

// ---- punycode (RFC 3492) ---------------------------------------------------------------------

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

fn digit(d: u32) -> char {
    match d {
        0..=25 => char::from(b'a' + d as u8),
        _ => char::from(b'0' + (d - 26) as u8),
    }
}

fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'a'..=b'z' => Some(u32::from(b - b'a')),
        b'A'..=b'Z' => Some(u32::from(b - b'A')),
        b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
        _ => None,
    }
}

/// The punycode of a label (without `xn--`); `None` on overflow.
pub fn punycode_encode(label: &str) -> Option<String> {
    let input: Vec<u32> = label.chars().map(u32::from).collect();
    let mut out: String = label.chars().filter(char::is_ascii).collect();
    let basic = out.len() as u32;
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    while (handled as usize) < input.len() {
        let m = input.iter().copied().filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in &input {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(out)
}

/// The label a punycode string (without `xn--`) stands for; `None` if it is not valid.
pub fn punycode_decode(code: &str) -> Option<String> {
    let (basic, digits) = match code.rfind('-') {
        Some(i) => (&code[..i], &code[i + 1..]),
        None => ("", code),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut out: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut bytes = digits.bytes().peekable();
    while bytes.peek().is_some() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let d = digit_value(bytes.next()?)?;
            i = i.checked_add(d.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if d < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let len = out.len() as u32 + 1;
        bias = adapt(i - old_i, len, old_i == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punycode_round_trips_known_labels() {
        // (Unicode label, its punycode) from registries' published names.
        let table = [
            ("bücher", "bcher-kva"),
            ("münchen", "mnchen-3ya"),
            ("аpple", "pple-43d"),
            ("παράδειγμα", "hxajbheg2az3al"),
            ("δοκιμή", "jxalpdlp"),
            ("中国", "fiqs8s"),
            ("例え", "r8jz45g"),
        ];
        for (unicode, code) in table {
            assert_eq!(punycode_encode(unicode).as_deref(), Some(code), "{unicode}");
            assert_eq!(punycode_decode(code).as_deref(), Some(unicode), "{code}");
        }
        for bad in ["99999999999999", "a-!", "-$"] {
            assert_eq!(punycode_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn links_show_the_host_a_browser_opens() {
        use LinkWarning::*;
        // (url, host, unicode host, user name, warnings)
        type Row = (
            &'static str,
            &'static str,
            Option<&'static str>,
            Option<&'static str>,
            &'static [LinkWarning],
        );
        let table: [Row; 11] = [
            ("https://example.com/a?b#c", "example.com", None, None, &[]),
            ("HTTPS://Example.COM:8443", "example.com", None, None, &[]),
            (
                "https://accounts.google.com@127.0.0.1:8080/login",
                "127.0.0.1",
                None,
                Some("accounts.google.com"),
                &[Userinfo],
            ),
            (
                "https://a@b@evil.example/",
                "evil.example",
                None,
                Some("a@b"),
                &[Userinfo],
            ),
            (
                "https://user:secret@example.com/",
                "example.com",
                None,
                Some("user"),
                &[Userinfo],
            ),
            (
                "https://аpple.com/",
                "xn--pple-43d.com",
                Some("аpple.com"),
                None,
                &[International],
            ),
            (
                "https://xn--pple-43d.com/",
                "xn--pple-43d.com",
                Some("аpple.com"),
                None,
                &[International],
            ),
            (
                "http://MÜNCHEN.de",
                "xn--mnchen-3ya.de",
                Some("münchen.de"),
                None,
                &[International, Unencrypted],
            ),
            ("http://127.0.0.1:9/cb", "127.0.0.1", None, None, &[]),
            ("https://example.com:443/", "example.com", None, None, &[]),
            ("https://[::1]:8080/x", "[::1]", None, None, &[]),
        ];
        for (url, host, unicode, user, warnings) in table {
            let link = Link::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(link.host, host, "{url}");
            assert_eq!(link.unicode_host.as_deref(), unicode, "{url}");
            assert_eq!(link.userinfo.as_deref(), user, "{url}");
            assert_eq!(link.warnings, warnings, "{url}");
            assert!(
                !format!("{link:?}").contains("secret"),
                "never the password"
            );
        }
    }

    #[test]
    fn links_a_browser_would_rewrite_are_refused() {
        let table = [
            ("javascript:alert(1)", LinkError::NotHttp),
            ("data:text/html,x", LinkError::NotHttp),
            ("chrome://settings", LinkError::NotHttp),
            (
                "https://evil.example\\@bank.example/",
                LinkError::BadCharacters,
            ),
            ("https://bank.example /x", LinkError::BadCharacters),
            ("https:///path", LinkError::NoHost),
            ("https://user@/path", LinkError::NoHost),
        ];
        for (url, want) in table {
            assert_eq!(Link::parse(url), Err(want), "{url}");
        }
        for url in [
            "https://goo%67le.com/",
            "https://google\u{3002}com/",
            "https://ｇｏｏｇｌｅ.com/",
            "https://xn--99999999999999.com/",
            "https://xn--abc.com/",
            "https://a..b/",
            "https://example.com:80a/",
            "https://example.com:65536/",
        ] {
            assert!(
                matches!(Link::parse(url), Err(LinkError::BadHost(_))),
                "{url}: {:?}",
                Link::parse(url)
            );
        }
    }
}
