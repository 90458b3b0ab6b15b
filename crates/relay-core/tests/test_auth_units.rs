//! The pieces of MCP authorization, table-driven: `WWW-Authenticate` parsing, where metadata
//! is looked for, resource and issuer matching, PKCE's test vector, form and query encoding.

use relay_core::auth::challenge::BearerChallenge;
use relay_core::auth::encode::{
    append_query, basic_authorization, form_decode, form_encode, percent_decode, query_params,
};
use relay_core::auth::metadata::{
    canonical_resource, endpoint_url, resource_covers, resource_metadata_urls, same_issuer,
    server_metadata_urls,
};
use relay_core::auth::pkce::{s256_challenge, Entropy};
use relay_core::client::url::HttpUrl;

fn url(s: &str) -> HttpUrl {
    HttpUrl::parse(s).expect("url")
}

#[test]
fn bearer_challenges() {
    /// (header, resource_metadata, scope, error)
    type Case<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);
    let cases: &[Case] = &[
        (
            r#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource""#,
            Some("https://x/.well-known/oauth-protected-resource"),
            None,
            None,
        ),
        (
            r#"Bearer scope="mcp:basic mcp:write", resource_metadata="http://h/p", error="insufficient_scope""#,
            Some("http://h/p"),
            Some("mcp:basic mcp:write"),
            Some("insufficient_scope"),
        ),
        (
            r#"bearer error=invalid_token,scope="a""#,
            None,
            Some("a"),
            Some("invalid_token"),
        ),
        (
            r#"Basic realm="x", Bearer scope="s""#,
            None,
            Some("s"),
            None,
        ),
        (
            r#"Basic dXNlcjpwYXNz==, Bearer error="invalid_token""#,
            None,
            None,
            Some("invalid_token"),
        ),
        (
            r#"Bearer realm="a \"quoted\" realm", scope="x""#,
            None,
            Some("x"),
            None,
        ),
        (
            r#"Bearer scope="first", scope="second""#,
            None,
            Some("first"),
            None,
        ),
        ("Bearer", None, None, None),
        (
            r#"DPoP algs="ES256", Bearer scope="b""#,
            None,
            Some("b"),
            None,
        ),
    ];
    for (header, rm, scope, error) in cases {
        let c = BearerChallenge::parse(header).unwrap_or_else(|| panic!("no Bearer in {header}"));
        assert_eq!(c.resource_metadata.as_deref(), *rm, "{header}");
        assert_eq!(c.scope.as_deref(), *scope, "{header}");
        assert_eq!(c.error.as_deref(), *error, "{header}");
    }
    for header in ["", "Basic realm=\"x\"", "Negotiate abc", "\"unterminated"] {
        assert_eq!(BearerChallenge::parse(header), None, "{header}");
    }
    let step_up = BearerChallenge::parse(r#"Bearer error="insufficient_scope", scope="a b""#)
        .expect("parsed");
    assert!(step_up.is_insufficient_scope());
    assert_eq!(step_up.scopes(), vec!["a".to_owned(), "b".to_owned()]);
}

#[test]
fn where_metadata_is_looked_for() {
    let cases: &[(&str, &[&str])] = &[
        (
            "https://h.example/mcp",
            &[
                "https://h.example/.well-known/oauth-protected-resource/mcp",
                "https://h.example/.well-known/oauth-protected-resource",
            ],
        ),
        (
            "https://h.example/",
            &["https://h.example/.well-known/oauth-protected-resource"],
        ),
        (
            "http://127.0.0.1:8000/a/b/?q=1",
            &[
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource/a/b",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource",
            ],
        ),
    ];
    for (server, expected) in cases {
        assert_eq!(resource_metadata_urls(&url(server)), *expected, "{server}");
    }
    let cases: &[(&str, &[&str])] = &[
        (
            "https://auth.example",
            &[
                "https://auth.example/.well-known/oauth-authorization-server",
                "https://auth.example/.well-known/openid-configuration",
            ],
        ),
        (
            "https://auth.example/tenant1/",
            &[
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration",
            ],
        ),
    ];
    for (issuer, expected) in cases {
        assert_eq!(server_metadata_urls(&url(issuer)), *expected, "{issuer}");
    }
}

