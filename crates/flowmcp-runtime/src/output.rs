//! Checking a tool's final data against its output schema (chapter 04). Mismatches are warnings,
//! never errors ("non-blocking validation"): the data is delivered as it is.
//!
//! What is checked: `type` (`string`, `number`, `integer`, `boolean`, `object`, `array`, `null`),
//! `nullable: true` (a `null` is accepted), `properties` (each property present in the data is
//! checked; an absent property is not a mismatch, chapter 04 §6), `items` (every element),
//! `enum`, and `required` when a schema lists it. Unknown keywords are ignored. At most
//! `MAX_WARNINGS` warnings are produced per call so a large mismatching array cannot flood the
//! envelope.

use serde_json::Value;

pub use crate::generate::{generate_output_schema, mime_type_for};

/// Upper bound on warnings from one check.
pub(crate) const MAX_WARNINGS: usize = 10;

/// The mismatches between `data` and `schema`, as `<json pointer>: <problem>` lines (the root is
/// written `/`). Values are never quoted (they may be large or sensitive); only types are named.
pub fn check_output(schema: &Value, data: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut omitted = 0usize;
    walk(schema, data, &mut String::new(), &mut out, &mut omitted);
    if omitted > 0 {
        out.push(format!("… and {omitted} more output-schema mismatches"));
    }
    out
}

/// Whether an envelope warning is one of [`check_output`]'s mismatch lines (including its
/// "… and N more" summary), so that callers can tell them from other warnings.
pub fn is_output_mismatch(warning: &str) -> bool {
    warning.starts_with("output /") || warning.ends_with(" more output-schema mismatches")
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, v: &Value) -> bool {
    match expected {
        "number" => v.is_number(),
        "integer" => match v {
            Value::Number(n) => n.as_f64().is_some_and(|f| f.fract() == 0.0),
            _ => false,
        },
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        // Unknown type names are not ours to judge (VAL rules report them at validation).
        _ => true,
    }
}

fn push(out: &mut Vec<String>, omitted: &mut usize, path: &str, msg: String) {
    if out.len() < MAX_WARNINGS {
        let at = if path.is_empty() { "/" } else { path };
        out.push(format!("output {at}: {msg}"));
    } else {
        *omitted += 1;
    }
}

/// `m[key]`. Schemas and rows are small objects, where comparing the few keys beats hashing
/// the one wanted (this check runs on every row of every call).
fn member<'a>(m: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    if m.len() <= 8 {
        m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        m.get(key)
    }
}

