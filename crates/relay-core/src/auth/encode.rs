//! The encodings OAuth needs, written here to keep the core free of a URL crate (see
//! `client::url`): `application/x-www-form-urlencoded` bodies and query strings (encode and
//! decode), and base64 for PKCE (url-safe, unpadded) and HTTP Basic (standard, padded).

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;

/// Percent-encodes everything but RFC 3986's unreserved characters. Spaces become `%20`, which
/// every form decoder accepts, and the same text is then valid in a query string.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(hex_digit(b >> 4));
            out.push(hex_digit(b & 0xf));
        }
    }
    out
}

fn hex_digit(n: u8) -> char {
    char::from(if n < 10 { b'0' + n } else { b'A' + n - 10 })
}

/// Decodes one form or query component: `+` is a space, `%XX` a byte; malformed escapes stay as
/// written and invalid UTF-8 is replaced (a callback URL is untrusted input, never a reason to
/// fail).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match (hex_value(bytes[i + 1]), hex_value(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push(h << 4 | l);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `k1=v1&k2=v2`, each part percent-encoded, in the given order.
pub fn form_encode(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&percent_encode(k));
        out.push('=');
        out.push_str(&percent_encode(v));
    }
    out
}

/// The decoded pairs of a form body or query string (without its `?`).
pub fn form_decode(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(part), String::new()),
        })
        .collect()
}

/// The decoded query parameters of a URL (`?` to `#`).
pub fn query_params(url: &str) -> Vec<(String, String)> {
    let without_fragment = url.split('#').next().unwrap_or_default();
    match without_fragment.split_once('?') {
        Some((_, query)) => form_decode(query),
        None => Vec::new(),
    }
}

/// `url` with `pairs` appended to its query (an endpoint may already carry one, RFC 6749 §3.1).
pub fn append_query(url: &str, pairs: &[(&str, &str)]) -> String {
    // A fragment is never sent; drop it rather than put the query after it.
    let base = url.split('#').next().unwrap_or_default();
    let separator = if base.contains('?') {
        if base.ends_with('?') || base.ends_with('&') {
            ""
        } else {
            "&"
        }
    } else {
        "?"
    };
    format!("{base}{separator}{}", form_encode(pairs))
}

/// Base64url without padding (RFC 4648 §5), as PKCE (RFC 7636 §4.2) wants it.
pub fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The `Authorization` value of HTTP Basic client authentication (RFC 6749 §2.3.1: id and
/// secret are form-encoded first, then joined by `:` and base64-encoded).
pub fn basic_authorization(client_id: &str, client_secret: &str) -> String {
    let joined = format!(
        "{}:{}",
        percent_encode(client_id),
        percent_encode(client_secret)
    );
    format!("Basic {}", STANDARD.encode(joined.as_bytes()))
}
