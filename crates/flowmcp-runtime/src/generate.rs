//! The output-schema generator (chapter 10, step 5): from the `data` of real responses to an
//! output schema in the subset chapter 04 defines.
//!
//! The form is the chapter's: `type` on every node; every property gets `description: ''` (for
//! the author to fill in), the root and `items` get none. Where the chapter is silent:
//!
//! - numbers are `number` (the subset has no `integer`); no `format` is guessed;
//! - several samples (the responses of several tests, or the elements of one array) are merged:
//!   objects into one with every property seen, in first-seen order; a property or element seen as
//!   `null` and as a value is that value's type with `nullable: true`; one only ever `null` is
//!   `string` with `nullable: true` (the subset has no `null` type);
//! - an array without elements is `{ type: 'array' }` (no `items`);
//! - values of different types at one place (a string here, a number there) cannot be described
//!   in the subset (no unions): the first type seen wins, and the test runner reports the others as
//!   mismatches for the author to settle;
//! - nothing is nested deeper than [`OUTPUT_SCHEMA_MAX_DEPTH`]: an object or array at that level
//!   keeps its `type` without `properties` or `items`, which accepts whatever it holds.
//!
//! The property that matters, tested: a schema generated from data whose every place holds one
//! type (or `null`) accepts that data ([`crate::check_output`] finds no mismatch).

use flowmcp_spec::model::OUTPUT_SCHEMA_MAX_DEPTH;
use serde_json::{Map, Value, json};

/// A node being built: the merged shape of every sample seen at one place.
#[derive(Default)]
struct Shape {
    /// The first non-null type seen, as the subset spells it.
    ty: Option<&'static str>,
    nullable: bool,
    /// Objects: the merged shape of each property, in first-seen order.
    properties: Vec<(String, Shape)>,
    /// Arrays: the merged shape of every element, when there was one.
    items: Option<Box<Shape>>,
}

fn subset_type(v: &Value) -> Option<&'static str> {
    match v {
        Value::Null => None,
        Value::Bool(_) => Some("boolean"),
        Value::Number(_) => Some("number"),
        Value::String(_) => Some("string"),
        Value::Array(_) => Some("array"),
        Value::Object(_) => Some("object"),
    }
}

impl Shape {
    /// Adds one sample at this place.
    fn add(&mut self, v: &Value) {
        let Some(t) = subset_type(v) else {
            self.nullable = true;
            return;
        };
        let ty = *self.ty.get_or_insert(t);
        if ty != t {
            return; // Another type at the same place: the first one wins (see the module docs).
        }
        match v {
            Value::Object(o) => {
                for (k, sub) in o {
                    let i = match self.properties.iter().position(|(n, _)| n == k) {
                        Some(i) => i,
                        None => {
                            self.properties.push((k.clone(), Shape::default()));
                            self.properties.len() - 1
                        }
                    };
                    if let Some((_, shape)) = self.properties.get_mut(i) {
                        shape.add(sub);
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.items.get_or_insert_with(Box::default).add(item);
                }
            }
            _ => {}
        }
    }

    /// The schema node at nesting `level` (the root is 1); `property`: whether it is the value of
    /// a property (which gets a `description`); `written`: the node an author wrote at this place,
    /// if any (see [`generate_output_schema`]).
    fn schema(&self, level: usize, property: bool, written: Option<&Value>) -> Value {
        let written = written.and_then(Value::as_object);
        let Some(ty) = self.ty else {
            // Only `null` was seen: what the author wrote says more than the samples.
            if let Some(w) = written {
                let mut node = w.clone();
                node.insert("nullable".into(), json!(true));
                return Value::Object(node);
            }
            let mut node = Map::new();
            node.insert("type".into(), json!("string"));
            if property {
                node.insert("description".into(), json!(""));
            }
            node.insert("nullable".into(), json!(true));
            return Value::Object(node);
        };
        // What was written is kept where it agrees with the data on the type.
        let written = written.filter(|w| w.get("type").and_then(Value::as_str) == Some(ty));
        let nested = if level < OUTPUT_SCHEMA_MAX_DEPTH {
            match ty {
                "object" => {
                    let old = written
                        .and_then(|w| w.get("properties"))
                        .and_then(Value::as_object);
                    let mut props = Map::new();
                    // The written order first (with what was written but not seen), then the new.
                    for (k, w) in old.into_iter().flatten() {
                        let v = match self.properties.iter().find(|(n, _)| n == k) {
                            Some((_, shape)) => shape.schema(level + 1, true, Some(w)),
                            None => w.clone(),
                        };
                        props.insert(k.clone(), v);
                    }
                    for (k, shape) in &self.properties {
                        if !props.contains_key(k) {
                            props.insert(k.clone(), shape.schema(level + 1, true, None));
                        }
                    }
                    Some(("properties", Value::Object(props)))
                }
                "array" => self.items.as_ref().map(|items| {
                    let old = written.and_then(|w| w.get("items"));
                    ("items", items.schema(level + 1, false, old))
                }),
                _ => None,
            }
        } else {
            None
        };
        let mut node = Map::new();
        for (k, v) in written.into_iter().flatten() {
            match k.as_str() {
                "type" => {
                    node.insert(k.clone(), json!(ty));
                }
                "properties" | "items" => {
                    if let Some((key, value)) = nested.as_ref().filter(|(key, _)| key == k) {
                        node.insert((*key).to_string(), value.clone());
                    }
                }
                _ => {
                    node.insert(k.clone(), v.clone());
                }
            }
        }
        node.entry("type").or_insert_with(|| json!(ty));
        if property {
            node.entry("description").or_insert_with(|| json!(""));
        }
        if self.nullable {
            node.insert("nullable".into(), json!(true));
        }
        if let Some((key, value)) = nested {
            node.entry(key).or_insert(value);
        }
        Value::Object(node)
    }
}

/// The output schema describing every sample of `samples` (the `data` of several responses of one
/// tool), merged as the module documentation says. With `written` (the schema the tool declares
/// now), what its author wrote is kept wherever it agrees with the data on the type: the order of
/// keys and properties, descriptions (on any node), `nullable`, `enum`, `format`, and properties
/// the samples did not have; a place only ever seen as `null` keeps its written node. What the
/// data contradicts (another type) is replaced.
pub fn generate_output_schema<'a>(
    samples: impl IntoIterator<Item = &'a Value>,
    written: Option<&Value>,
) -> Value {
    let mut shape = Shape::default();
    for s in samples {
        shape.add(s);
    }
    shape.schema(1, false, written)
}