#[test]
fn resource_and_issuer_matching() {
    let server = url("https://H.example:443/mcp/");
    assert_eq!(canonical_resource(&server), "https://h.example/mcp");
    // RFC 9728 §3.3: the resource identical to the one the metadata was asked for, never a
    // parent path. (resource, fetched from, covers)
    let inserted = "https://h.example/.well-known/oauth-protected-resource/mcp";
    let root = "https://h.example/.well-known/oauth-protected-resource";
    let challenge = "https://h.example/meta/prm.json";
    let cases = [
        ("https://h.example/mcp", inserted, true),
        ("HTTPS://H.EXAMPLE:443/mcp/", inserted, true),
        ("https://h.example/mcp", root, true),
        ("https://h.example/mcp", challenge, true),
        // The root metadata is about the origin.
        ("https://h.example", root, true),
        ("https://h.example/", root, true),
        ("https://h.example", inserted, false),
        ("https://h.example", challenge, false),
        ("https://h.example/MCP", inserted, false),
        ("https://h.example/mc", inserted, false),
        ("https://h.example/mcp/deeper", inserted, false),
        ("https://evil.example/mcp", inserted, false),
        ("http://h.example/mcp", inserted, false),
        ("not a url", inserted, false),
    ];
    for (resource, fetched_from, ok) in cases {
        assert_eq!(
            resource_covers(resource, &server, fetched_from),
            ok,
            "{resource} from {fetched_from}"
        );
    }
    // A server below a parent path: metadata for the parent never covers it.
    let deep = url("https://h.example/a/mcp");
    let parent = "https://h.example/.well-known/oauth-protected-resource/a/mcp";
    assert!(!resource_covers("https://h.example/a", &deep, parent));
    assert!(!resource_covers(
        "https://h.example/a",
        &deep,
        "https://h.example/.well-known/oauth-protected-resource"
    ));
    assert!(same_issuer("https://a.example/", "https://a.example"));
    assert!(!same_issuer("https://a.example/t1", "https://a.example"));
    assert!(endpoint_url("https://a.example/token").is_ok());
    assert!(endpoint_url("http://localhost:9/token").is_ok());
    assert_eq!(
        endpoint_url("http://a.example/token")
            .map_err(|e| e.kind().as_str())
            .err(),
        Some("auth_bad_url")
    );
    assert_eq!(
        endpoint_url("ftp://a.example")
            .map_err(|e| e.kind().as_str())
            .err(),
        Some("auth_bad_url")
    );
}

#[test]
fn pkce() {
    // RFC 7636 Appendix B.
    assert_eq!(
        s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
    let mut a = Entropy::new(&[1; 32]).expect("seed");
    let mut b = Entropy::new(&[2; 32]).expect("seed");
    let (a1, a2, b1) = (a.next_token("v"), a.next_token("v"), b.next_token("v"));
    assert_ne!(a1, a2);
    assert_ne!(a1, b1);
    assert_eq!(a1.len(), 43);
    assert!(a1
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    assert!(Entropy::new(&[0; 31]).is_none());
}

#[test]
fn encodings() {
    assert_eq!(
        form_encode(&[("a b", "c&d=e"), ("é", "~._-")]),
        "a%20b=c%26d%3De&%C3%A9=~._-"
    );
    assert_eq!(
        form_decode("a+b=c%26d%3De&%C3%A9=x&flag&bad=%zz"),
        vec![
            ("a b".to_owned(), "c&d=e".to_owned()),
            ("é".to_owned(), "x".to_owned()),
            ("flag".to_owned(), String::new()),
            ("bad".to_owned(), "%zz".to_owned()),
        ]
    );
    assert_eq!(percent_decode("%"), "%");
    assert_eq!(percent_decode("%4"), "%4");
    assert_eq!(
        query_params("http://x/cb?code=a%2Fb&state=s#frag=1"),
        vec![
            ("code".to_owned(), "a/b".to_owned()),
            ("state".to_owned(), "s".to_owned())
        ]
    );
    assert_eq!(
        append_query("https://a/authorize", &[("x", "1")]),
        "https://a/authorize?x=1"
    );
    assert_eq!(
        append_query("https://a/authorize?tenant=t#f", &[("x", "1")]),
        "https://a/authorize?tenant=t&x=1"
    );
    // RFC 6749 §2.3.1: id and secret are form-encoded before base64.
    assert_eq!(basic_authorization("a:b", "c d"), "Basic YSUzQWI6YyUyMGQ=");
}
