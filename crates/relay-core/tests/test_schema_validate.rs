//! Table-driven argument validation: coercions, every error kind, the model-facing message,
//! and `closest_names`. Golden output in `expect!` blocks (regenerate with `UPDATE_EXPECT=1`).

use expect_test::{expect, Expect};
use relay_core::model::Tool;
use relay_core::schema::{closest_names, display_path, validate, ValidationError};
use serde_json::{json, Value};

fn weather() -> Tool {
    Tool::new(
        "get_weather",
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "detailed": {"type": "boolean"},
                "threshold": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
                "location": {"type": "object", "properties": {
                    "lat": {"type": "number", "minimum": -90, "maximum": 90},
                    "lon": {"type": "number"}}, "required": ["lat", "lon"], "additionalProperties": false},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": true},
                "note": {"type": ["string", "null"]},
                "code": {"type": "string"}
            },
            "required": ["city"],
            "additionalProperties": false
        }),
    )
}

fn check(tool: &Tool, cases: &[(&str, Value)], expected: Expect) {
    let mut out = String::new();
    for (name, args) in cases {
        let validated = validate(tool, args);
        out.push_str(&format!(
            "{name}: {}\n",
            serde_json::to_string(&validated.arguments).expect("json")
        ));
        for coercion in &validated.coercions {
            out.push_str(&format!(
                "  coerced {} {} -> {}\n",
                display_path(&coercion.path),
                coercion.from,
                coercion.to
            ));
        }
        if let Some(message) = validated.message_for_model(&tool.name) {
            for line in message.lines() {
                out.push_str(&format!("  | {line}\n"));
            }
        }
    }
    expected.assert_eq(&out);
}

