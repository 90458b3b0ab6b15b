//! `HttpUrl`'s display forms and the one definition of loopback: redaction (`redacted`,
//! `redact_url`, `scrub_urls`), `origin` and `loopback_origin`, table-driven.

use relay_core::client::url::{loopback_origin, redact_url, scrub_urls};
use relay_core::client::HttpUrl;

#[test]
fn redacted_keeps_where_the_server_is_and_nothing_secret() {
    // (URL, redacted, redact_url's form: the same but without parsing's normalisation)
    let cases = [
        (
            "https://user:pw@mcp.example.com:8443/mcp/v1?token=SECRET&x=1#frag",
            "https://mcp.example.com:8443/mcp/v1?token=…&x=…",
            None,
        ),
        (
            "http://127.0.0.1:3001/mcp",
            "http://127.0.0.1:3001/mcp",
            None,
        ),
        ("http://h", "http://h/", Some("http://h")),
        ("HTTP://h/p?#f", "http://h/p?", Some("HTTP://h/p?")),
        ("http://h/p?key", "http://h/p?…", None),
        ("http://h/p?a=&b==c&&d", "http://h/p?a=…&b=…&&…", None),
        ("http://a@b@h/p", "http://h/p", None),
        ("http://h/p@q?r=s", "http://h/p@q?r=…", None),
        (
            "http://[::1]:8080/sse?session_id=abc",
            "http://[::1]:8080/sse?session_id=…",
            None,
        ),
    ];
    for (url, expected, loose) in cases {
        let parsed = HttpUrl::parse(url).expect("valid");
        assert_eq!(parsed.redacted(), expected, "{url}");
        let loose = loose.unwrap_or(expected);
        assert_eq!(redact_url(url), loose, "{url} (loose)");
        // Idempotent: redacting a redacted URL changes nothing.
        assert_eq!(redact_url(expected), expected, "{url} (twice)");
    }
    // Strings that are not URLs are redacted as well as their shape allows.
    for (text, expected) in [
        ("user:pw@host/p?token=SECRET#frag", "host/p?token=…"),
        ("ftp://u:pw@h/p?k=v", "ftp://h/p?k=…"),
        ("https://u:pw@/p?k=v", "https:///p?k=…"),
        ("", ""),
    ] {
        assert_eq!(redact_url(text), expected, "{text}");
    }
}

#[test]
fn scrub_urls_redacts_every_url_in_a_text() {
    let cases = [
        ("no url here", "no url here"),
        (
            "request to https://u:pw@h/mcp?token=S failed",
            "request to https://h/mcp?token=… failed",
        ),
        (
            "a \"http://h/?a=1\" and <HTTPS://x:y@h2/p#f>, `http://h3?k=v`",
            "a \"http://h/?a=…\" and <HTTPS://h2/p>, `http://h3?k=…`",
        ),
        ("ends with http://h/p?t=1", "ends with http://h/p?t=…"),
        ("é http://h/?t=ü ü", "é http://h/?t=… ü"),
        ("httpx://h/?t=1 http:/h?t=1", "httpx://h/?t=1 http:/h?t=1"),
    ];
    for (text, expected) in cases {
        assert_eq!(scrub_urls(text), expected, "{text}");
    }
}

#[test]
fn loopback_is_one_definition() {
    let cases = [
        ("http://localhost:3001/mcp", true),
        ("http://LocalHost/mcp", true),
        ("http://api.localhost/mcp", true),
        ("http://API.LOCALHOST:1/", true),
        ("http://127.0.0.1:3001", true),
        ("http://127.255.255.254/", true),
        ("http://[::1]:8080/mcp", true),
        ("http://evil.example@127.0.0.1/", true),
        ("http://127.0.0.1@evil.example/", false),
        ("http://localhost.example.com/", false),
        ("http://127.0.0.1.nip.io/", false),
        ("http://128.0.0.1/", false),
        ("http://127.0.0.256/", false),
        ("http://127.0.1/", false),
        ("http://[::2]/", false),
        ("https://mcp.example.com/mcp", false),
    ];
    for (url, loopback) in cases {
        let parsed = HttpUrl::parse(url).expect("valid");
        assert_eq!(parsed.is_loopback(), loopback, "{url}");
        assert_eq!(
            loopback_origin(url).is_some(),
            loopback,
            "{url}: loopback_origin agrees with is_loopback"
        );
    }
}

#[test]
fn origin_is_scheme_host_and_port() {
    let cases = [
        ("http://localhost:3001/mcp", "http://localhost:3001"),
        (
            "HTTP://User:pw@LOCALHOST:3001/mcp?x=1#f",
            "http://localhost:3001",
        ),
        ("https://MCP.Example.com/mcp", "https://mcp.example.com"),
        ("https://h:443/x", "https://h"),
        ("http://h:80/x", "http://h"),
        ("http://h:443/x", "http://h:443"),
        ("http://h:/x", "http://h"),
        ("http://[::1]:8080/sse", "http://[::1]:8080"),
        ("http://127.0.0.1", "http://127.0.0.1"),
    ];
    for (url, origin) in cases {
        assert_eq!(
            HttpUrl::parse(url).expect("valid").origin(),
            origin,
            "{url}"
        );
    }
    for (url, expected) in [
        (
            "http://user:pw@127.0.0.1:3001/mcp?token=x",
            Some("http://127.0.0.1:3001"),
        ),
        (
            "http://Api.Localhost:8000/sse",
            Some("http://api.localhost:8000"),
        ),
        ("https://[::1]/mcp", Some("https://[::1]")),
        ("https://mcp.example.com/mcp", None),
        ("not a url", None),
        ("ftp://127.0.0.1/", None),
    ] {
        assert_eq!(loopback_origin(url).as_deref(), expected, "{url}");
    }
}