/// The MIME type an output of `schema` (a generated one) is declared with: `application/json` for
/// objects and arrays, `text/plain` for text.
pub fn mime_type_for(schema: &Value) -> &'static str {
    match schema.get("type").and_then(Value::as_str) {
        Some("object" | "array") => "application/json",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a panic in a test is a failed test
    use super::*;
    use crate::output::check_output;
    use proptest::prelude::*;

    #[test]
    fn the_chapter_example() {
        let data = json!([{ "id": "bitcoin", "prices": { "usd": 45000 } }]);
        assert_eq!(
            generate_output_schema([&data], None),
            json!({"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string", "description": ""},
                "prices": {"type": "object", "description": "", "properties": {
                    "usd": {"type": "number", "description": ""}}}}}})
        );
    }

    #[test]
    fn samples_merge_properties_nulls_and_empty_arrays() {
        let a = json!({"name": "A", "website": null, "tags": []});
        let b = json!({"name": "B", "website": "https://b.example", "extra": true});
        let s = generate_output_schema([&a, &b], None);
        assert_eq!(
            s["properties"]["website"],
            json!({"type": "string", "description": "", "nullable": true})
        );
        assert_eq!(
            s["properties"]["tags"],
            json!({"type": "array", "description": ""})
        );
        assert_eq!(s["properties"]["extra"]["type"], "boolean");
        let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "website", "tags", "extra"]);
        assert_eq!(
            generate_output_schema([&json!(null)], None),
            json!({"type": "string", "nullable": true})
        );
    }

    #[test]
    fn mixed_types_keep_the_first_and_depth_is_bounded() {
        let s = generate_output_schema([&json!([1, "two"])], None);
        assert_eq!(s["items"]["type"], "number");
        let deep = json!({"a": {"b": {"c": {"d": {"e": 1}}}}});
        let s = generate_output_schema([&deep], None);
        let level4 = &s["properties"]["a"]["properties"]["b"]["properties"]["c"];
        assert_eq!(level4, &json!({"type": "object", "description": ""}));
        assert!(check_output(&s, &deep).is_empty());
    }

    #[test]
    fn what_was_written_by_hand_is_kept_where_the_types_agree() {
        let data = json!({"kind": "a", "id": "x", "n": 1, "tags": ["a"], "gust": null});
        let written = json!({"type": "object", "properties": {
            "id": {"type": "string", "format": "uri", "description": "The id", "nullable": true},
            "n": {"type": "string", "description": "Was a string"},
            "tags": {"type": "array", "items": {"type": "string", "description": "A tag"}},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "gust": {"type": "number", "description": "Gust speed", "nullable": true},
            "optional": {"type": "boolean", "description": "Not in this sample"}}});
        let s = generate_output_schema([&data], Some(&written));
        let p = &s["properties"];
        // The written order of properties and of keys is kept.
        let keys: Vec<&String> = p.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "n", "tags", "kind", "gust", "optional"]);
        assert_eq!(
            serde_json::to_string(&p["id"]).unwrap(),
            r#"{"type":"string","format":"uri","description":"The id","nullable":true}"#
        );
        // The data says number: what was written for a string is not kept.
        assert_eq!(p["n"], json!({"type": "number", "description": ""}));
        assert_eq!(p["tags"]["items"]["description"], "A tag");
        assert_eq!(p["kind"]["enum"], json!(["a", "b"]));
        // Only null was seen: the written node stays.
        assert_eq!(p["gust"]["type"], "number");
        assert_eq!(p["optional"]["description"], "Not in this sample");
        assert!(check_output(&s, &data).is_empty());
    }

    /// JSON values whose every place holds one type or `null`: arrays hold values of one shape.
    fn describable() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| json!(n)),
            (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
            "[a-z]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                // An array of copies of one value (same shape), or with nulls among them.
                (inner.clone(), 0usize..4, any::<bool>()).prop_map(|(v, n, with_null)| {
                    let mut items = vec![v; n];
                    if with_null {
                        items.push(Value::Null);
                    }
                    Value::Array(items)
                }),
                prop::collection::btree_map("[a-d]", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_generated_schema_accepts_the_data_it_came_from(data in describable()) {
            let schema = generate_output_schema([&data], None);
            prop_assert_eq!(check_output(&schema, &data), Vec::<String>::new());
        }

        #[test]
        fn regenerating_over_a_generated_schema_changes_nothing(data in describable()) {
            let once = generate_output_schema([&data], None);
            let twice = generate_output_schema([&data], Some(&once));
            prop_assert_eq!(once, twice);
        }

        #[test]
        fn generated_schemas_have_a_type_on_every_node(data in describable()) {
            fn typed(node: &Value) -> bool {
                node.get("type").and_then(Value::as_str).is_some()
                    && node.get("properties").and_then(Value::as_object).is_none_or(|p| p.values().all(typed))
                    && node.get("items").is_none_or(typed)
            }
            prop_assert!(typed(&generate_output_schema([&data], None)));
        }
    }
}
