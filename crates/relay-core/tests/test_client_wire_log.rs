//! Masking in the protocol log (`client::wire_log`), table-driven: headers that carry
//! credentials (keeping the auth scheme), configured secrets and tokens anywhere, JSON keys that
//! name credentials in whole and cut text, and the size bound.

use relay_core::client::wire_log::{mask_header, mask_text, Secrets, WIRE_TEXT_BYTES};

#[test]
fn headers_that_carry_credentials_are_masked() {
    let marked = vec!["X-Team-Pass".to_owned()];
    let secrets = Secrets {
        values: vec!["tok-1234567890"],
        header_names: &marked,
    };
    let cases = [
        ("Authorization", "Bearer abc.def.ghi", "Bearer ••••"),
        ("authorization", "Basic dXNlcjpwdw==", "Basic ••••"),
        ("Authorization", "opaque-credential", "••••"),
        ("DPoP", "eyJhbGciOi.x.y", "••••"),
        ("Cookie", "sid=1", "••••"),
        ("X-API-Key", "k-999", "••••"),
        ("x-team-pass", "hunter2", "••••"),
        ("Mcp-Session-Id", "s-1", "••••"),
        ("Accept", "application/json", "application/json"),
        (
            "X-Echo",
            "carries tok-1234567890 inside",
            "carries •••• inside",
        ),
    ];
    for (name, value, shown) in cases {
        assert_eq!(mask_header(name, value, &secrets), shown, "{name}: {value}");
    }
}

#[test]
fn json_credentials_and_known_secrets_are_masked_in_whole_and_cut_text() {
    let secrets = Secrets {
        values: vec!["sk-live-1234567890"],
        header_names: &[],
    };
    let cases = [
        (
            r#"{"access_token":"abc","token_type":"Bearer"}"#,
            r#"{"access_token":"••••","token_type":"Bearer"}"#,
        ),
        (
            r#"{"refresh_token" : "r-1", "expires_in": 3600}"#,
            r#"{"refresh_token" : "••••", "expires_in": 3600}"#,
        ),
        (r#"{"apiKey":"a\"b","x":1}"#, r#"{"apiKey":"••••","x":1}"#),
        (r#"{"client-secret":"s"}"#, r#"{"client-secret":"••••"}"#),
        (r#"{"password":12345}"#, r#"{"password":12345}"#),
        (r#"{"text":"token"}"#, r#"{"text":"token"}"#),
        (
            r#"{"note":"key sk-live-1234567890 here"}"#,
            r#"{"note":"key •••• here"}"#,
        ),
        // Cut in the middle of a secret value: what is there is masked.
        (r#"{"id_token":"eyJhbGciOiJSUzI1"#, r#"{"id_token":"••••"#),
    ];
    for (text, masked) in cases {
        assert_eq!(
            mask_text(text, &secrets),
            (masked.to_owned(), None),
            "{text}"
        );
    }
}

#[test]
fn long_text_is_cut_at_the_bound_on_a_character_boundary() {
    let secrets = Secrets::default();
    let long = format!("{{\"text\":\"{}\"}}", "é".repeat(WIRE_TEXT_BYTES));
    let (kept, cut) = mask_text(&long, &secrets);
    assert!(kept.len() <= WIRE_TEXT_BYTES);
    assert_eq!(kept.len() + cut.expect("cut"), long.len());
}
