//! `relay_core::pattern`: JSON Schema's `pattern` (ECMA-262, unanchored) for the subset the core
//! reads, table-driven; every expectation is what `new RegExp(pattern, 'u').test(text)` gives in
//! a browser. What the subset does not read, and matches that take too long, are `None`.

use relay_core::pattern::{matches, MAX_TEXT};

#[test]
fn the_subset_matches_as_ecma_262_does() {
    let cases: &[(&str, &str, bool)] = &[
        ("^[A-Z]{3}$", "ABC", true),
        ("^[A-Z]{3}$", "ABCD", false),
        ("^[A-Z]{3}$", "abc", false),
        ("[A-Z]{3}", "xxABCxx", true),
        ("abc", "xxabcxx", true),
        ("^abc", "xabc", false),
        ("^\\d{3}-\\d{4}$", "555-1234", true),
        ("^\\d{3}-\\d{4}$", "555-12345", false),
        ("^\\w+@\\w+\\.com$", "ada@example.com", true),
        ("^\\w+@\\w+\\.com$", "ada@example.org", false),
        ("^[^\\s]+$", "no-spaces", true),
        ("^[^\\s]+$", "has space", false),
        ("^\\S*$", "x y", false),
        ("^(?:red|green|blue)$", "green", true),
        ("^(red|green|blue)$", "greenish", false),
        ("^a.c$", "abc", true),
        ("^a.c$", "a\nc", false),
        ("^colou?r$", "color", true),
        ("^colou?r$", "colour", true),
        ("^ab*c$", "ac", true),
        ("^ab+c$", "ac", false),
        ("^a{2,3}$", "aaa", true),
        ("^a{2,3}$", "aaaa", false),
        ("^a{2,}$", "aaaaa", true),
        ("^(ab)+$", "ababab", true),
        ("^(ab)+$", "ababa", false),
        ("^a.*?b$", "axxb", true),
        ("^[a-z0-9_-]+$", "snake_case-1", true),
        ("^[-a]+$", "-a-", true),
        ("^[\\d.]+$", "3.14", true),
        ("^\\$\\d+$", "$42", true),
        ("^[é-ü]$", "ö", true),
        ("^(a|)+$", "aaa", true),
        ("", "anything", true),
        ("^$", "", true),
        ("^$", "x", false),
    ];
    for (pattern, text, expected) in cases {
        assert_eq!(
            matches(pattern, text),
            Some(*expected),
            "/{pattern}/ on {text:?}"
        );
    }
}

#[test]
fn what_the_subset_does_not_read_is_left_to_the_server() {
    for pattern in [
        "(?=a)a",
        "(?!a)b",
        "(?<year>\\d{4})",
        "(a)\\1",
        "\\bword\\b",
        "\\p{L}+",
        "\\u00e9",
        "[",
        "a{2",
        "*a",
        "(a",
        "a)",
        "[z-a]",
        "a**",
    ] {
        assert_eq!(matches(pattern, "a"), None, "/{pattern}/");
    }
}

#[test]
fn a_catastrophic_pattern_gives_up_instead_of_freezing() {
    let text = format!("{}!", "a".repeat(40));
    assert_eq!(matches("^(a+)+$", &text), None);
    assert_eq!(matches("^(a|a)*$", &text), None);
    // Long inputs of simple patterns still match, up to the bound; longer ones are the server's.
    assert_eq!(matches("^[a-z]+$", &"x".repeat(MAX_TEXT)), Some(true));
    assert_eq!(matches("^[a-z]+$", &"x".repeat(MAX_TEXT + 1)), None);
}
