//! Table-driven rendering of JSON Schema keywords: one line per case in an `expect!` golden
//! (regenerate with `UPDATE_EXPECT=1`).

use expect_test::{expect, Expect};
use relay_core::model::Tool;
use relay_core::schema::{render, render_catalog, render_type, CatalogOptions};
use serde_json::{json, Value};

fn check_types(cases: &[(&str, Value)], expected: Expect) {
    let mut out = String::new();
    for (name, schema) in cases {
        out.push_str(&format!("{name}: {}\n", render_type(schema)));
    }
    expected.assert_eq(&out);
}

#[test]
fn scalar_keywords() {
    check_types(
        &[
            ("string", json!({"type": "string"})),
            (
                "length",
                json!({"type": "string", "minLength": 1, "maxLength": 64}),
            ),
            ("max length", json!({"type": "string", "maxLength": 64})),
            ("pattern", json!({"type": "string", "pattern": "^[a-z]+$"})),
            ("format", json!({"type": "string", "format": "date-time"})),
            (
                "encoding",
                json!({"type": "string", "contentEncoding": "base64"}),
            ),
            (
                "range",
                json!({"type": "integer", "minimum": 1, "maximum": 100}),
            ),
            (
                "exclusive",
                json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}),
            ),
            (
                "draft4 exclusive",
                json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 5}),
            ),
            ("min only", json!({"type": "number", "minimum": -1.5})),
            ("multiple", json!({"type": "integer", "multipleOf": 5})),
            ("boolean", json!({"type": "boolean"})),
            ("null", json!({"type": "null"})),
            ("implied string", json!({"maxLength": 3})),
            ("implied number", json!({"minimum": 0})),
            ("any", json!({})),
            ("true", json!(true)),
            ("false", json!(false)),
            ("unknown type", json!({"type": "decimal"})),
        ],
        expect![[r#"
            string: string
            length: string len 1..64
            max length: string len<=64
            pattern: string /^[a-z]+$/
            format: string<date-time>
            encoding: string<base64>
            range: integer 1..100
            exclusive: number >0 <1
            draft4 exclusive: number >0 <=5
            min only: number >=-1.5
            multiple: integer multipleOf 5
            boolean: boolean
            null: null
            implied string: string len<=3
            implied number: number >=0
            any: any
            true: any
            false: never
            unknown type: decimal
        "#]],
    );
}

#[test]
fn literals_unions_and_nullables() {
    check_types(
        &[
            ("enum", json!({"type": "string", "enum": ["a", "b"]})),
            ("number enum", json!({"enum": [1, 2.5, null]})),
            ("const", json!({"const": "fixed"})),
            ("type array", json!({"type": ["string", "null"]})),
            (
                "type array bounds",
                json!({"type": ["integer", "string"], "minimum": 1, "maxLength": 4}),
            ),
            ("nullable", json!({"type": "string", "nullable": true})),
            (
                "nullable enum",
                json!({"enum": ["x", "y"], "nullable": true}),
            ),
            (
                "anyOf",
                json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
            ),
            (
                "oneOf literals",
                json!({"oneOf": [{"const": "a"}, {"const": "b"}]}),
            ),
            ("anyOf with any", json!({"anyOf": [{"type": "string"}, {}]})),
            (
                "allOf scalars",
                json!({"allOf": [{"type": "integer"}, {"minimum": 3}]}),
            ),
            ("not", json!({"not": {"type": "null"}})),
            (
                "if then else",
                json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "number"}}),
            ),
        ],
        expect![[r#"
            enum: "a"|"b"
            number enum: 1|2.5|null
            const: "fixed"
            type array: string|null
            type array bounds: (integer >=1)|(string len<=4)
            nullable: string|null
            nullable enum: "x"|"y"|null
            anyOf: string|number
            oneOf literals: "a"|"b"
            anyOf with any: any
            allOf scalars: integer & (number >=3)
            not: not null
            if then else: (if string then string len>=1 else number)
        "#]],
    );
}