/// Appends `key` to a JSON pointer, escaped (`~` → `~0`, `/` → `~1`), without a new string.
pub(crate) fn push_escaped(path: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn walk(
    schema: &Value,
    data: &Value,
    path: &mut String,
    out: &mut Vec<String>,
    omitted: &mut usize,
) {
    let Some(s) = schema.as_object() else {
        return;
    };
    if data.is_null() {
        let nullable = member(s, "nullable").and_then(Value::as_bool) == Some(true);
        let typed_null = match member(s, "type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
            _ => true,
        };
        if !nullable && !typed_null {
            push(
                out,
                omitted,
                path,
                "null where the schema does not declare `nullable: true`".into(),
            );
        }
        return;
    }
    let ok = match member(s, "type") {
        Some(Value::String(t)) => type_matches(t, data),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .any(|t| type_matches(t, data)),
        _ => true,
    };
    if !ok {
        let expected = match member(s, "type") {
            Some(Value::String(t)) => t.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        push(
            out,
            omitted,
            path,
            format!("expected {expected}, found {}", json_type(data)),
        );
        return;
    }
    // Alternatives, as a client's JSON Schema validator reads them: the data must satisfy
    // exactly one of `oneOf`, at least one of `anyOf` (issue #44: the advertised schema keeps
    // them, so structured content that this check passed must pass the client's too).
    for (keyword, exactly_one) in [("oneOf", true), ("anyOf", false)] {
        if let Some(Value::Array(alternatives)) = member(s, keyword) {
            let matching = alternatives
                .iter()
                .filter(|alt| {
                    let (mut scratch, mut none) = (Vec::new(), 0usize);
                    walk(alt, data, &mut path.clone(), &mut scratch, &mut none);
                    scratch.is_empty() && none == 0
                })
                .count();
            if (exactly_one && matching != 1) || matching == 0 {
                push(
                    out,
                    omitted,
                    path,
                    format!(
                        "matches {matching} of the schema's {} `{keyword}` alternatives",
                        alternatives.len()
                    ),
                );
            }
        }
    }
    if let Some(Value::Array(allowed)) = member(s, "enum")
        && !allowed.contains(data)
    {
        push(
            out,
            omitted,
            path,
            "value is not one of the schema's `enum` values".into(),
        );
    }
    match data {
        Value::Object(obj) => {
            if let Some(Value::Array(req)) = member(s, "required") {
                for k in req.iter().filter_map(Value::as_str) {
                    if !obj.contains_key(k) {
                        push(
                            out,
                            omitted,
                            path,
                            format!("required property `{k}` is missing"),
                        );
                    }
                }
            }
            if let Some(Value::Object(props)) = member(s, "properties") {
                for (k, sub) in props {
                    if let Some(v) = member(obj, k) {
                        let len = path.len();
                        path.push('/');
                        push_escaped(path, k);
                        walk(sub, v, path, out, omitted);
                        path.truncate(len);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = member(s, "items") {
                for (i, v) in items.iter().enumerate() {
                    let len = path.len();
                    path.push('/');
                    let _ = std::fmt::Write::write_fmt(path, format_args!("{i}"));
                    walk(sub, v, path, out, omitted);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i44_one_of_and_any_of_are_checked_as_json_schema_reads_them() {
        // The public collection's worldbank answers: [pagination, [rows]].
        let schema = json!({"type": "array", "items": {"oneOf": [
            {"type": "object", "properties": {"page": {"type": "number"}}},
            {"type": "array", "items": {"type": "object"}}]}});
        assert!(check_output(&schema, &json!([{"page": 1}, [{"id": "x"}]])).is_empty());
        let bad = check_output(&schema, &json!([{"page": 1}, "text"]));
        assert_eq!(
            bad,
            ["output /1: matches 0 of the schema's 2 `oneOf` alternatives"]
        );
        let both = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
        assert_eq!(check_output(&both, &json!(3)).len(), 1);
        assert!(check_output(&both, &json!(3.5)).is_empty());
        let any = json!({"anyOf": [{"type": "number"}, {"type": "integer"}]});
        assert!(check_output(&any, &json!(3)).is_empty());
        assert_eq!(check_output(&any, &json!("3")).len(), 1);
    }

    #[test]
    fn matching_data_has_no_warnings() {
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "string"}, "price": {"type": "number"},
            "cap": {"type": "number", "nullable": true},
            "tags": {"type": "array", "items": {"type": "string"}}}});
        let data = json!({"id": "btc", "price": 1.5, "cap": null, "tags": ["a"], "extra": 1});
        assert!(check_output(&schema, &data).is_empty());
        // Absent properties are not mismatches.
        assert!(check_output(&schema, &json!({})).is_empty());
    }

    #[test]
    fn mismatches_name_pointer_and_types() {
        let schema = json!({"type": "object", "properties": {
            "price": {"type": "number"}, "cap": {"type": "number"},
            "a/b": {"type": "array", "items": {"type": "integer"}},
            "s": {"type": "string", "enum": ["x", "y"]}}});
        let data = json!({"price": "1", "cap": null, "a/b": [1, 2.5], "s": "z"});
        let w = check_output(&schema, &data);
        assert_eq!(
            w,
            vec![
                "output /price: expected number, found string",
                "output /cap: null where the schema does not declare `nullable: true`",
                "output /a~1b/1: expected integer, found number",
                "output /s: value is not one of the schema's `enum` values",
            ]
        );
        assert_eq!(
            check_output(&json!({"type": "array"}), &json!({})),
            vec!["output /: expected array, found object"]
        );
    }

    #[test]
    fn warnings_are_capped() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let data = json!((0..50).collect::<Vec<_>>());
        let w = check_output(&schema, &data);
        assert_eq!(w.len(), MAX_WARNINGS + 1);
        assert_eq!(w[MAX_WARNINGS], "… and 40 more output-schema mismatches");
        assert!(w.iter().all(|l| is_output_mismatch(l)));
        assert!(!is_output_mismatch("only the first 1000 rows are returned"));
    }
}
