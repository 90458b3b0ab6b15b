//! Elicitation answers, table-driven: SEP-1034 defaults for omitted fields (the conformance
//! suite's `elicitation-sep1034-client-defaults` schema among the cases), type and enum checks,
//! required fields, and the URL mode.

use relay_core::elicitation::{accept, cancel, decline, ElicitRequest};
use serde_json::{json, Map, Value};

fn form(params: Value) -> Vec<relay_core::elicitation::Field> {
    match ElicitRequest::parse(&params).expect("parses") {
        ElicitRequest::Form { fields, .. } => fields,
        other => panic!("not a form: {other:?}"),
    }
}

fn content(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn defaults_fill_omitted_fields_and_answers_are_checked() {
    let sep1034 = json!({
        "message": "accept with defaults",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            },
            "required": []
        }
    });
    let required = json!({
        "message": "who?",
        "requestedSchema": {"type": "object", "properties": {
            "email": {"type": "string", "title": "E-mail"},
            "plan": {"type": "string", "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]}
        }, "required": ["email"]}
    });
    // (request, what the user filled in, the answer or the error)
    let cases: Vec<(&Value, Value, Result<Value, &str>)> = vec![
        (
            &sep1034,
            json!({}),
            Ok(json!({"action": "accept", "content": {
            "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true}})),
        ),
        (
            &sep1034,
            json!({"name": "Ann", "verified": false, "age": null}),
            Ok(json!({"action": "accept", "content": {
            "name": "Ann", "age": 30, "score": 95.5, "status": "active", "verified": false}})),
        ),
        (
            &sep1034,
            json!({"status": "gone"}),
            Err("field `status`: is not one of the allowed values"),
        ),
        (
            &sep1034,
            json!({"age": 30.5}),
            Err("field `age`: must be of type integer"),
        ),
        (
            &sep1034,
            json!({"verified": "yes"}),
            Err("field `verified`: must be of type boolean"),
        ),
        (
            &required,
            json!({"email": "a@b.c"}),
            Ok(json!({"action": "accept", "content": {"email": "a@b.c"}})),
        ),
        (
            &required,
            json!({"plan": "pro"}),
            Err("field `email` is required"),
        ),
        (
            &required,
            json!({"email": "a@b.c", "plan": "gold"}),
            Err("field `plan`: is not one of the allowed values"),
        ),
    ];
    for (request, filled, expected) in cases {
        let fields = form(request.clone());
        let got = accept(&fields, &content(filled.clone())).map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{filled}");
    }
    assert_eq!(decline(), json!({"action": "decline"}));
    assert_eq!(cancel(), json!({"action": "cancel"}));
}

#[test]
fn requests_are_read_or_refused() {
    let url = ElicitRequest::parse(&json!({"mode": "url", "message": "Sign in", "url": "https://x.example/a", "elicitationId": "e1"}))
        .expect("url mode");
    assert_eq!(
        serde_json::to_value(&url).expect("ser"),
        json!({"mode": "url", "message": "Sign in", "url": "https://x.example/a", "elicitationId": "e1",
            "link": {"scheme": "https", "host": "x.example", "warnings": []}})
    );
    let refused = [
        json!({"requestedSchema": {"type": "object"}}),
        json!({"message": "m"}),
        json!({"mode": "url", "message": "m", "url": "javascript:alert(1)"}),
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"nested": {"type": "object"}}}}),
    ];
    for params in refused {
        assert!(ElicitRequest::parse(&params).is_err(), "{params}");
    }
    let fields = form(
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "plan": {"type": "string", "oneOf": [{"const": "free"}, {"const": "pro"}], "title": "Plan"}}}}),
    );
    assert_eq!(fields[0].options, Some(vec![json!("free"), json!("pro")]));
    assert_eq!(fields[0].title.as_deref(), Some("Plan"));
    assert!(!fields[0].required);
}