#[test]
fn objects_arrays_and_maps() {
    check_types(
        &[
            (
                "object",
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 2}}, "required": ["a"]}),
            ),
            (
                "open object",
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}),
            ),
            ("bare object", json!({"type": "object"})),
            (
                "closed empty",
                json!({"type": "object", "additionalProperties": false}),
            ),
            (
                "map",
                json!({"type": "object", "additionalProperties": {"type": "number"}}),
            ),
            (
                "map with keys",
                json!({"type": "object", "propertyNames": {"enum": ["x", "y"]}, "additionalProperties": {"type": "boolean"}}),
            ),
            (
                "props and map",
                json!({"properties": {"id": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
            ),
            (
                "pattern props",
                json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}}),
            ),
            (
                "property count",
                json!({"type": "object", "minProperties": 1}),
            ),
            (
                "dependencies",
                json!({"type": "object", "properties": {"a": {}, "b": {}}, "dependentRequired": {"a": ["b"]}}),
            ),
            (
                "required without schema",
                json!({"type": "object", "required": ["x"]}),
            ),
            (
                "quoted names",
                json!({"type": "object", "properties": {"my key": {"type": "string"}, "1st": {"type": "string"}, "x-id": {"type": "string"}}}),
            ),
            (
                "array",
                json!({"type": "array", "items": {"type": "string"}}),
            ),
            (
                "array bounds",
                json!({"type": "array", "items": {"type": "string", "format": "email"}, "minItems": 1, "maxItems": 5, "uniqueItems": true}),
            ),
            (
                "array of union",
                json!({"type": "array", "items": {"type": ["string", "number"]}}),
            ),
            (
                "nested arrays",
                json!({"type": "array", "items": {"type": "array", "items": {"type": ["string", "null"]}}}),
            ),
            (
                "array of objects",
                json!({"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}),
            ),
            ("array no items", json!({"type": "array"})),
            (
                "exact count",
                json!({"type": "array", "minItems": 2, "maxItems": 2}),
            ),
            (
                "contains",
                json!({"type": "array", "contains": {"const": 1}}),
            ),
            (
                "tuple 2020",
                json!({"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}),
            ),
            (
                "tuple draft4",
                json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": {"type": "boolean"}}),
            ),
            (
                "allOf objects merge",
                json!({"allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "number"}}, "additionalProperties": false}
                ]}),
            ),
            (
                "object default",
                json!({"type": "object", "properties": {"o": {"type": "object", "default": {"k": [1, 2]}}}}),
            ),
        ],
        expect![[r#"
            object: {a: string, b?: integer = 2}
            open object: {a?: string, ...}
            bare object: object
            closed empty: {}
            map: Record<string, number>
            map with keys: Record<("x"|"y"), boolean>
            props and map: {id?: string, [key: string]: string}
            pattern props: {[key matching /^x-/]: string}
            property count: object >=1 keys
            dependencies: {a?: any, b?: any} a requires b
            required without schema: {x: any}
            quoted names: {"my key"?: string, "1st"?: string, x-id?: string}
            array: string[]
            array bounds: string<email>[] 1..5 items unique
            array of union: (string|number)[]
            nested arrays: (string|null)[][]
            array of objects: {n?: integer}[]
            array no items: any[]
            exact count: any[] 2 items
            contains: any[] contains 1
            tuple 2020: [number, number]
            tuple draft4: [string, integer, ...boolean[]]
            allOf objects merge: {a: string, b?: number}
            object default: {o?: object = {"k":[1,2]}}
        "#]],
    );
}

#[test]
fn references_and_cycles() {
    check_types(
        &[
            (
                "defs",
                json!({"$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}}, "$ref": "#/$defs/Point"}),
            ),
            (
                "definitions",
                json!({"definitions": {"Id": {"type": "string", "format": "uuid"}}, "type": "object", "properties": {"id": {"$ref": "#/definitions/Id"}}}),
            ),
            (
                "percent encoded",
                json!({"%defs": 1, "$defs": {"A": {"type": "boolean"}}, "$ref": "#/%24defs/A"}),
            ),
            (
                "unresolvable",
                json!({"$ref": "https://example.com/schemas/Thing.json"}),
            ),
            ("missing pointer", json!({"$ref": "#/$defs/Nope"})),
            (
                "self cycle",
                json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
            ),
            (
                "tree",
                json!({
                    "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                    "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}
                }),
            ),
            (
                "mutual",
                json!({
                    "$defs": {
                        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                        "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
                    },
                    "$ref": "#/$defs/A"
                }),
            ),
        ],
        expect![[r#"
            defs: {x?: number}
            definitions: {id?: string<uuid>}
            percent encoded: boolean
            unresolvable: Thing.json
            missing pointer: Nope
            self cycle: {child?: Root}
            tree: {root?: Node}
            mutual: A
        "#]],
    );
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name, schema).with_description(description)
}

#[test]
fn one_tool_with_docs_and_recursive_types() {
    let tree = tool(
        "tree_insert",
        "Insert a node\n   into the tree.",
        json!({
            "$defs": {"Node": {"description": "A tree node", "type": "object", "properties": {
                "value": {"type": "string", "description": "Payload", "examples": ["x"]},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "mode": {"type": "string", "enum": ["append", "prepend"], "default": "append", "description": "Where to insert", "deprecated": true},
                "tags": {"type": "array", "description": "Labels", "items": {"type": "string", "description": "One label", "default": "x"}},
                "shape": {"description": "Either form", "oneOf": [
                    {"type": "string", "description": "A name"},
                    {"type": "object", "properties": {"w": {"type": "number", "description": "Width"}}}
                ]}
            },
            "required": ["root"]
        }),
    );
    expect![[r#"
        Node = {value?: string, children?: Node[]}
         A tree node
         value: Payload (e.g. "x")
        tree_insert(root: Node, mode?: "append"|"prepend" = "append", tags?: string[], shape?: string|{w?: number})
         Insert a node into the tree.
         mode: Where to insert (deprecated)
         tags: Labels
         tags[]: One label (default "x")
         shape: Either form
         shape (option 1): A name
         shape.w: Width
    "#]]
    .assert_eq(&render(&tree));

    let empty = Tool::new("ping", json!({"type": "object"}));
    expect![[r#"
        ping()
    "#]]
    .assert_eq(&render(&empty));
    let anything = Tool::new("raw", json!({}));
    expect![[r#"
        raw(...)
    "#]]
    .assert_eq(&render(&anything));
    let mut titled = Tool::new(
        "t",
        json!({"type": "object", "properties": {"q": {"title": "Query", "type": "string"}}}),
    );
    titled.title = Some("Pretty name".to_owned());
    expect![[r#"
        t(q?: string)
         Pretty name
         q: Query
    "#]]
    .assert_eq(&render(&titled));
}

#[test]
fn catalog_shares_repeated_shapes_and_descriptions() {
    let point = json!({"type": "object", "description": "A point", "properties": {
        "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude"},
        "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude"}}, "required": ["lat", "lon"]});
    let a = tool(
        "a",
        "First.",
        json!({"type": "object", "properties": {"at": point, "limit": {"type": "integer", "description": "Max results"}}}),
    );
    let b = tool(
        "b",
        "Second.",
        json!({"type": "object", "properties": {"at": point, "limit": {"type": "integer", "description": "Max results"}}}),
    );
    let c = tool(
        "c",
        "Third.",
        json!({"type": "object", "properties": {"limit": {"type": "integer", "description": "How many pages"}, "files": {"type": "array", "items": point}}}),
    );
    let catalog = render_catalog(&[&a, &b, &c], &CatalogOptions::default());
    expect![[r#"
        At = {lat: number -90..90, lon: number -180..180}
         lat: Latitude
         lon: Longitude
        ---
        at: A point
        limit: Max results
        ---
        a(at?: At, limit?: integer)
         First.
        b(at?: At, limit?: integer)
         Second.
        c(limit?: integer, files?: At[])
         Third.
         limit: How many pages
         files[]: A point
    "#]]
    .assert_eq(&format!(
        "{}---\n{}---\n{}",
        catalog.types,
        catalog.shared_docs,
        catalog.tools.concat()
    ));

    let standalone = render_catalog(&[&a, &b], &CatalogOptions::standalone());
    assert!(standalone.types.is_empty() && standalone.shared_docs.is_empty());
    assert!(standalone.tools[1].contains("at?: {lat: number -90..90, lon: number -180..180}"));
    assert!(standalone.tools[1].contains("\n at.lat: Latitude\n"));
}

#[test]
fn a_shape_repeated_only_inside_a_shared_shape_stays_inline() {
    let range = json!({"type": "object", "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}}});
    let filters = json!({"type": "object", "properties": {"created": range, "status": {"enum": ["open", "closed"]}}});
    let twice = json!({"type": "object", "properties": {"a": range, "b": range}});
    let tools = [
        tool(
            "search",
            "Search.",
            json!({"type": "object", "properties": {"filters": filters}}),
        ),
        tool(
            "count",
            "Count.",
            json!({"type": "object", "properties": {"filters": filters}}),
        ),
        tool("pair", "Pair.", twice),
    ];
    let refs: Vec<&Tool> = tools.iter().collect();
    let catalog = render_catalog(&refs[..2], &CatalogOptions::default());
    expect![[r#"
        Filters = {created?: {from?: string<date>, to?: string<date>}, status?: "open"|"closed"}
        ---
        search(filters?: Filters)
         Search.
        count(filters?: Filters)
         Count.
    "#]]
    .assert_eq(&format!("{}---\n{}", catalog.types, catalog.tools.concat()));
    // Used in two places once `pair` joins: then it gets a name.
    let catalog = render_catalog(&refs, &CatalogOptions::default());
    expect![[r#"
        Filters = {created?: Created, status?: "open"|"closed"}
        Created = {from?: string<date>, to?: string<date>}
        ---
        search(filters?: Filters)
         Search.
        count(filters?: Filters)
         Count.
        pair(a?: Created, b?: Created)
         Pair.
    "#]]
    .assert_eq(&format!("{}---\n{}", catalog.types, catalog.tools.concat()));
}

#[test]
fn problems_are_reported_per_tool() {
    let good = Tool::new("good", json!({"type": "object"}));
    let bad = Tool::new(
        "bad",
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}}),
    );
    let catalog = render_catalog(&[&good, &bad], &CatalogOptions::default());
    assert_eq!(catalog.problems.len(), 1);
    assert_eq!(catalog.problems[0].tool, 1);
    assert!(catalog.problems[0].message.contains("#/$defs/Missing"));
}
