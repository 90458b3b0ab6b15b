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
            Err("field `email`: is required"),
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
        json!({"mode": "url", "message": "Sign in", "url": "https://x.example/a", "elicitationId": "e1"})
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