/// The 2025-11-25 schema: multi-selects (arrays of listed strings, plain or titled), titled
/// single selects, and bounds on numbers, string lengths and item counts.
#[test]
fn multi_selects_and_bounds_are_read_and_checked() {
    let fields = form(
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"enum": ["a", "b", "c"]}, "default": ["a"]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Trout"}]}},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "n": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
        "code": {"type": "string", "minLength": 2, "maxLength": 3}},
        "required": ["tags"]}}),
    );
    let by = |name: &str| fields.iter().find(|f| f.name == name).expect(name).clone();
    assert_eq!(by("fish").options, Some(vec![json!("f1"), json!("f2")]));
    assert_eq!(by("hero").options, Some(vec![json!("h1")]));
    let cases = [
        (json!({}), Ok(json!({"tags": ["a"], "n": 42}))),
        (
            json!({"tags": ["b", "c"], "fish": ["f2"]}),
            Ok(json!({"tags": ["b", "c"], "fish": ["f2"], "n": 42})),
        ),
        (
            json!({"tags": []}),
            Err("field `tags`: must have 1 to 2 items"),
        ),
        (
            json!({"tags": ["a", "b", "c"]}),
            Err("field `tags`: must have 1 to 2 items"),
        ),
        (
            json!({"tags": ["z"]}),
            Err("field `tags`: is not one of the allowed values"),
        ),
        (
            json!({"tags": "a"}),
            Err("field `tags`: must be of type array"),
        ),
        (json!({"n": 101}), Err("field `n`: must be within 1 to 100")),
        (
            json!({"code": "x"}),
            Err("field `code`: must be 2 to 3 characters long"),
        ),
        (
            json!({"hero": "h2"}),
            Err("field `hero`: is not one of the allowed values"),
        ),
    ];
    for (filled, expected) in cases {
        let got = accept(&fields, &content(filled.clone()))
            .map(|v| v["content"].clone())
            .map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{filled}");
    }
    let refused = json!({"message": "m", "requestedSchema": {"properties": {"free": {"type": "array", "items": {"type": "string"}}}}});
    assert!(ElicitRequest::parse(&refused).is_err());
}

#[test]
fn fields_that_ask_for_secrets_are_flagged() {
    // (field name, title, description, secret kind)
    type Row = (
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );
    let table: [Row; 12] = [
        ("password", None, None, Some("password")),
        ("login", Some("Google password"), None, Some("password")),
        ("apiKey", None, None, Some("API key")),
        ("key", Some("Your API key"), None, Some("API key")),
        ("OPENAI_API_KEY", None, None, Some("API key")),
        ("access_token", None, None, Some("token")),
        ("cc", None, Some("Credit card number"), Some("card number")),
        ("card_number", None, None, Some("card number")),
        ("cvv", None, None, Some("card number")),
        ("client-secret", None, None, Some("secret")),
        ("email", Some("E-mail"), Some("Where we write to you"), None),
        (
            "keyboard",
            Some("Keyboard layout"),
            Some("spinning top"),
            None,
        ),
    ];
    for (name, title, description, want) in table {
        let mut spec = json!({"type": "string"});
        if let Some(t) = title {
            spec["title"] = json!(t);
        }
        if let Some(d) = description {
            spec["description"] = json!(d);
        }
        let fields = form(json!({
            "message": "m",
            "requestedSchema": {"type": "object", "properties": {name: spec}}
        }));
        assert_eq!(
            fields[0].secret.as_deref(),
            want,
            "{name} {title:?} {description:?}"
        );
    }
}

#[test]
fn url_questions_carry_the_host_they_open() {
    let parse =
        |url: &str| ElicitRequest::parse(&json!({"mode": "url", "message": "m", "url": url}));
    let Ok(ElicitRequest::Url { link, .. }) = parse("https://accounts.google.com@127.0.0.1:8080/x")
    else {
        panic!("a URL question");
    };
    assert_eq!(link.host, "127.0.0.1");
    assert_eq!(link.userinfo.as_deref(), Some("accounts.google.com"));
    let Ok(ElicitRequest::Url { link, .. }) = parse("https://аpple.com/") else {
        panic!("a URL question");
    };
    assert_eq!(
        (link.host.as_str(), link.unicode_host.as_deref()),
        ("xn--pple-43d.com", Some("аpple.com"))
    );
    for refused in [
        "https://evil.example\\@bank.example/",
        "https://goo%67le.com/",
    ] {
        assert!(parse(refused).is_err(), "{refused}");
    }
}