#[test]
fn valid_arguments_pass_unchanged() {
    check(
        &weather(),
        &[
            ("minimal", json!({"city": "Paris"})),
            (
                "full",
                json!({"city": "Paris", "days": 3, "units": "metric", "detailed": false, "threshold": 1.5,
                "location": {"lat": 48.85, "lon": 2.35}, "tags": ["a", "b"], "note": null, "code": "x"}),
            ),
        ],
        expect![[r#"
            minimal: {"city":"Paris"}
            full: {"city":"Paris","days":3,"units":"metric","detailed":false,"threshold":1.5,"location":{"lat":48.85,"lon":2.35},"tags":["a","b"],"note":null,"code":"x"}
        "#]],
    );
}

#[test]
fn safe_coercions_are_applied_and_reported() {
    check(
        &weather(),
        &[
            (
                "numeric strings",
                json!({"city": "Paris", "days": "5", "threshold": " 2.5 "}),
            ),
            ("integral float", json!({"city": "Paris", "days": 3.0})),
            (
                "boolean string",
                json!({"city": "Paris", "detailed": "TRUE"}),
            ),
            ("number to string", json!({"city": "Paris", "code": 42})),
            (
                "object as json string",
                json!({"city": "Paris", "location": "{\"lat\": 1, \"lon\": \"2\"}"}),
            ),
            (
                "array as json string",
                json!({"city": "Paris", "tags": "[\"x\"]"}),
            ),
            ("enum case", json!({"city": "Paris", "units": "Metric"})),
            ("arguments as json string", json!("{\"city\": \"Oslo\"}")),
        ],
        expect![[r#"
            numeric strings: {"city":"Paris","days":5,"threshold":2.5}
              coerced days "5" -> 5
              coerced threshold " 2.5 " -> 2.5
            integral float: {"city":"Paris","days":3}
              coerced days 3.0 -> 3
            boolean string: {"city":"Paris","detailed":true}
              coerced detailed "TRUE" -> true
            number to string: {"city":"Paris","code":"42"}
              coerced code 42 -> "42"
            object as json string: {"city":"Paris","location":{"lat":1,"lon":2}}
              coerced location "{\"lat\": 1, \"lon\": \"2\"}" -> {"lat":1,"lon":"2"}
              coerced location.lon "2" -> 2
            array as json string: {"city":"Paris","tags":["x"]}
              coerced tags "[\"x\"]" -> ["x"]
            enum case: {"city":"Paris","units":"metric"}
              coerced units "Metric" -> "metric"
            arguments as json string: {"city":"Oslo"}
              coerced  "{\"city\": \"Oslo\"}" -> {"city":"Oslo"}
        "#]],
    );
}

#[test]
fn errors_name_the_parameter_and_the_tool() {
    check(
        &weather(),
        &[
            ("missing required", json!({})),
            ("null arguments", Value::Null),
            ("not an object", json!([1, 2])),
            (
                "wrong type",
                json!({"city": "Paris", "days": "soon", "detailed": "yes"}),
            ),
            (
                "out of range",
                json!({"city": "Paris", "days": 30, "threshold": 0}),
            ),
            ("not a multiple", json!({"city": "Paris", "threshold": 0.7})),
            ("enum", json!({"city": "Paris", "units": "kelvin"})),
            ("too short", json!({"city": "P"})),
            (
                "nested",
                json!({"city": "Paris", "location": {"lat": 100, "lng": 2}}),
            ),
            (
                "unknown parameter",
                json!({"city": "Paris", "unit": "metric"}),
            ),
            (
                "array limits",
                json!({"city": "Paris", "tags": ["a", "a", "b"]}),
            ),
            ("array item type", json!({"city": "Paris", "tags": [1, {}]})),
        ],
        expect![[r#"
            missing required: {}
              | Missing required parameter 'city' for tool 'get_weather'.
              | The tool was not run. Fix the arguments and call it again.
            null arguments: {}
              | Missing required parameter 'city' for tool 'get_weather'.
              | The tool was not run. Fix the arguments and call it again.
            not an object: [1,2]
              | The arguments must be a JSON object, got array [1,2] (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            wrong type: {"city":"Paris","days":"soon","detailed":"yes"}
              | Parameter 'days' must be an integer, got string "soon" (tool 'get_weather').
              | Parameter 'detailed' must be a boolean, got string "yes" (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            out of range: {"city":"Paris","days":30,"threshold":0}
              | Parameter 'days' must be at most 14, got 30 (tool 'get_weather').
              | Parameter 'threshold' must be greater than 0, got 0 (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            not a multiple: {"city":"Paris","threshold":0.7}
              | Parameter 'threshold' must be a multiple of 0.5, got 0.7 (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            enum: {"city":"Paris","units":"kelvin"}
              | Parameter 'units' must be one of "metric", "imperial"; got "kelvin" (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            too short: {"city":"P"}
              | Parameter 'city' must have at least 2 characters, it has 1 (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            nested: {"city":"Paris","location":{"lat":100,"lng":2}}
              | Missing required parameter 'location.lon' for tool 'get_weather'.
              | Parameter 'location.lat' must be at most 90, got 100 (tool 'get_weather').
              | Unknown parameter 'location.lng' (did you mean 'lon'?) (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            unknown parameter: {"city":"Paris","unit":"metric"}
              | Unknown parameter 'unit' (did you mean 'units'?) (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            array limits: {"city":"Paris","tags":["a","a","b"]}
              | Parameter 'tags' must have at most 2 items, it has 3 (tool 'get_weather').
              | Parameter 'tags' must not contain duplicate items (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
            array item type: {"city":"Paris","tags":["1",{}]}
              coerced tags[0] 1 -> "1"
              | Parameter 'tags[1]' must be a string, got object {} (tool 'get_weather').
              | The tool was not run. Fix the arguments and call it again.
        "#]],
    );
}

#[test]
fn combinators_and_references() {
    let tool = Tool::new(
        "shapes",
        json!({
            "$defs": {"Size": {"type": "integer", "minimum": 1}},
            "type": "object",
            "properties": {
                "size": {"$ref": "#/$defs/Size"},
                "id": {"anyOf": [{"type": "integer"}, {"type": "string", "format": "uuid"}]},
                "pick": {"oneOf": [{"const": "a"}, {"const": "b"}]},
                "both": {"allOf": [{"type": "number"}, {"maximum": 10}]},
                "never": false,
                "notnull": {"not": {"type": "null"}},
                "kind": {"type": "string"},
                "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
                "needs": {"type": "object", "dependentRequired": {"a": ["b"]}},
                "cond": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"type": "integer"}},
                "list": {"type": "array", "contains": {"const": 7}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
            }
        }),
    );
    check(
        &tool,
        &[
            ("ref ok", json!({"size": 3})),
            ("ref bad", json!({"size": 0})),
            ("anyOf coerced", json!({"id": 12.0})),
            ("anyOf strict", json!({"id": "12"})),
            ("anyOf none", json!({"id": true})),
            ("oneOf literal", json!({"pick": "c"})),
            ("allOf", json!({"both": 11})),
            ("false schema", json!({"never": 1})),
            ("not", json!({"notnull": null})),
            ("map values", json!({"extra": {"a": 1, "b": "x"}})),
            ("dependency", json!({"needs": {"a": 1}})),
            ("if then", json!({"cond": "ab"})),
            ("if else", json!({"cond": 1.5})),
            ("contains", json!({"list": [1, 2]})),
            ("tuple", json!({"pair": ["x", "y"]})),
        ],
        expect![[r#"
            ref ok: {"size":3}
            ref bad: {"size":0}
              | Parameter 'size' must be at least 1, got 0 (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            anyOf coerced: {"id":12}
              coerced id 12.0 -> 12
            anyOf strict: {"id":"12"}
            anyOf none: {"id":true}
              | Parameter 'id' must match integer|string<uuid> (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            oneOf literal: {"pick":"c"}
              | Parameter 'pick' must match "a"|"b" (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            allOf: {"both":11}
              | Parameter 'both' must be at most 10, got 11 (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            false schema: {"never":1}
              | Parameter 'never' is not allowed here (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            not: {"notnull":null}
              | Parameter 'notnull' is not allowed here (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            map values: {"extra":{"a":1,"b":"x"}}
              | Parameter 'extra.b' must be an integer, got string "x" (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            dependency: {"needs":{"a":1}}
              | Parameter 'needs.a' requires 'needs.b' (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            if then: {"cond":"ab"}
              | Parameter 'cond' must have at least 3 characters, it has 2 (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            if else: {"cond":1.5}
              | Parameter 'cond' must be an integer, got number 1.5 (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            contains: {"list":[1,2]}
              | Parameter 'list' must match a list containing 7 (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
            tuple: {"pair":["x","y"]}
              | Parameter 'pair[1]' must be an integer, got string "y" (tool 'shapes').
              | The tool was not run. Fix the arguments and call it again.
        "#]],
    );
}

#[test]
fn errors_are_typed_with_json_pointer_paths() {
    let validated = validate(
        &weather(),
        &json!({"location": {"lat": "north"}, "tags": ["a", {}]}),
    );
    let paths: Vec<&str> = validated.errors.iter().map(ValidationError::path).collect();
    assert_eq!(
        paths,
        ["/city", "/location/lon", "/location/lat", "/tags/1"]
    );
    assert!(matches!(
        validated.errors[0],
        ValidationError::MissingRequired { .. }
    ));
    assert!(matches!(
        validated.errors[2],
        ValidationError::WrongType { .. }
    ));
    let json = serde_json::to_value(&validated.errors[0]).expect("serialises");
    assert_eq!(json, json!({"kind": "missingRequired", "path": "/city"}));
    assert!(!validated.is_valid());
    assert_eq!(display_path("/a~1b/0/c~0d"), "a/b[0].c~d");
}

#[test]
fn closest_names_suggests_plausible_names_only() {
    let tools = [
        "get_weather",
        "get_forecast",
        "search_web",
        "echo",
        "get-sum",
    ];
    let cases: &[(&str, &[&str])] = &[
        ("get_wether", &["get_weather"]),
        ("GET_WEATHER", &["get_weather"]),
        ("getsum", &["get-sum"]),
        ("get_sum", &["get-sum"]),
        ("weather", &["get_weather"]),
        ("echo", &["echo"]),
        ("translate", &[]),
        ("", &[]),
    ];
    for (name, expected) in cases {
        assert_eq!(closest_names(name, tools, 1), *expected, "{name}");
    }
    assert_eq!(
        closest_names("get_", tools, 3),
        ["get_weather", "get_forecast"]
    );
    assert_eq!(closest_names("lng", ["lat", "lon"], 2), ["lon"]);
}
