//! Property tests: rendering, validation and example generation never panic on arbitrary
//! schemas (built from real keywords, bounded depth, with `$ref` cycles) and arbitrary values.

use proptest::prelude::*;
use relay_core::model::Tool;
use relay_core::schema::{
    example_arguments, render, render_catalog, render_type, validate, CatalogOptions,
};
use serde_json::{json, Map, Value};

fn leaf_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|x| json!(x)),
        "[a-z0-9 {}\\[\\]\":,.-]{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf_value().prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn type_name() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "string", "number", "integer", "boolean", "null", "array", "object", "weird"
        ])
        .prop_map(|t| json!(t)),
        prop::collection::vec(
            prop::sample::select(vec!["string", "number", "null", "object"]),
            1..3
        )
        .prop_map(|t| json!(t)),
    ]
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        type_name().prop_map(|t| json!({"type": t})),
        (type_name(), -5i64..5, 0i64..10).prop_map(|(t, lo, span)| json!({"type": t, "minimum": lo, "maximum": lo + span, "minLength": span, "maxItems": span})),
        prop::collection::vec(leaf_value(), 0..4).prop_map(|v| json!({"enum": v})),
        leaf_value().prop_map(|v| json!({"const": v, "default": v})),
        prop::sample::select(vec!["#", "#/$defs/A", "#/$defs/B", "#/definitions/C", "#/nope", "http://x/y", "#/properties/a"]).prop_map(|r| json!({"$ref": r})),
        Just(json!({"type": "number", "exclusiveMinimum": true, "minimum": 0, "multipleOf": 0})),
        Just(json!({"type": "string", "pattern": "[", "format": "date-time"})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            (prop::collection::btree_map("[a-c]{1,2}", inner.clone(), 0..4), prop::collection::vec("[a-c]{1,2}", 0..3), prop::option::of(inner.clone()))
                .prop_map(|(props, required, additional)| {
                    let mut map = Map::new();
                    map.insert("type".into(), json!("object"));
                    map.insert("properties".into(), Value::Object(props.into_iter().collect()));
                    map.insert("required".into(), json!(required));
                    if let Some(additional) = additional {
                        map.insert("additionalProperties".into(), additional);
                    }
                    Value::Object(map)
                }),
            (inner.clone(), 0u64..3).prop_map(|(items, min)| json!({"type": "array", "items": items, "minItems": min, "uniqueItems": true})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"prefixItems": v, "items": false})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"oneOf": v, "nullable": true})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"allOf": v})),
            inner.clone().prop_map(|s| json!({"not": s})),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| json!({"if": a, "then": b, "else": c})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"type": "object", "patternProperties": {"^x": a}, "propertyNames": b, "dependentRequired": {"a": ["b"]}})),
            (inner.clone(), inner.clone(), inner).prop_map(|(a, b, root)| {
                let mut root = match root { Value::Object(m) => m, other => Map::from_iter([("allOf".to_owned(), json!([other]))]) };
                root.insert("$defs".into(), json!({"A": a, "B": {"type": "object", "properties": {"next": {"$ref": "#/$defs/B"}, "a": {"$ref": "#/$defs/A"}}}}));
                root.insert("definitions".into(), json!({"C": b}));
                Value::Object(root)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn render_and_validate_never_panic(schema in schema(), args in json_value()) {
        let tool = Tool::new("t", schema.clone()).with_description("d");
        let text = render(&tool);
        prop_assert!(text.starts_with("t(") || text.contains("\nt("));
        prop_assert_eq!(&text, &render(&tool));
        let _ = render_type(&schema);
        let other = Tool::new("u", schema.clone());
        let _ = render_catalog(&[&tool, &other, &tool], &CatalogOptions::default());
        let validated = validate(&tool, &args);
        // Errors always come with a message; coercions only when something changed.
        prop_assert_eq!(validated.is_valid(), validated.message_for_model("t").is_none());
        let _ = validate(&tool, &validated.arguments);
        let _ = example_arguments(&tool);
    }

    #[test]
    fn object_schemas_accept_their_own_examples(props in prop::collection::btree_map("[a-d]{1,3}", leaf_schema(), 1..5)) {
        // Plain object schemas of scalar properties: the example call must validate, or the
        // prompt would teach a call the relay itself rejects.
        let scalar = props.into_iter().filter(|(_, s)| s.get("type").is_some_and(|t| matches!(t.as_str(), Some("string" | "integer" | "boolean")))
            && s.get("minimum").is_none()).collect::<Map<String, Value>>();
        let required: Vec<String> = scalar.keys().cloned().collect();
        let tool = Tool::new("t", json!({"type": "object", "properties": scalar, "required": required}));
        let example = example_arguments(&tool);
        let validated = validate(&tool, &example);
        prop_assert!(validated.is_valid(), "{} rejected: {:?}", example, validated.errors);
    }
}