/// A required field left blank is missing (its default, if any, is sent instead); string
/// bounds and the specification's formats are checked; an optional blank field is left out.
#[test]
fn blank_required_fields_lengths_and_formats_are_refused() {
    let request = json!({
        "message": "profile",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 5},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "city": {"type": "string", "default": "Paris"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}}
        }, "required": ["name", "city", "tags"]}
    });
    let fields = form(request);
    let code = fields.iter().find(|f| f.name == "code").expect("code");
    assert_eq!(code.pattern.as_deref(), Some("^[A-Z]{3}$"));
    let email = fields.iter().find(|f| f.name == "email").expect("email");
    assert_eq!(email.format.as_deref(), Some("email"));
    let ok = |extra: Value| {
        let mut c = json!({"name": "Ada", "tags": ["a"]});
        for (k, v) in extra.as_object().expect("object") {
            c[k] = v.clone();
        }
        c
    };
    let cases: Vec<(Value, Result<Value, &str>)> = vec![
        (
            json!({"name": "", "tags": ["a"]}),
            Err("field `name` is required"),
        ),
        (
            json!({"name": "   ", "tags": ["a"]}),
            Err("field `name` is required"),
        ),
        (json!({"tags": ["a"]}), Err("field `name` is required")),
        (json!({"name": "Ada"}), Err("field `tags` is required")),
        (
            json!({"name": "A", "tags": ["a"]}),
            Err("field `name`: must be 2 to 5 characters long"),
        ),
        (
            json!({"name": "Adalove", "tags": ["a"]}),
            Err("field `name`: must be 2 to 5 characters long"),
        ),
        (
            ok(json!({"city": "", "email": "", "code": "ABC"})),
            Ok(json!({"name": "Ada", "city": "Paris", "code": "ABC", "tags": ["a"]})),
        ),
        (
            ok(json!({"code": "abc"})),
            Err("field `code`: is not in the form the server asks for"),
        ),
        (
            ok(json!({"email": "ada@example.com"})),
            Ok(json!({"name": "Ada", "email": "ada@example.com", "city": "Paris", "tags": ["a"]})),
        ),
        (
            ok(json!({"email": "ada"})),
            Err("field `email`: is not a valid email"),
        ),
        (
            ok(json!({"email": "ada@localhost"})),
            Err("field `email`: is not a valid email"),
        ),
        (
            ok(json!({"email": "a da@example.com"})),
            Err("field `email`: is not a valid email"),
        ),
        (
            ok(json!({"email": "a@b@example.com"})),
            Err("field `email`: is not a valid email"),
        ),
        (
            ok(json!({"site": "https://example.com/x"})),
            Ok(
                json!({"name": "Ada", "site": "https://example.com/x", "city": "Paris", "tags": ["a"]}),
            ),
        ),
        (
            ok(json!({"site": "example.com"})),
            Err("field `site`: is not a valid uri"),
        ),
        (
            ok(json!({"site": "1http://x"})),
            Err("field `site`: is not a valid uri"),
        ),
        (
            ok(json!({"born": "2024-02-29"})),
            Ok(json!({"name": "Ada", "born": "2024-02-29", "city": "Paris", "tags": ["a"]})),
        ),
        (
            ok(json!({"born": "2023-02-29"})),
            Err("field `born`: is not a valid date"),
        ),
        (
            ok(json!({"born": "1900-02-29"})),
            Err("field `born`: is not a valid date"),
        ),
        (
            ok(json!({"born": "2024-13-01"})),
            Err("field `born`: is not a valid date"),
        ),
        (
            ok(json!({"born": "24-01-01"})),
            Err("field `born`: is not a valid date"),
        ),
        (
            ok(json!({"at": "2026-11-27T10:00:00Z"})),
            Ok(
                json!({"name": "Ada", "at": "2026-11-27T10:00:00Z", "city": "Paris", "tags": ["a"]}),
            ),
        ),
        (
            ok(json!({"at": "2026-11-27T10:00:00.250+08:00"})),
            Ok(
                json!({"name": "Ada", "at": "2026-11-27T10:00:00.250+08:00", "city": "Paris", "tags": ["a"]}),
            ),
        ),
        (
            ok(json!({"at": "2026-11-27T25:00:00Z"})),
            Err("field `at`: is not a valid date-time"),
        ),
        (
            ok(json!({"at": "2026-11-27T10:00:00"})),
            Err("field `at`: is not a valid date-time"),
        ),
        (
            ok(json!({"at": "2026-11-27"})),
            Err("field `at`: is not a valid date-time"),
        ),
    ];
    for (filled, expected) in cases {
        let expected = expected.map(|c| json!({"action": "accept", "content": c}));
        let got = accept(&fields, &content(filled.clone())).map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{filled}");
    }
}
